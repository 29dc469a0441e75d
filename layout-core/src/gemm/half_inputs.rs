//! 16-bit float inputs accumulating in `f32`: `C(f32) ← α·A·B + β·C` with A and B in
//! [`half::f16`] or [`half::bf16`].
//!
//! Both run the `f32` engine's loops, blocking, threads and edge handling, with operands of any
//! layout. bf16 on a CPU with AVX-512 BF16 (and the AVX-512 level selected) packs k in pairs for
//! the `vdpbf16ps` kernel of `bf16.rs` (two multiply-adds per lane and instruction). Everything
//! else is widened to `f32` inside packing (F16C `vcvtph2ps` for f16, a 16-bit shift for bf16;
//! `widen.rs`) and runs the `f32` kernels: no widened copy of A or B is ever made. Products of
//! two 16-bit floats are exact in `f32`; `vdpbf16ps` rounds each pair's sum and flushes
//! denormals (results may differ from the converting path in the last bits on general data; on
//! integer data small enough for bf16 both are exact).

use super::block::{Out, run_panels};
use super::check::{check_no_overlap, check_operand};
use super::error::{GemmError, Operand, OperandShape};
#[cfg(target_arch = "x86_64")]
use super::int8::Bytes;
use super::tensor::Engine;
use super::widen::Widened;
use super::{MatMut, MatRef, Options};

/// A 16-bit floating-point input type: [`half::f16`] or [`half::bf16`].
pub trait Half: Copy + Send + Sync + 'static {
    /// The value as `f32` (exact).
    fn to_f32(self) -> f32;
    /// `dst[i] = src[i].to_f32()`, 8 at a time when `simd` (the CPU has AVX2 and F16C).
    #[doc(hidden)]
    fn widen_run(src: &[Self], dst: &mut [f32], simd: bool) {
        let _ = simd;
        for (o, x) in dst.iter_mut().zip(src) {
            *o = x.to_f32();
        }
    }
}

impl Half for half::f16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        half::f16::to_f32(self)
    }
    fn widen_run(src: &[Self], dst: &mut [f32], simd: bool) {
        #[cfg(target_arch = "x86_64")]
        if simd && dst.len() >= src.len() {
            // SAFETY: `simd` is only set when AVX2 and F16C were detected; lengths checked.
            return unsafe { super::widen::f16_run(src, dst) };
        }
        let _ = simd;
        for (o, x) in dst.iter_mut().zip(src) {
            *o = x.to_f32();
        }
    }
}

impl Half for half::bf16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        half::bf16::to_f32(self)
    }
    fn widen_run(src: &[Self], dst: &mut [f32], simd: bool) {
        #[cfg(target_arch = "x86_64")]
        if simd && dst.len() >= src.len() {
            // SAFETY: `simd` is only set when AVX2 (and F16C) were detected; lengths checked.
            return unsafe { super::widen::bf16_run(src, dst) };
        }
        let _ = simd;
        for (o, x) in dst.iter_mut().zip(src) {
            *o = x.to_f32();
        }
    }
}

/// `C ← α·A·B + β·C` with 16-bit A and B, `f32` C and accumulation.
///
/// ```
/// use half::bf16;
/// use layout_core::gemm::{MatMut, MatRef, Options, gemm_half};
/// let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].map(bf16::from_f32); // 2×3 row-major
/// let b = [1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0].map(bf16::from_f32); // 3×2 row-major
/// let mut c = [0.0f32; 4];
/// gemm_half(Options::default(), 1.0,
///     MatRef { data: &a, rows: 2, cols: 3, row_stride: 3, col_stride: 1 },
///     MatRef { data: &b, rows: 3, cols: 2, row_stride: 2, col_stride: 1 }, 0.0,
///     MatMut { data: &mut c, rows: 2, cols: 2, row_stride: 2, col_stride: 1 }).unwrap();
/// assert_eq!(c, [4.0, 5.0, 10.0, 11.0]);
/// ```
///
/// # Errors
/// As [`gemm_with`](super::gemm_with) (no buffer is sized by the operands: packing widens or
/// pairs block by block). Nothing is written on error. An empty product (m = 0 or n = 0) returns at
/// once, and α = 0 or k = 0 is `C ← β·C` without reading A or B (BLAS's rule, see the
/// [module docs](super)).
pub fn gemm_half<H: Half>(
    opts: impl Into<Options>,
    alpha: f32,
    a: MatRef<'_, H>,
    b: MatRef<'_, H>,
    beta: f32,
    c: MatMut<'_, f32>,
) -> Result<(), GemmError> {
    let op = "gemm_half";
    let opts = opts.into();
    if a.rows != c.rows || a.cols != b.rows || b.cols != c.cols {
        return Err(GemmError::ShapeMismatch {
            op,
            a: [a.rows, a.cols],
            b: [b.rows, b.cols],
            c: [c.rows, c.cols],
        });
    }
    if !opts.isa.is_available() {
        return Err(GemmError::IsaUnavailable { op, isa: opts.isa });
    }
    let shape = |operand, rows, cols, row_stride, col_stride| OperandShape {
        operand,
        rows,
        cols,
        row_stride,
        col_stride,
    };
    let sa = check_operand(
        op,
        shape(Operand::A, a.rows, a.cols, a.row_stride, a.col_stride),
        a.data.len(),
    )?;
    let sb = check_operand(
        op,
        shape(Operand::B, b.rows, b.cols, b.row_stride, b.col_stride),
        b.data.len(),
    )?;
    let shc = shape(Operand::C, c.rows, c.cols, c.row_stride, c.col_stride);
    let sc = check_operand(op, shc, c.data.len())?;
    check_no_overlap(op, shc)?;
    // BLAS's rule (module docs): an empty C is done; α = 0 or k = 0 is C ← β·C
    if c.rows == 0 || c.cols == 0 {
        return Ok(());
    }
    if a.cols == 0 || alpha == 0.0 {
        super::block::scale(c.rows, c.cols, beta, c.data, sc, None);
        return Ok(());
    }
    let (m, k, n) = (a.rows, a.cols, b.cols);
    // matrix × vector (decode): the matrix streams once, widened chunk by chunk in L1
    if opts.packing != super::Packing::Always
        && (m == 1 || n == 1)
        && super::gemv::try_run_half(
            opts.isa,
            [m, k, n],
            alpha,
            (a.data, sa),
            (b.data, sb),
            beta,
            (&mut *c.data, sc),
            1,
        )
    {
        return Ok(());
    }
    let threads = if opts.packing == super::Packing::Auto
        && m.saturating_mul(n).saturating_mul(k) <= super::PARALLEL_MIN_WORK
    {
        1
    } else {
        opts.threads
    };
    run_widened(
        opts.isa,
        alpha,
        Engine {
            mkn: [m, k, n],
            a: (a.data, sa, None),
            b: (b.data, sb, None),
            c: Out {
                c: c.data,
                sc,
                cmap: None,
            },
            threads,
        },
        beta,
    )
}

/// The converting path on a checked product (operands strided or mapped): A and Bᵀ widened to
/// `f32` inside packing, the `f32` engine's kernels for `isa`.
pub(crate) fn run_widened<H: Half>(
    isa: super::Isa,
    alpha: f32,
    e: Engine<'_, H, H, f32>,
    beta: f32,
) -> Result<(), GemmError> {
    // bf16 on a CPU with AVX-512 BF16 (and the AVX-512 level selected): the `vdpbf16ps` kernel
    // on k-pair panels, same loops
    #[cfg(target_arch = "x86_64")]
    if kstep::<H>(isa) == 2 {
        // SAFETY: H is bf16 (`kstep` is 2 only for bf16 on AVX-512 BF16).
        let e = unsafe { as_bf16(e) };
        let ((ad, sa, amap), (bd, sb, bmap)) = (e.a, e.b);
        let asrc = Bytes {
            src: ad,
            origin: sa.origin,
            sv: sa.rs,
            sk: sa.cs,
            map: amap,
        };
        let bsrc = Bytes {
            src: bd,
            origin: sb.origin,
            sv: sb.cs,
            sk: sb.rs,
            map: bmap.map(super::maps::Mapped::t),
        };
        let ki = super::bf16::kernel();
        run_panels::<super::bf16::Bf16Pairs>(&ki, e.mkn, alpha, &asrc, &bsrc, beta, e.c, e.threads);
        return Ok(());
    }
    let Some(ki) = <f32 as super::Element>::kernel(isa) else {
        return Err(GemmError::IsaUnavailable {
            op: "gemm_half",
            isa,
        });
    };
    let simd = super::widen::simd(isa);
    let ((ad, sa, amap), (bd, sb, bmap)) = (e.a, e.b);
    // A and Bᵀ as the packer reads them (rows by k)
    let asrc = Widened {
        src: ad,
        origin: sa.origin,
        sv: sa.rs,
        sk: sa.cs,
        map: amap,
        simd,
    };
    let bsrc = Widened {
        src: bd,
        origin: sb.origin,
        sv: sb.cs,
        sk: sb.rs,
        map: bmap.map(super::maps::Mapped::t),
        simd,
    };
    run_panels::<f32>(&ki, e.mkn, alpha, &asrc, &bsrc, beta, e.c, e.threads);
    Ok(())
}

/// The product with its operands seen as bf16.
///
/// # Safety
/// `H` is `half::bf16`.
#[cfg(target_arch = "x86_64")]
unsafe fn as_bf16<H: Half>(e: Engine<'_, H, H, f32>) -> Engine<'_, half::bf16, half::bf16, f32> {
    let cast = |x: &[H]| {
        // SAFETY: H is bf16 (the caller's contract): the same slice, its own type.
        unsafe { core::slice::from_raw_parts(x.as_ptr().cast::<half::bf16>(), x.len()) }
    };
    let ((ad, sa, amap), (bd, sb, bmap)) = (e.a, e.b);
    Engine {
        mkn: e.mkn,
        a: (cast(ad), sa, amap),
        b: (cast(bd), sb, bmap),
        c: e.c,
        threads: e.threads,
    }
}

/// k values per packed step for the 16-bit type `H` on `isa`: 2 where bf16 runs `vdpbf16ps`,
/// else 1 (widened to f32).
pub(crate) fn kstep<H: Half>(isa: super::Isa) -> usize {
    #[cfg(target_arch = "x86_64")]
    if isa == super::Isa::Avx512
        && super::bf16::available()
        && core::any::TypeId::of::<H>() == core::any::TypeId::of::<half::bf16>()
    {
        return 2;
    }
    let _ = isa;
    1
}
