//! Parallel copies against serial ones, and against the memory system's own scaling:
//! `Tensor::copy_from` and `Tensor::par_copy_from` (rayon) on large relayouts, and a memcpy of
//! the same bytes on one thread and split over rayon's threads, timed in turns (serial, parallel,
//! memcpy, parallel memcpy) for 31 rounds; medians in GiB/s of payload.
//!
//! Every timed call starts after a 5 ms pause: rayon's idle workers spin for a while after a
//! parallel call, and on a machine with as many cores as workers they would slow whatever runs
//! next on the calling thread (a serial copy timed right after a parallel one measured up to 1.8×
//! slower).
//!
//! ```text
//! cargo run --release --example par_copy
//! ```

use layout::DynLayout;
use layout::tensor::Tensor;
use std::hint::black_box;
use std::time::Instant;

/// Median of `v`.
fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// Times `serial`, `par` and the two memcpys in turns; prints medians and ratios.
fn case(name: &str, bytes: usize, mut serial: impl FnMut(), mut par: impl FnMut()) {
    let src = vec![1u8; bytes];
    let mut dst = vec![0u8; bytes];
    let memcpy = |d: &mut [u8]| d.copy_from_slice(black_box(&src));
    let par_memcpy = |d: &mut [u8], s: &[u8]| {
        let t = rayon::current_num_threads();
        let chunk = bytes.div_ceil(t);
        rayon::scope(|sc| {
            for (dc, sc2) in d.chunks_mut(chunk).zip(s.chunks(chunk)) {
                sc.spawn(move |_| dc.copy_from_slice(sc2));
            }
        });
    };
    let mut t = [vec![], vec![], vec![], vec![]];
    let mut timed = |k: usize, f: &mut dyn FnMut()| {
        std::thread::sleep(std::time::Duration::from_millis(5));
        let t0 = Instant::now();
        f();
        t[k].push(t0.elapsed().as_secs_f64());
    };
    for _ in 0..31 {
        timed(0, &mut serial);
        timed(1, &mut par);
        timed(2, &mut || memcpy(&mut dst));
        timed(3, &mut || par_memcpy(&mut dst, &src));
    }
    let [a, b, c, d] = t.map(|mut v| median(&mut v));
    let g = |s: f64| bytes as f64 / s / (1u64 << 30) as f64;
    println!(
        "{name:<24} serial {:>6.2}  parallel {:>6.2} ({:.2}x)   memcpy {:>6.2}  parallel memcpy {:>6.2} ({:.2}x)",
        g(a),
        g(b),
        a / b,
        g(c),
        g(d),
        c / d
    );
}

fn main() {
    println!(
        "GiB/s of payload, {} rayon threads",
        rayon::current_num_threads()
    );
    let n: i64 = 4096;
    let nz: DynLayout = format!(
        "((16,{}),(16,{})):((16,256),(1,{}))",
        n / 16,
        n / 16,
        16 * n
    )
    .parse()
    .unwrap();
    let nd = Tensor::from_fn(&[n as usize, n as usize], |i| i as u16).unwrap();
    let mut a = Tensor::new(vec![0u16; (n * n) as usize], nz).unwrap();
    let mut b = Tensor::new(vec![0u16; (n * n) as usize], nz).unwrap();
    case(
        "nd_to_nz u16 4096²",
        (n * n * 2) as usize,
        || a.copy_from(&nd).unwrap(),
        || b.par_copy_from(&nd).unwrap(),
    );
    assert!(a.as_slice() == b.as_slice());

    let m: i64 = 2048;
    let src = Tensor::from_fn(&[m as usize, m as usize], |i| i as f32).unwrap();
    let t = src.view().t().unwrap();
    let mut c = Tensor::from_vec(vec![0f32; (m * m) as usize], &[m as usize, m as usize]).unwrap();
    let mut d = c.clone();
    case(
        "transpose f32 2048²",
        (m * m * 4) as usize,
        || c.copy_from(&t).unwrap(),
        || d.par_copy_from(&t).unwrap(),
    );
    assert!(c.as_slice() == d.as_slice());

    // 16 × 64 × 56 × 56 f32: 12 MiB, above the parallel path's 8 MiB threshold
    let x = Tensor::from_fn(&[16, 64, 56, 56], |i| i as f32).unwrap();
    let nhwc = x.view().permute(&[0, 2, 3, 1]).unwrap();
    let mut e = Tensor::from_vec(vec![0f32; 16 * 64 * 56 * 56], &[16, 56, 56, 64]).unwrap();
    let mut f = e.clone();
    case(
        "nchw_to_nhwc f32 16x64",
        16 * 64 * 56 * 56 * 4,
        || e.copy_from(&nhwc).unwrap(),
        || f.par_copy_from(&nhwc).unwrap(),
    );
    assert!(e.as_slice() == f.as_slice());
}
