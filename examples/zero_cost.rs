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

#[path = "../benches/support/walks.rs"]
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

    // Groups of four: hand-written first, then static, mixed, dyn; all four must agree.
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
    ];

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
