use layout::layout;

fn main() {
    let _ = layout!(left_inverse((2, 2) : (0, 1)));
}
