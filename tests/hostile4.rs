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

/// The taps route (batch-reduce over the input in place) on the case proptest found: a 1 × 1
/// input, stride `usize::MAX`, padding 2⁶¹ by 2⁶² − 1 — the column bounds overflowed in
/// debug. The taps route now leaves such geometry to the windows route, and its column bounds
/// are computed in `i128`; either way the result is the definition's (the only window lies in
/// the padding: zero) or an error, never a panic.
#[test]
fn taps_route_with_extreme_stride_and_padding() {
    let x = nchw([1, 1, 1, 1]);
    let w = Tensor::new(vec![1.0f32], l("(1,1,1,1):(1,1,1,1)")).unwrap();
    for nhwc in [false, true] {
        let x = if nhwc {
            Tensor::new(x.as_slice().to_vec(), l("(1,1,1,1):(1,1,1,1)")).unwrap()
        } else {
            x.clone()
        };
        let p = Conv2d {
            stride: [usize::MAX, usize::MAX],
            padding: [1 << 61, (1 << 62) - 1],
            dilation: [1, 1],
            groups: 1,
            relu: false,
        };
        let Ok(od) = p.output_dims([1, 1, 1, 1], [1, 1, 1, 1]) else {
            continue;
        };
        let n = od.iter().product::<usize>();
        if n > 64 {
            continue;
        }
        let ol = l(&format!("(1,1,{},{}):({n},{n},{},1)", od[2], od[3], od[3]));
        let mut y = Tensor::new(vec![f32::NAN; n], ol).unwrap();
        if conv2d(&p, &x, &w, None, &mut y).is_ok() {
            let want = conv_naive(
                &p,
                x.as_slice(),
                [1, 1, 1, 1],
                w.as_slice(),
                [1, 1, 1, 1],
                od,
            );
            assert_eq!(y.as_slice(), &want[..]);
        }
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

// ---------------------------------------------------------------------------------------------
// Defects 6–10: tiling

/// Defect 6: a tile extent near `i64::MAX` overflowed the grid; now one tile holds the tensor.
#[test]
fn d06_tiles_with_huge_extent_give_one_tile() {
    let a = Tensor::from_fn(&[100], |i| i as i32).unwrap();
    for t in [
        usize::MAX,
        i64::MAX as usize,
        i64::MAX as usize - 1,
        1 << 62,
        101,
        100,
    ] {
        let tiles = a.tiles(&[t]).unwrap();
        assert_eq!(tiles.grid(), &[1], "tile {t}");
        let tile = tiles.tile(&[0]).unwrap();
        assert_eq!(tile.shape().leaves(), &[100]);
        assert_eq!(tile.get([99]), Some(&99));
        let p = tiles.predicated(&[0]).unwrap();
        assert_eq!(p.valid_extents(), &[100]);
        assert_eq!(p.extents(), &[t]);
        assert_eq!(p.get(&[99]), Some(&99));
        assert_eq!(p.get(&[100]), None);
        assert_eq!(p.valid_view().unwrap().shape().leaves(), &[100]);
    }
    // a strided 2-D tensor: a tile extent of i64::MAX along the stride-7 axis
    let b = Tensor::from_fn(&[10, 7], |i| i as i32).unwrap();
    let tiles = b.tiles(&[usize::MAX, 4]).unwrap();
    assert_eq!(tiles.grid(), &[1, 2]);
    let t = tiles.tile(&[0, 1]).unwrap();
    assert_eq!(t.shape().leaves(), &[10, 3]);
    assert_eq!(t.get([9, 2]), Some(&69));
}

/// Defect 7: `Predicated::mask` panicked for a tile too large to allocate; it is an error.
#[test]
fn d07_mask_of_a_huge_tile_is_an_error_not_a_panic() {
    let a = Tensor::from_fn(&[100], |i| i as u8).unwrap();
    for t in [1usize << 62, i64::MAX as usize, usize::MAX] {
        let tiles = a.tiles(&[t]).unwrap();
        assert!(tiles.predicated(&[0]).unwrap().mask().is_err(), "tile {t}");
    }
    // 2^62 × 2^62 booleans: the element count overflows
    let b = Tensor::from_fn(&[3, 3], |i| i as u8).unwrap();
    let tiles = b.tiles(&[1 << 62, 1 << 62]).unwrap();
    assert!(tiles.predicated(&[0, 0]).unwrap().mask().is_err());
    let m = b
        .tiles(&[2, 4])
        .unwrap()
        .predicated(&[1, 0])
        .unwrap()
        .mask()
        .unwrap();
    assert_eq!(
        m.as_slice(),
        &[true, true, true, false, false, false, false, false]
    );
}

/// Defect 8: `local_tile_predicated` with `M = i64::MAX` overflowed the grid.
#[test]
fn d08_local_tile_predicated_with_huge_static_extent() {
    use layout::Layout;
    let a = Tensor::new(
        (0..70).collect::<Vec<i32>>(),
        Layout::new((10i64, 7i64), (7i64, 1i64)),
    )
    .unwrap();
    let t = a.local_tile_predicated::<{ i64::MAX }, 4>((0, 0)).unwrap();
    assert_eq!(t.valid_extents(), (10, 4));
    assert_eq!(t.get((9, 3)), Some(&66));
    assert_eq!(t.get((10, 0)), None);
    let t = a.local_tile_predicated::<{ i64::MAX }, 4>((0, 1)).unwrap();
    assert_eq!(t.valid_extents(), (10, 3));
    assert!(a.local_tile_predicated::<{ i64::MAX }, 4>((1, 0)).is_err());
    let t = a.local_tile_predicated::<4, { i64::MAX }>((2, 0)).unwrap();
    assert_eq!(t.valid_extents(), (2, 7));
    assert_eq!(t.get((1, 6)), Some(&69));
}

/// Defect 9: a tile of a rank-1 tensor with a hierarchical axis had rank 2.
#[test]
fn d09_rank_one_hierarchical_tile_keeps_rank_one() {
    let a = Tensor::new((0..6).collect::<Vec<i32>>(), l("((3,2)):((2,1))")).unwrap();
    let tiles = a.tiles(&[6]).unwrap();
    let t = tiles.tile(&[0]).unwrap();
    assert_eq!(t.ndim(), 1);
    assert_eq!(&t.dims()[..], &[6]);
    for i in 0..6 {
        assert_eq!(t.get([i]), a.get([i]), "element {i}");
    }
    assert_eq!(t.get([5]), Some(&5));
    let p = tiles.predicated(&[0]).unwrap();
    assert_eq!(p.get(&[5]), Some(&5));
    assert_eq!(p.valid_view().unwrap().get([5]), Some(&5));
    // divided in two tiles of 3
    let tiles = a.tiles(&[3]).unwrap();
    assert_eq!(tiles.grid(), &[2]);
    let t = tiles.tile(&[1]).unwrap();
    assert_eq!(t.ndim(), 1);
    for i in 0..3 {
        assert_eq!(t.get([i]), a.get([3 + i]), "element {i}");
    }
}

/// Defect 10: `zipped_divide` / `tiled_divide` accepted a tiler that does not divide a view.
#[test]
fn d10_divide_refuses_non_dividing_tilers_on_views() {
    use layout::Tile;
    use layout::tensor::TensorError;
    let a = Tensor::from_fn(&[4, 8], |i| i as i32).unwrap();
    let v = a.view().slice(&layout::tensor::s![0..2, ..]).unwrap();
    let tile: Tile = "[3,8]".parse().unwrap();
    let e = v.zipped_divide(&tile).unwrap_err();
    assert_eq!(
        e,
        TensorError::TilerNotDividing {
            op: "zipped_divide",
            axis: 0,
            extent: 2,
            tile: 3
        }
    );
    assert!(
        e.to_string()
            .contains("a tile of 3 elements does not divide axis 0 of extent 2"),
        "{e}"
    );
    let e = v.tiled_divide(&tile).unwrap_err();
    assert!(
        matches!(
            e,
            TensorError::TilerNotDividing {
                op: "tiled_divide",
                axis: 0,
                ..
            }
        ),
        "{e:?}"
    );
    // on the whole tensor too (there the buffer check happened to catch it)
    assert!(matches!(
        a.zipped_divide(&"[4,3]".parse().unwrap()).unwrap_err(),
        TensorError::TilerNotDividing {
            axis: 1,
            extent: 8,
            tile: 3,
            ..
        }
    ));
    // exact divisions still work
    let z = v.zipped_divide(&"[2,4]".parse().unwrap()).unwrap();
    assert_eq!(z.layout().size(), 16);
    let z = a.tiled_divide(&"[2:2,4]".parse().unwrap()).unwrap();
    assert_eq!(z.layout().size(), 32);
}

// ---------------------------------------------------------------------------------------------
// Defects 4, 5, 12, 13: quantised weights

use layout::gemm::{MatMut, MatRef, Packing, gemm_quant};
use layout::packed::{
    Group4Matrix, GroupQuant, PackedError, PackedFormat, PackedVec, Q4_0Matrix, Q8_0Matrix,
    QuantRef, QuantizedB, dequantize, quantize_q4_0, quantize_q8_0,
};

/// `y = x·B` (row-major `m × k` times `k × n`) on every route: `gemm_quant` packing always, with the
/// decode shape and with a strided C (the blocked engine) — each on every instruction set —
/// and the sum over the dequantised weights. Returns the results, route name first.
fn every_route<'q>(
    b: impl Into<QuantRef<'q>> + Copy,
    m: usize,
    x: &[f32],
) -> Vec<(String, Vec<f32>)> {
    let q: QuantRef<'q> = b.into();
    let (k, n) = (q.rows(), q.cols());
    let w = q.dequantize().unwrap();
    let naive: Vec<f32> = (0..m * n)
        .map(|i| (0..k).fold(0.0f32, |s, p| s + x[(i / n) * k + p] * w[p * n + i % n]))
        .collect();
    let mut out = vec![("naive".to_string(), naive)];
    for isa in layout::gemm::Isa::available() {
        let opts = Options::from(isa);
        // row-major with Packing::Always: the blocked engine even for the decode shape
        let mut y = vec![f32::NAN; m * n];
        let always = Options {
            packing: Packing::Always,
            ..opts
        };
        let (a, c) = (
            MatRef {
                data: x,
                rows: m,
                cols: k,
                row_stride: k as isize,
                col_stride: 1,
            },
            MatMut {
                data: &mut y,
                rows: m,
                cols: n,
                row_stride: n as isize,
                col_stride: 1,
            },
        );
        gemm_quant(always, 1.0, a, q, 0.0, c).unwrap();
        out.push((format!("gemm_quant packed {isa:?}"), y));
        let a = MatRef {
            data: x,
            rows: m,
            cols: k,
            row_stride: k as isize,
            col_stride: 1,
        };
        let mut y = vec![f32::NAN; m * n];
        let c = MatMut {
            data: &mut y,
            rows: m,
            cols: n,
            row_stride: n as isize,
            col_stride: 1,
        };
        gemm_quant(opts, 1.0, a, q, 0.0, c).unwrap();
        out.push((format!("gemm_quant {isa:?}"), y));
        // C column-major: never the decode shape, always the blocked engine
        let mut yt = vec![f32::NAN; m * n];
        let c = MatMut {
            data: &mut yt,
            rows: m,
            cols: n,
            row_stride: 1,
            col_stride: m as isize,
        };
        gemm_quant(opts, 1.0, a, q, 0.0, c).unwrap();
        let y: Vec<f32> = (0..m * n).map(|i| yt[(i % n) * m + i / n]).collect();
        out.push((format!("gemm_quant blocked {isa:?}"), y));
    }
    out
}

/// Every route agrees with the first: the same NaN, the same ±∞, finite values within
/// `tol·scale` where `scale` is `Σ|x·w|` of the element.
fn agree(routes: &[(String, Vec<f32>)], scale: &[f32], tol: f32) -> Result<(), String> {
    let (_, want) = &routes[0];
    for (name, got) in &routes[1..] {
        for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
            let same = if w.is_nan() || g.is_nan() {
                w.is_nan() && g.is_nan()
            } else if w.is_infinite() || g.is_infinite() {
                g == w
            } else {
                (g - w).abs() <= tol * scale[i] + f32::MIN_POSITIVE
            };
            if !same {
                return Err(format!(
                    "{name}: element {i} is {g}, the naive sum gives {w}"
                ));
            }
        }
    }
    Ok(())
}

/// `Σ_p |x·w|` per output element (the size of the rounding errors).
fn magnitudes<'q>(b: impl Into<QuantRef<'q>>, m: usize, x: &[f32]) -> Vec<f32> {
    let q: QuantRef<'q> = b.into();
    let (k, n) = (q.rows(), q.cols());
    let w = q.dequantize().unwrap();
    (0..m * n)
        .map(|i| {
            (0..k)
                .map(|p| (x[(i / n) * k + p] * w[p * n + i % n]).abs())
                .filter(|v| v.is_finite())
                .sum()
        })
        .collect()
}

/// An AWQ-format 8 × 8 matrix, one group, codes `code`, stored zeros 0, scale 1, zero offset
/// `offset`.
fn group4(code: u8, offset: i32, scale: f32) -> Group4Matrix {
    let quant = GroupQuant::new(l("(8,8):(8,1)"), 8, offset).unwrap();
    let w = PackedVec::from_values(PackedFormat::awq(), &[code; 64]).unwrap();
    let z = PackedVec::from_values(PackedFormat::awq(), &[0; 8]).unwrap();
    Group4Matrix::new(quant, w, vec![scale; 8], z).unwrap()
}

/// Defect 4: `Group4Matrix` rounded the zero offset to `f32` before subtracting (and added it
/// in `i32`, which overflowed); now one rounding of the `i64` difference, on every route.
#[test]
fn d04_group4_zero_offset_rounds_once_like_dequantize() {
    for (offset, want) in [
        ((1 << 24) + 1, -16777216.0f32),
        (i32::MAX, -2147483648.0),
        (i32::MIN, 2147483648.0),
        (-(1 << 24) - 3, 16777220.0),
        (1, 0.0),
    ] {
        let m = group4(1, offset, 1.0);
        let d = dequantize(m.weights(), m.scales(), m.zeros(), m.quant()).unwrap();
        assert_eq!(d[0], want, "offset {offset}");
        assert_eq!(m.get(0, 0), Some(want), "offset {offset}");
        assert_eq!(m.dequantize().unwrap(), d, "offset {offset}");
        // one-hot rows of X pick single weights: every route gives the weight exactly
        for rows in [1, 8, 9] {
            let mut x = vec![0.0f32; rows * 8];
            for r in 0..rows {
                x[r * 8 + r % 8] = 1.0;
            }
            for (name, y) in every_route(&m, rows, &x) {
                assert!(
                    y.iter().all(|&v| v == want),
                    "offset {offset}, {rows} rows, {name}: {y:?}"
                );
            }
        }
    }
}

/// Defect 5: a block whose largest magnitude is below about 3.7e-37 made `1/d` infinite
/// (debug: a panic; release: flipped codes).
#[test]
fn d05_tiny_blocks_quantise() {
    for v in [1e-38f32, 3.6e-37, f32::MIN_POSITIVE, 1e-45, -1e-40] {
        // (below 127·2^−149, d is 0 in f32 too: every code 0, the reference's rule)
        let exact_zero = v / 127.0 == 0.0;
        let q8 = quantize_q8_0(32, 1, &[v; 32]).unwrap();
        assert!(
            exact_zero
                || q8.blocks()[0]
                    .qs
                    .iter()
                    .all(|&c| c == if v > 0.0 { 127 } else { -127 }),
            "{v}: {:?}",
            q8.blocks()[0].qs
        );
        assert_eq!(q8.dequantize().unwrap(), vec![0.0; 32]);
        let q4 = quantize_q4_0(32, 1, &[v; 32]).unwrap();
        // the largest magnitude is −8·d: code 0
        assert!(
            (0..32).all(|i| q4.blocks()[0].code(i) == 0) || v / 8.0 == 0.0,
            "{v}"
        );
        // mixed signs and a zero
        let x: Vec<f32> = (0..32).map(|i| [v, -v, 0.0, v / 2.0][i % 4]).collect();
        let q8 = quantize_q8_0(32, 1, &x).unwrap();
        // the signs kept, the half-way value near 63.5 (d is subnormal, so inexact)
        for (i, &c) in q8.blocks()[0].qs.iter().enumerate() {
            let ok = match i % 4 {
                0 => c == 127 * v.signum() as i8,
                1 => c == -127 * v.signum() as i8,
                2 => c == 0,
                _ => (c as f32 * v.signum() - 63.5).abs() <= 1.0,
            };
            assert!(ok || exact_zero, "{v}: code {i} is {c}");
        }
        quantize_q4_0(32, 1, &x).unwrap();
    }
}

/// Defect 12: a ±∞ (or NaN) GGUF scale gave +∞ on the decode routes and NaN on the others.
#[test]
fn d12_infinite_gguf_scales_agree_on_every_route() {
    // Q4_0, d = +∞: code 8 is 0·∞ = NaN, the rest ±∞
    for (d, codes) in [
        (0x7c00u16, [0x98u8; 16]), // +∞, codes 8 and 9
        (0x7c00, [0x99; 16]),      // +∞, codes 9 only: +∞·x
        (0xfc00, [0x9a; 16]),      // −∞, codes 10 and 9
        (0x7c00, [0x97; 16]),      // +∞, codes 7 and 9: +∞ and −∞
        (0x7e00, [0x99; 16]),      // NaN
    ] {
        let mut bytes = d.to_le_bytes().to_vec();
        bytes.extend(codes);
        let q = Q4_0Matrix::from_bytes(32, 1, &bytes).unwrap();
        for m in [1, 8, 9] {
            for xv in [1.0f32, -0.5, 0.0] {
                let x = vec![xv; 32 * m];
                let r = every_route(&q, m, &x);
                agree(&r, &vec![0.0; m], 0.0)
                    .unwrap_or_else(|e| panic!("d {d:#x} codes {codes:?} x {xv}, {m} rows: {e}"));
            }
        }
    }
    let mut bytes = 0x7c00u16.to_le_bytes().to_vec();
    bytes.extend([3u8; 32]);
    let q = Q8_0Matrix::from_bytes(32, 1, &bytes).unwrap();
    let r = every_route(&q, 9, &[1.0; 32 * 9]);
    assert!(
        r.iter().all(|(_, y)| y.iter().all(|&v| v == f32::INFINITY)),
        "{r:?}"
    );
    // an ∞ activation against a zero weight is NaN everywhere
    let q = quantize_q8_0(32, 1, &[0.0; 32]).unwrap();
    let mut x = vec![1.0f32; 32];
    x[5] = f32::INFINITY;
    let r = every_route(&q, 1, &x);
    assert!(r.iter().all(|(_, y)| y[0].is_nan()), "{r:?}");
    // a group scale whose weights dequantise to ±∞: the decode kernels do not factor it out
    let m = group4(3, 0, f32::MAX);
    let x = vec![1e-30f32; 8 * 9];
    let r = every_route(&m, 9, &x);
    assert!(
        r.iter().all(|(_, y)| y.iter().all(|&v| v == f32::INFINITY)),
        "{r:?}"
    );
}

/// Defect 13: the scale bound of the GGUF quantisers is the documented one.
#[test]
fn d13_gguf_scale_bound_is_the_documented_one() {
    let e = quantize_q4_0(32, 1, &[-524100.0; 32]).unwrap_err();
    assert!(
        matches!(e, PackedError::ScaleOverflow { row: 0, col: 0, .. }),
        "{e:?}"
    );
    let lim = 8.0 * 65504.0f32;
    let q = quantize_q4_0(32, 1, &[-lim; 32]).unwrap();
    assert_eq!(q.blocks()[0].d.to_f32(), 65504.0);
    assert!(quantize_q4_0(32, 1, &[lim.next_up(); 32]).is_err());
    assert!(quantize_q4_0(32, 1, &[-lim.next_up(); 32]).is_err());
    let lim = 127.0 * 65504.0f32;
    let q = quantize_q8_0(32, 1, &[lim; 32]).unwrap();
    assert_eq!(q.blocks()[0].d.to_f32(), 65504.0);
    assert!(quantize_q8_0(32, 1, &[lim.next_up(); 32]).is_err());
    assert!(quantize_q8_0(32, 1, &[-lim.next_up(); 32]).is_err());
}

/// Defect 16: a view of another array after the parent in memory is named as such.
#[cfg(feature = "ndarray")]
#[test]
fn d16_from_ndarray_in_names_a_view_outside_the_parent() {
    use layout::tensor::TensorRef;
    let both = ndarray::Array1::from_iter(0..32);
    let (a, b) = both.view().split_at(ndarray::Axis(0), 16);
    // b lies right after a, then inside a: the first is refused with the dedicated message
    let e = TensorRef::from_ndarray_in(b, a).unwrap_err();
    assert!(
        e.to_string()
            .contains("does not lie in its parent's buffer"),
        "{e}"
    );
    let e = TensorRef::from_ndarray_in(a, b).unwrap_err();
    assert!(
        e.to_string()
            .contains("does not lie in its parent's buffer"),
        "{e}"
    );
    let other = ndarray::Array2::<i32>::zeros((4, 4));
    let parent = ndarray::Array2::<i32>::zeros((4, 4));
    for (v, p) in [(other.view(), parent.view()), (parent.view(), other.view())] {
        let e = TensorRef::from_ndarray_in(v, p).unwrap_err();
        assert!(
            e.to_string()
                .contains("does not lie in its parent's buffer"),
            "{e}"
        );
    }
    assert!(TensorRef::from_ndarray_in(a.slice(ndarray::s![4..8]), a).is_ok());
}

// ---------------------------------------------------------------------------------------------
// The classes, with generated extreme inputs

/// Integers near 0, 1, `isize::MAX` and `usize::MAX`, and powers of two in between.
fn extreme_usize() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..4,
        1 => Just(usize::MAX),
        1 => Just(usize::MAX - 1),
        1 => Just(isize::MAX as usize),
        1 => Just(isize::MAX as usize + 1),
        1 => Just(1usize << 61),
        1 => Just(1usize << 62),
        1 => Just((1usize << 62) - 1),
        // a padding at the bound: H + 2·padding = isize::MAX ± 1
        1 => (0usize..3).prop_map(|d| (isize::MAX as usize - 3) / 2 + d),
    ]
}

/// The convolution by its definition on logical coordinates (u128 indices: nothing wraps).
fn conv_ref(
    p: &Conv2d,
    x: &Tensor<Vec<f32>, DynLayout>,
    w: &Tensor<Vec<f32>, DynLayout>,
    od: [usize; 4],
) -> Vec<f32> {
    let xd = x.dims();
    let (c, h, wi) = (xd[1], xd[2], xd[3]);
    let wd = w.dims();
    let (r, s) = (wd[2], wd[3]);
    let [_, o, oh, ow] = od;
    let mut out = vec![0.0f32; o * oh * ow];
    for oo in 0..o {
        for y in 0..oh {
            for xx in 0..ow {
                let mut acc = 0.0f64;
                for ci in 0..c {
                    for i in 0..r {
                        for j in 0..s {
                            let ih =
                                y as u128 * p.stride[0] as u128 + i as u128 * p.dilation[0] as u128;
                            let iw = xx as u128 * p.stride[1] as u128
                                + j as u128 * p.dilation[1] as u128;
                            let (ph, pw) = (p.padding[0] as u128, p.padding[1] as u128);
                            if ih < ph || iw < pw || ih - ph >= h as u128 || iw - pw >= wi as u128 {
                                continue;
                            }
                            let (ih, iw) = ((ih - ph) as i64, (iw - pw) as i64);
                            acc += f64::from(x[[0, ci as i64, ih, iw]])
                                * f64::from(w[[oo as i64, ci as i64, i as i64, j as i64]]);
                        }
                    }
                }
                out[(oo * oh + y) * ow + xx] = acc as f32;
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(192))]

    /// Convolution parameters near the integer limits: `output_dims`, `Im2col::new`,
    /// `conv2d` and `conv2d_prepared` never panic; where the output is small enough to hold,
    /// every route (the packer over the im2col layout, prepared weights, the im2col matrix's
    /// offsets) gives the definition's result; on error nothing is written.
    #[test]
    fn conv_extreme_parameters(
        c in 1usize..3, h in 1usize..5, w in 1usize..5, r in 0usize..4, s in 0usize..4,
        st in (extreme_usize(), extreme_usize()),
        pad in (extreme_usize(), extreme_usize()),
        dil in (extreme_usize(), extreme_usize()),
        nhwc in any::<bool>(),
    ) {
        let p = Conv2d { stride: [st.0, st.1], padding: [pad.0, pad.1], dilation: [dil.0, dil.1], groups: 1, relu: false };
        let xl = if nhwc {
            l(&format!("(1,{c},{h},{w}):({},1,{},{c})", c * h * w, w * c))
        } else {
            l(&format!("(1,{c},{h},{w}):({},{},{w},1)", c * h * w, h * w))
        };
        let x = Tensor::new((0..c * h * w).map(|v| (v % 7) as f32).collect(), xl).unwrap();
        let od = p.output_dims([1, c, h, w], [2, c, r, s]);
        let im = Im2col::new(&p, &xl, [r, s]);
        let (rr, ss) = (r.max(1), s.max(1));
        let wt = Tensor::new((0..2 * c * rr * ss).map(|v| (v % 3) as f32 - 1.0).collect(),
            l(&format!("(2,{c},{rr},{ss}):({},{},{ss},1)", c * rr * ss, rr * ss))).unwrap();
        let small = od.as_ref().ok().and_then(|d| d[2].checked_mul(d[3])).is_some_and(|n| n <= 64);
        match od {
            Ok(od) if small && r > 0 && s > 0 => {
                let want = conv_ref(&p, &x, &wt, od);
                let ol = l(&format!("(1,2,{},{}):({},{},{},1)", od[2], od[3], 2 * od[2] * od[3], od[2] * od[3], od[3]));
                let mut y = Tensor::new(vec![f32::NAN; want.len()], ol).unwrap();
                conv2d(&p, &x, &wt, None, &mut y).unwrap();
                prop_assert_eq!(y.as_slice(), &want[..], "conv2d");
                let pw = ConvWeights::new(&p, &xl, &wt).unwrap();
                let mut y = Tensor::new(vec![f32::NAN; want.len()], ol).unwrap();
                conv2d_prepared(Options::default(), &p, &x, &pw, None, &mut y).unwrap();
                prop_assert_eq!(y.as_slice(), &want[..], "conv2d_prepared");
                // the im2col matrix's offsets: row (oh, ow) = oh + OH·ow, column (c, r, s) —
                // where its layout over the padded input exists (a padded extent near
                // isize::MAX has no layout: the algebra refuses, an error)
                let m = match im {
                    Ok(m) => m,
                    Err(e) => {
                        prop_assert!(matches!(e, ConvError::Layout(_) | ConvError::Overflow { .. }), "{e:?}");
                        return Ok(());
                    }
                };
                prop_assert_eq!((m.rows(), m.cols()), (od[2] * od[3], c * r * s));
                for oo in 0..2 {
                    for y0 in 0..od[2] {
                        for x0 in 0..od[3] {
                            let mut acc = 0.0f32;
                            for col in 0..c * r * s {
                                let (ci, i, j) = (col % c, (col / c) % r, col / (c * r));
                                if let Some(off) = m.offset(y0 + od[2] * x0, col) {
                                    acc += x.as_slice()[off as usize] * wt[[oo as i64, ci as i64, i as i64, j as i64]];
                                }
                            }
                            prop_assert_eq!(acc, want[(oo * od[2] + y0) * od[3] + x0], "im2col");
                        }
                    }
                }
            }
            _ => {
                // an output the parameters do not give (or cannot give): refused, untouched
                let res = p.output_dims([1, c, h, w], [2, c, rr, ss]);
                let mut y = Tensor::new(vec![3.0f32; 4], l("(1,2,1,2):(4,2,2,1)")).unwrap();
                let e = conv2d(&p, &x, &wt, None, &mut y);
                if res.is_err() || res.is_ok_and(|d| d != [1, 2, 1, 2]) {
                    prop_assert!(e.is_err());
                    prop_assert_eq!(y.as_slice(), &[3.0; 4]);
                }
            }
        }
    }
}

/// Tile extents near 1, the tensor's extent, `i64::MAX` and `usize::MAX`.
fn extreme_tile(e: usize, pick: usize) -> usize {
    [
        1,
        2,
        (e - 1).max(1),
        e,
        e + 1,
        usize::MAX,
        i64::MAX as usize,
        i64::MAX as usize - 1,
        1 << 62,
        1 << 40,
    ][pick % 10]
}

/// Every tile of every tiling, smaller or predicated, against the parent tensor.
fn check_tiles(
    a: &Tensor<Vec<i32>, DynLayout>,
    dims: &[usize],
    tile: &[usize],
) -> Result<(), TestCaseError> {
    let tiles = match a.tiles(tile) {
        Ok(t) => t,
        // only a hierarchical axis the tile does not divide (or the algebra cannot divide) is
        // refused
        Err(e) => {
            prop_assert!(dims.len() == 1 && a.layout().leaf_count() > 1, "{e:?}");
            prop_assert!(
                matches!(
                    e,
                    layout::tensor::TensorError::TileSplitsAxis { .. }
                        | layout::tensor::TensorError::NotStrided { .. }
                        | layout::tensor::TensorError::Layout(_)
                ),
                "{e:?}"
            );
            return Ok(());
        }
    };
    let grid: Vec<usize> = dims
        .iter()
        .zip(tile)
        .map(|(&e, &t)| e.div_ceil(t))
        .collect();
    prop_assert_eq!(tiles.grid(), &grid[..]);
    for g in tiles.coords() {
        let g = g.to_vec();
        let valid: Vec<usize> = (0..dims.len())
            .map(|d| tile[d].min(dims[d] - g[d] * tile[d]))
            .collect();
        let small = tiles.tile(&g).unwrap();
        prop_assert_eq!(small.ndim(), dims.len());
        let p = tiles.predicated(&g).unwrap();
        prop_assert_eq!(p.valid_extents(), &valid[..]);
        prop_assert_eq!(p.extents(), tile);
        let vv = p.valid_view().unwrap();
        let n: usize = valid.iter().product();
        for k in 0..n {
            let mut c = vec![0usize; dims.len()];
            let mut rest = k;
            for d in 0..dims.len() {
                c[d] = rest % valid[d];
                rest /= valid[d];
            }
            let pc: Vec<usize> = (0..dims.len()).map(|d| g[d] * tile[d] + c[d]).collect();
            let want = a.get(&pc[..]);
            prop_assert!(want.is_some());
            prop_assert_eq!(small.get(&c[..]), want);
            prop_assert_eq!(p.get(&c[..]), want);
            prop_assert_eq!(vv.get(&c[..]), want);
        }
        // one past the valid extent along each axis is masked
        for d in 0..dims.len() {
            let mut c = vec![0usize; dims.len()];
            c[d] = valid[d];
            prop_assert_eq!(p.get(&c), None);
        }
        let cells = tile.iter().try_fold(1usize, |s, &t| s.checked_mul(t));
        match cells {
            Some(n) if n <= 4096 => {
                let m = p.mask().unwrap();
                prop_assert_eq!(
                    m.iter().filter(|&&b| b).count(),
                    valid.iter().product::<usize>()
                );
            }
            Some(n) if n < 1 << 62 => {} // allocatable in principle: not tried
            _ => prop_assert!(p.mask().is_err()),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    /// Tiles of extents near 1, the tensor's extents and `i64::MAX`, on strided tensors of
    /// rank 1 to 3 and on rank-1 hierarchical ones: grids, tiles, predicates and masks.
    #[test]
    fn tiles_with_extreme_extents(
        dims in proptest::collection::vec(1i64..6, 1..4),
        picks in proptest::collection::vec(0usize..10, 3),
        colmajor in any::<bool>(),
        hier in proptest::option::of((1i64..4, 1i64..4)),
    ) {
        if let Some((x, y)) = hier {
            let a = Tensor::new((0..(x * y) as i32).collect(), l(&format!("(({x},{y})):(({y},1))"))).unwrap();
            let tile = [extreme_tile((x * y) as usize, picks[0])];
            check_tiles(&a, &[(x * y) as usize], &tile)?;
        } else {
            let us: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
            let a = Tensor::from_fn(&us, |i| i as i32).unwrap();
            let a = if colmajor {
                let n: i64 = dims.iter().product();
                let cm = DynLayout::col_major(&layout::DynTuple::from_slice(&dims).unwrap()).unwrap();
                Tensor::new((0..n as i32).collect(), cm).unwrap()
            } else {
                a
            };
            let tile: Vec<usize> = us.iter().zip(&picks).map(|(&e, &p)| extreme_tile(e, p)).collect();
            check_tiles(&a, &us, &tile)?;
        }
    }

    /// `local_tile_predicated` with static extents near `i64::MAX`: one tile along that axis,
    /// every valid element the parent's.
    #[test]
    fn local_tile_predicated_extreme_static_extents(m in 1i64..9, n in 1i64..9, c0 in 0usize..3, c1 in 0usize..3) {
        use layout::Layout;
        let a = Tensor::new((0..m * n).collect::<Vec<i64>>(), Layout::new((m, n), (n, 1i64))).unwrap();
        macro_rules! one {
            ($mm:expr, $nn:expr) => {{
                let (tm, tn): (i64, i64) = ($mm, $nn);
                let rows = (m as i128 + tm as i128 - 1) / tm as i128;
                let cols = (n as i128 + tn as i128 - 1) / tn as i128;
                match a.local_tile_predicated::<{ $mm }, { $nn }>((c0, c1)) {
                    Ok(t) => {
                        prop_assert!((c0 as i128) < rows && (c1 as i128) < cols);
                        let (v0, v1) = t.valid_extents();
                        let (c0, c1) = (c0 as i64, c1 as i64);
                        prop_assert_eq!(v0 as i64, tm.min(m - c0 * tm));
                        prop_assert_eq!(v1 as i64, tn.min(n - c1 * tn));
                        for i in 0..v0 {
                            for j in 0..v1 {
                                let (ii, jj) = (i as i64, j as i64);
                                prop_assert_eq!(t.get((i, j)), Some(&((c0 * tm + ii) * n + c1 * tn + jj)));
                            }
                        }
                        prop_assert_eq!(t.get((v0, 0)), None);
                        prop_assert_eq!(t.get((0, v1)), None);
                    }
                    Err(_) => prop_assert!((c0 as i128) >= rows || (c1 as i128) >= cols),
                }
            }};
        }
        one!(i64::MAX, 4);
        one!(4, i64::MAX);
        one!(i64::MAX, i64::MAX);
        one!(1 << 62, 1);
        one!(3, i64::MAX - 1);
    }

    /// `zipped_divide` / `tiled_divide` of a sliced view: accepted exactly when the tiler
    /// divides, and then the result holds exactly the view's elements.
    #[test]
    fn divide_views_exactly(r0 in 0usize..4, r1 in 1usize..5, c0 in 0usize..8, c1 in 1usize..9, t0 in 1i64..10, t1 in 1i64..10) {
        let (r1, c1) = ((r0 + r1).min(4), (c0 + c1).min(8));
        prop_assume!(r1 > r0 && c1 > c0);
        let a = Tensor::from_fn(&[4, 8], |i| i as i32).unwrap();
        let v = a.view().slice(&layout::tensor::s![r0 as i64..r1 as i64, c0 as i64..c1 as i64]).unwrap();
        let (er, ec) = ((r1 - r0) as i64, (c1 - c0) as i64);
        let tiler: layout::Tile = format!("[{t0},{t1}]").parse().unwrap();
        let divides = er % t0 == 0 && ec % t1 == 0;
        let mut want: Vec<i32> = v.iter().copied().collect();
        want.sort_unstable();
        for z in [v.zipped_divide(&tiler), v.tiled_divide(&tiler)] {
            match z {
                Ok(z) => {
                    prop_assert!(divides, "{} accepted {}×{} by [{}, {}]", z.layout(), er, ec, t0, t1);
                    let mut got: Vec<i32> = z.iter().copied().collect();
                    got.sort_unstable();
                    prop_assert_eq!(&got, &want);
                }
                Err(e) => prop_assert!(!divides, "{e}"),
            }
        }
    }
}

/// `f16` scales at the limits: zeros, the smallest subnormal and normal, one, the largest
/// finite, ±∞ and NaN (as bits).
fn extreme_f16() -> impl Strategy<Value = u16> {
    prop_oneof![
        Just(0x0000u16),
        Just(0x8000),
        Just(0x0001),
        Just(0x0400),
        Just(0x3c00),
        Just(0xbc00),
        Just(0x7bff),
        Just(0xfbff),
        Just(0x7c00),
        Just(0xfc00),
        Just(0x7e00),
        any::<u16>(),
    ]
}

/// `f32` scales at the limits.
fn extreme_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        Just(0.0f32),
        Just(-0.0),
        Just(f32::from_bits(1)),
        Just(f32::MIN_POSITIVE),
        Just(3e-39),
        Just(1.0),
        Just(-0.75),
        Just(1e38),
        Just(f32::MAX),
        Just(-f32::MAX),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(f32::NAN),
        -4.0f32..4.0,
    ]
}

/// Activations: bounded (no sum of finite terms can overflow) with, rarely, ±∞ and NaN.
fn activation(bound: f32) -> impl Strategy<Value = f32> {
    prop_oneof![
        20 => (-1.0f32..1.0).prop_map(move |v| v * bound),
        2 => Just(0.0f32),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(f32::NAN),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// GGUF blocks with scales at the `f16` limits and random codes: `gemm_quant` (decode shape
    /// and blocked) on every instruction set and the naive sum give one answer.
    #[test]
    fn gguf_routes_agree(
        q8 in any::<bool>(),
        kb in 1usize..3, n in 1usize..10, m in prop_oneof![Just(1usize), Just(3), Just(8), Just(9), Just(17)],
        ds in proptest::collection::vec(extreme_f16(), 18),
        codes in proptest::collection::vec(any::<u8>(), 18 * 32),
        xs in proptest::collection::vec(activation(1000.0), 17 * 64),
    ) {
        let k = 32 * kb;
        let x = &xs[..m * k];
        let per = if q8 { 34 } else { 18 };
        let mut bytes = Vec::new();
        for b in 0..n * kb {
            bytes.extend(ds[b].to_le_bytes());
            bytes.extend(&codes[b * 32..b * 32 + per - 2]);
        }
        let routes = if q8 {
            let q = Q8_0Matrix::from_bytes(k, n, &bytes).unwrap();
            let r = every_route(&q, m, x);
            agree(&r, &magnitudes(&q, m, x), 2e-5)
        } else {
            let q = Q4_0Matrix::from_bytes(k, n, &bytes).unwrap();
            let r = every_route(&q, m, x);
            agree(&r, &magnitudes(&q, m, x), 2e-5)
        };
        prop_assert!(routes.is_ok(), "{}", routes.unwrap_err());
    }

    /// GPTQ/AWQ matrices with scales at the `f32` limits and zero offsets at the `i32` limits:
    /// every route gives one answer (the decode kernels never factor a scale whose weights
    /// overflow, and recompute non-finite sums weight by weight).
    #[test]
    fn group4_routes_agree(
        gptq in any::<bool>(),
        kg in 1usize..3, n8 in 1usize..3, m in prop_oneof![Just(1usize), Just(8), Just(9)],
        offset in prop_oneof![Just(0i32), Just(1), Just(-5), Just((1 << 24) + 1), Just(i32::MAX), Just(i32::MIN)],
        scales in proptest::collection::vec(extreme_f32(), 2 * 16),
        codes in proptest::collection::vec(0u8..16, 64 * 16),
        zs in proptest::collection::vec(0u8..16, 2 * 16),
        xs in proptest::collection::vec(activation(1.0 / 256.0), 9 * 64),
    ) {
        let (k, n) = (32 * kg, 8 * n8);
        let groups = kg;
        let (quant, fmt) = if gptq {
            (GroupQuant::new(l(&format!("({k},{n}):(1,{k})")), 32, offset).unwrap(), PackedFormat::gptq())
        } else {
            (GroupQuant::new(l(&format!("({k},{n}):({n},1)")), 32, offset).unwrap(), PackedFormat::awq())
        };
        let w = PackedVec::from_values(fmt, &codes[..k * n]).unwrap();
        let z = PackedVec::from_values(fmt, &zs[..groups * n]).unwrap();
        let g = Group4Matrix::new(quant, w, scales[..groups * n].to_vec(), z).unwrap();
        let x = &xs[..m * k];
        let r = every_route(&g, m, x);
        let res = agree(&r, &magnitudes(&g, m, x), 2e-5);
        prop_assert!(res.is_ok(), "{}", res.unwrap_err());
    }

    /// The GGUF quantisers on blocks at the `f32` limits: finite input is quantised (or its
    /// scale refused above 65504 as documented), never a panic, and every stored value is
    /// within half a step of the input.
    #[test]
    fn gguf_quantisers_at_the_limits(
        vals in proptest::collection::vec(prop_oneof![
            Just(0.0f32), Just(-0.0), Just(f32::from_bits(1)), Just(-f32::from_bits(1)), Just(1e-38), Just(f32::MIN_POSITIVE),
            Just(f32::MAX), Just(-f32::MAX), Just(524032.0), Just(-524033.0), Just(8319008.0), -10.0f32..10.0,
        ], 32),
    ) {
        let amax = vals.iter().fold(0.0f32, |a, v| a.max(v.abs()));
        match quantize_q8_0(32, 1, &vals) {
            Ok(q) => {
                prop_assert!(amax <= 127.0 * 65504.0);
                let d = q.blocks()[0].d.to_f32();
                for (p, &v) in vals.iter().enumerate() {
                    let got = q.get(p, 0).unwrap();
                    prop_assert!((got - v).abs() <= d * 0.5 * 1.01 + (amax / 127.0 - d).abs() * 127.0 + 1e-30, "{} vs {}", got, v);
                }
            }
            Err(e) => prop_assert!(amax > 127.0 * 65504.0, "{e}"),
        }
        match quantize_q4_0(32, 1, &vals) {
            Ok(_) => prop_assert!(amax <= 8.0 * 65504.0),
            Err(e) => prop_assert!(amax > 8.0 * 65504.0, "{e}"),
        }
    }
}
