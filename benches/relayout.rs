//! Relayout bandwidth, interleaved: each case times `Tensor::copy_from` (ours), `copy_from_slice`
//! of the same bytes (memcpy, the ceiling) and a naive loop, round-robin in one process (A B C A
//! B C …), and reports medians, GiB/s of payload (read once + written once counted once) and
//! ours as a percentage of memcpy (the median over rounds of each round's ratio, so that load
//! from other tenants, which drifts, cancels).
//!
//! `cargo bench --bench relayout` (all cases) or `cargo bench --bench relayout -- nz` (cases
//! whose name contains `nz`).

use layout::DynLayout;
use layout::tensor::Tensor;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Rounds of the three contenders; the median of each is reported.
const ROUNDS: usize = 31;

fn time(f: &mut dyn FnMut()) -> Duration {
    let t = Instant::now();
    f();
    t.elapsed()
}

/// The calling thread's CPU time (Linux): time spent descheduled, which on a shared machine
/// is most of the wall time under load, is not counted.
#[cfg(target_os = "linux")]
fn cpu_now() -> Duration {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, t: *mut Timespec) -> i32;
    }
    /// `CLOCK_THREAD_CPUTIME_ID`
    const THREAD: i32 = 3;
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `t` is a valid `struct timespec` (two 64-bit fields on 64-bit Linux) to write.
    let rc = unsafe { clock_gettime(THREAD, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    Duration::new(t.sec as u64, t.nsec as u32)
}

/// Serial contenders are timed on the thread's CPU clock where there is one (`LAYOUT_WALL=1`
/// times them on the wall clock instead).
fn time_serial(f: &mut dyn FnMut()) -> Duration {
    #[cfg(target_os = "linux")]
    if std::env::var_os("LAYOUT_WALL").is_none() {
        let t = cpu_now();
        f();
        return cpu_now() - t;
    }
    time(f)
}

fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

struct Case<'a> {
    name: String,
    bytes: usize,
    ours: Box<dyn FnMut() + 'a>,
    naive: Box<dyn FnMut() + 'a>,
    memcpy: Box<dyn FnMut() + 'a>,
    /// `par_copy_from` of the same copy, on rayon's threads.
    par: Box<dyn FnMut() + 'a>,
}

fn run(mut c: Case<'_>) {
    // warm up: touch every buffer once
    (c.ours)();
    (c.naive)();
    (c.memcpy)();
    (c.par)();
    let (mut a, mut b, mut m, mut q, mut r, mut rq) =
        (vec![], vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..ROUNDS {
        let tw = time(&mut c.ours);
        let ta = time_serial(&mut c.ours);
        let tm = time_serial(&mut c.memcpy);
        // rayon's workers sleep only after spinning idle for a while; a pause keeps them from
        // sharing the 2 vCPUs with the timed calls (see examples/harness/par_copy.rs)
        std::thread::sleep(Duration::from_millis(5));
        let tq = time(&mut c.par);
        std::thread::sleep(Duration::from_millis(5));
        a.push(ta);
        m.push(tm);
        q.push(tq);
        b.push(time_serial(&mut c.naive));
        // this round's ratios: the contenders ran back to back, under the same load
        r.push(tm.as_secs_f64() / ta.as_secs_f64());
        // wall clock against wall clock
        rq.push(tw.as_secs_f64() / tq.as_secs_f64());
    }
    let (a, b, m, q) = (
        median(&mut a),
        median(&mut b),
        median(&mut m),
        median(&mut q),
    );
    r.sort_by(f64::total_cmp);
    rq.sort_by(f64::total_cmp);
    let gib = |d: Duration| c.bytes as f64 / d.as_secs_f64() / (1u64 << 30) as f64;
    println!(
        "{:<32} {:>9.2} {:>9.2} {:>9.2} {:>8.0} % {:>7.2}x {:>9.2} {:>7.2}x",
        c.name,
        gib(a),
        gib(m),
        gib(b),
        100.0 * r[r.len() / 2],
        b.as_secs_f64() / a.as_secs_f64(),
        gib(q),
        rq[rq.len() / 2],
    );
}

/// A memcpy of `bytes` bytes between two fresh buffers.
fn memcpy_case(bytes: usize) -> Box<dyn FnMut()> {
    let s = vec![1u8; bytes];
    let mut d = vec![0u8; bytes];
    Box::new(move || d.copy_from_slice(black_box(&s)))
}

macro_rules! transpose_case {
    ($t:ty, $n:expr) => {{
        let n: i64 = $n;
        let len = (n * n) as usize;
        let src = Tensor::from_fn(&[n as usize, n as usize], |i| i as $t).unwrap();
        let lt = *src.view().t().unwrap().layout();
        let srct = Tensor::new(src.as_slice().to_vec(), lt).unwrap();
        let mut dst = Tensor::from_vec(vec![0 as $t; len], &[n as usize, n as usize]).unwrap();
        let (srct2, mut dst2) = (srct.clone(), dst.clone());
        let s = src.as_slice().to_vec();
        let mut d = vec![0 as $t; len];
        let nu = n as usize;
        Case {
            name: format!("transpose {} {n}²", stringify!($t)),
            bytes: len * std::mem::size_of::<$t>(),
            ours: Box::new(move || dst.copy_from(black_box(&srct)).unwrap()),
            par: Box::new(move || dst2.par_copy_from(black_box(&srct2)).unwrap()),
            naive: Box::new(move || {
                let s = black_box(&s);
                for i in 0..nu {
                    for j in 0..nu {
                        d[i * nu + j] = s[j * nu + i];
                    }
                }
            }),
            memcpy: memcpy_case(len * std::mem::size_of::<$t>()),
        }
    }};
}

/// ND (row-major m × n) → Ascend NZ with fractal `16 × c0` (`c0` elements of `T` per 32 bytes).
macro_rules! nd_to_nz_case {
    ($t:ty, $n:expr, $back:expr) => {{
        let n: i64 = $n;
        let m = n;
        let c0 = 32 / std::mem::size_of::<$t>() as i64;
        let len = (m * n) as usize;
        let nz: DynLayout = format!(
            "((16,{}),({c0},{})):(({c0},{}),(1,{}))",
            m / 16,
            n / c0,
            16 * c0,
            c0 * m
        )
        .parse()
        .unwrap();
        let nd = Tensor::from_fn(&[m as usize, n as usize], |i| i as $t).unwrap();
        let nzt = Tensor::new(vec![0 as $t; len], nz).unwrap();
        let s = nd.as_slice().to_vec();
        let mut d = vec![0 as $t; len];
        let (mu, nu, c) = (m as usize, n as usize, c0 as usize);
        let back: bool = $back;
        let (mut nd, mut nzt) = (nd, nzt);
        let (mut nd2, mut nzt2) = (nd.clone(), nzt.clone());
        // the NZ offset of (i, j), by the formula
        let nz_off = move |i: usize, j: usize| (j / c) * c * mu + i * c + j % c;
        Case {
            name: format!(
                "{} {} {n}²",
                if back { "nz_to_nd" } else { "nd_to_nz" },
                stringify!($t)
            ),
            bytes: len * std::mem::size_of::<$t>(),
            ours: if back {
                Box::new(move || nd.copy_from(black_box(&nzt)).unwrap())
            } else {
                Box::new(move || nzt.copy_from(black_box(&nd)).unwrap())
            },
            par: if back {
                Box::new(move || nd2.par_copy_from(black_box(&nzt2)).unwrap())
            } else {
                Box::new(move || nzt2.par_copy_from(black_box(&nd2)).unwrap())
            },
            naive: Box::new(move || {
                let s = black_box(&s);
                for i in 0..mu {
                    for j in 0..nu {
                        if back {
                            d[i * nu + j] = s[nz_off(i, j)];
                        } else {
                            d[nz_off(i, j)] = s[i * nu + j];
                        }
                    }
                }
            }),
            memcpy: memcpy_case(len * std::mem::size_of::<$t>()),
        }
    }};
}

/// NCHW → NHWC (f32), a batched transpose of C against H·W.
fn nchw_to_nhwc(n: i64, c: i64, hw: i64) -> Case<'static> {
    let len = (n * c * hw * hw) as usize;
    let src = Tensor::from_fn(&[n as usize, c as usize, hw as usize, hw as usize], |i| {
        i as f32
    })
    .unwrap();
    let view = src
        .view()
        .permute(&[0, 2, 3, 1])
        .unwrap()
        .into_dyn()
        .unwrap();
    let layout = *view.layout();
    let buf = src.as_slice().to_vec();
    let mut dst = Tensor::from_vec(
        vec![0f32; len],
        &[n as usize, hw as usize, hw as usize, c as usize],
    )
    .unwrap();
    let (buf2, mut dst2) = (buf.clone(), dst.clone());
    let s = buf.clone();
    let mut d = vec![0f32; len];
    let (nu, cu, pu) = (n as usize, c as usize, (hw * hw) as usize);
    Case {
        name: format!("nchw_to_nhwc f32 {n}x{c}x{hw}x{hw}"),
        bytes: len * 4,
        ours: Box::new(move || {
            let v = Tensor::new(&buf[..], layout).unwrap();
            dst.copy_from(black_box(&v)).unwrap()
        }),
        par: Box::new(move || {
            let v = Tensor::new(&buf2[..], layout).unwrap();
            dst2.par_copy_from(black_box(&v)).unwrap()
        }),
        naive: Box::new(move || {
            let s = black_box(&s);
            for b in 0..nu {
                for p in 0..pu {
                    for ch in 0..cu {
                        d[(b * pu + p) * cu + ch] = s[(b * cu + ch) * pu + p];
                    }
                }
            }
        }),
        memcpy: memcpy_case(len * 4),
    }
}

fn main() {
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    println!(
        "{:<32} {:>9} {:>9} {:>9} {:>10} {:>8} {:>9} {:>8}",
        "case (GiB/s of payload)",
        "ours",
        "memcpy",
        "naive",
        "% memcpy",
        "vs naive",
        "parallel",
        "speedup"
    );
    println!(
        "(parallel: par_copy_from on {} rayon threads)",
        rayon::current_num_threads()
    );
    let cases: Vec<Box<dyn Fn() -> Case<'static>>> = vec![
        Box::new(|| transpose_case!(f32, 256)),
        Box::new(|| transpose_case!(f32, 1024)),
        Box::new(|| transpose_case!(f32, 2048)),
        Box::new(|| transpose_case!(f32, 4096)),
        Box::new(|| transpose_case!(u16, 2048)),
        Box::new(|| transpose_case!(u8, 2048)),
        Box::new(|| transpose_case!(u8, 256)),
        Box::new(|| transpose_case!(u8, 512)),
        Box::new(|| transpose_case!(u8, 4096)),
        Box::new(|| transpose_case!(u16, 512)),
        Box::new(|| transpose_case!(f64, 2048)),
        Box::new(|| nd_to_nz_case!(u16, 256, false)),
        Box::new(|| nd_to_nz_case!(u16, 1024, false)),
        Box::new(|| nd_to_nz_case!(u16, 2048, false)),
        Box::new(|| nd_to_nz_case!(u16, 4096, false)),
        Box::new(|| nd_to_nz_case!(f32, 2048, false)),
        Box::new(|| nd_to_nz_case!(u8, 2048, false)),
        Box::new(|| nd_to_nz_case!(u16, 2048, true)),
        Box::new(|| nd_to_nz_case!(f32, 2048, true)),
        Box::new(|| nchw_to_nhwc(8, 64, 56)),
    ];
    for make in cases {
        let c = make();
        if filter.is_empty() || filter.iter().any(|f| c.name.contains(f.as_str())) {
            run(c);
        }
    }
}
