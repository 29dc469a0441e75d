//! Every entry of the table of operations (`layout::algebra::ops::Op::ALL`) is reachable through
//! all four front ends — the macro's expansion-time path (`layout!` on literal layouts), its
//! run-time path (`layout!` with a dynamic leaf), the calculator (`layout-calc`), and the static
//! layer (`algebra::statics`) — and they agree with the table's own evaluation. `case` is an
//! exhaustive `match` over `Op`: a new table entry does not compile until it has its case here.
//! Where CuTe's documentation gives the result, it is checked too (independent numbers). For the
//! named layouts' entries the static layer is the named zero-sized types (`named::Nz<T, M, N>`);
//! their independent numbers are in tests/named/.

use layout::algebra::ops::{Arg, Op, OpError, Value};
use layout::algebra::statics::{self, Underscore};
use layout::named::{self, blocked};
use layout::{DynLayout, DynTuple, Int, LayoutError, StaticLayout, layout};

mod calc_support;

fn l(s: &str) -> Arg {
    Arg::Layout(s.parse().unwrap())
}
fn sh(s: &str) -> Arg {
    Arg::Shape(s.parse().unwrap())
}
fn tl(s: &str) -> Arg {
    Arg::Tile(s.parse().unwrap())
}

/// One call written for every front end.
struct Case {
    /// The calculator line.
    calc: &'static str,
    /// The same arguments for the table.
    args: Vec<Arg>,
    /// `layout!(op(literal))`.
    macro_static: Value,
    /// `layout!(op(…n…))` with a dynamic leaf `n` of the same value.
    macro_dynamic: Result<Value, LayoutError>,
    /// The static layer's zero-sized result.
    statics: Value,
    /// CuTe's documented result, when there is one.
    cute: Option<&'static str>,
}

fn v<L: StaticLayout>(_: L) -> Value {
    Value::Layout(L::LAYOUT)
}
fn d(r: Result<DynLayout, LayoutError>) -> Result<Value, LayoutError> {
    r.map(Value::Layout)
}

fn case(op: Op) -> Case {
    let n2 = std::hint::black_box(2i64);
    let n4 = std::hint::black_box(4i64);
    let n6 = std::hint::black_box(6i64);
    let n8 = std::hint::black_box(8i64);
    let n32 = std::hint::black_box(32i64);
    let n20 = std::hint::black_box(20i64);
    match op {
        Op::Coalesce => Case {
            calc: "coalesce((2,(1,6)):(1,(6,2)))",
            args: vec![l("(2,(1,6)):(1,(6,2))")],
            macro_static: v(layout!(coalesce((2,(1,6)):(1,(6,2))))),
            macro_dynamic: d(layout!(coalesce((2,(1,n6)):(1,(6,2))))),
            statics: v(statics::coalesce(layout!((2,(1,6)):(1,(6,2))))),
            cute: Some("12:1"),
        },
        Op::CoalesceByMode => Case {
            calc: "coalesce((2,(1,6)):(1,(6,2)), (1,1))",
            args: vec![l("(2,(1,6)):(1,(6,2))"), sh("(1,1)")],
            macro_static: v(layout!(coalesce((2,(1,6)):(1,(6,2)), (1,1)))),
            macro_dynamic: d(layout!(coalesce((2,(1,n6)):(1,(6,2)), (1,1)))),
            statics: v(statics::coalesce_by_mode(
                layout!((2,(1,6)):(1,(6,2))),
                (Int::<1>, Int::<1>),
            )),
            cute: Some("(2,6):(1,2)"),
        },
        Op::FilterZeros => Case {
            calc: "filter_zeros((4,2,3):(1,0,4))",
            args: vec![l("(4,2,3):(1,0,4)")],
            macro_static: v(layout!(filter_zeros((4,2,3):(1,0,4)))),
            macro_dynamic: d(layout!(filter_zeros((n4,2,3):(1,0,4)))),
            statics: v(statics::filter_zeros(layout!((4,2,3):(1,0,4)))),
            cute: None,
        },
        Op::Filter => Case {
            calc: "filter((2,1,3):(0,5,2))",
            args: vec![l("(2,1,3):(0,5,2)")],
            macro_static: v(layout!(filter((2,1,3):(0,5,2)))),
            macro_dynamic: d(layout!(filter((n2,1,3):(0,5,2)))),
            statics: v(statics::filter(layout!((2,1,3):(0,5,2)))),
            cute: Some("3:2"),
        },
        Op::Composition => Case {
            calc: "composition((6,2):(8,2), (4,3):(3,1))",
            args: vec![l("(6,2):(8,2)"), l("(4,3):(3,1)")],
            macro_static: v(layout!(composition((6,2):(8,2), (4,3):(3,1)))),
            macro_dynamic: d(layout!(composition((n6,2):(8,2), (4,3):(3,1)))),
            statics: v(statics::composition(
                layout!((6,2):(8,2)),
                layout!((4,3):(3,1)),
            )),
            cute: Some("((2,2),3):((24,2),8)"),
        },
        Op::ComplementCosize => Case {
            calc: "complement((2,2):(1,4))",
            args: vec![l("(2,2):(1,4)")],
            macro_static: v(layout!(complement((2,2):(1,4)))),
            macro_dynamic: d(layout!(complement((n2,2):(1,4)))),
            statics: v(statics::complement_cosize(layout!((2,2):(1,4)))),
            cute: None,
        },
        Op::Complement => Case {
            calc: "complement(4:2, 24)",
            args: vec![l("4:2"), sh("24")],
            macro_static: v(layout!(complement(4:2, 24))),
            macro_dynamic: d(layout!(complement(n4:2, 24))),
            statics: v(statics::complement::<_, 24>(layout!(4:2))),
            cute: Some("(2,3):(1,8)"),
        },
        Op::RightInverse => Case {
            calc: "right_inverse((4,2):(2,1))",
            args: vec![l("(4,2):(2,1)")],
            macro_static: v(layout!(right_inverse((4,2):(2,1)))),
            macro_dynamic: d(layout!(right_inverse((n4,2):(2,1)))),
            statics: v(statics::right_inverse(layout!((4,2):(2,1)))),
            cute: None,
        },
        Op::LeftInverse => Case {
            calc: "left_inverse((4,2):(2,1))",
            args: vec![l("(4,2):(2,1)")],
            macro_static: v(layout!(left_inverse((4,2):(2,1)))),
            macro_dynamic: d(layout!(left_inverse((n4,2):(2,1)))),
            statics: v(statics::left_inverse(layout!((4,2):(2,1)))),
            cute: None,
        },
        Op::LogicalDivide => Case {
            calc: "logical_divide((4,2,3):(2,1,8), 4:2)",
            args: vec![l("(4,2,3):(2,1,8)"), l("4:2")],
            macro_static: v(layout!(logical_divide((4,2,3):(2,1,8), 4:2))),
            macro_dynamic: d(layout!(logical_divide((n4,2,3):(2,1,8), 4:2))),
            statics: v(statics::logical_divide(
                layout!((4,2,3):(2,1,8)),
                layout!(4:2),
            )),
            cute: Some("((2,2),(2,3)):((4,1),(2,8))"),
        },
        Op::ZippedDivide => Case {
            calc: "zipped_divide((12,32):(1,12), [4,8])",
            args: vec![l("(12,32):(1,12)"), tl("[4,8]")],
            macro_static: v(layout!(zipped_divide((12,32):(1,12), [4,8]))),
            macro_dynamic: d(layout!(zipped_divide((12,32):(1,12), [n4,8]))),
            statics: v(statics::zipped_divide_by_mode(
                layout!((12,32):(1,12)),
                (Int::<4>, Int::<8>),
            )),
            cute: Some("((4,8),(3,4)):((1,12),(4,96))"),
        },
        Op::TiledDivide => Case {
            calc: "tiled_divide((12,32):(1,12), [4,_])",
            args: vec![l("(12,32):(1,12)"), tl("[4,_]")],
            macro_static: v(layout!(tiled_divide((12,32):(1,12), [4,_]))),
            macro_dynamic: d(layout!(tiled_divide((12,n32):(1,12), [4,_]))),
            statics: v(statics::tiled_divide_by_mode(
                layout!((12,32):(1,12)),
                (Int::<4>, Underscore),
            )),
            cute: None,
        },
        Op::FlatDivide => Case {
            calc: "flat_divide((12,32):(1,12), [4,8])",
            args: vec![l("(12,32):(1,12)"), tl("[4,8]")],
            macro_static: v(layout!(flat_divide((12,32):(1,12), [4,8]))),
            macro_dynamic: d(layout!(flat_divide((12,32):(1,12), [4,n8]))),
            statics: v(statics::flat_divide_by_mode(
                layout!((12,32):(1,12)),
                (Int::<4>, Int::<8>),
            )),
            cute: Some("(4,8,3,4):(1,12,4,96)"),
        },
        Op::LogicalProduct => Case {
            calc: "logical_product((2,2):(4,1), 6:1)",
            args: vec![l("(2,2):(4,1)"), l("6:1")],
            macro_static: v(layout!(logical_product((2,2):(4,1), 6:1))),
            macro_dynamic: d(layout!(logical_product((2,2):(4,1), n6:1))),
            statics: v(statics::logical_product(layout!((2,2):(4,1)), layout!(6:1))),
            cute: Some("((2,2),(2,3)):((4,1),(2,8))"),
        },
        Op::ZippedProduct => Case {
            calc: "zipped_product((2,2):(1,2), (3,4):(1,3))",
            args: vec![l("(2,2):(1,2)"), l("(3,4):(1,3)")],
            macro_static: v(layout!(zipped_product((2,2):(1,2), (3,4):(1,3)))),
            macro_dynamic: d(layout!(zipped_product((n2,2):(1,2), (3,4):(1,3)))),
            statics: v(statics::zipped_product(
                layout!((2,2):(1,2)),
                layout!((3,4):(1,3)),
            )),
            cute: None,
        },
        Op::TiledProduct => Case {
            calc: "tiled_product((2,2):(1,2), [3,4])",
            args: vec![l("(2,2):(1,2)"), tl("[3,4]")],
            macro_static: v(layout!(tiled_product((2,2):(1,2), [3,4]))),
            macro_dynamic: d(layout!(tiled_product((2,2):(1,n2), [3,4]))),
            statics: v(statics::tiled_product_by_mode(
                layout!((2,2):(1,2)),
                (Int::<3>, Int::<4>),
            )),
            cute: None,
        },
        Op::FlatProduct => Case {
            calc: "flat_product((2,2):(1,2), (3,4):(1,3))",
            args: vec![l("(2,2):(1,2)"), l("(3,4):(1,3)")],
            macro_static: v(layout!(flat_product((2,2):(1,2), (3,4):(1,3)))),
            macro_dynamic: d(layout!(flat_product((2,2):(1,2), (3,n4):(1,3)))),
            statics: v(statics::flat_product(
                layout!((2,2):(1,2)),
                layout!((3,4):(1,3)),
            )),
            cute: None,
        },
        Op::BlockedProduct => Case {
            calc: "blocked_product((2,5):(5,1), (3,4):(1,3))",
            args: vec![l("(2,5):(5,1)"), l("(3,4):(1,3)")],
            macro_static: v(layout!(blocked_product((2,5):(5,1), (3,4):(1,3)))),
            macro_dynamic: d(layout!(blocked_product((n2,5):(5,1), (3,4):(1,3)))),
            statics: v(statics::blocked_product(
                layout!((2,5):(5,1)),
                layout!((3,4):(1,3)),
            )),
            cute: Some("((2,3),(5,4)):((5,10),(1,30))"),
        },
        Op::RakedProduct => Case {
            calc: "raked_product((2,5):(5,1), (3,4):(1,3))",
            args: vec![l("(2,5):(5,1)"), l("(3,4):(1,3)")],
            macro_static: v(layout!(raked_product((2,5):(5,1), (3,4):(1,3)))),
            macro_dynamic: d(layout!(raked_product((2,5):(5,1), (3,n4):(1,3)))),
            statics: v(statics::raked_product(
                layout!((2,5):(5,1)),
                layout!((3,4):(1,3)),
            )),
            cute: Some("((3,2),(4,5)):((10,5),(30,1))"),
        },
        Op::MaxCommonLayout => Case {
            calc: "max_common_layout((4,8):(1,4), (4,8):(1,8))",
            args: vec![l("(4,8):(1,4)"), l("(4,8):(1,8)")],
            macro_static: v(layout!(max_common_layout((4,8):(1,4), (4,8):(1,8)))),
            macro_dynamic: d(layout!(max_common_layout((4,8):(1,n4), (4,8):(1,8)))),
            statics: v(statics::max_common_layout(
                layout!((4,8):(1,4)),
                layout!((4,8):(1,8)),
            )),
            cute: None,
        },
        Op::MaxCommonVector => Case {
            calc: "max_common_vector((4,8):(1,4), (4,8):(1,8))",
            args: vec![l("(4,8):(1,4)"), l("(4,8):(1,8)")],
            macro_static: Value::Int(layout!(max_common_vector((4,8):(1,4), (4,8):(1,8))).get()),
            macro_dynamic: layout!(max_common_vector((4,8):(1,n4), (4,8):(1,8))).map(Value::Int),
            statics: Value::Int(
                statics::max_common_vector(layout!((4,8):(1,4)), layout!((4,8):(1,8))).get(),
            ),
            cute: Some("4"),
        },
        Op::Nullspace => Case {
            calc: "nullspace((2,3,4):(0,1,0))",
            args: vec![l("(2,3,4):(0,1,0)")],
            macro_static: v(layout!(nullspace((2,3,4):(0,1,0)))),
            macro_dynamic: d(layout!(nullspace((2,3,n4):(0,1,0)))),
            statics: v(statics::nullspace(layout!((2,3,4):(0,1,0)))),
            cute: Some("(2,4):(1,6)"),
        },
        Op::Upcast => Case {
            calc: "upcast((4,8):(1,4), 2)",
            args: vec![l("(4,8):(1,4)"), sh("2")],
            macro_static: v(layout!(upcast((4,8):(1,4), 2))),
            macro_dynamic: d(layout!(upcast((4,8):(1,4), n2))),
            statics: v(statics::upcast::<_, 2>(layout!((4,8):(1,4)))),
            cute: Some("(2,8):(1,2)"),
        },
        Op::Downcast => Case {
            calc: "downcast((4,8):(1,4), 2)",
            args: vec![l("(4,8):(1,4)"), sh("2")],
            macro_static: v(layout!(downcast((4,8):(1,4), 2))),
            macro_dynamic: d(layout!(downcast((n4,8):(1,4), 2))),
            statics: v(statics::downcast::<_, 2>(layout!((4,8):(1,4)))),
            cute: Some("(8,8):(1,8)"),
        },
        Op::CoalesceZ => Case {
            calc: "coalesce_z((2,1,6,1):(1,7,8,0))",
            args: vec![l("(2,1,6,1):(1,7,8,0)")],
            macro_static: v(layout!(coalesce_z((2,1,6,1):(1,7,8,0)))),
            macro_dynamic: d(layout!(coalesce_z((n2,1,6,1):(1,7,8,0)))),
            statics: v(statics::coalesce_z(layout!((2,1,6,1):(1,7,8,0)))),
            // PyCuTe's documented example
            cute: Some("(2,6,1):(1,8,0)"),
        },
        Op::LayoutAdd => Case {
            calc: "layout_add((4,3):(1,4), (4,3):(3,1))",
            args: vec![l("(4,3):(1,4)"), l("(4,3):(3,1)")],
            macro_static: v(layout!(layout_add((4,3):(1,4), (4,3):(3,1)))),
            macro_dynamic: d(layout!(layout_add((n4,3):(1,4), (4,3):(3,1)))),
            statics: v(statics::layout_add(
                layout!((4,3):(1,4)),
                layout!((4,3):(3,1)),
            )),
            cute: Some("(4,3):(4,5)"),
        },
        Op::GreatestCommonDomain => Case {
            calc: "greatest_common_domain((5,3,4):(1,5,15), (10,6):(1,10))",
            args: vec![l("(5,3,4):(1,5,15)"), l("(10,6):(1,10)")],
            macro_static: v(layout!(greatest_common_domain((5,3,4):(1,5,15), (10,6):(1,10)))),
            macro_dynamic: d(layout!(greatest_common_domain((5,3,n4):(1,5,15), (10,6):(1,10)))),
            statics: v(statics::greatest_common_domain(
                layout!((5,3,4):(1,5,15)),
                layout!((10,6):(1,10)),
            )),
            cute: Some("(5,2):(1,30)"),
        },
        Op::MakeLayoutLike => Case {
            calc: "make_layout_like((2,3,4,5):(0,42,4,0))",
            args: vec![l("(2,3,4,5):(0,42,4,0)")],
            macro_static: v(layout!(make_layout_like((2,3,4,5):(0,42,4,0)))),
            macro_dynamic: d(layout!(make_layout_like((2,3,n4,5):(0,42,4,0)))),
            statics: v(statics::make_layout_like(layout!((2,3,4,5):(0,42,4,0)))),
            cute: Some("(2,3,4,5):(0,4,1,0)"),
        },
        Op::MakeOrderedLayout => Case {
            calc: "make_ordered_layout((2,3,4,2), (1,3,4,1))",
            args: vec![sh("(2,3,4,2)"), sh("(1,3,4,1)")],
            macro_static: v(layout!(make_ordered_layout((2, 3, 4, 2), (1, 3, 4, 1)))),
            macro_dynamic: d(layout!(make_ordered_layout((n2, 3, 4, 2), (1, 3, 4, 1)))),
            statics: v(statics::make_ordered_layout(
                (Int::<2>, Int::<3>, Int::<4>, Int::<2>),
                (Int::<1>, Int::<3>, Int::<4>, Int::<1>),
            )),
            cute: Some("(2,3,4,2):(1,4,12,2)"),
        },
        Op::Congruent => Case {
            calc: "congruent((2,(3,4)), (5,(6,7)))",
            args: vec![sh("(2,(3,4))"), sh("(5,(6,7))")],
            macro_static: Value::Int(layout!(congruent((2, (3, 4)), (5, (6, 7)))).get()),
            macro_dynamic: layout!(congruent((n2, (3, 4)), (5, (6, 7)))).map(Value::Int),
            statics: Value::Int(
                statics::congruent(
                    (Int::<2>, (Int::<3>, Int::<4>)),
                    (Int::<5>, (Int::<6>, Int::<7>)),
                )
                .get() as i64,
            ),
            cute: Some("1"),
        },
        Op::WeaklyCongruent => Case {
            calc: "weakly_congruent((2,3), (5,(6,7)))",
            args: vec![sh("(2,3)"), sh("(5,(6,7))")],
            macro_static: Value::Int(layout!(weakly_congruent((2, 3), (5, (6, 7)))).get()),
            macro_dynamic: layout!(weakly_congruent((n2, 3), (5, (6, 7)))).map(Value::Int),
            statics: Value::Int(
                statics::weakly_congruent((Int::<2>, Int::<3>), (Int::<5>, (Int::<6>, Int::<7>)))
                    .get() as i64,
            ),
            cute: Some("1"),
        },
        Op::Compatible => Case {
            calc: "compatible(24, (4,6))",
            args: vec![sh("24"), sh("(4,6)")],
            macro_static: Value::Int(layout!(compatible(24, (4, 6))).get()),
            macro_dynamic: layout!(compatible(24, (n4, 6))).map(Value::Int),
            statics: Value::Int(statics::compatible(Int::<24>, (Int::<4>, Int::<6>)).get() as i64),
            // the reference's partial order: 24 <= (4,6)
            cute: Some("1"),
        },
        // Named layouts: the static layer is the named zero-sized types; the spellings
        // (`NZ<f16>(…)`) are checked in tests/named/spelled.rs.
        Op::NzLayout => Case {
            calc: "nz_layout(16, 20, 28)",
            args: vec![sh("16"), sh("20"), sh("28")],
            macro_static: v(layout!(nz_layout(16, 20, 28))),
            macro_dynamic: d(layout!(nz_layout(16, n20, 28))),
            statics: v(named::Nz::<named::f16, 20, 28>::new()),
            cute: None,
        },
        Op::NzLayoutStrided => Case {
            calc: "nz_layout(16, 20, 28, 256, 512)",
            args: vec![sh("16"), sh("20"), sh("28"), sh("256"), sh("512")],
            macro_static: v(layout!(nz_layout(16, 20, 28, 256, 512))),
            macro_dynamic: d(layout!(nz_layout(16, n20, 28, 256, 512))),
            statics: v(named::NzStrided::<named::f16, 20, 28, 256, 512>::new()),
            cute: None,
        },
        Op::ZnLayout => Case {
            calc: "zn_layout(8, 24, 40)",
            args: vec![sh("8"), sh("24"), sh("40")],
            macro_static: v(layout!(zn_layout(8, 24, 40))),
            macro_dynamic: d(layout!(zn_layout(n8, 24, 40))),
            statics: v(named::Zn::<f32, 24, 40>::new()),
            cute: None,
        },
        Op::ZnLayoutStrided => Case {
            calc: "zn_layout(8, 24, 40, 512, 128)",
            args: vec![sh("8"), sh("24"), sh("40"), sh("512"), sh("128")],
            macro_static: v(layout!(zn_layout(8, 24, 40, 512, 128))),
            macro_dynamic: d(layout!(zn_layout(n8, 24, 40, 512, 128))),
            statics: v(named::ZnStrided::<f32, 24, 40, 512, 128>::new()),
            cute: None,
        },
        Op::ZzLayout => Case {
            calc: "zz_layout(32, 33, 70)",
            args: vec![sh("32"), sh("33"), sh("70")],
            macro_static: v(layout!(zz_layout(32, 33, 70))),
            macro_dynamic: d(layout!(zz_layout(n32, 33, 70))),
            statics: v(named::Zz::<i8, 33, 70>::new()),
            cute: None,
        },
        Op::ZzLayoutStrided => Case {
            calc: "zz_layout(32, 33, 70, 1536, 512)",
            args: vec![sh("32"), sh("33"), sh("70"), sh("1536"), sh("512")],
            macro_static: v(layout!(zz_layout(32, 33, 70, 1536, 512))),
            macro_dynamic: d(layout!(zz_layout(n32, 33, 70, 1536, 512))),
            statics: v(named::ZzStrided::<i8, 33, 70, 1536, 512>::new()),
            cute: None,
        },
        Op::NnLayout => Case {
            calc: "nn_layout(6, 40)",
            args: vec![sh("6"), sh("40")],
            macro_static: v(layout!(nn_layout(6, 40))),
            macro_dynamic: d(layout!(nn_layout(n6, 40))),
            statics: v(named::Nn::<6, 40>::new()),
            cute: None,
        },
        Op::L0cLayout => Case {
            calc: "l0c_layout(20, 20)",
            args: vec![sh("20"), sh("20")],
            macro_static: v(layout!(l0c_layout(20, 20))),
            macro_dynamic: d(layout!(l0c_layout(n20, 20))),
            statics: v(named::L0c::<20, 20>::new()),
            cute: None,
        },
        Op::RowMajorLayout => Case {
            calc: "row_major_layout(6, 7)",
            args: vec![sh("6"), sh("7")],
            macro_static: v(layout!(row_major_layout(6, 7))),
            macro_dynamic: d(layout!(row_major_layout(n6, 7))),
            statics: v(named::NdExt::<6, 7>::new()),
            cute: None,
        },
        Op::ColumnMajorLayout => Case {
            calc: "column_major_layout(6, 7)",
            args: vec![sh("6"), sh("7")],
            macro_static: v(layout!(column_major_layout(6, 7))),
            macro_dynamic: d(layout!(column_major_layout(n6, 7))),
            statics: v(named::DnExt::<6, 7>::new()),
            cute: None,
        },
        Op::NdExtLayout => Case {
            calc: "nd_ext_layout(6, 7, 9)",
            args: vec![sh("6"), sh("7"), sh("9")],
            macro_static: v(layout!(nd_ext_layout(6, 7, 9))),
            macro_dynamic: d(layout!(nd_ext_layout(n6, 7, 9))),
            statics: v(named::NdExtStrided::<6, 7, 9>::new()),
            cute: None,
        },
        Op::DnExtLayout => Case {
            calc: "dn_ext_layout(6, 7, 9)",
            args: vec![sh("6"), sh("7"), sh("9")],
            macro_static: v(layout!(dn_ext_layout(6, 7, 9))),
            macro_dynamic: d(layout!(dn_ext_layout(n6, 7, 9))),
            statics: v(named::DnExtStrided::<6, 7, 9>::new()),
            cute: None,
        },
        Op::NchwBlocked => Case {
            calc: "nchw_blocked(2, 17, 2, 3, 16)",
            args: vec![sh("2"), sh("17"), sh("2"), sh("3"), sh("16")],
            macro_static: v(layout!(nchw_blocked(2, 17, 2, 3, 16))),
            macro_dynamic: d(layout!(nchw_blocked(n2, 17, 2, 3, 16))),
            statics: v(blocked::NChwc::<16, 2, 17, 2, 3>::new()),
            // the named layer's documented example (blocked.rs)
            cute: Some("(2,(16,2),2,3):(192,(1,96),48,16)"),
        },
        Op::OihwBlocked => Case {
            calc: "oihw_blocked(20, 18, 2, 3, 16, 8)",
            args: vec![sh("20"), sh("18"), sh("2"), sh("3"), sh("16"), sh("8")],
            macro_static: v(layout!(oihw_blocked(20, 18, 2, 3, 16, 8))),
            macro_dynamic: d(layout!(oihw_blocked(20, 18, n2, 3, 16, 8))),
            statics: v(blocked::OIhwIo::<16, 8, 20, 18, 2, 3>::new()),
            cute: None,
        },
        Op::RowMajorInterleaved => Case {
            calc: "row_major_interleaved(4, 10, 3)",
            args: vec![sh("4"), sh("10"), sh("3")],
            macro_static: v(layout!(row_major_interleaved(4, 10, 3))),
            macro_dynamic: d(layout!(row_major_interleaved(n4, 10, 3))),
            statics: v(blocked::RowMajorInterleaved::<4, 10, 3>::new()),
            cute: None,
        },
        Op::RowMajorInterleavedLd => Case {
            calc: "row_major_interleaved(4, 10, 3, 16)",
            args: vec![sh("4"), sh("10"), sh("3"), sh("16")],
            macro_static: v(layout!(row_major_interleaved(4, 10, 3, 16))),
            macro_dynamic: d(layout!(row_major_interleaved(n4, 10, 3, 16))),
            statics: v(blocked::RowMajorInterleavedLd::<4, 10, 3, 16>::new()),
            cute: None,
        },
        Op::ColumnMajorInterleaved => Case {
            calc: "column_major_interleaved(4, 3, 10)",
            args: vec![sh("4"), sh("3"), sh("10")],
            macro_static: v(layout!(column_major_interleaved(4, 3, 10))),
            macro_dynamic: d(layout!(column_major_interleaved(n4, 3, 10))),
            statics: v(blocked::ColumnMajorInterleaved::<4, 3, 10>::new()),
            cute: None,
        },
        Op::ColumnMajorInterleavedLd => Case {
            calc: "column_major_interleaved(4, 3, 10, 16)",
            args: vec![sh("4"), sh("3"), sh("10"), sh("16")],
            macro_static: v(layout!(column_major_interleaved(4, 3, 10, 16))),
            macro_dynamic: d(layout!(column_major_interleaved(n4, 3, 10, 16))),
            statics: v(blocked::ColumnMajorInterleavedLd::<4, 3, 10, 16>::new()),
            cute: None,
        },
    }
}

fn text(v: &Value) -> String {
    match v {
        Value::Layout(l) => l.to_string(),
        Value::Int(n) => n.to_string(),
    }
}

#[test]
fn every_table_entry_agrees_through_all_four_front_ends() {
    let cases: Vec<(Op, Case)> = Op::ALL.iter().map(|&op| (op, case(op))).collect();
    let input: String = cases.iter().map(|(_, c)| format!("{}\n", c.calc)).collect();
    let out = calc_support::run(&input);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), cases.len(), "{out}");
    for ((op, c), calc) in cases.iter().zip(lines) {
        assert!(c.calc.starts_with(op.name()), "{op:?}: {}", c.calc);
        let want = op
            .apply(&c.args)
            .unwrap_or_else(|e| panic!("{op:?}: {e:?}"));
        assert_eq!(c.macro_static, want, "{op:?}: layout! (expansion time)");
        assert_eq!(c.macro_dynamic, Ok(want), "{op:?}: layout! (run time)");
        assert_eq!(c.statics, want, "{op:?}: statics");
        assert_eq!(calc, text(&want), "{op:?}: layout-calc");
        if let Some(cute) = c.cute {
            assert_eq!(text(&want), cute, "{op:?}: CuTe's documented result");
        }
    }
}

#[test]
fn a_bare_shape_tiler_is_refused_by_every_front_end() {
    // the table
    let a = l("(12,32):(1,12)");
    for op in Op::ALL
        .iter()
        .filter(|op| op.kinds().get(1) == Some(&layout::algebra::ops::Kind::Tiler))
    {
        assert_eq!(
            op.apply(&[a, sh("(4,8)")]),
            Err(OpError::BareShapeTiler { index: 1 }),
            "{op:?}"
        );
        // an integer is the 1-D tiler N:1
        assert_eq!(op.apply(&[a, sh("4")]), op.apply(&[a, l("4:1")]), "{op:?}");
    }
    // the calculator (the macro: tests/ui/macro-algebra/bare-shape-tiler*.rs)
    calc_support::check(&[
        (
            "zipped_divide((12,32):(1,12), (4,8))",
            "error: argument 2 of `zipped_divide`: a bare shape (4,8) is ambiguous as a tiler; write `[4,8]` for a by-mode tiler or `(4,8):(1,4)` for a 1-D layout",
        ),
        (
            "logical_product((2,2):(1,2), (3,4))",
            "error: argument 2 of `logical_product`: a bare shape (3,4) is ambiguous as a tiler; write `[3,4]` for a by-mode tiler or `(3,4):(1,3)` for a 1-D layout",
        ),
        (
            "zipped_divide((12,32):(1,12), [4,8])",
            "((4,8),(3,4)):((1,12),(4,96))",
        ),
        (
            "zipped_divide((12,32):(1,12), (4,8):(1,4))",
            "((4,8),12):((1,4),32)",
        ),
    ]);
    // CuTe's two readings, each written unambiguously, through the macro
    let by_mode: DynLayout = layout!(zipped_divide((12,32):(1,12), [4,8]))
        .to_dyn()
        .unwrap();
    let one_d: DynLayout = layout!(zipped_divide((12,32):(1,12), (4,8):(1,4)))
        .to_dyn()
        .unwrap();
    assert_eq!(by_mode.to_string(), "((4,8),(3,4)):((1,12),(4,96))");
    assert_eq!(one_d.to_string(), "((4,8),12):((1,4),32)");
    let _ = DynTuple::leaf(0);
}

/// `Algebra` (any layout value) evaluates the same table entries: a typed mixed layout, a
/// typed static one and a static result give the table's answer with no `.to_dyn()?`.
#[test]
fn algebra_on_any_layout_value_is_the_table() {
    use layout::Algebra;
    use layout::Tile;
    let n = std::hint::black_box(32i64);
    let mixed = layout!((12, n) : (1, 12));
    let stat = layout!((12, 32) : (1, 12));
    let tile: Tile = "[4,8]".parse().unwrap();
    let want = Op::ZippedDivide
        .apply(&[l("(12,32):(1,12)"), tl("[4,8]")])
        .unwrap();
    assert_eq!(mixed.zipped_divide(tile).map(Value::Layout), Ok(want));
    assert_eq!(stat.zipped_divide(tile).map(Value::Layout), Ok(want));
    let one_d = layout!((4, 8) : (1, 4));
    let want = Op::LogicalDivide
        .apply(&[l("(12,32):(1,12)"), l("(4,8):(1,4)")])
        .unwrap();
    assert_eq!(mixed.logical_divide(one_d).map(Value::Layout), Ok(want));
    // a static result is a layout value too
    let c = statics::composition(layout!((6,2):(8,2)), layout!((4,3):(3,1)));
    assert_eq!(
        c.coalesce().map(|r| r.to_string()),
        Ok("(2,2,3):(24,2,8)".to_string())
    );
    assert_eq!(
        Algebra::complement(&layout!((n, 2) : (1, n)), 64)
            .map(Value::Layout)
            .map_err(OpError::Refused),
        Op::Complement.apply(&[l("(32,2):(1,32)"), sh("64")])
    );
    assert_eq!(mixed.max_common_vector(&stat), Ok(n * 12));
}

/// The tiler entries take both a 1-D and a by-mode tiler; the static layer has a type for each,
/// and both read the same entry.
#[test]
fn tiler_entries_agree_with_both_static_forms() {
    let a = layout!((12,32):(1,12));
    let b = layout!((4,2):(1,4));
    let t = (Int::<4>, Int::<8>);
    let (al, bl, tt) = (l("(12,32):(1,12)"), l("(4,2):(1,4)"), tl("[4,8]"));
    let cases: [(Op, Value, Value); 9] = [
        (
            Op::Composition,
            v(statics::composition(a, b)),
            v(statics::composition_by_mode(a, t)),
        ),
        (
            Op::LogicalDivide,
            v(statics::logical_divide(a, b)),
            v(statics::logical_divide_by_mode(a, t)),
        ),
        (
            Op::ZippedDivide,
            v(statics::zipped_divide(a, b)),
            v(statics::zipped_divide_by_mode(a, t)),
        ),
        (
            Op::TiledDivide,
            v(statics::tiled_divide(a, b)),
            v(statics::tiled_divide_by_mode(a, t)),
        ),
        (
            Op::FlatDivide,
            v(statics::flat_divide(a, b)),
            v(statics::flat_divide_by_mode(a, t)),
        ),
        (
            Op::LogicalProduct,
            v(statics::logical_product(a, b)),
            v(statics::logical_product_by_mode(a, t)),
        ),
        (
            Op::ZippedProduct,
            v(statics::zipped_product(a, b)),
            v(statics::zipped_product_by_mode(a, t)),
        ),
        (
            Op::TiledProduct,
            v(statics::tiled_product(a, b)),
            v(statics::tiled_product_by_mode(a, t)),
        ),
        (
            Op::FlatProduct,
            v(statics::flat_product(a, b)),
            v(statics::flat_product_by_mode(a, t)),
        ),
    ];
    for (op, one_d, by_mode) in cases {
        assert_eq!(Ok(one_d), op.apply(&[al, bl]), "{op:?} 1-D");
        assert_eq!(Ok(by_mode), op.apply(&[al, tt]), "{op:?} by mode");
    }
    // and the tiler entries are exactly these nine
    let tilers: Vec<Op> = Op::ALL
        .iter()
        .copied()
        .filter(|op| op.kinds().contains(&layout::algebra::ops::Kind::Tiler))
        .collect();
    assert_eq!(tilers, cases.map(|c| c.0));
}
