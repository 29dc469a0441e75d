//! `gemm::gemm` on every operand layout family — plain, negative strides, broadcast, swizzled,
//! Ascend NZ/ZN/ZZ, blocked, padded, hierarchical — against a naive product that reads every
//! element through the tensors' own coordinate indexing (`t[[i, j]]`), and the static path
//! (constant offset tables) against the run-time one on the same data.

mod support;

use layout::gemm::{self, GemmError};
use layout::named::blocked::row_major_interleaved_packed;
use layout::named::{Padded, make_nz_layout, make_zn_layout, make_zz_layout};
use layout::tensor::{Tensor, TensorIndex};
use layout::{AnyLayout, DynLayout, Int, Layout, Swizzle, SwizzledLayout, layout};
use support::Seeded;
use support::routes::span;

/// A buffer of `len` integer-valued elements (exact in any summation order).
fn buf(rng: &mut Seeded, len: usize) -> Vec<f32> {
    (0..len).map(|_| rng.range(-4, 5) as f32).collect()
}

/// Checks `gemm(α, A, B, β, C)` against the naive product read through `t[[i, j]]`.
fn check<LA, LB, LC>(rng: &mut Seeded, la: LA, lb: LB, lc: LC, alpha: f32, beta: f32)
where
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
    [i64; 2]: TensorIndex<LA> + TensorIndex<LB> + TensorIndex<LC>,
{
    let dims = |l: &dyn Fn() -> layout::DynTuple| {
        let d = l();
        (
            d.mode(0).unwrap().size().unwrap(),
            d.mode(1).unwrap().size().unwrap(),
        )
    };
    let (m, k) = dims(&|| la.domain());
    let (_, n) = dims(&|| lb.domain());
    let (a, b) = (buf(rng, span(&la)), buf(rng, span(&lb)));
    let mut c = buf(rng, span(&lc));
    if beta == 0.0 {
        c.iter_mut().for_each(|x| *x = f32::NAN);
    }
    let ta = Tensor::new(&a[..], la).unwrap();
    let tb = Tensor::new(&b[..], lb).unwrap();
    let c0 = Tensor::new(&c[..], lc).unwrap();
    let mut want = Vec::new();
    for j in 0..n {
        for i in 0..m {
            let mut s = 0.0f32;
            for p in 0..k {
                s += ta[[i, p]] * tb[[p, j]];
            }
            want.push(if beta == 0.0 {
                alpha * s
            } else {
                alpha * s + beta * c0[[i, j]]
            });
        }
    }
    let mut c2 = c.clone();
    let mut tc = Tensor::new(&mut c2[..], lc).unwrap();
    gemm::gemm(alpha, &ta, &tb, beta, &mut tc).unwrap();
    for j in 0..n {
        for i in 0..m {
            let got = tc[[i, j]];
            let w = want[(i + j * m) as usize];
            assert!(
                got == w,
                "{la} × {lb} → {lc}, α={alpha} β={beta}: C({i},{j}) = {got}, want {w}"
            );
        }
    }
}

const SCALARS: [(f32, f32); 3] = [(1.0, 0.0), (-1.0, 1.0), (0.5, -0.5)];

#[test]
fn every_layout_family_through_the_generic_path() {
    let mut rng = Seeded(42);
    let d = |s: &str| s.parse::<DynLayout>().unwrap();
    for (alpha, beta) in SCALARS {
        // plain strided (the fast path), hierarchical modes, broadcast A
        check(
            &mut rng,
            d("(5,7):(1,5)"),
            d("(7,3):(3,1)"),
            d("(5,3):(1,5)"),
            alpha,
            beta,
        );
        check(
            &mut rng,
            d("((2,3),7):((1,2),6)"),
            d("(7,(2,2)):(1,(7,14))"),
            d("((2,3),(2,2)):((4,1),(24,12))"),
            alpha,
            beta,
        );
        check(
            &mut rng,
            d("(4,6):(0,1)"),
            d("(6,5):(1,6)"),
            d("(4,5):(5,1)"),
            alpha,
            beta,
        );
        // swizzled operands and a swizzled output
        let sw = Swizzle::new(2, 0, 3).unwrap();
        check(
            &mut rng,
            SwizzledLayout::new(sw, 0i64, d("(8,8):(8,1)")),
            d("(8,4):(1,8)"),
            SwizzledLayout::new(sw, 0i64, d("(8,4):(4,1)")),
            alpha,
            beta,
        );
        // Ascend fractals: C(NZ) ← A(ZZ) · B(ZN), f32 fractals of 16 × 8
        check(
            &mut rng,
            make_zz_layout::<f32>(32, 16).unwrap(),
            make_zn_layout::<f32>(16, 32).unwrap(),
            make_nz_layout::<f32>(32, 32).unwrap(),
            alpha,
            beta,
        );
        // a padded NZ (its domain is the logical 20 × 12)
        let pa = Padded::new(make_nz_layout::<f32>(20, 16).unwrap(), &[20, 16]).unwrap();
        let pc = Padded::new(make_nz_layout::<f32>(20, 12).unwrap(), &[20, 12]).unwrap();
        check(&mut rng, pa, d("(16,12):(12,1)"), pc, alpha, beta);
        // CUTLASS interleaved
        check(
            &mut rng,
            row_major_interleaved_packed(4, 8, 6).unwrap(),
            d("(6,5):(1,6)"),
            d("(8,5):(1,8)"),
            alpha,
            beta,
        );
    }
}

#[test]
fn static_operands_take_the_constant_tables() {
    let mut rng = Seeded(7);
    for (alpha, beta) in SCALARS {
        // static flat layouts, static hierarchical, and a static named layout
        check(
            &mut rng,
            layout!((4,4):(1,4)),
            layout!((4,4):(4,1)),
            layout!((4,4):(1,4)),
            alpha,
            beta,
        );
        check(
            &mut rng,
            layout!((8,8):(1,8)),
            layout!((8,8):(1,8)),
            layout!((8,8):(8,1)),
            alpha,
            beta,
        );
        check(
            &mut rng,
            layout!((3,5):(5,1)),
            layout!((5,2):(1,5)),
            layout!((3,2):(1,3)),
            alpha,
            beta,
        );
        check(
            &mut rng,
            layout!(((2,2),4):((1,8),2)),
            layout!((4,(2,2)):(1,(4,8))),
            layout!(((2,2),(2,2)):((1,2),(4,8))),
            alpha,
            beta,
        );
        check(
            &mut rng,
            layout!(NZ<f32>(16, 8)),
            layout!((8,4):(1,8)),
            layout!((16,4):(4,1)),
            alpha,
            beta,
        );
    }
    // mixed static and run-time operands agree with all-run-time ones
    let n = std::hint::black_box(4i64);
    check(
        &mut rng,
        layout!((4,n):(1,4)),
        layout!((4,4):(4,1)),
        layout!((4,4):(1,4)),
        1.0,
        1.0,
    );
}

#[test]
fn gemm_static_checks_extents_in_the_types() {
    type A = Layout<(Int<2>, Int<3>), (Int<3>, Int<1>)>;
    type B = Layout<(Int<3>, Int<4>), (Int<1>, Int<3>)>;
    type C = Layout<(Int<2>, Int<4>), (Int<4>, Int<1>)>;
    let a = [1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0];
    let b: Vec<f64> = (0..12).map(|x| x as f64).collect();
    let mut c = [0.0f64; 8];
    let ta = Tensor::new(&a[..], A::default()).unwrap();
    let tb = Tensor::new(&b[..], B::default()).unwrap();
    let mut tc = Tensor::new(&mut c[..], C::default()).unwrap();
    gemm::gemm_static(2.0, &ta, &tb, 0.0, &mut tc);
    // C(i, j) = 2 Σ_p A(i,p) B(p,j), B(p, j) = p + 3j; A rows (1,2,3), (4,5,6)
    for i in 0..2 {
        for j in 0..4 {
            let s: f64 = (0..3).map(|p| a[i * 3 + p] * (p + 3 * j) as f64).sum();
            assert_eq!(c[i * 4 + j], 2.0 * s);
        }
    }
}

#[test]
fn mismatched_run_time_extents_are_errors() {
    let d = |s: &str| s.parse::<DynLayout>().unwrap();
    let (a, b, mut c) = (vec![0f32; 64], vec![0f32; 64], vec![0f32; 64]);
    let ta = Tensor::new(&a[..], d("((2,2),3):((1,2),4)")).unwrap();
    let tb = Tensor::new(&b[..], d("((2,2),3):((1,2),4)")).unwrap(); // 4×3, A is 4×3
    let mut tc = Tensor::new(&mut c[..], d("(4,3):(1,4)")).unwrap();
    let e = gemm::gemm(1.0, &ta, &tb, 0.0, &mut tc).unwrap_err();
    assert!(matches!(e, GemmError::ShapeMismatch { .. }), "{e}");
    assert!(e.to_string().contains("A is 4×3, B is 4×3"), "{e}");
}

/// Ascend's operand formats with bf16 / f16 inputs: C(NZ, f32) ← A(NZ or ZZ) · B(ZN), exact on
/// integer data, against the naive product through the tensors' indexing, on every instruction
/// set, one and two threads, k past one packed block, with nothing of C's buffer outside its
/// layout written.
#[test]
fn ascend_formats_with_half_inputs() {
    use gemm::{Isa, Options};
    use layout::named::{bf16, f16};
    macro_rules! case {
        ($h:ty, $la:ident, $m:expr, $k:expr, $n:expr) => {{
            let (m, k, n): (usize, usize, usize) = ($m, $k, $n);
            let la = $la::<$h>(m, k).unwrap();
            let lb = make_zn_layout::<$h>(k, n).unwrap();
            let lc = make_nz_layout::<f32>(m, n).unwrap();
            let a: Vec<$h> = (0..la.cosize())
                .map(|x| <$h>::from_f32((x % 9) as f32 - 4.0))
                .collect();
            let b: Vec<$h> = (0..lb.cosize())
                .map(|x| <$h>::from_f32((x % 7) as f32 - 3.0))
                .collect();
            let ta = Tensor::new(&a[..], la).unwrap();
            let tb = Tensor::new(&b[..], lb).unwrap();
            let c0 = vec![f32::NAN; lc.cosize() as usize];
            for isa in Isa::available() {
                for threads in [1, 2] {
                    let mut c = c0.clone();
                    let mut tc = Tensor::new(&mut c[..], lc).unwrap();
                    let opts = Options {
                        isa,
                        threads,
                        ..Options::default()
                    };
                    gemm::gemm_tensors_with(opts, 1.0, &ta, &tb, 0.0, &mut tc).unwrap();
                    let what = format!(
                        "{} {} {m}×{k}×{n} ({isa:?}, {threads} threads)",
                        stringify!($h),
                        stringify!($la)
                    );
                    let mut inside = vec![false; c0.len()];
                    for i in 0..m {
                        for j in 0..n {
                            let s: f32 = (0..k)
                                .map(|p| ta[[i, p]].to_f32() * tb[[p, j]].to_f32())
                                .sum();
                            assert_eq!(tc[[i, j]], s, "{what} at ({i},{j})");
                            inside[lc.offset((i + j * m) as i64) as usize] = true;
                        }
                    }
                    for (x, v) in c.iter().enumerate() {
                        assert!(inside[x] || v.is_nan(), "{what}: offset {x} outside C written");
                    }
                }
            }
        }};
    }
    for (m, k, n) in [
        (32, 32, 32),
        (48, 64, 16),
        (16, 16, 16),
        (96, 80, 112),
        (16, 272, 48),
    ] {
        case!(bf16, make_zz_layout, m, k, n);
        case!(f16, make_zz_layout, m, k, n);
        case!(bf16, make_nz_layout, m, k, n);
        case!(f16, make_nz_layout, m, k, n);
    }
}

/// A random rank-2 blocked layout of `rows × cols`: each axis split into (block, blocks), the
/// four leaves laid out in a random memory order (NZ, ZN, ZZ, blocked and interleaved formats
/// are all such orders), with a random gap after one leaf.
fn random_blocked(rng: &mut Seeded, rows: i64, cols: i64) -> DynLayout {
    let divisor = |rng: &mut Seeded, e: i64| {
        let ds: Vec<i64> = (1..=e).filter(|d| e % d == 0).collect();
        ds[rng.below(ds.len() as u64) as usize]
    };
    let (br, bc) = (divisor(rng, rows), divisor(rng, cols));
    let ext = [br, rows / br, bc, cols / bc];
    let mut order = [0usize, 1, 2, 3];
    rng.shuffle(&mut order);
    let gap_after = rng.range(0, 4);
    let mut stride = [0i64; 4];
    let mut next = 1;
    for (pos, &leaf) in order.iter().enumerate() {
        stride[leaf] = next;
        next *= ext[leaf];
        if pos as i64 == gap_after {
            next += rng.range(1, 4);
        }
    }
    format!(
        "(({},{}),({},{})):(({},{}),({},{}))",
        ext[0], ext[1], ext[2], ext[3], stride[0], stride[1], stride[2], stride[3]
    )
    .parse()
    .unwrap()
}

/// The engine on random blocked layouts at sizes that cross the kernels' tiles and the k
/// blocking, on every instruction set, with and without the unpacked paths, on one and two
/// threads: against the naive product read through tensor indexing.
#[test]
fn random_blocked_layouts_on_every_isa_and_route() {
    use gemm::{Isa, Options, Packing};
    let mut rng = Seeded(7);
    let mut cases = Vec::new();
    // (520 rows and 530 columns: more micro-panels than the in-place limit, so the broadcast
    // operand is packed there as well)
    for (m, k, n) in [
        (70i64, 300i64, 50i64),
        (33, 17, 65),
        (48, 64, 40),
        (520, 21, 530),
    ] {
        for _ in 0..2 {
            let la = random_blocked(&mut rng, m, k);
            let lb = random_blocked(&mut rng, k, n);
            let lc = random_blocked(&mut rng, m, n);
            cases.push((m, k, n, la, lb, lc));
        }
    }
    // Ascend fractals at kernel scale (C in NZ takes the fractal-row kernel)
    cases.push((
        48,
        272,
        48,
        make_nz_layout::<f32>(48, 272).unwrap(),
        make_zn_layout::<f32>(272, 48).unwrap(),
        make_nz_layout::<f32>(48, 48).unwrap(),
    ));
    cases.push((
        32,
        64,
        48,
        make_zz_layout::<f32>(32, 64).unwrap(),
        make_zn_layout::<f32>(64, 48).unwrap(),
        make_zn_layout::<f32>(32, 48).unwrap(),
    ));
    for (m, k, n, la, lb, lc) in cases {
        {
            let a = buf(&mut rng, span(&la));
            let b = buf(&mut rng, span(&lb));
            let c = buf(&mut rng, span(&lc));
            let ta = Tensor::new(&a[..], la).unwrap();
            let tb = Tensor::new(&b[..], lb).unwrap();
            let c0 = Tensor::new(&c[..], lc).unwrap();
            let (alpha, beta) = (2.0f32, -1.0f32);
            let want: Vec<f32> = (0..m * n)
                .map(|x| {
                    let (i, j) = (x % m, x / m);
                    let s: f32 = (0..k).map(|p| ta[[i, p]] * tb[[p, j]]).sum();
                    alpha * s + beta * c0[[i, j]]
                })
                .collect();
            let want = |i: i64, j: i64| want[(i + j * m) as usize];
            for isa in Isa::available() {
                for packing in [Packing::Auto, Packing::Always] {
                    for threads in [1, 2] {
                        let mut c2 = c.clone();
                        let mut tc = Tensor::new(&mut c2[..], lc).unwrap();
                        let opts = Options {
                            isa,
                            threads,
                            packing,
                        };
                        gemm::gemm_tensors_with(opts, alpha, &ta, &tb, beta, &mut tc).unwrap();
                        for i in 0..m {
                            for j in 0..n {
                                assert_eq!(
                                    tc[[i, j]],
                                    want(i, j),
                                    "{la} × {lb} → {lc} ({isa:?}, {packing:?}, {threads} threads) at ({i},{j})"
                                );
                            }
                        }
                        // elements of C's buffer outside its layout are untouched
                        let mut inside = vec![false; c.len()];
                        for i in 0..m {
                            for j in 0..n {
                                inside[lc.offset(i + j * m) as usize] = true;
                            }
                        }
                        for (x, (&got, &was)) in c2.iter().zip(&c).enumerate() {
                            if !inside[x] {
                                assert_eq!(
                                    got.to_bits(),
                                    was.to_bits(),
                                    "{lc}: offset {x} written"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// `gemm_static` at the sizes of its inline paths (4³, 8³, 16³, and 32³ beyond them), with
/// every α/β pair, against the naive product: the same result on every path.
#[test]
fn gemm_static_inline_paths_match_the_naive_product() {
    macro_rules! case {
        ($n:literal) => {{
            type L = Layout<(Int<$n>, Int<$n>), (Int<1>, Int<$n>)>;
            let mut rng = Seeded($n);
            let a = buf(&mut rng, $n * $n);
            let b = buf(&mut rng, $n * $n);
            let c = buf(&mut rng, $n * $n);
            for (alpha, beta) in SCALARS {
                let mut got = c.clone();
                {
                    let ta = Tensor::new(&a[..], L::default()).unwrap();
                    let tb = Tensor::new(&b[..], L::default()).unwrap();
                    let mut tc = Tensor::new(&mut got[..], L::default()).unwrap();
                    gemm::gemm_static(alpha, &ta, &tb, beta, &mut tc);
                }
                for j in 0..$n {
                    for i in 0..$n {
                        let s: f32 = (0..$n).map(|p| a[i + $n * p] * b[p + $n * j]).sum();
                        let w = alpha * s
                            + if beta == 0.0 {
                                0.0
                            } else {
                                beta * c[i + $n * j]
                            };
                        assert_eq!(
                            got[i + $n * j],
                            w,
                            "{}³ α={alpha} β={beta} at ({i},{j})",
                            $n
                        );
                    }
                }
            }
        }};
    }
    case!(4);
    case!(8);
    case!(16);
    case!(32);
}

/// f64 operands in column groups of four (NZ's shape with C0 = 4: rows of four contiguous k
/// values, which the packer moves four rows at a time through registers on AVX2 and better),
/// with rows grouped in 16-row fractals or not, at sizes with rows past a whole square, on
/// every instruction set and route, one and two threads: against the naive product, with C's
/// bytes outside its layout untouched.
#[test]
fn f64_column_groups_on_every_isa_and_route() {
    use gemm::{Isa, Options, Packing};
    let mut rng = Seeded(11);
    let fbuf = |rng: &mut Seeded, len: usize| -> Vec<f64> {
        (0..len).map(|_| rng.range(-4, 5) as f64).collect()
    };
    let d = |s: String| s.parse::<DynLayout>().unwrap();
    for (m, k, n) in [
        (37i64, 72i64, 29i64),
        (16, 300, 24),
        (5, 8, 3),
        (64, 64, 64),
    ] {
        // A: k in groups of four, each group m rows of four contiguous values
        let groups = d(format!("({m},(4,{})):(4,(1,{}))", k / 4, 4 * m));
        let lb = d(format!("({k},{n}):(1,{k})"));
        let lc = d(format!("({m},{n}):({n},1)"));
        let mut las = vec![groups];
        if m % 16 == 0 {
            // and in 16-row fractals (NZ): ((16, m/16), (4, k/4)) : ((4, 64), (1, 4m))
            las.push(d(format!(
                "((16,{}),(4,{})):((4,64),(1,{}))",
                m / 16,
                k / 4,
                4 * m
            )));
        }
        for la in las {
            let a = fbuf(&mut rng, span(&la));
            let b = fbuf(&mut rng, span(&lb));
            let c = fbuf(&mut rng, span(&lc));
            let ta = Tensor::new(&a[..], la).unwrap();
            let tb = Tensor::new(&b[..], lb).unwrap();
            let c0 = Tensor::new(&c[..], lc).unwrap();
            let (alpha, beta) = (2.0f64, -1.0f64);
            let want = |i: i64, j: i64| {
                let s: f64 = (0..k).map(|p| ta[[i, p]] * tb[[p, j]]).sum();
                alpha * s + beta * c0[[i, j]]
            };
            for isa in Isa::available() {
                for packing in [Packing::Auto, Packing::Always] {
                    for threads in [1, 2] {
                        let mut c2 = c.clone();
                        let mut tc = Tensor::new(&mut c2[..], lc).unwrap();
                        let opts = Options {
                            isa,
                            threads,
                            packing,
                        };
                        gemm::gemm_tensors_with(opts, alpha, &ta, &tb, beta, &mut tc).unwrap();
                        let mut inside = vec![false; c.len()];
                        for i in 0..m {
                            for j in 0..n {
                                assert_eq!(
                                    tc[[i, j]],
                                    want(i, j),
                                    "{la} × {lb} → {lc} ({isa:?}, {packing:?}, {threads} threads) at ({i},{j})"
                                );
                                inside[lc.offset(i + j * m) as usize] = true;
                            }
                        }
                        for (x, (&got, &was)) in c2.iter().zip(&c).enumerate() {
                            if !inside[x] {
                                assert_eq!(
                                    got.to_bits(),
                                    was.to_bits(),
                                    "padding element {x} written"
                                );
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Swizzled operands are densified into buffers the thread keeps between calls: products of
/// growing and shrinking sizes, β = 0 after β ≠ 0 and back, swizzled A, B and C in turn, each
/// against the naive product (a stale buffer or a wrong length would show here).
#[test]
fn swizzled_operands_across_calls_of_every_size() {
    let mut rng = Seeded(11);
    let sw = Swizzle::new(3, 2, 3).unwrap();
    let rm = |r: usize, c: usize| format!("({r},{c}):({c},1)").parse::<DynLayout>().unwrap();
    for (s, (alpha, beta)) in [64usize, 32, 96, 40, 128, 8, 72]
        .into_iter()
        .zip(SCALARS.iter().copied().cycle())
    {
        let (m, k, n) = (s, s + 8, s / 2 + 4);
        check(
            &mut rng,
            SwizzledLayout::new(sw, 0i64, rm(m, k)),
            rm(k, n),
            rm(m, n),
            alpha,
            beta,
        );
        check(
            &mut rng,
            rm(m, k),
            SwizzledLayout::new(sw, 0i64, rm(k, n)),
            SwizzledLayout::new(sw, 0i64, rm(m, n)),
            alpha,
            beta,
        );
    }
}

/// [`support::routes::check_every_route`] on f32, panicking on the first mismatch.
fn check_every_route<LA, LB, LC>(rng: &mut Seeded, la: LA, lb: LB, lc: LC, alpha: f32, beta: f32)
where
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
    [i64; 2]: TensorIndex<LA> + TensorIndex<LB> + TensorIndex<LC>,
{
    support::routes::check_every_route(rng, la, lb, lc, alpha, beta).unwrap();
}

/// A `rows × cols` operand with leading dimension `ld`, row-major or column-major, swizzled
/// by `sw` after the offset `o`.
fn swizzled(
    sw: Swizzle,
    o: i64,
    rows: i64,
    cols: i64,
    ld: i64,
    row_major: bool,
) -> SwizzledLayout<DynLayout> {
    let l: DynLayout = if row_major {
        format!("({rows},{cols}):({ld},1)")
    } else {
        format!("({rows},{cols}):(1,{ld})")
    }
    .parse()
    .unwrap();
    SwizzledLayout::new(sw, o, l)
}

/// Swizzled operands whose rows (or columns) fall in few classes modulo the swizzle's period
/// (`Sw<B,M,S>`: 2^(B+M+S)) are read in place, one sub-product per class (`gemm/swizzled.rs`);
/// more classes are densified. Swizzles whose run is a vector, shorter than one
/// (`Sw<2,1,3>`: 2, `Sw<3,0,3>`: 1) or longer, leading dimensions giving 1, 2, 4 and 8
/// classes, offsets, row- and column-major inner layouts, A, B and C swizzled alone and
/// together, edge sizes, every instruction set and route.
#[test]
fn swizzled_operands_in_place_by_class_on_every_isa() {
    let mut rng = Seeded(28);
    let swizzles = [(3, 3, 3), (2, 1, 3), (3, 0, 3), (2, 2, 2), (1, 4, 1)];
    let mut case = 0usize;
    for (b, mm, s) in swizzles {
        let sw = Swizzle::new(b, mm, s).unwrap();
        let p = 1i64 << (b + mm + s);
        for (m, k, n) in [(1i64, 1i64, 1i64), (7, 33, 5), (37, 16, 70), (96, 40, 23)] {
            // leading dimensions: the period and multiples (1 class), halves (2 classes), quarters
            // and eighths (4 and 8: densified), an odd one (many: densified)
            for ld_of in [p, 2 * p, p / 2, p / 4, p / 8, p + 3] {
                let (alpha, beta) = SCALARS[case % SCALARS.len()];
                let o = [0i64, 5, 64][case % 3];
                let rm = case % 4 != 3;
                case += 1;
                let ld = |inner: i64, outer: i64| {
                    let _ = outer;
                    ld_of.max(inner).max(1)
                };
                let lay = |r: i64, c: i64| {
                    let row_major = rm;
                    let inner = if row_major { c } else { r };
                    swizzled(sw, o, r, c, ld(inner, 0), row_major)
                };
                let plain =
                    |r: i64, c: i64| -> DynLayout { format!("({r},{c}):({c},1)").parse().unwrap() };
                match case % 4 {
                    0 => check_every_route(
                        &mut rng,
                        lay(m, k),
                        plain(k, n),
                        plain(m, n),
                        alpha,
                        beta,
                    ),
                    1 => check_every_route(
                        &mut rng,
                        plain(m, k),
                        plain(k, n),
                        lay(m, n),
                        alpha,
                        beta,
                    ),
                    2 => check_every_route(
                        &mut rng,
                        plain(m, k),
                        lay(k, n),
                        plain(m, n),
                        alpha,
                        beta,
                    ),
                    _ => check_every_route(&mut rng, lay(m, k), lay(k, n), lay(m, n), alpha, beta),
                }
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
    /// Random swizzles, offsets, leading dimensions and extents, each operand swizzled or not.
    #[test]
    fn swizzled_operands_random(
        seed in proptest::prelude::any::<u64>(),
        bms in (0i64..4, 0i64..4, 1i64..5),
        exts in (1i64..80, 1i64..80, 1i64..80),
        which in 1u8..8,
        o in 0i64..40,
    ) {
        let mut rng = Seeded(seed);
        let (b, mm, s) = bms;
        let sw = Swizzle::new(b.min(s), mm, s).unwrap();
        let p = 1i64 << (b.min(s) + mm + s);
        let (m, k, n) = exts;
        let (alpha, beta) = SCALARS[rng.below(3) as usize];
        let mut dims = |r: i64, c: i64| {
            let row_major = rng.coin();
            let inner = if row_major { c } else { r };
            // a multiple or a fraction of the period, or anything at least the extent
            let ld = match rng.below(3) {
                0 => (p << rng.below(2)).max(inner),
                1 => (p >> (1 + rng.below(3))).max(inner),
                _ => inner + rng.below(9) as i64,
            };
            (r, c, ld, row_major)
        };
        let (da, db, dc) = (dims(m, k), dims(k, n), dims(m, n));
        let on = |(r, c, ld, row_major)| swizzled(sw, o, r, c, ld, row_major);
        let off = |(r, c, ld, row_major): (i64, i64, i64, bool)| -> DynLayout {
            let l = if row_major {
                format!("({r},{c}):({ld},1)")
            } else {
                format!("({r},{c}):(1,{ld})")
            };
            l.parse().unwrap()
        };
        let r = &mut rng;
        match which {
            1 => check_every_route(r, on(da), off(db), off(dc), alpha, beta),
            2 => check_every_route(r, off(da), on(db), off(dc), alpha, beta),
            3 => check_every_route(r, on(da), on(db), off(dc), alpha, beta),
            4 => check_every_route(r, off(da), off(db), on(dc), alpha, beta),
            5 => check_every_route(r, on(da), off(db), on(dc), alpha, beta),
            6 => check_every_route(r, off(da), on(db), on(dc), alpha, beta),
            _ => check_every_route(r, on(da), on(db), on(dc), alpha, beta),
        }
    }
}

/// A swizzled A or C whose rows fall in two classes (a leading dimension of half the period
/// modulo the period) with a row-major B: the two cells read one B, packed once for both
/// (`Pair::with_shared_b`, `block::SharedPanels`). Several k blocks (k past KC, the last one
/// partial), n past MC and not a multiple of the tile, m odd, every instruction set, packing
/// `Auto` and `Always`, one and two threads, against the naive product; elements outside C
/// untouched.
#[test]
fn swizzled_cells_share_one_packed_b() {
    let mut rng = Seeded(2808);
    let sw = Swizzle::new(3, 3, 3).unwrap();
    // row offsets `i·ld` with `ld ≡ 256 (mod 512)`: two classes of rows
    let ld = |inner: i64| (256i64..).step_by(512).find(|&l| l >= inner).unwrap();
    let plain = |r: i64, c: i64| -> DynLayout { format!("({r},{c}):({c},1)").parse().unwrap() };
    for (case, (m, k, n)) in [(70i64, 1100i64, 45i64), (33, 300, 261), (131, 517, 300)]
        .into_iter()
        .enumerate()
    {
        let (alpha, beta) = SCALARS[case % SCALARS.len()];
        check_every_route(
            &mut rng,
            swizzled(sw, 0, m, k, ld(k), true),
            plain(k, n),
            plain(m, n),
            alpha,
            beta,
        );
        check_every_route(
            &mut rng,
            plain(m, k),
            plain(k, n),
            swizzled(sw, 0, m, n, ld(n), true),
            alpha,
            beta,
        );
    }
}
