//! Stage 1: tokens → a typed syntax tree in which every number, expression and sub-tuple keeps
//! its span.
//!
//! Grammar (`layout!` and `Layout!` share it; only the leaves differ):
//!
//! ```text
//! input  := node [ ':' stride ]
//! stride := RowMajor | ColMajor | LayoutRight | LayoutLeft | node
//! node   := '(' node { ',' node } [','] ')' | leaf
//! leaf   := INT | '-' INT | _N | Int<INT> | Int<-INT> | Int<N> | Int<{expr}>
//!         | expr                  (layout!: a dynamic leaf)
//!         | i64 | N | {expr}      (Layout!: dynamic marker, const generic, const expression)
//! ```
//!
//! In `layout!`, a parenthesised group is a tuple when it stands alone between separators;
//! `(a + b) * 2` is an expression. Write `{ a + b }` for an expression leaf in parentheses.

use layout_core::algebra::ops::{Op, Param, Spelling, SpellingError};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::ToTokens;
use syn::parse::{ParseStream, Parser};
use syn::{Expr, Ident, Lit, Token, UnOp, token};

/// Which macro is parsing: the value macro `layout!` or the type macro `Layout!`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Mode {
    /// `layout!`: leaves are Rust expressions.
    Value,
    /// `Layout!`: leaves are types or const-generic arguments.
    Type,
}

/// A whole `shape : stride` input.
pub struct Input {
    /// The shape.
    pub shape: Node,
    /// The stride, as written.
    pub stride: Stride,
}

/// The stride part of an input.
#[derive(Clone)]
pub enum Stride {
    /// No stride: compact column-major (CuTe's default).
    Default,
    /// `RowMajor` / `ColMajor` (or CuTe's `LayoutRight` / `LayoutLeft`).
    Order(Order),
    /// An explicit stride tuple or integer.
    Explicit(Node),
}

/// A compact order.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Order {
    /// Leftmost leaf fastest (CuTe's `LayoutLeft`, the default).
    Col,
    /// Rightmost leaf fastest (`LayoutRight`).
    Row,
}

/// A shape or stride: a leaf or a tuple of nodes.
#[derive(Clone)]
pub enum Node {
    /// `(a, b, …)`.
    Tuple(Tuple),
    /// An integer.
    Leaf(Leaf),
}

/// A parenthesised tuple.
#[derive(Clone)]
pub struct Tuple {
    /// Span of the whole group, parentheses included.
    pub span: Span,
    /// The elements.
    pub elems: Vec<Node>,
}

/// One integer of a shape or stride.
#[derive(Clone)]
pub struct Leaf {
    /// What kind of integer it is.
    pub kind: LeafKind,
    /// The tokens as written (for spans covering the whole leaf, and for messages).
    pub tokens: TokenStream,
}

/// The kinds of leaves.
#[derive(Clone)]
pub enum LeafKind {
    /// A value the macro knows: `16`, `-1`, `_16`, `Int<16>`.
    Known(i64),
    /// A static value the macro cannot see: `Int<N>`, `Int<{N}>`, or in `Layout!` a const
    /// generic `N` or `{expr}`. The tokens are the const argument.
    Opaque(TokenStream),
    /// A run-time value: any other expression (`layout!`), or `i64` (`Layout!`).
    Dynamic(TokenStream),
    /// Not an integer; the string describes what it is.
    NotInteger(String),
    /// An integer literal outside `i64`.
    OutOfRange,
}

impl Leaf {
    /// The leaf as the user wrote it, spaces normalised the way `stringify!` does.
    pub fn text(&self) -> String {
        let s = self.tokens.to_string();
        // `Int < 16 >` → `Int<16>`; keep expressions as the tokens print them.
        if s.starts_with("Int") {
            s.replace(' ', "")
        } else if let Some(rest) = s.strip_prefix("- ") {
            format!("-{rest}")
        } else {
            s
        }
    }
}

impl Node {
    /// The node in the user's notation: `(4,(2,2))`, `(Int<16>,rows / 16)`.
    pub fn text(&self) -> String {
        match self {
            Node::Leaf(l) => l.text(),
            Node::Tuple(t) => {
                let parts: Vec<String> = t.elems.iter().map(Node::text).collect();
                format!("({})", parts.join(","))
            }
        }
    }

    /// An error covering the whole node.
    pub fn error(&self, msg: impl std::fmt::Display) -> syn::Error {
        match self {
            Node::Tuple(t) => syn::Error::new(t.span, msg),
            Node::Leaf(l) => syn::Error::new_spanned(&l.tokens, msg),
        }
    }

    /// The leaves in order.
    pub fn leaves(&self) -> Vec<&Leaf> {
        let mut out = Vec::new();
        self.collect_leaves(&mut out);
        out
    }

    fn collect_leaves<'a>(&'a self, out: &mut Vec<&'a Leaf>) {
        match self {
            Node::Leaf(l) => out.push(l),
            Node::Tuple(t) => t.elems.iter().for_each(|e| e.collect_leaves(out)),
        }
    }
}

fn peek_colon(input: ParseStream) -> bool {
    input.peek(Token![:]) && !input.peek(Token![::])
}

pub(crate) fn parse_input(input: ParseStream, mode: Mode) -> syn::Result<Input> {
    let layout = parse_layout(input, mode)?;
    if input.peek(Token![,]) && matches!(layout.stride, Stride::Default) {
        return Err(input.error(format!(
            "expected `:` between the shape {} and its stride",
            layout.shape.text()
        )));
    }
    if !input.is_empty() {
        return Err(input.error("unexpected tokens after the layout"));
    }
    Ok(layout)
}

/// `shape [: stride]`, stopping at the end of the input or at a `,` (between algebra arguments).
fn parse_layout(input: ParseStream, mode: Mode) -> syn::Result<Input> {
    if input.is_empty() {
        return Err(input.error("expected a layout such as (2,4):(1,2), or a shape such as (2,4)"));
    }
    let shape = parse_node(input, mode)?;
    let stride = if input.is_empty() || input.peek(Token![,]) {
        Stride::Default
    } else if peek_colon(input) {
        let colon: Token![:] = input.parse()?;
        if input.is_empty() {
            return Err(syn::Error::new(
                colon.span,
                "expected a stride after `:`, such as (1,4), RowMajor or ColMajor",
            ));
        }
        match order_keyword(input) {
            Some(order) => {
                input.parse::<Ident>()?;
                Stride::Order(order)
            }
            None => Stride::Explicit(parse_node(input, mode)?),
        }
    } else {
        return Err(input.error(format!(
            "expected `:` between the shape {} and its stride",
            shape.text()
        )));
    };
    Ok(Input { shape, stride })
}

/// A whole macro input: a layout, or an algebra operation on static layouts.
pub enum Top {
    /// `shape : stride`.
    Layout(Input),
    /// `composition(A, B)` & co.
    Call(Call),
}

/// `op(arg, …)`.
pub struct Call {
    /// The operation's name.
    pub name: Ident,
    /// The whole call, for spans.
    pub tokens: TokenStream,
    /// The arguments.
    pub args: Vec<Arg>,
    /// The spelling as written when it is not the table's name (`NZ<f16>` for `nz_layout`), for
    /// messages.
    pub written: Option<String>,
}

/// An argument of an algebra operation.
pub enum Arg {
    /// A layout, a shape or an integer.
    Layout(Input),
    /// A by-mode tiler `[t0, t1, …]`; `None` elements are `_`.
    Tile(Vec<Option<Input>>, TokenStream),
    /// A nested operation.
    Call(Call),
    /// An integer the spelling of a named layout supplies (C0 of `NZ<f16>`), spanned on the
    /// element type.
    Int(i64, TokenStream),
}

/// Parse a macro input that may be an algebra operation.
pub fn parse_top(tokens: TokenStream, mode: Mode) -> syn::Result<Top> {
    (|input: ParseStream| {
        if peek_call(input) {
            let call = parse_call(input, mode)?;
            if !input.is_empty() {
                return Err(input.error("unexpected tokens after the operation"));
            }
            Ok(Top::Call(call))
        } else {
            parse_input(input, mode).map(Top::Layout)
        }
    })
    .parse2(tokens)
}

fn peek_call(input: ParseStream) -> bool {
    let fork = input.fork();
    match fork.parse::<Ident>() {
        Ok(id) => {
            let id = id.to_string();
            (Op::is_name(&id) && fork.peek(token::Paren))
                || (Spelling::is_name(&id) && (fork.peek(token::Paren) || fork.peek(Token![<])))
        }
        Err(_) => false,
    }
}

fn parse_call(input: ParseStream, mode: Mode) -> syn::Result<Call> {
    let start = input.fork();
    let mut name: Ident = input.parse()?;
    // `NZ<f16>(…)`, `RowMajorInterleaved<4>(…)`: the parameters of a named layout's spelling
    let mut params: Vec<(Option<i64>, String, TokenStream)> = Vec::new();
    let generics = if input.peek(Token![<]) {
        let open: Token![<] = input.parse()?;
        loop {
            if input.peek(syn::LitInt) {
                let lit: syn::LitInt = input.parse()?;
                params.push((
                    Some(lit.base10_parse()?),
                    lit.to_string(),
                    lit.to_token_stream(),
                ));
            } else {
                let ty: syn::Type = input.parse()?;
                params.push((None, type_name(&ty), ty.to_token_stream()));
            }
            if input.peek(Token![,]) {
                input.parse::<Token![,]>()?;
            } else {
                break;
            }
        }
        let close: Token![>] = input.parse()?;
        let mut t = open.to_token_stream();
        for (_, _, p) in &params {
            t.extend(p.clone());
        }
        t.extend(close.to_token_stream());
        Some(t)
    } else {
        None
    };
    let content;
    syn::parenthesized!(content in input);
    let mut args = Vec::new();
    while !content.is_empty() {
        args.push(if peek_call(&content) {
            Arg::Call(parse_call(&content, mode)?)
        } else if content.peek(token::Bracket) {
            let tile_start = content.fork();
            let inner;
            syn::bracketed!(inner in content);
            let mut modes = Vec::new();
            while !inner.is_empty() {
                if inner.peek(Token![_])
                    && (inner.peek2(Token![,]) || {
                        let f = inner.fork();
                        f.parse::<Token![_]>()?;
                        f.is_empty()
                    })
                {
                    inner.parse::<Token![_]>()?;
                    modes.push(None);
                } else {
                    modes.push(Some(parse_layout(&inner, mode)?));
                }
                if !inner.is_empty() {
                    inner.parse::<Token![,]>()?;
                }
            }
            Arg::Tile(modes, tokens_between(&tile_start, &content))
        } else {
            Arg::Layout(parse_layout(&content, mode)?)
        });
        if !content.is_empty() {
            if !content.peek(Token![,]) {
                return Err(
                    content.error(format!("expected `,` or `)` in the arguments of {name}"))
                );
            }
            content.parse::<Token![,]>()?;
        }
    }
    let tokens = tokens_between(&start, input);
    let written = name.to_string();
    let mut shown = None;
    let param_list: Vec<Param<'_>> = params
        .iter()
        .map(|(v, t, _)| match v {
            Some(v) => Param::Int(*v),
            None => Param::Type(t),
        })
        .collect();
    if let Some(r) = Spelling::resolve(&written, &param_list, args.len()) {
        // a named layout's spelling: the table entry, with the integers it fixes
        let text = (!params.is_empty()).then(|| {
            params
                .iter()
                .map(|p| p.1.as_str())
                .collect::<Vec<_>>()
                .join(",")
        });
        let spelling = r.map_err(|e| {
            let msg = e.message(&written, text.as_deref()).to_string();
            match (&e, &generics) {
                (SpellingError::Arity { .. } | SpellingError::MissingParameter { .. }, _)
                | (_, None) => syn::Error::new_spanned(&tokens, msg),
                (_, Some(g)) => syn::Error::new_spanned(g, msg),
            }
        })?;
        name = Ident::new(spelling.op.name(), name.span());
        shown = Some(match &text {
            Some(t) => format!("{written}<{t}>"),
            None => written.clone(),
        });
        let site = generics.clone().unwrap_or_else(|| tokens.clone());
        if let Some(v) = spelling.before {
            args.insert(0, Arg::Int(v, site.clone()));
        }
        for &v in spelling.after() {
            args.push(Arg::Int(v, site.clone()));
        }
    } else if let Some(g) = &generics {
        return Err(syn::Error::new_spanned(
            g,
            format!("{written} takes no type parameter"),
        ));
    }
    Ok(Call {
        name,
        tokens,
        args,
        written: shown,
    })
}

/// The name of an element type as the table knows it: the last segment of a path (`half::f16`
/// is `f16`), or the type's text.
fn type_name(t: &syn::Type) -> String {
    match t {
        syn::Type::Path(p) if p.qself.is_none() => p
            .path
            .segments
            .last()
            .map_or_else(|| t.to_token_stream().to_string(), |s| s.ident.to_string()),
        _ => t.to_token_stream().to_string().replace(' ', ""),
    }
}

/// `RowMajor` / `ColMajor` / `LayoutRight` / `LayoutLeft` standing alone (at the end, or before
/// the `,` of an algebra argument).
fn order_keyword(input: ParseStream) -> Option<Order> {
    let fork = input.fork();
    let id: Ident = fork.parse().ok()?;
    if !fork.is_empty() && !fork.peek(Token![,]) {
        return None;
    }
    match id.to_string().as_str() {
        "RowMajor" | "LayoutRight" => Some(Order::Row),
        "ColMajor" | "LayoutLeft" => Some(Order::Col),
        _ => None,
    }
}

/// The keywords a stride may be, for suggestions.
pub const ORDER_KEYWORDS: [&str; 4] = ["RowMajor", "ColMajor", "LayoutRight", "LayoutLeft"];

pub(crate) fn parse_node(input: ParseStream, mode: Mode) -> syn::Result<Node> {
    if input.peek(token::Paren) {
        let fork = input.fork();
        let _content;
        syn::parenthesized!(_content in fork);
        if mode == Mode::Type || !continues_expression(&fork) {
            let content;
            let paren = syn::parenthesized!(content in input);
            let mut elems = Vec::new();
            while !content.is_empty() {
                elems.push(parse_node(&content, mode)?);
                if content.is_empty() {
                    break;
                }
                if !content.peek(Token![,]) {
                    return Err(content.error(format!(
                        "expected `,` or `)` after {}",
                        elems.last().map(Node::text).unwrap_or_default()
                    )));
                }
                content.parse::<Token![,]>()?;
            }
            return Ok(Node::Tuple(Tuple {
                span: paren.span.join(),
                elems,
            }));
        }
    }
    if input.is_empty() || input.peek(Token![,]) || peek_colon(input) {
        let before = if input.peek(Token![,]) {
            " before `,`"
        } else {
            ""
        };
        return Err(input.error(format!(
            "expected an integer, `Int<N>`, an expression or a tuple{before}"
        )));
    }
    let leaf = match mode {
        Mode::Value => parse_value_leaf(input)?,
        Mode::Type => parse_type_leaf(input)?,
    };
    Ok(Node::Leaf(leaf))
}

/// After a parenthesised group: does an expression go on (`(a + b) * 2`, `(x).len()`,
/// `(n) as i64`)? Otherwise the group is a tuple.
fn continues_expression(after: ParseStream) -> bool {
    if after.peek(Token![as]) {
        return true;
    }
    match after.cursor().punct() {
        Some((p, _)) => !matches!(p.as_char(), ',' | ':'),
        None => false,
    }
}

fn peek_int_type(input: ParseStream) -> bool {
    let fork = input.fork();
    match fork.parse::<Ident>() {
        Ok(id) if id == "Int" => fork.peek(Token![<]) || fork.peek(Token![::]),
        _ => false,
    }
}

/// `_16` → 16.
fn underscore_int(id: &Ident) -> Option<i64> {
    let s = id.to_string();
    let digits = s.strip_prefix('_')?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The value of an integer literal, negated when `neg`; `None` outside `i64`.
fn int_value(lit: &syn::LitInt, neg: bool) -> Option<i64> {
    let v: u64 = lit.base10_parse().ok()?;
    if neg {
        0i64.checked_sub_unsigned(v)
    } else {
        i64::try_from(v).ok()
    }
}

fn describe_lit(lit: &Lit) -> String {
    let text = lit.to_token_stream().to_string();
    match lit {
        Lit::Float(_) => format!("the floating-point literal {text}"),
        Lit::Str(_) => format!("the string literal {text}"),
        Lit::ByteStr(_) | Lit::CStr(_) => format!("the byte string literal {text}"),
        Lit::Char(_) => format!("the character literal {text}"),
        Lit::Byte(_) => format!("the byte literal {text}"),
        Lit::Bool(_) => format!("the boolean literal {text}"),
        _ => format!("the literal {text}"),
    }
}

/// `Int<16>`, `Int::<-1>`, `Int<N>`, `Int<{N * 2}>`, optionally followed by Ascend's `{}`.
fn parse_int_type(input: ParseStream) -> syn::Result<Leaf> {
    let start = input.fork();
    let int: Ident = input.parse()?;
    if input.peek(Token![::]) {
        input.parse::<Token![::]>()?;
    }
    input.parse::<Token![<]>()?;
    let kind = if input.peek(syn::LitInt) || (input.peek(Token![-]) && input.peek2(syn::LitInt)) {
        let neg = input.parse::<Option<Token![-]>>()?.is_some();
        let lit: syn::LitInt = input.parse()?;
        match int_value(&lit, neg) {
            Some(v) => LeafKind::Known(v),
            None => LeafKind::OutOfRange,
        }
    } else if input.peek(token::Brace) {
        let group: proc_macro2::Group = input.parse()?;
        // `{16}` / `{-1}` are still literals the macro can see.
        let inner: Option<(bool, syn::LitInt)> = (|s: ParseStream| {
            let neg = s.parse::<Option<Token![-]>>()?.is_some();
            Ok((neg, s.parse::<syn::LitInt>()?))
        })
        .parse2(group.stream())
        .ok();
        match inner.and_then(|(neg, lit)| int_value(&lit, neg)) {
            Some(v) => LeafKind::Known(v),
            None => LeafKind::Opaque(group.into_token_stream()),
        }
    } else if input.peek(Ident) {
        LeafKind::Opaque(input.parse::<Ident>()?.into_token_stream())
    } else {
        return Err(
            input.error("expected an integer, a const generic `N` or `{ expr }` inside `Int<…>`")
        );
    };
    if !input.peek(Token![>]) {
        return Err(input.error(format!("expected `>` to close `{int}<…`")));
    }
    input.parse::<Token![>]>()?;
    if input.peek(token::Brace) {
        let fork = input.fork();
        let g: proc_macro2::Group = fork.parse()?;
        if g.stream().is_empty() {
            input.parse::<proc_macro2::Group>()?;
        }
    }
    Ok(Leaf {
        kind,
        tokens: tokens_between(&start, input),
    })
}

/// The tokens consumed between a fork taken earlier and the current position.
fn tokens_between(start: ParseStream, end: ParseStream) -> TokenStream {
    let mut out = TokenStream::new();
    let mut cursor = start.cursor();
    while cursor != end.cursor() {
        match cursor.token_tree() {
            Some((tt, next)) => {
                out.extend([tt]);
                cursor = next;
            }
            None => break,
        }
    }
    out
}

fn parse_value_leaf(input: ParseStream) -> syn::Result<Leaf> {
    if peek_int_type(input) {
        return parse_int_type(input);
    }
    let expr: Expr = input.parse()?;
    let tokens = expr.to_token_stream();
    Ok(Leaf {
        kind: classify(&expr, tokens.clone()),
        tokens,
    })
}

fn classify(expr: &Expr, tokens: TokenStream) -> LeafKind {
    match expr {
        Expr::Lit(e) => match &e.lit {
            Lit::Int(lit) => int_value(lit, false).map_or(LeafKind::OutOfRange, LeafKind::Known),
            other => LeafKind::NotInteger(describe_lit(other)),
        },
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => match &*u.expr {
            Expr::Lit(e) => match &e.lit {
                Lit::Int(lit) => int_value(lit, true).map_or(LeafKind::OutOfRange, LeafKind::Known),
                other => LeafKind::NotInteger(describe_lit(other)),
            },
            _ => LeafKind::Dynamic(tokens),
        },
        Expr::Path(p) if p.qself.is_none() => match p.path.get_ident().and_then(underscore_int) {
            Some(v) => LeafKind::Known(v),
            None => LeafKind::Dynamic(tokens),
        },
        Expr::Infer(_) => LeafKind::NotInteger("`_`".into()),
        Expr::Group(g) => classify(&g.expr, tokens),
        // `{ n * 2 }` is passed on as `n * 2`, so that `unused_braces` stays quiet.
        Expr::Block(b) if b.attrs.is_empty() && b.label.is_none() => match b.block.stmts.as_slice()
        {
            [syn::Stmt::Expr(inner, None)] => LeafKind::Dynamic(inner.to_token_stream()),
            _ => LeafKind::Dynamic(tokens),
        },
        _ => LeafKind::Dynamic(tokens),
    }
}

fn parse_type_leaf(input: ParseStream) -> syn::Result<Leaf> {
    if peek_int_type(input) {
        return parse_int_type(input);
    }
    let start = input.fork();
    let kind = if input.peek(syn::LitInt) || (input.peek(Token![-]) && input.peek2(syn::LitInt)) {
        let neg = input.parse::<Option<Token![-]>>()?.is_some();
        let lit: syn::LitInt = input.parse()?;
        int_value(&lit, neg).map_or(LeafKind::OutOfRange, LeafKind::Known)
    } else if input.peek(Lit) || (input.peek(Token![-]) && input.peek2(Lit)) {
        input.parse::<Option<Token![-]>>()?;
        LeafKind::NotInteger(describe_lit(&input.parse()?))
    } else if input.peek(token::Brace) {
        LeafKind::Opaque(input.parse::<proc_macro2::Group>()?.into_token_stream())
    } else if input.peek(Ident) || input.peek(Token![::]) || input.peek(Token![Self]) {
        let path: syn::Path = input.parse()?;
        match path.get_ident() {
            Some(id) if id == "i64" => LeafKind::Dynamic(id.to_token_stream()),
            Some(id) => match underscore_int(id) {
                Some(v) => LeafKind::Known(v),
                None => LeafKind::Opaque(id.to_token_stream()),
            },
            None => {
                let span = path_span(&path);
                LeafKind::Opaque(
                    proc_macro2::Group::new(
                        proc_macro2::Delimiter::Brace,
                        path.into_token_stream(),
                    )
                    .into_token_stream()
                    .into_iter()
                    .map(|mut t| {
                        t.set_span(span);
                        t
                    })
                    .collect(),
                )
            }
        }
    } else if input.peek(Token![_]) {
        input.parse::<Token![_]>()?;
        LeafKind::NotInteger("`_`".into())
    } else {
        return Err(input.error(
            "expected an integer, `Int<N>`, a const generic `N`, `{ expr }`, or `i64` for a dynamic leaf",
        ));
    };
    Ok(Leaf {
        kind,
        tokens: tokens_between(&start, input),
    })
}

fn path_span(path: &syn::Path) -> Span {
    path.to_token_stream()
        .into_iter()
        .next()
        .map_or_else(Span::call_site, |t: TokenTree| t.span())
}
