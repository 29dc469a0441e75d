//! Conformance with PyCuTe (2026)'s F2 strides, and their algebra by brute force.
//!
//! The vectors below are the documented examples and test cases of NVIDIA cutlass's
//! `python/pycute` (2026): the `F2` stride scalar and `Swizzle` (`swizzle.py`, its docs page
//! "Swizzles and F2 Strides", `test/test_swizzle.py`), `coalesce` (`test/test_coalesce.py`,
//! `test_coalesce_f2`), `coshape` (`test_coshape_f2_stride_is_a_power_of_two`),
//! `right_inverse` (`test/test_inverse_right.py`, `test_right_inverse_f2*`) and `left_inverse`
//! (`test/test_inverse_left.py`, `test_left_inverse_f2*`). PyCuTe writes `Layout((8, 8),
//! (F2(1), F2(9)))` and prints `(8, 8):(F1, F9)`; this library writes `(8,8):(F1,F9)`. Offsets
//! that PyCuTe gives as `F2` values are compared as integers (PyCuTe's `F2(7) == 7`).

use crate::{CASES, Seeded};
use layout::Swizzle;
use layout::f2::{F2Error, MixedLayout};
use proptest::prelude::*;

fn m(s: &str) -> MixedLayout {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn offsets(l: &MixedLayout) -> Vec<i64> {
    (0..l.size()).map(|i| l.offset(i).unwrap()).collect()
}

/// The carry-less product, bit by bit.
fn clmul(c: i64, v: i64) -> i64 {
    (0..62)
        .filter(|t| (c >> t) & 1 == 1)
        .fold(0, |acc, t| acc ^ (v << t))
}

/// `(shape, F2 values)` of a flat layout: the offset of index `i` from the definition, the
/// XOR over leaves of `c_k ⊗ v_k` with colexicographic coordinates.
fn reference(shape: &[i64], values: &[i64], mut i: i64) -> i64 {
    let mut x = 0;
    for (&s, &v) in shape.iter().zip(values) {
        x ^= clmul(i % s, v);
        i /= s;
    }
    x
}

#[test]
fn f2_arithmetic_and_evaluation() {
    // `Layout((4, 8), (F2(1), F2(8)))(2, 1) == F2(2 ^ 8)`, and c0 ^ 8·c1 everywhere
    let l = m("(4,8):(F1,F8)");
    assert_eq!(l.offset(2 + 4).unwrap(), 2 ^ 8);
    for c0 in 0..4 {
        for c1 in 0..8 {
            assert_eq!(l.offset(c0 + 4 * c1).unwrap(), c0 ^ (8 * c1));
        }
    }
    // `3 * F2(0b1010) == F2(0b11110)`, `F2(0b11) * 0b11 == F2(0b101)`
    assert_eq!(m("4:F10").offset(3).unwrap(), 0b11110);
    assert_eq!(m("4:F3").offset(3).unwrap(), 0b101);
    // `F2(0b1010) * 2 == F20`: a power of two is a plain shift
    assert_eq!(m("4:F10").offset(2).unwrap(), 20);
    // Swizzle(2, 0, 2) as a function, and as the layout (4,4):(F1,F5)
    let want = [0, 1, 2, 3, 5, 4, 7, 6, 10, 11, 8, 9, 15, 14, 13, 12];
    let sw = Swizzle::new(2, 0, 2).unwrap();
    assert_eq!((0..16).map(|i| sw.apply(i)).collect::<Vec<_>>(), want);
    assert_eq!(offsets(&m("(4,4):(F1,F5)")), want);
    // `(8, 8):(F1, F9)` is an involution; `(8, 8):(F9, F1)` is a bijection that is not
    let inv = m("(8,8):(F1,F9)");
    for i in 0..64 {
        assert_eq!(inv.offset(inv.offset(i).unwrap()).unwrap(), i);
    }
    let t = m("(8,8):(F9,F1)");
    let mut o = offsets(&t);
    assert!((0..64).any(|i| t.offset(o[i as usize]).unwrap() != i));
    o.sort();
    assert_eq!(o, (0..64).collect::<Vec<_>>());
    // the whitepaper's Figure 6 layout: extent 3 is fine
    let f6 = m("(4,(4,3)):(F1,(F5,F16))");
    for i in 0..48 {
        assert_eq!(
            f6.offset(i).unwrap(),
            (i % 4) ^ clmul(i / 4 % 4, 5) ^ clmul(i / 16, 16)
        );
    }
    // PyCuTe's `F2 + int` raises: `right_inverse` of a codomain with an F2 axis and an integer
    // axis is `(8, 8):(F1, 8)`, with `R(7) == F7` and `R(8)` an error
    let r = m("(8,8):(F1,8)");
    assert_eq!(r.offset(7).unwrap(), 7);
    assert!(matches!(r.offset(8), Err(F2Error::MixedSum { .. })));
    // extent-1 leaves keep their value in print: PyCuTe prints `(1, 1):(F5, F7)`
    assert_eq!(m("(1,1):(F5,F7)").to_string(), "(1,1):(F5,F7)");
    assert_eq!(m("(2,1):(F3,F7)").to_string(), "(2,1):(F3,F7)");
    // the constructor form reads too
    assert_eq!(m("(8,8):(F2(1),F2(9))"), inv);
    assert_eq!(inv.to_string(), "(8,8):(F1,F9)");
}

#[test]
fn pycute_coalesce_f2() {
    // (input, PyCuTe's coalesced form)
    for (a, want) in [
        ("(2,2,2,2):(F1,F2,F4,F8)", "16:F1"),
        ("(4,4):(F1,F4)", "16:F1"),
        ("(4,4):(F3,F12)", "16:F3"),
        ("(3,3):(F1,F3)", "(3,3):(F1,F3)"),
        ("(3,4):(F1,F3)", "(3,4):(F1,F3)"),
        ("(5,3):(F1,F5)", "(5,3):(F1,F5)"),
        ("(6,5):(F1,F6)", "(6,5):(F1,F6)"),
        ("(3,4):(F2,F6)", "(3,4):(F2,F6)"),
        ("(2,2,3):(F1,F2,F4)", "12:F1"),
        ("(3,2,2):(F1,F3,F6)", "(3,4):(F1,F3)"),
        ("(2,1,2):(F1,F7,F2)", "4:F1"),
        ("(3,1,3):(F1,F7,F3)", "(3,3):(F1,F3)"),
    ] {
        let l = m(a);
        let c = l.coalesce().unwrap();
        assert_eq!(c.to_string(), want, "coalesce({a})");
        assert_eq!(offsets(&c), offsets(&l), "{a}");
    }
    // the cases PyCuTe checks by their post-condition alone
    for a in [
        "1:F0",
        "1:F7",
        "(1,1):(F5,F7)",
        "8:F1",
        "(2,4):(F1,F2)",
        "(4,2):(F1,F4)",
        "((2,2),(3,2)):((F1,F2),(F4,F12))",
    ] {
        let l = m(a);
        let c = l.coalesce().unwrap();
        assert_eq!(c.size(), l.size(), "{a}");
        assert_eq!(offsets(&c), offsets(&l), "{a}");
    }
    // the carry obstruction: merging (3,4):(F1,F3) into 12:F1 would be wrong at i = 4
    assert_eq!(m("(3,4):(F1,F3)").offset(4).unwrap(), 2);
    assert_eq!(m("12:F1").offset(4).unwrap(), 4);
}

#[test]
fn pycute_coshape_f2() {
    for (a, want) in [
        ("(8,8):(F1,F9)", 64),
        ("(8,8):(F9,F1)", 64),
        ("(4,8):(F1,F4)", 32),
        ("(4,4):(F1,F1)", 4),
        ("8:F0", 1),
        ("4:F3", 8),
    ] {
        assert_eq!(m(a).cosize().unwrap(), want, "coshape({a})");
    }
}

/// `A(R(y)) == y` for every `y` of `R`'s domain, and `R` injective.
fn check_right_inverse(a: &MixedLayout, r: &MixedLayout) {
    let mut seen = Vec::new();
    for y in 0..r.size() {
        let i = r.offset(y).unwrap();
        assert!((0..a.size()).contains(&i), "{a}: R = {r}, R({y}) = {i}");
        assert_eq!(a.offset(i).unwrap(), y, "{a}: R = {r}");
        seen.push(i);
    }
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len() as i64, r.size());
}

#[test]
fn pycute_right_inverse_f2() {
    // the documented results
    assert_eq!(
        m("(8,8):(F1,F9)")
            .right_inverse_layout()
            .unwrap()
            .to_string(),
        "(8,8):(F1,F9)"
    );
    assert_eq!(
        m("(8,8):(F9,F1)")
            .right_inverse_layout()
            .unwrap()
            .to_string(),
        "(8,8):(F8,F9)"
    );
    // `test_right_inverse_f2`: the post-condition over each case
    for a in [
        "8:F0",
        "8:F1",
        "8:F2",
        "8:F3",
        "(4,8):(F1,F4)",
        "(4,8):(F1,0)",
        "(4,8):(0,F1)",
        "(4,4):(F1,F1)",
        "(8,8):(F1,F9)",
        "(8,8):(F9,F1)",
        "(4,4):(F1,F5)",
        "(4,(4,3)):(F1,(F5,F16))",
        "(8,8):(F1,F13)",
    ] {
        let l = m(a);
        let r = l.right_inverse_layout().unwrap();
        check_right_inverse(&l, &r);
    }
    // `test_right_inverse_f2_is_largest`: bijections invert whole
    for a in [
        "(8,8):(F1,F9)",
        "(8,8):(F9,F1)",
        "(4,4):(F1,F5)",
        "(4,(4,3)):(F1,(F5,F16))",
    ] {
        assert_eq!(
            m(a).right_inverse_layout().unwrap().size(),
            m(a).size(),
            "{a}"
        );
    }
    // `test_right_inverse_f2_residue_must_not_leak`: 4 ⊗ F13 reaches bit 4, outside the field
    // F8 opens, so the chain stops at mode 0
    assert_eq!(clmul(4, 13), 0b110100);
    assert_eq!(
        m("(8,8):(F1,F13)").right_inverse_layout().unwrap().size(),
        8
    );
    // `test_right_inverse_f2_involution`
    for a in ["(8,8):(F1,F9)", "(4,4):(F1,F5)"] {
        assert_eq!(m(a).right_inverse_layout().unwrap(), m(a));
    }
    // an integer beside F2 strides: refused
    assert_eq!(
        m("(8,8):(F1,8)").right_inverse_layout(),
        Err(F2Error::MixedStrides { leaf: 1, stride: 8 })
    );
}

#[test]
fn pycute_left_inverse_f2() {
    // `test_left_inverse_f2`: the compact chains
    for (a, want) in [("8:F1", "8:1"), ("(4,8):(F1,F4)", "32:1")] {
        let l = m(a);
        let r = l.left_inverse_layout().unwrap();
        assert_eq!(r.to_string(), want);
        for i in 0..l.size() {
            assert_eq!(r.offset(l.offset(i).unwrap()).unwrap(), i);
        }
    }
    // `test_left_inverse_f2_non_unit_gap_raises`
    for a in ["8:F2", "(8,8):(F1,F9)", "(4,4):(F1,F5)"] {
        assert!(
            matches!(m(a).left_inverse_layout(), Err(F2Error::Boundary { .. })),
            "{a}"
        );
    }
}

/// A random flat layout of F2 values on extents 1 to 8 (powers of two when `pow2`).
fn random_values(g: &mut Seeded, pow2: bool) -> (Vec<i64>, Vec<i64>) {
    let n = 1 + g.below(4) as usize;
    let mut shape = Vec::new();
    let mut values = Vec::new();
    let mut size = 1;
    for _ in 0..n {
        let s = if pow2 {
            1 << g.below(4)
        } else {
            1 + g.below(8) as i64
        };
        if size * s > 4096 {
            break;
        }
        size *= s;
        shape.push(s);
        values.push(match g.below(4) {
            0 => 0,
            1 => 1 << g.below(8),
            _ => g.below(64) as i64,
        });
    }
    (shape, values)
}

fn text(shape: &[i64], values: &[i64]) -> String {
    let s: Vec<String> = shape.iter().map(|s| s.to_string()).collect();
    let d: Vec<String> = values.iter().map(|v| format!("F{v}")).collect();
    format!("({}):({})", s.join(","), d.join(","))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn values_evaluate_coalesce_and_bound(seed in any::<u64>()) {
        let mut g = Seeded(seed);
        for _ in 0..8 {
            let pow2 = g.below(2) == 0;
            let (shape, values) = random_values(&mut g, pow2);
            let l = m(&text(&shape, &values));
            let o = offsets(&l);
            for (i, &x) in o.iter().enumerate() {
                prop_assert_eq!(x, reference(&shape, &values, i as i64));
            }
            prop_assert_eq!(m(&l.to_string()), l);
            // coalesce keeps every offset, and no two adjacent leaves it leaves could merge
            let c = l.coalesce().unwrap();
            prop_assert_eq!(offsets(&c), o.clone());
            let cs = c.body().shape_leaves().to_vec();
            let cv: Vec<i64> = (0..cs.len())
                .map(|k| match c.stride(k).unwrap() {
                    layout::f2::MixedStride::F2(b) => b.first().copied().unwrap_or(0) as i64,
                    layout::f2::MixedStride::Int(d) => d,
                })
                .collect();
            for k in 1..cs.len() {
                prop_assert!(cs[k - 1] > 1 && cs[k] > 1);
                let merges = clmul(cs[k - 1], cv[k - 1]) == cv[k]
                    && ((cs[k - 1] as u64).is_power_of_two() || cv[k - 1] == 0);
                prop_assert!(!merges, "{} -> {}", l, c);
            }
            // the cosize is the power of two above the largest offset
            let hi = o.iter().copied().max().unwrap_or(0);
            let want = if hi == 0 { 1 } else { 1i64 << (64 - hi.leading_zeros()) };
            prop_assert_eq!(l.cosize().unwrap(), want, "{}", l);
        }
    }

    #[test]
    fn inverses_of_values(seed in any::<u64>()) {
        let mut g = Seeded(seed);
        for _ in 0..8 {
            let (shape, values) = random_values(&mut g, true);
            let l = m(&text(&shape, &values));
            let r = l.right_inverse_layout().unwrap();
            let mut seen = Vec::new();
            for y in 0..r.size() {
                let i = r.offset(y).unwrap();
                prop_assert!((0..l.size()).contains(&i), "{} {}", l, r);
                prop_assert_eq!(l.offset(i).unwrap(), y, "{} {}", l, r);
                seen.push(i);
            }
            seen.sort();
            seen.dedup();
            prop_assert_eq!(seen.len() as i64, r.size());
            // left inverse: exactly for compact chains of the non-zero strides
            let mut chain: Vec<(i64, i64)> = shape
                .iter()
                .zip(&values)
                .filter(|&(&s, &v)| s > 1 && v != 0)
                .map(|(&s, &v)| (v, s))
                .collect();
            chain.sort();
            let mut at = 1;
            let compact = chain.iter().all(|&(v, s)| {
                let ok = v == at;
                at *= s;
                ok
            });
            let o = offsets(&l);
            match l.left_inverse_layout() {
                Ok(li) => {
                    prop_assert!(compact, "{} {}", l, li);
                    for &x in &o {
                        let back = li.offset(x).unwrap();
                        prop_assert_eq!(o[back as usize], x, "{} {}", l, li);
                    }
                }
                Err(e) => prop_assert!(!compact, "{}: {}", l, e),
            }
        }
    }
}

#[test]
fn hostile_f2_text_is_an_error() {
    for s in [
        "8:F",
        "8:F-1",
        "8:F2(",
        "8:F2(3",
        "8:F2(3]",
        "8:F[1,2",
        "8:F18446744073709551616",
        "8:F18446744073709551615",
        "(4611686018427387904,2):(F1,F1)",
        "(8,8):(F1,F9",
        "8:FF1",
        "8:F1x",
    ] {
        assert!(s.parse::<MixedLayout>().is_err(), "{s}");
    }
    // the largest extent whose bases still fit 62 bits
    let big = m("4611686018427387904:F1");
    assert_eq!(big.offset((1 << 62) - 1).unwrap(), (1 << 62) - 1);
    assert_eq!(big.cosize().unwrap(), 1 << 62);
}
