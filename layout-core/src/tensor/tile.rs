//! Static tiles of tensors over typed rank-2 layouts (CuTe's `local_tile` on a tensor).

use super::{Storage, StorageMut, Tensor, TensorError, TensorMut, TensorRef};
use crate::algebra::StaticTile;
use crate::{Int, IntTuple, Integer, Layout, LayoutError};

/// A tile coordinate in the layouts' `i64`; one past `i64::MAX` saturates, which no grid
/// reaches, so it is refused as outside the grid.
fn coord_i64((i, j): (usize, usize)) -> (i64, i64) {
    (
        i64::try_from(i).unwrap_or(i64::MAX),
        i64::try_from(j).unwrap_or(i64::MAX),
    )
}

/// The buffer position of a tile's first element: `base + off`, which must not be negative.
fn tile_base(base: usize, off: i64) -> Result<usize, TensorError> {
    i64::try_from(base)
        .ok()
        .and_then(|b| b.checked_add(off))
        .and_then(|b| usize::try_from(b).ok())
        .ok_or(TensorError::Layout(LayoutError::Overflow {
            what: "tile base offset",
        }))
}

impl<St: Storage, S0, S1, D0, D1> Tensor<St, Layout<(S0, S1), (D0, D1)>>
where
    S0: Integer + IntTuple,
    S1: Integer + IntTuple,
    D0: Integer + IntTuple,
    D1: Integer + IntTuple,
{
    /// Tile `(i, j)` of this tensor cut into `M × N` tiles, as a view whose layout type has the
    /// static extents `M`, `N` and this tensor's stride types (see
    /// [`Layout::local_tile`](crate::Layout::local_tile)): loops over the tile have constant trip
    /// counts.
    ///
    /// ```
    /// use layout::{Int, Layout, tensor::Tensor};
    /// let (m, k) = (32i64, 16i64);
    /// let a = Tensor::new((0..m * k).collect::<Vec<i64>>(), Layout::new((m, k), (Int::<1>, m))).unwrap();
    /// let t = a.local_tile::<8, 4>((2, 1)).unwrap();
    /// assert_eq!(t[(0, 0)], 16 + 4 * 32);      // row 16, column 4 of the column-major parent
    /// assert_eq!(t[(7, 3)], 23 + 7 * 32);
    /// ```
    ///
    /// # Errors
    /// As [`Layout::local_tile`](crate::Layout::local_tile).
    pub fn local_tile<const M: i64, const N: i64>(
        &self,
        coord: (usize, usize),
    ) -> Result<TensorRef<'_, St::Elem, StaticTile<M, N, D0, D1>>, TensorError> {
        let (tile, off) = self.layout().local_tile::<M, N>(coord_i64(coord))?;
        let base = tile_base(self.base_offset(), off)?;
        // SAFETY: `local_tile` checked that M and N divide the extents and that the tile is in
        // the grid, so element (i, j) of the tile is element (c0·M + i, c1·N + j) of this
        // tensor, at `base + i·d0 + j·d1` — inside the buffer (this tensor is valid); the tile
        // is affine (its inner layout exists). No per-tile scan of the offsets.
        Ok(unsafe { Tensor::new_unchecked(self.as_slice(), tile, base) })
    }
}

impl<St: StorageMut, S0, S1, D0, D1> Tensor<St, Layout<(S0, S1), (D0, D1)>>
where
    S0: Integer + IntTuple,
    S1: Integer + IntTuple,
    D0: Integer + IntTuple,
    D1: Integer + IntTuple,
{
    /// The writable form of [`Tensor::local_tile`].
    ///
    /// # Errors
    /// As [`Tensor::local_tile`].
    pub fn local_tile_mut<const M: i64, const N: i64>(
        &mut self,
        coord: (usize, usize),
    ) -> Result<TensorMut<'_, St::Elem, StaticTile<M, N, D0, D1>>, TensorError> {
        let (tile, off) = self.layout().local_tile::<M, N>(coord_i64(coord))?;
        let base = tile_base(self.base_offset(), off)?;
        // SAFETY: as for `local_tile`: every element of the tile is an element of this tensor,
        // inside its buffer; this tensor is writable, so its layout is injective, and so is the
        // tile's (distinct tile coordinates are distinct coordinates of this tensor).
        Ok(unsafe { Tensor::new_unchecked(self.as_mut_slice(), tile, base) })
    }
}

/// A static `M × N` tile with a predicate, at any position of a typed rank-2 tensor, ragged
/// edges included ([`Tensor::local_tile_predicated`]): the layout type is the static tile's
/// (`(Int<M>, Int<N>) : (D0, D1)`, offsets folded at compile time), and the coordinates outside
/// the tensor are masked — reads give `None`, writes are skipped, no offset is computed for them.
#[derive(Debug)]
pub struct StaticPredicated<St, L> {
    storage: St,
    layout: L,
    pos: usize,
    valid: (usize, usize),
}

impl<St: Storage, const M: i64, const N: i64, D0, D1> StaticPredicated<St, StaticTile<M, N, D0, D1>>
where
    D0: Integer + IntTuple,
    D1: Integer + IntTuple,
{
    /// The static layout of the full tile.
    pub fn layout(&self) -> &StaticTile<M, N, D0, D1> {
        &self.layout
    }

    /// The predicate as a bound: coordinate `(i, j)` exists when `i < valid.0` and
    /// `j < valid.1`.
    pub fn valid_extents(&self) -> (usize, usize) {
        self.valid
    }

    /// `true` when no coordinate is masked (an interior tile).
    pub fn is_full(&self) -> bool {
        // valid extents are positive and at most the tile's: M, N ≥ 1
        self.valid == (M as usize, N as usize)
    }

    /// The predicate at `(i, j)`.
    #[inline(always)]
    pub fn is_valid(&self, c: (usize, usize)) -> bool {
        c.0 < self.valid.0 && c.1 < self.valid.1
    }

    /// The element at `(i, j)`, `None` when masked.
    #[inline(always)]
    pub fn get(&self, c: (usize, usize)) -> Option<&St::Elem> {
        if !self.is_valid(c) {
            return None;
        }
        // a valid coordinate is an element of the tensor (below its extents, which fit i64);
        // `get` checks the buffer anyway
        let p = (self.pos as i64 + self.layout.offset((c.0 as i64, c.1 as i64))) as usize;
        self.storage.as_slice().get(p)
    }

    /// The full tile as a tensor view with the static tile type, when no coordinate is masked.
    pub fn full(&self) -> Option<TensorRef<'_, St::Elem, StaticTile<M, N, D0, D1>>> {
        if !self.is_full() {
            return None;
        }
        // SAFETY: a full tile: every coordinate (i, j) < (M, N) is a valid one, an element of
        // the tensor at `pos + offset(i, j)`, inside the buffer; the layout is affine.
        Some(unsafe { Tensor::new_unchecked(self.storage.as_slice(), self.layout, self.pos) })
    }
}

impl<St: StorageMut, const M: i64, const N: i64, D0, D1>
    StaticPredicated<St, StaticTile<M, N, D0, D1>>
where
    D0: Integer + IntTuple,
    D1: Integer + IntTuple,
{
    /// The element at `(i, j)`, writable; `None` when masked.
    #[inline(always)]
    pub fn get_mut(&mut self, c: (usize, usize)) -> Option<&mut St::Elem> {
        if !self.is_valid(c) {
            return None;
        }
        // as in `get`
        let p = (self.pos as i64 + self.layout.offset((c.0 as i64, c.1 as i64))) as usize;
        self.storage.as_mut_slice().get_mut(p)
    }

    /// Apply `f` to every valid element.
    pub fn apply(&mut self, mut f: impl FnMut(&mut St::Elem)) {
        for j in 0..self.valid.1 {
            for i in 0..self.valid.0 {
                if let Some(v) = self.get_mut((i, j)) {
                    f(v);
                }
            }
        }
    }
}

/// A static `M × N` predicated tile over storage `St` with strides `(D0, D1)`.
pub type PredicatedTile<St, const M: i64, const N: i64, D0, D1> =
    StaticPredicated<St, StaticTile<M, N, D0, D1>>;

/// The tile of grid coordinate `coord`: its position and valid extents, for `M × N` tiles of a
/// `s0 × s1` layout with strides `d0`, `d1` (ragged edges allowed).
fn predicated_tile(
    base: usize,
    (s0, s1): (i64, i64),
    (d0, d1): (i64, i64),
    (m, n): (i64, i64),
    coord: (usize, usize),
) -> Result<(usize, (usize, usize)), TensorError> {
    let mut off = 0i64;
    let mut valid = [0usize; 2];
    for (a, (extent, tile, c, stride)) in [(s0, m, coord.0, d0), (s1, n, coord.1, d1)]
        .into_iter()
        .enumerate()
    {
        if tile <= 0 {
            return Err(LayoutError::NonPositiveExtent {
                leaf: a,
                extent: tile,
            }
            .into());
        }
        // extents and tiles are positive i64, so the grid fits usize
        let tiles = super::tiling::ceil_div(extent, tile) as usize;
        if c >= tiles {
            return Err(TensorError::TileOutOfGrid {
                axis: a,
                index: c,
                grid: tiles,
            });
        }
        // c·tile < extent: an index of the axis, its offset fits (the tensor is valid)
        let start = c as i64 * tile;
        valid[a] = tile.min(extent - start) as usize;
        off += start * stride;
    }
    Ok((tile_base(base, off)?, (valid[0], valid[1])))
}

impl<St: Storage, S0, S1, D0, D1> Tensor<St, Layout<(S0, S1), (D0, D1)>>
where
    S0: Integer + IntTuple,
    S1: Integer + IntTuple,
    D0: Integer + IntTuple,
    D1: Integer + IntTuple,
{
    /// Tile `(i, j)` of this tensor cut into `M × N` tiles, **ragged edges allowed**: a full
    /// static tile (type `(Int<M>, Int<N>) : (D0, D1)`, the parent's stride types) with a
    /// predicate masking the coordinates outside the tensor. The grid has `ceil(extent / M)` ×
    /// `ceil(extent / N)` tiles.
    ///
    /// ```
    /// use layout::{Int, Layout, tensor::Tensor};
    /// let (m, k, ld) = (100i64, 60i64, 104i64);
    /// let a = Tensor::new((0..ld * k).collect::<Vec<i64>>(), Layout::new((m, k), (Int::<1>, ld))).unwrap();
    /// let t = a.local_tile_predicated::<32, 32>((3, 1)).unwrap();
    /// let _: &Layout<(Int<32>, Int<32>), (Int<1>, i64)> = t.layout(); // static stays static
    /// assert_eq!(t.valid_extents(), (4, 28));
    /// assert_eq!(t.get((3, 27)), Some(&(99 + 59 * ld)));
    /// assert_eq!(t.get((4, 0)), None);
    /// assert!(a.local_tile_predicated::<32, 32>((0, 0)).unwrap().full().is_some());
    /// ```
    ///
    /// # Errors
    /// `M` or `N` not positive; a tile coordinate outside the grid.
    pub fn local_tile_predicated<const M: i64, const N: i64>(
        &self,
        coord: (usize, usize),
    ) -> Result<PredicatedTile<&[St::Elem], M, N, D0, D1>, TensorError> {
        let l = self.layout();
        let (s0, s1) = l.shape();
        let (d0, d1) = l.stride();
        let (pos, valid) = predicated_tile(
            self.base_offset(),
            (s0.value(), s1.value()),
            (d0.value(), d1.value()),
            (M, N),
            coord,
        )?;
        Ok(StaticPredicated {
            storage: self.as_slice(),
            layout: Layout::new((Int::<M>, Int::<N>), (d0, d1)),
            pos,
            valid,
        })
    }
}

impl<St: StorageMut, S0, S1, D0, D1> Tensor<St, Layout<(S0, S1), (D0, D1)>>
where
    S0: Integer + IntTuple,
    S1: Integer + IntTuple,
    D0: Integer + IntTuple,
    D1: Integer + IntTuple,
{
    /// The writable form of [`Tensor::local_tile_predicated`].
    ///
    /// # Errors
    /// As [`Tensor::local_tile_predicated`].
    pub fn local_tile_predicated_mut<const M: i64, const N: i64>(
        &mut self,
        coord: (usize, usize),
    ) -> Result<PredicatedTile<&mut [St::Elem], M, N, D0, D1>, TensorError> {
        let (s0, s1) = self.layout().shape();
        let (d0, d1) = self.layout().stride();
        let (pos, valid) = predicated_tile(
            self.base_offset(),
            (s0.value(), s1.value()),
            (d0.value(), d1.value()),
            (M, N),
            coord,
        )?;
        Ok(StaticPredicated {
            storage: self.as_mut_slice(),
            layout: Layout::new((Int::<M>, Int::<N>), (d0, d1)),
            pos,
            valid,
        })
    }
}
