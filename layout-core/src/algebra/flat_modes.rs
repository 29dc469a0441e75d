//! Flat lists of `(extent, stride)` modes: the working representation of the algebra.

use crate::dyn_layout::Builder;
use crate::tuple::MAX_LEAVES;
use crate::{DynLayout, LayoutError};

/// A flat list of modes `(s0,s1,…):(d0,d1,…)` used while computing a result.
#[derive(Clone, Copy)]
pub(crate) struct Modes {
    pub s: [i64; MAX_LEAVES],
    pub d: [i64; MAX_LEAVES],
    pub n: usize,
}

impl Modes {
    pub const EMPTY: Modes = Modes {
        s: [0; MAX_LEAVES],
        d: [0; MAX_LEAVES],
        n: 0,
    };

    /// The leaves of `l`, in order.
    pub const fn of(l: &DynLayout) -> Modes {
        let mut m = Modes::EMPTY;
        let s = l.shape_leaves();
        let d = l.stride_leaves();
        let mut i = 0;
        while i < s.len() {
            m.s[i] = s[i];
            m.d[i] = d[i];
            i += 1;
        }
        m.n = s.len();
        m
    }

    pub const fn push(&mut self, s: i64, d: i64) -> Result<(), LayoutError> {
        if self.n == MAX_LEAVES {
            return Err(LayoutError::TooManyLeaves {
                needed: MAX_LEAVES + 1,
            });
        }
        self.s[self.n] = s;
        self.d[self.n] = d;
        self.n += 1;
        Ok(())
    }

    /// No modes → `1:0`; one mode → `s:d`; more → the flat tuple layout.
    pub const fn build(&self) -> Result<DynLayout, LayoutError> {
        match self.n {
            0 => DynLayout::leaf(1, 0),
            1 => DynLayout::leaf(self.s[0], self.d[0]),
            _ => DynLayout::from_flat(self.s.split_at(self.n).0, self.d.split_at(self.n).0),
        }
    }

    /// CuTe's coalesce of these modes, read as a function on `[0, size)`: drop extent-1 modes,
    /// merge `s0:d0 ++ s1:(s0·d0)` into `(s0·s1):d0`.
    pub const fn coalesced(&self) -> Modes {
        let mut out = Modes::EMPTY;
        let mut i = 0;
        while i < self.n {
            let (s, d) = (self.s[i], self.d[i]);
            i += 1;
            if s == 1 {
                continue;
            }
            if out.n > 0 {
                let k = out.n - 1;
                if let Some(span) = out.s[k].checked_mul(out.d[k])
                    && span == d
                {
                    out.s[k] *= s;
                    continue;
                }
            }
            out.s[out.n] = s;
            out.d[out.n] = d;
            out.n += 1;
        }
        out
    }

    /// Like [`Modes::coalesced`] but exact on all of ℤ≥0 (CuTe's `coalesce_x`): the last mode is
    /// unbounded (natural extension), so it is kept — even with extent 1 — unless it merges into
    /// the mode before it. Its extent in the result is meaningless; only its stride matters.
    pub const fn coalesced_ext(&self) -> Modes {
        if self.n == 0 {
            let mut m = Modes::EMPTY;
            m.s[0] = 1;
            m.n = 1;
            return m;
        }
        let head = Modes {
            s: self.s,
            d: self.d,
            n: self.n - 1,
        };
        let mut out = head.coalesced();
        let (s, d) = (self.s[self.n - 1], self.d[self.n - 1]);
        if out.n > 0 {
            let k = out.n - 1;
            if let Some(span) = out.s[k].checked_mul(out.d[k])
                && span == d
            {
                out.s[k] = match out.s[k].checked_mul(s) {
                    Some(v) => v,
                    None => i64::MAX,
                };
                return out;
            }
        }
        out.s[out.n] = s;
        out.d[out.n] = d;
        out.n += 1;
        out
    }

    /// Indices `0..n` sorted by stride (stable: ties keep their order).
    pub const fn order_by_stride(&self) -> [usize; MAX_LEAVES] {
        let mut ord = [0usize; MAX_LEAVES];
        let mut i = 0;
        while i < self.n {
            ord[i] = i;
            i += 1;
        }
        // insertion sort, stable
        let mut i = 1;
        while i < self.n {
            let mut j = i;
            while j > 0 && self.d[ord[j - 1]] > self.d[ord[j]] {
                let t = ord[j - 1];
                ord[j - 1] = ord[j];
                ord[j] = t;
                j -= 1;
            }
            i += 1;
        }
        ord
    }

    /// Exclusive prefix products of the extents: the 1-D index stride of each mode.
    pub const fn index_strides(&self) -> [i64; MAX_LEAVES] {
        let mut p = [0i64; MAX_LEAVES];
        let mut acc: i64 = 1;
        let mut i = 0;
        while i < self.n {
            p[i] = acc;
            acc = acc.saturating_mul(self.s[i]);
            i += 1;
        }
        p
    }
}

/// `DynLayout` results that cannot fail by construction.
pub(crate) const fn must(r: Result<DynLayout, LayoutError>) -> DynLayout {
    match r {
        Ok(l) => l,
        Err(_) => panic!("layout algebra invariant broken: please report this as a bug"),
    }
}

/// `ceil(a / b)` for `a ≥ 0`, `b > 0`.
pub(crate) const fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + if a % b != 0 { 1 } else { 0 }
}

/// Checked product, as a layout error naming `what`.
pub(crate) const fn mul(a: i64, b: i64, what: &'static str) -> Result<i64, LayoutError> {
    match a.checked_mul(b) {
        Some(v) => Ok(v),
        None => Err(LayoutError::Overflow { what }),
    }
}

/// The number of top-level modes of `l` (an integer-shaped layout is its own one mode).
pub(crate) const fn top_rank(l: &DynLayout) -> usize {
    if l.profile().is_leaf() { 1 } else { l.rank() }
}

/// Top-level mode `i` of `l` (an integer-shaped layout is its own mode 0).
pub(crate) const fn top_mode(l: &DynLayout, i: usize) -> Result<DynLayout, LayoutError> {
    if l.profile().is_leaf() && i == 0 {
        return Ok(*l);
    }
    l.mode(i)
}

/// Push the top-level modes of `l` (rank ≥ 2), or `l` itself (rank 1), onto `b`: what
/// slicing a mode with `repeat<rank>(_)` does in CuTe's `tiled_*` / `flat_*`.
pub(crate) const fn spread(l: &DynLayout, b: &mut Builder) -> Result<(), LayoutError> {
    if l.profile().is_leaf() || l.rank() == 1 {
        b.push(l)
    } else {
        b.push_modes(l)
    }
}
