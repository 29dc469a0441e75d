//! [`Extents`]: a short shape carried inside errors, printed the way NumPy prints shapes.

use core::fmt;

/// How many extents an [`Extents`] keeps; longer shapes print their first ones and `…`.
pub const EXTENTS_KEPT: usize = 6;

/// A tensor shape as it appears in an error message: up to [`EXTENTS_KEPT`] extents (longer
/// shapes are truncated and print a trailing `…`), printed like NumPy: `(2,3)`, `(4,)`, `()`.
///
/// ```
/// use layout::tensor::Extents;
/// assert_eq!(Extents::from_slice(&[2, 3]).to_string(), "(2,3)");
/// assert_eq!(Extents::from_slice(&[4]).to_string(), "(4,)");
/// assert_eq!(Extents::from_slice(&[]).to_string(), "()");
/// assert_eq!(Extents::from_slice(&[1; 10]).to_string(), "(1,1,1,1,1,1,…)");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Extents {
    vals: [i64; EXTENTS_KEPT],
    len: usize,
}

impl Extents {
    /// The extents of `v` (the first [`EXTENTS_KEPT`] are kept; `rank` stays `v.len()`).
    pub const fn from_slice(v: &[i64]) -> Extents {
        let mut vals = [0; EXTENTS_KEPT];
        let mut i = 0;
        while i < v.len() && i < EXTENTS_KEPT {
            vals[i] = v[i];
            i += 1;
        }
        Extents { vals, len: v.len() }
    }

    /// The number of extents of the original shape.
    pub const fn rank(&self) -> usize {
        self.len
    }

    /// The kept extents.
    pub fn as_slice(&self) -> &[i64] {
        &self.vals[..self.len.min(EXTENTS_KEPT)]
    }

    /// The product of the kept extents (saturating).
    pub fn product(&self) -> i64 {
        self.as_slice()
            .iter()
            .fold(1i64, |p, &e| p.saturating_mul(e))
    }
}

impl fmt::Display for Extents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, e) in self.as_slice().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{e}")?;
        }
        if self.len > EXTENTS_KEPT {
            f.write_str(",…")?;
        } else if self.len == 1 {
            f.write_str(",")?;
        }
        f.write_str(")")
    }
}

impl fmt::Debug for Extents {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Extents given as `usize` (the public convention, as in ndarray) in the `i64` form layouts
/// store: the first `shape.len()` entries of the array.
///
/// # Errors
/// More than [`MAX_LEAVES`](crate::MAX_LEAVES) extents, or an extent above `i64::MAX`.
/// One public `usize` extent (or index) as the layouts' `i64`: the one conversion every
/// `usize` entry point of the crate makes; past `i64::MAX` an overflow naming `what`.
pub(crate) fn extent_i64(e: usize, what: &'static str) -> Result<i64, crate::LayoutError> {
    i64::try_from(e).map_err(|_| crate::LayoutError::Overflow { what })
}

pub(crate) fn dims_i64(
    shape: &[usize],
) -> Result<([i64; crate::MAX_LEAVES], usize), crate::LayoutError> {
    let mut out = [0i64; crate::MAX_LEAVES];
    if shape.len() > crate::MAX_LEAVES {
        return Err(crate::LayoutError::TooManyLeaves {
            needed: shape.len(),
        });
    }
    for (o, &e) in out.iter_mut().zip(shape) {
        *o = i64::try_from(e).map_err(|_| crate::LayoutError::Overflow { what: "extent" })?;
    }
    Ok((out, shape.len()))
}

/// The [`DynTuple`](crate::DynTuple) of `usize` extents.
pub(crate) fn dims_tuple(shape: &[usize]) -> Result<crate::DynTuple, crate::LayoutError> {
    let (d, n) = dims_i64(shape)?;
    crate::DynTuple::from_slice(&d[..n])
}
