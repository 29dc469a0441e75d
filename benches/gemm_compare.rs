//! One-process, interleaved comparison of `layout::gemm` against `matrixmultiply`:
//! for each shape the two libraries run alternately (A B A B …), each sample is the median
//! time of one call over the rounds, and the table gives GFLOP/s (2·m·n·k per call) and the
//! share of this core's FMA peak, measured in the same run by a register-only FMA loop.
//!
//! `cargo bench --bench gemm_compare` (add `-- quick` for fewer rounds).

use std::hint::black_box;
use std::time::Instant;

/// Seconds per call of `f` and `g`, and the FMA peak in GFLOP/s: medians over `rounds`, the
/// three measured in turn each round (f, g, peak), so a busy machine slows all three alike.
fn interleaved(
    rounds: usize,
    reps: usize,
    f64_peak: bool,
    mut f: impl FnMut(),
    mut g: impl FnMut(),
) -> (f64, f64, f64) {
    let (mut tf, mut tg, mut tp) = (Vec::new(), Vec::new(), Vec::new());
    f();
    g();
    for _ in 0..rounds {
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        tf.push(t.elapsed().as_secs_f64() / reps as f64);
        let t = Instant::now();
        for _ in 0..reps {
            g();
        }
        tg.push(t.elapsed().as_secs_f64() / reps as f64);
        tp.push(fma_peak(f64_peak, 2_000_000));
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    (med(&mut tf), med(&mut tg), med(&mut tp))
}

/// Peak FMA throughput of one core in GFLOP/s for `lanes`-wide vectors: 12 independent
/// accumulator chains, nothing but FMAs in the loop.
#[cfg(target_arch = "x86_64")]
fn fma_peak(f64_lanes: bool, iters: u64) -> f64 {
    use std::arch::x86_64::*;
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn run(iters: u64) -> f32 {
        let mut acc = [_mm512_set1_ps(0.0); 12];
        let x = _mm512_set1_ps(black_box(1.000_000_1));
        let y = _mm512_set1_ps(black_box(0.999_999_9));
        for _ in 0..iters {
            for a in acc.iter_mut() {
                *a = _mm512_fmadd_ps(*a, x, y);
            }
        }
        let mut s = _mm512_set1_ps(0.0);
        for a in acc {
            s = _mm512_add_ps(s, a);
        }
        _mm512_reduce_add_ps(s)
    }
    if !std::arch::is_x86_feature_detected!("avx512f") {
        return f64::NAN;
    }
    let t = Instant::now();
    // SAFETY: AVX-512F was just detected.
    black_box(unsafe { run(iters) });
    let best = t.elapsed();
    let lanes = if f64_lanes { 8.0 } else { 16.0 };
    (iters as f64 * 12.0 * lanes * 2.0) / best.as_secs_f64() / 1e9
}

#[cfg(not(target_arch = "x86_64"))]
fn fma_peak(_: bool, _: u64) -> f64 {
    f64::NAN
}

fn data<T: From<i16>>(len: usize, seed: usize) -> Vec<T> {
    (0..len)
        .map(|i| T::from((((i * 7 + seed) % 9) as i16) - 4))
        .collect()
}

/// `solo <layout|mm|peak> <f32|f64> <n> <reps>`: only one library on one square size (or the
/// FMA loop, `reps` iterations), for `perf stat -e task-clock`: CPU time counts only while this
/// process runs, so other processes time-sharing the cores do not enter the GFLOP/s figure.
fn solo(args: &[String]) {
    let lib = args[0].as_str();
    if lib == "peak" {
        let iters: u64 = args[3].parse().unwrap();
        fma_peak(args[1] == "f64", iters);
        let lanes = if args[1] == "f64" { 8.0 } else { 16.0 };
        println!("flop {}", iters as f64 * 12.0 * lanes * 2.0);
        return;
    }
    let n: usize = args[2].parse().unwrap();
    let reps: usize = args[3].parse().unwrap();
    let ld = n as isize;
    if args[1] == "f32" {
        let a: Vec<f32> = data(n * n, 1);
        let b: Vec<f32> = data(n * n, 2);
        let mut c = vec![0f32; n * n];
        for _ in 0..reps {
            if lib == "layout" {
                layout::gemm::sgemm(n, n, n, 1.0, &a, 1, ld, &b, 1, ld, 0.0, &mut c, 1, ld)
                    .unwrap();
            } else {
                // SAFETY: the slices hold n·n elements, column-major.
                unsafe {
                    matrixmultiply::sgemm(
                        n,
                        n,
                        n,
                        1.0,
                        a.as_ptr(),
                        1,
                        ld,
                        b.as_ptr(),
                        1,
                        ld,
                        0.0,
                        c.as_mut_ptr(),
                        1,
                        ld,
                    )
                }
            }
        }
        black_box(&c);
    } else {
        let a: Vec<f64> = data(n * n, 1);
        let b: Vec<f64> = data(n * n, 2);
        let mut c = vec![0f64; n * n];
        for _ in 0..reps {
            if lib == "layout" {
                layout::gemm::dgemm(n, n, n, 1.0, &a, 1, ld, &b, 1, ld, 0.0, &mut c, 1, ld)
                    .unwrap();
            } else {
                // SAFETY: the slices hold n·n elements, column-major.
                unsafe {
                    matrixmultiply::dgemm(
                        n,
                        n,
                        n,
                        1.0,
                        a.as_ptr(),
                        1,
                        ld,
                        b.as_ptr(),
                        1,
                        ld,
                        0.0,
                        c.as_mut_ptr(),
                        1,
                        ld,
                    )
                }
            }
        }
        black_box(&c);
    }
    println!("flop {}", 2.0 * (n * n * n) as f64 * reps as f64);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "solo") {
        solo(&args[i + 1..]);
        return;
    }
    let quick = std::env::args().any(|a| a == "quick");
    let peak32 = fma_peak(false, 50_000_000);
    let peak64 = fma_peak(true, 50_000_000);
    println!("isa: {:?}", layout::gemm::Isa::selected());
    println!("FMA peak at start (register-only loop): f32 {peak32:.1}, f64 {peak64:.1} GFLOP/s");
    println!("(% of peak below is against the peak measured in the same rounds as the row)");
    println!(
        "| dtype | m×k×n | layout GFLOP/s | matrixmultiply GFLOP/s | ratio | peak GFLOP/s | layout % of peak |"
    );
    println!("|---|---|---|---|---|---|---|");
    let shapes: &[(usize, usize, usize)] = &[
        (64, 64, 64),
        (256, 256, 256),
        (1024, 1024, 1024),
        (64, 4096, 64),
        (4096, 64, 4096),
    ];
    for &(m, k, n) in shapes {
        let flop = 2.0 * (m * n * k) as f64;
        let reps = ((2e8 / flop) as usize).clamp(1, 10_000);
        let rounds = if quick { 5 } else { 15 };
        // f32, column-major everything
        {
            let a: Vec<f32> = data(m * k, 1);
            let b: Vec<f32> = data(k * n, 2);
            let mut c1 = vec![0f32; m * n];
            let mut c2 = vec![0f32; m * n];
            let (t1, t2, peak) = interleaved(
                rounds,
                reps,
                false,
                || {
                    layout::gemm::sgemm(
                        m, k, n, 1.0, &a, 1, m as isize, &b, 1, k as isize, 0.0, &mut c1, 1,
                        m as isize,
                    )
                    .unwrap()
                },
                || unsafe {
                    // SAFETY: the slices hold m·k, k·n and m·n elements, column-major.
                    matrixmultiply::sgemm(
                        m,
                        k,
                        n,
                        1.0,
                        a.as_ptr(),
                        1,
                        m as isize,
                        b.as_ptr(),
                        1,
                        k as isize,
                        0.0,
                        c2.as_mut_ptr(),
                        1,
                        m as isize,
                    )
                },
            );
            assert_eq!(c1, c2);
            let (g1, g2) = (flop / t1 / 1e9, flop / t2 / 1e9);
            println!(
                "| f32 | {m}×{k}×{n} | {g1:.1} | {g2:.1} | {:.2} | {peak:.1} | {:.0} % |",
                g1 / g2,
                100.0 * g1 / peak
            );
        }
        {
            let a: Vec<f64> = data(m * k, 1);
            let b: Vec<f64> = data(k * n, 2);
            let mut c1 = vec![0f64; m * n];
            let mut c2 = vec![0f64; m * n];
            let (t1, t2, peak) = interleaved(
                rounds,
                reps,
                true,
                || {
                    layout::gemm::dgemm(
                        m, k, n, 1.0, &a, 1, m as isize, &b, 1, k as isize, 0.0, &mut c1, 1,
                        m as isize,
                    )
                    .unwrap()
                },
                || unsafe {
                    // SAFETY: the slices hold m·k, k·n and m·n elements, column-major.
                    matrixmultiply::dgemm(
                        m,
                        k,
                        n,
                        1.0,
                        a.as_ptr(),
                        1,
                        m as isize,
                        b.as_ptr(),
                        1,
                        k as isize,
                        0.0,
                        c2.as_mut_ptr(),
                        1,
                        m as isize,
                    )
                },
            );
            assert_eq!(c1, c2);
            let (g1, g2) = (flop / t1 / 1e9, flop / t2 / 1e9);
            println!(
                "| f64 | {m}×{k}×{n} | {g1:.1} | {g2:.1} | {:.2} | {peak:.1} | {:.0} % |",
                g1 / g2,
                100.0 * g1 / peak
            );
        }
    }
}
