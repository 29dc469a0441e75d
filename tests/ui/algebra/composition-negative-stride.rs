// a multi-mode A is not defined on negative indices
use layout::algebra::statics::Composition;
use layout::{DynLayout, Int, Layout, StaticLayout};

type A = Layout<(Int<2>, Int<2>), (Int<1>, Int<5>)>;
type B = Layout<Int<2>, Int<-1>>;

const R: DynLayout = <Composition<A, B> as StaticLayout>::LAYOUT;

fn main() {
    let _ = R;
}
