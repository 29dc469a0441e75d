use layout::layout;

fn main() {
    let _ = layout!((1, 2, 3, 4, 5, 6, 7, 8, 9));
}
