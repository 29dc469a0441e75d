//! bf16 × bf16 → f32 batch-reduce tile on AVX-512 BF16 (`vdpbf16ps`): `C ← α·Σᵢ Aᵢ·Bᵢ + β·C`
//! with the reduction dimension k taken in pairs, the C tile (32 × 12 f32 at most: 24 zmm
//! accumulators) held in registers across the whole batch, as the f32 tiles of `batch.rs`.
//!
//! Operands, per item ([`PairItem`]):
//!
//! - A (m × k, the vectorised side: a convolution's output channels) packed in k pairs, the
//!   layout of `bf16.rs`'s panels: pair `p` of row `i` is one 32-bit word at
//!   `a + p·lda + i`, its low half the bf16 of k = 2p, its high half k = 2p + 1;
//! - B (k × n, broadcast: a convolution's input pixels) read where it is: element (k, j) at
//!   `b + j·csb + k`, so that a k pair is two consecutive bf16 (one 32-bit broadcast: NHWC,
//!   channel-contiguous input). An odd k is the caller's to pad (a zero in A and a readable
//!   value in B; the convolution pads both, `conv/taps_bf16.rs`).
//!
//! `vdpbf16ps` adds both products of a pair into an f32 lane, rounding to nearest even, and
//! treats denormal inputs and outputs as zero (as `bf16.rs`; `reference/gemm.md` §7): on
//! integer data small enough for bf16 the results are exact.

#![allow(clippy::needless_range_loop)] // register tiles read best as indexed loops

use core::arch::x86_64::*;

/// Rows of one vector (16 f32 lanes).
const LANES: usize = 16;
/// The widest tile (columns of C).
pub(crate) const NR: usize = 12;

/// One item of a pair batch: `k2` pairs of k; A's pair `p`, row `i` the word at
/// `a + p·lda + i`; B's pair `p`, column `j` the two bf16 at `b + j·csb + 2p` (bits), read for
/// the columns `lo ≤ j < hi` only (outside them the addresses need not exist: a convolution's
/// tap that reads the padding for some pixels).
#[derive(Clone, Copy, Debug)]
pub(crate) struct PairItem {
    pub a: *const u32,
    pub lda: isize,
    pub b: *const u16,
    pub csb: isize,
    pub k2: usize,
    pub lo: usize,
    pub hi: usize,
}

// SAFETY: an item is addresses and strides; it is read through only under the tile's contract
// (every address it reaches an element of a live allocation), whichever thread holds it.
unsafe impl Send for PairItem {}

/// A pair batch over C (m × n f32, `C(i, j) = c + i·crs + j·ldc`): the columns in tiles of
/// `nt ≤ NR` (a caller that knows its width spreads it over tiles of even widths), an item's
/// `lo .. hi` counted from column 0 of C.
pub(crate) struct PairShape<'s> {
    pub m: usize,
    pub n: usize,
    pub nt: usize,
    pub alpha: f32,
    pub beta: f32,
    pub items: &'s [PairItem],
    pub c: *mut f32,
    pub ldc: isize,
    pub crs: isize,
}

/// Whether the tile may run: the CPU has AVX-512 BF16 and `isa` is AVX-512.
pub(crate) fn available(isa: crate::isa::Isa) -> bool {
    crate::isa::has_avx512_bf16(isa)
}

/// Runs the pair batch `s` over all of C on the calling thread.
///
/// # Safety
/// AVX-512 BF16 is available ([`available`]); for every item, every A word `(p, i)` with
/// `p < k2`, `i < m` and every B pair `(p, j)` with `p < k2` and `j` inside the item's
/// columns (and `j < n`) are readable elements of live allocations; every `C(i, j)` is an
/// element of a live allocation, no two at one location, and nothing else accesses them during
/// the call.
pub(crate) unsafe fn tiles_bf16(s: &PairShape<'_>) {
    // SAFETY: the caller's contract.
    unsafe { entry(s) }
}

/// [`tiles_bf16`] with the instruction set enabled.
///
/// # Safety
/// As [`tiles_bf16`].
#[target_feature(enable = "avx512bf16,avx512f")]
unsafe fn entry(s: &PairShape<'_>) {
    let mr = 2 * LANES;
    let nt = s.nt.clamp(1, NR);
    let mut j = 0;
    while j < s.n {
        let nr = (s.n - j).min(nt);
        let mut i = 0;
        while i < s.m {
            let rows = (s.m - i).min(mr);
            // SAFETY: the tile (rows ≤ 32, nr ≤ NR) lies inside C; the caller's contract.
            unsafe { by_shape(s, i, j, rows, nr) };
            i += mr;
        }
        j += nt;
    }
}

/// The tile of `rows` (≤ 32) × `nr` (≤ [`NR`]) at (i, j): one instantiation per width.
///
/// # Safety
/// As [`tile`].
#[target_feature(enable = "avx512bf16,avx512f")]
#[inline]
unsafe fn by_shape(s: &PairShape<'_>, i: usize, j: usize, rows: usize, nr: usize) {
    macro_rules! widths {
        ($mv:literal, $full:literal; $($nr:literal)*) => {
            match nr {
                // SAFETY: (each arm) forwarded contract, NR = nr.
                $($nr => unsafe { tile::<$mv, $nr, $full>(s, i, j, rows) },)*
                _ => unreachable!("a tile of {nr} columns"),
            }
        };
    }
    match (rows.div_ceil(LANES), rows.is_multiple_of(LANES)) {
        (2, true) => widths!(2, true; 1 2 3 4 5 6 7 8 9 10 11 12),
        (2, false) => widths!(2, false; 1 2 3 4 5 6 7 8 9 10 11 12),
        (_, true) => widths!(1, true; 1 2 3 4 5 6 7 8 9 10 11 12),
        (_, false) => widths!(1, false; 1 2 3 4 5 6 7 8 9 10 11 12),
    }
}

/// One tile: rows `i .. i + rows` (`rows ≤ MV·16`, the last vector masked unless `FULL`) ×
/// columns `j .. j + NR`, accumulated over every item and k pair, then `α·acc + β·C` written
/// (β = 0: C not read).
///
/// # Safety
/// Every A word, B pair and C element of the tile of every item is an
/// element of its operand (the contract of [`tiles_bf16`]).
#[target_feature(enable = "avx512bf16,avx512f")]
#[inline]
unsafe fn tile<const MV: usize, const NR: usize, const FULL: bool>(
    s: &PairShape<'_>,
    i: usize,
    j: usize,
    rows: usize,
) {
    let last = rows - (MV - 1) * LANES;
    let mask: __mmask16 = if last >= LANES {
        0xffff
    } else {
        ((1u32 << last) - 1) as u16
    };
    let whole = |v: usize| FULL || v + 1 < MV;
    let mut acc = [[_mm512_setzero_ps(); MV]; NR];
    if MV == 2 && FULL {
        // 32 whole rows: the hand-scheduled loops (`batch_bf16_asm.rs`)
        // SAFETY: the caller's contract (rows i .. i + 32 of A, the tile's columns of C).
        unsafe { tile_asm::<MV, NR>(s, i, j, &mut acc) };
        // SAFETY: (the stores) every C element of the tile is the caller's.
        unsafe { write::<MV, NR, FULL>(s, &acc, i, j, rows, mask) };
        return;
    }
    for it in s.items {
        // the item's columns inside this tile, from its first
        let (lo, hi) = (
            it.lo.saturating_sub(j).min(NR),
            it.hi.saturating_sub(j).min(NR),
        );
        if lo >= hi {
            continue;
        }
        // (outside the item's columns B's addresses need not exist: wrapping arithmetic,
        // read only inside them)
        let b = it.b.wrapping_offset(j as isize * it.csb);
        let cols: [*const u16; NR] =
            core::array::from_fn(|jj| b.wrapping_offset(jj as isize * it.csb));
        // SAFETY: row i of A is inside it (the caller's contract: i < m).
        let mut a = unsafe { it.a.add(i) };
        let lda = it.lda;
        // the accumulators in locals for the loop (registers: every index a constant)
        let mut r = acc;
        let mut off = 0usize;
        for _ in 0..it.k2 {
            let mut av = [_mm512_setzero_ps(); MV];
            for v in 0..MV {
                // SAFETY: the words of rows i + 16v .. of this pair are in A (the mask covers
                // the m edge; masked-off lanes are not accessed).
                let x = unsafe {
                    if whole(v) {
                        _mm512_loadu_si512(a.add(v * LANES).cast())
                    } else {
                        _mm512_maskz_loadu_epi32(mask, a.add(v * LANES).cast())
                    }
                };
                av[v] = _mm512_castsi512_ps(x);
            }
            for jj in 0..NR {
                if inside(lo, hi, jj) {
                    // SAFETY: column jj is inside the item's columns: its pair at `off` is two
                    // bf16 of B (an unaligned 32-bit read).
                    let w = unsafe { cols[jj].add(off).cast::<i32>().read_unaligned() };
                    let bj = bh(_mm512_set1_epi32(w));
                    for v in 0..MV {
                        r[jj][v] = _mm512_dpbf16_ps(r[jj][v], bh(_mm512_castps_si512(av[v])), bj);
                    }
                }
            }
            // SAFETY: the next pair's row (or one past the last pair: not read).
            a = a.wrapping_offset(lda);
            off += 2;
        }
        acc = r;
    }
    // SAFETY: (the stores) every C element of the tile is the caller's.
    unsafe { write::<MV, NR, FULL>(s, &acc, i, j, rows, mask) };
}

/// The accumulation of [`tile`] for 32 whole rows (`MV = 2`) on the hand-scheduled loops of
/// `batch_bf16_asm.rs`: an item over all the tile's columns is the loop of `NR` columns, an
/// item cut to columns `lo .. hi` the loop of `hi − lo` columns on those accumulators (in
/// place: a copy of the twelve columns to the loop's first and back was a `memmove` call
/// each way, 9 % of the first layer's time).
///
/// # Safety
/// AVX-512 BF16 is available; `MV = 2`; rows `i .. i + 32` are inside A's rows; every A word
/// and B pair of the tile's columns of every item are elements of their operands (the
/// contract of [`tiles_bf16`]).
#[target_feature(enable = "avx512bf16,avx512f")]
#[inline]
unsafe fn tile_asm<const MV: usize, const NR: usize>(
    s: &PairShape<'_>,
    i: usize,
    j: usize,
    acc: &mut [[__m512; MV]; NR],
) {
    use super::batch_bf16_asm::cols;
    let mut r = [[_mm512_setzero_ps(); 2]; 12];
    for it in s.items {
        // the item's columns inside this tile, from its first
        let (lo, hi) = (
            it.lo.saturating_sub(j).min(NR),
            it.hi.saturating_sub(j).min(NR),
        );
        if lo >= hi {
            continue;
        }
        // (column lo's B: inside the item's columns, an element of B)
        let b = it.b.wrapping_offset((j + lo) as isize * it.csb);
        // SAFETY: row i of A is inside it (the caller's contract: i < m).
        let a = unsafe { it.a.add(i) };
        if lo == 0 && hi == NR {
            // SAFETY: every pair p < k2 of rows i .. i + 32 and of the columns j .. j + NR is
            // the caller's (the item covers the whole tile).
            unsafe { cols(NR, &mut r[..NR], a, it.lda, b, it.csb, it.k2) };
        } else {
            // SAFETY: as above for the item's columns j + lo .. j + hi, whose first is `b`
            // (their accumulators from `r[lo]`).
            unsafe { cols(hi - lo, &mut r[lo..hi], a, it.lda, b, it.csb, it.k2) };
        }
    }
    for jj in 0..NR {
        for v in 0..MV.min(2) {
            acc[jj][v] = r[jj][v];
        }
    }
}

/// Whether column `jj` of a tile is inside an item's columns `lo .. hi`.
#[inline(always)]
fn inside(lo: usize, hi: usize, jj: usize) -> bool {
    lo <= jj && jj < hi
}

/// 512 bits seen as 32 bf16.
#[inline(always)]
fn bh(x: __m512i) -> __m512bh {
    // SAFETY: a bit-for-bit reinterpretation of 512 bits.
    unsafe { core::mem::transmute::<__m512i, __m512bh>(x) }
}

/// `C ← α·acc + β·C` on the tile (β = 0: C not read): vector stores where C's rows are unit
/// stride, else lane by lane through a stack vector.
///
/// # Safety
/// Every C element of the tile is the caller's.
#[target_feature(enable = "avx512bf16,avx512f")]
#[inline]
unsafe fn write<const MV: usize, const NR: usize, const FULL: bool>(
    s: &PairShape<'_>,
    acc: &[[__m512; MV]; NR],
    i: usize,
    j: usize,
    rows: usize,
    mask: __mmask16,
) {
    let whole = |v: usize| FULL || v + 1 < MV;
    let alpha = _mm512_set1_ps(s.alpha);
    let beta = _mm512_set1_ps(s.beta);
    let read_c = s.beta != 0.0;
    for jj in 0..NR {
        let col = s.c.wrapping_offset((j + jj) as isize * s.ldc);
        for v in 0..MV {
            let mut x = _mm512_mul_ps(alpha, acc[jj][v]);
            let r0 = i + v * LANES;
            if s.crs == 1 {
                let p = col.wrapping_add(r0);
                // SAFETY: rows r0 .. of column j + jj are C's (masked at the m edge).
                unsafe {
                    if read_c {
                        let old = if whole(v) {
                            _mm512_loadu_ps(p)
                        } else {
                            _mm512_maskz_loadu_ps(mask, p)
                        };
                        x = _mm512_fmadd_ps(beta, old, x);
                    }
                    if whole(v) {
                        _mm512_storeu_ps(p, x)
                    } else {
                        _mm512_mask_storeu_ps(p, mask, x)
                    }
                }
            } else {
                let n = (rows - v * LANES).min(LANES);
                let mut lanes = [0f32; LANES];
                let at = |l: usize| col.wrapping_offset((r0 + l) as isize * s.crs);
                // SAFETY: `lanes` is 16 f32; rows r0 .. r0 + n of column j + jj are C's.
                unsafe {
                    _mm512_storeu_ps(lanes.as_mut_ptr(), x);
                    for l in 0..n {
                        let q = at(l);
                        *q = if read_c {
                            lanes[l] + s.beta * *q
                        } else {
                            lanes[l]
                        };
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use half::bf16;
    use proptest::prelude::*;
    use std::vec::Vec;

    /// Runs a random batch against the naive sum of the bf16 values in f64 (exact: small
    /// integers), C strided inside a larger buffer whose other elements must keep their values.
    #[allow(clippy::too_many_arguments)]
    fn check(
        m: usize,
        n: usize,
        nt: usize,
        k2s: &[usize],
        cut: &[(usize, usize)],
        crs1: bool,
        beta: f32,
        seed: u64,
    ) {
        if !available(crate::isa::Isa::Avx512) {
            return;
        }
        let mut state = seed | 1;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % 9) as f32 - 4.0
        };
        // per item: A words (k2 × lda, lda = m + 3), B (n columns of csb = 2·k2 + 1 bf16)
        let mut a_store: Vec<Vec<u32>> = Vec::new();
        let mut b_store: Vec<Vec<u16>> = Vec::new();
        for &k2 in k2s {
            let lda = m + 3;
            a_store.push(
                (0..k2 * lda)
                    .map(|_| {
                        let (lo, hi) = (bf16::from_f32(next()), bf16::from_f32(next()));
                        lo.to_bits() as u32 | (hi.to_bits() as u32) << 16
                    })
                    .collect(),
            );
            let csb = 2 * k2 + 1;
            b_store.push(
                (0..n * csb + 1)
                    .map(|_| bf16::from_f32(next()).to_bits())
                    .collect(),
            );
        }
        let items: Vec<PairItem> = k2s
            .iter()
            .enumerate()
            .map(|(t, &k2)| PairItem {
                a: a_store[t].as_ptr(),
                lda: (m + 3) as isize,
                b: b_store[t].as_ptr(),
                csb: (2 * k2 + 1) as isize,
                k2,
                lo: cut[t].0,
                hi: cut[t].1,
            })
            .collect();
        // C: m × n, column-major with ld m + 2 (crs 1), or row-major with ld n + 1
        let (crs, ldc, len) = if crs1 {
            (1isize, (m + 2) as isize, (m + 2) * n + 5)
        } else {
            ((n + 1) as isize, 1isize, (n + 1) * m + 5)
        };
        let c0: Vec<f32> = (0..len).map(|_| next()).collect();
        let mut c = c0.clone();
        let at = |i: usize, jj: usize| 2 + i as isize * crs + jj as isize * ldc;
        let mut want = c0.clone();
        for i in 0..m {
            for jj in 0..n {
                let mut sum = 0f64;
                for (t, &k2) in k2s.iter().enumerate() {
                    if jj < cut[t].0 || jj >= cut[t].1 {
                        continue;
                    }
                    for p in 0..k2 {
                        let w = a_store[t][p * (m + 3) + i];
                        let csb = 2 * k2 + 1;
                        for h in 0..2 {
                            let av = bf16::from_bits((w >> (16 * h)) as u16).to_f32() as f64;
                            let bv =
                                bf16::from_bits(b_store[t][jj * csb + 2 * p + h]).to_f32() as f64;
                            sum += av * bv;
                        }
                    }
                }
                let q = at(i, jj) as usize;
                want[q] = (2.0 * sum + beta as f64 * c0[q] as f64) as f32;
            }
        }
        let shape = PairShape {
            m,
            n,
            nt,
            alpha: 2.0,
            beta,
            items: &items,
            // SAFETY: C's element (0, 0), 2 elements into `c`
            c: unsafe { c.as_mut_ptr().add(2) },
            ldc,
            crs,
        };
        // SAFETY: AVX-512 BF16 checked; every A word and B pair of every item's columns is
        // inside its store (k2 pairs of m rows; n columns of 2·k2 + 1), C inside `c`.
        unsafe { tiles_bf16(&shape) };
        assert_eq!(
            c, want,
            "m {m} n {n} nt {nt} k2s {k2s:?} cut {cut:?} crs1 {crs1} beta {beta}"
        );
    }

    #[test]
    fn every_tile_shape_against_a_naive_sum() {
        for m in [1, 5, 16, 17, 31, 32, 33, 47, 64, 70] {
            for n in [1, 3, 11, 12, 13, 25] {
                for nt in [1, 4, 5, 12] {
                    for (crs1, beta) in [(true, 0.0), (false, 0.0), (true, 0.5), (false, -1.0)] {
                        let k2s = [3, 1, 7];
                        let cut = [(0, usize::MAX), (n / 2, n), (1, usize::MAX)];
                        check(
                            m,
                            n,
                            nt,
                            &k2s,
                            &cut,
                            crs1,
                            beta,
                            (m * 131 + n * 7 + nt) as u64,
                        );
                    }
                }
            }
        }
    }

    /// The hand-scheduled loops (32 whole rows, `batch_bf16_asm.rs`): every tile width 1 to
    /// 12, every remainder of the four-pair unrolling (0 to 9 pairs), whole items and items
    /// cut to every column range of the tile, one or two 32-row blocks, C both ways.
    #[test]
    fn every_asm_width_k_remainder_and_cut() {
        for nt in 1..=NR {
            for m in [32, 64] {
                for k2 in 0..10 {
                    // a whole item, then one cut to each (lo, hi) of the tile, after a
                    // whole item (the cut accumulates onto it)
                    check(m, nt, nt, &[k2], &[(0, usize::MAX)], true, 0.0, k2 as u64);
                    for lo in 0..nt {
                        for hi in lo + 1..=nt {
                            check(
                                m,
                                nt,
                                nt,
                                &[k2 + 1, k2],
                                &[(0, usize::MAX), (lo, hi)],
                                hi % 2 == 0,
                                if lo % 2 == 0 { 0.0 } else { 1.0 },
                                (nt * 1000 + lo * 20 + hi) as u64,
                            );
                        }
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn random_batches(
            m in 1usize..80,
            n in 1usize..30,
            nt in 1usize..13,
            items in proptest::collection::vec((0usize..20, 0usize..30, 0usize..31), 0..5),
            crs1 in any::<bool>(),
            beta in prop_oneof![Just(0.0f32), Just(1.0), Just(-0.5)],
            seed in any::<u64>(),
        ) {
            let k2s: Vec<usize> = items.iter().map(|t| t.0).collect();
            let cut: Vec<(usize, usize)> = items.iter().map(|t| (t.1.min(t.2), t.1.max(t.2))).collect();
            check(m, n, nt, &k2s, &cut, crs1, beta, seed);
        }
    }
}
