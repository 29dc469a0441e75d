//! Type-level mode access on typed tuples: `get::<I>()`, `append`, `prepend` keep static values
//! static, for tuples of arity 1 to 8.

use crate::Int;
use crate::IntTuple;

/// Mode `I` of a typed tuple (for an integer, mode 0 is the integer itself).
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no mode {I}",
    label = "mode index out of range for this tuple"
)]
pub trait Get<const I: usize>: IntTuple {
    /// The type of mode `I`.
    type Out: IntTuple;
    /// Mode `I`.
    fn get(&self) -> Self::Out;
}

/// Append one mode: `(a,b) ++ x = (a,b,x)`; an integer `a` becomes `(a,x)`.
#[diagnostic::on_unimplemented(message = "cannot append a mode to `{Self}` (at most 8 modes)")]
pub trait Append<X: IntTuple>: IntTuple {
    /// The result type.
    type Out: IntTuple;
    /// The tuple with `x` as its new last mode.
    fn append(self, x: X) -> Self::Out;
}

/// Prepend one mode: `x ++ (a,b) = (x,a,b)`; an integer `a` becomes `(x,a)`.
#[diagnostic::on_unimplemented(message = "cannot prepend a mode to `{Self}` (at most 8 modes)")]
pub trait Prepend<X: IntTuple>: IntTuple {
    /// The result type.
    type Out: IntTuple;
    /// The tuple with `x` as its new first mode.
    fn prepend(self, x: X) -> Self::Out;
}

impl<const N: i64> Get<0> for Int<N> {
    type Out = Self;
    #[inline(always)]
    fn get(&self) -> Self {
        *self
    }
}

impl Get<0> for i64 {
    type Out = Self;
    #[inline(always)]
    fn get(&self) -> Self {
        *self
    }
}

impl<const N: i64, X: IntTuple> Append<X> for Int<N> {
    type Out = (Self, X);
    #[inline(always)]
    fn append(self, x: X) -> Self::Out {
        (self, x)
    }
}

impl<X: IntTuple> Append<X> for i64 {
    type Out = (Self, X);
    #[inline(always)]
    fn append(self, x: X) -> Self::Out {
        (self, x)
    }
}

impl<const N: i64, X: IntTuple> Prepend<X> for Int<N> {
    type Out = (X, Self);
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Out {
        (x, self)
    }
}

impl<X: IntTuple> Prepend<X> for i64 {
    type Out = (X, Self);
    #[inline(always)]
    fn prepend(self, x: X) -> Self::Out {
        (x, self)
    }
}

/// `Get<I>` for every index of one tuple arity, and `Append`/`Prepend` when the arity is below 8.
/// `$all` is the whole list of type parameters, passed as one token tree so it can be repeated
/// inside the per-index repetition.
macro_rules! tuple_modes {
    ($last:tt; $(($T:ident $S:ident $D:ident $C:ident $i:tt))+) => {
        tuple_modes!(@get [$($T)+] $($i $T)+);
        tuple_modes!(@grow_below_max $last [$($T)+] $($i)+);
    };
    // the largest arity cannot grow
    (@grow_below_max 7 $($rest:tt)*) => {};
    (@grow_below_max $last:tt $($rest:tt)*) => {
        tuple_modes!(@grow $($rest)*);
    };
    (@get $all:tt $($i:tt $T:ident)+) => {
        $( tuple_modes!(@get_one $all $i $T); )+
    };
    (@get_one [$($G:ident)+] $i:tt $T:ident) => {
        impl<$($G: IntTuple),+> Get<$i> for ($($G,)+) {
            type Out = $T;
            #[inline(always)]
            fn get(&self) -> $T {
                self.$i
            }
        }
    };
    (@grow [$($G:ident)+] $($i:tt)+) => {
        impl<$($G: IntTuple,)+ X: IntTuple> Append<X> for ($($G,)+) {
            type Out = ($($G,)+ X);
            #[inline(always)]
            fn append(self, x: X) -> Self::Out {
                ($(self.$i,)+ x)
            }
        }

        impl<$($G: IntTuple,)+ X: IntTuple> Prepend<X> for ($($G,)+) {
            type Out = (X, $($G,)+);
            #[inline(always)]
            fn prepend(self, x: X) -> Self::Out {
                (x, $(self.$i,)+)
            }
        }
    };
}

crate::int_tuple::for_tuple_arities!(tuple_modes);
