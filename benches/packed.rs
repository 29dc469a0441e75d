//! Packed and sparse throughput against hand-written baselines.
//!
//! - `repack_awq_to_gptq`: 4-bit AWQ words → GPTQ words for `n` elements: `PackedVec::repack`
//!   (slot permutation `S ∘ right_inverse(D)` from the algebra, walked by an odometer) and
//!   `PackedVec::repack_by_offsets` (closed-form bit offsets per element) against a hand-written
//!   loop that permutes the eight nibbles of each `u32` word, and a clone of the words (memcpy
//!   into a new buffer: the ceiling).
//! - `dequantize_awq`: `dequantize` over a `K × N` AWQ matrix (group 128) against a hand-written
//!   loop over the packed words.
//! - `spmv`: CSR `y = A·x` (density 5 %) against a dense row-major matrix-vector product.
//!
//! Throughput is in elements (weights, or matrix entries for SpMV).

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use layout::packed::{AWQ_ORDER, GroupQuant, PackedFormat, PackedVec, dequantize};
use layout::sparse::Csr;
use std::time::Duration;

fn repack(c: &mut Criterion) {
    let mut g = c.benchmark_group("repack_awq_to_gptq");
    for &n in &[1usize << 16, 1 << 20] {
        g.throughput(Throughput::Elements(n as u64));
        let vals: Vec<u8> = (0..n).map(|i| (i * 7 % 16) as u8).collect();
        let awq = PackedVec::from_values(PackedFormat::awq(), &vals).unwrap();
        g.bench_with_input(BenchmarkId::new("repack", n), &n, |b, _| {
            b.iter(|| black_box(&awq).repack(PackedFormat::gptq()).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("repack_by_offsets", n), &n, |b, _| {
            b.iter(|| {
                black_box(&awq)
                    .repack_by_offsets(PackedFormat::gptq())
                    .unwrap()
            })
        });
        let words = awq.to_words().unwrap();
        // the ceiling: the same bytes into a new buffer (repack allocates its output too)
        g.bench_with_input(BenchmarkId::new("memcpy_clone", n), &n, |b, _| {
            b.iter(|| black_box(&words).clone())
        });
        g.bench_with_input(BenchmarkId::new("hand_written_words", n), &n, |b, _| {
            b.iter(|| {
                black_box(&words)
                    .iter()
                    .map(|&w| {
                        let mut out = 0u32;
                        for (s, &j) in AWQ_ORDER.iter().enumerate() {
                            out |= ((w >> (4 * s)) & 0xf) << (4 * j);
                        }
                        out
                    })
                    .collect::<Vec<u32>>()
            })
        });
    }
    g.finish();
}

fn dequant(c: &mut Criterion) {
    let mut g = c.benchmark_group("dequantize_awq");
    let (k, n, gs) = (1024usize, 1024usize, 128usize);
    g.throughput(Throughput::Elements((k * n) as u64));
    let q: Vec<u8> = (0..k * n).map(|i| (i * 5 % 16) as u8).collect();
    let w = PackedVec::from_values(PackedFormat::awq(), &q).unwrap();
    let zv: Vec<u8> = (0..k / gs * n).map(|i| (i % 16) as u8).collect();
    let z = PackedVec::from_values(PackedFormat::awq(), &zv).unwrap();
    let s: Vec<f32> = (0..k / gs * n).map(|i| (i % 9) as f32 * 0.125).collect();
    let quant = GroupQuant::awq(k, n, gs).unwrap();
    g.bench_function(BenchmarkId::new("dequantize", k), |b| {
        b.iter(|| dequantize(black_box(&w), &s, &z, &quant).unwrap())
    });
    let ww = w.to_words().unwrap();
    let zw = z.to_words().unwrap();
    g.bench_function(BenchmarkId::new("hand_written_words", k), |b| {
        b.iter(|| {
            let mut out = vec![0f32; k * n];
            for r in 0..k {
                let grp = r / gs;
                for wi in 0..n / 8 {
                    let word = black_box(&ww)[r * (n / 8) + wi];
                    let zword = zw[grp * (n / 8) + wi];
                    for (slot, &j) in AWQ_ORDER.iter().enumerate() {
                        let col = 8 * wi + j;
                        let qv = ((word >> (4 * slot)) & 0xf) as i32;
                        let zv = ((zword >> (4 * slot)) & 0xf) as i32;
                        out[r * n + col] = (qv - zv) as f32 * s[grp * n + col];
                    }
                }
            }
            out
        })
    });
    g.finish();
}

fn spmv(c: &mut Criterion) {
    let mut g = c.benchmark_group("spmv");
    let n = 1024usize;
    g.throughput(Throughput::Elements((n * n) as u64));
    let dense: Vec<f64> = (0..n * n)
        .map(|i| {
            if (i * 2_654_435_761) % 100 < 5 {
                (i % 7) as f64
            } else {
                0.0
            }
        })
        .collect();
    let a = Csr::from_dense(n, n, &dense).unwrap();
    let x: Vec<f64> = (0..n).map(|i| i as f64 * 0.5).collect();
    g.bench_function(BenchmarkId::new("csr", n), |b| {
        b.iter(|| a.mul_vec(black_box(&x)).unwrap())
    });
    g.bench_function(BenchmarkId::new("dense", n), |b| {
        b.iter(|| {
            (0..n)
                .map(|r| {
                    dense[r * n..(r + 1) * n]
                        .iter()
                        .zip(black_box(&x))
                        .map(|(a, b)| a * b)
                        .sum::<f64>()
                })
                .collect::<Vec<f64>>()
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = repack, dequant, spmv
}
criterion_main!(benches);
