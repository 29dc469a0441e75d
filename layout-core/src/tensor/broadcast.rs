//! Broadcasting: NumPy's rule for two shapes, and `broadcast_to` as a stride-0 view.
//!
//! Shapes are aligned on the right; two extents are compatible when they are equal or one of
//! them is 1, and the result takes the larger. Missing leading axes count as 1. A broadcast axis
//! gets stride 0, so a broadcast view is not injective and is read-only by type.

use super::TensorError;
use super::axes::TensorAxes;
use super::axes::{ModeSpec, Specs, assemble};
use super::{Extents, Storage, Tensor, TensorRef};
use crate::walk::Axes;
use crate::{AnyLayout, DynLayout, DynTuple, LayoutError, MAX_LEAVES};

/// The shape two operands broadcast to (NumPy's `np.broadcast_shapes(a, b)`).
///
/// ```
/// use layout::tensor::broadcast_shapes;
/// assert_eq!(broadcast_shapes(&[8, 1, 6, 1], &[7, 1, 5]).unwrap().to_string(), "(8,7,6,5)");
/// assert_eq!(broadcast_shapes(&[256, 256, 3], &[3]).unwrap().to_string(), "(256,256,3)");
/// assert_eq!(
///     broadcast_shapes(&[2, 3], &[4]).unwrap_err().to_string(),
///     "operands could not be broadcast together with shapes (2,3) (4,)"
/// );
/// ```
///
/// # Errors
/// [`TensorError::Broadcast`] naming both shapes; too many axes.
pub fn broadcast_shapes(a: &[usize], b: &[usize]) -> Result<DynTuple, TensorError> {
    let ((a, na), (b, nb)) = (super::extents::dims_i64(a)?, super::extents::dims_i64(b)?);
    let (a, b) = (&a[..na], &b[..nb]);
    let (v, n) = broadcast_extents(a, b)?;
    Ok(DynTuple::from_slice(&v[..n])?)
}

pub(crate) fn broadcast_extents(
    a: &[i64],
    b: &[i64],
) -> Result<([i64; MAX_LEAVES], usize), TensorError> {
    let n = a.len().max(b.len());
    if n > MAX_LEAVES {
        return Err(LayoutError::TooManyLeaves { needed: n }.into());
    }
    let err = TensorError::Broadcast {
        a: Extents::from_slice(a),
        b: Extents::from_slice(b),
        to: false,
    };
    let mut out = [1i64; MAX_LEAVES];
    for i in 0..n {
        // i-th extent from the right
        let x = if i < a.len() { a[a.len() - 1 - i] } else { 1 };
        let y = if i < b.len() { b[b.len() - 1 - i] } else { 1 };
        out[n - 1 - i] = if x == y || y == 1 {
            x
        } else if x == 1 {
            y
        } else {
            return Err(err);
        };
    }
    Ok((out, n))
}

/// The layout of `d` broadcast to `shape`: right-aligned, new and stretched axes get stride 0,
/// axes of equal extent keep their mode.
pub(crate) fn broadcast_layout(d: &DynLayout, shape: &[i64]) -> Result<DynLayout, TensorError> {
    let ax = Axes::new(d);
    let err = TensorError::Broadcast {
        a: ax.extents_short(),
        b: Extents::from_slice(shape),
        to: true,
    };
    if shape.len() < ax.rank || shape.len() > MAX_LEAVES {
        return Err(err);
    }
    let lead = shape.len() - ax.rank;
    let mut specs = Specs::new();
    for (i, &t) in shape.iter().enumerate() {
        if t <= 0 {
            return Err(err);
        }
        if i < lead {
            specs.push(ModeSpec::Leaf(t, 0))?;
            continue;
        }
        let k = i - lead;
        let e = ax.extent(k);
        if e == t {
            specs.push(ModeSpec::Keep(k))?;
        } else if e == 1 {
            specs.push(ModeSpec::Leaf(t, 0))?;
        } else {
            return Err(err);
        }
    }
    assemble(d, specs.as_slice())
}

impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    /// A read-only view of this tensor broadcast to `shape` (NumPy's `broadcast_to`, PyTorch's
    /// `expand`): no copy, stretched axes get stride 0. Writing through it does not compile.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let b = Tensor::from_vec(vec![1.0, 2.0, 3.0], &[3]).unwrap();
    /// let bb = b.broadcast_to(&[2, 3]).unwrap();
    /// assert_eq!(bb.layout().to_string(), "(2,3):(0,1)");
    /// assert_eq!(format!("{bb:?}"), "[[1.0, 2.0, 3.0],\n [1.0, 2.0, 3.0]]");
    /// assert_eq!(
    ///     b.broadcast_to(&[4]).unwrap_err().to_string(),
    ///     "cannot broadcast a tensor of shape (3,) to shape (4,)"
    /// );
    /// ```
    ///
    /// # Errors
    /// [`TensorError::Broadcast`] naming both shapes.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<TensorRef<'_, St::Elem>, TensorError> {
        let (s, n) = super::extents::dims_i64(shape)?;
        let l = broadcast_layout(&self.dyn_layout()?, &s[..n])?;
        self.alias_view(l, 0)
    }
}
