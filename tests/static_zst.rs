//! Zero cost, part one: a fully static layout is a zero-sized type, and its offset function is the
//! same function as the run-time layout with the same values, index for index.

use core::mem::size_of;
use layout::{AnyLayout, DynLayout, Int, Layout, StaticLayout};

type RowMajor = Layout<(Int<64>, Int<64>), (Int<64>, Int<1>)>;
type Tiled = Layout<((Int<8>, Int<8>), (Int<8>, Int<8>)), ((Int<1>, Int<64>), (Int<8>, Int<512>))>;
type Leaf = Layout<Int<12>, Int<3>>;
type Rank1 = Layout<(Int<8>,), (Int<1>,)>;
type Broadcast = Layout<(Int<4>, Int<3>), (Int<0>, Int<1>)>;
type Flipped = Layout<(Int<4>, Int<3>), (Int<-1>, Int<4>)>;
type Deep = Layout<
    (Int<2>, ((Int<3>, Int<2>), Int<2>), (Int<1>, Int<3>)),
    (Int<72>, ((Int<1>, Int<6>), Int<3>), (Int<0>, Int<12>)),
>;
type Wide = Layout<
    (
        Int<2>,
        Int<2>,
        Int<2>,
        Int<2>,
        Int<2>,
        Int<2>,
        Int<2>,
        Int<2>,
    ),
    (
        Int<128>,
        Int<64>,
        Int<32>,
        Int<16>,
        Int<8>,
        Int<4>,
        Int<2>,
        Int<1>,
    ),
>;

/// `size_of` is 0 and the offsets equal those of the `DynLayout` parsed from the expected text,
/// for every index of the domain and a little past it (the natural extension).
fn check<L: StaticLayout + AnyLayout>(text: &str) {
    assert_eq!(size_of::<L>(), 0, "{text} is not zero-sized");
    let l = L::default();
    let d: DynLayout = text.parse().expect("reference text parses");
    assert_eq!(L::LAYOUT, d, "static value of {text}");
    assert_eq!(l.to_dyn().unwrap(), d);
    assert_eq!(AnyLayout::size(&l), d.size());
    for i in 0..d.size() + 7 {
        assert_eq!(l.offset(i), d.offset(i), "{text} at index {i}");
    }
}

#[test]
fn static_layouts_are_zero_sized_and_agree_with_dyn_layout() {
    check::<RowMajor>("(64,64):(64,1)");
    check::<Tiled>("((8,8),(8,8)):((1,64),(8,512))");
    check::<Leaf>("12:3");
    check::<Rank1>("(8):(1)");
    check::<Broadcast>("(4,3):(0,1)");
    check::<Flipped>("(4,3):(-1,4)");
    check::<Deep>("(2,((3,2),2),(1,3)):(72,((1,6),3),(0,12))");
    check::<Wide>("(2,2,2,2,2,2,2,2):(128,64,32,16,8,4,2,1)");
}

#[test]
fn nested_and_arrays_of_static_layouts_stay_zero_sized() {
    assert_eq!(size_of::<(Tiled, RowMajor, Deep)>(), 0);
    assert_eq!(size_of::<[Tiled; 1024]>(), 0);
    assert_eq!(size_of::<Option<Tiled>>(), 1); // only the discriminant
}

#[test]
fn mixed_layouts_store_only_their_dynamic_leaves() {
    type Mixed = Layout<((Int<8>, i64), (Int<8>, i64)), ((Int<1>, i64), (Int<8>, i64))>;
    assert_eq!(size_of::<Mixed>(), 4 * size_of::<i64>());
    let m: Mixed = Layout::new(((Int, 8), (Int, 8)), ((Int, 64), (Int, 512)));
    let d = Tiled::LAYOUT;
    for i in 0..d.size() {
        assert_eq!(m.offset(i), d.offset(i));
    }
}

#[test]
fn coordinates_agree_per_mode_and_hierarchically() {
    let l = Tiled::default();
    let d = Tiled::LAYOUT;
    for n in 0..64i64 {
        for m in 0..64i64 {
            let by_mode = l.offset((m, n));
            let hier = l.offset(((m % 8, m / 8), (n % 8, n / 8)));
            let coord: layout::DynTuple = format!("({m},{n})").parse().unwrap();
            assert_eq!(by_mode, d.offset_of(&coord).unwrap());
            assert_eq!(hier, by_mode);
            assert_eq!(by_mode, d.offset(m + 64 * n));
        }
    }
}

#[test]
fn static_algebra_results_and_swizzled_layouts_are_zero_sized() {
    use layout::algebra::statics;
    use layout::{Sw, Swizzle, SwizzledLayout};

    // (64,64):(64,1) ∘ ((8,8),(8,8)):((1,64),(8,512)), computed at compile time
    let r = statics::composition(RowMajor::default(), Tiled::default());
    assert_eq!(core::mem::size_of_val(&r), 0);
    let d = RowMajor::LAYOUT.composition(&Tiled::LAYOUT).unwrap();
    for i in 0..d.size() {
        assert_eq!(r.offset(i), d.offset(i));
        // and the definition of composition, independently of both
        assert_eq!(
            r.offset(i),
            RowMajor::LAYOUT.offset(Tiled::LAYOUT.offset(i))
        );
    }

    // Sw<3,3,3> o _0 o (_8,_64):(_64,_1)
    type Atom = Layout<(Int<8>, Int<64>), (Int<64>, Int<1>)>;
    let s = SwizzledLayout::new(Sw::<3, 3, 3>, Int::<0>, Atom::default());
    assert_eq!(core::mem::size_of_val(&s), 0);
    let sw = Swizzle::new(3, 3, 3).unwrap();
    for i in 0..512 {
        assert_eq!(s.offset(i), sw.apply(Atom::LAYOUT.offset(i)));
    }
}
