//! View operations: no copy, a new layout over the same buffer.
//!
//! Every operation here is written once on the run-time layout of the tensor and returns a
//! tensor with a [`DynLayout`]. Operations that keep the layout injective (slicing, indexing,
//! transposing, flipping, squeezing, taking a diagonal) consume the tensor and keep its storage
//! kind, so a `&mut [T]` view stays writable; call them on `t.view()` / `t.view_mut()` to keep
//! an owned tensor. Operations that can make elements alias (`broadcast_to`, `unfold`) borrow
//! the tensor and return read-only `&[T]` views.

use super::TensorError;
use super::axes::TensorAxes;
use super::axes::{ModeSpec, Specs, assemble};
use super::construct::{check_bounds, check_injective};
use super::{Storage, Tensor, TensorMut, TensorRef};
use crate::walk::Axes;
use crate::{AnyLayout, DynLayout, LayoutError, MAX_LEAVES};
#[cfg(feature = "alloc")]
use alloc::vec::Vec;

/// One entry of a NumPy-style index: an integer (removes the axis), a range with a step
/// (`start:stop:step`, negative values counted from the end, negative steps walk backwards), or a
/// new axis of extent 1. Build them with [`s!`](crate::tensor::s) or the `From` impls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slice {
    /// Select one index (negative counts from the end); the axis disappears.
    Index(i64),
    /// `start:stop:step` with Python's defaults and clamping.
    Range {
        /// First index (default: 0, or the last index for a negative step).
        start: Option<i64>,
        /// One past the last index (default: the end, or before 0 for a negative step).
        stop: Option<i64>,
        /// The step, never 0.
        step: i64,
    },
    /// Insert an axis of extent 1 (NumPy's `None` / `np.newaxis`).
    NewAxis,
}

impl Slice {
    /// The whole axis, `:` (NumPy) or `_` (CuTe).
    pub const ALL: Slice = Slice::Range {
        start: None,
        stop: None,
        step: 1,
    };

    /// The same range with another step (`0..8` → `0..8;2`). An index stays an index.
    pub const fn step(self, step: i64) -> Slice {
        match self {
            Slice::Range { start, stop, .. } => Slice::Range { start, stop, step },
            other => other,
        }
    }
}

macro_rules! slice_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Slice {
            fn from(i: $t) -> Slice { Slice::Index(crate::ToDynInt::to_dyn_int(i)) }
        }
        impl From<core::ops::Range<$t>> for Slice {
            fn from(r: core::ops::Range<$t>) -> Slice {
                Slice::Range {
                    start: Some(crate::ToDynInt::to_dyn_int(r.start)),
                    stop: Some(crate::ToDynInt::to_dyn_int(r.end)),
                    step: 1,
                }
            }
        }
        impl From<core::ops::RangeInclusive<$t>> for Slice {
            fn from(r: core::ops::RangeInclusive<$t>) -> Slice {
                let end = crate::ToDynInt::to_dyn_int(*r.end());
                Slice::Range {
                    start: Some(crate::ToDynInt::to_dyn_int(*r.start())),
                    // `..=-1` means "through the last index"
                    stop: if end == -1 { None } else { Some(end.saturating_add(1)) },
                    step: 1,
                }
            }
        }
        impl From<core::ops::RangeFrom<$t>> for Slice {
            fn from(r: core::ops::RangeFrom<$t>) -> Slice {
                Slice::Range { start: Some(crate::ToDynInt::to_dyn_int(r.start)), stop: None, step: 1 }
            }
        }
        impl From<core::ops::RangeTo<$t>> for Slice {
            fn from(r: core::ops::RangeTo<$t>) -> Slice {
                Slice::Range { start: None, stop: Some(crate::ToDynInt::to_dyn_int(r.end)), step: 1 }
            }
        }
    )*};
}
slice_from!(i32, i64, isize, usize);

impl From<core::ops::RangeFull> for Slice {
    fn from(_: core::ops::RangeFull) -> Slice {
        Slice::ALL
    }
}

/// NumPy-style index lists: `s![1, ..]` is `t[1, :]`, `s![.., 0..8;2]` every other column,
/// `s![..;-1]` a reversed axis, `s![.., NewAxis]` a new axis.
///
/// It lives in [`tensor`](crate::tensor) (`use layout::tensor::s;`), not at the crate root, so
/// that glob imports of this crate and of ndarray (`use layout::*; use ndarray::*;`) compose:
/// `s!` is then ndarray's.
///
/// ```
/// use layout::tensor::{s, Slice, Tensor};
/// let t = Tensor::from_vec((0..12).collect::<Vec<i32>>(), &[3, 4]).unwrap();
/// let row = t.view().slice(&s![1, ..]).unwrap();
/// assert!(row.iter().copied().eq([4, 5, 6, 7]));
/// let odd_cols_reversed = t.view().slice(&s![.., ..;-2]).unwrap();
/// assert_eq!(format!("{odd_cols_reversed:?}"), "[[ 3,  1],\n [ 7,  5],\n [11,  9]]");
/// assert_eq!(s![.., Slice::NewAxis].len(), 2);
/// ```
#[doc(hidden)]
#[macro_export]
macro_rules! __tensor_s {
    ($($e:expr $(; $step:expr)?),* $(,)?) => {
        [$( $crate::tensor::Slice::from($e) $(.step($step))? ),*]
    };
}

/// Python's slice normalisation: the first index and the length of `start:stop:step` on an
/// axis of extent `n`.
fn py_slice(
    n: i64,
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
) -> Result<(i64, i64), TensorError> {
    if step == 0 {
        return Err(LayoutError::Precondition {
            what: "slice: the step is {a} along an axis of extent {b}; a step must not be zero",
            a: step,
            b: n,
        }
        .into());
    }
    let abs = step.unsigned_abs();
    if step > 0 {
        let norm = |v: i64| if v < 0 { (v + n).max(0) } else { v.min(n) };
        let a = start.map_or(0, norm);
        let b = stop.map_or(n, norm);
        let len = if b > a {
            ((b - a - 1) as u64 / abs) as i64 + 1
        } else {
            0
        };
        Ok((a, len))
    } else {
        let norm = |v: i64| if v < 0 { (v + n).max(-1) } else { v.min(n - 1) };
        let a = start.map_or(n - 1, norm);
        let b = stop.map_or(-1, norm);
        let len = if a > b {
            ((a - b - 1) as u64 / abs) as i64 + 1
        } else {
            0
        };
        Ok((a, len))
    }
}

impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    /// The same storage with a new run-time layout, base moved by `delta`, with the
    /// construction checks (bounds; injectivity for writable storage) run again.
    pub(crate) fn relayout(
        self,
        l: DynLayout,
        delta: i64,
    ) -> Result<Tensor<St, DynLayout>, TensorError> {
        let base = (self.base as i64)
            .checked_add(delta)
            .and_then(|b| usize::try_from(b).ok())
            .ok_or(LayoutError::Overflow {
                what: "base offset",
            })?;
        check_bounds(&l, base, self.storage.as_slice().len())?;
        if St::WRITABLE {
            // every view operation preserves injectivity; checking again (cheap for the usual
            // non-overlapping layouts) keeps the `&mut` aliasing invariant independent of them
            check_injective(&l)?;
        }
        Ok(Tensor {
            storage: self.storage,
            layout: l,
            base,
        })
    }

    /// A read-only view of this tensor with another layout and base (for aliasing views).
    pub(crate) fn alias_view(
        &self,
        l: DynLayout,
        delta: i64,
    ) -> Result<TensorRef<'_, St::Elem>, TensorError> {
        let base = (self.base as i64)
            .checked_add(delta)
            .and_then(|b| usize::try_from(b).ok())
            .ok_or(LayoutError::Overflow {
                what: "base offset",
            })?;
        Tensor::with_offset(self.storage.as_slice(), l, base)
    }

    /// NumPy basic indexing: one [`Slice`] per axis from the left (missing ones mean `:`).
    /// Integers remove their axis, ranges keep it (a hierarchical axis must be one stride to
    /// take a range of it), [`Slice::NewAxis`] inserts one.
    ///
    /// ```
    /// use layout::tensor::{s, Tensor};
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    /// let col = t.view().slice(&s![.., 1]).unwrap();       // t[:, 1]
    /// assert_eq!(col.layout().to_string(), "(2):(3)");
    /// let rev = t.view().slice(&s![..;-1, -1]).unwrap();   // t[::-1, -1]
    /// assert!(rev.iter().copied().eq([5, 2]));
    /// assert_eq!(
    ///     t.view().slice(&s![2]).unwrap_err().to_string(),
    ///     "index 2 is out of range for axis 0 of extent 2"
    /// );
    /// ```
    ///
    /// # Errors
    /// [`TensorError::AxisIndexOutOfRange`], [`TensorError::AxisOutOfRange`] (too many
    /// entries), [`TensorError::EmptyAxis`] (an empty range), [`TensorError::NotStrided`], a zero
    /// step.
    pub fn slice(self, index: &[Slice]) -> Result<Tensor<St, DynLayout>, TensorError> {
        let (l, delta) = self.slice_layout(index)?;
        self.relayout(l, delta)
    }

    /// The layout and base shift of [`Tensor::slice`].
    fn slice_layout(&self, index: &[Slice]) -> Result<(DynLayout, i64), TensorError> {
        let d = self.dyn_layout()?;
        let ax = Axes::new(&d);
        let mut specs = Specs::new();
        let mut delta = 0i64;
        let mut k = 0usize;
        for s in index {
            if !matches!(s, Slice::NewAxis) && k >= ax.rank {
                return Err(TensorError::AxisOutOfRange {
                    axis: k as i64,
                    ndim: ax.rank,
                });
            }
            match *s {
                Slice::NewAxis => specs.push(ModeSpec::Leaf(1, 0))?,
                Slice::Index(i) => {
                    let n = ax.extent(k);
                    let ii = if i < 0 { i + n } else { i };
                    if ii < 0 || ii >= n {
                        return Err(TensorError::AxisIndexOutOfRange {
                            axis: k,
                            index: i,
                            extent: n,
                        });
                    }
                    delta += ax.offset(k, ii);
                    k += 1;
                }
                Slice::ALL => {
                    specs.push(ModeSpec::Keep(k))?;
                    k += 1;
                }
                Slice::Range { start, stop, step } => {
                    let (n, st) = ax.strided_or_err(k)?;
                    let (first, len) = py_slice(n, start, stop, step)?;
                    if len == 0 {
                        return Err(TensorError::EmptyAxis { axis: k });
                    }
                    delta += first * st;
                    let new_stride = if len == 1 {
                        st
                    } else {
                        st.checked_mul(step)
                            .ok_or(LayoutError::Overflow { what: "stride" })?
                    };
                    specs.push(ModeSpec::Leaf(len, new_stride))?;
                    k += 1;
                }
            }
        }
        for rest in k..ax.rank {
            specs.push(ModeSpec::Keep(rest))?;
        }
        let l = assemble(&d, specs.as_slice())?;
        Ok((l, delta))
    }

    /// The sub-tensor at index `i` of `axis` (the axis disappears): `t[i]` for axis 0.
    ///
    /// # Errors
    /// As [`Tensor::slice`].
    pub fn index_axis(self, axis: i64, i: i64) -> Result<Tensor<St, DynLayout>, TensorError> {
        let a = Axes::norm_axis(axis, self.ndim())?;
        let mut idx = [Slice::ALL; MAX_LEAVES];
        idx[a] = Slice::Index(i);
        self.slice(&idx[..=a])
    }

    /// Reverse one axis (`np.flip(t, axis)`, `t[..., ::-1, ...]`): a view with a negative stride.
    ///
    /// # Errors
    /// [`TensorError::AxisOutOfRange`], [`TensorError::NotStrided`].
    pub fn flip(self, axis: i64) -> Result<Tensor<St, DynLayout>, TensorError> {
        let a = Axes::norm_axis(axis, self.ndim())?;
        let mut idx = [Slice::ALL; MAX_LEAVES];
        idx[a] = Slice::ALL.step(-1);
        self.slice(&idx[..=a])
    }

    /// Reorder the axes: axis `i` of the result is axis `axes[i]` of this tensor (negative
    /// numbers count from the end). Hierarchical modes move whole.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec(vec![0u8; 24], &[2, 3, 4]).unwrap();
    /// assert_eq!(t.view().permute(&[1, 2, 0]).unwrap().layout().to_string(), "(3,4,2):(4,1,12)");
    /// ```
    ///
    /// # Errors
    /// [`TensorError::AxisOutOfRange`], [`TensorError::RepeatedAxis`], or a list of the wrong
    /// length ([`LayoutError::Precondition`]).
    pub fn permute(self, axes: &[i64]) -> Result<Tensor<St, DynLayout>, TensorError> {
        let d = self.dyn_layout()?;
        let rank = d.rank();
        if axes.len() != rank {
            return Err(LayoutError::Precondition {
                what: "permute: {a} axes were given for a tensor of {b} axes; it needs one per axis",
                a: axes.len() as i64,
                b: rank as i64,
            }
            .into());
        }
        let mut seen = [false; MAX_LEAVES];
        let mut specs = Specs::new();
        for &a in axes {
            let k = Axes::norm_axis(a, rank)?;
            if seen[k] {
                return Err(TensorError::RepeatedAxis { axis: k });
            }
            seen[k] = true;
            specs.push(ModeSpec::Keep(k))?;
        }
        let l = assemble(&d, specs.as_slice())?;
        self.relayout(l, 0)
    }

    /// Swap two axes.
    ///
    /// # Errors
    /// [`TensorError::AxisOutOfRange`].
    pub fn transpose(self, a: i64, b: i64) -> Result<Tensor<St, DynLayout>, TensorError> {
        let rank = self.ndim();
        let (a, b) = (Axes::norm_axis(a, rank)?, Axes::norm_axis(b, rank)?);
        let mut p = [0i64; MAX_LEAVES];
        for (i, v) in p.iter_mut().enumerate().take(rank) {
            *v = i as i64;
        }
        p.swap(a, b);
        self.permute(&p[..rank])
    }

    /// All axes reversed (NumPy's `t.T`).
    ///
    /// # Errors
    /// Only on internal capacity limits.
    pub fn t(self) -> Result<Tensor<St, DynLayout>, TensorError> {
        let rank = self.ndim();
        let mut p = [0i64; MAX_LEAVES];
        for (i, v) in p.iter_mut().enumerate().take(rank) {
            *v = (rank - 1 - i) as i64;
        }
        self.permute(&p[..rank])
    }

    /// Remove every axis of extent 1.
    ///
    /// # Errors
    /// Only on internal capacity limits.
    pub fn squeeze(self) -> Result<Tensor<St, DynLayout>, TensorError> {
        let d = self.dyn_layout()?;
        let ax = Axes::new(&d);
        let mut specs = Specs::new();
        for k in 0..ax.rank {
            if ax.extent(k) != 1 {
                specs.push(ModeSpec::Keep(k))?;
            }
        }
        let l = assemble(&d, specs.as_slice())?;
        self.relayout(l, 0)
    }

    /// Remove the given axes, each of which must have extent 1.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec(vec![0; 6], &[1, 2, 1, 3]).unwrap();
    /// assert_eq!(t.view().squeeze_axes(&[0, 2]).unwrap().shape().to_string(), "(2,3)");
    /// assert_eq!(
    ///     t.view().squeeze_axes(&[1]).unwrap_err().to_string(),
    ///     "cannot squeeze axis 1 of extent 2; only axes of extent 1 can be removed"
    /// );
    /// ```
    ///
    /// # Errors
    /// [`TensorError::SqueezeNotOne`] naming the first such axis, [`TensorError::AxisOutOfRange`],
    /// [`TensorError::RepeatedAxis`].
    pub fn squeeze_axes(self, axes: &[i64]) -> Result<Tensor<St, DynLayout>, TensorError> {
        let d = self.dyn_layout()?;
        let ax = Axes::new(&d);
        let mut drop = [false; MAX_LEAVES];
        for &a in axes {
            let k = Axes::norm_axis(a, ax.rank)?;
            if drop[k] {
                return Err(TensorError::RepeatedAxis { axis: k });
            }
            let e = ax.extent(k);
            if e != 1 {
                return Err(TensorError::SqueezeNotOne { axis: k, extent: e });
            }
            drop[k] = true;
        }
        let mut specs = Specs::new();
        for (k, &dropped) in drop.iter().enumerate().take(ax.rank) {
            if !dropped {
                specs.push(ModeSpec::Keep(k))?;
            }
        }
        let l = assemble(&d, specs.as_slice())?;
        self.relayout(l, 0)
    }

    /// Insert axes of extent 1 so that they end up at positions `axes` of the result
    /// (MegEngine's `expand_dims`, NumPy's `expand_dims` with a tuple): the result has
    /// `ndim + axes.len()` axes, and each position must lie in `[-(that), that)`.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec(vec![0; 6], &[2, 3]).unwrap();
    /// assert_eq!(t.view().expand_dims(&[1, 3]).unwrap().shape().to_string(), "(2,1,3,1)");
    /// assert_eq!(
    ///     t.view().expand_dims(&[3]).unwrap_err().to_string(),
    ///     "axis 3 is out of range for a tensor of 3 axes"
    /// );
    /// ```
    ///
    /// # Errors
    /// [`TensorError::AxisOutOfRange`], [`TensorError::RepeatedAxis`].
    pub fn expand_dims(self, axes: &[i64]) -> Result<Tensor<St, DynLayout>, TensorError> {
        let d = self.dyn_layout()?;
        let ax = Axes::new(&d);
        let out = ax.rank + axes.len();
        if out > MAX_LEAVES {
            return Err(LayoutError::TooManyLeaves { needed: out }.into());
        }
        let mut new = [false; MAX_LEAVES];
        for &a in axes {
            let k = Axes::norm_axis(a, out)?;
            if new[k] {
                return Err(TensorError::RepeatedAxis { axis: k });
            }
            new[k] = true;
        }
        let mut specs = Specs::new();
        let mut k = 0;
        for &is_new in new.iter().take(out) {
            if is_new {
                // PyTorch's unsqueeze stride: extent·stride of the axis that follows, else 1
                let st = match ax.strided(k) {
                    Some((e, s)) if k < ax.rank => e.checked_mul(s).unwrap_or(1),
                    _ => 1,
                };
                specs.push(ModeSpec::Leaf(1, st))?;
            } else {
                specs.push(ModeSpec::Keep(k))?;
                k += 1;
            }
        }
        let l = assemble(&d, specs.as_slice())?;
        self.relayout(l, 0)
    }

    /// Insert one axis of extent 1 at position `axis` of the result (PyTorch's `unsqueeze`).
    ///
    /// # Errors
    /// As [`Tensor::expand_dims`].
    pub fn unsqueeze(self, axis: i64) -> Result<Tensor<St, DynLayout>, TensorError> {
        self.expand_dims(&[axis])
    }

    /// The diagonal of axes `a1` and `a2` as a stride trick (PyTorch's `diagonal`): both axes are
    /// removed and one axis with stride `stride(a1) + stride(a2)` is appended. `offset > 0` takes
    /// a diagonal above the main one (along `a2`), `offset < 0` below.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((0..12).collect::<Vec<i32>>(), &[3, 4]).unwrap();
    /// assert!(t.view().diagonal(0, 0, 1).unwrap().iter().copied().eq([0, 5, 10]));
    /// assert!(t.view().diagonal(1, 0, 1).unwrap().iter().copied().eq([1, 6, 11]));
    /// assert!(t.view().diagonal(-1, 0, 1).unwrap().iter().copied().eq([4, 9]));
    /// ```
    ///
    /// # Errors
    /// [`TensorError::AxisOutOfRange`], [`TensorError::RepeatedAxis`],
    /// [`TensorError::NotStrided`], or an offset that leaves no element.
    pub fn diagonal(
        self,
        offset: i64,
        a1: i64,
        a2: i64,
    ) -> Result<Tensor<St, DynLayout>, TensorError> {
        let d = self.dyn_layout()?;
        let ax = Axes::new(&d);
        let (k1, k2) = (Axes::norm_axis(a1, ax.rank)?, Axes::norm_axis(a2, ax.rank)?);
        if k1 == k2 {
            return Err(TensorError::RepeatedAxis { axis: k1 });
        }
        let (n1, s1) = ax.strided_or_err(k1)?;
        let (n2, s2) = ax.strided_or_err(k2)?;
        let (len, delta) = if offset >= 0 {
            (n1.min(n2.saturating_sub(offset)), offset.saturating_mul(s2))
        } else {
            (
                n1.saturating_add(offset).min(n2),
                offset.saturating_neg().saturating_mul(s1),
            )
        };
        if len <= 0 {
            return Err(LayoutError::Precondition {
                what: "diagonal: offset {a} leaves no element on an axis of extent {b}",
                a: offset,
                b: if offset >= 0 { n2 } else { n1 },
            }
            .into());
        }
        let st = s1
            .checked_add(s2)
            .ok_or(LayoutError::Overflow { what: "stride" })?;
        let mut specs = Specs::new();
        for k in 0..ax.rank {
            if k != k1 && k != k2 {
                specs.push(ModeSpec::Keep(k))?;
            }
        }
        specs.push(ModeSpec::Leaf(len, st))?;
        let l = assemble(&d, specs.as_slice())?;
        self.relayout(l, delta)
    }

    /// All windows of `size` elements along `axis`, `step` apart, as a stride trick (PyTorch's
    /// `unfold`): `axis` becomes the window index and a last axis of extent `size` is appended.
    /// Windows overlap when `step < size`, so the view is read-only.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((0..5).collect::<Vec<i32>>(), &[5]).unwrap();
    /// let w = t.unfold(0, 3, 1).unwrap();
    /// assert_eq!(w.layout().to_string(), "(3,3):(1,1)");
    /// assert_eq!(format!("{w:?}"), "[[0, 1, 2],\n [1, 2, 3],\n [2, 3, 4]]");
    /// ```
    ///
    /// # Errors
    /// [`TensorError::AxisOutOfRange`], [`TensorError::NotStrided`], `size` not in
    /// `[1, extent]` or `step < 1` ([`LayoutError::Precondition`]).
    pub fn unfold(
        &self,
        axis: i64,
        size: i64,
        step: i64,
    ) -> Result<TensorRef<'_, St::Elem>, TensorError> {
        let d = self.dyn_layout()?;
        let ax = Axes::new(&d);
        let k = Axes::norm_axis(axis, ax.rank)?;
        let (n, s) = ax.strided_or_err(k)?;
        if size < 1 || size > n {
            return Err(LayoutError::Precondition {
                what: "unfold: the window size {a} must lie in [1, {b}], the extent of the axis",
                a: size,
                b: n,
            }
            .into());
        }
        if step < 1 {
            return Err(LayoutError::Precondition {
                what: "unfold: the step is {a} (axis extent {b}); it must be positive",
                a: step,
                b: n,
            }
            .into());
        }
        let count = (n - size) / step + 1;
        let mut specs = Specs::new();
        for j in 0..ax.rank {
            if j == k {
                let st = if count == 1 {
                    s
                } else {
                    s.checked_mul(step)
                        .ok_or(LayoutError::Overflow { what: "stride" })?
                };
                specs.push(ModeSpec::Leaf(count, st))?;
            } else {
                specs.push(ModeSpec::Keep(j))?;
            }
        }
        specs.push(ModeSpec::Leaf(size, s))?;
        let l = assemble(&d, specs.as_slice())?;
        self.alias_view(l, 0)
    }

    /// Split `axis` into `sections` views of equal extent (`np.split(t, sections, axis)`).
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[6]).unwrap();
    /// let parts = t.split(0, 3).unwrap();
    /// assert!(parts[2].iter().copied().eq([4, 5]));
    /// assert!(t.split(0, 4).is_err()); // 6 is not divisible by 4
    /// ```
    ///
    /// # Errors
    /// [`TensorError::AxisOutOfRange`], an extent not divisible by `sections`
    /// ([`LayoutError::Precondition`]), [`TensorError::NotStrided`].
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn split(
        &self,
        axis: i64,
        sections: i64,
    ) -> Result<Vec<TensorRef<'_, St::Elem>>, TensorError> {
        let k = Axes::norm_axis(axis, self.ndim())?;
        let n = Axes::new(&self.dyn_layout()?).extent(k);
        if sections < 1 || n % sections != 0 {
            return Err(LayoutError::Precondition {
                what: "split: an axis of extent {a} does not divide into {b} equal sections",
                a: n,
                b: sections,
            }
            .into());
        }
        let step = n / sections;
        let cuts: Vec<i64> = (1..sections).map(|i| i * step).collect();
        self.split_at(axis, &cuts)
    }

    /// Split `axis` at the given increasing indices into views (`np.split(t, [i, j], axis)`
    /// gives `t[:i]`, `t[i:j]`, `t[j:]`).
    ///
    /// # Errors
    /// [`TensorError::AxisOutOfRange`], [`TensorError::EmptyAxis`] when a piece would be empty,
    /// [`TensorError::NotStrided`].
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    pub fn split_at(
        &self,
        axis: i64,
        indices: &[i64],
    ) -> Result<Vec<TensorRef<'_, St::Elem>>, TensorError> {
        let k = Axes::norm_axis(axis, self.ndim())?;
        let n = Axes::new(&self.dyn_layout()?).extent(k);
        let mut out = Vec::with_capacity(indices.len() + 1);
        let mut prev = 0;
        for &cut in indices.iter().chain(core::iter::once(&n)) {
            if cut <= prev || cut > n {
                return Err(TensorError::EmptyAxis { axis: k });
            }
            let mut idx = [Slice::ALL; MAX_LEAVES];
            idx[k] = Slice::Range {
                start: Some(prev),
                stop: Some(cut),
                step: 1,
            };
            out.push(self.view().slice(&idx[..=k])?);
            prev = cut;
        }
        Ok(out)
    }

    /// `true` when the tensor is C-contiguous: its elements in logical (row-major) order sit at
    /// consecutive offsets. Axes of extent 1 are ignored, whatever their stride (PyTorch's and
    /// NumPy's rule), so `(8,1):(1,8)` is contiguous.
    ///
    /// ```
    /// use layout::{DynLayout, tensor::Tensor};
    /// let buf = [0; 8];
    /// let l: DynLayout = "(8,1):(1,8)".parse().unwrap();
    /// assert!(Tensor::new(&buf[..], l).unwrap().is_contiguous());
    /// let t = Tensor::row_major(&buf[..], &[2, 4]).unwrap();
    /// assert!(!t.transpose(0, 1).unwrap().is_contiguous());
    /// ```
    pub fn is_contiguous(&self) -> bool {
        let Ok(d) = self.dyn_layout() else {
            return false; // a non-affine layout (a swizzle) is not contiguous in this sense
        };
        let p = crate::walk::Plan::logical(&d);
        let mut expected = 1i64;
        for m in p.modes().iter().rev() {
            if m.st[0] != expected {
                return false;
            }
            expected *= m.ext;
        }
        true
    }

    /// `true` when the tensor is Fortran-contiguous (first axis fastest, and inside an axis the
    /// first leaf fastest): CuTe's compact column-major layouts. Extent-1 leaves are ignored.
    pub fn is_f_contiguous(&self) -> bool {
        let Ok(d) = self.dyn_layout() else {
            return false;
        };
        let mut expected = 1i64;
        for (&e, &s) in d.shape_leaves().iter().zip(d.stride_leaves()) {
            if e == 1 {
                continue;
            }
            if s != expected {
                return false;
            }
            expected *= e;
        }
        true
    }
}

impl<'a, T, L: AnyLayout> Tensor<&'a mut [T], L> {
    /// Split a writable view at `index` of `axis` into two writable views (`t[..index]` and
    /// `t[index..]` along the axis), when the two halves occupy disjoint ranges of the buffer —
    /// splitting the slowest axis of a dense tensor, e.g. rows of a row-major matrix for two
    /// threads. The buffer itself is split with `split_at_mut`, so the halves can be used at the
    /// same time.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let mut t = Tensor::from_vec(vec![0; 6], &[3, 2]).unwrap();
    /// let (mut top, mut bottom) = t.view_mut().split_at_mut(0, 1).unwrap();
    /// top.fill(1);
    /// bottom.fill(2);
    /// assert_eq!(t.as_slice(), &[1, 1, 2, 2, 2, 2]);
    /// // columns of a row-major matrix interleave in memory: refused
    /// assert!(t.view_mut().split_at_mut(1, 1).is_err());
    /// ```
    ///
    /// # Errors
    /// [`TensorError::AxisOutOfRange`], [`TensorError::EmptyAxis`] when a half would be empty,
    /// [`TensorError::NotStrided`], or halves whose buffer ranges interleave
    /// ([`LayoutError::Precondition`]).
    pub fn split_at_mut(
        self,
        axis: i64,
        index: i64,
    ) -> Result<(TensorMut<'a, T>, TensorMut<'a, T>), TensorError> {
        let k = Axes::norm_axis(axis, self.ndim())?;
        let n = Axes::new(&self.dyn_layout()?).extent(k);
        if index <= 0 || index >= n {
            return Err(TensorError::EmptyAxis { axis: k });
        }
        let mut idx = [Slice::ALL; MAX_LEAVES];
        let half = |start, stop| Slice::Range {
            start: Some(start),
            stop: Some(stop),
            step: 1,
        };
        idx[k] = half(0, index);
        let (la, da) = self.slice_layout(&idx[..=k])?;
        idx[k] = half(index, n);
        let (lb, db) = self.slice_layout(&idx[..=k])?;
        let base = self.base as i64;
        // absolute buffer ranges of the two halves (inside the buffer: sub-views of this one)
        let range = |l: &DynLayout, d: i64| {
            let (lo, hi) = l.offset_range();
            (base + d + lo, base + d + hi)
        };
        let (a, b) = (range(&la, da), range(&lb, db));
        let a_first = if a.1 < b.0 {
            true
        } else if b.1 < a.0 {
            false
        } else {
            return Err(LayoutError::Precondition {
                what: "split_at_mut: the two halves of axis {a} at index {b} interleave in memory, so they cannot be split into disjoint buffers",
                a: k as i64,
                b: index,
            }.into());
        };
        let mid = if a_first { b.0 } else { a.0 } as usize;
        let (left, right) = self.storage.split_at_mut(mid);
        let (ba, bb) = ((base + da) as usize, (base + db) as usize);
        if a_first {
            Ok((
                Tensor::with_offset(left, la, ba)?,
                Tensor::with_offset(right, lb, bb - mid)?,
            ))
        } else {
            Ok((
                Tensor::with_offset(right, la, ba - mid)?,
                Tensor::with_offset(left, lb, bb)?,
            ))
        }
    }
}
