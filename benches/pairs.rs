//! GEMM per element pair, one process, interleaved rounds, medians: f32 (the anchor), bf16 and
//! f16 (× → f32), u8×i8 and i8×i8 (→ i32), row-major operands, public API only. Prints
//! GFLOP/s (GOP/s for integers: 2·m·n·k per product) and the ratio to f32 in the same round.
//!
//! `cargo bench --bench pairs` (`-- 256 1024 2048` picks sizes, `--threads N`).

use std::hint::black_box;
use std::time::Instant;

use half::{bf16, f16};
use layout::gemm::{self, MatMut, MatRef, Options};

fn mat<T>(data: &[T], rows: usize, cols: usize) -> MatRef<'_, T> {
    MatRef {
        data,
        rows,
        cols,
        row_stride: cols as isize,
        col_stride: 1,
    }
}

fn out<T>(data: &mut [T], rows: usize, cols: usize) -> MatMut<'_, T> {
    MatMut {
        data,
        rows,
        cols,
        row_stride: cols as isize,
        col_stride: 1,
    }
}

type Run = Box<dyn FnMut()>;

fn pairs(s: usize, threads: usize) -> Vec<(&'static str, Run)> {
    let opts = Options {
        threads,
        ..Options::default()
    };
    let vals = |len: usize, seed: usize| -> Vec<i8> {
        (0..len)
            .map(|i| (((i * 7 + seed) % 15) as i8) - 7)
            .collect()
    };
    let (a, b) = (vals(s * s, 1), vals(s * s, 2));
    let af: Vec<f32> = a.iter().map(|&x| f32::from(x)).collect();
    let bf: Vec<f32> = b.iter().map(|&x| f32::from(x)).collect();
    let ab: Vec<bf16> = af.iter().map(|&x| bf16::from_f32(x)).collect();
    let bb: Vec<bf16> = bf.iter().map(|&x| bf16::from_f32(x)).collect();
    let ah: Vec<f16> = af.iter().map(|&x| f16::from_f32(x)).collect();
    let bh: Vec<f16> = bf.iter().map(|&x| f16::from_f32(x)).collect();
    let au: Vec<u8> = a.iter().map(|&x| (x + 8) as u8).collect();
    let (mut c32, mut ch, mut cb) = (vec![0f32; s * s], vec![0f32; s * s], vec![0f32; s * s]);
    let (mut ci, mut cj) = (vec![0i32; s * s], vec![0i32; s * s]);
    let (a2, b2) = (a.clone(), b.clone());
    vec![
        (
            "f32×f32→f32",
            Box::new(move || {
                gemm::gemm_with(
                    opts,
                    1.0,
                    mat(black_box(&af), s, s),
                    mat(&bf, s, s),
                    0.0,
                    out(&mut c32, s, s),
                )
                .unwrap()
            }),
        ),
        (
            "bf16×bf16→f32",
            Box::new(move || {
                gemm::gemm_half(
                    opts,
                    1.0,
                    mat(black_box(&ab), s, s),
                    mat(&bb, s, s),
                    0.0,
                    out(&mut cb, s, s),
                )
                .unwrap()
            }),
        ),
        (
            "f16×f16→f32",
            Box::new(move || {
                gemm::gemm_half(
                    opts,
                    1.0,
                    mat(black_box(&ah), s, s),
                    mat(&bh, s, s),
                    0.0,
                    out(&mut ch, s, s),
                )
                .unwrap()
            }),
        ),
        (
            "u8×i8→i32",
            Box::new(move || {
                gemm::gemm_i8(
                    opts,
                    1,
                    mat(black_box(&au), s, s),
                    mat(&b, s, s),
                    0,
                    out(&mut ci, s, s),
                )
                .unwrap()
            }),
        ),
        (
            "i8×i8→i32",
            Box::new(move || {
                gemm::gemm_i8(
                    opts,
                    1,
                    mat(black_box(&a2), s, s),
                    mat(&b2, s, s),
                    0,
                    out(&mut cj, s, s),
                )
                .unwrap()
            }),
        ),
    ]
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let mut threads = 1;
    let mut sizes = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == "--threads" {
            threads = it.next().and_then(|t| t.parse().ok()).unwrap_or(1);
        } else if let Ok(s) = a.parse::<usize>() {
            sizes.push(s);
        }
    }
    if sizes.is_empty() {
        sizes = vec![256, 1024];
    }
    println!("{threads} thread(s); GFLOP/s (GOP/s), median over rounds; ratio to f32 per round");
    for s in sizes {
        let mut runs = pairs(s, threads);
        let flops = 2.0 * (s as f64).powi(3);
        let reps = ((2e9 / flops) as usize).clamp(1, 200);
        let rounds = 7;
        let mut rate = vec![Vec::new(); runs.len()];
        let mut ratio = vec![Vec::new(); runs.len()];
        for _ in 0..rounds {
            let mut t = vec![0.0; runs.len()];
            for (i, (_, r)) in runs.iter_mut().enumerate() {
                r();
                let t0 = Instant::now();
                for _ in 0..reps {
                    r();
                }
                t[i] = t0.elapsed().as_secs_f64() / reps as f64;
                rate[i].push(flops / t[i] / 1e9);
            }
            for i in 0..runs.len() {
                ratio[i].push(t[0] / t[i]);
            }
        }
        println!("{s}³:");
        for (i, (name, _)) in runs.iter().enumerate() {
            println!(
                "  {name:<16} {:>7.1}  ×{:.2} of f32",
                median(&mut rate[i]),
                median(&mut ratio[i])
            );
        }
    }
}
