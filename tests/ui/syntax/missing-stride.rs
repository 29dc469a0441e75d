use layout::layout;

fn main() {
    let _ = layout!((2, 3) :);
}
