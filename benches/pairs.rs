//! GEMM per element pair, one process, interleaved rounds, medians: f32 (the anchor), bf16 and
//! f16 (× → f32), u8×i8 and i8×i8 (→ i32), row-major operands, public API only. Prints
//! GFLOP/s (GOP/s for integers: 2·m·n·k per product) and the ratio to f32 in the same round.
//!
//! `cargo bench --bench pairs` (`-- 256 1024 1x4096x4096` picks sizes, `--threads N`;
//! `PAIRS=Q4,u8` keeps f32 and the rows whose names contain one of those words).

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

fn pairs((m, k, n): (usize, usize, usize), threads: usize) -> Vec<(&'static str, Run)> {
    let opts = Options {
        threads,
        ..Options::default()
    };
    let vals = |len: usize, seed: usize| -> Vec<i8> {
        (0..len)
            .map(|i| (((i * 7 + seed) % 15) as i8) - 7)
            .collect()
    };
    let (a, b) = (vals(m * k, 1), vals(k * n, 2));
    let af: Vec<f32> = a.iter().map(|&x| f32::from(x)).collect();
    let bf: Vec<f32> = b.iter().map(|&x| f32::from(x)).collect();
    let ab: Vec<bf16> = af.iter().map(|&x| bf16::from_f32(x)).collect();
    let bb: Vec<bf16> = bf.iter().map(|&x| bf16::from_f32(x)).collect();
    let ah: Vec<f16> = af.iter().map(|&x| f16::from_f32(x)).collect();
    let bh: Vec<f16> = bf.iter().map(|&x| f16::from_f32(x)).collect();
    let au: Vec<u8> = a.iter().map(|&x| (x + 8) as u8).collect();
    // full-range weights with 7-bit activations (`vpmaddubsw` exact) and with full-range
    // activations (past its bound: the exact i16 pair engine unless the CPU has VNNI)
    let wide = |len: usize, seed: usize, modulus: usize| -> Vec<u8> {
        (0..len)
            .map(|i| ((i * 2_654_435_761 + seed) % modulus) as u8)
            .collect()
    };
    let b8: Vec<i8> = wide(k * n, 3, 256).iter().map(|&x| x as i8).collect();
    let b8b = b8.clone();
    let a7 = wide(m * k, 5, 128);
    let a8 = wide(m * k, 7, 256);
    let (mut c7, mut c8) = (vec![0i32; m * n], vec![0i32; m * n]);
    let pbb = gemm::PackedB::new(opts.isa, mat(&bb, k, n)).unwrap();
    let pbi = gemm::PackedB::new(opts.isa, mat(&b8, k, n)).unwrap();
    let (ab2, a72) = (ab.clone(), a7.clone());
    let (mut cbp, mut cip) = (vec![0f32; m * n], vec![0i32; m * n]);
    let (mut c32, mut ch, mut cb) = (vec![0f32; m * n], vec![0f32; m * n], vec![0f32; m * n]);
    let (mut ci, mut cj) = (vec![0i32; m * n], vec![0i32; m * n]);
    let (a2, b2) = (a.clone(), b.clone());
    let pb = gemm::PackedB::new(opts.isa, mat(&bf, k, n)).unwrap();
    let af2 = af.clone();
    let af3 = af.clone();
    let q4 = layout::packed::quantize_q4_0(k, n, &bf).unwrap();
    let mut cq = vec![0f32; m * n];
    let (q4b, af4, mut cq8) = (q4.clone(), af.clone(), vec![0f32; m * n]);
    let mut cp = vec![0f32; m * n];
    // Q8_0 and AWQ (groups of 128) on the same weights: the f32 route and 8-bit activations
    let q8 = layout::packed::quantize_q8_0(k, n, &bf).unwrap();
    let awq = (k % 128 == 0).then(|| {
        layout::packed::quantize_group4(k, n, &bf, 128, layout::packed::Group4Format::Awq).unwrap()
    });
    let quant_rows: Vec<(&'static str, Run)> = [
        ("Q8_0, f32 acts", false, false),
        ("Q8_0, int8 acts", false, true),
        ("AWQ g128, f32 acts", true, false),
        ("AWQ g128, int8 acts", true, true),
    ]
    .into_iter()
    .filter(|&(_, g, _)| !g || awq.is_some())
    .map(|(name, g, int8)| -> (&'static str, Run) {
        let (q8, awq, a) = (q8.clone(), awq.clone(), af.clone());
        let mut c = vec![0f32; m * n];
        (
            name,
            Box::new(move || {
                let q: layout::packed::QuantRef<'_> = match &awq {
                    Some(w) if g => w.into(),
                    _ => (&q8).into(),
                };
                let q = if int8 {
                    gemm::QuantB::int8_activations(q)
                } else {
                    q.into()
                };
                gemm::gemm_quant(
                    opts,
                    1.0,
                    mat(black_box(&a), m, k),
                    q,
                    0.0,
                    out(&mut c, m, n),
                )
                .unwrap()
            }),
        )
    })
    .collect();
    let mut rows: Vec<(&'static str, Run)> = vec![
        (
            "f32×f32→f32",
            Box::new(move || {
                gemm::gemm_with(
                    opts,
                    1.0,
                    mat(black_box(&af), m, k),
                    mat(&bf, k, n),
                    0.0,
                    out(&mut c32, m, n),
                )
                .unwrap()
            }),
        ),
        (
            "f32, B packed",
            Box::new(move || {
                gemm::gemm_packed(
                    opts,
                    1.0,
                    mat(black_box(&af2), m, k),
                    &pb,
                    0.0,
                    out(&mut cp, m, n),
                )
                .unwrap()
            }),
        ),
        (
            "f32 × Q4_0 B",
            Box::new(move || {
                gemm::gemm_quant(
                    opts,
                    1.0,
                    mat(black_box(&af3), m, k),
                    &q4,
                    0.0,
                    out(&mut cq, m, n),
                )
                .unwrap()
            }),
        ),
        (
            "Q4_0, int8 acts",
            Box::new(move || {
                gemm::gemm_quant(
                    opts,
                    1.0,
                    mat(black_box(&af4), m, k),
                    gemm::QuantB::int8_activations(&q4b),
                    0.0,
                    out(&mut cq8, m, n),
                )
                .unwrap()
            }),
        ),
        (
            "bf16×bf16→f32",
            Box::new(move || {
                gemm::gemm_with(
                    opts,
                    1.0,
                    mat(black_box(&ab), m, k),
                    mat(&bb, k, n),
                    0.0,
                    out(&mut cb, m, n),
                )
                .unwrap()
            }),
        ),
        (
            "f16×f16→f32",
            Box::new(move || {
                gemm::gemm_with(
                    opts,
                    1.0,
                    mat(black_box(&ah), m, k),
                    mat(&bh, k, n),
                    0.0,
                    out(&mut ch, m, n),
                )
                .unwrap()
            }),
        ),
        (
            "u8×i8→i32",
            Box::new(move || {
                gemm::gemm_with(
                    opts,
                    1,
                    mat(black_box(&au), m, k),
                    mat(&b, k, n),
                    0,
                    out(&mut ci, m, n),
                )
                .unwrap()
            }),
        ),
        (
            "u8(7b)×i8 full",
            Box::new(move || {
                gemm::gemm_with(
                    opts,
                    1,
                    mat(black_box(&a7), m, k),
                    mat(&b8, k, n),
                    0,
                    out(&mut c7, m, n),
                )
                .unwrap()
            }),
        ),
        (
            "bf16, B packed",
            Box::new(move || {
                gemm::gemm_packed(
                    opts,
                    1.0,
                    mat(black_box(&ab2), m, k),
                    &pbb,
                    0.0,
                    out(&mut cbp, m, n),
                )
                .unwrap()
            }),
        ),
        (
            "u8(7b)×i8 packed",
            Box::new(move || {
                gemm::gemm_packed(
                    opts,
                    1,
                    mat(black_box(&a72), m, k),
                    &pbi,
                    0,
                    out(&mut cip, m, n),
                )
                .unwrap()
            }),
        ),
        (
            "u8×i8 full",
            Box::new(move || {
                gemm::gemm_with(
                    opts,
                    1,
                    mat(black_box(&a8), m, k),
                    mat(&b8b, k, n),
                    0,
                    out(&mut c8, m, n),
                )
                .unwrap()
            }),
        ),
        (
            "i8×i8→i32",
            Box::new(move || {
                gemm::gemm_with(
                    opts,
                    1,
                    mat(black_box(&a2), m, k),
                    mat(&b2, k, n),
                    0,
                    out(&mut cj, m, n),
                )
                .unwrap()
            }),
        ),
    ];
    rows.extend(quant_rows);
    rows
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
            sizes.push((s, s, s));
        } else if let [m, k, n] = a
            .split('x')
            .filter_map(|x| x.parse().ok())
            .collect::<Vec<usize>>()[..]
        {
            sizes.push((m, k, n));
        }
    }
    if sizes.is_empty() {
        sizes = vec![(256, 256, 256), (1024, 1024, 1024), (1, 4096, 4096)];
    }
    println!("{threads} thread(s); GFLOP/s (GOP/s), median over rounds; ratio to f32 per round");
    for (m, k, n) in sizes {
        let mut runs = pairs((m, k, n), threads);
        if let Ok(keep) = std::env::var("PAIRS") {
            let mut first = true;
            runs.retain(|(name, _)| {
                let f = std::mem::replace(&mut first, false);
                f || keep.split(',').any(|w| name.contains(w))
            });
        }
        let flops = 2.0 * (m * k * n) as f64;
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
        println!("{m}×{k}×{n}:");
        for (i, (name, _)) in runs.iter().enumerate() {
            println!(
                "  {name:<16} {:>7.1}  ×{:.2} of f32",
                median(&mut rate[i]),
                median(&mut ratio[i])
            );
        }
    }
}
