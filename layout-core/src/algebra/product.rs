//! Products: `logical_product`, `zipped_product`, `tiled_product`, `flat_product` (1-D layout
//! tiler, or `*_by_mode` with a [`Tile`]), `blocked_product`, `raked_product`.

use super::by_mode::{Split, by_mode, flat, tiled, zip_by_mode};
use super::flat_modes::{mul, top_mode};
use super::tiler::Tile;
use crate::const_try::ctry;
use crate::dyn_layout::Builder;
use crate::{DynLayout, LayoutError};

impl DynLayout {
    /// CuTe's `logical_product(A, B)` with a 1-D layout tiler:
    /// `A ⊗ B = (A, complement(A, size(A)·cosize(B)) ∘ B)` — `A` repeated as `B` says.
    /// When that complement has fewer than `cosize(B)` elements (only for an `A` that is not
    /// admissible, whose complement is not a tiling), the complement w.r.t.
    /// `cosize(filter(A))·cosize(B)` is used, so that `B`'s offsets stay inside its domain.
    ///
    /// # Preconditions
    /// `A` has a complement (injective, non-negative strides; see [`DynLayout::complement`])
    /// and the composition with `B`
    /// admissible (see [`DynLayout::composition`]).
    ///
    /// # Postconditions
    /// `rank(R) == 2`, mode 0 is `A`, mode 1 is shaped like `B`; when `A` is injective, `R` is
    /// injective and mode 1's offsets are disjoint translates of `A`'s image.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(2,2):(4,1)".parse().unwrap();
    /// let r = a.logical_product_by_layout(&"6:1".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
    /// ```
    ///
    /// # Errors
    /// The errors of [`DynLayout::complement`] and [`DynLayout::composition`].
    pub const fn logical_product_by_layout(
        &self,
        tiler: &DynLayout,
    ) -> Result<DynLayout, LayoutError> {
        let m = ctry!(mul(self.size(), tiler.cosize(), "logical_product cotarget"));
        let mut comp = match self.complement(m) {
            Ok(c) => c,
            // name the operation the user called, then why
            Err(LayoutError::Precondition { a, b, .. }) => {
                return Err(LayoutError::Precondition {
                    what: "logical_product: A has a mode of stride {b} (extent {a}); a product \
                           needs A's complement, which needs non-negative strides",
                    a,
                    b,
                });
            }
            Err(e) => return Err(e),
        };
        if comp.size() < tiler.cosize() {
            // a non-admissible `A` whose complement w.r.t. size(A)·cosize(B) is too small to
            // hold B's offsets: take whole copies of A's offset range instead
            let c = self.filter().cosize();
            let m2 = ctry!(mul(c, tiler.cosize(), "logical_product cotarget"));
            comp = ctry!(self.complement(m2));
        }
        let rest = ctry!(comp.composition(tiler));
        DynLayout::make_layout(&[*self, rest])
    }

    /// CuTe's `logical_product(A, tiler)` with a by-mode tiler: mode `i` becomes
    /// `logical_product(Aᵢ, tᵢ)` (unchanged for `_`); modes past `rank(tiler)` are kept. (pycute
    /// calls `logical_divide` for an integer tiler; we do not copy that bug.)
    ///
    /// # Preconditions
    /// `rank(tiler) ≤ rank(A)`; each mode's product is defined.
    ///
    /// # Postconditions
    /// `rank(R) == rank(A)`, mode `i` is `logical_product(Aᵢ, tᵢ)`.
    ///
    /// ```
    /// use layout::{DynLayout, Tile};
    /// let a: DynLayout = "(2,5):(5,1)".parse().unwrap();
    /// let t: Tile = "[3,4]".parse().unwrap();
    /// assert_eq!(a.logical_product_by_mode(&t).unwrap().to_string(), "((2,3),(5,4)):((5,1),(1,5))");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::TilerTooLong`]; the errors of [`DynLayout::logical_product`].
    pub const fn logical_product_by_mode(&self, tiler: &Tile) -> Result<DynLayout, LayoutError> {
        by_mode(self, tiler, Split::Product, "logical_product")
    }

    /// CuTe's `zipped_product(A, B)` with a 1-D tiler: the same as
    /// [`DynLayout::logical_product`].
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_product`].
    ///
    /// # Postconditions
    /// As [`DynLayout::logical_product`].
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(2,2):(4,1)".parse().unwrap();
    /// assert_eq!(a.zipped_product_by_layout(&"6:1".parse().unwrap()).unwrap(),
    ///            a.logical_product_by_layout(&"6:1".parse().unwrap()).unwrap());
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_product`].
    pub const fn zipped_product_by_layout(
        &self,
        tiler: &DynLayout,
    ) -> Result<DynLayout, LayoutError> {
        self.logical_product_by_layout(tiler)
    }

    /// CuTe's `zipped_product(A, tiler)` with a by-mode tiler: `((M,N,…),(TileM,TileN,…,L,…))`.
    /// A `_` element gives `(1:0, Aᵢ)` (pycute's rule).
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_product_by_mode`].
    ///
    /// # Postconditions
    /// Mode 0 is `(A₀,A₁,…)` over the tiled modes.
    ///
    /// ```
    /// use layout::{DynLayout, Tile};
    /// let a: DynLayout = "(2,5):(5,1)".parse().unwrap();
    /// let t: Tile = "[3,4]".parse().unwrap();
    /// assert_eq!(a.zipped_product_by_mode(&t).unwrap().to_string(), "((2,5),(3,4)):((5,1),(1,5))");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_product_by_mode`].
    pub const fn zipped_product_by_mode(&self, tiler: &Tile) -> Result<DynLayout, LayoutError> {
        zip_by_mode(self, tiler, Split::Product, "zipped_product")
    }

    /// CuTe's `tiled_product(A, B)` with a 1-D tiler: `(A, rest modes…)`.
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_product`].
    ///
    /// # Postconditions
    /// Mode 0 is `A`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(2,2):(4,1)".parse().unwrap();
    /// let r = a.tiled_product_by_layout(&"(2,3):(1,2)".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "((2,2),2,3):((4,1),2,8)");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_product`].
    pub const fn tiled_product_by_layout(
        &self,
        tiler: &DynLayout,
    ) -> Result<DynLayout, LayoutError> {
        tiled(&ctry!(self.zipped_product_by_layout(tiler)))
    }

    /// CuTe's `tiled_product(A, tiler)` with a by-mode tiler: `((M,N,…),TileM,TileN,…)`.
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_product_by_mode`].
    ///
    /// # Postconditions
    /// Mode 0 is mode 0 of the zipped product.
    ///
    /// ```
    /// use layout::{DynLayout, Tile};
    /// let a: DynLayout = "(2,5):(5,1)".parse().unwrap();
    /// let t: Tile = "[3,4]".parse().unwrap();
    /// assert_eq!(a.tiled_product_by_mode(&t).unwrap().to_string(), "((2,5),3,4):((5,1),1,5)");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_product_by_mode`].
    pub const fn tiled_product_by_mode(&self, tiler: &Tile) -> Result<DynLayout, LayoutError> {
        tiled(&ctry!(zip_by_mode(
            self,
            tiler,
            Split::Product,
            "tiled_product"
        )))
    }

    /// CuTe's `flat_product(A, B)` with a 1-D tiler: `(A modes…, rest modes…)`.
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_product`].
    ///
    /// # Postconditions
    /// The modes of the zipped product's two modes, in order.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(2,2):(4,1)".parse().unwrap();
    /// let r = a.flat_product_by_layout(&"(2,3):(1,2)".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "(2,2,2,3):(4,1,2,8)");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_product`].
    pub const fn flat_product_by_layout(
        &self,
        tiler: &DynLayout,
    ) -> Result<DynLayout, LayoutError> {
        flat(&ctry!(self.zipped_product_by_layout(tiler)))
    }

    /// CuTe's `flat_product(A, tiler)` with a by-mode tiler: `(M,N,…,TileM,TileN,…)`.
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_product_by_mode`].
    ///
    /// # Postconditions
    /// The modes of the zipped product's two modes, in order.
    ///
    /// ```
    /// use layout::{DynLayout, Tile};
    /// let a: DynLayout = "(2,5):(5,1)".parse().unwrap();
    /// let t: Tile = "[3,4]".parse().unwrap();
    /// assert_eq!(a.flat_product_by_mode(&t).unwrap().to_string(), "(2,5,3,4):(5,1,1,5)");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_product_by_mode`].
    pub const fn flat_product_by_mode(&self, tiler: &Tile) -> Result<DynLayout, LayoutError> {
        flat(&ctry!(zip_by_mode(
            self,
            tiler,
            Split::Product,
            "flat_product"
        )))
    }

    /// CuTe's `blocked_product(block, tiler)`: with `R = max(rank)` and both padded to rank `R`
    /// with `1:0` modes, `P = logical_product(block, tiler)` and the result zips its two modes
    /// by mode: `((block₀,P₁₀),(block₁,P₁₁),…)` — the block varies fastest in every mode. Not
    /// coalesced (as CuTe C++ since v3.8; the tutorial text that says it coalesces is stale).
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_product`] (with the padded layouts).
    ///
    /// # Postconditions
    /// `rank(R) == max(rank(block), rank(tiler))`; mode `i` is `(blockᵢ, P₁ᵢ)`; `R` is a
    /// re-grouping of the leaves of `P`, so it has the same image.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(2,5):(5,1)".parse().unwrap();
    /// let b: DynLayout = "(3,4):(1,3)".parse().unwrap();
    /// assert_eq!(a.blocked_product(&b).unwrap().to_string(), "((2,3),(5,4)):((5,10),(1,30))");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_product`].
    pub const fn blocked_product(&self, tiler: &DynLayout) -> Result<DynLayout, LayoutError> {
        zip_product(self, tiler, false)
    }

    /// CuTe's `raked_product(block, tiler)`: as [`DynLayout::blocked_product`] but each mode is
    /// `(P₁ᵢ, blockᵢ)` — the tiler varies fastest, so the block's elements are spread cyclically.
    ///
    /// # Preconditions
    /// As [`DynLayout::blocked_product`].
    ///
    /// # Postconditions
    /// As [`DynLayout::blocked_product`] with the two parts of every mode swapped.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(2,5):(5,1)".parse().unwrap();
    /// let b: DynLayout = "(3,4):(1,3)".parse().unwrap();
    /// assert_eq!(a.raked_product(&b).unwrap().to_string(), "((3,2),(4,5)):((10,5),(30,1))");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_product`].
    pub const fn raked_product(&self, tiler: &DynLayout) -> Result<DynLayout, LayoutError> {
        zip_product(self, tiler, true)
    }
}

/// Pad `l` to rank `r` with `1:0` modes (an integer-shaped layout stays one when `r == 1`).
const fn pad(l: &DynLayout, r: usize) -> Result<DynLayout, LayoutError> {
    let mut out = *l;
    let mut k = if l.profile().is_leaf() { 1 } else { l.rank() };
    let one = ctry!(DynLayout::leaf(1, 0));
    while k < r {
        out = ctry!(out.append(&one));
        k += 1;
    }
    Ok(out)
}

const fn zip_product(a: &DynLayout, b: &DynLayout, raked: bool) -> Result<DynLayout, LayoutError> {
    let ra = if a.profile().is_leaf() { 1 } else { a.rank() };
    let rb = if b.profile().is_leaf() { 1 } else { b.rank() };
    let r = if ra > rb { ra } else { rb };
    let pa = ctry!(pad(a, r));
    let pb = ctry!(pad(b, r));
    let p = ctry!(pa.logical_product_by_layout(&pb));
    let (p0, p1) = (ctry!(p.mode(0)), ctry!(p.mode(1)));
    let mut b = Builder::tuple();
    let mut i = 0;
    while i < r {
        let (m0, m1) = (ctry!(top_mode(&p0, i)), ctry!(top_mode(&p1, i)));
        let mut pair = Builder::tuple();
        if raked {
            ctry!(pair.push(&m1));
            ctry!(pair.push(&m0));
        } else {
            ctry!(pair.push(&m0));
            ctry!(pair.push(&m1));
        }
        ctry!(b.push(&ctry!(pair.finish_tuple())));
        i += 1;
    }
    b.finish_tuple()
}
