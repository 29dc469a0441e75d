//! The algebra on any layout value: [`Algebra`], implemented for every [`AnyLayout`] — typed
//! static and mixed [`Layout`](crate::Layout)s, [`DynLayout`], the static results of
//! [`statics`](super::statics) — so that `zipped_divide(a, tile)` needs no `.to_dyn()?` first.
//! Every method evaluates one entry of the table of operations ([`ops`](super::ops)).

use super::ops::{Arg, Op, Tiler};
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

// One trait method per table entry (two for cotargets), generated from the table
// (`ops::op_table!`); the signature follows the entry's kinds.
macro_rules! algebra_from_table {
    ($(
        $(#[$doc:meta])*
        $V:ident $name:literal ($($a:ident: $k:ident),*) $forms:ident [$($gen:tt)*] => $body:expr;
    )*) => {
        $( algebra_entry! { [$(#[$doc])*] $V [$($gen)*] } )*
    };
}

macro_rules! algebra_entry {
    ([$($doc:tt)*] $V:ident [unary $f:ident]) => {
        $($doc)*
        ///
        /// # Errors
        /// The rule the operation breaks (see the [`DynLayout`] method of the same name).
        fn $f(&self) -> Result<DynLayout, LayoutError> {
            run(Op::$V, &[Arg::Layout(self.to_dyn()?)])
        }
    };
    ([$($doc:tt)*] $V:ident [pair $f:ident]) => {
        $($doc)*
        ///
        /// # Errors
        /// The rule the operation breaks (see the [`DynLayout`] method of the same name).
        fn $f(&self, b: &impl AnyLayout) -> Result<DynLayout, LayoutError> {
            run(Op::$V, &[Arg::Layout(self.to_dyn()?), Arg::Layout(b.to_dyn()?)])
        }
    };
    ([$($doc:tt)*] $V:ident [pair_int $f:ident]) => {
        $($doc)*
        ///
        /// # Errors
        /// When a layout cannot be a run-time value.
        fn $f(&self, b: &impl AnyLayout) -> Result<i64, LayoutError> {
            super::ops::apply_int(Op::$V, &[Arg::Layout(self.to_dyn()?), Arg::Layout(b.to_dyn()?)])
        }
    };
    ([$($doc:tt)*] $V:ident [tiled $f:ident, $VB:ident $fb:ident]) => {
        $($doc)*
        ///
        /// `t` is a layout of any kind (a 1-D tiler) or a by-mode [`Tile`].
        ///
        /// # Errors
        /// The rule the operation breaks (see the [`DynLayout`] methods of the same name).
        fn $f(&self, t: impl TilerArg) -> Result<DynLayout, LayoutError> {
            run(Op::$V, &[Arg::Layout(self.to_dyn()?), t.tiler_arg()?])
        }
    };
    ([$($doc:tt)*] $V:ident [profile $f:ident]) => {
        $($doc)*
        ///
        /// # Errors
        /// The rule the operation breaks (see the [`DynLayout`] method of the same name).
        fn $f(&self, profile: &DynTuple) -> Result<DynLayout, LayoutError> {
            run(Op::$V, &[Arg::Layout(self.to_dyn()?), Arg::Shape(*profile)])
        }
    };
    ([$($doc:tt)*] $V:ident [cotarget $f:ident, $VS:ident $fs:ident]) => {
        $($doc)*
        ///
        /// This method: an integer cotarget `M`.
        ///
        /// # Errors
        /// The rule the operation breaks (see the [`DynLayout`] method of the same name).
        fn $f(&self, m: i64) -> Result<DynLayout, LayoutError> {
            run(Op::$V, &[Arg::Layout(self.to_dyn()?), Arg::Shape(DynTuple::leaf(m))])
        }
        $($doc)*
        ///
        /// This method: a shape cotarget.
        ///
        /// # Errors
        /// The rule the operation breaks (see the [`DynLayout`] method of the same name).
        fn $fs(&self, shape: &DynTuple) -> Result<DynLayout, LayoutError> {
            run(Op::$V, &[Arg::Layout(self.to_dyn()?), Arg::Shape(*shape)])
        }
    };
    ([$($doc:tt)*] $V:ident [int $f:ident]) => {
        $($doc)*
        ///
        /// # Errors
        /// The rule the operation breaks (see the [`DynLayout`] method of the same name).
        fn $f(&self, n: i64) -> Result<DynLayout, LayoutError> {
            run(Op::$V, &[Arg::Layout(self.to_dyn()?), Arg::Shape(DynTuple::leaf(n))])
        }
    };
    // operations on shapes alone, and named layouts' constructors, are not layout methods
    ([$($doc:tt)*] $V:ident [shapes $f:ident]) => {};
    ([$($doc:tt)*] $V:ident [pred $f:ident]) => {};
    ([$($doc:tt)*] $V:ident [named]) => {};
}

/// CuTe's algebra with the same names on any layout value; the results are run-time layouts
/// (`Result<DynLayout, LayoutError>`). For fully static inputs, [`statics`](super::statics) has
/// free functions of the same names whose results are zero-sized static layouts.
///
/// A [`DynLayout`]'s own divide and product methods take the same tiler argument (a
/// `&DynLayout` or a [`Tile`]); their `const fn` forms are `*_by_layout` and `*_by_mode`.
///
/// ```
/// use layout::algebra::Algebra;
/// use layout::{Int, Layout, Tile};
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
    super::ops::op_table!(algebra_from_table);
}

impl<T: AnyLayout> Algebra for T {}

macro_rules! tiled_inherent {
    ($($f:ident $one:ident $by_mode:ident;)*) => {
        impl DynLayout {
            $(
                #[doc = concat!("CuTe's `", stringify!($f), "(A, T)` with any tiler `T`: a 1-D layout (`&DynLayout`, [`DynLayout::", stringify!($one), "`]) or a by-mode [`Tile`] ([`DynLayout::", stringify!($by_mode), "`]) — the same argument as [`Algebra::", stringify!($f), "`], so the inherent method does not shadow the trait's with another argument type. The `const fn` forms are the two named ones.")]
                ///
                /// # Errors
                /// As the `const fn` form it calls.
                pub fn $f(&self, t: impl Into<Tiler>) -> Result<DynLayout, LayoutError> {
                    match t.into() {
                        Tiler::OneD(b) => self.$one(&b),
                        Tiler::ByMode(t) => self.$by_mode(&t),
                    }
                }
            )*
        }
    };
}

tiled_inherent! {
    logical_divide logical_divide_by_layout logical_divide_by_mode;
    zipped_divide zipped_divide_by_layout zipped_divide_by_mode;
    tiled_divide tiled_divide_by_layout tiled_divide_by_mode;
    flat_divide flat_divide_by_layout flat_divide_by_mode;
    logical_product logical_product_by_layout logical_product_by_mode;
    zipped_product zipped_product_by_layout zipped_product_by_mode;
    tiled_product tiled_product_by_layout tiled_product_by_mode;
    flat_product flat_product_by_layout flat_product_by_mode;
}
