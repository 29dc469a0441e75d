//! The algebra on any layout value: [`Algebra`], implemented for every [`AnyLayout`] — typed
//! static and mixed [`Layout`](crate::Layout)s, [`DynLayout`], the static results of
//! [`statics`](super::statics) — so that `zipped_divide(a, tile)` needs no `.to_dyn()?` first.
//! Every method evaluates one entry of the table of operations ([`ops`](super::ops)).

use super::ops::{Arg, Op};
use crate::{AnyLayout, DynLayout, DynTuple, LayoutError, Tile};

/// A tiler argument: a layout of any kind (a 1-D tiler) or a by-mode [`Tile`].
pub trait TilerArg {
    /// The argument for the table.
    ///
    /// # Errors
    /// When a typed layout cannot be a run-time value (capacity of [`DynLayout`]).
    fn tiler_arg(&self) -> Result<Arg, LayoutError>;
}

impl<T: AnyLayout> TilerArg for T {
    fn tiler_arg(&self) -> Result<Arg, LayoutError> {
        Ok(Arg::Layout(self.to_dyn()?))
    }
}

impl TilerArg for Tile {
    fn tiler_arg(&self) -> Result<Arg, LayoutError> {
        Ok(Arg::Tile(*self))
    }
}

impl TilerArg for &Tile {
    fn tiler_arg(&self) -> Result<Arg, LayoutError> {
        Ok(Arg::Tile(**self))
    }
}

/// Evaluate a table entry; the typed signatures below pass only arguments of the kinds the entry
/// takes, so the only errors are the rules the operation breaks.
fn run(op: Op, args: &[Arg]) -> Result<DynLayout, LayoutError> {
    super::ops::apply_layout(op, args)
}

macro_rules! unary {
    ($($(#[$doc:meta])* $f:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// # Errors
        /// The rule the operation breaks (see the [`DynLayout`] method of the same name).
        fn $f(&self) -> Result<DynLayout, LayoutError> {
            run(Op::$op, &[Arg::Layout(self.to_dyn()?)])
        }
    )*};
}

macro_rules! tiled {
    ($($(#[$doc:meta])* $f:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        /// `t` is a layout of any kind (a 1-D tiler) or a by-mode [`Tile`].
        ///
        /// # Errors
        /// The rule the operation breaks (see the [`DynLayout`] methods of the same name).
        fn $f(&self, t: impl TilerArg) -> Result<DynLayout, LayoutError> {
            run(Op::$op, &[Arg::Layout(self.to_dyn()?), t.tiler_arg()?])
        }
    )*};
}

macro_rules! pair {
    ($($(#[$doc:meta])* $f:ident => $op:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// # Errors
        /// The rule the operation breaks (see the [`DynLayout`] method of the same name).
        fn $f(&self, b: &impl AnyLayout) -> Result<DynLayout, LayoutError> {
            run(Op::$op, &[Arg::Layout(self.to_dyn()?), Arg::Layout(b.to_dyn()?)])
        }
    )*};
}

/// CuTe's algebra with the same names on any layout value; the results are run-time layouts
/// (`Result<DynLayout, LayoutError>`). For fully static inputs, [`statics`](super::statics) has
/// free functions of the same names whose results are zero-sized static layouts.
///
/// A [`DynLayout`]'s own methods of the same names take precedence in method syntax (they take
/// `&DynLayout` / `&Tile` and are `const fn`s); call `Algebra::zipped_divide(&l, t)` to pass it
/// any tiler.
///
/// ```
/// use layout_core::algebra::Algebra;
/// use layout_core::{Int, Layout, Tile};
/// let n = 32i64;
/// let a = Layout::new((Int::<12>, n), (Int::<1>, Int::<12>)); // typed, mixed
/// let t: Tile = "[4,8]".parse().unwrap();
/// let z = a.zipped_divide(t).unwrap();
/// assert_eq!(z.to_string(), "((4,8),(3,4)):((1,12),(4,96))");
/// // a typed 1-D tiler, and a static layout
/// let b = Layout::new((Int::<4>, Int::<8>), (Int::<1>, Int::<4>));
/// assert_eq!(a.zipped_divide(b).unwrap().to_string(), "((4,8),12):((1,4),32)");
/// assert_eq!(b.coalesce().unwrap().to_string(), "32:1");
/// assert_eq!(b.complement(64).unwrap().to_string(), "2:32");
/// ```
pub trait Algebra: AnyLayout {
    unary! {
        /// CuTe's `coalesce(L)`.
        coalesce => Coalesce;
        /// CuTe's `filter_zeros(L)`.
        filter_zeros => FilterZeros;
        /// CuTe's `filter(L)`.
        filter => Filter;
        /// CuTe's `complement(L)` with respect to its cosize.
        complement_cosize => ComplementCosize;
        /// CuTe's `right_inverse(L)`.
        right_inverse => RightInverse;
        /// CuTe's `left_inverse(L)`.
        left_inverse => LeftInverse;
        /// CuTe's `nullspace(L)`.
        nullspace => Nullspace;
    }
    tiled! {
        /// CuTe's `composition(A, B)`.
        composition => Composition;
        /// CuTe's `logical_divide(A, T)`.
        logical_divide => LogicalDivide;
        /// CuTe's `zipped_divide(A, T)`.
        zipped_divide => ZippedDivide;
        /// CuTe's `tiled_divide(A, T)`.
        tiled_divide => TiledDivide;
        /// CuTe's `flat_divide(A, T)`.
        flat_divide => FlatDivide;
        /// CuTe's `logical_product(A, T)`.
        logical_product => LogicalProduct;
        /// CuTe's `zipped_product(A, T)`.
        zipped_product => ZippedProduct;
        /// CuTe's `tiled_product(A, T)`.
        tiled_product => TiledProduct;
        /// CuTe's `flat_product(A, T)`.
        flat_product => FlatProduct;
    }
    pair! {
        /// CuTe's `blocked_product(A, B)`.
        blocked_product => BlockedProduct;
        /// CuTe's `raked_product(A, B)`.
        raked_product => RakedProduct;
        /// CuTe's `max_common_layout(A, B)`.
        max_common_layout => MaxCommonLayout;
    }

    /// CuTe's `coalesce(L, profile)`.
    ///
    /// # Errors
    /// As [`DynLayout::coalesce_by_mode`].
    fn coalesce_by_mode(&self, profile: &DynTuple) -> Result<DynLayout, LayoutError> {
        run(
            Op::CoalesceByMode,
            &[Arg::Layout(self.to_dyn()?), Arg::Shape(*profile)],
        )
    }

    /// CuTe's `complement(L, M)`.
    ///
    /// # Errors
    /// As [`DynLayout::complement`].
    fn complement(&self, m: i64) -> Result<DynLayout, LayoutError> {
        run(
            Op::Complement,
            &[Arg::Layout(self.to_dyn()?), Arg::Shape(DynTuple::leaf(m))],
        )
    }

    /// CuTe's `complement(L, shape)`.
    ///
    /// # Errors
    /// As [`DynLayout::complement_shape`].
    fn complement_shape(&self, shape: &DynTuple) -> Result<DynLayout, LayoutError> {
        run(
            Op::Complement,
            &[Arg::Layout(self.to_dyn()?), Arg::Shape(*shape)],
        )
    }

    /// CuTe's `upcast<N>(L)`.
    ///
    /// # Errors
    /// As [`DynLayout::upcast`].
    fn upcast(&self, n: i64) -> Result<DynLayout, LayoutError> {
        run(
            Op::Upcast,
            &[Arg::Layout(self.to_dyn()?), Arg::Shape(DynTuple::leaf(n))],
        )
    }

    /// CuTe's `downcast<N>(L)`.
    ///
    /// # Errors
    /// As [`DynLayout::downcast`].
    fn downcast(&self, n: i64) -> Result<DynLayout, LayoutError> {
        run(
            Op::Downcast,
            &[Arg::Layout(self.to_dyn()?), Arg::Shape(DynTuple::leaf(n))],
        )
    }

    /// CuTe's `max_common_vector(A, B)`.
    ///
    /// # Errors
    /// When a layout cannot be a run-time value.
    fn max_common_vector(&self, b: &impl AnyLayout) -> Result<i64, LayoutError> {
        super::ops::apply_int(
            Op::MaxCommonVector,
            &[Arg::Layout(self.to_dyn()?), Arg::Layout(b.to_dyn()?)],
        )
    }
}

impl<T: AnyLayout> Algebra for T {}
