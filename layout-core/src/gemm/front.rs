//! The GEMM's one front: every public entry builds operand views and calls [`strided`],
//! [`tensors`] or [`prepare`]; each rule of the GEMM is written here once.
//!
//! | rule | function |
//! |---|---|
//! | the shapes agree | `check::agree` |
//! | the instruction set is available (always before any shortcut) | [`isa_checked`] |
//! | each operand inside its buffer, C injective | [`prepare`] (`check_operand`, `check_no_overlap`) |
//! | empty / k = 0 / α = 0 (BLAS: α = 0 never reads A or B, β = 0 never reads C) | [`rule`], applied by [`scale_c`] |
//! | the small-problem thread rule | [`threads`] |
//! | the route: static → matrix × vector → unpacked → blocked | [`route`] |
//! | the same checks and rules for a batch-reduce (`batch.rs`) | [`prepare_batch`] |
//!
//! The element pair ([`Pair`]) supplies the kernels of each route; it calls nothing above it.

use super::block::Out;
use super::check::{Strided, agree, check_no_overlap, check_operand};
use super::error::{GemmError, Operand, OperandShape};
use super::fixed;
use super::kernel::Scalar;
use super::maps::Mapped;
use super::options::{MatMut, MatRef, Options, PARALLEL_MIN_WORK, Packing};
use super::pair::Pair;
use super::tensor;
use super::view::{Product, View};
use crate::isa::Isa;
use crate::tensor::{Storage, StorageMut, Tensor};
use crate::walk::AnyLayout;
use std::vec::Vec;

/// The instruction set is available on this CPU and the pair has kernels for it. Runs before
/// any shortcut: an unavailable instruction set is refused whatever α, k and the extents are.
#[inline]
pub(crate) fn isa_checked(op: &'static str, isa: Isa, has_kernel: bool) -> Result<(), GemmError> {
    if isa.is_available() && has_kernel {
        Ok(())
    } else {
        Err(GemmError::IsaUnavailable { op, isa })
    }
}

/// What BLAS's rule leaves to do for a product of these extents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rule {
    /// m = 0 or n = 0: nothing is read or written.
    Done,
    /// α = 0 or k = 0: `C ← β·C` without reading A or B (β = 0 writes zeros, never reading C).
    ScaleC,
    /// The product.
    Compute,
}

/// BLAS's rule for empty products, k = 0 and α = 0, the same on every entry and route.
#[inline]
pub(crate) fn rule([m, k, n]: [usize; 3], alpha_is_zero: bool) -> Rule {
    if m == 0 || n == 0 {
        Rule::Done
    } else if k == 0 || alpha_is_zero {
        Rule::ScaleC
    } else {
        Rule::Compute
    }
}

/// `C ← β·C` for the [`Rule::ScaleC`] case: β = 0 writes zeros without reading C, β = 1
/// leaves C untouched. `at(i, j)` is the index of element (i, j) of C in `c`.
pub(crate) fn scale_c<C: Scalar>(
    [m, n]: [usize; 2],
    beta: C,
    c: &mut [C],
    at: impl Fn(usize, usize) -> usize,
) {
    if beta == C::ONE {
        return;
    }
    for j in 0..n {
        for i in 0..m {
            let x = &mut c[at(i, j)];
            *x = if beta == C::ZERO {
                C::ZERO
            } else {
                x.scale(beta)
            };
        }
    }
}

/// The index of element (i, j) of a checked C whose element (0, 0) is at `sc.origin`, strided
/// or through its axis maps.
pub(crate) fn c_index(sc: Strided, cmap: Option<Mapped<'_>>) -> impl Fn(usize, usize) -> usize {
    move |i, j| {
        let at = match cmap {
            None => sc.origin + i as isize * sc.rs + j as isize * sc.cs,
            Some(cm) => sc.origin + cm.rows.off[i] + cm.cols.off[j],
        };
        // a checked C: every element's index is inside its slice, so it is non-negative
        at as usize
    }
}

/// The threads a product runs on: `opts.threads` (0 and 1 mean the calling thread), except
/// that with [`Packing::Auto`] a product of at most [`PARALLEL_MIN_WORK`] multiply-adds runs
/// on the calling thread (starting threads costs more than it saves there).
#[inline]
pub(crate) fn threads(opts: &Options, [m, k, n]: [usize; 3]) -> usize {
    if opts.packing == Packing::Auto && m.saturating_mul(n).saturating_mul(k) <= PARALLEL_MIN_WORK {
        1
    } else {
        opts.threads.max(1)
    }
}

/// The right-hand operand of [`prepare`]: a strided matrix, or one that the caller checks
/// itself (pre-packed or quantized B) of these dimensions.
pub(crate) enum Rhs<'a, B> {
    /// A strided B, checked here.
    Strided(MatRef<'a, B>),
    /// A B of `[rows, cols]` that is valid by construction.
    Owned([usize; 2]),
}

/// A product after the checks and BLAS's rule: what is left to compute.
pub(crate) struct Prepared<'a, A, B, C> {
    pub mkn: [usize; 3],
    pub threads: usize,
    pub a: View<'a, A>,
    /// `None` for [`Rhs::Owned`].
    pub b: Option<View<'a, B>>,
    pub c: Out<'a, C>,
}

/// Every check of a strided call, in order (shapes, instruction set, operands inside their
/// slices, C injective), then BLAS's rule. Returns `None` when the rule finished the call.
/// Nothing is written on error.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) fn prepare<'a, A, B, C: Scalar>(
    op: &'static str,
    opts: &Options,
    has_kernel: bool,
    alpha: C,
    a: MatRef<'a, A>,
    b: Rhs<'a, B>,
    beta: C,
    c: MatMut<'a, C>,
) -> Result<Option<Prepared<'a, A, B, C>>, GemmError> {
    let b_dims = match &b {
        Rhs::Strided(b) => [b.rows, b.cols],
        Rhs::Owned(d) => *d,
    };
    let mkn = agree(op, [a.rows, a.cols], b_dims, [c.rows, c.cols])?;
    isa_checked(op, opts.isa, has_kernel)?;
    let [m, k, n] = mkn;
    let shape = |operand, rows, cols, row_stride, col_stride| OperandShape {
        operand,
        rows,
        cols,
        row_stride,
        col_stride,
    };
    let sa = check_operand(
        op,
        shape(Operand::A, m, k, a.row_stride, a.col_stride),
        a.data.len(),
    )?;
    let b = match b {
        Rhs::Strided(b) => {
            let sb = check_operand(
                op,
                shape(Operand::B, k, n, b.row_stride, b.col_stride),
                b.data.len(),
            )?;
            Some(View {
                data: b.data,
                at: sb,
                map: None,
            })
        }
        Rhs::Owned(_) => None,
    };
    let shc = shape(Operand::C, m, n, c.row_stride, c.col_stride);
    let sc = check_operand(op, shc, c.data.len())?;
    check_no_overlap(op, shc)?;
    match rule(mkn, alpha == C::ZERO) {
        Rule::Done => return Ok(None),
        Rule::ScaleC => {
            scale_c([m, n], beta, c.data, c_index(sc, None));
            return Ok(None);
        }
        Rule::Compute => {}
    }
    Ok(Some(Prepared {
        mkn,
        threads: threads(opts, mkn),
        a: View {
            data: a.data,
            at: sa,
            map: None,
        },
        b,
        c: Out {
            c: c.data,
            sc,
            cmap: None,
        },
    }))
}

/// Every check of a batch-reduce call `C ← α·Σᵢ Aᵢ·Bᵢ + β·C`, in [`prepare`]'s order (the
/// batches pair up, every item's shapes agree with C, instruction set, every operand inside its
/// slice, C injective), then BLAS's rule with k = 0 for an empty batch, and the thread rule on
/// `m·n·k·batch`. Returns `None` when the rule finished the call. Nothing is written on error.
#[allow(clippy::too_many_arguments)]
pub(crate) fn prepare_batch<'a, T: Scalar>(
    op: &'static str,
    opts: &Options,
    has_kernel: bool,
    alpha: T,
    a: &[MatRef<'a, T>],
    b: &[MatRef<'a, T>],
    beta: T,
    c: MatMut<'a, T>,
) -> Result<Option<super::batch::Batch<'a, T>>, GemmError> {
    if a.len() != b.len() {
        return Err(GemmError::BatchLength {
            op,
            a: a.len(),
            b: b.len(),
        });
    }
    let mut mkn = [c.rows, 0, c.cols];
    for (x, y) in a.iter().zip(b) {
        mkn = agree(op, [x.rows, x.cols], [y.rows, y.cols], [c.rows, c.cols])?;
    }
    isa_checked(op, opts.isa, has_kernel)?;
    let [m, k, n] = mkn;
    let shape = |operand, rows, cols, row_stride, col_stride| OperandShape {
        operand,
        rows,
        cols,
        row_stride,
        col_stride,
    };
    let mut items = Vec::new();
    items
        .try_reserve_exact(a.len())
        .map_err(|_| GemmError::Allocation {
            op,
            elements: a.len(),
        })?;
    for (x, y) in a.iter().zip(b) {
        let sa = check_operand(
            op,
            shape(Operand::A, m, k, x.row_stride, x.col_stride),
            x.data.len(),
        )?;
        let sb = check_operand(
            op,
            shape(Operand::B, k, n, y.row_stride, y.col_stride),
            y.data.len(),
        )?;
        let view = |data, at| View {
            data,
            at,
            map: None,
        };
        items.push((view(x.data, sa), view(y.data, sb)));
    }
    let shc = shape(Operand::C, m, n, c.row_stride, c.col_stride);
    let sc = check_operand(op, shc, c.data.len())?;
    check_no_overlap(op, shc)?;
    let kk = if items.is_empty() { 0 } else { k };
    match rule([m, kk, n], alpha == T::ZERO) {
        Rule::Done => return Ok(None),
        Rule::ScaleC => {
            scale_c([m, n], beta, c.data, c_index(sc, None));
            return Ok(None);
        }
        Rule::Compute => {}
    }
    Ok(Some(super::batch::Batch {
        mkn,
        threads: threads(opts, [m, k.saturating_mul(items.len()), n]),
        items,
        c: Out {
            c: c.data,
            sc,
            cmap: None,
        },
    }))
}

/// The largest extent of a tiny product (m, k and n each at most this): [`strided`] sends it
/// straight to the pair's tiny tiles ([`Pair::tiny`]) after the checks.
pub(crate) const TINY: usize = 64;

// a tiny product runs on the calling thread under the thread rule ([`threads`]): the tiny route
// needs no thread split
const _: () = assert!(TINY * TINY * TINY <= PARALLEL_MIN_WORK);

/// Whether every extent is in `1..=TINY`, in one comparison (an extent of 0 wraps to the
/// largest `usize`).
#[inline(always)]
fn is_tiny([m, k, n]: [usize; 3]) -> bool {
    (m.wrapping_sub(1) | k.wrapping_sub(1) | n.wrapping_sub(1)) < TINY
}

/// `C ← α·A·B + β·C` on strided matrices of any element pair: [`prepare`], then [`route`]
/// (a tiny product, [`TINY`], with [`Packing::Auto`] and two rows and columns or more — the
/// route's unpacked step — first offered to [`Pair::tiny`]: the same tiles without the route's
/// layers).
#[inline]
pub(crate) fn strided<A: Pair<B>, B>(
    op: &'static str,
    opts: Options,
    alpha: A::Out,
    a: MatRef<'_, A>,
    b: MatRef<'_, B>,
    beta: A::Out,
    c: MatMut<'_, A::Out>,
) -> Result<(), GemmError> {
    let Some(p) = prepare(
        op,
        &opts,
        A::has_kernel(opts.isa),
        alpha,
        a,
        Rhs::Strided(b),
        beta,
        c,
    )?
    else {
        return Ok(());
    };
    let Some(b) = p.b else {
        unreachable!("a strided B is returned by prepare")
    };
    let mut product = Product {
        mkn: p.mkn,
        isa: opts.isa,
        threads: p.threads,
        packing: opts.packing,
        alpha,
        beta,
        a: p.a,
        b,
        c: p.c,
    };
    // the route's first steps for a tiny product: matrix × vector takes m = 1 or n = 1 (left
    // to `route`), the unpacked tiles the others (one thread: the thread rule above)
    let [m, _, n] = p.mkn;
    if is_tiny(p.mkn) && opts.packing == Packing::Auto && m > 1 && n > 1 && A::tiny(&mut product) {
        return Ok(());
    }
    route(product);
    Ok(())
}

/// The route of a checked product: matrix × vector (the matrix streamed once) → the unpacked
/// kernels for small strided products → the blocked engine. [`Packing::Always`] goes straight
/// to the blocked engine; the element pair declines a route it has no kernel for.
#[inline]
pub(crate) fn route<A: Pair<B>, B>(p: Product<'_, A, B, A::Out>) {
    route_with(p, A::blocked)
}

/// [`route`] with `blocked` as its last step (the swizzled cells that share one packed B run
/// their blocked step through the pair's shared runner).
#[inline]
fn route_with<'p, A: Pair<B>, B>(
    mut p: Product<'p, A, B, A::Out>,
    blocked: impl FnOnce(Product<'p, A, B, A::Out>),
) {
    if p.packing != Packing::Always && p.strided() {
        let [m, _, n] = p.mkn;
        if (m == 1 || n == 1) && A::gemv(&mut p) {
            return;
        }
        if A::small(&mut p) {
            return;
        }
    }
    if p.packing != Packing::Always && A::kvec(&mut p) {
        return;
    }
    blocked(p);
}

/// Whether all three layout types are `DynLayout` (then [`tensors`] runs as it is).
const fn is_dyn<LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>() -> bool {
    LA::IS_DYN && LB::IS_DYN && LC::IS_DYN
}

/// The tensors `a`, `b`, `c` as strided matrices of geometries `g` (each buffer from its
/// lowest element) through [`strided`]; `None` where a lowest element lies past its buffer
/// (then the general form decides).
#[allow(clippy::too_many_arguments)]
fn on_geometry<A, B, SA, LA, SB, LB, SC, LC>(
    op: &'static str,
    opts: Options,
    alpha: A::Out,
    [ga, gb, gc]: [tensor::Geometry; 3],
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: A::Out,
    c: &mut Tensor<SC, LC>,
) -> Option<Result<(), GemmError>>
where
    A: Pair<B>,
    SA: Storage<Elem = A>,
    SB: Storage<Elem = B>,
    SC: StorageMut<Elem = A::Out>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    let (ad, bd) = (
        a.as_slice().get(ga.lowest..)?,
        b.as_slice().get(gb.lowest..)?,
    );
    let cd = c.as_mut_slice().get_mut(gc.lowest..)?;
    Some(strided(
        op,
        opts,
        alpha,
        ga.mat(ad),
        gb.mat(bd),
        beta,
        gc.mat_mut(cd),
    ))
}

/// `C ← α·A·B + β·C` on rank-2 tensors of any layouts and any element pair: the checks, the
/// rule, then static tiles (layouts that are constants of their types) → strided operands in
/// place ([`strided`]) → any affine layout through its axis maps (others densified by the copy
/// engine) on the blocked engine.
pub(crate) fn tensors<A, B, SA, LA, SB, LB, SC, LC>(
    op: &'static str,
    opts: Options,
    alpha: A::Out,
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: A::Out,
    c: &mut Tensor<SC, LC>,
) -> Result<(), GemmError>
where
    A: Pair<B>,
    B: Copy + Default,
    SA: Storage<Elem = A>,
    SB: Storage<Elem = B>,
    SC: StorageMut<Elem = A::Out>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    // static layouts of agreeing extents: the shape check is a constant of the types, the
    // extents are non-zero (so BLAS's rule leaves only α = 0), and the pair's constant-shape
    // kernels run inline at the call site
    if const { fixed::agree::<LA, LB, LC>() } && alpha != A::Out::ZERO {
        isa_checked(op, opts.isa, A::has_kernel(opts.isa))?;
        let (ab, bb, cb) = (a.base_offset(), b.base_offset(), c.base_offset());
        if let (Some(ad), Some(bd)) = (a.as_slice().get(ab..), b.as_slice().get(bb..))
            && let Some(cd) = c.as_mut_slice().get_mut(cb..)
            && A::fixed::<LA, LB, LC>(opts.isa, alpha, ad, bd, beta, cd)
        {
            return Ok(());
        }
    }
    // other affine layout types (static ones included) continue on run-time views: what
    // follows is compiled once per element pair, not once per layout types (the branch is a
    // constant of the types, so a static call site instantiates its small kernels and this call)
    if const { LA::AFFINE && LB::AFFINE && LC::AFFINE && !is_dyn::<LA, LB, LC>() } {
        // a static layout is a constant of its type; others are read off the value
        fn dynamic<L: AnyLayout>(
            op: &'static str,
            l: &L,
            operand: Operand,
        ) -> Result<crate::DynLayout, GemmError> {
            if let Some(s) = const { L::STATIC_LAYOUT } {
                return Ok(s);
            }
            l.to_dyn().map_err(|_| GemmError::NotMatrix {
                op,
                operand,
                rank: 2,
            })
        }
        let la = dynamic(op, a.layout(), Operand::A)?;
        let lb = dynamic(op, b.layout(), Operand::B)?;
        let lc = dynamic(op, c.layout(), Operand::C)?;
        let (ab, bb, cb) = (a.base_offset(), b.base_offset(), c.base_offset());
        // SAFETY: the same storage, offsets and base as the validated tensors `a`, `b`, `c`
        // (`to_dyn` is the same layout function), so every offset is inside its buffer and C's
        // layout is injective.
        let (av, bv, mut cv) = unsafe {
            (
                Tensor::new_unchecked(a.as_slice(), la, ab),
                Tensor::new_unchecked(b.as_slice(), lb, bb),
                Tensor::new_unchecked(c.as_mut_slice(), lc, cb),
            )
        };
        return tensors(op, opts, alpha, &av, &bv, beta, &mut cv);
    }
    // run-time flat rank-2 layouts, `(rows, cols):(rs, cs)`: strided operands read off the
    // layouts in place, straight to the strided front, whose checks and rules are the ones
    // below (on validated tensors the bounds and overlap checks cannot fail, so the errors and
    // the writes are those of the general form)
    if const { is_dyn::<LA, LB, LC>() }
        && let (Some(ga), Some(gb), Some(gc)) = (
            tensor::flat_geometry(a.layout(), a.base_offset()),
            tensor::flat_geometry(b.layout(), b.base_offset()),
            tensor::flat_geometry(c.layout(), c.base_offset()),
        )
        && let Some(done) = on_geometry(op, opts, alpha, [ga, gb, gc], a, b, beta, c)
    {
        return done;
    }
    let mkn = tensor::product_extents(op, a.layout(), b.layout(), c.layout())?;
    isa_checked(op, opts.isa, A::has_kernel(opts.isa))?;
    let [m, _, n] = mkn;
    match rule(mkn, alpha == A::Out::ZERO) {
        Rule::Done => return Ok(()),
        Rule::ScaleC => {
            let (lc, cb) = (*c.layout(), c.base_offset() as i64);
            // a validated tensor: every offset of its domain is inside its buffer
            let at = |i: usize, j: usize| (cb + lc.offset((i + j * m) as i64)) as usize;
            scale_c([m, n], beta, c.as_mut_slice(), at);
            return Ok(());
        }
        Rule::Compute => {}
    }
    // every operand one (extent, stride) per axis: the strided front, in place
    // (each tried only while the ones before are strided)
    if let Ok(ga) = tensor::geometry(op, Operand::A, a.layout(), a.base_offset())
        && let Ok(gb) = tensor::geometry(op, Operand::B, b.layout(), b.base_offset())
        && let Ok(gc) = tensor::geometry(op, Operand::C, c.layout(), c.base_offset())
        && let Some(done) = on_geometry(op, opts, alpha, [ga, gb, gc], a, b, beta, c)
    {
        return done;
    }
    // a layout that is not affine but affine on few classes of rows or columns (a swizzle):
    // each class read in place through its axis maps, one sub-product per class, each routed
    // here with its own thread rule (`swizzled::plan`; β for the first along k, then 1)
    // (the product of views, the same for a cell and for the whole)
    #[allow(clippy::too_many_arguments)]
    fn product<'p, A: Pair<B>, B>(
        opts: &Options,
        alpha: A::Out,
        mkn: [usize; 3],
        beta: A::Out,
        a: View<'p, A>,
        b: View<'p, B>,
        c: Out<'p, A::Out>,
    ) -> Product<'p, A, B, A::Out> {
        Product {
            mkn,
            isa: opts.isa,
            threads: threads(opts, mkn),
            packing: opts.packing,
            alpha,
            beta,
            a,
            b,
            c,
        }
    }
    if const { !(LA::AFFINE && LB::AFFINE && LC::AFFINE) }
        && let Some(plan) = super::swizzled::plan(op, mkn, a, b, beta, &*c)
    {
        let [_, k, n] = mkn;
        match plan.same_b(b) {
            // cells that differ in A's and C's rows alone read one B: the pair packs it once
            // for every cell on the blocked engine. Only for a B whose rows are contiguous
            // along n (so it is packed by runs, and the k-vector route, which needs k
            // contiguous, declines) and cells the unpacked routes do not take (not strided)
            Some(bv)
                if opts.packing != Packing::Never
                    && bv.at.cs == 1
                    && bv.at.rs != 1
                    && k > 1
                    && n > 1 =>
            {
                A::with_shared_b(opts.isa, [k, n], &mut |run| {
                    plan.run(a, b, c, |mkn, beta, av, bv, out| {
                        route_with(product(&opts, alpha, mkn, beta, av, bv, out), |p| {
                            // (the runner hands back a cell it does not take)
                            if let Some(p) = run(p) {
                                A::blocked(p);
                            }
                        })
                    })
                });
            }
            _ => plan.run(a, b, c, |mkn, beta, av, bv, out| {
                route(product(&opts, alpha, mkn, beta, av, bv, out))
            }),
        }
        return Ok(());
    }
    // any other layout: read in place through the axis maps, or densified (into the thread's
    // kept buffers, lent only where a layout type is not affine)
    let mut go = |da: &mut Vec<A>, db: &mut Vec<B>, dc: &mut Vec<A::Out>| {
        tensor::with_views(
            op,
            mkn,
            a,
            b,
            beta != A::Out::ZERO,
            c,
            (da, db, dc),
            |av, bv, out| route(product(&opts, alpha, mkn, beta, av, bv, out)),
        )
    };
    if const { LA::AFFINE && LB::AFFINE && LC::AFFINE } {
        go(&mut Vec::new(), &mut Vec::new(), &mut Vec::new())
    } else {
        A::with_dense(go)
    }
}
