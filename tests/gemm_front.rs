//! The GEMM front's rules hold at every public entry and on every route: α = 0 never reads A or
//! B (NaN there does not reach C), β = 0 never reads C (NaN there does not leak), an
//! unavailable instruction set is refused whatever α is, empty and k = 0 products follow BLAS.
//! Routes are forced by shape and `Packing`: matrix × vector (m = 1, n = 1), unpacked small
//! products (`Packing::Never` / `Auto`), the blocked engine (`Packing::Always`), mapped operands
//! (NZ), static layouts.

use half::{bf16, f16};
use layout::gemm::{
    self, GemmError, Isa, MatMut, MatRef, Options, PackedB, Packing, Pair, gemm_packed, gemm_quant,
    gemm_with,
};
use layout::named::{make_nz_layout, make_zn_layout};
use layout::packed::quantize_q8_0;
use layout::{DynLayout, Int, Layout, Tensor};

/// Every instruction set, available or not.
const ALL: [Isa; 3] = [Isa::Portable, Isa::Avx2, Isa::Avx512];

/// The shapes that reach each route: (m, k, n).
const SHAPES: [(usize, usize, usize); 6] = [
    (1, 7, 9),    // matrix × vector, row vector
    (9, 7, 1),    // matrix × vector, column vector
    (8, 8, 8),    // small: unpacked
    (5, 3, 4),    // dot tiles
    (37, 29, 23), // edges everywhere
    (3, 0, 4),    // k = 0
];

const PACKINGS: [Packing; 3] = [Packing::Auto, Packing::Never, Packing::Always];

/// A column-major m × n matrix of small integers, deterministic.
fn ints(len: usize, seed: u32) -> Vec<i32> {
    let mut s = seed.wrapping_mul(2_654_435_761).max(1);
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s % 7) as i32 - 3
        })
        .collect()
}

/// `α·A·B + β·C` by definition (column-major, integer-valued data: exact in f32).
#[allow(clippy::too_many_arguments)]
fn naive(
    m: usize,
    k: usize,
    n: usize,
    alpha: f64,
    a: &[f64],
    b: &[f64],
    beta: f64,
    c: &[f64],
) -> Vec<f64> {
    let mut out = vec![0.0; m * n];
    for j in 0..n {
        for i in 0..m {
            let s: f64 = (0..k).map(|p| a[i + p * m] * b[p + j * k]).sum();
            out[i + j * m] = alpha * s
                + if beta == 0.0 {
                    0.0
                } else {
                    beta * c[i + j * m]
                };
        }
    }
    out
}

/// One strided call of a float-like pair: A, B, C column-major; returns C or the error.
fn call<A: Pair<A> + Copy>(
    opts: Options,
    (m, k, n): (usize, usize, usize),
    alpha: A::Out,
    a: &[A],
    b: &[A],
    beta: A::Out,
    c: &mut [A::Out],
) -> Result<(), GemmError> {
    gemm_with(
        opts,
        alpha,
        MatRef {
            data: a,
            rows: m,
            cols: k,
            row_stride: 1,
            col_stride: m as isize,
        },
        MatRef {
            data: b,
            rows: k,
            cols: n,
            row_stride: 1,
            col_stride: k as isize,
        },
        beta,
        MatMut {
            data: c,
            rows: m,
            cols: n,
            row_stride: 1,
            col_stride: m.max(1) as isize,
        },
    )
}

/// The rules for one float pair on every instruction set, route and packing.
fn rules_for<A: Pair<A, Out = O> + Copy, O: Copy + PartialEq + core::fmt::Debug + Into<f64>>(
    of: impl Fn(f64) -> A,
    out_of: impl Fn(f64) -> O,
    nan_in: A,
    nan_out: O,
) {
    for isa in ALL {
        for packing in PACKINGS {
            for threads in [1, 2] {
                let opts = Options {
                    isa,
                    threads,
                    packing,
                };
                for &(m, k, n) in &SHAPES {
                    let a: Vec<f64> = ints(m * k, 1).iter().map(|&x| x as f64).collect();
                    let b: Vec<f64> = ints(k * n, 2).iter().map(|&x| x as f64).collect();
                    let c0: Vec<f64> = ints(m * n, 3).iter().map(|&x| x as f64).collect();
                    let ta: Vec<A> = a.iter().map(|&x| of(x)).collect();
                    let tb: Vec<A> = b.iter().map(|&x| of(x)).collect();
                    let tc: Vec<O> = c0.iter().map(|&x| out_of(x)).collect();
                    // α = 0 with NaN in A and B: C ← β·C, nothing read
                    let nan_a = vec![nan_in; m * k];
                    let nan_b = vec![nan_in; k * n];
                    let mut c = tc.clone();
                    let r = call(
                        opts,
                        (m, k, n),
                        out_of(0.0),
                        &nan_a,
                        &nan_b,
                        out_of(2.0),
                        &mut c,
                    );
                    if !isa.is_available() {
                        assert!(
                            matches!(r, Err(GemmError::IsaUnavailable { .. })),
                            "{isa:?}: α = 0 must not skip the instruction-set check: {r:?}"
                        );
                        assert_eq!(c, tc, "nothing is written on error");
                        continue;
                    }
                    r.unwrap();
                    let want: Vec<O> = c0.iter().map(|&x| out_of(2.0 * x)).collect();
                    assert_eq!(c, want, "α = 0 {opts:?} {m}×{k}×{n}");
                    // β = 0 with NaN in C: C ← α·A·B, C never read
                    let mut c = vec![nan_out; m * n];
                    call(opts, (m, k, n), out_of(1.0), &ta, &tb, out_of(0.0), &mut c).unwrap();
                    let want = naive(m, k, n, 1.0, &a, &b, 0.0, &c0);
                    let got: Vec<f64> = c.iter().map(|&x| x.into()).collect();
                    assert_eq!(got, want, "β = 0 {opts:?} {m}×{k}×{n}");
                    // the full product with both scalars
                    let mut c = tc.clone();
                    call(opts, (m, k, n), out_of(-1.0), &ta, &tb, out_of(3.0), &mut c).unwrap();
                    let want = naive(m, k, n, -1.0, &a, &b, 3.0, &c0);
                    let got: Vec<f64> = c.iter().map(|&x| x.into()).collect();
                    assert_eq!(got, want, "{opts:?} {m}×{k}×{n}");
                }
                // empty products touch nothing, even with an unavailable instruction set refused
                let mut c: Vec<O> = vec![];
                let r = call(
                    opts,
                    (0, 3, 4),
                    out_of(1.0),
                    &[],
                    &[of(1.0); 12],
                    out_of(0.0),
                    &mut c,
                );
                assert_eq!(r.is_ok(), isa.is_available(), "{opts:?} empty");
            }
        }
    }
}

#[test]
fn every_float_pair_follows_the_rules_on_every_route() {
    rules_for::<f32, f32>(|x| x as f32, |x| x as f32, f32::NAN, f32::NAN);
    rules_for::<f64, f64>(|x| x, |x| x, f64::NAN, f64::NAN);
    rules_for::<bf16, f32>(bf16::from_f64, |x| x as f32, bf16::NAN, f32::NAN);
    rules_for::<f16, f32>(f16::from_f64, |x| x as f32, f16::NAN, f32::NAN);
}

#[test]
fn integer_pairs_refuse_unavailable_isas_whatever_alpha() {
    for isa in ALL {
        for alpha in [0, 1] {
            let (a, b) = ([1u8; 6], [1i8; 6]);
            let mut c = [5i32; 4];
            let r = gemm_with(
                isa,
                alpha,
                MatRef {
                    data: &a,
                    rows: 2,
                    cols: 3,
                    row_stride: 3,
                    col_stride: 1,
                },
                MatRef {
                    data: &b,
                    rows: 3,
                    cols: 2,
                    row_stride: 2,
                    col_stride: 1,
                },
                0,
                MatMut {
                    data: &mut c,
                    rows: 2,
                    cols: 2,
                    row_stride: 2,
                    col_stride: 1,
                },
            );
            assert_eq!(r.is_ok(), isa.is_available(), "{isa:?} α = {alpha}: {r:?}");
            let want = if !isa.is_available() {
                5
            } else if alpha == 0 {
                0
            } else {
                3
            };
            assert_eq!(c, [want; 4], "{isa:?} α = {alpha}");
        }
    }
}

/// The tensor entries: strided, mapped (NZ/ZN), swizzle-free static layouts; every pair's α = 0
/// refuses an unavailable instruction set first.
#[test]
fn tensor_entries_follow_the_rules() {
    let l = |s: &str| s.parse::<DynLayout>().unwrap();
    for isa in ALL {
        for alpha in [0.0f32, 1.0] {
            // strided f32
            let a = Tensor::new(vec![f32::NAN; 6], l("(2,3):(3,1)")).unwrap();
            let b = Tensor::new(vec![f32::NAN; 6], l("(3,2):(2,1)")).unwrap();
            let mut c = Tensor::new(vec![4.0f32; 4], l("(2,2):(1,2)")).unwrap();
            let r = gemm::gemm_tensors_with(isa, alpha, &a, &b, 0.5, &mut c);
            if !isa.is_available() {
                assert!(
                    matches!(r, Err(GemmError::IsaUnavailable { .. })),
                    "{isa:?} {alpha}"
                );
                assert_eq!(c.as_slice(), &[4.0; 4]);
                continue;
            }
            r.unwrap();
            if alpha == 0.0 {
                assert_eq!(c.as_slice(), &[2.0; 4], "α = 0 reads neither A nor B");
            }
        }
        // mapped operands (NZ A, ZN B, NZ C), every pair kind
        let a = Tensor::new(
            vec![bf16::from_f32(1.0); 1024],
            make_nz_layout::<bf16>(32, 32).unwrap(),
        )
        .unwrap();
        let b = Tensor::new(
            vec![bf16::from_f32(2.0); 1024],
            make_zn_layout::<bf16>(32, 32).unwrap(),
        )
        .unwrap();
        let mut c =
            Tensor::new(vec![f32::NAN; 1024], make_nz_layout::<f32>(32, 32).unwrap()).unwrap();
        let r = gemm::gemm_tensors_with(isa, 0.0, &a, &b, 0.0, &mut c);
        assert_eq!(r.is_ok(), isa.is_available(), "{isa:?} bf16 α = 0");
        if isa.is_available() {
            assert!(
                c.as_slice().iter().all(|&x| x == 0.0),
                "β = 0 overwrites NaN"
            );
            gemm::gemm_tensors_with(isa, 1.0, &a, &b, 0.0, &mut c).unwrap();
            assert!(c.as_slice().iter().all(|&x| x == 64.0));
        }
        let a = Tensor::new(vec![3u8; 64], l("(8,8):(8,1)")).unwrap();
        let b = Tensor::new(vec![-1i8; 64], l("(8,8):(1,8)")).unwrap();
        let mut c = Tensor::new(vec![7i32; 64], l("(8,8):(8,1)")).unwrap();
        let r = gemm::gemm_tensors_with(isa, 0, &a, &b, 2, &mut c);
        assert_eq!(r.is_ok(), isa.is_available(), "{isa:?} int α = 0");
        if isa.is_available() {
            assert!(c.as_slice().iter().all(|&x| x == 14));
        }
    }
}

/// Static layouts: the constant-shape kernels follow the same rules.
#[test]
fn static_entries_follow_the_rules() {
    type A = Layout<(Int<4>, Int<4>), (Int<1>, Int<4>)>;
    type S = Layout<(Int<16>, Int<16>), (Int<1>, Int<16>)>;
    let (a, b) = ([f32::NAN; 16], [f32::NAN; 16]);
    let mut c = [3.0f32; 16];
    let ta = Tensor::new(&a[..], A::default()).unwrap();
    let tb = Tensor::new(&b[..], A::default()).unwrap();
    let mut tc = Tensor::new(&mut c[..], A::default()).unwrap();
    gemm::gemm_static(0.0, &ta, &tb, 2.0, &mut tc);
    assert_eq!(c, [6.0; 16], "α = 0 reads neither A nor B");
    let a: Vec<f32> = ints(256, 4).iter().map(|&x| x as f32).collect();
    let b: Vec<f32> = ints(256, 5).iter().map(|&x| x as f32).collect();
    let want = naive(
        16,
        16,
        16,
        1.0,
        &a.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        &b.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        0.0,
        &[0.0; 256],
    );
    let mut c = vec![f32::NAN; 256];
    let ta = Tensor::new(&a[..], S::default()).unwrap();
    let tb = Tensor::new(&b[..], S::default()).unwrap();
    let mut tc = Tensor::new(&mut c[..], S::default()).unwrap();
    gemm::gemm_static(1.0, &ta, &tb, 0.0, &mut tc);
    let got: Vec<f64> = c.iter().map(|&x| x as f64).collect();
    assert_eq!(got, want, "β = 0 overwrites NaN in C");
    for isa in ALL {
        let mut c = vec![f32::NAN; 256];
        let mut tc = Tensor::new(&mut c[..], S::default()).unwrap();
        let r = gemm::gemm_tensors_with(isa, 1.0, &ta, &tb, 0.0, &mut tc);
        assert_eq!(r.is_ok(), isa.is_available(), "{isa:?}");
        if isa.is_available() {
            let got: Vec<f64> = c.iter().map(|&x| x as f64).collect();
            assert_eq!(got, want, "{isa:?}");
        }
    }
}

/// Pre-packed and quantized B: the same checks and rules.
#[test]
fn packed_and_quantized_entries_follow_the_rules() {
    let (k, n) = (64, 8);
    let w: Vec<f32> = (0..k * n).map(|i| ((i % 9) as f32) - 4.0).collect();
    let q = quantize_q8_0(k, n, &w).unwrap();
    for isa in ALL {
        for m in [1, 3, 9] {
            for packing in PACKINGS {
                let opts = Options {
                    isa,
                    threads: 1,
                    packing,
                };
                let x = vec![f32::NAN; m * k];
                let mut y = vec![5.0f32; m * n];
                let r = gemm_quant(
                    opts,
                    0.0,
                    MatRef {
                        data: &x,
                        rows: m,
                        cols: k,
                        row_stride: k as isize,
                        col_stride: 1,
                    },
                    &q,
                    0.0,
                    MatMut {
                        data: &mut y,
                        rows: m,
                        cols: n,
                        row_stride: n as isize,
                        col_stride: 1,
                    },
                );
                assert_eq!(r.is_ok(), isa.is_available(), "quant {opts:?}");
                let want = if isa.is_available() { 0.0 } else { 5.0 };
                assert!(y.iter().all(|&v| v == want), "quant α = 0 {opts:?}");
            }
        }
        let b = vec![1.0f32; k * n];
        let bm = MatRef {
            data: &b,
            rows: k,
            cols: n,
            row_stride: n as isize,
            col_stride: 1,
        };
        match PackedB::new(isa, bm) {
            Err(e) => assert!(!isa.is_available(), "{isa:?}: {e}"),
            Ok(pb) => {
                for m in [1, 5] {
                    let x = vec![f32::NAN; m * k];
                    let mut y = vec![f32::NAN; m * n];
                    gemm_packed(
                        isa,
                        0.0,
                        MatRef {
                            data: &x,
                            rows: m,
                            cols: k,
                            row_stride: k as isize,
                            col_stride: 1,
                        },
                        &pb,
                        0.0,
                        MatMut {
                            data: &mut y,
                            rows: m,
                            cols: n,
                            row_stride: n as isize,
                            col_stride: 1,
                        },
                    )
                    .unwrap();
                    assert!(y.iter().all(|&v| v == 0.0), "packed α = 0, β = 0");
                }
            }
        }
    }
}

/// The BLAS-style entries: α = 0 and β = 0 on the slices.
#[test]
fn blas_entries_follow_the_rules() {
    let mut c = [2.0f32; 4];
    gemm::sgemm(
        2,
        2,
        2,
        0.0,
        &[f32::NAN; 4],
        2,
        1,
        &[f32::NAN; 4],
        2,
        1,
        0.5,
        &mut c,
        2,
        1,
    )
    .unwrap();
    assert_eq!(c, [1.0; 4]);
    let mut c = [f64::NAN; 4];
    gemm::dgemm(
        2, 2, 2, 1.0, &[1.0; 4], 2, 1, &[1.0; 4], 2, 1, 0.0, &mut c, 2, 1,
    )
    .unwrap();
    assert_eq!(c, [2.0; 4]);
    let mut c = [f64::NAN; 4];
    gemm::dgemm(2, 0, 2, 1.0, &[], 1, 1, &[], 1, 1, 0.0, &mut c, 2, 1).unwrap();
    assert_eq!(c, [0.0; 4], "k = 0, β = 0");
    let e = gemm::sgemm(
        2,
        2,
        2,
        1.0,
        &[1.0; 3],
        2,
        1,
        &[1.0; 4],
        2,
        1,
        0.0,
        &mut [0.0; 4],
        2,
        1,
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("sgemm"),
        "the message names the entry: {e}"
    );
}
