//! `Layout::local_tile::<M, N>` on typed rank-2 layouts: the tile type keeps static extents and
//! the parent's stride types; offsets equal the run-time `DynLayout::local_tile` with `[M,N]`.

use super::*;
use layout::tensor::Tensor;
use layout::{Int, Layout, Tile};
use proptest::prelude::*;

/// The tile's type is exactly `(Int<M>, Int<N>) : (D0, D1)`: checked by the compiler.
#[test]
fn the_tile_type_has_static_extents_and_the_parent_strides() {
    let (m, k, ld) = (128i64, 64i64, 130i64);
    let col = Layout::new((m, k), (Int::<1>, ld));
    let (t, _) = col.local_tile::<16, 8>((0, 0)).unwrap();
    let _: Layout<(Int<16>, Int<8>), (Int<1>, i64)> = t;
    assert_eq!(std::mem::size_of_val(&t), 8);
    let row = Layout::new((m, Int::<64>), (Int::<64>, Int::<1>));
    let (t, _) = row.local_tile::<4, 16>((3, 2)).unwrap();
    let _: Layout<(Int<4>, Int<16>), (Int<64>, Int<1>)> = t;
    assert_eq!(std::mem::size_of_val(&t), 0); // fully static tile of a mixed parent
}

proptest! {
    #![proptest_config(config())]

    /// Every element of every tile: the typed tile plus its offset equals the run-time
    /// `local_tile`, and equals the parent layout at the tile's coordinates (the definition).
    #[test]
    fn static_tiles_match_run_time_local_tile(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let (ti, tj) = (rng.range(1, 3), rng.range(1, 3));
        let (d0, d1) = (rng.range(-5, 40), rng.range(-5, 40));
        let l = Layout::new((4 * ti, 8 * tj), (d0, d1));
        let dynl = l.to_dyn().unwrap();
        let tiler: Tile = "[4,8]".parse().unwrap();
        for i in 0..ti {
            for j in 0..tj {
                let (t, off) = l.local_tile::<4, 8>((i, j)).unwrap();
                let (rt, roff) = dynl
                    .local_tile(&tiler, &DynTuple::from_slice(&[i, j]).unwrap())
                    .unwrap();
                for a in 0..4i64 {
                    for b in 0..8i64 {
                        let want = l.offset((4 * i + a, 8 * j + b));
                        prop_assert_eq!(off + t.offset((a, b)), want);
                        prop_assert_eq!(roff + rt.offset_of(&DynTuple::from_slice(&[a, b]).unwrap()).unwrap(), want);
                    }
                }
            }
        }
    }
}

#[test]
fn bad_tiles_are_errors() {
    let l = Layout::new((12i64, 8i64), (Int::<1>, 12i64));
    assert!(l.local_tile::<5, 4>((0, 0)).is_err()); // 5 does not divide 12
    assert!(l.local_tile::<4, 4>((3, 0)).is_err()); // 12 / 4 = 3 tiles: index 3 is outside
    assert!(l.local_tile::<4, 4>((0, -1)).is_err());
    assert!(l.local_tile::<0, 4>((0, 0)).is_err());
    let huge = Layout::new((4i64, 4i64), (i64::MAX / 2 + 1, 1i64));
    assert!(huge.local_tile::<2, 2>((1, 0)).is_err()); // 2 · (2^62) overflows: checked
}

/// Tensors: the tile is a view with the static tile type; reading and writing through it
/// reach the parent's elements.
#[test]
fn tensor_tiles_read_and_write_the_parent() {
    let (m, k) = (16i64, 12i64);
    let mut a = Tensor::new(
        vec![0i64; (m * k) as usize],
        Layout::new((m, k), (Int::<1>, m)),
    )
    .unwrap();
    for i in 0..4 {
        for j in 0..3 {
            let mut t = a.local_tile_mut::<4, 4>((i, j)).unwrap();
            for r in 0..4i64 {
                for c in 0..4i64 {
                    t[(r, c)] = (100 * i + 10 * j) as i64 + r * 4 + c;
                }
            }
        }
    }
    for r in 0..m {
        for c in 0..k {
            let want = 100 * (r / 4) + 10 * (c / 4) + (r % 4) * 4 + c % 4;
            assert_eq!(a[(r, c)], want);
        }
    }
    let t = a.local_tile::<8, 6>((1, 1)).unwrap();
    assert_eq!(t[(0, 0)], a[(8, 6)]);
}
