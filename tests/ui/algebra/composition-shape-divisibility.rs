// indices 0,2,4 of (4,5):(1,10) are offsets 0,2,10: no layout of size 3
use layout::algebra::statics::Composition;
use layout::{DynLayout, Int, Layout, StaticLayout};

type A = Layout<(Int<4>, Int<5>), (Int<1>, Int<10>)>;
type B = Layout<Int<3>, Int<2>>;

const R: DynLayout = <Composition<A, B> as StaticLayout>::LAYOUT;

fn main() {
    let _ = R;
}
