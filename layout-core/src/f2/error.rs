//! The error of F2-linear and mixed layouts.

use super::DimName;
use crate::LayoutError;
use core::fmt;

/// Which side of an F2 layout a dimension belongs to.
///
/// ```
/// use layout::f2::Side;
/// assert_eq!(Side::Input.to_string(), "input");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Side {
    /// The domain: the dimensions the bases are given for.
    Input,
    /// The codomain: the dimensions the bases map into.
    Output,
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::Input => "input",
            Side::Output => "output",
        })
    }
}

/// Why an F2-linear or mixed layout operation was refused. Messages name the dimensions and
/// numbers involved.
///
/// ```
/// use layout::f2::F2Layout;
/// let e = "{x:[1,2]} -> {y:3}".parse::<F2Layout>().unwrap_err();
/// assert_eq!(e.to_string(), "output dimension `y` has size 3, which is not a power of two");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum F2Error {
    /// A dimension name is empty, too long, or has a character other than `[A-Za-z0-9_]`.
    BadName {
        /// The first bytes of the name (at most [`super::MAX_NAME_LEN`]).
        name: DimName,
        /// Its length in bytes.
        len: usize,
    },
    /// More dimensions than [`super::MAX_F2_DIMS`] on one side.
    TooManyDims {
        /// Input or output.
        side: Side,
        /// How many there would be.
        count: usize,
    },
    /// More bits than [`super::MAX_F2_BITS`] on one side.
    TooManyBits {
        /// Input or output.
        side: Side,
        /// How many there would be.
        bits: usize,
    },
    /// The same dimension name twice on one side.
    DuplicateDim {
        /// Input or output.
        side: Side,
        /// The name.
        name: DimName,
    },
    /// A dimension the operation needs is not there.
    UnknownDim {
        /// Input or output (of the layout that lacks it).
        side: Side,
        /// The name.
        name: DimName,
    },
    /// A size that must be a power of two is not.
    NotPowerOfTwo {
        /// Input or output.
        side: Side,
        /// The dimension.
        name: DimName,
        /// The size given.
        size: u64,
    },
    /// A basis has a coordinate past the size of its output dimension.
    BasisOutOfRange {
        /// The input dimension of the basis.
        input: DimName,
        /// Which power of two of that dimension (`2^bit`).
        bit: usize,
        /// The output dimension.
        output: DimName,
        /// The coordinate given.
        value: u64,
        /// The size of the output dimension.
        size: u64,
    },
    /// A basis has the wrong number of coordinates.
    BasisArity {
        /// The input dimension of the basis.
        input: DimName,
        /// Which power of two.
        bit: usize,
        /// The number of output dimensions.
        expected: usize,
        /// The number of coordinates given.
        got: usize,
    },
    /// A coordinate past the size of its input dimension.
    CoordOutOfRange {
        /// The dimension (an input dimension of the layout).
        name: DimName,
        /// The coordinate.
        value: u64,
        /// The size of the dimension.
        size: u64,
    },
    /// The wrong number of coordinates.
    CoordArity {
        /// The number of input dimensions.
        expected: usize,
        /// The number given.
        got: usize,
    },
    /// In a composition `outer ∘ inner`, an output dimension of `inner` is larger than the
    /// input dimension of `outer` with the same name.
    DimTooLarge {
        /// The dimension.
        name: DimName,
        /// Its size as an output of `inner`.
        inner: u64,
        /// Its size as an input of `outer`.
        outer: u64,
    },
    /// Inversion needs a bijection: as many input bits as output bits, and full rank.
    NotInvertible {
        /// Input bits.
        in_bits: usize,
        /// Output bits.
        out_bits: usize,
        /// The rank of the map over GF(2).
        rank: usize,
    },
    /// A left inverse (or a complement) needs an injective map: rank equal to the input bits.
    NotInjective {
        /// Input bits.
        in_bits: usize,
        /// The rank.
        rank: usize,
    },
    /// A right inverse needs a surjective map: rank equal to the output bits.
    NotSurjective {
        /// Output bits.
        out_bits: usize,
        /// The rank.
        rank: usize,
    },
    /// A shape:stride layout is not F2-linear: two of its bit images overlap, so adding them
    /// carries (XOR and `+` differ).
    NotLinear {
        /// The image of one power of two of the index.
        a: i64,
        /// The image of another, sharing a bit with `a`.
        b: i64,
    },
    /// A shape:stride mode that must be a power of two is not.
    ModeNotPowerOfTwo {
        /// The leaf (in the flattened shape).
        leaf: usize,
        /// Its extent.
        extent: i64,
    },
    /// A stride that must be non-negative for an F2 map is negative.
    NegativeStride {
        /// The leaf.
        leaf: usize,
        /// Its stride.
        stride: i64,
    },
    /// Text that does not parse.
    Parse {
        /// Byte position of the problem.
        at: usize,
        /// What was expected.
        expected: &'static str,
    },
    /// The operation needs a power-of-two boundary between the two operands.
    Boundary {
        /// What was being done.
        what: &'static str,
        /// The size that is not a power of two, or does not match.
        size: i64,
        /// The size it had to match (0: "a power of two").
        needed: i64,
    },
    /// The operation is not defined for these operands (and is not approximated).
    Undefined {
        /// Which operation, and why.
        what: &'static str,
    },
    /// A layout with F2 strides has a leaf whose integer stride is not zero. An F2 stride adds
    /// by XOR and an integer stride by carrying `+`; PyCuTe (2026) refuses to add the two, so
    /// the layout is not one map and the operation is refused.
    MixedStrides {
        /// The leaf (in the flattened shape) with the integer stride.
        leaf: usize,
        /// Its stride.
        stride: i64,
    },
    /// At this index an integer stride contributes beside F2 strides: `F2 + integer` is not
    /// defined (PyCuTe raises), so there is no offset.
    MixedSum {
        /// The index.
        index: i64,
        /// What the integer strides contribute there.
        integer: i64,
    },
    /// An F2 value cannot be split into the coordinates of a shape whose extent multiplies the
    /// prefix product with a carry (carry-less and integer prefix products differ).
    CarryingShape {
        /// The extent.
        extent: i64,
        /// The prefix product it multiplies.
        prefix: i64,
    },
    /// An error of the shape:stride part.
    Layout(LayoutError),
}

impl From<LayoutError> for F2Error {
    fn from(e: LayoutError) -> F2Error {
        F2Error::Layout(e)
    }
}

impl fmt::Display for F2Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            F2Error::BadName { name, len } => write!(
                f,
                "dimension name `{name}` ({len} bytes) must be 1 to {} of [A-Za-z0-9_]",
                super::MAX_NAME_LEN
            ),
            F2Error::TooManyDims { side, count } => write!(
                f,
                "{count} {side} dimensions; at most {} are allowed",
                super::MAX_F2_DIMS
            ),
            F2Error::TooManyBits { side, bits } => write!(
                f,
                "{bits} {side} bits; at most {} are allowed",
                super::MAX_F2_BITS
            ),
            F2Error::DuplicateDim { side, name } => {
                write!(f, "{side} dimension `{name}` is given twice")
            }
            F2Error::UnknownDim { side, name } => {
                write!(f, "there is no {side} dimension `{name}`")
            }
            F2Error::NotPowerOfTwo { side, name, size } => write!(
                f,
                "{side} dimension `{name}` has size {size}, which is not a power of two"
            ),
            F2Error::BasisOutOfRange {
                input,
                bit,
                output,
                value,
                size,
            } => write!(
                f,
                "basis {input}={} has coordinate {value} in output dimension `{output}` of size {size}",
                1u64 << bit
            ),
            F2Error::BasisArity {
                input,
                bit,
                expected,
                got,
            } => write!(
                f,
                "basis {input}={} has {got} coordinates; there are {expected} output dimensions",
                1u64 << bit
            ),
            F2Error::CoordOutOfRange { name, value, size } => write!(
                f,
                "coordinate {value} is outside input dimension `{name}` of size {size}"
            ),
            F2Error::CoordArity { expected, got } => write!(
                f,
                "{got} coordinates given; the layout has {expected} input dimensions"
            ),
            F2Error::DimTooLarge { name, inner, outer } => write!(
                f,
                "cannot compose: the inner layout's output `{name}` has size {inner}, the outer layout's input `{name}` only {outer}"
            ),
            F2Error::NotInvertible {
                in_bits,
                out_bits,
                rank,
            } => write!(
                f,
                "not invertible: {in_bits} input bits, {out_bits} output bits, rank {rank} over GF(2)"
            ),
            F2Error::NotInjective { in_bits, rank } => write!(
                f,
                "not injective: rank {rank} over GF(2) is less than the {in_bits} input bits"
            ),
            F2Error::NotSurjective { out_bits, rank } => write!(
                f,
                "not surjective: rank {rank} over GF(2) is less than the {out_bits} output bits"
            ),
            F2Error::NotLinear { a, b } => write!(
                f,
                "not F2-linear: the images {a} and {b} of two index bits share bits, so {a} + {b} != {a} xor {b}"
            ),
            F2Error::ModeNotPowerOfTwo { leaf, extent } => write!(
                f,
                "shape leaf {leaf} has extent {extent}, which is not a power of two"
            ),
            F2Error::NegativeStride { leaf, stride } => write!(
                f,
                "stride leaf {leaf} is {stride}; an F2 map needs non-negative strides"
            ),
            F2Error::Parse { at, expected } => {
                write!(f, "expected {expected} at byte {at}")
            }
            F2Error::Boundary { what, size, needed } => {
                if needed == 0 {
                    write!(f, "{what}: size {size} is not a power of two")
                } else {
                    write!(f, "{what}: size {size} does not match size {needed}")
                }
            }
            F2Error::Undefined { what } => write!(f, "{what}"),
            F2Error::MixedStrides { leaf, stride } => write!(
                f,
                "stride leaf {leaf} is the integer {stride} beside F2 strides: F2 + integer is not defined (F2 adds by XOR)"
            ),
            F2Error::MixedSum { index, integer } => write!(
                f,
                "index {index}: the integer strides contribute {integer} beside F2 strides, and F2 + integer is not defined"
            ),
            F2Error::CarryingShape { extent, prefix } => write!(
                f,
                "extent {extent} times prefix product {prefix} carries, so an F2 value has no coordinates in this shape"
            ),
            F2Error::Layout(e) => write!(f, "{e}"),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for F2Error {}
