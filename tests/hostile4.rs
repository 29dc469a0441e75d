//! Issue 31, hostile input (fourth round): each defect of the issue as a regression test, and
//! the classes behind them: no user integer wraps in convolution, tiling or quantisation
//! geometry (generated extents and parameters near 0, 1, `i64::MAX` and `usize::MAX`), every
//! route of one operation gives one answer (scales at the `f16`/`f32` limits, subnormals, NaN
//! and ±∞), every "never panics" holds, and nothing is written on error.

use layout::DynLayout;
use layout::conv::{Conv2d, ConvError, ConvWeights, Im2col, conv2d, conv2d_prepared};
use layout::gemm::Options;
use layout::tensor::Tensor;
use proptest::prelude::*;

fn l(s: &str) -> DynLayout {
    s.parse().unwrap()
}

/// A row-major NCHW tensor of `dims` holding `0, 1, 2, …`.
fn nchw(dims: [usize; 4]) -> Tensor<Vec<f32>, DynLayout> {
    let [n, c, h, w] = dims;
    let text = format!("({n},{c},{h},{w}):({},{},{w},1)", c * h * w, h * w);
    Tensor::new((0..n * c * h * w).map(|v| v as f32).collect(), l(&text)).unwrap()
}

/// The convolution by its definition (f64 sums; padding read as zero), in `u128` index
/// arithmetic so that no parameter can wrap.
fn conv_naive(
    p: &Conv2d,
    x: &[f32],
    xd: [usize; 4],
    w: &[f32],
    wd: [usize; 4],
    od: [usize; 4],
) -> Vec<f32> {
    let [n, c, h, wi] = xd;
    let [o, cg, r, s] = wd;
    let [_, _, oh, ow] = od;
    let og = o / p.groups;
    let mut out = vec![0.0f32; n * o * oh * ow];
    for b in 0..n {
        for oo in 0..o {
            let g = oo / og;
            for y in 0..oh {
                for xx in 0..ow {
                    let mut acc = 0.0f64;
                    for ci in 0..cg {
                        for i in 0..r {
                            for j in 0..s {
                                let ih = y as u128 * p.stride[0] as u128
                                    + i as u128 * p.dilation[0] as u128;
                                let iw = xx as u128 * p.stride[1] as u128
                                    + j as u128 * p.dilation[1] as u128;
                                let (ph, pw) = (p.padding[0] as u128, p.padding[1] as u128);
                                if ih < ph
                                    || iw < pw
                                    || ih - ph >= h as u128
                                    || iw - pw >= wi as u128
                                {
                                    continue;
                                }
                                let (ih, iw) = ((ih - ph) as usize, (iw - pw) as usize);
                                let ch = g * cg + ci;
                                acc += f64::from(x[((b * c + ch) * h + ih) * wi + iw])
                                    * f64::from(w[((oo * cg + ci) * r + i) * s + j]);
                            }
                        }
                    }
                    out[((b * o + oo) * oh + y) * ow + xx] = acc as f32;
                }
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Defects 1–3, 14, 15: convolution geometry

/// Defect 1: a stride above `isize::MAX` was cast to `isize` (−1) and taps were dropped.
#[test]
fn d01_conv_stride_above_isize_max_gives_the_full_window() {
    let x = nchw([1, 1, 4, 4]);
    let w = Tensor::new(vec![1.0f32; 9], l("(1,1,3,3):(9,9,3,1)")).unwrap();
    for st in [
        usize::MAX,
        isize::MAX as usize + 1,
        isize::MAX as usize,
        1 << 40,
        4,
        2,
    ] {
        let p = Conv2d::default().stride(st);
        let mut y = Tensor::new(vec![f32::NAN], l("(1,1,1,1):(1,1,1,1)")).unwrap();
        conv2d(&p, &x, &w, None, &mut y).unwrap();
        assert_eq!(y.as_slice(), &[45.0], "stride {st}");
        // the prepared route too
        let pw = ConvWeights::new(&p, x.layout(), &w).unwrap();
        let mut y = Tensor::new(vec![f32::NAN], l("(1,1,1,1):(1,1,1,1)")).unwrap();
        conv2d_prepared(Options::default(), &p, &x, &pw, None, &mut y).unwrap();
        assert_eq!(y.as_slice(), &[45.0], "stride {st}, prepared");
    }
}

/// Defect 2: huge padding with huge stride, and huge dilation, overflowed in debug; now the
/// right result or an overflow error naming the parameter, never a panic.
#[test]
fn d02_conv_huge_padding_stride_dilation_never_panic() {
    let x = nchw([1, 1, 4, 4]);
    let w = Tensor::new(vec![1.0f32; 9], l("(1,1,3,3):(9,9,3,1)")).unwrap();
    // padding 2^62: the padded extent 4 + 2^63 exceeds isize::MAX, an overflow naming it
    let p = Conv2d::default().padding(1 << 62).stride(1 << 62);
    assert_eq!(
        p.output_dims([1, 1, 4, 4], [1, 1, 3, 3]).unwrap_err(),
        ConvError::Overflow {
            what: "the padding along the height (H + 2·padding above isize::MAX)"
        }
    );
    let mut y = Tensor::new(vec![7.0f32; 9], l("(1,1,3,3):(9,9,3,1)")).unwrap();
    let e = conv2d(&p, &x, &w, None, &mut y).unwrap_err();
    assert!(e.to_string().contains("padding along the height"), "{e}");
    assert_eq!(y.as_slice(), &[7.0; 9], "nothing written on error");
    // padding 2^61, stride 2^61: 4 + 2^62 fits; windows at 0, 2^61 and 2^62 of the padded
    // input; the middle one covers input rows and columns 0..3
    let p = Conv2d::default().padding(1 << 61).stride(1 << 61);
    let od = p.output_dims([1, 1, 4, 4], [1, 1, 3, 3]).unwrap();
    assert_eq!(od, [1, 1, 3, 3]);
    let mut y = Tensor::new(vec![f32::NAN; 9], l("(1,1,3,3):(9,9,3,1)")).unwrap();
    conv2d(&p, &x, &w, None, &mut y).unwrap();
    let want = conv_naive(
        &p,
        x.as_slice(),
        [1, 1, 4, 4],
        w.as_slice(),
        [1, 1, 3, 3],
        od,
    );
    assert_eq!(y.as_slice(), &want[..]);
    assert_eq!(y.as_slice()[4], 45.0);
    // dilation 2^61 with a 3-tap kernel: (3 − 1)·2^61 + 1 > the padded input
    let p = Conv2d::default().dilation(1 << 61);
    let e = conv2d(&p, &x, &w, None, &mut y).unwrap_err();
    assert!(matches!(e, ConvError::KernelTooLarge { .. }), "{e:?}");
    // dilation 2^61 and padding 2^61: the span 2^62 + 1 fits the padded 2^62 + 4
    let p = Conv2d::default().dilation(1 << 61).padding(1 << 61);
    let od = p.output_dims([1, 1, 4, 4], [1, 1, 3, 3]).unwrap();
    assert_eq!(od, [1, 1, 4, 4]);
    let mut y = Tensor::new(vec![f32::NAN; 16], l("(1,1,4,4):(16,16,4,1)")).unwrap();
    conv2d(&p, &x, &w, None, &mut y).unwrap();
    let want = conv_naive(
        &p,
        x.as_slice(),
        [1, 1, 4, 4],
        w.as_slice(),
        [1, 1, 3, 3],
        od,
    );
    assert_eq!(y.as_slice(), &want[..]);
    // dilation usize::MAX with a one-tap kernel never multiplies
    let w1 = Tensor::new(vec![2.0f32], l("(1,1,1,1):(1,1,1,1)")).unwrap();
    let p = Conv2d::default().dilation(usize::MAX);
    let mut y = Tensor::new(vec![f32::NAN; 16], l("(1,1,4,4):(16,16,4,1)")).unwrap();
    conv2d(&p, &x, &w1, None, &mut y).unwrap();
    assert_eq!(
        y.as_slice(),
        &(0..16).map(|v| 2.0 * v as f32).collect::<Vec<_>>()[..]
    );
}

/// Defect 3: `Im2col::new` with padding 2^62 panicked in debug; now an overflow naming the
/// padding.
#[test]
fn d03_im2col_huge_padding_is_an_overflow_naming_the_padding() {
    let input = l("(1,1,4,4):(16,16,4,1)");
    for pad in [1usize << 62, usize::MAX, isize::MAX as usize] {
        let e = Im2col::new(&Conv2d::default().padding(pad), &input, [3, 3]).unwrap_err();
        assert!(matches!(e, ConvError::Overflow { .. }), "{e:?}");
        assert!(e.to_string().contains("padding"), "{e}");
    }
    // a stride of usize::MAX: one window, the same matrix as a stride of the padded extent
    let m = Im2col::new(&Conv2d::default().stride(usize::MAX), &input, [3, 3]).unwrap();
    assert_eq!((m.rows(), m.cols()), (1, 9));
    assert_eq!(m.offset(0, 8), Some(10));
}

/// Defect 14: prepared weights used with another group count name the groups.
#[test]
fn d14_prepared_weights_groups_mismatch_names_the_groups() {
    let x = nchw([1, 4, 5, 5]);
    let w = nchw([4, 4, 3, 3]);
    let pw = ConvWeights::new(&Conv2d::default(), x.layout(), &w).unwrap();
    let w2 = nchw([4, 2, 3, 3]);
    let pw2 = ConvWeights::new(&Conv2d::default(), x.layout(), &w2).unwrap();
    let mut y = Tensor::new(vec![5.0f32; 36], l("(1,4,3,3):(36,9,3,1)")).unwrap();
    for pw in [&pw, &pw2] {
        let e = conv2d_prepared(
            Options::default(),
            &Conv2d::default().groups(2),
            &x,
            pw,
            None,
            &mut y,
        )
        .unwrap_err();
        assert_eq!(
            e,
            ConvError::GroupsMismatch {
                packed: 1,
                given: 2
            }
        );
        assert_eq!(
            e.to_string(),
            "conv2d: the prepared weights were packed for 1 groups; the parameters have 2 groups"
        );
    }
    assert_eq!(y.as_slice(), &[5.0; 36]);
}

/// Defect 15: a kernel extent of 0 says so (it was reported as an overflow).
#[test]
fn d15_kernel_extent_zero_is_named() {
    for (k, axis, what) in [([0, 3], 0, "height"), ([3, 0], 1, "width")] {
        let e = Conv2d::default()
            .output_dims([1, 1, 4, 4], [1, 1, k[0], k[1]])
            .unwrap_err();
        assert_eq!(
            e,
            ConvError::Zero {
                what: "kernel",
                axis
            }
        );
        assert_eq!(
            e.to_string(),
            format!("conv2d: the kernel's extent along the {what} is 0; it must be at least 1")
        );
    }
}
