use layout::layout;

// Ascend's fractals have no 64-bit element: C0 would be 4
fn main() {
    let _ = layout!(NZ<f64>(16, 16));
}
