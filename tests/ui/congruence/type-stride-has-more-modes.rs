use layout::Layout;

type A = Layout![(2, 4) : (1, 2, 8)];

fn main() {
    let _ = A::default();
}
