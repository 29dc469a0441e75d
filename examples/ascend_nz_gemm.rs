//! The Ascend round trip: ND matrices → fractal NZ (padded to whole fractals) → GEMM on the NZ
//! operands → back to ND, checked against a plain triple loop.
//!
//! ```sh
//! cargo run --release --example ascend_nz_gemm
//! ```
//!
//! A is 40 × 24 and C is 40 × 20 in f32, whose fractal is 16 × 8 (C0 = 8): NZ pads A's rows to
//! 48 and C to 48 × 24. `Padded` keeps the logical extents, fills the padding when data goes in
//! and crops it when data comes out; the GEMM works on the padded operands, whose padding is
//! zero, so the logical block of C is exactly A·B.

use layout::gemm::gemm;
use layout::layout;
use layout::named::{Padded, make_nz_layout};
use layout::tensor::Tensor;
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    let (m, k, n) = (40usize, 24usize, 20usize);
    let a_nd = Tensor::from_fn(&[m, k], |i| ((i * 7) % 11) as f32 - 5.0)?;
    let b_nd = Tensor::from_fn(&[k, n], |i| ((i * 5) % 13) as f32 - 6.0)?;

    // ND -> NZ: A as fractals of 16 x 8, rows padded to 48 (zero-filled)
    let a_pad = Padded::new(make_nz_layout::<f32>(m, k)?, &[m, k])?;
    let a_nz = a_pad.pad_from(&a_nd, 0.0)?;
    println!(
        "A  {m}x{k} ND -> NZ {}  (padded to {:?})",
        a_nz.layout(),
        a_pad.padded()
    );

    // B stays ND (row-major) with its columns padded to C's padded width
    let c_layout = make_nz_layout::<f32>(m, n)?;
    let c_pad = Padded::new(c_layout, &[m, n])?;
    let np = c_pad.padded()[1];
    let b_rm = layout!((k, np) : RowMajor);
    let b_pad = Padded::new(b_rm, &[k, n])?.pad_from(&b_nd, 0.0)?;

    // GEMM on the NZ operands: C (NZ) = A (NZ) · B (ND); the kernel goes through the layouts
    let mut c_nz = Tensor::zeros(c_layout)?;
    gemm(1.0, &a_nz, &b_pad, 0.0, &mut c_nz)?;
    println!("C  = A·B in NZ {}", c_nz.layout());

    // NZ -> ND: crop the padding
    let c_nd = c_pad.crop_to_nd(&c_nz)?;
    assert_eq!(c_nd.dims(), [m, n]);

    // the same product by the definition, on the ND data
    let mut worst = 0f32;
    for i in 0..m {
        for j in 0..n {
            let want: f32 = (0..k).map(|p| a_nd[[i, p]] * b_nd[[p, j]]).sum();
            worst = worst.max((c_nd[[i, j]] - want).abs());
        }
    }
    assert!(worst <= 1e-3, "largest difference {worst}");
    println!(
        "C  NZ -> ND {}x{}: equal to the triple loop (largest difference {worst})",
        m, n
    );
    println!(
        "C[0..2, 0..4] =\n{}",
        c_nd.view().slice(&layout::tensor::s![0..2, 0..4])?
    );
    Ok(())
}
