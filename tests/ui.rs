//! The one ui suite: every mistake `layout!` and `Layout!` reject, the static algebra's refusals
//! (`algebra/`) and the tensor misuse cases, with the reviewed diagnostic beside it
//! (`tests/ui/<area>/<mistake>.rs` + `.stderr`), and `pass` cases that must build and run.
//! Regenerate with `TRYBUILD=overwrite` and review every `.stderr`.
//!
//! Two runs, one after the other (trybuild runs a `TestCases` when it is dropped):
//! - the mistakes `cargo check` reports, all checked by one `cargo check --keep-going` (trybuild
//!   does that when a run has no `pass` case: one compiler session instead of one per case);
//! - the `build/` cases, which only a build sees (post-monomorphization const checks,
//!   rust-lang/rust#99682, trybuild#258), the `algebra/` ones (const evaluation of the static
//!   algebra: a build reports them with other notes than `cargo check`), and the `pass` cases,
//!   built and run one by one.

#[test]
fn ui() {
    let checked = trybuild::TestCases::new();
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
        "macro-algebra",
        "tensor",
        "named",
        "gemm",
    ] {
        checked.compile_fail(format!("tests/ui/{area}/*.rs"));
    }
    drop(checked);

    let built = trybuild::TestCases::new();
    built.compile_fail("tests/ui/build/*.rs");
    built.compile_fail("tests/ui/algebra/*.rs");
    built.pass("tests/ui/pass/*.rs");
}
