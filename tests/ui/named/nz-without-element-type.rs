use layout::layout;

fn main() {
    let _ = layout!(NZ(16, 16));
}
