//! By-mode tilers: [`Tile`] and its elements [`TileMode`].
//!
//! A *1-D tiler* is a plain [`DynLayout`]: the operation sees `A` as a function of one index
//! (`logical_divide(A, (4,8):(1,4))` takes 32 consecutive indices of `A`). A *by-mode tiler* is a
//! [`Tile`] `[t0,t1,…]`: element `i` acts on mode `i` of `A` alone. The two are distinct types, so
//! the trap of cutlass#2545 (a `Layout` tiler `(4,8)` silently meaning a 1-D tile) cannot happen
//! by accident: the by-mode functions are the `*_by_mode` ones.

use crate::parse::Cursor;
use crate::{DynLayout, DynTuple, LayoutError};
use core::fmt;
use core::str::FromStr;

/// The most elements a [`Tile`] holds.
pub const MAX_TILE_MODES: usize = 8;

/// One element of a by-mode tiler.
// Heap-free and `const`-friendly by design: the layout is stored inline.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum TileMode {
    /// `_`: leave this mode of `A` alone.
    Keep,
    /// A 1-D tiler for this mode. The integer `N` of CuTe's notation is the layout `N:1`
    /// ([`TileMode::int`]).
    Layout(DynLayout),
}

impl TileMode {
    /// The integer tiler `N`, i.e. the layout `N:1`.
    ///
    /// # Errors
    /// [`LayoutError::NonPositiveExtent`] when `n ≤ 0`.
    pub const fn int(n: i64) -> Result<TileMode, LayoutError> {
        match DynLayout::leaf(n, 1) {
            Ok(l) => Ok(TileMode::Layout(l)),
            Err(e) => Err(e),
        }
    }
}

/// A by-mode tiler `[t0,t1,…]` (CuTe's `Tile<…>` / `make_tile(…)`; a `Shape` `(M,N)` is the tile
/// `[M:1,N:1]`). Each element is a layout, an integer `N` (= `N:1`) or `_` (keep the mode).
///
/// ```
/// use layout::{DynLayout, Tile, TileMode};
/// let t: Tile = "[3:3,(2,4):(1,8),_]".parse().unwrap();
/// assert_eq!(t.rank(), 3);
/// assert_eq!(t.mode(2), Some(TileMode::Keep));
/// assert_eq!(t.to_string(), "[3:3,(2,4):(1,8),_]");
/// let s = Tile::from_shape(&"(3,8)".parse().unwrap()).unwrap();
/// assert_eq!(s.to_string(), "[3:1,8:1]");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Tile {
    modes: [TileMode; MAX_TILE_MODES],
    n: usize,
}

impl Tile {
    /// The empty tiler `[]`.
    pub const EMPTY: Tile = Tile {
        modes: [TileMode::Keep; MAX_TILE_MODES],
        n: 0,
    };

    /// A tiler with the given elements.
    ///
    /// # Errors
    /// [`LayoutError::TooManyTileModes`] past [`MAX_TILE_MODES`] elements.
    pub const fn new(modes: &[TileMode]) -> Result<Tile, LayoutError> {
        let mut t = Tile::EMPTY;
        let mut i = 0;
        while i < modes.len() {
            if let Err(e) = t.push(modes[i]) {
                return Err(e);
            }
            i += 1;
        }
        Ok(t)
    }

    /// The by-mode tiler of a shape: `(M,N,…)` → `[M:1,N:1,…]` (an integer `N` → `[N:1]`).
    ///
    /// # Errors
    /// [`LayoutError::Precondition`] for a nested shape (a nested by-mode tiler is not
    /// supported), [`LayoutError::NonPositiveExtent`] for an extent ≤ 0.
    pub const fn from_shape(shape: &DynTuple) -> Result<Tile, LayoutError> {
        if shape.depth() > 1 {
            return Err(LayoutError::Precondition {
                what: "a shape tiler must be flat: this one has depth {a}, a tiler at most {b} (nested by-mode tilers are not supported)",
                a: shape.depth() as i64,
                b: 1,
            });
        }
        let v = shape.leaves();
        let mut t = Tile::EMPTY;
        let mut i = 0;
        while i < v.len() {
            let m = match TileMode::int(v[i]) {
                Ok(m) => m,
                Err(e) => return Err(e),
            };
            if let Err(e) = t.push(m) {
                return Err(e);
            }
            i += 1;
        }
        Ok(t)
    }

    /// Add an element at the end.
    ///
    /// # Errors
    /// [`LayoutError::TooManyTileModes`] past [`MAX_TILE_MODES`] elements.
    pub const fn push(&mut self, m: TileMode) -> Result<(), LayoutError> {
        if self.n == MAX_TILE_MODES {
            return Err(LayoutError::TooManyTileModes {
                max: MAX_TILE_MODES,
                needed: MAX_TILE_MODES + 1,
            });
        }
        self.modes[self.n] = m;
        self.n += 1;
        Ok(())
    }

    /// Number of elements.
    pub const fn rank(&self) -> usize {
        self.n
    }

    /// Element `i`.
    pub const fn mode(&self, i: usize) -> Option<TileMode> {
        if i < self.n {
            Some(self.modes[i])
        } else {
            None
        }
    }

    /// The elements.
    pub const fn modes(&self) -> &[TileMode] {
        self.modes.split_at(self.n).0
    }
}

impl fmt::Display for TileMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TileMode::Keep => f.write_str("_"),
            TileMode::Layout(l) => write!(f, "{l}"),
        }
    }
}

impl fmt::Display for Tile {
    /// `[t0,t1,…]`, `_` for kept modes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, m) in self.modes().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{m}")?;
        }
        f.write_str("]")
    }
}

impl FromStr for TileMode {
    type Err = LayoutError;
    /// `_`, an integer `N` (= `N:1`), or a layout in CuTe's text.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut c = Cursor::new(s);
        let m = tile_mode(&mut c)?;
        if !c.at_end() {
            return Err(c.err("end of input"));
        }
        Ok(m)
    }
}

fn tile_mode(c: &mut Cursor<'_>) -> Result<TileMode, LayoutError> {
    if c.peek() == Some(b'_') {
        let next = c.s.get(c.at + 1).copied();
        if !matches!(next, Some(b'0'..=b'9') | Some(b'-')) {
            c.at += 1;
            return Ok(TileMode::Keep);
        }
    }
    Ok(TileMode::Layout(c.layout()?))
}

impl FromStr for Tile {
    type Err = LayoutError;
    /// `[t0,t1,…]` with each element `_`, an integer or a layout.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let mut c = Cursor::new(s);
        if !c.eat(b'[') {
            return Err(c.err("`[`"));
        }
        let mut t = Tile::EMPTY;
        if !c.eat(b']') {
            loop {
                t.push(tile_mode(&mut c)?)?;
                if c.eat(b',') {
                    continue;
                }
                if c.eat(b']') {
                    break;
                }
                return Err(c.err("`,` or `]`"));
            }
        }
        if !c.at_end() {
            return Err(c.err("end of input"));
        }
        Ok(t)
    }
}
