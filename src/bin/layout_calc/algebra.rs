//! The layout-algebra functions of the calculator: a lookup in layout-core's table of
//! operations (`layout::algebra::ops`), which also decides what each argument may be (the same
//! rules as the `layout!` macro), plus the slicing functions, which take coordinates with `_`.

use super::eval::{AnyL, Res, Value, any_layout, layout, read, text_err};
use super::parse::{Term, echo};
use layout::algebra::ops::{self, Arg, Op, OpError, Param, Spelling, TilerHint};
use layout::{DynLayout, LayoutError, SliceCoord, SwizzledLayout};

fn lerr(e: LayoutError) -> String {
    e.to_string()
}

/// A coordinate whose entries may be `_`, read by layout-core's parser.
fn slice_coord(t: &Term) -> Res<SliceCoord> {
    match t {
        Term::Text(s, at) => read(s, *at),
        _ => Err("expected a coordinate: an integer, `_`, or a tuple of those".into()),
    }
}

/// An argument of a table entry, as written: a tiler `[…]`, a bare shape or integer, or a
/// layout (with a stride, or a call's result).
fn arg(t: &Term) -> Res<Arg> {
    match t {
        Term::Text(s, at) if s.starts_with('[') => Ok(Arg::Tile(read(s, *at)?)),
        Term::Text(s, at) => match s.parse() {
            Ok(shape) => Ok(Arg::Shape(shape)),
            Err(_) => Ok(Arg::Layout(read(s, *at)?)),
        },
        Term::Call(name, args) => match call(name, args)? {
            Value::Int(v) => Ok(Arg::Shape(layout::DynTuple::leaf(v))),
            Value::Tuple(t) => Ok(Arg::Shape(t)),
            _ => Ok(Arg::Layout(layout(t)?)),
        },
        Term::Swizzled { .. } => Ok(Arg::Layout(layout(t)?)),
    }
}

fn args_n(name: &str, given: usize) -> String {
    let allowed: Vec<usize> = Op::arities(name).collect();
    let want = match allowed.as_slice() {
        [n] => format!("{n} argument{}", if *n == 1 { "" } else { "s" }),
        _ => format!(
            "{} arguments",
            allowed
                .iter()
                .map(|n| n.to_string())
                .collect::<Vec<_>>()
                .join(" or ")
        ),
    };
    format!("`{name}` takes {want}, {given} given")
}

fn op_error(name: &str, args: &[Arg], e: OpError) -> String {
    match e {
        OpError::Refused(e) => lerr(e),
        OpError::Argument { index, expected } => {
            format!("argument {} of `{name}` must be {expected}", index + 1)
        }
        OpError::BareShapeTiler { index } => {
            let (shape, layout) = match args[index] {
                Arg::Shape(s) => (
                    s.to_string(),
                    DynLayout::col_major(&s).map_or_else(|_| "…".into(), |l| l.to_string()),
                ),
                _ => (String::new(), String::new()),
            };
            format!(
                "argument {} of `{name}`: {}",
                index + 1,
                TilerHint {
                    shape: &shape,
                    layout: &layout
                }
            )
        }
        OpError::Arity { given } => args_n(name, given),
        OpError::Unknown => format!("unknown function `{}`", echo(name)),
    }
}

/// Evaluate an algebra function, or report an unknown name.
pub fn call(name: &str, args: &[Term]) -> Res<Value> {
    if let "slice" | "dice" | "slice_and_offset" = name {
        return slice(name, args);
    }
    // a named layout's spelling (`NZ<f16>(m, n)`) is a table entry with C0 first
    let (base, dtype) = match name.split_once('<') {
        Some((b, t)) => (b, Some(t.trim_end_matches('>'))),
        None => (name, None),
    };
    let params: Vec<Param<'_>> = dtype
        .map(|t| {
            t.split(',')
                .map(|p| p.parse().map_or(Param::Type(p), Param::Int))
                .collect()
        })
        .unwrap_or_default();
    let mut vals = Vec::with_capacity(args.len() + 3);
    let mut after = Vec::new();
    let op = match Spelling::resolve(base, &params, args.len()) {
        Some(r) => {
            let s = r.map_err(|e| e.message(base, dtype).to_string())?;
            vals.extend(s.before.map(|c| Arg::Shape(layout::DynTuple::leaf(c))));
            after.extend(
                s.after()
                    .iter()
                    .map(|&c| Arg::Shape(layout::DynTuple::leaf(c))),
            );
            s.op
        }
        None if dtype.is_some() => return Err(format!("`{}` takes no type parameter", echo(base))),
        None => Op::lookup(name, args.len()).map_err(|e| op_error(name, &[], e))?,
    };
    // Sw o K o A composed with B is Sw o K o (A ∘ B), as in CuTe
    let swizzled = match (op, args.first()) {
        (Op::Composition, Some(a @ Term::Swizzled { .. })) => match any_layout(a)? {
            AnyL::Swizzled(s) => Some(s),
            AnyL::Plain(_) => None,
        },
        _ => None,
    };
    // arguments the user wrote start here (after a spelling's C0)
    let shift = vals.len();
    for (i, t) in args.iter().enumerate() {
        vals.push(match (&swizzled, i) {
            (Some(s), 0) => Arg::Layout(s.layout()),
            _ => arg(t)?,
        });
    }
    vals.extend(after);
    let written = |e| match e {
        OpError::Argument { index, expected } => OpError::Argument {
            index: index.saturating_sub(shift),
            expected,
        },
        e => e,
    };
    match op
        .apply(&vals)
        .map_err(|e| op_error(name, &vals[shift..], written(e)))?
    {
        ops::Value::Int(v) => Ok(Value::Int(v)),
        ops::Value::Layout(r) => Ok(Value::Layout(match swizzled {
            None => AnyL::Plain(r),
            Some(s) => AnyL::Swizzled(SwizzledLayout::new(s.swizzle(), s.offset_value(), r)),
        })),
    }
}

/// `slice`, `dice`, `slice_and_offset`: a layout and a coordinate with `_`.
fn slice(name: &str, args: &[Term]) -> Res<Value> {
    if args.len() != 2 {
        return Err(format!("`{name}` takes 2 arguments, {} given", args.len()));
    }
    let l = layout(&args[0])?;
    let c = slice_coord(&args[1])?;
    let lay = |r: Result<DynLayout, LayoutError>| Ok(Value::Layout(AnyL::Plain(r.map_err(lerr)?)));
    match name {
        "slice" => lay(l.slice(&c)),
        "dice" => lay(l.dice(&c)),
        _ => {
            let (r, off) = l.slice_and_offset(&c).map_err(|e| text_err(e, 0))?;
            Ok(Value::Text(format!("{r} + {off}")))
        }
    }
}
