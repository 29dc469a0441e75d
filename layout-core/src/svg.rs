//! Pictures of rank-≤2 layouts: SVG (one cell per coordinate, the offset in it) and LaTeX/TikZ
//! in the manner of CuTe's `print_latex`.
//!
//! A [`Picture`] draws any [`AnyLayout`] of rank 1 or 2 — plain, swizzled, NZ, blocked — as a
//! grid: row index down, column index across (a rank-1 layout is one column), each cell holding
//! its offset and coloured by offset (`offset mod 8`) or by a map the caller gives (thread id,
//! shared-memory bank, …). Rows and columns are labelled, the layout's text is the title, and a
//! picture of a [`Padded`] layout shades the padding.
//!
//! ```
//! use layout::{DynLayout, svg::Picture};
//! let l: DynLayout = "(2,3):(3,1)".parse().unwrap();
//! let svg = Picture::new(&l).unwrap().to_svg();
//! assert!(svg.starts_with("<svg"));
//! assert_eq!(svg.matches("class=\"cell\"").count(), 6);
//! assert!(svg.contains("data-row=\"1\" data-col=\"2\" data-offset=\"5\""));
//! // colour by a map: here the 4-byte bank of a 2-byte element, 32 colours
//! let bank = |_r: i64, _c: i64, off: i64| ((off * 2 / 4) % 32) as usize;
//! let svg = Picture::new(&l).unwrap().colour_by(32, &bank).to_svg();
//! assert!(svg.contains("(2,3):(3,1)"));
//! ```

use crate::named::Padded;
use crate::{AnyLayout, LayoutError};
use alloc::format;
use alloc::string::{String, ToString};
use core::fmt::Write;

/// Width of a cell per digit, and its minimum, height, and the margins, in SVG user units.
const DIGIT_W: i64 = 8;
const MIN_CELL_W: i64 = 28;
const CELL_H: i64 = 24;
const LEFT: i64 = 44;
const TOP: i64 = 56;

/// The most cells a picture draws.
pub const MAX_CELLS: i64 = 1 << 20;

/// The default palette (pastel, 8 colours) used when colouring by offset.
const PALETTE8: [(u8, u8, u8); 8] = [
    (251, 180, 174),
    (179, 205, 227),
    (204, 235, 197),
    (222, 203, 228),
    (254, 217, 166),
    (255, 255, 204),
    (229, 216, 189),
    (253, 218, 236),
];

/// Shade of padding cells.
const PADDING: (u8, u8, u8) = (200, 200, 200);

/// A colour map: `(row, column, offset) ↦ colour index`.
pub type ColourMap<'a> = &'a dyn Fn(i64, i64, i64) -> usize;

/// A picture of a rank-1 or rank-2 layout. See the [module docs](self).
#[derive(Clone, Copy)]
pub struct Picture<'a, L> {
    layout: &'a L,
    rows: i64,
    cols: i64,
    /// Logical extents: cells at or past them are padding.
    logical: (i64, i64),
    colours: usize,
    map: Option<ColourMap<'a>>,
    title: Option<&'a str>,
}

/// `n` distinct light colours, index `i` (the 8-colour palette for `n ≤ 8`, else hues spread by
/// the golden angle).
pub fn colour(i: usize, n: usize) -> (u8, u8, u8) {
    if n <= PALETTE8.len() {
        return PALETTE8[i % PALETTE8.len()];
    }
    let h = ((i % n) as f64 * 137.508) % 360.0;
    hsl(h, 0.65, 0.78)
}

/// HSL (hue in degrees, saturation and lightness in `[0, 1]`) to RGB.
fn hsl(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    // `f64::abs` is not in `core` on every supported toolchain
    let abs = |v: f64| if v < 0.0 { -v } else { v };
    let c = (1.0 - abs(2.0 * l - 1.0)) * s;
    let hp = h / 60.0;
    let x = c * (1.0 - abs((hp % 2.0) - 1.0));
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0 + 0.5) as u8;
    (to(r), to(g), to(b))
}

/// Escape text for XML (and harmlessly for TikZ node text built from layout text).
fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            _ => o.push(ch),
        }
    }
    o
}

fn digits(v: i64) -> i64 {
    v.to_string().len() as i64
}

impl<'a, L: AnyLayout> Picture<'a, L> {
    /// A picture of `layout`, coloured by offset.
    ///
    /// # Errors
    /// [`LayoutError::Precondition`] when the layout's rank is above 2 or it has more than
    /// [`MAX_CELLS`] coordinates.
    pub fn new(layout: &'a L) -> Result<Self, LayoutError> {
        let domain = layout.domain();
        let (rows, cols) = if domain.is_leaf() || domain.rank() == 1 {
            (domain.size()?, 1)
        } else if domain.rank() == 2 {
            (domain.mode(0)?.size()?, domain.mode(1)?.size()?)
        } else {
            return Err(LayoutError::Precondition {
                what: "a picture needs a layout of rank 1 or 2; rank and maximum are {a} and {b}",
                a: domain.rank() as i64,
                b: 2,
            });
        };
        if rows.saturating_mul(cols) > MAX_CELLS {
            return Err(LayoutError::Precondition {
                what: "a picture draws at most 2^20 cells; cells and maximum are {a} and {b}",
                a: rows.saturating_mul(cols),
                b: MAX_CELLS,
            });
        }
        Ok(Picture {
            layout,
            rows,
            cols,
            logical: (rows, cols),
            colours: PALETTE8.len(),
            map: None,
            title: None,
        })
    }

    /// A picture of the padded layout of `p`, the padding shaded.
    ///
    /// # Errors
    /// As [`Picture::new`].
    pub fn padded(p: &'a Padded<L>) -> Result<Self, LayoutError> {
        let mut pic = Picture::new(p.layout())?;
        let lg = p.logical_i64();
        pic.logical = (lg[0], if lg.len() > 1 { lg[1] } else { 1 });
        Ok(pic)
    }

    /// Colour each cell by `map(row, column, offset)`, an index into `n` distinct colours.
    pub fn colour_by(mut self, n: usize, map: ColourMap<'a>) -> Self {
        self.colours = n.max(1);
        self.map = Some(map);
        self
    }

    /// Replace the title (the layout's text by default).
    pub fn title(mut self, title: &'a str) -> Self {
        self.title = Some(title);
        self
    }

    /// Rows and columns of the grid.
    pub fn extents(&self) -> (i64, i64) {
        (self.rows, self.cols)
    }

    /// The offset of cell `(r, c)`.
    pub fn offset(&self, r: i64, c: i64) -> i64 {
        self.layout.offset(r + c * self.rows)
    }

    fn is_padding(&self, r: i64, c: i64) -> bool {
        r >= self.logical.0 || c >= self.logical.1
    }

    fn fill(&self, r: i64, c: i64, off: i64) -> (u8, u8, u8) {
        if self.is_padding(r, c) {
            return PADDING;
        }
        let i = match self.map {
            Some(f) => f(r, c, off),
            None => off.rem_euclid(PALETTE8.len() as i64) as usize,
        };
        colour(i, self.colours)
    }

    fn title_text(&self) -> String {
        match self.title {
            Some(t) => t.to_string(),
            None => format!("{}", self.layout),
        }
    }

    fn cell_w(&self) -> i64 {
        let mut widest = 1;
        for r in 0..self.rows {
            for c in 0..self.cols {
                widest = widest.max(digits(self.offset(r, c)));
            }
        }
        widest = widest.max(digits(self.rows - 1)).max(digits(self.cols - 1));
        (widest * DIGIT_W + 12).max(MIN_CELL_W)
    }

    /// The picture as an SVG document: one `<g class="cell">` per coordinate (with
    /// `data-row`, `data-col`, `data-offset` attributes, a `<rect>` and the offset as
    /// `<text>`), `class="cell padding"` for padding cells, row and column labels, the title.
    pub fn to_svg(&self) -> String {
        let cw = self.cell_w();
        let width = LEFT + self.cols * cw + 12;
        let height = TOP + self.rows * CELL_H + 12;
        let mut s = String::new();
        let title = escape(&self.title_text());
        // writing to a String cannot fail
        let _ = write!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"monospace\" font-size=\"12\">\n\
             <title>{title}</title>\n\
             <rect width=\"{width}\" height=\"{height}\" fill=\"white\"/>\n\
             <text class=\"title\" x=\"{x}\" y=\"20\" text-anchor=\"middle\" font-size=\"14\">{title}</text>\n",
            x = width / 2
        );
        for c in 0..self.cols {
            let _ = writeln!(
                s,
                "<text class=\"col-label\" x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#555\">{c}</text>",
                LEFT + c * cw + cw / 2,
                TOP - 8
            );
        }
        for r in 0..self.rows {
            let _ = writeln!(
                s,
                "<text class=\"row-label\" x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#555\">{r}</text>",
                LEFT - 8,
                TOP + r * CELL_H + CELL_H / 2 + 4
            );
        }
        for r in 0..self.rows {
            for c in 0..self.cols {
                let off = self.offset(r, c);
                let (red, g, b) = self.fill(r, c, off);
                let class = if self.is_padding(r, c) {
                    "cell padding"
                } else {
                    "cell"
                };
                let (x, y) = (LEFT + c * cw, TOP + r * CELL_H);
                let _ = writeln!(
                    s,
                    "<g class=\"{class}\" data-row=\"{r}\" data-col=\"{c}\" data-offset=\"{off}\">\
                     <rect x=\"{x}\" y=\"{y}\" width=\"{cw}\" height=\"{CELL_H}\" \
                     fill=\"#{red:02x}{g:02x}{b:02x}\" stroke=\"#333\" stroke-width=\"0.5\"/>\
                     <text x=\"{tx}\" y=\"{ty}\" text-anchor=\"middle\">{off}</text></g>",
                    tx = x + cw / 2,
                    ty = y + CELL_H / 2 + 4
                );
            }
        }
        s.push_str("</svg>\n");
        s
    }

    /// The picture as a standalone LaTeX document drawing a TikZ grid, as CuTe's
    /// `print_latex`: one filled, labelled node per coordinate, row and column labels, the
    /// layout's text as a caption line; padding in grey.
    ///
    /// ```
    /// use layout::{DynLayout, svg::Picture};
    /// let l: DynLayout = "(2,2):(1,2)".parse().unwrap();
    /// let tex = Picture::new(&l).unwrap().to_latex();
    /// assert!(tex.contains("\\begin{tikzpicture}"));
    /// assert_eq!(tex.matches("\\node[cell").count(), 4);
    /// ```
    pub fn to_latex(&self) -> String {
        let mut s = String::new();
        let _ = write!(
            s,
            "\\documentclass[convert]{{standalone}}\n\\usepackage{{tikz}}\n\\begin{{document}}\n\
             % {}\n\\begin{{tikzpicture}}[x={{(0cm,-1cm)}},y={{(1cm,0cm)}},\
             cell/.style={{rectangle,draw=black,thin,minimum size=1cm,inner sep=0pt,font=\\small}}]\n",
            self.title_text()
        );
        let mut defined = alloc::vec::Vec::new();
        for r in 0..self.rows {
            for c in 0..self.cols {
                let off = self.offset(r, c);
                let (red, g, b) = self.fill(r, c, off);
                let name = format!("c{red:02x}{g:02x}{b:02x}");
                if !defined.contains(&name) {
                    let _ = writeln!(s, "\\definecolor{{{name}}}{{RGB}}{{{red},{g},{b}}}");
                    defined.push(name.clone());
                }
                let _ = writeln!(s, "\\node[cell,fill={name}] at ({r},{c}) {{{off}}};");
            }
        }
        for r in 0..self.rows {
            let _ = writeln!(s, "\\node at ({r},-1) {{\\textbf{{{r}}}}};");
        }
        for c in 0..self.cols {
            let _ = writeln!(s, "\\node at (-1,{c}) {{\\textbf{{{c}}}}};");
        }
        let _ = writeln!(
            s,
            "\\node[anchor=south west] at (-2,-1) {{\\texttt{{{}}}}};",
            self.title_text().replace('_', "\\_")
        );
        s.push_str("\\end{tikzpicture}\n\\end{document}\n");
        s
    }
}
