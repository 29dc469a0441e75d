//! Property and example tests of the layout algebra: one module per operation, one binary.
//!
//! Random layouts come from a small seeded generator driven by proptest (ranks 1–4, nesting,
//! stride 0, negative strides, non-injective layouts, compact permutations); every property is
//! checked by brute force over the whole domain.

#[path = "../support/cases.rs"]
mod cases;
mod cast;
mod coalesce;
mod common;
mod complement;
mod composition;
mod divide;
mod inverse;
mod product;
#[path = "../support/runner.rs"]
mod runner;
mod slice;
mod stack;
mod static_tile;
mod statics;
mod vector;

#[path = "../support/mod.rs"]
mod support;
pub use support::{Gen, SMALL, Seeded, layout, nest};

use layout::{DynLayout, DynTuple};
use std::collections::BTreeSet;

/// Number of random cases per property in the full sweep (`LAYOUT_FULL_SWEEP=1`); a quarter by
/// default (see `cases.rs`).
pub const CASES: u32 = 3000;

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
        cases: cases::cases(CASES),
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
