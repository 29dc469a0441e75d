//! Issue 17, hostile input (third round): each row of the table as a regression test,
//! and the class behind it (α = 0 on every path, every writable C, allocation failures as
//! errors, no wrap-around).

use layout::gemm::{
    self, GemmError, Isa, MatMut, MatRef, Options, PackedB, Packing, gemm_packed, gemm_with,
};
use layout::named::{bf16, f16};
use layout::tensor::Tensor;
use layout::{DynLayout, Layout};

fn dl(s: &str) -> DynLayout {
    s.parse().unwrap()
}

/// Every way a GEMM call can run on this CPU: each available instruction set, each packing
/// rule, one and two threads.
fn every_route() -> Vec<Options> {
    let mut v = Vec::new();
    for isa in Isa::available() {
        for packing in [Packing::Auto, Packing::Always, Packing::Never] {
            for threads in [1, 2] {
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

/// What BLAS's rule gives for α = 0 (or k = 0): β = 0 writes zeros, else β·C.
fn beta_c(beta: f64, c: f64) -> f64 {
    if beta == 0.0 { 0.0 } else { beta * c }
}

macro_rules! alpha_zero_case {
    ($t:ty, $opts:expr, $m:expr, $k:expr, $n:expr, $beta:expr, $poison:expr) => {{
        let (m, k, n): (usize, usize, usize) = ($m, $k, $n);
        let beta: $t = $beta;
        // A and B full of NaN / ∞ (poison), C of NaN where β = 0 (never read) and of known
        // values elsewhere
        let a = vec![$poison as $t; (m * k).max(1)];
        let b = vec![<$t>::INFINITY; (k * n).max(1)];
        let c0: Vec<$t> = (0..m * n)
            .map(|i| {
                if beta == 0.0 {
                    <$t>::NAN
                } else {
                    i as $t - 3.0
                }
            })
            .collect();
        let mut c = c0.clone();
        gemm_with(
            $opts,
            0.0,
            MatRef {
                data: &a,
                rows: m,
                cols: k,
                row_stride: 1,
                col_stride: m.max(1) as isize,
            },
            MatRef {
                data: &b,
                rows: k,
                cols: n,
                row_stride: n.max(1) as isize,
                col_stride: 1,
            },
            beta,
            MatMut {
                data: &mut c,
                rows: m,
                cols: n,
                row_stride: 1,
                col_stride: m.max(1) as isize,
            },
        )
        .unwrap();
        for (x, x0) in c.iter().zip(&c0) {
            let want = beta_c(beta as f64, *x0 as f64) as $t;
            assert!(
                *x == want,
                "{:?} {}×{}×{} β {beta}: got {x}, want {want}",
                $opts,
                m,
                k,
                n
            );
        }
    }};
}

/// Row 1: `sgemm(2,2,2, 0.0, [NaN;4], …, 0.5, [2.0;4])` gave NaN on the AVX-512 unpacked path
/// and `[1.0;4]` elsewhere. BLAS's rule on every instruction set, packing and thread count.
#[test]
fn alpha_zero_skips_the_product_on_every_route() {
    let mut c = [2.0f32; 4];
    gemm::sgemm(
        2,
        2,
        2,
        0.0,
        &[f32::NAN; 4],
        2,
        1,
        &[1.0; 4],
        2,
        1,
        0.5,
        &mut c,
        2,
        1,
    )
    .unwrap();
    assert_eq!(c, [1.0; 4]);
    for opts in every_route() {
        for (m, k, n) in [(2, 2, 2), (1, 1, 1), (33, 7, 13), (70, 300, 50), (5, 0, 4)] {
            for beta in [0.0, 0.5, 1.0, -2.0] {
                alpha_zero_case!(f32, opts, m, k, n, beta as f32, f32::NAN);
                alpha_zero_case!(f64, opts, m, k, n, beta, f64::NEG_INFINITY);
            }
        }
        // the reproducer, on this route
        let mut c = [2.0f32; 4];
        gemm_with(
            opts,
            0.0,
            MatRef {
                data: &[f32::NAN; 4],
                rows: 2,
                cols: 2,
                row_stride: 2,
                col_stride: 1,
            },
            MatRef {
                data: &[1.0; 4],
                rows: 2,
                cols: 2,
                row_stride: 2,
                col_stride: 1,
            },
            0.5,
            MatMut {
                data: &mut c,
                rows: 2,
                cols: 2,
                row_stride: 2,
                col_stride: 1,
            },
        )
        .unwrap();
        assert_eq!(c, [1.0; 4], "{opts:?}");
    }
}

/// α = 0 through the 16-bit entry and the pre-packed entry, on every instruction set.
#[test]
fn alpha_zero_in_gemm_half_and_gemm_packed() {
    for isa in Isa::available() {
        for beta in [0.0f32, 0.5, 1.0] {
            let c0 = [f32::NAN, 4.0, -6.0, 8.0];
            let want: Vec<f32> = c0
                .iter()
                .map(|&x| if beta == 0.0 { 0.0 } else { beta * x })
                .collect();
            let same = |c: &[f32]| {
                c.iter()
                    .zip(&want)
                    .all(|(x, y)| x == y || (x.is_nan() && y.is_nan()))
            };
            let mut c = c0;
            let a = [bf16::NAN; 4];
            gemm_with(
                isa,
                0.0,
                MatRef {
                    data: &a,
                    rows: 2,
                    cols: 2,
                    row_stride: 2,
                    col_stride: 1,
                },
                MatRef {
                    data: &[bf16::INFINITY; 4],
                    rows: 2,
                    cols: 2,
                    row_stride: 2,
                    col_stride: 1,
                },
                beta,
                MatMut {
                    data: &mut c,
                    rows: 2,
                    cols: 2,
                    row_stride: 2,
                    col_stride: 1,
                },
            )
            .unwrap();
            assert!(same(&c), "bf16 {isa:?} β {beta}: {c:?}");
            let mut c = c0;
            gemm_with(
                isa,
                0.0,
                MatRef {
                    data: &[f16::NAN; 4],
                    rows: 2,
                    cols: 2,
                    row_stride: 2,
                    col_stride: 1,
                },
                MatRef {
                    data: &[f16::INFINITY; 4],
                    rows: 2,
                    cols: 2,
                    row_stride: 2,
                    col_stride: 1,
                },
                beta,
                MatMut {
                    data: &mut c,
                    rows: 2,
                    cols: 2,
                    row_stride: 2,
                    col_stride: 1,
                },
            )
            .unwrap();
            assert!(same(&c), "f16 {isa:?} β {beta}: {c:?}");
            let b = [f32::INFINITY; 4];
            let pb = PackedB::new(
                isa,
                MatRef {
                    data: &b,
                    rows: 2,
                    cols: 2,
                    row_stride: 2,
                    col_stride: 1,
                },
            )
            .unwrap();
            for threads in [1, 2] {
                let mut c = c0;
                gemm_packed(
                    Options {
                        isa,
                        threads,
                        packing: Packing::Auto,
                    },
                    0.0,
                    MatRef {
                        data: &[f32::NAN; 4],
                        rows: 2,
                        cols: 2,
                        row_stride: 2,
                        col_stride: 1,
                    },
                    &pb,
                    beta,
                    MatMut {
                        data: &mut c,
                        rows: 2,
                        cols: 2,
                        row_stride: 2,
                        col_stride: 1,
                    },
                )
                .unwrap();
                assert!(same(&c), "packed {isa:?} β {beta}: {c:?}");
            }
        }
    }
}

/// α = 0 through the tensor entries, on each of their paths: all-static tiny (table kernel),
/// all-static strided (unpacked tiles), run-time strided (engine), non-strided (gathered).
#[test]
fn alpha_zero_in_the_tensor_entries() {
    fn check(c: &[f32], c0: &[f32], beta: f32, what: &str) {
        for (x, x0) in c.iter().zip(c0) {
            let want = if beta == 0.0 { 0.0 } else { beta * x0 };
            assert_eq!(*x, want, "{what} β {beta}");
        }
    }
    for beta in [0.0f32, 0.5, 1.0] {
        let c0: Vec<f32> = (0..64)
            .map(|i| if beta == 0.0 { f32::NAN } else { i as f32 })
            .collect();
        let nan = vec![f32::NAN; 64];
        // static, tiny
        type A2 = Layout![(2,2):(2,1)];
        let mut c = c0[..4].to_vec();
        let ta = Tensor::new(&nan[..4], A2::default()).unwrap();
        let tb = Tensor::new(&nan[..4], A2::default()).unwrap();
        let mut tc = Tensor::new(&mut c[..], A2::default()).unwrap();
        gemm::gemm_static(0.0, &ta, &tb, beta, &mut tc);
        check(&c, &c0[..4], beta, "static tiny");
        // static, strided and larger (the unpacked tiles on AVX-512)
        type A8 = Layout![(8,8):(1,8)];
        let mut c = c0.clone();
        let ta = Tensor::new(&nan[..], A8::default()).unwrap();
        let tb = Tensor::new(&nan[..], A8::default()).unwrap();
        let mut tc = Tensor::new(&mut c[..], A8::default()).unwrap();
        gemm::gemm_static(0.0, &ta, &tb, beta, &mut tc);
        check(&c, &c0, beta, "static 8×8");
        // run-time strided and swizzled-free hierarchical (gathered)
        for (la, lc) in [
            ("(8,8):(8,1)", "(8,8):(1,8)"),
            ("((2,4),8):((1,16),2)", "((4,2),(2,4)):((1,32),(4,8))"),
        ] {
            let mut c = c0.clone();
            let ta = Tensor::new(&nan[..], dl(la)).unwrap();
            let tb = Tensor::new(&nan[..], dl(la)).unwrap();
            let mut tc = Tensor::new(&mut c[..], dl(lc)).unwrap();
            gemm::gemm(0.0, &ta, &tb, beta, &mut tc).unwrap();
            check(&c, &c0, beta, lc);
            // 16-bit inputs
            let h = [bf16::NAN; 64];
            let mut c = c0.clone();
            let ta = Tensor::new(&h[..], dl(la)).unwrap();
            let tb = Tensor::new(&h[..], dl(la)).unwrap();
            let mut tc = Tensor::new(&mut c[..], dl(lc)).unwrap();
            gemm::gemm(0.0, &ta, &tb, beta, &mut tc).unwrap();
            check(&c, &c0, beta, lc);
        }
        // shapes are still checked with α = 0
        let mut c = c0.clone();
        let ta = Tensor::new(&nan[..], dl("(8,4):(4,1)")).unwrap();
        let tb = Tensor::new(&nan[..], dl("(8,8):(8,1)")).unwrap();
        let mut tc = Tensor::new(&mut c[..], dl("(8,8):(1,8)")).unwrap();
        let e = gemm::gemm(0.0, &ta, &tb, beta, &mut tc).unwrap_err();
        assert!(matches!(e, GemmError::ShapeMismatch { .. }), "{e}");
    }
}

/// Row 2: `gemm_static` with the injective C `(2,16):(2,3)` panicked (the output check was
/// stricter than injectivity).
#[test]
fn gemm_static_accepts_an_interleaved_c() {
    type A = Layout![(2,32):(1,2)];
    type B = Layout![(32,16):(1,32)];
    type C = Layout![(2,16):(2,3)];
    let a: Vec<f32> = (0..64).map(|x| (x % 7) as f32 - 3.0).collect();
    let b: Vec<f32> = (0..512).map(|x| (x % 5) as f32 - 2.0).collect();
    let mut c = [1.0f32; 48];
    let ta = Tensor::new(&a[..], A::default()).unwrap();
    let tb = Tensor::new(&b[..], B::default()).unwrap();
    let mut tc = Tensor::new(&mut c[..], C::default()).unwrap();
    gemm::gemm_static(1.0, &ta, &tb, 2.0, &mut tc);
    for i in 0..2 {
        for j in 0..16 {
            let s: f32 = (0..32).map(|p| a[i + 2 * p] * b[p + 32 * j]).sum();
            assert_eq!(c[2 * i + 3 * j], s + 2.0, "({i}, {j})");
        }
    }
}

/// The class behind row 2: every rank-2 strided C that `Tensor::new` accepts as writable is
/// accepted by the tensor entry and by the strided entry, on every route, and the result is
/// the naive product.
#[test]
fn every_writable_strided_c_is_accepted() {
    let (a, b): (Vec<f32>, Vec<f32>) = (
        (0..12).map(|x| (x % 5) as f32 - 2.0).collect(),
        (0..12).map(|x| (x % 3) as f32 - 1.0).collect(),
    );
    let mut accepted = 0;
    for m in 1..=4usize {
        for n in 1..=4usize {
            for rs in 0..=6i64 {
                for cs in 0..=6i64 {
                    let lc = dl(&format!("({m},{n}):({rs},{cs})"));
                    let len = ((m - 1) as i64 * rs + (n - 1) as i64 * cs + 1) as usize;
                    let mut c = vec![0.5f32; len];
                    let Ok(mut tc) = Tensor::new(&mut c[..], lc) else {
                        continue;
                    };
                    accepted += 1;
                    let k = 3;
                    let ta = Tensor::new(&a[..], dl(&format!("({m},{k}):({k},1)"))).unwrap();
                    let tb = Tensor::new(&b[..], dl(&format!("({k},{n}):(1,{k})"))).unwrap();
                    gemm::gemm(1.0, &ta, &tb, 2.0, &mut tc).unwrap();
                    let want = |i: usize, j: usize| -> f32 {
                        (0..k).map(|p| a[i * k + p] * b[p + j * k]).sum::<f32>() + 1.0
                    };
                    for i in 0..m {
                        for j in 0..n {
                            let at = i * rs as usize + j * cs as usize;
                            assert_eq!(c[at], want(i, j), "C {lc} ({i}, {j})");
                        }
                    }
                    for opts in every_route() {
                        let mut c = vec![0.5f32; len];
                        gemm_with(
                            opts,
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
                                row_stride: 1,
                                col_stride: k as isize,
                            },
                            2.0,
                            MatMut {
                                data: &mut c,
                                rows: m,
                                cols: n,
                                row_stride: rs as isize,
                                col_stride: cs as isize,
                            },
                        )
                        .unwrap();
                        for i in 0..m {
                            for j in 0..n {
                                let at = i * rs as usize + j * cs as usize;
                                assert_eq!(c[at], want(i, j), "{opts:?} C {lc} ({i}, {j})");
                            }
                        }
                    }
                }
            }
        }
    }
    assert!(accepted > 100, "{accepted}");
}

/// Row 4: bf16 with k = 2^40 (zero strides) aborted on an allocation of 2^46 bytes. The 16-bit
/// paths now widen inside packing (buffers bounded by the block sizes, never by k), so a long k
/// simply runs; here k = 2^20 ones (exact in f32) on every instruction set and both types.
#[test]
fn gemm_half_long_k_runs_without_k_sized_buffers() {
    fn one<H: layout::gemm::Half + layout::gemm::Pair<H, Out = f32>>(
        isa: Isa,
        x: H,
        k: usize,
    ) -> f32 {
        let mut c = [f32::NAN];
        let one = [x];
        let v = |rows, cols| MatRef {
            data: &one,
            rows,
            cols,
            row_stride: 0,
            col_stride: 0,
        };
        gemm_with(
            isa,
            1.0,
            v(1, k),
            v(k, 1),
            0.0,
            MatMut {
                data: &mut c,
                rows: 1,
                cols: 1,
                row_stride: 1,
                col_stride: 1,
            },
        )
        .unwrap();
        c[0]
    }
    let k = 1usize << 20;
    for isa in Isa::available() {
        assert_eq!(one(isa, bf16::ONE, k), k as f32, "{isa:?} bf16");
        assert_eq!(one(isa, f16::ONE, k), k as f32, "{isa:?} f16");
    }
}

/// Row 5: f16 with A 2^33 × 2^33 (zero strides) and n = 0 overflowed `rows · cols`; an empty
/// product returns at once, and α = 0 with a huge k is C ← β·C without reading A or B.
#[test]
fn gemm_half_empty_and_overflowing_sizes() {
    let big = 1usize << 33;
    for isa in Isa::available() {
        gemm_with(
            isa,
            1.0,
            MatRef {
                data: &[f16::ONE],
                rows: big,
                cols: big,
                row_stride: 0,
                col_stride: 0,
            },
            MatRef {
                data: &[f16::ONE],
                rows: big,
                cols: 0,
                row_stride: 0,
                col_stride: 0,
            },
            1.0,
            MatMut {
                data: &mut [],
                rows: big,
                cols: 0,
                row_stride: 1,
                col_stride: 1,
            },
        )
        .unwrap();
        // (a huge k with zero strides is no longer an allocation: the 16-bit types widen
        // inside packing; `gemm_half_long_k_runs_without_k_sized_buffers`)
        let huge = 1usize << 40;
        // α = 0 with the same huge k: C ← β·C at once, no buffer
        let mut c = [3.0f32];
        gemm_with(
            isa,
            0.0,
            MatRef {
                data: &[f16::NAN],
                rows: 1,
                cols: huge,
                row_stride: 0,
                col_stride: 0,
            },
            MatRef {
                data: &[f16::NAN],
                rows: huge,
                cols: 1,
                row_stride: 0,
                col_stride: 0,
            },
            2.0,
            MatMut {
                data: &mut c,
                rows: 1,
                cols: 1,
                row_stride: 1,
                col_stride: 1,
            },
        )
        .unwrap();
        assert_eq!(c, [6.0]);
    }
    // the packed entry: k·n beyond usize is an error too
    let e = PackedB::new(
        Isa::Portable,
        MatRef {
            data: &[1.0f32],
            rows: 1 << 40,
            cols: 1 << 40,
            row_stride: 0,
            col_stride: 0,
        },
    )
    .unwrap_err();
    assert!(matches!(e, GemmError::Allocation { .. }), "{e}");
}

/// Row 3: `pad_from` allocated the padded buffer (2^62 elements) before checking the source's
/// shape, and aborted on capacity overflow; a correctly shaped broadcast source aborted too.
#[test]
fn pad_from_checks_the_shape_first_and_fails_to_allocate_with_an_error() {
    use layout::named::{Padded, make_nz_layout};
    use layout::tensor::TensorError;
    let big = (1usize << 31) - 1;
    let padded = Padded::new(make_nz_layout::<f16>(1 << 31, 1 << 31).unwrap(), &[big; 2]).unwrap();
    let wrong = Tensor::from_vec(vec![1u16; 4], &[2, 2]).unwrap();
    let e = padded.pad_from(&wrong, 0).unwrap_err();
    assert!(matches!(e, TensorError::ShapeMismatch { .. }), "{e}");
    let one = Tensor::from_vec(vec![1u16], &[1, 1]).unwrap();
    let src = one.broadcast_to(&[big; 2]).unwrap();
    let e = padded.pad_from(&src, 0).unwrap_err();
    match e {
        TensorError::OutputAllocation {
            elements, bytes, ..
        } => {
            assert_eq!(elements, 1 << 62);
            assert_eq!(bytes, i64::MAX, "2^63 bytes saturate");
        }
        e => panic!("{e}"),
    }
    // crop_to_nd of a broadcast source of the padded extents: the same
    let psrc = one.broadcast_to(&[1 << 31; 2]).unwrap();
    let e = padded.crop_to_nd(&psrc).unwrap_err();
    assert!(matches!(e, TensorError::OutputAllocation { .. }), "{e}");
}

/// Row 6: `PackedVec::zeroed` of 2^58 elements aborted on allocation.
#[test]
fn packed_vec_zeroed_fails_to_allocate_with_an_error() {
    use layout::packed::{PackedError, PackedFormat, PackedVec};
    let len = (i64::MAX as usize) / 32 / 8 * 8;
    let e = PackedVec::zeroed(PackedFormat::gptq(), len).unwrap_err();
    assert_eq!(
        e,
        PackedError::Allocation {
            op: "zeroed",
            bytes: len / 2
        }
    );
    assert!(e.to_string().contains(&format!("{} bytes", len / 2)), "{e}");
    // from_values goes through zeroed: a small one still works
    assert_eq!(PackedVec::zeroed(PackedFormat::gptq(), 9).unwrap().len(), 9);
}

/// Row 7: a zero offset of `i32::MIN` wrapped (release: −2147483600 instead of +2147483600;
/// debug: an overflow panic). `q − (z + offset)` is now exact for every `i32` offset; this
/// test runs in both profiles (`cargo test --release --test hostile3`).
#[test]
fn dequantize_is_exact_for_every_zero_offset() {
    use layout::packed::{GroupQuant, PackedFormat, PackedVec, dequantize};
    for offset in [i32::MIN, i32::MIN + 1, -1, 0, 1, i32::MAX - 15, i32::MAX] {
        let q = GroupQuant::new(dl("(8,8):(8,1)"), 8, offset).unwrap();
        let w = PackedVec::from_values(PackedFormat::gptq(), &[15; 64]).unwrap();
        let z = PackedVec::from_values(PackedFormat::gptq(), &[15; 8]).unwrap();
        let out = dequantize(&w, &[1.0; 8], &z, &q).unwrap();
        // 15 − (15 + offset) = −offset, exactly, then rounded once to f32
        let want = (-(offset as i64)) as f32;
        assert!(
            out.iter().all(|&x| x == want),
            "offset {offset}: {:?}",
            &out[..2]
        );
    }
}

/// Row 8, the run-time half: the message a compile-time failure of a static named layout
/// panics with carries the numbers (a formatted const panic would cut them), built by a
/// `const fn` — checked here by evaluating it in a `const`.
#[test]
fn const_messages_carry_their_numbers() {
    use layout::LayoutError;
    use layout::named::ascend::{nz_layout, zz_layout};
    // evaluated at compile time, as the static types' `LAYOUT` consts do
    const NZ: layout::ConstMessage = match nz_layout(16, 0, 16) {
        Ok(_) => panic!("NZ with 0 rows was accepted"),
        Err(e) => e.const_message(),
    };
    assert_eq!(
        NZ.as_str(),
        "NZ layout: the row and column extents must be positive, but they are 0 and 16"
    );
    let e = nz_layout(16, 0, 16).unwrap_err();
    assert_eq!(e.const_message().as_str(), e.to_string());
    assert!(
        e.const_message().as_str().contains("0 and 16"),
        "{}",
        e.const_message().as_str()
    );
    let e = zz_layout(16, -5, i64::MIN).unwrap_err();
    assert_eq!(e.const_message().as_str(), e.to_string());
    assert!(e.to_string().contains("-5 and -9223372036854775808"), "{e}");
    // every Precondition message of the named formulas agrees with Display, marker or not
    for (what, a, b) in [
        ("x {a} y {b} z", 1, -2),
        ("no markers", i64::MAX, 0),
        ("only {b}", 3, 4),
        ("braces {c} {a", 5, 6),
    ] {
        let e = LayoutError::Precondition { what, a, b };
        assert_eq!(e.const_message().as_str(), e.to_string());
    }
    let e = LayoutError::NonPositiveExtent {
        leaf: 3,
        extent: -7,
    };
    assert_eq!(e.const_message().as_str(), e.to_string());
    let e = LayoutError::Overflow { what: "cosize" };
    assert_eq!(e.const_message().as_str(), e.to_string());
}

/// Worth deciding (issue 17): the strided NZ / ZN / ZZ spellings refuse zero, negative and
/// overlapping outer strides (the formats' fractals do not overlap). Checked against brute
/// force: every accepted layout is injective, and the compact and padded ones are accepted.
#[test]
fn strided_fractal_layouts_refuse_overlap() {
    use layout::named::ascend::{nz_layout_strided, zn_layout_strided, zz_layout_strided};
    // the example: NZ<f16>(32, 32, 0, 0) gave ((16,2),(16,2)):((16,0),(1,0))
    let e = nz_layout_strided(16, 32, 32, 0, 0).unwrap_err();
    assert!(e.to_string().contains("must be positive"), "{e}");
    assert!(nz_layout_strided(16, 32, 32, -256, 512).is_err());
    // StrideRow1 = C0 puts row 1 of fractal 0 where row 0 of fractal 1 is
    let e = nz_layout_strided(16, 32, 32, 16, 1024).unwrap_err();
    assert!(
        e.to_string()
            .contains("overlap with StrideRow1 16 and StrideColumn1 1024"),
        "{e}"
    );
    // the macro refuses it too, at expansion (see tests/ui/named)
    let injective = |l: &DynLayout| {
        let mut seen = std::collections::BTreeSet::new();
        (0..l.size()).all(|i| seen.insert(l.offset(i)))
    };
    let c0 = 4i64;
    let f = 16 * c0;
    for m in [1, 16, 17, 40] {
        for n in [1, 4, 5, 13] {
            for row1 in [-f, 0, c0, 2 * c0, f, f + c0, 2 * f, 3 * f, 8 * f] {
                for col1 in [-f, 0, c0, f, 2 * f, 3 * f, 4 * f, 8 * f, 16 * f] {
                    for (name, r) in [
                        ("nz", nz_layout_strided(c0, m, n, row1, col1)),
                        ("zn", zn_layout_strided(c0, m, n, row1, col1)),
                        ("zz", zz_layout_strided(c0, m, n, row1, col1)),
                    ] {
                        if let Ok(l) = r {
                            assert!(injective(&l), "{name}({m}, {n}, {row1}, {col1}) = {l}");
                        }
                    }
                }
            }
            // the compact forms are accepted (they go through the same check)
            use layout::named::ascend::{nz_layout, zn_layout, zz_layout};
            for l in [
                nz_layout(c0, m, n),
                zn_layout(c0, m, n),
                zz_layout(c0, m, n),
            ] {
                assert!(injective(&l.unwrap()));
            }
        }
    }
}
