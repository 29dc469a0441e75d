//! Stage 4: a checked plan → tokens.
//!
//! `layout!` expands to `::layout::Layout::new(shape, stride)` where static leaves are
//! `::layout::Int::<N>` values (zero-sized) and dynamic leaves are `i64` expressions; a fully
//! static layout is therefore a constant expression with no run-time work. `Layout!` expands to
//! the type `::layout::Layout<S, D>`. Generated code names only absolute paths.

use crate::check::{Plan, PlanStride};
use crate::eval::{AlgValue, CompactStride};
use crate::parse::{Leaf, LeafKind, Mode, Node};
use layout_core::DynTuple;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{quote, quote_spanned};

/// The span of a leaf's first token (used for `quote_spanned!`).
fn leaf_span(l: &Leaf) -> Span {
    l.tokens
        .clone()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t| t.span())
}

/// A const-generic argument for a known value: `16`, `-1`.
fn const_arg(v: i64, span: Span) -> TokenStream {
    let mut lit = Literal::u64_unsuffixed(v.unsigned_abs());
    lit.set_span(span);
    if v < 0 {
        quote_spanned!(span=> - #lit)
    } else {
        quote!(#lit)
    }
}

/// The const-generic argument of a static leaf (known or opaque).
fn static_arg(l: &Leaf) -> Option<TokenStream> {
    match &l.kind {
        LeafKind::Known(v) => Some(const_arg(*v, leaf_span(l))),
        LeafKind::Opaque(arg) => Some(arg.clone()),
        _ => None,
    }
}

/// Rebuild a tuple following `shape`'s nesting, leaf `k` given by `leaf(k)`.
fn follow(shape: &Node, leaf: &mut impl FnMut(usize) -> TokenStream, k: &mut usize) -> TokenStream {
    match shape {
        Node::Leaf(_) => {
            let t = leaf(*k);
            *k += 1;
            t
        }
        Node::Tuple(t) => {
            let elems = t.elems.iter().map(|e| follow(e, leaf, k));
            quote!((#(#elems,)*))
        }
    }
}

fn tuple_of(node: &Node, leaf: &mut impl FnMut(usize) -> TokenStream) -> TokenStream {
    follow(node, leaf, &mut 0)
}

/// The value expression of `layout!`.
pub fn value(plan: &Plan) -> TokenStream {
    let shape = plan.shape.leaves();
    let compact = match &plan.stride {
        PlanStride::Compact(c) => Some(c),
        PlanStride::Explicit(_) => None,
    };
    let stride_leaves = match &plan.stride {
        PlanStride::Explicit(d) => d.leaves(),
        PlanStride::Compact(_) => Vec::new(),
    };

    // Dynamic shape leaves are evaluated once, into locals, when compact strides reuse them.
    let reused = compact.is_some_and(|c| {
        c.iter()
            .flat_map(|s| &s.factors)
            .any(|&f| matches!(shape[f].kind, LeafKind::Dynamic(_)))
    });
    let local = |k: usize| Ident::new(&format!("__layout_leaf_{k}"), Span::mixed_site());
    let mut lets = Vec::new();
    let dynamic = |l: &Leaf| -> TokenStream {
        match &l.kind {
            LeafKind::Dynamic(e) => quote_spanned!(leaf_span(l)=> ::layout::__private::dynamic(#e)),
            // Non-integer leaves were reported and repaired by the check: never reached.
            _ => quote!(1i64),
        }
    };
    let leaf_value = |l: &Leaf| -> TokenStream {
        match static_arg(l) {
            Some(arg) => quote_spanned!(leaf_span(l)=> ::layout::Int::<#arg>),
            None => dynamic(l),
        }
    };
    if reused {
        for (k, l) in shape.iter().enumerate() {
            if matches!(l.kind, LeafKind::Dynamic(_)) {
                let id = local(k);
                let e = dynamic(l);
                lets.push(quote!(let #id: i64 = #e;));
            }
        }
    }
    let shape_leaf = |k: usize| -> TokenStream {
        if reused && matches!(shape[k].kind, LeafKind::Dynamic(_)) {
            let id = local(k);
            quote!(#id)
        } else {
            leaf_value(shape[k])
        }
    };
    // The value of a factor of a compact stride (an unknown shape leaf).
    let factor = |f: usize| -> TokenStream {
        match &shape[f].kind {
            LeafKind::Opaque(arg) => quote!(::layout::Int::<#arg>::VALUE),
            _ => {
                let id = local(f);
                quote!(#id)
            }
        }
    };
    let compact_leaf = |s: &CompactStride| -> TokenStream {
        match s.factors.as_slice() {
            [] => {
                let arg = const_arg(s.known, Span::call_site());
                quote!(::layout::Int::<#arg>)
            }
            [f] if s.known == 1 && matches!(shape[*f].kind, LeafKind::Opaque(_)) => {
                leaf_value(shape[*f])
            }
            fs => {
                let known = s.known;
                let fs = fs.iter().map(|&f| factor(f));
                quote!(::layout::__private::product(&[#known #(, #fs)*]))
            }
        }
    };

    let shape_expr = tuple_of(&plan.shape, &mut |k| shape_leaf(k));
    let stride_expr = match &plan.stride {
        PlanStride::Explicit(d) => tuple_of(d, &mut |k| leaf_value(stride_leaves[k])),
        PlanStride::Compact(c) => tuple_of(&plan.shape, &mut |k| compact_leaf(&c[k])),
    };

    // Static leaves the macro cannot see are checked by the compiler, in an inline const.
    let opaque = shape
        .iter()
        .chain(&stride_leaves)
        .any(|l| matches!(l.kind, LeafKind::Opaque(_)));
    let const_check = opaque.then(|| {
        let check_value = |l: &Leaf, placeholder: i64| -> TokenStream {
            match &l.kind {
                LeafKind::Known(v) => quote!(#v),
                LeafKind::Opaque(arg) => quote!(::layout::Int::<#arg>::VALUE),
                _ => quote!(#placeholder),
            }
        };
        let s = shape.iter().map(|l| check_value(l, 1));
        let d: Vec<TokenStream> = match &plan.stride {
            PlanStride::Explicit(_) => stride_leaves.iter().map(|l| check_value(l, 0)).collect(),
            PlanStride::Compact(c) => c
                .iter()
                .map(|s| {
                    let known = s.known;
                    let fs = s
                        .factors
                        .iter()
                        .filter(|&&f| matches!(shape[f].kind, LeafKind::Opaque(_)))
                        .map(|&f| factor(f));
                    quote!(::layout::__private::product(&[#known #(, #fs)*]))
                })
                .collect(),
        };
        quote!(const { ::layout::__private::check_static(&[#(#s),*], &[#(#d),*]) };)
    });

    let layout = quote!(::layout::Layout::new(#shape_expr, #stride_expr));
    if lets.is_empty() && const_check.is_none() {
        layout
    } else {
        quote!({ #const_check #(#lets)* #layout })
    }
}

/// The type of `Layout!`.
pub fn ty(plan: &Plan) -> TokenStream {
    let shape = plan.shape.leaves();
    let leaf_ty = |l: &Leaf| -> TokenStream {
        match static_arg(l) {
            Some(arg) => quote_spanned!(leaf_span(l)=> ::layout::Int<#arg>),
            None => quote_spanned!(leaf_span(l)=> i64),
        }
    };
    let shape_ty = tuple_of(&plan.shape, &mut |k| leaf_ty(shape[k]));
    let stride_ty = match &plan.stride {
        PlanStride::Explicit(d) => {
            let leaves = d.leaves();
            tuple_of(d, &mut |k| leaf_ty(leaves[k]))
        }
        PlanStride::Compact(c) => tuple_of(&plan.shape, &mut |k| {
            let s = &c[k];
            let dynamic = s
                .factors
                .iter()
                .any(|&f| matches!(shape[f].kind, LeafKind::Dynamic(_)));
            match s.factors.as_slice() {
                _ if dynamic => quote!(i64),
                [] => {
                    let arg = const_arg(s.known, Span::call_site());
                    quote!(::layout::Int<#arg>)
                }
                [f] if s.known == 1 => leaf_ty(shape[*f]),
                // Reported by the check; any type will do after the error.
                _ => quote!(i64),
            }
        }),
    };
    quote!(::layout::Layout<#shape_ty, #stride_ty>)
}

/// A tuple of a static result, every leaf through `leaf`; `None` when a tuple is empty or wider
/// than the typed tuples (arity 1 to 8).
fn static_tuple(t: &DynTuple, leaf: &impl Fn(i64) -> TokenStream) -> Option<TokenStream> {
    if let Some(v) = t.as_leaf() {
        return Some(leaf(v));
    }
    if t.rank() == 0 || t.rank() > crate::check::MAX_ARITY {
        return None;
    }
    let modes = (0..t.rank())
        .map(|i| static_tuple(&t.mode(i).ok()?, leaf))
        .collect::<Option<Vec<_>>>()?;
    Some(quote!((#(#modes,)*)))
}

/// The value (`layout!`) or type (`Layout!`) of a static algebra result.
///
/// # Errors
/// When the result has a tuple the typed layouts cannot hold (empty, or more than 8 modes).
pub fn static_result(value: &AlgValue, mode: Mode, call: &TokenStream) -> syn::Result<TokenStream> {
    let int = |v: i64| {
        let arg = const_arg(v, Span::call_site());
        match mode {
            Mode::Value => quote!(::layout::Int::<#arg>),
            Mode::Type => quote!(::layout::Int<#arg>),
        }
    };
    let l = match value {
        AlgValue::Int(v) => return Ok(int(*v)),
        AlgValue::Layout(l) => l,
    };
    let (Some(shape), Some(stride)) = (
        static_tuple(&l.shape(), &int),
        static_tuple(&l.stride(), &int),
    ) else {
        return Err(syn::Error::new_spanned(
            call,
            format!(
                "the result {l} cannot be written as a typed layout (a tuple is empty or has more than {} modes); use the DynLayout methods",
                crate::check::MAX_ARITY
            ),
        ));
    };
    Ok(match mode {
        Mode::Value => quote!(::layout::Layout::new(#shape, #stride)),
        Mode::Type => quote!(::layout::Layout<#shape, #stride>),
    })
}
