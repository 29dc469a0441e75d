//! `gemm` / `gemm_tensors_with` / `matmul` on an f32 tensor A times quantized weights (issue
//! 32): every format (`Q4_0`, `Q8_0`, AWQ, GPTQ), decode (m ≤ 8) and prefill sizes, A and C in
//! strided layouts (read and written in place) and in non-strided ones (NZ: gathered and copied
//! back), β = 0 on a NaN-filled C and β ≠ 0, on every instruction set the CPU has and with
//! threads — against a triple loop over the dequantized weights, exactly (the data are ones each
//! format stores exactly, and every partial sum is representable). Elements of the buffer
//! outside C stay untouched.

use layout::gemm::{GemmError, Isa, Options, QuantB, gemm, gemm_tensors_with};
use layout::named::make_nz_layout;
use layout::packed::{
    Group4Format, Group4Matrix, Q4_0Matrix, Q8_0Matrix, QuantRef, QuantizedB, quantize_group4,
    quantize_q4_0, quantize_q8_0,
};
use layout::{DynLayout, Tensor};
use proptest::prelude::*;

#[derive(Clone, Copy, Debug)]
enum Fmt {
    Q4_0,
    Q8_0,
    Awq,
    Gptq,
}

enum Owned {
    Q4(Q4_0Matrix),
    Q8(Q8_0Matrix),
    G(Box<Group4Matrix>),
}

impl Owned {
    fn as_ref(&self) -> QuantRef<'_> {
        match self {
            Owned::Q4(q) => q.into(),
            Owned::Q8(q) => q.into(),
            Owned::G(q) => (&**q).into(),
        }
    }
}

/// `k × n` row-major data that `fmt` stores exactly: integers times a power of two, each
/// 32-block of each column holding both ends of the code range (so its scale is exact).
fn exact(fmt: Fmt, k: usize, n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let (lo, hi, scale) = match fmt {
        Fmt::Q4_0 => (-8i64, 7i64, 0.25f32),
        Fmt::Q8_0 => (-127, 127, 0.5),
        Fmt::Awq | Fmt::Gptq => (-4, 11, 0.125),
    };
    let mut b: Vec<f32> = (0..k * n)
        .map(|_| (lo + (next() % (hi - lo + 1) as u64) as i64) as f32 * scale)
        .collect();
    for j in 0..n {
        for g in (0..k).step_by(32) {
            b[(g + (j % 32)) * n + j] = lo as f32 * scale;
            b[(g + (j + 7) % 32) * n + j] = hi as f32 * scale;
        }
    }
    b
}

fn quantize(fmt: Fmt, k: usize, n: usize, b: &[f32]) -> Owned {
    match fmt {
        Fmt::Q4_0 => Owned::Q4(quantize_q4_0(k, n, b).unwrap()),
        Fmt::Q8_0 => Owned::Q8(quantize_q8_0(k, n, b).unwrap()),
        Fmt::Awq => Owned::G(Box::new(
            quantize_group4(k, n, b, 32, Group4Format::Awq).unwrap(),
        )),
        Fmt::Gptq => Owned::G(Box::new(
            quantize_group4(k, n, b, 32, Group4Format::Gptq).unwrap(),
        )),
    }
}

/// The layouts A and C are tried in: row-major, column-major with a padded leading dimension
/// (strided: in place), and column blocks of 8 (not strided: gathered / copied back).
#[derive(Clone, Copy, Debug)]
enum Form {
    RowMajor,
    ColMajorPadded,
    Blocked,
}

fn layout_of(form: Form, rows: usize, cols: usize) -> DynLayout {
    match form {
        Form::RowMajor => DynLayout::strided(&[rows, cols], &[cols as isize, 1]).unwrap(),
        Form::ColMajorPadded => DynLayout::strided(&[rows, cols], &[1, rows as isize + 3]).unwrap(),
        // columns in blocks of 8, blocks after all rows (ZN-like): affine, not strided
        Form::Blocked => format!("({rows},(8,{})):(8,(1,{}))", cols / 8, 8 * rows)
            .parse()
            .unwrap(),
    }
}

/// The definition: `α·A·B + β·C0` over the dequantized weights, in f64.
fn reference(
    alpha: f32,
    a: &[f32],
    b: &[f32],
    beta: f32,
    c0: &[f32],
    [m, k, n]: [usize; 3],
) -> Vec<f64> {
    let mut want = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            let s: f64 = (0..k)
                .map(|p| f64::from(a[i * k + p]) * f64::from(b[p * n + j]))
                .sum();
            let prior = if beta == 0.0 {
                0.0
            } else {
                f64::from(beta) * f64::from(c0[i * n + j])
            };
            want[i * n + j] = f64::from(alpha) * s + prior;
        }
    }
    want
}

/// One product: A (`m × k`, form `fa`) times the weights into C (`m × n`, form `fc`, inside a
/// buffer with 7 guard elements before and after), checked element by element and guards.
#[allow(clippy::too_many_arguments)]
fn check(
    fmt: Fmt,
    q: QuantB<'_>,
    b: &[f32],
    [m, k, n]: [usize; 3],
    (fa, fc): (Form, Form),
    (alpha, beta): (f32, f32),
    opts: Options,
) {
    let av: Vec<f32> = (0..m * k).map(|i| ((i * 7 + 3) % 9) as f32 - 4.0).collect();
    let c0: Vec<f32> = (0..m * n).map(|i| (i % 5) as f32 - 2.0).collect();
    let want = reference(alpha, &av, b, beta, &c0, [m, k, n]);
    // A in its form, holding the row-major values
    let la = layout_of(fa, m, k);
    let mut a = Tensor::new(vec![f32::NAN; la.cosize() as usize], la).unwrap();
    a.copy_from(&Tensor::from_vec(av.clone(), &[m, k]).unwrap())
        .unwrap();
    // C in its form, behind 7 guard elements and with 7 after
    let lc = layout_of(fc, m, n);
    let guard = 7usize;
    let total = guard + lc.cosize() as usize + guard;
    let mut buf = vec![-99f32; total];
    {
        let mut c = Tensor::with_offset(&mut buf[..], lc, guard).unwrap();
        let init = if beta == 0.0 {
            Tensor::from_vec(vec![f32::NAN; m * n], &[m, n]).unwrap()
        } else {
            Tensor::from_vec(c0.clone(), &[m, n]).unwrap()
        };
        c.copy_from(&init).unwrap();
        gemm_tensors_with(opts, alpha, &a, &q, beta, &mut c).unwrap();
        for i in 0..m {
            for j in 0..n {
                assert_eq!(
                    f64::from(c[[i, j]]),
                    want[i * n + j],
                    "{fmt:?} {m}×{k}×{n} A {fa:?} C {fc:?} α {alpha} β {beta} {opts:?} at ({i},{j})"
                );
            }
        }
    }
    // every element of the buffer that is not an element of C is untouched
    let offsets: Vec<usize> = (0..lc.cosize() as usize).collect();
    let off = Tensor::new(&offsets[..], lc).unwrap();
    let mut is_c = vec![false; total];
    for i in 0..m {
        for j in 0..n {
            is_c[guard + off[[i, j]]] = true;
        }
    }
    for (p, (&x, &inside)) in buf.iter().zip(&is_c).enumerate() {
        if !inside {
            assert_eq!(
                x, -99.0,
                "{fmt:?} C {fc:?}: element {p} outside C was written"
            );
        }
    }
}

fn isas() -> Vec<Isa> {
    Isa::available().collect()
}

#[test]
fn every_format_decode_and_prefill_every_layout_and_isa() {
    let (k, n) = (64, 32);
    for fmt in [Fmt::Q4_0, Fmt::Q8_0, Fmt::Awq, Fmt::Gptq] {
        let b = exact(fmt, k, n, 11);
        let owned = quantize(fmt, k, n, &b);
        for m in [1, 3, 8, 9, 33] {
            for (fa, fc) in [
                (Form::RowMajor, Form::RowMajor),
                (Form::ColMajorPadded, Form::ColMajorPadded),
                (Form::Blocked, Form::RowMajor),
                (Form::RowMajor, Form::Blocked),
                (Form::Blocked, Form::Blocked),
            ] {
                for isa in isas() {
                    for (threads, ab) in [(1, (1.0, 0.0)), (2, (0.5, 0.5))] {
                        let opts = Options {
                            isa,
                            threads,
                            ..Options::default()
                        };
                        let q = QuantB::from(owned.as_ref());
                        check(fmt, q, &b, [m, k, n], (fa, fc), ab, opts);
                    }
                }
            }
        }
    }
}

/// The plain entry (`gemm`, default options) and `matmul` take the quantized matrix itself.
#[test]
fn gemm_and_matmul_take_the_quantized_matrix() {
    let (m, k, n) = (5, 64, 16);
    let b = exact(Fmt::Q4_0, k, n, 3);
    let q = quantize_q4_0(k, n, &b).unwrap();
    let a = Tensor::from_fn(&[m, k], |i| (i % 7) as f32 - 3.0).unwrap();
    let mut c = Tensor::from_vec(vec![f32::NAN; m * n], &[m, n]).unwrap();
    gemm(1.0, &a, &q, 0.0, &mut c).unwrap();
    let bt = Tensor::from_vec(b.clone(), &[k, n]).unwrap();
    let want = a.matmul(&bt).unwrap();
    assert_eq!(c.as_slice(), want.as_slice());
    assert_eq!(a.matmul(&q).unwrap().as_slice(), want.as_slice());
    // the dequantized copy is the same matrix: B's format changes nothing but the bytes read
    assert_eq!(q.dequantize().unwrap(), b);
}

/// 8-bit activations on Q4_0 prefill through the tensor entry: within the quantisation of A.
#[test]
fn int8_activations_through_the_tensor_entry() {
    let (m, k, n) = (16, 64, 8);
    let w: Vec<f32> = (0..k * n)
        .map(|i| ((i * 7 % 13) as f32 - 6.0) * 0.1)
        .collect();
    let q = quantize_q4_0(k, n, &w).unwrap();
    let a = Tensor::from_fn(&[m, k], |i| (i % 5) as f32 - 2.0).unwrap();
    let exact = a.matmul(&q).unwrap();
    let mut c8 = Tensor::from_vec(vec![f32::NAN; m * n], &[m, n]).unwrap();
    gemm(1.0, &a, &QuantB::int8_activations(&q), 0.0, &mut c8).unwrap();
    for (x, y) in c8.iter().zip(exact.iter()) {
        assert!((x - y).abs() <= 0.02 * (1.0 + y.abs()), "{x} {y}");
    }
}

/// 7-bit activations on Q8_0 prefill through the tensor entry, A in a column-major layout: on
/// integer-valued A whose 32-blocks reach ±63 and weights Q8_0 stores exactly, the f32 route's
/// result exactly; on other data about twice the 8-bit route's error (relative Frobenius).
#[test]
fn int7_activations_through_the_tensor_entry() {
    let (m, k, n) = (19, 96, 24);
    let w: Vec<f32> = (0..k * n)
        .map(|i| match (i / n) % 32 {
            0 => -127.0,
            p => ((i * 5 + p) % 255) as f32 - 127.0,
        })
        .collect();
    let q = quantize_q8_0(k, n, &w).unwrap();
    let col_major = DynLayout::strided(&[m, k], &[1, m as isize]).unwrap();
    for (exact, top) in [(true, 63.0), (false, 2.7)] {
        let value = |i: usize, p: usize| {
            if p % 32 == 7 {
                if i.is_multiple_of(2) { top } else { -top }
            } else if exact {
                ((i * 3 + p * 7) % 127) as f32 - 63.0
            } else {
                // a hash of (i, p) in [−top, top): rounding errors that do not line up
                let h = ((i * 131 + p * 977) as u64).wrapping_mul(2_654_435_761) % (1 << 32);
                (h as f32 / 2f32.powi(31) - 1.0) * top
            }
        };
        let data: Vec<f32> = (0..m * k).map(|t| value(t % m, t / m)).collect();
        let a = Tensor::new(data, col_major).unwrap();
        let want = a.matmul(&q).unwrap();
        let run = |b: QuantB<'_>| {
            let mut c = Tensor::from_vec(vec![f32::NAN; m * n], &[m, n]).unwrap();
            gemm(1.0, &a, &b, 0.0, &mut c).unwrap();
            c.iter().copied().collect::<Vec<f32>>()
        };
        let c7 = run(QuantB::int7_activations(&q));
        if exact {
            assert!(c7.iter().zip(want.iter()).all(|(x, y)| x == y));
        } else {
            // relative Frobenius errors: the 7-bit step (max|a|/63 per block) is twice the 8-bit
            let rel = |c: &[f32]| {
                let num: f64 = c
                    .iter()
                    .zip(want.iter())
                    .map(|(x, y)| f64::from(x - y).powi(2))
                    .sum();
                let den: f64 = want.iter().map(|y| f64::from(*y).powi(2)).sum();
                (num / den).sqrt()
            };
            let (r7, r8) = (rel(&c7), rel(&run(QuantB::int8_activations(&q))));
            assert!(r7 < 5e-2 && r8 < 2.5e-2, "relative errors {r7} {r8}");
            assert!((1.4..3.0).contains(&(r7 / r8)), "relative errors {r7} {r8}");
        }
    }
}

/// Operands that do not agree are refused before anything is read, gathered or written.
#[test]
fn mismatched_shapes_are_refused_and_c_untouched() {
    let q = quantize_q8_0(32, 4, &[1.0; 128]).unwrap();
    let a = Tensor::from_vec(vec![1f32; 2 * 33], &[2, 33]).unwrap();
    let mut c = Tensor::from_vec(vec![7f32; 8], &[2, 4]).unwrap();
    let e = gemm(1.0, &a, &q, 0.0, &mut c).unwrap_err();
    assert!(matches!(e, GemmError::ShapeMismatch { .. }), "{e:?}");
    assert!(e.to_string().starts_with("gemm:"), "{e}");
    assert!(c.iter().all(|&x| x == 7.0));
    // C of the wrong shape, in a non-strided layout: refused before the gather
    let a = Tensor::from_vec(vec![1f32; 16 * 32], &[16, 32]).unwrap();
    let lc = make_nz_layout::<f32>(16, 8).unwrap();
    let mut c = Tensor::new(vec![7f32; lc.cosize() as usize], lc).unwrap();
    assert!(matches!(
        gemm(1.0, &a, &q, 0.0, &mut c),
        Err(GemmError::ShapeMismatch { .. })
    ));
    assert!(c.as_slice().iter().all(|&x| x == 7.0));
    // a rank-3 A
    let a3 = Tensor::from_vec(vec![1f32; 32], &[1, 1, 32]).unwrap();
    let mut c = Tensor::from_vec(vec![7f32; 4], &[1, 4]).unwrap();
    assert!(matches!(
        gemm(1.0, &a3, &q, 0.0, &mut c),
        Err(GemmError::NotMatrix { rank: 3, .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random shapes (k a multiple of 32, as the block formats need), layouts, α, β.
    #[test]
    fn random_shapes_match_the_definition(
        fmt in prop_oneof![Just(Fmt::Q4_0), Just(Fmt::Q8_0), Just(Fmt::Awq), Just(Fmt::Gptq)],
        m in 1usize..20,
        kb in 1usize..4,
        n8 in 1usize..5,
        fa in prop_oneof![Just(Form::RowMajor), Just(Form::ColMajorPadded), Just(Form::Blocked)],
        fc in prop_oneof![Just(Form::RowMajor), Just(Form::ColMajorPadded), Just(Form::Blocked)],
        ab in prop_oneof![Just((1.0f32, 0.0f32)), Just((2.0, 0.5)), Just((0.0, 0.5)), Just((0.5, 1.0))],
        seed in any::<u64>(),
    ) {
        let (k, n) = (32 * kb, 8 * n8);
        let b = exact(fmt, k, n, seed);
        let owned = quantize(fmt, k, n, &b);
        check(fmt, QuantB::from(owned.as_ref()), &b, [m, k, n], (fa, fc), ab, Options::default());
    }
}

#[test]
fn quantized_b_reports_its_extents() {
    let q = quantize_q8_0(64, 8, &[0.0; 512]).unwrap();
    assert_eq!((q.rows(), q.cols()), (64, 8));
}
