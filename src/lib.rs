//! # layout
//!
//! Tensor layouts written inline in Rust, in CuTe / Ascend C notation, checked at compile time.
//!
//! ```
//! use layout::{layout, Layout, Int};
//! let l = layout!(((2,3),(2,4)) : ((1,4),(2,12)));
//! assert_eq!(core::mem::size_of_val(&l), 0);          // fully static: a zero-sized type
//! assert_eq!(l.offset(((1, 2), (1, 3))), 1 + 8 + 2 + 36);
//! assert_eq!(l.to_string(), "((_2,_3),(_2,_4)):((_1,_4),(_2,_12))");
//! ```
//!
//! This crate is a facade: everything lives in `layout-core` (integers, tuples, layouts, algebra,
//! tensors) and `layout-macros` (the `layout!` macro), re-exported here so users depend on one crate.
#![no_std]
#![warn(missing_docs)]

#[cfg(feature = "std")]
extern crate std;

pub use layout_core::*;
pub use layout_macros::{Layout, layout};

#[doc(hidden)]
pub mod __private {
    pub use layout_core::__private::*;
    pub use layout_core::{Int, Layout, ToDynInt};

    /// Convert a dynamic leaf written in `layout!` to `i64` (saturating for huge unsigned values).
    #[inline(always)]
    pub fn dynamic<T: ToDynInt>(v: T) -> i64 {
        v.to_dyn_int()
    }
}
