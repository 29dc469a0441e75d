//! Element access and iteration.

use super::{Storage, StorageMut, Tensor};
use crate::layout::{Congruent, Coord};
use crate::walk::Axes;
use crate::walk::{Plan, PlanIter};
use crate::{
    AnyLayout, DynLayout, DynTuple, Int, IntTuple, Integer, Layout, SwizzleFn, SwizzledLayout,
    ToDynCoord, ToDynInt,
};
use core::marker::PhantomData;

/// A coordinate that can say whether it lies in the domain of a typed shape `S`.
///
/// An integer is a 1-D index into the whole (sub)shape: it must lie in `[0, size)`; a tuple is
/// checked mode by mode. Together with [`Coord`] this gives checked element access on typed
/// layouts; for static shapes and constant coordinates the check folds away.
///
/// Sealed (like [`Coord`]): safe element access trusts it.
pub trait InDomain<S>: crate::layout::coord_sealed::Sealed {
    /// `true` when the coordinate lies in the domain of `shape`.
    fn in_domain(&self, shape: &S) -> bool;
}

macro_rules! int_in_domain {
    ($($t:ty),*) => {$(
        impl<S: IntTuple> InDomain<S> for $t {
            #[inline(always)]
            fn in_domain(&self, shape: &S) -> bool {
                let c = crate::ToDynInt::to_dyn_int(*self);
                c >= 0 && c < shape.size()
            }
        }
    )*};
}
int_in_domain!(i32, i64, u32, usize, isize);

impl<S: IntTuple, const N: i64> InDomain<S> for Int<N> {
    #[inline(always)]
    fn in_domain(&self, shape: &S) -> bool {
        N >= 0 && N < shape.size()
    }
}

macro_rules! tuple_in_domain {
    ($last:tt; $(($T:ident $S:ident $D:ident $C:ident $i:tt))+) => {
        impl<$($S, $C: InDomain<$S>),+> InDomain<($($S,)+)> for ($($C,)+) {
            #[inline(always)]
            fn in_domain(&self, shape: &($($S,)+)) -> bool {
                true $(&& self.$i.in_domain(&shape.$i))+
            }
        }
    };
}
crate::int_tuple::for_tuple_arities!(tuple_in_domain);

/// A coordinate form accepted by a tensor with layout `L`.
///
/// - Typed layouts [`Layout<S, D>`]: every [`Coord`] — a 1-D index, per-mode tuples or fully
///   hierarchical tuples — with static parts kept static.
/// - [`DynLayout`]: one index per axis as an array `[usize; N]` (ndarray's `a[[i, j]]`) or a
///   slice `&[usize]`, also with signed elements (`[i64; N]`, `&[i64]`; negative indices are
///   out of the domain, not counted from the end); NumPy's `t[i, j]`: an index into a
///   hierarchical axis is a 1-D index of its mode. Also a tuple `(i, j)` or a hierarchical
///   `&DynTuple`.
/// - [`SwizzledLayout`]: every coordinate form of its inner layout.
///
/// # Safety
/// Safe element access reads the buffer at the returned offset unchecked: `checked_offset` may
/// return `Some(off)` only when `off` is the offset of an index of `layout`'s domain
/// (`layout.offset(i)` for some `i` in `[0, size)`).
pub unsafe trait TensorIndex<L> {
    /// The offset (relative to the tensor's base) when the coordinate is in the domain.
    fn checked_offset(&self, layout: &L) -> Option<i64>;
}

// SAFETY: `Coord` and `InDomain` are sealed; for this crate's coordinates, a coordinate in the
// domain (checked first) has the offset of an index of the domain.
unsafe impl<S: Congruent<D>, D: IntTuple, C: Coord<S, D> + InDomain<S>> TensorIndex<Layout<S, D>>
    for C
{
    #[inline(always)]
    fn checked_offset(&self, layout: &Layout<S, D>) -> Option<i64> {
        let shape = layout.shape();
        if self.in_domain(&shape) {
            Some(Coord::offset_in(self, &shape, &layout.stride()))
        } else {
            None
        }
    }
}

// SAFETY: every index is range-checked against its axis's extent, and the offset is the sum of
// the axes' offsets: the offset of one coordinate of the domain.
unsafe impl<I: ToDynInt> TensorIndex<DynLayout> for &[I] {
    #[inline]
    fn checked_offset(&self, layout: &DynLayout) -> Option<i64> {
        // a flat layout (every top-level mode one leaf): each index is its leaf's coordinate
        if let Some(off) = flat_offset(self, layout) {
            return off;
        }
        hierarchical_offset(self, layout)
    }
}

/// The offset of per-axis indices `c` on a flat layout (every top-level mode one leaf), `None`
/// when the layout is not flat (then `Some(None)` means outside the domain). Small enough to be
/// inlined into every element access.
#[inline(always)]
fn flat_offset<I: ToDynInt>(c: &[I], layout: &DynLayout) -> Option<Option<i64>> {
    let n = c.len();
    if layout.leaf_count() != n || !layout.is_flat() {
        return None;
    }
    let (shape, stride) = (layout.shape_leaves(), layout.stride_leaves());
    let mut off = 0;
    for k in 0..n {
        // one unsigned comparison: c < 0 wraps above every extent (`usize` indices above
        // `i64::MAX` saturate, and so lie outside every extent too)
        let ck = c[k].to_dyn_int();
        if ck as u64 >= shape[k] as u64 {
            return Some(None);
        }
        // in the domain: the sum is an offset of the validated layout, within i64
        off += ck * stride[k];
    }
    Some(Some(off))
}

/// The offset of per-axis indices on a layout with hierarchical axes (each index a 1-D index of
/// its mode).
#[inline(never)]
fn hierarchical_offset<I: ToDynInt>(c: &[I], layout: &DynLayout) -> Option<i64> {
    let ax = Axes::new(layout);
    if c.len() != ax.rank {
        return None;
    }
    let mut off = 0;
    for (k, i) in c.iter().enumerate() {
        let i = i.to_dyn_int();
        if i < 0 || i >= ax.extent(k) {
            return None;
        }
        off += ax.offset(k, i);
    }
    Some(off)
}

// SAFETY: as for `&[I]`: each index range-checked against its leaf's extent on a flat layout,
// the same `hierarchical_offset` otherwise.
unsafe impl<I: ToDynInt, const N: usize> TensorIndex<DynLayout> for [I; N] {
    #[inline(always)]
    fn checked_offset(&self, layout: &DynLayout) -> Option<i64> {
        // the indices stay in registers on the hot (flat) path: the slow path gets a copy, so
        // nothing is spilled for it on every access
        let c: [i64; N] = core::array::from_fn(|k| self[k].to_dyn_int());
        // flat with N leaves: the profile is `(` N leaves `)` (or one bare leaf for N = 1);
        // the common case is tested first
        let t = layout.profile().token_count();
        if layout.leaf_count() == N && (t == N + 2 || (N == 1 && t == 1)) {
            let (shape, stride) = (layout.shape_leaves(), layout.stride_leaves());
            let mut off = 0;
            for ((&ck, &s), &d) in c.iter().zip(shape).zip(stride) {
                // one unsigned comparison, as in `flat_offset`
                if ck as u64 >= s as u64 {
                    return None;
                }
                // in the domain: the sum is an offset of the validated layout, within i64
                off += ck * d;
            }
            return Some(off);
        }
        if N == 2 {
            // two scalars: nothing to spill on the hot path
            return hierarchical_cold2(c[0], c[1], layout);
        }
        hierarchical_cold(c, layout)
    }
}

/// [`hierarchical_offset`] of two indices, off the hot path.
#[cold]
#[inline(never)]
fn hierarchical_cold2(i: i64, j: i64, layout: &DynLayout) -> Option<i64> {
    hierarchical_offset(&[i, j], layout)
}

/// [`hierarchical_offset`] off the hot path, the indices by value.
#[cold]
#[inline(never)]
fn hierarchical_cold<const N: usize>(c: [i64; N], layout: &DynLayout) -> Option<i64> {
    hierarchical_offset(&c, layout)
}

// SAFETY: `DynLayout::offset_of` checks the coordinate against the shape (an error otherwise).
unsafe impl TensorIndex<DynLayout> for &DynTuple {
    fn checked_offset(&self, layout: &DynLayout) -> Option<i64> {
        layout.offset_of(self).ok()
    }
}

// SAFETY: `DynLayout::offset_of` checks the coordinate against the shape (an error otherwise).
unsafe impl<C: ToDynCoord> TensorIndex<DynLayout> for C {
    #[inline]
    fn checked_offset(&self, layout: &DynLayout) -> Option<i64> {
        layout.offset_of(&self.to_dyn_coord().ok()?).ok()
    }
}

// SAFETY: delegates to the `DynLayout` implementation on the validated run-time form of the
// same layout, whose offsets are the typed layout's.
unsafe impl<S: Congruent<D>, D: IntTuple, I: ToDynInt, const N: usize> TensorIndex<Layout<S, D>>
    for [I; N]
{
    #[inline]
    fn checked_offset(&self, layout: &Layout<S, D>) -> Option<i64> {
        self.checked_offset(&layout.to_dyn().ok()?)
    }
}

// SAFETY: as for `[I; N]`.
unsafe impl<S: Congruent<D>, D: IntTuple, I: ToDynInt> TensorIndex<Layout<S, D>> for &[I] {
    #[inline]
    fn checked_offset(&self, layout: &Layout<S, D>) -> Option<i64> {
        self.checked_offset(&layout.to_dyn().ok()?)
    }
}

/// A swizzled layout `W o O o L` takes every coordinate form of its inner layout `L`.
// SAFETY: `x` is the offset of an index `i` of `L`'s domain (`C`'s contract), so `W(O + x)` is
// the swizzled layout's offset of the same `i`.
unsafe impl<L: AnyLayout, W: SwizzleFn, O: Integer, C: TensorIndex<L>>
    TensorIndex<SwizzledLayout<L, W, O>> for C
{
    #[inline(always)]
    fn checked_offset(&self, layout: &SwizzledLayout<L, W, O>) -> Option<i64> {
        let x = self.checked_offset(&layout.layout())?;
        Some(layout.swizzle_offset(x))
    }
}

impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    /// Position in the buffer of an offset of the layout (relative to the base).
    #[inline(always)]
    fn final_pos(&self, off: i64) -> usize {
        // in range by the construction invariant whenever `off` is an offset of the domain
        (self.base as i64 + off) as usize
    }

    /// The element at a coordinate, or `None` outside the domain.
    ///
    /// ```
    /// use layout::{DynTuple, tensor::Tensor};
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    /// assert_eq!(t.get([1, 0]), Some(&3));
    /// assert_eq!(t.get([2, 0]), None);
    /// let c: DynTuple = "(1,2)".parse().unwrap();
    /// assert_eq!(t.get(&c), Some(&5));
    /// ```
    #[inline(always)]
    pub fn get<C: TensorIndex<L>>(&self, c: C) -> Option<&St::Elem> {
        let off = c.checked_offset(&self.layout)?;
        let p = self.final_pos(off);
        // SAFETY: `off` is the offset of a coordinate in the layout's domain, so it lies in the
        // layout's `offset_bounds`; construction checked `base + bounds ⊆ [0, len)`.
        Some(unsafe { self.storage.as_slice().get_unchecked(p) })
    }

    /// The element at 1-D index `i` (CuTe's colexicographic order: first mode fastest), or
    /// `None` outside `[0, size)`.
    #[inline(always)]
    pub fn at(&self, i: i64) -> Option<&St::Elem> {
        if i < 0 || i >= self.layout.size() {
            return None;
        }
        // SAFETY: `0 <= i < size`, just checked.
        Some(unsafe { self.at_unchecked(i) })
    }

    /// The element at 1-D index `i`, unchecked. For static layouts and a constant `i` this is
    /// one load at a constant offset.
    ///
    /// # Safety
    /// `0 <= i < self.len()`.
    #[inline(always)]
    pub unsafe fn at_unchecked(&self, i: i64) -> &St::Elem {
        let p = self.final_pos(self.layout.offset(i));
        // SAFETY: the caller guarantees `i` is in the domain, so its offset lies in the layout's
        // `offset_bounds`, which construction checked against the buffer.
        unsafe { self.storage.as_slice().get_unchecked(p) }
    }

    /// Iterate over the elements in NumPy's logical order: row-major over the axes (last axis
    /// fastest), and along a hierarchical axis in its mode's index order.
    pub fn iter(&self) -> Iter<'_, St::Elem, L> {
        Iter {
            data: self.storage.as_slice(),
            base: self.base as i64,
            layout: self.layout,
            it: Plan::logical(&self.inner()).iter(),
        }
    }

    /// Iterate over the elements in memory order: by increasing address for layouts whose modes
    /// do not overlap (negative strides walked backwards, modes by decreasing stride). The
    /// fastest order to read a tensor.
    ///
    /// A non-affine layout is walked in its inner layout's memory order: for a swizzle `Sw<B,M,S>`
    /// addresses increase from one aligned block of `2^(M - min(0,S) + B)` elements to the next
    /// (a swizzle maps each such block into itself, see [`Swizzle::image_bounds`]) and are
    /// permuted inside a block.
    ///
    /// [`Swizzle::image_bounds`]: crate::Swizzle::image_bounds
    pub fn iter_memory(&self) -> Iter<'_, St::Elem, L> {
        Iter {
            data: self.storage.as_slice(),
            base: self.base as i64,
            layout: self.layout,
            it: Plan::memory(&self.inner()).iter(),
        }
    }
}

impl<St: StorageMut, L: AnyLayout> Tensor<St, L> {
    /// The element at a coordinate, writable, or `None` outside the domain.
    #[inline(always)]
    pub fn get_mut<C: TensorIndex<L>>(&mut self, c: C) -> Option<&mut St::Elem> {
        let off = c.checked_offset(&self.layout)?;
        let p = self.final_pos(off);
        // SAFETY: as in `get`: an offset of the domain, inside the buffer by construction.
        Some(unsafe { self.storage.as_mut_slice().get_unchecked_mut(p) })
    }

    /// The element at 1-D index `i` (colexicographic), writable, or `None` outside the domain.
    #[inline(always)]
    pub fn at_mut(&mut self, i: i64) -> Option<&mut St::Elem> {
        if i < 0 || i >= self.layout.size() {
            return None;
        }
        // SAFETY: `0 <= i < size`, just checked.
        Some(unsafe { self.at_unchecked_mut(i) })
    }

    /// The element at 1-D index `i`, writable and unchecked.
    ///
    /// # Safety
    /// `0 <= i < self.len()`.
    #[inline(always)]
    pub unsafe fn at_unchecked_mut(&mut self, i: i64) -> &mut St::Elem {
        let p = self.final_pos(self.layout.offset(i));
        // SAFETY: the caller guarantees `i` is in the domain; see `at_unchecked`.
        unsafe { self.storage.as_mut_slice().get_unchecked_mut(p) }
    }

    /// Iterate mutably in logical (row-major) order.
    pub fn iter_mut(&mut self) -> IterMut<'_, St::Elem, L> {
        let it = Plan::logical(&self.inner()).iter();
        self.iter_mut_with(it)
    }

    /// Iterate mutably in memory order.
    pub fn iter_memory_mut(&mut self) -> IterMut<'_, St::Elem, L> {
        let it = Plan::memory(&self.inner()).iter();
        self.iter_mut_with(it)
    }

    /// A mutable iterator walking the positions `it` yields.
    fn iter_mut_with(&mut self, it: PlanIter<1>) -> IterMut<'_, St::Elem, L> {
        let (base, layout) = (self.base as i64, self.layout);
        IterMut {
            ptr: self.storage.as_mut_slice().as_mut_ptr(),
            base,
            layout,
            it,
            _m: PhantomData,
        }
    }

    /// Set every element to `v`.
    pub fn fill(&mut self, v: St::Elem)
    where
        St::Elem: Clone,
    {
        for x in self.iter_memory_mut() {
            *x = v.clone();
        }
    }
}

impl<St: Storage, L: AnyLayout, C: TensorIndex<L>> core::ops::Index<C> for Tensor<St, L> {
    type Output = St::Elem;
    #[track_caller]
    #[inline(always)]
    fn index(&self, c: C) -> &St::Elem {
        match self.get(c) {
            Some(v) => v,
            None => panic!(
                "coordinate out of the domain of a tensor of shape {}",
                self.shape()
            ),
        }
    }
}

impl<St: StorageMut, L: AnyLayout, C: TensorIndex<L>> core::ops::IndexMut<C> for Tensor<St, L> {
    #[track_caller]
    #[inline(always)]
    fn index_mut(&mut self, c: C) -> &mut St::Elem {
        // the shape is computed only for the message (it costs a run-time layout)
        match c.checked_offset(&self.layout) {
            Some(off) => {
                let p = self.final_pos(off);
                // SAFETY: as in `get`: an offset of the domain, inside the buffer by
                // construction.
                unsafe { self.storage.as_mut_slice().get_unchecked_mut(p) }
            }
            None => panic!(
                "coordinate out of the domain of a tensor of shape {}",
                self.shape()
            ),
        }
    }
}

/// Iterator over a tensor's elements (see [`Tensor::iter`] and [`Tensor::iter_memory`]).
#[derive(Clone)]
pub struct Iter<'a, T, L = DynLayout> {
    data: &'a [T],
    base: i64,
    layout: L,
    it: PlanIter<1>,
}

impl<'a, T, L: AnyLayout> Iterator for Iter<'a, T, L> {
    type Item = &'a T;
    #[inline]
    fn next(&mut self) -> Option<&'a T> {
        let [x] = self.it.next()?;
        let p = self.base + self.layout.post_offset(x);
        // SAFETY: the plan yields offsets of the inner layout's domain only, which
        // `post_offset` maps to offsets of the layout (`AnyLayout` contract); construction
        // checked that `base + offset` lies in the buffer for all of them.
        Some(unsafe { self.data.get_unchecked(p as usize) })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.it.size_hint()
    }
}
impl<T, L: AnyLayout> ExactSizeIterator for Iter<'_, T, L> {}

/// Mutable iterator over a tensor's elements (see [`Tensor::iter_mut`]).
pub struct IterMut<'a, T, L = DynLayout> {
    ptr: *mut T,
    base: i64,
    layout: L,
    it: PlanIter<1>,
    _m: PhantomData<&'a mut T>,
}

impl<'a, T, L: AnyLayout> Iterator for IterMut<'a, T, L> {
    type Item = &'a mut T;
    #[inline]
    fn next(&mut self) -> Option<&'a mut T> {
        let [x] = self.it.next()?;
        let p = self.base + self.layout.post_offset(x);
        // SAFETY: `p` is in the buffer (construction bounds check, `x` an offset of the inner
        // domain mapped by `post_offset`, as in `Iter`). The tensor's storage is writable, so
        // its layout is injective (checked at construction): each index is visited once by the
        // plan and yields a distinct position, so the `&mut` never alias. The buffer is mutably
        // borrowed for `'a` by `iter_mut`.
        Some(unsafe { &mut *self.ptr.add(p as usize) })
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.it.size_hint()
    }
}
impl<T, L: AnyLayout> ExactSizeIterator for IterMut<'_, T, L> {}

// SAFETY: `IterMut` is a set of disjoint `&'a mut T` plus a layout (plain `Copy` data: integers,
// and zero-sized or integer swizzle parameters); sending it is sending those.
unsafe impl<T: Send, L: Send> Send for IterMut<'_, T, L> {}
// SAFETY: shared access to `IterMut` gives no access to the elements.
unsafe impl<T: Sync, L: Sync> Sync for IterMut<'_, T, L> {}
