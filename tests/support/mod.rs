//! The one home of the test suite's random inputs: a seeded generator and the random layouts,
//! shapes and strategies every test binary draws from (`mod support;` in a top-level test file,
//! `#[path = "../support/mod.rs"] mod support;` in a test directory's `main.rs`).
//!
//! Seeds come from proptest (`any::<u64>()`), so a failing case is reproducible from the seed
//! proptest prints; the generators are plain functions so that the definitions they feed stay
//! readable.

#![allow(dead_code)] // each test binary uses its own part

pub mod routes;

use layout::{DynLayout, DynTuple};

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
    /// Uniform in `[lo, hi]`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as u64) as i64
    }
    /// `true` with probability `percent` / 100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn coin(&mut self) -> bool {
        self.next_u64() & 1 == 1
    }
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.range(0, i as i64) as usize;
            v.swap(i, j);
        }
    }
}

/// What kinds of strides to generate.
#[derive(Clone, Copy)]
pub struct Gen {
    pub max_leaves: u64,
    pub max_extent: i64,
    pub negative: bool,
    /// Reach the integer edges: with this set, [`layout`] returns in about half the cases a
    /// layout from [`huge_layout`] (extents and strides near 2^31, 2^62 and `i64::MAX`).
    pub huge: bool,
}

pub const SMALL: Gen = Gen {
    max_leaves: 5,
    max_extent: 6,
    negative: false,
    huge: false,
};

/// The edges the huge generators aim at.
pub const EDGES: [i64; 4] = [1 << 31, 1 << 32, 1 << 62, i64::MAX];

/// A valid layout whose extents, strides or offsets sit near an integer edge: each leaf is
/// either a small extent with a stride close to `edge / (extent - 1)` or a huge extent (up to
/// the edge) with a small stride; the cosize fits `i64` by construction, and often only just.
pub fn huge_layout(rng: &mut Seeded, negative: bool) -> DynLayout {
    loop {
        let n = 1 + rng.below(3) as usize;
        let edge = EDGES[rng.below(EDGES.len() as u64) as usize];
        // share the budget among the leaves so that the cosize stays below the edge
        let budget = edge / n as i64;
        let mut s = vec![1i64; n];
        let mut d = vec![1i64; n];
        for k in 0..n {
            if rng.coin() {
                s[k] = rng.range(2, 4);
                let top = budget / (s[k] - 1);
                d[k] = top - rng.range(0, 2.min(top - 1));
            } else {
                let top = budget.min(1 << 62);
                s[k] = top - rng.range(0, 3);
                d[k] = if budget / s[k] >= 2 && rng.coin() {
                    2
                } else {
                    1
                };
            }
            if rng.chance(10) {
                d[k] = 0;
            }
            if negative && rng.chance(30) {
                d[k] = -d[k];
            }
        }
        if let Ok(l) = DynLayout::from_flat(&s, &d) {
            return if rng.coin() { l } else { nest(rng, &s, &d) };
        }
    }
}

/// An offset `O` that puts `O + x` near the edge of `i64` for `x` in `[lo, hi]`: just inside,
/// exactly at, or just past `i64::MAX` or `i64::MIN`.
pub fn edge_offset(rng: &mut Seeded, lo: i64, hi: i64) -> i64 {
    let slack = rng.range(-2, 2) as i128;
    let o = if rng.coin() {
        i64::MAX as i128 - hi as i128 + slack
    } else {
        i64::MIN as i128 - lo as i128 + slack
    };
    o.clamp(i64::MIN as i128, i64::MAX as i128) as i64
}

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
    if g.huge && rng.coin() {
        return huge_layout(rng, g.negative);
    }
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

/// A random injective strided layout for `shape` (leaves in a random memory order, random gaps
/// and signs, axes of extent 4 or 6 sometimes split into a hierarchical mode), plus the base
/// offset and buffer length that make it fit.
pub fn random_layout(rng: &mut Seeded, shape: &[i64]) -> (DynLayout, usize, usize) {
    // leaves per axis, fastest first within an axis
    let mut axes: Vec<Vec<i64>> = vec![];
    for &e in shape {
        if (e == 4 || e == 6) && rng.coin() {
            axes.push(if rng.coin() {
                vec![2, e / 2]
            } else {
                vec![e / 2, 2]
            });
        } else {
            axes.push(vec![e]);
        }
    }
    let mut leaves: Vec<(usize, usize)> = axes
        .iter()
        .enumerate()
        .flat_map(|(k, a)| (0..a.len()).map(move |j| (k, j)))
        .collect();
    rng.shuffle(&mut leaves);
    let mut strides: Vec<Vec<i64>> = axes.iter().map(|a| vec![0; a.len()]).collect();
    let mut next = 1i64;
    for &(k, j) in &leaves {
        let gap = if rng.range(0, 4) == 0 { 2 } else { 1 };
        let s = next * gap;
        strides[k][j] = if rng.range(0, 3) == 0 { -s } else { s };
        next = s * axes[k][j];
    }
    let mut sh = DynTuple::EMPTY;
    let mut st = DynTuple::EMPTY;
    for (a, s) in axes.iter().zip(&strides) {
        if a.len() == 1 {
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
    let len = base + hi as usize + 1 + rng.range(0, 2) as usize;
    (l, base, len)
}

/// A random shape of rank 1..=`max_rank` with extents in 1..=`max_extent` (4 and 6 favoured).
pub fn random_shape(rng: &mut Seeded, max_rank: i64) -> Vec<i64> {
    let r = rng.range(1, max_rank);
    (0..r)
        .map(|_| [1, 2, 3, 4, 6, 5][rng.range(0, 5) as usize])
        .collect()
}

/// A proptest strategy over [`layout`] with the generator settings `g` (shrinks by seed).
pub fn arb_layout(g: Gen) -> impl proptest::strategy::Strategy<Value = DynLayout> {
    use proptest::prelude::*;
    any::<u64>().prop_map(move |s| layout(&mut Seeded(s), g))
}

// `DynTuple` is used by the tensor generators
const _: Option<DynTuple> = None;
