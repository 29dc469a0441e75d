//! The `layout!` and `Layout!` macros of the `layout` crate (use them through `layout`).
//!
//! The crate is split by stage, one module each: `parse` (tokens → a typed tree where every
//! number keeps its span) → `check` (semantic validation, all errors collected) → `eval`
//! (plain arithmetic with layout-core's `const fn`s, the same code as at run time) → `expand`
//! (tokens out). The entry points below only chain the stages.
#![forbid(unsafe_code)]

mod check;
mod eval;
mod expand;
mod parse;

use parse::Mode;
use proc_macro::TokenStream;

/// A layout value written in CuTe / Ascend C notation; see the `layout` crate for the notation.
#[proc_macro]
pub fn layout(input: TokenStream) -> TokenStream {
    parse::parse(input.into(), Mode::Value)
        .map(|input| finish(check::check(input, Mode::Value), Mode::Value))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// A layout type written in CuTe notation: `type A = Layout![(2,4):(4,1)];`.
#[proc_macro]
#[allow(non_snake_case)]
pub fn Layout(input: TokenStream) -> TokenStream {
    parse::parse(input.into(), Mode::Type)
        .map(|input| finish(check::check(input, Mode::Type), Mode::Type))
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// The expansion, preceded by the errors; after an error the expansion is the repaired layout so
/// that later uses still type-check (`Layout!` then gives only the errors: `compile_error!`
/// already stands for a type).
fn finish(checked: check::Checked, mode: Mode) -> proc_macro2::TokenStream {
    let emit = match mode {
        Mode::Value => expand::value,
        Mode::Type => expand::ty,
    };
    match (checked.errors, checked.plan.as_ref().map(emit)) {
        (None, Some(v)) => v,
        (Some(e), Some(v)) if mode == Mode::Value => {
            let e = e.into_compile_error();
            quote::quote!({ #e #v })
        }
        (Some(e), _) => e.into_compile_error(),
        (None, None) => unreachable!("a plan is missing only after an error"),
    }
}
