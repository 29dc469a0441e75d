//! Blocked and interleaved layouts against the closed-form offset formulas of oneDNN and
//! CUTLASS.

use layout::named::blocked::{
    ColumnMajorInterleaved, NChwc, Nc1hwc0, OIhwIo, RowMajorInterleaved, column_major_interleaved,
    column_major_interleaved_packed, make_nc1hwc0_layout, nchw_blocked, nchw8c, nchw16c,
    oihw_blocked, oihw16i16o, row_major_interleaved, row_major_interleaved_packed,
};
use layout::named::{Padded, f16};
use layout::tensor::Tensor;
use layout::{DynLayout, DynTuple};

fn at(l: &DynLayout, c: &[i64]) -> i64 {
    l.offset_of(&DynTuple::from_slice(c).unwrap()).unwrap()
}

fn up(x: i64, b: i64) -> i64 {
    (x + b - 1) / b * b
}

/// Every coordinate of the padded domain: offsets as the formula says, and a bijection onto
/// `[0, padded size)`.
fn check4(l: &DynLayout, ext: [i64; 4], f: impl Fn([i64; 4]) -> i64) {
    let mut seen = vec![false; l.size() as usize];
    assert_eq!(l.size(), ext.iter().product::<i64>(), "{l}");
    for a in 0..ext[0] {
        for b in 0..ext[1] {
            for c in 0..ext[2] {
                for d in 0..ext[3] {
                    let o = at(l, &[a, b, c, d]);
                    assert_eq!(o, f([a, b, c, d]), "{l} at ({a},{b},{c},{d})");
                    assert!(!std::mem::replace(&mut seen[o as usize], true));
                }
            }
        }
    }
}

#[test]
fn nchw_blocked_matches_onednn_and_cutlass_formulas() {
    for (n, c, h, w) in [(2, 17, 2, 3), (1, 16, 1, 1), (3, 5, 4, 2), (2, 40, 3, 3)] {
        for blk in [8, 16, 4] {
            let l = nchw_blocked(n, c, h, w, blk).unwrap();
            let cp = up(c, blk);
            // oneDNN: n·C_p·HW + (c/B)·HW·B + h·W·B + w·B + c%B
            check4(&l, [n, cp, h, w], |[a, b, y, x]| {
                a * cp * h * w + (b / blk) * h * w * blk + y * w * blk + x * blk + b % blk
            });
            // CUTLASS TensorNCxHWx<I>: c%I + w·I + h·s0 + (c/I)·s1 + n·s2, packed strides
            let (s0, s1) = (w * blk, h * w * blk);
            let s2 = (cp / blk) * s1;
            check4(&l, [n, cp, h, w], |[a, b, y, x]| {
                b % blk + x * blk + y * s0 + (b / blk) * s1 + a * s2
            });
        }
    }
    assert_eq!(
        nchw8c(2, 17, 2, 3).unwrap(),
        nchw_blocked(2, 17, 2, 3, 8).unwrap()
    );
    assert_eq!(
        nchw16c(2, 17, 2, 3).unwrap(),
        nchw_blocked(2, 17, 2, 3, 16).unwrap()
    );
    // the reference's worked values: nChw16c, N=2, C=17, H=2, W=3
    let l = nchw16c(2, 17, 2, 3).unwrap();
    assert_eq!(at(&l, &[0, 16, 0, 0]), 96);
    assert_eq!(at(&l, &[1, 0, 0, 0]), 192);
    assert_eq!(at(&l, &[0, 1, 1, 2]), 81);
    // NC1HWC0 = nChw{C0}c
    assert_eq!(
        make_nc1hwc0_layout::<f16>(2, 20, 3, 3).unwrap(),
        nchw_blocked(2, 20, 3, 3, 16).unwrap()
    );
    assert_eq!(
        make_nc1hwc0_layout::<i8>(2, 20, 3, 3).unwrap(),
        nchw_blocked(2, 20, 3, 3, 32).unwrap()
    );
    assert!(nchw_blocked(2, 0, 3, 3, 8).is_err());
    assert!(nchw_blocked(2, 3, 3, 3, 0).is_err());
    assert!(nchw_blocked(i64::MAX, 3, 3, 3, 8).is_err());
}

#[test]
fn oihw_blocked_matches_onednn_formula() {
    for (o, i, h, w) in [(32, 32, 1, 1), (20, 17, 2, 3), (16, 48, 3, 1)] {
        for (bi, bo) in [(16, 16), (8, 4), (4, 8)] {
            let l = oihw_blocked(o, i, h, w, bi, bo).unwrap();
            let (op, ip) = (up(o, bo), up(i, bi));
            let i1 = ip / bi;
            // ((((o/Bo)·I1 + i/Bi)·H + h)·W + w)·Bi·Bo + (i%Bi)·Bo + o%Bo
            check4(&l, [op, ip, h, w], |[a, b, y, x]| {
                ((((a / bo) * i1 + b / bi) * h + y) * w + x) * bi * bo + (b % bi) * bo + a % bo
            });
        }
    }
    let l = oihw16i16o(32, 32, 1, 1).unwrap();
    assert_eq!(at(&l, &[1, 0, 0, 0]), 1);
    assert_eq!(at(&l, &[0, 1, 0, 0]), 16);
    assert_eq!(at(&l, &[16, 0, 0, 0]), 512);
    assert_eq!(at(&l, &[0, 16, 0, 0]), 256);
}

#[test]
fn interleaved_match_cutlass_formulas() {
    for (rows, cols) in [(8, 6), (7, 5), (32, 3), (1, 1)] {
        for il in [1, 2, 4, 32] {
            let l = row_major_interleaved_packed(il, rows, cols).unwrap();
            let ld = cols * il;
            let rp = up(rows, il);
            let mut seen = vec![false; (rp * cols) as usize];
            for r in 0..rp {
                for c in 0..cols {
                    let o = at(&l, &[r, c]);
                    assert_eq!(o, (r / il) * ld + c * il + r % il, "{l} ({r},{c})");
                    assert!(!std::mem::replace(&mut seen[o as usize], true));
                }
            }
            let l = column_major_interleaved_packed(il, rows, cols).unwrap();
            let ld = rows * il;
            let cp = up(cols, il);
            for r in 0..rows {
                for c in 0..cp {
                    assert_eq!(
                        at(&l, &[r, c]),
                        (c / il) * ld + r * il + c % il,
                        "{l} ({r},{c})"
                    );
                }
            }
        }
    }
    // a leading dimension with a gap
    let l = row_major_interleaved(4, 8, 3, 20).unwrap();
    assert_eq!(at(&l, &[5, 2]), 20 + 2 * 4 + 1);
    let l = column_major_interleaved(4, 3, 8, 16).unwrap();
    assert_eq!(at(&l, &[2, 5]), 16 + 2 * 4 + 1);
    assert!(row_major_interleaved(0, 8, 3, 20).is_err());
}

#[test]
fn static_blocked_equal_run_time() {
    assert_eq!(
        NChwc::<8, 2, 17, 2, 3>::LAYOUT,
        nchw8c(2, 17, 2, 3).unwrap()
    );
    assert_eq!(
        NChwc::<16, 2, 17, 2, 3>::LAYOUT,
        nchw16c(2, 17, 2, 3).unwrap()
    );
    assert_eq!(
        Nc1hwc0::<f32, 1, 9, 2, 2>::LAYOUT,
        make_nc1hwc0_layout::<f32>(1, 9, 2, 2).unwrap()
    );
    assert_eq!(
        OIhwIo::<16, 16, 32, 32, 3, 3>::LAYOUT,
        oihw16i16o(32, 32, 3, 3).unwrap()
    );
    assert_eq!(
        RowMajorInterleaved::<4, 8, 6>::LAYOUT,
        row_major_interleaved_packed(4, 8, 6).unwrap()
    );
    assert_eq!(
        ColumnMajorInterleaved::<32, 8, 64>::LAYOUT,
        column_major_interleaved_packed(32, 8, 64).unwrap()
    );
    assert_eq!(core::mem::size_of::<NChwc<8, 2, 17, 2, 3>>(), 0);
}

#[test]
fn nchw_to_padded_nchw8c_and_back() {
    // C = 17 with 8c: C_p = 24, the channel tail zero-filled as oneDNN requires
    let (n, c, h, w) = (2, 17, 2, 3);
    let p = Padded::new(
        nchw8c(n, c, h, w).unwrap(),
        &[n as usize, c as usize, h as usize, w as usize],
    )
    .unwrap();
    let nchw = Tensor::from_fn(&[n as usize, c as usize, h as usize, w as usize], |i| {
        i as i32 + 1
    })
    .unwrap();
    let t = p.pad_from(&nchw, 0).unwrap();
    let buf = t.as_slice();
    assert_eq!(buf.len() as i64, n * 24 * h * w);
    for a in 0..n {
        for b in 0..24 {
            for y in 0..h {
                for x in 0..w {
                    let pos =
                        (a * 24 * h * w + (b / 8) * h * w * 8 + y * w * 8 + x * 8 + b % 8) as usize;
                    let want = if b < c {
                        (((a * c + b) * h + y) * w + x) as i32 + 1
                    } else {
                        0
                    };
                    assert_eq!(buf[pos], want, "({a},{b},{y},{x})");
                }
            }
        }
    }
    assert!(p.crop_to_nd(&t).unwrap().iter().eq(nchw.iter()));
}

#[test]
fn block_linear_matches_cutlass_and_the_seed() {
    use layout::named::blocked::{column_major_block_linear, row_major_block_linear};
    for (rows, cols) in [(8, 12), (7, 9), (32, 4), (1, 1)] {
        for (br, bc) in [(2, 4), (4, 2), (3, 5), (1, 1)] {
            let (r1, c1) = ((rows + br - 1) / br, (cols + bc - 1) / bc);
            // row-major blocks, packed: the seed's (bi·nb + bj)·BR·BC + r·BC + c
            let ld = br * bc * c1;
            let l = row_major_block_linear(br, bc, rows, cols, ld).unwrap();
            let mut seen = std::collections::HashSet::new();
            for r in 0..r1 * br {
                for c in 0..c1 * bc {
                    let o = at(&l, &[r, c]);
                    assert_eq!(
                        o,
                        c % bc + (r % br) * bc + (c / bc) * br * bc + (r / br) * ld
                    );
                    assert_eq!(
                        o,
                        ((r / br) * c1 + c / bc) * br * bc + (r % br) * bc + c % bc
                    );
                    assert!(seen.insert(o));
                }
            }
            let ld = br * bc * r1;
            let l = column_major_block_linear(br, bc, rows, cols, ld).unwrap();
            for r in 0..r1 * br {
                for c in 0..c1 * bc {
                    let o = at(&l, &[r, c]);
                    assert_eq!(
                        o,
                        r % br + (c % bc) * br + (r / br) * br * bc + (c / bc) * ld
                    );
                }
            }
        }
    }
    assert!(row_major_block_linear(0, 2, 4, 4, 8).is_err());
}
