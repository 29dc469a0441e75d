use layout::layout;

fn main() {
    let _ = layout!(blocked_product((2, 2) : (1, 2), [2, 2]));
}
