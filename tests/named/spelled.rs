//! The named layouts through the front ends: `layout!(NZ<f16>(32, 64))` (static, evaluated at
//! expansion time), `Layout![NZ<f16>(32, 64)]` (type position), `layout!(NZ<f16>(m, n))` (run
//! time, `Result`), each against the named layer's constructors and the worked offsets.

use layout::algebra::ops::{Arg, Op, Param, Spelling, Value};
use layout::named::ascend::{
    self, ELEMENT_TYPES, c0_of, dn_ext_layout, nd_ext_layout, nz_layout_strided,
};
use layout::named::{
    C0Element, U4, bf16, f16, make_column_major_layout, make_l0c_layout, make_nn_layout,
    make_nz_layout, make_row_major_layout, make_zn_layout, make_zz_layout,
};
use layout::{DynLayout, DynTuple, Layout, StaticLayout, layout};

fn at(l: &DynLayout, r: i64, c: i64) -> i64 {
    l.offset_of(&DynTuple::from_slice(&[r, c]).unwrap())
        .unwrap()
}

#[test]
fn static_spellings_equal_the_named_constructors() {
    let nz = layout!(NZ<f16>(20, 28));
    assert_eq!(core::mem::size_of_val(&nz), 0);
    let d = nz.to_dyn().unwrap();
    assert_eq!(d, make_nz_layout::<f16>(20, 28).unwrap());
    // the worked offsets of the reference (20×28 f16 NZ)
    assert_eq!(
        (at(&d, 1, 0), at(&d, 0, 16), at(&d, 19, 27)),
        (16, 512, 827)
    );
    // static leaves print with CuTe's underscore
    assert_eq!(nz.to_string(), "((_16,_2),(_16,_2)):((_16,_256),(_1,_512))");

    assert_eq!(
        layout!(ZN<f32>(24, 40)).to_dyn().unwrap(),
        make_zn_layout::<f32>(24, 40).unwrap()
    );
    assert_eq!(
        layout!(ZZ<i8>(33, 70)).to_dyn().unwrap(),
        make_zz_layout::<i8>(33, 70).unwrap()
    );
    assert_eq!(
        layout!(ZZ<half::bf16>(16, 16)).to_dyn().unwrap(),
        make_zz_layout::<bf16>(16, 16).unwrap()
    );
    assert_eq!(
        layout!(NZ<U4>(16, 128)).to_dyn().unwrap(),
        make_nz_layout::<U4>(16, 128).unwrap()
    );
    assert_eq!(
        layout!(NN(6, 40)).to_dyn().unwrap(),
        make_nn_layout(6, 40).unwrap()
    );
    assert_eq!(
        layout!(L0C(20, 20)).to_dyn().unwrap(),
        make_l0c_layout(20, 20).unwrap()
    );
    assert_eq!(
        layout!(ND(5, 7)).to_dyn().unwrap(),
        make_row_major_layout(5, 7).unwrap()
    );
    assert_eq!(
        layout!(DN(5, 7)).to_dyn().unwrap(),
        make_column_major_layout(5, 7).unwrap()
    );
    assert_eq!(
        layout!(ND(5, 7, 9)).to_dyn().unwrap(),
        nd_ext_layout(5, 7, 9).unwrap()
    );
    assert_eq!(
        layout!(DN(5, 7, 9)).to_dyn().unwrap(),
        dn_ext_layout(5, 7, 9).unwrap()
    );
    assert_eq!(
        layout!(NZ<f16>(32, 32, 272, 1024)).to_dyn().unwrap(),
        nz_layout_strided(16, 32, 32, 272, 1024).unwrap()
    );
    // blocked and interleaved formats
    use layout::named::blocked as b;
    assert_eq!(
        layout!(nChw16c(2, 17, 2, 3)).to_dyn().unwrap(),
        b::nchw16c(2, 17, 2, 3).unwrap()
    );
    assert_eq!(
        layout!(nChw4c(1, 6, 2, 2)).to_dyn().unwrap(),
        b::nchw_blocked(1, 6, 2, 2, 4).unwrap()
    );
    assert_eq!(
        layout!(OIhw16i16o(20, 18, 1, 3)).to_dyn().unwrap(),
        b::oihw16i16o(20, 18, 1, 3).unwrap()
    );
    assert_eq!(
        layout!(NC1HWC0<f16>(1, 20, 2, 2)).to_dyn().unwrap(),
        b::make_nc1hwc0_layout::<f16>(1, 20, 2, 2).unwrap()
    );
    assert_eq!(
        layout!(RowMajorInterleaved<4>(10, 3)).to_dyn().unwrap(),
        b::row_major_interleaved_packed(4, 10, 3).unwrap()
    );
    assert_eq!(
        layout!(ColumnMajorInterleaved<4>(3, 10, 16))
            .to_dyn()
            .unwrap(),
        b::column_major_interleaved(4, 3, 10, 16).unwrap()
    );
}

/// A static NZ named in a type, usable as a generic parameter.
type Nz32x64 = Layout![NZ<f16>(32, 64)];

fn cosize_of<L: StaticLayout>() -> i64 {
    L::LAYOUT.cosize()
}

#[test]
fn type_position_and_algebra_compose() {
    assert_eq!(Nz32x64::LAYOUT, make_nz_layout::<f16>(32, 64).unwrap());
    assert_eq!(cosize_of::<Nz32x64>(), 32 * 64);
    // a named layout is an argument like any other: the first column of fractals
    let tile = layout!(composition(NZ<f16>(32, 64), [32:1, 16:1]));
    let direct = make_nz_layout::<f16>(32, 64)
        .unwrap()
        .composition_by_mode(&"[32:1,16:1]".parse().unwrap())
        .unwrap();
    assert_eq!(tile.to_dyn().unwrap(), direct);
}

#[test]
fn run_time_spellings_give_results() {
    let (m, n) = (std::hint::black_box(20i64), std::hint::black_box(28i64));
    let nz: Result<DynLayout, _> = layout!(NZ<f16>(m, n));
    assert_eq!(nz.unwrap(), make_nz_layout::<f16>(20, 28).unwrap());
    // the alignment rule at run time: StrideColumn1 must be a multiple of 16·C0 = 256
    let col1 = std::hint::black_box(520i64);
    let bad: Result<DynLayout, _> = layout!(NZ<f16>(32, 32, 16, col1));
    let e = bad.unwrap_err().to_string();
    assert!(e.contains("520") && e.contains("256"), "{e}");
    let zero = std::hint::black_box(0i64);
    assert!(layout!(ZN<f32>(zero, 8)).is_err());
}

#[test]
fn the_names_the_front_ends_know_agree_with_element() {
    fn c0<T: C0Element>() -> i64 {
        T::C0
    }
    let by_type = [
        ("f32", c0::<f32>()),
        ("i32", c0::<i32>()),
        ("u32", c0::<u32>()),
        ("f16", c0::<f16>()),
        ("bf16", c0::<bf16>()),
        ("i16", c0::<i16>()),
        ("u16", c0::<u16>()),
        ("i8", c0::<i8>()),
        ("u8", c0::<u8>()),
        ("U4", c0::<U4>()),
    ];
    assert_eq!(ELEMENT_TYPES.len(), by_type.len());
    for (name, c) in by_type {
        assert_eq!(c0_of(name), Some(c), "{name}");
    }
    assert_eq!(c0_of("f64"), None);
}

#[test]
fn every_spelling_reaches_its_table_entry() {
    // each (spelling, arity) resolves to an entry whose value equals the named constructor
    use layout::named::blocked as b;
    let t = Param::Type;
    let cases: [(&str, &[Param], &[i64], DynLayout); 10] = [
        (
            "NZ",
            &[t("f16")],
            &[20, 28],
            ascend::nz_layout(16, 20, 28).unwrap(),
        ),
        (
            "ZN",
            &[t("u8")],
            &[40, 20],
            ascend::zn_layout(32, 40, 20).unwrap(),
        ),
        (
            "ZZ",
            &[t("f32")],
            &[17, 9],
            ascend::zz_layout(8, 17, 9).unwrap(),
        ),
        ("NN", &[], &[3, 17], ascend::nn_layout(3, 17).unwrap()),
        ("L0C", &[], &[3, 17], ascend::nz_layout(16, 3, 17).unwrap()),
        ("ND", &[], &[3, 4, 6], nd_ext_layout(3, 4, 6).unwrap()),
        ("nChw8c", &[], &[2, 9, 3, 3], b::nchw8c(2, 9, 3, 3).unwrap()),
        (
            "OIhw16i16o",
            &[],
            &[20, 18, 1, 3],
            b::oihw16i16o(20, 18, 1, 3).unwrap(),
        ),
        (
            "NC1HWC0",
            &[t("i8")],
            &[1, 40, 2, 2],
            b::make_nc1hwc0_layout::<i8>(1, 40, 2, 2).unwrap(),
        ),
        (
            "ColumnMajorInterleaved",
            &[Param::Int(4)],
            &[3, 10],
            b::column_major_interleaved_packed(4, 3, 10).unwrap(),
        ),
    ];
    for (name, params, ints, want) in cases {
        let s = Spelling::resolve(name, params, ints.len())
            .unwrap()
            .unwrap();
        let mut args: Vec<Arg> = s
            .before
            .map(|c| Arg::Shape(DynTuple::leaf(c)))
            .into_iter()
            .collect();
        args.extend(ints.iter().map(|&v| Arg::Shape(DynTuple::leaf(v))));
        args.extend(s.after().iter().map(|&v| Arg::Shape(DynTuple::leaf(v))));
        assert_eq!(s.op.apply(&args), Ok(Value::Layout(want)), "{name}");
    }
    // refusals say what to write
    let msg = |n: &str, p: &[Param], text: Option<&str>, k: usize| {
        Spelling::resolve(n, p, k)
            .unwrap()
            .unwrap_err()
            .message(n, text)
            .to_string()
    };
    assert!(msg("NZ", &[], None, 2).contains("NZ<f16>(…)"));
    assert!(msg("NN", &[t("f16")], Some("f16"), 2).contains("without `<f16>`"));
    assert!(
        msg("ZN", &[t("f16")], Some("f16"), 3).contains("ZN<T>(m, n) or ZN<T>(m, n, row1, col1)")
    );
    assert!(msg("RowMajorInterleaved", &[t("f16")], Some("f16"), 2).contains("the interleave"));
    assert!(msg("nChw8c", &[], None, 3).contains("nChw{B}c(n, c, h, w)"));
    assert!(Spelling::resolve("nz_layout", &[], 3).is_none());
    assert!(Spelling::resolve("nChwc", &[], 4).is_none());
    assert!(Spelling::resolve("OIhw16i16", &[], 4).is_none());
    assert_eq!(Op::lookup("nz_layout", 3), Ok(Op::NzLayout));
}
