//! Every F2 operation against its definition, over whole domains.

use crate::{CASES, Seeded, distinct, random, random_bijection, reference, table};
use layout::f2::{F2Error, F2Layout};
use proptest::prelude::*;

#[test]
fn apply_is_the_xor_of_the_bases() {
    let l: F2Layout = "{reg:[(0,1),(0,2)],lane:[(1,0),(3,1),(0,0)]} -> {row:4,col:4}"
        .parse()
        .unwrap();
    for reg in 0..4u64 {
        for lane in 0..8u64 {
            let flat = reg | lane << 2;
            let y = reference(l.flat_bases(), flat);
            assert_eq!(l.apply_flat(flat).unwrap(), y);
            assert_eq!(l.apply(&[reg, lane]).unwrap().as_slice(), &[y & 3, y >> 2]);
        }
    }
    // 2-d bases written by hand: lane 2 ↦ (3,1) is row 3, col 1 → flat 3 + 4·1
    assert_eq!(l.flat_bases(), &[4, 8, 1, 7, 0]);
    assert!(matches!(
        l.apply(&[4, 0]),
        Err(F2Error::CoordOutOfRange {
            value: 4,
            size: 4,
            ..
        })
    ));
    assert!(matches!(
        l.apply(&[0]),
        Err(F2Error::CoordArity {
            expected: 2,
            got: 1
        })
    ));
}

#[test]
fn text_round_trips_and_errors_name_the_numbers() {
    for s in [
        "{} -> {}",
        "{x:[]} -> {y:1}",
        "{reg:[1,2],lane:[4,8,16]} -> {offset:32}",
        "{a:[(1,0),(0,3)]} -> {r:2,c:4}",
        "{a:[(),()]} -> {}",
    ] {
        let l: F2Layout = s.parse().unwrap();
        assert_eq!(l.to_string(), s);
        assert_eq!(l.to_string().parse::<F2Layout>().unwrap(), l);
    }
    let e = |s: &str| s.parse::<F2Layout>().unwrap_err().to_string();
    assert_eq!(
        e("{x:[1,8]} -> {y:8}"),
        "basis x=2 has coordinate 8 in output dimension `y` of size 8"
    );
    assert_eq!(
        e("{x:[(1,2)]} -> {y:8}"),
        "basis x=1 has 2 coordinates; there are 1 output dimensions"
    );
    assert_eq!(
        e("{x:[1],x:[2]} -> {y:8}"),
        "input dimension `x` is given twice"
    );
    assert_eq!(
        e("{x:[1]} -> {y:12}"),
        "output dimension `y` has size 12, which is not a power of two"
    );
    assert_eq!(
        e("{x:[1] -> {y:8}"),
        "expected `,` or `}` after a dimension at byte 7"
    );
    assert_eq!(
        e("{x:[99999999999999999999]} -> {y:8}"),
        "expected an integer below 2^64 at byte 4"
    );
    let many = format!("{{x:[{}]}} -> {{y:2}}", vec!["0"; 63].join(","));
    assert_eq!(e(&many), "63 input bits; at most 62 are allowed");
}

#[test]
fn swizzle_and_identity_constructors() {
    let id = F2Layout::identity("x", 12).unwrap();
    assert!(id.is_identity() && id.is_invertible());
    assert_eq!(table(&id), (0..4096).collect::<Vec<_>>());
    assert!(F2Layout::identity("x", 63).is_err());
}

/// rank = log2 of the number of distinct images; injective/surjective/invertible by counting.
fn check_rank(l: &F2Layout) {
    let t = table(l);
    let d = distinct(&t);
    assert!(d.is_power_of_two());
    assert_eq!(l.rank(), d.trailing_zeros() as usize, "{l}");
    assert_eq!(l.is_injective(), d == t.len(), "{l}");
    assert_eq!(l.is_surjective(), d == 1usize << l.out_bits(), "{l}");
    assert_eq!(
        l.is_invertible(),
        d == t.len() && d == 1usize << l.out_bits(),
        "{l}"
    );
}

fn check_compose(a: &F2Layout, b: &F2Layout) {
    // b: i -> o (ob bits); a: o -> o. rename a's input to b's output name
    let a = a.rename_inputs(&[("i", "o")]).unwrap();
    let r = a.compose(b).unwrap();
    let (ta, tb) = (table(&a), table(b));
    for x in 0..1u64 << b.in_bits() {
        assert_eq!(
            r.apply_flat(x).unwrap(),
            ta[tb[x as usize] as usize],
            "{a} ∘ {b} at {x}"
        );
    }
}

fn check_inverses(l: &F2Layout) {
    let t = table(l);
    let d = distinct(&t);
    let n = t.len();
    let m = 1usize << l.out_bits();
    match l.invert() {
        Ok(inv) => {
            assert!(d == n && d == m);
            let ti = table(&inv);
            for x in 0..n {
                assert_eq!(ti[t[x] as usize], x as u64);
                assert_eq!(t[ti[x] as usize], x as u64);
            }
        }
        Err(e) => {
            assert!(d != n || d != m, "{l}: {e}");
            assert!(matches!(e, F2Error::NotInvertible { .. }));
        }
    }
    match l.left_inverse() {
        Ok(r) => {
            assert_eq!(d, n);
            let tr = table(&r);
            for x in 0..n {
                assert_eq!(tr[t[x] as usize], x as u64, "{l} left inverse {r}");
            }
        }
        Err(e) => {
            assert!(d < n);
            assert!(matches!(e, F2Error::NotInjective { .. }));
        }
    }
    match l.right_inverse() {
        Ok(r) => {
            assert_eq!(d, m);
            let tr = table(&r);
            for y in 0..m {
                assert_eq!(t[tr[y] as usize], y as u64, "{l} right inverse {r}");
            }
        }
        Err(e) => {
            assert!(d < m);
            assert!(matches!(e, F2Error::NotSurjective { .. }));
        }
    }
    match l.complement() {
        Ok(c) => {
            assert_eq!(d, n);
            let tc = table(&c);
            // images meet only in 0, and together they cover the output exactly once
            let s = l.stack(&c).unwrap();
            let ts = table(&s);
            assert_eq!(ts.len(), m);
            assert_eq!(distinct(&ts), m, "{l} with complement {c}");
            for (i, &v) in tc.iter().enumerate().skip(1) {
                assert!(
                    !t.contains(&v),
                    "complement image {v} (index {i}) is in the image"
                );
            }
            // the complement uses unit vectors, lowest first
            for w in c.flat_bases().windows(2) {
                assert!(w[0] < w[1]);
            }
        }
        Err(e) => {
            assert!(d < n);
            assert!(matches!(e, F2Error::NotInjective { .. }));
        }
    }
}

fn check_contiguous(l: &F2Layout) {
    let t = table(l);
    let w = l.contiguous_width("i").unwrap() as usize;
    // the definition: the largest 2^k with L(x + i) = L(x) + i for every x that is a multiple
    // of 2^k and every i < 2^k (runs land contiguously, in order)
    let ok = |k: usize| {
        (0..t.len())
            .step_by(1 << k)
            .all(|x| (0..1usize << k).all(|i| t[x + i] == t[x] + i as u64))
    };
    let mut k = 0;
    while (1usize << (k + 1)) <= t.len() && ok(k + 1) {
        k += 1;
    }
    assert_eq!(w, 1 << k, "{l}");
    let sub = l.contiguous_sublayout("i").unwrap();
    assert_eq!(table(&sub), (0..w as u64).collect::<Vec<_>>());
}

fn check_direct_sum(a: &F2Layout, b: &F2Layout) {
    // disjoint names: R(x, y) = (a(x), b(y))
    let b2 = b
        .rename_inputs(&[("i", "j")])
        .unwrap()
        .rename_outputs(&[("o", "p")])
        .unwrap();
    let s = a.direct_sum(&b2).unwrap();
    let (ta, tb) = (table(a), table(b));
    for (x, &ax) in ta.iter().enumerate() {
        for (y, &by) in tb.iter().enumerate() {
            assert_eq!(
                s.apply(&[x as u64, y as u64]).unwrap().as_slice(),
                &[ax, by]
            );
        }
    }
    // shared names: input i = x + 2^ia·y, output o = a(x) + 2^oa·b(y)
    let s = a.direct_sum(b).unwrap();
    let ts = table(&s);
    for (x, &ax) in ta.iter().enumerate() {
        for (y, &by) in tb.iter().enumerate() {
            let i = x | y << a.in_bits();
            assert_eq!(ts[i], ax | by << a.out_bits());
        }
    }
}

/// Sweeps small shapes exhaustively in size and randomly in bases.
fn sweep(seed: u64, f: impl Fn(&mut Seeded, usize, usize)) {
    let mut g = Seeded(seed);
    for ib in 0..=6 {
        for ob in 0..=6 {
            f(&mut g, ib, ob);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(CASES))]

    #[test]
    fn rank_and_injectivity_by_counting(seed in any::<u64>()) {
        sweep(seed, |g, ib, ob| check_rank(&random(g, ib, ob)));
        let mut g = Seeded(seed);
        check_rank(&random(&mut g, 12, 12));
        check_rank(&random_bijection(&mut g, 12));
    }

    #[test]
    fn composition_is_function_composition(seed in any::<u64>()) {
        sweep(seed, |g, ib, ob| {
            let b = random(g, ib, ob);
            let oa = g.below(7) as usize;
            let a = random(g, ob, oa);
            check_compose(&a, &b);
        });
        let mut g = Seeded(seed);
        let b = random_bijection(&mut g, 12);
        let a = random(&mut g, 12, 12);
        check_compose(&a, &b);
    }

    #[test]
    fn inverses_and_complements(seed in any::<u64>()) {
        sweep(seed, |g, ib, ob| check_inverses(&random(g, ib, ob)));
        let mut g = Seeded(seed);
        let n = 1 + g.below(12) as usize;
        let l = random_bijection(&mut g, n);
        check_inverses(&l);
        let inv = l.invert().unwrap();
        prop_assert!(inv.compose(&l).unwrap().is_identity());
        prop_assert!(l.compose(&inv).unwrap().is_identity());
    }

    #[test]
    fn contiguous_width_is_the_longest_identity_prefix(seed in any::<u64>()) {
        sweep(seed, |g, ib, ob| {
            let mut l = random(g, ib, ob);
            if g.below(2) == 0 && ib > 0 && ob >= ib {
                // plant a contiguous prefix of random length
                let k = g.below(ib as u64 + 1) as usize;
                let mut b = l.flat_bases().to_vec();
                for (i, v) in b.iter_mut().enumerate().take(k) {
                    *v = 1 << i;
                }
                l = F2Layout::output(&[("o", 1 << ob)]).unwrap().with_input("i", &b).unwrap();
            }
            check_contiguous(&l);
        });
        // whole 2^12 domains: a bijection with a planted contiguous prefix
        let mut g = Seeded(seed);
        let l = random_bijection(&mut g, 12);
        let k = g.below(13) as usize;
        let mut b = l.flat_bases().to_vec();
        for (i, v) in b.iter_mut().enumerate().take(k) {
            *v = 1 << i;
        }
        let l = F2Layout::output(&[("o", 1 << 12)]).unwrap().with_input("i", &b).unwrap();
        check_contiguous(&l);
    }

    #[test]
    fn direct_sums(seed in any::<u64>()) {
        let mut g = Seeded(seed);
        // 6 + 6 input bits: the whole 2^12 domain of the sum
        let (a, b) = (random(&mut g, 6, 6), random(&mut g, 6, 5));
        check_direct_sum(&a, &b);
        for _ in 0..8 {
            let a = { let (x, y) = (g.below(6) as usize, g.below(6) as usize); random(&mut g, x, y) };
            let b = { let (x, y) = (g.below(6) as usize, g.below(6) as usize); random(&mut g, x, y) };
            check_direct_sum(&a, &b);
        }
    }

    #[test]
    fn text_round_trips(seed in any::<u64>()) {
        let mut g = Seeded(seed);
        let a = { let (x, y) = (g.below(8) as usize, g.below(8) as usize); random(&mut g, x, y) };
        let b = { let (x, y) = (g.below(8) as usize, g.below(8) as usize); random(&mut g, x, y) }
            .rename_inputs(&[("i", "lane")]).unwrap().rename_outputs(&[("o", "col")]).unwrap();
        for l in [a, a.direct_sum(&b).unwrap()] {
            prop_assert_eq!(l.to_string().parse::<F2Layout>().unwrap(), l);
        }
    }

    #[test]
    fn hostile_text_is_an_error_not_a_panic(s in "[{}\\[\\](),:0-9a-z> -]{0,40}") {
        let _ = s.parse::<F2Layout>();
        let _ = s.parse::<layout::f2::MixedLayout>();
    }
}
