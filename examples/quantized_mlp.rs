//! One transformer MLP block — `y = (silu(x·W_gate) ⊙ (x·W_up))·W_down` — with its weights in
//! GGUF `Q4_0` (4-bit codes, one f16 scale per 32) against the same block in f32: decode
//! (1 token) and prefill (128 tokens), tokens per second and the relative error of the Q4_0
//! block's output.
//!
//! ```sh
//! cargo run --release --example quantized_mlp            # 1024 → 2752 → 1024 (LLaMA-7B / 4)
//! cargo run --release --example quantized_mlp -- 4096 11008   # LLaMA-7B's own sizes
//! ```

use std::error::Error;
use std::time::Instant;

use layout::gemm::{MatMut, MatRef, Options, QuantB, gemm_quant, gemm_with};
use layout::packed::{Q4_0Matrix, quantize_q4_0};

fn rm<T>(data: &[T], rows: usize, cols: usize) -> MatRef<'_, T> {
    MatRef {
        data,
        rows,
        cols,
        row_stride: cols as isize,
        col_stride: 1,
    }
}

fn rm_mut<T>(data: &mut [T], rows: usize, cols: usize) -> MatMut<'_, T> {
    MatMut {
        data,
        rows,
        cols,
        row_stride: cols as isize,
        col_stride: 1,
    }
}

/// Deterministic weights of standard deviation about `scale`.
fn weights(len: usize, seed: u64, scale: f32) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // the sum of two uniforms: a rough bell
            let u = (s >> 40) as f32 / (1u64 << 24) as f32
                + (s & 0xFF_FFFF) as f32 / (1u64 << 24) as f32;
            (u - 1.0) * scale * 2.45
        })
        .collect()
}

fn silu(x: f32) -> f32 {
    x / (1.0 + (-x).exp())
}

/// The block's weights in one format.
enum Weights {
    F32 {
        gate: Vec<f32>,
        up: Vec<f32>,
        down: Vec<f32>,
    },
    Q4 {
        gate: Q4_0Matrix,
        up: Q4_0Matrix,
        down: Q4_0Matrix,
    },
}

/// `y ← block(x)` for `t` tokens.
#[allow(clippy::too_many_arguments)]
fn mlp(
    w: &Weights,
    (d, h): (usize, usize),
    t: usize,
    x: &[f32],
    g: &mut [f32],
    u: &mut [f32],
    y: &mut [f32],
    int8: bool,
) -> Result<(), Box<dyn Error>> {
    let o = Options::default();
    // 8-bit activations (`QuantB::int8_activations`) or f32 ones for the Q4_0 weights
    let q = |m| {
        if int8 {
            QuantB::int8_activations(m)
        } else {
            QuantB::from(m)
        }
    };
    match w {
        Weights::F32 { gate, up, .. } => {
            gemm_with(o, 1.0, rm(x, t, d), rm(gate, d, h), 0.0, rm_mut(g, t, h))?;
            gemm_with(o, 1.0, rm(x, t, d), rm(up, d, h), 0.0, rm_mut(u, t, h))?;
        }
        Weights::Q4 { gate, up, .. } => {
            gemm_quant(o, 1.0, rm(x, t, d), q(gate), 0.0, rm_mut(g, t, h))?;
            gemm_quant(o, 1.0, rm(x, t, d), q(up), 0.0, rm_mut(u, t, h))?;
        }
    }
    for (a, &b) in g.iter_mut().zip(u.iter()) {
        *a = silu(*a) * b;
    }
    match w {
        Weights::F32 { down, .. } => {
            gemm_with(o, 1.0, rm(g, t, h), rm(down, h, d), 0.0, rm_mut(y, t, d))?
        }
        Weights::Q4 { down, .. } => gemm_quant(o, 1.0, rm(g, t, h), q(down), 0.0, rm_mut(y, t, d))?,
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let (d, h) = match args[..] {
        [d, h, ..] => (d, h),
        _ => (1024, 2752),
    };
    if d % 32 != 0 || h % 32 != 0 {
        return Err("the sizes must be multiples of 32 (Q4_0 blocks)".into());
    }
    let gate = weights(d * h, 1, 1.0 / (d as f32).sqrt());
    let up = weights(d * h, 2, 1.0 / (d as f32).sqrt());
    let down = weights(h * d, 3, 1.0 / (h as f32).sqrt());
    let q4 = Weights::Q4 {
        gate: quantize_q4_0(d, h, &gate)?,
        up: quantize_q4_0(d, h, &up)?,
        down: quantize_q4_0(h, d, &down)?,
    };
    let f32w = Weights::F32 { gate, up, down };
    println!(
        "MLP block {d} → {h} → {d}: f32 weights {} MiB, Q4_0 {} MiB",
        (3 * d * h * 4) >> 20,
        (3 * d * h / 32 * 18) >> 20
    );
    for t in [1usize, 128] {
        let x = weights(t * d, 4 + t as u64, 1.0);
        let (mut g, mut u) = (vec![0f32; t * h], vec![0f32; t * h]);
        let (mut yf, mut yq) = (vec![0f32; t * d], vec![0f32; t * d]);
        let mut time = |w: &Weights, y: &mut [f32], int8: bool| -> Result<f64, Box<dyn Error>> {
            mlp(w, (d, h), t, &x, &mut g, &mut u, y, int8)?;
            let reps = if t == 1 { 50 } else { 5 };
            let mut best = f64::MAX;
            for _ in 0..3 {
                let t0 = Instant::now();
                for _ in 0..reps {
                    mlp(w, (d, h), t, &x, &mut g, &mut u, y, int8)?;
                }
                best = best.min(t0.elapsed().as_secs_f64() / reps as f64);
            }
            Ok(best)
        };
        let mut y8 = vec![0f32; t * d];
        let tf = time(&f32w, &mut yf, false)?;
        let tq = time(&q4, &mut yq, false)?;
        let t8 = time(&q4, &mut y8, true)?;
        let err = |y: &[f32]| {
            let num: f64 = yf
                .iter()
                .zip(y)
                .map(|(a, b)| f64::from(a - b).powi(2))
                .sum();
            let den: f64 = yf.iter().map(|a| f64::from(*a).powi(2)).sum();
            (num / den.max(f64::MIN_POSITIVE)).sqrt()
        };
        let what = if t == 1 {
            "decode (1 token)"
        } else {
            "prefill (128 tokens)"
        };
        println!(
            "{what:<22} f32 {:>8.1} tok/s | Q4_0, f32 activations {:>8.1} tok/s (×{:.2}), rel. error {:.2e} | Q4_0, int8 activations {:>8.1} tok/s (×{:.2}), rel. error {:.2e}",
            t as f64 / tf,
            t as f64 / tq,
            tf / tq,
            err(&yq),
            t as f64 / t8,
            tf / t8,
            err(&y8)
        );
    }
    Ok(())
}
