//! Quantised weight matrices as GEMM `B` operands: the common trait [`QuantizedB`], the
//! group-quantised 4-bit matrix [`Group4Matrix`] (GPTQ/AWQ) and its quantiser.

use super::gguf::{GgufBlock, GgufMatrix, Q4_0Matrix, Q8_0Matrix};
use super::{GroupQuant, PackedError, PackedFormat, PackedVec};
use crate::isa::Isa;
use alloc::vec::Vec;

/// A quantised `k × n` weight matrix usable as the `B` operand of a GEMM without materialising
/// it: its blocks are dequantised into the GEMM's packed micro-panels.
///
/// ```
/// use layout::packed::{QuantizedB, quantize_q8_0};
/// let b: Vec<f32> = (0..64 * 3).map(|i| (i % 7) as f32 - 3.0).collect();
/// let q = quantize_q8_0(64, 3, &b).unwrap();
/// // two panels of width 2 (the second padded with a zero column), k steps 5..9
/// let mut dst = vec![f32::NAN; 2 * 2 * 4];
/// q.pack_panels(&mut dst, 0, 5, 3, 4, 2);
/// for t in 0..2 {
///     for p in 0..4 {
///         for i in 0..2 {
///             let c = t * 2 + i;
///             let want = if c < 3 { q.get(5 + p, c).unwrap() } else { 0.0 };
///             assert_eq!(dst[t * 2 * 4 + p * 2 + i], want);
///         }
///     }
/// }
/// ```
pub trait QuantizedB {
    /// `k`, the rows of `B` (the input dimension).
    fn rows(&self) -> usize;

    /// `n`, the columns of `B` (the output dimension).
    fn cols(&self) -> usize;

    /// The bytes of the stored weights, scales and zero points (what a GEMV streams).
    fn weight_bytes(&self) -> usize;

    /// Write columns `j0 .. j0+len` and k steps `p0 .. p0+kc` of the dequantised `B` as
    /// `⌈len/nr⌉` micro-panels: `dst[t·nr·kc + p·nr + i] = B[p0+p][j0+t·nr+i]`, and `0.0` for
    /// the columns of the last panel past `len`. Uses [`Isa::selected`].
    ///
    /// # Panics
    /// When the ranges leave the matrix, `nr == 0` or `dst.len() < ⌈len/nr⌉·nr·kc` (the GEMM
    /// engine guarantees all three).
    fn pack_panels(&self, dst: &mut [f32], j0: usize, p0: usize, len: usize, kc: usize, nr: usize) {
        self.pack_panels_with(Isa::selected(), dst, j0, p0, len, kc, nr);
    }

    /// [`QuantizedB::pack_panels`] with the kernels of `isa` (an unavailable level runs the
    /// best available below it). Every level writes the same bits.
    ///
    /// # Panics
    /// As [`QuantizedB::pack_panels`].
    #[allow(clippy::too_many_arguments)]
    fn pack_panels_with(
        &self,
        isa: Isa,
        dst: &mut [f32],
        j0: usize,
        p0: usize,
        len: usize,
        kc: usize,
        nr: usize,
    );

    /// The whole `B` dequantised, row-major `k × n`.
    ///
    /// # Errors
    /// [`PackedError::Allocation`] when the `k·n` floats cannot be allocated.
    fn dequantize(&self) -> Result<Vec<f32>, PackedError> {
        let (k, n) = (self.rows(), self.cols());
        let total = k * n;
        let mut out = Vec::new();
        out.try_reserve_exact(total)
            .map_err(|_| PackedError::Allocation {
                op: "dequantize",
                bytes: total.saturating_mul(4),
            })?;
        out.resize(total, 0.0);
        // tiles of 16 columns × 256 rows through a small panel: a column-blocked source (GGUF)
        // is read in blocks and the row-major output written in runs of 16
        const TN: usize = 16;
        const TK: usize = 256;
        let mut tile = [0.0f32; TN * TK];
        for j0 in (0..n).step_by(TN) {
            let w = TN.min(n - j0);
            for p0 in (0..k).step_by(TK) {
                let kc = TK.min(k - p0);
                self.pack_panels(&mut tile, j0, p0, w, kc, TN);
                for p in 0..kc {
                    out[(p0 + p) * n + j0..(p0 + p) * n + j0 + w]
                        .copy_from_slice(&tile[p * TN..p * TN + w]);
                }
            }
        }
        Ok(out)
    }
}

/// `v` rounded to the nearest integer, halves away from zero (C's `roundf`), for
/// `|v| < 2^23` (`core` has no `f32::round` without `std`).
pub(crate) fn round_half_away(v: f32) -> f32 {
    let i = v as i32; // toward zero
    let f = v - i as f32; // exact: |v| < 2^23
    let r = if f >= 0.5 {
        i + 1
    } else if f <= -0.5 {
        i - 1
    } else {
        i
    };
    r as f32
}

/// `v` rounded to the nearest integer, halves to even (PyTorch's `round`), for `|v| < 2^23`.
pub(crate) fn round_half_even(v: f32) -> f32 {
    let i = v as i32; // toward zero
    let f = v - i as f32; // exact: |v| < 2^23
    let away = if f > 0.0 { i + 1 } else { i - 1 };
    let r = if f.abs() > 0.5 || (f.abs() == 0.5 && i % 2 != 0) {
        away
    } else {
        i
    };
    r as f32
}

/// The level the block kernels run: `isa` capped at what this CPU has.
pub(crate) fn usable(isa: Isa) -> Isa {
    if isa.is_available() {
        isa
    } else {
        Isa::available()
            .filter(|&i| i <= isa)
            .last()
            .unwrap_or(Isa::Portable)
    }
}

impl<B: GgufBlock> QuantizedB for GgufMatrix<B> {
    fn rows(&self) -> usize {
        self.k()
    }
    fn cols(&self) -> usize {
        self.n()
    }
    fn weight_bytes(&self) -> usize {
        self.blocks().len() * B::BYTES
    }
    fn pack_panels_with(
        &self,
        isa: Isa,
        dst: &mut [f32],
        j0: usize,
        p0: usize,
        len: usize,
        kc: usize,
        nr: usize,
    ) {
        self.pack_panels_isa(usable(isa), dst, j0, p0, len, kc, nr);
    }
}

/// Which stored order a [`Group4Matrix`] has, for the fast paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Group4Format {
    /// AWQ: `qweight [K, N/8]` packed along `N` in [`AWQ_ORDER`](super::AWQ_ORDER), zero points
    /// stored as is ([`GroupQuant::awq`], [`PackedFormat::awq`]).
    Awq,
    /// GPTQ: `qweight [K/8, N]` packed along `K`, zero points stored as `zero − 1`
    /// ([`GroupQuant::gptq`], [`PackedFormat::gptq`]).
    Gptq,
}

/// Which element access a [`Group4Matrix`] uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// AWQ with `N` a multiple of 8: row `p`'s columns `8c..8c+8` are word `p·N/8 + c`.
    Awq,
    /// GPTQ: rows `8r..8r+8` of column `j` are word `r·N + j`, nibble `p % 8`.
    Gptq,
    /// Anything else: the data layout's offset, then the format's bit offset.
    General,
}

/// The nibble shift of AWQ column `c % 8` in its word: slot `s` holds column `AWQ_ORDER[s]`.
pub(crate) const AWQ_SHIFT: [u32; 8] = [0, 16, 4, 20, 8, 24, 12, 28];

/// A group-quantised 4-bit `K × N` weight matrix (GPTQ/AWQ): packed codes, one `f32` scale and
/// one 4-bit zero point per group of rows and column, described by a [`GroupQuant`].
///
/// `B[p][j] = (q(p, j) − (z(g, j) + zero_offset)) · s(g, j)` with `g = p / group`, exactly as
/// [`dequantize`](super::dequantize) reads it: the difference in integers, rounded once to
/// `f32`, times the scale (for every zero offset, `i32::MIN ..= i32::MAX`).
///
/// ```
/// use layout::packed::{Group4Format, QuantizedB, dequantize, quantize_group4};
/// let (k, n) = (64, 16);
/// let b: Vec<f32> = (0..k * n).map(|i| ((i * 37 % 101) as f32 - 50.0) / 25.0).collect();
/// let q = quantize_group4(k, n, &b, 32, Group4Format::Gptq).unwrap();
/// // the packed form is what `dequantize` reads
/// let d = dequantize(q.weights(), q.scales(), q.zeros(), q.quant()).unwrap();
/// assert_eq!(d, q.dequantize().unwrap());
/// for p in 0..k {
///     for j in 0..n {
///         let s = q.scales()[(p / 32) * n + j];
///         assert!((d[p * n + j] - b[p * n + j]).abs() <= s * 0.5001);
///     }
/// }
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Group4Matrix {
    quant: GroupQuant,
    weights: PackedVec,
    scales: Vec<f32>,
    zeros: PackedVec,
    access: Access,
    /// Whether products may factor the scale out of a group's sum (`s·Σ x·(q − z)`): every
    /// zero point exact in `f32` and every dequantised weight finite (`|s|·(|offset| + 15)`
    /// finite). Else a ±∞ weight could vanish into a finite product: the decode kernels then
    /// sum `x·w` with each weight dequantised, as the blocked GEMM does.
    factored: bool,
}

impl Group4Matrix {
    /// Adopt packed codes, scales and zero points (e.g. a checkpoint's `qweight`, `scales`,
    /// `qzeros`) described by `quant`.
    ///
    /// # Errors
    /// [`PackedError::UnsupportedBits`] unless the weights and zeros are 4-bit;
    /// [`PackedError::LayoutOutOfRange`] when the data layout reaches past `weights`;
    /// [`PackedError::BufferLength`] unless `scales` and `zeros` hold `groups · N` entries.
    ///
    /// ```
    /// use layout::packed::{Group4Matrix, GroupQuant, PackedFormat, PackedVec};
    /// let q = GroupQuant::awq(2, 8, 2).unwrap();
    /// let w = PackedVec::from_values(PackedFormat::awq(), &[3; 16]).unwrap();
    /// let z = PackedVec::from_values(PackedFormat::awq(), &[1; 8]).unwrap();
    /// let m = Group4Matrix::new(q, w, vec![0.5; 8], z).unwrap();
    /// assert_eq!(m.get(1, 7), Some(1.0)); // (3 − 1)·0.5
    /// ```
    pub fn new(
        quant: GroupQuant,
        weights: PackedVec,
        scales: Vec<f32>,
        zeros: PackedVec,
    ) -> Result<Self, PackedError> {
        const OP: &str = "group4 matrix";
        for v in [&weights, &zeros] {
            if v.format().bits() != 4 {
                return Err(PackedError::UnsupportedBits {
                    op: OP,
                    bits: v.format().bits(),
                });
            }
        }
        let (lo, hi) = quant.data_layout().offset_range();
        if lo < 0 || hi >= weights.len() as i64 {
            return Err(PackedError::LayoutOutOfRange {
                op: OP,
                lo,
                hi,
                len: weights.len(),
            });
        }
        // rows, cols, groups: positive, their product fits (the layout's size)
        let (k, n, g) = (quant.rows(), quant.cols(), quant.group());
        let metas = (k / g) * n;
        for (what, len) in [("scales", scales.len()), ("zeros", zeros.len())] {
            if len != metas {
                return Err(PackedError::BufferLength {
                    op: OP,
                    what,
                    expected: metas,
                    got: len,
                });
            }
        }
        let access = if weights.format() == PackedFormat::awq()
            && n.is_multiple_of(8)
            && GroupQuant::awq(k, n, g).ok() == Some(quant)
        {
            Access::Awq
        } else if weights.format() == PackedFormat::gptq()
            && GroupQuant::gptq(k, n, g).ok() == Some(quant)
        {
            Access::Gptq
        } else {
            Access::General
        };
        let bound = (i64::from(quant.zero_offset()).abs() + 15) as f32;
        let factored = GroupQuant::zero_exact_for(quant.zero_offset())
            && scales.iter().all(|s| (s.abs() * bound).is_finite());
        Ok(Group4Matrix {
            quant,
            weights,
            scales,
            zeros,
            access,
            factored,
        })
    }

    /// The quantisation description (layouts, group, zero offset).
    pub fn quant(&self) -> &GroupQuant {
        &self.quant
    }

    /// The packed 4-bit codes.
    pub fn weights(&self) -> &PackedVec {
        &self.weights
    }

    /// The scales, `groups · N`, group-major.
    pub fn scales(&self) -> &[f32] {
        &self.scales
    }

    /// The packed 4-bit zero points (stored values, before the zero offset), `groups · N`.
    pub fn zeros(&self) -> &PackedVec {
        &self.zeros
    }

    #[cfg(feature = "std")]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn access(&self) -> Access {
        self.access
    }

    /// `K`.
    pub fn k(&self) -> usize {
        self.quant.rows()
    }

    /// `N`.
    pub fn n(&self) -> usize {
        self.quant.cols()
    }

    /// The group size.
    pub fn group(&self) -> usize {
        self.quant.group()
    }

    /// The code `q(p, j)` (0..=15); `p < K`, `j < N`.
    #[inline]
    pub(crate) fn code(&self, p: usize, j: usize) -> u8 {
        let n = self.n();
        let bytes = self.weights.as_bytes();
        let bit = match self.access {
            Access::Awq => 32 * ((p * n + j) / 8) + AWQ_SHIFT[j % 8] as usize,
            Access::Gptq => 32 * ((p / 8) * n + j) + 4 * (p % 8),
            Access::General => {
                let i = self.quant.data_layout().offset((p + self.k() * j) as i64) as usize;
                self.weights.format().bit_offset(i)
            }
        };
        (bytes[bit / 8] >> (bit % 8)) & 0xf
    }

    /// The zero point of group `g`, column `j`, with the zero offset added (in `i64`: the
    /// offset is any `i32`).
    #[inline]
    pub(crate) fn zero_i64(&self, g: usize, j: usize) -> i64 {
        let m = g * self.n() + j;
        let bit = self.zeros.format().bit_offset(m);
        let z = (self.zeros.as_bytes()[bit / 8] >> (bit % 8)) & 0xf;
        i64::from(z) + i64::from(self.quant.zero_offset())
    }

    /// The zero point of group `g`, column `j`, with the zero offset added, as `f32`: exact,
    /// and `code − zero` exact in `f32`, when [`Group4Matrix::zero_exact`].
    #[cfg(feature = "std")]
    #[inline]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn zero(&self, g: usize, j: usize) -> f32 {
        self.zero_i64(g, j) as f32
    }

    /// Whether every zero point and every `code − zero` is an integer of at most 2^24 in
    /// magnitude, exact in `f32` (`|zero_offset| + 15 ≤ 2^24`): then `f32(code) − f32(zero)`
    /// is the one rounding of `dequantize`, `f32(code − zero)`.
    #[inline]
    pub(crate) fn zero_exact(&self) -> bool {
        GroupQuant::zero_exact_for(self.quant.zero_offset())
    }

    /// Whether the decode kernels may factor each group's scale out of its sum (see the
    /// field): exact zero points and finite dequantised weights.
    #[cfg(feature = "std")]
    #[inline]
    pub(crate) fn factored(&self) -> bool {
        self.factored
    }

    /// `code − zero` rounded once to `f32`, as [`dequantize`](super::dequantize) computes it.
    #[inline]
    pub(crate) fn level(code: u8, zero: i64) -> f32 {
        // |code − zero| < 2^32: no wrap in i64; the one rounding is the conversion
        (i64::from(code) - zero) as f32
    }

    /// `B[p][j]` dequantised (`None` outside `K × N`): `f32(code − zero)·scale`, bit for bit
    /// what [`dequantize`](super::dequantize) gives.
    pub fn get(&self, p: usize, j: usize) -> Option<f32> {
        if p >= self.k() || j >= self.n() {
            return None;
        }
        let g = p / self.group();
        let level = Self::level(self.code(p, j), self.zero_i64(g, j));
        Some(level * self.scales[g * self.n() + j])
    }
}

impl QuantizedB for Group4Matrix {
    fn rows(&self) -> usize {
        self.k()
    }
    fn cols(&self) -> usize {
        self.n()
    }
    fn weight_bytes(&self) -> usize {
        self.weights.as_bytes().len() + self.zeros.as_bytes().len() + 4 * self.scales.len()
    }
    fn pack_panels_with(
        &self,
        _isa: Isa,
        dst: &mut [f32],
        j0: usize,
        p0: usize,
        len: usize,
        kc: usize,
        nr: usize,
    ) {
        let n = self.n();
        let bytes = self.weights.as_bytes();
        // the code of (p, j), its arithmetic specialised per storage order
        match self.access {
            Access::Awq => self.pack_body(dst, j0, p0, len, kc, nr, |p, j| {
                let bit = 32 * ((p * n + j) / 8) + AWQ_SHIFT[j % 8] as usize;
                (bytes[bit / 8] >> (bit % 8)) & 0xf
            }),
            Access::Gptq => self.pack_body(dst, j0, p0, len, kc, nr, |p, j| {
                let byte = 4 * ((p / 8) * n + j) + (p % 8) / 2;
                (bytes[byte] >> (4 * (p % 2))) & 0xf
            }),
            Access::General => self.pack_body(dst, j0, p0, len, kc, nr, |p, j| self.code(p, j)),
        }
    }
}

impl Group4Matrix {
    /// The body of `pack_panels`: per panel and group, the `nr` zero points and scales once,
    /// then `(code − z)·s` row by row.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn pack_body(
        &self,
        dst: &mut [f32],
        j0: usize,
        p0: usize,
        len: usize,
        kc: usize,
        nr: usize,
        code: impl Fn(usize, usize) -> u8,
    ) {
        let (n, group) = (self.n(), self.group());
        let exact = self.zero_exact();
        let mut zs = alloc::vec![0.0f32; 2 * nr];
        let (zf, sf) = zs.split_at_mut(nr);
        let mut zi = alloc::vec![0i64; nr];
        for t in 0..len.div_ceil(nr) {
            let panel = &mut dst[t * nr * kc..(t + 1) * nr * kc];
            let width = nr.min(len - t * nr);
            let jt = j0 + t * nr;
            let mut p = 0;
            while p < kc {
                let g = (p0 + p) / group;
                let end = ((g + 1) * group - p0).min(kc);
                for i in 0..width {
                    zi[i] = self.zero_i64(g, jt + i);
                    zf[i] = zi[i] as f32;
                    sf[i] = self.scales[g * n + jt + i];
                }
                for pp in p..end {
                    let row = &mut panel[pp * nr..(pp + 1) * nr];
                    if exact {
                        // `f32(q) − f32(z)` is exact here: dequantize's one rounding
                        for (i, v) in row[..width].iter_mut().enumerate() {
                            let q = f32::from(code(p0 + pp, jt + i));
                            *v = (q - zf[i]) * sf[i];
                        }
                    } else {
                        for (i, v) in row[..width].iter_mut().enumerate() {
                            *v = Self::level(code(p0 + pp, jt + i), zi[i]) * sf[i];
                        }
                    }
                    row[width..].fill(0.0);
                }
                p = end;
            }
        }
    }
}

/// Quantise the row-major `k × n` matrix `b` to 4-bit codes in groups of `group` rows per
/// column, asymmetric min/max, in the AWQ or GPTQ storage order.
///
/// For each group and column, with `lo = min(min x, 0)` and `hi = max(max x, 0)` (the range
/// always holds 0, so the zero point is an integer in range): `s = (hi − lo)/15`,
/// `z = round(−lo/s)`, `q = clamp(round(x/s) + z, 0, 15)` (rounding halves to even, as
/// PyTorch's `round` in AWQ's reference). GPTQ stores `z − 1`, so `z = 0` (a group with no
/// value below `−s/2`) is not storable: such groups take `z = 1`, `s = hi/14`. An all-zero
/// group has `s = 1` and codes equal to its zero point. Every weight is then within `s/2` of
/// its dequantised value (up to `f32` rounding).
///
/// # Errors
/// [`PackedError::BufferLength`] unless `b.len() == k·n`; [`PackedError::NotFinite`] naming
/// the first NaN or infinite weight; as [`GroupQuant::awq`] / [`GroupQuant::gptq`] (the group
/// must divide `k`; GPTQ needs `8 | k`); [`PackedError::ScaleOverflow`] when `hi − lo`
/// overflows `f32`.
///
/// ```
/// use layout::packed::{Group4Format, quantize_group4};
/// // integer weights in −4..=11 with both ends in every group quantise exactly (s = 1)
/// let b: Vec<f32> = (0..16 * 8).map(|i| ((i / 8) % 16) as f32 - 4.0).collect();
/// let q = quantize_group4(16, 8, &b, 16, Group4Format::Awq).unwrap();
/// assert_eq!(q.scales(), &[1.0; 8]);
/// for p in 0..16 {
///     assert_eq!(q.get(p, 3), Some(b[p * 8 + 3]));
/// }
/// ```
pub fn quantize_group4(
    k: usize,
    n: usize,
    b: &[f32],
    group: usize,
    format: Group4Format,
) -> Result<Group4Matrix, PackedError> {
    const OP: &str = "quantize group4";
    let expected = k.checked_mul(n).ok_or(PackedError::Overflow {
        op: OP,
        what: "k·n",
    })?;
    if b.len() != expected {
        return Err(PackedError::BufferLength {
            op: OP,
            what: "weights",
            expected,
            got: b.len(),
        });
    }
    if let Some(i) = b.iter().position(|v| !v.is_finite()) {
        return Err(PackedError::NotFinite {
            op: OP,
            row: i / n,
            col: i % n,
        });
    }
    let (quant, wf, zmin) = match format {
        Group4Format::Awq => (GroupQuant::awq(k, n, group)?, PackedFormat::awq(), 0.0f32),
        Group4Format::Gptq => (GroupQuant::gptq(k, n, group)?, PackedFormat::gptq(), 1.0f32),
    };
    let groups = k / group;
    let mut weights = PackedVec::zeroed(wf, expected)?;
    let mut zeros = PackedVec::zeroed(wf, groups * n)?;
    let mut scales = Vec::new();
    scales
        .try_reserve_exact(groups * n)
        .map_err(|_| PackedError::Allocation {
            op: OP,
            bytes: groups * n * 4,
        })?;
    scales.resize(groups * n, 0.0f32);
    let data = *quant.data_layout();
    for g in 0..groups {
        for j in 0..n {
            let col = (g * group..(g + 1) * group).map(|p| b[p * n + j]);
            let lo = col.clone().fold(0.0f32, f32::min);
            let hi = col.fold(0.0f32, f32::max);
            let (s, z) = if hi == lo {
                (1.0f32, zmin)
            } else {
                // at least the smallest normal float: x/s stays finite
                let s = ((hi - lo) / 15.0).max(f32::MIN_POSITIVE);
                if !s.is_finite() {
                    return Err(PackedError::ScaleOverflow {
                        op: OP,
                        row: g * group,
                        col: j,
                    });
                }
                let z = round_half_even(-lo / s).clamp(0.0, 15.0);
                if z < zmin {
                    ((hi / 14.0).max(f32::MIN_POSITIVE), zmin)
                } else {
                    (s, z)
                }
            };
            scales[g * n + j] = s;
            // z ∈ [zmin, 15]: the stored value z − zmin is 0..=15
            zeros.set(g * n + j, (z - zmin) as u8)?;
            for p in g * group..(g + 1) * group {
                // |x/s| ≤ 15 (|x| ≤ max(hi, −lo) ≤ 15·s)
                let q = (round_half_even(b[p * n + j] / s) + z).clamp(0.0, 15.0);
                let idx = data.offset((p + k * j) as i64) as usize;
                weights.set(idx, q as u8)?;
            }
        }
    }
    Group4Matrix::new(quant, weights, scales, zeros)
}

/// A borrowed quantised `B` of any supported format: what [`crate::gemm::gemm_quant`] and the GEMM
/// engine take.
///
/// ```
/// use layout::packed::{QuantRef, QuantizedB, quantize_q4_0};
/// let q = quantize_q4_0(32, 2, &[1.0; 64]).unwrap();
/// let r = QuantRef::from(&q);
/// assert_eq!((r.rows(), r.cols()), (32, 2));
/// ```
#[derive(Clone, Copy, Debug)]
pub enum QuantRef<'a> {
    /// GGUF `Q4_0` blocks.
    Q4_0(&'a Q4_0Matrix),
    /// GGUF `Q8_0` blocks.
    Q8_0(&'a Q8_0Matrix),
    /// Group-quantised 4-bit (GPTQ/AWQ).
    Group4(&'a Group4Matrix),
}

impl<'a> From<&'a Q4_0Matrix> for QuantRef<'a> {
    fn from(m: &'a Q4_0Matrix) -> Self {
        QuantRef::Q4_0(m)
    }
}

impl<'a> From<&'a Q8_0Matrix> for QuantRef<'a> {
    fn from(m: &'a Q8_0Matrix) -> Self {
        QuantRef::Q8_0(m)
    }
}

impl<'a> From<&'a Group4Matrix> for QuantRef<'a> {
    fn from(m: &'a Group4Matrix) -> Self {
        QuantRef::Group4(m)
    }
}

impl QuantRef<'_> {
    fn inner(&self) -> &dyn QuantizedB {
        match *self {
            QuantRef::Q4_0(m) => m,
            QuantRef::Q8_0(m) => m,
            QuantRef::Group4(m) => m,
        }
    }
}

impl QuantizedB for QuantRef<'_> {
    fn rows(&self) -> usize {
        self.inner().rows()
    }
    fn cols(&self) -> usize {
        self.inner().cols()
    }
    fn weight_bytes(&self) -> usize {
        self.inner().weight_bytes()
    }
    fn pack_panels_with(
        &self,
        isa: Isa,
        dst: &mut [f32],
        j0: usize,
        p0: usize,
        len: usize,
        kc: usize,
        nr: usize,
    ) {
        self.inner().pack_panels_with(isa, dst, j0, p0, len, kc, nr);
    }
}

#[cfg(test)]
mod tests {
    use super::{round_half_away, round_half_even};

    #[test]
    fn rounding_matches_std_on_quarters_and_neighbours() {
        // every quarter in −40..40 (the halves are the ties) and its neighbouring floats
        for q in -160i32..=160 {
            let v = q as f32 / 4.0;
            for x in [
                v,
                f32::from_bits(v.to_bits() + 1),
                f32::from_bits(v.to_bits().wrapping_sub(1)),
            ] {
                if !x.is_finite() {
                    continue;
                }
                assert_eq!(round_half_away(x), x.round(), "{x}");
                assert_eq!(round_half_even(x), x.round_ties_even(), "{x}");
            }
        }
    }
}
