//! Copy throughput: the generic layout-to-layout copy against hand-written baselines.
//!
//! - `contiguous`: row-major → row-major (one `memcpy` after coalescing) vs `copy_from_slice`,
//!   which is also the machine's memcpy bandwidth reference.
//! - `transpose`: a transposed view → row-major vs a naive double loop.
//! - `nd_to_nz`: fp16 row-major (m, n) → NZ `((16,m/16),(16,n/16)):((16,256),(1,16m))` vs a naive
//!   loop evaluating the NZ offset formula per element.
//! - `nd_to_swizzled_fp16`: fp16 row-major (rows, 64) → `Sw<3,3,3> o (rows,64):(64,1)` (the
//!   shared-memory atom, tiled) through the non-affine copy (runs cut into the swizzle's 8-element
//!   vectors) vs a naive loop evaluating
//!   `64·r + (c XOR 8·(r mod 8))`.
//!
//! Throughput is in bytes of payload copied (read once, written once).

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use layout::tensor::Tensor;
use layout::{DynLayout, Swizzle, SwizzledLayout};
use std::time::Duration;

fn contiguous(c: &mut Criterion) {
    let mut g = c.benchmark_group("contiguous");
    for &n in &[256i64, 1024, 2048] {
        let len = (n * n) as usize;
        g.throughput(Throughput::Bytes((len * 4) as u64));
        let src = Tensor::from_fn(&[n as usize, n as usize], |i| i as f32).unwrap();
        let mut dst = Tensor::from_vec(vec![0f32; len], &[n as usize, n as usize]).unwrap();
        g.bench_with_input(BenchmarkId::new("tensor_copy_from", n), &n, |b, _| {
            b.iter(|| dst.copy_from(black_box(&src)).unwrap())
        });
        let s = src.as_slice();
        let mut d = vec![0f32; len];
        g.bench_with_input(BenchmarkId::new("copy_from_slice", n), &n, |b, _| {
            b.iter(|| d.copy_from_slice(black_box(s)))
        });
    }
    g.finish();
}

fn transpose(c: &mut Criterion) {
    let mut g = c.benchmark_group("transpose");
    for &n in &[256i64, 1024, 2048] {
        let len = (n * n) as usize;
        g.throughput(Throughput::Bytes((len * 4) as u64));
        let src = Tensor::from_fn(&[n as usize, n as usize], |i| i as f32).unwrap();
        let srct = src.view().t().unwrap();
        let mut dst = Tensor::from_vec(vec![0f32; len], &[n as usize, n as usize]).unwrap();
        g.bench_with_input(BenchmarkId::new("tensor_copy_from", n), &n, |b, _| {
            b.iter(|| dst.copy_from(black_box(&srct)).unwrap())
        });
        let s = src.as_slice();
        let mut d = vec![0f32; len];
        let nu = n as usize;
        g.bench_with_input(BenchmarkId::new("naive_loop", n), &n, |b, _| {
            b.iter(|| {
                let s = black_box(s);
                for i in 0..nu {
                    for j in 0..nu {
                        d[i * nu + j] = s[j * nu + i];
                    }
                }
            })
        });
    }
    g.finish();
}

fn nd_to_nz(c: &mut Criterion) {
    let mut g = c.benchmark_group("nd_to_nz_fp16");
    for &n in &[256i64, 1024, 2048] {
        let m = n;
        let len = (m * n) as usize;
        g.throughput(Throughput::Bytes((len * 2) as u64));
        let src = Tensor::from_fn(&[m as usize, n as usize], |i| i as u16).unwrap();
        let nz: DynLayout = format!(
            "((16,{}),(16,{})):((16,256),(1,{}))",
            m / 16,
            n / 16,
            16 * m
        )
        .parse()
        .unwrap();
        let mut dst = Tensor::new(vec![0u16; len], nz).unwrap();
        g.bench_with_input(BenchmarkId::new("tensor_copy_from", n), &n, |b, _| {
            b.iter(|| dst.copy_from(black_box(&src)).unwrap())
        });
        let s = src.as_slice();
        let mut d = vec![0u16; len];
        let (mu, nu) = (m as usize, n as usize);
        let naive = |d: &mut [u16], s: &[u16]| {
            for r in 0..mu {
                for c in 0..nu {
                    let off = (r % 16) * 16 + (r / 16) * 256 + (c % 16) + (c / 16) * 16 * mu;
                    d[off] = s[r * nu + c];
                }
            }
        };
        // both paths produce the same NZ buffer
        naive(&mut d, s);
        dst.copy_from(&src).unwrap();
        assert!(d.as_slice() == dst.as_slice(), "NZ copies differ");
        g.bench_with_input(BenchmarkId::new("naive_loop", n), &n, |b, _| {
            b.iter(|| naive(&mut d, black_box(s)))
        });
    }
    g.finish();
}

fn nd_to_swizzled(c: &mut Criterion) {
    let mut g = c.benchmark_group("nd_to_swizzled_fp16");
    for &rows in &[64i64, 1024] {
        // `Sw<3,3,3> o 0 o (rows,64):(64,1)`: the 8 x 64 fp16 shared-memory atom, tiled by rows
        let len = (rows * 64) as usize;
        g.throughput(Throughput::Bytes((len * 2) as u64));
        let src = Tensor::from_fn(&[rows as usize, 64], |i| i as u16).unwrap();
        let l: DynLayout = format!("({rows},64):(64,1)").parse().unwrap();
        let sw = SwizzledLayout::new(Swizzle::new(3, 3, 3).unwrap(), 0i64, l);
        let mut dst = Tensor::new(vec![0u16; len], sw).unwrap();
        g.bench_with_input(BenchmarkId::new("tensor_copy_from", rows), &rows, |b, _| {
            b.iter(|| dst.copy_from(black_box(&src)).unwrap())
        });
        let s = src.as_slice();
        let mut d = vec![0u16; len];
        let ru = rows as usize;
        let naive = |d: &mut [u16], s: &[u16]| {
            for r in 0..ru {
                for c in 0..64 {
                    d[64 * r + (c ^ (8 * (r % 8)))] = s[r * 64 + c];
                }
            }
        };
        naive(&mut d, s);
        dst.copy_from(&src).unwrap();
        assert!(d.as_slice() == dst.as_slice(), "swizzled copies differ");
        g.bench_with_input(BenchmarkId::new("naive_loop", rows), &rows, |b, _| {
            b.iter(|| naive(&mut d, black_box(s)))
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(20)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = contiguous, transpose, nd_to_nz, nd_to_swizzled
}
criterion_main!(benches);
