//! Reductions (`sum`, `product`, `min`, `max`, `mean`) and the array-style iterators
//! (`indexed_iter`, `axis_iter`), named as in ndarray.

use super::axes::TensorAxes;
use super::{Iter, Storage, Tensor, TensorError, TensorRef};
use crate::walk::Axes;
use crate::{AnyLayout, DynLayout, MAX_LEAVES};
use core::fmt;
use core::iter::{Product, Sum};

/// A floating-point element type: [`Tensor::mean`] is defined for these.
///
/// Sealed; implemented for `f32` and `f64`.
pub trait Float: Copy + Sum + core::ops::Div<Output = Self> + float_sealed::Sealed {
    /// `n` as this type (rounded to the nearest value).
    fn from_count(n: usize) -> Self;
}

mod float_sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

impl Float for f32 {
    fn from_count(n: usize) -> Self {
        n as f32
    }
}

impl Float for f64 {
    fn from_count(n: usize) -> Self {
        n as f64
    }
}

impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    /// The sum of all elements, added in logical (row-major) order; ndarray's `sum`.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((1..=6).collect::<Vec<i64>>(), &[2, 3]).unwrap();
    /// assert_eq!(t.sum(), 21);
    /// assert_eq!(t.view().t().unwrap().sum(), 21);   // any layout, same elements
    /// ```
    ///
    /// Integer overflow follows the element type's `Sum` (a panic in debug builds, as for
    /// `Iterator::sum`); sum in a wider type with `t.iter().map(|&x| i64::from(x)).sum()`.
    pub fn sum(&self) -> St::Elem
    where
        St::Elem: Copy + Sum,
    {
        self.iter().copied().sum()
    }

    /// The product of all elements, in logical order; ndarray's `product`.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec(vec![1.0, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    /// assert_eq!(t.product(), 24.0);
    /// ```
    pub fn product(&self) -> St::Elem
    where
        St::Elem: Copy + Product,
    {
        self.iter().copied().product()
    }

    /// The smallest element; `None` when two elements are unordered (a NaN), as
    /// ndarray-stats' `min` refuses an undefined order.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec(vec![3.0, -1.0, 2.0, 5.0], &[2, 2]).unwrap();
    /// assert_eq!((t.min(), t.max()), (Some(-1.0), Some(5.0)));
    /// let n = Tensor::from_vec(vec![1.0, f64::NAN], &[2]).unwrap();
    /// assert_eq!(n.min(), None);
    /// ```
    pub fn min(&self) -> Option<St::Elem>
    where
        St::Elem: Copy + PartialOrd,
    {
        self.extreme(core::cmp::Ordering::Less)
    }

    /// The largest element; `None` when two elements are unordered (a NaN). See [`Tensor::min`].
    pub fn max(&self) -> Option<St::Elem>
    where
        St::Elem: Copy + PartialOrd,
    {
        self.extreme(core::cmp::Ordering::Greater)
    }

    fn extreme(&self, keep: core::cmp::Ordering) -> Option<St::Elem>
    where
        St::Elem: Copy + PartialOrd,
    {
        let mut it = self.iter().copied();
        let mut best = it.next()?;
        // a NaN compares unordered with itself too: caught even as the first element
        best.partial_cmp(&best)?;
        for x in it {
            if x.partial_cmp(&best)? == keep {
                best = x;
            }
        }
        Some(best)
    }

    /// The arithmetic mean of the elements (their sum in logical order divided by their count);
    /// ndarray's `mean`, for `f32` and `f64`.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 6.0], &[2, 2]).unwrap();
    /// assert_eq!(t.mean(), 3.0);
    /// ```
    pub fn mean(&self) -> St::Elem
    where
        St::Elem: Float,
    {
        self.sum() / St::Elem::from_count(self.len())
    }

    /// Iterate over `(index, &element)` in logical (row-major) order, the index one `usize`
    /// per axis; ndarray's `indexed_iter`.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    /// let v = t.view().t().unwrap();                  // (3,2):(1,3)
    /// for (i, &x) in v.indexed_iter() {
    ///     assert_eq!(v[&i[..]], x);
    ///     assert_eq!(x as usize, 3 * i[1] + i[0]);
    /// }
    /// assert_eq!(v.indexed_iter().nth(1).unwrap().0, [0, 1]);
    /// ```
    pub fn indexed_iter(&self) -> IndexedIter<'_, St::Elem, L> {
        let ext = NdIndex::extents_of(&self.inner());
        IndexedIter {
            it: self.iter(),
            index: NdIndex {
                idx: [0; MAX_LEAVES],
                rank: ext.rank,
            },
            ext: ext.idx,
            started: false,
        }
    }

    /// Iterate over the sub-tensors along `axis` (negative counts from the end, as in the other
    /// axis methods): the `i`-th item is `index_axis(axis, i)`, a view one rank lower;
    /// ndarray's `axis_iter`. Rows of a matrix are `axis_iter(0)`, columns `axis_iter(1)`.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    /// let rows: Vec<i32> = t.axis_iter(0).unwrap().map(|r| r.sum()).collect();
    /// assert_eq!(rows, [3, 12]);
    /// let cols: Vec<i32> = t.axis_iter(1).unwrap().map(|c| c.sum()).collect();
    /// assert_eq!(cols, [3, 5, 7]);
    /// assert!(t.axis_iter(2).is_err());
    /// ```
    ///
    /// # Errors
    /// [`TensorError::AxisOutOfRange`] (or a layout error for a non-affine layout, whose axes
    /// have no strides).
    pub fn axis_iter(&self, axis: i64) -> Result<AxisIter<'_, St::Elem>, TensorError> {
        let v = self.view().into_dyn_view()?;
        let d = *v.layout();
        let ax = Axes::new(&d);
        let k = Axes::norm_axis(axis, ax.rank)?;
        Ok(AxisIter {
            view: v,
            axis: k as i64,
            next: 0,
            end: ax.extent(k),
        })
    }
}

impl<'a, T, L: AnyLayout> TensorRef<'a, T, L> {
    /// This view with its layout as a checked [`DynLayout`].
    fn into_dyn_view(self) -> Result<TensorRef<'a, T>, TensorError> {
        // slicing with no index keeps every axis: the same view under a run-time layout
        self.slice(&[])
    }
}

/// A coordinate of a tensor, one `usize` per axis: the item of [`Tensor::indexed_iter`].
/// Dereferences to `&[usize]`, which indexes the tensor again (`t[&i[..]]`).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct NdIndex {
    idx: [usize; MAX_LEAVES],
    rank: usize,
}

impl NdIndex {
    /// The axis extents of `d` (positive, and their product fits a buffer, for the layout of a
    /// constructed tensor).
    pub(crate) fn extents_of(d: &DynLayout) -> NdIndex {
        let ax = Axes::new(d);
        let mut idx = [0usize; MAX_LEAVES];
        for (k, e) in idx.iter_mut().enumerate().take(ax.rank) {
            *e = ax.extent(k) as usize;
        }
        NdIndex { idx, rank: ax.rank }
    }

    /// The index of `c` (at most `MAX_LEAVES` entries; the rest is dropped).
    pub(crate) fn from_slice(c: &[usize]) -> NdIndex {
        let mut idx = [0usize; MAX_LEAVES];
        let rank = c.len().min(MAX_LEAVES);
        idx[..rank].copy_from_slice(&c[..rank]);
        NdIndex { idx, rank }
    }
}

impl core::ops::Deref for NdIndex {
    type Target = [usize];
    fn deref(&self) -> &[usize] {
        &self.idx[..self.rank]
    }
}

impl fmt::Debug for NdIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl<const N: usize> PartialEq<[usize; N]> for NdIndex {
    fn eq(&self, other: &[usize; N]) -> bool {
        **self == other[..]
    }
}

/// Iterator of [`Tensor::indexed_iter`].
pub struct IndexedIter<'a, T, L> {
    it: Iter<'a, T, L>,
    index: NdIndex,
    ext: [usize; MAX_LEAVES],
    started: bool,
}

impl<'a, T, L: AnyLayout> Iterator for IndexedIter<'a, T, L> {
    type Item = (NdIndex, &'a T);

    fn next(&mut self) -> Option<Self::Item> {
        let x = self.it.next()?;
        if self.started {
            // row-major odometer: the last axis fastest, as `iter` walks
            for k in (0..self.index.rank).rev() {
                self.index.idx[k] += 1;
                if self.index.idx[k] < self.ext[k] {
                    break;
                }
                self.index.idx[k] = 0;
            }
        }
        self.started = true;
        Some((self.index, x))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.it.size_hint()
    }
}

impl<T, L: AnyLayout> ExactSizeIterator for IndexedIter<'_, T, L> {}

/// Iterator of [`Tensor::axis_iter`]: views one rank lower.
pub struct AxisIter<'a, T> {
    view: TensorRef<'a, T>,
    axis: i64,
    next: i64,
    end: i64,
}

impl<'a, T> Iterator for AxisIter<'a, T> {
    type Item = TensorRef<'a, T, DynLayout>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        self.next += 1;
        // `axis` was normalised against this view's rank and `i` is below its extent, so
        // `index_axis` succeeds
        self.view.index_axis(self.axis, i).ok()
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = (self.end - self.next) as usize;
        (n, Some(n))
    }
}

impl<T> ExactSizeIterator for AxisIter<'_, T> {}
