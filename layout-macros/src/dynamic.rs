//! Stage 4b: an algebra call with a leaf the macro cannot see → run-time evaluation.
//!
//! When any layout argument of `layout!(op(…))` (or of a nested call, or of a tiler mode) has a
//! dynamic leaf or a const generic, the call cannot be evaluated at expansion time. Like CuTe,
//! it is then evaluated at run time: every argument is built by the ordinary `layout!`
//! expansion (its static parts still checked at compile time), converted with `.to_dyn()?`,
//! and the same entry of layout-core's table of operations (`algebra::ops`) the static path
//! evaluates is called; its argument kinds are checked at expansion time by the table's rules.
//! The argument expressions are evaluated once, in order, outside the closure that runs the
//! fallible part, so `?` and `return` in a user's leaf keep their meaning. The whole call is a
//! `Result<DynLayout, LayoutError>` (`Result<i64, LayoutError>` for `max_common_vector`).

use crate::check::{self, Errors, Site};
use crate::eval::AlgError;
use layout_core::algebra::ops::{Class, Op};

use crate::parse::{Arg, Call, Input, LeafKind, Mode, Node, Stride};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// Whether an input has a leaf the macro cannot see (a dynamic expression or a const generic).
fn input_unseen(input: &Input) -> bool {
    let mut leaves = input.shape.leaves();
    if let Stride::Explicit(d) = &input.stride {
        leaves.extend(d.leaves());
    }
    leaves
        .iter()
        .any(|l| matches!(l.kind, LeafKind::Dynamic(_) | LeafKind::Opaque(_)))
}

/// Whether a call (its arguments, tiler modes and nested calls) has a leaf the macro cannot see.
pub fn has_unseen(call: &Call) -> bool {
    call.args.iter().any(|a| match a {
        Arg::Layout(input) => input_unseen(input),
        Arg::Tile(modes, _) => modes.iter().flatten().any(input_unseen),
        Arg::Call(inner) => has_unseen(inner),
        Arg::Int(..) => false,
    })
}

/// The generated code, in two parts.
#[derive(Default)]
struct Code {
    /// `let`s evaluating the user's leaves, outside the closure.
    outer: Vec<TokenStream>,
    /// Fallible statements, inside the closure.
    inner: Vec<TokenStream>,
    /// Number of locals made so far.
    n: usize,
}

impl Code {
    fn local(&mut self, what: &str) -> Ident {
        self.n += 1;
        Ident::new(&format!("__layout_{what}_{}", self.n), Span::mixed_site())
    }

    /// The typed layout of an input, bound outside the closure; `None` after an error.
    fn layout(&mut self, input: Input, errors: &mut Errors) -> Option<Ident> {
        let checked = check::check(input, Mode::Value);
        if let Some(e) = checked.errors {
            errors.push(e);
            return None;
        }
        let value = crate::expand::value(checked.plan.as_ref()?);
        let id = self.local("arg");
        self.outer.push(quote!(let #id = #value;));
        Some(id)
    }
}

/// An evaluated argument: its class (known at expansion time) and the local holding its
/// run-time value, a `layout_core::algebra::ops::Arg`.
struct RtArg {
    class: Class,
    value: Ident,
}

/// The run-time expansion of a call with a leaf the macro cannot see.
///
/// # Errors
/// The errors of the arguments (all together), and misuse of the operation's arguments, with the
/// same messages as the static path; rules the operation breaks are reported at run time.
pub fn expand(call: Call) -> syn::Result<TokenStream> {
    let mut code = Code::default();
    let (res, is_int) = call_code(call, &mut code)?;
    let ty = if is_int {
        quote!(i64)
    } else {
        quote!(::layout::DynLayout)
    };
    let Code { outer, inner, .. } = code;
    Ok(quote!({
        #(#outer)*
        ::layout::__private::run::<#ty>(move || {
            #(#inner)*
            ::core::result::Result::Ok(#res)
        })
    }))
}

/// Generate one call; returns the local holding its result and whether it is an integer.
fn call_code(call: Call, code: &mut Code) -> syn::Result<(Ident, bool)> {
    let op = call.name.to_string();
    let shown = call.written.clone().unwrap_or_else(|| op.clone());
    let mut errors = Errors(None);
    let mut args = Vec::new();
    let mut sites: Vec<Site> = Vec::new();
    for arg in call.args {
        match arg {
            Arg::Layout(input) => {
                sites.push(Site::of(&input));
                let class = match (&input.stride, &input.shape) {
                    (Stride::Default, Node::Leaf(_)) => Class::Int,
                    (Stride::Default, Node::Tuple(_)) => Class::Shape,
                    _ => Class::Layout,
                };
                let Some(typed) = code.layout(input, &mut errors) else {
                    continue;
                };
                let value = code.local("arg");
                code.inner.push(match class {
                    Class::Layout => quote!(
                        let #value = ::layout::__private::ops::Arg::Layout(#typed.to_dyn()?);
                    ),
                    _ => quote!(
                        let #value = ::layout::__private::ops::Arg::Shape(#typed.to_dyn()?.shape());
                    ),
                });
                args.push(RtArg { class, value });
            }
            Arg::Int(v, tokens) => {
                sites.push(Site::tokens(tokens));
                let value = code.local("arg");
                code.inner.push(quote!(
                    let #value = ::layout::__private::ops::Arg::Shape(::layout::DynTuple::leaf(#v));
                ));
                args.push(RtArg {
                    class: Class::Int,
                    value,
                });
            }
            Arg::Call(inner) => {
                sites.push(Site::tokens(inner.tokens.clone()));
                match call_code(inner, code) {
                    Ok((res, is_int)) => {
                        let value = code.local("arg");
                        let (class, arg) = if is_int {
                            (
                                Class::Int,
                                quote!(::layout::__private::ops::Arg::Shape(::layout::DynTuple::leaf(#res))),
                            )
                        } else {
                            (
                                Class::Layout,
                                quote!(::layout::__private::ops::Arg::Layout(#res)),
                            )
                        };
                        code.inner.push(quote!(let #value = #arg;));
                        args.push(RtArg { class, value });
                    }
                    Err(e) => errors.push(e),
                }
            }
            Arg::Tile(modes, tokens) => {
                let mut pushes = Vec::new();
                for m in modes {
                    match m {
                        None => pushes.push(quote!(::layout::TileMode::Keep)),
                        Some(input) => {
                            if let Some(typed) = code.layout(input, &mut errors) {
                                pushes.push(quote!(::layout::TileMode::Layout(#typed.to_dyn()?)));
                            }
                        }
                    }
                }
                let value = code.local("tile");
                code.inner.push(quote!(
                    let #value = ::layout::__private::ops::Arg::Tile({
                        let mut t = ::layout::Tile::EMPTY;
                        #(t.push(#pushes)?;)*
                        t
                    });
                ));
                args.push(RtArg {
                    class: Class::Tile,
                    value,
                });
                sites.push(Site::tokens(tokens));
            }
        }
    }
    if let Some(e) = errors.0 {
        return Err(e);
    }
    let (expr, is_int) = dispatch(&op, &args)
        .map_err(|e| check::alg_error(&shown, &call.tokens, &sites, args.len(), e))?;
    let res = code.local("res");
    code.inner.push(quote!(let #res = #expr;));
    Ok((res, is_int))
}

/// The run-time call for `op`: the table entry is found and the argument classes are checked
/// now, by the same rules as the static path ([`Op::check`]); the generated code evaluates the
/// same entry ([`Op::apply`]) on the run-time values.
fn dispatch(op: &str, args: &[RtArg]) -> Result<(TokenStream, bool), AlgError> {
    let entry = Op::lookup(op, args.len())?;
    let classes: Vec<Class> = args.iter().map(|a| a.class).collect();
    entry.check(&classes)?;
    let variant = Ident::new(&format!("{entry:?}"), Span::call_site());
    let values = args.iter().map(|a| &a.value);
    let f = if entry.gives_int() {
        quote!(apply_int)
    } else {
        quote!(apply_layout)
    };
    Ok((
        quote!(::layout::__private::ops::#f(::layout::__private::ops::Op::#variant, &[#(#values),*])?),
        entry.gives_int(),
    ))
}
