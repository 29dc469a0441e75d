//! Convolution as a layout: derives the im2col matrix of a small convolution with the layout
//! algebra, prints it (CuTe's text and `print_layout` table), writes an SVG of it into
//! `pictures/` (padding cells in grey), shows the strided matrix one filter tap of it is (what
//! `conv2d`'s batch-reduce reads in place), and runs `conv2d` on NCHW and NHWC tensors.
//!
//! ```sh
//! cargo run --example conv          # then open pictures/im2col.svg
//! ```

use layout::conv::{Conv2d, Im2col, conv2d};
use layout::svg::Picture;
use layout::{DynLayout, LayoutTable, Tensor};
use std::error::Error;
use std::fs;

fn main() -> Result<(), Box<dyn Error>> {
    // one 4×4 image with 2 channels, NCHW: (N,C,H,W):(sN,sC,sH,sW)
    let input: DynLayout = "(1,2,4,4):(32,16,4,1)".parse()?;
    // a 3×3 kernel, stride 1, padding 1
    let p = Conv2d::default().padding(1);
    let m = Im2col::new(&p, &input, [3, 3])?;
    println!("input layout (N,C,H,W):      {input}");
    println!("window over the padded input: {}", m.window());
    println!("im2col = input ∘ window:      {}", m.layout());
    println!("padding shift:                {}", m.shift());
    println!(
        "rows (N,OH,OW) = {}, columns (C,R,S) = {}: {} reads of {} input elements",
        m.rows(),
        m.cols(),
        m.rows() * m.cols(),
        input.size()
    );
    println!();
    // the matrix: each cell the offset it reads in the padded input's coordinates (add the
    // shift for the input's own offset; cells whose row or column is padding read zero)
    println!("{}", LayoutTable::new(m.layout())?);

    // how conv2d reads it: at a fixed tap (r, s) the rows of one output row and the channels are
    // a strided matrix over the input (the (OW, C) modes of the layout at that tap)
    let (oh_n, c_n, r_n) = (4usize, 2usize, 3usize); // OH, C, R
    let row = |oh: usize, ow: usize| oh + oh_n * ow; // (N = 1, OH, OW), colexicographic
    let col = |c: usize, r: usize, s: usize| c + c_n * (r + r_n * s); // (C, R, S)
    let at = |rr: usize, cc: usize| m.offset(rr, cc).expect("an interior element");
    let pixel_step = at(row(1, 2), col(0, 1, 1)) - at(row(1, 1), col(0, 1, 1));
    let channel_step = at(row(1, 1), col(1, 1, 1)) - at(row(1, 1), col(0, 1, 1));
    assert_eq!((pixel_step, channel_step), (1, 16)); // stride·sW and sC of this NCHW input
    println!(
        "tap (1,1): pixel step {pixel_step}, channel step {channel_step} — conv2d reads each \
         tap's (pixels × C) matrix of this layout in place as one item of a batch-reduce GEMM \
         (gemm::batch_reduce), summing one product per tap into an output tile held in \
         registers, a tap that falls in the padding for some pixels of a tile cut to the others."
    );
    println!();

    // the picture: cells coloured by input row; padding (reads zero) grey
    let colour = |r: i64, c: i64, _: i64| match m.offset(r as usize, c as usize) {
        Some(off) => (off / 4 % 4) as usize,
        None => 4,
    };
    let title = format!("im2col {}", m.layout());
    let svg = Picture::new(m.layout())?
        .colour_by(5, &colour)
        .title(&title)
        .to_svg();
    fs::create_dir_all("pictures")?;
    fs::write("pictures/im2col.svg", svg)?;
    println!("wrote pictures/im2col.svg");

    // the same input in NCHW and NHWC memory: one result
    let x: Vec<f32> = (0..32).map(|v| v as f32).collect();
    let nchw = Tensor::new(&x[..], input)?;
    let mut x2 = [0.0f32; 32];
    let mut nhwc = Tensor::new(&mut x2[..], "(1,2,4,4):(32,1,8,2)".parse::<DynLayout>()?)?;
    nhwc.copy_from(&nchw)?;
    let w: Vec<f32> = (0..3 * 2 * 9).map(|v| (v % 5) as f32 - 2.0).collect();
    let weights = Tensor::new(&w[..], "(3,2,3,3):(18,9,3,1)".parse::<DynLayout>()?)?;
    let out_layout: DynLayout = "(1,3,4,4):(48,16,4,1)".parse()?;
    let mut y1 = Tensor::new(vec![0.0f32; 48], out_layout)?;
    let mut y2 = Tensor::new(vec![0.0f32; 48], out_layout)?;
    conv2d(&p, &nchw, &weights, Some(&[1.0, 0.0, -1.0]), &mut y1)?;
    conv2d(&p, &nhwc, &weights, Some(&[1.0, 0.0, -1.0]), &mut y2)?;
    assert_eq!(y1.as_slice(), y2.as_slice());
    println!(
        "\nconv2d, output channel 0 (NCHW and NHWC inputs agree):\n{:?}",
        {
            let v = y1.view();
            (0..4)
                .map(|i| (0..4).map(|j| v[[0, 0, i, j]]).collect::<Vec<_>>())
                .collect::<Vec<_>>()
        }
    );
    Ok(())
}
