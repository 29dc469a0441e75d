//! Evaluating a parsed line: converting terms to the kind each function expects (layout, shape,
//! coordinate, tiler, integer) and calling the library. Every failure is an `Err(String)`, the text
//! after `error: `.

use super::parse::Term;
use layout::{DynLayout, DynTuple, LayoutError, LayoutTable, Swizzle, SwizzledLayout};

/// The most elements `offsets` lists and the most cells `print_layout` draws.
pub const MAX_PRINTED: i64 = 1 << 16;

/// A swizzled run-time layout `Sw<B,M,S> o K o L`.
pub type Swizzled = SwizzledLayout<DynLayout, Swizzle, i64>;

/// A layout as the calculator holds it: affine or swizzled.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug)]
pub enum AnyL {
    Plain(DynLayout),
    Swizzled(Swizzled),
}

impl AnyL {
    fn inner(&self) -> DynLayout {
        match self {
            AnyL::Plain(l) => *l,
            AnyL::Swizzled(s) => s.layout(),
        }
    }
}

/// The result of evaluating an expression.
// Values live for one line; boxing the big variants would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug)]
pub enum Value {
    Int(i64),
    Tuple(DynTuple),
    Layout(AnyL),
    /// Already formatted output (lists, `L + offset`, tables).
    Text(String),
}

impl Value {
    /// The output for this value (one line, except tables).
    pub fn render(&self) -> String {
        match self {
            Value::Int(v) => v.to_string(),
            Value::Tuple(t) => t.to_string(),
            Value::Layout(AnyL::Plain(l)) => l.to_string(),
            Value::Layout(AnyL::Swizzled(s)) => s.to_string(),
            Value::Text(s) => s.clone(),
        }
    }
}

pub type Res<T> = Result<T, String>;

fn lerr(e: LayoutError) -> String {
    e.to_string()
}

/// A value of its own: a layout text, an integer (`N:1`), a swizzled layout or a call.
pub fn eval_top(t: &Term) -> Res<Value> {
    match t {
        Term::Call(name, args) => call(name, args),
        Term::Tiler(_) => {
            Err("a tiler `[…]` is only meaningful as the argument of a function".into())
        }
        Term::Under => Err("`_` is only meaningful inside a coordinate or a tiler".into()),
        _ => Ok(Value::Layout(any_layout(t)?)),
    }
}

// ---------------------------------------------------------------------------------------------
// Conversions
// ---------------------------------------------------------------------------------------------

/// An integer tuple (shape, stride, profile, coordinate without `_`).
pub fn tuple(t: &Term) -> Res<DynTuple> {
    match t {
        Term::Int(v) => Ok(DynTuple::leaf(*v)),
        Term::Tuple(items) => {
            let mut out = DynTuple::EMPTY;
            for item in items {
                out.push_mode(&tuple(item)?).map_err(lerr)?;
            }
            Ok(out)
        }
        Term::Under => {
            Err("`_` is not allowed here: expected an integer or a tuple of integers".into())
        }
        Term::Call(name, args) => match call(name, args)? {
            Value::Int(v) => Ok(DynTuple::leaf(v)),
            Value::Tuple(t) => Ok(t),
            Value::Layout(AnyL::Plain(l)) => Ok(l.shape()),
            _ => Err(format!("`{name}(…)` does not give an integer tuple")),
        },
        Term::Layout(..) | Term::Swizzled { .. } => {
            Err("expected an integer or a tuple of integers, found a layout".into())
        }
        Term::Tiler(_) => {
            Err("expected an integer or a tuple of integers, found a tiler `[…]`".into())
        }
    }
}

/// An integer.
pub fn int(t: &Term) -> Res<i64> {
    match tuple(t)?.as_leaf() {
        Some(v) => Ok(v),
        None => Err("expected an integer, found a tuple".into()),
    }
}

/// An affine layout: `S:D`, a bare shape (compact column-major), a bare integer `N` (`N:1`).
pub fn layout(t: &Term) -> Res<DynLayout> {
    match any_layout(t)? {
        AnyL::Plain(l) => Ok(l),
        AnyL::Swizzled(s) => Err(format!(
            "`{}` is swizzled; this function needs a shape:stride layout",
            s.swizzle()
        )),
    }
}

/// A layout, affine or swizzled.
pub fn any_layout(t: &Term) -> Res<AnyL> {
    match t {
        Term::Layout(s, d) => Ok(AnyL::Plain(
            DynLayout::new(&tuple(s)?, &tuple(d)?).map_err(lerr)?,
        )),
        Term::Int(_) | Term::Tuple(_) => {
            Ok(AnyL::Plain(DynLayout::col_major(&tuple(t)?).map_err(lerr)?))
        }
        Term::Swizzled {
            sw,
            offset,
            layout: l,
        } => {
            let sw = Swizzle::new(sw.0, sw.1, sw.2).map_err(lerr)?;
            let k = match offset {
                Some(k) => int(k)?,
                None => 0,
            };
            Ok(AnyL::Swizzled(SwizzledLayout::new(sw, k, layout(l)?)))
        }
        Term::Call(name, args) => match call(name, args)? {
            Value::Layout(l) => Ok(l),
            Value::Int(v) => Ok(AnyL::Plain(DynLayout::leaf(v, 1).map_err(lerr)?)),
            Value::Tuple(t) => Ok(AnyL::Plain(DynLayout::col_major(&t).map_err(lerr)?)),
            Value::Text(_) => Err(format!("`{name}(…)` does not give a layout")),
        },
        Term::Under => Err("expected a layout, found `_`".into()),
        Term::Tiler(_) => Err("expected a layout, found a tiler `[…]`".into()),
    }
}

// ---------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------

fn arity(name: &str, args: &[Term], n: usize) -> Res<()> {
    if args.len() == n {
        Ok(())
    } else {
        Err(format!(
            "`{name}` takes {n} argument{}, {} given",
            if n == 1 { "" } else { "s" },
            args.len()
        ))
    }
}

fn offset_of(l: &AnyL, c: &DynTuple) -> Res<i64> {
    let off = l.inner().offset_of(c).map_err(lerr)?;
    Ok(match l {
        AnyL::Plain(_) => off,
        AnyL::Swizzled(s) => s.try_swizzle_offset(off).map_err(lerr)?,
    })
}

fn check_printable(what: &str, n: i64) -> Res<()> {
    if n > MAX_PRINTED {
        return Err(format!(
            "{what} has {n} elements; the calculator prints at most {MAX_PRINTED}"
        ));
    }
    Ok(())
}

/// `idx2crd(i, shape)`: the colexicographic coordinate of index `i` in `shape`.
fn idx2crd(i: i64, shape: &DynTuple) -> Res<DynTuple> {
    let size = shape.size().map_err(lerr)?;
    if i < 0 || i >= size {
        return Err(lerr(LayoutError::IndexOutOfRange { index: i, size }));
    }
    let l = DynLayout::col_major(shape).map_err(lerr)?;
    Ok(l.index_to_coord(i))
}

/// Evaluate `name(args…)`.
pub fn call(name: &str, args: &[Term]) -> Res<Value> {
    match name {
        "size" | "cosize" | "rank" | "depth" => {
            arity(name, args, 1)?;
            let l = any_layout(&args[0])?;
            let inner = l.inner();
            Ok(Value::Int(match name {
                "size" => inner.size(),
                "cosize" => inner.cosize(),
                "rank" => inner.rank() as i64,
                _ => inner.depth() as i64,
            }))
        }
        "offsets" => {
            arity(name, args, 1)?;
            let l = any_layout(&args[0])?;
            let n = l.inner().size();
            check_printable("the layout", n)?;
            let mut s = String::from("[");
            for i in 0..n {
                if i > 0 {
                    s.push(',');
                }
                let off = match &l {
                    AnyL::Plain(p) => p.offset(i),
                    AnyL::Swizzled(w) => w.try_offset(i).map_err(lerr)?,
                };
                s.push_str(&off.to_string());
            }
            s.push(']');
            Ok(Value::Text(s))
        }
        "eval" => {
            arity(name, args, 2)?;
            let l = any_layout(&args[0])?;
            Ok(Value::Int(offset_of(&l, &tuple(&args[1])?)?))
        }
        "idx2crd" => {
            arity(name, args, 2)?;
            Ok(Value::Tuple(idx2crd(int(&args[0])?, &tuple(&args[1])?)?))
        }
        "crd2idx" => {
            arity(name, args, 2)?;
            let c = tuple(&args[0])?;
            let l = DynLayout::col_major(&tuple(&args[1])?).map_err(lerr)?;
            Ok(Value::Int(l.offset_of(&c).map_err(lerr)?))
        }
        "swizzle" => {
            arity(name, args, 4)?;
            let sw = Swizzle::new(int(&args[0])?, int(&args[1])?, int(&args[2])?).map_err(lerr)?;
            Ok(Value::Int(sw.apply(int(&args[3])?)))
        }
        "print_layout" => {
            arity(name, args, 1)?;
            let l = any_layout(&args[0])?;
            check_printable("the layout", l.inner().size())?;
            let table = match &l {
                AnyL::Plain(p) => LayoutTable::new(p).map(|t| t.to_string()),
                AnyL::Swizzled(w) => LayoutTable::new(w).map(|t| t.to_string()),
            }
            .map_err(lerr)?;
            Ok(Value::Text(table))
        }
        _ => super::algebra::call(name, args),
    }
}
