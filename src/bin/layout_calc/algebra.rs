//! The layout-algebra functions of the calculator, calling `layout::algebra`.

use super::eval::{Res, Value};
use super::parse::Term;

/// Evaluate an algebra function, or report an unknown name.
pub fn call(name: &str, _args: &[Term]) -> Res<Value> {
    Err(format!("unknown function `{name}`"))
}
