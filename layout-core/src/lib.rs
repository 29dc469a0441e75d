//! # layout-core
//!
//! The arithmetic of the `layout` crate: static and dynamic integers, hierarchical integer
//! tuples, layouts (CuTe's `Shape:Stride` functions from coordinates to offsets), their printing
//! and parsing. Most users depend on the facade crate `layout`, which re-exports everything here
//! together with the `layout!` macro.
//!
//! ## Features
//!
//! - `std` (default): implies `alloc`; the GEMM (`gemm`) and `std::error::Error` impls.
//! - `alloc` (implied by `std`): heap-backed data without `std` — owned tensors
//!   (`Tensor::from_vec`, `to_owned`, `map`, `concat`), `packed`, `sparse`, `svg`.
//! - `rayon` (default): implies `std`; the GEMM's threads from rayon's pool and parallel copies.
//! - `ndarray`: zero-copy conversions between tensors and `ndarray` views.
//!
//! Without features the crate is `no_std` without allocation: layouts, the algebra, named
//! layouts, swizzles and tensors over borrowed slices.
//!
//! ## One source of truth
//!
//! All arithmetic on layouts is written once, as `const fn`s on the run-time types [`DynTuple`]
//! and [`DynLayout`]. Static layouts compute their associated consts with those functions, the
//! `layout!` macro runs them at expansion time to check its input, and run-time layouts call them
//! directly.
//!
//! ```
//! use layout::{DynLayout, Int, Layout};
//! // ((2,3),(2,4)):((1,4),(2,12)) written by hand (the `layout!` macro writes this for you)
//! type S = ((Int<2>, Int<3>), (Int<2>, Int<4>));
//! type D = ((Int<1>, Int<4>), (Int<2>, Int<12>));
//! let l = Layout::<S, D>::default();
//! assert_eq!(core::mem::size_of_val(&l), 0);
//! assert_eq!(Layout::<S, D>::STATIC_SIZE, Some(48));
//! assert_eq!(l.offset(((1, 2), (1, 3))), 1 + 8 + 2 + 36);
//! let d: DynLayout = "((2,3),(2,4)):((1,4),(2,12))".parse().unwrap();
//! assert_eq!(l.to_dyn().unwrap(), d);
//! ```
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![deny(
    unsafe_op_in_unsafe_fn,
    clippy::undocumented_unsafe_blocks,
    clippy::missing_safety_doc
)]
#![warn(missing_docs)]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod algebra;
#[cfg(feature = "alloc")]
mod any_error;
mod const_try;
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub mod conv;
mod dyn_layout;
mod error;
pub mod f2;
mod formulas;
#[cfg(feature = "std")]
#[cfg_attr(docsrs, doc(cfg(feature = "std")))]
pub mod gemm;
mod int;
mod int_tuple;
pub mod isa;
mod layout;
mod mode_access;
pub mod named;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub mod packed;
mod parse;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub mod sparse;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub mod svg;
pub mod swizzle;
mod table;
mod tuple;

pub mod walk;

pub mod tensor;

pub use algebra::{Algebra, MAX_TILE_MODES, SliceCoord, Tile, TileMode};
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use any_error::{Error, ErrorKind};
pub use dyn_layout::DynLayout;
pub use error::{CompositionRule, ConstMessage, LayoutError};
pub use int::{Int, Integer, ToDynInt};
pub use int_tuple::{IntTuple, MAX_ARITY};
pub use layout::{Congruent, Coord, Layout, StaticLayout, ToDynCoord, offset};
pub use mode_access::{Append, Get, Prepend};
pub use swizzle::{Sw, Swizzle, SwizzleFn, SwizzledLayout};
pub use table::LayoutTable;
pub use tensor::Tensor;
pub use tuple::{DynTuple, MAX_LEAVES, MAX_TOKENS, Profile};
pub use walk::{AnyLayout, PostPeriod};

#[doc(hidden)]
pub mod __private {
    pub use crate::algebra::ops;
    pub use crate::int_tuple::{tuple_leaf_values, tuple_profile};
}
