//! The table of algebra operations: every front end (the `layout!` macro's expansion-time and
//! run-time paths, the `layout-calc` calculator, the static layer [`statics`](super::statics) and
//! the [`Algebra`](super::Algebra) trait) reads this one table.
//!
//! Each entry of [`Op`] is one CuTe function at one arity: its name, the [`Kind`] of each
//! argument, the forms a user may write (for messages), and the [`DynLayout`] method it calls.
//! Arguments come in as [`Arg`]s — what the user *wrote* (a layout with a stride, a bare shape or
//! integer, a by-mode tiler `[…]`) — and each kind converts them by one rule, written once here:
//!
//! | kind | layout `S:D` | integer `N` | bare shape `(M,N)` | tiler `[…]` |
//! |---|---|---|---|---|
//! | [`Kind::Layout`] | itself | `N:1` | compact column-major | refused |
//! | [`Kind::Tiler`] | 1-D tiler | 1-D tiler `N:1` | **refused** (ambiguous) | by-mode tiler |
//! | [`Kind::Cotarget`] | refused | the integer | the shape | refused |
//! | [`Kind::Profile`] | refused | the integer | the shape | refused |
//! | [`Kind::Int`] | refused | the integer | refused | refused |
//!
//! A bare shape where a tiler is expected is an error in every front end: CuTe C++ reads
//! `zipped_divide(A, Shape<_4,_8>)` by mode while `(4,8)` also denotes the layout `(4,8):(1,4)`
//! (cutlass#2545); write `[4,8]` for the by-mode tiler or `(4,8):(1,4)` for the 1-D layout.
//!
//! Adding an operation is one entry in the `op_table!` macro below (plus its case in
//! `tests/op_table.rs`, which matches exhaustively on [`Op`]): the macro, the calculator, the
//! static layer's types and entry functions and the trait's methods are generated from it. An
//! entry is `Variant "name" (arg: Kind, …) FORMS [generated] => expression`, the expression
//! giving `Result<Value, LayoutError>` from the converted arguments, `[generated]` the shape of
//! its static types and trait method;
//! a constructor of a named layout is an entry like any other (integer arguments only: the Ascend
//! fractal formulas of [`named::ascend`](crate::named::ascend), which live in a layer below this
//! one). The front ends recognise calls by the names here, and Ascend's spellings with an element
//! type (`NZ<f16>(m, n)` → `nz_layout(16, m, n)`) through [`Spelling`].
//!
//! ```
//! use layout::algebra::ops::{Arg, Op, Value};
//! let a = "(12,32):(1,12)".parse().unwrap();
//! let op = Op::lookup("zipped_divide", 2).unwrap();
//! let r = op.apply(&[Arg::Layout(a), Arg::Tile("[4,8]".parse().unwrap())]).unwrap();
//! assert_eq!(r, Value::Layout("((4,8),(3,4)):((1,12),(4,96))".parse().unwrap()));
//! let bare = op.apply(&[Arg::Layout(a), Arg::Shape("(4,8)".parse().unwrap())]);
//! assert!(bare.is_err());
//! ```

use crate::formulas::{ascend as fractal, blocked};

pub use super::spelling::{Param, Spelling, SpellingError, SpellingMessage};
use crate::{DynLayout, DynTuple, LayoutError, Tile};
use core::fmt;

/// The kind of value an operation expects in one argument position.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Kind {
    /// A layout (a bare shape is its compact column-major layout, an integer `N` is `N:1`).
    Layout,
    /// A tiler: a layout (1-D) or a by-mode tiler `[t0,t1,…]`; never a bare shape.
    Tiler,
    /// A cotarget: an integer or a shape.
    Cotarget,
    /// A profile (a shape whose nesting matters).
    Profile,
    /// An integer.
    Int,
}

/// What an argument was written as, known to a front end before its value (the macro's
/// run-time path checks arguments with it at expansion time).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Class {
    /// A layout with a stride, or the result of an operation.
    Layout,
    /// A bare integer (no stride).
    Int,
    /// A bare shape tuple (no stride).
    Shape,
    /// A by-mode tiler `[…]`.
    Tile,
}

/// An argument of an operation, as written.
// A handful live per call; boxing would cost more than it saves.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Arg {
    /// A layout with a stride (or an operation's result).
    Layout(DynLayout),
    /// A bare shape or integer, written without a stride.
    Shape(DynTuple),
    /// A by-mode tiler.
    Tile(Tile),
}

impl Arg {
    /// Its class.
    pub const fn class(&self) -> Class {
        match self {
            Arg::Layout(_) => Class::Layout,
            Arg::Shape(s) if s.is_leaf() => Class::Int,
            Arg::Shape(_) => Class::Shape,
            Arg::Tile(_) => Class::Tile,
        }
    }
}

/// A tiler argument after conversion.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Tiler {
    /// A 1-D tiler.
    OneD(DynLayout),
    /// A by-mode tiler.
    ByMode(Tile),
}

impl From<&DynLayout> for Tiler {
    fn from(l: &DynLayout) -> Self {
        Tiler::OneD(*l)
    }
}
impl From<Tile> for Tiler {
    fn from(t: Tile) -> Self {
        Tiler::ByMode(t)
    }
}
impl From<&Tile> for Tiler {
    fn from(t: &Tile) -> Self {
        Tiler::ByMode(*t)
    }
}

/// A cotarget argument after conversion.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Cotarget {
    /// An integer `M`.
    Int(i64),
    /// A shape.
    Shape(DynTuple),
}

/// The result of an operation.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum Value {
    /// A layout.
    Layout(DynLayout),
    /// An integer (`max_common_vector`).
    Int(i64),
}

/// Why an operation was not evaluated.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum OpError {
    /// The operation refused its inputs (the rule and numbers are in the error).
    Refused(LayoutError),
    /// Argument `index` (from 0) is not of a kind the operation takes; `expected` says what it
    /// takes.
    Argument {
        /// The argument, from 0.
        index: usize,
        /// What it must be: "a layout, not a tiler", "an integer", ….
        expected: &'static str,
    },
    /// Argument `index` is a bare shape where a tiler is expected (ambiguous: see the module
    /// documentation); [`TilerHint`] words the fix.
    BareShapeTiler {
        /// The argument, from 0.
        index: usize,
    },
    /// No entry of this name takes `given` arguments.
    Arity {
        /// The number of arguments given.
        given: usize,
    },
    /// No operation has this name.
    Unknown,
}

impl From<LayoutError> for OpError {
    fn from(e: LayoutError) -> Self {
        OpError::Refused(e)
    }
}

/// The fix for a bare shape where a tiler is expected, in the user's notation:
/// ``write `[4,8]` for a by-mode tiler or `(4,8):(1,4)` for a 1-D layout``.
///
/// ```
/// use layout::algebra::ops::TilerHint;
/// let h = TilerHint { shape: "(4,8)", layout: "(4,8):(1,4)" };
/// assert_eq!(
///     h.to_string(),
///     "a bare shape (4,8) is ambiguous as a tiler; write `[4,8]` for a by-mode tiler or `(4,8):(1,4)` for a 1-D layout"
/// );
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TilerHint<'a> {
    /// The shape as written: `(4,8)`.
    pub shape: &'a str,
    /// Its compact column-major layout as written: `(4,8):(1,4)`.
    pub layout: &'a str,
}

impl fmt::Display for TilerHint<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = self
            .shape
            .strip_prefix('(')
            .and_then(|s| s.strip_suffix(')'))
            .unwrap_or(self.shape);
        write!(
            f,
            "a bare shape {} is ambiguous as a tiler; write `[{inner}]` for a by-mode tiler or `{}` for a 1-D layout",
            self.shape, self.layout
        )
    }
}

impl Kind {
    /// The one rule: does this kind accept an argument of class `c` (argument `index`)?
    ///
    /// # Errors
    /// [`OpError::Argument`] or [`OpError::BareShapeTiler`] naming the argument.
    pub const fn accepts(self, c: Class, index: usize) -> Result<(), OpError> {
        let expected = match (self, c) {
            (Kind::Layout, Class::Tile) => "a layout, not a tiler",
            (Kind::Layout, _) => return Ok(()),
            (Kind::Tiler, Class::Shape) => return Err(OpError::BareShapeTiler { index }),
            (Kind::Tiler, _) => return Ok(()),
            (Kind::Cotarget, Class::Int | Class::Shape) => return Ok(()),
            (Kind::Cotarget, _) => "a cotarget: an integer or a shape",
            (Kind::Profile, Class::Int | Class::Shape) => return Ok(()),
            (Kind::Profile, _) => "a profile such as (1,1)",
            (Kind::Int, Class::Int) => return Ok(()),
            (Kind::Int, _) => "an integer",
        };
        Err(OpError::Argument { index, expected })
    }
}

// Conversions: each checks the one rule above, then reads the value.

const fn layout(a: &Arg, i: usize) -> Result<DynLayout, OpError> {
    if let Err(e) = Kind::Layout.accepts(a.class(), i) {
        return Err(e);
    }
    match a {
        Arg::Layout(l) => Ok(*l),
        Arg::Shape(s) => match DynLayout::col_major(s) {
            Ok(l) => Ok(l),
            Err(e) => Err(OpError::Refused(e)),
        },
        Arg::Tile(_) => Err(OpError::Argument {
            index: i,
            expected: "a layout",
        }),
    }
}

const fn tiler(a: &Arg, i: usize) -> Result<Tiler, OpError> {
    if let Err(e) = Kind::Tiler.accepts(a.class(), i) {
        return Err(e);
    }
    match a {
        Arg::Tile(t) => Ok(Tiler::ByMode(*t)),
        _ => match layout(a, i) {
            Ok(l) => Ok(Tiler::OneD(l)),
            Err(e) => Err(e),
        },
    }
}

const fn cotarget(a: &Arg, i: usize) -> Result<Cotarget, OpError> {
    if let Err(e) = Kind::Cotarget.accepts(a.class(), i) {
        return Err(e);
    }
    match a {
        Arg::Shape(s) => match s.as_leaf() {
            Some(m) => Ok(Cotarget::Int(m)),
            None => Ok(Cotarget::Shape(*s)),
        },
        _ => Err(OpError::Argument {
            index: i,
            expected: "a cotarget",
        }),
    }
}

const fn profile(a: &Arg, i: usize) -> Result<DynTuple, OpError> {
    if let Err(e) = Kind::Profile.accepts(a.class(), i) {
        return Err(e);
    }
    match a {
        Arg::Shape(s) => Ok(*s),
        _ => Err(OpError::Argument {
            index: i,
            expected: "a profile",
        }),
    }
}

const fn int(a: &Arg, i: usize) -> Result<i64, OpError> {
    if let Err(e) = Kind::Int.accepts(a.class(), i) {
        return Err(e);
    }
    match a {
        Arg::Shape(s) => match s.as_leaf() {
            Some(v) => Ok(v),
            None => Err(OpError::Argument {
                index: i,
                expected: "an integer",
            }),
        },
        _ => Err(OpError::Argument {
            index: i,
            expected: "an integer",
        }),
    }
}

/// `Ok(Value::Layout(l))`.
const fn lay(l: DynLayout) -> Result<Value, LayoutError> {
    Ok(Value::Layout(l))
}

/// A predicate as CuTe's integral constant: 1 or 0.
const fn pred(b: bool) -> Result<Value, LayoutError> {
    Ok(Value::Int(b as i64))
}

/// A fallible layout result as a value.
const fn try_lay(r: Result<DynLayout, LayoutError>) -> Result<Value, LayoutError> {
    match r {
        Ok(l) => Ok(Value::Layout(l)),
        Err(e) => Err(e),
    }
}

macro_rules! gives_int {
    (pair_int $($t:tt)*) => {
        true
    };
    (pred $($t:tt)*) => {
        true
    };
    ($($t:tt)*) => {
        false
    };
}

macro_rules! ops {
    ($(
        $(#[$doc:meta])*
        $V:ident $name:literal ($($a:ident: $k:ident),*) $forms:ident [$($gen:tt)*] => $body:expr;
    )*) => {
        /// One entry of the table: a CuTe function at one arity.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum Op {
            $($(#[$doc])* $V,)*
        }

        impl Op {
            /// Every entry, in table order.
            pub const ALL: &'static [Op] = &[$(Op::$V),*];

            /// CuTe's name.
            pub const fn name(self) -> &'static str {
                match self { $(Op::$V => $name,)* }
            }

            /// The kind of each argument.
            pub const fn kinds(self) -> &'static [Kind] {
                match self { $(Op::$V => &[$(Kind::$k),*],)* }
            }

            /// `true` when the entry's result is an integer (from its `[generated]` clause).
            const fn int_result(self) -> bool {
                match self { $(Op::$V => gives_int!($($gen)*),)* }
            }

            /// The forms a user may write for this name (for messages).
            pub const fn forms(self) -> &'static str {
                match self { $(Op::$V => $forms,)* }
            }

            /// Evaluate the entry: convert each argument by its kind's rule, call the
            /// [`DynLayout`] method. A `const fn`: the static layer calls it in associated
            /// consts, the `layout!` macro at expansion time, run-time code directly.
            ///
            /// # Errors
            /// [`OpError::Arity`] for a wrong number of arguments, [`OpError::Argument`] /
            /// [`OpError::BareShapeTiler`] for an argument of the wrong kind,
            /// [`OpError::Refused`] with the rule the operation broke.
            #[allow(unused_assignments, unused_mut)]
            pub const fn apply(self, args: &[Arg]) -> Result<Value, OpError> {
                if args.len() != self.kinds().len() {
                    return Err(OpError::Arity { given: args.len() });
                }
                match self {
                    $(Op::$V => {
                        // One function per entry, not inlined: the frame of `apply` stays
                        // small and each entry's frame holds only its own locals.
                        #[inline(never)]
                        const fn entry(args: &[Arg]) -> Result<Value, OpError> {
                            let mut i = 0;
                            $(
                                let $a = match $k(&args[i], i) {
                                    Ok(v) => v,
                                    Err(e) => return Err(e),
                                };
                                i += 1;
                            )*
                            match $body {
                                Ok(v) => Ok(v),
                                Err(e) => Err(OpError::Refused(e)),
                            }
                        }
                        entry(args)
                    })*
                }
            }
        }
    };
}

// Lower-case aliases so the table reads `a: layout` and the conversion is the function of that
// name.
#[allow(non_snake_case)]
const fn Layout(a: &Arg, i: usize) -> Result<DynLayout, OpError> {
    layout(a, i)
}
#[allow(non_snake_case)]
const fn Tiler(a: &Arg, i: usize) -> Result<Tiler, OpError> {
    tiler(a, i)
}
#[allow(non_snake_case)]
const fn Cotarget(a: &Arg, i: usize) -> Result<Cotarget, OpError> {
    cotarget(a, i)
}
#[allow(non_snake_case)]
const fn Profile(a: &Arg, i: usize) -> Result<DynTuple, OpError> {
    profile(a, i)
}
#[allow(non_snake_case)]
const fn Int(a: &Arg, i: usize) -> Result<i64, OpError> {
    int(a, i)
}

const COALESCE: &str = "coalesce(L) or coalesce(L, profile)";
const COMPOSITION: &str = "composition(A, B) with B a layout, an integer or a tiler [t0,t1,…]";
const COMPLEMENT: &str = "complement(L), complement(L, M) or complement(L, shape)";
const CAST: &str = "upcast(L, N) / downcast(L, N) with an integer N";
const COMMON: &str = "max_common_layout(A, B) / max_common_vector(A, B)";
const TILED: &str = "logical_divide(A, T) & co. with T a layout, an integer or a tiler [t0,t1,…]";
const PAIR: &str = "blocked_product(A, B) / raked_product(A, B) with two layouts";
const UNARY: &str = "op(L) with one layout";
const TWO: &str = "op(A, B) with two layouts";
const SHAPES: &str = "make_ordered_layout(shape, order) with two congruent shapes";
const PREDICATE: &str =
    "congruent(a, b) / weakly_congruent(a, b) / compatible(a, b) with two shapes or integers";
const FRACTAL: &str = "NZ<T>(m, n) / ZN<T>(m, n) / ZZ<T>(m, n) (+ the two outer strides), or nz_layout(C0, m, n) & co.";
const BLOCKED: &str = "nChw8c(n, c, h, w), NC1HWC0<f16>(n, c, h, w), OIhw16i16o(o, i, h, w), RowMajorInterleaved<4>(rows, cols[, ld]), or nchw_blocked(n, c, h, w, block) & co.";
const PLAIN2: &str =
    "NN(m, n), L0C(m, n), ND(m, n), DN(m, n) (+ a leading dimension: ND(m, n, ld))";

/// The table itself: `op_table!(m)` calls the macro `m` with every entry, so each consumer
/// (the evaluator below, the static layer, the `Algebra` trait) is generated from the one list.
/// An entry is `Variant "name" (arg: Kind, …) FORMS [generated] => expression`; `[generated]`
/// says which static types and trait methods the entry gets: `unary f`, `pair f`, `pair_int f`,
/// `profile f`, `int f`, `tiled f, VByMode f_by_mode`, `cotarget f, VShape f_shape`, `shapes f`
/// (two shapes, no layout), `pred f` (a predicate on two shapes, 1 or 0), or `named`
/// (a named layout's constructor, whose static types live in the named layer).
macro_rules! op_table {
    ($m:ident) => {
        $m! {
    /// `coalesce(L)` ([`DynLayout::coalesce`]).
    Coalesce "coalesce" (l: Layout) COALESCE [unary coalesce] => lay(l.coalesce());
    /// `coalesce(L, profile)` ([`DynLayout::coalesce_by_mode`]).
    CoalesceByMode "coalesce" (l: Layout, p: Profile) COALESCE [profile coalesce_by_mode] => try_lay(l.coalesce_by_mode(&p));
    /// `filter_zeros(L)` ([`DynLayout::filter_zeros`]).
    FilterZeros "filter_zeros" (l: Layout) UNARY [unary filter_zeros] => lay(l.filter_zeros());
    /// `filter(L)` ([`DynLayout::filter`]).
    Filter "filter" (l: Layout) UNARY [unary filter] => lay(l.filter());
    /// `composition(A, B)`: [`DynLayout::composition`] for a 1-D tiler,
    /// [`DynLayout::composition_by_mode`] for a by-mode one.
    Composition "composition" (a: Layout, t: Tiler) COMPOSITION [tiled composition, CompositionByMode composition_by_mode] => try_lay(match t {
        Tiler::OneD(b) => a.composition(&b),
        Tiler::ByMode(t) => a.composition_by_mode(&t),
    });
    /// `complement(L)` ([`DynLayout::complement_cosize`]).
    ComplementCosize "complement" (l: Layout) COMPLEMENT [unary complement_cosize] => try_lay(l.complement_cosize());
    /// `complement(L, M)` / `complement(L, shape)` ([`DynLayout::complement`],
    /// [`DynLayout::complement_shape`]).
    Complement "complement" (l: Layout, c: Cotarget) COMPLEMENT [cotarget complement, ComplementShape complement_shape] => try_lay(match c {
        Cotarget::Int(m) => l.complement(m),
        Cotarget::Shape(s) => l.complement_shape(&s),
    });
    /// `right_inverse(L)` ([`DynLayout::right_inverse`]).
    RightInverse "right_inverse" (l: Layout) UNARY [unary right_inverse] => lay(l.right_inverse());
    /// `left_inverse(L)` ([`DynLayout::left_inverse`]).
    LeftInverse "left_inverse" (l: Layout) UNARY [unary left_inverse] => try_lay(l.left_inverse());
    /// `logical_divide(A, T)` ([`DynLayout::logical_divide`], [`DynLayout::logical_divide_by_mode`]).
    LogicalDivide "logical_divide" (a: Layout, t: Tiler) TILED [tiled logical_divide, LogicalDivideByMode logical_divide_by_mode] => try_lay(match t {
        Tiler::OneD(b) => a.logical_divide_by_layout(&b),
        Tiler::ByMode(t) => a.logical_divide_by_mode(&t),
    });
    /// `zipped_divide(A, T)` ([`DynLayout::zipped_divide`], [`DynLayout::zipped_divide_by_mode`]).
    ZippedDivide "zipped_divide" (a: Layout, t: Tiler) TILED [tiled zipped_divide, ZippedDivideByMode zipped_divide_by_mode] => try_lay(match t {
        Tiler::OneD(b) => a.zipped_divide_by_layout(&b),
        Tiler::ByMode(t) => a.zipped_divide_by_mode(&t),
    });
    /// `tiled_divide(A, T)` ([`DynLayout::tiled_divide`], [`DynLayout::tiled_divide_by_mode`]).
    TiledDivide "tiled_divide" (a: Layout, t: Tiler) TILED [tiled tiled_divide, TiledDivideByMode tiled_divide_by_mode] => try_lay(match t {
        Tiler::OneD(b) => a.tiled_divide_by_layout(&b),
        Tiler::ByMode(t) => a.tiled_divide_by_mode(&t),
    });
    /// `flat_divide(A, T)` ([`DynLayout::flat_divide`], [`DynLayout::flat_divide_by_mode`]).
    FlatDivide "flat_divide" (a: Layout, t: Tiler) TILED [tiled flat_divide, FlatDivideByMode flat_divide_by_mode] => try_lay(match t {
        Tiler::OneD(b) => a.flat_divide_by_layout(&b),
        Tiler::ByMode(t) => a.flat_divide_by_mode(&t),
    });
    /// `logical_product(A, T)` ([`DynLayout::logical_product`], [`DynLayout::logical_product_by_mode`]).
    LogicalProduct "logical_product" (a: Layout, t: Tiler) TILED [tiled logical_product, LogicalProductByMode logical_product_by_mode] => try_lay(match t {
        Tiler::OneD(b) => a.logical_product_by_layout(&b),
        Tiler::ByMode(t) => a.logical_product_by_mode(&t),
    });
    /// `zipped_product(A, T)` ([`DynLayout::zipped_product`], [`DynLayout::zipped_product_by_mode`]).
    ZippedProduct "zipped_product" (a: Layout, t: Tiler) TILED [tiled zipped_product, ZippedProductByMode zipped_product_by_mode] => try_lay(match t {
        Tiler::OneD(b) => a.zipped_product_by_layout(&b),
        Tiler::ByMode(t) => a.zipped_product_by_mode(&t),
    });
    /// `tiled_product(A, T)` ([`DynLayout::tiled_product`], [`DynLayout::tiled_product_by_mode`]).
    TiledProduct "tiled_product" (a: Layout, t: Tiler) TILED [tiled tiled_product, TiledProductByMode tiled_product_by_mode] => try_lay(match t {
        Tiler::OneD(b) => a.tiled_product_by_layout(&b),
        Tiler::ByMode(t) => a.tiled_product_by_mode(&t),
    });
    /// `flat_product(A, T)` ([`DynLayout::flat_product`], [`DynLayout::flat_product_by_mode`]).
    FlatProduct "flat_product" (a: Layout, t: Tiler) TILED [tiled flat_product, FlatProductByMode flat_product_by_mode] => try_lay(match t {
        Tiler::OneD(b) => a.flat_product_by_layout(&b),
        Tiler::ByMode(t) => a.flat_product_by_mode(&t),
    });
    /// `blocked_product(A, B)` ([`DynLayout::blocked_product`]).
    BlockedProduct "blocked_product" (a: Layout, b: Layout) PAIR [pair blocked_product] => try_lay(a.blocked_product(&b));
    /// `raked_product(A, B)` ([`DynLayout::raked_product`]).
    RakedProduct "raked_product" (a: Layout, b: Layout) PAIR [pair raked_product] => try_lay(a.raked_product(&b));
    /// `max_common_layout(A, B)` ([`DynLayout::max_common_layout`]).
    MaxCommonLayout "max_common_layout" (a: Layout, b: Layout) COMMON [pair max_common_layout] => lay(a.max_common_layout(&b));
    /// `max_common_vector(A, B)` ([`DynLayout::max_common_vector`]): an integer.
    MaxCommonVector "max_common_vector" (a: Layout, b: Layout) COMMON [pair_int max_common_vector] =>
        Ok::<Value, LayoutError>(Value::Int(a.max_common_vector(&b)));
    /// `nullspace(L)` ([`DynLayout::nullspace`]).
    Nullspace "nullspace" (l: Layout) UNARY [unary nullspace] => lay(l.nullspace());
    /// `upcast(L, N)` ([`DynLayout::upcast`]).
    Upcast "upcast" (l: Layout, n: Int) CAST [int upcast] => try_lay(l.upcast(n));
    /// `downcast(L, N)` ([`DynLayout::downcast`]).
    Downcast "downcast" (l: Layout, n: Int) CAST [int downcast] => try_lay(l.downcast(n));
    /// `coalesce_z(L)` ([`DynLayout::coalesce_z`]): `coalesce` keeping a trailing extent-1 leaf.
    CoalesceZ "coalesce_z" (l: Layout) UNARY [unary coalesce_z] => lay(l.coalesce_z());
    /// `layout_add(A, B)` ([`DynLayout::layout_add`]): `R(i) == A(i) + B(i)`.
    LayoutAdd "layout_add" (a: Layout, b: Layout) TWO [pair layout_add] => try_lay(a.layout_add(&b));
    /// `greatest_common_domain(A, B)` ([`DynLayout::greatest_common_domain`]), from the shapes.
    GreatestCommonDomain "greatest_common_domain" (a: Layout, b: Layout) TWO
        [pair greatest_common_domain] => lay(a.greatest_common_domain(&b));
    /// `make_layout_like(L)` ([`DynLayout::make_layout_like`]).
    MakeLayoutLike "make_layout_like" (l: Layout) UNARY [unary make_layout_like] =>
        try_lay(l.make_layout_like());
    /// `make_ordered_layout(shape, order)` ([`DynLayout::make_ordered_layout`]).
    MakeOrderedLayout "make_ordered_layout" (s: Profile, o: Profile) SHAPES
        [shapes make_ordered_layout] => try_lay(DynLayout::make_ordered_layout(&s, &o));
    /// `congruent(a, b)` ([`DynTuple::congruent`]): 1 when the profiles are equal, else 0.
    Congruent "congruent" (a: Profile, b: Profile) PREDICATE [pred congruent] =>
        pred(a.congruent(&b));
    /// `weakly_congruent(a, b)` ([`DynTuple::weakly_congruent`]): 1 when `a` is a coarsening of
    /// `b`, else 0.
    WeaklyCongruent "weakly_congruent" (a: Profile, b: Profile) PREDICATE
        [pred weakly_congruent] => pred(a.weakly_congruent(&b));
    /// `compatible(a, b)` ([`DynTuple::compatible`]): 1 when every coordinate of `a` is one of
    /// `b` and the sizes agree, else 0.
    Compatible "compatible" (a: Profile, b: Profile) PREDICATE [pred compatible] =>
        pred(a.compatible(&b));
    /// Ascend NZ for C0 elements per fractal row ([`nz_layout`](crate::named::ascend::nz_layout));
    /// `NZ<T>(m, n)` in the front ends.
    NzLayout "nz_layout" (c0: Int, m: Int, n: Int) FRACTAL [named] => try_lay(fractal::nz_layout(c0, m, n));
    /// NZ with explicit outer strides, alignment checked
    /// ([`nz_layout_strided`](crate::named::ascend::nz_layout_strided)).
    NzLayoutStrided "nz_layout" (c0: Int, m: Int, n: Int, row1: Int, col1: Int) FRACTAL [named] =>
        try_lay(fractal::nz_layout_strided(c0, m, n, row1, col1));
    /// Ascend ZN ([`zn_layout`](crate::named::ascend::zn_layout)); `ZN<T>(m, n)`.
    ZnLayout "zn_layout" (c0: Int, m: Int, n: Int) FRACTAL [named] => try_lay(fractal::zn_layout(c0, m, n));
    /// ZN with explicit outer strides ([`zn_layout_strided`](crate::named::ascend::zn_layout_strided)).
    ZnLayoutStrided "zn_layout" (c0: Int, m: Int, n: Int, row1: Int, col1: Int) FRACTAL [named] =>
        try_lay(fractal::zn_layout_strided(c0, m, n, row1, col1));
    /// Ascend ZZ ([`zz_layout`](crate::named::ascend::zz_layout)); `ZZ<T>(m, n)`.
    ZzLayout "zz_layout" (c0: Int, m: Int, n: Int) FRACTAL [named] => try_lay(fractal::zz_layout(c0, m, n));
    /// ZZ with explicit outer strides ([`zz_layout_strided`](crate::named::ascend::zz_layout_strided)).
    ZzLayoutStrided "zz_layout" (c0: Int, m: Int, n: Int, row1: Int, col1: Int) FRACTAL [named] =>
        try_lay(fractal::zz_layout_strided(c0, m, n, row1, col1));
    /// Ascend NN, the MX `scaleB` layout ([`nn_layout`](crate::named::ascend::nn_layout)); `NN(m, n)`.
    NnLayout "nn_layout" (m: Int, n: Int) PLAIN2 [named] => try_lay(fractal::nn_layout(m, n));
    /// The L0C accumulator layout: NZ with C0 = 16 whatever the type; `L0C(m, n)`.
    L0cLayout "l0c_layout" (m: Int, n: Int) PLAIN2 [named] => try_lay(fractal::nz_layout(16, m, n));
    /// Ascend's two-level row-major `((1,m),(1,n)):((0,n),(0,1))`; `ND(m, n)`.
    RowMajorLayout "row_major_layout" (m: Int, n: Int) PLAIN2 [named] => try_lay(fractal::nd_ext_layout(m, n, n));
    /// Ascend's two-level column-major `((1,m),(1,n)):((0,1),(0,m))`; `DN(m, n)`.
    ColumnMajorLayout "column_major_layout" (m: Int, n: Int) PLAIN2 [named] => try_lay(fractal::dn_ext_layout(m, n, m));
    /// Two-level row-major with a leading dimension ([`nd_ext_layout`](crate::named::ascend::nd_ext_layout));
    /// `ND(m, n, ld)`.
    NdExtLayout "nd_ext_layout" (m: Int, n: Int, ld: Int) PLAIN2 [named] => try_lay(fractal::nd_ext_layout(m, n, ld));
    /// Two-level column-major with a leading dimension ([`dn_ext_layout`](crate::named::ascend::dn_ext_layout));
    /// `DN(m, n, ld)`.
    DnExtLayout "dn_ext_layout" (m: Int, n: Int, ld: Int) PLAIN2 [named] => try_lay(fractal::dn_ext_layout(m, n, ld));
    /// oneDNN's `nChw{B}c` / Ascend's NC1HWC0 ([`nchw_blocked`](crate::named::blocked::nchw_blocked));
    /// `nChw8c(n, c, h, w)`, `NC1HWC0<f16>(n, c, h, w)`.
    NchwBlocked "nchw_blocked" (n: Int, c: Int, h: Int, w: Int, b: Int) BLOCKED [named] =>
        try_lay(blocked::nchw_blocked(n, c, h, w, b));
    /// oneDNN's `OIhw{Bi}i{Bo}o` ([`oihw_blocked`](crate::named::blocked::oihw_blocked));
    /// `OIhw16i16o(o, i, h, w)`.
    OihwBlocked "oihw_blocked" (o: Int, i: Int, h: Int, w: Int, bi: Int, bo: Int) BLOCKED [named] =>
        try_lay(blocked::oihw_blocked(o, i, h, w, bi, bo));
    /// CUTLASS `RowMajorInterleaved<I>` with a leading dimension
    /// ([`row_major_interleaved`](crate::named::blocked::row_major_interleaved));
    /// `RowMajorInterleaved<4>(rows, cols, ld)`.
    RowMajorInterleavedLd "row_major_interleaved" (i: Int, rows: Int, cols: Int, ld: Int) BLOCKED [named] =>
        try_lay(blocked::row_major_interleaved(i, rows, cols, ld));
    /// Packed CUTLASS `RowMajorInterleaved<I>`
    /// ([`row_major_interleaved_packed`](crate::named::blocked::row_major_interleaved_packed));
    /// `RowMajorInterleaved<4>(rows, cols)`.
    RowMajorInterleaved "row_major_interleaved" (i: Int, rows: Int, cols: Int) BLOCKED [named] =>
        try_lay(blocked::row_major_interleaved_packed(i, rows, cols));
    /// CUTLASS `ColumnMajorInterleaved<I>` with a leading dimension
    /// ([`column_major_interleaved`](crate::named::blocked::column_major_interleaved)).
    ColumnMajorInterleavedLd "column_major_interleaved" (i: Int, rows: Int, cols: Int, ld: Int) BLOCKED [named] =>
        try_lay(blocked::column_major_interleaved(i, rows, cols, ld));
    /// Packed CUTLASS `ColumnMajorInterleaved<I>`
    /// ([`column_major_interleaved_packed`](crate::named::blocked::column_major_interleaved_packed)).
    ColumnMajorInterleaved "column_major_interleaved" (i: Int, rows: Int, cols: Int) BLOCKED [named] =>
        try_lay(blocked::column_major_interleaved_packed(i, rows, cols));
        }
    };
}
pub(crate) use op_table;

op_table!(ops);

impl Op {
    /// The entry for `name` called with `nargs` arguments.
    ///
    /// # Errors
    /// [`OpError::Unknown`] when no entry has this name, [`OpError::Arity`] when none of this
    /// name takes `nargs` arguments.
    pub fn lookup(name: &str, nargs: usize) -> Result<Op, OpError> {
        let mut known = false;
        for &op in Op::ALL {
            if op.name() == name {
                known = true;
                if op.kinds().len() == nargs {
                    return Ok(op);
                }
            }
        }
        Err(if known {
            OpError::Arity { given: nargs }
        } else {
            OpError::Unknown
        })
    }

    /// `true` when some entry is called `name`.
    pub fn is_name(name: &str) -> bool {
        Op::ALL.iter().any(|op| op.name() == name)
    }

    /// The arities of the entries called `name`, ascending.
    pub fn arities(name: &str) -> impl Iterator<Item = usize> + '_ {
        Op::ALL
            .iter()
            .filter(move |op| op.name() == name)
            .map(|op| op.kinds().len())
    }

    /// Check the classes of the arguments against the kinds, without their values (the
    /// `layout!` macro's run-time path does this at expansion time).
    ///
    /// # Errors
    /// As [`Op::apply`], except [`OpError::Refused`].
    pub const fn check(self, classes: &[Class]) -> Result<(), OpError> {
        let kinds = self.kinds();
        if classes.len() != kinds.len() {
            return Err(OpError::Arity {
                given: classes.len(),
            });
        }
        let mut i = 0;
        while i < kinds.len() {
            if let Err(e) = kinds[i].accepts(classes[i], i) {
                return Err(e);
            }
            i += 1;
        }
        Ok(())
    }

    /// `true` when the result is an integer rather than a layout (`max_common_vector`, and
    /// the predicates, whose 1 or 0 is CuTe's integral constant).
    pub const fn gives_int(self) -> bool {
        self.int_result()
    }
}

/// Evaluate an entry whose result is a layout, for code that has already checked the argument
/// classes with [`Op::check`] (the `layout!` macro's run-time path, the static layer).
///
/// # Errors
/// The rule the operation broke. An argument misuse (which [`Op::check`] rules out) or an entry
/// whose result is an integer is reported as [`LayoutError::Precondition`] naming the argument
/// (its position from 1 and the number of arguments).
pub const fn apply_layout(op: Op, args: &[Arg]) -> Result<DynLayout, LayoutError> {
    match op.apply(args) {
        Ok(Value::Layout(l)) => Ok(l),
        Ok(Value::Int(_)) => Err(LayoutError::Precondition {
            what: "this operation gives an integer where a layout is needed (it was called with {b} arguments)",
            a: 0,
            b: args.len() as i64,
        }),
        Err(e) => Err(misuse(e, args.len())),
    }
}

/// As [`apply_layout`] for an entry whose result is an integer (`max_common_vector`).
///
/// # Errors
/// As [`apply_layout`].
pub const fn apply_int(op: Op, args: &[Arg]) -> Result<i64, LayoutError> {
    match op.apply(args) {
        Ok(Value::Int(v)) => Ok(v),
        Ok(Value::Layout(_)) => Err(LayoutError::Precondition {
            what: "this operation gives a layout where an integer is needed (it was called with {b} arguments)",
            a: 0,
            b: args.len() as i64,
        }),
        Err(e) => Err(misuse(e, args.len())),
    }
}

const fn misuse(e: OpError, nargs: usize) -> LayoutError {
    match e {
        OpError::Refused(e) => e,
        OpError::Argument { index, .. } | OpError::BareShapeTiler { index } => {
            LayoutError::Precondition {
                what: "argument {a} of {b} is not of the kind the operation takes",
                a: index as i64 + 1,
                b: nargs as i64,
            }
        }
        OpError::Arity { given } => LayoutError::Precondition {
            what: "the operation does not take {a} arguments",
            a: given as i64,
            b: nargs as i64,
        },
        OpError::Unknown => LayoutError::Precondition {
            what: "unknown operation (called with {b} arguments)",
            a: 0,
            b: nargs as i64,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_arities_are_unique() {
        for (i, a) in Op::ALL.iter().enumerate() {
            for b in &Op::ALL[..i] {
                assert!(
                    a.name() != b.name() || a.kinds().len() != b.kinds().len(),
                    "{a:?} and {b:?}"
                );
            }
            assert_eq!(Op::lookup(a.name(), a.kinds().len()), Ok(*a));
        }
        assert_eq!(Op::lookup("nope", 1), Err(OpError::Unknown));
        assert_eq!(
            Op::lookup("composition", 3),
            Err(OpError::Arity { given: 3 })
        );
    }

    #[test]
    fn one_rule_per_kind() {
        let shape = Arg::Shape("(4,8)".parse().unwrap());
        let int = Arg::Shape(DynTuple::leaf(4));
        let a = Arg::Layout("(12,32):(1,12)".parse().unwrap());
        assert_eq!(
            Op::ZippedDivide.apply(&[a, shape]),
            Err(OpError::BareShapeTiler { index: 1 })
        );
        assert_eq!(
            Op::ZippedDivide.check(&[Class::Layout, Class::Shape]),
            Err(OpError::BareShapeTiler { index: 1 })
        );
        // an integer tiler is the 1-D layout N:1
        assert_eq!(
            Op::LogicalDivide.apply(&[a, int]),
            Op::LogicalDivide.apply(&[a, Arg::Layout("4:1".parse().unwrap())])
        );
        // a bare shape is a layout where a layout is expected
        assert_eq!(
            Op::Coalesce.apply(&[shape]),
            Ok(Value::Layout("32:1".parse().unwrap()))
        );
        assert_eq!(
            Op::Upcast.apply(&[a, shape]),
            Err(OpError::Argument {
                index: 1,
                expected: "an integer"
            })
        );
    }

    #[test]
    fn unchecked_entry_points_name_the_misuse() {
        let a = Arg::Layout("(4,8):(1,4)".parse().unwrap());
        let shape = Arg::Shape("(2,2)".parse().unwrap());
        assert!(matches!(
            apply_layout(Op::Upcast, &[a, shape]),
            Err(LayoutError::Precondition { a: 2, b: 2, .. })
        ));
        assert!(matches!(
            apply_int(Op::Coalesce, &[a]),
            Err(LayoutError::Precondition { a: 0, b: 1, .. })
        ));
        assert!(matches!(
            apply_layout(Op::Coalesce, &[a, a, a]),
            Err(LayoutError::Precondition { a: 3, b: 3, .. })
        ));
        assert_eq!(apply_int(Op::MaxCommonVector, &[a, a]), Ok(32));
        // a refused operation keeps its own error
        assert!(matches!(
            apply_layout(Op::Upcast, &[a, Arg::Shape(DynTuple::leaf(3))]),
            Err(e) if !matches!(e, LayoutError::Precondition { b: 2, a: 2, .. })
        ));
    }
}
