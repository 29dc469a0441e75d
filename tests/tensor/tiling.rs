//! Tiling with ragged edges (`Tensor::tiles`): every tile, smaller or predicated, checked element
//! by element against the parent tensor on ragged shapes, and predicated copies between tensors
//! of different extents (cutlass#3488) checked never to write outside the destination.

use layout::tensor::{Tensor, copy_if};
use layout::{DynLayout, DynTuple, Int, Layout};

/// Row-major index → coordinate of `shape`.
fn unravel(mut k: usize, shape: &[usize]) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for a in (0..shape.len()).rev() {
        c[a] = k % shape[a];
        k /= shape[a];
    }
    c
}

/// Check every tile of `t` (both forms) against `t` itself, by brute force.
fn check_all_tiles<St: layout::tensor::Storage<Elem = i64>, L: layout::AnyLayout>(
    t: &Tensor<St, L>,
    shape: &[usize],
    tile: &[usize],
) {
    let d =
        Tensor::with_offset(t.as_slice(), t.layout().to_dyn().unwrap(), t.base_offset()).unwrap();
    let parent = |c: &[usize]| -> i64 { *d.get(c).unwrap() };
    let tiles = t.tiles(tile).unwrap();
    let grid: Vec<usize> = shape
        .iter()
        .zip(tile)
        .map(|(&e, &t)| e.div_ceil(t))
        .collect();
    assert_eq!(tiles.grid(), &grid[..]);
    let mut seen = vec![0u32; shape.iter().product::<usize>()];
    let total: usize = grid.iter().product();
    assert_eq!(tiles.coords().count(), total);
    for g in tiles.coords() {
        let g = g.to_vec();
        let small = tiles.tile(&g).unwrap();
        let pred = tiles.predicated(&g).unwrap();
        let want: Vec<usize> = (0..shape.len())
            .map(|a| tile[a].min(shape[a] - g[a] * tile[a]))
            .collect();
        assert_eq!(&small.dims()[..], &want[..], "tile {g:?}");
        assert_eq!(pred.valid_extents(), &want[..]);
        assert_eq!(pred.extents(), tile);
        let mask = pred.mask().unwrap();
        // every coordinate of the full tile
        let full: usize = tile.iter().product();
        for k in 0..full {
            let c = unravel(k, tile);
            let pc: Vec<usize> = (0..c.len()).map(|a| g[a] * tile[a] + c[a]).collect();
            let inside = pc.iter().zip(shape).all(|(&i, &e)| i < e);
            assert_eq!(pred.is_valid(&c), inside);
            assert_eq!(*mask.get(&c[..]).unwrap(), inside);
            if inside {
                let v = parent(&pc);
                assert_eq!(pred.get(&c), Some(&v), "tile {g:?} at {c:?}");
                assert_eq!(small.get(&c[..]), Some(&v));
                let idx = pc.iter().zip(shape).fold(0, |acc, (&i, &e)| acc * e + i);
                seen[idx] += 1;
            } else {
                assert_eq!(pred.get(&c), None);
                assert_eq!(small.get(&c[..]), None);
            }
        }
    }
    // the smaller tiles cover the tensor exactly once
    assert!(seen.iter().all(|&n| n == 1));
    // outside the grid: an error naming the axis
    let mut out = grid.clone();
    out[0] = grid[0];
    assert!(tiles.tile(&out).is_err());
    out[0] = usize::MAX;
    assert!(tiles.tile(&out).is_err());
    assert!(tiles.predicated(&out).is_err());
}

#[test]
fn ragged_tiles_of_row_major_column_major_and_typed_tensors() {
    for (shape, tile) in [
        (vec![100usize, 60], vec![32usize, 32]),
        (vec![7, 5], vec![4, 4]),
        (vec![5, 7, 3], vec![2, 3, 2]),
        (vec![9], vec![4]),
        (vec![3, 4], vec![8, 8]), // one tile, larger than the tensor
        (vec![8, 6], vec![4, 3]), // exact
    ] {
        let rm = Tensor::from_fn(&shape, |i| i as i64).unwrap();
        check_all_tiles(&rm, &shape, &tile);
        // column-major with a padded leading dimension
        let shape_i: Vec<i64> = shape.iter().map(|&e| e as i64).collect();
        let ld = shape_i[0] + 3;
        let mut stride = vec![1i64];
        for a in 1..shape.len() {
            stride.push(if a == 1 {
                ld
            } else {
                stride[a - 1] * shape_i[a - 1]
            });
        }
        let cm = DynLayout::new(
            &DynTuple::from_slice(&shape_i).unwrap(),
            &DynTuple::from_slice(&stride).unwrap(),
        )
        .unwrap();
        let buf: Vec<i64> = (0..cm.cosize() + 5).collect();
        let t = Tensor::new(&buf[..], cm).unwrap();
        check_all_tiles(&t, &shape, &tile);
    }
    // a typed mixed layout `(m, k) : (1, ld)`
    let (m, k, ld) = (
        std::hint::black_box(100i64),
        std::hint::black_box(60i64),
        104i64,
    );
    let buf: Vec<i64> = (0..ld * k).collect();
    let t = Tensor::new(&buf[..], Layout::new((m, k), (Int::<1>, ld))).unwrap();
    check_all_tiles(&t, &[100, 60], &[32, 32]);
    // negative strides: a flipped view
    let rm = Tensor::from_fn(&[7, 5], |i| i as i64).unwrap();
    let flipped: DynLayout = "(7,5):(-5,1)".parse().unwrap();
    let f = Tensor::with_offset(rm.as_slice(), flipped, 30).unwrap();
    check_all_tiles(&f, &[7, 5], &[4, 4]);
    // a hierarchical axis, divided exactly
    let nz: DynLayout = "((4,2),6):((1,24),4)".parse().unwrap();
    let buf: Vec<i64> = (0..nz.cosize()).collect();
    let t = Tensor::new(&buf[..], nz).unwrap();
    check_all_tiles(&t, &[8, 6], &[4, 4]);
    // ... but not raggedly
    assert!(t.tiles(&[3, 4]).is_err());
}

#[test]
fn writable_tiles_write_each_element_once() {
    for (shape, tile) in [
        (vec![100usize, 60], vec![32usize, 32]),
        (vec![7, 5], vec![4, 4]),
        (vec![5, 7, 3], vec![2, 3, 2]),
    ] {
        let mut t = Tensor::from_vec(vec![0i64; shape.iter().product::<usize>()], &shape).unwrap();
        let mut tiles = t.tiles_mut(&tile).unwrap();
        let coords: Vec<_> = tiles.coords().collect();
        for (id, g) in coords.iter().enumerate() {
            if id % 2 == 0 {
                let mut v = tiles.tile_mut(g).unwrap();
                v.iter_mut().for_each(|x| *x += 1 + id as i64);
            } else {
                let mut p = tiles.predicated_mut(g).unwrap();
                p.apply(|x| *x += 1 + id as i64);
                // writes to masked coordinates do nothing
                let masked: Vec<usize> = p.extents().iter().map(|&e| e - 1).collect();
                if !p.is_full() {
                    assert!(p.get_mut(&masked).is_none());
                }
            }
        }
        // every element got exactly its tile's id
        for k in 0..shape.iter().product::<usize>() {
            let c = unravel(k, &shape);
            let g: Vec<usize> = c.iter().zip(&tile).map(|(&i, &t)| i / t).collect();
            let grid: Vec<usize> = shape
                .iter()
                .zip(&tile)
                .map(|(&e, &t)| e.div_ceil(t))
                .collect();
            let id = g
                .iter()
                .zip(&grid)
                .rev()
                .fold(0, |acc, (&x, &n)| acc * n + x);
            assert_eq!(t[&c[..]], 1 + id as i64, "{c:?}");
        }
    }
}

/// cutlass#3488: a predicated copy whose destination has other extents than its source. With
/// the source's predicate the CuTe copy stored out of bounds; here the destination tile's own
/// predicate always applies. The destination lives inside a larger buffer whose guard elements
/// must stay untouched.
#[test]
fn predicated_copies_with_mismatched_extents_stay_inside() {
    for ((sm, sn), (dm, dn)) in [
        ((10usize, 6usize), (9usize, 5usize)),
        ((9, 5), (10, 6)),
        ((7, 5), (5, 7)),
    ] {
        let src = Tensor::from_fn(&[sm, sn], |i| 1000 + i as i64).unwrap();
        let guard = 17usize;
        let mut buf = vec![-7i64; guard + dm * dn + guard];
        let dl = DynLayout::new(
            &DynTuple::from_slice(&[dm as i64, dn as i64]).unwrap(),
            &DynTuple::from_slice(&[dn as i64, 1]).unwrap(),
        )
        .unwrap();
        {
            let mut dst = Tensor::with_offset(&mut buf[..guard + dm * dn], dl, guard).unwrap();
            let ts = src.tiles(&[4, 4]).unwrap();
            let mut td = dst.tiles_mut(&[4, 4]).unwrap();
            let gs = ts.grid().to_vec();
            let gd = td.grid().to_vec();
            for gi in 0..gs[0].max(gd[0]) {
                for gj in 0..gs[1].max(gd[1]) {
                    let (Ok(s), Ok(mut d)) =
                        (ts.predicated(&[gi, gj]), td.predicated_mut(&[gi, gj]))
                    else {
                        continue;
                    };
                    // the source's predicate (what #3488 passed) and an always-true one
                    let n1 = copy_if(|c| s.is_valid(c), &s, &mut d);
                    let n2 = copy_if(|_| true, &s, &mut d);
                    assert_eq!(n1, n2);
                    let want = (0..2)
                        .map(|a| s.valid_extents()[a].min(d.valid_extents()[a]))
                        .product::<usize>();
                    assert_eq!(n1, want);
                }
            }
        }
        // guards intact, and every destination element is the source's element or untouched
        assert!(buf[..guard].iter().all(|&x| x == -7));
        assert!(buf[guard + dm * dn..].iter().all(|&x| x == -7));
        for i in 0..dm {
            for j in 0..dn {
                let v = buf[guard + i * dn + j];
                if i < sm && j < sn {
                    assert_eq!(v, 1000 + (i * sn + j) as i64);
                } else {
                    assert_eq!(v, -7);
                }
            }
        }
    }
}

#[test]
fn tensor_divides_and_partitions_are_the_algebra() {
    let a = Tensor::from_fn(&[8, 6], |i| i as i64).unwrap();
    let l = *a.layout();
    let tiler: layout::Tile = "[4,3]".parse().unwrap();
    let z = a.zipped_divide(&tiler).unwrap();
    assert_eq!(*z.layout(), l.zipped_divide_by_mode(&tiler).unwrap());
    let td = a.tiled_divide(&tiler).unwrap();
    assert_eq!(*td.layout(), l.tiled_divide_by_mode(&tiler).unwrap());
    let thr: DynLayout = "(4,3):(3,1)".parse().unwrap();
    for idx in 0..12 {
        let p = a.local_partition(&thr, idx).unwrap();
        let (pl, off) = l.local_partition(&thr, idx).unwrap();
        for k in 0..pl.size() {
            assert_eq!(*p.at(k).unwrap(), pl.offset(k) + off);
        }
    }
    // a non-dividing tiler is refused or stays inside the buffer
    let bad: layout::Tile = "[3,4]".parse().unwrap();
    if let Ok(z) = a.zipped_divide(&bad) {
        assert!(z.iter().all(|&v| (0..48).contains(&v)));
    }
    // local_tile on a run-time tensor
    let big = Tensor::from_fn(&[100, 60], |i| i as i64).unwrap();
    let t = big.local_tile(&[32, 32], &[3, 1]).unwrap();
    assert_eq!(t.dims(), [4, 28]);
    assert_eq!(t[[3, 27]], big[[99, 59]]);
}

/// Static stays static: tiles of `layout!((m, k) : (1, ld))` by 32 × 32 are typed
/// `Layout<(Int<32>, Int<32>), (Int<1>, i64)>` — interior tiles as tensors, edge tiles with a
/// predicate — and every element agrees with the run-time tiling.
#[test]
fn static_tiles_of_a_mixed_tensor_keep_their_types_and_offsets() {
    use layout::layout;
    type T32 = Layout<(Int<32>, Int<32>), (Int<1>, i64)>;
    let (m, k, ld) = (
        std::hint::black_box(100i64),
        std::hint::black_box(60i64),
        104i64,
    );
    let buf: Vec<i64> = (0..ld * k).collect();
    let typed = Tensor::new(&buf[..], layout!((m, k) : (1, ld))).unwrap();
    let dynamic = Tensor::new(&buf[..], typed.layout().to_dyn().unwrap()).unwrap();
    let plan = dynamic.tiles(&[32, 32]).unwrap();
    assert_eq!(plan.grid(), &[4, 2][..]);
    for tj in 0..2 {
        for ti in 0..4 {
            let p = typed.local_tile_predicated::<32, 32>((ti, tj)).unwrap();
            let _: &T32 = p.layout(); // a compile-time assertion on the type
            let r = plan.predicated(&[ti, tj]).unwrap();
            assert_eq!(
                [p.valid_extents().0, p.valid_extents().1],
                r.valid_extents()
            );
            for j in 0..32 {
                for i in 0..32 {
                    assert_eq!(
                        p.get((i, j)),
                        r.get(&[i, j]),
                        "tile ({ti},{tj}) at ({i},{j})"
                    );
                }
            }
            // interior tiles are whole static tensors
            assert_eq!(p.full().is_some(), ti < 3 && tj < 1);
            if let Some(full) = p.full() {
                let _: &T32 = full.layout();
                assert_eq!(
                    full[(31, 31)],
                    buf[(ti * 32 + 31) + (tj * 32 + 31) * ld as usize]
                );
            }
        }
    }
    assert!(typed.local_tile_predicated::<32, 32>((4, 0)).is_err());
    assert_eq!(std::mem::size_of::<T32>(), 8); // only ld is stored
    // writes through predicated static tiles cover the tensor exactly once
    let mut w = vec![0i64; (ld * k) as usize];
    let mut wt = Tensor::new(&mut w[..], layout!((m, k) : (1, ld))).unwrap();
    for tj in 0..2 {
        for ti in 0..4 {
            wt.local_tile_predicated_mut::<32, 32>((ti, tj))
                .unwrap()
                .apply(|x| *x += 1);
        }
    }
    for j in 0..ld * k {
        let (r, c) = (j % ld, j / ld);
        assert_eq!(w[j as usize], i64::from(r < m && c < k), "{r},{c}");
    }
}

/// The typed flat tiles of a run-time tensor (`Tiles::tile2`) are the run-time tiles.
#[test]
fn typed_flat_tiles_are_the_dyn_tiles() {
    let a = Tensor::from_fn(&[100, 60], |i| i as i64).unwrap();
    let t = a.tiles(&[32, 32]).unwrap();
    for tj in 0..2 {
        for ti in 0..4 {
            let f = t.tile2((ti, tj)).unwrap();
            let d = t.tile(&[ti, tj]).unwrap();
            let (m, n) = f.layout().shape();
            assert_eq!(d.shape().leaves(), &[m, n]);
            for i in 0..m as usize {
                for j in 0..n as usize {
                    assert_eq!(f[(i, j)], d[[i, j]]);
                }
            }
        }
    }
    let r3 = Tensor::from_fn(&[4, 4, 4], |i| i as i64).unwrap();
    assert!(r3.tiles(&[2, 2, 2]).unwrap().tile2((0, 0)).is_err());
}

/// The interior tiles of `Tiles::tile` / `tile_mut` (built in place, without the general
/// path) are exactly what the general path gives (`local_tile` goes through it for every tile):
/// the same layout, base and errors, on strided and hierarchical tensors with a base offset,
/// for every coordinate of the grid and around it.
#[test]
fn interior_tiles_are_the_general_tiles() {
    let cases: [(&str, usize, &[usize]); 5] = [
        ("(100,60):(60,1)", 0, &[32, 32]),
        ("(64,48):(1,70)", 5, &[16, 8]),
        ("(7,5,3):(1,7,35)", 2, &[2, 5, 1]),
        ("((16,4),(16,4)):((16,256),(1,1024))", 3, &[32, 16]),
        ("(100):(3)", 1, &[1 << 62]),
    ];
    for (layout, base, tile) in cases {
        let l: DynLayout = layout.parse().unwrap();
        let n = base + l.cosize() as usize;
        let mut buf: Vec<i64> = (0..n as i64).collect();
        let a = Tensor::with_offset(&buf[..], l, base).unwrap();
        let t = a.tiles(tile).unwrap();
        let grid = t.grid().to_vec();
        let mut coords: Vec<Vec<usize>> = Vec::new();
        let around: Vec<Vec<usize>> = grid
            .iter()
            .map(|&g| vec![usize::MAX, 0, g / 2, g - 1, g])
            .collect();
        let total: usize = around.iter().map(Vec::len).product();
        for mut k in 0..total {
            let mut c = Vec::new();
            for ax in &around {
                c.push(ax[k % ax.len()]);
                k /= ax.len();
            }
            coords.push(c);
        }
        coords.push(vec![0; grid.len() + 1]);
        let mut got = Vec::new();
        for c in &coords {
            let fast = t.tile(c);
            let general = a.local_tile(tile, c);
            match (&fast, &general) {
                (Ok(f), Ok(g)) => {
                    assert_eq!(f.layout(), g.layout(), "{layout} tile {c:?}");
                    assert_eq!(f.base_offset(), g.base_offset(), "{layout} tile {c:?}");
                }
                (Err(f), Err(g)) => assert_eq!(f, g, "{layout} tile {c:?}"),
                _ => panic!("{layout} tile {c:?}: {fast:?} against {general:?}"),
            }
            got.push(fast.map(|f| (*f.layout(), f.base_offset())));
        }
        let mut b = Tensor::with_offset(&mut buf[..], l, base).unwrap();
        let mut tm = b.tiles_mut(tile).unwrap();
        for (c, want) in coords.iter().zip(got) {
            let m = tm.tile_mut(c).map(|m| (*m.layout(), m.base_offset()));
            assert_eq!(m, want, "{layout} writable tile {c:?}");
        }
    }
}
