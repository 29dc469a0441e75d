//! [`Layout<S, D>`]: a shape and a stride whose structure (and static values) live in types.

use crate::int::ToDynInt;
use crate::int_tuple::{IntTuple, for_tuple_arities};
use crate::mode_access::{Append, Get, Prepend};
use crate::{DynLayout, DynTuple, Int, Integer, LayoutError};
use core::fmt;

/// A shape `Self` congruent with the stride `D`: same nesting, integer against integer.
///
/// This is the type-level form of congruence; `layout!` checks it first with a spanned message.
#[diagnostic::on_unimplemented(
    message = "shape `{Self}` and stride `{D}` are not congruent",
    label = "the shape and the stride must have the same nesting",
    note = "every integer of the shape pairs with one integer of the stride, tuple with tuple"
)]
pub trait Congruent<D: IntTuple>: IntTuple {
    /// The offset of 1-D index `i`: colexicographic, the last leaf takes the undivided quotient.
    fn index_offset(&self, stride: &D, i: i64) -> i64;
}

impl<S: Integer + IntTuple, D: Integer + IntTuple> Congruent<D> for S {
    #[inline(always)]
    fn index_offset(&self, stride: &D, i: i64) -> i64 {
        i * stride.value()
    }
}

/// Seals [`Coord`] and the tensor's `InDomain`: safe tensor access trusts their offsets and
/// domain checks, so only this crate's coordinate types (integers, `Int<N>`, tuples of them)
/// implement them.
pub(crate) mod coord_sealed {
    /// A coordinate type of this crate.
    pub trait Sealed {}
    macro_rules! sealed {
        ($($t:ty),*) => {$(impl Sealed for $t {})*};
    }
    sealed!(i32, i64, u32, usize, isize);
    impl<const N: i64> Sealed for crate::Int<N> {}
    macro_rules! sealed_tuple {
        ($last:tt; $(($T:ident $S:ident $D:ident $C:ident $i:tt))+) => {
            impl<$($C: Sealed),+> Sealed for ($($C,)+) {}
        };
    }
    crate::int_tuple::for_tuple_arities!(sealed_tuple);
}

/// A coordinate of a layout with shape `S` and stride `D`: a 1-D index (any integer), a tuple of
/// per-mode coordinates, or a fully hierarchical coordinate, in any mix.
///
/// Sealed: tensors trust its offsets, so only this crate's coordinate types implement it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a coordinate for a layout of shape `{S}`",
    label = "expected an integer, or a tuple with one coordinate per mode of the shape",
    note = "a coordinate is an integer (a 1-D index into the mode) or a tuple as deep as the shape"
)]
pub trait Coord<S: Congruent<D>, D: IntTuple>: coord_sealed::Sealed {
    /// The offset of this coordinate.
    fn offset_in(&self, shape: &S, stride: &D) -> i64;
}

macro_rules! int_coord {
    ($($t:ty),*) => {$(
        impl<S: Congruent<D>, D: IntTuple> Coord<S, D> for $t {
            #[inline(always)]
            fn offset_in(&self, shape: &S, stride: &D) -> i64 {
                shape.index_offset(stride, self.to_dyn_int())
            }
        }
    )*};
}
int_coord!(i32, i64, u32, usize, isize);

impl<S: Congruent<D>, D: IntTuple, const N: i64> Coord<S, D> for Int<N> {
    #[inline(always)]
    fn offset_in(&self, shape: &S, stride: &D) -> i64 {
        shape.index_offset(stride, N)
    }
}

/// A coordinate written as Rust values — an integer (a 1-D index), an `Int<N>`, or a tuple of
/// coordinates nested like the shape, in any mix — read as a run-time [`DynTuple`]: the same
/// forms [`Layout::offset`] takes, for layouts whose shape is only known at run time
/// ([`DynLayout::offset_of`], tensors over a `DynLayout`).
///
/// ```
/// use layout::{DynLayout, ToDynCoord};
/// let l: DynLayout = "(3,(2,3)):(3,(12,1))".parse().unwrap();
/// assert_eq!(l.offset_of(&(1, (1, 2)).to_dyn_coord().unwrap()), Ok(17));
/// assert_eq!(l.offset_of(&(1, 5).to_dyn_coord().unwrap()), Ok(17));
/// ```
///
/// Sealed, like [`Coord`].
pub trait ToDynCoord: coord_sealed::Sealed {
    /// The coordinate as a run-time tuple.
    ///
    /// # Errors
    /// [`LayoutError::TooManyLeaves`] / [`LayoutError::TooComplex`] past a run-time tuple's
    /// capacity.
    fn to_dyn_coord(&self) -> Result<DynTuple, LayoutError>;
}

macro_rules! int_to_dyn_coord {
    ($($t:ty),*) => {$(
        impl ToDynCoord for $t {
            #[inline]
            fn to_dyn_coord(&self) -> Result<DynTuple, LayoutError> {
                Ok(DynTuple::leaf(self.to_dyn_int()))
            }
        }
    )*};
}
int_to_dyn_coord!(i32, i64, u32, usize, isize);

impl<const N: i64> ToDynCoord for Int<N> {
    #[inline]
    fn to_dyn_coord(&self) -> Result<DynTuple, LayoutError> {
        Ok(DynTuple::leaf(N))
    }
}

macro_rules! tuple_to_dyn_coord {
    ($last:tt; $(($T:ident $S:ident $D:ident $C:ident $i:tt))+) => {
        impl<$($C: ToDynCoord),+> ToDynCoord for ($($C,)+) {
            fn to_dyn_coord(&self) -> Result<DynTuple, LayoutError> {
                let mut t = DynTuple::EMPTY;
                $(t.push_mode(&self.$i.to_dyn_coord()?)?;)+
                Ok(t)
            }
        }
    };
}
for_tuple_arities!(tuple_to_dyn_coord);

macro_rules! impl_tuple_layout {
    ($last:tt; $(($T:ident $S:ident $D:ident $C:ident $i:tt))+) => {
        impl<$($S: Congruent<$D>, $D: IntTuple),+> Congruent<($($D,)+)> for ($($S,)+) {
            #[inline(always)]
            fn index_offset(&self, stride: &($($D,)+), i: i64) -> i64 {
                let mut rest = i;
                let mut off = 0;
                $(
                    if $i == $last {
                        off += self.$i.index_offset(&stride.$i, rest);
                    } else {
                        let s = self.$i.size();
                        off += self.$i.index_offset(&stride.$i, rest % s);
                        rest /= s;
                    }
                )+
                let _ = rest;
                off
            }
        }

        impl<$($S: Congruent<$D>, $D: IntTuple, $C: Coord<$S, $D>),+>
            Coord<($($S,)+), ($($D,)+)> for ($($C,)+)
        {
            #[inline(always)]
            fn offset_in(&self, shape: &($($S,)+), stride: &($($D,)+)) -> i64 {
                0 $(+ self.$i.offset_in(&shape.$i, &stride.$i))+
            }
        }
    };
}

for_tuple_arities!(impl_tuple_layout);

/// A layout: the function from coordinates to offsets given by a shape `S` and a congruent
/// stride `D`, both typed integer tuples.
///
/// Static leaves are [`Int<N>`], dynamic leaves `i64`. A fully static layout is a zero-sized type
/// whose offset function compiles to constants. Usually written with the `layout!` macro; by hand:
///
/// ```
/// use layout::{Int, Layout};
/// let l = Layout::new((Int::<2>, Int::<3>), (Int::<1>, Int::<2>));
/// assert_eq!(core::mem::size_of_val(&l), 0);
/// assert_eq!(l.offset((1, 2)), 5);   // per-mode coordinate
/// assert_eq!(l.offset(5), 5);        // 1-D index
/// assert_eq!(l.to_string(), "(_2,_3):(_1,_2)");
///
/// let rows = 6i64;
/// let m = Layout::new((Int::<2>, rows / 2), (rows / 2, Int::<1>)); // mixed, row-major 2 x 3
/// assert_eq!(m.offset((1, 0)), 3);
/// assert_eq!(m.to_string(), "(_2,3):(3,_1)");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Layout<S, D> {
    shape: S,
    stride: D,
}

impl<S: Congruent<D>, D: IntTuple> Layout<S, D> {
    /// The size when the shape is fully static, computed at compile time.
    pub const STATIC_SIZE: Option<i64> = S::STATIC_SIZE;

    /// The layout as a run-time value when shape and stride are fully static, computed at
    /// compile time (a compile error if the static values are invalid, e.g. a zero extent).
    pub const STATIC: Option<DynLayout> = match (S::STATIC, D::STATIC) {
        (Some(s), Some(d)) => match DynLayout::new(&s, &d) {
            Ok(l) => Some(l),
            Err(_) => {
                panic!("invalid static layout: zero or negative extent, or size/cosize overflow")
            }
        },
        _ => None,
    };

    /// The cosize when the layout is fully static, computed at compile time.
    pub const STATIC_COSIZE: Option<i64> = match Self::STATIC {
        Some(l) => Some(l.cosize()),
        None => None,
    };

    /// A layout from its parts. Dynamic leaves are not checked here; use [`Layout::try_new`] (or
    /// [`Layout::to_dyn`], which every consumer of a layout calls) to validate them.
    #[inline(always)]
    pub const fn new(shape: S, stride: D) -> Self {
        Layout { shape, stride }
    }

    /// A layout from its parts, validated: positive extents, and size, cosize and every offset of
    /// the domain within `i64`.
    ///
    /// ```
    /// use layout::{Int, Layout, LayoutError};
    /// let bad = Layout::try_new((Int::<4>, 0i64), (Int::<1>, Int::<4>));
    /// assert_eq!(bad, Err(LayoutError::NonPositiveExtent { leaf: 1, extent: 0 }));
    /// ```
    ///
    /// # Errors
    /// See [`DynLayout::new`].
    pub fn try_new(shape: S, stride: D) -> Result<Self, LayoutError> {
        let l = Layout { shape, stride };
        l.to_dyn()?;
        Ok(l)
    }

    /// The shape.
    #[inline(always)]
    pub fn shape(&self) -> S {
        self.shape
    }

    /// The stride.
    #[inline(always)]
    pub fn stride(&self) -> D {
        self.stride
    }

    /// Number of top-level modes.
    #[inline(always)]
    pub const fn rank(&self) -> usize {
        S::RANK
    }

    /// Nesting depth of the shape.
    #[inline(always)]
    pub const fn depth(&self) -> usize {
        S::DEPTH
    }

    /// Number of elements of the domain (plain arithmetic; validated layouts cannot overflow).
    #[inline(always)]
    pub fn size(&self) -> i64 {
        match S::STATIC_SIZE {
            Some(s) => s,
            None => self.shape.size(),
        }
    }

    /// CuTe's cosize, `1 + Σ (sᵢ-1)·|dᵢ|`.
    ///
    /// # Errors
    /// When dynamic leaves make the layout invalid (see [`Layout::try_new`]).
    pub fn cosize(&self) -> Result<i64, LayoutError> {
        match Self::STATIC_COSIZE {
            Some(c) => Ok(c),
            None => Ok(self.to_dyn()?.cosize()),
        }
    }

    /// The offset of a coordinate: a 1-D index, a per-mode tuple, or a hierarchical tuple.
    ///
    /// Coordinates are not range-checked (a layout is a function on all of ℤ≥0 that extends past
    /// `size` through its last mode, as in CuTe); tensors check before they touch memory.
    #[inline(always)]
    #[doc(alias = "crd2idx")]
    pub fn offset<C: Coord<S, D>>(&self, coord: C) -> i64 {
        coord.offset_in(&self.shape, &self.stride)
    }

    /// Mode `I` as a layout, keeping static values static (CuTe's `get<I>` / `layout<I>`).
    ///
    /// ```
    /// use layout::{Int, Layout};
    /// let l = Layout::new((Int::<3>, (Int::<2>, Int::<3>)), (Int::<3>, (Int::<12>, Int::<1>)));
    /// assert_eq!(l.get::<1>().to_string(), "(_2,_3):(_12,_1)");
    /// ```
    #[inline(always)]
    pub fn get<const I: usize>(&self) -> Layout<<S as Get<I>>::Out, <D as Get<I>>::Out>
    where
        S: Get<I>,
        D: Get<I>,
        <S as Get<I>>::Out: Congruent<<D as Get<I>>::Out>,
    {
        Layout::new(self.shape.get(), self.stride.get())
    }

    /// Add `mode` as a new last mode (an integer-shaped layout becomes rank 2), keeping static
    /// values static (CuTe's `append`).
    ///
    /// ```
    /// use layout::{Int, Layout};
    /// let a = Layout::new(Int::<3>, Int::<1>);
    /// assert_eq!(a.append(Layout::new(Int::<4>, Int::<3>)).to_string(), "(_3,_4):(_1,_3)");
    /// ```
    #[inline(always)]
    pub fn append<S2: Congruent<D2>, D2: IntTuple>(
        &self,
        mode: Layout<S2, D2>,
    ) -> Layout<<S as Append<S2>>::Out, <D as Append<D2>>::Out>
    where
        S: Append<S2>,
        D: Append<D2>,
        <S as Append<S2>>::Out: Congruent<<D as Append<D2>>::Out>,
    {
        Layout::new(
            self.shape.append(mode.shape),
            self.stride.append(mode.stride),
        )
    }

    /// Add `mode` as a new first mode, keeping static values static (CuTe's `prepend`).
    #[inline(always)]
    pub fn prepend<S2: Congruent<D2>, D2: IntTuple>(
        &self,
        mode: Layout<S2, D2>,
    ) -> Layout<<S as Prepend<S2>>::Out, <D as Prepend<D2>>::Out>
    where
        S: Prepend<S2>,
        D: Prepend<D2>,
        <S as Prepend<S2>>::Out: Congruent<<D as Prepend<D2>>::Out>,
    {
        Layout::new(
            self.shape.prepend(mode.shape),
            self.stride.prepend(mode.stride),
        )
    }

    /// The layout of the listed top-level modes (CuTe's `select`), as a run-time layout.
    /// Grouping and flattening work the same way: see [`DynLayout::group`], [`DynLayout::flatten`].
    ///
    /// # Errors
    /// A mode index past the rank, or an invalid layout (see [`Layout::try_new`]).
    pub fn select(&self, modes: &[usize]) -> Result<DynLayout, LayoutError> {
        self.to_dyn()?.select(modes)
    }

    /// The run-time form of this layout, validated.
    ///
    /// # Errors
    /// See [`DynLayout::new`].
    pub fn to_dyn(&self) -> Result<DynLayout, LayoutError> {
        if let Some(l) = Self::STATIC {
            return Ok(l);
        }
        DynLayout::new(&self.shape.to_dyn(), &self.stride.to_dyn())
    }
}

impl<S: Congruent<D>, D: IntTuple> fmt::Display for Layout<S, D> {
    /// CuTe's text: `(_2,_3):(_1,_2)` — static leaves with `_`, dynamic ones without.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shape.write(f)?;
        f.write_str(":")?;
        self.stride.write(f)
    }
}

impl<S: Congruent<D>, D: IntTuple> fmt::Debug for Layout<S, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// The offset of `coord` in `layout` (CuTe's `crd2idx(coord, shape, stride)`, or `layout(coord)`):
/// a free-function spelling of [`Layout::offset`].
///
/// ```
/// use layout::{offset, Int, Layout};
/// let l = Layout::new((Int::<4>, Int::<8>), (Int::<8>, Int::<1>));
/// assert_eq!(offset(&l, (2, 5)), 21);
/// ```
#[inline(always)]
pub fn offset<S: Congruent<D>, D: IntTuple, C: Coord<S, D>>(
    layout: &Layout<S, D>,
    coord: C,
) -> i64 {
    layout.offset(coord)
}

/// A layout whose every value is known at compile time: a zero-sized type whose run-time form is
/// an associated const. Algebra results on static layouts implement this trait too.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a fully static layout",
    label = "this layout has dynamic parts",
    note = "write every shape and stride leaf as a literal or `Int<N>` to make it static"
)]
pub trait StaticLayout: Copy + Default + 'static {
    /// The layout's value, computed at compile time.
    const LAYOUT: DynLayout;
}

impl<S: Congruent<D>, D: IntTuple> StaticLayout for Layout<S, D> {
    const LAYOUT: DynLayout = match Self::STATIC {
        Some(l) => l,
        None => panic!("this layout has dynamic parts"),
    };
}
