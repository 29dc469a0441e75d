//! The right-hand operand of the tensor entries ([`gemm`](fn@super::gemm),
//! [`gemm_tensors_with`](super::gemm_tensors_with), [`Tensor::matmul`]): a tensor of any
//! layout, or quantized weights (`Q4_0`, `Q8_0`, GPTQ/AWQ), so that one call multiplies an
//! activation tensor by either.
//!
//! A quantized B goes to [`gemm_quant`], which chooses the route itself (up to eight dense
//! rows of A — decode — read the stored bytes in place; larger products — prefill —
//! dequantize block by block inside the packing, or multiply in 8-bit integers with
//! [`QuantB::int8_activations`]). A and C reach it in place when each axis is one stride; any
//! other layout (NZ, a swizzle) is gathered into a row-major buffer first (C copied back after
//! the product), so every check and rule stays `gemm_quant`'s front door's.

use super::check::agree;
use super::error::{GemmError, Operand};
use super::front;
use super::kernel::Scalar;
use super::options::{MatMut, MatRef, Options};
use super::pair::Pair;
use super::quant_b::{QuantB, gemm_quant};
use super::tensor::geometry;
use crate::packed::{Group4Matrix, Q4_0Matrix, Q8_0Matrix, QuantRef, QuantizedB};
use crate::tensor::{Storage, StorageMut, Tensor};
use crate::walk::AnyLayout;
use std::vec::Vec;

mod sealed {
    pub trait Sealed {}
}

/// What a tensor `A` of elements `A` can be multiplied by in [`gemm`](fn@super::gemm): a
/// [`Tensor`] of any layout (of an element `B` with `A:` [`Pair<B>`]), or quantized weights
/// (`Q4_0Matrix`, `Q8_0Matrix`, `Group4Matrix`, [`QuantRef`], [`QuantB`]) for `f32` A.
/// Sealed: implemented by this crate only.
///
/// ```
/// use layout::Tensor;
/// use layout::gemm::gemm;
/// use layout::packed::{QuantizedB, quantize_q4_0};
/// let (k, n) = (64, 8);
/// let w: Vec<f32> = (0..k * n).map(|i| ((i * 7 % 13) as f32 - 6.0) * 0.1).collect();
/// let q = quantize_q4_0(k, n, &w).unwrap(); // the weights, k × n
/// let x = Tensor::from_fn(&[1, k], |i| (i % 5) as f32 - 2.0).unwrap(); // one token
/// let mut y = Tensor::from_vec(vec![0f32; n], &[1, n]).unwrap();
/// gemm(1.0, &x, &q, 0.0, &mut y).unwrap(); // decode: the 4-bit bytes read in place
/// let b = Tensor::from_vec(q.dequantize().unwrap(), &[k, n]).unwrap(); // for the check only
/// let want = x.matmul(&b).unwrap();
/// for (u, v) in y.iter().zip(want.iter()) {
///     assert!((u - v).abs() <= 1e-4 * (1.0 + v.abs()));
/// }
/// ```
pub trait RightOperand<A>: sealed::Sealed {
    /// The element of C, α and β.
    type Out: Scalar;

    /// The number of columns (n), for [`Tensor::matmul`]'s result.
    #[doc(hidden)]
    fn columns(&self, op: &'static str) -> Result<usize, GemmError>;

    /// `C ← α·A·self + β·C` through the GEMM's front.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments)]
    fn product<SA, LA, SC, LC>(
        &self,
        op: &'static str,
        opts: Options,
        alpha: Self::Out,
        a: &Tensor<SA, LA>,
        beta: Self::Out,
        c: &mut Tensor<SC, LC>,
    ) -> Result<(), GemmError>
    where
        SA: Storage<Elem = A>,
        LA: AnyLayout,
        SC: StorageMut<Elem = Self::Out>,
        LC: AnyLayout;
}

/// Rows and columns of a rank-2 tensor domain, or `NotMatrix`.
fn dims<L: AnyLayout>(op: &'static str, operand: Operand, l: &L) -> Result<[usize; 2], GemmError> {
    let d = l.domain();
    let rank = if d.is_leaf() { 1 } else { d.rank() };
    let size = |i| d.mode(i).ok().and_then(|m| m.size().ok());
    match (rank, size(0), size(1)) {
        // sizes of a valid layout are positive i64s
        (2, Some(r), Some(c)) => Ok([r as usize, c as usize]),
        _ => Err(GemmError::NotMatrix { op, operand, rank }),
    }
}

impl<SB: Storage, LB: AnyLayout> sealed::Sealed for Tensor<SB, LB> {}

impl<A, B, SB, LB> RightOperand<A> for Tensor<SB, LB>
where
    A: Pair<B>,
    B: Copy + Default,
    SB: Storage<Elem = B>,
    LB: AnyLayout,
{
    type Out = A::Out;

    fn columns(&self, op: &'static str) -> Result<usize, GemmError> {
        Ok(dims(op, Operand::B, self.layout())?[1])
    }

    #[inline]
    fn product<SA, LA, SC, LC>(
        &self,
        op: &'static str,
        opts: Options,
        alpha: A::Out,
        a: &Tensor<SA, LA>,
        beta: A::Out,
        c: &mut Tensor<SC, LC>,
    ) -> Result<(), GemmError>
    where
        SA: Storage<Elem = A>,
        LA: AnyLayout,
        SC: StorageMut<Elem = A::Out>,
        LC: AnyLayout,
    {
        front::tensors(op, opts, alpha, a, self, beta, c)
    }
}

/// A zero-filled buffer of `elements`, or [`GemmError::Allocation`] (never an abort).
fn buffer(op: &'static str, elements: usize) -> Result<Vec<f32>, GemmError> {
    let mut v = Vec::new();
    v.try_reserve_exact(elements)
        .map_err(|_| GemmError::Allocation { op, elements })?;
    v.resize(elements, 0.0);
    Ok(v)
}

/// `C ← α·A·B + β·C` for f32 tensors A and C of any layouts and a quantized B: A and C in
/// place when strided, else through row-major copies; the product is [`gemm_quant`]'s.
fn quant_tensors<SA, LA, SC, LC>(
    op: &'static str,
    opts: Options,
    alpha: f32,
    a: &Tensor<SA, LA>,
    q: QuantB<'_>,
    beta: f32,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    SA: Storage<Elem = f32>,
    LA: AnyLayout,
    SC: StorageMut<Elem = f32>,
    LC: AnyLayout,
{
    // the shapes first: nothing is gathered or allocated for operands that do not agree
    let [m, k] = dims(op, Operand::A, a.layout())?;
    let [mc, nc] = dims(op, Operand::C, c.layout())?;
    agree(op, [m, k], q.dims(), [mc, nc])?;
    let n = nc;
    // A: in place when each axis is one stride, else a row-major copy
    let gathered;
    let am = match geometry(op, Operand::A, a.layout(), a.base_offset()) {
        Ok(g) if LA::AFFINE => g.mat(a.as_slice().get(g.lowest..).unwrap_or(&[])),
        _ => {
            let mut t = Tensor::from_vec(buffer(op, m * k)?, &[m, k]).map_err(|_| {
                GemmError::Allocation {
                    op,
                    elements: m * k,
                }
            })?;
            t.copy_from(a).map_err(|_| GemmError::NotMatrix {
                op,
                operand: Operand::A,
                rank: 2,
            })?;
            gathered = t;
            let (rows, cols) = (m, k);
            MatRef {
                data: gathered.as_slice(),
                rows,
                cols,
                row_stride: k as isize,
                col_stride: 1,
            }
        }
    };
    // C: in place when strided (its checks are the front's), else through a row-major buffer
    if LC::AFFINE
        && let Ok(g) = geometry(op, Operand::C, c.layout(), c.base_offset())
    {
        let data = c.as_mut_slice();
        let len = data.len();
        let cm = MatMut {
            data: data.get_mut(g.lowest.min(len)..).unwrap_or(&mut []),
            rows: g.rows,
            cols: g.cols,
            row_stride: g.rs,
            col_stride: g.cs,
        };
        return gemm_quant(opts, alpha, am, q, beta, cm);
    }
    let mut t =
        Tensor::from_vec(buffer(op, m * n)?, &[m, n]).map_err(|_| GemmError::Allocation {
            op,
            elements: m * n,
        })?;
    let copy_err = |_| GemmError::NotMatrix {
        op,
        operand: Operand::C,
        rank: 2,
    };
    if beta != 0.0 {
        t.copy_from(&*c).map_err(copy_err)?;
    }
    let cm = MatMut {
        data: t.as_mut_slice(),
        rows: m,
        cols: n,
        row_stride: n as isize,
        col_stride: 1,
    };
    gemm_quant(opts, alpha, am, q, beta, cm)?;
    c.copy_from(&t).map_err(copy_err)?;
    Ok(())
}

macro_rules! quantized {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}

        impl RightOperand<f32> for $t {
            type Out = f32;

            fn columns(&self, _: &'static str) -> Result<usize, GemmError> {
                Ok(QuantB::from(*self).dims()[1])
            }

            fn product<SA, LA, SC, LC>(
                &self,
                op: &'static str,
                opts: Options,
                alpha: f32,
                a: &Tensor<SA, LA>,
                beta: f32,
                c: &mut Tensor<SC, LC>,
            ) -> Result<(), GemmError>
            where
                SA: Storage<Elem = f32>,
                LA: AnyLayout,
                SC: StorageMut<Elem = f32>,
                LC: AnyLayout,
            {
                quant_tensors(op, opts, alpha, a, QuantB::from(*self), beta, c)
            }
        }
    )*};
}
quantized!(QuantB<'_>, QuantRef<'_>);

macro_rules! quantized_matrix {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}

        impl RightOperand<f32> for $t {
            type Out = f32;

            fn columns(&self, _: &'static str) -> Result<usize, GemmError> {
                Ok(QuantizedB::cols(self))
            }

            fn product<SA, LA, SC, LC>(
                &self,
                op: &'static str,
                opts: Options,
                alpha: f32,
                a: &Tensor<SA, LA>,
                beta: f32,
                c: &mut Tensor<SC, LC>,
            ) -> Result<(), GemmError>
            where
                SA: Storage<Elem = f32>,
                LA: AnyLayout,
                SC: StorageMut<Elem = f32>,
                LC: AnyLayout,
            {
                quant_tensors(op, opts, alpha, a, QuantB::from(self), beta, c)
            }
        }
    )*};
}
quantized_matrix!(Q4_0Matrix, Q8_0Matrix, Group4Matrix);

mod half_sealed {
    pub trait Sealed {}
}

/// A 16-bit float element C can be stored in by [`gemm_into_half`](super::gemm_into_half):
/// [`half::f16`] or [`half::bf16`]. Sealed.
///
/// ```
/// use layout::tensor::{Tensor, TensorOwned};
/// use layout::gemm::{HalfOutput, Options, gemm_into_half};
/// use layout::named::bf16;
/// fn project<H: HalfOutput>(x: &TensorOwned<f32>, w: &TensorOwned<f32>, y: &mut TensorOwned<H>) {
///     gemm_into_half(Options::default(), 1.0, x, w, 0.0, y).unwrap();
/// }
/// let x = Tensor::from_vec(vec![1.0f32; 4], &[2, 2]).unwrap();
/// let mut y = Tensor::from_vec(vec![bf16::ZERO; 4], &[2, 2]).unwrap();
/// project(&x, &x, &mut y);
/// assert!(y.iter().all(|v| v.to_f32() == 2.0));
/// ```
pub trait HalfOutput: half_sealed::Sealed + Copy {
    /// The value rounded to nearest, ties to even, from `f32`.
    #[doc(hidden)]
    fn round_from(x: f32) -> Self;
    /// The value as `f32` (exact).
    #[doc(hidden)]
    fn widen(self) -> f32;
}

macro_rules! half_output {
    ($($h:ty),*) => {$(
        impl half_sealed::Sealed for $h {}

        impl HalfOutput for $h {
            #[inline]
            fn round_from(x: f32) -> Self {
                <$h>::from_f32(x)
            }
            #[inline]
            fn widen(self) -> f32 {
                self.to_f32()
            }
        }
    )*};
}
half_output!(half::f16, half::bf16);

/// `C ← α·A·B + β·C` with a 16-bit C: the product runs in `f32` through the tensor entries'
/// front into a row-major buffer of C's shape (holding β·C widened exactly when β ≠ 0; never
/// reading C when β = 0), then each element is rounded into C once. Every check (shapes,
/// instruction set) runs on that buffer before C is read or written.
#[allow(clippy::too_many_arguments)]
pub(crate) fn into_half<TA, B, SA, LA, H, SC, LC>(
    op: &'static str,
    opts: Options,
    alpha: f32,
    a: &Tensor<SA, LA>,
    b: &B,
    beta: f32,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    B: RightOperand<TA, Out = f32> + ?Sized,
    SA: Storage<Elem = TA>,
    LA: AnyLayout,
    H: HalfOutput,
    SC: StorageMut<Elem = H>,
    LC: AnyLayout,
{
    let [m, n] = dims(op, Operand::C, c.layout())?;
    let elements = m.saturating_mul(n);
    let mut t = Tensor::from_vec(buffer(op, elements)?, &[m, n])
        .map_err(|_| GemmError::Allocation { op, elements })?;
    if beta != 0.0 {
        // row-major logical order on both sides
        for (x, y) in t.iter_mut().zip(c.iter()) {
            *x = y.widen();
        }
    }
    b.product(op, opts, alpha, a, beta, &mut t)?;
    for (y, x) in c.iter_mut().zip(t.iter()) {
        *y = H::round_from(*x);
    }
    Ok(())
}
