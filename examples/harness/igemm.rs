//! A u8 × i8 → i32 GEMM call repeated, for callgrind and timing (`cargo run --release --example
//! igemm -- M K N REPS [full]`): row-major operands through `gemm_with`, B packed per call;
//! 7-bit activations (`vpmaddubsw` exact with any i8 weights) unless `full` is given.

use layout::gemm::{self, MatMut, MatRef, Options};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
    let (m, k, n, reps) = (num(0, 256), num(1, 256), num(2, 256), num(3, 10));
    let full = args.iter().any(|a| a == "full");
    let modulus = if full { 256 } else { 128 };
    let a: Vec<u8> = (0..m * k)
        .map(|i| ((i * 2_654_435_761 + 1) % modulus) as u8)
        .collect();
    let b: Vec<i8> = (0..k * n)
        .map(|i| ((i * 2_246_822_519 + 2) % 256) as u8 as i8)
        .collect();
    let mut c = vec![0i32; m * n];
    let t = std::time::Instant::now();
    for _ in 0..reps {
        gemm::gemm_with(
            Options::default(),
            1,
            MatRef {
                data: &a,
                rows: m,
                cols: k,
                row_stride: k as isize,
                col_stride: 1,
            },
            MatRef {
                data: &b,
                rows: k,
                cols: n,
                row_stride: n as isize,
                col_stride: 1,
            },
            0,
            MatMut {
                data: &mut c,
                rows: m,
                cols: n,
                row_stride: n as isize,
                col_stride: 1,
            },
        )
        .expect("gemm");
    }
    let s = t.elapsed().as_secs_f64() / reps as f64;
    println!(
        "{m}×{k}×{n} {}: {:.1} GOP/s (c[0] = {})",
        if full { "full-range u8" } else { "7-bit u8" },
        2.0 * (m * k * n) as f64 / s / 1e9,
        c[0]
    );
}
