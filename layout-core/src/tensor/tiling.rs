//! Tiling of tensors of any layout, ragged edges included: CuTe's `zipped_divide` /
//! `local_tile` / `local_partition` on tensors, with residue tiles that are either smaller tiles
//! or full tiles with a predicate — the caller picks.
//!
//! [`Tensor::tiles`] divides once: it reads each axis of the layout, builds the layout of a full
//! tile and the steps between tiles, and keeps them in a [`Tiles`]; every tile afterwards is an
//! offset (a few multiply-adds) and, at a ragged edge, a shrunk copy of the tile layout — the
//! algebra and the bounds of the parent are never re-run per tile.
//!
//! At a ragged edge (`100 × 60` cut into `32 × 32`: the last row of tiles has 4 rows, the last
//! column 28 columns) a tile is either
//! - **smaller** — [`Tiles::tile`]: a tensor view whose extents are the elements that exist
//!   (`4 × 28` in the corner), so every loop over it stays inside; or
//! - **full, with a predicate** — [`Tiles::predicated`]: a [`Predicated`] tile of the full
//!   `32 × 32` shape that knows which coordinates exist, as a bound on coordinates
//!   ([`Predicated::valid_extents`], [`Predicated::is_valid`]) or as a tensor of booleans
//!   ([`Predicated::mask`]). Reads of a coordinate outside the tensor give `None`, writes are
//!   skipped: a predicated tile cannot reach memory outside its tensor through safe code, whatever
//!   the predicate of a copy says ([`copy_if`], the case of cutlass#3488: the destination has
//!   other extents than the source).
//!
//! ```
//! use layout::tensor::{Tensor, copy_if};
//! let a = Tensor::from_fn(&[7, 5], |i| i as i32).unwrap(); // row-major 7 × 5
//! let t = a.tiles(&[4, 4]).unwrap();
//! assert_eq!(t.grid(), &[2, 2][..]);
//! // the corner tile, smaller: 3 × 1
//! let small = t.tile(&[1, 1]).unwrap();
//! assert_eq!(small.dims(), [3, 1]);
//! assert_eq!(small[[2, 0]], a[[6, 4]]);
//! // the same tile, full 4 × 4 with a predicate
//! let p = t.predicated(&[1, 1]).unwrap();
//! assert_eq!(p.valid_extents(), &[3, 1][..]);
//! assert_eq!(p.get(&[2, 0]), Some(&a[[6, 4]]));
//! assert_eq!(p.get(&[3, 0]), None); // row 7 does not exist
//! assert_eq!(p.mask().unwrap().iter().filter(|&&b| b).count(), 3);
//! ```

use super::NdIndex;
#[cfg(feature = "alloc")]
use super::TensorOwned;
use super::{Storage, StorageMut, Tensor, TensorError, TensorRef};
use crate::{AnyLayout, DynLayout, LayoutError, MAX_LEAVES, Tile};

/// How one axis steps: a plain stride (the axis coalesces to one leaf, ragged tiles allowed) or
/// a hierarchical mode divided exactly.
#[derive(Clone, Copy, Debug)]
enum Axis {
    /// One leaf of stride `d`; the leaf of the tile layout is at `leaf`.
    Leaf { d: i64, leaf: usize },
    /// A hierarchical mode divided exactly by the tile extent: the tile start of grid
    /// coordinate `c` is the 1-D index `c·T` of the mode.
    Divided,
}

/// A tensor cut into tiles: the plan computed once by [`Tensor::tiles`] (CuTe's
/// `zipped_divide` by a by-mode tiler of extents, edges allowed), borrowing the tensor's storage.
#[derive(Debug)]
pub struct Tiles<St> {
    storage: St,
    base: usize,
    /// The parent layout (for hierarchical axes).
    parent: DynLayout,
    /// The layout of a full tile.
    full: DynLayout,
    rank: usize,
    /// Per axis: the tensor's extent, the tile extent and the number of tiles (`usize`, the
    /// public vocabulary; every extent of a valid layout fits `i64` as well).
    extent: [usize; MAX_LEAVES],
    tile: [usize; MAX_LEAVES],
    grid: [usize; MAX_LEAVES],
    axis: [Axis; MAX_LEAVES],
}

fn layout_err(e: LayoutError) -> TensorError {
    TensorError::Layout(e)
}

/// `⌈e / t⌉` for `e ≥ 0`, `t ≥ 1`, without forming `e + t − 1` (which overflows for tile
/// extents near `i64::MAX`).
pub(super) const fn ceil_div(e: i64, t: i64) -> i64 {
    e / t + (e % t != 0) as i64
}

/// `⌈e / t⌉` for `t ≥ 1` on `usize`, without forming `e + t − 1`.
const fn ceil_div_usize(e: usize, t: usize) -> usize {
    e / t + !e.is_multiple_of(t) as usize
}

/// A start or an index below an extent of a valid layout, as the layout's `i64` (always fits:
/// the layout's size does).
#[inline(always)]
fn as_i64(x: usize) -> i64 {
    x as i64
}

impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    /// Cut this tensor into tiles of extents `tile` (one per axis; missing trailing axes are
    /// kept whole), CuTe's `zipped_divide(tensor, [t0, t1, …])` with ragged edges allowed:
    /// the grid has `ceil(extent / tile)` tiles along each axis.
    ///
    /// An axis whose mode is a single stride (after coalescing; every axis of a strided
    /// tensor) may have any extent; a hierarchical axis (an NZ axis `(16,m/16):(16,256)`) must
    /// be divided exactly, through the layout algebra.
    ///
    /// # Errors
    /// A non-affine layout; more tile extents than axes or a tile extent below 1
    /// ([`LayoutError::Precondition`] / [`LayoutError::NonPositiveExtent`]); a hierarchical axis
    /// the tile extent does not cut into tiles of one layout each
    /// ([`TensorError::TileSplitsAxis`]: the extent must divide the axis and divide or be a
    /// multiple of its inner extent, 16 for an NZ axis).
    pub fn tiles(&self, tile: &[usize]) -> Result<Tiles<&[St::Elem]>, TensorError> {
        let l = self.dyn_layout()?;
        Tiles::plan(self.as_slice(), self.base_offset(), l, tile)
    }
}

impl<St: StorageMut, L: AnyLayout> Tensor<St, L> {
    /// The writable form of [`Tensor::tiles`]: tiles come out one at a time as writable views.
    ///
    /// # Errors
    /// As [`Tensor::tiles`].
    pub fn tiles_mut(&mut self, tile: &[usize]) -> Result<Tiles<&mut [St::Elem]>, TensorError> {
        let l = self.dyn_layout()?;
        let base = self.base_offset();
        Tiles::plan(self.as_mut_slice(), base, l, tile)
    }
}

impl<St: Storage> Tiles<St> {
    fn plan(storage: St, base: usize, l: DynLayout, tile: &[usize]) -> Result<Self, TensorError> {
        let rank = if l.profile().is_leaf() { 1 } else { l.rank() };
        if tile.len() > rank {
            return Err(layout_err(LayoutError::Precondition {
                what: "tiles: the tiler has {a} extents but the tensor has {b} axes",
                a: tile.len() as i64,
                b: rank as i64,
            }));
        }
        let mut t = Tiles {
            storage,
            base,
            parent: l,
            full: DynLayout::EMPTY,
            rank,
            extent: [1; MAX_LEAVES],
            tile: [1; MAX_LEAVES],
            grid: [1; MAX_LEAVES],
            axis: [Axis::Divided; MAX_LEAVES],
        };
        let mut parts: alloc_free::Parts = alloc_free::Parts::new();
        let mut leaf = 0usize;
        for a in 0..rank {
            let m = if rank == 1 && l.profile().is_leaf() {
                l
            } else {
                l.mode(a).map_err(layout_err)?
            };
            let e = m.size();
            // a valid layout's size is positive and fits `usize` (it is an `i64`)
            let eu = e as usize;
            let tt = tile.get(a).copied().unwrap_or(eu);
            if tt < 1 {
                return Err(layout_err(LayoutError::NonPositiveExtent {
                    leaf: a,
                    extent: 0,
                }));
            }
            // the part of a tile that can hold elements: at most the axis (fits i64)
            let tt_in = as_i64(tt.min(eu));
            let c = m.coalesce();
            let (mode, axis) = if c.leaf_count() == 1 {
                let d = c.stride_leaves()[0];
                // a tile longer than the axis reaches only the axis's `e` elements: its layout
                // keeps `min(tile, e)` (the predicate still has the tiler's extent)
                (
                    DynLayout::leaf(tt_in, d).map_err(layout_err)?,
                    Axis::Leaf { d, leaf },
                )
            } else {
                // a hierarchical axis: cut exactly, through the algebra; a tile extent it
                // refuses is the user's choice of extent, said in the axis's terms
                let splits = TensorError::TileSplitsAxis {
                    axis: a,
                    extent: eu,
                    inner: c.shape().leaves()[0] as usize,
                    tile: tt,
                };
                if !eu.is_multiple_of(tt) {
                    return Err(splits);
                }
                // tt divides the extent: tt ≤ e, so tt_in == tt
                let one = DynLayout::leaf(tt_in, 1).map_err(layout_err)?;
                let div = m.logical_divide_by_layout(&one).map_err(|_| splits)?;
                (div.mode(0).map_err(|_| splits)?, Axis::Divided)
            };
            leaf += mode.leaf_count();
            t.extent[a] = eu;
            t.tile[a] = tt;
            t.grid[a] = ceil_div_usize(eu, tt);
            t.axis[a] = axis;
            parts.push(mode);
        }
        t.full = parts.build().map_err(layout_err)?;
        Ok(t)
    }

    /// The number of axes.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of tiles along each axis (`ceil(extent / tile)`).
    pub fn grid(&self) -> &[usize] {
        &self.grid[..self.rank]
    }

    /// The tile extents (a full tile).
    pub fn tile_extents(&self) -> &[usize] {
        &self.tile[..self.rank]
    }

    /// The layout of a full tile (along an axis whose tile extent exceeds the tensor's, the
    /// tensor's extent: no coordinate past it exists).
    pub fn tile_layout(&self) -> &DynLayout {
        &self.full
    }

    /// The buffer position of interior tile `coord` — a tile inside the tensor, whose every
    /// axis is one stride — or `None` for anything else (a tile at a ragged edge, a
    /// hierarchical axis, a coordinate outside the grid or of the wrong length), which
    /// [`Tiles::locate`] then handles. The hot path of [`Tiles::tile`]: no layout and no array
    /// of extents is copied, only the offset is summed.
    #[inline(always)]
    fn locate_interior(&self, coord: &[usize]) -> Option<usize> {
        if coord.len() != self.rank {
            return None;
        }
        let mut off = 0i64;
        let axes = coord
            .iter()
            .zip(&self.grid)
            .zip(&self.tile)
            .zip(&self.extent)
            .zip(&self.axis);
        for ((((&c, &g), &t), &e), axis) in axes {
            let Axis::Leaf { d, .. } = *axis else {
                return None;
            };
            if c >= g {
                return None;
            }
            // start < extent: no overflow (extent·stride fits, the parent is valid)
            let start = c * t;
            if e - start < t {
                return None;
            }
            off += as_i64(start) * d;
        }
        // the first element of the tile is an element of the tensor: inside the buffer
        i64::try_from(self.base)
            .ok()
            .and_then(|b| b.checked_add(off))
            .and_then(|p| usize::try_from(p).ok())
    }

    /// Check the tile coordinate; the buffer position of the tile's first element and the
    /// extents that exist along each axis.
    fn locate(&self, coord: &[usize]) -> Result<(usize, [usize; MAX_LEAVES]), TensorError> {
        if coord.len() != self.rank {
            return Err(layout_err(LayoutError::Precondition {
                what: "tiles: the tile coordinate has {a} indices but the grid has {b} axes",
                a: coord.len() as i64,
                b: self.rank as i64,
            }));
        }
        let mut off = 0i64;
        let mut valid = [0usize; MAX_LEAVES];
        for a in 0..self.rank {
            let c = coord[a];
            if c >= self.grid[a] {
                return Err(TensorError::TileOutOfGrid {
                    axis: a,
                    index: c,
                    grid: self.grid[a],
                });
            }
            // start < extent: no overflow (extent·stride fits, the parent is valid)
            let start = c * self.tile[a];
            valid[a] = self.tile[a].min(self.extent[a] - start);
            let start = as_i64(start);
            off += match self.axis[a] {
                Axis::Leaf { d, .. } => start * d,
                Axis::Divided => {
                    if self.rank == 1 && self.parent.profile().is_leaf() {
                        self.parent.offset(start)
                    } else {
                        self.parent.mode(a).map_err(layout_err)?.offset(start)
                    }
                }
            };
        }
        // the first element of the tile is an element of the tensor: inside the buffer
        let pos = i64::try_from(self.base)
            .ok()
            .and_then(|b| b.checked_add(off))
            .and_then(|p| usize::try_from(p).ok())
            .ok_or(layout_err(LayoutError::Overflow {
                what: "tile base offset",
            }))?;
        Ok((pos, valid))
    }

    /// The tile layout with the extents that exist (the full layout for an interior tile).
    fn shrunk(&self, valid: &[usize; MAX_LEAVES]) -> Result<DynLayout, TensorError> {
        if valid[..self.rank] == self.tile[..self.rank] {
            return Ok(self.full);
        }
        let mut shape = self.full.shape();
        let axes = valid.iter().zip(&self.tile).zip(&self.axis).take(self.rank);
        for ((&v, &t), axis) in axes {
            if v != t
                && let Axis::Leaf { leaf, .. } = *axis
            {
                shape.leaves_mut()[leaf] = as_i64(v);
            }
        }
        DynLayout::new(&shape, &self.full.stride()).map_err(layout_err)
    }

    /// Tile `coord` as a view: a full tile inside the tensor, a **smaller** tile at a ragged
    /// edge (its extents are the elements that exist). CuTe's `local_tile` with the residue
    /// cut off.
    ///
    /// # Errors
    /// A coordinate of the wrong length or outside the grid
    /// ([`TensorError::TileOutOfGrid`] naming the axis, index and tile grid extent).
    #[inline]
    pub fn tile(&self, coord: &[usize]) -> Result<TensorRef<'_, St::Elem>, TensorError> {
        let general;
        let (l, pos) = match self.locate_interior(coord) {
            Some(pos) => (&self.full, pos),
            None => {
                general = self.general_tile(coord)?;
                (&general.0, general.1)
            }
        };
        // SAFETY: tile element `i` (per axis `i_a < valid_a`, the extents that exist; the tile
        // extents for an interior tile, whose layout is the full one) is the parent's element
        // with axis indices `c_a·T_a + i_a < extent_a`; each axis is one stride (`Leaf`) or
        // exactly divided by the algebra (`Divided`), so its offset is `pos - base` plus the
        // tile layout's offset of `i`: an element of the valid parent tensor, inside the buffer.
        // The tile layout is a DynLayout, affine.
        Ok(unsafe { Tensor::new_unchecked(self.storage.as_slice(), *l, pos) })
    }

    /// The layout and buffer position of every tile [`Tiles::locate_interior`] leaves: a tile
    /// at a ragged edge (the shrunk layout), a tile of a tiling with a hierarchical axis, or an
    /// error. Out of line, so that the interior path of [`Tiles::tile`] stays small and copies
    /// the full layout once, into its result.
    #[cold]
    #[inline(never)]
    fn general_tile(&self, coord: &[usize]) -> Result<(DynLayout, usize), TensorError> {
        let (pos, valid) = self.locate(coord)?;
        Ok((self.shrunk(&valid)?, pos))
    }

    /// Tile `coord` as a **full** tile with a predicate: the full tile shape, reads and writes
    /// limited to the coordinates that exist in the tensor.
    ///
    /// # Errors
    /// As [`Tiles::tile`].
    pub fn predicated(&self, coord: &[usize]) -> Result<Predicated<&[St::Elem]>, TensorError> {
        let (pos, valid) = self.locate(coord)?;
        Ok(Predicated {
            storage: self.storage.as_slice(),
            layout: self.full,
            pos,
            rank: self.rank,
            tile: self.tile,
            valid,
        })
    }

    /// Every tile coordinate, the first axis fastest (CuTe's colexicographic order); each
    /// dereferences to `&[usize]`, what [`Tiles::tile`] takes.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let a = Tensor::from_fn(&[5, 3], |i| i as u8).unwrap();
    /// let t = a.tiles(&[2, 2]).unwrap();
    /// let all: Vec<_> = t.coords().map(|c| c.to_vec()).collect();
    /// assert_eq!(all, [[0, 0], [1, 0], [2, 0], [0, 1], [1, 1], [2, 1]]);
    /// assert_eq!(t.tile(&t.coords().last().unwrap()).unwrap().dims(), [1, 1]);
    /// ```
    pub fn coords(&self) -> impl Iterator<Item = NdIndex> + '_ {
        // the grid's product is at most the tensor's size (every tile holds an element)
        let total: usize = self.grid().iter().product();
        (0..total).map(move |mut k| {
            let mut c = [0usize; MAX_LEAVES];
            for (ca, &g) in c.iter_mut().zip(&self.grid[..self.rank]) {
                *ca = k % g;
                k /= g;
            }
            NdIndex::from_slice(&c[..self.rank])
        })
    }
}

/// The layout of a tile of a rank-2 strided tensor, typed: run-time extents and strides in a
/// flat typed layout (32 bytes), so element access is `i·d0 + j·d1` after two bounds checks.
pub type Tile2 = crate::Layout<(i64, i64), (i64, i64)>;

impl<St: Storage> Tiles<St> {
    /// The extents and strides of tile `coord` of a rank-2 strided tiling, and its position.
    fn locate2(&self, coord: (usize, usize)) -> Result<(Tile2, usize), TensorError> {
        let (pos, valid) = self.locate(&[coord.0, coord.1])?;
        match (self.axis[0], self.axis[1]) {
            (Axis::Leaf { d: d0, .. }, Axis::Leaf { d: d1, .. }) => Ok((
                crate::Layout::new((as_i64(valid[0]), as_i64(valid[1])), (d0, d1)),
                pos,
            )),
            (Axis::Leaf { .. }, _) => Err(TensorError::NotStrided { axis: 1 }),
            _ => Err(TensorError::NotStrided { axis: 0 }),
        }
    }

    /// Tile `coord` of a rank-2 tiling whose axes are single strides (every strided tensor),
    /// smaller at a ragged edge, as a view with the typed flat layout [`Tile2`]: the cheap
    /// run-time tile (no 600-byte run-time layout per tile, element access a multiply-add).
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let a = Tensor::from_fn(&[100, 60], |i| i as f32).unwrap();
    /// let t = a.tiles(&[32, 32]).unwrap();
    /// let corner = t.tile2((3, 1)).unwrap();
    /// assert_eq!(corner.layout().shape(), (4, 28));
    /// assert_eq!(corner[(3, 27)], a[[99, 59]]);
    /// ```
    ///
    /// # Errors
    /// As [`Tiles::tile`]; [`TensorError::NotStrided`] for a hierarchical axis or a tiling of
    /// another rank.
    pub fn tile2(
        &self,
        coord: (usize, usize),
    ) -> Result<TensorRef<'_, St::Elem, Tile2>, TensorError> {
        if self.rank != 2 {
            return Err(TensorError::NotStrided { axis: 0 });
        }
        let (l, pos) = self.locate2(coord)?;
        // SAFETY: as in `tile`: element (i, j) with i < valid0, j < valid1 is the parent's
        // element (c0·T0 + i, c1·T1 + j), at `pos + i·d0 + j·d1`, inside the buffer; the
        // layout has positive extents and offsets within those of the parent (affine).
        Ok(unsafe { Tensor::new_unchecked(self.storage.as_slice(), l, pos) })
    }
}

impl<St: StorageMut> Tiles<St> {
    /// The writable form of [`Tiles::tile`].
    ///
    /// # Errors
    /// As [`Tiles::tile`].
    #[inline]
    pub fn tile_mut(
        &mut self,
        coord: &[usize],
    ) -> Result<super::TensorMut<'_, St::Elem>, TensorError> {
        let general;
        let (l, pos) = match self.locate_interior(coord) {
            Some(pos) => (&self.full, pos),
            None => {
                general = self.general_tile(coord)?;
                (&general.0, general.1)
            }
        };
        // SAFETY: as in `tile`: every element is an element of the parent, inside the buffer;
        // the parent is writable, so its layout is injective, and distinct tile coordinates are
        // distinct parent coordinates: the tile layout is injective too.
        Ok(unsafe { Tensor::new_unchecked(self.storage.as_mut_slice(), *l, pos) })
    }

    /// The writable form of [`Tiles::tile2`].
    ///
    /// # Errors
    /// As [`Tiles::tile2`].
    pub fn tile2_mut(
        &mut self,
        coord: (usize, usize),
    ) -> Result<super::TensorMut<'_, St::Elem, Tile2>, TensorError> {
        if self.rank != 2 {
            return Err(TensorError::NotStrided { axis: 0 });
        }
        let (l, pos) = self.locate2(coord)?;
        // SAFETY: as in `tile2`; the parent is writable, so injective, and so is the tile.
        Ok(unsafe { Tensor::new_unchecked(self.storage.as_mut_slice(), l, pos) })
    }

    /// The writable form of [`Tiles::predicated`].
    ///
    /// # Errors
    /// As [`Tiles::tile`].
    pub fn predicated_mut(
        &mut self,
        coord: &[usize],
    ) -> Result<Predicated<&mut [St::Elem]>, TensorError> {
        let (pos, valid) = self.locate(coord)?;
        Ok(Predicated {
            storage: self.storage.as_mut_slice(),
            layout: self.full,
            pos,
            rank: self.rank,
            tile: self.tile,
            valid,
        })
    }
}

/// A full tile with a predicate: the tile's shape is the tiler's, and the coordinates that lie
/// outside the tensor (at a ragged edge) are masked. Reads of a masked coordinate give `None`
/// and writes to it are skipped: no offset is ever computed for it, so a predicated tile cannot
/// reach memory outside its tensor.
#[derive(Debug)]
pub struct Predicated<St> {
    storage: St,
    layout: DynLayout,
    pos: usize,
    rank: usize,
    tile: [usize; MAX_LEAVES],
    valid: [usize; MAX_LEAVES],
}

impl<St: Storage> Predicated<St> {
    /// The full tile extents.
    pub fn extents(&self) -> &[usize] {
        &self.tile[..self.rank]
    }

    /// The predicate as a bound on coordinates: coordinate `c` exists when `c_a < valid[a]` on
    /// every axis.
    pub fn valid_extents(&self) -> &[usize] {
        &self.valid[..self.rank]
    }

    /// `true` when the tile has no masked coordinate.
    pub fn is_full(&self) -> bool {
        self.valid_extents() == self.extents()
    }

    /// The predicate at coordinate `c` (one index per axis): inside the tile and inside the
    /// tensor.
    pub fn is_valid(&self, c: &[usize]) -> bool {
        c.len() == self.rank && c.iter().zip(self.valid_extents()).all(|(&i, &v)| i < v)
    }

    /// The predicate as a tensor of booleans of the full tile shape (row-major), `true` where
    /// the element exists.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let a = Tensor::from_fn(&[100], |i| i as u8).unwrap();
    /// let t = a.tiles(&[1 << 62]).unwrap(); // one tile of 2^62 elements, 100 of them valid
    /// let p = t.predicated(&[0]).unwrap();
    /// assert!(p.mask().is_err()); // 2^62 booleans cannot be allocated
    /// assert_eq!(a.tiles(&[128]).unwrap().predicated(&[0]).unwrap().mask().unwrap().len(), 128);
    /// ```
    ///
    /// # Errors
    /// [`TensorError::OutputAllocation`] (or an overflow of the element count) when the full
    /// tile's booleans cannot be allocated: the tile extents may be far larger than the
    /// tensor's. Never panics.
    #[cfg(feature = "alloc")]
    pub fn mask(&self) -> Result<TensorOwned<bool>, TensorError> {
        let r = self.rank;
        let (tile, valid) = (self.tile, self.valid);
        Tensor::from_fn(&tile[..r], |mut k| {
            // row-major: the last axis fastest
            let mut ok = true;
            for a in (0..r).rev() {
                ok &= k % tile[a] < valid[a];
                k /= tile[a];
            }
            ok
        })
    }

    /// The buffer position of the valid coordinate `c`.
    fn position(&self, c: &[usize]) -> Option<usize> {
        if !self.is_valid(c) {
            return None;
        }
        // a valid index is below the tensor's extent: fits i64
        let off = if self.rank == 1 {
            self.layout.offset(as_i64(c[0]))
        } else {
            let mut off = 0;
            for (a, &i) in c.iter().enumerate() {
                off += self.layout.mode(a).ok()?.offset(as_i64(i));
            }
            off
        };
        i64::try_from(self.pos)
            .ok()
            .and_then(|p| p.checked_add(off))
            .and_then(|p| usize::try_from(p).ok())
    }

    /// The element at `c` (one index per axis), `None` when it is masked (outside the tensor)
    /// or outside the tile.
    pub fn get(&self, c: &[usize]) -> Option<&St::Elem> {
        // a valid coordinate is an element of the tensor: inside the buffer (and `get` checks)
        self.storage.as_slice().get(self.position(c)?)
    }

    /// The valid part as a tensor view (the smaller tile).
    ///
    /// # Errors
    /// Never for a tile of a valid tiling (the shrunk layout is valid).
    pub fn valid_view(&self) -> Result<TensorRef<'_, St::Elem>, TensorError> {
        let mut shape = self.layout.shape();
        let mut k = 0;
        for a in 0..self.rank {
            let m = if self.rank == 1 {
                self.layout
            } else {
                self.layout.mode(a).map_err(layout_err)?
            };
            if m.leaf_count() == 1 {
                shape.leaves_mut()[k] = as_i64(self.valid[a]);
            }
            k += m.leaf_count();
        }
        let l = DynLayout::new(&shape, &self.layout.stride()).map_err(layout_err)?;
        Tensor::with_offset(self.storage.as_slice(), l, self.pos)
    }

    /// Call `f` with every valid coordinate (the first axis fastest) and its element.
    pub fn for_each_valid(&self, mut f: impl FnMut(&[usize], &St::Elem)) {
        for_each_coord(self.valid_extents(), |c| {
            if let Some(v) = self.get(c) {
                f(c, v);
            }
        });
    }
}

impl<St: StorageMut> Predicated<St> {
    /// The element at `c`, writable; `None` when masked.
    pub fn get_mut(&mut self, c: &[usize]) -> Option<&mut St::Elem> {
        let p = self.position(c)?;
        self.storage.as_mut_slice().get_mut(p)
    }

    /// Apply `f` to every valid element (an element-wise operation under the predicate).
    pub fn apply(&mut self, mut f: impl FnMut(&mut St::Elem)) {
        let valid = self.valid;
        let r = self.rank;
        for_each_coord(&valid[..r], |c| {
            if let Some(v) = self.get_mut(c) {
                f(v);
            }
        });
    }

    /// Set every valid element to `v`.
    pub fn fill(&mut self, v: St::Elem)
    where
        St::Elem: Clone,
    {
        self.apply(|x| *x = v.clone());
    }
}

/// Visit every coordinate of `ext` (the first axis fastest).
fn for_each_coord(ext: &[usize], mut f: impl FnMut(&[usize])) {
    if ext.contains(&0) {
        return;
    }
    let mut c = [0usize; MAX_LEAVES];
    let r = ext.len();
    loop {
        f(&c[..r]);
        let mut a = 0;
        loop {
            if a == r {
                return;
            }
            c[a] += 1;
            if c[a] < ext[a] {
                break;
            }
            c[a] = 0;
            a += 1;
        }
    }
}

/// CuTe's `copy_if(pred, src, dst)` on predicated tiles: copy the element at every coordinate `c`
/// of the tile where `pred(c)` holds **and** `c` exists in both tiles. Returns the number of
/// elements copied. The tiles' own predicates always apply, so a predicate written for the
/// source cannot make the copy write outside the destination (cutlass#3488).
///
/// ```
/// use layout::tensor::{Tensor, copy_if};
/// let src = Tensor::from_fn(&[10, 6], |i| i as i32).unwrap();
/// let mut dst = Tensor::from_vec(vec![-1; 9 * 5], &[9, 5]).unwrap(); // smaller than src
/// let ts = src.tiles(&[4, 4]).unwrap();
/// let mut td = dst.tiles_mut(&[4, 4]).unwrap();
/// let s = ts.predicated(&[2, 1]).unwrap(); // rows 8..10, columns 4..6 of src
/// let mut d = td.predicated_mut(&[2, 1]).unwrap(); // rows 8..9, column 4 of dst
/// // the source's predicate says 2 × 2; only the 1 × 1 that dst has is written
/// let n = copy_if(|c| s.is_valid(c), &s, &mut d);
/// assert_eq!(n, 1);
/// assert_eq!(dst[[8, 4]], src[[8, 4]]);
/// ```
pub fn copy_if<S: Storage, D: StorageMut<Elem = S::Elem>>(
    mut pred: impl FnMut(&[usize]) -> bool,
    src: &Predicated<S>,
    dst: &mut Predicated<D>,
) -> usize
where
    S::Elem: Clone,
{
    let r = src.rank.min(dst.rank);
    let mut ext = [0usize; MAX_LEAVES];
    for (e, (&s, &d)) in ext.iter_mut().zip(src.valid.iter().zip(&dst.valid)).take(r) {
        *e = s.min(d);
    }
    let mut n = 0;
    if src.rank != dst.rank {
        return 0;
    }
    for_each_coord(&ext[..r], |c| {
        if pred(c)
            && let Some(v) = src.get(c)
            && let Some(w) = dst.get_mut(c)
        {
            *w = v.clone();
            n += 1;
        }
    });
    n
}

impl<St: Storage> Tensor<St, DynLayout> {
    /// CuTe's `local_tile(tensor, tiler, coord)` on a run-time tensor: tile `coord` of this
    /// tensor cut into tiles of extents `tile`, smaller at a ragged edge
    /// ([`Tensor::tiles`] + [`Tiles::tile`]; to take many tiles, plan once with `tiles`).
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let a = Tensor::from_fn(&[100, 60], |i| i as f32).unwrap();
    /// let t = a.local_tile(&[32, 32], &[3, 1]).unwrap();
    /// assert_eq!(t.dims(), [4, 28]); // rows 96..100, columns 32..60
    /// assert_eq!(t[[3, 27]], a[[99, 59]]);
    /// ```
    ///
    /// # Errors
    /// As [`Tensor::tiles`] and [`Tiles::tile`].
    pub fn local_tile(
        &self,
        tile: &[usize],
        coord: &[usize],
    ) -> Result<TensorRef<'_, St::Elem>, TensorError> {
        let t = Tiles::plan(self.as_slice(), self.base_offset(), *self.layout(), tile)?;
        let (l, pos) = t.general_tile(coord)?;
        // SAFETY: as in `Tiles::tile`.
        Ok(unsafe { Tensor::new_unchecked(self.as_slice(), l, pos) })
    }
}

impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    /// CuTe's `zipped_divide(tensor, tiler)`: a view whose layout is
    /// `((tile modes), (rest modes))` ([`DynLayout::zipped_divide_by_mode`]). The division
    /// must be exact; for ragged edges use [`Tensor::tiles`].
    ///
    /// ```
    /// use layout::{Tile, tensor::Tensor};
    /// let a = Tensor::from_fn(&[8, 6], |i| i as i32).unwrap();
    /// let z = a.zipped_divide(&"[4,3]".parse::<Tile>().unwrap()).unwrap();
    /// assert_eq!(z.layout().to_string(), "((4,3),(2,2)):((6,1),(24,3))");
    /// ```
    ///
    /// # Errors
    /// The algebra's refusal; [`TensorError::TilerNotDividing`] naming the axis when a mode of
    /// the tiler does not divide the tensor's axis exactly (the result would have elements
    /// that are not the tensor's, even where they are inside the buffer of a view).
    pub fn zipped_divide(&self, tiler: &Tile) -> Result<TensorRef<'_, St::Elem>, TensorError> {
        let a = self.dyn_layout()?;
        let l = a.zipped_divide_by_mode(tiler)?;
        exact_division("zipped_divide", &a, tiler, &l)?;
        Tensor::with_offset(self.as_slice(), l, self.base_offset())
    }

    /// CuTe's `tiled_divide(tensor, tiler)`: `((tile modes), rest0, rest1, …)`
    /// ([`DynLayout::tiled_divide_by_mode`]), exact division only.
    ///
    /// # Errors
    /// As [`Tensor::zipped_divide`].
    pub fn tiled_divide(&self, tiler: &Tile) -> Result<TensorRef<'_, St::Elem>, TensorError> {
        let a = self.dyn_layout()?;
        let l = a.tiled_divide_by_mode(tiler)?;
        exact_division("tiled_divide", &a, tiler, &l)?;
        Tensor::with_offset(self.as_slice(), l, self.base_offset())
    }

    /// CuTe's `local_partition(tensor, thr, idx)`: the elements of this tensor that thread
    /// `idx` of the thread layout `thr` owns ([`DynLayout::local_partition`]).
    ///
    /// ```
    /// use layout::{DynLayout, tensor::Tensor};
    /// let a = Tensor::new((0..48).collect::<Vec<i32>>(), "(8,6):(1,8)".parse::<DynLayout>().unwrap()).unwrap();
    /// let thr: DynLayout = "(4,3):(3,1)".parse().unwrap();
    /// let p = a.local_partition(&thr, 4).unwrap();
    /// assert_eq!(p.layout().to_string(), "(2,2):(4,24)");
    /// assert_eq!(p[[1, 1]], a[[1 + 4, 1 + 3]]);
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::local_partition`]; [`TensorError::OutOfBuffer`] when the partition would
    /// reach outside the buffer.
    pub fn local_partition(
        &self,
        thr: &DynLayout,
        idx: i64,
    ) -> Result<TensorRef<'_, St::Elem>, TensorError> {
        let (l, off) = self.dyn_layout()?.local_partition(thr, idx)?;
        let base = i64::try_from(self.base_offset())
            .ok()
            .and_then(|b| b.checked_add(off))
            .and_then(|p| usize::try_from(p).ok())
            .ok_or(layout_err(LayoutError::Overflow {
                what: "partition base offset",
            }))?;
        Tensor::with_offset(self.as_slice(), l, base)
    }
}

/// Checks that the by-mode division of `a` by `tiler` (giving `divided`) is exact: the divided
/// layout has exactly the elements of `a`, so every mode of the tiler divides its axis.
fn exact_division(
    op: &'static str,
    a: &DynLayout,
    tiler: &Tile,
    divided: &DynLayout,
) -> Result<(), TensorError> {
    if divided.size() == a.size() {
        return Ok(());
    }
    for i in 0..tiler.rank() {
        let Some(crate::TileMode::Layout(t)) = tiler.mode(i) else {
            continue;
        };
        let m = if a.profile().is_leaf() {
            *a
        } else {
            a.mode(i).map_err(layout_err)?
        };
        let d = m.logical_divide_by_layout(&t).map_err(layout_err)?;
        if d.size() != m.size() {
            return Err(TensorError::TilerNotDividing {
                op,
                axis: i,
                extent: m.size(),
                tile: t.size(),
            });
        }
    }
    Err(TensorError::TilerNotDividing {
        op,
        axis: 0,
        extent: a.size(),
        tile: divided.size(),
    })
}

/// A heap-free list of modes joined into one layout (`DynLayout::make_layout` of a slice).
mod alloc_free {
    use crate::{DynLayout, LayoutError};

    pub(super) struct Parts {
        l: [DynLayout; 8],
        n: usize,
        over: bool,
    }

    impl Parts {
        pub(super) fn new() -> Self {
            Parts {
                l: [DynLayout::EMPTY; 8],
                n: 0,
                over: false,
            }
        }
        pub(super) fn push(&mut self, m: DynLayout) {
            if self.n == 8 {
                self.over = true;
                return;
            }
            self.l[self.n] = m;
            self.n += 1;
        }
        pub(super) fn build(&self) -> Result<DynLayout, LayoutError> {
            if self.over {
                return Err(LayoutError::TooManyLeaves { needed: 9 });
            }
            // one axis: a leaf stays a leaf; a hierarchical mode stays one mode (rank 1), not
            // its own sub-modes
            if self.n == 1 && self.l[0].profile().is_leaf() {
                return Ok(self.l[0]);
            }
            DynLayout::make_layout(&self.l[..self.n])
        }
    }
}
