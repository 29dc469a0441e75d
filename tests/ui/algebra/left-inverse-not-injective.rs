// no left inverse of a layout that maps two indices to one offset
use layout::algebra::statics::LeftInverse;
use layout::{DynLayout, Int, Layout, StaticLayout};

type L = Layout<(Int<2>, Int<2>), (Int<1>, Int<1>)>;

const R: DynLayout = <LeftInverse<L> as StaticLayout>::LAYOUT;

fn main() {
    let _ = R;
}
