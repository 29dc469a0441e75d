//! Issue 8, hostile input: integer edges (no wrap-around in release, no panic in debug — this
//! binary runs under `cargo test`, a debug build with overflow checks), reproducers and
//! property tests over layouts from `support::huge_layout`.

#[path = "support/cases.rs"]
mod cases;
mod support;

use layout::tensor::{Tensor, TensorError};
use layout::{AnyLayout, DynLayout, DynTuple, LayoutError, LayoutTable, Swizzle, SwizzledLayout};
use proptest::prelude::*;
use support::{Gen, SMALL, Seeded, edge_offset, layout};

fn dl(s: &str) -> DynLayout {
    s.parse().unwrap()
}

/// The exact offset of index `i` (natural extension past `size`), in `i128`.
fn offset128(l: &DynLayout, i: i64) -> i128 {
    let (s, d) = (l.shape_leaves(), l.stride_leaves());
    let mut rest = i as i128;
    let mut off = 0i128;
    for k in 0..s.len() {
        if k + 1 < s.len() {
            off += (rest % s[k] as i128) * d[k] as i128;
            rest /= s[k] as i128;
        } else {
            off += rest * d[k] as i128;
        }
    }
    off
}

/// Indices worth trying: the ends of the domain, its middle, random ones, and past it.
fn probe_indices(rng: &mut Seeded, size: i64) -> Vec<i64> {
    let mut v = vec![0, size - 1, size / 2, i64::MAX, i64::MAX - 1, size];
    for _ in 0..8 {
        v.push((rng.next_u64() % size as u64) as i64);
    }
    v.retain(|&i| i >= 0);
    v
}

const HUGE: Gen = Gen {
    negative: true,
    huge: true,
    ..SMALL
};

#[test]
fn swizzled_offsets_near_i64_max_are_refused_not_wrapped() {
    let sw = Swizzle::new(1, 0, 1).unwrap();
    let s = SwizzledLayout::new(sw, i64::MAX, dl("2:1"));
    assert_eq!(s.try_offset(0), Ok(i64::MAX - 1));
    let e = s.try_offset(1).unwrap_err();
    assert_eq!(
        e,
        LayoutError::SwizzleOffsetOverflow {
            offset: i64::MAX,
            x: 1
        }
    );
    assert_eq!(
        e.to_string(),
        "the swizzled offset O + L(c) = 9223372036854775807 + 1 overflows i64"
    );
    assert_eq!(s.offset_of(&DynTuple::leaf(1)), Err(e));
    // the unchecked form saturates: no panic in debug, no wrap to negative in release
    assert!(s.swizzle_offset(1) >= 0);
    assert!(AnyLayout::offset(&s, 1) >= 0);
    assert_eq!(s.offset_bounds(), Err(e));
    // print_layout
    let s = SwizzledLayout::new(Swizzle::new(3, 3, 3).unwrap(), i64::MAX, dl("(2,2):(1,2)"));
    assert_eq!(
        LayoutTable::new(&s).unwrap_err(),
        LayoutError::SwizzleOffsetOverflow {
            offset: i64::MAX,
            x: 3
        }
    );
    assert!(matches!(
        Tensor::new(vec![0u8; 4], s),
        Err(TensorError::Layout(
            LayoutError::SwizzleOffsetOverflow { .. }
        ))
    ));
}

#[test]
fn offsets_past_the_domain_saturate_and_try_offset_refuses() {
    assert_eq!(dl("2:2").offset(i64::MAX), i64::MAX);
    assert_eq!(dl("2:-2").offset(i64::MAX), i64::MIN);
    assert_eq!(dl("2:2").offset(i64::MIN), i64::MIN);
    assert_eq!(dl("(3,2):(1,-5)").offset(7), -9); // natural extension, exact
    assert_eq!(
        dl("2:2").try_offset(i64::MAX),
        Err(LayoutError::IndexOutOfRange {
            index: i64::MAX,
            size: 2
        })
    );
    assert_eq!(dl("(3):(-1)").index_of_offset(i64::MAX), Ok(None));
    assert_eq!(dl("(3):(-1)").index_of_offset(i64::MIN), Ok(None));
    assert_eq!(dl("(3):(-1)").index_of_offset(-2), Ok(Some(2)));
}

#[test]
fn zero_sized_reshape_with_a_huge_stride() {
    let t = Tensor::new(vec![(); (1 << 62) + 1], dl("(2):(4611686018427387904)")).unwrap();
    let r = t.view().reshape(&[1, 2]).unwrap();
    assert_eq!(r.layout().shape_leaves(), &[1, 2]);
    assert_eq!(r.layout().stride_leaves()[1], 1 << 62);
    let r = t.view().reshape(&[2, 1]).unwrap();
    assert_eq!(r.layout().stride_leaves()[0], 1 << 62);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(300)))]

    /// `offset` is exact where the true value fits and saturates where it does not;
    /// `try_offset` is `Ok` exactly inside the domain.
    #[test]
    fn offsets_at_the_edges(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, HUGE);
        for i in probe_indices(&mut rng, l.size()) {
            let want = offset128(&l, i).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
            prop_assert_eq!(l.offset(i), want, "{} at {}", l, i);
            prop_assert_eq!(l.try_offset(i).is_ok(), i < l.size());
        }
    }

    /// `index_of_offset` never panics, and inverts `offset` on injective layouts.
    #[test]
    fn index_of_offset_at_the_edges(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, HUGE);
        let injective = l.is_injective();
        for o in [i64::MAX, i64::MIN, i64::MAX - 1, i64::MIN + 1, 0, -1, 1] {
            if let Ok(Some(i)) = l.index_of_offset(o) {
                prop_assert_eq!(l.offset(i), o);
            }
        }
        if injective == Ok(true) {
            for i in probe_indices(&mut rng, l.size()).into_iter().filter(|&i| i < l.size()) {
                prop_assert_eq!(l.index_of_offset(l.offset(i)), Ok(Some(i)), "{}", l);
            }
        }
    }

    /// A swizzled layout with an offset at the edge: the checked offsets are `Ok` exactly
    /// when `O + L(i)` fits, `offset_bounds` fails exactly when some offset does not fit, and
    /// tables, tensors and the unchecked form never panic.
    #[test]
    fn swizzled_offsets_at_the_edges(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, HUGE);
        let (lo, hi) = l.offset_range();
        let o = edge_offset(&mut rng, lo, hi);
        let b = rng.range(0, 3);
        let sw = Swizzle::new(b, rng.range(0, 3), b + rng.range(0, 2)).unwrap();
        let s = SwizzledLayout::new(sw, o, l);
        let fits = |x: i64| (o as i128 + x as i128) >= i64::MIN as i128 && (o as i128 + x as i128) <= i64::MAX as i128;
        for i in probe_indices(&mut rng, l.size()).into_iter().filter(|&i| i < l.size()) {
            let x = l.offset(i);
            prop_assert_eq!(s.try_offset(i).is_ok(), fits(x));
            if let Ok(v) = s.try_offset(i) {
                prop_assert_eq!(v, sw.apply(o + x));
                prop_assert_eq!(AnyLayout::offset(&s, i), v);
            }
        }
        let all_fit = fits(lo) && fits(hi);
        match s.offset_bounds() {
            Ok(_) => prop_assert!(all_fit),
            Err(e) => prop_assert!(!all_fit || matches!(e, LayoutError::TooLargeToScan { .. }), "{}", e),
        }
        if l.rank() == 2 && l.size() <= 64 {
            prop_assert_eq!(LayoutTable::new(&s).is_ok(), all_fit);
        }
        let _ = Tensor::new(vec![(); 16], s);
    }

    /// Zero-sized elements make any huge layout fit a "buffer": construction and reshapes
    /// never panic, and a reshape that succeeds keeps the offsets.
    #[test]
    fn zero_sized_tensors_at_the_edges(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, Gen { negative: false, ..HUGE });
        let (lo, hi) = l.offset_range();
        let Ok(len) = usize::try_from(hi as i128 - lo as i128 + 1) else { return Ok(()); };
        let Ok(t) = Tensor::with_offset(vec![(); len], l, (-lo) as usize) else { return Ok(()); };
        let n = l.size();
        for shape in [vec![1, n], vec![n, 1], vec![-1], vec![1, -1, 1]] {
            if let Ok(r) = t.view().reshape(&shape) {
                prop_assert_eq!(r.layout().size(), n);
            }
        }
    }
}

#[test]
fn zip_map_output_too_large_is_an_error_not_an_abort() {
    let one = Tensor::from_vec(vec![1i32], &[1, 1]).unwrap();
    let one = one.view();
    let a = one.broadcast_to(&[1 << 31, 1]).unwrap();
    let b = one.broadcast_to(&[1, 1 << 31]).unwrap();
    let e = a.zip_map(&b, |x, y| x + y).unwrap_err();
    assert_eq!(
        e,
        TensorError::OutputAllocation {
            op: "zip_map",
            elements: 1 << 62,
            bytes: i64::MAX
        }
    );
    assert_eq!(
        e.to_string(),
        "zip_map: cannot allocate the output of 4611686018427387904 elements (9223372036854775807 bytes)"
    );
    let big = one.broadcast_to(&[1 << 31, 1 << 31]).unwrap();
    let e = big.try_map(|x| *x).unwrap_err();
    assert_eq!(
        e.to_string(),
        "map: cannot allocate the output of 4611686018427387904 elements (9223372036854775807 bytes)"
    );
    assert!(matches!(
        Tensor::<Vec<u64>, DynLayout>::from_fn(&[1 << 31, 1 << 31], |i| i as u64),
        Err(TensorError::OutputAllocation { op: "from_fn", .. })
    ));
}

/// Issue 8: messages name the operation, the rule and the numbers once, in words.
#[test]
fn messages_a_user_can_act_on() {
    use layout::Tile;
    use layout::tensor::Slice;
    let msg = |e: LayoutError| e.to_string();
    assert_eq!(
        msg(LayoutTable::new(&dl("8:1")).unwrap_err()),
        "print_layout: the layout has rank 1; a table needs rank 2"
    );
    assert_eq!(
        msg("[_,_,_,_,_,_,_,_,_]".parse::<Tile>().unwrap_err()),
        "a by-mode tiler holds at most 8 modes; this one has 9"
    );
    let t: Tile = "[5,7,3]".parse().unwrap();
    let a = dl("(12,32):(1,12)");
    assert_eq!(
        msg(a.zipped_divide_by_mode(&t).unwrap_err()),
        "zipped_divide: the tiler has 3 modes but the layout has only 2; a by-mode tiler may have at most one mode per mode of the layout"
    );
    assert_eq!(
        msg(a.tiled_product_by_mode(&t).unwrap_err()),
        "tiled_product: the tiler has 3 modes but the layout has only 2; a by-mode tiler may have at most one mode per mode of the layout"
    );
    assert_eq!(
        msg(a.composition_by_mode(&t).unwrap_err()),
        "composition: the tiler has 3 modes but the layout has only 2; a by-mode tiler may have at most one mode per mode of the layout"
    );
    assert_eq!(
        msg(dl("8:1").logical_divide(&dl("2:-1")).unwrap_err()),
        "logical_divide: the tiler has a mode of stride -1 (extent 2); a divide needs the tiler's complement, which needs non-negative strides"
    );
    assert_eq!(
        msg(dl("2:-1").logical_product(&dl("2:1")).unwrap_err()),
        "logical_product: A has a mode of stride -1 (extent 2); a product needs A's complement, which needs non-negative strides"
    );
    assert_eq!(
        msg(dl("(2,3):(2,3)").left_inverse().unwrap_err()),
        "left_inverse: sorted by stride, each stride must be a multiple of the one before (2) and at least the span of the smaller-stride modes; stride 3 is not"
    );
    assert!(!msg(dl("4:2").upcast(3).unwrap_err()).contains("numbers"));
    // tensors
    let buf = [0u8; 4];
    let e = Tensor::with_offset(&buf[..], dl("2:1"), usize::MAX).unwrap_err();
    assert_eq!(
        e.to_string(),
        "layout reaches offsets 0..=1 from base offset 18446744073709551615, outside a buffer of 4 elements"
    );
    let t = Tensor::from_vec((0..24).collect::<Vec<i32>>(), &[4, 6]).unwrap();
    let e = t
        .view()
        .slice(&[Slice::Range {
            start: None,
            stop: None,
            step: 0,
        }])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "slice: the step is 0 along an axis of extent 4; a step must not be zero"
    );
    let h = Tensor::new((0..24).collect::<Vec<i32>>(), dl("((2,3),4):((12,1),3)")).unwrap();
    assert_eq!(
        h.view().reshape(&[24]).unwrap_err().to_string(),
        "reshape: cannot reshape into shape (24,) without a copy: counting the leaves of the tensor's 2 (hierarchical) axes in row-major order, leaf 0 has stride 1 but a view needs 24 to merge it with leaf 1; use reshape_copy"
    );
}

/// The inverse map's search is capped: 30 modes `2:2` and an odd target inside the offset range
/// would take ~10^8 steps; it answers `TooLargeToScan` after the cap instead.
#[test]
fn index_of_offset_search_is_capped() {
    let l = DynLayout::from_flat(&[2; 30], &[2; 30]).unwrap();
    let t = std::time::Instant::now();
    assert!(matches!(
        l.index_of_offset(31),
        Err(LayoutError::TooLargeToScan { cap, .. }) if cap == DynLayout::INDEX_SEARCH_CAP
    ));
    assert!(t.elapsed().as_secs() < 10, "the cap bounds the work");
    assert_eq!(l.index_of_offset(0), Ok(Some(0))); // reachable offsets are found at once
}
