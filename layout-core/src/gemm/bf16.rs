//! bf16 × bf16 → f32 on AVX-512 BF16: `vdpbf16ps` multiplies pairs of bf16 and adds both
//! products into an f32 lane, twice the multiply-adds of an f32 FMA per instruction.
//!
//! The reduction dimension k is interleaved in pairs ("VNNI-2"), the same panel layout as the
//! integer pairs (`((2, R), ⌈k/2⌉) : ((1, 2), 2R)`, packed by the same source, the bf16 bits
//! as the 16-bit lanes): A panels of MR = 32 rows hold, for each pair of k, the two values of a
//! row side by side in one 32-bit lane; B panels of NR = 12 columns hold, for each pair, the two
//! values of a column as one 32-bit word that the kernel broadcasts. Odd k and the m, n edges are
//! zero-padded (zeros add nothing). Loops, blocking, threads, edge tiles and C of any layout are
//! the engine's (`block::run_panels`). `vdpbf16ps` flushes denormal inputs and outputs to zero
//! and rounds each accumulation to nearest even (see `reference/gemm.md` §7); on integer data
//! small enough for bf16 the results are exact.

use core::arch::x86_64::*;
use std::cell::RefCell;
use std::vec::Vec;

use super::kernel::{Kern, KernelInfo, Tile};
use super::pack::{Panels, Rows};

/// Rows of a packed A panel (two zmm of 16 f32 accumulators).
const MR: usize = 32;
/// Columns of a packed B panel.
const NR: usize = 12;

/// `true` when this CPU has AVX-512 BF16 (and AVX-512F).
pub(crate) fn available() -> bool {
    crate::isa::has_avx512_bf16(crate::isa::Isa::Avx512)
}

/// The bf16 pair's kernels: C, α, β in `f32`, panels of bf16 bits in k pairs.
pub(crate) struct Bf16Pairs;

impl Kern for Bf16Pairs {
    type C = f32;
    type P = i16;
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const KSTEP: usize = 2;
    #[inline(always)]
    fn mul_add(c: f32, beta: f32, x: f32) -> f32 {
        c * beta + x
    }
    #[inline(always)]
    fn add(c: f32, x: f32) -> f32 {
        c + x
    }
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<i16>, &mut Vec<i16>) -> R) -> R {
        std::thread_local! {
            static BUFS: RefCell<(Vec<i16>, Vec<i16>)> = const { RefCell::new((Vec::new(), Vec::new())) };
        }
        super::dispatch::with_cached(&BUFS, f)
    }
}

/// A bf16 operand packed into k pairs for [`Bf16Pairs`] (the panels of
/// [`Panels::pack`] with `KSTEP = 2`, bf16 bits as the 16-bit lanes): the two layouts of a
/// strided operand the blocked engine meets most — the packed dimension contiguous (a row-major
/// B under a row-major C, 32-row panels: two k rows interleaved 32 lanes at a time by
/// `vpermt2w`) and k contiguous (a row-major A: each k pair is one 32-bit word, copied to its
/// place) — move whole words or vectors; every other operand (mapped, other strides, other
/// panel heights) takes the general pair packer (`int8.rs`).
pub(crate) struct PairRows<'a>(pub Rows<'a, half::bf16>);

impl Panels<i16> for PairRows<'_> {
    fn pack(&self, dst: &mut [i16], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        let s = &self.0;
        let kcp = kc.next_multiple_of(2);
        let panels = len.div_ceil(r);
        if s.map.is_some() || kc == 0 || len == 0 || dst.len() < panels * r * kcp {
            return s.pack(dst, v0, p0, len, kc, r);
        }
        if s.sv == 1 && r == MR && std::is_x86_feature_detected!("avx512bw") {
            for (t, panel) in dst[..panels * r * kcp]
                .chunks_exact_mut(r * kcp)
                .enumerate()
            {
                let rows = r.min(len - t * r);
                let first = s.origin + (v0 + t * r) as isize + p0 as isize * s.sk;
                // SAFETY: AVX-512 BW was detected; every element read, `first + p·sk + i`
                // (p < kc, i < rows), is (v0 + t·r + i, p0 + p) of the operand, inside `s.src`
                // (a checked operand: the caller passes ranges inside X), and the panel holds
                // MR·kcp lanes.
                unsafe { zip_panel(s.src, first, s.sk, rows, kc, panel) };
            }
            return;
        }
        if s.sk == 1 {
            for (t, panel) in dst[..panels * r * kcp]
                .chunks_exact_mut(r * kcp)
                .enumerate()
            {
                let rows = r.min(len - t * r);
                if rows < r || kcp != kc {
                    panel.fill(0);
                }
                for i in 0..rows {
                    let at = (s.row(v0 + t * r + i) + p0 as isize) as usize;
                    let src = &s.src[at..at + kc];
                    // each k pair one 32-bit word, at word `q·r + i` of the panel
                    let words = kc / 2;
                    assert!(2 * ((words.max(1) - 1) * r + i) + 2 <= panel.len());
                    let (from, to) = (src.as_ptr().cast::<u32>(), panel.as_mut_ptr());
                    for q in 0..words {
                        // SAFETY: word q of the row is `src[2q..2q + 2]` (2q + 1 < kc), and
                        // lanes `2(q·r + i)`, +1 are inside the panel (asserted for the last
                        // q above); unaligned 32-bit accesses.
                        unsafe {
                            let w = from.add(q).read_unaligned();
                            to.add(2 * (q * r + i)).cast::<u32>().write_unaligned(w);
                        }
                    }
                    if kc % 2 == 1 {
                        panel[2 * ((kc / 2) * r + i)] = src[kc - 1].to_bits() as i16;
                    }
                }
            }
            return;
        }
        s.pack(dst, v0, p0, len, kc, r)
    }
}

/// One 32-row pair panel of an operand whose packed dimension is contiguous: k rows `2q` and
/// `2q + 1` (`rows` lanes each, from `first + p·sk`) interleaved into pair step q; lanes past
/// `rows` and an odd last k row's partner are zero.
///
/// # Safety
/// AVX-512 BW is available; `src[first + p·sk + i]` exists for `p < kc`, `i < rows ≤ 32`;
/// `panel` holds `32·⌈kc/2⌉·2` lanes.
#[target_feature(enable = "avx512bw,avx512f")]
unsafe fn zip_panel(
    src: &[half::bf16],
    first: isize,
    sk: isize,
    rows: usize,
    kc: usize,
    panel: &mut [i16],
) {
    debug_assert!(rows <= MR && panel.len() >= MR * kc.next_multiple_of(2));
    let mask: __mmask32 = if rows >= 32 { !0 } else { (1u32 << rows) - 1 };
    // lane 2i ← x[i], lane 2i + 1 ← y[i] (indices 32.. name the second source)
    let lo: [i16; 32] = core::array::from_fn(|l| (l / 2 + (l % 2) * 32) as i16);
    let hi: [i16; 32] = core::array::from_fn(|l| (16 + l / 2 + (l % 2) * 32) as i16);
    // SAFETY: (whole body) the caller's contract: each masked load reads `rows` lanes of
    // one k row inside `src`; each store writes 64 lanes of pair step q inside `panel`.
    unsafe {
        let (lo, hi) = (
            _mm512_loadu_si512(lo.as_ptr().cast()),
            _mm512_loadu_si512(hi.as_ptr().cast()),
        );
        let base = src.as_ptr().cast::<i16>();
        let row = |p: usize| base.offset(first + p as isize * sk);
        let out = panel.as_mut_ptr();
        for q in 0..kc / 2 {
            let x = _mm512_maskz_loadu_epi16(mask, row(2 * q));
            let y = _mm512_maskz_loadu_epi16(mask, row(2 * q + 1));
            _mm512_storeu_si512(out.add(64 * q).cast(), _mm512_permutex2var_epi16(x, lo, y));
            _mm512_storeu_si512(
                out.add(64 * q + 32).cast(),
                _mm512_permutex2var_epi16(x, hi, y),
            );
        }
        if kc % 2 == 1 {
            let x = _mm512_maskz_loadu_epi16(mask, row(kc - 1));
            let y = _mm512_setzero_si512();
            let q = kc / 2;
            _mm512_storeu_si512(out.add(64 * q).cast(), _mm512_permutex2var_epi16(x, lo, y));
            _mm512_storeu_si512(
                out.add(64 * q + 32).cast(),
                _mm512_permutex2var_epi16(x, hi, y),
            );
        }
    }
}

/// The kernel and its blocking ([`KernelInfo::sized`]): KC at most 512 k values (256 pairs),
/// the A block at most 384 KiB.
pub(crate) fn kernel() -> KernelInfo<f32, i16> {
    KernelInfo::sized(MR, NR, 512, 384 << 10, ukr)
}

/// One 32 × 12 tile over `t.k` pairs of k: `C ← α·acc + β·C` (β = 0: C not read).
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = 32, NR = 12, `KSTEP = 2`; AVX-512 BF16 available.
#[target_feature(enable = "avx512bf16,avx512f")]
unsafe fn ukr(t: &Tile<f32, i16>) {
    // SAFETY: forwarded contract.
    let acc = unsafe { pairs_loop(t) };
    // SAFETY: forwarded contract.
    unsafe { store(t, &acc) }
}

/// The k loop of [`ukr`]: 24 accumulators returned by value, so that they stay in registers
/// (an accumulator array also indexed by the store in the same function was kept in memory by
/// LLVM and written back every k step: 24 zmm stores per 24 `vdpbf16ps`, 0.45× at 256³).
///
/// # Safety
/// As [`ukr`].
#[inline(always)]
unsafe fn pairs_loop(t: &Tile<f32, i16>) -> [[__m512; 2]; NR] {
    // SAFETY: AVX-512 BF16 is available (the caller's contract; inlined into `ukr`).
    let mut acc = [[unsafe { _mm512_setzero_ps() }; 2]; NR];
    let (ap, bp) = (t.a.cast::<u32>(), t.b.cast::<u32>());
    for p in 0..t.k {
        // SAFETY: p < k: the 32 words of A and the 12 of B of this pair are inside the
        // panels (the caller's contract: 2·MR·k and 2·NR·k i16).
        let (a0, a1) = unsafe {
            (
                _mm512_loadu_si512(ap.add(p * MR).cast()),
                _mm512_loadu_si512(ap.add(p * MR + 16).cast()),
            )
        };
        let (a0, a1): (__m512bh, __m512bh) = (
            // SAFETY: a bit-for-bit reinterpretation of 512 bits.
            unsafe { core::mem::transmute::<__m512i, __m512bh>(a0) },
            // SAFETY: as above.
            unsafe { core::mem::transmute::<__m512i, __m512bh>(a1) },
        );
        for (j, acc) in acc.iter_mut().enumerate() {
            // SAFETY: inside the B panel (above); unaligned read of one word.
            let w = unsafe { bp.add(p * NR + j).read_unaligned() } as i32;
            // SAFETY: a bit-for-bit reinterpretation of 512 bits.
            let bj = unsafe { core::mem::transmute::<__m512i, __m512bh>(_mm512_set1_epi32(w)) };
            // SAFETY: AVX-512 BF16 is available (the caller's contract).
            unsafe {
                acc[0] = _mm512_dpbf16_ps(acc[0], a0, bj);
                acc[1] = _mm512_dpbf16_ps(acc[1], a1, bj);
            }
        }
    }
    acc
}

/// `C ← α·acc + β·C` for one tile of [`ukr`] (β = 0: C not read); out of line, so that the
/// k loop's accumulators are registers until this call.
///
/// # Safety
/// As [`ukr`].
#[inline(never)]
#[target_feature(enable = "avx512f")]
unsafe fn store(t: &Tile<f32, i16>, acc: &[[__m512; 2]; NR]) {
    let alpha = _mm512_set1_ps(t.alpha);
    if t.rsc == 1 {
        // the tile's columns contiguous (`vsc` is 0: this kernel has no `lanes`): vector
        // loads and stores of C, two zmm per column
        let beta = _mm512_set1_ps(t.beta);
        for (j, acc) in acc.iter().enumerate() {
            // SAFETY: column j's 32 rows are inside the tile (the caller's contract).
            let cj = unsafe { t.c.offset(j as isize * t.csc) };
            for (v, &x) in acc.iter().enumerate() {
                // SAFETY: rows 16·v .. 16·v + 16 of column j, inside the tile.
                unsafe {
                    let p = cj.add(16 * v);
                    let x = _mm512_mul_ps(x, alpha);
                    let r = if t.beta == 0.0 {
                        x
                    } else if t.beta == 1.0 {
                        _mm512_add_ps(_mm512_loadu_ps(p), x)
                    } else {
                        _mm512_fmadd_ps(_mm512_loadu_ps(p), beta, x)
                    };
                    _mm512_storeu_ps(p, r);
                }
            }
        }
        return;
    }
    let mut out = [[0f32; 16]; 2];
    for (j, acc) in acc.iter().enumerate() {
        for (v, o) in out.iter_mut().enumerate() {
            // SAFETY: `o` is 16 f32.
            unsafe { _mm512_storeu_ps(o.as_mut_ptr(), _mm512_mul_ps(acc[v], alpha)) };
        }
        for r in 0..MR {
            let x = out[r / 16][r % 16];
            // SAFETY: (r, j) is inside the tile (r < MR, j < NR): the caller's contract.
            unsafe {
                let q = t.c.offset(r as isize * t.rsc + j as isize * t.csc);
                *q = if t.beta == 0.0 { x } else { x + t.beta * *q };
            }
        }
    }
}

/// One row of A times a bf16 B pre-packed in k pairs (`PackedB`, 32-column panels of `kcw`
/// pairs per block, each pair one 32-bit word): `c ← α·a·B + β·c` (β = 0: c not read), the
/// panels streamed once with `vdpbf16ps` (the decode shape, m = 1).
///
/// `a` is A's row (element q at `origin + q·cs`), `c` C's row (element j at `origin + j·cs`),
/// both checked by the front; `words` holds `⌈n/32⌉·32·⌈k/2⌉`-pair blocks as `PackedB` stores
/// them.
pub(crate) fn gemv_pairs(
    alpha: f32,
    (a, sa): (&[half::bf16], super::check::Strided),
    (words, kcw, k, n): (&[f32], usize, usize, usize),
    beta: f32,
    (c, sc): (&mut [f32], super::check::Strided),
) {
    let kw = k.div_ceil(2);
    let at = |q: usize| a[(sa.origin + q as isize * sa.cs) as usize].to_bits();
    // A's k pairs as the words `vdpbf16ps` broadcasts (an odd last k value beside a zero)
    let x: Vec<u32> = (0..kw)
        .map(|q| {
            let hi = if 2 * q + 1 < k { at(2 * q + 1) } else { 0 };
            u32::from(at(2 * q)) | u32::from(hi) << 16
        })
        .collect();
    let panels = n.div_ceil(MR);
    let kcw = kcw.max(1);
    let block = panels * MR * kcw;
    for t in 0..panels {
        let mut sums = [0f32; MR];
        for (bi, q0) in (0..kw).step_by(kcw).enumerate() {
            let kwb = kcw.min(kw - q0);
            let at = bi * block + t * MR * kcw;
            let panel = &words[at..at + kwb * MR];
            // SAFETY: the caller runs this only where AVX-512 BF16 was detected (`PackedB`
            // packs pairs only there); `panel` holds `kwb` steps of 32 words, `x` `kwb` words.
            unsafe { dot_panel(&x[q0..q0 + kwb], panel, &mut sums) };
        }
        for (j, &s) in sums.iter().enumerate().take(n - t * MR) {
            let y = alpha * s;
            let o = &mut c[(sc.origin + (t * MR + j) as isize * sc.cs) as usize];
            *o = if beta == 0.0 { y } else { y + beta * *o };
        }
    }
}

/// `sums[j] += Σ_q x[q]·panel[q][j]` over bf16 pairs (`x.len()` steps of 32 words each).
///
/// # Safety
/// AVX-512 BF16 is available; `panel.len() ≥ 32·x.len()`.
#[target_feature(enable = "avx512bf16,avx512f")]
unsafe fn dot_panel(x: &[u32], panel: &[f32], sums: &mut [f32; MR]) {
    debug_assert!(panel.len() >= MR * x.len());
    let bh = |v: __m512i| -> __m512bh {
        // SAFETY: a bit-for-bit reinterpretation of 512 bits.
        unsafe { core::mem::transmute::<__m512i, __m512bh>(v) }
    };
    let p = panel.as_ptr().cast::<i32>();
    // four independent chains per half (the latency of `vdpbf16ps`)
    let mut acc = [[_mm512_setzero_ps(); 2]; 4];
    let steps = x.len();
    // SAFETY: (whole body) every step q < steps reads words 32·q .. 32·q + 32 of the panel.
    unsafe {
        for q4 in 0..steps / 4 {
            for (u, acc) in acc.iter_mut().enumerate() {
                let q = 4 * q4 + u;
                let w = bh(_mm512_set1_epi32(*x.get_unchecked(q) as i32));
                let (b0, b1) = (
                    _mm512_loadu_si512(p.add(MR * q).cast()),
                    _mm512_loadu_si512(p.add(MR * q + 16).cast()),
                );
                acc[0] = _mm512_dpbf16_ps(acc[0], bh(b0), w);
                acc[1] = _mm512_dpbf16_ps(acc[1], bh(b1), w);
            }
        }
        for q in steps / 4 * 4..steps {
            let w = bh(_mm512_set1_epi32(*x.get_unchecked(q) as i32));
            let (b0, b1) = (
                _mm512_loadu_si512(p.add(MR * q).cast()),
                _mm512_loadu_si512(p.add(MR * q + 16).cast()),
            );
            acc[0][0] = _mm512_dpbf16_ps(acc[0][0], bh(b0), w);
            acc[0][1] = _mm512_dpbf16_ps(acc[0][1], bh(b1), w);
        }
        for (h, [a0, a1, a2, a3]) in [0, 1].map(|h| acc.map(|a| a[h])).into_iter().enumerate() {
            let s = _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3));
            let old = _mm512_loadu_ps(sums.as_ptr().add(16 * h));
            _mm512_storeu_ps(sums.as_mut_ptr().add(16 * h), _mm512_add_ps(old, s));
        }
    }
}

/// The most rows of A that [`small_m_pairs`] takes (B pre-packed, one thread).
pub(crate) const SMALL_M: usize = 48;

/// A few rows of A (m ≤ [`SMALL_M`]) times a bf16 B pre-packed in k pairs (as
/// [`gemv_pairs`]): `C ← α·A·B + β·C` (β = 0: C not read). The rows run in groups of equal
/// height (at most 12: m = 16 is two groups of 8, where the engine's 32 × 12 tiles would run a
/// second tile of 12 for 4 rows), each group a tile of that exact height over every k block of
/// one 32-column panel, A's k pairs read as words from a copy of A's rows.
///
/// `a` is A (element (i, q) at `origin + i·rs + q·cs`), `c` C (element (i, j) at
/// `origin + i·rs + j·cs`), both checked by the front; 0 < m ≤ [`SMALL_M`].
#[allow(clippy::too_many_arguments)]
pub(crate) fn small_m_pairs(
    alpha: f32,
    (a, sa): (&[half::bf16], super::check::Strided),
    m: usize,
    (words, kcw, k, n): (&[f32], usize, usize, usize),
    beta: f32,
    (c, sc): (&mut [f32], super::check::Strided),
) {
    let kw = k.div_ceil(2);
    let at = |i: usize, q: usize| {
        a[(sa.origin + i as isize * sa.rs + q as isize * sa.cs) as usize].to_bits()
    };
    // A's rows as k-pair words (an odd last k value beside a zero), row i at `i·kw`
    let mut x = Vec::with_capacity(m * kw);
    for i in 0..m {
        x.extend((0..kw).map(|q| {
            let hi = if 2 * q + 1 < k { at(i, 2 * q + 1) } else { 0 };
            u32::from(at(i, 2 * q)) | u32::from(hi) << 16
        }));
    }
    let groups = m.div_ceil(NR);
    let h = m.div_ceil(groups);
    let panels = n.div_ceil(MR);
    let kcw = kcw.max(1);
    let block = panels * MR * kcw;
    let mut out = [[0f32; MR]; NR];
    for t in 0..panels {
        for i0 in (0..m).step_by(h) {
            let rows = h.min(m - i0);
            out[..rows].iter_mut().for_each(|r| *r = [0.0; MR]);
            for (bi, q0) in (0..kw).step_by(kcw).enumerate() {
                let kwb = kcw.min(kw - q0);
                let at = bi * block + t * MR * kcw;
                let panel = &words[at..at + kwb * MR];
                let xs = &x[i0 * kw + q0..];
                // SAFETY: the caller runs this only where AVX-512 BF16 was detected (pairs are
                // packed only there); `panel` holds `kwb` steps of 32 words; row r < rows of
                // the group reads `xs[r·kw + q]`, q < kwb, inside `x` (i0 + r < m).
                unsafe { rows_tile(rows, xs, kw, panel, kwb, &mut out) };
            }
            for (r, sums) in out[..rows].iter().enumerate() {
                let row = sc.origin + (i0 + r) as isize * sc.rs;
                for (j, &s) in sums.iter().enumerate().take(n - t * MR) {
                    let y = alpha * s;
                    let o = &mut c[(row + (t * MR + j) as isize * sc.cs) as usize];
                    *o = if beta == 0.0 { y } else { y + beta * *o };
                }
            }
        }
    }
}

/// `out[r][j] += Σ_q xs[r·kw + q]·panel[q][j]` for `rows ≤ NR` rows over `steps` k pairs: the
/// tile of exactly `rows` rows.
///
/// # Safety
/// AVX-512 BF16 is available; `panel.len() ≥ 32·steps`; `xs[r·kw + q]` exists for
/// `r < rows`, `q < steps`.
#[target_feature(enable = "avx512bf16,avx512f")]
unsafe fn rows_tile(
    rows: usize,
    xs: &[u32],
    kw: usize,
    panel: &[f32],
    steps: usize,
    out: &mut [[f32; MR]; NR],
) {
    debug_assert!(panel.len() >= MR * steps && (rows == 0 || xs.len() >= (rows - 1) * kw + steps));
    macro_rules! arms {
        ($($n:literal)*) => {
            match rows {
                // SAFETY: (each arm) forwarded contract with N = rows.
                $($n => unsafe { rows_body::<$n>(xs.as_ptr(), kw, panel.as_ptr(), steps, out) },)*
                _ => {}
            }
        };
    }
    arms!(1 2 3 4 5 6 7 8 9 10 11 12);
}

/// [`rows_tile`] for `N` rows: 2·N accumulators, per k pair two vector loads of the panel and
/// N broadcast words of A.
///
/// # Safety
/// As [`rows_tile`] with `rows == N ≤ NR`, `xs` and `panel` the slices' starts.
#[inline(always)]
unsafe fn rows_body<const N: usize>(
    xs: *const u32,
    kw: usize,
    panel: *const f32,
    steps: usize,
    out: &mut [[f32; MR]; NR],
) {
    let bh = |v: __m512i| -> __m512bh {
        // SAFETY: a bit-for-bit reinterpretation of 512 bits.
        unsafe { core::mem::transmute::<__m512i, __m512bh>(v) }
    };
    // SAFETY: (whole body) the caller's contract: AVX-512 BF16; step q < steps of the panel
    // and word q of each of the N rows are readable; `out` holds NR ≥ N rows.
    unsafe {
        let mut acc = [[_mm512_setzero_ps(); 2]; N];
        let p = panel.cast::<i32>();
        for q in 0..steps {
            let b0 = bh(_mm512_loadu_si512(p.add(MR * q).cast()));
            let b1 = bh(_mm512_loadu_si512(p.add(MR * q + 16).cast()));
            for (r, acc) in acc.iter_mut().enumerate() {
                let w = bh(_mm512_set1_epi32(*xs.add(r * kw + q) as i32));
                acc[0] = _mm512_dpbf16_ps(acc[0], b0, w);
                acc[1] = _mm512_dpbf16_ps(acc[1], b1, w);
            }
        }
        for (r, acc) in acc.iter().enumerate() {
            for (h, &v) in acc.iter().enumerate() {
                let o = out[r].as_mut_ptr().add(16 * h);
                _mm512_storeu_ps(o, _mm512_add_ps(_mm512_loadu_ps(o), v));
            }
        }
    }
}
