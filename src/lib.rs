//! # layout
//!
//! Tensor layouts written inline in Rust, in CuTe / Ascend C notation, checked at compile time.
//!
//! ```
//! use layout::{layout, DynLayout};
//! let l = layout!(((2,3),(2,4)) : ((1,4),(2,12)));
//! assert_eq!(core::mem::size_of_val(&l), 0);          // fully static: a zero-sized type
//! assert_eq!(l.offset(((1, 2), (1, 3))), 1 + 8 + 2 + 36);
//! assert_eq!(l.to_string(), "((_2,_3),(_2,_4)):((_1,_4),(_2,_12))");
//! // the same text at run time gives the same layout
//! let d: DynLayout = "((2,3),(2,4)):((1,4),(2,12))".parse().unwrap();
//! assert_eq!(l.to_dyn().unwrap(), d);
//! ```
//!
//! This crate is a facade: everything lives in `layout-core` (integers, tuples, layouts, algebra,
//! tensors) and `layout-macros` (the `layout!` macro), re-exported here so users depend on one crate.
//!
//! The package is `tensor-layout` on crates.io (the name `layout` is taken by an unrelated
//! crate); the library keeps the name `layout`, which the macros' expansions name
//! (`::layout::Layout`), so depend on it under its own name: `tensor-layout = "0.1"`, then
//! `use layout::…`.
//!
//! ## Features
//!
//! - `std` (default): implies `alloc`; the GEMM (`gemm`) and `std::error::Error` impls.
//! - `alloc` (implied by `std`): heap-backed data in a `no_std` build — owned tensors
//!   (`Tensor::from_vec`, `to_owned`, `map`, `concat`), `packed`, `sparse`, `svg`.
//! - `rayon` (default): implies `std`; the GEMM's threads come from rayon's pool and
//!   `par_copy_from` splits large copies (without it the GEMM starts threads per call).
//! - `ndarray`: zero-copy conversions between tensors and `ndarray` views
//!   (`Tensor::as_ndarray`, `TensorRef::from_ndarray`).
//!
//! With `default-features = false` the crate is `no_std` without allocation: layouts, the
//! algebra, named layouts, swizzles, and tensors over borrowed slices.
//!
//! ## The `layout!` notation
//!
//! `layout!(shape : stride)` takes CuTe's text inline. Literals, `-1`, `_N` and `Int<N>` are
//! static leaves (their value is in the type); any other integer expression is a dynamic leaf.
//! Without a stride, or with `ColMajor` / `RowMajor`, the strides are the compact ones:
//!
//! ```
//! use layout::{layout, Int, Layout};
//! let (rows, ld) = (64usize, 72);
//! let nz = layout!((Int<16>, rows / 16) : (Int<1>, ld));     // Ascend's `Std::Int<16>{}` style
//! assert_eq!(nz.to_string(), "(_16,4):(_1,72)");
//! assert_eq!(nz.offset((3, 2)), 3 + 2 * 72);
//! assert_eq!(layout!((2, rows, 3)).to_string(), "(_2,64,_3):(_1,_2,128)");   // col-major
//! assert_eq!(layout!((4, 8) : RowMajor).to_string(), "(_4,_8):(_8,_1)");
//! assert_eq!(layout!(8 : -1).offset(3), -3);                  // integer-shaped, flipped
//!
//! // the type-position companion, for signatures and generic code
//! type Tile = Layout![(2, 4) : (4, 1)];
//! const T: Tile = layout!((2, 4) : (4, 1));
//! fn panel(cols: i64) -> Layout![(16, i64) : (1, 16)] {
//!     layout!((16, cols) : (1, 16))
//! }
//! assert_eq!(T.offset((1, 3)), 7);
//! assert_eq!(panel(5).size(), 80);
//! ```
//!
//! Mistakes are compile errors on the offending token, all reported at once:
//!
//! ```compile_fail
//! let l = layout::layout!((4, (2, 2)) : (1, 4));
//! // error: shape and stride are not congruent: (4,(2,2)) has 3 leaves, (1,4) has 2
//! ```
//!
//! Static leaves the macro cannot see (const generics, `Int<{ N }>`) are checked by the compiler
//! when it builds the code (`cargo build`, not `cargo check`):
//!
//! ```compile_fail,E0080
//! fn tile<const N: i64>() -> i64 {
//!     layout::layout!((Int<N>, 4)).size()
//! }
//! let _ = tile::<0>(); // error: layout!: a static shape extent is zero or negative
//! ```
//!
//! ## Algebra at compile time
//!
//! On literal static layouts, `layout!` evaluates CuTe's algebra while it expands, with the same
//! `const fn`s run-time layouts use, and gives the static result; a composition CuTe would get
//! wrong is a compile error naming the rule (cutlass#3177):
//!
//! ```
//! use layout::layout;
//! let r = layout!(composition((6,2):(8,2), (4,3):(3,1)));
//! assert_eq!(r.to_string(), "((_2,_2),_3):((_24,_2),_8)");
//! assert_eq!(core::mem::size_of_val(&r), 0);
//! let t = layout!(logical_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)]));
//! assert_eq!(t.size(), 288);
//! ```
//!
//! ```compile_fail
//! let _ = layout::layout!(composition((6,2):(1,10), 4:4));
//! // error: composition is not admissible (stride divisibility): leaf 0 of B, 4:4, …
//! ```
//!
//! ## Algebra on mixed layouts, at run time
//!
//! When any layout argument of an operation (or of a nested operation, or a tiler mode) has a
//! dynamic leaf or a const generic, the macro cannot evaluate it while it expands. As in CuTe,
//! the operation then runs at run time: each argument is built by the ordinary `layout!`
//! expansion (its static parts still checked at compile time, each dynamic leaf evaluated once),
//! converted to a [`DynLayout`] (a shape to a [`DynTuple`], a tiler to a [`Tile`]), and the same
//! `DynLayout` method is called. The whole call is a `Result<DynLayout, LayoutError>`
//! (`Result<i64, LayoutError>` for `max_common_vector`), `Err` with exactly the error the method
//! gives. In type position (`Layout![op(…)]`) such a call is refused: a run-time result has no
//! static type.
//!
//! ```
//! use layout::{DynLayout, layout};
//! let n = 4;
//! let r = layout!(composition((n, 2):(1, n), 8:1))?;
//! let a: DynLayout = "(4,2):(1,4)".parse()?;
//! assert_eq!(r, a.composition(&"8:1".parse()?)?);
//! let n = 6;
//! let e = layout!(composition((n, 2):(1, 10), 4:4)).unwrap_err();
//! assert_eq!(Err(e), "(6,2):(1,10)".parse::<DynLayout>()?.composition(&"4:4".parse()?));
//! # Ok::<(), layout::LayoutError>(())
//! ```
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
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

    /// Run the fallible part of an algebra call that `layout!` evaluates at run time.
    #[inline(always)]
    pub fn run<T>(
        f: impl FnOnce() -> Result<T, layout_core::LayoutError>,
    ) -> Result<T, layout_core::LayoutError> {
        f()
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
        // the message carries the numbers (a formatted const panic would cut them)
        if let Err(e) = layout_core::DynLayout::from_flat(shape, stride) {
            let m = e.const_message_in("layout!: invalid static layout");
            panic!("{}", m.as_str())
        }
    }
}
