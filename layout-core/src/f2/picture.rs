//! An SVG picture of an F2 layout.

use super::{F2Error, F2Layout};
use alloc::string::String;
use core::fmt::Write;

/// Cells a picture draws at most.
const MAX_CELLS: u64 = 1 << 16;

/// Eight pastel colours, by output value mod 8.
const PALETTE: [&str; 8] = [
    "#fbb4ae", "#b3cde3", "#ccebc5", "#decbe4", "#fed9a6", "#ffffcc", "#e5d8bd", "#fddaec",
];

/// An SVG picture of an F2 layout with one or two input dimensions: input dimension 0 across
/// (columns), input dimension 1 down (rows); each cell holds the flat output and is coloured by
/// it mod 8, so a swizzle's permutation of vectors shows as shuffled colour runs. The title is
/// the layout's text.
///
/// # Errors
/// [`F2Error::Undefined`] for more than two input dimensions or more than 65536 cells.
///
/// ```
/// use layout::f2::{F2Layout, to_svg};
/// let l: F2Layout = "{col:[1,2,4],row:[8,16]} -> {offset:32}".parse().unwrap();
/// let svg = to_svg(&l).unwrap();
/// assert!(svg.starts_with("<svg"));
/// assert_eq!(svg.matches("class=\"cell\"").count(), 32);
/// assert!(svg.contains("data-row=\"1\" data-col=\"2\" data-offset=\"10\""));
/// ```
pub fn to_svg(l: &F2Layout) -> Result<String, F2Error> {
    let dims: alloc::vec::Vec<_> = l.inputs().collect();
    if dims.len() > 2 || (1u64 << l.in_bits()) > MAX_CELLS {
        return Err(F2Error::Undefined {
            what: "a picture needs at most two input dimensions and 65536 cells",
        });
    }
    let cols = dims.first().map_or(1, |d| d.1);
    let rows = dims.get(1).map_or(1, |d| d.1);
    let wide = (1u64 << l.out_bits()).saturating_sub(1).max(1).ilog10() as u64 + 1;
    let cw = (wide * 8).max(28);
    let ch = 24;
    let (left, top) = (44, 56);
    let w = left + cols * cw + 8;
    let h = top + rows * ch + 8;
    let mut s = String::new();
    let title = alloc::format!("{l}")
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;");
    // writing to a String cannot fail
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"monospace\" font-size=\"12\">\n<text x=\"4\" y=\"16\">{title}</text>\n"
    );
    for c in 0..cols {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{c}</text>",
            left + c * cw + cw / 2,
            top - 8
        );
    }
    for r in 0..rows {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{r}</text>",
            left - 6,
            top + r * ch + 16
        );
        for c in 0..cols {
            let x = c | (r << dims.first().map_or(0, |d| d.1.trailing_zeros()));
            let y = l.apply_flat(x)?;
            let (px, py) = (left + c * cw, top + r * ch);
            let _ = writeln!(
                s,
                "<g class=\"cell\" data-row=\"{r}\" data-col=\"{c}\" data-offset=\"{y}\"><rect x=\"{px}\" y=\"{py}\" width=\"{cw}\" height=\"{ch}\" fill=\"{}\" stroke=\"black\"/><text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{y}</text></g>",
                PALETTE[(y % 8) as usize],
                px + cw / 2,
                py + 16
            );
        }
    }
    s.push_str("</svg>\n");
    Ok(s)
}
