//! The layout-algebra functions of the calculator, each a thin call into `layout::algebra`
//! (methods of `DynLayout`). Argument kinds: a layout `L`, a tiler `T` (a by-mode tiler `[…]` or a
//! layout, which is a 1-D tiler), a coordinate with `_`, an integer or a shape.

use super::eval::{AnyL, Res, Value, any_layout, int, layout, tuple};
use super::parse::Term;
use layout::{DynLayout, LayoutError, SliceCoord, SwizzledLayout, Tile, TileMode};

fn lerr(e: LayoutError) -> String {
    e.to_string()
}

/// A tiler: `[t0,t1,…]` is by-mode (each `tᵢ` a layout, an integer `N` = `N:1`, or `_`); anything
/// else is a layout, i.e. a 1-D tiler. (Lives for one call; not worth boxing.)
#[allow(clippy::large_enum_variant)]
enum Tiler {
    OneD(DynLayout),
    ByMode(Tile),
}

fn tiler(t: &Term) -> Res<Tiler> {
    match t {
        Term::Tiler(items) => {
            let mut tile = Tile::EMPTY;
            for item in items {
                let mode = match item {
                    Term::Under => TileMode::Keep,
                    Term::Tiler(_) => {
                        return Err("nested tilers `[[…]]` are not supported; use a layout".into());
                    }
                    other => TileMode::Layout(layout(other)?),
                };
                tile.push(mode).map_err(lerr)?;
            }
            Ok(Tiler::ByMode(tile))
        }
        _ => Ok(Tiler::OneD(layout(t)?)),
    }
}

/// A coordinate whose entries may be `_`.
fn slice_coord(t: &Term) -> Res<SliceCoord> {
    match t {
        Term::Under => Ok(SliceCoord::UNDERSCORE),
        Term::Int(v) => Ok(SliceCoord::index(*v)),
        Term::Tuple(items) => {
            let children = items.iter().map(slice_coord).collect::<Res<Vec<_>>>()?;
            SliceCoord::tuple(&children).map_err(lerr)
        }
        _ => Err("expected a coordinate: an integer, `_`, or a tuple of those".into()),
    }
}

fn args_n(name: &str, args: &[Term], allowed: &[usize]) -> Res<()> {
    if allowed.contains(&args.len()) {
        return Ok(());
    }
    let want = match allowed {
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
    Err(format!("`{name}` takes {want}, {} given", args.len()))
}

fn lay(l: Result<DynLayout, LayoutError>) -> Res<Value> {
    Ok(Value::Layout(AnyL::Plain(l.map_err(lerr)?)))
}

/// Evaluate an algebra function, or report an unknown name.
pub fn call(name: &str, args: &[Term]) -> Res<Value> {
    type ByLayout = fn(&DynLayout, &DynLayout) -> Result<DynLayout, LayoutError>;
    type ByTile = fn(&DynLayout, &Tile) -> Result<DynLayout, LayoutError>;
    let divide_or_product: Option<(ByLayout, ByTile)> = match name {
        "logical_divide" => Some((DynLayout::logical_divide, DynLayout::logical_divide_by_mode)),
        "zipped_divide" => Some((DynLayout::zipped_divide, DynLayout::zipped_divide_by_mode)),
        "tiled_divide" => Some((DynLayout::tiled_divide, DynLayout::tiled_divide_by_mode)),
        "flat_divide" => Some((DynLayout::flat_divide, DynLayout::flat_divide_by_mode)),
        "logical_product" => Some((
            DynLayout::logical_product,
            DynLayout::logical_product_by_mode,
        )),
        "zipped_product" => Some((DynLayout::zipped_product, DynLayout::zipped_product_by_mode)),
        "tiled_product" => Some((DynLayout::tiled_product, DynLayout::tiled_product_by_mode)),
        "flat_product" => Some((DynLayout::flat_product, DynLayout::flat_product_by_mode)),
        _ => None,
    };
    if let Some((by_layout, by_tile)) = divide_or_product {
        args_n(name, args, &[2])?;
        let l = layout(&args[0])?;
        return match tiler(&args[1])? {
            Tiler::OneD(t) => lay(by_layout(&l, &t)),
            Tiler::ByMode(t) => lay(by_tile(&l, &t)),
        };
    }
    match name {
        "coalesce" => {
            args_n(name, args, &[1, 2])?;
            let l = layout(&args[0])?;
            match args.get(1) {
                None => lay(Ok(l.coalesce())),
                Some(p) => lay(l.coalesce_by_mode(&tuple(p)?)),
            }
        }
        "filter" | "filter_zeros" | "right_inverse" | "left_inverse" | "nullspace" => {
            args_n(name, args, &[1])?;
            let l = layout(&args[0])?;
            lay(match name {
                "filter" => Ok(l.filter()),
                "filter_zeros" => Ok(l.filter_zeros()),
                "right_inverse" => Ok(l.right_inverse()),
                "nullspace" => Ok(l.nullspace()),
                _ => l.left_inverse(),
            })
        }
        "composition" => {
            args_n(name, args, &[2])?;
            // Sw o K o A composed with B is Sw o K o (A ∘ B), as in CuTe
            let a = any_layout(&args[0])?;
            let inner = match a {
                AnyL::Plain(l) => l,
                AnyL::Swizzled(s) => s.layout(),
            };
            let r = match tiler(&args[1])? {
                Tiler::OneD(b) => inner.composition(&b),
                Tiler::ByMode(t) => inner.composition_by_mode(&t),
            }
            .map_err(lerr)?;
            Ok(Value::Layout(match a {
                AnyL::Plain(_) => AnyL::Plain(r),
                AnyL::Swizzled(s) => {
                    AnyL::Swizzled(SwizzledLayout::new(s.swizzle(), s.offset_value(), r))
                }
            }))
        }
        "complement" => {
            args_n(name, args, &[1, 2])?;
            let l = layout(&args[0])?;
            match args.get(1) {
                None => lay(l.complement_cosize()),
                Some(c) => {
                    let c = tuple(c)?;
                    match c.as_leaf() {
                        Some(m) => lay(l.complement(m)),
                        None => lay(l.complement_shape(&c)),
                    }
                }
            }
        }
        "blocked_product" | "raked_product" => {
            args_n(name, args, &[2])?;
            let a = layout(&args[0])?;
            let b = layout(&args[1])?;
            lay(if name == "blocked_product" {
                a.blocked_product(&b)
            } else {
                a.raked_product(&b)
            })
        }
        "slice" | "dice" | "slice_and_offset" => {
            args_n(name, args, &[2])?;
            let l = layout(&args[0])?;
            let c = slice_coord(&args[1])?;
            match name {
                "slice" => lay(l.slice(&c)),
                "dice" => lay(l.dice(&c)),
                _ => {
                    let (r, off) = l.slice_and_offset(&c).map_err(lerr)?;
                    Ok(Value::Text(format!("{r} + {off}")))
                }
            }
        }
        "max_common_layout" | "max_common_vector" => {
            args_n(name, args, &[2])?;
            let a = layout(&args[0])?;
            let b = layout(&args[1])?;
            if name == "max_common_layout" {
                lay(Ok(a.max_common_layout(&b)))
            } else {
                Ok(Value::Int(a.max_common_vector(&b)))
            }
        }
        "upcast" | "downcast" => {
            args_n(name, args, &[2])?;
            let l = layout(&args[0])?;
            let n = int(&args[1])?;
            lay(if name == "upcast" {
                l.upcast(n)
            } else {
                l.downcast(n)
            })
        }
        _ => Err(format!("unknown function `{name}`")),
    }
}
