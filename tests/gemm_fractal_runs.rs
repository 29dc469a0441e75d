//! A C whose contiguous runs are 32 bytes — an Ascend NZ C of f32 (C0 = 8) or f64 (C0 = 4) —
//! on every instruction set, route and thread count, against the naive product read through
//! tensor indexing, with every element of C's buffer outside its layout untouched.
//!
//! On AVX-512 such a C takes the 32-row zmm tile that stores each zmm in two runs
//! (`x86::avx512_f32_runs` / `avx512_f64_runs`, B packed, or — a fractal A with at most 16
//! row panels and `Packing::Auto` — read in place by their `_in_place` forms, wide and
//! narrow); on AVX2 the 16 × 6 / 8 × 6 tiles,
//! whose ymm is a run (B packed or read in place); the sizes cross the 32-row tile (edge tiles
//! through the stack tile), the 12- and 6-column tiles, the k blocking (KC = 256), and AVX2's
//! in-place limit (more than 16 row panels: B packed).

#[path = "support/cases.rs"]
mod cases;
mod support;

use layout::DynLayout;
use proptest::prelude::*;
use support::Seeded;
use support::routes::{Float, check_every_route};

/// One product: C (m × n) in NZ with C0 = `c0` (`m = 16·m1`, `n = c0·n1`; `gap` fractals
/// of unused elements after each fractal column), A (m × k) in ZZ or row-major, B (k × n) in
/// ZN-like column groups or row-major.
#[derive(Clone, Debug)]
struct Case {
    m1: i64,
    n1: i64,
    k: i64,
    gap: i64,
    a_fractal: bool,
    b_fractal: bool,
    alpha: i64,
    beta: i64,
}

fn parse(s: String) -> DynLayout {
    s.parse().unwrap()
}

/// NZ: `((16, m1), (c0, n1)) : ((c0, 16·c0), (1, 16·c0·(m1 + gap)))`.
fn nz(c0: i64, m1: i64, n1: i64, gap: i64) -> DynLayout {
    parse(format!(
        "((16,{m1}),({c0},{n1})):(({c0},{}),(1,{}))",
        16 * c0,
        16 * c0 * (m1 + gap)
    ))
}

/// `case` (C0 = `c0`: 8 for f32, 4 for f64) through every route; the first mismatch.
fn check<T: Float>(case: &Case, seed: u64, c0: i64) -> Result<(), String> {
    let (n, k) = (c0 * case.n1, case.k);
    let mut rng = Seeded(seed);
    let lc = nz(c0, case.m1, case.n1, case.gap);
    let la = if case.a_fractal {
        // ZZ: ((16, m1), (c0, k/c0)) with the fractals of a row of fractals together
        let k1 = k / c0;
        parse(format!(
            "((16,{}),({c0},{k1})):(({c0},{}),(1,{}))",
            case.m1,
            16 * c0 * k1,
            16 * c0
        ))
    } else {
        parse(format!("({},{k}):({k},1)", 16 * case.m1))
    };
    let lb = if case.b_fractal {
        // ZN-like: k in groups of c0 contiguous values, n columns of each group
        let k1 = k / c0;
        parse(format!("(({c0},{k1}),{n}):((1,{}),{c0})", c0 * n))
    } else {
        parse(format!("({k},{n}):({n},1)"))
    };
    check_every_route(&mut rng, la, lb, lc, T::int(case.alpha), T::int(case.beta))
}

fn check_f32(case: &Case, seed: u64) -> Result<(), String> {
    check::<f32>(case, seed, 8)
}

fn check_f64(case: &Case, seed: u64) -> Result<(), String> {
    check::<f64>(case, seed, 4)
}

/// The sizes around the tiles and blocks, each with β = 0 (NaN C) and β ≠ 0.
#[test]
fn nz_outputs_at_the_tile_edges_on_every_isa() {
    // (m1 fractal rows, n1 runs, k)
    let sizes: &[(i64, i64, i64)] = &[
        (1, 1, 8),
        (1, 4, 8),
        (3, 4, 16),
        (2, 5, 24),
        (1, 12, 264),
        (4, 13, 40),
        (1, 65, 8),
        // past the narrow tiles' 64 columns (A read in place by the wide in-place tiles: f32
        // 12 columns, an 8-column edge through the stack tile; f64 6, a 2-column edge at its
        // own width), and one more k block
        (5, 3, 40),
        (7, 2, 264),
    ];
    let mut seed = 1;
    for &(m1, n1, k) in sizes {
        for (a_fractal, b_fractal) in [(true, true), (false, false), (true, false)] {
            for (alpha, beta, gap) in [(1, 0, 0), (2, -1, 1), (-1, 1, 0), (3, 2, 2)] {
                let case = Case {
                    m1,
                    n1,
                    k,
                    gap,
                    a_fractal,
                    b_fractal,
                    alpha,
                    beta,
                };
                seed += 1;
                check_f32(&case, seed).unwrap();
                // f64 runs of four: the same number of runs is half the columns
                check_f64(&case, seed).unwrap();
            }
        }
    }
}

fn cases() -> impl Strategy<Value = Case> {
    (
        (1i64..8, 1i64..20, 1i64..40, 0i64..3),
        (any::<bool>(), any::<bool>(), -2i64..3, -2i64..3),
    )
        .prop_map(
            |((m1, n1, k8, gap), (a_fractal, b_fractal, alpha, beta))| Case {
                m1,
                n1,
                // k a multiple of 8 (whole column groups for both C0s)
                k: 8 * k8,
                gap,
                a_fractal,
                b_fractal,
                alpha: if alpha == 0 { 1 } else { alpha },
                beta,
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(48)))]

    #[test]
    fn nz_outputs_match_the_naive_product(case in cases(), seed in any::<u64>()) {
        check_f32(&case, seed).map_err(TestCaseError::fail)?;
        check_f64(&case, seed).map_err(TestCaseError::fail)?;
    }
}
