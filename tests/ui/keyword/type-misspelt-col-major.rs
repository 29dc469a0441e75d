use layout::Layout;

type A = Layout![(4, 8) : ColumnMajor];

fn main() {
    let _ = A::default();
}
