use layout::layout;

fn main() {
    let rows = 64.0f32;
    let _ = layout!((rows, 4) : (1, 64));
}
