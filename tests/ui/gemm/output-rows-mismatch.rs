use layout::tensor::Tensor;
use layout::{Int, Layout, gemm};

// A is 2×3, B is 3×2, but C is 3×2
fn main() {
    type A = Layout<(Int<2>, Int<3>), (Int<3>, Int<1>)>;
    type B = Layout<(Int<3>, Int<2>), (Int<2>, Int<1>)>;
    type C = Layout<(Int<3>, Int<2>), (Int<1>, Int<3>)>;
    let (a, b, mut c) = ([0f32; 6], [0f32; 6], [0f32; 6]);
    let ta = Tensor::new(&a[..], A::default()).unwrap();
    let tb = Tensor::new(&b[..], B::default()).unwrap();
    let mut tc = Tensor::new(&mut c[..], C::default()).unwrap();
    gemm::gemm_static(1.0, &ta, &tb, 0.0, &mut tc);
}
