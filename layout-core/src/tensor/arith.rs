//! Owned tensors of a given layout filled with one value (`zeros`, `ones`, `full`,
//! `zeros_like`), and element-wise arithmetic operators between tensors of the same shape.
//!
//! The operators take operands of any layouts (strided, NZ, swizzled, static, views) and pair
//! elements by logical coordinate; the result has the **left operand's layout**. `&a + &b` (and
//! `-`, `*`, `/`) is a `Result`, since the shapes may differ:
//!
//! ```
//! use layout::named::{f16, make_nz_layout};
//! use layout::tensor::{Tensor, TensorOwned};
//! let nz = make_nz_layout::<f16>(32, 32)?;
//! let a: TensorOwned<f32> = Tensor::full(nz, 2.0)?;          // NZ, every element 2
//! let b = Tensor::from_fn(&[32, 32], |i| i as f32)?;          // row-major 0, 1, 2, …
//! let c = (&a * &b)?;                                          // NZ, like `a`
//! assert_eq!(c.layout(), a.layout());
//! assert_eq!(c[[3, 5]], 2.0 * b[[3, 5]]);
//! let mut d = Tensor::zeros_like(&b)?;                         // row-major, like `b`
//! d += &c;                                                     // in place, any layouts
//! d -= &b;
//! assert_eq!(d[[31, 30]], b[[31, 30]]);
//! # Ok::<(), layout::Error>(())
//! ```
//!
//! The assign forms (`+=`, `-=`, `*=`, `/=`) cannot return an error: they panic when the shapes
//! differ, as indexing panics out of range; [`Tensor::zip_map_inplace`] is their fallible form.

use super::{ShapeOp, Storage, StorageMut, Tensor, TensorError, try_alloc};
use crate::{AnyLayout, LayoutError};
use alloc::vec::Vec;
use core::ops::{Add, AddAssign, Div, DivAssign, Mul, MulAssign, Sub, SubAssign};

impl<T: Clone, L: AnyLayout> Tensor<Vec<T>, L> {
    /// An owned tensor of layout `layout` with every element `value` (NumPy's `np.full`). The
    /// buffer spans the layout's offsets (its cosize; with negative strides the base offset
    /// is the distance to the lowest one), and every element of it is `value`.
    ///
    /// ```
    /// use layout::{DynLayout, tensor::Tensor};
    /// let l: DynLayout = "(2,3):(1,4)".parse().unwrap();   // column-major with a gap
    /// let t = Tensor::full(l, 7u8).unwrap();
    /// assert_eq!(t.layout(), &l);
    /// assert_eq!(t.as_slice().len(), 10);                    // offsets 0..=9
    /// assert!(t.iter().all(|&x| x == 7));
    /// ```
    ///
    /// # Errors
    /// The layout's own validation errors; [`LayoutError::NotInjective`] (an owned tensor is
    /// writable: a broadcast layout is refused); [`TensorError::OutputAllocation`] when the
    /// buffer cannot be allocated (never an abort).
    pub fn full(layout: L, value: T) -> Result<Self, TensorError> {
        filled("full", layout, value)
    }

    /// An owned tensor of layout `layout` with every element `T::default()`: zero for numbers
    /// (NumPy's `np.zeros`, ndarray's `Array::zeros`, with a layout of this crate).
    ///
    /// ```
    /// use layout::{Int, Layout, tensor::{Tensor, TensorOwned}};
    /// let l = Layout::new((Int::<4>, Int::<8>), (Int::<8>, Int::<1>));   // static, row-major
    /// let t: TensorOwned<f32, _> = Tensor::zeros(l).unwrap();
    /// assert_eq!(t[(3, 7)], 0.0);
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::full`].
    pub fn zeros(layout: L) -> Result<Self, TensorError>
    where
        T: Default,
    {
        filled("zeros", layout, T::default())
    }

    /// An owned tensor of layout `layout` with every element one (`T::from(1u8)`: every float
    /// and integer type but `i8`, and `f16`/`bf16`; for others use [`Tensor::full`]).
    ///
    /// ```
    /// use layout::{DynLayout, tensor::Tensor};
    /// let t = Tensor::<Vec<f64>, _>::ones("(3,3):(3,1)".parse::<DynLayout>()?)?;
    /// assert_eq!(t.iter().sum::<f64>(), 9.0);
    /// # Ok::<(), layout::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::full`].
    pub fn ones(layout: L) -> Result<Self, TensorError>
    where
        T: From<u8>,
    {
        filled("ones", layout, T::from(1u8))
    }

    /// An owned tensor of zeros with the layout of `other` (NumPy's `np.zeros_like`; the
    /// layout is kept as it is, NZ stays NZ, a transposed view stays transposed).
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let a = Tensor::from_fn(&[4, 6], |i| i as i32).unwrap();
    /// let at = a.view().t().unwrap();
    /// let z = Tensor::zeros_like(&at).unwrap();
    /// assert_eq!(z.layout(), at.layout());
    /// assert!(z.iter().all(|&x| x == 0));
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::full`].
    pub fn zeros_like<S: Storage<Elem = T>>(other: &Tensor<S, L>) -> Result<Self, TensorError>
    where
        T: Default,
    {
        filled("zeros_like", other.layout, T::default())
    }
}

/// An owned tensor of `layout` whose whole buffer is `value`.
fn filled<T: Clone, L: AnyLayout>(
    op: &'static str,
    layout: L,
    value: T,
) -> Result<Tensor<Vec<T>, L>, TensorError> {
    layout.inner_layout()?;
    let (lo, hi) = layout.offset_bounds()?;
    // the buffer covers offsets min(lo, 0)..=hi around base -min(lo, 0)
    let base = lo.min(0).checked_neg().ok_or(LayoutError::Overflow {
        what: "base offset",
    })?;
    let len = base
        .checked_add(hi)
        .and_then(|x| x.checked_add(1))
        .ok_or(LayoutError::Overflow {
            what: "buffer length",
        })?;
    let mut v = try_alloc::<T>(op, len)?;
    // `try_alloc` checked that `len` is a `usize` and reserved it
    v.resize(len as usize, value);
    let base = usize::try_from(base).map_err(|_| LayoutError::Overflow {
        what: "base offset",
    })?;
    Tensor::with_offset(v, layout, base)
}

impl<St: Storage, L: AnyLayout> Tensor<St, L>
where
    St::Elem: Clone,
{
    /// An owned tensor with this tensor's layout and values: the span of the buffer its
    /// layout reaches (from offset `min(lo, 0)` to `hi`), copied, gaps included.
    fn to_owned_same_layout(
        &self,
        op: &'static str,
    ) -> Result<Tensor<Vec<St::Elem>, L>, TensorError> {
        let (lo, hi) = self.layout.offset_bounds()?;
        let s = self.storage.as_slice();
        let low = lo.min(0);
        let out_of_buffer = TensorError::OutOfBuffer {
            base: self.base,
            lo,
            hi,
            len: s.len() as i64,
        };
        // construction checked `base + lo ..= base + hi` inside the buffer (and `base >= 0`)
        let span = i64::try_from(self.base)
            .ok()
            .and_then(|b| {
                Some((
                    usize::try_from(b + low).ok()?,
                    usize::try_from(b + hi).ok()?,
                ))
            })
            .and_then(|(f, t)| s.get(f..=t))
            .ok_or(out_of_buffer)?;
        let mut v = try_alloc::<St::Elem>(op, span.len() as i64)?;
        v.extend_from_slice(span);
        // `-low` fits: `base + low >= 0`
        Tensor::with_offset(v, self.layout, low.unsigned_abs() as usize)
    }
}

/// `a op b` for two tensors of the same shape, into an owned tensor with `a`'s layout.
fn binary<A, B, La, Lb>(
    op: ShapeOp,
    a: &Tensor<A, La>,
    b: &Tensor<B, Lb>,
    f: impl Fn(A::Elem, B::Elem) -> A::Elem,
) -> Result<Tensor<Vec<A::Elem>, La>, TensorError>
where
    A: Storage,
    B: Storage,
    A::Elem: Clone,
    B::Elem: Clone,
    La: AnyLayout,
    Lb: AnyLayout,
{
    super::copy::same_shape(op, &a.inner(), &b.inner())?;
    let mut out = a.to_owned_same_layout("arithmetic")?;
    out.zip_map_inplace(b, |x, y| *x = f(x.clone(), y.clone()))?;
    Ok(out)
}

/// `a op= b` in place; panics with the sentence of the error when the shapes differ.
fn assign<A, B, La, Lb>(
    op: ShapeOp,
    a: &mut Tensor<A, La>,
    b: &Tensor<B, Lb>,
    f: impl Fn(&mut A::Elem, B::Elem),
) where
    A: StorageMut,
    B: Storage,
    B::Elem: Clone,
    La: AnyLayout,
    Lb: AnyLayout,
{
    let r = super::copy::same_shape(op, &a.inner(), &b.inner())
        .and_then(|()| a.zip_map_inplace(b, |x, y| f(x, y.clone())));
    if let Err(e) = r {
        panic!("{e}");
    }
}

macro_rules! binary_op {
    ($Op:ident, $op:ident, $sym:literal, $OpAssign:ident, $op_assign:ident, $sym_assign:literal) => {
        #[doc = concat!("`&a ", $sym, " &b`: element-wise on tensors of the same shape and any")]
        /// layouts, into a new owned tensor with the layout of `a` (its buffer span copied,
        /// then combined with `b` at each logical coordinate).
        ///
        /// # Errors
        /// [`TensorError::ShapeMismatch`] naming the operator and both shapes;
        /// [`LayoutError::NotInjective`] when `a`'s layout is not injective (a broadcast view:
        /// an owned result cannot have it; [`Tensor::zip_map`] gives a row-major result);
        /// [`TensorError::OutputAllocation`] when the output cannot be allocated.
        impl<'b, T, A, B, La, Lb> $Op<&'b Tensor<B, Lb>> for &Tensor<A, La>
        where
            T: Clone + $Op<Output = T>,
            A: Storage<Elem = T>,
            B: Storage<Elem = T>,
            La: AnyLayout,
            Lb: AnyLayout,
        {
            type Output = Result<Tensor<Vec<T>, La>, TensorError>;

            fn $op(self, rhs: &'b Tensor<B, Lb>) -> Self::Output {
                binary(ShapeOp::$Op, self, rhs, |x, y| x.$op(y))
            }
        }

        #[doc = concat!("`a ", $sym, " &b` for an owned `a`: its buffer is reused (no allocation).")]
        ///
        /// # Errors
        /// [`TensorError::ShapeMismatch`] naming the operator and both shapes.
        impl<'b, T, B, La, Lb> $Op<&'b Tensor<B, Lb>> for Tensor<Vec<T>, La>
        where
            T: Clone + $Op<Output = T>,
            B: Storage<Elem = T>,
            La: AnyLayout,
            Lb: AnyLayout,
        {
            type Output = Result<Tensor<Vec<T>, La>, TensorError>;

            fn $op(mut self, rhs: &'b Tensor<B, Lb>) -> Self::Output {
                super::copy::same_shape(ShapeOp::$Op, &self.inner(), &rhs.inner())?;
                self.zip_map_inplace(rhs, |x, y| *x = x.clone().$op(y.clone()))?;
                Ok(self)
            }
        }

        #[doc = concat!("`a ", $sym_assign, " &b` in place: element-wise on tensors of the same shape and any layouts.")]
        ///
        /// # Panics
        /// When the shapes differ (an assign operator cannot return an error; the message is
        /// the [`TensorError::ShapeMismatch`] sentence). [`Tensor::zip_map_inplace`] returns
        /// the error instead.
        impl<'b, T, A, B, La, Lb> $OpAssign<&'b Tensor<B, Lb>> for Tensor<A, La>
        where
            T: Clone + $OpAssign,
            A: StorageMut<Elem = T>,
            B: Storage<Elem = T>,
            La: AnyLayout,
            Lb: AnyLayout,
        {
            fn $op_assign(&mut self, rhs: &'b Tensor<B, Lb>) {
                assign(ShapeOp::$OpAssign, self, rhs, |x, y| x.$op_assign(y));
            }
        }
    };
}

binary_op!(Add, add, "+", AddAssign, add_assign, "+=");
binary_op!(Sub, sub, "-", SubAssign, sub_assign, "-=");
binary_op!(Mul, mul, "*", MulAssign, mul_assign, "*=");
binary_op!(Div, div, "/", DivAssign, div_assign, "/=");
