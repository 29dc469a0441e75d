//! The one ui suite: every mistake `layout!` and `Layout!` reject, the static algebra's refusals
//! (`algebra/`) and the tensor misuse cases,
//! with the reviewed diagnostic beside it (`tests/ui/<area>/<mistake>.rs` + `.stderr`), and
//! `pass` cases that must build and run. Because the suite has `pass` cases, trybuild *builds*
//! every case instead of running `cargo check`, so the `build/` cases see the
//! post-monomorphization const checks (rust-lang/rust#99682, trybuild#258). Regenerate with
//! `TRYBUILD=overwrite` and review every `.stderr`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    for area in [
        "congruence",
        "extent",
        "literal",
        "syntax",
        "overflow",
        "keyword",
        "limits",
        "dynamic",
        "type",
        "together",
        "fallback",
        "build",
        "macro-algebra",
        "algebra",
        "tensor",
        "named",
        "gemm",
    ] {
        t.compile_fail(format!("tests/ui/{area}/*.rs"));
    }
    t.pass("tests/ui/pass/*.rs");
}
