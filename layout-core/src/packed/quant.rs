//! Group-wise quantisation metadata (AWQ/GPTQ scales and zero points) and dequantisation.

use super::{Odometer, PackedError, PackedVec};
use crate::{DynLayout, DynTuple};
use alloc::vec::Vec;

/// A `K × N` quantised weight matrix (`K` the input dimension, `N` the output dimension) with
/// one scale and one zero point per group of `group` consecutive rows and per column.
///
/// Two layouts over the same domain `(K, N)` describe it:
/// - the **data layout** maps `(k, n)` to the logical index of the weight in its [`PackedVec`]
///   (the packed format then maps that index to bits);
/// - the **metadata layout** maps `(k, n)` to the index of its scale and zero point,
///   `(k / group)·N + n`. It is derived from the data layout's shape as
///   `((group, K/group), N) : ((0, N), 1)`: the stride-0 mode broadcasts one scale over its
///   group, exactly as a CuTe layout broadcasts.
///
/// [`dequantize`] walks both layouts together with one 1-D index.
///
/// ```
/// use layout::packed::GroupQuant;
/// let q = GroupQuant::awq(8, 16, 4).unwrap();
/// assert_eq!(q.data_layout().to_string(), "(8,16):(16,1)");
/// assert_eq!(q.meta_layout().to_string(), "((4,2),16):((0,16),1)");
/// let g = GroupQuant::gptq(16, 8, 8).unwrap();
/// assert_eq!(g.data_layout().to_string(), "((8,2),8):((1,64),8)");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupQuant {
    data: DynLayout,
    meta: DynLayout,
    rows: usize,
    cols: usize,
    group: usize,
    zero_offset: i32,
}

impl GroupQuant {
    /// A grouped quantisation over the rank-2 data layout `data` (`(K, N)` → logical weight
    /// index), groups of `group` rows, and a constant added to every stored zero point
    /// (`0` for AWQ, `1` for GPTQ's legacy `zero − 1` storage).
    ///
    /// # Errors
    /// [`PackedError::NotRank2`]; [`PackedError::GroupNotDividing`] unless `group` is positive
    /// and divides `K`; [`PackedError::Layout`] if the metadata layout cannot be built.
    ///
    /// ```
    /// use layout::{DynLayout, packed::GroupQuant};
    /// let d: DynLayout = "(6,4):(4,1)".parse().unwrap();
    /// assert_eq!(
    ///     GroupQuant::new(d, 4, 0).unwrap_err().to_string(),
    ///     "packed group quantisation: group size 4 does not divide the extent 6"
    /// );
    /// ```
    pub fn new(data: DynLayout, group: usize, zero_offset: i32) -> Result<Self, PackedError> {
        const OP: &str = "group quantisation";
        let lerr = PackedError::Layout;
        if data.rank() != 2 {
            return Err(PackedError::NotRank2 {
                op: OP,
                rank: data.rank(),
            });
        }
        let shape = data.shape();
        // a valid layout's mode sizes are positive i64s
        let rows = shape.mode(0).and_then(|m| m.size()).map_err(lerr)? as usize;
        let cols = shape.mode(1).and_then(|m| m.size()).map_err(lerr)?;
        if group == 0 || !rows.is_multiple_of(group) {
            return Err(PackedError::GroupNotDividing {
                op: OP,
                extent: rows,
                group,
            });
        }
        // group divides rows, so both fit i64
        let ms = DynTuple::tuple(&[
            DynTuple::from_slice(&[group as i64, (rows / group) as i64]).map_err(lerr)?,
            DynTuple::leaf(cols),
        ])
        .map_err(lerr)?;
        let md = DynTuple::tuple(&[
            DynTuple::from_slice(&[0, cols]).map_err(lerr)?,
            DynTuple::leaf(1),
        ])
        .map_err(lerr)?;
        let meta = DynLayout::new(&ms, &md).map_err(lerr)?;
        Ok(GroupQuant {
            data,
            meta,
            rows,
            cols: cols as usize,
            group,
            zero_offset,
        })
    }

    /// AWQ: `qweight [K, N/8]` packed along `N`, so the data layout is row-major `(K,N):(N,1)`
    /// over a [`PackedFormat::awq`](super::PackedFormat::awq) vector; zero points stored as is.
    ///
    /// # Errors
    /// As [`GroupQuant::new`]; [`PackedError::Layout`] for non-positive extents.
    ///
    /// ```
    /// use layout::packed::GroupQuant;
    /// assert_eq!(GroupQuant::awq(128, 8, 64).unwrap().groups(), 2);
    /// ```
    pub fn awq(k: usize, n: usize, group: usize) -> Result<Self, PackedError> {
        let (k, n) = extents("awq layout", k, n)?;
        let data = DynLayout::from_flat(&[k, n], &[n, 1]).map_err(PackedError::Layout)?;
        GroupQuant::new(data, group, 0)
    }

    /// GPTQ: `qweight [K/8, N]` packed along `K` (eight consecutive rows per 32-bit word), so
    /// weight `(k, n)` is logical index `((k/8)·N + n)·8 + k%8` of a
    /// [`PackedFormat::gptq`](super::PackedFormat::gptq) vector: `((8,K/8),N):((1,8N),8)`.
    /// Zero points are stored as `zero − 1` (`zero_offset = 1`).
    ///
    /// # Errors
    /// [`PackedError::GroupNotDividing`] unless 8 divides `K`; as [`GroupQuant::new`].
    ///
    /// ```
    /// use layout::packed::GroupQuant;
    /// assert!(GroupQuant::gptq(12, 8, 4).is_err()); // K must be a multiple of 8
    /// ```
    pub fn gptq(k: usize, n: usize, group: usize) -> Result<Self, PackedError> {
        const OP: &str = "gptq layout";
        let lerr = PackedError::Layout;
        if k == 0 || !k.is_multiple_of(8) {
            return Err(PackedError::GroupNotDividing {
                op: OP,
                extent: k,
                group: 8,
            });
        }
        let (k, n) = extents(OP, k, n)?;
        let w = n.checked_mul(8).ok_or(PackedError::Overflow {
            op: OP,
            what: "8·N",
        })?;
        let s = DynTuple::tuple(&[
            DynTuple::from_slice(&[8, k / 8]).map_err(lerr)?,
            DynTuple::leaf(n),
        ])
        .map_err(lerr)?;
        let d = DynTuple::tuple(&[
            DynTuple::from_slice(&[1, w]).map_err(lerr)?,
            DynTuple::leaf(8),
        ])
        .map_err(lerr)?;
        GroupQuant::new(DynLayout::new(&s, &d).map_err(lerr)?, group, 1)
    }

    /// The data layout: `(k, n)` → logical index in the weight [`PackedVec`].
    ///
    /// ```
    /// use layout::packed::GroupQuant;
    /// assert_eq!(GroupQuant::awq(2, 8, 2).unwrap().data_layout().offset(1), 8); // (1,0)
    /// ```
    pub fn data_layout(&self) -> &DynLayout {
        &self.data
    }

    /// The metadata layout `((group, K/group), N) : ((0, N), 1)`: `(k, n)` → index of the
    /// scale and zero point of its group.
    ///
    /// ```
    /// use layout::packed::GroupQuant;
    /// let m = GroupQuant::awq(4, 3, 2).unwrap().meta_layout();
    /// // 1-D index k + K·n (first mode fastest): (k=3, n=2) → group 1, column 2
    /// assert_eq!(m.offset(3 + 4 * 2), 1 * 3 + 2);
    /// ```
    pub fn meta_layout(&self) -> DynLayout {
        self.meta
    }

    /// `K`, the number of rows (input dimension).
    ///
    /// ```
    /// assert_eq!(layout::packed::GroupQuant::awq(4, 8, 2).unwrap().rows(), 4);
    /// ```
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// `N`, the number of columns (output dimension).
    ///
    /// ```
    /// assert_eq!(layout::packed::GroupQuant::awq(4, 8, 2).unwrap().cols(), 8);
    /// ```
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The group size (rows per scale).
    ///
    /// ```
    /// assert_eq!(layout::packed::GroupQuant::awq(4, 8, 2).unwrap().group(), 2);
    /// ```
    pub fn group(&self) -> usize {
        self.group
    }

    /// Number of groups along `K`: `K / group`.
    ///
    /// ```
    /// assert_eq!(layout::packed::GroupQuant::awq(4, 8, 2).unwrap().groups(), 2);
    /// ```
    pub fn groups(&self) -> usize {
        self.rows / self.group
    }

    /// Whether every `code − (z + offset)` (codes and stored zeros 0..=15) and every zero point
    /// is exact in `f32`: `|offset| + 15 ≤ 2^24`.
    pub(crate) fn zero_exact_for(offset: i32) -> bool {
        i64::from(offset).abs() + 15 <= 1 << 24
    }

    /// The constant added to every stored zero point.
    ///
    /// ```
    /// assert_eq!(layout::packed::GroupQuant::gptq(8, 8, 8).unwrap().zero_offset(), 1);
    /// ```
    pub fn zero_offset(&self) -> i32 {
        self.zero_offset
    }
}

/// `K` and `N` in the layouts' `i64` (an overflow past `i64::MAX`).
fn extents(op: &'static str, k: usize, n: usize) -> Result<(i64, i64), PackedError> {
    match (i64::try_from(k), i64::try_from(n)) {
        (Ok(k), Ok(n)) => Ok((k, n)),
        _ => Err(PackedError::Overflow { op, what: "K or N" }),
    }
}

/// Dequantise a grouped 4-bit (or 1-/2-bit) weight matrix into row-major `K × N` `f32`:
/// `w[k][n] = (q(k,n) − (z(k,n) + zero_offset)) · s(k,n)`, with `q` read from `weights` at the
/// data layout's index and `s`, `z` from `scales` and `zeros` at the metadata layout's index
/// (one index drives both layouts, walked in the output's row-major order).
///
/// # Errors
/// [`PackedError::LayoutOutOfRange`] when the data layout reaches past `weights`;
/// [`PackedError::BufferLength`] unless `scales` and `zeros` hold `groups · N` entries;
/// [`PackedError::Overflow`] when the `K · N` outputs cannot be allocated.
///
/// ```
/// use layout::packed::{GroupQuant, PackedFormat, PackedVec, dequantize};
/// // AWQ, K = 2, N = 8, one group: q = [[0..8], [8..16]], zero 8, scale 0.5
/// let q: Vec<u8> = (0..16).collect();
/// let w = PackedVec::from_values(PackedFormat::awq(), &q).unwrap();
/// let z = PackedVec::from_values(PackedFormat::awq(), &[8; 8]).unwrap();
/// let s = [0.5f32; 8];
/// let out = dequantize(&w, &s, &z, &GroupQuant::awq(2, 8, 2).unwrap()).unwrap();
/// assert_eq!(out[0], -4.0);
/// assert_eq!(out[15], 3.5);
/// ```
pub fn dequantize(
    weights: &PackedVec,
    scales: &[f32],
    zeros: &PackedVec,
    quant: &GroupQuant,
) -> Result<Vec<f32>, PackedError> {
    dequantize_with(weights, scales, zeros, quant, true)
}

/// A reader of packed values along a layout walked in 1-D order: either the layout gives bit
/// offsets directly (the format's bit layout composed with the data layout) or element indices
/// that go through the format's closed-form [`bit_offset`](super::PackedFormat::bit_offset).
struct Reader<'a> {
    od: Odometer<'a>,
    bits_direct: bool,
    v: &'a PackedVec,
}

impl Reader<'_> {
    #[inline]
    fn next(&mut self) -> u8 {
        let off = self.od.offset() as usize;
        let bit = if self.bits_direct {
            off
        } else {
            self.v.format.bit_offset(off)
        };
        self.od.advance();
        self.v.read_bits(bit)
    }
}

/// `dequantize`, optionally without the composed bit layouts (tests pin both paths together).
pub(super) fn dequantize_with(
    weights: &PackedVec,
    scales: &[f32],
    zeros: &PackedVec,
    quant: &GroupQuant,
    compose: bool,
) -> Result<Vec<f32>, PackedError> {
    const OP: &str = "dequantize";
    let (lo, hi) = quant.data.offset_range();
    if lo < 0 || hi >= weights.len() as i64 {
        return Err(PackedError::LayoutOutOfRange {
            op: OP,
            lo,
            hi,
            len: weights.len(),
        });
    }
    // rows, cols and groups are positive `i64`s whose product (the layout's size) fits
    let k = quant.rows;
    let n = quant.cols;
    let metas = quant.groups() * n;
    if scales.len() != metas {
        return Err(PackedError::BufferLength {
            op: OP,
            what: "scales",
            expected: metas,
            got: scales.len(),
        });
    }
    if zeros.len() != metas {
        return Err(PackedError::BufferLength {
            op: OP,
            what: "zeros",
            expected: metas,
            got: zeros.len(),
        });
    }
    // a layout with stride-0 modes can be far larger than its buffer: allocate fallibly
    let total = k * n;
    let mut out = Vec::new();
    out.try_reserve_exact(total)
        .map_err(|_| PackedError::Allocation {
            op: OP,
            bytes: total.saturating_mul(4),
        })?;
    out.resize(total, 0.0f32);
    // One 1-D index drives both layouts: odometers in lockstep. The layouts are walked with
    // their modes swapped, `(N, K)`, so the index `c + N·r` runs in the output's row-major
    // order. Where the algebra accepts it, each walks `bit_layout ∘ data` (resp. `∘ meta`),
    // giving bit offsets directly.
    let swap = |l: &DynLayout| l.select(&[1, 0]).map_err(PackedError::Layout);
    let (data_t, meta_t) = (swap(&quant.data)?, swap(&quant.meta)?);
    let composed = |v: &PackedVec, l: &DynLayout| -> Option<DynLayout> {
        if !compose {
            return None;
        }
        let b = v.format.bit_layout(v.len()).ok()?;
        let c = b.composition(l).ok()?;
        (c.size() == l.size()).then_some(c)
    };
    let wl = composed(weights, &data_t);
    let zl = composed(zeros, &meta_t);
    let mut w = Reader {
        od: Odometer::new(wl.as_ref().unwrap_or(&data_t)),
        bits_direct: wl.is_some(),
        v: weights,
    };
    let mut z = Reader {
        od: Odometer::new(zl.as_ref().unwrap_or(&meta_t)),
        bits_direct: zl.is_some(),
        v: zeros,
    };
    let mut meta = Odometer::new(&meta_t);
    // checked above: data offsets in [0, weights.len()), meta offsets below
    // groups·N = scales.len() = zeros.len() (and the composed layouts map them to the bits of
    // those elements)
    for o in out.iter_mut() {
        let m = meta.offset() as usize;
        let q = w.next();
        // q − (z + offset) in i64: exact for every i32 offset (|·| < 2^32), rounded once to f32
        let zero = i64::from(z.next()) + i64::from(quant.zero_offset);
        *o = (i64::from(q) - zero) as f32 * scales[m];
        meta.advance();
    }
    Ok(out)
}
