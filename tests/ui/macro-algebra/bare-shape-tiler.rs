use layout::layout;

fn main() {
    // (4,8) could be the by-mode tiler [4,8] or the 1-D layout (4,8):(1,4): refused
    let _ = layout!(zipped_divide((12, 32) : (1, 12), (4, 8)));
}
