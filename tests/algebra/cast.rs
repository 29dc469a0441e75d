use crate::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn upcast_undoes_downcast(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, SMALL);
        let n = rng.range(1, 4);
        let units = l.stride_leaves().iter().filter(|&&d| d == 1 || d == -1).count();
        match l.downcast(n) {
            Ok(d) => {
                prop_assert!(d.shape().congruent(&l.shape()));
                if units == 0 {
                    // no adjacent elements: the first narrow element of each wide one
                    prop_assert_eq!(d.size(), l.size());
                    for i in 0..l.size() {
                        prop_assert_eq!(d.offset(i), n * l.offset(i));
                    }
                }
                if units == 1 {
                    prop_assert_eq!(d.size(), l.size() * n);
                    prop_assert_eq!(d.upcast(n).unwrap(), l);
                }
                // every old element k of a downcast layout covers new elements n·L(c) .. +n
                for i in 0..l.size() {
                    let c = l.index_to_coord(i);
                    let mut c2 = c;
                    let o = l.offset_of(&c).unwrap();
                    let v = c2.leaves_mut();
                    for (k, &s) in l.stride_leaves().iter().enumerate() {
                        if s == 1 { v[k] *= n; }
                    }
                    if units == 1 {
                        prop_assert_eq!(d.offset_of(&c2).unwrap(), o * n);
                    }
                }
            }
            Err(e) => prop_assert!(!matches!(e, layout::LayoutError::Precondition { .. }), "{}", e),
        }
    }

    #[test]
    fn upcast_divides_offsets(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, SMALL);
        let n = rng.range(1, 4);
        if let Ok(u) = l.upcast(n) {
            prop_assert!(u.shape().congruent(&l.shape()));
            // coordinates of u whose unit-stride leaves are scaled back are elements of l
            for i in 0..u.size() {
                let c = u.index_to_coord(i);
                let mut c2 = c;
                let v = c2.leaves_mut();
                let mut inside = true;
                for (k, (&s, &d)) in l.shape_leaves().iter().zip(l.stride_leaves()).enumerate() {
                    if d != 0 && d.abs() < n {
                        v[k] *= n / d.abs();
                        inside &= v[k] < s;
                    }
                }
                if inside {
                    prop_assert_eq!(u.offset(i), l.offset_of(&c2).unwrap().div_euclid(n),
                        "upcast({}, {}) = {}", l, n, u);
                }
            }
        }
    }
}

#[test]
fn tutorial_casts() {
    assert_eq!(
        dl("(4,8):(1,4)").upcast(2).unwrap().to_string(),
        "(2,8):(1,2)"
    );
    assert_eq!(
        dl("(4,8):(1,4)").downcast(2).unwrap().to_string(),
        "(8,8):(1,8)"
    );
    assert_eq!(
        dl("(4,8):(8,1)").recast_layout(16, 32).unwrap().to_string(),
        "(4,4):(4,1)"
    );
    assert_eq!(
        dl("(4,4):(4,1)").recast_layout(32, 16).unwrap().to_string(),
        "(4,8):(8,1)"
    );
    assert!(dl("(4,8):(3,12)").upcast(2).is_err());
    // no stride-1 leaf: every stride times N (CuTe C++ and PyCuTe)
    assert_eq!(
        dl("(4,8):(2,8)").downcast(2).unwrap().to_string(),
        "(4,8):(4,16)"
    );
    assert_eq!(dl("24:2").downcast(2).unwrap().to_string(), "24:4");
}

/// The narrow 1-D index of the `j`-th narrow element of wide index `i` of `l`, when leaf `k` is
/// the unit-stride leaf: leaf `k`'s coordinate becomes `n·c_k + j` (colexicographic over the
/// flat leaves, leaf `k` of extent `n·s_k`; a split `(n,s_k)` mode has the same index map).
fn narrow_index(l: &DynLayout, k: usize, n: i64, i: i64, j: i64) -> i64 {
    let s = l.shape_leaves();
    let mut rest = i;
    let mut coord = vec![0i64; s.len()];
    for (q, &e) in s.iter().enumerate() {
        coord[q] = rest % e;
        rest /= e;
    }
    coord[k] = coord[k] * n + j;
    let mut r = 0;
    for q in (0..s.len()).rev() {
        let e = if q == k { s[q] * n } else { s[q] };
        r = r * e + coord[q];
    }
    r
}

proptest! {
    #![proptest_config(config())]

    /// Issue 8: with negative strides too, the narrow layout's image is exactly the union of
    /// the wide elements' narrow offsets `n·L(i) + j`, in element order.
    #[test]
    fn downcast_with_negative_strides_brute_force(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, Gen { negative: true, ..SMALL });
        // make exactly one leaf of stride ±1 (the others scaled away from ±1)
        let (s, mut d) = (l.shape_leaves().to_vec(), l.stride_leaves().to_vec());
        let k = rng.below(s.len() as u64) as usize;
        for (q, x) in d.iter_mut().enumerate() {
            if q == k {
                *x = if rng.coin() { -1 } else { 1 };
            } else if x.abs() == 1 {
                *x *= 7;
            }
        }
        let l = DynLayout::from_flat(&s, &d).unwrap();
        let n = rng.range(1, 4);
        let r = l.downcast(n).unwrap();
        prop_assert_eq!(r.size(), l.size() * n);
        let mut want = std::collections::BTreeMap::new();
        for i in 0..l.size() {
            for j in 0..n {
                let idx = narrow_index(&l, k, n, i, j);
                prop_assert_eq!(r.offset(idx), n * l.offset(i) + j, "downcast({}, {}) = {} at ({}, {})", l, n, r, i, j);
                want.insert(idx, ());
            }
        }
        prop_assert_eq!(want.len() as i64, r.size());
        // upcast gives L back, functionally
        let u = r.upcast(n).unwrap();
        prop_assert_eq!(offsets(&u), offsets(&l), "upcast(downcast({}, {})) = {}", l, n, u);
    }

    /// `upcast`'s contract, brute force: `L(c) == N·R(c') + ρ(c)` with `|ρ| < N`; so for
    /// non-negative strides `R(c') == floor(L(c)/N)`.
    #[test]
    fn upcast_contract_brute_force(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, Gen { negative: true, ..SMALL });
        let n = rng.range(1, 8);
        if let Ok(u) = l.upcast(n) {
            for i in 0..l.size() {
                let c = l.index_to_coord(i).flatten();
                let mut c2 = c;
                let mut rho = 0i64;
                for (q, &d) in l.stride_leaves().iter().enumerate() {
                    if d != 0 && d.abs() < n {
                        let per = n / d.abs();
                        rho += d.signum() * (c.leaves()[q] % per) * d.abs();
                        c2.leaves_mut()[q] /= per;
                    }
                }
                let uo = u.flatten().offset_of(&c2).unwrap();
                prop_assert_eq!(l.offset(i), n * uo + rho, "upcast({}, {}) = {}", l, n, u);
                prop_assert!(rho.abs() < n);
                if l.stride_leaves().iter().all(|&d| d >= 0) {
                    prop_assert_eq!(uo, l.offset(i).div_euclid(n));
                }
            }
        }
    }
}

#[test]
fn issue8_cast_reproducers() {
    // wide element -1 occupies narrow offsets -2 and -1: pairs (0,1), (-2,-1), (-4,-3), ...
    let r = dl("(4,4):(-1,4)").downcast(2).unwrap();
    assert_eq!(r.to_string(), "((2,4),4):((1,-2),8)");
    assert_eq!(&offsets(&r)[..8], &[0, 1, -2, -1, -4, -3, -6, -5]);
    assert_eq!(dl("4:-1").downcast(2).unwrap().to_string(), "(2,4):(1,-2)");
    assert_eq!(
        dl("(1,4):(-1,4)").downcast(2).unwrap().to_string(),
        "(2,4):(1,8)"
    );
    // a non-injective input whose sub-element leaves overlap a wide element is refused
    let e = dl("(4,5):(2,2)").upcast(8).unwrap_err();
    assert_eq!(
        e.to_string(),
        "upcast: the leaves of stride below the factor reach 12 narrow offsets past the start of a wide element, which holds only 8"
    );
    // and so is an injective one that interleaves (floor(7/6) = 1 but both strides round to 0)
    assert!(dl("(3,2):(2,3)").upcast(6).is_err());
    assert_eq!(
        dl("(4,8):(3,12)").upcast(2).unwrap_err().to_string(),
        "upcast: stride 3 is not a multiple of the factor 2"
    );
    assert_eq!(
        dl("8:1").upcast(0).unwrap_err().to_string(),
        "upcast: the factor is 0; it must be at least 1"
    );
}
