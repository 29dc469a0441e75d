//! The im2col matrix as a layout over the input, padding as a predicate, and the packer that
//! reads micro-panels of it straight from the input.

use std::vec::Vec;

use super::error::ConvError;
use super::geom::{AxisTab, Conv2d};
use crate::DynLayout;
use crate::walk::kernels::transpose;

/// The im2col matrix of a convolution, as a layout over the input's buffer (no copy).
///
/// Row `(n, oh, ow)` (an output pixel) and column `(c, r, s)` (a kernel tap) of the matrix is
/// the input element `(n, c, oh·stride + r·dilation − padding, ow·stride + s·dilation −
/// padding)`. With the input's layout `(N,C,H,W):(sN,sC,sH,sW)` this is the layout
///
/// ```text
/// ((N,OH,OW),(C,R,S)) : ((sN, stride·sH, stride·sW), (sC, dilation·sH, dilation·sW))
/// ```
///
/// shifted by `−(padding_h·sH + padding_w·sW)`. It is not injective (overlapping windows share
/// elements) and is derived with the layout algebra, not written by hand: the input's layout
/// over the padded extents `Hp = H + 2·padding_h`, `Wp = W + 2·padding_w` is composed with the
/// window layout over the input's (colexicographic) index space,
///
/// ```text
/// ((N,OH,OW),(C,R,S)) : ((1, stride·N·C, stride·N·C·Hp), (N, dilation·N·C, dilation·N·C·Hp))
/// ```
///
/// and composition's admissibility rule is the convolution's own shape rule: an output row
/// `oh` and a tap `r` may only add up inside one mode of the input,
/// `(OH−1)·stride + (R−1)·dilation < Hp`, which is how OH is defined.
///
/// Padding is a predicate, not a copy: an element whose input row or column falls outside
/// `[0, H)` × `[0, W)` reads zero ([`Im2col::offset`] gives `None`).
///
/// ```
/// use layout::DynLayout;
/// use layout::conv::{Conv2d, Im2col};
/// // one 4×4 single-channel NCHW image, a 3×3 kernel, padding 1
/// let input: DynLayout = "(1,1,4,4):(16,16,4,1)".parse().unwrap();
/// let m = Im2col::new(&Conv2d::default().padding(1), &input, [3, 3]).unwrap();
/// assert_eq!(m.layout().to_string(), "((1,4,4),(1,3,3)):((0,4,1),(0,4,1))");
/// assert_eq!(m.shift(), -5);
/// assert_eq!((m.rows(), m.cols()), (16, 9));
/// // pixel (1,1), tap (0,0) reads input (0,0); pixel (0,0), tap (0,0) is padding
/// assert_eq!(m.offset(5, 0), Some(0));
/// assert_eq!(m.offset(0, 0), None);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Im2col {
    window: DynLayout,
    layout: DynLayout,
    shift: i64,
    /// N, C, H, W of the input; OH, OW; R, S.
    n: i64,
    c: i64,
    h: i64,
    w: i64,
    oh: i64,
    ow: i64,
    r: i64,
    s: i64,
    st: [i64; 2],
    pad: [i64; 2],
    dil: [i64; 2],
}

fn over(what: &'static str) -> ConvError {
    ConvError::Overflow { what }
}

fn mul(a: i64, b: i64) -> Result<i64, ConvError> {
    a.checked_mul(b)
        .ok_or(over("a stride of the im2col layout"))
}

fn int(x: usize) -> Result<i64, ConvError> {
    i64::try_from(x).map_err(|_| over("a parameter"))
}

impl Im2col {
    /// The im2col matrix of a convolution with `params` over an input of layout `input`
    /// (logical axes N, C, H, W; any layout whose H and W axes each have one stride) and a
    /// kernel of `kernel = [R, S]` taps.
    ///
    /// # Errors
    /// The errors of [`Conv2d::output_dims`]; [`ConvError::NotRank4`] when `input` is not of
    /// rank 4; [`ConvError::Layout`] when the H or W axis is not one stride or the algebra
    /// refuses the composition; [`ConvError::Overflow`].
    pub fn new(
        params: &Conv2d,
        input: &DynLayout,
        kernel: [usize; 2],
    ) -> Result<Im2col, ConvError> {
        if input.rank() != 4 {
            return Err(ConvError::NotRank4 {
                operand: super::ConvOperand::Input,
                rank: input.rank(),
            });
        }
        let size = |k: usize| -> Result<usize, ConvError> {
            usize::try_from(input.mode(k)?.size()).map_err(|_| over("an extent"))
        };
        let dims = [size(0)?, size(1)?, size(2)?, size(3)?];
        let g = params.groups.max(1);
        let [_, _, ohu, owu] = params.output_dims(dims, [g, dims[1] / g, kernel[0], kernel[1]])?;
        let [n, c, h, w] = [int(dims[0])?, int(dims[1])?, int(dims[2])?, int(dims[3])?];
        // `output_dims` bounded `H + 2·padding` by `i64::MAX`; a stride beyond the padded
        // extent (one window) is that extent, a one-tap kernel's dilation 1 (`Conv2d::spatial`)
        let sp = params.spatial([dims[2], dims[3]], kernel)?;
        let wide = |v: isize| i64::try_from(v).map_err(|_| over("a parameter"));
        let (st, pad, dil) = (
            [wide(sp.st[0])?, wide(sp.st[1])?],
            [wide(sp.pad[0])?, wide(sp.pad[1])?],
            [wide(sp.dil[0])?, wide(sp.dil[1])?],
        );
        let (oh, ow) = (int(ohu)?, int(owu)?);
        let (r, s) = (int(kernel[0])?, int(kernel[1])?);
        // the input over the padded extents: the H and W axes keep their strides
        let one = |k: usize| -> Result<i64, ConvError> {
            let m = input.mode(k)?;
            match (m.shape_leaves(), m.stride_leaves()) {
                (&[_], &[d]) => Ok(d),
                _ => Err(ConvError::Layout(crate::LayoutError::Precondition {
                    what: "the im2col layout needs input axes H and W of one stride each; \
                           axis {a} has {b} leaves",
                    a: k as i64,
                    b: m.leaf_count() as i64,
                })),
            }
        };
        let (sh, sw) = (one(2)?, one(3)?);
        let padded = |x: i64, p: i64, what| {
            p.checked_mul(2)
                .and_then(|p| p.checked_add(x))
                .ok_or(over(what))
        };
        let hp = padded(h, pad[0], "the padding along the height (H + 2·padding)")?;
        let wp = padded(w, pad[1], "the padding along the width (W + 2·padding)")?;
        let padded = DynLayout::make_layout(&[
            input.mode(0)?,
            input.mode(1)?,
            DynLayout::leaf(hp, sh)?,
            DynLayout::leaf(wp, sw)?,
        ])?;
        // the window over the padded input's colexicographic index space (n, c, h, w)
        let nc = mul(n, c)?;
        let nch = mul(nc, hp)?;
        let window = DynLayout::make_layout(&[
            DynLayout::from_flat(&[n, oh, ow], &[1, mul(st[0], nc)?, mul(st[1], nch)?])?,
            DynLayout::from_flat(&[c, r, s], &[n, mul(dil[0], nc)?, mul(dil[1], nch)?])?,
        ])?;
        let layout = padded.composition(&window)?;
        let shift = -(mul(pad[0], sh)?
            .checked_add(mul(pad[1], sw)?)
            .ok_or(over("the padding shift"))?);
        Ok(Im2col {
            window,
            layout,
            shift,
            n,
            c,
            h,
            w,
            oh,
            ow,
            r,
            s,
            st,
            pad,
            dil,
        })
    }

    /// The layout `((N,OH,OW),(C,R,S)) : ((sN, stride·sH, stride·sW), (sC, dilation·sH,
    /// dilation·sW))` over the padded input (add [`Im2col::shift`] for the input's offsets).
    pub fn layout(&self) -> &DynLayout {
        &self.layout
    }

    /// The window layout it was composed from, over the padded input's index space.
    pub fn window(&self) -> &DynLayout {
        &self.window
    }

    /// The offset of the padded input's origin in the input: `−(padding_h·sH + padding_w·sW)`.
    pub fn shift(&self) -> i64 {
        self.shift
    }

    /// Rows of the matrix: N·OH·OW output pixels.
    pub fn rows(&self) -> usize {
        (self.n * self.oh * self.ow) as usize
    }

    /// Columns of the matrix: C·R·S kernel taps.
    pub fn cols(&self) -> usize {
        (self.c * self.r * self.s) as usize
    }

    /// The input offset element (`row`, `col`) reads (relative to the input tensor's base), or
    /// `None` when it is padding (reads zero) or outside the matrix. Row `(n, oh, ow)` and column
    /// `(c, r, s)` are colexicographic, as the layout's modes: `row = n + N·(oh + OH·ow)`.
    pub fn offset(&self, row: usize, col: usize) -> Option<i64> {
        if row >= self.rows() || col >= self.cols() {
            return None;
        }
        let (row, col) = (row as i64, col as i64);
        let (oh, ow) = ((row / self.n) % self.oh, row / (self.n * self.oh));
        let (r, s) = ((col / self.c) % self.r, col / (self.c * self.r));
        let ih = oh * self.st[0] + r * self.dil[0] - self.pad[0];
        let iw = ow * self.st[1] + s * self.dil[1] - self.pad[1];
        if ih < 0 || ih >= self.h || iw < 0 || iw >= self.w {
            return None;
        }
        Some(
            self.layout
                .offset(row + self.layout.mode(0).ok()?.size() * col)
                + self.shift,
        )
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for half::bf16 {}
    impl Sealed for half::f16 {}
}

/// The element types a convolution reads: `f32`, and [`half::bf16`] / [`half::f16`]
/// (widened to `f32`: the input once per call where the taps route or a plain 1×1 GEMM runs,
/// else as the packer reads it; the filters once; products and sums in `f32`).
pub trait ConvElement: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The value as `f32` (exact).
    fn to_f32(self) -> f32;
    /// The slice itself when the elements are `f32` (read in place, moved by SIMD copies).
    fn as_f32(s: &[Self]) -> Option<&[f32]>;
    /// The slice itself when the elements are `bf16` (the `vdpbf16ps` taps read it in place).
    #[doc(hidden)]
    fn as_bf16(s: &[Self]) -> Option<&[half::bf16]> {
        let _ = s;
        None
    }
    /// `dst[i] = src[i].to_f32()` for `i < min(src.len(), dst.len())`, 8 at a time when
    /// `simd` (the CPU has AVX2 and F16C, or NEON).
    #[doc(hidden)]
    fn widen(src: &[Self], dst: &mut [f32], simd: bool) {
        let _ = simd;
        for (o, x) in dst.iter_mut().zip(src) {
            *o = x.to_f32();
        }
    }
}

impl ConvElement for f32 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        self
    }
    fn as_f32(s: &[f32]) -> Option<&[f32]> {
        Some(s)
    }
}

impl ConvElement for half::bf16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        half::bf16::to_f32(self)
    }
    fn as_f32(_: &[Self]) -> Option<&[f32]> {
        None
    }
    fn as_bf16(s: &[Self]) -> Option<&[half::bf16]> {
        Some(s)
    }
    fn widen(src: &[Self], dst: &mut [f32], simd: bool) {
        let n = src.len().min(dst.len());
        <Self as crate::gemm::Half>::widen_run(&src[..n], &mut dst[..n], simd);
    }
}

impl ConvElement for half::f16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        half::f16::to_f32(self)
    }
    fn as_f32(_: &[Self]) -> Option<&[f32]> {
        None
    }
    fn widen(src: &[Self], dst: &mut [f32], simd: bool) {
        let n = src.len().min(dst.len());
        <Self as crate::gemm::Half>::widen_run(&src[..n], &mut dst[..n], simd);
    }
}

/// The order of the k index (the columns of the im2col matrix): `(c, r, s)` with `s` fastest
/// (the weights' OIHW order; runs along pixels when the input's W axis is contiguous), or
/// `(r, s, c)` with `c` fastest (runs along k when the input's C axis is contiguous, NHWC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KOrder {
    Crs,
    Rsc,
}

/// One column of the im2col matrix: the channel's offset, the tap's row and column shift, and
/// the number of columns from here on whose offsets go up by one (same tap, next channels).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tap {
    pub coff: isize,
    pub dh: isize,
    pub dw: isize,
    pub run: u32,
    /// The number of columns from here on (of this kernel row) whose input offsets go up by
    /// one, across taps.
    pub wide: u32,
}

/// The taps of one group (`cg` channels from `c0`) in the order `order`, for an input whose
/// W axis steps by `sw` (when arithmetic).
#[allow(clippy::too_many_arguments)]
pub(crate) fn taps(
    offc: &AxisTab,
    c0: usize,
    cg: usize,
    r: usize,
    s: usize,
    dil: [isize; 2],
    order: KOrder,
    sw: Option<isize>,
    mut v: Vec<Tap>,
) -> Result<Vec<Tap>, ConvError> {
    let k = cg
        .checked_mul(r)
        .and_then(|v| v.checked_mul(s))
        .ok_or(ConvError::Overflow {
            what: "the taps C/groups·R·S",
        })?;
    // `v` is reused from group to group: allocated once, before anything is written
    v.clear();
    v.try_reserve_exact(k)
        .map_err(|_| ConvError::Allocation { elements: k })?;
    // `(R − 1)·dilation` is below the padded extent (checked by `output_dims`), which fits
    // `isize`; the products are checked anyway, saturating (never reached)
    let shift = |i: usize, d: isize| {
        isize::try_from(i)
            .ok()
            .and_then(|i| i.checked_mul(d))
            .unwrap_or(isize::MAX)
    };
    let tap = |c: usize, i: usize, j: usize| Tap {
        coff: offc.off[c0 + c],
        dh: shift(i, dil[0]),
        dw: shift(j, dil[1]),
        run: 1,
        wide: 1,
    };
    match order {
        KOrder::Crs => {
            for c in 0..cg {
                for i in 0..r {
                    for j in 0..s {
                        v.push(tap(c, i, j));
                    }
                }
            }
        }
        KOrder::Rsc => {
            for i in 0..r {
                for j in 0..s {
                    for c in 0..cg {
                        v.push(tap(c, i, j));
                    }
                }
            }
        }
    }
    // runs of consecutive channels of one tap whose offsets go up by one, and the wider runs
    // across the taps of one kernel row whose input offsets go up by one (NHWC with dilation
    // 1: the window row's S·C elements are one run while the whole window row is inside)
    for p in (0..k.saturating_sub(1)).rev() {
        let (a, b) = (v[p], v[p + 1]);
        if a.dh == b.dh && a.dw == b.dw && b.coff == a.coff + 1 {
            v[p].run = b.run + 1;
        }
        // (offsets of extreme dilations may not fit `isize`: such taps are not a run)
        let at = |t: Tap, sw: isize| t.dw.checked_mul(sw)?.checked_add(t.coff);
        if let Some(sw) = sw
            && a.dh == b.dh
            && let (Some(ao), Some(bo)) = (at(a, sw), at(b, sw))
            && ao.checked_add(1) == Some(bo)
        {
            v[p].wide = b.wide + 1;
        }
    }
    Ok(v)
}

/// The im2col matrix of one image and one group as the GEMM packs it: element (v, p) is output
/// pixel `v = oh·OW + ow` (row-major over the output's spatial axes) and column `p` (a tap, in
/// the order of [`taps`]).
#[derive(Clone, Copy)]
pub(crate) struct Windows<'a, T> {
    pub src: &'a [T],
    /// Buffer index of (n, channel offset 0, row offset 0, column offset 0).
    pub base: isize,
    pub h: isize,
    pub w: isize,
    pub ow: usize,
    pub st: [isize; 2],
    pub pad: [isize; 2],
    pub offh: &'a [isize],
    pub offw: &'a [isize],
    /// The W axis's step when arithmetic.
    pub sw: Option<isize>,
    pub taps: &'a [Tap],
    pub order: KOrder,
}

/// The GEMM engine reads the im2col matrix through this: packing is the one place it is seen.
impl<T: ConvElement> crate::gemm::Panels<f32> for Windows<'_, T> {
    fn pack(&self, dst: &mut [f32], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        self.fill(dst, v0, p0, len, kc, r)
    }
}

impl<T: ConvElement> Windows<'_, T> {
    /// Packs rows `v0 .. v0 + len` and k steps `p0 .. p0 + kc` as `⌈len/r⌉` micro-panels:
    /// `dst[t·r·kc + p·r + i] = X[v0 + t·r + i][p0 + p]`; rows past `len` are 0 (the GEMM's
    /// panel contract).
    ///
    /// # Panics
    /// When `dst` is shorter than `⌈len/r⌉·r·kc` or the rows or columns are outside the
    /// matrix (a bug of the caller; every read is bounds-checked or proven in bounds).
    pub fn fill(&self, dst: &mut [f32], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        if len == 0 || kc == 0 {
            return;
        }
        let panels = len.div_ceil(r);
        for (t, panel) in dst[..panels * r * kc].chunks_exact_mut(r * kc).enumerate() {
            let vb = v0 + t * r;
            let rows = r.min(len - t * r);
            match self.order {
                KOrder::Crs => self.pixel_runs(panel, vb, rows, p0, kc, r),
                KOrder::Rsc => self.tap_runs(panel, vb, rows, p0, kc, r),
            }
            if rows < r {
                for out in panel.chunks_exact_mut(r) {
                    out[rows..].fill(0.0);
                }
            }
        }
    }

    /// The columns `j` of a pixel segment starting at input column `iw0` (step `stw`) that
    /// are inside the input: `[lo, hi)` within `[0, seg)`.
    #[inline(always)]
    fn valid(&self, iw0: isize, seg: usize) -> (usize, usize) {
        self.valid_st::<0>(iw0, seg)
    }

    /// [`Windows::valid`] with the stride `ST` a constant (0: read it), so the divisions by it
    /// are shifts.
    #[inline(always)]
    fn valid_st<const ST: isize>(&self, iw0: isize, seg: usize) -> (usize, usize) {
        let stw = if ST > 0 { ST } else { self.st[1] };
        // ⌈−iw0 / stw⌉ without forming `−iw0 + stw − 1` (which overflows for huge strides)
        let lo = if iw0 >= 0 {
            0
        } else {
            ((-iw0 - 1) / stw + 1) as usize
        };
        let hi = if iw0 >= self.w {
            0
        } else {
            ((self.w - 1 - iw0) / stw + 1) as usize
        };
        let hi = hi.min(seg);
        (lo.min(hi), hi)
    }

    /// Order (c, r, s): for each k step, the panel's pixels, one output row segment at a time:
    /// in-bounds columns copied as one run (stride·sW apart), the rest zero.
    fn pixel_runs(
        &self,
        panel: &mut [f32],
        vb: usize,
        rows: usize,
        p0: usize,
        kc: usize,
        r: usize,
    ) {
        match self.st[1] {
            1 => self.pixel_runs_st::<1>(panel, vb, rows, p0, kc, r),
            2 => self.pixel_runs_st::<2>(panel, vb, rows, p0, kc, r),
            _ => self.pixel_runs_st::<0>(panel, vb, rows, p0, kc, r),
        }
    }

    /// [`Windows::pixel_runs`] for a constant stride `ST` along W (0: read it).
    #[inline(always)]
    fn pixel_runs_st<const ST: isize>(
        &self,
        panel: &mut [f32],
        vb: usize,
        rows: usize,
        p0: usize,
        kc: usize,
        r: usize,
    ) {
        let stw = if ST > 0 { ST } else { self.st[1] };
        let ow_n = self.ow;
        let (oh0, ow0) = (vb / ow_n, vb % ow_n);
        for (p, out) in panel.chunks_exact_mut(r).enumerate().take(kc) {
            let tap = self.taps[p0 + p];
            let (mut i, mut oh, mut ow) = (0usize, oh0, ow0);
            while i < rows {
                let seg = (rows - i).min(ow_n - ow);
                let o = &mut out[i..i + seg];
                let ih = oh as isize * self.st[0] - self.pad[0] + tap.dh;
                if ih < 0 || ih >= self.h {
                    o.fill(0.0);
                } else {
                    let row = self.base + tap.coff + self.offh[ih as usize];
                    let iw0 = ow as isize * stw - self.pad[1] + tap.dw;
                    let (lo, hi) = self.valid_st::<ST>(iw0, seg);
                    o[..lo].fill(0.0);
                    o[hi..].fill(0.0);
                    match self.sw {
                        _ if hi == lo => {}
                        Some(1) if stw == 1 => {
                            let at = (row + iw0 + lo as isize) as usize;
                            let from = &self.src[at..at + (hi - lo)];
                            for (x, &v) in o[lo..hi].iter_mut().zip(from) {
                                *x = v.to_f32();
                            }
                        }
                        Some(sw) if sw > 0 => {
                            // one bounds check for the whole strided run
                            let step = (stw * sw) as usize;
                            let first = (row + (iw0 + lo as isize * stw) * sw) as usize;
                            let from = &self.src[first..=first + (hi - lo - 1) * step];
                            for (x, &v) in o[lo..hi].iter_mut().zip(from.iter().step_by(step)) {
                                *x = v.to_f32();
                            }
                        }
                        Some(sw) => {
                            let step = stw * sw;
                            let first = row + (iw0 + lo as isize * stw) * sw;
                            for (j, x) in o[lo..hi].iter_mut().enumerate() {
                                *x = self.src[(first + j as isize * step) as usize].to_f32();
                            }
                        }
                        None => {
                            for (j, x) in o[lo..hi].iter_mut().enumerate() {
                                let iw = iw0 + (lo + j) as isize * stw;
                                *x = self.src[(row + self.offw[iw as usize]) as usize].to_f32();
                            }
                        }
                    }
                }
                i += seg;
                ow = 0;
                oh += 1;
            }
        }
    }

    /// Order (r, s, c): for each run of channels of one tap, the panel's pixels one output row
    /// segment at a time, each in-bounds pixel's channels one contiguous source run written
    /// down the panel (a transpose of pixels × channels), the rest zero.
    fn tap_runs(&self, panel: &mut [f32], vb: usize, rows: usize, p0: usize, kc: usize, r: usize) {
        let ow_n = self.ow;
        let mut p = 0;
        while p < kc {
            let tap = self.taps[p0 + p];
            // a wide run: where the whole run is inside the input, one source run per pixel
            let lw = (tap.wide as usize).min(kc - p);
            let last = self.taps[p0 + p + lw - 1];
            let (mut i, mut oh, mut ow) = (0usize, vb / ow_n, vb % ow_n);
            while i < rows {
                let seg = (rows - i).min(ow_n - ow);
                let iw = ow as isize * self.st[1] - self.pad[1];
                let ih = oh as isize * self.st[0] - self.pad[0] + tap.dh;
                let inside = ih >= 0 && ih < self.h;
                let (first, end) = (self.valid(iw + tap.dw, seg), self.valid(iw + last.dw, seg));
                if lw == 1 || !inside || first == end {
                    self.tap_segment(panel, r, p, i, seg, lw, tap, ih, iw + tap.dw);
                } else {
                    // the run's taps see different pixels: one channel run at a time
                    let mut q = p;
                    while q < p + lw {
                        let t = self.taps[p0 + q];
                        let lc = (t.run as usize).min(p + lw - q);
                        self.tap_segment(panel, r, q, i, seg, lc, t, ih, iw + t.dw);
                        q += lc;
                    }
                }
                i += seg;
                ow = 0;
                oh += 1;
            }
            p += lw;
        }
    }

    /// One output-row segment of `seg` pixels at panel row `i`, for `lc` columns from `p`
    /// whose input offsets go up by one from tap `tap` (input row `ih`, first column `iw0`):
    /// the pixels outside the input zero, the others one source run each.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn tap_segment(
        &self,
        panel: &mut [f32],
        r: usize,
        p: usize,
        i: usize,
        seg: usize,
        lc: usize,
        tap: Tap,
        ih: isize,
        iw0: isize,
    ) {
        let (lo, hi) = if ih < 0 || ih >= self.h {
            (0, 0)
        } else {
            self.valid(iw0, seg)
        };
        for q in 0..lc {
            let col = &mut panel[(p + q) * r + i..(p + q) * r + i + seg];
            col[..lo].fill(0.0);
            col[hi.max(lo)..].fill(0.0);
        }
        if hi > lo {
            let row = self.base + tap.coff + self.offh[ih as usize];
            self.channels(panel, r, p, i, lc, row, iw0, lo, hi);
        }
    }

    /// Pixels `lo..hi` of a segment at panel row `i` (input column `iw0 + j·stride` of input
    /// row offset `row`), `lc` contiguous channels each, into panel columns `p..p + lc`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn channels(
        &self,
        panel: &mut [f32],
        r: usize,
        p: usize,
        i: usize,
        lc: usize,
        row: isize,
        iw0: isize,
        lo: usize,
        hi: usize,
    ) {
        let stw = self.st[1];
        let at = |j: usize| row + self.offw[(iw0 + j as isize * stw) as usize];
        let n = hi - lo;
        if r <= 8 {
            // narrow panels (the kernel's NR): for each channel the pixels side by side, every
            // source row streamed once, every write contiguous
            let mut rows: [&[T]; 8] = [&[]; 8];
            for (j, row) in rows.iter_mut().enumerate().take(n) {
                let a = at(lo + j) as usize;
                *row = &self.src[a..a + lc];
            }
            let rows = &rows[..n];
            for q in 0..lc {
                let at = (p + q) * r + i + lo;
                let out = &mut panel[at..at + n];
                for (x, row) in out.iter_mut().zip(rows) {
                    *x = row[q].to_f32();
                }
            }
            return;
        }
        let uniform = self.sw.filter(|_| n >= 4 && lc >= 8);
        if let (Some(sw), Some(src)) = (uniform, T::as_f32(self.src)) {
            let first = at(lo);
            let lds = stw * sw;
            let last = first + (n as isize - 1) * lds;
            let (a, b) = (first.min(last), first.max(last) + lc as isize);
            let dst0 = p * r + i + lo;
            if a >= 0 && (b as usize) <= src.len() && dst0 + (lc - 1) * r + n <= panel.len() {
                // SAFETY: every source element `first + j·lds + q` (`j < n`, `q < lc`) lies in
                // `[a, b)` ⊆ `src` (checked just above); every destination `dst0 + j + q·r`
                // lies in `panel` (checked just above); `panel` is a `&mut` slice distinct
                // from `src`.
                unsafe {
                    transpose(
                        panel.as_mut_ptr().add(dst0),
                        r as isize,
                        src.as_ptr().offset(first),
                        lds,
                        n,
                        lc,
                        false,
                    )
                };
                return;
            }
        }
        for j in lo..hi {
            let a = at(j) as usize;
            for (q, &x) in self.src[a..a + lc].iter().enumerate() {
                panel[(p + q) * r + i + j] = x.to_f32();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conv::ConvOperand;
    use crate::conv::geom::Desc;
    use proptest::prelude::*;
    use std::{format, vec};

    /// The packer's contract on its own: for any block (rows `v0..v0+len`, k steps
    /// `p0..p0+kc`) and panel width `r`, `dst[t·r·kc + p·r + i]` is the im2col element of
    /// pixel `v0 + t·r + i` and tap `p0 + p` (zero for padding), rows past `len` zero.
    fn check(
        nhwc: bool,
        [c, h, w]: [usize; 3],
        [r, s]: [usize; 2],
        st: [usize; 2],
        pad: [usize; 2],
        dil: [usize; 2],
        block: [usize; 5],
    ) -> Result<(), TestCaseError> {
        let p = Conv2d {
            stride: st,
            padding: pad,
            dilation: dil,
            groups: 1,
            relu: false,
        };
        let Ok([_, _, oh, ow]) = p.output_dims([1, c, h, w], [1, c, r, s]) else {
            return Ok(());
        };
        let text = if nhwc {
            format!("(1,{c},{h},{w}):({},1,{},{c})", c * h * w, w * c)
        } else {
            format!("(1,{c},{h},{w}):({},{},{w},1)", c * h * w, h * w)
        };
        let l: DynLayout = text.parse().unwrap();
        let src: Vec<f32> = (0..c * h * w).map(|i| i as f32 + 1.0).collect();
        let d = Desc::new(ConvOperand::Input, &l, 0).unwrap();
        let order = if nhwc { KOrder::Rsc } else { KOrder::Crs };
        let dl = [dil[0] as isize, dil[1] as isize];
        let tp = taps(&d.t[1], 0, c, r, s, dl, order, d.t[3].step(), Vec::new()).unwrap();
        let x = Windows {
            src: &src,
            base: 0,
            h: h as isize,
            w: w as isize,
            ow,
            st: [st[0] as isize, st[1] as isize],
            pad: [pad[0] as isize, pad[1] as isize],
            offh: &d.t[2].off,
            offw: &d.t[3].off,
            sw: d.t[3].step(),
            taps: &tp,
            order,
        };
        let (npix, k) = (oh * ow, c * r * s);
        let [a, b, e, f, rr] = block;
        let v0 = a % npix;
        let len = 1 + b % (npix - v0);
        let p0 = e % k;
        let kc = 1 + f % (k - p0);
        let rw = [1, 4, 6, 7, 16, len][rr % 6];
        let mut dst = vec![f32::NAN; len.div_ceil(rw) * rw * kc];
        x.fill(&mut dst, v0, p0, len, kc, rw);
        for (at, &got) in dst.iter().enumerate() {
            let (t, rest) = (at / (rw * kc), at % (rw * kc));
            let (pp, i) = (rest / rw, rest % rw);
            let want = if t * rw + i >= len {
                0.0
            } else {
                let v = v0 + t * rw + i;
                let kk = p0 + pp;
                let (ci, u, vv) = match order {
                    KOrder::Crs => (kk / (r * s), (kk / s) % r, kk % s),
                    KOrder::Rsc => (kk % c, kk / (c * s), (kk / c) % s),
                };
                let ih = ((v / ow) * st[0] + u * dil[0]) as isize - pad[0] as isize;
                let iw = ((v % ow) * st[1] + vv * dil[1]) as isize - pad[1] as isize;
                if ih < 0 || iw < 0 || ih >= h as isize || iw >= w as isize {
                    0.0
                } else {
                    src[d.at(0, ci, ih as usize, iw as usize) as usize]
                }
            };
            prop_assert_eq!(
                got,
                want,
                "element {} (panel {}, k {}, row {})",
                at,
                t,
                pp,
                i
            );
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn packer_contract(
            nhwc in any::<bool>(),
            c in 1usize..20, h in 1usize..12, w in 1usize..12,
            r in 1usize..5, s in 1usize..5,
            st in (1usize..4, 1usize..4), pad in (0usize..3, 0usize..3), dil in (1usize..3, 1usize..3),
            block in any::<[usize; 5]>(),
        ) {
            check(nhwc, [c, h, w], [r, s], [st.0, st.1], [pad.0, pad.1], [dil.0, dil.1], block)?;
        }
    }
}
