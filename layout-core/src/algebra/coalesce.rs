//! `coalesce`, `coalesce_by_mode`, `filter_zeros`, `filter`.

use super::flat_modes::{Modes, must, top_rank};
use crate::const_try::ctry;
use crate::dyn_layout::Builder;
use crate::{DynLayout, DynTuple, LayoutError};

impl DynLayout {
    /// CuTe's `coalesce(L)`: the simplest layout equal to `L` as a function on `[0, size(L))`.
    ///
    /// Flatten, drop extent-1 modes, merge neighbours `s0:d0 ++ s1:(s0·d0)` into `(s0·s1):d0`.
    /// One remaining mode is returned integer-shaped (`12:1`, not `(12):(1)`); none gives `1:0`.
    /// Values are never static or dynamic here, so this is CuTe's all-static behaviour (pycute's).
    ///
    /// # Preconditions
    /// None.
    ///
    /// # Postconditions
    /// `size(R) == size(L)`, `depth(R) ≤ 1`, `R(i) == L(i)` for every `i < size(L)`. Outside the
    /// domain the functions may differ (`(4,1):(1,0)` → `4:1`).
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(2,(1,6)):(1,(6,2))".parse().unwrap();
    /// assert_eq!(l.coalesce().to_string(), "12:1");
    /// let l: DynLayout = "(2,3):(3,1)".parse().unwrap();
    /// assert_eq!(l.coalesce().to_string(), "(2,3):(3,1)");
    /// ```
    pub const fn coalesce(&self) -> DynLayout {
        must(Modes::of(self).coalesced().build())
    }

    /// CuTe's `coalesce(L, profile)`: coalesce at each terminal of `profile` (only its nesting
    /// matters, not its values). Modes of `L` past `rank(profile)` are kept as they are.
    ///
    /// # Preconditions
    /// `profile` is an integer (whole coalesce) or a tuple of rank ≤ `rank(L)` whose modes are
    /// again valid profiles for the matching modes of `L`.
    ///
    /// # Postconditions
    /// Same size and same function on `[0, size)`; the top-level modes covered by `profile` are
    /// each functionally equal to the matching mode of `L`.
    ///
    /// ```
    /// use layout::{DynLayout, DynTuple};
    /// let l: DynLayout = "(2,(1,6)):(1,(6,2))".parse().unwrap();
    /// let p: DynTuple = "(1,1)".parse().unwrap();
    /// assert_eq!(l.coalesce_by_mode(&p).unwrap().to_string(), "(2,6):(1,2)");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::ModeOutOfRange`] when `profile` has more modes than `L` at some level.
    pub const fn coalesce_by_mode(&self, profile: &DynTuple) -> Result<DynLayout, LayoutError> {
        if profile.is_leaf() {
            return Ok(self.coalesce());
        }
        let r = top_rank(self);
        let pr = profile.rank();
        if pr > r || self.profile().is_leaf() {
            return Err(LayoutError::ModeOutOfRange { mode: pr, rank: r });
        }
        let mut b = Builder::tuple();
        let mut i = 0;
        while i < r {
            let m = ctry!(self.mode(i));
            if i < pr {
                ctry!(b.push(&ctry!(m.coalesce_by_mode(&ctry!(profile.mode(i))))));
            } else {
                ctry!(b.push(&m));
            }
            i += 1;
        }
        b.finish_tuple()
    }

    /// CuTe's `filter_zeros(L)`: every stride-0 leaf gets extent 1 (structure unchanged).
    ///
    /// # Postconditions
    /// Congruent with `L`; `R(c) == L(c)` for every coordinate `c` of `R` (a stride-0 leaf
    /// contributes nothing).
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(2,(1,3)):(0,(5,2))".parse().unwrap();
    /// assert_eq!(l.filter_zeros().to_string(), "(1,(1,3)):(0,(5,2))");
    /// ```
    pub const fn filter_zeros(&self) -> DynLayout {
        let mut shape = self.shape();
        let d = self.stride_leaves();
        let s = shape.leaves_mut();
        let mut i = 0;
        while i < s.len() {
            if d[i] == 0 {
                s[i] = 1;
            }
            i += 1;
        }
        must(DynLayout::new(&shape, &self.stride()))
    }

    /// CuTe's `filter(L)` = `coalesce(filter_zeros(L))`: drops every stride-0 and extent-1 mode;
    /// the image of `L` stays the same (`1:0` when nothing is left).
    ///
    /// # Postconditions
    /// `depth(R) ≤ 1`, `image(R) == image(L)`, `R` has no stride-0 and no extent-1 mode (unless
    /// it is `1:0`).
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(2,1,3):(0,5,2)".parse().unwrap();
    /// assert_eq!(l.filter().to_string(), "3:2");
    /// ```
    pub const fn filter(&self) -> DynLayout {
        self.filter_zeros().coalesce()
    }
}
