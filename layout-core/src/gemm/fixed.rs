//! GEMM on operands whose layouts are static: the shape and every offset are constants of the
//! operand types, so the product is straight-line code.
//!
//! For a layout type `L` with [`AnyLayout::STATIC_LAYOUT`] = `Some(l)`, [`Table<L>`] holds, in
//! associated consts computed at compile time by the layouts' own `const fn`s, the two extents and
//! the offset of every element (at most [`STATIC_MAX`]). The kernel loops over those extents and
//! reads those tables: after monomorphisation every trip count and every index is a constant, so
//! rustc unrolls the loops and folds each address into a constant displacement — the code a
//! hand-written fully unrolled kernel has (BENCHMARKS.md compares the two). Any static layout
//! works: plain, hierarchical, swizzled, Ascend NZ/ZN, padded blocks.

use core::marker::PhantomData;

use super::check::Strided;
use super::kernel::Element;
use crate::walk::AnyLayout;
use crate::{DynLayout, Int};

/// The most elements of one operand read through a constant table (32 × 32).
pub const STATIC_MAX: usize = 1024;

/// Up to this `m·n·k`, static strided operands off AVX-512 (no unpacked kernels) run the plain
/// triple loop over constants: at 16³ on Zen 3 it takes 0.4 µs, the packed engine 1.4 µs.
pub const SMALL_STRIDED_WORK: usize = 16 * 16 * 16;

/// The largest `m·n·k` the unrolled table kernel runs for layouts that are not one stride per
/// mode (hierarchical, swizzled, NZ); above it the run-time engine is faster.
pub const STATIC_MAX_WORK: usize = 8 * 8 * 8;

/// Up to this `m·n·k` the unrolled table kernel runs even for strided layouts (measured on Zen 5:
/// 4³ f32 in 4.5 ns, against 14 ns through the AVX-512 tiles' masked loads and dispatch).
pub const TINY_WORK: usize = 4 * 4 * 4;

/// `m·n·k` of static operand types (A m×k, B k×n).
pub(crate) const fn work<LA: AnyLayout, LB: AnyLayout>() -> usize {
    Table::<LA>::ROWS * Table::<LA>::COLS * Table::<LB>::COLS
}

/// The compile-time facts of a static rank-2 operand layout `L`.
pub struct Table<L>(PhantomData<L>);

const fn placeholder() -> DynLayout {
    match DynLayout::leaf(1, 0) {
        Ok(l) => l,
        Err(_) => panic!("1:0 is a layout"),
    }
}

const fn mode_size(l: &DynLayout, i: usize) -> usize {
    match l.mode(i) {
        Ok(m) => m.size() as usize,
        Err(_) => 0,
    }
}

const fn offsets(l: &DynLayout) -> [usize; STATIC_MAX] {
    let mut t = [0usize; STATIC_MAX];
    let n = l.size();
    let mut i = 0;
    while i < STATIC_MAX && (i as i64) < n {
        // a static operand of a tensor has non-negative offsets (tensors validate them)
        let o = l.offset(i as i64);
        t[i] = if o < 0 { 0 } else { o as usize };
        i += 1;
    }
    t
}

impl<L: AnyLayout> Table<L> {
    /// The layout, or a placeholder when it is not static (then [`Table::OK`] is `false`).
    pub const LAYOUT: DynLayout = match L::STATIC_LAYOUT {
        Some(l) => l,
        None => placeholder(),
    };
    /// `true` when `L` is static, of rank 2, with at most [`STATIC_MAX`] elements and no negative
    /// offset.
    pub const OK: bool = L::STATIC_LAYOUT.is_some()
        && Self::LAYOUT.rank() == 2
        && Self::LAYOUT.size() as usize <= STATIC_MAX
        && Self::LAYOUT.offset_range().0 >= 0;
    /// Extent of mode 0 (rows).
    pub const ROWS: usize = mode_size(&Self::LAYOUT, 0);
    /// Extent of mode 1 (columns).
    pub const COLS: usize = mode_size(&Self::LAYOUT, 1);
    /// The offset of element (i, j) is `OFFSETS[i + j·ROWS]`.
    pub const OFFSETS: [usize; STATIC_MAX] = offsets(&Self::LAYOUT);
    /// `(row stride, column stride)` when each mode is one stride (after coalescing within the
    /// mode), `None` otherwise (hierarchical strides, swizzles: the table kernel reads them).
    pub const STRIDES: Option<(isize, isize)> = strides(&Self::LAYOUT);
    /// [`Table::STRIDES`] as the engine's strided operand (origin 0: offsets are non-negative).
    pub(crate) const STRIDED: Strided = match Self::STRIDES {
        Some((rs, cs)) => Strided { origin: 0, rs, cs },
        None => Strided {
            origin: 0,
            rs: 0,
            cs: 0,
        },
    };
    /// The smallest offset (negative where a stride is).
    pub(crate) const MIN_OFFSET: i64 = Self::LAYOUT.offset_range().0;
    /// The largest offset (a buffer must hold one more element than this).
    pub const MAX_OFFSET: usize = {
        let r = Self::LAYOUT.offset_range().1;
        if r < 0 { 0 } else { r as usize }
    };
}

/// The single stride of mode `i` of an affine layout (coalesced; 0 for an extent-1 mode).
const fn mode_stride(l: &DynLayout, i: usize) -> Option<isize> {
    let Ok(m) = l.mode(i) else {
        return None;
    };
    let m = m.coalesce();
    match (m.shape_leaves(), m.stride_leaves()) {
        ([1], _) => Some(0),
        ([_], [d]) => Some(*d as isize),
        _ => None,
    }
}

const fn strides(l: &DynLayout) -> Option<(isize, isize)> {
    if l.rank() != 2 {
        return None;
    }
    match (mode_stride(l, 0), mode_stride(l, 1)) {
        (Some(rs), Some(cs)) => Some((rs, cs)),
        _ => None,
    }
}

/// Rows of unit stride (or a single row).
const fn unit(s: Option<(isize, isize)>, rows: usize) -> bool {
    match s {
        Some((rs, _)) => rs == 1 || rows == 1,
        None => false,
    }
}

/// `true` when the three layout types take the unpacked AVX-512 tiles with constant shapes:
/// static, of rank 2 and matching extents, each mode one stride, A's and C's rows unit stride
/// (or of extent 1).
pub(crate) const fn strided<LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>() -> bool {
    Table::<LA>::OK
        && Table::<LB>::OK
        && Table::<LC>::OK
        && Table::<LB>::STRIDES.is_some()
        && unit(Table::<LA>::STRIDES, Table::<LA>::ROWS)
        && unit(Table::<LC>::STRIDES, Table::<LC>::ROWS)
        && Table::<LA>::COLS == Table::<LB>::ROWS
        && Table::<LA>::ROWS == Table::<LC>::ROWS
        && Table::<LB>::COLS == Table::<LC>::COLS
        && Table::<LA>::ROWS > 0
        && Table::<LB>::COLS > 0
        && Table::<LA>::COLS > 0
}

/// `true` when the three layout types are static rank-2 layouts of agreeing, non-zero extents:
/// the shape check of a product is then a constant of the types.
pub(crate) const fn agree<LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>() -> bool {
    Table::<LA>::OK
        && Table::<LB>::OK
        && Table::<LC>::OK
        && Table::<LA>::COLS == Table::<LB>::ROWS
        && Table::<LA>::ROWS == Table::<LC>::ROWS
        && Table::<LB>::COLS == Table::<LC>::COLS
}

/// `true` when the three layout types take the unrolled kernel: all static, of rank 2, small, and
/// of matching extents. A `const`: the branch on it is decided at compile time.
pub(crate) const fn applies<LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>() -> bool {
    agree::<LA, LB, LC>() && work::<LA, LB>() <= STATIC_MAX_WORK
}

/// Rows of C computed together: a block of accumulators the compiler keeps in registers.
const RB: usize = 8;

/// `C ← α·A·B + β·C` through the constant tables; `a`, `b`, `c` start at the operands' base
/// offsets. With β = 0, C is not read.
///
/// Past [`TINY_WORK`] multiply-adds, on x86-64 with AVX2 selected for the GEMM, the same body
/// runs compiled for AVX2 (256-bit vectors instead of the baseline's 128-bit SSE2, whatever the
/// crate was compiled for); without AVX2 such a product returns `false` and takes the run-time
/// routes. Other targets run the body inline (on aarch64 the baseline has NEON). The
/// arithmetic is the same either way (Rust never fuses a multiply and an add), so the results
/// are bit for bit those of the baseline body.
///
/// Returns `false` (nothing touched) when a slice is shorter than its layout reaches — which a
/// tensor never is — or as above.
#[inline(always)]
pub(crate) fn kernel<T: Element, LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>(
    alpha: T,
    a: &[T],
    b: &[T],
    beta: T,
    c: &mut [T],
) -> bool {
    if const { work::<LA, LB>() <= TINY_WORK } {
        return body::<T, LA, LB, LC>(alpha, a, b, beta, c);
    }
    #[cfg(target_arch = "x86_64")]
    {
        if super::Isa::selected_for_gemm() >= super::Isa::Avx2 {
            // SAFETY: AVX2 is available: the selected level is one this CPU has.
            return unsafe { body_avx2::<T, LA, LB, LC>(alpha, a, b, beta, c) };
        }
        false
    }
    // elsewhere the baseline is the vector unit (NEON on aarch64): the inline body
    #[cfg(not(target_arch = "x86_64"))]
    body::<T, LA, LB, LC>(alpha, a, b, beta, c)
}

/// [`body`] compiled for AVX2.
///
/// # Safety
/// AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn body_avx2<T: Element, LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>(
    alpha: T,
    a: &[T],
    b: &[T],
    beta: T,
    c: &mut [T],
) -> bool {
    body::<T, LA, LB, LC>(alpha, a, b, beta, c)
}

/// [`kernel`]'s body.
#[inline(always)]
fn body<T: Element, LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>(
    alpha: T,
    a: &[T],
    b: &[T],
    beta: T,
    c: &mut [T],
) -> bool {
    let (m, k, n) = (Table::<LA>::ROWS, Table::<LA>::COLS, Table::<LB>::COLS);
    let (ta, tb, tc) = (
        &Table::<LA>::OFFSETS,
        &Table::<LB>::OFFSETS,
        &Table::<LC>::OFFSETS,
    );
    if a.len() <= Table::<LA>::MAX_OFFSET
        || b.len() <= Table::<LB>::MAX_OFFSET
        || c.len() <= Table::<LC>::MAX_OFFSET
    {
        return false;
    }
    // the offset of (i, j): i·rs + j·cs when the layout is one stride per mode (contiguous
    // accesses the compiler can vectorise), else the table entry
    #[inline(always)]
    fn off<L: AnyLayout>(t: &[usize; STATIC_MAX], rows: usize, i: usize, j: usize) -> usize {
        match Table::<L>::STRIDES {
            Some((rs, cs)) => (i as isize * rs + j as isize * cs) as usize,
            None => t[i + j * rows],
        }
    }
    let read_c = beta != T::ZERO;
    if m * n * k <= SMALL_STRIDED_WORK {
        // tiny: the plain triple loop over constants, each dot product kept in one register
        // (after unrolling the compiler packs the independent rows into vectors); α = 1 and
        // β = 0 — the common case — store the sums as they are
        let plain = alpha == T::ONE && !read_c;
        for j in 0..n {
            for i in 0..m {
                let mut acc = T::ZERO;
                for p in 0..k {
                    // SAFETY: as below: table offsets of the layouts, inside the slices.
                    unsafe {
                        acc = acc
                            + *a.get_unchecked(off::<LA>(ta, m, i, p))
                                * *b.get_unchecked(off::<LB>(tb, k, p, j));
                    }
                }
                // SAFETY: as below.
                let cij = unsafe { c.get_unchecked_mut(off::<LC>(tc, m, i, j)) };
                *cij = if plain {
                    acc
                } else if read_c {
                    alpha * acc + beta * *cij
                } else {
                    alpha * acc
                };
            }
        }
        return true;
    }
    for j in 0..n {
        let mut i0 = 0;
        while i0 < m {
            let rows = if m - i0 < RB { m - i0 } else { RB };
            let mut acc = [T::ZERO; RB];
            for p in 0..k {
                // SAFETY: every table entry is an offset of its layout, at most MAX_OFFSET, and
                // each slice is longer than its layout's MAX_OFFSET (checked above).
                let bv = unsafe { *b.get_unchecked(off::<LB>(tb, k, p, j)) };
                for (r, acc) in acc.iter_mut().enumerate().take(rows) {
                    // SAFETY: as above.
                    let av = unsafe { *a.get_unchecked(off::<LA>(ta, m, i0 + r, p)) };
                    *acc = *acc + av * bv;
                }
            }
            for (r, &acc) in acc.iter().enumerate().take(rows) {
                let at = off::<LC>(tc, m, i0 + r, j);
                // SAFETY: as above.
                let cij = unsafe { c.get_unchecked_mut(at) };
                *cij = if read_c {
                    alpha * acc + beta * *cij
                } else {
                    alpha * acc
                };
            }
            i0 += RB;
        }
    }
    true
}

/// The static extents of a rank-2 layout type with flat static modes, as types: what
/// [`gemm_static`](super::gemm_static) ties together at compile time.
pub trait StaticMatrix: AnyLayout {
    /// Rows: `Int<M>`.
    type Rows;
    /// Columns: `Int<N>`.
    type Cols;
}

impl<const M: i64, const N: i64, D> StaticMatrix for crate::Layout<(Int<M>, Int<N>), D>
where
    (Int<M>, Int<N>): crate::Congruent<D>,
    D: crate::IntTuple,
{
    type Rows = Int<M>;
    type Cols = Int<N>;
}

/// A's columns against B's rows. (A mismatch of static extents is reported by the compiler as a type mismatch
/// between the two `Int<…>` extents, under `cargo check`.)
#[diagnostic::on_unimplemented(
    message = "gemm: A has {Self} columns but B has {K} rows",
    label = "the inner extents of A·B must be equal",
    note = "A is m×k, B is k×n and C is m×n; the extents are the static shapes of the layouts"
)]
pub trait InnerExtent<K> {}
impl<const X: i64> InnerExtent<Int<X>> for Int<X> {}

/// A's rows against C's rows. (A mismatch of static extents is reported by the compiler as a type mismatch
/// between the two `Int<…>` extents, under `cargo check`.)
#[diagnostic::on_unimplemented(
    message = "gemm: A has {Self} rows but C has {M} rows",
    label = "C must have as many rows as A",
    note = "A is m×k, B is k×n and C is m×n; the extents are the static shapes of the layouts"
)]
pub trait RowExtent<M> {}
impl<const X: i64> RowExtent<Int<X>> for Int<X> {}

/// B's columns against C's columns. (A mismatch of static extents is reported by the compiler as a type mismatch
/// between the two `Int<…>` extents, under `cargo check`.)
#[diagnostic::on_unimplemented(
    message = "gemm: B has {Self} columns but C has {N} columns",
    label = "C must have as many columns as B",
    note = "A is m×k, B is k×n and C is m×n; the extents are the static shapes of the layouts"
)]
pub trait ColExtent<N> {}
impl<const X: i64> ColExtent<Int<X>> for Int<X> {}
