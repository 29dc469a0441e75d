use layout::layout;

// cutlass#3177: CuTe C++ accepts this and returns a layout that is wrong at index 2
fn main() {
    let _ = layout!(composition((6, 2) : (1, 10), 4 : 4));
}
