use layout::layout;

fn main() {
    let _ = layout!(composition((4, 2) : (1, 4)));
}
