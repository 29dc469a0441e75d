use layout::layout;

fn main() {
    let _ = layout!(left_inverse((2, 2) : (1, 1)));
}
