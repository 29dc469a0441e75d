//! Small products on every instruction set this CPU has: the unpacked tiles (every tile width
//! and edge) and the tensor entry's flat run-time layouts read in place,
//! checked against the product by definition over whole small domains, odd strides, negative
//! strides, base offsets, and BLAS's α/β rules (α = 0 reads neither A nor B, β = 0 never reads
//! C). Integer-valued data: every route is exact.

use layout::gemm::{self, GemmError, Isa, MatMut, MatRef, Options, Packing};
use layout::{DynLayout, Tensor};
use proptest::prelude::*;

#[path = "support/runner.rs"]
mod runner;

/// A deterministic small integer in −3..=3.
fn val(i: usize, seed: usize) -> f64 {
    ((i * 7 + seed * 13 + i / 5) % 7) as f64 - 3.0
}

/// A strided operand: element (i, j) at `o + i·rs + j·cs`, the lowest index 0.
#[derive(Clone, Copy, Debug)]
struct Geom {
    rows: usize,
    cols: usize,
    rs: isize,
    cs: isize,
}

impl Geom {
    /// The elements the operand spans and the index of element (0, 0).
    fn span(self) -> (usize, isize) {
        let lo =
            (self.rows as isize - 1) * self.rs.min(0) + (self.cols as isize - 1) * self.cs.min(0);
        let hi =
            (self.rows as isize - 1) * self.rs.max(0) + (self.cols as isize - 1) * self.cs.max(0);
        ((hi - lo + 1) as usize, -lo)
    }
    fn at(self, i: usize, j: usize) -> usize {
        (self.span().1 + i as isize * self.rs + j as isize * self.cs) as usize
    }
}

/// Strides of one of several orders for a `rows × cols` operand: column-major, row-major,
/// padded (odd leading dimensions), negative along one axis.
fn geom(rows: usize, cols: usize, order: usize) -> Geom {
    let (r, c) = (rows as isize, cols as isize);
    let (rs, cs) = match order {
        0 => (1, r),
        1 => (c, 1),
        2 => (1, r + 3),
        3 => (c + 2, 1),
        4 => (1, -(r + 1)),
        _ => (-(c + 1), 1),
    };
    Geom { rows, cols, rs, cs }
}

/// `α·A·B + β·C` by definition, into a copy of `c` (β = 0 never reads C).
#[allow(clippy::too_many_arguments)]
fn naive(
    [m, k, n]: [usize; 3],
    alpha: f64,
    (a, ga): (&[f64], Geom),
    (b, gb): (&[f64], Geom),
    beta: f64,
    (c, gc): (&[f64], Geom),
) -> Vec<f64> {
    let mut out = c.to_vec();
    for i in 0..m {
        for j in 0..n {
            let s: f64 = (0..k).map(|p| a[ga.at(i, p)] * b[gb.at(p, j)]).sum();
            let o = gc.at(i, j);
            out[o] = if alpha == 0.0 { 0.0 } else { alpha * s }
                + if beta == 0.0 { 0.0 } else { beta * c[o] };
        }
    }
    out
}

/// One strided product in `T` on `gemm_with` against [`naive`]; with `nan_c` C starts as NaN
/// (β must be 0); with α = 0, A and B are NaN.
#[allow(clippy::too_many_arguments)]
fn check<T: layout::gemm::Element + Into<f64>>(
    of: impl Fn(f64) -> T,
    opts: Options,
    mkn: [usize; 3],
    (ga, gb, gc): (Geom, Geom, Geom),
    alpha: f64,
    beta: f64,
) {
    let [m, k, n] = mkn;
    let nan_c = beta == 0.0;
    let fill = |g: Geom, seed: usize, nan: bool| -> Vec<f64> {
        (0..g.span().0)
            .map(|i| if nan { f64::NAN } else { val(i, seed) })
            .collect()
    };
    let (a, b, c) = (
        fill(ga, 1, alpha == 0.0),
        fill(gb, 2, alpha == 0.0),
        fill(gc, 3, nan_c),
    );
    let want = naive(mkn, alpha, (&a, ga), (&b, gb), beta, (&c, gc));
    let conv = |v: &[f64]| v.iter().map(|&x| of(x)).collect::<Vec<T>>();
    let (ta, tb, mut tc) = (conv(&a), conv(&b), conv(&c));
    gemm::gemm_with(
        opts,
        of(alpha),
        MatRef {
            data: &ta,
            rows: m,
            cols: k,
            row_stride: ga.rs,
            col_stride: ga.cs,
        },
        MatRef {
            data: &tb,
            rows: k,
            cols: n,
            row_stride: gb.rs,
            col_stride: gb.cs,
        },
        of(beta),
        MatMut {
            data: &mut tc,
            rows: m,
            cols: n,
            row_stride: gc.rs,
            col_stride: gc.cs,
        },
    )
    .unwrap();
    for i in 0..m {
        for j in 0..n {
            let o = gc.at(i, j);
            let got: f64 = tc[o].into();
            assert_eq!(
                got, want[o],
                "{opts:?} {m}×{k}×{n} {ga:?} {gb:?} {gc:?} α={alpha} β={beta} at ({i},{j})"
            );
        }
    }
    // elements of C's span outside C are untouched
    let mut inside = vec![false; tc.len()];
    for i in 0..m {
        for j in 0..n {
            inside[gc.at(i, j)] = true;
        }
    }
    for (o, (&x, &w)) in tc.iter().zip(&c).enumerate() {
        let x: f64 = x.into();
        if !inside[o] {
            assert!(
                x == w || (x.is_nan() && w.is_nan()),
                "{m}×{k}×{n} wrote {o} outside C"
            );
        }
    }
}

/// Every m ≤ 17, n ≤ 26 (one to three column blocks of every width) and a few k, on every
/// available instruction set, several stride orders, and the α/β kinds (one per case, rotating;
/// all four with `LAYOUT_FULL_SWEEP`) (with
/// [`Packing::Auto`]: every shape here is small enough for the unpacked tiles;
/// `Packing::Never` is in the proptest below).
#[test]
fn small_strided_products_match_the_definition() {
    let ks = [1usize, 3, 8, 17];
    for isa in Isa::available() {
        for packing in [Packing::Auto] {
            let opts = Options {
                isa,
                threads: 1,
                packing,
            };
            for m in 1..=17 {
                for n in 1..=26 {
                    for &k in &ks {
                        // orders: (A, B, C)
                        let order = (m + n + k) % 6;
                        let gs = [
                            (geom(m, k, 0), geom(k, n, 0), geom(m, n, 0)),
                            (geom(m, k, 1), geom(k, n, 1), geom(m, n, 1)),
                            (
                                geom(m, k, order),
                                geom(k, n, (order + 1) % 6),
                                geom(m, n, (order + 2) % 6),
                            ),
                        ];
                        for (gi, g) in gs.into_iter().enumerate() {
                            // every α/β kind under LAYOUT_FULL_SWEEP (CI), else one per case,
                            // rotating so each kind meets every shape and order across the sweep
                            let kinds = [(1.0, 0.0), (-2.0, 0.5), (0.0, 0.0), (0.5, 1.0)];
                            let first = (m + 2 * n + k + gi) % 4;
                            let count = if full_sweep() { 4 } else { 1 };
                            for &(alpha, beta) in kinds.iter().cycle().skip(first).take(count) {
                                check::<f32>(|x| x as f32, opts, [m, k, n], g, alpha, beta);
                                check::<f64>(|x| x, opts, [m, k, n], g, alpha, beta);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The tiny route (`front::strided`: every extent at most 64, m, n ≥ 2, `Packing::Auto`) on
/// every available instruction set: whole domains of m ≤ 18 and 31–34 (one and two vectors of
/// rows, their masked edges) by n ≤ 13, 25, 26 (one tile of every width, then the loop nest) at
/// k = 1, 7,
/// and the edges of the route (extents 63, 64, 65), each in column-major, row-major and mixed
/// odd-stride orders, with the α/β kinds rotating (α = 0: A and B are NaN and must not be read;
/// β = 0: C is NaN and must not be read).
#[test]
fn tiny_products_match_the_definition() {
    let kinds = [(1.0, 0.0), (-2.0, 0.5), (0.0, 0.0), (0.5, 1.0), (0.0, 2.0)];
    let mut shapes = Vec::new();
    for m in (1..=18).chain(31..=34) {
        for n in (1..=13).chain([25, 26]) {
            for k in [1usize, 7] {
                shapes.push([m, k, n]);
            }
        }
    }
    for m in [2usize, 16, 63, 64, 65] {
        for n in [2usize, 13, 63, 64, 65] {
            for k in [3usize, 64, 65] {
                shapes.push([m, k, n]);
            }
        }
    }
    for isa in Isa::available() {
        let opts = Options::from(isa);
        for (t, &[m, k, n]) in shapes.iter().enumerate() {
            let order = t % 6;
            let gs = [
                (geom(m, k, 0), geom(k, n, 0), geom(m, n, 0)),
                (geom(m, k, 1), geom(k, n, 1), geom(m, n, 1)),
                (
                    geom(m, k, order),
                    geom(k, n, (order + 3) % 6),
                    geom(m, n, (order + 2) % 6),
                ),
            ];
            for (gi, g) in gs.into_iter().enumerate() {
                let (alpha, beta) = kinds[(t + gi) % kinds.len()];
                check::<f32>(|x| x as f32, opts, [m, k, n], g, alpha, beta);
                check::<f64>(|x| x, opts, [m, k, n], g, alpha, beta);
            }
        }
    }
}

/// `sgemm`, `dgemm` and `gemm_with` on [`Options::default`] (the instruction set
/// `LAYOUT_GEMM_ISA` selects: run under each by the test below) on tiny products of every
/// α/β kind, column-major, row-major and odd strides, against the definition.
#[test]
fn tiny_entries_on_the_selected_instruction_set() {
    let kinds = [(1.0, 0.0), (-2.0, 0.5), (0.0, 0.0), (0.5, 1.0)];
    let mut t = 0;
    for m in [1usize, 2, 4, 5, 9, 16, 17, 33, 64] {
        for n in [1usize, 2, 7, 12, 13, 25, 64] {
            for k in [1usize, 8, 9, 64] {
                t += 1;
                let o = t % 6;
                let g = (
                    geom(m, k, o),
                    geom(k, n, (o + 1) % 6),
                    geom(m, n, (o + 4) % 6),
                );
                let (alpha, beta) = kinds[t % 4];
                check_blas(|x| x as f32, [m, k, n], g, alpha, beta);
                check_blas(|x| x, [m, k, n], g, alpha, beta);
                let gc = (geom(m, k, 0), geom(k, n, 0), geom(m, n, 0));
                check::<f32>(|x| x as f32, Options::default(), [m, k, n], gc, alpha, beta);
                let gr = (geom(m, k, 1), geom(k, n, 1), geom(m, n, 1));
                check::<f64>(|x| x, Options::default(), [m, k, n], gr, alpha, beta);
            }
        }
    }
}

/// The test above in child processes of this executable under every `LAYOUT_GEMM_ISA`
/// (AVX-512, AVX2 and the portable tiles each run the entries' tiny products).
#[test]
fn tiny_entries_under_every_instruction_set_override() {
    let exe = std::env::current_exe().unwrap();
    for isa in ["avx512", "avx2", "portable"] {
        let out = runner::command(&exe)
            .args([
                "--exact",
                "tiny_entries_on_the_selected_instruction_set",
                "--test-threads=1",
            ])
            .env("LAYOUT_GEMM_ISA", isa)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "LAYOUT_GEMM_ISA={isa}: {text}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            text.contains("1 passed"),
            "LAYOUT_GEMM_ISA={isa}: the test did not run: {text}"
        );
    }
}

/// The element types of the BLAS-style entries.
trait Blas: layout::gemm::Element + Into<f64> {
    /// `sgemm` or `dgemm`.
    #[allow(clippy::too_many_arguments)]
    fn gemm(
        mkn: [usize; 3],
        alpha: Self,
        a: (&[Self], Geom),
        b: (&[Self], Geom),
        beta: Self,
        c: (&mut [Self], Geom),
    ) -> Result<(), GemmError>;
}

macro_rules! blas {
    ($t:ty, $f:path) => {
        impl Blas for $t {
            fn gemm(
                [m, k, n]: [usize; 3],
                alpha: $t,
                (a, ga): (&[$t], Geom),
                (b, gb): (&[$t], Geom),
                beta: $t,
                (c, gc): (&mut [$t], Geom),
            ) -> Result<(), GemmError> {
                $f(
                    m, k, n, alpha, a, ga.rs, ga.cs, b, gb.rs, gb.cs, beta, c, gc.rs, gc.cs,
                )
            }
        }
    };
}
blas!(f32, gemm::sgemm);
blas!(f64, gemm::dgemm);

/// [`check`] through `sgemm`/`dgemm`.
fn check_blas<T: Blas>(
    of: impl Fn(f64) -> T,
    mkn: [usize; 3],
    (ga, gb, gc): (Geom, Geom, Geom),
    alpha: f64,
    beta: f64,
) {
    let [m, _, n] = mkn;
    let fill = |g: Geom, seed: usize, nan: bool| -> Vec<f64> {
        (0..g.span().0)
            .map(|i| if nan { f64::NAN } else { val(i, seed) })
            .collect()
    };
    let (a, b, c) = (
        fill(ga, 1, alpha == 0.0),
        fill(gb, 2, alpha == 0.0),
        fill(gc, 3, beta == 0.0),
    );
    let want = naive(mkn, alpha, (&a, ga), (&b, gb), beta, (&c, gc));
    let conv = |v: &[f64]| v.iter().map(|&x| of(x)).collect::<Vec<T>>();
    let (ta, tb, mut tc) = (conv(&a), conv(&b), conv(&c));
    T::gemm(
        mkn,
        of(alpha),
        (&ta, ga),
        (&tb, gb),
        of(beta),
        (&mut tc, gc),
    )
    .unwrap();
    let mut inside = vec![false; tc.len()];
    for i in 0..m {
        for j in 0..n {
            inside[gc.at(i, j)] = true;
        }
    }
    for (o, &x) in tc.iter().enumerate() {
        let inside = inside[o];
        let x: f64 = x.into();
        let w = if inside { want[o] } else { c[o] };
        assert!(
            x == w || (!inside && x.is_nan() && w.is_nan()),
            "{:?} {mkn:?} {ga:?} {gb:?} {gc:?} α={alpha} β={beta} at {o}: {x} ≠ {w}",
            Isa::selected_for_gemm()
        );
    }
}

/// Whether every case runs (`LAYOUT_FULL_SWEEP`, as CI's full sweep sets it).
fn full_sweep() -> bool {
    std::env::var_os("LAYOUT_FULL_SWEEP").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Two threads split the columns at multiples of the tile; each part runs its own edge tiles.
#[test]
fn small_products_on_two_threads() {
    for isa in Isa::available() {
        let opts = Options {
            isa,
            threads: 2,
            packing: Packing::Never,
        };
        for n in [25usize, 37, 50] {
            for m in [5usize, 16, 33] {
                let g = (geom(m, 9, 0), geom(9, n, 2), geom(m, n, 2));
                check::<f32>(|x| x as f32, opts, [m, 9, n], g, 1.5, 0.5);
                check::<f64>(|x| x, opts, [m, 9, n], g, 1.0, 0.0);
            }
        }
    }
}

/// A rank-2 `DynLayout` of `(rows, cols):(rs, cs)` (or nested, `((r0, r1), cols)`, when
/// `nested`), and the buffer length it needs past `base`.
fn layout(g: Geom, nested: bool) -> DynLayout {
    let s = if nested && g.rows.is_multiple_of(2) && g.rows > 2 {
        format!(
            "(({},2),{}):(({},{}),{})",
            g.rows / 2,
            g.cols,
            g.rs,
            g.rs * (g.rows / 2) as isize,
            g.cs
        )
    } else {
        format!("({},{}):({},{})", g.rows, g.cols, g.rs, g.cs)
    };
    s.parse().unwrap()
}

/// One tensor product against the definition: flat run-time layouts (read in place), nested
/// ones (the general form), base offsets, every instruction set (unavailable ones refused,
/// nothing written).
fn check_tensor(
    isa: Isa,
    [m, k, n]: [usize; 3],
    orders: [usize; 3],
    nested: bool,
    alpha: f64,
    beta: f64,
) {
    let (ga, gb, gc) = (
        geom(m, k, orders[0]),
        geom(k, n, orders[1]),
        geom(m, n, orders[2]),
    );
    let base = 2usize;
    let fill = |g: Geom, seed: usize, nan: bool| -> Vec<f64> {
        (0..g.span().0 + base)
            .map(|i| if nan { f64::NAN } else { val(i, seed) })
            .collect()
    };
    let (a, b, c) = (
        fill(ga, 1, alpha == 0.0),
        fill(gb, 2, alpha == 0.0),
        fill(gc, 3, beta == 0.0),
    );
    let want = naive(
        [m, k, n],
        alpha,
        (&a[base..], ga),
        (&b[base..], gb),
        beta,
        (&c[base..], gc),
    );
    let t = |v: &[f64]| -> Vec<f32> { v.iter().map(|&x| x as f32).collect() };
    let (ta, tb, mut tc) = (t(&a), t(&b), t(&c));
    let c_before = tc.clone();
    let r = {
        let xa =
            Tensor::with_offset(&ta[..], layout(ga, nested), base + ga.span().1 as usize).unwrap();
        let xb =
            Tensor::with_offset(&tb[..], layout(gb, nested), base + gb.span().1 as usize).unwrap();
        let mut xc =
            Tensor::with_offset(&mut tc[..], layout(gc, nested), base + gc.span().1 as usize)
                .unwrap();
        gemm::gemm_tensors_with(isa, alpha as f32, &xa, &xb, beta as f32, &mut xc)
    };
    if !isa.is_available() {
        assert!(
            matches!(r, Err(GemmError::IsaUnavailable { .. })),
            "{isa:?}"
        );
        assert!(
            tc.iter()
                .zip(&c_before)
                .all(|(x, y)| x.to_bits() == y.to_bits())
        );
        return;
    }
    r.unwrap();
    for i in 0..m {
        for j in 0..n {
            let o = gc.at(i, j);
            assert_eq!(
                f64::from(tc[base + o]),
                want[o],
                "{isa:?} {m}×{k}×{n} orders {orders:?} nested {nested} α={alpha} β={beta} ({i},{j})"
            );
        }
    }
}

/// The tensor entry on flat and nested run-time layouts of every order, whole small domains.
#[test]
fn tensor_products_match_the_definition() {
    for isa in Isa::ALL {
        for m in 1..=9 {
            for n in 1..=9 {
                for k in [1usize, 2, 5, 8] {
                    let o = (m * 3 + n + k) % 6;
                    for orders in [[0, 0, 0], [1, 1, 1], [o, (o + 1) % 6, (o + 3) % 6]] {
                        for nested in [false, true] {
                            for (alpha, beta) in [(1.0, 0.0), (-2.0, 0.5), (0.0, 0.0), (0.0, 1.0)] {
                                check_tensor(isa, [m, k, n], orders, nested, alpha, beta);
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Shape mismatches on flat run-time layouts are refused with the general form's error.
#[test]
fn tensor_shape_mismatch_is_refused() {
    let l = |s: &str| s.parse::<DynLayout>().unwrap();
    let a = Tensor::new(vec![1f32; 6], l("(2,3):(3,1)")).unwrap();
    let b = Tensor::new(vec![1f32; 8], l("(4,2):(2,1)")).unwrap();
    let mut c = Tensor::new(vec![5f32; 4], l("(2,2):(2,1)")).unwrap();
    let r = gemm::gemm(1.0, &a, &b, 0.0, &mut c);
    assert!(
        matches!(
            r,
            Err(GemmError::ShapeMismatch {
                a: [2, 3],
                b: [4, 2],
                c: [2, 2],
                ..
            })
        ),
        "{r:?}"
    );
    assert_eq!(c.as_slice(), &[5.0; 4]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Random small shapes, stride orders and α/β kinds on every available instruction set.
    #[test]
    fn random_small_products(
        m in 1usize..40, k in 1usize..20, n in 1usize..40,
        oa in 0usize..6, ob in 0usize..6, oc in 0usize..6,
        ab in 0usize..4,
    ) {
        let (alpha, beta) = [(1.0, 0.0), (-2.0, 0.5), (0.0, 0.0), (0.5, 1.0)][ab];
        for isa in Isa::available() {
            for packing in [Packing::Auto, Packing::Never] {
                let opts = Options { isa, threads: 1, packing };
                let g = (geom(m, k, oa), geom(k, n, ob), geom(m, n, oc));
                check::<f32>(|x| x as f32, opts, [m, k, n], g, alpha, beta);
                check::<f64>(|x| x, opts, [m, k, n], g, alpha, beta);
            }
            check_tensor(isa, [m, k, n], [oa, ob, oc], false, alpha, beta);
        }
    }
}
