//! Tensor axes = the top-level modes of a layout; rebuilding layouts from them.

use super::{Extents, TensorError};
use crate::walk::Axes;
use crate::{DynLayout, DynTuple, LayoutError, MAX_LEAVES};

/// What tensors add to the walk layer's [`Axes`]: axis numbers and errors in tensor terms.
pub(crate) trait TensorAxes {
    /// Like [`Axes::strided`], with the error naming the axis.
    fn strided_or_err(&self, k: usize) -> Result<(i64, i64), TensorError>;
    /// The extents for an error message.
    fn extents_short(&self) -> Extents;
    /// Normalise a possibly negative axis number against `ndim` axes.
    fn norm_axis(axis: i64, ndim: usize) -> Result<usize, TensorError>;
}

impl TensorAxes for Axes<'_> {
    fn strided_or_err(&self, k: usize) -> Result<(i64, i64), TensorError> {
        self.strided(k).ok_or(TensorError::NotStrided { axis: k })
    }

    fn extents_short(&self) -> Extents {
        let (e, r) = self.extents();
        Extents::from_slice(&e[..r])
    }

    fn norm_axis(axis: i64, ndim: usize) -> Result<usize, TensorError> {
        let n = ndim as i64;
        let a = if axis < 0 { axis + n } else { axis };
        if a < 0 || a >= n {
            return Err(TensorError::AxisOutOfRange { axis, ndim });
        }
        Ok(a as usize)
    }
}

/// One mode of a layout being assembled from parts.
#[derive(Clone, Copy)]
pub(crate) enum ModeSpec {
    /// Top-level mode `k` of the source layout, unchanged (hierarchy kept).
    Keep(usize),
    /// A new integer mode `extent : stride`.
    Leaf(i64, i64),
}

/// The layout whose top-level modes are `specs` (modes of `src` or new leaves), validated.
pub(crate) fn assemble(src: &DynLayout, specs: &[ModeSpec]) -> Result<DynLayout, TensorError> {
    let (sh, st) = (src.shape(), src.stride());
    let mut s = DynTuple::EMPTY;
    let mut d = DynTuple::EMPTY;
    for spec in specs {
        match *spec {
            ModeSpec::Keep(k) => {
                s.push_mode(&sh.mode(k)?)?;
                d.push_mode(&st.mode(k)?)?;
            }
            ModeSpec::Leaf(e, t) => {
                s.push_mode(&DynTuple::leaf(e))?;
                d.push_mode(&DynTuple::leaf(t))?;
            }
        }
    }
    Ok(DynLayout::new(&s, &d)?)
}

/// A fixed-capacity list of [`ModeSpec`]s (no allocation).
pub(crate) struct Specs {
    pub v: [ModeSpec; MAX_LEAVES],
    pub n: usize,
}

impl Specs {
    pub const fn new() -> Specs {
        Specs {
            v: [ModeSpec::Leaf(1, 0); MAX_LEAVES],
            n: 0,
        }
    }
    pub fn push(&mut self, m: ModeSpec) -> Result<(), TensorError> {
        if self.n == MAX_LEAVES {
            return Err(LayoutError::TooManyLeaves {
                needed: MAX_LEAVES + 1,
            }
            .into());
        }
        self.v[self.n] = m;
        self.n += 1;
        Ok(())
    }
    pub fn as_slice(&self) -> &[ModeSpec] {
        &self.v[..self.n]
    }
}
