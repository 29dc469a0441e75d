//! 4-bit prefill on 8-bit activations: `C ← α·A·B + β·C` with B in GGUF `Q4_0` and A
//! quantized per row and 32-block to 8 bits as llama.cpp's `Q8_0` activations.
//!
//! Each row of A is cut into the weights' 32-blocks; each block gets `d_a = max|a| / 127` and
//! codes `q_a = round(a / d_a)` in [−127, 127]. A block of B holds codes `q_b` in [0, 15]
//! with the value `(q_b − 8)·d_b`. So
//!
//! `C[i][j] = Σ_blocks d_a·d_b · (Σ₃₂ q_b·q_a − 8·Σ₃₂ q_a)`
//!
//! and the inner sum is an exact integer: `vpmaddubsw` takes `q_b` as the unsigned operand
//! (a pair sum is at most 2·15·127 = 3810, so the eight quads of a block add in `i16` without
//! leaving it: 30480), then one `vpmaddwd` by ones per block adds the pairs into `i32`. The block's integer, less `8·Σ q_a` (kept per row and block), converts
//! to `f32` exactly and is scaled once per block. AVX2 tiles of 6 rows × 8 columns; plain
//! Rust below AVX2. Threads split the columns.
//!
//! The only approximation is A's quantization (relative error about `1/254` per block and
//! element); on integer-valued A whose blocks each reach ±127 (so `d_a = 1`) and B whose
//! scales are exact, the result is exact.

use std::vec::Vec;

use super::check::Strided;
use super::view::View;
use crate::isa::Isa;
use crate::packed::{BlockQ4_0, GgufMatrix, QK};

/// Columns per panel (one ymm of `f32`).
const NB: usize = 8;
/// Rows per tile.
const MB: usize = 6;

/// A quantized per row and block: codes (row-major, `m × k` padded with zero rows to a
/// multiple of the tile's rows), scales and `8·Σ q_a` per (row, block).
struct Acts {
    q: Vec<i8>,
    d: Vec<f32>,
    s8: Vec<i32>,
    kb: usize,
}

fn quantize_a(a: &View<'_, f32>, m: usize, k: usize) -> Acts {
    let kb = k / QK;
    // rows padded with zeros to a multiple of the tile, so every tile is a full one
    let mp = m.next_multiple_of(MB);
    let mut q = std::vec![0i8; mp * k];
    let mut d = std::vec![0f32; mp * kb];
    let mut s8 = std::vec![0i32; mp * kb];
    let at = |i: usize, p: usize| {
        a.data[(a.at.origin + i as isize * a.at.rs + p as isize * a.at.cs) as usize]
    };
    for i in 0..m {
        for b in 0..kb {
            let amax = (0..QK).fold(0f32, |x, e| x.max(at(i, b * QK + e).abs()));
            let scale = amax / 127.0;
            let inv = if scale > 0.0 { 1.0 / scale } else { 0.0 };
            let mut sum = 0i32;
            for e in 0..QK {
                let v = (at(i, b * QK + e) * inv).round().clamp(-127.0, 127.0) as i8;
                q[i * k + b * QK + e] = v;
                sum += i32::from(v);
            }
            d[i * kb + b] = scale;
            s8[i * kb + b] = 8 * sum;
        }
    }
    Acts { q, d, s8, kb }
}

/// B's codes in panels of 8 columns: per (panel, block) 8 k quads × 8 columns × 4 bytes, and
/// the 8 scales as `f32` (columns past n: code 0, scale 0).
struct Codes {
    codes: Vec<u8>,
    d: Vec<f32>,
    kb: usize,
}

fn unpack_b(b: &GgufMatrix<BlockQ4_0>) -> Codes {
    let (k, n) = (b.k(), b.n());
    let kb = k / QK;
    let panels = n.div_ceil(NB);
    let mut codes = std::vec![0u8; panels * kb * QK * NB];
    let mut d = std::vec![0f32; panels * kb * NB];
    for j in 0..n {
        let Some(col) = b.column(j) else { continue };
        let (jp, c) = (j / NB, j % NB);
        for (bi, blk) in col.iter().enumerate() {
            let base = (jp * kb + bi) * QK * NB;
            // codes 0..16 in the low nibbles, 16..32 in the high ones: quad e/4, column c,
            // byte e%4
            for (h, &x) in blk.qs.iter().enumerate() {
                let (lo, hi) = (h, h + QK / 2);
                codes[base + (lo / 4) * 4 * NB + c * 4 + lo % 4] = x & 0x0F;
                codes[base + (hi / 4) * 4 * NB + c * 4 + hi % 4] = x >> 4;
            }
            d[(jp * kb + bi) * NB + c] = blk.d.to_f32();
        }
    }
    Codes { codes, d, kb }
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

/// Runs the product (A `m × k` strided `f32`, B `Q4_0` `k × n`, C strided; checked by the
/// front, the rule applied).
#[allow(clippy::too_many_arguments)]
pub(crate) fn run(
    isa: Isa,
    threads: usize,
    [m, k, n]: [usize; 3],
    alpha: f32,
    a: View<'_, f32>,
    b: &GgufMatrix<BlockQ4_0>,
    beta: f32,
    (c, sc): (&mut [f32], Strided),
) {
    let acts = quantize_a(&a, m, k);
    let codes = unpack_b(b);
    let out = COut {
        c: c.as_mut_ptr(),
        sc,
        alpha,
        beta,
    };
    let panels = n.div_ceil(NB);
    let parts = threads.clamp(1, panels);
    // blocks of A's codes that stay in L2 (about 256 KiB) while the panels of B stream
    let mc = (256 * 1024 / k.max(1) / MB).max(1) * MB;
    super::threads::split(parts, &|t| {
        let (lo, hi) = (panels * t / parts, panels * (t + 1) / parts);
        for ic in (0..m).step_by(mc) {
            for jp in lo..hi {
                let cols = NB.min(n - jp * NB);
                for i0 in (ic..m.min(ic + mc)).step_by(MB) {
                    let rows = MB.min(m - i0);
                    let mut acc = [[0f32; NB]; MB];
                    tile(isa, &acts, &codes, k, i0, rows, jp, &mut acc);
                    for (r, accr) in acc.iter().enumerate().take(rows) {
                        for (cj, &x) in accr.iter().enumerate().take(cols) {
                            // SAFETY: (i0 + r, jp·8 + cj) is an element of C (r < rows ≤ m − i0,
                            // cj < cols ≤ n − 8·jp) in this thread's panels.
                            unsafe { out.put(i0 + r, jp * NB + cj, x) };
                        }
                    }
                }
            }
        }
    });
}

/// One tile: rows `i0 .. i0 + rows` × panel `jp`, into `acc`.
#[allow(clippy::too_many_arguments)]
fn tile(
    isa: Isa,
    acts: &Acts,
    codes: &Codes,
    k: usize,
    i0: usize,
    rows: usize,
    jp: usize,
    acc: &mut [[f32; NB]; MB],
) {
    let kb = acts.kb;
    debug_assert_eq!(kb, codes.kb);
    let pc = &codes.codes[jp * kb * QK * NB..(jp + 1) * kb * QK * NB];
    let pd = &codes.d[jp * kb * NB..(jp + 1) * kb * NB];
    let qa = &acts.q[i0 * k..(i0 + rows) * k];
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 {
        // (A's rows are padded to a multiple of MB: the tile reads zeros past m)
        let qa = &acts.q[i0 * k..(i0 + MB) * k];
        // SAFETY: AVX2 available (the front checked `isa`); the slices hold the panel's
        // `kb` blocks of 256 code bytes and 8 scales, and `MB` rows of `k` codes.
        unsafe {
            x86::tile6(
                pc,
                pd,
                qa,
                &acts.d[i0 * kb..],
                &acts.s8[i0 * kb..],
                k,
                kb,
                acc,
            )
        };
        return;
    }
    let _ = isa;
    for r in 0..rows {
        for bi in 0..kb {
            let (da, s8) = (acts.d[(i0 + r) * kb + bi], acts.s8[(i0 + r) * kb + bi]);
            for c in 0..NB {
                let mut s = 0i32;
                for e in 0..QK {
                    let code = pc[bi * QK * NB + (e / 4) * 4 * NB + c * 4 + e % 4];
                    s += i32::from(code) * i32::from(qa[r * k + bi * QK + e]);
                }
                acc[r][c] += (s - s8) as f32 * (pd[bi * NB + c] * da);
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use super::{MB, NB, QK};

    /// Six rows × eight columns over every block: per block eight k quads of
    /// `vpmaddubsw`(codes, broadcast activations) + `vpmaddwd`(ones), then the block's integer
    /// less `8·Σ q_a`, converted and scaled by `d_b·d_a` into the `f32` accumulators.
    ///
    /// # Safety
    /// AVX2 available; `pc` holds `kb·256` bytes, `pd` `kb·8` scales, `qa` six rows of `k`
    /// codes, `da` and `s8` six rows of `kb` (row stride `kb`).
    #[target_feature(enable = "avx2,fma")]
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn tile6(
        pc: &[u8],
        pd: &[f32],
        qa: &[i8],
        da: &[f32],
        s8: &[i32],
        k: usize,
        kb: usize,
        acc: &mut [[f32; NB]; MB],
    ) {
        assert!(pc.len() >= kb * QK * NB && pd.len() >= kb * NB && qa.len() >= MB * k);
        assert!(da.len() >= (MB - 1) * kb + kb && s8.len() >= (MB - 1) * kb + kb);
        // SAFETY: AVX2 and FMA (the caller's contract); every read is inside the slices
        // (asserted above: block `bi < kb` reads `pc[bi·256 .. +256]`, `pd[bi·8 .. +8]`, row
        // r's codes `qa[r·k + bi·32 .. +32]`).
        unsafe {
            let ones = _mm256_set1_epi16(1);
            let mut f = [_mm256_setzero_ps(); MB];
            for bi in 0..kb {
                // the eight quads' pair sums added in i16 (each |pair sum| ≤ 2·15·127 = 3810, so
                // eight of them stay within 30480 < 2¹⁵), then one `vpmaddwd` by ones per row
                let mut s = [_mm256_setzero_si256(); MB];
                let cb = pc.as_ptr().add(bi * QK * NB);
                for q in 0..QK / 4 {
                    let bv = _mm256_loadu_si256(cb.add(q * 4 * NB).cast());
                    for (r, sr) in s.iter_mut().enumerate() {
                        let a4 = qa
                            .as_ptr()
                            .add(r * k + bi * QK + 4 * q)
                            .cast::<i32>()
                            .read_unaligned();
                        let t = _mm256_maddubs_epi16(bv, _mm256_set1_epi32(a4));
                        *sr = _mm256_add_epi16(*sr, t);
                    }
                }
                for sr in s.iter_mut() {
                    *sr = _mm256_madd_epi16(*sr, ones);
                }
                let db = _mm256_loadu_ps(pd.as_ptr().add(bi * NB));
                for (r, (fr, sr)) in f.iter_mut().zip(&s).enumerate() {
                    let x = _mm256_sub_epi32(*sr, _mm256_set1_epi32(s8[r * kb + bi]));
                    let scale = _mm256_mul_ps(db, _mm256_set1_ps(da[r * kb + bi]));
                    *fr = _mm256_fmadd_ps(_mm256_cvtepi32_ps(x), scale, *fr);
                }
            }
            for (o, v) in acc.iter_mut().zip(&f) {
                _mm256_storeu_ps(o.as_mut_ptr(), *v);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::gemm::{MatMut, MatRef, Options, Packing, QuantB, gemm_quant};
    use crate::isa::Isa;
    use crate::packed::{QuantizedB, quantize_q4_0};
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

    /// `gemm_quant` with 8-bit activations on A (row-major, or column-major when `a_cm`) and
    /// C (row- or column-major).
    #[allow(clippy::too_many_arguments)]
    fn run(
        isa: Isa,
        threads: usize,
        (m, k, n): (usize, usize, usize),
        a: &[f32],
        a_cm: bool,
        q: &crate::packed::Q4_0Matrix,
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
            QuantB::int8_activations(q),
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

    /// Integer-valued A whose every 32-block reaches ±127 (so `d_a = 1`) and `Q4_0` weights
    /// that store integers exactly (each block reaching −8: `d_b = 1`): the result is the
    /// exact product, on every instruction set, one and two threads, A and C both ways,
    /// shapes off the 6 × 8 tile.
    #[test]
    fn exact_on_integer_valued_data() {
        let mut g = Lcg(17);
        for isa in Isa::available() {
            for &(m, k, n) in &[
                (9usize, 32usize, 8usize),
                (13, 96, 21),
                (6, 64, 8),
                (31, 160, 3),
            ] {
                let w: Vec<f32> = (0..k * n)
                    .map(|t| {
                        if (t / n) % 32 == 5 {
                            -8.0
                        } else {
                            g.int(-8, 7) as f32
                        }
                    })
                    .collect();
                let q = quantize_q4_0(k, n, &w).unwrap();
                assert_eq!(q.dequantize().unwrap(), w, "the weights are stored exactly");
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
                    let c = run(isa, threads, (m, k, n), &a, a_cm, &q, &c0, c_cm, ab);
                    for i in 0..m {
                        for j in 0..n {
                            let s: i64 = (0..k)
                                .map(|p| av[i * k + p] as i64 * w[p * n + j] as i64)
                                .sum();
                            let at = if c_cm { i + j * m } else { i * n + j };
                            let want =
                                f64::from(ab.0) * s as f64 + f64::from(ab.1) * f64::from(c0[at]);
                            assert_eq!(
                                f64::from(c[at]),
                                want,
                                "{isa:?} {m}x{k}x{n} t{threads} ({i},{j})"
                            );
                        }
                    }
                }
            }
        }
    }

    /// Random data: the 8-bit route stays within 1 % (relative Frobenius error) of the `f32`
    /// route on the same `Q4_0` weights, on every instruction set.
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
        let q = quantize_q4_0(k, n, &w).unwrap();
        let c0 = std::vec![0f32; m * n];
        let mut f32route = c0.clone();
        gemm_quant(
            Options::default(),
            1.0,
            MatRef {
                data: &a,
                rows: m,
                cols: k,
                row_stride: k as isize,
                col_stride: 1,
            },
            &q,
            0.0,
            MatMut {
                data: &mut f32route,
                rows: m,
                cols: n,
                row_stride: n as isize,
                col_stride: 1,
            },
        )
        .unwrap();
        for isa in Isa::available() {
            let c = run(isa, 2, (m, k, n), &a, false, &q, &c0, false, (1.0, 0.0));
            let num: f64 = c
                .iter()
                .zip(&f32route)
                .map(|(x, y)| f64::from(x - y).powi(2))
                .sum();
            let den: f64 = f32route.iter().map(|y| f64::from(*y).powi(2)).sum();
            let rel = (num / den).sqrt();
            std::eprintln!("{isa:?}: 8-bit activations vs the f32 route: relative error {rel:.2e}");
            assert!(rel > 0.0 && rel < 1e-2, "{isa:?}: relative error {rel}");
        }
    }

    /// The extreme block: codes 15 (value 7) against activations of ±127 everywhere, so every
    /// pair sum is ±3810 and a block's eight quads sum to ±30480 in `i16`: still exact.
    #[test]
    fn the_i16_block_sums_hold_at_the_extremes() {
        let (m, k, n) = (12usize, 64usize, 9usize);
        // column j: 7 everywhere but one −8 per block (so d_b = 1, code 0 there)
        let w: Vec<f32> = (0..k * n)
            .map(|t| if (t / n) % 32 == 31 { -8.0 } else { 7.0 })
            .collect();
        let q = quantize_q4_0(k, n, &w).unwrap();
        for sign in [1.0f32, -1.0] {
            let a = std::vec![127.0 * sign; m * k];
            let c0 = std::vec![0f32; m * n];
            for isa in Isa::available() {
                let c = run(isa, 1, (m, k, n), &a, false, &q, &c0, false, (1.0, 0.0));
                let want = 127.0 * sign * (7.0 * 62.0 - 8.0 * 2.0);
                assert!(
                    c.iter().all(|&x| x == want),
                    "{isa:?} {sign}: {:?} != {want}",
                    &c[..3]
                );
            }
        }
    }
}
