//! Tensor operands as the GEMM's front reads them: the extents of a rank-2 layout, its strided
//! form where each axis is one `(extent, stride)` (read in place), its axis maps where it is
//! any other affine layout, and a dense copy made by the copy engine where it is not affine (a
//! swizzle undone once at copy speed, C copied back at the end) and `swizzled::plan` did not
//! read it in place.

use std::cell::RefCell;
use std::rc::Rc;
use std::vec::Vec;

use super::check::Strided;
use super::error::{GemmError, Operand};
use super::maps::{AxisMap, Mapped};
use super::options::{MatMut, MatRef};
use super::view::{Out, View};
use crate::DynLayout;
use crate::tensor::{Storage, StorageMut, Tensor};
use crate::walk::{AnyLayout, Axes};

/// A rank-2 layout whose axes are each one `(extent, stride)`, and the index of its lowest
/// element in the buffer.
pub(crate) struct Geometry {
    pub rows: usize,
    pub cols: usize,
    pub rs: isize,
    pub cs: isize,
    pub lowest: usize,
}

impl Geometry {
    /// The operand as a strided matrix over `data` (the buffer from its lowest element).
    pub fn mat<'a, X>(&self, data: &'a [X]) -> MatRef<'a, X> {
        MatRef {
            data,
            rows: self.rows,
            cols: self.cols,
            row_stride: self.rs,
            col_stride: self.cs,
        }
    }

    /// The operand as a writable strided matrix over `data` (the buffer from its lowest
    /// element).
    pub fn mat_mut<'a, X>(&self, data: &'a mut [X]) -> MatMut<'a, X> {
        MatMut {
            data,
            rows: self.rows,
            cols: self.cols,
            row_stride: self.rs,
            col_stride: self.cs,
        }
    }
}

/// [`geometry`] read straight off a flat rank-2 [`DynLayout`], `(rows, cols):(rs, cs)` — the
/// common run-time form of a tensor operand — without copying the layout or walking its
/// profile; `None` for any other layout (then [`geometry`] decides). Equal to [`geometry`]
/// wherever it answers (each axis is one leaf, so its `(extent, stride)` is that leaf's).
#[inline]
pub(crate) fn flat_geometry<L: AnyLayout>(layout: &L, base: usize) -> Option<Geometry> {
    let l = layout.as_dyn()?;
    if !l.profile().is_flat_pair() {
        return None;
    }
    let (&[r, c], &[rs, cs]) = (l.shape_leaves(), l.stride_leaves()) else {
        return None;
    };
    // a valid layout's extents are positive and its offsets fit in i64, so these do not
    // overflow i128
    let lowest = base as i128
        + (r as i128 - 1) * (rs.min(0) as i128)
        + (c as i128 - 1) * (cs.min(0) as i128);
    Some(Geometry {
        rows: usize::try_from(r).ok()?,
        cols: usize::try_from(c).ok()?,
        rs: isize::try_from(rs).ok()?,
        cs: isize::try_from(cs).ok()?,
        lowest: usize::try_from(lowest).ok()?,
    })
}

/// The strided form of a rank-2 layout with base offset `base`, or `NotMatrix` when an axis is
/// not one `(extent, stride)`.
pub(crate) fn geometry<L: AnyLayout>(
    op: &'static str,
    operand: Operand,
    layout: &L,
    base: usize,
) -> Result<Geometry, GemmError> {
    let not = |rank| GemmError::NotMatrix { op, operand, rank };
    // a run-time layout read in place (no copy of its leaves), others converted
    let owned;
    let l = match layout.as_dyn() {
        Some(l) => l,
        None => {
            owned = layout.to_dyn().map_err(|_| not(0))?;
            &owned
        }
    };
    let axes = Axes::new(l);
    if axes.rank != 2 {
        return Err(not(axes.rank));
    }
    let (Some((r, rs)), Some((c, cs))) = (axes.strided(0), axes.strided(1)) else {
        return Err(not(2));
    };
    let lowest = base as i128
        + (r as i128 - 1) * (rs.min(0) as i128)
        + (c as i128 - 1) * (cs.min(0) as i128);
    match (
        usize::try_from(r),
        usize::try_from(c),
        isize::try_from(rs),
        isize::try_from(cs),
        usize::try_from(lowest),
    ) {
        (Ok(rows), Ok(cols), Ok(rs), Ok(cs), Ok(lowest)) => Ok(Geometry {
            rows,
            cols,
            rs,
            cs,
            lowest,
        }),
        _ => Err(not(2)),
    }
}

/// Rows and columns of a rank-2 domain.
fn extents<L: AnyLayout>(
    op: &'static str,
    operand: Operand,
    l: &L,
) -> Result<(usize, usize), GemmError> {
    let not = |rank| GemmError::NotMatrix { op, operand, rank };
    // a run-time layout of two top-level modes: each extent the product of its mode's leaves,
    // read in place (the domain below is a built tuple: its profile walked per mode)
    if let Some((r, c)) = l.as_dyn().and_then(pair_extents) {
        let size = |e: i64| usize::try_from(e).map_err(|_| not(2));
        return Ok((size(r)?, size(c)?));
    }
    let d = l.domain();
    if d.is_leaf() || d.rank() != 2 {
        return Err(not(if d.is_leaf() { 1 } else { d.rank() }));
    }
    let size = |i| {
        d.mode_size(i)
            .and_then(|s| usize::try_from(s).ok())
            .ok_or(not(2))
    };
    Ok((size(0)?, size(1)?))
}

/// The extents of a run-time layout of two top-level modes (each the product of its mode's
/// shape leaves, [`Axes`]' one pass over the profile), checked; `None` for any other rank (then
/// the domain decides, and names the rank).
fn pair_extents(l: &DynLayout) -> Option<(i64, i64)> {
    let ax = Axes::new(l);
    let ext = |k| {
        ax.leaves(k)
            .0
            .iter()
            .try_fold(1i64, |x, &e| x.checked_mul(e))
    };
    if ax.rank != 2 {
        return None;
    }
    Some((ext(0)?, ext(1)?))
}

/// The extents `[m, k, n]` of a product, checked: A m × k, B k × n, C m × n.
pub(crate) fn product_extents<LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>(
    op: &'static str,
    la: &LA,
    lb: &LB,
    lc: &LC,
) -> Result<[usize; 3], GemmError> {
    let (m, k) = extents(op, Operand::A, la)?;
    let (kb, n) = extents(op, Operand::B, lb)?;
    let (mc, nc) = extents(op, Operand::C, lc)?;
    super::check::agree(op, [m, k], [kb, n], [mc, nc])
}

/// How the engine reaches one affine operand of a tensor product.
enum Access {
    /// Each axis one `(extent, stride)`: element (i, j) at `base + i·rs + j·cs`.
    Strided { rs: isize, cs: isize },
    /// Any other affine layout: the offsets of both axes, tabulated with their runs.
    Mapped { rows: AxisMap, cols: AxisMap },
}

/// The [`Access`] of an affine rank-2 layout of `rows × cols` elements.
fn access(op: &'static str, operand: Operand, l: &DynLayout) -> Result<Access, GemmError> {
    let axes = Axes::new(l);
    if axes.rank != 2 {
        return Err(GemmError::NotMatrix {
            op,
            operand,
            rank: axes.rank,
        });
    }
    if let (Some((_, rs)), Some((_, cs))) = (axes.strided(0), axes.strided(1))
        && let (Ok(rs), Ok(cs)) = (isize::try_from(rs), isize::try_from(cs))
    {
        return Ok(Access::Strided { rs, cs });
    }
    let map = |k| {
        let (s, d) = axes.leaves(k);
        AxisMap::new(op, s, d)
    };
    Ok(Access::Mapped {
        rows: map(0)?,
        cols: map(1)?,
    })
}

/// Axis maps up to this many indices (both axes together) are kept for the next call.
const CACHED_INDICES: usize = 4096;

/// [`access`], remembering the last four mapped layouts met on this thread: a program that
/// multiplies operands of the same named layouts again and again (the small products where
/// building the maps costs a tenth of the call) builds each map once.
fn access_cached(
    op: &'static str,
    operand: Operand,
    l: &DynLayout,
) -> Result<Rc<Access>, GemmError> {
    type Last = RefCell<[Option<(DynLayout, Rc<Access>)>; 4]>;
    std::thread_local! {
        static LAST: Last = const { RefCell::new([const { None }; 4]) };
    }
    let hit = LAST.with(|c| {
        let c = c.try_borrow().ok()?;
        c.iter()
            .flatten()
            .find(|(k, _)| k == l)
            .map(|(_, x)| Rc::clone(x))
    });
    if let Some(x) = hit {
        return Ok(x);
    }
    let x = Rc::new(access(op, operand, l)?);
    if let Access::Mapped { rows, cols } = &*x
        && rows.off.len() + cols.off.len() <= CACHED_INDICES
    {
        LAST.with(|c| {
            if let Ok(mut c) = c.try_borrow_mut() {
                c.rotate_right(1);
                c[0] = Some((*l, Rc::clone(&x)));
            }
        });
    }
    Ok(x)
}

/// The operand's elements copied, through the copy engine, into `v` (lent by the caller, kept
/// between calls: no fresh pages each call) as a dense buffer of the strided layout closest to
/// its own memory order (for operands that are not affine: a swizzle is undone at copy speed,
/// once, instead of once per packed element). Returns the buffer's layout. Without `read` the
/// buffer's values are whatever it held (C with β = 0: every element is written before the
/// copy back).
fn densify<T: Copy + Default, S: Storage<Elem = T>, L: AnyLayout>(
    op: &'static str,
    operand: Operand,
    t: &Tensor<S, L>,
    read: bool,
    v: &mut Vec<T>,
) -> Result<DynLayout, GemmError> {
    let (r, c) = extents(op, operand, t.layout())?;
    let elements = r.saturating_mul(c);
    // the inner layout's memory order: row-major when its columns are the closer ones
    let row_major = t.layout().inner_layout().is_ok_and(|l| {
        let ax = Axes::new(&l);
        let step = |k| ax.offset(k, 1.min(ax.extent(k) - 1)).abs();
        ax.rank == 2 && step(1) < step(0)
    });
    let (ri, ci) = (r as i64, c as i64);
    let strides = if row_major { [ci, 1] } else { [1, ri] };
    let too_big = GemmError::Allocation { op, elements };
    let dl = DynLayout::from_flat(&[ri, ci], &strides).map_err(|_| too_big)?;
    // the length `elements`; a buffer already that long is not filled again (every element is
    // written below, or by the engine before it is read)
    v.truncate(elements);
    v.try_reserve_exact(elements - v.len())
        .map_err(|_| GemmError::Allocation { op, elements })?;
    v.resize(elements, T::default());
    if read {
        let mut dt = Tensor::new(&mut v[..], dl).map_err(|_| too_big)?;
        // same axis extents by construction: the copy cannot refuse
        dt.copy_from(t).map_err(|_| too_big)?;
    }
    Ok(dl)
}

/// An affine stand-in for one operand: `None` when its own layout is affine (read in place),
/// else the strided layout of its dense copy (made by the copy engine in the lent buffer).
type Dense = Option<DynLayout>;

/// The operand's affine form: its own layout when `affine`, else a dense copy in `v` (`read`:
/// holding its values) — and how the engine reaches it.
fn affine_form<X: Copy + Default, S: Storage<Elem = X>, L: AnyLayout>(
    op: &'static str,
    operand: Operand,
    t: &Tensor<S, L>,
    read: bool,
    v: &mut Vec<X>,
) -> Result<(Dense, Rc<Access>), GemmError> {
    let dense = if L::AFFINE {
        None
    } else {
        Some(densify(op, operand, t, read, v)?)
    };
    // a run-time layout is looked up in place (no copy of its leaves)
    let owned;
    let l = match (dense, t.layout().as_dyn()) {
        (Some(dl), _) => {
            owned = dl;
            &owned
        }
        (None, Some(l)) => l,
        (None, None) => {
            owned = t.layout().to_dyn().map_err(|_| GemmError::NotMatrix {
                op,
                operand,
                rank: 2,
            })?;
            &owned
        }
    };
    let x = access_cached(op, operand, l)?;
    Ok((dense, x))
}

/// Where an operand starts and how it is strided or mapped.
fn parts(x: &Access, base: usize) -> (Strided, Option<Mapped<'_>>) {
    match x {
        Access::Strided { rs, cs } => (
            Strided {
                origin: base as isize,
                rs: *rs,
                cs: *cs,
            },
            None,
        ),
        Access::Mapped { rows, cols } => (
            Strided {
                origin: base as isize,
                rs: 0,
                cs: 0,
            },
            Some(Mapped { rows, cols }),
        ),
    }
}

/// The views of three tensors of any rank-2 layouts (shapes already checked). Affine operands
/// are read in place through their strides or axis maps (packing copies each run-by-run
/// rectangle as a strided block; C is written from the microkernel's registers where its runs
/// cover a tile, else merged from a stack tile through the maps). Operands that are not affine
/// (swizzled) are first copied by the copy engine into a dense strided buffer (`dense`: one
/// lent buffer each for A, B and C; C copied back at the end). `engine` runs on the views;
/// `c_read` says whether it reads C (β ≠ 0); `mkn` are the product's extents, checked by the
/// caller ([`product_extents`]).
#[allow(clippy::too_many_arguments)]
pub(crate) fn with_views<TA, TB, TC, SA, LA, SB, LB, SC, LC>(
    op: &'static str,
    [m, _, n]: [usize; 3],
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    c_read: bool,
    c: &mut Tensor<SC, LC>,
    dense: (&mut Vec<TA>, &mut Vec<TB>, &mut Vec<TC>),
    engine: impl FnOnce(View<'_, TA>, View<'_, TB>, Out<'_, TC>),
) -> Result<(), GemmError>
where
    TA: Copy + Default,
    TB: Copy + Default,
    TC: Copy + Default,
    SA: Storage<Elem = TA>,
    SB: Storage<Elem = TB>,
    SC: StorageMut<Elem = TC>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    let (va, vb, vc) = dense;
    let (dense_a, xa) = affine_form(op, Operand::A, a, true, va)?;
    let (dense_b, xb) = affine_form(op, Operand::B, b, true, vb)?;
    let (dense_c, xc) = affine_form(op, Operand::C, c, c_read, vc)?;
    let (ad, abase) = match dense_a {
        Some(_) => (&va[..], 0),
        None => (a.as_slice(), a.base_offset()),
    };
    let (bd, bbase) = match dense_b {
        Some(_) => (&vb[..], 0),
        None => (b.as_slice(), b.base_offset()),
    };
    let (sa, ma) = parts(&xa, abase);
    let (sb, mb) = parts(&xb, bbase);
    {
        let (cd, cbase) = match dense_c {
            Some(_) => (&mut vc[..], 0),
            None => {
                let base = c.base_offset();
                (c.as_mut_slice(), base)
            }
        };
        let (sc, cmap) = parts(&xc, cbase);
        // every element of each operand is inside its buffer (tensors are validated at
        // construction; dense copies hold exactly their layout's offsets), and C's layout is
        // injective (a writable tensor's is, and so is a dense copy's)
        engine(
            View {
                data: ad,
                at: sa,
                map: ma,
            },
            View {
                data: bd,
                at: sb,
                map: mb,
            },
            Out { c: cd, sc, cmap },
        );
    }
    if let Some(dl) = dense_c {
        let src = Tensor::new(&vc[..], dl).map_err(|_| GemmError::Allocation {
            op,
            elements: vc.len(),
        })?;
        // same axis extents by construction: the copy cannot refuse
        c.copy_from(&src).map_err(|_| GemmError::Allocation {
            op,
            elements: m.saturating_mul(n),
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::error::Operand;

    /// `pair_extents` is the domain's two mode sizes for every rank-2 layout and `None` for
    /// the others.
    #[test]
    fn pair_extents_are_the_mode_sizes() {
        for s in [
            "(3,4):(1,3)",
            "((16,4),(8,8)):((8,128),(1,512))",
            "((2,3),(2,4)):((1,4),(2,12))",
            "((2,(3,1)),((1,5),2)):((1,(2,0)),((0,6),30))",
            "(7,(2,2)):(4,(1,2))",
        ] {
            let l: DynLayout = s.parse().unwrap();
            let d = l.domain();
            let want = (d.mode_size(0).unwrap(), d.mode_size(1).unwrap());
            assert_eq!(pair_extents(&l), Some(want), "{s}");
        }
        for s in [
            "12:1",
            "(12):(1)",
            "(2,3,4):(1,2,6)",
            "((2,3),4,5):((1,2),6,24)",
        ] {
            let l: DynLayout = s.parse().unwrap();
            assert_eq!(pair_extents(&l), None, "{s}");
        }
    }

    /// `flat_geometry` answers exactly for the flat pairs, and agrees with `geometry` there;
    /// nested, rank-1 and rank-3 layouts are left to `geometry`.
    #[test]
    fn flat_geometry_is_geometry_on_flat_pairs() {
        let flat = [
            "(3,4):(1,3)",
            "(3,4):(4,1)",
            "(1,1):(0,0)",
            "(5,2):(-1,7)",
            "(2,6):(9,-2)",
            "(4,4):(0,1)",
            "(1,7):(5,1)",
        ];
        for s in flat {
            let l: DynLayout = s.parse().unwrap();
            for base in [0usize, 3, 20] {
                let g = geometry("t", Operand::A, &l, base);
                match (flat_geometry(&l, base), g) {
                    (Some(f), Ok(g)) => {
                        assert_eq!(
                            (f.rows, f.cols, f.rs, f.cs, f.lowest),
                            (g.rows, g.cols, g.rs, g.cs, g.lowest),
                            "{s} base {base}"
                        );
                    }
                    // a negative lowest index: both refuse
                    (None, Err(_)) => {}
                    (f, g) => panic!("{s} base {base}: {:?} vs {:?}", f.is_some(), g.is_ok()),
                }
            }
        }
        for s in [
            "((3,2),4):((1,3),6)",
            "(3,(2,2)):(1,(3,6))",
            "12:1",
            "(2,3,4):(1,2,6)",
        ] {
            let l: DynLayout = s.parse().unwrap();
            assert!(flat_geometry(&l, 0).is_none(), "{s}");
        }
    }
}
