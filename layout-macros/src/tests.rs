//! Tests of the whole pipeline (parse → check → eval → expand) on token streams, outside the
//! compiler: the macro's verdict on random layout texts must equal the run-time parser's.

use crate::check;
use crate::parse::{self, Mode, Top};
use layout_core::{DynLayout, DynTuple};
use proptest::prelude::*;
use std::str::FromStr;

/// The macro's verdict on a literal layout text: the static layout, or an error.
fn macro_verdict(text: &str) -> Result<DynLayout, String> {
    let tokens = proc_macro2::TokenStream::from_str(text).map_err(|e| e.to_string())?;
    match parse::parse_top(tokens, Mode::Value).map_err(|e| e.to_string())? {
        Top::Layout(input) => check::static_layout(input)
            .map(|(l, _)| l)
            .map_err(|e| e.to_string()),
        Top::Call(_) => Err("unexpected call".into()),
    }
}

/// The first error `layout!` reports for a text.
fn first_error(text: &str) -> String {
    let tokens = proc_macro2::TokenStream::from_str(text).unwrap();
    match parse::parse_top(tokens, Mode::Value) {
        Ok(Top::Layout(input)) => check::check(input, Mode::Value)
            .errors
            .map(|e| e.to_string())
            .unwrap_or_default(),
        Ok(Top::Call(_)) => "unexpected call".into(),
        Err(e) => e.to_string(),
    }
}

/// The run-time verdict on the same text (the keywords through `row_major` / `col_major`).
fn runtime_verdict(text: &str) -> Result<DynLayout, String> {
    if let Some(shape) = text.strip_suffix(":RowMajor") {
        let s = DynTuple::from_str(shape).map_err(|e| e.to_string())?;
        return DynLayout::row_major(&s).map_err(|e| e.to_string());
    }
    if let Some(shape) = text.strip_suffix(":ColMajor") {
        let s = DynTuple::from_str(shape).map_err(|e| e.to_string())?;
        return DynLayout::col_major(&s).map_err(|e| e.to_string());
    }
    DynLayout::from_str(text).map_err(|e| e.to_string())
}

/// Expand a `layout!` input to its text.
fn expansion(text: &str) -> String {
    crate::expand(
        proc_macro2::TokenStream::from_str(text).unwrap(),
        Mode::Value,
    )
    .unwrap()
    .to_string()
}

/// A random tuple text: leaves from `leaf`, depth ≤ 3, arity 1 to 4.
fn tuple(leaf: impl Strategy<Value = i64> + Clone + 'static) -> impl Strategy<Value = String> {
    let leaf_text = leaf.prop_map(|v| v.to_string());
    leaf_text.prop_recursive(3, 16, 4, |inner| {
        prop::collection::vec(inner, 1..=4).prop_map(|v| format!("({})", v.join(",")))
    })
}

fn extent() -> impl Strategy<Value = i64> + Clone {
    prop_oneof![8 => 1i64..=6, 1 => -2i64..=0, 1 => Just(1i64 << 40)]
}

fn stride() -> impl Strategy<Value = i64> + Clone {
    prop_oneof![8 => -8i64..=40, 1 => Just(1i64 << 61)]
}

/// Layout texts: congruent or not, with explicit strides, none, or a keyword.
fn layout_text() -> impl Strategy<Value = String> {
    (tuple(extent()), tuple(stride()), 0..6u8).prop_map(|(s, d, kind)| match kind {
        0 => s,
        1 => format!("{s}:RowMajor"),
        2 => format!("{s}:ColMajor"),
        // a stride with the shape's structure, so that most cases are congruent
        3 | 4 => {
            let mut vals = d
                .split(|c: char| !(c.is_ascii_digit() || c == '-'))
                .filter(|t| !t.is_empty())
                .cycle();
            let mut out = String::new();
            let mut in_num = false;
            for c in s.chars() {
                if c.is_ascii_digit() || c == '-' {
                    if !in_num {
                        out.push_str(vals.next().unwrap_or("1"));
                    }
                    in_num = true;
                } else {
                    in_num = false;
                    out.push(c);
                }
            }
            format!("{s}:{out}")
        }
        _ => format!("{s}:{d}"),
    })
}

/// 3000 cases in the full sweep (`LAYOUT_FULL_SWEEP=1`), 750 by default, `PROPTEST_CASES` when
/// set (as the integration tests' `tests/support/cases.rs`).
fn cases() -> u32 {
    if let Some(n) = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    match std::env::var_os("LAYOUT_FULL_SWEEP") {
        Some(v) if !v.is_empty() && v != "0" => 3000,
        _ => 750,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// One source of truth: the macro accepts exactly the texts the run-time parser accepts,
    /// and builds the same layout.
    #[test]
    fn macro_and_runtime_agree(text in layout_text()) {
        let m = macro_verdict(&text);
        let r = runtime_verdict(&text);
        match (&m, &r) {
            (Ok(a), Ok(b)) => prop_assert_eq!(a, b, "{}", text),
            (Err(_), Err(_)) => {}
            _ => prop_assert!(false, "{}: macro {:?}, run time {:?}", text, m, r),
        }
    }
}

#[test]
fn errors_name_the_numbers() {
    let e = macro_verdict("(4,(2,2)):(1,4)").unwrap_err();
    assert_eq!(
        e,
        "shape and stride are not congruent: (4,(2,2)) has 3 leaves, (1,4) has 2"
    );
    let e = macro_verdict("((2,2),4):(1,(2,8))").unwrap_err();
    assert_eq!(
        e,
        "shape and stride are not congruent: (2,2) is a tuple, 1 is an integer"
    );
    let e = macro_verdict("(2,(3,4)):(1,(2,6,1))").unwrap_err();
    assert_eq!(
        e,
        "shape and stride are not congruent: (2,(3,4)) has 3 leaves, (1,(2,6,1)) has 4"
    );
    let e = macro_verdict("((2,2),(3,3)):((1,2,4),(8))").unwrap_err();
    assert_eq!(
        e,
        "shape and stride are not congruent: (2,2) has 2 modes, (1,2,4) has 3"
    );
    let e = first_error("(4,8):Row");
    assert_eq!(
        e,
        "expected a stride tuple, RowMajor or ColMajor after the shape (4,8), found `Row`"
    );
    let e = first_error("(4,8):rowmajor");
    assert!(e.starts_with("unknown stride keyword `rowmajor`; did you mean `RowMajor`?"));
    let e = macro_verdict("(4,0)").unwrap_err();
    assert_eq!(
        e,
        "shape extent 0 is not positive (extents must be at least 1)"
    );
}

#[test]
fn expansions_name_absolute_paths_only() {
    let static_one = expansion("((2,3),(2,4)):((1,4),(2,12))");
    assert_eq!(
        static_one,
        ":: layout :: Layout :: new (((:: layout :: Int :: < 2 > , :: layout :: Int :: < 3 > ,) , \
         (:: layout :: Int :: < 2 > , :: layout :: Int :: < 4 > ,) ,) , \
         ((:: layout :: Int :: < 1 > , :: layout :: Int :: < 4 > ,) , \
         (:: layout :: Int :: < 2 > , :: layout :: Int :: < 12 > ,) ,))"
    );
    let mixed = expansion("(16, rows / 16, 2)");
    assert!(
        mixed.contains("let __layout_leaf_1 : i64 = :: layout :: __private :: dynamic (rows / 16)")
    );
    assert!(mixed.contains(":: layout :: __private :: product (& [16i64 , __layout_leaf_1])"));
    let negative = expansion("8:-1");
    assert_eq!(
        negative,
        ":: layout :: Layout :: new (:: layout :: Int :: < 8 > , :: layout :: Int :: < - 1 >)"
    );
    for text in [static_one, mixed, negative, expansion("(Int<N>, 4)")] {
        // every path starts at the crate root: `layout`, `core` only ever follow `::`
        let toks: Vec<&str> = text.split(' ').collect();
        for (i, t) in toks.iter().enumerate() {
            if *t == "layout" || *t == "core" {
                assert!(toks[i - 1].ends_with("::"), "relative path in {text}");
            }
        }
    }
}

#[test]
fn algebra_refusals_name_the_rule() {
    let call = |t: &str| match parse::parse_top(
        proc_macro2::TokenStream::from_str(t).unwrap(),
        Mode::Value,
    )
    .unwrap()
    {
        Top::Call(c) => check::eval_call(c).map(|_| ()).map_err(|e| e.to_string()),
        Top::Layout(_) => panic!("not a call"),
    };
    assert!(
        call("composition((6,2):(1,10), 4:4)")
            .unwrap_err()
            .starts_with("composition is not admissible (stride divisibility)")
    );
    assert!(call("composition((6,2):(8,2), (4,3):(3,1))").is_ok());
    assert_eq!(
        call("complement((2,2):(1,1), 4)").unwrap_err(),
        "complement is refused: layout is not injective: offset 1 is reached twice"
    );
}
