use layout::layout;

fn main() {
    let _ = layout!((_, 4) : (1, 4));
}
