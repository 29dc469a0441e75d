use layout::Layout;

type A = Layout![(2, +)];

fn main() {
    let _ = A::default();
}
