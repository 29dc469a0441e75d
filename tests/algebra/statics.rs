use crate::*;
use layout::algebra::statics::{self, Complement, Composition, LogicalDivideByMode, Underscore};
use layout::{AnyLayout, Int, Layout, StaticLayout};

type A = Layout<(Int<6>, Int<2>), (Int<8>, Int<2>)>;
type B = Layout<(Int<4>, Int<3>), (Int<3>, Int<1>)>;

#[test]
fn static_results_equal_runtime_results_and_are_zero_sized() {
    let r = statics::composition(A::default(), B::default());
    assert_eq!(core::mem::size_of_val(&r), 0);
    let dynamic = dl("(6,2):(8,2)").composition(&dl("(4,3):(3,1)")).unwrap();
    assert_eq!(Composition::<A, B>::LAYOUT, dynamic);
    assert_eq!(r.to_string(), "((_2,_2),_3):((_24,_2),_8)");
    for i in 0..12 {
        assert_eq!(r.offset(i), dynamic.offset(i));
        assert_eq!(r.offset_of_index(i), dynamic.offset(i));
    }
    assert_eq!(AnyLayout::size(&r), 12);

    type L = Layout<Int<4>, Int<2>>;
    assert_eq!(
        Complement::<L, 24>::LAYOUT,
        dl("4:2").complement(24).unwrap()
    );
    assert_eq!(core::mem::size_of::<Complement<L, 24>>(), 0);

    type M = Layout<(Int<12>, Int<32>), (Int<1>, Int<12>)>;
    let t = (Int::<4>, Underscore);
    let z = statics::logical_divide_by_mode(M::default(), t);
    assert_eq!(
        LogicalDivideByMode::<M, (Int<4>, Underscore)>::LAYOUT,
        dl("(12,32):(1,12)")
            .logical_divide_by_mode(&"[4,_]".parse().unwrap())
            .unwrap()
    );
    assert_eq!(z.to_string(), "((_4,_3),_32):((_1,_4),_12)");

    // results compose further, statically
    let inv = statics::right_inverse(r);
    assert_eq!(
        statics::RightInverse::<Composition<A, B>>::LAYOUT,
        dynamic.right_inverse()
    );
    assert_eq!(core::mem::size_of_val(&inv), 0);
}

#[test]
fn mixed_layouts_go_through_the_runtime_path() {
    let n = 6i64;
    let a = Layout::new((n, Int::<2>), (Int::<8>, Int::<2>));
    let r = a.to_dyn().unwrap().composition(&dl("(4,3):(3,1)")).unwrap();
    assert_eq!(r, Composition::<A, B>::LAYOUT);
}
