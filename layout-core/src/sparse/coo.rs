//! Coordinate (triplet) format.

use super::{
    Csc, Csr, Scalar, SparseError, check_dense, check_x, dense_len, dense_of_tensor, filled,
    plus_one, tensor_of_dense,
};
use crate::tensor::{Storage, Tensor, TensorOwned};
use crate::{AnyLayout, DynLayout};
use alloc::vec::Vec;

/// A sparse matrix in coordinate format: entry `k` is `values[k]` at `(rows[k], cols[k])`,
/// entries in strictly increasing row-major order (so sorted and unique).
///
/// ```
/// use layout::sparse::Coo;
/// let a = Coo::try_new(2, 2, vec![0, 1], vec![1, 0], vec![5, 7]).unwrap();
/// assert_eq!(a.get(1, 0), Some(&7));
/// assert_eq!(a.to_dense().unwrap(), vec![0, 5, 7, 0]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Coo<T> {
    nrows: usize,
    ncols: usize,
    rows: Vec<usize>,
    cols: Vec<usize>,
    values: Vec<T>,
}

impl<T> Coo<T> {
    /// Adopt raw arrays after checking the invariants.
    ///
    /// # Errors
    /// [`SparseError::LengthMismatch`] unless the three arrays have one length;
    /// [`SparseError::IndexOutOfRange`] for an index at or past its extent;
    /// [`SparseError::CooOrder`] unless the entries strictly increase in row-major order.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// let e = Coo::try_new(3, 3, vec![0, 0], vec![2, 1], vec![1, 1]).unwrap_err();
    /// assert_eq!(
    ///     e.to_string(),
    ///     "coo from parts: entries must be in strictly increasing row-major order, \
    ///      entry 1 (0,1) follows (0,2)"
    /// );
    /// ```
    pub fn try_new(
        nrows: usize,
        ncols: usize,
        rows: Vec<usize>,
        cols: Vec<usize>,
        values: Vec<T>,
    ) -> Result<Self, SparseError> {
        const OP: &str = "coo from parts";
        for (what, got) in [("column indices", cols.len()), ("values", values.len())] {
            if got != rows.len() {
                return Err(SparseError::LengthMismatch {
                    op: OP,
                    what,
                    expected: rows.len(),
                    got,
                });
            }
        }
        for (k, (&r, &c)) in rows.iter().zip(&cols).enumerate() {
            for (axis, index, extent) in [("row", r, nrows), ("column", c, ncols)] {
                if index >= extent {
                    return Err(SparseError::IndexOutOfRange {
                        op: OP,
                        axis,
                        at: k,
                        index,
                        extent,
                    });
                }
            }
            if k > 0 && (rows[k - 1], cols[k - 1]) >= (r, c) {
                return Err(SparseError::CooOrder {
                    op: OP,
                    at: k,
                    prev: (rows[k - 1], cols[k - 1]),
                    next: (r, c),
                });
            }
        }
        Ok(Coo {
            nrows,
            ncols,
            rows,
            cols,
            values,
        })
    }

    /// Build from triplets `(row, column, value)` in any order: they are sorted row-major and
    /// the values of a repeated coordinate are **summed** (in input order), as scipy's
    /// `coo_matrix((v, (r, c))).sum_duplicates()`, sprs' `TriMat` and nalgebra-sparse do. For
    /// a matrix where a repeated coordinate is a mistake, use [`Coo::from_triplets_unique`].
    ///
    /// # Errors
    /// [`SparseError::IndexOutOfRange`] naming the triplet's position in the input.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// let a = Coo::from_triplets(2, 2, vec![(1, 1, 4), (0, 1, 3), (1, 1, 10)]).unwrap();
    /// assert_eq!((a.rows(), a.cols(), a.values()), (&[0, 1][..], &[1, 1][..], &[3, 14][..]));
    /// assert_eq!(
    ///     Coo::from_triplets(2, 2, vec![(0, 0, 1), (1, 5, 2)]).unwrap_err().to_string(),
    ///     "coo from triplets: column index 5 at position 1 is out of range for extent 2"
    /// );
    /// ```
    pub fn from_triplets(
        nrows: usize,
        ncols: usize,
        triplets: Vec<(usize, usize, T)>,
    ) -> Result<Self, SparseError>
    where
        T: core::ops::Add<Output = T>,
    {
        let sorted = sorted_triplets("coo from triplets", nrows, ncols, triplets)?;
        let mut out = Coo {
            nrows,
            ncols,
            rows: Vec::with_capacity(sorted.len()),
            cols: Vec::with_capacity(sorted.len()),
            values: Vec::with_capacity(sorted.len()),
        };
        for (_, (r, c, v)) in sorted {
            if out.rows.last() == Some(&r) && out.cols.last() == Some(&c) {
                // a repeated coordinate: add to the entry already there (input order)
                if let Some(last) = out.values.pop() {
                    out.values.push(last + v);
                }
            } else {
                out.rows.push(r);
                out.cols.push(c);
                out.values.push(v);
            }
        }
        Ok(out)
    }

    /// Build from triplets in any order, refusing a repeated coordinate (where summing, as
    /// [`Coo::from_triplets`] does, would hide a mistake).
    ///
    /// # Errors
    /// [`SparseError::IndexOutOfRange`]; [`SparseError::DuplicateEntry`] naming the input
    /// positions of the first two triplets with one coordinate.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// let a = Coo::from_triplets_unique(2, 2, vec![(1, 1, 4), (0, 1, 3)]).unwrap();
    /// assert_eq!(a.rows(), &[0, 1]);
    /// assert_eq!(
    ///     Coo::from_triplets_unique(3, 3, vec![(2, 2, 1), (0, 1, 2), (2, 2, 3)]).unwrap_err().to_string(),
    ///     "coo from unique triplets: triplets 0 and 2 are both at (2,2)"
    /// );
    /// ```
    pub fn from_triplets_unique(
        nrows: usize,
        ncols: usize,
        triplets: Vec<(usize, usize, T)>,
    ) -> Result<Self, SparseError> {
        const OP: &str = "coo from unique triplets";
        let sorted = sorted_triplets(OP, nrows, ncols, triplets)?;
        let mut out = Coo {
            nrows,
            ncols,
            rows: Vec::with_capacity(sorted.len()),
            cols: Vec::with_capacity(sorted.len()),
            values: Vec::with_capacity(sorted.len()),
        };
        let mut prev: Option<usize> = None;
        for (k, (r, c, v)) in sorted {
            if out.rows.last() == Some(&r) && out.cols.last() == Some(&c) {
                return Err(SparseError::DuplicateEntry {
                    op: OP,
                    first: prev.unwrap_or(k),
                    second: k,
                    row: r,
                    col: c,
                });
            }
            prev = Some(k);
            out.rows.push(r);
            out.cols.push(c);
            out.values.push(v);
        }
        Ok(out)
    }

    /// `(rows, columns)`.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// assert_eq!(Coo::<f32>::try_new(2, 5, vec![], vec![], vec![]).unwrap().shape(), (2, 5));
    /// ```
    pub fn shape(&self) -> (usize, usize) {
        (self.nrows, self.ncols)
    }

    /// Number of stored entries.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// assert_eq!(Coo::from_dense(2, 2, &[0, 1, 0, 2]).unwrap().nnz(), 2);
    /// ```
    pub fn nnz(&self) -> usize {
        self.values.len()
    }

    /// The row index of every entry.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// assert_eq!(Coo::from_dense(2, 2, &[0, 1, 0, 2]).unwrap().rows(), &[0, 1]);
    /// ```
    pub fn rows(&self) -> &[usize] {
        &self.rows
    }

    /// The column index of every entry.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// assert_eq!(Coo::from_dense(2, 2, &[0, 1, 0, 2]).unwrap().cols(), &[1, 1]);
    /// ```
    pub fn cols(&self) -> &[usize] {
        &self.cols
    }

    /// The stored values.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// assert_eq!(Coo::from_dense(2, 2, &[0, 1, 0, 2]).unwrap().values(), &[1, 2]);
    /// ```
    pub fn values(&self) -> &[T] {
        &self.values
    }

    /// The stored values, writable (the structure stays fixed, so the invariants hold).
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// let mut a = Coo::from_dense(1, 2, &[0, 1]).unwrap();
    /// a.values_mut()[0] = 9;
    /// assert_eq!(a.to_dense().unwrap(), vec![0, 9]);
    /// ```
    pub fn values_mut(&mut self) -> &mut [T] {
        &mut self.values
    }

    /// The position of the entry at `(r, c)` in the value array, by binary search; `None`
    /// when no entry is stored there (also outside the shape).
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// let a = Coo::from_dense(2, 2, &[0, 1, 3, 2]).unwrap();
    /// assert_eq!(a.position(1, 1), Some(2));
    /// assert_eq!(a.position(0, 0), None);
    /// assert_eq!(a.position(5, 0), None);
    /// ```
    pub fn position(&self, r: usize, c: usize) -> Option<usize> {
        let lo = self.rows.partition_point(|&x| x < r);
        let hi = lo + self.rows[lo..].partition_point(|&x| x == r);
        self.cols[lo..hi].binary_search(&c).ok().map(|k| lo + k)
    }

    /// The entry at `(r, c)`, if stored.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// assert_eq!(Coo::from_dense(1, 2, &[0, 4]).unwrap().get(0, 1), Some(&4));
    /// ```
    pub fn get(&self, r: usize, c: usize) -> Option<&T> {
        self.position(r, c).map(|k| &self.values[k])
    }
}

impl<T: Scalar> Coo<T> {
    /// The entries of a dense row-major `nrows × ncols` buffer that differ from
    /// `T::default()`.
    ///
    /// # Errors
    /// [`SparseError::LengthMismatch`] unless `dense.len() == nrows · ncols`.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// let a = Coo::from_dense(2, 2, &[0.0, 1.5, 0.0, 0.0]).unwrap();
    /// assert_eq!((a.rows(), a.cols()), (&[0][..], &[1][..]));
    /// ```
    pub fn from_dense(nrows: usize, ncols: usize, dense: &[T]) -> Result<Self, SparseError> {
        check_dense("coo from dense", nrows, ncols, dense)?;
        let zero = T::default();
        let mut a = Coo {
            nrows,
            ncols,
            rows: Vec::new(),
            cols: Vec::new(),
            values: Vec::new(),
        };
        for (k, &v) in dense.iter().enumerate() {
            if v != zero {
                a.rows.push(k / ncols);
                a.cols.push(k % ncols);
                a.values.push(v);
            }
        }
        Ok(a)
    }

    /// The entries of a rank-2 tensor (any layout) that differ from `T::default()`.
    ///
    /// # Errors
    /// [`SparseError::NotRank2`].
    ///
    /// ```
    /// use layout::{sparse::Coo, tensor::Tensor};
    /// let t = Tensor::from_vec(vec![0, 3, 0, 0, 0, 4], &[2, 3]).unwrap();
    /// assert_eq!(Coo::from_tensor(&t).unwrap().cols(), &[1, 2]);
    /// ```
    pub fn from_tensor<St: Storage<Elem = T>, L: AnyLayout>(
        t: &Tensor<St, L>,
    ) -> Result<Self, SparseError> {
        let (r, c, d) = dense_of_tensor("coo from tensor", t)?;
        Coo::from_dense(r, c, &d)
    }

    /// The dense row-major `nrows × ncols` matrix.
    ///
    /// # Errors
    /// [`SparseError::Overflow`] / [`SparseError::Allocation`] when `nrows · ncols` elements
    /// do not fit in memory.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// let a = Coo::try_new(2, 2, vec![1], vec![0], vec![6]).unwrap();
    /// assert_eq!(a.to_dense().unwrap(), vec![0, 0, 6, 0]);
    /// ```
    pub fn to_dense(&self) -> Result<Vec<T>, SparseError> {
        const OP: &str = "coo to dense";
        let n = dense_len(OP, self.nrows, self.ncols)?;
        let mut d = filled(OP, "dense data", n, T::default())?;
        for k in 0..self.nnz() {
            // construction checked row < nrows and col < ncols, so this is < nrows·ncols
            d[self.rows[k] * self.ncols + self.cols[k]] = self.values[k];
        }
        Ok(d)
    }

    /// The dense matrix as a row-major tensor.
    ///
    /// # Errors
    /// [`SparseError::Tensor`] when an extent is 0 (layouts have positive extents).
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// let t = Coo::from_dense(2, 2, &[0, 1, 0, 2]).unwrap().to_tensor().unwrap();
    /// assert_eq!(t[[1, 1]], 2);
    /// ```
    pub fn to_tensor(&self) -> Result<TensorOwned<T, DynLayout>, SparseError> {
        tensor_of_dense("coo to tensor", self.nrows, self.ncols, self.to_dense()?)
    }

    /// `y = A·x`.
    ///
    /// # Errors
    /// [`SparseError::LengthMismatch`] unless `x.len()` is the number of columns.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// let a = Coo::from_dense(2, 2, &[1, 2, 0, 3]).unwrap();
    /// assert_eq!(a.mul_vec(&[1, 10]).unwrap(), vec![21, 30]);
    /// ```
    pub fn mul_vec(&self, x: &[T]) -> Result<Vec<T>, SparseError> {
        check_x("coo spmv", x, self.ncols)?;
        let mut y = filled("coo spmv", "y", self.nrows, T::default())?;
        for k in 0..self.nnz() {
            let r = self.rows[k];
            y[r] = y[r] + self.values[k] * x[self.cols[k]];
        }
        Ok(y)
    }
}

impl<T: Clone> Coo<T> {
    /// The same matrix in CSR (rows compressed; the row-major order is already CSR's).
    ///
    /// # Errors
    /// [`SparseError::Overflow`] / [`SparseError::Allocation`] when the `nrows + 1` offsets
    /// do not fit in memory.
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// let a = Coo::from_dense(2, 2, &[0, 1, 2, 3]).unwrap().to_csr().unwrap();
    /// assert_eq!(a.indptr(), &[0, 1, 3]);
    /// ```
    pub fn to_csr(&self) -> Result<Csr<T>, SparseError> {
        const OP: &str = "coo to csr";
        let mut indptr = filled(OP, "indptr", plus_one(OP, self.nrows)?, 0usize)?;
        for &r in &self.rows {
            indptr[r + 1] += 1;
        }
        for i in 0..self.nrows {
            indptr[i + 1] += indptr[i];
        }
        Ok(Csr::from_checked(
            self.nrows,
            self.ncols,
            indptr,
            self.cols.clone(),
            self.values.clone(),
        ))
    }

    /// The same matrix in CSC.
    ///
    /// # Errors
    /// As [`Coo::to_csr`] and [`Csr::to_csc`].
    ///
    /// ```
    /// use layout::sparse::Coo;
    /// let a = Coo::from_dense(2, 2, &[0, 1, 2, 3]).unwrap().to_csc().unwrap();
    /// assert_eq!(a.indptr(), &[0, 1, 3]);
    /// assert_eq!(a.indices(), &[1, 0, 1]);
    /// ```
    pub fn to_csc(&self) -> Result<Csc<T>, SparseError> {
        self.to_csr()?.to_csc()
    }

    pub(super) fn from_checked(
        nrows: usize,
        ncols: usize,
        rows: Vec<usize>,
        cols: Vec<usize>,
        values: Vec<T>,
    ) -> Self {
        Coo {
            nrows,
            ncols,
            rows,
            cols,
            values,
        }
    }
}

/// A triplet `(row, column, value)` with its position in the input.
type Positioned<T> = (usize, (usize, usize, T));

/// The triplets with their input positions, sorted row-major (stably: a repeated coordinate
/// keeps input order), after checking every index against its extent in input order.
fn sorted_triplets<T>(
    op: &'static str,
    nrows: usize,
    ncols: usize,
    triplets: Vec<(usize, usize, T)>,
) -> Result<Vec<Positioned<T>>, SparseError> {
    for (k, &(r, c, _)) in triplets.iter().enumerate() {
        for (axis, index, extent) in [("row", r, nrows), ("column", c, ncols)] {
            if index >= extent {
                return Err(SparseError::IndexOutOfRange {
                    op,
                    axis,
                    at: k,
                    index,
                    extent,
                });
            }
        }
    }
    let mut t: Vec<Positioned<T>> = triplets.into_iter().enumerate().collect();
    t.sort_by_key(|&(_, (r, c, _))| (r, c));
    Ok(t)
}
