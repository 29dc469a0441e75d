use layout::layout;

fn main() {
    let _ = layout!((65536, 65536, 65536, 65536));
}
