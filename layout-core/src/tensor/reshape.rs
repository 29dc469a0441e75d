//! `reshape` and `flatten`: views exactly when NumPy and PyTorch can make one.
//!
//! # The chunk rule
//! Write the tensor's leaves in logical (row-major) order with their strides and drop extents
//! of 1. Old axes group into *chunks* of consecutive axes that are nested in memory
//! (`stride[i] == stride[i+1]·shape[i+1]`). A reshape is a view exactly when every new axis lies
//! inside one chunk, i.e. the running products of old and new extents meet at every chunk
//! boundary; the new strides then follow from the chunk's innermost stride. This is PyTorch's
//! `computeStride` (classic form) and agrees with NumPy's `_attempt_nocopy_reshape` on the cases
//! where both are defined; negative strides are allowed (NumPy), a chunk being nested whatever
//! the sign.

use super::TensorError;
use super::axes::TensorAxes;
use super::{Extents, Storage, Tensor};
use crate::walk::Axes;
use crate::{AnyLayout, DynLayout, LayoutError, MAX_LEAVES};

/// The new shape with a `-1` resolved, checked against `total` elements.
fn infer_shape(
    old: Extents,
    total: i64,
    shape: &[i64],
) -> Result<([i64; MAX_LEAVES], usize), TensorError> {
    if shape.len() > MAX_LEAVES {
        return Err(LayoutError::TooManyLeaves {
            needed: shape.len(),
        }
        .into());
    }
    let size_err = TensorError::ReshapeSize {
        from: old,
        to: Extents::from_slice(shape),
    };
    let mut out = [1i64; MAX_LEAVES];
    let mut unknown = None;
    let mut known = 1i64;
    for (i, &e) in shape.iter().enumerate() {
        if e == -1 {
            if unknown.is_some() {
                return Err(LayoutError::Precondition {
                    what: "reshape: only one extent may be -1 (unknown); positions {a} and {b} both are",
                    a: unknown.unwrap_or(0) as i64,
                    b: i as i64,
                }.into());
            }
            unknown = Some(i);
        } else if e <= 0 {
            return Err(LayoutError::NonPositiveExtent { leaf: i, extent: e }.into());
        } else {
            known = known.checked_mul(e).ok_or(size_err)?;
            out[i] = e;
        }
    }
    match unknown {
        Some(i) => {
            if total % known != 0 {
                return Err(size_err);
            }
            out[i] = total / known;
        }
        None if known != total => return Err(size_err),
        None => {}
    }
    Ok((out, shape.len()))
}

/// The strides of a no-copy reshape of `(old_shape):(old_stride)` to `new`, or
/// `(axis, stride, needed)`: the old axis whose stride ends the chunk that a new axis spans.
fn nocopy_strides(
    old_shape: &[i64],
    old_stride: &[i64],
    new: &[i64],
) -> Result<[i64; MAX_LEAVES], (usize, i64, i64)> {
    let mut st = [1i64; MAX_LEAVES];
    if old_shape.is_empty() {
        return Ok(st); // one element: any strides do; use 1
    }
    let mut view_d = new.len() as isize - 1;
    let mut chunk_base = old_stride[old_shape.len() - 1];
    let mut tensor_numel = 1i64;
    let mut view_numel = 1i64;
    for d in (0..old_shape.len()).rev() {
        tensor_numel *= old_shape[d]; // ≤ size, which fits
        let needed = tensor_numel.checked_mul(chunk_base);
        let ends = d == 0 || (old_shape[d - 1] != 1 && needed != Some(old_stride[d - 1]));
        if ends {
            while view_d >= 0 && (view_numel < tensor_numel || new[view_d as usize] == 1) {
                // only an extent-1 axis after the chunk is full can overflow here (e.g. zero-
                // sized elements with a stride of 2^62): its stride is never used, take 0
                st[view_d as usize] = view_numel.checked_mul(chunk_base).unwrap_or(0);
                view_numel *= new[view_d as usize];
                view_d -= 1;
            }
            if view_numel != tensor_numel {
                // d > 0 here: at d == 0 all old elements are consumed, so the products meet
                let a = d.saturating_sub(1);
                return Err((a, old_stride[a], needed.unwrap_or(i64::MAX)));
            }
            if d > 0 {
                chunk_base = old_stride[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    if view_d != -1 {
        return Err((0, old_stride[0], old_stride[0]));
    }
    Ok(st)
}

impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    /// A view with another shape and the same elements in logical (row-major) order; one
    /// extent may be `-1` and is inferred. Succeeds exactly when NumPy/PyTorch can reshape
    /// without a copy (see the chunk rule in this module's source docs); otherwise the error says
    /// which old axes are not nested — use [`Tensor::reshape_copy`] then.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((0..24).collect::<Vec<i32>>(), &[2, 3, 4]).unwrap();
    /// assert_eq!(t.view().reshape(&[-1, 4]).unwrap().layout().to_string(), "(6,4):(4,1)");
    /// let tt = t.view().transpose(1, 2).unwrap();                    // (2,4,3):(12,1,4)
    /// assert_eq!(tt.reshape(&[2, 12]).unwrap_err().to_string(),
    ///     "reshape: cannot reshape into shape (2,12) without a copy: axis 1 has stride 1 but a view needs 12 to merge it with axis 2; use reshape_copy");
    /// assert_eq!(t.view().reshape(&[5, -1]).unwrap_err().to_string(),
    ///     "reshape: cannot reshape a tensor of shape (2,3,4) (24 elements) into shape (5,-1)");
    /// ```
    ///
    /// # Errors
    /// [`TensorError::ReshapeSize`], [`TensorError::ReshapeNeedsCopy`], a second `-1` or a
    /// non-positive extent.
    pub fn reshape(self, shape: &[i64]) -> Result<Tensor<St, DynLayout>, TensorError> {
        let d = self.dyn_layout()?;
        let ax = Axes::new(&d);
        let (new, n) = infer_shape(ax.extents_short(), d.size(), shape)?;
        let new = &new[..n];
        // the leaves in logical (row-major) order: axes in order, each mode's leaves reversed
        let mut os = [0i64; MAX_LEAVES];
        let mut ot = [0i64; MAX_LEAVES];
        let mut m = 0;
        for k in 0..ax.rank {
            let (s, t) = ax.leaves(k);
            for j in (0..s.len()).rev() {
                os[m] = s[j];
                ot[m] = t[j];
                m += 1;
            }
        }
        match nocopy_strides(&os[..m], &ot[..m], new) {
            Ok(st) => {
                let l = DynLayout::from_flat(new, &st[..n])?;
                self.relayout(l, 0)
            }
            Err((axis, stride, needed)) => Err(TensorError::ReshapeNeedsCopy {
                to: Extents::from_slice(new),
                axis,
                stride,
                needed,
                leaves: (m != ax.rank).then_some(ax.rank),
            }),
        }
    }

    /// Merge axes `start..=end` into one (MegEngine's / PyTorch's `flatten(start, end)`), as a
    /// view; negative numbers count from the end.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec(vec![0; 24], &[2, 3, 4]).unwrap();
    /// assert_eq!(t.view().flatten(1, 2).unwrap().shape().to_string(), "(2,12)");
    /// assert_eq!(t.view().flatten(0, -1).unwrap().shape().to_string(), "(24)");
    /// ```
    ///
    /// # Errors
    /// [`TensorError::AxisOutOfRange`], `start > end` ([`LayoutError::Precondition`]), and the
    /// errors of [`Tensor::reshape`] when the merged axes are not nested in memory.
    pub fn flatten(self, start: i64, end: i64) -> Result<Tensor<St, DynLayout>, TensorError> {
        let d = self.dyn_layout()?;
        let ax = Axes::new(&d);
        if ax.rank == 0 {
            return self.reshape(&[1]);
        }
        let (a, b) = (
            Axes::norm_axis(start, ax.rank)?,
            Axes::norm_axis(end, ax.rank)?,
        );
        if a > b {
            return Err(LayoutError::Precondition {
                what: "flatten: the start axis {a} is after the end axis {b}",
                a: a as i64,
                b: b as i64,
            }
            .into());
        }
        let (e, r) = ax.extents();
        let mut shape = [0i64; MAX_LEAVES];
        let mut n = 0;
        for (k, &ext) in e.iter().enumerate().take(r) {
            if k <= a || k > b {
                shape[n] = ext;
                n += 1;
            } else {
                shape[n - 1] *= ext; // a sub-product of the size
            }
        }
        self.reshape(&shape[..n])
    }
}

#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
impl<St: Storage, L: AnyLayout> Tensor<St, L>
where
    St::Elem: Clone,
{
    /// The reshape that always succeeds by copying into a new row-major tensor (NumPy's
    /// `reshape` when a view is impossible).
    ///
    /// # Errors
    /// [`TensorError::ReshapeSize`], a second `-1` or a non-positive extent;
    /// [`TensorError::OutputAllocation`] when the copy cannot be allocated (a broadcast view
    /// can be far larger than its buffer).
    pub fn reshape_copy(&self, shape: &[i64]) -> Result<super::TensorOwned<St::Elem>, TensorError> {
        let mut v = super::try_alloc("reshape_copy", self.layout.size())?;
        v.extend(self.iter().cloned());
        let l = DynLayout::row_major(&self.shape())?;
        Tensor::new(v, l)?.reshape(shape)
    }
}
