//! The tensor front's set-up on run-time layouts (`DynLayout`): the extents of rank-2 layouts
//! read off their axes in place, the strided form and the axis maps taken from the layouts
//! themselves (no copies), and `Axes` found in one pass over a profile. Operands whose two axes
//! are each split into nested leaves (extent-1 leaves, splits of the extent, leaves in any
//! memory order with gaps and negative strides) — some strided per axis, most read through axis
//! maps — against the naive product read through tensor indexing, on every instruction set and
//! packing, with C's buffer outside its layout untouched; and the rank errors of layouts that
//! are not matrices.

mod support;

use layout::gemm::{self, GemmError, Isa, Options, Packing};
use layout::tensor::Tensor;
use layout::{DynLayout, DynTuple};
use proptest::prelude::*;
use support::Seeded;

/// A rank-2 layout of `rows × cols`: each axis one to three leaves (a factor split, an
/// extent-1 leaf), nested as a mode or flat, the leaves in a random memory order with random
/// gaps and signs. Returns the layout, its base offset and a buffer length that holds it.
fn nested(rng: &mut Seeded, [rows, cols]: [i64; 2]) -> (DynLayout, usize, usize) {
    let split = |rng: &mut Seeded, e: i64| -> Vec<i64> {
        let mut v = match (2..e).find(|f| e % f == 0) {
            Some(f) if rng.coin() => vec![f, e / f],
            _ => vec![e],
        };
        if rng.chance(30) {
            let at = rng.below(v.len() as u64 + 1) as usize;
            v.insert(at, 1);
        }
        v
    };
    let axes = [split(rng, rows), split(rng, cols)];
    let mut leaves: Vec<(usize, usize)> = axes
        .iter()
        .enumerate()
        .flat_map(|(k, a)| (0..a.len()).map(move |j| (k, j)))
        .collect();
    rng.shuffle(&mut leaves);
    let mut strides = [vec![0i64; axes[0].len()], vec![0i64; axes[1].len()]];
    let mut next = 1i64;
    for &(k, j) in &leaves {
        let gap = if rng.chance(25) { 2 } else { 1 };
        let s = next * gap;
        strides[k][j] = if rng.chance(20) { -s } else { s };
        next = s * axes[k][j];
    }
    let (mut sh, mut st) = (DynTuple::EMPTY, DynTuple::EMPTY);
    for (a, s) in axes.iter().zip(&strides) {
        if a.len() == 1 && rng.coin() {
            sh.push_mode(&DynTuple::leaf(a[0])).unwrap();
            st.push_mode(&DynTuple::leaf(s[0])).unwrap();
        } else {
            sh.push_mode(&DynTuple::from_slice(a).unwrap()).unwrap();
            st.push_mode(&DynTuple::from_slice(s).unwrap()).unwrap();
        }
    }
    let l = DynLayout::new(&sh, &st).unwrap();
    let (lo, hi) = l.offset_range();
    let base = (-lo + rng.range(0, 2)) as usize;
    (l, base, base + hi as usize + 1 + rng.range(0, 2) as usize)
}

macro_rules! check {
    ($name:ident, $t:ty) => {
        /// `α·A·B + β·C` on nested layouts of `mkn` on every instruction set and packing; the
        /// first mismatch.
        fn $name([m, k, n]: [i64; 3], beta0: bool, seed: u64) -> Result<(), String> {
            let mut rng = Seeded(seed);
            let (la, ba, na) = nested(&mut rng, [m, k]);
            let (lb, bb, nb) = nested(&mut rng, [k, n]);
            let (lc, bc, nc) = nested(&mut rng, [m, n]);
            let fill = |rng: &mut Seeded, len: usize| -> Vec<$t> {
                (0..len).map(|_| rng.range(-4, 5) as $t).collect()
            };
            let a = fill(&mut rng, na);
            let b = fill(&mut rng, nb);
            let mut c = fill(&mut rng, nc);
            let (alpha, beta): ($t, $t) = (rng.range(1, 3) as $t, if beta0 { 0.0 } else { -1.0 });
            if beta0 {
                // β = 0: C is never read (a NaN would leak into the product)
                c.iter_mut().for_each(|x| *x = <$t>::NAN);
            }
            let ta = Tensor::with_offset(&a[..], la, ba).unwrap();
            let tb = Tensor::with_offset(&b[..], lb, bb).unwrap();
            let c0 = Tensor::with_offset(&c[..], lc, bc).unwrap();
            let mut want = vec![0 as $t; (m * n) as usize];
            for i in 0..m {
                for j in 0..n {
                    let s: $t = (0..k).map(|p| ta[[i, p]] * tb[[p, j]]).sum();
                    want[(i * n + j) as usize] = if beta0 {
                        alpha * s
                    } else {
                        alpha * s + beta * c0[[i, j]]
                    };
                }
            }
            let mut inside = vec![false; c.len()];
            for x in 0..m * n {
                inside[(bc as i64 + lc.offset(x)) as usize] = true;
            }
            for isa in Isa::available() {
                for packing in [Packing::Auto, Packing::Always, Packing::Never] {
                    let mut c2 = c.clone();
                    let mut tc = Tensor::with_offset(&mut c2[..], lc, bc).unwrap();
                    let opts = Options {
                        isa,
                        threads: 1,
                        packing,
                    };
                    gemm::gemm_tensors_with(opts, alpha, &ta, &tb, beta, &mut tc)
                        .map_err(|e| format!("{e:?}"))?;
                    let at = format!(
                        "{} {la} × {lb} → {lc}, α={alpha} β={beta} ({isa:?}, {packing:?})",
                        stringify!($t)
                    );
                    for i in 0..m {
                        for j in 0..n {
                            let (got, w) = (tc[[i, j]], want[(i * n + j) as usize]);
                            if got != w {
                                return Err(format!("{at}: C({i},{j}) = {got}, want {w}"));
                            }
                        }
                    }
                    for (x, (&got, &was)) in c2.iter().zip(&c).enumerate() {
                        if !inside[x] && got.to_bits() != was.to_bits() {
                            return Err(format!("{at}: offset {x} outside C written"));
                        }
                    }
                }
            }
            Ok(())
        }
    };
}

check!(check_f32, f32);
check!(check_f64, f64);

/// Every extent in 1..=7 (ones, odd sizes, factor splits of 4 and 6), both element types, a
/// few layout draws each.
#[test]
fn nested_operands_over_small_domains() {
    let mut seed = 1u64;
    for m in 1..=7 {
        for k in 1..=7 {
            for n in 1..=7 {
                seed += 1;
                let beta0 = seed.is_multiple_of(3);
                check_f32([m, k, n], beta0, seed).unwrap();
                check_f64([m, k, n], !beta0, seed.wrapping_mul(31)).unwrap();
            }
        }
    }
}

/// The rank errors of run-time layouts that are not matrices: the same error as the general
/// form gives (a leaf is rank 1).
#[test]
fn layouts_that_are_not_matrices() {
    let rank_of = |s: &str, operand: usize| -> Option<usize> {
        let l: DynLayout = s.parse().unwrap();
        let r2 = |r: i64, c: i64| -> DynLayout { format!("({r},{c}):(1,{r})").parse().unwrap() };
        let (a, b, c) = match operand {
            0 => (l, r2(6, 4), r2(6, 4)),
            1 => (r2(4, 6), l, r2(4, 4)),
            _ => (r2(4, 6), r2(6, 4), l),
        };
        let (va, vb) = (vec![1f32; 64], vec![1f32; 64]);
        let mut vc = vec![0f32; 64];
        let ta = Tensor::new(&va[..], a).unwrap();
        let tb = Tensor::new(&vb[..], b).unwrap();
        let mut tc = Tensor::new(&mut vc[..], c).unwrap();
        match gemm::gemm(1.0f32, &ta, &tb, 0.0, &mut tc) {
            Err(GemmError::NotMatrix { rank, .. }) => Some(rank),
            _ => None,
        }
    };
    for operand in 0..3 {
        assert_eq!(rank_of("24:1", operand), Some(1), "operand {operand}");
        assert_eq!(
            rank_of("(2,3,4):(1,2,6)", operand),
            Some(3),
            "operand {operand}"
        );
        assert_eq!(
            rank_of("((2,3,4)):((1,2,6))", operand),
            Some(1),
            "operand {operand}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Random extents up to 40 (past an AVX-512 tile, under the tiny bound) and layout draws.
    #[test]
    fn nested_operands(m in 1i64..=40, k in 1i64..=40, n in 1i64..=40, beta0 in any::<bool>(),
                       seed in any::<u64>()) {
        prop_assert_eq!(check_f32([m, k, n], beta0, seed), Ok(()));
        prop_assert_eq!(check_f64([m, k, n], beta0, seed ^ 0x5eed), Ok(()));
    }
}
