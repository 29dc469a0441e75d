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
                    "complement is not admissible: the layout is not a product of disjoint \
                     strided ranges (a stride is not a multiple of the span s·d of the \
                     smaller-stride modes)"
                } else {
                    "left_inverse is not admissible: a stride is not a multiple of the next \
                     smaller stride, or is smaller than the span s·d of the smaller-stride modes"
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

impl DynLayout {
    /// CuTe's `complement(L, M)`: the ordered layout `R` of the rest of `[0, M)` that `L` does not
    /// reach, so that `(L, R)` covers `[0, M)`.
    ///
    /// Definition: sort the modes of `filter(L)` by stride; walking them with `cur = 1`, each mode
    /// `s:d` contributes the gap mode `(d/cur):cur` and sets `cur = s·d`; finally the mode
    /// `ceil(M/cur):cur`; the result is coalesced (`1:0` when empty).
    ///
    /// # Preconditions
    /// Strides non-negative; `filter(L)` injective and *complementable*: with its modes sorted by
    /// stride, each stride is a multiple of the span `s·d` of the mode before. Stride-0 modes are
    /// ignored (they do not change the image).
    ///
    /// # Postconditions
    /// `R(i-1) < R(i)`; `R(i) ∉ image(L)` for `i ≥ 1`; `(L, R)` is injective on its domain and
    /// its image contains `[0, M)`; `size(R) ≥ 1`, every extent of `R` is positive.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "4:2".parse().unwrap();
    /// assert_eq!(l.complement(24).unwrap().to_string(), "(2,3):(1,8)");
    /// let l: DynLayout = "(2,2):(1,6)".parse().unwrap();
    /// assert_eq!(l.complement(24).unwrap().to_string(), "(3,2):(2,12)");
    /// // non-injective: refused (CuTe pycute returns the zero-extent layout 0:2)
    /// let l: DynLayout = "(2,2):(1,1)".parse().unwrap();
    /// assert!(l.complement(4).is_err());
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::NotInjective`], [`LayoutError::Precondition`] (negative stride, not
    /// complementable, `M < 1`), [`LayoutError::Overflow`].
    pub const fn complement(&self, cotarget: i64) -> Result<DynLayout, LayoutError> {
        if cotarget < 1 {
            return Err(LayoutError::Precondition {
                what: "complement needs a cotarget of at least 1",
                a: cotarget,
                b: 1,
            });
        }
        let t = DynTuple::leaf(cotarget);
        self.complement_shape(&t)
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
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "4:2".parse().unwrap();
    /// let r = l.complement_shape(&"(4,6)".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "(2,3):(1,8)");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::complement`].
    pub const fn complement_shape(&self, cotarget: &DynTuple) -> Result<DynLayout, LayoutError> {
        let f = Modes::of(&self.filter());
        let f = if f.n == 1 && f.d[0] == 0 {
            Modes::EMPTY
        } else {
            f
        };
        let ord = ctry!(sorted_checked(
            &f,
            true,
            "complement needs non-negative strides (numbers: extent and stride)"
        ));
        let mut out = Modes::EMPTY;
        let mut cur: i64 = 1;
        let mut i = 0;
        while i < f.n {
            let (s, d) = (f.s[ord[i]], f.d[ord[i]]);
            if d / cur > 1 {
                ctry!(out.push(d / cur, cur));
            }
            cur = ctry!(mul(s, d, "complement stride"));
            i += 1;
        }
        let c = cotarget.leaves();
        let mut div = cur;
        let mut stride = cur;
        let mut i = 0;
        while i < c.len() {
            if c[i] < 1 {
                return Err(LayoutError::Precondition {
                    what: "complement needs cotarget extents of at least 1",
                    a: c[i],
                    b: 1,
                });
            }
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

    /// CuTe's `complement(L)`: the complement with respect to `cosize(filter(L))`.
    ///
    /// # Preconditions
    /// As [`DynLayout::complement`].
    ///
    /// # Postconditions
    /// As [`DynLayout::complement`].
    ///
    /// ```
    /// use layout_core::DynLayout;
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
