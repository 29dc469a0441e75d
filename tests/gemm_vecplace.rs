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

use layout::named::blocked::{row_major_block_linear, row_major_interleaved};
use layout::{AnyLayout, DynLayout};
use proptest::prelude::*;
use support::Seeded;
use support::routes::{Float, check_every_route};

/// Row-major `r × c` with leading dimension `ld`.
fn padded(r: i64, c: i64, ld: i64) -> DynLayout {
    format!("({r},{c}):({ld},1)").parse().unwrap()
}

/// `A (m × k) · B (k × n, leading dimension ldb) → C (m × n, leading dimension ldc)` through
/// every route ([`support::routes::check_every_route`]).
fn check<T: Float>(
    rng: &mut Seeded,
    la: DynLayout,
    (k, n, ldb, ldc): (i64, i64, i64, i64),
    (alpha, beta): (i8, i8),
) {
    let m = la.domain().mode(0).unwrap().size().unwrap();
    let (lb, lc) = (padded(k, n, ldb), padded(m, n, ldc));
    check_every_route(rng, la, lb, lc, T::int(alpha.into()), T::int(beta.into())).unwrap();
}

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
        check::<f32>(rng, la, shape, (a, b));
        check::<f64>(rng, la, shape, (a, b));
    }
    if m % 8 == 0 && k % 8 == 0 {
        let la = row_major_block_linear(8, 8, m, k, 8 * k).unwrap();
        check::<f32>(rng, la, shape, (a, b));
        check::<f64>(rng, la, shape, (a, b));
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
