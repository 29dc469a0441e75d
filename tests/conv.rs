//! `conv2d` against a direct 7-loop reference on random shapes, parameters and layouts (exact:
//! integer-valued data), edge cases, and every refused parameter.

#[path = "support/cases.rs"]
mod cases;
use layout::conv::{
    Conv2d, ConvError, ConvOperand, ConvWeights, Im2col, conv2d, conv2d_prepared, conv2d_with,
};
use layout::gemm::{Isa, Options, Packing};
use layout::named::blocked::{nchw_blocked, oihw_blocked};
use layout::{DynLayout, Tensor};
use proptest::prelude::*;

/// The formats a rank-4 tensor (logical axes A, B, C, D = N, C, H, W or O, I, R, S) can have.
#[derive(Clone, Copy, Debug)]
#[repr(usize)]
enum Format {
    /// A B C D row-major (NCHW, OIHW).
    Abcd,
    /// A C D B row-major (NHWC, OHWI).
    Acdb,
    /// D C B A row-major (the reverse: W H C N), every stride different.
    Dcba,
    /// NCHW with padded rows (W stride 1, H stride W + 3) and a gap between images.
    Padded,
    /// nChw4c / OIhw4i4o when the extents allow, else NCHW.
    Blocked,
}

const FORMATS: [Format; 5] = [
    Format::Abcd,
    Format::Acdb,
    Format::Dcba,
    Format::Padded,
    Format::Blocked,
];

fn layout_of(f: Format, d: [usize; 4], weights: bool) -> DynLayout {
    let [a, b, c, e] = d.map(|x| x as i64);
    let text = match f {
        Format::Abcd => format!("({a},{b},{c},{e}):({},{},{e},1)", b * c * e, c * e),
        Format::Acdb => format!("({a},{b},{c},{e}):({},1,{},{b})", b * c * e, e * b),
        Format::Dcba => format!("({a},{b},{c},{e}):(1,{a},{},{})", a * b, a * b * c),
        Format::Padded => {
            let ld = e + 3;
            format!("({a},{b},{c},{e}):({},{},{ld},1)", b * c * ld + 5, c * ld)
        }
        Format::Blocked => {
            if weights && a % 4 == 0 && b % 4 == 0 {
                return oihw_blocked(a, b, c, e, 4, 4).unwrap();
            }
            if !weights && b % 4 == 0 {
                return nchw_blocked(a, b, c, e, 4).unwrap();
            }
            return layout_of(Format::Abcd, d, weights);
        }
    };
    text.parse().unwrap()
}

fn tensor(f: Format, d: [usize; 4], weights: bool, seed: u64) -> Tensor<Vec<f32>, DynLayout> {
    let l = layout_of(f, d, weights);
    let (_, hi) = l.offset_range();
    let len = hi as usize + 1;
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let data = (0..len)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 33) % 9) as f32 - 4.0
        })
        .collect();
    Tensor::new(data, l).unwrap()
}

/// The direct definition: seven loops over logical coordinates.
fn reference(
    p: &Conv2d,
    x: &Tensor<Vec<f32>, DynLayout>,
    w: &Tensor<Vec<f32>, DynLayout>,
    bias: Option<&[f32]>,
    out: [usize; 4],
) -> Vec<f32> {
    let d = x.dims();
    let (n, c, h, wd) = (d[0], d[1], d[2], d[3]);
    let wdim = w.dims();
    let (o, cg, r, s) = (wdim[0], wdim[1], wdim[2], wdim[3]);
    let og = o / p.groups;
    let (oh, ow) = (out[2], out[3]);
    assert_eq!(c / p.groups, cg);
    let mut y = vec![0.0f32; n * o * oh * ow];
    for b in 0..n {
        for oc in 0..o {
            let g = oc / og;
            for i in 0..oh {
                for j in 0..ow {
                    let mut acc = bias.map_or(0.0, |bb| bb[oc]);
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
                                acc += w[[oc, ci, u, v]]
                                    * x[[b, g * cg + ci, ih as usize, iw as usize]];
                            }
                        }
                    }
                    if p.relu && acc < 0.0 {
                        acc = 0.0;
                    }
                    y[((b * o + oc) * oh + i) * ow + j] = acc;
                }
            }
        }
    }
    y
}

#[allow(clippy::too_many_arguments)]
fn check_case(
    p: Conv2d,
    x: [usize; 4],
    k: [usize; 4],
    fx: Format,
    fw: Format,
    fy: Format,
    with_bias: bool,
    opts: Options,
) -> Result<(), TestCaseError> {
    let input = tensor(fx, x, false, 1);
    let weights = tensor(fw, k, true, 2);
    let dims = p.output_dims(x, k).unwrap();
    let bias: Vec<f32> = (0..dims[1]).map(|i| (i % 5) as f32 - 2.0).collect();
    let bias = with_bias.then_some(&bias[..]);
    let mut out = tensor(fy, dims, false, 3);
    out.as_mut_slice().fill(f32::NAN);
    conv2d_with(opts, &p, &input, &weights, bias, &mut out).unwrap();
    let want = reference(&p, &input, &weights, bias, dims);
    // the same with the filters packed once (for another input format: any order works)
    let other = layout_of(FORMATS[(fx as usize + 1) % FORMATS.len()], x, false);
    let packed = ConvWeights::new(&p, &other, &weights).unwrap();
    let mut again = tensor(fy, dims, false, 3);
    conv2d_prepared(opts, &p, &input, &packed, bias, &mut again).unwrap();
    for b in 0..dims[0] {
        for o in 0..dims[1] {
            for i in 0..dims[2] {
                for j in 0..dims[3] {
                    prop_assert_eq!(again[[b, o, i, j]], out[[b, o, i, j]]);
                }
            }
        }
    }
    let mut at = 0;
    for b in 0..dims[0] {
        for o in 0..dims[1] {
            for i in 0..dims[2] {
                for j in 0..dims[3] {
                    prop_assert_eq!(
                        out[[b, o, i, j]],
                        want[at],
                        "at {:?} of {:?} {:?} {:?} {:?}/{:?}/{:?}",
                        [b, o, i, j],
                        p,
                        x,
                        k,
                        fx,
                        fw,
                        fy
                    );
                    at += 1;
                }
            }
        }
    }
    Ok(())
}

fn params() -> impl Strategy<Value = (Conv2d, [usize; 4], [usize; 4])> {
    (
        1usize..3,  // n
        1usize..4,  // groups
        1usize..5,  // channels per group
        1usize..4,  // outputs per group
        1usize..10, // h
        1usize..10, // w
        1usize..5,  // r
        1usize..5,  // s
        (
            1usize..4,
            1usize..4,
            0usize..4,
            0usize..4,
            1usize..3,
            1usize..3,
        ),
        any::<bool>(),
    )
        .prop_map(
            |(n, g, cg, og, h, w, r, s, (sh, sw, ph, pw, dh, dw), relu)| {
                let p = Conv2d {
                    stride: [sh, sw],
                    padding: [ph, pw],
                    dilation: [dh, dw],
                    groups: g,
                    relu,
                };
                (p, [n, g * cg, h, w], [g * og, cg, r, s])
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(160)))]

    /// Every parameter combination in every format, exact against the reference, or refused
    /// with the kernel-too-large error exactly when the dilated kernel exceeds the padded input.
    #[test]
    fn matches_reference(
        (p, x, k) in params(),
        fx in 0usize..5, fw in 0usize..5, fy in 0usize..5,
        with_bias in any::<bool>(),
        threads in 1usize..3,
    ) {
        let fits = (0..2).all(|a| (k[2 + a] - 1) * p.dilation[a] < x[2 + a] + 2 * p.padding[a]);
        if !fits {
            let e = p.output_dims(x, k).unwrap_err();
            prop_assert!(matches!(e, ConvError::KernelTooLarge { .. }), "{e:?}");
            return Ok(());
        }
        let opts = Options { isa: Isa::selected_for_gemm(), threads, packing: Packing::Auto };
        check_case(p, x, k, FORMATS[fx], FORMATS[fw], FORMATS[fy], with_bias, opts)?;
    }

    /// The im2col layout derived by composition reads the same input offsets as the definition
    /// (NCHW and NHWC inputs), and the predicate is exactly the padding.
    #[test]
    fn im2col_layout_is_the_definition(
        (p, x, k) in params(), fx in 0usize..3,
    ) {
        let fits = (0..2).all(|a| (k[2 + a] - 1) * p.dilation[a] < x[2 + a] + 2 * p.padding[a]);
        prop_assume!(fits);
        let l = layout_of(FORMATS[fx], x, false);
        let m = Im2col::new(&p, &l, [k[2], k[3]]).unwrap();
        let dims = p.output_dims(x, k).unwrap();
        let (oh, ow) = (dims[2], dims[3]);
        let c = x[1];
        prop_assert_eq!(m.rows(), x[0] * oh * ow);
        prop_assert_eq!(m.cols(), c * k[2] * k[3]);
        for row in 0..m.rows() {
            let (b, i, j) = (row % x[0], (row / x[0]) % oh, row / (x[0] * oh));
            for col in 0..m.cols() {
                let (ci, u, v) = (col % c, (col / c) % k[2], col / (c * k[2]));
                let ih = (i * p.stride[0] + u * p.dilation[0]) as i64 - p.padding[0] as i64;
                let iw = (j * p.stride[1] + v * p.dilation[1]) as i64 - p.padding[1] as i64;
                let inside = ih >= 0 && iw >= 0 && ih < x[2] as i64 && iw < x[3] as i64;
                let want = inside.then(|| {
                    let t = layout::DynTuple::from_slice(&[b as i64, ci as i64, ih, iw]).unwrap();
                    l.offset_of(&t).unwrap()
                });
                prop_assert_eq!(m.offset(row, col), want);
                // the layout itself, unpredicated, is the padded input's offset
                let raw = m.layout().offset((row + m.rows() * col) as i64) + m.shift();
                let hstride = l.mode(2).unwrap().stride_leaves()[0];
                let wstride = l.mode(3).unwrap().stride_leaves()[0];
                let t = layout::DynTuple::from_slice(&[b as i64, ci as i64, 0, 0]).unwrap();
                prop_assert_eq!(raw, l.offset_of(&t).unwrap() + ih * hstride + iw * wstride);
            }
        }
    }
}

/// The edge cases by name, in NCHW and NHWC, on every instruction set this CPU has.
#[test]
fn edge_cases() {
    let cases: Vec<(&str, Conv2d, [usize; 4], [usize; 4])> = vec![
        ("1x1", Conv2d::default(), [2, 8, 5, 7], [6, 8, 1, 1]),
        (
            "1x1 stride 2",
            Conv2d::default().stride(2),
            [1, 8, 5, 7],
            [6, 8, 1, 1],
        ),
        (
            "1x1 padded",
            Conv2d::default().padding(1),
            [1, 3, 4, 4],
            [5, 3, 1, 1],
        ),
        (
            "kernel larger than the input, padded",
            Conv2d::default().padding(3),
            [1, 2, 2, 3],
            [3, 2, 5, 7],
        ),
        (
            "stride > kernel",
            Conv2d::default().stride(3),
            [1, 3, 10, 11],
            [4, 3, 2, 2],
        ),
        (
            "depthwise",
            Conv2d::default().padding(1).groups(6),
            [2, 6, 7, 6],
            [6, 1, 3, 3],
        ),
        (
            "depthwise multiplier 2, dilated",
            Conv2d::default().padding(2).dilation(2).groups(4),
            [1, 4, 9, 8],
            [8, 1, 3, 3],
        ),
        (
            "7x7 stride 2",
            Conv2d::default().stride(2).padding(3),
            [1, 3, 20, 19],
            [8, 3, 7, 7],
        ),
        (
            "wide: more pixels than a block, k split",
            Conv2d::default().padding(1),
            [1, 130, 12, 40],
            [4, 130, 3, 3],
        ),
    ];
    for isa in Isa::available() {
        for (name, p, x, k) in &cases {
            for (fx, fy) in [
                (Format::Abcd, Format::Abcd),
                (Format::Acdb, Format::Acdb),
                (Format::Blocked, Format::Dcba),
            ] {
                for relu in [false, true] {
                    let opts = Options {
                        isa,
                        threads: 2,
                        packing: Packing::Always,
                    };
                    check_case(p.relu(relu), *x, *k, fx, Format::Abcd, fy, true, opts)
                        .unwrap_or_else(|e| panic!("{name} on {isa:?}: {e}"));
                }
            }
        }
    }
}

fn nchw(d: [usize; 4]) -> Tensor<Vec<f32>, DynLayout> {
    tensor(Format::Abcd, d, false, 7)
}

/// Every refused parameter is an error naming its numbers; nothing is written.
#[test]
fn bad_parameters_are_errors() {
    let x = nchw([1, 4, 5, 5]);
    let w = nchw([4, 4, 3, 3]);
    let mut y = nchw([1, 4, 3, 3]);
    let before = y.as_slice().to_vec();
    let run =
        |p: Conv2d,
         x: &Tensor<Vec<f32>, DynLayout>,
         w: &Tensor<Vec<f32>, DynLayout>,
         b: Option<&[f32]>,
         y: &mut Tensor<Vec<f32>, DynLayout>| { conv2d(&p, x, w, b, y).unwrap_err() };
    let e = run(Conv2d::default().stride(0), &x, &w, None, &mut y);
    assert_eq!(
        e,
        ConvError::Zero {
            what: "stride",
            axis: 0
        }
    );
    assert!(
        e.to_string().contains("stride along the height is 0"),
        "{e}"
    );
    let p = Conv2d {
        dilation: [1, 0],
        ..Conv2d::default()
    };
    assert_eq!(
        run(p, &x, &w, None, &mut y),
        ConvError::Zero {
            what: "dilation",
            axis: 1
        }
    );
    assert_eq!(
        run(Conv2d::default().groups(0), &x, &w, None, &mut y),
        ConvError::Zero {
            what: "groups",
            axis: 0
        }
    );
    let e = run(Conv2d::default().groups(3), &x, &w, None, &mut y);
    assert_eq!(
        e,
        ConvError::ChannelsNotDivisible {
            operand: ConvOperand::Input,
            channels: 4,
            groups: 3
        }
    );
    assert!(
        e.to_string()
            .contains("4 channels, not a multiple of 3 groups"),
        "{e}"
    );
    let w6 = nchw([6, 1, 3, 3]);
    let e = run(Conv2d::default().groups(4), &x, &w6, None, &mut y);
    assert_eq!(
        e,
        ConvError::ChannelsNotDivisible {
            operand: ConvOperand::Output,
            channels: 6,
            groups: 4
        }
    );
    let e = run(Conv2d::default().groups(2), &x, &w, None, &mut y);
    assert_eq!(
        e,
        ConvError::WeightShape {
            expected: [4, 2, 3, 3],
            got: [4, 4, 3, 3]
        }
    );
    let big = nchw([4, 4, 8, 3]);
    let e = run(Conv2d::default().padding(1), &x, &big, None, &mut y);
    assert_eq!(
        e,
        ConvError::KernelTooLarge {
            axis: 0,
            kernel: 8,
            dilation: 1,
            input: 5,
            padding: 1
        }
    );
    assert!(e.to_string().contains("kernel of 8 with dilation 1"), "{e}");
    let e = run(Conv2d::default().dilation(3), &x, &w, None, &mut y);
    assert!(
        matches!(
            e,
            ConvError::KernelTooLarge {
                dilation: 3,
                kernel: 3,
                ..
            }
        ),
        "{e:?}"
    );
    let e = run(Conv2d::default().padding(1), &x, &w, None, &mut y);
    assert_eq!(
        e,
        ConvError::OutputShape {
            expected: [1, 4, 5, 5],
            got: [1, 4, 3, 3]
        }
    );
    let e = run(Conv2d::default(), &x, &w, Some(&[0.0; 3]), &mut y);
    assert_eq!(
        e,
        ConvError::BiasLength {
            expected: 4,
            got: 3
        }
    );
    let e = run(Conv2d::default().padding(usize::MAX), &x, &w, None, &mut y);
    assert!(matches!(e, ConvError::Overflow { .. }), "{e:?}");
    let e = run(Conv2d::default().dilation(usize::MAX), &x, &w, None, &mut y);
    assert!(matches!(e, ConvError::Overflow { .. }), "{e:?}");
    // not rank 4
    let flat = Tensor::new(
        vec![0.0f32; 100],
        "(4,25):(25,1)".parse::<DynLayout>().unwrap(),
    )
    .unwrap();
    let e = conv2d(&Conv2d::default(), &flat, &w, None, &mut y).unwrap_err();
    assert_eq!(
        e,
        ConvError::NotRank4 {
            operand: ConvOperand::Input,
            rank: 2
        }
    );
    assert_eq!(y.as_slice(), &before[..]);
    // the valid call goes through
    conv2d(&Conv2d::default(), &x, &w, None, &mut y).unwrap();
}

/// bf16 and f16 inputs and weights (widened while packing, summed in f32) give the f32 result
/// exactly on integer data, in every format.
#[test]
fn half_inputs_match_f32() {
    use layout::named::{bf16, f16};
    let cases = [
        (Conv2d::default().padding(1), [1, 8, 6, 7], [4, 8, 3, 3]),
        (
            Conv2d::default().stride(2).padding(2).dilation(2),
            [2, 6, 9, 8],
            [6, 3, 3, 2],
        ),
        (Conv2d::default(), [1, 16, 4, 5], [8, 16, 1, 1]),
        // 1×1 over blocks of pixels widened one at a time (32 pixels of 2048 channels: 32 + 13)
        (Conv2d::default(), [2, 2048, 5, 9], [3, 2048, 1, 1]),
        // a first layer (the taps route's merged kernel rows, whole 16-channel tiles)
        (
            Conv2d::default().stride(2).padding(3),
            [2, 3, 13, 30],
            [24, 3, 7, 7],
        ),
    ];
    let cases = cases.map(|(p, x, k)| (p.groups(x[1] / k[1]), x, k));
    for (p, x, k) in cases {
        for f in FORMATS {
            let input = tensor(f, x, false, 11);
            let weights = tensor(Format::Abcd, k, true, 12);
            let dims = p.output_dims(x, k).unwrap();
            let mut want = tensor(Format::Abcd, dims, false, 0);
            conv2d(&p, &input, &weights, None, &mut want).unwrap();
            // the same buffers, element by element, under the same layouts
            fn conv<T>(
                t: &Tensor<Vec<f32>, DynLayout>,
                f: fn(f32) -> T,
            ) -> Tensor<Vec<T>, DynLayout> {
                Tensor::new(t.as_slice().iter().map(|&v| f(v)).collect(), *t.layout()).unwrap()
            }
            let xb = conv(&input, bf16::from_f32);
            let wb = conv(&weights, bf16::from_f32);
            let xh = conv(&input, f16::from_f32);
            let wh = conv(&weights, f16::from_f32);
            // on every instruction set (the widened input on the taps route and the plain
            // 1×1 GEMM; widened in packing elsewhere), filters packed per call and once
            for isa in Isa::available() {
                let opts = Options {
                    isa,
                    threads: 1,
                    packing: Packing::Auto,
                };
                let mut got = tensor(Format::Abcd, dims, false, 0);
                conv2d_with(opts, &p, &xb, &wb, None, &mut got).unwrap();
                assert_eq!(
                    got.as_slice(),
                    want.as_slice(),
                    "bf16 {isa:?} {p:?} {x:?} {f:?}"
                );
                let mut got = tensor(Format::Abcd, dims, false, 0);
                conv2d_with(opts, &p, &xh, &wh, None, &mut got).unwrap();
                assert_eq!(
                    got.as_slice(),
                    want.as_slice(),
                    "f16 {isa:?} {p:?} {x:?} {f:?}"
                );
                let packed = ConvWeights::new(&p, input.layout(), &wb).unwrap();
                let mut got = tensor(Format::Abcd, dims, false, 0);
                conv2d_prepared(opts, &p, &xb, &packed, None, &mut got).unwrap();
                assert_eq!(
                    got.as_slice(),
                    want.as_slice(),
                    "bf16 prepared {isa:?} {p:?} {f:?}"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(48)))]

    /// The taps route (and the others) on every available instruction set, one and two threads,
    /// batches of several images: exact against the reference, and every buffer position that is
    /// not an output element (padded rows, gaps between images, the tail) still holds its
    /// sentinel.
    #[test]
    fn every_isa_and_bytes_outside_the_output(
        (p, x, k) in params(),
        fx in 0usize..5, fw in 0usize..5, fy in 0usize..5,
        n in 1usize..4,
        with_bias in any::<bool>(),
    ) {
        let x = [n, x[1], x[2], x[3]];
        let fits = (0..2).all(|a| (k[2 + a] - 1) * p.dilation[a] < x[2 + a] + 2 * p.padding[a]);
        prop_assume!(fits);
        let dims = p.output_dims(x, k).unwrap();
        let input = tensor(FORMATS[fx], x, false, 1);
        let weights = tensor(FORMATS[fw], k, true, 2);
        let bias: Vec<f32> = (0..dims[1]).map(|i| (i % 5) as f32 - 2.0).collect();
        let bias = with_bias.then_some(&bias[..]);
        let want = reference(&p, &input, &weights, bias, dims);
        let l = layout_of(FORMATS[fy], dims, false);
        let (_, hi) = l.offset_range();
        // a sentinel everywhere, 7 more elements past the last one
        let sentinel = -12345.5f32;
        let is_elem = {
            let mut v = vec![false; hi as usize + 8];
            for i in 0..dims.iter().product::<usize>() {
                v[l.offset(i as i64) as usize] = true;
            }
            v
        };
        for isa in Isa::available() {
            for threads in [1, 2] {
                let opts = Options { isa, threads, packing: Packing::Auto };
                let mut out = Tensor::new(vec![sentinel; hi as usize + 8], l).unwrap();
                conv2d_with(opts, &p, &input, &weights, bias, &mut out).unwrap();
                let mut at = 0;
                for b in 0..dims[0] {
                    for o in 0..dims[1] {
                        for i in 0..dims[2] {
                            for j in 0..dims[3] {
                                prop_assert_eq!(out[[b, o, i, j]], want[at], "{:?} {:?}", isa, [b, o, i, j]);
                                at += 1;
                            }
                        }
                    }
                }
                for (idx, (&v, &e)) in out.as_slice().iter().zip(&is_elem).enumerate() {
                    prop_assert!(e || v == sentinel, "{:?}: index {} outside the output written", isa, idx);
                }
            }
        }
    }
}

/// `out` (logical N, O, OH, OW) element by element against `want` (row-major over them).
fn assert_is(out: &Tensor<Vec<f32>, DynLayout>, want: &[f32], what: impl Fn() -> String) {
    let d = out.dims();
    let mut at = 0;
    for b in 0..d[0] {
        for oc in 0..d[1] {
            for i in 0..d[2] {
                for j in 0..d[3] {
                    assert_eq!(
                        out[[b, oc, i, j]],
                        want[at],
                        "{} at {:?}",
                        what(),
                        [b, oc, i, j]
                    );
                    at += 1;
                }
            }
        }
    }
    assert_eq!(at, want.len(), "{}", what());
}

/// The taps route's cases by brute force: kernel rows merged into runs of S·C channels (NHWC,
/// one group), halos of every width (taps cut inside full-width tiles), rows of 11 and 29
/// pixels (tiles of even widths: 6 + 5, 5·5 + 4·1 … on AVX2, 12 + 12 + 5 on AVX-512), 21
/// output channels (a masked channel tile), 32 input channels (the hand-scheduled AVX2 loop on
/// whole 16-channel tiles, taps cut by the padding included), strides, dilations,
/// groups, N = 2, every format
/// pair of the strided formats (the reversed one included) and the blocked output, every
/// available instruction set, one and two threads.
#[test]
fn taps_route_every_geometry() {
    let mut count = 0;
    for (r, s) in [(3, 3), (7, 7), (1, 3), (3, 1), (1, 1)] {
        for (stride, pad, dil) in [(1, 1, 1), (2, 3, 1), (1, 0, 1), (1, 2, 2), (2, 1, 1)] {
            for (c, o, groups, wd) in [
                (3, 5, 1, 11),
                (4, 6, 2, 11),
                (1, 2, 1, 11),
                (6, 21, 1, 29),
                (4, 22, 2, 29),
                // whole 16-channel tiles, taps of 32 steps (cut ones too) in the asm loop
                (32, 17, 1, 14),
                // a first layer: whole kernel rows of S·3 channels merged into one item of
                // several rows (the asm loop's row step) on whole 16-channel tiles, a masked
                // 8-channel tile beside them
                (3, 40, 1, 29),
            ] {
                let p = Conv2d {
                    stride: [stride, stride],
                    padding: [pad, pad],
                    dilation: [dil, dil],
                    groups,
                    relu: false,
                };
                let x = [2, c, 9, wd];
                let k = [o, c / groups, r, s];
                let Ok(dims) = p.output_dims(x, k) else {
                    continue;
                };
                for (fx, fy) in [
                    (Format::Acdb, Format::Acdb),
                    (Format::Abcd, Format::Abcd),
                    (Format::Acdb, Format::Abcd),
                    (Format::Padded, Format::Acdb),
                    (Format::Acdb, Format::Blocked),
                    // channels N apart, pixels N·C: merged runs read through a channel
                    // stride, halo copies gathered element by element
                    (Format::Dcba, Format::Acdb),
                ] {
                    let input = tensor(fx, x, false, 5);
                    let weights = tensor(Format::Abcd, k, true, 6);
                    let want = reference(&p, &input, &weights, None, dims);
                    for (isa, threads) in Isa::available().flat_map(|i| [(i, 1), (i, 2)]) {
                        let mut out = tensor(fy, dims, false, 7);
                        // (Packing::Never: the thread rule's size floor does not apply)
                        let opts = Options {
                            isa,
                            threads,
                            packing: Packing::Never,
                        };
                        conv2d_with(opts, &p, &input, &weights, None, &mut out).unwrap();
                        assert_is(&out, &want, || {
                            format!("{isa:?} ×{threads} {p:?} {x:?} {k:?} {fx:?}/{fy:?}")
                        });
                        count += 1;
                    }
                }
            }
        }
    }
    assert!(count > 100, "{count} cases");
}

/// Merged kernel rows under a row dilation other than the column's (the row step is the
/// dilation times the input's row stride), kernels taller and wider than each other, halos on
/// all sides, by brute force on every instruction set.
#[test]
fn taps_route_merged_rows_per_axis() {
    for (r, s, dil, stride, pad) in [
        (7, 7, [2, 1], [2, 2], [3, 3]),
        (5, 3, [3, 1], [1, 2], [4, 1]),
        (3, 7, [1, 1], [1, 1], [0, 3]),
    ] {
        let p = Conv2d {
            stride,
            padding: pad,
            dilation: dil,
            groups: 1,
            relu: false,
        };
        let x = [2, 3, 17, 33];
        let k = [32, 3, r, s];
        let dims = p.output_dims(x, k).unwrap();
        let input = tensor(Format::Acdb, x, false, 8);
        let weights = tensor(Format::Abcd, k, true, 9);
        let want = reference(&p, &input, &weights, None, dims);
        for isa in Isa::available() {
            let mut out = tensor(Format::Acdb, dims, false, 7);
            let opts = Options {
                isa,
                threads: 1,
                packing: Packing::Never,
            };
            conv2d_with(opts, &p, &input, &weights, None, &mut out).unwrap();
            assert_is(&out, &want, || format!("{isa:?} {p:?} {k:?}"));
        }
    }
}

/// The taps route on wide layers by brute force: 64 to 256 input channels (taps of whole
/// 16-channel runs, cut ones of 64 to 256 steps in the hand-scheduled loop), rows of 14
/// output pixels (tiles of 5 + 5 + 4 on AVX2, 12 + 2 on AVX-512), 40 output channels (two
/// whole channel tiles and a masked one), NHWC in, NHWC and padded NCHW out, on every
/// instruction set with one and two threads; the output's gaps (padded rows, between images)
/// keep their bytes.
#[test]
fn taps_route_wide_layers_keep_the_gaps() {
    for (c, r, stride, pad) in [(64, 3, 1, 1), (256, 3, 1, 1), (64, 1, 2, 0), (96, 5, 2, 2)] {
        let p = Conv2d::default().stride(stride).padding(pad);
        let x = [1, c, 14 * stride, 14 * stride];
        let k = [40, c, r, r];
        let dims = p.output_dims(x, k).unwrap();
        let input = tensor(Format::Acdb, x, false, 11);
        let weights = tensor(Format::Abcd, k, true, 12);
        let want = reference(&p, &input, &weights, None, dims);
        for fy in [Format::Acdb, Format::Padded] {
            let fresh = tensor(fy, dims, false, 13);
            // the offsets of the output's elements; every other one must keep its value
            let l = layout_of(fy, dims, false);
            let mut inside = vec![false; fresh.as_slice().len()];
            for b in 0..dims[0] {
                for o in 0..dims[1] {
                    for i in 0..dims[2] {
                        for j in 0..dims[3] {
                            let t = layout::DynTuple::from_slice(&[b, o, i, j].map(|v| v as i64))
                                .unwrap();
                            inside[l.offset_of(&t).unwrap() as usize] = true;
                        }
                    }
                }
            }
            for (isa, threads) in Isa::available().flat_map(|i| [(i, 1), (i, 2)]) {
                let mut out = tensor(fy, dims, false, 13);
                let opts = Options {
                    isa,
                    threads,
                    packing: Packing::Never,
                };
                conv2d_with(opts, &p, &input, &weights, None, &mut out).unwrap();
                let what = || format!("{isa:?} ×{threads} C {c} {p:?} {fy:?}");
                assert_is(&out, &want, what);
                for (at, (&now, &was)) in out.as_slice().iter().zip(fresh.as_slice()).enumerate() {
                    if !inside[at] {
                        assert_eq!(now.to_bits(), was.to_bits(), "{} wrote offset {at}", what());
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(64)))]

    /// Two output rows in one tile (AVX2: rows of at most 16 pixels that 6 does not divide, 3
    /// pixels of each row on the 16 × 6 loop) on random geometry: odd and even heights (the
    /// last row alone), padding (the first and last rows, whose kernel rows differ from their
    /// neighbour's, alone; taps cut at the left and right edges in both halves), strides 1 and
    /// 2, dilation, 16 to 48 input channels (whole, merged and cut taps in the hand-scheduled
    /// loop) and fewer (the halo copy, unpaired), every available instruction set with one and
    /// two threads; exact against the reference, and every position of the output buffer that
    /// is not an output element keeps its sentinel.
    #[test]
    fn two_row_tiles_random_geometry(
        n in 1usize..3,
        c in prop_oneof![16usize..49, 1usize..16],
        o in 1usize..41,
        (h, w) in (1usize..12, 1usize..34),
        (r, s) in (1usize..5, 1usize..5),
        (st, pad, dil) in (1usize..3, 0usize..3, 1usize..3),
        fx in prop_oneof![Just(Format::Acdb), Just(Format::Abcd), Just(Format::Padded), Just(Format::Dcba)],
        fy in 0usize..5,
    ) {
        let p = Conv2d {
            stride: [st, st],
            padding: [pad, pad],
            dilation: [dil, dil],
            groups: 1,
            relu: false,
        };
        let x = [n, c, h, w];
        let k = [o, c, r, s];
        let Ok(dims) = p.output_dims(x, k) else {
            return Ok(());
        };
        let input = tensor(fx, x, false, 21);
        let weights = tensor(Format::Abcd, k, true, 22);
        let want = reference(&p, &input, &weights, None, dims);
        let l = layout_of(FORMATS[fy], dims, false);
        let (_, hi) = l.offset_range();
        let sentinel = -777.25f32;
        let mut is_elem = vec![false; hi as usize + 8];
        for i in 0..dims.iter().product::<usize>() {
            is_elem[l.offset(i as i64) as usize] = true;
        }
        for (isa, threads) in Isa::available().flat_map(|i| [(i, 1), (i, 2)]) {
            let opts = Options { isa, threads, packing: Packing::Never };
            let mut out = Tensor::new(vec![sentinel; hi as usize + 8], l).unwrap();
            conv2d_with(opts, &p, &input, &weights, None, &mut out).unwrap();
            let mut at = 0;
            for b in 0..dims[0] {
                for oc in 0..dims[1] {
                    for i in 0..dims[2] {
                        for j in 0..dims[3] {
                            prop_assert_eq!(
                                out[[b, oc, i, j]], want[at],
                                "{:?} ×{} {:?} {:?} {:?} {:?}/{:?} at {:?}",
                                isa, threads, p, x, k, fx, FORMATS[fy], [b, oc, i, j]
                            );
                            at += 1;
                        }
                    }
                }
            }
            for (idx, (&v, &e)) in out.as_slice().iter().zip(&is_elem).enumerate() {
                prop_assert!(e || v == sentinel, "{:?}: index {} outside the output written", isa, idx);
            }
        }
    }
}

/// Two-row tiles by brute force on the shapes they are for: 3×3 (stride 1, padding 1) and
/// stride 2 over output rows of 1 to 16 pixels and heights 1 to 7 (odd ones: the last row
/// alone), 32 input channels, 40 output channels (two whole channel tiles and a masked one),
/// NHWC in, NHWC and padded NCHW out, every instruction set.
#[test]
fn two_row_tiles_every_short_row() {
    for (st, pad, r) in [(1, 1, 3), (2, 1, 3), (1, 0, 3), (1, 2, 5), (1, 0, 1)] {
        for ow in 1..=16usize {
            for oh in 1..=7usize {
                let p = Conv2d::default().stride(st).padding(pad);
                let x = [
                    1,
                    32,
                    (oh - 1) * st + r - 2 * pad,
                    (ow - 1) * st + r - 2 * pad,
                ];
                let k = [40, 32, r, r];
                let dims = p.output_dims(x, k).unwrap();
                assert_eq!([dims[2], dims[3]], [oh, ow]);
                let input = tensor(Format::Acdb, x, false, 31);
                let weights = tensor(Format::Abcd, k, true, 32);
                let want = reference(&p, &input, &weights, None, dims);
                for fy in [Format::Acdb, Format::Padded] {
                    for isa in Isa::available() {
                        let mut out = tensor(fy, dims, false, 33);
                        let opts = Options {
                            isa,
                            threads: 1,
                            packing: Packing::Never,
                        };
                        conv2d_with(opts, &p, &input, &weights, None, &mut out).unwrap();
                        assert_is(&out, &want, || format!("{isa:?} {p:?} {x:?} {fy:?}"));
                    }
                }
            }
        }
    }
}

/// The edge columns (AVX2 and AVX-512, NHWC-like input: the pixels at the left and right
/// padding, and the inside ones beyond a multiple of 6 or 12, in tiles down the image; the
/// rows between in whole 6- or 12-column tiles) by brute force: 3×3 and 5×5, padding 1 and 2,
/// strides 1 and 2, output rows whose inside pixels 6 divides (8, 14) and does not (9, 11, 26:
/// columns inside the input down the image too; 26 two 12-column tiles and the rest down the
/// image on AVX-512), heights from 1 (no edge columns: too few rows inside) to 23 (one or two
/// tiles down an edge, of 5 to 12 rows; rows at the padding above and below), two images, 40
/// output channels (two whole channel tiles and a masked one), NHWC and padded NCHW out,
/// every instruction set with one and two threads; the output's gaps keep their bytes.
#[test]
fn edge_columns_every_geometry() {
    for (st, pad, r) in [(1, 1, 3), (2, 1, 3), (1, 2, 5), (1, 1, 5), (2, 2, 5)] {
        for ow in [8usize, 14, 9, 11, 26] {
            for oh in [1usize, 7, 8, 12, 13, 14, 23] {
                {
                    let c = 16usize;
                    let p = Conv2d::default().stride(st).padding(pad);
                    let side = |o: usize| ((o - 1) * st + r).saturating_sub(2 * pad).max(1);
                    let x = [2, c, side(oh), side(ow)];
                    let k = [40, c, r, r];
                    let dims = p.output_dims(x, k).unwrap();
                    let input = tensor(Format::Acdb, x, false, 41);
                    let weights = tensor(Format::Abcd, k, true, 42);
                    let want = reference(&p, &input, &weights, None, dims);
                    for fy in [Format::Acdb, Format::Padded] {
                        let fresh = tensor(fy, dims, false, 43);
                        let l = layout_of(fy, dims, false);
                        let mut inside = vec![false; fresh.as_slice().len()];
                        for i in 0..dims.iter().product::<usize>() {
                            inside[l.offset(i as i64) as usize] = true;
                        }
                        for (isa, threads) in Isa::available().flat_map(|i| [(i, 1), (i, 2)]) {
                            let mut out = tensor(fy, dims, false, 43);
                            let opts = Options {
                                isa,
                                threads,
                                packing: Packing::Never,
                            };
                            conv2d_with(opts, &p, &input, &weights, None, &mut out).unwrap();
                            let what = || format!("{isa:?} ×{threads} {p:?} {x:?} {fy:?}");
                            assert_is(&out, &want, what);
                            for (at, (&now, &was)) in
                                out.as_slice().iter().zip(fresh.as_slice()).enumerate()
                            {
                                if !inside[at] {
                                    assert_eq!(
                                        now.to_bits(),
                                        was.to_bits(),
                                        "{} wrote {at}",
                                        what()
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(24)))]

    /// The edge columns on random geometry: heights whose rows inside make tiles of 5 or 6
    /// down the image (and others, without), widths whose inside pixels 6 divides or not, odd
    /// and even sizes, padding, kernels 1 to 5, strides 1 and 2, dilation, 16 to 40 input
    /// channels (whole and merged taps in the hand-scheduled loop), NHWC input, every output
    /// format, every available instruction set with one and two threads; exact against the
    /// reference, and every position of the output buffer that is not an output element keeps
    /// its sentinel.
    #[test]
    fn edge_columns_random_geometry(
        c in 16usize..41,
        o in 1usize..41,
        (h, w) in (5usize..22, 5usize..30),
        (r, s) in (1usize..6, 1usize..6),
        (st, pad, dil) in (1usize..3, 0usize..3, 1usize..3),
        fy in 0usize..5,
    ) {
        let p = Conv2d {
            stride: [st, st],
            padding: [pad, pad],
            dilation: [dil, dil],
            groups: 1,
            relu: false,
        };
        let x = [1, c, h, w];
        let k = [o, c, r, s];
        let Ok(dims) = p.output_dims(x, k) else {
            return Ok(());
        };
        let input = tensor(Format::Acdb, x, false, 51);
        let weights = tensor(Format::Abcd, k, true, 52);
        let want = reference(&p, &input, &weights, None, dims);
        let l = layout_of(FORMATS[fy], dims, false);
        let (_, hi) = l.offset_range();
        let sentinel = -777.25f32;
        let mut is_elem = vec![false; hi as usize + 8];
        for i in 0..dims.iter().product::<usize>() {
            is_elem[l.offset(i as i64) as usize] = true;
        }
        for (isa, threads) in Isa::available().flat_map(|i| [(i, 1), (i, 2)]) {
            let opts = Options { isa, threads, packing: Packing::Never };
            let mut out = Tensor::new(vec![sentinel; hi as usize + 8], l).unwrap();
            conv2d_with(opts, &p, &input, &weights, None, &mut out).unwrap();
            let mut at = 0;
            for b in 0..dims[0] {
                for oc in 0..dims[1] {
                    for i in 0..dims[2] {
                        for j in 0..dims[3] {
                            prop_assert_eq!(
                                out[[b, oc, i, j]], want[at],
                                "{:?} ×{} {:?} {:?} {:?} {:?} at {:?}",
                                isa, threads, p, x, k, FORMATS[fy], [b, oc, i, j]
                            );
                            at += 1;
                        }
                    }
                }
            }
            for (idx, (&v, &e)) in out.as_slice().iter().zip(&is_elem).enumerate() {
                prop_assert!(e || v == sentinel, "{:?}: index {} outside the output written", isa, idx);
            }
        }
    }
}
