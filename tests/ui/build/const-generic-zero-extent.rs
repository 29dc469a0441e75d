use layout::layout;

fn tile<const N: i64>() -> i64 {
    layout!((Int<N>, 4)).size()
}

fn main() {
    // checked when tile::<0> is instantiated by a build (rust-lang/rust#99682)
    let _ = tile::<0>();
}
