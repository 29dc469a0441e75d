//! Named layouts: ND → padded NZ (fp16) through `Padded` and the copy engine against a naive
//! loop that fills the buffer and evaluates the NZ offset formula per element, and back
//! (crop) against the naive inverse loop.
//!
//! - `pad_view`: `Tensor::new(&mut buf, padded).copy_from(&nd)` into a preallocated buffer (the
//!   padding already filled), i.e. the copy alone;
//! - `pad_from`: `Padded::pad_from`, allocation and fill included;
//! - `naive`: `buf.fill(pad)` then one formula evaluation per element.
//!
//! Throughput is in bytes of logical payload (m·n·2).

use criterion::{BenchmarkId, Criterion, Throughput, black_box, criterion_group, criterion_main};
use layout::named::{Padded, f16, make_nz_layout};
use layout::tensor::Tensor;
use std::time::Duration;

fn nz_offset(r: usize, c: usize, m_pad: usize) -> usize {
    (r % 16) * 16 + (r / 16) * 256 + c % 16 + (c / 16) * 16 * m_pad
}

fn nd_to_padded_nz(c: &mut Criterion) {
    let mut g = c.benchmark_group("nd_to_padded_nz_fp16");
    for &(m, n) in &[(100usize, 30usize), (1000, 1000), (2000, 1500)] {
        g.throughput(Throughput::Bytes((m * n * 2) as u64));
        let l = make_nz_layout::<f16>(m, n).unwrap();
        let p = Padded::new(l, &[m, n]).unwrap();
        let nd = Tensor::from_fn(&[m, n], |i| i as u16).unwrap();
        let len = l.cosize() as usize;
        let id = format!("{m}x{n}");
        let mut buf = vec![0u16; len];
        g.bench_with_input(BenchmarkId::new("pad_view", &id), &m, |b, _| {
            b.iter(|| {
                Tensor::new(&mut buf[..], p)
                    .unwrap()
                    .copy_from(black_box(&nd))
                    .unwrap()
            })
        });
        g.bench_with_input(BenchmarkId::new("pad_from", &id), &m, |b, _| {
            b.iter(|| p.pad_from(black_box(&nd), 0).unwrap())
        });
        let (mu, nu, mp) = (m, n, m.div_ceil(16) * 16);
        let s = nd.as_slice();
        g.bench_with_input(BenchmarkId::new("naive", &id), &m, |b, _| {
            b.iter(|| {
                buf.fill(0);
                let s = black_box(s);
                for r in 0..mu {
                    for c in 0..nu {
                        buf[nz_offset(r, c, mp)] = s[r * nu + c];
                    }
                }
            })
        });
        let t = p.pad_from(&nd, 0).unwrap();
        g.bench_with_input(BenchmarkId::new("crop_to_nd", &id), &m, |b, _| {
            b.iter(|| p.crop_to_nd(black_box(&t)).unwrap())
        });
        let mut out = vec![0u16; mu * nu];
        let tb = t.as_slice();
        g.bench_with_input(BenchmarkId::new("naive_crop", &id), &m, |b, _| {
            b.iter(|| {
                let tb = black_box(tb);
                for r in 0..mu {
                    for c in 0..nu {
                        out[r * nu + c] = tb[nz_offset(r, c, mp)];
                    }
                }
            })
        });
    }
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = nd_to_padded_nz
}
criterion_main!(benches);
