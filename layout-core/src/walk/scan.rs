//! Facts a tensor needs about a layout — the bounds of its offsets and whether it is injective —
//! decided exactly for affine layouts and by a capped scan of every offset for the rest.
//!
//! These back the default methods of [`AnyLayout`]; a non-affine layout with a closed form
//! (e.g. [`SwizzledLayout`](crate::SwizzledLayout)) overrides them.

use super::Plan;
use crate::{AnyLayout, DynLayout, LayoutError};

/// The most elements a scan visits (2^24: a 16M-element layout takes tens of milliseconds).
pub const SCAN_CAP: i64 = 1 << 24;

/// Without a heap, an injectivity scan compares every pair: it visits at most this many elements.
#[cfg(not(feature = "alloc"))]
const PAIR_SCAN_CAP: i64 = 1 << 12;

/// Refuse a scan of `size` elements above `cap`.
fn capped(what: &'static str, size: i64, cap: i64) -> Result<(), LayoutError> {
    if size > cap {
        return Err(LayoutError::TooLargeToScan { what, size, cap });
    }
    Ok(())
}

/// Call `f` with every offset of `l` (index order of its inner layout, through `post_offset`).
fn for_each_offset<L: AnyLayout>(l: &L, mut f: impl FnMut(i64)) -> Result<(), LayoutError> {
    let inner = l.inner_layout()?;
    Plan::logical(&inner).for_each(|[x]| f(l.post_offset(x)));
    Ok(())
}

/// The exact smallest and largest offset of `l`, by visiting all of them (at most [`SCAN_CAP`]).
///
/// # Errors
/// [`LayoutError::TooLargeToScan`] above the cap; the inner layout's own error.
pub fn scan_bounds<L: AnyLayout>(l: &L) -> Result<(i64, i64), LayoutError> {
    capped("offset bounds", l.size(), SCAN_CAP)?;
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for_each_offset(l, |o| {
        lo = lo.min(o);
        hi = hi.max(o);
    })?;
    Ok((lo, hi))
}

/// An offset that two indices of `l` share, or `None` when `l` is injective, by visiting every
/// offset (at most [`SCAN_CAP`] elements, and a bitmap over `lo..=hi` of at most 64 times as
/// many bits).
///
/// # Errors
/// [`LayoutError::TooLargeToScan`] when the layout or its offset range is above the cap.
#[cfg(feature = "alloc")]
pub fn scan_collision<L: AnyLayout>(l: &L) -> Result<Option<i64>, LayoutError> {
    capped("injectivity", l.size(), SCAN_CAP)?;
    let (lo, hi) = l.offset_bounds()?;
    let span = hi.checked_sub(lo).and_then(|s| s.checked_add(1));
    let span = span.ok_or(LayoutError::Overflow { what: "cosize" })?;
    // a bitmap of `span` bits: 64 bits per visited element at most
    capped("injectivity", span, SCAN_CAP.saturating_mul(64))?;
    let mut seen = alloc::vec![0u64; (span as usize).div_ceil(64)];
    let mut dup = None;
    for_each_offset(l, |o| {
        // `lo <= o <= hi` by the contract of `offset_bounds`; checked anyway (no unsafe here)
        let Some(k) = o.checked_sub(lo).filter(|&k| k >= 0 && k < span) else {
            dup = dup.or(Some(o));
            return;
        };
        let (w, b) = ((k / 64) as usize, 1u64 << (k % 64));
        if seen[w] & b != 0 && dup.is_none() {
            dup = Some(o);
        }
        seen[w] |= b;
    })?;
    Ok(dup)
}

/// An offset that two indices of `l` share, or `None`, comparing every pair (no heap).
///
/// # Errors
/// [`LayoutError::TooLargeToScan`] above 4096 elements.
#[cfg(not(feature = "alloc"))]
pub fn scan_collision<L: AnyLayout>(l: &L) -> Result<Option<i64>, LayoutError> {
    let n = l.size();
    capped("injectivity", n, PAIR_SCAN_CAP)?;
    for i in 0..n {
        let o = l.offset(i);
        if (i + 1..n).any(|j| l.offset(j) == o) {
            return Ok(Some(o));
        }
    }
    Ok(None)
}

/// An offset that two coordinates of the affine layout `d` share, or `None`.
///
/// First the sufficient test PyTorch uses for "non-overlapping": with the modes sorted by
/// `|stride|`, each stride exceeds the span of all smaller ones. Layouts that fail it (e.g.
/// `(3,3):(2,3)`, which is injective) are decided exactly by visiting every offset.
pub fn affine_collision(d: &DynLayout) -> Result<Option<i64>, LayoutError> {
    let mut modes = [(0i64, 0i64); crate::MAX_LEAVES];
    let mut m = 0;
    for (&e, &s) in d.shape_leaves().iter().zip(d.stride_leaves()) {
        if e > 1 {
            if s == 0 {
                return Ok(Some(0));
            }
            modes[m] = (e, s.abs());
            m += 1;
        }
    }
    let modes = &mut modes[..m];
    modes.sort_unstable_by_key(|&(_, s)| s);
    let mut reach = 0i64;
    for &(e, s) in modes.iter() {
        if s <= reach {
            return exact_affine_collision(d);
        }
        reach += (e - 1) * s; // within the validated cosize
    }
    Ok(None)
}

#[cfg(feature = "alloc")]
fn exact_affine_collision(d: &DynLayout) -> Result<Option<i64>, LayoutError> {
    // a bitmap over the offset range, which fits i64 (validated layout)
    let (lo, hi) = d.offset_range();
    let span =
        usize::try_from(hi - lo + 1).map_err(|_| LayoutError::Overflow { what: "cosize" })?;
    let mut seen = alloc::vec::Vec::new();
    seen.try_reserve_exact(span.div_ceil(64))
        .map_err(|_| LayoutError::Overflow { what: "cosize" })?;
    seen.resize(span.div_ceil(64), 0u64);
    let mut dup = None;
    Plan::logical(d).for_each(|[o]| {
        let k = (o - lo) as usize;
        let (w, b) = (k / 64, 1u64 << (k % 64));
        if seen[w] & b != 0 && dup.is_none() {
            dup = Some(o);
        }
        seen[w] |= b;
    });
    Ok(dup)
}

#[cfg(not(feature = "alloc"))]
fn exact_affine_collision(d: &DynLayout) -> Result<Option<i64>, LayoutError> {
    for i in 0..d.size() {
        let o = d.offset(i);
        if d.index_of_offset(o) != Some(i) {
            return Ok(Some(o));
        }
    }
    Ok(None)
}
