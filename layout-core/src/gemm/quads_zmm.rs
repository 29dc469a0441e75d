//! The AVX512-VNNI quad tiles on 512-bit vectors: `vpdpbusd` on zmm, 32 × 12 (two vectors of
//! sixteen `i32` rows by twelve broadcast columns: 24 accumulators of the 32 zmm registers).
//!
//! A core with a full 512-bit datapath (AMD Zen 5: two zmm `vpdpbusd` a cycle; Intel's
//! AVX-512 cores) does twice the work per instruction of the 256-bit 16 × 6 tiles of
//! [`super::quads`], which stay for the AVX2 level (AVX-VNNI). The panels are the quad
//! kernels' `((4, R), ⌈k/4⌉) : ((1, 4), 4R)` at R = 32 (vectors) and 12 (broadcasts).
//!
//! Like the 256-bit tiles, each comes in two orientations — the unsigned operand in the vectors
//! (`V`) or in the broadcasts (`B`) — because the engine may swap the operands (`Cᵀ = Bᵀ·Aᵀ`).
//! With the signed operand broadcast, LLVM folds the broadcast into `vpdpbusd`'s memory operand
//! (`{1to16}`); with the unsigned one broadcast it takes a `vpbroadcastd` register (27 zmm live).

use core::arch::x86_64::*;

use super::int8::store_tile;
use super::kernel::Tile;
use super::quads::{InPlaceRows, Panel, Quad};

/// Rows (vectors of sixteen `i32`) by columns of the zmm tile.
pub(crate) const TILE: (usize, usize) = (32, 12);

/// Vectors per column of the tile.
const V: usize = TILE.0 / 16;

/// One k quad of sixteen rows against one column: `acc + Σ₄ u·s` per `i32` lane, with `v`
/// the packed rows and `b` the broadcast column quad.
trait Dot {
    /// The accumulation.
    ///
    /// # Safety
    /// AVX512-VNNI available.
    unsafe fn dot(acc: __m512i, v: __m512i, b: __m512i) -> __m512i;
}

/// `vpdpbusd`, the unsigned operand in the vectors.
struct VnniV;
/// `vpdpbusd`, the unsigned operand broadcast.
struct VnniB;

impl Dot for VnniV {
    #[inline(always)]
    unsafe fn dot(acc: __m512i, v: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX512-VNNI (the caller's contract).
        unsafe { _mm512_dpbusd_epi32(acc, v, b) }
    }
}
impl Dot for VnniB {
    #[inline(always)]
    unsafe fn dot(acc: __m512i, v: __m512i, b: __m512i) -> __m512i {
        // SAFETY: AVX512-VNNI (the caller's contract).
        unsafe { _mm512_dpbusd_epi32(acc, b, v) }
    }
}

/// One k quad `q` of [`dots`].
///
/// # Safety
/// As [`dots`], for quad `q`.
#[inline(always)]
unsafe fn step<D: Dot, B: Quad, const NR: usize>(
    acc: &mut [[__m512i; V]; NR],
    a: *const u8,
    b: B,
    q: usize,
) {
    // SAFETY: the caller's contract.
    unsafe {
        let mut av = [_mm512_setzero_si512(); V];
        for (v, x) in av.iter_mut().enumerate() {
            *x = _mm512_loadu_si512(a.add(64 * (V * q + v)).cast());
        }
        for (j, accj) in acc.iter_mut().enumerate() {
            let bj = _mm512_set1_epi32(b.at(q, j).cast::<i32>().read_unaligned());
            for (x, &y) in accj.iter_mut().zip(&av) {
                *x = D::dot(*x, y, bj);
            }
        }
    }
}

/// The 32 × NR zmm tile's k loop: `2·NR` accumulators, per k quad two row vectors (128 packed
/// bytes at `a`) and NR broadcast quads from `b`.
///
/// # Safety
/// AVX512-VNNI available; `a` holds `128·k` bytes and every `b.at(q, j)` (`q < k`, `j < NR`)
/// four readable bytes (unaligned).
#[inline(always)]
unsafe fn dots<D: Dot, B: Quad, const NR: usize>(
    a: *const u8,
    k: usize,
    b: B,
) -> [[__m512i; V]; NR] {
    // SAFETY: (whole body) the caller's contract.
    unsafe {
        let mut acc = [[_mm512_setzero_si512(); V]; NR];
        // two quads a trip: half the loop's counting
        let mut q = 0;
        while q + 2 <= k {
            step::<D, B, NR>(&mut acc, a, b, q);
            step::<D, B, NR>(&mut acc, a, b, q + 1);
            q += 2;
        }
        if q < k {
            step::<D, B, NR>(&mut acc, a, b, q);
        }
        acc
    }
}

/// `C ← α·acc + β·C` for a 32 × NR tile of `i32` sums (β = 0: C not read): by zmm where C's
/// columns are unit stride (each zmm as two 8-row ymm runs `vsc` apart for a C of 8-element
/// runs, an NZ `i32` C), else through [`store_tile`].
///
/// # Safety
/// AVX-512 F and AVX2 available; every `t.c + i·rsc + j·csc` (`i < 32`, `j < NR`) valid for a
/// read and a write — with `vsc ≠ 0` (then `rsc = 1`), every `t.c + (i / 8)·vsc + i % 8 +
/// j·csc`.
#[inline(always)]
unsafe fn store<P, const NR: usize>(t: &Tile<i32, P>, acc: &[[__m512i; V]; NR]) {
    // SAFETY: (whole body) the caller guarantees the instruction sets and the tile of C.
    unsafe {
        if t.rsc != 1 {
            let mut tmp = [[0i32; TILE.0]; NR];
            for (tj, accj) in tmp.iter_mut().zip(acc) {
                for (v, &x) in accj.iter().enumerate() {
                    _mm512_storeu_si512(tj.as_mut_ptr().add(16 * v).cast(), x);
                }
            }
            return store_tile::<{ TILE.0 }, NR, P>(t, &tmp);
        }
        let alpha = _mm512_set1_epi32(t.alpha);
        let beta = _mm512_set1_epi32(t.beta);
        for (j, accj) in acc.iter().enumerate() {
            let cj = t.c.offset(j as isize * t.csc);
            for (v, &x) in accj.iter().enumerate() {
                let x = if t.alpha == 1 {
                    x
                } else {
                    _mm512_mullo_epi32(x, alpha)
                };
                if t.vsc == 0 {
                    let p = cj.add(16 * v);
                    let r = if t.beta == 0 {
                        x
                    } else if t.beta == 1 {
                        _mm512_add_epi32(_mm512_loadu_si512(p.cast()), x)
                    } else {
                        _mm512_add_epi32(_mm512_mullo_epi32(_mm512_loadu_si512(p.cast()), beta), x)
                    };
                    _mm512_storeu_si512(p.cast(), r);
                } else {
                    // rows 16v + 8h (h = 0, 1): the (2v + h)-th run of 8, `vsc` apart
                    let halves = [_mm512_castsi512_si256(x), _mm512_extracti64x4_epi64::<1>(x)];
                    for (h, &y) in halves.iter().enumerate() {
                        let p = cj.offset((2 * v + h) as isize * t.vsc).cast::<__m256i>();
                        let r = if t.beta == 0 {
                            y
                        } else if t.beta == 1 {
                            _mm256_add_epi32(_mm256_loadu_si256(p), y)
                        } else {
                            _mm256_add_epi32(
                                _mm256_mullo_epi32(
                                    _mm256_loadu_si256(p),
                                    _mm512_castsi512_si256(beta),
                                ),
                                y,
                            )
                        };
                        _mm256_storeu_si256(p, r);
                    }
                }
            }
        }
    }
}

/// The 32 × NR zmm tile on packed panels (NR = 12, or [`NARROW`]).
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = 32, `KSTEP = 4`; AVX512-VNNI available.
#[inline(always)]
unsafe fn body<D: Dot, const NR: usize>(t: &Tile<i32, u8>) {
    // SAFETY: the caller guarantees the instruction sets, 128·k readable bytes at `a` and
    // 4·NR·k at `b`, and the tile of C.
    unsafe { store(t, &dots::<D, _, NR>(t.a, t.k, Panel::<NR>(t.b))) }
}

/// The columns of the narrow tile ([`vnni_v_narrow`], [`vnni_b_narrow`]): 16 columns (a
/// `PackedB` under 16 rows of A) as two tiles, not 12 and a padded 12 (`KernelInfo::fit`).
pub(crate) const NARROW: usize = 8;

/// The zmm tile with the twelve broadcast rows read where they are (row j's quad q at
/// `t.b + j·ld + 4q`, a `u8` matrix whose rows run along k) against `panels` packed panels of
/// 32 vectors, panel p at `t.a + 128·k·p` writing C's 32 columns from `t.c + 32p` (C's columns
/// unit stride): [`super::quads`]'s strip of in-place rows at this tile's shape.
///
/// # Safety
/// As [`body`] for each panel p < `panels` (its 128·k bytes at `t.a + 128·k·p`, its tile of C
/// at `t.c + 32p`), except that `b + j·ld` (`j < 12`) holds `4·k` readable bytes instead of
/// the packed panel.
#[inline(always)]
unsafe fn body_rows<D: Dot>(t: &Tile<i32, u8>, ld: isize, panels: usize) {
    const NR: usize = TILE.1;
    // SAFETY: the caller guarantees the instruction sets, 128·k bytes at each panel, 4·k at
    // each of the rows, and each panel's tile of C.
    unsafe {
        // the row starts opaque to the compiler, so each is a base register of its broadcasts
        let rows = InPlaceRows::<NR>(core::hint::black_box(core::array::from_fn(|j| {
            t.b.wrapping_offset(j as isize * ld)
        })));
        let step = 4 * TILE.0 * t.k;
        for p in 0..panels {
            let acc = dots::<D, _, NR>(t.a.wrapping_add(p * step), t.k, rows);
            let tile = Tile {
                c: t.c.wrapping_add(TILE.0 * p),
                ..*t
            };
            store(&tile, &acc);
        }
    }
}

/// The zmm tile, the unsigned (u8) panel in the vectors.
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = 32, NR = 12, `KSTEP = 4`; AVX512-VNNI available.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
pub(crate) unsafe fn vnni_v(t: &Tile<i32, u8>) {
    // SAFETY: forwarded contract.
    unsafe { body::<VnniV, { TILE.1 }>(t) }
}

/// The zmm tile, the unsigned (u8) panel broadcast.
///
/// # Safety
/// As [`vnni_v`].
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
pub(crate) unsafe fn vnni_b(t: &Tile<i32, u8>) {
    // SAFETY: forwarded contract.
    unsafe { body::<VnniB, { TILE.1 }>(t) }
}

/// [`vnni_v`] on [`NARROW`] columns.
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = 32, NR = [`NARROW`], `KSTEP = 4`; AVX512-VNNI
/// available.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
pub(crate) unsafe fn vnni_v_narrow(t: &Tile<i32, u8>) {
    // SAFETY: forwarded contract.
    unsafe { body::<VnniV, NARROW>(t) }
}

/// [`vnni_b`] on [`NARROW`] columns.
///
/// # Safety
/// As [`vnni_v_narrow`].
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
pub(crate) unsafe fn vnni_b_narrow(t: &Tile<i32, u8>) {
    // SAFETY: forwarded contract.
    unsafe { body::<VnniB, NARROW>(t) }
}

/// [`body_rows`], the u8 rows broadcast.
///
/// # Safety
/// As [`body_rows`]; AVX512-VNNI available.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
pub(crate) unsafe fn vnni_rows(t: &Tile<i32, u8>, ld: isize, panels: usize) {
    // SAFETY: forwarded contract.
    unsafe { body_rows::<VnniB>(t, ld, panels) }
}

/// `acc[j] += Σ_q Σ₄ a[4q + e]·p[128q + 4j + e]` (j < 32) over `quads` k quads of one
/// 32-column panel `p` (signed, in the vectors) and the row `a` (unsigned, broadcast): four
/// independent accumulator pairs, so `vpdpbusd`'s latency is hidden.
///
/// # Safety
/// `p` holds `128·quads` bytes, `a` `4·quads`, `acc` 32 `i32`; AVX512-VNNI available.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vnni")]
pub(crate) unsafe fn gemv(p: *const u8, a: *const u8, quads: usize, acc: *mut i32) {
    // SAFETY: the caller's contract (every read inside `p` and `a`, 32 `i32` at `acc`).
    unsafe {
        let mut s = [[_mm512_setzero_si512(); V]; 4];
        let mut q = 0;
        while q + 4 <= quads {
            for (u, su) in s.iter_mut().enumerate() {
                let at = p.add(128 * (q + u));
                let av = _mm512_set1_epi32(a.add(4 * (q + u)).cast::<i32>().read_unaligned());
                su[0] = VnniB::dot(su[0], _mm512_loadu_si512(at.cast()), av);
                su[1] = VnniB::dot(su[1], _mm512_loadu_si512(at.add(64).cast()), av);
            }
            q += 4;
        }
        while q < quads {
            let at = p.add(128 * q);
            let av = _mm512_set1_epi32(a.add(4 * q).cast::<i32>().read_unaligned());
            s[0][0] = VnniB::dot(s[0][0], _mm512_loadu_si512(at.cast()), av);
            s[0][1] = VnniB::dot(s[0][1], _mm512_loadu_si512(at.add(64).cast()), av);
            q += 1;
        }
        let [s0, s1, s2, s3] = s;
        for (h, ((x0, x1), (x2, x3))) in s0.iter().zip(&s1).zip(s2.iter().zip(&s3)).enumerate() {
            let t = _mm512_add_epi32(_mm512_add_epi32(*x0, *x1), _mm512_add_epi32(*x2, *x3));
            let o = acc.add(16 * h);
            _mm512_storeu_si512(o.cast(), _mm512_add_epi32(_mm512_loadu_si512(o.cast()), t));
        }
    }
}

/// The byte quads of four rows' 64 bytes (element t's four bytes `w[0][t] … w[3][t]` one
/// 32-bit lane) by two rounds of in-lane unpacks: vector u's 128-bit lane l holds elements
/// `16l + 4u .. + 4` (the `perm64` order of `igemv`). Shared by [`zip4`]'s packing and
/// `igemv`'s VNNI rows.
///
/// # Safety
/// AVX-512 BW available (inlined into a kernel compiled with it).
#[inline(always)]
pub(crate) unsafe fn quads64(w: [__m512i; 4]) -> [__m512i; 4] {
    // SAFETY: AVX-512 BW (the caller's contract); the unpacks only move register lanes.
    unsafe {
        let (t0, t1) = (
            _mm512_unpacklo_epi8(w[0], w[1]),
            _mm512_unpackhi_epi8(w[0], w[1]),
        );
        let (t2, t3) = (
            _mm512_unpacklo_epi8(w[2], w[3]),
            _mm512_unpackhi_epi8(w[2], w[3]),
        );
        [
            _mm512_unpacklo_epi16(t0, t2),
            _mm512_unpackhi_epi16(t0, t2),
            _mm512_unpacklo_epi16(t1, t3),
            _mm512_unpackhi_epi16(t1, t3),
        ]
    }
}

/// Up to 64 elements `i .. i + n` (n ≤ 64) of four byte rows, each XORed with `flip`, zipped
/// into byte quads (element t's four bytes `x[0][t], x[1][t], x[2][t], x[3][t]` one 32-bit
/// lane): vector v holds elements `i + 16v .. i + 16v + 16` in order (`flip` past n). Below
/// 64 the load is masked (a plain load where all 64 are: a masked zmm load measured half
/// the speed of the whole zip at 16 × 4096 × 4096 on Zen 5). Two rounds
/// of in-lane unpacks leave vector u's 128-bit lane l holding elements `16l + 4u ..` (the
/// `perm64` order of `igemv`), and a 4 × 4 transpose of 128-bit lanes puts them in order.
///
/// # Safety
/// AVX-512 F and BW available; each `x[e] + i` holds n readable bytes (the lanes past n are
/// masked off and not read).
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw")]
unsafe fn zip64(x: [*const u8; 4], i: usize, n: usize, flip: __m512i) -> [__m512i; 4] {
    // SAFETY: the caller's contract: n bytes readable from each `x[e] + i`, the rest masked
    // (a plain load where all 64 are).
    let w = x.map(|p| unsafe {
        let v = if n >= 64 {
            _mm512_loadu_si512(p.add(i).cast())
        } else {
            _mm512_maskz_loadu_epi8((1u64 << n) - 1, p.add(i).cast())
        };
        _mm512_xor_si512(v, flip)
    });
    // SAFETY: AVX-512 BW (the caller's contract).
    let q = unsafe { quads64(w) };
    // lanes (u, l) → (l, u)
    let a = _mm512_shuffle_i64x2::<0x44>(q[0], q[1]);
    let b = _mm512_shuffle_i64x2::<0xEE>(q[0], q[1]);
    let c = _mm512_shuffle_i64x2::<0x44>(q[2], q[3]);
    let d = _mm512_shuffle_i64x2::<0xEE>(q[2], q[3]);
    [
        _mm512_shuffle_i64x2::<0x88>(a, c),
        _mm512_shuffle_i64x2::<0xDD>(a, c),
        _mm512_shuffle_i64x2::<0x88>(b, d),
        _mm512_shuffle_i64x2::<0xDD>(b, d),
    ]
}

/// The first `n ≤ 16` quads of `v` stored at `o` (a masked store below 16).
///
/// # Safety
/// AVX-512 F available; `o` valid for `4n` bytes of writes.
#[inline]
#[target_feature(enable = "avx2,avx512f")]
unsafe fn put16(o: *mut u8, v: __m512i, n: usize) {
    // SAFETY: the caller's contract: 4n writable bytes at `o` (lanes past n masked off).
    unsafe {
        if n >= 16 {
            _mm512_storeu_si512(o.cast(), v);
        } else {
            _mm512_mask_storeu_epi32(o.cast(), ((1u32 << n) - 1) as __mmask16, v);
        }
    }
}

/// `quads::zip4` on 512-bit vectors: `out[place(t) + e] = x[e][t] ⊕ f` for t < len, with
/// `place(t) = (t / r)·step + 4·(t mod r)`, 64 elements a step ([`zip64`]). Where r is a
/// multiple of 16 every 16 zipped elements lie in one panel and go out as one store (whole
/// 64-byte lines where the panels are 64-byte aligned); other widths (the tiles' 12, 8, 6, 4)
/// go panel by panel, each panel's r ≤ 64 elements one masked step.
///
/// # Safety
/// AVX-512 F and BW available; `r > 0`, `step ≥ 4r`; each `x[e]` holds `len` readable bytes;
/// `out` is valid for writes up to `place(len − 1) + 4` (nothing where len = 0).
#[target_feature(enable = "avx2,avx512f,avx512bw")]
pub(crate) unsafe fn zip4(
    out: *mut u8,
    x: [*const u8; 4],
    len: usize,
    f: u8,
    (r, step): (usize, usize),
) {
    let flip = _mm512_set1_epi8(f as i8);
    let place = |t: usize| (t / r) * step + 4 * (t % r);
    // SAFETY: (whole body) the caller's contract: every element read is below len, and every
    // store covers the quads of elements t .. t + n (n ≤ 16, t + n ≤ len) lying in one panel,
    // so it ends at place(t + n − 1) + 4 ≤ place(len − 1) + 4.
    unsafe {
        if r % 16 == 0 {
            let mut i = 0;
            while i < len {
                let q = zip64(x, i, (len - i).min(64), flip);
                for (v, &qv) in q.iter().enumerate() {
                    let t = i + 16 * v;
                    if t >= len {
                        break;
                    }
                    // t is a multiple of 16, so elements t .. t + 16 share one panel
                    put16(out.add(place(t)), qv, (len - t).min(16));
                }
                i += 64;
            }
            return;
        }
        let (mut t0, mut base) = (0, 0);
        while t0 < len {
            let rows = r.min(len - t0);
            let mut j = 0;
            while j < rows {
                // every byte the rows hold from here (up to 64), so that a plain load runs
                // wherever the next panels follow; the quads past the panel are not stored
                let q = zip64(x, t0 + j, (len - t0 - j).min(64), flip);
                for (v, &qv) in q.iter().enumerate() {
                    let t = j + 16 * v;
                    if t >= rows {
                        break;
                    }
                    put16(out.add(base + 4 * t), qv, (rows - t).min(16));
                }
                j += 64;
            }
            t0 += r;
            base += step;
        }
    }
}
