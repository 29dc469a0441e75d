use layout::layout;

// StrideColumn1 must be a whole fractal (16·C0 = 256 elements of f16): caught while expanding,
// so `cargo check` reports it
fn main() {
    let _ = layout!(NZ<f16>(32, 32, 16, 520));
}
