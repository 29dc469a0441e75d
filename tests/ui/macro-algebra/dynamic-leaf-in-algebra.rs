use layout::layout;

fn main() {
    let n = 4;
    let _ = layout!(composition((n, 2) : (1, 4), 2 : 1));
}
