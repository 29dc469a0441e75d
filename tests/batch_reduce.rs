//! `gemm::batch_reduce` against the naive sum `α·Σᵢ Σₚ Aᵢ(r, p)·Bᵢ(p, j) + β·C(r, j)` on random
//! batches of strided operands (every orientation, negative and padded strides), on every
//! available instruction set, one and two threads, with the bytes around C checked untouched;
//! and every refused call.

use layout::gemm::{GemmError, Isa, MatMut, MatRef, Options, Packing, batch_reduce};
use proptest::prelude::*;

/// An operand's placement: element (i, j) at `origin + i·rs + j·cs` of a buffer of `len`.
#[derive(Clone, Copy, Debug)]
struct Place {
    rs: isize,
    cs: isize,
    origin: usize,
    len: usize,
}

/// A placement of a `rows × cols` matrix: `kind` picks column-major, row-major (each with a
/// padded leading dimension), negative strides, or a broadcast (stride 0) row.
fn place(rows: usize, cols: usize, kind: u8, pad: usize) -> Place {
    let (r, c) = (rows as isize, cols as isize);
    let (rs, cs) = match kind % 5 {
        0 => (1, r + pad as isize),
        1 => (c + pad as isize, 1),
        2 => (-1, -(r + pad as isize)),
        3 => (-(c + pad as isize), 1),
        _ => (1, 0), // every column the same (inputs only)
    };
    let lo = (r - 1).max(0) * rs.min(0) + (c - 1).max(0) * cs.min(0);
    let hi = (r - 1).max(0) * rs.max(0) + (c - 1).max(0) * cs.max(0);
    let origin = (-lo) as usize + pad;
    Place {
        rs,
        cs,
        origin,
        len: (hi - lo) as usize + 1 + 2 * pad,
    }
}

fn at(p: Place, i: usize, j: usize) -> usize {
    (p.origin as isize + i as isize * p.rs + j as isize * p.cs) as usize
}

/// Small integers (exact sums in f32 and f64) from a seed.
fn values(len: usize, seed: u64) -> Vec<f64> {
    let mut x = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..len)
        .map(|_| {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((x >> 33) % 7) as f64 - 3.0
        })
        .collect()
}

/// One case: `batch` items of m × k by k × n into an m × n C, with operand kinds from `kinds`.
#[derive(Clone, Debug)]
struct Case {
    m: usize,
    k: usize,
    n: usize,
    batch: usize,
    kinds: Vec<(u8, u8)>,
    ckind: u8,
    pad: usize,
    alpha: f64,
    beta: f64,
    seed: u64,
}

/// The element types under test.
trait El: layout::gemm::Element + Copy {
    fn of(x: f64) -> Self;
    fn back(self) -> f64;
}
impl El for f32 {
    fn of(x: f64) -> Self {
        x as f32
    }
    fn back(self) -> f64 {
        self as f64
    }
}
impl El for f64 {
    fn of(x: f64) -> Self {
        x
    }
    fn back(self) -> f64 {
        self
    }
}

/// Runs `case` on `opts` and compares with the naive sum; `Err` names the first difference.
fn check<T: El>(case: &Case, opts: Options) -> Result<(), String> {
    let Case { m, k, n, batch, .. } = *case;
    let mut ops = Vec::new();
    for (t, &(ka, kb)) in case.kinds.iter().enumerate().take(batch) {
        let pa = place(m, k, ka, case.pad);
        let pb = place(k, n, kb, case.pad);
        let a = values(pa.len, case.seed ^ (2 * t as u64 + 1));
        let b = values(pb.len, case.seed ^ (2 * t as u64 + 2) << 20);
        ops.push((pa, a, pb, b));
    }
    // C: never a broadcast
    let pc = place(m, n, case.ckind % 4, case.pad);
    let c0 = values(pc.len, case.seed ^ 0xc0ffee);
    // the naive definition
    let mut want = c0.clone();
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0;
            for (pa, a, pb, b) in &ops {
                for p in 0..k {
                    s += a[at(*pa, i, p)] * b[at(*pb, p, j)];
                }
            }
            let old = c0[at(pc, i, j)];
            let keep = if case.beta == 0.0 {
                0.0
            } else {
                case.beta * old
            };
            want[at(pc, i, j)] = if case.alpha == 0.0 || batch == 0 || k == 0 {
                keep
            } else {
                case.alpha * s + keep
            };
        }
    }
    let conv = |v: &Vec<f64>| v.iter().map(|&x| T::of(x)).collect::<Vec<T>>();
    let data: Vec<(Vec<T>, Vec<T>)> = ops.iter().map(|(_, a, _, b)| (conv(a), conv(b))).collect();
    fn mr<T>(p: Place, d: &[T], rows: usize, cols: usize) -> MatRef<'_, T> {
        MatRef {
            data: &d[(p.origin as isize
                + (rows as isize - 1).max(0) * p.rs.min(0)
                + (cols as isize - 1).max(0) * p.cs.min(0)) as usize..],
            rows,
            cols,
            row_stride: p.rs,
            col_stride: p.cs,
        }
    }
    let av: Vec<MatRef<'_, T>> = ops
        .iter()
        .zip(&data)
        .map(|((pa, ..), (a, _))| mr(*pa, a, m, k))
        .collect();
    let bv: Vec<MatRef<'_, T>> = ops
        .iter()
        .zip(&data)
        .map(|((_, _, pb, _), (_, b))| mr(*pb, b, k, n))
        .collect();
    let mut c = conv(&c0);
    let lo = (pc.origin as isize
        + (m as isize - 1).max(0) * pc.rs.min(0)
        + (n as isize - 1).max(0) * pc.cs.min(0)) as usize;
    let out = MatMut {
        data: &mut c[lo..],
        rows: m,
        cols: n,
        row_stride: pc.rs,
        col_stride: pc.cs,
    };
    batch_reduce(opts, T::of(case.alpha), &av, &bv, T::of(case.beta), out)
        .map_err(|e| format!("{e:?}"))?;
    // every element of the buffer: C's elements as the definition, the rest untouched
    for (idx, (&got, &w)) in c.iter().zip(&want).enumerate() {
        if got.back() != w {
            return Err(format!(
                "{opts:?}: index {idx}: got {}, want {w}",
                got.back()
            ));
        }
    }
    Ok(())
}

fn options() -> Vec<Options> {
    let mut v = Vec::new();
    for isa in Isa::available() {
        for threads in [1, 2] {
            for packing in [Packing::Auto, Packing::Always] {
                v.push(Options {
                    isa,
                    threads,
                    packing,
                });
            }
        }
    }
    v
}

fn cases() -> impl Strategy<Value = Case> {
    (
        (0usize..40, 0usize..20, 0usize..30, 0usize..5),
        proptest::collection::vec((0u8..5, 0u8..5), 5),
        (0u8..4, 0usize..3, 0u64..1 << 40),
        (
            prop_oneof![Just(1.0), Just(0.0), Just(-2.0)],
            prop_oneof![Just(0.0), Just(1.0), Just(0.5)],
        ),
    )
        .prop_map(
            |((m, k, n, batch), kinds, (ckind, pad, seed), (alpha, beta))| Case {
                m,
                k,
                n,
                batch,
                kinds,
                ckind,
                pad,
                alpha,
                beta,
                seed,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn matches_the_naive_sum(case in cases()) {
        for opts in options() {
            check::<f32>(&case, opts).map_err(TestCaseError::fail)?;
            check::<f64>(&case, opts).map_err(TestCaseError::fail)?;
        }
    }
}

/// Every orientation pair on shapes that cover whole tiles, edges of every width and several
/// row blocks, brute force.
#[test]
fn every_orientation_and_edge() {
    let mut seed = 1;
    for (m, k, n) in [
        (1, 1, 1),
        (16, 3, 6),
        (17, 5, 7),
        (33, 9, 13),
        (64, 4, 25),
        (5, 7, 40),
        (70, 300, 3),
    ] {
        for ka in 0..5u8 {
            for kb in 0..5u8 {
                for ckind in 0..4u8 {
                    seed += 1;
                    let case = Case {
                        m,
                        k,
                        n,
                        batch: 3,
                        kinds: vec![(ka, kb), (kb, ka), (ka, ka)],
                        ckind,
                        pad: 1,
                        alpha: 1.0,
                        beta: 0.5,
                        seed,
                    };
                    for isa in Isa::available() {
                        let opts = Options {
                            isa,
                            threads: 2,
                            packing: Packing::Never,
                        };
                        check::<f32>(&case, opts).unwrap();
                        check::<f64>(&case, isa.into()).unwrap();
                    }
                }
            }
        }
    }
}

/// The shapes of the hand-scheduled AVX2 loop (16-row tiles of 4, 5 and 6 columns, B's rows
/// unit stride, k unrolled by four) with every k remainder, no unrolled step at all, and tiles
/// beside it that take the other loops (a masked row edge, a 1–3 column tile), brute force.
#[test]
fn every_unroll_remainder() {
    let mut seed = 100;
    for m in [16, 32, 47] {
        for n in [4, 5, 6, 11, 12, 17] {
            for k in (1..=13).chain([31, 64]) {
                for kinds in [[(0, 0), (0, 0)], [(0, 4), (4, 0)]] {
                    seed += 1;
                    let case = Case {
                        m,
                        k,
                        n,
                        batch: 2,
                        kinds: kinds.to_vec(),
                        ckind: (seed % 4) as u8,
                        pad: (seed % 3) as usize,
                        alpha: 1.0,
                        beta: 0.5,
                        seed,
                    };
                    for isa in Isa::available() {
                        check::<f32>(&case, isa.into()).unwrap();
                    }
                }
            }
        }
    }
}

/// The shapes of the hand-scheduled AVX-512 loop (32-row tiles of 1 to 12 columns, B's rows
/// unit stride, k unrolled by four: every width's loop, as a row splits into tiles of 12 and
/// the rest) with every k remainder, on 32 and 64 rows (whole tiles) and 45 (a masked tile
/// beside, in the Rust loop), every instruction set, one and two threads, brute force.
#[test]
fn every_avx512_tile_width() {
    let mut seed = 500;
    for m in [32, 64, 45] {
        for n in (1..=25).chain([36]) {
            for k in [1, 3, 4, 6, 9, 13] {
                seed += 1;
                let case = Case {
                    m,
                    k,
                    n,
                    batch: 2,
                    kinds: vec![(0, 0), (0, 0)],
                    ckind: (seed % 4) as u8,
                    pad: (seed % 3) as usize,
                    alpha: 1.0,
                    beta: if seed % 2 == 0 { 0.0 } else { -0.5 },
                    seed,
                };
                for isa in Isa::available() {
                    for threads in [1, 2] {
                        let opts = Options {
                            isa,
                            threads,
                            packing: Packing::Never,
                        };
                        check::<f32>(&case, opts).unwrap();
                    }
                }
            }
        }
    }
}

/// A batch large enough to block C's rows (the A items do not fit one L2 block) and to run on
/// two threads under the default packing.
#[test]
fn blocked_rows_and_two_threads() {
    let case = Case {
        m: 200,
        k: 96,
        n: 70,
        batch: 5,
        kinds: vec![(0, 1); 5],
        ckind: 0,
        pad: 0,
        alpha: 1.0,
        beta: 0.0,
        seed: 7,
    };
    for isa in Isa::available() {
        for threads in [1, 2] {
            let opts = Options {
                isa,
                threads,
                packing: Packing::Auto,
            };
            check::<f32>(&case, opts).unwrap();
        }
    }
}

#[test]
fn rules_and_refusals() {
    let a = [1.0f32; 12];
    let m = |d: &'static [f32], r, c| MatRef {
        data: d,
        rows: r,
        cols: c,
        row_stride: 1,
        col_stride: r as isize,
    };
    static ONES: [f32; 12] = [1.0; 12];
    static NANS: [f32; 12] = [f32::NAN; 12];
    let mut c = [7.0f32; 4];
    fn out(c: &mut [f32; 4]) -> MatMut<'_, f32> {
        MatMut {
            data: &mut c[..],
            rows: 2,
            cols: 2,
            row_stride: 1,
            col_stride: 2,
        }
    }
    // batches of different lengths
    let e = batch_reduce(
        Options::default(),
        1.0,
        &[m(&ONES, 2, 3)],
        &[],
        0.0,
        out(&mut c),
    )
    .unwrap_err();
    assert!(
        matches!(e, GemmError::BatchLength { a: 1, b: 0, .. }),
        "{e}"
    );
    assert!(format!("{e:?}").contains("1 matrices"), "{e:?}");
    // one item of another shape
    let e = batch_reduce(
        Options::default(),
        1.0,
        &[m(&ONES, 2, 3), m(&ONES, 2, 2)],
        &[m(&ONES, 3, 2), m(&ONES, 3, 2)],
        0.0,
        out(&mut c),
    )
    .unwrap_err();
    assert!(matches!(e, GemmError::ShapeMismatch { .. }), "{e}");
    // an operand outside its slice
    let short = MatRef {
        data: &a[..5],
        rows: 2,
        cols: 3,
        row_stride: 1,
        col_stride: 2,
    };
    let e = batch_reduce(
        Options::default(),
        1.0,
        &[short],
        &[m(&ONES, 3, 2)],
        0.0,
        out(&mut c),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            GemmError::TooShort {
                needed: 6,
                len: 5,
                ..
            }
        ),
        "{e}"
    );
    // C writing two elements to one place
    let mut cc = [0.0f32; 4];
    let e = batch_reduce(
        Options::default(),
        1.0,
        &[m(&ONES, 2, 3)],
        &[m(&ONES, 3, 2)],
        0.0,
        MatMut {
            data: &mut cc[..],
            rows: 2,
            cols: 2,
            row_stride: 1,
            col_stride: 1,
        },
    )
    .unwrap_err();
    assert!(matches!(e, GemmError::OutputOverlaps { .. }), "{e}");
    assert_eq!(c, [7.0; 4], "nothing written on error");
    // an unavailable instruction set is refused first, whatever α
    for isa in Isa::ALL.into_iter().filter(|i| !i.is_available()) {
        let e = batch_reduce(isa, 0.0, &[], &[], 1.0, out(&mut c)).unwrap_err();
        assert!(matches!(e, GemmError::IsaUnavailable { .. }), "{e}");
    }
    for isa in Isa::available() {
        // α = 0: A and B never read (NaN does not reach C), C ← β·C
        let mut c = [2.0f32; 4];
        batch_reduce(
            isa,
            0.0,
            &[m(&NANS, 2, 3)],
            &[m(&NANS, 3, 2)],
            0.5,
            out(&mut c),
        )
        .unwrap();
        assert_eq!(c, [1.0; 4]);
        // an empty batch: C ← β·C, β = 0 never reads C
        let mut c = [f32::NAN; 4];
        batch_reduce(isa, 1.0, &[], &[], 0.0, out(&mut c)).unwrap();
        assert_eq!(c, [0.0; 4]);
        // β = 0 never reads C
        let mut c = [f32::NAN; 4];
        batch_reduce(
            isa,
            1.0,
            &[m(&ONES, 2, 3); 2],
            &[m(&ONES, 3, 2); 2],
            0.0,
            out(&mut c),
        )
        .unwrap();
        assert_eq!(c, [6.0; 4]);
    }
}
