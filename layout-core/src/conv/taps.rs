//! Convolution taps as a batch-reduce GEMM (the register tiles of [`batch_reduce`]): for one
//! tile of an output row, the filter tap (r, s) reads a strided matrix of the input — pixel
//! `x` at `x·stride·sW`, channel `c` at `c·sC` from the tap's first pixel, the im2col layout's
//! `(OW, C) : (stride·sW, sC)` modes at a fixed `(R, S)` coordinate — and the tile's output is
//! `Σ_taps X_tap · W_tap`, each `X_tap` read in place (no window is packed) and the C tile
//! kept in registers across the taps.
//!
//! The padding halo stays a predicate: a row's taps whose input row is outside the input are
//! left out, and a column tap in bounds for only some pixels of a tile is an item cut to
//! those pixels (the tile keeps its full width; its other columns skip that tap).

use std::vec::Vec;

use super::error::ConvError;
use super::geom::{Desc, Spatial};
use super::im2col::KOrder;
use super::run::{Filters, mat_mut, mat_ref};
use crate::gemm::{Isa, Options, batch_reduce};

/// Bytes of filters (every tap of a block of output channels) kept in L2 while the output
/// rows stream.
const FILTER_BLOCK_BYTES: usize = 160 << 10;

/// Whether the taps route runs `f32` inputs of these descriptions: the register-tile kernels
/// need AVX2 or AVX-512, and each tap's input and the output must be strided matrices (the
/// input's C and W axes and the output's channel and W axes arithmetic, one stride each). The
/// tiles run along the output channels (contiguous in the regrouped filters), pixels
/// broadcast. Geometry beyond 2²⁰ (stride, padding or dilation) takes the windows route, whose
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
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) fn columns(s: usize, geo: &Spatial, in_w: usize, out_w: usize) -> (usize, usize) {
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
/// filters stay in L2 across the output rows; a multiple of 32 (MR of AVX-512, twice AVX2's),
/// or on AVX2 of 16 (its MR) where 32 channels' filters exceed the L2 budget: one row tile per
/// block, its filters one contiguous stream (3×3 256→256 14², NHWC 0.91–0.92 → 0.92–0.96 of
/// oneDNN, NCHW 1.02–1.04 → 1.08–1.10; BENCHMARKS.md, issue 30 session 6b).
pub(super) fn block(isa: Isa, k: usize, og: usize) -> usize {
    let per_o = k.saturating_mul(4).max(1);
    let unit = if isa == Isa::Avx2 && per_o.saturating_mul(32) > FILTER_BLOCK_BYTES {
        16
    } else {
        32
    };
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

/// How a row of `ow` output pixels is cut into column tiles of at most `nr`: as few tiles as
/// `nr` allows, of widths differing by at most one (14 = 5 + 5 + 4 rather than 6 + 6 + 2: a
/// tile narrower than about 4 columns has too few accumulators to hide the FMA latency).
/// `(start, width, count)` of each run of equal widths.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(super) fn tile_runs(ow: usize, nr: usize) -> [(usize, usize, usize); 2] {
    let tiles = ow.div_ceil(nr.max(1)).max(1);
    let (base, extra) = (ow / tiles, ow % tiles);
    // `extra` tiles of base + 1, then the rest of base: (start, width, count)
    [
        (0, base + 1, extra),
        (extra * (base + 1), base, tiles - extra),
    ]
}

/// The widest output row whose tiles hold two rows ([`pair_rows`]).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const PAIR_MAX_OW: usize = 16;

/// Whether output rows of `ow` pixels run two rows per tile (3 pixels of each on AVX2's
/// 16 × 6 loop, a row of 14 in tiles of 6, 6, 6, 6 and 4 columns for two rows rather than
/// 5, 5 and 4 for one): on AVX2 (whose hand-scheduled loop reads a tile's halves from two
/// pointers: input channels unit stride), without a halo copy, for rows of at most [`PAIR_MAX_OW`] pixels that 6-column
/// tiles do not divide.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn pair_rows(isa: Isa, nr: usize, halo: bool, sc: isize, ow: usize) -> bool {
    isa == Isa::Avx2 && nr == 6 && !halo && sc == 1 && ow <= PAIR_MAX_OW && !ow.is_multiple_of(nr)
}

/// The units of output rows, `(y, two)` in order: row `y` alone, or rows `y` and `y + 1` in
/// one tile where `pairs` and `same(y)` (both rows read the same kernel rows: the first and
/// last rows at a padding stay alone); the last row of an odd count alone.
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn row_units(oh: usize, pairs: bool, same: impl Fn(usize) -> bool) -> Vec<(usize, bool)> {
    let mut v = Vec::with_capacity(oh);
    let mut y = 0;
    while y < oh {
        let two = pairs && y + 1 < oh && same(y);
        v.push((y, two));
        y += if two { 2 } else { 1 };
    }
    v
}

/// A unit of a row driver's work: output row `y` alone or with `y + 1` (`Row(y, two)`), or
/// the edge column `x` over the rows every kernel row reads inside (`Edge(x)`,
/// [`edge_columns`]).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
enum Unit {
    Row(usize, bool),
    Edge(usize),
}

/// Whether the pixels at the left and right padding (columns outside `xa .. xb`, those some
/// column tap reads outside the input for) and the inside columns beyond a multiple of NR
/// from `xa` run as tiles down the image (edge columns), over the rows `ya .. yb` every
/// kernel row reads inside, those rows' tiles then only whole NR-column tiles from `xa`: on
/// AVX2 (NR 6) and AVX-512 (NR 12) with NHWC-like inputs of unit channel stride (no halo
/// copy), where the rows have columns at the padding, at least one whole tile between, and
/// `yb − ya` rows make tiles down the image of at least 5 (AVX2) or 8 (AVX-512) columns. A
/// row's ends then no longer cut its tiles' taps (tiles of 5 or 4 columns, a cut tap on 5, 4
/// or 3, or the two-row ends tile of 4): on AVX2 3×3 256→256 14² and 3×3 64→64 56² run every
/// pixel of those rows in whole 16 × 6 tiles, 3×3 128→128 28² all but 4 columns of 26 rows
/// (down the image in tiles of 6 and 5); BENCHMARKS.md, issue 30 session 8. On AVX-512 the
/// three 3×3 layers run those rows in whole 32 × 12 tiles, 3–5 % faster (issue 30 session 9).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
fn edge_columns(
    isa: Isa,
    nr: usize,
    halo: bool,
    nhwc: bool,
    [xa, xb, ow]: [usize; 3],
    [ya, yb]: [usize; 2],
) -> bool {
    // the narrowest tile down the image: AVX2's 5 of 6 columns, AVX-512's 8 of 12 (16
    // accumulators still cover the FMA latency)
    let min = match (isa, nr) {
        (Isa::Avx2, 6) => 5,
        (Isa::Avx512, 12) => 8,
        _ => return false,
    };
    !halo
        && nhwc
        && xb.saturating_sub(xa) >= nr
        && (xa > 0 || xb < ow)
        && ya < yb
        && tile_runs(yb - ya, nr)[1].1 >= min
}

/// The input channels below which tiles at the padding read a halo copy (the batch-reduce's
/// hand-scheduled loop takes cut taps of at least 16 steps).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const HALO_C_BELOW: usize = 16;

/// Elements of one halo copy at most (`rows`' tiles at the padding, NHWC-like inputs).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
const HALO_MAX: usize = 1 << 15;

/// A thread's buffers: a tile's items, and its halo copy.
#[cfg(target_arch = "x86_64")]
type Scratch = (Vec<crate::gemm::BatchItem<f32>>, Vec<f32>);

/// The problem's geometry as [`halo_item`] reads it.
#[cfg(target_arch = "x86_64")]
struct Geometry<'a> {
    geo: &'a Spatial,
    input: &'a Desc,
    rs: [usize; 2],
    c: usize,
    /// The input's W offset of column 0.
    w0: isize,
}

/// One tile at the padding: its first output column `x0`, `width` columns, output row from
/// input row `row0` (`y·stride − pad`), the image and group's input from `in_g`, the block's
/// filters from `a` (`on` channels).
#[cfg(target_arch = "x86_64")]
struct HaloTile<'a> {
    src: &'a [f32],
    in_g: isize,
    row0: isize,
    x0: usize,
    width: usize,
    a: *const f32,
    on: usize,
}

/// The halo copy of a tile at the padding and its one item: for the kernel rows in bounds
/// (an interval `i_lo .. i_hi`), the input pixels of columns `x0·st − pad ..` over the tile's
/// windows (`(width − 1)·st + S` of them), C channels each contiguous, zero outside the input,
/// row after row; the item reads them as whole kernel rows (`k = S·C`, `rows = i_hi − i_lo`,
/// B's rows `span·C` apart) with the filters from tap `(i_lo, 0)`. No rows in bounds: no item.
/// (NHWC-like inputs: one group, no dilation along W.)
#[cfg(target_arch = "x86_64")]
fn halo_item(
    t: &HaloTile<'_>,
    g: &Geometry<'_>,
    copy: &mut [f32],
    items: &mut Vec<crate::gemm::BatchItem<f32>>,
) {
    let [r, s] = g.rs;
    let c = g.c;
    let [h, in_w] = [g.input.dims[2], g.input.dims[3]];
    let (st, pad, dil) = (g.geo.st[1], g.geo.pad[1], g.geo.dil[0]);
    let (sc, sw) = (
        g.input.t[1].step().unwrap_or(0),
        g.input.t[3].step().unwrap_or(0),
    );
    let span = (t.width - 1) * st as usize + s;
    let in_rows = |i: &usize| {
        let ih = t.row0 + *i as isize * dil;
        0 <= ih && ih < h as isize
    };
    let i_lo = (0..r).find(in_rows).unwrap_or(r);
    let i_hi = (i_lo..r).find(|i| !in_rows(i)).unwrap_or(r);
    if i_lo >= i_hi {
        return;
    }
    let iw0 = t.x0 as isize * st - pad;
    for (q, i) in (i_lo..i_hi).enumerate() {
        let ih = (t.row0 + i as isize * dil) as usize;
        let in_row = t.in_g + g.input.t[2].off[ih] + g.w0;
        let row = &mut copy[q * span * c..(q + 1) * span * c];
        // the pixels inside the input: `p_lo .. p_hi` (an interval)
        let p_lo = (-iw0).clamp(0, span as isize) as usize;
        let p_hi = (in_w as isize - iw0).clamp(p_lo as isize, span as isize) as usize;
        row[..p_lo * c].fill(0.0);
        row[p_hi * c..].fill(0.0);
        if p_lo == p_hi {
            // no pixel inside (and with extreme strides and padding, `iw0 + p_lo` is no
            // input column: its offset need not fit `isize`)
            continue;
        }
        // (an input column: its offset is inside the buffer)
        let at = in_row + (iw0 + p_lo as isize) * sw;
        if sc == 1 {
            // (merged: the next pixel is the next C channels) one run
            let n = (p_hi - p_lo) * c;
            row[p_lo * c..p_hi * c].copy_from_slice(&t.src[at as usize..at as usize + n]);
        } else {
            for (p, px) in row[p_lo * c..p_hi * c].chunks_exact_mut(c).enumerate() {
                for (ch, v) in px.iter_mut().enumerate() {
                    *v = t.src[(at + p as isize * sw + ch as isize * sc) as usize];
                }
            }
        }
    }
    items.push(crate::gemm::BatchItem {
        a: t.a.wrapping_add(i_lo * s * c * t.on),
        lda: t.on as isize,
        b: copy.as_ptr(),
        rsb: 1,
        csb: st * c as isize,
        k: s * c,
        rows: i_hi - i_lo,
        rstep: (span * c) as isize,
        lo: 0,
        hi: usize::MAX,
        b2: None,
    });
}

/// The pointers one call shares with its threads.
#[cfg(target_arch = "x86_64")]
struct Ptrs {
    src: *const f32,
    wt: *const f32,
    dst: *mut f32,
}
// SAFETY: the threads only read `src` and `wt`, and write disjoint output rows through `dst`
// (an injective output: distinct coordinates, distinct elements); scoped to the call.
#[cfg(target_arch = "x86_64")]
unsafe impl Sync for Ptrs {}

#[cfg(target_arch = "x86_64")]
impl Ptrs {
    /// The pointers (a method, so that a closure captures the whole `Sync` wrapper).
    fn get(&self) -> (*const f32, *const f32, *mut f32) {
        (self.src, self.wt, self.dst)
    }
}

/// Runs the convolution (every image and group) on the taps route into `dst` (no bias, no
/// ReLU: the caller's epilogue), with the filters regrouped by [`tapped`] in blocks of `ob`,
/// on `threads` threads (output rows split among them).
///
/// Each output row of a block of output channels is cut into column tiles ([`tile_runs`]); the
/// taps of a tile are the batch: a tap in bounds for every pixel of the tile is read in place
/// (for NHWC inputs, a kernel row's such taps as one item of S·C channels), a tap in bounds for
/// some of them only (the padding halo) is an item cut to those pixels, and a tap in bounds
/// for none is left out. The output tile stays in registers across the batch.
#[allow(clippy::too_many_arguments)]
pub(super) fn run(
    opts: Options,
    threads: usize,
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
    let [n_img, c, _, _] = input.dims;
    let [_, o, oh, ow] = output.dims;
    let (cg, og) = (c / groups, o / groups);
    let [r, s] = rs;
    let k = cg * r * s;
    let (sc, so) = (
        input.t[1].step().unwrap_or(0),
        output.t[1].step().unwrap_or(0),
    );
    // 1×1, stride 1, no padding, pixels one stride in both: the whole image in one product
    let whole = match (input.merged_hw(), output.merged_hw()) {
        (Some(pi), Some(po)) if r == 1 && s == 1 && geo.st == [1, 1] && geo.pad == [0, 0] => {
            Some((pi, po))
        }
        _ => None,
    };
    if let Some((pi, po)) = whole {
        let npix = oh * ow;
        for n in 0..n_img {
            let in_base = input.base + input.t[0].off[n];
            for g in 0..groups {
                let in_g = in_base + input.t[1].off[g * cg];
                for o0 in (0..og).step_by(ob) {
                    let on = ob.min(og - o0);
                    let wblock = ((g * og + o0) * k) as isize;
                    let out_g = output.base + output.t[0].off[n] + output.t[1].off[g * og + o0];
                    let a = mat_ref(src, in_g, npix, cg, pi, sc)?;
                    let b = mat_ref(wt, wblock, cg, on, on as isize, 1)?;
                    let cm = mat_mut(dst, out_g, npix, on, po, so)?;
                    batch_reduce(opts, 1.0f32, &[a], &[b], 0.0, cm)?;
                }
            }
        }
        return Ok(());
    }
    #[cfg(target_arch = "x86_64")]
    {
        rows(
            opts.isa, threads, groups, geo, input, src, rs, wt, ob, output, dst,
        )
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // `plan` refuses every instruction set of this architecture
        let _ = (threads, sc, so, wt, ob, dst);
        unreachable!("the taps route on {:?}", opts.isa)
    }
}

/// [`run`]'s rows: every (image, group, block of output channels, output row) one unit of
/// work, the units split among `threads`.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
fn rows(
    isa: Isa,
    threads: usize,
    groups: usize,
    geo: &Spatial,
    input: &Desc,
    src: &[f32],
    [r, s]: [usize; 2],
    wt: &[f32],
    ob: usize,
    output: &Desc,
    dst: &mut [f32],
) -> Result<(), ConvError> {
    use crate::gemm::{BatchItem as Item, BatchShape as Shape, nr_f32, tiles_f32};
    let [n_img, c, h, in_w] = input.dims;
    let [_, o, oh, ow] = output.dims;
    let (cg, og) = (c / groups, o / groups);
    let k = cg * r * s;
    let (sc, sw) = (
        input.t[1].step().unwrap_or(0),
        input.t[3].step().unwrap_or(0),
    );
    let (so, sow) = (
        output.t[1].step().unwrap_or(0),
        output.t[3].step().unwrap_or(0),
    );
    // the column taps' in-bounds output columns
    let cols: Vec<(usize, usize)> = (0..s).map(|j| columns(j, geo, in_w, ow)).collect();
    // NHWC-like inputs (the next pixel is the next C channels: one group, no dilation along W):
    // a kernel row's taps in bounds over a whole tile are one run of channels, one item
    let merge_s = groups == 1 && geo.dil[1] == 1 && sw == c as isize * sc;
    // and, on AVX2 and AVX-512 (whose hand-scheduled loops run them; the Rust loops would take
    // them one run at a time), consecutive kernel rows whole over a tile, one item of several
    // runs (their filters are one run: tap (i + 1, 0) follows tap (i, S − 1)), where the
    // input's H axis is one stride
    let runs_ok = merge_s && matches!(isa, Isa::Avx2 | Isa::Avx512);
    let rstep = match input.t[2].step() {
        Some(sh) if runs_ok => Some(sh * geo.dil[0]),
        _ => None,
    };
    let nr = nr_f32(isa);
    let runs = tile_runs(ow, nr);
    let blocks = og.div_ceil(ob.max(1));
    // where merged and the channels are few (a first layer: taps cut by the padding too short
    // for the hand-scheduled loop, run by the Rust loops), a tile some of whose taps reach
    // into the padding reads the pixels of its windows from a halo copy instead (the in-bounds
    // ones copied, the others zero: kernel rows × the tile's span of columns × C, the rows
    // `span·C` apart), whole rows again, one item; at most `HALO_MAX` elements. (With more
    // channels the cut taps run in the hand-scheduled loop, and copying costs more: 3×3
    // 128→128 28², NHWC, 119 → 103–108 GFLOP/s with a halo copy.)
    let halo = if runs_ok && c < HALO_C_BELOW {
        ((nr - 1) as isize)
            .checked_mul(geo.st[1])
            .and_then(|v| usize::try_from(v).ok())
            .and_then(|v| v.checked_add(s))
            .and_then(|span| span.checked_mul(c)?.checked_mul(r))
            .filter(|&len| len <= HALO_MAX)
    } else {
        None
    };
    // the pixels every column tap reads inside
    let (xa, xb) = cols
        .iter()
        .fold((0, ow), |(a, b), &(lo, hi)| (a.max(lo), b.min(hi)));
    let in_rows = |y: usize| {
        let first = y as isize * geo.st[0] - geo.pad[0];
        (0..r)
            .map(|i| {
                let ih = first + i as isize * geo.dil[0];
                0 <= ih && ih < h as isize
            })
            .collect::<Vec<bool>>()
    };
    // the rows every kernel row reads inside (an interval; sought only where edge columns
    // may run: the other layers' set-up as before)
    let all_in = |y: &usize| in_rows(*y).iter().all(|&v| v);
    let (ya, yb) = if halo.is_none() && merge_s && sc == 1 {
        let ya = (0..oh).find(all_in).unwrap_or(oh);
        (ya, (ya..oh).find(|y| !all_in(y)).unwrap_or(oh))
    } else {
        (0, 0)
    };
    // the edge columns down the image ([`edge_columns`]): the rows `ya .. yb` only from `xa`
    // to `xm`, their other pixels in column units (a column's pixels `st·sH` apart in the
    // input, `soh` in the output)
    let col_steps = match (input.t[2].step(), output.t[2].step()) {
        (Some(sh), Some(soh)) => geo.st[0].checked_mul(sh).map(|csb| (csb, soh)),
        _ => None,
    };
    let edges = col_steps.filter(|_| {
        edge_columns(
            isa,
            nr,
            halo.is_some(),
            merge_s && sc == 1,
            [xa, xb, ow],
            [ya, yb],
        )
    });
    // (the inside columns beyond a multiple of 6 from `xa` go down the image too)
    let xm = xa + xb.saturating_sub(xa) / nr.max(1) * nr.max(1);
    let runs_mid = [(xa, nr, (xm - xa) / nr.max(1)), (xm, 0, 0)];
    // the output rows in units: one row, or two in one tile ([`row_units`])
    let pairs = pair_rows(isa, nr, halo.is_some(), sc, ow) && edges.is_none();
    // where every column tap reading inside leaves one pixel at each end and a multiple of 3
    // between, a row pair's ends are one tile of 4 columns (both rows' first and last
    // pixels, a cut tap's columns contiguous) and the rest tiles of 3 + 3
    let ends_ok =
        pairs && ow >= 2 && xa == 1 && xb + 1 == ow && xb > xa && (xb - xa).is_multiple_of(3);
    let runs_ends = [(xa, 3, xb.saturating_sub(xa) / 3), (0, 0, 0)];
    let runs2 = tile_runs(ow, nr / 2);
    let mut ys: Vec<Unit> = row_units(oh, pairs, |y| in_rows(y) == in_rows(y + 1))
        .into_iter()
        .map(|(y, two)| Unit::Row(y, two))
        .collect();
    if edges.is_some() {
        ys.extend((0..xa).chain(xm..ow).map(Unit::Edge));
    }
    let units = n_img * groups * blocks * ys.len();
    let parts = threads.clamp(1, units.max(1));
    // every part's item buffer (and halo copy), allocated before anything is written
    let cap = 2 * r * s;
    let mut bufs: Vec<Scratch> = Vec::new();
    bufs.try_reserve_exact(parts)
        .map_err(|_| ConvError::Allocation { elements: parts })?;
    for _ in 0..parts {
        let mut v = Vec::new();
        v.try_reserve_exact(cap)
            .map_err(|_| ConvError::Allocation { elements: cap })?;
        let len = halo.unwrap_or(0);
        let mut copy = Vec::new();
        copy.try_reserve_exact(len)
            .map_err(|_| ConvError::Allocation { elements: len })?;
        copy.resize(len, 0.0);
        bufs.push((v, copy));
    }
    let bufs: Vec<std::sync::Mutex<Scratch>> =
        bufs.into_iter().map(std::sync::Mutex::new).collect();
    let src_in = src;
    let ptrs = Ptrs {
        src: src.as_ptr(),
        wt: wt.as_ptr(),
        dst: dst.as_mut_ptr(),
    };
    let ptrs = &ptrs;
    let w0 = input.t[3].off.first().copied().unwrap_or(0);
    let unit = |u: usize, (items, copy): &mut Scratch| {
        let (src, wt, dst) = ptrs.get();
        let work = ys[u % ys.len()];
        let u = u / ys.len();
        let b = u % blocks;
        let g = u / blocks % groups;
        let n = u / blocks / groups;
        let o0 = b * ob;
        let on = ob.min(og - o0);
        let wblock = (g * og + o0) * k;
        let in_g = input.base + input.t[0].off[n] + input.t[1].off[g * cg];
        let (y, two) = match work {
            Unit::Row(y, two) => (y, two),
            Unit::Edge(x) => {
                let Some((csb, soh)) = edges else { return };
                // column x, rows ya .. yb in tiles down the image: per kernel row (all in
                // bounds) one item of the column taps in bounds at x (an interval, one run of
                // channels: NHWC-like)
                let j_lo = (0..s)
                    .find(|&j| cols[j].0 <= x && x < cols[j].1)
                    .unwrap_or(s);
                let j_hi = (j_lo..s)
                    .find(|&j| !(cols[j].0 <= x && x < cols[j].1))
                    .unwrap_or(s);
                let iw = x as isize * geo.st[1] + j_lo as isize * geo.dil[1] - geo.pad[1];
                for (start, width, count) in tile_runs(yb - ya, nr) {
                    if count == 0 {
                        continue;
                    }
                    let y0 = ya + start;
                    let row0 = y0 as isize * geo.st[0] - geo.pad[0];
                    items.clear();
                    // (every tap in bounds: the kernel rows one item of runs `rstep` apart
                    // where the input's H axis is one stride, as the row tiles' merged items)
                    let merged = (j_lo, j_hi) == (0, s) && rstep.is_some();
                    for i in (0..r).filter(|&i| j_lo < j_hi && (i == 0 || !merged)) {
                        let ih = (row0 + i as isize * geo.dil[0]) as usize;
                        items.push(Item {
                            // SAFETY: the block's tap (i, j_lo) is inside the regrouped filters
                            a: unsafe { wt.add(wblock + (i * s + j_lo) * cg * on) },
                            lda: on as isize,
                            b: src.wrapping_offset(in_g + input.t[2].off[ih] + w0 + iw * sw),
                            rsb: sc,
                            csb,
                            k: (j_hi - j_lo) * cg,
                            rows: if merged { r } else { 1 },
                            rstep: if merged { rstep.unwrap_or(0) } else { 0 },
                            lo: 0,
                            hi: usize::MAX,
                            b2: None,
                        });
                    }
                    let out_at = output.base
                        + output.t[0].off[n]
                        + output.t[1].off[g * og + o0]
                        + output.t[2].off[y0]
                        + output.t[3].off[x];
                    let shape = Shape {
                        pair: None,
                        m: on,
                        n: width * count,
                        nt: width,
                        alpha: 1.0f32,
                        beta: 0.0,
                        items,
                        c: dst.wrapping_offset(out_at),
                        ldc: soh,
                        crs: so,
                    };
                    // SAFETY: as the tiles' call below, the tile's columns output rows
                    // `y0 ..` (`soh` apart in C, `st·sH` in the input): every input element
                    // read is at a row every kernel row reads inside (`ya .. yb`) and a tap
                    // in bounds at column x (`j_lo .. j_hi`), its channels `< C` (one run of
                    // `(j_hi − j_lo)·C`: NHWC-like, the next pixel the next C channels; a
                    // merged item's runs the kernel rows, `rstep` apart, its filters the
                    // block's taps in order); every
                    // C element is the output element (n, channel, y0 + t, x), written by
                    // this unit only (the row units leave column x of these rows alone).
                    unsafe { tiles_f32(isa, &shape) };
                }
                return;
            }
        };
        let out_row =
            output.base + output.t[0].off[n] + output.t[1].off[g * og + o0] + output.t[2].off[y];
        let row0 = y as isize * geo.st[0] - geo.pad[0];
        // paired: the second row's output `c2` on, its input rows `st` on (the same kernel
        // rows in bounds as the first's); its tiles `width` pixels of each row
        let c2 = if two {
            output.t[2].off[y + 1] - output.t[2].off[y]
        } else {
            0
        };
        let ends = two && ends_ok;
        let runs = if ends {
            &runs_ends
        } else if two {
            &runs2
        } else if edges.is_some() && (ya..yb).contains(&y) {
            // (the edge units take the pixels outside `xa .. xb`)
            &runs_mid
        } else {
            &runs
        };
        if ends {
            // the ends tile: columns (pixel 0, row y), (0, y + 1), (ow − 1, y), (ow − 1, y + 1)
            // — B's columns one input row apart, its halves `xr·st` pixels; C's the same
            items.clear();
            let xr = ow - 1;
            for i in 0..r {
                let ih = row0 + i as isize * geo.dil[0];
                if ih < 0 || ih >= h as isize {
                    continue;
                }
                let in_row = in_g + input.t[2].off[ih as usize] + w0;
                let brow = input.t[2].off[(ih + geo.st[0]) as usize] - input.t[2].off[ih as usize];
                for (j, &(c_lo, c_hi)) in cols.iter().enumerate() {
                    let ok = |x: usize| c_lo <= x && x < c_hi;
                    let (lo, hi) = match (ok(0), ok(xr)) {
                        (true, true) => (0, usize::MAX),
                        (true, false) => (0, 2),
                        (false, true) => (2, 4),
                        (false, false) => continue,
                    };
                    let iw = j as isize * geo.dil[1] - geo.pad[1];
                    items.push(Item {
                        // SAFETY: the block's tap j of row i is inside the regrouped filters
                        a: unsafe { wt.add(wblock + (i * s + j) * cg * on) },
                        lda: on as isize,
                        b: src.wrapping_offset(in_row + iw * sw),
                        rsb: sc,
                        csb: brow,
                        k: cg,
                        rows: 1,
                        rstep: 0,
                        lo,
                        hi,
                        b2: Some(xr as isize * geo.st[1] * sw),
                    });
                }
            }
            let shape = Shape {
                pair: Some((2, output.t[3].off[xr] - output.t[3].off[0])),
                m: on,
                n: 4,
                nt: 4,
                alpha: 1.0f32,
                beta: 0.0,
                items,
                c: dst.wrapping_offset(out_row + output.t[3].off[0]),
                ldc: c2,
                crs: so,
            };
            // SAFETY: as the tiles' call below: every input element read is a pixel 0 or
            // `ow − 1` of one of the two rows, at a tap in bounds for it (the item's columns),
            // in an in-bounds input row (both rows read the same kernel rows); every C element
            // is the output element (n, channel, y or y + 1, 0 or ow − 1), written by this unit
            // only.
            unsafe { tiles_f32(isa, &shape) };
        }
        // a tile every tap of which is in bounds over all its pixels
        let inside = |x0: usize, x1: usize| cols.iter().all(|&(lo, hi)| lo <= x0 && x1 <= hi);
        for &(start, width, count) in runs {
            let mut t = 0;
            while t < count {
                let x0 = start + t * width;
                let x1 = x0 + width;
                // consecutive inside tiles of one width: one call, each tile `width` on from
                // the last (the same items, read from x0)
                let mut tiles = 1;
                if inside(x0, x1) {
                    while t + tiles < count && inside(x0, x1 + tiles * width) {
                        tiles += 1;
                    }
                }
                t += tiles;
                items.clear();
                if halo.is_some() && !inside(x0, x1) {
                    halo_item(
                        &HaloTile {
                            src: src_in,
                            in_g,
                            row0,
                            x0,
                            width,
                            a: wt.wrapping_add(wblock),
                            on,
                        },
                        &Geometry {
                            geo,
                            input,
                            rs: [r, s],
                            c,
                            w0,
                        },
                        copy,
                        items,
                    );
                }
                // the item of the last kernel row, when it was the row's only one, whole
                let mut merged_row: Option<usize> = None;
                for i in 0..r {
                    if halo.is_some() && !inside(x0, x1) {
                        break;
                    }
                    let ih = row0 + i as isize * geo.dil[0];
                    if ih < 0 || ih >= h as isize {
                        merged_row = None;
                        continue;
                    }
                    let in_row = in_g + input.t[2].off[ih as usize] + w0;
                    // (paired: the second row's input row, in bounds as this one is)
                    let b2 = two.then(|| {
                        input.t[2].off[(ih + geo.st[0]) as usize] - input.t[2].off[ih as usize]
                    });
                    // tap j's item from output column x0 (its first input column may lie in
                    // the padding: the item is then cut to the columns inside)
                    let item = |j: usize, kk: usize, lo: usize, hi: usize| {
                        let iw = x0 as isize * geo.st[1] + j as isize * geo.dil[1] - geo.pad[1];
                        Item {
                            // SAFETY: the block's tap j of row i is inside the regrouped filters
                            a: unsafe { wt.add(wblock + (i * s + j) * cg * on) },
                            lda: on as isize,
                            b: src.wrapping_offset(in_row + iw * sw),
                            rsb: sc,
                            csb: geo.st[1] * sw,
                            k: kk,
                            rows: 1,
                            rstep: 0,
                            lo,
                            hi,
                            b2,
                        }
                    };
                    // the taps in bounds over the whole tile: an interval (the bounds move
                    // with j one way); the others in bounds for part of it, cut
                    let full = |j: usize| cols[j].0 <= x0 && x1 <= cols[j].1;
                    if let Some(rstep) = rstep
                        && (0..s).all(full)
                    {
                        // the whole kernel row, one run of S·C channels: a run more of the
                        // last row's item when that one was whole too
                        match merged_row.and_then(|at| items.get_mut(at)) {
                            Some(last) => {
                                last.rows += 1;
                                last.rstep = rstep;
                            }
                            None => {
                                merged_row = Some(items.len());
                                items.push(item(0, s * cg, 0, usize::MAX));
                            }
                        }
                        continue;
                    }
                    merged_row = None;
                    let mut j = 0;
                    while j < s {
                        let (lo, hi) = (cols[j].0.max(x0), cols[j].1.min(x1));
                        if lo >= hi {
                            j += 1;
                        } else if !full(j) {
                            items.push(item(j, cg, lo - x0, hi - x0));
                            if two {
                                // the second row's pixels: the tile's second half
                                items.push(item(j, cg, width + lo - x0, width + hi - x0));
                            }
                            j += 1;
                        } else if merge_s {
                            let mut e = j + 1;
                            while e < s && full(e) {
                                e += 1;
                            }
                            items.push(item(j, (e - j) * cg, 0, usize::MAX));
                            j = e;
                        } else {
                            items.push(item(j, cg, 0, usize::MAX));
                            j += 1;
                        }
                    }
                }
                let shape = Shape {
                    pair: two.then_some((width, c2)),
                    m: on,
                    n: width * tiles * if two { 2 } else { 1 },
                    nt: width * if two { 2 } else { 1 },
                    alpha: 1.0f32,
                    beta: 0.0,
                    items,
                    c: dst.wrapping_offset(out_row + output.t[3].off[x0]),
                    ldc: sow,
                    crs: so,
                };
                // (paired: the second half's pixels the same columns of row y + 1, from its
                // input rows `st` on, in bounds as row y's; C's `c2` on, row y + 1's)
                // SAFETY: `plan` admitted AVX2 or AVX-512, checked available by the caller;
                // every filter element read is inside the regrouped block (on channels × the
                // item's runs of k taps·channels, a merged item's runs the consecutive kernel
                // rows it covers); every input element read is at a column whose tap is in
                // bounds (the item's columns) and a channel below C of an in-bounds row (a
                // merged item's rows each in bounds, `rstep` apart): an element of the input
                // tensor, inside `src` — or, for a tile at the padding with a halo copy, an
                // element of that copy (`halo_item`: rows·span·C elements, inside `copy`,
                // which lives and is not written until the call returns); every C element is the output
                // element (n, g·O/groups + o0 + i, y, x0 + j), inside `dst`, written by this
                // unit only (the output is injective, units are distinct rows). Over several
                // inside tiles every item is whole, in bounds for every pixel of them.
                unsafe { tiles_f32(isa, &shape) };
            }
        }
    };
    crate::gemm::split_threads(parts, &|t| {
        let lo = units * t / parts;
        let hi = units * (t + 1) / parts;
        let mut buf = bufs[t].lock().unwrap_or_else(|e| e.into_inner());
        for u in lo..hi {
            unit(u, &mut buf);
        }
    });
    Ok(())
}
