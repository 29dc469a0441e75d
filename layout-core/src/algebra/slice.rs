//! Slicing with `_`: [`SliceCoord`], `slice`, `dice`, `slice_and_offset`, and the partitioning
//! helpers `local_tile` / `local_partition`.

use super::flat_modes::spread;
use super::tiler::Tile;
use crate::const_try::ctry;
use crate::dyn_layout::Builder;
use crate::parse::Cursor;
use crate::tuple::write_profiled;
use crate::{DynLayout, DynTuple, LayoutError};
use core::fmt;
use core::str::FromStr;

/// A coordinate whose leaves are integers or `_` ("keep this mode"): CuTe's coordinates with
/// `Underscore`. Written and parsed as CuTe writes them: `(_,1)`, `((_,2),_)`, `_`, `3`
/// (`_3` is the integer 3, as in CuTe's printing of static integers).
///
/// ```
/// use layout::{DynLayout, SliceCoord};
/// let l: DynLayout = "(4,3):(3,1)".parse().unwrap();
/// let c: SliceCoord = "(_,1)".parse().unwrap();
/// assert_eq!(l.slice(&c).unwrap().to_string(), "(4):(3)");
/// assert_eq!(l.dice(&c).unwrap().to_string(), "(3):(1)");
/// let (s, off) = l.slice_and_offset(&c).unwrap();
/// assert_eq!((s.to_string(), off), ("(4):(3)".to_string(), 1));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct SliceCoord {
    tuple: DynTuple,
    /// Bit `i` set: leaf `i` is `_`.
    under: u64,
}

impl SliceCoord {
    /// `_`: the whole layout.
    pub const UNDERSCORE: SliceCoord = SliceCoord {
        tuple: DynTuple::leaf(0),
        under: 1,
    };

    /// A coordinate without `_`.
    pub const fn from_tuple(t: &DynTuple) -> SliceCoord {
        SliceCoord {
            tuple: *t,
            under: 0,
        }
    }

    /// The integer `i`.
    pub const fn index(i: i64) -> SliceCoord {
        SliceCoord {
            tuple: DynTuple::leaf(i),
            under: 0,
        }
    }

    /// The tuple of the given coordinates.
    ///
    /// # Errors
    /// [`LayoutError::TooManyLeaves`] / [`LayoutError::TooComplex`] past the capacity.
    pub const fn tuple(children: &[SliceCoord]) -> Result<SliceCoord, LayoutError> {
        let mut t = SliceCoord::EMPTY_TUPLE;
        let mut i = 0;
        while i < children.len() {
            ctry!(t.push_mode(&children[i]));
            i += 1;
        }
        Ok(t)
    }

    /// The empty tuple `()`, to [`push_mode`](SliceCoord::push_mode) children onto.
    const EMPTY_TUPLE: SliceCoord = SliceCoord {
        tuple: DynTuple::EMPTY,
        under: 0,
    };

    /// Add `child` as the last mode of this tuple coordinate.
    const fn push_mode(&mut self, child: &SliceCoord) -> Result<(), LayoutError> {
        let at = self.tuple.leaves().len();
        ctry!(self.tuple.push_mode(&child.tuple));
        self.under |= child.under << at;
        Ok(())
    }

    /// The coordinate with `_` read as 0 (the offset part of `slice_and_offset`).
    pub const fn zeroed(&self) -> DynTuple {
        let mut t = self.tuple;
        let v = t.leaves_mut();
        let mut i = 0;
        while i < v.len() {
            if self.under & (1 << i) != 0 {
                v[i] = 0;
            }
            i += 1;
        }
        t
    }

    /// `true` when leaf `i` (flattened order) is `_`.
    pub const fn is_underscore(&self, leaf: usize) -> bool {
        leaf < 64 && self.under & (1 << leaf) != 0
    }

    /// `true` when some leaf is `_` (CuTe's `has_underscore`).
    pub const fn has_underscore(&self) -> bool {
        self.under != 0
    }

    const fn mode(&self, i: usize) -> Result<SliceCoord, LayoutError> {
        let span = match self.tuple.profile().mode_span(i) {
            Some(s) => s,
            None => {
                return Err(LayoutError::ModeOutOfRange {
                    mode: i,
                    rank: self.tuple.rank(),
                });
            }
        };
        Ok(SliceCoord {
            tuple: self.tuple.span(span),
            under: (self.under >> span.leaf.0) & ((1u64 << (span.leaf.1 - span.leaf.0)) - 1),
        })
    }
}

/// Collect the modes kept by `c` on `l` (`keep_under`: slice keeps `_` modes, dice keeps
/// integer modes) into `parts`, and add the offset of the integer parts to `off`.
const fn walk(
    c: &SliceCoord,
    l: &DynLayout,
    keep_under: bool,
    parts: &mut Builder,
    off: &mut i64,
) -> Result<(), LayoutError> {
    if c.tuple.is_leaf() {
        let is_under = c.under & 1 != 0;
        if !is_under {
            let v = c.tuple.leaves()[0];
            if v < 0 || v >= l.size() {
                return Err(LayoutError::IndexOutOfRange {
                    index: v,
                    size: l.size(),
                });
            }
            *off += l.offset(v);
        }
        if is_under == keep_under {
            ctry!(parts.push(l));
        }
        return Ok(());
    }
    if l.profile().is_leaf() || c.tuple.rank() != l.rank() {
        return Err(LayoutError::CoordinateMismatch {
            coord_leaves: c.tuple.leaves().len(),
            shape_leaves: l.leaf_count(),
        });
    }
    let mut i = 0;
    while i < l.rank() {
        ctry!(walk(
            &ctry!(c.mode(i)),
            &ctry!(l.mode(i)),
            keep_under,
            parts,
            off
        ));
        i += 1;
    }
    Ok(())
}

impl DynLayout {
    /// CuTe's `slice(c, L)` (`L(c)` with `_` in `c`): keep the modes paired with `_`, drop the
    /// ones paired with integers. Kept modes of a nested coordinate are lifted into the parent
    /// (`((_,1),_)` on `((2,3),4)` keeps `(2,4)`). A top-level `_` returns `L` itself (CuTe
    /// C++; pycute wraps it into a rank-1 tuple). The offset of the integers is dropped: see
    /// [`DynLayout::slice_and_offset`].
    ///
    /// # Preconditions
    /// `c` weakly congruent with the shape (an integer may stand for a whole sub-tuple) and
    /// each integer inside the size of its sub-shape.
    ///
    /// # Postconditions
    /// `R(k) + offset == L(c with the _ positions filled by the coordinate k of R)`.
    ///
    /// ```
    /// use layout::{DynLayout, SliceCoord};
    /// let l: DynLayout = "((2,3),4):((1,2),6)".parse().unwrap();
    /// let c: SliceCoord = "((_,1),_)".parse().unwrap();
    /// assert_eq!(l.slice(&c).unwrap().to_string(), "(2,4):(1,6)");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::CoordinateMismatch`], [`LayoutError::IndexOutOfRange`].
    pub const fn slice(&self, c: &SliceCoord) -> Result<DynLayout, LayoutError> {
        match self.slice_and_offset(c) {
            Ok((l, _)) => Ok(l),
            Err(e) => Err(e),
        }
    }

    /// CuTe's `slice_and_offset(c, L)`: `(slice(c, L), L(c with _ = 0))`.
    ///
    /// # Preconditions
    /// As [`DynLayout::slice`].
    ///
    /// # Postconditions
    /// As [`DynLayout::slice`]; the offset is `L` at `c` with `_` read as 0.
    ///
    /// ```
    /// use layout::{DynLayout, SliceCoord};
    /// let l: DynLayout = "(4,3):(3,1)".parse().unwrap();
    /// let (s, off) = l.slice_and_offset(&"(2,_)".parse().unwrap()).unwrap();
    /// assert_eq!((s.to_string(), off), ("(3):(1)".to_string(), 6));
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::slice`].
    pub const fn slice_and_offset(&self, c: &SliceCoord) -> Result<(DynLayout, i64), LayoutError> {
        if c.tuple.is_leaf() && c.under & 1 != 0 {
            return Ok((*self, 0));
        }
        let mut parts = Builder::tuple();
        let mut off = 0;
        ctry!(walk(c, self, true, &mut parts, &mut off));
        Ok((ctry!(parts.finish_tuple()), off))
    }

    /// CuTe's `dice(c, L)`: the complement of slicing — keep the modes paired with integers,
    /// drop those paired with `_`. An integer `c` returns `L`.
    ///
    /// # Preconditions
    /// As [`DynLayout::slice`].
    ///
    /// # Postconditions
    /// The kept modes, lifted as in [`DynLayout::slice`].
    ///
    /// ```
    /// use layout::{DynLayout, SliceCoord};
    /// let l: DynLayout = "(4,3):(3,1)".parse().unwrap();
    /// assert_eq!(l.dice(&"(_,1)".parse().unwrap()).unwrap().to_string(), "(3):(1)");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::slice`].
    pub const fn dice(&self, c: &SliceCoord) -> Result<DynLayout, LayoutError> {
        if c.tuple.is_leaf() {
            return Ok(*self);
        }
        let mut parts = Builder::tuple();
        let mut off = 0;
        ctry!(walk(c, self, false, &mut parts, &mut off));
        parts.finish_tuple()
    }

    /// CuTe's `local_tile` / `inner_partition`: `zipped_divide(L, tiler)` sliced with
    /// `((_,…), (coord, _…))` — the tile number `coord` of the by-mode tiling, as a layout of
    /// the tile plus the offset of that tile. Modes of `L` past the tiler stay in the result.
    ///
    /// # Preconditions
    /// The zipped divide is defined; `coord` has one integer per tiler mode (or one integer for
    /// all of them), inside the tile grid.
    ///
    /// # Postconditions
    /// `R(k) + offset == zipped_divide(L, tiler)((k, (coord, …)))`.
    ///
    /// ```
    /// use layout::{DynLayout, Tile};
    /// let l: DynLayout = "(8,6):(1,8)".parse().unwrap();
    /// let t: Tile = "[4,3]".parse().unwrap();
    /// let (tile, off) = l.local_tile(&t, &"(1,1)".parse().unwrap()).unwrap();
    /// assert_eq!((tile.to_string(), off), ("(4,3):(1,8)".to_string(), 4 + 24));
    /// ```
    ///
    /// # Errors
    /// Those of [`DynLayout::zipped_divide_by_mode`] and [`DynLayout::slice`].
    pub const fn local_tile(
        &self,
        tiler: &Tile,
        coord: &DynTuple,
    ) -> Result<(DynLayout, i64), LayoutError> {
        let z = ctry!(self.zipped_divide_by_mode(tiler));
        let rest = ctry!(z.mode(1));
        let tiles = ctry!(z.mode(0));
        // the coordinate of the rest mode: coord's modes, then `_` for the extra modes of L
        let extra = rest.rank() - tiler.rank();
        let mut rc = SliceCoord::EMPTY_TUPLE;
        let mut k = 0;
        if coord.is_leaf() && tiler.rank() > 1 {
            return Err(LayoutError::CoordinateMismatch {
                coord_leaves: 1,
                shape_leaves: tiler.rank(),
            });
        }
        while k < tiler.rank() {
            ctry!(rc.push_mode(&SliceCoord::from_tuple(&ctry!(coord.mode(k)))));
            k += 1;
        }
        let mut e = 0;
        while e < extra {
            ctry!(rc.push_mode(&SliceCoord::UNDERSCORE));
            e += 1;
        }
        let (kept, off) = ctry!(rest.slice_and_offset(&rc));
        let mut parts = Builder::tuple();
        ctry!(spread(&tiles, &mut parts));
        if extra > 0 {
            ctry!(spread(&kept, &mut parts));
        }
        Ok((ctry!(parts.finish_tuple()), off))
    }

    /// CuTe's `local_partition(L, thr, idx)` / `outer_partition`: tile `L` by the per-mode
    /// extents of the thread layout `thr`, and give thread `idx` its element of every tile:
    /// `zipped_divide(L, shape(thr))((c, _…))` with `c` the coordinate of `idx` in `thr`
    /// (found with `thr`'s strides, so `thr` may be any compact order, e.g. row-major).
    ///
    /// # Preconditions
    /// `thr` is a bijection from its domain onto `[0, size(thr))` (compact, any mode order);
    /// `0 ≤ idx < size(thr)`; the divide is defined.
    ///
    /// # Postconditions
    /// `R(k) + offset == zipped_divide(L, shape(thr))((c, k))`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(8,6):(1,8)".parse().unwrap();
    /// let thr: DynLayout = "(4,3):(3,1)".parse().unwrap(); // row-major threads
    /// let (part, off) = l.local_partition(&thr, 4).unwrap(); // thread 4 = coordinate (1,1)
    /// assert_eq!((part.to_string(), off), ("(2,2):(4,24)".to_string(), 1 + 8));
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::IndexOutOfRange`] when `idx` is not an offset of `thr`; those of
    /// [`DynLayout::zipped_divide_by_mode`].
    pub const fn local_partition(
        &self,
        thr: &DynLayout,
        idx: i64,
    ) -> Result<(DynLayout, i64), LayoutError> {
        // per-mode extents of thr as a tiler
        let r = if thr.profile().is_leaf() {
            1
        } else {
            thr.rank()
        };
        let mut t = Tile::EMPTY;
        let mut i = 0;
        while i < r {
            let m = if thr.profile().is_leaf() {
                *thr
            } else {
                ctry!(thr.mode(i))
            };
            ctry!(t.push(ctry!(super::tiler::TileMode::int(m.size()))));
            i += 1;
        }
        // coordinate of idx: per leaf (idx / d) % s, then per-mode 1-D coordinates
        let s = thr.shape_leaves();
        let d = thr.stride_leaves();
        let mut crd = thr.shape();
        let cv = crd.leaves_mut();
        let mut k = 0;
        while k < s.len() {
            cv[k] = if d[k] == 0 { 0 } else { (idx / d[k]) % s[k] };
            k += 1;
        }
        let hit = match thr.offset_of(&crd) {
            Ok(o) => o == idx,
            Err(_) => false,
        };
        if idx < 0 || !hit {
            return Err(LayoutError::IndexOutOfRange {
                index: idx,
                size: thr.size(),
            });
        }
        let z = ctry!(self.zipped_divide_by_mode(&t));
        let tiles = ctry!(z.mode(0));
        let rest = ctry!(z.mode(1));
        // per-mode 1-D coordinate of crd in thr
        let mut tc = SliceCoord::EMPTY_TUPLE;
        let mut i = 0;
        while i < r {
            let (m, c) = if thr.profile().is_leaf() {
                (*thr, crd)
            } else {
                (ctry!(thr.mode(i)), ctry!(crd.mode(i)))
            };
            let col = ctry!(DynLayout::col_major(&m.shape()));
            ctry!(tc.push_mode(&SliceCoord::index(ctry!(col.offset_of(&c)))));
            i += 1;
        }
        let off = ctry!(tiles.offset_of(&tc.zeroed()));
        Ok((rest, off))
    }
}

impl FromStr for SliceCoord {
    type Err = LayoutError;
    /// `_`, an integer, or a tuple of those: `(_,(1,_))`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut c = Cursor::new(s);
        let v = coord(&mut c)?;
        if !c.at_end() {
            return Err(c.err("end of input"));
        }
        Ok(v)
    }
}

fn coord(c: &mut Cursor<'_>) -> Result<SliceCoord, LayoutError> {
    if c.eat(b'(') {
        let mut t = SliceCoord::EMPTY_TUPLE;
        if c.eat(b')') {
            return Ok(t);
        }
        c.enter()?;
        loop {
            t.push_mode(&coord(c)?)?;
            if c.eat(b',') {
                continue;
            }
            if c.eat(b')') {
                c.depth -= 1;
                return Ok(t);
            }
            return Err(c.err("`,` or `)`"));
        }
    }
    if c.peek() == Some(b'_') && !matches!(c.s.get(c.at + 1), Some(b'0'..=b'9') | Some(b'-')) {
        c.at += 1;
        return Ok(SliceCoord::UNDERSCORE);
    }
    Ok(SliceCoord::index(c.int()?))
}

impl fmt::Display for SliceCoord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let under = self.under;
        write_profiled(
            f,
            self.tuple.profile(),
            self.tuple.leaves(),
            &mut |f, k, v| {
                if k < 64 && under & (1 << k) != 0 {
                    f.write_str("_")
                } else {
                    write!(f, "{v}")
                }
            },
        )
    }
}

impl fmt::Debug for SliceCoord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
