use layout::layout;

// a multi-mode A is not defined on negative indices
fn main() {
    let _ = layout!(composition((2, 2) : (1, 5), 2 : -1));
}
