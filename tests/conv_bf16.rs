//! bf16 convolutions on the `vdpbf16ps` pair tile (every test of this file sets
//! `LAYOUT_CONV_BF16=dot`, so the tile runs wherever the CPU has AVX-512 BF16 and the call's
//! instruction set is AVX-512) against a direct seven-loop reference over the bf16 values:
//! exact on small integers, within a relative bound on random values; random geometry (odd
//! channel counts, padding, stride, dilation, groups), every input and output format, every
//! instruction set, one and two threads, and the bytes outside the output untouched.

use std::sync::Once;

use layout::conv::{Conv2d, ConvWeights, conv2d_prepared, conv2d_with};
use layout::gemm::{Isa, Options, Packing};
use layout::named::bf16;
use layout::named::blocked::{nchw_blocked, oihw_blocked};
use layout::{DynLayout, Tensor};
use proptest::prelude::*;

#[path = "support/runner.rs"]
mod runner;

/// Sets `LAYOUT_CONV_BF16=dot` once, before any test of this binary convolves, unless the
/// environment already names a route (the child processes of
/// [`every_route_and_instruction_set_override`]).
fn force_dot() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        if std::env::var_os("LAYOUT_CONV_BF16").is_some() {
            return;
        }
        // SAFETY: every test of this binary calls this first and waits on `ONCE`; no thread of
        // the process reads the environment while it is written.
        unsafe { std::env::set_var("LAYOUT_CONV_BF16", "dot") }
    });
}

/// Whether the pair tile can run here (at `Isa::Avx512`).
fn tile_here() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        Isa::Avx512.is_available() && std::arch::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// NCHW, NHWC, the reverse (W H C N), NCHW with padded rows and gaps, nChw4c / OIhw4i4o.
const FORMATS: usize = 5;

fn layout_of(f: usize, d: [usize; 4], weights: bool) -> DynLayout {
    let [a, b, c, e] = d.map(|x| x as i64);
    let text = match f {
        0 => format!("({a},{b},{c},{e}):({},{},{e},1)", b * c * e, c * e),
        1 => format!("({a},{b},{c},{e}):({},1,{},{b})", b * c * e, e * b),
        2 => format!("({a},{b},{c},{e}):(1,{a},{},{})", a * b, a * b * c),
        3 => {
            let ld = e + 3;
            format!("({a},{b},{c},{e}):({},{},{ld},1)", b * c * ld + 5, c * ld)
        }
        _ => {
            if weights && a % 4 == 0 && b % 4 == 0 {
                return oihw_blocked(a, b, c, e, 4, 4).unwrap();
            }
            if !weights && b % 4 == 0 {
                return nchw_blocked(a, b, c, e, 4).unwrap();
            }
            return layout_of(0, d, weights);
        }
    };
    text.parse().unwrap()
}

/// A tensor of `f` over `d` with bf16 values from `value(i)` (i the buffer index).
fn tensor(
    f: usize,
    d: [usize; 4],
    weights: bool,
    value: impl Fn(usize) -> f32,
) -> Tensor<Vec<bf16>, DynLayout> {
    let l = layout_of(f, d, weights);
    let len = l.offset_range().1 as usize + 1;
    Tensor::new((0..len).map(|i| bf16::from_f32(value(i))).collect(), l).unwrap()
}

/// A value stream from `seed`: small integers (exact in any order) or values in [−1, 1).
fn values(seed: u64, ints: bool) -> impl Fn(usize) -> f32 {
    move |i| {
        let mut s = (i as u64 ^ seed.rotate_left(17))
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        s ^= s >> 29;
        s = s.wrapping_mul(0xbf58476d1ce4e5b9);
        s ^= s >> 32;
        if ints {
            (s % 9) as f32 - 4.0
        } else {
            (s % 2048) as f32 / 1024.0 - 1.0
        }
    }
}

/// The direct definition over the bf16 values in f64: the sums and the sums of |terms|, each
/// output in NCHW order.
fn reference(
    p: &Conv2d,
    x: &Tensor<Vec<bf16>, DynLayout>,
    w: &Tensor<Vec<bf16>, DynLayout>,
    out: [usize; 4],
) -> (Vec<f64>, Vec<f64>) {
    let [n, c, h, wd] = x.dims()[..] else {
        unreachable!()
    };
    let [o, cg, r, s] = w.dims()[..] else {
        unreachable!()
    };
    let og = o / p.groups;
    let (oh, ow) = (out[2], out[3]);
    assert_eq!(c / p.groups, cg);
    let mut y = vec![0.0f64; n * o * oh * ow];
    let mut mag = vec![0.0f64; n * o * oh * ow];
    for b in 0..n {
        for oc in 0..o {
            let g = oc / og;
            for i in 0..oh {
                for j in 0..ow {
                    let (mut acc, mut m) = (0.0f64, 0.0f64);
                    for ci in 0..cg {
                        for u in 0..r {
                            for v in 0..s {
                                let ih = (i * p.stride[0] + u * p.dilation[0]) as isize
                                    - p.padding[0] as isize;
                                let iw = (j * p.stride[1] + v * p.dilation[1]) as isize
                                    - p.padding[1] as isize;
                                if ih < 0 || iw < 0 || ih >= h as isize || iw >= wd as isize {
                                    continue;
                                }
                                let t = w[[oc, ci, u, v]].to_f32() as f64
                                    * x[[b, g * cg + ci, ih as usize, iw as usize]].to_f32() as f64;
                                acc += t;
                                m += t.abs();
                            }
                        }
                    }
                    let at = ((b * o + oc) * oh + i) * ow + j;
                    y[at] = acc;
                    mag[at] = m;
                }
            }
        }
    }
    (y, mag)
}

/// One case: the convolution per call and prepared, on every instruction set at one and two
/// threads, against the reference (exact on integers, else within `2⁻¹⁶·Σ|terms|`), the
/// output buffer's other positions keeping their sentinel.
#[allow(clippy::too_many_arguments)]
fn check(
    p: Conv2d,
    x: [usize; 4],
    k: [usize; 4],
    fx: usize,
    fw: usize,
    fy: usize,
    ints: bool,
    seed: u64,
) {
    force_dot();
    let input = tensor(fx, x, false, values(seed, ints));
    let weights = tensor(fw, k, true, values(seed ^ 0x5555, ints));
    let dims = p.output_dims(x, k).unwrap();
    let (want, mag) = reference(&p, &input, &weights, dims);
    let l = layout_of(fy, dims, false);
    let len = l.offset_range().1 as usize + 8;
    let sentinel = -12345.5f32;
    for isa in Isa::available() {
        for threads in [1, 2] {
            let opts = Options {
                isa,
                threads,
                packing: Packing::Auto,
            };
            for prepared in [false, true] {
                let mut y = Tensor::new(vec![sentinel; len], l).unwrap();
                if prepared {
                    let pw = ConvWeights::new(&p, input.layout(), &weights).unwrap();
                    conv2d_prepared(opts, &p, &input, &pw, None, &mut y).unwrap();
                } else {
                    conv2d_with(opts, &p, &input, &weights, None, &mut y).unwrap();
                }
                let what = || {
                    format!(
                        "{isa:?} t{threads} prep {prepared} {p:?} x {x:?} k {k:?} formats {fx}/{fw}/{fy}"
                    )
                };
                let mut is_out = vec![false; len];
                for b in 0..dims[0] {
                    for o in 0..dims[1] {
                        for i in 0..dims[2] {
                            for j in 0..dims[3] {
                                let at = offset_of(&l, [b, o, i, j]);
                                is_out[at] = true;
                                let r = ((b * dims[1] + o) * dims[2] + i) * dims[3] + j;
                                let got = y.as_slice()[at] as f64;
                                let tol = if ints { 0.0 } else { mag[r] * 2f64.powi(-16) };
                                assert!(
                                    (got - want[r]).abs() <= tol,
                                    "{}: ({b}, {o}, {i}, {j}) got {got} want {}",
                                    what(),
                                    want[r]
                                );
                            }
                        }
                    }
                }
                for (at, &v) in y.as_slice().iter().enumerate() {
                    if !is_out[at] {
                        assert_eq!(v, sentinel, "{}: position {at} outside the output", what());
                    }
                }
            }
        }
    }
}

/// The buffer index of a logical coordinate of `l`.
fn offset_of(l: &DynLayout, c: [usize; 4]) -> usize {
    let t = layout::DynTuple::from_slice(&c.map(|v| v as i64)).unwrap();
    l.offset_of(&t).unwrap() as usize
}

/// Groups 1–2, 1–5 channels a group (odd ones too), 1–3 output channels a group, kernels up
/// to 3 × 3, stride 1–2 per axis, padding 0–2, dilation 1–2, images 1–2.
fn params() -> impl Strategy<Value = (Conv2d, [usize; 4], [usize; 4])> {
    (
        (1usize..3, 1usize..6, 1usize..4),
        (1usize..4, 1usize..4, 1usize..3, 1usize..3),
        (1usize..3, 0usize..3),
        (1usize..10, 1usize..16, 1usize..3),
    )
        .prop_map(|((g, cg, og), (r, s, sh, sw), (dil, pad), (h, w, n))| {
            let p = Conv2d {
                stride: [sh, sw],
                ..Conv2d::default().padding(pad).dilation(dil).groups(g)
            };
            (p, [n, g * cg, h, w], [g * og, cg, r, s])
        })
        .prop_filter("windows fit", |(p, x, k)| {
            (0..2).all(|a| (k[2 + a] - 1) * p.dilation[a] < x[2 + a] + 2 * p.padding[a])
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Random geometry and formats, small integers: exact.
    #[test]
    fn random_geometry_exact(
        (p, x, k) in params(),
        fx in 0..FORMATS, fw in 0..FORMATS, fy in 0..FORMATS,
        seed in any::<u64>(),
    ) {
        check(p, x, k, fx, fw, fy, true, seed);
    }

    /// Random values in [−1, 1): within the bound.
    #[test]
    fn random_values_within_bound(
        (p, x, k) in params(),
        fx in 0..FORMATS, fy in 0..FORMATS,
        seed in any::<u64>(),
    ) {
        check(p, x, k, fx, 0, fy, false, seed);
    }
}

/// The layer shapes of the benchmarks, shrunk: wide channel counts (whole 32-channel blocks
/// and a partial one), 1×1, a first layer of 3 channels at stride 2, in NHWC and NCHW.
#[test]
fn layer_shapes() {
    let cases = [
        (Conv2d::default().padding(1), [1, 64, 9, 14], [40, 64, 3, 3]),
        (Conv2d::default().padding(1), [1, 64, 7, 30], [96, 64, 3, 3]),
        (Conv2d::default(), [2, 96, 5, 7], [70, 96, 1, 1]),
        (
            Conv2d::default().stride(2).padding(3),
            [1, 3, 20, 23],
            [33, 3, 7, 7],
        ),
        (
            Conv2d::default().padding(2).dilation(2),
            [1, 18, 11, 13],
            [12, 18, 3, 3],
        ),
        (
            Conv2d::default().padding(1).groups(4),
            [1, 20, 6, 9],
            [8, 5, 3, 3],
        ),
    ];
    for (t, (p, x, k)) in cases.into_iter().enumerate() {
        for (fx, fy) in [(1, 1), (0, 0), (1, 4), (3, 2)] {
            check(p, x, k, fx, 0, fy, true, t as u64);
            check(p, x, k, fx, 1, fy, false, t as u64 + 100);
        }
    }
}

/// The pair tile runs (where the CPU has it): `vdpbf16ps` flushes denormal inputs, so a
/// denormal input gives 0 there, and its exact value on the widened route (AVX2).
#[test]
fn the_pair_tile_runs_and_flushes_denormals() {
    force_dot();
    let p = Conv2d::default().padding(1);
    let (x, k) = ([1, 4, 3, 5], [2, 4, 3, 3]);
    let tiny = bf16::from_bits(1); // the least bf16 denormal, 2⁻¹³³
    let input = tensor(1, x, false, |_| tiny.to_f32());
    let weights = tensor(0, k, true, |_| 1.0);
    let dims = p.output_dims(x, k).unwrap();
    let l = layout_of(1, dims, false);
    let run = |isa: Isa| {
        let mut y = Tensor::new(vec![f32::NAN; 2 * 3 * 5], l).unwrap();
        let opts = Options {
            isa,
            ..Options::default()
        };
        conv2d_with(opts, &p, &input, &weights, None, &mut y).unwrap();
        y.as_slice()[0]
    };
    if tile_here() {
        assert_eq!(
            run(Isa::Avx512),
            0.0,
            "the pair tile flushes the denormal input"
        );
    }
    if Isa::Avx2.is_available() {
        // pixel (0, 0): 2×2 window in bounds, 4 channels: 16 products of 2⁻¹³³
        assert_eq!(
            run(Isa::Avx2),
            16.0 * tiny.to_f32(),
            "the widened route is exact"
        );
    }
}

/// Filters prepared from `f32` values that are not bf16 are not rounded: the widened route
/// runs them (the result is the f32 convolution of the bf16 input).
#[test]
fn prepared_f32_filters_stay_exact() {
    force_dot();
    let p = Conv2d::default().padding(1);
    let (x, k) = ([1, 6, 4, 5], [3, 6, 3, 3]);
    let input = tensor(1, x, false, values(7, true));
    let wl = layout_of(0, k, true);
    let wf = Tensor::new(
        (0..wl.offset_range().1 as usize + 1)
            .map(|i| 0.1 + i as f32 / 64.0)
            .collect::<Vec<f32>>(),
        wl,
    )
    .unwrap();
    let pw = ConvWeights::new(&p, input.layout(), &wf).unwrap();
    let dims = p.output_dims(x, k).unwrap();
    let l = layout_of(0, dims, false);
    for isa in Isa::available() {
        let mut y = Tensor::new(vec![0.0f32; 3 * 4 * 5], l).unwrap();
        let opts = Options {
            isa,
            ..Options::default()
        };
        conv2d_prepared(opts, &p, &input, &pw, None, &mut y).unwrap();
        for o in 0..3 {
            for i in 0..4 {
                for j in 0..5 {
                    let mut want = 0.0f64;
                    for c in 0..6 {
                        for u in 0..3 {
                            for v in 0..3 {
                                let (ih, iw) =
                                    (i as isize + u as isize - 1, j as isize + v as isize - 1);
                                if ih < 0 || iw < 0 || ih >= 4 || iw >= 5 {
                                    continue;
                                }
                                want += wf[[o, c, u, v]] as f64
                                    * input[[0, c, ih as usize, iw as usize]].to_f32() as f64;
                            }
                        }
                    }
                    let got = y[[0, o, i, j]] as f64;
                    assert!(
                        (got - want).abs() <= 1e-4 * (1.0 + want.abs()),
                        "{isa:?} ({o}, {i}, {j}) got {got} want {want}"
                    );
                    // rounded filters would be off by far more
                }
            }
        }
    }
}

/// Every width of the pair tile's hand-scheduled loops (rows of 1 to 24 output pixels: tiles
/// of 1 to 12 columns) on whole 32-channel blocks (32 and 64 output channels), every
/// remainder of their four-pair unrolling (1×1 over 2, 4, 6, 8 channels: 1 to 4 pairs; 5
/// channels: 3 pairs, the last with the zero pad channel), and taps cut by the padding (3×3,
/// padding 1: cut items of one pair beside merged rows), NHWC in place and NCHW through the
/// copy, small integers: exact.
#[test]
fn every_pair_tile_width_and_k_remainder() {
    let mut t = 0u64;
    for ow in 1..=24 {
        for (c, r, o) in [
            (2, 1, 32),
            (4, 1, 64),
            (6, 1, 32),
            (8, 1, 32),
            (5, 1, 32),
            (2, 3, 32),
        ] {
            let p = Conv2d::default().padding(r / 2);
            let (x, k) = ([1, c, 2, ow], [o, c, r, r]);
            for (fx, fy) in [(1, 1), (0, 0)] {
                check(p, x, k, fx, 0, fy, true, t);
                t += 1;
            }
        }
    }
}

/// The test above in child processes of this executable under every route override
/// (`LAYOUT_CONV_BF16=dot|widen`) and every instruction-set cap (`LAYOUT_ISA`), so that the
/// pair tile, the widened `f32` taps and the portable kernels each run it.
#[test]
fn every_route_and_instruction_set_override() {
    let exe = std::env::current_exe().unwrap();
    for route in ["dot", "widen"] {
        for isa in ["avx512", "avx2", "portable"] {
            let out = runner::command(&exe)
                .args([
                    "--exact",
                    "every_pair_tile_width_and_k_remainder",
                    "--test-threads=1",
                ])
                .env("LAYOUT_CONV_BF16", route)
                .env("LAYOUT_ISA", isa)
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(
                out.status.success(),
                "LAYOUT_CONV_BF16={route} LAYOUT_ISA={isa}: {text}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                text.contains("1 passed"),
                "LAYOUT_CONV_BF16={route} LAYOUT_ISA={isa}: the test did not run: {text}"
            );
        }
    }
}
