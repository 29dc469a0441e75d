//! Zero-copy conversion between `ndarray` views and tensors (feature `ndarray`).
//!
//! Tensor → ndarray works for every tensor whose axes are each one stride (hierarchical axes must
//! coalesce), negative strides included. ndarray → tensor is zero-copy and safe when the view is
//! dense in memory in some order (`to_slice_memory_order`): ndarray gives no safe access to the
//! buffer around a strided view, whose gaps may belong to other live views; for strided views
//! whose surrounding buffer the caller vouches for, `TensorRef::from_ndarray_strided` is the
//! `unsafe` zero-copy conversion.

use super::TensorError;
use super::axes::TensorAxes;
use super::{Storage, StorageMut, Tensor, TensorMut, TensorRef};
use crate::walk::Axes;
use crate::{AnyLayout, DynLayout, LayoutError, MAX_LEAVES};
use ndarray::{
    ArrayView, ArrayView2, ArrayViewD, ArrayViewMut, ArrayViewMutD, Axis, Dimension, Ix2, IxDyn,
    ShapeBuilder,
};

const REJECTED: LayoutError = LayoutError::Precondition {
    what: "ndarray rejected the shape and strides",
    a: 0,
    b: 0,
};

/// Shape, absolute strides, which axes are reversed, and the sub-slice range from the lowest
/// address.
struct Strided {
    shape: [usize; MAX_LEAVES],
    abs: [usize; MAX_LEAVES],
    neg: [bool; MAX_LEAVES],
    rank: usize,
    lo: usize,
    hi: usize,
}

fn strided(d: &DynLayout, base: usize) -> Result<Strided, TensorError> {
    let ax = Axes::new(d);
    let mut s = Strided {
        shape: [0; MAX_LEAVES],
        abs: [0; MAX_LEAVES],
        neg: [false; MAX_LEAVES],
        rank: ax.rank,
        lo: 0,
        hi: 0,
    };
    for k in 0..ax.rank {
        let (n, st) = ax.strided_or_err(k)?;
        s.shape[k] = n as usize;
        s.abs[k] = st.unsigned_abs() as usize;
        s.neg[k] = st < 0 && n > 1;
    }
    let (lo, hi) = d.offset_range();
    // inside the buffer by the tensor's construction invariant
    s.lo = (base as i64 + lo) as usize;
    s.hi = (base as i64 + hi) as usize;
    Ok(s)
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    /// This tensor as an `ndarray` view, zero-copy (axes with negative strides are inverted
    /// ndarray axes).
    ///
    /// ```
    /// use layout::tensor::{s, Tensor};
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    /// let v = t.view().slice(&s![.., ..;-1]).unwrap();
    /// let a = v.as_ndarray().unwrap();
    /// assert_eq!(a.shape(), &[2, 3]);
    /// assert_eq!(a[[0, 0]], 2);
    /// assert!(a.iter().eq(v.iter()));
    /// ```
    ///
    /// # Errors
    /// [`TensorError::NotStrided`] for a hierarchical axis that is not one stride.
    pub fn as_ndarray(&self) -> Result<ArrayViewD<'_, St::Elem>, TensorError> {
        let s = strided(&self.dyn_layout()?, self.base)?;
        let buf = &self.storage.as_slice()[s.lo..=s.hi];
        let shape = IxDyn(&s.shape[..s.rank]).strides(IxDyn(&s.abs[..s.rank]));
        let mut a = ArrayView::from_shape(shape, buf).map_err(|_| REJECTED)?;
        for k in 0..s.rank {
            if s.neg[k] {
                a.invert_axis(Axis(k));
            }
        }
        Ok(a)
    }

    /// This tensor as an `ndarray` view of a fixed dimension type, zero-copy: `Ix2` for a
    /// matrix, `Ix3`, … (`as_ndarray` gives `IxDyn`).
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    /// let u = t.view().unsqueeze(0).unwrap();
    /// let a: ndarray::ArrayView3<i32> = u.as_ndarray_dim().unwrap();
    /// assert_eq!(a.dim(), (1, 2, 3));
    /// assert!(t.as_ndarray_dim::<ndarray::Ix1>().is_err());   // rank 2, not 1
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::as_ndarray`]; [`LayoutError::Precondition`] when the tensor's rank is not
    /// `D`'s.
    pub fn as_ndarray_dim<D: Dimension>(&self) -> Result<ArrayView<'_, St::Elem, D>, TensorError> {
        let a = self.as_ndarray()?;
        let got = a.ndim();
        a.into_dimensionality::<D>().map_err(|_| {
            LayoutError::Precondition {
                what: "as_ndarray_dim: the tensor has {a} axes but the requested ndarray dimension has {b}",
                a: got as i64,
                b: D::NDIM.unwrap_or(got) as i64,
            }
            .into()
        })
    }

    /// A rank-2 tensor as a typed `ndarray` matrix view (`ArrayView2`), zero-copy.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    /// let tt = t.view().t().unwrap();
    /// let a = tt.as_ndarray2().unwrap();
    /// assert_eq!(a.dim(), (3, 2));
    /// assert_eq!(a[[2, 1]], 5);
    /// assert_eq!(a.dot(&t.as_ndarray2().unwrap())[[0, 0]], 9);   // ndarray's own methods
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::as_ndarray_dim`].
    pub fn as_ndarray2(&self) -> Result<ArrayView2<'_, St::Elem>, TensorError> {
        self.as_ndarray_dim::<Ix2>()
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<St: StorageMut, L: AnyLayout> Tensor<St, L> {
    /// This tensor as a mutable `ndarray` view, zero-copy.
    ///
    /// # Errors
    /// [`TensorError::NotStrided`]; ndarray refuses some injective but interleaved layouts.
    pub fn as_ndarray_mut(&mut self) -> Result<ArrayViewMutD<'_, St::Elem>, TensorError> {
        let s = strided(&self.dyn_layout()?, self.base)?;
        let buf = &mut self.storage.as_mut_slice()[s.lo..=s.hi];
        let shape = IxDyn(&s.shape[..s.rank]).strides(IxDyn(&s.abs[..s.rank]));
        let mut a = ArrayViewMut::from_shape(shape, buf).map_err(|_| REJECTED)?;
        for k in 0..s.rank {
            if s.neg[k] {
                a.invert_axis(Axis(k));
            }
        }
        Ok(a)
    }
}

/// Layout and base offset of an ndarray view relative to its lowest address.
fn layout_of(shape: &[usize], strides: &[isize]) -> Result<(DynLayout, usize), TensorError> {
    let mut sh = [0i64; MAX_LEAVES];
    let mut st = [0i64; MAX_LEAVES];
    if shape.len() > MAX_LEAVES {
        return Err(LayoutError::TooManyLeaves {
            needed: shape.len(),
        }
        .into());
    }
    let mut base = 0i64;
    for k in 0..shape.len() {
        sh[k] = i64::try_from(shape[k]).map_err(|_| LayoutError::Overflow { what: "size" })?;
        st[k] = strides[k] as i64;
        if st[k] < 0 && sh[k] > 1 {
            base -= (sh[k] - 1) * st[k];
        }
    }
    let l = DynLayout::from_flat(&sh[..shape.len()], &st[..shape.len()])?;
    Ok((l, base as usize))
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<'a, T> TensorRef<'a, T> {
    /// A tensor viewing the same memory as an `ndarray` view, zero-copy, when the view is dense
    /// in memory (any axis order, negative strides included).
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let a = ndarray::Array2::from_shape_fn((2, 3), |(i, j)| 10 * i + j);
    /// let t = Tensor::from_ndarray(a.t()).unwrap();
    /// assert_eq!(t.layout().to_string(), "(3,2):(1,3)");
    /// assert_eq!(t[[2, 1]], 12);
    /// ```
    ///
    /// # Errors
    /// A view that is not dense in memory ([`LayoutError::Precondition`]; copy it with
    /// `to_owned` first) or a zero-length axis ([`LayoutError::NonPositiveExtent`]).
    pub fn from_ndarray<D: Dimension>(v: ArrayView<'a, T, D>) -> Result<Self, TensorError> {
        let (l, base) = layout_of(v.shape(), v.strides())?;
        let buf = v.to_slice_memory_order().ok_or(LayoutError::Precondition {
            what: "from ndarray: the view is not dense in memory: {a} elements spread over {b} offsets",
            a: l.size(),
            b: l.cosize(),
        })?;
        Tensor::with_offset(buf, l, base)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<'a, T> TensorRef<'a, T> {
    /// A tensor viewing the same memory as a strided `ndarray` view `v` of a dense array
    /// `parent`, zero-copy and safe: a sub-block (`a.slice(s![8..24, 4..20])`), every other
    /// column, a reversed axis. The tensor borrows `parent`'s whole buffer (so nothing can
    /// write between `v`'s elements while it lives) and checks that every element of `v` lies
    /// in it.
    ///
    /// ```
    /// use layout::tensor::TensorRef;
    /// use ndarray::{Array2, s};
    /// let a = Array2::from_shape_fn((32, 32), |(i, j)| 100 * i + j);
    /// let block = a.slice(s![8..24, 4..20]);
    /// let t = TensorRef::from_ndarray_in(block, a.view()).unwrap();
    /// assert_eq!(t.layout().to_string(), "(16,16):(32,1)");
    /// assert_eq!(t[[0, 0]], 804);
    /// assert!(t.iter().eq(block.iter()));
    /// // a view of another array is refused
    /// let other = Array2::<usize>::zeros((4, 4));
    /// assert!(TensorRef::from_ndarray_in(other.view(), a.view()).is_err());
    /// ```
    ///
    /// # Errors
    /// `parent` not dense in memory, `v` not inside `parent`'s buffer, a zero-length axis, a
    /// zero-sized element type, or too many axes.
    pub fn from_ndarray_in<D: Dimension, P: Dimension>(
        v: ArrayView<'_, T, D>,
        parent: ArrayView<'a, T, P>,
    ) -> Result<Self, TensorError> {
        let size = core::mem::size_of::<T>();
        let buf: &'a [T] = parent.to_slice_memory_order().ok_or(LayoutError::Precondition {
            what: "from ndarray: the parent view is not dense in memory: {a} elements spread over {b} offsets",
            a: parent.len() as i64,
            b: layout_of(parent.shape(), parent.strides())
                .map_or(0, |(l, _)| l.cosize()),
        })?;
        if size == 0 {
            return Err(LayoutError::Precondition {
                what: "from ndarray: the element type is zero-sized ({a} bytes), so a view's place in its parent is unknown",
                a: 0,
                b: 0,
            }
            .into());
        }
        let (l, _) = layout_of(v.shape(), v.strides())?;
        // where `v`'s element 0 sits in `parent`'s buffer: address arithmetic only (nothing is
        // read through these pointers); `with_offset` then checks every offset of `l` against
        // the buffer
        let (p0, v0) = (buf.as_ptr() as usize, v.as_ptr() as usize);
        let outside = LayoutError::Precondition {
            what: "from ndarray: the view does not lie in its parent's buffer: it starts {a} bytes from the parent, whose buffer has {b} bytes",
            a: (v0 as i64).wrapping_sub(p0 as i64),
            b: core::mem::size_of_val(buf) as i64,
        };
        // before the parent, past its end, or between two of its elements: not in it
        let delta = v0.checked_sub(p0).ok_or(outside)?;
        if delta % size != 0 || delta >= core::mem::size_of_val(buf) {
            return Err(outside.into());
        }
        Tensor::with_offset(buf, l, delta / size)
    }

    /// A tensor viewing the same memory as any strided `ndarray` view, zero-copy — including
    /// views that are not dense (`a.slice(s![.., ..;2])`), which [`TensorRef::from_ndarray`]
    /// refuses.
    ///
    /// ```
    /// use layout::tensor::TensorRef;
    /// let a = ndarray::Array2::from_shape_fn((3, 4), |(i, j)| 10 * i + j);
    /// let v = a.slice(ndarray::s![.., ..;2]);
    /// // SAFETY: `v` views the owned array `a`, whose whole buffer is initialised and not
    /// // mutably borrowed while `t` lives.
    /// let t = unsafe { TensorRef::from_ndarray_strided(v) }.unwrap();
    /// assert_eq!(t.layout().to_string(), "(3,2):(4,2)");
    /// assert_eq!(t[[2, 1]], 22);
    /// ```
    ///
    /// # Errors
    /// A zero-length axis ([`LayoutError::NonPositiveExtent`]) or too many axes.
    ///
    /// # Safety
    /// ndarray only promises that the view's own elements are valid; this function reads the
    /// whole address range between the view's lowest and highest element as a `&'a [T]`. The
    /// caller must guarantee that this range lies in one allocation, holds initialised `T`s, and
    /// is not mutated (through any other view) during `'a` — true for a view of one owned
    /// `Array` that is not mutably borrowed elsewhere.
    pub unsafe fn from_ndarray_strided<D: Dimension>(
        v: ArrayView<'a, T, D>,
    ) -> Result<Self, TensorError> {
        let (l, base) = layout_of(v.shape(), v.strides())?;
        let (lo, hi) = l.offset_range();
        let len =
            usize::try_from(hi - lo + 1).map_err(|_| LayoutError::Overflow { what: "cosize" })?;
        // the lowest address of the view: element 0 moved by the negative part of the range
        let first = v.as_ptr().wrapping_offset(lo as isize);
        // SAFETY: `first .. first + len` is exactly the span from the view's lowest to its highest
        // element, which the caller guarantees is one allocation of initialised `T`s that nothing
        // mutates during `'a`.
        let buf = unsafe { core::slice::from_raw_parts(first, len) };
        Tensor::with_offset(buf, l, base)
    }
}

#[cfg_attr(docsrs, doc(cfg(feature = "ndarray")))]
impl<'a, T> TensorMut<'a, T> {
    /// A writable tensor viewing the same memory as a mutable `ndarray` view, zero-copy, when the
    /// view is dense in memory.
    ///
    /// # Errors
    /// As [`TensorRef::from_ndarray`].
    pub fn from_ndarray_mut<D: Dimension>(v: ArrayViewMut<'a, T, D>) -> Result<Self, TensorError> {
        let (l, base) = layout_of(v.shape(), v.strides())?;
        let (size, cosize) = (l.size(), l.cosize());
        let buf = v
            .into_slice_memory_order()
            .ok_or(LayoutError::Precondition {
                what: "from ndarray: the view is not dense in memory: {a} elements spread over {b} offsets",
                a: size,
                b: cosize,
            })?;
        Tensor::with_offset(buf, l, base)
    }
}
