//! Property and example tests of the layout algebra: one module per operation, one binary.
//!
//! Random layouts come from a small seeded generator driven by proptest (ranks 1–4, nesting,
//! stride 0, negative strides, non-injective layouts, compact permutations); every property is
//! checked by brute force over the whole domain.

mod cast;
mod coalesce;
mod complement;
mod composition;
mod divide;
mod inverse;
mod product;
mod slice;
mod stack;
mod statics;
mod vector;

use layout::{DynLayout, DynTuple};
use std::collections::BTreeSet;

/// Number of random cases per property.
pub const CASES: u32 = 3000;

/// SplitMix64: a tiny deterministic generator seeded by proptest.
pub struct Seeded(pub u64);

impl Seeded {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[0, n)`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// What kinds of strides to generate.
#[derive(Clone, Copy)]
pub struct Gen {
    pub max_leaves: u64,
    pub max_extent: i64,
    pub negative: bool,
}

pub const SMALL: Gen = Gen {
    max_leaves: 5,
    max_extent: 6,
    negative: false,
};

/// Nest flat leaves into a random profile with 1..=4 top-level modes.
pub fn nest(rng: &mut Seeded, s: &[i64], d: &[i64]) -> DynLayout {
    let n = s.len();
    if n == 1 && rng.chance(60) {
        return DynLayout::leaf(s[0], d[0]).unwrap();
    }
    let rank = 1 + rng.below(n.min(4) as u64) as usize;
    // split n leaves into `rank` non-empty consecutive groups
    let mut cuts: Vec<usize> = (1..n).collect();
    while cuts.len() > rank - 1 {
        let k = rng.below(cuts.len() as u64) as usize;
        cuts.remove(k);
    }
    let mut bounds = vec![0];
    bounds.extend(cuts);
    bounds.push(n);
    let mut parts = Vec::new();
    for w in bounds.windows(2) {
        let (a, b) = (w[0], w[1]);
        let part = if b - a == 1 && rng.chance(75) {
            DynLayout::leaf(s[a], d[a]).unwrap()
        } else {
            DynLayout::from_flat(&s[a..b], &d[a..b]).unwrap()
        };
        parts.push(part);
    }
    DynLayout::make_layout(&parts).unwrap()
}

/// A random layout: random strides, a compact permutation (possibly scaled, with gaps), or a
/// compact layout with some broadcast (stride-0) modes.
pub fn layout(rng: &mut Seeded, g: Gen) -> DynLayout {
    let n = 1 + rng.below(g.max_leaves) as usize;
    let s: Vec<i64> = (0..n).map(|_| rng.range(1, g.max_extent)).collect();
    let mut d = vec![0i64; n];
    match rng.below(4) {
        0 => {
            for x in d.iter_mut() {
                *x = rng.range(0, 12);
                if g.negative && rng.chance(20) {
                    *x = -*x;
                }
            }
        }
        1 | 2 => {
            // compact in a random order, with random gaps and an overall scale
            let mut order: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                let j = rng.below(i as u64 + 1) as usize;
                order.swap(i, j);
            }
            let mut acc = if rng.chance(30) { rng.range(1, 3) } else { 1 };
            for &k in &order {
                d[k] = acc;
                acc *= s[k];
                if rng.chance(20) {
                    acc *= rng.range(2, 3);
                }
            }
            if g.negative && rng.chance(15) {
                let k = rng.below(n as u64) as usize;
                d[k] = -d[k];
            }
        }
        _ => {
            let mut acc = 1;
            for k in 0..n {
                if rng.chance(25) {
                    d[k] = 0;
                } else {
                    d[k] = acc;
                    acc *= s[k];
                }
            }
        }
    }
    nest(rng, &s, &d)
}

/// All offsets of `l` over its domain, in index order.
pub fn offsets(l: &DynLayout) -> Vec<i64> {
    (0..l.size()).map(|i| l.offset(i)).collect()
}

/// The image of `l` as a set.
pub fn image(l: &DynLayout) -> BTreeSet<i64> {
    offsets(l).into_iter().collect()
}

/// `true` when no two indices of `l` share an offset.
pub fn injective(l: &DynLayout) -> bool {
    image(l).len() as i64 == l.size()
}

pub fn dl(s: &str) -> DynLayout {
    s.parse().unwrap_or_else(|e| panic!("bad layout {s}: {e}"))
}

pub fn dt(s: &str) -> DynTuple {
    s.parse().unwrap_or_else(|e| panic!("bad tuple {s}: {e}"))
}

/// proptest config with `CASES` cases.
pub fn config() -> proptest::test_runner::Config {
    proptest::test_runner::Config {
        cases: CASES,
        failure_persistence: None,
        ..Default::default()
    }
}

mod total {
    use super::*;
    use layout::{SliceCoord, Tile};
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(config())]

        /// Every operation returns a value or an error on any valid input — never a panic, even
        /// with huge strides where products overflow.
        #[test]
        fn no_operation_panics(seed in any::<u64>()) {
            let mut rng = Seeded(seed);
            let g = Gen { negative: true, ..SMALL };
            let mut a = layout(&mut rng, g);
            let b = layout(&mut rng, g);
            if rng.chance(10) {
                let mut s = a.stride();
                for x in s.leaves_mut() { *x = x.saturating_mul(1 << 40); }
                if let Ok(big) = DynLayout::new(&a.shape(), &s) { a = big; }
            }
            let t = Tile::from_shape(&DynTuple::from_slice(&[2, 3]).unwrap()).unwrap();
            let _ = (a.coalesce(), a.filter(), a.right_inverse(), a.nullspace());
            let _ = (a.composition(&b), a.composition_by_mode(&t), a.complement(rng.range(-2, 50)));
            let _ = (a.left_inverse(), a.logical_divide(&b), a.zipped_divide_by_mode(&t));
            let _ = (a.logical_product(&b), a.blocked_product(&b), a.raked_product(&b));
            let _ = (a.flat_product_by_mode(&t), a.tiled_divide(&b), a.max_common_layout(&b));
            let _ = (a.upcast(rng.range(-1, 8)), a.downcast(rng.range(-1, 8)), a.recast_layout(8, 32));
            let _ = (a.slice(&"(_,1)".parse::<SliceCoord>().unwrap()), a.local_partition(&b, rng.range(-1, 20)));
            let _ = a.local_tile(&t, &DynTuple::from_slice(&[rng.range(-1, 3), 0]).unwrap());
        }
    }
}
