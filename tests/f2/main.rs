//! F2-linear layouts and mixed layouts, checked by brute force against the definitions.
//!
//! The definition of an F2 layout is `L(x) = XOR of the bases of the set bits of x` (module
//! `reference`, written independently of the library). Every operation is checked over its whole
//! domain (at most 2^12 points) on seeded random bases, and proptest drives the seeds (modest
//! case counts: the domains are exhaustive already).

mod f2_ops;
mod mixed;
mod pycute;
mod swizzle;

#[path = "../support/mod.rs"]
mod support;
pub use support::Seeded;

use layout::f2::F2Layout;
use std::collections::BTreeSet;

/// Number of proptest cases per property.
pub const CASES: u32 = 48;

/// The definition: XOR of `bases[i]` over the set bits `i` of `x`.
pub fn reference(bases: &[u64], x: u64) -> u64 {
    bases
        .iter()
        .enumerate()
        .filter(|(i, _)| (x >> i) & 1 == 1)
        .fold(0, |acc, (_, &b)| acc ^ b)
}

/// All flat images of `l`, by brute force from its bases.
pub fn table(l: &F2Layout) -> Vec<u64> {
    let b = l.flat_bases();
    (0..1u64 << l.in_bits()).map(|x| reference(b, x)).collect()
}

/// The number of distinct images.
pub fn distinct(t: &[u64]) -> usize {
    t.iter().collect::<BTreeSet<_>>().len()
}

/// A random single-input, single-output layout: `ib` input bits into `ob` output bits; with
/// `bias` a fraction of the bases are zero or repeated, so non-injective maps occur.
pub fn random(g: &mut Seeded, ib: usize, ob: usize) -> F2Layout {
    let m = if ob == 0 { 0 } else { (1u64 << ob) - 1 };
    let mut bases: Vec<u64> = Vec::new();
    for _ in 0..ib {
        let b = match g.below(8) {
            0 => 0,
            1 if !bases.is_empty() => bases[g.below(bases.len() as u64) as usize],
            2 | 3 if ob > 0 => 1u64 << g.below(ob as u64),
            _ => g.next_u64() & m,
        };
        bases.push(b);
    }
    F2Layout::output(&[("o", 1u64 << ob)])
        .unwrap()
        .with_input("i", &bases)
        .unwrap()
}

/// A random bijection on `n` bits: a product of random elementary row operations of the
/// identity, and a random permutation.
pub fn random_bijection(g: &mut Seeded, n: usize) -> F2Layout {
    let mut bases: Vec<u64> = (0..n).map(|i| 1u64 << i).collect();
    if n > 1 {
        for _ in 0..3 * n {
            let a = g.below(n as u64) as usize;
            let b = g.below(n as u64) as usize;
            if a != b {
                bases[a] ^= bases[b];
            }
        }
        for i in (1..n).rev() {
            let j = g.below(i as u64 + 1) as usize;
            bases.swap(i, j);
        }
    }
    F2Layout::output(&[("o", 1u64 << n)])
        .unwrap()
        .with_input("i", &bases)
        .unwrap()
}
