//! 16-bit float inputs accumulating in `f32`: `C(f32) ← α·A·B + β·C` with A and B in
//! [`half::f16`] or [`half::bf16`].
//!
//! This is the converting path: A and B are widened to `f32` once (into column-major buffers,
//! `O(mk + kn)` work against the product's `O(mnk)`), then the `f32` engine runs. Products of
//! two 16-bit floats are exact in `f32`, so the results are those of the `f32` GEMM on the
//! widened inputs. A kernel on the packed 16-bit data (`vdpbf16ps` on AVX-512 BF16) would halve
//! the packing bandwidth; it is not written yet.

use std::vec::Vec;

use super::check::check_operand;
use super::error::{GemmError, Operand, OperandShape};
use super::{MatMut, MatRef, Options, gemm_with};

/// A 16-bit floating-point input type: [`half::f16`] or [`half::bf16`].
pub trait Half: Copy + Send + Sync + 'static {
    /// The value as `f32` (exact).
    fn to_f32(self) -> f32;
}

impl Half for half::f16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        half::f16::to_f32(self)
    }
}

impl Half for half::bf16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        half::bf16::to_f32(self)
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
/// As [`gemm_with`]; [`GemmError::Allocation`] when the `f32` buffers cannot be allocated.
pub fn gemm_half<H: Half>(
    opts: impl Into<Options>,
    alpha: f32,
    a: MatRef<'_, H>,
    b: MatRef<'_, H>,
    beta: f32,
    c: MatMut<'_, f32>,
) -> Result<(), GemmError> {
    let op = "gemm_half";
    let widen = |x: MatRef<'_, H>, operand| -> Result<Vec<f32>, GemmError> {
        let shape = OperandShape {
            operand,
            rows: x.rows,
            cols: x.cols,
            row_stride: x.row_stride,
            col_stride: x.col_stride,
        };
        let s = check_operand(op, shape, x.data.len())?;
        let len = x.rows * x.cols;
        let mut v = Vec::new();
        v.try_reserve_exact(len)
            .map_err(|_| GemmError::Allocation { op, elements: len })?;
        for j in 0..x.cols {
            for i in 0..x.rows {
                // (i, j) is an element of the checked operand
                let at = s.origin + i as isize * s.rs + j as isize * s.cs;
                v.push(x.data[at as usize].to_f32());
            }
        }
        Ok(v)
    };
    let (wa, wb) = (widen(a, Operand::A)?, widen(b, Operand::B)?);
    gemm_with(
        opts,
        alpha,
        MatRef {
            data: &wa,
            rows: a.rows,
            cols: a.cols,
            row_stride: 1,
            col_stride: a.rows.max(1) as isize,
        },
        MatRef {
            data: &wb,
            rows: b.rows,
            cols: b.cols,
            row_stride: 1,
            col_stride: b.rows.max(1) as isize,
        },
        beta,
        c,
    )
}
