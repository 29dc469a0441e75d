//! Stage 3: plain arithmetic on the parts of a layout the macro can see, with no syn types.
//!
//! Everything here calls layout-core's `const fn`s on [`DynTuple`] and [`DynLayout`]: the
//! macro's checks are the same code that validates run-time layouts and computes the associated
//! consts of static ones. Leaves the macro cannot see (dynamic expressions, const generics) are
//! replaced by neutral placeholders — extent 1, stride 0 — which contribute nothing to size and
//! cosize, so a check on the placeholder layout is exactly a check of the static part.

use layout_core::{DynLayout, DynTuple, LayoutError};

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

use layout_core::algebra::ops::Op;
pub use layout_core::algebra::ops::{Arg as AlgArg, OpError as AlgError, Value as AlgValue};

/// The forms the operation `op` accepts, for messages (from the table).
pub fn forms(op: &str) -> &'static str {
    Op::ALL
        .iter()
        .find(|o| o.name() == op)
        .map_or("op(L) with one layout", |o| o.forms())
}

/// Evaluate a CuTe algebra operation through layout-core's table of operations — the same
/// entry, argument rules and `const fn` the static result types, the calculator and run-time
/// layouts use.
///
/// # Errors
/// [`AlgError::Refused`] with the rule broken; [`AlgError::Argument`] /
/// [`AlgError::BareShapeTiler`] / [`AlgError::Arity`] when the arguments do not fit the
/// operation.
pub fn apply(op: &str, args: &[AlgArg]) -> Result<AlgValue, AlgError> {
    Op::lookup(op, args.len())?.apply(args)
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
