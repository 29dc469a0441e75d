//! Identity (coordinate) tensors: CuTe's `make_identity_tensor`.
//!
//! An identity tensor holds no data: its element at a coordinate *is* that coordinate. Its layout
//! has E-strides (`1@0`, `1@1`, …, CuTe's `E<0>`, `E<1>`): a leaf `s:k@i` adds `k·c` to component
//! `i` of the result. Tiling it the way a data tensor is tiled (`local_tile`, `zipped_divide`,
//! with ceiling division at ragged edges) gives, in every tile, the global coordinates of the
//! tile's elements — so a residue tile is predicated by a comparison, `elem_less(coord, shape)`,
//! exactly as CuTe kernels do. ([`Tiles::predicated`](super::Tiles::predicated) is the other way:
//! the valid extents of a tile.)
//!
//! ```
//! use layout::tensor::IdentityTensor;
//! // a 5 x 7 matrix cut into 4 x 4 tiles: tile (1,1) is ragged
//! let id = IdentityTensor::new(&[5, 7]).unwrap();
//! assert_eq!(id.to_string(), "ArithTuple(0,0) o (5,7):(1@0,1@1)");
//! let t = id.local_tile(&[4, 4], &[1, 1]).unwrap();
//! assert_eq!(t.get(&[0, 2]).unwrap().as_slice(), &[4, 6]);       // global coordinate
//! assert!(t.get(&[0, 2]).unwrap().elem_less(&[5, 7]));            // inside the matrix
//! assert!(!t.get(&[1, 0]).unwrap().elem_less(&[5, 7]));           // row 5: predicated off
//! let valid = (0..4).flat_map(|i| (0..4).map(move |j| (i, j)))
//!     .filter(|&(i, j)| t.get(&[i, j]).unwrap().elem_less(&[5, 7]))
//!     .count();
//! assert_eq!(valid, 1 * 3);
//! ```

#[cfg(feature = "alloc")]
use crate::DynLayout;
use crate::f2::{F2Error, text_cursor};
use crate::{LayoutError, MAX_LEAVES};
use core::fmt;
use core::str::FromStr;

/// The most components of a coordinate (the rank of the shape an identity tensor is made of).
pub const MAX_COORD_RANK: usize = 8;

/// A coordinate an identity tensor holds: one integer per component (CuTe's `ArithmeticTuple`).
///
/// ```
/// use layout::tensor::IdentityTensor;
/// let c = IdentityTensor::new(&[4, 4]).unwrap().get(&[1, 3]).unwrap();
/// assert_eq!(c.as_slice(), &[1, 3]);
/// assert!(c.elem_less(&[2, 4]) && !c.elem_less(&[2, 3]));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct ArithTuple {
    n: usize,
    v: [i64; MAX_COORD_RANK],
}

impl ArithTuple {
    /// The components.
    pub fn as_slice(&self) -> &[i64] {
        &self.v[..self.n]
    }

    /// CuTe's `elem_less(a, b)`: every component below the bound's (missing bound components
    /// count as unbounded; extra ones are ignored). The residue predicate of a tile.
    pub fn elem_less(&self, bound: &[i64]) -> bool {
        self.as_slice().iter().zip(bound).all(|(&c, &b)| c < b)
    }
}

impl fmt::Display for ArithTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, v) in self.as_slice().iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{v}")?;
        }
        f.write_str(")")
    }
}

/// A tensor whose elements are coordinates (CuTe's `make_identity_tensor`): an origin plus a
/// layout with E-strides (`1@0`, `1@1`: CuTe's `E<0>`, `E<1>`). Tiled the way a data tensor is
/// tiled, every tile holds the global coordinates of its elements, so a residue tile is
/// predicated by a comparison, [`ArithTuple::elem_less`]:
///
/// ```
/// use layout::tensor::IdentityTensor;
/// // a 5 x 7 matrix cut into 4 x 4 tiles: tile (1,1) is ragged
/// let id = IdentityTensor::new(&[5, 7]).unwrap();
/// assert_eq!(id.to_string(), "ArithTuple(0,0) o (5,7):(1@0,1@1)");
/// let t = id.local_tile(&[4, 4], &[1, 1]).unwrap();
/// assert_eq!(t.get(&[0, 2]).unwrap().as_slice(), &[4, 6]);       // global coordinate
/// assert!(t.get(&[0, 2]).unwrap().elem_less(&[5, 7]));            // inside the matrix
/// assert!(!t.get(&[1, 0]).unwrap().elem_less(&[5, 7]));           // row 5: predicated off
/// let valid = (0..4).flat_map(|i| (0..4).map(move |j| (i, j)))
///     .filter(|&(i, j)| t.get(&[i, j]).unwrap().elem_less(&[5, 7]))
///     .count();
/// assert_eq!(valid, 1 * 3);
/// ```
///
/// Modes: the tensor has top-level modes, each a run of leaves `extent : scale@component`; a
/// coordinate gives one index per mode, read colexicographically over the mode's leaves (the last
/// leaf of a mode is not reduced, CuTe's natural extension).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct IdentityTensor {
    n: usize,
    ext: [i64; MAX_LEAVES],
    comp: [u8; MAX_LEAVES],
    scale: [i64; MAX_LEAVES],
    /// One past the last leaf of each mode.
    mode_end: [u8; MAX_LEAVES],
    rank: usize,
    /// Number of coordinate components.
    comps: usize,
    origin: [i64; MAX_COORD_RANK],
}

fn pre(what: &'static str, a: i64, b: i64) -> LayoutError {
    LayoutError::Precondition { what, a, b }
}

impl IdentityTensor {
    /// CuTe's `make_identity_tensor(shape)`: the layout `(s0,s1,…):(1@0,1@1,…)` at origin 0.
    ///
    /// # Errors
    /// An extent below 1 or more than [`MAX_COORD_RANK`] components.
    ///
    /// ```
    /// use layout::tensor::IdentityTensor;
    /// let id = IdentityTensor::new(&[3, 2]).unwrap();
    /// assert_eq!(id.get(&[2, 1]).unwrap().as_slice(), &[2, 1]);
    /// assert!(IdentityTensor::new(&[3, 0]).is_err());
    /// ```
    pub fn new(shape: &[i64]) -> Result<IdentityTensor, LayoutError> {
        if shape.len() > MAX_COORD_RANK {
            return Err(pre(
                "an identity tensor has at most {b} components, not {a}",
                shape.len() as i64,
                MAX_COORD_RANK as i64,
            ));
        }
        let mut t = IdentityTensor::empty(shape.len());
        for (k, &s) in shape.iter().enumerate() {
            if s < 1 {
                return Err(LayoutError::NonPositiveExtent { leaf: k, extent: s });
            }
            t.push_leaf(s, k, 1)?;
            t.end_mode();
        }
        Ok(t)
    }

    fn empty(comps: usize) -> IdentityTensor {
        IdentityTensor {
            n: 0,
            ext: [0; MAX_LEAVES],
            comp: [0; MAX_LEAVES],
            scale: [0; MAX_LEAVES],
            mode_end: [0; MAX_LEAVES],
            rank: 0,
            comps,
            origin: [0; MAX_COORD_RANK],
        }
    }

    fn push_leaf(&mut self, ext: i64, comp: usize, scale: i64) -> Result<(), LayoutError> {
        if self.n == MAX_LEAVES {
            return Err(LayoutError::TooManyLeaves { needed: self.n + 1 });
        }
        self.ext[self.n] = ext;
        self.comp[self.n] = comp as u8;
        self.scale[self.n] = scale;
        self.n += 1;
        Ok(())
    }

    fn end_mode(&mut self) {
        self.mode_end[self.rank] = self.n as u8;
        self.rank += 1;
    }

    fn mode_leaves(&self, m: usize) -> core::ops::Range<usize> {
        let start = if m == 0 {
            0
        } else {
            self.mode_end[m - 1] as usize
        };
        start..self.mode_end[m] as usize
    }

    /// The number of top-level modes.
    ///
    /// ```
    /// use layout::tensor::IdentityTensor;
    /// let z = IdentityTensor::new(&[8, 8]).unwrap().zipped_divide(&[4, 2]).unwrap();
    /// assert_eq!(z.rank(), 2); // (tile, rest)
    /// ```
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The extent of mode `m` (the product of its leaves).
    ///
    /// # Errors
    /// [`LayoutError::ModeOutOfRange`].
    ///
    /// ```
    /// use layout::tensor::IdentityTensor;
    /// let z = IdentityTensor::new(&[5, 7]).unwrap().zipped_divide(&[4, 4]).unwrap();
    /// assert_eq!(z.extent(0).unwrap(), 16); // a 4 x 4 tile
    /// assert_eq!(z.extent(1).unwrap(), 4);  // 2 x 2 tiles, ceiling division
    /// ```
    pub fn extent(&self, m: usize) -> Result<i64, LayoutError> {
        if m >= self.rank {
            return Err(LayoutError::ModeOutOfRange {
                mode: m,
                rank: self.rank,
            });
        }
        Ok(self.ext[self.mode_leaves(m)].iter().product())
    }

    /// The coordinate held at `coord` (one index per mode, each below the mode's extent).
    ///
    /// # Errors
    /// The wrong number of indices, or one outside its mode.
    ///
    /// ```
    /// use layout::tensor::IdentityTensor;
    /// let t: IdentityTensor = "(4,(2,4)):(1@0,(1@1,2@1))".parse().unwrap();
    /// assert_eq!(t.get(&[3, 5]).unwrap().as_slice(), &[3, 1 + 2 * 2]);
    /// ```
    pub fn get(&self, coord: &[i64]) -> Result<ArithTuple, LayoutError> {
        if coord.len() != self.rank {
            return Err(pre(
                "a coordinate of {a} indices for an identity tensor of rank {b}",
                coord.len() as i64,
                self.rank as i64,
            ));
        }
        let mut out = ArithTuple {
            n: self.comps,
            v: self.origin,
        };
        for (m, &c) in coord.iter().enumerate() {
            let size = self.extent(m)?;
            if c < 0 || c >= size {
                return Err(LayoutError::IndexOutOfRange { index: c, size });
            }
            let mut rest = c;
            for l in self.mode_leaves(m) {
                let x = rest % self.ext[l];
                rest /= self.ext[l];
                let k = self.comp[l] as usize;
                out.v[k] = x
                    .checked_mul(self.scale[l])
                    .and_then(|d| out.v[k].checked_add(d))
                    .ok_or(LayoutError::Overflow { what: "coordinate" })?;
            }
        }
        Ok(out)
    }

    /// The coordinate held at a 1-D index (colexicographic over the modes).
    ///
    /// # Errors
    /// An index outside the tensor.
    ///
    /// ```
    /// use layout::tensor::IdentityTensor;
    /// let id = IdentityTensor::new(&[3, 2]).unwrap();
    /// assert_eq!(id.get_index(4).unwrap().as_slice(), &[1, 1]);
    /// ```
    pub fn get_index(&self, i: i64) -> Result<ArithTuple, LayoutError> {
        let mut c = [0i64; MAX_LEAVES];
        let mut rest = i;
        let mut size = 1i64;
        for (m, slot) in c.iter_mut().enumerate().take(self.rank) {
            let e = self.extent(m)?;
            size = size.saturating_mul(e);
            *slot = rest % e;
            rest /= e;
        }
        if i < 0 || rest != 0 {
            return Err(LayoutError::IndexOutOfRange { index: i, size });
        }
        self.get(&c[..self.rank])
    }

    /// CuTe's `zipped_divide(tensor, [t0, t1, …])` with ceiling division: mode 0 is the tile
    /// (`(t0,t1,…):(1@0,1@1,…)`), mode 1 the tiles (`(⌈s0/t0⌉,…):(t0@0,t1@1,…)`). The tensor must
    /// be a fresh identity tensor or a tile of one (one leaf per mode, unit scales); residue tiles
    /// hold coordinates past the shape, to be compared with `elem_less`.
    ///
    /// # Errors
    /// A tile extent below 1, the wrong number of extents, or a tensor that is not
    /// one-leaf-per-mode.
    ///
    /// ```
    /// use layout::tensor::IdentityTensor;
    /// let z = IdentityTensor::new(&[5, 7]).unwrap().zipped_divide(&[4, 4]).unwrap();
    /// assert_eq!(z.to_string(), "ArithTuple(0,0) o ((4,4),(2,2)):((1@0,1@1),(4@0,4@1))");
    /// assert_eq!(z.get(&[1 + 4 * 2, 3]).unwrap().as_slice(), &[5, 6]); // tile (1,1), elem (1,2)
    /// ```
    pub fn zipped_divide(&self, tile: &[i64]) -> Result<IdentityTensor, LayoutError> {
        self.check_simple(tile)?;
        let mut r = IdentityTensor::empty(self.comps);
        r.origin = self.origin;
        for (m, &t) in tile.iter().enumerate() {
            let l = self.mode_leaves(m).start;
            r.push_leaf(t, self.comp[l] as usize, self.scale[l])?;
        }
        r.end_mode();
        for (m, &t) in tile.iter().enumerate() {
            let l = self.mode_leaves(m).start;
            let e = self.ext[l];
            r.push_leaf(
                e / t + (e % t != 0) as i64,
                self.comp[l] as usize,
                t.checked_mul(self.scale[l])
                    .ok_or(LayoutError::Overflow { what: "stride" })?,
            )?;
        }
        r.end_mode();
        Ok(r)
    }

    fn check_simple(&self, tile: &[i64]) -> Result<(), LayoutError> {
        if tile.len() != self.rank {
            return Err(pre(
                "a tiler of {a} extents for an identity tensor of rank {b}",
                tile.len() as i64,
                self.rank as i64,
            ));
        }
        for (m, &t) in tile.iter().enumerate() {
            if t < 1 {
                return Err(LayoutError::NonPositiveExtent { leaf: m, extent: t });
            }
            if self.mode_leaves(m).len() != 1 {
                return Err(pre(
                    "mode {a} of the identity tensor has {b} leaves; tiling needs one per mode",
                    m as i64,
                    self.mode_leaves(m).len() as i64,
                ));
            }
        }
        Ok(())
    }

    /// CuTe's `local_tile(tensor, tile, tile_coord)`: the tile at `tile_coord` of
    /// [`zipped_divide`](Self::zipped_divide), as its own identity tensor (origin moved to the
    /// tile's first coordinate, modes the tile's).
    ///
    /// # Errors
    /// As `zipped_divide`, and a tile coordinate outside the grid.
    ///
    /// ```
    /// use layout::tensor::IdentityTensor;
    /// let t = IdentityTensor::new(&[5, 7]).unwrap().local_tile(&[4, 4], &[1, 0]).unwrap();
    /// assert_eq!(t.to_string(), "ArithTuple(4,0) o (4,4):(1@0,1@1)");
    /// assert!(IdentityTensor::new(&[5, 7]).unwrap().local_tile(&[4, 4], &[2, 0]).is_err());
    /// ```
    pub fn local_tile(
        &self,
        tile: &[i64],
        tile_coord: &[i64],
    ) -> Result<IdentityTensor, LayoutError> {
        self.check_simple(tile)?;
        if tile_coord.len() != self.rank {
            return Err(pre(
                "a tile coordinate of {a} indices for an identity tensor of rank {b}",
                tile_coord.len() as i64,
                self.rank as i64,
            ));
        }
        let mut r = IdentityTensor::empty(self.comps);
        r.origin = self.origin;
        for (m, (&t, &c)) in tile.iter().zip(tile_coord).enumerate() {
            let l = self.mode_leaves(m).start;
            let grid = self.ext[l] / t + (self.ext[l] % t != 0) as i64;
            if c < 0 || c >= grid {
                return Err(LayoutError::IndexOutOfRange {
                    index: c,
                    size: grid,
                });
            }
            let k = self.comp[l] as usize;
            r.origin[k] = c
                .checked_mul(t)
                .and_then(|v| v.checked_mul(self.scale[l]))
                .and_then(|v| v.checked_add(r.origin[k]))
                .ok_or(LayoutError::Overflow { what: "coordinate" })?;
            r.push_leaf(t, k, self.scale[l])?;
            r.end_mode();
        }
        Ok(r)
    }

    /// The tensor seen through a layout: element `i` is the coordinate at 1-D index `layout(i)`
    /// (CuTe's composition of the identity layout with `layout`, e.g. a thread partition). The
    /// result is rank 1; `layout`'s offsets must lie in the tensor.
    ///
    /// # Errors
    /// An offset of `layout` outside `0..size`.
    ///
    /// ```
    /// use layout::tensor::IdentityTensor;
    /// use layout::DynLayout;
    /// let id = IdentityTensor::new(&[4, 8]).unwrap();
    /// let thr: DynLayout = "(4,8):(8,1)".parse().unwrap(); // transposed order
    /// let c = id.through(&thr).unwrap();
    /// assert_eq!(c[1].as_slice(), &[0, 2]); // layout(1) = 8 → (0, 2)
    /// ```
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn through(&self, layout: &DynLayout) -> Result<alloc::vec::Vec<ArithTuple>, LayoutError> {
        (0..layout.size())
            .map(|i| self.get_index(layout.offset(i)))
            .collect()
    }
}

impl fmt::Display for IdentityTensor {
    /// CuTe's print: `ArithTuple(4,0) o (4,4):(1@0,1@1)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "ArithTuple{} o ",
            ArithTuple {
                n: self.comps,
                v: self.origin
            }
        )?;
        let part = |f: &mut fmt::Formatter<'_>, stride: bool| -> fmt::Result {
            let wrap = self.rank != 1;
            if wrap {
                f.write_str("(")?;
            }
            for m in 0..self.rank {
                if m > 0 {
                    f.write_str(",")?;
                }
                let leaves = self.mode_leaves(m);
                let group = leaves.len() != 1;
                if group {
                    f.write_str("(")?;
                }
                for (j, l) in leaves.enumerate() {
                    if j > 0 {
                        f.write_str(",")?;
                    }
                    if stride {
                        write!(f, "{}@{}", self.scale[l], self.comp[l])?;
                    } else {
                        write!(f, "{}", self.ext[l])?;
                    }
                }
                if group {
                    f.write_str(")")?;
                }
            }
            if wrap {
                f.write_str(")")?;
            }
            Ok(())
        };
        part(f, false)?;
        f.write_str(":")?;
        part(f, true)
    }
}

impl fmt::Debug for IdentityTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "IdentityTensor({self})")
    }
}

impl FromStr for IdentityTensor {
    type Err = F2Error;

    /// An E-stride layout, depth at most 2: `(4,(2,4)):(1@0,(1@1,2@1))`; a stride leaf is
    /// `k@i` (`_k@i` too) or `E<i>` (= `1@i`). The origin is 0 and the number of components
    /// is one more than the largest `i`.
    fn from_str(s: &str) -> Result<IdentityTensor, F2Error> {
        let mut c = text_cursor(s);
        let mut t = IdentityTensor::empty(0);
        // shape
        let mut exts = [[0i64; MAX_LEAVES]; MAX_LEAVES];
        let mut counts = [0usize; MAX_LEAVES];
        let mut modes = 0;
        let top = c.eat(b'(');
        loop {
            if modes == MAX_LEAVES {
                return Err(c.err("at most 32 modes"));
            }
            let group = c.eat(b'(');
            loop {
                if counts[modes] == MAX_LEAVES {
                    return Err(c.err("at most 32 leaves"));
                }
                c.eat(b'_');
                let v = c.uint()?;
                exts[modes][counts[modes]] =
                    i64::try_from(v).map_err(|_| c.err("an extent in the range of i64"))?;
                counts[modes] += 1;
                if !group || c.eat(b')') {
                    break;
                }
                c.expect(b',', "`,` or `)` in a mode")?;
            }
            modes += 1;
            if !top || c.eat(b')') {
                break;
            }
            c.expect(b',', "`,` or `)` in the shape")?;
        }
        c.expect(b':', "`:` between shape and stride")?;
        let stop = c.eat(b'(');
        if stop != top {
            return Err(c.err("a stride with the shape's nesting"));
        }
        for (m, &count) in counts.iter().enumerate().take(modes) {
            let group = c.eat(b'(');
            if count != 1 && !group {
                return Err(c.err("a stride with the shape's nesting"));
            }
            for (j, &e) in exts[m].iter().enumerate().take(count) {
                let (scale, comp) = if c.eat_str("E<") {
                    let i = c.uint()?;
                    c.expect(b'>', "`>` closing E<i>")?;
                    (1, i)
                } else {
                    c.eat(b'_');
                    let k = c.uint()?;
                    c.expect(b'@', "`@` in a stride k@i")?;
                    (k, c.uint()?)
                };
                if comp as usize >= MAX_COORD_RANK {
                    return Err(c.err("a component below 8"));
                }
                let scale =
                    i64::try_from(scale).map_err(|_| c.err("a scale in the range of i64"))?;
                if e < 1 {
                    return Err(F2Error::Layout(LayoutError::NonPositiveExtent {
                        leaf: t.n,
                        extent: e,
                    }));
                }
                t.push_leaf(e, comp as usize, scale)?;
                t.comps = t.comps.max(comp as usize + 1);
                if j + 1 < count {
                    c.expect(b',', "`,` in a mode's strides")?;
                }
            }
            if group {
                c.expect(b')', "`)` closing a mode's strides")?;
            }
            t.end_mode();
            if m + 1 < modes {
                c.expect(b',', "`,` between modes")?;
            }
        }
        if top {
            c.expect(b')', "`)` closing the stride")?;
        }
        c.end()?;
        Ok(t)
    }
}
