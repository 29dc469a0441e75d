//! `Debug`: a tensor's values as a nested array, the way NumPy prints them.

use super::{Storage, Tensor};
use crate::AnyLayout;
use crate::walk::Axes;
use core::fmt::{self, Write};

/// A `fmt::Write` that only counts characters.
struct Count(usize);
impl Write for Count {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0 += s.chars().count();
        Ok(())
    }
}

fn width<T: fmt::Debug>(x: &T) -> usize {
    let mut c = Count(0);
    let _ = write!(c, "{x:?}");
    c.0
}

/// Above this many elements a tensor prints summarised, like NumPy (`threshold=1000`).
const THRESHOLD: i64 = 1000;
/// Indices printed at each end of a summarised axis (NumPy's `edgeitems=3`).
const EDGE: i64 = 3;

struct Printer<'a, T, L> {
    data: &'a [T],
    /// The layout, for `post_offset` (`ax` walks its inner layout).
    layout: L,
    base: i64,
    ax: Axes<'a>,
    w: usize,
    summarise: bool,
}

impl<T: fmt::Debug, L: AnyLayout> Printer<'_, T, L> {
    /// The element at inner offset `x`.
    fn at(&self, x: i64) -> &T {
        // bounds-checked indexing: printing is not hot
        &self.data[(self.base + self.layout.post_offset(x)) as usize]
    }

    /// The indices of axis `k` that are printed; `None` marks the `...` between the two ends.
    fn indices(&self, k: usize) -> impl Iterator<Item = Option<i64>> {
        let n = self.ax.extent(k);
        let cut = self.summarise && n > 2 * EDGE;
        let (head, tail) = if cut { (EDGE, n - EDGE) } else { (n, n) };
        (0..head)
            .map(Some)
            .chain(cut.then_some(None))
            .chain((tail..n).filter(move |_| cut).map(Some))
    }

    /// The widest printed element.
    fn width(&self, k: usize, off: i64) -> usize {
        if k == self.ax.rank {
            return width(self.at(off));
        }
        self.indices(k)
            .flatten()
            .map(|i| self.width(k + 1, off + self.ax.offset(k, i)))
            .max()
            .unwrap_or(0)
    }

    fn elem(&self, f: &mut fmt::Formatter<'_>, off: i64) -> fmt::Result {
        let x = self.at(off);
        for _ in width(x)..self.w {
            f.write_char(' ')?;
        }
        write!(f, "{x:?}")
    }

    fn rec(&self, f: &mut fmt::Formatter<'_>, k: usize, off: i64) -> fmt::Result {
        if k == self.ax.rank {
            return self.elem(f, off);
        }
        f.write_char('[')?;
        for (j, i) in self.indices(k).enumerate() {
            if j > 0 {
                f.write_char(',')?;
                let rest = self.ax.rank - k - 1;
                if rest == 0 {
                    f.write_char(' ')?;
                } else {
                    for _ in 0..rest {
                        f.write_char('\n')?;
                    }
                    for _ in 0..=k {
                        f.write_char(' ')?;
                    }
                }
            }
            match i {
                Some(i) => self.rec(f, k + 1, off + self.ax.offset(k, i))?,
                None => f.write_str("...")?,
            }
        }
        f.write_char(']')
    }
}

impl<St: Storage, L: AnyLayout> fmt::Debug for Tensor<St, L>
where
    St::Elem: fmt::Debug,
{
    /// The values as a nested array in logical order, one bracket level per axis, elements
    /// right-aligned to a common width, blank lines between blocks of rank ≥ 3 — NumPy's
    /// `repr` without the `array(...)`. Tensors of more than 1000 elements print the first and
    /// last 3 indices of each axis around `...`, as NumPy does.
    ///
    /// ```
    /// use layout_core::tensor::Tensor;
    /// let t = Tensor::from_vec((0..8).collect::<Vec<i32>>(), &[2, 2, 2]).unwrap();
    /// assert_eq!(format!("{t:?}"), "[[[0, 1],\n  [2, 3]],\n\n [[4, 5],\n  [6, 7]]]");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.inner();
        let mut p = Printer {
            data: self.storage.as_slice(),
            layout: self.layout,
            base: self.base as i64,
            ax: Axes::new(&d),
            w: 0,
            summarise: d.size() > THRESHOLD,
        };
        p.w = p.width(0, 0);
        p.rec(f, 0, 0)
    }
}
