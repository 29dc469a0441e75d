use layout::layout;

fn main() {
    let _ = layout!((8, 4) : (1, "x"));
}
