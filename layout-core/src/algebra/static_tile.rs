//! `local_tile` with a static tile shape on typed rank-2 layouts: the tile's *type* keeps the
//! static extents and the parent's stride types, as CuTe's
//! `local_tile(mA, make_shape(_128, _8), coord)` does, so a kernel over run-time `m`, `k` walks
//! tiles with constant trip counts and can be specialised on the tile type.
//!
//! The run-time counterpart is [`DynLayout::local_tile`](crate::DynLayout::local_tile) with the
//! by-mode tiler `[M,N]`; both give the same offsets (tested).

use crate::{Int, IntTuple, Integer, Layout, LayoutError};

/// The layout of an `M × N` static tile of a rank-2 layout with strides `(D0, D1)`: what
/// [`Layout::local_tile`] returns.
pub type StaticTile<const M: i64, const N: i64, D0, D1> = Layout<(Int<M>, Int<N>), (D0, D1)>;

/// `(value, error)` of a checked product, naming what overflowed.
fn mul(a: i64, b: i64, what: &'static str) -> Result<i64, LayoutError> {
    a.checked_mul(b).ok_or(LayoutError::Overflow { what })
}

impl<S0, S1, D0, D1> Layout<(S0, S1), (D0, D1)>
where
    S0: Integer + IntTuple,
    S1: Integer + IntTuple,
    D0: Integer + IntTuple,
    D1: Integer + IntTuple,
{
    /// Tile `coord = (i, j)` of this rank-2 layout cut into `M × N` tiles: the layout of the
    /// tile, typed `(Int<M>, Int<N>) : (D0, D1)` — static extents, the parent's strides with
    /// their static or dynamic types — and the offset of its first element,
    /// `i·M·stride₀ + j·N·stride₁` (CuTe's `local_tile`).
    ///
    /// ```
    /// use layout::{Int, Layout};
    /// let (m, k, ld) = (64i64, 32i64, 64i64);
    /// let a = Layout::new((m, k), (Int::<1>, ld)); // column-major, run-time extents and ld
    /// let (tile, off) = a.local_tile::<16, 8>((1, 2)).unwrap();
    /// // the type says it: static 16 x 8 extents, unit stride static, ld dynamic
    /// let _: Layout<(Int<16>, Int<8>), (Int<1>, i64)> = tile;
    /// assert_eq!(off, 16 + 2 * 8 * 64);
    /// assert_eq!(tile.offset((3, 5)), 3 + 5 * 64);
    /// assert_eq!(core::mem::size_of_val(&tile), 8); // only ld is stored
    /// ```
    ///
    /// # Errors
    /// `M` or `N` not positive; an extent of the layout that `M` or `N` does not divide; a
    /// tile coordinate outside the tile grid; an offset that overflows `i64`.
    pub fn local_tile<const M: i64, const N: i64>(
        &self,
        coord: (i64, i64),
    ) -> Result<(StaticTile<M, N, D0, D1>, i64), LayoutError> {
        let (s0, s1) = self.shape();
        let (d0, d1) = self.stride();
        let mut off = 0i64;
        for (leaf, (extent, tile, c, stride)) in [
            (s0.value(), M, coord.0, d0.value()),
            (s1.value(), N, coord.1, d1.value()),
        ]
        .into_iter()
        .enumerate()
        {
            if tile <= 0 {
                return Err(LayoutError::NonPositiveExtent { leaf, extent: tile });
            }
            if extent % tile != 0 {
                return Err(LayoutError::Precondition {
                    what: "local_tile: the tile extent must divide the layout's extent in every mode, but a mode of extent {a} has a tile of {b}",
                    a: extent,
                    b: tile,
                });
            }
            let tiles = extent / tile;
            if c < 0 || c >= tiles {
                return Err(LayoutError::IndexOutOfRange {
                    index: c,
                    size: tiles,
                });
            }
            let step = mul(
                mul(c, tile, "local_tile offset")?,
                stride,
                "local_tile offset",
            )?;
            off = off.checked_add(step).ok_or(LayoutError::Overflow {
                what: "local_tile offset",
            })?;
        }
        Ok((Layout::new((Int::<M>, Int::<N>), (d0, d1)), off))
    }
}
