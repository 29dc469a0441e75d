//! Convolution taps as a batch-reduce GEMM ([`batch_reduce`]): for one output row segment,
//! the filter tap (r, s) reads a strided matrix of the input — pixel `x` at
//! `x·stride·sW`, channel `c` at `c·sC` from the tap's first pixel, the im2col layout's
//! `(OW, C) : (stride·sW, sC)` modes at a fixed `(R, S)` coordinate — and the segment's output
//! is `Σ_taps X_tap · W_tap`, each `X_tap` read in place (no window is packed) and the C tile
//! kept in registers across the taps.
//!
//! The padding halo stays a predicate: a row's taps whose input row is outside the input are
//! left out, and each output row is cut into segments (the left halo, the interior, the right
//! halo) over which the set of in-bounds column taps is constant.

use std::vec::Vec;

use super::error::ConvError;
use super::geom::{Desc, Spatial};
use super::im2col::KOrder;
use super::run::{Filters, mat_mut, mat_ref};
use crate::gemm::{Isa, MatRef, Options, batch_reduce};

/// Bytes of filters (every tap of a block of output channels) kept in L2 while the output
/// rows stream.
const FILTER_BLOCK_BYTES: usize = 160 << 10;

/// Whether the taps route runs `f32` inputs of these descriptions: the register-tile kernels
/// need AVX2 or AVX-512, and each tap's input and the output must be strided matrices (the
/// input's C and W axes and the output's channel and W axes arithmetic, one stride each). The
/// batch-reduce picks the side its tiles run along (output channels, contiguous in the
/// regrouped filters, or pixels when the input's and output's W axes are unit stride).
/// Geometry beyond 2²⁰ (stride, padding or dilation) takes the windows route, whose
/// arithmetic is checked for every extreme; here the products of these with extents stay far
/// inside `isize`.
pub(super) fn plan(isa: Isa, input: &Desc, output: &Desc, geo: &Spatial) -> bool {
    const MODEST: isize = 1 << 20;
    let modest = |v: [isize; 2]| v.iter().all(|x| (0..=MODEST).contains(x));
    matches!(isa, Isa::Avx2 | Isa::Avx512)
        && modest(geo.st)
        && modest(geo.pad)
        && modest(geo.dil)
        && input.t[1].step().is_some()
        && input.t[3].step().is_some()
        && output.t[1].step().is_some()
        && output.t[3].step().is_some()
}

/// The `[lo, hi)` output columns for which column tap `s` reads inside the input.
fn columns(s: usize, geo: &Spatial, in_w: usize, out_w: usize) -> (usize, usize) {
    // in i128: products and sums of isize values cannot overflow it
    let (st, pad, dil) = (
        geo.st[1].max(1) as i128,
        geo.pad[1] as i128,
        geo.dil[1] as i128,
    );
    let shift = s as i128 * dil - pad; // input column of output column 0
    // first x with x·st + shift ≥ 0
    let lo = if shift >= 0 {
        0
    } else {
        (-shift + st - 1) / st
    };
    // last x with x·st + shift ≤ in_w − 1
    let last = in_w as i128 - 1 - shift;
    let hi = if last < 0 { 0 } else { last / st + 1 };
    let clamp = |x: i128| x.clamp(0, out_w as i128) as usize;
    (clamp(lo), clamp(hi).max(clamp(lo)))
}

/// Output channels per block for filters of `k` taps per channel, `og` per group: a block's
/// filters stay in L2 across the output rows; a multiple of 32 (MR of AVX-512, twice AVX2's).
pub(super) fn block(k: usize, og: usize) -> usize {
    let per_o = k.saturating_mul(4).max(1);
    let unit = 32;
    ((FILTER_BLOCK_BYTES / per_o) / unit * unit)
        .max(unit)
        .min(og)
        .max(1)
}

/// The filters regrouped for the taps route, blocks of `ob` output channels: the block of
/// group `g` from channel `o0` (`on` channels) starts at `(g·O/groups + o0)·K`, and holds every
/// tap `t = r·S + s` as a `C/groups × on` matrix with output channels contiguous, element
/// (c, o) at `(t·C/groups + c)·on + o` — each tap's matrix one dense block, read in place as
/// the batch's B (or Aᵀ), from a 64-byte boundary (whole cache lines per vector of 16).
#[derive(Clone, Debug)]
pub(super) struct Tapped {
    /// Output channels per block.
    pub ob: usize,
    store: Vec<f32>,
    start: usize,
}

impl Tapped {
    /// The regrouped filters.
    pub fn data(&self) -> &[f32] {
        &self.store[self.start..]
    }
}

/// Regroups the filters `w` into blocks of `ob` output channels ([`Tapped`]).
pub(super) fn tapped(
    w: &Filters<'_>,
    groups: usize,
    og: usize,
    ob: usize,
) -> Result<Tapped, ConvError> {
    let [r, s] = w.rs;
    let k = w.k;
    let cg = k / (r * s).max(1);
    let len = (groups * og)
        .checked_mul(k)
        .and_then(|l| l.checked_add(16))
        .ok_or(ConvError::Overflow {
            what: "the weights' size",
        })?;
    let mut v: Vec<f32> = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| ConvError::Allocation { elements: len })?;
    let start = v.as_ptr().align_offset(64).min(16);
    v.resize(start, 0.0);
    for g in 0..groups {
        for o0 in (0..og).step_by(ob) {
            let on = ob.min(og - o0);
            for i in 0..r {
                for j in 0..s {
                    for c in 0..cg {
                        let kk = match w.order {
                            KOrder::Crs => (c * r + i) * s + j,
                            KOrder::Rsc => (i * s + j) * cg + c,
                        };
                        let at = w.origin[g] + kk as isize * w.sk + o0 as isize * w.so;
                        v.extend((0..on).map(|o| w.data[(at + o as isize * w.so) as usize]));
                    }
                }
            }
        }
    }
    Ok(Tapped {
        ob,
        store: v,
        start,
    })
}

/// Runs the convolution (every image and group) on the taps route into `dst` (no bias, no
/// ReLU: the caller's epilogue), with the filters regrouped by [`tapped`] in blocks of `ob`.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    opts: Options,
    groups: usize,
    geo: &Spatial,
    input: &Desc,
    src: &[f32],
    rs: [usize; 2],
    wt: &[f32],
    ob: usize,
    output: &Desc,
    dst: &mut [f32],
) -> Result<(), ConvError> {
    let [n_img, c, h, in_w] = input.dims;
    let [_, o, oh, ow] = output.dims;
    let (cg, og) = (c / groups, o / groups);
    let [r, s] = rs;
    let k = cg * r * s;
    let (sc, sw) = (
        input.t[1].step().unwrap_or(0),
        input.t[3].step().unwrap_or(0),
    );
    let (so, sow) = (
        output.t[1].step().unwrap_or(0),
        output.t[3].step().unwrap_or(0),
    );
    // the column taps' in-bounds output columns, and the segment bounds they make
    let cols: Vec<(usize, usize)> = (0..s).map(|j| columns(j, geo, in_w, ow)).collect();
    let mut bounds: Vec<usize> = cols.iter().flat_map(|&(lo, hi)| [lo, hi]).collect();
    bounds.extend([0, ow]);
    bounds.sort_unstable();
    bounds.dedup();
    let mut av: Vec<MatRef<'_, f32>> = Vec::new();
    let mut bv: Vec<MatRef<'_, f32>> = Vec::new();
    let cap = r * s;
    av.try_reserve_exact(cap)
        .map_err(|_| ConvError::Allocation { elements: cap })?;
    bv.try_reserve_exact(cap)
        .map_err(|_| ConvError::Allocation { elements: cap })?;
    // NHWC-like inputs (the next pixel is the next C channels: one group, no dilation along W):
    // a kernel row's taps are one run of S·C channels, one batch item per kernel row
    let merge_s = groups == 1 && geo.dil[1] == 1 && sw == c as isize * sc;
    // 1×1, stride 1, no padding, pixels one stride in both: the whole image in one product
    let whole = match (input.merged_hw(), output.merged_hw()) {
        (Some(pi), Some(po)) if r == 1 && s == 1 && geo.st == [1, 1] && geo.pad == [0, 0] => {
            Some((pi, po))
        }
        _ => None,
    };
    for n in 0..n_img {
        let in_base = input.base + input.t[0].off[n];
        for g in 0..groups {
            let in_g = in_base + input.t[1].off[g * cg];
            for o0 in (0..og).step_by(ob) {
                let on = ob.min(og - o0);
                let wblock = ((g * og + o0) * k) as isize;
                let out_g = output.base + output.t[0].off[n] + output.t[1].off[g * og + o0];
                if let Some((pi, po)) = whole {
                    // 1×1, stride 1, no padding: one product over every pixel of the image
                    let npix = oh * ow;
                    let a = mat_ref(src, in_g, npix, cg, pi, sc)?;
                    let b = mat_ref(wt, wblock, cg, on, on as isize, 1)?;
                    let cm = mat_mut(dst, out_g, npix, on, po, so)?;
                    batch_reduce(opts, 1.0f32, &[a], &[b], 0.0, cm)?;
                    continue;
                }
                for y in 0..oh {
                    let row0 = y as isize * geo.st[0] - geo.pad[0];
                    for seg in bounds.windows(2) {
                        let (x0, x1) = (seg[0], seg[1]);
                        if x0 >= x1 {
                            continue;
                        }
                        av.clear();
                        bv.clear();
                        // the column taps in bounds over the whole segment: an interval
                        let valid =
                            |&(_, &(lo, hi)): &(usize, &(usize, usize))| lo <= x0 && x1 <= hi;
                        let mut js = cols.iter().enumerate().filter(valid).map(|(j, _)| j);
                        let Some(j_lo) = js.next() else {
                            let cm = mat_mut(
                                dst,
                                out_g + output.t[2].off[y] + output.t[3].off[x0],
                                x1 - x0,
                                on,
                                sow,
                                so,
                            )?;
                            batch_reduce(opts, 1.0f32, &[], &[], 0.0, cm)?;
                            continue;
                        };
                        let j_hi = js.next_back().unwrap_or(j_lo) + 1;
                        for i in 0..r {
                            let ih = row0 + i as isize * geo.dil[0];
                            if ih < 0 || ih >= h as isize {
                                continue;
                            }
                            let tap = |j: usize| {
                                let iw =
                                    x0 as isize * geo.st[1] + j as isize * geo.dil[1] - geo.pad[1];
                                let origin = in_g
                                    + input.t[2].off[ih as usize]
                                    + input.t[3].off[iw as usize];
                                (origin, wblock + ((i * s + j) * cg * on) as isize)
                            };
                            if merge_s {
                                // the row's taps j_lo..j_hi as one run of (j_hi − j_lo)·C
                                // channels (the next tap is the next pixel, C channels on)
                                let (xo, wo) = tap(j_lo);
                                let kk = (j_hi - j_lo) * cg;
                                av.push(mat_ref(src, xo, x1 - x0, kk, geo.st[1] * sw, sc)?);
                                bv.push(mat_ref(wt, wo, kk, on, on as isize, 1)?);
                            } else {
                                for j in j_lo..j_hi {
                                    let (xo, wo) = tap(j);
                                    av.push(mat_ref(src, xo, x1 - x0, cg, geo.st[1] * sw, sc)?);
                                    bv.push(mat_ref(wt, wo, cg, on, on as isize, 1)?);
                                }
                            }
                        }
                        let corigin = out_g + output.t[2].off[y] + output.t[3].off[x0];
                        let cm = mat_mut(dst, corigin, x1 - x0, on, sow, so)?;
                        batch_reduce(opts, 1.0f32, &av, &bv, 0.0, cm)?;
                    }
                }
            }
        }
    }
    Ok(())
}
