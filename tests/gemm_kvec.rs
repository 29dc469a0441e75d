//! The k-vector route (A·Bᵀ with A's rows and B's columns contiguous along k, read in place):
//! random shapes around every tile edge and k tail, strided and mapped operands, C of several
//! layouts inside a larger buffer whose other bytes must stay untouched, every instruction set
//! this machine runs, every packing choice and 1–3 threads, against a naive product in `f64`.
//! Integer-valued data makes every result exact, so the routes must agree bit for bit. (That
//! thread counts give identical bits on rounding data is `tests/gemm.rs`'s
//! `threads_give_identical_results`, whose A·Bᵀ operands take this route.)

#[path = "support/cases.rs"]
mod cases;
mod support;

use layout::gemm::{self, Isa, MatMut, MatRef, Options, Packing};
use layout::tensor::Tensor;
use layout::{AnyLayout, DynLayout};
use support::Seeded;

trait El: gemm::Element + From<i16> + Into<f64> {}
impl El for f32 {}
impl El for f64 {}

fn opts(isa: Isa, threads: usize, packing: Packing) -> Options {
    Options {
        isa,
        threads,
        packing,
    }
}

/// A·Bᵀ through `gemm_with`: A m × k row-major with row stride `lda ≥ k`, B k × n stored as
/// Bᵀ row-major (column stride `ldb ≥ k`), C m × n with strides (rs, cs) at offset `off` in a
/// buffer of sentinels.
fn strided_case<T: El>(rng: &mut Seeded, m: usize, k: usize, n: usize) {
    let lda = k + rng.below(3) as usize;
    let ldb = k + rng.below(3) as usize;
    let a: Vec<T> = (0..m * lda)
        .map(|_| T::from(rng.range(-4, 5) as i16))
        .collect();
    let b: Vec<T> = (0..n * ldb)
        .map(|_| T::from(rng.range(-4, 5) as i16))
        .collect();
    // C row-major, column-major, or contiguous along neither axis (every other column)
    let form = rng.below(3);
    let row_major_c = form != 1;
    let pad = rng.below(3) as usize;
    let (rs, cs) = match form {
        0 => (n + pad, 1),
        1 => (1, m + pad),
        _ => (2 * n + pad, 2),
    };
    let off = rng.below(5) as usize;
    let len = off + (m - 1) * rs + (n - 1) * cs + 1 + rng.below(5) as usize;
    let c0: Vec<T> = (0..len).map(|_| T::from(rng.range(-3, 4) as i16)).collect();
    let (alpha, beta) = match rng.below(4) {
        0 => (1i16, 0i16),
        1 => (2, 1),
        2 => (-1, 3),
        _ => (3, 0),
    };
    // the naive product in f64 (exact: small integers)
    let mut want: Vec<f64> = c0.iter().map(|&x| x.into()).collect();
    for i in 0..m {
        for j in 0..n {
            let s: f64 = (0..k)
                .map(|p| a[i * lda + p].into() * b[j * ldb + p].into())
                .sum();
            let at = off + i * rs + j * cs;
            want[at] = alpha as f64 * s + beta as f64 * want[at];
        }
    }
    let inside = |at: usize| {
        at >= off && {
            let r = at - off;
            let (i, q) = if row_major_c {
                (r / rs, r % rs)
            } else {
                (r % cs, r / cs)
            };
            let (j, on) = if form == 2 {
                (q / 2, q % 2 == 0)
            } else {
                (q, true)
            };
            i < m && j < n && on
        }
    };
    let mut first: Option<Vec<T>> = None;
    for isa in Isa::available() {
        for packing in [Packing::Auto, Packing::Never, Packing::Always] {
            for threads in 1..=3 {
                let mut c = c0.clone();
                gemm::gemm_with(
                    opts(isa, threads, packing),
                    T::from(alpha),
                    MatRef {
                        data: &a,
                        rows: m,
                        cols: k,
                        row_stride: lda as isize,
                        col_stride: 1,
                    },
                    MatRef {
                        data: &b,
                        rows: k,
                        cols: n,
                        row_stride: 1,
                        col_stride: ldb as isize,
                    },
                    T::from(beta),
                    MatMut {
                        data: &mut c[off..],
                        rows: m,
                        cols: n,
                        row_stride: rs as isize,
                        col_stride: cs as isize,
                    },
                )
                .unwrap();
                for (at, (&got, &w)) in c.iter().zip(&want).enumerate() {
                    let got: f64 = got.into();
                    if inside(at) {
                        assert_eq!(
                            got, w,
                            "{isa:?} {packing:?} {threads} threads, {m}×{k}×{n}, element {at}"
                        );
                    } else {
                        assert_eq!(got, c0[at].into(), "byte outside C written at {at}");
                    }
                }
                // the same bits whatever the route and thread count (exact data)
                match &first {
                    None => first = Some(c),
                    Some(f) => assert!(f == &c, "{isa:?} {packing:?} {threads}"),
                }
            }
        }
    }
}

#[test]
fn strided_a_times_b_transposed_every_edge() {
    let mut rng = Seeded(0x6b76_6563);
    // every tile edge (3 rows, 4 columns) and k tail (8 f32 / 4 f64 lanes), then random sizes
    for m in 1..=7 {
        for n in 1..=9 {
            for k in [1, 3, 4, 5, 8, 9, 16, 17] {
                strided_case::<f32>(&mut rng, m, k, n);
                strided_case::<f64>(&mut rng, m, k, n);
            }
        }
    }
    for _ in 0..cases::cases(60) {
        let (m, k, n) = (
            1 + rng.below(70) as usize,
            1 + rng.below(90) as usize,
            1 + rng.below(70) as usize,
        );
        strided_case::<f32>(&mut rng, m, k, n);
        strided_case::<f64>(&mut rng, m, k, n);
    }
}

fn layout(text: &str) -> DynLayout {
    text.parse().unwrap()
}

/// Mapped operands: A's rows in blocks of 4 with a gap between blocks (its row axis is not one
/// stride), B's columns the same, k contiguous in both; C in an NZ-like layout (rows of 8
/// contiguous columns, the next 8 columns a block further) or column-major.
#[test]
fn mapped_rows_contiguous_k() {
    let mut rng = Seeded(0x6d61_7070);
    for _ in 0..cases::cases(40) {
        let (mb, nb) = (1 + rng.below(5) as i64, 1 + rng.below(3) as i64);
        let (m, n) = (4 * mb, 8 * nb);
        let k = 1 + rng.below(40) as i64;
        let gap = rng.below(3) as i64;
        // A: ((4, mb), k) : ((k, 4k + gap), 1)
        let la = layout(&format!("((4,{mb}),{k}):(({k},{}),1)", 4 * k + gap));
        // B (k × n): (k, (4, n/4)) : (1, (k, 4k + gap))
        let lb = layout(&format!("({k},(4,{})):(1,({k},{}))", n / 4, 4 * k + gap));
        let nz_c = rng.coin();
        let lc = if nz_c {
            // C: (m, (8, nb)) : (8, (1, 8m + 3))
            layout(&format!("({m},(8,{nb})):(8,(1,{}))", 8 * m + 3))
        } else {
            layout(&format!("({m},{n}):(1,{m})"))
        };
        let span = |l: &DynLayout| l.offset_bounds().unwrap().1 as usize + 1;
        let a: Vec<f32> = (0..span(&la)).map(|_| rng.range(-4, 5) as f32).collect();
        let b: Vec<f32> = (0..span(&lb)).map(|_| rng.range(-4, 5) as f32).collect();
        let c0: Vec<f32> = (0..span(&lc)).map(|_| rng.range(-3, 4) as f32).collect();
        let ta = Tensor::new(&a[..], la).unwrap();
        let tb = Tensor::new(&b[..], lb).unwrap();
        let (alpha, beta) = if rng.coin() { (1.0, 0.0) } else { (2.0, -1.0) };
        for isa in Isa::available() {
            for threads in 1..=2 {
                let mut c = c0.clone();
                {
                    let mut tc = Tensor::new(&mut c[..], lc).unwrap();
                    gemm::gemm_tensors_with(
                        opts(isa, threads, Packing::Auto),
                        alpha,
                        &ta,
                        &tb,
                        beta,
                        &mut tc,
                    )
                    .unwrap();
                }
                let tc0 = Tensor::new(&c0[..], lc).unwrap();
                let tc = Tensor::new(&c[..], lc).unwrap();
                let mut touched = vec![false; c.len()];
                for i in 0..m as usize {
                    for j in 0..n as usize {
                        let s: f32 = (0..k as usize).map(|p| ta[[i, p]] * tb[[p, j]]).sum();
                        let w = alpha * s + beta * tc0[[i, j]];
                        assert_eq!(tc[[i, j]], w, "{isa:?} {threads} {m}×{k}×{n} ({i}, {j})");
                        touched[lc.offset((i + j * m as usize) as i64) as usize] = true;
                    }
                }
                for (at, t) in touched.iter().enumerate() {
                    if !t {
                        assert_eq!(c[at], c0[at], "outside C written at {at}");
                    }
                }
            }
        }
    }
}
