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
//! use layout::algebra::statics::{self, Composition};
//! use layout::{DynLayout, Int, Layout, StaticLayout};
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
//!
//! Every entry of the table of operations gets its type(s) and entry function(s) here, generated
//! from the table: a tiler entry has one type for a 1-D tiler and one for a by-mode tiler
//! (`LogicalDivide` / `LogicalDivideByMode`), a cotarget entry one for an integer and one for a
//! shape (`Complement<L, M>` / `ComplementShape<L, S>`), an integer argument is a const generic:
//!
//! ```
//! use layout::algebra::statics::{self, MaxCommonVector, Underscore};
//! use layout::{Int, Layout};
//! let a = Layout::new((Int::<12>, Int::<32>), (Int::<1>, Int::<12>));
//! let r = statics::logical_divide_by_mode(a, (Int::<4>, Underscore));
//! assert_eq!(r.to_string(), "((_4,_3),_32):((_1,_4),_12)");
//! let l = Layout::new(Int::<4>, Int::<2>);
//! assert_eq!(statics::complement::<_, 24>(l).to_string(), "(_2,_3):(_1,_8)");
//! assert_eq!(statics::downcast::<_, 2>(l).to_string(), "_4:_4");
//! let x = Layout::new((Int::<4>, Int::<8>), (Int::<1>, Int::<4>));
//! let y = Layout::new((Int::<4>, Int::<8>), (Int::<1>, Int::<8>));
//! assert_eq!(statics::max_common_vector(x, y).get(), 4);
//! type X = Layout<(Int<4>, Int<8>), (Int<1>, Int<4>)>;
//! type Y = Layout<(Int<4>, Int<8>), (Int<1>, Int<8>)>;
//! assert_eq!(MaxCommonVector::<X, Y>::VALUE, 4);
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
/// use layout::algebra::statics::{StaticTile, Underscore};
/// use layout::Int;
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
    /// `composition(A, S)` with a static integer or shape ([`DynLayout::composition_shape`]).
    CompositionShape [A: StaticLayout, S: IntTuple] [A, S] (A, S) =>
        A::LAYOUT.composition_shape(&static_tuple::<S>())
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

// One static type (two for tilers and cotargets) and one entry function per table entry,
// generated from the table (`ops::op_table!`).
macro_rules! statics_from_table {
    ($(
        $(#[$doc:meta])*
        $V:ident $name:literal ($($a:ident: $k:ident),*) $forms:ident [$($gen:tt)*] => $body:expr;
    )*) => {
        $( statics_entry! { [$(#[$doc])*] $V $name [$($gen)*] } )*
    };
}

macro_rules! statics_entry {
    ([$($doc:tt)*] $V:ident $name:literal [unary $f:ident]) => {
        zst! {
            $($doc)*
            $V [L: StaticLayout] [L] (L) => table(Op::$V, &[Arg::Layout(L::LAYOUT)])
        }
        entry!(
            #[doc = concat!("`", $name, "(L)` of a static layout, as a zero-sized static layout ([`", stringify!($V), "`]).")]
            $f<L: StaticLayout>(l) -> $V
        );
    };
    ([$($doc:tt)*] $V:ident $name:literal [pair $f:ident]) => {
        zst! {
            $($doc)*
            $V [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
                table(Op::$V, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
        }
        entry!(
            #[doc = concat!("`", $name, "(A, B)` of static layouts ([`", stringify!($V), "`]).")]
            $f<A: StaticLayout, B: StaticLayout>(a, b) -> $V
        );
    };
    ([$($doc:tt)*] $V:ident $name:literal [tiled $f:ident, $VB:ident $fb:ident]) => {
        zst! {
            $($doc)*
            ///
            /// This type: the 1-D tiler, a static layout.
            $V [A: StaticLayout, B: StaticLayout] [A, B] (A, B) =>
                table(Op::$V, &[Arg::Layout(A::LAYOUT), Arg::Layout(B::LAYOUT)])
        }
        zst! {
            $($doc)*
            ///
            /// This type: a static by-mode tiler ([`StaticTile`]).
            $VB [A: StaticLayout, T: StaticTile] [A, T] (A, T) =>
                table(Op::$V, &[Arg::Layout(A::LAYOUT), Arg::Tile(T::TILE)])
        }
        entry!(
            #[doc = concat!("`", $name, "(A, B)` of static layouts, 1-D tiler ([`", stringify!($V), "`]).")]
            $f<A: StaticLayout, B: StaticLayout>(a, b) -> $V
        );
        entry!(
            #[doc = concat!("`", $name, "(A, T)` with a static by-mode tiler ([`", stringify!($VB), "`]).")]
            $fb<A: StaticLayout, T: StaticTile>(a, t) -> $VB
        );
    };
    ([$($doc:tt)*] $V:ident $name:literal [profile $f:ident]) => {
        zst! {
            $($doc)*
            ///
            /// The profile `P` is a static [`IntTuple`] (only its nesting matters).
            $V [L: StaticLayout, P: IntTuple] [L, P] (L, P) =>
                table(Op::$V, &[Arg::Layout(L::LAYOUT), Arg::Shape(static_tuple::<P>())])
        }
        entry!(
            #[doc = concat!("`", $name, "(L, P)` with a static profile value `P` ([`", stringify!($V), "`]).")]
            $f<L: StaticLayout, P: IntTuple>(l, p) -> $V
        );
    };
    ([$($doc:tt)*] $V:ident $name:literal [cotarget $f:ident, $VS:ident $fs:ident]) => {
        zst! {
            $($doc)*
            ///
            /// This type: a const-generic integer cotarget `M`.
            $V [L: StaticLayout, const M: i64] [L, M] (L) =>
                table(Op::$V, &[Arg::Layout(L::LAYOUT), Arg::Shape(DynTuple::leaf(M))])
        }
        zst! {
            $($doc)*
            ///
            /// This type: a static shape cotarget `S` ([`IntTuple`]).
            $VS [L: StaticLayout, S: IntTuple] [L, S] (L, S) =>
                table(Op::$V, &[Arg::Layout(L::LAYOUT), Arg::Shape(static_tuple::<S>())])
        }
        #[doc = concat!("`", $name, "(L, M)` with a const-generic integer cotarget: `statics::", stringify!($f), "::<_, 24>(l)` ([`", stringify!($V), "`]).")]
        #[inline(always)]
        pub fn $f<L: StaticLayout, const M: i64>(l: L) -> $V<L, M> {
            let _ = l;
            make()
        }
        entry!(
            #[doc = concat!("`", $name, "(L, S)` with a static shape cotarget ([`", stringify!($VS), "`]).")]
            $fs<L: StaticLayout, S: IntTuple>(l, s) -> $VS
        );
    };
    ([$($doc:tt)*] $V:ident $name:literal [int $f:ident]) => {
        zst! {
            $($doc)*
            ///
            /// The integer `N` is a const generic.
            $V [L: StaticLayout, const N: i64] [L, N] (L) =>
                table(Op::$V, &[Arg::Layout(L::LAYOUT), Arg::Shape(DynTuple::leaf(N))])
        }
        #[doc = concat!("`", $name, "(L, N)` with a const-generic `N`: `statics::", stringify!($f), "::<_, 2>(l)` ([`", stringify!($V), "`]).")]
        #[inline(always)]
        pub fn $f<L: StaticLayout, const N: i64>(l: L) -> $V<L, N> {
            let _ = l;
            make()
        }
    };
    ([$($doc:tt)*] $V:ident $name:literal [pair_int $f:ident]) => {
        $($doc)*
        ///
        /// The static form: a zero-sized static integer whose value is computed at compile time.
        pub struct $V<A, B>(PhantomData<(A, B)>);

        impl<A: StaticLayout, B: StaticLayout> $V<A, B> {
            /// The value, computed at compile time.
            pub const VALUE: i64 = match super::ops::apply_int(
                Op::$V,
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

        impl<A, B> Clone for $V<A, B> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<A, B> Copy for $V<A, B> {}
        impl<A, B> fmt::Debug for $V<A, B> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(stringify!($V))
            }
        }

        #[doc = concat!("`", $name, "(A, B)` of static layouts: a zero-sized static integer ([`", stringify!($V), "`]).")]
        #[inline(always)]
        pub fn $f<A: StaticLayout, B: StaticLayout>(a: A, b: B) -> $V<A, B> {
            let _ = (a, b);
            let _ = $V::<A, B>::VALUE;
            $V(PhantomData)
        }
    };
    ([$($doc:tt)*] $V:ident $name:literal [shapes $f:ident]) => {
        zst! {
            $($doc)*
            ///
            /// The two shapes are static [`IntTuple`]s.
            $V [S: IntTuple, O: IntTuple] [S, O] (S, O) =>
                table(Op::$V, &[Arg::Shape(static_tuple::<S>()), Arg::Shape(static_tuple::<O>())])
        }
        entry!(
            #[doc = concat!("`", $name, "(S, O)` of static shapes ([`", stringify!($V), "`]).")]
            $f<S: IntTuple, O: IntTuple>(s, o) -> $V
        );
    };
    ([$($doc:tt)*] $V:ident $name:literal [pred $f:ident]) => {
        $($doc)*
        ///
        /// The static form: a zero-sized type whose `VALUE` is decided at compile time.
        pub struct $V<A, B>(PhantomData<(A, B)>);

        impl<A: IntTuple, B: IntTuple> $V<A, B> {
            /// The value, decided at compile time.
            pub const VALUE: bool = match super::ops::apply_int(
                Op::$V,
                &[Arg::Shape(static_tuple::<A>()), Arg::Shape(static_tuple::<B>())],
            ) {
                Ok(v) => v != 0,
                Err(e) => panic!("{}", e.rule()),
            };

            /// The value.
            #[inline(always)]
            pub const fn get(&self) -> bool {
                Self::VALUE
            }
        }

        impl<A, B> Clone for $V<A, B> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<A, B> Copy for $V<A, B> {}
        impl<A, B> fmt::Debug for $V<A, B> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(stringify!($V))
            }
        }

        #[doc = concat!("`", $name, "(a, b)` of static shapes, decided at compile time ([`", stringify!($V), "`]).")]
        #[inline(always)]
        pub fn $f<A: IntTuple, B: IntTuple>(a: A, b: B) -> $V<A, B> {
            let _ = (a, b);
            let _ = $V::<A, B>::VALUE;
            $V(PhantomData)
        }
    };
    ([$($doc:tt)*] $V:ident $name:literal [named]) => {};
}

super::ops::op_table!(statics_from_table);

/// `composition(A, S)` with a static integer or flat shape `S` (`(M,N)` = `[M:1,N:1]`).
#[inline(always)]
pub fn composition_shape<A: StaticLayout, S: IntTuple>(a: A, s: S) -> CompositionShape<A, S> {
    let _ = (a, s);
    make()
}

/// `recast_layout` from `OLD`-bit to `NEW`-bit elements:
/// `statics::recast_layout::<_, 16, 32>(l)`.
#[inline(always)]
pub fn recast_layout<L: StaticLayout, const OLD: i64, const NEW: i64>(
    l: L,
) -> RecastLayout<L, OLD, NEW> {
    let _ = l;
    make()
}
