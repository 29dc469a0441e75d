use layout::layout;

fn main() {
    // one mistake per leaf: every one is reported, in one compilation
    let _ = layout!((0, 2.5, -3) : (1, "x"));
}
