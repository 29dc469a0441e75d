//! The driver: checks, weights packed once, one GEMM per image and group reading the im2col
//! matrix through the packer, and the bias / ReLU epilogue.

use std::sync::OnceLock;
use std::vec::Vec;

use super::error::{ConvError, ConvOperand};
use super::geom::{AxisTab, Conv2d, Desc};
use super::im2col::ConvElement;
use super::im2col::{KOrder, Windows, taps};
use super::taps;
use crate::gemm::{
    self, Element, GemmError, MatMut, MatRef, Options, Out, Panels as Source, Strided, gemm_with,
    run_panels,
};
use crate::tensor::{Storage, StorageMut, Tensor};
use crate::walk::AnyLayout;
use crate::walk::kernels::transpose;

/// The filters as the GEMM reads them: per group, the matrix `O/groups × K` (K = the taps,
/// `C/groups · R · S`, in the order of the input's im2col columns) whose element (o, k) of group
/// `g` is `data[origin[g] + o·so + k·sk]` — the filter tensor itself when it is `f32` and its
/// tap axes merge into one stride in that order (OIHW for NCHW inputs, OHWI for NHWC), else a
/// copy made once per call.
pub(super) struct Filters<'a> {
    pub data: &'a [f32],
    pub origin: Vec<isize>,
    pub so: isize,
    pub sk: isize,
    pub order: KOrder,
    /// K, and the kernel's R × S.
    pub k: usize,
    pub rs: [usize; 2],
}

fn alloc(len: usize) -> Result<Vec<f32>, ConvError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|_| ConvError::Allocation { elements: len })?;
    v.resize(len, 0.0);
    Ok(v)
}

/// The step of axes `axes` of `d` (fastest first) merged into one arithmetic axis, when they
/// merge.
fn merged(d: &Desc, axes: [usize; 3]) -> Option<isize> {
    let mut cur: Option<(usize, isize)> = None;
    for a in axes {
        let (e, st) = (d.dims[a], d.t[a].step()?);
        if e == 1 {
            continue;
        }
        cur = match cur {
            None => Some((e, st)),
            Some((ce, cs)) if (ce as isize).checked_mul(cs) == Some(st) => Some((ce * e, cs)),
            Some(_) => return None,
        };
    }
    Some(cur.map_or(1, |(_, s)| s))
}

/// The tap axes of the weights (O, I, R, S), fastest first, for the k order.
fn tap_axes(order: KOrder) -> [usize; 3] {
    match order {
        KOrder::Crs => [3, 2, 1],
        KOrder::Rsc => [1, 3, 2],
    }
}

/// The filters in place when possible, else packed into `store` (group after group, each
/// `K × O/groups` row-major: k outer, so a block of k steps is a run of contiguous rows).
fn filters<'a, T: ConvElement>(
    w: &Desc,
    src: &'a [T],
    groups: usize,
    order: KOrder,
    store: &'a mut Vec<f32>,
    copy: bool,
) -> Result<Filters<'a>, ConvError> {
    let [o, cg, r, s] = w.dims;
    let og = o / groups;
    let k = cg * r * s;
    if let (false, Some(data), Some(so), Some(sk)) = (
        copy,
        T::as_f32(src),
        w.t[0].step(),
        merged(w, tap_axes(order)),
    ) {
        let origin = (0..groups)
            .map(|g| w.base + w.t[0].off[g * og] + w.t[1].off[0] + w.t[2].off[0] + w.t[3].off[0])
            .collect();
        return Ok(Filters {
            data,
            origin,
            so,
            sk,
            order,
            k,
            rs: [r, s],
        });
    }
    let len = o.checked_mul(k).ok_or(ConvError::Overflow {
        what: "the weights' size",
    })?;
    *store = alloc(len)?;
    let m = &mut store[..];
    let mut p = 0;
    for g in 0..groups {
        let mut put = |c: usize, i: usize, j: usize| {
            let row = &mut m[(g * k + p) * og..(g * k + p + 1) * og];
            for (oo, x) in row.iter_mut().enumerate() {
                *x = src[w.at(g * og + oo, c, i, j) as usize].to_f32();
            }
            p += 1;
        };
        match order {
            KOrder::Crs => {
                for c in 0..cg {
                    for i in 0..r {
                        for j in 0..s {
                            put(c, i, j);
                        }
                    }
                }
            }
            KOrder::Rsc => {
                for i in 0..r {
                    for j in 0..s {
                        for c in 0..cg {
                            put(c, i, j);
                        }
                    }
                }
            }
        }
        p = 0;
    }
    let origin = (0..groups).map(|g| (g * k * og) as isize).collect();
    Ok(Filters {
        data: store,
        origin,
        so: 1,
        sk: og as isize,
        order,
        k,
        rs: [r, s],
    })
}

/// The k order for an input: runs along pixels when W is contiguous, along channels when C is.
fn order_for(input: &Desc) -> KOrder {
    if input.t[3].step() != Some(1) && input.t[1].step() == Some(1) {
        KOrder::Rsc
    } else {
        KOrder::Crs
    }
}

/// The checked problem: descriptions of the three tensors and the output extents.
struct Checked {
    input: Desc,
    weights: Desc,
    output: Desc,
}

fn check<LI: AnyLayout, LW: AnyLayout, LO: AnyLayout>(
    params: &Conv2d,
    input: (&LI, usize),
    weights: (&LW, usize),
    bias: Option<&[f32]>,
    output: (&LO, usize),
) -> Result<Checked, ConvError> {
    let input = Desc::new(ConvOperand::Input, input.0, input.1)?;
    let weights = Desc::new(ConvOperand::Weights, weights.0, weights.1)?;
    let output = Desc::new(ConvOperand::Output, output.0, output.1)?;
    let expected = params.output_dims(input.dims, weights.dims)?;
    if output.dims != expected {
        return Err(ConvError::OutputShape {
            expected,
            got: output.dims,
        });
    }
    if let Some(b) = bias
        && b.len() != expected[1]
    {
        return Err(ConvError::BiasLength {
            expected: expected[1],
            got: b.len(),
        });
    }
    Ok(Checked {
        input,
        weights,
        output,
    })
}

/// 2-D convolution (cross-correlation, as in deep-learning frameworks) on tensors of any
/// rank-4 layouts:
///
/// ```text
/// output[n][o][oh][ow] = relu?(bias[o] + Σ_{c,r,s} weights[o][c][r][s]
///     · input[n][g·C/groups + c][oh·stride + r·dilation − padding][ow·stride + s·dilation − padding])
/// ```
///
/// with `g = o / (O/groups)` and input outside `[0, H) × [0, W)` reading 0.
///
/// Logical axes: the input is (N, C, H, W), the weights (O, C/groups, R, S), the output
/// (N, O, OH, OW), whatever their layouts (NCHW, NHWC, `nChw16c`, OIHW, `OIhw16i16o`, …: the
/// layout says where each element lives). The input and weights are `f32`, or `bf16` / `f16`
/// ([`ConvElement`]: widened to `f32`, the input once per call where the taps route or a 1×1
/// GEMM runs it, else as it is packed); the output, bias and every sum are `f32`. One thread, [`Options::default`]; see [`conv2d_with`].
///
/// ```
/// use layout::{DynLayout, Tensor};
/// use layout::conv::{Conv2d, conv2d};
/// // a 1×1×3×3 NCHW input, one 2×2 filter of ones, padding 1: each output sums a window
/// let x = Tensor::new(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0],
///     "(1,1,3,3):(9,9,3,1)".parse::<DynLayout>().unwrap()).unwrap();
/// let w = Tensor::new(vec![1.0f32; 4], "(1,1,2,2):(4,4,2,1)".parse::<DynLayout>().unwrap()).unwrap();
/// let mut y = Tensor::new(vec![0.0f32; 16], "(1,1,4,4):(16,16,4,1)".parse::<DynLayout>().unwrap()).unwrap();
/// conv2d(&Conv2d::default().padding(1), &x, &w, None, &mut y).unwrap();
/// assert_eq!(&y.as_slice()[..4], &[1.0, 3.0, 5.0, 3.0]);
/// assert_eq!(y.as_slice()[5], 1.0 + 2.0 + 4.0 + 5.0);
/// ```
///
/// # Errors
/// [`ConvError::NotRank4`] for a tensor that is not rank 4 with an affine layout; the errors of
/// [`Conv2d::output_dims`]; [`ConvError::OutputShape`]; [`ConvError::BiasLength`];
/// [`ConvError::Allocation`]. Nothing is written on error.
pub fn conv2d<T, SI, LI, SW, LW, SO, LO>(
    params: &Conv2d,
    input: &Tensor<SI, LI>,
    weights: &Tensor<SW, LW>,
    bias: Option<&[f32]>,
    output: &mut Tensor<SO, LO>,
) -> Result<(), ConvError>
where
    T: ConvElement,
    SI: Storage<Elem = T>,
    SW: Storage<Elem = T>,
    SO: StorageMut<Elem = f32>,
    LI: AnyLayout,
    LW: AnyLayout,
    LO: AnyLayout,
{
    conv2d_with(Options::default(), params, input, weights, bias, output)
}

/// [`conv2d`] with the instruction set and threads of `opts`.
///
/// # Errors
/// As [`conv2d`]; [`ConvError::Gemm`] with [`GemmError::IsaUnavailable`] when this CPU lacks
/// `opts.isa`.
pub fn conv2d_with<T, SI, LI, SW, LW, SO, LO>(
    opts: impl Into<Options>,
    params: &Conv2d,
    input: &Tensor<SI, LI>,
    weights: &Tensor<SW, LW>,
    bias: Option<&[f32]>,
    output: &mut Tensor<SO, LO>,
) -> Result<(), ConvError>
where
    T: ConvElement,
    SI: Storage<Elem = T>,
    SW: Storage<Elem = T>,
    SO: StorageMut<Elem = f32>,
    LI: AnyLayout,
    LW: AnyLayout,
    LO: AnyLayout,
{
    let opts = opts.into();
    let ck = check(
        params,
        (input.layout(), input.base_offset()),
        (weights.layout(), weights.base_offset()),
        bias,
        (output.layout(), output.base_offset()),
    )?;
    gemm::isa_checked("conv2d", opts.isa, f32::kernel(opts.isa).is_some())
        .map_err(ConvError::Gemm)?;
    let order = order_for(&ck.input);
    let mut store = Vec::new();
    let f = filters(
        &ck.weights,
        weights.as_slice(),
        params.groups,
        order,
        &mut store,
        false,
    )?;
    let job = Job {
        opts,
        params,
        w: &f,
        cache: None,
        #[cfg(target_arch = "x86_64")]
        paired: None,
        bias,
    };
    run(
        &job,
        &ck.input,
        input.as_slice(),
        &ck.output,
        output.as_mut_slice(),
    )
}

/// Filters packed once, for convolutions that reuse them (inference: the same weights, call
/// after call). [`conv2d_prepared`] reads them without looking at the filter tensor again.
///
/// The taps are ordered for the input layout given to [`ConvWeights::new`] (`(c, r, s)` when
/// its W axis is contiguous, `(r, s, c)` when its C axis is); any input layout still works
/// with them, the packer reads the input in the order of the weights.
///
/// ```
/// use layout::{DynLayout, Tensor};
/// use layout::conv::{Conv2d, ConvWeights, conv2d, conv2d_prepared};
/// use layout::gemm::Options;
/// let nhwc: DynLayout = "(1,4,5,5):(100,1,20,4)".parse().unwrap();
/// let x = Tensor::new((0..100).map(|v| (v % 7) as f32).collect::<Vec<_>>(), nhwc).unwrap();
/// let w = Tensor::new((0..72).map(|v| (v % 3) as f32 - 1.0).collect::<Vec<_>>(),
///     "(2,4,3,3):(36,9,3,1)".parse::<DynLayout>().unwrap()).unwrap();
/// let p = Conv2d::default().padding(1);
/// let packed = ConvWeights::new(&p, &nhwc, &w).unwrap();
/// let out: DynLayout = "(1,2,5,5):(50,25,5,1)".parse().unwrap();
/// let mut y1 = Tensor::new(vec![0.0f32; 50], out).unwrap();
/// let mut y2 = Tensor::new(vec![0.0f32; 50], out).unwrap();
/// conv2d_prepared(Options::default(), &p, &x, &packed, None, &mut y1).unwrap();
/// conv2d(&p, &x, &w, None, &mut y2).unwrap();
/// assert_eq!(y1.as_slice(), y2.as_slice());
/// ```
#[derive(Clone, Debug)]
pub struct ConvWeights {
    store: Vec<f32>,
    origin: Vec<isize>,
    sk: isize,
    order: KOrder,
    k: usize,
    rs: [usize; 2],
    /// O, C/groups, R, S.
    dims: [usize; 4],
    groups: usize,
    /// The filters regrouped for the taps route (`taps::tapped`) with their block size, made on
    /// first use.
    tapped: OnceLock<taps::Tapped>,
    /// The filters in k pairs for the bf16 pair tile (`taps_bf16::paired`; `None` where they
    /// are not bf16 values), made on first use.
    #[cfg(target_arch = "x86_64")]
    paired: OnceLock<Option<super::taps_bf16::Paired>>,
}

impl ConvWeights {
    /// Packs `weights` (logical axes O, C/groups, R, S; `f32`, `bf16` or `f16`, widened now)
    /// for convolutions with `params.groups` groups of inputs laid out like `input`.
    ///
    /// # Errors
    /// [`ConvError::NotRank4`]; [`ConvError::Zero`] for zero groups;
    /// [`ConvError::ChannelsNotDivisible`] when O is not a multiple of the groups;
    /// [`ConvError::Allocation`].
    pub fn new<T, LI, SW, LW>(
        params: &Conv2d,
        input: &LI,
        weights: &Tensor<SW, LW>,
    ) -> Result<ConvWeights, ConvError>
    where
        T: ConvElement,
        LI: AnyLayout,
        SW: Storage<Elem = T>,
        LW: AnyLayout,
    {
        let i = Desc::new(ConvOperand::Input, input, 0)?;
        let w = Desc::new(
            ConvOperand::Weights,
            weights.layout(),
            weights.base_offset(),
        )?;
        let g = params.groups;
        if g == 0 {
            return Err(ConvError::Zero {
                what: "groups",
                axis: 0,
            });
        }
        if w.dims[0] % g != 0 {
            return Err(ConvError::ChannelsNotDivisible {
                operand: ConvOperand::Output,
                channels: w.dims[0],
                groups: g,
            });
        }
        let order = order_for(&i);
        let mut store = Vec::new();
        let f = filters(&w, weights.as_slice(), g, order, &mut store, true)?;
        let (origin, sk, k, rs) = (f.origin, f.sk, f.k, f.rs);
        Ok(ConvWeights {
            store,
            origin,
            sk,
            order,
            k,
            rs,
            dims: w.dims,
            groups: g,
            tapped: OnceLock::new(),
            #[cfg(target_arch = "x86_64")]
            paired: OnceLock::new(),
        })
    }

    /// The logical extents (O, C/groups, R, S).
    pub fn dims(&self) -> [usize; 4] {
        self.dims
    }

    /// The groups the filters were packed for.
    pub fn groups(&self) -> usize {
        self.groups
    }

    fn filters(&self) -> Filters<'_> {
        Filters {
            data: &self.store,
            origin: self.origin.clone(),
            so: 1,
            sk: self.sk,
            order: self.order,
            k: self.k,
            rs: self.rs,
        }
    }
}

/// [`conv2d_with`] with filters packed once by [`ConvWeights::new`].
///
/// # Errors
/// As [`conv2d_with`]; [`ConvError::GroupsMismatch`] when `params.groups` is not the groups
/// the weights were packed for.
pub fn conv2d_prepared<T, SI, LI, SO, LO>(
    opts: impl Into<Options>,
    params: &Conv2d,
    input: &Tensor<SI, LI>,
    weights: &ConvWeights,
    bias: Option<&[f32]>,
    output: &mut Tensor<SO, LO>,
) -> Result<(), ConvError>
where
    T: ConvElement,
    SI: Storage<Elem = T>,
    SO: StorageMut<Elem = f32>,
    LI: AnyLayout,
    LO: AnyLayout,
{
    let opts = opts.into();
    let i = Desc::new(ConvOperand::Input, input.layout(), input.base_offset())?;
    let out = Desc::new(ConvOperand::Output, output.layout(), output.base_offset())?;
    if params.groups != weights.groups {
        return Err(ConvError::GroupsMismatch {
            packed: weights.groups,
            given: params.groups,
        });
    }
    let expected = params.output_dims(i.dims, weights.dims)?;
    if out.dims != expected {
        return Err(ConvError::OutputShape {
            expected,
            got: out.dims,
        });
    }
    if let Some(b) = bias
        && b.len() != expected[1]
    {
        return Err(ConvError::BiasLength {
            expected: expected[1],
            got: b.len(),
        });
    }
    gemm::isa_checked("conv2d", opts.isa, f32::kernel(opts.isa).is_some())
        .map_err(ConvError::Gemm)?;
    let job = Job {
        opts,
        params,
        w: &weights.filters(),
        cache: Some(&weights.tapped),
        #[cfg(target_arch = "x86_64")]
        paired: Some(&weights.paired),
        bias,
    };
    run(&job, &i, input.as_slice(), &out, output.as_mut_slice())
}

/// A convolution's call beside its input and output: the options and parameters, the filters
/// (and, prepared, their regrouping for the taps route, made on first use), the bias.
#[derive(Clone, Copy)]
struct Job<'a> {
    opts: Options,
    params: &'a Conv2d,
    w: &'a Filters<'a>,
    cache: Option<&'a OnceLock<taps::Tapped>>,
    /// Prepared: the filters in k pairs (`taps_bf16`), made on first use.
    #[cfg(target_arch = "x86_64")]
    paired: Option<&'a OnceLock<Option<super::taps_bf16::Paired>>>,
    bias: Option<&'a [f32]>,
}

/// Runs the convolution on checked descriptions.
fn run<T: ConvElement>(
    job: &Job<'_>,
    input: &Desc,
    src: &[T],
    output: &Desc,
    dst: &mut [f32],
) -> Result<(), ConvError> {
    let Job {
        opts,
        params,
        w,
        cache,
        bias,
        ..
    } = *job;
    let [n_img, c, h, wd] = input.dims;
    let [_, o, oh, ow] = output.dims;
    let groups = params.groups;
    let (cg, og) = (c / groups, o / groups);
    let [r, s] = w.rs;
    let k = w.k;
    let npix = oh * ow;
    // the taps as a batch-reduce, every tap's input read in place, the output written in place
    let geo = params.spatial([h, wd], [r, s])?;
    // (its threads split the output rows, the front's thread rule on the whole convolution. A
    // 1×1 layer over pixel-contiguous input is a plain GEMM below, measured faster)
    let one_by_one = r == 1 && s == 1 && params.stride == [1, 1] && params.padding == [0, 0];
    let plain_nchw = one_by_one && input.merged_hw() == Some(1) && input.t[1].step().is_some();
    let taps_route = !plain_nchw && taps::plan(opts.isa, input, output, &geo);
    // 16-bit inputs on the taps route or a plain 1×1 GEMM: widened once, then the f32 routes
    // (the conversion, once per input element, is amortised over the R·S taps and the output
    // channels that read it)
    let x86 = matches!(opts.isa, gemm::Isa::Avx2 | gemm::Isa::Avx512);
    // bf16 on AVX-512 BF16 where the dot products pay: the pair tile, nothing widened
    #[cfg(target_arch = "x86_64")]
    if let Some(src16) = T::as_bf16(src)
        && super::taps_bf16::dot_route(opts.isa)
        && super::taps_bf16::plan(output, &geo)
        && pair_route(job, input, src16, output, dst, &geo)?
    {
        return Ok(());
    }
    if T::as_f32(src).is_none()
        && x86
        && one_by_one
        && input.merged_hw().is_some()
        && input.t[1].step().is_some()
        && output.merged_hw().is_some()
    {
        // (a 1×1 layer reads each input element once per block of output channels: widened
        // in blocks of pixels that stay in L2, not in one pass through memory)
        return one_by_one_widened(job, input, src, output, dst);
    }
    if T::as_f32(src).is_none() && taps_route {
        let (wide_in, wide) = widened(opts.isa, input, src)?;
        return run::<f32>(job, &wide_in, &wide, output, dst);
    }
    if let Some(src32) = T::as_f32(src)
        && taps_route
    {
        let ob = taps::block(opts.isa, k, og);
        // the regrouped filters: made once per `ConvWeights`, else once per call
        let local;
        if let Some(c) = cache
            && c.get().is_none()
        {
            let _ = c.set(taps::tapped(w, groups, og, ob)?);
        }
        let wt: &taps::Tapped = match cache.and_then(|c| c.get()) {
            Some(t) if t.ob == ob => t,
            _ => {
                local = taps::tapped(w, groups, og, ob)?;
                &local
            }
        };
        taps::run(
            opts,
            gemm::threads(&opts, [npix.saturating_mul(n_img), k, o]),
            groups,
            &geo,
            input,
            src32,
            w.rs,
            wt.data(),
            ob,
            output,
            dst,
        )?;
        for n in 0..n_img {
            for g in 0..groups {
                epilogue(params, output, dst, &[], false, bias, n, g, og);
            }
        }
        return Ok(());
    }
    // C, per image and group: pixels × O/groups, strided when the output's spatial axes merge
    let c_strided = match (output.merged_hw(), output.t[1].step()) {
        (Some(sp), Some(so)) => Some((sp, so)),
        _ => None,
    };
    let mut temp = match c_strided {
        Some(_) => Vec::new(),
        None => alloc(npix.checked_mul(og).ok_or(ConvError::Overflow {
            what: "the output's size",
        })?)?,
    };
    // 1×1, stride 1, no padding: the input is the im2col matrix, read in place when strided
    let plain = T::as_f32(src).is_some()
        && r == 1
        && s == 1
        && params.stride == [1, 1]
        && params.padding == [0, 0]
        && input.merged_hw().is_some()
        && input.t[1].step().is_some();
    // (checked by `output_dims`: the padded input's offsets fit `isize`)
    let (st, pad) = (geo.st, geo.pad);
    // the taps of a group, allocated once before anything is written
    let mut tp = Vec::new();
    if !plain {
        tp.try_reserve_exact(k)
            .map_err(|_| ConvError::Allocation { elements: k })?;
    }
    let (hi, wi) = (
        isize::try_from(h).map_err(|_| ConvError::Overflow { what: "an extent" })?,
        isize::try_from(wd).map_err(|_| ConvError::Overflow { what: "an extent" })?,
    );
    let ki = f32::kernel(opts.isa).ok_or(ConvError::Gemm(GemmError::IsaUnavailable {
        op: "conv2d",
        isa: opts.isa,
    }))?;
    for n in 0..n_img {
        for g in 0..groups {
            let wg = Group {
                f: w,
                origin: w.origin[g],
            };
            // C for this image and group: pixels × O/groups, from (pixel 0, channel g·O/groups)
            let c_origin = output.base + output.t[0].off[n] + output.t[1].off[g * og];
            if plain {
                let sp = input.merged_hw().unwrap_or(1);
                let sc = input.t[1].step().unwrap_or(1);
                let origin = input.base + input.t[0].off[n] + input.t[1].off[g * cg];
                let a = mat_ref(T::as_f32(src).unwrap_or(&[]), origin, npix, k, sp, sc)?;
                let b = mat_ref(w.data, wg.origin, k, og, w.sk, w.so)?;
                let cm = match c_strided {
                    Some((sp, so)) => mat_mut(dst, c_origin, npix, og, sp, so)?,
                    None => MatMut {
                        data: &mut temp[..],
                        rows: npix,
                        cols: og,
                        row_stride: 1,
                        col_stride: npix as isize,
                    },
                };
                gemm_with(opts, 1.0f32, a, b, 0.0, cm)?;
            } else {
                tp = taps(
                    &input.t[1],
                    g * cg,
                    cg,
                    r,
                    s,
                    geo.dil,
                    w.order,
                    input.t[3].step(),
                    core::mem::take(&mut tp),
                )?;
                // A: the im2col matrix (pixels × taps), read through its layout
                let a = Windows {
                    src,
                    base: input.base + input.t[0].off[n],
                    h: hi,
                    w: wi,
                    ow,
                    st,
                    pad,
                    offh: &input.t[2].off,
                    offw: &input.t[3].off,
                    sw: input.t[3].step(),
                    taps: &tp,
                    order: w.order,
                };
                // Bᵀ: the filters (O/groups × taps), packed once above
                let b = wg;
                let out = match c_strided {
                    Some((sp, so)) => Out {
                        c: &mut *dst,
                        sc: Strided {
                            origin: c_origin,
                            rs: sp,
                            cs: so,
                        },
                        cmap: None,
                    },
                    None => Out {
                        c: &mut temp[..],
                        sc: Strided {
                            origin: 0,
                            rs: 1,
                            cs: npix as isize,
                        },
                        cmap: None,
                    },
                };
                // every element of C is an element of the output tensor (validated: inside the
                // buffer, no two at one location) or of the temporary
                // the GEMM front's rules: BLAS's rule (k = 0 writes zeros) and the thread rule
                let mkn = [npix, k, og];
                match gemm::rule(mkn, false) {
                    gemm::Rule::Done => {}
                    gemm::Rule::ScaleC => {
                        let at = gemm::c_index(out.sc, out.cmap);
                        gemm::scale_c([npix, og], 0.0, out.c, at);
                    }
                    gemm::Rule::Compute => {
                        let threads = gemm::threads(&opts, mkn);
                        run_panels::<f32>(&ki, mkn, 1.0, &a, &b, 0.0, out, threads);
                    }
                }
            }
            epilogue(
                params,
                output,
                dst,
                &temp,
                c_strided.is_none(),
                bias,
                n,
                g,
                og,
            );
        }
    }
    Ok(())
}

/// The bf16 convolution on the pair tile (`taps_bf16`): `false`, nothing written, where the
/// filters are not bf16 values (prepared from `f32`).
#[cfg(target_arch = "x86_64")]
fn pair_route(
    job: &Job<'_>,
    input: &Desc,
    src: &[half::bf16],
    output: &Desc,
    dst: &mut [f32],
    geo: &super::geom::Spatial,
) -> Result<bool, ConvError> {
    use super::taps_bf16 as tb;
    let groups = job.params.groups;
    let [n_img, c, _, _] = input.dims;
    let [_, o, oh, ow] = output.dims;
    let og = o / groups;
    let [r, s] = job.w.rs;
    let k2 = r * s * (c / groups).div_ceil(2);
    let ob = tb::pair_block(k2, og);
    // the paired filters: made once per `ConvWeights`, else once per call
    let local;
    if let Some(p) = job.paired
        && p.get().is_none()
    {
        let _ = p.set(tb::paired(job.w, groups, og, ob)?);
    }
    let wt: &tb::Paired = match job.paired.and_then(|p| p.get()) {
        Some(None) => return Ok(false),
        Some(Some(t)) if t.ob == ob => t,
        _ => match tb::paired(job.w, groups, og, ob)? {
            Some(t) => {
                local = t;
                &local
            }
            None => return Ok(false),
        },
    };
    let pin = tb::pair_input(input, src, groups)?;
    let problem = tb::Problem {
        threads: gemm::threads(&job.opts, [(oh * ow).saturating_mul(n_img), job.w.k, o]),
        groups,
        geo,
        rs: [r, s],
        og,
    };
    tb::run(&problem, &pin, wt, output, dst)?;
    for n in 0..n_img {
        for g in 0..groups {
            epilogue(job.params, output, dst, &[], false, job.bias, n, g, og);
        }
    }
    Ok(true)
}

/// The input widened to `f32`: its elements' span of the buffer (from the lowest offset of an
/// element to the highest) converted into a new buffer, and its description moved to it.
fn widened<T: ConvElement>(
    isa: gemm::Isa,
    input: &Desc,
    src: &[T],
) -> Result<(Desc, Vec<f32>), ConvError> {
    let mut d = input.clone();
    // (a tensor's elements lie inside its buffer: every sum below is an index of `src`)
    let ends = |pick: fn(&[isize]) -> Option<isize>| {
        input
            .t
            .iter()
            .try_fold(input.base, |at, t| Some(at + pick(&t.off)?))
    };
    let (Some(lo), Some(hi)) = (
        ends(|o| o.iter().copied().min()),
        ends(|o| o.iter().copied().max()),
    ) else {
        // no elements
        return Ok((d, Vec::new()));
    };
    let span = usize::try_from(lo)
        .ok()
        .zip(usize::try_from(hi).ok())
        .and_then(|(lo, hi)| Some((lo, src.get(lo..=hi)?)));
    let Some((lo, span)) = span else {
        return Err(ConvError::Overflow { what: "an offset" });
    };
    let len = span.len();
    let mut wide = Vec::new();
    wide.try_reserve_exact(len)
        .map_err(|_| ConvError::Allocation { elements: len })?;
    wide.resize(len, 0.0);
    T::widen(span, &mut wide, gemm::widen_simd(isa));
    d.base -= lo as isize;
    Ok((d, wide))
}

/// Elements of the `f32` copy of a block of pixels of a 1×1 layer's 16-bit input (256 KiB).
const WIDE_BLOCK: usize = 1 << 16;

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

/// A 1×1 convolution (stride 1, no padding) of a 16-bit input whose pixels (H and W merged)
/// and channels are strided, into an output whose pixels are: per image, blocks of pixels
/// widened into an `f32` copy of at most [`WIDE_BLOCK`] elements (pixel-major where the
/// input's channels are unit stride, channel-major where its pixels are, so that the copy
/// converts runs), each block a 1×1 convolution of a 1 × block image on the `f32` routes.
fn one_by_one_widened<T: ConvElement>(
    job: &Job<'_>,
    input: &Desc,
    src: &[T],
    output: &Desc,
    dst: &mut [f32],
) -> Result<(), ConvError> {
    let opts = job.opts;
    let [n_img, c, h, wd] = input.dims;
    let o = output.dims[1];
    let npix = h * wd;
    let (pi, sc) = (
        input.merged_hw().unwrap_or(0),
        input.t[1].step().unwrap_or(0),
    );
    let po = output.merged_hw().unwrap_or(0);
    // (at least 16 pixels, at most the image: `clamp` would panic on an image under 16)
    let block = (WIDE_BLOCK / c.max(1)).max(16).min(npix.max(1));
    let len = block.saturating_mul(c);
    let mut wide = Vec::new();
    wide.try_reserve_exact(len)
        .map_err(|_| ConvError::Allocation { elements: len })?;
    wide.resize(len, 0.0);
    let simd = gemm::widen_simd(opts.isa);
    let pixel_major = sc == 1 || pi != 1;
    let one = arith(1, 0)?;
    for n in 0..n_img {
        // (elements of a validated tensor: every index below is inside `src` / `dst`)
        let in0 = input.base + input.t[0].off[n] + input.t[2].off[0] + input.t[3].off[0];
        let out0 = output.base + output.t[0].off[n] + output.t[2].off[0] + output.t[3].off[0];
        for p0 in (0..npix).step_by(block) {
            let pn = block.min(npix - p0);
            let at =
                |p: usize, ch: usize| (in0 + (p0 + p) as isize * pi + input.t[1].off[ch]) as usize;
            let (cs, ps) = if pixel_major {
                if sc == 1 && pi == c as isize {
                    // one run
                    T::widen(&src[at(0, 0)..at(0, 0) + pn * c], &mut wide, simd);
                } else if sc == 1 {
                    for p in 0..pn {
                        T::widen(&src[at(p, 0)..at(p, 0) + c], &mut wide[p * c..], simd);
                    }
                } else {
                    for p in 0..pn {
                        for ch in 0..c {
                            wide[p * c + ch] = src[at(p, ch)].to_f32();
                        }
                    }
                }
                (1, c as isize)
            } else {
                for ch in 0..c {
                    T::widen(&src[at(0, ch)..at(0, ch) + pn], &mut wide[ch * pn..], simd);
                }
                (pn as isize, 1)
            };
            let block_in = Desc {
                dims: [1, c, 1, pn],
                t: [one.clone(), arith(c, cs)?, one.clone(), arith(pn, ps)?],
                base: 0,
            };
            let block_out = Desc {
                dims: [1, o, 1, pn],
                t: [
                    one.clone(),
                    output.t[1].clone(),
                    one.clone(),
                    arith(pn, po)?,
                ],
                base: out0 + p0 as isize * po,
            };
            run::<f32>(job, &block_in, &wide[..pn * c], &block_out, dst)?;
        }
    }
    Ok(())
}

/// One group's filters as the engine's Bᵀ (O/groups × K).
struct Group<'a> {
    f: &'a Filters<'a>,
    origin: isize,
}

impl Source<f32> for Group<'_> {
    fn pack(&self, dst: &mut [f32], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        let (so, sk) = (self.f.so, self.f.sk);
        let data = self.f.data;
        let panels = len.div_ceil(r);
        for (t, panel) in dst[..panels * r * kc].chunks_exact_mut(r * kc).enumerate() {
            let vb = v0 + t * r;
            let rows = r.min(len - t * r);
            let first = self.origin + vb as isize * so + p0 as isize * sk;
            if sk == 1 && so != 1 {
                // rows contiguous along k (OIHW read in place): a transpose into the panel
                let last = first + (rows as isize - 1) * so;
                let (lo, hi) = (first.min(last), first.max(last) + kc as isize);
                if lo >= 0 && hi as usize <= data.len() {
                    // SAFETY: every source element `first + i·so + p` (`i < rows`, `p < kc`)
                    // lies in `[lo, hi)` ⊆ `data` (checked just above); every destination
                    // `p·r + i` lies in `panel` (`r·kc` elements, `rows ≤ r`); `panel` is a
                    // `&mut` slice distinct from `data`.
                    unsafe {
                        transpose(
                            panel.as_mut_ptr(),
                            r as isize,
                            data.as_ptr().offset(first),
                            so,
                            rows,
                            kc,
                            false,
                        )
                    };
                    for out in panel.chunks_exact_mut(r) {
                        out[rows..].fill(0.0);
                    }
                    continue;
                }
            }
            for (p, out) in panel.chunks_exact_mut(r).enumerate() {
                let at = first + p as isize * sk;
                if so == 1 {
                    let at = at as usize;
                    out[..rows].copy_from_slice(&data[at..at + rows]);
                } else {
                    for (i, x) in out[..rows].iter_mut().enumerate() {
                        *x = data[(at + i as isize * so) as usize];
                    }
                }
                out[rows..].fill(0.0);
            }
        }
    }
}

/// A strided read-only view from `origin` (the index of element (0, 0)).
pub(super) fn mat_ref(
    data: &[f32],
    origin: isize,
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
) -> Result<MatRef<'_, f32>, ConvError> {
    let lo = lowest(origin, rows, cols, rs, cs);
    Ok(MatRef {
        data: data
            .get(lo..)
            .ok_or(ConvError::Overflow { what: "an offset" })?,
        rows,
        cols,
        row_stride: rs,
        col_stride: cs,
    })
}

/// A strided writable view from `origin` (the index of element (0, 0)).
pub(super) fn mat_mut(
    data: &mut [f32],
    origin: isize,
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
) -> Result<MatMut<'_, f32>, ConvError> {
    let lo = lowest(origin, rows, cols, rs, cs);
    Ok(MatMut {
        data: data
            .get_mut(lo..)
            .ok_or(ConvError::Overflow { what: "an offset" })?,
        rows,
        cols,
        row_stride: rs,
        col_stride: cs,
    })
}

/// The lowest index a strided block from `origin` touches (elements of validated tensors, so
/// non-negative).
fn lowest(origin: isize, rows: usize, cols: usize, rs: isize, cs: isize) -> usize {
    let lo = origin
        + (rows.saturating_sub(1) as isize) * rs.min(0)
        + (cols.saturating_sub(1) as isize) * cs.min(0);
    lo.max(0) as usize
}

/// Bias and ReLU on image `n`, group `g` of the output (and the copy from `temp`, pixels ×
/// O/groups column-major, when the output was computed there).
#[allow(clippy::too_many_arguments)]
fn epilogue(
    params: &Conv2d,
    output: &Desc,
    dst: &mut [f32],
    temp: &[f32],
    from_temp: bool,
    bias: Option<&[f32]>,
    n: usize,
    g: usize,
    og: usize,
) {
    if !from_temp && bias.is_none() && !params.relu {
        return;
    }
    let [_, _, oh, ow] = output.dims;
    let npix = oh * ow;
    for oo in 0..og {
        let o = g * og + oo;
        let b = bias.map_or(0.0, |b| b[o]);
        for y in 0..oh {
            for x in 0..ow {
                let at = output.at(n, o, y, x) as usize;
                let mut v = if from_temp {
                    temp[oo * npix + y * ow + x]
                } else {
                    dst[at]
                };
                v += b;
                if params.relu && v < 0.0 {
                    v = 0.0;
                }
                dst[at] = v;
            }
        }
    }
}
