use layout::layout;

fn main() {
    // the only error is the zero extent; the layout is still a well-typed value afterwards
    let l = layout!((4, 0) : (1, 4));
    let _: i64 = l.offset((1, 2));
    let _: i64 = l.size();
    println!("{l}");
}
