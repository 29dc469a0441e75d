use layout::layout;

fn main() {
    let _ = layout!((2.5, 4) : (1, 2));
}
