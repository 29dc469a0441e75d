//! The error type of the sparse layer.

use crate::tensor::TensorError;
use core::fmt;

/// Why a sparse-matrix operation was refused.
///
/// Every message names the operation, the rule and the numbers:
///
/// ```
/// use layout::sparse::SparseError;
/// let e = SparseError::IndptrDecreasing { op: "csr from parts", at: 2, prev: 5, next: 3 };
/// assert_eq!(
///     e.to_string(),
///     "csr from parts: offsets must not decrease, indptr[2] = 3 follows 5"
/// );
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SparseError {
    /// An array of the wrong length.
    LengthMismatch {
        /// The operation.
        op: &'static str,
        /// Which array (`"values"`, `"indptr"`, `"dense data"`, `"x"`, …).
        what: &'static str,
        /// The length needed.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// Offsets (`indptr`) that do not start at 0.
    IndptrStart {
        /// The operation.
        op: &'static str,
        /// The first offset given.
        first: usize,
    },
    /// Offsets (`indptr`) that decrease.
    IndptrDecreasing {
        /// The operation.
        op: &'static str,
        /// The position of the offset that is smaller than its predecessor.
        at: usize,
        /// The predecessor.
        prev: usize,
        /// The offset at `at`.
        next: usize,
    },
    /// A last offset that is not the number of stored entries.
    IndptrEnd {
        /// The operation.
        op: &'static str,
        /// The last offset.
        last: usize,
        /// The number of stored entries (length of the index array).
        nnz: usize,
    },
    /// Two triplets at one coordinate, where a repeated coordinate is refused.
    DuplicateEntry {
        /// The operation.
        op: &'static str,
        /// The input position of the first triplet at the coordinate.
        first: usize,
        /// The input position of the next one.
        second: usize,
        /// The row.
        row: usize,
        /// The column.
        col: usize,
    },
    /// A row or column index at or past its extent.
    IndexOutOfRange {
        /// The operation.
        op: &'static str,
        /// `"row"` or `"column"`.
        axis: &'static str,
        /// The position of the index in its array.
        at: usize,
        /// The index.
        index: usize,
        /// The extent of the axis.
        extent: usize,
    },
    /// Inner indices of one row (CSR) or column (CSC) that do not strictly increase
    /// (unsorted, or a duplicate when `prev == next`).
    NotIncreasing {
        /// The operation.
        op: &'static str,
        /// The inner axis (`"column"` for CSR, `"row"` for CSC).
        axis: &'static str,
        /// The outer axis (`"row"` for CSR, `"column"` for CSC).
        outer_axis: &'static str,
        /// The row (CSR) or column (CSC) concerned.
        outer: usize,
        /// The position in the index array.
        at: usize,
        /// The previous index.
        prev: usize,
        /// The index at `at`.
        next: usize,
    },
    /// COO entries not in strictly increasing row-major order (unsorted or duplicate).
    CooOrder {
        /// The operation.
        op: &'static str,
        /// The position of the entry.
        at: usize,
        /// The previous entry's `(row, column)`.
        prev: (usize, usize),
        /// The entry's `(row, column)`.
        next: (usize, usize),
    },
    /// A tensor that is not rank 2.
    NotRank2 {
        /// The operation.
        op: &'static str,
        /// The rank given.
        rank: usize,
    },
    /// A size that does not fit in `usize`.
    Overflow {
        /// The operation.
        op: &'static str,
        /// What was being computed.
        what: &'static str,
    },
    /// A buffer that cannot be allocated (its length in elements).
    Allocation {
        /// The operation.
        op: &'static str,
        /// What was being allocated.
        what: &'static str,
        /// The number of elements.
        len: usize,
    },
    /// Building the dense tensor was refused (an extent of 0); only `to_tensor` returns it.
    Tensor(TensorError),
}

crate::error::debug_as_sentence!(SparseError {
    LengthMismatch,
    IndptrStart,
    IndptrDecreasing,
    IndptrEnd,
    DuplicateEntry,
    IndexOutOfRange,
    NotIncreasing,
    CooOrder,
    NotRank2,
    Overflow,
    Allocation,
    Tensor
});

impl fmt::Display for SparseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            SparseError::LengthMismatch {
                op,
                what,
                expected,
                got,
            } => write!(f, "{op}: {what} has length {got}, expected {expected}"),
            SparseError::IndptrStart { op, first } => {
                write!(f, "{op}: offsets must start at 0, indptr[0] = {first}")
            }
            SparseError::IndptrDecreasing { op, at, prev, next } => write!(
                f,
                "{op}: offsets must not decrease, indptr[{at}] = {next} follows {prev}"
            ),
            SparseError::IndptrEnd { op, last, nnz } => write!(
                f,
                "{op}: the last offset must equal the number of entries {nnz}, it is {last}"
            ),
            SparseError::IndexOutOfRange {
                op,
                axis,
                at,
                index,
                extent,
            } => write!(
                f,
                "{op}: {axis} index {index} at position {at} is out of range for extent {extent}"
            ),
            SparseError::NotIncreasing {
                op,
                axis,
                outer_axis,
                outer,
                at,
                prev,
                next,
            } => {
                let why = if prev == next { " (duplicate)" } else { "" };
                write!(
                    f,
                    "{op}: {axis} indices of {outer_axis} {outer} must strictly increase, \
                     position {at} has {next} after {prev}{why}"
                )
            }
            SparseError::CooOrder { op, at, prev, next } => {
                let why = if prev == next { " (duplicate)" } else { "" };
                write!(
                    f,
                    "{op}: entries must be in strictly increasing row-major order, entry {at} \
                     ({},{}) follows ({},{}){why}",
                    next.0, next.1, prev.0, prev.1
                )
            }
            SparseError::DuplicateEntry {
                op,
                first,
                second,
                row,
                col,
            } => write!(
                f,
                "{op}: triplets {first} and {second} are both at ({row},{col})"
            ),
            SparseError::NotRank2 { op, rank } => {
                write!(
                    f,
                    "{op}: a sparse matrix needs a rank-2 tensor, got rank {rank}"
                )
            }
            SparseError::Overflow { op, what } => write!(f, "{op}: {what} overflows"),
            SparseError::Allocation { op, what, len } => {
                write!(f, "{op}: cannot allocate {what} of {len} elements")
            }
            SparseError::Tensor(source) => write!(f, "sparse to tensor: {source}"),
        }
    }
}

impl core::error::Error for SparseError {
    // `TensorError` implements `Error` with the `std` feature.
    #[cfg(feature = "std")]
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            SparseError::Tensor(source) => Some(source),
            _ => None,
        }
    }
}
