//! bf16 × bf16 → f32 on every instruction set of this CPU (AVX-512 with BF16: the `vdpbf16ps`
//! kernel, its pair packers and the pair `PackedB` with its matrix × vector decode; AVX2 and
//! portable: widened to the f32 kernels), against the definition summed exactly in i64. The
//! data are small integers, so every path is exact.
//!
//! Covered: strided operands in the layouts the pair packers take whole words or vectors of
//! (row-major A, B and C: B's rows zipped, A's k pairs copied as words) and the others
//! (column-major, gaps between rows); extents crossing the 32 × 12 tile and KC (512), k odd;
//! every α/β kind (β = 0 with NaN in C: never read); one and two threads; the bytes around C
//! untouched. `PackedB` for the decode (m = 1) and prefill shapes likewise.

#[path = "support/mod.rs"]
mod support;

use half::bf16;
use layout::gemm::{self, Isa, MatMut, MatRef, Options, Packing};
use proptest::prelude::*;
use support::Seeded;

/// Guard elements on each side of C.
const GUARD: usize = 19;

/// A strided matrix in a buffer: row-major (`rm`) or column-major, `gap` unused elements
/// after each row (column).
#[derive(Clone, Copy, Debug)]
struct Geo {
    rows: usize,
    cols: usize,
    rm: bool,
    gap: usize,
}

impl Geo {
    fn strides(self) -> (usize, usize) {
        if self.rm {
            (self.cols + self.gap, 1)
        } else {
            (1, self.rows + self.gap)
        }
    }
    fn len(self) -> usize {
        let (rs, cs) = self.strides();
        if self.rows == 0 || self.cols == 0 {
            0
        } else {
            (self.rows - 1) * rs + (self.cols - 1) * cs + 1
        }
    }
    fn at(self, i: usize, j: usize) -> usize {
        let (rs, cs) = self.strides();
        i * rs + j * cs
    }
}

fn values(rng: &mut Seeded, len: usize) -> Vec<bf16> {
    (0..len)
        .map(|_| bf16::from_f32(rng.range(-8, 8) as f32))
        .collect()
}

/// One product through `gemm_with` (or, with `packed`, `PackedB` + `gemm_packed`), checked
/// element by element, the guards and C's gaps untouched.
#[allow(clippy::too_many_arguments)]
fn one(
    rng: &mut Seeded,
    isa: Isa,
    threads: usize,
    packed: bool,
    (ga, gb, gc): (Geo, Geo, Geo),
    alpha: f32,
    beta: f32,
) {
    let (m, k, n) = (ga.rows, ga.cols, gb.cols);
    let a = values(rng, ga.len());
    let b = values(rng, gb.len());
    // C: integers, or NaN where β = 0 (never read); the gaps and guards a sentinel
    let sentinel = -7777.0f32;
    let mut buf = vec![sentinel; gc.len() + 2 * GUARD];
    for i in 0..m {
        for j in 0..n {
            buf[GUARD + gc.at(i, j)] = if beta == 0.0 {
                f32::NAN
            } else {
                rng.range(-50, 50) as f32
            };
        }
    }
    let c0 = buf.clone();
    let (ars, acs) = ga.strides();
    let (brs, bcs) = gb.strides();
    let (crs, ccs) = gc.strides();
    let opts = Options {
        isa,
        threads,
        packing: Packing::Auto,
    };
    let am = MatRef {
        data: &a,
        rows: m,
        cols: k,
        row_stride: ars as isize,
        col_stride: acs as isize,
    };
    let bm = MatRef {
        data: &b,
        rows: k,
        cols: n,
        row_stride: brs as isize,
        col_stride: bcs as isize,
    };
    let len = gc.len();
    let cm = MatMut {
        data: &mut buf[GUARD..GUARD + len],
        rows: m,
        cols: n,
        row_stride: crs as isize,
        col_stride: ccs as isize,
    };
    if packed {
        let pb = gemm::PackedB::new(isa, bm).unwrap();
        gemm::gemm_packed(opts, alpha, am, &pb, beta, cm).unwrap();
    } else {
        gemm::gemm_with(opts, alpha, am, bm, beta, cm).unwrap();
    }
    let what =
        format!("{isa:?} t{threads} packed {packed} {ga:?} {gb:?} {gc:?} α {alpha} β {beta}");
    let mut inside = vec![false; buf.len()];
    for i in 0..m {
        for j in 0..n {
            let s: i64 = (0..k)
                .map(|p| a[ga.at(i, p)].to_f32() as i64 * b[gb.at(p, j)].to_f32() as i64)
                .sum();
            let at = GUARD + gc.at(i, j);
            inside[at] = true;
            let want = alpha as f64 * s as f64
                + if beta == 0.0 {
                    0.0
                } else {
                    beta as f64 * c0[at] as f64
                };
            assert_eq!(buf[at] as f64, want, "({i},{j}) {what}");
        }
    }
    for (x, (&got, &was)) in buf.iter().zip(&c0).enumerate() {
        if !inside[x] {
            assert_eq!(
                got.to_bits(),
                was.to_bits(),
                "element {x} outside C written: {what}"
            );
        }
    }
}

/// Every level this CPU has (AVX-512 runs the `vdpbf16ps` kernel where it has BF16).
fn isas() -> Vec<Isa> {
    Isa::available().collect()
}

/// Extents crossing the 32 × 12 tile (and the 16 × 6 / 4 × 4 of the other levels) and KC.
#[test]
fn bf16_pairs_on_every_isa_edges_and_blocks() {
    let mut rng = Seeded(0xbf16);
    for isa in isas() {
        for &(m, k, n) in &[
            (1usize, 1usize, 1usize),
            (12, 2, 32),
            (13, 3, 33),
            (31, 17, 11),
            (33, 512, 12),
            (24, 513, 64),
            (40, 1025, 45),
            (64, 64, 97),
            (7, 1, 70),
        ] {
            for (rm, gap) in [(true, 0), (false, 0), (true, 3)] {
                let ga = Geo {
                    rows: m,
                    cols: k,
                    rm,
                    gap,
                };
                let gb = Geo {
                    rows: k,
                    cols: n,
                    rm,
                    gap,
                };
                for (crm, cgap) in [(true, 0), (false, 2)] {
                    let gc = Geo {
                        rows: m,
                        cols: n,
                        rm: crm,
                        gap: cgap,
                    };
                    for (threads, alpha, beta) in [(1, 1.0, 0.0), (2, 2.0, 1.0), (1, -1.0, 3.0)] {
                        one(&mut rng, isa, threads, false, (ga, gb, gc), alpha, beta);
                    }
                }
            }
        }
    }
}

/// `PackedB<bf16>`: the decode shape (m = 1, the pair panels streamed by the matrix × vector
/// kernel on AVX-512 BF16) and prefill shapes on the engine, k across KC and odd.
#[test]
fn bf16_packed_b_decode_and_prefill_on_every_isa() {
    let mut rng = Seeded(0x9acb);
    for isa in isas() {
        for &m in &[1usize, 2, 12, 13, 16, 24, 25, 33, 48] {
            for &(k, n) in &[(1usize, 5usize), (3, 32), (511, 33), (512, 64), (1029, 40)] {
                for (rm, gap) in [(true, 0), (false, 1)] {
                    let ga = Geo {
                        rows: m,
                        cols: k,
                        rm: true,
                        gap: 0,
                    };
                    let gb = Geo {
                        rows: k,
                        cols: n,
                        rm,
                        gap,
                    };
                    let gc = Geo {
                        rows: m,
                        cols: n,
                        rm: true,
                        gap,
                    };
                    for (threads, alpha, beta) in [(1, 1.0, 0.0), (2, -2.0, 1.0), (1, 0.5, -1.0)] {
                        one(&mut rng, isa, threads, true, (ga, gb, gc), alpha, beta);
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random shapes, orientations, gaps, α/β and threads on every level, through `gemm_with`
    /// and through `PackedB`.
    #[test]
    fn bf16_random_products(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let (m, k, n) = (
            rng.range(1, 70) as usize,
            rng.range(1, 600) as usize,
            rng.range(1, 70) as usize,
        );
        let geo = |rng: &mut Seeded, rows, cols| Geo {
            rows,
            cols,
            rm: rng.coin(),
            gap: rng.range(0, 2) as usize,
        };
        let (ga, gb, gc) = (geo(&mut rng, m, k), geo(&mut rng, k, n), geo(&mut rng, m, n));
        let alpha = [1.0f32, -1.0, 2.0][rng.range(0, 2) as usize];
        let beta = [0.0f32, 1.0, -2.0][rng.range(0, 2) as usize];
        let threads = rng.range(1, 2) as usize;
        let packed = rng.coin();
        for isa in isas() {
            one(&mut rng, isa, threads, packed, (ga, gb, gc), alpha, beta);
        }
    }
}
