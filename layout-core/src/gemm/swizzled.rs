//! Swizzled operands read where they are: a layout `W ∘ L` whose function `W` commutes with
//! shifts by a period `P` ([`PostPeriod`](crate::PostPeriod): a swizzle `Sw<B,M,S>` XORs bits
//! below `M + |S| + B`, so `P = 2^(M+|S|+B)`) is affine on every set of rows whose inner
//! offsets agree modulo `P`.
//!
//! With inner offsets `r(i) + c(j)` (an affine `L`) and rows `i` whose `r(i) ≡ r₀ (mod P)`,
//! `W(r(i) + c(j)) = (r(i) − r₀) + W(r₀ + c(j))`: row offsets `r(i) − r₀`, column offsets
//! `W(r₀ + c(j))` — two axis maps ([`Mapped`]), read by the packer and the kernels like an NZ
//! fractal (runs of `2^M` along the swizzled axis). The same holds with rows and columns
//! exchanged. A row-major `Sw<3,3,3>` operand has `P / gcd(ld, P)` classes of rows: one for
//! `ld = 1024`, two for `ld = 256`, eight for `ld = 64`.
//!
//! The product is cut into sub-products ("cells") along m, k and n where an operand's rows or
//! columns fall in several classes: each cell reads every operand through its own maps, C is
//! written where it is, k cells after the first accumulate (β = 1). No dense copy is made. When
//! the cut would give more than [`MAX_CELLS`] cells (or an operand's function has no period),
//! [`cells`] declines and the front densifies as before.

use std::vec::Vec;

use super::check::Strided;
use super::kernel::Scalar;
use super::maps::{AxisMap, Mapped};
use super::view::{Out, View};
use crate::DynLayout;
use crate::tensor::{Storage, StorageMut, Tensor};
use crate::walk::{AnyLayout, Axes};

/// The most sub-products a product is cut into; above it the operands are densified.
/// (Measured, f32 AVX2, `Sw<3,3,3>` row-major A: see BENCHMARKS.md, issue 28 session 6.)
pub(crate) const MAX_CELLS: usize = 4;

/// A vector of `len` offsets `f(0), f(1), …`, or `None` when it cannot be allocated.
fn table(len: usize, f: impl Fn(usize) -> isize) -> Option<Vec<isize>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).ok()?;
    v.extend((0..len).map(f));
    Some(v)
}

/// An axis map over explicit offsets: the runs computed as [`AxisMap::new`] does.
fn axis(off: Vec<isize>) -> Option<AxisMap> {
    let len = off.len();
    let mut run = Vec::new();
    run.try_reserve_exact(len).ok()?;
    run.resize(len, 1u32);
    if len >= 2 {
        run[len - 2] = 2;
        let mut next = 2u32;
        for i in (0..len - 2).rev() {
            next = if off[i + 2] - off[i + 1] == off[i + 1] - off[i] {
                next.saturating_add(1)
            } else {
                2
            };
            run[i] = next;
        }
    }
    Some(AxisMap { off, run })
}

/// Which axis of an operand its classes cut.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Cut {
    /// Affine: no cut, offsets `r(i) + c(j)`.
    None,
    /// Rows classed by `r(i) mod P`.
    Rows(i64),
    /// Columns classed by `c(j) mod P`.
    Cols(i64),
}

/// One operand: the inner offsets of its two axes and how its classes cut it.
struct Form {
    rows: Vec<isize>,
    cols: Vec<isize>,
    cut: Cut,
}

/// The number of distinct `x mod p` over `off`, or `None` past `limit`.
fn classes(off: &[isize], p: i64, limit: usize) -> Option<usize> {
    let mut seen: [i64; MAX_CELLS] = [0; MAX_CELLS];
    let mut n = 0;
    for &x in off {
        let r = (x as i64).rem_euclid(p);
        if !seen[..n].contains(&r) {
            if n == limit.min(MAX_CELLS) {
                return None;
            }
            seen[n] = r;
            n += 1;
        }
    }
    Some(n)
}

/// The [`Form`] of a rank-2 layout, or `None` when its function has no period or its classes
/// are more than [`MAX_CELLS`] along both axes.
fn form<L: AnyLayout>(op: &'static str, l: &L) -> Option<Form> {
    let inner: DynLayout = l.inner_layout().ok()?;
    let axes = Axes::new(&inner);
    if axes.rank != 2 {
        return None;
    }
    let map = |k| {
        let (s, d) = axes.leaves(k);
        AxisMap::new(op, s, d).ok().map(|m| m.off)
    };
    let (rows, cols) = (map(0)?, map(1)?);
    let cut = if L::AFFINE {
        Cut::None
    } else {
        let p = l.post_period()?.period;
        match (
            classes(&rows, p, MAX_CELLS),
            classes(&cols, p, MAX_CELLS),
        ) {
            (Some(r), Some(c)) if c < r => Cut::Cols(p),
            (Some(_), _) => Cut::Rows(p),
            (None, Some(_)) => Cut::Cols(p),
            (None, None) => return None,
        }
    };
    Some(Form { rows, cols, cut })
}

/// Indices `0 .. len` of one product axis grouped by the classes of the (up to two) operand
/// axes along it, each group in increasing order; `None` past `MAX_CELLS` groups.
fn groups(len: usize, keys: [Option<(&[isize], i64)>; 2]) -> Option<Vec<Vec<usize>>> {
    let key = |i: usize| keys.map(|k| k.map_or(0, |(off, p)| (off[i] as i64).rem_euclid(p)));
    let mut out: Vec<([i64; 2], Vec<usize>)> = Vec::new();
    for i in 0..len {
        let k = key(i);
        let full = out.len() == MAX_CELLS;
        match out.iter_mut().find(|(g, _)| *g == k) {
            Some((_, v)) => v.push(i),
            None if full => return None,
            None => {
                let mut v = Vec::new();
                v.try_reserve(len).ok()?;
                v.push(i);
                out.push((k, v));
            }
        }
    }
    Some(out.into_iter().map(|(_, v)| v).collect())
}

/// The operand's axis maps on rows `ri` and columns `ci` (each inside one of its classes):
/// element (t, u) of the cell at `maps.0.off[t] + maps.1.off[u]` from the tensor's base.
fn cell_maps<L: AnyLayout>(
    l: &L,
    f: &Form,
    ri: &[usize],
    ci: &[usize],
) -> Option<(AxisMap, AxisMap)> {
    let post = |x: isize| l.post_offset(x as i64) as isize;
    let (r, c) = match f.cut {
        Cut::None => (
            table(ri.len(), |t| f.rows[ri[t]])?,
            table(ci.len(), |u| f.cols[ci[u]])?,
        ),
        Cut::Rows(_) => {
            // r(i) ≡ r₀ (mod P) for every row of the cell: W(r(i) + c) = r(i) − r₀ + W(r₀ + c)
            let r0 = f.rows[ri[0]];
            (
                table(ri.len(), |t| f.rows[ri[t]] - r0)?,
                table(ci.len(), |u| post(r0 + f.cols[ci[u]]))?,
            )
        }
        Cut::Cols(_) => {
            let c0 = f.cols[ci[0]];
            (
                table(ri.len(), |t| post(f.rows[ri[t]] + c0))?,
                table(ci.len(), |u| f.cols[ci[u]] - c0)?,
            )
        }
    };
    Some((axis(r)?, axis(c)?))
}

/// Whether every `base + rows.off[t] + cols.off[u]` lies in a buffer of `len` elements.
fn inside(base: usize, (r, c): &(AxisMap, AxisMap), len: usize) -> bool {
    let lo = |v: &[isize]| v.iter().copied().min().unwrap_or(0) as i128;
    let hi = |v: &[isize]| v.iter().copied().max().unwrap_or(0) as i128;
    let b = base as i128;
    b + lo(&r.off) + lo(&c.off) >= 0 && b + hi(&r.off) + hi(&c.off) < len as i128
}

/// Where an operand of a cell is: strided when both maps are one arithmetic run (then the
/// strided routes apply), else through its maps.
fn place(base: usize, (r, c): &(AxisMap, AxisMap)) -> (Strided, Option<Mapped<'_>>) {
    let one = |m: &AxisMap| m.off.len() <= 1 || m.run[0] as usize == m.off.len();
    if one(r) && one(c) {
        let step = |m: &AxisMap| if m.off.len() > 1 { m.step(0) } else { 0 };
        (
            Strided {
                origin: base as isize + r.off[0] + c.off[0],
                rs: step(r),
                cs: step(c),
            },
            None,
        )
    } else {
        (
            Strided {
                origin: base as isize,
                rs: 0,
                cs: 0,
            },
            Some(Mapped { rows: r, cols: c }),
        )
    }
}

/// `C ← α·A·B + β·C` for operands of which at least one is not affine, without dense copies:
/// the product cut into at most [`MAX_CELLS`] cells (see the module), `engine(mkn, β, a, b, c)`
/// run on each (β for the first cell along k, 1 after it). Returns `false`, having touched
/// nothing, when an operand's layout has no period or the cut would give more cells: the
/// caller then densifies. `mkn` are the checked extents (every one positive: BLAS's rule has
/// run).
#[allow(clippy::too_many_arguments)]
pub(crate) fn cells<TA, TB, TC, SA, LA, SB, LB, SC, LC>(
    op: &'static str,
    [m, k, n]: [usize; 3],
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: TC,
    c: &mut Tensor<SC, LC>,
    mut engine: impl FnMut([usize; 3], TC, View<'_, TA>, View<'_, TB>, Out<'_, TC>),
) -> bool
where
    TC: Scalar,
    SA: Storage<Elem = TA>,
    SB: Storage<Elem = TB>,
    SC: StorageMut<Elem = TC>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    let (Some(fa), Some(fb), Some(fc)) = (form(op, a.layout()), form(op, b.layout()), form(op, c.layout()))
    else {
        return false;
    };
    if [fa.rows.len(), fa.cols.len(), fb.cols.len()] != [m, k, n]
        || [fb.rows.len(), fc.rows.len(), fc.cols.len()] != [k, m, n]
    {
        return false;
    }
    fn rows_key(f: &Form) -> Option<(&[isize], i64)> {
        match f.cut {
            Cut::Rows(p) => Some((&f.rows[..], p)),
            _ => None,
        }
    }
    fn cols_key(f: &Form) -> Option<(&[isize], i64)> {
        match f.cut {
            Cut::Cols(p) => Some((&f.cols[..], p)),
            _ => None,
        }
    }
    let (Some(gm), Some(gk), Some(gn)) = (
        groups(m, [rows_key(&fa), rows_key(&fc)]),
        groups(k, [cols_key(&fa), rows_key(&fb)]),
        groups(n, [cols_key(&fb), cols_key(&fc)]),
    ) else {
        return false;
    };
    if gm.len() * gk.len() * gn.len() > MAX_CELLS {
        return false;
    }
    // every cell's maps, built and checked before anything is written
    let mut plan = Vec::new();
    for ri in &gm {
        for cj in &gn {
            for (t, pk) in gk.iter().enumerate() {
                let (Some(ma), Some(mb), Some(mc)) = (
                    cell_maps(a.layout(), &fa, ri, pk),
                    cell_maps(b.layout(), &fb, pk, cj),
                    cell_maps(c.layout(), &fc, ri, cj),
                ) else {
                    return false;
                };
                // the layouts' contract (`AnyLayout::post_period`) makes the maps the
                // operands' own offsets; a cell outside a buffer is declined all the same
                if !(inside(a.base_offset(), &ma, a.as_slice().len())
                    && inside(b.base_offset(), &mb, b.as_slice().len())
                    && inside(c.base_offset(), &mc, c.as_slice().len()))
                {
                    return false;
                }
                let beta = if t == 0 { beta } else { TC::ONE };
                plan.push(([ri.len(), pk.len(), cj.len()], beta, ma, mb, mc));
            }
        }
    }
    let (ab, bb, cb) = (a.base_offset(), b.base_offset(), c.base_offset());
    for (mkn, beta, ma, mb, mc) in &plan {
        let (sa, pa) = place(ab, ma);
        let (sb, pb) = place(bb, mb);
        let (sc, pc) = place(cb, mc);
        // every element of a cell is an element of its tensor (the maps are its offsets,
        // inside its buffer), so C's cell is injective as C is; the cells of C are disjoint
        // (m and n cells partition the rows and columns) and run one after another
        engine(
            *mkn,
            *beta,
            View {
                data: a.as_slice(),
                at: sa,
                map: pa,
            },
            View {
                data: b.as_slice(),
                at: sb,
                map: pb,
            },
            Out {
                c: c.as_mut_slice(),
                sc,
                cmap: pc,
            },
        );
    }
    true
}
