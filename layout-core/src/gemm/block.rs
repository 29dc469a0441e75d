//! The BLIS loop nest: jc (NC) → pc (KC, pack B) → ic (MC, pack A) → jr (NR) → ir (MR) → kernel.

use std::vec::Vec;

use super::check::Strided;
use super::kernel::{InPlace, Kern, KernelInfo, MAX_TILE, NARROW_IN_PLACE, Tile};
use super::maps::{AxisMap, Mapped};
use super::pack::{Panels, Where};

/// Row tiles of a block whose place in C ([`row_place`]) is found once per block.
const ROW_MEMO: usize = 64;

/// A 64-byte-aligned stack tile for edge tiles.
#[repr(align(64))]
struct Scratch<T>([T; MAX_TILE]);

/// A buffer of `len` elements whose first element is 64-byte aligned (its contents are
/// whatever the previous call left; packing overwrites every element it hands to a kernel).
fn aligned_buf<P: Copy + Default>(store: &mut Vec<P>, len: usize) -> &mut [P] {
    let pad = 64 / core::mem::size_of::<P>().max(1);
    if store.len() < len + pad {
        store.resize(len + pad, P::default());
    }
    let off = store.as_ptr().align_offset(64).min(pad);
    &mut store[off..off + len]
}

/// Bᵀ (`n × k`) packed once for several products that read the same B (the cells of an
/// operand cut along m, `swizzled::Plan`): blocks of KC k steps one after another, each
/// `⌈n/MR⌉` micro-panels of MR columns by the block's k steps, as [`Panels::pack`] writes
/// them. The engine reads it as a pre-packed source, in the role the kernel vectorises (so
/// the product runs as `Cᵀ = Bᵀ·Aᵀ`).
pub(crate) struct SharedPanels<'a, P> {
    data: &'a [P],
    mr: usize,
    panels: usize,
}

impl<P: Sync> Panels<P> for SharedPanels<'_, P> {
    fn pack(&self, _: &mut [P], _: usize, _: usize, _: usize, _: usize, _: usize) {
        // the engine asks `prepacked` first and never packs a prepacked source
        debug_assert!(false, "shared panels are never packed again");
    }
    fn prepacked(&self, v: usize, p0: usize, kc: usize) -> Option<&[P]> {
        // the blocks before `p0` (a multiple of KC: the engine's k loop) hold `p0` steps
        let at = p0 * self.panels * self.mr + v / self.mr * self.mr * kc;
        self.data.get(at..at + self.mr * kc)
    }
    fn is_prepacked(&self) -> bool {
        true
    }
}

/// The elements of [`SharedPanels`] for `ki` and B of `[k, n]`.
fn shared_len<C, P>(ki: &KernelInfo<C, P>, [k, n]: [usize; 2]) -> usize {
    n.div_ceil(ki.mr) * ki.mr * k
}

/// Whether B of `[k, n]` is packed once for several products ([`pack_shared`]): its panels
/// fit the L2 (256³ f32: 256 KiB, Zen 3's L2 512 KiB). Larger ones are packed block by block
/// per product, each block used while it is in L2 (and by every thread).
pub(crate) fn shares<C, P>(ki: &KernelInfo<C, P>, kn: [usize; 2]) -> bool {
    shared_len(ki, kn).saturating_mul(core::mem::size_of::<P>()) <= crate::isa::Caches::get().l2
}

/// Packs `bsrc` (X = Bᵀ, `n × k`) into `store` for `ki`'s kernel, as [`shared`] reads it.
pub(crate) fn pack_shared<K: Kern>(
    ki: &KernelInfo<K::C, K::P>,
    bsrc: &dyn Panels<K::P>,
    [k, n]: [usize; 2],
    store: &mut Vec<K::P>,
) {
    debug_assert!(K::KSTEP == 1, "shared panels hold one k value per step");
    let panels = n.div_ceil(ki.mr);
    let buf = aligned_buf(store, shared_len(ki, [k, n]));
    for pc in steps(0..k, ki.kc) {
        let kcb = ki.kc.min(k - pc);
        bsrc.pack(&mut buf[pc * panels * ki.mr..], 0, pc, n, kcb, ki.mr);
    }
}

/// The panels [`pack_shared`] left in `store` for `ki` and B of `[k, n]`.
pub(crate) fn shared<'s, C, P: Copy + Default>(
    ki: &KernelInfo<C, P>,
    kn: [usize; 2],
    store: &'s mut Vec<P>,
) -> SharedPanels<'s, P> {
    SharedPanels {
        panels: kn[1].div_ceil(ki.mr),
        mr: ki.mr,
        data: aligned_buf(store, shared_len(ki, kn)),
    }
}

/// C as the engine writes it: element (i, j) at `c[sc.origin + i·sc.rs + j·sc.cs]`, or through
/// `cmap` (from `sc.origin`) for C of any affine layout. Checked: every element in bounds, no
/// two at one location.
pub(crate) struct Out<'a, C> {
    pub c: &'a mut [C],
    pub sc: Strided,
    pub cmap: Option<Mapped<'a>>,
}

/// The engine on any two operand sources (see [`Panels`]): `C ← α·A·B + β·C` for an
/// m × k A, k × n B (`mkn = [m, k, n]`), on up to `threads` threads. The sources must hold
/// X = A (m × k) and X = Bᵀ (n × k), every index inside them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_panels<'s, K: Kern>(
    ki: &KernelInfo<K::C, K::P>,
    [mut m, k, mut n]: [usize; 3],
    alpha: K::C,
    mut asrc: &'s dyn Panels<K::P>,
    mut bsrc: &'s dyn Panels<K::P>,
    beta: K::C,
    out: Out<'s, K::C>,
    threads: usize,
) {
    let Out {
        c,
        mut sc,
        mut cmap,
    } = out;
    // the front's rule (`front::rule`) has run: empty products, k = 0 and α = 0 never get here
    debug_assert!(m > 0 && n > 0 && k > 0 && alpha != K::ZERO);
    if m == 0 || n == 0 || k == 0 {
        return;
    }
    // B packed ahead of time is packed for the vectorised role: the product runs as Cᵀ = Bᵀ·Aᵀ
    let prepacked = bsrc.is_prepacked();
    // The kernel vectorises along m and stores C columns directly when C's rows are unit
    // stride; for a row-major C compute Cᵀ = Bᵀ·Aᵀ instead: the sources swap (each is its
    // matrix rows by k). (A mapped C is judged by the steps of its first runs.)
    let (crs, ccs) = match cmap {
        Some(cm) => (cm.rows.step(0), cm.cols.step(0)),
        None => (sc.rs, sc.cs),
    };
    if prepacked || (!asrc.is_prepacked() && transposes(m, n, crs, ccs)) {
        core::mem::swap(&mut m, &mut n);
        core::mem::swap(&mut asrc, &mut bsrc);
        cmap = cmap.map(Mapped::t);
        sc = Strided {
            origin: sc.origin,
            rs: sc.cs,
            cs: sc.rs,
        };
    }
    // few columns: the kernel's narrow variant where its tiles waste fewer of them
    let mut fitted = ki.fit(n);
    // a strided broadcast operand read in place (the choice `blocks` makes for every part, as
    // each has at most m rows) takes the kernel's blocking for it (`KernelInfo::strided_kc`),
    // judged on the whole m so that every thread count blocks k alike (bit-identical results);
    // from `STRIDED_KC_MIN_PANELS` micro-panels of rows on
    if fitted.strided_kc.is_some()
        && K::KSTEP == 1
        && fitted.in_place.is_some()
        && (STRIDED_KC_MIN_PANELS * fitted.mr..=fitted.strided_in_place * fitted.mr).contains(&m)
        && matches!(bsrc.in_place(), Some(Where::Strided(..)))
    {
        fitted = fitted.for_strided_in_place();
    }
    let ki = &fitted;
    let ctx = Ctx {
        m,
        k,
        alpha,
        beta,
        asrc,
        bsrc,
        prepacked: asrc.is_prepacked(),
        sc,
        cmap,
        c: CPtr(c.as_mut_ptr()),
    };
    let threads = threads.max(1);
    // below ~64³ the threads cost more than they save
    if threads == 1 || m.saturating_mul(n).saturating_mul(k) < 64 * 64 * 64 {
        loops::<K>(ki, &ctx, 0..m, 0..n);
        return;
    }
    // split the larger of m, n into `threads` ranges at multiples of MR (NR) from 0, so every
    // C element is computed by the same tile, with the same k blocking, as with one thread
    let (along_m, len, unit) = if m >= n {
        (true, m, ki.mr)
    } else {
        (false, n, ki.nr)
    };
    let units = len.div_ceil(unit);
    let parts = threads.min(units);
    // the parts on the one thread splitter (`threads.rs`)
    let part = |t: usize| {
        let lo = (units * t / parts * unit).min(len);
        let hi = (units * (t + 1) / parts * unit).min(len);
        if along_m {
            (lo..hi, 0..n)
        } else {
            (0..m, lo..hi)
        }
    };
    let ctx = &ctx;
    super::threads::split(parts, &|t| {
        let (rows, cols) = part(t);
        loops::<K>(ki, ctx, rows, cols);
    });
}

/// Whether a product whose C has steps `crs` (down a column) and `ccs` (along a row) runs as
/// `Cᵀ = Bᵀ·Aᵀ`: the kernel vectorises along m, so C's contiguous dimension should be m.
pub(crate) fn transposes(m: usize, n: usize, crs: isize, ccs: isize) -> bool {
    let rs_eff = if m == 1 { 0 } else { crs.unsigned_abs() };
    let cs_eff = if n == 1 { 0 } else { ccs.unsigned_abs() };
    crs != 1 && (ccs == 1 || rs_eff > cs_eff)
}

/// The blocked engine's kernel for `T` on `isa` writing an `m × n` C (`cmap`: C's axis maps,
/// for a C of any affine layout): the instruction set's, or for a C whose runs along the
/// vectorised dimension are shorter than its MR and not whole vectors, the kernel for that
/// run ([`Element::kernel_for_run`](super::kernel::Element::kernel_for_run)). The f32 kernel
/// of the 16-bit float pairs is chosen here too.
pub(crate) fn kernel_for<T: super::kernel::Element>(
    isa: crate::isa::Isa,
    [m, n]: [usize; 2],
    cmap: Option<Mapped<'_>>,
) -> KernelInfo<T> {
    let Some(mut ki) = T::kernel(isa) else {
        unreachable!("the front checked that the pair has kernels for {isa:?}")
    };
    // a C whose contiguous runs (along the dimension the kernel vectorises) are shorter
    // than the kernel's MR — an NZ fractal row of C0 elements — keeps the kernel when its
    // runs are whole vectors (it stores each vector where its run is: AVX2's 16 × 6 and
    // 8 × 6 for f32 / f64 NZ), else takes the kernel for that run (AVX-512: the same tile
    // storing each zmm in two runs; NEON f64 with runs of two vectors: its fractal-row tile), so
    // every tile is stored from its registers
    if let Some(cm) = cmap {
        let (rs, cs) = (cm.rows.step(0), cm.cols.step(0));
        let (run, step) = if transposes(m, n, rs, cs) {
            (cm.cols.run[0] as usize, cs)
        } else {
            (cm.rows.run[0] as usize, rs)
        };
        let whole_vectors =
            ki.lanes > 0 && run.is_multiple_of(ki.lanes) && ki.mr.is_multiple_of(run);
        if step == 1
            && run < ki.mr
            && !whole_vectors
            && let Some(narrow) = T::kernel_for_run(isa, run)
        {
            ki = narrow;
        }
    }
    ki
}

/// The base pointer of C, shared by the threads of one call.
#[derive(Clone, Copy)]
struct CPtr<T>(*mut T);
// SAFETY: the threads of one call write disjoint sets of C elements (disjoint row or column
// ranges of an operand checked to have no two elements at one location), and the pointer does
// not outlive the call (`thread::scope`).
unsafe impl<T: Send> Send for CPtr<T> {}
// SAFETY: as for Send; the pointer itself is only copied.
unsafe impl<T: Send> Sync for CPtr<T> {}

/// A normalised problem (C's rows vectorised) shared by the threads of one call.
struct Ctx<'a, K: Kern> {
    /// The whole product's rows (every thread's part has at most these): the in-place choices
    /// are made on it, so that every thread count runs each tile on the same kernel, reading
    /// its operands the same way (bit-identical results).
    m: usize,
    k: usize,
    alpha: K::C,
    beta: K::C,
    asrc: &'a dyn Panels<K::P>,
    bsrc: &'a dyn Panels<K::P>,
    /// `asrc` holds its panels already (never packed).
    prepacked: bool,
    sc: Strided,
    cmap: Option<Mapped<'a>>,
    c: CPtr<K::C>,
}

/// The fewest micro-panels of rows (m ÷ MR) for which a strided broadcast operand read in place
/// takes the kernel's own blocking for it (`KernelInfo::strided_kc`): Zen 5, f64 64 × 4096 × 64
/// measured 1.00–1.05 of the best peer at KC 256 and 0.94–1.04 at KC 512 (session 13,
/// BENCHMARKS.md), so few rows keep the packed route's KC.
const STRIDED_KC_MIN_PANELS: usize = 8;

/// The five loops over rows `rows` and columns `cols` of C.
fn loops<K: Kern>(
    ki: &KernelInfo<K::C, K::P>,
    ctx: &Ctx<'_, K>,
    rows: core::ops::Range<usize>,
    cols: core::ops::Range<usize>,
) {
    let (mr, nr, k) = (ki.mr, ki.nr, ctx.k);
    let (m, n) = (rows.len(), cols.len());
    let kc_max = ki.kc.min(k).next_multiple_of(K::KSTEP);
    let mc_max = ki.mc.min(m.div_ceil(mr) * mr);
    let nc_max = ki.nc.min(n.div_ceil(nr) * nr);
    K::with_buffers(|astore, bstore| {
        let abuf = aligned_buf(astore, if ctx.prepacked { 0 } else { mc_max * kc_max });
        let bbuf = aligned_buf(bstore, nc_max * kc_max);
        blocks::<K>(ki, ctx, rows, cols, abuf, bbuf);
    });
}

/// `r.start, r.start + step, …` below `r.end` (`Iterator::step_by` on a range divides to count
/// its steps when it is made: a `div` for each of the inner loops).
#[inline(always)]
fn steps(r: core::ops::Range<usize>, step: usize) -> impl Iterator<Item = usize> {
    let end = r.end;
    core::iter::successors((r.start < end).then_some(r.start), move |&x| {
        x.checked_add(step).filter(|&y| y < end)
    })
}

/// The loops of [`loops`] with its packing buffers.
fn blocks<K: Kern>(
    ki: &KernelInfo<K::C, K::P>,
    ctx: &Ctx<'_, K>,
    rows: core::ops::Range<usize>,
    cols: core::ops::Range<usize>,
    abuf: &mut [K::P],
    bbuf: &mut [K::P],
) {
    let (mr, nr, k, sc) = (ki.mr, ki.nr, ctx.k, ctx.sc);
    let (alpha, beta) = (ctx.alpha, ctx.beta);
    let cptr = ctx.c.0;
    let mut scratch = Scratch([K::ZERO; MAX_TILE]);
    debug_assert!(mr * nr <= MAX_TILE);

    // the broadcast operand read where it is (no B packing) when it has axis maps or is
    // strided with k contiguous (its packing a transpose), the kernel has a variant for it, and
    // each of its micro-panels would be re-read by few A micro-panels (see `IN_PLACE_PANELS`)
    let in_place = match (ki.in_place, ctx.bsrc.in_place()) {
        (Some(f), Some(src))
            if K::KSTEP == 1
                && match src {
                    Where::Mapped(..) => ctx.m <= IN_PLACE_PANELS * mr,
                    Where::Strided(..) => ctx.m <= ki.strided_in_place * mr && ki.kc <= STEPS.len(),
                } =>
        {
            Some((f, src))
        }
        _ => None,
    };
    // the vectorised operand read where it is too (no packing at all) when the broadcast one
    // is, it is strided with its rows contiguous, the kernel has a variant for it, and its
    // block stays in L1 ([`vectors_in_place`]); its partial micro-panel is still packed
    let vec_in_place = match (in_place, ki.in_place_a, ctx.asrc.vectors()) {
        (Some(_), Some(fa), Some((base, ak)))
            if !ctx.prepacked
                && vectors_in_place(
                    ctx.m.min(ki.mc),
                    ki.kc.min(k),
                    core::mem::size_of::<K::P>(),
                    ak,
                ) =>
        {
            Some((fa, base, ak))
        }
        _ => None,
    };
    for jc in steps(cols.clone(), ki.nc) {
        let ncb = ki.nc.min(cols.end - jc);
        for pc in steps(0..k, ki.kc) {
            let kcb = ki.kc.min(k - pc);
            // packed k extent (pairs of k padded with a zero) and kernel steps
            let kcp = kcb.next_multiple_of(K::KSTEP);
            let ksteps = kcp / K::KSTEP;
            if in_place.is_none() {
                ctx.bsrc.pack(bbuf, jc, pc, ncb, kcb, nr);
            }
            let beta_pc = if pc == 0 { beta } else { K::ONE };
            for ic in steps(rows.clone(), ki.mc) {
                let mcb = ki.mc.min(rows.end - ic);
                if !ctx.prepacked {
                    match vec_in_place {
                        None => ctx.asrc.pack(abuf, ic, pc, mcb, kcb, mr),
                        // only the partial micro-panel, at its place in the block
                        Some(_) => {
                            let full = mcb / mr * mr;
                            if full < mcb {
                                let rest = &mut abuf[full * kcp..];
                                ctx.asrc.pack(rest, ic + full, pc, mcb - full, kcb, mr);
                            }
                        }
                    }
                }
                // where each whole row tile of the block starts in C and its row steps, found
                // once per block instead of once per tile (a mapped C: `vector_runs`)
                // the k stride of the vectorised operand read in place (`InPlace::ak`)
                let ak = vec_in_place.map_or(mr as isize, |(_, _, ak)| ak);
                let mut rows_at = [None; ROW_MEMO];
                for (t, r) in rows_at.iter_mut().enumerate().take(mcb / mr) {
                    *r = row_place(ctx.cmap, sc, ic + t * mr, mr, ki.lanes);
                }
                for jr in steps(0..ncb, nr) {
                    let nrb = nr.min(ncb - jr);
                    let bp = match in_place {
                        Some(_) => bbuf.as_ptr(),
                        None => bbuf[jr * kcp..(jr + nr) * kcp].as_ptr(),
                    };
                    // the micro-panel's columns where they are
                    let bin = in_place.map(|(f, src)| {
                        (
                            f,
                            columns(src, jc + jr, nrb, [nr, ki.in_place_edge], pc, kcb, ak),
                        )
                    });
                    // the tile's width as the kernel stores it: an in-place edge tile may run
                    // at its own width
                    let tw = match &bin {
                        Some((_, b)) => b.nr,
                        None => nr,
                    };
                    let j0 = jc + jr;
                    // where the tile column's C columns are, when they run arithmetically over
                    // the whole tile width (the same for every tile of the micro-panel)
                    let cols_at = if nrb != tw {
                        None
                    } else {
                        match ctx.cmap {
                            None => Some((sc.origin + j0 as isize * sc.cs, sc.cs)),
                            Some(cm) if cm.cols.run[j0] as usize >= tw => {
                                Some((sc.origin + cm.cols.off[j0], cm.cols.step(j0)))
                            }
                            Some(_) => None,
                        }
                    };
                    for t in 0..mcb.div_ceil(mr) {
                        let ir = t * mr;
                        let mrb = mr.min(mcb - ir);
                        let prepacked = if ctx.prepacked {
                            ctx.asrc.prepacked(ic + ir, pc, kcb)
                        } else {
                            None
                        };
                        let i0 = ic + ir;
                        // a whole row tile of a vectorised operand read in place: its kernel
                        // and the tile's first row at the block's first k step
                        let a_here = match vec_in_place {
                            Some((fa, base, ak)) if mrb == mr => {
                                Some((fa, base.wrapping_offset(i0 as isize + pc as isize * ak)))
                            }
                            _ => None,
                        };
                        let ap = match (a_here, prepacked) {
                            (Some((_, at)), _) => at,
                            (None, Some(panel)) => panel.as_ptr(),
                            (None, None) => abuf[ir * kcp..(ir + mr) * kcp].as_ptr(),
                        };
                        // where the tile's corner is and its strides, when C runs
                        // arithmetically over the whole tile (its row vectors `vsc` apart)
                        let direct = match cols_at {
                            Some((co, csc)) if mrb == mr => match rows_at.get(t) {
                                Some(&r) => r,
                                None => row_place(ctx.cmap, sc, i0, mr, ki.lanes),
                            }
                            .map(|(ro, rsc, vsc)| (ro + co, rsc, csc, vsc)),
                            _ => None,
                        };
                        if let Some((corner, rsc, csc, vsc)) = direct {
                            let tile = Tile {
                                k: ksteps,
                                alpha,
                                beta: beta_pc,
                                a: ap,
                                b: bp,
                                // SAFETY: (i0, j0) is an element of C (i0 < m, j0 < n), so its
                                // index is in bounds of `c` (checked by check_operand, or by the
                                // tensor's construction for a mapped C); this thread owns rows
                                // `rows` × columns `cols` of C.
                                c: unsafe { cptr.offset(corner) },
                                rsc,
                                csc,
                                vsc,
                            };
                            // SAFETY: `ap`/`bp` are subslices of MR·kcp / NR·kcp packed elements;
                            // the full MR×`tw` tile (`tw` = NR, or an in-place edge tile's own
                            // width) lies inside C (i0 + MR ≤ m, j0 + tw ≤ n) at
                            // `corner + i·rsc + j·csc` (C's runs cover the tile), or, with
                            // `vsc ≠ 0` (only for a kernel with `lanes`), at `corner + (i /
                            // lanes)·vsc + i % lanes + j·csc` (`vector_runs` checked each
                            // vector's run); the kernel's ISA was checked available when `ki`
                            // was chosen. In place: every column `j < nrb` is a column of
                            // the operand and every `koff[p]` (`p < kcb`) one of its k offsets,
                            // so each read is an element of it (a checked product). The
                            // vectorised operand in place (`a_here`, a whole row tile): rows
                            // `i0 .. i0 + MR` (< m) at k steps `pc .. pc + kcb` (< k), each at
                            // `base + i + p·ak` inside it (`Panels::vectors`).
                            unsafe {
                                match (&bin, a_here) {
                                    (Some((_, b)), Some((fa, _))) => fa(&tile, b),
                                    (Some((f, b)), None) => f(&tile, b),
                                    (None, _) => (ki.ukr)(&tile),
                                }
                            };
                        } else {
                            // a mapped C merged from the stack tile: its runs' cache lines
                            // are brought in while the kernel runs (the kernel prefetches C
                            // only where it stores it; Zen 5, `Sw<3,3,3>` C at 1024³)
                            if let Some(cm) = ctx.cmap {
                                for j in 0..nrb {
                                    let col = sc.origin + cm.cols.off[j0 + j];
                                    for t in steps(0..mrb, 8) {
                                        prefetch(cptr.wrapping_offset(col + cm.rows.off[i0 + t]));
                                    }
                                }
                            }
                            let tile = Tile {
                                k: ksteps,
                                alpha,
                                beta: K::ZERO,
                                a: ap,
                                b: bp,
                                c: scratch.0.as_mut_ptr(),
                                rsc: 1,
                                csc: mr as isize,
                                vsc: 0,
                            };
                            // SAFETY: as above for a and b (either in place); C is the MAX_TILE ≥ MR·NR scratch
                            // tile (column-major, leading dimension MR), not read as β = 0.
                            unsafe {
                                match (&bin, a_here) {
                                    (Some((_, b)), Some((fa, _))) => fa(&tile, b),
                                    (Some((f, b)), None) => f(&tile, b),
                                    (None, _) => (ki.ukr)(&tile),
                                }
                            };
                            for j in 0..nrb {
                                let col = match ctx.cmap {
                                    None => sc.origin + (j0 + j) as isize * sc.cs,
                                    Some(cm) => sc.origin + cm.cols.off[j0 + j],
                                };
                                let x = &scratch.0[j * mr..j * mr + mrb];
                                // SAFETY: every (i0 + i, j0 + j) is an element of C, so its
                                // index is in bounds (check_operand, or the tensor's
                                // construction); all C accesses go through `cptr`.
                                unsafe {
                                    match ctx.cmap {
                                        None => merge::<K>(cptr, col, i0, sc.rs, x, beta_pc),
                                        Some(cm) => {
                                            merge_mapped::<K>(cptr, col, cm.rows, i0, x, beta_pc)
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The broadcast operand is read in place while the rows of the kernel's vectorised operand
/// make at most this many micro-panels: each of its values is then read this many times from
/// where it is instead of once for packing and this many times from the packed panel. (A
/// packed value costs about three instructions to place, an in-place k step one more load
/// than a packed one. Measured, f32 AVX2, × the packed route: NZ/ZZ, interleaved and
/// block-linear operands 1.02–1.21 at 64³–256³ (4–16 panels), 0.96–1.04 at 1024³ (64).)
const IN_PLACE_PANELS: usize = 16;

/// The broadcast operand's micro-panel of columns `j0 .. j0 + nrb` and k steps `pc .. pc + kcb`
/// where it is (the columns past an edge panel's width read its first column; the kernel's
/// values there are never stored).
fn columns<P>(
    src: Where<'_, P>,
    j0: usize,
    nrb: usize,
    [nr, edge]: [usize; 2],
    pc: usize,
    kcb: usize,
    ak: isize,
) -> InPlace<P> {
    let at = |j: usize| match src {
        Where::Mapped(base, mp) => base.wrapping_offset(mp.rows.off[j0 + j]),
        Where::Strided(base, sv) => base.wrapping_offset((j0 + j) as isize * sv + pc as isize),
    };
    let koff = match src {
        Where::Mapped(_, mp) => mp.cols.off[pc..pc + kcb].as_ptr(),
        // k contiguous: the k steps are 0, 1, … from the k block's start
        Where::Strided(..) => STEPS[..kcb].as_ptr(),
    };
    let first = at(0);
    InPlace {
        cols: core::array::from_fn(|j| if j < nrb { at(j) } else { first }),
        koff,
        nr: if nrb <= NARROW_IN_PLACE.max(edge) {
            nrb
        } else {
            nr
        },
        ak,
    }
}

/// Whether the kernel's vectorised operand is read in place ([`KernelInfo::in_place_a`]) for
/// a block of `rows` rows by `kc` k steps of `p`-byte elements, `ak` elements between k steps:
/// while the block stays in half of L1d, counting only the sets of a 4 KiB way that its k
/// steps reach (a stride of 2ʲ bytes reaches few of them). Every micro-panel of the broadcast
/// operand re-reads the whole block; from L1 that costs no more than a packed block, from L2 at
/// a stride it costs more than packing saves. Zen 5 (L1d 48 KiB), CPU time ÷ packed:
/// `RowMajorInterleaved<4>` A × row-major B, f32 64³ (16 KiB block) 0.96, f64 64³ 1.00; f32
/// 128³ 1.20 and 256³ 1.18, f64 128³ 1.08 and 256³ 1.04, which this bound keeps packed
/// (BENCHMARKS.md, session 13).
fn vectors_in_place(rows: usize, kc: usize, p: usize, ak: isize) -> bool {
    const WAY: usize = 4096;
    let l1 = crate::isa::Caches::get().l1d;
    let row_bytes = rows.saturating_mul(p);
    let lines = row_bytes.div_ceil(64);
    let stride = ak.unsigned_abs().saturating_mul(p);
    // the distinct places in a way that the k steps start at, each covering `lines` sets
    let g = if stride == 0 {
        WAY
    } else {
        1usize << stride.trailing_zeros().min(12)
    };
    let sets = (WAY / g).saturating_mul(lines).min(WAY / 64);
    let ways = l1 / WAY;
    kc.saturating_mul(lines) <= sets * ways / 2
}

/// The k offsets `0, 1, 2, …` of a strided operand read in place with k contiguous (the
/// kernel adds `koff[p]` to each column's start), for k blocks up to this long.
static STEPS: [isize; 1024] = {
    let mut s = [0; 1024];
    let mut i = 0;
    while i < s.len() {
        s[i] = i as isize;
        i += 1;
    }
    s
};

/// Where the whole row tile `i0 .. i0 + mr` of C is, relative to a column's start: `(offset
/// of row i0, step down a column, vsc)` when its rows run arithmetically over the tile, or
/// (a mapped C, a kernel with `lanes`) are `mr / lanes` vectors equally spaced
/// ([`vector_runs`], then the step is 1 and `vsc` their distance); `None` otherwise.
#[inline]
fn row_place(
    cmap: Option<Mapped<'_>>,
    sc: Strided,
    i0: usize,
    mr: usize,
    lanes: usize,
) -> Option<(isize, isize, isize)> {
    match cmap {
        None => Some((i0 as isize * sc.rs, sc.rs, 0)),
        Some(cm) => {
            let off = *cm.rows.off.get(i0)?;
            if cm.rows.run[i0] as usize >= mr {
                Some((off, cm.rows.step(i0), 0))
            } else {
                vector_runs(cm.rows, i0, mr, lanes).map(|vsc| (off, 1, vsc))
            }
        }
    }
}

/// Whether rows `i0 .. i0 + mr` of a mapped C are `mr / lanes` unit-stride runs of `lanes` rows
/// (vectors) whose starts are equally spaced: the distance between them ([`Tile::vsc`]), for a
/// kernel that stores its row vectors at any distance (`lanes > 0`).
fn vector_runs(rows: &AxisMap, i0: usize, mr: usize, lanes: usize) -> Option<isize> {
    if lanes == 0 || !mr.is_multiple_of(lanes) || i0 + mr > rows.off.len() {
        return None;
    }
    let start = |v: usize| rows.off[i0 + v * lanes];
    let vsc = if mr > lanes { start(1) - start(0) } else { 0 };
    (0..mr / lanes)
        .all(|v| {
            let i = i0 + v * lanes;
            rows.run[i] as usize >= lanes
                && (lanes == 1 || rows.step(i) == 1)
                && start(v) - start(0) == v as isize * vsc
        })
        .then_some(vsc)
}

/// Asks for the cache line holding `p` to be brought into L1 (a hint; `p` is never
/// dereferenced, and need not point into any object).
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing (SSE, in the x86-64 baseline).
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// `C[col + (i0 + i)·rs] ← x[i] + β·C[…]` for the rows of one tile column.
///
/// # Safety
/// Every `col + (i0 + i)·rs` (`i < x.len()`) is an element of C's buffer at `c`, not accessed by
/// another thread.
#[inline(always)]
unsafe fn merge<K: Kern>(c: *mut K::C, col: isize, i0: usize, rs: isize, x: &[K::C], beta: K::C) {
    for (i, &x) in x.iter().enumerate() {
        let at = col + (i0 + i) as isize * rs;
        // SAFETY: the caller's contract.
        unsafe {
            let q = c.offset(at);
            *q = if beta == K::ZERO {
                x
            } else if beta == K::ONE {
                K::add(*q, x)
            } else {
                K::mul_add(*q, beta, x)
            };
        }
    }
}

/// [`merge`] for a mapped C: row `i0 + i` of the column at `col + rows.off[i0 + i]`.
///
/// # Safety
/// Every `col + rows.off[i0 + i]` (`i < x.len()`) is an element of C's buffer at `c`, not
/// accessed by another thread.
#[inline(always)]
unsafe fn merge_mapped<K: Kern>(
    c: *mut K::C,
    col: isize,
    rows: &AxisMap,
    i0: usize,
    x: &[K::C],
    beta: K::C,
) {
    // run by run of C's row map: a unit-step run (a swizzled C's 8-element runs, whose starts
    // are not equally spaced, so no kernel stores them from its registers) is one contiguous
    // slice, merged by loops over slices that the compiler vectorises; a lookup per run, not per
    // element (Zen 5, `Sw<3,3,3>` C at 1024³: the element-wise merge was 12 % of the call)
    let mut i = 0;
    while i < x.len() {
        let r = (rows.run[i0 + i] as usize).min(x.len() - i);
        let o = col + rows.off[i0 + i];
        let xs = &x[i..i + r];
        if r > 1 && rows.step(i0 + i) == 1 {
            // SAFETY: the caller's contract: elements `o .. o + r` of C (the run's offsets, unit
            // step) are C's and this thread's alone, so no other reference to them exists.
            let cs = unsafe { core::slice::from_raw_parts_mut(c.offset(o), r) };
            if beta == K::ZERO {
                cs.copy_from_slice(xs);
            } else if beta == K::ONE {
                for (q, &x) in cs.iter_mut().zip(xs) {
                    *q = K::add(*q, x);
                }
            } else {
                for (q, &x) in cs.iter_mut().zip(xs) {
                    *q = K::mul_add(*q, beta, x);
                }
            }
        } else {
            let offs = &rows.off[i0 + i..i0 + i + r];
            for (&o, &x) in offs.iter().zip(xs) {
                // SAFETY: the caller's contract.
                unsafe {
                    let q = c.offset(col + o);
                    *q = if beta == K::ZERO {
                        x
                    } else if beta == K::ONE {
                        K::add(*q, x)
                    } else {
                        K::mul_add(*q, beta, x)
                    };
                }
            }
        }
        i += r;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::kernel::Element;
    use crate::gemm::pack::Rows;
    use crate::isa::Isa;
    use std::vec;

    /// Both operands read in place (`KernelInfo::in_place_a`): a vectorised operand of
    /// unit-stride rows and a padded k stride, a broadcast one strided with k contiguous, on
    /// every instruction set with a KC of 16 so that k crosses several k blocks (each tile's
    /// first row at `base + i0 + pc·ak`), m below, at and past whole row tiles (the partial
    /// micro-panel packed), one and two threads, α and β, against the naive product; the
    /// guard elements around C untouched.
    fn both_in_place<T: Element + From<i8>>() {
        for isa in Isa::available() {
            let Some(mut ki) = T::kernel(isa) else {
                continue;
            };
            ki.kc = 16;
            let mr = ki.mr;
            for (m, k, n) in [
                (1, 3, 2),
                (mr, 40, 7),
                (mr + 1, 17, 13),
                (3 * mr - 5, 33, 5),
            ] {
                let (lda, ldb) = (m + 3, k + 2);
                let val = |x: usize| T::from(((x * 7 + 3) % 9) as i8 - 4);
                // A: column-major of leading dimension lda (rows contiguous); B column-major
                // of ldb, read as Bᵀ with k contiguous
                let a: Vec<T> = (0..lda * k).map(val).collect();
                let b: Vec<T> = (0..ldb * n).map(|x| val(x + 5)).collect();
                let asrc = Rows {
                    src: &a[..],
                    origin: 0,
                    sv: 1,
                    sk: lda as isize,
                    map: None,
                    simd: false,
                };
                let bsrc = Rows {
                    src: &b[..],
                    origin: 0,
                    sv: ldb as isize,
                    sk: 1,
                    map: None,
                    simd: false,
                };
                let guard = 16usize;
                let c0: Vec<T> = (0..m * n + 2 * guard).map(|x| val(x + 2)).collect();
                let (alpha, beta) = (T::from(2), T::from(-1));
                for threads in [1, 2] {
                    let mut c = c0.clone();
                    let out = Out {
                        c: &mut c[..],
                        sc: Strided {
                            origin: guard as isize,
                            rs: 1,
                            cs: m as isize,
                        },
                        cmap: None,
                    };
                    run_panels::<T>(&ki, [m, k, n], alpha, &asrc, &bsrc, beta, out, threads);
                    for j in 0..n {
                        for i in 0..m {
                            let s =
                                (0..k).fold(T::ZERO, |s, p| s + a[i + p * lda] * b[p + j * ldb]);
                            let at = guard + i + j * m;
                            assert_eq!(
                                c[at],
                                alpha * s + beta * c0[at],
                                "{isa:?}, {m}×{k}×{n}, {threads} threads: C({i},{j})"
                            );
                        }
                    }
                    for x in (0..guard).chain(guard + m * n..m * n + 2 * guard) {
                        assert_eq!(c[x], c0[x], "{isa:?}: guard {x} written");
                    }
                }
            }
        }
    }

    #[test]
    fn both_operands_in_place_f32() {
        both_in_place::<f32>();
    }

    #[test]
    fn both_operands_in_place_f64() {
        both_in_place::<f64>();
    }

    /// Blocks of more row tiles than the per-block table of their places in C ([`ROW_MEMO`]):
    /// the tiles past it find their place one by one. A strided (column-major) C and an NZ-like
    /// mapped C (runs of 8 rows, each kernel vector stored where its run is), every instruction
    /// set, one and two threads, against the naive product; the guard elements around C untouched.
    #[test]
    fn blocks_of_more_row_tiles_than_the_memo() {
        for isa in Isa::available() {
            let Some(mut ki) = <f32 as Element>::kernel(isa) else {
                continue;
            };
            let tiles = ROW_MEMO + 6;
            ki.mc = ki.mr * tiles;
            // m: whole NZ runs of 8 rows, the last tile an edge one where MR > 8
            let (m, k, n) = ((ki.mr * (tiles - 1) + 8).next_multiple_of(8), 5, 7);
            let val = |x: usize| ((x * 7 + 3) % 9) as f32 - 4.0;
            // A column-major (m × k), B column-major (k × n): the packer reads Bᵀ by rows
            let a: Vec<f32> = (0..m * k).map(val).collect();
            let b: Vec<f32> = (0..k * n).map(|x| val(x + 11)).collect();
            let want =
                |i: usize, j: usize| (0..k).map(|p| a[i + p * m] * b[p + j * k]).sum::<f32>();
            let asrc = Rows {
                src: &a[..],
                origin: 0,
                sv: 1,
                sk: m as isize,
                map: None,
                simd: false,
            };
            let bsrc = Rows {
                src: &b[..],
                origin: 0,
                sv: k as isize,
                sk: 1,
                map: None,
                simd: false,
            };
            // C's element (i, j): column-major, or NZ-like (8-row runs, runs 8·n apart)
            let rows_nz = AxisMap::new("test", &[8, (m / 8) as i64], &[1, 8 * n as i64]).unwrap();
            let cols_nz = AxisMap::new("test", &[n as i64], &[8]).unwrap();
            let guard = 16usize;
            for mapped in [false, true] {
                for threads in [1, 2] {
                    let at = |i: usize, j: usize| {
                        guard
                            + if mapped {
                                (rows_nz.off[i] + cols_nz.off[j]) as usize
                            } else {
                                i + j * m
                            }
                    };
                    let mut c = vec![f32::NAN; m * n + 2 * guard];
                    let cmap = mapped.then_some(Mapped {
                        rows: &rows_nz,
                        cols: &cols_nz,
                    });
                    let out = Out {
                        c: &mut c[..],
                        sc: Strided {
                            origin: guard as isize,
                            rs: 1,
                            cs: m as isize,
                        },
                        cmap,
                    };
                    run_panels::<f32>(&ki, [m, k, n], 1.0, &asrc, &bsrc, 0.0, out, threads);
                    for j in 0..n {
                        for i in 0..m {
                            assert_eq!(
                                c[at(i, j)],
                                want(i, j),
                                "{isa:?}, mapped {mapped}, {threads} threads: C({i},{j})"
                            );
                        }
                    }
                    for x in (0..guard).chain(guard + m * n..m * n + 2 * guard) {
                        assert!(c[x].is_nan(), "{isa:?}, mapped {mapped}: guard {x} written");
                    }
                }
            }
        }
    }
}
