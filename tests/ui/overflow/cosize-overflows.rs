use layout::layout;

fn main() {
    let _ = layout!((4, 4) : (1, 4611686018427387904));
}
