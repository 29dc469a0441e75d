//! `upcast`, `downcast`, `recast_layout`: a layout over elements of another width.

use super::flat_modes::ceil_div;
use crate::const_try::ctry;
use crate::dyn_layout::Builder;
use crate::tuple::{CLOSE, OPEN};
use crate::{DynLayout, LayoutError};

const fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

impl DynLayout {
    /// CuTe's `upcast<N>(L)`: the layout over elements `N` times wider (offsets in units of the
    /// new element), leaf by leaf: stride 0 stays; `|d| ≥ N`: stride `d/N`; `|d| < N`: extent
    /// `ceil(s / (N/|d|))`, stride `sign(d)`.
    ///
    /// # Preconditions
    /// `N ≥ 1`; every non-zero stride `d` has `N | d` or `|d| | N` (CuTe's static assertion,
    /// here checked for every value); and the leaves of stride `0 < |d| < N` stay inside one
    /// wide element together: `Σ (min(s, N/|d|) - 1)·|d| < N` over those leaves (CuTe does not
    /// check this; without it `upcast((4,5):(2,2), 8)` would merge wide elements 0 and 1).
    ///
    /// # Postconditions
    /// Congruent with `L`; for every coordinate `c` of `L`, with `c'` the coordinate `c` with
    /// every leaf of stride `0 < |d| < N` divided (floor) by `N/|d|`:
    /// `L(c) == N·R(c') + ρ(c)` where `ρ(c) = Σ sign(d)·(c mod N/|d|)·|d|` over those leaves
    /// and `|ρ(c)| < N`. For non-negative strides `ρ ≥ 0`, so `R(c') == floor(L(c)/N)`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(4,8):(1,4)".parse().unwrap();
    /// assert_eq!(l.upcast(2).unwrap().to_string(), "(2,8):(1,2)");
    /// let overlap: DynLayout = "(4,5):(2,2)".parse().unwrap();
    /// assert_eq!(overlap.upcast(8).unwrap_err().to_string(),
    ///     "upcast: the leaves of stride below the factor reach 12 narrow offsets past the start of a wide element, which holds only 8");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::Precondition`] naming the stride and `N`, or the in-element reach and `N`.
    pub const fn upcast(&self, n: i64) -> Result<DynLayout, LayoutError> {
        if n < 1 {
            return Err(LayoutError::Precondition {
                what: "upcast: the factor is {a}; it must be at least {b}",
                a: n,
                b: 1,
            });
        }
        let mut shape = self.shape();
        let mut stride = self.stride();
        let s = shape.leaves_mut();
        let d = stride.leaves_mut();
        // the reach of the sub-element leaves inside one wide element (each term < N)
        let mut reach = 0i64;
        let mut i = 0;
        while i < s.len() {
            let a = d[i].abs();
            if a == 0 {
                // unchanged
            } else if a >= n {
                if a % n != 0 {
                    return Err(LayoutError::Precondition {
                        what: "upcast: stride {a} is not a multiple of the factor {b}",
                        a: d[i],
                        b: n,
                    });
                }
                d[i] /= n;
            } else {
                if n % a != 0 {
                    return Err(LayoutError::Precondition {
                        what: "upcast: stride {a} does not divide the factor {b}",
                        a: d[i],
                        b: n,
                    });
                }
                let per = n / a;
                let used = if s[i] < per { s[i] } else { per };
                reach = reach.saturating_add((used - 1) * a);
                s[i] = ceil_div(s[i], per);
                d[i] = d[i].signum();
            }
            i += 1;
        }
        if reach >= n {
            return Err(LayoutError::Precondition {
                what: "upcast: the leaves of stride below the factor reach {a} narrow offsets past the start of a wide element, which holds only {b}",
                a: reach,
                b: n,
            });
        }
        DynLayout::new(&shape, &stride)
    }

    /// CuTe's `downcast<N>(L)`: the layout over elements `N` times narrower. Each wide element
    /// at offset `w` becomes the narrow elements `N·w + j`, `j < N`, in that order: a leaf of
    /// stride 1 gets `N` times the extent (as in CuTe), a leaf `s:-1` of extent `s > 1` becomes
    /// the mode `(N,s):(1,-N)` (CuTe's `(s·N):(-1)` would put the narrow elements of each wide
    /// one in reverse order and start at the wrong one), other strides are multiplied by `N`.
    ///
    /// A layout without a stride-±1 leaf keeps its extents and gets every stride multiplied by
    /// `N` (`downcast(24:2, 2)` = `24:4`, as in CuTe C++ and PyCuTe): it addresses the first
    /// narrow element of each wide one.
    ///
    /// # Preconditions
    /// `N ≥ 1`.
    ///
    /// # Postconditions
    /// When exactly one leaf `k` has stride ±1: `size(R) == N · size(L)`, and the narrow index
    /// whose leaf-`k` coordinate is `N·c_k + j` (the `j`-th narrow element of wide coordinate
    /// `c`) maps to `N·L(c) + j`. So `R`'s image is exactly the narrow offsets of `L`'s elements,
    /// in `L`'s element order; `upcast(N)` of the result is functionally `L` again. When no leaf
    /// has stride ±1: `R` is congruent with `L` and `R(c) == N·L(c)` for every coordinate.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(4,8):(1,4)".parse().unwrap();
    /// assert_eq!(l.downcast(2).unwrap().to_string(), "(8,8):(1,8)");
    /// let rev: DynLayout = "(4,4):(-1,4)".parse().unwrap();
    /// assert_eq!(rev.downcast(2).unwrap().to_string(), "((2,4),4):((1,-2),8)");
    /// let strided: DynLayout = "24:2".parse().unwrap();
    /// assert_eq!(strided.downcast(2).unwrap().to_string(), "24:4");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::Precondition`]; [`LayoutError::Overflow`]; [`LayoutError::TooManyLeaves`]
    /// or [`LayoutError::TooComplex`] when a split `s:-1` leaf does not fit a run-time layout.
    pub const fn downcast(&self, n: i64) -> Result<DynLayout, LayoutError> {
        if n < 1 {
            return Err(LayoutError::Precondition {
                what: "downcast: the factor is {a}; it must be at least {b}",
                a: n,
                b: 1,
            });
        }
        if n == 1 {
            return Ok(*self);
        }
        let toks = self.profile().tokens();
        let (s, d) = (self.shape_leaves(), self.stride_leaves());
        let mut b = Builder::EMPTY;
        let mut leaf = 0;
        let mut t = 0;
        while t < toks.len() {
            if toks[t] == OPEN {
                ctry!(b.open());
            } else if toks[t] == CLOSE {
                ctry!(b.close());
            } else {
                let (e, st) = (s[leaf], d[leaf]);
                leaf += 1;
                let overflow = LayoutError::Overflow { what: "downcast" };
                let piece = if st == 1 || (st == -1 && e == 1) {
                    match e.checked_mul(n) {
                        Some(v) => ctry!(DynLayout::leaf(v, 1)),
                        None => return Err(overflow),
                    }
                } else if st == -1 {
                    ctry!(DynLayout::from_flat(&[n, e], &[1, -n]))
                } else {
                    match st.checked_mul(n) {
                        Some(v) => ctry!(DynLayout::leaf(e, v)),
                        None => return Err(overflow),
                    }
                };
                ctry!(b.push(&piece));
            }
            t += 1;
        }
        b.build()
    }

    /// CuTe's `recast_layout<Old, New>(L)` for element widths in bits: with
    /// `new/old = num/den` in lowest terms, `downcast(den)` when `num == 1`, `upcast(num)` when
    /// `den == 1`, else `upcast(num)` of `downcast(den)`.
    ///
    /// # Preconditions
    /// Both widths ≥ 1; those of [`DynLayout::upcast`] / [`DynLayout::downcast`].
    ///
    /// # Postconditions
    /// Those of the casts it performs.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(4,8):(8,1)".parse().unwrap();
    /// assert_eq!(l.recast_layout(16, 32).unwrap().to_string(), "(4,4):(4,1)"); // u16 → u32
    /// ```
    ///
    /// # Errors
    /// As the casts.
    pub const fn recast_layout(
        &self,
        old_bits: i64,
        new_bits: i64,
    ) -> Result<DynLayout, LayoutError> {
        if old_bits < 1 || new_bits < 1 {
            return Err(LayoutError::Precondition {
                what: "recast_layout: element widths must be at least 1 bit; they are {a} and {b} bits",
                a: old_bits,
                b: new_bits,
            });
        }
        let g = gcd(old_bits, new_bits);
        let (num, den) = (new_bits / g, old_bits / g);
        if num == 1 {
            self.downcast(den)
        } else if den == 1 {
            self.upcast(num)
        } else {
            ctry!(self.downcast(den)).upcast(num)
        }
    }
}
