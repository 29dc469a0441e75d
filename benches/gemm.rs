//! Criterion benches of `layout::gemm` beside `matrixmultiply`, throughput in FLOP (2·m·n·k).
//! For the interleaved A/B comparison with % of peak see `benches/gemm_compare.rs`.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};

fn data<T: From<i16>>(len: usize, seed: usize) -> Vec<T> {
    (0..len)
        .map(|i| T::from((((i * 7 + seed) % 9) as i16) - 4))
        .collect()
}

const SHAPES: [(usize, usize, usize); 4] = [
    (64, 64, 64),
    (256, 256, 256),
    (1024, 1024, 1024),
    (64, 4096, 64),
];

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("gemm");
    g.sample_size(10);
    for (m, k, n) in SHAPES {
        let id = format!("{m}x{k}x{n}");
        g.throughput(Throughput::Elements(2 * (m * n * k) as u64));
        let (lda, ldb, ldc) = (m as isize, k as isize, m as isize);
        let a32: Vec<f32> = data(m * k, 1);
        let b32: Vec<f32> = data(k * n, 2);
        let mut c32 = vec![0f32; m * n];
        g.bench_function(BenchmarkId::new("layout/f32", &id), |bch| {
            bch.iter(|| {
                layout::gemm::sgemm(
                    m, k, n, 1.0, &a32, 1, lda, &b32, 1, ldb, 0.0, &mut c32, 1, ldc,
                )
                .unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("matrixmultiply/f32", &id), |bch| {
            bch.iter(|| unsafe {
                // SAFETY: the slices hold m·k, k·n and m·n elements, column-major.
                matrixmultiply::sgemm(
                    m,
                    k,
                    n,
                    1.0,
                    a32.as_ptr(),
                    1,
                    lda,
                    b32.as_ptr(),
                    1,
                    ldb,
                    0.0,
                    c32.as_mut_ptr(),
                    1,
                    ldc,
                )
            })
        });
        let a64: Vec<f64> = data(m * k, 1);
        let b64: Vec<f64> = data(k * n, 2);
        let mut c64 = vec![0f64; m * n];
        g.bench_function(BenchmarkId::new("layout/f64", &id), |bch| {
            bch.iter(|| {
                layout::gemm::dgemm(
                    m, k, n, 1.0, &a64, 1, lda, &b64, 1, ldb, 0.0, &mut c64, 1, ldc,
                )
                .unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("matrixmultiply/f64", &id), |bch| {
            bch.iter(|| unsafe {
                // SAFETY: the slices hold m·k, k·n and m·n elements, column-major.
                matrixmultiply::dgemm(
                    m,
                    k,
                    n,
                    1.0,
                    a64.as_ptr(),
                    1,
                    lda,
                    b64.as_ptr(),
                    1,
                    ldb,
                    0.0,
                    c64.as_mut_ptr(),
                    1,
                    ldc,
                )
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
