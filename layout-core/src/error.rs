//! The one error type of the crate.
//!
//! Every fallible operation on run-time layouts returns [`LayoutError`]. It is a plain `Copy` enum
//! so that `const fn` code (the same code the macro and static layouts use) can build and return
//! it; its `Display` names the rule that was broken and the numbers involved.

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
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LayoutError {}
