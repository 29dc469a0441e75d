//! [`Padded`]: a layout over a rounded-up domain together with its logical extents.
//!
//! Ascend's fractal layouts, oneDNN's blocked formats and NC1HWC0 round extents up to whole
//! blocks; the layout's domain is the padded tensor, and the real extents are not part of it
//! (Ascend's `TransdataOperation` needs them again as `outCrops`, oneDNN keeps `padded_dims`).
//! `Padded<L>` keeps them beside the layout `L`:
//!
//! - it knows which coordinates are padding ([`Padded::is_padding`]);
//! - as an [`AnyLayout`] its domain is the *logical* tensor, each coordinate mapped by `L`: a
//!   tensor over a `Padded` layout is the logical view of a padded buffer, so the copy engine
//!   moves ND data into it or out of it directly;
//! - [`Padded::pad_from`] copies an ND tensor into a new padded buffer, filling the padding with
//!   a chosen value; [`Padded::crop_to_nd`] copies the logical part back out. For large tensors
//!   over affine layouts both cut the logical box into pieces on which the layout is affine
//!   (whole fractals, the partial ones) and copy each with the affine copy engine.
//!
//! ```
//! use layout::named::{make_nz_layout, Padded};
//! use layout::tensor::Tensor;
//! use half::f16;
//! let nz = Padded::new(make_nz_layout::<f16>(20, 28).unwrap(), &[20, 28]).unwrap();
//! assert_eq!(nz.is_padding(&[19, 27]), Ok(false));
//! assert_eq!(nz.is_padding(&[20, 0]), Ok(true));
//! let nd = Tensor::from_fn(&[20, 28], |i| i as u16).unwrap();
//! let t = nz.pad_from(&nd, u16::MAX).unwrap();        // a 32 x 32 NZ tensor
//! assert_eq!(t.as_slice().len(), 1024);
//! assert_eq!(t.as_slice()[16], 28);                    // (1,0) holds ND value 28
//! assert_eq!(t.as_slice()[512], 16);                   // (0,16) holds ND value 16
//! assert_eq!(t.as_slice()[20 * 16], u16::MAX);         // row 20 is padding
//! let back = nz.crop_to_nd(&t).unwrap();
//! assert!(back.iter().eq(nd.iter()));
//! ```

use crate::const_try::ctry;
#[cfg(feature = "alloc")]
use crate::tensor::TensorError;
use crate::tensor::TensorIndex;
#[cfg(feature = "alloc")]
use crate::tensor::{Storage, Tensor};
use crate::{AnyLayout, DynLayout, DynTuple, LayoutError};
use core::fmt;

/// At most this many axes in a padded layout.
pub const MAX_PADDED_AXES: usize = 8;

/// The padding facts of a layout: logical and padded axis extents, and how many consecutive
/// offsets its last axis keeps (for copy runs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PadParts {
    logical: [i64; MAX_PADDED_AXES],
    padded: [i64; MAX_PADDED_AXES],
    /// The same extents as `usize`, what the public accessors return.
    logical_u: [usize; MAX_PADDED_AXES],
    padded_u: [usize; MAX_PADDED_AXES],
    rank: usize,
    /// Length of the stride-1 prefix of the last axis's mode (1 when it has none).
    unit: i64,
}

impl PadParts {
    /// The facts of the affine layout `l` with logical extents `logical`.
    const fn affine(l: &DynLayout, logical: &[i64]) -> Result<PadParts, LayoutError> {
        let rank = if l.profile().is_leaf() { 1 } else { l.rank() };
        if logical.len() != rank {
            return Err(LayoutError::Precondition {
                what: "padded layout: one logical extent per axis of the layout; extents and axes are {a} and {b}",
                a: logical.len() as i64,
                b: rank as i64,
            });
        }
        if rank > MAX_PADDED_AXES {
            return Err(LayoutError::Precondition {
                what: "padded layout: too many axes; axes and the maximum are {a} and {b}",
                a: rank as i64,
                b: MAX_PADDED_AXES as i64,
            });
        }
        let mut p = PadParts {
            logical: [0; MAX_PADDED_AXES],
            padded: [0; MAX_PADDED_AXES],
            logical_u: [0; MAX_PADDED_AXES],
            padded_u: [0; MAX_PADDED_AXES],
            rank,
            unit: 1,
        };
        let mut k = 0;
        while k < rank {
            let mode = if l.profile().is_leaf() {
                *l
            } else {
                ctry!(l.mode(k))
            };
            let e = mode.size();
            if logical[k] <= 0 || logical[k] > e {
                return Err(LayoutError::Precondition {
                    what: "padded layout: a logical extent must be positive and at most the layout's axis extent; they are {a} and {b}",
                    a: logical[k],
                    b: e,
                });
            }
            p.logical[k] = logical[k];
            p.padded[k] = e;
            // both positive (checked above; a valid layout's size)
            p.logical_u[k] = logical[k] as usize;
            p.padded_u[k] = e as usize;
            if k + 1 == rank {
                let (s, d) = (mode.shape_leaves(), mode.stride_leaves());
                let mut run = 1;
                let mut i = 0;
                while i < s.len() {
                    if s[i] > 1 {
                        if d[i] != run {
                            break;
                        }
                        run *= s[i];
                    }
                    i += 1;
                }
                p.unit = run;
            }
            k += 1;
        }
        Ok(p)
    }

    /// The facts of a static layout, computed at compile time (a failure fails compilation).
    pub(crate) const fn of_static(l: &DynLayout, logical: &[i64]) -> PadParts {
        match PadParts::affine(l, logical) {
            Ok(p) => p,
            Err(e) => {
                let m = e.const_message();
                panic!("{}", m.as_str())
            }
        }
    }
}

/// A layout `L` over a padded domain, with the logical extents kept beside it. See the
/// [module docs](self).
///
/// As an [`AnyLayout`] it is the logical tensor: its domain is the logical extents (a flat
/// tuple, one per axis of `L`), coordinate `c` has offset `L(c)`. It is not affine (a padded
/// row of NZ does not continue into the next); tensors walk it through
/// [`AnyLayout::post_offset`] and copy runs of the last axis that `L` keeps contiguous.
#[derive(Clone, Copy)]
pub struct Padded<L> {
    layout: L,
    parts: PadParts,
}

impl<L: AnyLayout> Padded<L> {
    /// `layout` with logical extents `logical` (one per top-level mode; each at most the
    /// mode's size).
    ///
    /// # Errors
    /// A count of extents other than the rank, an extent ≤ 0 or larger than the axis, more than
    /// [`MAX_PADDED_AXES`] axes, or an invalid layout.
    pub fn new(layout: L, logical: &[usize]) -> Result<Self, LayoutError> {
        let (logical, n) = crate::tensor::extents::dims_i64(logical)?;
        let mut parts = PadParts::affine(&layout.inner_layout()?, &logical[..n])?;
        if !L::AFFINE {
            parts.unit = 1;
        }
        Ok(Padded { layout, parts })
    }

    /// From facts computed at compile time for a static layout.
    pub(crate) const fn from_parts(layout: L, parts: PadParts) -> Self {
        Padded { layout, parts }
    }

    /// The padded layout.
    pub fn layout(&self) -> &L {
        &self.layout
    }

    /// The logical extent of every axis.
    pub fn logical(&self) -> &[usize] {
        &self.parts.logical_u[..self.parts.rank]
    }

    /// The padded extent of every axis (the layout's).
    pub fn padded(&self) -> &[usize] {
        &self.parts.padded_u[..self.parts.rank]
    }

    /// The logical extents in the layouts' `i64`.
    pub(crate) fn logical_i64(&self) -> &[i64] {
        &self.parts.logical[..self.parts.rank]
    }

    /// The padded extents in the layouts' `i64`.
    fn padded_i64(&self) -> &[i64] {
        &self.parts.padded[..self.parts.rank]
    }

    /// Whether a coordinate of the padded domain (one index per axis) is padding: some index
    /// is at or past its logical extent.
    ///
    /// # Errors
    /// A coordinate of the wrong rank or outside the padded domain.
    pub fn is_padding(&self, coord: &[usize]) -> Result<bool, LayoutError> {
        self.check_padded(coord)?;
        Ok(coord.iter().zip(self.logical()).any(|(&c, &lim)| c >= lim))
    }

    /// The offset of a coordinate of the padded domain (one index per axis), padding included.
    ///
    /// # Errors
    /// A coordinate of the wrong rank or outside the padded domain.
    pub fn padded_offset(&self, coord: &[usize]) -> Result<i64, LayoutError> {
        let c = self.check_padded(coord)?;
        Ok(self.layout.offset(self.padded_index(&c[..self.parts.rank])))
    }

    /// The coordinate in the layouts' `i64`, checked against the padded extents.
    fn check_padded(&self, coord: &[usize]) -> Result<[i64; MAX_PADDED_AXES], LayoutError> {
        if coord.len() != self.parts.rank {
            return Err(LayoutError::CoordinateMismatch {
                coord_leaves: coord.len(),
                shape_leaves: self.parts.rank,
            });
        }
        let mut out = [0i64; MAX_PADDED_AXES];
        for (k, (&c, &e)) in coord.iter().zip(self.padded_i64()).enumerate() {
            match i64::try_from(c) {
                Ok(ci) if ci < e => out[k] = ci,
                _ => {
                    return Err(LayoutError::CoordinateOutOfRange {
                        leaf: k,
                        coord: i64::try_from(c).unwrap_or(i64::MAX),
                        extent: e,
                    });
                }
            }
        }
        Ok(out)
    }

    /// The 1-D (colexicographic) index of a coordinate in the padded domain.
    #[inline]
    fn padded_index(&self, coord: &[i64]) -> i64 {
        let mut idx = 0;
        for k in (0..self.parts.rank).rev() {
            idx = idx * self.parts.padded[k] + coord[k];
        }
        idx
    }

    /// Copy the ND tensor `src` (the logical extents, any layout) into a new buffer laid out by
    /// the padded layout, every other element of the buffer (the padding) set to `fill`.
    ///
    /// # Errors
    /// [`TensorError::ShapeMismatch`] when `src` does not have the logical extents (checked
    /// before anything is allocated); a layout with negative offsets or one that is not
    /// injective; [`TensorError::OutputAllocation`] naming the bytes when the buffer cannot be
    /// allocated (never an abort).
    #[cfg(feature = "alloc")]
    pub fn pad_from<T: Copy, S: Storage<Elem = T>, L2: AnyLayout>(
        &self,
        src: &Tensor<S, L2>,
        fill: T,
    ) -> Result<crate::tensor::Tensor<alloc::vec::Vec<T>, L>, TensorError> {
        // the shape first: nothing is allocated for a source of the wrong extents
        self.check_logical(crate::tensor::ShapeOp::PadFrom, src)?;
        let (lo, hi) = self.layout.offset_bounds()?;
        if lo < 0 {
            return Err(LayoutError::Precondition {
                what: "pad_from: the padded layout reaches negative offsets; lowest offset and 0 are {a} and {b}",
                a: lo,
                b: 0,
            }
            .into());
        }
        let len = hi
            .checked_add(1)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or(LayoutError::Overflow {
                what: "padded buffer length",
            })?;
        let len = i64::try_from(len).map_err(|_| LayoutError::Overflow {
            what: "padded buffer length",
        })?;
        let mut buf = crate::tensor::try_alloc("pad_from", len)?;
        buf.resize(len as usize, fill);
        self.pad_into(&mut buf, src)?;
        Tensor::new(buf, self.layout)
    }

    /// Copy the logical part of the padded tensor `src` (any layout with this layout's padded
    /// extents) into a new row-major ND tensor of the logical extents, dropping the padding.
    ///
    /// # Errors
    /// [`TensorError::ShapeMismatch`] when `src` does not have the padded extents;
    /// [`TensorError::OutputAllocation`] when the output cannot be allocated.
    #[cfg(feature = "alloc")]
    pub fn crop_to_nd<T: Copy, S: Storage<Elem = T>, L2: AnyLayout>(
        &self,
        src: &Tensor<S, L2>,
    ) -> Result<crate::tensor::TensorOwned<T>, TensorError> {
        if src.shape().leaves() != self.padded_i64() {
            return Err(TensorError::ShapeMismatch {
                op: crate::tensor::ShapeOp::CropToNd,
                a: crate::tensor::Extents::from_slice(src.shape().leaves()),
                b: crate::tensor::Extents::from_slice(self.padded_i64()),
            });
        }
        let view = Padded::new(*src.layout(), self.logical())?;
        let view = Tensor::with_offset(src.as_slice(), view, src.base_offset())?;
        // any element serves as the initial value; every one is overwritten by the copy
        let first = *view
            .at(0)
            .ok_or(LayoutError::IndexOutOfRange { index: 0, size: 0 })?;
        let n = usize::try_from(view.layout().size()).map_err(|_| LayoutError::Overflow {
            what: "cropped tensor size",
        })?;
        let mut v = crate::tensor::try_alloc("crop_to_nd", n as i64)?;
        v.resize(n, first);
        let mut out = Tensor::from_vec_i64(v, self.logical_i64())?;
        if L2::AFFINE && self.size() >= PIECES_FROM {
            // piece by piece through the affine engine (see `Pieces`)
            let pieces = Pieces::new(&src.layout().to_dyn()?, self.logical_i64())?;
            let mut ok = true;
            pieces.for_each(|layout, base, ranges| {
                if !ok {
                    return Ok(());
                }
                let Some(base) = base
                    .checked_add(src.base_offset() as i64)
                    .and_then(|b| usize::try_from(b).ok())
                else {
                    ok = false;
                    return Ok(());
                };
                let part = Tensor::with_offset(src.as_slice(), layout, base)?;
                out.view_mut().slice(ranges)?.copy_from(&part)
            })?;
            if ok {
                return Ok(out);
            }
        }
        // the copy engine moves the runs the padded layout keeps contiguous (NZ: 16)
        out.copy_from(&view)?;
        Ok(out)
    }

    /// [`TensorError::ShapeMismatch`] unless `src` has the logical extents.
    #[cfg(feature = "alloc")]
    fn check_logical<S: Storage, L2: AnyLayout>(
        &self,
        op: crate::tensor::ShapeOp,
        src: &Tensor<S, L2>,
    ) -> Result<(), TensorError> {
        if src.shape().leaves() != self.logical_i64() {
            return Err(TensorError::ShapeMismatch {
                op,
                a: crate::tensor::Extents::from_slice(src.shape().leaves()),
                b: crate::tensor::Extents::from_slice(self.logical_i64()),
            });
        }
        Ok(())
    }

    /// Copy `src` (the logical extents) into `buf`, laid out by the padded layout: piece by
    /// piece through the affine copy engine (see `Pieces`) when both layouts are affine and
    /// `src` has strided axes, else through the `Padded` view.
    #[cfg(feature = "alloc")]
    fn pad_into<T: Copy, S: Storage<Elem = T>, L2: AnyLayout>(
        &self,
        buf: &mut [T],
        src: &Tensor<S, L2>,
    ) -> Result<(), TensorError> {
        let logical = self.logical_i64();
        self.check_logical(crate::tensor::ShapeOp::PadFrom, src)?;
        if L::AFFINE && L2::AFFINE && self.size() >= PIECES_FROM {
            let pieces = Pieces::new(&self.layout.to_dyn()?, logical)?;
            if pieces.min_base() >= 0 {
                let mut strided = true;
                pieces.for_each(|layout, base, ranges| {
                    if !strided {
                        return Ok(());
                    }
                    match src.view().slice(ranges) {
                        Ok(part) => {
                            // `base >= 0` (checked above)
                            Tensor::with_offset(&mut buf[..], layout, base as usize)?
                                .copy_from(&part)
                        }
                        Err(_) => {
                            strided = false;
                            Ok(())
                        }
                    }
                })?;
                if strided {
                    return Ok(());
                }
            }
        }
        Tensor::new(&mut buf[..], *self)?.copy_from(src)
    }
}

/// At most this many pieces per axis (one per leaf of its mode).
#[cfg(feature = "alloc")]
const MAX_PIECES: usize = crate::MAX_LEAVES;

/// Tensors of fewer logical elements are copied through the `Padded` view in one plan: each
/// piece costs a copy plan of its own (`benches/named.rs`: at 100 × 30 the view is faster).
#[cfg(feature = "alloc")]
const PIECES_FROM: i64 = 1 << 14;

/// The logical box `[0, n_0) × [0, n_1) × …` of an affine padded layout cut into boxes on each
/// of which the layout is an affine layout plus a constant offset, so the copy engine can move
/// each with its fast paths.
///
/// Per axis, `n` is written in the mixed radix of its mode's leaves `e_0, e_1, …` (first leaf
/// fastest): `n = Σ d_i·P_i` with `P_i = e_0·…·e_(i-1)`. From the highest digit down, the
/// interval `[start, start + d_i·P_i)` is the layout of leaves `(e_0, …, e_(i-1), d_i)` with the
/// mode's strides, shifted by the mode's offset of `start`: `start` is a multiple of
/// `P_(i+1)`, so an index `start + c` (`c < d_i·P_i`) has `start`'s digits above leaf `i`, `c`'s
/// digits below and at it, and nothing carries. NZ f16 with 100 rows (leaves 16, 7) gives rows
/// `[0, 96)` as `(16,6)` and `[96, 100)` as `(4)`.
#[cfg(feature = "alloc")]
struct Pieces {
    rank: usize,
    count: [usize; MAX_PADDED_AXES],
    /// The mode of every axis.
    modes: [DynLayout; MAX_PADDED_AXES],
    /// Per axis, its pieces.
    piece: [[Piece; MAX_PIECES]; MAX_PADDED_AXES],
}

/// One interval of an axis: the leaf `i` it ends at, its digit, the mode's offset of its first
/// index, that first index, its length.
#[cfg(feature = "alloc")]
type Piece = (usize, i64, i64, i64, i64);

#[cfg(feature = "alloc")]
impl Pieces {
    fn new(d: &DynLayout, logical: &[i64]) -> Result<Pieces, LayoutError> {
        let rank = logical.len();
        let mut p = Pieces {
            rank,
            count: [0; MAX_PADDED_AXES],
            modes: [DynLayout::EMPTY; MAX_PADDED_AXES],
            piece: [[(0, 0, 0, 0, 0); MAX_PIECES]; MAX_PADDED_AXES],
        };
        for (k, &n) in logical.iter().enumerate() {
            let mode = if d.profile().is_leaf() {
                *d
            } else {
                d.mode(k)?
            };
            p.modes[k] = mode;
            let s = mode.shape_leaves();
            let leaves = s.len();
            // prefix products P_i (each at most the mode's size)
            let mut prefix = [1i64; crate::MAX_LEAVES + 1];
            for i in 0..leaves {
                prefix[i + 1] = prefix[i] * s[i];
            }
            let mut start = 0i64;
            for i in (0..leaves).rev() {
                let digit = (n - start) / prefix[i];
                if digit == 0 {
                    continue;
                }
                let len = digit * prefix[i];
                p.piece[k][p.count[k]] = (i, digit, mode.offset(start), start, len);
                p.count[k] += 1;
                start += len;
            }
        }
        Ok(p)
    }

    /// The smallest base offset of any piece.
    fn min_base(&self) -> i64 {
        let mut b = 0;
        for k in 0..self.rank {
            b += (0..self.count[k])
                .map(|j| self.piece[k][j].1)
                .min()
                .unwrap_or(0)
                .min(0);
        }
        b
    }

    /// Call `f(layout, base offset, slices)` for every box: one piece per axis.
    fn for_each(
        &self,
        mut f: impl FnMut(DynLayout, i64, &[crate::tensor::Slice]) -> Result<(), TensorError>,
    ) -> Result<(), TensorError> {
        let rank = self.rank;
        let mut idx = [0usize; MAX_PADDED_AXES];
        loop {
            let mut parts = [DynLayout::EMPTY; MAX_PADDED_AXES];
            let mut ranges = [crate::tensor::Slice::ALL; MAX_PADDED_AXES];
            let mut base = 0i64;
            for k in 0..rank {
                let (i, digit, off, start, len) = self.piece[k][idx[k]];
                let mode = &self.modes[k];
                let mut shape = [0i64; crate::MAX_LEAVES];
                shape[..i].copy_from_slice(&mode.shape_leaves()[..i]);
                shape[i] = digit;
                parts[k] = DynLayout::from_flat(&shape[..=i], &mode.stride_leaves()[..=i])?;
                base += off;
                ranges[k] = crate::tensor::Slice::Range {
                    start: Some(start),
                    stop: Some(start + len),
                    step: 1,
                };
            }
            f(
                DynLayout::make_layout(&parts[..rank])?,
                base,
                &ranges[..rank],
            )?;
            let mut k = rank;
            loop {
                if k == 0 {
                    return Ok(());
                }
                k -= 1;
                idx[k] += 1;
                if idx[k] < self.count[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
    }
}

impl<L: AnyLayout> fmt::Display for Padded<L> {
    /// The padded layout followed by the logical extents: `… [logical (20,28)]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} [logical (", self.layout)?;
        for (k, e) in self.logical().iter().enumerate() {
            if k > 0 {
                f.write_str(",")?;
            }
            write!(f, "{e}")?;
        }
        f.write_str(")]")
    }
}

impl<L: AnyLayout> fmt::Debug for Padded<L> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

// SAFETY: the inner layout is the compact row-major layout of the logical extents (domain
// `domain()`), and `post_offset` undoes it (row-major unravel) before mapping the coordinate
// through `L` exactly as `offset` does after its colexicographic unravel, so
// `offset(i) == post_offset(inner.offset(i))`. `post_run` counts only offsets along the
// last axis inside the stride-1 prefix of its mode (`unit`, computed from `L`'s affine form)
// and before the logical end of the row, where `L`'s offsets are consecutive. Offsets are a
// subset of `L`'s, so `L`'s bounds contain them and `L` injective makes this injective; else
// the provided scan decides exactly.
unsafe impl<L: AnyLayout> AnyLayout for Padded<L> {
    const AFFINE: bool = false;

    fn domain(&self) -> DynTuple {
        DynTuple::from_slice(self.logical_i64()).unwrap_or(DynTuple::EMPTY)
    }

    fn size(&self) -> i64 {
        self.logical_i64().iter().product()
    }

    fn offset(&self, i: i64) -> i64 {
        let mut rest = i;
        let mut idx = 0;
        let mut scale = 1;
        for k in 0..self.parts.rank {
            let c = if k + 1 == self.parts.rank {
                rest
            } else {
                rest % self.parts.logical[k]
            };
            rest /= self.parts.logical[k];
            idx += c * scale;
            scale *= self.parts.padded[k];
        }
        self.layout.offset(idx)
    }

    fn to_dyn(&self) -> Result<DynLayout, LayoutError> {
        Err(LayoutError::Precondition {
            what: "a padded layout has no shape:stride form over its logical domain (use .layout() for the padded one); logical and padded sizes are {a} and {b}",
            a: self.size(),
            b: self.padded_i64().iter().product(),
        })
    }

    fn inner_layout(&self) -> Result<DynLayout, LayoutError> {
        DynLayout::row_major(&DynTuple::from_slice(self.logical_i64())?)
    }

    #[inline]
    fn post_offset(&self, x: i64) -> i64 {
        let mut rest = x;
        let mut coord = [0i64; MAX_PADDED_AXES];
        for k in (0..self.parts.rank).rev() {
            coord[k] = rest % self.parts.logical[k];
            rest /= self.parts.logical[k];
        }
        self.layout
            .offset(self.padded_index(&coord[..self.parts.rank]))
    }

    #[inline]
    fn post_run(&self, x: i64) -> i64 {
        let n = self.parts.logical[self.parts.rank - 1];
        let c = x % n;
        (self.parts.unit - c % self.parts.unit).min(n - c).max(1)
    }

    fn offset_bounds(&self) -> Result<(i64, i64), LayoutError> {
        self.layout.offset_bounds()
    }

    fn find_collision(&self) -> Result<Option<i64>, LayoutError> {
        match self.layout.find_collision() {
            Ok(None) => Ok(None),
            Ok(Some(_)) | Err(LayoutError::NotInjectiveBySize { .. }) => {
                crate::walk::scan::scan_collision(self)
            }
            Err(e) => Err(e),
        }
    }
}

// SAFETY: each index (any integer type, saturated into i64, so a negative or huge index
// fails the check) is checked against its logical extent, and the offset is the one `offset`
// gives the same coordinate (both go through `padded_index` and `L`).
unsafe impl<L: AnyLayout, I: crate::ToDynInt> TensorIndex<Padded<L>> for &[I] {
    fn checked_offset(&self, layout: &Padded<L>) -> Option<i64> {
        if self.len() != layout.parts.rank {
            return None;
        }
        let mut c = [0i64; MAX_PADDED_AXES];
        for ((ci, &x), &e) in c.iter_mut().zip(self.iter()).zip(layout.logical_i64()) {
            let x = x.to_dyn_int();
            if x < 0 || x >= e {
                return None;
            }
            *ci = x;
        }
        Some(layout.layout.offset(layout.padded_index(&c[..self.len()])))
    }
}

// SAFETY: delegates to the slice implementation.
unsafe impl<L: AnyLayout, I: crate::ToDynInt, const K: usize> TensorIndex<Padded<L>> for [I; K] {
    fn checked_offset(&self, layout: &Padded<L>) -> Option<i64> {
        (&self[..]).checked_offset(layout)
    }
}
