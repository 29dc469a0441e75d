use layout::layout;

fn main() {
    let l = layout!((4, 8) : (1, 4, 32));
    let _: i64 = l.offset((1, 2));
}
