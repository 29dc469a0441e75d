//! Walking layouts: odometers over one layout, or over several layouts in lock-step.
//!
//! A [`Plan`] is a list of modes `extent : (stride₀, …, strideₙ₋₁)`, slowest first, that visits
//! the same logical element of `N` layouts at once. Copies, element-wise operations, iteration
//! and printing are all written on it.
//!
//! Joint plans come from a *common refinement* of the layouts' axes: along one axis, the leaves
//! of every layout are split until they line up (`(6):(1)` against `(2,3):(3,1)` becomes
//! `(2,3):((1,3),(3,1))`). When leaves do not divide each other (`(2,3)` against `(3,2)`), no such
//! plan exists and [`Joint::Slow`] walks logical coordinates and evaluates every layout's modes.

// Offsets of the N layouts are updated in lock-step from parallel arrays; index loops say so
// most plainly.
#![allow(clippy::needless_range_loop)]

use super::axes::Axes;
use crate::{DynLayout, LayoutError, MAX_LEAVES};

/// Most modes a plan holds: refining `N ≤ 3` layouts of at most 32 leaves each.
pub(crate) const MAX_MODES: usize = 3 * MAX_LEAVES;

/// One mode of a plan: an extent and one stride per layout.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mode<const N: usize> {
    pub ext: i64,
    pub st: [i64; N],
}

/// Modes slowest first, plus a starting offset per layout.
#[derive(Clone, Copy)]
pub(crate) struct Plan<const N: usize> {
    modes: [Mode<N>; MAX_MODES],
    n: usize,
    pub start: [i64; N],
}

impl<const N: usize> Plan<N> {
    const EMPTY_MODE: Mode<N> = Mode { ext: 1, st: [0; N] };

    /// The plan with no modes (one element, at offsets 0).
    pub const EMPTY: Plan<N> = Plan {
        modes: [Self::EMPTY_MODE; MAX_MODES],
        n: 0,
        start: [0; N],
    };

    fn empty() -> Plan<N> {
        Self::EMPTY
    }

    fn push(&mut self, m: Mode<N>) -> Result<(), LayoutError> {
        if m.ext == 1 {
            return Ok(());
        }
        if self.n == MAX_MODES {
            return Err(LayoutError::TooManyLeaves {
                needed: MAX_MODES + 1,
            });
        }
        self.modes[self.n] = m;
        self.n += 1;
        Ok(())
    }

    /// The modes, slowest first.
    pub fn modes(&self) -> &[Mode<N>] {
        &self.modes[..self.n]
    }

    /// The number of elements visited.
    pub fn size(&self) -> i64 {
        self.modes().iter().map(|m| m.ext).product()
    }

    /// Reorder the modes by decreasing `|stride|` of layout `k` (its memory order, so that its
    /// accesses are as sequential as possible). Stable: ties keep their logical order.
    pub fn sort_by_stride(&mut self, k: usize) {
        // insertion sort: stable, allocation-free, at most MAX_MODES modes
        let m = &mut self.modes[..self.n];
        for i in 1..m.len() {
            let mut j = i;
            while j > 0 && m[j - 1].st[k].unsigned_abs() < m[j].st[k].unsigned_abs() {
                m.swap(j - 1, j);
                j -= 1;
            }
        }
    }

    /// Merge neighbouring modes that continue each other in every layout
    /// (`slow.st == fast.ext · fast.st`), so inner loops run as long as possible.
    pub fn coalesce(&mut self) {
        if self.n < 2 {
            return;
        }
        let mut out = 0;
        for i in 1..self.n {
            let fast = self.modes[i];
            let slow = self.modes[out];
            let joins = (0..N).all(|k| fast.ext.checked_mul(fast.st[k]) == Some(slow.st[k]));
            if joins {
                self.modes[out] = Mode {
                    ext: slow.ext * fast.ext,
                    st: fast.st,
                };
            } else {
                out += 1;
                self.modes[out] = fast;
            }
        }
        self.n = out + 1;
    }

    /// The length of the innermost run along which every layout has stride 1 (1 if none).
    pub fn contiguous_run(&self) -> i64 {
        match self.modes().last() {
            Some(m) if m.st.iter().all(|&s| s == 1) => m.ext,
            _ => 1,
        }
    }

    /// Cache blocking for a walk whose innermost mode is fast for layout `w` but slow for layout
    /// `r` (a transpose): the innermost mode and `r`'s fastest mode are each split into blocks of
    /// at most `block` indices, and the two block loops move innermost, so that each
    /// `block × block` tile is finished while its lines of both layouts are in cache. Modes whose
    /// extents have no divisor in `[8, block]` are left alone. Visits the same elements.
    pub fn tile(&mut self, r: usize, block: i64) {
        let n = self.n;
        if n < 2 || self.n + 2 > MAX_MODES {
            return;
        }
        let i = n - 1;
        let Some(j) = (0..n - 1)
            .filter(|&j| self.modes[j].st[r] != 0)
            .min_by_key(|&j| self.modes[j].st[r].unsigned_abs())
        else {
            return;
        };
        if self.modes[i].st[r].unsigned_abs() <= self.modes[j].st[r].unsigned_abs() {
            return;
        }
        let divisor = |e: i64| (8..=block.min(e)).rev().find(|b| e % b == 0);
        let (Some(bi), Some(bj)) = (divisor(self.modes[i].ext), divisor(self.modes[j].ext)) else {
            return;
        };
        let split = |m: Mode<N>, b: i64| {
            let mut outer = Mode {
                ext: m.ext / b,
                st: m.st,
            };
            for k in 0..N {
                // b·stride lies inside the mode's own span, which fits
                outer.st[k] = m.st[k] * b;
            }
            (outer, Mode { ext: b, st: m.st })
        };
        let (oi, ii) = split(self.modes[i], bi);
        let (oj, ij) = split(self.modes[j], bj);
        let mut rest = [Self::EMPTY_MODE; MAX_MODES];
        let mut m = 0;
        for k in 0..n {
            if k != i && k != j {
                rest[m] = self.modes[k];
                m += 1;
            }
        }
        self.n = 0;
        for md in rest[..m].iter().chain([oj, oi, ij, ii].iter()) {
            // capacity checked above
            let _ = self.push(*md);
        }
    }

    /// Widen short common runs: when the innermost mode is contiguous in every layout but short
    /// (an NZ fractal row: 16 elements), and layout `r` continues it in memory through another
    /// mode `j` that the walk visits far outside, split `j` and move up to `target / run` of its
    /// indices just outside the run. Each visit of `r`'s memory then reads whole cache lines
    /// (and pages) at once instead of revisiting them later. Visits the same elements.
    pub fn widen_runs(&mut self, r: usize, target: i64) {
        let n = self.n;
        if n < 3 || self.n + 1 > MAX_MODES {
            return;
        }
        let run = self.contiguous_run();
        if run == 1 || run >= target {
            return;
        }
        // the mode continuing the run in layout `r`, if it is not already next to it
        let Some(j) = (0..n - 2).find(|&j| self.modes[j].st[r] == run) else {
            return;
        };
        let e = self.modes[j].ext;
        let Some(b) = (2..=(target / run).min(e)).rev().find(|b| e % b == 0) else {
            return;
        };
        let m = self.modes[j];
        let mut outer = Mode {
            ext: e / b,
            st: m.st,
        };
        for k in 0..N {
            // b·stride lies inside the mode's own span, which fits
            outer.st[k] = m.st[k] * b;
        }
        let inner = Mode { ext: b, st: m.st };
        let run_mode = self.modes[n - 1];
        let mut out = [Self::EMPTY_MODE; MAX_MODES];
        let mut c = 0;
        for k in 0..n - 1 {
            out[c] = if k == j { outer } else { self.modes[k] };
            c += 1;
        }
        out[c] = inner;
        out[c + 1] = run_mode;
        self.n = 0;
        for md in out[..c + 2].iter() {
            // capacity checked above
            let _ = self.push(*md);
        }
    }

    /// Call `f` with the offsets of every element (relative to each layout's origin, `start`
    /// included), in plan order.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut([i64; N])) {
        let modes = self.modes();
        let Some((inner, outer)) = modes.split_last() else {
            f(self.start);
            return;
        };
        self.for_each_outer(outer, |mut o| {
            for _ in 0..inner.ext {
                f(o);
                for k in 0..N {
                    // wrapping: the step after the last element may leave i64 (a layout
                    // ending at the edge); that value is never used
                    o[k] = o[k].wrapping_add(inner.st[k]);
                }
            }
        });
    }

    /// Call `f(offsets, len)` once per innermost run when every layout has stride 1 there
    /// ([`Plan::contiguous_run`] > 1); otherwise once per element with `len == 1`.
    #[inline]
    pub fn for_each_run(&self, mut f: impl FnMut([i64; N], i64)) {
        let run = self.contiguous_run();
        if run == 1 {
            self.for_each(|o| f(o, 1));
            return;
        }
        let outer = &self.modes()[..self.n - 1];
        self.for_each_outer(outer, |o| f(o, run));
    }

    /// The part of the plan where mode `k`'s index lies in `lo..hi` (`0 ≤ lo ≤ hi ≤ extent`):
    /// parts for a cover of `0..extent` visit the plan's elements once between them.
    #[cfg_attr(not(feature = "rayon"), allow(dead_code))]
    pub fn part(&self, k: usize, lo: i64, hi: i64) -> Plan<N> {
        let mut p = *self;
        let m = &mut p.modes[k];
        for r in 0..N {
            // inside the mode's span, which fits
            p.start[r] += lo * m.st[r];
        }
        m.ext = hi - lo;
        p
    }

    /// The same plan without the modes at the listed positions (their elements are left to the
    /// caller, who walks them inside each visit of the remaining modes).
    pub fn without(&self, drop: &[usize]) -> Plan<N> {
        let mut p = Plan::empty();
        p.start = self.start;
        for (k, m) in self.modes().iter().enumerate() {
            if !drop.contains(&k) {
                // at most as many modes as `self`
                let _ = p.push(*m);
            }
        }
        p
    }

    /// [`Plan::without`]`(drop)`[`.for_each_start(f)`](Plan::for_each_start) without building
    /// the smaller plan (a copy of the whole mode array) when few modes remain.
    #[inline]
    pub fn for_each_start_without(&self, drop: &[usize], f: impl FnMut([i64; N])) {
        const SMALL: usize = 8;
        let mut kept = [Self::EMPTY_MODE; SMALL];
        let mut n = 0;
        for (k, m) in self.modes().iter().enumerate() {
            if drop.contains(&k) {
                continue;
            }
            if n == SMALL {
                return self.without(drop).for_each_start(f);
            }
            kept[n] = *m;
            n += 1;
        }
        self.for_each_outer(&kept[..n], f);
    }

    /// Call `f` with the offsets of every point of the plan, as [`Plan::for_each`] does, for
    /// callers that move a whole block (the dropped modes of [`Plan::without`]) at each point.
    #[inline]
    pub fn for_each_start(&self, f: impl FnMut([i64; N])) {
        self.for_each_outer(self.modes(), f);
    }

    /// Odometer over `outer` modes (slowest first), calling `f` with the starting offsets.
    fn for_each_outer(&self, outer: &[Mode<N>], mut f: impl FnMut([i64; N])) {
        let mut idx = [0i64; MAX_MODES];
        let mut off = self.start;
        loop {
            f(off);
            // advance the odometer, fastest outer mode first
            let mut j = outer.len();
            loop {
                if j == 0 {
                    return;
                }
                j -= 1;
                idx[j] += 1;
                // wrapping: one step past a mode's end (then undone) may leave i64 for a
                // layout at the edge; every offset handed out is exact (mod 2^64 = exact)
                for k in 0..N {
                    off[k] = off[k].wrapping_add(outer[j].st[k]);
                }
                if idx[j] < outer[j].ext {
                    break;
                }
                for k in 0..N {
                    off[k] = off[k].wrapping_sub(outer[j].ext.wrapping_mul(outer[j].st[k]));
                }
                idx[j] = 0;
            }
        }
    }

    /// An external iterator over the offsets, in plan order.
    pub fn iter(&self) -> PlanIter<N> {
        PlanIter {
            plan: *self,
            idx: [0; MAX_MODES],
            off: self.start,
            left: self.size(),
        }
    }
}

impl Plan<1> {
    /// NumPy's logical order of one layout: axes in order (last fastest), and inside an axis
    /// its mode's 1-D index order (first leaf fastest).
    pub fn logical(l: &DynLayout) -> Plan<1> {
        let ax = Axes::new(l);
        let mut p = Plan::empty();
        for k in 0..ax.rank {
            let (s, d) = ax.leaves(k);
            for j in (0..s.len()).rev() {
                // cannot fail: at most MAX_LEAVES leaves
                let _ = p.push(Mode {
                    ext: s[j],
                    st: [d[j]],
                });
            }
        }
        p
    }

    /// Memory order of one layout: negative strides mirrored (the walk then starts at the lowest
    /// offset), modes by decreasing stride, neighbours coalesced. For a layout whose modes do not
    /// overlap each other this visits offsets in increasing order.
    pub fn memory(l: &DynLayout) -> Plan<1> {
        let mut p = Plan::empty();
        for (&e, &d) in l.shape_leaves().iter().zip(l.stride_leaves()) {
            let mut d = d;
            if d < 0 {
                // (e-1)·d is inside the layout's validated offset range
                p.start[0] += (e - 1) * d;
                d = -d;
            }
            let _ = p.push(Mode { ext: e, st: [d] });
        }
        p.sort_by_stride(0);
        p.coalesce();
        p
    }
}

/// An external iterator over a plan's offsets.
#[derive(Clone)]
pub(crate) struct PlanIter<const N: usize> {
    plan: Plan<N>,
    idx: [i64; MAX_MODES],
    off: [i64; N],
    left: i64,
}

impl<const N: usize> Iterator for PlanIter<N> {
    type Item = [i64; N];
    #[inline]
    fn next(&mut self) -> Option<[i64; N]> {
        if self.left == 0 {
            return None;
        }
        self.left -= 1;
        let out = self.off;
        if self.left > 0 {
            let modes = self.plan.modes();
            let mut j = modes.len();
            while j > 0 {
                j -= 1;
                self.idx[j] += 1;
                for k in 0..N {
                    self.off[k] = self.off[k].wrapping_add(modes[j].st[k]); // see for_each_outer
                }
                if self.idx[j] < modes[j].ext {
                    break;
                }
                for k in 0..N {
                    self.off[k] =
                        self.off[k].wrapping_sub(modes[j].ext.wrapping_mul(modes[j].st[k]));
                }
                self.idx[j] = 0;
            }
        }
        Some(out)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.left).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}

impl<const N: usize> ExactSizeIterator for PlanIter<N> {}

/// How `N` layouts with equal axis extents are walked together.
pub(crate) enum Joint<'a, const N: usize> {
    /// A common refinement exists: one odometer drives all layouts.
    Fast(Plan<N>),
    /// No common refinement: walk logical coordinates and evaluate every layout per element.
    Slow([Axes<'a>; N]),
}

impl<const N: usize> Plan<N> {
    /// The fast plan of [`Joint::new`] written into `out` (no `Joint` value, no moves of the
    /// plan): `false` when the layouts have no common refinement.
    pub fn joint_into(ls: [&DynLayout; N], out: &mut Plan<N>) -> bool {
        // emptied in place (the slots past `n` are never read)
        out.n = 0;
        out.start = [0; N];
        let axes: [Axes<'_>; N] = core::array::from_fn(|k| Axes::new(ls[k]));
        refine_into(&axes, out).is_some()
    }
}

impl<'a, const N: usize> Joint<'a, N> {
    /// Plan a joint walk over layouts whose axes have equal extents (the caller checks).
    /// The fast plan is in logical order; callers may re-sort it.
    pub fn new(ls: [&'a DynLayout; N]) -> Joint<'a, N> {
        let axes = ls.map(Axes::new);
        match refine(&axes) {
            Some(p) => Joint::Fast(p),
            None => Joint::Slow(axes),
        }
    }

    /// Call `f` with the offsets of every logical element, in an unspecified order.
    pub fn for_each(&self, mut f: impl FnMut([i64; N])) {
        match self {
            Joint::Fast(p) => p.for_each(f),
            Joint::Slow(axes) => {
                let (ext, rank) = axes[0].extents();
                let mut c = [0i64; MAX_LEAVES];
                loop {
                    let mut o = [0i64; N];
                    for (k, a) in axes.iter().enumerate() {
                        o[k] = (0..rank).map(|ax| a.offset(ax, c[ax])).sum();
                    }
                    f(o);
                    let mut j = rank;
                    loop {
                        if j == 0 {
                            return;
                        }
                        j -= 1;
                        c[j] += 1;
                        if c[j] < ext[j] {
                            break;
                        }
                        c[j] = 0;
                    }
                }
            }
        }
    }
}

/// The common refinement of the axes of `N` layouts (equal axis extents assumed), in logical
/// order, or `None` when some axis's leaves do not divide each other.
fn refine<const N: usize>(axes: &[Axes<'_>; N]) -> Option<Plan<N>> {
    let mut p = Plan::<N>::empty();
    refine_into(axes, &mut p).map(|()| p)
}

/// [`refine`] into `p` (which must be empty), without moving the plan: `None` when the layouts
/// have no common refinement (then `p` holds a partial plan).
fn refine_into<const N: usize>(axes: &[Axes<'_>; N], p: &mut Plan<N>) -> Option<()> {
    let rank = axes[0].rank;
    for ax in 0..rank {
        // per layout: the leaves of this axis, fastest first, and a cursor with the part of the
        // current leaf not yet consumed
        let mut pos = [0usize; N];
        let mut cur = [(1i64, 0i64); N];
        // this axis's refined modes are pushed fastest first, then reversed in place
        let first = p.n;
        loop {
            // refill exhausted cursors, skipping extent-1 leaves
            let mut done = 0;
            for k in 0..N {
                let (s, d) = axes[k].leaves(ax);
                while cur[k].0 == 1 && pos[k] < s.len() {
                    cur[k] = (s[pos[k]], d[pos[k]]);
                    pos[k] += 1;
                }
                if cur[k].0 == 1 {
                    done += 1;
                }
            }
            if done == N {
                break;
            }
            if done > 0 {
                return None; // extents differ: the caller checked, but be safe
            }
            let step = (0..N).map(|k| cur[k].0).min().unwrap_or(1);
            if (0..N).any(|k| cur[k].0 % step != 0) {
                return None;
            }
            let mut mode = Mode {
                ext: step,
                st: [0; N],
            };
            for k in 0..N {
                mode.st[k] = cur[k].1;
                cur[k].0 /= step;
                // within the leaf's validated span: (ext-1)·stride fits, and step ≤ ext-1 here
                cur[k].1 = cur[k].1.checked_mul(step)?;
            }
            p.push(mode).ok()?;
        }
        // logical order is slowest first: the axis's fastest refined mode goes last
        p.modes[first..p.n].reverse();
    }
    Some(())
}
