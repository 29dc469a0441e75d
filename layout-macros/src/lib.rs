//! The `layout!` and `Layout!` macros of the `layout` crate (use them through `layout`).
//!
//! The crate is split by stage, one module each: `parse` (tokens → a typed tree where every
//! number keeps its span) → `check` (semantic validation, all errors collected) → `eval`
//! (plain arithmetic with layout-core's `const fn`s, the same code as at run time) → `expand`
//! (tokens out). The entry points below only chain the stages.
#![forbid(unsafe_code)]

mod check;
mod dynamic;
mod eval;
mod expand;
mod parse;
#[cfg(test)]
mod tests;

use parse::Mode;
use proc_macro::TokenStream;

/// A layout value written in CuTe / Ascend C notation, checked at compile time.
///
/// ```text
/// layout!(((2,3),(2,4)) : ((1,4),(2,12)))     // hierarchical, fully static: a zero-sized value
/// layout!((Int<16>, rows/16) : (Int<1>, ld))  // mixed: `rows/16` and `ld` are run-time leaves
/// layout!((4,8))                              // compact column-major (CuTe's default)
/// layout!((4,8) : RowMajor)                   // also ColMajor, and CuTe's LayoutRight / LayoutLeft
/// layout!(8:2)   layout!((8):(1))             // integer-shaped and rank-1 layouts
/// layout!(composition((6,2):(8,2), (4,3):(3,1)))  // algebra on literal layouts, at compile time
/// layout!(composition((n,2):(1,n), 8:1))?          // a dynamic leaf: run time, a Result
/// ```
///
/// **Leaves.** An integer literal, `-1`, `_16` (CuTe's printing) and `Int<16>` are static
/// (`Int<N>` in the type); `Int<N>` with a const generic and `Int<{ EXPR }>` with a const
/// expression are static too, checked by the compiler when it builds. Any other Rust expression
/// of an integer type (`rows / 16`, `ld`, `{ n * 2 }`, a `const` item) is a dynamic leaf, stored
/// as `i64`. A parenthesised group standing alone is a tuple; write `{ a + b }` for an expression
/// in parentheses.
///
/// **Strides.** Omitted, `ColMajor` or `RowMajor`: the compact strides, static wherever every
/// factor is static, otherwise computed once at run time (each dynamic leaf is evaluated once).
///
/// **Result.** `::layout::Layout<S, D>` built with the `const fn` `Layout::new`: no run-time work
/// for static parts, usable in `const` items when fully static.
///
/// **Algebra.** `op(args)` with CuTe's operation names. On literal static layouts it is evaluated
/// while the macro expands and gives the static result (a compile error names any rule broken).
/// When any layout argument — of the call, of a nested call, or a tiler mode — has a dynamic
/// leaf or a const generic, the whole call is evaluated at run time instead: each argument is
/// built by the ordinary expansion, converted with `.to_dyn()?`, and the same entry of
/// layout-core's table of operations is evaluated; the value is a `Result<DynLayout, LayoutError>` (`Result<i64, _>` for
/// `max_common_vector`). `Layout![op(…)]` refuses such a call.
///
/// **Errors** (all reported together, each on the offending token): shape and stride not
/// congruent, an extent ≤ 0, a leaf that is not an integer, a literal outside `i64`, malformed
/// text, size or cosize overflowing `i64`, an unknown stride keyword, more than `MAX_LEAVES`
/// leaves or 8 modes in one tuple, and any algebra rule an operation breaks.
///
/// Tested examples are in the documentation of the `layout` crate.
#[proc_macro]
pub fn layout(input: TokenStream) -> TokenStream {
    expand(input.into(), Mode::Value)
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// A layout type written in CuTe notation: `type A = Layout![(2,4):(4,1)];`.
///
/// ```text
/// type Tile = Layout![((2,3),(2,4)) : ((1,4),(2,12))];  // Layout<((Int<2>,Int<3>),…), …>
/// type Panel = Layout![(16, i64) : (1, 16)];            // `i64` marks a dynamic leaf
/// fn f<const M: i64>() -> Layout![(M, 8) : (8, 1)]      // a const generic `N` is `Int<N>`
/// type K = Layout![({ K }, 2)];                         // `{ EXPR }` is `Int<{ EXPR }>`
/// type R = Layout![composition((6,2):(8,2), (4,3):(3,1))];  // the type of the static result
/// ```
///
/// Leaves: literals, `-1`, `_N` and `Int<…>` as in `layout!`; an identifier or path is a const
/// generic or const item; `i64` is a dynamic leaf. Compact strides (no stride, `ColMajor`,
/// `RowMajor`) must be computable in a type: a product of const generics is refused (stable Rust
/// has no `generic_const_exprs`), write the stride explicitly.
#[proc_macro]
#[allow(non_snake_case)]
pub fn Layout(input: TokenStream) -> TokenStream {
    expand(input.into(), Mode::Type)
        .unwrap_or_else(type_error)
        .into()
}

/// The errors of `Layout!`, as a type: one `compile_error!` (a type position holds one macro
/// call; a second one after it made rustc report spurious syntax errors), the first error.
fn type_error(e: syn::Error) -> proc_macro2::TokenStream {
    e.clone()
        .into_iter()
        .next()
        .unwrap_or(e)
        .into_compile_error()
}

/// Parse, check, evaluate and expand one input.
fn expand(input: proc_macro2::TokenStream, mode: Mode) -> syn::Result<proc_macro2::TokenStream> {
    match parse::parse_top(input, mode)? {
        parse::Top::Layout(layout) => Ok(finish(check::check(layout, mode), mode)),
        parse::Top::Call(call) if mode == Mode::Value && dynamic::has_unseen(&call) => {
            dynamic::expand(call)
        }
        parse::Top::Call(call) => {
            let tokens = call.tokens.clone();
            let value = check::eval_call(call)?;
            expand::static_result(&value, mode, &tokens)
        }
    }
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
        (Some(e), _) if mode == Mode::Value => e.into_compile_error(),
        (Some(e), _) => type_error(e),
        // The check leaves out the plan only after an error.
        (None, None) => quote::quote!(::core::compile_error!("layout!: internal error")),
    }
}
