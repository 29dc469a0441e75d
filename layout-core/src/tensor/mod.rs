//! Tensors: a buffer, a layout and a base offset — NumPy / PyTorch strided arrays with any
//! layout of this crate.
//!
//! A [`Tensor<St, L>`] is storage `St` (owned [`Vec<T>`](alloc::vec::Vec), shared `&[T]` or
//! mutably borrowed `&mut [T]`, see [`Storage`]), a layout `L` (any [`AnyLayout`]: a typed
//! [`Layout<S, D>`](crate::Layout) — static layouts stay zero-sized so element access compiles to
//! constant offsets — a run-time [`DynLayout`], an algebra result, or a swizzled layout
//! [`SwizzledLayout`](crate::SwizzledLayout)), and a base offset into the buffer.
//!
//! # Non-affine layouts
//! Every layout is walked as `post ∘ inner` ([`AnyLayout::inner_layout`],
//! [`AnyLayout::post_offset`]): tensor walks (iteration, copies, element-wise operations,
//! printing) run their odometers on the affine inner layout and map each offset through
//! `post_offset`, which is the identity for affine layouts and `x ↦ Sw(O + x)` for a swizzled
//! one. So a swizzled tensor supports construction, element access, iteration, `copy_from` in
//! both directions, `map`/`zip_map` and `Debug`; view operations that need strides (`slice`,
//! `permute`, `reshape`, `broadcast_to`, …) return [`LayoutError::NotAffine`](crate::LayoutError::NotAffine) naming the swizzle.
//!
//! ```
//! use layout::{Int, Layout, Sw, SwizzledLayout, tensor::Tensor};
//! // the fp16 shared-memory atom Sw<3,3,3> o _0 o (_8,_64):(_64,_1) over 512 elements
//! let atom = SwizzledLayout::new(Sw::<3, 3, 3>, Int::<0>,
//!     Layout::new((Int::<8>, Int::<64>), (Int::<64>, Int::<1>)));
//! let nd = Tensor::from_vec((0..512u16).collect(), &[8, 64]).unwrap();
//! let mut smem = Tensor::new(vec![0u16; 512], atom).unwrap();
//! smem.copy_from(&nd).unwrap();
//! assert_eq!(smem[(3, 17)], 3 * 64 + 17);
//! assert_eq!(smem.as_slice()[3 * 64 + (17 ^ 24)], 3 * 64 + 17);
//! assert!(smem.iter().eq(nd.iter()));
//! assert!(Tensor::new(&[0u16; 511][..], atom).is_err()); // one element short
//! ```
//!
//! # Safe by construction
//! Construction checks once, with checked arithmetic, that every offset the layout produces
//! (`base + lo ..= base + hi` with [`AnyLayout::offset_bounds`], negative strides included) lies
//! inside the buffer, and — when the storage is writable — that the layout is injective
//! ([`AnyLayout::find_collision`]). After that, safe element access checks
//! only that the coordinate lies in the layout's domain, and can never leave the buffer nor hand
//! out two `&mut` to one element. Broadcast (stride 0) and overlapping views are `&[T]` views:
//! writing through them does not compile.
//!
//! # Axes, order and NumPy semantics
//! The axes of a tensor are the top-level modes of its layout; an axis's indices are the 1-D
//! indices of its mode (so a hierarchical mode like NZ's `(16,m/16):(16,256)` is one axis of
//! extent `m`). Shape-changing operations (`reshape`, `flatten`, `iter`, printing, results of
//! copies) follow NumPy: the *logical order* of elements is row-major, the last axis fastest.
//! [`Tensor::from_vec`] therefore lays out a buffer row-major (`(2,3)` gets strides `(3,1)`), as
//! NumPy and PyTorch do; CuTe's column-major layouts work just as well — pass one to
//! [`Tensor::new`], and the tensor's axes are still its modes:
//!
//! ```
//! use layout::{DynLayout, tensor::Tensor};
//! let rm = Tensor::from_vec(vec![0, 1, 2, 3, 4, 5], &[2, 3]).unwrap();
//! assert_eq!(rm.layout().to_string(), "(2,3):(3,1)");
//! let cm = Tensor::new(vec![0, 3, 1, 4, 2, 5], "(2,3):(1,2)".parse::<DynLayout>().unwrap()).unwrap();
//! assert_eq!(rm[[1, 2]], 5);
//! assert_eq!(cm[[1, 2]], 5);           // same logical tensor, other memory order
//! assert!(rm.iter().eq(cm.iter()));    // logical (row-major) order
//! assert_eq!(format!("{cm:?}"), "[[0, 1, 2],\n [3, 4, 5]]");
//! ```
//!
//! # Coordinates: one rule for every layout
//! Two orders meet in a tensor, and each has one job:
//! - **a coordinate names an element the same way on every tensor**, typed or run-time: a tuple
//!   `(i, j)` or an array `[i, j]` gives one index per axis (an index into a hierarchical axis
//!   is a 1-D index of its mode), a nested tuple `(i, (j0, j1))` is a fully hierarchical
//!   coordinate, and a single integer `t.get(k)` is CuTe's 1-D index — colexicographic, the
//!   first mode fastest, as in [`Layout::offset`](crate::Layout::offset) ([`Tensor::at`] too);
//! - **the logical order of a whole tensor is NumPy's**: iteration, `reshape`, `flatten`,
//!   printing and the results of copies go row-major, the last axis fastest.
//!
//! ```
//! use layout::{DynLayout, Int, Layout, tensor::Tensor};
//! let data: Vec<i32> = (0..6).collect();
//! let typed = Tensor::new(data.clone(), Layout::new((Int::<2>, Int::<3>), (Int::<3>, Int::<1>))).unwrap();
//! let dynamic = Tensor::new(data, "(2,3):(3,1)".parse::<DynLayout>().unwrap()).unwrap();
//! for t in [typed.get((1, 2)), typed.get([1, 2]), typed.get(5)] {
//!     assert_eq!(t, Some(&5)); // (1,2); 1-D index 5 = colex (1,2)
//! }
//! for t in [dynamic.get((1, 2)), dynamic.get([1, 2]), dynamic.get(5)] {
//!     assert_eq!(t, Some(&5));
//! }
//! assert!(typed.iter().eq(dynamic.iter())); // row-major: 0 1 2 3 4 5
//! ```
//!
//! Views (`slice`, `transpose`, `reshape`, `broadcast_to`, …) never copy: they return tensors
//! over the same buffer with a run-time [`DynLayout`]. Copies (`to_owned`, `reshape_copy`,
//! `concat`, `stack`, `copy_from`, `map`, `zip_map`) produce row-major owned tensors or write into
//! any target layout.

#[cfg(feature = "alloc")]
use alloc::vec::Vec;

mod access;
#[cfg(feature = "alloc")]
mod arith;
mod axes;
mod broadcast;
#[cfg(feature = "alloc")]
mod concat;
mod construct;
mod copy;
mod copy_static;
mod debug;
mod elementwise;
mod error;
pub(crate) mod extents;
mod identity;
#[cfg(feature = "ndarray")]
mod ndarray_interop;
mod reduce;
mod reshape;
mod storage;
mod tile;
mod tiling;
mod view;

#[doc(inline)]
pub use crate::__tensor_s as s;
pub use access::{InDomain, Iter, IterMut, TensorIndex};
pub use broadcast::broadcast_shapes;
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub use concat::{concat, stack};
#[cfg(feature = "alloc")]
pub(crate) use elementwise::try_alloc;
pub use error::{ShapeOp, TensorError};
pub use extents::{EXTENTS_KEPT, Extents};
pub use identity::{ArithTuple, IdentityTensor, MAX_COORD_RANK};
pub use reduce::{AxisIter, Float, IndexedIter, NdIndex};
pub use storage::{Storage, StorageMut};
pub use tile::{PredicatedTile, StaticPredicated};
pub use tiling::{Predicated, Tile2, Tiles, copy_if};
pub use view::Slice;

use crate::{AnyLayout, DynLayout};

/// A strided tensor: storage `St`, a layout `L` and a base offset. See the [module
/// docs](self) for the guarantees.
///
/// ```
/// use layout::{Int, Layout, tensor::Tensor};
/// // a static 2 x 3 row-major layout: zero-sized, offsets are constants
/// let l = Layout::new((Int::<2>, Int::<3>), (Int::<3>, Int::<1>));
/// let mut t = Tensor::new(vec![0.0f32; 6], l).unwrap();
/// t[(1, 2)] = 7.0;
/// assert_eq!(t.as_slice()[5], 7.0);
/// assert_eq!(t.get((1, 3)), None); // outside the domain
/// ```
#[derive(Clone, Copy)]
pub struct Tensor<St, L> {
    storage: St,
    layout: L,
    base: usize,
}

/// A read-only view: a tensor over a shared borrow.
pub type TensorRef<'a, T, L = DynLayout> = Tensor<&'a [T], L>;
/// A writable view: a tensor over a mutable borrow (its layout is injective).
pub type TensorMut<'a, T, L = DynLayout> = Tensor<&'a mut [T], L>;
/// A tensor owning its buffer.
#[cfg(feature = "alloc")]
#[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
pub type TensorOwned<T, L = DynLayout> = Tensor<Vec<T>, L>;

impl<St: Storage, L: AnyLayout> Tensor<St, L> {
    /// The layout.
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// The base offset: where logical element 0 lives in the buffer.
    pub fn base_offset(&self) -> usize {
        self.base
    }

    /// The whole buffer (including elements the layout does not reach).
    pub fn as_slice(&self) -> &[St::Elem] {
        self.storage.as_slice()
    }

    /// The storage, giving up the layout.
    pub fn into_storage(self) -> St {
        self.storage
    }

    /// Number of elements (the size of the layout's domain).
    pub fn len(&self) -> usize {
        // validated layouts have a size that fits the buffer, hence usize
        self.layout.size() as usize
    }

    /// Always `false`: layouts have positive extents, so tensors are never empty.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The affine run-time layout, for the view operations that need strides: an error naming
    /// the layout (e.g. its swizzle) when it is not affine.
    pub(crate) fn dyn_layout(&self) -> Result<DynLayout, TensorError> {
        Ok(self.layout.to_dyn()?)
    }

    /// The inner (affine) layout that walks visit; an offset `x` of it is at buffer position
    /// `base + layout.post_offset(x)`. The layout itself when it is affine.
    pub(crate) fn inner(&self) -> DynLayout {
        // construction called `inner_layout` successfully on this very layout, and
        // `AnyLayout` implementations are pure
        self.layout.inner_layout().unwrap_or(DynLayout::EMPTY)
    }

    /// Number of axes (top-level modes of the layout).
    pub fn ndim(&self) -> usize {
        self.inner().rank()
    }

    /// The extents of the axes as `usize` (ndarray's `shape()`; [`Tensor::shape`] gives them as
    /// a `DynTuple`). Dereferences to `&[usize]`, so it can shape another tensor:
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    /// assert_eq!(t.dims(), [2, 3]);
    /// let u = Tensor::from_vec(vec![0u8; 6], &t.view().t().unwrap().dims()).unwrap();
    /// assert_eq!(u.dims(), [3, 2]);
    /// ```
    pub fn dims(&self) -> NdIndex {
        NdIndex::extents_of(&self.inner())
    }

    /// The extent of every axis, as a flat tuple: `(2,3)` for a 2 x 3 tensor whatever its
    /// layout's nesting.
    pub fn shape(&self) -> crate::DynTuple {
        let l = self.inner();
        let (e, r) = crate::walk::Axes::new(&l).extents();
        crate::DynTuple::from_slice(&e[..r]).unwrap_or(crate::DynTuple::EMPTY)
    }

    /// A read-only view of this tensor, same layout.
    pub fn view(&self) -> TensorRef<'_, St::Elem, L> {
        Tensor {
            storage: self.storage.as_slice(),
            layout: self.layout,
            base: self.base,
        }
    }

    /// The same tensor with its layout as a run-time [`DynLayout`].
    ///
    /// # Errors
    /// When the layout is not affine ([`LayoutError::NotAffine`](crate::LayoutError::NotAffine) for a swizzle).
    pub fn into_dyn(self) -> Result<Tensor<St, DynLayout>, TensorError> {
        let layout = self.dyn_layout()?;
        Ok(Tensor {
            storage: self.storage,
            layout,
            base: self.base,
        })
    }
}

impl<St: StorageMut, L: AnyLayout> Tensor<St, L> {
    /// A writable view of this tensor, same layout.
    pub fn view_mut(&mut self) -> TensorMut<'_, St::Elem, L> {
        Tensor {
            storage: self.storage.as_mut_slice(),
            layout: self.layout,
            base: self.base,
        }
    }

    /// The whole buffer, writable.
    pub fn as_mut_slice(&mut self) -> &mut [St::Elem] {
        self.storage.as_mut_slice()
    }
}
