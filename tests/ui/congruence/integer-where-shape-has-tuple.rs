use layout::layout;

fn main() {
    let _ = layout!(((2, 2), 4) : (1, (2, 8)));
}
