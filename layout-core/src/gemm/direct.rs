//! The unpacked path for small problems: AVX-512 and AVX2 kernels that read A and B where they
//! are.
//!
//! Packing costs `O(mk + kn)` copies to save cache misses and TLB walks on `O(mnk)` work; below
//! a few hundred along each side the operands already sit in L1/L2 and the copies, the buffer
//! management and the zero-padded edge tiles cost more than they save (at 64³ f32 the blocked
//! path reached 55 % of the FMA peak while libxsmm's JIT kernels, which do not pack, reached
//! 99 %). This path is the one libxsmm, OpenBLAS's small-matrix kernels and BLIS's "sup" kernels
//! take (see `reference/gemm.md` §6):
//!
//! - A is read in place when its rows are unit stride (a column-major A, or a row-major B of the
//!   transposed problem `Cᵀ = Bᵀ·Aᵀ`, chosen when C is row-major): one vector load per MR/16
//!   rows and k step, straight from A's columns;
//! - B is read in place through scalar broadcasts at any strides;
//! - the C tile (MR × NR = 32 × 12 f32, 32 × 6 f64: 24 accumulators) is held in registers for
//!   the whole k loop (AVX2: 16 × 6 f32 / 8 × 6 f64, 12 accumulators of 16 registers), then
//!   `α·AB + β·C` is written once with masked loads and stores (AVX-512 mask registers, AVX2
//!   `vmaskmov` on the last vector only), so the m edge costs no scalar loop and no stack tile,
//!   and the n edge runs a kernel of exactly that width (every `(MV, NR)` is its own
//!   instantiation, selected by a `match`).
//!
//! β = 0 never reads C. Every address touched is an element of an operand (the masks disable the
//! lanes past the m edge; masked-off lanes are not accessed).

#![allow(clippy::needless_range_loop)] // register tiles read best as indexed loops

use core::arch::x86_64::*;

use super::check::Strided;
use super::kernel::{Direct, Element, Scalar};

/// The k block of the unpacked kernels: C accumulates between blocks, so an `m × DIRECT_KC` block
/// of A is what must stay in L2, and a tile that walks k touches at most this many pages of A
/// (one per step when A's columns are a page or more apart: 4096 × 4096 × 1 f32 ran at 0.56 of
/// nalgebra's matrix × vector before k was blocked).
const DIRECT_KC: usize = 256;

/// Runs `d` on the unpacked kernels of `K` (whose instruction set the caller has checked):
/// the body of [`Element::unpacked`] for one element type and instruction set.
///
/// # Safety
/// The instruction set of `K` is available.
#[inline]
pub(crate) unsafe fn run<K: Kernels>(d: Direct<'_, K::E>, threads: usize, any_size: bool) -> bool {
    // SAFETY: forwarded contract; the operands of a `Direct` are checked in bounds.
    unsafe { run_typed::<K>(d, threads, any_size) }
}

/// The fused tiny route (`front::strided`, every extent at most `front::TINY`, m, n ≥ 2): the
/// outer-product tiles [`run_typed`] would run, without its thread split and k blocks (one
/// thread and one k block at these sizes) and, for a product of one tile, without the loop
/// nest. `false` (nothing touched) where [`run_typed`] would take the dot-product tiles or
/// decline (the strides), so that the route that follows decides as before.
///
/// # Safety
/// The instruction set of `K` is available; the operands of `d` are checked in bounds.
#[inline]
pub(crate) unsafe fn tiny<K: Kernels>(d: Direct<'_, K::E>) -> bool {
    debug_assert!(d.k <= DIRECT_KC && d.m >= 2 && d.n >= 2);
    // `run_typed`'s dot-product case and its declines are left to it
    let Orient::Outer(s) = orient::<K>(d, false) else {
        return false;
    };
    // SAFETY: the instruction set (caller); A and C rows unit stride; operands checked.
    unsafe { K::tiny(s) };
    true
}

/// The vector operations of one element type on one instruction set, with masks for the m edge
/// (implemented by zero-sized markers: `Avx512S`/`Avx512D`, `Avx2S`/`Avx2D`). Every method is
/// `#[inline(always)]`, compiled inside a `#[target_feature]` kernel.
pub(crate) trait Lanes {
    /// The element.
    type E: Element;
    /// One vector register.
    type V: Copy;
    /// A lane mask.
    type M: Copy;
    /// Elements per vector.
    const LANES: usize;
    /// The mask of the first `n` lanes (`n ≤ LANES`).
    ///
    /// # Safety
    /// The instruction set is available.
    unsafe fn mask(n: usize) -> Self::M;
    /// # Safety
    /// The instruction set is available; the enabled lanes of `p` are readable.
    unsafe fn load(m: Self::M, p: *const Self::E) -> Self::V;
    /// # Safety
    /// The instruction set is available; `LANES` elements from `p` are readable.
    unsafe fn load_full(p: *const Self::E) -> Self::V;
    /// # Safety
    /// The instruction set is available; the enabled lanes of `p` are writable.
    unsafe fn store(m: Self::M, p: *mut Self::E, v: Self::V);
    /// # Safety
    /// The instruction set is available; `LANES` elements from `p` are writable.
    unsafe fn store_full(p: *mut Self::E, v: Self::V);
    /// # Safety
    /// The instruction set is available.
    unsafe fn splat(x: Self::E) -> Self::V;
    /// # Safety
    /// The instruction set is available.
    unsafe fn zero() -> Self::V;
    /// `a·b + c`.
    /// # Safety
    /// The instruction set is available.
    unsafe fn fma(a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// `a·b`.
    /// # Safety
    /// The instruction set is available.
    unsafe fn vmul(a: Self::V, b: Self::V) -> Self::V;
    /// The sum of the lanes.
    /// # Safety
    /// The instruction set is available.
    unsafe fn sum(v: Self::V) -> Self::E;
}

/// The AVX-512 markers.
pub(crate) struct Avx512S;
/// See [`Avx512S`].
pub(crate) struct Avx512D;
/// The AVX2 + FMA markers.
pub(crate) struct Avx2S;
/// See [`Avx2S`].
pub(crate) struct Avx2D;

/// `Lanes` for one AVX-512 element type from its intrinsics.
macro_rules! lanes512 {
    ($name:ident, $t:ty, $v:ty, $m:ty, $lanes:literal, $maskz_load:ident, $mask_store:ident,
     $loadu:ident, $storeu:ident, $set1:ident, $zero:ident, $fmadd:ident, $mul:ident,
     $reduce:ident) => {
        impl Lanes for $name {
            type E = $t;
            type V = $v;
            type M = $m;
            const LANES: usize = $lanes;
            #[inline(always)]
            unsafe fn mask(n: usize) -> $m {
                if n >= $lanes { !0 } else { (1 << n) - 1 }
            }
            #[inline(always)]
            unsafe fn load(m: $m, p: *const $t) -> $v {
                // SAFETY: the caller's contract; masked-off lanes are not accessed.
                unsafe { $maskz_load(m, p) }
            }
            #[inline(always)]
            unsafe fn load_full(p: *const $t) -> $v {
                // SAFETY: the caller's contract.
                unsafe { $loadu(p) }
            }
            #[inline(always)]
            unsafe fn store(m: $m, p: *mut $t, v: $v) {
                // SAFETY: the caller's contract; masked-off lanes are not accessed.
                unsafe { $mask_store(p, m, v) }
            }
            #[inline(always)]
            unsafe fn store_full(p: *mut $t, v: $v) {
                // SAFETY: the caller's contract.
                unsafe { $storeu(p, v) }
            }
            #[inline(always)]
            unsafe fn splat(x: $t) -> $v {
                // SAFETY: the caller guarantees AVX-512F.
                unsafe { $set1(x) }
            }
            #[inline(always)]
            unsafe fn zero() -> $v {
                // SAFETY: the caller guarantees AVX-512F.
                unsafe { $zero() }
            }
            #[inline(always)]
            unsafe fn fma(a: $v, b: $v, c: $v) -> $v {
                // SAFETY: the caller guarantees AVX-512F.
                unsafe { $fmadd(a, b, c) }
            }
            #[inline(always)]
            unsafe fn vmul(a: $v, b: $v) -> $v {
                // SAFETY: the caller guarantees AVX-512F.
                unsafe { $mul(a, b) }
            }
            #[inline(always)]
            unsafe fn sum(v: $v) -> $t {
                // SAFETY: the caller guarantees AVX-512F.
                unsafe { $reduce(v) }
            }
        }
    };
}

lanes512!(
    Avx512S,
    f32,
    __m512,
    __mmask16,
    16,
    _mm512_maskz_loadu_ps,
    _mm512_mask_storeu_ps,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    _mm512_set1_ps,
    _mm512_setzero_ps,
    _mm512_fmadd_ps,
    _mm512_mul_ps,
    _mm512_reduce_add_ps
);
lanes512!(
    Avx512D,
    f64,
    __m512d,
    __mmask8,
    8,
    _mm512_maskz_loadu_pd,
    _mm512_mask_storeu_pd,
    _mm512_loadu_pd,
    _mm512_storeu_pd,
    _mm512_set1_pd,
    _mm512_setzero_pd,
    _mm512_fmadd_pd,
    _mm512_mul_pd,
    _mm512_reduce_add_pd
);

/// `Lanes` for one AVX2 element type: masks are vectors of all-ones lanes (`vmaskmov`).
macro_rules! lanes256 {
    ($name:ident, $t:ty, $v:ty, $lanes:literal, $mask:expr, $maskload:ident, $maskstore:ident,
     $loadu:ident, $storeu:ident, $set1:ident, $zero:ident, $fmadd:ident, $mul:ident,
     $sum:expr) => {
        impl Lanes for $name {
            type E = $t;
            type V = $v;
            type M = __m256i;
            const LANES: usize = $lanes;
            #[inline(always)]
            unsafe fn mask(n: usize) -> __m256i {
                // SAFETY: the caller guarantees AVX2.
                unsafe { $mask(n.min($lanes)) }
            }
            #[inline(always)]
            unsafe fn load(m: __m256i, p: *const $t) -> $v {
                // SAFETY: the caller's contract; masked-off lanes are not accessed.
                unsafe { $maskload(p, m) }
            }
            #[inline(always)]
            unsafe fn load_full(p: *const $t) -> $v {
                // SAFETY: the caller's contract.
                unsafe { $loadu(p) }
            }
            #[inline(always)]
            unsafe fn store(m: __m256i, p: *mut $t, v: $v) {
                // SAFETY: the caller's contract; masked-off lanes are not accessed.
                unsafe { $maskstore(p, m, v) }
            }
            #[inline(always)]
            unsafe fn store_full(p: *mut $t, v: $v) {
                // SAFETY: the caller's contract.
                unsafe { $storeu(p, v) }
            }
            #[inline(always)]
            unsafe fn splat(x: $t) -> $v {
                // SAFETY: the caller guarantees AVX2.
                unsafe { $set1(x) }
            }
            #[inline(always)]
            unsafe fn zero() -> $v {
                // SAFETY: the caller guarantees AVX2.
                unsafe { $zero() }
            }
            #[inline(always)]
            unsafe fn fma(a: $v, b: $v, c: $v) -> $v {
                // SAFETY: the caller guarantees AVX2 and FMA.
                unsafe { $fmadd(a, b, c) }
            }
            #[inline(always)]
            unsafe fn vmul(a: $v, b: $v) -> $v {
                // SAFETY: the caller guarantees AVX2.
                unsafe { $mul(a, b) }
            }
            #[inline(always)]
            unsafe fn sum(v: $v) -> $t {
                // SAFETY: the caller guarantees AVX2.
                unsafe { $sum(v) }
            }
        }
    };
}

/// The AVX2 mask of the first `n ≤ 8` of 8 `f32` lanes.
///
/// # Safety
/// AVX2.
#[inline(always)]
unsafe fn mask8(n: usize) -> __m256i {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        _mm256_cmpgt_epi32(
            _mm256_set1_epi32(n as i32),
            _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
        )
    }
}

/// The AVX2 mask of the first `n ≤ 4` of 4 `f64` lanes.
///
/// # Safety
/// AVX2.
#[inline(always)]
unsafe fn mask4(n: usize) -> __m256i {
    // SAFETY: the caller guarantees AVX2.
    unsafe { _mm256_cmpgt_epi64(_mm256_set1_epi64x(n as i64), _mm256_setr_epi64x(0, 1, 2, 3)) }
}

/// The sum of 8 `f32` lanes.
///
/// # Safety
/// AVX2.
#[inline(always)]
unsafe fn sum8(v: __m256) -> f32 {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let x = _mm_add_ps(x, _mm_movehl_ps(x, x));
        let x = _mm_add_ss(x, _mm_shuffle_ps(x, x, 1));
        _mm_cvtss_f32(x)
    }
}

/// The sum of 4 `f64` lanes.
///
/// # Safety
/// AVX2.
#[inline(always)]
unsafe fn sum4(v: __m256d) -> f64 {
    // SAFETY: the caller guarantees AVX2.
    unsafe {
        let x = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
        let x = _mm_add_sd(x, _mm_unpackhi_pd(x, x));
        _mm_cvtsd_f64(x)
    }
}

lanes256!(
    Avx2S,
    f32,
    __m256,
    8,
    mask8,
    _mm256_maskload_ps,
    _mm256_maskstore_ps,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_set1_ps,
    _mm256_setzero_ps,
    _mm256_fmadd_ps,
    _mm256_mul_ps,
    sum8
);
lanes256!(
    Avx2D,
    f64,
    __m256d,
    4,
    mask4,
    _mm256_maskload_pd,
    _mm256_maskstore_pd,
    _mm256_loadu_pd,
    _mm256_storeu_pd,
    _mm256_set1_pd,
    _mm256_setzero_pd,
    _mm256_fmadd_pd,
    _mm256_mul_pd,
    sum4
);

/// One tile of `rows ≤ MV·LANES` rows (the last vector masked) and exactly NR columns.
#[derive(Clone, Copy)]
pub(crate) struct TileArgs<T> {
    k: usize,
    /// A(i0, 0); A(i, p) = a + (i − i0) + p·lda
    a: *const T,
    lda: isize,
    /// B(0, j0); B(p, j) = b + p·rsb + (j − j0)·csb
    b: *const T,
    rsb: isize,
    csb: isize,
    /// C(i0, j0); C(i, j) = c + (i − i0) + (j − j0)·ldc
    c: *mut T,
    ldc: isize,
    rows: usize,
    alpha: T,
    beta: T,
}

impl<T: Copy> TileArgs<T> {
    /// The whole of `s` as one tile (its m rows, its n columns: the caller's tile).
    #[inline(always)]
    fn whole(s: &Shape<T>) -> TileArgs<T> {
        TileArgs {
            k: s.k,
            a: s.a,
            lda: s.sa.cs,
            b: s.b,
            rsb: s.sb.rs,
            csb: s.sb.cs,
            c: s.c,
            ldc: s.sc.cs,
            rows: s.m,
            alpha: s.alpha,
            beta: s.beta,
        }
    }
}

/// The tile body.
///
/// # Safety
/// The instruction set of `L`; `rows ≤ MV·LANES`, and every A(i, p), B(p, j), C(i, j) of the
/// tile (i < rows, p < k, j < NR) is an element of its operand.
#[inline(always)]
unsafe fn tile<L: Lanes, const MV: usize, const NR: usize>(t: TileArgs<L::E>) {
    // the k loop compiled twice, so that whether the last vector is whole is not a branch
    // inside it (measured: a 5 % loss at 64³ f32 on AVX-512 with the test in the loop)
    // SAFETY: forwarded contract.
    unsafe {
        if t.rows == MV * L::LANES {
            tile_body::<L, MV, NR, true>(t)
        } else {
            tile_body::<L, MV, NR, false>(t)
        }
    }
}

/// [`tile`]'s body; `FULL`: every vector is whole (`rows == MV·LANES`), else the last one is
/// masked.
///
/// # Safety
/// As [`tile`]; `FULL` only when `rows == MV·LANES`.
#[inline(always)]
unsafe fn tile_body<L: Lanes, const MV: usize, const NR: usize, const FULL: bool>(
    t: TileArgs<L::E>,
) {
    // SAFETY: (whole body) the caller's contract bounds every address; the mask covers the m
    // edge of the last vector, the others are whole.
    unsafe {
        let mask = L::mask(t.rows - (MV - 1) * L::LANES);
        let whole = |v: usize| FULL || v + 1 < MV;
        let mut acc = [[L::zero(); MV]; NR];
        let mut a = t.a;
        // B's row p through bases three columns apart, each advanced along k on its own: a
        // broadcast's address is a base plus 0, 1 or 2 column strides (one addressing mode),
        // not the end of a chain of additions across the tile (LLVM made one: 11 dependent
        // adds per k step bounded a one-vector 12-column tile, whose 12 FMAs issue in 6
        // cycles, at about half speed). Bases past the tile are computed, never read
        // (`wrapping_offset`).
        const BASES: usize = 4;
        let groups = NR.div_ceil(3);
        debug_assert!(groups <= BASES);
        let mut bases = [t.b; BASES];
        for q in 1..groups {
            bases[q] = t.b.wrapping_offset(3 * q as isize * t.csb);
        }
        for _ in 0..t.k {
            let mut av = [L::zero(); MV];
            for v in 0..MV {
                av[v] = if whole(v) {
                    L::load_full(a.add(v * L::LANES))
                } else {
                    L::load(mask, a.add(v * L::LANES))
                };
            }
            for j in 0..NR {
                // B(p, j): an element of B (the caller's contract)
                let bj = L::splat(*bases[j / 3].wrapping_offset((j % 3) as isize * t.csb));
                for v in 0..MV {
                    acc[j][v] = L::fma(av[v], bj, acc[j][v]);
                }
            }
            a = a.offset(t.lda);
            for base in bases.iter_mut().take(groups) {
                *base = base.wrapping_offset(t.rsb);
            }
        }
        let alpha = L::splat(t.alpha);
        let read_c = t.beta != <L::E as Scalar>::ZERO;
        let beta = L::splat(t.beta);
        for j in 0..NR {
            let col = t.c.offset(j as isize * t.ldc);
            for v in 0..MV {
                let p = col.add(v * L::LANES);
                let mut r = L::vmul(alpha, acc[j][v]);
                if read_c {
                    let old = if whole(v) {
                        L::load_full(p)
                    } else {
                        L::load(mask, p)
                    };
                    r = L::fma(beta, old, r);
                }
                if whole(v) {
                    L::store_full(p, r)
                } else {
                    L::store(mask, p, r)
                }
            }
        }
    }
}

/// `by_nr::<L, MV>(nr, t)`: the tile of exactly `nr` columns (one instantiation per width).
macro_rules! by_nr {
    ($name:ident, [$($nrs:literal)*]) => {
        /// The tile of `nr` columns.
        ///
        /// # Safety
        /// As [`tile`] with NR = `nr`.
        #[inline(always)]
        unsafe fn $name<L: Lanes, const MV: usize>(nr: usize, t: TileArgs<L::E>) {
            // SAFETY: forwarded contract.
            unsafe {
                match nr {
                    $($nrs => tile::<L, MV, $nrs>(t),)*
                    _ => unreachable!("a tile of {nr} columns"),
                }
            }
        }
    };
}
by_nr!(by_nr_12, [1 2 3 4 5 6 7 8 9 10 11 12]);
by_nr!(by_nr_8, [1 2 3 4 5 6 7 8]);
by_nr!(by_nr_6, [1 2 3 4 5 6]);

/// The shape of an unpacked call, after orientation.
#[derive(Clone, Copy)]
pub(crate) struct Shape<T> {
    m: usize,
    k: usize,
    n: usize,
    alpha: T,
    beta: T,
    a: *const T,
    sa: Strided,
    b: *const T,
    sb: Strided,
    c: *mut T,
    sc: Strided,
}

/// The outer-product loop nest: j blocks of `NR` columns, i blocks of `MV·LANES` rows, each
/// tile dispatched on its vector count (`by_mv`) and width.
///
/// # Safety
/// The instruction set of `L`; A and C rows unit stride; every element of the operands in
/// bounds; `a`, `b`, `c` point at element (0, 0).
#[inline(always)]
unsafe fn outer<L: Lanes, const MV: usize, const NR: usize>(
    s: Shape<L::E>,
    by_mv: unsafe fn(usize, usize, TileArgs<L::E>),
) {
    let mr = MV * L::LANES;
    // SAFETY: offsets address elements (i, j), i < m, j < n, in bounds by the caller's contract.
    unsafe {
        let mut j = 0;
        while j < s.n {
            let nr = (s.n - j).min(NR);
            let mut i = 0;
            while i < s.m {
                let rows = (s.m - i).min(mr);
                let t = TileArgs {
                    k: s.k,
                    a: s.a.add(i),
                    lda: s.sa.cs,
                    b: s.b.offset(j as isize * s.sb.cs),
                    rsb: s.sb.rs,
                    csb: s.sb.cs,
                    c: s.c.offset(i as isize + j as isize * s.sc.cs),
                    ldc: s.sc.cs,
                    rows,
                    alpha: s.alpha,
                    beta: s.beta,
                };
                by_mv(rows.div_ceil(L::LANES), nr, t);
                i += mr;
            }
            j += NR;
        }
    }
}

/// One dot-product tile: `R` rows of A (unit column stride) against `C` columns of B (unit row
/// stride), vectorised along k with a masked tail, reduced once, written with `α`, `β`.
///
/// # Safety
/// The instruction set of `L`; every A(i, p), B(p, j), C(i, j) of the tile (i < R, j < C,
/// p < k) in bounds.
#[inline(always)]
unsafe fn dot_tile<L: Lanes, const R: usize, const C: usize>(
    s: &Shape<L::E>,
    i0: usize,
    j0: usize,
) {
    // SAFETY: (whole body) the caller's contract bounds every address; masks cover the k tail.
    unsafe {
        let a = s.a.offset(i0 as isize * s.sa.rs);
        let b = s.b.offset(j0 as isize * s.sb.cs);
        let mut acc = [[L::zero(); C]; R];
        let mut p = 0;
        while p + L::LANES <= s.k {
            let mut va = [L::zero(); R];
            for r in 0..R {
                va[r] = L::load_full(a.offset(r as isize * s.sa.rs).add(p));
            }
            for c in 0..C {
                let vb = L::load_full(b.offset(c as isize * s.sb.cs).add(p));
                for r in 0..R {
                    acc[r][c] = L::fma(va[r], vb, acc[r][c]);
                }
            }
            p += L::LANES;
        }
        if p < s.k {
            let mask = L::mask(s.k - p);
            let mut va = [L::zero(); R];
            for r in 0..R {
                va[r] = L::load(mask, a.offset(r as isize * s.sa.rs).add(p));
            }
            for c in 0..C {
                let vb = L::load(mask, b.offset(c as isize * s.sb.cs).add(p));
                for r in 0..R {
                    acc[r][c] = L::fma(va[r], vb, acc[r][c]);
                }
            }
        }
        let read_c = s.beta != <L::E as Scalar>::ZERO;
        for r in 0..R {
            for c in 0..C {
                let at =
                    s.c.offset((i0 + r) as isize * s.sc.rs + (j0 + c) as isize * s.sc.cs);
                let v = L::sum(acc[r][c]);
                *at = if read_c {
                    s.alpha * v + s.beta * *at
                } else {
                    s.alpha * v
                };
            }
        }
    }
}

/// The dot-product loop nest over 4 × 4 tiles (edges of 1–3 rows or columns).
///
/// # Safety
/// As [`dot_tile`] for every tile: A with unit column stride, B with unit row stride, operands
/// in bounds; `a`, `b`, `c` point at element (0, 0).
#[inline(always)]
unsafe fn dot<L: Lanes>(s: Shape<L::E>) {
    macro_rules! cols {
        ($r:literal, $nc:expr, $i:expr, $j:expr) => {
            match $nc {
                1 => dot_tile::<L, $r, 1>(&s, $i, $j),
                2 => dot_tile::<L, $r, 2>(&s, $i, $j),
                3 => dot_tile::<L, $r, 3>(&s, $i, $j),
                _ => dot_tile::<L, $r, 4>(&s, $i, $j),
            }
        };
    }
    // SAFETY: every tile lies inside the m × n of the caller's contract.
    unsafe {
        let mut i = 0;
        while i < s.m {
            let nr = (s.m - i).min(4);
            let mut j = 0;
            while j < s.n {
                let nc = (s.n - j).min(4);
                match nr {
                    1 => cols!(1, nc, i, j),
                    2 => cols!(2, nc, i, j),
                    3 => cols!(3, nc, i, j),
                    _ => cols!(4, nc, i, j),
                }
                j += 4;
            }
            i += 4;
        }
    }
}

/// The kernels of one element type on one instruction set: outer-product tiles (`$mvs·LANES`
/// rows, `$nr` columns, by vector count and width), a one-column variant with taller tiles for
/// matrix × vector, and the dot-product tiles; `$max_a` is the size rule (bytes of an A block).
macro_rules! kernels {
    ($l:ident, $feat:literal, $nr:literal, $by_nr:ident, [$($mvs:literal)*], $tall:literal,
     $wnr:literal, $wide:ident, $max_a:expr) => {
        impl Kernels for $l {
            const NR: usize = $nr;
            const MAX_A_BYTES: usize = $max_a;
            #[target_feature(enable = $feat)]
            unsafe fn outer(s: Shape<<$l as Lanes>::E>) {
                /// # Safety
                /// As `tile` for the tile `t` of `mv` vectors and `nr` columns.
                #[inline(always)]
                unsafe fn by_mv(mv: usize, nr: usize, t: TileArgs<<$l as Lanes>::E>) {
                    // SAFETY: forwarded contract.
                    unsafe {
                        match mv {
                            $($mvs => $by_nr::<$l, $mvs>(nr, t),)*
                            _ => unreachable!("a tile of {mv} vectors"),
                        }
                    }
                }
                const MV: usize = [$($mvs),*].len();
                /// # Safety
                /// As `tile` for one vector of rows and `nr` columns.
                #[inline(always)]
                unsafe fn one_vector(_: usize, nr: usize, t: TileArgs<<$l as Lanes>::E>) {
                    // SAFETY: forwarded contract.
                    unsafe { $wide::<$l, 1>(nr, t) }
                }
                // SAFETY: forwarded contract; the instruction set is enabled here.
                unsafe {
                    if s.m <= <$l as Lanes>::LANES {
                        // one vector of rows: wider tiles (fewer of them; the registers allow)
                        outer::<$l, 1, $wnr>(s, one_vector)
                    } else {
                        outer::<$l, MV, $nr>(s, by_mv)
                    }
                }
            }
            #[target_feature(enable = $feat)]
            unsafe fn column(s: Shape<<$l as Lanes>::E>) {
                /// # Safety
                /// As `tile` for one column and `mv` vectors.
                #[inline(always)]
                unsafe fn by_mv(mv: usize, _: usize, t: TileArgs<<$l as Lanes>::E>) {
                    // SAFETY: forwarded contract.
                    unsafe {
                        match mv {
                            1 => tile::<$l, 1, 1>(t),
                            2 => tile::<$l, 2, 1>(t),
                            3 => tile::<$l, 3, 1>(t),
                            4 => tile::<$l, 4, 1>(t),
                            5 => tile::<$l, 5, 1>(t),
                            6 => tile::<$l, 6, 1>(t),
                            7 => tile::<$l, 7, 1>(t),
                            _ => tile::<$l, 8, 1>(t),
                        }
                    }
                }
                // SAFETY: forwarded contract; the instruction set is enabled here.
                unsafe { outer::<$l, $tall, 1>(s, by_mv) }
            }
            #[target_feature(enable = $feat)]
            unsafe fn tiny(s: Shape<<$l as Lanes>::E>) {
                const MV: usize = [$($mvs),*].len();
                let lanes = <$l as Lanes>::LANES;
                // SAFETY: forwarded contract (the tile is the whole of C); the instruction set
                // is enabled here.
                unsafe {
                    if s.m <= lanes && s.n <= $wnr {
                        // one vector of rows, one tile: `outer`'s wide tile without its loops
                        $wide::<$l, 1>(s.n, TileArgs::whole(&s))
                    } else if s.m <= MV * lanes && s.n <= $nr {
                        match s.m.div_ceil(lanes) {
                            $($mvs => $by_nr::<$l, $mvs>(s.n, TileArgs::whole(&s)),)*
                            _ => unreachable!("a tile of {} rows", s.m),
                        }
                    } else {
                        Self::outer(s)
                    }
                }
            }
            #[target_feature(enable = $feat)]
            unsafe fn dot(s: Shape<<$l as Lanes>::E>) {
                // SAFETY: forwarded contract; the instruction set is enabled here.
                unsafe { dot::<$l>(s) }
            }
        }
    };
}

/// [`Kernels::MAX_A_BYTES`], at most half of this CPU's L2 ([`Caches`](crate::isa::Caches)).
fn max_a_bytes<K: Kernels>() -> usize {
    K::MAX_A_BYTES.min(crate::isa::Caches::get().l2 / 2)
}

/// The unpacked kernels of one element type on one instruction set.
pub(crate) trait Kernels: Lanes {
    /// Columns of the outer-product tile.
    const NR: usize;
    /// Largest block of A (`m × DIRECT_KC` elements), in bytes, sent down this path: every
    /// block of NR columns of C re-reads it, so it must stay in L2.
    const MAX_A_BYTES: usize;
    /// Outer-product tiles.
    ///
    /// # Safety
    /// The instruction set; A and C rows unit stride; operands in bounds.
    unsafe fn outer(s: Shape<Self::E>);
    /// One column (n = 1), tiles of up to 8 vectors.
    ///
    /// # Safety
    /// As [`Kernels::outer`], with n = 1.
    unsafe fn column(s: Shape<Self::E>);
    /// Dot-product tiles.
    ///
    /// # Safety
    /// The instruction set; A columns and B rows unit stride; operands in bounds.
    unsafe fn dot(s: Shape<Self::E>);
    /// [`Kernels::outer`] for a tiny product ([`tiny`]): a product of one tile goes straight
    /// to it (no loop nest), others through the same loops as `outer`.
    ///
    /// # Safety
    /// As [`Kernels::outer`].
    unsafe fn tiny(s: Shape<Self::E>);
}

// AVX-512: 32 × 12 f32 / 32 × 6 f64 tiles (24 of 32 registers); A blocks up to 512 KiB (half of
// a 1 MiB L2). Measured on Zen 5: at 512³ f32 (A = 1 MiB) the unpacked kernels beat the blocked
// path by 5 %, at 512³ f64 (2 MiB) and 1024³ f32 (4 MiB) they fall to 0.80 and 0.75 of it.
kernels!(Avx512S, "avx512f", 12, by_nr_12, [1 2], 8, 12, by_nr_12, 1 << 19);
kernels!(Avx512D, "avx512f", 6, by_nr_6, [1 2 3 4], 8, 12, by_nr_12, 1 << 19);
// AVX2: 16 × 6 f32 / 8 × 6 f64 tiles (12 of 16 registers), 8 × 8 / 4 × 8 where m is one vector
// (8 accumulators); A blocks up to 128 KiB (a quarter of Zen 3's 512 KiB L2), measured in
// BENCHMARKS.md (the small-product table). AVX-512: 16 × 12 / 8 × 12 where m is one vector.
kernels!(Avx2S, "avx2,fma", 6, by_nr_6, [1 2], 8, 8, by_nr_8, 1 << 17);
kernels!(Avx2D, "avx2,fma", 6, by_nr_6, [1 2], 8, 8, by_nr_8, 1 << 17);

/// How the unpacked kernels take a product, after [`orient`].
enum Orient<T> {
    /// The dot-product tiles (a row-major A times a column-major B, few rows or columns).
    Dot(Shape<T>),
    /// The outer-product tiles, as is or for `Cᵀ = Bᵀ·Aᵀ` (A's and C's rows unit stride).
    Outer(Shape<T>),
    /// Not this path: the strides, or A's block too large for L2 (unless `any_size`).
    Decline,
}

/// The unpacked path's one stride and size rule, shared by [`run_typed`] and [`tiny`]: which
/// tiles take `d`, in which orientation, or none (inlined: the tiny route's per-call cost).
#[inline(always)]
fn orient<K: Kernels>(d: Direct<'_, K::E>, any_size: bool) -> Orient<K::E> {
    let Direct {
        m,
        k,
        n,
        alpha,
        a,
        sa,
        b,
        sb,
        beta,
        c,
        sc,
    } = d;
    let unit = |s: isize, e: usize| s == 1 || e == 1;
    let shape =
        |m, n, a: &[K::E], sa: Strided, b: &[K::E], sb: Strided, c: &mut [K::E], sc: Strided| {
            // SAFETY: the origins are elements (0, 0), in bounds (checked).
            unsafe {
                Shape {
                    m,
                    k,
                    n,
                    alpha,
                    beta,
                    a: a.as_ptr().offset(sa.origin),
                    sa,
                    b: b.as_ptr().offset(sb.origin),
                    sb,
                    c: c.as_mut_ptr().offset(sc.origin),
                    sc,
                }
            }
        };
    let size = core::mem::size_of::<K::E>();
    // a few rows or columns of a row-major A times a column-major B: dot products along k
    if (m <= 4 || n <= 4) && unit(sa.cs, k) && unit(sb.rs, k) {
        let bytes = m.max(n).saturating_mul(k).saturating_mul(size);
        if bytes > max_a_bytes::<K>() && !any_size {
            return Orient::Decline;
        }
        return Orient::Dot(shape(m, n, a, sa, b, sb, c, sc));
    }
    // outer products: C's and A's rows unit stride, as is or for Cᵀ = Bᵀ·Aᵀ
    let t = |s: Strided| Strided {
        origin: s.origin,
        rs: s.cs,
        cs: s.rs,
    };
    let s = if unit(sc.rs, m) && unit(sa.rs, m) {
        shape(m, n, a, sa, b, sb, c, sc)
    } else if unit(sc.cs, n) && unit(sb.cs, n) {
        shape(n, m, b, t(sb), a, t(sa), c, t(sc))
    } else {
        return Orient::Decline;
    };
    // A block of KC columns is re-read for every block of NR columns of C: it must stay in L2
    // (or there is one block of columns)
    let block_bytes = s.m.saturating_mul(s.k.min(DIRECT_KC)).saturating_mul(size);
    if block_bytes > max_a_bytes::<K>() && s.n > K::NR && !any_size {
        return Orient::Decline;
    }
    Orient::Outer(s)
}

/// Orient, choose a kernel, run it; `false` (nothing touched) when no unpacked kernel suits.
///
/// # Safety
/// The instruction set of `K` is available; the operands were checked in bounds for their
/// shapes and strides.
#[inline]
unsafe fn run_typed<K: Kernels>(p: Direct<'_, K::E>, threads: usize, any_size: bool) -> bool {
    let s = match orient::<K>(p, any_size) {
        Orient::Dot(s) => {
            // SAFETY: the instruction set (caller); A columns and B rows unit stride; operands
            // checked.
            unsafe { K::dot(s) };
            return true;
        }
        Orient::Outer(s) => s,
        Orient::Decline => return false,
    };
    let parts = threads.min(s.n / K::NR).max(1);
    if parts == 1 {
        // SAFETY: the instruction set (caller); A and C rows unit stride; operands checked.
        unsafe { k_blocks::<K>(s) };
        return true;
    }
    // columns split at multiples of NR: part t owns C's columns `cols(t)`, disjoint from the
    // others'
    let units = s.n.div_ceil(K::NR);
    let whole = Part(s);
    let cols = |t: usize| {
        let s = whole.get();
        let lo = (units * t / parts * K::NR).min(s.n);
        let hi = (units * (t + 1) / parts * K::NR).min(s.n);
        // SAFETY: columns lo..hi of B and C are elements of them (hi ≤ n).
        Part(unsafe {
            Shape {
                n: hi - lo,
                b: s.b.offset(lo as isize * s.sb.cs),
                c: s.c.offset(lo as isize * s.sc.cs),
                ..s
            }
        })
    };
    super::threads::split(parts, &|t| {
        let part = cols(t);
        // SAFETY: the instruction set (caller); A and C rows unit stride; operands checked;
        // the parts write disjoint columns of C and read A and B only.
        unsafe { k_blocks::<K>(part.into_inner()) }
    });
    true
}

/// One thread's columns of an unpacked call (and the call's shape, shared by its threads).
struct Part<T>(Shape<T>);
// SAFETY: the parts of one call write disjoint columns of C (split at column ranges of an
// operand checked to have no two elements at one location) and only read A and B, and they do
// not outlive the call (scoped threads).
unsafe impl<T: Send> Send for Part<T> {}
// SAFETY: as above; a part is only read (copied out) by the thread that runs it.
unsafe impl<T: Sync> Sync for Part<T> {}

impl<T: Copy> Part<T> {
    fn into_inner(self) -> Shape<T> {
        self.0
    }
    fn get(&self) -> Shape<T> {
        self.0
    }
}

/// The outer-product kernels over k in blocks of DIRECT_KC, C accumulating between blocks (β for
/// the first, then 1): the A block stays in L2 across the column blocks, and a tile walking k
/// touches at most DIRECT_KC pages of A, which the second-level TLB holds.
///
/// # Safety
/// The instruction set of `K`; A and C rows unit stride; every element of the operands in
/// bounds.
#[inline]
unsafe fn k_blocks<K: Kernels>(s: Shape<K::E>) {
    if s.k <= DIRECT_KC {
        // SAFETY: forwarded contract (one block: the whole of k).
        return unsafe { if s.n == 1 { K::column(s) } else { K::outer(s) } };
    }
    let mut pk = 0;
    while pk < s.k {
        let kb = (s.k - pk).min(DIRECT_KC);
        // SAFETY: the block's elements are elements of A and B (pk + kb ≤ k).
        let blk = unsafe {
            Shape {
                k: kb,
                a: s.a.offset(pk as isize * s.sa.cs),
                b: s.b.offset(pk as isize * s.sb.rs),
                beta: if pk == 0 {
                    s.beta
                } else {
                    <K::E as Scalar>::ONE
                },
                ..s
            }
        };
        // SAFETY: forwarded contract.
        unsafe {
            if s.n == 1 {
                K::column(blk)
            } else {
                K::outer(blk)
            }
        };
        pk += kb;
    }
}
