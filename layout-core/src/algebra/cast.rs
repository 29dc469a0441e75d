//! `upcast`, `downcast`, `recast_layout`: a layout over elements of another width.

use super::flat_modes::ceil_div;
use crate::const_try::ctry;
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
    /// here checked for every value).
    ///
    /// # Postconditions
    /// Congruent with `L`; for every coordinate `c` of `L`, `R(c') == floor(L(c)/N)` where `c'`
    /// is `c` with every leaf of stride `|d| < N` divided by `N/|d|` (non-negative strides).
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(4,8):(1,4)".parse().unwrap();
    /// assert_eq!(l.upcast(2).unwrap().to_string(), "(2,8):(1,2)");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::Precondition`] naming the stride and `N`.
    pub const fn upcast(&self, n: i64) -> Result<DynLayout, LayoutError> {
        if n < 1 {
            return Err(LayoutError::Precondition {
                what: "upcast needs a factor of at least 1",
                a: n,
                b: 1,
            });
        }
        let mut shape = self.shape();
        let mut stride = self.stride();
        let s = shape.leaves_mut();
        let d = stride.leaves_mut();
        let mut i = 0;
        while i < s.len() {
            let a = d[i].abs();
            if a == 0 {
                // unchanged
            } else if a >= n {
                if a % n != 0 {
                    return Err(LayoutError::Precondition {
                        what: "upcast: a stride is not a multiple of the factor (numbers: stride and factor)",
                        a: d[i],
                        b: n,
                    });
                }
                d[i] /= n;
            } else {
                if n % a != 0 {
                    return Err(LayoutError::Precondition {
                        what: "upcast: a stride does not divide the factor (numbers: stride and factor)",
                        a: d[i],
                        b: n,
                    });
                }
                s[i] = ceil_div(s[i], n / a);
                d[i] = d[i].signum();
            }
            i += 1;
        }
        DynLayout::new(&shape, &stride)
    }

    /// CuTe's `downcast<N>(L)`: the layout over elements `N` times narrower: leaves of stride
    /// `±1` get `N` times the extent, other strides are multiplied by `N`.
    ///
    /// # Preconditions
    /// `N ≥ 1`; some leaf has stride `±1` (CuTe: "Downcast requires adjacent elements").
    ///
    /// # Postconditions
    /// Congruent with `L`; `size(R) == N · size(L)` when exactly one leaf has stride ±1;
    /// `upcast(N)` of the result is `L` again.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(4,8):(1,4)".parse().unwrap();
    /// assert_eq!(l.downcast(2).unwrap().to_string(), "(8,8):(1,8)");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::Precondition`]; [`LayoutError::Overflow`].
    pub const fn downcast(&self, n: i64) -> Result<DynLayout, LayoutError> {
        if n < 1 {
            return Err(LayoutError::Precondition {
                what: "downcast needs a factor of at least 1",
                a: n,
                b: 1,
            });
        }
        let mut shape = self.shape();
        let mut stride = self.stride();
        let s = shape.leaves_mut();
        let d = stride.leaves_mut();
        let mut unit = false;
        let mut i = 0;
        while i < s.len() {
            if d[i] == 1 || d[i] == -1 {
                unit = true;
                s[i] = match s[i].checked_mul(n) {
                    Some(v) => v,
                    None => return Err(LayoutError::Overflow { what: "downcast" }),
                };
            } else {
                d[i] = match d[i].checked_mul(n) {
                    Some(v) => v,
                    None => return Err(LayoutError::Overflow { what: "downcast" }),
                };
            }
            i += 1;
        }
        if !unit && n > 1 {
            return Err(LayoutError::Precondition {
                what: "downcast needs a mode of stride 1 (adjacent elements) (numbers: factor and leaves)",
                a: n,
                b: s.len() as i64,
            });
        }
        DynLayout::new(&shape, &stride)
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
    /// use layout_core::DynLayout;
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
                what: "recast_layout needs element widths of at least 1 bit",
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
