//! Register-tiled CPU GEMM: `C ← α·A·B + β·C` for every element [`Pair`] — `f32`, `f64`,
//! `bf16`/`f16` into `f32`, `u8`/`i8` into `i32` — on strided matrices and on tensors of any
//! layout, through one engine.
//!
//! The structure is BLIS's (Goto & van de Geijn 2008; Van Zee & van de Geijn 2015), the one
//! matrixmultiply, gemm and faer share:
//!
//! - [`dispatch`]: the instruction set is the crate's one [`Isa`], detected once
//!   ([`Isa::selected_for_gemm`]; `LAYOUT_ISA=portable|avx2|avx512` caps every SIMD path,
//!   `LAYOUT_GEMM_ISA` the GEMM alone), and picks a kernel with its tile
//!   shape and cache blocking;
//! - `block`: the five loops jc (NC columns of B, in L3) → pc (KC steps of k; pack B) → ic (MC
//!   rows of A, in L2; pack A) → jr (NR) → ir (MR);
//! - `pack`: A and B blocks copied into zero-padded micro-panels, `((MR, m/MR), k) : ((1, MR·k), MR)`;
//! - `kernel`: one generic `#[inline(always)]` microkernel body holding the MR×NR tile of C in
//!   registers, instantiated per instruction set (`x86`: AVX-512F f32 32×12 / f64 32×6, AVX2+FMA
//!   f32 16×6 / f64 8×6; portable 4×4).
//!
//! [`gemm`] is the same engine on this crate's rank-2 [`Tensor`](crate::Tensor)s.
//!
//! Edge tiles are computed into a stack tile and merged, so nothing outside the operands is read
//! or written.
//!
//! # α = 0, β = 0 and empty products: BLAS's rule on every path
//!
//! Every entry point ([`gemm_with`] and the BLAS-style functions, [`gemm_half`],
//! [`gemm_packed`], the tensor entries [`gemm()`], [`gemm_static`] and [`gemm_half_tensors`])
//! applies one rule, after its argument checks and before any kernel, whatever the
//! instruction set, [`Packing`] or number of threads:
//!
//! - m = 0 or n = 0: nothing is read or written;
//! - α = 0 or k = 0: A·B is not computed, so NaN or ∞ in A or B does not reach C, and C ← β·C;
//! - β = 0: C is never read, it is overwritten (NaN in C does not leak); β = 1 leaves C as it is.
//!
//! ```
//! use layout_core::gemm::sgemm;
//! let mut c = [2.0f32; 4];
//! sgemm(2, 2, 2, 0.0, &[f32::NAN; 4], 2, 1, &[1.0; 4], 2, 1, 0.5, &mut c, 2, 1).unwrap();
//! assert_eq!(c, [1.0; 4]); // α = 0: C ← β·C, the NaN in A is never read
//! ```
//!
//! ```
//! use layout_core::gemm::sgemm;
//! // A 2×3 row-major, B 3×2 row-major, C 2×2 row-major
//! let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
//! let b = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
//! let mut c = [f32::NAN; 4];
//! sgemm(2, 3, 2, 1.0, &a, 3, 1, &b, 2, 1, 0.0, &mut c, 2, 1).unwrap();
//! assert_eq!(c, [4.0, 5.0, 10.0, 11.0]);
//! ```

#[cfg(target_arch = "x86_64")]
mod bf16;
mod block;
mod check;
#[cfg(target_arch = "x86_64")]
mod direct;
pub mod dispatch;
mod error;
mod fixed;
mod gemv;
mod half_inputs;
mod int8;
mod kernel;
mod maps;
mod pack;
mod packed_b;
mod pair;
mod qgemv;
mod quant_b;
mod tensor;
mod widen;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use dispatch::Isa;

pub use error::{GemmError, Operand, OperandShape};
pub use fixed::{
    ColExtent, InnerExtent, RowExtent, SMALL_STRIDED_WORK, STATIC_MAX, STATIC_MAX_WORK,
    StaticMatrix, TINY_WORK, Table,
};
pub use half_inputs::{Half, gemm_half};
pub use int8::{Int8, gemm_i8};
pub use kernel::Element;
pub use packed_b::{PackedB, gemm_packed};
pub use pair::Pair;
pub use qgemv::qgemv;
pub use quant_b::gemm_quant;
pub use tensor::{gemm, gemm_half_tensors, gemm_half_tensors_with, gemm_static, gemm_tensors_with};

use check::{check_no_overlap, check_operand};

// The engine's hooks for other modules of the crate (convolution's implicit im2col, quantized
// weights): an operand is anything that packs panels (`Panels`), C is an `Out`.
#[allow(unused_imports)]
pub(crate) use {
    block::{Out, run_panels},
    check::Strided,
    kernel::Kern,
    maps::Mapped,
    pack::Panels,
};

/// A read-only strided matrix: element (i, j) is `data[o + i·row_stride + j·col_stride]`, where
/// `o` is chosen so the lowest address the matrix touches is `data[0]` (with non-negative strides
/// `o = 0`). Strides are in elements, of any sign; zero broadcasts.
#[derive(Clone, Copy, Debug)]
pub struct MatRef<'a, T> {
    /// The elements.
    pub data: &'a [T],
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Distance between consecutive rows, in elements.
    pub row_stride: isize,
    /// Distance between consecutive columns, in elements.
    pub col_stride: isize,
}

/// A mutable strided matrix, addressed as [`MatRef`]; no two elements may share a location.
#[derive(Debug)]
pub struct MatMut<'a, T> {
    /// The elements.
    pub data: &'a mut [T],
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Distance between consecutive rows, in elements.
    pub row_stride: isize,
    /// Distance between consecutive columns, in elements.
    pub col_stride: isize,
}

fn shape_of(operand: Operand, rows: usize, cols: usize, rs: isize, cs: isize) -> OperandShape {
    OperandShape {
        operand,
        rows,
        cols,
        row_stride: rs,
        col_stride: cs,
    }
}

/// How a GEMM call runs: the instruction set and the number of threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The kernels to use.
    pub isa: Isa,
    /// Threads (`std::thread::scope`, caller-chosen, no global pool); 0 and 1 mean the calling
    /// thread only. Threads split C's rows (or columns, whichever is longer) at multiples of the
    /// tile, never k, so the result does not depend on the number of threads. Problems of at
    /// most [`PARALLEL_MIN_WORK`] multiply-adds run on the calling thread with
    /// [`Packing::Auto`] (starting a thread costs more than it saves there).
    pub threads: usize,
    /// Whether small problems may skip packing ([`Packing::Auto`], the default) or every call
    /// packs ([`Packing::Always`]: the blocked path on its own, for tests and measurements).
    pub packing: Packing,
}

/// Whether a call may take the unpacked path for small problems.
///
/// With [`Packing::Auto`], a single-threaded call on AVX-512 whose A has unit-stride rows and
/// fits in 1 MiB (or, for a row-major C, whose B has unit-stride columns and fits) runs kernels
/// that read A and B in place (no packing buffers, masked edges); everything else packs. Both paths give the same
/// results on integer-valued data; they may differ in the last bits otherwise (the blocked path
/// sums k in blocks of KC).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Packing {
    /// Skip packing where it costs more than it saves.
    #[default]
    Auto,
    /// Always pack (the BLIS loop nest), on the threads asked for whatever the size.
    Always,
    /// Take the unpacked kernels whenever the strides allow (whatever the size, on the threads
    /// asked for whatever the size); pack only where they do not apply. For tests and
    /// measurements.
    Never,
}

impl Default for Options {
    /// [`Isa::selected_for_gemm`], one thread.
    fn default() -> Self {
        Options {
            isa: Isa::selected_for_gemm(),
            threads: 1,
            packing: Packing::Auto,
        }
    }
}

impl From<Isa> for Options {
    /// `isa`, one thread.
    fn from(isa: Isa) -> Self {
        Options {
            isa,
            threads: 1,
            packing: Packing::Auto,
        }
    }
}

/// The smallest `m·n·k` that runs on several threads (320³). Measured on two Zen 5 cores: at
/// 256³ two threads (each call starting its threads) reached 0.64 of one thread's speed, at
/// 512³ 1.5×.
pub const PARALLEL_MIN_WORK: usize = 320 * 320 * 320;

/// `C ← α·A·B + β·C` on strided matrices of any element [`Pair`] (`f32`, `f64`; `bf16` or
/// `f16` into `f32`; `u8`/`i8` into `i32`), with the kernels and threads of `opts`.
///
/// ```
/// use layout_core::gemm::{MatMut, MatRef, Options, gemm_with};
/// let a: [i8; 4] = [1, -2, 3, 4]; // 2×2 row-major
/// let mut c = [0i32; 4];
/// let m = MatRef { data: &a, rows: 2, cols: 2, row_stride: 2, col_stride: 1 };
/// gemm_with(Options::default(), 1, m, m, 0,
///     MatMut { data: &mut c, rows: 2, cols: 2, row_stride: 2, col_stride: 1 }).unwrap();
/// assert_eq!(c, [-5, -10, 15, 10]);
/// ```
///
/// # Errors
/// [`GemmError::IsaUnavailable`] when this CPU lacks `isa`; [`GemmError::ShapeMismatch`] when A
/// is not m×k, B k×n and C m×n; [`GemmError::TooShort`] / [`GemmError::StrideOverflow`] when an
/// operand's strides reach outside its slice or overflow; [`GemmError::OutputOverlaps`] when two
/// elements of C share a location (an exact test: every injective C is accepted). Nothing is
/// written on error. After these checks, BLAS's rule for α = 0, k = 0 and empty products
/// applies (see the module docs).
pub fn gemm_with<A: Pair<B>, B>(
    opts: impl Into<Options>,
    alpha: A::Out,
    a: MatRef<'_, A>,
    b: MatRef<'_, B>,
    beta: A::Out,
    c: MatMut<'_, A::Out>,
) -> Result<(), GemmError> {
    A::gemm_mat(opts.into(), alpha, a, b, beta, c)
}

/// [`gemm_with`] for the float pairs whose kernels are generic over [`Element`].
pub(crate) fn gemm_float<T: Element>(
    opts: impl Into<Options>,
    alpha: T,
    a: MatRef<'_, T>,
    b: MatRef<'_, T>,
    beta: T,
    c: MatMut<'_, T>,
) -> Result<(), GemmError> {
    let op = T::OP;
    let Options {
        isa,
        threads,
        packing,
    } = opts.into();
    if a.rows != c.rows || a.cols != b.rows || b.cols != c.cols {
        return Err(GemmError::ShapeMismatch {
            op,
            a: [a.rows, a.cols],
            b: [b.rows, b.cols],
            c: [c.rows, c.cols],
        });
    }
    let ki = match T::kernel(isa) {
        Some(ki) if isa.is_available() => ki,
        _ => return Err(GemmError::IsaUnavailable { op, isa }),
    };
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let threads =
        if packing == Packing::Auto && m.saturating_mul(n).saturating_mul(k) <= PARALLEL_MIN_WORK {
            1
        } else {
            threads
        };
    let sh_a = shape_of(Operand::A, m, k, a.row_stride, a.col_stride);
    let sh_b = shape_of(Operand::B, k, n, b.row_stride, b.col_stride);
    let sh_c = shape_of(Operand::C, m, n, c.row_stride, c.col_stride);
    let sa = check_operand(op, sh_a, a.data.len())?;
    let sb = check_operand(op, sh_b, b.data.len())?;
    let sc = check_operand(op, sh_c, c.data.len())?;
    check_no_overlap(op, sh_c)?;
    // BLAS's rule, on every path: an empty C is done, and α = 0 or k = 0 is C ← β·C
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 || alpha == T::ZERO {
        block::scale(m, n, beta, c.data, sc, None);
        return Ok(());
    }
    // matrix–vector products (the decode shape): the matrix streamed once, never packed
    if packing != Packing::Always
        && (m == 1 || n == 1)
        && gemv::try_run(
            isa,
            [m, k, n],
            alpha,
            (a, sa),
            (b, sb),
            beta,
            (&mut *c.data, sc),
            threads,
        )
    {
        return Ok(());
    }
    // small problems with suitable strides: the unpacked kernels
    #[cfg(target_arch = "x86_64")]
    if packing != Packing::Always
        && direct::try_run(
            isa,
            direct::Direct {
                m,
                k,
                n,
                alpha,
                a: a.data,
                sa,
                b: b.data,
                sb,
                beta,
                c: &mut *c.data,
                sc,
            },
            threads,
            packing == Packing::Never,
        )
    {
        return Ok(());
    }
    block::run(
        &ki,
        block::Problem {
            m,
            k,
            n,
            alpha,
            a: a.data,
            sa,
            b: b.data,
            sb,
            beta,
            c: c.data,
            sc,
            bpacked: None,
            maps: [None; 3],
        },
        threads,
    );
    Ok(())
}

macro_rules! blas_entry {
    ($(#[$doc:meta])* $name:ident, $par:ident, $t:ty) => {
        $(#[$doc])*
        ///
        /// Arguments in matrixmultiply's order: A is m×k with strides `rsa`, `csa`; B is k×n
        /// (`rsb`, `csb`); C is m×n (`rsc`, `csc`). Strides are in elements, of any sign; zero is
        /// allowed for A and B (broadcast). Element (i, j) of an operand is at
        /// `o + i·rs + j·cs`, with `o` chosen so that the lowest address the operand touches is
        /// index 0 of its slice. m, n or k may be 0; k = 0 or α = 0 gives `C ← β·C` without
        /// reading A or B, and with β = 0 C is never read (BLAS's rule, see the
        /// [module docs](self)). Single-threaded; uses [`Isa::selected_for_gemm`].
        ///
        /// # Errors
        /// [`GemmError::TooShort`] / [`GemmError::StrideOverflow`] when an operand's strides reach
        /// outside its slice or overflow `isize`; [`GemmError::OutputOverlaps`] when two elements
        /// of C share a location. Nothing is written on error.
        #[allow(clippy::too_many_arguments)]
        pub fn $name(
            m: usize,
            k: usize,
            n: usize,
            alpha: $t,
            a: &[$t],
            rsa: isize,
            csa: isize,
            b: &[$t],
            rsb: isize,
            csb: isize,
            beta: $t,
            c: &mut [$t],
            rsc: isize,
            csc: isize,
        ) -> Result<(), GemmError> {
            $par(1, m, k, n, alpha, a, rsa, csa, b, rsb, csb, beta, c, rsc, csc)
        }

        #[doc = concat!("[`", stringify!($name), "`] on up to `threads` threads (see [`Options::threads`]).")]
        ///
        /// # Errors
        #[doc = concat!("As [`", stringify!($name), "`].")]
        #[allow(clippy::too_many_arguments)]
        pub fn $par(
            threads: usize,
            m: usize,
            k: usize,
            n: usize,
            alpha: $t,
            a: &[$t],
            rsa: isize,
            csa: isize,
            b: &[$t],
            rsb: isize,
            csb: isize,
            beta: $t,
            c: &mut [$t],
            rsc: isize,
            csc: isize,
        ) -> Result<(), GemmError> {
            gemm_with(
                Options { isa: Isa::selected_for_gemm(), threads, packing: Packing::Auto },
                alpha,
                MatRef { data: a, rows: m, cols: k, row_stride: rsa, col_stride: csa },
                MatRef { data: b, rows: k, cols: n, row_stride: rsb, col_stride: csb },
                beta,
                MatMut { data: c, rows: m, cols: n, row_stride: rsc, col_stride: csc },
            )
        }
    };
}

blas_entry!(
    /// `C ← α·A·B + β·C` in `f32`.
    sgemm,
    sgemm_par,
    f32
);
blas_entry!(
    /// `C ← α·A·B + β·C` in `f64`.
    dgemm,
    dgemm_par,
    f64
);
