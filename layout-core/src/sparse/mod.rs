//! Sparse matrices: COO, CSR and CSC.
//!
//! A sparse matrix is a **partial** map from a coordinate `(row, column)` to the position of
//! its entry in the value array, `Option<usize>` ([`Csr::position`]); its inverse (position →
//! coordinate) is total. Because the map lives in index arrays (data), these types are not
//! [`AnyLayout`]s: they have their own home here.
//!
//! | format | stored | order | lookup |
//! |---|---|---|---|
//! | [`Coo`] | `rows`, `cols`, `values` | strictly increasing row-major `(row, col)` | binary search over the pairs |
//! | [`Csr`] | `indptr` (rows + 1), `indices` (columns), `values` | columns strictly increasing in each row | binary search in the row |
//! | [`Csc`] | `indptr` (columns + 1), `indices` (rows), `values` | rows strictly increasing in each column | binary search in the column |
//!
//! Construction from raw arrays (`try_new`) checks every invariant (lengths, offsets start at
//! 0, never decrease and end at the number of entries, indices in range, sorted and unique) and
//! returns a [`SparseError`] naming the rule and the numbers; it never panics. Matrices are
//! built from dense row-major data or a rank-2 [`Tensor`] (entries equal to
//! `T::default()` are not stored) and turned back into either. Conversions between the three
//! formats keep the entries and their order invariants; [`Csr::mul_vec`] and friends compute
//! `y = A·x`.
//!
//! The raw parts are those of `sprs` (`CsMat::new((rows, cols), indptr, indices, data)` for
//! CSR, `CsMat::new_csc` for CSC, both with sorted indices), so handing a matrix over is
//! `indptr().to_vec()`, `indices().to_vec()`, `values().to_vec()`, and taking one back is
//! [`Csr::try_new`] on its parts; this crate does not depend on `sprs`.
//!
//! ```
//! use layout::sparse::{Coo, Csr};
//! let dense = [1, 0, 2,
//!              0, 0, 3];
//! let a = Csr::from_dense(2, 3, &dense).unwrap();
//! assert_eq!(a.indptr(), &[0, 2, 3]);
//! assert_eq!(a.indices(), &[0, 2, 2]);
//! assert_eq!(a.position(1, 2), Some(2));
//! assert_eq!(a.position(1, 0), None);
//! assert_eq!(a.mul_vec(&[1, 1, 1]).unwrap(), vec![3, 3]);
//! assert_eq!(a.to_csc().unwrap().to_coo().unwrap(), Coo::from_dense(2, 3, &dense).unwrap());
//! assert!(Csr::try_new(2, 3, vec![0, 2, 1], vec![0, 2], vec![1, 2]).is_err());
//! ```

mod compressed;
mod coo;
mod error;

pub use compressed::{Csc, Csr};
pub use coo::Coo;
pub use error::SparseError;

use crate::tensor::{Storage, Tensor, TensorOwned};
use crate::{AnyLayout, DynLayout};
use alloc::vec::Vec;
use core::ops::{Add, Mul};

/// The element types of sparse arithmetic: copyable, with a zero (`Default`), addition and
/// multiplication. Every primitive number implements it.
///
/// ```
/// fn dot<T: layout::sparse::Scalar>(a: T, b: T) -> T { a * b + T::default() }
/// assert_eq!(dot(2.0, 3.0), 6.0);
/// ```
pub trait Scalar: Copy + Default + PartialEq + Add<Output = Self> + Mul<Output = Self> {}

impl<T: Copy + Default + PartialEq + Add<Output = T> + Mul<Output = T>> Scalar for T {}

/// `nrows · ncols`, checked.
fn dense_len(op: &'static str, nrows: usize, ncols: usize) -> Result<usize, SparseError> {
    nrows.checked_mul(ncols).ok_or(SparseError::Overflow {
        op,
        what: "rows · columns",
    })
}

/// A vector of `n` copies of `v`, or an error instead of an allocation panic.
fn filled<T: Clone>(
    op: &'static str,
    what: &'static str,
    n: usize,
    v: T,
) -> Result<Vec<T>, SparseError> {
    let mut out = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|_| SparseError::Allocation { op, what, len: n })?;
    out.resize(n, v);
    Ok(out)
}

/// `n + 1` (offset arrays), checked.
fn plus_one(op: &'static str, n: usize) -> Result<usize, SparseError> {
    n.checked_add(1).ok_or(SparseError::Overflow {
        op,
        what: "extent + 1",
    })
}

/// Check a dense row-major buffer's length.
fn check_dense<T>(
    op: &'static str,
    nrows: usize,
    ncols: usize,
    dense: &[T],
) -> Result<(), SparseError> {
    let n = dense_len(op, nrows, ncols)?;
    if dense.len() != n {
        return Err(SparseError::LengthMismatch {
            op,
            what: "dense data",
            expected: n,
            got: dense.len(),
        });
    }
    Ok(())
}

/// Check the length of the vector of a matrix-vector product.
fn check_x<T>(op: &'static str, x: &[T], expected: usize) -> Result<(), SparseError> {
    if x.len() != expected {
        return Err(SparseError::LengthMismatch {
            op,
            what: "x",
            expected,
            got: x.len(),
        });
    }
    Ok(())
}

/// A rank-2 tensor's extents and elements in row-major order.
fn dense_of_tensor<T: Copy, St: Storage<Elem = T>, L: AnyLayout>(
    op: &'static str,
    t: &Tensor<St, L>,
) -> Result<(usize, usize, Vec<T>), SparseError> {
    if t.ndim() != 2 {
        return Err(SparseError::NotRank2 { op, rank: t.ndim() });
    }
    let s = t.shape();
    let e = s.leaves();
    // tensor extents are positive `i64`s whose product fits in memory
    let (r, c) = (e[0] as usize, e[1] as usize);
    Ok((r, c, t.iter().copied().collect()))
}

/// A row-major tensor of dense data.
fn tensor_of_dense<T>(
    op: &'static str,
    nrows: usize,
    ncols: usize,
    dense: Vec<T>,
) -> Result<TensorOwned<T, DynLayout>, SparseError> {
    let ext = |v: usize| i64::try_from(v).map_err(|_| SparseError::Overflow { op, what: "extent" });
    ext(nrows)?;
    ext(ncols)?;
    Tensor::from_vec(dense, &[nrows, ncols]).map_err(SparseError::Tensor)
}

#[cfg(test)]
mod tests;
