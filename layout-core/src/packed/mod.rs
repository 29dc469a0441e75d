//! Packed sub-byte elements: 1-, 2- and 4-bit values packed into bytes or 32-bit words.
//!
//! A packed format is a map from a logical element index to a **bit offset** in a little-endian
//! buffer (bit `b` is bit `b % 8` of byte `b / 8`; a 32-bit word is four such bytes). The
//! intra-word orders used by quantised inference are all affine in a hierarchical index, so
//! [`PackedFormat::bit_layout`] gives the map as an ordinary [`DynLayout`] over bit offsets:
//!
//! | format | order | bit-offset layout (`W` words, `B` blocks) | test vector |
//! |---|---|---|---|
//! | GPTQ `qweight` ([`PackedFormat::gptq`]) | sequential | `(8,W):(4,32)` | `0..8` → word `0x76543210` |
//! | AWQ `qweight` ([`PackedFormat::awq`]) | `[0,2,4,6,1,3,5,7]` | `(2,4,W):(16,4,32)` | `0..8` → word `0x75316420` |
//! | GGML Q4_0 ([`PackedFormat::q4_0`]) | low/high nibble halves | `(16,2,B):(8,4,128)` | `[0..16, 15..=0]` → bytes `f0 e1 … 1e 0f` |
//! | fp4x2 ([`PackedFormat::fp4x2`]) | sequential, low nibble first | `(2,W):(4,8)` | `0..4` → bytes `10 32` |
//!
//! AWQ stores logical column `AWQ_ORDER[s]` in nibble slot `s`, `AWQ_ORDER = [0,2,4,6,1,3,5,7]`;
//! so logical `j = j0 + 2·j1` (`j0 < 2`, `j1 < 4`) sits in slot `j1 + 4·j0`, bit `4·j1 + 16·j0`:
//! the layout `(2,4):(16,4)` per word. Q4_0 puts element `j < 16` of a 32-element block in the
//! low nibble of byte `j` and element `j + 16` in the high nibble of byte `j`: `(16,2):(8,4)`.
//!
//! [`PackedVec`] stores packed data and gives element access by value ([`PackedVec::get`],
//! [`PackedVec::set`]): a reference cannot address a nibble, so packed data is not a
//! [`Tensor`](crate::Tensor) element type. Values that do not fit the width are an error, never
//! truncated. [`PackedVec::repack`] converts between orders (AWQ → GPTQ) through the algebra:
//! the slot permutation is `src ∘ right_inverse(dst)` of the two slot layouts.
//!
//! [`GroupQuant`] and [`dequantize`] add the per-group scales and zero points of AWQ and GPTQ.
//!
//! Quantised weights as GEMM operands: [`Group4Matrix`] (GPTQ/AWQ codes, scales and zero points,
//! built by the quantiser [`quantize_group4`]) and the GGUF blocks [`Q4_0Matrix`] /
//! [`Q8_0Matrix`] ([`quantize_q4_0`], [`quantize_q8_0`], byte-compatible with GGUF) all
//! implement [`QuantizedB`]: they dequantise straight into the GEMM's packed micro-panels, and
//! [`crate::gemm::gemm_quant`]'s decode route multiplies a few rows by them reading the stored bytes in place.
//!
//! ```
//! use layout_core::packed::{PackedFormat, PackedVec};
//! let awq = PackedVec::from_values(PackedFormat::awq(), &[0, 1, 2, 3, 4, 5, 6, 7]).unwrap();
//! assert_eq!(awq.to_words().unwrap(), vec![0x7531_6420]);
//! assert_eq!(PackedFormat::awq().bit_layout(8).unwrap().to_string(), "(2,4,1):(16,4,32)");
//! let gptq = awq.repack(PackedFormat::gptq()).unwrap();
//! assert_eq!(gptq.to_words().unwrap(), vec![0x7654_3210]);
//! let fp4 = PackedVec::from_values(PackedFormat::fp4x2(), &[0, 1, 2, 3]).unwrap();
//! assert_eq!(fp4.as_bytes(), &[0x10, 0x32]);
//! ```

mod error;
mod gguf;
mod nibbles;
mod quant;
mod quantize;

pub use error::PackedError;
#[cfg(all(target_arch = "x86_64", feature = "std"))]
pub(crate) use gguf::simd;
pub use gguf::{
    BlockQ4_0, BlockQ8_0, GgufBlock, GgufMatrix, Q4_0Matrix, Q8_0Matrix, QK, quantize_q4_0,
    quantize_q8_0,
};
#[cfg(test)]
use quant::dequantize_with;
pub use quant::{GroupQuant, dequantize};
#[cfg(feature = "std")]
pub(crate) use quantize::{AWQ_SHIFT, Access};
pub use quantize::{Group4Format, Group4Matrix, QuantRef, QuantizedB, quantize_group4};

use crate::{DynLayout, LayoutError};
use alloc::vec::Vec;

/// The order of elements inside a word (or block) of a [`PackedFormat`].
///
/// ```
/// use layout_core::packed::{PackOrder, PackedFormat};
/// assert_eq!(PackedFormat::q4_0().order(), PackOrder::Halves { block: 32 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PackOrder {
    /// Element `i` at bit `i · bits` (GPTQ, fp4x2, bit-packed masks).
    Sequential,
    /// AWQ: nibble slot `s` of a 32-bit word holds logical element `[0,2,4,6,1,3,5,7][s]`.
    Awq,
    /// GGML: in a block of `block` 4-bit elements, element `j < block/2` is the low nibble of
    /// byte `j`, element `j + block/2` the high nibble of byte `j` (Q4_0/Q4_1: `block = 32`).
    Halves {
        /// Elements per block (positive, even).
        block: u32,
    },
}

/// The AWQ packing order: nibble slot `s` holds logical element `AWQ_ORDER[s]`.
///
/// ```
/// use layout_core::packed::{AWQ_ORDER, PackedFormat};
/// let f = PackedFormat::awq();
/// for (slot, &logical) in AWQ_ORDER.iter().enumerate() {
///     assert_eq!(f.bit_offset(logical), 4 * slot);
/// }
/// ```
pub const AWQ_ORDER: [usize; 8] = [0, 2, 4, 6, 1, 3, 5, 7];

/// A packed sub-byte format: element width, word width and intra-word order.
///
/// ```
/// use layout_core::packed::{PackOrder, PackedFormat};
/// let f = PackedFormat::new(2, 8, PackOrder::Sequential).unwrap();
/// assert_eq!(f.elements_per_word(), 4);
/// assert!(PackedFormat::new(3, 32, PackOrder::Sequential).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PackedFormat {
    bits: u32,
    word_bits: u32,
    order: PackOrder,
}

impl PackedFormat {
    /// A format of `bits`-bit elements (1, 2 or 4) in `word_bits`-bit words (8 or 32).
    ///
    /// # Errors
    /// [`PackedError::UnsupportedBits`], [`PackedError::UnsupportedWord`];
    /// [`PackedError::OrderNeeds`] for [`PackOrder::Awq`] unless 4-bit in 32-bit words, for
    /// [`PackOrder::Halves`] unless 4-bit in bytes; [`PackedError::BadBlock`] for a half-split
    /// block that is not positive and even.
    ///
    /// ```
    /// use layout_core::packed::{PackOrder, PackedFormat};
    /// let e = PackedFormat::new(2, 32, PackOrder::Awq).unwrap_err();
    /// assert_eq!(
    ///     e.to_string(),
    ///     "packed format: the awq order needs 4-bit elements in 32-bit words, \
    ///      got 2-bit elements in 32-bit words"
    /// );
    /// ```
    pub const fn new(bits: u32, word_bits: u32, order: PackOrder) -> Result<Self, PackedError> {
        const OP: &str = "format";
        if !matches!(bits, 1 | 2 | 4) {
            return Err(PackedError::UnsupportedBits { op: OP, bits });
        }
        if !matches!(word_bits, 8 | 32) {
            return Err(PackedError::UnsupportedWord { op: OP, word_bits });
        }
        match order {
            PackOrder::Sequential => {}
            PackOrder::Awq => {
                if bits != 4 || word_bits != 32 {
                    return Err(PackedError::OrderNeeds {
                        op: OP,
                        order: "awq",
                        need_bits: 4,
                        need_word_bits: 32,
                        bits,
                        word_bits,
                    });
                }
            }
            PackOrder::Halves { block } => {
                if bits != 4 || word_bits != 8 {
                    return Err(PackedError::OrderNeeds {
                        op: OP,
                        order: "halves",
                        need_bits: 4,
                        need_word_bits: 8,
                        bits,
                        word_bits,
                    });
                }
                if block == 0 || block % 2 != 0 {
                    return Err(PackedError::BadBlock { op: OP, block });
                }
            }
        }
        Ok(PackedFormat {
            bits,
            word_bits,
            order,
        })
    }

    /// Sequential packing of `bits`-bit elements in `word_bits`-bit words.
    ///
    /// # Errors
    /// As [`PackedFormat::new`].
    ///
    /// ```
    /// use layout_core::packed::PackedFormat;
    /// let f = PackedFormat::sequential(1, 8).unwrap();
    /// assert_eq!(f.bit_layout(16).unwrap().to_string(), "(8,2):(1,8)");
    /// ```
    pub const fn sequential(bits: u32, word_bits: u32) -> Result<Self, PackedError> {
        PackedFormat::new(bits, word_bits, PackOrder::Sequential)
    }

    /// GPTQ `qweight`/`qzeros`: 4-bit, sequential, 32-bit words (logical `0..8` → `0x76543210`).
    ///
    /// ```
    /// use layout_core::packed::PackedFormat;
    /// assert_eq!(PackedFormat::gptq().bit_layout(16).unwrap().to_string(), "(8,2):(4,32)");
    /// ```
    pub const fn gptq() -> Self {
        PackedFormat {
            bits: 4,
            word_bits: 32,
            order: PackOrder::Sequential,
        }
    }

    /// AWQ `qweight`/`qzeros`: 4-bit in 32-bit words, order [`AWQ_ORDER`]
    /// (logical `0..8` → `0x75316420`).
    ///
    /// ```
    /// use layout_core::packed::PackedFormat;
    /// assert_eq!(PackedFormat::awq().bit_offset(1), 16);
    /// ```
    pub const fn awq() -> Self {
        PackedFormat {
            bits: 4,
            word_bits: 32,
            order: PackOrder::Awq,
        }
    }

    /// GGML Q4_0/Q4_1 quants: blocks of 32 nibbles in 16 bytes, element `j < 16` in the low
    /// nibble of byte `j`, element `j + 16` in its high nibble.
    ///
    /// ```
    /// use layout_core::packed::PackedFormat;
    /// assert_eq!(PackedFormat::q4_0().bit_offset(16), 4);
    /// assert_eq!(PackedFormat::q4_0().bit_layout(64).unwrap().to_string(), "(16,2,2):(8,4,128)");
    /// ```
    pub const fn q4_0() -> Self {
        PackedFormat {
            bits: 4,
            word_bits: 8,
            order: PackOrder::Halves { block: 32 },
        }
    }

    /// fp4x2: two 4-bit (e2m1) values per byte, element `2k` in the low nibble of byte `k`.
    /// Decode the codes with [`e2m1_to_f32`].
    ///
    /// ```
    /// use layout_core::packed::PackedFormat;
    /// assert_eq!(PackedFormat::fp4x2().bit_offset(3), 12);
    /// ```
    pub const fn fp4x2() -> Self {
        PackedFormat {
            bits: 4,
            word_bits: 8,
            order: PackOrder::Sequential,
        }
    }

    /// Element width in bits.
    ///
    /// ```
    /// assert_eq!(layout_core::packed::PackedFormat::gptq().bits(), 4);
    /// ```
    pub const fn bits(&self) -> u32 {
        self.bits
    }

    /// Word width in bits (8 or 32); storage is a whole number of words.
    ///
    /// ```
    /// assert_eq!(layout_core::packed::PackedFormat::q4_0().word_bits(), 8);
    /// ```
    pub const fn word_bits(&self) -> u32 {
        self.word_bits
    }

    /// The intra-word order.
    ///
    /// ```
    /// use layout_core::packed::{PackOrder, PackedFormat};
    /// assert_eq!(PackedFormat::awq().order(), PackOrder::Awq);
    /// ```
    pub const fn order(&self) -> PackOrder {
        self.order
    }

    /// Elements per word: `word_bits / bits`.
    ///
    /// ```
    /// assert_eq!(layout_core::packed::PackedFormat::awq().elements_per_word(), 8);
    /// ```
    pub const fn elements_per_word(&self) -> usize {
        (self.word_bits / self.bits) as usize
    }

    /// The period of the order in elements: the storage holds a whole number of periods
    /// (a word, or a half-split block).
    ///
    /// ```
    /// assert_eq!(layout_core::packed::PackedFormat::q4_0().period(), 32);
    /// ```
    pub const fn period(&self) -> usize {
        match self.order {
            PackOrder::Halves { block } => block as usize,
            PackOrder::Sequential | PackOrder::Awq => self.elements_per_word(),
        }
    }

    /// `len` rounded up to a whole number of periods: the number of element slots the
    /// storage of `len` elements holds.
    ///
    /// # Errors
    /// [`PackedError::Empty`] for `len == 0`, [`PackedError::Overflow`].
    ///
    /// ```
    /// assert_eq!(layout_core::packed::PackedFormat::gptq().padded_len(9), Ok(16));
    /// ```
    pub const fn padded_len(&self, len: usize) -> Result<usize, PackedError> {
        const OP: &str = "padded length";
        if len == 0 {
            return Err(PackedError::Empty { op: OP });
        }
        let p = self.period();
        match len.div_ceil(p).checked_mul(p) {
            // every bit offset must fit in `usize` and the layout's `i64`
            Some(n) if n <= (i64::MAX as usize) / 32 => Ok(n),
            _ => Err(PackedError::Overflow {
                op: OP,
                what: "element slots",
            }),
        }
    }

    /// Bytes of storage for `len` elements.
    ///
    /// # Errors
    /// As [`PackedFormat::padded_len`].
    ///
    /// ```
    /// use layout_core::packed::PackedFormat;
    /// assert_eq!(PackedFormat::q4_0().storage_bytes(32), Ok(16));
    /// assert_eq!(PackedFormat::gptq().storage_bytes(9), Ok(8));
    /// assert_eq!(PackedFormat::sequential(1, 8).unwrap().storage_bytes(3), Ok(1));
    /// ```
    pub const fn storage_bytes(&self, len: usize) -> Result<usize, PackedError> {
        match self.padded_len(len) {
            Ok(n) => Ok(n * self.bits as usize / 8),
            Err(e) => Err(e),
        }
    }

    /// The bit offset of element `i` (closed form; equals `bit_layout(n).offset(i)` for every
    /// `i < padded_len(n)`). Defined for every `i` whose bit offset fits in `usize`.
    ///
    /// ```
    /// use layout_core::packed::PackedFormat;
    /// assert_eq!(PackedFormat::gptq().bit_offset(9), 36);
    /// assert_eq!(PackedFormat::awq().bit_offset(9), 32 + 16);
    /// assert_eq!(PackedFormat::q4_0().bit_offset(33), 128 + 8);
    /// ```
    #[inline]
    pub const fn bit_offset(&self, i: usize) -> usize {
        match self.order {
            PackOrder::Sequential => i * self.bits as usize,
            PackOrder::Awq => {
                let j = i % 8;
                32 * (i / 8) + 4 * (j / 2) + 16 * (j % 2)
            }
            PackOrder::Halves { block } => {
                let b = block as usize;
                let h = b / 2;
                let j = i % b;
                4 * b * (i / b) + 8 * (j % h) + 4 * (j / h)
            }
        }
    }

    /// The map element index → bit offset for `len` elements (padded to whole periods) as a
    /// layout of this crate: `(E,W):(bits,word_bits)` sequential, `(2,4,W):(16,4,32)` AWQ,
    /// `(h,2,B):(8,4,4·block)` half-split blocks with `h = block/2`.
    ///
    /// # Errors
    /// As [`PackedFormat::padded_len`]; [`PackedError::Layout`] if the layout cannot be built.
    ///
    /// ```
    /// use layout_core::packed::PackedFormat;
    /// let l = PackedFormat::awq().bit_layout(16).unwrap();
    /// assert_eq!(l.to_string(), "(2,4,2):(16,4,32)");
    /// assert_eq!(l.offset(9), 48);
    /// ```
    pub const fn bit_layout(&self, len: usize) -> Result<DynLayout, PackedError> {
        self.layout_scaled(len, 1)
    }

    /// The map element index → element *slot* (bit offset / bits): the bit layout with every
    /// stride divided by the width. A bijection onto `0..padded_len(len)`.
    ///
    /// # Errors
    /// As [`PackedFormat::bit_layout`].
    ///
    /// ```
    /// use layout_core::packed::PackedFormat;
    /// assert_eq!(PackedFormat::awq().slot_layout(8).unwrap().to_string(), "(2,4,1):(4,1,8)");
    /// ```
    pub const fn slot_layout(&self, len: usize) -> Result<DynLayout, PackedError> {
        self.layout_scaled(len, self.bits as i64)
    }

    const fn layout_scaled(&self, len: usize, div: i64) -> Result<DynLayout, PackedError> {
        let n = match self.padded_len(len) {
            Ok(n) => n as i64,
            Err(e) => return Err(e),
        };
        let bits = self.bits as i64;
        let wb = self.word_bits as i64;
        let r: Result<DynLayout, LayoutError> = match self.order {
            PackOrder::Sequential => {
                let e = wb / bits;
                DynLayout::from_flat(&[e, n / e], &[bits / div, wb / div])
            }
            PackOrder::Awq => DynLayout::from_flat(&[2, 4, n / 8], &[16 / div, 4 / div, 32 / div]),
            PackOrder::Halves { block } => {
                let b = block as i64;
                DynLayout::from_flat(&[b / 2, 2, n / b], &[8 / div, 4 / div, 4 * b / div])
            }
        };
        match r {
            Ok(l) => Ok(l),
            Err(source) => Err(PackedError::Layout(source)),
        }
    }

    /// The largest value an element can hold: `2^bits − 1`.
    ///
    /// ```
    /// assert_eq!(layout_core::packed::PackedFormat::gptq().max_value(), 15);
    /// ```
    pub const fn max_value(&self) -> u8 {
        ((1u32 << self.bits) - 1) as u8
    }
}

/// The value of an fp4 **e2m1** code (1 sign, 2 exponent, 1 mantissa bit; OCP MX):
/// `0, 0.5, 1, 1.5, 2, 3, 4, 6` and their negatives.
///
/// # Errors
/// [`PackedError::ValueOutOfRange`] for a code above 15.
///
/// ```
/// use layout_core::packed::e2m1_to_f32;
/// assert_eq!(e2m1_to_f32(0b0111), Ok(6.0));
/// assert_eq!(e2m1_to_f32(0b1001), Ok(-0.5));
/// assert!(e2m1_to_f32(16).is_err());
/// ```
pub const fn e2m1_to_f32(code: u8) -> Result<f32, PackedError> {
    const MAG: [f32; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
    if code > 15 {
        return Err(PackedError::ValueOutOfRange {
            op: "e2m1 decode",
            index: 0,
            value: code as u32,
            bits: 4,
        });
    }
    let m = MAG[(code & 7) as usize];
    Ok(if code & 8 != 0 { -m } else { m })
}

/// Packed sub-byte elements: a [`PackedFormat`], a length and the little-endian bytes.
///
/// Storage is a whole number of words (periods); slots past `len` are padding (zero when
/// built by this type).
///
/// ```
/// use layout_core::packed::{PackedFormat, PackedVec};
/// let mut v = PackedVec::zeroed(PackedFormat::q4_0(), 32).unwrap();
/// v.set(17, 9).unwrap();
/// assert_eq!(v.as_bytes()[1], 0x90); // high nibble of byte 1
/// assert_eq!(v.get(17), Ok(9));
/// assert!(v.set(0, 16).is_err()); // does not fit in 4 bits: never truncated
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PackedVec {
    format: PackedFormat,
    len: usize,
    bytes: Vec<u8>,
}

impl PackedVec {
    /// `len` zero elements.
    ///
    /// # Errors
    /// As [`PackedFormat::storage_bytes`]; [`PackedError::Allocation`] naming the bytes when
    /// the storage cannot be allocated (never an abort).
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// assert_eq!(PackedVec::zeroed(PackedFormat::gptq(), 9).unwrap().as_bytes().len(), 8);
    /// ```
    pub fn zeroed(format: PackedFormat, len: usize) -> Result<Self, PackedError> {
        let nb = format.storage_bytes(len)?;
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(nb)
            .map_err(|_| PackedError::Allocation {
                op: "zeroed",
                bytes: nb,
            })?;
        bytes.resize(nb, 0);
        Ok(PackedVec { format, len, bytes })
    }

    /// Pack `values` (each below `2^bits`).
    ///
    /// # Errors
    /// [`PackedError::ValueOutOfRange`] naming the first value that does not fit; as
    /// [`PackedVec::zeroed`].
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// let v = PackedVec::from_values(PackedFormat::gptq(), &[0, 1, 2, 3, 4, 5, 6, 7]).unwrap();
    /// assert_eq!(v.to_words().unwrap(), vec![0x7654_3210]);
    /// ```
    pub fn from_values(format: PackedFormat, values: &[u8]) -> Result<Self, PackedError> {
        let mut v = PackedVec::zeroed(format, values.len())?;
        for (i, &x) in values.iter().enumerate() {
            v.set_op(i, x, "from values")?;
        }
        Ok(v)
    }

    /// Adopt packed bytes (e.g. a GGML `qs` array or a checkpoint tensor's raw data).
    ///
    /// # Errors
    /// [`PackedError::BufferLength`] unless `bytes.len() == format.storage_bytes(len)`.
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// let v = PackedVec::from_bytes(PackedFormat::fp4x2(), 2, vec![0x21]).unwrap();
    /// assert_eq!(v.to_values(), vec![1, 2]);
    /// ```
    pub fn from_bytes(
        format: PackedFormat,
        len: usize,
        bytes: Vec<u8>,
    ) -> Result<Self, PackedError> {
        let nb = format.storage_bytes(len)?;
        if bytes.len() != nb {
            return Err(PackedError::BufferLength {
                op: "from bytes",
                what: "byte buffer",
                expected: nb,
                got: bytes.len(),
            });
        }
        Ok(PackedVec { format, len, bytes })
    }

    /// Adopt 32-bit words (e.g. an AWQ/GPTQ `qweight` as `int32`, reinterpreted).
    ///
    /// # Errors
    /// [`PackedError::OrderNeeds`] unless the format has 32-bit words;
    /// [`PackedError::BufferLength`] unless `words.len()` is the number of words for `len`.
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// let v = PackedVec::from_words(PackedFormat::awq(), 8, &[0x7531_6420]).unwrap();
    /// assert_eq!(v.to_values(), vec![0, 1, 2, 3, 4, 5, 6, 7]);
    /// ```
    pub fn from_words(
        format: PackedFormat,
        len: usize,
        words: &[u32],
    ) -> Result<Self, PackedError> {
        const OP: &str = "from words";
        if format.word_bits != 32 {
            return Err(PackedError::OrderNeeds {
                op: OP,
                order: "32-bit word",
                need_bits: format.bits,
                need_word_bits: 32,
                bits: format.bits,
                word_bits: format.word_bits,
            });
        }
        let nb = format.storage_bytes(len)?;
        if words.len() != nb / 4 {
            return Err(PackedError::BufferLength {
                op: OP,
                what: "word buffer",
                expected: nb / 4,
                got: words.len(),
            });
        }
        let bytes = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        Ok(PackedVec { format, len, bytes })
    }

    /// The format.
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// assert_eq!(PackedVec::zeroed(PackedFormat::awq(), 8).unwrap().format(), PackedFormat::awq());
    /// ```
    pub fn format(&self) -> PackedFormat {
        self.format
    }

    /// Number of elements.
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// assert_eq!(PackedVec::zeroed(PackedFormat::awq(), 5).unwrap().len(), 5);
    /// ```
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always `false`: packed vectors hold at least one element.
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// assert!(!PackedVec::zeroed(PackedFormat::awq(), 1).unwrap().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The packed bytes (little-endian words).
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// let v = PackedVec::from_values(PackedFormat::fp4x2(), &[3, 12]).unwrap();
    /// assert_eq!(v.as_bytes(), &[0xc3]);
    /// ```
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The packed data as 32-bit words.
    ///
    /// # Errors
    /// [`PackedError::OrderNeeds`] unless the format has 32-bit words.
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// assert!(PackedVec::zeroed(PackedFormat::q4_0(), 32).unwrap().to_words().is_err());
    /// ```
    pub fn to_words(&self) -> Result<Vec<u32>, PackedError> {
        if self.format.word_bits != 32 {
            return Err(PackedError::OrderNeeds {
                op: "to words",
                order: "32-bit word",
                need_bits: self.format.bits,
                need_word_bits: 32,
                bits: self.format.bits,
                word_bits: self.format.word_bits,
            });
        }
        Ok(self
            .bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    }

    /// Element `i`.
    ///
    /// # Errors
    /// [`PackedError::IndexOutOfRange`] for `i >= len`.
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// let v = PackedVec::from_words(PackedFormat::gptq(), 8, &[0x7654_3210]).unwrap();
    /// assert_eq!(v.get(5), Ok(5));
    /// assert_eq!(
    ///     v.get(8).unwrap_err().to_string(),
    ///     "packed get: index 8 is out of range for 8 elements"
    /// );
    /// ```
    #[inline]
    pub fn get(&self, i: usize) -> Result<u8, PackedError> {
        if i >= self.len {
            return Err(PackedError::IndexOutOfRange {
                op: "get",
                index: i,
                len: self.len,
            });
        }
        Ok(self.read_bits(self.format.bit_offset(i)))
    }

    /// Set element `i` to `v`.
    ///
    /// # Errors
    /// [`PackedError::IndexOutOfRange`] for `i >= len`, [`PackedError::ValueOutOfRange`] for
    /// `v >= 2^bits` (values are never truncated).
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// let mut v = PackedVec::zeroed(PackedFormat::sequential(2, 8).unwrap(), 4).unwrap();
    /// v.set(3, 2).unwrap();
    /// assert_eq!(v.as_bytes(), &[0b1000_0000]);
    /// assert!(v.set(3, 4).is_err());
    /// ```
    #[inline]
    pub fn set(&mut self, i: usize, v: u8) -> Result<(), PackedError> {
        self.set_op(i, v, "set")
    }

    fn set_op(&mut self, i: usize, v: u8, op: &'static str) -> Result<(), PackedError> {
        if i >= self.len {
            return Err(PackedError::IndexOutOfRange {
                op,
                index: i,
                len: self.len,
            });
        }
        if v > self.format.max_value() {
            return Err(PackedError::ValueOutOfRange {
                op,
                index: i,
                value: u32::from(v),
                bits: self.format.bits,
            });
        }
        self.write_bits(self.format.bit_offset(i), v);
        Ok(())
    }

    /// Every element, in logical order.
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// let v = PackedVec::from_words(PackedFormat::awq(), 8, &[0x7654_3210]).unwrap();
    /// assert_eq!(v.to_values(), vec![0, 4, 1, 5, 2, 6, 3, 7]);
    /// ```
    pub fn to_values(&self) -> Vec<u8> {
        (0..self.len)
            .map(|i| self.read_bits(self.format.bit_offset(i)))
            .collect()
    }

    /// The same elements in another order or word width (AWQ → GPTQ, Q4_0 → fp4x2, …).
    ///
    /// The slot permutation comes from the algebra: with `S`, `D` the two
    /// [`slot_layouts`](PackedFormat::slot_layout), destination slot `k` takes source slot
    /// `(S ∘ right_inverse(D))(k)` ([`repack_map`]). When both formats have one word width and
    /// `logical_divide(map, E:1)` (`E` slots per word) is `(tile, W:E)` with the tile inside one
    /// word, every word undergoes the same permutation and the copy runs word by word (AWQ ↔
    /// GPTQ); otherwise slot by slot along the map. When the composition is refused (it is exact
    /// only under its admissibility rule) the copy goes element by element through the
    /// closed-form bit offsets ([`PackedVec::repack_by_offsets`]); all paths give one result.
    ///
    /// # Errors
    /// [`PackedError::WidthMismatch`] when the element widths differ.
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// let v: Vec<u8> = (0..32).map(|i| i % 16).collect();
    /// let q = PackedVec::from_values(PackedFormat::q4_0(), &v).unwrap();
    /// let awq = q.repack(PackedFormat::awq()).unwrap();
    /// assert_eq!(awq.to_values(), v);
    /// ```
    pub fn repack(&self, target: PackedFormat) -> Result<PackedVec, PackedError> {
        let bits = self.format.bits as usize;
        if let Some(map) = repack_map(self.format, target, self.len)? {
            let mut out = PackedVec::zeroed(target, self.len)?;
            let e = self.format.elements_per_word();
            if self.format.word_bits == target.word_bits
                && self.bytes.len() == out.bytes.len()
                && let Some(perm) = word_permutation(&map, e)
            {
                // the algebra found a per-word permutation, the same in every word
                let wb = self.format.word_bits as usize / 8;
                permute_words(&self.bytes, &mut out.bytes, wb, self.format.bits, &perm);
                return Ok(out);
            }
            if out.bytes.len() * 8 / bits == map.size() as usize {
                // `map` is a permutation of `0..padded_len`, the slots of both buffers; an
                // odometer over its flat modes gives the source slot of each destination slot
                for_each_offset(&map, |k, src| {
                    let v = self.read_bits(src as usize * bits);
                    out.write_bits(k * bits, v);
                });
                return Ok(out);
            }
        }
        self.repack_by_offsets(target)
    }

    /// The same elements in another format, copied element by element through the closed-form
    /// bit offsets ([`PackedFormat::bit_offset`]) of both formats: the direct path, for any
    /// pair of formats of one width. [`PackedVec::repack`] gives the same result.
    ///
    /// # Errors
    /// [`PackedError::WidthMismatch`] when the element widths differ.
    ///
    /// ```
    /// use layout_core::packed::{PackedFormat, PackedVec};
    /// let v = PackedVec::from_words(PackedFormat::awq(), 8, &[0x7531_6420]).unwrap();
    /// assert_eq!(v.repack_by_offsets(PackedFormat::gptq()).unwrap().to_words().unwrap(), vec![0x7654_3210]);
    /// ```
    pub fn repack_by_offsets(&self, target: PackedFormat) -> Result<PackedVec, PackedError> {
        if self.format.bits != target.bits {
            return Err(PackedError::WidthMismatch {
                op: "repack",
                from_bits: self.format.bits,
                to_bits: target.bits,
            });
        }
        let mut out = PackedVec::zeroed(target, self.len)?;
        for i in 0..self.len {
            let v = self.read_bits(self.format.bit_offset(i));
            out.write_bits(target.bit_offset(i), v);
        }
        Ok(out)
    }

    #[inline]
    fn read_bits(&self, bit: usize) -> u8 {
        let mask = self.format.max_value();
        (self.bytes[bit / 8] >> (bit % 8)) & mask
    }

    #[inline]
    fn write_bits(&mut self, bit: usize, v: u8) {
        let mask = self.format.max_value() << (bit % 8);
        let b = &mut self.bytes[bit / 8];
        *b = (*b & !mask) | (v << (bit % 8));
    }
}

/// The slot permutation of a repack from `src` to `dst` for `len` elements, computed by the
/// algebra: `src.slot_layout ∘ right_inverse(dst.slot_layout)`, mapping a destination slot to
/// the source slot holding the same logical element. `None` when the composition is refused
/// (callers then copy through the closed-form offsets, as [`PackedVec::repack`] does) or the
/// right inverse does not cover every slot.
///
/// # Errors
/// [`PackedError::WidthMismatch`] when the element widths differ; as
/// [`PackedFormat::slot_layout`].
///
/// ```
/// use layout_core::packed::{PackedFormat, repack_map};
/// let m = repack_map(PackedFormat::awq(), PackedFormat::gptq(), 8).unwrap().unwrap();
/// // GPTQ slot k holds logical k, which AWQ keeps in slot [0,4,1,5,2,6,3,7][k]
/// let slots: Vec<i64> = (0..8).map(|k| m.offset(k)).collect();
/// assert_eq!(slots, vec![0, 4, 1, 5, 2, 6, 3, 7]);
/// ```
pub fn repack_map(
    src: PackedFormat,
    dst: PackedFormat,
    len: usize,
) -> Result<Option<DynLayout>, PackedError> {
    if src.bits != dst.bits {
        return Err(PackedError::WidthMismatch {
            op: "repack",
            from_bits: src.bits,
            to_bits: dst.bits,
        });
    }
    let s = src.slot_layout(len)?;
    let d = dst.slot_layout(len)?;
    if s.size() != d.size() {
        return Ok(None);
    }
    let r = d.right_inverse();
    if r.size() != d.size() {
        return Ok(None);
    }
    Ok(s.composition(&r).ok())
}

/// When the slot permutation `map` keeps every word in place and permutes the `e` slots of each
/// word identically, that permutation (`perm[k]` = source slot of destination slot `k` within a
/// word): `logical_divide(map, e:1)` must be `(tile, W:e)` with the tile's image inside
/// `[0, e)`. Decided on the modes of `coalesce(map)` directly (the tests check it against the
/// algebra's `logical_divide`): the leading modes, one split if needed, must cover exactly the
/// `e` indices of a word, and the rest must be the single run `W:e`; a layout of any other form gives `None`
/// (the copy then goes slot by slot).
fn word_permutation(map: &DynLayout, e: usize) -> Option<Vec<u32>> {
    let e64 = i64::try_from(e).ok()?;
    if e64 < 1 || map.size() % e64 != 0 {
        return None;
    }
    let flat = map.coalesce();
    let (sh, st) = (flat.shape_leaves(), flat.stride_leaves());
    // the colexicographic modes covering the first `e` indices (a word), splitting the one `e`
    // falls inside
    let (mut p, mut i, mut split) = (1i64, 0usize, None);
    while p < e64 && i < sh.len() {
        let s = sh[i];
        if p.checked_mul(s)? <= e64 {
            p *= s;
        } else {
            let a = e64 / p;
            if e64 % p != 0 || s % a != 0 {
                return None;
            }
            split = Some((s / a, st[i].checked_mul(a)?));
            p = e64;
        }
        i += 1;
    }
    if p != e64 {
        return None;
    }
    // the rest, the split remainder first: one run of stride `e` (word `w` at slot `e·w`)
    let mut next = e64;
    for (s, d) in split
        .into_iter()
        .chain(sh[i..].iter().copied().zip(st[i..].iter().copied()))
    {
        if s == 1 {
            continue;
        }
        if d != next {
            return None;
        }
        next = d.checked_mul(s)?;
    }
    if next != map.size() {
        return None;
    }
    (0..e64)
        .map(|k| {
            let q = map.offset(k);
            (0..e64).contains(&q).then_some(q as u32)
        })
        .collect()
}

/// [`word_permutation`] by its definition, through the algebra: `logical_divide(map, e:1)` is
/// `(tile, W:e)` with the tile's image inside `[0, e)`.
#[cfg(test)]
fn word_permutation_by_divide(map: &DynLayout, e: usize) -> Option<Vec<u32>> {
    let e64 = i64::try_from(e).ok()?;
    let z = map.logical_divide(&DynLayout::leaf(e64, 1).ok()?).ok()?;
    let tile = z.mode(0).ok()?;
    let rest = z.mode(1).ok()?.coalesce();
    let words = map.size() / e64;
    let rest_ok = if words == 1 {
        rest.size() == 1
    } else {
        rest.shape_leaves() == [words] && rest.stride_leaves() == [e64]
    };
    if !rest_ok || tile.size() != e64 {
        return None;
    }
    (0..e64)
        .map(|k| {
            let p = tile.offset(k);
            (0..e64).contains(&p).then_some(p as u32)
        })
        .collect()
}

/// Apply one per-word slot permutation to every little-endian word of `word_bytes` bytes
/// (1 or 4): destination slot `k` takes source slot `perm[k]`. Dispatches to a loop with the
/// word size and slot count as constants so the compiler can unroll it.
fn permute_words(src: &[u8], dst: &mut [u8], word_bytes: usize, bits: u32, perm: &[u32]) {
    #[inline(always)]
    fn run(src: &[u8], dst: &mut [u8], wb: usize, bits: u32, perm: &[u32]) {
        let mask = (1u32 << bits) - 1;
        for (sw, dw) in src.chunks_exact(wb).zip(dst.chunks_exact_mut(wb)) {
            let mut w = [0u8; 4];
            w[..wb].copy_from_slice(sw);
            let x = u32::from_le_bytes(w);
            let mut y = 0u32;
            for (k, &p) in perm.iter().enumerate() {
                y |= ((x >> (bits * p)) & mask) << (bits * k as u32);
            }
            dw.copy_from_slice(&y.to_le_bytes()[..wb]);
        }
    }
    fn fixed<const WB: usize, const E: usize>(src: &[u8], dst: &mut [u8], bits: u32, p: &[u32]) {
        let mut perm = [0u32; E];
        perm.copy_from_slice(p);
        run(src, dst, WB, bits, &perm);
    }
    // `perm.len()` is the number of slots per word: word bits / element bits
    match (word_bytes, perm.len()) {
        (4, 8) if bits == 4 => {
            // nibbles (AWQ ↔ GPTQ): byte shuffles over whole vectors, the loop for the tail
            let p: [u32; 8] = core::array::from_fn(|k| perm[k]);
            let done = nibbles::permute(nibbles::Isa::detect(), src, dst, &p);
            fixed::<4, 8>(&src[done..], &mut dst[done..], bits, perm)
        }
        (4, 8) => fixed::<4, 8>(src, dst, bits, perm),
        (4, 16) => fixed::<4, 16>(src, dst, bits, perm),
        (4, 32) => fixed::<4, 32>(src, dst, bits, perm),
        (1, 2) => fixed::<1, 2>(src, dst, bits, perm),
        (1, 4) => fixed::<1, 4>(src, dst, bits, perm),
        (1, 8) => fixed::<1, 8>(src, dst, bits, perm),
        // every supported format is one of the above; the generic loop is still correct
        _ => run(src, dst, word_bytes, bits, perm),
    }
}

/// The offsets of a layout in 1-D index order, updated incrementally (an odometer over the
/// flat modes) instead of dividing per index.
struct Odometer<'a> {
    s: &'a [i64],
    d: &'a [i64],
    idx: [i64; crate::MAX_LEAVES],
    off: i64,
}

impl<'a> Odometer<'a> {
    fn new(l: &'a DynLayout) -> Self {
        Odometer {
            s: l.shape_leaves(),
            d: l.stride_leaves(),
            idx: [0; crate::MAX_LEAVES],
            off: 0,
        }
    }

    /// The offset of the current index.
    #[inline]
    fn offset(&self) -> i64 {
        self.off
    }

    /// Step to the next index (after the last one, back to index 0).
    #[inline]
    fn advance(&mut self) {
        for m in 0..self.s.len() {
            // a valid `DynLayout` keeps `(s - 1)·d` and every partial offset in `i64`
            if self.idx[m] + 1 < self.s[m] {
                self.idx[m] += 1;
                self.off += self.d[m];
                return;
            }
            self.off -= (self.s[m] - 1) * self.d[m];
            self.idx[m] = 0;
        }
    }
}

/// Call `f(k, L(k))` for every 1-D index `k` of `l` in order.
fn for_each_offset(l: &DynLayout, mut f: impl FnMut(usize, i64)) {
    let mut o = Odometer::new(l);
    for k in 0..l.size() as usize {
        f(k, o.offset());
        o.advance();
    }
}

#[cfg(test)]
mod tests;
