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

use layout::named::blocked::{row_major_block_linear, row_major_interleaved};
use layout::{DynLayout, Swizzle, SwizzledLayout};
use proptest::prelude::*;
use support::Seeded;
use support::routes::check_every_route;

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

const SCALARS: [(i8, i8); 3] = [(1, 0), (-1, 1), (2, -1)];

/// Every family at one `(m, k, n)` (the interleaved one where m is a multiple of 4, the blocked
/// one where all three are multiples of 8),
/// f32 and f64.
fn families(rng: &mut Seeded, (m, k, n): (i64, i64, i64), case: usize) {
    let (a, b) = SCALARS[case % SCALARS.len()];
    let (a32, b32, a64, b64) = (a as f32, b as f32, a as f64, b as f64);
    macro_rules! both {
        ($la:expr, $lb:expr, $lc:expr) => {{
            check_every_route(rng, $la, $lb, $lc, a32, b32).unwrap();
            check_every_route(rng, $la, $lb, $lc, a64, b64).unwrap();
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
