//! The quantized prefill: `gemm_quant` on 8- or 7-bit activations (`QuantB::int8_activations`,
//! `int7_activations`) for `Q4_0`, `Q8_0`, `Q8_0` on 7-bit activations and AWQ groups of 128,
//! one thread, the formats timed in turns round after round; prints each one's median and best
//! GOP/s (2·m·k·n per call) in the calling thread's CPU time (Linux's
//! `/proc/thread-self/schedstat`; wall time elsewhere) and a checksum of C (equal checksums:
//! equal results).
//!
//! `cargo bench --bench quant_prefill -- M K N ROUNDS` (default `512 4096 4096 7`);
//! `QP_ONLY=Q4_0` runs one format (for `perf record`).

use std::time::Instant;

use layout::gemm::{MatMut, MatRef, Options, QuantB, gemm_quant};
use layout::packed::{Group4Format, QuantRef, quantize_group4, quantize_q4_0, quantize_q8_0};

/// The calling thread's CPU time in seconds (Linux), else `None`.
fn cpu_time() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns * 1e-9)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let at = |i: usize, d: usize| args.get(i).copied().unwrap_or(d);
    let (m, k, n, rounds) = (at(0, 512), at(1, 4096), at(2, 4096), at(3, 7));
    let mut s = 1u32;
    let mut r = || {
        s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        ((s >> 8) as f32 / 16_777_216.0) * 2.0 - 1.0
    };
    let b: Vec<f32> = (0..k * n).map(|_| r()).collect();
    let a: Vec<f32> = (0..m * k).map(|_| r()).collect();
    let q4 = quantize_q4_0(k, n, &b).unwrap();
    let q8 = quantize_q8_0(k, n, &b).unwrap();
    let awq = quantize_group4(k, n, &b, 128, Group4Format::Awq).unwrap();
    let only = std::env::var("QP_ONLY").ok();
    let cases: Vec<(&str, QuantRef<'_>, bool)> = [
        ("Q4_0", (&q4).into(), false),
        ("Q8_0", (&q8).into(), false),
        ("Q8_0 7-bit", (&q8).into(), true),
        ("AWQ g128", (&awq).into(), false),
    ]
    .into_iter()
    .filter(|c| only.as_deref().is_none_or(|o| o == c.0))
    .collect();
    let mut c = vec![0f32; m * n];
    let mut times = vec![Vec::new(); cases.len()];
    let mut sums = vec![0f64; cases.len()];
    for _ in 0..rounds {
        for (ci, &(_, q, seven)) in cases.iter().enumerate() {
            let (t, c0) = (Instant::now(), cpu_time());
            gemm_quant(
                Options {
                    threads: 1,
                    ..Options::default()
                },
                1.0,
                MatRef {
                    data: &a,
                    rows: m,
                    cols: k,
                    row_stride: k as isize,
                    col_stride: 1,
                },
                if seven {
                    QuantB::int7_activations(q)
                } else {
                    QuantB::int8_activations(q)
                },
                0.0,
                MatMut {
                    data: &mut c,
                    rows: m,
                    cols: n,
                    row_stride: n as isize,
                    col_stride: 1,
                },
            )
            .unwrap();
            let wall = t.elapsed().as_secs_f64();
            times[ci].push(match (c0, cpu_time()) {
                (Some(a), Some(b)) if b > a => b - a,
                _ => wall,
            });
            sums[ci] = c.iter().map(|&x| f64::from(x)).sum();
        }
    }
    let ops = 2.0 * (m * k * n) as f64;
    for ((name, ..), (t, sum)) in cases.iter().zip(times.iter_mut().zip(&sums)) {
        t.sort_by(f64::total_cmp);
        println!(
            "{name:>10} {m}x{k}x{n}: median {:.1} GOP/s, best {:.1} GOP/s, checksum {sum:.6e}",
            ops / t[t.len() / 2] / 1e9,
            ops / t[0] / 1e9
        );
    }
}
