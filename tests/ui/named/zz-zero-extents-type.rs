use layout::Layout;

// zero extents in a named spelling in type position: one error, on the first offending token
// (no spurious syntax errors from a second `compile_error!` in the type)
type T = Layout![ZZ<f16>(0, 0)];

fn main() {
    let _ = T::default();
}
