//! The error type of the GEMM entry points.

use core::fmt;

use crate::isa::Isa;

/// Which operand of `C ← α·A·B + β·C` an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// The left factor A (m × k).
    A,
    /// The right factor B (k × n).
    B,
    /// The output C (m × n).
    C,
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operand::A => "A",
            Operand::B => "B",
            Operand::C => "C",
        })
    }
}

/// A strided matrix operand as the caller described it, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandShape {
    /// Which operand.
    pub operand: Operand,
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Distance in elements between consecutive rows.
    pub row_stride: isize,
    /// Distance in elements between consecutive columns.
    pub col_stride: isize,
}

impl fmt::Display for OperandShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} ({}×{}, row stride {}, column stride {})",
            self.operand, self.rows, self.cols, self.row_stride, self.col_stride
        )
    }
}

/// Why a GEMM call was rejected. Every variant names the operation and carries the numbers;
/// `Debug` shows the variant and its sentence, so `fn main() -> Result<…>` prints something a
/// person can act on.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum GemmError {
    /// The slice is shorter than the span the shape and strides address:
    /// `(rows−1)·|row stride| + (cols−1)·|column stride| + 1` elements are needed.
    TooShort {
        /// `"sgemm"`, `"dgemm"` or `"gemm"`.
        op: &'static str,
        /// The operand.
        shape: OperandShape,
        /// Elements the shape and strides address.
        needed: usize,
        /// Elements the slice has.
        len: usize,
    },
    /// The span of an operand does not fit in `isize` (stride × extent overflows).
    StrideOverflow {
        /// `"sgemm"`, `"dgemm"` or `"gemm"`.
        op: &'static str,
        /// The operand.
        shape: OperandShape,
    },
    /// Two distinct elements of C share one memory location: `di·|row stride| =
    /// dj·|column stride|` for some `|di| < rows`, `|dj| < cols`, not both 0 (an exact test).
    OutputOverlaps {
        /// `"sgemm"`, `"dgemm"` or `"gemm"`.
        op: &'static str,
        /// The output operand.
        shape: OperandShape,
    },
    /// The instruction set asked for is not available on this machine.
    IsaUnavailable {
        /// `"sgemm"`, `"dgemm"` or `"gemm"`.
        op: &'static str,
        /// The instruction set asked for.
        isa: Isa,
    },
    /// The shapes of A (m × k), B (k' × n) and C (m' × n') do not agree (tensor entry point).
    ShapeMismatch {
        /// `"gemm"`.
        op: &'static str,
        /// Shape of A.
        a: [usize; 2],
        /// Shape of B.
        b: [usize; 2],
        /// Shape of C.
        c: [usize; 2],
    },
    /// B was packed for one instruction set and the call asks for another (its micro-panels
    /// have the other kernel's width).
    PackedIsaMismatch {
        /// `"sgemm"` or `"dgemm"`.
        op: &'static str,
        /// The instruction set B was packed for.
        packed: Isa,
        /// The instruction set asked for.
        asked: Isa,
    },
    /// A temporary buffer for an operand with a non-strided layout could not be allocated
    /// (tensor entry point).
    Allocation {
        /// `"gemm"`.
        op: &'static str,
        /// Elements asked for.
        elements: usize,
    },
    /// A batch-reduce call's A and B batches differ in length.
    BatchLength {
        /// `"batch_reduce"`.
        op: &'static str,
        /// Matrices in the A batch.
        a: usize,
        /// Matrices in the B batch.
        b: usize,
    },
    /// A tensor operand is not of rank 2 (tensor entry point).
    NotMatrix {
        /// `"gemm"`.
        op: &'static str,
        /// The operand.
        operand: Operand,
        /// Its rank after flattening to modes (0 when its layout has no run-time form).
        rank: usize,
    },
}

impl fmt::Display for GemmError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GemmError::TooShort {
                op,
                shape,
                needed,
                len,
            } => write!(
                f,
                "{op}: operand {shape} addresses {needed} elements, the slice has {len}"
            ),
            GemmError::StrideOverflow { op, shape } => {
                write!(f, "{op}: the span of operand {shape} overflows isize")
            }
            GemmError::OutputOverlaps { op, shape } => write!(
                f,
                "{op}: output {shape} would write two elements to one location"
            ),
            GemmError::IsaUnavailable { op, isa } => {
                write!(
                    f,
                    "{op}: instruction set {isa:?} is not available on this CPU"
                )
            }
            GemmError::ShapeMismatch { op, a, b, c } => write!(
                f,
                "{op}: shapes do not agree: A is {}×{}, B is {}×{}, C is {}×{} \
                 (needs A m×k, B k×n, C m×n)",
                a[0], a[1], b[0], b[1], c[0], c[1]
            ),
            GemmError::PackedIsaMismatch { op, packed, asked } => write!(
                f,
                "{op}: B was packed for {packed:?} kernels, the call asks for {asked:?}"
            ),
            GemmError::Allocation { op, elements } => write!(
                f,
                "{op}: could not allocate a buffer of {elements} elements for an operand"
            ),
            GemmError::BatchLength { op, a, b } => write!(
                f,
                "{op}: the A batch has {a} matrices, the B batch {b} (they pair one to one)"
            ),
            GemmError::NotMatrix { op, operand, rank } => write!(
                f,
                "{op}: operand {operand} is not a rank-2 matrix (rank {rank})"
            ),
        }
    }
}

impl std::error::Error for GemmError {}

crate::error::debug_as_sentence!(GemmError {
    TooShort,
    StrideOverflow,
    OutputOverlaps,
    IsaUnavailable,
    ShapeMismatch,
    PackedIsaMismatch,
    Allocation,
    BatchLength,
    NotMatrix
});
