//! Argument checks, run once per call before any memory is touched.

use super::error::{GemmError, OperandShape};

/// A checked strided operand: element (i, j) lives at `origin + i·rs + j·cs`, and every such
/// index for `i < rows`, `j < cols` is `< len` (proved by [`check_operand`]).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Strided {
    pub origin: isize,
    pub rs: isize,
    pub cs: isize,
}

/// Checks that the `rows × cols` operand with strides `rs`, `cs` fits in a slice of `len`
/// elements, where the lowest address the operand touches is index 0 (so with a negative stride
/// element (0, 0) is not at index 0). Returns where element (0, 0) lives.
///
/// An empty operand (`rows == 0` or `cols == 0`) touches nothing and is always valid.
pub(crate) fn check_operand(
    op: &'static str,
    shape: OperandShape,
    len: usize,
) -> Result<Strided, GemmError> {
    let OperandShape {
        rows,
        cols,
        row_stride: rs,
        col_stride: cs,
        ..
    } = shape;
    if rows == 0 || cols == 0 {
        return Ok(Strided { origin: 0, rs, cs });
    }
    let overflow = GemmError::StrideOverflow { op, shape };
    // the extent of one mode: (e − 1)·|s|, in isize
    let reach = |e: usize, s: isize| -> Option<isize> {
        let e1 = isize::try_from(e - 1).ok()?;
        e1.checked_mul(s.checked_abs()?)
    };
    let rr = reach(rows, rs).ok_or(overflow)?;
    let rc = reach(cols, cs).ok_or(overflow)?;
    let span = rr
        .checked_add(rc)
        .and_then(|x| x.checked_add(1))
        .ok_or(overflow)?;
    // span ≥ 1 and fits in isize, so it fits in usize
    let needed = span.unsigned_abs();
    if needed > len {
        return Err(GemmError::TooShort {
            op,
            shape,
            needed,
            len,
        });
    }
    // the lowest index is origin + Σ over negative strides of (e − 1)·s = 0
    let origin = if rs < 0 { rr } else { 0 } + if cs < 0 { rc } else { 0 };
    Ok(Strided { origin, rs, cs })
}

/// Checks that no two distinct elements of the output share a location: ordering the modes of
/// extent > 1 by |stride| (s₁ ≤ s₂), it requires s₁ ≥ 1 and s₂ ≥ extent₁·s₁. This is a sufficient
/// condition (it accepts every row-/column-major and padded layout); a few interleaved injective
/// layouts (2×2 with strides 2, 3) are rejected.
pub(crate) fn check_no_overlap(op: &'static str, shape: OperandShape) -> Result<(), GemmError> {
    let err = GemmError::OutputOverlaps { op, shape };
    let mut modes = [
        (shape.rows, shape.row_stride.unsigned_abs()),
        (shape.cols, shape.col_stride.unsigned_abs()),
    ];
    if modes[0].0 == 0 || modes[1].0 == 0 {
        return Ok(());
    }
    let live: usize = modes.iter().filter(|m| m.0 > 1).count();
    match live {
        0 => Ok(()),
        1 => {
            let (_, s) = if modes[0].0 > 1 { modes[0] } else { modes[1] };
            if s == 0 { Err(err) } else { Ok(()) }
        }
        _ => {
            if modes[0].1 > modes[1].1 {
                modes.swap(0, 1);
            }
            let (e1, s1) = modes[0];
            let (_, s2) = modes[1];
            match e1.checked_mul(s1) {
                Some(reach) if s1 >= 1 && s2 >= reach => Ok(()),
                _ => Err(err),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::error::Operand;
    use std::vec::Vec;

    fn shape(rows: usize, cols: usize, rs: isize, cs: isize) -> OperandShape {
        OperandShape {
            operand: Operand::C,
            rows,
            cols,
            row_stride: rs,
            col_stride: cs,
        }
    }

    /// Brute force: the overlap check never accepts a non-injective layout.
    #[test]
    fn overlap_check_is_sound() {
        for rows in 0..5usize {
            for cols in 0..5usize {
                for rs in -6isize..=6 {
                    for cs in -6isize..=6 {
                        let sh = shape(rows, cols, rs, cs);
                        if check_no_overlap("t", sh).is_ok() {
                            let mut seen = std::collections::BTreeSet::new();
                            for i in 0..rows as isize {
                                for j in 0..cols as isize {
                                    assert!(seen.insert(i * rs + j * cs), "{sh}");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(check_no_overlap("t", shape(3, 4, 1, 3)).is_ok());
        assert!(check_no_overlap("t", shape(3, 4, 4, 1)).is_ok());
        assert!(check_no_overlap("t", shape(3, 4, 1, 2)).is_err());
        assert!(check_no_overlap("t", shape(3, 1, 0, 0)).is_err());
        assert!(check_no_overlap("t", shape(1, 1, 0, 0)).is_ok());
    }

    /// Brute force: every index of an accepted operand is in bounds, and the lowest is 0.
    #[test]
    fn bounds_check_is_exact() {
        for rows in 0..4usize {
            for cols in 0..4usize {
                for rs in -5isize..=5 {
                    for cs in -5isize..=5 {
                        for len in 0..40usize {
                            let sh = shape(rows, cols, rs, cs);
                            let idx: Vec<isize> = (0..rows as isize)
                                .flat_map(|i| (0..cols as isize).map(move |j| (i, j)))
                                .map(|(i, j)| i * rs + j * cs)
                                .collect();
                            let lo = idx.iter().copied().min().unwrap_or(0);
                            let hi = idx.iter().copied().max().unwrap_or(-1);
                            let fits = idx.is_empty() || ((hi - lo) as usize) < len;
                            match check_operand("t", sh, len) {
                                Ok(s) => {
                                    assert!(fits, "{sh} len {len}");
                                    if !idx.is_empty() {
                                        assert_eq!(s.origin + lo, 0);
                                    }
                                }
                                Err(_) => assert!(!fits, "{sh} len {len}"),
                            }
                        }
                    }
                }
            }
        }
        let big = shape(3, 3, isize::MAX / 2, 1);
        assert!(matches!(
            check_operand("t", big, usize::MAX),
            Err(GemmError::StrideOverflow { .. })
        ));
        let min = shape(2, 1, isize::MIN, 1);
        assert!(matches!(
            check_operand("t", min, usize::MAX),
            Err(GemmError::StrideOverflow { .. })
        ));
    }
}
