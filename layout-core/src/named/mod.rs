//! Named layouts of the field, as ordinary layouts of this crate.
//!
//! Every format here is a hierarchical [`DynLayout`] computed once by a
//! `const fn` (so it prints in CuTe's text, composes, divides, inverts, feeds tensors and
//! copies), with two front ends over that one function:
//!
//! - run-time constructors with the names kernel writers know, Rust-cased
//!   ([`make_nz_layout::<f16>(m, n)`](ascend::make_nz_layout), …), returning `Result`;
//! - zero-sized static types for const-generic extents ([`Nz<f16, M, N>`](ascend::Nz), …)
//!   whose value is an associated const ([`StaticLayout::LAYOUT`](crate::StaticLayout)) computed
//!   by the same `const fn`, like the static algebra results; a rule broken by static input
//!   fails compilation (when the type's layout is used) with the rule's text.
//!
//! Families:
//! - [`ascend`]: Ascend C fractal layouts NZ, ZN, ZZ, NN, the two-level row/column-major forms
//!   (`NDExt`/`DNExt`) and the L0C accumulator layout, for element types whose C0 is
//!   `32 bytes / size` ([`C0Element`]);
//! - [`padded`]: a layout whose domain is rounded up (to whole fractals, whole channel blocks)
//!   together with the logical extents, which knows its padding and copies ND data in (filling
//!   the padding) and out (cropping it);
//! - [`banks`]: CuTe's GMMA/UMMA shared-memory swizzle atoms per element type, a bank-conflict
//!   report for row-wise and column-wise vector accesses to a tile, and a swizzle suggestion;
//! - [`blocked`]: oneDNN blocked formats (`nChw8c`, `nChw16c`, `OIhw16i16o`), Ascend NC1HWC0 and
//!   CUTLASS 2.x `RowMajorInterleaved<N>` / `ColumnMajorInterleaved<N>`;
//! - [`tensor_op`]: CUTLASS 2.x `TensorOpMultiplicand` (the congruous and crosswise tensor-op
//!   shared-memory layouts) as a hierarchical layout composed with a swizzle.
//!
//! Named layouts are built from the algebra's types and sit above tensors in the crate's layers
//! (their copy helpers use tensors); tensors take them like any other layout without knowing
//! them.
//!
//! ```
//! use layout::named::{make_nz_layout, Nz};
//! use layout::{AnyLayout, StaticLayout};
//! use layout::named::f16;
//! let nz = make_nz_layout::<f16>(32, 64).unwrap();
//! assert_eq!(nz.to_string(), "((16,2),(16,4)):((16,256),(1,512))");
//! fn tile<const M: i64, const N: i64>() -> Nz<f16, M, N> {
//!     Nz::default()
//! }
//! let s = tile::<32, 64>();
//! assert_eq!(core::mem::size_of_val(&s), 0);
//! assert_eq!(Nz::<f16, 32, 64>::LAYOUT, nz);
//! assert_eq!(s.to_string(), "((_16,_2),(_16,_4)):((_16,_256),(_1,_512))");
//! ```

pub mod ascend;
pub mod banks;
pub mod blocked;
pub mod padded;
pub mod tensor_op;

pub use ascend::{
    C0Element, DnExt, DnExtStrided, L0c, NdExt, NdExtStrided, Nn, Nz, NzStrided, U4, Zn, ZnStrided,
    Zz, ZzStrided, make_column_major_layout, make_l0c_layout, make_nn_layout, make_nz_layout,
    make_nz_layout_batched, make_row_major_layout, make_zn_layout, make_zn_layout_batched,
    make_zz_layout, make_zz_layout_batched,
};
/// The 16-bit float types whose C0 is 16 (re-exported from the `half` crate).
pub use half::{bf16, f16};
pub use padded::Padded;

use crate::algebra::ops::{Arg, Op, apply_layout};
use crate::{DynLayout, DynTuple, LayoutError};
use core::fmt;

/// A named layout's value from its entry of the operation table, given its integer arguments
/// (the first `op.kinds().len()` of `ints`, at most 6): the static types compute their
/// `LAYOUT` through the same entry the front ends evaluate.
pub(crate) const fn table(op: Op, ints: &[i64]) -> Result<DynLayout, LayoutError> {
    let mut args = [Arg::Shape(DynTuple::leaf(0)); 6];
    let n = op.kinds().len();
    let mut i = 0;
    while i < n && i < ints.len() && i < args.len() {
        args[i] = Arg::Shape(DynTuple::leaf(ints[i]));
        i += 1;
    }
    apply_layout(op, args.split_at(i).0)
}

/// Unwrap a named layout in a const, or fail compilation with the rule's text and its numbers.
pub(crate) const fn ok(r: Result<DynLayout, LayoutError>) -> DynLayout {
    match r {
        Ok(l) => l,
        Err(e) => {
            let m = e.const_message();
            panic!("{}", m.as_str())
        }
    }
}

/// Print a layout as CuTe prints a static one: every leaf `_N`.
pub(crate) fn write_static(f: &mut fmt::Formatter<'_>, l: &DynLayout) -> fmt::Result {
    let mut leaf = |f: &mut fmt::Formatter<'_>, _: usize, v: i64| write!(f, "_{v}");
    crate::tuple::write_profiled(f, l.profile(), l.shape_leaves(), &mut leaf)?;
    f.write_str(":")?;
    crate::tuple::write_profiled(f, l.profile(), l.stride_leaves(), &mut leaf)
}

/// A zero-sized static named layout: `StaticLayout`, `AnyLayout`, `Display`, tensor indexing
/// by axis coordinates, all reading one associated const.
macro_rules! named_zst {
    (
        $(#[$doc:meta])*
        $name:ident [$($gen:tt)*] [$($args:tt)*] ($($ph:ty),*) => $val:expr
    ) => {
        $(#[$doc])*
        pub struct $name<$($gen)*>(core::marker::PhantomData<fn() -> ($($ph,)*)>);

        impl<$($gen)*> Clone for $name<$($args)*> {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl<$($gen)*> Copy for $name<$($args)*> {}
        impl<$($gen)*> Default for $name<$($args)*> {
            fn default() -> Self {
                $name(core::marker::PhantomData)
            }
        }
        impl<$($gen)*> $crate::StaticLayout for $name<$($args)*> {
            const LAYOUT: $crate::DynLayout = $crate::named::ok($val);
        }
        impl<$($gen)*> $name<$($args)*> {
            /// The layout's value, computed at compile time (a broken rule fails compilation).
            pub const LAYOUT: $crate::DynLayout = <Self as $crate::StaticLayout>::LAYOUT;

            /// The value of this zero-sized layout (forces its compile-time evaluation).
            #[inline(always)]
            pub fn new() -> Self {
                let _ = Self::LAYOUT;
                Self::default()
            }
            /// The offset of 1-D index `i` (colexicographic), read from the compile-time
            /// value (constant-folded).
            #[inline(always)]
            pub const fn offset(&self, i: i64) -> i64 {
                Self::LAYOUT.offset(i)
            }
            /// The size of the (padded) domain.
            #[inline(always)]
            pub const fn size(&self) -> i64 {
                Self::LAYOUT.size()
            }
            /// The run-time value.
            #[inline(always)]
            pub const fn to_dyn(&self) -> $crate::DynLayout {
                Self::LAYOUT
            }
        }
        impl<$($gen)*> core::fmt::Display for $name<$($args)*> {
            /// CuTe's text for a static layout: `((_16,_2),(_16,_2)):((_16,_256),(_1,_512))`.
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                $crate::named::write_static(f, &Self::LAYOUT)
            }
        }
        impl<$($gen)*> core::fmt::Debug for $name<$($args)*> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                core::fmt::Display::fmt(self, f)
            }
        }
        // SAFETY: affine: every method reads the one compile-time `LAYOUT`.
        unsafe impl<$($gen)*> $crate::AnyLayout for $name<$($args)*> {
            const STATIC_LAYOUT: Option<$crate::DynLayout> = Some(<Self as $crate::StaticLayout>::LAYOUT);
            fn domain(&self) -> $crate::DynTuple {
                Self::LAYOUT.shape()
            }
            #[inline(always)]
            fn size(&self) -> i64 {
                Self::LAYOUT.size()
            }
            #[inline(always)]
            fn offset(&self, i: i64) -> i64 {
                Self::LAYOUT.offset(i)
            }
            fn to_dyn(&self) -> Result<$crate::DynLayout, $crate::LayoutError> {
                Ok(Self::LAYOUT)
            }
        }
        // SAFETY: delegates to the `DynLayout` implementation on the same layout value, whose
        // offsets are this layout's.
        unsafe impl<$($gen)*> $crate::tensor::TensorIndex<$name<$($args)*>> for &[i64] {
            #[inline]
            fn checked_offset(&self, _: &$name<$($args)*>) -> Option<i64> {
                $crate::tensor::TensorIndex::checked_offset(self, &<$name<$($args)*>>::LAYOUT)
            }
        }
        // SAFETY: delegates to the `DynLayout` implementation, as above.
        unsafe impl<const K: usize, $($gen)*> $crate::tensor::TensorIndex<$name<$($args)*>>
            for [i64; K]
        {
            #[inline]
            fn checked_offset(&self, _: &$name<$($args)*>) -> Option<i64> {
                $crate::tensor::TensorIndex::checked_offset(self, &<$name<$($args)*>>::LAYOUT)
            }
        }
    };
}
pub(crate) use named_zst;
