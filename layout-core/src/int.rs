//! Static and dynamic integers.
//!
//! A *static* integer carries its value in its type ([`Int<N>`], a zero-sized type); a *dynamic*
//! integer is an ordinary `i64`. The [`Integer`] trait covers both; its associated const
//! [`Integer::STATIC`] is `Some(value)` exactly when the value is known at compile time.

use core::fmt;

/// A static integer: the value `N` lives in the type, the value itself is zero-sized.
///
/// Printed as CuTe prints static integers, with a leading underscore:
///
/// ```
/// use layout::{Int, Integer};
/// assert_eq!(core::mem::size_of::<Int<16>>(), 0);
/// assert_eq!(Int::<16>.value(), 16);
/// assert_eq!(<Int<16> as Integer>::STATIC, Some(16));
/// assert_eq!(Int::<16>.to_string(), "_16");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Int<const N: i64>;

impl<const N: i64> Int<N> {
    /// The value.
    pub const VALUE: i64 = N;

    /// The value, as a method.
    #[inline(always)]
    pub const fn get(self) -> i64 {
        N
    }
}

impl<const N: i64> fmt::Debug for Int<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "_{N}")
    }
}

impl<const N: i64> fmt::Display for Int<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "_{N}")
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for i64 {}
    impl<const N: i64> Sealed for super::Int<N> {}
}

/// An integer that is either static ([`Int<N>`]) or dynamic (`i64`).
///
/// ```
/// use layout::{Int, Integer};
/// fn describe<I: Integer>(i: I) -> String {
///     match I::STATIC {
///         Some(v) => format!("static {v}"),
///         None => format!("dynamic {}", i.value()),
///     }
/// }
/// assert_eq!(describe(Int::<4>), "static 4");
/// assert_eq!(describe(7i64), "dynamic 7");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a layout integer",
    label = "expected `Int<N>` (static) or `i64` (dynamic)",
    note = "layout leaves are `Int<N>` for values known at compile time and `i64` otherwise"
)]
pub trait Integer: sealed::Sealed + Copy + Default + fmt::Debug + 'static {
    /// `Some(value)` when the value is known at compile time.
    const STATIC: Option<i64>;

    /// The value.
    fn value(&self) -> i64;

    /// Write as CuTe prints it: `_N` when static, `N` when dynamic.
    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
}

impl<const N: i64> Integer for Int<N> {
    const STATIC: Option<i64> = Some(N);

    #[inline(always)]
    fn value(&self) -> i64 {
        N
    }

    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "_{N}")
    }
}

impl Integer for i64 {
    const STATIC: Option<i64> = None;

    #[inline(always)]
    fn value(&self) -> i64 {
        *self
    }

    fn write(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// Conversion of the integer types users write in `layout!` dynamic leaves into `i64`.
///
/// Unsigned values above `i64::MAX` saturate to `i64::MAX`, which every later check (size,
/// cosize, buffer bounds) then rejects; nothing wraps around silently.
pub trait ToDynInt: Copy {
    /// The value as `i64` (saturating).
    fn to_dyn_int(self) -> i64;
}

macro_rules! to_dyn_lossless {
    ($($t:ty),*) => {$(
        impl ToDynInt for $t {
            #[inline(always)]
            fn to_dyn_int(self) -> i64 { i64::from(self) }
        }
    )*};
}
to_dyn_lossless!(i8, i16, i32, i64, u8, u16, u32);

macro_rules! to_dyn_saturating {
    ($($t:ty),*) => {$(
        impl ToDynInt for $t {
            #[inline(always)]
            fn to_dyn_int(self) -> i64 { i64::try_from(self).unwrap_or(i64::MAX) }
        }
    )*};
}
to_dyn_saturating!(isize, usize, u64);

impl<const N: i64> ToDynInt for Int<N> {
    #[inline(always)]
    fn to_dyn_int(self) -> i64 {
        N
    }
}
