use crate::*;
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn coalesce_is_functionally_equal_and_flat(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, Gen { negative: true, ..SMALL });
        let c = l.coalesce();
        prop_assert!(c.depth() <= 1);
        prop_assert_eq!(c.size(), l.size());
        prop_assert_eq!(offsets(&c), offsets(&l), "coalesce({}) = {}", l, c);
        // no further merge possible and no extent-1 mode unless the result is 1:0
        let (s, d) = (c.shape_leaves(), c.stride_leaves());
        if c.size() > 1 {
            prop_assert!(s.iter().all(|&x| x > 1));
            for k in 1..s.len() {
                prop_assert!(d[k] != s[k - 1] * d[k - 1]);
            }
        }
    }

    #[test]
    fn coalesce_by_mode_keeps_each_mode(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, SMALL);
        if l.profile().is_leaf() {
            return Ok(());
        }
        let r = l.rank();
        let pr = 1 + rng.below(r as u64) as usize;
        let profile = DynTuple::from_slice(&vec![1; pr]).unwrap();
        let c = l.coalesce_by_mode(&profile).unwrap();
        prop_assert_eq!(c.rank(), r);
        prop_assert_eq!(offsets(&c), offsets(&l));
        for i in 0..r {
            let (a, b) = (l.mode(i).unwrap(), c.mode(i).unwrap());
            prop_assert_eq!(offsets(&a), offsets(&b));
            if i < pr {
                prop_assert!(b.depth() <= 1);
            } else {
                prop_assert_eq!(a, b);
            }
        }
    }

    #[test]
    fn filter_keeps_the_image(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, Gen { negative: true, ..SMALL });
        let f = l.filter();
        prop_assert_eq!(image(&f), image(&l));
        if f.size() > 1 {
            prop_assert!(f.stride_leaves().iter().all(|&d| d != 0));
        }
        let z = l.filter_zeros();
        prop_assert!(z.shape().congruent(&l.shape()));
        for i in 0..z.size() {
            let c = z.index_to_coord(i);
            prop_assert_eq!(l.offset_of(&c).unwrap(), z.offset(i));
        }
    }
}

#[test]
fn tutorial_coalesce() {
    assert_eq!(dl("(2,(1,6)):(1,(6,2))").coalesce().to_string(), "12:1");
    assert_eq!(
        dl("(2,(1,6)):(1,(6,2))")
            .coalesce_by_mode(&dt("(1,1)"))
            .unwrap()
            .to_string(),
        "(2,6):(1,2)"
    );
    assert_eq!(dl("(2,2):(0,0)").coalesce().to_string(), "4:0");
    assert_eq!(dl("(4,1):(1,0)").coalesce().to_string(), "4:1");
    assert_eq!(dl("(1,1):(3,5)").coalesce().to_string(), "1:0");
    assert_eq!(dl("(2,1,3):(0,5,2)").filter().to_string(), "3:2");
}
