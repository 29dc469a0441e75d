//! Copies between two static layouts: the whole plan computed at compile time.
//!
//! When both tensors' layout types are static and affine ([`AnyLayout::STATIC_LAYOUT`]), the
//! copy's plan does not depend on anything known only at run time: [`StaticCopy`] computes it
//! in associated consts, with the layouts' own `const fn`s — the destination's offsets in
//! memory order, the source offset of each, cut into runs of `LEN` elements contiguous in both
//! (the greatest common divisor of the maximal common runs: 16 for an fp16 tile into an NZ
//! fractal). The copy is then `COUNT` moves of `LEN` elements at constant offsets from the two
//! bases: LLVM unrolls the loop and folds the table into the instructions' displacements, so a
//! static tile into a static fractal is straight-line vector code with no plan at run time
//! (BENCHMARKS.md counts its instructions against a hand-written copy).

use core::marker::PhantomData;
use core::ptr;

use crate::{AnyLayout, DynLayout};

/// The most elements a static copy plans at compile time (a 32 × 32 tile).
pub(crate) const STATIC_COPY_MAX: usize = 1024;

/// The widest destination offset span (`max − min + 1`) ordered through an inverse table;
/// wider (padded) destinations are walked in logical order, one element at a time.
const SPAN_MAX: usize = 4 * STATIC_COPY_MAX;

/// A copy plan of at most [`STATIC_COPY_MAX`] elements: `count` runs of `len` elements, run `k`
/// from source offset `src[k]` to destination offset `dst[k]`.
#[derive(Clone, Copy)]
pub(crate) struct Runs {
    /// `false` when the layouts are not both static, of the same axis extents and small enough,
    /// or the destination is not injective: the run-time engine copies then.
    ok: bool,
    len: usize,
    count: usize,
    dst: [isize; STATIC_COPY_MAX],
    src: [isize; STATIC_COPY_MAX],
}

const NONE: Runs = Runs {
    ok: false,
    len: 1,
    count: 0,
    dst: [0; STATIC_COPY_MAX],
    src: [0; STATIC_COPY_MAX],
};

const fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// `true` when `a` and `b` have the same number of axes and the same extent on each.
const fn same_axes(a: &DynLayout, b: &DynLayout) -> bool {
    if a.rank() != b.rank() {
        return false;
    }
    let mut k = 0;
    while k < a.rank() {
        match (a.mode(k), b.mode(k)) {
            (Ok(x), Ok(y)) if x.size() == y.size() => {}
            _ => return false,
        }
        k += 1;
    }
    true
}

/// The plan of a copy from `s` to `d` (see [`Runs`]).
const fn plan(d: &DynLayout, s: &DynLayout) -> Runs {
    let n = d.size();
    if n < 1 || n as usize > STATIC_COPY_MAX || !same_axes(d, s) {
        return NONE;
    }
    let n = n as usize;
    let mut r = NONE;
    let (lo, hi) = d.offset_range();
    let span = (hi - lo + 1) as usize;
    if span > SPAN_MAX {
        // logical order, element by element (a destination mostly made of gaps)
        let mut i = 0;
        while i < n {
            r.dst[i] = d.offset(i as i64) as isize;
            r.src[i] = s.offset(i as i64) as isize;
            i += 1;
        }
        r.ok = true;
        r.count = n;
        return r;
    }
    // the destination in memory order: the logical index stored at each offset
    let mut inv = [usize::MAX; SPAN_MAX];
    let mut i = 0;
    while i < n {
        let o = (d.offset(i as i64) - lo) as usize;
        if inv[o] != usize::MAX {
            // two coordinates share an element: not a copy destination
            return NONE;
        }
        inv[o] = i;
        i += 1;
    }
    let mut k = 0;
    let mut o = 0;
    while o < span {
        if inv[o] != usize::MAX {
            r.dst[k] = (lo + o as i64) as isize;
            r.src[k] = s.offset(inv[o] as i64) as isize;
            k += 1;
        }
        o += 1;
    }
    // the common run: the gcd of the maximal runs contiguous in both layouts
    let mut len = 0;
    let mut start = 0;
    let mut k = 1;
    while k <= n {
        if k == n || r.dst[k] != r.dst[k - 1] + 1 || r.src[k] != r.src[k - 1] + 1 {
            len = gcd(len, k - start);
            start = k;
        }
        k += 1;
    }
    // keep the first element of each run of `len`
    let mut c = 0;
    while c * len < n {
        r.dst[c] = r.dst[c * len];
        r.src[c] = r.src[c * len];
        c += 1;
    }
    r.ok = true;
    r.len = len;
    r.count = c;
    r
}

/// The compile-time plan of a copy from a tensor of layout type `S` into one of layout type `D`.
pub(crate) struct StaticCopy<D, S>(PhantomData<(D, S)>);

impl<D: AnyLayout, S: AnyLayout> StaticCopy<D, S> {
    /// The plan; `RUNS.ok` is `false` unless both layouts are static and affine, with equal axis
    /// extents, at most [`STATIC_COPY_MAX`] elements and an injective destination.
    const RUNS: Runs = match (D::STATIC_LAYOUT, S::STATIC_LAYOUT) {
        (Some(d), Some(s)) if D::AFFINE && S::AFFINE => plan(&d, &s),
        _ => NONE,
    };
    /// Whether the copy runs from the compile-time plan.
    pub(crate) const OK: bool = Self::RUNS.ok;
    /// Elements per run.
    const LEN: usize = Self::RUNS.len;
    /// Number of runs.
    const COUNT: usize = Self::RUNS.count;

    /// Copy every element: `COUNT` moves of `LEN` elements at constant offsets, written out one
    /// after the other (no loop, no table at run time) up to [`UNROLLED`] runs.
    ///
    /// # Safety
    /// [`StaticCopy::OK`]; `dst + o` must be writable for every offset `o` of `D`'s layout and
    /// `src + o` readable for every offset of `S`'s, and the two buffers distinct.
    #[inline(always)]
    pub(crate) unsafe fn copy<T: Copy>(dst: *mut T, src: *const T) {
        let run = |k: usize| {
            let r = &Self::RUNS;
            // SAFETY: run `k` is `LEN` elements of both layouts (the plan), in bounds and
            // disjoint by the caller's contract.
            unsafe {
                ptr::copy_nonoverlapping(
                    src.wrapping_offset(r.src[k]),
                    dst.wrapping_offset(r.dst[k]),
                    Self::LEN,
                )
            };
        };
        // each `k < COUNT` is a constant, and so is `RUNS.src[k]` for a literal `k`: LLVM keeps
        // the moves of the runs that exist, with constant displacements (a loop over a table of
        // 64 runs is not unrolled on its own)
        macro_rules! each {
            ($($k:literal)*) => {$(
                if $k < Self::COUNT {
                    run($k);
                }
            )*};
        }
        if Self::COUNT <= UNROLLED {
            each!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63);
        } else {
            for k in 0..Self::COUNT {
                run(k);
            }
        }
    }
}

/// Runs a static copy writes out without a loop.
const UNROLLED: usize = 64;

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// The plan visits every element once, each run contiguous on both sides, and the source
    /// offset of each destination element is the source layout's offset of the same logical
    /// index — checked element by element on layouts of every kind.
    #[test]
    fn plans_match_the_definition() {
        let cases = [
            ("(16,16):(16,1)", "((16,1),(16,1)):((16,256),(1,256))"),
            ("((16,2),(16,2)):((16,256),(1,512))", "(32,32):(32,1)"),
            ("(32,32):(1,32)", "(32,32):(32,1)"),
            ("(8,4):(4,1)", "(8,4):(4,1)"),
            ("(8,(2,2)):(1,(16,8))", "(8,4):(4,1)"),
            ("(4,6):(6,-1)", "(4,6):(1,4)"),
            ("(4,4):(1,5000)", "(4,4):(4,1)"),
        ];
        for (dt, st) in cases {
            let (d, s): (DynLayout, DynLayout) = (dt.parse().unwrap(), st.parse().unwrap());
            let r = plan(&d, &s);
            assert!(r.ok, "{dt} <- {st}");
            assert_eq!(r.len * r.count, d.size() as usize);
            // every destination offset once, with the source offset of its logical index
            let mut seen = std::collections::BTreeMap::new();
            for k in 0..r.count {
                for e in 0..r.len as isize {
                    assert!(seen.insert(r.dst[k] + e, r.src[k] + e).is_none());
                }
            }
            for i in 0..d.size() {
                assert_eq!(
                    seen.get(&(d.offset(i) as isize)),
                    Some(&(s.offset(i) as isize)),
                    "{dt} <- {st} at {i}"
                );
            }
        }
        // ND into a 2 × 2-fractal NZ tile: the 16-element fractal rows; one fractal is all
        // one run
        let nz: DynLayout = "((16,2),(16,2)):((16,256),(1,512))".parse().unwrap();
        let nd: DynLayout = "(32,32):(32,1)".parse().unwrap();
        assert_eq!(plan(&nz, &nd).len, 16);
        let one: DynLayout = "((16,1),(16,1)):((16,256),(1,256))".parse().unwrap();
        let nd: DynLayout = "(16,16):(16,1)".parse().unwrap();
        assert_eq!(plan(&one, &nd).len, 256);
        // different axis extents, too many elements, a non-injective destination: no plan
        for (dt, st) in [
            ("(4,8):(8,1)", "(8,4):(4,1)"),
            ("(64,64):(64,1)", "(64,64):(64,1)"),
            ("(4,4):(1,0)", "(4,4):(4,1)"),
        ] {
            let (d, s): (DynLayout, DynLayout) = (dt.parse().unwrap(), st.parse().unwrap());
            assert!(!plan(&d, &s).ok, "{dt} <- {st}");
        }
    }
}
