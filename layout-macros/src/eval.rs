//! Stage 3: plain arithmetic on the parts of a layout the macro can see, with no syn types.
//!
//! Everything here calls layout-core's `const fn`s on [`DynTuple`] and [`DynLayout`]: the
//! macro's checks are the same code that validates run-time layouts and computes the associated
//! consts of static ones. Leaves the macro cannot see (dynamic expressions, const generics) are
//! replaced by neutral placeholders — extent 1, stride 0 — which contribute nothing to size and
//! cosize, so a check on the placeholder layout is exactly a check of the static part.

use layout_core::{DynLayout, DynTuple, LayoutError, Tile};

/// A leaf of a shape or stride, as far as arithmetic is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Val {
    /// A value known at expansion time.
    Known(i64),
    /// A value known only later (a run-time expression or a const generic).
    Unknown,
}

/// A shape or stride skeleton.
#[derive(Clone, Debug)]
pub enum Tree {
    /// An integer.
    Leaf(Val),
    /// A tuple.
    Tuple(Vec<Tree>),
}

/// Extent placeholder for unknown shape leaves.
pub const SHAPE_PLACEHOLDER: i64 = 1;
/// Stride placeholder for unknown stride leaves.
pub const STRIDE_PLACEHOLDER: i64 = 0;

/// The run-time tuple of a skeleton, unknown leaves replaced by `placeholder`.
///
/// # Errors
/// [`LayoutError::TooManyLeaves`] / [`LayoutError::TooComplex`] past the capacity of a
/// run-time tuple.
pub fn to_dyn(tree: &Tree, placeholder: i64) -> Result<DynTuple, LayoutError> {
    match tree {
        Tree::Leaf(Val::Known(v)) => Ok(DynTuple::leaf(*v)),
        Tree::Leaf(Val::Unknown) => Ok(DynTuple::leaf(placeholder)),
        Tree::Tuple(elems) => {
            let mut t = DynTuple::EMPTY;
            for e in elems {
                t.push_mode(&to_dyn(e, placeholder)?)?;
            }
            Ok(t)
        }
    }
}

/// All non-positive extents of a shape (flat leaf index, value), and the overflow error if the
/// size of the rest overflows. Runs `DynLayout::new` repeatedly, repairing each bad extent it
/// reports, so every one is found.
pub fn check_shape(shape: &DynTuple) -> (Vec<(usize, i64)>, Option<LayoutError>) {
    let mut shape = *shape;
    let mut zero = shape;
    zero.leaves_mut().iter_mut().for_each(|v| *v = 0);
    let mut bad = Vec::new();
    loop {
        match DynLayout::new(&shape, &zero) {
            Ok(_) => return (bad, None),
            Err(LayoutError::NonPositiveExtent { leaf, extent }) => {
                bad.push((leaf, extent));
                shape.leaves_mut()[leaf] = SHAPE_PLACEHOLDER;
            }
            Err(e) => return (bad, Some(e)),
        }
    }
}

/// Validate a (placeholder) layout: congruence, extents, size and cosize, exactly as
/// [`DynLayout::new`] does at run time.
///
/// # Errors
/// The first rule broken.
pub fn check_layout(shape: &DynTuple, stride: &DynTuple) -> Result<DynLayout, LayoutError> {
    DynLayout::new(shape, stride)
}

/// One stride leaf of a compact layout: `known × Π shape[f] for f in factors`, where `factors`
/// are the flat indices of the unknown shape leaves it multiplies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompactStride {
    /// The product of the known shape leaves it covers.
    pub known: i64,
    /// Flat indices of the unknown shape leaves it covers.
    pub factors: Vec<usize>,
}

/// The strides of the compact column-major (`row_major == false`) or row-major layout of a
/// shape. The known part of every stride is computed by layout-core's `col_major` / `row_major`
/// on the placeholder shape.
///
/// # Errors
/// [`LayoutError::Overflow`] when the known part of the size overflows.
pub fn compact(shape: &Tree, row_major: bool) -> Result<Vec<CompactStride>, LayoutError> {
    let dyn_shape = to_dyn(shape, SHAPE_PLACEHOLDER)?;
    let layout = if row_major {
        DynLayout::row_major(&dyn_shape)?
    } else {
        DynLayout::col_major(&dyn_shape)?
    };
    let mut vals = Vec::new();
    leaf_vals(shape, &mut vals);
    let unknown: Vec<usize> = (0..vals.len())
        .filter(|&i| vals[i] == Val::Unknown)
        .collect();
    Ok(layout
        .stride_leaves()
        .iter()
        .enumerate()
        .map(|(k, &known)| CompactStride {
            known,
            factors: unknown
                .iter()
                .copied()
                .filter(|&f| if row_major { f > k } else { f < k })
                .collect(),
        })
        .collect())
}

/// The leaves of a skeleton in order.
pub fn leaf_vals(tree: &Tree, out: &mut Vec<Val>) {
    match tree {
        Tree::Leaf(v) => out.push(*v),
        Tree::Tuple(elems) => elems.iter().for_each(|e| leaf_vals(e, out)),
    }
}

/// An argument of an algebra operation, evaluated.
// A handful of these exist per macro call, at expansion time: size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug)]
pub enum AlgArg {
    /// A layout; `shape` is set when it was written as a bare shape or integer (no stride), so
    /// that it can also serve as a shape or integer argument.
    Layout {
        /// The layout (compact column-major for a bare shape).
        layout: DynLayout,
        /// The shape as written, when no stride was given.
        shape: Option<DynTuple>,
    },
    /// A by-mode tiler `[t0, t1, …]`.
    Tile(Tile),
}

/// The result of an algebra operation.
// A handful of these exist per macro call, at expansion time: size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, Debug)]
pub enum AlgValue {
    /// A layout.
    Layout(DynLayout),
    /// An integer (`max_common_vector`).
    Int(i64),
}

/// Why an algebra operation was not evaluated.
#[derive(Clone, Debug)]
pub enum AlgError {
    /// The operation refused its inputs (the rule and numbers are in the error).
    Refused(LayoutError),
    /// Argument `index` is not of a kind the operation takes; the string says what it takes.
    Argument(usize, String),
    /// Wrong number of arguments; the string gives the accepted forms.
    Arity(String),
}

impl From<LayoutError> for AlgError {
    fn from(e: LayoutError) -> Self {
        AlgError::Refused(e)
    }
}

/// The forms each operation accepts, for messages.
pub fn forms(op: &str) -> &'static str {
    match op {
        "coalesce" => "coalesce(L) or coalesce(L, profile)",
        "composition" => {
            "composition(A, B) with B a layout, a shape, an integer or a tiler [t0,t1,…]"
        }
        "complement" => "complement(L), complement(L, M) or complement(L, shape)",
        "upcast" | "downcast" => "upcast(L, N) / downcast(L, N) with an integer N",
        "max_common_layout" | "max_common_vector" => {
            "max_common_layout(A, B) / max_common_vector(A, B)"
        }
        op if op.ends_with("_divide") || op.ends_with("_product") => {
            "logical_divide(A, T) & co. with T a layout, an integer, a shape or a tiler [t0,t1,…]"
        }
        _ => "op(L) with one layout",
    }
}

/// Evaluate a CuTe algebra operation with layout-core's `const fn`s — the same functions the
/// static result types and run-time layouts use.
///
/// # Errors
/// [`AlgError::Refused`] with the rule broken; [`AlgError::Argument`] / [`AlgError::Arity`] when
/// the arguments do not fit the operation.
pub fn apply(op: &str, args: &[AlgArg]) -> Result<AlgValue, AlgError> {
    let layout = |i: usize| -> Result<DynLayout, AlgError> {
        match args.get(i) {
            Some(AlgArg::Layout { layout, .. }) => Ok(*layout),
            Some(AlgArg::Tile(_)) => Err(AlgError::Argument(i, "a layout, not a tiler".into())),
            None => Err(AlgError::Arity(forms(op).into())),
        }
    };
    let integer = |i: usize| -> Result<i64, AlgError> {
        match args.get(i) {
            Some(AlgArg::Layout { shape: Some(s), .. }) if s.is_leaf() => Ok(s.leaves()[0]),
            Some(_) => Err(AlgError::Argument(i, "an integer".into())),
            None => Err(AlgError::Arity(forms(op).into())),
        }
    };
    let arity = |n: usize| -> Result<(), AlgError> {
        if args.len() == n {
            Ok(())
        } else {
            Err(AlgError::Arity(forms(op).into()))
        }
    };
    // The second argument of divide/product/composition: a tiler, a shape, or a layout.
    #[allow(clippy::large_enum_variant)]
    enum Tiler {
        Layout(DynLayout),
        Shape(DynTuple),
        Tile(Tile),
    }
    let tiler = |i: usize| -> Result<Tiler, AlgError> {
        match args.get(i) {
            Some(AlgArg::Tile(t)) => Ok(Tiler::Tile(*t)),
            Some(AlgArg::Layout { shape: Some(s), .. }) if !s.is_leaf() => Ok(Tiler::Shape(*s)),
            Some(AlgArg::Layout { layout, .. }) => Ok(Tiler::Layout(*layout)),
            None => Err(AlgError::Arity(forms(op).into())),
        }
    };
    let by_mode = |t: Tiler| -> Result<Result<DynLayout, Tile>, AlgError> {
        Ok(match t {
            Tiler::Layout(l) => Ok(l),
            Tiler::Shape(s) => Err(Tile::from_shape(&s)?),
            Tiler::Tile(t) => Err(t),
        })
    };
    macro_rules! divide_or_product {
        ($plain:ident, $by_mode:ident) => {{
            arity(2)?;
            let a = layout(0)?;
            match by_mode(tiler(1)?)? {
                Ok(t) => a.$plain(&t)?,
                Err(t) => a.$by_mode(&t)?,
            }
        }};
    }
    let l = match op {
        "coalesce" => match args.len() {
            1 => layout(0)?.coalesce(),
            2 => match &args[1] {
                AlgArg::Layout { shape: Some(p), .. } => layout(0)?.coalesce_by_mode(p)?,
                _ => return Err(AlgError::Argument(1, "a profile such as (1,1)".into())),
            },
            _ => return Err(AlgError::Arity(forms(op).into())),
        },
        "filter_zeros" => {
            arity(1)?;
            layout(0)?.filter_zeros()
        }
        "filter" => {
            arity(1)?;
            layout(0)?.filter()
        }
        "right_inverse" => {
            arity(1)?;
            layout(0)?.right_inverse()
        }
        "left_inverse" => {
            arity(1)?;
            layout(0)?.left_inverse()?
        }
        "nullspace" => {
            arity(1)?;
            layout(0)?.nullspace()
        }
        "composition" => {
            arity(2)?;
            let a = layout(0)?;
            match tiler(1)? {
                Tiler::Layout(b) => match &args[1] {
                    AlgArg::Layout { shape: Some(s), .. } => a.composition_shape(s)?,
                    _ => a.composition(&b)?,
                },
                Tiler::Shape(s) => a.composition_shape(&s)?,
                Tiler::Tile(t) => a.composition_by_mode(&t)?,
            }
        }
        "complement" => match args.len() {
            1 => layout(0)?.complement_cosize()?,
            2 => match &args[1] {
                AlgArg::Layout { shape: Some(s), .. } => match s.as_leaf() {
                    Some(m) => layout(0)?.complement(m)?,
                    None => layout(0)?.complement_shape(s)?,
                },
                _ => {
                    return Err(AlgError::Argument(
                        1,
                        "a cotarget: an integer or a shape".into(),
                    ));
                }
            },
            _ => return Err(AlgError::Arity(forms(op).into())),
        },
        "upcast" => {
            arity(2)?;
            layout(0)?.upcast(integer(1)?)?
        }
        "downcast" => {
            arity(2)?;
            layout(0)?.downcast(integer(1)?)?
        }
        "max_common_layout" => {
            arity(2)?;
            layout(0)?.max_common_layout(&layout(1)?)
        }
        "max_common_vector" => {
            arity(2)?;
            return Ok(AlgValue::Int(layout(0)?.max_common_vector(&layout(1)?)));
        }
        "logical_divide" => divide_or_product!(logical_divide, logical_divide_by_mode),
        "zipped_divide" => divide_or_product!(zipped_divide, zipped_divide_by_mode),
        "tiled_divide" => divide_or_product!(tiled_divide, tiled_divide_by_mode),
        "flat_divide" => divide_or_product!(flat_divide, flat_divide_by_mode),
        "logical_product" => divide_or_product!(logical_product, logical_product_by_mode),
        "zipped_product" => divide_or_product!(zipped_product, zipped_product_by_mode),
        "tiled_product" => divide_or_product!(tiled_product, tiled_product_by_mode),
        "flat_product" => divide_or_product!(flat_product, flat_product_by_mode),
        "blocked_product" => {
            arity(2)?;
            layout(0)?.blocked_product(&layout(1)?)?
        }
        "raked_product" => {
            arity(2)?;
            layout(0)?.raked_product(&layout(1)?)?
        }
        _ => return Err(AlgError::Arity(forms(op).into())),
    };
    Ok(AlgValue::Layout(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(elems: Vec<Tree>) -> Tree {
        Tree::Tuple(elems)
    }
    fn k(v: i64) -> Tree {
        Tree::Leaf(Val::Known(v))
    }
    const U: Tree = Tree::Leaf(Val::Unknown);

    #[test]
    fn compact_mixed_strides_keep_known_parts() {
        // (16, ?, (2, ?)) col-major: strides 1, 16, 16*?, 32*?
        let s = t(vec![k(16), U, t(vec![k(2), U])]);
        let c = compact(&s, false).unwrap();
        let got: Vec<(i64, Vec<usize>)> = c.into_iter().map(|c| (c.known, c.factors)).collect();
        assert_eq!(
            got,
            vec![(1, vec![]), (16, vec![]), (16, vec![1]), (32, vec![1])]
        );
        let r = compact(&s, true).unwrap();
        let got: Vec<(i64, Vec<usize>)> = r.into_iter().map(|c| (c.known, c.factors)).collect();
        assert_eq!(
            got,
            vec![(2, vec![1, 3]), (2, vec![3]), (1, vec![3]), (1, vec![])]
        );
    }

    #[test]
    fn every_bad_extent_is_found() {
        let s = to_dyn(&t(vec![k(0), k(3), k(-2), U]), SHAPE_PLACEHOLDER).unwrap();
        assert_eq!(check_shape(&s), (vec![(0, 0), (2, -2)], None));
    }
}
