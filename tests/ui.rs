//! Compile-fail tests (trybuild): each `tests/ui/<area>/*.rs` must fail to compile with the
//! `.stderr` beside it.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/tensor/*.rs");
}
