//! bf16 × bf16 → f32 on aarch64 with `FEAT_BF16`: `bfmmla` multiplies a 2 × 4 matrix of bf16
//! (two rows' four k values, one 16-byte vector) by a 4 × 2 one (two columns' four k values)
//! and adds the 2 × 2 products into `f32`: 16 multiply-adds per instruction, four times an f32
//! `fmla`'s.
//!
//! Both operands pack as bf16 bits in quads of k — the panel layout
//! `(r, (4, ⌈k/4⌉)) : (4, (1, 4r))` over k padded to a multiple of four with zeros (zeros add
//! nothing) — by the 8-bit kernels' group packer, and the k loop is theirs too
//! ([`super::neon_int8`]'s `mmla_loop`, 24 `bfmmla` per step on an 8 × 12 tile of 2 × 2
//! blocks). The loops, blocking, threads, edge tiles and C of any layout are the engine's
//! ([`super::block::run_panels`]). Like `vdpbf16ps`, `bfmmla` (without `FEAT_EBF16`) flushes
//! denormals and rounds its sums its own way (see `reference/gemm.md` §7): on integer data
//! small enough for bf16 the results are exact.

use core::arch::asm;
use std::cell::RefCell;
use std::vec::Vec;

use super::block::run_panels;
use super::kernel::{Kern, KernelInfo, Tile};
use super::neon_int8::{TILE, mmla_loop, pack_groups, write_c};
use super::pack::{Panels, Rows};
use super::view::{Product, View};

/// The bf16 kernels: C, α, β in `f32`, panels of bf16 bits in quads of k.
pub(crate) struct Bf16Quads;

impl Kern for Bf16Quads {
    type C = f32;
    type P = i16;
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const KSTEP: usize = 4;
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

/// A bf16 operand packed in quads of k, as bits.
struct Quads<'a>(Rows<'a, half::bf16>);

impl Panels<i16> for Quads<'_> {
    fn pack(&self, dst: &mut [i16], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        let bits = |x: half::bf16| x.to_bits() as i16;
        pack_groups(&self.0, 4, bits, dst, v0, p0, len, kc, r);
    }
}

/// One 8 × 12 tile: 24 `bfmmla` per k quad, then `C ← α·acc + β·C` (β = 0: C is not read).
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = 8, NR = 12, `KSTEP = 4`; NEON and bf16 available.
#[target_feature(enable = "neon,bf16")]
pub(crate) unsafe fn bfmmla(t: &Tile<f32, i16>) {
    let (mr, nr) = TILE;
    // block (row pair, column pair) at [4·column pair + row pair], row-major 2 × 2
    let mut acc = [[0f32; 4]; 24];
    let (a, b, k, out) = (t.a, t.b, t.k, acc.as_mut_ptr().cast::<f32>());
    // SAFETY: the caller guarantees the features, 32·k readable halves at `a` (64·k bytes) and
    // 48·k at `b` (96·k bytes); `acc` holds the 96 words stored; the registers written are
    // declared.
    unsafe { mmla_loop!("bfmmla", ".8h", false, a, b, k, out) };
    let x = |i: usize, j: usize| t.alpha * acc[4 * (j / 2) + i / 2][2 * (i % 2) + j % 2];
    // SAFETY: the caller guarantees every C element of the tile.
    unsafe { write_c::<Bf16Quads>(t, (mr, nr), x) };
}

/// The bf16 engine on a checked product of bf16 operands (`H` is bf16) whose instruction set
/// has `bf16` usable.
pub(crate) fn run<H: 'static>(p: Product<'_, H, H, f32>) {
    let (Some(a), Some(b)) = (as_bf16(p.a), as_bf16(p.b)) else {
        unreachable!("the bf16 kernel runs only bf16 operands (`half_inputs::kstep`)")
    };
    const KC: usize = 512;
    let (mr, nr) = TILE;
    // the A block MC·KC·2 bytes at most 384 KiB in L2; a B micro-panel NR·KC·2 = 12 KiB in L1
    let ki = KernelInfo::sized(mr, nr, KC, 384 << 10, bfmmla);
    let (asrc, bsrc) = (Quads(a.rows()), Quads(b.transposed().rows()));
    run_panels::<Bf16Quads>(&ki, p.mkn, p.alpha, &asrc, &bsrc, p.beta, p.c, p.threads);
}

/// A view of `H` seen as bf16, when `H` is bf16.
fn as_bf16<H: 'static>(v: View<'_, H>) -> Option<View<'_, half::bf16>> {
    if core::any::TypeId::of::<H>() != core::any::TypeId::of::<half::bf16>() {
        return None;
    }
    Some(View {
        // SAFETY: H is bf16 (checked just above): the same slice, its own type.
        data: unsafe {
            core::slice::from_raw_parts(v.data.as_ptr().cast::<half::bf16>(), v.data.len())
        },
        at: v.at,
        map: v.map,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::{MatMut, MatRef, Options, Packing};
    use crate::isa::{Ext, Isa};
    use half::bf16;
    use std::vec;

    /// Small whole numbers (exact in bf16 and in every sum below 2²⁴).
    fn small(seed: &mut u32) -> f32 {
        *seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        ((*seed >> 8) % 17) as f32 - 8.0
    }

    /// The kernel called directly on packed quads against the definition: β = 0 (C filled
    /// with NaN, never read), β = 1, another β; C column- and row-major; k = 0, one quad, and
    /// past one loop.
    #[test]
    fn bfmmla_matches_the_definition() {
        if !Ext::Bf16.detected() {
            return;
        }
        let (mr, nr) = TILE;
        let mut seed = 3u32;
        for quads in [0usize, 1, 3, 70] {
            let k = 4 * quads;
            let ra: Vec<f32> = (0..mr * k).map(|_| small(&mut seed)).collect();
            let rb: Vec<f32> = (0..nr * k).map(|_| small(&mut seed)).collect();
            let bits = |v: &[f32]| -> Vec<i16> {
                v.iter()
                    .map(|&x| bf16::from_f32(x).to_bits() as i16)
                    .collect()
            };
            let (pa, pb) = (bits(&ra), bits(&rb));
            for (alpha, beta) in [(1.0f32, 0.0f32), (3.0, 1.0), (-2.0, 5.0)] {
                for col_major in [true, false] {
                    let (rsc, csc) = if col_major { (1, mr) } else { (nr, 1) };
                    let c0: Vec<f32> = (0..mr * nr).map(|x| x as f32 - 40.0).collect();
                    let mut c = if beta == 0.0 {
                        vec![f32::NAN; mr * nr]
                    } else {
                        c0.clone()
                    };
                    let t = Tile {
                        k: quads,
                        alpha,
                        beta,
                        a: pa.as_ptr(),
                        b: pb.as_ptr(),
                        c: c.as_mut_ptr(),
                        rsc: rsc as isize,
                        csc: csc as isize,
                        vsc: 0,
                    };
                    // SAFETY: bf16 was detected; `pa` holds 32·quads halves, `pb` 48·quads,
                    // `c` the whole tile at these strides.
                    unsafe { bfmmla(&t) };
                    for i in 0..mr {
                        for j in 0..nr {
                            // quad q of row i at q·4·R + 4·i + p % 4
                            let at = |r: usize, p: usize| (p / 4) * 4 * r + (p % 4);
                            let s: f64 = (0..k)
                                .map(|p| {
                                    f64::from(ra[at(mr, p) + 4 * i])
                                        * f64::from(rb[at(nr, p) + 4 * j])
                                })
                                .sum();
                            let at = i * rsc + j * csc;
                            let b0 = if beta == 0.0 { 0.0 } else { f64::from(c0[at]) };
                            let want = f64::from(alpha) * s + f64::from(beta) * b0;
                            assert_eq!(f64::from(c[at]), want, "k {k} ({i},{j}) col {col_major}");
                        }
                    }
                }
            }
        }
    }

    /// Through the engine on NEON (`bfmmla` where bf16 is usable, the widened f32 kernel
    /// otherwise): A row- and column-major, C row- and column-major (the engine swaps the
    /// operands for the first), k not a multiple of four, against the definition.
    #[test]
    fn bf16_through_the_engine() {
        let mut seed = 9u32;
        for (m, k, n) in [(1, 1, 1), (9, 7, 13), (17, 530, 5), (24, 33, 25)] {
            let a: Vec<f32> = (0..m * k).map(|_| small(&mut seed)).collect();
            let b: Vec<f32> = (0..k * n).map(|_| small(&mut seed)).collect();
            let a16: Vec<bf16> = a.iter().map(|&x| bf16::from_f32(x)).collect();
            let acm: Vec<bf16> = (0..m * k).map(|t| a16[(t % m) * k + t / m]).collect();
            let b16: Vec<bf16> = b.iter().map(|&x| bf16::from_f32(x)).collect();
            for (row_major_c, row_major_a) in [(true, true), (false, true), (true, false)] {
                let (rs, cs) = if row_major_c { (n, 1) } else { (1, m) };
                let (adata, ars, acs) = if row_major_a {
                    (&a16, k as isize, 1)
                } else {
                    (&acm, 1, m as isize)
                };
                let c0: Vec<f32> = (0..m * n).map(|x| (x % 97) as f32 - 48.0).collect();
                let mut c = c0.clone();
                crate::gemm::gemm_with(
                    Options {
                        isa: Isa::Neon,
                        threads: 1,
                        packing: Packing::Always,
                    },
                    -3.0,
                    MatRef {
                        data: adata,
                        rows: m,
                        cols: k,
                        row_stride: ars,
                        col_stride: acs,
                    },
                    MatRef {
                        data: &b16,
                        rows: k,
                        cols: n,
                        row_stride: 1,
                        col_stride: k as isize,
                    },
                    2.0,
                    MatMut {
                        data: &mut c,
                        rows: m,
                        cols: n,
                        row_stride: rs as isize,
                        col_stride: cs as isize,
                    },
                )
                .unwrap();
                for i in 0..m {
                    for j in 0..n {
                        let s: f64 = (0..k)
                            .map(|p| f64::from(a[i * k + p]) * f64::from(b[j * k + p]))
                            .sum();
                        let at = i * rs + j * cs;
                        let want = -3.0 * s + 2.0 * f64::from(c0[at]);
                        assert_eq!(
                            f64::from(c[at]),
                            want,
                            "{m}x{k}x{n} row-major C {row_major_c} A {row_major_a} ({i},{j})"
                        );
                    }
                }
            }
        }
    }
}
