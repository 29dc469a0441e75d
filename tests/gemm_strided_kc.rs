//! The blocked engine with a strided broadcast operand read in place (a column-major B under a
//! column-major C, a row-major A under a row-major C), whose k blocks may differ from the
//! packed route's (`KernelInfo::strided_kc`: the AVX-512 f64 kernel on AMD takes KC 512):
//! depths around both KC values, edges in m and n, β ≠ 0, every instruction set, one and two
//! threads, against a naive product of small integers (exact in any summation order), with the
//! bytes around C untouched; and the same bits for one and two threads on non-integer data.

#[path = "support/cases.rs"]
mod cases;
#[path = "support/mod.rs"]
mod support;

use layout::gemm::{self, Isa, MatMut, MatRef, Options, Packing};
use proptest::prelude::*;
use support::Seeded;

/// A float element of the tests.
trait F: Copy + PartialEq + core::fmt::Debug + gemm::Pair<Self, Out = Self> {
    fn of(x: i64) -> Self;
    fn real(x: f64) -> Self;
    fn int(self) -> i64;
}
impl F for f32 {
    fn of(x: i64) -> Self {
        x as f32
    }
    fn real(x: f64) -> Self {
        x as f32
    }
    fn int(self) -> i64 {
        self as i64
    }
}
impl F for f64 {
    fn of(x: i64) -> Self {
        x as f64
    }
    fn real(x: f64) -> Self {
        x
    }
    fn int(self) -> i64 {
        self as i64
    }
}

/// One product `C ← α·A·B + β·C`, `m × k × n`; `row_major`: A, B and C row-major (A is then
/// the operand read in place), else column-major (B read in place). Leading dimensions are
/// padded and C sits inside a larger buffer. Returns C's buffer.
#[allow(clippy::too_many_arguments)]
fn run<T: F>(
    [m, k, n]: [usize; 3],
    row_major: bool,
    a: &[T],
    b: &[T],
    c0: &[T],
    [alpha, beta]: [T; 2],
    isa: Isa,
    threads: usize,
) -> Vec<T> {
    let (lda, ldb, ldc) = lds([m, k, n], row_major);
    let (lda, ldb, ldc) = (lda as isize, ldb as isize, ldc as isize);
    let (ars, acs) = if row_major { (lda, 1) } else { (1, lda) };
    let (brs, bcs) = if row_major { (ldb, 1) } else { (1, ldb) };
    let (crs, ccs) = if row_major { (ldc, 1) } else { (1, ldc) };
    let mut c = c0.to_vec();
    let opts = Options {
        isa,
        threads,
        packing: Packing::Always,
    };
    gemm::gemm_with(
        opts,
        alpha,
        MatRef {
            data: a,
            rows: m,
            cols: k,
            row_stride: ars,
            col_stride: acs,
        },
        MatRef {
            data: b,
            rows: k,
            cols: n,
            row_stride: brs,
            col_stride: bcs,
        },
        beta,
        MatMut {
            data: &mut c[C_PAD..],
            rows: m,
            cols: n,
            row_stride: crs,
            col_stride: ccs,
        },
    )
    .unwrap();
    c
}

/// Elements of C's buffer before its first element.
const C_PAD: usize = 5;

/// Leading dimensions of A, B, C (each padded by 3).
fn lds([m, k, n]: [usize; 3], row_major: bool) -> (usize, usize, usize) {
    if row_major {
        (k + 3, n + 3, n + 3)
    } else {
        (m + 3, k + 3, m + 3)
    }
}

/// Buffer lengths of A, B, C for the shape.
fn lens([m, k, n]: [usize; 3], row_major: bool) -> [usize; 3] {
    let (lda, ldb, ldc) = lds([m, k, n], row_major);
    if row_major {
        [m * lda, k * ldb, C_PAD + m * ldc + 7]
    } else {
        [k * lda, n * ldb, C_PAD + n * ldc + 7]
    }
}

/// Small-integer data, every instruction set and one and two threads against the naive
/// product; elements of C's buffer outside C keep their values.
fn check<T: F>(rng: &mut Seeded, [m, k, n]: [usize; 3], row_major: bool) {
    let [la, lb, lc] = lens([m, k, n], row_major);
    let (lda, ldb, ldc) = lds([m, k, n], row_major);
    let a: Vec<T> = (0..la).map(|_| T::of(rng.range(-4, 4))).collect();
    let b: Vec<T> = (0..lb).map(|_| T::of(rng.range(-4, 4))).collect();
    let c0: Vec<T> = (0..lc).map(|_| T::of(rng.range(-50, 50))).collect();
    let (alpha, beta) = (rng.range(-2, 3), rng.range(-2, 3));
    let at = |i: usize, p: usize| if row_major { i * lda + p } else { i + p * lda };
    let bt = |p: usize, j: usize| if row_major { p * ldb + j } else { p + j * ldb };
    let ct = |i: usize, j: usize| C_PAD + if row_major { i * ldc + j } else { i + j * ldc };
    let int = |x: T| x.int();
    // the naive product, exact in i64
    let mut want = c0.clone();
    for i in 0..m {
        for j in 0..n {
            let s: i64 = (0..k).map(|p| int(a[at(i, p)]) * int(b[bt(p, j)])).sum();
            want[ct(i, j)] = T::of(alpha * s + beta * int(c0[ct(i, j)]));
        }
    }
    for isa in Isa::available() {
        for threads in [1, 2] {
            let got = run(
                [m, k, n],
                row_major,
                &a,
                &b,
                &c0,
                [T::of(alpha), T::of(beta)],
                isa,
                threads,
            );
            assert!(
                got == want,
                "{} {m}×{k}×{n} row-major {row_major} ({isa:?}, {threads} threads): {:?}",
                core::any::type_name::<T>(),
                got.iter()
                    .zip(&want)
                    .position(|(x, y)| x != y)
                    .map(|i| (i, got[i], want[i]))
            );
        }
    }
}

/// Depths around KC 256 and 512 (one k block, two, a short last one), m and n edges, both
/// orientations, f32 and f64, every instruction set.
#[test]
fn strided_in_place_depths() {
    let mut rng = Seeded(0x5ee_d13);
    for k in [1, 255, 256, 257, 300, 511, 512, 513, 769, 1025] {
        // from 256 rows on (8 micro-panels of 32) the AVX-512 f64 blocking for B in place
        for (m, n) in [(32, 6), (70, 7), (256, 13), (263, 6), (300, 31)] {
            for row_major in [false, true] {
                check::<f64>(&mut rng, [m, k, n], row_major);
                check::<f32>(&mut rng, [m, k, n], row_major);
            }
        }
    }
}

/// Whole small domains: every n in 1..=12 (each edge width of the 6-column tile and its
/// narrow forms) at the row counts around the bound of the strided blocking, past one k block.
#[test]
fn strided_in_place_small_domains() {
    let mut rng = Seeded(13);
    for m in [255, 256, 263, 288] {
        for n in 1..=12 {
            check::<f64>(&mut rng, [m, 513, n], false);
            check::<f64>(&mut rng, [m, 513, n], true);
        }
    }
}

/// One and two threads give the same bits on non-integer data (the k blocking and whether B is
/// read in place are chosen for the whole product, not per thread's part): m above the
/// in-place bound (1024 rows, so one thread packs B, as each of two threads' 520 rows must
/// too) and below it, split along m.
#[test]
fn strided_in_place_threads_agree() {
    let mut rng = Seeded(7);
    for [m, k, n] in [
        [1040, 600, 8],
        [1040, 600, 40],
        [700, 777, 20],
        [300, 520, 9],
    ] {
        for row_major in [false, true] {
            let [la, lb, lc] = lens([m, k, n], row_major);
            let real = |rng: &mut Seeded| rng.range(-1_000_000, 1_000_000) as f64 / 997.0;
            let a: Vec<f64> = (0..la).map(|_| real(&mut rng)).collect();
            let b: Vec<f64> = (0..lb).map(|_| real(&mut rng)).collect();
            let c0: Vec<f64> = (0..lc).map(|_| real(&mut rng)).collect();
            for isa in Isa::available() {
                let ab = [f64::real(0.75), f64::real(1.25)];
                let one = run([m, k, n], row_major, &a, &b, &c0, ab, isa, 1);
                let two = run([m, k, n], row_major, &a, &b, &c0, ab, isa, 2);
                assert!(
                    one == two,
                    "{m}×{k}×{n} row-major {row_major} ({isa:?}): 1 and 2 threads differ"
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(24)))]
    /// Random shapes with depths past KC, both orientations, f64.
    #[test]
    fn strided_in_place_random(
        m in 200usize..320,
        k in 200usize..1100,
        n in 1usize..30,
        row_major in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let mut rng = Seeded(seed);
        check::<f64>(&mut rng, [m, k, n], row_major);
    }
}
