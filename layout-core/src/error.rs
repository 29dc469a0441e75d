//! The one error type of the crate.
//!
//! Every fallible operation on run-time layouts returns [`LayoutError`]. It is a plain `Copy` enum
//! so that `const fn` code (the same code the macro and static layouts use) can build and return
//! it; its `Display` names the rule that was broken and the numbers involved.

use crate::Extents;
use core::fmt;

/// Why a layout operation was refused.
///
/// Messages are lowercase, in CuTe's notation, and carry the numbers involved:
///
/// ```
/// use layout_core::LayoutError;
/// let e = LayoutError::NonPositiveExtent { leaf: 1, extent: 0 };
/// assert_eq!(e.to_string(), "shape leaf 1 has extent 0; extents must be positive");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LayoutError {
    /// More leaves than a run-time tuple can hold ([`crate::MAX_LEAVES`]).
    TooManyLeaves {
        /// How many leaves the value would need.
        needed: usize,
    },
    /// The nesting is too deep or has too many tuples for a run-time tuple
    /// ([`crate::MAX_TOKENS`] structure tokens).
    TooComplex {
        /// How many structure tokens the value would need.
        needed: usize,
    },
    /// Shape and stride do not have the same hierarchical profile.
    NotCongruent {
        /// Leaves in the shape.
        shape_leaves: usize,
        /// Leaves in the stride.
        stride_leaves: usize,
    },
    /// A shape leaf is zero or negative.
    NonPositiveExtent {
        /// Index of the leaf in the flattened shape.
        leaf: usize,
        /// Its value.
        extent: i64,
    },
    /// A product or sum left the range of `i64`.
    Overflow {
        /// What was being computed (`"size"`, `"cosize"`, …).
        what: &'static str,
    },
    /// A mode index past the rank.
    ModeOutOfRange {
        /// The requested mode.
        mode: usize,
        /// The rank of the value.
        rank: usize,
    },
    /// A coordinate does not fit the shape's profile.
    CoordinateMismatch {
        /// Leaves in the coordinate.
        coord_leaves: usize,
        /// Leaves in the shape.
        shape_leaves: usize,
    },
    /// A coordinate lies outside the domain of the shape.
    CoordinateOutOfRange {
        /// Index of the offending leaf in the flattened shape.
        leaf: usize,
        /// The coordinate given.
        coord: i64,
        /// The extent of that mode.
        extent: i64,
    },
    /// A one-dimensional index lies outside `[0, size)`.
    IndexOutOfRange {
        /// The index given.
        index: i64,
        /// The size of the domain.
        size: i64,
    },
    /// The operation needs an injective layout (no two coordinates share an offset).
    NotInjective {
        /// A repeated offset.
        offset: i64,
    },
    /// A composition whose result would not equal `A(B(i))` for every `i`.
    Inadmissible {
        /// The rule that was broken.
        rule: &'static str,
        /// A first number involved (see `rule`).
        a: i64,
        /// A second number involved (see `rule`).
        b: i64,
    },
    /// A precondition of an operation failed; `what` names it, `a` and `b` are the numbers.
    Precondition {
        /// The precondition, in words.
        what: &'static str,
        /// A first number involved.
        a: i64,
        /// A second number involved.
        b: i64,
    },
    /// The layout reaches memory outside the buffer of a tensor.
    OutOfBuffer {
        /// The tensor's base offset into the buffer.
        base: i64,
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
        /// The first shape.
        a: Extents,
        /// The second shape.
        b: Extents,
    },
    /// A reshape to a shape with a different number of elements.
    ReshapeSize {
        /// The current shape.
        from: Extents,
        /// The requested shape (`-1` kept as written).
        to: Extents,
    },
    /// A reshape that cannot be a view: a new axis would span old axes `axis` and `axis+1`,
    /// which are not nested in memory (old axes counted over the tensor's leaves in row-major
    /// order, which are its axes when no axis is hierarchical).
    ReshapeNeedsCopy {
        /// The requested shape.
        to: Extents,
        /// The old axis whose stride breaks the nesting.
        axis: usize,
        /// Its stride.
        stride: i64,
        /// The stride a view would need it to have.
        needed: i64,
    },
    /// A composition `A ∘ B` refused by the admissibility rule (see `crate::algebra`): the result
    /// would not equal `A(B(i))` for every `i` of `B`'s domain.
    Composition {
        /// Which condition failed.
        rule: CompositionRule,
        /// The mode of the coalesced `A` involved (0-based).
        a_mode: usize,
        /// The extent of that mode of the coalesced `A`.
        a_extent: i64,
        /// The leaf of `B` involved (0-based, in flattened order).
        b_leaf: usize,
        /// That leaf of `B`: its extent …
        b_shape: i64,
        /// … and its stride.
        b_stride: i64,
        /// The number that broke the rule (see [`CompositionRule`]).
        x: i64,
    },
    /// Text that does not parse as a layout or integer tuple.
    Parse {
        /// Byte offset in the input where the problem is.
        at: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// Swizzle parameters `Sw<B,M,S>` that break a rule (`B >= 0`, `M >= 0`, `|S| >= B`,
    /// `B + M + |S| <= 63`).
    InvalidSwizzle {
        /// `B`, the number of bits.
        b: i64,
        /// `M`, the base.
        m: i64,
        /// `S`, the shift.
        s: i64,
        /// The rule that was broken.
        rule: &'static str,
    },
    /// A swizzled layout asked for its `shape:stride` form, which it does not have.
    NotAffine {
        /// `B` of the swizzle.
        b: i64,
        /// `M` of the swizzle.
        m: i64,
        /// `S` of the swizzle.
        s: i64,
    },
    /// A fact about a non-affine layout (its offset bounds or injectivity) that has no closed
    /// form here would need a scan of more elements than the cap allows.
    TooLargeToScan {
        /// What was to be decided.
        what: &'static str,
        /// The number of elements the scan would visit.
        size: i64,
        /// The most elements a scan visits.
        cap: i64,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            LayoutError::TooManyLeaves { needed } => write!(
                f,
                "{needed} leaves needed but a run-time tuple holds at most {}",
                crate::MAX_LEAVES
            ),
            LayoutError::TooComplex { needed } => write!(
                f,
                "nesting needs {needed} structure tokens but a run-time tuple holds at most {}",
                crate::MAX_TOKENS
            ),
            LayoutError::NotCongruent {
                shape_leaves,
                stride_leaves,
            } => write!(
                f,
                "shape and stride are not congruent: shape has {shape_leaves} leaves, stride has {stride_leaves}, or their nesting differs"
            ),
            LayoutError::NonPositiveExtent { leaf, extent } => {
                write!(
                    f,
                    "shape leaf {leaf} has extent {extent}; extents must be positive"
                )
            }
            LayoutError::Overflow { what } => write!(f, "{what} overflows i64"),
            LayoutError::ModeOutOfRange { mode, rank } => {
                write!(f, "mode {mode} does not exist in a rank-{rank} value")
            }
            LayoutError::CoordinateMismatch {
                coord_leaves,
                shape_leaves,
            } => write!(
                f,
                "coordinate does not fit the shape: coordinate has {coord_leaves} leaves, shape has {shape_leaves}, or their nesting differs"
            ),
            LayoutError::CoordinateOutOfRange {
                leaf,
                coord,
                extent,
            } => write!(
                f,
                "coordinate {coord} is out of range for mode {leaf} of extent {extent}"
            ),
            LayoutError::IndexOutOfRange { index, size } => {
                write!(
                    f,
                    "index {index} is out of range for a domain of size {size}"
                )
            }
            LayoutError::NotInjective { offset } => {
                write!(
                    f,
                    "layout is not injective: offset {offset} is reached twice"
                )
            }
            LayoutError::Inadmissible { rule, a, b } => {
                write!(
                    f,
                    "composition is not admissible: {rule} (numbers {a} and {b})"
                )
            }
            LayoutError::Precondition { what, a, b } => write!(f, "{what} (numbers {a} and {b})"),
            LayoutError::OutOfBuffer { base, lo, hi, len } => write!(
                f,
                "layout reaches offsets {lo}..={hi} from base offset {base}, outside a buffer of {len} elements"
            ),
            LayoutError::AxisOutOfRange { axis, ndim } => {
                write!(f, "axis {axis} is out of range for a tensor of {ndim} axes")
            }
            LayoutError::RepeatedAxis { axis } => write!(f, "axis {axis} is named twice"),
            LayoutError::AxisIndexOutOfRange {
                axis,
                index,
                extent,
            } => write!(
                f,
                "index {index} is out of range for axis {axis} of extent {extent}"
            ),
            LayoutError::SqueezeNotOne { axis, extent } => write!(
                f,
                "cannot squeeze axis {axis} of extent {extent}; only axes of extent 1 can be removed"
            ),
            LayoutError::EmptyAxis { axis } => write!(
                f,
                "axis {axis} would have extent 0; tensors with empty axes are not supported"
            ),
            LayoutError::NotStrided { axis } => write!(
                f,
                "axis {axis} is a hierarchical mode that is not one stride; this operation needs a strided axis"
            ),
            LayoutError::Broadcast { a, b, to: false } => write!(
                f,
                "operands could not be broadcast together with shapes {a} {b}"
            ),
            LayoutError::Broadcast { a, b, to: true } => {
                write!(f, "cannot broadcast a tensor of shape {a} to shape {b}")
            }
            LayoutError::ShapeMismatch { a, b } => {
                write!(f, "shapes {a} and {b} differ")
            }
            LayoutError::ReshapeSize { from, to } => write!(
                f,
                "cannot reshape a tensor of shape {from} ({} elements) into shape {to}",
                from.product()
            ),
            LayoutError::ReshapeNeedsCopy {
                to,
                axis,
                stride,
                needed,
            } => write!(
                f,
                "cannot reshape into shape {to} without a copy: old axis {axis} has stride {stride} but a view needs {needed} to merge it with old axis {}; use reshape_copy",
                axis + 1
            ),
            LayoutError::Composition {
                rule,
                a_mode,
                a_extent,
                b_leaf,
                b_shape,
                b_stride,
                x,
            } => match rule {
                CompositionRule::StrideDivisibility => write!(
                    f,
                    "composition is not admissible (stride divisibility): leaf {b_leaf} of B, \
                     {b_shape}:{b_stride}, steps through mode {a_mode} of coalesced A (extent \
                     {a_extent}) with stride {x}; {x} and {a_extent} do not divide one another and \
                     the steps cross the end of the mode"
                ),
                CompositionRule::ShapeDivisibility => write!(
                    f,
                    "composition is not admissible (shape divisibility): leaf {b_leaf} of B, \
                     {b_shape}:{b_stride}, takes {x} steps in mode {a_mode} of coalesced A (extent \
                     {a_extent}) but its remaining extent is not a multiple of {x}"
                ),
                CompositionRule::Straddle => write!(
                    f,
                    "composition is not admissible (modes of B straddle a mode of A): up to leaf \
                     {b_leaf} of B ({b_shape}:{b_stride}) the leaves of B together reach coordinate \
                     {x} of mode {a_mode} of coalesced A, whose extent is {a_extent}, so A(B(c)) \
                     would carry into the next mode"
                ),
                CompositionRule::NegativeStride => write!(
                    f,
                    "composition is not admissible (negative stride): leaf {b_leaf} of B, \
                     {b_shape}:{b_stride}, has a negative stride but coalesced A has {x} modes \
                     (only a one-mode A is defined on negative indices)"
                ),
            },
            LayoutError::Parse { at, expected } => {
                write!(f, "parse error at byte {at}: expected {expected}")
            }
            LayoutError::InvalidSwizzle { b, m, s, rule } => {
                write!(f, "invalid swizzle Sw<{b},{m},{s}>: {rule}")
            }
            LayoutError::NotAffine { b, m, s } => write!(
                f,
                "a layout swizzled by Sw<{b},{m},{s}> is not affine: it has no shape:stride form"
            ),
            LayoutError::TooLargeToScan { what, size, cap } => write!(
                f,
                "cannot decide the {what} of a non-affine layout of {size} elements: a scan visits at most {cap}"
            ),
        }
    }
}

/// The condition of the composition admissibility rule that failed (see `crate::algebra`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CompositionRule {
    /// A leaf `s:d` of `B` walks a mode of extent `e` of coalesced `A` with remaining stride `r`
    /// such that neither `r | e` nor `e | r`, and its `s` steps do not fit inside the mode
    /// (`(s-1)·r ≥ e`). `x` is `r`.
    StrideDivisibility,
    /// A leaf of `B` fills a mode of `A` in `x = e / r` steps but its remaining extent is not a
    /// multiple of `x`.
    ShapeDivisibility,
    /// Several leaves of `B` use the same mode of `A` and their largest coordinates sum past its
    /// extent (`x` is the sum), so `A(Σ bᵢ) ≠ Σ A(bᵢ)`: cutlass#2955.
    Straddle,
    /// A leaf of `B` has a negative stride and `A` has more than one mode (`x` is that count).
    NegativeStride,
}

impl CompositionRule {
    /// The rule's name, as printed in messages.
    pub const fn name(self) -> &'static str {
        match self {
            CompositionRule::StrideDivisibility => "stride divisibility",
            CompositionRule::ShapeDivisibility => "shape divisibility",
            CompositionRule::Straddle => "modes of B straddle a mode of A",
            CompositionRule::NegativeStride => "negative stride in B",
        }
    }
}

impl LayoutError {
    /// A short constant description of the error kind, without numbers: used for the messages
    /// of compile-time (`const`) failures, where numbers cannot be formatted.
    pub const fn rule(&self) -> &'static str {
        match self {
            LayoutError::TooManyLeaves { .. } => "too many leaves for a run-time layout",
            LayoutError::TooComplex { .. } => "nesting too deep for a run-time layout",
            LayoutError::NotCongruent { .. } => "shape and stride are not congruent",
            LayoutError::NonPositiveExtent { .. } => "a result would have an extent <= 0",
            LayoutError::Overflow { .. } => "a result overflows i64",
            LayoutError::ModeOutOfRange { .. } => "a mode index is past the rank",
            LayoutError::CoordinateMismatch { .. } => "a coordinate does not fit the shape",
            LayoutError::CoordinateOutOfRange { .. } => "a coordinate is out of range",
            LayoutError::IndexOutOfRange { .. } => "an index is out of range",
            LayoutError::NotInjective { .. } => "the layout is not injective",
            LayoutError::Inadmissible { rule, .. } => rule,
            LayoutError::Precondition { what, .. } => what,
            LayoutError::Composition { rule, .. } => match rule {
                CompositionRule::StrideDivisibility => {
                    "composition is not admissible: stride divisibility"
                }
                CompositionRule::ShapeDivisibility => {
                    "composition is not admissible: shape divisibility"
                }
                CompositionRule::Straddle => {
                    "composition is not admissible: modes of B straddle a mode of A"
                }
                CompositionRule::NegativeStride => {
                    "composition is not admissible: negative stride in B"
                }
            },
            LayoutError::Parse { .. } => "parse error",
            LayoutError::OutOfBuffer { .. } => "the layout reaches outside the buffer",
            LayoutError::AxisOutOfRange { .. } => "an axis is out of range",
            LayoutError::RepeatedAxis { .. } => "an axis is named twice",
            LayoutError::AxisIndexOutOfRange { .. } => "an index is out of range for its axis",
            LayoutError::SqueezeNotOne { .. } => "only axes of extent 1 can be squeezed",
            LayoutError::EmptyAxis { .. } => "an axis would have extent 0",
            LayoutError::NotStrided { .. } => "an axis is not one stride",
            LayoutError::Broadcast { .. } => "shapes cannot be broadcast together",
            LayoutError::ShapeMismatch { .. } => "shapes differ",
            LayoutError::ReshapeSize { .. } => "reshape changes the number of elements",
            LayoutError::ReshapeNeedsCopy { .. } => "reshape needs a copy",
            LayoutError::InvalidSwizzle { rule, .. } => rule,
            LayoutError::NotAffine { .. } => "a swizzled layout has no shape:stride form",
            LayoutError::TooLargeToScan { .. } => "a non-affine layout is too large to scan",
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LayoutError {}
