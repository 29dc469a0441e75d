//! The layout calculator, run as a user runs it: the built binary on scripted standard input.
//! Expected outputs are CuTe's documented examples (docs and tutorial, as collected in
//! cute-algebra.md) or worked out by hand in the comments — never produced by the code under test.

#[path = "support/cases.rs"]
mod cases;
use layout::DynLayout;
use proptest::prelude::*;

mod calc_support;
use calc_support::{check, run};

#[test]
fn layouts_print_as_cute_run_time_text() {
    check(&[
        (
            "((2,3),(2,4)):((1,4),(2,12))",
            "((2,3),(2,4)):((1,4),(2,12))",
        ),
        ("(_2,_3):(_1,_2)", "(2,3):(1,2)"),
        ("( 2 , 3 ) : ( 1 , 2 )", "(2,3):(1,2)"),
        ("(8):(1)", "(8):(1)"),
        // a bare shape is compact column-major, a bare integer N is N:1
        ("(2,(3,4))", "(2,(3,4)):(1,(2,6))"),
        ("8", "8:1"),
        ("(4,3):(-1,0)", "(4,3):(-1,0)"),
    ]);
}

#[test]
fn accessors_on_the_cute_documentation_layout() {
    // cute docs: (3,(2,3)):(3,(12,1)); size 18, cosize 1 + 2·3 + 1·12 + 2·1 = 21, rank 2, depth 2
    let l = "(3,(2,3)):(3,(12,1))";
    check(&[
        (&format!("size({l})"), "18"),
        (&format!("cosize({l})"), "21"),
        (&format!("rank({l})"), "2"),
        (&format!("depth({l})"), "2"),
        ("rank(8:1)", "1"),
        ("depth(8:1)", "0"),
        ("size((2,3,4))", "24"),
    ]);
}

#[test]
fn coordinates_one_dimensional_per_mode_and_natural() {
    // cute docs: in shape (3,(2,3)), index 16 <-> 2-D (1,5) <-> natural (1,(1,2));
    // with strides (3,(12,1)) the offset is 1·3 + 1·12 + 2·1 = 17.
    let l = "(3,(2,3)):(3,(12,1))";
    check(&[
        (&format!("eval({l}, 16)"), "17"),
        (&format!("eval({l}, (1,5))"), "17"),
        (&format!("eval({l}, (1,(1,2)))"), "17"),
        ("idx2crd(16, (3,(2,3)))", "(1,(1,2))"),
        ("idx2crd(5, 8)", "5"),
        ("crd2idx((1,5), (3,(2,3)))", "16"),
        ("crd2idx((1,(1,2)), (3,(2,3)))", "16"),
        ("crd2idx(16, (3,(2,3)))", "16"),
    ]);
}

#[test]
fn offsets_lists_every_offset_in_index_order() {
    check(&[
        // (3,2):(2,3): index i = (i%3, i/3) -> 2·(i%3) + 3·(i/3)
        ("offsets((3,2):(2,3))", "[0,2,4,3,5,7]"),
        ("offsets((2,3):(3,1))", "[0,3,1,4,2,5]"),
        ("offsets(4:0)", "[0,0,0,0]"),
        ("offsets(3:-2)", "[0,-2,-4]"),
    ]);
}

#[test]
fn swizzles_follow_the_cute_definition() {
    check(&[
        // make_swizzle<0b11000000,0b00000110> is Sw<2,1,5>: bits 6,7 are XORed into bits 1,2
        ("swizzle(2,1,5,64)", "66"),
        ("swizzle(2,1,5,192)", "198"),
        ("swizzle(2,1,5,6)", "6"),
        // Sw<3,3,3>: bits 6..8 into bits 3..5; row 1 of a 64-wide row-major tile: 64 -> 64 ^ 8
        ("swizzle(3,3,3,64)", "72"),
        ("swizzle(3,3,3,72)", "64"),
        // negative shift: Sw<2,0,-3> XORs bits 0,1 into bits 3,4
        ("swizzle(2,0,-3,3)", "27"),
        ("swizzle(0,4,3,12345)", "12345"),
        (
            "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
            "Sw<3,3,3> o 0 o (8,64):(64,1)",
        ),
        ("Sw<2,0,-3> o (8,8):(8,1)", "Sw<2,0,-3> o 0 o (8,8):(8,1)"),
        ("size(Sw<3,3,3> o (8,64):(64,1))", "512"),
        ("cosize(Sw<3,3,3> o 4 o (8,64):(64,1))", "512"),
        // row 1, column 0: 64 -> 72; with the offset 4 first: 68 -> 76
        ("eval(Sw<3,3,3> o (8,64):(64,1), (1,0))", "72"),
        ("eval(Sw<3,3,3> o 4 o (8,64):(64,1), (1,0))", "76"),
        // Sw<1,0,1>: bit 1 is XORed into bit 0: 0,1,2,3 -> 0,1,3,2
        ("offsets(Sw<1,0,1> o 4:1)", "[0,1,3,2]"),
        (
            "swizzle(3,0,2,1)",
            "error: invalid swizzle Sw<3,0,2>: |S| must be at least B, or the source and destination bits overlap",
        ),
    ]);
}

#[test]
fn print_layout_draws_cutes_table_then_one_empty_line() {
    let out = run("print_layout((2,(2,2)):(4,(2,1)))\nsize(4)\n");
    // cute-algebra.md §9, CuTe's print_layout format (run-time values print without `_`)
    let want = "\
(2,(2,2)):(4,(2,1))
      0   1   2   3 
    +---+---+---+---+
 0  | 0 | 2 | 1 | 3 |
    +---+---+---+---+
 1  | 4 | 6 | 5 | 7 |
    +---+---+---+---+

4
";
    assert_eq!(out, want);
    assert_eq!(
        run("print_layout(8:1)\n"),
        "error: print_layout: the layout has rank 1; a table needs rank 2\n"
    );
}

#[test]
fn bad_lines_say_why_and_the_session_goes_on() {
    let out = run("size(\nfoo(1)\n(2,3):(1)\n\n   \nsize(4,4)\n(0,2)\neval(8:1, 9)\nsize(8)\n");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 7, "{out}");
    for l in &lines[..6] {
        assert!(l.starts_with("error: "), "{l}");
    }
    assert_eq!(lines[1], "error: unknown function `foo`");
    assert_eq!(lines[3], "error: `size` takes 1 argument, 2 given");
    assert_eq!(
        lines[4],
        "error: shape leaf 0 has extent 0; extents must be positive"
    );
    assert_eq!(lines[6], "8");
}

/// Parse errors give the column in the line; names the user typed are echoed at most 32
/// characters long; a lower-case `sw` is pointed to `Sw`.
#[test]
fn messages_point_at_the_column_and_cut_long_echoes() {
    let long = "x".repeat(1 << 20);
    check(&[
        ("(2,3", "error: expected `,` or `)` at column 5"),
        (
            "size((2,3)",
            "error: expected `,` or `)`, found end of line at column 11",
        ),
        ("(2,3)é", "error: expected end of input at column 6"),
        (
            "size(4) x",
            "error: expected end of line, found `x` at column 9",
        ),
        (
            "99999999999999999999",
            "error: integer literal overflows i64…",
        ),
        (
            "sw<3,3,3> o (8,8):(8,1)",
            "error: `sw` is not a value; did you mean `Sw`? A swizzle is written `Sw<B,M,S> o L` at column 1",
        ),
        (
            &format!("{long}(1)"),
            "error: unknown function `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…`",
        ),
        (
            &long,
            "error: `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…` is not a value; functions are called as `xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx…(…)` at column 1",
        ),
        (&"(".repeat(10_000), "error: nesting deeper than 48 levels…"),
    ]);
}

#[test]
fn end_of_input_without_newline_and_crlf() {
    assert_eq!(run("size(4)"), "4\n");
    assert_eq!(run("size(4)\r\nsize(5)\r\n"), "4\n5\n");
    assert_eq!(run(""), "");
}

/// A random layout: 1 to 3 modes, each a leaf or a tuple of 1 to 3 leaves; extents 1..=3 (at
/// most 3^9 elements, inside the calculator's 65536-element print limit),
/// strides -6..=12 (zero and negative included).
fn layout_text() -> impl Strategy<Value = String> {
    let leaf = (1i64..=3, -6i64..=12);
    let mode = prop::collection::vec(leaf, 1..=3).prop_map(|leaves| {
        if leaves.len() == 1 {
            (leaves[0].0.to_string(), leaves[0].1.to_string())
        } else {
            let s: Vec<String> = leaves.iter().map(|l| l.0.to_string()).collect();
            let d: Vec<String> = leaves.iter().map(|l| l.1.to_string()).collect();
            (format!("({})", s.join(",")), format!("({})", d.join(",")))
        }
    });
    prop::collection::vec(mode, 1..=3).prop_map(|modes| {
        if modes.len() == 1 {
            format!("{}:{}", modes[0].0, modes[0].1)
        } else {
            let s: Vec<&str> = modes.iter().map(|m| m.0.as_str()).collect();
            let d: Vec<&str> = modes.iter().map(|m| m.1.as_str()).collect();
            format!("({}):({})", s.join(","), d.join(","))
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases::cases(24), ..ProptestConfig::default() })]

    /// `offsets(L)` equals the run-time layout's offsets, index by index, and a layout line
    /// prints the layout back.
    #[test]
    fn offsets_equal_dyn_layout_offsets(layouts in prop::collection::vec(layout_text(), 1..40)) {
        let mut input = String::new();
        for l in &layouts {
            input.push_str(&format!("offsets({l})\n{l}\n"));
        }
        let out = run(&input);
        let lines: Vec<&str> = out.lines().collect();
        prop_assert_eq!(lines.len(), 2 * layouts.len());
        for (k, l) in layouts.iter().enumerate() {
            let d: DynLayout = l.parse().unwrap();
            let want: Vec<String> = (0..d.size()).map(|i| d.offset(i).to_string()).collect();
            prop_assert_eq!(lines[2 * k], format!("[{}]", want.join(",")), "offsets of {}", l);
            prop_assert_eq!(lines[2 * k + 1], d.to_string());
        }
    }

    /// Random garbage never crashes the calculator and always gives exactly one line per
    /// non-empty line.
    #[test]
    fn garbage_gives_one_line_per_line(lines in prop::collection::vec(garbage_line(), 1..60)) {
        let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let out = run(&input);
        let expected = lines.iter().filter(|l| !l.trim().is_empty()).count();
        prop_assert_eq!(out.lines().count(), expected, "input:\n{}\noutput:\n{}", input, out);
        prop_assert!(!out.contains("internal error"), "a panic was caught:\n{}", out);
    }
}

/// Random calls of every function on random layouts and tilers.
fn call_line() -> impl Strategy<Value = String> {
    let unary = prop::sample::select(vec![
        "size",
        "cosize",
        "rank",
        "depth",
        "offsets",
        "coalesce",
        "filter",
        "right_inverse",
        "left_inverse",
        "complement",
        "print_layout",
        "filter_zeros",
        "nullspace",
    ]);
    let binary = prop::sample::select(vec![
        "composition",
        "logical_divide",
        "zipped_divide",
        "tiled_divide",
        "flat_divide",
        "logical_product",
        "zipped_product",
        "tiled_product",
        "flat_product",
        "blocked_product",
        "raked_product",
        "max_common_layout",
        "max_common_vector",
    ]);
    let tile_mode = prop_oneof![
        Just("_".to_string()),
        (1i64..6).prop_map(|n| n.to_string()),
        layout_text(),
    ];
    let tiler = prop_oneof![
        layout_text(),
        prop::collection::vec(tile_mode, 1..=3).prop_map(|m| format!("[{}]", m.join(","))),
    ];
    let coord = prop::collection::vec(
        prop_oneof![Just("_".to_string()), (0i64..3).prop_map(|c| c.to_string())],
        1..=3,
    )
    .prop_map(|c| {
        if c.len() == 1 {
            c[0].clone()
        } else {
            format!("({})", c.join(","))
        }
    });
    prop_oneof![
        (unary, layout_text()).prop_map(|(f, l)| format!("{f}({l})")),
        (binary, layout_text(), tiler).prop_map(|(f, a, t)| format!("{f}({a}, {t})")),
        (layout_text(), 1i64..80).prop_map(|(l, c)| format!("complement({l}, {c})")),
        (layout_text(), coord.clone()).prop_map(|(l, c)| format!("slice_and_offset({l}, {c})")),
        (layout_text(), coord).prop_map(|(l, c)| format!("eval({l}, {c})")),
        (layout_text(), prop::collection::vec(1i64..3, 1..=3)).prop_map(|(l, p)| format!(
            "coalesce({l}, ({}))",
            p.iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(",")
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases::cases(32), ..ProptestConfig::default() })]

    /// Every function on random arguments: one line each (the table and its empty line for
    /// `print_layout`), no caught panic, and every composition that succeeds is `A ∘ B`.
    #[test]
    fn random_calls_answer_on_one_line(calls in prop::collection::vec(call_line(), 1..40)) {
        let input: String = calls.iter().map(|l| format!("{l}\n")).collect();
        let out = run(&input);
        prop_assert!(!out.contains("internal error"), "a panic was caught:\n{}", out);
        let mut lines = out.lines();
        for call in &calls {
            let line = lines.next();
            prop_assert!(line.is_some(), "no output for {}", call);
            let line = line.unwrap();
            if call.starts_with("print_layout(") && !line.starts_with("error: ") {
                // skip the rest of the table, through its empty line
                for rest in lines.by_ref() {
                    if rest.is_empty() {
                        break;
                    }
                }
                continue;
            }
            if let Some(args) = call.strip_prefix("composition(").and_then(|c| c.strip_suffix(')')) {
                let (a, b) = args.split_once(", ").unwrap();
                if !line.starts_with("error: ") && !b.starts_with('[') {
                    let a: DynLayout = a.parse().unwrap();
                    let b: DynLayout = b.parse().unwrap();
                    let r: DynLayout = line.parse().unwrap();
                    prop_assert_eq!(r.size(), b.size(), "{} = {}", call, line);
                    for i in 0..b.size() {
                        prop_assert_eq!(r.offset(i), a.offset(b.offset(i)), "{} = {} at {}", call, line, i);
                    }
                }
            }
        }
        prop_assert!(lines.next().is_none(), "extra output:\n{}", out);
    }
}

/// Lines made of the calculator's own vocabulary, shuffled: names, numbers (huge and negative
/// too), brackets, `_`, `:`, `o`, `Sw<…>`, and a few stray bytes.
fn garbage_line() -> impl Strategy<Value = String> {
    let word = prop::sample::select(vec![
        "(",
        ")",
        "[",
        "]",
        "<",
        ">",
        ",",
        ":",
        "_",
        "_3",
        "o",
        "Sw<3,3,3>",
        "Sw<",
        "0",
        "1",
        "2",
        "3",
        "8",
        "-1",
        "-7",
        "64",
        "4096",
        "9223372036854775807",
        "99999999999999999999",
        "size",
        "cosize",
        "rank",
        "depth",
        "offsets",
        "eval",
        "idx2crd",
        "crd2idx",
        "coalesce",
        "filter",
        "composition",
        "complement",
        "right_inverse",
        "left_inverse",
        "logical_divide",
        "zipped_divide",
        "tiled_divide",
        "flat_divide",
        "logical_product",
        "zipped_product",
        "tiled_product",
        "flat_product",
        "blocked_product",
        "raked_product",
        "slice_and_offset",
        "swizzle",
        "print_layout",
        " ",
        "é",
        "#",
        "\t",
        "(4,8)",
        "(2,(3,4)):(1,(2,6))",
        "[4,_]",
        "4:2",
        "(4,8):(8,1)",
    ]);
    prop::collection::vec(word, 0..16).prop_map(|w| w.concat())
}

/// Issue 8: swizzled offsets at the edge of i64 are refused, not wrapped (nor an internal
/// error in the debug build this test runs).
#[test]
fn swizzled_offsets_at_the_edge_are_refused() {
    check(&[
        (
            "offsets(Sw<1,0,1> o 9223372036854775807 o 2:1)",
            "error: the swizzled offset O + L(c) = 9223372036854775807 + 1 overflows i64",
        ),
        (
            "eval(Sw<1,0,1> o 9223372036854775807 o 2:1, 1)",
            "error: the swizzled offset O + L(c) = 9223372036854775807 + 1 overflows i64",
        ),
        (
            "print_layout(Sw<3,3,3> o 9223372036854775807 o (2,2):(1,2))",
            "error: the swizzled offset O + L(c) = 9223372036854775807 + 3 overflows i64",
        ),
        (
            "eval(Sw<1,0,1> o 9223372036854775807 o 2:1, 0)",
            "9223372036854775806",
        ),
    ]);
}

#[test]
fn named_layouts_banks_and_pictures() {
    check(&[
        // the reference's worked offsets of a 20×28 f16 NZ (§1.8): (1,0)→16, (0,16)→512, (19,27)→827
        ("eval(NZ<f16>(20,28), (1,0))", "16"),
        ("eval(NZ<f16>(20,28), (0,16))", "512"),
        ("eval(NZ<f16>(20,28), (19,27))", "827"),
        // padded to whole 16×16 fractals: 32×32
        ("size(NZ<f16>(20,28))", "1024"),
        // the spelling and the table's entry are one
        (
            "nz_layout(16, 20, 28)",
            "((16,2),(16,2)):((16,256),(1,512))",
        ),
        ("NZ<f16>(20, 28)", "((16,2),(16,2)):((16,256),(1,512))"),
        (
            "NZ<f16>(32, 32, 16, 520)",
            "error: NZ layout alignment: the stride between fractal columns (StrideColumn1) must be a multiple of the fractal size 16·C0 = 256, but it is 520",
        ),
        (
            "NN<f16>(4, 32)",
            "error: NN takes no parameter: write NN(…) without `<f16>`",
        ),
        // oneDNN's nChw{B}c for any B (the named layer's documented nChw16c example), NC1HWC0,
        // CUTLASS's interleaved matrices
        ("nChw16c(2,17,2,3)", "(2,(16,2),2,3):(192,(1,96),48,16)"),
        (
            "NC1HWC0<f16>(1,20,2,2)",
            "(1,(16,2),2,2):(128,(1,64),32,16)",
        ),
        // RowMajorInterleaved<4> 8×3: r/4 groups of ld = 3·4, c·4, r%4
        ("eval(RowMajorInterleaved<4>(8,3), (5,2))", "21"),
        (
            "RowMajorInterleaved<f16>(8,3)",
            "error: RowMajorInterleaved<…> takes one integer, the interleave, not `f16`",
        ),
        // a 128-byte row of f16 read by 16-byte vectors: a row covers the 32 banks once
        // (1-way); one vector column of 8 rows 128 bytes apart hits the same 4 banks (8-way)
        (
            "bank_conflicts((8,64):(64,1), 2)",
            "row-wise 1-way, column-wise 8-way",
        ),
        // CuTe's 128-byte swizzle atom for 16-bit types removes both
        (
            "bank_conflicts(Sw<3,3,3> o (8,64):(64,1), 2)",
            "row-wise 1-way, column-wise 1-way",
        ),
        ("suggest_swizzle((8,64):(64,1), 2)", "Sw<3,3,3>"),
    ]);
    // a picture is a whole SVG document, then one empty line, as print_layout's table
    let out = run("svg((2,3):(3,1))\nsize(8:1)\n");
    let (svg, rest) = out
        .split_once("</svg>\n\n")
        .expect("svg then an empty line");
    assert!(svg.starts_with("<svg"), "{out}");
    assert_eq!(svg.matches("class=\"cell\"").count(), 6);
    assert_eq!(rest.trim(), "8");
}

/// The session printed in the README's calculator section, replayed line by line.
#[test]
fn the_readme_session_is_true() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme
        .find("A session (each input line followed by its output):\n\n```text\n")
        .expect("the README has its calculator session");
    let block = &readme[start..];
    let block = &block[block.find("```text\n").unwrap() + 8..];
    let block = &block[..block.find("```").unwrap()];
    let lines: Vec<&str> = block.lines().collect();
    // inputs are the lines that are not outputs: replay pairs up to the print_layout table
    let table_at = lines
        .iter()
        .position(|l| l.starts_with("print_layout"))
        .unwrap();
    let pairs: Vec<(&str, &str)> = lines[..table_at].chunks(2).map(|p| (p[0], p[1])).collect();
    assert!(pairs.len() >= 8, "{pairs:?}");
    check(&pairs);
}
