// cutlass#2955: C++ and pycute return (3,2):(2,3), wrong at (2,1)
use layout::algebra::statics::Composition;
use layout::{DynLayout, Int, Layout, StaticLayout};

type A = Layout<(Int<6>, Int<2>), (Int<1>, Int<7>)>;
type B = Layout<(Int<3>, Int<2>), (Int<2>, Int<3>)>;

const R: DynLayout = <Composition<A, B> as StaticLayout>::LAYOUT;

fn main() {
    let _ = R;
}
