//! Affine operands of any layout: the offsets of each axis, with their runs.
//!
//! A rank-2 affine layout (any hierarchy of modes: NZ / ZN / ZZ fractals, blocked and
//! interleaved formats, padded or negative strides) maps element (i, j) to
//! `rows(i) + cols(j)`, where `rows` and `cols` are the offset functions of its two top-level
//! modes. An [`AxisMap`] tabulates one of them once per call (an odometer over the mode's
//! leaves, O(extent)), together with the length of the arithmetic run that starts at each
//! index. The packer and the C update read the tables: each (row run × column run) rectangle of
//! an operand is an ordinary strided block (an NZ fractal, a row of a blocked tile), moved by
//! the same contiguous copies and SIMD transposes as a strided operand.

use std::vec::Vec;

use super::error::GemmError;

/// The offsets of one axis of an affine operand and the arithmetic runs they form.
#[derive(Clone, Debug, Default)]
pub(crate) struct AxisMap {
    /// `off[i]`: the offset of index `i` along the axis (the mode's offset function).
    pub off: Vec<isize>,
    /// `run[i] ≥ 1`: the largest `r` such that `off[i + t] = off[i] + t·step(i)` for `t < r`.
    pub run: Vec<u32>,
}

impl AxisMap {
    /// The map of a mode given by its leaves (first leaf fastest, CuTe's colexicographic
    /// order). The mode belongs to a validated layout, so its offsets fit `i64` (= `isize` on
    /// the 64-bit targets this crate supports).
    ///
    /// # Errors
    /// [`GemmError::Allocation`] when the tables cannot be allocated.
    pub fn new(op: &'static str, shape: &[i64], stride: &[i64]) -> Result<AxisMap, GemmError> {
        let len: i64 = shape.iter().product();
        let len = usize::try_from(len).unwrap_or(0);
        let mut off = Vec::new();
        let mut run = Vec::new();
        let fail = GemmError::Allocation { op, elements: len };
        off.try_reserve_exact(len).map_err(|_| fail)?;
        run.try_reserve_exact(len).map_err(|_| fail)?;
        // colexicographic: the offsets of leaves 0..j, repeated for each coordinate of leaf j
        // (plain pushes into the reserved table: no reallocation, no per-block call)
        if len > 0 {
            off.push(0);
        }
        for (&e, &d) in shape.iter().zip(stride) {
            let n = off.len();
            for c in 1..e {
                let shift = (c * d) as isize;
                for t in 0..n {
                    let x = off[t] + shift;
                    off.push(x);
                }
            }
        }
        off.truncate(len);
        fill_runs(&off, &mut run);
        Ok(AxisMap { off, run })
    }

    /// The map of explicit offsets (`off[i]` for index `i`), its runs found as [`AxisMap::new`]
    /// finds them; `None` when the run table cannot be allocated.
    pub fn from_offsets(off: Vec<isize>) -> Option<AxisMap> {
        let mut run = Vec::new();
        run.try_reserve_exact(off.len()).ok()?;
        fill_runs(&off, &mut run);
        Some(AxisMap { off, run })
    }

    /// The step of the run starting at `i` (1 for a run of one index).
    #[inline]
    pub fn step(&self, i: usize) -> isize {
        if self.run[i] > 1 {
            self.off[i + 1] - self.off[i]
        } else {
            1
        }
    }
}

/// `run[i]` for every offset of `off` (into an empty `run` with room reserved): from the back,
/// a run continues while consecutive steps agree.
fn fill_runs(off: &[isize], run: &mut Vec<u32>) {
    let len = off.len();
    run.resize(len, 1);
    if len >= 2 {
        run[len - 2] = 2;
        let mut next = 2u32;
        for i in (0..len - 2).rev() {
            next = if off[i + 2] - off[i + 1] == off[i + 1] - off[i] {
                next.saturating_add(1)
            } else {
                2
            };
            run[i] = next;
        }
    }
}

/// An affine operand read through its two axis maps: element (i, j) is at
/// `origin + rows.off[i] + cols.off[j]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mapped<'a> {
    pub rows: &'a AxisMap,
    pub cols: &'a AxisMap,
}

impl Mapped<'_> {
    /// The same operand transposed.
    pub fn t(self) -> Self {
        Mapped {
            rows: self.cols,
            cols: self.rows,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over small hierarchical modes: offsets are the mode's colexicographic offset
    /// function, and every run is exactly the longest arithmetic progression from its index.
    #[test]
    fn maps_are_the_mode_functions() {
        let modes: &[(&[i64], &[i64])] = &[
            (&[4], &[3]),
            (&[2, 3], &[1, 2]),
            (&[16, 4], &[8, 128]),
            (&[8, 3], &[1, 64]),
            (&[2, 2, 3], &[5, -1, 0]),
            (&[1, 5, 1], &[7, -2, 3]),
            (&[3, 2, 2], &[1, 3, 100]),
        ];
        for &(s, d) in modes {
            let m = AxisMap::new("t", s, d).unwrap();
            let len: i64 = s.iter().product();
            assert_eq!(m.off.len(), len as usize);
            for i in 0..len {
                // colexicographic coordinate
                let (mut rest, mut o) = (i, 0);
                for (&e, &t) in s.iter().zip(d) {
                    o += (rest % e) * t;
                    rest /= e;
                }
                assert_eq!(m.off[i as usize], o as isize, "{s:?}:{d:?} at {i}");
            }
            for i in 0..len as usize {
                let r = m.run[i] as usize;
                let st = m.step(i);
                assert!(r >= 1 && i + r <= len as usize);
                for t in 0..r {
                    assert_eq!(m.off[i + t], m.off[i] + t as isize * st);
                }
                // maximal
                if i + r < len as usize && r >= 2 {
                    assert_ne!(m.off[i + r], m.off[i] + r as isize * st);
                }
            }
        }
    }
}
