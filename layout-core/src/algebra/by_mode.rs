//! The by-mode engine shared by divides and products: apply a 1-D `logical_divide` or
//! `logical_product` to each mode of `A` paired with an element of a by-mode [`Tile`], then
//! arrange the pieces (`logical_*_by_mode` keeps them per mode, `zipped_*` gathers tiles and
//! rests, `tiled_*` / `flat_*` unpack the rests).

use super::flat_modes::{spread, top_mode, top_rank};
use super::tiler::{Tile, TileMode};
use crate::const_try::ctry;
use crate::dyn_layout::Builder;
use crate::{DynLayout, LayoutError};

/// Which 1-D operation a by-mode form applies to each mode: `logical_divide` or `logical_product`.
#[derive(Clone, Copy)]
pub(crate) enum Split {
    Divide,
    Product,
}

/// `((t0,t1,…),(r0,r1,…,extra…))` for a by-mode tiler: each mode is split by `logical_divide` or
/// `logical_product` into (tile, rest); `_` gives `(1:0, Aᵢ)` (pycute's rule).
pub(crate) const fn zip_by_mode(
    a: &DynLayout,
    tiler: &Tile,
    how: Split,
    op: &'static str,
) -> Result<DynLayout, LayoutError> {
    let r = top_rank(a);
    ctry!(check_tiler(a, tiler, op));
    let mut tiles = Builder::tuple();
    let mut rests = Builder::tuple();
    let mut i = 0;
    while i < r {
        let m = ctry!(top_mode(a, i));
        match tiler.mode(i) {
            Some(TileMode::Keep) => {
                ctry!(tiles.push(&ctry!(DynLayout::leaf(1, 0))));
                ctry!(rests.push(&m));
            }
            Some(TileMode::Layout(t)) => {
                let split = match how {
                    Split::Divide => ctry!(m.logical_divide_by_layout(&t)),
                    Split::Product => ctry!(m.logical_product_by_layout(&t)),
                };
                ctry!(tiles.push(&ctry!(split.mode(0))));
                ctry!(rests.push(&ctry!(split.mode(1))));
            }
            None => ctry!(rests.push(&m)),
        }
        i += 1;
    }
    let mut b = Builder::tuple();
    ctry!(b.push(&ctry!(tiles.finish_tuple())));
    ctry!(b.push(&ctry!(rests.finish_tuple())));
    b.finish_tuple()
}

/// A by-mode tiler has at most one mode per mode of `a`; else the error names `op`.
pub(crate) const fn check_tiler(
    a: &DynLayout,
    tiler: &Tile,
    op: &'static str,
) -> Result<(), LayoutError> {
    let (r, n) = (top_rank(a), tiler.rank());
    if n > r {
        return Err(LayoutError::TilerTooLong {
            op,
            tiler_modes: n,
            rank: r,
        });
    }
    Ok(())
}

/// `(mode0, modes of mode1…)`.
pub(crate) const fn tiled(z: &DynLayout) -> Result<DynLayout, LayoutError> {
    let mut b = Builder::tuple();
    ctry!(b.push(&ctry!(z.mode(0))));
    ctry!(spread(&ctry!(z.mode(1)), &mut b));
    b.finish_tuple()
}

/// `(modes of mode0…, modes of mode1…)`.
pub(crate) const fn flat(z: &DynLayout) -> Result<DynLayout, LayoutError> {
    let mut b = Builder::tuple();
    ctry!(spread(&ctry!(z.mode(0)), &mut b));
    ctry!(spread(&ctry!(z.mode(1)), &mut b));
    b.finish_tuple()
}

/// Apply a 1-D divide or product to each mode of `a` paired with an element of `tiler` (`_` keeps
/// the mode; modes past the tiler are kept), and concatenate: the by-mode form shared by
/// `logical_divide_by_mode` and `logical_product_by_mode`.
pub(crate) const fn by_mode(
    a: &DynLayout,
    tiler: &Tile,
    how: Split,
    op: &'static str,
) -> Result<DynLayout, LayoutError> {
    let r = top_rank(a);
    ctry!(check_tiler(a, tiler, op));
    let mut b = Builder::tuple();
    let mut i = 0;
    while i < r {
        let m = ctry!(top_mode(a, i));
        let part = match tiler.mode(i) {
            Some(TileMode::Layout(t)) => match how {
                Split::Divide => ctry!(m.logical_divide_by_layout(&t)),
                Split::Product => ctry!(m.logical_product_by_layout(&t)),
            },
            Some(TileMode::Keep) | None => m,
        };
        ctry!(b.push(&part));
        i += 1;
    }
    b.finish_tuple()
}
