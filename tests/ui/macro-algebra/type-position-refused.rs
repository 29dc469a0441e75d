use layout::Layout;

type R = Layout![composition((6, 2) : (1, 10), 4 : 4)];

fn main() {
    let _ = R::default();
}
