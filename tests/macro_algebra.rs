//! `layout!(op(…))` on literal static layouts is evaluated at expansion time by layout-core's
//! algebra `const fn`s: the result must equal what the same functions give at run time on the
//! same text, be zero-sized, and name the same type through `Layout!`.

use layout::{DynLayout, DynTuple, Layout, StaticLayout, Tile, layout};

fn l(s: &str) -> DynLayout {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn t(s: &str) -> DynTuple {
    s.parse().unwrap()
}

fn tile(s: &str) -> Tile {
    s.parse().unwrap()
}

/// `same!(expected run-time value; op(args))`: the macro's static result equals `expected`,
/// as a value and printed, is zero-sized, and `Layout![op(args)]` is its type.
macro_rules! same {
    ($expected:expr; $($t:tt)*) => {{
        const R: Layout![$($t)*] = layout!($($t)*);
        let expected: DynLayout = $expected;
        assert_eq!(core::mem::size_of_val(&R), 0);
        assert_eq!(<Layout![$($t)*] as StaticLayout>::LAYOUT, expected, "{}", stringify!($($t)*));
        assert_eq!(R.to_string().replace('_', ""), expected.to_string());
    }};
}

#[test]
fn composition_forms() {
    same!(l("(6,2):(8,2)").composition(&l("(4,3):(3,1)")).unwrap();
        composition((6,2):(8,2), (4,3):(3,1)));
    assert_eq!(
        layout!(composition((6,2):(8,2), (4,3):(3,1))).to_string(),
        "((_2,_2),_3):((_24,_2),_8)"
    );
    same!(l("(12,(4,8)):(59,(13,1))").composition_by_mode(&tile("[3:4,8:2]")).unwrap();
        composition((12,(4,8)):(59,(13,1)), [3:4, 8:2]));
    same!(l("(12,(4,8)):(59,(13,1))").composition_shape(&t("(3,8)")).unwrap();
        composition((12,(4,8)):(59,(13,1)), (3,8)));
    same!(l("(10,2):(16,4)").composition_shape(&t("5")).unwrap();
        composition((10,2):(16,4), 5));
    same!(l("20:2").composition(&l("(5,4):(4,1)")).unwrap();
        composition(20:2, (5,4):(4,1)));
    // nested operations
    same!(l("(6,2):(8,2)").composition(&l("(4,3):(3,1)")).unwrap().coalesce();
        coalesce(composition((6,2):(8,2), (4,3):(3,1))));
}

#[test]
fn complement_and_inverses() {
    same!(l("4:2").complement(24).unwrap(); complement(4:2, 24));
    same!(l("(2,2):(1,6)").complement(24).unwrap(); complement((2,2):(1,6), 24));
    same!(l("(2,4):(1,2)").complement_shape(&t("(4,8)")).unwrap(); complement((2,4):(1,2), (4,8)));
    same!(l("(2,2):(1,4)").complement_cosize().unwrap(); complement((2,2):(1,4)));
    same!(l("(4,2):(2,1)").right_inverse(); right_inverse((4,2):(2,1)));
    same!(l("(4,2):(2,1)").left_inverse().unwrap(); left_inverse((4,2):(2,1)));
    same!(l("((2,2),4):((0,1),2)").nullspace(); nullspace(((2,2),4):((0,1),2)));
}

#[test]
fn coalesce_and_filter() {
    same!(l("(2,(1,6)):(1,(6,2))").coalesce(); coalesce((2,(1,6)):(1,(6,2))));
    same!(l("(2,(1,6)):(1,(6,2))").coalesce_by_mode(&t("(1,1)")).unwrap();
        coalesce((2,(1,6)):(1,(6,2)), (1,1)));
    same!(l("(4,2,3):(1,0,4)").filter_zeros(); filter_zeros((4,2,3):(1,0,4)));
    same!(l("(4,1,2):(1,7,0)").filter(); filter((4,1,2):(1,7,0)));
}

#[test]
fn divides_and_products() {
    let a = l("(4,2,3):(2,1,8)");
    same!(a.logical_divide(&l("4:2")).unwrap(); logical_divide((4,2,3):(2,1,8), 4:2));
    let m = l("(9,(4,8)):(59,(13,1))");
    same!(m.logical_divide_by_mode(&tile("[3:3,(2,4):(1,8)]")).unwrap();
        logical_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)]));
    same!(m.zipped_divide_by_mode(&tile("[3:3,(2,4):(1,8)]")).unwrap();
        zipped_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)]));
    same!(m.tiled_divide_by_mode(&tile("[3:3,_]")).unwrap();
        tiled_divide((9,(4,8)):(59,(13,1)), [3:3, _]));
    same!(l("(8,8):(1,8)").flat_divide_by_mode(&Tile::from_shape(&t("(2,4)")).unwrap()).unwrap();
        flat_divide((8,8):(1,8), (2,4)));
    let b = l("(2,2):(1,2)");
    let tl = l("(3,4):(1,3)");
    same!(b.logical_product(&tl).unwrap(); logical_product((2,2):(1,2), (3,4):(1,3)));
    same!(b.zipped_product(&tl).unwrap(); zipped_product((2,2):(1,2), (3,4):(1,3)));
    same!(b.tiled_product(&tl).unwrap(); tiled_product((2,2):(1,2), (3,4):(1,3)));
    same!(b.flat_product(&tl).unwrap(); flat_product((2,2):(1,2), (3,4):(1,3)));
    same!(b.blocked_product(&tl).unwrap(); blocked_product((2,2):(1,2), (3,4):(1,3)));
    same!(b.raked_product(&tl).unwrap(); raked_product((2,2):(1,2), (3,4):(1,3)));
}

#[test]
fn casts_and_common_vectors() {
    same!(l("(4,8):(1,4)").upcast(2).unwrap(); upcast((4,8):(1,4), 2));
    same!(l("(4,8):(1,4)").downcast(2).unwrap(); downcast((4,8):(1,4), 2));
    same!(l("(4,8):(1,4)").max_common_layout(&l("(4,8):(1,4)"));
        max_common_layout((4,8):(1,4), (4,8):(1,4)));
    let v = layout!(max_common_vector((4,8):(1,4), (4,8):(1,16)));
    assert_eq!(
        v.get(),
        l("(4,8):(1,4)").max_common_vector(&l("(4,8):(1,16)"))
    );
    let _: Layout![max_common_vector((4,8):(1,4), (4,8):(1,16))] = v;
}
