use layout::Layout;

type R = Layout![composition((i64, 2) : (1, 4), 2 : 1)];

fn main() {
    let _ = R::default();
}
