//! The foundation: integer tuples, run-time and typed layouts, parsing and printing.
//! Definitions are checked by brute force over whole domains, on random layouts.

#[path = "support/cases.rs"]
mod cases;
use layout::{DynLayout, DynTuple, Int, IntTuple, Layout, LayoutError, LayoutTable};
use proptest::prelude::*;

mod support;

/// Random layouts from the shared generator: up to 6 leaves of extent ≤ 4 (brute-force checks
/// stay fast), nested up to depth 2, random / compact-permuted / broadcast strides, negative strides included.
fn arb_layout() -> impl Strategy<Value = DynLayout> {
    support::arb_layout(support::Gen {
        max_leaves: 6,
        max_extent: 4,
        negative: true,
        huge: false,
    })
}

/// A random shape: the shape of a random layout.
fn arb_shape() -> impl Strategy<Value = DynTuple> {
    arb_layout().prop_map(|l| l.shape())
}

/// Colexicographic coordinate of `i` in a flat list of extents (the definition, written plainly).
fn colex(mut i: i64, extents: &[i64]) -> Vec<i64> {
    extents
        .iter()
        .map(|&s| {
            let c = i % s;
            i /= s;
            c
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(2000)))]

    #[test]
    fn display_parse_round_trip(l in arb_layout()) {
        let text = l.to_string();
        prop_assert!(!text.contains(' '));
        prop_assert_eq!(text.parse::<DynLayout>(), Ok(l));
        // CuTe prints static values with `_`: the parser takes those too
        let underscored: String = text
            .char_indices()
            .flat_map(|(k, c)| {
                let prev = text[..k].chars().last();
                let starts_number = (c.is_ascii_digit() || c == '-')
                    && !matches!(prev, Some(p) if p.is_ascii_digit() || p == '-');
                if starts_number { vec!['_', c] } else { vec![c] }
            })
            .collect();
        prop_assert_eq!(underscored.parse::<DynLayout>(), Ok(l));
    }

    #[test]
    fn offset_is_the_inner_product_of_the_colex_coordinate(l in arb_layout()) {
        let shape = l.shape_leaves().to_vec();
        let stride = l.stride_leaves().to_vec();
        for i in 0..l.size() {
            let c = colex(i, &shape);
            let expect: i64 = c.iter().zip(&stride).map(|(c, d)| c * d).sum();
            prop_assert_eq!(l.offset(i), expect);
            // the same point as a 1-D, a hierarchical and a per-mode coordinate
            prop_assert_eq!(l.offset_of(&DynTuple::leaf(i)), Ok(expect));
            let hier = l.index_to_coord(i);
            prop_assert_eq!(hier.leaves(), &c[..]);
            prop_assert_eq!(l.offset_of(&hier), Ok(expect));
            if !l.shape().is_leaf() {
                // per-mode: each top-level mode gets its own 1-D index
                let mut per_mode = Vec::new();
                let mut rest = i;
                for m in 0..l.rank() {
                    let sz = l.shape().mode(m).unwrap().size().unwrap();
                    per_mode.push(rest % sz);
                    rest /= sz;
                }
                let coord = DynTuple::from_slice(&per_mode).unwrap();
                prop_assert_eq!(l.offset_of(&coord), Ok(expect));
            }
        }
    }

    #[test]
    fn size_cosize_and_range_match_their_definitions(l in arb_layout()) {
        let offsets: Vec<i64> = (0..l.size()).map(|i| l.offset(i)).collect();
        let lo = *offsets.iter().min().unwrap();
        let hi = *offsets.iter().max().unwrap();
        prop_assert_eq!(l.offset_range(), (lo, hi));
        prop_assert_eq!(l.cosize(), hi - lo + 1);
        prop_assert_eq!(l.size(), l.shape_leaves().iter().product::<i64>());
    }

    #[test]
    fn index_of_offset_inverts_the_layout(l in arb_layout()) {
        let offsets: Vec<i64> = (0..l.size()).map(|i| l.offset(i)).collect();
        let mut sorted = offsets.clone();
        sorted.sort_unstable();
        sorted.dedup();
        if sorted.len() == offsets.len() {
            // injective: the exact inverse
            for (i, &o) in offsets.iter().enumerate() {
                prop_assert_eq!(l.index_of_offset(o), Ok(Some(i as i64)));
            }
        }
        let (lo, hi) = l.offset_range();
        for o in lo - 3..=hi + 3 {
            match l.index_of_offset(o).unwrap() {
                Some(j) => prop_assert!(j >= 0 && j < l.size() && l.offset(j) == o),
                None => prop_assert!(!offsets.contains(&o)),
            }
        }
    }

    #[test]
    fn compact_layouts_enumerate_in_their_order(shape in arb_shape()) {
        let col = DynLayout::col_major(&shape).unwrap();
        let row = DynLayout::row_major(&shape).unwrap();
        let extents = shape.leaves().to_vec();
        for i in 0..col.size() {
            prop_assert_eq!(col.offset(i), i);
            // row-major: the lexicographic (rightmost fastest) linearisation of the coordinate
            let c = colex(i, &extents);
            let lex = c.iter().zip(&extents).fold(0, |acc, (c, s)| acc * s + c);
            prop_assert_eq!(row.offset(i), lex);
        }
    }

    #[test]
    fn flatten_group_select_keep_the_function(l in arb_layout()) {
        prop_assert!(l.flatten().functionally_eq(&l));
        prop_assert!(l.flatten().depth() <= 1);
        if l.rank() >= 2 && !l.shape().is_leaf() {
            let g = l.group(0, 2).unwrap();
            prop_assert!(g.functionally_eq(&l));
            prop_assert_eq!(g.rank(), l.rank() - 1);
            let rev: Vec<usize> = (0..l.rank()).rev().collect();
            let s = l.select(&rev).unwrap();
            for m in 0..l.rank() {
                prop_assert_eq!(s.mode(l.rank() - 1 - m).unwrap(), l.mode(m).unwrap());
            }
        }
    }
}

#[test]
fn cute_coordinate_example() {
    // cute-algebra.md §2: shape (3,(2,3)): 16 <-> (1,5) <-> (1,(1,2))
    let l: DynLayout = "(3,(2,3)):(3,(12,1))".parse().unwrap();
    let expect = 3 + 12 + 2;
    for c in ["16", "(1,5)", "(1,(1,2))"] {
        assert_eq!(l.offset_of(&c.parse().unwrap()), Ok(expect), "{c}");
    }
    assert_eq!(l.index_to_coord(16).to_string(), "(1,(1,2))");
    assert_eq!(l.cosize(), 21);
}

#[test]
fn tuple_relations() {
    let t = |s: &str| s.parse::<DynTuple>().unwrap();
    assert!(t("24").compatible(&t("(4,6)")));
    assert!(t("(4,6)").compatible(&t("((2,2),6)")));
    assert!(!t("(24)").compatible(&t("24")));
    assert!(!t("(4,6)").compatible(&t("24")));
    assert!(t("(1,2)").weakly_congruent(&t("((1,2),(3,4))")));
    assert!(!t("((1,2),(3,4))").weakly_congruent(&t("(1,2)")));
    assert!(t("(1,(2,3))").congruent(&t("(7,(8,9))")));
    assert!(!t("(1,(2,3))").congruent(&t("((1,2),3)")));
    assert_eq!(t("()").size(), Ok(1));
    assert_eq!(t("(8)").to_string(), "(8)");
    assert_eq!(t("((3))").depth(), 2);
}

#[test]
fn invalid_layouts_are_errors_with_numbers() {
    let parse = |s: &str| s.parse::<DynLayout>();
    assert!(matches!(
        parse("(2,3):(1,(2,3))"),
        Err(LayoutError::NotCongruent { .. })
    ));
    assert_eq!(
        parse("(2,0):(1,2)"),
        Err(LayoutError::NonPositiveExtent { leaf: 1, extent: 0 })
    );
    assert_eq!(
        parse("(2,-3):(1,2)"),
        Err(LayoutError::NonPositiveExtent {
            leaf: 1,
            extent: -3
        })
    );
    assert_eq!(
        parse("(4294967296,4294967296):(1,1)"),
        Err(LayoutError::Overflow { what: "size" })
    );
    assert_eq!(
        parse("(2,2):(1,9223372036854775807)"),
        Err(LayoutError::Overflow { what: "cosize" })
    );
    assert!(matches!(parse("(2,3"), Err(LayoutError::Parse { .. })));
    assert!(matches!(
        parse("(2,3):(1,2) x"),
        Err(LayoutError::Parse { at: 12, .. })
    ));
    assert!(matches!(
        parse("(2,x)"),
        Err(LayoutError::Parse { at: 3, .. })
    ));
    let too_many = format!("({})", vec!["1"; 33].join(","));
    assert_eq!(
        parse(&too_many),
        Err(LayoutError::TooManyLeaves { needed: 33 })
    );
    let l: DynLayout = "(2,3):(1,2)".parse().unwrap();
    assert_eq!(
        l.try_offset(6),
        Err(LayoutError::IndexOutOfRange { index: 6, size: 6 })
    );
    assert_eq!(
        l.offset_of(&"(2,0)".parse().unwrap()),
        Err(LayoutError::CoordinateOutOfRange {
            leaf: 0,
            coord: 2,
            extent: 2
        })
    );
    assert!(matches!(
        l.offset_of(&"(1,(0,0))".parse().unwrap()),
        Err(LayoutError::CoordinateMismatch { .. })
    ));
}

#[test]
fn typed_layouts_agree_with_run_time_layouts() {
    type S = ((Int<2>, Int<3>), (Int<2>, Int<4>));
    type D = ((Int<1>, Int<4>), (Int<2>, Int<12>));
    let l = Layout::<S, D>::default();
    assert_eq!(core::mem::size_of_val(&l), 0);
    assert_eq!(<S as IntTuple>::STATIC_SIZE, Some(48));
    assert_eq!(Layout::<S, D>::STATIC_COSIZE, Some(48));
    let d: DynLayout = "((2,3),(2,4)):((1,4),(2,12))".parse().unwrap();
    assert_eq!(l.to_dyn(), Ok(d));
    for i in 0..48i64 {
        assert_eq!(l.offset(i), d.offset(i));
    }
    for r in 0..6i64 {
        for c in 0..8i64 {
            assert_eq!(l.offset((r, c)), d.offset(r + 6 * c));
            assert_eq!(
                l.offset(((r % 2, r / 2), (c % 2, c / 2))),
                d.offset(r + 6 * c)
            );
        }
    }
    assert_eq!(l.to_string(), "((_2,_3),(_2,_4)):((_1,_4),(_2,_12))");

    // mixed: static inner modes, dynamic outer
    let rows = 32i64;
    let m = Layout::new((Int::<16>, rows / 16), (Int::<1>, 16i64));
    assert_eq!(m.to_string(), "(_16,2):(_1,16)");
    assert_eq!(m.to_dyn().unwrap().to_string(), "(16,2):(1,16)");
    assert_eq!(m.offset((3, 1)), 19);
    assert_eq!(
        Layout::try_new((Int::<4>, 0i64), (Int::<1>, Int::<4>)),
        Err(LayoutError::NonPositiveExtent { leaf: 1, extent: 0 })
    );
    let rank1 = Layout::new((Int::<8>,), (Int::<1>,));
    assert_eq!(rank1.to_string(), "(_8):(_1)");
}

#[test]
fn typed_mode_access_matches_the_run_time_modes() {
    use layout::Layout;
    let l = Layout::new(
        (
            Int::<2>,
            Int::<3>,
            (Int::<4>, 5i64),
            Int::<6>,
            Int::<7>,
            Int::<8>,
            Int::<9>,
            Int::<10>,
        ),
        (
            Int::<1>,
            -2i64,
            (Int::<3>, Int::<4>),
            Int::<0>,
            Int::<6>,
            Int::<7>,
            Int::<8>,
            Int::<9>,
        ),
    );
    let d = l.to_dyn().unwrap();
    let modes = [
        l.get::<0>().to_dyn(),
        l.get::<1>().to_dyn(),
        l.get::<2>().to_dyn(),
        l.get::<3>().to_dyn(),
        l.get::<4>().to_dyn(),
        l.get::<5>().to_dyn(),
        l.get::<6>().to_dyn(),
        l.get::<7>().to_dyn(),
    ];
    for (m, got) in modes.into_iter().enumerate() {
        assert_eq!(got, d.mode(m), "mode {m}");
    }
    assert_eq!(l.get::<2>().to_string(), "(_4,5):(_3,_4)");
    // append / prepend on the widest tuple that can grow (7 modes -> 8)
    let seven = Layout::new(
        (
            Int::<2>, Int::<3>, Int::<4>, Int::<5>, Int::<6>, Int::<7>, Int::<8>,
        ),
        (
            Int::<1>,
            Int::<2>,
            Int::<6>,
            Int::<24>,
            Int::<120>,
            Int::<720>,
            Int::<5040>,
        ),
    );
    let extra = Layout::new(3i64, Int::<40320>);
    let s = seven.to_dyn().unwrap();
    let e = extra.to_dyn().unwrap();
    assert_eq!(seven.append(extra).to_dyn(), s.append(&e));
    assert_eq!(seven.prepend(extra).to_dyn(), s.prepend(&e));
    let leaf = Layout::new(Int::<3>, Int::<1>);
    assert_eq!(leaf.append(extra).to_string(), "(_3,3):(_1,_40320)");
    assert_eq!(leaf.prepend(extra).to_string(), "(3,_3):(_40320,_1)");
}

#[test]
fn tables_follow_cute_print_layout() {
    // wider offsets use wider cells; the width is set by the cosize, as in CuTe
    let l: DynLayout = "(2,3):(1,4)".parse().unwrap(); // cosize 10 -> cells 4 wide
    let t = LayoutTable::new(&l).unwrap().to_string();
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(lines[0], "(2,3):(1,4)");
    assert_eq!(lines[1], "       0    1    2 ");
    assert_eq!(lines[2], "    +----+----+----+");
    assert_eq!(lines[3], " 0  |  0 |  4 |  8 |");
    assert_eq!(lines[5], " 1  |  1 |  5 |  9 |");
    assert_eq!(lines.len(), 7);
    let rank3: DynLayout = "(2,2,2)".parse().unwrap();
    assert!(LayoutTable::new(&rank3).is_err());
}
