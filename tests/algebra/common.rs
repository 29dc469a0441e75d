//! `coalesce_z`, `greatest_common_domain`, `layout_add`, `make_layout_like`,
//! `make_ordered_layout`: each checked against its definition over the whole domain.

use crate::*;
use proptest::prelude::*;

/// A random factorization of `n` into extents (in random order), as a nested layout with
/// random strides.
fn same_size(rng: &mut Seeded, n: i64) -> DynLayout {
    let mut s = Vec::new();
    let mut m = n;
    let mut p = 2;
    while m > 1 {
        if m % p == 0 {
            s.push(p);
            m /= p;
        } else {
            p += 1;
        }
    }
    // merge some neighbouring factors
    let mut v: Vec<i64> = Vec::new();
    for x in s {
        match v.last_mut() {
            Some(y) if rng.coin() => *y *= x,
            _ => v.push(x),
        }
    }
    if v.is_empty() {
        v.push(1);
    }
    let d: Vec<i64> = v.iter().map(|_| rng.range(0, 9)).collect();
    nest(rng, &v, &d)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn coalesce_z_is_coalesce_keeping_a_trailing_unit(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, Gen { negative: true, ..SMALL });
        let r = l.coalesce_z();
        prop_assert_eq!(r.size(), l.size());
        prop_assert!(r.depth() <= 1);
        prop_assert_eq!(offsets(&r), offsets(&l), "{} -> {}", l, r);
        // it differs from coalesce only by a trailing extent-1 leaf
        let c = l.coalesce();
        if r != c {
            let (s, d) = (r.shape_leaves(), r.stride_leaves());
            prop_assert_eq!(*s.last().unwrap(), 1, "{} -> {} vs {}", l, r, c);
            prop_assert_eq!(*l.shape_leaves().last().unwrap(), 1);
            prop_assert_eq!(*d.last().unwrap(), *l.stride_leaves().last().unwrap());
        }
    }

    #[test]
    fn greatest_common_domain_is_a_common_linear_lattice(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let a = layout(&mut rng, SMALL);
        let b = if rng.coin() { same_size(&mut rng, a.size()) } else { layout(&mut rng, SMALL) };
        let g = a.greatest_common_domain(&b);
        prop_assert_eq!(g, b.greatest_common_domain(&a), "symmetric");
        prop_assert!(g.depth() <= 1);
        let gcd = {
            let (mut x, mut y) = (a.size(), b.size());
            while y != 0 { let t = x % y; x = y; y = t; }
            x
        };
        prop_assert_eq!(gcd % g.size(), 0, "{} {} -> {}", a, b, g);
        // both layouts are linear on the lattice: L(G(c)) == Σ c_k · L(d_k)
        let (s, d) = (g.shape_leaves().to_vec(), g.stride_leaves().to_vec());
        for l in [&a, &b] {
            for i in 0..g.size() {
                let c = g.index_to_coord(i);
                let lin: i64 = c.leaves().iter().zip(&d).map(|(&ck, &dk)| ck * l.offset(dk)).sum();
                prop_assert_eq!(l.offset(g.offset(i)), lin, "{} on {} (shape {:?})", l, g, s);
            }
        }
    }

    #[test]
    fn layout_add_adds_offsets(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let a = layout(&mut rng, Gen { negative: true, ..SMALL });
        let b = if rng.coin() {
            // same shape, other strides: always addable
            let mut st = a.stride();
            for x in st.leaves_mut() { *x = rng.range(-4, 9); }
            DynLayout::new(&a.shape(), &st).unwrap()
        } else {
            same_size(&mut rng, a.size())
        };
        let same_shape = a.shape() == b.shape();
        match a.layout_add(&b) {
            Ok(r) => {
                prop_assert_eq!(r.size(), a.size());
                for i in 0..a.size() {
                    prop_assert_eq!(r.offset(i), a.offset(i) + b.offset(i), "{} + {} = {}", a, b, r);
                }
                prop_assert_eq!(Ok(r), b.layout_add(&a), "symmetric");
            }
            Err(e) => {
                prop_assert!(!same_shape, "{} + {}: {}", a, b, e);
                prop_assert!(matches!(e, layout::LayoutError::Precondition { .. }), "{}", e);
            }
        }
    }

    #[test]
    fn make_layout_like_orders_compact_strides_like_the_source(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, Gen { negative: true, ..SMALL });
        let r = l.make_layout_like().unwrap();
        prop_assert_eq!(r.shape(), l.shape());
        prop_assert_eq!(r.make_layout_like().unwrap(), r, "idempotent");
        let (d, e) = (l.stride_leaves(), r.stride_leaves());
        for k in 0..d.len() {
            prop_assert_eq!(d[k] == 0 || l.shape_leaves()[k] == 1, e[k] == 0);
            for j in 0..d.len() {
                if d[k] != 0 && d[j] != 0 && d[k].abs() < d[j].abs() {
                    let one = l.shape_leaves()[k] == 1 || l.shape_leaves()[j] == 1;
                    prop_assert!(e[k] < e[j] || one, "{} -> {}", l, r);
                }
            }
        }
        // the moving leaves are compact: a bijection onto 0..their size
        let moving = r.filter_zeros();
        let mut img: Vec<i64> = offsets(&moving);
        img.sort();
        prop_assert!(img.iter().copied().eq(0..moving.size()), "{} -> {}", l, r);
    }

    #[test]
    fn make_ordered_layout_is_compact_in_the_given_order(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, SMALL);
        let shape = l.shape();
        let mut order = shape;
        for o in order.leaves_mut() { *o = rng.range(0, 5); }
        let r = DynLayout::make_ordered_layout(&shape, &order).unwrap();
        prop_assert_eq!(r.shape(), shape);
        let (o, e) = (order.leaves(), r.stride_leaves());
        for k in 0..o.len() {
            for j in 0..o.len() {
                if o[k] < o[j] || (o[k] == o[j] && k < j) {
                    prop_assert!(e[k] < e[j] || shape.leaves()[k] == 1, "{} by {} -> {}", shape, order, r);
                }
            }
        }
        let mut img = offsets(&r);
        img.sort();
        prop_assert!(img.iter().copied().eq(0..r.size()));
    }
}

#[test]
fn pycute_examples() {
    assert_eq!(
        dl("(2,1,6,1):(1,7,8,0)").coalesce_z().to_string(),
        "(2,6,1):(1,8,0)"
    );
    let gcd = |a: &str, b: &str| dl(a).greatest_common_domain(&dl(b)).to_string();
    assert_eq!(gcd("10:1", "10:1"), "10:1");
    assert_eq!(gcd("(16,3):(1,16)", "(16,3):(1,16)"), "(16,3):(1,16)");
    assert_eq!(gcd("(5,3):(1,5)", "(3,5):(1,3)"), "1:0");
    let add = |a: &str, b: &str| dl(a).layout_add(&dl(b)).unwrap().to_string();
    assert_eq!(add("12:1", "12:1"), "12:2");
    assert_eq!(add("5:0", "5:1"), "5:1");
    assert_eq!(add("(5,3,4):(1,5,15)", "(10,6):(1,10)"), "60:2");
    assert!(dl("4:1").layout_add(&dl("5:1")).is_err());
    assert_eq!(
        dl("(4,8):(1,4)").make_layout_like().unwrap().to_string(),
        "(4,8):(1,4)"
    );
    let ord = |s: &str, o: &str| {
        DynLayout::make_ordered_layout(&dt(s), &dt(o))
            .unwrap()
            .to_string()
    };
    assert_eq!(ord("(4,8)", "(0,1)"), "(4,8):(1,4)");
    assert_eq!(ord("(4,8)", "(1,0)"), "(4,8):(8,1)");
    assert!(DynLayout::make_ordered_layout(&dt("(4,8)"), &dt("(1,(0,2))")).is_err());
}
