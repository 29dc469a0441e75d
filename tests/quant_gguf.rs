//! Quantised weights: the GGUF blocks against the `gguf` Python package's byte vectors
//! (`scripts/gguf_vectors.py`), the quantisers' error bounds, packing into GEMM micro-panels and
//! the decode GEMV on every instruction set against an `f64` reference — exact on integer data
//! that quantises exactly.

#[path = "support/cases.rs"]
mod cases;
#[path = "quant_gguf/file.rs"]
mod file;
use layout::gemm::{GemmError, Options};
use layout::isa::Isa;
use layout::packed::{
    Group4Format, Group4Matrix, PackedError, Q4_0Matrix, Q8_0Matrix, QuantRef, QuantizedB,
    dequantize, quantize_group4, quantize_q4_0, quantize_q8_0,
};
use proptest::prelude::*;

const K: usize = 64;
const N: usize = 8;

fn floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The vectors' weights as the row-major `K × N` operand `B` (the file is GGUF's `N` rows of `K`).
fn input_kn() -> Vec<f32> {
    let w = floats(include_bytes!("data/gguf_input_f32.bin"));
    assert_eq!(w.len(), K * N);
    (0..K * N).map(|i| w[(i % N) * K + i / N]).collect()
}

/// `B[p][j]` for every p, j, GGUF order (`N` rows of `K`).
fn nk(q: &dyn QuantizedB) -> Vec<f32> {
    let d = q.dequantize().unwrap();
    let (k, n) = (q.rows(), q.cols());
    (0..k * n).map(|i| d[(i % k) * n + i / k]).collect()
}

#[test]
fn q4_0_reproduces_the_gguf_bytes() {
    let q = quantize_q4_0(K, N, &input_kn()).unwrap();
    assert_eq!(q.to_bytes(), include_bytes!("data/gguf_q4_0.bin"));
    let back = Q4_0Matrix::from_bytes(K, N, include_bytes!("data/gguf_q4_0.bin")).unwrap();
    assert_eq!(back, q);
    let want = floats(include_bytes!("data/gguf_q4_0_deq_f32.bin"));
    let got = nk(&back);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "value {i}: {g} vs gguf {w}");
    }
}

#[test]
fn q8_0_reproduces_the_gguf_bytes() {
    let q = quantize_q8_0(K, N, &input_kn()).unwrap();
    assert_eq!(q.to_bytes(), include_bytes!("data/gguf_q8_0.bin"));
    let back = Q8_0Matrix::from_bytes(K, N, include_bytes!("data/gguf_q8_0.bin")).unwrap();
    assert_eq!(back, q);
    let want = floats(include_bytes!("data/gguf_q8_0_deq_f32.bin"));
    let got = nk(&back);
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.to_bits(), w.to_bits(), "value {i}: {g} vs gguf {w}");
    }
}

#[test]
fn errors_name_the_numbers() {
    let e = quantize_q8_0(40, 2, &[0.0; 80]).unwrap_err();
    assert_eq!(
        e,
        PackedError::KNotBlocked {
            op: "quantize q8_0",
            k: 40,
            block: 32
        }
    );
    let mut b = vec![0.0f32; 64];
    b[2 * 2 + 1] = f32::NAN;
    assert_eq!(
        quantize_q4_0(32, 2, &b).unwrap_err().to_string(),
        "packed quantize q4_0: the weight at row 2, column 1 is NaN or infinite"
    );
    let b = vec![1e9f32; 32];
    assert_eq!(
        quantize_q8_0(32, 1, &b).unwrap_err(),
        PackedError::ScaleOverflow {
            op: "quantize q8_0",
            row: 0,
            col: 0
        }
    );
    assert!(matches!(
        quantize_q4_0(32, 2, &[0.0; 63]).unwrap_err(),
        PackedError::BufferLength {
            expected: 64,
            got: 63,
            ..
        }
    ));
    assert!(matches!(
        Q8_0Matrix::from_bytes(32, 2, &[0; 67]).unwrap_err(),
        PackedError::BufferLength {
            expected: 68,
            got: 67,
            ..
        }
    ));
    assert!(matches!(
        quantize_group4(32, 3, &[0.0; 96], 32, Group4Format::Awq).map(|_| ()),
        Ok(())
    ));
    assert!(matches!(
        quantize_group4(12, 2, &[0.0; 24], 4, Group4Format::Gptq).unwrap_err(),
        PackedError::GroupNotDividing {
            extent: 12,
            group: 8,
            ..
        }
    ));
    // qgemv: X and Y lengths
    let q = quantize_q4_0(32, 2, &[1.0; 64]).unwrap();
    let mut y = [0.0f32; 4];
    let e = qgemv(Options::default(), 2, 1.0, &[0.0; 63], &q, 0.0, &mut y).unwrap_err();
    assert!(
        matches!(
            e,
            GemmError::TooShort {
                needed: 64,
                len: 63,
                ..
            }
        ),
        "{e}"
    );
    let e = qgemv(Options::default(), 2, 1.0, &[0.0; 64], &q, 0.0, &mut y[..3]).unwrap_err();
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
}

/// A random (or exactly quantisable) `k × n` operand in one of the formats.
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

const GROUP: usize = 32;

fn quantize(fmt: Fmt, k: usize, n: usize, b: &[f32]) -> Owned {
    match fmt {
        Fmt::Q4_0 => Owned::Q4(quantize_q4_0(k, n, b).unwrap()),
        Fmt::Q8_0 => Owned::Q8(quantize_q8_0(k, n, b).unwrap()),
        Fmt::Awq => Owned::G(Box::new(
            quantize_group4(k, n, b, GROUP, Group4Format::Awq).unwrap(),
        )),
        Fmt::Gptq => Owned::G(Box::new(
            quantize_group4(k, n, b, GROUP, Group4Format::Gptq).unwrap(),
        )),
    }
}

/// Integer data each format represents exactly (scale a power of two): `B[p][j]` from `seed`.
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
    // every block/group of every column holds both ends (so its scale is exactly `scale`)
    for j in 0..n {
        for g in (0..k).step_by(32) {
            b[(g + (j % 32)) * n + j] = lo as f32 * scale;
            b[(g + (j + 7) % 32) * n + j] = hi as f32 * scale;
        }
    }
    b
}

fn random(k: usize, n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..k * n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 4.0
        })
        .collect()
}

fn isas() -> Vec<Isa> {
    Isa::available().collect()
}

#[test]
fn exact_data_quantises_exactly_in_every_format() {
    for fmt in [Fmt::Q4_0, Fmt::Q8_0, Fmt::Awq, Fmt::Gptq] {
        let (k, n) = (96, 24);
        let b = exact(fmt, k, n, 7);
        let q = quantize(fmt, k, n, &b);
        assert_eq!(q.as_ref().dequantize().unwrap(), b, "{fmt:?}");
    }
}

#[test]
fn group4_packs_what_dequantize_reads() {
    for fmt in [Group4Format::Awq, Group4Format::Gptq] {
        let (k, n) = (64, 16);
        let b = random(k, n, 3);
        let q = quantize_group4(k, n, &b, 32, fmt).unwrap();
        let d = dequantize(q.weights(), q.scales(), q.zeros(), q.quant()).unwrap();
        assert_eq!(d, q.dequantize().unwrap());
    }
}

#[test]
fn quantisers_meet_their_error_bounds() {
    let (k, n) = (128, 12);
    let b = random(k, n, 11);
    // GGUF: half a step of the block's scale (Q4_0 clamps the top code: one full step there)
    for (fmt, steps) in [(Fmt::Q4_0, 1.0f32), (Fmt::Q8_0, 0.5)] {
        let q = quantize(fmt, k, n, &b);
        let d = q.as_ref().dequantize().unwrap();
        for j in 0..n {
            for p in 0..k {
                let blk = &b[(p / 32) * 32 * n..];
                let amax = (0..32).map(|i| blk[i * n + j].abs()).fold(0.0, f32::max);
                let step = match fmt {
                    Fmt::Q4_0 => amax / 8.0,
                    _ => amax / 127.0,
                };
                // + the f16 rounding of the scale: 2^-11 relative, times at most 8 (resp. 127) steps
                let tol = steps * step * 1.0001 + amax * 2f32.powi(-10);
                let e = (d[p * n + j] - b[p * n + j]).abs();
                assert!(e <= tol, "{fmt:?} ({p}, {j}): error {e} > {tol}");
            }
        }
    }
    for fmt in [Group4Format::Awq, Group4Format::Gptq] {
        let q = quantize_group4(k, n, &b, 32, fmt).unwrap();
        for j in 0..n {
            for p in 0..k {
                let s = q.scales()[(p / 32) * n + j];
                let e = (q.get(p, j).unwrap() - b[p * n + j]).abs();
                assert!(e <= s * 0.5001, "{fmt:?} ({p}, {j}): error {e}, scale {s}");
            }
        }
    }
}

/// `Σ_p x[r][p]·B[p][j]` in f64 from the dequantised B, and `Σ |x·B|` for the tolerance.
fn reference(x: &[f32], m: usize, b: &[f32], k: usize, n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut y = vec![0.0f64; m * n];
    let mut a = vec![0.0f64; m * n];
    for r in 0..m {
        for p in 0..k {
            for j in 0..n {
                let t = f64::from(x[r * k + p]) * f64::from(b[p * n + j]);
                y[r * n + j] += t;
                a[r * n + j] += t.abs();
            }
        }
    }
    (y, a)
}

#[test]
fn qgemv_is_exact_on_exact_data_on_every_isa() {
    for fmt in [Fmt::Q4_0, Fmt::Q8_0, Fmt::Awq, Fmt::Gptq] {
        let (k, n) = (128, 72);
        let b = exact(fmt, k, n, 5);
        let q = quantize(fmt, k, n, &b);
        for m in [1, 3, 8, 9] {
            let x: Vec<f32> = (0..m * k).map(|i| ((i * 7 + 3) % 9) as f32 - 4.0).collect();
            let (want, _) = reference(&x, m, &b, k, n);
            for isa in isas() {
                for threads in [1, 2] {
                    let mut y = vec![f32::NAN; m * n];
                    let opts = Options {
                        isa,
                        threads,
                        ..Options::default()
                    };
                    qgemv(opts, m, 1.0, &x, q.as_ref(), 0.0, &mut y).unwrap();
                    for (i, (g, w)) in y.iter().zip(&want).enumerate() {
                        assert_eq!(f64::from(*g), *w, "{fmt:?} {isa:?} m={m} t={threads} [{i}]");
                    }
                }
            }
        }
    }
}

#[test]
fn qgemv_follows_blas_rule() {
    let q = quantize_q8_0(32, 4, &[8000.0; 128]).unwrap();
    let mut y = [2.0f32; 4];
    qgemv(Options::default(), 1, 0.0, &[f32::NAN; 32], &q, 0.5, &mut y).unwrap();
    assert_eq!(y, [1.0; 4]);
    let mut y = [f32::NAN; 4];
    qgemv(Options::default(), 1, 1.0, &[0.0; 32], &q, 0.0, &mut y).unwrap();
    assert_eq!(y, [0.0; 4]);
}

fn fmt_strategy() -> impl Strategy<Value = Fmt> {
    prop_oneof![
        Just(Fmt::Q4_0),
        Just(Fmt::Q8_0),
        Just(Fmt::Awq),
        Just(Fmt::Gptq)
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(48)))]

    #[test]
    fn qgemv_matches_f64_reference(
        fmt in fmt_strategy(),
        kb in 1usize..5,
        n8 in 1usize..10,
        ntail in 0usize..8,
        m in 1usize..11,
        threads in 1usize..4,
        seed in any::<u64>(),
        alpha in -2.0f32..2.0,
        beta in prop_oneof![Just(0.0f32), -1.0f32..1.0],
    ) {
        let k = 32 * kb;
        // AWQ needs n a multiple of 8 for its word order; the others take any n
        let n = match fmt { Fmt::Awq => 8 * n8, _ => 8 * n8 + ntail };
        let b = random(k, n, seed);
        let q = quantize(fmt, k, n, &b);
        let bd = q.as_ref().dequantize().unwrap();
        let x = random(m, k, seed.rotate_left(17));
        let y0 = random(m, n, seed.rotate_left(33));
        let (want, mag) = reference(&x, m, &bd, k, n);
        for isa in isas() {
            let mut y = y0.clone();
            let opts = Options { isa, threads, ..Options::default() };
            qgemv(opts, m, alpha, &x, q.as_ref(), beta, &mut y).unwrap();
            for i in 0..m * n {
                let w = f64::from(alpha) * want[i] + f64::from(beta) * f64::from(y0[i]);
                let tol = 1e-5 * (f64::from(alpha.abs()) * mag[i] + f64::from(y0[i].abs())) + 1e-6;
                prop_assert!((f64::from(y[i]) - w).abs() <= tol,
                    "{:?} {:?} [{}]: {} vs {}", fmt, isa, i, y[i], w);
            }
        }
    }

    #[test]
    fn pack_panels_writes_the_micro_panels(
        fmt in fmt_strategy(),
        kb in 1usize..4,
        n8 in 1usize..6,
        seed in any::<u64>(),
        picks in (0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0, 0.0f64..1.0),
        nr in 1usize..17,
    ) {
        let (k, n) = (32 * kb, 8 * n8);
        let b = random(k, n, seed);
        let q = quantize(fmt, k, n, &b);
        let q = q.as_ref();
        let bd = q.dequantize().unwrap();
        let j0 = (picks.0 * n as f64) as usize;
        let len = 1 + (picks.1 * (n - j0) as f64) as usize;
        let p0 = (picks.2 * k as f64) as usize;
        let kc = 1 + (picks.3 * (k - p0) as f64) as usize;
        let panels = len.div_ceil(nr);
        for isa in isas() {
            let mut dst = vec![f32::NAN; panels * nr * kc + 3];
            q.pack_panels_with(isa, &mut dst, j0, p0, len, kc, nr);
            for t in 0..panels {
                for p in 0..kc {
                    for i in 0..nr {
                        let c = t * nr + i;
                        let want = if c < len { bd[(p0 + p) * n + j0 + c] } else { 0.0 };
                        let got = dst[t * nr * kc + p * nr + i];
                        prop_assert_eq!(got.to_bits(), want.to_bits(),
                            "{:?} {:?} panel {} p {} i {}", fmt, isa, t, p, i);
                    }
                }
            }
            prop_assert!(dst[panels * nr * kc..].iter().all(|v| v.is_nan()));
        }
    }
}

/// Row-major `Y ← α·X·B + β·Y` through [`gemm_quant`] (the retired `qgemv`'s arguments).
#[allow(clippy::too_many_arguments)]
fn qgemv<'q>(
    opts: layout::gemm::Options,
    m: usize,
    alpha: f32,
    x: &[f32],
    q: impl Into<layout::packed::QuantRef<'q>>,
    beta: f32,
    y: &mut [f32],
) -> Result<(), layout::gemm::GemmError> {
    use layout::packed::QuantizedB;
    let q = q.into();
    let (k, n) = (q.rows(), q.cols());
    layout::gemm::gemm_quant(
        opts,
        alpha,
        layout::gemm::MatRef {
            data: x,
            rows: m,
            cols: k,
            row_stride: k as isize,
            col_stride: 1,
        },
        q,
        beta,
        layout::gemm::MatMut {
            data: y,
            rows: m,
            cols: n,
            row_stride: n as isize,
            col_stride: 1,
        },
    )
}
