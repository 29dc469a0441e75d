use layout::layout;

fn main() {
    let _ = layout!((4, 0) : (1, 4));
}
