//! Named shared-memory swizzle atoms, and a bank-conflict report with a swizzle suggestion.
//!
//! **Atoms.** CuTe's GMMA/UMMA shared-memory atoms are `Sw<B,4,3>` applied to *byte* addresses
//! over 8 rows of 16, 32, 64 or 128 bytes. This crate swizzles element offsets, so the atom for
//! an element of `BITS` bits is `Sw<B, M, 3> o (8, W·8/BITS):(W·8/BITS, 1)` (K-major; MN-major
//! is the transpose `(W·8/BITS, 8):(1, W·8/BITS)`), with `W` the swizzle width in bytes,
//! `B = log2(W/16)` and `M = log2(128/BITS)` (a 16-byte chunk is never split): for `f16`,
//! 128 bytes gives `Sw<3,3,3> o (8,64):(64,1)`.
//!
//! **Bank conflicts.** A [`BankModel`] is `banks` banks of `width` bytes (NVIDIA shared memory:
//! 32 × 4; a CPU L1 cache is the same arithmetic with sets × line size). A request of a group of
//! threads touches a set of `width`-byte words; each bank serves one word per cycle, so the
//! request takes as many cycles ("ways") as the largest number of distinct words in one bank.
//! [`bank_conflicts`] reports the worst case over a rank-2 tile for vector accesses of `vector`
//! elements, each group of threads covering one wavefront (`banks·width` bytes):
//! - *row-wise*: the group reads consecutive vectors along one row;
//! - *column-wise*: the group reads the vectors at one column position in consecutive rows (as
//!   `ldmatrix` and the GMMA/UMMA loads do).
//!
//! [`suggest_swizzle`] searches `Sw<B,M,S>` (smallest `B` first, `M` at least the vector) for a
//! swizzle under which both are conflict-free and the tile stays a bijection onto the same
//! offsets.
//!
//! ```
//! use layout::named::banks::{bank_conflicts, suggest_swizzle, BankModel};
//! use layout::DynLayout;
//! // an 8 x 64 f16 tile, rows of 128 bytes, read as 16-byte vectors
//! let tile: DynLayout = "(8,64):(64,1)".parse().unwrap();
//! let r = bank_conflicts(&tile, 2, 8, BankModel::NVIDIA_SMEM).unwrap();
//! assert_eq!((r.row_wise, r.column_wise), (1, 8)); // 8 rows hit the same 4 banks
//! let sw = suggest_swizzle(&tile, 2, 8, BankModel::NVIDIA_SMEM).unwrap().unwrap();
//! assert_eq!(sw.to_string(), "Sw<3,3,3>");
//! ```

use super::C0Element;
use crate::const_try::ctry;
use crate::{AnyLayout, DynLayout, LayoutError, Swizzle, SwizzledLayout};

/// Which way the atom's rows run: K-major (rows along K, the contiguous dimension) or
/// MN-major.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    /// K contiguous: `(8, row) : (row, 1)`.
    K,
    /// M or N contiguous: `(row, 8) : (1, row)`.
    Mn,
}

/// The swizzle width of a GMMA/UMMA atom, in bytes of one row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SwizzleBytes {
    /// 16-byte rows, no swizzle (CuTe's `INTER`).
    Interleave,
    /// 32-byte rows, `B = 1`.
    B32,
    /// 64-byte rows, `B = 2`.
    B64,
    /// 128-byte rows, `B = 3`.
    B128,
}

impl SwizzleBytes {
    const fn bits(self) -> i64 {
        match self {
            SwizzleBytes::Interleave => 0,
            SwizzleBytes::B32 => 1,
            SwizzleBytes::B64 => 2,
            SwizzleBytes::B128 => 3,
        }
    }
}

/// The swizzle and the inner layout of the atom for elements of `bits` bits (see the module
/// docs).
///
/// # Errors
/// `bits` not a power of two in `1..=128`.
pub const fn gmma_atom_parts(
    bits: i64,
    major: Major,
    width: SwizzleBytes,
) -> Result<(Swizzle, DynLayout), LayoutError> {
    if bits <= 0 || bits > 128 || bits & (bits - 1) != 0 {
        return Err(LayoutError::Precondition {
            what: "swizzle atom: the element width must be a power of two of at most 128 bits; width and maximum are {a} and {b}",
            a: bits,
            b: 128,
        });
    }
    let b = width.bits();
    let chunk = 128 / bits; // elements per 16 bytes
    let m = chunk.trailing_zeros() as i64;
    let row = chunk << b;
    let sw = ctry!(Swizzle::new(b, m, 3));
    let l = match major {
        Major::K => ctry!(DynLayout::from_flat(&[8, row], &[row, 1])),
        Major::Mn => ctry!(DynLayout::from_flat(&[row, 8], &[1, row])),
    };
    Ok((sw, l))
}

/// CuTe's GMMA/UMMA shared-memory atom for element type `T` as a swizzled layout
/// `Sw<B,M,3> o 0 o L`.
///
/// ```
/// use layout::named::banks::{make_gmma_atom, Major, SwizzleBytes};
/// let a = make_gmma_atom::<half::f16>(Major::K, SwizzleBytes::B128).unwrap();
/// assert_eq!(a.to_string(), "Sw<3,3,3> o 0 o (8,64):(64,1)");
/// let a = make_gmma_atom::<f32>(Major::Mn, SwizzleBytes::B64).unwrap();
/// assert_eq!(a.to_string(), "Sw<2,2,3> o 0 o (16,8):(1,16)");
/// ```
///
/// # Errors
/// See [`gmma_atom_parts`].
pub fn make_gmma_atom<T: C0Element>(
    major: Major,
    width: SwizzleBytes,
) -> Result<SwizzledLayout<DynLayout, Swizzle, i64>, LayoutError> {
    let (sw, l) = gmma_atom_parts(T::BITS, major, width)?;
    Ok(SwizzledLayout::new(sw, 0, l))
}

/// Banks of a memory: `banks` banks (or cache sets) of `width` bytes (or lines).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BankModel {
    /// Number of banks.
    pub banks: i64,
    /// Bytes per bank word.
    pub width: i64,
}

impl BankModel {
    /// NVIDIA shared memory: 32 banks of 4 bytes.
    pub const NVIDIA_SMEM: BankModel = BankModel {
        banks: 32,
        width: 4,
    };

    /// A model of `banks` banks of `width` bytes (e.g. a CPU L1: sets × line size).
    ///
    /// # Errors
    /// A non-positive count or width.
    pub const fn new(banks: i64, width: i64) -> Result<BankModel, LayoutError> {
        if banks <= 0 || width <= 0 {
            return Err(LayoutError::Precondition {
                what: "bank model: banks and width must be positive; they are {a} and {b}",
                a: banks,
                b: width,
            });
        }
        Ok(BankModel { banks, width })
    }
}

/// The worst-case ways (cycles per request; 1 is conflict-free) of row-wise and column-wise
/// vector accesses to a tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ConflictReport {
    /// Worst ways over the groups reading consecutive vectors along a row.
    pub row_wise: i64,
    /// Worst ways over the groups reading one vector position in consecutive rows.
    pub column_wise: i64,
}

impl ConflictReport {
    /// `true` when both access patterns are conflict-free.
    pub fn conflict_free(&self) -> bool {
        self.row_wise <= 1 && self.column_wise <= 1
    }
}

/// Ways of one request: the most distinct words any bank holds among the given offsets.
fn ways(offsets: &[i64], elem_bytes: i64, model: BankModel) -> i64 {
    // words in i128: offset · element bytes cannot overflow there
    let mut words: [i128; 256] = [0; 256];
    let mut n = 0;
    for &o in offsets {
        let w = (o as i128 * elem_bytes as i128).div_euclid(model.width as i128);
        if n < words.len() && !words[..n].contains(&w) {
            words[n] = w;
            n += 1;
        }
    }
    let words = &words[..n];
    let banks = model.banks as i128;
    let mut worst = 0;
    for w in words {
        let bank = w.rem_euclid(banks);
        let count = words
            .iter()
            .filter(|&&v| v.rem_euclid(banks) == bank)
            .count() as i64;
        worst = worst.max(count);
    }
    worst
}

/// The worst-case bank conflicts of row-wise and column-wise accesses of `vector` elements of
/// `elem_bytes` bytes to the rank-2 tile `tile` (see the module docs): a group of threads
/// covers `banks·width / (vector·elem_bytes)` vectors (at least 1), and vectors start at
/// multiples of `vector` columns.
///
/// # Errors
/// A tile of rank other than 2; non-positive `elem_bytes` or `vector`; a vector wider than a
/// wavefront (`vector·elem_bytes > banks·width`) or longer than a row; a tile of more than
/// 2^20 elements.
pub fn bank_conflicts<L: AnyLayout>(
    tile: &L,
    elem_bytes: i64,
    vector: i64,
    model: BankModel,
) -> Result<ConflictReport, LayoutError> {
    let d = tile.domain();
    if d.is_leaf() || d.rank() != 2 {
        return Err(LayoutError::Precondition {
            what: "bank_conflicts needs a rank-2 tile; rank and 2 are {a} and {b}",
            a: if d.is_leaf() { 1 } else { d.rank() as i64 },
            b: 2,
        });
    }
    let (rows, cols) = (d.mode(0)?.size()?, d.mode(1)?.size()?);
    let wave = model.banks.saturating_mul(model.width);
    if elem_bytes <= 0
        || vector <= 0
        || vector > 256
        || vector.saturating_mul(elem_bytes) > wave
        || vector > cols
    {
        return Err(LayoutError::Precondition {
            what: "bank_conflicts: a vector must have positive size, fit a wavefront (banks*width bytes) and a row; vector elements and element bytes are {a} and {b}",
            a: vector,
            b: elem_bytes,
        });
    }
    if tile.size() > 1 << 20 {
        return Err(LayoutError::Precondition {
            what: "bank_conflicts checks tiles of at most 2^20 elements; size and maximum are {a} and {b}",
            a: tile.size(),
            b: 1 << 20,
        });
    }
    let threads = (wave / (vector * elem_bytes)).clamp(1, 256 / vector.max(1));
    let at = |r: i64, c: i64| tile.offset(r + c * rows);
    let mut buf = [0i64; 256];
    let mut report = ConflictReport {
        row_wise: 1,
        column_wise: 1,
    };
    let vecs = cols / vector;
    // row-wise: `threads` consecutive vectors of a row
    for r in 0..rows {
        let mut v0 = 0;
        while v0 < vecs {
            let mut n = 0;
            for v in v0..(v0 + threads).min(vecs) {
                for e in 0..vector {
                    buf[n] = at(r, v * vector + e);
                    n += 1;
                }
            }
            report.row_wise = report.row_wise.max(ways(&buf[..n], elem_bytes, model));
            v0 += threads;
        }
    }
    // column-wise: one vector position in `threads` consecutive rows
    for v in 0..vecs {
        let mut r0 = 0;
        while r0 < rows {
            let mut n = 0;
            for r in r0..(r0 + threads).min(rows) {
                for e in 0..vector {
                    buf[n] = at(r, v * vector + e);
                    n += 1;
                }
            }
            report.column_wise = report.column_wise.max(ways(&buf[..n], elem_bytes, model));
            r0 += threads;
        }
    }
    Ok(report)
}

/// A swizzle `Sw<B,M,S>` under which `tile` (an affine rank-2 layout) has no row-wise or
/// column-wise bank conflicts for `vector`-element accesses and is still a bijection onto the
/// same offsets; `None` when no swizzle with `B ≤ 5`, `log2(vector) ≤ M ≤ 8`, `B ≤ S ≤ 10`
/// does. The smallest `B` wins (the identity when the tile is already conflict-free), then the
/// smallest `M`, then the smallest `S`.
///
/// Each candidate is checked by [`bank_conflicts`]; tiles are limited to 2^16 elements.
///
/// # Errors
/// As [`bank_conflicts`]; a tile whose offsets are not a bijection onto an interval; a tile of
/// more than 2^16 elements.
pub fn suggest_swizzle(
    tile: &DynLayout,
    elem_bytes: i64,
    vector: i64,
    model: BankModel,
) -> Result<Option<Swizzle>, LayoutError> {
    if tile.size() > 1 << 16 {
        return Err(LayoutError::Precondition {
            what: "suggest_swizzle checks tiles of at most 2^16 elements; size and maximum are {a} and {b}",
            a: tile.size(),
            b: 1 << 16,
        });
    }
    if bank_conflicts(tile, elem_bytes, vector, model)?.conflict_free() {
        return Ok(Some(Swizzle::IDENTITY));
    }
    let bounds = tile.offset_range();
    if tile.cosize() != tile.size() || crate::walk::scan::affine_collision(tile)?.is_some() {
        return Err(LayoutError::Precondition {
            what: "suggest_swizzle needs a tile that is a bijection onto an interval; size and cosize are {a} and {b}",
            a: tile.size(),
            b: tile.cosize(),
        });
    }
    let m0 = 63 - (vector as u64).leading_zeros() as i64; // floor(log2(vector))
    let m0 = if 1i64 << m0 < vector { m0 + 1 } else { m0 };
    for b in 1..=5 {
        for m in m0..=8 {
            for s in b..=10 {
                let Ok(sw) = Swizzle::new(b, m, s) else {
                    continue;
                };
                let l = SwizzledLayout::new(sw, 0i64, *tile);
                if l.offset_bounds()? != bounds || l.find_collision()?.is_some() {
                    continue;
                }
                if bank_conflicts(&l, elem_bytes, vector, model)?.conflict_free() {
                    return Ok(Some(sw));
                }
            }
        }
    }
    Ok(None)
}
