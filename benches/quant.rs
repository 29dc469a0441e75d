//! Decode GEMV on quantised weights: `y = x·B`, `x` 1×k (or m×k), `B` k×n, in GGUF Q4_0 / Q8_0 and
//! GPTQ / AWQ 4-bit groups (`gemm::qgemv`, reading the stored bytes) against f32 `B` (our sgemm,
//! matrixmultiply) and against dequantise-then-sgemm. One process, the variants timed in turns
//! round after round, medians.
//!
//! Every variant rotates through enough copies of its weights (≥ 256 MiB in all) that each call
//! reads them from memory, not from the last level cache: a decode step meets each layer's
//! weights once.
//!
//! `cargo bench --bench quant` (`-- M K N THREADS ROUNDS`, default `1 4096 4096 1 15`).
//! Reports milliseconds, GB/s of weight bytes read and GFLOP/s (2·m·k·n per call). The
//! `pack_panels` rows time the prefill GEMM's packing of all of `B` (no multiplication: their
//! GFLOP/s column is meaningless; read ms and GB/s).

use std::hint::black_box;
use std::time::Instant;

use layout::gemm::{self, MatMut, MatRef, Options};
use layout::packed::{
    Group4Format, QuantRef, QuantizedB, quantize_group4, quantize_q4_0, quantize_q8_0,
};

fn data(len: usize, seed: u64) -> Vec<f32> {
    let mut s = seed | 1;
    (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 0.1
        })
        .collect()
}

/// One GEMV call on one copy of the weights: `(x, y)`.
type Call = Box<dyn Fn(&[f32], &mut [f32])>;

/// A timed variant: its name, weight bytes per call, and a closure running one call.
struct Variant {
    name: &'static str,
    bytes: usize,
    run: Box<dyn FnMut()>,
    times: Vec<f64>,
}

/// Copies needed so that the copies together exceed 256 MiB.
fn copies(bytes: usize) -> usize {
    (256usize << 20).div_ceil(bytes).clamp(2, 64)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let arg = |i: usize, d: usize| args.get(i).copied().unwrap_or(d);
    let (m, k, n, threads, rounds) = (arg(0, 1), arg(1, 4096), arg(2, 4096), arg(3, 1), arg(4, 15));
    let opts = Options {
        threads,
        ..Options::default()
    };
    println!(
        "decode GEMV {m}×{k}·{k}×{n}, {threads} thread(s), isa {:?}, {rounds} rounds",
        opts.isa
    );
    let b = data(k * n, 1);
    let x = data(m * k, 2);
    let q4 = quantize_q4_0(k, n, &b).unwrap();
    let q8 = quantize_q8_0(k, n, &b).unwrap();
    let awq = quantize_group4(k, n, &b, 128, Group4Format::Awq).unwrap();
    let gptq = quantize_group4(k, n, &b, 128, Group4Format::Gptq).unwrap();

    let mut vs: Vec<Variant> = Vec::new();
    let quant = |name: &'static str, q: QuantRef<'_>| -> Variant {
        let bytes = q.weight_bytes();
        let reps = copies(bytes);
        let owned: Vec<Call> = (0..reps)
            .map(|_| -> Call {
                match q {
                    QuantRef::Q4_0(m4) => {
                        let c = m4.clone();
                        Box::new(move |x, y| {
                            qgemv(opts, y.len() / c.n(), 1.0, x, &c, 0.0, y).unwrap()
                        })
                    }
                    QuantRef::Q8_0(m8) => {
                        let c = m8.clone();
                        Box::new(move |x, y| {
                            qgemv(opts, y.len() / c.n(), 1.0, x, &c, 0.0, y).unwrap()
                        })
                    }
                    QuantRef::Group4(g) => {
                        let c = g.clone();
                        Box::new(move |x, y| {
                            qgemv(opts, y.len() / c.n(), 1.0, x, &c, 0.0, y).unwrap()
                        })
                    }
                }
            })
            .collect();
        let x = x.clone();
        let mut y = vec![0.0f32; m * n];
        let mut i = 0;
        Variant {
            name,
            bytes,
            run: Box::new(move || {
                owned[i % owned.len()](black_box(&x), &mut y);
                black_box(&y);
                i += 1;
            }),
            times: Vec::new(),
        }
    };
    vs.push(quant("qgemv Q4_0", (&q4).into()));
    vs.push(quant("qgemv Q8_0", (&q8).into()));
    vs.push(quant("qgemv AWQ g128", (&awq).into()));
    vs.push(quant("qgemv GPTQ g128", (&gptq).into()));

    let f32_bytes = 4 * k * n;
    let bs: Vec<Vec<f32>> = (0..copies(f32_bytes)).map(|_| b.clone()).collect();
    {
        let (bs, x) = (bs.clone(), x.clone());
        let mut y = vec![0.0f32; m * n];
        let mut i = 0;
        vs.push(Variant {
            name: "f32 sgemm (ours)",
            bytes: f32_bytes,
            run: Box::new(move || {
                let bb = &bs[i % bs.len()];
                gemm::gemm_with(
                    opts,
                    1.0f32,
                    MatRef {
                        data: black_box(&x),
                        rows: m,
                        cols: k,
                        row_stride: k as isize,
                        col_stride: 1,
                    },
                    MatRef {
                        data: bb,
                        rows: k,
                        cols: n,
                        row_stride: n as isize,
                        col_stride: 1,
                    },
                    0.0,
                    MatMut {
                        data: &mut y,
                        rows: m,
                        cols: n,
                        row_stride: n as isize,
                        col_stride: 1,
                    },
                )
                .unwrap();
                i += 1;
            }),
            times: Vec::new(),
        });
    }
    if threads <= 1 {
        let (bs, x) = (bs, x.clone());
        let mut y = vec![0.0f32; m * n];
        let mut i = 0;
        vs.push(Variant {
            name: "f32 matrixmultiply",
            bytes: f32_bytes,
            run: Box::new(move || {
                let bb = &bs[i % bs.len()];
                // SAFETY: x is m×k, bb k×n, y m×n, all row-major and in bounds
                unsafe {
                    matrixmultiply::sgemm(
                        m,
                        k,
                        n,
                        1.0,
                        black_box(x.as_ptr()),
                        k as isize,
                        1,
                        bb.as_ptr(),
                        n as isize,
                        1,
                        0.0,
                        y.as_mut_ptr(),
                        n as isize,
                        1,
                    );
                }
                i += 1;
            }),
            times: Vec::new(),
        });
    }
    {
        let reps = copies(q4.weight_bytes());
        let qs: Vec<_> = (0..reps).map(|_| q4.clone()).collect();
        let x = x.clone();
        let mut y = vec![0.0f32; m * n];
        let mut i = 0;
        vs.push(Variant {
            name: "Q4_0 dequantize + sgemm",
            bytes: q4.weight_bytes(),
            run: Box::new(move || {
                let bd = qs[i % qs.len()].dequantize().unwrap();
                gemm::gemm_with(
                    opts,
                    1.0f32,
                    MatRef {
                        data: black_box(&x),
                        rows: m,
                        cols: k,
                        row_stride: k as isize,
                        col_stride: 1,
                    },
                    MatRef {
                        data: &bd,
                        rows: k,
                        cols: n,
                        row_stride: n as isize,
                        col_stride: 1,
                    },
                    0.0,
                    MatMut {
                        data: &mut y,
                        rows: m,
                        cols: n,
                        row_stride: n as isize,
                        col_stride: 1,
                    },
                )
                .unwrap();
                i += 1;
            }),
            times: Vec::new(),
        });
    }

    // the prefill packing cost: all of B dequantised into the GEMM's micro-panels (KC = 256
    // rows by NR = 6 columns, the AVX2 f32 kernel's width), one KC block at a time into one
    // reused buffer; the timed call reads every weight once
    let pack = |name: &'static str, q: QuantRef<'_>| -> Variant {
        let bytes = q.weight_bytes();
        let owned: Vec<Box<dyn QuantizedB>> = (0..copies(bytes))
            .map(|_| -> Box<dyn QuantizedB> {
                match q {
                    QuantRef::Q4_0(m) => Box::new(m.clone()),
                    QuantRef::Q8_0(m) => Box::new(m.clone()),
                    QuantRef::Group4(g) => Box::new(g.clone()),
                }
            })
            .collect();
        let (kc, nr) = (256, 6);
        let mut dst = vec![0.0f32; n.div_ceil(nr) * nr * kc];
        let mut i = 0;
        Variant {
            name,
            bytes,
            run: Box::new(move || {
                let b = &owned[i % owned.len()];
                for p0 in (0..k).step_by(kc) {
                    b.pack_panels(&mut dst, 0, p0, n, kc.min(k - p0), nr);
                    black_box(&dst);
                }
                i += 1;
            }),
            times: Vec::new(),
        }
    };
    vs.push(pack("pack_panels Q4_0", (&q4).into()));
    vs.push(pack("pack_panels Q8_0", (&q8).into()));
    vs.push(pack("pack_panels AWQ g128", (&awq).into()));
    vs.push(pack("pack_panels GPTQ g128", (&gptq).into()));

    // warm-up: one call each
    for v in vs.iter_mut() {
        (v.run)();
    }
    for _ in 0..rounds {
        for v in vs.iter_mut() {
            let t = Instant::now();
            (v.run)();
            v.times.push(t.elapsed().as_secs_f64());
        }
    }
    // accuracy against the f32 product (f64 sums of x·B with the unquantised B)
    let mut want = vec![0.0f64; m * n];
    for r in 0..m {
        for p in 0..k {
            let xv = f64::from(x[r * k + p]);
            for (w, bv) in want[r * n..(r + 1) * n]
                .iter_mut()
                .zip(&b[p * n..(p + 1) * n])
            {
                *w += xv * f64::from(*bv);
            }
        }
    }
    let norm = want.iter().map(|v| v * v).sum::<f64>().sqrt();
    println!(
        "accuracy of y = x·B against the f32 product (relative RMS error, max relative to max |y|):"
    );
    let fmts: [(&str, QuantRef<'_>); 4] = [
        ("Q4_0", (&q4).into()),
        ("Q8_0", (&q8).into()),
        ("AWQ g128", (&awq).into()),
        ("GPTQ g128", (&gptq).into()),
    ];
    let ymax = want.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    // (m > 8: also with 8-bit activations, `QuantB::int8_activations`; up to 8 rows that is
    // the decode route again)
    let stats = |y: &[f32]| {
        let err = y
            .iter()
            .zip(&want)
            .map(|(a, w)| (f64::from(*a) - w).powi(2))
            .sum::<f64>()
            .sqrt();
        let emax = y
            .iter()
            .zip(&want)
            .fold(0.0f64, |a, (v, w)| a.max((f64::from(*v) - w).abs()));
        (err / norm, emax / ymax)
    };
    for (name, q) in fmts {
        let mut y = vec![0.0f32; m * n];
        qgemv(opts, m, 1.0, &x, q, 0.0, &mut y).unwrap();
        let (rms, max) = stats(&y);
        print!("  {name}: {rms:.2e} RMS, {max:.2e} max");
        if m > 8 {
            layout::gemm::gemm_quant(
                opts,
                1.0,
                MatRef {
                    data: &x,
                    rows: m,
                    cols: k,
                    row_stride: k as isize,
                    col_stride: 1,
                },
                layout::gemm::QuantB::int8_activations(q),
                0.0,
                MatMut {
                    data: &mut y,
                    rows: m,
                    cols: n,
                    row_stride: n as isize,
                    col_stride: 1,
                },
            )
            .unwrap();
            let (rms, max) = stats(&y);
            print!("; 8-bit activations: {rms:.2e} RMS, {max:.2e} max");
        }
        println!();
    }
    let flops = 2.0 * (m * k * n) as f64;
    println!(
        "| variant | weight MB | median ms | GB/s (weights) | GFLOP/s |\n|---|---|---|---|---|"
    );
    for v in vs.iter_mut() {
        v.times.sort_by(f64::total_cmp);
        let t = v.times[v.times.len() / 2];
        println!(
            "| {} | {:.1} | {:.3} | {:.1} | {:.1} |",
            v.name,
            v.bytes as f64 / 1e6,
            t * 1e3,
            v.bytes as f64 / t / 1e9,
            flops / t / 1e9
        );
    }
}

/// Row-major `Y ← α·X·B + β·Y` through [`gemm_quant`] (the retired `qgemv`'s arguments).
#[allow(clippy::too_many_arguments)]
fn qgemv<'q>(
    opts: layout::gemm::Options,
    m: usize,
    alpha: f32,
    x: &[f32],
    q: impl Into<layout::packed::QuantRef<'q>>,
    beta: f32,
    y: &mut [f32],
) -> Result<(), layout::gemm::GemmError> {
    use layout::packed::QuantizedB;
    let q = q.into();
    let (k, n) = (q.rows(), q.cols());
    layout::gemm::gemm_quant(
        opts,
        alpha,
        layout::gemm::MatRef {
            data: x,
            rows: m,
            cols: k,
            row_stride: k as isize,
            col_stride: 1,
        },
        q,
        beta,
        layout::gemm::MatMut {
            data: y,
            rows: m,
            cols: n,
            row_stride: n as isize,
            col_stride: 1,
        },
    )
}
