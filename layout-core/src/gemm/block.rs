//! The BLIS loop nest: jc (NC) → pc (KC, pack B) → ic (MC, pack A) → jr (NR) → ir (MR) → kernel.

use std::vec::Vec;

use super::check::Strided;
use super::kernel::{Element, KernelInfo, MAX_TILE, Tile};
use super::maps::{AxisMap, Mapped};
use super::pack::{Source, pack};
use super::packed_b::PackedB;

/// A checked problem: every element (i, j) of each operand is in bounds (see `check_operand`),
/// C has no two elements at one location, and the shapes agree.
pub(crate) struct Problem<'a, T> {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub alpha: T,
    pub a: &'a [T],
    pub sa: Strided,
    pub b: &'a [T],
    pub sb: Strided,
    pub beta: T,
    pub c: &'a mut [T],
    pub sc: Strided,
    /// B already packed (then `b`/`sb` are unused, and C is never transposed).
    pub bpacked: Option<&'a PackedB<T>>,
    /// Operands of any affine layout: read through their axis maps, from `origin` of their
    /// `Strided` (whose strides are then unused).
    pub maps: [Option<Mapped<'a>>; 3],
}

/// A 64-byte-aligned stack tile for edge tiles.
#[repr(align(64))]
struct Scratch<T>([T; MAX_TILE]);

/// A buffer of `len` elements whose first element is 64-byte aligned (its contents are
/// whatever the previous call left; packing overwrites every element it hands to a kernel).
fn aligned_buf<T: Element>(store: &mut Vec<T>, len: usize) -> &mut [T] {
    let pad = 64 / core::mem::size_of::<T>();
    if store.len() < len + pad {
        store.resize(len + pad, T::ZERO);
    }
    let off = store.as_ptr().align_offset(64).min(pad);
    &mut store[off..off + len]
}

/// Runs `C ← α·A·B + β·C` on a checked problem with kernel `ki` on up to `threads` threads.
pub(crate) fn run<T: Element>(ki: &KernelInfo<T>, p: Problem<'_, T>, threads: usize) {
    let Problem {
        mut m,
        k,
        mut n,
        alpha,
        mut a,
        mut sa,
        mut b,
        mut sb,
        beta,
        c,
        mut sc,
        bpacked,
        maps: [mut amap, mut bmap, mut cmap],
    } = p;
    if m == 0 || n == 0 {
        return;
    }
    if k == 0 || alpha == T::ZERO {
        scale(m, n, beta, c, sc, cmap);
        return;
    }
    // The kernel vectorises along m and stores C columns directly when C's rows are unit
    // stride; for a row-major C compute Cᵀ = Bᵀ·Aᵀ instead. (A mapped C is judged by the
    // steps of its first runs.)
    let (crs, ccs) = match cmap {
        Some(cm) => (cm.rows.step(0), cm.cols.step(0)),
        None => (sc.rs, sc.cs),
    };
    if bpacked.is_none() && transposes(m, n, crs, ccs) {
        core::mem::swap(&mut m, &mut n);
        core::mem::swap(&mut a, &mut b);
        core::mem::swap(&mut sa, &mut sb);
        core::mem::swap(&mut amap, &mut bmap);
        amap = amap.map(Mapped::t);
        bmap = bmap.map(Mapped::t);
        cmap = cmap.map(Mapped::t);
        sa = Strided {
            origin: sa.origin,
            rs: sa.cs,
            cs: sa.rs,
        };
        sb = Strided {
            origin: sb.origin,
            rs: sb.cs,
            cs: sb.rs,
        };
        sc = Strided {
            origin: sc.origin,
            rs: sc.cs,
            cs: sc.rs,
        };
    }
    let ctx = Ctx {
        k,
        alpha,
        beta,
        asrc: Source {
            src: a,
            origin: sa.origin,
            sv: sa.rs,
            sk: sa.cs,
            map: amap,
        },
        bsrc: Source {
            src: b,
            origin: sb.origin,
            sv: sb.cs,
            sk: sb.rs,
            map: bmap.map(Mapped::t),
        },
        sc,
        cmap,
        c: CPtr(c.as_mut_ptr()),
        bpacked,
    };
    let threads = threads.max(1);
    // below ~64³ the threads cost more than they save
    if threads == 1 || m.saturating_mul(n).saturating_mul(k) < 64 * 64 * 64 {
        loops(ki, &ctx, 0..m, 0..n);
        return;
    }
    // split the larger of m, n into `threads` ranges at multiples of MR (NR) from 0, so every
    // C element is computed by the same tile, with the same k blocking, as with one thread
    // (a pre-packed B is laid out for the whole of n: split rows only)
    let (along_m, len, unit) = if m >= n || bpacked.is_some() {
        (true, m, ki.mr)
    } else {
        (false, n, ki.nr)
    };
    let units = len.div_ceil(unit);
    let parts = threads.min(units);
    // with the `rayon` feature every part runs on rayon's pool (its workers keep their packing
    // buffers between calls; the caller sleeps, so on a machine with as many workers as cores no
    // idle thread spins beside them); else part 0 runs on the calling thread (its buffers are
    // warm) and the others on threads started for this call
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
    #[cfg(feature = "rayon")]
    rayon::scope(|s| {
        for t in 0..parts {
            let (rows, cols) = part(t);
            s.spawn(move |_| loops(ki, ctx, rows, cols));
        }
    });
    #[cfg(not(feature = "rayon"))]
    std::thread::scope(|s| {
        for t in 1..parts {
            let (rows, cols) = part(t);
            s.spawn(move || loops(ki, ctx, rows, cols));
        }
        let (rows, cols) = part(0);
        loops(ki, ctx, rows, cols);
    });
}

/// Whether a product whose C has steps `crs` (down a column) and `ccs` (along a row) runs as
/// `Cᵀ = Bᵀ·Aᵀ`: the kernel vectorises along m, so C's contiguous dimension should be m.
pub(crate) fn transposes(m: usize, n: usize, crs: isize, ccs: isize) -> bool {
    let rs_eff = if m == 1 { 0 } else { crs.unsigned_abs() };
    let cs_eff = if n == 1 { 0 } else { ccs.unsigned_abs() };
    crs != 1 && (ccs == 1 || rs_eff > cs_eff)
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
struct Ctx<'a, T> {
    k: usize,
    alpha: T,
    beta: T,
    asrc: Source<'a, T>,
    bsrc: Source<'a, T>,
    sc: Strided,
    cmap: Option<Mapped<'a>>,
    c: CPtr<T>,
    bpacked: Option<&'a PackedB<T>>,
}

/// The five loops over rows `rows` and columns `cols` of C.
fn loops<T: Element>(
    ki: &KernelInfo<T>,
    ctx: &Ctx<'_, T>,
    rows: core::ops::Range<usize>,
    cols: core::ops::Range<usize>,
) {
    let (mr, nr, k) = (ki.mr, ki.nr, ctx.k);
    let (m, n) = (rows.len(), cols.len());
    let kc_max = ki.kc.min(k);
    let mc_max = ki.mc.min(m.div_ceil(mr) * mr);
    let nc_max = ki.nc.min(n.div_ceil(nr) * nr);
    T::with_buffers(|astore, bstore| {
        let abuf = aligned_buf(astore, mc_max * kc_max);
        let bbuf = aligned_buf(
            bstore,
            if ctx.bpacked.is_some() {
                0
            } else {
                nc_max * kc_max
            },
        );
        blocks(ki, ctx, rows, cols, abuf, bbuf);
    });
}

/// The loops of [`loops`] with its packing buffers.
fn blocks<T: Element>(
    ki: &KernelInfo<T>,
    ctx: &Ctx<'_, T>,
    rows: core::ops::Range<usize>,
    cols: core::ops::Range<usize>,
    abuf: &mut [T],
    bbuf: &mut [T],
) {
    let (mr, nr, k, sc) = (ki.mr, ki.nr, ctx.k, ctx.sc);
    let (alpha, beta) = (ctx.alpha, ctx.beta);
    let cptr = ctx.c.0;
    let mut scratch = Scratch([T::ZERO; MAX_TILE]);
    debug_assert!(mr * nr <= MAX_TILE);

    for jc in cols.clone().step_by(ki.nc) {
        let ncb = ki.nc.min(cols.end - jc);
        for pc in (0..k).step_by(ki.kc) {
            let kcb = ki.kc.min(k - pc);
            if ctx.bpacked.is_none() {
                pack(bbuf, ctx.bsrc, jc, pc, ncb, kcb, nr);
            }
            let beta_pc = if pc == 0 { beta } else { T::ONE };
            for ic in rows.clone().step_by(ki.mc) {
                let mcb = ki.mc.min(rows.end - ic);
                pack(abuf, ctx.asrc, ic, pc, mcb, kcb, mr);
                for jr in (0..ncb).step_by(nr) {
                    let nrb = nr.min(ncb - jr);
                    let bp = match ctx.bpacked {
                        Some(pb) => pb.panel(jc + jr, pc, kcb).as_ptr(),
                        None => bbuf[jr * kcb..(jr + nr) * kcb].as_ptr(),
                    };
                    for ir in (0..mcb).step_by(mr) {
                        let mrb = mr.min(mcb - ir);
                        let ap = abuf[ir * kcb..(ir + mr) * kcb].as_ptr();
                        let (i0, j0) = (ic + ir, jc + jr);
                        // where the tile's corner is and its strides, when C runs
                        // arithmetically over the whole tile
                        let direct = match ctx.cmap {
                            None => Some((
                                sc.origin + i0 as isize * sc.rs + j0 as isize * sc.cs,
                                sc.rs,
                                sc.cs,
                            )),
                            Some(cm) => (cm.rows.run[i0] as usize >= mr
                                && cm.cols.run[j0] as usize >= nr)
                                .then(|| {
                                    (
                                        sc.origin + cm.rows.off[i0] + cm.cols.off[j0],
                                        cm.rows.step(i0),
                                        cm.cols.step(j0),
                                    )
                                }),
                        };
                        if let (Some((corner, rsc, csc)), true) = (direct, mrb == mr && nrb == nr) {
                            let tile = Tile {
                                k: kcb,
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
                            };
                            // SAFETY: `ap`/`bp` are subslices of MR·kcb / NR·kcb packed elements;
                            // the full MR×NR tile lies inside C (i0 + MR ≤ m, j0 + NR ≤ n) at
                            // `corner + i·rsc + j·csc` (C's runs cover the tile); the kernel's
                            // ISA was checked available when `ki` was chosen.
                            unsafe { (ki.ukr)(&tile) };
                        } else {
                            let tile = Tile {
                                k: kcb,
                                alpha,
                                beta: T::ZERO,
                                a: ap,
                                b: bp,
                                c: scratch.0.as_mut_ptr(),
                                rsc: 1,
                                csc: mr as isize,
                            };
                            // SAFETY: as above for a and b; C is the MAX_TILE ≥ MR·NR scratch
                            // tile (column-major, leading dimension MR), not read as β = 0.
                            unsafe { (ki.ukr)(&tile) };
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
                                        None => merge(cptr, col, i0, sc.rs, x, beta_pc),
                                        Some(cm) => {
                                            merge_mapped(cptr, col, cm.rows, i0, x, beta_pc)
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

/// `C[col + (i0 + i)·rs] ← x[i] + β·C[…]` for the rows of one tile column.
///
/// # Safety
/// Every `col + (i0 + i)·rs` (`i < x.len()`) is an element of C's buffer at `c`, not accessed by
/// another thread.
#[inline(always)]
unsafe fn merge<T: Element>(c: *mut T, col: isize, i0: usize, rs: isize, x: &[T], beta: T) {
    for (i, &x) in x.iter().enumerate() {
        let at = col + (i0 + i) as isize * rs;
        // SAFETY: the caller's contract.
        unsafe {
            let q = c.offset(at);
            *q = if beta == T::ZERO {
                x
            } else if beta == T::ONE {
                *q + x
            } else {
                *q * beta + x
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
unsafe fn merge_mapped<T: Element>(
    c: *mut T,
    col: isize,
    rows: &AxisMap,
    i0: usize,
    x: &[T],
    beta: T,
) {
    let offs = &rows.off[i0..i0 + x.len()];
    if beta == T::ZERO {
        for (&o, &x) in offs.iter().zip(x) {
            // SAFETY: the caller's contract.
            unsafe { *c.offset(col + o) = x };
        }
    } else if beta == T::ONE {
        for (&o, &x) in offs.iter().zip(x) {
            // SAFETY: the caller's contract.
            unsafe { *c.offset(col + o) = *c.offset(col + o) + x };
        }
    } else {
        for (&o, &x) in offs.iter().zip(x) {
            // SAFETY: the caller's contract.
            unsafe { *c.offset(col + o) = *c.offset(col + o) * beta + x };
        }
    }
}

/// `C ← β·C` (β = 0 writes zeros without reading C): the whole of a product with α = 0 or
/// k = 0 (see the module docs of `gemm`).
pub(crate) fn scale<T: Element>(
    m: usize,
    n: usize,
    beta: T,
    c: &mut [T],
    sc: Strided,
    cmap: Option<Mapped<'_>>,
) {
    if beta == T::ONE {
        return;
    }
    for j in 0..n {
        for i in 0..m {
            let at = match cmap {
                None => sc.origin + i as isize * sc.rs + j as isize * sc.cs,
                Some(cm) => sc.origin + cm.rows.off[i] + cm.cols.off[j],
            } as usize;
            c[at] = if beta == T::ZERO {
                T::ZERO
            } else {
                c[at] * beta
            };
        }
    }
}
