//! `Swizzle<B,M,S>` as an F2 layout, against the swizzle's own `apply` over whole domains.

use crate::table;
use layout::f2::F2Layout;
use layout::{Sw, Swizzle, SwizzleFn};

/// Every valid swizzle whose bits fit in 12, and each domain from its bits up to 12.
#[test]
fn every_small_swizzle_converts_exactly() {
    let mut checked = 0;
    for b in 0..=6i64 {
        for m in 0..=12i64 {
            for s in -12..=12i64 {
                let Ok(sw) = Swizzle::new(b, m, s) else {
                    continue;
                };
                let need = if b == 0 { 0 } else { b + m + s.abs() };
                if need > 12 {
                    continue;
                }
                for bits in need as usize..=12 {
                    let f = F2Layout::from_swizzle(sw, bits).unwrap();
                    let t = table(&f);
                    for (x, &y) in t.iter().enumerate() {
                        assert_eq!(y as i64, sw.apply(x as i64), "{sw} on {bits} bits at {x}");
                    }
                    // an involution: its own inverse, and composing twice is the identity
                    assert!(f.is_invertible());
                    assert_eq!(f.invert().unwrap(), f);
                    assert!(f.compose(&f).unwrap().is_identity());
                    checked += 1;
                }
                if need > 0 {
                    assert!(F2Layout::from_swizzle(sw, need as usize - 1).is_err());
                }
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn static_swizzle_agrees() {
    let f = F2Layout::from_swizzle(Sw::<3, 4, 3>::SWIZZLE, 10).unwrap();
    for x in 0..1024u64 {
        assert_eq!(
            f.apply_flat(x).unwrap() as i64,
            Sw::<3, 4, 3>.apply(x as i64)
        );
    }
}

/// Two swizzles with the same shift compose to the XOR of their masks (CuTe's rule), and F2
/// composition finds the same map.
#[test]
fn swizzle_composition_matches_cute() {
    let a = F2Layout::from_swizzle(Swizzle::new(1, 2, 3).unwrap(), 8).unwrap();
    let b = F2Layout::from_swizzle(Swizzle::new(1, 3, 3).unwrap(), 8).unwrap();
    let c = F2Layout::from_swizzle(Swizzle::new(2, 2, 3).unwrap(), 8).unwrap();
    assert_eq!(a.compose(&b).unwrap(), c);
}
