//! Stage 4b: an algebra call with a leaf the macro cannot see → run-time evaluation.
//!
//! When any layout argument of `layout!(op(…))` (or of a nested call, or of a tiler mode) has a
//! dynamic leaf or a const generic, the call cannot be evaluated at expansion time. Like CuTe,
//! it is then evaluated at run time: every argument is built by the ordinary `layout!`
//! expansion (its static parts still checked at compile time), converted with `.to_dyn()?`,
//! and the same [`DynLayout`](layout_core::DynLayout) method the static path uses is called.
//! The argument expressions are evaluated once, in order, outside the closure that runs the
//! fallible part, so `?` and `return` in a user's leaf keep their meaning. The whole call is a
//! `Result<DynLayout, LayoutError>` (`Result<i64, LayoutError>` for `max_common_vector`).

use crate::check::{self, Errors};
use crate::eval::{AlgError, forms};

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
    })
}

/// What an evaluated argument can serve as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A layout only (explicit stride, or the result of an operation).
    Layout,
    /// A bare shape (no stride), also a layout (compact column-major); `true` for an integer.
    Shape(bool),
    /// A by-mode tiler.
    Tile,
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

/// An evaluated argument: its kind and the local holding its run-time value (a `DynLayout`, or
/// a `Tile`), and for a bare shape the local holding the shape.
struct RtArg {
    kind: Kind,
    value: Ident,
    shape: Option<Ident>,
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
    let mut errors = Errors(None);
    let mut args = Vec::new();
    let mut spans: Vec<Box<dyn Fn(String) -> syn::Error>> = Vec::new();
    for arg in call.args {
        match arg {
            Arg::Layout(input) => {
                let node = input.shape.clone();
                spans.push(Box::new(move |m| node.error(m)));
                let kind = match (&input.stride, &input.shape) {
                    (Stride::Default, Node::Leaf(_)) => Kind::Shape(true),
                    (Stride::Default, Node::Tuple(_)) => Kind::Shape(false),
                    _ => Kind::Layout,
                };
                let Some(typed) = code.layout(input, &mut errors) else {
                    continue;
                };
                let value = code.local("dyn");
                code.inner
                    .push(quote!(let #value: ::layout::DynLayout = #typed.to_dyn()?;));
                let shape = (kind != Kind::Layout).then(|| {
                    let s = code.local("shape");
                    code.inner
                        .push(quote!(let #s: ::layout::DynTuple = #value.shape();));
                    s
                });
                args.push(RtArg { kind, value, shape });
            }
            Arg::Call(inner) => {
                let tokens = inner.tokens.clone();
                spans.push(Box::new(move |m| syn::Error::new_spanned(&tokens, m)));
                match call_code(inner, code) {
                    Ok((res, false)) => args.push(RtArg {
                        kind: Kind::Layout,
                        value: res,
                        shape: None,
                    }),
                    Ok((n, true)) => {
                        let value = code.local("dyn");
                        let s = code.local("shape");
                        code.inner.push(quote!(
                            let #value: ::layout::DynLayout = ::layout::DynLayout::leaf(#n, 1)?;
                            let #s: ::layout::DynTuple = ::layout::DynTuple::leaf(#n);
                        ));
                        args.push(RtArg {
                            kind: Kind::Shape(true),
                            value,
                            shape: Some(s),
                        });
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
                    let #value: ::layout::Tile = {
                        let mut t = ::layout::Tile::EMPTY;
                        #(t.push(#pushes)?;)*
                        t
                    };
                ));
                args.push(RtArg {
                    kind: Kind::Tile,
                    value,
                    shape: None,
                });
                spans.push(Box::new(move |m| syn::Error::new_spanned(&tokens, m)));
            }
        }
    }
    if let Some(e) = errors.0 {
        return Err(e);
    }
    let (expr, is_int) = dispatch(&op, &args)
        .map_err(|e| check::alg_error(&op, &call.tokens, &spans, args.len(), e))?;
    let res = code.local("res");
    code.inner.push(quote!(let #res = #expr;));
    Ok((res, is_int))
}

/// The method call for `op` on evaluated arguments: the run-time twin of
/// [`eval::apply`](crate::eval::apply), argument for argument.
fn dispatch(op: &str, args: &[RtArg]) -> Result<(TokenStream, bool), AlgError> {
    let arity_err = || AlgError::Arity(forms(op).into());
    let layout = |i: usize| -> Result<&Ident, AlgError> {
        match args.get(i) {
            Some(RtArg {
                kind: Kind::Tile, ..
            }) => Err(AlgError::Argument(i, "a layout, not a tiler".into())),
            Some(a) => Ok(&a.value),
            None => Err(arity_err()),
        }
    };
    let shape = |i: usize| {
        args.get(i)
            .and_then(|a| a.shape.as_ref().map(|s| (a.kind, s)))
    };
    let arity = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(arity_err())
        }
    };
    // `a.method(args)`, with `?` when the method is fallible.
    let call = |a: &Ident, m: &str, arg: Option<TokenStream>, fallible: bool| {
        let m = Ident::new(m, Span::call_site());
        let q = fallible.then(|| quote!(?));
        quote!(#a.#m(#arg)#q)
    };
    let unary = |m: &str, fallible: bool| -> Result<(TokenStream, bool), AlgError> {
        arity(1)?;
        Ok((call(layout(0)?, m, None, fallible), false))
    };
    let binary_layout = |m: &str, fallible: bool| -> Result<(TokenStream, bool), AlgError> {
        arity(2)?;
        let b = layout(1)?;
        Ok((call(layout(0)?, m, Some(quote!(&#b)), fallible), false))
    };
    let divide_or_product = |plain: &str| -> Result<(TokenStream, bool), AlgError> {
        arity(2)?;
        let a = layout(0)?;
        let t = &args[1];
        let by_mode = format!("{plain}_by_mode");
        let v = &t.value;
        Ok((
            match (t.kind, &t.shape) {
                (Kind::Tile, _) => call(a, &by_mode, Some(quote!(&#v)), true),
                (Kind::Shape(false), Some(s)) => call(
                    a,
                    &by_mode,
                    Some(quote!(&::layout::Tile::from_shape(&#s)?)),
                    true,
                ),
                _ => call(a, plain, Some(quote!(&#v)), true),
            },
            false,
        ))
    };
    match op {
        "coalesce" => match args.len() {
            1 => unary("coalesce", false),
            2 => match shape(1) {
                Some((_, p)) => Ok((
                    call(layout(0)?, "coalesce_by_mode", Some(quote!(&#p)), true),
                    false,
                )),
                None => Err(AlgError::Argument(1, "a profile such as (1,1)".into())),
            },
            _ => Err(arity_err()),
        },
        "filter_zeros" | "filter" | "right_inverse" | "nullspace" => unary(op, false),
        "left_inverse" => unary(op, true),
        "composition" => {
            arity(2)?;
            let a = layout(0)?;
            let b = &args[1];
            let v = &b.value;
            Ok((
                match (b.kind, &b.shape) {
                    (Kind::Tile, _) => call(a, "composition_by_mode", Some(quote!(&#v)), true),
                    (Kind::Shape(_), Some(s)) => {
                        call(a, "composition_shape", Some(quote!(&#s)), true)
                    }
                    _ => call(a, "composition", Some(quote!(&#v)), true),
                },
                false,
            ))
        }
        "complement" => match args.len() {
            1 => unary("complement_cosize", true),
            2 => match shape(1) {
                Some((Kind::Shape(true), s)) => Ok((
                    call(layout(0)?, "complement", Some(quote!(#s.leaves()[0])), true),
                    false,
                )),
                Some((_, s)) => Ok((
                    call(layout(0)?, "complement_shape", Some(quote!(&#s)), true),
                    false,
                )),
                None => Err(AlgError::Argument(
                    1,
                    "a cotarget: an integer or a shape".into(),
                )),
            },
            _ => Err(arity_err()),
        },
        "upcast" | "downcast" => {
            arity(2)?;
            match shape(1) {
                Some((Kind::Shape(true), s)) => Ok((
                    call(layout(0)?, op, Some(quote!(#s.leaves()[0])), true),
                    false,
                )),
                _ => Err(AlgError::Argument(1, "an integer".into())),
            }
        }
        "max_common_layout" => binary_layout(op, false),
        "max_common_vector" => binary_layout(op, false).map(|(e, _)| (e, true)),
        "logical_divide" | "zipped_divide" | "tiled_divide" | "flat_divide" | "logical_product"
        | "zipped_product" | "tiled_product" | "flat_product" => divide_or_product(op),
        "blocked_product" | "raked_product" => binary_layout(op, true),
        _ => Err(arity_err()),
    }
}
