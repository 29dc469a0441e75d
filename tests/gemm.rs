//! `layout::gemm` against a naive reference: integer-valued inputs so every path's result
//! compares exactly, every instruction set this CPU has, every operand layout (row/column-major,
//! padded, negative and zero strides), α/β ∈ {0, 1, −1, 0.5}, β = 0 with NaN-filled C, and the
//! elements of C's slice outside C left untouched.

mod support;

use layout::gemm::{self, Element, GemmError, Isa, MatMut, MatRef, Options, Packing};
use support::Seeded;

/// A stride pattern for a rows × cols operand.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Col,
    Row,
    Padded,
    NegRows,
    NegBoth,
    ZeroRow,
    ZeroCol,
}

const KINDS: [Kind; 7] = [
    Kind::Col,
    Kind::Row,
    Kind::Padded,
    Kind::NegRows,
    Kind::NegBoth,
    Kind::ZeroRow,
    Kind::ZeroCol,
];
const C_KINDS: [Kind; 5] = [
    Kind::Col,
    Kind::Row,
    Kind::Padded,
    Kind::NegRows,
    Kind::NegBoth,
];

fn strides(kind: Kind, rows: usize, cols: usize) -> (isize, isize) {
    let (r, c) = (rows.max(1) as isize, cols.max(1) as isize);
    match kind {
        Kind::Col => (1, r),
        Kind::Row => (c, 1),
        Kind::Padded => (2, 2 * r + 3),
        Kind::NegRows => (-1, r),
        Kind::NegBoth => (-c, -1),
        Kind::ZeroRow => (0, 1),
        Kind::ZeroCol => (1, 0),
    }
}

/// Index of (i, j) under the crate's convention (lowest address at index 0); and the span.
fn origin_span(rows: usize, cols: usize, rs: isize, cs: isize) -> (isize, usize) {
    if rows == 0 || cols == 0 {
        return (0, 0);
    }
    let rr = (rows as isize - 1) * rs.abs();
    let rc = (cols as isize - 1) * cs.abs();
    let o = if rs < 0 { rr } else { 0 } + if cs < 0 { rc } else { 0 };
    (o, (rr + rc + 1) as usize)
}

struct Mat<T> {
    data: Vec<T>,
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
    origin: isize,
}

impl<T: Element + From<i16>> Mat<T> {
    fn new(rng: &mut Seeded, kind: Kind, rows: usize, cols: usize, slack: usize) -> Self {
        let (rs, cs) = strides(kind, rows, cols);
        let (origin, span) = origin_span(rows, cols, rs, cs);
        let data = (0..span + slack)
            .map(|_| T::from(rng.range(-4, 4) as i16))
            .collect();
        Mat {
            data,
            rows,
            cols,
            rs,
            cs,
            origin,
        }
    }
    fn at(&self, i: usize, j: usize) -> usize {
        (self.origin + i as isize * self.rs + j as isize * self.cs) as usize
    }
    fn get(&self, i: usize, j: usize) -> T {
        self.data[self.at(i, j)]
    }
    fn view(&self) -> MatRef<'_, T> {
        MatRef {
            data: &self.data,
            rows: self.rows,
            cols: self.cols,
            row_stride: self.rs,
            col_stride: self.cs,
        }
    }
}

trait Num: Element + From<i16> + std::fmt::Display {
    fn nan() -> Self;
    fn is_nan(self) -> bool;
    fn from_f64(x: f64) -> Self;
}
impl Num for f32 {
    fn nan() -> Self {
        f32::NAN
    }
    fn is_nan(self) -> bool {
        f32::is_nan(self)
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
}
impl Num for f64 {
    fn nan() -> Self {
        f64::NAN
    }
    fn is_nan(self) -> bool {
        f64::is_nan(self)
    }
    fn from_f64(x: f64) -> Self {
        x
    }
}

#[allow(clippy::too_many_arguments)]
fn case<T: Num>(
    rng: &mut Seeded,
    opts: Options,
    (m, k, n): (usize, usize, usize),
    (ka, kb, kc): (Kind, Kind, Kind),
    alpha: f64,
    beta: f64,
) {
    let (alpha, beta) = (T::from_f64(alpha), T::from_f64(beta));
    let a = Mat::<T>::new(rng, ka, m, k, 0);
    let b = Mat::<T>::new(rng, kb, k, n, 0);
    let mut c = Mat::<T>::new(rng, kc, m, n, 3);
    // every slot of C's slice that is not an element of C is a sentinel; with β = 0, C is NaN
    let sentinel = T::from(1234);
    let mut is_elem = vec![false; c.data.len()];
    for i in 0..m {
        for j in 0..n {
            is_elem[c.at(i, j)] = true;
        }
    }
    for (x, &e) in c.data.iter_mut().zip(&is_elem) {
        if !e {
            *x = sentinel;
        } else if beta == T::ZERO {
            *x = T::nan();
        }
    }
    let mut want = c.data.clone();
    for i in 0..m {
        for j in 0..n {
            let mut s = T::ZERO;
            for p in 0..k {
                s = s + a.get(i, p) * b.get(p, j);
            }
            let at = c.at(i, j);
            want[at] = if beta == T::ZERO {
                alpha * s
            } else {
                alpha * s + beta * c.data[at]
            };
        }
    }
    let (rs, cs) = (c.rs, c.cs);
    gemm::gemm_with(
        opts,
        alpha,
        a.view(),
        b.view(),
        beta,
        MatMut {
            data: &mut c.data,
            rows: m,
            cols: n,
            row_stride: rs,
            col_stride: cs,
        },
    )
    .unwrap();
    for (idx, (&got, &w)) in c.data.iter().zip(&want).enumerate() {
        assert!(
            got == w,
            "{opts:?} {} m={m} k={k} n={n} A {ka:?} B {kb:?} C {kc:?} α={alpha} β={beta}: \
             slot {idx} (element: {}) is {got}, want {w}",
            T::OP,
            is_elem[idx]
        );
        assert!(!got.is_nan());
    }
}

const SCALARS: [f64; 4] = [0.0, 1.0, -1.0, 0.5];

fn shapes() -> Vec<(usize, usize, usize)> {
    vec![
        (0, 0, 0),
        (0, 5, 3),
        (3, 0, 4),
        (4, 5, 0),
        (1, 1, 1),
        (1, 7, 1),
        (1, 9, 37),
        (37, 9, 1),
        (2, 3, 5),
        (7, 11, 13),
        (16, 8, 12),
        (32, 5, 12),
        (33, 17, 13),
        (31, 5, 29),
        (17, 700, 3),  // k ≫ m, n (crosses KC = 256 twice)
        (67, 2, 45),   // k ≪ m, n
        (65, 257, 37), // one full KC block and one of 1
        (401, 3, 29),  // crosses MC for every kernel
        (530, 3, 29),  // crosses MC = 512 rows (AVX-512 f32 on AMD with 1 MiB of L2)
        (3, 2, 4100),  // crosses NC
        (70, 9, 16),   // 16 columns: the narrow tiles where a kernel has them (2 × 8, not 12 + 4)
        (16, 300, 70), // 16 rows, C row-major runs Cᵀ: narrow again, two k blocks
    ]
}

/// Every instruction set this machine has, each with the unpacked path allowed (small problems
/// take it on AVX-512) and with packing forced (the blocked path on the same problems).
fn paths() -> Vec<Options> {
    Isa::available()
        .flat_map(|isa| {
            [Packing::Auto, Packing::Always, Packing::Never].map(|packing| Options {
                isa,
                threads: 1,
                packing,
            })
        })
        .collect()
}

fn sweep<T: Num>(seed: u64) {
    let mut rng = Seeded(seed);
    for isa in paths() {
        for &shape in &shapes() {
            // a few random layouts and scalars per shape, plus column- and row-major C
            for round in 0..6 {
                let ka = KINDS[rng.below(KINDS.len() as u64) as usize];
                let kb = KINDS[rng.below(KINDS.len() as u64) as usize];
                let kc = match round {
                    0 => Kind::Col,
                    1 => Kind::Row,
                    _ => C_KINDS[rng.below(C_KINDS.len() as u64) as usize],
                };
                let alpha = SCALARS[rng.below(4) as usize];
                let beta = SCALARS[(round + rng.below(2) as usize) % 4];
                case::<T>(&mut rng, isa, shape, (ka, kb, kc), alpha, beta);
            }
        }
        // every layout combination and every α, β on one small edge-heavy shape
        for ka in KINDS {
            for kb in KINDS {
                for kc in C_KINDS {
                    let alpha = SCALARS[rng.below(4) as usize];
                    let beta = SCALARS[rng.below(4) as usize];
                    case::<T>(&mut rng, isa, (19, 7, 15), (ka, kb, kc), alpha, beta);
                }
            }
        }
        for alpha in SCALARS {
            for beta in SCALARS {
                let kinds = (Kind::Col, Kind::Row, Kind::Col);
                case::<T>(&mut rng, isa, (40, 30, 28), kinds, alpha, beta);
            }
        }
    }
}

#[test]
fn sgemm_matches_naive_on_every_isa() {
    sweep::<f32>(11);
}

#[test]
fn dgemm_matches_naive_on_every_isa() {
    sweep::<f64>(12);
}

#[test]
fn blas_entry_points() {
    // A 2×3 column-major, B 3×2 row-major, C 2×2 column-major with padding 3
    let a = [1.0f64, 4.0, 2.0, 5.0, 3.0, 6.0];
    let b = [1.0f64, 0.0, 0.0, 1.0, 1.0, 1.0];
    let mut c = [f64::NAN, f64::NAN, -7.0, f64::NAN, f64::NAN];
    gemm::dgemm(2, 3, 2, 1.0, &a, 1, 2, &b, 2, 1, 0.0, &mut c, 1, 3).unwrap();
    assert_eq!(c[..2], [4.0, 10.0]);
    assert_eq!(c[2], -7.0);
    assert_eq!(c[3..], [5.0, 11.0]);
    let a32: Vec<f32> = a.iter().map(|&x| x as f32).collect();
    let b32: Vec<f32> = b.iter().map(|&x| x as f32).collect();
    let mut c32 = [1.0f32; 4];
    gemm::sgemm(2, 3, 2, 2.0, &a32, 1, 2, &b32, 2, 1, -1.0, &mut c32, 2, 1).unwrap();
    assert_eq!(c32, [7.0, 9.0, 19.0, 21.0]);
    // k = 0: C ← β·C, A and B never read (empty slices)
    let mut c = [2.0f32; 4];
    gemm::sgemm(2, 0, 2, 1.0, &[], 1, 1, &[], 1, 1, 0.5, &mut c, 1, 2).unwrap();
    assert_eq!(c, [1.0; 4]);
    let mut c = [f32::NAN; 4];
    gemm::sgemm(2, 0, 2, 1.0, &[], 1, 1, &[], 1, 1, 0.0, &mut c, 1, 2).unwrap();
    assert_eq!(c, [0.0; 4]);
}

#[test]
fn bad_arguments_are_errors_with_numbers() {
    let a = [1.0f32; 6];
    let b = [1.0f32; 6];
    let mut c = [0.0f32; 4];
    // B 3×2 with column stride 4 needs 7 elements, the slice has 6
    let e = gemm::sgemm(2, 3, 2, 1.0, &a, 1, 2, &b, 1, 4, 0.0, &mut c, 1, 2).unwrap_err();
    assert!(
        matches!(
            e,
            GemmError::TooShort {
                needed: 7,
                len: 6,
                ..
            }
        ),
        "{e}"
    );
    let s = e.to_string();
    assert!(
        s.contains("sgemm") && s.contains("B") && s.contains('7') && s.contains('6'),
        "{s}"
    );
    // C too short
    let e = gemm::sgemm(2, 3, 2, 1.0, &a, 1, 2, &b, 1, 3, 0.0, &mut c[..3], 1, 2).unwrap_err();
    assert!(
        matches!(
            e,
            GemmError::TooShort {
                needed: 4,
                len: 3,
                ..
            }
        ),
        "{e}"
    );
    // overlapping C (column stride 1 = row extent·row stride − 1)
    let e = gemm::sgemm(2, 3, 2, 1.0, &a, 1, 2, &b, 1, 3, 0.0, &mut c, 1, 1).unwrap_err();
    assert!(matches!(e, GemmError::OutputOverlaps { .. }), "{e}");
    assert!(e.to_string().contains("column stride 1"), "{e}");
    let e = gemm::sgemm(2, 3, 2, 1.0, &a, 1, 2, &b, 1, 3, 0.0, &mut c, 0, 2).unwrap_err();
    assert!(matches!(e, GemmError::OutputOverlaps { .. }), "{e}");
    // stride overflow, and isize::MIN whose magnitude does not exist
    let e = gemm::dgemm(
        3,
        3,
        1,
        1.0,
        &[0.0; 9],
        isize::MAX / 2,
        1,
        &[0.0; 3],
        1,
        1,
        0.0,
        &mut [0.0; 3],
        1,
        3,
    )
    .unwrap_err();
    assert!(matches!(e, GemmError::StrideOverflow { .. }), "{e}");
    let e = gemm::dgemm(
        2,
        1,
        1,
        1.0,
        &[0.0; 9],
        isize::MIN,
        1,
        &[0.0; 3],
        1,
        1,
        0.0,
        &mut [0.0; 3],
        1,
        3,
    )
    .unwrap_err();
    assert!(matches!(e, GemmError::StrideOverflow { .. }), "{e}");
    // nothing was written by the rejected calls
    assert_eq!(c, [0.0; 4]);
    // shape mismatch through the strided entry point
    let e = gemm::gemm_with(
        Isa::Portable,
        1.0f32,
        MatRef {
            data: &a,
            rows: 2,
            cols: 3,
            row_stride: 1,
            col_stride: 2,
        },
        MatRef {
            data: &b,
            rows: 2,
            cols: 3,
            row_stride: 1,
            col_stride: 2,
        },
        0.0,
        MatMut {
            data: &mut c,
            rows: 2,
            cols: 2,
            row_stride: 1,
            col_stride: 2,
        },
    )
    .unwrap_err();
    assert!(matches!(e, GemmError::ShapeMismatch { .. }), "{e}");
    // an instruction set this CPU lacks
    for isa in Isa::ALL.into_iter().filter(|i| !i.is_available()) {
        let e = gemm::gemm_with(
            isa,
            1.0f32,
            MatRef {
                data: &a,
                rows: 2,
                cols: 3,
                row_stride: 1,
                col_stride: 2,
            },
            MatRef {
                data: &b,
                rows: 3,
                cols: 2,
                row_stride: 1,
                col_stride: 3,
            },
            0.0,
            MatMut {
                data: &mut c,
                rows: 2,
                cols: 2,
                row_stride: 1,
                col_stride: 2,
            },
        )
        .unwrap_err();
        assert!(matches!(e, GemmError::IsaUnavailable { .. }), "{e}");
    }
}

#[test]
fn selected_isa_is_available() {
    assert!(Isa::selected().is_available());
    assert_eq!(Isa::available().next(), Some(Isa::Portable));
}

/// Threads split C at tile boundaries and never k: 1 and 2 (and 3) threads agree bit for bit,
/// also on non-integer data, for both split directions, on the blocked path and on the unpacked
/// one (each forced, so that problems this small are split at all).
#[test]
fn threads_give_identical_results() {
    use gemm::Options;
    let mut rng = Seeded(5);
    for (isa, packing) in Isa::available().flat_map(|i| [(i, Packing::Always), (i, Packing::Never)])
    {
        for &(m, k, n) in &[(150usize, 70usize, 40usize), (40, 70, 150), (97, 300, 61)] {
            let a: Vec<f64> = (0..m * k)
                .map(|_| rng.range(-1000, 1000) as f64 / 7.0)
                .collect();
            let b: Vec<f64> = (0..k * n)
                .map(|_| rng.range(-1000, 1000) as f64 / 3.0)
                .collect();
            let c0: Vec<f64> = (0..m * n).map(|_| rng.range(-9, 9) as f64 / 11.0).collect();
            let mut outs = Vec::new();
            for threads in [1, 2, 3] {
                let mut c = c0.clone();
                gemm::gemm_with(
                    Options {
                        isa,
                        threads,
                        packing,
                    },
                    0.7,
                    MatRef {
                        data: &a,
                        rows: m,
                        cols: k,
                        row_stride: k as isize,
                        col_stride: 1,
                    },
                    MatRef {
                        data: &b,
                        rows: k,
                        cols: n,
                        row_stride: 1,
                        col_stride: k as isize,
                    },
                    0.3,
                    MatMut {
                        data: &mut c,
                        rows: m,
                        cols: n,
                        row_stride: 1,
                        col_stride: m as isize,
                    },
                )
                .unwrap();
                outs.push(c);
            }
            assert!(
                outs[0] == outs[1] && outs[1] == outs[2],
                "{isa:?} {m}×{k}×{n}"
            );
            // and integer data against the reference on two threads
            let ai: Vec<f32> = (0..m * k).map(|_| rng.range(-4, 4) as f32).collect();
            let bi: Vec<f32> = (0..k * n).map(|_| rng.range(-4, 4) as f32).collect();
            let mut c = vec![f32::NAN; m * n];
            let opts = gemm::Options {
                threads: 2,
                ..gemm::Options::default()
            };
            gemm::gemm_with(
                opts,
                1.0,
                gemm::MatRef {
                    data: &ai,
                    rows: m,
                    cols: k,
                    row_stride: 1,
                    col_stride: m as isize,
                },
                gemm::MatRef {
                    data: &bi,
                    rows: k,
                    cols: n,
                    row_stride: n as isize,
                    col_stride: 1,
                },
                0.0,
                gemm::MatMut {
                    data: &mut c,
                    rows: m,
                    cols: n,
                    row_stride: 1,
                    col_stride: m as isize,
                },
            )
            .unwrap();
            for i in 0..m {
                for j in 0..n {
                    let s: f32 = (0..k).map(|p| ai[i + p * m] * bi[p * n + j]).sum();
                    assert_eq!(c[i + j * m], s);
                }
            }
        }
    }
}

/// The tensor entry point agrees with the naive product on nested, padded and non-strided
/// layouts, and rejects operands that are not matrices.
#[test]
fn tensor_entry_point() {
    use layout::{DynLayout, Tensor};
    let dl = |s: &str| s.parse::<DynLayout>().unwrap();
    // A 6×5 with a nested row mode (2,3):(1,2) = one axis of stride 1, padded columns
    let a: Vec<f32> = (0..40).map(|i| ((i * 5) % 7) as f32 - 3.0).collect();
    let la = dl("((2,3),5):((1,2),7)");
    // B 5×4 row-major
    let b: Vec<f32> = (0..20).map(|i| ((i * 3) % 5) as f32 - 2.0).collect();
    let lb = dl("(5,4):(4,1)");
    let mut c = [f32::NAN; 30];
    let lc = dl("(6,4):(1,7)");
    let ta = Tensor::new(&a[..], la).unwrap();
    let tb = Tensor::new(&b[..], lb).unwrap();
    let mut tc = Tensor::new(&mut c[..], lc).unwrap();
    layout::gemm::gemm(2.0, &ta, &tb, 0.0, &mut tc).unwrap();
    for i in 0..6 {
        for j in 0..4 {
            let s: f32 = (0..5).map(|p| a[i + 7 * p] * b[4 * p + j]).sum();
            assert_eq!(tc.as_slice()[i + 7 * j], 2.0 * s, "({i},{j})");
        }
    }
    // rank 3 is not a matrix
    let t3 = Tensor::new(&a[..], dl("(2,3,5):(1,2,6)")).unwrap();
    let e = layout::gemm::gemm(1.0, &t3, &tb, 0.0, &mut tc).unwrap_err();
    assert!(matches!(e, GemmError::NotMatrix { rank: 3, .. }), "{e}");
    // a row mode that is not one stride goes through the layouts' offsets: row r = (r0, r1) is
    // at r0 + 3·r1, column p at 8·p
    let tn = Tensor::new(&a[..], dl("((2,3),5):((1,3),8)")).unwrap();
    layout::gemm::gemm(1.0, &tn, &tb, 0.0, &mut tc).unwrap();
    for i in 0..6 {
        for j in 0..4 {
            let row = i % 2 + 3 * (i / 2);
            let s: f32 = (0..5).map(|p| a[row + 8 * p] * b[4 * p + j]).sum();
            assert_eq!(tc.as_slice()[i + 7 * j], s, "({i},{j})");
        }
    }
    // shapes that do not agree
    let e = layout::gemm::gemm(1.0, &tb, &tb, 0.0, &mut tc).unwrap_err();
    assert!(matches!(e, GemmError::ShapeMismatch { .. }), "{e}");
}

/// B packed once ([`gemm::PackedB`]) multiplies like the unpacked B on every instruction set,
/// shapes around the tile and block sizes, 1 and 2 threads; its packed buffer is a layout of
/// this crate whose tensor, cropped to the logical extents, is B again.
#[test]
fn packed_b_matches_the_reference_and_round_trips() {
    use layout::named::Padded;
    use layout::tensor::Tensor;
    let mut rng = Seeded(77);
    for isa in Isa::available() {
        for &(m, k, n) in &[
            (1, 1, 1),
            (7, 5, 13),
            (33, 300, 25),
            (64, 257, 12),
            (5, 3, 40),
            (1, 300, 70),
            (2, 513, 33),
            (16, 300, 70), // the small-batch shape: 16 columns of Cᵀ, narrow tiles
        ] {
            let a: Vec<f32> = (0..m * k).map(|_| rng.range(-4, 5) as f32).collect();
            let b: Vec<f32> = (0..k * n).map(|_| rng.range(-4, 5) as f32).collect();
            // B row-major (k × n)
            let bview = MatRef {
                data: &b,
                rows: k,
                cols: n,
                row_stride: n as isize,
                col_stride: 1,
            };
            let pb = gemm::PackedB::new(isa, bview).unwrap();
            for (threads, c_row_major) in [(1, false), (2, false), (1, true), (2, true)] {
                let mut c = vec![f32::NAN; m * n];
                let (crs, ccs) = if c_row_major { (n, 1) } else { (1, m) };
                gemm::gemm_packed(
                    Options {
                        isa,
                        threads,
                        packing: Packing::Always,
                    },
                    1.0,
                    MatRef {
                        data: &a,
                        rows: m,
                        cols: k,
                        row_stride: 1,
                        col_stride: m as isize,
                    },
                    &pb,
                    0.0,
                    MatMut {
                        data: &mut c,
                        rows: m,
                        cols: n,
                        row_stride: crs as isize,
                        col_stride: ccs as isize,
                    },
                )
                .unwrap();
                for i in 0..m {
                    for j in 0..n {
                        let s: f32 = (0..k).map(|p| a[i + p * m] * b[p * n + j]).sum();
                        assert_eq!(
                            c[i * crs + j * ccs],
                            s,
                            "{isa:?} {m}×{k}×{n} threads {threads} row-major C {c_row_major} ({i},{j})"
                        );
                    }
                }
            }
            // the packed buffer is a layout: cropped to k × n it is B
            let t = pb.tensor().unwrap();
            let padded = Padded::new(*t.layout(), &[k, n]).unwrap();
            let logical = Tensor::new(pb.as_slice(), padded).unwrap();
            for p in 0..k {
                for j in 0..n {
                    assert_eq!(logical[[p, j]], b[p * n + j]);
                }
            }
        }
    }
    // packed for one instruction set, called with another: an error
    let b = [1.0f32; 4];
    let pb = gemm::PackedB::new(
        Isa::Portable,
        MatRef {
            data: &b,
            rows: 2,
            cols: 2,
            row_stride: 2,
            col_stride: 1,
        },
    )
    .unwrap();
    if let Some(other) = Isa::available().find(|&i| i != Isa::Portable) {
        let mut c = [0.0f32; 4];
        let e = gemm::gemm_packed(
            other,
            1.0,
            MatRef {
                data: &b,
                rows: 2,
                cols: 2,
                row_stride: 2,
                col_stride: 1,
            },
            &pb,
            0.0,
            MatMut {
                data: &mut c,
                rows: 2,
                cols: 2,
                row_stride: 2,
                col_stride: 1,
            },
        )
        .unwrap_err();
        assert!(matches!(e, GemmError::PackedIsaMismatch { .. }), "{e}");
    }
}

/// bf16 and f16 inputs accumulate in f32: on integer values (exact in 16 bits) the result equals
/// the naive f32 product, for any strides.
#[test]
fn half_inputs_accumulate_in_f32() {
    use layout::named::{bf16, f16};
    let mut rng = Seeded(3);
    for &(m, k, n) in &[
        (1, 1, 1),
        (9, 70, 13),
        (40, 33, 3),
        (33, 515, 25),
        (4, 0, 3),
    ] {
        let af: Vec<f32> = (0..m * k).map(|_| rng.range(-8, 9) as f32).collect();
        let bf: Vec<f32> = (0..k * n).map(|_| rng.range(-8, 9) as f32).collect();
        let want: Vec<f32> = (0..m * n)
            .map(|x| {
                let (i, j) = (x / n, x % n);
                (0..k).map(|p| af[i * k + p] * bf[p * n + j]).sum()
            })
            .collect();
        macro_rules! check {
            ($h:ty) => {{
                let a: Vec<$h> = af.iter().map(|&x| <$h>::from_f32(x)).collect();
                let b: Vec<$h> = bf.iter().map(|&x| <$h>::from_f32(x)).collect();
                // every instruction set: on AVX-512 with BF16 the vdpbf16ps kernel takes bf16
                for isa in Isa::available() {
                    let mut c = vec![f32::NAN; m * n];
                    gemm::gemm_with(
                        isa,
                        1.0,
                        MatRef {
                            data: &a,
                            rows: m,
                            cols: k,
                            row_stride: k as isize,
                            col_stride: 1,
                        },
                        MatRef {
                            data: &b,
                            rows: k,
                            cols: n,
                            row_stride: n as isize,
                            col_stride: 1,
                        },
                        0.0,
                        MatMut {
                            data: &mut c,
                            rows: m,
                            cols: n,
                            row_stride: n as isize,
                            col_stride: 1,
                        },
                    )
                    .unwrap();
                    assert_eq!(c, want, "{} {isa:?} {m}×{k}×{n}", stringify!($h));
                }
            }};
        }
        check!(bf16);
        check!(f16);
    }
}

/// β ≠ 0 and a non-unit α through the bf16 kernels (and the converting path elsewhere).
#[test]
fn half_inputs_with_alpha_and_beta() {
    use layout::named::bf16;
    let (m, k, n) = (35usize, 9usize, 14usize);
    let af: Vec<f32> = (0..m * k).map(|x| (x % 7) as f32 - 3.0).collect();
    let bf: Vec<f32> = (0..k * n).map(|x| (x % 5) as f32 - 2.0).collect();
    let a: Vec<bf16> = af.iter().map(|&x| bf16::from_f32(x)).collect();
    let b: Vec<bf16> = bf.iter().map(|&x| bf16::from_f32(x)).collect();
    for isa in Isa::available() {
        let mut c: Vec<f32> = (0..m * n).map(|x| (x % 3) as f32).collect();
        let c0 = c.clone();
        gemm::gemm_with(
            isa,
            2.0,
            MatRef {
                data: &a,
                rows: m,
                cols: k,
                row_stride: 1,
                col_stride: m as isize,
            },
            MatRef {
                data: &b,
                rows: k,
                cols: n,
                row_stride: 1,
                col_stride: k as isize,
            },
            -1.0,
            MatMut {
                data: &mut c,
                rows: m,
                cols: n,
                row_stride: 1,
                col_stride: m as isize,
            },
        )
        .unwrap();
        for i in 0..m {
            for j in 0..n {
                let s: f32 = (0..k).map(|p| af[i + p * m] * bf[p + j * k]).sum();
                assert_eq!(c[i + j * m], 2.0 * s - c0[i + j * m], "{isa:?} ({i},{j})");
            }
        }
    }
}
