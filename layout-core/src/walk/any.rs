//! [`AnyLayout`]: the one interface every consumer of layouts (tables, tensors, copies, kernels)
//! accepts, implemented here for the affine layouts of the layer below.

use core::fmt;

use crate::layout::Congruent;
use crate::{DynLayout, DynTuple, IntTuple, Layout, LayoutError};

/// How a non-affine [`AnyLayout`]'s `post_offset` repeats (see [`AnyLayout::post_period`]): it
/// commutes with shifts by `period` (`post_offset(x + period) == post_offset(x) + period`), and
/// maps the aligned `vector`s of inner offsets (those starting at `x ≡ phase (mod vector)`) to
/// consecutive offsets. A swizzle `Sw<B,M,S> o O o L` (affine `L`) has `period = 2^(M+|S|+B)`,
/// `vector = 2^M`, `phase = −O mod period`: a copy computes the `period / vector` moves of one
/// period once, then repeats them.
///
/// ```
/// use layout::{AnyLayout, DynLayout, PostPeriod, Sw, SwizzledLayout};
/// let l: DynLayout = "(8,64):(64,1)".parse().unwrap();
/// let s = SwizzledLayout::new(Sw::<3, 3, 3>, 0i64, l);
/// assert_eq!(s.post_period(), Some(PostPeriod { period: 512, vector: 8, phase: 0 }));
/// for x in 0..512 - 8 {
///     assert_eq!(s.post_offset(x + 512), s.post_offset(x) + 512);
/// }
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PostPeriod {
    /// The shift `post_offset` commutes with.
    pub period: i64,
    /// The length of the runs `post_offset` keeps consecutive.
    pub vector: i64,
    /// The inner offsets where periods and vectors start, modulo `period`.
    pub phase: i64,
}

/// Anything that maps a 1-D index to an offset: typed, run-time, algebra-result and swizzled
/// layouts. Tensors, tables and copies accept any `AnyLayout`.
///
/// Every layout is seen as `post ∘ inner`: an affine [`inner_layout`](AnyLayout::inner_layout)
/// (`shape:stride`, which tensors walk with their odometers) followed by an offset map
/// [`post_offset`](AnyLayout::post_offset). Affine layouts are their own inner layout and
/// `post_offset` is the identity ([`AnyLayout::AFFINE`]); a swizzled layout `Sw o O o L` has
/// inner layout `L` and `post_offset(x) = Sw(O + x)`. Any other function of the index fits too:
/// inner layout the compact column-major layout of the domain (its offset *is* the index),
/// `post_offset` the function.
///
/// ```
/// use layout::{AnyLayout, DynLayout, Swizzle, SwizzledLayout};
/// let l: DynLayout = "(8,8):(8,1)".parse().unwrap();
/// assert_eq!(l.offset_bounds(), Ok((0, 63)));
/// assert_eq!(l.is_injective(), Ok(true));
/// let s = SwizzledLayout::new(Swizzle::new(3, 0, 3).unwrap(), 0i64, l);
/// assert!(!<SwizzledLayout<DynLayout> as AnyLayout>::AFFINE);
/// assert_eq!(s.offset_bounds(), Ok((0, 63)));
/// assert_eq!(s.offset(1), s.post_offset(s.inner_layout().unwrap().offset(1)));
/// ```
///
/// # Safety
/// Tensors rely on these methods to keep safe element access inside their buffer and `&mut`
/// unaliased, so an implementation must be a pure function of the value and, for every index
/// `i` in `[0, size())`:
/// - `inner_layout()` succeeds whenever `offset_bounds()` does, its domain is `domain()` (same
///   profile and extents, `size()` elements), and
///   `offset(i) == post_offset(inner_layout()?.offset(i))`;
/// - when `AFFINE` is `true`, `post_offset` is the identity and `to_dyn()` succeeds and
///   equals `inner_layout()`; when `to_dyn()` succeeds (affine or not) its offsets are
///   `offset`'s;
/// - `post_run(x) >= 1`, and `post_offset(x + j) == post_offset(x) + j` for `j < post_run(x)`
///   whenever `x + j` is an offset of the inner layout;
/// - when `post_period()` returns `Some(PostPeriod { period, vector, phase })`: `vector >= 1`
///   divides `period`, `0 <= phase < period`, and for inner offsets `x` (with `x + period`, and
///   `x + j` below, inner offsets too) `post_offset(x + period) == post_offset(x) + period`, and
///   when `x ≡ phase (mod vector)`, `post_offset(x + j) == post_offset(x) + j` for `j < vector`;
/// - when `offset_bounds()` returns `Ok((lo, hi))`, `lo <= offset(i) <= hi`;
/// - when `find_collision()` returns `Ok(None)`, no two indices share an offset.
///
/// The provided methods meet these rules for any implementation of the four required methods
/// that meets the first two.
pub unsafe trait AnyLayout: Copy + fmt::Display {
    /// `true` when the layout is affine: its own inner layout, `post_offset` the identity.
    /// Tensors use it to pick odometer fast paths (runs, `memcpy`) at compile time.
    const AFFINE: bool = true;

    /// The layout's value when it is known at compile time (every leaf static, or a static named
    /// or algebra-result type), `None` otherwise. Kernels branch on it at compile time (the GEMM
    /// reads static operands through tables of constant offsets).
    const STATIC_LAYOUT: Option<DynLayout> = None;

    /// `true` for [`DynLayout`] itself: generic kernels convert other affine layouts to it at
    /// their boundary, so their bodies are compiled once, not once per layout type.
    #[doc(hidden)]
    const IS_DYN: bool = false;

    /// The layout itself when it is a [`DynLayout`] (`None` for every other type): generic
    /// kernels read a run-time layout in place instead of copying it through
    /// [`to_dyn`](AnyLayout::to_dyn).
    #[doc(hidden)]
    #[inline(always)]
    fn as_dyn(&self) -> Option<&DynLayout> {
        None
    }

    /// The shape of the domain.
    fn domain(&self) -> DynTuple;

    /// The number of elements of the domain.
    fn size(&self) -> i64;

    /// The offset of 1-D index `i` (colexicographic).
    fn offset(&self, i: i64) -> i64;

    /// The affine run-time form (`shape:stride`), validated.
    ///
    /// # Errors
    /// When the layout is invalid, or not affine (a swizzled layout).
    fn to_dyn(&self) -> Result<DynLayout, LayoutError>;

    /// The affine layout whose offsets [`post_offset`](AnyLayout::post_offset) maps to this
    /// layout's: `offset(i) == post_offset(inner.offset(i))`. The layout itself when
    /// it is affine.
    ///
    /// # Errors
    /// When the layout is invalid.
    fn inner_layout(&self) -> Result<DynLayout, LayoutError> {
        self.to_dyn()
    }

    /// The map from an offset of the inner layout to an offset of this layout (the identity for
    /// affine layouts).
    #[inline(always)]
    fn post_offset(&self, x: i64) -> i64 {
        x
    }

    /// A length `k >= 1` such that `post_offset` keeps the `k` inner offsets from `x` on
    /// consecutive: `post_offset(x + j) == post_offset(x) + j` for `j < k` (when `x + j` are
    /// offsets of the inner layout). Copies move such runs with one `copy_from_slice`.
    /// `i64::MAX` for affine layouts; 1 by default for others; for a swizzle `Sw<B,M,S>`, up to
    /// the end of the aligned `2^M` vector the swizzle never splits.
    #[inline(always)]
    fn post_run(&self, x: i64) -> i64 {
        let _ = x;
        if Self::AFFINE { i64::MAX } else { 1 }
    }

    /// Where `post_offset` repeats itself, for copies that compute it once per period instead of
    /// once per run: `None` by default (affine layouts need none). See [`PostPeriod`].
    #[inline(always)]
    fn post_period(&self) -> Option<PostPeriod> {
        None
    }

    /// An interval `(lo, hi)` containing every offset of the domain, tight where it can be
    /// decided cheaply: exactly `offset_range()` for affine layouts; for other layouts by
    /// default the exact bounds found by visiting every offset (at most 2^24 elements).
    ///
    /// # Errors
    /// An invalid layout; [`LayoutError::TooLargeToScan`] for a non-affine layout without a
    /// closed form that is too large to scan.
    fn offset_bounds(&self) -> Result<(i64, i64), LayoutError> {
        if Self::AFFINE {
            Ok(self.to_dyn()?.offset_range())
        } else {
            super::scan::scan_bounds(self)
        }
    }

    /// An offset that two indices share, or `None` when the layout is injective. Affine layouts
    /// are decided from their strides where possible (two modes that meet, the stride-ordering
    /// test, more elements than offsets), else by a capped scan (see
    /// `walk::scan::affine_collision`); others by default by visiting
    /// every offset (at most 2^24 elements).
    ///
    /// # Errors
    /// An invalid layout; [`LayoutError::NotInjectiveBySize`] when the layout is known not to be
    /// injective (more elements than offsets) but no shared offset was named;
    /// [`LayoutError::TooLargeToScan`] when deciding needs a scan that is too large.
    fn find_collision(&self) -> Result<Option<i64>, LayoutError> {
        if Self::AFFINE {
            super::scan::affine_collision(&self.to_dyn()?)
        } else {
            super::scan::scan_collision(self)
        }
    }

    /// `true` when no two indices share an offset (see [`AnyLayout::find_collision`]).
    ///
    /// # Errors
    /// See [`AnyLayout::find_collision`] ([`LayoutError::NotInjectiveBySize`] is `Ok(false)`).
    fn is_injective(&self) -> Result<bool, LayoutError> {
        match self.find_collision() {
            Err(LayoutError::NotInjectiveBySize { .. }) => Ok(false),
            r => Ok(r?.is_none()),
        }
    }
}

// SAFETY: affine: the provided methods derive everything from `to_dyn`, which is the
// layout itself, and `offset` is its offset function.
unsafe impl AnyLayout for DynLayout {
    const IS_DYN: bool = true;
    #[inline(always)]
    fn as_dyn(&self) -> Option<&DynLayout> {
        Some(self)
    }
    fn domain(&self) -> DynTuple {
        self.shape()
    }
    fn size(&self) -> i64 {
        DynLayout::size(self)
    }
    #[inline(always)]
    fn offset(&self, i: i64) -> i64 {
        DynLayout::offset(self, i)
    }
    fn to_dyn(&self) -> Result<DynLayout, LayoutError> {
        Ok(*self)
    }
}

// SAFETY: affine: `to_dyn` is the validated run-time form of the same shape and stride,
// whose offset function `Layout::offset` computes on the typed leaves.
unsafe impl<S: Congruent<D>, D: IntTuple> AnyLayout for Layout<S, D> {
    const STATIC_LAYOUT: Option<DynLayout> = Self::STATIC;
    fn domain(&self) -> DynTuple {
        self.shape().to_dyn()
    }
    #[inline(always)]
    fn size(&self) -> i64 {
        Layout::size(self)
    }
    #[inline(always)]
    fn offset(&self, i: i64) -> i64 {
        Layout::offset(self, i)
    }
    fn to_dyn(&self) -> Result<DynLayout, LayoutError> {
        self.to_dyn()
    }
}
