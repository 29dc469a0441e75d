use layout::layout;

// cutlass#3177, second case
fn main() {
    let _ = layout!(composition((4, 6, 8) : (2, 3, 5), 6 : 3));
}
