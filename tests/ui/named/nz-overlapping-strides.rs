use layout::layout;

// StrideRow1 = C0 (16 elements of f16) puts row 1 of the first fractal where row 0 of the
// second is: the fractals overlap, refused while expanding
fn main() {
    let _ = layout!(NZ<f16>(32, 32, 16, 1024));
}
