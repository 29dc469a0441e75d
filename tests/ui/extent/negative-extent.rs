use layout::layout;

fn main() {
    let _ = layout!((4, -2) : (1, 4));
}
