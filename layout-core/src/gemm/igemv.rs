//! Integer matrix × vector (m = 1 or n = 1, every pair of `u8`/`i8` → `i32`, exact): the decode
//! shape of int8 inference. The matrix streams once in its own order, never packed:
//!
//! - rows contiguous (`y[j] += x[p]·M[p][j]` along j): two rows at a time widened to `i16`,
//!   interleaved into k pairs (`vpunpck{l,h}wd`) and multiplied by the broadcast pair
//!   `(x[p], x[p+1])` with `vpmaddwd`, four rows per pass into a block of `i32` accumulators
//!   held in L1;
//! - columns contiguous (`y[j] = Σₚ x[p]·M[p][j]` along p): four dot products at a time, x
//!   widened once per 16 values, `vpmaddwd` per column.
//!
//! On aarch64 the same two forms run NEON `smlal` on values widened to `i16` (by the
//! broadcast `x[p]` along a row, lane by lane along a column).
//!
//! `vpmaddwd` on widened values never saturates, so every pair is exact (wrapping modulo 2³²
//! as the blocked engine). Threads split y.

use super::check::Strided;
use super::int8::Int8;
use super::view::Product;
use crate::isa::Isa;

/// A checked integer matrix–vector product `y ← α·x·M + β·y` (x of k, M k × n, y of n): x
/// element p at `x[ox + p·incx]`, M element (p, j) at `m[sm.origin + p·sm.rs + j·sm.cs]`, y
/// element j at `y[oy + j·incy]` (no two at one location), every index in bounds.
struct IGemv<'a, X, Y> {
    k: usize,
    alpha: i32,
    x: &'a [X],
    ox: isize,
    incx: isize,
    m: &'a [Y],
    sm: Strided,
    beta: i32,
    y: *mut i32,
    oy: isize,
    incy: isize,
}

// SAFETY: the threads of one call write disjoint ranges of y (an operand with no two elements
// at one location) through `y`, and only read x and M; the splitter's scope ends before the
// call returns.
unsafe impl<X: Sync, Y: Sync> Sync for IGemv<'_, X, Y> {}

/// Columns of y accumulated per pass of the row form (16 KiB of `i32` in L1; each row's
/// run is then 4 KiB long enough for the hardware prefetcher: 1.2× on a 4096-column i8
/// matrix on Zen 5, both the AVX2 and the VNNI form).
const YBLOCK: usize = 4096;

/// The product as a matrix–vector product when m or n is 1 and the matrix streams in one of its
/// contiguous orders (`false`, nothing touched, otherwise).
pub(crate) fn try_run<TA: Int8, TB: Int8>(p: &mut Product<'_, TA, TB, i32>) -> bool {
    let [m, k, n] = p.mkn;
    let (sa, sb, sc) = (p.a.at, p.b.at, p.c.sc);
    let y = p.c.c.as_mut_ptr();
    if m == 1 {
        let g = IGemv {
            k,
            alpha: p.alpha,
            x: p.a.data,
            ox: sa.origin,
            incx: sa.cs,
            m: p.b.data,
            sm: sb,
            beta: p.beta,
            y,
            oy: sc.origin,
            incy: sc.cs,
        };
        go(p.isa, &g, n, p.threads)
    } else if n == 1 {
        // C = A·x is Cᵀ = xᵀ·Aᵀ
        let g = IGemv {
            k,
            alpha: p.alpha,
            x: p.b.data,
            ox: sb.origin,
            incx: sb.rs,
            m: p.a.data,
            sm: Strided {
                origin: sa.origin,
                rs: sa.cs,
                cs: sa.rs,
            },
            beta: p.beta,
            y,
            oy: sc.origin,
            incy: sc.rs,
        };
        go(p.isa, &g, m, p.threads)
    } else {
        false
    }
}

/// Runs `g` over its `n` columns when one of its forms applies.
fn go<X: Int8, Y: Int8>(isa: Isa, g: &IGemv<'_, X, Y>, n: usize, threads: usize) -> bool {
    let rows = g.sm.cs == 1;
    if !(rows || g.sm.rs == 1 && g.incx == 1) {
        return false;
    }
    #[cfg(test)]
    RAN.with(|r| r.set(r.get() + 1));
    let parts = threads.clamp(1, n.div_ceil(256).max(1));
    super::threads::split(parts, &|t| {
        let (lo, hi) = (n * t / parts, n * (t + 1) / parts);
        if rows {
            by_rows(isa, g, lo, hi);
        } else {
            by_columns(isa, g, lo, hi);
        }
    });
    true
}

/// `y[j] ← α·s + β·y[j]` (β = 0: y not read).
///
/// # Safety
/// `j` is a column of `g`'s y, owned by the calling thread.
#[inline(always)]
unsafe fn store<X, Y>(g: &IGemv<'_, X, Y>, j: usize, s: i32) {
    let x = s.wrapping_mul(g.alpha);
    // SAFETY: the caller's contract (y element j is in bounds: the front's checks).
    unsafe {
        let p = g.y.offset(g.oy + j as isize * g.incy);
        *p = if g.beta == 0 {
            x
        } else {
            (*p).wrapping_mul(g.beta).wrapping_add(x)
        };
    }
}

/// x element p, widened.
#[inline(always)]
fn xv<X: Int8, Y>(g: &IGemv<'_, X, Y>, p: usize) -> i32 {
    i32::from(g.x[(g.ox + p as isize * g.incx) as usize].widen())
}

/// The row form over columns `lo .. hi` (M's rows unit stride).
fn by_rows<X: Int8, Y: Int8>(isa: Isa, g: &IGemv<'_, X, Y>, lo: usize, hi: usize) {
    let mut acc = [0i32; YBLOCK];
    for j0 in (lo..hi).step_by(YBLOCK) {
        let len = YBLOCK.min(hi - j0);
        let acc = &mut acc[..len];
        acc.fill(0);
        // the vector part (64 columns at a time on VNNI, then 16 at a time, each in its
        // kernel's lane order) and the rest
        let (v64, vec) = simd_rows(isa, g, j0, acc);
        for p in 0..g.k {
            let x = xv(g, p);
            let row = (g.sm.origin + p as isize * g.sm.rs + j0 as isize) as usize;
            for (a, &b) in acc[vec..].iter_mut().zip(&g.m[row + vec..row + len]) {
                *a = a.wrapping_add(x * i32::from(b.widen()));
            }
        }
        for (t, &s) in acc.iter().enumerate() {
            // the x86 vector parts' lanes: slot s of a 64-column VNNI group holds column
            // PERM64(s), slot s of a 16-column AVX2 group column PERM[s] (NEON's are in column
            // order)
            let j = if t < v64 {
                t - t % 64 + perm64(t % 64)
            } else if cfg!(target_arch = "x86_64") && t < vec {
                t - t % 16 + PERM[t % 16]
            } else {
                t
            };
            // SAFETY: j0 + j < hi: a column of this thread's range.
            unsafe { store(g, j0 + j, s) };
        }
    }
}

/// Column of each accumulator slot of a 16-column group in the AVX2 row form (`vpunpck{l,h}wd`
/// work within 128-bit lanes).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const PERM: [usize; 16] = [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15];

/// Column of slot `s` of a 64-column group of the VNNI row form: its vector `i = s / 16` holds,
/// in 128-bit lane `l`, columns `16·l + 4·i ..` (`vpunpck{l,h}{bw,wd}` work within lanes).
#[inline(always)]
const fn perm64(s: usize) -> usize {
    16 * ((s / 4) % 4) + 4 * (s / 16) + s % 4
}

/// Whether the row and column forms may run `vpdpbusd` on 512-bit vectors for the pair: one
/// side unsigned, the other signed (`u8 × i8` or `i8 × u8`, whichever is the vector), and
/// AVX512-VNNI allowed at `isa`.
#[cfg(target_arch = "x86_64")]
fn zmm_vnni<X: Int8, Y: Int8>(isa: Isa) -> bool {
    X::SIGNED != Y::SIGNED && crate::isa::vnni(isa) == Some(crate::isa::Vnni::Avx512)
}

/// The vector part of the row form: accumulates `Σₚ x[p]·M[p][j0 + j]` into `acc` for the
/// first `16·⌊len/16⌋` columns and returns `(v64, vec)`: slots below `v64` (a multiple of 64,
/// on AVX512-VNNI) in [`perm64`] order within each group of 64, slots `v64 .. vec` in
/// [`PERM`] order within each group of 16 on x86-64 (column order on aarch64); `(0, 0)` where
/// `isa` has no vector kernel.
fn simd_rows<X: Int8, Y: Int8>(
    isa: Isa,
    g: &IGemv<'_, X, Y>,
    j0: usize,
    acc: &mut [i32],
) -> (usize, usize) {
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 {
        let vec = acc.len() / 16 * 16;
        if vec > 0 {
            // the span read: rows 0 .. k of columns j0 .. j0 + vec, checked here once
            // (rows descending or overlapping take the scalar loop)
            let first = g.sm.origin + j0 as isize;
            let last = g.sm.origin + (g.k - 1) as isize * g.sm.rs + (j0 + vec) as isize;
            if g.sm.rs <= 0 || first < 0 || last as usize > g.m.len() {
                return (0, 0);
            }
            let v64 = if zmm_vnni::<X, Y>(isa) {
                acc.len() / 64 * 64
            } else {
                0
            };
            if v64 > 0 {
                // SAFETY: AVX512-VNNI (with F and BW) is available (`zmm_vnni`, the front
                // checked `isa`); every row p < k holds the columns j0 .. j0 + v64 ⊆ .. vec
                // (checked above); `acc` holds `v64` slots.
                unsafe { x86::rows_vnni(g, j0, &mut acc[..v64]) };
            }
            if vec > v64 {
                // SAFETY: AVX2 is available (the front checked `isa`); every row p < k holds
                // the columns j0 + v64 .. j0 + vec (checked just above: rows ascend from
                // `first` ≥ 0, the last ends in bounds); the slice holds `vec - v64` slots.
                unsafe { x86::rows(g, j0 + v64, &mut acc[v64..vec]) };
            }
            return (v64, vec);
        }
        return (0, 0);
    }
    #[cfg(target_arch = "aarch64")]
    if isa == Isa::Neon {
        let vec = acc.len() / 16 * 16;
        if vec > 0 {
            // the span read, checked once as above
            let first = g.sm.origin + j0 as isize;
            let last = g.sm.origin + (g.k - 1) as isize * g.sm.rs + (j0 + vec) as isize;
            if g.sm.rs <= 0 || first < 0 || last as usize > g.m.len() {
                return (0, 0);
            }
            // SAFETY: NEON is in every aarch64 CPU; every row p < k holds the columns
            // j0 .. j0 + vec (checked just above); `acc` holds `vec` slots.
            unsafe { neon::rows(g, j0, &mut acc[..vec]) };
        }
        return (0, vec);
    }
    let _ = (isa, g, j0, acc);
    (0, 0)
}

/// The column form over columns `lo .. hi` (M's columns and x unit stride).
fn by_columns<X: Int8, Y: Int8>(isa: Isa, g: &IGemv<'_, X, Y>, lo: usize, hi: usize) {
    let k = g.k;
    let xs = &g.x[g.ox as usize..g.ox as usize + k];
    let col = |j: usize| {
        let at = (g.sm.origin + j as isize * g.sm.cs) as usize;
        &g.m[at..at + k]
    };
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(unused_mut)
    )]
    let mut j = lo;
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 {
        let vnni = zmm_vnni::<X, Y>(isa);
        while j + 4 <= hi {
            let cols = [col(j), col(j + 1), col(j + 2), col(j + 3)];
            let s = if vnni {
                // SAFETY: AVX512-VNNI (with F and BW) available (`zmm_vnni`); x and the four
                // columns hold k values each (sliced above).
                unsafe { x86::dots4_vnni(xs, cols) }
            } else {
                // SAFETY: AVX2 available (the front checked `isa`); x and the four columns
                // hold k values each (sliced above).
                unsafe { x86::dots4(xs, cols) }
            };
            for (c, s) in s.into_iter().enumerate() {
                // SAFETY: j + c < hi: a column of this thread's range.
                unsafe { store(g, j + c, s) };
            }
            j += 4;
        }
    }
    #[cfg(target_arch = "aarch64")]
    if isa == Isa::Neon {
        while j + 4 <= hi {
            let cols = [col(j), col(j + 1), col(j + 2), col(j + 3)];
            // SAFETY: NEON is in every aarch64 CPU; x and the four columns hold k values each
            // (sliced above).
            let s = unsafe { neon::dots4(xs, cols) };
            for (c, s) in s.into_iter().enumerate() {
                // SAFETY: j + c < hi: a column of this thread's range.
                unsafe { store(g, j + c, s) };
            }
            j += 4;
        }
    }
    let _ = isa;
    for j in j..hi {
        let s = xs.iter().zip(col(j)).fold(0i32, |s, (&a, &b)| {
            s.wrapping_add(i32::from(a.widen()) * i32::from(b.widen()))
        });
        // SAFETY: j < hi: a column of this thread's range.
        unsafe { store(g, j, s) };
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use super::{IGemv, Int8};

    /// 16 values from `p` widened to `i16` lanes.
    ///
    /// # Safety
    /// AVX2 available; `p` valid for 16 reads.
    #[inline(always)]
    unsafe fn load16<T: Int8>(p: *const T) -> __m256i {
        // SAFETY: the caller's contract.
        unsafe {
            let v = _mm_loadu_si128(p.cast());
            if T::SIGNED {
                _mm256_cvtepi8_epi16(v)
            } else {
                _mm256_cvtepu8_epi16(v)
            }
        }
    }

    /// `(lo, hi)` as one `i32`: the broadcast k pair of `vpmaddwd`.
    #[inline(always)]
    fn pair(lo: i32, hi: i32) -> i32 {
        (lo & 0xffff) | (hi << 16)
    }

    /// The AVX2 row form: `acc[slot] += Σₚ x[p]·M[p][j0 + col(slot)]` over every row, four
    /// rows (two k pairs) per pass.
    ///
    /// # Safety
    /// AVX2 available; every row p < k of M holds columns `j0 .. j0 + acc.len()`
    /// (`acc.len()` a multiple of 16).
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn rows<X: Int8, Y: Int8>(g: &IGemv<'_, X, Y>, j0: usize, acc: &mut [i32]) {
        let k = g.k;
        let row = |p: usize| {
            // SAFETY: (pointer arithmetic only) inside M's slice by the caller's contract.
            unsafe {
                g.m.as_ptr()
                    .offset(g.sm.origin + p as isize * g.sm.rs + j0 as isize)
            }
        };
        let x = |p: usize| if p < k { super::xv(g, p) } else { 0 };
        let groups = acc.len() / 16;
        let accp = acc.as_mut_ptr();
        let mut p = 0;
        while p < k {
            // rows p .. p + 4 (missing rows read as row p with a zero x: exact)
            let r = [0, 1, 2, 3].map(|t| row(if p + t < k { p + t } else { p }));
            let (x01, x23) = (pair(x(p), x(p + 1)), pair(x(p + 2), x(p + 3)));
            // SAFETY: the caller's contract: AVX2, rows in bounds for the groups' columns,
            // `acc` holds 16 slots per group.
            unsafe {
                let (x01, x23) = (_mm256_set1_epi32(x01), _mm256_set1_epi32(x23));
                for q in 0..groups {
                    let w = [0, 1, 2, 3].map(|t| load16::<Y>(r[t].add(16 * q)));
                    let a = accp.add(16 * q).cast::<__m256i>();
                    let lo = _mm256_add_epi32(
                        _mm256_madd_epi16(_mm256_unpacklo_epi16(w[0], w[1]), x01),
                        _mm256_madd_epi16(_mm256_unpacklo_epi16(w[2], w[3]), x23),
                    );
                    let hi = _mm256_add_epi32(
                        _mm256_madd_epi16(_mm256_unpackhi_epi16(w[0], w[1]), x01),
                        _mm256_madd_epi16(_mm256_unpackhi_epi16(w[2], w[3]), x23),
                    );
                    _mm256_storeu_si256(a, _mm256_add_epi32(_mm256_loadu_si256(a), lo));
                    _mm256_storeu_si256(
                        a.add(1),
                        _mm256_add_epi32(_mm256_loadu_si256(a.add(1)), hi),
                    );
                }
            }
            p += 4;
        }
    }

    /// `vpdpbusd` with the operands in the order the pair asks: the unsigned one first.
    ///
    /// # Safety
    /// AVX512-VNNI available.
    #[inline(always)]
    unsafe fn dpbusd<X: Int8>(acc: __m512i, x: __m512i, m: __m512i) -> __m512i {
        // SAFETY: the caller's contract.
        unsafe {
            if X::SIGNED {
                _mm512_dpbusd_epi32(acc, m, x)
            } else {
                _mm512_dpbusd_epi32(acc, x, m)
            }
        }
    }

    /// The AVX512-VNNI row form for a mixed-sign pair: `acc[slot] += Σₚ x[p]·M[p][j0 +
    /// perm64(slot)]` over every row. Eight rows per pass: each four rows' 64 columns are
    /// interleaved into byte quads in registers (two rounds of `vpunpck`) and multiplied by the
    /// broadcast quad of x with `vpdpbusd` (exact products, wrapping sums).
    ///
    /// # Safety
    /// AVX512-VNNI (with F and BW) available; x and M of opposite signedness; every row
    /// p < k of M holds columns `j0 .. j0 + acc.len()` (`acc.len()` a multiple of 64).
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn rows_vnni<X: Int8, Y: Int8>(
        g: &IGemv<'_, X, Y>,
        j0: usize,
        acc: &mut [i32],
    ) {
        let k = g.k;
        let row = |p: usize| {
            // SAFETY: (pointer arithmetic only) inside M's slice by the caller's contract.
            unsafe {
                g.m.as_ptr()
                    .offset(g.sm.origin + p as isize * g.sm.rs + j0 as isize)
                    .cast::<u8>()
            }
        };
        // x[p .. p + 4] as raw bytes in one i32 (0 past k)
        let quad = |p: usize| {
            let b = |t: usize| {
                if p + t < k {
                    i32::from(super::xv(g, p + t) as u8)
                } else {
                    0
                }
            };
            b(0) | b(1) << 8 | b(2) << 16 | b(3) << 24
        };
        let groups = acc.len() / 64;
        let accp = acc.as_mut_ptr();
        let mut p = 0;
        while p < k {
            // rows p .. p + 8 (missing rows read as row p with a zero x: exact)
            let r: [*const u8; 8] =
                core::array::from_fn(|t| row(if p + t < k { p + t } else { p }));
            // SAFETY: the caller's contract: AVX512-VNNI with F and BW, rows in bounds for the
            // groups' columns, `acc` holds 64 slots per group.
            unsafe {
                let xq = [_mm512_set1_epi32(quad(p)), _mm512_set1_epi32(quad(p + 4))];
                for q in 0..groups {
                    let a = accp.add(64 * q);
                    let mut v: [__m512i; 4] =
                        core::array::from_fn(|i| _mm512_loadu_si512(a.add(16 * i).cast()));
                    for (h, &x) in xq.iter().enumerate() {
                        let w: [__m512i; 4] = core::array::from_fn(|t| {
                            _mm512_loadu_si512(r[4 * h + t].add(64 * q).cast())
                        });
                        // vector i, lane l: columns 16·l + 4·i .. + 4 (`perm64`)
                        let quads = crate::gemm::quads_zmm::quads64(w);
                        for (vi, m) in v.iter_mut().zip(quads) {
                            *vi = dpbusd::<X>(*vi, x, m);
                        }
                    }
                    for (i, &vi) in v.iter().enumerate() {
                        _mm512_storeu_si512(a.add(16 * i).cast(), vi);
                    }
                }
            }
            p += 8;
        }
    }

    /// Four dot products `Σₚ x[p]·cols[c][p]` of a mixed-sign pair, wrapping: 64 values per
    /// `vpdpbusd`, the tail by a masked load (zeros past k: exact).
    ///
    /// # Safety
    /// AVX512-VNNI (with F and BW) available; x and the columns of opposite signedness; every
    /// column as long as `x`.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn dots4_vnni<X: Int8, Y: Int8>(x: &[X], cols: [&[Y]; 4]) -> [i32; 4] {
        let k = x.len();
        // SAFETY: the caller's contract: AVX512-VNNI with F and BW; x and the columns hold k
        // values each, read below k only (the tail's mask stops at k).
        unsafe {
            let mut acc = [_mm512_setzero_si512(); 4];
            let mut p = 0;
            while p < k {
                let left = k - p;
                let mask: __mmask64 = if left >= 64 { !0 } else { (1u64 << left) - 1 };
                let xv = _mm512_maskz_loadu_epi8(mask, x.as_ptr().add(p).cast());
                for (a, c) in acc.iter_mut().zip(&cols) {
                    let cv = _mm512_maskz_loadu_epi8(mask, c.as_ptr().add(p).cast());
                    *a = dpbusd::<X>(*a, xv, cv);
                }
                p += 64;
            }
            acc.map(|a| _mm512_reduce_add_epi32(a))
        }
    }

    /// Four dot products `Σₚ x[p]·cols[c][p]`, wrapping.
    ///
    /// # Safety
    /// AVX2 available; every column as long as `x`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn dots4<X: Int8, Y: Int8>(x: &[X], cols: [&[Y]; 4]) -> [i32; 4] {
        let k = x.len();
        let kv = k / 16 * 16;
        // SAFETY: the caller's contract: AVX2; x and the columns hold k ≥ kv values.
        unsafe {
            let mut acc = [_mm256_setzero_si256(); 4];
            let mut p = 0;
            while p < kv {
                let xw = load16(x.as_ptr().add(p));
                for (a, c) in acc.iter_mut().zip(&cols) {
                    *a = _mm256_add_epi32(*a, _mm256_madd_epi16(xw, load16(c.as_ptr().add(p))));
                }
                p += 16;
            }
            let mut out = [0i32; 4];
            for (o, (a, c)) in out.iter_mut().zip(acc.iter().zip(&cols)) {
                let mut lanes = [0i32; 8];
                _mm256_storeu_si256(lanes.as_mut_ptr().cast(), *a);
                let tail = x[kv..].iter().zip(&c[kv..]).fold(0i32, |s, (&a, &b)| {
                    s.wrapping_add(i32::from(a.widen()) * i32::from(b.widen()))
                });
                *o = lanes.iter().fold(tail, |s, &l| s.wrapping_add(l));
            }
            out
        }
    }
}

#[cfg(target_arch = "aarch64")]
mod neon {
    use core::arch::aarch64::*;

    use super::{IGemv, Int8};

    /// 16 values from `p` widened to two vectors of eight `i16` (exact: `u8` and `i8` both fit).
    ///
    /// # Safety
    /// NEON available; `p` valid for 16 reads.
    #[inline(always)]
    unsafe fn load16<T: Int8>(p: *const T) -> (int16x8_t, int16x8_t) {
        // SAFETY: the caller's contract.
        unsafe {
            let v = vld1q_u8(p.cast());
            if T::SIGNED {
                let s = vreinterpretq_s8_u8(v);
                (vmovl_s8(vget_low_s8(s)), vmovl_high_s8(s))
            } else {
                (
                    vreinterpretq_s16_u16(vmovl_u8(vget_low_u8(v))),
                    vreinterpretq_s16_u16(vmovl_high_u8(v)),
                )
            }
        }
    }

    /// The NEON row form: `acc[j] += Σₚ x[p]·M[p][j0 + j]` (columns in their own order) over
    /// every row, four rows per pass, `smlal` by the widened `x[p]` (exact products, wrapping
    /// sums as the other forms).
    ///
    /// # Safety
    /// NEON available; every row p < k of M holds columns `j0 .. j0 + acc.len()`
    /// (`acc.len()` a multiple of 16).
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn rows<X: Int8, Y: Int8>(g: &IGemv<'_, X, Y>, j0: usize, acc: &mut [i32]) {
        let k = g.k;
        let row = |p: usize| {
            // SAFETY: (pointer arithmetic only) inside M's slice by the caller's contract.
            unsafe {
                g.m.as_ptr()
                    .offset(g.sm.origin + p as isize * g.sm.rs + j0 as isize)
            }
        };
        // x fits `i16` (−128 ..= 255)
        let x = |p: usize| if p < k { super::xv(g, p) as i16 } else { 0 };
        let groups = acc.len() / 16;
        let accp = acc.as_mut_ptr();
        let mut p = 0;
        while p < k {
            // rows p .. p + 4 (missing rows read as row p with a zero x: exact)
            let r = [0, 1, 2, 3].map(|t| row(if p + t < k { p + t } else { p }));
            let xs = [0, 1, 2, 3].map(|t| x(p + t));
            // SAFETY: the caller's contract: NEON, rows in bounds for the groups' columns,
            // `acc` holds 16 slots per group.
            unsafe {
                for q in 0..groups {
                    let a = accp.add(16 * q);
                    let mut v = [0, 1, 2, 3].map(|t| vld1q_s32(a.add(4 * t)));
                    for (rt, &xt) in r.iter().zip(&xs) {
                        let (lo, hi) = load16::<Y>(rt.add(16 * q));
                        v[0] = vmlal_n_s16(v[0], vget_low_s16(lo), xt);
                        v[1] = vmlal_high_n_s16(v[1], lo, xt);
                        v[2] = vmlal_n_s16(v[2], vget_low_s16(hi), xt);
                        v[3] = vmlal_high_n_s16(v[3], hi, xt);
                    }
                    for (t, &vt) in v.iter().enumerate() {
                        vst1q_s32(a.add(4 * t), vt);
                    }
                }
            }
            p += 4;
        }
    }

    /// Four dot products `Σₚ x[p]·cols[c][p]`, wrapping: 16 values per step widened to `i16`,
    /// `smlal`/`smlal2`.
    ///
    /// # Safety
    /// NEON available; every column as long as `x`.
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn dots4<X: Int8, Y: Int8>(x: &[X], cols: [&[Y]; 4]) -> [i32; 4] {
        let k = x.len();
        let kv = k / 16 * 16;
        // SAFETY: the caller's contract: NEON; x and the columns hold k ≥ kv values.
        unsafe {
            let mut acc = [vdupq_n_s32(0); 4];
            let mut p = 0;
            while p < kv {
                let (xl, xh) = load16(x.as_ptr().add(p));
                for (a, c) in acc.iter_mut().zip(&cols) {
                    let (cl, ch) = load16(c.as_ptr().add(p));
                    *a = vmlal_s16(*a, vget_low_s16(xl), vget_low_s16(cl));
                    *a = vmlal_high_s16(*a, xl, cl);
                    *a = vmlal_s16(*a, vget_low_s16(xh), vget_low_s16(ch));
                    *a = vmlal_high_s16(*a, xh, ch);
                }
                p += 16;
            }
            let mut out = [0i32; 4];
            for (o, (a, c)) in out.iter_mut().zip(acc.iter().zip(&cols)) {
                let mut lanes = [0i32; 4];
                vst1q_s32(lanes.as_mut_ptr(), *a);
                let tail = x[kv..].iter().zip(&c[kv..]).fold(0i32, |s, (&a, &b)| {
                    s.wrapping_add(i32::from(a.widen()) * i32::from(b.widen()))
                });
                *o = lanes.iter().fold(tail, |s, &l| s.wrapping_add(l));
            }
            out
        }
    }
}

#[cfg(test)]
std::thread_local! {
    /// Products this thread ran on the matrix × vector route (tests).
    pub(crate) static RAN: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::{MatMut, MatRef, Options, Packing, Pair};
    use std::vec::Vec;

    struct Lcg(u32);
    impl Lcg {
        fn next(&mut self) -> u32 {
            self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            self.0 >> 8
        }
    }

    trait Gen: Int8 {
        fn draw(g: &mut Lcg) -> Self;
    }
    impl Gen for u8 {
        fn draw(g: &mut Lcg) -> u8 {
            // extremes often
            match g.next() % 4 {
                0 => 255,
                1 => 0,
                _ => g.next() as u8,
            }
        }
    }
    impl Gen for i8 {
        fn draw(g: &mut Lcg) -> i8 {
            match g.next() % 4 {
                0 => -128,
                1 => 127,
                _ => g.next() as i8,
            }
        }
    }

    /// One pair on every orientation: m = 1 and n = 1; the matrix row- or column-major; unit
    /// and strided vectors; y strided; β = 0 (y full of garbage, never read) and β ≠ 0; one and
    /// two threads; every instruction set; lengths crossing 16, 4 and the y block. Exact
    /// against the definition, and the streaming route ran.
    fn pair<A: Gen + Pair<B, Out = i32>, B: Gen>() {
        let mut g = Lcg(5);
        for isa in Isa::available() {
            for &(m, k, n) in &[
                (1usize, 37usize, 1100usize),
                (1, 9, 3),
                (45, 70, 1),
                (1, 1, 1),
                (1, 64, 33),
                (2100, 5, 1),
                (19, 300, 1),
                // the VNNI row form's 64-column groups beside AVX2's 16 and the scalar rest,
                // rows a multiple of its eight and not; the column form's masked tail
                (1, 13, 181),
                (1, 8, 64),
                (6, 129, 1),
                // past one y block
                (1, 5, YBLOCK + 64 + 16 + 3),
            ] {
                for (ars, acs, brs, bcs, crs, ccs) in [
                    (k as isize, 1, n as isize, 1, n as isize, 1),
                    (1, m as isize, 1, k as isize, 1, m as isize),
                    (k as isize, 1, 1, k as isize, 1, m as isize),
                    (2 * k as isize, 2, 2 * n as isize, 2, 2 * n as isize, 2),
                    (1, m as isize, n as isize, 1, 1, m as isize),
                ] {
                    for (threads, alpha, beta) in [(1, 1, 0), (2, -3, 2), (2, 7, 0)] {
                        let span = |r: usize, c: usize, rs: isize, cs: isize| {
                            (r - 1) * rs.unsigned_abs() + (c - 1) * cs.unsigned_abs() + 1
                        };
                        let a: Vec<A> =
                            (0..span(m, k, ars, acs)).map(|_| A::draw(&mut g)).collect();
                        let b: Vec<B> =
                            (0..span(k, n, brs, bcs)).map(|_| B::draw(&mut g)).collect();
                        let c0: Vec<i32> =
                            (0..span(m, n, crs, ccs)).map(|_| g.next() as i32).collect();
                        let mut c = c0.clone();
                        let before = RAN.with(|r| r.get());
                        crate::gemm::gemm_with(
                            Options {
                                isa,
                                threads,
                                packing: Packing::Never,
                            },
                            alpha,
                            MatRef {
                                data: &a,
                                rows: m,
                                cols: k,
                                row_stride: ars,
                                col_stride: acs,
                            },
                            MatRef {
                                data: &b,
                                rows: k,
                                cols: n,
                                row_stride: brs,
                                col_stride: bcs,
                            },
                            beta,
                            MatMut {
                                data: &mut c,
                                rows: m,
                                cols: n,
                                row_stride: crs,
                                col_stride: ccs,
                            },
                        )
                        .unwrap();
                        let ran = RAN.with(|r| r.get()) > before;
                        // the streaming route takes every case with a unit stride along one
                        // of the matrix's axes (and, along k, a unit-stride vector)
                        let (ms, xs) = if m == 1 {
                            ((brs, bcs), acs)
                        } else {
                            ((acs, ars), brs)
                        };
                        let streams = ms.1 == 1 || (ms.0 == 1 && xs == 1);
                        if m == 1 || n == 1 {
                            assert_eq!(ran, streams, "{isa:?} {m}x{k}x{n} route");
                        }
                        for i in 0..m {
                            for j in 0..n {
                                let s: i64 = (0..k)
                                    .map(|p| {
                                        i64::from(a[i * ars as usize + p * acs as usize].widen())
                                            * i64::from(
                                                b[p * brs as usize + j * bcs as usize].widen(),
                                            )
                                    })
                                    .sum();
                                let at = i * crs as usize + j * ccs as usize;
                                let want = (i64::from(alpha) * s
                                    + i64::from(beta) * i64::from(c0[at]))
                                    as i32;
                                assert_eq!(c[at], want, "{isa:?} {m}x{k}x{n} ({i},{j}) t{threads}");
                            }
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn u8_i8_on_every_orientation() {
        pair::<u8, i8>();
    }
    #[test]
    fn i8_i8_on_every_orientation() {
        pair::<i8, i8>();
    }
    #[test]
    fn u8_u8_on_every_orientation() {
        pair::<u8, u8>();
    }
    #[test]
    fn i8_u8_on_every_orientation() {
        pair::<i8, u8>();
    }
}
