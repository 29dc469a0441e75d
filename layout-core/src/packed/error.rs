//! The error type of the packed sub-byte layer.

use crate::LayoutError;
use core::fmt;

/// Why an operation on packed sub-byte data was refused.
///
/// Every message names the operation, the rule and the numbers:
///
/// ```
/// use layout::packed::PackedError;
/// let e = PackedError::ValueOutOfRange { op: "set", index: 3, value: 16, bits: 4 };
/// assert_eq!(
///     e.to_string(),
///     "packed set: value 16 at index 3 does not fit in 4 bits (largest is 15)"
/// );
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PackedError {
    /// An element width other than 1, 2 or 4 bits.
    UnsupportedBits {
        /// The operation.
        op: &'static str,
        /// The width given.
        bits: u32,
    },
    /// A word width other than 8 or 32 bits.
    UnsupportedWord {
        /// The operation.
        op: &'static str,
        /// The word width given.
        word_bits: u32,
    },
    /// An intra-word order that exists only for one element/word width.
    OrderNeeds {
        /// The operation.
        op: &'static str,
        /// The order (`"awq"`, `"halves"`).
        order: &'static str,
        /// The element width it needs.
        need_bits: u32,
        /// The word width it needs.
        need_word_bits: u32,
        /// The element width given.
        bits: u32,
        /// The word width given.
        word_bits: u32,
    },
    /// A half-split block whose element count is not a positive even number.
    BadBlock {
        /// The operation.
        op: &'static str,
        /// The block size given.
        block: u32,
    },
    /// A packed vector or matrix with no elements (layouts have positive extents).
    Empty {
        /// The operation.
        op: &'static str,
    },
    /// An element index at or past the length.
    IndexOutOfRange {
        /// The operation.
        op: &'static str,
        /// The index given.
        index: usize,
        /// The number of elements.
        len: usize,
    },
    /// A value that does not fit in the element width (values are never truncated).
    ValueOutOfRange {
        /// The operation.
        op: &'static str,
        /// The element index.
        index: usize,
        /// The value given.
        value: u32,
        /// The element width.
        bits: u32,
    },
    /// A buffer (bytes, words, scales, zeros) of the wrong length.
    BufferLength {
        /// The operation.
        op: &'static str,
        /// Which buffer.
        what: &'static str,
        /// The length needed.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// Two packed formats with different element widths.
    WidthMismatch {
        /// The operation.
        op: &'static str,
        /// The source width.
        from_bits: u32,
        /// The destination width.
        to_bits: u32,
    },
    /// A group size that does not divide the extent it groups.
    GroupNotDividing {
        /// The operation.
        op: &'static str,
        /// The extent being grouped.
        extent: usize,
        /// The group size.
        group: usize,
    },
    /// A data layout that is not rank 2 (rows = input dim K, columns = output dim N).
    NotRank2 {
        /// The operation.
        op: &'static str,
        /// The rank given.
        rank: usize,
    },
    /// A data layout that reaches an element outside the packed vector.
    LayoutOutOfRange {
        /// The operation.
        op: &'static str,
        /// The smallest element index the layout produces.
        lo: i64,
        /// The largest element index the layout produces.
        hi: i64,
        /// The packed vector's length.
        len: usize,
    },
    /// A count that does not fit in the integer types involved.
    Overflow {
        /// The operation.
        op: &'static str,
        /// What was being computed.
        what: &'static str,
    },
    /// A buffer could not be allocated (its size comes from the caller's lengths or layouts;
    /// never an abort).
    Allocation {
        /// The operation.
        op: &'static str,
        /// The bytes asked for.
        bytes: usize,
    },
    /// A quantised format that blocks `k` in fixed-size blocks (GGUF `Q4_0`/`Q8_0`: 32) given
    /// a `k` that is not a multiple of the block.
    KNotBlocked {
        /// The operation.
        op: &'static str,
        /// The `k` given.
        k: usize,
        /// The block size.
        block: usize,
    },
    /// A weight to quantise that is NaN or infinite.
    NotFinite {
        /// The operation.
        op: &'static str,
        /// Its row (`k` index).
        row: usize,
        /// Its column (`n` index).
        col: usize,
    },
    /// A block or group scale that does not fit the scale's type (`f16` for GGUF: largest
    /// finite 65504).
    ScaleOverflow {
        /// The operation.
        op: &'static str,
        /// The first row of the block or group.
        row: usize,
        /// Its column.
        col: usize,
    },
    /// Building a bit-offset, data or metadata layout was refused (e.g. a non-positive
    /// extent). A tuple variant without the operation's name keeps the error within clippy's
    /// `result_large_err` budget; the message says it came from building a layout.
    Layout(LayoutError),
}

crate::error::debug_as_sentence!(PackedError {
    UnsupportedBits,
    UnsupportedWord,
    OrderNeeds,
    BadBlock,
    Empty,
    IndexOutOfRange,
    ValueOutOfRange,
    BufferLength,
    WidthMismatch,
    GroupNotDividing,
    NotRank2,
    LayoutOutOfRange,
    Overflow,
    Allocation,
    KNotBlocked,
    NotFinite,
    ScaleOverflow,
    Layout
});

impl fmt::Display for PackedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PackedError::UnsupportedBits { op, bits } => write!(
                f,
                "packed {op}: element width {bits} bits is not supported; use 1, 2 or 4"
            ),
            PackedError::UnsupportedWord { op, word_bits } => write!(
                f,
                "packed {op}: word width {word_bits} bits is not supported; use 8 or 32"
            ),
            PackedError::OrderNeeds {
                op,
                order,
                need_bits,
                need_word_bits,
                bits,
                word_bits,
            } => write!(
                f,
                "packed {op}: the {order} order needs {need_bits}-bit elements in \
                 {need_word_bits}-bit words, got {bits}-bit elements in {word_bits}-bit words"
            ),
            PackedError::BadBlock { op, block } => write!(
                f,
                "packed {op}: a half-split block must hold a positive even number of \
                 elements, got {block}"
            ),
            PackedError::Empty { op } => {
                write!(
                    f,
                    "packed {op}: length 0; packed data needs at least one element"
                )
            }
            PackedError::IndexOutOfRange { op, index, len } => write!(
                f,
                "packed {op}: index {index} is out of range for {len} elements"
            ),
            PackedError::ValueOutOfRange {
                op,
                index,
                value,
                bits,
            } => write!(
                f,
                "packed {op}: value {value} at index {index} does not fit in {bits} bits \
                 (largest is {})",
                (1u32 << bits) - 1
            ),
            PackedError::BufferLength {
                op,
                what,
                expected,
                got,
            } => write!(
                f,
                "packed {op}: {what} has length {got}, expected {expected}"
            ),
            PackedError::WidthMismatch {
                op,
                from_bits,
                to_bits,
            } => write!(
                f,
                "packed {op}: element widths differ ({from_bits} bits to {to_bits} bits)"
            ),
            PackedError::GroupNotDividing { op, extent, group } => write!(
                f,
                "packed {op}: group size {group} does not divide the extent {extent}"
            ),
            PackedError::NotRank2 { op, rank } => write!(
                f,
                "packed {op}: the data layout must have rank 2 (K, N), got rank {rank}"
            ),
            PackedError::LayoutOutOfRange { op, lo, hi, len } => write!(
                f,
                "packed {op}: the data layout reaches element indices [{lo}, {hi}] but the \
                 packed vector has {len} elements"
            ),
            PackedError::Overflow { op, what } => {
                write!(f, "packed {op}: {what} overflows")
            }
            PackedError::Allocation { op, bytes } => {
                write!(f, "packed {op}: could not allocate {bytes} bytes")
            }
            PackedError::KNotBlocked { op, k, block } => write!(
                f,
                "packed {op}: k = {k} is not a multiple of the block size {block} (the format \
                 stores every column's k values in whole blocks of {block})"
            ),
            PackedError::NotFinite { op, row, col } => write!(
                f,
                "packed {op}: the weight at row {row}, column {col} is NaN or infinite"
            ),
            PackedError::ScaleOverflow { op, row, col } => write!(
                f,
                "packed {op}: the scale of the block starting at row {row}, column {col} \
                 overflows its type (f16: largest finite 65504)"
            ),
            PackedError::Layout(source) => write!(f, "packed layout construction: {source}"),
        }
    }
}

impl core::error::Error for PackedError {
    // `LayoutError` implements `Error` with the `std` feature.
    #[cfg(feature = "std")]
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        match self {
            PackedError::Layout(source) => Some(source),
            _ => None,
        }
    }
}
