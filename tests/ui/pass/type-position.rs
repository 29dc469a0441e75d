use layout::Layout;

use layout::layout;

type Tile = Layout![((2, 3), (2, 4)) : ((1, 4), (2, 12))];
type Panel = Layout![(16, i64) : (1, 16)];

const TILE: Tile = layout!(((2, 3), (2, 4)) : ((1, 4), (2, 12)));

fn panel(cols: i64) -> Panel {
    layout!((16, cols) : (1, 16))
}

fn scaled<const M: i64>() -> Layout![(M, 8) : (8, 1)] {
    Default::default()
}

fn main() {
    assert_eq!(core::mem::size_of::<Tile>(), 0);
    assert_eq!(TILE.offset(((1, 2), (1, 3))), 1 + 8 + 2 + 36);
    assert_eq!(panel(5).to_string(), "(_16,5):(_1,_16)");
    assert_eq!(scaled::<4>().to_string(), "(_4,_8):(_8,_1)");
}
