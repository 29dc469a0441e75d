//! Stage 2: semantic validation of a parsed input. Every independent error is collected, each
//! spanned on the offending leaf or sub-tuple; the arithmetic rules (congruence, extents, size,
//! cosize, capacity) are decided by layout-core through [`crate::eval`].
//!
//! After an error the input is *repaired* (bad leaves become `1` in a shape, `0` in a stride; a
//! stride that does not fit becomes the compact one) so that the expansion is still a well-typed
//! layout and one typo does not cascade into errors at every later use.

use crate::eval::{self, AlgArg, AlgError, AlgValue, CompactStride, Tree, Val};
use crate::parse::{Arg, Call, Input, Leaf, LeafKind, Mode, Node, ORDER_KEYWORDS, Order, Stride};
use layout_core::algebra::ops::TilerHint;
use layout_core::{DynLayout, DynTuple, LayoutError, MAX_LEAVES, MAX_TOKENS, Tile, TileMode};

/// The most modes of one tuple (the typed tuples implement arity 1 to 8).
pub const MAX_ARITY: usize = layout_core::MAX_ARITY;

/// What the expansion needs: the (repaired) shape and the stride to emit.
pub struct Plan {
    /// The shape.
    pub shape: Node,
    /// The stride.
    pub stride: PlanStride,
}

/// The stride of a [`Plan`].
pub enum PlanStride {
    /// As written.
    Explicit(Node),
    /// Compact, one entry per shape leaf.
    Compact(Vec<CompactStride>),
}

/// The outcome of checking: the plan to expand (absent when the input cannot be represented as a
/// typed layout at all) and the errors found.
pub struct Checked {
    /// What to expand.
    pub plan: Option<Plan>,
    /// All errors, combined.
    pub errors: Option<syn::Error>,
}

/// Errors collected so far, combined into one.
pub struct Errors(pub Option<syn::Error>);

impl Errors {
    /// Add an error.
    pub fn push(&mut self, e: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(e),
            None => self.0 = Some(e),
        }
    }
}

/// Check an input.
pub fn check(input: Input, mode: Mode) -> Checked {
    let mut errors = Errors(None);
    let Input {
        mut shape,
        mut stride,
    } = input;

    // A stride written as one identifier that looks like a keyword is a misspelt keyword; after a
    // tuple shape, any lone identifier is (an integer stride cannot be congruent with a tuple).
    if let Stride::Explicit(Node::Leaf(l)) = &stride {
        let word = l.text();
        let msg = match misspelt_keyword(l) {
            Some(suggestion) => Some(format!(
                "unknown stride keyword `{word}`; did you mean `{suggestion}`? (a stride is a tuple, RowMajor or ColMajor)"
            )),
            None if matches!(shape, Node::Tuple(_)) && is_ident(l) => Some(format!(
                "expected a stride tuple, RowMajor or ColMajor after the shape {}, found `{word}`",
                shape.text()
            )),
            None => None,
        };
        if let Some(msg) = msg {
            errors.push(syn::Error::new_spanned(&l.tokens, msg));
            stride = Stride::Default;
        }
    }

    // Leaves that are not integers, structure the typed tuples cannot hold.
    let mut representable = true;
    check_leaves(&mut shape, 1, &mut errors);
    representable &= check_structure(&shape, &mut errors);
    if let Stride::Explicit(d) = &mut stride {
        check_leaves(d, 0, &mut errors);
        representable &= check_structure(d, &mut errors);
    }
    if !representable {
        return Checked {
            plan: None,
            errors: errors.0,
        };
    }

    // Capacity of run-time tuples (MAX_LEAVES, MAX_TOKENS): the same code as at run time.
    let shape_dyn = match eval::to_dyn(&skeleton(&shape), eval::SHAPE_PLACEHOLDER) {
        Ok(t) => t,
        Err(e) => {
            errors.push(capacity_error(&shape, "shape", e));
            return Checked {
                plan: None,
                errors: errors.0,
            };
        }
    };
    let stride_dyn = match &stride {
        Stride::Explicit(d) => match eval::to_dyn(&skeleton(d), eval::STRIDE_PLACEHOLDER) {
            Ok(t) => Some(t),
            Err(e) => {
                errors.push(capacity_error(d, "stride", e));
                return Checked {
                    plan: None,
                    errors: errors.0,
                };
            }
        },
        _ => None,
    };

    // Extents and size.
    let (bad, overflow) = eval::check_shape(&shape_dyn);
    for (leaf, extent) in bad {
        let l = &shape.leaves()[leaf];
        errors.push(syn::Error::new_spanned(
            &l.tokens,
            format!("shape extent {extent} is not positive (extents must be at least 1)"),
        ));
        set_leaf(&mut shape, leaf, 1);
    }
    let size_overflow = overflow.is_some();
    if size_overflow {
        errors.push(shape.error(format!("the size of {} overflows i64", shape.text())));
        repair_all(&mut shape, 1);
    }

    // The stride.
    let plan_stride = match (stride, stride_dyn) {
        (Stride::Explicit(d), Some(d_dyn)) => {
            let s_dyn = eval::to_dyn(&skeleton(&shape), eval::SHAPE_PLACEHOLDER)
                .expect("the repaired shape has the capacity checked above");
            if !s_dyn.congruent(&d_dyn) {
                errors.push(incongruence(&shape, &d));
                compact_or_fallback(&shape, Order::Col)
            } else {
                match eval::check_layout(&s_dyn, &d_dyn) {
                    Ok(_) => PlanStride::Explicit(d),
                    Err(LayoutError::Overflow { .. }) if size_overflow => PlanStride::Explicit(d),
                    Err(LayoutError::Overflow { what }) => {
                        errors.push(d.error(format!(
                            "the {what} of {}:{} overflows i64",
                            shape.text(),
                            d.text()
                        )));
                        let mut d = d;
                        repair_all(&mut d, 0);
                        PlanStride::Explicit(d)
                    }
                    Err(e) => {
                        errors.push(d.error(e));
                        compact_or_fallback(&shape, Order::Col)
                    }
                }
            }
        }
        (Stride::Order(order), _) => compact_or_fallback(&shape, order),
        _ => compact_or_fallback(&shape, Order::Col),
    };

    if mode == Mode::Type
        && let PlanStride::Compact(strides) = &plan_stride
    {
        check_type_compact(&shape, strides, &mut errors);
    }

    Checked {
        plan: Some(Plan {
            shape,
            stride: plan_stride,
        }),
        errors: errors.0,
    }
}

fn compact_or_fallback(shape: &Node, order: Order) -> PlanStride {
    let tree = skeleton(shape);
    match eval::compact(&tree, order == Order::Row) {
        Ok(s) => PlanStride::Compact(s),
        // Only after a size overflow, already reported and repaired: cannot happen twice.
        Err(_) => PlanStride::Compact(
            shape
                .leaves()
                .iter()
                .map(|_| CompactStride {
                    known: 0,
                    factors: Vec::new(),
                })
                .collect(),
        ),
    }
}

/// A literal static layout argument of an algebra operation, as a run-time value (the shape too
/// when it was written without a stride, so that it can serve as a shape or integer).
///
/// # Errors
/// Every error of the layout itself, and one per leaf the macro cannot see.
pub fn static_layout(input: Input) -> Result<(DynLayout, Option<DynTuple>), syn::Error> {
    let mut errors = Errors(None);
    let bare = matches!(input.stride, Stride::Default);
    let mut leaves = input.shape.leaves();
    if let Stride::Explicit(d) = &input.stride {
        leaves.extend(d.leaves());
    }
    for l in leaves {
        if let LeafKind::Dynamic(_) | LeafKind::Opaque(_) = l.kind {
            errors.push(syn::Error::new_spanned(
                &l.tokens,
                format!(
                    "the layout algebra in Layout! needs literal static layouts, but {} is not a literal; use layout! in value position, which evaluates the operation at run time and returns a Result<DynLayout, LayoutError>",
                    l.text()
                ),
            ));
        }
    }
    let checked = check(input, Mode::Value);
    if let Some(e) = checked.errors {
        errors.push(e);
    }
    if let Some(e) = errors.0 {
        return Err(e);
    }
    let plan = checked.plan.expect("a plan exists when there is no error");
    let to_dyn = |n: &Node, p| eval::to_dyn(&skeleton(n), p).map_err(|e| n.error(e));
    let shape = to_dyn(&plan.shape, eval::SHAPE_PLACEHOLDER)?;
    let stride = match &plan.stride {
        PlanStride::Explicit(d) => to_dyn(d, eval::STRIDE_PLACEHOLDER)?,
        PlanStride::Compact(c) => {
            let mut d = shape;
            for (v, s) in d.leaves_mut().iter_mut().zip(c) {
                *v = s.known;
            }
            d
        }
    };
    let layout = eval::check_layout(&shape, &stride).map_err(|e| plan.shape.error(e))?;
    Ok((layout, bare.then_some(shape)))
}

/// Where an algebra argument was written: how to make an error on it, and for a bare shape
/// tuple its text and the text of its compact layout (for the tiler hint).
pub struct Site {
    /// An error spanned on the argument.
    pub err: Box<dyn Fn(String) -> syn::Error>,
    /// `("(4,8)", "(4,8):(1,4)")` for a bare shape tuple.
    pub bare: Option<(String, String)>,
}

impl Site {
    /// The site of a layout argument.
    pub fn of(input: &Input) -> Site {
        let node = input.shape.clone();
        let bare = match (&input.stride, &input.shape) {
            (Stride::Default, Node::Tuple(_)) => Some((
                input.shape.text(),
                format!("{}:{}", input.shape.text(), compact_text(&input.shape)),
            )),
            _ => None,
        };
        Site {
            err: Box::new(move |m| node.error(m)),
            bare,
        }
    }

    /// The site of a call or tiler argument.
    pub fn tokens(tokens: proc_macro2::TokenStream) -> Site {
        Site {
            err: Box::new(move |m| syn::Error::new_spanned(&tokens, m)),
            bare: None,
        }
    }
}

/// The compact column-major stride of a shape in the user's notation: `(1,4)`, `(1,n)`, `(1,4*n)`.
fn compact_text(shape: &Node) -> String {
    let leaves = shape.leaves();
    let Ok(strides) = eval::compact(&skeleton(shape), false) else {
        return "ColMajor".into();
    };
    let texts: Vec<String> = strides
        .iter()
        .map(|s| {
            let mut parts: Vec<String> = Vec::new();
            if s.known != 1 || s.factors.is_empty() {
                parts.push(s.known.to_string());
            }
            parts.extend(s.factors.iter().map(|&f| leaves[f].text()));
            parts.join("*")
        })
        .collect();
    let mut k = 0;
    rebuild(shape, &texts, &mut k)
}

fn rebuild(node: &Node, texts: &[String], k: &mut usize) -> String {
    match node {
        Node::Leaf(_) => {
            *k += 1;
            texts[*k - 1].clone()
        }
        Node::Tuple(t) => {
            let parts: Vec<String> = t.elems.iter().map(|e| rebuild(e, texts, k)).collect();
            format!("({})", parts.join(","))
        }
    }
}

/// Evaluate an algebra operation on literal static layouts at expansion time.
///
/// # Errors
/// The errors of the arguments, all together; or the rule the operation broke, spanned on the
/// call; or a misuse of the operation's arguments.
pub fn eval_call(call: Call) -> Result<AlgValue, syn::Error> {
    let op = call.name.to_string();
    let shown = call.written.clone().unwrap_or_else(|| op.clone());
    let mut errors = Errors(None);
    let mut args = Vec::new();
    let mut sites: Vec<Site> = Vec::new();
    for arg in call.args {
        match arg {
            Arg::Layout(input) => {
                sites.push(Site::of(&input));
                match static_layout(input) {
                    Ok((_, Some(shape))) => args.push(AlgArg::Shape(shape)),
                    Ok((layout, None)) => args.push(AlgArg::Layout(layout)),
                    Err(e) => errors.push(e),
                }
            }
            Arg::Int(v, tokens) => {
                sites.push(Site::tokens(tokens));
                args.push(AlgArg::Shape(DynTuple::leaf(v)));
            }
            Arg::Call(inner) => {
                sites.push(Site::tokens(inner.tokens.clone()));
                match eval_call(inner) {
                    Ok(AlgValue::Layout(layout)) => args.push(AlgArg::Layout(layout)),
                    Ok(AlgValue::Int(n)) => args.push(AlgArg::Shape(DynTuple::leaf(n))),
                    Err(e) => errors.push(e),
                }
            }
            Arg::Tile(modes, tokens) => {
                let mut tile = Tile::EMPTY;
                let mut ok = true;
                for m in modes {
                    let mode = match m {
                        None => TileMode::Keep,
                        Some(input) => match static_layout(input) {
                            Ok((l, _)) => TileMode::Layout(l),
                            Err(e) => {
                                errors.push(e);
                                ok = false;
                                continue;
                            }
                        },
                    };
                    if let Err(e) = tile.push(mode) {
                        errors.push(syn::Error::new_spanned(&tokens, e));
                        ok = false;
                        break;
                    }
                }
                if ok {
                    args.push(AlgArg::Tile(tile));
                }
                sites.push(Site::tokens(tokens));
            }
        }
    }
    if let Some(e) = errors.0 {
        return Err(e);
    }
    eval::apply(&op, &args).map_err(|e| alg_error(&shown, &call.tokens, &sites, args.len(), e))
}

/// The compile error for an operation that refused its arguments or was misused; `sites[i]`
/// makes an error on argument `i`.
pub fn alg_error(
    op: &str,
    call: &proc_macro2::TokenStream,
    sites: &[Site],
    nargs: usize,
    e: AlgError,
) -> syn::Error {
    match e {
        AlgError::Refused(e) => {
            let msg = e.to_string();
            let msg = if msg.starts_with(op) {
                msg
            } else {
                format!("{op} is refused: {msg}")
            };
            syn::Error::new_spanned(call, msg)
        }
        AlgError::Argument { index, expected } => {
            (sites[index].err)(format!("argument {} of {op} must be {expected}", index + 1))
        }
        AlgError::BareShapeTiler { index } => {
            let (shape, layout) = sites[index].bare.clone().unwrap_or_default();
            (sites[index].err)(format!(
                "argument {} of {op}: {}",
                index + 1,
                TilerHint {
                    shape: &shape,
                    layout: &layout
                }
            ))
        }
        AlgError::Arity { .. } | AlgError::Unknown => syn::Error::new_spanned(
            call,
            format!(
                "{op} takes {} here; write {}",
                plural(nargs, "argument", "arguments"),
                eval::forms(op)
            ),
        ),
    }
}

/// `Layout!` cannot multiply const generics in a type (that needs `generic_const_exprs`).
fn check_type_compact(shape: &Node, strides: &[CompactStride], errors: &mut Errors) {
    let leaves = shape.leaves();
    for (k, s) in strides.iter().enumerate() {
        let any_dynamic = s
            .factors
            .iter()
            .any(|&f| matches!(leaves[f].kind, LeafKind::Dynamic(_)));
        if any_dynamic || s.factors.is_empty() || (s.factors.len() == 1 && s.known == 1) {
            continue;
        }
        let mut parts: Vec<String> = Vec::new();
        if s.known != 1 {
            parts.push(s.known.to_string());
        }
        parts.extend(s.factors.iter().map(|&f| leaves[f].text()));
        errors.push(syn::Error::new_spanned(
            &leaves[k].tokens,
            format!(
                "the compact stride of this leaf is {}, which a type cannot compute from const generics; write the stride explicitly",
                parts.join("*")
            ),
        ));
    }
}

/// The arithmetic skeleton of a node.
pub fn skeleton(node: &Node) -> Tree {
    match node {
        Node::Leaf(l) => Tree::Leaf(match l.kind {
            LeafKind::Known(v) => Val::Known(v),
            _ => Val::Unknown,
        }),
        Node::Tuple(t) => Tree::Tuple(t.elems.iter().map(skeleton).collect()),
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("{n} {one}")
    } else {
        format!("{n} {many}")
    }
}

/// The error for a shape and stride that are not congruent, spanned on the part of the stride
/// where they first differ.
fn incongruence(s: &Node, d: &Node) -> syn::Error {
    let (a, b) = (s.leaves().len(), d.leaves().len());
    if a != b {
        return d.error(format!(
            "shape and stride are not congruent: {} has {}, {} has {}",
            s.text(),
            plural(a, "leaf", "leaves"),
            d.text(),
            b
        ));
    }
    first_divergence(s, d).unwrap_or_else(|| {
        d.error(format!(
            "shape and stride are not congruent: {} and {} are nested differently",
            s.text(),
            d.text()
        ))
    })
}

fn first_divergence(s: &Node, d: &Node) -> Option<syn::Error> {
    let msg = |what: String| Some(d.error(format!("shape and stride are not congruent: {what}")));
    match (s, d) {
        (Node::Leaf(_), Node::Leaf(_)) => None,
        (Node::Leaf(_), Node::Tuple(_)) => msg(format!(
            "{} is an integer, {} is a tuple",
            s.text(),
            d.text()
        )),
        (Node::Tuple(_), Node::Leaf(_)) => msg(format!(
            "{} is a tuple, {} is an integer",
            s.text(),
            d.text()
        )),
        (Node::Tuple(x), Node::Tuple(y)) if x.elems.len() != y.elems.len() => msg(format!(
            "{} has {}, {} has {}",
            s.text(),
            plural(x.elems.len(), "mode", "modes"),
            d.text(),
            y.elems.len()
        )),
        (Node::Tuple(x), Node::Tuple(y)) => x
            .elems
            .iter()
            .zip(&y.elems)
            .find_map(|(a, b)| first_divergence(a, b)),
    }
}

/// Non-integer and out-of-range leaves: report, and repair to `repair`.
fn check_leaves(node: &mut Node, repair: i64, errors: &mut Errors) {
    match node {
        Node::Leaf(l) => {
            let msg = match &l.kind {
                LeafKind::NotInteger(what) => format!("expected an integer leaf, found {what}"),
                LeafKind::OutOfRange => {
                    format!("integer literal {} does not fit in i64", l.text())
                }
                _ => return,
            };
            errors.push(syn::Error::new_spanned(&l.tokens, msg));
            l.kind = LeafKind::Known(repair);
        }
        Node::Tuple(t) => t
            .elems
            .iter_mut()
            .for_each(|e| check_leaves(e, repair, errors)),
    }
}

/// Tuples the typed representation cannot hold: `()` and more than eight modes.
fn check_structure(node: &Node, errors: &mut Errors) -> bool {
    match node {
        Node::Leaf(_) => true,
        Node::Tuple(t) => {
            let mut ok = true;
            if t.elems.is_empty() {
                errors.push(node.error("an empty tuple () is not a shape or stride mode"));
                ok = false;
            } else if t.elems.len() > MAX_ARITY {
                errors.push(node.error(format!(
                    "this tuple has {} modes but at most {MAX_ARITY} are supported; group some of them, e.g. ((a,b),c,…)",
                    t.elems.len()
                )));
                ok = false;
            }
            for e in &t.elems {
                ok &= check_structure(e, errors);
            }
            ok
        }
    }
}

fn capacity_error(node: &Node, what: &str, e: LayoutError) -> syn::Error {
    let leaves = node.leaves();
    match e {
        LayoutError::TooManyLeaves { .. } => syn::Error::new_spanned(
            &leaves[MAX_LEAVES].tokens,
            format!(
                "the {what} has {} leaves but a layout holds at most {MAX_LEAVES} (MAX_LEAVES); this is leaf {}",
                leaves.len(),
                MAX_LEAVES + 1
            ),
        ),
        LayoutError::TooComplex { needed } => node.error(format!(
            "the {what} is nested too deeply: it needs at least {needed} structure tokens (leaves and parentheses) but a layout holds at most {MAX_TOKENS} (MAX_TOKENS)"
        )),
        other => node.error(other),
    }
}

fn set_leaf(node: &mut Node, index: usize, value: i64) {
    let mut k = 0;
    for_each_leaf(node, &mut |l| {
        if k == index {
            l.kind = LeafKind::Known(value);
        }
        k += 1;
    });
}

fn repair_all(node: &mut Node, value: i64) {
    for_each_leaf(node, &mut |l| {
        if let LeafKind::Known(_) = l.kind {
            l.kind = LeafKind::Known(value);
        }
    });
}

fn for_each_leaf(node: &mut Node, f: &mut impl FnMut(&mut Leaf)) {
    match node {
        Node::Leaf(l) => f(l),
        Node::Tuple(t) => t.elems.iter_mut().for_each(|e| for_each_leaf(e, f)),
    }
}

/// `true` for a leaf written as one identifier.
fn is_ident(l: &Leaf) -> bool {
    let mut it = l.tokens.clone().into_iter();
    matches!(
        (it.next(), it.next()),
        (Some(proc_macro2::TokenTree::Ident(_)), None)
    )
}

/// `Some(keyword)` when a one-identifier stride looks like a misspelt order keyword.
fn misspelt_keyword(l: &Leaf) -> Option<&'static str> {
    if !is_ident(l) {
        return None;
    }
    let word = l.text();
    let lower = word.to_lowercase();
    let (best, dist) = ORDER_KEYWORDS
        .iter()
        .map(|k| (*k, edit_distance(&lower, &k.to_lowercase())))
        .min_by_key(|&(_, d)| d)?;
    let looks_like = dist <= 3 || lower.contains("major") || lower.starts_with("layout");
    looks_like.then_some(match best {
        "LayoutRight" => "RowMajor",
        "LayoutLeft" => "ColMajor",
        k => k,
    })
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, &cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn edit_distance_counts_single_edits() {
        assert_eq!(edit_distance("rowmajr", "rowmajor"), 1);
        assert_eq!(edit_distance("colmajor", "rowmajor"), 2);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("ld", "rowmajor"), 8);
    }
}
