use layout::layout;

fn main() {
    let _ = layout!((4, 8) : RowMajr);
}
