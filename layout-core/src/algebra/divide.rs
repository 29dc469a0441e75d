//! Divides: `logical_divide`, `zipped_divide`, `tiled_divide`, `flat_divide`, each with a 1-D
//! layout tiler and `*_by_mode` with a by-mode [`Tile`].

use super::by_mode::{Split, by_mode, flat, tiled, zip_by_mode};
use super::tiler::Tile;
use crate::const_try::ctry;
use crate::{DynLayout, LayoutError};

impl DynLayout {
    /// CuTe's `logical_divide(A, B)` with a 1-D layout tiler:
    /// `A ⊘ B = A ∘ (B, complement(B, shape(coalesce(A))))`, a rank-2 layout `(tile, rest)`.
    ///
    /// The cotarget is the *shape* of `coalesce(A)` as in CuTe C++ (pycute and the tutorial use
    /// `size(A)`; they differ only when the complement rounds up).
    ///
    /// # Preconditions
    /// `B` has a complement (injective, non-negative strides; see [`DynLayout::complement`]) and
    /// the composition admissible (see
    /// [`DynLayout::composition`]): a tiler that does not divide `A` evenly is refused where the
    /// rest would straddle `A`'s modes (CuTe C++ returns a wrong layout for
    /// `(3,4):(1,5) ⊘ 2:1`).
    ///
    /// # Postconditions
    /// `rank(R) == 2`; `R(i) == A(Bc(i))` for every `i < size(R)` where `Bc = (B, B*)`; mode 0 of
    /// `R` is `composition(A, B)`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(4,2,3):(2,1,8)".parse().unwrap();
    /// let r = a.logical_divide_by_layout(&"4:2".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "((2,2),(2,3)):((4,1),(2,8))");
    /// ```
    ///
    /// # Errors
    /// The errors of [`DynLayout::complement`] and [`DynLayout::composition`].
    pub const fn logical_divide_by_layout(
        &self,
        tiler: &DynLayout,
    ) -> Result<DynLayout, LayoutError> {
        let comp = match tiler.complement_shape(&self.coalesce().shape()) {
            Ok(c) => c,
            // name the operation the user called, then why
            Err(LayoutError::Precondition { a, b, .. }) => {
                return Err(LayoutError::Precondition {
                    what: "logical_divide: the tiler has a mode of stride {b} (extent {a}); a divide \
                           needs the tiler's complement, which needs non-negative strides",
                    a,
                    b,
                });
            }
            Err(e) => return Err(e),
        };
        let b = ctry!(DynLayout::make_layout(&[*tiler, comp]));
        self.composition(&b)
    }

    /// CuTe's `logical_divide(A, tiler)` with a by-mode tiler: mode `i` becomes
    /// `logical_divide(Aᵢ, tᵢ)` (unchanged for `_`); modes past `rank(tiler)` are kept.
    ///
    /// # Preconditions
    /// `rank(tiler) ≤ rank(A)`; each mode's divide is admissible.
    ///
    /// # Postconditions
    /// `rank(R) == rank(A)`; mode `i` of `R` is `logical_divide(Aᵢ, tᵢ)`.
    ///
    /// ```
    /// use layout::{DynLayout, Tile};
    /// let a: DynLayout = "(9,(4,8)):(59,(13,1))".parse().unwrap();
    /// let t: Tile = "[3:3,(2,4):(1,8)]".parse().unwrap();
    /// assert_eq!(
    ///     a.logical_divide_by_mode(&t).unwrap().to_string(),
    ///     "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))"
    /// );
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::TilerTooLong`] when the tiler has more modes than `A`; the errors of
    /// [`DynLayout::logical_divide`].
    pub const fn logical_divide_by_mode(&self, tiler: &Tile) -> Result<DynLayout, LayoutError> {
        by_mode(self, tiler, Split::Divide, "logical_divide")
    }

    /// CuTe's `zipped_divide(A, B)` with a 1-D tiler: the same as [`DynLayout::logical_divide`]
    /// (`(tile, rest)`).
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_divide`].
    ///
    /// # Postconditions
    /// Mode 0 of `R` is `composition(A, B)`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(12,32):(1,12)".parse().unwrap();
    /// let r = a.zipped_divide_by_layout(&"(4,8):(1,4)".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "((4,8),12):((1,4),32)"); // a 1-D tile of 32 (cutlass#2545)
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_divide`].
    pub const fn zipped_divide_by_layout(
        &self,
        tiler: &DynLayout,
    ) -> Result<DynLayout, LayoutError> {
        self.logical_divide_by_layout(tiler)
    }

    /// CuTe's `zipped_divide(A, tiler)` with a by-mode tiler:
    /// `((TileM,TileN,…),(RestM,RestN,…,L,…))`. A `_` element gives tile `1:0` and rest `Aᵢ`
    /// (pycute's rule; CuTe C++ usually fails to compile).
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_divide_by_mode`].
    ///
    /// # Postconditions
    /// Mode 0 of `R` equals `composition_by_mode(A, tiler)` where no element is `_`.
    ///
    /// ```
    /// use layout::{DynLayout, Tile};
    /// let a: DynLayout = "(12,32):(1,12)".parse().unwrap();
    /// let t = Tile::from_shape(&"(4,8)".parse().unwrap()).unwrap();
    /// assert_eq!(a.zipped_divide_by_mode(&t).unwrap().to_string(), "((4,8),(3,4)):((1,12),(4,96))");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_divide_by_mode`].
    pub const fn zipped_divide_by_mode(&self, tiler: &Tile) -> Result<DynLayout, LayoutError> {
        zip_by_mode(self, tiler, Split::Divide, "zipped_divide")
    }

    /// CuTe's `tiled_divide(A, B)` with a 1-D tiler: `(tile, rest modes…)`.
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_divide`].
    ///
    /// # Postconditions
    /// Mode 0 is `composition(A, B)`; the other modes are the modes of the rest.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(4,2,3):(2,1,8)".parse().unwrap();
    /// let r = a.tiled_divide_by_layout(&"4:2".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "((2,2),2,3):((4,1),2,8)");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_divide`].
    pub const fn tiled_divide_by_layout(
        &self,
        tiler: &DynLayout,
    ) -> Result<DynLayout, LayoutError> {
        tiled(&ctry!(self.zipped_divide_by_layout(tiler)))
    }

    /// CuTe's `tiled_divide(A, tiler)` with a by-mode tiler: `((TileM,TileN,…),RestM,RestN,…)`.
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_divide_by_mode`].
    ///
    /// # Postconditions
    /// Mode 0 is mode 0 of the zipped divide; the rest modes follow.
    ///
    /// ```
    /// use layout::{DynLayout, Tile};
    /// let a: DynLayout = "(12,32):(1,12)".parse().unwrap();
    /// let t = Tile::from_shape(&"(4,8)".parse().unwrap()).unwrap();
    /// assert_eq!(a.tiled_divide_by_mode(&t).unwrap().to_string(), "((4,8),3,4):((1,12),4,96)");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_divide_by_mode`].
    pub const fn tiled_divide_by_mode(&self, tiler: &Tile) -> Result<DynLayout, LayoutError> {
        tiled(&ctry!(zip_by_mode(
            self,
            tiler,
            Split::Divide,
            "tiled_divide"
        )))
    }

    /// CuTe's `flat_divide(A, B)` with a 1-D tiler: `(tile modes…, rest modes…)`.
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_divide`].
    ///
    /// # Postconditions
    /// The modes of [`DynLayout::zipped_divide`]'s two modes, in order.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(4,2,3):(2,1,8)".parse().unwrap();
    /// let r = a.flat_divide_by_layout(&"4:2".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "(2,2,2,3):(4,1,2,8)");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_divide`].
    pub const fn flat_divide_by_layout(&self, tiler: &DynLayout) -> Result<DynLayout, LayoutError> {
        flat(&ctry!(self.zipped_divide_by_layout(tiler)))
    }

    /// CuTe's `flat_divide(A, tiler)` with a by-mode tiler: `(TileM,TileN,…,RestM,RestN,…)`.
    ///
    /// # Preconditions
    /// As [`DynLayout::logical_divide_by_mode`].
    ///
    /// # Postconditions
    /// The modes of [`DynLayout::zipped_divide_by_mode`]'s two modes, in order.
    ///
    /// ```
    /// use layout::{DynLayout, Tile};
    /// let a: DynLayout = "(12,32):(1,12)".parse().unwrap();
    /// let t = Tile::from_shape(&"(4,8)".parse().unwrap()).unwrap();
    /// assert_eq!(a.flat_divide_by_mode(&t).unwrap().to_string(), "(4,8,3,4):(1,12,4,96)");
    /// ```
    ///
    /// # Errors
    /// As [`DynLayout::logical_divide_by_mode`].
    pub const fn flat_divide_by_mode(&self, tiler: &Tile) -> Result<DynLayout, LayoutError> {
        flat(&ctry!(zip_by_mode(
            self,
            tiler,
            Split::Divide,
            "flat_divide"
        )))
    }
}
