use crate::*;
use layout::{Tile, TileMode};
use proptest::prelude::*;

fn random_tile(rng: &mut Seeded, a: &DynLayout) -> Tile {
    let r = if a.profile().is_leaf() { 1 } else { a.rank() };
    let n = 1 + rng.below(r as u64) as usize;
    let mut t = Tile::EMPTY;
    for _ in 0..n {
        let m = match rng.below(5) {
            0 => TileMode::Keep,
            1 | 2 => TileMode::int(rng.range(1, 4)).unwrap(),
            _ => TileMode::Layout(layout(
                rng,
                Gen {
                    max_leaves: 2,
                    max_extent: 3,
                    negative: false,
                    huge: false,
                },
            )),
        };
        t.push(m).unwrap();
    }
    t
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn logical_divide_is_composition_with_tile_and_rest(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let a = layout(&mut rng, SMALL);
        let b = layout(&mut rng, Gen { max_leaves: 2, max_extent: 4, negative: false, huge: false });
        if let Ok(r) = a.logical_divide(&b) {
            prop_assert_eq!(r.rank(), 2);
            let tile = r.mode(0).unwrap();
            prop_assert_eq!(offsets(&tile), offsets(&a.composition(&b).unwrap()));
            let rest = b.complement_shape(&a.coalesce().shape()).unwrap();
            let bc = DynLayout::make_layout(&[b, rest]).unwrap();
            let want: Vec<i64> = (0..bc.size()).map(|i| a.offset(bc.offset(i))).collect();
            prop_assert_eq!(offsets(&r), want);
            // a re-indexing of A when (B, B*) tiles A's index range (B admissible)
            let mut tiles = offsets(&bc); tiles.sort();
            if r.size() == a.size() && tiles == (0..a.size()).collect::<Vec<_>>() {
                let mut x = offsets(&r); x.sort();
                let mut y = offsets(&a); y.sort();
                prop_assert_eq!(x, y, "{} / {} = {} is not a re-indexing of A", a, b, r);
            }
            // zipped, tiled and flat are regroupings of the same function
            for z in [a.zipped_divide(&b).unwrap(), a.tiled_divide(&b).unwrap(), a.flat_divide(&b).unwrap()] {
                prop_assert_eq!(offsets(&z), offsets(&r));
            }
            prop_assert!(a.flat_divide(&b).unwrap().depth() <= r.depth());
        }
    }

    #[test]
    fn by_mode_divides(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let a = layout(&mut rng, SMALL);
        let t = random_tile(&mut rng, &a);
        let Ok(l) = a.logical_divide_by_mode(&t) else { return Ok(()); };
        let z = a.zipped_divide_by_mode(&t).unwrap();
        let ar = if a.profile().is_leaf() { 1 } else { a.rank() };
        prop_assert_eq!(l.rank(), ar);
        let (tiles, rests) = (z.mode(0).unwrap(), z.mode(1).unwrap());
        prop_assert_eq!(tiles.rank(), t.rank());
        prop_assert_eq!(rests.rank(), ar);
        for i in 0..ar {
            let ai = if a.profile().is_leaf() { a } else { a.mode(i).unwrap() };
            let li = l.mode(i).unwrap();
            match t.mode(i) {
                Some(TileMode::Layout(ti)) => {
                    prop_assert_eq!(li, ai.logical_divide(&ti).unwrap());
                    prop_assert_eq!(tiles.mode(i).unwrap(), li.mode(0).unwrap());
                    prop_assert_eq!(rests.mode(i).unwrap(), li.mode(1).unwrap());
                    // layout<0>(zipped_divide(a, b)) == composition(a, b), per mode
                    prop_assert_eq!(offsets(&tiles.mode(i).unwrap()), offsets(&ai.composition(&ti).unwrap()));
                }
                Some(TileMode::Keep) => {
                    prop_assert_eq!(li, ai);
                    prop_assert_eq!(rests.mode(i).unwrap(), ai);
                    prop_assert_eq!(tiles.mode(i).unwrap().size(), 1);
                }
                None => {
                    prop_assert_eq!(li, ai);
                    prop_assert_eq!(rests.mode(i).unwrap(), ai);
                }
            }
        }
        prop_assert_eq!(offsets(&a.tiled_divide_by_mode(&t).unwrap()), offsets(&z));
        prop_assert_eq!(offsets(&a.flat_divide_by_mode(&t).unwrap()), offsets(&z));
    }
}

#[test]
fn tutorial_divides() {
    let a = dl("(4,2,3):(2,1,8)");
    assert_eq!(
        a.logical_divide(&dl("4:2")).unwrap().to_string(),
        "((2,2),(2,3)):((4,1),(2,8))"
    );
    let a = dl("(9,(4,8)):(59,(13,1))");
    let t: Tile = "[3:3,(2,4):(1,8)]".parse().unwrap();
    assert_eq!(
        a.logical_divide_by_mode(&t).unwrap().to_string(),
        "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))"
    );
    // cutlass#2545: a Layout tiler is 1-D, a shape tiler is by-mode
    let a = dl("(12,32):(1,12)");
    assert_eq!(
        a.logical_divide(&dl("(4,8):(1,4)")).unwrap().to_string(),
        "((4,8),12):((1,4),32)"
    );
    let t = Tile::from_shape(&dt("(4,8)")).unwrap();
    assert_eq!(
        a.zipped_divide_by_mode(&t).unwrap().to_string(),
        "((4,8),(3,4)):((1,12),(4,96))"
    );
    assert_eq!(
        a.flat_divide_by_mode(&t).unwrap().to_string(),
        "(4,8,3,4):(1,12,4,96)"
    );
    assert_eq!(
        a.tiled_divide_by_mode(&t).unwrap().to_string(),
        "((4,8),3,4):((1,12),4,96)"
    );
}

#[test]
fn tutorial_zipped_divide() {
    let a = dl("(9,(4,8)):(59,(13,1))");
    let t: Tile = "[3:3,(2,4):(1,8)]".parse().unwrap();
    let ld = a.logical_divide_by_mode(&t).unwrap();
    assert_eq!(ld.mode(0).unwrap().shape().to_string(), "(3,3)");
    assert_eq!(ld.mode(1).unwrap().size(), 32);
    let zd = a.zipped_divide_by_mode(&t).unwrap();
    assert_eq!(zd.mode(0).unwrap().size(), 24);
    assert_eq!(zd.mode(1).unwrap().size(), 12);
    // layout<0>(zipped_divide(a, b)) == composition(a, b), the sublayout the tutorial shows
    assert_eq!(zd.mode(0).unwrap(), a.composition_by_mode(&t).unwrap());
    assert_eq!(zd.mode(0).unwrap().to_string(), "(3,(2,4)):(177,(13,2))");
    // offset of tile (1,2) is zd(0, (1,2))
    let c = "(0,(1,2))".parse().unwrap();
    let rest = zd.mode(1).unwrap();
    assert_eq!(
        zd.offset_of(&c).unwrap(),
        rest.offset_of(&"(1,2)".parse().unwrap()).unwrap()
    );
}
