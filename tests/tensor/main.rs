//! Tests of tensors and strided views (one binary; one module per area).
//!
//! Every result is checked against `reference`, a deliberately naive model: a tensor is
//! materialised by evaluating its layout's modes (from `DynLayout`, not the tensor engine) at
//! every row-major coordinate, and operations are re-done on plain `Vec`s.

#[path = "../support/cases.rs"]
mod cases;
#[path = "../support/mod.rs"]
mod support;

mod reference;

mod arith;
mod broadcast;
mod construct;
mod conventions;
mod copy;
mod debug;
mod elementwise;
mod errors;
#[cfg(feature = "ndarray")]
mod interop;
mod reshape;
mod seeds;
mod swizzled;
mod tiling;
mod tour;
mod views;
