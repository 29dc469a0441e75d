//! Runs the loops of `benches/support/walks.rs` (a 64×64 walk through a layout, written by hand,
//! through a fully static layout, a mixed one and a run-time `DynLayout`), checks that every
//! variant computes what the hand-written loop computes, and prints the checksums.
//!
//! ```text
//! cargo run --release --example zero_cost -- [REPS] [VARIANT]
//! ```
//!
//! With a `VARIANT` name (e.g. `sum_tiled_static`) only that loop runs, `REPS` times:
//! `scripts/count-instructions.sh` runs it that way under callgrind to count its instructions.
//!
//! With `VARIANT` = `interleaved`, each kernel's four variants are timed in `REPS` rounds, the
//! variants taking turns within every round (in a rotating order), and the medians of the
//! per-call times and of the per-round static/hand ratios are printed. Taking turns makes the
//! ratio robust to a machine whose load changes while it runs (criterion times one variant
//! after the other).

#[path = "../../benches/support/walks.rs"]
mod walks;

use std::hint::black_box;
use walks::*;

type Run<'a> = Box<dyn Fn(&[u64], &mut [u64]) -> u64 + 'a>;

fn checksum(v: &[u64]) -> u64 {
    v.iter()
        .fold(0u64, |a, &x| a.wrapping_mul(31).wrapping_add(x))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let reps: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(100);
    let only = args.next();

    let src = buffer();
    let mut dst = vec![0u64; N];
    let td = black_box(dyn_of::<Tiled>());
    let rd = black_box(dyn_of::<RowMajor>());
    let tm = tiled_mixed(black_box(8), black_box(64), black_box(512));
    let rm = row_major_mixed(black_box(64), black_box(64), black_box(64));
    let cd = black_box(
        dyn_of::<RowMajor>()
            .composition(&dyn_of::<Tiled>())
            .expect("row-major ∘ tiled is admissible"),
    );

    // Groups of four: hand-written first, then static, mixed, dyn; all four must agree. For the
    // composed layout the third variant is the literal static layout equal to the composition.
    let variants: Vec<(&str, Run)> = vec![
        ("sum_tiled_hand", Box::new(|s, _| sum_tiled_hand(s))),
        ("sum_tiled_static", Box::new(|s, _| sum_tiled_static(s))),
        ("sum_tiled_mixed", Box::new(|s, _| sum_tiled_mixed(&tm, s))),
        ("sum_tiled_dyn", Box::new(|s, _| sum_tiled_dyn(&td, s))),
        ("sum_row_major_hand", Box::new(|s, _| sum_row_major_hand(s))),
        (
            "sum_row_major_static",
            Box::new(|s, _| sum_row_major_static(s)),
        ),
        (
            "sum_row_major_mixed",
            Box::new(|s, _| sum_row_major_mixed(&rm, s)),
        ),
        (
            "sum_row_major_dyn",
            Box::new(|s, _| sum_row_major_dyn(&rd, s)),
        ),
        (
            "copy_tiled_hand",
            Box::new(|s, d| {
                copy_tiled_hand(s, d);
                checksum(d)
            }),
        ),
        (
            "copy_tiled_static",
            Box::new(|s, d| {
                copy_tiled_static(s, d);
                checksum(d)
            }),
        ),
        (
            "copy_tiled_mixed",
            Box::new(|s, d| {
                copy_tiled_mixed(&tm, s, d);
                checksum(d)
            }),
        ),
        (
            "copy_tiled_dyn",
            Box::new(|s, d| {
                copy_tiled_dyn(&td, s, d);
                checksum(d)
            }),
        ),
        (
            "copy_row_major_hand",
            Box::new(|s, d| {
                copy_row_major_hand(s, d);
                checksum(d)
            }),
        ),
        (
            "copy_row_major_static",
            Box::new(|s, d| {
                copy_row_major_static(s, d);
                checksum(d)
            }),
        ),
        (
            "copy_row_major_mixed",
            Box::new(|s, d| {
                copy_row_major_mixed(&rm, s, d);
                checksum(d)
            }),
        ),
        (
            "copy_row_major_dyn",
            Box::new(|s, d| {
                copy_row_major_dyn(&rd, s, d);
                checksum(d)
            }),
        ),
        ("sum_composed_hand", Box::new(|s, _| sum_composed_hand(s))),
        (
            "sum_composed_static",
            Box::new(|s, _| sum_composed_static(s)),
        ),
        (
            "sum_composed_literal",
            Box::new(|s, _| sum_composed_literal(s)),
        ),
        (
            "sum_composed_dyn",
            Box::new(|s, _| sum_composed_dyn(&cd, s)),
        ),
    ];

    if only.as_deref() == Some("interleaved") {
        interleaved(&variants, reps, &src, &mut dst);
        return;
    }

    if let Some(name) = only {
        let Some((_, f)) = variants.iter().find(|(n, _)| *n == name) else {
            eprintln!("unknown variant {name}; one of:");
            for (n, _) in &variants {
                eprintln!("  {n}");
            }
            std::process::exit(2);
        };
        let mut acc = 0u64;
        for _ in 0..reps {
            acc = acc.wrapping_add(f(black_box(&src), black_box(&mut dst)));
        }
        println!("{name}: {reps} repetitions, checksum {acc}");
        return;
    }

    for group in variants.chunks(4) {
        let results: Vec<u64> = group
            .iter()
            .map(|(_, f)| {
                (0..reps).fold(0u64, |a, _| {
                    a.wrapping_add(f(black_box(&src), black_box(&mut dst)))
                })
            })
            .collect();
        assert!(
            results.iter().all(|&r| r == results[0]),
            "{}: variants disagree: {results:?}",
            group[0].0
        );
        println!(
            "{:<24} {reps} repetitions, all four variants agree ({})",
            group[0].0.trim_end_matches("_hand"),
            results[0]
        );
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// Per-call nanoseconds of each variant, the variants taking turns in each round.
fn interleaved(variants: &[(&str, Run)], rounds: usize, src: &[u64], dst: &mut [u64]) {
    const CALLS: u32 = 64; // calls per timing, so a timing is well above the clock resolution
    println!(
        "{:<24} {:>10} {:>10} {:>10} {:>10} {:>14}",
        "kernel", "hand ns", "static ns", "mixed ns", "dyn ns", "static/hand"
    );
    println!("(for sum_composed the `mixed` column is the literal static layout equal to A ∘ B)");
    for group in variants.chunks(4) {
        let mut times: Vec<Vec<f64>> = (0..4).map(|_| Vec::with_capacity(rounds)).collect();
        let mut ratios = Vec::with_capacity(rounds);
        for round in 0..rounds.max(1) {
            let mut t = [0f64; 4];
            for k in 0..4 {
                let v = (k + round) % 4; // rotate who goes first
                let start = std::time::Instant::now();
                for _ in 0..CALLS {
                    black_box(group[v].1(black_box(src), black_box(dst)));
                }
                t[v] = start.elapsed().as_nanos() as f64 / f64::from(CALLS);
            }
            for k in 0..4 {
                times[k].push(t[k]);
            }
            ratios.push(t[1] / t[0]);
        }
        let m: Vec<f64> = times.iter_mut().map(|v| median(v)).collect();
        println!(
            "{:<24} {:>10.0} {:>10.0} {:>10.0} {:>10.0} {:>14.4}",
            group[0].0.trim_end_matches("_hand"),
            m[0],
            m[1],
            m[2],
            m[3],
            median(&mut ratios)
        );
    }
}
