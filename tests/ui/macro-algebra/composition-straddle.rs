use layout::layout;

// cutlass#2955: C++ and pycute return (3,2):(2,3), wrong at (2,1)
fn main() {
    let _ = layout!(composition((6, 2) : (1, 7), (3, 2) : (2, 3)));
}
