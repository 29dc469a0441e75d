use layout::layout;

const N: i64 = 0;

fn main() {
    // the macro cannot see N; the compiler checks it when it builds (not under cargo check)
    let _ = layout!((Int<{ N }>, 4));
}
