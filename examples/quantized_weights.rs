//! Quantising weights to 4 bits (AWQ's packing, one scale and zero point per group of rows and
//! column), then multiplying activations by them: dequantise with the group layout, GEMM; then
//! the same weights in GGUF's Q4_0 and in AWQ's packed groups, multiplied without dequantising
//! for decode and prefill by the same `gemm` on tensors (it picks the route itself).
//!
//! ```sh
//! cargo run --release --example quantized_weights
//! ```

use layout::gemm::gemm;
use layout::packed::{
    Group4Format, GroupQuant, PackedFormat, PackedVec, QuantRef, QuantizedB, dequantize,
    quantize_group4, quantize_q4_0,
};
use layout::tensor::Tensor;
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    // weights W: K x N (K inputs, N outputs), groups of 32 rows per scale/zero point
    let (m, k, n, group) = (8usize, 64usize, 32usize, 32usize);
    let w = Tensor::from_fn(&[k, n], |i| ((i as f32) * 0.37).sin() * 0.5)?;
    let groups = k / group;

    // asymmetric 4-bit quantisation per (group, column): w ≈ (q - zero) · scale
    let mut scales = vec![0f32; groups * n];
    let mut zeros = vec![0u8; groups * n];
    let mut q = vec![0u8; k * n];
    for g in 0..groups {
        for j in 0..n {
            let col = (g * group..(g + 1) * group).map(|r| w[[r, j]]);
            let (lo, hi) = col.fold((f32::MAX, f32::MIN), |(a, b), x| (a.min(x), b.max(x)));
            let scale = ((hi - lo) / 15.0).max(f32::MIN_POSITIVE);
            let zero = (-lo / scale).round().clamp(0.0, 15.0);
            scales[g * n + j] = scale;
            zeros[g * n + j] = zero as u8;
            for r in g * group..(g + 1) * group {
                q[r * n + j] = (w[[r, j]] / scale + zero).round().clamp(0.0, 15.0) as u8;
            }
        }
    }
    // pack eight 4-bit values per 32-bit word in AWQ's interleaved order
    let packed = PackedVec::from_values(PackedFormat::awq(), &q)?;
    let packed_zeros = PackedVec::from_values(PackedFormat::awq(), &zeros)?;
    println!(
        "W {k}x{n} f32 ({} bytes) -> {} bytes of AWQ nibbles + {} scales",
        k * n * 4,
        packed.as_bytes().len(),
        scales.len()
    );

    // the group layout maps (k, n) to the weight's index and to its scale/zero point
    let quant = GroupQuant::awq(k, n, group)?;
    println!(
        "data layout {}, scale layout {}",
        quant.data_layout(),
        quant.meta_layout()
    );
    let w_hat = Tensor::from_vec(
        dequantize(&packed, &scales, &packed_zeros, &quant)?,
        &[k, n],
    )?;

    // Y = X · Ŵ
    let x = Tensor::from_fn(&[m, k], |i| ((i % 9) as f32 - 4.0) * 0.25)?;
    let mut y = Tensor::from_vec(vec![0f32; m * n], &[m, n])?;
    gemm(1.0, &x, &w_hat, 0.0, &mut y)?;

    // check: Ŵ by the definition (q - zero) · scale, and Y against the triple loop
    for (idx, &v) in w_hat.indexed_iter() {
        let (r, j) = (idx[0], idx[1]);
        let g = r / group;
        let want = (f32::from(q[r * n + j]) - f32::from(zeros[g * n + j])) * scales[g * n + j];
        assert_eq!(v, want, "dequantised W at ({r},{j})");
    }
    let (mut worst, mut worst_vs_f32) = (0f32, 0f32);
    for i in 0..m {
        for j in 0..n {
            let want: f32 = (0..k).map(|p| x[[i, p]] * w_hat[[p, j]]).sum();
            let exact: f32 = (0..k).map(|p| x[[i, p]] * w[[p, j]]).sum();
            worst = worst.max((y[[i, j]] - want).abs());
            worst_vs_f32 = worst_vs_f32.max((y[[i, j]] - exact).abs());
        }
    }
    assert!(
        worst <= 1e-4,
        "GEMM differs from the triple loop by {worst}"
    );
    // each weight is off by at most half a step: |ΔY| ≤ Σ|x| · max scale / 2
    let max_row = x
        .axis_iter(0)?
        .map(|r| r.iter().map(|v| v.abs()).sum::<f32>())
        .fold(0f32, f32::max);
    let bound = max_row * scales.iter().copied().fold(0f32, f32::max) / 2.0;
    assert!(worst_vs_f32 <= bound * 1.001 + 1e-5);
    println!(
        "Y = X·Ŵ ({m}x{n}): equal to the triple loop; off the f32 weights by {worst_vs_f32:.4} (bound {bound:.4})"
    );
    println!("mean |Y| = {:.4}", y.map(|v| v.abs()).mean());

    // The same weights as GGUF Q4_0 (llama.cpp's format) and as AWQ's packed groups, multiplied
    // without dequantising: `gemm` on an activation tensor and the quantized matrix reads the
    // stored bytes in place for up to eight rows (decode) and dequantises block by block
    // inside the GEMM's packing for more (prefill).
    let w_rows: Vec<f32> = (0..k * n).map(|i| w[[i / n, i % n]]).collect();
    let q4 = quantize_q4_0(k, n, &w_rows)?;
    let awq = quantize_group4(k, n, &w_rows, group, Group4Format::Awq)?;
    for (name, weights) in [("Q4_0", QuantRef::from(&q4)), ("AWQ", QuantRef::from(&awq))] {
        let w_deq = weights.dequantize()?; // only to check the products below
        for (rows, what) in [(1usize, "decode"), (48, "prefill")] {
            let x = Tensor::from_fn(&[rows, k], |i| ((i % 7) as f32 - 3.0) * 0.5)?;
            let mut y = Tensor::from_vec(vec![0f32; rows * n], &[rows, n])?;
            gemm(1.0, &x, &weights, 0.0, &mut y)?;
            let mut worst = 0f32;
            for i in 0..rows {
                for j in 0..n {
                    let want: f32 = (0..k).map(|p| x[[i, p]] * w_deq[p * n + j]).sum();
                    worst = worst.max((y[[i, j]] - want).abs() / want.abs().max(1.0));
                }
            }
            assert!(
                worst <= 1e-5,
                "{name} {what}: off the dequantised product by {worst}"
            );
            println!(
                "{name} {what} ({rows}x{k} · {k}x{n}): matches the dequantised product (relative {worst:.1e})"
            );
        }
    }
    Ok(())
}
