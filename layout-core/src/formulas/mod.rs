//! The closed-form layouts of the field's named formats: integers in, a [`DynLayout`] out.
//!
//! These are the formulas behind [`named`](crate::named), kept in a layer of their own directly
//! above the layouts so that the operation table ([`algebra::ops`](crate::algebra::ops)) can offer
//! them to every front end (`layout!`, `Layout!`, `layout-calc`) while the named layer wraps them
//! in types (`Nz<T, M, N>`, `NChwc<B, N, C, H, W>`) and generic constructors
//! (`make_nz_layout::<T>`). Every function is a `const fn`, so the same arithmetic serves the
//! static types' associated consts, the macro's expansion-time checks and run-time callers.
//!
//! [`DynLayout`]: crate::DynLayout

pub mod ascend;
pub mod blocked;

use crate::LayoutError;

/// `a · b`, or the overflow error of a named layout's stride.
pub(crate) const fn mul(a: i64, b: i64) -> Result<i64, LayoutError> {
    match a.checked_mul(b) {
        Some(v) => Ok(v),
        None => Err(LayoutError::Overflow {
            what: "named layout stride",
        }),
    }
}

/// `⌈a/b⌉` for `a, b > 0`.
pub(crate) const fn ceil_div(a: i64, b: i64) -> i64 {
    (a - 1) / b + 1
}
