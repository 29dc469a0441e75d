//! Static parts stay static: dividing a mixed (static/run-time) rank-2 layout by a static tiler
//! keeps the tile mode's `Int<N>` extents and the parent's stride types, stores only the dynamic
//! leaves, and gives the same function as the run-time divide (brute force over the domain).

use layout::{DynLayout, Int, Layout, Tile};

fn dyn_zipped(m: i64, n: i64, d0: i64, d1: i64, tm: i64, tn: i64) -> DynLayout {
    let l: DynLayout = format!("({m},{n}):({d0},{d1})").parse().unwrap();
    let t: Tile = format!("[{tm},{tn}]").parse().unwrap();
    l.zipped_divide_by_mode(&t).unwrap()
}

#[test]
fn zipped_logical_and_tiled_divides_equal_the_run_time_divides() {
    for (m, n, ld) in [
        (64i64, 32i64, 64i64),
        (32, 64, 40),
        (16, 8, 17),
        (128, 128, 136),
    ] {
        let a = Layout::new((m, n), (Int::<1>, ld));
        let z = a.zipped_divide_static::<16, 8>().unwrap();
        let l = a.logical_divide_static::<16, 8>().unwrap();
        let t = a.tiled_divide_static::<16, 8>().unwrap();
        let r = dyn_zipped(m, n, 1, ld, 16, 8);
        assert_eq!(z.to_dyn().unwrap(), r, "{m}x{n} ld {ld}");
        let rl: DynLayout = format!("({m},{n}):(1,{ld})").parse().unwrap();
        let rl = rl
            .logical_divide_by_mode(&"[16,8]".parse().unwrap())
            .unwrap();
        assert_eq!(l.to_dyn().unwrap(), rl);
        // brute force: the same offsets at every index
        for i in 0..m * n {
            assert_eq!(z.to_dyn().unwrap().offset(i), r.offset(i));
            assert_eq!(t.to_dyn().unwrap().offset(i), r.offset(i));
        }
    }
    // the tile mode is typed: static extents, the parent's stride types
    let a = Layout::new((64i64, 32i64), (Int::<1>, 72i64));
    let z = a.zipped_divide_static::<16, 8>().unwrap();
    let tile: Layout<(Int<16>, Int<8>), (Int<1>, i64)> = Layout::new(z.shape().0, z.stride().0);
    assert_eq!(tile.offset((3, 2)), 3 + 2 * 72);
    assert_eq!(std::mem::size_of_val(&tile), 8); // only the leading dimension
    assert_eq!(std::mem::size_of_val(&z), 5 * 8); // ld, 2 rest extents, 2 rest strides
    // fully static parent strides: the tile holds nothing at all
    let s = Layout::new((64i64, 32i64), (Int::<1>, Int::<64>));
    let zs = s.zipped_divide_static::<16, 8>().unwrap();
    let tile = Layout::new(zs.shape().0, zs.stride().0);
    assert_eq!(std::mem::size_of_val(&tile), 0);
}

#[test]
fn refusals_name_the_numbers() {
    let a = Layout::new((60i64, 32i64), (Int::<1>, 64i64));
    let e = a.zipped_divide_static::<16, 8>().unwrap_err();
    assert!(
        e.to_string().contains("60") && e.to_string().contains("16"),
        "{e}"
    );
    assert!(a.tiled_divide_static::<0, 8>().is_err());
    // the rest stride 4 · (2^62 - 1) leaves i64
    let big = Layout::new((8i64, 8i64), (Int::<1>, i64::MAX / 2));
    assert!(big.logical_divide_static::<1, 4>().is_err());
}

#[test]
fn blocked_and_raked_products_keep_the_static_block() {
    let block = Layout::new((Int::<2>, Int::<4>), (Int::<4>, Int::<1>));
    for (m, n) in [(3i64, 5i64), (1, 1), (4, 2), (7, 3)] {
        for tiler in [format!("({m},{n}):(1,{m})"), format!("({m},{n}):({n},1)")] {
            let t: DynLayout = tiler.parse().unwrap();
            let b = block.blocked_product_static(&t).unwrap();
            let r = block.raked_product_static(&t).unwrap();
            let want_b = block.to_dyn().unwrap().blocked_product(&t).unwrap();
            let want_r = block.to_dyn().unwrap().raked_product(&t).unwrap();
            assert_eq!(b.to_dyn().unwrap(), want_b, "{tiler}");
            assert_eq!(r.to_dyn().unwrap(), want_r, "{tiler}");
            for i in 0..want_b.size() {
                assert_eq!(b.to_dyn().unwrap().offset(i), want_b.offset(i));
            }
            // the block's leaves are zero-sized: only the 2 tile extents and 2 strides
            assert_eq!(std::mem::size_of_val(&b), 4 * 8);
        }
    }
    // a hierarchical tiler mode has no one-leaf typed form: refused, not approximated
    let t: DynLayout = "((2,2),3):((1,2),4)".parse().unwrap();
    assert!(block.blocked_product_static(&t).is_err());
}

#[test]
fn composition_with_a_static_tiler_keeps_the_static_part() {
    // brute force against the run-time by-mode composition, over whole domains, for tilers
    // inside, equal to and past the parent's extents
    for (m, n, ld) in [
        (64i64, 32i64, 72i64),
        (16, 8, 17),
        (8, 4, 9),
        (100, 60, 104),
    ] {
        let a = Layout::new((m, n), (Int::<1>, ld));
        let t = a.composition_static::<16, 8>().unwrap();
        let want = DynLayout::new(
            &layout::DynTuple::from_slice(&[m, n]).unwrap(),
            &layout::DynTuple::from_slice(&[1, ld]).unwrap(),
        )
        .unwrap()
        .composition_by_mode(&"[16,8]".parse().unwrap())
        .unwrap();
        for j in 0..8 {
            for i in 0..16 {
                assert_eq!(t.offset((i, j)), want.offset(i + 16 * j), "{m}x{n} ld {ld}");
            }
        }
        // the type holds the static part: only ld is stored
        let _: Layout<(Int<16>, Int<8>), (Int<1>, i64)> = t;
        assert_eq!(std::mem::size_of_val(&t), 8);
    }
    // fully dynamic strides: both stored; fully static: nothing stored
    let d = Layout::new((64i64, 32i64), (1i64, 72i64));
    let td = d.composition_static::<4, 2>().unwrap();
    let _: Layout<(Int<4>, Int<2>), (i64, i64)> = td;
    assert_eq!(std::mem::size_of_val(&td), 16);
    assert_eq!(td.offset((3, 1)), 3 + 72);
    let s = Layout::new((64i64, 32i64), (Int::<32>, Int::<1>));
    let ts = s.composition_static::<16, 8>().unwrap();
    assert_eq!(std::mem::size_of_val(&ts), 0);
    assert_eq!(ts.to_string(), "(_16,_8):(_32,_1)");
    // refusals
    assert!(d.composition_static::<0, 2>().is_err());
}
