//! The k-vector route: small products whose A rows and B columns are contiguous along k, read
//! where they are, with no packing.
//!
//! The unpacked outer-product kernels ([`direct`](super::direct)) need one operand contiguous
//! along m or n. **A·Bᵀ with both operands row-major** has neither: a linear layer `x·Wᵀ` with
//! its weights stored `[out, in]`, attention's `Q·Kᵀ`, any affine layout whose rows of A and
//! columns of B are contiguous along k. Such products used to be packed whatever their size.
//!
//! This route multiplies them in place: a tile of 3 rows × 4 columns of C holds 12 vector
//! accumulators over k (7 vector loads per 12 FMAs), then reduces each row's 4 accumulators into
//! one 4-lane vector (three `hadd`s) and writes `α·AB + β·C` for the 4 columns at once where
//! they are contiguous in C, through the same 4-lane arithmetic elsewhere (so an element's
//! result does not depend on its tile or thread). The k tail is read with masked loads in both
//! operands. B is walked in column blocks that fit half of L1d; the route takes products whose
//! A and B fit twice L1d together ([`fits`]).
//!
//! Ascend's NZ × ZN has the same shape with vectors a fractal column apart (each fractal row a
//! C0 run along k). A version of these kernels that took vectors any fixed distance apart was
//! measured slower in place than packed there (every vector load its own cache line at a
//! power-of-two distance: 64³ f32, 9.7 µs against 9.4 µs), so the route takes contiguous k only
//! and NZ stays on the packing route.

// the plan is shared; only x86-64 has the kernels that run it
#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

use super::block::Out;
use super::kernel::Element;
use super::view::Product;
use super::view::View;

/// Where each row of A (column of B, row or column of C) starts, from the operand's origin.
#[derive(Clone, Copy)]
pub(crate) enum Lines<'a> {
    /// Line `i` at `i·step`.
    Step(isize),
    /// Line `i` at `table[i]` (an axis map's offsets).
    Table(&'a [isize]),
}

impl Lines<'_> {
    /// The offset of line `i`.
    #[inline(always)]
    fn at(self, i: usize) -> isize {
        match self {
            Lines::Step(s) => i as isize * s,
            Lines::Table(t) => t[i],
        }
    }
    /// Whether lines `i .. i + 4` are consecutive elements.
    #[inline(always)]
    fn four_contiguous(self, i: usize) -> bool {
        match self {
            Lines::Step(s) => s == 1,
            Lines::Table(t) => t[i + 1] == t[i] + 1 && t[i + 2] == t[i] + 2 && t[i + 3] == t[i] + 3,
        }
    }
}

/// One input operand of the route: `lines` of `k` contiguous elements, element `p` of line `i`
/// at `origin + lines(i) + p`.
#[derive(Clone, Copy)]
pub(crate) struct KOperand<'a, T> {
    pub data: &'a [T],
    pub origin: isize,
    pub lines: Lines<'a>,
}

/// Whether the first `k` offsets of an axis are `0, 1, …, k − 1`.
fn contiguous(off: &[isize], k: usize) -> bool {
    off.len() >= k && off[..k].iter().enumerate().all(|(p, &o)| o == p as isize)
}

/// An operand `lines × k` (A as it is; B transposed: its columns are the lines) as the route
/// reads it, when its k axis is contiguous.
fn k_operand<'a, T>(
    v: &View<'a, T>,
    transposed: bool,
    strides: (isize, isize),
    k: usize,
) -> Option<KOperand<'a, T>> {
    let (line_step, k_step) = strides;
    match v.map {
        None => (k_step == 1 || k == 1).then_some(KOperand {
            data: v.data,
            origin: v.at.origin,
            lines: Lines::Step(line_step),
        }),
        Some(mp) => {
            let (lines, kaxis) = if transposed {
                (mp.cols, mp.rows)
            } else {
                (mp.rows, mp.cols)
            };
            contiguous(&kaxis.off, k).then_some(KOperand {
                data: v.data,
                origin: v.at.origin,
                lines: Lines::Table(&lines.off),
            })
        }
    }
}

/// A product the route can run, oriented so that C's columns are the lines of B.
pub(crate) struct Plan<'a, 'c, T> {
    pub m: usize,
    pub k: usize,
    pub n: usize,
    pub a: KOperand<'a, T>,
    pub b: KOperand<'a, T>,
    pub c: &'c mut [T],
    pub corigin: isize,
    pub crows: Lines<'a>,
    pub ccols: Lines<'a>,
}

/// Whether A and B of `mkn` fit the route's size rule: together in twice L1d
/// (`any_size`: [`Packing::Never`](super::Packing::Never)). Measured against packing (AVX2,
/// f32 A·Bᵀ, 48 KiB L1d): 64³ 6.9 µs against 8.4 µs packed, 128³ even, 256³ 0.9× packing's
/// speed.
pub(crate) fn fits([m, k, n]: [usize; 3], size: usize, any_size: bool) -> bool {
    any_size
        || m.saturating_add(n).saturating_mul(k).saturating_mul(size)
            <= 2 * crate::isa::Caches::get().l1d
}

/// The plan of a checked product whose A rows and B columns are contiguous along k, or `None`
/// (nothing touched) when they are not.
pub(crate) fn plan<'a, 'c, T>(
    [m, k, n]: [usize; 3],
    a: &View<'a, T>,
    b: &View<'a, T>,
    c: &'c mut Out<'a, T>,
) -> Option<Plan<'a, 'c, T>> {
    let ka = k_operand(a, false, (a.at.rs, a.at.cs), k)?;
    let kb = k_operand(b, true, (b.at.cs, b.at.rs), k)?;
    let (crows, ccols) = match c.cmap {
        None => (Lines::Step(c.sc.rs), Lines::Step(c.sc.cs)),
        Some(cm) => (Lines::Table(&cm.rows.off), Lines::Table(&cm.cols.off)),
    };
    // the 4 columns of a tile are stored at once where they are contiguous: orient so that C's
    // unit-stride axis (if any) is its columns (Cᵀ = Bᵀ·Aᵀ swaps the two operands' roles)
    let unit = |l: Lines<'_>, len: usize| match l {
        Lines::Step(s) => s == 1,
        Lines::Table(t) => len >= 2 && t[1] - t[0] == 1,
    };
    let swap = !unit(ccols, n) && unit(crows, m);
    let corigin = c.sc.origin;
    Some(if swap {
        Plan {
            m: n,
            k,
            n: m,
            a: kb,
            b: ka,
            c: &mut *c.c,
            corigin,
            crows: ccols,
            ccols: crows,
        }
    } else {
        Plan {
            m,
            k,
            n,
            a: ka,
            b: kb,
            c: &mut *c.c,
            corigin,
            crows,
            ccols,
        }
    })
}

/// Runs a checked product on the route when the instruction set is AVX2, its size fits
/// ([`fits`]) and its operands are contiguous along k; `false` (nothing touched) otherwise.
/// (The kernels are AVX2's; the AVX-512 level has no zmm version yet and packs.)
#[cfg(target_arch = "x86_64")]
pub(crate) fn try_run<T: Element + x86::Run>(p: &mut Product<'_, T, T, T>) -> bool {
    if p.isa == crate::isa::Isa::Avx2 {
        let any_size = p.packing == super::Packing::Never;
        if !fits(p.mkn, core::mem::size_of::<T>(), any_size) {
            return false;
        }
        let (alpha, beta) = (p.alpha, p.beta);
        let Some(plan) = plan(p.mkn, &p.a, &p.b, &mut p.c) else {
            return false;
        };
        // SAFETY: the front checked that AVX2 and FMA are available (`p.isa`); the plan comes
        // from a checked product.
        unsafe { T::run_avx2(plan, alpha, beta, p.threads) };
        return true;
    }
    false
}

/// See the x86-64 version: no kernels here.
#[cfg(not(target_arch = "x86_64"))]
pub(crate) fn try_run<T: Element>(p: &mut Product<'_, T, T, T>) -> bool {
    let _ = p;
    false
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    #![allow(clippy::needless_range_loop)] // register tiles read best as indexed loops

    use core::arch::x86_64::*;

    use super::super::direct::{Avx2D, Avx2S, Lanes};
    use super::super::kernel::Scalar;
    use super::{KOperand, Plan};

    /// The reduction and 4-lane C update of one AVX2 element type.
    pub(crate) trait Quad: Lanes {
        /// Four lanes of `E`.
        type Q: Copy;
        /// Lane `c` of the result is the sum of the lanes of `acc[c]`.
        ///
        /// # Safety
        /// AVX2.
        unsafe fn reduce4(acc: [Self::V; 4]) -> Self::Q;
        /// # Safety
        /// AVX2; `p` readable for 4 elements.
        unsafe fn qload(p: *const Self::E) -> Self::Q;
        /// # Safety
        /// AVX2; `p` writable for 4 elements.
        unsafe fn qstore(p: *mut Self::E, q: Self::Q);
        /// `a·b + c`.
        ///
        /// # Safety
        /// AVX2 and FMA.
        unsafe fn qfma(a: Self::Q, b: Self::Q, c: Self::Q) -> Self::Q;
        /// `a·b`.
        ///
        /// # Safety
        /// AVX2.
        unsafe fn qmul(a: Self::Q, b: Self::Q) -> Self::Q;
        /// `x` in every lane.
        ///
        /// # Safety
        /// AVX2.
        unsafe fn qsplat(x: Self::E) -> Self::Q;
        /// The four lanes.
        ///
        /// # Safety
        /// AVX2.
        unsafe fn lanes(q: Self::Q) -> [Self::E; 4];
        /// The vector of four lanes.
        ///
        /// # Safety
        /// AVX2.
        unsafe fn from_lanes(x: [Self::E; 4]) -> Self::Q;
    }

    impl Quad for Avx2S {
        type Q = __m128;
        #[inline(always)]
        unsafe fn reduce4(acc: [__m256; 4]) -> __m128 {
            // SAFETY: the caller guarantees AVX2.
            unsafe {
                // per 128-bit half: [Σ a0, Σ a1, Σ a2, Σ a3] of that half's lanes
                let h01 = _mm256_hadd_ps(acc[0], acc[1]);
                let h23 = _mm256_hadd_ps(acc[2], acc[3]);
                let h = _mm256_hadd_ps(h01, h23);
                _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps::<1>(h))
            }
        }
        #[inline(always)]
        unsafe fn qload(p: *const f32) -> __m128 {
            // SAFETY: the caller's contract.
            unsafe { _mm_loadu_ps(p) }
        }
        #[inline(always)]
        unsafe fn qstore(p: *mut f32, q: __m128) {
            // SAFETY: the caller's contract.
            unsafe { _mm_storeu_ps(p, q) }
        }
        #[inline(always)]
        unsafe fn qfma(a: __m128, b: __m128, c: __m128) -> __m128 {
            // SAFETY: the caller guarantees FMA.
            unsafe { _mm_fmadd_ps(a, b, c) }
        }
        #[inline(always)]
        unsafe fn qmul(a: __m128, b: __m128) -> __m128 {
            // SAFETY: the caller guarantees AVX2.
            unsafe { _mm_mul_ps(a, b) }
        }
        #[inline(always)]
        unsafe fn qsplat(x: f32) -> __m128 {
            // SAFETY: the caller guarantees AVX2.
            unsafe { _mm_set1_ps(x) }
        }
        #[inline(always)]
        unsafe fn lanes(q: __m128) -> [f32; 4] {
            // SAFETY: `__m128` and `[f32; 4]` have the same size, every bit pattern valid.
            unsafe { core::mem::transmute::<__m128, [f32; 4]>(q) }
        }
        #[inline(always)]
        unsafe fn from_lanes(x: [f32; 4]) -> __m128 {
            // SAFETY: the caller guarantees AVX2; `x` is 4 readable elements.
            unsafe { _mm_loadu_ps(x.as_ptr()) }
        }
    }

    impl Quad for Avx2D {
        type Q = __m256d;
        #[inline(always)]
        unsafe fn reduce4(acc: [__m256d; 4]) -> __m256d {
            // SAFETY: the caller guarantees AVX2.
            unsafe {
                // x = [a0₀₁, a1₀₁ | a0₂₃, a1₂₃], y = [a2₀₁, a3₀₁ | a2₂₃, a3₂₃]
                let x = _mm256_hadd_pd(acc[0], acc[1]);
                let y = _mm256_hadd_pd(acc[2], acc[3]);
                let hi_lo = _mm256_permute2f128_pd::<0x21>(x, y);
                let lo_hi = _mm256_blend_pd::<0b1100>(x, y);
                _mm256_add_pd(hi_lo, lo_hi)
            }
        }
        #[inline(always)]
        unsafe fn qload(p: *const f64) -> __m256d {
            // SAFETY: the caller's contract.
            unsafe { _mm256_loadu_pd(p) }
        }
        #[inline(always)]
        unsafe fn qstore(p: *mut f64, q: __m256d) {
            // SAFETY: the caller's contract.
            unsafe { _mm256_storeu_pd(p, q) }
        }
        #[inline(always)]
        unsafe fn qfma(a: __m256d, b: __m256d, c: __m256d) -> __m256d {
            // SAFETY: the caller guarantees FMA.
            unsafe { _mm256_fmadd_pd(a, b, c) }
        }
        #[inline(always)]
        unsafe fn qmul(a: __m256d, b: __m256d) -> __m256d {
            // SAFETY: the caller guarantees AVX2.
            unsafe { _mm256_mul_pd(a, b) }
        }
        #[inline(always)]
        unsafe fn qsplat(x: f64) -> __m256d {
            // SAFETY: the caller guarantees AVX2.
            unsafe { _mm256_set1_pd(x) }
        }
        #[inline(always)]
        unsafe fn lanes(q: __m256d) -> [f64; 4] {
            // SAFETY: `__m256d` and `[f64; 4]` have the same size, every bit pattern valid.
            unsafe { core::mem::transmute::<__m256d, [f64; 4]>(q) }
        }
        #[inline(always)]
        unsafe fn from_lanes(x: [f64; 4]) -> __m256d {
            // SAFETY: the caller guarantees AVX2; `x` is 4 readable elements.
            unsafe { _mm256_loadu_pd(x.as_ptr()) }
        }
    }

    /// The most columns of B in one block (the tile loops' tables of column starts).
    const JB: usize = 128;

    /// Rows (`R ≤ 3`) and columns (`C ≤ 4`) of one tile.
    struct TileAt<T> {
        /// Row `r` of A at `a[r]`, column `c` of B at `b[c]` (their first elements along k).
        a: [*const T; 3],
        b: [*const T; 4],
        /// C(i0 + r, j0) at `c[r]`; columns at `cc[c]` from there.
        c: [*mut T; 3],
        cc: [isize; 4],
        /// The tile's 4 columns are contiguous in C.
        quad: bool,
    }

    /// One tile of `R` rows and `C` columns over the whole of k: `nv` whole vectors along k, then a
    /// masked tail of `tail` elements.
    ///
    /// # Safety
    /// AVX2 and FMA; for `r < R`, `c < C` and `p < nv·LANES + tail`: `a[r] + p` and `b[c] + p`
    /// are elements of A and B; `c[r] + cc[c]` is an element of C, written by no one else.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile<Q: Quad, const R: usize, const C: usize>(
        t: &TileAt<Q::E>,
        nv: usize,
        tail: usize,
        alpha: Q::E,
        beta: Q::E,
    ) {
        // SAFETY: (whole body) every address is one the caller's contract names; the tail's
        // masked-off lanes are not accessed.
        unsafe {
            let mut acc = [[Q::zero(); 4]; R];
            // the offset along k of the current vector, the same in A's rows and B's columns
            let mut o = 0usize;
            for _ in 0..nv {
                let mut va = [Q::zero(); R];
                for r in 0..R {
                    va[r] = Q::load_full(t.a[r].add(o));
                }
                for c in 0..C {
                    let vb = Q::load_full(t.b[c].add(o));
                    for r in 0..R {
                        acc[r][c] = Q::fma(va[r], vb, acc[r][c]);
                    }
                }
                o += Q::LANES;
            }
            if tail > 0 {
                let mask = Q::mask(tail);
                let mut va = [Q::zero(); R];
                for r in 0..R {
                    va[r] = Q::load(mask, t.a[r].add(o));
                }
                for c in 0..C {
                    let vb = Q::load(mask, t.b[c].add(o));
                    for r in 0..R {
                        acc[r][c] = Q::fma(va[r], vb, acc[r][c]);
                    }
                }
            }
            let read_c = beta != <Q::E as Scalar>::ZERO;
            for r in 0..R {
                let sum = Q::reduce4(acc[r]);
                if C == 4 && t.quad {
                    let p = t.c[r];
                    let mut x = Q::qmul(Q::qsplat(alpha), sum);
                    if read_c {
                        x = Q::qfma(Q::qsplat(beta), Q::qload(p), x);
                    }
                    Q::qstore(p, x);
                } else {
                    // the same arithmetic as the quad, lane by lane: each element's result does
                    // not depend on the tile (or thread) that computed it
                    let mut old = [<Q::E as Scalar>::ZERO; 4];
                    if read_c {
                        for c in 0..C {
                            old[c] = *t.c[r].offset(t.cc[c]);
                        }
                    }
                    let mut x = Q::qmul(Q::qsplat(alpha), sum);
                    if read_c {
                        x = Q::qfma(Q::qsplat(beta), Q::from_lanes(old), x);
                    }
                    let x = Q::lanes(x);
                    for c in 0..C {
                        *t.c[r].offset(t.cc[c]) = x[c];
                    }
                }
            }
        }
    }

    /// The loop nest: blocks of B's columns that fit half of L1d, row groups of 3, tiles of 4
    /// columns.
    ///
    /// # Safety
    /// AVX2 and FMA; the plan's operands are checked: every element of A (`m × k`, through
    /// `a`), B (`k × n`, through `b`) and C (`m × n`) in its slice, C injective.
    #[inline(always)]
    unsafe fn nest<Q: Quad>(p: &Shared<'_, Q::E>, cols: core::ops::Range<usize>) {
        let Shared {
            m,
            k,
            a,
            b,
            cbase,
            corigin,
            crows,
            ccols,
            alpha,
            beta,
        } = *p;
        let cbase = cbase.0;
        let (nv, tail) = (k / Q::LANES, k % Q::LANES);
        let size = core::mem::size_of::<Q::E>();
        let l1 = crate::isa::Caches::get().l1d;
        // a block of B's columns in half of L1d, at most JB of them
        let jb = (l1 / 2 / (k * size).max(1)).clamp(4, JB) / 4 * 4;
        let line = |o: &KOperand<'_, Q::E>, i: usize| {
            o.data.as_ptr().wrapping_offset(o.origin + o.lines.at(i))
        };
        let n = cols.end;
        let mut bp = [b.data.as_ptr(); JB];
        let mut cc = [0isize; JB];
        let mut quad = [false; JB / 4];
        let mut j0 = cols.start;
        while j0 < n {
            let w = (n - j0).min(jb);
            // the block's columns: where each starts in B and in a row of C
            for q in 0..w {
                bp[q] = line(&b, j0 + q);
                cc[q] = ccols.at(j0 + q);
            }
            for g in 0..w / 4 {
                quad[g] = ccols.four_contiguous(j0 + 4 * g);
            }
            let mut i = 0;
            while i < m {
                let rows = (m - i).min(3);
                let mut crow = [cbase; 3];
                let mut arow = [a.data.as_ptr(); 3];
                for r in 0..rows {
                    arow[r] = line(&a, i + r);
                    crow[r] = cbase.wrapping_offset(corigin + crows.at(i + r));
                }
                let at = |j: usize, cols: usize| {
                    let mut bc = [bp[j]; 4];
                    let mut rel = [0isize; 4];
                    for q in 0..cols {
                        bc[q] = bp[j + q];
                        rel[q] = cc[j + q] - cc[j];
                    }
                    TileAt {
                        a: arow,
                        b: bc,
                        c: [
                            crow[0].wrapping_offset(cc[j]),
                            crow[1].wrapping_offset(cc[j]),
                            crow[2].wrapping_offset(cc[j]),
                        ],
                        cc: rel,
                        quad: cols == 4 && quad[j / 4],
                    }
                };
                let mut j = 0;
                if rows == 3 {
                    while j + 4 <= w {
                        // SAFETY: rows i .. i + 3 of A and C, columns j0 + j .. j0 + j + 4 of B
                        // and C are inside the operands (i + 3 ≤ m, j0 + j + 4 ≤ n); each line
                        // is contiguous along k (the plan checked every offset of the k axis),
                        // the last `tail` elements in the masked tail; the pointers were formed
                        // from the checked offsets of these elements.
                        unsafe { tile::<Q, 3, 4>(&at(j, 4), nv, tail, alpha, beta) };
                        j += 4;
                    }
                }
                while j < w {
                    let cols = (w - j).min(4);
                    let t = at(j, cols);
                    macro_rules! by_cols {
                        ($r:literal) => {
                            match cols {
                                1 => tile::<Q, $r, 1>(&t, nv, tail, alpha, beta),
                                2 => tile::<Q, $r, 2>(&t, nv, tail, alpha, beta),
                                3 => tile::<Q, $r, 3>(&t, nv, tail, alpha, beta),
                                _ => tile::<Q, $r, 4>(&t, nv, tail, alpha, beta),
                            }
                        };
                    }
                    // SAFETY: as for the whole tiles above, with `rows ≤ 3` rows (i + rows ≤ m)
                    // and `cols ≤ 4` columns (j0 + j + cols ≤ n).
                    unsafe {
                        match rows {
                            1 => by_cols!(1),
                            2 => by_cols!(2),
                            _ => by_cols!(3),
                        }
                    }
                    j += 4;
                }
                i += 3;
            }
            j0 += w;
        }
    }

    /// C's base pointer, shared by the threads of one call.
    #[derive(Clone, Copy)]
    struct CBase<T>(*mut T);
    // SAFETY: the threads of one call write disjoint column ranges of C (a checked, injective
    // operand), and the pointer does not outlive the call (the splitter returns when all parts
    // are done).
    unsafe impl<T: Send> Send for CBase<T> {}
    // SAFETY: as for Send; the pointer itself is only copied.
    unsafe impl<T: Send> Sync for CBase<T> {}

    /// A plan as its threads share it.
    #[derive(Clone, Copy)]
    struct Shared<'a, T> {
        m: usize,
        k: usize,
        a: KOperand<'a, T>,
        b: KOperand<'a, T>,
        cbase: CBase<T>,
        corigin: isize,
        crows: super::Lines<'a>,
        ccols: super::Lines<'a>,
        alpha: T,
        beta: T,
    }

    /// Runs a plan on the AVX2 kernels of `f32` or `f64`.
    pub(crate) trait Run: Scalar {
        /// Runs `p` on up to `threads` threads, each owning a range of C's columns (split at
        /// multiples of 4, so every element is computed by the same arithmetic whatever the
        /// thread count).
        ///
        /// # Safety
        /// AVX2 and FMA are available; the plan's operands are checked (see [`nest`]).
        unsafe fn run_avx2(p: Plan<'_, '_, Self>, alpha: Self, beta: Self, threads: usize);
    }

    /// [`Run::run_avx2`] for the kernels `Q`.
    ///
    /// # Safety
    /// As [`Run::run_avx2`].
    #[inline(always)]
    unsafe fn run_on<Q: Quad>(
        p: Plan<'_, '_, Q::E>,
        alpha: Q::E,
        beta: Q::E,
        threads: usize,
        one: unsafe fn(&Shared<'_, Q::E>, core::ops::Range<usize>),
    ) {
        let n = p.n;
        let shared = Shared {
            m: p.m,
            k: p.k,
            a: p.a,
            b: p.b,
            cbase: CBase(p.c.as_mut_ptr()),
            corigin: p.corigin,
            crows: p.crows,
            ccols: p.ccols,
            alpha,
            beta,
        };
        let units = n.div_ceil(4);
        let parts = threads.clamp(1, units.max(1));
        let cols = |t: usize| (units * t / parts * 4).min(n)..(units * (t + 1) / parts * 4).min(n);
        if parts == 1 {
            // SAFETY: forwarded contract; all columns on this thread.
            return unsafe { one(&shared, 0..n) };
        }
        let shared = &shared;
        super::super::threads::split(parts, &|t| {
            // SAFETY: forwarded contract; the parts own disjoint column ranges of C.
            unsafe { one(shared, cols(t)) }
        });
    }

    macro_rules! run_impl {
        ($t:ty, $q:ty) => {
            impl Run for $t {
                unsafe fn run_avx2(p: Plan<'_, '_, $t>, alpha: $t, beta: $t, threads: usize) {
                    /// # Safety
                    /// As [`nest`].
                    #[target_feature(enable = "avx2,fma")]
                    unsafe fn one(s: &Shared<'_, $t>, cols: core::ops::Range<usize>) {
                        // SAFETY: forwarded contract; the instruction set is enabled here.
                        unsafe { nest::<$q>(s, cols) }
                    }
                    // SAFETY: forwarded contract.
                    unsafe { run_on::<$q>(p, alpha, beta, threads, one) }
                }
            }
        };
    }
    run_impl!(f32, Avx2S);
    run_impl!(f64, Avx2D);
}
