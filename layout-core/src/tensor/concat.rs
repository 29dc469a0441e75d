//! `concat` and `stack`: copies that join tensors along an axis.

use super::TensorError;
use super::axes::TensorAxes;
use super::copy::same_shape;
use super::{Slice, Tensor, TensorOwned, TensorRef};
use crate::walk::Axes;
use crate::{DynLayout, LayoutError, MAX_LEAVES};
use alloc::vec::Vec;

/// Join tensors along an existing axis into a new row-major tensor (`np.concatenate`). All
/// extents other than `axis` must agree; the inputs may have any layouts.
///
/// ```
/// use layout::tensor::{concat, Tensor};
/// let a = Tensor::from_vec(vec![1, 2, 3, 4], &[2, 2]).unwrap();
/// let b = Tensor::from_vec(vec![5, 6], &[1, 2]).unwrap();
/// let c = concat(&[a.view().into_dyn().unwrap(), b.view().into_dyn().unwrap()], 0).unwrap();
/// assert_eq!(format!("{c:?}"), "[[1, 2],\n [3, 4],\n [5, 6]]");
/// assert_eq!(concat(&[a.view().into_dyn().unwrap(), b.view().into_dyn().unwrap()], 1).unwrap_err().to_string(),
///     "concat: shapes (2,2) and (1,2) differ; they must be equal");
/// ```
///
/// # Errors
/// No input ([`LayoutError::Precondition`]), [`TensorError::AxisOutOfRange`],
/// [`TensorError::ShapeMismatch`] naming the first shape and the offending one.
pub fn concat<T: Copy>(
    parts: &[TensorRef<'_, T>],
    axis: i64,
) -> Result<TensorOwned<T>, TensorError> {
    let Some(first) = parts.first() else {
        return Err(LayoutError::Precondition {
            what: "concat: {a} tensors were given (along axis {b}); it needs at least one",
            a: 0,
            b: axis,
        }
        .into());
    };
    let d0 = *first.layout();
    let ax0 = Axes::new(&d0);
    let k = Axes::norm_axis(axis, ax0.rank)?;
    let (mut shape, r) = ax0.extents();
    let mut total = 0i64;
    for p in parts {
        let ax = Axes::new(p.layout());
        let (e, rp) = ax.extents();
        let agree = rp == r && (0..r).all(|j| j == k || e[j] == shape[j]);
        if !agree {
            return Err(TensorError::ShapeMismatch {
                op: super::ShapeOp::Concat,
                a: ax0.extents_short(),
                b: ax.extents_short(),
            });
        }
        total = total
            .checked_add(e[k])
            .ok_or(LayoutError::Overflow { what: "size" })?;
    }
    shape[k] = total;
    let fill = *first
        .iter()
        .next()
        .ok_or(LayoutError::Overflow { what: "size" })?;
    let l = DynLayout::row_major(&crate::DynTuple::from_slice(&shape[..r])?)?;
    let n = usize::try_from(l.size()).map_err(|_| LayoutError::Overflow { what: "size" })?;
    let mut v = super::elementwise::try_alloc("concat", l.size())?;
    v.resize(n, fill);
    let mut out = Tensor::new(v, l)?;
    let mut start = 0i64;
    for p in parts {
        let len = Axes::new(p.layout()).extent(k);
        let mut idx = [Slice::ALL; MAX_LEAVES];
        idx[k] = Slice::Range {
            start: Some(start),
            stop: Some(start + len),
            step: 1,
        };
        out.view_mut().slice(&idx[..=k])?.copy_from(p)?;
        start += len;
    }
    Ok(out)
}

/// Join tensors of one shape along a new axis at position `axis` of the result (`np.stack`).
///
/// ```
/// use layout::tensor::{stack, Tensor};
/// let a = Tensor::from_vec(vec![1, 2], &[2]).unwrap();
/// let b = Tensor::from_vec(vec![3, 4], &[2]).unwrap();
/// let s = stack(&[a.view().into_dyn().unwrap(), b.view().into_dyn().unwrap()], 1).unwrap();
/// assert_eq!(format!("{s:?}"), "[[1, 3],\n [2, 4]]");
/// ```
///
/// # Errors
/// No input, [`TensorError::AxisOutOfRange`], [`TensorError::ShapeMismatch`].
pub fn stack<T: Copy>(
    parts: &[TensorRef<'_, T>],
    axis: i64,
) -> Result<TensorOwned<T>, TensorError> {
    let Some(first) = parts.first() else {
        return Err(LayoutError::Precondition {
            what: "stack: {a} tensors were given (along axis {b}); it needs at least one",
            a: 0,
            b: axis,
        }
        .into());
    };
    let mut expanded = Vec::with_capacity(parts.len());
    for p in parts {
        same_shape(super::ShapeOp::Stack, first.layout(), p.layout())?;
        expanded.push(p.expand_dims(&[axis])?);
    }
    let rank = first.layout().rank() + 1;
    let k = Axes::norm_axis(axis, rank)?;
    concat(&expanded, k as i64)
}
