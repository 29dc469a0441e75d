//! The named operand families of issue 28 (interleaved `RowMajorInterleaved<4>` A, blocked
//! `RowMajorBlockLinear<8,8>` A and B, `Sw<3,3,3>` on A or on C, A padded to `ld = k + 16`),
//! f32 and f64, through `gemm_tensors_with` on every instruction set, packing rule and one or
//! two threads, against a naive product read through `t[[i, j]]` (integer values: exact in any
//! order), with every element of C's buffer outside its layout untouched and β = 0 never
//! reading C. The sizes reach the paths of session 12: whole 32-row panels of a row-major or
//! blocked vectorised operand (`pack::runs_zmm`, `pack::grouped`, the rectangles), swizzled cells of 6–11
//! columns past a whole number of 12-column tiles (the AVX-512 f32 in-place kernel's edge tiles
//! run at their own width, `KernelInfo::in_place_edge`), and a swizzled C of one class merged
//! run by run (`block::merge_mapped`), with k past one k block.

mod support;

use layout::gemm::{self, Isa, Options, Packing};
use layout::named::blocked::{row_major_block_linear, row_major_interleaved};
use layout::tensor::{Tensor, TensorIndex};
use layout::{AnyLayout, DynLayout, Swizzle, SwizzledLayout};
use proptest::prelude::*;
use support::Seeded;

fn span<L: AnyLayout>(l: &L) -> usize {
    let (_, hi) = l.offset_bounds().unwrap();
    hi as usize + 1
}

fn rm(r: i64, c: i64) -> DynLayout {
    format!("({r},{c}):({c},1)").parse().unwrap()
}

fn padded(r: i64, c: i64, ld: i64) -> DynLayout {
    format!("({r},{c}):({ld},1)").parse().unwrap()
}

/// `Sw<3,3,3>` on a row-major `r × c` operand of leading dimension `ld`.
fn sw(r: i64, c: i64, ld: i64) -> SwizzledLayout<DynLayout> {
    SwizzledLayout::new(Swizzle::new(3, 3, 3).unwrap(), 0i64, padded(r, c, ld))
}

/// The smallest leading dimension at least `inner` that is ≡ `class` modulo 512 (`Sw<3,3,3>`'s
/// period): 0 gives one class of rows, 256 two.
fn ld_of(inner: i64, class: i64) -> i64 {
    (class..).step_by(512).find(|&l| l >= inner).unwrap()
}

macro_rules! checker {
    ($name:ident, $t:ty) => {
        /// `gemm_tensors_with` on every route against the naive product (see the file's doc).
        fn $name<LA, LB, LC>(rng: &mut Seeded, la: LA, lb: LB, lc: LC, alpha: $t, beta: $t)
        where
            LA: AnyLayout,
            LB: AnyLayout,
            LC: AnyLayout,
            [i64; 2]: TensorIndex<LA> + TensorIndex<LB> + TensorIndex<LC>,
        {
            let buf = |rng: &mut Seeded, len: usize| -> Vec<$t> {
                (0..len).map(|_| rng.range(-4, 5) as $t).collect()
            };
            let size = |d: layout::DynTuple, x: usize| d.mode(x).unwrap().size().unwrap();
            let (m, k, n) = (
                size(la.domain(), 0),
                size(la.domain(), 1),
                size(lb.domain(), 1),
            );
            let (a, b) = (buf(rng, span(&la)), buf(rng, span(&lb)));
            let c = buf(rng, span(&lc));
            let ta = Tensor::new(&a[..], la).unwrap();
            let tb = Tensor::new(&b[..], lb).unwrap();
            let c0 = Tensor::new(&c[..], lc).unwrap();
            let want: Vec<$t> = (0..m * n)
                .map(|x| {
                    let (i, j) = (x % m, x / m);
                    let s: $t = (0..k).map(|p| ta[[i, p]] * tb[[p, j]]).sum();
                    if beta == 0.0 {
                        alpha * s
                    } else {
                        alpha * s + beta * c0[[i, j]]
                    }
                })
                .collect();
            let mut inside = vec![false; c.len()];
            for x in 0..m * n {
                inside[lc.offset(x) as usize] = true;
            }
            for isa in Isa::available() {
                for packing in [Packing::Auto, Packing::Always] {
                    for threads in [1, 2] {
                        let mut c2 = c.clone();
                        if beta == 0.0 {
                            for x in 0..m * n {
                                c2[lc.offset(x) as usize] = <$t>::NAN;
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
                                tc[[i, j]],
                                want[x as usize],
                                "{la} × {lb} → {lc}, α={alpha} β={beta} ({isa:?}, {packing:?}, \
                                 {threads} threads) at ({i},{j})"
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

const SCALARS: [(i8, i8); 3] = [(1, 0), (-1, 1), (2, -1)];

/// Every family at one `(m, k, n)` (the interleaved one where m is a multiple of 4, the blocked
/// one where all three are multiples of 8),
/// f32 and f64.
fn families(rng: &mut Seeded, (m, k, n): (i64, i64, i64), case: usize) {
    let (a, b) = SCALARS[case % SCALARS.len()];
    let (a32, b32, a64, b64) = (a as f32, b as f32, a as f64, b as f64);
    macro_rules! both {
        ($la:expr, $lb:expr, $lc:expr) => {{
            check32(rng, $la, $lb, $lc, a32, b32);
            check64(rng, $la, $lb, $lc, a64, b64);
        }};
    }
    if m % 4 == 0 {
        both!(
            row_major_interleaved(4, m, k, 4 * k).unwrap(),
            rm(k, n),
            rm(m, n)
        );
    }
    if m % 8 == 0 && k % 8 == 0 && n % 8 == 0 {
        both!(
            row_major_block_linear(8, 8, m, k, 8 * k).unwrap(),
            row_major_block_linear(8, 8, k, n, 8 * n).unwrap(),
            rm(m, n)
        );
    }
    for class in [0, 256] {
        both!(sw(m, k, ld_of(k, class)), rm(k, n), rm(m, n));
        both!(rm(m, k), rm(k, n), sw(m, n, ld_of(n, class)));
    }
    both!(padded(m, k, k + 16), rm(k, n), rm(m, n));
}

/// Whole domains of small sizes and the edges: one, odd, past a 32-row panel, past a k block;
/// swizzled cells of m/2 rows with 6–11 columns past whole 12-column tiles (m = 36 … 46, 88).
#[test]
fn named_families_f32_f64_on_every_isa_and_route() {
    let mut rng = Seeded(1228);
    let shapes = [
        (8i64, 8i64, 8i64),
        (4, 1, 1),
        (4, 3, 7),
        (36, 16, 40),
        (38, 40, 33),
        (40, 24, 64),
        (44, 56, 72),
        (46, 9, 96),
        (88, 72, 131),
        (64, 600, 48),
    ];
    for (case, s) in shapes.into_iter().enumerate() {
        families(&mut rng, s, case);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// Random extents (m a multiple of 4, blocked ones of 8) and scalars.
    #[test]
    fn named_families_random(seed in any::<u64>(), m4 in 1i64..30, k in 1i64..90, n in 1i64..140) {
        let mut rng = Seeded(seed);
        let m = 4 * m4;
        let case = rng.below(3) as usize;
        families(&mut rng, (m, k, n), case);
    }
}
