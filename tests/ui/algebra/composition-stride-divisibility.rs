// cutlass#3177: CuTe C++ accepts this and returns (_2,_2):(_4,_10), wrong at index 2
use layout::algebra::statics::Composition;
use layout::{DynLayout, Int, Layout, StaticLayout};

type A = Layout<(Int<6>, Int<2>), (Int<1>, Int<10>)>;
type B = Layout<Int<4>, Int<4>>;

const R: DynLayout = <Composition<A, B> as StaticLayout>::LAYOUT;

fn main() {
    let _ = R;
}
