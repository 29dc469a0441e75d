//! Copies: one generic copy that walks two layouts in lock-step, with a `memcpy` fast path.
//!
//! `dst.copy_from(&src)` copies the element at every logical coordinate — per-axis indices, an
//! index into a hierarchical axis being a 1-D index of its mode — so it converts between any two
//! layouts of the same shape: row-major to column-major, ND to NZ, NCHW to blocked.
//!
//! The two layouts are refined to common modes; the walk then follows the destination's memory
//! order, coalescing modes, and picks a kernel from the innermost modes:
//!
//! - stride 1 in both layouts: whole runs — the common vector of the two layouts
//!   ([`DynLayout::max_common_vector`], CuTe's `max_common_vector`) and its translates — moved
//!   with constant-length copies ([`copy_runs`]); equal dense layouts are one `copy_from_slice`.
//!   When the run is short (8 to 64 bytes: ND → NZ moves 32-byte fractal rows) and each layout
//!   continues it through a different mode, the copy is a transpose of whole runs
//!   ([`transpose_chunks`]: the destination written front to back); when only the source
//!   continues it, up to 256 source-contiguous bytes are visited together.
//! - stride 1 in different modes (a transpose): the tiled SIMD transpose ([`transpose`]:
//!   in-register micro-tiles per element size and instruction set).
//! - otherwise: a cache-blocked walk, element by element.
//!
//! Copies larger than [`stream_bytes`] (an eighth of the last-level cache) write with non-temporal stores. Layouts without a common
//! refinement (`(2,3)` against `(3,2)` inside one axis) are one `copy_from_slice` when their
//! `max_common_vector` is the whole tensor, and otherwise fall back to evaluating both layouts
//! per element. Non-affine layouts (swizzled) are copied along their inner layouts' runs, cut
//! where `post_run` says; a swizzle's moves are tabulated for one period
//! ([`AnyLayout::post_period`]) and repeated. Two static affine layout types skip all of this:
//! their plan is a constant (`copy_static.rs`). [`Tensor::par_copy_from`] cuts the plan into one
//! part per thread.

use super::TensorError;
use super::axes::TensorAxes;
use super::copy_static::StaticCopy;
use super::{Storage, StorageMut, Tensor};
use crate::walk::Axes;
use crate::walk::kernels::{
    Width, chunk_supported, copy_runs, plain_width, stream_bytes, transpose, transpose_chunks,
};
use crate::walk::{Joint, Mode, Plan};
use crate::{AnyLayout, DynLayout, PostPeriod};
#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, vec::Vec};

/// Block size (in elements per mode) of the cache-blocked walk used for transposing copies.
const TILE: i64 = 32;
/// Bytes a short common run is widened to in the source's memory order (NZ fractal rows): 256
/// measured best on Zen 5 for u8, u16 and f32 ND ↔ NZ (64-element runs of u16 reached 45 % of
/// memcpy on 2048² ND → NZ, 128-element ones 49 %; f32 NZ → ND fell from 79 % to 41 % when
/// widened to 512 bytes).
const RUN_BYTES: i64 = 256;

/// `true` when the offsets of `l` are exactly `0..size` in some order (`l` injective).
fn dense(l: &DynLayout) -> bool {
    l.offset_range() == (0, l.size() - 1)
}

/// Check that two layouts have the same axis extents (`op`: the operation, for the message).
pub(crate) fn same_shape(
    op: super::ShapeOp,
    a: &DynLayout,
    b: &DynLayout,
) -> Result<(), TensorError> {
    let (xa, xb) = (Axes::new(a), Axes::new(b));
    let (ea, ra) = xa.extents();
    let (eb, rb) = xb.extents();
    if ea[..ra] != eb[..rb] {
        return Err(TensorError::ShapeMismatch {
            op,
            a: xa.extents_short(),
            b: xb.extents_short(),
        });
    }
    Ok(())
}

/// The plan a copy from `src` into `dst` follows: common modes in `dst`'s memory order,
/// coalesced; `None` when the layouts have no common refinement.
#[cfg(any(test, feature = "rayon"))]
fn copy_plan(src: &DynLayout, dst: &DynLayout) -> Option<Plan<2>> {
    let mut p = Plan::EMPTY;
    copy_plan_into(src, dst, &mut p).then_some(p)
}

/// [`copy_plan`] into `p`, without moving the plan; `false` when there is none.
fn copy_plan_into(src: &DynLayout, dst: &DynLayout, p: &mut Plan<2>) -> bool {
    if !Plan::joint_into([src, dst], p) {
        return false;
    }
    p.sort_by_stride(1);
    p.coalesce();
    true
}

/// How an affine copy moves its elements, from the shape of the plan's innermost modes.
enum Kernel {
    /// The innermost mode is contiguous in both layouts: runs of `len`, `count` at a time along
    /// the next mode (`count == 1` when there is none).
    Runs { len: usize, next: Option<Mode<2>> },
    /// A transpose: mode `i` (innermost) is contiguous in the destination, mode `j` in the
    /// source.
    Transpose { i: usize, j: usize },
    /// A transpose of short common runs of `len` elements (ND ↔ NZ fractal rows): mode `i`
    /// continues the run in the destination, mode `j` in the source.
    Chunks { len: usize, i: usize, j: usize },
    /// Anything else: the cache-blocked walk, element by element.
    Elements,
}

/// Pick the kernel for a plan sorted in the destination's memory order and coalesced, adjusting
/// the plan for it (widened runs, or cache blocking for the element walk).
fn kernel(p: &mut Plan<2>, elem_bytes: usize) -> Kernel {
    let n = p.modes().len();
    let Some(&inner) = p.modes().last() else {
        return Kernel::Runs { len: 1, next: None };
    };
    if inner.st == [1, 1] {
        let len = inner.ext;
        let cont = |r: usize| (0..n - 1).find(|&k| p.modes()[k].st[r] == len);
        if chunk_supported(len as usize * elem_bytes)
            && let (Some(i), Some(j)) = (cont(1), cont(0))
            && i != j
        {
            return Kernel::Chunks {
                len: len as usize,
                i,
                j,
            };
        }
        p.widen_runs(0, (RUN_BYTES / elem_bytes.max(1) as i64).max(1));
        let m = p.modes();
        let len = m[m.len() - 1].ext as usize;
        let next = (m.len() >= 2).then(|| m[m.len() - 2]);
        return Kernel::Runs { len, next };
    }
    if inner.st[1] == 1
        && let Some(j) = (0..n - 1).find(|&j| p.modes()[j].st[0] == 1)
    {
        return Kernel::Transpose { i: n - 1, j };
    }
    p.tile(0, TILE);
    Kernel::Elements
}

/// The affine copy `d[db + dst(c)] = s[sb + src(c)]` for every coordinate `c` of the plan.
fn copy_affine<T: Copy>(d: &mut [T], db: i64, s: &[T], sb: i64, p: &mut Plan<2>) {
    let large = is_large::<T>(p.size());
    // SAFETY: the plan's offsets are offsets of the two layouts' domains (the plan refines
    // both), and construction checked `base + offset` inside both buffers for all of them; `d`
    // and `s` are distinct buffers (`&mut` and `&`).
    unsafe { copy_affine_raw(d.as_mut_ptr(), db, s.as_ptr(), sb, p, large) }
}

/// Whether a copy of `elems` elements of `T` is larger than the caches ([`stream_bytes`]): its
/// kernels then take tiles with long source runs and write with non-temporal stores.
fn is_large<T>(elems: i64) -> bool {
    (elems as usize).saturating_mul(core::mem::size_of::<T>()) > stream_bytes()
}

/// [`copy_affine`] on raw buffers, with `large` ([`is_large`]) decided by the caller (for the
/// whole copy, when this is one part of it).
///
/// # Safety
/// `db + o[1]` must be a writable element of `dp`'s buffer and `sb + o[0]` a readable one of
/// `sp`'s for every offset pair `o` of the plan; the two buffers are distinct; no other thread
/// reads or writes the destination elements meanwhile.
unsafe fn copy_affine_raw<T: Copy>(
    dp: *mut T,
    db: i64,
    sp: *const T,
    sb: i64,
    p: &mut Plan<2>,
    large: bool,
) {
    let at = |o: [i64; 2]| ((sb + o[0]) as usize, (db + o[1]) as usize);
    match kernel(p, core::mem::size_of::<T>()) {
        Kernel::Runs { len, next } => {
            let (count, ss, ds) = match next {
                Some(m) => (m.ext as usize, m.st[0] as isize, m.st[1] as isize),
                None => (1, 0, 0),
            };
            let n = p.modes().len();
            let drop: &[usize] = if next.is_some() {
                &[n - 2, n - 1]
            } else {
                &[n.saturating_sub(1)]
            };
            p.for_each_start_without(drop, |o| {
                let (si, di) = at(o);
                // SAFETY: the `count` runs of `len` elements starting here are elements of the
                // plan: offsets of both domains, inside both buffers by the construction
                // checks; `d` and `s` are distinct buffers (`&mut` and `&`).
                unsafe { copy_runs(dp.wrapping_add(di), ds, sp.wrapping_add(si), ss, len, count) };
            });
        }
        Kernel::Transpose { i, j } => {
            let (mi, mj) = (p.modes()[i], p.modes()[j]);
            let (rows, cols) = (mi.ext as usize, mj.ext as usize);
            let (lds, ldd) = (mi.st[0] as isize, mj.st[1] as isize);
            p.for_each_start_without(&[i, j], |o| {
                let (si, di) = at(o);
                // SAFETY: every `(i, j)` of the block is an element of the plan (modes `i` and
                // `j` at this point of the others): inside both buffers as above, distinct
                // buffers.
                unsafe {
                    transpose(
                        dp.wrapping_add(di),
                        ldd,
                        sp.wrapping_add(si),
                        lds,
                        rows,
                        cols,
                        large,
                    )
                };
            });
        }
        Kernel::Chunks { len, i, j } => {
            let (mi, mj) = (p.modes()[i], p.modes()[j]);
            let inner = p.modes().len() - 1;
            let size = core::mem::size_of::<T>();
            let (rows, cols) = (mi.ext as usize, mj.ext as usize);
            let (lds, ldd) = (
                mi.st[0] as isize * size as isize,
                mj.st[1] as isize * size as isize,
            );
            // streamed stores move SIMD registers: plain data only (no padding bytes)
            let stream = large && plain_width::<T>() != Width::Scalar;
            p.for_each_start_without(&[i, j, inner], |o| {
                let (si, di) = at(o);
                // SAFETY: every chunk `(i, j)` is `len` elements of the plan (the run mode at
                // modes `i` and `j` at this point of the others): inside both buffers as above,
                // distinct buffers.
                unsafe {
                    transpose_chunks(
                        dp.wrapping_add(di).cast(),
                        ldd,
                        sp.wrapping_add(si).cast(),
                        lds,
                        rows,
                        cols,
                        len * size,
                        large,
                        stream,
                    )
                };
            });
        }
        Kernel::Elements => p.for_each(|o| {
            let (si, di) = at(o);
            // SAFETY: as above, one element.
            unsafe { *dp.add(di) = *sp.add(si) };
        }),
    }
}

/// Copies below this many bytes run on the calling thread. Measured on the 2-vCPU Zen 5 VM of
/// BENCHMARKS.md, two threads lost to one below about 8 MiB (4 MiB transposes: 0.6–0.8× of the
/// serial copy), where one thread already takes the memory bandwidth.
#[cfg(feature = "rayon")]
const PAR_BYTES: usize = 8 << 20;

/// A buffer pointer handed to the threads of one parallel copy.
#[cfg(feature = "rayon")]
#[derive(Clone, Copy)]
struct Shared<P>(P);
// SAFETY: the parts of a parallel copy write disjoint destination elements (an injective
// layout's offsets of disjoint coordinates) and only read the source; `T: Send + Sync` (the
// bounds of `par_copy_from`) makes moving and sharing the elements themselves sound.
#[cfg(feature = "rayon")]
unsafe impl<T: Send + Sync> Send for Shared<*mut T> {}
// SAFETY: as above.
#[cfg(feature = "rayon")]
unsafe impl<T: Send + Sync> Send for Shared<*const T> {}
// SAFETY: as above (the threads copy the pointer out; nothing is written through a shared
// `Shared`).
#[cfg(feature = "rayon")]
unsafe impl<T: Send + Sync> Sync for Shared<*mut T> {}
// SAFETY: as above.
#[cfg(feature = "rayon")]
unsafe impl<T: Send + Sync> Sync for Shared<*const T> {}

/// [`copy_affine`] split over rayon's threads (copies of at least `min_bytes`; smaller ones run
/// on the calling thread): the plan's outermost mode that gives every
/// thread work (else its longest one other than the innermost) is cut into one range per
/// thread; each part is an ordinary copy, and whether the copy is large ([`is_large`]) is
/// decided once for the whole of it.
///
/// # Safety
/// As [`copy_affine_raw`] (except that the parts run on other threads: the destination's
/// layout must be injective, so that they write disjoint elements), and `T: Send + Sync`.
#[cfg(feature = "rayon")]
unsafe fn copy_affine_par<T: Copy + Send + Sync>(
    dp: *mut T,
    db: i64,
    sp: *const T,
    sb: i64,
    p: Plan<2>,
    min_bytes: usize,
) {
    let threads = rayon::current_num_threads();
    let bytes = (p.size() as usize).saturating_mul(core::mem::size_of::<T>());
    let m = p.modes();
    // candidates: every mode but the innermost (a lone mode is its own candidate)
    let outer = if m.len() > 1 { m.len() - 1 } else { m.len() };
    let k = (0..outer)
        .find(|&k| m[k].ext >= threads as i64)
        .or_else(|| (0..outer).max_by_key(|&k| m[k].ext));
    let large = is_large::<T>(p.size());
    let (Some(k), true) = (k, threads > 1 && bytes >= min_bytes) else {
        let mut p = p;
        // SAFETY: the caller's contract, on this thread.
        return unsafe { copy_affine_raw(dp, db, sp, sb, &mut p, large) };
    };
    let ext = m[k].ext;
    let parts = (threads as i64).min(ext);
    let (d, s) = (Shared(dp), Shared(sp));
    rayon::scope(|sc| {
        for t in 0..parts {
            let mut part = p.part(k, ext * t / parts, ext * (t + 1) / parts);
            sc.spawn(move |_| {
                let (d, s) = (d, s);
                // SAFETY: the part's offsets are offsets of the whole plan (caller's bounds);
                // the parts cover disjoint coordinates, so with an injective destination they
                // write disjoint elements.
                unsafe { copy_affine_raw(d.0, db, s.0, sb, &mut part, large) }
            });
        }
    });
}

/// Most vectors per period a copy tabulates (a swizzle `Sw<B,M,S>` has `2^(|S|+B)`: 64 for
/// `Sw<3,3,3>`).
const PERIOD_VECTORS: usize = 256;

/// The moves of one period of a periodic `post_offset` ([`PostPeriod`]): vector `q` of the
/// period starting at the aligned inner offset `x` goes to `x + T[q]`, with
/// `T[q] = post_offset(x0 + q·vector) − x0` the same for every aligned `x0`.
struct PeriodTable {
    /// `post_offset(x0 + q·vector) − x0` for the first period `x0` it was filled from.
    t: [i64; PERIOD_VECTORS],
    /// Vectors per period (0 until filled).
    n: usize,
    vector: i64,
}

impl PeriodTable {
    fn new() -> Self {
        PeriodTable {
            t: [0; PERIOD_VECTORS],
            n: 0,
            vector: 1,
        }
    }

    /// Tabulate the period from the aligned inner offset `x0` (once: every period gives the
    /// same table); `false` when the period has too many vectors.
    fn fill(&mut self, b: PostPeriod, x0: i64, post: impl Fn(i64) -> i64) -> bool {
        if self.n > 0 {
            return true;
        }
        let n = b.period / b.vector;
        if n as usize > PERIOD_VECTORS {
            return false;
        }
        for q in 0..n {
            self.t[q as usize] = post(x0 + q * b.vector) - x0;
        }
        (self.n, self.vector) = (n as usize, b.vector);
        true
    }

    /// Move `periods` whole periods: the affine side's offsets run on from `base_affine`
    /// (buffer index of the first element), the periodic side's are `base_periodic + m·period +
    /// T[q]`, where `base_*` is `buffer base + inner offset` of the first element. `dst_side`:
    /// the destination is the periodic side.
    ///
    /// # Safety
    /// Every offset so named is an element of the respective buffer, the buffers distinct.
    unsafe fn copy<T: Copy>(
        &self,
        d: *mut T,
        s: *const T,
        s0: i64,
        d0: i64,
        dst_side: bool,
        periods: i64,
    ) {
        /// The period loop with a constant vector length.
        ///
        /// # Safety
        /// As [`PeriodTable::copy`], with `V == vector`.
        #[inline(always)]
        unsafe fn run<T: Copy, const V: usize>(
            t: &PeriodTable,
            d: *mut T,
            s: *const T,
            s0: i64,
            d0: i64,
            dst_side: bool,
            periods: i64,
        ) {
            let v = t.vector;
            let period = t.n as i64 * v;
            for m in 0..periods {
                let at = m * period;
                for (q, &tq) in t.t[..t.n].iter().enumerate() {
                    let lin = at + q as i64 * v;
                    let (si, di) = if dst_side {
                        (s0 + lin, d0 + at + tq)
                    } else {
                        (s0 + at + tq, d0 + lin)
                    };
                    // SAFETY: the caller's contract; `V` elements from each.
                    unsafe {
                        core::ptr::copy_nonoverlapping(
                            s.add(si as usize),
                            d.add(di as usize),
                            if V == 0 { v as usize } else { V },
                        )
                    };
                }
            }
        }
        // SAFETY: (every arm) the caller's contract, `V` the table's vector length.
        unsafe {
            match self.vector {
                1 => run::<T, 1>(self, d, s, s0, d0, dst_side, periods),
                2 => run::<T, 2>(self, d, s, s0, d0, dst_side, periods),
                4 => run::<T, 4>(self, d, s, s0, d0, dst_side, periods),
                8 => run::<T, 8>(self, d, s, s0, d0, dst_side, periods),
                16 => run::<T, 16>(self, d, s, s0, d0, dst_side, periods),
                32 => run::<T, 32>(self, d, s, s0, d0, dst_side, periods),
                _ => run::<T, 0>(self, d, s, s0, d0, dst_side, periods),
            }
        }
    }
}

impl<St: StorageMut, L: AnyLayout> Tensor<St, L>
where
    St::Elem: Copy,
{
    /// Copy every element of `src` (same axis extents, any layout) to the same logical
    /// coordinate of this tensor.
    ///
    /// ```
    /// use layout::{DynLayout, tensor::Tensor};
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
    /// How it runs: between two static affine layout types (every extent and stride an
    /// `Int<N>`, or a static named layout such as [`Nz<f16, M, N>`](crate::named::Nz)) the plan
    /// is computed at compile time and the copy is straight-line moves at constant offsets;
    /// between affine layouts known at run time, a plan picks a kernel (runs, tiled SIMD
    /// transposes, transposes of short runs for ND ↔ NZ); swizzled layouts move whole vectors
    /// from a table of one swizzle period. [`Tensor::par_copy_from`] splits large copies over
    /// threads.
    ///
    /// ```
    /// use layout::named::{Nz, f16};
    /// use layout::{Int, Layout, tensor::Tensor};
    /// // a static 32 x 32 row-major tile into a static NZ tile: no plan at run time
    /// let nd = Layout::new((Int::<32>, Int::<32>), (Int::<32>, Int::<1>));
    /// let src = Tensor::new((0..1024u16).collect::<Vec<_>>(), nd).unwrap();
    /// let mut dst = Tensor::new(vec![0u16; 1024], Nz::<f16, 32, 32>::new()).unwrap();
    /// dst.copy_from(&src).unwrap();
    /// assert!(dst.iter().eq(src.iter()));
    /// ```
    ///
    /// # Errors
    /// [`TensorError::ShapeMismatch`] naming both shapes.
    #[inline]
    pub fn copy_from<S2: Storage<Elem = St::Elem>, L2: AnyLayout>(
        &mut self,
        src: &Tensor<S2, L2>,
    ) -> Result<(), TensorError> {
        if StaticCopy::<L, L2>::OK {
            // two static layouts of the same axis extents: the plan is a constant
            let (sb, db) = (src.base, self.base);
            let s = src.storage.as_slice().as_ptr();
            let d = self.storage.as_mut_slice().as_mut_ptr();
            // SAFETY: construction checked `base + offset` inside each buffer for every offset
            // of the tensor's layout; `&mut self` and `&src` are distinct buffers.
            unsafe { StaticCopy::<L, L2>::copy(d.wrapping_add(db), s.wrapping_add(sb)) };
            return Ok(());
        }
        self.copy_from_planned(src)
    }

    /// [`Tensor::copy_from`] with the plan made at run time.
    fn copy_from_planned<S2: Storage<Elem = St::Elem>, L2: AnyLayout>(
        &mut self,
        src: &Tensor<S2, L2>,
    ) -> Result<(), TensorError> {
        // the inner layouts are the layouts themselves when affine
        let (sl, dl) = (src.inner(), self.inner());
        same_shape(super::ShapeOp::CopyFrom, &sl, &dl)?;
        if !(L::AFFINE && L2::AFFINE) {
            self.copy_per_element(src, &sl, &dl);
            return Ok(());
        }
        let (sb, db) = (src.base as i64, self.base as i64);
        let s = src.storage.as_slice();
        let d = self.storage.as_mut_slice();
        let mut p = Plan::EMPTY;
        match copy_plan_into(&sl, &dl, &mut p) {
            true => copy_affine(d, db, s, sb, &mut p),
            // No common refinement (`((2,3))` against `((3,2))` inside one axis). Equal axis
            // extents make the 1-D index of a logical coordinate the same in both layouts, so
            // when their `max_common_vector` is the whole domain of two dense layouts, both map
            // index `R(i)` to offset `i` for every `i`: one `memcpy`. (Only here: computing it
            // costs about as much as a 64 KiB `memcpy`, and for refinable layouts the plan
            // above already finds the same vector.)
            false if dense(&sl) && dense(&dl) && sl.max_common_vector(&dl) == sl.size() => {
                let n = sl.size() as usize;
                let (sb, db) = (sb as usize, db as usize);
                // in the buffers by the construction bounds checks (offsets 0..n)
                d[db..db + n].copy_from_slice(&s[sb..sb + n]);
            }
            false => Joint::new([&sl, &dl]).for_each(|[so, dof]| {
                // SAFETY: as above: offsets of logical coordinates of both domains.
                unsafe {
                    *d.get_unchecked_mut((db + dof) as usize) = *s.get_unchecked((sb + so) as usize)
                };
            }),
        }
        Ok(())
    }

    /// [`Tensor::copy_from`] on rayon's threads: the copy is cut into one part per thread along
    /// an outer mode of the walk (each part moved by the same kernels), for copies of at least
    /// 8 MiB between affine layouts; smaller or non-affine copies run on the calling thread.
    ///
    /// ```
    /// use layout::tensor::Tensor;
    /// let a = Tensor::from_fn(&[512, 768], |i| i as f32).unwrap();
    /// let mut t = Tensor::from_vec(vec![0f32; 512 * 768], &[768, 512]).unwrap();
    /// t.par_copy_from(&a.view().t().unwrap()).unwrap();
    /// assert_eq!(t[[5, 7]], a[[7, 5]]);
    /// ```
    ///
    /// # Errors
    /// [`TensorError::ShapeMismatch`] naming both shapes.
    #[cfg(feature = "rayon")]
    pub fn par_copy_from<S2: Storage<Elem = St::Elem>, L2: AnyLayout>(
        &mut self,
        src: &Tensor<S2, L2>,
    ) -> Result<(), TensorError>
    where
        St::Elem: Send + Sync,
    {
        let (sl, dl) = (src.inner(), self.inner());
        same_shape(super::ShapeOp::ParCopyFrom, &sl, &dl)?;
        if L::AFFINE
            && L2::AFFINE
            && let Some(p) = copy_plan(&sl, &dl)
        {
            let (sb, db) = (src.base as i64, self.base as i64);
            let s = src.storage.as_slice();
            let d = self.storage.as_mut_slice();
            // SAFETY: as in `copy_from` (the plan's offsets are in both buffers, which are
            // distinct); a writable tensor's layout is injective (checked at construction), so
            // the parts write disjoint elements; `T: Send + Sync` by the bounds.
            unsafe { copy_affine_par(d.as_mut_ptr(), db, s.as_ptr(), sb, p, PAR_BYTES) };
            return Ok(());
        }
        self.copy_from(src)
    }

    /// The generic copy for non-affine layouts: walk the inner layouts in lock-step (in the
    /// destination's inner memory order when they refine each other) and map offsets through
    /// `post_offset`. Where both inner layouts are contiguous (a common run of the plan), runs
    /// are cut where either `post_offset` breaks contiguity ([`AnyLayout::post_run`]: a
    /// swizzle keeps its aligned `2^M` vectors whole) and each piece is one slice copy.
    fn copy_per_element<S2: Storage<Elem = St::Elem>, L2: AnyLayout>(
        &mut self,
        src: &Tensor<S2, L2>,
        sl: &DynLayout,
        dl: &DynLayout,
    ) {
        let (sb, db) = (src.base as i64, self.base as i64);
        let (ps, pd) = (src.layout, self.layout);
        let s = src.storage.as_slice();
        let d = self.storage.as_mut_slice();
        let mut one = |[so, dof]: [i64; 2]| {
            let (si, di) = (sb + ps.post_offset(so), db + pd.post_offset(dof));
            // SAFETY: `so`, `dof` are offsets of the inner layouts' domains at one logical
            // coordinate; `post_offset` maps them to offsets of the two layouts (`AnyLayout`
            // contract), inside both buffers by the construction bounds checks.
            unsafe { *d.get_unchecked_mut(di as usize) = *s.get_unchecked(si as usize) };
        };
        match Joint::new([sl, dl]) {
            Joint::Fast(mut p) => {
                p.sort_by_stride(1);
                p.coalesce();
                if p.contiguous_run() == 1 {
                    return p.for_each(one);
                }
                // the moves of one period of the non-affine side, when the other is affine
                let periodic = match (L::AFFINE, L2::AFFINE) {
                    (false, true) => pd.post_period().map(|b| (b, true)),
                    (true, false) => ps.post_period().map(|b| (b, false)),
                    _ => None,
                };
                let mut table = PeriodTable::new();
                let (dp, sp) = (d.as_mut_ptr(), s.as_ptr());
                // the runs `post_run` guarantees, one at a time
                let pieces = |mut so: i64, mut dof: i64, mut len: i64| {
                    while len > 0 {
                        let k = len.min(ps.post_run(so)).min(pd.post_run(dof)).max(1);
                        // `k` consecutive offsets in both layouts (`post_run`), all offsets of
                        // the domains
                        let si = (sb + ps.post_offset(so)) as usize;
                        let di = (db + pd.post_offset(dof)) as usize;
                        // SAFETY: the `k` offsets from `so` / `dof` are consecutive in both
                        // layouts (`post_run`) and offsets of their domains, so `si..si + k` and
                        // `di..di + k` lie inside the buffers (construction bounds checks); the
                        // buffers are distinct (`&mut` and `&`).
                        unsafe { copy_runs(dp.add(di), 0, sp.add(si), 0, k as usize, 1) };
                        so += k;
                        dof += k;
                        len -= k;
                    }
                };
                p.for_each_run(|[so, dof], len| {
                    let Some((b, dst_side)) = periodic else {
                        return pieces(so, dof, len);
                    };
                    // the periodic side's inner offset, and where its first whole period starts
                    let x = if dst_side { dof } else { so };
                    let head = (b.phase - x).rem_euclid(b.period);
                    let periods = (len - head).max(0) / b.period;
                    if periods == 0
                        || !table.fill(b, x + head, |y| {
                            if dst_side {
                                pd.post_offset(y)
                            } else {
                                ps.post_offset(y)
                            }
                        })
                    {
                        return pieces(so, dof, len);
                    }
                    pieces(so, dof, head);
                    let (so1, dof1) = (so + head, dof + head);
                    // SAFETY: period `m`, vector `q` of the run: on the periodic side its
                    // offsets are `post_offset` of the inner offsets `x + head + m·period +
                    // q·vector + j` (`j < vector`), which the table and `PostPeriod`'s contract
                    // give as `x + head + m·period + T[q] + j`; on the affine side they are the
                    // inner offsets themselves. All are offsets of the two domains (elements of
                    // this run), inside both buffers (construction checks); distinct buffers.
                    unsafe { table.copy(dp, sp, sb + so1, db + dof1, dst_side, periods) };
                    let done = head + periods * b.period;
                    pieces(so + done, dof + done, len - done);
                });
            }
            slow => slow.for_each(&mut one),
        }
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
    /// use layout::tensor::Tensor;
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

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;
    use std::vec::Vec;

    /// A random compact layout of the axis extents `ext` (each axis maybe split in two leaves),
    /// its leaves in a random memory order; some strides doubled (gaps).
    fn random(seed: &mut u64, ext: &[i64]) -> DynLayout {
        let mut next = |n: u64| {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (*seed >> 33) % n
        };
        let mut leaves: Vec<(usize, i64)> = Vec::new();
        for (k, &e) in ext.iter().enumerate() {
            if e % 2 == 0 && e > 2 && next(2) == 0 {
                leaves.push((k, 2));
                leaves.push((k, e / 2));
            } else {
                leaves.push((k, e));
            }
        }
        let mut order: Vec<usize> = (0..leaves.len()).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, next(i as u64 + 1) as usize);
        }
        let mut strides = std::vec![0i64; leaves.len()];
        let mut s = 1;
        for &j in &order {
            if next(5) == 0 {
                s *= 2;
            }
            strides[j] = s;
            s *= leaves[j].1;
        }
        let mut text = std::string::String::from("(");
        let mut st = std::string::String::from("(");
        for k in 0..ext.len() {
            let idx: Vec<usize> = (0..leaves.len()).filter(|&j| leaves[j].0 == k).collect();
            let sh: Vec<std::string::String> =
                idx.iter().map(|&j| leaves[j].1.to_string()).collect();
            let dd: Vec<std::string::String> =
                idx.iter().map(|&j| strides[j].to_string()).collect();
            let sep = if k > 0 { "," } else { "" };
            text += &std::format!("{sep}({})", sh.join(","));
            st += &std::format!("{sep}({})", dd.join(","));
        }
        std::format!("{text}):{st})").parse().unwrap()
    }

    /// The parallel split on pools of 1 to 4 threads with no size threshold, between random
    /// layouts of random shapes (so every kernel and every split mode is cut): each element
    /// arrives, nothing else is written.
    #[cfg(feature = "rayon")]
    #[test]
    fn parallel_parts_cover_the_copy() {
        let mut seed = 11u64;
        let pools: Vec<rayon::ThreadPool> = (1..=4)
            .map(|t| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .unwrap()
            })
            .collect();
        for case in 0..400 {
            let rank = 1 + case % 3;
            let ext: Vec<i64> = (0..rank)
                .map(|k| [1, 2, 3, 5, 8, 16, 24, 33][((seed >> (20 + 3 * k)) % 8) as usize])
                .collect();
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(99);
            let (sl, dl) = (random(&mut seed, &ext), random(&mut seed, &ext));
            let Some(p) = copy_plan(&sl, &dl) else {
                continue;
            };
            let src: Vec<u32> = (1..=sl.cosize() as u32).collect();
            let mut dst = std::vec![0u32; dl.cosize() as usize];
            let pool = &pools[case % 4];
            // SAFETY: the plan's offsets are offsets of the two layouts, inside buffers of
            // their cosizes; `dl` is injective (compact by construction of `random`).
            pool.install(|| unsafe { copy_affine_par(dst.as_mut_ptr(), 0, src.as_ptr(), 0, p, 0) });
            let mut want = std::vec![0u32; dl.cosize() as usize];
            for i in 0..sl.size() {
                want[dl.offset(i) as usize] = src[sl.offset(i) as usize];
            }
            assert_eq!(dst, want, "{sl} -> {dl}");
        }
    }

    /// For layouts that refine each other, the copy plan's innermost common run is exactly
    /// `max_common_vector` — the algebra's definition and the walk agree, so the plan's runs are
    /// the common vector's translates.
    #[test]
    fn plan_run_is_max_common_vector() {
        let mut seed = 7u64;
        let mut checked = 0;
        for _ in 0..3000 {
            let rank = 1 + (seed >> 40) as usize % 3;
            let ext: Vec<i64> = (0..rank)
                .map(|k| [1, 2, 3, 4, 6, 8][((seed >> (20 + 3 * k)) % 6) as usize])
                .collect();
            let a = random(&mut seed, &ext);
            let b = random(&mut seed, &ext);
            if let Some(p) = copy_plan(&a, &b) {
                assert_eq!(p.contiguous_run(), a.max_common_vector(&b), "{a} -> {b}");
                checked += 1;
            }
        }
        assert!(checked > 1000);
    }
}
