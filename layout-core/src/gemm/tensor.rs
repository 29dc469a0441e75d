//! The tensor entry point: `C ← α·A·B + β·C` on rank-2 tensors of this crate, with the kernel
//! chosen from the operand layout *types* where they say enough:
//!
//! 1. all three layouts static (`AnyLayout::STATIC_LAYOUT` is a constant of the type) and the
//!    product tiny (≤ 4³): the unrolled kernel reading constant offset tables (`fixed.rs`);
//! 2. all static, each mode one stride, A's and C's rows unit stride: the unpacked AVX-512 tiles
//!    instantiated for those types, every extent and stride a constant (`direct.rs`);
//! 3. other static layouts up to 8³ (hierarchical, swizzled, NZ): the table kernel;
//! 4. run-time layouts whose two top-level modes each coalesce to one `(extent, stride)` (a
//!    nested mode such as `(2,3):(1,2)` counts as one axis of 6 with stride 1): the strided
//!    engine of `sgemm` / `dgemm`;
//! 5. any other rank-2 layout (swizzled, NZ/ZN, padded, blocked): A and B gathered through
//!    their offset functions, C gathered and scattered back — correct for every layout, fast for
//!    the ones above.
//!
//! The choice among 1–3 is made at compile time (`if const { … }` on the layout types).
//! [`gemm_static`] additionally ties the static extents together in its signature, so a
//! mismatch is a compile error.

use std::vec::Vec;

use super::error::{GemmError, Operand};
use super::fixed::{self, ColExtent, InnerExtent, RowExtent, StaticMatrix};
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
/// [`GemmError::NotMatrix`] when an operand is not of rank 2; [`GemmError::ShapeMismatch`];
/// [`GemmError::Allocation`] when the buffer for a non-strided operand cannot be allocated; the
/// errors of [`gemm_with`].
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
    // BLAS's rule (module docs): α = 0 is C ← β·C, A and B unread, on every path below
    if alpha == T::ZERO {
        return beta_only("gemm", a, b, beta, c);
    }
    // all three layouts static: constant shapes, strides and offsets (decided at compile time:
    // `fixed::strided` and `fixed::applies` are const fns of the layout types). Strided ones
    // run the unpacked AVX-512 tiles with those constants, others small enough the unrolled
    // table kernel.
    if const { fixed::applies::<LA, LB, LC>() && fixed::work::<LA, LB>() <= fixed::TINY_WORK } {
        let (ab, bb, cb) = (a.base_offset(), b.base_offset(), c.base_offset());
        if let (Some(ad), Some(bd)) = (a.as_slice().get(ab..), b.as_slice().get(bb..))
            && let Some(cd) = c.as_mut_slice().get_mut(cb..)
            && fixed::kernel::<T, LA, LB, LC>(alpha, ad, bd, beta, cd)
        {
            return Ok(());
        }
    }
    #[cfg(target_arch = "x86_64")]
    if const { fixed::strided::<LA, LB, LC>() } {
        let (ab, bb, cb) = (a.base_offset(), b.base_offset(), c.base_offset());
        if let (Some(ad), Some(bd)) = (a.as_slice().get(ab..), b.as_slice().get(bb..))
            && let Some(cd) = c.as_mut_slice().get_mut(cb..)
            && super::direct::try_static::<T, LA, LB, LC>(alpha, ad, bd, beta, cd)
        {
            return Ok(());
        }
    }
    if const { fixed::applies::<LA, LB, LC>() } {
        let (ab, bb, cb) = (a.base_offset(), b.base_offset(), c.base_offset());
        if let (Some(ad), Some(bd)) = (a.as_slice().get(ab..), b.as_slice().get(bb..))
            && let Some(cd) = c.as_mut_slice().get_mut(cb..)
            && fixed::kernel::<T, LA, LB, LC>(alpha, ad, bd, beta, cd)
        {
            return Ok(());
        }
    }
    let ga = geometry(Operand::A, a.layout(), a.base_offset());
    let gb = geometry(Operand::B, b.layout(), b.base_offset());
    let gc = geometry(Operand::C, c.layout(), c.base_offset());
    let (Ok(ga), Ok(gb), Ok(gc)) = (ga, gb, gc) else {
        // some layout is not a strided matrix (hierarchical modes, a swizzle, NZ): the generic
        // path through the layouts' offset functions
        return generic(alpha, a, b, beta, c);
    };
    let ((ar, ac, ars, acs, alo), (br, bc, brs, bcs, blo), (cr, cc, crs, ccs, clo)) = (ga, gb, gc);
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

/// Rows and columns of a rank-2 domain.
fn extents<L: AnyLayout>(operand: Operand, l: &L) -> Result<(usize, usize), GemmError> {
    let d = l.domain();
    let not = |rank| GemmError::NotMatrix {
        op: "gemm",
        operand,
        rank,
    };
    if d.is_leaf() || d.rank() != 2 {
        return Err(not(if d.is_leaf() { 1 } else { d.rank() }));
    }
    let size = |i| {
        d.mode(i)
            .ok()
            .and_then(|m| m.size().ok())
            .and_then(|s| usize::try_from(s).ok())
            .ok_or(not(2))
    };
    Ok((size(0)?, size(1)?))
}

/// The extents `(m, k, n)` of a product, checked: A m × k, B k × n, C m × n.
fn product_extents<LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>(
    op: &'static str,
    la: &LA,
    lb: &LB,
    lc: &LC,
) -> Result<(usize, usize, usize), GemmError> {
    let (m, k) = extents(Operand::A, la)?;
    let (kb, n) = extents(Operand::B, lb)?;
    let (mc, nc) = extents(Operand::C, lc)?;
    if k != kb || m != mc || n != nc {
        return Err(GemmError::ShapeMismatch {
            op,
            a: [m, k],
            b: [kb, n],
            c: [mc, nc],
        });
    }
    Ok((m, k, n))
}

/// The tensor entries' α = 0 (BLAS's rule, see the module docs): after the shape checks,
/// `C ← β·C` through C's layout (β = 0 writes zeros without reading C); A and B are not read.
fn beta_only<T, X, SA, LA, SB, LB, SC, LC>(
    op: &'static str,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: T,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    T: Element,
    SA: Storage<Elem = X>,
    SB: Storage<Elem = X>,
    SC: StorageMut<Elem = T>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    let (m, _, n) = product_extents(op, a.layout(), b.layout(), c.layout())?;
    if beta == T::ONE {
        return Ok(());
    }
    let (lc, cb) = (*c.layout(), c.base_offset());
    let cd = c.as_mut_slice();
    for j in 0..n {
        for i in 0..m {
            let x = &mut cd[at(&lc, cb, m, i, j)];
            *x = if beta == T::ZERO { T::ZERO } else { *x * beta };
        }
    }
    Ok(())
}

/// Element (i, j) of a rank-2 tensor is at `base + offset(i + j·rows)` (colexicographic index).
fn at<L: AnyLayout>(l: &L, base: usize, rows: usize, i: usize, j: usize) -> usize {
    // validated tensor: every offset of its domain is inside its buffer
    (base as i64 + l.offset((i + j * rows) as i64)) as usize
}

/// The operands of a product gathered through their layouts into column-major buffers: A (m × k),
/// B (k × n) and C (m × n: its values when `read_c`, else `zero`).
struct Gathered<X, Y> {
    m: usize,
    k: usize,
    n: usize,
    a: Vec<X>,
    b: Vec<X>,
    c: Vec<Y>,
}

/// A column-major buffer of `rows × cols` elements read through `f(i, j)`.
fn gather<X>(
    op: &'static str,
    rows: usize,
    cols: usize,
    f: impl Fn(usize, usize) -> X,
) -> Result<Vec<X>, GemmError> {
    let len = rows.checked_mul(cols).ok_or(GemmError::Allocation {
        op,
        elements: usize::MAX,
    })?;
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| GemmError::Allocation { op, elements: len })?;
    for j in 0..cols {
        for i in 0..rows {
            v.push(f(i, j));
        }
    }
    Ok(v)
}

/// Gathers A, B and C (see [`Gathered`]), checking that the shapes agree.
fn gather_operands<X, Y, SA, LA, SB, LB, SC, LC>(
    op: &'static str,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    c: &Tensor<SC, LC>,
    read_c: bool,
    zero: Y,
) -> Result<Gathered<X, Y>, GemmError>
where
    X: Copy,
    Y: Copy,
    SA: Storage<Elem = X>,
    SB: Storage<Elem = X>,
    SC: Storage<Elem = Y>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    let (m, k, n) = product_extents(op, a.layout(), b.layout(), c.layout())?;
    let (ad, bd, cd) = (a.as_slice(), b.as_slice(), c.as_slice());
    let (la, lb, lc) = (a.layout(), b.layout(), c.layout());
    let (ab, bb, cb) = (a.base_offset(), b.base_offset(), c.base_offset());
    Ok(Gathered {
        m,
        k,
        n,
        a: gather(op, m, k, |i, j| ad[at(la, ab, m, i, j)])?,
        b: gather(op, k, n, |i, j| bd[at(lb, bb, k, i, j)])?,
        c: if read_c {
            gather(op, m, n, |i, j| cd[at(lc, cb, m, i, j)])?
        } else {
            gather(op, m, n, |_, _| zero)?
        },
    })
}

/// Writes the column-major `m × n` buffer `tc` back through C's layout.
fn scatter<Y: Copy, SC: StorageMut<Elem = Y>, LC: AnyLayout>(
    c: &mut Tensor<SC, LC>,
    m: usize,
    n: usize,
    tc: &[Y],
) {
    let (lc, cb) = (*c.layout(), c.base_offset());
    let cd = c.as_mut_slice();
    for j in 0..n {
        for i in 0..m {
            cd[at(&lc, cb, m, i, j)] = tc[i + j * m];
        }
    }
}

/// A column-major `rows × cols` view of `data`.
fn col_major<X>(data: &[X], rows: usize, cols: usize) -> MatRef<'_, X> {
    MatRef {
        data,
        rows,
        cols,
        row_stride: 1,
        col_stride: rows.max(1) as isize,
    }
}

/// Any rank-2 layouts: A and B gathered into column-major buffers through their offset
/// functions, C gathered (when β ≠ 0), computed by the strided engine, and scattered back.
fn generic<T, SA, LA, SB, LB, SC, LC>(
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
    let Gathered {
        m,
        k,
        n,
        a: ta,
        b: tb,
        c: mut tc,
    } = gather_operands("gemm", a, b, c, beta != T::ZERO, T::ZERO)?;
    gemm_with(
        Options::default(),
        alpha,
        col_major(&ta, m, k),
        col_major(&tb, k, n),
        beta,
        MatMut {
            data: &mut tc,
            rows: m,
            cols: n,
            row_stride: 1,
            col_stride: m.max(1) as isize,
        },
    )?;
    scatter(c, m, n, &tc);
    Ok(())
}

/// `C ← α·A·B + β·C` on tensors whose layouts have static extents, checked at compile time: a
/// mismatch between A's columns and B's rows (or C's extents) is a type error naming both
/// extents, under `cargo check`. The layouts must be flat static rank-2 shapes
/// (`Layout![(8,4):(1,8)]`, any strides); small ones run the unrolled kernel of
/// [`gemm`](fn@gemm), larger ones the run-time engine.
///
/// ```
/// use layout_core::{Layout, Int, Tensor, gemm};
/// type A = Layout<(Int<2>, Int<3>), (Int<3>, Int<1>)>; // 2×3 row-major
/// type B = Layout<(Int<3>, Int<2>), (Int<2>, Int<1>)>; // 3×2 row-major
/// type C = Layout<(Int<2>, Int<2>), (Int<1>, Int<2>)>; // 2×2 column-major
/// let (a, b, mut c) = ([1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], [1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0], [0.0f32; 4]);
/// let ta = Tensor::new(&a[..], A::default()).unwrap();
/// let tb = Tensor::new(&b[..], B::default()).unwrap();
/// let mut tc = Tensor::new(&mut c[..], C::default()).unwrap();
/// gemm::gemm_static(1.0, &ta, &tb, 0.0, &mut tc);
/// assert_eq!(c, [4.0, 10.0, 5.0, 11.0]);
/// ```
///
/// ```compile_fail
/// use layout_core::{Layout, Int, Tensor, gemm};
/// type A = Layout<(Int<2>, Int<3>), (Int<3>, Int<1>)>; // 2×3
/// type B = Layout<(Int<4>, Int<2>), (Int<2>, Int<1>)>; // 4×2: k does not match
/// type C = Layout<(Int<2>, Int<2>), (Int<1>, Int<2>)>;
/// let (a, b, mut c) = ([0f32; 6], [0f32; 8], [0f32; 4]);
/// let ta = Tensor::new(&a[..], A::default()).unwrap();
/// let tb = Tensor::new(&b[..], B::default()).unwrap();
/// let mut tc = Tensor::new(&mut c[..], C::default()).unwrap();
/// gemm::gemm_static(1.0, &ta, &tb, 0.0, &mut tc); // error: A has Int<3> columns but B has Int<4> rows
/// ```
pub fn gemm_static<T, SA, LA, SB, LB, SC, LC>(
    alpha: T,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: T,
    c: &mut Tensor<SC, LC>,
) where
    T: Element,
    SA: Storage<Elem = T>,
    SB: Storage<Elem = T>,
    SC: StorageMut<Elem = T>,
    LA: StaticMatrix,
    LB: StaticMatrix,
    LC: StaticMatrix,
    LA::Cols: InnerExtent<LB::Rows>,
    LA::Rows: RowExtent<LC::Rows>,
    LB::Cols: ColExtent<LC::Cols>,
{
    // The engine cannot refuse these operands: the extents agree (the bounds above), the
    // layouts are flat rank-2 static shapes (so the strided engine takes them, nothing is
    // gathered or allocated), tensors are validated (every operand inside its buffer), and a
    // writable tensor's layout is injective, which is exactly what the engine's output check
    // asks (`check_no_overlap`; `tests/gemm_layouts.rs` checks every small strided C).
    if let Err(e) = gemm(alpha, a, b, beta, c) {
        unreachable!("gemm_static: operands with matching static extents were refused: {e}");
    }
}

/// `C ← α·A·B + β·C` with 16-bit A and B ([`half::f16`] / [`half::bf16`]) and an `f32` C, on
/// rank-2 tensors of any layouts — e.g. Ascend's C(NZ) ← A(ZZ) · B(ZN) with bf16 inputs. A and
/// B are gathered into column-major buffers through their layouts, C gathered and scattered
/// back; the product runs [`gemm_half`](super::gemm_half) (the `vdpbf16ps` kernel for bf16 on
/// AVX-512 BF16).
///
/// # Errors
/// [`GemmError::NotMatrix`], [`GemmError::ShapeMismatch`], [`GemmError::Allocation`]; the
/// errors of [`gemm_half`](super::gemm_half).
pub fn gemm_half_tensors<H, SA, LA, SB, LB, SC, LC>(
    alpha: f32,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: f32,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    H: super::Half,
    SA: Storage<Elem = H>,
    SB: Storage<Elem = H>,
    SC: StorageMut<Elem = f32>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    // BLAS's rule (module docs): α = 0 is C ← β·C, A and B neither gathered nor read
    if alpha == 0.0 {
        return beta_only("gemm_half", a, b, beta, c);
    }
    let Gathered {
        m,
        k,
        n,
        a: ta,
        b: tb,
        c: mut tc,
    } = gather_operands("gemm_half", a, b, c, beta != 0.0, 0.0f32)?;
    super::gemm_half(
        Options::default(),
        alpha,
        col_major(&ta, m, k),
        col_major(&tb, k, n),
        beta,
        MatMut {
            data: &mut tc,
            rows: m,
            cols: n,
            row_stride: 1,
            col_stride: m.max(1) as isize,
        },
    )?;
    scatter(c, m, n, &tc);
    Ok(())
}
