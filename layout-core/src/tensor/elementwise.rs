//! Element-wise operations: `map`, `zip_map` with broadcasting, and in-place forms.
//!
//! Results depend only on the operands' values at each logical coordinate, never on their
//! layouts: both operands are broadcast to the common shape and walked in lock-step (the same
//! engine as copies).

use super::TensorError;
#[cfg(feature = "alloc")]
use super::broadcast::broadcast_extents;
use super::broadcast::broadcast_layout;
use super::{Storage, StorageMut, Tensor};
use crate::AnyLayout;
#[cfg(feature = "alloc")]
use crate::DynLayout;
use crate::walk::Joint;

impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    /// A new row-major tensor of the same shape with `f` applied to every element, in logical
    /// order.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec(vec![1, 2, 3, 4], &[2, 2]).unwrap();
    /// let sq = t.view().t().unwrap().map(|x| x * x);
    /// assert_eq!(format!("{sq:?}"), "[[ 1,  9],\n [ 4, 16]]");
    /// ```
    ///
    /// The output is allocated like `Vec`'s: when that fails the process aborts.
    /// [`Tensor::try_map`] returns an error instead.
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn map<U>(&self, f: impl FnMut(&St::Elem) -> U) -> super::TensorOwned<U> {
        let v: alloc::vec::Vec<U> = self.iter().map(f).collect();
        let l = DynLayout::row_major(&self.shape()).unwrap_or(DynLayout::EMPTY);
        Tensor {
            storage: v,
            layout: l,
            base: 0,
        }
    }

    /// [`Tensor::map`], returning an error when the output cannot be allocated.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec(vec![1, 2, 3], &[3]).unwrap();
    /// assert!(t.try_map(|x| x * 2).unwrap().iter().copied().eq([2, 4, 6]));
    /// ```
    ///
    /// # Errors
    /// [`TensorError::OutputAllocation`] naming the element count.
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn try_map<U>(
        &self,
        f: impl FnMut(&St::Elem) -> U,
    ) -> Result<super::TensorOwned<U>, TensorError> {
        let mut v = try_alloc::<U>("map", self.layout.size())?;
        v.extend(self.iter().map(f));
        let l = DynLayout::row_major(&self.shape())?;
        Ok(Tensor {
            storage: v,
            layout: l,
            base: 0,
        })
    }

    /// A new row-major tensor `f(a, b)` over the broadcast shape of `self` and `other` (NumPy's
    /// element-wise binary operations), whatever the two layouts.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let a = Tensor::from_vec(vec![0.0, 0.0, 0.0, 10.0, 10.0, 10.0], &[2, 3]).unwrap();
    /// let b = Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]).unwrap();
    /// let c = a.zip_map(&b, |x, y| x + y).unwrap();
    /// assert!(c.iter().copied().eq([1.0, 2.0, 3.0, 11.0, 12.0, 13.0]));
    /// let bad = Tensor::from_vec(vec![0.0; 4], &[4]).unwrap();
    /// assert_eq!(a.zip_map(&bad, |x, y| x + y).unwrap_err().to_string(),
    ///     "operands could not be broadcast together with shapes (2,3) (4,)");
    /// ```
    ///
    /// # Errors
    /// [`TensorError::Broadcast`] naming both shapes; [`TensorError::OutputAllocation`] when
    /// the output cannot be allocated (e.g. two broadcast operands of shapes `(2^31, 1)` and
    /// `(1, 2^31)`).
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn zip_map<S2: Storage, L2: AnyLayout, V>(
        &self,
        other: &Tensor<S2, L2>,
        mut f: impl FnMut(&St::Elem, &S2::Elem) -> V,
    ) -> Result<super::TensorOwned<V>, TensorError> {
        // walk the inner layouts (the layouts themselves when affine); `post_offset` maps
        let (la, lb) = (self.inner(), other.inner());
        let (sa, sb) = (self.shape(), other.shape());
        let (shape, n) = broadcast_extents(sa.leaves(), sb.leaves())?;
        let shape = &shape[..n];
        let (ba, bb) = (broadcast_layout(&la, shape)?, broadcast_layout(&lb, shape)?);
        let out = DynLayout::row_major(&crate::DynTuple::from_slice(shape)?)?;
        let mut v = try_alloc::<V>("zip_map", out.size())?;
        let (x, y) = (self.storage.as_slice(), other.storage.as_slice());
        let (ox, oy) = (self.base as i64, other.base as i64);
        let (pa, pb) = (self.layout, other.layout);
        // logical order (the joint plan is not re-sorted), which is the output's memory order
        Joint::new([&ba, &bb]).for_each(|[i, j]| {
            let (i, j) = (ox + pa.post_offset(i), oy + pb.post_offset(j));
            // SAFETY: `i`, `j` (before the base) are offsets of the broadcast inner layouts'
            // domains, which are offsets of the operands' inner domains (a broadcast repeats
            // them), mapped by `post_offset` to offsets of the operands' layouts: inside the
            // buffers by the construction bounds checks.
            let (p, q) = unsafe { (x.get_unchecked(i as usize), y.get_unchecked(j as usize)) };
            v.push(f(p, q));
        });
        Ok(Tensor {
            storage: v,
            layout: out,
            base: 0,
        })
    }
}

/// An empty `Vec` with room for `n` elements, or [`TensorError::OutputAllocation`] naming `op`
/// (never an abort).
#[cfg(feature = "alloc")]
pub(crate) fn try_alloc<T>(op: &'static str, n: i64) -> Result<alloc::vec::Vec<T>, TensorError> {
    let err = || TensorError::OutputAllocation {
        op,
        elements: n,
        bytes: n.saturating_mul(core::mem::size_of::<T>() as i64),
    };
    let len = usize::try_from(n).map_err(|_| err())?;
    let mut v = alloc::vec::Vec::new();
    v.try_reserve_exact(len).map_err(|_| err())?;
    Ok(v)
}

impl<St: StorageMut, L: AnyLayout> Tensor<St, L> {
    /// Apply `f` to every element in place (in memory order).
    pub fn map_inplace(&mut self, mut f: impl FnMut(&mut St::Elem)) {
        for x in self.iter_memory_mut() {
            f(x);
        }
    }

    /// `f(a, b)` in place for every element `a` of `self`, with `other` broadcast to the shape
    /// of `self` (NumPy's `a += b`).
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let mut a = Tensor::from_vec(vec![1, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    /// let col = Tensor::from_vec(vec![10, 20], &[2, 1]).unwrap();
    /// a.zip_map_inplace(&col, |x, y| *x += y).unwrap();
    /// assert!(a.iter().copied().eq([11, 12, 13, 24, 25, 26]));
    /// ```
    ///
    /// # Errors
    /// [`TensorError::Broadcast`] when `other` cannot be broadcast to this tensor's shape.
    pub fn zip_map_inplace<S2: Storage, L2: AnyLayout>(
        &mut self,
        other: &Tensor<S2, L2>,
        mut f: impl FnMut(&mut St::Elem, &S2::Elem),
    ) -> Result<(), TensorError> {
        let la = self.inner();
        let shape = self.shape();
        let lb = broadcast_layout(&other.inner(), shape.leaves())?;
        let (ox, oy) = (self.base as i64, other.base as i64);
        let (pa, pb) = (self.layout, other.layout);
        let x = self.storage.as_mut_slice();
        let y = other.storage.as_slice();
        let mut body = |[i, j]: [i64; 2]| {
            let (i, j) = (ox + pa.post_offset(i), oy + pb.post_offset(j));
            // SAFETY: offsets of the two inner domains mapped by `post_offset` (as in
            // `zip_map`), inside both buffers by construction.
            let (p, q) = unsafe { (x.get_unchecked_mut(i as usize), y.get_unchecked(j as usize)) };
            f(p, q);
        };
        match Joint::new([&la, &lb]) {
            Joint::Fast(mut p) => {
                p.sort_by_stride(0);
                p.coalesce();
                p.for_each(body);
            }
            slow => slow.for_each(&mut body),
        }
        Ok(())
    }
}
