//! The layout calculator's engine: [`run_line`] turns one input line into its output text.
//!
//! - [`parse`]: text → [`parse::Term`]: calls, swizzles and value texts (read later by layout-core's `FromStr`);
//! - [`eval`]: terms → values, the basic functions (`size`, `eval`, `offsets`, `print_layout`, …);
//! - [`algebra`]: the layout-algebra functions (`composition`, `logical_divide`, …);
//! - [`f2`]: the F2 functions (`f2_invert`, `mixed_offsets`, …), arguments separated by `;`.

pub mod algebra;
pub mod eval;
pub mod f2;
pub mod parse;

/// The output for one non-empty line: exactly one line (no trailing newline), except for
/// `print_layout`, whose table is followed by one empty line. Errors are `error: <reason>`.
pub fn run_line(line: &str) -> String {
    if let Some(r) = f2::try_run(line) {
        return match r {
            Ok(v) => v,
            Err(e) => format!("error: {}", e.replace('\n', " ")),
        };
    }
    let result = parse::parse_line(line)
        .map_err(|e| e.to_string())
        .and_then(|t| eval::eval_top(&t));
    match result {
        Ok(v) => v.render(),
        Err(e) => format!("error: {}", e.replace('\n', " ")),
    }
}
