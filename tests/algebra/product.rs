use crate::*;
use layout::Tile;
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn logical_product_repeats_a(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let a = layout(&mut rng, Gen { max_leaves: 3, ..SMALL });
        let b = layout(&mut rng, Gen { max_leaves: 2, max_extent: 4, negative: false, huge: false });
        let Ok(r) = a.logical_product(&b) else { return Ok(()); };
        prop_assert_eq!(r.rank(), 2);
        prop_assert_eq!(r.mode(0).unwrap(), a);
        prop_assert_eq!(r.size(), a.size() * b.size());
        let mut comp = a.complement(a.size() * b.cosize()).unwrap();
        if comp.size() < b.cosize() {
            comp = a.complement(a.filter().cosize() * b.cosize()).unwrap();
        }
        let m1 = r.mode(1).unwrap();
        for j in 0..b.size() {
            prop_assert_eq!(m1.offset(j), comp.offset(b.offset(j)));
        }
        if injective(&a) && injective(&b) {
            prop_assert!(injective(&r), "{} x {} = {}", a, b, r);
        }
        for z in [a.zipped_product(&b).unwrap(), a.tiled_product(&b).unwrap(), a.flat_product(&b).unwrap()] {
            prop_assert_eq!(offsets(&z), offsets(&r));
        }
    }

    #[test]
    fn blocked_and_raked_products_regroup(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let a = layout(&mut rng, Gen { max_leaves: 3, ..SMALL });
        let b = layout(&mut rng, Gen { max_leaves: 3, max_extent: 3, negative: false, huge: false });
        let (Ok(bl), Ok(rk)) = (a.blocked_product(&b), a.raked_product(&b)) else { return Ok(()); };
        let ra = if a.profile().is_leaf() { 1 } else { a.rank() };
        let rb = if b.profile().is_leaf() { 1 } else { b.rank() };
        prop_assert_eq!(bl.size(), a.size() * b.size());
        let mut x = offsets(&bl); x.sort();
        let mut y = offsets(&rk); y.sort();
        prop_assert_eq!(&x, &y);
        if ra.max(rb) > 1 {
            prop_assert_eq!(bl.rank(), ra.max(rb));
            for i in 0..ra {
                let ai = if a.profile().is_leaf() { a } else { a.mode(i).unwrap() };
                prop_assert_eq!(bl.mode(i).unwrap().mode(0).unwrap(), ai);
                prop_assert_eq!(rk.mode(i).unwrap().mode(1).unwrap(), ai);
                prop_assert_eq!(bl.mode(i).unwrap().mode(1).unwrap(), rk.mode(i).unwrap().mode(0).unwrap());
            }
        }
    }

    #[test]
    fn by_mode_products(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let a = layout(&mut rng, Gen { max_leaves: 3, ..SMALL });
        let ar = if a.profile().is_leaf() { 1 } else { a.rank() };
        let n = 1 + rng.below(ar as u64) as usize;
        let ext: Vec<i64> = (0..n).map(|_| rng.range(1, 3)).collect();
        let t = Tile::from_shape(&DynTuple::from_slice(&ext).unwrap()).unwrap();
        let Ok(l) = a.logical_product_by_mode(&t) else { return Ok(()); };
        let z = a.zipped_product_by_mode(&t).unwrap();
        for (i, &e) in ext.iter().enumerate() {
            let ai = if a.profile().is_leaf() { a } else { a.mode(i).unwrap() };
            let li = l.mode(i).unwrap();
            prop_assert_eq!(li, ai.logical_product(&DynLayout::leaf(e, 1).unwrap()).unwrap());
            prop_assert_eq!(z.mode(0).unwrap().mode(i).unwrap(), ai);
        }
        prop_assert_eq!(offsets(&a.tiled_product_by_mode(&t).unwrap()), offsets(&z));
        prop_assert_eq!(offsets(&a.flat_product_by_mode(&t).unwrap()), offsets(&z));
    }
}

#[test]
fn tutorial_products() {
    let a = dl("(2,2):(4,1)");
    assert_eq!(
        a.logical_product(&dl("6:1")).unwrap().to_string(),
        "((2,2),(2,3)):((4,1),(2,8))"
    );
    let a = dl("(2,5):(5,1)");
    let b = dl("(3,4):(1,3)");
    assert_eq!(
        a.blocked_product(&b).unwrap().to_string(),
        "((2,3),(5,4)):((5,10),(1,30))"
    );
    assert_eq!(
        a.raked_product(&b).unwrap().to_string(),
        "((3,2),(4,5)):((10,5),(30,1))"
    );
    // pycute's logical_product(A, int) calls logical_divide; ours is a product
    let t: Tile = "[3]".parse().unwrap();
    assert_eq!(
        dl("4:1").logical_product_by_mode(&t).unwrap().to_string(),
        "((4,3)):((1,4))"
    );
}

#[test]
fn tutorial_product_orders() {
    // the complement step: complement((2,2):(4,1), 24) = (2,3):(2,8)
    assert_eq!(
        dl("(2,2):(4,1)").complement(24).unwrap().to_string(),
        "(2,3):(2,8)"
    );
    // B = (4,2):(2,1): eight tiles in another order
    let r = dl("(2,2):(4,1)")
        .logical_product(&dl("(4,2):(2,1)"))
        .unwrap();
    assert_eq!(r.size(), 32);
    let mut img: Vec<i64> = offsets(&r);
    img.sort();
    assert_eq!(img, (0..32).collect::<Vec<_>>());
    // 1-D product and divide agree on this example, as the tutorial notes
    assert_eq!(
        dl("(2,2):(4,1)").logical_product(&dl("6:1")).unwrap(),
        dl("(4,2,3):(2,1,8)").logical_divide(&dl("4:2")).unwrap()
    );
}
