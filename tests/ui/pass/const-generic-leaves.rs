use layout::layout;

use layout::{DynLayout, Int, Layout};

const K: i64 = 6;

fn tile<const N: i64>() -> Layout<(Int<N>, Int<4>), (Int<1>, Int<N>)> {
    layout!((Int<N>, 4))
}

fn main() {
    // valid const-generic and const-item leaves build, and the post-monomorphization check passes
    let t = tile::<3>();
    assert_eq!(t.to_string(), "(_3,_4):(_1,_3)");
    let k = layout!((Int<{ K }>, 2) : (1, Int<K>));
    assert_eq!(k.to_dyn().unwrap(), "(6,2):(1,6)".parse::<DynLayout>().unwrap());
    assert_eq!(core::mem::size_of_val(&k), 0);
}
