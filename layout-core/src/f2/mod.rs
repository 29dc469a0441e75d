//! F2-linear layouts (Triton's *Linear Layouts*) and shape:stride layouts with F2 strides.
//!
//! An [`F2Layout`] is a linear map over GF(2), the field of two elements, from named input
//! dimensions (`reg`, `lane`, `warp`, `offset`, any name) to named output dimensions. Every
//! dimension has a power-of-two size, and the map is given by its **bases**: the image of each
//! power of two of each input dimension. A coordinate is mapped by writing each input coordinate
//! in binary and XOR-ing the bases of the bits that are set:
//!
//! ```text
//! L(x) = ⊕_{dims d} ⊕_{bits i of x_d} basis(d, 2^i)
//! ```
//!
//! Swizzles are ordinary F2 layouts ([`F2Layout::from_swizzle`]), so they can be inverted
//! ([`F2Layout::invert`]) and composed ([`F2Layout::compose`]) like any other; injectivity and
//! surjectivity are rank tests; the vector width of a layout is its largest contiguous
//! sub-layout ([`F2Layout::contiguous_width`]).
//!
//! ```
//! use layout::f2::F2Layout;
//! use layout::Swizzle;
//! let sw = Swizzle::new(3, 3, 3).unwrap();
//! let f = F2Layout::from_swizzle(sw, 9).unwrap();
//! assert_eq!(f.to_string(), "{offset:[1,2,4,8,16,32,72,144,288]} -> {offset:512}");
//! for x in 0..512 {
//!     assert_eq!(f.apply_flat(x).unwrap() as i64, sw.apply(x as i64));
//! }
//! // a swizzle is its own inverse, and F2 composition finds that out
//! let inv = f.invert().unwrap();
//! assert_eq!(inv, f);
//! assert!(f.compose(&inv).unwrap().is_identity());
//! // runs of 2^M = 8 offsets stay contiguous: bits 6..9 are XORed into bits 3..6 only
//! assert_eq!(f.contiguous_width("offset").unwrap(), 8);
//! ```
//!
//! The text form is `{in:[bases],…} -> {out:size,…}`: each input dimension lists its bases
//! (its size is 2 to the number of bases), one integer per basis when there is one output
//! dimension, a tuple of coordinates otherwise:
//!
//! ```
//! use layout::f2::F2Layout;
//! let l: F2Layout = "{reg:[(0,1)],lane:[(1,0),(2,0),(0,2)]} -> {row:4,col:4}".parse().unwrap();
//! // reg 1 ↦ (0,1); lane 5 = 1 + 4 ↦ (1,0) ^ (0,2); together (1,3)
//! assert_eq!(l.apply(&[1, 5]).unwrap().as_slice(), &[1, 3]);
//! ```
//!
//! [`MixedLayout`] carries CuTe layouts whose strides may be PyCuTe's F2 strides (`(8,8):(F1,F9)`,
//! `+` is XOR and `*` carry-less), with PyCuTe's algebra on them, and a
//! shape:stride layout composed after an F2 map — a padded layout swizzled on its power-of-two
//! part, which neither CuTe nor Linear Layouts can express alone.

mod error;
mod linalg;
mod mixed;
#[cfg(feature = "alloc")]
mod picture;
mod text;

pub use error::{F2Error, Side};
pub use mixed::{MixedLayout, MixedStride};

/// A text cursor for the parsers of layers above (the identity tensors' E-strides).
pub(crate) fn text_cursor(s: &str) -> text::Cursor<'_> {
    text::Cursor::new(s)
}
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use picture::to_svg;

use crate::{DynLayout, Swizzle};
use core::fmt;
use linalg::Echelon;

/// GF(2) elimination for the layers above (the swizzle search).
pub(crate) use linalg::Echelon as linalg_echelon;

/// The most input (or output) dimensions of an [`F2Layout`].
pub const MAX_F2_DIMS: usize = 8;

/// The most input (or output) bits of an [`F2Layout`]: sizes up to `2^62`, so that every
/// coordinate fits in an `i64` too.
pub const MAX_F2_BITS: usize = 62;

/// The longest dimension name, in bytes.
pub const MAX_NAME_LEN: usize = 15;

/// The name of a dimension: 1 to [`MAX_NAME_LEN`] bytes of `[A-Za-z0-9_]`, stored inline (no
/// allocation).
///
/// ```
/// use layout::f2::DimName;
/// let n = DimName::new("lane").unwrap();
/// assert_eq!(n.as_str(), "lane");
/// assert!(DimName::new("not a name").is_err());
/// assert!(DimName::new("").is_err());
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DimName {
    len: u8,
    bytes: [u8; MAX_NAME_LEN],
}

impl DimName {
    /// A checked name.
    ///
    /// # Errors
    /// [`F2Error::BadName`] for an empty or too long name, or one with a byte outside
    /// `[A-Za-z0-9_]`.
    pub fn new(name: &str) -> Result<DimName, F2Error> {
        let ok = !name.is_empty()
            && name.len() <= MAX_NAME_LEN
            && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
        let mut bytes = [0u8; MAX_NAME_LEN];
        // keep a printable prefix for the error: ASCII only, at most MAX_NAME_LEN bytes
        let mut len = 0;
        for b in name.bytes().take(MAX_NAME_LEN) {
            bytes[len] = if b.is_ascii_graphic() || b == b' ' {
                b
            } else {
                b'?'
            };
            len += 1;
        }
        let n = DimName {
            len: len as u8,
            bytes,
        };
        if ok {
            Ok(n)
        } else {
            Err(F2Error::BadName {
                name: n,
                len: name.len(),
            })
        }
    }

    /// The name as text.
    ///
    /// ```
    /// use layout::f2::DimName;
    /// assert_eq!(DimName::new("warp").unwrap().as_str(), "warp");
    /// ```
    pub fn as_str(&self) -> &str {
        // the bytes are ASCII by construction
        core::str::from_utf8(&self.bytes[..self.len as usize]).unwrap_or("?")
    }
}

impl fmt::Display for DimName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for DimName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// One side's dimensions: names and log2 sizes, in order (dimension 0 is the lowest bits of the
/// flat form).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Dims {
    n: usize,
    names: [DimName; MAX_F2_DIMS],
    bits: [u8; MAX_F2_DIMS],
}

const NO_NAME: DimName = DimName {
    len: 0,
    bytes: [0; MAX_NAME_LEN],
};

impl Dims {
    const EMPTY: Dims = Dims {
        n: 0,
        names: [NO_NAME; MAX_F2_DIMS],
        bits: [0; MAX_F2_DIMS],
    };

    fn total(&self) -> usize {
        self.bits[..self.n].iter().map(|&b| b as usize).sum()
    }

    fn find(&self, name: &DimName) -> Option<usize> {
        self.names[..self.n].iter().position(|n| n == name)
    }

    /// Bit offset of dimension `i` in the flat form.
    fn start(&self, i: usize) -> usize {
        self.bits[..i].iter().map(|&b| b as usize).sum()
    }

    fn push(&mut self, side: Side, name: DimName, bits: usize) -> Result<(), F2Error> {
        if self.find(&name).is_some() {
            return Err(F2Error::DuplicateDim { side, name });
        }
        if self.n == MAX_F2_DIMS {
            return Err(F2Error::TooManyDims {
                side,
                count: self.n + 1,
            });
        }
        if self.total() + bits > MAX_F2_BITS {
            return Err(F2Error::TooManyBits {
                side,
                bits: self.total() + bits,
            });
        }
        self.names[self.n] = name;
        self.bits[self.n] = bits as u8;
        self.n += 1;
        Ok(())
    }
}

/// A layout given by bases over GF(2). See the [module documentation](self).
///
/// Invariants: every size is a power of two, the input and output bits are at most
/// [`MAX_F2_BITS`] each, every basis lies inside the output, and unused basis slots are zero (so
/// the derived equality is equality of maps with the same dimensions).
///
/// ```
/// use layout::f2::F2Layout;
/// // 4 registers × 8 lanes over a 32-element row, registers contiguous
/// let l = F2Layout::output(&[("offset", 32)]).unwrap()
///     .with_input("reg", &[1, 2]).unwrap()
///     .with_input("lane", &[4, 8, 16]).unwrap();
/// assert_eq!(l.apply(&[3, 5]).unwrap().as_slice(), &[3 + 4 * 5]);
/// assert!(l.is_invertible());
/// assert_eq!(l.contiguous_width("reg").unwrap(), 4);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct F2Layout {
    ins: Dims,
    outs: Dims,
    /// Flat output vector of each flat input bit.
    bases: [u64; MAX_F2_BITS],
}

/// The coordinates an [`F2Layout`] maps to, one per output dimension (no allocation).
///
/// ```
/// use layout::f2::F2Layout;
/// let l: F2Layout = "{x:[(1,0),(0,1)]} -> {a:2,b:2}".parse().unwrap();
/// let y = l.apply(&[2]).unwrap();
/// assert_eq!(y.as_slice(), &[0, 1]);
/// assert_eq!(y.len(), 2);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct F2Coord {
    n: usize,
    v: [u64; MAX_F2_DIMS],
}

impl F2Coord {
    /// The coordinates.
    pub fn as_slice(&self) -> &[u64] {
        &self.v[..self.n]
    }

    /// How many there are.
    #[allow(clippy::len_without_is_empty)]
    pub fn len(&self) -> usize {
        self.n
    }
}

fn log2_exact(side: Side, name: DimName, size: u64) -> Result<usize, F2Error> {
    if size == 0 || !size.is_power_of_two() {
        return Err(F2Error::NotPowerOfTwo { side, name, size });
    }
    Ok(size.trailing_zeros() as usize)
}

fn mask(bits: usize) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

impl F2Layout {
    /// A layout with the given output dimensions `(name, size)` and no input dimensions yet (it
    /// maps its single point to zero); add inputs with [`with_input`](Self::with_input).
    ///
    /// # Errors
    /// A bad or repeated name, a size that is not a power of two, or too many dimensions or bits.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l = F2Layout::output(&[("row", 8), ("col", 4)]).unwrap();
    /// assert_eq!(l.out_bits(), 5);
    /// assert!(F2Layout::output(&[("row", 6)]).is_err());
    /// ```
    pub fn output(outs: &[(&str, u64)]) -> Result<F2Layout, F2Error> {
        let mut l = F2Layout {
            ins: Dims::EMPTY,
            outs: Dims::EMPTY,
            bases: [0; MAX_F2_BITS],
        };
        for &(name, size) in outs {
            let name = DimName::new(name)?;
            let bits = log2_exact(Side::Output, name, size)?;
            l.outs.push(Side::Output, name, bits)?;
        }
        Ok(l)
    }

    /// Adds an input dimension whose `i`-th basis (the image of `2^i`) is `bases[i]`, written in
    /// the flat form of the output: output dimension 0 in the lowest bits, the next above it.
    /// With one output dimension that is just its coordinate. The new dimension has size
    /// `2^bases.len()`.
    ///
    /// # Errors
    /// A bad or repeated name, too many dimensions or bits, or a basis outside the output.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l = F2Layout::output(&[("offset", 8)]).unwrap().with_input("i", &[4, 2, 1]).unwrap();
    /// assert_eq!(l.apply_flat(1).unwrap(), 4); // bit reversal
    /// assert!(F2Layout::output(&[("offset", 8)]).unwrap().with_input("i", &[8]).is_err());
    /// ```
    pub fn with_input(mut self, name: &str, bases: &[u64]) -> Result<F2Layout, F2Error> {
        let name = DimName::new(name)?;
        let start = self.ins.total();
        self.ins.push(Side::Input, name, bases.len())?;
        for (i, &b) in bases.iter().enumerate() {
            self.check_flat_basis(name, i, b)?;
            self.bases[start + i] = b;
        }
        Ok(self)
    }

    /// Adds an input dimension whose bases are given as coordinates, one per output dimension.
    ///
    /// # Errors
    /// As [`with_input`](Self::with_input), and [`F2Error::BasisArity`] for a basis with the
    /// wrong number of coordinates.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l = F2Layout::output(&[("row", 2), ("col", 4)]).unwrap()
    ///     .with_input_coords("lane", &[&[0, 1], &[0, 2], &[1, 0]]).unwrap();
    /// assert_eq!(l.apply(&[5]).unwrap().as_slice(), &[1, 1]);
    /// ```
    pub fn with_input_coords(self, name: &str, bases: &[&[u64]]) -> Result<F2Layout, F2Error> {
        let dname = DimName::new(name)?;
        let mut flat = [0u64; MAX_F2_BITS];
        if bases.len() > MAX_F2_BITS {
            return Err(F2Error::TooManyBits {
                side: Side::Input,
                bits: self.ins.total() + bases.len(),
            });
        }
        for (i, b) in bases.iter().enumerate() {
            flat[i] = self.pack_out(dname, i, b)?;
        }
        self.with_input(name, &flat[..bases.len()])
    }

    fn pack_out(&self, input: DimName, bit: usize, coords: &[u64]) -> Result<u64, F2Error> {
        if coords.len() != self.outs.n {
            return Err(F2Error::BasisArity {
                input,
                bit,
                expected: self.outs.n,
                got: coords.len(),
            });
        }
        let mut flat = 0u64;
        for (j, &c) in coords.iter().enumerate() {
            let bits = self.outs.bits[j] as usize;
            if c > mask(bits) {
                return Err(F2Error::BasisOutOfRange {
                    input,
                    bit,
                    output: self.outs.names[j],
                    value: c,
                    size: 1u64 << bits,
                });
            }
            flat |= c << self.outs.start(j);
        }
        Ok(flat)
    }

    fn check_flat_basis(&self, input: DimName, bit: usize, b: u64) -> Result<(), F2Error> {
        if b <= mask(self.outs.total()) {
            return Ok(());
        }
        // name the first output dimension it leaves (or the last one, for bits above all)
        let mut j = 0;
        while j + 1 < self.outs.n && (b >> self.outs.start(j + 1)) != 0 {
            j += 1;
        }
        let (output, size) = if self.outs.n == 0 {
            (NO_NAME, 1)
        } else {
            (self.outs.names[j], 1u64 << self.outs.bits[j])
        };
        Err(F2Error::BasisOutOfRange {
            input,
            bit,
            output,
            value: if self.outs.n == 0 {
                b
            } else {
                b >> self.outs.start(j)
            },
            size,
        })
    }

    /// The identity on one dimension of `2^bits` elements, the same name in and out.
    ///
    /// # Errors
    /// A bad name or more than [`MAX_F2_BITS`] bits.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let id = F2Layout::identity("offset", 4).unwrap();
    /// assert!(id.is_identity());
    /// assert_eq!(id.to_string(), "{offset:[1,2,4,8]} -> {offset:16}");
    /// ```
    pub fn identity(name: &str, bits: usize) -> Result<F2Layout, F2Error> {
        if bits > MAX_F2_BITS {
            return Err(F2Error::TooManyBits {
                side: Side::Output,
                bits,
            });
        }
        let mut l = F2Layout::output(&[(name, 1u64 << bits)])?;
        let dname = l.outs.names[0];
        l.ins.push(Side::Input, dname, bits)?;
        for i in 0..bits {
            l.bases[i] = 1 << i;
        }
        Ok(l)
    }

    /// The swizzle `sw` as an F2 layout on offsets `0..2^bits` (input and output dimension
    /// `offset`): the `i`-th basis is `sw.apply(2^i)`. A swizzle is F2-linear
    /// (`f(x ^ y) = f(x) ^ f(y)`), so the two agree on every offset of the domain.
    ///
    /// # Errors
    /// [`F2Error::Boundary`] when `bits` is less than `B + M + |S|` (the swizzle would move bits
    /// out of the domain), or more than [`MAX_F2_BITS`].
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// use layout::Swizzle;
    /// let sw = Swizzle::new(2, 0, 2).unwrap();
    /// let f = F2Layout::from_swizzle(sw, 4).unwrap();
    /// assert_eq!(f.to_string(), "{offset:[1,2,5,10]} -> {offset:16}");
    /// assert!(F2Layout::from_swizzle(sw, 3).is_err());
    /// ```
    pub fn from_swizzle(sw: Swizzle, bits: usize) -> Result<F2Layout, F2Error> {
        let need = (sw.bits() + sw.base() + sw.shift().abs()) as usize;
        let need = if sw.is_identity() { 0 } else { need };
        if bits < need || bits > MAX_F2_BITS {
            return Err(F2Error::Boundary {
                what: "a swizzle as an F2 layout needs B + M + |S| bits",
                size: bits as i64,
                needed: need as i64,
            });
        }
        let mut l = F2Layout::identity("offset", bits)?;
        for i in 0..bits {
            l.bases[i] = sw.apply(1i64 << i) as u64;
        }
        Ok(l)
    }

    /// A shape:stride layout as an F2 layout, when it is one: every extent a power of two, every
    /// stride non-negative, and the images of the index bits (`2^j · stride` within a mode)
    /// pairwise without common bits, so that sums never carry and `+` is XOR. Input dimension
    /// `index` (the colexicographic index, `size` elements), output dimension `offset` (the
    /// smallest power of two above every offset).
    ///
    /// # Errors
    /// [`F2Error::ModeNotPowerOfTwo`], [`F2Error::NegativeStride`], [`F2Error::NotLinear`]
    /// naming two images that overlap.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// use layout::DynLayout;
    /// let l: DynLayout = "(4,8):(8,1)".parse().unwrap();
    /// let f = F2Layout::from_layout(&l).unwrap();
    /// for i in 0..32 {
    ///     assert_eq!(f.apply_flat(i).unwrap() as i64, l.offset(i as i64));
    /// }
    /// let bad: DynLayout = "(2,2):(1,1)".parse().unwrap(); // 1 + 1 carries
    /// assert_eq!(F2Layout::from_layout(&bad).unwrap_err().to_string(),
    ///     "not F2-linear: the images 1 and 1 of two index bits share bits, so 1 + 1 != 1 xor 1");
    /// ```
    pub fn from_layout(layout: &DynLayout) -> Result<F2Layout, F2Error> {
        let mut images = [0u64; MAX_F2_BITS];
        let n = layout_bit_images(layout, &mut images)?;
        let mut hi = 0u64;
        for &v in &images[..n] {
            hi |= v;
        }
        let out_bits = 64 - hi.leading_zeros() as usize;
        if out_bits > MAX_F2_BITS {
            return Err(F2Error::TooManyBits {
                side: Side::Output,
                bits: out_bits,
            });
        }
        let l = F2Layout::output(&[("offset", 1u64 << out_bits)])?;
        l.with_input("index", &images[..n])
    }

    /// The input dimensions, `(name, size)`.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l = F2Layout::identity("x", 3).unwrap();
    /// assert_eq!(l.inputs().next().map(|(n, s)| (n.as_str().len(), s)), Some((1, 8)));
    /// ```
    pub fn inputs(&self) -> impl Iterator<Item = (DimName, u64)> + '_ {
        (0..self.ins.n).map(|i| (self.ins.names[i], 1u64 << self.ins.bits[i]))
    }

    /// The output dimensions, `(name, size)`.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l = F2Layout::output(&[("row", 4), ("col", 2)]).unwrap();
    /// let outs: Vec<u64> = l.outputs().map(|(_, s)| s).collect();
    /// assert_eq!(outs, [4, 2]);
    /// ```
    pub fn outputs(&self) -> impl Iterator<Item = (DimName, u64)> + '_ {
        (0..self.outs.n).map(|i| (self.outs.names[i], 1u64 << self.outs.bits[i]))
    }

    /// The number of input bits (log2 of the domain size).
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// assert_eq!(F2Layout::identity("x", 5).unwrap().in_bits(), 5);
    /// ```
    pub fn in_bits(&self) -> usize {
        self.ins.total()
    }

    /// The number of output bits (log2 of the codomain size).
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// assert_eq!(F2Layout::output(&[("a", 4), ("b", 8)]).unwrap().out_bits(), 5);
    /// ```
    pub fn out_bits(&self) -> usize {
        self.outs.total()
    }

    /// The bases in flat form: entry `i` is the image of flat input bit `i` (input dimension 0 in
    /// the lowest bits), written as a flat output.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{a:[3],b:[1,2]} -> {o:4}".parse().unwrap();
    /// assert_eq!(l.flat_bases(), &[3, 1, 2]);
    /// ```
    pub fn flat_bases(&self) -> &[u64] {
        &self.bases[..self.in_bits()]
    }

    /// The bases of one input dimension, in flat output form.
    ///
    /// # Errors
    /// [`F2Error::UnknownDim`].
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{a:[3],b:[1,2]} -> {o:4}".parse().unwrap();
    /// assert_eq!(l.bases_of("b").unwrap(), &[1, 2]);
    /// ```
    pub fn bases_of(&self, name: &str) -> Result<&[u64], F2Error> {
        let i = self.in_dim(name)?;
        let s = self.ins.start(i);
        Ok(&self.bases[s..s + self.ins.bits[i] as usize])
    }

    fn in_dim(&self, name: &str) -> Result<usize, F2Error> {
        let n = DimName::new(name)?;
        self.ins.find(&n).ok_or(F2Error::UnknownDim {
            side: Side::Input,
            name: n,
        })
    }

    /// The image of a flat input (input dimension 0 in the lowest bits) as a flat output: the XOR
    /// of the bases of its set bits.
    ///
    /// # Errors
    /// [`F2Error::CoordOutOfRange`] for `x >= 2^in_bits`.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{x:[3,5]} -> {y:8}".parse().unwrap();
    /// assert_eq!(l.apply_flat(3).unwrap(), 3 ^ 5);
    /// assert!(l.apply_flat(4).is_err());
    /// ```
    pub fn apply_flat(&self, x: u64) -> Result<u64, F2Error> {
        let n = self.in_bits();
        if x > mask(n) {
            return Err(F2Error::CoordOutOfRange {
                name: if self.ins.n == 0 {
                    NO_NAME
                } else {
                    self.ins.names[self.ins.n - 1]
                },
                value: x >> self.ins.start(self.ins.n.saturating_sub(1)),
                size: 1u64 << self.ins.bits[self.ins.n.saturating_sub(1)],
            });
        }
        Ok(self.apply_flat_bits(x))
    }

    /// `apply_flat` without the range check: bits of `x` past the input are ignored.
    fn apply_flat_bits(&self, mut x: u64) -> u64 {
        let mut y = 0;
        let mut i = 0;
        while x != 0 && i < MAX_F2_BITS {
            if x & 1 == 1 {
                y ^= self.bases[i];
            }
            x >>= 1;
            i += 1;
        }
        y
    }

    /// The image of a coordinate, one value per input dimension in order.
    ///
    /// # Errors
    /// [`F2Error::CoordArity`], [`F2Error::CoordOutOfRange`].
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{reg:[(0,1)],lane:[(1,0),(2,0)]} -> {row:4,col:2}".parse().unwrap();
    /// assert_eq!(l.apply(&[1, 3]).unwrap().as_slice(), &[3, 1]);
    /// assert!(l.apply(&[2, 0]).is_err());
    /// ```
    pub fn apply(&self, coord: &[u64]) -> Result<F2Coord, F2Error> {
        let x = self.pack_in(coord)?;
        Ok(self.unpack_out(self.apply_flat_bits(x)))
    }

    /// The image of a coordinate given by name; dimensions not named are 0.
    ///
    /// # Errors
    /// [`F2Error::UnknownDim`], [`F2Error::CoordOutOfRange`].
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{reg:[1,2],lane:[4,8]} -> {offset:16}".parse().unwrap();
    /// assert_eq!(l.apply_named(&[("lane", 2)]).unwrap().as_slice(), &[8]);
    /// ```
    pub fn apply_named(&self, coord: &[(&str, u64)]) -> Result<F2Coord, F2Error> {
        let mut c = [0u64; MAX_F2_DIMS];
        for &(name, v) in coord {
            let i = self.in_dim(name)?;
            c[i] = v;
        }
        self.apply(&c[..self.ins.n])
    }

    fn pack_in(&self, coord: &[u64]) -> Result<u64, F2Error> {
        if coord.len() != self.ins.n {
            return Err(F2Error::CoordArity {
                expected: self.ins.n,
                got: coord.len(),
            });
        }
        let mut x = 0u64;
        for (i, &c) in coord.iter().enumerate() {
            let bits = self.ins.bits[i] as usize;
            if c > mask(bits) {
                return Err(F2Error::CoordOutOfRange {
                    name: self.ins.names[i],
                    value: c,
                    size: 1u64 << bits,
                });
            }
            x |= c << self.ins.start(i);
        }
        Ok(x)
    }

    fn unpack_out(&self, y: u64) -> F2Coord {
        let mut out = F2Coord {
            n: self.outs.n,
            v: [0; MAX_F2_DIMS],
        };
        for j in 0..self.outs.n {
            out.v[j] = (y >> self.outs.start(j)) & mask(self.outs.bits[j] as usize);
        }
        out
    }

    fn echelon(&self) -> Echelon {
        let mut e = Echelon::new();
        for (i, &b) in self.flat_bases().iter().enumerate() {
            e.insert(b, 1u64 << i);
        }
        e
    }

    /// The rank of the map over GF(2): the dimension of its image (log2 of the number of distinct
    /// outputs).
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{x:[1,2,3]} -> {y:4}".parse().unwrap();
    /// assert_eq!(l.rank(), 2); // 3 = 1 ^ 2
    /// ```
    pub fn rank(&self) -> usize {
        self.echelon().rank()
    }

    /// Injective: no two inputs share an output (rank = input bits).
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// assert!("{x:[1,4]} -> {y:8}".parse::<layout::f2::F2Layout>().unwrap().is_injective());
    /// assert!(!"{x:[1,0]} -> {y:8}".parse::<layout::f2::F2Layout>().unwrap().is_injective());
    /// ```
    pub fn is_injective(&self) -> bool {
        self.rank() == self.in_bits()
    }

    /// Surjective: every output is hit (rank = output bits).
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// assert!("{x:[1,3,2]} -> {y:4}".parse::<layout::f2::F2Layout>().unwrap().is_surjective());
    /// assert!(!"{x:[1,4]} -> {y:8}".parse::<layout::f2::F2Layout>().unwrap().is_surjective());
    /// ```
    pub fn is_surjective(&self) -> bool {
        self.rank() == self.out_bits()
    }

    /// Injective and surjective.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// assert!(F2Layout::identity("x", 3).unwrap().is_invertible());
    /// ```
    pub fn is_invertible(&self) -> bool {
        let r = self.rank();
        r == self.in_bits() && r == self.out_bits()
    }

    /// The identity map: the same dimensions in and out (names and sizes, in order) and every
    /// flat basis its own power of two.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// assert!(F2Layout::identity("x", 3).unwrap().is_identity());
    /// assert!(!"{x:[2,1]} -> {x:4}".parse::<F2Layout>().unwrap().is_identity());
    /// ```
    pub fn is_identity(&self) -> bool {
        self.ins == self.outs
            && self
                .flat_bases()
                .iter()
                .enumerate()
                .all(|(i, &b)| b == 1u64 << i)
    }

    /// Composition `self ∘ inner`: `R(x) = self(inner(x))`. The output dimensions of `inner` are
    /// matched by name to the input dimensions of `self`; each must exist there with at least
    /// the same size (an input dimension of `self` that `inner` does not produce is 0). The
    /// result has `inner`'s inputs and `self`'s outputs.
    ///
    /// # Errors
    /// [`F2Error::UnknownDim`] for an output of `inner` that `self` lacks;
    /// [`F2Error::DimTooLarge`] when it is larger than `self`'s.
    ///
    /// # Postconditions
    /// `R.apply_flat(x) == self.apply(inner.apply(x))` for every input `x` of `inner`.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let a: F2Layout = "{x:[2,1]} -> {y:4}".parse().unwrap();   // swap two bits
    /// let b: F2Layout = "{i:[1,3]} -> {x:4}".parse().unwrap();
    /// let r = a.compose(&b).unwrap();
    /// for i in 0..4 {
    ///     let mid = b.apply_flat(i).unwrap();
    ///     assert_eq!(r.apply_flat(i).unwrap(), a.apply_flat(mid).unwrap());
    /// }
    /// assert!(b.compose(&a).is_err()); // a's output `y` is no input of b
    /// ```
    pub fn compose(&self, inner: &F2Layout) -> Result<F2Layout, F2Error> {
        // where each of inner's output dimensions lands in self's flat input
        let mut place = [0usize; MAX_F2_DIMS];
        for (j, slot) in place.iter_mut().enumerate().take(inner.outs.n) {
            let name = inner.outs.names[j];
            let k = self.ins.find(&name).ok_or(F2Error::UnknownDim {
                side: Side::Input,
                name,
            })?;
            if inner.outs.bits[j] > self.ins.bits[k] {
                return Err(F2Error::DimTooLarge {
                    name,
                    inner: 1u64 << inner.outs.bits[j],
                    outer: 1u64 << self.ins.bits[k],
                });
            }
            *slot = self.ins.start(k);
        }
        let mut r = F2Layout {
            ins: inner.ins,
            outs: self.outs,
            bases: [0; MAX_F2_BITS],
        };
        for (i, &b) in inner.flat_bases().iter().enumerate() {
            let mut x = 0u64;
            for (j, &p) in place.iter().enumerate().take(inner.outs.n) {
                let part = (b >> inner.outs.start(j)) & mask(inner.outs.bits[j] as usize);
                x |= part << p;
            }
            r.bases[i] = self.apply_flat_bits(x);
        }
        Ok(r)
    }

    /// The inverse of a bijection, by Gaussian elimination over GF(2): inputs and outputs swap.
    ///
    /// # Errors
    /// [`F2Error::NotInvertible`] unless input bits = output bits = rank.
    ///
    /// # Postconditions
    /// `R.apply_flat(self.apply_flat(x)) == x` for every input `x`, and the other way round.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{x:[1,3,7]} -> {y:8}".parse().unwrap();
    /// let inv = l.invert().unwrap();
    /// for x in 0..8 {
    ///     assert_eq!(inv.apply_flat(l.apply_flat(x).unwrap()).unwrap(), x);
    /// }
    /// assert!("{x:[1,1]} -> {y:4}".parse::<F2Layout>().unwrap().invert().is_err());
    /// ```
    pub fn invert(&self) -> Result<F2Layout, F2Error> {
        let rank = self.rank();
        if rank != self.in_bits() || rank != self.out_bits() {
            return Err(F2Error::NotInvertible {
                in_bits: self.in_bits(),
                out_bits: self.out_bits(),
                rank,
            });
        }
        self.right_inverse()
    }

    /// A right inverse of a surjective map: `R` with `self(R(y)) == y` for every output `y`.
    /// Where an output has several preimages, `R` picks the one the elimination finds (a fixed
    /// linear choice). Inputs and outputs swap.
    ///
    /// # Errors
    /// [`F2Error::NotSurjective`].
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{x:[1,0,2]} -> {y:4}".parse().unwrap(); // bit 1 is ignored
    /// let r = l.right_inverse().unwrap();
    /// for y in 0..4 {
    ///     assert_eq!(l.apply_flat(r.apply_flat(y).unwrap()).unwrap(), y);
    /// }
    /// ```
    pub fn right_inverse(&self) -> Result<F2Layout, F2Error> {
        let e = self.echelon();
        if e.rank() != self.out_bits() {
            return Err(F2Error::NotSurjective {
                out_bits: self.out_bits(),
                rank: e.rank(),
            });
        }
        let mut r = F2Layout {
            ins: self.outs,
            outs: self.ins,
            bases: [0; MAX_F2_BITS],
        };
        for j in 0..self.out_bits() {
            // full rank on the output: every unit vector reduces to zero
            r.bases[j] = e.solve(1u64 << j).unwrap_or(0);
        }
        Ok(r)
    }

    /// A left inverse of an injective map: `R` with `R(self(x)) == x` for every input `x`. On
    /// outputs outside the image, `R` is linear and zero on the complement
    /// [`complement`](Self::complement) picks. Inputs and outputs swap.
    ///
    /// # Errors
    /// [`F2Error::NotInjective`].
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{x:[2,8]} -> {y:16}".parse().unwrap();
    /// let r = l.left_inverse().unwrap();
    /// for x in 0..4 {
    ///     assert_eq!(r.apply_flat(l.apply_flat(x).unwrap()).unwrap(), x);
    /// }
    /// ```
    pub fn left_inverse(&self) -> Result<F2Layout, F2Error> {
        let (e, k) = self.completed()?;
        let mut r = F2Layout {
            ins: self.outs,
            outs: self.ins,
            bases: [0; MAX_F2_BITS],
        };
        for j in 0..self.out_bits() {
            r.bases[j] = e.solve(1u64 << j).unwrap_or(0) & mask(k);
        }
        Ok(r)
    }

    /// The echelon of the bases completed by unit vectors to a basis of the output (combination
    /// bits `k..` are the added unit vectors), and `k` = input bits.
    fn completed(&self) -> Result<(Echelon, usize), F2Error> {
        let mut e = self.echelon();
        let k = self.in_bits();
        if e.rank() != k {
            return Err(F2Error::NotInjective {
                in_bits: k,
                rank: e.rank(),
            });
        }
        let mut t = k;
        for j in 0..self.out_bits() {
            if t >= 64 {
                break;
            }
            if e.insert(1u64 << j, 1u64 << t) {
                t += 1;
            }
        }
        Ok((e, k))
    }

    /// The complement of an injective map: a layout `C` with input dimension `rest` whose image
    /// meets the image of `self` only in 0 and, together with it, spans the whole output, so that
    /// `(self, C)` ([`direct_sum`](Self::direct_sum) over the inputs) is a bijection. `C`'s
    /// bases are the output's unit vectors not already spanned, lowest first.
    ///
    /// # Errors
    /// [`F2Error::NotInjective`].
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{x:[1,12]} -> {y:16}".parse().unwrap();
    /// let c = l.complement().unwrap();
    /// assert_eq!(c.to_string(), "{rest:[2,4]} -> {y:16}");
    /// assert!(l.stack(&c).unwrap().is_invertible());
    /// ```
    pub fn complement(&self) -> Result<F2Layout, F2Error> {
        let mut e = self.echelon();
        let k = self.in_bits();
        if e.rank() != k {
            return Err(F2Error::NotInjective {
                in_bits: k,
                rank: e.rank(),
            });
        }
        let mut c = F2Layout {
            ins: Dims::EMPTY,
            outs: self.outs,
            bases: [0; MAX_F2_BITS],
        };
        let mut t = 0;
        for j in 0..self.out_bits() {
            if e.insert(1u64 << j, 0) {
                c.bases[t] = 1u64 << j;
                t += 1;
            }
        }
        c.ins.push(Side::Input, DimName::new("rest")?, t)?;
        Ok(c)
    }

    /// `self` and `other` side by side over the same outputs: the inputs of both (names must
    /// differ), the outputs of `self`, `R(x, y) = self(x) ^ other(y)`.
    ///
    /// # Errors
    /// [`F2Error::DuplicateDim`] for an input name in both; [`F2Error::UnknownDim`] when the
    /// outputs differ.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let a: F2Layout = "{reg:[1,2]} -> {o:8}".parse().unwrap();
    /// let b: F2Layout = "{lane:[4]} -> {o:8}".parse().unwrap();
    /// assert_eq!(a.stack(&b).unwrap().to_string(), "{reg:[1,2],lane:[4]} -> {o:8}");
    /// ```
    pub fn stack(&self, other: &F2Layout) -> Result<F2Layout, F2Error> {
        if self.outs != other.outs {
            let name = if other.outs.n > 0 {
                other.outs.names[0]
            } else {
                NO_NAME
            };
            return Err(F2Error::UnknownDim {
                side: Side::Output,
                name,
            });
        }
        let mut r = *self;
        for i in 0..other.ins.n {
            let s = other.ins.start(i);
            let start = r.ins.total();
            r.ins
                .push(Side::Input, other.ins.names[i], other.ins.bits[i] as usize)?;
            let b = other.ins.bits[i] as usize;
            r.bases[start..start + b].copy_from_slice(&other.bases[s..s + b]);
        }
        Ok(r)
    }

    /// The direct sum `self ⊕ other` (Triton's product of linear layouts): the union of the
    /// dimensions, in order of first appearance. A dimension only one side has keeps its bases;
    /// an input dimension both have is the concatenation (the low bits are `self`'s, the high
    /// bits `other`'s); an output dimension both have puts `self`'s values in its low bits and
    /// `other`'s above them.
    ///
    /// # Errors
    /// Too many dimensions or bits.
    ///
    /// # Postconditions
    /// With disjoint dimension names, `R(x, y) = (self(x), other(y))`.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let a: F2Layout = "{reg:[1,2]} -> {col:4}".parse().unwrap();
    /// let b: F2Layout = "{lane:[1]} -> {row:2}".parse().unwrap();
    /// let s = a.direct_sum(&b).unwrap();
    /// assert_eq!(s.to_string(), "{reg:[(1,0),(2,0)],lane:[(0,1)]} -> {col:4,row:2}");
    /// // shared dimensions concatenate: registers 0..4 then 4 more above
    /// let t = a.direct_sum(&a).unwrap();
    /// assert_eq!(t.to_string(), "{reg:[1,2,4,8]} -> {col:16}");
    /// ```
    pub fn direct_sum(&self, other: &F2Layout) -> Result<F2Layout, F2Error> {
        let mut outs = self.outs;
        for j in 0..other.outs.n {
            let name = other.outs.names[j];
            match outs.find(&name) {
                Some(k) => {
                    let bits = outs.bits[k] as usize + other.outs.bits[j] as usize;
                    let total = outs.total() + other.outs.bits[j] as usize;
                    if total > MAX_F2_BITS {
                        return Err(F2Error::TooManyBits {
                            side: Side::Output,
                            bits: total,
                        });
                    }
                    outs.bits[k] = bits as u8;
                }
                None => outs.push(Side::Output, name, other.outs.bits[j] as usize)?,
            }
        }
        let mut ins = self.ins;
        for i in 0..other.ins.n {
            let name = other.ins.names[i];
            match ins.find(&name) {
                Some(k) => {
                    let total = ins.total() + other.ins.bits[i] as usize;
                    if total > MAX_F2_BITS {
                        return Err(F2Error::TooManyBits {
                            side: Side::Input,
                            bits: total,
                        });
                    }
                    ins.bits[k] += other.ins.bits[i];
                }
                None => ins.push(Side::Input, name, other.ins.bits[i] as usize)?,
            }
        }
        // re-place a flat output of `src` (whose dims are a subset of outs) into outs' flat form,
        // each dim's value shifted up by `shift(dim)`
        let place = |src: &F2Layout, y: u64, high: bool| -> u64 {
            let mut r = 0u64;
            for j in 0..src.outs.n {
                let v = (y >> src.outs.start(j)) & mask(src.outs.bits[j] as usize);
                let k = outs.find(&src.outs.names[j]).unwrap_or(0);
                let shift = if high {
                    self.outs
                        .find(&src.outs.names[j])
                        .map_or(0, |s| self.outs.bits[s] as usize)
                } else {
                    0
                };
                r |= v << (outs.start(k) + shift);
            }
            r
        };
        let mut r = F2Layout {
            ins,
            outs,
            bases: [0; MAX_F2_BITS],
        };
        for k in 0..ins.n {
            let start = ins.start(k);
            let name = ins.names[k];
            let mut at = start;
            if let Some(i) = self.ins.find(&name) {
                let s = self.ins.start(i);
                for t in 0..self.ins.bits[i] as usize {
                    r.bases[at] = place(self, self.bases[s + t], false);
                    at += 1;
                }
            }
            if let Some(i) = other.ins.find(&name) {
                let s = other.ins.start(i);
                for t in 0..other.ins.bits[i] as usize {
                    r.bases[at] = place(other, other.bases[s + t], true);
                    at += 1;
                }
            }
        }
        Ok(r)
    }

    /// The vector width along input dimension `dim`: the largest `2^k` such that the first `k`
    /// bases of `dim` are the flat outputs `1, 2, …, 2^(k-1)` and no other basis (of any input,
    /// `dim`'s higher bits included) has a bit below `k`. Then for every input `x` whose low `k`
    /// bits of `dim` are zero, `L(x + i) = L(x) + i` for `i < 2^k`: every run of `2^k` along `dim`
    /// lands on `2^k` consecutive flat outputs, in order, wherever the other inputs put it.
    ///
    /// # Errors
    /// [`F2Error::UnknownDim`].
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{reg:[1,2,8],lane:[4,16]} -> {o:32}".parse().unwrap();
    /// assert_eq!(l.contiguous_width("reg").unwrap(), 4);
    /// assert_eq!(l.contiguous_width("lane").unwrap(), 1);
    /// // the third base 5 touches bit 0: runs of 2 starting at 4 would come out as 5, 4
    /// let l: F2Layout = "{x:[1,2,5]} -> {o:8}".parse().unwrap();
    /// assert_eq!(l.contiguous_width("x").unwrap(), 1);
    /// ```
    pub fn contiguous_width(&self, dim: &str) -> Result<u64, F2Error> {
        let i = self.in_dim(dim)?;
        let start = self.ins.start(i);
        let b = self.bases_of(dim)?;
        let mut k = b
            .iter()
            .enumerate()
            .take_while(|&(i, &v)| v == 1u64 << i)
            .count();
        // every other basis must stay above bit k
        for (j, &v) in self.flat_bases().iter().enumerate() {
            if j >= start && j < start + k {
                continue;
            }
            k = k.min(v.trailing_zeros() as usize);
        }
        Ok(1u64 << k)
    }

    /// The largest sub-layout with contiguous images along `dim`: `self` with `dim` cut to
    /// [`contiguous_width`](Self::contiguous_width) elements and the other inputs dropped. It
    /// maps `i` to flat output `i`.
    ///
    /// # Errors
    /// [`F2Error::UnknownDim`].
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{reg:[1,2,8],lane:[4,16]} -> {o:32}".parse().unwrap();
    /// assert_eq!(l.contiguous_sublayout("reg").unwrap().to_string(), "{reg:[1,2]} -> {o:32}");
    /// ```
    pub fn contiguous_sublayout(&self, dim: &str) -> Result<F2Layout, F2Error> {
        let w = self.contiguous_width(dim)?.trailing_zeros() as usize;
        let i = self.in_dim(dim)?;
        let mut r = F2Layout {
            ins: Dims::EMPTY,
            outs: self.outs,
            bases: [0; MAX_F2_BITS],
        };
        r.ins.push(Side::Input, self.ins.names[i], w)?;
        let s = self.ins.start(i);
        r.bases[..w].copy_from_slice(&self.bases[s..s + w]);
        Ok(r)
    }

    /// The same map with input dimensions renamed: `(old, new)` pairs.
    ///
    /// # Errors
    /// [`F2Error::UnknownDim`], a bad name, or a name then used twice.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l = F2Layout::identity("offset", 2).unwrap().rename_inputs(&[("offset", "i")]).unwrap();
    /// assert_eq!(l.to_string(), "{i:[1,2]} -> {offset:4}");
    /// ```
    pub fn rename_inputs(&self, pairs: &[(&str, &str)]) -> Result<F2Layout, F2Error> {
        let mut r = *self;
        for &(old, new) in pairs {
            let i = self.in_dim(old)?;
            r.ins.names[i] = DimName::new(new)?;
        }
        for i in 0..r.ins.n {
            if r.ins.names[..i].contains(&r.ins.names[i]) {
                return Err(F2Error::DuplicateDim {
                    side: Side::Input,
                    name: r.ins.names[i],
                });
            }
        }
        Ok(r)
    }

    /// The same map with output dimensions renamed: `(old, new)` pairs.
    ///
    /// # Errors
    /// [`F2Error::UnknownDim`], a bad name, or a name then used twice.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l = F2Layout::identity("offset", 2).unwrap().rename_outputs(&[("offset", "o")]).unwrap();
    /// assert_eq!(l.to_string(), "{offset:[1,2]} -> {o:4}");
    /// ```
    pub fn rename_outputs(&self, pairs: &[(&str, &str)]) -> Result<F2Layout, F2Error> {
        let mut r = *self;
        for &(old, new) in pairs {
            let n = DimName::new(old)?;
            let j = self.outs.find(&n).ok_or(F2Error::UnknownDim {
                side: Side::Output,
                name: n,
            })?;
            r.outs.names[j] = DimName::new(new)?;
        }
        for j in 0..r.outs.n {
            if r.outs.names[..j].contains(&r.outs.names[j]) {
                return Err(F2Error::DuplicateDim {
                    side: Side::Output,
                    name: r.outs.names[j],
                });
            }
        }
        Ok(r)
    }

    /// The output dimensions merged into one named `name` (flat form, dimension 0 lowest), and
    /// the input dimensions merged into one named `name` likewise: the map on flat indices.
    ///
    /// # Errors
    /// A bad name.
    ///
    /// ```
    /// use layout::f2::F2Layout;
    /// let l: F2Layout = "{a:[(1,0)],b:[(0,1)]} -> {x:2,y:2}".parse().unwrap();
    /// assert_eq!(l.flatten("i", "o").unwrap().to_string(), "{i:[1,2]} -> {o:4}");
    /// ```
    pub fn flatten(&self, input: &str, output: &str) -> Result<F2Layout, F2Error> {
        let mut r = F2Layout::output(&[])?;
        r.outs
            .push(Side::Output, DimName::new(output)?, self.out_bits())?;
        r.ins
            .push(Side::Input, DimName::new(input)?, self.in_bits())?;
        r.bases = self.bases;
        Ok(r)
    }
}

/// The images of the index bits of a shape:stride layout (power-of-two extents, non-negative
/// strides, no two images sharing a bit), written into `out`; returns how many.
pub(crate) fn layout_bit_images(
    layout: &DynLayout,
    out: &mut [u64; MAX_F2_BITS],
) -> Result<usize, F2Error> {
    let mut n = 0;
    let mut seen = 0u64;
    let shape = layout.shape_leaves();
    let stride = layout.stride_leaves();
    for (leaf, (&s, &d)) in shape.iter().zip(stride).enumerate() {
        if s <= 0 || (s as u64) & (s as u64 - 1) != 0 {
            return Err(F2Error::ModeNotPowerOfTwo { leaf, extent: s });
        }
        if d < 0 {
            return Err(F2Error::NegativeStride { leaf, stride: d });
        }
        let bits = s.trailing_zeros() as usize;
        for j in 0..bits {
            if n == MAX_F2_BITS {
                return Err(F2Error::TooManyBits {
                    side: Side::Input,
                    bits: n + 1,
                });
            }
            let v = (d as u64)
                .checked_shl(j as u32)
                .filter(|v| v >> j == d as u64);
            let v = match v {
                Some(v) if v <= mask(MAX_F2_BITS) => v,
                _ => {
                    return Err(F2Error::TooManyBits {
                        side: Side::Output,
                        bits: 64,
                    });
                }
            };
            if v & seen != 0 {
                // name the earlier image it overlaps
                let a = out[..n].iter().copied().find(|&w| w & v != 0).unwrap_or(0);
                return Err(F2Error::NotLinear {
                    a: a as i64,
                    b: v as i64,
                });
            }
            seen |= v;
            out[n] = v;
            n += 1;
        }
    }
    Ok(n)
}

impl fmt::Debug for F2Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "F2Layout({self})")
    }
}
