//! Axes: the top-level modes of a layout, read leaf range by leaf range.

use crate::tuple::{CLOSE, OPEN};
use crate::{DynLayout, MAX_LEAVES};

/// The top-level modes of a run-time layout, with the leaf range of each.
#[derive(Clone, Copy)]
pub(crate) struct Axes<'a> {
    pub l: &'a DynLayout,
    spans: [(usize, usize); MAX_LEAVES],
    pub rank: usize,
}

impl<'a> Axes<'a> {
    pub fn new(l: &'a DynLayout) -> Axes<'a> {
        let p = l.profile();
        let mut spans = [(0, 0); MAX_LEAVES];
        if p.is_leaf() {
            spans[0] = (0, 1);
            return Axes { l, spans, rank: 1 };
        }
        // one pass over the profile's tokens inside its outer parentheses: a top-level mode
        // ends where the depth returns to 0 (a walk per mode, `Profile::mode_span`, costs a
        // pass each: the GEMM front reads the axes of three operands per call)
        let toks = p.tokens();
        let inner = toks.get(1..toks.len().saturating_sub(1)).unwrap_or(&[]);
        let (mut rank, mut depth, mut leaves, mut start) = (0usize, 0usize, 0usize, 0usize);
        for &t in inner {
            if depth == 0 {
                start = leaves;
            }
            match t {
                OPEN => depth += 1,
                CLOSE => depth = depth.saturating_sub(1),
                _ => leaves += 1,
            }
            if depth == 0 {
                if let Some(s) = spans.get_mut(rank) {
                    *s = (start, leaves);
                }
                rank += 1;
            }
        }
        Axes { l, spans, rank }
    }

    /// Shape leaves and stride leaves of axis `k`, first (fastest) leaf first.
    pub fn leaves(&self, k: usize) -> (&'a [i64], &'a [i64]) {
        let (a, b) = self.spans[k];
        (&self.l.shape_leaves()[a..b], &self.l.stride_leaves()[a..b])
    }

    /// The number of indices along axis `k` (the size of its mode).
    pub fn extent(&self, k: usize) -> i64 {
        self.leaves(k).0.iter().product()
    }

    /// The offset of index `c` (in `[0, extent)`) along axis `k`: colexicographic in the mode.
    #[inline]
    pub fn offset(&self, k: usize, c: i64) -> i64 {
        let (s, d) = self.leaves(k);
        let mut rest = c;
        let mut off = 0;
        for (j, (&e, &t)) in s.iter().zip(d).enumerate() {
            if j + 1 == s.len() {
                off += rest * t;
            } else {
                off += (rest % e) * t;
                rest /= e;
            }
        }
        off
    }

    /// The axis as one `(extent, stride)` when its mode coalesces to a single stride (leaves of
    /// extent 1 ignored, leaf `j+1` continuing leaf `j`: `d[j+1] == s[j]·d[j]`).
    pub fn strided(&self, k: usize) -> Option<(i64, i64)> {
        let (s, d) = self.leaves(k);
        let mut cur: Option<(i64, i64)> = None;
        for (&e, &t) in s.iter().zip(d) {
            if e == 1 {
                continue;
            }
            cur = match cur {
                None => Some((e, t)),
                Some((ce, ct)) if ce.checked_mul(ct) == Some(t) => Some((ce * e, ct)),
                Some(_) => return None,
            };
        }
        Some(cur.unwrap_or((1, d.first().copied().unwrap_or(0))))
    }

    /// The extent of every axis.
    pub fn extents(&self) -> ([i64; MAX_LEAVES], usize) {
        let mut e = [1; MAX_LEAVES];
        for (k, v) in e.iter_mut().enumerate().take(self.rank) {
            *v = self.extent(k);
        }
        (e, self.rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass spans are `Profile::mode_span`'s leaf ranges, mode by mode, and the rank
    /// is the layout's.
    #[test]
    fn spans_are_the_modes_leaf_ranges() {
        for s in [
            "7:1",
            "(3,4):(1,3)",
            "((16,4),(8,8)):((8,128),(1,512))",
            "((2,3),(2,4)):((1,4),(2,12))",
            "(2,(3,(4,5)),6):(1,(2,(6,24)),120)",
            "((2,(3,4)),5):((1,(2,6)),24)",
            "(2,3,4):(1,2,6)",
        ] {
            let l: DynLayout = s.parse().unwrap();
            let ax = Axes::new(&l);
            assert_eq!(ax.rank, l.rank(), "{s}");
            for k in 0..ax.rank {
                let sp = l.profile().mode_span(k).unwrap();
                assert_eq!(ax.spans[k], sp.leaf, "{s} mode {k}");
            }
        }
    }
}
