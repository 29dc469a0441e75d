//! Quantized weights on 8-bit activations (prefill): `C ← α·A·B + β·C` with B in GGUF
//! `Q4_0`, `Q8_0` or GPTQ/AWQ 4-bit groups and A quantized per row and 32-block to 8 bits as
//! llama.cpp's `Q8_0` activations.
//!
//! Each row of A is cut into 32-blocks; each block gets `d_a = max|a| / 127` and codes
//! `q_a = round(a / d_a)` in [−127, 127], with `S_a = Σ₃₂ q_a`. B's block is one or two planes
//! of 4-bit codes `c` in [0, 15] with a weight `w`, a zero `z` and a scale `d_b` per column:
//!
//! - `Q4_0`: one plane, `(c − 8)·d_b`;
//! - `Q8_0`: the code `q + 128` split into nibbles `16·h + l`, so `q = 16·(h − 8) + l`: the
//!   high plane `(h − 8)·16·d_b`, the low plane `l·d_b`;
//! - GPTQ/AWQ (groups a multiple of 32): one plane, `(c − z)·s` with `z`, `s` per group and
//!   column.
//!
//! So `C[i][j] = Σ_blocks d_a · Σ_planes w·d_b · (Σ₃₂ c·q_a − z·S_a)`, and the inner sum is an
//! exact integer: `vpmaddubsw` takes the codes as the unsigned operand (a pair sum is at most
//! 2·15·127 = 3810, so a block's eight quads add in `i16`: 30480 < 2¹⁵), then one `vpmaddwd`
//! by ones per block and plane widens the pairs into `i32`. The constant zeros (`8·S_a`) are
//! subtracted in integers; a per-column zero in `f32` (exact while `|z·S_a| < 2²⁴`). One
//! conversion and one scaling per block, row and column vector.
//!
//! A is packed per 4-row tile, block-interleaved (`[block][quad][row][4]`, then the rows'
//! `d_a`, `8·S_a`, `S_a`), so a tile reads one contiguous stream. B is unpacked 16 blocks
//! (512 k values) of one 8-column panel at a time (`[block][plane][quad][column][4]`, the
//! planes' scales, the zeros: 4 KiB for 4-bit codes, in L1) into a buffer of the thread's and
//! read by every tile of A; eight panels pass over the same 512 k values of A (in L2) before
//! the next ones, their `f32` sums kept in a buffer between the passes. Every block of B is
//! unpacked once per call. AVX2 tiles of 4 rows × 8 columns (with the eight B vectors of a
//! block held in registers, four rows leave no spills); plain Rust below AVX2. Threads split
//! the panels.
//!
//! The only approximation is A's quantization (relative error about `1/254` per block and
//! element); on integer-valued A whose blocks each reach ±127 (so `d_a = 1`) and B whose scales
//! are exact, the result is exact.

use core::ops::Range;
use std::vec::Vec;

use super::check::Strided;
use super::view::View;
use crate::isa::Isa;
use crate::packed::{Access, BlockQ4_0, BlockQ8_0, GgufMatrix, Group4Matrix, QK, QuantRef};

/// Columns per panel (one ymm of `f32`).
const NB: usize = 8;
/// Rows per tile.
const MB: usize = 4;
/// Code bytes per block, plane and panel: 8 quads × 8 columns × 4.
const PLANE: usize = QK * NB;
/// Code bytes per block and tile of A: 8 quads × 6 rows × 4.
const ATILE: usize = QK * MB;
/// Blocks of k per pass over the tiles of A (512 k values: A's rows of them stay in L2).
const KCB: usize = 16;
/// Panels of B per pass over A (their `f32` sums kept between the passes).
const NCP: usize = 8;

/// Whether `q` takes this route: `Q4_0`, `Q8_0`, and groups of a multiple of 32 rows whose
/// zero points are exact and whose scale may be factored out of a group's sum.
pub(crate) fn supports(q: QuantRef<'_>) -> bool {
    match q {
        QuantRef::Q4_0(_) | QuantRef::Q8_0(_) => true,
        QuantRef::Group4(g) => g.group().is_multiple_of(QK) && g.zero_exact() && g.factored(),
    }
}

/// A quantized per row and block, packed per tile of `MB` rows (rows past m are zeros):
/// codes `[tile][block][quad][row][4]`, and per `[tile][block][row]` the scale `d_a`, `8·S_a`
/// and `S_a` (as `f32`).
struct Acts {
    q: Vec<i8>,
    d: Vec<f32>,
    s8: Vec<i32>,
    sa: Vec<f32>,
    kb: usize,
}

/// `x` rounded to the nearest integer, halves away from zero (`f32::round`), in operations an
/// AVX2 build vectorizes (`x − trunc(x)` is exact).
#[inline(always)]
fn round_half_away(x: f32) -> f32 {
    let t = x.trunc();
    if (x - t).abs() >= 0.5 {
        t + 1f32.copysign(x)
    } else {
        t
    }
}

/// One block of a row: its 32 codes `round(x·inv)` clamped to ±127 into `out`; their sum.
#[inline(always)]
fn quantize_block(blk: &[f32], inv: f32, out: &mut [i8; QK]) -> i32 {
    let mut sum = 0i32;
    for (o, &x) in out.iter_mut().zip(blk) {
        *o = round_half_away(x * inv).clamp(-127.0, 127.0) as i8;
        sum += i32::from(*o);
    }
    sum
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
/// [`quantize_block`] compiled for AVX2 (`vroundps`, eight lanes).
///
/// # Safety
/// AVX2 and FMA available.
unsafe fn quantize_block_avx2(blk: &[f32], inv: f32, out: &mut [i8; QK]) -> i32 {
    quantize_block(blk, inv, out)
}

fn quantize_a(isa: Isa, a: &View<'_, f32>, m: usize, k: usize) -> Acts {
    let kb = k / QK;
    let tiles = m.div_ceil(MB);
    let mut q = std::vec![0i8; tiles * kb * ATILE];
    let mut d = std::vec![0f32; tiles * kb * MB];
    let mut s8 = std::vec![0i32; tiles * kb * MB];
    let mut sa = std::vec![0f32; tiles * kb * MB];
    let mut row = std::vec![0f32; k];
    for i in 0..m {
        let base = a.at.origin + i as isize * a.at.rs;
        if a.at.cs == 1 {
            row.copy_from_slice(&a.data[base as usize..base as usize + k]);
        } else {
            for (p, x) in row.iter_mut().enumerate() {
                *x = a.data[(base + p as isize * a.at.cs) as usize];
            }
        }
        let (t, r) = (i / MB, i % MB);
        for (b, blk) in row.chunks_exact(QK).enumerate() {
            let amax = blk.iter().fold(0f32, |x, e| x.max(e.abs()));
            let scale = amax / 127.0;
            let inv = if scale > 0.0 { 1.0 / scale } else { 0.0 };
            let tb = t * kb + b;
            let codes = &mut q[tb * ATILE..(tb + 1) * ATILE];
            let mut v = [0i8; QK];
            #[cfg(target_arch = "x86_64")]
            let sum = if isa >= Isa::Avx2 {
                // SAFETY: AVX2 and FMA available (the front checked `isa`).
                unsafe { quantize_block_avx2(blk, inv, &mut v) }
            } else {
                quantize_block(blk, inv, &mut v)
            };
            #[cfg(not(target_arch = "x86_64"))]
            let sum = {
                let _ = isa;
                quantize_block(blk, inv, &mut v)
            };
            for (qd, quad) in v.chunks_exact(4).enumerate() {
                codes[qd * 4 * MB + r * 4..qd * 4 * MB + r * 4 + 4].copy_from_slice(quad);
            }
            d[tb * MB + r] = scale;
            s8[tb * MB + r] = 8 * sum;
            sa[tb * MB + r] = sum as f32;
        }
    }
    Acts { q, d, s8, sa, kb }
}

/// How B's blocks are stored: unpacked one panel of 8 columns at a time.
trait Weights: Sync {
    /// Planes of 4-bit codes per block (1, or 2 for `Q8_0`).
    const PLANES: usize;
    /// Whether the zeros are per column and block (`f32`), else `8` on the first plane only.
    const ZCOL: bool;
    fn k(&self) -> usize;
    fn n(&self) -> usize;
    /// Blocks `blocks` of panel `jp` (columns `8·jp ..`, those past n: codes 0, scales 0):
    /// `codes` `[block][plane][quad][column][4]`, `scales` `[block][plane][column]` (the
    /// plane's weight folded in), `zeros` `[block][column]` (`ZCOL` only).
    fn unpack(&self, isa: Isa, jp: usize, blocks: Range<usize>, out: Out<'_>);
}

/// The buffers [`Weights::unpack`] fills.
struct Out<'a> {
    codes: &'a mut [u8],
    scales: &'a mut [f32],
    zeros: &'a mut [f32],
}

/// Column `c`'s 32 codes of one block (in k order) into a plane: its k quads as 32-bit units,
/// one every 32 bytes.
#[inline(always)]
fn put_column(plane: &mut [u8], c: usize, codes: &[u8; QK]) {
    for (q, quad) in codes.chunks_exact(4).enumerate() {
        plane[q * 4 * NB + c * 4..q * 4 * NB + c * 4 + 4].copy_from_slice(quad);
    }
}

/// Where code `e` (0..32) of column `c` goes in a plane.
#[inline(always)]
fn slot(e: usize, c: usize) -> usize {
    (e / 4) * 4 * NB + c * 4 + e % 4
}

impl Weights for GgufMatrix<BlockQ4_0> {
    const PLANES: usize = 1;
    const ZCOL: bool = false;
    fn k(&self) -> usize {
        GgufMatrix::k(self)
    }
    fn n(&self) -> usize {
        GgufMatrix::n(self)
    }
    fn unpack(&self, _: Isa, jp: usize, blocks: Range<usize>, out: Out<'_>) {
        let Out { codes, scales, .. } = out;
        codes.fill(0);
        scales.fill(0.0);
        for c in 0..NB.min(self.n() - jp * NB) {
            let Some(col) = self.column(jp * NB + c) else {
                continue;
            };
            for (bi, blk) in col[blocks.clone()].iter().enumerate() {
                // codes 0..16 in the low nibbles, 16..32 in the high ones
                let mut v = [0u8; QK];
                let (lo, hi) = v.split_at_mut(QK / 2);
                for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(&blk.qs) {
                    (*l, *h) = (x & 0x0F, x >> 4);
                }
                put_column(&mut codes[bi * PLANE..(bi + 1) * PLANE], c, &v);
                scales[bi * NB + c] = blk.d.to_f32();
            }
        }
    }
}

impl Weights for GgufMatrix<BlockQ8_0> {
    const PLANES: usize = 2;
    const ZCOL: bool = false;
    fn k(&self) -> usize {
        GgufMatrix::k(self)
    }
    fn n(&self) -> usize {
        GgufMatrix::n(self)
    }
    fn unpack(&self, _: Isa, jp: usize, blocks: Range<usize>, out: Out<'_>) {
        let Out { codes, scales, .. } = out;
        codes.fill(0);
        scales.fill(0.0);
        for c in 0..NB.min(self.n() - jp * NB) {
            let Some(col) = self.column(jp * NB + c) else {
                continue;
            };
            for (bi, blk) in col[blocks.clone()].iter().enumerate() {
                let (hi, lo) = codes[bi * 2 * PLANE..(bi + 1) * 2 * PLANE].split_at_mut(PLANE);
                // q + 128 = 16·h + l: q = 16·(h − 8) + l
                let (mut h, mut l) = ([0u8; QK], [0u8; QK]);
                for ((h, l), &x) in h.iter_mut().zip(l.iter_mut()).zip(&blk.qs) {
                    let u = (x as u8) ^ 0x80;
                    (*h, *l) = (u >> 4, u & 0x0F);
                }
                put_column(hi, c, &h);
                put_column(lo, c, &l);
                let d = blk.d.to_f32();
                scales[bi * 2 * NB + c] = 16.0 * d;
                scales[bi * 2 * NB + NB + c] = d;
            }
        }
    }
}

impl Weights for Group4Matrix {
    const PLANES: usize = 1;
    const ZCOL: bool = true;
    fn k(&self) -> usize {
        Group4Matrix::k(self)
    }
    fn n(&self) -> usize {
        Group4Matrix::n(self)
    }
    fn unpack(&self, isa: Isa, jp: usize, blocks: Range<usize>, out: Out<'_>) {
        let Out {
            codes,
            scales,
            zeros,
        } = out;
        let (n, g) = (self.n(), self.group());
        codes.fill(0);
        scales.fill(0.0);
        zeros.fill(0.0);
        let cols = NB.min(n - jp * NB);
        let bytes = self.weights().as_bytes();
        let word = |w: usize| u32::from_le_bytes(bytes[4 * w..4 * w + 4].try_into().unwrap());
        for (o, bi) in blocks.enumerate() {
            let plane = &mut codes[o * PLANE..(o + 1) * PLANE];
            match self.access() {
                // rows 8r .. 8r + 8 of column j in word r·n + j
                Access::Gptq => {
                    for c in 0..cols {
                        let mut v = [0u8; QK];
                        for (r, v8) in v.chunks_exact_mut(8).enumerate() {
                            let w = word((bi * QK / 8 + r) * n + jp * NB + c);
                            for (e, x) in v8.iter_mut().enumerate() {
                                *x = ((w >> (4 * e)) & 0xF) as u8;
                            }
                        }
                        put_column(plane, c, &v);
                    }
                }
                // row p's eight columns 8·jp .. in word (p·n)/8 + jp (n a multiple of 8)
                Access::Awq => {
                    for q in 0..QK / 4 {
                        let w = [0, 1, 2, 3].map(|t| word(((bi * QK + 4 * q + t) * n) / 8 + jp));
                        let out = &mut plane[q * 4 * NB..(q + 1) * 4 * NB];
                        #[cfg(target_arch = "x86_64")]
                        if isa >= Isa::Avx2 {
                            // SAFETY: AVX2 (hence SSSE3) available: the front checked `isa`.
                            unsafe { x86::awq_quad(w, out) };
                            continue;
                        }
                        let _ = isa;
                        for (c, &sh) in crate::packed::AWQ_SHIFT.iter().enumerate() {
                            for (t, &wt) in w.iter().enumerate() {
                                out[c * 4 + t] = ((wt >> sh) & 0xF) as u8;
                            }
                        }
                    }
                }
                Access::General => {
                    for c in 0..cols {
                        for e in 0..QK {
                            plane[slot(e, c)] = self.code(bi * QK + e, jp * NB + c);
                        }
                    }
                }
            }
            let gi = bi * QK / g;
            for c in 0..cols {
                scales[o * NB + c] = self.scales()[gi * n + jp * NB + c];
                zeros[o * NB + c] = self.zero(gi, jp * NB + c);
            }
        }
    }
}

/// C as the tiles write it.
struct COut {
    c: *mut f32,
    sc: Strided,
    alpha: f32,
    beta: f32,
}

// SAFETY: the threads of one call write disjoint column ranges of C (an operand with no two
// elements at one location) and the pointer does not outlive the call (the splitter's scope).
unsafe impl Sync for COut {}

impl COut {
    /// `C[i][j] ← α·x + β·C[i][j]` (β = 0: C not read).
    ///
    /// # Safety
    /// (i, j) is an element of C owned by the calling thread.
    #[inline(always)]
    unsafe fn put(&self, i: usize, j: usize, x: f32) {
        // SAFETY: the caller's contract (C's elements are in bounds: the front's checks).
        unsafe {
            let p = self
                .c
                .offset(self.sc.origin + i as isize * self.sc.rs + j as isize * self.sc.cs);
            *p = if self.beta == 0.0 {
                self.alpha * x
            } else {
                self.alpha * x + self.beta * *p
            };
        }
    }
}

/// Runs the product (A `m × k` strided `f32`, B quantized `k × n` and [`supports`]ed, C
/// strided; checked by the front, the rule applied).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    isa: Isa,
    threads: usize,
    mkn: [usize; 3],
    alpha: f32,
    a: View<'_, f32>,
    b: QuantRef<'_>,
    beta: f32,
    c: (&mut [f32], Strided),
) {
    match b {
        QuantRef::Q4_0(q) => run_with(isa, threads, mkn, alpha, a, q, beta, c),
        QuantRef::Q8_0(q) => run_with(isa, threads, mkn, alpha, a, q, beta, c),
        QuantRef::Group4(q) => run_with(isa, threads, mkn, alpha, a, q, beta, c),
    }
}

#[allow(clippy::too_many_arguments)]
fn run_with<W: Weights>(
    isa: Isa,
    threads: usize,
    [m, k, n]: [usize; 3],
    alpha: f32,
    a: View<'_, f32>,
    b: &W,
    beta: f32,
    (c, sc): (&mut [f32], Strided),
) {
    debug_assert_eq!((b.k(), b.n()), (k, n));
    let acts = quantize_a(isa, &a, m, k);
    let out = COut {
        c: c.as_mut_ptr(),
        sc,
        alpha,
        beta,
    };
    let kb = k / QK;
    let tiles = m.div_ceil(MB);
    let panels = n.div_ceil(NB);
    let parts = threads.clamp(1, panels);
    super::threads::split(parts, &|t| {
        // (KCB blocks of B's panel, unpacked once, stay in L1 while every tile of A passes;
        // A's KCB blocks of all rows stay in L2 while NCP panels pass; the f32 sums of those
        // panels wait in `acc`)
        let mut codes = std::vec![0u8; KCB * W::PLANES * PLANE];
        let mut scales = std::vec![0f32; KCB * W::PLANES * NB];
        let mut zeros = std::vec![0f32; if W::ZCOL { KCB * NB } else { 0 }];
        let mut acc = std::vec![[[0f32; NB]; MB]; tiles * NCP];
        let (lo, hi) = (panels * t / parts, panels * (t + 1) / parts);
        for jc in (lo..hi).step_by(NCP) {
            let jps = jc..hi.min(jc + NCP);
            acc.fill([[0f32; NB]; MB]);
            for b0 in (0..kb).step_by(KCB) {
                let blocks = b0..kb.min(b0 + KCB);
                for jp in jps.clone() {
                    let o = Out {
                        codes: &mut codes,
                        scales: &mut scales,
                        zeros: &mut zeros,
                    };
                    b.unpack(isa, jp, blocks.clone(), o);
                    let panel = Panel {
                        codes: &codes,
                        scales: &scales,
                        zeros: &zeros,
                    };
                    for ti in 0..tiles {
                        let at = ti * NCP + (jp - jc);
                        tile::<W>(isa, &acts, ti, blocks.clone(), &panel, &mut acc[at]);
                    }
                }
            }
            for jp in jps {
                let cols = NB.min(n - jp * NB);
                for ti in 0..tiles {
                    let (i0, rows) = (ti * MB, MB.min(m - ti * MB));
                    let at = &acc[ti * NCP + (jp - jc)];
                    for (r, accr) in at.iter().enumerate().take(rows) {
                        for (cj, &x) in accr.iter().enumerate().take(cols) {
                            // SAFETY: (i0 + r, jp·8 + cj) is an element of C (r < rows ≤
                            // m − i0, cj < cols ≤ n − 8·jp) in this thread's panels.
                            unsafe { out.put(i0 + r, jp * NB + cj, x) };
                        }
                    }
                }
            }
        }
    });
}

/// One unpacked panel of B (see [`Weights::unpack`]).
struct Panel<'a> {
    codes: &'a [u8],
    scales: &'a [f32],
    zeros: &'a [f32],
}

/// One tile: A's tile `ti` × the panel over `blocks` (the panel's first blocks), added into
/// `acc`.
fn tile<W: Weights>(
    isa: Isa,
    acts: &Acts,
    ti: usize,
    blocks: Range<usize>,
    b: &Panel<'_>,
    acc: &mut [[f32; NB]; MB],
) {
    let (b0, kb) = (ti * acts.kb + blocks.start, blocks.len());
    let qa = &acts.q[b0 * ATILE..(b0 + kb) * ATILE];
    let (da, s8, sa) = (
        &acts.d[b0 * MB..(b0 + kb) * MB],
        &acts.s8[b0 * MB..(b0 + kb) * MB],
        &acts.sa[b0 * MB..(b0 + kb) * MB],
    );
    assert!(b.codes.len() >= kb * W::PLANES * PLANE && b.scales.len() >= kb * W::PLANES * NB);
    assert!(!W::ZCOL || b.zeros.len() >= kb * NB);
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 {
        let t = x86::Tile {
            qa,
            da,
            s8,
            sa,
            codes: b.codes,
            scales: b.scales,
            zeros: b.zeros,
            kb,
        };
        // SAFETY: AVX2 and FMA available (the front checked `isa`); the slices hold `kb`
        // blocks of the tile and of the panel (the asserts above and the slicing).
        unsafe { x86::tile6::<W>(&t, acc) };
        return;
    }
    #[cfg(target_arch = "aarch64")]
    if crate::isa::Ext::Dotprod.usable(isa) {
        // SAFETY: NEON and dotprod available (`usable` checked the CPU); the slices hold `kb`
        // blocks of the tile and of the panel (the asserts above and the slicing).
        unsafe { neon::tile_sdot::<W>(qa, (da, s8, sa), b, kb, acc) };
        return;
    }
    let _ = isa;
    for (r, accr) in acc.iter_mut().enumerate() {
        for bi in 0..kb {
            let (d, s8, sa) = (da[bi * MB + r], s8[bi * MB + r], sa[bi * MB + r]);
            for (cj, x) in accr.iter_mut().enumerate() {
                for pl in 0..W::PLANES {
                    let pc = &b.codes[(bi * W::PLANES + pl) * PLANE..];
                    let mut s = 0i32;
                    for e in 0..QK {
                        let code = pc[slot(e, cj)];
                        s += i32::from(code)
                            * i32::from(qa[bi * ATILE + (e / 4) * 4 * MB + r * 4 + e % 4]);
                    }
                    let db = b.scales[(bi * W::PLANES + pl) * NB + cj];
                    let y = if W::ZCOL {
                        (s as f32) - b.zeros[bi * NB + cj] * sa
                    } else if pl == 0 {
                        (s - s8) as f32
                    } else {
                        s as f32
                    };
                    *x += y * (db * d);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use super::{ATILE, MB, NB, PLANE, QK, Weights};

    /// Four AWQ words (rows `4q .. 4q + 4`, eight columns each) into one k quad of a plane:
    /// `out[4c + t]` = column c's code in word t. Column c sits at bit `AWQ_SHIFT[c]`: the
    /// low nibbles of bytes 0, 2, 1, 3 hold columns 0, 1, 4, 5, the high ones 2, 3, 6, 7.
    ///
    /// # Safety
    /// SSSE3 available.
    #[target_feature(enable = "ssse3")]
    pub(super) unsafe fn awq_quad(w: [u32; 4], out: &mut [u8]) {
        assert!(out.len() >= 32);
        let v = _mm_set_epi32(w[3] as i32, w[2] as i32, w[1] as i32, w[0] as i32);
        let m = _mm_set1_epi8(0x0F);
        let (lo, hi) = (_mm_and_si128(v, m), _mm_and_si128(_mm_srli_epi16(v, 4), m));
        // byte b of word t is at 4t + b; -1 writes a zero
        let pick = |b0: i8, b1: i8, first: bool| {
            let x = [b0, b0 + 4, b0 + 8, b0 + 12, b1, b1 + 4, b1 + 8, b1 + 12];
            let z = [-1i8; 8];
            let (a, b) = if first { (x, z) } else { (z, x) };
            _mm_setr_epi8(
                a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], b[0], b[1], b[2], b[3], b[4], b[5],
                b[6], b[7],
            )
        };
        let c0123 = _mm_or_si128(
            _mm_shuffle_epi8(lo, pick(0, 2, true)),
            _mm_shuffle_epi8(hi, pick(0, 2, false)),
        );
        let c4567 = _mm_or_si128(
            _mm_shuffle_epi8(lo, pick(1, 3, true)),
            _mm_shuffle_epi8(hi, pick(1, 3, false)),
        );
        // SAFETY: `out` holds 32 bytes (asserted above); unaligned stores.
        unsafe {
            _mm_storeu_si128(out.as_mut_ptr().cast(), c0123);
            _mm_storeu_si128(out.as_mut_ptr().add(16).cast(), c4567);
        }
    }

    /// One tile of A and one panel of B, as [`super::tile`] slices them.
    pub(super) struct Tile<'a> {
        pub qa: &'a [i8],
        pub da: &'a [f32],
        pub s8: &'a [i32],
        pub sa: &'a [f32],
        pub codes: &'a [u8],
        pub scales: &'a [f32],
        pub zeros: &'a [f32],
        pub kb: usize,
    }

    /// Four rows × eight columns over `kb` blocks: per block and plane eight k quads of
    /// `vpmaddubsw`(codes, broadcast activations) added in `i16`, one `vpmaddwd`(ones), the
    /// zero's term taken off (integer `8·S_a` on the first plane; or `z·S_a` in `f32` when
    /// `ZCOL`), converted and scaled by `d_b·d_a` into the `f32` accumulators (`acc` on
    /// entry).
    ///
    /// # Safety
    /// AVX2 and FMA available; `qa` holds `kb·128` codes, `da`, `s8`, `sa` `kb·4`, `codes`
    /// `kb·P·256`, `scales` `kb·P·8`, `zeros` `kb·8` when `ZCOL`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile6<W: Weights>(t: &Tile<'_>, acc: &mut [[f32; NB]; MB]) {
        let kb = t.kb;
        assert!(t.qa.len() >= kb * ATILE && t.da.len() >= kb * MB && t.s8.len() >= kb * MB);
        assert!(t.sa.len() >= kb * MB && t.codes.len() >= kb * W::PLANES * PLANE);
        assert!(t.scales.len() >= kb * W::PLANES * NB && (!W::ZCOL || t.zeros.len() >= kb * NB));
        // SAFETY: AVX2 and FMA (the caller's contract); every read is inside the slices
        // (asserted above: block `bi < kb` reads `qa[bi·128 .. +128]`, `da`/`s8`/`sa`
        // `[bi·4 .. +4]`, `codes[(bi·W::PLANES + p)·256 .. +256]`, `scales[(bi·W::PLANES + p)·8 .. +8]`,
        // `zeros[bi·8 .. +8]`).
        unsafe {
            let ones = _mm256_set1_epi16(1);
            let mut f = acc.map(|r| _mm256_loadu_ps(r.as_ptr()));
            let (mut qa, mut cb) = (t.qa.as_ptr(), t.codes.as_ptr());
            let (mut da, mut s8, mut sa) = (t.da.as_ptr(), t.s8.as_ptr(), t.sa.as_ptr());
            let (mut sc, mut zp) = (t.scales.as_ptr(), t.zeros.as_ptr());
            for _ in 0..kb {
                for p in 0..W::PLANES {
                    // each |pair sum| ≤ 2·15·127 = 3810: eight quads stay within 30480 < 2¹⁵
                    let mut s = [_mm256_setzero_si256(); MB];
                    for q in 0..QK / 4 {
                        let bv = _mm256_loadu_si256(cb.add(q * 4 * NB).cast());
                        for (r, sr) in s.iter_mut().enumerate() {
                            let a4 = qa.add(q * 4 * MB + r * 4).cast::<i32>().read_unaligned();
                            let x = _mm256_maddubs_epi16(bv, _mm256_set1_epi32(a4));
                            *sr = _mm256_add_epi16(*sr, x);
                        }
                    }
                    let db = _mm256_loadu_ps(sc);
                    for (r, (fr, sr)) in f.iter_mut().zip(&s).enumerate() {
                        let mut x = _mm256_madd_epi16(*sr, ones);
                        if !W::ZCOL && p == 0 {
                            x = _mm256_sub_epi32(x, _mm256_set1_epi32(*s8.add(r)));
                        }
                        let mut y = _mm256_cvtepi32_ps(x);
                        if W::ZCOL {
                            y = _mm256_fnmadd_ps(
                                _mm256_loadu_ps(zp),
                                _mm256_set1_ps(*sa.add(r)),
                                y,
                            );
                        }
                        let scale = _mm256_mul_ps(db, _mm256_set1_ps(*da.add(r)));
                        *fr = _mm256_fmadd_ps(y, scale, *fr);
                    }
                    cb = cb.add(PLANE);
                    sc = sc.add(NB);
                }
                qa = qa.add(ATILE);
                da = da.add(MB);
                s8 = s8.add(MB);
                sa = sa.add(MB);
                if W::ZCOL {
                    zp = zp.add(NB);
                }
            }
            for (o, v) in acc.iter_mut().zip(&f) {
                _mm256_storeu_ps(o.as_mut_ptr(), *v);
            }
        }
    }
}

/// The aarch64 tile: `sdot` by element (`FEAT_DotProd`).
#[cfg(target_arch = "aarch64")]
mod neon {
    use core::arch::aarch64::*;
    use core::arch::asm;

    use super::{ATILE, MB, NB, PLANE, Panel, QK, Weights};

    /// `acc` + the dot products of each 4-byte group of `b` (four columns' k quads, codes in
    /// [0, 15], exact as `i8`) with the quad of `a` in lane `R` (row R's four activations).
    ///
    /// # Safety
    /// NEON and dotprod available.
    #[inline(always)]
    unsafe fn sdot<const R: i32>(acc: int32x4_t, b: int8x16_t, a: int8x16_t) -> int32x4_t {
        let mut acc = acc;
        // SAFETY: the caller's contract (the instruction exists); registers only.
        unsafe {
            asm!(
                "sdot {acc:v}.4s, {b:v}.16b, {a:v}.4b[{r}]",
                acc = inout(vreg) acc,
                b = in(vreg) b,
                a = in(vreg) a,
                r = const R,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        acc
    }

    /// Four rows × eight columns over `kb` blocks, as the AVX2 tile: per block and plane
    /// eight k quads of `sdot` by element (A's quad of each row against B's two vectors of
    /// four columns' quads) summed exactly in `i32` (`|Σ| ≤ 32·15·127`), the zero's term taken
    /// off (integer `8·S_a` on the first plane; or `z·S_a` in `f32` when `ZCOL`), converted
    /// and scaled by `d_b·d_a` into the `f32` accumulators (`acc` on entry).
    ///
    /// # Safety
    /// NEON and dotprod available.
    #[target_feature(enable = "neon,dotprod")]
    pub(super) unsafe fn tile_sdot<W: Weights>(
        qa: &[i8],
        (da, s8, sa): (&[f32], &[i32], &[f32]),
        b: &Panel<'_>,
        kb: usize,
        acc: &mut [[f32; NB]; MB],
    ) {
        assert!(qa.len() >= kb * ATILE && da.len() >= kb * MB && s8.len() >= kb * MB);
        assert!(sa.len() >= kb * MB && b.codes.len() >= kb * W::PLANES * PLANE);
        assert!(b.scales.len() >= kb * W::PLANES * NB && (!W::ZCOL || b.zeros.len() >= kb * NB));
        // SAFETY: NEON and dotprod (the caller's contract); every read is inside the slices
        // (asserted above: block `bi < kb` reads `qa[bi·128 .. +128]`, `da`/`s8`/`sa`
        // `[bi·4 .. +4]`, `codes[(bi·P + p)·256 .. +256]`, `scales[(bi·P + p)·8 .. +8]`,
        // `zeros[bi·8 .. +8]`).
        unsafe {
            let mut f = acc.map(|r| [vld1q_f32(r.as_ptr()), vld1q_f32(r.as_ptr().add(4))]);
            let (mut qa, mut cb) = (qa.as_ptr(), b.codes.as_ptr().cast::<i8>());
            let (mut da, mut s8, mut sa) = (da.as_ptr(), s8.as_ptr(), sa.as_ptr());
            let (mut sc, mut zp) = (b.scales.as_ptr(), b.zeros.as_ptr());
            for _ in 0..kb {
                for p in 0..W::PLANES {
                    let mut s = [[vdupq_n_s32(0); 2]; MB];
                    let mut quad = |q: usize| {
                        let b0 = vld1q_s8(cb.add(q * 4 * NB));
                        let b1 = vld1q_s8(cb.add(q * 4 * NB + 16));
                        let a = vld1q_s8(qa.add(q * 4 * MB));
                        s[0] = [sdot::<0>(s[0][0], b0, a), sdot::<0>(s[0][1], b1, a)];
                        s[1] = [sdot::<1>(s[1][0], b0, a), sdot::<1>(s[1][1], b1, a)];
                        s[2] = [sdot::<2>(s[2][0], b0, a), sdot::<2>(s[2][1], b1, a)];
                        s[3] = [sdot::<3>(s[3][0], b0, a), sdot::<3>(s[3][1], b1, a)];
                    };
                    // the block's eight k quads in straight line (64 `sdot`, no loop branch)
                    const { assert!(QK / 4 == 8) };
                    quad(0);
                    quad(1);
                    quad(2);
                    quad(3);
                    quad(4);
                    quad(5);
                    quad(6);
                    quad(7);
                    let db = [vld1q_f32(sc), vld1q_f32(sc.add(4))];
                    for (r, (fr, sr)) in f.iter_mut().zip(&s).enumerate() {
                        let scale = vdupq_n_f32(*da.add(r));
                        for h in 0..2 {
                            let mut x = sr[h];
                            if !W::ZCOL && p == 0 {
                                x = vsubq_s32(x, vdupq_n_s32(*s8.add(r)));
                            }
                            let mut y = vcvtq_f32_s32(x);
                            if W::ZCOL {
                                y = vfmsq_f32(y, vld1q_f32(zp.add(4 * h)), vdupq_n_f32(*sa.add(r)));
                            }
                            fr[h] = vfmaq_f32(fr[h], y, vmulq_f32(db[h], scale));
                        }
                    }
                    cb = cb.add(PLANE);
                    sc = sc.add(NB);
                }
                qa = qa.add(ATILE);
                da = da.add(MB);
                s8 = s8.add(MB);
                sa = sa.add(MB);
                if W::ZCOL {
                    zp = zp.add(NB);
                }
            }
            for (o, v) in acc.iter_mut().zip(&f) {
                vst1q_f32(o.as_mut_ptr(), v[0]);
                vst1q_f32(o.as_mut_ptr().add(4), v[1]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::DynLayout;
    use crate::gemm::{MatMut, MatRef, Options, Packing, QuantB, gemm_quant};
    use crate::isa::Isa;
    use crate::packed::{
        Group4Format, Group4Matrix, GroupQuant, PackedFormat, PackedVec, QuantRef, QuantizedB,
        quantize_group4, quantize_q4_0, quantize_q8_0,
    };
    use std::boxed::Box;
    use std::string::String;
    use std::vec::Vec;

    struct Lcg(u32);
    impl Lcg {
        fn next(&mut self) -> u32 {
            self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            self.0 >> 8
        }
        fn int(&mut self, lo: i32, hi: i32) -> i32 {
            lo + (self.next() % (hi - lo + 1) as u32) as i32
        }
    }

    /// `gemm_quant` on A (row-major, or column-major when `a_cm`) and C (row- or
    /// column-major), with 8-bit activations when `int8`.
    #[allow(clippy::too_many_arguments)]
    fn run(
        isa: Isa,
        threads: usize,
        (m, k, n): (usize, usize, usize),
        a: &[f32],
        a_cm: bool,
        q: QuantRef<'_>,
        int8: bool,
        c0: &[f32],
        c_cm: bool,
        (alpha, beta): (f32, f32),
    ) -> Vec<f32> {
        let mut c = c0.to_vec();
        let (ars, acs) = if a_cm { (1, m) } else { (k, 1) };
        let (crs, ccs) = if c_cm { (1, m) } else { (n, 1) };
        gemm_quant(
            Options {
                isa,
                threads,
                packing: Packing::Auto,
            },
            alpha,
            MatRef {
                data: a,
                rows: m,
                cols: k,
                row_stride: ars as isize,
                col_stride: acs as isize,
            },
            if int8 {
                QuantB::int8_activations(q)
            } else {
                q.into()
            },
            beta,
            MatMut {
                data: &mut c,
                rows: m,
                cols: n,
                row_stride: crs as isize,
                col_stride: ccs as isize,
            },
        )
        .unwrap();
        c
    }

    /// Group-quantised weights with random codes and zeros and scale 1 (so every weight is an
    /// integer, `code − zero`): GPTQ, AWQ (whose word access needs n a multiple of 8: the
    /// general access otherwise) or a column-major layout with zero offset 1 (general access).
    fn group4(k: usize, n: usize, group: usize, kind: usize, g: &mut Lcg) -> Group4Matrix {
        let (quant, fmt) = match kind {
            0 => (GroupQuant::gptq(k, n, group).unwrap(), PackedFormat::gptq()),
            1 => (GroupQuant::awq(k, n, group).unwrap(), PackedFormat::awq()),
            _ => {
                let d: DynLayout = std::format!("({k},{n}):(1,{k})").parse().unwrap();
                (GroupQuant::new(d, group, 1).unwrap(), PackedFormat::gptq())
            }
        };
        let codes: Vec<u8> = (0..k * n).map(|_| g.int(0, 15) as u8).collect();
        let zeros: Vec<u8> = (0..k / group * n).map(|_| g.int(0, 15) as u8).collect();
        Group4Matrix::new(
            quant,
            PackedVec::from_values(fmt, &codes).unwrap(),
            std::vec![1.0; k / group * n],
            PackedVec::from_values(fmt, &zeros).unwrap(),
        )
        .unwrap()
    }

    /// Every format on integer weights: `Q4_0` (each block reaching −8: `d_b = 1`), `Q8_0`
    /// (each block reaching ±127: `d_b = 1`), GPTQ/AWQ/general groups of 32, 64, 128 (scale 1).
    fn integer_weights(k: usize, n: usize, g: &mut Lcg) -> Vec<(String, Owned)> {
        let w4: Vec<f32> = (0..k * n)
            .map(|t| {
                if (t / n) % 32 == 5 {
                    -8.0
                } else {
                    g.int(-8, 7) as f32
                }
            })
            .collect();
        let w8: Vec<f32> = (0..k * n)
            .map(|t| match (t / n) % 32 {
                7 => 127.0,
                9 => -127.0,
                _ => g.int(-127, 127) as f32,
            })
            .collect();
        let q4 = quantize_q4_0(k, n, &w4).unwrap();
        let q8 = quantize_q8_0(k, n, &w8).unwrap();
        assert_eq!(
            q4.dequantize().unwrap(),
            w4,
            "Q4_0 stores the weights exactly"
        );
        assert_eq!(
            q8.dequantize().unwrap(),
            w8,
            "Q8_0 stores the weights exactly"
        );
        let mut v: Vec<(String, Owned)> = std::vec![
            ("Q4_0".into(), Owned::Q4(q4)),
            ("Q8_0".into(), Owned::Q8(q8))
        ];
        for group in [32, 64, 128] {
            if k.is_multiple_of(group) {
                for kind in 0..3 {
                    v.push((
                        std::format!("group4 kind {kind} g{group}"),
                        Owned::G(Box::new(group4(k, n, group, kind, g))),
                    ));
                }
            }
        }
        v
    }

    /// An owned quantized matrix of any format.
    enum Owned {
        Q4(crate::packed::Q4_0Matrix),
        Q8(crate::packed::Q8_0Matrix),
        G(Box<Group4Matrix>),
    }

    fn quant_ref(q: &Owned) -> QuantRef<'_> {
        match q {
            Owned::Q4(x) => x.into(),
            Owned::Q8(x) => x.into(),
            Owned::G(x) => (&**x).into(),
        }
    }

    /// Integer-valued A whose every 32-block reaches ±127 (so `d_a = 1`) and weights stored
    /// exactly as integers: the result is the exact product, for every format, on every
    /// instruction set, one and two threads, A and C both ways, shapes off the 6 × 8 tile.
    #[test]
    fn exact_on_integer_valued_data() {
        let mut g = Lcg(17);
        for &(m, k, n) in &[
            (9usize, 32usize, 8usize),
            (13, 96, 21),
            (6, 64, 8),
            (31, 160, 3),
            (7, 128, 16),
            (20, 256, 13),
            // k in three passes of 16 blocks (16, 16, 3), n in two of 8 panels
            (5, 1120, 70),
        ] {
            for (name, q) in integer_weights(k, n, &mut g) {
                let w = quant_ref(&q).dequantize().unwrap();
                for isa in Isa::available() {
                    for (threads, a_cm, c_cm, ab) in [
                        (1, false, false, (1.0, 0.0)),
                        (2, true, true, (2.0, -1.0)),
                        (2, false, true, (-1.0, 0.5)),
                    ] {
                        // A m × k, logical (i, p); every block of a row holds ±127
                        let av: Vec<f32> = (0..m * k)
                            .map(|t| {
                                let p = t % k;
                                if p % 32 == 3 {
                                    if t % 2 == 0 { 127.0 } else { -127.0 }
                                } else {
                                    g.int(-127, 127) as f32
                                }
                            })
                            .collect();
                        let a: Vec<f32> = if a_cm {
                            (0..m * k).map(|t| av[(t % m) * k + t / m]).collect()
                        } else {
                            av.clone()
                        };
                        let c0: Vec<f32> = (0..m * n).map(|_| g.int(-50, 50) as f32).collect();
                        let qr = quant_ref(&q);
                        let c = run(isa, threads, (m, k, n), &a, a_cm, qr, true, &c0, c_cm, ab);
                        for i in 0..m {
                            for j in 0..n {
                                let s: i64 = (0..k)
                                    .map(|p| av[i * k + p] as i64 * w[p * n + j] as i64)
                                    .sum();
                                let at = if c_cm { i + j * m } else { i * n + j };
                                let want = f64::from(ab.0) * s as f64
                                    + f64::from(ab.1) * f64::from(c0[at]);
                                assert_eq!(
                                    f64::from(c[at]),
                                    want,
                                    "{name} {isa:?} {m}x{k}x{n} t{threads} ({i},{j})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Random data: the 8-bit route stays within 1 % (relative Frobenius error) of the `f32`
    /// route on the same weights, for every format, on every instruction set.
    #[test]
    fn close_to_the_f32_route() {
        let mut g = Lcg(23);
        let (m, k, n) = (37, 256, 45);
        let w: Vec<f32> = (0..k * n)
            .map(|_| g.int(-1000, 1000) as f32 / 1000.0)
            .collect();
        let a: Vec<f32> = (0..m * k)
            .map(|_| g.int(-1000, 1000) as f32 / 300.0)
            .collect();
        let qs: Vec<(&str, Owned)> = std::vec![
            ("Q4_0", Owned::Q4(quantize_q4_0(k, n, &w).unwrap())),
            ("Q8_0", Owned::Q8(quantize_q8_0(k, n, &w).unwrap())),
            (
                "GPTQ g64",
                Owned::G(Box::new(
                    quantize_group4(k, n, &w, 64, Group4Format::Gptq).unwrap()
                )),
            ),
            (
                "AWQ g128",
                Owned::G(Box::new(
                    quantize_group4(k, n, &w, 128, Group4Format::Awq).unwrap()
                )),
            ),
        ];
        let c0 = std::vec![0f32; m * n];
        for (name, q) in &qs {
            let qr = quant_ref(q);
            let isa = Isa::selected_for_gemm();
            let f32route = run(
                isa,
                1,
                (m, k, n),
                &a,
                false,
                qr,
                false,
                &c0,
                false,
                (1.0, 0.0),
            );
            for isa in Isa::available() {
                let c = run(
                    isa,
                    2,
                    (m, k, n),
                    &a,
                    false,
                    qr,
                    true,
                    &c0,
                    false,
                    (1.0, 0.0),
                );
                let num: f64 = c
                    .iter()
                    .zip(&f32route)
                    .map(|(x, y)| f64::from(x - y).powi(2))
                    .sum();
                let den: f64 = f32route.iter().map(|y| f64::from(*y).powi(2)).sum();
                let rel = (num / den).sqrt();
                std::eprintln!("{name} {isa:?}: 8-bit activations vs the f32 route: {rel:.2e}");
                assert!(
                    rel > 0.0 && rel < 1e-2,
                    "{name} {isa:?}: relative error {rel}"
                );
            }
        }
    }

    /// The vectorizable rounding is `f32::round` (halves away from zero) on quarter steps
    /// over ±2¹⁸ (every tie), on integers past 2²³ and on random bit patterns; the AVX2 block
    /// quantizer agrees with the plain one.
    #[test]
    fn rounding_is_f32_round() {
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_imports))]
        use super::{QK, quantize_block, round_half_away};
        for i in -(1i32 << 20)..(1 << 20) {
            let x = i as f32 * 0.25;
            assert_eq!(round_half_away(x).to_bits(), x.round().to_bits(), "{x}");
        }
        let mut g = Lcg(31);
        for _ in 0..200_000 {
            let x = f32::from_bits(g.next() << 8 | g.next() & 0xFF);
            if x.is_finite() {
                assert_eq!(round_half_away(x).to_bits(), x.round().to_bits(), "{x:e}");
            }
        }
        #[cfg(target_arch = "x86_64")]
        if Isa::Avx2.is_available() {
            for _ in 0..2000 {
                let blk: Vec<f32> = (0..QK)
                    .map(|_| g.int(-40000, 40000) as f32 / 64.0)
                    .collect();
                let inv = g.int(1, 1000) as f32 / 4096.0;
                let (mut x, mut y) = ([0i8; QK], [0i8; QK]);
                // SAFETY: AVX2 and FMA checked just above.
                let sx = unsafe { super::quantize_block_avx2(&blk, inv, &mut x) };
                let sy = quantize_block(&blk, inv, &mut y);
                assert_eq!((x, sx), (y, sy));
            }
        }
    }

    /// Groups that are not a multiple of 32 rows take the `f32` route: bit for bit the
    /// default's result.
    #[test]
    fn groups_off_the_blocks_take_the_f32_route() {
        let mut g = Lcg(29);
        let (m, k, n) = (11, 96, 10);
        let w: Vec<f32> = (0..k * n).map(|_| g.int(-900, 900) as f32 / 77.0).collect();
        let a: Vec<f32> = (0..m * k).map(|_| g.int(-900, 900) as f32 / 31.0).collect();
        let q = quantize_group4(k, n, &w, 16, Group4Format::Gptq).unwrap();
        let c0 = std::vec![0f32; m * n];
        for isa in Isa::available() {
            let qr = QuantRef::from(&q);
            let x = run(
                isa,
                1,
                (m, k, n),
                &a,
                false,
                qr,
                true,
                &c0,
                false,
                (1.0, 0.0),
            );
            let y = run(
                isa,
                1,
                (m, k, n),
                &a,
                false,
                qr,
                false,
                &c0,
                false,
                (1.0, 0.0),
            );
            assert_eq!(x, y, "{isa:?}");
        }
    }

    /// The extreme block: codes 15 against activations of ±127 everywhere, so every pair sum
    /// is ±3810 and a block's eight quads sum to ±30480 in `i16`: still exact (`Q4_0`: value 7
    /// with one −8 per block; `Q8_0`: 127 and −127, both nibbles of 255 and of 1).
    #[test]
    fn the_i16_block_sums_hold_at_the_extremes() {
        let (m, k, n) = (12usize, 64usize, 9usize);
        // column j: 7 everywhere but one −8 per block (so d_b = 1, code 0 there)
        let w4: Vec<f32> = (0..k * n)
            .map(|t| if (t / n) % 32 == 31 { -8.0 } else { 7.0 })
            .collect();
        let q4 = quantize_q4_0(k, n, &w4).unwrap();
        let q8p = quantize_q8_0(k, n, &std::vec![127.0; k * n]).unwrap();
        let q8n = quantize_q8_0(k, n, &std::vec![-127.0; k * n]).unwrap();
        for sign in [1.0f32, -1.0] {
            let a = std::vec![127.0 * sign; m * k];
            let c0 = std::vec![0f32; m * n];
            for isa in Isa::available() {
                for (q, want) in [
                    (QuantRef::from(&q4), 127.0 * sign * (7.0 * 62.0 - 8.0 * 2.0)),
                    (QuantRef::from(&q8p), 127.0 * sign * 127.0 * 64.0),
                    (QuantRef::from(&q8n), -127.0 * sign * 127.0 * 64.0),
                ] {
                    let c = run(
                        isa,
                        1,
                        (m, k, n),
                        &a,
                        false,
                        q,
                        true,
                        &c0,
                        false,
                        (1.0, 0.0),
                    );
                    assert!(
                        c.iter().all(|&x| x == want),
                        "{isa:?} {sign}: {:?} != {want}",
                        &c[..3]
                    );
                }
            }
        }
    }
}
