//! `layout!(op(…))` on literal static layouts is evaluated at expansion time by layout-core's
//! algebra `const fn`s: the result must equal what the same functions give at run time on the
//! same text, be zero-sized, and name the same type through `Layout!`.

use layout::{DynLayout, DynTuple, Layout, LayoutError, StaticLayout, Tile, layout};

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
        composition((12,(4,8)):(59,(13,1)), [3,8]));
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
        flat_divide((8,8):(1,8), [2,4]));
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

// ---- Mixed operands: a dynamic leaf anywhere makes the whole call run-time ----------------

/// `mixed!(expected; op(args))`: `layout!(op(args))` with a dynamic leaf is a
/// `Result<DynLayout, LayoutError>` equal to `expected` (the `DynLayout` method on the same
/// values), errors included.
macro_rules! mixed {
    ($expected:expr; $($t:tt)*) => {{
        let got: Result<DynLayout, LayoutError> = layout!($($t)*);
        let expected: Result<DynLayout, LayoutError> = $expected;
        assert_eq!(got, expected, "{}", stringify!($($t)*));
    }};
}

/// `l` with `{n}` replaced: the run-time layout the mixed text denotes.
fn ln(s: &str, n: i64) -> DynLayout {
    l(&s.replace("{n}", &n.to_string()))
}

fn tn(s: &str, n: i64) -> DynTuple {
    t(&s.replace("{n}", &n.to_string()))
}

#[test]
fn mixed_composition_forms() {
    for n in 1..=12i64 {
        let a = ln("({n},2):(1,{n})", n);
        mixed!(a.composition(&l("4:1")); composition((n, 2) : (1, n), 4 : 1));
        mixed!(l("(6,2):(8,2)").composition(&ln("({n},3):(3,1)", n));
            composition((6,2):(8,2), (n,3):(3,1)));
        mixed!(ln("(12,(4,{n})):(59,(13,1))", n).composition_shape(&t("(3,8)"));
            composition((12,(4,n)):(59,(13,1)), [3,8]));
        mixed!(l("(12,(4,8)):(59,(13,1))").composition_shape(&tn("(3,{n})", n));
            composition((12,(4,8)):(59,(13,1)), [3,n]));
        mixed!(l("(10,2):(16,4)").composition_shape(&tn("{n}", n));
            composition((10,2):(16,4), n));
        mixed!(l("(12,(4,8)):(59,(13,1))").composition_by_mode(&tile(&format!("[3:{n},8:2]")));
            composition((12,(4,8)):(59,(13,1)), [3:n, 8:2]));
        mixed!(l("(12,(4,8)):(59,(13,1))").composition_by_mode(&tile(&format!("[_,{n}:2]")));
            composition((12,(4,8)):(59,(13,1)), [_, n:2]));
    }
}

#[test]
fn mixed_inadmissible_composition_is_the_run_time_error() {
    let n = 6;
    let got: Result<DynLayout, LayoutError> = layout!(composition((n, 2) : (1, 10), 4 : 4));
    let want = l("(6,2):(1,10)").composition(&l("4:4"));
    assert!(want.is_err());
    assert_eq!(got, want);
    // the same text with n = 4 is admissible
    let n = 4;
    mixed!(l("(4,2):(1,10)").composition(&l("4:4")); composition((n, 2) : (1, 10), 4 : 4));
}

#[test]
fn mixed_complement_and_inverses() {
    for n in 1..=12i64 {
        mixed!(ln("(2,2):(1,{n})", n).complement(24); complement((2,2):(1,n), 24));
        mixed!(l("4:2").complement(n * 4); complement(4:2, { n * 4 }));
        mixed!(l("(2,4):(1,2)").complement_shape(&tn("(4,{n})", n));
            complement((2,4):(1,2), (4,n)));
        mixed!(ln("(2,2):(1,{n})", n).complement_cosize(); complement((2,2):(1,n)));
        mixed!(Ok(ln("(4,2):({n},1)", n).right_inverse()); right_inverse((4,2):(n,1)));
        mixed!(ln("(4,2):({n},1)", n).left_inverse(); left_inverse((4,2):(n,1)));
        mixed!(Ok(ln("((2,2),{n}):((0,1),2)", n).nullspace()); nullspace(((2,2),n):((0,1),2)));
    }
}

#[test]
fn mixed_coalesce_and_filter() {
    for n in 1..=8i64 {
        let a = ln("(2,(1,{n})):(1,(6,2))", n);
        mixed!(Ok(a.coalesce()); coalesce((2,(1,n)):(1,(6,2))));
        mixed!(a.coalesce_by_mode(&t("(1,1)")); coalesce((2,(1,n)):(1,(6,2)), (1,1)));
        mixed!(Ok(ln("(4,{n},3):(1,0,4)", n).filter_zeros()); filter_zeros((4,n,3):(1,0,4)));
        mixed!(Ok(ln("(4,1,2):(1,7,{n})", n).filter()); filter((4,1,2):(1,7,n)));
    }
}

#[test]
fn mixed_divides_and_products() {
    for n in 1..=8i64 {
        let a = ln("(4,2,3):(2,1,{n})", n);
        mixed!(a.logical_divide(&l("4:2")); logical_divide((4,2,3):(2,1,n), 4:2));
        mixed!(l("(4,2,3):(2,1,8)").logical_divide(&ln("{n}:2", n));
            logical_divide((4,2,3):(2,1,8), n:2));
        let m = l("(9,(4,8)):(59,(13,1))");
        let tl = tile(&format!("[3:3,(2,{n}):(1,8)]"));
        mixed!(m.logical_divide_by_mode(&tl);
            logical_divide((9,(4,8)):(59,(13,1)), [3:3, (2,n):(1,8)]));
        mixed!(m.zipped_divide_by_mode(&tl);
            zipped_divide((9,(4,8)):(59,(13,1)), [3:3, (2,n):(1,8)]));
        mixed!(m.tiled_divide_by_mode(&tile(&format!("[3:{n},_]")));
            tiled_divide((9,(4,8)):(59,(13,1)), [3:n, _]));
        mixed!(l("(8,8):(1,8)").flat_divide_by_mode(&Tile::from_shape(&tn("(2,{n})", n)).unwrap());
            flat_divide((8,8):(1,8), [2,n]));
        let b = ln("(2,{n}):(1,2)", n);
        let tl = l("(3,4):(1,3)");
        mixed!(b.logical_product(&tl); logical_product((2,n):(1,2), (3,4):(1,3)));
        mixed!(b.zipped_product(&tl); zipped_product((2,n):(1,2), (3,4):(1,3)));
        mixed!(b.tiled_product(&tl); tiled_product((2,n):(1,2), (3,4):(1,3)));
        mixed!(b.flat_product(&tl); flat_product((2,n):(1,2), (3,4):(1,3)));
        mixed!(b.blocked_product(&tl); blocked_product((2,n):(1,2), (3,4):(1,3)));
        mixed!(b.raked_product(&tl); raked_product((2,n):(1,2), (3,4):(1,3)));
        mixed!(l("(2,2):(1,2)").logical_product_by_mode(&tile(&format!("[{n}:1,3:1]")));
            logical_product((2,2):(1,2), [n:1, 3:1]));
    }
}

#[test]
fn mixed_casts_common_vectors_and_nesting() {
    for n in 1..=8i64 {
        mixed!(ln("({n},8):(1,4)", n).upcast(2); upcast((n,8):(1,4), 2));
        mixed!(l("(4,8):(1,4)").downcast(n); downcast((4,8):(1,4), n));
        mixed!(Ok(ln("(4,8):(1,{n})", n).max_common_layout(&l("(4,8):(1,4)")));
            max_common_layout((4,8):(1,n), (4,8):(1,4)));
        let v: Result<i64, LayoutError> = layout!(max_common_vector((4,8):(1,n), (4,8):(1,16)));
        assert_eq!(
            v,
            Ok(ln("(4,8):(1,{n})", n).max_common_vector(&l("(4,8):(1,16)")))
        );
        // nested: a dynamic leaf in the inner call, and a static inner call under a dynamic one
        mixed!(ln("(6,2):({n},2)", n).composition(&l("(4,3):(3,1)")).map(|r| r.coalesce());
            coalesce(composition((6,2):(n,2), (4,3):(3,1))));
        mixed!(ln("({n},4):(1,{n})", n).composition(&l("(2,2):(1,2)").coalesce());
            composition((n,4):(1,n), coalesce((2,2):(1,2))));
        let v = ln("(4,8):(1,{n})", n).max_common_vector(&l("(4,8):(1,4)"));
        mixed!(l("(16,2):(1,16)").composition_shape(&DynTuple::leaf(v));
            composition((16,2):(1,16), max_common_vector((4,8):(1,n), (4,8):(1,4))));
    }
}

#[test]
fn mixed_leaves_are_evaluated_once() {
    let calls = core::cell::Cell::new(0);
    let n = || {
        calls.set(calls.get() + 1);
        4i64
    };
    // a compact stride reuses the dynamic extent: still one evaluation
    mixed!(l("(4,3)").composition(&l("6:2")); composition(({ n() }, 3), 6:2));
    assert_eq!(calls.get(), 1);
    mixed!(l("(8,8):(1,8)").logical_divide_by_mode(&tile("[4:1,2:1]"));
        logical_divide((8,8):(1,8), [{ n() }:1, 2:1]));
    assert_eq!(calls.get(), 2);
}

/// A const generic is a leaf the macro cannot see either: the call runs at run time.
fn with_const<const N: i64>() -> Result<DynLayout, LayoutError> {
    layout!(composition((Int<N>, 2):(1, 8), 4:1))
}

#[test]
fn mixed_const_generic_leaf() {
    assert_eq!(with_const::<4>(), l("(4,2):(1,8)").composition(&l("4:1")));
    assert_eq!(with_const::<3>(), l("(3,2):(1,8)").composition(&l("4:1")));
}
