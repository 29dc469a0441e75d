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

/// The shapes agree: A is m × k, B k × n, C m × n. Returns `[m, k, n]`.
#[inline]
pub(crate) fn agree(
    op: &'static str,
    a: [usize; 2],
    b: [usize; 2],
    c: [usize; 2],
) -> Result<[usize; 3], GemmError> {
    if a[0] != c[0] || a[1] != b[0] || b[1] != c[1] {
        return Err(GemmError::ShapeMismatch { op, a, b, c });
    }
    Ok([a[0], a[1], b[1]])
}

/// Checks that the `rows × cols` operand with strides `rs`, `cs` fits in a slice of `len`
/// elements, where the lowest address the operand touches is index 0 (so with a negative stride
/// element (0, 0) is not at index 0). Returns where element (0, 0) lives.
///
/// An empty operand (`rows == 0` or `cols == 0`) touches nothing and is always valid.
#[inline]
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
    // the common case in fewer operations, with the answer of the general form below:
    // non-empty, non-negative strides and every factor below 2³¹, so that no product or sum
    // overflows (an extent of 0 wraps to the largest `usize`, a negative stride is as large)
    let (r1, c1) = (rows.wrapping_sub(1), cols.wrapping_sub(1));
    if (r1 | c1 | rs as usize | cs as usize) < 1 << 31 {
        // span ≤ 2·(2³¹ − 1)² + 1 < isize::MAX
        let needed = r1 * rs as usize + c1 * cs as usize + 1;
        if needed > len {
            return Err(too_short(op, shape, needed, len));
        }
        return Ok(Strided { origin: 0, rs, cs });
    }
    if rows == 0 || cols == 0 {
        return Ok(Strided { origin: 0, rs, cs });
    }
    // the extent of each mode, (e − 1)·|s|, exactly in u128 (one widening multiply each)
    let rr = (rows as u128 - 1) * rs.unsigned_abs() as u128;
    let rc = (cols as u128 - 1) * cs.unsigned_abs() as u128;
    let span = rr + rc + 1;
    if span > isize::MAX as u128 {
        return Err(stride_overflow(op, shape));
    }
    // span ≥ 1 and fits in isize, so it fits in usize, and so do rr and rc
    let needed = span as usize;
    if needed > len {
        return Err(too_short(op, shape, needed, len));
    }
    // the lowest index is origin + Σ over negative strides of (e − 1)·s = 0
    let origin = if rs < 0 { rr as isize } else { 0 } + if cs < 0 { rc as isize } else { 0 };
    Ok(Strided { origin, rs, cs })
}

#[cold]
fn stride_overflow(op: &'static str, shape: OperandShape) -> GemmError {
    GemmError::StrideOverflow { op, shape }
}

#[cold]
fn too_short(op: &'static str, shape: OperandShape, needed: usize, len: usize) -> GemmError {
    GemmError::TooShort {
        op,
        shape,
        needed,
        len,
    }
}

#[cold]
fn overlaps(op: &'static str, shape: OperandShape) -> GemmError {
    GemmError::OutputOverlaps { op, shape }
}

/// Checks that no two distinct elements of the output share a location, exactly: element
/// (i, j) is at `i·rs + j·cs`, so two elements collide when `di·|rs| = dj·|cs|` for some
/// `|di| < rows`, `|dj| < cols`, not both 0. With `g = gcd(|rs|, |cs|)` the smallest such pair
/// is `(|cs|/g, |rs|/g)`, so the output is injective unless `|cs|/g < rows` and `|rs|/g < cols`
/// (and a stride of 0 along an extent > 1 always collides). This is the rule
/// [`Tensor::new`](crate::Tensor::new) applies to a writable rank-2 strided layout: every
/// output it accepts is accepted here, interleaved ones such as `(2,16):(2,3)` included.
#[inline]
pub(crate) fn check_no_overlap(op: &'static str, shape: OperandShape) -> Result<(), GemmError> {
    let (rows, cols) = (shape.rows, shape.cols);
    let (rs, cs) = (
        shape.row_stride.unsigned_abs(),
        shape.col_stride.unsigned_abs(),
    );
    // the common dense orders first: unit stride down a column with columns at least a column
    // apart (or the transpose) never collide
    if (rs == 1 && cs >= rows) || (cs == 1 && rs >= cols) {
        return Ok(());
    }
    if rows == 0 || cols == 0 || (rows == 1 && cols == 1) {
        return Ok(());
    }
    if (rows > 1 && rs == 0) || (cols > 1 && cs == 0) {
        return Err(overlaps(op, shape));
    }
    if rows <= 1 || cols <= 1 {
        return Ok(());
    }
    let g = gcd(rs, cs);
    if cs / g < rows && rs / g < cols {
        Err(overlaps(op, shape))
    } else {
        Ok(())
    }
}

/// Greatest common divisor (`gcd(0, 0) = 0`).
#[inline]
fn gcd(mut a: usize, mut b: usize) -> usize {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
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

    /// Brute force: the overlap check accepts exactly the injective layouts.
    #[test]
    fn overlap_check_is_exact() {
        for rows in 0..7usize {
            for cols in 0..7usize {
                for rs in -9isize..=9 {
                    for cs in -9isize..=9 {
                        let sh = shape(rows, cols, rs, cs);
                        let mut seen = std::collections::BTreeSet::new();
                        let injective = (0..rows as isize)
                            .flat_map(|i| (0..cols as isize).map(move |j| i * rs + j * cs))
                            .all(|x| seen.insert(x));
                        assert_eq!(check_no_overlap("t", sh).is_ok(), injective, "{sh}");
                    }
                }
            }
        }
        assert!(check_no_overlap("t", shape(2, 16, 2, 3)).is_ok());
        assert!(check_no_overlap("t", shape(3, 4, 1, 2)).is_err());
        assert!(check_no_overlap("t", shape(3, 1, 0, 0)).is_err());
        assert!(check_no_overlap("t", shape(1, 1, 0, 0)).is_ok());
        let huge = shape(usize::MAX, usize::MAX, isize::MIN, isize::MAX);
        assert!(check_no_overlap("t", huge).is_err());
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
