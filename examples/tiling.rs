//! A CuTe-style tiled kernel over ragged tensors: `C = A · B` for `A` 100 × 70 and `B` 70 × 60,
//! cut into 32 × 32 × 16 tiles (none of the extents divides), both ways of handling the edge:
//!
//! - **predicated full tiles** (CuTe's `copy_if` into a zero-filled buffer): every block of `A`
//!   and `B` is read as a full 32 × 16 / 16 × 32 tile whose masked elements read as 0, and `C`'s
//!   tile is written under its own predicate;
//! - **smaller residue tiles**: the loops run over each tile's actual extents.
//!
//! Both are checked against a plain triple loop.
//!
//! ```text
//! cargo run --release --example tiling
//! cargo run --release --example tiling -- count static|divide|compose|plan|plan2|algebra REPS
//! ```
//!
//! With `count`, only the tile kernel of BENCHMARKS.md runs (`c += 2·a` over every 16 × 8 tile
//! of a 512 × 512 tensor with a run-time leading dimension 520), `REPS` times, on static tiles
//! (`Tensor::local_tile::<16, 8>` of a typed mixed layout) or on tiles of a `DynLayout` tensor
//! planned once (`Tensor::tiles`; `plan`: `DynLayout` tiles, `plan2`: typed flat `Tile2` tiles;
//! `algebra`: each tile built by `DynLayout::local_tile` and checked as a new tensor, the way
//! before; `divide`: the tile and rest modes of `zipped_divide_static::<16, 8>` of the typed
//! layout, read through plain slices; `compose`: each tile the typed
//! `composition_static::<16, 8>` of the parent shifted to the tile), for
//! `valgrind --tool=callgrind`.

use layout::tensor::Tensor;
use layout::{DynLayout, layout};
use std::hint::black_box;

const TM: usize = 32;
const TN: usize = 32;
const TK: usize = 16;

/// `C = A · B` with predicated full tiles: the inner loops have constant trip counts.
fn gemm_predicated(
    a: &Tensor<Vec<f32>, DynLayout>,
    b: &Tensor<Vec<f32>, DynLayout>,
    c: &mut Tensor<Vec<f32>, DynLayout>,
) {
    let ta = a.tiles(&[TM, TK]).unwrap();
    let tb = b.tiles(&[TK, TN]).unwrap();
    let mut tc = c.tiles_mut(&[TM, TN]).unwrap();
    let (gm, gn) = (tc.grid()[0], tc.grid()[1]);
    let gk = ta.grid()[1];
    for tj in 0..gn {
        for ti in 0..gm {
            let mut acc = [[0f32; TN]; TM];
            for tk in 0..gk {
                // "shared memory" tiles, zero-filled where the predicate is false
                let (pa, pb) = (
                    ta.predicated(&[ti, tk]).unwrap(),
                    tb.predicated(&[tk, tj]).unwrap(),
                );
                let mut sa = [[0f32; TK]; TM];
                let mut sb = [[0f32; TN]; TK];
                pa.for_each_valid(|c, &v| sa[c[0]][c[1]] = v);
                pb.for_each_valid(|c, &v| sb[c[0]][c[1]] = v);
                for (i, row) in acc.iter_mut().enumerate() {
                    for (k, brow) in sb.iter().enumerate() {
                        let x = sa[i][k];
                        for (r, &y) in row.iter_mut().zip(brow) {
                            *r += x * y;
                        }
                    }
                }
            }
            // the epilogue writes under C's own predicate
            let mut pc = tc.predicated_mut(&[ti, tj]).unwrap();
            for (i, row) in acc.iter().enumerate() {
                for (j, &v) in row.iter().enumerate() {
                    if let Some(x) = pc.get_mut(&[i, j]) {
                        *x = v;
                    }
                }
            }
        }
    }
}

/// `C = A · B` with smaller residue tiles: the loops run over each tile's extents.
fn gemm_residue(
    a: &Tensor<Vec<f32>, DynLayout>,
    b: &Tensor<Vec<f32>, DynLayout>,
    c: &mut Tensor<Vec<f32>, DynLayout>,
) {
    let ta = a.tiles(&[TM, TK]).unwrap();
    let tb = b.tiles(&[TK, TN]).unwrap();
    let mut tc = c.tiles_mut(&[TM, TN]).unwrap();
    let (gm, gn) = (tc.grid()[0], tc.grid()[1]);
    let gk = ta.grid()[1];
    for tj in 0..gn {
        for ti in 0..gm {
            let mut ct = tc.tile_mut(&[ti, tj]).unwrap();
            let [m, n] = ct.dims()[..] else {
                unreachable!()
            };
            ct.fill(0.0);
            for tk in 0..gk {
                let (at, bt) = (ta.tile(&[ti, tk]).unwrap(), tb.tile(&[tk, tj]).unwrap());
                let k = at.dims()[1];
                for i in 0..m {
                    for kk in 0..k {
                        let x = at[[i, kk]];
                        for j in 0..n {
                            ct[[i, j]] += x * bt[[kk, j]];
                        }
                    }
                }
            }
        }
    }
}

/// The tile kernel of BENCHMARKS.md on static tiles.
#[inline(never)]
fn count_static(a: &[f32], c: &mut [f32], m: usize, n: usize, ld: isize) {
    let ta = Tensor::new(a, layout!((m, n) : (1, ld))).unwrap();
    let mut tc = Tensor::new(c, layout!((m, n) : (1, ld))).unwrap();
    for tj in 0..n / 8 {
        for ti in 0..m / 16 {
            let at = ta.local_tile::<16, 8>((ti, tj)).unwrap();
            let mut ct = tc.local_tile_mut::<16, 8>((ti, tj)).unwrap();
            for j in 0..8i64 {
                for i in 0..16i64 {
                    ct[(i, j)] += 2.0 * at[(i, j)];
                }
            }
        }
    }
}

/// The same kernel through `zipped_divide_static::<16, 8>` of the typed mixed layout: the tile
/// mode is typed `(Int<16>, Int<8>) : (Int<1>, i64)`, so its offsets fold to constants plus a
/// multiple of `ld`; the rest mode (run time) gives each tile's base. Plain slice indexing.
#[inline(never)]
fn count_divide(a: &[f32], c: &mut [f32], m: usize, n: usize, ld: isize) {
    let z = layout!((m, n) : (1, ld))
        .zipped_divide_static::<16, 8>()
        .unwrap();
    let tile = layout::Layout::new(z.shape().0, z.stride().0);
    let rest = layout::Layout::new(z.shape().1, z.stride().1);
    // the rest mode's extents: the grid, in the layouts' i64 (the algebra's integers)
    let (gm, gn) = rest.shape();
    for tj in 0..gn {
        for ti in 0..gm {
            let base = rest.offset((ti, tj));
            for j in 0..8i64 {
                for i in 0..16i64 {
                    let o = (base + tile.offset((i, j))) as usize;
                    c[o] += 2.0 * a[o];
                }
            }
        }
    }
}

/// The same kernel through `composition_static::<16, 8>`: the composition of the typed mixed
/// layout with the static shape tiler is typed `(Int<16>, Int<8>) : (Int<1>, i64)`, so its
/// offsets fold to constants plus a multiple of `ld`; each tile's base is `16·ti + 8·tj·ld`.
#[inline(never)]
fn count_compose(a: &[f32], c: &mut [f32], m: usize, n: usize, ld: isize) {
    let tile = layout!((m, n) : (1, ld))
        .composition_static::<16, 8>()
        .unwrap();
    // the tile's run-time stride, in the layouts' i64 (the algebra's integers)
    let ld = tile.stride().1;
    for tj in 0..(n / 8) as i64 {
        for ti in 0..(m / 16) as i64 {
            let base = 16 * ti + 8 * tj * ld;
            for j in 0..8i64 {
                for i in 0..16i64 {
                    let o = (base + tile.offset((i, j))) as usize;
                    c[o] += 2.0 * a[o];
                }
            }
        }
    }
}

/// The same kernel on typed flat tiles (`Tiles::tile2`) of a `DynLayout` tensor planned once.
#[inline(never)]
fn count_plan2(a: &[f32], c: &mut [f32], m: usize, n: usize, ld: isize) {
    let l = DynLayout::strided(&[m, n], &[1, ld]).unwrap();
    let ta = Tensor::new(a, l).unwrap();
    let mut tc = Tensor::new(c, l).unwrap();
    let pa = ta.tiles(&[16, 8]).unwrap();
    let mut pc = tc.tiles_mut(&[16, 8]).unwrap();
    for tj in 0..n / 8 {
        for ti in 0..m / 16 {
            let at = pa.tile2((ti, tj)).unwrap();
            let mut ct = pc.tile2_mut((ti, tj)).unwrap();
            for j in 0..8i64 {
                for i in 0..16i64 {
                    ct[(i, j)] += 2.0 * at[(i, j)];
                }
            }
        }
    }
}

/// The same kernel, each tile built by the algebra (`DynLayout::local_tile`) and checked as a
/// new tensor: the way before `Tensor::tiles`.
#[inline(never)]
fn count_algebra(a: &[f32], c: &mut [f32], m: usize, n: usize, ld: isize) {
    let l = DynLayout::strided(&[m, n], &[1, ld]).unwrap();
    let tiler: layout::Tile = "[16,8]".parse().unwrap();
    let ta = Tensor::new(a, l).unwrap();
    let mut tc = Tensor::new(c, l).unwrap();
    for tj in 0..n / 8 {
        for ti in 0..m / 16 {
            let coord = layout::DynTuple::from_slice(&[ti as i64, tj as i64]).unwrap();
            let (tile, off) = l.local_tile(&tiler, &coord).unwrap();
            // the algebra's offset (an i64, signed in CuTe) as a buffer position
            let off = usize::try_from(off).unwrap();
            let at = Tensor::with_offset(ta.as_slice(), tile, off).unwrap();
            let mut ct = Tensor::with_offset(tc.as_mut_slice(), tile, off).unwrap();
            for j in 0..8i64 {
                for i in 0..16i64 {
                    ct[[i, j]] += 2.0 * at[[i, j]];
                }
            }
        }
    }
}

/// The same kernel on tiles of a `DynLayout` tensor planned once.
#[inline(never)]
fn count_plan(a: &[f32], c: &mut [f32], m: usize, n: usize, ld: isize) {
    let l = DynLayout::strided(&[m, n], &[1, ld]).unwrap();
    let ta = Tensor::new(a, l).unwrap();
    let mut tc = Tensor::new(c, l).unwrap();
    let pa = ta.tiles(&[16, 8]).unwrap();
    let mut pc = tc.tiles_mut(&[16, 8]).unwrap();
    for tj in 0..n / 8 {
        for ti in 0..m / 16 {
            let at = pa.tile(&[ti, tj]).unwrap();
            let mut ct = pc.tile_mut(&[ti, tj]).unwrap();
            for j in 0..8i64 {
                for i in 0..16i64 {
                    ct[[i, j]] += 2.0 * at[[i, j]];
                }
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("count") {
        let which = args.get(1).map_or("plan", String::as_str);
        let reps: usize = args.get(2).map_or(10, |r| r.parse().unwrap());
        let (m, n, ld) = (
            black_box(512usize),
            black_box(512usize),
            black_box(520usize),
        );
        let a: Vec<f32> = (0..ld * n).map(|i| (i % 7) as f32).collect();
        let mut c = vec![0f32; ld * n];
        let ld = ld.cast_signed(); // a stride
        for _ in 0..reps {
            match which {
                "static" => count_static(&a, &mut c, m, n, ld),
                "plan2" => count_plan2(&a, &mut c, m, n, ld),
                "divide" => count_divide(&a, &mut c, m, n, ld),
                "compose" => count_compose(&a, &mut c, m, n, ld),
                "algebra" => count_algebra(&a, &mut c, m, n, ld),
                _ => count_plan(&a, &mut c, m, n, ld),
            }
        }
        black_box(&c);
        return;
    }

    let (m, n, k) = (100usize, 60usize, 70usize);
    let a = Tensor::from_fn(&[m, k], |i| ((i * 7) % 11) as f32 - 5.0).unwrap();
    let b = Tensor::from_fn(&[k, n], |i| ((i * 5) % 13) as f32 - 6.0).unwrap();
    let mut want = Tensor::from_vec(vec![0f32; m * n], &[m, n]).unwrap();
    for i in 0..m {
        for j in 0..n {
            want[[i, j]] = (0..k).map(|kk| a[[i, kk]] * b[[kk, j]]).sum();
        }
    }
    let mut c1 = Tensor::from_vec(vec![f32::NAN; m * n], &[m, n]).unwrap();
    gemm_predicated(&a, &b, &mut c1);
    let mut c2 = Tensor::from_vec(vec![f32::NAN; m * n], &[m, n]).unwrap();
    gemm_residue(&a, &b, &mut c2);
    assert!(c1.iter().eq(want.iter()), "predicated tiles");
    assert!(c2.iter().eq(want.iter()), "residue tiles");
    let t = c1.tiles(&[TM, TN]).unwrap();
    println!(
        "C = A·B for {m}×{k} · {k}×{n} in {TM}×{TN}×{TK} tiles: grid {:?}, corner tile {:?} of {:?}; both edge forms agree with the triple loop",
        t.grid(),
        t.predicated(&[3, 1]).unwrap().valid_extents(),
        t.tile_extents(),
    );
}
