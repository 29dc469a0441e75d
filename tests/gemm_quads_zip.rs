//! The integer pairs with an `i8` B (`u8 × i8`, `i8 × i8`: the byte-quad kernels) where an
//! operand's packed dimension is contiguous, so that the packer zips four k rows into quads
//! (`quads::zip4`: AVX-512, SSE2 or byte by byte, by level): B row-major (its columns zipped
//! into the vector or broadcast panels), A column-major, C of either order inside a larger
//! buffer. Every instruction set, lengths along the zipped dimension 1 ..= 70 and a few past
//! 128 (whole and partial panels of every width the kernels use), against the naive `i64`
//! product, with every element of C's buffer outside C checked untouched.

#[path = "support/cases.rs"]
mod cases;
mod support;

use layout::gemm::{self, Isa, MatMut, MatRef, Options, Packing, Pair};
use proptest::prelude::*;
use support::Seeded;

/// An 8-bit operand type of these tests.
trait Byte: Copy + Pair<i8, Out = i32> + core::fmt::Debug {
    fn of(x: u8) -> Self;
    fn int(self) -> i64;
}

impl Byte for u8 {
    fn of(x: u8) -> Self {
        x
    }
    fn int(self) -> i64 {
        i64::from(self)
    }
}

impl Byte for i8 {
    fn of(x: u8) -> Self {
        x as i8
    }
    fn int(self) -> i64 {
        i64::from(self)
    }
}

/// One product `C ← α·A·B + β·C` at `(m, k, n)`: A row- or column-major, B row-major (its
/// packed dimension, n, contiguous), C row- or column-major with a leading dimension 3 past
/// its rows or columns; on every level, packing forced and not; against the naive product.
#[allow(clippy::too_many_arguments)]
fn check<A: Byte>(
    rng: &mut Seeded,
    (m, k, n): (usize, usize, usize),
    a_cm: bool,
    c_cm: bool,
    (alpha, beta): (i32, i32),
) {
    let a: Vec<A> = (0..m * k).map(|_| A::of(rng.below(256) as u8)).collect();
    let b: Vec<i8> = (0..k * n).map(|_| rng.below(256) as u8 as i8).collect();
    let (ars, acs) = if a_cm { (1, m) } else { (k, 1) };
    let (crs, ccs, clen) = if c_cm {
        (1, m + 3, (m + 3) * n)
    } else {
        (n + 3, 1, (n + 3) * m)
    };
    let c0: Vec<i32> = (0..clen).map(|_| rng.range(-50, 50) as i32).collect();
    let want = |i: usize, j: usize| -> i32 {
        let s: i64 = (0..k)
            .map(|p| a[i * ars + p * acs].int() * i64::from(b[p * n + j]))
            .sum();
        (i64::from(alpha) * s + i64::from(beta) * i64::from(c0[i * crs + j * ccs])) as i32
    };
    for isa in Isa::available() {
        for packing in [Packing::Always, Packing::Auto] {
            let mut c = c0.clone();
            gemm::gemm_with(
                Options {
                    isa,
                    threads: 1,
                    packing,
                },
                alpha,
                MatRef {
                    data: &a,
                    rows: m,
                    cols: k,
                    row_stride: ars as isize,
                    col_stride: acs as isize,
                },
                MatRef {
                    data: &b,
                    rows: k,
                    cols: n,
                    row_stride: n as isize,
                    col_stride: 1,
                },
                beta,
                MatMut {
                    data: &mut c,
                    rows: m,
                    cols: n,
                    row_stride: crs as isize,
                    col_stride: ccs as isize,
                },
            )
            .unwrap();
            let mut inside = vec![false; clen];
            for i in 0..m {
                for j in 0..n {
                    let o = i * crs + j * ccs;
                    inside[o] = true;
                    assert_eq!(
                        c[o],
                        want(i, j),
                        "{}: {m}×{k}×{n} A {} C {} ({isa:?}, {packing:?}, α {alpha} β {beta}) at ({i},{j})",
                        core::any::type_name::<A>(),
                        if a_cm { "col-major" } else { "row-major" },
                        if c_cm { "col-major" } else { "row-major" },
                    );
                }
            }
            for (o, (&g, &w)) in c.iter().zip(&c0).enumerate() {
                assert!(
                    inside[o] || g == w,
                    "{m}×{k}×{n} ({isa:?}): offset {o} written"
                );
            }
        }
    }
}

/// Every length 1 ..= 70 of the zipped dimension (B's columns, and A's rows where A is
/// column-major) and a few past 128, on both pairs, both orders of A and C, k a multiple of 4
/// and not.
#[test]
fn zipped_operands_match_the_naive_product() {
    let mut rng = Seeded(13);
    for n in (1..=70).chain([127, 129, 130]) {
        let m = [2, 13, 35, 66][n % 4];
        let k = [3, 8, 37, 64][(n / 4) % 4];
        for (a_cm, c_cm) in [(false, false), (true, true), (false, true), (true, false)] {
            let ab = [(1, 0), (1, 1), (-3, 2)][n % 3];
            check::<u8>(&mut rng, (m, k, n), a_cm, c_cm, ab);
            check::<i8>(&mut rng, (m, k, n), a_cm, c_cm, ab);
        }
        // the zipped dimension on the other side too: A column-major with m = n
        check::<u8>(&mut rng, (n, k, 7), true, false, (1, 0));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(24)))]
    /// Random shapes (k past one block of 1024 sometimes) and orders, both pairs.
    #[test]
    fn zipped_operands_on_random_shapes(
        m in 1usize..80, k in 1usize..1100, n in 1usize..150,
        a_cm: bool, c_cm: bool, signed: bool, ab in 0usize..3, seed: u64,
    ) {
        let mut rng = Seeded(seed);
        let ab = [(1, 0), (1, 1), (2, -1)][ab];
        if signed {
            check::<i8>(&mut rng, (m, k, n), a_cm, c_cm, ab);
        } else {
            check::<u8>(&mut rng, (m, k, n), a_cm, c_cm, ab);
        }
    }
}
