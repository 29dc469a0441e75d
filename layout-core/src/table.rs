//! Pictures of rank-2 layouts, exactly as CuTe's `print_layout` draws them.

use crate::{AnyLayout, LayoutError};
use core::fmt;

/// A rank-2 layout drawn as a table: row index down, column index across, each cell the offset.
///
/// The first line is the layout itself; the format is CuTe's `print_layout`, character for
/// character:
///
/// ```
/// use layout::{DynLayout, LayoutTable};
/// let l: DynLayout = "(2,(2,2)):(4,(2,1))".parse().unwrap();
/// let table = LayoutTable::new(&l).unwrap().to_string();
/// let expected = [
///     "(2,(2,2)):(4,(2,1))",
///     "      0   1   2   3 ", // CuTe's header ends with a space
///     "    +---+---+---+---+",
///     " 0  | 0 | 2 | 1 | 3 |",
///     "    +---+---+---+---+",
///     " 1  | 4 | 6 | 5 | 7 |",
///     "    +---+---+---+---+",
/// ];
/// assert_eq!(table.lines().collect::<Vec<_>>(), expected);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct LayoutTable<'a, L> {
    layout: &'a L,
    rows: i64,
    cols: i64,
}

impl<'a, L: AnyLayout> LayoutTable<'a, L> {
    /// A table of `layout`.
    ///
    /// Every cell is computed without overflow: the layout's
    /// [`offset_bounds`](AnyLayout::offset_bounds) must succeed (e.g. a swizzled layout whose
    /// `O + L(c)` leaves `i64` is refused here, instead of printing wrapped offsets).
    ///
    /// # Errors
    /// [`LayoutError::Precondition`] when the layout's rank is not 2; the error of
    /// `offset_bounds` ([`LayoutError::SwizzleOffsetOverflow`] for such a swizzled layout).
    pub fn new(layout: &'a L) -> Result<Self, LayoutError> {
        let domain = layout.domain();
        let rank = domain.rank();
        if domain.is_leaf() || rank != 2 {
            return Err(LayoutError::Precondition {
                what: "print_layout: the layout has rank {a}; a table needs rank {b}",
                a: rank as i64,
                b: 2,
            });
        }
        layout.offset_bounds()?;
        let rows = domain.mode(0)?.size()?;
        let cols = domain.mode(1)?.size()?;
        Ok(LayoutTable { layout, rows, cols })
    }
}

fn digits(v: i64) -> usize {
    let mut n = if v < 0 { 2 } else { 1 };
    let mut x = v.unsigned_abs();
    while x >= 10 {
        x /= 10;
        n += 1;
    }
    n
}

impl<L: AnyLayout> fmt::Display for LayoutTable<'_, L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let cell = |r: i64, c: i64| self.layout.offset(r + c * self.rows);
        let mut widest = 1;
        let mut max = 0;
        for r in 0..self.rows {
            for c in 0..self.cols {
                let v = cell(r, c);
                widest = widest.max(digits(v));
                max = max.max(v);
            }
        }
        let cosize = self.layout.to_dyn().map(|d| d.cosize()).unwrap_or(max + 1);
        let w = digits(cosize).max(widest) + 2;
        writeln!(f, "{}", self.layout)?;
        f.write_str("    ")?;
        for c in 0..self.cols {
            write!(f, "  {:>width$} ", c, width = w - 2)?;
        }
        f.write_str("\n")?;
        let rule = |f: &mut fmt::Formatter<'_>| -> fmt::Result {
            f.write_str("    ")?;
            for _ in 0..self.cols {
                f.write_str("+")?;
                for _ in 0..w {
                    f.write_str("-")?;
                }
            }
            f.write_str("+\n")
        };
        rule(f)?;
        for r in 0..self.rows {
            write!(f, "{r:>2}  ")?;
            for c in 0..self.cols {
                write!(f, "| {:>width$} ", cell(r, c), width = w - 2)?;
            }
            f.write_str("|\n")?;
            rule(f)?;
        }
        Ok(())
    }
}
