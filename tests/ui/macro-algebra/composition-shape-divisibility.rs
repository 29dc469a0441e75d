use layout::layout;

// indices 0,2,4 of (4,5):(1,10) are offsets 0,2,10: no layout of size 3 gives them
fn main() {
    let _ = layout!(composition((4, 5) : (1, 10), 3 : 2));
}
