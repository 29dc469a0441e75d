//! The unpacked path for small problems: AVX-512 kernels that read A and B where they are.
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
//!   the whole k loop, then `α·AB + β·C` is written once with masked loads and stores, so the m
//!   edge costs no scalar loop and no stack tile, and the n edge runs a kernel of exactly that
//!   width (every `(MV, NR)` is its own instantiation, selected by a `match`).
//!
//! β = 0 never reads C. Every address touched is an element of an operand (the masks disable the
//! lanes past the m edge; masked-off lanes are not accessed).

#![allow(clippy::needless_range_loop)] // register tiles read best as indexed loops

use core::any::TypeId;
use core::arch::x86_64::*;

use super::check::Strided;
use super::dispatch::Isa;
use super::fixed::{self, Table};
use super::kernel::Element;
use crate::walk::AnyLayout;

/// Largest block of A (`m × DIRECT_KC`), in bytes, sent down this path: every block of NR
/// columns of C re-reads it, so it must stay in L2 (1 MiB per core on Zen 4 and Zen 5; half
/// of it leaves room for B and C). Measured on Zen 5: at 512³ f32 (A = 1 MiB) the unpacked
/// kernels beat the blocked path by 5 %, at 512³ f64 (2 MiB) and 1024³ f32 (4 MiB) they fall to
/// 0.80 and 0.75 of it, and at 4096 × 64 × 4096 f32 (1 MiB, 16 KiB between columns: a new page
/// per k step) to 0.85.
const MAX_A_BYTES: usize = 1 << 19;

/// The k block of the unpacked kernels: C accumulates between blocks, so an `m × DIRECT_KC` block
/// of A is what must stay in L2, and a tile that walks k touches at most this many pages of A
/// (one per step when A's columns are a page or more apart: 4096 × 4096 × 1 f32 ran at 0.56 of
/// nalgebra's matrix × vector before k was blocked).
const DIRECT_KC: usize = 256;

/// A checked problem for the direct path (the same guarantees as the blocked path's).
pub(crate) struct Direct<'a, T> {
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
}

/// Runs the problem on the unpacked AVX-512 kernels if it is small and its strides suit them
/// (returns `false`, touching nothing, otherwise).
///
/// With `any_size`, the size rule is skipped (the kernels apply whenever the strides suit).
pub(crate) fn try_run<T: Element>(
    isa: Isa,
    p: Direct<'_, T>,
    threads: usize,
    any_size: bool,
) -> bool {
    if isa != Isa::Avx512 || p.m == 0 || p.n == 0 || p.k == 0 {
        return false;
    }
    if TypeId::of::<T>() == TypeId::of::<f32>() {
        // SAFETY: T is f32 (same TypeId): a reinterpretation of the same type.
        let p = unsafe { cast::<T, f32>(p) };
        // SAFETY: AVX-512F is available (isa); the operands were checked in bounds.
        unsafe { run_typed(p, threads, any_size) }
    } else if TypeId::of::<T>() == TypeId::of::<f64>() {
        // SAFETY: T is f64 (same TypeId).
        let p = unsafe { cast::<T, f64>(p) };
        // SAFETY: as above.
        unsafe { run_typed(p, threads, any_size) }
    } else {
        false
    }
}

/// Reinterpret a problem of element type `T` as `U`.
///
/// # Safety
/// `T` and `U` are the same type.
unsafe fn cast<T: 'static, U: Copy + 'static>(p: Direct<'_, T>) -> Direct<'_, U> {
    // SAFETY: T = U (the caller's contract), so every pointer and value keeps its type.
    unsafe {
        Direct {
            m: p.m,
            k: p.k,
            n: p.n,
            alpha: *(&p.alpha as *const T).cast::<U>(),
            a: core::slice::from_raw_parts(p.a.as_ptr().cast(), p.a.len()),
            sa: p.sa,
            b: core::slice::from_raw_parts(p.b.as_ptr().cast(), p.b.len()),
            sb: p.sb,
            beta: *(&p.beta as *const T).cast::<U>(),
            c: core::slice::from_raw_parts_mut(p.c.as_mut_ptr().cast(), p.c.len()),
            sc: p.sc,
        }
    }
}

/// The AVX-512 operations of one element type, with masks for the m edge.
trait Lanes:
    Copy + PartialEq + Default + core::ops::Mul<Output = Self> + core::ops::Add<Output = Self>
{
    type V: Copy;
    type M: Copy;
    const LANES: usize;
    /// The mask of the first `n` lanes (`n ≤ LANES`).
    fn mask(n: usize) -> Self::M;
    /// # Safety
    /// AVX-512F; the enabled lanes of `p` are readable.
    unsafe fn load(m: Self::M, p: *const Self) -> Self::V;
    /// # Safety
    /// AVX-512F; the enabled lanes of `p` are writable.
    unsafe fn store(m: Self::M, p: *mut Self, v: Self::V);
    /// # Safety
    /// AVX-512F.
    unsafe fn splat(x: Self) -> Self::V;
    /// # Safety
    /// AVX-512F; `p` is readable.
    unsafe fn broadcast(p: *const Self) -> Self::V;
    /// # Safety
    /// AVX-512F.
    unsafe fn zero() -> Self::V;
    /// `a·b + c`.
    /// # Safety
    /// AVX-512F.
    unsafe fn fma(a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// `a·b`.
    /// # Safety
    /// AVX-512F.
    unsafe fn vmul(a: Self::V, b: Self::V) -> Self::V;
    /// One.
    fn one() -> Self;
    /// The sum of the lanes.
    /// # Safety
    /// AVX-512F.
    unsafe fn sum(v: Self::V) -> Self;
}

/// `Lanes` for one element type from its AVX-512 intrinsics.
macro_rules! lanes {
    ($t:ty, $v:ty, $m:ty, $lanes:literal, $one:literal, $maskz_load:ident, $mask_store:ident,
     $set1:ident, $zero:ident, $fmadd:ident, $mul:ident, $reduce:ident) => {
        impl Lanes for $t {
            type V = $v;
            type M = $m;
            const LANES: usize = $lanes;
            #[inline(always)]
            fn mask(n: usize) -> $m {
                if n >= $lanes { !0 } else { (1 << n) - 1 }
            }
            #[inline(always)]
            unsafe fn load(m: $m, p: *const $t) -> $v {
                // SAFETY: the caller's contract; masked-off lanes are not accessed.
                unsafe { $maskz_load(m, p) }
            }
            #[inline(always)]
            unsafe fn store(m: $m, p: *mut $t, v: $v) {
                // SAFETY: the caller's contract; masked-off lanes are not accessed.
                unsafe { $mask_store(p, m, v) }
            }
            #[inline(always)]
            unsafe fn splat(x: $t) -> $v {
                // SAFETY: the caller guarantees AVX-512F.
                unsafe { $set1(x) }
            }
            #[inline(always)]
            unsafe fn broadcast(p: *const $t) -> $v {
                // SAFETY: the caller guarantees AVX-512F and a readable `p`.
                unsafe { $set1(*p) }
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
            fn one() -> $t {
                $one
            }
            #[inline(always)]
            unsafe fn sum(v: $v) -> $t {
                // SAFETY: the caller guarantees AVX-512F.
                unsafe { $reduce(v) }
            }
        }
    };
}

lanes!(
    f32,
    __m512,
    __mmask16,
    16,
    1.0,
    _mm512_maskz_loadu_ps,
    _mm512_mask_storeu_ps,
    _mm512_set1_ps,
    _mm512_setzero_ps,
    _mm512_fmadd_ps,
    _mm512_mul_ps,
    _mm512_reduce_add_ps
);
lanes!(
    f64,
    __m512d,
    __mmask8,
    8,
    1.0,
    _mm512_maskz_loadu_pd,
    _mm512_mask_storeu_pd,
    _mm512_set1_pd,
    _mm512_setzero_pd,
    _mm512_fmadd_pd,
    _mm512_mul_pd,
    _mm512_reduce_add_pd
);

/// One tile of `rows ≤ MV·LANES` rows (the last vector masked) and exactly NR columns.
#[derive(Clone, Copy)]
struct TileArgs<T> {
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

/// The tile body.
///
/// # Safety
/// AVX-512F; `rows ≤ MV·LANES`, and every A(i, p), B(p, j), C(i, j) of the tile (i < rows,
/// p < k, j < NR) is an element of its operand.
#[inline(always)]
unsafe fn tile<T: Lanes + PartialEq + Default, const MV: usize, const NR: usize>(t: TileArgs<T>) {
    // SAFETY: (whole body) the caller's contract bounds every address; masks cover the m edge.
    unsafe {
        let mut masks = [T::mask(T::LANES); MV];
        masks[MV - 1] = T::mask(t.rows - (MV - 1) * T::LANES);
        let mut acc = [[T::zero(); MV]; NR];
        let mut a = t.a;
        let mut b = t.b;
        for _ in 0..t.k {
            let mut av = [T::zero(); MV];
            for v in 0..MV {
                av[v] = T::load(masks[v], a.add(v * T::LANES));
            }
            for j in 0..NR {
                let bj = T::broadcast(b.offset(j as isize * t.csb));
                for v in 0..MV {
                    acc[j][v] = T::fma(av[v], bj, acc[j][v]);
                }
            }
            a = a.offset(t.lda);
            b = b.offset(t.rsb);
        }
        let alpha = T::splat(t.alpha);
        let read_c = t.beta != T::default();
        let beta = T::splat(t.beta);
        for j in 0..NR {
            let col = t.c.offset(j as isize * t.ldc);
            for v in 0..MV {
                let p = col.add(v * T::LANES);
                let mut r = T::vmul(alpha, acc[j][v]);
                if read_c {
                    r = T::fma(beta, T::load(masks[v], p), r);
                }
                T::store(masks[v], p, r);
            }
        }
    }
}

/// `by_nr::<T, MV>(nr, t)`: the tile of exactly `nr` columns (one instantiation per width).
macro_rules! by_nr {
    ($name:ident, [$($nrs:literal)*]) => {
        /// The tile of `nr` columns.
        ///
        /// # Safety
        /// As [`tile`] with NR = `nr`.
        #[inline(always)]
        unsafe fn $name<T: Lanes + PartialEq + Default, const MV: usize>(nr: usize, t: TileArgs<T>) {
            // SAFETY: forwarded contract.
            unsafe {
                match nr {
                    $($nrs => tile::<T, MV, $nrs>(t),)*
                    _ => unreachable!("a tile of {nr} columns"),
                }
            }
        }
    };
}
by_nr!(by_nr_12, [1 2 3 4 5 6 7 8 9 10 11 12]);
by_nr!(by_nr_6, [1 2 3 4 5 6]);

/// The shape of an unpacked call, after orientation.
#[derive(Clone, Copy)]
struct Shape<T> {
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
/// AVX-512F; A and C rows unit stride; every element of the operands in bounds; `a`, `b`, `c`
/// point at element (0, 0).
#[inline(always)]
unsafe fn outer<T: Lanes + PartialEq + Default, const MV: usize, const NR: usize>(
    s: Shape<T>,
    by_mv: unsafe fn(usize, usize, TileArgs<T>),
) {
    let mr = MV * T::LANES;
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
                by_mv(rows.div_ceil(T::LANES), nr, t);
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
/// AVX-512F; every A(i, p), B(p, j), C(i, j) of the tile (i < R, j < C, p < k) in bounds.
#[inline(always)]
unsafe fn dot_tile<T: Lanes + PartialEq + Default, const R: usize, const C: usize>(
    s: &Shape<T>,
    i0: usize,
    j0: usize,
) {
    // SAFETY: (whole body) the caller's contract bounds every address; masks cover the k tail.
    unsafe {
        let a = s.a.offset(i0 as isize * s.sa.rs);
        let b = s.b.offset(j0 as isize * s.sb.cs);
        let mut acc = [[T::zero(); C]; R];
        let mut p = 0;
        while p < s.k {
            let mask = T::mask(s.k - p);
            let mut va = [T::zero(); R];
            for r in 0..R {
                va[r] = T::load(mask, a.offset(r as isize * s.sa.rs).add(p));
            }
            for c in 0..C {
                let vb = T::load(mask, b.offset(c as isize * s.sb.cs).add(p));
                for r in 0..R {
                    acc[r][c] = T::fma(va[r], vb, acc[r][c]);
                }
            }
            p += T::LANES;
        }
        let read_c = s.beta != T::default();
        for r in 0..R {
            for c in 0..C {
                let at =
                    s.c.offset((i0 + r) as isize * s.sc.rs + (j0 + c) as isize * s.sc.cs);
                let v = T::sum(acc[r][c]);
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
unsafe fn dot<T: Lanes + PartialEq + Default>(s: Shape<T>) {
    macro_rules! cols {
        ($r:literal, $nc:expr, $i:expr, $j:expr) => {
            match $nc {
                1 => dot_tile::<T, $r, 1>(&s, $i, $j),
                2 => dot_tile::<T, $r, 2>(&s, $i, $j),
                3 => dot_tile::<T, $r, 3>(&s, $i, $j),
                _ => dot_tile::<T, $r, 4>(&s, $i, $j),
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

/// The kernels of one element type: outer-product tiles (MR = 32, `$nr` columns, by vector
/// count `$mvs` and width), a one-column variant with taller tiles for matrix × vector, and the
/// dot-product tiles.
macro_rules! kernels {
    ($t:ty, $nr:literal, $by_nr:ident, [$($mvs:literal)*], $tall:literal) => {
        impl Kernels for $t {
            const NR: usize = $nr;
            #[target_feature(enable = "avx512f")]
            unsafe fn outer(s: Shape<$t>) {
                // SAFETY: forwarded contract; AVX-512F is enabled here.
                unsafe { Self::outer_inline(s) }
            }
            #[inline(always)]
            unsafe fn outer_inline(s: Shape<$t>) {
                /// # Safety
                /// As `tile` for the tile `t` of `mv` vectors and `nr` columns.
                #[inline(always)]
                unsafe fn by_mv(mv: usize, nr: usize, t: TileArgs<$t>) {
                    // SAFETY: forwarded contract.
                    unsafe {
                        match mv {
                            $($mvs => $by_nr::<$t, $mvs>(nr, t),)*
                            _ => unreachable!("a tile of {mv} vectors"),
                        }
                    }
                }
                // SAFETY: forwarded contract; AVX-512F is enabled here.
                unsafe { outer::<$t, { 32 / <$t as Lanes>::LANES }, $nr>(s, by_mv) }
            }
            #[target_feature(enable = "avx512f")]
            unsafe fn column(s: Shape<$t>) {
                /// # Safety
                /// As `tile` for one column and `mv` vectors.
                #[inline(always)]
                unsafe fn by_mv(mv: usize, _: usize, t: TileArgs<$t>) {
                    // SAFETY: forwarded contract.
                    unsafe {
                        match mv {
                            1 => tile::<$t, 1, 1>(t),
                            2 => tile::<$t, 2, 1>(t),
                            3 => tile::<$t, 3, 1>(t),
                            4 => tile::<$t, 4, 1>(t),
                            5 => tile::<$t, 5, 1>(t),
                            6 => tile::<$t, 6, 1>(t),
                            7 => tile::<$t, 7, 1>(t),
                            _ => tile::<$t, 8, 1>(t),
                        }
                    }
                }
                // SAFETY: forwarded contract; AVX-512F is enabled here.
                unsafe { outer::<$t, $tall, 1>(s, by_mv) }
            }
            #[target_feature(enable = "avx512f")]
            unsafe fn dot(s: Shape<$t>) {
                // SAFETY: forwarded contract; AVX-512F is enabled here.
                unsafe { dot::<$t>(s) }
            }
        }
    };
}

/// The three unpacked kernels of an element type.
trait Kernels: Lanes + PartialEq + Default + Send {
    /// Columns of the outer-product tile.
    const NR: usize;
    /// Outer-product tiles.
    ///
    /// # Safety
    /// AVX-512F; A and C rows unit stride; operands in bounds.
    unsafe fn outer(s: Shape<Self>);
    /// The same, inlined into its caller (a `#[target_feature(enable = "avx512f")]` function),
    /// so that a caller with constant shapes and strides gets them folded into the tiles.
    ///
    /// # Safety
    /// As [`Kernels::outer`].
    unsafe fn outer_inline(s: Shape<Self>);
    /// One column (n = 1), tiles of up to 8 vectors.
    ///
    /// # Safety
    /// As [`Kernels::outer`], with n = 1.
    unsafe fn column(s: Shape<Self>);
    /// Dot-product tiles.
    ///
    /// # Safety
    /// AVX-512F; A columns and B rows unit stride; operands in bounds.
    unsafe fn dot(s: Shape<Self>);
}

kernels!(f32, 12, by_nr_12, [1 2], 8);
kernels!(f64, 6, by_nr_6, [1 2 3 4], 8);

/// Orient, choose a kernel, run it; `false` (nothing touched) when no unpacked kernel suits.
///
/// # Safety
/// AVX-512F is available; the operands were checked in bounds for their shapes and strides.
unsafe fn run_typed<T: Kernels + Copy + core::ops::Mul<Output = T> + core::ops::Add<Output = T>>(
    p: Direct<'_, T>,
    threads: usize,
    any_size: bool,
) -> bool {
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
    } = p;
    let unit = |s: isize, e: usize| s == 1 || e == 1;
    let shape = |m, n, a: &[T], sa: Strided, b: &[T], sb: Strided, c: &mut [T], sc: Strided| {
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
    // a few rows or columns of a row-major A times a column-major B: dot products along k
    if (m <= 4 || n <= 4) && unit(sa.cs, k) && unit(sb.rs, k) {
        // SAFETY: AVX-512F (caller); A columns and B rows unit stride; operands checked.
        unsafe { T::dot(shape(m, n, a, sa, b, sb, c, sc)) };
        return true;
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
        return false;
    };
    // A block of KC columns is re-read for every block of NR columns of C: it must stay in L2
    // (or there is one block of columns)
    let size = core::mem::size_of::<T>();
    let block_bytes = s.m.saturating_mul(s.k.min(DIRECT_KC)).saturating_mul(size);
    if block_bytes > MAX_A_BYTES && s.n > T::NR && !any_size {
        return false;
    }
    let parts = threads.min(s.n / T::NR).max(1);
    if parts == 1 {
        // SAFETY: AVX-512F (caller); A and C rows unit stride; operands checked.
        unsafe { k_blocks(s) };
        return true;
    }
    // columns split at multiples of NR: part t owns C's columns `cols(t)`, disjoint from the
    // others'; without rayon, part 0 runs on the calling thread
    let units = s.n.div_ceil(T::NR);
    let cols = |t: usize| {
        let lo = (units * t / parts * T::NR).min(s.n);
        let hi = (units * (t + 1) / parts * T::NR).min(s.n);
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
    let all: std::vec::Vec<Part<T>> = (0..parts).map(cols).collect();
    #[cfg(feature = "rayon")]
    rayon::scope(|sc| {
        // every part on rayon's pool (see the blocked path's threads in block.rs)
        for part in all {
            // SAFETY: AVX-512F (caller); A and C rows unit stride; operands checked; the parts
            // write disjoint columns of C and read A and B only.
            sc.spawn(move |_| unsafe { k_blocks(part.into_inner()) });
        }
    });
    #[cfg(not(feature = "rayon"))]
    std::thread::scope(|sc| {
        let mut all = all.into_iter();
        let first = all.next();
        for part in all {
            // SAFETY: AVX-512F (caller); A and C rows unit stride; operands checked; the parts
            // write disjoint columns of C and read A and B only.
            sc.spawn(move || unsafe { k_blocks(part.into_inner()) });
        }
        if let Some(part) = first {
            // SAFETY: as for the other parts.
            unsafe { k_blocks(part.into_inner()) };
        }
    });
    true
}

/// One thread's columns of an unpacked call.
struct Part<T>(Shape<T>);
// SAFETY: the parts of one call write disjoint columns of C (split at column ranges of an
// operand checked to have no two elements at one location) and only read A and B, and they do
// not outlive the call (scoped threads).
unsafe impl<T: Send> Send for Part<T> {}

impl<T> Part<T> {
    fn into_inner(self) -> Shape<T> {
        self.0
    }
}

/// The outer-product kernels over k in blocks of DIRECT_KC, C accumulating between blocks (β for
/// the first, then 1): the A block stays in L2 across the column blocks, and a tile walking k
/// touches at most DIRECT_KC pages of A, which the second-level TLB holds.
///
/// # Safety
/// AVX-512F; A and C rows unit stride; every element of the operands in bounds.
unsafe fn k_blocks<T: Kernels>(s: Shape<T>) {
    let mut pk = 0;
    while pk < s.k {
        let kb = (s.k - pk).min(DIRECT_KC);
        // SAFETY: the block's elements are elements of A and B (pk + kb ≤ k).
        let blk = unsafe {
            Shape {
                k: kb,
                a: s.a.offset(pk as isize * s.sa.cs),
                b: s.b.offset(pk as isize * s.sb.rs),
                beta: if pk == 0 { s.beta } else { T::one() },
                ..s
            }
        };
        // SAFETY: forwarded contract.
        unsafe {
            if s.n == 1 {
                T::column(blk)
            } else {
                T::outer(blk)
            }
        };
        pk += kb;
    }
}

/// Static operands (all three layouts static, each mode one stride, A's and C's rows unit
/// stride): the unpacked tiles with every extent, stride and trip count a constant of the
/// layout types. Returns `false` (nothing touched) when the layouts or the machine do not suit.
#[inline(always)]
pub(crate) fn try_static<T: Element, LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>(
    alpha: T,
    a: &[T],
    b: &[T],
    beta: T,
    c: &mut [T],
) -> bool {
    if !const { fixed::strided::<LA, LB, LC>() } || Isa::selected_for_gemm() != Isa::Avx512 {
        return false;
    }
    if a.len() <= Table::<LA>::MAX_OFFSET
        || b.len() <= Table::<LB>::MAX_OFFSET
        || c.len() <= Table::<LC>::MAX_OFFSET
    {
        return false;
    }
    let p = Direct {
        m: Table::<LA>::ROWS,
        k: Table::<LA>::COLS,
        n: Table::<LB>::COLS,
        alpha,
        a,
        sa: Table::<LA>::STRIDED,
        b,
        sb: Table::<LB>::STRIDED,
        beta,
        c,
        sc: Table::<LC>::STRIDED,
    };
    if TypeId::of::<T>() == TypeId::of::<f32>() {
        // SAFETY: T is f32 (same TypeId).
        let p = unsafe { cast::<T, f32>(p) };
        // SAFETY: AVX-512F (selected); every offset of each layout is at most its MAX_OFFSET,
        // inside its slice (checked above); A's and C's rows unit stride (`strided`).
        unsafe {
            static_outer::<f32, LA, LB, LC>(
                p.alpha,
                p.a.as_ptr(),
                p.b.as_ptr(),
                p.beta,
                p.c.as_mut_ptr(),
            )
        };
        true
    } else if TypeId::of::<T>() == TypeId::of::<f64>() {
        // SAFETY: T is f64 (same TypeId).
        let p = unsafe { cast::<T, f64>(p) };
        // SAFETY: as above.
        unsafe {
            static_outer::<f64, LA, LB, LC>(
                p.alpha,
                p.a.as_ptr(),
                p.b.as_ptr(),
                p.beta,
                p.c.as_mut_ptr(),
            )
        };
        true
    } else {
        false
    }
}

/// The unpacked tiles for static operands, instantiated per layout types: the shapes and strides
/// are read here from the types' constants, so they fold into the code.
///
/// # Safety
/// AVX-512F; `strided::<LA, LB, LC>()`; `a`, `b`, `c` point at buffers holding every offset
/// of their layouts.
#[target_feature(enable = "avx512f")]
unsafe fn static_outer<T: Kernels, LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>(
    alpha: T,
    a: *const T,
    b: *const T,
    beta: T,
    c: *mut T,
) {
    let s = Shape {
        m: Table::<LA>::ROWS,
        k: Table::<LA>::COLS,
        n: Table::<LB>::COLS,
        alpha,
        beta,
        a,
        sa: Table::<LA>::STRIDED,
        b,
        sb: Table::<LB>::STRIDED,
        c,
        sc: Table::<LC>::STRIDED,
    };
    // SAFETY: forwarded contract; AVX-512F is enabled here.
    unsafe { T::outer_inline(s) }
}
