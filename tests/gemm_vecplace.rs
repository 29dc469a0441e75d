//! The blocked engine reading both operands in place (`KernelInfo::in_place_a`): a named A
//! (interleaved `RowMajorInterleaved<4>`, blocked `RowMajorBlockLinear<8,8>`) read through its
//! axis maps as the broadcast operand, and a row-major B of any leading dimension read where it
//! is as the vectorised one (`Cᵀ = Bᵀ·Aᵀ` under a row-major C): whole row tiles of B's columns
//! in place, k steps `ldb` apart, the partial tile packed. f32 and f64 through
//! `gemm_tensors_with` on every instruction set, one and two threads, `Packing::Auto` and
//! `Always`, against a naive product (integer values: exact in any order), over whole small
//! domains with n below, at and past the 32-row tiles (1, odd, edges), k past one k block, C
//! of a padded leading dimension whose other elements must stay untouched, β = 0 never reading
//! C.

mod support;

use layout::AnyLayout;
use layout::DynLayout;
use layout::gemm::{self, Isa, Options, Packing};
use layout::named::blocked::{row_major_block_linear, row_major_interleaved};
use layout::tensor::{Tensor, TensorIndex};
use proptest::prelude::*;
use support::Seeded;

fn span<L: AnyLayout>(l: &L) -> usize {
    let (_, hi) = l.offset_bounds().unwrap();
    hi as usize + 1
}

/// Row-major `r × c` with leading dimension `ld`.
fn padded(r: i64, c: i64, ld: i64) -> DynLayout {
    format!("({r},{c}):({ld},1)").parse().unwrap()
}

macro_rules! checker {
    ($name:ident, $t:ty) => {
        /// `gemm_tensors_with` on every route against the naive product (see the file's doc).
        fn $name<LA>(rng: &mut Seeded, la: LA, (k, n, ldb, ldc): (i64, i64, i64, i64), ab: ($t, $t))
        where
            LA: AnyLayout,
            [i64; 2]: TensorIndex<LA> + TensorIndex<DynLayout>,
        {
            let (alpha, beta) = ab;
            let m = la.domain().mode(0).unwrap().size().unwrap();
            let (lb, lc) = (padded(k, n, ldb), padded(m, n, ldc));
            let m = m as usize;
            let (k, n) = (k as usize, n as usize);
            let buf = |rng: &mut Seeded, len: usize| -> Vec<$t> {
                (0..len).map(|_| rng.range(-4, 5) as $t).collect()
            };
            let (a, b, c) = (
                buf(rng, span(&la)),
                buf(rng, span(&lb)),
                buf(rng, span(&lc)),
            );
            let ta = Tensor::new(&a[..], la).unwrap();
            let tb = Tensor::new(&b[..], lb).unwrap();
            let c0 = Tensor::new(&c[..], lc).unwrap();
            let want: Vec<$t> = (0..m * n)
                .map(|x| {
                    let (i, j) = (x % m, x / m);
                    let s: $t = (0..k)
                        .map(|p| ta[[i as i64, p as i64]] * tb[[p as i64, j as i64]])
                        .sum();
                    let c = c0[[i as i64, j as i64]];
                    if beta == 0.0 {
                        alpha * s
                    } else {
                        alpha * s + beta * c
                    }
                })
                .collect();
            let mut inside = vec![false; c.len()];
            for x in 0..m * n {
                inside[lc.offset(x as i64) as usize] = true;
            }
            for isa in Isa::available() {
                for packing in [Packing::Auto, Packing::Always] {
                    for threads in [1, 2] {
                        let mut c2 = c.clone();
                        if beta == 0.0 {
                            for x in 0..m * n {
                                c2[lc.offset(x as i64) as usize] = <$t>::NAN;
                            }
                        }
                        let mut tc = Tensor::new(&mut c2[..], lc).unwrap();
                        let opts = Options {
                            isa,
                            threads,
                            packing,
                        };
                        gemm::gemm_tensors_with(opts, alpha, &ta, &tb, beta, &mut tc).unwrap();
                        for x in 0..m * n {
                            let (i, j) = (x % m, x / m);
                            assert_eq!(
                                tc[[i as i64, j as i64]],
                                want[x],
                                "{} × {lb} → {lc}, α={alpha} β={beta} ({isa:?}, {packing:?}, \
                                 {threads} threads) at ({i},{j})",
                                ta.layout()
                            );
                        }
                        for (x, (&got, &was)) in c2.iter().zip(&c).enumerate() {
                            if !inside[x] {
                                assert_eq!(
                                    got.to_bits(),
                                    was.to_bits(),
                                    "{lc}: offset {x} written"
                                );
                            }
                        }
                    }
                }
            }
        }
    };
}
checker!(check32, f32);
checker!(check64, f64);

const SCALARS: [(i8, i8); 3] = [(1, 0), (-1, 1), (2, -3)];

/// An interleaved A (m a multiple of 4) and a blocked one (m, k multiples of 8) by a row-major
/// B of leading dimension `n + pad_b` into a C of `n + pad_c`, f32 and f64.
fn both_families(
    rng: &mut Seeded,
    (m, k, n): (i64, i64, i64),
    (pad_b, pad_c): (i64, i64),
    case: usize,
) {
    let (a, b) = SCALARS[case % SCALARS.len()];
    let shape = (k, n, n + pad_b, n + pad_c);
    if m % 4 == 0 {
        let la = row_major_interleaved(4, m, k, 4 * k).unwrap();
        check32(rng, la, shape, (a as f32, b as f32));
        check64(rng, la, shape, (a as f64, b as f64));
    }
    if m % 8 == 0 && k % 8 == 0 {
        let la = row_major_block_linear(8, 8, m, k, 8 * k).unwrap();
        check32(rng, la, shape, (a as f32, b as f32));
        check64(rng, la, shape, (a as f64, b as f64));
    }
}

/// n at 1, odd, a whole 32-row tile, one past it, several tiles and an edge; k of 1, odd and
/// past one k block (256); B's leading dimension n or padded.
#[test]
fn both_operands_in_place_on_every_isa_and_route() {
    let mut rng = Seeded(1328);
    let shapes = [
        (8i64, 8i64, 1i64),
        (4, 1, 33),
        (12, 3, 31),
        (8, 8, 32),
        (16, 24, 65),
        (24, 40, 96),
        (40, 9, 100),
        (64, 264, 70),
        (72, 16, 200),
        (16, 520, 41),
    ];
    for (case, s) in shapes.into_iter().enumerate() {
        for pads in [(0, 0), (3, 5)] {
            both_families(&mut rng, s, pads, case);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// Random extents (m a multiple of 4 or 8), padding and scalars.
    #[test]
    fn both_operands_in_place_random(
        seed in any::<u64>(), m4 in 1i64..20, k in 1i64..300, n in 1i64..160, pad in 0i64..9
    ) {
        let mut rng = Seeded(seed);
        let case = rng.below(3) as usize;
        both_families(&mut rng, (4 * m4, k, n), (pad, 8 - pad), case);
    }
}
