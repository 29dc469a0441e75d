use layout::Layout;

fn f<const M: i64, const N: i64>() -> Layout![(M, N, 2)] {
    Default::default()
}

fn main() {
    let _ = f::<2, 3>();
}
