//! Quantized weights as the B operand: `C ← α·A·B + β·C` with A and C in `f32` and B a GGUF
//! `Q4_0`/`Q8_0` or GPTQ/AWQ 4-bit matrix ([`QuantRef`]), never dequantized as a whole.
//!
//! - A few rows of A (the decode shape, m ≤ 8, row-major A and C): `qgemv.rs`,
//!   which reads the stored bytes in place — nibbles unpacked and scaled in registers.
//! - Anything else (prefill, any strides): the blocked engine, B being a [`Panels`] source
//!   whose packing dequantizes one KC × NC block at a time straight into the kernel's
//!   micro-panels (`QuantizedB::pack_panels_with`). The f32 kernels, blocking, threads and
//!   edge handling are the engine's; the only buffers are its packing buffers.

use super::block::run_panels;
use super::check::Strided;
use super::error::GemmError;
use super::front::{Rhs, prepare};
use super::kernel::Element;
use super::options::{MatMut, MatRef, Options, Packing};
use super::pack::Panels;
use super::q4i8::Codes;
use super::view::{Out, View};
use crate::isa::Isa;
use crate::packed::{Group4Matrix, Q4_0Matrix, Q8_0Matrix, QuantRef, QuantizedB};

/// The quantized B of [`gemm_quant`] and how its activations multiply it: in `f32` (the
/// default: B dequantized inside packing, the f32 kernels) or, for prefill, quantized to 8
/// (or 7) bits per row and 32-block ([`QuantB::int8_activations`],
/// [`QuantB::int7_activations`]). Any
/// [`QuantRef`] or reference to a quantized matrix converts into the default.
///
/// ```
/// use layout::gemm::{MatMut, MatRef, Options, QuantB, gemm_quant};
/// use layout::packed::quantize_q4_0;
/// let (m, k, n) = (16, 64, 8);
/// let w: Vec<f32> = (0..k * n).map(|i| ((i * 7 % 13) as f32 - 6.0) * 0.1).collect();
/// let q = quantize_q4_0(k, n, &w).unwrap();
/// let a: Vec<f32> = (0..m * k).map(|i| (i % 5) as f32 - 2.0).collect();
/// let (mut c8, mut c32) = (vec![0f32; m * n], vec![0f32; m * n]);
/// let am = MatRef { data: &a[..], rows: m, cols: k, row_stride: k as isize, col_stride: 1 };
/// fn cm(data: &mut [f32], m: usize, n: usize) -> MatMut<'_, f32> {
///     MatMut { data, rows: m, cols: n, row_stride: n as isize, col_stride: 1 }
/// }
/// gemm_quant(Options::default(), 1.0, am, QuantB::int8_activations(&q), 0.0, cm(&mut c8, m, n)).unwrap();
/// gemm_quant(Options::default(), 1.0, am, &q, 0.0, cm(&mut c32, m, n)).unwrap();
/// // A's values are integers in [−2, 2]: 8-bit activations approximate them to 1/127 of 2
/// for (x, y) in c8.iter().zip(&c32) {
///     assert!((x - y).abs() <= 0.02 * (1.0 + y.abs()), "{x} {y}");
/// }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct QuantB<'a> {
    q: QuantRef<'a>,
    /// The activations' codes on the integer route (`None`: the `f32` route).
    int8: Option<Codes>,
}

impl<'a> QuantB<'a> {
    /// `q` with 8-bit activations for prefill: each row of A quantized per 32-block to
    /// `round(a / d)`, `d = max|a| / 127` (llama.cpp's `Q8_0` activations), multiplied with
    /// integer instructions (`vpmaddubsw`: 4-bit codes against the activations, `Q8_0`'s
    /// codes by magnitude against the activations carrying the codes' signs; exact) and
    /// scaled per block. Taken wherever the decode route (up to eight dense rows of A, read
    /// in place in `f32`) does not apply, for `Q4_0`, `Q8_0` and GPTQ/AWQ groups of a
    /// multiple of 32 rows (with exact zero points and finite weights); other groups take the
    /// `f32` route. Rows of A holding a NaN or an infinity are computed on the `f32` route,
    /// so they give its non-finite results.
    pub fn int8_activations(q: impl Into<QuantRef<'a>>) -> Self {
        QuantB {
            q: q.into(),
            int8: Some(Codes::Eight),
        }
    }

    /// [`int8_activations`](Self::int8_activations) with 7-bit activations: each 32-block of
    /// a row of A quantized to `round(a / d)`, `d = max|a| / 63` (codes in [−63, 63]). For
    /// `Q8_0` weights the AVX2 product is then oneDNN's u8×s8 one (`vpmaddubsw` of the
    /// activations shifted by +64 against the stored codes, `vpmaddwd`, `vpaddd`; exact, with
    /// `64·Σ codes` per block and column taken off): about 1.5× the 8-bit route's speed, at
    /// about twice its error (the activations' rounding step doubles). The 4-bit formats run as
    /// with 8-bit activations, only less accurately. The integer sums are exact either way, so
    /// on integer-valued A whose blocks each reach ±63 and B whose scales are exact, the
    /// result is exact.
    ///
    /// ```
    /// use layout::gemm::{MatMut, MatRef, Options, QuantB, gemm_quant};
    /// use layout::packed::quantize_q8_0;
    /// let (m, k, n) = (16, 64, 8);
    /// // weights that Q8_0 stores exactly (each 32-block of a column starting at −127:
    /// // scale 1)
    /// let w: Vec<f32> = (0..k * n)
    ///     .map(|i| if (i / n) % 32 == 0 { -127.0 } else { (i % 19) as f32 - 9.0 })
    ///     .collect();
    /// let q = quantize_q8_0(k, n, &w).unwrap();
    /// // activations that 7 bits hold exactly: integers, each 32-block reaching 63
    /// let a: Vec<f32> = (0..m * k)
    ///     .map(|i| if i % 32 == 1 { 63.0 } else { (i % 11) as f32 - 5.0 })
    ///     .collect();
    /// let mut c = vec![0f32; m * n];
    /// gemm_quant(Options::default(), 1.0,
    ///     MatRef { data: &a, rows: m, cols: k, row_stride: k as isize, col_stride: 1 },
    ///     QuantB::int7_activations(&q), 0.0,
    ///     MatMut { data: &mut c, rows: m, cols: n, row_stride: n as isize, col_stride: 1 }).unwrap();
    /// for i in 0..m {
    ///     for j in 0..n {
    ///         let want: f32 = (0..k).map(|p| a[i * k + p] * w[p * n + j]).sum();
    ///         assert_eq!(c[i * n + j], want);
    ///     }
    /// }
    /// ```
    pub fn int7_activations(q: impl Into<QuantRef<'a>>) -> Self {
        QuantB {
            q: q.into(),
            int8: Some(Codes::Seven),
        }
    }

    /// B's rows and columns (k × n).
    pub(crate) fn dims(&self) -> [usize; 2] {
        [self.q.rows(), self.q.cols()]
    }
}

impl<'a> From<QuantRef<'a>> for QuantB<'a> {
    fn from(q: QuantRef<'a>) -> Self {
        QuantB { q, int8: None }
    }
}

impl<'a> From<&'a Q4_0Matrix> for QuantB<'a> {
    fn from(q: &'a Q4_0Matrix) -> Self {
        QuantRef::from(q).into()
    }
}

impl<'a> From<&'a Q8_0Matrix> for QuantB<'a> {
    fn from(q: &'a Q8_0Matrix) -> Self {
        QuantRef::from(q).into()
    }
}

impl<'a> From<&'a Group4Matrix> for QuantB<'a> {
    fn from(q: &'a Group4Matrix) -> Self {
        QuantRef::from(q).into()
    }
}

/// Rows of A up to which the product reads the quantized bytes directly (`qgemv.rs`
/// passes over the weights once per eight rows).
const DECODE_ROWS: usize = 8;

/// A quantized B as the packer reads it (X = Bᵀ: its columns are the panel rows).
struct Quant<'a> {
    q: QuantRef<'a>,
    isa: Isa,
}

impl Panels<f32> for Quant<'_> {
    fn pack(&self, dst: &mut [f32], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        self.q.pack_panels_with(self.isa, dst, v0, p0, len, kc, r);
    }
}

/// `C ← α·A·B + β·C` with f32 A (m × k, any strides), quantized weights B (k × n: GGUF
/// `Q4_0`/`Q8_0`, GPTQ/AWQ groups) and f32 C (m × n, any strides, no two elements at one
/// location). B is never dequantized as a whole: up to eight row-major rows of A read its bytes
/// directly; larger products dequantize it block by block inside the GEMM's packing, or, with
/// [`QuantB::int8_activations`], quantize A to 8 bits and multiply in integers.
///
/// ```
/// use layout::gemm::{MatMut, MatRef, Options, gemm_quant};
/// use layout::packed::{QuantizedB, quantize_q8_0};
/// let (m, k, n) = (16, 64, 8);
/// // weights that Q8_0 stores exactly: integers, each 32-block holding ±127 (scale 1)
/// let w: Vec<f32> = (0..k * n).map(|i| if i % 32 == 0 { 127.0 } else { (i % 9) as f32 - 4.0 }).collect();
/// let q = quantize_q8_0(k, n, &w).unwrap();
/// let a: Vec<f32> = (0..m * k).map(|i| (i % 5) as f32).collect();
/// let mut c = vec![0f32; m * n];
/// gemm_quant(Options::default(), 1.0,
///     MatRef { data: &a, rows: m, cols: k, row_stride: k as isize, col_stride: 1 },
///     &q, 0.0,
///     MatMut { data: &mut c, rows: m, cols: n, row_stride: n as isize, col_stride: 1 }).unwrap();
/// let b = q.dequantize().unwrap(); // row-major k × n
/// for i in 0..m {
///     for j in 0..n {
///         let want: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
///         assert_eq!(c[i * n + j], want);
///     }
/// }
/// ```
///
/// # Errors
/// [`GemmError::ShapeMismatch`] when A is not m × k, B k × n and C m × n; the operand checks
/// of [`gemm_with`](super::gemm_with) for A and C; [`GemmError::IsaUnavailable`]. Nothing is
/// written on error. BLAS's rule for empty products, α = 0 and k = 0 (see the
/// [module docs](super)).
pub fn gemm_quant<'q>(
    opts: impl Into<Options>,
    alpha: f32,
    a: MatRef<'_, f32>,
    b: impl Into<QuantB<'q>>,
    beta: f32,
    c: MatMut<'_, f32>,
) -> Result<(), GemmError> {
    let op = "gemm_quant";
    let opts = opts.into();
    let QuantB { q, int8 } = b.into();
    let ki = <f32 as Element>::kernel(opts.isa);
    let Some(p) = prepare(
        op,
        &opts,
        ki.is_some(),
        alpha,
        a,
        Rhs::<f32>::Owned([q.rows(), q.cols()]),
        beta,
        c,
    )?
    else {
        return Ok(());
    };
    let Some(ki) = ki else {
        unreachable!("prepare checked the kernel")
    };
    let [m, k, n] = p.mkn;
    // the decode shape: the stored bytes read in place (rows of A and C dense)
    let dense_rows = |at: Strided, cols: usize| at.cs == 1 && (at.rs == cols as isize || m == 1);
    if m <= DECODE_ROWS
        && opts.packing != Packing::Always
        && dense_rows(p.a.at, k)
        && dense_rows(p.c.sc, n)
        && p.a.at.origin == 0
        && p.c.sc.origin == 0
    {
        super::qgemv::decode(
            opts.isa,
            p.threads,
            m,
            alpha,
            &p.a.data[..m * k],
            q,
            beta,
            &mut p.c.c[..m * n],
        );
        return Ok(());
    }
    // prefill with 8-bit activations (asked for): integer dot products per block
    let bsrc = Quant { q, isa: opts.isa };
    if let Some(codes) = int8.filter(|_| super::q4i8::supports(q)) {
        let bad = super::q4i8::run(
            opts.isa,
            codes,
            p.threads,
            p.mkn,
            alpha,
            p.a,
            q,
            beta,
            (&mut *p.c.c, p.c.sc),
        );
        // rows of A holding a NaN or an infinity: the f32 route, one run of rows at a time
        let mut rest = &bad[..];
        while let Some(&i0) = rest.first() {
            let len = rest.iter().zip(i0..).take_while(|(i, j)| **i == *j).count();
            rest = &rest[len..];
            let a = View {
                at: Strided {
                    origin: p.a.at.origin + i0 as isize * p.a.at.rs,
                    ..p.a.at
                },
                ..p.a
            };
            let c = Out {
                c: &mut *p.c.c,
                sc: Strided {
                    origin: p.c.sc.origin + i0 as isize * p.c.sc.rs,
                    ..p.c.sc
                },
                cmap: None,
            };
            run_panels::<f32>(
                &ki,
                [len, k, n],
                alpha,
                &a.rows(),
                &bsrc,
                beta,
                c,
                p.threads,
            );
        }
        return Ok(());
    }
    run_panels::<f32>(&ki, p.mkn, alpha, &p.a.rows(), &bsrc, beta, p.c, p.threads);
    Ok(())
}
