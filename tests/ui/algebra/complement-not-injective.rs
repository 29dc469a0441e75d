// pycute returns the zero-extent layout 0:2 here
use layout::algebra::statics::Complement;
use layout::{DynLayout, Int, Layout, StaticLayout};

type L = Layout<(Int<2>, Int<2>), (Int<1>, Int<1>)>;

const R: DynLayout = <Complement<L, 4> as StaticLayout>::LAYOUT;

fn main() {
    let _ = R;
}
