//! Every element pair of the one GEMM entry (`gemm::gemm` on tensors, `gemm_with` on strided
//! matrices): f32, f64, bf16 → f32, f16 → f32, u8/i8 × u8/i8 → i32, on random blocked layouts,
//! NZ/ZN fractals, swizzled and strided operands, every instruction set, one and two threads,
//! against the product read through tensor indexing and summed exactly in i64. The data are
//! small integers, so every pair is exact (the 16-bit floats hold them exactly; products and
//! sums stay below 2²⁴).

#[path = "support/mod.rs"]
mod support;

use half::{bf16, f16};
use layout::gemm::{self, Isa, MatMut, MatRef, Options, Packing, Pair};
use layout::named::{make_nz_layout, make_zn_layout};
use layout::tensor::{Tensor, TensorIndex};
use layout::{AnyLayout, DynLayout, Sw, SwizzledLayout};
use support::Seeded;

/// A value type of the tests: made from a small integer, read back as one.
trait Val: Copy + Default + core::fmt::Debug {
    fn of(x: i64) -> Self;
    fn int(self) -> i64;
}

macro_rules! val {
    ($t:ty, $of:expr, $int:expr) => {
        impl Val for $t {
            fn of(x: i64) -> Self {
                $of(x)
            }
            fn int(self) -> i64 {
                $int(self)
            }
        }
    };
}
val!(f32, |x| x as f32, |v: f32| v as i64);
val!(f64, |x| x as f64, |v: f64| v as i64);
val!(bf16, |x| bf16::from_f32(x as f32), |v: bf16| v.to_f32()
    as i64);
val!(f16, |x| f16::from_f32(x as f32), |v: f16| v.to_f32() as i64);
val!(u8, |x: i64| x as u8, i64::from);
val!(i8, |x: i64| x as i8, i64::from);
val!(i32, |x: i64| x as i32, i64::from);

fn span<L: AnyLayout>(l: &L) -> usize {
    l.offset_bounds().unwrap().1 as usize + 1
}

/// Random values for one operand type: the full range for 8-bit integers, [-8, 8] otherwise.
fn values<T: Val>(rng: &mut Seeded, len: usize, lo: i64, hi: i64) -> Vec<T> {
    (0..len).map(|_| T::of(rng.range(lo, hi))).collect()
}

#[allow(clippy::too_many_arguments)]
fn check<TA, TB, LA, LB, LC>(
    rng: &mut Seeded,
    range_a: (i64, i64),
    range_b: (i64, i64),
    la: LA,
    lb: LB,
    lc: LC,
    alpha: i64,
    beta: i64,
) where
    TA: Pair<TB> + Val,
    TB: Val,
    TA::Out: Val,
    LA: AnyLayout + core::fmt::Display,
    LB: AnyLayout + core::fmt::Display,
    LC: AnyLayout + core::fmt::Display,
    [i64; 2]: TensorIndex<LA> + TensorIndex<LB> + TensorIndex<LC>,
{
    let size = |d: layout::DynTuple, i| d.mode(i).unwrap().size().unwrap();
    let (m, k, n) = (
        size(la.domain(), 0),
        size(la.domain(), 1),
        size(lb.domain(), 1),
    );
    let a: Vec<TA> = values(rng, span(&la), range_a.0, range_a.1);
    let b: Vec<TB> = values(rng, span(&lb), range_b.0, range_b.1);
    let c: Vec<TA::Out> = values(rng, span(&lc), -50, 50);
    let ta = Tensor::new(&a[..], la).unwrap();
    let tb = Tensor::new(&b[..], lb).unwrap();
    let tc0 = Tensor::new(&c[..], lc).unwrap();
    let want = |i: i64, j: i64| {
        let s: i64 = (0..k).map(|p| ta[[i, p]].int() * tb[[p, j]].int()).sum();
        alpha * s + beta * tc0[[i, j]].int()
    };
    for isa in Isa::available() {
        for threads in [1, 2] {
            let mut c2 = c.clone();
            let mut tc = Tensor::new(&mut c2[..], lc).unwrap();
            let opts = Options {
                isa,
                threads,
                packing: Packing::Always,
            };
            let (al, be) = (TA::Out::of(alpha), TA::Out::of(beta));
            gemm::gemm_tensors_with(opts, al, &ta, &tb, be, &mut tc).unwrap();
            for i in 0..m {
                for j in 0..n {
                    assert_eq!(
                        tc[[i, j]].int(),
                        want(i, j),
                        "{} × {}: {la} × {lb} → {lc} ({isa:?}, {threads} threads) at ({i},{j})",
                        core::any::type_name::<TA>(),
                        core::any::type_name::<TB>(),
                    );
                }
            }
            untouched_outside(&lc, m * n, &c2, &c);
        }
    }
}

/// The elements of C's buffer outside its layout (of `size` elements) kept their values.
fn untouched_outside<L: AnyLayout + core::fmt::Display, T: Val>(
    lc: &L,
    size: i64,
    got: &[T],
    was: &[T],
) {
    let mut inside = vec![false; got.len()];
    for x in 0..size {
        inside[lc.offset(x) as usize] = true;
    }
    for (x, (g, w)) in got.iter().zip(was).enumerate() {
        if !inside[x] {
            assert_eq!(g.int(), w.int(), "{lc}: offset {x} written");
        }
    }
}

fn rm(r: i64, c: i64) -> DynLayout {
    format!("({r},{c}):({c},1)").parse().unwrap()
}

fn cm(r: i64, c: i64) -> DynLayout {
    format!("({r},{c}):(1,{r})").parse().unwrap()
}

/// Random blocked layout of `rows × cols` (both modes split, leaves in a random order, a gap).
fn blocked(rng: &mut Seeded, rows: i64, cols: i64) -> DynLayout {
    let divisor = |rng: &mut Seeded, e: i64| {
        let ds: Vec<i64> = (1..=e).filter(|d| e % d == 0).collect();
        ds[rng.below(ds.len() as u64) as usize]
    };
    let (br, bc) = (divisor(rng, rows), divisor(rng, cols));
    let ext = [br, rows / br, bc, cols / bc];
    let mut order = [0usize, 1, 2, 3];
    rng.shuffle(&mut order);
    let mut stride = [0i64; 4];
    let mut next = 1;
    for &leaf in &order {
        stride[leaf] = next;
        next = next * ext[leaf] + rng.range(0, 2);
    }
    format!(
        "(({},{}),({},{})):(({},{}),({},{}))",
        ext[0], ext[1], ext[2], ext[3], stride[0], stride[1], stride[2], stride[3]
    )
    .parse()
    .unwrap()
}

/// All pairs on one set of layouts (C's element differs per pair, its layout does not).
fn all_pairs<LA, LB, LC>(rng: &mut Seeded, la: LA, lb: LB, lc: LC, alpha: i64, beta: i64)
where
    LA: AnyLayout + core::fmt::Display,
    LB: AnyLayout + core::fmt::Display,
    LC: AnyLayout + core::fmt::Display,
    [i64; 2]: TensorIndex<LA> + TensorIndex<LB> + TensorIndex<LC>,
{
    let small = (-8, 9);
    check::<f32, f32, _, _, _>(rng, small, small, la, lb, lc, alpha, beta);
    check::<f64, f64, _, _, _>(rng, small, small, la, lb, lc, alpha, beta);
    check::<bf16, bf16, _, _, _>(rng, small, small, la, lb, lc, alpha, beta);
    check::<f16, f16, _, _, _>(rng, small, small, la, lb, lc, alpha, beta);
    // the integer pairs over their whole ranges
    let (u, s) = ((0, 256), (-128, 128));
    check::<u8, i8, _, _, _>(rng, u, s, la, lb, lc, alpha, beta);
    check::<i8, i8, _, _, _>(rng, s, s, la, lb, lc, alpha, beta);
    check::<u8, u8, _, _, _>(rng, u, u, la, lb, lc, alpha, beta);
    check::<i8, u8, _, _, _>(rng, s, u, la, lb, lc, alpha, beta);
}

#[test]
fn every_pair_on_strided_operands() {
    let mut rng = Seeded(11);
    // shapes crossing the tiles (16×6, 32×12, 4×4) and the k blocking (odd k, k > 512)
    for (m, k, n) in [(1, 1, 1), (17, 5, 7), (33, 515, 13), (40, 64, 1)] {
        all_pairs(&mut rng, rm(m, k), rm(k, n), rm(m, n), 1, 0);
        all_pairs(&mut rng, cm(m, k), rm(k, n), cm(m, n), 2, -1);
        all_pairs(&mut rng, rm(m, k), cm(k, n), cm(m, n), -1, 3);
    }
}

#[test]
fn every_pair_on_blocked_fractal_and_swizzled_layouts() {
    let mut rng = Seeded(12);
    for (m, k, n) in [(24, 40, 18), (35, 9, 21)] {
        let (la, lb, lc) = (
            blocked(&mut rng, m, k),
            blocked(&mut rng, k, n),
            blocked(&mut rng, m, n),
        );
        all_pairs(&mut rng, la, lb, lc, 1, 1);
    }
    // Ascend fractals (C0 of the 8-bit type: 32; of the 16-bit: 16) and a swizzled operand
    let nz = |r, c| make_nz_layout::<u8>(r, c).unwrap();
    let zn = |r, c| make_zn_layout::<u8>(r, c).unwrap();
    all_pairs(&mut rng, nz(32, 64), zn(64, 32), nz(32, 32), 1, 0);
    // C of 8-element runs (C0 of a 4-byte type), stored from the tiles' row vectors
    let nz4 = make_nz_layout::<i32>(32, 32).unwrap();
    all_pairs(&mut rng, nz(32, 64), zn(64, 32), nz4, 2, -1);
    let sw = SwizzledLayout::new(Sw::<2, 0, 3>, 0i64, rm(16, 32));
    all_pairs(&mut rng, sw, cm(32, 8), rm(16, 8), 1, -2);
}

/// Fractal layouts of any fractal size: NZ-like `((R, mb), (C0, kb)) : ((C0, R·C0), (1, R·C0·mb))`
/// (fractals of R rows by C0 contiguous columns) and ZN-like `((C0, kb), (R, nb)) : ((1,
/// R·C0·nb), (C0, R·C0))` (its transpose), with R and C0 not multiples of 8 (1, odd) beside
/// Ascend's (16 × 32 for 8-bit types, 16 × 16 for 16-bit ones), under a C of the same kind and
/// a column-major one (the engine's swap either way): the mapped packers' register squares,
/// with rows and k steps left over on every side, against the definition — every pair,
/// instruction set and thread count, nothing outside C written. Run once more with
/// `LAYOUT_GEMM_VNNI=off` for the AVX2 quad tiles (16 × 4 and 16 × 6 panels).
#[test]
fn every_pair_on_fractals_of_any_size() {
    let mut rng = Seeded(17);
    let nzlike = |r: i64, mb: i64, c0: i64, kb: i64| -> DynLayout {
        format!(
            "(({r},{mb}),({c0},{kb})):(({c0},{}),(1,{}))",
            r * c0,
            r * c0 * mb
        )
        .parse()
        .unwrap()
    };
    let znlike = |c0: i64, kb: i64, r: i64, nb: i64| -> DynLayout {
        format!(
            "(({c0},{kb}),({r},{nb})):((1,{}),({c0},{}))",
            r * c0 * nb,
            r * c0
        )
        .parse()
        .unwrap()
    };
    for (r, c0, mb, kb, nb) in [
        (1, 1, 1, 1, 1),
        (16, 32, 1, 2, 1),
        (16, 16, 1, 2, 2),
        (17, 11, 1, 3, 1),
        (9, 24, 2, 1, 3),
        (13, 40, 1, 1, 2),
        (8, 8, 1, 1, 1),
    ] {
        let (a, b) = (nzlike(r, mb, c0, kb), znlike(c0, kb, r, nb));
        all_pairs(&mut rng, a, b, nzlike(r, mb, r, nb), 1, 0);
        all_pairs(&mut rng, a, b, cm(r * mb, r * nb), -2, 3);
        // A ZN-like and B NZ-like: each operand's runs on the other side of the kernel
        let (a, b) = (znlike(r, mb, c0, kb), nzlike(c0, kb, r, nb));
        all_pairs(&mut rng, a, b, cm(r * mb, r * nb), 1, 1);
        all_pairs(&mut rng, a, b, rm(r * mb, r * nb), 1, -1);
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
    /// [`every_pair_on_fractals_of_any_size`] for f16 and u8 × i8 on random fractal sizes and
    /// counts (the mapped packers' squares and leftovers at random places).
    #[test]
    fn half_and_int8_fractals_match_the_definition(
        r in 1i64..20, c0 in 1i64..40, mb in 1i64..3, kb in 1i64..4, nb in 1i64..3, seed in 0u64..1000,
    ) {
        let mut rng = Seeded(seed);
        let nzlike = |r: i64, mb: i64, c0: i64, kb: i64| -> DynLayout {
            format!("(({r},{mb}),({c0},{kb})):(({c0},{}),(1,{}))", r * c0, r * c0 * mb)
                .parse()
                .unwrap()
        };
        let znlike = |c0: i64, kb: i64, r: i64, nb: i64| -> DynLayout {
            format!("(({c0},{kb}),({r},{nb})):((1,{}),({c0},{}))", r * c0 * nb, r * c0)
                .parse()
                .unwrap()
        };
        let (a, b, c) = (nzlike(r, mb, c0, kb), znlike(c0, kb, r, nb), nzlike(r, mb, r, nb));
        let small = (-8, 9);
        check::<f16, f16, _, _, _>(&mut rng, small, small, a, b, c, 1, -1);
        check::<u8, i8, _, _, _>(&mut rng, (0, 256), (-128, 128), a, b, c, 1, 0);
    }
}

/// u8 × i8 on Ascend fractals (A NZ, B ZN with 32-byte runs, C NZ of `i32` with 8-element runs)
/// and on blocked layouts with gaps, on every instruction set: A's range is measured through
/// the maps (a 7-bit A takes `vpmaddubsw`; one planted pair of 255s against B = −128 must be
/// found by the scan wherever it lies, or `vpmaddubsw` would saturate on it and the sum be
/// wrong), its k runs are packed as whole quads, and C's 8-element runs are stored from the
/// registers.
#[test]
fn int8_fractals_measure_and_pack_every_element() {
    let mut rng = Seeded(13);
    for (m, k, n) in [(32, 64, 32), (48, 96, 48), (16, 32, 16), (64, 160, 80)] {
        let la = make_nz_layout::<u8>(m, k).unwrap();
        let lb = make_zn_layout::<i8>(k, n).unwrap();
        let lc = make_nz_layout::<i32>(m, n).unwrap();
        mapped_int8(&mut rng, la, lb, lc);
    }
    for (m, k, n) in [(24, 40, 18), (35, 72, 21), (16, 36, 16)] {
        let (la, lb, lc) = (
            blocked(&mut rng, m, k),
            blocked(&mut rng, k, n),
            blocked(&mut rng, m, n),
        );
        mapped_int8(&mut rng, la, lb, lc);
    }
}

/// [`int8_fractals_measure_and_pack_every_element`] on one set of layouts.
fn mapped_int8<LA, LB, LC>(rng: &mut Seeded, la: LA, lb: LB, lc: LC)
where
    LA: AnyLayout + core::fmt::Display,
    LB: AnyLayout + core::fmt::Display,
    LC: AnyLayout + core::fmt::Display,
    [i64; 2]: TensorIndex<LA> + TensorIndex<LB> + TensorIndex<LC>,
{
    let size = |d: layout::DynTuple, i| d.mode(i).unwrap().size().unwrap();
    let (m, k, n) = (
        size(la.domain(), 0),
        size(la.domain(), 1),
        size(lb.domain(), 1),
    );
    for plant in [false, true] {
        let mut a: Vec<u8> = values(rng, span(&la), 0, 128);
        let b: Vec<i8> = if plant {
            vec![-128; span(&lb)]
        } else {
            values(rng, span(&lb), -128, 128)
        };
        if plant {
            let (i, p) = (rng.range(0, m), rng.range(0, k / 2) * 2);
            for q in [p, p + 1] {
                a[la.offset(i + m * q) as usize] = 255;
            }
        }
        let ta = Tensor::new(&a[..], la).unwrap();
        let tb = Tensor::new(&b[..], lb).unwrap();
        for isa in Isa::available() {
            for threads in [1, 2] {
                let c0: Vec<i32> = values(rng, span(&lc), -50, 50);
                let mut c = c0.clone();
                let mut tc = Tensor::new(&mut c[..], lc).unwrap();
                let opts = Options {
                    isa,
                    threads,
                    packing: Packing::Auto,
                };
                gemm::gemm_tensors_with(opts, 1, &ta, &tb, 0, &mut tc).unwrap();
                for i in 0..m {
                    for j in 0..n {
                        let s: i64 = (0..k).map(|p| ta[[i, p]].int() * tb[[p, j]].int()).sum();
                        assert_eq!(
                            tc[[i, j]].int(),
                            s,
                            "{la} × {lb} → {lc} ({isa:?}, {threads} threads, planted {plant}) at ({i},{j})"
                        );
                    }
                }
                untouched_outside(&lc, m * n, &c, &c0);
            }
        }
    }
}

/// The strided-matrix entry takes the same pairs.
#[test]
fn gemm_with_takes_every_pair() {
    let a: Vec<u8> = (0..12).map(|x| (x * 23 % 256) as u8).collect();
    let b: Vec<i8> = (0..12).map(|x| (x * 37 % 256) as u8 as i8).collect();
    let mut c = [0i32; 9];
    gemm::gemm_with(
        Options::default(),
        1,
        MatRef {
            data: &a,
            rows: 3,
            cols: 4,
            row_stride: 4,
            col_stride: 1,
        },
        MatRef {
            data: &b,
            rows: 4,
            cols: 3,
            row_stride: 1,
            col_stride: 4,
        },
        0,
        MatMut {
            data: &mut c,
            rows: 3,
            cols: 3,
            row_stride: 3,
            col_stride: 1,
        },
    )
    .unwrap();
    for i in 0..3 {
        for j in 0..3 {
            let s: i32 = (0..4)
                .map(|p| i32::from(a[i * 4 + p]) * i32::from(b[j * 4 + p]))
                .sum();
            assert_eq!(c[i * 3 + j], s);
        }
    }
}

/// i32 accumulation wraps (as `vpmaddwd`/VNNI do) instead of panicking, on every ISA.
#[test]
fn integer_accumulation_wraps() {
    let k = 70_000usize; // 255·127·70000 > 2³¹
    for isa in Isa::available() {
        let a = vec![255u8; k];
        let b = vec![127i8; k];
        let mut c = [0i32];
        gemm::gemm_with(
            isa,
            1,
            MatRef {
                data: &a,
                rows: 1,
                cols: k,
                row_stride: k as isize,
                col_stride: 1,
            },
            MatRef {
                data: &b,
                rows: k,
                cols: 1,
                row_stride: 1,
                col_stride: 1,
            },
            0,
            MatMut {
                data: &mut c,
                rows: 1,
                cols: 1,
                row_stride: 1,
                col_stride: 1,
            },
        )
        .unwrap();
        assert_eq!(c[0], (255i64 * 127 * k as i64) as i32, "{isa:?}");
    }
}

/// Matrix–vector products (m = 1 or n = 1, the decode shape) take the streaming path: every
/// orientation of the matrix, unit and non-unit vector strides, y strided,
/// β = 0 with NaN in y, on every instruction set, against the naive sum (integers: exact).
#[test]
fn matrix_vector_products_on_every_orientation() {
    let mut rng = Seeded(13);
    for isa in Isa::available() {
        for &(m, k, n) in &[
            (1usize, 37usize, 4100usize),
            (1, 9, 3),
            (45, 70, 1),
            (1, 1, 1),
        ] {
            for (ars, acs, brs, bcs, crs, ccs) in [
                (k as isize, 1, n as isize, 1, n as isize, 1), // row-major everything
                (1, m as isize, 1, k as isize, 1, m as isize), // column-major everything
                (k as isize, 1, 1, k as isize, 1, m as isize), // B columns contiguous
                (2 * k as isize, 2, n as isize, 1, 2 * n as isize, 2), // strided vectors
            ] {
                for beta in [0i64, 3] {
                    let span = |r: usize, c: usize, rs: isize, cs: isize| {
                        (r - 1) * rs.unsigned_abs() + (c - 1) * cs.unsigned_abs() + 1
                    };
                    let a: Vec<f64> = values(&mut rng, span(m, k, ars, acs), -8, 9);
                    let b: Vec<f64> = values(&mut rng, span(k, n, brs, bcs), -8, 9);
                    let c0: Vec<f64> = values(&mut rng, span(m, n, crs, ccs), -8, 9);
                    let mut c = c0.clone();
                    if beta == 0 {
                        c.iter_mut().for_each(|x| *x = f64::NAN);
                    }
                    gemm::gemm_with(
                        // two threads split y (`Packing::Never` keeps them at any size)
                        Options {
                            isa,
                            threads: 2,
                            packing: Packing::Never,
                        },
                        2.0,
                        MatRef {
                            data: &a,
                            rows: m,
                            cols: k,
                            row_stride: ars,
                            col_stride: acs,
                        },
                        MatRef {
                            data: &b,
                            rows: k,
                            cols: n,
                            row_stride: brs,
                            col_stride: bcs,
                        },
                        beta as f64,
                        MatMut {
                            data: &mut c,
                            rows: m,
                            cols: n,
                            row_stride: crs,
                            col_stride: ccs,
                        },
                    )
                    .unwrap();
                    for i in 0..m {
                        for j in 0..n {
                            let at = |x: usize, y: usize, rs: isize, cs: isize| {
                                x * rs as usize + y * cs as usize
                            };
                            let s: f64 = (0..k)
                                .map(|p| a[at(i, p, ars, acs)] * b[at(p, j, brs, bcs)])
                                .sum();
                            let o = at(i, j, crs, ccs);
                            let want = 2.0 * s + if beta == 0 { 0.0 } else { 3.0 * c0[o] };
                            assert_eq!(c[o], want, "{isa:?} {m}×{k}×{n} ({i},{j}) β={beta}");
                        }
                    }
                    // f32 on the same data
                    let af: Vec<f32> = a.iter().map(|&x| x as f32).collect();
                    let bf: Vec<f32> = b.iter().map(|&x| x as f32).collect();
                    let mut cf: Vec<f32> = c0.iter().map(|&x| x as f32).collect();
                    gemm::gemm_with(
                        isa,
                        1.0,
                        MatRef {
                            data: &af,
                            rows: m,
                            cols: k,
                            row_stride: ars,
                            col_stride: acs,
                        },
                        MatRef {
                            data: &bf,
                            rows: k,
                            cols: n,
                            row_stride: brs,
                            col_stride: bcs,
                        },
                        1.0,
                        MatMut {
                            data: &mut cf,
                            rows: m,
                            cols: n,
                            row_stride: crs,
                            col_stride: ccs,
                        },
                    )
                    .unwrap();
                    for i in 0..m {
                        for j in 0..n {
                            let o = i * crs as usize + j * ccs as usize;
                            let s: f64 = (0..k)
                                .map(|p| {
                                    a[i * ars as usize + p * acs as usize]
                                        * b[p * brs as usize + j * bcs as usize]
                                })
                                .sum();
                            assert_eq!(f64::from(cf[o]), s + c0[o], "f32 {isa:?} ({i},{j})");
                        }
                    }
                    // bf16 and f16 inputs into f32 (the widening decode path)
                    fn half<H: gemm::Half + gemm::Pair<H, Out = f32> + Val>(
                        isa: Isa,
                        (a, b, c0): (&[f64], &[f64], &[f64]),
                        (m, k, n): (usize, usize, usize),
                        s: [isize; 6],
                    ) {
                        let ah: Vec<H> = a.iter().map(|&x| H::of(x as i64)).collect();
                        let bh: Vec<H> = b.iter().map(|&x| H::of(x as i64)).collect();
                        let mut ch: Vec<f32> = c0.iter().map(|&x| x as f32).collect();
                        let [ars, acs, brs, bcs, crs, ccs] = s;
                        gemm::gemm_with(
                            isa,
                            -1.0,
                            MatRef {
                                data: &ah,
                                rows: m,
                                cols: k,
                                row_stride: ars,
                                col_stride: acs,
                            },
                            MatRef {
                                data: &bh,
                                rows: k,
                                cols: n,
                                row_stride: brs,
                                col_stride: bcs,
                            },
                            2.0,
                            MatMut {
                                data: &mut ch,
                                rows: m,
                                cols: n,
                                row_stride: crs,
                                col_stride: ccs,
                            },
                        )
                        .unwrap();
                        let at = |x: usize, y: usize, rs: isize, cs: isize| {
                            x * rs as usize + y * cs as usize
                        };
                        for i in 0..m {
                            for j in 0..n {
                                let sum: f64 = (0..k)
                                    .map(|p| a[at(i, p, ars, acs)] * b[at(p, j, brs, bcs)])
                                    .sum();
                                let o = at(i, j, crs, ccs);
                                assert_eq!(
                                    f64::from(ch[o]),
                                    2.0 * c0[o] - sum,
                                    "{} {isa:?} {m}×{k}×{n} ({i},{j})",
                                    core::any::type_name::<H>()
                                );
                            }
                        }
                    }
                    let st = [ars, acs, brs, bcs, crs, ccs];
                    half::<bf16>(isa, (&a, &b, &c0), (m, k, n), st);
                    half::<f16>(isa, (&a, &b, &c0), (m, k, n), st);
                }
            }
        }
    }
}

/// Quantized weights as B (`gemm_quant`): decode rows (the stored bytes read in place) and
/// prefill (dequantized inside packing), row- and column-major C, every ISA, one and two
/// threads, against the product with the dequantized matrix. GGUF weights chosen to quantize
/// exactly (integers, each block's extreme at the scale's code) give exact results; the group
/// formats are compared within f32 rounding.
#[test]
fn quantized_b_decode_and_prefill() {
    use layout::packed::{
        Group4Format, QuantRef, QuantizedB, quantize_group4, quantize_q4_0, quantize_q8_0,
    };
    let mut rng = Seeded(14);
    let (k, n) = (96usize, 40usize);
    // Q8_0: ±127 in every block (scale 1); Q4_0: −8 in every block (scale 1)
    let w8: Vec<f32> = (0..k * n)
        .map(|i| {
            if (i / n) % 32 == 0 {
                127.0
            } else {
                rng.range(-127, 127) as f32
            }
        })
        .collect();
    let w4: Vec<f32> = (0..k * n)
        .map(|i| {
            if (i / n) % 32 == 0 {
                -8.0
            } else {
                rng.range(-8, 7) as f32
            }
        })
        .collect();
    let wg: Vec<f32> = (0..k * n)
        .map(|_| rng.range(-50, 50) as f32 / 7.0)
        .collect();
    let q8 = quantize_q8_0(k, n, &w8).unwrap();
    let q4 = quantize_q4_0(k, n, &w4).unwrap();
    let awq = quantize_group4(k, n, &wg, 32, Group4Format::Awq).unwrap();
    let gptq = quantize_group4(k, n, &wg, 32, Group4Format::Gptq).unwrap();
    let cases: [(QuantRef<'_>, bool); 4] = [
        ((&q8).into(), true),
        ((&q4).into(), true),
        ((&awq).into(), false),
        ((&gptq).into(), false),
    ];
    for (q, exact) in cases {
        let b = q.dequantize().unwrap(); // row-major k × n
        if exact {
            let src = if b.iter().any(|&x| x.abs() > 8.0) {
                &w8
            } else {
                &w4
            };
            assert_eq!(&b, src, "the weights quantize exactly");
        }
        for m in [1usize, 5, 9, 40] {
            let a: Vec<f32> = (0..m * k).map(|_| rng.range(-3, 4) as f32).collect();
            let c0: Vec<f32> = (0..m * n).map(|_| rng.range(-9, 10) as f32).collect();
            for isa in Isa::available() {
                for (threads, row_major) in [(1, true), (2, true), (1, false)] {
                    let (crs, ccs) = if row_major { (n, 1) } else { (1, m) };
                    let mut c = c0.clone();
                    gemm::gemm_quant(
                        Options {
                            isa,
                            threads,
                            packing: Packing::Auto,
                        },
                        2.0,
                        MatRef {
                            data: &a,
                            rows: m,
                            cols: k,
                            row_stride: k as isize,
                            col_stride: 1,
                        },
                        q,
                        -1.0,
                        MatMut {
                            data: &mut c,
                            rows: m,
                            cols: n,
                            row_stride: crs as isize,
                            col_stride: ccs as isize,
                        },
                    )
                    .unwrap();
                    for i in 0..m {
                        for j in 0..n {
                            let s: f64 = (0..k)
                                .map(|p| f64::from(a[i * k + p]) * f64::from(b[p * n + j]))
                                .sum();
                            let o = i * crs + j * ccs;
                            let want = 2.0 * s - f64::from(c0[o]);
                            let got = f64::from(c[o]);
                            let tol = if exact {
                                0.0
                            } else {
                                1e-4 * (1.0 + want.abs())
                            };
                            assert!(
                                (got - want).abs() <= tol,
                                "{isa:?} m {m} threads {threads} row-major C {row_major} ({i},{j}): {got} vs {want}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// One pair through `PackedB` + `gemm_packed`: every instruction set, one and two threads,
/// decode and prefill shapes crossing the panel widths, k odd and past KC (1024 for the byte
/// quads), B row- and column-major, C row- and column-major, α and β; against the definition
/// in i64 (the data are integers: every pair exact).
fn packed_pair<A, B>(rng: &mut Seeded, ra: (i64, i64), rb: (i64, i64))
where
    A: Pair<B> + Val,
    B: gemm::Packable + Val,
    A::Out: Val,
{
    for isa in Isa::available() {
        for &(m, k, n) in &[
            (1usize, 37usize, 70usize),
            (5, 1030, 17),
            (16, 8, 33),
            (40, 3, 6),
        ] {
            for (threads, b_rm, c_rm, alpha, beta) in [
                (1, true, true, 1, 0),
                (2, false, false, 2, -1),
                (2, true, false, -3, 2),
            ] {
                let a: Vec<A> = values(rng, m * k, ra.0, ra.1);
                let b: Vec<B> = values(rng, k * n, rb.0, rb.1);
                let c0: Vec<A::Out> = values(rng, m * n, -50, 50);
                let (brs, bcs) = if b_rm { (n, 1) } else { (1, k) };
                let (crs, ccs) = if c_rm { (n, 1) } else { (1, m) };
                let pb = gemm::PackedB::new(
                    isa,
                    MatRef {
                        data: &b,
                        rows: k,
                        cols: n,
                        row_stride: brs as isize,
                        col_stride: bcs as isize,
                    },
                )
                .unwrap();
                let mut c = c0.clone();
                gemm::gemm_packed(
                    Options {
                        isa,
                        threads,
                        packing: Packing::Auto,
                    },
                    A::Out::of(alpha),
                    MatRef {
                        data: &a,
                        rows: m,
                        cols: k,
                        row_stride: k as isize,
                        col_stride: 1,
                    },
                    &pb,
                    A::Out::of(beta),
                    MatMut {
                        data: &mut c,
                        rows: m,
                        cols: n,
                        row_stride: crs as isize,
                        col_stride: ccs as isize,
                    },
                )
                .unwrap();
                for i in 0..m {
                    for j in 0..n {
                        let s: i64 = (0..k)
                            .map(|p| a[i * k + p].int() * b[p * brs + j * bcs].int())
                            .sum();
                        let at = i * crs + j * ccs;
                        let want = alpha * s + beta * c0[at].int();
                        // integers wrap modulo 2³² as the instructions do
                        let want = if core::any::type_name::<A::Out>() == "i32" {
                            i64::from(want as i32)
                        } else {
                            want
                        };
                        assert_eq!(
                            c[at].int(),
                            want,
                            "{} × {} {isa:?} {m}x{k}x{n} t{threads} ({i},{j})",
                            core::any::type_name::<A>(),
                            core::any::type_name::<B>()
                        );
                    }
                }
            }
        }
    }
}

/// Every element pair through `PackedB`: floats on small integers (exact), the integer pairs
/// over their whole ranges and, for i8 weights, in the range `vpmaddubsw` takes exactly.
#[test]
fn every_pair_through_packed_b() {
    let mut rng = Seeded(29);
    let small = (-8, 9);
    packed_pair::<f32, f32>(&mut rng, small, small);
    packed_pair::<f64, f64>(&mut rng, small, small);
    packed_pair::<bf16, bf16>(&mut rng, small, small);
    packed_pair::<f16, f16>(&mut rng, small, small);
    let (u, s) = ((0, 256), (-128, 128));
    packed_pair::<u8, i8>(&mut rng, u, s);
    packed_pair::<u8, i8>(&mut rng, (0, 128), s);
    packed_pair::<u8, i8>(&mut rng, u, (-64, 65));
    packed_pair::<i8, i8>(&mut rng, s, s);
    packed_pair::<u8, u8>(&mut rng, u, u);
    packed_pair::<i8, u8>(&mut rng, s, u);
}
