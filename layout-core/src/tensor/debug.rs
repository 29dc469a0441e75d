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

/// How one element is written: `Debug` or `Display` (with the formatter's precision).
type Put<T> = fn(&T, &mut dyn Write, Option<usize>) -> fmt::Result;

fn put_debug<T: fmt::Debug>(x: &T, w: &mut dyn Write, _: Option<usize>) -> fmt::Result {
    write!(w, "{x:?}")
}

fn put_display<T: fmt::Display>(x: &T, w: &mut dyn Write, prec: Option<usize>) -> fmt::Result {
    match prec {
        Some(p) => write!(w, "{x:.p$}"),
        None => write!(w, "{x}"),
    }
}

/// Above this many elements a tensor prints summarised, like NumPy (`threshold=1000`).
const THRESHOLD: i64 = 1000;
/// Indices printed at each end of a summarised axis (NumPy's `edgeitems=3`).
const EDGE: i64 = 3;

struct Printer<'a, T, L> {
    data: &'a [T],
    put: Put<T>,
    prec: Option<usize>,
    /// `Debug` separates elements and blocks with commas (NumPy's `repr`), `Display` does not
    /// (NumPy's `str`).
    commas: bool,
    /// The layout, for `post_offset` (`ax` walks its inner layout).
    layout: L,
    base: i64,
    ax: Axes<'a>,
    w: usize,
    summarise: bool,
}

impl<T, L: AnyLayout> Printer<'_, T, L> {
    fn width_of(&self, x: &T) -> usize {
        let mut c = Count(0);
        let _ = (self.put)(x, &mut c, self.prec);
        c.0
    }

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
            return self.width_of(self.at(off));
        }
        self.indices(k)
            .flatten()
            .map(|i| self.width(k + 1, off + self.ax.offset(k, i)))
            .max()
            .unwrap_or(0)
    }

    fn elem(&self, f: &mut fmt::Formatter<'_>, off: i64) -> fmt::Result {
        let x = self.at(off);
        for _ in self.width_of(x)..self.w {
            f.write_char(' ')?;
        }
        (self.put)(x, f, self.prec)
    }

    fn rec(&self, f: &mut fmt::Formatter<'_>, k: usize, off: i64) -> fmt::Result {
        if k == self.ax.rank {
            return self.elem(f, off);
        }
        f.write_char('[')?;
        for (j, i) in self.indices(k).enumerate() {
            if j > 0 {
                if self.commas {
                    f.write_char(',')?;
                }
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
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((0..8).collect::<Vec<i32>>(), &[2, 2, 2]).unwrap();
    /// assert_eq!(format!("{t:?}"), "[[[0, 1],\n  [2, 3]],\n\n [[4, 5],\n  [6, 7]]]");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.print(f, put_debug::<St::Elem>, true)
    }
}

impl<St: Storage, L: AnyLayout> fmt::Display for Tensor<St, L>
where
    St::Elem: fmt::Display,
{
    /// The values as NumPy's `print(a)` shows them: nested brackets in logical order, elements
    /// separated by spaces (no commas) and right-aligned to a common width, summarised above
    /// 1000 elements like `Debug`. A precision applies to every element (`{:.2}`).
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    /// assert_eq!(t.to_string(), "[[0 1 2]\n [3 4 5]]");
    /// let f = Tensor::from_vec(vec![1.0f32, 0.25, -2.5], &[3]).unwrap();
    /// assert_eq!(format!("{f:.2}"), "[ 1.00  0.25 -2.50]");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.print(f, put_display::<St::Elem>, false)
    }
}

impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    fn print(&self, f: &mut fmt::Formatter<'_>, put: Put<St::Elem>, commas: bool) -> fmt::Result {
        let d = self.inner();
        let mut p = Printer {
            data: self.storage.as_slice(),
            put,
            prec: f.precision(),
            commas,
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
