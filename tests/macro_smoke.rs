use layout::{DynLayout, Layout, layout};
#[test]
fn smoke() {
    let l = layout!(((2,3),(2,4)) : ((1,4),(2,12)));
    assert_eq!(core::mem::size_of_val(&l), 0);
    assert_eq!(l.to_string(), "((_2,_3),(_2,_4)):((_1,_4),(_2,_12))");
    let rows = 64usize;
    let ld = 7;
    let m = layout!((Int<16>, rows/16) : (Int<1>, ld));
    assert_eq!(m.to_string(), "(_16,4):(_1,7)");
    let c = layout!((16, rows / 16, 2));
    assert_eq!(c.to_string(), "(_16,4,_2):(_1,_16,64)");
    let r = layout!((2, rows, 3) : RowMajor);
    assert_eq!(r.to_string(), "(_2,64,_3):(192,_3,_1)");
    let n = layout!(8:-1);
    assert_eq!(n.to_string(), "_8:_-1");
    let one = layout!((8):(1));
    assert_eq!(one.to_string(), "(_8):(_1)");
    type A = Layout![(2,4):(4,1)];
    let a = A::default();
    assert_eq!(a.to_string(), "(_2,_4):(_4,_1)");
    type B = Layout![(2, i64)];
    let _ = B::default();
    let d: DynLayout = "(2,4):(4,1)".parse().unwrap();
    assert_eq!(a.to_dyn().unwrap(), d);
    const C: Layout![(2, 4)] = layout!((2, 4));
    assert_eq!(C.offset((1, 1)), 3);
}
fn generic<const N: i64>() -> String {
    layout!((Int<N>, 4)).to_string()
}
#[test]
fn generic_leaf() {
    assert_eq!(generic::<3>(), "(_3,_4):(_1,_3)");
}
