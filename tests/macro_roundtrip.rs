//! One source of truth: for the same text, the value `layout!` builds at compile time equals the
//! `DynLayout` the run-time parser builds, as values, as printed text and as functions (every
//! offset of the domain); `Layout!` names the same type; static layouts are zero-sized and
//! const-constructible.

use layout::{DynLayout, DynTuple, Layout, layout};

/// The macro's input text as the run-time parser reads it: `Int<16>` → `16`, spaces dropped.
/// Returns the layout text and the compact order keyword, if any.
fn cute_text(tokens: &str) -> (String, Option<&'static str>) {
    let mut s: String = tokens
        .replace("Int", "")
        .chars()
        .filter(|c| !matches!(c, ' ' | '<' | '>' | '{' | '}'))
        .collect();
    s = s.replace("::", "").replace(",)", ")");
    for (kw, order) in [
        (":RowMajor", "row"),
        (":LayoutRight", "row"),
        (":ColMajor", "col"),
        (":LayoutLeft", "col"),
    ] {
        if let Some(shape) = s.strip_suffix(kw) {
            return (shape.to_string(), Some(order));
        }
    }
    (s, None)
}

/// The run-time layout for the macro's text, through the run-time parser.
fn runtime(tokens: &str) -> DynLayout {
    match cute_text(tokens) {
        (text, None) => text.parse().unwrap_or_else(|e| panic!("{text}: {e}")),
        (shape, Some(order)) => {
            let s: DynTuple = shape.parse().unwrap();
            if order == "row" {
                DynLayout::row_major(&s).unwrap()
            } else {
                DynLayout::col_major(&s).unwrap()
            }
        }
    }
}

/// CuTe's printing of a fully static layout: every integer as `_N`.
fn static_text(d: &DynLayout) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in d.to_string().chars() {
        let starts = c == '-' || (c.is_ascii_digit() && !in_number);
        if starts {
            out.push('_');
        }
        in_number = c == '-' || c.is_ascii_digit();
        out.push(c);
    }
    out
}

/// Compare a macro-built layout with the run-time one, as values, texts and functions.
fn same<S, D>(l: &Layout<S, D>, d: &DynLayout, text: &str, printed: &str)
where
    S: layout::Congruent<D>,
    D: layout::IntTuple,
{
    assert_eq!(l.to_dyn().unwrap(), *d, "value of {text}");
    assert_eq!(l.to_string(), printed, "printing of {text}");
    assert_eq!(l.size(), d.size(), "size of {text}");
    assert_eq!(l.cosize().unwrap(), d.cosize(), "cosize of {text}");
    // every index of the domain (a spread of indices for the two huge domains below)
    let step = (d.size() >> 16).max(1);
    for i in (0..d.size()).step_by(step as usize).chain([d.size() - 1]) {
        assert_eq!(l.offset(i), d.offset(i), "offset of index {i} in {text}");
        assert_eq!(
            AnyLayout::offset(l, i),
            d.offset_of(&d.index_to_coord(i)).unwrap(),
            "offset of the coordinate of index {i} in {text}"
        );
    }
}

use layout::AnyLayout;

/// A fully static layout: macro value == parsed text, zero-sized, const, and `Layout!` agrees.
macro_rules! check {
    ($($t:tt)*) => {{
        const L: Layout![$($t)*] = layout!($($t)*);
        let text = stringify!($($t)*);
        let d = runtime(text);
        assert_eq!(core::mem::size_of_val(&L), 0, "{text} is not zero-sized");
        assert_eq!(<Layout![$($t)*] as layout::StaticLayout>::LAYOUT, d, "{text}");
        same(&L, &d, text, &static_text(&d));
    }};
}

/// A layout with dynamic leaves: `"CuTe text as printed", [name = value, …] layout`.
/// The expected text is parsed by the run-time parser (which ignores `_`) and compared with the
/// macro's printing (which writes `_` on static leaves only).
macro_rules! check_mixed {
    ($printed:literal, [$($v:ident = $e:expr),*] $($t:tt)*) => {{
        $(let $v = $e;)*
        let l = layout!($($t)*);
        let printed = $printed;
        let d: DynLayout = printed.parse().unwrap();
        assert_ne!(core::mem::size_of_val(&l), 0);
        same(&l, &d, stringify!($($t)*), printed);
    }};
}

#[test]
fn static_layouts_equal_the_parsed_text() {
    // rank 1, integer-shaped, default strides
    check!(8);
    check!(8 : 2);
    check!(8 : 0);
    check!(8 : -1);
    check!((8) : (1));
    check!((8));
    check!(_8 : _2);
    check!(Int<8> : Int<2>);
    check!(Int::<8> : Int::<{ 2 }>);
    check!((Int<16>{}, 2) : (Int<1>{}, 16)); // Ascend C's `Std::Int<16>{}` spelling
    // rank 2, both orders
    check!((2, 4) : (1, 2));
    check!((2, 4) : (4, 1));
    check!((2, 4));
    check!((2, 4) : RowMajor);
    check!((2, 4) : ColMajor);
    check!((2, 4) : LayoutRight);
    check!((2, 4) : LayoutLeft);
    check!((4, 8) : (8, 1));
    check!((_4, _8) : (_1, _4));
    // hierarchical (the Ascend C figure and CuTe's tutorial layouts)
    check!(((2, 3), (2, 4)) : ((1, 4), (2, 12)));
    check!(((2, 3), (2, 4)));
    check!(((2, 3), (2, 4)) : RowMajor);
    check!((3, (2, 3)) : (3, (12, 1)));
    check!(((2, 2), 2) : ((4, 1), 2));
    check!(((4, 2), (2, 4)) : ((1, 16), (4, 32)));
    check!((((2, 2), 2), 2) : (((1, 4), 16), 32));
    check!((2, (2, (2, 2))) : (8, (4, (2, 1))));
    check!((2, (2, (2, 2))) : RowMajor);
    check!(((Int<16>, 2), (Int<8>, 3)) : ((8, 128), (1, 256)));
    // negative and zero strides
    check!((4, 8) : (-1, 4));
    check!((4, 8) : (1, -4));
    check!((4, 8) : (-8, -1));
    check!((4, 8) : (0, 1));
    check!((4, (2, 3)) : (0, (-1, 0)));
    check!((2, 3) : (Int<-1>, Int<{ -2 }>));
    // extents of 1, higher ranks, arity 8
    check!((1, 1, 1) : (0, 0, 0));
    check!((1, 5, 1) : (7, 1, 9));
    check!((2, 3, 4, 5));
    check!((2, 3, 4, 5) : RowMajor);
    check!((2, 2, 2, 2, 2, 2, 2, 2));
    check!((2, 2, 2, 2, 2, 2, 2, 2) : RowMajor);
    check!(((2, 2, 2, 2), (2, 2, 2, 2)) : ((1, 2, 4, 8), (16, 32, 64, 128)));
    // non-injective and gapped
    check!((4, 4) : (1, 1));
    check!((3, 2) : (2, 3));
    check!((4, 6, 8) : (2, 3, 5));
    check!((6, 2) : (1, 10));
    // big values that still fit
    check!((65536, 65536) : (1, 65536));
    check!(1048576 : 4096);
    // a trailing comma inside a tuple is accepted, as in Rust
    check!((2, 4,) : (1, 2,));
}

#[test]
fn mixed_layouts_equal_the_parsed_text() {
    check_mixed!("(_16,4):(_1,7)", [rows = 64usize, ld = 7] (Int<16>, rows / 16) : (Int<1>, ld));
    check_mixed!("((_16,4),(_8,3)):((_8,_128),(_1,1024))", [rows = 64i64, cols = 24] ((Int<16>, rows / 16), (8, cols / 8)) : ((8, 128), (1, 16 * rows)));
    check_mixed!("(_16,4,_2):(_1,_16,64)", [rows = 64u32](16, rows / 16, 2));
    check_mixed!("(_2,64,_3):(192,_3,_1)", [rows = 64i64] (2, rows, 3) : RowMajor);
    check_mixed!("(64,24):(_1,64)", [rows = 64i64, cols = 24u16] (rows, cols) : ColMajor);
    check_mixed!("(64,24):(24,_1)", [rows = 64i64, cols = 24u8] (rows, cols) : RowMajor);
    check_mixed!("64:_1", [rows = 64i64] rows : 1);
    check_mixed!("_8:7", [ld = 7i64] 8 : ld);
    check_mixed!("(5):(_-1)", [n = 5i64] (n) : (-1));
    check_mixed!("((_2,5),(_3,10)):((_1,_2),(_10,7))", [n = 5i64, ld = 7i64] ((2, n), (3, { n * 2 })) : ((1, 2), (10, ld)));
    check_mixed!(
        "((_2,5),(_3,10)):((_1,_2),(10,30))",
        [n = 5i64]((2, n), (3, { n * 2 }))
    );
    check_mixed!("((_2,5),(_3,10)):((150,30),(10,_1))", [n = 5i64] ((2, n), (3, { n * 2 })) : RowMajor);
    check_mixed!("(3,4):(4,3)", [u = 3u64, i = 4isize] (u, i) : (i, u));
    check_mixed!("(_4,5,_2):(_0,_4,7)", [n = 5i64, ld = 7i64] (Int<4>, n, Int<2>) : (0, Int<4>, ld));
    check_mixed!("(6,_2):(_-3,_1)", [k = 6i64] (k, 2) : (-3, 1));
    check_mixed!("((64,_2),_3):((_1,64),128)", [rows = 64i64]((rows, 2), 3));
}

#[test]
fn dynamic_leaves_are_evaluated_once() {
    let mut calls = 0;
    let mut next = || {
        calls += 1;
        4i64
    };
    // The compact strides reuse the dynamic extent; the expression still runs once.
    let l = layout!((2, next(), 3));
    assert_eq!(l.to_string(), "(_2,4,_3):(_1,_2,8)");
    assert_eq!(calls, 1);
    // the macro's locals do not capture the user's names (mixed-site hygiene)
    let __layout_leaf_1 = 5i64;
    let h = layout!((2, __layout_leaf_1, 3));
    assert_eq!(h.to_string(), "(_2,5,_3):(_1,_2,10)");
}

const K: i64 = 6;

fn with_generic<const N: i64>() -> (String, DynLayout) {
    let l = layout!((Int<N>, 4, Int<{ K }>));
    (l.to_string(), l.to_dyn().unwrap())
}

#[test]
fn const_generic_and_const_item_leaves_are_static() {
    let (text, d) = with_generic::<3>();
    // Int<N> alone is a static stride; products with it are computed at run time.
    assert_eq!(text, "(_3,_4,_6):(_1,_3,12)");
    assert_eq!(d, "(3,4,6):(1,3,12)".parse::<DynLayout>().unwrap());
    let l = layout!((Int<{ K }>, 2) : (1, Int<K>));
    assert_eq!(core::mem::size_of_val(&l), 0);
    assert_eq!(l.to_string(), "(_6,_2):(_1,_6)");
}

fn typed<const M: i64, const N: i64>() -> String {
    <Layout![(M, N) : (1, M)]>::default().to_string()
}

#[test]
fn type_macro_leaves() {
    assert_eq!(typed::<2, 5>(), "(_2,_5):(_1,_2)");
    type Dyn = Layout![(i64, 4) : (1, i64)];
    let rows = 6i64;
    let l: Dyn = Layout::new((rows, layout::Int::<4>), (layout::Int::<1>, rows));
    assert_eq!(l.to_string(), "(6,_4):(_1,6)");
    let c: Layout![(i64, 4)] = layout!((rows, 4));
    assert_eq!(c.to_string(), "(6,_4):(_1,6)");
    let r: Layout![(4, i64, 2) : RowMajor] = layout!((4, rows, 2) : RowMajor);
    assert_eq!(r.to_string(), "(_4,6,_2):(12,_2,_1)");
    type K6 = Layout![({ K }, 2)];
    assert_eq!(K6::default().to_string(), "(_6,_2):(_1,_6)");
}

#[test]
fn cute_text_reads_the_macro_notation() {
    assert_eq!(
        cute_text("(Int < 16 >, 2) : (Int :: < 1 >, - 1)").0,
        "(16,2):(1,-1)"
    );
    assert_eq!(
        cute_text("(2, 4) : RowMajor"),
        ("(2,4)".to_string(), Some("row"))
    );
    let d: DynLayout = "(2,3):(0,-1)".parse().unwrap();
    assert_eq!(static_text(&d), "(_2,_3):(_0,_-1)");
}
