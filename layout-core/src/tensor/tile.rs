//! Static tiles of tensors over typed rank-2 layouts (CuTe's `local_tile` on a tensor).

use super::{Storage, StorageMut, Tensor, TensorError, TensorMut, TensorRef};
use crate::algebra::StaticTile;
use crate::{IntTuple, Integer, Layout, LayoutError};

/// The buffer position of a tile's first element: `base + off`, which must not be negative.
fn tile_base(base: usize, off: i64) -> Result<usize, TensorError> {
    (base as i64)
        .checked_add(off)
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
    /// use layout_core::{Int, Layout, tensor::Tensor};
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
        coord: (i64, i64),
    ) -> Result<TensorRef<'_, St::Elem, StaticTile<M, N, D0, D1>>, TensorError> {
        let (tile, off) = self.layout().local_tile::<M, N>(coord)?;
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
        coord: (i64, i64),
    ) -> Result<TensorMut<'_, St::Elem, StaticTile<M, N, D0, D1>>, TensorError> {
        let (tile, off) = self.layout().local_tile::<M, N>(coord)?;
        let base = tile_base(self.base_offset(), off)?;
        // SAFETY: as for `local_tile`: every element of the tile is an element of this tensor,
        // inside its buffer; this tensor is writable, so its layout is injective, and so is the
        // tile's (distinct tile coordinates are distinct coordinates of this tensor).
        Ok(unsafe { Tensor::new_unchecked(self.as_mut_slice(), tile, base) })
    }
}
