//! Mixed layouts: F2 strides, layouts after F2 maps, and their algebra, by brute force.

use crate::{CASES, Seeded, random_bijection, table};
use layout::DynLayout;
use layout::Swizzle;
use layout::f2::{F2Error, F2Layout, MixedLayout, MixedStride};
use proptest::prelude::*;

/// The carry-less product (PyCuTe's `F2 * int`), bit by bit.
fn clmul(c: i64, v: u64) -> u64 {
    (0..63)
        .filter(|t| (c >> t) & 1 == 1)
        .fold(0, |acc, t| acc ^ (v << t))
}

/// The definition, from the parts: with an F2 stride somewhere, the XOR of the F2 leaves'
/// contributions, and no offset (`None`) where an integer stride contributes beside them
/// (PyCuTe refuses `F2 + integer`); the integer sum otherwise.
fn reference(m: &MixedLayout, i: i64) -> Option<i64> {
    let j = match m.pre() {
        Some(p) => p.apply_flat(i as u64).unwrap() as i64,
        None => i,
    };
    let body = m.body();
    let mut rest = j;
    let (mut sum, mut x, mut any_f2) = (0i64, 0u64, false);
    for (k, &s) in body.shape_leaves().iter().enumerate() {
        let c = rest % s;
        rest /= s;
        match m.stride(k).unwrap() {
            MixedStride::Int(d) => sum += c * d,
            MixedStride::F2(b) => {
                any_f2 = true;
                for (t, &v) in b.iter().enumerate() {
                    if (c >> t) & 1 == 1 {
                        x ^= v;
                    }
                }
            }
        }
    }
    match (any_f2, sum) {
        (false, _) => Some(sum),
        (true, 0) => Some(x as i64),
        (true, _) => None,
    }
}

#[test]
fn f2_strides_parse_print_and_evaluate() {
    let m: MixedLayout = "(8,(4,8)):(F1,(F8,F[32,96,128]))".parse().unwrap();
    assert_eq!(m.to_string(), "(8,(4,8)):(F1,(F8,F[32,96,128]))");
    assert_eq!(m.size(), 256);
    for i in 0..256 {
        assert_eq!(Some(m.offset(i).unwrap()), reference(&m, i));
    }
    // value strides: c ⊗ v, for any extent (6:F3 reaches 3 ⊗ 3 = 5 and 5 ⊗ 3 = 15)
    let v: MixedLayout = "6:F3".parse().unwrap();
    assert_eq!(
        (0..6).map(|i| v.offset(i).unwrap()).collect::<Vec<_>>(),
        (0..6).map(|c| clmul(c, 3) as i64).collect::<Vec<_>>()
    );
    // `8:F1` is the identity on 8 offsets; `(64,8):(F1,F72)` is Sw<3,3,3> (72 = 8 + 64: the
    // row is XORed into the 8-element chunk and placed above the 64 columns)
    let id: MixedLayout = "8:F1".parse().unwrap();
    assert_eq!(
        (0..8).map(|i| id.offset(i).unwrap()).collect::<Vec<_>>(),
        (0..8).collect::<Vec<_>>()
    );
    let sw: MixedLayout = "(64,8):(F1,F72)".parse().unwrap();
    let s = Swizzle::new(3, 3, 3).unwrap();
    for i in 0..512 {
        assert_eq!(sw.offset(i).unwrap(), s.apply(i));
    }
    // errors
    let e = |s: &str| s.parse::<MixedLayout>().unwrap_err().to_string();
    assert_eq!(
        e("8:F[1,2]"),
        "an F2 stride `F[b0,…]` needs one basis per bit of its extent"
    );
    assert!(e("(8,2):F2").contains("not congruent"));
    assert!(e("8:F").contains("a non-negative integer"));
    assert_eq!(
        e("4:F4611686018427387904"),
        "63 output bits; at most 62 are allowed"
    );
    assert_eq!(
        e("(8,3):(F1,0) o {i:[1,2,4]} -> {index:8}"),
        "composing an F2 map into a layout's index needs a power-of-two size: size 24 is not a power of two"
    );
    assert_eq!(
        e("8:F1 o {i:[1,2]} -> {index:4}"),
        "the F2 map's input must have as many elements as the layout: size 4 does not match size 8"
    );
    assert!(matches!(
        m.offset(256),
        Err(F2Error::CoordOutOfRange {
            value: 256,
            size: 256,
            ..
        })
    ));
    // F2 beside a non-zero integer contribution: refused where the integer part is not 0
    let mix: MixedLayout = "(8,8):(F1,8)".parse().unwrap();
    assert_eq!(mix.offset(7).unwrap(), 7);
    assert_eq!(
        mix.offset(9),
        Err(F2Error::MixedSum {
            index: 9,
            integer: 8
        })
    );
    assert_eq!(
        mix.to_f2(),
        Err(F2Error::MixedStrides { leaf: 1, stride: 8 })
    );
}

#[test]
fn padded_layout_with_a_swizzle_on_its_power_of_two_part() {
    // rows of 64 f16 padded to 72, 8 rows; Sw<3,3,3> on (column chunk, row) bits
    let body: DynLayout = "(64,8):(1,72)".parse().unwrap();
    let s = Swizzle::new(3, 3, 3).unwrap();
    let m = MixedLayout::swizzled(&body, s).unwrap();
    for i in 0..512 {
        assert_eq!(m.offset(i).unwrap(), body.offset(s.apply(i)));
        assert_eq!(Some(m.offset(i).unwrap()), reference(&m, i));
    }
    // it is injective (a bijection then an injective layout): the image has 512 offsets
    let mut img: Vec<i64> = (0..512).map(|i| m.offset(i).unwrap()).collect();
    img.sort();
    img.dedup();
    assert_eq!(img.len(), 512);
    // not F2-linear (72 is not a power of two), so composing after it is refused, not guessed
    assert!(matches!(m.to_f2(), Err(F2Error::NotLinear { .. })));
    assert!(
        m.compose_after(&F2Layout::identity("offset", 10).unwrap())
            .is_err()
    );
    // its right inverse exists (the first row), its left inverse does not (CuTe's rule)
    let r = m.right_inverse().unwrap();
    for y in 0..1u64 << r.in_bits() {
        assert_eq!(m.offset(r.apply_flat(y).unwrap() as i64).unwrap(), y as i64);
    }
    assert!(m.left_inverse().is_err());
    // complement: that of the body, CuTe's
    assert_eq!(
        m.complement(1024).unwrap().to_string(),
        body.complement(1024).unwrap().to_string()
    );
    // a size that is not a power of two has no index bits to swizzle
    assert!(matches!(
        MixedLayout::swizzled(&"(64,6):(1,72)".parse().unwrap(), s),
        Err(F2Error::Boundary { size: 384, .. })
    ));
}

/// A random layout of power-of-two extents, either with F2 strides (values `F{v}` or free
/// bases `F[…]`, some integer strides 0) or with integer strides only; random `pre`.
fn random_mixed(g: &mut Seeded, linear: bool) -> MixedLayout {
    let leaves = 1 + g.below(3) as usize;
    let f2 = g.below(2) == 0;
    let mut shape = Vec::new();
    let mut stride = Vec::new();
    let mut used = 0u64;
    let mut total = 0;
    for _ in 0..leaves {
        let bits = g.below(4) as usize;
        if total + bits > 10 {
            break;
        }
        total += bits;
        shape.push(format!("{}", 1u64 << bits));
        if f2 {
            match g.below(3) {
                0 => {
                    let b: Vec<String> =
                        (0..bits).map(|_| format!("{}", g.below(1 << 10))).collect();
                    stride.push(format!("F[{}]", b.join(",")));
                }
                1 => stride.push(format!("F{}", g.below(1 << 7))),
                _ => stride.push("0".into()),
            }
        } else if linear {
            // a fresh run of bits: carry-free
            let mut at = 0;
            while used >> at & 1 == 1 {
                at += 1;
            }
            let d = 1u64 << (at + g.below(2) as usize);
            let run = ((1u64 << bits) - 1) * d;
            if run & used != 0 {
                stride.push("0".to_string());
            } else {
                used |= run;
                stride.push(format!("{d}"));
            }
        } else {
            stride.push(format!("{}", g.below(40)));
        }
    }
    if shape.is_empty() {
        shape.push("2".into());
        stride.push("F1".into());
    }
    let text = format!("({}):({})", shape.join(","), stride.join(","));
    let mut m: MixedLayout = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
    if g.below(2) == 0 {
        let n = m.size().trailing_zeros() as usize;
        let p = random_bijection(g, n)
            .rename_inputs(&[("i", "index")])
            .unwrap()
            .rename_outputs(&[("o", "index")])
            .unwrap();
        m = m.compose_f2(&p).unwrap();
    }
    m
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn offsets_text_and_f2_form(seed in any::<u64>()) {
        let mut g = Seeded(seed);
        for _ in 0..8 {
            let lin = g.below(2) == 0;
            let m = random_mixed(&mut g, lin);
            for i in 0..m.size() {
                prop_assert_eq!(Some(m.offset(i).unwrap()), reference(&m, i));
            }
            prop_assert_eq!(m.to_string().parse::<MixedLayout>().unwrap(), m);
            // to_f2 succeeds exactly when the map is F2-linear on the index bits
            let t: Vec<i64> = (0..m.size()).map(|i| m.offset(i).unwrap()).collect();
            let linear = (0..m.size()).all(|i| {
                let x = (0..12).filter(|b| i >> b & 1 == 1).fold(0i64, |a, b| a ^ t[1 << b]);
                t[i as usize] == x
            });
            match m.to_f2() {
                Ok(f) => {
                    prop_assert_eq!(table(&f).iter().map(|&v| v as i64).collect::<Vec<_>>(), t);
                }
                Err(e) => {
                    // refused: either not linear, or linear only by accident of the integer
                    // strides overlapping where the bits never meet (never for our generator)
                    prop_assert!(!linear || matches!(e, F2Error::NotLinear { .. }), "{m}: {e}");
                }
            }
        }
    }

    #[test]
    fn compositions_with_f2_maps(seed in any::<u64>()) {
        let mut g = Seeded(seed);
        for _ in 0..8 {
            let lin = g.below(2) == 0;
            let m = random_mixed(&mut g, lin);
            let n = m.size().trailing_zeros() as usize;
            // inner: m ∘ f
            let f = random_bijection(&mut g, n)
                .rename_outputs(&[("o", "index")]).unwrap();
            let r = m.compose_f2(&f).unwrap();
            for i in 0..m.size() {
                let j = f.apply_flat(i as u64).unwrap() as i64;
                prop_assert_eq!(r.offset(i).unwrap(), m.offset(j).unwrap());
            }
            // outer: h ∘ m, defined exactly when m is F2-linear
            let ob = m.to_f2().map(|f| f.out_bits()).unwrap_or(0);
            let h = random_bijection(&mut g, ob.max(1)).rename_inputs(&[("i", "offset")]).unwrap();
            match m.compose_after(&h) {
                Ok(r) => {
                    for i in 0..m.size() {
                        let o = m.offset(i).unwrap() as u64;
                        prop_assert_eq!(r.apply_flat(i as u64).unwrap(), h.apply_flat(o).unwrap());
                    }
                }
                Err(_) => prop_assert!(m.to_f2().is_err()),
            }
        }
    }

    #[test]
    fn inverses_and_complements(seed in any::<u64>()) {
        let mut g = Seeded(seed);
        for _ in 0..8 {
            let m = random_mixed(&mut g, true);
            let t: Vec<i64> = (0..m.size()).map(|i| m.offset(i).unwrap()).collect();
            if let Ok(r) = m.right_inverse() {
                for y in 0..1u64 << r.in_bits() {
                    prop_assert_eq!(t[r.apply_flat(y).unwrap() as usize], y as i64, "{} {}", m, r);
                }
            }
            let injective = {
                let mut s = t.clone();
                s.sort();
                s.dedup();
                s.len() == t.len()
            };
            match m.left_inverse() {
                Ok(l) => {
                    prop_assert!(injective);
                    for (i, &o) in t.iter().enumerate() {
                        prop_assert_eq!(l.apply_flat(o as u64).unwrap(), i as u64);
                    }
                }
                Err(_) => prop_assert!(!injective || m.to_f2().is_err()),
            }
            if m.has_f2_strides() {
                let ob = m.to_f2().unwrap().out_bits();
                match m.complement(1 << ob) {
                    Ok(c) => {
                        prop_assert!(injective);
                        // (m, c) covers [0, 2^ob) exactly once, c's image meets m's only in 0
                        let mut all = Vec::new();
                        for i in 0..m.size() {
                            for k in 0..c.size() {
                                all.push(t[i as usize] ^ c.offset(k).unwrap());
                            }
                        }
                        all.sort();
                        prop_assert_eq!(all, (0..1i64 << ob).collect::<Vec<_>>());
                    }
                    Err(_) => prop_assert!(!injective),
                }
            }
        }
    }
}

#[test]
fn hostile_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!(
        "{}8{}:{}1{}",
        "(".repeat(5000),
        ")".repeat(5000),
        "(".repeat(5000),
        ")".repeat(5000)
    );
    assert!(deep.parse::<MixedLayout>().is_err());
    let ok = format!(
        "{}8{}:{}F1{}",
        "(".repeat(3),
        ")".repeat(3),
        "(".repeat(3),
        ")".repeat(3)
    );
    assert_eq!(
        ok.parse::<MixedLayout>().unwrap().to_string(),
        "(((8))):(((F1)))"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    /// `compose_layout` against the definition `R(i) = A(B(i))`, and refused exactly when `B`
    /// carries or leaves `A`'s index (A F2-linear, no `pre`).
    #[test]
    fn composition_with_an_integer_layout(seed in any::<u64>()) {
        let mut g = Seeded(seed);
        for _ in 0..16 {
            let a = loop {
                let a = random_mixed(&mut g, true);
                if a.pre().is_none() && a.has_f2_strides() {
                    break a;
                }
            };
            let n = 1 + g.below(3) as usize;
            let shape: Vec<i64> = (0..n).map(|_| 1 + g.below(5) as i64).collect();
            let stride: Vec<i64> = (0..n).map(|_| g.below(9) as i64).collect();
            let b = DynLayout::new(
                &layout::DynTuple::from_slice(&shape).unwrap(),
                &layout::DynTuple::from_slice(&stride).unwrap(),
            )
            .unwrap();
            // the bit images d << t of b's coordinate bits: disjoint and inside a's index?
            let mut imgs = Vec::new();
            for (&s, &d) in shape.iter().zip(&stride) {
                let bits = if s <= 1 { 0 } else { 64 - (s as u64 - 1).leading_zeros() };
                for t in 0..bits {
                    imgs.push((d as u64) << t);
                }
            }
            let carry_free = imgs.iter().enumerate().all(|(i, &x)| {
                imgs[..i].iter().all(|&y| x & y == 0)
            });
            let inside = imgs.iter().all(|&x| (x as i64) < a.size());
            match a.compose_layout(&b) {
                Ok(r) => {
                    prop_assert!(carry_free && inside, "{} o {} = {}", a, b, r);
                    prop_assert_eq!(r.size(), b.size());
                    for i in 0..b.size() {
                        prop_assert_eq!(r.offset(i).unwrap(), a.offset(b.offset(i)).unwrap());
                    }
                }
                Err(e) => prop_assert!(!(carry_free && inside), "{} o {}: {}", a, b, e),
            }
        }
    }
}
