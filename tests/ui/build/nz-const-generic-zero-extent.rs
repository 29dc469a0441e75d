use layout::named::{Nz, f16};

// the static named type with a zero extent: the compile-time failure names both extents
fn main() {
    let _ = Nz::<f16, 0, 16>::new();
}
