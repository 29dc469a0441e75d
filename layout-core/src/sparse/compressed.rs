//! Compressed sparse row (CSR) and column (CSC) formats: one implementation over an outer
//! (compressed) and an inner axis; CSR is rows-outer, CSC columns-outer.

use super::{
    Coo, Scalar, SparseError, check_dense, check_x, dense_len, dense_of_tensor, filled, plus_one,
    tensor_of_dense,
};
use crate::tensor::{Storage, Tensor, TensorOwned};
use crate::{AnyLayout, DynLayout};
use alloc::vec::Vec;

/// The shared storage: `indptr[o]..indptr[o+1]` are the entries of outer line `o`, with
/// strictly increasing inner indices.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Compressed<T> {
    outer: usize,
    inner: usize,
    indptr: Vec<usize>,
    indices: Vec<usize>,
    values: Vec<T>,
}

/// Axis names for messages: (outer, inner).
type Axes = (&'static str, &'static str);
const CSR_AXES: Axes = ("row", "column");
const CSC_AXES: Axes = ("column", "row");

impl<T> Compressed<T> {
    fn try_new(
        op: &'static str,
        (outer_axis, axis): Axes,
        outer: usize,
        inner: usize,
        indptr: Vec<usize>,
        indices: Vec<usize>,
        values: Vec<T>,
    ) -> Result<Self, SparseError> {
        let want = plus_one(op, outer)?;
        if indptr.len() != want {
            return Err(SparseError::LengthMismatch {
                op,
                what: "indptr",
                expected: want,
                got: indptr.len(),
            });
        }
        if values.len() != indices.len() {
            return Err(SparseError::LengthMismatch {
                op,
                what: "values",
                expected: indices.len(),
                got: values.len(),
            });
        }
        if indptr[0] != 0 {
            return Err(SparseError::IndptrStart {
                op,
                first: indptr[0],
            });
        }
        for (at, w) in indptr.windows(2).enumerate() {
            if w[1] < w[0] {
                return Err(SparseError::IndptrDecreasing {
                    op,
                    at: at + 1,
                    prev: w[0],
                    next: w[1],
                });
            }
        }
        let last = indptr[outer];
        if last != indices.len() {
            return Err(SparseError::IndptrEnd {
                op,
                last,
                nnz: indices.len(),
            });
        }
        for o in 0..outer {
            // offsets are monotone and end at indices.len(): the range is in bounds
            for k in indptr[o]..indptr[o + 1] {
                let index = indices[k];
                if index >= inner {
                    return Err(SparseError::IndexOutOfRange {
                        op,
                        axis,
                        at: k,
                        index,
                        extent: inner,
                    });
                }
                if k > indptr[o] && indices[k - 1] >= index {
                    return Err(SparseError::NotIncreasing {
                        op,
                        axis,
                        outer_axis,
                        outer: o,
                        at: k,
                        prev: indices[k - 1],
                        next: index,
                    });
                }
            }
        }
        Ok(Compressed {
            outer,
            inner,
            indptr,
            indices,
            values,
        })
    }

    fn position(&self, o: usize, i: usize) -> Option<usize> {
        if o >= self.outer {
            return None;
        }
        let (lo, hi) = (self.indptr[o], self.indptr[o + 1]);
        self.indices[lo..hi].binary_search(&i).ok().map(|k| lo + k)
    }

    /// The outer index of every entry (expanding `indptr`).
    fn outer_indices(&self) -> Vec<usize> {
        let mut v = Vec::with_capacity(self.indices.len());
        for o in 0..self.outer {
            v.extend(core::iter::repeat_n(o, self.indptr[o + 1] - self.indptr[o]));
        }
        v
    }
}

impl<T: Clone> Compressed<T> {
    /// The same entries compressed along the other axis (counting sort: stable, so the new
    /// inner indices come out increasing).
    fn transpose(&self, op: &'static str) -> Result<Compressed<T>, SparseError> {
        let mut indptr = filled(op, "indptr", plus_one(op, self.inner)?, 0usize)?;
        for &i in &self.indices {
            indptr[i + 1] += 1;
        }
        for i in 0..self.inner {
            indptr[i + 1] += indptr[i];
        }
        let mut next = indptr.clone();
        let mut slot: Vec<Option<(usize, T)>> = filled(op, "entries", self.indices.len(), None)?;
        for o in 0..self.outer {
            for k in self.indptr[o]..self.indptr[o + 1] {
                let i = self.indices[k];
                slot[next[i]] = Some((o, self.values[k].clone()));
                next[i] += 1;
            }
        }
        let (indices, values) = slot.into_iter().flatten().unzip();
        Ok(Compressed {
            outer: self.inner,
            inner: self.outer,
            indptr,
            indices,
            values,
        })
    }
}

impl<T: Scalar> Compressed<T> {
    /// From dense data indexed `(o, i) → dense[o·os + i·is]` (its length already checked).
    fn from_dense(
        op: &'static str,
        outer: usize,
        inner: usize,
        dense: &[T],
        (os, is): (usize, usize),
    ) -> Result<Self, SparseError> {
        let zero = T::default();
        let mut indptr = filled(op, "indptr", plus_one(op, outer)?, 0usize)?;
        let mut indices = Vec::new();
        let mut values = Vec::new();
        for o in 0..outer {
            for i in 0..inner {
                let v = dense[o * os + i * is];
                if v != zero {
                    indices.push(i);
                    values.push(v);
                }
            }
            indptr[o + 1] = indices.len();
        }
        Ok(Compressed {
            outer,
            inner,
            indptr,
            indices,
            values,
        })
    }

    /// Dense data indexed `(o, i) → dense[o·os + i·is]`, `n = outer·inner` elements.
    fn to_dense(&self, op: &'static str, os: usize, is: usize) -> Result<Vec<T>, SparseError> {
        let n = dense_len(op, self.outer, self.inner)?;
        let mut d = filled(op, "dense data", n, T::default())?;
        for o in 0..self.outer {
            for k in self.indptr[o]..self.indptr[o + 1] {
                d[o * os + self.indices[k] * is] = self.values[k];
            }
        }
        Ok(d)
    }
}

macro_rules! compressed_common {
    ($ty:ident, $name:literal, $axes:expr, $outer_doc:literal, $inner_doc:literal) => {
        impl<T> $ty<T> {
            #[doc = concat!("Adopt raw arrays after checking the invariants: `indptr` has ",
                $outer_doc, "s + 1 offsets, starts at 0, never decreases and ends at ",
                "`indices.len() == values.len()`; the ", $inner_doc, " indices of each ",
                $outer_doc, " are in range and strictly increase.")]
            ///
            /// # Errors
            /// [`SparseError::LengthMismatch`], [`SparseError::IndptrStart`],
            /// [`SparseError::IndptrDecreasing`], [`SparseError::IndptrEnd`],
            /// [`SparseError::IndexOutOfRange`], [`SparseError::NotIncreasing`],
            /// each naming the position and the numbers.
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("let e = ", stringify!($ty),
                "::try_new(2, 2, vec![0, 2, 2], vec![1, 1], vec![1, 1]).unwrap_err();")]
            #[doc = concat!("assert_eq!(e.to_string(), \"", $name, " from parts: ", $inner_doc,
                " indices of ", $outer_doc,
                " 0 must strictly increase, position 1 has 1 after 1 (duplicate)\");")]
            /// ```
            pub fn try_new(
                nrows: usize,
                ncols: usize,
                indptr: Vec<usize>,
                indices: Vec<usize>,
                values: Vec<T>,
            ) -> Result<Self, SparseError> {
                let (o, i) = Self::outer_inner(nrows, ncols);
                let op = concat!($name, " from parts");
                Compressed::try_new(op, $axes, o, i, indptr, indices, values).map($ty)
            }

            /// `(rows, columns)`.
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("assert_eq!(", stringify!($ty),
                "::from_dense(2, 3, &[0; 6]).unwrap().shape(), (2, 3));")]
            /// ```
            pub fn shape(&self) -> (usize, usize) {
                let (o, i) = (self.0.outer, self.0.inner);
                Self::outer_inner(o, i)
            }

            /// Number of stored entries.
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("assert_eq!(", stringify!($ty),
                "::from_dense(2, 2, &[0, 1, 1, 0]).unwrap().nnz(), 2);")]
            /// ```
            pub fn nnz(&self) -> usize {
                self.0.values.len()
            }

            #[doc = concat!("The offsets: the entries of ", $outer_doc,
                " `o` are `indptr[o]..indptr[o+1]`.")]
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("assert_eq!(", stringify!($ty),
                "::from_dense(2, 2, &[1, 0, 0, 0]).unwrap().indptr(), &[0, 1, 1]);")]
            /// ```
            pub fn indptr(&self) -> &[usize] {
                &self.0.indptr
            }

            #[doc = concat!("The ", $inner_doc, " index of every entry.")]
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("assert_eq!(", stringify!($ty),
                "::from_dense(2, 2, &[1, 0, 0, 0]).unwrap().indices(), &[0]);")]
            /// ```
            pub fn indices(&self) -> &[usize] {
                &self.0.indices
            }

            /// The stored values.
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("assert_eq!(", stringify!($ty),
                "::from_dense(1, 2, &[0, 7]).unwrap().values(), &[7]);")]
            /// ```
            pub fn values(&self) -> &[T] {
                &self.0.values
            }

            /// The stored values, writable (the structure stays fixed, so the invariants hold).
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("let mut a = ", stringify!($ty),
                "::from_dense(1, 2, &[0, 7]).unwrap();")]
            /// a.values_mut()[0] = 8;
            /// assert_eq!(a.get(0, 1), Some(&8));
            /// ```
            pub fn values_mut(&mut self) -> &mut [T] {
                &mut self.0.values
            }

            /// The position of the entry at `(r, c)` in the value array, by binary search in
            /// its line; `None` when no entry is stored there (also outside the shape).
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("let a = ", stringify!($ty),
                "::from_dense(2, 2, &[0, 5, 6, 0]).unwrap();")]
            /// assert!(a.position(0, 1).is_some());
            /// assert_eq!(a.position(0, 0), None);
            /// assert_eq!(a.position(0, 9), None);
            /// ```
            pub fn position(&self, r: usize, c: usize) -> Option<usize> {
                let (o, i) = Self::outer_inner(r, c);
                self.0.position(o, i)
            }

            /// The entry at `(r, c)`, if stored.
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("let a = ", stringify!($ty),
                "::from_dense(2, 2, &[0, 5, 6, 0]).unwrap();")]
            /// assert_eq!(a.get(1, 0), Some(&6));
            /// ```
            pub fn get(&self, r: usize, c: usize) -> Option<&T> {
                self.position(r, c).map(|k| &self.0.values[k])
            }
        }

        impl<T: Scalar> $ty<T> {
            /// The entries of a dense row-major `nrows × ncols` buffer that differ from
            /// `T::default()`.
            ///
            /// # Errors
            /// [`SparseError::LengthMismatch`] unless `dense.len() == nrows · ncols`.
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("let a = ", stringify!($ty),
                "::from_dense(2, 2, &[0.0, 2.5, 0.0, 0.0]).unwrap();")]
            /// assert_eq!(a.nnz(), 1);
            #[doc = concat!("assert!(", stringify!($ty), "::from_dense(2, 2, &[0.0; 3]).is_err());")]
            /// ```
            pub fn from_dense(
                nrows: usize,
                ncols: usize,
                dense: &[T],
            ) -> Result<Self, SparseError> {
                let op = concat!($name, " from dense");
                check_dense(op, nrows, ncols, dense)?;
                let (o, i) = Self::outer_inner(nrows, ncols);
                let strides = Self::outer_inner(ncols, 1);
                Compressed::from_dense(op, o, i, dense, strides).map($ty)
            }

            /// The entries of a rank-2 tensor (any layout) that differ from `T::default()`.
            ///
            /// # Errors
            /// [`SparseError::NotRank2`].
            ///
            /// ```
            #[doc = concat!("use layout::{sparse::", stringify!($ty), ", tensor::Tensor};")]
            /// let t = Tensor::from_vec(vec![0, 3, 4, 0], &[2, 2]).unwrap();
            #[doc = concat!("assert_eq!(", stringify!($ty), "::from_tensor(&t).unwrap().get(0, 1), Some(&3));")]
            /// ```
            pub fn from_tensor<St: Storage<Elem = T>, L: AnyLayout>(
                t: &Tensor<St, L>,
            ) -> Result<Self, SparseError> {
                let (r, c, d) = dense_of_tensor(concat!($name, " from tensor"), t)?;
                Self::from_dense(r, c, &d)
            }

            /// The dense row-major `nrows × ncols` matrix.
            ///
            /// # Errors
            /// [`SparseError::Overflow`] / [`SparseError::Allocation`] when `nrows · ncols`
            /// elements do not fit in memory.
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("let a = ", stringify!($ty), "::from_dense(2, 2, &[0, 5, 6, 0]).unwrap();")]
            /// assert_eq!(a.to_dense().unwrap(), vec![0, 5, 6, 0]);
            /// ```
            pub fn to_dense(&self) -> Result<Vec<T>, SparseError> {
                let (_, ncols) = self.shape();
                let (os, is) = Self::outer_inner(ncols, 1);
                self.0.to_dense(concat!($name, " to dense"), os, is)
            }

            /// The dense matrix as a row-major tensor.
            ///
            /// # Errors
            /// As [`Self::to_dense`]; [`SparseError::Tensor`] when an extent is 0 (layouts
            /// have positive extents).
            ///
            /// ```
            #[doc = concat!("use layout::sparse::", stringify!($ty), ";")]
            #[doc = concat!("let a = ", stringify!($ty), "::from_dense(2, 2, &[0, 5, 6, 0]).unwrap();")]
            /// assert_eq!(a.to_tensor().unwrap()[[1, 0]], 6);
            /// ```
            pub fn to_tensor(&self) -> Result<TensorOwned<T, DynLayout>, SparseError> {
                let (r, c) = self.shape();
                tensor_of_dense(concat!($name, " to tensor"), r, c, self.to_dense()?)
            }
        }
    };
}

/// Compressed sparse row: the entries of row `r` are `indptr[r]..indptr[r+1]`, with
/// strictly increasing column indices.
///
/// ```
/// use layout::sparse::Csr;
/// let a = Csr::try_new(2, 3, vec![0, 1, 3], vec![2, 0, 1], vec![7, 8, 9]).unwrap();
/// assert_eq!(a.to_dense().unwrap(), vec![0, 0, 7, 8, 9, 0]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Csr<T>(Compressed<T>);

/// Compressed sparse column: the entries of column `c` are `indptr[c]..indptr[c+1]`, with
/// strictly increasing row indices.
///
/// ```
/// use layout::sparse::Csc;
/// let a = Csc::try_new(2, 3, vec![0, 1, 1, 3], vec![1, 0, 1], vec![7, 8, 9]).unwrap();
/// assert_eq!(a.to_dense().unwrap(), vec![0, 0, 8, 7, 0, 9]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Csc<T>(Compressed<T>);

impl<T> Csr<T> {
    /// `(outer, inner)` of `(row, column)`.
    fn outer_inner(r: usize, c: usize) -> (usize, usize) {
        (r, c)
    }

    pub(super) fn from_checked(
        nrows: usize,
        ncols: usize,
        indptr: Vec<usize>,
        indices: Vec<usize>,
        values: Vec<T>,
    ) -> Self {
        Csr(Compressed {
            outer: nrows,
            inner: ncols,
            indptr,
            indices,
            values,
        })
    }
}

impl<T> Csc<T> {
    /// `(outer, inner)` of `(row, column)`.
    fn outer_inner(r: usize, c: usize) -> (usize, usize) {
        (c, r)
    }
}

compressed_common!(Csr, "csr", CSR_AXES, "row", "column");
compressed_common!(Csc, "csc", CSC_AXES, "column", "row");

impl<T: Scalar> Csr<T> {
    /// `y = A·x`: one dot product per row.
    ///
    /// # Errors
    /// [`SparseError::LengthMismatch`] unless `x.len()` is the number of columns.
    ///
    /// ```
    /// use layout::sparse::Csr;
    /// let a = Csr::from_dense(2, 2, &[1, 2, 0, 3]).unwrap();
    /// assert_eq!(a.mul_vec(&[1, 10]).unwrap(), vec![21, 30]);
    /// assert_eq!(
    ///     a.mul_vec(&[1]).unwrap_err().to_string(),
    ///     "csr spmv: x has length 1, expected 2"
    /// );
    /// ```
    pub fn mul_vec(&self, x: &[T]) -> Result<Vec<T>, SparseError> {
        const OP: &str = "csr spmv";
        let c = &self.0;
        check_x(OP, x, c.inner)?;
        let mut y = filled(OP, "y", c.outer, T::default())?;
        for (r, yr) in y.iter_mut().enumerate() {
            let mut acc = T::default();
            for k in c.indptr[r]..c.indptr[r + 1] {
                acc = acc + c.values[k] * x[c.indices[k]];
            }
            *yr = acc;
        }
        Ok(y)
    }
}

impl<T: Scalar> Csc<T> {
    /// `y = A·x`: column `c` scaled by `x[c]` is added into `y`.
    ///
    /// # Errors
    /// [`SparseError::LengthMismatch`] unless `x.len()` is the number of columns.
    ///
    /// ```
    /// use layout::sparse::Csc;
    /// let a = Csc::from_dense(2, 2, &[1, 2, 0, 3]).unwrap();
    /// assert_eq!(a.mul_vec(&[1, 10]).unwrap(), vec![21, 30]);
    /// ```
    pub fn mul_vec(&self, x: &[T]) -> Result<Vec<T>, SparseError> {
        const OP: &str = "csc spmv";
        let c = &self.0;
        check_x(OP, x, c.outer)?;
        let mut y = filled(OP, "y", c.inner, T::default())?;
        for (col, &xc) in x.iter().enumerate() {
            for k in c.indptr[col]..c.indptr[col + 1] {
                let r = c.indices[k];
                y[r] = y[r] + c.values[k] * xc;
            }
        }
        Ok(y)
    }
}

impl<T: Clone> Csr<T> {
    /// The same matrix in CSC (a counting sort by column).
    ///
    /// # Errors
    /// [`SparseError::Overflow`] / [`SparseError::Allocation`] when the `ncols + 1` offsets
    /// do not fit in memory.
    ///
    /// ```
    /// use layout::sparse::Csr;
    /// let a = Csr::from_dense(2, 2, &[1, 2, 0, 3]).unwrap().to_csc().unwrap();
    /// assert_eq!((a.indptr(), a.indices()), (&[0, 1, 3][..], &[0, 0, 1][..]));
    /// ```
    pub fn to_csc(&self) -> Result<Csc<T>, SparseError> {
        self.0.transpose("csr to csc").map(Csc)
    }

    /// The same matrix in COO.
    ///
    /// ```
    /// use layout::sparse::Csr;
    /// let a = Csr::from_dense(2, 2, &[1, 2, 0, 3]).unwrap().to_coo();
    /// assert_eq!((a.rows(), a.cols()), (&[0, 0, 1][..], &[0, 1, 1][..]));
    /// ```
    pub fn to_coo(&self) -> Coo<T> {
        let c = &self.0;
        Coo::from_checked(
            c.outer,
            c.inner,
            c.outer_indices(),
            c.indices.clone(),
            c.values.clone(),
        )
    }
}

impl<T: Clone> Csc<T> {
    /// The same matrix in CSR (a counting sort by row).
    ///
    /// # Errors
    /// [`SparseError::Overflow`] / [`SparseError::Allocation`] when the `nrows + 1` offsets
    /// do not fit in memory.
    ///
    /// ```
    /// use layout::sparse::Csc;
    /// let a = Csc::from_dense(2, 2, &[1, 2, 0, 3]).unwrap().to_csr().unwrap();
    /// assert_eq!((a.indptr(), a.indices()), (&[0, 2, 3][..], &[0, 1, 1][..]));
    /// ```
    pub fn to_csr(&self) -> Result<Csr<T>, SparseError> {
        self.0.transpose("csc to csr").map(Csr)
    }

    /// The same matrix in COO (through CSR, for row-major order).
    ///
    /// # Errors
    /// As [`Csc::to_csr`].
    ///
    /// ```
    /// use layout::sparse::Csc;
    /// let a = Csc::from_dense(2, 2, &[1, 2, 0, 3]).unwrap().to_coo().unwrap();
    /// assert_eq!(a.values(), &[1, 2, 3]);
    /// ```
    pub fn to_coo(&self) -> Result<Coo<T>, SparseError> {
        Ok(self.to_csr()?.to_coo())
    }
}
