//! The element pairs the GEMM multiplies, behind one entry: `A`'s element implements
//! [`Pair<B>`] with the C element as [`Pair::Out`].
//!
//! | A | B | C, α, β | kernels |
//! |---|---|---|---|
//! | `f32` | `f32` | `f32` | FMA tiles (AVX-512 32×12, AVX2 16×6, portable 4×4) |
//! | `f64` | `f64` | `f64` | FMA tiles (32×6, 8×6, 4×4) |
//! | `bf16` | `bf16` | `f32` | `vdpbf16ps` (AVX-512 BF16, strided operands); else widened in packing, f32 tiles |
//! | `f16` | `f16` | `f32` | widened in packing (F16C), f32 tiles |
//! | `u8`/`i8` | `u8`/`i8` | `i32` | `i16` k-pairs, `vpmaddwd` 16×6 (AVX2), portable 4×4 |
//!
//! Every pair runs the same loops, blocking, threads, edge tiles and operand layouts (strided,
//! any affine layout through its axis maps, other layouts densified by the copy engine); only
//! packing (what a panel element is) and the microkernel differ.

use half::{bf16, f16};

use super::error::GemmError;
use super::tensor::general_with;
use super::{MatMut, MatRef, Options};
use crate::tensor::{Storage, StorageMut, Tensor};
use crate::walk::AnyLayout;

mod sealed {
    pub trait Sealed<B> {}
}

/// An (A, B → C) element pair of the GEMM, implemented on A's element with B's as the
/// parameter: `f32 × f32 → f32`, `f64 × f64 → f64`, `bf16 × bf16 → f32`, `f16 × f16 → f32`,
/// and `u8`/`i8` × `u8`/`i8` → `i32` (exact, wrapping modulo 2³²). See the table in the
/// [module docs](self).
///
/// ```
/// use half::bf16;
/// use layout_core::{DynLayout, Tensor, gemm};
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // u8 activations × i8 weights → i32
/// let a = Tensor::new(vec![1u8, 2, 3, 4, 5, 6], l("(2,3):(3,1)")).unwrap();
/// let b = Tensor::new(vec![1i8, -1, 0, 2, -3, 1], l("(3,2):(2,1)")).unwrap();
/// let mut c = Tensor::new(vec![0i32; 4], l("(2,2):(2,1)")).unwrap();
/// gemm::gemm(1, &a, &b, 0, &mut c).unwrap();
/// assert_eq!(c.as_slice(), &[-8, 6, -14, 12]);
/// // bf16 × bf16 → f32, same entry
/// let a = Tensor::new([1.0f32, 2.0, 3.0, 4.0].map(bf16::from_f32).to_vec(), l("(2,2):(2,1)")).unwrap();
/// let mut c = Tensor::new(vec![0f32; 4], l("(2,2):(1,2)")).unwrap();
/// gemm::gemm(1.0, &a, &a, 0.0, &mut c).unwrap();
/// assert_eq!(c.as_slice(), &[7.0, 15.0, 10.0, 22.0]);
/// ```
pub trait Pair<B>: sealed::Sealed<B> + Copy + Default + Send + Sync + 'static {
    /// C's element (also α and β).
    type Out: Copy + Default + PartialEq + Send + Sync + 'static;

    /// The tensor product (the body of [`gemm_tensors_with`](super::gemm_tensors_with)).
    #[doc(hidden)]
    fn gemm_tensors<SA, LA, SB, LB, SC, LC>(
        opts: Options,
        alpha: Self::Out,
        a: &Tensor<SA, LA>,
        b: &Tensor<SB, LB>,
        beta: Self::Out,
        c: &mut Tensor<SC, LC>,
    ) -> Result<(), GemmError>
    where
        SA: Storage<Elem = Self>,
        SB: Storage<Elem = B>,
        SC: StorageMut<Elem = Self::Out>,
        LA: AnyLayout,
        LB: AnyLayout,
        LC: AnyLayout;

    /// The layout of one packed micro-panel of `r` rows (the kernel's MR for A, NR for B) by
    /// `k` steps of the reduction, as the kernels of `isa` read this pair: element (row i, step p)
    /// of the panel at its offset. One k value per step for `f32`, `f64` and widened 16-bit
    /// floats: `(r, k) : (1, r)`; k in pairs for the integer pairs and for bf16 on AVX-512 BF16
    /// (`vpmaddwd`, `vdpbf16ps`): `(r, (2, ⌈k/2⌉)) : (2, (1, 2r))` over k padded to even.
    ///
    /// ```
    /// use layout_core::gemm::{Isa, Pair};
    /// let l = <u8 as Pair<i8>>::panel_layout(Isa::Portable, 4, 6).unwrap();
    /// assert_eq!(l.to_string(), "(4,(2,3)):(2,(1,8))");
    /// assert_eq!(l.offset(1 + 4 * 3), 2 + 9); // row 1, k step 3: second of pair 1
    /// ```
    ///
    /// # Errors
    /// `r` or `k` zero, or an extent beyond `i64`.
    fn panel_layout(
        isa: super::Isa,
        r: usize,
        k: usize,
    ) -> Result<crate::DynLayout, crate::LayoutError>;

    /// The strided product (the body of [`gemm_with`](super::gemm_with)).
    #[doc(hidden)]
    fn gemm_mat(
        opts: Options,
        alpha: Self::Out,
        a: MatRef<'_, Self>,
        b: MatRef<'_, B>,
        beta: Self::Out,
        c: MatMut<'_, Self::Out>,
    ) -> Result<(), GemmError>;
}

macro_rules! float_pair {
    ($t:ty) => {
        impl sealed::Sealed<$t> for $t {}
        impl Pair<$t> for $t {
            type Out = $t;
            fn gemm_tensors<SA, LA, SB, LB, SC, LC>(
                opts: Options,
                alpha: $t,
                a: &Tensor<SA, LA>,
                b: &Tensor<SB, LB>,
                beta: $t,
                c: &mut Tensor<SC, LC>,
            ) -> Result<(), GemmError>
            where
                SA: Storage<Elem = $t>,
                SB: Storage<Elem = $t>,
                SC: StorageMut<Elem = $t>,
                LA: AnyLayout,
                LB: AnyLayout,
                LC: AnyLayout,
            {
                super::tensor::float_tensors(opts, alpha, a, b, beta, c)
            }
            fn panel_layout(
                _: super::Isa,
                r: usize,
                k: usize,
            ) -> Result<crate::DynLayout, crate::LayoutError> {
                super::pack::panel_layout(1, r, k)
            }
            fn gemm_mat(
                opts: Options,
                alpha: $t,
                a: MatRef<'_, $t>,
                b: MatRef<'_, $t>,
                beta: $t,
                c: MatMut<'_, $t>,
            ) -> Result<(), GemmError> {
                super::gemm_float(opts, alpha, a, b, beta, c)
            }
        }
    };
}
float_pair!(f32);
float_pair!(f64);

macro_rules! half_pair {
    ($t:ty) => {
        impl sealed::Sealed<$t> for $t {}
        impl Pair<$t> for $t {
            type Out = f32;
            fn gemm_tensors<SA, LA, SB, LB, SC, LC>(
                opts: Options,
                alpha: f32,
                a: &Tensor<SA, LA>,
                b: &Tensor<SB, LB>,
                beta: f32,
                c: &mut Tensor<SC, LC>,
            ) -> Result<(), GemmError>
            where
                SA: Storage<Elem = $t>,
                SB: Storage<Elem = $t>,
                SC: StorageMut<Elem = f32>,
                LA: AnyLayout,
                LB: AnyLayout,
                LC: AnyLayout,
            {
                super::gemm_half_tensors_with(opts, alpha, a, b, beta, c)
            }
            fn panel_layout(
                isa: super::Isa,
                r: usize,
                k: usize,
            ) -> Result<crate::DynLayout, crate::LayoutError> {
                super::pack::panel_layout(super::half_inputs::kstep::<$t>(isa), r, k)
            }
            fn gemm_mat(
                opts: Options,
                alpha: f32,
                a: MatRef<'_, $t>,
                b: MatRef<'_, $t>,
                beta: f32,
                c: MatMut<'_, f32>,
            ) -> Result<(), GemmError> {
                super::gemm_half(opts, alpha, a, b, beta, c)
            }
        }
    };
}
half_pair!(bf16);
half_pair!(f16);

macro_rules! int_pair {
    ($a:ty, $b:ty) => {
        impl sealed::Sealed<$b> for $a {}
        impl Pair<$b> for $a {
            type Out = i32;
            fn gemm_tensors<SA, LA, SB, LB, SC, LC>(
                opts: Options,
                alpha: i32,
                a: &Tensor<SA, LA>,
                b: &Tensor<SB, LB>,
                beta: i32,
                c: &mut Tensor<SC, LC>,
            ) -> Result<(), GemmError>
            where
                SA: Storage<Elem = $a>,
                SB: Storage<Elem = $b>,
                SC: StorageMut<Elem = i32>,
                LA: AnyLayout,
                LB: AnyLayout,
                LC: AnyLayout,
            {
                int_tensors(opts, alpha, a, b, beta, c)
            }
            fn panel_layout(
                _: super::Isa,
                r: usize,
                k: usize,
            ) -> Result<crate::DynLayout, crate::LayoutError> {
                super::pack::panel_layout(2, r, k)
            }
            fn gemm_mat(
                opts: Options,
                alpha: i32,
                a: MatRef<'_, $a>,
                b: MatRef<'_, $b>,
                beta: i32,
                c: MatMut<'_, i32>,
            ) -> Result<(), GemmError> {
                super::gemm_i8(opts, alpha, a, b, beta, c)
            }
        }
    };
}
int_pair!(u8, i8);
int_pair!(i8, i8);
int_pair!(u8, u8);
int_pair!(i8, u8);

/// The integer pairs on tensors of any layouts.
fn int_tensors<TA, TB, SA, LA, SB, LB, SC, LC>(
    opts: Options,
    alpha: i32,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: i32,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    TA: super::Int8 + Default,
    TB: super::Int8 + Default,
    SA: Storage<Elem = TA>,
    SB: Storage<Elem = TB>,
    SC: StorageMut<Elem = i32>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    let op = "gemm_i8";
    // BLAS's rule (module docs): α = 0 is C ← β·C, A and B unread
    if alpha == 0 {
        return super::tensor::beta_only_with(op, a, b, c, |x| x.wrapping_mul(beta));
    }
    general_with(op, opts, a, b, beta != 0, c, |e| {
        super::int8::run_i8(opts.isa, e.threads, e.mkn, alpha, e.a, e.b, beta, e.c);
        Ok(())
    })
}
