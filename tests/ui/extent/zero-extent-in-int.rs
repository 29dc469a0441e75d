use layout::layout;

fn main() {
    let _ = layout!((Int<0>, 4));
}
