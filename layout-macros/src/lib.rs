//! The `layout!` and `Layout!` macros of the `layout` crate (use them through `layout`).
#![forbid(unsafe_code)]

use proc_macro::TokenStream;

/// Placeholder until the macro lands.
#[proc_macro]
pub fn layout(_input: TokenStream) -> TokenStream {
    "compile_error!(\"layout! is not implemented yet\")"
        .parse()
        .unwrap()
}

/// Placeholder until the macro lands.
#[proc_macro]
#[allow(non_snake_case)]
pub fn Layout(_input: TokenStream) -> TokenStream {
    "compile_error!(\"Layout! is not implemented yet\")"
        .parse()
        .unwrap()
}
