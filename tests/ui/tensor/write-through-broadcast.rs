// A broadcast view repeats elements (stride 0), so it is a read-only `&[T]` view: writing
// through it must not compile.
use layout::tensor::Tensor;

fn main() {
    let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
    let b = t.broadcast_to(&[2, 3]).unwrap();
    b[[1, 2]] = 5.0;
}
