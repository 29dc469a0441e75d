//! Decode GEMV on quantised weights: `Y ← α·X·B + β·Y` for a few rows of activations `X`
//! (`m × k`, typically `m = 1`) and a quantised `B` (`k × n`), reading `B`'s stored bytes in
//! place — the matrix is never dequantised.
//!
//! Each kernel walks one output column (GGUF: its contiguous blocks; GPTQ/AWQ: eight columns
//! at a time, one 32-bit word per row or eight rows), unpacks the codes of a block into vector
//! registers, multiplies them with up to eight rows of `X` in one pass over the weights, and
//! applies the block's scale once per block (GGUF) or per group (GPTQ/AWQ): the weight bytes
//! are read once per eight rows.

use crate::isa::Isa;
// (some are read only by the x86-64 and aarch64 paths)
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(unused_imports)
)]
use crate::packed::{Access, Group4Matrix, Q4_0Matrix, Q8_0Matrix, QK, QuantRef, QuantizedB};
use alloc::vec::Vec;

/// Rows of `X` handled per pass over the weights.
const MAX_ROWS: usize = 8;

/// Output columns per chunk (each chunk's results are merged into `Y` at once).
const CHUNK: usize = 256;

/// `Y ← α·X·B + β·Y` with `X` row-major `m × k` (`x[r·k + p]`, exactly `m·k` elements), `B`
/// quantised `k × n` and `Y` row-major `m × n` (exactly `m·n`), on `threads` threads splitting
/// the columns: the decode route of [`gemm_quant`](super::gemm_quant), after the front's checks
/// and rules (m, n, k > 0, α ≠ 0, the instruction set available).
///
/// The weights are streamed once per eight rows of `X`, their codes unpacked in registers
/// (AVX2) and multiplied against `X` with the scale applied per block or group; nothing of the
/// size of `B` is allocated. Results may differ between instruction sets in the last bits (the
/// sums are ordered differently); they are identical for integer-valued data whose sums stay
/// below 2^24.
#[allow(clippy::too_many_arguments)]
pub(crate) fn decode(
    isa: Isa,
    threads: usize,
    m: usize,
    alpha: f32,
    x: &[f32],
    b: QuantRef<'_>,
    beta: f32,
    y: &mut [f32],
) {
    let (k, n) = (b.rows(), b.cols());
    let x = &x[..m * k];
    let threads = threads.clamp(1, n.div_ceil(CHUNK));
    let per = n.div_ceil(threads).next_multiple_of(8);
    // each thread's column range of every row of Y
    let mut parts: Vec<Vec<&mut [f32]>> = (0..threads).map(|_| Vec::with_capacity(m)).collect();
    for row in y.chunks_mut(n) {
        let mut rest = row;
        for part in parts.iter_mut() {
            let take = per.min(rest.len());
            let (head, tail) = rest.split_at_mut(take);
            part.push(head);
            rest = tail;
        }
    }
    // each part's segments handed to the thread that runs it (taken once)
    let parts: Vec<std::sync::Mutex<Vec<&mut [f32]>>> =
        parts.into_iter().map(std::sync::Mutex::new).collect();
    super::threads::split(threads, &|t| {
        let mut slot = parts[t]
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let segs = core::mem::take(&mut *slot);
        columns(isa, b, x, k, t * per, segs, alpha, beta);
    });
}

/// Columns `j0 .. j0 + segs[0].len()` of every row: `segs[r][c] ← α·(X·B)[r][j0+c] + β·segs[r][c]`.
#[allow(clippy::too_many_arguments)]
fn columns(
    isa: Isa,
    b: QuantRef<'_>,
    x: &[f32],
    k: usize,
    j0: usize,
    mut segs: Vec<&mut [f32]>,
    alpha: f32,
    beta: f32,
) {
    let width = segs.first().map_or(0, |s| s.len());
    let mut acc = [0.0f32; MAX_ROWS * CHUNK];
    let m = segs.len();
    for c0 in (0..width).step_by(CHUNK) {
        let cw = CHUNK.min(width - c0);
        for r0 in (0..m).step_by(MAX_ROWS) {
            let rows = MAX_ROWS.min(m - r0);
            let xs = &x[r0 * k..(r0 + rows) * k];
            dots(isa, b, xs, rows, k, j0 + c0, cw, &mut acc);
            // a non-finite sum (a ±∞ or NaN scale, weight or activation, or an overflow of
            // the factored sum) is recomputed by the definition, weight by weight, so that
            // every route gives the blocked GEMM's NaN or ±∞
            for r in 0..rows {
                for c in 0..cw {
                    let v = &mut acc[r * CHUNK + c];
                    if !v.is_finite() {
                        *v = exact_dot(b, &xs[r * k..(r + 1) * k], j0 + c0 + c);
                    }
                }
            }
            for r in 0..rows {
                let seg = &mut segs[r0 + r][c0..c0 + cw];
                for (c, v) in seg.iter_mut().enumerate() {
                    let d = alpha * acc[r * CHUNK + c];
                    *v = if beta == 0.0 { d } else { d + beta * *v };
                }
            }
        }
    }
}

/// `Σ_p x[p]·B[p][j]` with every weight dequantised as [`dequantize`](crate::packed::dequantize)
/// gives it (the definition the blocked GEMM follows; no scale factored out of a sum).
fn exact_dot(b: QuantRef<'_>, x: &[f32], j: usize) -> f32 {
    let w = |p: usize| match b {
        QuantRef::Q4_0(q) => q.get(p, j),
        QuantRef::Q8_0(q) => q.get(p, j),
        QuantRef::Group4(q) => q.get(p, j),
    };
    x.iter()
        .enumerate()
        .map(|(p, &v)| v * w(p).unwrap_or(0.0))
        .fold(0.0, |s, t| s + t)
}

/// `acc[r·CHUNK + c] = Σ_p xs[r·k + p]·B[p][j0 + c]` for `r < rows ≤ 8`, `c < cw ≤ CHUNK`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn dots(
    isa: Isa,
    b: QuantRef<'_>,
    xs: &[f32],
    rows: usize,
    k: usize,
    j0: usize,
    cw: usize,
    acc: &mut [f32; MAX_ROWS * CHUNK],
) {
    if let QuantRef::Group4(q) = b
        && !q.factored()
    {
        // a weight that dequantises to ±∞ (or a zero point not exact in f32): no scale may
        // be factored out of a sum
        for c in 0..cw {
            for r in 0..rows {
                acc[r * CHUNK + c] = exact_dot(b, &xs[r * k..(r + 1) * k], j0 + c);
            }
        }
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 && isa.is_available() && crate::packed::simd::has_f16c() {
        // SAFETY: AVX2, FMA and F16C are available (checked just above)
        unsafe { avx2::dots(b, xs, rows, k, j0, cw, acc) };
        return;
    }
    #[cfg(target_arch = "aarch64")]
    if isa == Isa::Neon {
        // SAFETY: NEON is in every aarch64 CPU.
        unsafe { neon::dots(b, xs, rows, k, j0, cw, acc) };
        return;
    }
    let _ = isa;
    portable::dots(b, xs, rows, k, j0, cw, acc);
}

/// `$f::<rows>(args…)` for `rows` in 1..=8 (8 beyond).
macro_rules! by_rows {
    ($rows:expr; $f:ident, $($args:expr),*) => {
        match $rows {
            1 => $f::<1>($($args),*),
            2 => $f::<2>($($args),*),
            3 => $f::<3>($($args),*),
            4 => $f::<4>($($args),*),
            5 => $f::<5>($($args),*),
            6 => $f::<6>($($args),*),
            7 => $f::<7>($($args),*),
            _ => $f::<8>($($args),*),
        }
    };
}

/// The body of each instruction set's `dots` (its module's `q4_0_cols`, `q8_0_cols` and
/// `group_cols` at the row count, by constant; groups the vector kernel does not take by the
/// portable one).
macro_rules! by_format {
    ($b:expr, $xs:expr, $rows:expr, $k:expr, $j0:expr, $cw:expr, $acc:expr) => {{
        let (b, xs, rows, k, j0, cw, acc) = ($b, $xs, $rows, $k, $j0, $cw, $acc);
        match b {
            QuantRef::Q4_0(q) => by_rows!(rows; q4_0_cols, q, xs, k, j0, cw, acc),
            QuantRef::Q8_0(q) => by_rows!(rows; q8_0_cols, q, xs, k, j0, cw, acc),
            QuantRef::Group4(q) => match q.access() {
                Access::Awq | Access::Gptq
                    if q.group().is_multiple_of(8)
                        && (q.access() == Access::Awq || k.is_multiple_of(8)) =>
                {
                    by_rows!(rows; group_cols, q, xs, k, j0, cw, acc)
                }
                _ => super::portable::dots(b, xs, rows, k, j0, cw, acc),
            },
        }
    }};
}

/// A GGUF format's columns function `$name` (`acc[r·CHUNK + c]` ← column `j0 + c` against
/// `M` rows, each by the module's `gguf_col` with the block's codes `$codes` and scale
/// `$scale`), with the module's attributes.
macro_rules! gguf_cols {
    ($(#[$attr:meta])* $name:ident, $m:ty, $blk:ty, $codes:expr, $scale:expr) => {
        $(#[$attr])*
        fn $name<const M: usize>(
            q: &$m,
            xs: &[f32],
            k: usize,
            j0: usize,
            cw: usize,
            acc: &mut [f32; MAX_ROWS * CHUNK],
        ) {
            for c in 0..cw {
                let col = q.column(j0 + c).unwrap_or(&[]);
                let s = gguf_col::<M, $blk>(col, xs, k, $codes, $scale);
                for (r, v) in s.iter().enumerate() {
                    acc[r * CHUNK + c] = *v;
                }
            }
        }
    };
}

mod portable {
    use super::*;

    pub(super) fn dots(
        b: QuantRef<'_>,
        xs: &[f32],
        rows: usize,
        k: usize,
        j0: usize,
        cw: usize,
        acc: &mut [f32; MAX_ROWS * CHUNK],
    ) {
        for c in 0..cw {
            let j = j0 + c;
            for r in 0..rows {
                let x = &xs[r * k..(r + 1) * k];
                acc[r * CHUNK + c] = match b {
                    QuantRef::Q4_0(q) => gguf_dot(
                        q.column(j).unwrap_or(&[]),
                        x,
                        |b, i| (i32::from(b.code(i)) - 8) as f32,
                        |b| b.d.to_f32(),
                    ),
                    QuantRef::Q8_0(q) => gguf_dot(
                        q.column(j).unwrap_or(&[]),
                        x,
                        |b, i| f32::from(b.qs[i]),
                        |b| b.d.to_f32(),
                    ),
                    QuantRef::Group4(q) => group_dot(q, x, j),
                };
            }
        }
    }

    /// `Σ_blocks d·Σ_i code_i·x_i`.
    fn gguf_dot<B>(
        blocks: &[B],
        x: &[f32],
        code: impl Fn(&B, usize) -> f32,
        scale: impl Fn(&B) -> f32,
    ) -> f32 {
        let mut s = 0.0f32;
        for (blk, xb) in blocks.iter().zip(x.chunks_exact(QK)) {
            let t: f32 = xb.iter().enumerate().map(|(i, &v)| code(blk, i) * v).sum();
            s += scale(blk) * t;
        }
        s
    }

    /// `Σ_groups s·Σ_p x_p·(q_p − z)`, `q_p − z` rounded once as `dequantize` does.
    pub(super) fn group_dot(q: &Group4Matrix, x: &[f32], j: usize) -> f32 {
        let (n, group) = (q.n(), q.group());
        let mut s = 0.0f32;
        for (g, xg) in x.chunks_exact(group).enumerate() {
            let z = q.zero_i64(g, j);
            let t: f32 = xg
                .iter()
                .enumerate()
                .map(|(i, &v)| v * Group4Matrix::level(q.code(g * group + i, j), z))
                .sum();
            s += q.scales()[g * n + j] * t;
        }
        s
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::*;
    use crate::packed::{AWQ_SHIFT, BlockQ4_0, BlockQ8_0, simd};
    use core::arch::x86_64::*;

    /// As [`super::dots`], with AVX2.
    ///
    /// # Safety
    /// The CPU has AVX2, FMA and F16C.
    #[target_feature(enable = "avx2,fma,f16c")]
    pub(super) unsafe fn dots(
        b: QuantRef<'_>,
        xs: &[f32],
        rows: usize,
        k: usize,
        j0: usize,
        cw: usize,
        acc: &mut [f32; MAX_ROWS * CHUNK],
    ) {
        by_format!(b, xs, rows, k, j0, cw, acc);
    }

    /// The sum of the 8 lanes.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    fn hsum(v: __m256) -> f32 {
        let s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
        let s = _mm_add_ps(s, _mm_movehl_ps(s, s));
        let s = _mm_add_ss(s, _mm_movehdup_ps(s));
        _mm_cvtss_f32(s)
    }

    /// Eight floats at `x[o..o + 8]`.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    fn load8(x: &[f32], o: usize) -> __m256 {
        let s: &[f32; 8] = x[o..o + 8].try_into().expect("8 floats");
        // SAFETY: `s` is 8 readable floats; unaligned load
        unsafe { _mm256_loadu_ps(s.as_ptr()) }
    }

    /// One GGUF column against `M` rows: per block, codes in 4 vectors, dot with each row,
    /// the scale once.
    #[inline]
    #[target_feature(enable = "avx2,fma,f16c")]
    fn gguf_col<const M: usize, B>(
        blocks: &[B],
        xs: &[f32],
        k: usize,
        codes: impl Fn(&B) -> [__m256; 4],
        scale: impl Fn(&B) -> __m256,
    ) -> [f32; M] {
        let mut acc = [_mm256_setzero_ps(); M];
        for (bi, blk) in blocks.iter().enumerate() {
            let w = codes(blk);
            let d = scale(blk);
            for (r, a) in acc.iter_mut().enumerate() {
                let o = r * k + bi * QK;
                let mut t = _mm256_mul_ps(w[0], load8(xs, o));
                t = _mm256_fmadd_ps(w[1], load8(xs, o + 8), t);
                t = _mm256_fmadd_ps(w[2], load8(xs, o + 16), t);
                t = _mm256_fmadd_ps(w[3], load8(xs, o + 24), t);
                *a = _mm256_fmadd_ps(d, t, *a);
            }
        }
        let mut out = [0.0f32; M];
        for (o, a) in out.iter_mut().zip(acc) {
            *o = hsum(a);
        }
        out
    }

    gguf_cols!(
        #[target_feature(enable = "avx2,fma,f16c")]
        q4_0_cols,
        Q4_0Matrix,
        BlockQ4_0,
        |b| simd::q4_0_codes(b),
        |b| simd::scale8(b.d)
    );
    gguf_cols!(
        #[target_feature(enable = "avx2,fma,f16c")]
        q8_0_cols,
        Q8_0Matrix,
        BlockQ8_0,
        |b| simd::q8_0_codes(b),
        |b| simd::scale8(b.d)
    );

    /// GPTQ/AWQ (`group % 8 == 0`): the chunk's columns in eights, the rows in eights (one
    /// GPTQ word per column, one AWQ word per row); per group, sums of `x·(q − z)` kept per
    /// column in `t` (L1), then scaled into the result. The rows of the chunk are read in
    /// order, each as one contiguous run of bytes. Columns past the last whole eight (and AWQ
    /// chunks not starting at a multiple of 8) by the portable kernel.
    #[target_feature(enable = "avx2,fma,f16c")]
    fn group_cols<const M: usize>(
        q: &Group4Matrix,
        xs: &[f32],
        k: usize,
        j0: usize,
        cw: usize,
        acc: &mut [f32; MAX_ROWS * CHUNK],
    ) {
        let (n, group) = (q.n(), q.group());
        let bytes = q.weights().as_bytes();
        let awq = q.access() == Access::Awq;
        let mask = _mm256_set1_epi32(0xf);
        // SAFETY: reading 8 i32 from an array of 8 u32
        let awq_shift = unsafe { _mm256_loadu_si256(AWQ_SHIFT.as_ptr().cast()) };
        let vec_cols = if awq && !j0.is_multiple_of(8) {
            0
        } else {
            cw / 8 * 8
        };
        let mut out = [[0.0f32; CHUNK]; M];
        let mut t = [[0.0f32; CHUNK]; M];
        let mut zs = [0.0f32; CHUNK];
        for g in 0..k / group {
            for (c, z) in zs[..vec_cols].iter_mut().enumerate() {
                *z = q.zero(g, j0 + c);
            }
            for tr in t.iter_mut() {
                tr[..vec_cols].fill(0.0);
            }
            for p8 in (g * group..(g + 1) * group).step_by(8) {
                for w in 0..vec_cols / 8 {
                    let j = j0 + 8 * w;
                    let z = load8(&zs, 8 * w);
                    let mut tv = [_mm256_setzero_ps(); M];
                    for (r, v) in tv.iter_mut().enumerate() {
                        *v = load8(&t[r], 8 * w);
                    }
                    let gw = if awq {
                        _mm256_setzero_si256()
                    } else {
                        let o = 4 * ((p8 / 8) * n + j);
                        let wb: &[u8; 32] = bytes[o..o + 32].try_into().expect("32 bytes");
                        // SAFETY: `wb` is 32 readable bytes; unaligned load
                        unsafe { _mm256_loadu_si256(wb.as_ptr().cast()) }
                    };
                    for s8 in 0..8 {
                        let codes = if awq {
                            let wi = ((p8 + s8) * n + j) / 8;
                            debug_assert!(4 * wi + 4 <= bytes.len());
                            // SAFETY: word `wi` holds row p8 + s8 < k, columns j..j+8 ≤ n of
                            // the K·N codes, inside `bytes` (checked on entry)
                            let w32 = unsafe { _mm_loadu_si32(bytes.as_ptr().add(4 * wi).cast()) };
                            // (folds into one `vpbroadcastd` from memory)
                            let wd = _mm256_broadcastd_epi32(w32);
                            _mm256_srlv_epi32(wd, awq_shift)
                        } else {
                            _mm256_srlv_epi32(gw, _mm256_set1_epi32(4 * s8 as i32))
                        };
                        let v = _mm256_cvtepi32_ps(_mm256_and_si256(codes, mask));
                        let v = _mm256_sub_ps(v, z);
                        for (r, tr) in tv.iter_mut().enumerate() {
                            // SAFETY: r < M and p8 + s8 < k: inside the M·k floats of `xs`
                            let xe = unsafe { *xs.get_unchecked(r * k + p8 + s8) };
                            *tr = _mm256_fmadd_ps(_mm256_set1_ps(xe), v, *tr);
                        }
                    }
                    for (r, v) in tv.iter().enumerate() {
                        let d: &mut [f32; 8] =
                            (&mut t[r][8 * w..8 * w + 8]).try_into().expect("8 floats");
                        // SAFETY: `d` is 8 writable floats
                        unsafe { _mm256_storeu_ps(d.as_mut_ptr(), *v) };
                    }
                }
            }
            let srow = &q.scales()[g * n + j0..g * n + j0 + vec_cols];
            for (o, tr) in out.iter_mut().zip(&t) {
                for c in 0..vec_cols {
                    o[c] += srow[c] * tr[c];
                }
            }
        }
        for (r, o) in out.iter().enumerate() {
            acc[r * CHUNK..r * CHUNK + vec_cols].copy_from_slice(&o[..vec_cols]);
        }
        for c in vec_cols..cw {
            for r in 0..M {
                acc[r * CHUNK + c] = super::portable::group_dot(q, &xs[r * k..(r + 1) * k], j0 + c);
            }
        }
    }
}

/// The aarch64 decode kernels: the AVX2 kernels' passes with four-lane NEON vectors (a block's
/// 32 codes in eight `float32x4_t`, GPTQ/AWQ's eight columns in two), `fmla` into per-row sums.
#[cfg(target_arch = "aarch64")]
mod neon {
    use super::*;
    use crate::packed::{AWQ_SHIFT, BlockQ4_0, BlockQ8_0};
    use core::arch::aarch64::*;

    /// As [`super::dots`], with NEON.
    ///
    /// # Safety
    /// The CPU has NEON (every aarch64 CPU does).
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn dots(
        b: QuantRef<'_>,
        xs: &[f32],
        rows: usize,
        k: usize,
        j0: usize,
        cw: usize,
        acc: &mut [f32; MAX_ROWS * CHUNK],
    ) {
        by_format!(b, xs, rows, k, j0, cw, acc);
    }

    /// Four floats at `x[o..o + 4]`.
    #[inline]
    #[target_feature(enable = "neon")]
    fn load4(x: &[f32], o: usize) -> float32x4_t {
        let s: &[f32; 4] = x[o..o + 4].try_into().expect("4 floats");
        // SAFETY: `s` is 4 readable floats
        unsafe { vld1q_f32(s.as_ptr()) }
    }

    /// Eight `i8` codes as two vectors of four `f32` (exact).
    #[inline]
    #[target_feature(enable = "neon")]
    fn widen(c: int8x8_t) -> [float32x4_t; 2] {
        let w = vmovl_s8(c);
        [
            vcvtq_f32_s32(vmovl_s16(vget_low_s16(w))),
            vcvtq_f32_s32(vmovl_s16(vget_high_s16(w))),
        ]
    }

    /// Sixteen `i8` codes as four vectors of four `f32` into `out`.
    #[inline]
    #[target_feature(enable = "neon")]
    fn widen16(c: int8x16_t, out: &mut [float32x4_t]) {
        let [a, b] = widen(vget_low_s8(c));
        let [e, f] = widen(vget_high_s8(c));
        out[..4].copy_from_slice(&[a, b, e, f]);
    }

    /// The 32 codes of a `Q4_0` block minus 8, in k order.
    #[inline]
    #[target_feature(enable = "neon")]
    fn q4_0_codes(b: &BlockQ4_0) -> [float32x4_t; 8] {
        // SAFETY: `qs` is 16 readable bytes
        let x = unsafe { vld1q_u8(b.qs.as_ptr()) };
        let eight = vdupq_n_s8(8);
        let lo = vsubq_s8(vreinterpretq_s8_u8(vandq_u8(x, vdupq_n_u8(0x0F))), eight);
        let hi = vsubq_s8(vreinterpretq_s8_u8(vshrq_n_u8::<4>(x)), eight);
        let mut v = [vdupq_n_f32(0.0); 8];
        widen16(lo, &mut v[..4]);
        widen16(hi, &mut v[4..]);
        v
    }

    /// The 32 codes of a `Q8_0` block, in k order.
    #[inline]
    #[target_feature(enable = "neon")]
    fn q8_0_codes(b: &BlockQ8_0) -> [float32x4_t; 8] {
        // SAFETY: `qs` is 32 readable `i8`: two loads of 16
        let (x, y) = unsafe { (vld1q_s8(b.qs.as_ptr()), vld1q_s8(b.qs.as_ptr().add(16))) };
        let mut v = [vdupq_n_f32(0.0); 8];
        widen16(x, &mut v[..4]);
        widen16(y, &mut v[4..]);
        v
    }

    /// One GGUF column against `M` rows: per block, codes in 8 vectors, dot with each row (two
    /// chains of `fmla`), the scale once.
    #[inline]
    #[target_feature(enable = "neon")]
    fn gguf_col<const M: usize, B>(
        blocks: &[B],
        xs: &[f32],
        k: usize,
        codes: impl Fn(&B) -> [float32x4_t; 8],
        scale: impl Fn(&B) -> f32,
    ) -> [f32; M] {
        let mut acc = [vdupq_n_f32(0.0); M];
        for (bi, blk) in blocks.iter().enumerate() {
            let w = codes(blk);
            let d = scale(blk);
            for (r, a) in acc.iter_mut().enumerate() {
                let o = r * k + bi * QK;
                let mut t0 = vmulq_f32(w[0], load4(xs, o));
                let mut t1 = vmulq_f32(w[1], load4(xs, o + 4));
                for i in (2..8).step_by(2) {
                    t0 = vfmaq_f32(t0, w[i], load4(xs, o + 4 * i));
                    t1 = vfmaq_f32(t1, w[i + 1], load4(xs, o + 4 * i + 4));
                }
                *a = vfmaq_n_f32(*a, vaddq_f32(t0, t1), d);
            }
        }
        acc.map(|a| vaddvq_f32(a))
    }

    // (a symbol of its own per row count: `scripts/kernel-mca` reads its loop)
    gguf_cols!(
        #[inline(never)]
        #[target_feature(enable = "neon")]
        q4_0_cols,
        Q4_0Matrix,
        BlockQ4_0,
        |b| q4_0_codes(b),
        |b| b.d.to_f32()
    );
    gguf_cols!(
        #[inline(never)]
        #[target_feature(enable = "neon")]
        q8_0_cols,
        Q8_0Matrix,
        BlockQ8_0,
        |b| q8_0_codes(b),
        |b| b.d.to_f32()
    );

    /// GPTQ/AWQ (`group % 8 == 0`), as the AVX2 kernel: eight columns in two vectors, per
    /// group the sums of `x·(q − z)` kept per column in `t`, then scaled into the result. The
    /// codes are shifted out of their words by `ushl` with negative counts. Columns past the
    /// last whole eight (and AWQ chunks not starting at a multiple of 8) by the portable kernel.
    #[target_feature(enable = "neon")]
    fn group_cols<const M: usize>(
        q: &Group4Matrix,
        xs: &[f32],
        k: usize,
        j0: usize,
        cw: usize,
        acc: &mut [f32; MAX_ROWS * CHUNK],
    ) {
        let (n, group) = (q.n(), q.group());
        let bytes = q.weights().as_bytes();
        let awq = q.access() == Access::Awq;
        let mask = vdupq_n_u32(0xf);
        // AWQ: column c's code sits at bit AWQ_SHIFT[c] (`ushl` by a negative count shifts right)
        let sh = AWQ_SHIFT.map(|s| -(s as i32));
        // SAFETY: `sh` is 8 readable i32: two loads of 4
        let awq_shift = unsafe { [vld1q_s32(sh.as_ptr()), vld1q_s32(sh.as_ptr().add(4))] };
        let vec_cols = if awq && !j0.is_multiple_of(8) {
            0
        } else {
            cw / 8 * 8
        };
        let mut out = [[0.0f32; CHUNK]; M];
        let mut t = [[0.0f32; CHUNK]; M];
        let mut zs = [0.0f32; CHUNK];
        for g in 0..k / group {
            for (c, z) in zs[..vec_cols].iter_mut().enumerate() {
                *z = q.zero(g, j0 + c);
            }
            for tr in t.iter_mut() {
                tr[..vec_cols].fill(0.0);
            }
            for p8 in (g * group..(g + 1) * group).step_by(8) {
                for w in 0..vec_cols / 8 {
                    let j = j0 + 8 * w;
                    let z = [load4(&zs, 8 * w), load4(&zs, 8 * w + 4)];
                    let mut tv = [[vdupq_n_f32(0.0); 2]; M];
                    for (r, v) in tv.iter_mut().enumerate() {
                        *v = [load4(&t[r], 8 * w), load4(&t[r], 8 * w + 4)];
                    }
                    let gw = if awq {
                        [vdupq_n_u32(0); 2]
                    } else {
                        let o = 4 * ((p8 / 8) * n + j);
                        let wb: &[u8; 32] = bytes[o..o + 32].try_into().expect("32 bytes");
                        // SAFETY: `wb` is 32 readable bytes: two loads of 16
                        unsafe {
                            [
                                vreinterpretq_u32_u8(vld1q_u8(wb.as_ptr())),
                                vreinterpretq_u32_u8(vld1q_u8(wb.as_ptr().add(16))),
                            ]
                        }
                    };
                    for s8 in 0..8 {
                        let codes = if awq {
                            let wi = ((p8 + s8) * n + j) / 8;
                            let wb: &[u8; 4] =
                                bytes[4 * wi..4 * wi + 4].try_into().expect("4 bytes");
                            let wd = vdupq_n_u32(u32::from_le_bytes(*wb));
                            [vshlq_u32(wd, awq_shift[0]), vshlq_u32(wd, awq_shift[1])]
                        } else {
                            let by = vdupq_n_s32(-4 * s8 as i32);
                            [vshlq_u32(gw[0], by), vshlq_u32(gw[1], by)]
                        };
                        let v = [0, 1]
                            .map(|h| vsubq_f32(vcvtq_f32_u32(vandq_u32(codes[h], mask)), z[h]));
                        for (r, tr) in tv.iter_mut().enumerate() {
                            let xe = xs[r * k + p8 + s8];
                            tr[0] = vfmaq_n_f32(tr[0], v[0], xe);
                            tr[1] = vfmaq_n_f32(tr[1], v[1], xe);
                        }
                    }
                    for (r, v) in tv.iter().enumerate() {
                        let d: &mut [f32; 8] =
                            (&mut t[r][8 * w..8 * w + 8]).try_into().expect("8 floats");
                        // SAFETY: `d` is 8 writable floats: two stores of 4
                        unsafe {
                            vst1q_f32(d.as_mut_ptr(), v[0]);
                            vst1q_f32(d.as_mut_ptr().add(4), v[1]);
                        }
                    }
                }
            }
            let srow = &q.scales()[g * n + j0..g * n + j0 + vec_cols];
            for (o, tr) in out.iter_mut().zip(&t) {
                for c in 0..vec_cols {
                    o[c] += srow[c] * tr[c];
                }
            }
        }
        for (r, o) in out.iter().enumerate() {
            acc[r * CHUNK..r * CHUNK + vec_cols].copy_from_slice(&o[..vec_cols]);
        }
        for c in vec_cols..cw {
            for r in 0..M {
                acc[r * CHUNK + c] = super::portable::group_dot(q, &xs[r * k..(r + 1) * k], j0 + c);
            }
        }
    }
}
