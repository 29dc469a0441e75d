//! How many random cases a property test runs.
//!
//! The README's `cargo test --workspace --all-features` runs a quarter of each property's full
//! count, so that it finishes in minutes; CI's full sweep sets `LAYOUT_FULL_SWEEP=1` and runs
//! every case. `PROPTEST_CASES` (proptest's own variable), when set, is the count for every
//! property.

/// The number of cases for a property whose full sweep is `full` cases.
pub fn cases(full: u32) -> u32 {
    if let Some(n) = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return n;
    }
    if std::env::var_os("LAYOUT_FULL_SWEEP").is_some_and(|v| !v.is_empty() && v != "0") {
        return full;
    }
    (full / 4).max(full.min(16))
}
