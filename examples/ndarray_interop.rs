//! ndarray interop: zero-copy views both ways. Needs the `ndarray` feature:
//!
//! ```sh
//! cargo run --release --example ndarray_interop --features ndarray
//! ```
//!
//! Both crates can be glob-imported together: `layout`'s slicing macro lives in
//! `layout::tensor::s`, so `s!` below is ndarray's.

use layout::named::{f16, make_nz_layout};
use layout::tensor::{Tensor, TensorRef};
use layout::*;
use ndarray::*;
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    // ndarray -> tensor: a strided sub-block of an owned array, zero-copy and safe
    let a = Array2::from_shape_fn((32, 32), |(i, j)| (100 * i + j) as f32);
    let block = a.slice(s![8..24, 4..20]);
    let t = TensorRef::from_ndarray_in(block, a.view())?;
    println!("a.slice(s![8..24, 4..20]) as a tensor: {}", t.layout());
    assert!(t.iter().eq(block.iter()));
    assert_eq!(t.as_slice().as_ptr(), a.as_ptr()); // the same memory

    // a layout this crate knows: copy the block into Ascend's NZ (16 x 8 fractals for f32)
    let nz: DynLayout = make_nz_layout::<f32>(16, 16)?; // `DynLayout` from `layout::*`
    let mut t_nz = Tensor::new(vec![0f32; nz.cosize() as usize], nz)?;
    t_nz.copy_from(&t)?;

    // tensor -> ndarray: a typed Ix2 view of the NZ tensor? NZ's axes are not one stride each,
    // so ndarray cannot see it; the transposed ND block can be
    assert!(t_nz.as_ndarray2().is_err());
    let tt = t.t()?;
    let v: ArrayView2<f32> = tt.as_ndarray2()?;
    assert_eq!(v, block.t());
    println!(
        "transposed block back in ndarray: dim {:?}, strides {:?}",
        v.dim(),
        v.strides()
    );
    println!(
        "ndarray's own methods on it: sum {} = tensor sum {}",
        v.sum(),
        t.sum()
    );
    assert_eq!(v.sum(), t.sum());

    // every element round-trips: NZ tensor -> ND tensor -> ndarray
    let mut back = Tensor::from_vec(vec![0f32; 256], &[16, 16])?;
    back.copy_from(&t_nz)?;
    assert_eq!(back.as_ndarray2()?, block);

    // f16 data works the same way (half's type, as ndarray elements)
    let h = Array2::from_shape_fn((16, 16), |(i, j)| f16::from_f32((i * 16 + j) as f32));
    let th = TensorRef::from_ndarray(h.view())?;
    assert_eq!(th[[3, 5]], h[[3, 5]]);
    println!("ok");
    Ok(())
}
