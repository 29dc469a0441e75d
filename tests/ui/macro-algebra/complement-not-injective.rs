use layout::layout;

// pycute returns the zero-extent layout 0:2 here
fn main() {
    let _ = layout!(complement((2, 2) : (1, 1), 4));
}
