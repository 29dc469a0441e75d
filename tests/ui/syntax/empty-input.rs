use layout::layout;

fn main() {
    let _ = layout!();
}
