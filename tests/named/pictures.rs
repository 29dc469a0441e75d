//! Pictures: the SVG parses as XML, has one cell per coordinate, and each cell shows the
//! layout's offset of its coordinate.

use layout::named::{Nz, Padded, f16, make_nz_layout};
use layout::svg::Picture;
use layout::{DynLayout, Int, Layout, Sw, SwizzledLayout};

/// Parse `svg` and check every cell against `offset(r, c)`; returns the number of padding cells.
fn check(svg: &str, rows: i64, cols: i64, offset: impl Fn(i64, i64) -> i64) -> usize {
    let doc = roxmltree::Document::parse(svg).expect("the SVG is well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let cells: Vec<_> = doc
        .descendants()
        .filter(|n| {
            n.tag_name().name() == "g"
                && n.attribute("class")
                    .is_some_and(|c| c.split(' ').any(|w| w == "cell"))
        })
        .collect();
    assert_eq!(cells.len() as i64, rows * cols, "one cell per coordinate");
    let mut seen = vec![false; (rows * cols) as usize];
    let mut padding = 0;
    for g in cells {
        let num = |a: &str| g.attribute(a).unwrap().parse::<i64>().unwrap();
        let (r, c) = (num("data-row"), num("data-col"));
        assert!((0..rows).contains(&r) && (0..cols).contains(&c));
        assert!(!std::mem::replace(&mut seen[(r + c * rows) as usize], true));
        let text: String = g
            .descendants()
            .filter(|n| n.tag_name().name() == "text")
            .flat_map(|n| n.text())
            .collect();
        assert_eq!(text.parse::<i64>().unwrap(), offset(r, c), "cell ({r},{c})");
        assert_eq!(num("data-offset"), offset(r, c));
        assert!(g.children().any(|n| n.tag_name().name() == "rect"));
        if g.attribute("class").unwrap().contains("padding") {
            padding += 1;
        }
    }
    padding
}

fn dyn_at(l: &DynLayout, rows: i64) -> impl Fn(i64, i64) -> i64 + '_ {
    move |r, c| l.offset(r + c * rows)
}

#[test]
fn svg_cells_show_the_offsets() {
    for (text, rows, cols, by_hand) in [
        (
            "(4,8):(8,1)",
            4,
            8,
            Some(&(|r: i64, c: i64| r * 8 + c) as &dyn Fn(i64, i64) -> i64),
        ),
        (
            "(4,8):(1,4)",
            4,
            8,
            Some(&(|r: i64, c: i64| r + 4 * c) as &dyn Fn(i64, i64) -> i64),
        ),
        ("((2,3),(2,4)):((1,4),(2,12))", 6, 8, None),
        ("(8):(2)", 8, 1, None),
    ] {
        let l: DynLayout = text.parse().unwrap();
        let svg = Picture::new(&l).unwrap().to_svg();
        assert!(svg.contains(text), "title");
        assert_eq!(check(&svg, rows, cols, dyn_at(&l, rows)), 0);
        if let Some(f) = by_hand {
            check(&svg, rows, cols, f);
        }
    }
    // the reference's row 0 and column 0 of ((2,3),(2,4)):((1,4),(2,12))
    let l: DynLayout = "((2,3),(2,4)):((1,4),(2,12))".parse().unwrap();
    let p = Picture::new(&l).unwrap();
    assert_eq!(
        (0..8).map(|c| p.offset(0, c)).collect::<Vec<_>>(),
        [0, 2, 12, 14, 24, 26, 36, 38]
    );
    assert_eq!(
        (0..6).map(|r| p.offset(r, 0)).collect::<Vec<_>>(),
        [0, 1, 4, 5, 8, 9]
    );
    assert!(Picture::new(&"(2,2,2)".parse::<DynLayout>().unwrap()).is_err());
}

#[test]
fn svg_of_nz_swizzle_and_padding() {
    let nz = Nz::<f16, 32, 32>::new();
    let svg = Picture::new(&nz).unwrap().to_svg();
    let d = nz.to_dyn();
    check(&svg, 32, 32, dyn_at(&d, 32));
    // NZ by the reference's formula
    check(&svg, 32, 32, |r, c| {
        (r % 16) * 16 + (r / 16) * 256 + c % 16 + (c / 16) * 512
    });

    let atom = SwizzledLayout::new(
        Sw::<3, 3, 3>,
        Int::<0>,
        Layout::new((Int::<8>, Int::<64>), (Int::<64>, Int::<1>)),
    );
    let bank = |_: i64, _: i64, off: i64| ((off * 2 / 4) % 32) as usize;
    let svg = Picture::new(&atom).unwrap().colour_by(32, &bank).to_svg();
    check(&svg, 8, 64, |r, c| atom.offset(r + 8 * c));
    check(&svg, 8, 64, |r, c| r * 64 + (c ^ (r << 3)));

    let p = Padded::new(make_nz_layout::<f16>(20, 28).unwrap(), &[20, 28]).unwrap();
    let svg = Picture::padded(&p).unwrap().to_svg();
    let pad = check(&svg, 32, 32, dyn_at(p.layout(), 32));
    assert_eq!(pad, 32 * 32 - 20 * 28);
}

#[test]
fn latex_has_one_node_per_cell() {
    let l: DynLayout = "((2,3),(2,4)):((1,4),(2,12))".parse().unwrap();
    let tex = Picture::new(&l).unwrap().to_latex();
    assert_eq!(tex.matches("\\node[cell").count(), 48);
    assert!(tex.contains("at (5,7) {47}"));
    assert!(tex.starts_with("\\documentclass"));
}
