//! Evaluating a parsed line: converting terms to the kind each function expects (layout, shape,
//! coordinate, tiler, integer) and calling the library. Every failure is an `Err(String)`, the text
//! after `error: `.

use super::parse::{Term, echo};
use layout::named::banks::{BankModel, bank_conflicts, suggest_swizzle};
use layout::svg::Picture;
use layout::{DynLayout, DynTuple, LayoutError, LayoutTable, SliceCoord, Swizzle, SwizzledLayout};
use std::str::FromStr;

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
        Term::Text(s, _) if s.starts_with('[') => {
            Err("a tiler `[…]` is only meaningful as the argument of a function".into())
        }
        Term::Text(s, _) if s == "_" => {
            Err("`_` is only meaningful inside a coordinate or a tiler".into())
        }
        _ => Ok(Value::Layout(any_layout(t)?)),
    }
}

// ---------------------------------------------------------------------------------------------
// Conversions: every value text is read by layout-core's parser (`FromStr`).
// ---------------------------------------------------------------------------------------------

/// A layout-core error on the text starting at byte `at` of the line: parse errors get the
/// column in the line.
pub fn text_err(e: LayoutError, at: usize) -> String {
    match e {
        LayoutError::Parse { at: k, expected } => {
            format!("expected {expected} at column {}", at + k + 1)
        }
        e => lerr(e),
    }
}

/// Parse a value text with layout-core's `FromStr`.
pub fn read<T: FromStr<Err = LayoutError>>(s: &str, at: usize) -> Res<T> {
    s.parse().map_err(|e| text_err(e, at))
}

/// An integer tuple (shape, stride, profile, coordinate without `_`).
pub fn tuple(t: &Term) -> Res<DynTuple> {
    match t {
        Term::Text(s, at) => {
            if s.starts_with('[') {
                return Err(
                    "expected an integer or a tuple of integers, found a tiler `[…]`".into(),
                );
            }
            match read::<DynTuple>(s, *at) {
                Ok(v) => Ok(v),
                Err(_) if s.parse::<DynLayout>().is_ok() => {
                    Err("expected an integer or a tuple of integers, found a layout".into())
                }
                Err(_) if s.parse::<SliceCoord>().is_ok() => Err(
                    "`_` is not allowed here: expected an integer or a tuple of integers".into(),
                ),
                Err(e) => Err(e),
            }
        }
        Term::Call(name, args) => match call(name, args)? {
            Value::Int(v) => Ok(DynTuple::leaf(v)),
            Value::Tuple(t) => Ok(t),
            Value::Layout(AnyL::Plain(l)) => Ok(l.shape()),
            _ => Err(format!(
                "`{}(…)` does not give an integer tuple",
                echo(name)
            )),
        },
        Term::Swizzled { .. } => {
            Err("expected an integer or a tuple of integers, found a layout".into())
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
        Term::Text(s, _) if s.starts_with('[') => {
            Err("expected a layout, found a tiler `[…]`".into())
        }
        Term::Text(s, _) if s == "_" => Err("expected a layout, found `_`".into()),
        Term::Text(s, at) => Ok(AnyL::Plain(read(s, *at)?)),
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
            Value::Text(_) => Err(format!("`{}(…)` does not give a layout", echo(name))),
        },
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
        "svg" | "latex" => {
            arity(name, args, 1)?;
            let l = any_layout(&args[0])?;
            check_printable("the layout", l.inner().size())?;
            let text = Value::Layout(l).render();
            let picture = match &l {
                AnyL::Plain(p) => Picture::new(p).map(|pic| draw(name, pic.title(&text))),
                AnyL::Swizzled(w) => Picture::new(w).map(|pic| draw(name, pic.title(&text))),
            }
            .map_err(lerr)?;
            // like print_layout: the picture, then one empty line
            Ok(Value::Text(format!("{}\n", picture.trim_end())))
        }
        "bank_conflicts" | "suggest_swizzle" => {
            if !(2..=3).contains(&args.len()) {
                return Err(format!(
                    "`{name}` takes 2 or 3 arguments (layout, element bytes[, vector elements]), {} given",
                    args.len()
                ));
            }
            let l = any_layout(&args[0])?;
            let bytes = int(&args[1])?;
            if bytes <= 0 {
                return Err(format!("element bytes must be positive, not {bytes}"));
            }
            // default: 16-byte (128-bit) vector accesses, or one element if it is wider
            let vector = match args.get(2) {
                Some(t) => int(t)?,
                None => (16 / bytes).max(1),
            };
            let model = BankModel::NVIDIA_SMEM;
            if name == "bank_conflicts" {
                let r = match &l {
                    AnyL::Plain(p) => bank_conflicts(p, bytes, vector, model),
                    AnyL::Swizzled(w) => bank_conflicts(w, bytes, vector, model),
                }
                .map_err(lerr)?;
                return Ok(Value::Text(format!(
                    "row-wise {}-way, column-wise {}-way",
                    r.row_wise, r.column_wise
                )));
            }
            let AnyL::Plain(p) = l else {
                return Err("suggest_swizzle takes an unswizzled tile".into());
            };
            Ok(Value::Text(
                match suggest_swizzle(&p, bytes, vector, model).map_err(lerr)? {
                    Some(sw) => sw.to_string(),
                    None => {
                        "none (no Sw<B,M,S> with B <= 5, M <= 8, S <= 10 removes the conflicts)"
                            .into()
                    }
                },
            ))
        }
        _ => super::algebra::call(name, args),
    }
}

/// The SVG or LaTeX/TikZ text of a picture.
fn draw<L: layout::AnyLayout>(name: &str, p: Picture<'_, L>) -> String {
    if name == "svg" {
        p.to_svg()
    } else {
        p.to_latex()
    }
}
