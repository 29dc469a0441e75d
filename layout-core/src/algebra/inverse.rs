//! `right_inverse` and `left_inverse`.

use super::complement::sorted_checked;
use super::flat_modes::{Modes, must};
use crate::const_try::ctry;
use crate::{DynLayout, LayoutError};

impl DynLayout {
    /// CuTe's `right_inverse(L)`: a layout `R` with `L(R(i)) == i` for every `i < size(R)`,
    /// as large as the strides allow.
    ///
    /// Definition (CuTe C++): coalesce `L`, sort its modes by stride; walking them with
    /// `cur = 1`, a mode `s:d` with `d == cur` is taken as the mode `s : p` (`p` = its 1-D index
    /// stride in `L`) and sets `cur = s·d`; other modes are skipped and the walk goes on (pycute
    /// stops at the first mismatch, so a stride-0 mode leaves it with `1:0`). The result is
    /// coalesced; `1:0` when nothing is taken.
    ///
    /// # Preconditions
    /// None (every layout has a right inverse, possibly `1:0`).
    ///
    /// # Postconditions
    /// `L(R(i)) == i` for all `i < size(R)`; `R(i) < size(L)`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(4,8):(8,1)".parse().unwrap();
    /// let r = l.right_inverse();
    /// assert_eq!(r.to_string(), "(8,4):(4,1)");
    /// for i in 0..r.size() {
    ///     assert_eq!(l.offset(r.offset(i)), i);
    /// }
    /// assert_eq!(DynLayout::from_flat(&[2, 2], &[0, 1]).unwrap().right_inverse().to_string(), "2:2");
    /// ```
    pub const fn right_inverse(&self) -> DynLayout {
        let c = Modes::of(self).coalesced();
        let p = c.index_strides();
        let ord = c.order_by_stride();
        let mut out = Modes::EMPTY;
        let mut cur: i64 = 1;
        let mut i = 0;
        while i < c.n {
            let k = ord[i];
            if c.d[k] == cur {
                if out.push(c.s[k], p[k]).is_err() {
                    break;
                }
                cur = match c.s[k].checked_mul(c.d[k]) {
                    Some(v) => v,
                    None => break,
                };
            }
            i += 1;
        }
        must(out.coalesced().build())
    }

    /// CuTe's `left_inverse(L)`: a layout `R` with `R(L(i)) == i` for every `i < size(L)` when
    /// `L` is injective, and in general (the generalized left inverse of CuTe C++ and PyCuTe)
    /// `L(R(L(i))) == L(i)`: stride-0 modes carry no information and are skipped, so
    /// `left_inverse(4:0)` is `1:0`.
    ///
    /// Definition: coalesce `L` and sort its modes by stride `d₀ < d₁ < …`; `R` reads the offset
    /// as a mixed-radix number: a first mode `d₀:0` (offsets below `d₀` are never hit), then for
    /// each mode `a` the mode `(d_{a+1}/d_a) : p_a` (`p_a` = the 1-D index stride of mode `a`
    /// in `L`), the last one `s_last : p_last`; coalesced. This is CuTe C++'s construction
    /// (since v3.9), not pycute's (which goes through `complement` and is wrong for injective
    /// layouts that are not complementable, e.g. `(3,(2,3)):(3,(12,1))`).
    ///
    /// # Preconditions
    /// `L` injective up to its stride-0 modes (`filter_zeros(L)` injective), non-negative
    /// strides, and the offsets of its moving modes form a mixed-radix set: sorted
    /// by stride, each stride is a multiple of the previous stride and at least the span `s·d`
    /// of the previous mode.
    ///
    /// # Postconditions
    /// `L(R(L(i))) == L(i)` for all `i < size(L)`, and `R(L(i)) == i` when `L` is injective;
    /// `size(R) ≥ cosize(L)`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "4:2".parse().unwrap();
    /// assert_eq!(l.left_inverse().unwrap().to_string(), "(2,4):(0,1)");
    /// let l: DynLayout = "(3,(2,3)):(3,(12,1))".parse().unwrap();
    /// let r = l.left_inverse().unwrap();
    /// for i in 0..l.size() {
    ///     assert_eq!(r.offset(l.offset(i)), i);
    /// }
    /// assert!(DynLayout::from_flat(&[2, 2], &[1, 1]).unwrap().left_inverse().is_err());
    /// // non-injective only through stride 0: the generalized left inverse
    /// assert_eq!("4:0".parse::<DynLayout>().unwrap().left_inverse().unwrap().to_string(), "1:0");
    /// assert_eq!("(4,2):(0,1)".parse::<DynLayout>().unwrap().left_inverse().unwrap().to_string(), "2:4");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::NotInjective`] (modes of non-zero stride that collide), [`LayoutError::Precondition`]
    /// (negative stride, not a mixed-radix image).
    pub const fn left_inverse(&self) -> Result<DynLayout, LayoutError> {
        let all = Modes::of(self).coalesced();
        // index strides in `L` itself, then only the modes that move (stride-0 modes carry no
        // information: the generalized inverse ignores them)
        let pall = all.index_strides();
        let mut c = Modes::EMPTY;
        let mut p = [0i64; crate::MAX_LEAVES];
        let mut i = 0;
        while i < all.n {
            if all.d[i] != 0 {
                p[c.n] = pall[i];
                ctry!(c.push(all.s[i], all.d[i]));
            }
            i += 1;
        }
        if c.n == 0 {
            return DynLayout::leaf(1, 0);
        }
        let ord = ctry!(sorted_checked(
            &c,
            false,
            "left_inverse: a mode has stride {b} (extent {a}); strides must be non-negative"
        ));
        let mut out = Modes::EMPTY;
        let d0 = c.d[ord[0]];
        if d0 > 1 {
            ctry!(out.push(d0, 0));
        }
        let mut i = 0;
        while i < c.n {
            let k = ord[i];
            let ext = if i + 1 < c.n {
                c.d[ord[i + 1]] / c.d[k]
            } else {
                c.s[k]
            };
            ctry!(out.push(ext, p[k]));
            i += 1;
        }
        out.coalesced().build()
    }
}
