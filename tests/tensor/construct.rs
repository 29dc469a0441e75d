//! Construction: bounds and injectivity checks, and attempts to escape the buffer.

use crate::reference::{Rng, buffer, materialize, offsets, random_layout, random_shape};
use layout::tensor::Tensor;
use layout::tensor::TensorError;
use layout::{DynLayout, Int, Layout, LayoutError};
use proptest::prelude::*;
use std::collections::HashSet;

fn dl(s: &str) -> DynLayout {
    s.parse().unwrap()
}

#[test]
fn huge_strides_are_refused() {
    let buf = [0u8; 16];
    // a stride far past the buffer
    let e = Tensor::new(&buf[..], dl("(2,2):(1,1000000000000)")).unwrap_err();
    assert!(
        matches!(
            e,
            TensorError::OutOfBuffer {
                hi: 1000000000001,
                len: 16,
                ..
            }
        ),
        "{e}"
    );
    // extent x stride overflows i64: refused by the layout itself
    let e = DynLayout::from_flat(&[3], &[i64::MAX / 2 + 1]).unwrap_err();
    assert_eq!(e, LayoutError::Overflow { what: "cosize" });
    // a typed layout with dynamic leaves is validated at construction
    let l = Layout::new((Int::<2>, 3i64), (Int::<1>, i64::MAX));
    assert!(matches!(
        Tensor::new(&buf[..], l),
        Err(TensorError::Layout(LayoutError::Overflow { .. }))
    ));
}

#[test]
fn negative_strides_need_enough_base_offset() {
    let buf = [0i32; 6];
    let l = dl("(2,3):(-3,1)"); // offsets -3..=2
    assert_eq!(
        Tensor::with_offset(&buf[..], l, 2).unwrap_err(),
        TensorError::OutOfBuffer {
            base: 2,
            lo: -3,
            hi: 2,
            len: 6
        }
    );
    assert!(Tensor::with_offset(&buf[..], l, 3).is_ok());
    assert!(Tensor::with_offset(&buf[..], l, 4).is_err()); // now the top end leaves
    // a base offset near usize::MAX cannot wrap around
    let e = Tensor::with_offset(&buf[..], dl("(1):(1)"), usize::MAX).unwrap_err();
    assert!(matches!(e, TensorError::OutOfBuffer { .. }));
    let e = Tensor::with_offset(&buf[..], dl("(3):(-1)"), usize::MAX).unwrap_err();
    assert!(matches!(e, TensorError::OutOfBuffer { .. }));
}

#[test]
fn out_of_domain_coordinates_are_none_not_memory() {
    let buf: Vec<i32> = (0..100).collect();
    let t = Tensor::new(&buf[..6], dl("(2,3):(3,1)")).unwrap();
    assert_eq!(t.get([2, 0]), None);
    assert_eq!(t.get([0, 3]), None);
    assert_eq!(t.get([-1, 0]), None);
    assert_eq!(t.get([0, 0, 0]), None);
    assert_eq!(t.at(6), None);
    assert_eq!(t.at(-1), None);
    let s = Layout::new((Int::<2>, Int::<3>), (Int::<3>, Int::<1>));
    let t = Tensor::new(&buf[..6], s).unwrap();
    assert_eq!(t.get((1, 2)), Some(&5));
    assert_eq!(t.get((1, 3)), None);
    assert_eq!(t.get(5), Some(&5));
    assert_eq!(t.get(6), None);
    assert_eq!(t.get((0, -1)), None);
}

#[test]
#[should_panic(expected = "coordinate out of the domain of a tensor of shape (2,3)")]
fn index_panics_outside_the_domain() {
    let t = Tensor::from_vec(vec![0; 6], &[2, 3]).unwrap();
    let _ = t[[0, 3]];
}

#[test]
fn static_layouts_stay_zero_sized() {
    let l = Layout::new((Int::<4>, Int::<8>), (Int::<8>, Int::<1>));
    let buf = [0f32; 32];
    let t = Tensor::new(&buf[..], l).unwrap();
    assert_eq!(std::mem::size_of_val(t.layout()), 0);
    // a reference plus a base offset: the layout costs nothing
    assert_eq!(
        std::mem::size_of_val(&t),
        std::mem::size_of::<(&[f32], usize)>()
    );
}

#[test]
fn writable_storage_needs_injective_layouts() {
    let mut buf = [0i32; 16];
    assert!(Tensor::new(&mut buf[..], dl("(3,3):(2,3)")).is_ok()); // injective, interleaved
    assert_eq!(
        Tensor::new(&mut buf[..], dl("(3,3):(1,2)")).unwrap_err(),
        TensorError::Layout(LayoutError::NotInjective { offset: 2 })
    );
    assert!(Tensor::new(&mut buf[..], dl("(4,1):(1,0)")).is_ok()); // extent-1 stride 0
    assert!(Tensor::new(vec![0; 4], dl("(2,2):(0,1)")).is_err());
    assert!(Tensor::new(&buf[..], dl("(3,3):(1,2)")).is_ok()); // read-only may alias
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(300)))]

    /// `with_offset` succeeds exactly when every offset lies in the buffer.
    #[test]
    fn bounds_check_is_exact(seed in any::<u64>(), base in 0usize..12, len in 1usize..40) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 3);
        let (l, _, _) = random_layout(&mut rng, &shape);
        let buf = buffer(len);
        let fits = offsets(&l).iter().all(|&o| o + (base as i64) >= 0 && o + (base as i64) < len as i64);
        let t = Tensor::with_offset(&buf[..], l, base);
        prop_assert_eq!(t.is_ok(), fits);
        if let Ok(t) = t {
            let nd = materialize(&t);
            prop_assert!(t.iter().copied().eq(nd.data.iter().copied()));
        }
    }

    /// Writable tensors are refused exactly when two coordinates share an offset.
    #[test]
    fn injectivity_check_is_exact(strides in proptest::collection::vec(-4i64..5, 1..4), ext in proptest::collection::vec(1i64..4, 3)) {
        let n = strides.len();
        let l = DynLayout::from_flat(&ext[..n], &strides).unwrap();
        let (lo, hi) = l.offset_range();
        let mut buf = vec![0i32; (hi - lo + 1) as usize];
        let offs = offsets(&l);
        let unique = offs.iter().collect::<HashSet<_>>().len() == offs.len();
        let t = Tensor::with_offset(&mut buf[..], l, (-lo) as usize);
        prop_assert_eq!(t.is_ok(), unique, "{}", l);
    }

    /// Iteration: logical order matches the reference; memory order visits the same elements
    /// by increasing address for these non-overlapping layouts.
    #[test]
    fn iteration_orders(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let mut buf = buffer(len);
        let mut t = Tensor::with_offset(&mut buf[..], l, base).unwrap();
        let nd = materialize(&t);
        prop_assert!(t.iter().copied().eq(nd.data.iter().copied()));
        let mem: Vec<i32> = t.iter_memory().copied().collect();
        let mut sorted = nd.data.clone();
        sorted.sort();
        prop_assert_eq!(&mem, &sorted); // buffer values increase with the address
        for (i, x) in t.iter_mut().enumerate() {
            *x = i as i32;
        }
        let nd2 = materialize(&t);
        prop_assert_eq!(nd2.data, (0..nd.data.len() as i32).collect::<Vec<_>>());
        // get by per-axis coordinate agrees with the reference
        for (i, c) in crate::reference::coords(&nd.shape).iter().enumerate() {
            prop_assert_eq!(t.get(&c[..]), Some(&(i as i32)));
        }
    }
}

/// Typed and run-time tensors take the same coordinate forms and agree on every element: 1-D
/// colexicographic indices, per-axis tuples and arrays, hierarchical tuples — each checked
/// against the offset computed from the definition (colex over the leaves).
#[test]
fn typed_and_dyn_tensors_take_the_same_coordinates() {
    // ((2,3),4):((1,8),2) — a hierarchical first axis, strides not row- or column-major
    let typed = Layout::new(
        ((Int::<2>, Int::<3>), Int::<4>),
        ((Int::<1>, Int::<8>), Int::<2>),
    );
    let dynl: DynLayout = "((2,3),4):((1,8),2)".parse().unwrap();
    let buf: Vec<i64> = (0..24).map(|x| x * 10).collect();
    let t = Tensor::new(&buf[..], typed).unwrap();
    let d = Tensor::new(&buf[..], dynl).unwrap();
    let offset = |a0: i64, a1: i64, j: i64| a0 + 8 * a1 + 2 * j; // the definition
    for j in 0..4i64 {
        for a1 in 0..3i64 {
            for a0 in 0..2i64 {
                let want = Some(&buf[offset(a0, a1, j) as usize]);
                let axis0 = a0 + 2 * a1; // 1-D index of the hierarchical axis
                let k = axis0 + 6 * j; // colex 1-D index
                assert_eq!(t.get(k), want);
                assert_eq!(d.get(k), want);
                assert_eq!(t.get((axis0, j)), want);
                assert_eq!(d.get((axis0, j)), want);
                assert_eq!(t.get([axis0, j]), want);
                assert_eq!(d.get([axis0, j]), want);
                assert_eq!(t.get(((a0, a1), j)), want);
                assert_eq!(d.get(((a0, a1), j)), want);
            }
        }
    }
    // outside the domain, in every form
    for (tv, dv) in [
        (t.get(24), d.get(24)),
        (t.get((6, 0)), d.get((6, 0))),
        (t.get([0, 4]), d.get([0, 4])),
        (t.get(((2, 0), 0)), d.get(((2, 0), 0))),
    ] {
        assert_eq!((tv, dv), (None, None));
    }
}

/// Issue 8: injectivity is decided from the strides, never by minutes of scanning.
#[test]
fn injectivity_of_huge_layouts_is_decided_at_once() {
    use layout::AnyLayout;
    let t0 = std::time::Instant::now();
    let l = dl("(1024,1024,1024,64):(1,1,1,1)");
    // two equal strides meet: offset 1 is reached by coordinates (1,0,..) and (0,1,..)
    assert_eq!(
        Tensor::new(vec![0u8; 3133], l).unwrap_err(),
        TensorError::Layout(LayoutError::NotInjective { offset: 1 })
    );
    let l = dl("(1024,1024,1024,1024):(1,1,1,1)");
    assert_eq!(l.find_collision(), Ok(Some(1)));
    assert_eq!(l.is_injective(), Ok(false));
    // modes that meet only at a multiple: 3·4 = 4·3 = 12
    assert_eq!(dl("(5,5):(4,3)").find_collision(), Ok(Some(12)));
    assert_eq!(dl("(5,5):(4,-3)").find_collision(), Ok(Some(0)));
    // more elements than offsets, no two modes meet: named by size
    let big = dl("(3,5,2):(6,10,15)");
    let sc = offsets(&big);
    let unique = sc.iter().collect::<HashSet<_>>().len() == sc.len();
    match big.find_collision() {
        Ok(Some(o)) => assert!(!unique && sc.iter().filter(|&&x| x == o).count() > 1),
        Ok(None) => assert!(unique),
        Err(e) => panic!("{e}"),
    }
    let l = dl("(3,3,3,3,3,3,3,3,3,3,3,3,3,3,3,3):(6,10,15,6,10,15,6,10,15,6,10,15,6,10,15,7)");
    // pairs meet here (6 and 6): named
    assert!(matches!(l.find_collision(), Ok(Some(_))));
    // injective interleaved layouts too large to scan: an error, not minutes
    let l = dl("(3,3,2097152):(2,3,16)");
    let e = l.find_collision().unwrap_err();
    assert!(matches!(e, LayoutError::TooLargeToScan { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        "cannot decide the injectivity of a layout of 18874368 elements: it needs a scan, which visits at most 16777216"
    );
    assert!(t0.elapsed() < std::time::Duration::from_secs(2));
}

#[test]
fn not_injective_by_size_message() {
    let e = LayoutError::NotInjectiveBySize { size: 9, span: 7 };
    assert_eq!(
        e.to_string(),
        "layout is not injective: its 9 elements do not fit in the 7 offsets between its smallest and largest offset"
    );
    let e = LayoutError::AllocationFailed {
        what: "the injectivity bitmap",
        bytes: 1 << 40,
    };
    assert_eq!(
        e.to_string(),
        "could not allocate 1099511627776 bytes for the injectivity bitmap"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(400)))]

    /// The structural decision agrees with a brute-force scan on small layouts with strides
    /// that meet in many ways.
    #[test]
    fn collision_decision_matches_brute_force(strides in proptest::collection::vec(-16i64..17, 1..5), ext in proptest::collection::vec(1i64..6, 4)) {
        use layout::AnyLayout;
        let n = strides.len();
        let l = DynLayout::from_flat(&ext[..n], &strides).unwrap();
        let offs = offsets(&l);
        let unique = offs.iter().collect::<HashSet<_>>().len() == offs.len();
        prop_assert_eq!(l.is_injective(), Ok(unique), "{}", l);
        match l.find_collision() {
            Ok(Some(o)) => prop_assert!(offs.iter().filter(|&&x| x == o).count() > 1, "{} {}", l, o),
            Ok(None) => prop_assert!(unique),
            Err(LayoutError::NotInjectiveBySize { size, span }) => prop_assert!(!unique && size > span),
            Err(e) => prop_assert!(false, "{}", e),
        }
    }
}
