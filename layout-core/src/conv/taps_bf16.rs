//! bf16 convolution taps on the `vdpbf16ps` pair tile (`gemm/batch_bf16.rs`): the taps route
//! of `taps.rs` with the input channels taken two at a time, `bf16 × bf16 → f32`, nothing
//! widened.
//!
//! - The filters are regrouped once into k pairs ([`Paired`]): block of output channels after
//!   block, tap after tap, a pair of input channels per 32-bit word, output channels
//!   contiguous.
//! - The input is read in place where a pair of channels is two consecutive bf16: its channel
//!   axis unit stride, its W axis one stride, and C/groups even. Otherwise (NCHW, an odd
//!   channel count per group, channels not unit stride) it is copied once per call into an
//!   NHWC bf16 buffer whose groups are padded to an even channel count with a zero channel
//!   (its filters' pad channel zero too): a pair never straddles a tap or a group.
//! - Each output row of a block of output channels is cut into column tiles; per kernel row
//!   in bounds, the taps in bounds over the whole tile are one item (where the input is
//!   NHWC-like, the kernel row's S taps one run of S·C channels), a tap in bounds for part of
//!   the tile an item cut to those pixels; the tile's accumulators stay in registers across
//!   the items.
//!
//! `vdpbf16ps` rounds each pair's sum into the f32 accumulator and flushes denormal inputs and
//! outputs to zero: results can differ from the widened route in the last bits (not on
//! integer data small enough for bf16, where both are exact).

use std::vec::Vec;

use half::bf16;

use super::error::ConvError;
use super::geom::{AxisTab, Desc, Spatial};
use super::im2col::KOrder;
use super::run::Filters;
use super::taps::{block, columns, tile_runs};
use crate::gemm::{Isa, PAIR_NR, PairItem, PairShape, pairs_available, tiles_bf16};

/// Whether bf16 convolutions run on the pair tile on this CPU at `isa`: AVX-512 BF16
/// available and selected, and the dot products faster than the widened `f32` taps there.
///
/// `LAYOUT_CONV_BF16=dot` takes the pair tile wherever it can run, `LAYOUT_CONV_BF16=widen`
/// never. By default it runs on CPUs without AMX: on the Intel Xeon (Sapphire Rapids class, the
/// CPUs with AMX) `vdpbf16ps` issues one per two cycles, 16 bf16 multiply-adds per cycle
/// against 32 for the two f32 FMA ports (116 against 232 GFLOP/s, BENCHMARKS.md issue 30
/// session 9), so the widened f32 taps are faster there.
pub(super) fn dot_route(isa: Isa) -> bool {
    if !pairs_available(isa) {
        return false;
    }
    match std::env::var("LAYOUT_CONV_BF16").as_deref() {
        Ok("dot") => true,
        Ok("widen") => false,
        _ => !crate::isa::has_amx(),
    }
}

/// Whether the pair tile can run this convolution: the output's channel and W axes strided
/// (C written through the tile's maps), modest geometry (as `taps::plan`).
pub(super) fn plan(output: &Desc, geo: &Spatial) -> bool {
    const MODEST: isize = 1 << 20;
    let modest = |v: [isize; 2]| v.iter().all(|x| (0..=MODEST).contains(x));
    modest(geo.st)
        && modest(geo.pad)
        && modest(geo.dil)
        && output.t[1].step().is_some()
        && output.t[3].step().is_some()
}

/// The filters in k pairs for the pair tile, blocks of `ob` output channels: the block of
/// group `g` from channel `o0` (`on` channels) starts at word `(g·O/groups + o0)·R·S·P`
/// (`P = ⌈C/groups / 2⌉` pairs a tap) and holds, for tap `t = r·S + s` and pair `q`, the word
/// of output channel `o` at `(t·P + q)·on + o`: input channel `2q` in its low half, `2q + 1`
/// (zero past C/groups) in its high half.
#[derive(Clone, Debug)]
pub(super) struct Paired {
    /// Output channels per block.
    pub ob: usize,
    store: Vec<u32>,
    start: usize,
}

impl Paired {
    /// The regrouped filters.
    pub fn data(&self) -> &[u32] {
        &self.store[self.start..]
    }
}

/// Regroups the filters `w` ([`Paired`]); `None` where some filter value is not a bf16 (weights
/// prepared from `f32`: the widened route keeps them exact).
pub(super) fn paired(
    w: &Filters<'_>,
    groups: usize,
    og: usize,
    ob: usize,
) -> Result<Option<Paired>, ConvError> {
    let [r, s] = w.rs;
    let cg = w.k / (r * s).max(1);
    let pairs = cg.div_ceil(2);
    let len = (groups * og)
        .checked_mul(r * s * pairs)
        .and_then(|l| l.checked_add(16))
        .ok_or(ConvError::Overflow {
            what: "the weights' size",
        })?;
    let mut v: Vec<u32> = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| ConvError::Allocation { elements: len })?;
    let start = v.as_ptr().align_offset(64).min(16);
    v.resize(start, 0);
    // the bits of filter value (o, c, i, j) of group g, when it is a bf16
    let bits = |g: usize, o: usize, c: usize, i: usize, j: usize| -> Option<u32> {
        if c >= cg {
            return Some(0);
        }
        let kk = match w.order {
            KOrder::Crs => (c * r + i) * s + j,
            KOrder::Rsc => (i * s + j) * cg + c,
        };
        let x = w.data[(w.origin[g] + kk as isize * w.sk + o as isize * w.so) as usize];
        let b = bf16::from_f32(x);
        (b.to_f32().to_bits() == x.to_bits() || x.is_nan()).then_some(b.to_bits() as u32)
    };
    for g in 0..groups {
        for o0 in (0..og).step_by(ob.max(1)) {
            let on = ob.min(og - o0);
            for i in 0..r {
                for j in 0..s {
                    for q in 0..pairs {
                        for o in o0..o0 + on {
                            let (Some(lo), Some(hi)) =
                                (bits(g, o, 2 * q, i, j), bits(g, o, 2 * q + 1, i, j))
                            else {
                                return Ok(None);
                            };
                            v.push(lo | hi << 16);
                        }
                    }
                }
            }
        }
    }
    Ok(Some(Paired {
        ob,
        store: v,
        start,
    }))
}

/// Output channels per block of the pair route for `k2` pairs a channel (`R·S·P`): the f32
/// route's filter budget, 4 bytes a pair.
pub(super) fn pair_block(k2: usize, og: usize) -> usize {
    block(Isa::Avx512, k2, og)
}

/// An axis of `n` indices `step` apart from 0.
fn arith(n: usize, step: isize) -> Result<AxisTab, ConvError> {
    let mut off = Vec::new();
    off.try_reserve_exact(n)
        .map_err(|_| ConvError::Allocation { elements: n })?;
    off.extend((0..n).map(|i| i as isize * step));
    Ok(AxisTab {
        off,
        step: Some(if n > 1 { step } else { 0 }),
    })
}

/// The input as the pair tile reads it: its description, its bits, and the channels of a
/// group in it (C/groups, or that rounded up to even in a copy).
pub(super) struct PairInput<'a> {
    pub desc: Desc,
    pub bits: std::borrow::Cow<'a, [u16]>,
    pub per_group: usize,
}

/// The input read in place (channels unit stride, W one stride, C/groups even), else copied
/// into NHWC with every group's channels padded to an even count by a zero channel.
pub(super) fn pair_input<'a>(
    input: &Desc,
    src: &'a [bf16],
    groups: usize,
) -> Result<PairInput<'a>, ConvError> {
    let [n_img, c, h, w] = input.dims;
    let cg = c / groups.max(1);
    let in_place =
        input.t[1].step() == Some(1) && input.t[3].step().is_some() && cg.is_multiple_of(2);
    if in_place {
        // SAFETY: `bf16` is a `repr(transparent)` u16: the same slice, its bits.
        let bits = unsafe { core::slice::from_raw_parts(src.as_ptr().cast::<u16>(), src.len()) };
        return Ok(PairInput {
            desc: input.clone(),
            bits: std::borrow::Cow::Borrowed(bits),
            per_group: cg,
        });
    }
    let cgp = cg + cg % 2;
    let px = groups * cgp;
    let overflow = ConvError::Overflow {
        what: "the input copy's size",
    };
    let len = n_img
        .checked_mul(h)
        .and_then(|v| v.checked_mul(w))
        .and_then(|v| v.checked_mul(px))
        .ok_or(overflow)?;
    let mut v: Vec<u16> = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| ConvError::Allocation { elements: len })?;
    v.resize(len, 0);
    if let Some(sw) = input.t[3].step() {
        copy_pairs(input, src, groups, sw, &mut v);
    } else {
        copy_each(input, src, groups, &mut v);
    }
    let pxi = px as isize;
    Ok(PairInput {
        desc: Desc {
            dims: [n_img, px, h, w],
            t: [
                arith(n_img, (h * w) as isize * pxi)?,
                arith(px, 1)?,
                arith(h, w as isize * pxi)?,
                arith(w, pxi)?,
            ],
            base: 0,
        },
        bits: std::borrow::Cow::Owned(v),
        per_group: cgp,
    })
}

/// [`pair_input`]'s copy where the input's W axis is one stride `sw`: per image row, group and
/// pair of channels, the two channels' rows (contiguous where `sw = 1`) into every pixel's
/// pair, pixel after pixel (the copy's row of pixels, `W·px` bf16, stays in the L1 cache
/// across the pairs); a group's odd last channel is paired with the zero already there.
fn copy_pairs(input: &Desc, src: &[bf16], groups: usize, sw: isize, v: &mut [u16]) {
    let [n_img, c, h, w] = input.dims;
    let cg = c / groups.max(1);
    let cgp = cg + cg % 2;
    let px = groups * cgp;
    if w == 0 || px == 0 {
        return;
    }
    for n in 0..n_img {
        for ih in 0..h {
            let row = &mut v[(n * h + ih) * w * px..][..w * px];
            for g in 0..groups {
                for cc in (0..cg).step_by(2) {
                    // (elements of a validated tensor: every index is inside `src`)
                    let at = |cc: usize| {
                        input.base
                            + input.t[0].off[n]
                            + input.t[1].off[g * cg + cc]
                            + input.t[2].off[ih]
                            + input.t[3].off[0]
                    };
                    let to = g * cgp + cc;
                    let (lo, hi) = (at(cc), (cc + 1 < cg).then(|| at(cc + 1)));
                    let pixels = row.chunks_exact_mut(px);
                    match (hi, sw) {
                        (Some(hi), 1) => {
                            let (a, b) = (&src[lo as usize..][..w], &src[hi as usize..][..w]);
                            for ((d, x), y) in pixels.zip(a).zip(b) {
                                d[to] = x.to_bits();
                                d[to + 1] = y.to_bits();
                            }
                        }
                        (Some(hi), _) => {
                            for (iw, d) in pixels.enumerate() {
                                let o = iw as isize * sw;
                                d[to] = src[(lo + o) as usize].to_bits();
                                d[to + 1] = src[(hi + o) as usize].to_bits();
                            }
                        }
                        (None, _) => {
                            for (iw, d) in pixels.enumerate() {
                                d[to] = src[(lo + iw as isize * sw) as usize].to_bits();
                            }
                        }
                    }
                }
            }
        }
    }
}

/// [`pair_input`]'s copy element by element through the input's offset tables (a W axis
/// that is not one stride).
fn copy_each(input: &Desc, src: &[bf16], groups: usize, v: &mut [u16]) {
    let [n_img, c, h, w] = input.dims;
    let cg = c / groups.max(1);
    let cgp = cg + cg % 2;
    let px = groups * cgp;
    for n in 0..n_img {
        for ih in 0..h {
            let row = (n * h + ih) * w * px;
            for g in 0..groups {
                for cc in 0..cg {
                    // (elements of a validated tensor: every index is inside `src`)
                    let from = input.base
                        + input.t[0].off[n]
                        + input.t[1].off[g * cg + cc]
                        + input.t[2].off[ih];
                    let to = row + g * cgp + cc;
                    for (iw, &o) in input.t[3].off.iter().enumerate() {
                        v[to + iw * px] = src[(from + o) as usize].to_bits();
                    }
                }
            }
        }
    }
}

/// The pointers one call shares with its threads.
struct Ptrs {
    src: *const u16,
    wt: *const u32,
    dst: *mut f32,
}
// SAFETY: the threads only read `src` and `wt`, and write disjoint output rows through `dst`
// (an injective output: distinct coordinates, distinct elements); scoped to the call.
unsafe impl Sync for Ptrs {}

impl Ptrs {
    /// The pointers (a method, so that a closure captures the whole `Sync` wrapper).
    fn get(&self) -> (*const u16, *const u32, *mut f32) {
        (self.src, self.wt, self.dst)
    }
}

/// The convolution's sizes the row driver reads.
pub(super) struct Problem<'a> {
    pub threads: usize,
    pub groups: usize,
    pub geo: &'a Spatial,
    pub rs: [usize; 2],
    /// Output channels a group.
    pub og: usize,
}

/// Runs the convolution (every image and group) on the pair tile into `dst` (no bias, no
/// ReLU: the caller's epilogue), with the filters regrouped by [`paired`] in blocks of
/// `wt.ob`, the input as [`pair_input`] gives it, output rows split among the threads.
pub(super) fn run(
    p: &Problem<'_>,
    input: &PairInput<'_>,
    wt: &Paired,
    output: &Desc,
    dst: &mut [f32],
) -> Result<(), ConvError> {
    let Problem {
        threads,
        groups,
        geo,
        rs: [r, s],
        og,
    } = *p;
    let src = &input.bits[..];
    let inp = &input.desc;
    let [n_img, _, h, in_w] = inp.dims;
    let [_, _, oh, ow] = output.dims;
    let cgp = input.per_group;
    let pairs = cgp / 2;
    let k2 = r * s * pairs;
    let ob = wt.ob.max(1);
    let sw = inp.t[3].step().unwrap_or(0);
    let (so, sow) = (
        output.t[1].step().unwrap_or(0),
        output.t[3].step().unwrap_or(0),
    );
    let cols: Vec<(usize, usize)> = (0..s).map(|j| columns(j, geo, in_w, ow)).collect();
    // NHWC-like (the next pixel is the next channels: one group, no dilation along W): a kernel
    // row's taps in bounds over a whole tile are one run of S·C channels, one item
    let merge_s = groups == 1 && geo.dil[1] == 1 && sw == cgp as isize;
    let runs = tile_runs(ow, PAIR_NR);
    let blocks = og.div_ceil(ob);
    let units = n_img * groups * blocks * oh;
    let parts = threads.clamp(1, units.max(1));
    let cap = 2 * r * s;
    let mut bufs: Vec<std::sync::Mutex<Vec<PairItem>>> = Vec::new();
    bufs.try_reserve_exact(parts)
        .map_err(|_| ConvError::Allocation { elements: parts })?;
    for _ in 0..parts {
        let mut v = Vec::new();
        v.try_reserve_exact(cap)
            .map_err(|_| ConvError::Allocation { elements: cap })?;
        bufs.push(std::sync::Mutex::new(v));
    }
    let ptrs = Ptrs {
        src: src.as_ptr(),
        wt: wt.data().as_ptr(),
        dst: dst.as_mut_ptr(),
    };
    let ptrs = &ptrs;
    let w0 = inp.t[3].off.first().copied().unwrap_or(0);
    let unit = |u: usize, items: &mut Vec<PairItem>| {
        let (src, wt, dst) = ptrs.get();
        let y = u % oh;
        let u = u / oh;
        let b = u % blocks;
        let g = u / blocks % groups;
        let n = u / blocks / groups;
        let o0 = b * ob;
        let on = ob.min(og - o0);
        let wblock = (g * og + o0) * k2;
        let in_g = inp.base + inp.t[0].off[n] + inp.t[1].off[g * cgp];
        let out_row =
            output.base + output.t[0].off[n] + output.t[1].off[g * og + o0] + output.t[2].off[y];
        let row0 = y as isize * geo.st[0] - geo.pad[0];
        let inside = |x0: usize, x1: usize| cols.iter().all(|&(lo, hi)| lo <= x0 && x1 <= hi);
        for &(start, width, count) in &runs {
            let mut t = 0;
            while t < count {
                let x0 = start + t * width;
                let x1 = x0 + width;
                // consecutive inside tiles of one width: one call, the same items
                let mut tiles = 1;
                if inside(x0, x1) {
                    while t + tiles < count && inside(x0, x1 + tiles * width) {
                        tiles += 1;
                    }
                }
                t += tiles;
                items.clear();
                for i in 0..r {
                    let ih = row0 + i as isize * geo.dil[0];
                    if ih < 0 || ih >= h as isize {
                        continue;
                    }
                    let in_row = in_g + inp.t[2].off[ih as usize] + w0;
                    // tap j's item from output column x0 (its first input column may lie in
                    // the padding: the item is then cut to the columns inside)
                    let item = |j: usize, taps: usize, lo: usize, hi: usize| {
                        let iw = x0 as isize * geo.st[1] + j as isize * geo.dil[1] - geo.pad[1];
                        PairItem {
                            a: wt.wrapping_add(wblock + (i * s + j) * pairs * on),
                            lda: on as isize,
                            b: src.wrapping_offset(in_row + iw * sw),
                            csb: geo.st[1] * sw,
                            k2: taps * pairs,
                            lo,
                            hi,
                        }
                    };
                    let full = |j: usize| cols[j].0 <= x0 && x1 <= cols[j].1;
                    let mut j = 0;
                    while j < s {
                        let (lo, hi) = (cols[j].0.max(x0), cols[j].1.min(x1));
                        if lo >= hi {
                            j += 1;
                        } else if !full(j) {
                            items.push(item(j, 1, lo - x0, hi - x0));
                            j += 1;
                        } else if merge_s {
                            let mut e = j + 1;
                            while e < s && full(e) {
                                e += 1;
                            }
                            items.push(item(j, e - j, 0, usize::MAX));
                            j = e;
                        } else {
                            items.push(item(j, 1, 0, usize::MAX));
                            j += 1;
                        }
                    }
                }
                let shape = PairShape {
                    m: on,
                    n: width * tiles,
                    nt: width,
                    alpha: 1.0,
                    beta: 0.0,
                    items,
                    c: dst.wrapping_offset(out_row + output.t[3].off[x0]),
                    ldc: sow,
                    crs: so,
                };
                // SAFETY: the caller checked AVX-512 BF16 (`dot_route`); every filter word
                // read is inside the block (`on` channels × the item's taps·pairs, a merged
                // item's taps consecutive, tap (i, j + 1) after tap (i, j)); every input pair
                // read is at a column whose tap is in bounds (the item's columns), in an
                // in-bounds row, channels `2q, 2q + 1 < per_group` of the group (a merged item's
                // S·C channels one run: the next pixel the next channels): two elements of the
                // input; every C element is the output element (n, g·O/groups + o0 + i, y,
                // x0 + j), inside `dst`, written by this unit only (the output is injective,
                // units are distinct rows).
                unsafe { tiles_bf16(&shape) };
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
