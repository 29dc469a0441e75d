//! Construction: the one place where a layout is checked against a buffer.

use super::TensorError;
use super::{Storage, Tensor};
use crate::{AnyLayout, DynLayout, LayoutError};
#[cfg(feature = "alloc")]
use alloc::vec::Vec;

impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    /// A tensor over `storage` whose element 0 is at offset 0.
    ///
    /// ```
    /// use layout::DynLayout;
    /// use layout::tensor::{Tensor, TensorError};
    /// let buf = [0u8; 6];
    /// let l: DynLayout = "(2,3):(3,1)".parse().unwrap();
    /// assert!(Tensor::new(&buf[..], l).is_ok());
    /// let too_big: DynLayout = "(2,4):(4,1)".parse().unwrap();
    /// assert_eq!(
    ///     Tensor::new(&buf[..], too_big).unwrap_err(),
    ///     TensorError::OutOfBuffer { base: 0, lo: 0, hi: 7, len: 6 }
    /// );
    /// ```
    ///
    /// # Errors
    /// See [`Tensor::with_offset`].
    pub fn new(storage: St, layout: L) -> Result<Self, TensorError> {
        Self::with_offset(storage, layout, 0)
    }

    /// A tensor over `storage` whose element 0 is at offset `base` (needed with negative
    /// strides: `(3):(-1)` with base 2 reads elements 2, 1, 0).
    ///
    /// Checks, with checked arithmetic, that `base + offset` lies in `[0, len)` for every offset
    /// of the layout ([`AnyLayout::offset_bounds`]), and for writable storage that the layout is
    /// injective ([`AnyLayout::find_collision`]). Works for any layout, swizzled ones included.
    ///
    /// ```
    /// use layout::{DynLayout, LayoutError};
    /// use layout::tensor::{Tensor, TensorError};
    /// let buf = [1, 2, 3];
    /// let rev: DynLayout = "(3):(-1)".parse().unwrap();
    /// let t = Tensor::with_offset(&buf[..], rev, 2).unwrap();
    /// assert!(t.iter().copied().eq([3, 2, 1]));
    /// assert!(matches!(Tensor::with_offset(&buf[..], rev, 1), Err(TensorError::OutOfBuffer { .. })));
    ///
    /// let mut w = [0; 3];
    /// let bcast: DynLayout = "(3):(0)".parse().unwrap();
    /// assert!(Tensor::new(&w[..], bcast).is_ok());                 // read-only: fine
    /// assert!(matches!(Tensor::new(&mut w[..], bcast), Err(TensorError::Layout(LayoutError::NotInjective { .. }))));
    /// ```
    ///
    /// # Errors
    /// The layout's own validation error (dynamic leaves of a typed layout);
    /// [`LayoutError::TooLargeToScan`] for a non-affine layout whose facts need a scan that is
    /// too long; [`TensorError::OutOfBuffer`] when some offset leaves the buffer;
    /// [`LayoutError::NotInjective`] when the storage is writable and two coordinates share an
    /// offset.
    pub fn with_offset(storage: St, layout: L, base: usize) -> Result<Self, TensorError> {
        // a static affine layout: its offset range and (where the stride-ordering test proves
        // it) its injectivity are constants of the type, so only the buffer length is checked
        if let Some((lo, hi, injective)) = const { static_facts::<L>() }
            && (injective || !St::WRITABLE)
        {
            check_range(lo, hi, base, storage.as_slice().len())?;
            return Ok(Tensor {
                storage,
                layout,
                base,
            });
        }
        // the walks of every tensor operation use the inner layout: it must exist
        layout.inner_layout()?;
        let (lo, hi) = layout.offset_bounds()?;
        check_range(lo, hi, base, storage.as_slice().len())?;
        if St::WRITABLE
            && let Some(offset) = layout.find_collision()?
        {
            return Err(LayoutError::NotInjective { offset }.into());
        }
        Ok(Tensor {
            storage,
            layout,
            base,
        })
    }

    /// A tensor without any check.
    ///
    /// # Safety
    /// `layout.inner_layout()` must succeed; `base + layout.offset(i)` must lie in
    /// `[0, storage.len())` for every `i` in `[0, layout.size())`; and when `St` is writable no
    /// two indices may share an offset.
    pub unsafe fn new_unchecked(storage: St, layout: L, base: usize) -> Self {
        Tensor {
            storage,
            layout,
            base,
        }
    }
}

impl<St: Storage> Tensor<St, DynLayout> {
    /// A view of `storage` with the compact row-major (C order) layout of `shape`, the NumPy
    /// default: `(2,3,4)` gets strides `(12,4,1)`. Extents are `usize`, as in ndarray.
    ///
    /// # Errors
    /// A zero extent, too many axes, an extent above `i64::MAX`, or a buffer shorter than the
    /// shape's size ([`TensorError::ElementCount`]).
    pub fn row_major(storage: St, shape: &[usize]) -> Result<Self, TensorError> {
        let l = DynLayout::row_major(&super::extents::dims_tuple(shape)?)?;
        let len = storage.as_slice().len();
        if (len as u64) < l.size() as u64 {
            return Err(element_count("row_major", &l, len));
        }
        Tensor::new(storage, l)
    }
}

#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
impl<T> Tensor<Vec<T>, DynLayout> {
    /// An owned tensor over `v`, row-major (C order) like NumPy's `np.array(v).reshape(shape)`
    /// and ndarray's `Array::from_shape_vec`; extents are `usize`.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let (m, n) = (2usize, 12usize);
    /// let t = Tensor::from_vec((0..24).collect(), &[m, n]).unwrap();
    /// assert_eq!(t.layout().to_string(), "(2,12):(12,1)");
    /// let t = Tensor::from_vec((0..24).collect(), &[2, 3, 4]).unwrap();
    /// assert_eq!(t.layout().to_string(), "(2,3,4):(12,4,1)");
    /// assert_eq!(t[[1, 2, 3]], 23);
    /// assert_eq!(t[[1usize, 2, 3]], 23);
    /// ```
    ///
    /// # Errors
    /// [`TensorError::ElementCount`] when `v.len()` is not the product of the extents (as
    /// ndarray's `from_shape_vec`), saying how many elements the shape needs; a zero extent,
    /// too many axes or an extent above `i64::MAX`.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let e = Tensor::from_vec(vec![0f32; 10], &[3, 4]).unwrap_err();
    /// assert_eq!(e.to_string(), "from_vec: the shape (3,4) needs 12 elements, the vector has 10");
    /// ```
    pub fn from_vec(v: Vec<T>, shape: &[usize]) -> Result<Self, TensorError> {
        let l = DynLayout::row_major(&super::extents::dims_tuple(shape)?)?;
        if v.len() as u64 != l.size() as u64 {
            return Err(element_count("from_vec", &l, v.len()));
        }
        Tensor::new(v, l)
    }

    /// [`Tensor::from_vec`] with the `i64` extents layouts store (internal callers).
    pub(crate) fn from_vec_i64(v: Vec<T>, shape: &[i64]) -> Result<Self, TensorError> {
        Tensor::new(
            v,
            DynLayout::row_major(&crate::DynTuple::from_slice(shape)?)?,
        )
    }

    /// An owned row-major tensor whose element at logical (row-major) position `i` is `f(i)`.
    ///
    /// # Errors
    /// See [`Tensor::row_major`]; [`TensorError::OutputAllocation`] when the elements cannot
    /// be allocated.
    pub fn from_fn(shape: &[usize], f: impl FnMut(usize) -> T) -> Result<Self, TensorError> {
        let l = DynLayout::row_major(&super::extents::dims_tuple(shape)?)?;
        let n = usize::try_from(l.size()).map_err(|_| LayoutError::Overflow { what: "size" })?;
        let mut v = super::elementwise::try_alloc("from_fn", l.size())?;
        v.extend((0..n).map(f));
        Tensor::new(v, l)
    }
}

/// [`TensorError::ElementCount`]: `op` was given `len` elements for the compact layout `l`.
fn element_count(op: &'static str, l: &DynLayout, len: usize) -> TensorError {
    TensorError::ElementCount {
        op,
        shape: super::Extents::from_slice(l.shape().leaves()),
        needed: l.size(),
        len,
    }
}

/// Check that `base + lo ..= base + hi` lies inside a buffer of `len` elements.
pub(crate) fn check_bounds(d: &DynLayout, base: usize, len: usize) -> Result<(), TensorError> {
    let (lo, hi) = d.offset_range();
    check_range(lo, hi, base, len)
}

/// Check that `base + lo ..= base + hi` lies inside a buffer of `len` elements.
fn check_range(lo: i64, hi: i64, base: usize, len: usize) -> Result<(), TensorError> {
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    let err = TensorError::OutOfBuffer {
        base,
        lo,
        hi,
        len: len_i,
    };
    // a base past i64::MAX is refused (offsets are i64; only zero-sized buffers are that long)
    let Ok(base_i) = i64::try_from(base) else {
        return Err(err);
    };
    match (base_i.checked_add(lo), base_i.checked_add(hi)) {
        (Some(first), Some(last)) if first >= 0 && last < len_i => Ok(()),
        _ => Err(err),
    }
}

/// Check that no two coordinates of `d` share an offset (see `AnyLayout::find_collision`).
pub(crate) fn check_injective(d: &DynLayout) -> Result<(), TensorError> {
    match crate::walk::scan::affine_collision(d)? {
        Some(offset) => Err(LayoutError::NotInjective { offset }.into()),
        None => Ok(()),
    }
}

/// The offset range of a static affine layout type and whether the stride-ordering test proves
/// it injective (its modes of extent > 1, ordered by |stride|, each start past the reach of the
/// previous one), computed at compile time; `None` for other layouts.
const fn static_facts<L: AnyLayout>() -> Option<(i64, i64, bool)> {
    match L::STATIC_LAYOUT {
        Some(l) if L::AFFINE => Some(facts(&l)),
        _ => None,
    }
}

/// [`static_facts`] of a layout value: `(lo, hi, proven injective)`.
const fn facts(l: &DynLayout) -> (i64, i64, bool) {
    let (lo, hi) = l.offset_range();
    let (shape, stride) = (l.shape_leaves(), l.stride_leaves());
    // (extent, |stride|) of the leaves of extent > 1, insertion-sorted by |stride|
    let mut modes = [(0i64, 0i64); crate::MAX_LEAVES];
    let mut n = 0;
    let mut i = 0;
    while i < shape.len() {
        if shape[i] > 1 {
            let s = stride[i].unsigned_abs() as i64;
            let mut j = n;
            while j > 0 && modes[j - 1].1 > s {
                modes[j] = modes[j - 1];
                j -= 1;
            }
            modes[j] = (shape[i], s);
            n += 1;
        }
        i += 1;
    }
    let mut injective = true;
    let mut reach = 1i64; // the first mode must have a positive stride
    let mut k = 0;
    while k < n {
        let (e, s) = modes[k];
        if s < reach {
            injective = false;
        }
        reach = match e.checked_mul(s) {
            Some(r) => r,
            None => i64::MAX,
        };
        k += 1;
    }
    (lo, hi, injective)
}

#[cfg(test)]
mod tests {
    /// Brute force over every layout with up to three leaves of extents 1..4 and strides
    /// −4..8: whatever the test proves injective is injective, and the range is exact.
    #[test]
    fn static_facts_are_sound() {
        let mut proven = 0;
        for e0 in 1..4i64 {
            for e1 in 1..4i64 {
                for e2 in 1..3i64 {
                    for s0 in -4..8i64 {
                        for s1 in -4..8i64 {
                            for s2 in [-3i64, 0, 5, 12] {
                                let l = crate::DynLayout::from_flat(&[e0, e1, e2], &[s0, s1, s2])
                                    .unwrap();
                                let (lo, hi, inj) = super::facts(&l);
                                let offs: std::vec::Vec<i64> =
                                    (0..l.size()).map(|i| l.offset(i)).collect();
                                assert_eq!(lo, *offs.iter().min().unwrap());
                                assert_eq!(hi, *offs.iter().max().unwrap());
                                if inj {
                                    proven += 1;
                                    let mut o = offs.clone();
                                    o.sort();
                                    o.dedup();
                                    assert_eq!(o.len(), offs.len(), "{l}");
                                }
                            }
                        }
                    }
                }
            }
        }
        assert!(proven > 100);
    }
}
