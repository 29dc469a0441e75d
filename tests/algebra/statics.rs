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
        assert_eq!(r.offset(i), dynamic.offset(i));
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

// A failing operation on static layouts is a compile error naming the rule: the cases are
// `tests/ui/algebra/*.rs`, run by the one ui driver (`tests/ui.rs`).

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

/// Every static operation is wired to its run-time twin: same value, zero size.
#[test]
fn every_static_operation_matches_its_runtime_twin() {
    use layout::algebra::statics::*;
    type L = Layout<(Int<4>, Int<8>), (Int<1>, Int<4>)>; // (4,8):(1,4)
    type T = Layout<Int<4>, Int<2>>; // 4:2
    type Tm = (Int<2>, Underscore);
    let (l, t, tm) = (
        dl("(4,8):(1,4)"),
        dl("4:2"),
        "[2,_]".parse::<layout::Tile>().unwrap(),
    );
    macro_rules! same {
        ($z:ty, $d:expr) => {{
            assert_eq!(<$z as StaticLayout>::LAYOUT, $d, stringify!($z));
            assert_eq!(core::mem::size_of::<$z>(), 0);
        }};
    }
    same!(Coalesce<L>, l.coalesce());
    same!(Filter<L>, l.filter());
    same!(FilterZeros<L>, l.filter_zeros());
    same!(CoalesceByMode<L, (Int<1>, Int<1>)>, l.coalesce_by_mode(&dt("(1,1)")).unwrap());
    same!(Composition<L, T>, l.composition(&t).unwrap());
    same!(CompositionByMode<L, Tm>, l.composition_by_mode(&tm).unwrap());
    same!(CompositionShape<L, (Int<2>, Int<4>)>, l.composition_shape(&dt("(2,4)")).unwrap());
    same!(Complement<T, 16>, t.complement(16).unwrap());
    same!(ComplementShape<T, (Int<4>, Int<4>)>, t.complement_shape(&dt("(4,4)")).unwrap());
    same!(ComplementCosize<T>, t.complement_cosize().unwrap());
    same!(RightInverse<L>, l.right_inverse());
    same!(LeftInverse<T>, t.left_inverse().unwrap());
    same!(LogicalDivide<L, T>, l.logical_divide(&t).unwrap());
    same!(LogicalDivideByMode<L, Tm>, l.logical_divide_by_mode(&tm).unwrap());
    same!(ZippedDivide<L, T>, l.zipped_divide(&t).unwrap());
    same!(ZippedDivideByMode<L, Tm>, l.zipped_divide_by_mode(&tm).unwrap());
    same!(TiledDivide<L, T>, l.tiled_divide(&t).unwrap());
    same!(TiledDivideByMode<L, Tm>, l.tiled_divide_by_mode(&tm).unwrap());
    same!(FlatDivide<L, T>, l.flat_divide(&t).unwrap());
    same!(FlatDivideByMode<L, Tm>, l.flat_divide_by_mode(&tm).unwrap());
    same!(LogicalProduct<L, T>, l.logical_product(&t).unwrap());
    same!(LogicalProductByMode<L, Tm>, l.logical_product_by_mode(&tm).unwrap());
    same!(ZippedProduct<L, T>, l.zipped_product(&t).unwrap());
    same!(ZippedProductByMode<L, Tm>, l.zipped_product_by_mode(&tm).unwrap());
    same!(TiledProduct<L, T>, l.tiled_product(&t).unwrap());
    same!(TiledProductByMode<L, Tm>, l.tiled_product_by_mode(&tm).unwrap());
    same!(FlatProduct<L, T>, l.flat_product(&t).unwrap());
    same!(FlatProductByMode<L, Tm>, l.flat_product_by_mode(&tm).unwrap());
    same!(BlockedProduct<L, T>, l.blocked_product(&t).unwrap());
    same!(RakedProduct<L, T>, l.raked_product(&t).unwrap());
    same!(MaxCommonLayout<L, L>, l.max_common_layout(&l));
    same!(Nullspace<L>, l.nullspace());
    same!(Upcast<L, 2>, l.upcast(2).unwrap());
    same!(Downcast<L, 2>, l.downcast(2).unwrap());
    same!(RecastLayout<L, 16, 32>, l.recast_layout(16, 32).unwrap());
    // the entry points return the same types
    let r = statics::recast_layout::<_, 16, 32>(L::default());
    assert_eq!(r.to_dyn(), l.recast_layout(16, 32).unwrap());
    assert_eq!(
        statics::complement_shape(T::default(), (Int::<4>, Int::<4>)).to_dyn(),
        t.complement_shape(&dt("(4,4)")).unwrap()
    );
}
