//! The tensor entry point: `C ← α·A·B + β·C` on rank-2 affine tensors of this crate.
//!
//! Each operand's layout is read through [`AnyLayout::to_dyn`]; each of its two top-level modes
//! must coalesce to one `(extent, stride)` (a nested mode such as `(2,3):(1,2)` counts as one
//! axis of 6 with stride 1). The strided engine then runs as for `sgemm` / `dgemm`; the
//! layout-typed specialisation is future work.

use super::error::{GemmError, Operand};
use super::kernel::Element;
use super::{MatMut, MatRef, Options, gemm_with};
use crate::tensor::{Storage, StorageMut, Tensor};
use crate::walk::{AnyLayout, Axes};

/// (rows, cols, row stride, col stride, index of the lowest element in the buffer).
type Geometry = (usize, usize, isize, isize, usize);

fn geometry<L: AnyLayout>(
    operand: Operand,
    layout: &L,
    base: usize,
) -> Result<Geometry, GemmError> {
    let not = |rank| GemmError::NotMatrix {
        op: "gemm",
        operand,
        rank,
    };
    let l = layout.to_dyn().map_err(|_| not(0))?;
    let axes = Axes::new(&l);
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
        (Ok(r), Ok(c), Ok(rs), Ok(cs), Ok(lo)) => Ok((r, c, rs, cs, lo)),
        _ => Err(not(2)),
    }
}

/// `C ← α·A·B + β·C` on rank-2 tensors (A m×k, B k×n, C m×n; axis 0 is the row), with
/// [`Options::default`] (the selected instruction set, one thread).
///
/// ```
/// use layout_core::{DynLayout, Tensor, gemm};
/// let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]; // 2×3 row-major
/// let b = [1.0f64, 0.0, 0.0, 1.0, 1.0, 1.0]; // 3×2 row-major
/// let mut c = [0.0f64; 4];
/// let ta = Tensor::new(&a[..], "(2,3):(3,1)".parse::<DynLayout>().unwrap()).unwrap();
/// let tb = Tensor::new(&b[..], "(3,2):(2,1)".parse::<DynLayout>().unwrap()).unwrap();
/// let mut tc = Tensor::new(&mut c[..], "(2,2):(1,2)".parse::<DynLayout>().unwrap()).unwrap();
/// gemm::gemm(1.0, &ta, &tb, 0.0, &mut tc).unwrap();
/// assert_eq!(c, [4.0, 10.0, 5.0, 11.0]); // column-major C
/// ```
///
/// # Errors
/// [`GemmError::NotMatrix`] when an operand is not rank 2 with each axis a single stride (or
/// not affine, e.g. swizzled); [`GemmError::ShapeMismatch`]; [`GemmError::OutputOverlaps`] for
/// an output layout the overlap rule rejects; the errors of [`gemm_with`].
pub fn gemm<T, SA, LA, SB, LB, SC, LC>(
    alpha: T,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: T,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    T: Element,
    SA: Storage<Elem = T>,
    SB: Storage<Elem = T>,
    SC: StorageMut<Elem = T>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    let (ar, ac, ars, acs, alo) = geometry(Operand::A, a.layout(), a.base_offset())?;
    let (br, bc, brs, bcs, blo) = geometry(Operand::B, b.layout(), b.base_offset())?;
    let (cr, cc, crs, ccs, clo) = geometry(Operand::C, c.layout(), c.base_offset())?;
    let too_short = |operand| GemmError::NotMatrix {
        op: "gemm",
        operand,
        rank: 2,
    };
    // tensors are validated: their lowest element is inside the buffer
    let ad = a.as_slice().get(alo..).ok_or(too_short(Operand::A))?;
    let bd = b.as_slice().get(blo..).ok_or(too_short(Operand::B))?;
    let cd = c
        .as_mut_slice()
        .get_mut(clo..)
        .ok_or(too_short(Operand::C))?;
    gemm_with(
        Options::default(),
        alpha,
        MatRef {
            data: ad,
            rows: ar,
            cols: ac,
            row_stride: ars,
            col_stride: acs,
        },
        MatRef {
            data: bd,
            rows: br,
            cols: bc,
            row_stride: brs,
            col_stride: bcs,
        },
        beta,
        MatMut {
            data: cd,
            rows: cr,
            cols: cc,
            row_stride: crs,
            col_stride: ccs,
        },
    )
}
