//! Quantized weights on 8-bit activations (prefill): `C ← α·A·B + β·C` with B in GGUF
//! `Q4_0`, `Q8_0` or GPTQ/AWQ 4-bit groups and A quantized per row and 32-block to 8 bits as
//! llama.cpp's `Q8_0` activations.
//!
//! Each row of A is cut into 32-blocks; each block gets `d_a = max|a| / 127` and codes
//! `q_a = round(a / d_a)` in [−127, 127]. B's block holds codes `c` with a scale `d_b` per
//! column (and, for groups, a zero `z`):
//!
//! - `Q4_0`: codes in [0, 15], `(c − 8)·d_b`. `vpmaddubsw` takes the codes as the unsigned
//!   operand: a pair sum is at most 2·15·127 = 3810. Each `i16` lane of a block's sum starts at
//!   `−8·Σ q_a` over its own 16 k values (`|·| ≤ 16256`), so it ends at `Σ (c − 8)·q_a` over
//!   those 16 values, `|·| ≤ 16·8·127 = 16256`: the lanes wrap on the way (`vpaddw` is modular)
//!   but end exact, and no offset is left for the epilogue.
//! - GPTQ/AWQ (groups a multiple of 32): codes in [0, 15], `(c − z)·s` with `z`, `s` per group
//!   and column: a lane sums `Σ c·q_a ≤ 16·15·127 = 30480` in `i16`, so the block loop is
//!   `Q4_0`'s without the offsets; the zeros' term is taken off in `f32` once per group, not
//!   per block: `Σ_g (Σ_{blocks of g} d_a·S_a)·(s·z)` with `S_a = Σ q_a` (the AVX2 tiles;
//!   the NEON and plain tiles take `z·S_a` off per block, exact while `|z·S_a| < 2²⁴`:
//!   `zero_exact`).
//! - `Q8_0`: codes in [−128, 127], one plane, the sign on the activation: `vpmaddubsw` of the
//!   magnitude `|c| ≤ 128` (unsigned) and `sign(c)·q_a ∈ [−127, 127]` (`vpsignb`), so a pair
//!   sum is at most 2·128·127 = 32512 < 2¹⁵, widened into `i32` at once (`vpmaddwd` by ones).
//!   (The sign cannot go on the weight: −(−128) is not an `i8`.)
//! - `Q8_0` with 7-bit activations ([`Codes::Seven`]: `QuantB::int7_activations`, codes in
//!   [−63, 63]), AVX2: A's codes stored +64 (in [1, 127]) are `vpmaddubsw`'s unsigned operand
//!   and B's codes as stored the signed one, oneDNN's u8×s8 step (`vpmaddubsw`, `vpmaddwd`
//!   ones, `vpaddd`: 3 µops per 32 multiply-adds against the sign's 4): a pair sum is at most
//!   2·127·128 = 32512. The `i32` sums start at `−64·Σ c` (per block and column, summed once
//!   per unpacked panel), so they end at `Σ c·q_a`. Elsewhere (NEON, plain) the 7-bit codes go
//!   through the 8-bit tiles unshifted.
//!
//! So `C[i][j] = Σ_blocks d_a·d_b·(Σ₃₂ c'·q_a)` with an exact integer inner sum, one
//! conversion and one scaling per block, row and column vector.
//!
//! A is packed per 3-row tile, block-interleaved (`[block][row][32]`, then the rows'
//! `d_a`, lane offsets and `Σ q_a`), so a tile reads one contiguous stream. B is unpacked
//! 16 blocks (512 k values) of one 16-column panel at a time (`[block][plane][quad][column][4]`
//! and the scales: 8 KiB for 4-bit codes, in L1; the nibbles split and transposed four
//! columns at a time in registers) into a buffer of the thread's and read by every tile of A;
//! four panels pass over the same 512 k values of A (in L2) before the next ones, their `f32`
//! sums kept in a buffer between the passes. Every block of B is unpacked once per call. AVX2
//! tiles of 3 rows × 16 columns: six `i16` (or `i32`) sums, six `f32` accumulators, two B
//! vectors and one broadcast activation quad in registers. With AVX512-VNNI at the AVX-512
//! level, zmm tiles of two tiles of A (6 rows) × 16 columns ([`x86::tile_zmm`]): a panel's k
//! quad of 16 columns is one zmm, one `vpdpbusd` per row and quad; `Q8_0` there takes A's
//! codes shifted (+128, or +64 for 7-bit codes) as the unsigned operand and B's codes as the
//! signed one (AVX-512 has no `vpsignb`), the sums started at `−shift·Σ c`. With AVX-VNNI at
//! the AVX2 level, the 3 × 16 tile on ymm `vpdpbusd` ([`x86::tile_vnni`]). Every x86 tile
//! gives the same integer sums and scales them in the same order: the same results, bit for
//! bit. On aarch64 with dotprod, NEON tiles
//! of the same shape on the same packing (`sdot` by element, in two passes of eight columns).
//! Plain Rust below AVX2 and without dotprod. Threads split the panels.
//!
//! A row of A holding a NaN or an infinity is not quantized: [`run`] reports it, and the
//! caller computes that row on the `f32` route, so non-finite inputs give the `f32` route's
//! non-finite outputs.
//!
//! The only approximation is A's quantization (relative error about `1/254` per block and
//! element); on integer-valued A whose blocks each reach ±127 (so `d_a = 1`) and B whose scales
//! are exact, the result is exact.

use core::ops::Range;
use std::vec::Vec;

use super::check::Strided;
use super::view::View;
use crate::isa::Isa;
use crate::packed::{
    Access, BlockQ4_0, BlockQ8_0, GgufBlock, GgufMatrix, Group4Matrix, QK, QuantRef,
};

/// Columns per panel (two ymm of `f32`).
const NB: usize = 16;
/// Rows per tile.
const MB: usize = 3;
/// Code bytes per block, plane and panel: 8 quads × 16 columns × 4.
const PLANE: usize = QK * NB;
/// Code bytes per block and tile of A: 8 quads × 3 rows × 4.
const ATILE: usize = QK * MB;
/// Blocks of k per pass over the tiles of A (512 k values: A's rows of them stay in L2).
const KCB: usize = 16;
/// Panels of B per pass over A (their `f32` sums kept between the passes).
const NCP: usize = 4;
/// Tiles of A per zmm tile ([`x86::tile_zmm`]: `3·ZT` rows × 16 columns).
const ZT: usize = 2;

/// Whether `isa` runs the zmm tile ([`x86::tile_zmm`]): AVX512-VNNI at the AVX-512 level.
fn wide(isa: Isa) -> bool {
    cfg!(target_arch = "x86_64") && crate::isa::vnni(isa) == Some(crate::isa::Vnni::Avx512)
}

/// The shift of A's codes (stored `+shift` as unsigned bytes, B's codes the signed operand,
/// the sums started at `−shift·Σ c`), or 0: `Q8_0` on the zmm tile (128 on 8-bit activations,
/// 64 on 7-bit ones) and on the AVX2 tile of [`unsigned_acts`] (64).
fn act_shift(isa: Isa, kind: Kind, codes: Codes) -> u8 {
    if kind == Kind::Signed && wide(isa) {
        match codes {
            Codes::Eight => 128,
            Codes::Seven => 64,
        }
    } else if unsigned_acts(isa, kind, codes) {
        64
    } else {
        0
    }
}

/// Whether `q` takes this route: `Q4_0`, `Q8_0`, and groups of a multiple of 32 rows whose
/// zero points are exact and whose scale may be factored out of a group's sum.
pub(crate) fn supports(q: QuantRef<'_>) -> bool {
    match q {
        QuantRef::Q4_0(_) | QuantRef::Q8_0(_) => true,
        QuantRef::Group4(g) => g.group().is_multiple_of(QK) && g.zero_exact() && g.factored(),
    }
}

/// The activations' code range: `round(a / d)` with `d = max|a| / max` per 32-block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Codes {
    /// [−127, 127] (`QuantB::int8_activations`).
    Eight,
    /// [−63, 63] (`QuantB::int7_activations`): `Q8_0` on AVX2 takes [`x86::tile_u7`].
    Seven,
}

impl Codes {
    /// The largest code.
    fn max(self) -> f32 {
        match self {
            Codes::Eight => 127.0,
            Codes::Seven => 63.0,
        }
    }
}

/// Whether `Q8_0` (`kind`) with `codes` takes the u8 × i8 tile ([`x86::tile_u7`]): A's codes
/// stored shifted by +64 (unsigned), B's codes read as they are.
fn unsigned_acts(isa: Isa, kind: Kind, codes: Codes) -> bool {
    cfg!(target_arch = "x86_64")
        && isa >= Isa::Avx2
        && kind == Kind::Signed
        && codes == Codes::Seven
}

/// A quantized per row and block, packed per tile of `MB` rows (rows past m are zeros):
/// codes `[tile][block][row][32]`, and per `[tile][block][row]` the scale `d_a`, the
/// lane offsets (`−8·Σ q_a` over bytes 0, 1 of each quad in the low half, over bytes 2, 3 in
/// the high half) and `S_a = Σ q_a` (as `f32`). `bad`: the rows holding a NaN or an infinity
/// (their codes zeros).
struct Acts {
    q: Vec<i8>,
    d: Vec<f32>,
    off: Vec<i32>,
    sa: Vec<f32>,
    kb: usize,
    bad: Vec<usize>,
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

/// One block of a row: its 32 codes `round(x·inv)` clamped to ±`qmax` into `out`; the sums
/// of the codes at k ≡ 0, 1 and at k ≡ 2, 3 (mod 4).
fn quantize_block(blk: &[f32], inv: f32, qmax: f32, out: &mut [i8]) -> [i32; 2] {
    for (o, &x) in out.iter_mut().zip(blk) {
        *o = round_half_away(x * inv).clamp(-qmax, qmax) as i8;
    }
    let mut sum = [0i32; 2];
    for quad in out.chunks_exact(4) {
        sum[0] += i32::from(quad[0]) + i32::from(quad[1]);
        sum[1] += i32::from(quad[2]) + i32::from(quad[3]);
    }
    sum
}

/// The block's scale `max|x| / qmax` and the factor that makes its codes (0 for a zero block;
/// at most `f32::MAX` for a subnormal one).
#[inline]
fn block_scale(amax: f32, qmax: f32) -> (f32, f32) {
    let scale = amax / qmax;
    let inv = if scale > 0.0 {
        (1.0 / scale).min(f32::MAX)
    } else {
        0.0
    };
    (scale, inv)
}

/// Whether every element of `row` is finite.
fn finite(row: &[f32]) -> bool {
    row.iter().all(|x| x.is_finite())
}

/// A's row (k finite values) into row `r` of its tile: codes `q` (`[block][row][32]`, `ATILE`
/// bytes per block), scales `d`, lane offsets `off` and sums `sa` (`[block][row]`).
fn quantize_row(
    row: &[f32],
    r: usize,
    qmax: f32,
    q: &mut [i8],
    d: &mut [f32],
    off: &mut [i32],
    sa: &mut [f32],
) {
    for (b, blk) in row.chunks_exact(QK).enumerate() {
        let amax = blk.iter().fold(0f32, |x, e| x.max(e.abs()));
        let (scale, inv) = block_scale(amax, qmax);
        let codes = &mut q[b * ATILE + r * QK..b * ATILE + (r + 1) * QK];
        let sum = quantize_block(blk, inv, qmax, codes);
        d[b * MB + r] = scale;
        // two i16 halves, each |8·Σ| ≤ 8·16·127 = 16256
        off[b * MB + r] =
            i32::from((-8 * sum[0]) as i16 as u16) | (i32::from((-8 * sum[1]) as i16) << 16);
        sa[b * MB + r] = (sum[0] + sum[1]) as f32;
    }
}

/// A quantized to `codes` (see [`Acts`]); with `shift` > 0, the codes of every row stored
/// `+shift` as unsigned bytes (64: in [1, 127], for [`x86::tile_u7`]; 128: in [1, 255], for the
/// zmm tile's `Q8_0`, [`x86::tile_zmm`]; the offsets and sums stay the signed codes').
fn quantize_a(isa: Isa, a: &View<'_, f32>, m: usize, k: usize, codes: Codes, shift: u8) -> Acts {
    let qmax = codes.max();
    let kb = k / QK;
    let tiles = m.div_ceil(MB);
    let mut q = std::vec![0i8; tiles * kb * ATILE];
    let mut d = std::vec![0f32; tiles * kb * MB];
    let mut off = std::vec![0i32; tiles * kb * MB];
    let mut sa = std::vec![0f32; tiles * kb * MB];
    let mut bad = Vec::new();
    let mut row = std::vec![0f32; k];
    for i in 0..m {
        let base = a.at.origin + i as isize * a.at.rs;
        let src = if a.at.cs == 1 {
            &a.data[base as usize..base as usize + k]
        } else {
            for (p, x) in row.iter_mut().enumerate() {
                *x = a.data[(base + p as isize * a.at.cs) as usize];
            }
            &row[..]
        };
        let (t, r) = (i / MB, i % MB);
        let (q, d, off, sa) = (
            &mut q[t * kb * ATILE..(t + 1) * kb * ATILE],
            &mut d[t * kb * MB..(t + 1) * kb * MB],
            &mut off[t * kb * MB..(t + 1) * kb * MB],
            &mut sa[t * kb * MB..(t + 1) * kb * MB],
        );
        let plain = |q: &mut [i8], d: &mut [f32], off: &mut [i32], sa: &mut [f32]| {
            let ok = finite(src);
            if ok {
                quantize_row(src, r, qmax, q, d, off, sa);
            }
            ok
        };
        #[cfg(target_arch = "x86_64")]
        let ok = if isa >= Isa::Avx2 {
            // SAFETY: AVX2 and FMA available (the front checked `isa`).
            unsafe { x86::quantize_row(src, r, qmax, q, d, off, sa) }
        } else {
            plain(q, d, off, sa)
        };
        #[cfg(not(target_arch = "x86_64"))]
        let ok = {
            let _ = isa;
            plain(q, d, off, sa)
        };
        if !ok {
            // codes, scales and sums zeroed: the caller runs this row on the f32 route
            for b in 0..kb {
                q[b * ATILE + r * QK..b * ATILE + (r + 1) * QK].fill(0);
                (d[b * MB + r], off[b * MB + r], sa[b * MB + r]) = (0.0, 0, 0.0);
            }
            bad.push(i);
        }
    }
    if shift > 0 {
        // codes in [−63, 63] (64) or [−127, 127] (128), as bytes (zeros for the rows left to
        // the f32 route, whose scales are 0)
        for x in q.iter_mut() {
            *x = (*x as u8).wrapping_add(shift) as i8;
        }
    }
    Acts {
        q,
        d,
        off,
        sa,
        kb,
        bad,
    }
}

/// How a format's codes enter the integer sums.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `Q4_0`: codes in [0, 15] less the constant 8 (the lane offsets of A).
    Nibbles,
    /// GPTQ/AWQ: codes in [0, 15] less a zero per block and column (`f32`).
    Zeros,
    /// `Q8_0`: two planes, the magnitudes `|c|` and the codes `c` (signs for A).
    Signed,
}

/// How B's blocks are stored: unpacked one panel of `NB` columns at a time.
trait Weights: Sync {
    const KIND: Kind;
    fn k(&self) -> usize;
    fn n(&self) -> usize;
    /// Blocks `blocks` of panel `jp` (columns `NB·jp ..`, those past n: codes 0, scales 0):
    /// `codes` `[block][plane][quad][column][4]`, `scales` `[block][column]`, `zeros`
    /// `[block][column]` (`Kind::Zeros` only).
    fn unpack(&self, isa: Isa, jp: usize, blocks: Range<usize>, out: Out<'_>);
    /// Blocks per group of a kind with zeros (`Kind::Zeros`), else 0.
    fn group_blocks(&self) -> usize {
        0
    }
    /// Panel `jp`'s zero terms `s·z` per group and column, `[group][column]` (columns past n:
    /// 0); `Kind::Zeros` only.
    fn zero_terms(&self, _jp: usize, _out: &mut [f32]) {}
}

/// The planes per block of a kind.
const fn planes(kind: Kind) -> usize {
    match kind {
        Kind::Signed => 2,
        _ => 1,
    }
}

/// The buffers [`Weights::unpack`] fills.
struct Out<'a> {
    codes: &'a mut [u8],
    scales: &'a mut [f32],
    zeros: &'a mut [f32],
}

/// Column `c`'s 32 codes of one block (in k order) into a plane: its k quads as 32-bit units,
/// one every `4·NB` bytes.
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

/// A GGUF block as the route splits it into planes of 32 codes (in k order).
trait Split: GgufBlock {
    /// The block's planes (`planes` of them: 1 or 2) and its scale.
    fn split(&self, v: &mut [[u8; QK]; 2]) -> f32;
    /// The same planes as vectors: quads 0..4 in the low lane, 4..8 in the high one.
    ///
    /// # Safety
    /// AVX2 available.
    #[cfg(target_arch = "x86_64")]
    unsafe fn split_avx2(&self) -> [core::arch::x86_64::__m256i; 2];
}

impl Split for BlockQ4_0 {
    fn split(&self, v: &mut [[u8; QK]; 2]) -> f32 {
        // codes 0..16 in the low nibbles, 16..32 in the high ones
        let (lo, hi) = v[0].split_at_mut(QK / 2);
        for ((l, h), &x) in lo.iter_mut().zip(hi.iter_mut()).zip(&self.qs) {
            (*l, *h) = (x & 0x0F, x >> 4);
        }
        self.d.to_f32()
    }
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn split_avx2(&self) -> [core::arch::x86_64::__m256i; 2] {
        use core::arch::x86_64::*;
        // SAFETY: AVX2 (the caller's contract); `qs` holds 16 bytes.
        unsafe {
            let x = _mm_loadu_si128(self.qs.as_ptr().cast());
            let m = _mm_set1_epi8(0x0F);
            let (lo, hi) = (_mm_and_si128(x, m), _mm_and_si128(_mm_srli_epi16(x, 4), m));
            [_mm256_set_m128i(hi, lo), _mm256_setzero_si256()]
        }
    }
}

impl Split for BlockQ8_0 {
    fn split(&self, v: &mut [[u8; QK]; 2]) -> f32 {
        // magnitudes (|−128| = 128 as u8) and the codes themselves (their signs)
        let [mag, sgn] = v;
        for ((a, s), &x) in mag.iter_mut().zip(sgn.iter_mut()).zip(&self.qs) {
            (*a, *s) = (x.unsigned_abs(), x as u8);
        }
        self.d.to_f32()
    }
    #[cfg(target_arch = "x86_64")]
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn split_avx2(&self) -> [core::arch::x86_64::__m256i; 2] {
        use core::arch::x86_64::*;
        // SAFETY: AVX2 (the caller's contract); `qs` holds 32 bytes.
        unsafe {
            let x = _mm256_loadu_si256(self.qs.as_ptr().cast());
            [_mm256_abs_epi8(x), x]
        }
    }
}

/// The GGUF formats' unpacking, shared: each block of each column of panel `jp` split into
/// its `planes` planes and its scale; with AVX2, four columns at a time transposed in
/// registers.
fn unpack_gguf<B: Split>(
    m: &GgufMatrix<B>,
    isa: Isa,
    jp: usize,
    blocks: Range<usize>,
    out: Out<'_>,
    planes: usize,
) {
    let Out { codes, scales, .. } = out;
    let cols = NB.min(m.n() - jp * NB);
    if cols < NB {
        codes.fill(0);
        scales.fill(0.0);
    }
    let col = |c: usize| &m.column(jp * NB + c).expect("a column of B")[blocks.clone()];
    // columns below c0 four at a time in registers
    #[cfg(target_arch = "x86_64")]
    let c0 = if isa >= Isa::Avx2 {
        for c in (0..cols / 4 * 4).step_by(4) {
            let four = [col(c), col(c + 1), col(c + 2), col(c + 3)];
            // SAFETY: AVX2 available (the front checked `isa`).
            unsafe { x86::unpack4(four, c, codes, scales, planes) };
        }
        cols / 4 * 4
    } else {
        0
    };
    #[cfg(not(target_arch = "x86_64"))]
    let c0 = {
        let _ = isa;
        0
    };
    for c in c0..cols {
        for (bi, blk) in col(c).iter().enumerate() {
            let mut v = [[0u8; QK]; 2];
            scales[bi * NB + c] = blk.split(&mut v);
            let bc = &mut codes[bi * planes * PLANE..(bi + 1) * planes * PLANE];
            for (p, vp) in v.iter().enumerate().take(planes) {
                put_column(&mut bc[p * PLANE..(p + 1) * PLANE], c, vp);
            }
        }
    }
}

impl Weights for GgufMatrix<BlockQ4_0> {
    const KIND: Kind = Kind::Nibbles;
    fn k(&self) -> usize {
        GgufMatrix::k(self)
    }
    fn n(&self) -> usize {
        GgufMatrix::n(self)
    }
    fn unpack(&self, isa: Isa, jp: usize, blocks: Range<usize>, out: Out<'_>) {
        unpack_gguf(self, isa, jp, blocks, out, 1);
    }
}

impl Weights for GgufMatrix<BlockQ8_0> {
    const KIND: Kind = Kind::Signed;
    fn k(&self) -> usize {
        GgufMatrix::k(self)
    }
    fn n(&self) -> usize {
        GgufMatrix::n(self)
    }
    fn unpack(&self, isa: Isa, jp: usize, blocks: Range<usize>, out: Out<'_>) {
        unpack_gguf(self, isa, jp, blocks, out, 2);
    }
}

impl Weights for Group4Matrix {
    const KIND: Kind = Kind::Zeros;
    fn group_blocks(&self) -> usize {
        self.group() / QK
    }
    fn zero_terms(&self, jp: usize, out: &mut [f32]) {
        let n = self.n();
        let cols = NB.min(n - jp * NB);
        for (gi, o) in out.chunks_exact_mut(NB).enumerate() {
            o.fill(0.0);
            for (c, x) in o.iter_mut().enumerate().take(cols) {
                let j = jp * NB + c;
                *x = self.scales()[gi * n + j] * self.zero(gi, j);
            }
        }
    }
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
        let cols = NB.min(n - jp * NB);
        if cols < NB {
            codes.fill(0);
            scales.fill(0.0);
            zeros.fill(0.0);
        }
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
                // row p's eight columns 8h .. 8h + 8 in word (p·n)/8 + h (n a multiple of 8,
                // so `cols` too)
                Access::Awq => {
                    for q in 0..QK / 4 {
                        for h in 0..cols / 8 {
                            let w = [0, 1, 2, 3]
                                .map(|t| word(((bi * QK + 4 * q + t) * n) / 8 + jp * NB / 8 + h));
                            let out = &mut plane[q * 4 * NB + 32 * h..q * 4 * NB + 32 * (h + 1)];
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
/// strided; checked by the front, the rule applied). Returns the rows of A holding a NaN or an
/// infinity, in increasing order: their rows of C are left untouched, for the `f32` route.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    isa: Isa,
    codes: Codes,
    threads: usize,
    mkn: [usize; 3],
    alpha: f32,
    a: View<'_, f32>,
    b: QuantRef<'_>,
    beta: f32,
    c: (&mut [f32], Strided),
) -> Vec<usize> {
    match b {
        QuantRef::Q4_0(q) => run_with(isa, codes, threads, mkn, alpha, a, q, beta, c),
        QuantRef::Q8_0(q) => run_with(isa, codes, threads, mkn, alpha, a, q, beta, c),
        QuantRef::Group4(q) => run_with(isa, codes, threads, mkn, alpha, a, q, beta, c),
    }
}

#[allow(clippy::too_many_arguments)]
fn run_with<W: Weights>(
    isa: Isa,
    codes: Codes,
    threads: usize,
    [m, k, n]: [usize; 3],
    alpha: f32,
    a: View<'_, f32>,
    b: &W,
    beta: f32,
    (c, sc): (&mut [f32], Strided),
) -> Vec<usize> {
    debug_assert_eq!((b.k(), b.n()), (k, n));
    let shift = act_shift(isa, W::KIND, codes);
    let acts = quantize_a(isa, &a, m, k, codes, shift);
    if acts.bad.len() == m {
        return acts.bad;
    }
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
    let planes = planes(W::KIND);
    // the AVX2 tiles leave the zeros' term of groups out of their block sums; it is taken off
    // per group here: `Σ_g (Σ_{blocks of g} d_a·S_a)·(s·z)`
    let groups = match b.group_blocks() {
        0 => 0,
        gb => kb / gb,
    };
    let zero_after = (groups > 0 && zeros_after(isa)).then(|| group_sums(&acts, m, groups));
    super::threads::split(parts, &|t| {
        // (KCB blocks of B's panel, unpacked once, stay in L1 while every tile of A passes;
        // A's KCB blocks of all rows stay in L2 while NCP panels pass; the f32 sums of those
        // panels wait in `acc`)
        let mut codes = std::vec![0u8; KCB * planes * PLANE];
        // `Q8_0` with unsigned activations: −shift·Σ codes per block and column
        let mut sums = std::vec![0i32; if shift > 0 { KCB * NB } else { 0 }];
        let mut scales = std::vec![0f32; KCB * NB];
        let zlen = if W::KIND == Kind::Zeros { KCB * NB } else { 0 };
        let mut zeros = std::vec![0f32; zlen];
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
                    if shift > 0 {
                        code_sums(isa, &codes, blocks.len(), shift, &mut sums);
                    }
                    let panel = Panel {
                        codes: &codes,
                        scales: &scales,
                        zeros: &zeros,
                        sums: &sums,
                    };
                    // `acc` is `[panel][tile]`: the zmm tile's tiles of A side by side
                    let base = (jp - jc) * tiles;
                    let step = if wide(isa) { ZT } else { 1 };
                    for t0 in (0..tiles).step_by(step) {
                        let t = &mut acc[base + t0..base + tiles.min(t0 + step)];
                        tile::<W>(isa, shift, &acts, t0, blocks.clone(), &panel, t);
                    }
                }
            }
            if let Some(ta) = &zero_after {
                let mut sz = std::vec![0f32; groups * NB];
                for jp in jps.clone() {
                    b.zero_terms(jp, &mut sz);
                    for i in 0..m {
                        let accr = &mut acc[(jp - jc) * tiles + i / MB][i % MB];
                        zero_pass(isa, &ta[i * groups..(i + 1) * groups], &sz, accr);
                    }
                }
            }
            let mut bad = acts.bad.iter().peekable();
            for i in 0..m {
                if bad.next_if_eq(&&i).is_some() {
                    continue;
                }
                for jp in jps.clone() {
                    let cols = NB.min(n - jp * NB);
                    let accr = &acc[(jp - jc) * tiles + i / MB][i % MB];
                    for (cj, &x) in accr.iter().enumerate().take(cols) {
                        // SAFETY: (i, NB·jp + cj) is an element of C (i < m, cj < cols ≤
                        // n − NB·jp) in this thread's panels.
                        unsafe { out.put(i, jp * NB + cj, x) };
                    }
                }
            }
        }
    });
    acts.bad
}

/// Whether the tiles of `isa` leave the zeros' term to [`zero_pass`] (the AVX2 tiles).
fn zeros_after(isa: Isa) -> bool {
    cfg!(target_arch = "x86_64") && isa >= Isa::Avx2
}

/// `T[i][g] = Σ_{blocks b of group g} d_a[i][b]·S_a[i][b]` for every row of A, `m × groups`.
fn group_sums(acts: &Acts, m: usize, groups: usize) -> Vec<f32> {
    let gb = acts.kb / groups;
    let mut t = std::vec![0f32; m * groups];
    for (i, ti) in t.chunks_exact_mut(groups).enumerate() {
        let (tile, r) = (i / MB, i % MB);
        for (bi, x) in (0..acts.kb).map(|bi| (bi, tile * acts.kb + bi)) {
            ti[bi / gb] += acts.d[x * MB + r] * acts.sa[x * MB + r];
        }
    }
    t
}

/// `acc[c] −= Σ_g ta[g]·sz[g][c]`: one row's zeros' term over a panel's 16 columns.
fn zero_pass(isa: Isa, ta: &[f32], sz: &[f32], acc: &mut [f32; NB]) {
    assert!(sz.len() >= ta.len() * NB);
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 {
        // SAFETY: AVX2 and FMA available (the front checked `isa`); `sz` holds
        // `ta.len()·16` values (asserted).
        unsafe { x86::zero_pass(ta, sz, acc) };
        return;
    }
    let _ = isa;
    for (g, &t) in ta.iter().enumerate() {
        for (x, &z) in acc.iter_mut().zip(&sz[g * NB..(g + 1) * NB]) {
            *x -= t * z;
        }
    }
}

/// One unpacked panel of B (see [`Weights::unpack`]).
struct Panel<'a> {
    codes: &'a [u8],
    scales: &'a [f32],
    zeros: &'a [f32],
    /// `−shift·Σ c` per `[block][column]` over the `Q8_0` codes' plane (the tiles of
    /// [`act_shift`] only: x86).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    sums: &'a [i32],
}

/// `sums[b][c] = −shift·Σ_e c` over the 32 codes `c` of block `b` and column `c` in the
/// `Q8_0` codes' plane (plane 1 of two), for `kb` blocks.
fn code_sums(isa: Isa, codes: &[u8], kb: usize, shift: u8, sums: &mut [i32]) {
    assert!(codes.len() >= kb * 2 * PLANE && sums.len() >= kb * NB);
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 {
        // SAFETY: AVX2 available (the front checked `isa`); the lengths asserted above.
        unsafe { x86::code_sums(codes, kb, shift, sums) };
        return;
    }
    let _ = isa;
    for (bi, s) in sums.chunks_exact_mut(NB).take(kb).enumerate() {
        let plane = &codes[(2 * bi + 1) * PLANE..(2 * bi + 2) * PLANE];
        for (c, x) in s.iter_mut().enumerate() {
            *x = -i32::from(shift)
                * (0..QK)
                    .map(|e| i32::from(plane[slot(e, c)] as i8))
                    .sum::<i32>();
        }
    }
}

/// A's tiles `t0 .. t0 + accs.len()` × the panel over `blocks` (the panel's first blocks),
/// added into `accs` (one per tile): all at once on the zmm tile ([`wide`], at most [`ZT`]
/// tiles), else one at a time. `shift`: [`act_shift`].
fn tile<W: Weights>(
    isa: Isa,
    shift: u8,
    acts: &Acts,
    t0: usize,
    blocks: Range<usize>,
    b: &Panel<'_>,
    accs: &mut [[[f32; NB]; MB]],
) {
    #[cfg(target_arch = "x86_64")]
    if wide(isa) {
        let (b0, kb) = (t0 * acts.kb + blocks.start, blocks.len());
        let t = x86::ZTile {
            qa: &acts.q[b0 * ATILE..],
            da: &acts.d[b0 * MB..],
            off: &acts.off[b0 * MB..],
            stride: acts.kb,
            codes: b.codes,
            scales: b.scales,
            sums: b.sums,
            kb,
        };
        // SAFETY: AVX2, FMA and AVX512-VNNI available (`wide` asked the CPU at the AVX-512
        // level); the kernel checks its slices' bounds.
        unsafe { x86::tile_zmm::<W>(&t, accs, shift > 0) };
        return;
    }
    for (o, acc) in accs.iter_mut().enumerate() {
        tile_one::<W>(isa, shift > 0, acts, t0 + o, blocks.clone(), b, acc);
    }
}

/// One tile: A's tile `ti` × the panel over `blocks` (the panel's first blocks), added into
/// `acc`; `u7`: [`unsigned_acts`].
fn tile_one<W: Weights>(
    isa: Isa,
    u7: bool,
    acts: &Acts,
    ti: usize,
    blocks: Range<usize>,
    b: &Panel<'_>,
    acc: &mut [[f32; NB]; MB],
) {
    let (b0, kb) = (ti * acts.kb + blocks.start, blocks.len());
    let planes = planes(W::KIND);
    let qa = &acts.q[b0 * ATILE..(b0 + kb) * ATILE];
    let (da, off, sa) = (
        &acts.d[b0 * MB..(b0 + kb) * MB],
        &acts.off[b0 * MB..(b0 + kb) * MB],
        &acts.sa[b0 * MB..(b0 + kb) * MB],
    );
    assert!(b.codes.len() >= kb * planes * PLANE && b.scales.len() >= kb * NB);
    assert!(W::KIND != Kind::Zeros || b.zeros.len() >= kb * NB);
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 {
        let t = x86::Tile {
            qa,
            da,
            off,
            sa,
            codes: b.codes,
            scales: b.scales,
            zeros: b.zeros,
            sums: b.sums,
            kb,
        };
        // SAFETY: AVX2 and FMA available (the front checked `isa`), AVX-VNNI where `vnni`
        // answered it; the slices hold `kb` blocks of the tile and of the panel (the asserts
        // above and the slicing).
        unsafe {
            if crate::isa::vnni(isa) == Some(crate::isa::Vnni::Avx) {
                x86::tile_vnni::<W>(&t, acc, u7);
            } else if u7 {
                x86::tile_u7(&t, acc);
            } else if W::KIND == Kind::Signed {
                x86::tile_signed(&t, acc);
            } else {
                x86::tile_nibbles::<W>(&t, acc);
            }
        }
        return;
    }
    #[cfg(target_arch = "aarch64")]
    if crate::isa::Ext::Dotprod.usable(isa) {
        // SAFETY: NEON and dotprod available (`usable` checked the CPU); the slices hold `kb`
        // blocks of the tile and of the panel (the asserts above and the slicing).
        unsafe { neon::tile_sdot::<W>(qa, (da, off, sa), b, kb, acc) };
        return;
    }
    let _ = isa;
    debug_assert!(!u7, "the unsigned activations are AVX2's");
    for (r, accr) in acc.iter_mut().enumerate() {
        for bi in 0..kb {
            let (d, off, sa) = (da[bi * MB + r], off[bi * MB + r], sa[bi * MB + r]);
            let a = |e: usize| i32::from(qa[bi * ATILE + r * QK + e]);
            let pc = &b.codes[bi * planes * PLANE..];
            for (cj, x) in accr.iter_mut().enumerate() {
                let code = |p: usize, e: usize| pc[p * PLANE + slot(e, cj)];
                let s: i32 = (0..QK)
                    .map(|e| match W::KIND {
                        // |c|·(sign(c)·q_a), as the vector kernel multiplies
                        Kind::Signed => {
                            i32::from(code(0, e)) * a(e) * i32::from(code(1, e) as i8).signum()
                        }
                        _ => i32::from(code(0, e)) * a(e),
                    })
                    .sum();
                let y = match W::KIND {
                    Kind::Nibbles => (s + i32::from(off as i16) + (off >> 16)) as f32,
                    Kind::Zeros => (s as f32) - b.zeros[bi * NB + cj] * sa,
                    Kind::Signed => s as f32,
                };
                *x += y * (b.scales[bi * NB + cj] * d);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::asm;
    use core::arch::x86_64::*;

    use super::{ATILE, Kind, MB, NB, PLANE, QK, Split, Weights, ZT};

    /// The tile's six integer sums, pinned in registers after each k quad: without it the
    /// compiler reassociates a block's sums accumulator by accumulator and keeps all sixteen
    /// B vectors of the block live (spilling them).
    ///
    /// # Safety
    /// AVX available.
    #[inline]
    #[target_feature(enable = "avx")]
    unsafe fn pin(s: &mut [[__m256i; 2]; MB]) {
        // SAFETY: an empty instruction string that only names the six registers (no memory,
        // no stack, flags kept).
        unsafe {
            asm!(
                "/* {0} {1} {2} {3} {4} {5} */",
                inout(ymm_reg) s[0][0],
                inout(ymm_reg) s[0][1],
                inout(ymm_reg) s[1][0],
                inout(ymm_reg) s[1][1],
                inout(ymm_reg) s[2][0],
                inout(ymm_reg) s[2][1],
                options(pure, nomem, nostack, preserves_flags)
            );
        }
    }

    /// Four AWQ words (rows `4q .. 4q + 4`, eight columns each) into one k quad of eight
    /// columns: `out[4c + t]` = column c's code in word t. Column c sits at bit
    /// `AWQ_SHIFT[c]`: the low nibbles of bytes 0, 2, 1, 3 hold columns 0, 1, 4, 5, the high
    /// ones 2, 3, 6, 7.
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

    /// Blocks of four columns `c0 .. c0 + 4` of a panel (`cols[t]`: column `c0 + t`'s blocks)
    /// into `codes` (`[block][plane][quad][column][4]`, `planes` planes) and `scales`
    /// (`[block][column]`): each block's planes as vectors, a 4 × 4 transpose of 32-bit quads
    /// per lane, the quads stored 16 bytes at a time.
    ///
    /// # Safety
    /// AVX2 available.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn unpack4<B: Split>(
        cols: [&[B]; 4],
        c0: usize,
        codes: &mut [u8],
        scales: &mut [f32],
        planes: usize,
    ) {
        let kb = cols[0].len();
        assert!(cols.iter().all(|c| c.len() == kb) && c0 + 4 <= NB && planes <= 2);
        assert!(codes.len() >= kb * planes * PLANE && scales.len() >= kb * NB);
        for bi in 0..kb {
            // SAFETY: AVX2 (the caller's contract).
            let v = cols.map(|c| unsafe { c[bi].split_avx2() });
            for (t, c) in cols.iter().enumerate() {
                scales[bi * NB + c0 + t] = c[bi].scale().to_f32();
            }
            for p in 0..planes {
                let (t0, t1) = (
                    _mm256_unpacklo_epi32(v[0][p], v[1][p]),
                    _mm256_unpackhi_epi32(v[0][p], v[1][p]),
                );
                let (t2, t3) = (
                    _mm256_unpacklo_epi32(v[2][p], v[3][p]),
                    _mm256_unpackhi_epi32(v[2][p], v[3][p]),
                );
                // quads 0..4 (low lanes) and 4..8 (high lanes) of the four columns
                let u = [
                    _mm256_unpacklo_epi64(t0, t2),
                    _mm256_unpackhi_epi64(t0, t2),
                    _mm256_unpacklo_epi64(t1, t3),
                    _mm256_unpackhi_epi64(t1, t3),
                ];
                let plane = &mut codes[(bi * planes + p) * PLANE..(bi * planes + p + 1) * PLANE];
                for (q, uq) in u.iter().enumerate() {
                    let (lo, hi) = (q * 4 * NB + 4 * c0, (q + 4) * 4 * NB + 4 * c0);
                    // SAFETY: `lo + 16`, `hi + 16` ≤ 7·64 + 4·12 + 16 = 512 = `plane.len()`
                    // (c0 + 4 ≤ 16, asserted); unaligned stores.
                    unsafe {
                        _mm_storeu_si128(
                            plane[lo..lo + 16].as_mut_ptr().cast(),
                            _mm256_castsi256_si128(*uq),
                        );
                        _mm_storeu_si128(
                            plane[hi..hi + 16].as_mut_ptr().cast(),
                            _mm256_extracti128_si256(*uq, 1),
                        );
                    }
                }
            }
        }
    }

    /// [`super::quantize_row`] in AVX2, the same codes (the same rounding: truncate, then a
    /// step away from zero where the fraction is at least ½; clamped to ±127): per block the
    /// maximum of `|x|` and a check that every `x − x` is 0 (finite), the 32 codes packed to
    /// bytes in k order, the lane sums by `vpmaddubsw`(ones). Returns `false` (the blocks
    /// partly written) when the row holds a NaN or an infinity.
    ///
    /// # Safety
    /// AVX2 and FMA available.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn quantize_row(
        row: &[f32],
        r: usize,
        qmax: f32,
        q: &mut [i8],
        d: &mut [f32],
        off: &mut [i32],
        sa: &mut [f32],
    ) -> bool {
        let kb = row.len() / QK;
        assert!(r < MB && q.len() >= kb * ATILE && d.len() >= kb * MB);
        assert!(off.len() >= kb * MB && sa.len() >= kb * MB);
        let sign = _mm256_set1_ps(-0.0);
        let (half, one) = (_mm256_set1_ps(0.5), _mm256_set1_ps(1.0));
        let (lo, hi) = (_mm256_set1_ps(-qmax), _mm256_set1_ps(qmax));
        let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
        let mut bad = _mm256_setzero_ps();
        for (b, blk) in row.chunks_exact(QK).enumerate() {
            let codes = &mut q[b * ATILE + r * QK..b * ATILE + (r + 1) * QK];
            // SAFETY: `blk` holds 32 values and `codes` 32 bytes: unaligned loads and store.
            unsafe {
                let x = [0, 8, 16, 24].map(|o| _mm256_loadu_ps(blk.as_ptr().add(o)));
                for v in x {
                    let z = _mm256_sub_ps(v, v);
                    bad = _mm256_or_ps(bad, _mm256_cmp_ps(z, z, _CMP_UNORD_Q));
                }
                let ab = x.map(|v| _mm256_andnot_ps(sign, v));
                let m = _mm256_max_ps(_mm256_max_ps(ab[0], ab[1]), _mm256_max_ps(ab[2], ab[3]));
                let m = _mm_max_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps(m, 1));
                let m = _mm_max_ps(m, _mm_movehl_ps(m, m));
                let m = _mm_max_ss(m, _mm_shuffle_ps(m, m, 1));
                let (scale, inv) = super::block_scale(_mm_cvtss_f32(m), qmax);
                let inv = _mm256_set1_ps(inv);
                let c = x.map(|v| {
                    let y = _mm256_mul_ps(v, inv);
                    let t = _mm256_round_ps(y, _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
                    let frac = _mm256_andnot_ps(sign, _mm256_sub_ps(y, t));
                    let step = _mm256_and_ps(
                        _mm256_cmp_ps(frac, half, _CMP_GE_OQ),
                        _mm256_or_ps(one, _mm256_and_ps(sign, y)),
                    );
                    let t = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(t, step), lo), hi);
                    _mm256_cvttps_epi32(t)
                });
                let w = _mm256_packs_epi16(
                    _mm256_packs_epi32(c[0], c[1]),
                    _mm256_packs_epi32(c[2], c[3]),
                );
                let w = _mm256_permutevar8x32_epi32(w, order);
                _mm256_storeu_si256(codes.as_mut_ptr().cast(), w);
                // i16 pairs (k 4j, 4j + 1 | 4j + 2, 4j + 3) summed over the eight quads
                let p = _mm256_maddubs_epi16(_mm256_set1_epi8(1), w);
                let p = _mm_add_epi16(_mm256_castsi256_si128(p), _mm256_extracti128_si256(p, 1));
                let p = _mm_add_epi16(p, _mm_unpackhi_epi64(p, p));
                let p = _mm_add_epi16(p, _mm_shuffle_epi32(p, 1));
                let pair = _mm_cvtsi128_si32(p);
                let (s0, s1) = (i32::from(pair as i16), pair >> 16);
                d[b * MB + r] = scale;
                off[b * MB + r] =
                    i32::from((-8 * s0) as i16 as u16) | (i32::from((-8 * s1) as i16) << 16);
                sa[b * MB + r] = (s0 + s1) as f32;
            }
        }
        _mm256_movemask_ps(bad) == 0
    }

    /// One tile of A and one panel of B, as [`super::tile`] slices them.
    pub(super) struct Tile<'a> {
        pub qa: &'a [i8],
        pub da: &'a [f32],
        pub off: &'a [i32],
        pub sa: &'a [f32],
        pub codes: &'a [u8],
        pub scales: &'a [f32],
        pub zeros: &'a [f32],
        pub sums: &'a [i32],
        pub kb: usize,
    }

    impl Tile<'_> {
        /// The bounds every kernel reads within (`planes` code planes per block).
        fn check(&self, planes: usize, zeros: bool) {
            let kb = self.kb;
            assert!(self.qa.len() >= kb * ATILE && self.da.len() >= kb * MB);
            assert!(self.off.len() >= kb * MB && self.sa.len() >= kb * MB);
            assert!(self.codes.len() >= kb * planes * PLANE && self.scales.len() >= kb * NB);
            assert!(!zeros || self.zeros.len() >= kb * NB);
        }
    }

    /// The tile's `f32` accumulators, two vectors per row.
    ///
    /// # Safety
    /// AVX available.
    #[inline]
    #[target_feature(enable = "avx")]
    unsafe fn load_acc(acc: &[[f32; NB]; MB]) -> [[__m256; 2]; MB] {
        // SAFETY: each row holds 16 values: two unaligned loads of eight.
        acc.map(|r| unsafe {
            [
                _mm256_loadu_ps(r.as_ptr()),
                _mm256_loadu_ps(r.as_ptr().add(8)),
            ]
        })
    }

    /// One block's `i32` sums `s` converted and scaled by `d_b·d_a` (`da`: the tile's three
    /// row scales, `sc`: the panel's sixteen column scales) into the `f32` accumulators `f`.
    ///
    /// # Safety
    /// AVX2 and FMA available; `da` points at 3 values, `sc` at 16.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    unsafe fn scale_sums(
        f: &mut [[__m256; 2]; MB],
        s: &[[__m256i; 2]; MB],
        da: *const f32,
        sc: *const f32,
    ) {
        for (r, (fr, sr)) in f.iter_mut().zip(s).enumerate() {
            // SAFETY: `r < 3` and `8h + 8 ≤ 16` (the caller's contract).
            unsafe {
                let d = _mm256_set1_ps(*da.add(r));
                for h in 0..2 {
                    let y = _mm256_cvtepi32_ps(sr[h]);
                    let scale = _mm256_mul_ps(_mm256_loadu_ps(sc.add(8 * h)), d);
                    fr[h] = _mm256_fmadd_ps(y, scale, fr[h]);
                }
            }
        }
    }

    /// [`load_acc`]'s inverse.
    ///
    /// # Safety
    /// AVX available.
    #[inline]
    #[target_feature(enable = "avx")]
    unsafe fn store_acc(acc: &mut [[f32; NB]; MB], f: &[[__m256; 2]; MB]) {
        for (o, v) in acc.iter_mut().zip(f) {
            // SAFETY: each row holds 16 values: two unaligned stores of eight.
            unsafe {
                _mm256_storeu_ps(o.as_mut_ptr(), v[0]);
                _mm256_storeu_ps(o.as_mut_ptr().add(8), v[1]);
            }
        }
    }

    /// Three rows × sixteen columns of 4-bit codes over `kb` blocks: per block eight k quads
    /// of `vpmaddubsw`(codes, broadcast activations) added in `i16` lanes that start at A's
    /// lane offsets (`Kind::Nibbles`; else at 0: the zeros' term of groups is taken off per
    /// group afterwards, [`super::zero_pass`]), one `vpmaddwd`(ones), converted and scaled by
    /// `d_b·d_a` into the `f32` accumulators (`acc` on entry).
    ///
    /// # Safety
    /// AVX2 and FMA available; `qa` holds `kb·96` codes, `da`, `off` `kb·3`, `codes`
    /// `kb·512`, `scales` `kb·16`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile_nibbles<W: Weights>(t: &Tile<'_>, acc: &mut [[f32; NB]; MB]) {
        // Q4_0's lanes start at A's offsets; groups' at 0, their zeros' term left to
        // `zero_pass`
        let offsets = W::KIND == Kind::Nibbles;
        t.check(1, false);
        // SAFETY: AVX2 and FMA (the caller's contract); every read is inside the slices
        // (checked above: block `bi < kb` reads `qa[bi·96 .. +96]`, `da`/`off` `[bi·3 .. +3]`,
        // `codes[bi·512 .. +512]`, `scales[bi·16 .. +16]`).
        unsafe {
            let ones = _mm256_set1_epi16(1);
            let mut f = load_acc(acc);
            let (mut qa, mut cb) = (t.qa.as_ptr(), t.codes.as_ptr());
            let (mut da, mut off) = (t.da.as_ptr(), t.off.as_ptr());
            let mut sc = t.scales.as_ptr();
            for _ in 0..t.kb {
                // Q4_0: each lane starts at −8·Σ q_a over its 16 k values and ends at
                // Σ (c − 8)·q_a, |·| ≤ 16256 (wrapping on the way); groups: Σ c·q_a ≤ 30480
                let mut s = [[_mm256_setzero_si256(); 2]; MB];
                if offsets {
                    for (r, sr) in s.iter_mut().enumerate() {
                        let o = _mm256_set1_epi32(*off.add(r));
                        *sr = [o, o];
                    }
                }
                for q in 0..QK / 4 {
                    let b0 = _mm256_loadu_si256(cb.add(q * 4 * NB).cast());
                    let b1 = _mm256_loadu_si256(cb.add(q * 4 * NB + 32).cast());
                    for (r, sr) in s.iter_mut().enumerate() {
                        let a4 = qa.add(r * QK + q * 4).cast::<i32>().read_unaligned();
                        let a = _mm256_set1_epi32(a4);
                        sr[0] = _mm256_add_epi16(sr[0], _mm256_maddubs_epi16(b0, a));
                        sr[1] = _mm256_add_epi16(sr[1], _mm256_maddubs_epi16(b1, a));
                    }
                    pin(&mut s);
                }
                for (r, (fr, sr)) in f.iter_mut().zip(&s).enumerate() {
                    let d = _mm256_set1_ps(*da.add(r));
                    for h in 0..2 {
                        let y = _mm256_cvtepi32_ps(_mm256_madd_epi16(sr[h], ones));
                        let scale = _mm256_mul_ps(_mm256_loadu_ps(sc.add(8 * h)), d);
                        fr[h] = _mm256_fmadd_ps(y, scale, fr[h]);
                    }
                }
                cb = cb.add(PLANE);
                sc = sc.add(NB);
                qa = qa.add(ATILE);
                da = da.add(MB);
                off = off.add(MB);
            }
            store_acc(acc, &f);
        }
    }

    /// What [`tile_vnni`] multiplies: the codes (u8: `Q4_0`, groups) by the activations, the
    /// codes' magnitudes by the activations under the codes' signs (`Q8_0`), or the 7-bit
    /// activations (u8) by the codes (`Q8_0` on 7-bit activations).
    const UNSIGNED: u8 = 0;
    /// See [`UNSIGNED`].
    const SIGNED: u8 = 1;
    /// See [`UNSIGNED`].
    const U7: u8 = 2;

    /// One k quad `q` of [`vnni_loop`] into the sums `s`.
    ///
    /// # Safety
    /// As [`vnni_loop`] for the block at `cb` and `qa`.
    #[inline(always)]
    unsafe fn vnni_quad<const MODE: u8>(
        s: &mut [[__m256i; 2]; MB],
        cb: *const u8,
        qa: *const i8,
        q: usize,
    ) {
        // SAFETY: the caller's contract (the block's planes at `cb`, its 96 codes at `qa`).
        unsafe {
            // the quad's unsigned plane (`U7`: the codes, in the second plane)
            let u = cb.add(if MODE == U7 { PLANE } else { 0 } + q * 4 * NB);
            let bv = [
                _mm256_loadu_si256(u.cast()),
                _mm256_loadu_si256(u.add(32).cast()),
            ];
            let sg = if MODE == SIGNED {
                let g = cb.add(PLANE + q * 4 * NB);
                [
                    _mm256_loadu_si256(g.cast()),
                    _mm256_loadu_si256(g.add(32).cast()),
                ]
            } else {
                bv
            };
            for (r, sr) in s.iter_mut().enumerate() {
                let a4 = qa.add(r * QK + q * 4).cast::<i32>().read_unaligned();
                let a = _mm256_set1_epi32(a4);
                for h in 0..2 {
                    sr[h] = match MODE {
                        U7 => _mm256_dpbusd_avx_epi32(sr[h], a, bv[h]),
                        SIGNED => _mm256_dpbusd_avx_epi32(sr[h], bv[h], _mm256_sign_epi8(a, sg[h])),
                        _ => _mm256_dpbusd_avx_epi32(sr[h], bv[h], a),
                    };
                }
            }
        }
    }

    /// Every kind's tile on AVX-VNNI (the AVX2 level, or the AVX-512 level without
    /// AVX512-VNNI): per block eight k quads of `vpdpbusd` on ymm (VEX), exact in `i32` lanes, in two sets of six sums (even and odd
    /// quads: twelve independent chains hide its latency) added at the block's end, then
    /// [`scale_sums`]. The same integer sums as the `vpmaddubsw` tiles:
    /// - `Q4_0` and groups: `vpdpbusd`(codes, broadcast activations), `Q4_0`'s lanes starting
    ///   at A's whole offset `−8·Σq` (the two `i16` halves of `off` added), groups' at 0;
    /// - `Q8_0`: `vpdpbusd`(|c|, `vpsignb`(activations, c));
    /// - `Q8_0` on 7-bit activations (`u7`): `vpdpbusd`(activations, codes) from `−64·Σc`.
    ///
    /// # Safety
    /// AVX2, FMA and AVX-VNNI available; the slices as for [`tile_nibbles`]
    /// (`Kind::Nibbles`, `Kind::Zeros`), [`tile_signed`] or [`tile_u7`] (`u7`).
    #[target_feature(enable = "avx2,fma,avxvnni")]
    pub(super) unsafe fn tile_vnni<W: Weights>(t: &Tile<'_>, acc: &mut [[f32; NB]; MB], u7: bool) {
        // SAFETY: forwarded contract.
        unsafe {
            if u7 {
                vnni_loop::<U7, false>(t, acc);
            } else if W::KIND == Kind::Signed {
                vnni_loop::<SIGNED, false>(t, acc);
            } else if W::KIND == Kind::Nibbles {
                vnni_loop::<UNSIGNED, true>(t, acc);
            } else {
                vnni_loop::<UNSIGNED, false>(t, acc);
            }
        }
    }

    /// [`tile_vnni`]'s block loop for one `MODE`, the sums starting at A's offsets where
    /// `OFFSETS` (`Q4_0`).
    ///
    /// # Safety
    /// As [`tile_vnni`].
    #[inline(always)]
    unsafe fn vnni_loop<const MODE: u8, const OFFSETS: bool>(
        t: &Tile<'_>,
        acc: &mut [[f32; NB]; MB],
    ) {
        let planes = if MODE == UNSIGNED { 1 } else { 2 };
        t.check(planes, false);
        assert!(MODE != U7 || t.sums.len() >= t.kb * NB);
        // SAFETY: AVX2, FMA, AVX-VNNI (the caller's contract); every read is
        // inside the slices (checked above: block `bi < kb` reads `qa[bi·96 .. +96]`,
        // `da`/`off` `[bi·3 .. +3]`, `codes[bi·planes·512 .. +planes·512]`, `scales[bi·16 ..
        // +16]`, `U7`: `sums[bi·16 .. +16]`).
        unsafe {
            let mut f = load_acc(acc);
            let (mut qa, mut cb) = (t.qa.as_ptr(), t.codes.as_ptr());
            let (mut da, mut off) = (t.da.as_ptr(), t.off.as_ptr());
            let (mut sc, mut su) = (t.scales.as_ptr(), t.sums.as_ptr());
            for _ in 0..t.kb {
                let mut s0 = [[_mm256_setzero_si256(); 2]; MB];
                let mut s1 = s0;
                if OFFSETS {
                    for (r, sr) in s0.iter_mut().enumerate() {
                        let o = *off.add(r);
                        let o = _mm256_set1_epi32(i32::from(o as i16) + (o >> 16));
                        *sr = [o, o];
                    }
                } else if MODE == U7 {
                    let z = [
                        _mm256_loadu_si256(su.cast()),
                        _mm256_loadu_si256(su.add(8).cast()),
                    ];
                    s0 = [z; MB];
                }
                for q in (0..QK / 4).step_by(2) {
                    vnni_quad::<MODE>(&mut s0, cb, qa, q);
                    vnni_quad::<MODE>(&mut s1, cb, qa, q + 1);
                }
                for (tr, or) in s0.iter_mut().zip(&s1) {
                    for (x, &y) in tr.iter_mut().zip(or) {
                        *x = _mm256_add_epi32(*x, y);
                    }
                }
                scale_sums(&mut f, &s0, da, sc);
                cb = cb.add(planes * PLANE);
                sc = sc.add(NB);
                if MODE == U7 {
                    su = su.add(NB);
                }
                qa = qa.add(ATILE);
                da = da.add(MB);
                off = off.add(MB);
            }
            store_acc(acc, &f);
        }
    }

    /// [`super::zero_pass`]: `acc[c] −= Σ_g ta[g]·sz[g][c]`, two vectors of eight columns.
    ///
    /// # Safety
    /// AVX2 and FMA available; `sz` holds `ta.len()·16` values.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn zero_pass(ta: &[f32], sz: &[f32], acc: &mut [f32; NB]) {
        // SAFETY: AVX2 and FMA (the caller's contract); group g reads `sz[16g .. 16g + 16]`,
        // inside it (the caller's contract), and `acc` holds 16 values.
        unsafe {
            let mut x = [
                _mm256_loadu_ps(acc.as_ptr()),
                _mm256_loadu_ps(acc.as_ptr().add(8)),
            ];
            for (g, &t) in ta.iter().enumerate() {
                let t = _mm256_set1_ps(t);
                for (h, xh) in x.iter_mut().enumerate() {
                    let z = _mm256_loadu_ps(sz.as_ptr().add(g * NB + 8 * h));
                    *xh = _mm256_fnmadd_ps(t, z, *xh);
                }
            }
            _mm256_storeu_ps(acc.as_mut_ptr(), x[0]);
            _mm256_storeu_ps(acc.as_mut_ptr().add(8), x[1]);
        }
    }

    /// Three rows × sixteen columns of `Q8_0` codes over `kb` blocks: per block eight k quads
    /// of `vpmaddubsw`(|c|, `vpsignb`(broadcast activations, c)), each pair sum
    /// (≤ 2·128·127 = 32512) widened into `i32` by `vpmaddwd`(ones) and added; converted and
    /// scaled by `d_b·d_a` into the `f32` accumulators.
    ///
    /// # Safety
    /// AVX2 and FMA available; `qa` holds `kb·96` codes, `da` `kb·3`, `codes` `kb·1024`
    /// (magnitudes, then codes), `scales` `kb·16`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile_signed(t: &Tile<'_>, acc: &mut [[f32; NB]; MB]) {
        t.check(2, false);
        // SAFETY: AVX2 and FMA (the caller's contract); every read is inside the slices
        // (checked above: block `bi < kb` reads `qa[bi·96 .. +96]`, `da[bi·3 .. +3]`,
        // `codes[bi·1024 .. +1024]`, `scales[bi·16 .. +16]`).
        unsafe {
            let ones = _mm256_set1_epi16(1);
            let mut f = load_acc(acc);
            let (mut qa, mut cb) = (t.qa.as_ptr(), t.codes.as_ptr());
            let (mut da, mut sc) = (t.da.as_ptr(), t.scales.as_ptr());
            for _ in 0..t.kb {
                let mut s = [[_mm256_setzero_si256(); 2]; MB];
                for q in 0..QK / 4 {
                    let m0 = _mm256_loadu_si256(cb.add(q * 4 * NB).cast());
                    let m1 = _mm256_loadu_si256(cb.add(q * 4 * NB + 32).cast());
                    let s0 = cb.add(PLANE + q * 4 * NB);
                    for (r, sr) in s.iter_mut().enumerate() {
                        let a4 = qa.add(r * QK + q * 4).cast::<i32>().read_unaligned();
                        let a = _mm256_set1_epi32(a4);
                        for (h, mh) in [m0, m1].into_iter().enumerate() {
                            let sg = _mm256_loadu_si256(s0.add(32 * h).cast());
                            let p = _mm256_maddubs_epi16(mh, _mm256_sign_epi8(a, sg));
                            sr[h] = _mm256_add_epi32(sr[h], _mm256_madd_epi16(p, ones));
                        }
                    }
                    pin(&mut s);
                }
                scale_sums(&mut f, &s, da, sc);
                cb = cb.add(2 * PLANE);
                sc = sc.add(NB);
                qa = qa.add(ATILE);
                da = da.add(MB);
            }
            store_acc(acc, &f);
        }
    }

    /// [`super::code_sums`]: per block, the codes' plane summed by `vpmaddubsw`(ones) over
    /// its eight quads in `i16` (`|Σ| ≤ 16·128`), `vpmaddwd`(ones) into a column's `i32`,
    /// times `−shift`.
    ///
    /// # Safety
    /// AVX2 available; `codes` holds `kb·1024` bytes, `sums` `kb·16` values.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn code_sums(codes: &[u8], kb: usize, shift: u8, sums: &mut [i32]) {
        assert!(codes.len() >= kb * 2 * PLANE && sums.len() >= kb * NB);
        // SAFETY: AVX2 (the caller's contract); block `bi` reads `codes[(2bi + 1)·512 ..
        // +512]` and writes `sums[16bi .. +16]`, inside both (asserted).
        unsafe {
            let (ones8, ones16) = (_mm256_set1_epi8(1), _mm256_set1_epi16(1));
            let by = _mm256_set1_epi32(-i32::from(shift));
            for bi in 0..kb {
                let plane = codes.as_ptr().add((2 * bi + 1) * PLANE);
                let mut s = [_mm256_setzero_si256(); 2];
                for q in 0..QK / 4 {
                    for (h, sh) in s.iter_mut().enumerate() {
                        let v = _mm256_loadu_si256(plane.add(q * 4 * NB + 32 * h).cast());
                        *sh = _mm256_add_epi16(*sh, _mm256_maddubs_epi16(ones8, v));
                    }
                }
                for (h, sh) in s.iter().enumerate() {
                    let y = _mm256_mullo_epi32(_mm256_madd_epi16(*sh, ones16), by);
                    _mm256_storeu_si256(sums.as_mut_ptr().add(bi * NB + 8 * h).cast(), y);
                }
            }
        }
    }

    /// Three rows × sixteen columns of `Q8_0` codes against 7-bit activations stored +64 (in
    /// [1, 127]: [`super::unsigned_acts`]), oneDNN's u8×s8 step: per block eight k quads of
    /// `vpmaddubsw`(broadcast activations, codes) (pair sums ≤ 2·127·128 = 32512), widened by
    /// `vpmaddwd`(ones) and added into `i32` sums that start at `−64·Σ c` (B's block and
    /// column: [`super::code_sums`]), so they end at `Σ c·q_a`; converted and scaled by
    /// `d_b·d_a` into the `f32` accumulators.
    ///
    /// # Safety
    /// AVX2 and FMA available; `qa` holds `kb·96` codes, `da` `kb·3`, `codes` `kb·1024`
    /// (the codes in the second plane), `scales` and `sums` `kb·16`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn tile_u7(t: &Tile<'_>, acc: &mut [[f32; NB]; MB]) {
        t.check(2, false);
        assert!(t.sums.len() >= t.kb * NB);
        // SAFETY: AVX2 and FMA (the caller's contract); every read is inside the slices
        // (checked above: block `bi < kb` reads `qa[bi·96 .. +96]`, `da[bi·3 .. +3]`,
        // `codes[bi·1024 + 512 .. +512]`, `scales[bi·16 .. +16]`, `sums[bi·16 .. +16]`).
        unsafe {
            let ones = _mm256_set1_epi16(1);
            let mut f = load_acc(acc);
            let (mut qa, mut cb) = (t.qa.as_ptr(), t.codes.as_ptr().add(PLANE));
            let (mut da, mut sc) = (t.da.as_ptr(), t.scales.as_ptr());
            let mut su = t.sums.as_ptr();
            for _ in 0..t.kb {
                let z = [
                    _mm256_loadu_si256(su.cast()),
                    _mm256_loadu_si256(su.add(8).cast()),
                ];
                let mut s = [z; MB];
                for q in 0..QK / 4 {
                    let b0 = _mm256_loadu_si256(cb.add(q * 4 * NB).cast());
                    let b1 = _mm256_loadu_si256(cb.add(q * 4 * NB + 32).cast());
                    for (r, sr) in s.iter_mut().enumerate() {
                        let a4 = qa.add(r * QK + q * 4).cast::<i32>().read_unaligned();
                        let a = _mm256_set1_epi32(a4);
                        for (h, bh) in [b0, b1].into_iter().enumerate() {
                            let p = _mm256_maddubs_epi16(a, bh);
                            sr[h] = _mm256_add_epi32(sr[h], _mm256_madd_epi16(p, ones));
                        }
                    }
                    pin(&mut s);
                }
                scale_sums(&mut f, &s, da, sc);
                cb = cb.add(2 * PLANE);
                sc = sc.add(NB);
                su = su.add(NB);
                qa = qa.add(ATILE);
                da = da.add(MB);
            }
            store_acc(acc, &f);
        }
    }
    /// One tile of A's `T` tiles (`3·T` rows) and one panel of B, as [`super::tile`] slices
    /// them for [`tile_zmm`]: tile `t`'s block `bi` at `qa[(t·stride + bi)·96 ..]`,
    /// `da`/`off` `[(t·stride + bi)·3 ..]`.
    pub(super) struct ZTile<'a> {
        pub qa: &'a [i8],
        pub da: &'a [f32],
        pub off: &'a [i32],
        /// Blocks per tile of A (the tiles' distance).
        pub stride: usize,
        pub codes: &'a [u8],
        pub scales: &'a [f32],
        pub sums: &'a [i32],
        pub kb: usize,
    }

    impl ZTile<'_> {
        /// The bounds [`zmm_loop`] reads within for `tiles` tiles of A (`planes` code planes
        /// per block, the code sums where `sums`).
        fn check(&self, tiles: usize, planes: usize, sums: bool) {
            let (kb, last) = (self.kb, (tiles - 1) * self.stride);
            assert!(tiles >= 1 && kb <= self.stride);
            assert!(self.qa.len() >= (last + kb) * ATILE && self.da.len() >= (last + kb) * MB);
            assert!(self.off.len() >= (last + kb) * MB);
            assert!(self.codes.len() >= kb * planes * PLANE && self.scales.len() >= kb * NB);
            assert!(!sums || self.sums.len() >= kb * NB);
        }
    }

    /// What [`zmm_loop`] multiplies: the codes (u8: `Q4_0`, groups) by the activations.
    const Z_UNSIGNED: u8 = 0;
    /// What [`zmm_loop`] multiplies: the shifted activations (u8, [`super::act_shift`]) by the
    /// `Q8_0` codes.
    const Z_SHIFTED: u8 = 1;

    /// Every kind's tile on AVX512-VNNI (the AVX-512 level): `accs.len()` (1 ..= [`ZT`])
    /// tiles of A, `3·accs.len()` rows × sixteen columns, one zmm of `i32` sums per row (the
    /// panel's quad of 16 columns × 4 k is one zmm), per block eight k quads of `vpdpbusd`
    /// (zmm) in two sets of sums (even and odd quads) added at the block's end, then
    /// converted and scaled by `d_b·d_a` as [`scale_sums`] does (the same `f32` operations
    /// in the same order: the results are those of the ymm tiles, bit for bit):
    /// - `Q4_0` and groups: `vpdpbusd`(codes, broadcast activations), `Q4_0`'s sums starting
    ///   at A's whole offset `−8·Σq`, groups' at 0 (their zeros' term: [`super::zero_pass`]);
    /// - `Q8_0` (`shifted`): `vpdpbusd`(activations + shift, codes) from `−shift·Σc`
    ///   ([`super::code_sums`]), so the sums end at `Σ c·q_a` (no `vpsignb` in AVX-512).
    ///
    /// # Safety
    /// AVX2, FMA, AVX-512 F and AVX512-VNNI available; `t` holds `accs.len()` tiles of A
    /// and the panel's `kb` blocks (checked).
    #[target_feature(enable = "avx2,fma,avx512f,avx512vnni")]
    pub(super) unsafe fn tile_zmm<W: Weights>(
        t: &ZTile<'_>,
        accs: &mut [[[f32; NB]; MB]],
        shifted: bool,
    ) {
        const { assert!(ZT == 2) };
        debug_assert_eq!(shifted, W::KIND == Kind::Signed);
        // SAFETY: forwarded contract (the tiles' count matches `accs`).
        unsafe {
            match (accs, shifted, W::KIND == Kind::Nibbles) {
                ([a0], true, _) => zmm_loop::<Z_SHIFTED, false, 1>(t, [a0]),
                ([a0], false, true) => zmm_loop::<Z_UNSIGNED, true, 1>(t, [a0]),
                ([a0], false, false) => zmm_loop::<Z_UNSIGNED, false, 1>(t, [a0]),
                ([a0, a1], true, _) => zmm_loop::<Z_SHIFTED, false, 2>(t, [a0, a1]),
                ([a0, a1], false, true) => zmm_loop::<Z_UNSIGNED, true, 2>(t, [a0, a1]),
                ([a0, a1], false, false) => zmm_loop::<Z_UNSIGNED, false, 2>(t, [a0, a1]),
                _ => unreachable!("one or two tiles of A"),
            }
        }
    }

    /// One k quad `q` of [`zmm_loop`] into the sums `s`: B's quad one zmm, each row's
    /// activation quad broadcast.
    ///
    /// # Safety
    /// As [`zmm_loop`] for the block at `cu` (its multiplied plane) and `qa` (tile 0; tile
    /// `t` `t·ts` codes on).
    #[inline(always)]
    unsafe fn zmm_quad<const MODE: u8, const T: usize>(
        s: &mut [[__m512i; MB]; T],
        cu: *const u8,
        qa: *const i8,
        ts: usize,
        q: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe {
            let b = _mm512_loadu_si512(cu.add(q * 4 * NB).cast());
            for (t, st) in s.iter_mut().enumerate() {
                for (r, sr) in st.iter_mut().enumerate() {
                    let a4 = qa
                        .add(t * ts + r * QK + q * 4)
                        .cast::<i32>()
                        .read_unaligned();
                    let a = _mm512_set1_epi32(a4);
                    *sr = if MODE == Z_SHIFTED {
                        _mm512_dpbusd_epi32(*sr, a, b)
                    } else {
                        _mm512_dpbusd_epi32(*sr, b, a)
                    };
                }
            }
        }
    }

    /// [`tile_zmm`]'s block loop for one `MODE` and `T` tiles of A, the sums starting at A's
    /// offsets where `OFFSETS` (`Q4_0`).
    ///
    /// # Safety
    /// As [`tile_zmm`].
    #[inline(always)]
    unsafe fn zmm_loop<const MODE: u8, const OFFSETS: bool, const T: usize>(
        t: &ZTile<'_>,
        accs: [&mut [[f32; NB]; MB]; T],
    ) {
        let planes = if MODE == Z_SHIFTED { 2 } else { 1 };
        t.check(T, planes, MODE == Z_SHIFTED);
        let (ts, ds) = (t.stride * ATILE, t.stride * MB);
        // SAFETY: AVX2, FMA, AVX-512 F, AVX512-VNNI (the caller's contract); every read is
        // inside the slices (checked above: tile `u < T`, block `bi < kb` reads
        // `qa[u·ts + bi·96 .. +96]`, `da`/`off` `[u·ds + bi·3 .. +3]`, `codes[bi·planes·512
        // .. +planes·512]`, `scales[bi·16 .. +16]`, shifted: `sums[bi·16 .. +16]`); `accs`'
        // rows hold 16 values.
        unsafe {
            let mut f = accs
                .each_ref()
                .map(|a| a.map(|r| _mm512_loadu_ps(r.as_ptr())));
            let (mut qa, mut cb) = (t.qa.as_ptr(), t.codes.as_ptr());
            let (mut da, mut off) = (t.da.as_ptr(), t.off.as_ptr());
            let (mut sc, mut su) = (t.scales.as_ptr(), t.sums.as_ptr());
            for _ in 0..t.kb {
                let mut s0 = [[_mm512_setzero_si512(); MB]; T];
                let mut s1 = s0;
                if OFFSETS {
                    for (u, su0) in s0.iter_mut().enumerate() {
                        for (r, sr) in su0.iter_mut().enumerate() {
                            let o = *off.add(u * ds + r);
                            *sr = _mm512_set1_epi32(i32::from(o as i16) + (o >> 16));
                        }
                    }
                } else if MODE == Z_SHIFTED {
                    s0 = [[_mm512_loadu_si512(su.cast()); MB]; T];
                }
                let cu = if MODE == Z_SHIFTED { cb.add(PLANE) } else { cb };
                for q in (0..QK / 4).step_by(2) {
                    zmm_quad::<MODE, T>(&mut s0, cu, qa, ts, q);
                    zmm_quad::<MODE, T>(&mut s1, cu, qa, ts, q + 1);
                }
                let scl = _mm512_loadu_ps(sc);
                for (u, (fu, (su0, su1))) in f.iter_mut().zip(s0.iter().zip(&s1)).enumerate() {
                    for (r, fr) in fu.iter_mut().enumerate() {
                        let y = _mm512_cvtepi32_ps(_mm512_add_epi32(su0[r], su1[r]));
                        let scale = _mm512_mul_ps(scl, _mm512_set1_ps(*da.add(u * ds + r)));
                        *fr = _mm512_fmadd_ps(y, scale, *fr);
                    }
                }
                cb = cb.add(planes * PLANE);
                sc = sc.add(NB);
                if MODE == Z_SHIFTED {
                    su = su.add(NB);
                }
                qa = qa.add(ATILE);
                da = da.add(MB);
                off = off.add(MB);
            }
            for (a, fa) in accs.into_iter().zip(&f) {
                for (o, v) in a.iter_mut().zip(fa) {
                    _mm512_storeu_ps(o.as_mut_ptr(), *v);
                }
            }
        }
    }
}

/// The aarch64 tile: `sdot` by element (`FEAT_DotProd`) on the same packed A and B as the
/// AVX2 tile.
#[cfg(target_arch = "aarch64")]
mod neon {
    use core::arch::aarch64::*;
    use core::arch::asm;

    use super::{ATILE, Kind, MB, NB, PLANE, Panel, QK, Weights, planes};

    /// `acc` + the dot products of each 4-byte group of `b` (four columns' k quads) with the
    /// 4-byte group of `a` in lane `L` (one row's k quad), signed × signed.
    ///
    /// # Safety
    /// NEON and dotprod available.
    #[inline(always)]
    unsafe fn sdot<const L: i32>(acc: int32x4_t, b: int8x16_t, a: int8x16_t) -> int32x4_t {
        let mut acc = acc;
        // SAFETY: the caller's contract (the instruction exists); registers only.
        unsafe {
            asm!(
                "sdot {acc:v}.4s, {b:v}.16b, {a:v}.4b[{l}]",
                acc = inout(vreg) acc,
                b = in(vreg) b,
                a = in(vreg) a,
                l = const L,
                options(pure, nomem, nostack, preserves_flags),
            );
        }
        acc
    }

    /// `x` in every lane, by `dup` from a general register each time: the compiler would
    /// copy one register (`mov`, a vector pipe's operation) where the model and Neoverse N1
    /// run `dup` on the integer multi-cycle pipe, beside the vector ones.
    ///
    /// # Safety
    /// NEON available.
    #[inline(always)]
    unsafe fn dup(x: i32) -> int32x4_t {
        let v: int32x4_t;
        // SAFETY: the caller's contract (the instruction exists); registers only. Not `pure`,
        // so that two equal `dup` stay two.
        unsafe {
            asm!(
                "dup {v:v}.4s, {x:w}",
                v = out(vreg) v,
                x = in(reg) x,
                options(nomem, nostack, preserves_flags),
            );
        }
        v
    }

    /// 1.5·2²³: an `i32` Σ with `|Σ| < 2²²` added to its bits gives the `f32` `MAGIC + Σ`
    /// exactly (the block sums: `|Σ| ≤ 32·128·127 < 2¹⁹`). The conversion in one `fsub`
    /// (either vector pipe) instead of `scvtf` (two micro-operations on one pipe in
    /// Neoverse N1), and the bits added free as the sums' start.
    const MAGIC: f32 = 12_582_912.0;

    /// Three rows × sixteen columns over `kb` blocks, in two passes of eight columns (six
    /// `i32` sums, six `f32` accumulators, a row's two activation vectors each and two B
    /// vectors in registers): per block eight k quads of `sdot` by element (B's vector of four
    /// columns' quads against the row's quad), exact in `i32` (`|Σ| ≤ 32·128·127`); the sums
    /// start at [`MAGIC`]'s bits (those of `Kind::Nibbles` less `8·S_a`), `Kind::Zeros` takes
    /// `z·S_a` off in `f32`, `Kind::Signed` reads the codes' plane only (signed × signed needs
    /// no magnitudes); converted and scaled by `d_b·d_a` into the accumulators (`acc` on
    /// entry).
    ///
    /// # Safety
    /// NEON and dotprod available.
    #[target_feature(enable = "neon,dotprod")]
    pub(super) unsafe fn tile_sdot<W: Weights>(
        qa: &[i8],
        (da, off, sa): (&[f32], &[i32], &[f32]),
        b: &Panel<'_>,
        kb: usize,
        acc: &mut [[f32; NB]; MB],
    ) {
        let planes = planes(W::KIND);
        assert!(qa.len() >= kb * ATILE && da.len() >= kb * MB && off.len() >= kb * MB);
        assert!(sa.len() >= kb * MB && b.codes.len() >= kb * planes * PLANE);
        assert!(b.scales.len() >= kb * NB && (W::KIND != Kind::Zeros || b.zeros.len() >= kb * NB));
        // the plane the sums read: the codes themselves (Q8_0's second plane)
        let plane = planes - 1;
        for h in 0..2 {
            // SAFETY: NEON and dotprod (the caller's contract); every read is inside the
            // slices (asserted above: block `bi < kb` reads `qa[bi·96 .. +96]`,
            // `da`/`off`/`sa` `[bi·3 .. +3]`, `codes[(bi·P + plane)·512 + 32h + 64q .. +32]`
            // for q < 8, h < 2 (within the block's P·512 bytes), `scales`/`zeros`
            // `[bi·16 + 8h .. +8]`); `acc`'s rows hold 16 values (8h + 8 ≤ 16).
            unsafe {
                let magic = vdupq_n_f32(MAGIC);
                let mut f = acc.each_ref().map(|r| {
                    [
                        vld1q_f32(r.as_ptr().add(8 * h)),
                        vld1q_f32(r.as_ptr().add(8 * h + 4)),
                    ]
                });
                for bi in 0..kb {
                    let cb = b.codes.as_ptr().add((bi * planes + plane) * PLANE + 32 * h);
                    let cb = cb.cast::<i8>();
                    let q = qa.as_ptr().add(bi * ATILE);
                    let a =
                        [0, 1, 2].map(|r| [vld1q_s8(q.add(r * QK)), vld1q_s8(q.add(r * QK + 16))]);
                    // each sum starts at MAGIC's bits (less 8·S_a for Q4_0)
                    let mut s = [0, 1, 2].map(|r| {
                        let o = if W::KIND == Kind::Nibbles {
                            // −8·S_a: the two halves' offsets (each −8·Σ over 16 values)
                            let o = *off.get_unchecked(bi * MB + r);
                            i32::from(o as i16) + (o >> 16)
                        } else {
                            0
                        };
                        let o = MAGIC.to_bits() as i32 + o;
                        [dup(o), dup(o)]
                    });
                    macro_rules! quad {
                        ($q:literal, $lane:literal) => {{
                            let b0 = vld1q_s8(cb.add($q * 4 * NB));
                            let b1 = vld1q_s8(cb.add($q * 4 * NB + 16));
                            for (sr, ar) in s.iter_mut().zip(&a) {
                                let av = ar[$q / 4];
                                sr[0] = sdot::<$lane>(sr[0], b0, av);
                                sr[1] = sdot::<$lane>(sr[1], b1, av);
                            }
                        }};
                    }
                    // the block's eight k quads in straight line (48 `sdot`)
                    const { assert!(QK / 4 == 8) };
                    quad!(0, 0);
                    quad!(1, 1);
                    quad!(2, 2);
                    quad!(3, 3);
                    quad!(4, 0);
                    quad!(5, 1);
                    quad!(6, 2);
                    quad!(7, 3);
                    let sc = b.scales.as_ptr().add(bi * NB + 8 * h);
                    let db = [vld1q_f32(sc), vld1q_f32(sc.add(4))];
                    let zp = b.zeros.as_ptr().wrapping_add(bi * NB + 8 * h);
                    for (r, (fr, sr)) in f.iter_mut().zip(&s).enumerate() {
                        let d = *da.get_unchecked(bi * MB + r);
                        for c in 0..2 {
                            // MAGIC + Σ as an f32, exact (|Σ| < 2²²): Σ in one `fsub`
                            let mut y = vsubq_f32(vreinterpretq_f32_s32(sr[c]), magic);
                            if W::KIND == Kind::Zeros {
                                let z = vld1q_f32(zp.add(4 * c));
                                y = vfmsq_n_f32(y, z, *sa.get_unchecked(bi * MB + r));
                            }
                            fr[c] = vfmaq_f32(fr[c], y, vmulq_n_f32(db[c], d));
                        }
                    }
                }
                for (o, v) in acc.iter_mut().zip(&f) {
                    vst1q_f32(o.as_mut_ptr().add(8 * h), v[0]);
                    vst1q_f32(o.as_mut_ptr().add(8 * h + 4), v[1]);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Codes;
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
    /// column-major), with 8- or 7-bit activations (`int8`) or on the `f32` route.
    #[allow(clippy::too_many_arguments)]
    fn run(
        isa: Isa,
        threads: usize,
        (m, k, n): (usize, usize, usize),
        a: &[f32],
        a_cm: bool,
        q: QuantRef<'_>,
        int8: impl Into<Option<Codes>>,
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
            match int8.into() {
                Some(Codes::Eight) => QuantB::int8_activations(q),
                Some(Codes::Seven) => QuantB::int7_activations(q),
                None => q.into(),
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

    /// [`run`] with A and C row-major, C zero, α = 1, β = 0.
    fn plain(
        isa: Isa,
        threads: usize,
        mkn: (usize, usize, usize),
        a: &[f32],
        q: QuantRef<'_>,
        int8: impl Into<Option<Codes>>,
    ) -> Vec<f32> {
        let c0 = std::vec![0f32; mkn.0 * mkn.2];
        run(isa, threads, mkn, a, false, q, int8, &c0, false, (1.0, 0.0))
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

    /// Random (non-integer) A and weights, random group scales: every instruction set's
    /// result is within rounding of the naive product of A quantized as the route quantizes
    /// it (per row and 32-block, [`super::block_scale`], [`super::quantize_block`]) and the
    /// dequantized weights, and the x86 SIMD levels' results (the zmm tile at the AVX-512
    /// level, the VNNI-ymm or AVX2 tiles at the AVX2 level) are equal bit for bit (exact
    /// integer sums, the same `f32` scaling in the same order); shapes on and off the zmm
    /// tile's 6 rows and the 16-column panels, k from one block to three passes of 16.
    #[test]
    fn every_tile_matches_the_quantized_reference() {
        let mut g = Lcg(41);
        for &(m, k, n) in &[
            // (m ≤ 8 takes the decode route: f32 activations)
            (9usize, 32usize, 16usize),
            (10, 32, 17),
            (11, 64, 16),
            (12, 96, 33),
            (14, 128, 31),
            (13, 1120, 40),
            (20, 256, 70),
        ] {
            let wf: Vec<f32> = (0..k * n)
                .map(|_| g.int(-1000, 1000) as f32 / 1000.0)
                .collect();
            let mut fmts: Vec<(String, Owned)> = std::vec![
                ("Q4_0".into(), Owned::Q4(quantize_q4_0(k, n, &wf).unwrap())),
                ("Q8_0".into(), Owned::Q8(quantize_q8_0(k, n, &wf).unwrap())),
            ];
            for group in [32, 128] {
                if k.is_multiple_of(group) {
                    for kind in 0..2 {
                        let g4 = group4(k, n, group, kind, &mut g);
                        let scales: Vec<f32> = (0..k / group * n)
                            .map(|_| g.int(1, 1000) as f32 / 4096.0)
                            .collect();
                        let (quant, codes, zeros) =
                            (*g4.quant(), g4.weights().clone(), g4.zeros().clone());
                        let g4 = Group4Matrix::new(quant, codes, scales, zeros).unwrap();
                        fmts.push((
                            std::format!("group4 {kind} g{group}"),
                            Owned::G(Box::new(g4)),
                        ));
                    }
                }
            }
            let a: Vec<f32> = (0..m * k)
                .map(|_| g.int(-1000, 1000) as f32 / 997.0)
                .collect();
            for (name, q) in &fmts {
                let w = quant_ref(q).dequantize().unwrap();
                for codes in [Codes::Eight, Codes::Seven] {
                    // A as the route quantizes it: (scale, codes) per row and block
                    let qmax = codes.max();
                    let mut aq = std::vec![0i8; m * k];
                    let mut ad = std::vec![0f32; m * k / 32];
                    for (bi, blk) in a.chunks_exact(32).enumerate() {
                        let amax = blk.iter().fold(0f32, |x, e| x.max(e.abs()));
                        let (scale, inv) = super::block_scale(amax, qmax);
                        super::quantize_block(blk, inv, qmax, &mut aq[bi * 32..bi * 32 + 32]);
                        ad[bi] = scale;
                    }
                    let mut simd: Option<(Isa, Vec<f32>)> = None;
                    for isa in Isa::available() {
                        let c = plain(isa, 1, (m, k, n), &a, quant_ref(q), codes);
                        for i in 0..m {
                            for j in 0..n {
                                let (mut want, mut mag) = (0f64, 0f64);
                                for p in 0..k {
                                    let t = f64::from(ad[(i * k + p) / 32])
                                        * f64::from(aq[i * k + p])
                                        * f64::from(w[p * n + j]);
                                    (want, mag) = (want + t, mag + t.abs());
                                }
                                let got = f64::from(c[i * n + j]);
                                assert!(
                                    (got - want).abs() <= 1e-5 * mag + 1e-30,
                                    "{name} {isa:?} {codes:?} {m}x{k}x{n} ({i},{j}): {got} vs {want}"
                                );
                            }
                        }
                        if cfg!(target_arch = "x86_64") && isa >= Isa::Avx2 {
                            match &simd {
                                Some((i0, c0)) => {
                                    let same =
                                        c0.iter().zip(&c).all(|(x, y)| x.to_bits() == y.to_bits());
                                    assert!(
                                        same,
                                        "{name} {codes:?} {m}x{k}x{n}: {isa:?} vs {i0:?}"
                                    );
                                }
                                None => simd = Some((isa, c)),
                            }
                        }
                    }
                }
            }
        }
    }

    /// Integer-valued A whose every 32-block reaches ±127 (8-bit activations) or ±63 (7-bit)
    /// (so `d_a = 1`) and weights stored exactly as integers: the result is the exact
    /// product, for every format, on every instruction set, one and two threads, A and C
    /// both ways, shapes off the 6 × 8 tile.
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
                for (isa, codes) in
                    Isa::available().flat_map(|i| [(i, Codes::Eight), (i, Codes::Seven)])
                {
                    let top = codes.max() as i32;
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
                                    (if t % 2 == 0 { top } else { -top }) as f32
                                } else {
                                    g.int(-top, top) as f32
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
                        let c = run(isa, threads, (m, k, n), &a, a_cm, qr, codes, &c0, c_cm, ab);
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
                                    "{name} {isa:?} {codes:?} {m}x{k}x{n} t{threads} ({i},{j})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Random data: the 8-bit route stays within 1 % (relative Frobenius error) of the `f32`
    /// route on the same weights, the 7-bit route within 2 %, for every format, on every
    /// instruction set; the 7-bit error is larger than the 8-bit one (its step is twice as
    /// coarse), by a factor near 2.
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
        for (name, q) in &qs {
            let qr = quant_ref(q);
            let isa = Isa::selected_for_gemm();
            let f32route = plain(isa, 1, (m, k, n), &a, qr, None);
            for isa in Isa::available() {
                let rel = [(Codes::Eight, 1e-2), (Codes::Seven, 2e-2)].map(|(codes, bound)| {
                    let c = plain(isa, 2, (m, k, n), &a, qr, codes);
                    let num: f64 = c
                        .iter()
                        .zip(&f32route)
                        .map(|(x, y)| f64::from(x - y).powi(2))
                        .sum();
                    let den: f64 = f32route.iter().map(|y| f64::from(*y).powi(2)).sum();
                    let rel = (num / den).sqrt();
                    std::eprintln!("{name} {isa:?}: {codes:?} activations vs f32: {rel:.2e}");
                    assert!(
                        rel > 0.0 && rel < bound,
                        "{name} {isa:?} {codes:?}: relative error {rel}"
                    );
                    rel
                });
                let ratio = rel[1] / rel[0];
                assert!(
                    (1.4..3.0).contains(&ratio),
                    "{name} {isa:?}: 7-bit ÷ 8-bit {ratio}"
                );
            }
        }
    }

    /// The vectorizable rounding is `f32::round` (halves away from zero) on quarter steps
    /// over ±2¹⁸ (every tie), on integers past 2²³ and on random bit patterns; the AVX2 block
    /// quantizer agrees with the plain one.
    #[test]
    fn rounding_is_f32_round() {
        use super::round_half_away;
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
        // the AVX2 row quantizer against the plain one and the definition: blocks of halves
        // with max 127 (every tie, scale 1), of random sixteenths, of subnormals (the factor
        // capped at f32::MAX), zeros; then one non-finite value anywhere
        #[cfg(target_arch = "x86_64")]
        if Isa::Avx2.is_available() {
            use super::{ATILE, MB, QK, quantize_row};
            let k = 4 * QK;
            for it in 0..3000 {
                let mut row: Vec<f32> = (0..k)
                    .map(|p| match (p / QK + it) % 4 {
                        0 if p % QK == 7 => 127.0,
                        0 => g.int(-254, 254) as f32 / 2.0,
                        1 => g.int(-40000, 40000) as f32 / 16.0,
                        2 => f32::from_bits(g.int(0, 0x7F_FFFF) as u32) * [1.0, -1.0][p % 2],
                        _ => 0.0,
                    })
                    .collect();
                let r = it % MB;
                let mut x = (
                    std::vec![0i8; 4 * ATILE],
                    std::vec![0f32; 4 * MB],
                    std::vec![0i32; 4 * MB],
                    std::vec![0f32; 4 * MB],
                );
                let mut y = x.clone();
                quantize_row(&row, r, 127.0, &mut y.0, &mut y.1, &mut y.2, &mut y.3);
                // SAFETY: AVX2 and FMA checked just above.
                let ok = unsafe {
                    super::x86::quantize_row(&row, r, 127.0, &mut x.0, &mut x.1, &mut x.2, &mut x.3)
                };
                assert!(ok);
                assert_eq!(x, y, "iteration {it}");
                for b in 0..4 {
                    let blk = &row[b * QK..(b + 1) * QK];
                    let amax = blk.iter().fold(0f32, |m, v| m.max(v.abs()));
                    assert_eq!(y.1[b * MB + r], amax / 127.0);
                    let codes = &y.0[b * ATILE + r * QK..b * ATILE + (r + 1) * QK];
                    let (mut s0, mut s1) = (0i32, 0i32);
                    for (e, (&c, &v)) in codes.iter().zip(blk).enumerate() {
                        if (e / 2) % 2 == 0 {
                            s0 += i32::from(c)
                        } else {
                            s1 += i32::from(c)
                        }
                        if b % 4 == (4 - it % 4) % 4 {
                            // the halves block: scale 1, codes are f32::round of the value
                            assert_eq!(f32::from(c), v.round(), "{v}");
                        }
                    }
                    assert_eq!(y.3[b * MB + r], (s0 + s1) as f32);
                    let off = y.2[b * MB + r];
                    assert_eq!((i32::from(off as i16), off >> 16), (-8 * s0, -8 * s1));
                }
                let at = g.int(0, k as i32 - 1) as usize;
                row[at] = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY][it % 3];
                // SAFETY: AVX2 and FMA checked just above.
                let ok = unsafe {
                    super::x86::quantize_row(&row, r, 127.0, &mut x.0, &mut x.1, &mut x.2, &mut x.3)
                };
                assert!(!ok && !super::finite(&row), "{} at {at}", row[at]);
            }
        }
    }

    /// `Q4_0`'s lane offsets: each `i16` lane must start at `−8·Σ q_a` over its own k values
    /// (bytes 0, 1 or 2, 3 of each quad). Activations +127 on k ≡ 0, 1 and −127 on k ≡ 2, 3
    /// (mod 4) against weights 7 and −8 there: each lane ends at ±16256 or 14224, the block at
    /// 30480; an offset on the wrong lanes wraps.
    #[test]
    fn q4_0_lane_offsets_per_half() {
        let (m, k, n) = (10usize, 64usize, 20usize);
        let w: Vec<f32> = (0..k * n)
            .map(|t| if (t / n) % 4 < 2 { 7.0 } else { -8.0 })
            .collect();
        let q = quantize_q4_0(k, n, &w).unwrap();
        assert_eq!(q.dequantize().unwrap(), w);
        for sign in [1.0f32, -1.0] {
            let a: Vec<f32> = (0..m * k)
                .map(|t| {
                    if (t % k) % 4 < 2 {
                        127.0 * sign
                    } else {
                        -127.0 * sign
                    }
                })
                .collect();
            for isa in Isa::available() {
                let qr = QuantRef::from(&q);
                let c = plain(isa, 1, (m, k, n), &a, qr, Codes::Eight);
                let want = sign * 30480.0 * (k / 32) as f32;
                assert!(c.iter().all(|&x| x == want), "{isa:?}: {} != {want}", c[0]);
            }
        }
    }

    /// `Q8_0` codes over the whole `i8` range, −128 included (which `quantize_q8_0` never
    /// writes), in pairs of equal codes along k, against activations mostly ±127 in pairs
    /// (pair sums up to 2·128·127 = 32512; the sign on the activation) or ±63 (7-bit: stored
    /// +64, pair sums up to 2·127·128 = 32512 with −128): exact on every instruction set, one
    /// and two threads.
    #[test]
    fn q8_0_every_code_exact() {
        use crate::packed::{Q8_0Matrix, QK};
        let (m, k, n) = (13usize, 256usize, 19usize); // m > 8: not the decode route
        let mut g = Lcg(41);
        let mut bytes = Vec::new();
        let mut w = std::vec![0i64; k * n];
        for j in 0..n {
            for b in 0..k / QK {
                bytes.extend_from_slice(&0x3C00u16.to_le_bytes()); // d = 1.0 in f16
                for e in 0..QK {
                    let p = b * QK + e;
                    let c = match (j + p / 2) % 5 {
                        0 => -128,
                        1 => 127,
                        _ => g.int(-128, 127),
                    } as i8;
                    w[p * n + j] = i64::from(c);
                    bytes.push(c as u8);
                }
            }
        }
        let q = Q8_0Matrix::from_bytes(k, n, &bytes).unwrap();
        assert!(q.blocks().iter().any(|b| b.qs.contains(&-128)));
        for (isa, codes) in Isa::available().flat_map(|i| [(i, Codes::Eight), (i, Codes::Seven)]) {
            let top = codes.max() as i32;
            for threads in [1, 2] {
                // two of every six values ±top, so each block's d_a is 1
                let a: Vec<f32> = (0..m * k)
                    .map(|t| match (t / 2) % 3 {
                        0 => top as f32,
                        1 => -top as f32,
                        _ => g.int(-top, top) as f32,
                    })
                    .collect();
                let c = plain(isa, threads, (m, k, n), &a, QuantRef::from(&q), codes);
                for i in 0..m {
                    for j in 0..n {
                        let s: i64 = (0..k).map(|p| a[i * k + p] as i64 * w[p * n + j]).sum();
                        let at = c[i * n + j];
                        assert_eq!(at, s as f32, "{isa:?} {codes:?} t{threads} ({i},{j})");
                    }
                }
            }
        }
    }

    /// Rows of A holding a NaN or an infinity take the `f32` route: their rows of C are the
    /// `f32` route's (NaN where it gives NaN, the same infinities and finite values), the
    /// other rows the 8-bit route's as without them; every format, instruction set, A and C
    /// both ways, β ≠ 0, one and two threads.
    #[test]
    fn non_finite_rows_take_the_f32_route() {
        let (m, k, n) = (11usize, 96usize, 21usize);
        let mut g = Lcg(43);
        let wv: Vec<f32> = (0..k * n).map(|_| g.int(-900, 900) as f32 / 97.0).collect();
        let qs: Vec<Owned> = std::vec![
            Owned::Q4(quantize_q4_0(k, n, &wv).unwrap()),
            Owned::Q8(quantize_q8_0(k, n, &wv).unwrap()),
            Owned::G(Box::new(
                quantize_group4(k, n, &wv, 32, Group4Format::Gptq).unwrap()
            )),
        ];
        let clean: Vec<f32> = (0..m * k).map(|_| g.int(-900, 900) as f32 / 31.0).collect();
        // rows 1 and 2 (a run), 7 and the last: NaN, +∞, −∞ and +∞ (whose sum is NaN), ∞
        let mut bad = clean.clone();
        bad[k + 5] = f32::NAN;
        bad[2 * k + 40] = f32::INFINITY;
        bad[7 * k] = f32::NEG_INFINITY;
        bad[7 * k + 90] = f32::INFINITY;
        bad[10 * k + 33] = f32::NEG_INFINITY;
        let rows = [1, 2, 7, 10];
        let same = |x: f32, y: f32| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
        for q in &qs {
            let qr = quant_ref(q);
            for (isa, codes) in
                Isa::available().flat_map(|i| [(i, Codes::Eight), (i, Codes::Seven)])
            {
                for (threads, cm) in [(1, false), (2, true)] {
                    let c0: Vec<f32> = (0..m * n).map(|_| g.int(-50, 50) as f32).collect();
                    let t = |a: &[f32]| -> Vec<f32> {
                        if cm {
                            (0..m * k).map(|x| a[(x % m) * k + x / m]).collect()
                        } else {
                            a.to_vec()
                        }
                    };
                    let (ab, ac) = (t(&bad), t(&clean));
                    let go = |a: &[f32], int8: Option<Codes>| {
                        run(
                            isa,
                            threads,
                            (m, k, n),
                            a,
                            cm,
                            qr,
                            int8,
                            &c0,
                            cm,
                            (1.5, 0.5),
                        )
                    };
                    let (c8, c32, c8clean) =
                        (go(&ab, Some(codes)), go(&ab, None), go(&ac, Some(codes)));
                    for i in 0..m {
                        let mut nonfinite = false;
                        for j in 0..n {
                            let at = if cm { i + j * m } else { i * n + j };
                            if rows.contains(&i) {
                                nonfinite |= !c8[at].is_finite();
                                assert!(
                                    same(c8[at], c32[at]),
                                    "{isa:?} ({i},{j}): {} {}",
                                    c8[at],
                                    c32[at]
                                );
                            } else {
                                assert_eq!(c8[at].to_bits(), c8clean[at].to_bits(), "({i},{j})");
                            }
                        }
                        assert_eq!(nonfinite, rows.contains(&i), "{isa:?} row {i}");
                    }
                }
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
        for isa in Isa::available() {
            let qr = QuantRef::from(&q);
            let y = plain(isa, 1, (m, k, n), &a, qr, None);
            for codes in [Codes::Eight, Codes::Seven] {
                let x = plain(isa, 1, (m, k, n), &a, qr, codes);
                assert_eq!(x, y, "{isa:?} {codes:?}");
            }
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
            for isa in Isa::available() {
                for (q, want) in [
                    (QuantRef::from(&q4), 127.0 * sign * (7.0 * 62.0 - 8.0 * 2.0)),
                    (QuantRef::from(&q8p), 127.0 * sign * 127.0 * 64.0),
                    (QuantRef::from(&q8n), -127.0 * sign * 127.0 * 64.0),
                ] {
                    let c = plain(isa, 1, (m, k, n), &a, q, Codes::Eight);
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
