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
/// Decided without visiting the offsets whenever the structure allows, so that it never takes
/// more than a few milliseconds:
/// 1. a stride-0 mode of extent > 1, or two modes `e₁:s₁`, `e₂:s₂` that meet (with
///    `g = gcd(|s₁|,|s₂|)`, `e₁ > |s₂|/g` and `e₂ > |s₁|/g`), names a shared offset at once;
/// 2. with the modes sorted by `|stride|`, each stride at least the span of all smaller ones
///    (the test PyTorch uses for "non-overlapping"; every compact or admissible layout passes)
///    ⇒ injective;
/// 3. more elements than offsets in `[lo, hi]` ⇒ not injective
///    ([`LayoutError::NotInjectiveBySize`], no offset named);
/// 4. otherwise (e.g. `(3,3):(2,3)`, injective) every offset is visited, at most [`SCAN_CAP`]
///    elements ([`LayoutError::TooLargeToScan`] beyond).
///
/// # Errors
/// [`LayoutError::NotInjectiveBySize`] (case 3), [`LayoutError::TooLargeToScan`] (case 4),
/// [`LayoutError::AllocationFailed`] when the bitmap of the scan cannot be allocated.
pub fn affine_collision(d: &DynLayout) -> Result<Option<i64>, LayoutError> {
    let mut modes = [(0i64, 0i64); crate::MAX_LEAVES];
    let mut m = 0;
    for (&e, &s) in d.shape_leaves().iter().zip(d.stride_leaves()) {
        if e > 1 {
            if s == 0 {
                return Ok(Some(0));
            }
            modes[m] = (e, s);
            m += 1;
        }
    }
    let modes = &mut modes[..m];
    // 1. two modes that meet: coordinate b' of the first and a' of the second reach the same
    //    offset (same sign), or (b', a') reaches 0 like the origin (opposite signs)
    for i in 0..modes.len() {
        for j in i + 1..modes.len() {
            let ((ei, si), (ej, sj)) = (modes[i], modes[j]);
            let g = gcd(si.unsigned_abs(), sj.unsigned_abs());
            let (ai, aj) = (si.unsigned_abs() / g, sj.unsigned_abs() / g);
            if ei.unsigned_abs() > aj && ej.unsigned_abs() > ai {
                // |si|·aj = lcm ≤ |si|·(ei - 1): inside the validated cosize
                return Ok(Some(if (si > 0) == (sj > 0) {
                    si * aj as i64
                } else {
                    0
                }));
            }
        }
    }
    // 2. sorted strides, each beyond the reach of the smaller ones
    modes.sort_unstable_by_key(|&(_, s)| s.unsigned_abs());
    let mut reach = 0i64;
    let mut ordered = true;
    for &(e, s) in modes.iter() {
        if s.abs() <= reach {
            ordered = false;
            break;
        }
        reach += (e - 1) * s.abs(); // within the validated cosize
    }
    if ordered {
        return Ok(None);
    }
    // 3. pigeonhole
    let (lo, hi) = d.offset_range();
    let span = (hi - lo).saturating_add(1);
    if d.size() > span {
        return Err(LayoutError::NotInjectiveBySize {
            size: d.size(),
            span,
        });
    }
    // 4. capped scan
    capped("injectivity", d.size(), SCAN_CAP)?;
    exact_affine_collision(d)
}

/// Greatest common divisor (`gcd(0, 0) == 0`).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Visit every offset of `d` (at most [`SCAN_CAP`]): a bitmap over `[lo, hi]` when it is at most
/// 64 bits per element, else the sorted offsets (8 bytes per element).
#[cfg(feature = "alloc")]
fn exact_affine_collision(d: &DynLayout) -> Result<Option<i64>, LayoutError> {
    // a bitmap over the offset range, which fits i64 (validated layout)
    let (lo, hi) = d.offset_range();
    let span = usize::try_from(hi - lo + 1).unwrap_or(usize::MAX);
    let size = usize::try_from(d.size()).unwrap_or(usize::MAX);
    if span / 64 > size {
        let mut all = alloc::vec::Vec::new();
        all.try_reserve_exact(size)
            .map_err(|_| LayoutError::AllocationFailed {
                what: "the offsets of an injectivity scan",
                bytes: d.size().saturating_mul(8),
            })?;
        Plan::logical(d).for_each(|[o]| all.push(o));
        all.sort_unstable();
        return Ok(all.windows(2).find(|w| w[0] == w[1]).map(|w| w[0]));
    }
    let words = span.div_ceil(64);
    let mut seen = alloc::vec::Vec::new();
    seen.try_reserve_exact(words)
        .map_err(|_| LayoutError::AllocationFailed {
            what: "the injectivity bitmap",
            bytes: i64::try_from(words)
                .unwrap_or(i64::MAX / 8)
                .saturating_mul(8),
        })?;
    seen.resize(words, 0u64);
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
    capped("injectivity", d.size(), PAIR_SCAN_CAP)?;
    for i in 0..d.size() {
        let o = d.offset(i);
        if d.index_of_offset(o)? != Some(i) {
            return Ok(Some(o));
        }
    }
    Ok(None)
}
