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
                prop_assert!(units > 0 || n == 1);
                prop_assert!(d.shape().congruent(&l.shape()));
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
            Err(_) => prop_assert!(units == 0 && n > 1),
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
    assert!(dl("(4,8):(2,8)").downcast(2).is_err());
}
