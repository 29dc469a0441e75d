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
    //! Support items for the code `layout!` and `Layout!` generate. Not a public API.
    pub use layout_core::__private::*;
    pub use layout_core::{Int, Layout, ToDynInt};

    /// An integer type that can stand as a dynamic leaf of `layout!`.
    ///
    /// Implemented directly (no blanket impl) so that the compiler reports this trait's message
    /// at the user's expression when a leaf has the wrong type.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a dynamic layout leaf",
        label = "this leaf must be an integer",
        note = "a dynamic leaf of `layout!` is any expression of an integer type (`i64`, `usize`, `u32`, `i32`, …); it is stored as `i64`"
    )]
    pub trait DynLeaf: Copy {
        /// The value as `i64` (unsigned values above `i64::MAX` saturate, and every later check
        /// then rejects them; nothing wraps around).
        fn to_leaf(self) -> i64;
    }

    macro_rules! dyn_leaf {
        ($($t:ty),*) => {$(
            impl DynLeaf for $t {
                #[inline(always)]
                fn to_leaf(self) -> i64 { ToDynInt::to_dyn_int(self) }
            }
        )*};
    }
    dyn_leaf!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

    impl<const N: i64> DynLeaf for Int<N> {
        #[inline(always)]
        fn to_leaf(self) -> i64 {
            N
        }
    }

    /// Convert a dynamic leaf written in `layout!` to `i64` (saturating for huge unsigned values).
    #[inline(always)]
    pub fn dynamic<T: DynLeaf>(v: T) -> i64 {
        v.to_leaf()
    }

    /// The product of the factors of a compact stride computed at run time. Saturates instead of
    /// wrapping: a saturated stride makes the layout's cosize overflow, which `to_dyn` rejects.
    #[inline(always)]
    pub const fn product(factors: &[i64]) -> i64 {
        let mut p: i64 = 1;
        let mut i = 0;
        while i < factors.len() {
            p = p.saturating_mul(factors[i]);
            i += 1;
        }
        p
    }

    /// Check the static part of a layout whose static leaves include const generics or const
    /// items (`Int<N>`, `Int<{N}>`) the macro cannot see. `layout!` calls this in an inline
    /// `const` block, with dynamic leaves given as extent 1 and stride 0 so that only the static
    /// part is checked. The check runs when the compiler evaluates that block (for a generic
    /// function: when it is instantiated by a build; `cargo check` does not instantiate:
    /// rust-lang/rust#99682).
    pub const fn check_static(shape: &[i64], stride: &[i64]) {
        match layout_core::DynLayout::from_flat(shape, stride) {
            Ok(_) => {}
            Err(layout_core::LayoutError::NonPositiveExtent { .. }) => {
                panic!("layout!: a static shape extent is zero or negative")
            }
            Err(layout_core::LayoutError::Overflow { .. }) => {
                panic!("layout!: the size or cosize of this static layout overflows i64")
            }
            Err(_) => panic!("layout!: invalid static layout"),
        }
    }
}
