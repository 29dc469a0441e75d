//! GGUF (ggml) `Q4_0` and `Q8_0` weight blocks, byte-compatible with GGUF files.
//!
//! A block quantises 32 consecutive values of one weight row with one `f16` scale `d`:
//!
//! | type | bytes | layout | value `i` |
//! |---|---|---|---|
//! | [`BlockQ4_0`] | 18 | `f16 d; u8 qs[16]` | `(q_i − 8)·d`, `q_i` the low nibble of `qs[i]` for `i < 16`, the high nibble of `qs[i − 16]` otherwise |
//! | [`BlockQ8_0`] | 34 | `f16 d; i8 qs[32]` | `qs[i]·d` |
//!
//! A [`GgufMatrix`] holds a `k × n` GEMM operand `B` in GGUF's order: the `n` output columns
//! one after the other (GGUF's rows), each as `k / 32` blocks of its `k` values. The quantisers
//! ([`quantize_q4_0`], [`quantize_q8_0`]) follow ggml's reference quantisers
//! (`quantize_row_q4_0_ref`, `quantize_row_q8_0_ref`, also the `gguf` Python package's), and
//! their bytes are checked against vectors that package produced (`tests/quant_gguf.rs`):
//!
//! - `Q4_0`: `max` is the first value of largest magnitude, `d = max / −8`, `id = 1/d` (0 when
//!   `d = 0`), `q = min(15, trunc(x·id + 8.5))` with the product and the sum each rounded to
//!   `f32` (no fused multiply-add);
//! - `Q8_0`: `d = max|x| / 127`, `id = 1/d` (0 when `d = 0`), `q = round(x·id)` (halves away
//!   from zero);
//! - the stored `d` is the `f32` `d` rounded to the nearest `f16` (ties to even); `id` comes
//!   from the unrounded `d`.
//!
//! ```
//! use layout_core::packed::{Q4_0Matrix, quantize_q4_0};
//! // B is 32×2 (row-major): column 0 holds 0, 1, …, 31 · 0.5 − 8, column 1 is all zero
//! let b: Vec<f32> = (0..64).map(|i| if i % 2 == 0 { (i / 2) as f32 * 0.5 - 8.0 } else { 0.0 }).collect();
//! let q = quantize_q4_0(32, 2, &b).unwrap();
//! let bytes = q.to_bytes();
//! assert_eq!(bytes.len(), 2 * 18);
//! let back = Q4_0Matrix::from_bytes(32, 2, &bytes).unwrap();
//! assert_eq!(back, q);
//! assert_eq!(q.get(0, 0), Some(-8.0)); // −8 is the block's max magnitude: exact
//! assert_eq!(q.get(31, 1), Some(0.0));
//! ```

use super::PackedError;
use crate::isa::Isa;
use alloc::vec::Vec;
use half::f16;

/// Values per GGUF `Q4_0` / `Q8_0` block.
pub const QK: usize = 32;

/// A GGUF `Q4_0` block: `struct block_q4_0 { ggml_half d; uint8_t qs[16]; }`, 18 bytes.
///
/// Value `i < 16` is the low nibble of `qs[i]`, value `i + 16` its high nibble; each is
/// `(q − 8)·d`.
///
/// ```
/// use layout_core::packed::BlockQ4_0;
/// use half::f16;
/// let b = BlockQ4_0 { d: f16::from_f32(0.5), qs: [0xf0; 16] };
/// assert_eq!(b.value(0), -4.0); // low nibble 0: (0 − 8)·0.5
/// assert_eq!(b.value(16), 3.5); // high nibble 15: (15 − 8)·0.5
/// assert_eq!(core::mem::size_of::<BlockQ4_0>(), 18);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct BlockQ4_0 {
    /// The scale.
    pub d: f16,
    /// 32 four-bit codes: low nibbles values 0..16, high nibbles values 16..32.
    pub qs: [u8; 16],
}

/// A GGUF `Q8_0` block: `struct block_q8_0 { ggml_half d; int8_t qs[32]; }`, 34 bytes.
///
/// ```
/// use layout_core::packed::BlockQ8_0;
/// use half::f16;
/// let mut b = BlockQ8_0 { d: f16::from_f32(0.25), qs: [0; 32] };
/// b.qs[3] = -127;
/// assert_eq!(b.value(3), -31.75);
/// assert_eq!(core::mem::size_of::<BlockQ8_0>(), 34);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[repr(C)]
pub struct BlockQ8_0 {
    /// The scale.
    pub d: f16,
    /// 32 signed codes.
    pub qs: [i8; 32],
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::BlockQ4_0 {}
    impl Sealed for super::BlockQ8_0 {}
}

/// A GGUF block type of 32 values ([`BlockQ4_0`], [`BlockQ8_0`]): its size, name, quantiser
/// and dequantiser. Sealed: the GEMV and packing kernels know each implementor.
pub trait GgufBlock:
    sealed::Sealed + Copy + core::fmt::Debug + PartialEq + Send + Sync + 'static
{
    /// Bytes per block in a GGUF file.
    const BYTES: usize;
    /// The GGML type name (`"q4_0"`, `"q8_0"`).
    const NAME: &'static str;
    /// The block's scale `d`.
    fn scale(&self) -> f16;
    /// Value `i` (< 32) of the block, dequantised.
    fn value(&self, i: usize) -> f32;
    /// All 32 values, dequantised.
    fn dequantize(&self, out: &mut [f32; QK]) {
        for (i, o) in out.iter_mut().enumerate() {
            *o = self.value(i);
        }
    }
    /// All 32 values, dequantised with the kernels of `isa` (capped at what the CPU has);
    /// the same bits on every level (one rounding of `code·d`).
    fn dequantize_with(&self, isa: Isa, out: &mut [f32; QK]);
    /// The block from its `BYTES` GGUF bytes (`bytes.len() == BYTES`).
    fn read(bytes: &[u8]) -> Self;
    /// Write the block's `BYTES` GGUF bytes into `out` (`out.len() == BYTES`).
    fn write(&self, out: &mut [u8]);
    /// Quantise 32 finite values with ggml's reference rule; `None` when the scale overflows
    /// `f16`.
    fn quantize(x: &[f32; QK]) -> Option<Self>;
}

/// `f32` → `f16` (ties to even), `None` when `|d|` exceeds the largest `f16`, 65504 (the
/// documented bound: `|max| ≤ 8·65504` for `Q4_0`, `≤ 127·65504` for `Q8_0`; a `d` just above
/// it would round down to 65504 or up to infinity).
fn to_f16(d: f32) -> Option<f16> {
    (d.abs() <= f16::MAX.to_f32()).then(|| f16::from_f32(d))
}

/// `x / d` as the reference computes it, `x·(1/d)`, except where `1/d` overflows (`d` below
/// about `2.9e-39`, a subnormal): there the quotient itself, which stays in the code range
/// (`|x| ≤ |max|`), so that no code wraps. Such a block's stored `d` rounds to 0 in `f16`.
#[inline]
fn scaled(x: f32, d: f32, id: f32) -> f32 {
    if id.is_finite() { x * id } else { x / d }
}

impl BlockQ4_0 {
    /// The 4-bit code of value `i` (< 32), 0..=15.
    ///
    /// ```
    /// use layout_core::packed::BlockQ4_0;
    /// let b = BlockQ4_0 { d: half::f16::ONE, qs: [0x3a; 16] };
    /// assert_eq!((b.code(5), b.code(21)), (0xa, 0x3));
    /// ```
    #[inline]
    pub fn code(&self, i: usize) -> u8 {
        let byte = self.qs[i % 16];
        if i < 16 { byte & 0xf } else { byte >> 4 }
    }

    /// Value `i` (< 32): `(code − 8)·d`.
    #[inline]
    pub fn value(&self, i: usize) -> f32 {
        (i32::from(self.code(i)) - 8) as f32 * self.d.to_f32()
    }
}

impl BlockQ8_0 {
    /// Value `i` (< 32): `qs[i]·d`.
    #[inline]
    pub fn value(&self, i: usize) -> f32 {
        f32::from(self.qs[i]) * self.d.to_f32()
    }
}

impl GgufBlock for BlockQ4_0 {
    #[inline]
    fn dequantize_with(&self, isa: Isa, out: &mut [f32; QK]) {
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        if isa >= Isa::Avx2 && isa.is_available() && simd::has_f16c() {
            // SAFETY: AVX2, FMA and F16C are available (the level is, and F16C was checked)
            unsafe { simd::q4_0_block(self, out) };
            return;
        }
        let _ = isa;
        GgufBlock::dequantize(self, out);
    }
    const BYTES: usize = 18;
    const NAME: &'static str = "q4_0";
    fn scale(&self) -> f16 {
        self.d
    }
    fn value(&self, i: usize) -> f32 {
        BlockQ4_0::value(self, i)
    }
    fn read(bytes: &[u8]) -> Self {
        let mut qs = [0u8; 16];
        qs.copy_from_slice(&bytes[2..18]);
        BlockQ4_0 {
            d: f16::from_le_bytes([bytes[0], bytes[1]]),
            qs,
        }
    }
    fn write(&self, out: &mut [u8]) {
        out[..2].copy_from_slice(&self.d.to_le_bytes());
        out[2..18].copy_from_slice(&self.qs);
    }
    fn quantize(x: &[f32; QK]) -> Option<Self> {
        // the first value of largest magnitude (ggml: `amax < |v|`, starting from 0)
        let (mut amax, mut max) = (0.0f32, 0.0f32);
        for &v in x {
            if amax < v.abs() {
                amax = v.abs();
                max = v;
            }
        }
        let d = max / -8.0;
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        let code = |v: f32| {
            // two roundings, as the reference: the product, then the sum; `as` truncates
            // toward zero (the sum is at least 0.5 − ε: |v·id| ≤ 8·(1 + ε))
            let p = scaled(v, d, id);
            let s = p + 8.5;
            (s as u8).min(15)
        };
        let mut qs = [0u8; 16];
        for (j, q) in qs.iter_mut().enumerate() {
            *q = code(x[j]) | (code(x[j + 16]) << 4);
        }
        Some(BlockQ4_0 { d: to_f16(d)?, qs })
    }
}

impl GgufBlock for BlockQ8_0 {
    #[inline]
    fn dequantize_with(&self, isa: Isa, out: &mut [f32; QK]) {
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        if isa >= Isa::Avx2 && isa.is_available() && simd::has_f16c() {
            // SAFETY: AVX2, FMA and F16C are available (the level is, and F16C was checked)
            unsafe { simd::q8_0_block(self, out) };
            return;
        }
        let _ = isa;
        GgufBlock::dequantize(self, out);
    }
    const BYTES: usize = 34;
    const NAME: &'static str = "q8_0";
    fn scale(&self) -> f16 {
        self.d
    }
    fn value(&self, i: usize) -> f32 {
        BlockQ8_0::value(self, i)
    }
    fn read(bytes: &[u8]) -> Self {
        let mut qs = [0i8; 32];
        for (q, &b) in qs.iter_mut().zip(&bytes[2..34]) {
            *q = b as i8;
        }
        BlockQ8_0 {
            d: f16::from_le_bytes([bytes[0], bytes[1]]),
            qs,
        }
    }
    fn write(&self, out: &mut [u8]) {
        out[..2].copy_from_slice(&self.d.to_le_bytes());
        for (o, &q) in out[2..34].iter_mut().zip(&self.qs) {
            *o = q as u8;
        }
    }
    fn quantize(x: &[f32; QK]) -> Option<Self> {
        let amax = x.iter().fold(0.0f32, |a, v| a.max(v.abs()));
        let d = amax / 127.0;
        let id = if d != 0.0 { 1.0 / d } else { 0.0 };
        let mut qs = [0i8; 32];
        for (q, &v) in qs.iter_mut().zip(x) {
            // |v·id| ≤ 127·(1 + ε): rounds (halves away from zero) to −127..=127
            *q = super::quantize::round_half_away(scaled(v, d, id)) as i8;
        }
        Some(BlockQ8_0 { d: to_f16(d)?, qs })
    }
}

/// A `k × n` GEMM operand `B` stored as GGUF blocks: column `j`'s `k` values are the
/// `k / 32` blocks `j·k/32 .. (j+1)·k/32` (a GGUF weight tensor of `n` rows of `k`).
///
/// Built by [`quantize_q4_0`] / [`quantize_q8_0`] (or [`GgufMatrix::quantize`]) from `f32`
/// weights, or adopted from GGUF bytes with [`GgufMatrix::from_bytes`]; multiplied by
/// [`crate::gemm::gemm_quant`]'s decode route reading the blocks in place, and packed for the GEMM by
/// [`QuantizedB::pack_panels`](super::QuantizedB::pack_panels).
///
/// The quantisers follow ggml's reference rule:
/// - `Q4_0`: `max` is the first value of largest magnitude, `d = max / −8`, `id = 1/d` (0 when
///   `d = 0`), `q = min(15, trunc(x·id + 8.5))` with the product and the sum each rounded to
///   `f32` (no fused multiply-add);
/// - `Q8_0`: `d = max|x| / 127`, `id = 1/d` (0 when `d = 0`), `q = round(x·id)` (halves away
///   from zero);
/// - the stored `d` is the `f32` `d` rounded to the nearest `f16` (ties to even); `id` comes
///   from the unrounded `d`.
///
/// ```
/// use layout_core::packed::{Q8_0Matrix, QuantizedB};
/// // GGUF bytes of a 32×1 Q8_0 matrix: d = 1.0 (f16 0x3c00), codes 0..32
/// let mut bytes = vec![0x00, 0x3c];
/// bytes.extend(0u8..32);
/// let q = Q8_0Matrix::from_bytes(32, 1, &bytes).unwrap();
/// assert_eq!(q.dequantize().unwrap(), (0..32).map(|i| i as f32).collect::<Vec<_>>());
/// assert_eq!(q.to_bytes(), bytes);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct GgufMatrix<B: GgufBlock> {
    k: usize,
    n: usize,
    blocks: Vec<B>,
}

/// A `k × n` operand in GGUF `Q4_0` blocks.
pub type Q4_0Matrix = GgufMatrix<BlockQ4_0>;
/// A `k × n` operand in GGUF `Q8_0` blocks.
pub type Q8_0Matrix = GgufMatrix<BlockQ8_0>;

/// `k / 32 · n` blocks, checked: `k` a multiple of 32, the count and its bytes fit.
fn block_count<B: GgufBlock>(op: &'static str, k: usize, n: usize) -> Result<usize, PackedError> {
    if !k.is_multiple_of(QK) {
        return Err(PackedError::KNotBlocked { op, k, block: QK });
    }
    let count = (k / QK).checked_mul(n).ok_or(PackedError::Overflow {
        op,
        what: "the block count k/32·n",
    })?;
    count.checked_mul(B::BYTES).ok_or(PackedError::Overflow {
        op,
        what: "the byte count of the blocks",
    })?;
    Ok(count)
}

fn alloc_blocks<B>(op: &'static str, count: usize) -> Result<Vec<B>, PackedError> {
    let mut v = Vec::new();
    v.try_reserve_exact(count)
        .map_err(|_| PackedError::Allocation {
            op,
            bytes: count.saturating_mul(core::mem::size_of::<B>()),
        })?;
    Ok(v)
}

impl<B: GgufBlock> GgufMatrix<B> {
    /// Adopt GGUF bytes: `n` columns (GGUF rows) of `k / 32` blocks of `B::BYTES` bytes.
    ///
    /// # Errors
    /// [`PackedError::KNotBlocked`] unless 32 divides `k`; [`PackedError::BufferLength`]
    /// unless `bytes` holds exactly `k/32 · n · B::BYTES` bytes; [`PackedError::Overflow`],
    /// [`PackedError::Allocation`] for counts that do not fit.
    ///
    /// ```
    /// use layout_core::packed::Q4_0Matrix;
    /// assert_eq!(
    ///     Q4_0Matrix::from_bytes(64, 3, &[0; 100]).unwrap_err().to_string(),
    ///     "packed q4_0 from bytes: bytes has length 100, expected 108"
    /// );
    /// ```
    pub fn from_bytes(k: usize, n: usize, bytes: &[u8]) -> Result<Self, PackedError> {
        let op = if B::BYTES == 18 {
            "q4_0 from bytes"
        } else {
            "q8_0 from bytes"
        };
        let count = block_count::<B>(op, k, n)?;
        let expected = count * B::BYTES;
        if bytes.len() != expected {
            return Err(PackedError::BufferLength {
                op,
                what: "bytes",
                expected,
                got: bytes.len(),
            });
        }
        let mut blocks = alloc_blocks(op, count)?;
        blocks.extend(bytes.chunks_exact(B::BYTES).map(B::read));
        Ok(GgufMatrix { k, n, blocks })
    }

    /// The GGUF bytes: the blocks in order, `k/32 · n · B::BYTES` bytes.
    ///
    /// ```
    /// use layout_core::packed::quantize_q8_0;
    /// assert_eq!(quantize_q8_0(64, 2, &[1.0; 128]).unwrap().to_bytes().len(), 4 * 34);
    /// ```
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = alloc::vec![0u8; self.blocks.len() * B::BYTES];
        for (b, o) in self.blocks.iter().zip(out.chunks_exact_mut(B::BYTES)) {
            b.write(o);
        }
        out
    }

    /// Quantise the row-major `k × n` matrix `b` (`b[p·n + j]` is `B[p][j]`) with ggml's
    /// reference rule (see [`GgufMatrix`]).
    ///
    /// # Errors
    /// [`PackedError::KNotBlocked`] unless 32 divides `k` (GGUF blocks every column's `k`
    /// values in 32s); [`PackedError::BufferLength`] unless `b.len() == k·n`;
    /// [`PackedError::NotFinite`] naming the first NaN or infinite weight;
    /// [`PackedError::ScaleOverflow`] when a block's scale exceeds `f16` (`|max| > 8·65504`
    /// for `Q4_0`, `> 127·65504` for `Q8_0`).
    ///
    /// ```
    /// use layout_core::packed::Q4_0Matrix;
    /// assert_eq!(
    ///     Q4_0Matrix::quantize(48, 1, &[0.0; 48]).unwrap_err().to_string(),
    ///     "packed quantize q4_0: k = 48 is not a multiple of the block size 32 (the format \
    ///      stores every column's k values in whole blocks of 32)"
    /// );
    /// ```
    pub fn quantize(k: usize, n: usize, b: &[f32]) -> Result<Self, PackedError> {
        let op = if B::BYTES == 18 {
            "quantize q4_0"
        } else {
            "quantize q8_0"
        };
        let count = block_count::<B>(op, k, n)?;
        let expected = k
            .checked_mul(n)
            .ok_or(PackedError::Overflow { op, what: "k·n" })?;
        if b.len() != expected {
            return Err(PackedError::BufferLength {
                op,
                what: "weights",
                expected,
                got: b.len(),
            });
        }
        if let Some(i) = b.iter().position(|v| !v.is_finite()) {
            return Err(PackedError::NotFinite {
                op,
                row: i / n,
                col: i % n,
            });
        }
        let mut blocks = alloc_blocks(op, count)?;
        let mut x = [0.0f32; QK];
        for j in 0..n {
            for kb in 0..k / QK {
                for (i, v) in x.iter_mut().enumerate() {
                    *v = b[(kb * QK + i) * n + j];
                }
                blocks.push(B::quantize(&x).ok_or(PackedError::ScaleOverflow {
                    op,
                    row: kb * QK,
                    col: j,
                })?);
            }
        }
        Ok(GgufMatrix { k, n, blocks })
    }

    /// `k`, the rows of `B` (the input dimension).
    pub fn k(&self) -> usize {
        self.k
    }

    /// `n`, the columns of `B` (the output dimension).
    pub fn n(&self) -> usize {
        self.n
    }

    /// Every block, column after column.
    pub fn blocks(&self) -> &[B] {
        &self.blocks
    }

    /// The `k / 32` blocks of column `j` (`None` past `n`).
    ///
    /// ```
    /// use layout_core::packed::quantize_q8_0;
    /// let q = quantize_q8_0(64, 3, &[0.5; 192]).unwrap();
    /// assert_eq!(q.column(2).unwrap().len(), 2);
    /// assert!(q.column(3).is_none());
    /// ```
    pub fn column(&self, j: usize) -> Option<&[B]> {
        let kb = self.k / QK;
        (j < self.n).then(|| &self.blocks[j * kb..(j + 1) * kb])
    }

    /// `B[p][j]` dequantised (`None` outside `k × n`).
    pub fn get(&self, p: usize, j: usize) -> Option<f32> {
        (p < self.k && j < self.n).then(|| self.blocks[j * (self.k / QK) + p / QK].value(p % QK))
    }
}

/// Quantise the row-major `k × n` matrix `b` to GGUF `Q4_0` blocks (see
/// [`GgufMatrix::quantize`]).
///
/// # Errors
/// As [`GgufMatrix::quantize`].
///
/// ```
/// use layout_core::packed::quantize_q4_0;
/// // integers in −8..=7 times a power of two with −8 in every block quantise exactly
/// let b: Vec<f32> = (0..64).map(|i| ((i % 16) as f32 - 8.0) * 0.25).collect();
/// let q = quantize_q4_0(64, 1, &b).unwrap();
/// for p in 0..64 {
///     assert_eq!(q.get(p, 0), Some(b[p]));
/// }
/// ```
pub fn quantize_q4_0(k: usize, n: usize, b: &[f32]) -> Result<Q4_0Matrix, PackedError> {
    GgufMatrix::quantize(k, n, b)
}

/// Quantise the row-major `k × n` matrix `b` to GGUF `Q8_0` blocks (see
/// [`GgufMatrix::quantize`]).
///
/// # Errors
/// As [`GgufMatrix::quantize`].
///
/// ```
/// use layout_core::packed::quantize_q8_0;
/// let b: Vec<f32> = (0..32).map(|i| i as f32 - 16.0).collect();
/// let q = quantize_q8_0(32, 1, &b).unwrap();
/// let err = (0..32).map(|p| (q.get(p, 0).unwrap() - b[p]).abs()).fold(0.0, f32::max);
/// assert!(err <= 16.0 / 127.0 / 2.0 * 1.01);
/// ```
pub fn quantize_q8_0(k: usize, n: usize, b: &[f32]) -> Result<Q8_0Matrix, PackedError> {
    GgufMatrix::quantize(k, n, b)
}

impl<B: GgufBlock> GgufMatrix<B> {
    /// `pack_panels` with the block dequantiser of `isa`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn pack_panels_isa(
        &self,
        isa: Isa,
        dst: &mut [f32],
        j0: usize,
        p0: usize,
        len: usize,
        kc: usize,
        nr: usize,
    ) {
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        if isa >= Isa::Avx2 && isa.is_available() && simd::has_f16c() {
            let any: &dyn core::any::Any = self;
            if let Some(q) = any.downcast_ref::<Q4_0Matrix>() {
                // SAFETY: AVX2, FMA and F16C are available (checked just above)
                unsafe { simd::pack_q4_0(q, dst, j0, p0, len, kc, nr) };
                return;
            }
            if let Some(q) = any.downcast_ref::<Q8_0Matrix>() {
                // SAFETY: as above
                unsafe { simd::pack_q8_0(q, dst, j0, p0, len, kc, nr) };
                return;
            }
        }
        let _ = isa;
        pack_with(self, dst, j0, p0, len, kc, nr, |b, out| b.dequantize(out));
    }
}

/// The body of `pack_panels`: per 32-row block of k, the `nr` columns' blocks dequantised by
/// `dq` into a tile, then written row by row into the panel (`nr` contiguous floats per k step).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn pack_with<B: GgufBlock>(
    m: &GgufMatrix<B>,
    dst: &mut [f32],
    j0: usize,
    p0: usize,
    len: usize,
    kc: usize,
    nr: usize,
    mut dq: impl FnMut(&B, &mut [f32; QK]),
) {
    let kb = m.k / QK;
    let mut tile = alloc::vec![[0.0f32; QK]; nr];
    for t in 0..len.div_ceil(nr) {
        let panel = &mut dst[t * nr * kc..(t + 1) * nr * kc];
        let width = nr.min(len - t * nr);
        let jt = j0 + t * nr;
        let mut p = 0;
        while p < kc {
            let g = p0 + p;
            let (b, off) = (g / QK, g % QK);
            let take = (QK - off).min(kc - p);
            for (i, tl) in tile[..width].iter_mut().enumerate() {
                dq(&m.blocks[(jt + i) * kb + b], tl);
            }
            for q in 0..take {
                let row = &mut panel[(p + q) * nr..(p + q + 1) * nr];
                for (i, v) in row[..width].iter_mut().enumerate() {
                    *v = tile[i][off + q];
                }
                row[width..].fill(0.0);
            }
            p += take;
        }
    }
}

/// The AVX2 block kernels (shared with the GEMV).
#[cfg(all(target_arch = "x86_64", feature = "std"))]
pub(crate) mod simd {
    use super::{BlockQ4_0, BlockQ8_0, Q4_0Matrix, Q8_0Matrix, QK, pack_with};
    use core::arch::x86_64::*;

    /// `pack_panels` of a `Q4_0` matrix with the AVX2 block dequantiser inlined.
    #[target_feature(enable = "avx2,fma,f16c")]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn pack_q4_0(
        m: &Q4_0Matrix,
        dst: &mut [f32],
        j0: usize,
        p0: usize,
        len: usize,
        kc: usize,
        nr: usize,
    ) {
        pack_with(m, dst, j0, p0, len, kc, nr, |b, out| q4_0_block(b, out));
    }

    /// `pack_panels` of a `Q8_0` matrix with the AVX2 block dequantiser inlined.
    #[target_feature(enable = "avx2,fma,f16c")]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn pack_q8_0(
        m: &Q8_0Matrix,
        dst: &mut [f32],
        j0: usize,
        p0: usize,
        len: usize,
        kc: usize,
        nr: usize,
    ) {
        pack_with(m, dst, j0, p0, len, kc, nr, |b, out| q8_0_block(b, out));
    }

    /// Whether the CPU converts `f16` in hardware (every AVX2 CPU does; checked once).
    pub(crate) fn has_f16c() -> bool {
        crate::isa::has_f16c()
    }

    /// The scale of a block as `f32` in every lane.
    ///
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(crate) fn scale8(d: half::f16) -> __m256 {
        let h = _mm_cvtsi32_si128(i32::from(d.to_bits()));
        _mm256_broadcastss_ps(_mm_cvtph_ps(h))
    }

    /// The 32 codes of a `Q4_0` block minus 8, as four vectors of 8 `f32` (values 0..8,
    /// 8..16, 16..24, 24..32).
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(crate) fn q4_0_codes(b: &BlockQ4_0) -> [__m256; 4] {
        // SAFETY: `qs` is 16 readable bytes; unaligned load
        let bytes = unsafe { _mm_loadu_si128(b.qs.as_ptr().cast()) };
        let mask = _mm_set1_epi8(0x0f);
        let eight = _mm_set1_epi8(8);
        let lo = _mm_sub_epi8(_mm_and_si128(bytes, mask), eight);
        let hi = _mm_sub_epi8(_mm_and_si128(_mm_srli_epi16(bytes, 4), mask), eight);
        let cvt = |v: __m128i| _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v));
        [
            cvt(lo),
            cvt(_mm_srli_si128(lo, 8)),
            cvt(hi),
            cvt(_mm_srli_si128(hi, 8)),
        ]
    }

    /// The 32 codes of a `Q8_0` block as four vectors of 8 `f32`.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(crate) fn q8_0_codes(b: &BlockQ8_0) -> [__m256; 4] {
        let p = b.qs.as_ptr();
        // SAFETY: `qs` is 32 readable bytes: four 8-byte unaligned loads at 0, 8, 16, 24
        let ld = |o: usize| unsafe { _mm_loadl_epi64(p.add(o).cast()) };
        let cvt = |v: __m128i| _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v));
        [cvt(ld(0)), cvt(ld(8)), cvt(ld(16)), cvt(ld(24))]
    }

    /// Dequantise a `Q4_0` block (`(code − 8)·d`, one rounding: the same bits as the scalar
    /// path).
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(crate) fn q4_0_block(b: &BlockQ4_0, out: &mut [f32; QK]) {
        let d = scale8(b.d);
        let v = q4_0_codes(b);
        for (i, v) in v.iter().enumerate() {
            // SAFETY: out holds 32 floats; lanes 8i..8i+8
            unsafe { _mm256_storeu_ps(out.as_mut_ptr().add(8 * i), _mm256_mul_ps(*v, d)) };
        }
    }

    /// Dequantise a `Q8_0` block.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(crate) fn q8_0_block(b: &BlockQ8_0, out: &mut [f32; QK]) {
        let d = scale8(b.d);
        let v = q8_0_codes(b);
        for (i, v) in v.iter().enumerate() {
            // SAFETY: out holds 32 floats; lanes 8i..8i+8
            unsafe { _mm256_storeu_ps(out.as_mut_ptr().add(8 * i), _mm256_mul_ps(*v, d)) };
        }
    }
}
