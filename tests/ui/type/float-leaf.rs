use layout::Layout;

type A = Layout![(2.5, 4)];

fn main() {
    let _ = A::default();
}
