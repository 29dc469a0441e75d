//! [`TensorError`]: why a tensor operation was refused.

use super::Extents;
use crate::LayoutError;
use core::fmt;

/// Why a tensor operation was refused: a rule of tensors (buffer bounds, axes, views, reshape,
/// broadcasting) or, wrapped in [`TensorError::Layout`], a rule of the layout underneath.
///
/// ```
/// use layout::tensor::{Tensor, TensorError};
/// use layout::DynLayout;
/// let l: DynLayout = "(4,4):(1,4)".parse().unwrap();
/// let e = Tensor::new(vec![0f32; 10], l).unwrap_err();
/// assert!(matches!(e, TensorError::OutOfBuffer { hi: 15, len: 10, .. }));
/// assert_eq!(
///     e.to_string(),
///     "layout reaches offsets 0..=15 from base offset 0, outside a buffer of 10 elements"
/// );
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TensorError {
    /// The layout (or the layout algebra behind a view) refused the operation.
    Layout(LayoutError),
    /// The layout reaches memory outside the buffer of a tensor.
    OutOfBuffer {
        /// The tensor's base offset into the buffer, as passed.
        base: usize,
        /// The smallest offset the layout produces (negative strides give negative offsets).
        lo: i64,
        /// The largest offset the layout produces.
        hi: i64,
        /// The number of elements in the buffer.
        len: i64,
    },
    /// An axis number outside `[-ndim, ndim)`.
    AxisOutOfRange {
        /// The axis given.
        axis: i64,
        /// The number of axes it must index.
        ndim: usize,
    },
    /// The same axis was named twice (in a permutation, `expand_dims` or `squeeze`).
    RepeatedAxis {
        /// The repeated axis.
        axis: usize,
    },
    /// An index outside `[-extent, extent)` along an axis.
    AxisIndexOutOfRange {
        /// The axis.
        axis: usize,
        /// The index given.
        index: i64,
        /// The extent of the axis.
        extent: i64,
    },
    /// `squeeze` of an axis whose extent is not 1.
    SqueezeNotOne {
        /// The axis.
        axis: usize,
        /// Its extent.
        extent: i64,
    },
    /// An operation that would create an axis of extent 0 (layouts have positive extents).
    EmptyAxis {
        /// The axis that would be empty.
        axis: usize,
    },
    /// An axis whose mode is hierarchical and not expressible as one stride.
    NotStrided {
        /// The axis.
        axis: usize,
    },
    /// Two shapes that cannot be broadcast together (NumPy's rule: right-aligned, equal or 1).
    Broadcast {
        /// The first shape.
        a: Extents,
        /// The second shape (for `broadcast_to`, the requested shape).
        b: Extents,
        /// `true` for `broadcast_to` (only `a` may be stretched).
        to: bool,
    },
    /// Two shapes that must be equal (copy, element-wise in place, concat) are not.
    ShapeMismatch {
        /// The operation the user called.
        op: ShapeOp,
        /// The first shape (for a copy, the source's).
        a: Extents,
        /// The second shape (for a copy, the destination's).
        b: Extents,
    },
    /// A vector (or buffer) whose number of elements is not what the shape needs.
    ElementCount {
        /// The operation the user called (`from_vec`, `row_major`).
        op: &'static str,
        /// The shape asked for.
        shape: Extents,
        /// The number of elements it needs (its product).
        needed: i64,
        /// The number of elements given.
        len: usize,
    },
    /// A tile coordinate outside the tile grid of [`Tiles`](super::Tiles).
    TileOutOfGrid {
        /// The axis of the grid.
        axis: usize,
        /// The tile index given along it.
        index: usize,
        /// The number of tiles along it.
        grid: usize,
    },
    /// A tile extent that cannot cut a hierarchical axis (an NZ axis `(16,m/16):(1,256)`) into
    /// tiles that are one layout each: such an axis is cut exactly, by a tile extent that
    /// divides the axis and is a divisor or a multiple of its inner extent.
    TileSplitsAxis {
        /// The axis.
        axis: usize,
        /// Its extent.
        extent: usize,
        /// The extent of its innermost (fastest) part: 16 for an NZ axis.
        inner: usize,
        /// The tile extent given.
        tile: usize,
    },
    /// The output of an operation (`zip_map`, `try_map`, `concat`, `from_fn`, …) cannot be
    /// allocated.
    OutputAllocation {
        /// The operation the user called.
        op: &'static str,
        /// The number of elements of the output.
        elements: i64,
        /// Their size in bytes (saturated at `i64::MAX`).
        bytes: i64,
    },
    /// `zipped_divide` / `tiled_divide` of a tensor by a tiler that does not divide it: mode
    /// `axis` of the tiler (a tile of `tile` elements) does not divide the axis's `extent`.
    TilerNotDividing {
        /// The operation the user called.
        op: &'static str,
        /// The axis.
        axis: usize,
        /// The tensor's extent along it.
        extent: i64,
        /// The elements of the tiler's mode.
        tile: i64,
    },
    /// A reshape to a shape with a different number of elements.
    ReshapeSize {
        /// The current shape.
        from: Extents,
        /// The requested shape (`-1` kept as written).
        to: Extents,
    },
    /// A reshape that cannot be a view: a new axis would span axes `axis` and `axis+1` of the
    /// tensor, which are not nested in memory (counted over the tensor's leaves in row-major
    /// order when some axis is hierarchical: `leaves` is then `Some(rank)`).
    ReshapeNeedsCopy {
        /// The requested shape.
        to: Extents,
        /// The axis (or leaf, see `leaves`) whose stride breaks the nesting.
        axis: usize,
        /// Its stride.
        stride: i64,
        /// The stride a view would need it to have.
        needed: i64,
        /// `Some(rank)` when the tensor has hierarchical axes, so that `axis` counts the
        /// leaves of its `rank` axes (in row-major order) rather than the axes.
        leaves: Option<usize>,
    },
}

crate::error::debug_as_sentence!(TensorError {
    Layout,
    OutOfBuffer,
    AxisOutOfRange,
    RepeatedAxis,
    AxisIndexOutOfRange,
    SqueezeNotOne,
    EmptyAxis,
    NotStrided,
    Broadcast,
    ShapeMismatch,
    ElementCount,
    TileOutOfGrid,
    TileSplitsAxis,
    TilerNotDividing,
    OutputAllocation,
    ReshapeSize,
    ReshapeNeedsCopy
});

/// The operation of a [`TensorError::ShapeMismatch`]: what the user called, as its `Display`
/// writes it (`copy_from`, `+=`, …). A one-byte enum, so that the error stays small.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ShapeOp {
    /// `Tensor::copy_from`.
    CopyFrom,
    /// `Tensor::par_copy_from`.
    ParCopyFrom,
    /// `concat`.
    Concat,
    /// `stack`.
    Stack,
    /// `Padded::pad_from`.
    PadFrom,
    /// `Padded::crop_to_nd`.
    CropToNd,
    /// `+`.
    Add,
    /// `-`.
    Sub,
    /// `*`.
    Mul,
    /// `/`.
    Div,
    /// `+=`.
    AddAssign,
    /// `-=`.
    SubAssign,
    /// `*=`.
    MulAssign,
    /// `/=`.
    DivAssign,
}

impl fmt::Display for ShapeOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ShapeOp::CopyFrom => "copy_from",
            ShapeOp::ParCopyFrom => "par_copy_from",
            ShapeOp::Concat => "concat",
            ShapeOp::Stack => "stack",
            ShapeOp::PadFrom => "pad_from",
            ShapeOp::CropToNd => "crop_to_nd",
            ShapeOp::Add => "+",
            ShapeOp::Sub => "-",
            ShapeOp::Mul => "*",
            ShapeOp::Div => "/",
            ShapeOp::AddAssign => "+=",
            ShapeOp::SubAssign => "-=",
            ShapeOp::MulAssign => "*=",
            ShapeOp::DivAssign => "/=",
        })
    }
}

impl From<LayoutError> for TensorError {
    fn from(e: LayoutError) -> TensorError {
        TensorError::Layout(e)
    }
}

impl fmt::Display for TensorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TensorError::Layout(e) => e.fmt(f),
            TensorError::OutOfBuffer { base, lo, hi, len } => write!(
                f,
                "layout reaches offsets {lo}..={hi} from base offset {base}, outside a buffer of {len} elements"
            ),
            TensorError::AxisOutOfRange { axis, ndim } => {
                write!(f, "axis {axis} is out of range for a tensor of {ndim} axes")
            }
            TensorError::RepeatedAxis { axis } => write!(f, "axis {axis} is named twice"),
            TensorError::AxisIndexOutOfRange {
                axis,
                index,
                extent,
            } => write!(
                f,
                "index {index} is out of range for axis {axis} of extent {extent}"
            ),
            TensorError::SqueezeNotOne { axis, extent } => write!(
                f,
                "cannot squeeze axis {axis} of extent {extent}; only axes of extent 1 can be removed"
            ),
            TensorError::EmptyAxis { axis } => write!(
                f,
                "axis {axis} would have extent 0; tensors with empty axes are not supported"
            ),
            TensorError::NotStrided { axis } => write!(
                f,
                "axis {axis} is a hierarchical mode that is not one stride; this operation needs a strided axis"
            ),
            TensorError::Broadcast { a, b, to: false } => write!(
                f,
                "operands could not be broadcast together with shapes {a} {b}"
            ),
            TensorError::Broadcast { a, b, to: true } => {
                write!(f, "cannot broadcast a tensor of shape {a} to shape {b}")
            }
            TensorError::ShapeMismatch { op, a, b } => {
                write!(f, "{op}: shapes {a} and {b} differ; they must be equal")
            }
            TensorError::ElementCount {
                op,
                shape,
                needed,
                len,
            } => write!(
                f,
                "{op}: the shape {shape} needs {needed} elements, the {} has {len}",
                if op == "from_vec" { "vector" } else { "buffer" }
            ),
            TensorError::TileOutOfGrid { axis, index, grid } => write!(
                f,
                "tiles: tile {index} along axis {axis} is outside the tile grid, which has {grid} tiles along that axis (0..{grid})"
            ),
            TensorError::TileSplitsAxis {
                axis,
                extent,
                inner,
                tile,
            } => write!(
                f,
                "tiles: axis {axis} (extent {extent}) is hierarchical with inner extent {inner}, and tiles of {tile} would not be one layout each; use a tile extent that divides {extent} and divides or is a multiple of {inner}"
            ),
            TensorError::OutputAllocation {
                op,
                elements,
                bytes,
            } => write!(
                f,
                "{op}: cannot allocate the output of {elements} elements ({bytes} bytes)"
            ),
            TensorError::TilerNotDividing {
                op,
                axis,
                extent,
                tile,
            } => write!(
                f,
                "{op}: a tile of {tile} elements does not divide axis {axis} of extent {extent}; \
                 the division must be exact (Tensor::tiles allows ragged edges)"
            ),
            TensorError::ReshapeSize { from, to } => write!(
                f,
                "reshape: cannot reshape a tensor of shape {from} ({} elements) into shape {to}",
                from.product()
            ),
            TensorError::ReshapeNeedsCopy {
                to,
                axis,
                stride,
                needed,
                leaves: None,
            } => write!(
                f,
                "reshape: cannot reshape into shape {to} without a copy: axis {axis} has stride {stride} but a view needs {needed} to merge it with axis {}; use reshape_copy",
                axis + 1
            ),
            TensorError::ReshapeNeedsCopy {
                to,
                axis,
                stride,
                needed,
                leaves: Some(rank),
            } => write!(
                f,
                "reshape: cannot reshape into shape {to} without a copy: counting the leaves of the tensor's {rank} (hierarchical) axes in row-major order, leaf {axis} has stride {stride} but a view needs {needed} to merge it with leaf {}; use reshape_copy",
                axis + 1
            ),
        }
    }
}

impl TensorError {
    /// A short constant description of the error kind, without numbers.
    pub const fn rule(&self) -> &'static str {
        match self {
            TensorError::Layout(e) => e.rule(),
            TensorError::OutOfBuffer { .. } => "the layout reaches outside the buffer",
            TensorError::AxisOutOfRange { .. } => "an axis is out of range",
            TensorError::RepeatedAxis { .. } => "an axis is named twice",
            TensorError::AxisIndexOutOfRange { .. } => "an index is out of range for its axis",
            TensorError::SqueezeNotOne { .. } => "only axes of extent 1 can be squeezed",
            TensorError::EmptyAxis { .. } => "an axis would have extent 0",
            TensorError::NotStrided { .. } => "an axis is not one stride",
            TensorError::Broadcast { .. } => "shapes cannot be broadcast together",
            TensorError::ShapeMismatch { .. } => "shapes differ",
            TensorError::ElementCount { .. } => "the element count is not the shape's",
            TensorError::TileOutOfGrid { .. } => "a tile is outside the tile grid",
            TensorError::TileSplitsAxis { .. } => "a tile extent does not cut a hierarchical axis",
            TensorError::OutputAllocation { .. } => "the output cannot be allocated",
            TensorError::TilerNotDividing { .. } => "the tiler does not divide the tensor",
            TensorError::ReshapeSize { .. } => "reshape changes the number of elements",
            TensorError::ReshapeNeedsCopy { .. } => "reshape needs a copy",
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for TensorError {}
