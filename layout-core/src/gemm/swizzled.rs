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
//! [`plan`] declines and the front densifies as before; it declines too where C itself would be
//! cut (its cells store through maps of short runs; the dense C is faster). Cells cut along m
//! alone read one B ([`Plan::same_b`]): the front then lets the element pair pack it once for
//! all of them (`Pair::with_shared_b`).

use std::vec::Vec;

use super::check::Strided;
use super::kernel::Scalar;
use super::maps::{AxisMap, Mapped};
use super::view::{Out, View};
use crate::DynLayout;
use crate::tensor::{Storage, StorageMut, Tensor};
use crate::walk::{AnyLayout, Axes};

/// The most sub-products a product is cut into; above it the operands are densified. Each cut
/// along m (n) packs the vectorised operand once more (k·n or k·m elements), about what the
/// dense copy it saves costs, so two cells break even (CPU time, f32 AVX2, `Sw<3,3,3>` A or C
/// at 256³: 0.98–1.02× the dense route) and more would lose; one cell (a leading dimension
/// that is a multiple of the period) wins (1024³: −9 %). See BENCHMARKS.md, issue 28
/// session 6.
pub(crate) const MAX_CELLS: usize = 2;

/// A vector of `len` offsets `f(0), f(1), …`, or `None` when it cannot be allocated.
fn table(len: usize, f: impl Fn(usize) -> isize) -> Option<Vec<isize>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).ok()?;
    v.extend((0..len).map(f));
    Some(v)
}

/// The inner offsets of one axis of an operand: `i·stride`, or a table (a hierarchical mode).
enum Ax {
    Strided(isize),
    Table(Vec<isize>),
}

impl Ax {
    #[inline]
    fn at(&self, i: usize) -> isize {
        match self {
            Ax::Strided(s) => i as isize * s,
            Ax::Table(t) => t[i],
        }
    }
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
    rows: Ax,
    cols: Ax,
    cut: Cut,
}

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The number of distinct `x mod p` over an axis of `len` offsets, or `None` past
/// [`MAX_CELLS`]. A strided axis without building its table: `i·s mod p` repeats every
/// `p / gcd(s, p)` indices.
fn classes(ax: &Ax, len: usize, p: i64) -> Option<usize> {
    match ax {
        Ax::Strided(s) => {
            let q = p as u64 / gcd((*s as i64).rem_euclid(p) as u64, p as u64);
            let n = len.min(usize::try_from(q).unwrap_or(usize::MAX));
            (n <= MAX_CELLS).then_some(n)
        }
        Ax::Table(off) => {
            let mut seen: [i64; MAX_CELLS] = [0; MAX_CELLS];
            let mut n = 0;
            for &x in off {
                let r = (x as i64).rem_euclid(p);
                if !seen[..n].contains(&r) {
                    if n == MAX_CELLS {
                        return None;
                    }
                    seen[n] = r;
                    n += 1;
                }
            }
            Some(n)
        }
    }
}

/// One axis of a rank-2 layout: its extent and inner offsets (a table only for a
/// hierarchical mode).
fn ax(op: &'static str, axes: &Axes<'_>, k: usize) -> Option<(usize, Ax)> {
    if let Some((e, s)) = axes.strided(k) {
        return Some((
            usize::try_from(e).ok()?,
            Ax::Strided(isize::try_from(s).ok()?),
        ));
    }
    let (s, d) = axes.leaves(k);
    let off = AxisMap::new(op, s, d).ok()?.off;
    Some((off.len(), Ax::Table(off)))
}

/// The [`Form`] of a rank-2 layout of extents `dims`, or `None` when its function has no
/// period or its classes are more than [`MAX_CELLS`] along both axes.
fn form<L: AnyLayout>(op: &'static str, l: &L, dims: [usize; 2]) -> Option<Form> {
    let inner: DynLayout = l.inner_layout().ok()?;
    let axes = Axes::new(&inner);
    if axes.rank != 2 {
        return None;
    }
    let period = if L::AFFINE {
        None
    } else {
        Some(l.post_period()?.period)
    };
    let (m, rows) = ax(op, &axes, 0)?;
    let (n, cols) = ax(op, &axes, 1)?;
    if [m, n] != dims {
        return None;
    }
    let cut = match period {
        None => Cut::None,
        Some(p) => match (classes(&rows, m, p), classes(&cols, n, p)) {
            (Some(r), Some(c)) if c < r => Cut::Cols(p),
            (Some(_), _) => Cut::Rows(p),
            (None, Some(_)) => Cut::Cols(p),
            (None, None) => return None,
        },
    };
    Some(Form { rows, cols, cut })
}

/// Indices `0 .. len` of one product axis grouped by the classes of the (up to two) operand
/// axes along it, each group in increasing order; `None` past `MAX_CELLS` groups.
fn groups(len: usize, keys: [Option<(&Ax, i64)>; 2]) -> Option<Vec<Vec<usize>>> {
    // one strided operand axis (a swizzled row-major operand's rows): `i·s mod p` repeats
    // every `q = p / gcd(s, p)` indices, so its classes are the residues of `i` modulo `q`,
    // listed without a division per index (the first index of each class is its key)
    if let [Some((Ax::Strided(st), p)), None] | [None, Some((Ax::Strided(st), p))] = keys {
        let q = p as u64 / gcd((*st as i64).rem_euclid(p) as u64, p as u64);
        let q = usize::try_from(q).unwrap_or(usize::MAX).min(len);
        if q > MAX_CELLS {
            return None;
        }
        let mut out = Vec::new();
        for c in 0..q {
            let mut v = Vec::new();
            v.try_reserve_exact(len.div_ceil(q)).ok()?;
            v.extend((c..len).step_by(q));
            out.push(v);
        }
        return Some(out);
    }
    let mut out: Vec<([i64; 2], Vec<usize>)> = Vec::new();
    if keys.iter().all(Option::is_none) {
        let mut v = Vec::new();
        v.try_reserve_exact(len).ok()?;
        v.extend(0..len);
        out.push(([0; 2], v));
    } else {
        for i in 0..len {
            let k = keys.map(|k| k.map_or(0, |(ax, p)| (ax.at(i) as i64).rem_euclid(p)));
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
    }
    Some(out.into_iter().map(|(_, v)| v).collect())
}

/// `(first, step)` when the indices are an arithmetic progression.
fn progression(g: &[usize]) -> Option<(usize, isize)> {
    let step = if g.len() > 1 {
        g[1] as isize - g[0] as isize
    } else {
        1
    };
    g.windows(2)
        .all(|w| w[1] as isize - w[0] as isize == step)
        .then_some((g[0], step))
}

/// One operand of a cell: strided, or through two axis maps, from the tensor's base.
enum Place {
    Strided(Strided),
    Maps(AxisMap, AxisMap),
}

/// The operand on rows `ri` and columns `ci` (each inside one of its classes): element (t, u)
/// of the cell, with its offset from the tensor's base, strided when the operand is affine
/// and strided and the indices are progressions.
fn cell<L: AnyLayout>(
    l: &L,
    f: &Form,
    (ri, pr): (&[usize], Option<(usize, isize)>),
    (ci, pc): (&[usize], Option<(usize, isize)>),
) -> Option<Place> {
    if let (Cut::None, Ax::Strided(rs), Ax::Strided(cs), Some((r0, dr)), Some((c0, dc))) =
        (f.cut, &f.rows, &f.cols, pr, pc)
    {
        return Some(Place::Strided(Strided {
            origin: r0 as isize * rs + c0 as isize * cs,
            rs: rs * dr,
            cs: cs * dc,
        }));
    }
    let post = |x: isize| l.post_offset(x as i64) as isize;
    let (r, c) = match f.cut {
        Cut::None => (
            table(ri.len(), |t| f.rows.at(ri[t]))?,
            table(ci.len(), |u| f.cols.at(ci[u]))?,
        ),
        Cut::Rows(_) => {
            // r(i) ≡ r₀ (mod P) for every row of the cell: W(r(i) + c) = r(i) − r₀ + W(r₀ + c)
            let r0 = f.rows.at(ri[0]);
            (
                table(ri.len(), |t| f.rows.at(ri[t]) - r0)?,
                table(ci.len(), |u| post(r0 + f.cols.at(ci[u])))?,
            )
        }
        Cut::Cols(_) => {
            let c0 = f.cols.at(ci[0]);
            (
                table(ri.len(), |t| post(f.rows.at(ri[t]) + c0))?,
                table(ci.len(), |u| f.cols.at(ci[u]) - c0)?,
            )
        }
    };
    Some(Place::Maps(
        AxisMap::from_offsets(r)?,
        AxisMap::from_offsets(c)?,
    ))
}

/// Whether every element of the operand's cell (`rows × cols`) lies in a buffer of `len`
/// elements from `base`.
fn inside(base: usize, p: &Place, [rows, cols]: [usize; 2], len: usize) -> bool {
    let span = |v: &[isize]| {
        let (mut lo, mut hi) = (0isize, 0isize);
        if let Some(&x) = v.first() {
            (lo, hi) = (x, x);
        }
        for &x in v {
            lo = lo.min(x);
            hi = hi.max(x);
        }
        (lo as i128, hi as i128)
    };
    let ((rl, rh), (cl, ch)) = match p {
        Place::Strided(s) => {
            let end = |n: usize, d: isize| {
                let e = (n as i128 - 1) * d as i128;
                (e.min(0), e.max(0))
            };
            let (a, b) = end(rows, s.rs);
            let (c, d) = end(cols, s.cs);
            let o = s.origin as i128;
            ((o + a, o + b), (c, d))
        }
        Place::Maps(r, c) => (span(&r.off), span(&c.off)),
    };
    let b = base as i128;
    b + rl + cl >= 0 && b + rh + ch < len as i128
}

/// Where an operand of a cell is: strided when both maps are one arithmetic run (then the
/// strided routes apply), else through its maps.
fn place(base: usize, p: &Place) -> (Strided, Option<Mapped<'_>>) {
    match p {
        Place::Strided(s) => (
            Strided {
                origin: base as isize + s.origin,
                ..*s
            },
            None,
        ),
        Place::Maps(r, c) => {
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
    }
}

/// The cells of a product whose operands are read in place by class (see the module), built
/// and checked by [`plan`] before anything is written, run by [`Plan::run`].
pub(crate) struct Plan<C> {
    /// Each cell: its extents, its β, and where its A, B and C are.
    cells: Vec<([usize; 3], C, Place, Place, Place)>,
    /// Every cell reads the same B (the cut is along m alone).
    same_b: bool,
}

/// The cells of `C ← α·A·B + β·C` for operands of which at least one is not affine, without
/// dense copies: the product cut into at most [`MAX_CELLS`] cells (see the module), β for the
/// first cell along k, 1 after it. `None`, having touched nothing, when an operand's layout has
/// no period or the cut would give more cells: the caller then densifies. `mkn` are the checked
/// extents (every one positive: BLAS's rule has run).
pub(crate) fn plan<TA, TB, TC, SA, LA, SB, LB, SC, LC>(
    op: &'static str,
    [m, k, n]: [usize; 3],
    a: &Tensor<SA, LA>,
    b: &Tensor<SB, LB>,
    beta: TC,
    c: &Tensor<SC, LC>,
) -> Option<Plan<TC>>
where
    TC: Scalar,
    SA: Storage<Elem = TA>,
    SB: Storage<Elem = TB>,
    SC: Storage<Elem = TC>,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
{
    // the operands that are not affine first: a product they decline costs no tables
    let forms = || -> Option<[Form; 3]> {
        let mut f: [Option<Form>; 3] = [None, None, None];
        for affine in [false, true] {
            if LA::AFFINE == affine {
                f[0] = Some(form(op, a.layout(), [m, k])?);
            }
            if LB::AFFINE == affine {
                f[1] = Some(form(op, b.layout(), [k, n])?);
            }
            if LC::AFFINE == affine {
                f[2] = Some(form(op, c.layout(), [m, n])?);
            }
        }
        let [x, y, z] = f;
        Some([x?, y?, z?])
    };
    let [fa, fb, fc] = forms()?;
    fn rows_key(f: &Form) -> Option<(&Ax, i64)> {
        match f.cut {
            Cut::Rows(p) => Some((&f.rows, p)),
            _ => None,
        }
    }
    fn cols_key(f: &Form) -> Option<(&Ax, i64)> {
        match f.cut {
            Cut::Cols(p) => Some((&f.cols, p)),
            _ => None,
        }
    }
    let gm = groups(m, [rows_key(&fa), rows_key(&fc)])?;
    let gk = groups(k, [cols_key(&fa), rows_key(&fb)])?;
    let gn = groups(n, [cols_key(&fb), cols_key(&fc)])?;
    if gm.len() * gk.len() * gn.len() > MAX_CELLS {
        return None;
    }
    // a swizzled C cut into cells: each cell's C is a map of short runs in a changing order
    // (`Sw<3,3,3>` on 256 columns: runs of 8, 16 and 64), so most of its tiles are merged from
    // stack tiles on the blocked engine, while the dense C of the copy route takes the
    // unpacked tiles of a row-major product: densified it ran faster (Zen 5, AVX-512, f32
    // 256³; BENCHMARKS.md, session 11)
    if fc.cut != Cut::None && gm.len() * gn.len() > 1 {
        return None;
    }
    type Group<'g> = (&'g [usize], Option<(usize, isize)>);
    fn with(g: &[Vec<usize>]) -> Vec<Group<'_>> {
        g.iter().map(|v| (&v[..], progression(v))).collect()
    }
    let same_b = gm.len() > 1 && gk.len() == 1 && gn.len() == 1;
    let (gm, gk, gn) = (with(&gm), with(&gk), with(&gn));
    // every cell's operands, built and checked before anything is written
    let mut cells = Vec::new();
    for &ri in &gm {
        for &cj in &gn {
            for (t, &pk) in gk.iter().enumerate() {
                let pa = cell(a.layout(), &fa, ri, pk)?;
                let pb = cell(b.layout(), &fb, pk, cj)?;
                let pc = cell(c.layout(), &fc, ri, cj)?;
                let (mm, kk, nn) = (ri.0.len(), pk.0.len(), cj.0.len());
                // the layouts' contract (`AnyLayout::post_period`) makes the maps the
                // operands' own offsets; a cell outside a buffer is declined all the same
                if !(inside(a.base_offset(), &pa, [mm, kk], a.as_slice().len())
                    && inside(b.base_offset(), &pb, [kk, nn], b.as_slice().len())
                    && inside(c.base_offset(), &pc, [mm, nn], c.as_slice().len()))
                {
                    return None;
                }
                let beta = if t == 0 { beta } else { TC::ONE };
                cells.push(([mm, kk, nn], beta, pa, pb, pc));
            }
        }
    }
    Some(Plan { cells, same_b })
}

impl<TC: Scalar> Plan<TC> {
    /// The B that every cell reads (`k × n`, the whole of it) when the cells differ in A's and
    /// C's rows alone: its packed panels do not depend on the cell.
    pub(crate) fn same_b<'b, TB, SB: Storage<Elem = TB>, LB: AnyLayout>(
        &self,
        b: &'b Tensor<SB, LB>,
    ) -> Option<View<'b, TB>> {
        let (_, _, _, pb, _) = self.cells.first().filter(|_| self.same_b)?;
        let (at, map) = place(b.base_offset(), pb);
        // a cell's maps borrow the plan; a shared B is offered strided only
        map.is_none().then_some(View {
            data: b.as_slice(),
            at,
            map: None,
        })
    }

    /// Runs `engine(mkn, β, a, b, c)` on each cell in turn.
    pub(crate) fn run<TA, TB, SA, SB, SC, LA, LB, LC>(
        &self,
        a: &Tensor<SA, LA>,
        b: &Tensor<SB, LB>,
        c: &mut Tensor<SC, LC>,
        mut engine: impl FnMut([usize; 3], TC, View<'_, TA>, View<'_, TB>, Out<'_, TC>),
    ) where
        SA: Storage<Elem = TA>,
        SB: Storage<Elem = TB>,
        SC: StorageMut<Elem = TC>,
        LA: AnyLayout,
        LB: AnyLayout,
        LC: AnyLayout,
    {
        let (ab, bb, cb) = (a.base_offset(), b.base_offset(), c.base_offset());
        for (mkn, beta, ma, mb, mc) in &self.cells {
            let (sa, pa) = place(ab, ma);
            let (sb, pb) = place(bb, mb);
            let (sc, pc) = place(cb, mc);
            // every element of a cell is an element of its tensor (the maps are its offsets,
            // inside its buffer), so C's cell is injective as C is; the cells of C are
            // disjoint (m and n cells partition the rows and columns) and run one after another
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
    }
}
