//! Gaussian elimination over GF(2) on 64-bit vectors.
//!
//! An [`Echelon`] keeps a reduced basis of the vectors inserted so far, one row per pivot (the
//! highest set bit), each with the combination of inserted vectors it is (a bit mask of their
//! tags). Reducing a vector by the rows from its highest bit down either clears it (it lies in
//! the span, and the accumulated tag says how) or leaves a new pivot.

/// Rows indexed by pivot bit.
#[derive(Clone, Copy)]
pub(crate) struct Echelon {
    has: u64,
    vec: [u64; 64],
    tag: [u64; 64],
}

impl Echelon {
    pub(crate) fn new() -> Echelon {
        Echelon {
            has: 0,
            vec: [0; 64],
            tag: [0; 64],
        }
    }

    /// Reduces `(v, tag)` by the rows; returns the remainder and its tag.
    fn reduce(&self, mut v: u64, mut tag: u64) -> (u64, u64) {
        while v != 0 {
            let p = 63 - v.leading_zeros() as usize;
            if self.has & (1u64 << p) == 0 {
                break;
            }
            v ^= self.vec[p];
            tag ^= self.tag[p];
        }
        (v, tag)
    }

    /// Inserts `v` tagged `tag`; `true` when it was independent of the rows (the rank grew).
    pub(crate) fn insert(&mut self, v: u64, tag: u64) -> bool {
        let (v, tag) = self.reduce(v, tag);
        if v == 0 {
            return false;
        }
        let p = 63 - v.leading_zeros() as usize;
        self.has |= 1u64 << p;
        self.vec[p] = v;
        self.tag[p] = tag;
        true
    }

    /// The tag of a combination of rows equal to `v`, if `v` is in the span.
    pub(crate) fn solve(&self, v: u64) -> Option<u64> {
        match self.reduce(v, 0) {
            (0, tag) => Some(tag),
            _ => None,
        }
    }

    pub(crate) fn rank(&self) -> usize {
        self.has.count_ones() as usize
    }
}
