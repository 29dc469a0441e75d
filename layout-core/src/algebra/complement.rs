//! `complement`: the layout of "the rest" of a codomain not reached by a layout.

use super::flat_modes::{Modes, ceil_div, mul};
use crate::const_try::ctry;
use crate::tuple::MAX_LEAVES;
use crate::{DynLayout, DynTuple, LayoutError};

/// The sorted modes of `filter(L)` checked to be injective and admissible for `complement`
/// (`strict`: each stride a multiple of the span below it) or for `left_inverse` (`!strict`:
/// each stride a multiple of the previous stride and at least the span below it).
pub(crate) const fn sorted_checked(
    f: &Modes,
    strict: bool,
    op: &'static str,
) -> Result<[usize; MAX_LEAVES], LayoutError> {
    let ord = f.order_by_stride();
    let mut i = 0;
    while i < f.n {
        if f.d[ord[i]] < 0 {
            return Err(LayoutError::Precondition {
                what: op,
                a: f.s[ord[i]],
                b: f.d[ord[i]],
            });
        }
        i += 1;
    }
    let mut span: i64 = 1; // s·d of the previous mode
    let mut prev: i64 = 1; // d of the previous mode
    let mut i = 0;
    while i < f.n {
        let (s, d) = (f.s[ord[i]], f.d[ord[i]]);
        let ok = if strict {
            d % span == 0
        } else {
            d % prev == 0 && d >= span
        };
        if !ok {
            // Find a collision: an earlier mode (sa:da) with da | d and d/da < sa.
            let mut k = 0;
            while k < i {
                let (sa, da) = (f.s[ord[k]], f.d[ord[k]]);
                if da > 0 && d % da == 0 && d / da < sa {
                    return Err(LayoutError::NotInjective { offset: d });
                }
                k += 1;
            }
            return Err(LayoutError::Precondition {
                what: if strict {
                    "complement: stride {b} is not a multiple of the span {a} of the \
                     smaller-stride modes"
                } else {
                    "left_inverse: sorted by stride, each stride must be a multiple of the one \
                     before ({a}) and at least the span of the smaller-stride modes; stride {b} \
                     is not"
                },
                a: if strict { span } else { prev },
                b: d,
            });
        }
        span = ctry!(mul(s, d, "complement span"));
        prev = d;
        i += 1;
    }
    Ok(ord)
}

/// The most offsets the compile-time-capable injectivity scan of [`check_injective`] covers
/// (a bitmap on the stack).
const BITMAP_BITS: i64 = 1 << 16;

const fn gcd(mut a: i64, mut b: i64) -> i64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// `Ok` when the modes `f` (extents > 1, strides > 0) map no two coordinates to one offset,
/// decided as `walk::scan::affine_collision` does but in `const` code: two modes that meet, the
/// sorted-span test, the pigeonhole count, and else a bitmap scan of at most 2^16 offsets.
const fn check_injective(f: &Modes, ord: &[usize; MAX_LEAVES]) -> Result<(), LayoutError> {
    let mut i = 0;
    while i < f.n {
        let mut j = i + 1;
        while j < f.n {
            let (si, di, sj, dj) = (f.s[i], f.d[i], f.s[j], f.d[j]);
            let g = gcd(di, dj);
            if si > dj / g && sj > di / g {
                return Err(LayoutError::NotInjective {
                    offset: di * (dj / g),
                });
            }
            j += 1;
        }
        i += 1;
    }
    // sorted strides, each beyond the reach of the smaller ones
    let mut reach = 0i64;
    let mut ordered = true;
    let mut size = 1i64;
    let mut i = 0;
    while i < f.n {
        let (s, d) = (f.s[ord[i]], f.d[ord[i]]);
        if d <= reach {
            ordered = false;
        }
        reach += (s - 1) * d; // inside the validated cosize
        size *= s; // inside the validated size
        i += 1;
    }
    if ordered {
        return Ok(());
    }
    let span = reach + 1;
    if size > span {
        return Err(LayoutError::NotInjectiveBySize { size, span });
    }
    if span > BITMAP_BITS {
        return Err(LayoutError::TooLargeToScan {
            what: "injectivity (for complement)",
            size,
            cap: BITMAP_BITS,
        });
    }
    let mut seen = [0u64; (BITMAP_BITS / 64) as usize];
    let mut c = [0i64; MAX_LEAVES];
    let mut off = 0i64;
    loop {
        let (w, b) = ((off / 64) as usize, 1u64 << (off % 64));
        if seen[w] & b != 0 {
            return Err(LayoutError::NotInjective { offset: off });
        }
        seen[w] |= b;
        let mut k = 0;
        loop {
            if k == f.n {
                return Ok(());
            }
            c[k] += 1;
            off += f.d[k];
            if c[k] < f.s[k] {
                break;
            }
            off -= c[k] * f.d[k];
            c[k] = 0;
            k += 1;
        }
    }
}

impl DynLayout {
    /// CuTe's `complement(L, M)`: an ordered layout `R` of "the rest" of `[0, M)`, the offsets
    /// `L` does not reach, so that `(L, R)` is injective and reaches past `M`.
    ///
    /// Definition (pycute's, which CuTe's is for admissible layouts): sort the modes of
    /// `filter(L)` by stride; walking them with `cur = 1`, each mode `s:d` contributes the gap
    /// mode `floor(d/cur):cur` and sets `cur = s·d`; finally the mode `ceil(M/cur):cur`
    /// (grown by one when the gaps leave `(L, R)` short of `M`); the result is coalesced (`1:0`
    /// when empty). When a mode's stride is below the span `s·d` of the mode before (a gap of
    /// `0`, e.g. `(3,2):(2,3)`), or this result breaks a postcondition, the complement is
    /// `ceil(M/c):c` with `c = cosize(filter(L))`, which always meets them.
    ///
    /// # Preconditions
    /// Strides non-negative; `filter(L)` injective — exactly the layouts that have a
    /// complement (for a non-injective `L`, `(L, R)` cannot be injective). Stride-0 modes are
    /// ignored (they do not change the image).
    ///
    /// # Postconditions
    /// CuTe's: `R(i-1) < R(i)` (ordered); `R(i) ∉ image(L)` for `i ≥ 1`, and more: `(L, R)` is
    /// injective; `cosize((L, R)) ≥ M`. The cosize bound: when `filter(L)` is admissible
    /// (each sorted stride a multiple of the span `s·d` before it) `R` is CuTe's result, `(L, R)`
    /// covers `[0, M)` exactly and `cosize(R) ≤ round_up(M, S)` with `S` the span of `L`'s
    /// largest-stride mode (CuTe's unit-test bound `round_up(M, cosize(L))` does not always hold
    /// for CuTe's own result: `complement(2:4, 9)` is `(4,2):(1,8)`, of cosize 12 > 10); otherwise
    /// `cosize(R) ≤ round_up(M, cosize(filter(L)))`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "4:2".parse().unwrap();
    /// assert_eq!(l.complement(24).unwrap().to_string(), "(2,3):(1,8)");
    /// let l: DynLayout = "(2,2):(1,6)".parse().unwrap();
    /// assert_eq!(l.complement(24).unwrap().to_string(), "(3,2):(2,12)");
    /// // injective but not admissible: still complemented
    /// let l: DynLayout = "(3,7):(10,33)".parse().unwrap();
    /// assert_eq!(l.complement(219).unwrap().to_string(), "10:1");
    /// // non-injective: refused (CuTe pycute returns the zero-extent layout 0:2)
    /// let l: DynLayout = "(2,2):(1,1)".parse().unwrap();
    /// assert!(l.complement(4).is_err());
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::NotInjective`] or [`LayoutError::NotInjectiveBySize`];
    /// [`LayoutError::Precondition`] (negative stride, `M < 1`); [`LayoutError::Overflow`];
    /// [`LayoutError::TooLargeToScan`] when injectivity needs a scan of more than 2^16 offsets.
    pub const fn complement(&self, cotarget: i64) -> Result<DynLayout, LayoutError> {
        if cotarget < 1 {
            return Err(LayoutError::Precondition {
                what: "complement: the cotarget is {a}; it must be at least {b}",
                a: cotarget,
                b: 1,
            });
        }
        let t = DynTuple::leaf(cotarget);
        self.complement_impl(&t, true)
    }

    /// CuTe's `complement(L, shape)`: as [`DynLayout::complement`], but the rest is
    /// `ceil_div(shape, cur)` taken hierarchically (leaf by leaf, left to right), so it can round
    /// up per mode: `complement(4:2, (4,6))` is `(2,3):(1,8)` while `ceil_div(24, 8)` is 3 too,
    /// but `ceil_div((3,4), 2) = (2,4)`.
    ///
    /// # Preconditions
    /// As [`DynLayout::complement`]; every leaf of `shape` ≥ 1.
    ///
    /// # Postconditions
    /// `R` ordered, disjoint from `image(L)` past `R(0)`, `(L, R)` injective; `(L, R)` covers
    /// `[0, cur·Π qᵢ)` where `qᵢ` are the per-leaf quotients — which is *not* always all of
    /// `[0, size(shape))` (`complement(18:1, (5,8))` is `2:18`, covering 36 < 40), exactly as in
    /// CuTe.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "4:2".parse().unwrap();
    /// let r = l.complement_shape(&"(4,6)".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "(2,3):(1,8)");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::complement`].
    pub const fn complement_shape(&self, cotarget: &DynTuple) -> Result<DynLayout, LayoutError> {
        self.complement_impl(cotarget, false)
    }

    /// The complement; with `leaf` (an integer cotarget `M`) the postconditions on `M` are
    /// checked and the fallback `ceil(M/c):c` used when the gap construction misses them.
    const fn complement_impl(
        &self,
        cotarget: &DynTuple,
        leaf: bool,
    ) -> Result<DynLayout, LayoutError> {
        let c = cotarget.leaves();
        let mut i = 0;
        while i < c.len() {
            if c[i] < 1 {
                return Err(LayoutError::Precondition {
                    what: "complement: a cotarget extent is {a}; extents must be at least {b}",
                    a: c[i],
                    b: 1,
                });
            }
            i += 1;
        }
        let filtered = self.filter();
        let f = Modes::of(&filtered);
        let f = if f.n == 1 && f.d[0] == 0 {
            Modes::EMPTY
        } else {
            f
        };
        let ord = f.order_by_stride();
        let mut i = 0;
        while i < f.n {
            if f.d[ord[i]] < 0 {
                return Err(LayoutError::Precondition {
                    what: "complement: a mode has stride {b} (extent {a}); strides must be non-negative",
                    a: f.s[ord[i]],
                    b: f.d[ord[i]],
                });
            }
            i += 1;
        }
        // the gap construction; a zero gap means a stride below the span before it
        let mut out = Modes::EMPTY;
        let mut cur: i64 = 1;
        let mut gaps = true;
        let mut exact = true; // admissible: every stride a multiple of the span before
        let mut i = 0;
        while i < f.n {
            let (s, d) = (f.s[ord[i]], f.d[ord[i]]);
            if d / cur == 0 {
                gaps = false;
                break;
            }
            exact &= d % cur == 0;
            if d / cur > 1 {
                ctry!(out.push(d / cur, cur));
            }
            cur = ctry!(mul(s, d, "complement stride"));
            i += 1;
        }
        let cosize_l = filtered.cosize();
        if gaps {
            // (L, R) passes the sorted-span test (each gap floor(d/cur)·cur ≤ d): injective
            if !leaf || exact {
                // CuTe's result: for an admissible L, (L, R) tiles [0, q·cur) ⊇ [0, M)
                return rest_modes(out, cur, c);
            }
            let m = c[0];
            // cosize((L, R)) = cosize(L) + cosize(gaps) - 1 + (q-1)·cur ≥ M
            let mut gap_cosize: i64 = 1;
            let mut k = 0;
            while k < out.n {
                gap_cosize += (out.s[k] - 1) * out.d[k]; // < cur
                k += 1;
            }
            let base = cosize_l + gap_cosize - 1; // < 2·cur
            let mut q = ceil_div(m, cur);
            if base + (q - 1) * cur < m {
                q += 1;
            }
            let r_cosize = gap_cosize.saturating_add((q - 1).saturating_mul(cur));
            if r_cosize <= round_up(m, cosize_l) {
                if q > 1 {
                    ctry!(out.push(q, cur));
                }
                return out.coalesced().build();
            }
        } else {
            ctry!(check_injective(&f, &ord));
        }
        // fallback: whole copies of L's offset range
        rest_modes(Modes::EMPTY, cosize_l, c)
    }
    /// CuTe's `complement(L)`: the complement with respect to `cosize(filter(L))`.
    ///
    /// # Preconditions
    /// As [`DynLayout::complement`].
    ///
    /// # Postconditions
    /// As [`DynLayout::complement`].
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(2,2):(1,4)".parse().unwrap();
    /// assert_eq!(l.complement_cosize().unwrap().to_string(), "2:2");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::complement`].
    pub const fn complement_cosize(&self) -> Result<DynLayout, LayoutError> {
        self.complement(self.filter().cosize())
    }
}

/// `round_up(m, c)`: the least multiple of `c ≥ 1` that is at least `m` (saturating).
const fn round_up(m: i64, c: i64) -> i64 {
    ceil_div(m, c).saturating_mul(c)
}

/// `out` followed by the rest modes `ceil_div(cotarget, cur)` (hierarchical, leaf by leaf)
/// with compact strides from `cur`, coalesced.
const fn rest_modes(mut out: Modes, cur: i64, c: &[i64]) -> Result<DynLayout, LayoutError> {
    let mut div = cur;
    let mut stride = cur;
    let mut i = 0;
    while i < c.len() {
        let q = ceil_div(c[i], div);
        div = ceil_div(div, c[i]);
        if q > 1 {
            ctry!(out.push(q, stride));
            stride = ctry!(mul(stride, q, "complement stride"));
        }
        i += 1;
    }
    out.coalesced().build()
}
