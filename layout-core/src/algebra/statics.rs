//! The static layer: zero-sized algebra results over static layouts.
//!
//! Each type here (`Composition<A, B>`, `Complement<L, M>`, `LogicalDivide<A, B>`, …) is a
//! zero-sized [`StaticLayout`] whose [`StaticLayout::LAYOUT`] is computed, at compile time, by
//! the very `const fn` method of [`DynLayout`] that run-time code calls — one implementation, so
//! static and dynamic inputs give the same result by construction. A failing operation is a
//! compile-time panic whose message names the rule (e.g. `composition is not admissible: stride
//! divisibility`); it fires when the type's layout is used (monomorphisation), so it shows under
//! `cargo build`, not `cargo check` — the `layout!` macro evaluates the same functions at
//! expansion time to report errors on literal inputs early.
//!
//! The [`offset`](Composition::offset) of a result reads the const, so the whole offset function
//! is constant-folded: `Composition::<A, B>::default().offset(i)` compiles to the same code as
//! the offset of the literal result layout (checked in the release assembly for
//! `(6,2):(8,2) ∘ (4,3):(3,1)`: no memory loads, divisions strength-reduced to shifts and masks,
//! and `offset(5)` becomes the immediate `32`).
//!
//! Inputs: any [`StaticLayout`] (a fully static [`Layout`](crate::Layout), or another result
//! here). 1-D tilers are static layouts; by-mode tilers are tuples of [`StaticTileMode`]s
//! (a static layout, [`Int<N>`] meaning `N:1`, or [`Underscore`]) implementing [`StaticTile`];
//! integer cotargets and cast factors are const generics; shape cotargets are static
//! [`IntTuple`]s. Mixed static/dynamic layouts are not static: the
//! [`Algebra`](super::Algebra) trait gives the same operations on them, as run-time values.
//! Every `LAYOUT` here is computed by an entry of the table of operations ([`ops`](super::ops)).
//!
//! ```
//! use layout_core::algebra::statics::{self, Composition};
//! use layout_core::{DynLayout, Int, Layout, StaticLayout};
//! type A = Layout<(Int<6>, Int<2>), (Int<8>, Int<2>)>;
//! type B = Layout<(Int<4>, Int<3>), (Int<3>, Int<1>)>;
//! let r = statics::composition(A::default(), B::default());
//! assert_eq!(core::mem::size_of_val(&r), 0);
//! assert_eq!(r.to_string(), "((_2,_2),_3):((_24,_2),_8)");
//! assert_eq!(r.offset(5), 24 + 8 * 1);
//! let a: DynLayout = "(6,2):(8,2)".parse().unwrap();
//! let b: DynLayout = "(4,3):(3,1)".parse().unwrap();
//! assert_eq!(Composition::<A, B>::LAYOUT, a.composition(&b).unwrap());
//! ```

use super::ops::{Arg, Op};
use crate::tuple::write_profiled;
use crate::{AnyLayout, DynLayout, DynTuple, Int, IntTuple, LayoutError, StaticLayout};
use crate::{Tile, TileMode};
use core::fmt;
use core::marker::PhantomData;

/// Evaluate a table entry ([`ops`](super::ops)) in a const: the static types read the same table
/// as the macro and the calculator.
const fn table(op: Op, args: &[Arg]) -> Result<DynLayout, LayoutError> {
    super::ops::apply_layout(op, args)
}

/// Unwrap an algebra result in a const, or fail compilation with the rule's name.
const fn ok(r: Result<DynLayout, LayoutError>) -> DynLayout {
    match r {
        Ok(l) => l,
        Err(e) => panic!("{}", e.rule()),
    }
}

const fn static_tuple<S: IntTuple>() -> DynTuple {
    match S::STATIC {
        Some(t) => t,
        None => panic!("this shape has dynamic parts; a static cotarget or tiler must be static"),
    }
}

/// Print a layout as CuTe prints a static one: every leaf `_N`.
fn write_static(f: &mut fmt::Formatter<'_>, l: &DynLayout) -> fmt::Result {
    let mut leaf = |f: &mut fmt::Formatter<'_>, _: usize, v: i64| write!(f, "_{v}");
    write_profiled(f, l.profile(), l.shape_leaves(), &mut leaf)?;
    f.write_str(":")?;
    write_profiled(f, l.profile(), l.stride_leaves(), &mut leaf)
}

/// `_` in a static by-mode tiler: keep this mode.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq, Hash)]
pub struct Underscore;

/// An element of a static by-mode tiler.
pub trait StaticTileMode: Copy + Default + 'static {
    /// Its value.
    const MODE: TileMode;
}

impl<L: StaticLayout> StaticTileMode for L {
    const MODE: TileMode = TileMode::Layout(L::LAYOUT);
}

impl<const N: i64> StaticTileMode for Int<N> {
    const MODE: TileMode = match TileMode::int(N) {
        Ok(m) => m,
        Err(_) => panic!("a tile extent must be positive"),
    };
}

impl StaticTileMode for Underscore {
    const MODE: TileMode = TileMode::Keep;
}

/// A static by-mode tiler: a tuple `(T0, T1, …)` (arity 1 to 4) of [`StaticTileMode`]s.
///
/// ```
/// use layout_core::algebra::statics::{StaticTile, Underscore};
/// use layout_core::Int;
/// assert_eq!(<(Int<4>, Underscore)>::TILE.to_string(), "[4:1,_]");
/// ```
pub trait StaticTile: Copy + Default + 'static {
    /// Its value.
    const TILE: Tile;
}

macro_rules! static_tile {
    ($($T:ident),+) => {
        impl<$($T: StaticTileMode),+> StaticTile for ($($T,)+) {
            const TILE: Tile = match Tile::new(&[$($T::MODE),+]) {
                Ok(t) => t,
                Err(_) => panic!("too many tiler modes"),
            };
        }
    };
}
static_tile!(T0);
static_tile!(T0, T1);
static_tile!(T0, T1, T2);
static_tile!(T0, T1, T2, T3);

macro_rules! zst {
    (
        $(#[$doc:meta])*
        $name:ident [$($gen:tt)*] [$($args:tt)*] ($($ph:ty),*) => $val:expr
    ) => {
        $(#[$doc])*
        pub struct $name<$($gen)*>(PhantomData<fn() -> ($($ph,)*)>);

        impl<$($gen)*> Clone for $name<$($args)*> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($gen)*> Copy for $name<$($args)*> {}
        impl<$($gen)*> Default for $name<$($args)*> {
            fn default() -> Self {
                $name(PhantomData)
            }
        }
        impl<$($gen)*> StaticLayout for $name<$($args)*> {
            const LAYOUT: DynLayout = ok($val);
        }
        impl<$($gen)*> $name<$($args)*> {
            /// The offset of 1-D index `i`, read from the compile-time value (fully
            /// constant-folded).
            #[inline(always)]
            pub fn offset(&self, i: i64) -> i64 {
                <Self as StaticLayout>::LAYOUT.offset(i)
            }
            /// The size of the domain (a constant).
            #[inline(always)]
            pub const fn size(&self) -> i64 {
                <Self as StaticLayout>::LAYOUT.size()
            }
            /// The run-time value.
            #[inline(always)]
            pub const fn to_dyn(&self) -> DynLayout {
                <Self as StaticLayout>::LAYOUT
            }
        }
        impl<$($gen)*> fmt::Display for $name<$($args)*> {
            /// CuTe's text for a static layout: `(_2,_3):(_1,_2)`.
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write_static(f, &<Self as StaticLayout>::LAYOUT)
            }
        }
        impl<$($gen)*> fmt::Debug for $name<$($args)*> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
        // SAFETY: affine: every method reads the one compile-time `LAYOUT`.
        unsafe impl<$($gen)*> AnyLayout for $name<$($args)*> {
            const STATIC_LAYOUT: Option<DynLayout> = Some(<Self as StaticLayout>::LAYOUT);
            fn domain(&self) -> DynTuple {
                <Self as StaticLayout>::LAYOUT.shape()
            }
            #[inline(always)]
            fn size(&self) -> i64 {
                <Self as StaticLayout>::LAYOUT.size()
            }
            #[inline(always)]
            fn offset(&self, i: i64) -> i64 {
                <Self as StaticLayout>::LAYOUT.offset(i)
            }
            fn to_dyn(&self) -> Result<DynLayout, LayoutError> {
                Ok(<Self as StaticLayout>::LAYOUT)
            }
        }
    };
}

zst! {
    /// `coalesce(L)` ([`DynLayout::coalesce`]).
    Coalesce [L: StaticLayout] [L] (L) => table(Op::Coalesce, &[Arg::Layout(L::LAYOUT)])
}
zst! {
    /// `coalesce(L, P)` by mode with the static profile `P` ([`DynLayout::coalesce_by_mode`]).
    CoalesceByMode [L: StaticLayout, P: IntTuple] [L, P] (L, P) =>
        table(Op::CoalesceByMode, &[Arg::Layout(L::LAYOUT), Arg::Shape(static_tuple::<P>())])
}
zst! {
    /// `filter_zeros(L)` ([`DynLayout::filter_zeros`]).
    FilterZeros [L: StaticLayout] [L] (L) => table(Op::FilterZeros, &[Arg::Layout(L::LAYOUT)])
}
zst! {
    /// `filter(L)` ([`DynLayout::filter`]).
    Filter [L: StaticLayout] [L] (L) => table(Op::Filter, &[Arg::Layout(L::LAYOUT)])
}
zst! {
    /// `composition(A, B)` with a 1-D layout `B` ([`DynLayout::composition`]).
    Composition [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::Composition, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `composition(A, T)` with a by-mode tiler ([`DynLayout::composition_by_mode`]).
    CompositionByMode [A: StaticLayout, T: StaticTile] [A, T] (A, T) =>
        table(Op::Composition, &[Arg::Layout(A::LAYOUT), Arg::Tile(T::TILE)])
}
zst! {
    /// `composition(A, S)` with a static integer or shape ([`DynLayout::composition_shape`]).
    CompositionShape [A: StaticLayout, S: IntTuple] [A, S] (A, S) =>
        A::LAYOUT.composition_shape(&static_tuple::<S>())
}
zst! {
    /// `complement(L, M)` ([`DynLayout::complement`]).
    Complement [L: StaticLayout, const M: i64] [L, M] (L) => table(Op::Complement, &[Arg::Layout(L::LAYOUT), Arg::Shape(DynTuple::leaf(M))])
}
zst! {
    /// `complement(L, S)` with a static shape cotarget ([`DynLayout::complement_shape`]).
    ComplementShape [L: StaticLayout, S: IntTuple] [L, S] (L, S) =>
        table(Op::Complement, &[Arg::Layout(L::LAYOUT), Arg::Shape(static_tuple::<S>())])
}
zst! {
    /// `complement(L)` ([`DynLayout::complement_cosize`]).
    ComplementCosize [L: StaticLayout] [L] (L) => table(Op::ComplementCosize, &[Arg::Layout(L::LAYOUT)])
}
zst! {
    /// `right_inverse(L)` ([`DynLayout::right_inverse`]).
    RightInverse [L: StaticLayout] [L] (L) => table(Op::RightInverse, &[Arg::Layout(L::LAYOUT)])
}
zst! {
    /// `left_inverse(L)` ([`DynLayout::left_inverse`]).
    LeftInverse [L: StaticLayout] [L] (L) => table(Op::LeftInverse, &[Arg::Layout(L::LAYOUT)])
}
zst! {
    /// `logical_divide(A, B)`, 1-D tiler ([`DynLayout::logical_divide`]).
    LogicalDivide [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::LogicalDivide, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `logical_divide(A, T)`, by-mode tiler ([`DynLayout::logical_divide_by_mode`]).
    LogicalDivideByMode [A: StaticLayout, T: StaticTile] [A, T] (A, T) =>
        table(Op::LogicalDivide, &[Arg::Layout(A::LAYOUT), Arg::Tile(T::TILE)])
}
zst! {
    /// `zipped_divide(A, B)`, 1-D tiler ([`DynLayout::zipped_divide`]).
    ZippedDivide [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::ZippedDivide, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `zipped_divide(A, T)`, by-mode tiler ([`DynLayout::zipped_divide_by_mode`]).
    ZippedDivideByMode [A: StaticLayout, T: StaticTile] [A, T] (A, T) =>
        table(Op::ZippedDivide, &[Arg::Layout(A::LAYOUT), Arg::Tile(T::TILE)])
}
zst! {
    /// `tiled_divide(A, B)`, 1-D tiler ([`DynLayout::tiled_divide`]).
    TiledDivide [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::TiledDivide, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `tiled_divide(A, T)`, by-mode tiler ([`DynLayout::tiled_divide_by_mode`]).
    TiledDivideByMode [A: StaticLayout, T: StaticTile] [A, T] (A, T) =>
        table(Op::TiledDivide, &[Arg::Layout(A::LAYOUT), Arg::Tile(T::TILE)])
}
zst! {
    /// `flat_divide(A, B)`, 1-D tiler ([`DynLayout::flat_divide`]).
    FlatDivide [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::FlatDivide, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `flat_divide(A, T)`, by-mode tiler ([`DynLayout::flat_divide_by_mode`]).
    FlatDivideByMode [A: StaticLayout, T: StaticTile] [A, T] (A, T) =>
        table(Op::FlatDivide, &[Arg::Layout(A::LAYOUT), Arg::Tile(T::TILE)])
}
zst! {
    /// `logical_product(A, B)`, 1-D tiler ([`DynLayout::logical_product`]).
    LogicalProduct [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::LogicalProduct, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `logical_product(A, T)`, by-mode tiler ([`DynLayout::logical_product_by_mode`]).
    LogicalProductByMode [A: StaticLayout, T: StaticTile] [A, T] (A, T) =>
        table(Op::LogicalProduct, &[Arg::Layout(A::LAYOUT), Arg::Tile(T::TILE)])
}
zst! {
    /// `zipped_product(A, B)`, 1-D tiler ([`DynLayout::zipped_product`]).
    ZippedProduct [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::ZippedProduct, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `zipped_product(A, T)`, by-mode tiler ([`DynLayout::zipped_product_by_mode`]).
    ZippedProductByMode [A: StaticLayout, T: StaticTile] [A, T] (A, T) =>
        table(Op::ZippedProduct, &[Arg::Layout(A::LAYOUT), Arg::Tile(T::TILE)])
}
zst! {
    /// `tiled_product(A, B)`, 1-D tiler ([`DynLayout::tiled_product`]).
    TiledProduct [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::TiledProduct, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `tiled_product(A, T)`, by-mode tiler ([`DynLayout::tiled_product_by_mode`]).
    TiledProductByMode [A: StaticLayout, T: StaticTile] [A, T] (A, T) =>
        table(Op::TiledProduct, &[Arg::Layout(A::LAYOUT), Arg::Tile(T::TILE)])
}
zst! {
    /// `flat_product(A, B)`, 1-D tiler ([`DynLayout::flat_product`]).
    FlatProduct [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::FlatProduct, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `flat_product(A, T)`, by-mode tiler ([`DynLayout::flat_product_by_mode`]).
    FlatProductByMode [A: StaticLayout, T: StaticTile] [A, T] (A, T) =>
        table(Op::FlatProduct, &[Arg::Layout(A::LAYOUT), Arg::Tile(T::TILE)])
}
zst! {
    /// `blocked_product(A, B)` ([`DynLayout::blocked_product`]).
    BlockedProduct [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::BlockedProduct, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `raked_product(A, B)` ([`DynLayout::raked_product`]).
    RakedProduct [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::RakedProduct, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `max_common_layout(A, B)` ([`DynLayout::max_common_layout`]).
    MaxCommonLayout [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
        table(Op::MaxCommonLayout, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
}
zst! {
    /// `nullspace(L)` ([`DynLayout::nullspace`]).
    Nullspace [L: StaticLayout] [L] (L) => table(Op::Nullspace, &[Arg::Layout(L::LAYOUT)])
}
zst! {
    /// `upcast<N>(L)` ([`DynLayout::upcast`]).
    Upcast [L: StaticLayout, const N: i64] [L, N] (L) => table(Op::Upcast, &[Arg::Layout(L::LAYOUT), Arg::Shape(DynTuple::leaf(N))])
}
zst! {
    /// `downcast<N>(L)` ([`DynLayout::downcast`]).
    Downcast [L: StaticLayout, const N: i64] [L, N] (L) => table(Op::Downcast, &[Arg::Layout(L::LAYOUT), Arg::Shape(DynTuple::leaf(N))])
}
zst! {
    /// `recast_layout` from `OLD`-bit to `NEW`-bit elements ([`DynLayout::recast_layout`]).
    RecastLayout [L: StaticLayout, const OLD: i64, const NEW: i64] [L, OLD, NEW] (L) =>
        L::LAYOUT.recast_layout(OLD, NEW)
}

/// Force the evaluation of `R::LAYOUT` (so a failing operation is reported here) and return `R`.
#[inline(always)]
fn make<R: StaticLayout>() -> R {
    let _ = R::LAYOUT;
    R::default()
}

macro_rules! entry {
    ($(#[$doc:meta])* $f:ident<$($p:ident: $b:ident),*>($($a:ident),*) -> $R:ident) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $f<$($p: $b),*>($($a: $p),*) -> $R<$($p),*> {
            $(let _ = $a;)*
            make()
        }
    };
}

entry!(
    /// `coalesce(L)` of a static layout, as a zero-sized static layout.
    coalesce<L: StaticLayout>(l) -> Coalesce
);
entry!(
    /// `filter(L)` of a static layout.
    filter<L: StaticLayout>(l) -> Filter
);
entry!(
    /// `composition(A, B)` of static layouts (1-D).
    ///
    /// ```
    /// use layout_core::algebra::statics;
    /// use layout_core::{Int, Layout};
    /// let a = Layout::new((Int::<10>, Int::<2>), (Int::<16>, Int::<4>));
    /// let b = Layout::new((Int::<5>, Int::<4>), (Int::<1>, Int::<5>));
    /// assert_eq!(statics::composition(a, b).to_string(), "(_5,(_2,_2)):(_16,(_80,_4))");
    /// ```
    composition<A: StaticLayout, B: StaticLayout>(a, b) -> Composition
);
entry!(
    /// `composition(A, T)` with a static by-mode tiler.
    composition_by_mode<A: StaticLayout, T: StaticTile>(a, t) -> CompositionByMode
);
entry!(
    /// `complement(L)` w.r.t. `cosize(filter(L))`.
    complement_cosize<L: StaticLayout>(l) -> ComplementCosize
);
entry!(
    /// `right_inverse(L)`.
    right_inverse<L: StaticLayout>(l) -> RightInverse
);
entry!(
    /// `left_inverse(L)`.
    left_inverse<L: StaticLayout>(l) -> LeftInverse
);
entry!(
    /// `logical_divide(A, B)`, 1-D tiler.
    logical_divide<A: StaticLayout, B: StaticLayout>(a, b) -> LogicalDivide
);
entry!(
    /// `logical_divide(A, T)`, by-mode tiler.
    ///
    /// ```
    /// use layout_core::algebra::statics::{self, Underscore};
    /// use layout_core::{Int, Layout};
    /// let a = Layout::new((Int::<12>, Int::<32>), (Int::<1>, Int::<12>));
    /// let r = statics::logical_divide_by_mode(a, (Int::<4>, Underscore));
    /// assert_eq!(r.to_string(), "((_4,_3),_32):((_1,_4),_12)");
    /// ```
    logical_divide_by_mode<A: StaticLayout, T: StaticTile>(a, t) -> LogicalDivideByMode
);
entry!(
    /// `zipped_divide(A, T)`, by-mode tiler.
    zipped_divide_by_mode<A: StaticLayout, T: StaticTile>(a, t) -> ZippedDivideByMode
);
entry!(
    /// `tiled_divide(A, T)`, by-mode tiler.
    tiled_divide_by_mode<A: StaticLayout, T: StaticTile>(a, t) -> TiledDivideByMode
);
entry!(
    /// `flat_divide(A, T)`, by-mode tiler.
    flat_divide_by_mode<A: StaticLayout, T: StaticTile>(a, t) -> FlatDivideByMode
);
entry!(
    /// `logical_product(A, B)`, 1-D tiler.
    logical_product<A: StaticLayout, B: StaticLayout>(a, b) -> LogicalProduct
);
entry!(
    /// `blocked_product(A, B)`.
    blocked_product<A: StaticLayout, B: StaticLayout>(a, b) -> BlockedProduct
);
entry!(
    /// `raked_product(A, B)`.
    raked_product<A: StaticLayout, B: StaticLayout>(a, b) -> RakedProduct
);
entry!(
    /// `max_common_layout(A, B)`.
    max_common_layout<A: StaticLayout, B: StaticLayout>(a, b) -> MaxCommonLayout
);
entry!(
    /// `nullspace(L)`.
    nullspace<L: StaticLayout>(l) -> Nullspace
);

entry!(
    /// `filter_zeros(L)`.
    filter_zeros<L: StaticLayout>(l) -> FilterZeros
);
entry!(
    /// `coalesce(L, P)` by mode, with a static profile value `P` (only its nesting matters).
    coalesce_by_mode<L: StaticLayout, P: IntTuple>(l, p) -> CoalesceByMode
);
entry!(
    /// `composition(A, S)` with a static integer or flat shape `S` (`(M,N)` = `[M:1,N:1]`).
    composition_shape<A: StaticLayout, S: IntTuple>(a, s) -> CompositionShape
);
entry!(
    /// `complement(L, S)` with a static shape cotarget.
    complement_shape<L: StaticLayout, S: IntTuple>(l, s) -> ComplementShape
);
entry!(
    /// `zipped_divide(A, B)`, 1-D tiler.
    zipped_divide<A: StaticLayout, B: StaticLayout>(a, b) -> ZippedDivide
);
entry!(
    /// `tiled_divide(A, B)`, 1-D tiler.
    tiled_divide<A: StaticLayout, B: StaticLayout>(a, b) -> TiledDivide
);
entry!(
    /// `flat_divide(A, B)`, 1-D tiler.
    flat_divide<A: StaticLayout, B: StaticLayout>(a, b) -> FlatDivide
);
entry!(
    /// `logical_product(A, T)`, by-mode tiler.
    logical_product_by_mode<A: StaticLayout, T: StaticTile>(a, t) -> LogicalProductByMode
);
entry!(
    /// `zipped_product(A, B)`, 1-D tiler.
    zipped_product<A: StaticLayout, B: StaticLayout>(a, b) -> ZippedProduct
);
entry!(
    /// `zipped_product(A, T)`, by-mode tiler.
    zipped_product_by_mode<A: StaticLayout, T: StaticTile>(a, t) -> ZippedProductByMode
);
entry!(
    /// `tiled_product(A, B)`, 1-D tiler.
    tiled_product<A: StaticLayout, B: StaticLayout>(a, b) -> TiledProduct
);
entry!(
    /// `tiled_product(A, T)`, by-mode tiler.
    tiled_product_by_mode<A: StaticLayout, T: StaticTile>(a, t) -> TiledProductByMode
);
entry!(
    /// `flat_product(A, B)`, 1-D tiler.
    flat_product<A: StaticLayout, B: StaticLayout>(a, b) -> FlatProduct
);
entry!(
    /// `flat_product(A, T)`, by-mode tiler.
    flat_product_by_mode<A: StaticLayout, T: StaticTile>(a, t) -> FlatProductByMode
);

/// `recast_layout` from `OLD`-bit to `NEW`-bit elements:
/// `statics::recast_layout::<_, 16, 32>(l)`.
#[inline(always)]
pub fn recast_layout<L: StaticLayout, const OLD: i64, const NEW: i64>(
    l: L,
) -> RecastLayout<L, OLD, NEW> {
    let _ = l;
    make()
}

/// `complement(L, M)` with a const-generic integer cotarget:
/// `statics::complement::<_, 24>(l)`.
///
/// ```
/// use layout_core::algebra::statics;
/// use layout_core::{Int, Layout};
/// let l = Layout::new(Int::<4>, Int::<2>);
/// assert_eq!(statics::complement::<_, 24>(l).to_string(), "(_2,_3):(_1,_8)");
/// ```
#[inline(always)]
pub fn complement<L: StaticLayout, const M: i64>(l: L) -> Complement<L, M> {
    let _ = l;
    make()
}

/// `upcast<N>(L)`: `statics::upcast::<_, 2>(l)`.
#[inline(always)]
pub fn upcast<L: StaticLayout, const N: i64>(l: L) -> Upcast<L, N> {
    let _ = l;
    make()
}

/// `downcast<N>(L)`: `statics::downcast::<_, 2>(l)`.
#[inline(always)]
pub fn downcast<L: StaticLayout, const N: i64>(l: L) -> Downcast<L, N> {
    let _ = l;
    make()
}

/// `max_common_vector(A, B)` of static layouts: a zero-sized static integer
/// ([`DynLayout::max_common_vector`], evaluated through the table of operations).
///
/// ```
/// use layout_core::algebra::statics::{self, MaxCommonVector};
/// use layout_core::{Int, Layout};
/// let a = Layout::new((Int::<4>, Int::<8>), (Int::<1>, Int::<4>));
/// let b = Layout::new((Int::<4>, Int::<8>), (Int::<1>, Int::<8>));
/// assert_eq!(statics::max_common_vector(a, b).get(), 4);
/// assert_eq!(MaxCommonVector::<Layout<(Int<4>, Int<8>), (Int<1>, Int<4>)>, Layout<(Int<4>, Int<8>), (Int<1>, Int<8>)>>::VALUE, 4);
/// ```
pub struct MaxCommonVector<A, B>(PhantomData<(A, B)>);

impl<A: StaticLayout, B: StaticLayout> MaxCommonVector<A, B> {
    /// The value, computed at compile time.
    pub const VALUE: i64 = match super::ops::apply_int(
        Op::MaxCommonVector,
        &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)],
    ) {
        Ok(v) => v,
        Err(e) => panic!("{}", e.rule()),
    };

    /// The value.
    #[inline(always)]
    pub const fn get(&self) -> i64 {
        Self::VALUE
    }
}

impl<A, B> Clone for MaxCommonVector<A, B> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A, B> Copy for MaxCommonVector<A, B> {}
impl<A, B> fmt::Debug for MaxCommonVector<A, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("MaxCommonVector")
    }
}

/// `max_common_vector(A, B)` of static layouts.
#[inline(always)]
pub fn max_common_vector<A: StaticLayout, B: StaticLayout>(a: A, b: B) -> MaxCommonVector<A, B> {
    let _ = (a, b);
    let _ = MaxCommonVector::<A, B>::VALUE;
    MaxCommonVector(PhantomData)
}
