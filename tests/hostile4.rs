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

// ---------------------------------------------------------------------------------------------
// Defects 6–10: tiling

/// Defect 6: a tile extent near `i64::MAX` overflowed the grid; now one tile holds the tensor.
#[test]
fn d06_tiles_with_huge_extent_give_one_tile() {
    let a = Tensor::from_fn(&[100], |i| i as i32).unwrap();
    for t in [i64::MAX, i64::MAX - 1, 1 << 62, 101, 100] {
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
    let tiles = b.tiles(&[i64::MAX, 4]).unwrap();
    assert_eq!(tiles.grid(), &[1, 2]);
    let t = tiles.tile(&[0, 1]).unwrap();
    assert_eq!(t.shape().leaves(), &[10, 3]);
    assert_eq!(t.get([9, 2]), Some(&69));
}

/// Defect 7: `Predicated::mask` panicked for a tile too large to allocate; it is an error.
#[test]
fn d07_mask_of_a_huge_tile_is_an_error_not_a_panic() {
    let a = Tensor::from_fn(&[100], |i| i as u8).unwrap();
    for t in [1i64 << 62, i64::MAX] {
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

use layout::gemm::{MatMut, MatRef, gemm_quant, qgemv};
use layout::packed::{
    Group4Matrix, GroupQuant, PackedError, PackedFormat, PackedVec, Q4_0Matrix, Q8_0Matrix,
    QuantRef, QuantizedB, dequantize, quantize_q4_0, quantize_q8_0,
};

/// `y = x·B` (row-major `m × k` times `k × n`) on every route: `qgemv`, `gemm_quant` with the
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
        let mut y = vec![f32::NAN; m * n];
        qgemv(opts, m, 1.0, x, q, 0.0, &mut y).unwrap();
        out.push((format!("qgemv {isa:?}"), y));
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
