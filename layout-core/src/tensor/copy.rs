//! Copies: one generic copy that walks two layouts in lock-step, with a `memcpy` fast path.
//!
//! `dst.copy_from(&src)` copies the element at every logical coordinate — per-axis indices, an
//! index into a hierarchical axis being a 1-D index of its mode — so it converts between any two
//! layouts of the same shape: row-major to column-major, ND to NZ, NCHW to blocked.
//!
//! The two layouts are first refined to common modes (see [`common_contiguous_run`]); the walk
//! then follows the destination's memory order, coalescing modes, and when the innermost mode
//! has stride 1 in both layouts it copies whole runs with `copy_from_slice` (runs of at most 32
//! elements with a plain loop). When the two layouts' fastest modes differ (a transpose), the
//! walk is cache-blocked in 32 x 32 tiles; when the common run is short and the source continues
//! it through another mode (ND → NZ: 16-element fractal rows), up to 64 source-contiguous
//! elements are visited together. Layouts without a common refinement (`(2,3)` against `(3,2)`
//! inside one axis) fall back to evaluating both layouts per element.

use super::axes::Axes;
use super::walk::{Joint, Plan};
use super::{Storage, StorageMut, Tensor};
use crate::{AnyLayout, DynLayout, LayoutError};
#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, vec::Vec};

/// Block size (in elements per mode) of the cache-blocked walk used for transposing copies.
const TILE: i64 = 32;
/// Runs up to this many elements are copied by a loop rather than a `memcpy` call.
const SHORT_RUN: usize = 32;
/// Elements a short common run is widened to in the source's memory order (NZ fractal rows).
const RUN: i64 = 64;

/// Check that two layouts have the same axis extents.
pub(crate) fn same_shape(a: &DynLayout, b: &DynLayout) -> Result<(), LayoutError> {
    let (xa, xb) = (Axes::new(a), Axes::new(b));
    let (ea, ra) = xa.extents();
    let (eb, rb) = xb.extents();
    if ea[..ra] != eb[..rb] {
        return Err(LayoutError::ShapeMismatch {
            a: xa.extents_short(),
            b: xb.extents_short(),
        });
    }
    Ok(())
}

/// The plan a copy from `src` into `dst` follows: common modes in `dst`'s memory order,
/// coalesced; `None` when the layouts have no common refinement.
fn copy_plan(src: &DynLayout, dst: &DynLayout) -> Option<Plan<2>> {
    match Joint::new([src, dst]) {
        Joint::Fast(mut p) => {
            p.sort_by_stride(1);
            p.coalesce();
            p.tile(0, TILE);
            p.widen_runs(0, RUN);
            Some(p)
        }
        Joint::Slow(_) => None,
    }
}

/// The length of the longest run of logical elements that is contiguous (stride 1) in both
/// layouts at once — the vector a copy between them can move with one `memcpy`. 1 when there is
/// none.
///
/// Both layouts are refined to common modes axis by axis (a leaf of one is split by the leaves
/// of the other where one extent divides the other), the modes are put in `b`'s memory order
/// (decreasing `|stride|` in `b`) and neighbours that continue each other in both layouts are
/// merged; the answer is the innermost mode's extent when its stride is 1 in both. This is the
/// tensor-level counterpart of CuTe's `max_common_vector`.
///
/// ```
/// use layout_core::{DynLayout, tensor::common_contiguous_run};
/// let rm: DynLayout = "(64,32):(32,1)".parse().unwrap();
/// let nz: DynLayout = "((16,4),(16,2)):((16,256),(1,1024))".parse().unwrap();
/// assert_eq!(common_contiguous_run(&rm, &rm), Ok(2048));
/// assert_eq!(common_contiguous_run(&rm, &nz), Ok(16));   // one fractal row
/// let cm: DynLayout = "(64,32):(1,64)".parse().unwrap();
/// assert_eq!(common_contiguous_run(&rm, &cm), Ok(1));    // a transpose
/// ```
///
/// # Errors
/// [`LayoutError::ShapeMismatch`] when the axis extents differ.
pub fn common_contiguous_run(a: &DynLayout, b: &DynLayout) -> Result<i64, LayoutError> {
    same_shape(a, b)?;
    Ok(copy_plan(a, b).map_or(1, |p| p.contiguous_run()))
}

impl<St: StorageMut, L: AnyLayout> Tensor<St, L>
where
    St::Elem: Copy,
{
    /// Copy every element of `src` (same axis extents, any layout) to the same logical
    /// coordinate of this tensor.
    ///
    /// ```
    /// use layout_core::{DynLayout, tensor::Tensor};
    /// // ND (row-major 32 x 32) -> NZ for fp16: ((16,2),(16,2)):((16,256),(1,512))
    /// let nd = Tensor::from_vec((0..1024u16).collect(), &[32, 32]).unwrap();
    /// let nz_l: DynLayout = "((16,2),(16,2)):((16,256),(1,512))".parse().unwrap();
    /// let mut nz = Tensor::new(vec![0u16; 1024], nz_l).unwrap();
    /// nz.copy_from(&nd).unwrap();
    /// assert_eq!(nz.as_slice()[16], 32);    // (1,0) -> offset 16 holds ND value 1*32+0
    /// assert_eq!(nz.as_slice()[512], 16);   // (0,16) -> offset 512
    /// assert!(nz.iter().eq(nd.iter()));     // same tensor, other memory order
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::ShapeMismatch`] naming both shapes.
    pub fn copy_from<S2: Storage<Elem = St::Elem>, L2: AnyLayout>(
        &mut self,
        src: &Tensor<S2, L2>,
    ) -> Result<(), LayoutError> {
        let (sl, dl) = (src.dyn_layout(), self.dyn_layout());
        same_shape(&sl, &dl)?;
        let (sb, db) = (src.base as i64, self.base as i64);
        let s = src.storage.as_slice();
        let d = self.storage.as_mut_slice();
        match copy_plan(&sl, &dl) {
            Some(p) => p.for_each_run(|[so, dof], len| {
                let (si, di) = ((sb + so) as usize, (db + dof) as usize);
                if len == 1 {
                    // SAFETY: `so` and `dof` are offsets of the two layouts' domains (the plan
                    // refines both), inside both buffers by the construction bounds checks.
                    unsafe { *d.get_unchecked_mut(di) = *s.get_unchecked(si) };
                } else {
                    let n = len as usize;
                    let (dr, sr) = (&mut d[di..di + n], &s[si..si + n]);
                    if n <= SHORT_RUN {
                        // short runs (NZ fractal rows): a plain loop beats a `memcpy` call
                        for (x, y) in dr.iter_mut().zip(sr) {
                            *x = *y;
                        }
                    } else {
                        dr.copy_from_slice(sr);
                    }
                }
            }),
            None => Joint::new([&sl, &dl]).for_each(|[so, dof]| {
                // SAFETY: as above: offsets of logical coordinates of both domains.
                unsafe {
                    *d.get_unchecked_mut((db + dof) as usize) = *s.get_unchecked((sb + so) as usize)
                };
            }),
        }
        Ok(())
    }
}

#[cfg(feature = "alloc")]
impl<St: Storage, L: AnyLayout> Tensor<St, L>
where
    St::Elem: Clone,
{
    /// A new owned row-major tensor with the same shape and elements (NumPy's `np.array(t)`,
    /// PyTorch's `clone(memory_format=contiguous)`).
    pub fn to_owned(&self) -> super::TensorOwned<St::Elem> {
        let v: Vec<St::Elem> = self.iter().cloned().collect();
        let shape = self.shape();
        // the shape of a valid tensor is a valid row-major shape of the same size
        let l = DynLayout::row_major(&shape).unwrap_or(DynLayout::EMPTY);
        Tensor {
            storage: v,
            layout: l,
            base: 0,
        }
    }

    /// This tensor as a C-contiguous one: a view when it already is ([`Tensor::is_contiguous`]),
    /// else a row-major copy (PyTorch's `contiguous()`).
    ///
    /// ```
    /// use layout_core::tensor::Tensor;
    /// use std::borrow::Cow;
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    /// assert!(matches!(t.contiguous().into_storage(), Cow::Borrowed(_)));
    /// let tt = t.view().t().unwrap();
    /// let c = tt.contiguous();
    /// assert!(c.iter().copied().eq([0, 3, 1, 4, 2, 5]));
    /// assert!(matches!(c.into_storage(), Cow::Owned(_)));
    /// ```
    pub fn contiguous(&self) -> Tensor<Cow<'_, [St::Elem]>, DynLayout> {
        if self.is_contiguous() {
            let shape = self.shape();
            let l = DynLayout::row_major(&shape).unwrap_or(DynLayout::EMPTY);
            let n = self.len();
            // contiguous: logical element i lives at base + i, so this is in the buffer
            let s = &self.storage.as_slice()[self.base..self.base + n];
            Tensor {
                storage: Cow::Borrowed(s),
                layout: l,
                base: 0,
            }
        } else {
            let o = self.to_owned();
            Tensor {
                storage: Cow::Owned(o.storage),
                layout: o.layout,
                base: 0,
            }
        }
    }
}
