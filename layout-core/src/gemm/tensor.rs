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

use super::block;
use super::check::Strided;
use super::error::{GemmError, Operand};
use super::fixed::{self, ColExtent, InnerExtent, RowExtent, StaticMatrix};
use super::kernel::Element;
use super::maps::{AxisMap, Mapped};
use super::{MatMut, MatRef, Options, Pair, gemm_float};
use crate::DynLayout;
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
pub fn gemm<TA, TB, SA, LA, SB, LB, SC, LC>(
    alpha: TA::Out,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: TA::Out,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    TA: Pair<TB>,
    SA: Storage<Elem = TA>,
    SB: Storage<Elem = TB>,
    SC: StorageMut<Elem = TA::Out>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    gemm_tensors_with(Options::default(), alpha, a, b, beta, c)
}

/// [`gemm`](fn@gemm) with the instruction set, threads and packing of `opts` (the same
/// [`Options`] the slice entry [`gemm_with`] takes).
///
/// ```
/// use layout_core::gemm::{self, Isa, Options, Packing};
/// use layout_core::named::{make_nz_layout, make_zn_layout};
/// use layout_core::Tensor;
/// // C(NZ) ← A(NZ) · B(ZN), 32 × 32 × 32 f32, on every instruction set this CPU has
/// let a = Tensor::new(vec![1.0f32; 1024], make_nz_layout::<f32>(32, 32).unwrap()).unwrap();
/// let b = Tensor::new(vec![2.0f32; 1024], make_zn_layout::<f32>(32, 32).unwrap()).unwrap();
/// for isa in Isa::available() {
///     let mut c = Tensor::new(vec![0.0f32; 1024], make_nz_layout::<f32>(32, 32).unwrap()).unwrap();
///     let opts = Options { isa, threads: 2, packing: Packing::Always };
///     gemm::gemm_tensors_with(opts, 1.0, &a, &b, 0.0, &mut c).unwrap();
///     assert!(c.as_slice().iter().all(|&x| x == 64.0));
/// }
/// ```
///
/// # Errors
/// As [`gemm`](fn@gemm); [`GemmError::IsaUnavailable`] when this CPU lacks `opts.isa`.
pub fn gemm_tensors_with<TA, TB, SA, LA, SB, LB, SC, LC>(
    opts: impl Into<Options>,
    alpha: TA::Out,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: TA::Out,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    TA: Pair<TB>,
    SA: Storage<Elem = TA>,
    SB: Storage<Elem = TB>,
    SC: StorageMut<Elem = TA::Out>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    TA::gemm_tensors(opts.into(), alpha, a, b, beta, c)
}

/// The float pairs' tensor product: the static paths, strided in place, any layout.
pub(crate) fn float_tensors<T, SA, LA, SB, LB, SC, LC>(
    opts: Options,
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
        return beta_only(T::OP, a, b, beta, c);
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
    if const { fixed::strided::<LA, LB, LC>() } && opts.isa == super::Isa::Avx512 {
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
        // some layout is not a strided matrix (hierarchical modes, a swizzle, NZ): packing
        // reads each through its layout
        return general(opts, alpha, a, b, beta, c);
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
    gemm_float(
        opts,
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

/// `C ← β·C` through C's layout after checking the shapes: the whole of a product with α = 0
/// (BLAS's rule; A and B are not read). β = 0 writes zeros without reading C.
fn beta_only<T, X, Y, SA, LA, SB, LB, SC, LC>(
    op: &'static str,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: T,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    T: Copy + PartialEq + core::ops::Mul<Output = T> + Default,
    SA: Storage<Elem = X>,
    SB: Storage<Elem = Y>,
    SC: StorageMut<Elem = T>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    let zero = T::default();
    beta_only_with(op, a, b, c, |x| if beta == zero { zero } else { x * beta })
}

/// [`beta_only`] with the scaling as a function: `C[i, j] ← scale(C[i, j])` through C's layout
/// (`scale` must not read its argument when β = 0).
pub(crate) fn beta_only_with<T, X, Y, SA, LA, SB, LB, SC, LC>(
    op: &'static str,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    c: &mut Tensor<SC, LC>,
    scale: impl Fn(T) -> T,
) -> Result<(), GemmError>
where
    T: Copy,
    SA: Storage<Elem = X>,
    SB: Storage<Elem = Y>,
    SC: StorageMut<Elem = T>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    let (m, _, n) = product_extents(op, a.layout(), b.layout(), c.layout())?;
    let (lc, cb) = (*c.layout(), c.base_offset());
    let cd = c.as_mut_slice();
    for j in 0..n {
        for i in 0..m {
            // validated tensor: every offset of its domain is inside its buffer
            let x = &mut cd[(cb as i64 + lc.offset((i + j * m) as i64)) as usize];
            *x = scale(*x);
        }
    }
    Ok(())
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

/// The operand's elements copied, through the copy engine, into a dense buffer of the
/// strided layout closest to its own memory order (for operands that are not affine: a
/// swizzle is undone at copy speed, once, instead of once per packed element). Returns the
/// buffer and its layout.
fn densify<T: Copy + Default, S: Storage<Elem = T>, L: AnyLayout>(
    op: &'static str,
    operand: Operand,
    t: &Tensor<S, L>,
    read: bool,
) -> Result<(Vec<T>, DynLayout), GemmError> {
    let (r, c) = extents(operand, t.layout())?;
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
    let mut v = Vec::new();
    v.try_reserve_exact(elements)
        .map_err(|_| GemmError::Allocation { op, elements })?;
    v.resize(elements, T::default());
    if read {
        let mut dt = Tensor::new(v, dl).map_err(|_| too_big)?;
        // same axis extents by construction: the copy cannot refuse
        dt.copy_from(t).map_err(|_| too_big)?;
        v = dt.into_storage();
    }
    Ok((v, dl))
}

/// One operand of a tensor product as an engine reads it: its elements, where element (0, 0)
/// is, and its strides or axis maps.
pub(crate) type Arg<'a, X> = (&'a [X], Strided, Option<Mapped<'a>>);

/// A checked tensor product handed to an element pair's engine: the extents `[m, k, n]`, A
/// and B, C, and the threads to use.
pub(crate) struct Engine<'a, TA, TB, TC> {
    pub mkn: [usize; 3],
    pub a: Arg<'a, TA>,
    pub b: Arg<'a, TB>,
    pub c: block::Out<'a, TC>,
    pub threads: usize,
}

/// An affine stand-in for one operand: `None` when its own layout is affine (read in place),
/// else a dense copy made by the copy engine and its strided layout.
type Dense<X> = Option<(Vec<X>, DynLayout)>;

/// The operand's affine form: its own layout when `affine`, else a dense copy (`read`: holding
/// its values) — and how the engine reaches it.
fn affine_form<X: Copy + Default, S: Storage<Elem = X>, L: AnyLayout>(
    op: &'static str,
    operand: Operand,
    t: &Tensor<S, L>,
    read: bool,
) -> Result<(Dense<X>, Access), GemmError> {
    let dense = if L::AFFINE {
        None
    } else {
        Some(densify(op, operand, t, read)?)
    };
    let l = match &dense {
        Some((_, dl)) => *dl,
        None => t.layout().to_dyn().map_err(|_| GemmError::NotMatrix {
            op,
            operand,
            rank: 2,
        })?,
    };
    let x = access(op, operand, &l)?;
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

/// Any rank-2 layouts, any element pair. Affine operands are read in place through their
/// strides or axis maps (packing copies each run-by-run rectangle as a strided block; C is
/// written from the microkernel's registers where its runs cover a tile, else merged from a
/// stack tile through the maps). Operands that are not affine (swizzled) are first copied by
/// the copy engine into a dense strided buffer (C copied back at the end). `engine` runs the
/// checked product; `c_read` says whether it reads C (β ≠ 0).
pub(crate) fn general_with<TA, TB, TC, SA, LA, SB, LB, SC, LC>(
    op: &'static str,
    opts: Options,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    c_read: bool,
    c: &mut Tensor<SC, LC>,
    engine: impl FnOnce(Engine<'_, TA, TB, TC>) -> Result<(), GemmError>,
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
    let (m, k, n) = product_extents(op, a.layout(), b.layout(), c.layout())?;
    if !opts.isa.is_available() {
        return Err(GemmError::IsaUnavailable { op, isa: opts.isa });
    }
    let (dense_a, xa) = affine_form(op, Operand::A, a, true)?;
    let (dense_b, xb) = affine_form(op, Operand::B, b, true)?;
    let (mut dense_c, xc) = affine_form(op, Operand::C, c, c_read)?;
    let (ad, abase) = match &dense_a {
        Some((v, _)) => (&v[..], 0),
        None => (a.as_slice(), a.base_offset()),
    };
    let (bd, bbase) = match &dense_b {
        Some((v, _)) => (&v[..], 0),
        None => (b.as_slice(), b.base_offset()),
    };
    let (sa, ma) = parts(&xa, abase);
    let (sb, mb) = parts(&xb, bbase);
    {
        let (cd, cbase) = match &mut dense_c {
            Some((v, _)) => (&mut v[..], 0),
            None => {
                let base = c.base_offset();
                (c.as_mut_slice(), base)
            }
        };
        let (sc, cmap) = parts(&xc, cbase);
        let threads = if opts.packing == super::Packing::Auto
            && m.saturating_mul(n).saturating_mul(k) <= super::PARALLEL_MIN_WORK
        {
            1
        } else {
            opts.threads
        };
        // every element of each operand is inside its buffer (tensors are validated at
        // construction; dense copies hold exactly their layout's offsets), and C's layout is
        // injective (a writable tensor's is, and so is a dense copy's)
        engine(Engine {
            mkn: [m, k, n],
            a: (ad, sa, ma),
            b: (bd, sb, mb),
            c: block::Out { c: cd, sc, cmap },
            threads,
        })?;
    }
    if let Some((v, dl)) = dense_c {
        let src = Tensor::new(&v[..], dl).map_err(|_| GemmError::Allocation {
            op,
            elements: v.len(),
        })?;
        // same axis extents by construction: the copy cannot refuse
        c.copy_from(&src).map_err(|_| GemmError::Allocation {
            op,
            elements: m.saturating_mul(n),
        })?;
    }
    Ok(())
}

/// The float engine of [`general_with`]: a C whose contiguous runs (along the dimension the
/// kernel will vectorise) are shorter than the kernel's MR — an NZ fractal row of C0 elements
/// — takes the kernel whose MR is that run, so every tile is stored from its registers.
fn general<T, SA, LA, SB, LB, SC, LC>(
    opts: Options,
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
    let op = T::OP;
    let Some(mut ki) = T::kernel(opts.isa) else {
        return Err(GemmError::IsaUnavailable { op, isa: opts.isa });
    };
    general_with(op, opts, a, b, beta != T::ZERO, c, |e| {
        let [m, k, n] = e.mkn;
        if let Some(cm) = e.c.cmap {
            let (rs, cs) = (cm.rows.step(0), cm.cols.step(0));
            let (run, step) = if block::transposes(m, n, rs, cs) {
                (cm.cols.run[0] as usize, cs)
            } else {
                (cm.rows.run[0] as usize, rs)
            };
            if step == 1
                && run < ki.mr
                && let Some(narrow) = T::kernel_for_run(opts.isa, run)
            {
                ki = narrow;
            }
        }
        let ((ad, sa, ma), (bd, sb, mb)) = (e.a, e.b);
        block::run(
            &ki,
            block::Problem {
                m,
                k,
                n,
                alpha,
                a: ad,
                sa,
                b: bd,
                sb,
                beta,
                c: e.c.c,
                sc: e.c.sc,
                bpacked: None,
                maps: [ma, mb, e.c.cmap],
            },
            e.threads,
        );
        Ok(())
    })
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
#[inline]
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
    //
    // Tiny products first, inline at the caller: no options, no dispatch (α = 0 goes the
    // general way, which reads neither A nor B).
    let avx512 =
        cfg!(target_arch = "x86_64") && super::Isa::selected_for_gemm() == super::Isa::Avx512;
    let work = const { fixed::work::<LA, LB>() };
    let strided = const { fixed::strided::<LA, LB, LC>() };
    // (`strided` layouts are static, of matching shapes: the tables apply at any size)
    if const { fixed::applies::<LA, LB, LC>() || fixed::strided::<LA, LB, LC>() }
        && (work <= fixed::TINY_WORK
            || (!strided && work <= fixed::STATIC_MAX_WORK)
            || (strided && !avx512 && work <= fixed::SMALL_STRIDED_WORK))
        && alpha != T::ZERO
    {
        let (ab, bb, cb) = (a.base_offset(), b.base_offset(), c.base_offset());
        if let (Some(ad), Some(bd)) = (a.as_slice().get(ab..), b.as_slice().get(bb..))
            && let Some(cd) = c.as_mut_slice().get_mut(cb..)
            && fixed::kernel::<T, LA, LB, LC>(alpha, ad, bd, beta, cd)
        {
            return;
        }
    }
    if let Err(e) = float_tensors(Options::default(), alpha, a, b, beta, c) {
        unreachable!("gemm_static: operands with matching static extents were refused: {e}");
    }
}

/// `C ← α·A·B + β·C` with 16-bit A and B ([`half::f16`] / [`half::bf16`]) and an `f32` C, on
/// rank-2 tensors of any layouts — e.g. Ascend's C(NZ) ← A(ZZ) · B(ZN) with bf16 inputs. The
/// same as [`gemm`](fn@gemm) on these element pairs: affine operands are read in place through
/// their layouts and widened inside packing (or paired for the `vdpbf16ps` kernel on AVX-512
/// BF16); swizzled operands are densified by the copy engine first.
///
/// ```
/// use half::f16;
/// use layout_core::named::ascend::{make_nz_layout, make_zn_layout};
/// use layout_core::{Tensor, gemm};
/// let (m, k, n) = (32i64, 32i64, 32i64);
/// let a = Tensor::new(vec![f16::from_f32(1.0); 1024], make_nz_layout::<f16>(m, k).unwrap()).unwrap();
/// let b = Tensor::new(vec![f16::from_f32(2.0); 1024], make_zn_layout::<f16>(k, n).unwrap()).unwrap();
/// let mut c = Tensor::new(vec![0f32; 1024], make_nz_layout::<f32>(m, n).unwrap()).unwrap();
/// gemm::gemm_half_tensors(1.0, &a, &b, 0.0, &mut c).unwrap();
/// assert!(c.as_slice().iter().all(|&x| x == 64.0));
/// ```
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
    H: super::Half + Default,
    SA: Storage<Elem = H>,
    SB: Storage<Elem = H>,
    SC: StorageMut<Elem = f32>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    gemm_half_tensors_with(Options::default(), alpha, a, b, beta, c)
}

/// [`gemm_half_tensors`] with the instruction set, threads and packing of `opts`.
///
/// # Errors
/// As [`gemm_half_tensors`].
pub fn gemm_half_tensors_with<H, SA, LA, SB, LB, SC, LC>(
    opts: impl Into<Options>,
    alpha: f32,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: f32,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    H: super::Half + Default,
    SA: Storage<Elem = H>,
    SB: Storage<Elem = H>,
    SC: StorageMut<Elem = f32>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    let op = "gemm_half";
    let opts = opts.into();
    // BLAS's rule (module docs): α = 0 is C ← β·C, A and B unread
    if alpha == 0.0 {
        return beta_only(op, a, b, beta, c);
    }
    // operands of any affine layout read in place (others densified), widened inside packing
    // (or, bf16 on AVX-512 BF16, paired for `vdpbf16ps`)
    general_with(op, opts, a, b, beta != 0.0, c, |e| {
        super::half_inputs::run_widened(opts.isa, alpha, e, beta)
    })
}
