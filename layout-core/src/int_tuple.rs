//! Typed hierarchical integer tuples: leaves are [`Int<N>`] or `i64`, tuples are Rust tuples
//! `(A,)`, `(A, B)`, … up to arity 8, nested to any depth.
//!
//! When every leaf is static, the tuple's value is an associated const ([`IntTuple::STATIC`]),
//! computed by the same `const fn`s as run-time tuples ([`DynTuple`]).

use crate::tuple::{MAX_LEAVES, Profile};
use crate::{DynTuple, Int, Integer};
use core::fmt;

/// A hierarchical integer tuple whose structure is in its type.
///
/// ```
/// use layout::{Int, IntTuple};
/// type S = (Int<3>, (Int<2>, Int<3>));
/// assert_eq!(S::RANK, 2);
/// assert_eq!(S::DEPTH, 2);
/// assert_eq!(S::LEAVES, 3);
/// assert_eq!(S::STATIC_SIZE, Some(18)); // computed at compile time
/// let mixed = (Int::<3>, (2i64, Int::<3>));
/// assert_eq!(<(Int<3>, (i64, Int<3>)) as IntTuple>::STATIC_SIZE, None);
/// assert_eq!(mixed.size(), 18);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an integer tuple",
    label = "expected `Int<N>`, `i64`, or a tuple of those (arity 1 to 8)"
)]
pub trait IntTuple: Copy + Default + fmt::Debug + 'static {
    /// Number of top-level modes (1 for an integer).
    const RANK: usize;
    /// Nesting depth (0 for an integer).
    const DEPTH: usize;
    /// Number of leaves.
    const LEAVES: usize;
    /// The nesting structure, shared with the run-time representation.
    const PROFILE: Profile;
    /// `true` when every leaf is static.
    const IS_STATIC: bool;
    /// The leaf values, static ones filled in and dynamic ones 0 (the first `LEAVES` entries).
    #[doc(hidden)]
    const LEAF_VALUES: [i64; MAX_LEAVES];
    /// The value, when every leaf is static.
    const STATIC: Option<DynTuple> = if Self::IS_STATIC {
        Some(DynTuple::from_profile(
            Self::PROFILE,
            Self::LEAF_VALUES.split_at(Self::LEAVES).0,
        ))
    } else {
        None
    };
    /// The size (product of leaves), when every leaf is static. Fails to compile on overflow.
    const STATIC_SIZE: Option<i64> = match Self::STATIC {
        Some(t) => match t.size() {
            Ok(s) => Some(s),
            Err(_) => panic!("the size of this static tuple overflows i64"),
        },
        None => None,
    };

    /// Write the leaf values into `out[at..]`.
    fn write_leaves(&self, out: &mut [i64], at: usize);

    /// The product of the leaves (plain arithmetic; see [`DynTuple::size`] for a checked one).
    fn size(&self) -> i64;

    /// The run-time representation.
    fn to_dyn(&self) -> DynTuple {
        let mut v = [0i64; MAX_LEAVES];
        self.write_leaves(&mut v, 0);
        DynTuple::from_profile(Self::PROFILE, &v[..Self::LEAVES])
    }

    /// Write in CuTe's notation: `_N` for static leaves, `N` for dynamic ones.
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

impl<const N: i64> IntTuple for Int<N> {
    const RANK: usize = 1;
    const DEPTH: usize = 0;
    const LEAVES: usize = 1;
    const PROFILE: Profile = Profile::LEAF;
    const IS_STATIC: bool = true;
    const LEAF_VALUES: [i64; MAX_LEAVES] = {
        let mut v = [0; MAX_LEAVES];
        v[0] = N;
        v
    };

    #[inline(always)]
    fn write_leaves(&self, out: &mut [i64], at: usize) {
        out[at] = N;
    }

    #[inline(always)]
    fn size(&self) -> i64 {
        N
    }

    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Integer::write(self, f)
    }
}

impl IntTuple for i64 {
    const RANK: usize = 1;
    const DEPTH: usize = 0;
    const LEAVES: usize = 1;
    const PROFILE: Profile = Profile::LEAF;
    const IS_STATIC: bool = false;
    const LEAF_VALUES: [i64; MAX_LEAVES] = [0; MAX_LEAVES];

    #[inline(always)]
    fn write_leaves(&self, out: &mut [i64], at: usize) {
        out[at] = *self;
    }

    #[inline(always)]
    fn size(&self) -> i64 {
        *self
    }

    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        Integer::write(self, f)
    }
}

/// Profile of a tuple from its children's profiles; a compile error when too deep.
#[doc(hidden)]
pub const fn tuple_profile(children: &[Profile]) -> Profile {
    let mut p = Profile::EMPTY;
    let mut i = 0;
    while i < children.len() {
        if p.wrap_push(&children[i]).is_err() {
            panic!("this integer tuple is too deeply nested for a layout (see MAX_TOKENS)");
        }
        i += 1;
    }
    p
}

/// Leaf values of a tuple from its children's `(values, count)`; a compile error when too many.
#[doc(hidden)]
pub const fn tuple_leaf_values(children: &[([i64; MAX_LEAVES], usize)]) -> [i64; MAX_LEAVES] {
    let mut v = [0; MAX_LEAVES];
    let mut n = 0;
    let mut i = 0;
    while i < children.len() {
        let (vals, k) = children[i];
        if n + k > MAX_LEAVES {
            panic!("this integer tuple has more leaves than a layout supports (see MAX_LEAVES)");
        }
        let mut j = 0;
        while j < k {
            v[n + j] = vals[j];
            j += 1;
        }
        n += k;
        i += 1;
    }
    v
}

/// The most modes a typed tuple has: Rust tuples of arity 1 to `MAX_ARITY` are integer tuples,
/// coordinates and layouts. The macro crate's parser uses the same limit.
pub const MAX_ARITY: usize = 8;

/// The one list of tuple arities: calls `$cb!` once per arity `1..=MAX_ARITY` with the last
/// index and, per position, a group of fresh names `(T S D C i)` — a tuple type, a shape, a
/// stride, a coordinate and the field index — from which each implementation takes what it needs.
macro_rules! for_tuple_arities {
    ($cb:ident) => {
        $cb!(0; (A S0 D0 C0 0));
        $cb!(1; (A S0 D0 C0 0) (B S1 D1 C1 1));
        $cb!(2; (A S0 D0 C0 0) (B S1 D1 C1 1) (C S2 D2 C2 2));
        $cb!(3; (A S0 D0 C0 0) (B S1 D1 C1 1) (C S2 D2 C2 2) (D S3 D3 C3 3));
        $cb!(4; (A S0 D0 C0 0) (B S1 D1 C1 1) (C S2 D2 C2 2) (D S3 D3 C3 3) (E S4 D4 C4 4));
        $cb!(5; (A S0 D0 C0 0) (B S1 D1 C1 1) (C S2 D2 C2 2) (D S3 D3 C3 3) (E S4 D4 C4 4) (F S5 D5 C5 5));
        $cb!(6; (A S0 D0 C0 0) (B S1 D1 C1 1) (C S2 D2 C2 2) (D S3 D3 C3 3) (E S4 D4 C4 4) (F S5 D5 C5 5) (G S6 D6 C6 6));
        $cb!(7; (A S0 D0 C0 0) (B S1 D1 C1 1) (C S2 D2 C2 2) (D S3 D3 C3 3) (E S4 D4 C4 4) (F S5 D5 C5 5) (G S6 D6 C6 6) (H S7 D7 C7 7));
    };
}
pub(crate) use for_tuple_arities;

macro_rules! impl_tuple {
    ($last:tt; $(($T:ident $S:ident $D:ident $C:ident $i:tt))+) => {
        impl<$($T: IntTuple),+> IntTuple for ($($T,)+) {
            const RANK: usize = [$($i),+].len();
            const DEPTH: usize = {
                let mut d = 0;
                $( if $T::DEPTH > d { d = $T::DEPTH; } )+
                d + 1
            };
            const LEAVES: usize = 0 $(+ $T::LEAVES)+;
            const PROFILE: Profile = tuple_profile(&[$($T::PROFILE),+]);
            const IS_STATIC: bool = true $(&& $T::IS_STATIC)+;
            const LEAF_VALUES: [i64; MAX_LEAVES] =
                tuple_leaf_values(&[$(($T::LEAF_VALUES, $T::LEAVES)),+]);

            #[inline(always)]
            fn write_leaves(&self, out: &mut [i64], at: usize) {
                let mut at = at;
                $( self.$i.write_leaves(out, at); at += $T::LEAVES; )+
                let _ = at;
            }

            #[inline(always)]
            fn size(&self) -> i64 {
                1 $(* self.$i.size())+
            }

            fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("(")?;
                $(
                    if $i > 0 { f.write_str(",")?; }
                    self.$i.write(f)?;
                )+
                f.write_str(")")
            }
        }
    };
}

for_tuple_arities!(impl_tuple);

// the arity list ends at MAX_ARITY
const _: () = assert!(<(i64, i64, i64, i64, i64, i64, i64, i64) as IntTuple>::RANK == MAX_ARITY);
