//! `local_tile` with a static tile shape on typed rank-2 layouts: the tile's *type* keeps the
//! static extents and the parent's stride types, as CuTe's
//! `local_tile(mA, make_shape(_128, _8), coord)` does, so a kernel over run-time `m`, `k` walks
//! tiles with constant trip counts and can be specialised on the tile type.
//!
//! The run-time counterpart is [`DynLayout::local_tile`](crate::DynLayout::local_tile) with the
//! by-mode tiler `[M,N]`; both give the same offsets (tested).

use crate::{DynLayout, DynTuple, Int, IntTuple, Integer, Layout, LayoutError, Tile};

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

/// CuTe's `zipped_divide` of a rank-2 layout by the static shape tiler `[M, N]`, typed: the tile
/// mode keeps the static extents (`Int<M>`, `Int<N>`) and the parent's stride types, the rest
/// mode is run-time — what [`Layout::zipped_divide_static`] returns.
pub type StaticZippedDivide<const M: i64, const N: i64, D0, D1> =
    Layout<((Int<M>, Int<N>), (i64, i64)), ((D0, D1), (i64, i64))>;

/// CuTe's `logical_divide` of a rank-2 layout by `[M, N]`, typed — what
/// [`Layout::logical_divide_static`] returns.
pub type StaticLogicalDivide<const M: i64, const N: i64, D0, D1> =
    Layout<((Int<M>, i64), (Int<N>, i64)), ((D0, i64), (D1, i64))>;

/// CuTe's `tiled_divide` of a rank-2 layout by `[M, N]`, typed — what
/// [`Layout::tiled_divide_static`] returns.
pub type StaticTiledDivide<const M: i64, const N: i64, D0, D1> =
    Layout<((Int<M>, Int<N>), i64, i64), ((D0, D1), i64, i64)>;

/// `((tiles along mode 0, along mode 1), (rest stride 0, rest stride 1))`.
type Divided = ((i64, i64), (i64, i64));

/// Per mode: the number of tiles and the rest stride `T·d` (0 for a single tile), checking `T > 0` and that `T`
/// divides the extent (the exact divide; ragged edges are `Tensor::tiles`' business).
fn divide_mode(
    extent: i64,
    tile: i64,
    stride: i64,
    leaf: usize,
) -> Result<(i64, i64), LayoutError> {
    if tile <= 0 {
        return Err(LayoutError::NonPositiveExtent { leaf, extent: tile });
    }
    if extent % tile != 0 {
        return Err(LayoutError::Precondition {
            what: "a static divide needs the tile extent to divide the layout's extent in every mode, but a mode of extent {a} has a tile of {b}",
            a: extent,
            b: tile,
        });
    }
    let grid = extent / tile;
    // a rest mode of one tile gets stride 0, as the run-time divide gives it
    let rest = if grid == 1 {
        0
    } else {
        mul(tile, stride, "rest stride")?
    };
    Ok((grid, rest))
}

impl<S0, S1, D0, D1> Layout<(S0, S1), (D0, D1)>
where
    S0: Integer + IntTuple,
    S1: Integer + IntTuple,
    D0: Integer + IntTuple,
    D1: Integer + IntTuple,
{
    fn divided<const M: i64, const N: i64>(&self) -> Result<Divided, LayoutError> {
        let (s0, s1) = self.shape();
        let (d0, d1) = self.stride();
        let (g0, r0) = divide_mode(s0.value(), M, d0.value(), 0)?;
        let (g1, r1) = divide_mode(s1.value(), N, d1.value(), 1)?;
        Ok(((g0, g1), (r0, r1)))
    }

    /// `zipped_divide(self, [M, N])` with the static parts kept static: the tile mode is
    /// `(Int<M>, Int<N>) : (D0, D1)` — the tiler's extents and the parent's stride types — and
    /// only the rest mode `(s0/M, s1/N) : (M·d0, N·d1)` is stored at run time, as CuTe keeps
    /// static inner shapes through the divide of a run-time tensor.
    ///
    /// # Postconditions
    /// The same function as the run-time `zipped_divide_by_mode` with the tiler `[M,N]`.
    ///
    /// # Errors
    /// `M` or `N` not positive, or not dividing its mode's extent; a rest stride overflowing.
    ///
    /// ```
    /// use layout::{Int, Layout};
    /// let (m, n, ld) = (64i64, 32i64, 72i64);
    /// let a = Layout::new((m, n), (Int::<1>, ld));
    /// let z = a.zipped_divide_static::<16, 8>().unwrap();
    /// let _: Layout<((Int<16>, Int<8>), (i64, i64)), ((Int<1>, i64), (i64, i64))> = z;
    /// assert_eq!(z.to_string(), "((_16,_8),(4,4)):((_1,72),(16,576))");
    /// // only the dynamic leaves are stored: ld, and the rest mode's 2 extents and 2 strides
    /// assert_eq!(core::mem::size_of_val(&z), 5 * 8);
    /// assert_eq!(z.offset(((3, 5), (1, 2))), 3 + 5 * 72 + 16 + 2 * 576);
    /// ```
    pub fn zipped_divide_static<const M: i64, const N: i64>(
        &self,
    ) -> Result<StaticZippedDivide<M, N, D0, D1>, LayoutError> {
        let ((g0, g1), (r0, r1)) = self.divided::<M, N>()?;
        let (d0, d1) = self.stride();
        Ok(Layout::new(
            ((Int::<M>, Int::<N>), (g0, g1)),
            ((d0, d1), (r0, r1)),
        ))
    }

    /// `logical_divide(self, [M, N])` with the static parts kept static:
    /// `((Int<M>, s0/M), (Int<N>, s1/N)) : ((D0, M·d0), (D1, N·d1))`.
    ///
    /// # Errors
    /// As [`zipped_divide_static`](Self::zipped_divide_static).
    ///
    /// ```
    /// use layout::{Int, Layout};
    /// let a = Layout::new((64i64, 32i64), (Int::<1>, 64i64));
    /// let l = a.logical_divide_static::<16, 8>().unwrap();
    /// assert_eq!(l.to_string(), "((_16,4),(_8,4)):((_1,16),(64,512))");
    /// ```
    pub fn logical_divide_static<const M: i64, const N: i64>(
        &self,
    ) -> Result<StaticLogicalDivide<M, N, D0, D1>, LayoutError> {
        let ((g0, g1), (r0, r1)) = self.divided::<M, N>()?;
        let (d0, d1) = self.stride();
        Ok(Layout::new(
            ((Int::<M>, g0), (Int::<N>, g1)),
            ((d0, r0), (d1, r1)),
        ))
    }

    /// `tiled_divide(self, [M, N])` with the static parts kept static:
    /// `((Int<M>, Int<N>), s0/M, s1/N) : ((D0, D1), M·d0, N·d1)`.
    ///
    /// # Errors
    /// As [`zipped_divide_static`](Self::zipped_divide_static).
    ///
    /// ```
    /// use layout::{Int, Layout};
    /// let a = Layout::new((64i64, 32i64), (Int::<1>, 64i64));
    /// let t = a.tiled_divide_static::<16, 8>().unwrap();
    /// assert_eq!(t.to_string(), "((_16,_8),4,4):((_1,64),16,512)");
    /// ```
    pub fn tiled_divide_static<const M: i64, const N: i64>(
        &self,
    ) -> Result<StaticTiledDivide<M, N, D0, D1>, LayoutError> {
        let ((g0, g1), (r0, r1)) = self.divided::<M, N>()?;
        let (d0, d1) = self.stride();
        Ok(Layout::new(
            ((Int::<M>, Int::<N>), g0, g1),
            ((d0, d1), r0, r1),
        ))
    }
}

/// CuTe's `blocked_product(block, tiler)` of a typed rank-2 block by a run-time rank-2 tiler,
/// typed: each mode is `(block extent, tiles)` with the block's extent and stride types kept —
/// what [`Layout::blocked_product_static`] returns.
pub type StaticBlockedProduct<S0, S1, D0, D1> =
    Layout<((S0, i64), (S1, i64)), ((D0, i64), (D1, i64))>;

/// CuTe's `raked_product(block, tiler)`, typed: each mode is `(tiles, block extent)` — what
/// [`Layout::raked_product_static`] returns.
pub type StaticRakedProduct<S0, S1, D0, D1> =
    Layout<((i64, S0), (i64, S1)), ((i64, D0), (i64, D1))>;

/// The four leaves `(shape, stride)` of a `((a,b),(c,d))` product, or why it has another form.
fn product_leaves(r: &DynLayout) -> Result<([i64; 4], [i64; 4]), LayoutError> {
    let two = |m: usize| -> Result<bool, LayoutError> {
        let mode = r.mode(m)?;
        Ok(!mode.profile().is_leaf() && mode.rank() == 2 && mode.leaf_count() == 2)
    };
    if r.profile().is_leaf() || r.rank() != 2 || r.leaf_count() != 4 || !two(0)? || !two(1)? {
        return Err(LayoutError::Precondition {
            what: "a typed product needs one block leaf and one tile leaf per mode; the product has rank {a} and {b} leaves",
            a: if r.profile().is_leaf() {
                1
            } else {
                r.rank() as i64
            },
            b: r.leaf_count() as i64,
        });
    }
    let (s, d) = (r.shape_leaves(), r.stride_leaves());
    Ok(([s[0], s[1], s[2], s[3]], [d[0], d[1], d[2], d[3]]))
}

impl<S0, S1, D0, D1> Layout<(S0, S1), (D0, D1)>
where
    S0: Integer + IntTuple,
    S1: Integer + IntTuple,
    D0: Integer + IntTuple,
    D1: Integer + IntTuple,
{
    /// `blocked_product(self, tiler)` with this layout as the block, its static parts kept
    /// static: `((S0, t0), (S1, t1)) : ((D0, r0), (D1, r1))`, the tile leaves computed by the
    /// run-time algebra (one source of truth) and stored as `i64`.
    ///
    /// # Postconditions
    /// The same layout as the run-time `DynLayout::blocked_product`.
    ///
    /// # Errors
    /// The algebra's refusals; a product whose modes are not one block leaf and one tile leaf
    /// each (a tiler of rank other than 2, or of hierarchical modes).
    ///
    /// ```
    /// use layout::{DynLayout, Int, Layout};
    /// let block = Layout::new((Int::<2>, Int::<5>), (Int::<5>, Int::<1>));
    /// let (m, n) = (3i64, 4i64); // run-time tiler extents
    /// let tiler = DynLayout::col_major(&format!("({m},{n})").parse().unwrap()).unwrap();
    /// let p = block.blocked_product_static(&tiler).unwrap();
    /// let _: Layout<((Int<2>, i64), (Int<5>, i64)), ((Int<5>, i64), (Int<1>, i64))> = p;
    /// assert_eq!(p.to_string(), "((_2,3),(_5,4)):((_5,10),(_1,30))");
    /// assert_eq!(core::mem::size_of_val(&p), 4 * 8); // the tile leaves only
    /// ```
    pub fn blocked_product_static(
        &self,
        tiler: &DynLayout,
    ) -> Result<StaticBlockedProduct<S0, S1, D0, D1>, LayoutError> {
        let r = self.to_dyn()?.blocked_product(tiler)?;
        let (s, d) = product_leaves(&r)?;
        let ((s0, s1), (d0, d1)) = (self.shape(), self.stride());
        Ok(Layout::new(
            ((s0, s[1]), (s1, s[3])),
            ((d0, d[1]), (d1, d[3])),
        ))
    }

    /// `raked_product(self, tiler)` with this layout as the block, its static parts kept
    /// static: `((t0, S0), (t1, S1)) : ((r0, D0), (r1, D1))`.
    ///
    /// # Errors
    /// As [`blocked_product_static`](Self::blocked_product_static).
    ///
    /// ```
    /// use layout::{DynLayout, Int, Layout};
    /// let block = Layout::new((Int::<2>, Int::<5>), (Int::<5>, Int::<1>));
    /// let tiler: DynLayout = "(3,4):(1,3)".parse().unwrap();
    /// let p = block.raked_product_static(&tiler).unwrap();
    /// assert_eq!(p.to_string(), "((3,_2),(4,_5)):((10,_5),(30,_1))");
    /// ```
    pub fn raked_product_static(
        &self,
        tiler: &DynLayout,
    ) -> Result<StaticRakedProduct<S0, S1, D0, D1>, LayoutError> {
        let r = self.to_dyn()?.raked_product(tiler)?;
        let (s, d) = product_leaves(&r)?;
        let ((s0, s1), (d0, d1)) = (self.shape(), self.stride());
        Ok(Layout::new(
            ((s[0], s0), (s[2], s1)),
            ((d[0], d0), (d[2], d1)),
        ))
    }
}

/// CuTe's `composition(A, make_tile(M, N))` of a typed rank-2 layout by a static shape tiler,
/// typed: `(Int<M>, Int<N>) : (D0, D1)` — what [`Layout::composition_static`] returns.
pub type StaticComposition<const M: i64, const N: i64, D0, D1> = Layout<(Int<M>, Int<N>), (D0, D1)>;

impl<S0, S1, D0, D1> Layout<(S0, S1), (D0, D1)>
where
    S0: Integer + IntTuple,
    S1: Integer + IntTuple,
    D0: Integer + IntTuple,
    D1: Integer + IntTuple,
{
    /// `composition(self, [M, N])` — the by-mode composition with a static shape tiler, CuTe's
    /// `composition(A, make_tile(_M, _N))` — with the static parts kept static. The result's
    /// static part is known from the types: its extents are the tiler's (`Int<M>`, `Int<N>`) and
    /// each mode `s:d ∘ M:1 = M:d` keeps the parent's stride and its type, so a tile of a
    /// run-time tensor with a static unit stride is `(Int<M>, Int<N>) : (Int<1>, i64)` and
    /// stores only `ld`. The run-time algebra decides (one source of truth): the result must be
    /// that layout.
    ///
    /// # Postconditions
    /// The same function as the run-time `composition_by_mode` with the tiler `[M,N]`.
    ///
    /// # Errors
    /// `M` or `N` not positive; the run-time composition's refusals; a result of another form.
    ///
    /// ```
    /// use layout::{Int, Layout};
    /// let (m, n, ld) = (64i64, 32i64, 72i64); // run-time extents and leading dimension
    /// let a = Layout::new((m, n), (Int::<1>, ld));
    /// let t = a.composition_static::<16, 8>().unwrap();
    /// let _: Layout<(Int<16>, Int<8>), (Int<1>, i64)> = t;
    /// assert_eq!(t.to_string(), "(_16,_8):(_1,72)");
    /// assert_eq!(core::mem::size_of_val(&t), 8); // only ld is stored
    /// assert_eq!(t.offset((3, 5)), 3 + 5 * 72);
    /// ```
    pub fn composition_static<const M: i64, const N: i64>(
        &self,
    ) -> Result<StaticComposition<M, N, D0, D1>, LayoutError> {
        for (leaf, t) in [M, N].into_iter().enumerate() {
            if t <= 0 {
                return Err(LayoutError::NonPositiveExtent { leaf, extent: t });
            }
        }
        let (d0, d1) = self.stride();
        let tiler = Tile::from_shape(&DynTuple::from_slice(&[M, N])?)?;
        let r = self.to_dyn()?.composition_by_mode(&tiler)?;
        // the run-time result must be (M, N) : (d0, d1) (a stride under extent 1 is free)
        let want = [(M, d0.value()), (N, d1.value())];
        let ok = r.leaf_count() == 2
            && r.shape_leaves()
                .iter()
                .zip(r.stride_leaves())
                .zip(want)
                .all(|((&s, &d), (ws, wd))| s == ws && (d == wd || s == 1));
        if !ok {
            return Err(LayoutError::Precondition {
                what: "composition_static: the composition with the shape tiler has {a} leaves, not one extent and the parent's stride per mode (first extent {b})",
                a: r.leaf_count() as i64,
                b: r.shape_leaves().first().copied().unwrap_or(0),
            });
        }
        Ok(Layout::new((Int::<M>, Int::<N>), (d0, d1)))
    }
}
