//! Register-tiled CPU GEMM: `C ← α·A·B + β·C` for every element [`Pair`] — `f32`, `f64`,
//! `bf16`/`f16` into `f32`, `u8`/`i8` into `i32` — on strided matrices and on tensors of any
//! layout, through one engine.
//!
//! # The public entries
//!
//! | entry | operands | for |
//! |---|---|---|
//! | [`gemm()`] | rank-2 tensors of any layouts, every [`Pair`] | the usual call |
//! | [`gemm_tensors_with`] | the same, with [`Options`] | the instruction set, threads, packing |
//! | [`gemm_static`] | tensors of static layouts | extents checked at compile time, constant-shape kernels |
//! | [`gemm_with`] | strided slices ([`MatRef`], [`MatMut`]), every [`Pair`], [`Options`] | BLAS-like code without tensors |
//! | [`sgemm`], [`dgemm`] | strided `f32` / `f64` slices in matrixmultiply's argument order | drop-in for BLAS-style callers |
//! | [`gemm_packed`] | B packed once ([`PackedB`]) | weights reused across calls |
//! | [`gemm_quant`] | quantized B (GGUF Q4_0/Q8_0, GPTQ/AWQ) | inference: decode and prefill chosen by m |
//! | [`batch_reduce`] | batches of strided `f32`/`f64` `Aᵢ`, `Bᵢ` | `C ← α·Σᵢ Aᵢ·Bᵢ + β·C`, C in registers across the batch (convolution taps) |
//!
//! Every entry only builds its operand views and calls the one front (`front.rs`), which
//! checks (shapes, instruction set, each operand inside its buffer, C injective), applies
//! BLAS's rule and the thread rule, and picks the route — static tiles → matrix × vector →
//! unpacked small products → the blocked engine — each rule written once.
//!
//! The blocked engine's structure is BLIS's (Goto & van de Geijn 2008; Van Zee & van de Geijn
//! 2015), the one matrixmultiply, gemm and faer share:
//!
//! - [`dispatch`]: the instruction set is the crate's one [`Isa`], detected once
//!   ([`Isa::selected_for_gemm`]; `LAYOUT_ISA=portable|avx2|avx512|neon` caps every SIMD path,
//!   `LAYOUT_GEMM_ISA` the GEMM alone), and picks a kernel with its tile
//!   shape and cache blocking;
//! - `block`: the five loops jc (NC columns of B, in L3) → pc (KC steps of k; pack B) → ic (MC
//!   rows of A, in L2; pack A) → jr (NR) → ir (MR);
//! - `pack`: A and B blocks copied into zero-padded micro-panels, `((MR, m/MR), k) : ((1, MR·k), MR)`;
//! - `kernel`: one generic `#[inline(always)]` microkernel body holding the MR×NR tile of C in
//!   registers, instantiated per instruction set (`x86`: AVX-512F f32 32×12 / f64 32×6, AVX2+FMA
//!   f32 16×6 / f64 8×6; `neon` on aarch64: f32 8×12 / f64 8×6; portable 4×4).
//!
//! [`gemm`] is the same engine on this crate's rank-2 [`Tensor`](crate::Tensor)s.
//!
//! Edge tiles are computed into a stack tile and merged, so nothing outside the operands is read
//! or written.
//!
//! # α = 0, β = 0 and empty products: BLAS's rule on every path
//!
//! Every entry applies one rule (the front's), after its argument checks — the instruction set
//! is checked first, so an unavailable one is refused whatever α is — and before any kernel,
//! whatever the instruction set, [`Packing`] or number of threads:
//!
//! - m = 0 or n = 0: nothing is read or written;
//! - α = 0 or k = 0: A·B is not computed, so NaN or ∞ in A or B does not reach C, and C ← β·C;
//! - β = 0: C is never read, it is overwritten (NaN in C does not leak); β = 1 leaves C as it is.
//!
//! ```
//! use layout::gemm::sgemm;
//! let mut c = [2.0f32; 4];
//! sgemm(2, 2, 2, 0.0, &[f32::NAN; 4], 2, 1, &[1.0; 4], 2, 1, 0.5, &mut c, 2, 1).unwrap();
//! assert_eq!(c, [1.0; 4]); // α = 0: C ← β·C, the NaN in A is never read
//! ```
//!
//! ```
//! use layout::gemm::sgemm;
//! // A 2×3 row-major, B 3×2 row-major, C 2×2 row-major
//! let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
//! let b = [1.0, 0.0, 0.0, 1.0, 1.0, 1.0];
//! let mut c = [f32::NAN; 4];
//! sgemm(2, 3, 2, 1.0, &a, 3, 1, &b, 2, 1, 0.0, &mut c, 2, 1).unwrap();
//! assert_eq!(c, [4.0, 5.0, 10.0, 11.0]);
//! ```

#[cfg(target_arch = "x86_64")]
mod amx;
mod batch;
#[cfg(target_arch = "x86_64")]
mod batch_avx2;
#[cfg(target_arch = "x86_64")]
mod batch_avx512;
#[cfg(target_arch = "x86_64")]
mod batch_bf16;
#[cfg(target_arch = "x86_64")]
mod batch_bf16_asm;
#[cfg(target_arch = "x86_64")]
mod bf16;
mod block;
mod check;
#[cfg(target_arch = "x86_64")]
mod direct;
pub mod dispatch;
mod entry;
mod error;
mod fixed;
mod front;
mod gemv;
mod half_inputs;
mod igemv;
mod int8;
mod kernel;
mod kvec;
mod maps;
#[cfg(target_arch = "aarch64")]
mod neon;
#[cfg(target_arch = "aarch64")]
mod neon_bf16;
#[cfg(target_arch = "aarch64")]
mod neon_int8;
mod operand;
mod options;
mod pack;
mod packed_b;
mod pair;
mod q4i8;
mod qgemv;
mod quads;
#[cfg(target_arch = "x86_64")]
mod quads_zmm;
mod quant_b;
mod swizzled;
mod tensor;
mod threads;
mod view;
mod widen;
#[cfg(target_arch = "x86_64")]
mod x86;

pub use batch::batch_reduce;
pub use dispatch::Isa;

pub use entry::{dgemm, gemm, gemm_into_half, gemm_static, gemm_tensors_with, gemm_with, sgemm};
pub use error::{GemmError, Operand, OperandShape};
pub use fixed::{
    ColExtent, InnerExtent, RowExtent, SMALL_STRIDED_WORK, STATIC_MAX, STATIC_MAX_WORK,
    StaticMatrix, TINY_WORK, Table,
};
pub use int8::Int8;
pub use kernel::{Element, Scalar};
pub use operand::{HalfOutput, RightOperand};
pub use options::{MatMut, MatRef, Options, PARALLEL_MIN_WORK, Packing};
pub use packed_b::{Packable, PackedB, gemm_packed};
pub use pair::Pair;
pub use quant_b::{QuantB, gemm_quant};
pub use widen::Half;

// The engine's hooks for other modules of the crate (convolution's implicit im2col): an operand
// is anything that packs panels (`Panels`), C is an `Out`; the front's rules.
#[allow(unused_imports)]
pub(crate) use {
    block::{Out, run_panels},
    check::Strided,
    front::{Rule, c_index, isa_checked, rule, scale_c, threads},
    kernel::Kern,
    maps::Mapped,
    pack::Panels,
    threads::split as split_threads,
    widen::simd as widen_simd,
};
// the batch-reduce's register tiles, for the convolution's taps (`conv/taps.rs`)
#[cfg(target_arch = "x86_64")]
pub(crate) use batch::{Item as BatchItem, Shape as BatchShape, nr_f32, tiles_f32};
// the bf16 pair tile (`vdpbf16ps`), for the convolution's bf16 taps (`conv/taps_bf16.rs`)
#[cfg(target_arch = "x86_64")]
pub(crate) use batch_bf16::{
    NR as PAIR_NR, PairItem, PairShape, available as pairs_available, tiles_bf16,
};
