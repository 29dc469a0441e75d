use layout::layout;

fn main() {
    let _ = layout!((4, 99999999999999999999) : (1, 4));
}
