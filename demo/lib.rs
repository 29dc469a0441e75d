//! Nothing: the package `layout-demo` holds the README's demo, `examples/demo.rs` of the
//! repository (`cargo run --release --example demo`), apart from tensor-layout's
//! dev-dependencies.
#![no_std]
