use layout::tensor::Tensor;
use layout::{Int, Layout, gemm};

// A is 2×3 but B is 4×2: caught by the types, under `cargo check`
fn main() {
    type A = Layout<(Int<2>, Int<3>), (Int<3>, Int<1>)>;
    type B = Layout<(Int<4>, Int<2>), (Int<2>, Int<1>)>;
    type C = Layout<(Int<2>, Int<2>), (Int<1>, Int<2>)>;
    let (a, b, mut c) = ([0f32; 6], [0f32; 8], [0f32; 4]);
    let ta = Tensor::new(&a[..], A::default()).unwrap();
    let tb = Tensor::new(&b[..], B::default()).unwrap();
    let mut tc = Tensor::new(&mut c[..], C::default()).unwrap();
    gemm::gemm_static(1.0, &ta, &tb, 0.0, &mut tc);
}
