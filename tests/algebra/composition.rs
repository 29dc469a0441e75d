use crate::*;
use layout::{CompositionRule, LayoutError, Tile};
use proptest::prelude::*;

/// CuTe C++'s composition algorithm (static path, weak checks), re-implemented from the
/// description in cute-algebra.md §6.2, to cross-check our refusals. `None` = C++ would fail to
/// compile (a static assertion).
fn cpp_composition(a: &DynLayout, b: &DynLayout) -> Option<Vec<i64>> {
    // coalesce_x: coalesce the modes, keep the last stride alive
    let (s, d) = (a.shape_leaves(), a.stride_leaves());
    let mut m: Vec<(i64, i64)> = Vec::new();
    for k in 0..s.len() {
        let last = k + 1 == s.len();
        if s[k] == 1 && !last {
            continue;
        }
        if let Some(p) = m.last_mut()
            && p.0 * p.1 == d[k]
        {
            p.0 *= s[k];
            continue;
        }
        m.push((s[k], d[k]));
    }
    let mut leaves = Vec::new();
    for (&bs, &bd) in b.shape_leaves().iter().zip(b.stride_leaves()) {
        let modes: Vec<(i64, i64)> = if bd == 0 {
            vec![(bs, 0)]
        } else if m.len() == 1 {
            vec![(bs, bd * m[0].1)]
        } else {
            let (mut rs, mut rd) = (bs, bd);
            let mut out = Vec::new();
            for &(cs, cd) in &m[..m.len() - 1] {
                if !(rd % cs == 0 || rd.abs() < cs) {
                    return None;
                }
                let next_shape = (cs + rd.abs() - 1) / rd.abs();
                let next_stride = rd.signum() * ((rd.abs() + cs - 1) / cs);
                if next_shape == 1 || rs == 1 {
                    rd = next_stride;
                    continue;
                }
                let ns = next_shape.min(rs);
                if rs % ns != 0 {
                    return None;
                }
                out.push((ns, rd * cd));
                rs /= ns;
                rd = next_stride;
            }
            let last = m[m.len() - 1].1;
            if out.is_empty() || rs != 1 {
                out.push((rs, rd * last));
            }
            out
        };
        leaves.push(modes);
    }
    // evaluate: B's leaves in colex order, each leaf a layout of its modes
    let mut result = Vec::new();
    for i in 0..b.size() {
        let mut rest = i;
        let mut off = 0;
        for (k, modes) in leaves.iter().enumerate() {
            let ext = b.shape_leaves()[k];
            let mut c = rest % ext;
            rest /= ext;
            for &(ms, md) in modes {
                off += (c % ms) * md;
                c /= ms;
            }
        }
        result.push(off);
    }
    Some(result)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn composition_is_exact_or_cpp_is_wrong(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let a = layout(&mut rng, Gen { negative: true, ..SMALL });
        let neg = rng.chance(20);
        let b = layout(&mut rng, Gen { max_leaves: 3, max_extent: 6, negative: neg, huge: false });
        let want: Vec<i64> = (0..b.size()).map(|i| a.offset(b.offset(i))).collect();
        match a.composition(&b) {
            Ok(r) => {
                prop_assert_eq!(r.size(), b.size());
                prop_assert!(b.shape().compatible(&r.shape()),
                    "{} o {} = {} is not shaped like B", a, b, r);
                prop_assert_eq!(offsets(&r), want, "{} o {} = {}", a, b, r);
            }
            Err(e) => {
                prop_assert!(matches!(e, LayoutError::Composition { .. }), "{}", e);
                if offsets(&b).iter().any(|&o| o < 0) {
                    // B reaches negative indices: defined only for a one-mode A (the walk may
                    // stop at an earlier leaf for another reason)
                    prop_assert!(a.leaf_count() > 1, "{}", e);
                } else if let Some(cpp) = cpp_composition(&a, &b) {
                    // The rule is sufficient, not necessary: CuTe's construction can be right by
                    // accident, when a mode of A that B steps through unevenly has stride 0 (only
                    // the carry out of it matters). Documented in `layout::algebra`.
                    prop_assert!(cpp != want || a.stride_leaves().contains(&0),
                        "{} o {} refused ({}) but CuTe's construction is right", a, b, e);
                }
            }
        }
    }

    #[test]
    fn by_mode_composition_is_exact_per_mode(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let a = layout(&mut rng, SMALL);
        let r = if a.profile().is_leaf() { 1 } else { a.rank() };
        let n = 1 + rng.below(r as u64) as usize;
        let mut t = Tile::EMPTY;
        for _ in 0..n {
            let m = if rng.chance(20) {
                layout::TileMode::Keep
            } else {
                layout::TileMode::Layout(layout(&mut rng, Gen { max_leaves: 2, max_extent: 4, negative: false, huge: false }))
            };
            t.push(m).unwrap();
        }
        if let Ok(res) = a.composition_by_mode(&t) {
            prop_assert_eq!(res.rank(), n);
            for i in 0..n {
                let ai = if a.profile().is_leaf() { a } else { a.mode(i).unwrap() };
                let ri = res.mode(i).unwrap();
                match t.mode(i).unwrap() {
                    layout::TileMode::Keep => prop_assert_eq!(ri, ai),
                    layout::TileMode::Layout(ti) => {
                        let want: Vec<i64> = (0..ti.size()).map(|j| ai.offset(ti.offset(j))).collect();
                        prop_assert_eq!(offsets(&ri), want);
                    }
                }
            }
        }
    }
}

fn refused(a: &str, b: &str, rule: CompositionRule) -> String {
    match dl(a).composition(&dl(b)) {
        Err(e @ LayoutError::Composition { rule: r, .. }) => {
            assert_eq!(r, rule, "{a} o {b}: {e}");
            e.to_string()
        }
        other => panic!("{a} o {b} should be refused, got {other:?}"),
    }
}

#[test]
fn cutlass_3177_is_refused() {
    let m = refused("(6,2):(1,10)", "4:4", CompositionRule::StrideDivisibility);
    assert!(
        m.contains("mode 0 of coalesced A (extent 6)") && m.contains("4:4"),
        "{m}"
    );
    let m = refused(
        "(4,6,8):(2,3,5)",
        "6:3",
        CompositionRule::StrideDivisibility,
    );
    assert!(m.contains("extent 4") && m.contains("stride 3"), "{m}");
    // and CuTe's results really are wrong
    let a = dl("(6,2):(1,10)");
    assert_ne!(dl("(2,2):(4,10)").offset(2), a.offset(8));
}

#[test]
fn cutlass_2955_is_refused() {
    let m = refused("(6,2):(1,7)", "(3,2):(2,3)", CompositionRule::Straddle);
    assert!(
        m.contains("coordinate 7") && m.contains("extent is 6"),
        "{m}"
    );
    let a = dl("(6,2):(1,7)");
    let cpp = dl("(3,2):(2,3)"); // what C++ and pycute return
    let b = dl("(3,2):(2,3)");
    assert!((0..6).any(|i| cpp.offset(i) != a.offset(b.offset(i))));
}

#[test]
fn non_dividing_divide_is_refused() {
    // CuTe C++ returns (_2,(_2,_4)):(_1,(_2,_5)), wrong at (0,(0,1))
    assert!(dl("(3,4):(1,5)").logical_divide(&dl("2:1")).is_err());
}

#[test]
fn tutorial_composition() {
    let cases = [
        ("(6,2):(8,2)", "(4,3):(3,1)", "((2,2),3):((24,2),8)"),
        ("20:2", "(5,4):(4,1)", "(5,4):(8,2)"),
        ("(10,2):(16,4)", "(5,4):(1,5)", "(5,(2,2)):(16,(80,4))"),
        ("(4,1):(1,0)", "8:1", "(4,2):(1,0)"),
        ("(32,128):(128,1)", "(30,128):(1,32)", "(30,128):(128,1)"),
        ("(10,2):(16,4)", "(3,4):(1,5)", "(3,(2,2)):(16,(80,4))"),
    ];
    for (a, b, want) in cases {
        let r = dl(a).composition(&dl(b)).unwrap();
        assert_eq!(r.to_string(), want, "{a} o {b}");
        for i in 0..r.size() {
            assert_eq!(r.offset(i), dl(a).offset(dl(b).offset(i)));
        }
    }
    // cutlass#1353: col-major 2x3 o row-major 2x3
    let r = dl("(2,3):(1,2)").composition(&dl("(2,3):(3,1)")).unwrap();
    assert_eq!(r.to_string(), "(2,3):(3,1)");
}

#[test]
fn tutorial_by_mode_composition() {
    let a = dl("(12,(4,8)):(59,(13,1))");
    let t: Tile = "[3:4,8:2]".parse().unwrap();
    assert_eq!(
        a.composition_by_mode(&t).unwrap().to_string(),
        "(3,(2,4)):(236,(26,1))"
    );
    assert_eq!(
        a.composition_shape(&dt("(3,8)")).unwrap().to_string(),
        "(3,(4,2)):(59,(13,1))"
    );
    // C++: uncovered modes are dropped
    let t: Tile = "[3]".parse().unwrap();
    assert_eq!(
        dl("(3,3):(3,1)")
            .composition_by_mode(&t)
            .unwrap()
            .to_string(),
        "(3):(3)"
    );
}

#[test]
fn tutorial_dividing_and_modding_out() {
    // (3,6,2,8):(w,x,y,z) o 16:9 = (1,2,2,4):(9w,3x,y,z); extent-1 modes drop here
    let (w, x, y, z) = (1, 100, 1000, 5000);
    let a = DynLayout::from_flat(&[3, 6, 2, 8], &[w, x, y, z]).unwrap();
    let r = a.composition(&dl("16:9")).unwrap();
    assert_eq!(r, DynLayout::from_flat(&[2, 2, 4], &[3 * x, y, z]).unwrap());
    // (6,2):(8,2) o 4:3 = (2,2):(24,2), and o 3:1 = 3:8 (C++ prints (3,1):(8,2) before coalescing)
    assert_eq!(
        dl("(6,2):(8,2)")
            .composition(&dl("4:3"))
            .unwrap()
            .to_string(),
        "(2,2):(24,2)"
    );
    assert_eq!(
        dl("(6,2):(8,2)")
            .composition(&dl("3:1"))
            .unwrap()
            .to_string(),
        "3:8"
    );
    // the dynamic CuTe print ((5,1),(2,2)):((16,4),(80,4)) is the same function
    let r = dl("(10,2):(16,4)").composition(&dl("(5,4):(1,5)")).unwrap();
    assert!(r.functionally_eq(&dl("((5,1),(2,2)):((16,4),(80,4))")));
}

/// How often each rule fires on the random layouts, and how often CuTe's construction is wrong
/// where we refuse (`cargo test --test algebra -- --ignored --nocapture composition_statistics`).
#[test]
#[ignore]
fn composition_statistics() {
    let mut rng = Seeded(42);
    let (mut ok, mut refused, mut cpp_wrong, mut cpp_static_assert, mut cpp_right) =
        (0, 0, 0, 0, 0);
    let mut by_rule = std::collections::BTreeMap::new();
    for _ in 0..200_000 {
        let a = layout(&mut rng, SMALL);
        let b = layout(
            &mut rng,
            Gen {
                max_leaves: 3,
                max_extent: 6,
                negative: false,
                huge: false,
            },
        );
        let want: Vec<i64> = (0..b.size()).map(|i| a.offset(b.offset(i))).collect();
        match a.composition(&b) {
            Ok(_) => ok += 1,
            Err(e) => {
                refused += 1;
                if let LayoutError::Composition { rule, .. } = e {
                    *by_rule.entry(format!("{rule:?}")).or_insert(0) += 1;
                }
                match cpp_composition(&a, &b) {
                    None => cpp_static_assert += 1,
                    Some(c) if c == want => cpp_right += 1,
                    Some(_) => cpp_wrong += 1,
                }
            }
        }
    }
    println!(
        "ok {ok}, refused {refused} {by_rule:?}: C++ static_assert {cpp_static_assert}, C++ wrong {cpp_wrong}, C++ right {cpp_right}"
    );
}
