use layout::layout;

fn main() {
    let _ = layout!((Int<16, 4) : (1, 16));
}
