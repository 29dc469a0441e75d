use layout::layout;

fn main() {
    let n = 32;
    // the same rule when the call is evaluated at run time
    let _ = layout!(logical_product((2, n) : (1, 2), (3, 4)));
}
