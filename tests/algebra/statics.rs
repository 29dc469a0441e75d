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

/// A failing operation on static layouts is a compile error under `cargo check`, naming the rule.
#[test]
fn static_errors_are_compile_errors() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/algebra/*.rs");
}

/// The static offset function is a compile-time computation: the whole result layout, and any
/// offset of it, can be evaluated in a `const`.
#[test]
fn static_offsets_are_compile_time_values() {
    const R: DynLayout = <Composition<A, B> as StaticLayout>::LAYOUT;
    const O5: i64 = R.offset(5);
    const TABLE: [i64; 12] = {
        let mut t = [0; 12];
        let mut i = 0;
        while i < 12 {
            t[i] = R.offset(i as i64);
            i += 1;
        }
        t
    };
    let a = dl("(6,2):(8,2)");
    let b = dl("(4,3):(3,1)");
    assert_eq!(O5, a.offset(b.offset(5)));
    for (i, &o) in TABLE.iter().enumerate() {
        assert_eq!(o, a.offset(b.offset(i as i64)));
    }
}
