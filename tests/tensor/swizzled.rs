//! Tensors over swizzled layouts `Sw o O o L` (CuTe's `ComposedLayout`): construction facts,
//! element access, iteration, copies, element-wise operations and printing, all against brute
//! force with a bit-by-bit reference swizzle.

use crate::reference::{Rng, buffer, coords, random_layout, random_shape};
use layout::tensor::Tensor;
use layout::tensor::TensorError;
use layout::{
    AnyLayout, DynLayout, DynTuple, Int, Layout, LayoutError, Sw, Swizzle, SwizzledLayout,
};
use proptest::prelude::*;
use std::collections::HashSet;

/// The swizzle by its definition, bit by bit: destination bit `M - min(0,S) + k` is XORed with
/// source bit `M + max(0,S) + k`, for `k < B` (independent of the crate's masks).
fn ref_swizzle(b: i64, m: i64, s: i64, x: i64) -> i64 {
    let mut out = x;
    for k in 0..b {
        let src = m + s.max(0) + k;
        let dst = m - s.min(0) + k;
        out ^= ((x >> src) & 1) << dst;
    }
    out
}

/// A random valid swizzle with small parameters (the identity sometimes).
fn random_swizzle(rng: &mut Rng) -> Swizzle {
    let b = rng.range(0, 3);
    let m = rng.range(0, 4);
    let s = rng.range(b.max(1), 5) * if rng.coin() { 1 } else { -1 };
    Swizzle::new(b, m, s).unwrap()
}

/// A random layout for a random shape: injective (from `random_layout`), or with one stride
/// made 0 (a broadcast, not injective when its extent exceeds 1).
fn random_inner(rng: &mut Rng) -> DynLayout {
    let shape = random_shape(rng, 3);
    let (l, _, _) = random_layout(rng, &shape);
    if rng.range(0, 4) > 0 {
        return l;
    }
    let k = rng.range(0, l.leaf_count() as i64 - 1) as usize;
    let mut st = l.stride_leaves().to_vec();
    st[k] = 0;
    // flat: one axis per leaf
    DynLayout::new(&l.shape().flatten(), &DynTuple::from_slice(&st).unwrap()).unwrap()
}

/// The swizzled offsets of every 1-D index, by brute force.
fn brute_offsets(sw: Swizzle, o: i64, l: &DynLayout) -> Vec<i64> {
    (0..l.size())
        .map(|i| ref_swizzle(sw.bits(), sw.base(), sw.shift(), o + l.offset(i)))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(400)))]

    /// `Swizzle::image_bounds` contains every image, and its identity flag is right.
    #[test]
    fn image_bounds_contain_every_image(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let sw = random_swizzle(&mut rng);
        let lo = rng.range(-300, 300);
        let hi = lo + rng.range(0, 300);
        let ((a, z), identity) = sw.image_bounds(lo, hi);
        for x in lo..=hi {
            let y = ref_swizzle(sw.bits(), sw.base(), sw.shift(), x);
            prop_assert!(a <= y && y <= z, "{sw} on {lo}..={hi}: {x} -> {y} outside {a}..={z}");
            if identity {
                prop_assert_eq!(y, x);
            }
        }
    }

    /// Bounds and injectivity of `Sw o O o L` agree with brute force; the bounds are exact.
    #[test]
    fn bounds_and_injectivity_agree_with_brute_force(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let sw = random_swizzle(&mut rng);
        let l = random_inner(&mut rng);
        let o = rng.range(-20, 100);
        let s = SwizzledLayout::new(sw, o, l);
        let offs = brute_offsets(sw, o, &l);
        for (i, &want) in offs.iter().enumerate() {
            prop_assert_eq!(s.offset(i as i64), want);
            prop_assert_eq!(s.post_offset(l.offset(i as i64)), want);
        }
        // `post_run`: runs of inner offsets stay consecutive
        let inner: HashSet<i64> = (0..l.size()).map(|i| l.offset(i)).collect();
        let post = |x: i64| ref_swizzle(sw.bits(), sw.base(), sw.shift(), o + x);
        for &x in &inner {
            let k = s.post_run(x);
            prop_assert!(k >= 1);
            for j in (0..k.min(80)).filter(|j| inner.contains(&(x + j))) {
                prop_assert_eq!(post(x + j), post(x) + j, "{} x={} j={} k={}", s, x, j, k);
            }
        }
        let lo = *offs.iter().min().unwrap();
        let hi = *offs.iter().max().unwrap();
        prop_assert_eq!(s.offset_bounds(), Ok((lo, hi)), "{}", s);
        let distinct: HashSet<i64> = offs.iter().copied().collect();
        let injective = distinct.len() == offs.len();
        prop_assert_eq!(s.is_injective(), Ok(injective), "{}", s);
        match s.find_collision().unwrap() {
            None => prop_assert!(injective),
            Some(c) => prop_assert!(offs.iter().filter(|&&x| x == c).count() >= 2, "{} {}", s, c),
        }
    }

    /// A swizzled tensor's elements are `buffer[base + Sw(O + L(i))]`: by index, by
    /// coordinate, in logical order, in memory order, and printed.
    #[test]
    fn elements_equal_the_reference(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let sw = random_swizzle(&mut rng);
        let l = random_inner(&mut rng);
        let o = rng.range(0, 40);
        let s = SwizzledLayout::new(sw, o, l);
        let offs = brute_offsets(sw, o, &l);
        let lo = *offs.iter().min().unwrap();
        let hi = *offs.iter().max().unwrap();
        let base = (-lo).max(0) as usize + rng.range(0, 2) as usize;
        let len = (base as i64 + hi + 1) as usize;
        let buf = buffer(len);
        let t = Tensor::with_offset(&buf[..], s, base).unwrap();
        let at = |off: i64| buf[(base as i64 + off) as usize];
        for i in 0..l.size() {
            prop_assert_eq!(*t.at(i).unwrap(), at(offs[i as usize]));
        }
        prop_assert_eq!(t.at(l.size()), None);
        // logical (row-major over the axes) order, and access by per-axis coordinates
        let shape: Vec<i64> = t.shape().leaves().to_vec();
        let modes: Vec<DynLayout> = (0..l.rank()).map(|k| l.mode(k).unwrap()).collect();
        let mut want = vec![];
        for c in coords(&shape) {
            let x: i64 = c.iter().zip(&modes).map(|(&i, m)| m.offset(i)).sum();
            let v = at(ref_swizzle(sw.bits(), sw.base(), sw.shift(), o + x));
            prop_assert_eq!(t.get(&c[..]), Some(&v));
            want.push(v);
        }
        let got: Vec<i32> = t.iter().copied().collect();
        prop_assert_eq!(&got, &want);
        // memory order visits every element once, and for an injective inner layout (whose
        // memory order is increasing) goes through the swizzle's aligned blocks in order
        let mut mem: Vec<i32> = t.iter_memory().copied().collect();
        let injective = offs.iter().collect::<HashSet<_>>().len() == offs.len();
        if injective {
            let z = sw.base() - sw.shift().min(0) + sw.bits();
            // `buffer` holds 7·p + 3 at position p
            let blocks: Vec<i64> = mem.iter().map(|&v| (i64::from(v - 3) / 7 - base as i64) >> z).collect();
            prop_assert!(blocks.windows(2).all(|w| w[0] <= w[1]), "{} {:?}", s, blocks);
        }
        let mut all = want.clone();
        mem.sort_unstable();
        all.sort_unstable();
        prop_assert_eq!(mem, all);
        // printing: the same as the row-major tensor of the same values
        let nd = Tensor::from_vec(want.clone(), &shape.iter().map(|&e| e as usize).collect::<Vec<_>>()).unwrap();
        prop_assert_eq!(format!("{t:?}"), format!("{nd:?}"));
        // element-wise operations see the same values
        let sq = t.map(|x| x * 2);
        prop_assert!(sq.iter().copied().eq(want.iter().map(|x| x * 2)));
        let sum = t.zip_map(&nd, |x, y| x + y).unwrap();
        prop_assert!(sum.iter().copied().eq(want.iter().map(|x| x * 2)));
        let owned = t.to_owned();
        prop_assert_eq!(owned.as_slice(), nd.as_slice());
    }

    /// Copies ND -> swizzled -> ND round-trip, land where the reference says, and copy between
    /// two swizzled tensors; writes go through `iter_mut`, `fill` and `zip_map_inplace` too.
    #[test]
    fn copy_round_trips(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let sw = random_swizzle(&mut rng);
        let shape = random_shape(&mut rng, 3);
        let (l, _, _) = random_layout(&mut rng, &shape);
        let o = rng.range(0, 40);
        let s = SwizzledLayout::new(sw, o, l);
        let offs = brute_offsets(sw, o, &l);
        let lo = *offs.iter().min().unwrap();
        let hi = *offs.iter().max().unwrap();
        let base = (-lo).max(0) as usize;
        let len = (base as i64 + hi + 1) as usize;
        let n: i64 = shape.iter().product();
        let nd = Tensor::from_vec((0..n as i32).map(|i| i * 3 + 1).collect(), &shape.iter().map(|&e| e as usize).collect::<Vec<_>>()).unwrap();

        let mut t = Tensor::with_offset(vec![0i32; len], s, base).unwrap();
        t.copy_from(&nd).unwrap();
        // element at 1-D index i of the layout = ND element at the same logical coordinate
        let modes: Vec<DynLayout> = (0..l.rank()).map(|k| l.mode(k).unwrap()).collect();
        for (j, c) in coords(&shape).iter().enumerate() {
            let x: i64 = c.iter().zip(&modes).map(|(&i, m)| m.offset(i)).sum();
            let p = base as i64 + ref_swizzle(sw.bits(), sw.base(), sw.shift(), o + x);
            prop_assert_eq!(t.as_slice()[p as usize], nd.as_slice()[j]);
        }
        let mut back = Tensor::from_vec(vec![0i32; n as usize], &shape.iter().map(|&e| e as usize).collect::<Vec<_>>()).unwrap();
        back.copy_from(&t).unwrap();
        prop_assert_eq!(back.as_slice(), nd.as_slice());

        // swizzled -> differently swizzled
        let sw2 = random_swizzle(&mut rng);
        let s2 = SwizzledLayout::new(sw2, 0i64, l);
        let (lo2, hi2) = s2.offset_bounds().unwrap();
        let base2 = (-lo2).max(0) as usize;
        let mut u = Tensor::with_offset(vec![0i32; base2 + hi2 as usize + 1], s2, base2).unwrap();
        u.copy_from(&t).unwrap();
        prop_assert!(u.iter().eq(nd.iter()));

        // writes
        for (k, x) in u.iter_mut().enumerate() {
            *x = k as i32;
        }
        prop_assert!(u.iter().copied().eq(0..n as i32));
        u.zip_map_inplace(&nd, |x, y| *x += y).unwrap();
        prop_assert!(u.iter().copied().eq(nd.iter().enumerate().map(|(k, y)| k as i32 + y)));
        u.fill(7);
        prop_assert!(u.iter().all(|&x| x == 7));
        u.map_inplace(|x| *x += 1);
        prop_assert!(u.iter().all(|&x| x == 8));
    }

    /// A buffer one element too short, or a base that puts an offset below 0, is refused.
    #[test]
    fn out_of_buffer_is_refused(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let sw = random_swizzle(&mut rng);
        let l = random_inner(&mut rng);
        let o = rng.range(-20, 40);
        let s = SwizzledLayout::new(sw, o, l);
        let offs = brute_offsets(sw, o, &l);
        let lo = *offs.iter().min().unwrap();
        let hi = *offs.iter().max().unwrap();
        let base = (-lo).max(0) as usize;
        let len = (base as i64 + hi + 1) as usize;
        let buf = buffer(len);
        prop_assert!(Tensor::with_offset(&buf[..], s, base).is_ok());
        let short = Tensor::with_offset(&buf[..len - 1], s, base);
        prop_assert!(matches!(short, Err(TensorError::OutOfBuffer { .. })), "{}", s);
        if base as i64 + lo == 0 && base > 0 {
            let low = Tensor::with_offset(&buf[..], s, base - 1);
            prop_assert!(matches!(low, Err(TensorError::OutOfBuffer { .. })), "{}", s);
        }
        // writable storage: only injective layouts
        let mut w = vec![0; len];
        let writable = Tensor::with_offset(&mut w[..], s, base);
        let injective = offs.iter().copied().collect::<HashSet<_>>().len() == offs.len();
        prop_assert_eq!(writable.is_ok(), injective);
        if !injective {
            prop_assert!(matches!(writable, Err(TensorError::Layout(LayoutError::NotInjective { .. }))), "{}", s);
        }
    }
}

/// The fp16 128-byte shared-memory atom `Sw<3,3,3> o _0 o (_8,_64):(_64,_1)` over 512 elements:
/// zero-sized, every element of the buffer used once, row `r` column `c` at
/// `64·r + (c XOR 8·(r mod 8))`, and ND -> atom -> ND round-trips.
#[test]
fn shared_memory_atom() {
    let atom = SwizzledLayout::new(
        Sw::<3, 3, 3>,
        Int::<0>,
        Layout::new((Int::<8>, Int::<64>), (Int::<64>, Int::<1>)),
    );
    assert_eq!(core::mem::size_of_val(&atom), 0);
    assert_eq!(atom.offset_bounds(), Ok((0, 511)));
    assert_eq!(atom.is_injective(), Ok(true));
    let mut smem = Tensor::new(vec![0u16; 512], atom).unwrap();
    for r in 0..8i64 {
        for c in 0..64i64 {
            smem[(r, c)] = (r * 64 + c) as u16;
        }
    }
    let buf = smem.as_slice();
    let mut seen = [false; 512];
    for r in 0..8usize {
        for c in 0..64usize {
            let p = 64 * r + (c ^ (8 * (r % 8)));
            assert_eq!(buf[p], (r * 64 + c) as u16);
            seen[p] = true;
        }
    }
    assert!(seen.iter().all(|&s| s));
    // the 8-element vectors of one column block land in 8 different 16-byte chunks of a row
    for j in 0..8usize {
        let chunks: HashSet<usize> = (0..8)
            .map(|r| (64 * r + 8 * j) ^ (8 * r))
            .map(|p| (p % 64) / 8)
            .collect();
        assert_eq!(chunks.len(), 8);
    }
    // copies
    let nd = Tensor::from_vec((0..512u16).rev().collect(), &[8, 64]).unwrap();
    smem.copy_from(&nd).unwrap();
    assert_eq!(smem[(3, 17)], nd[[3, 17]]);
    assert_eq!(smem.as_slice()[3 * 64 + (17 ^ 24)], nd[[3, 17]]);
    let mut back = Tensor::from_vec(vec![0u16; 512], &[8, 64]).unwrap();
    back.copy_from(&smem).unwrap();
    assert_eq!(back.as_slice(), nd.as_slice());
    assert!(smem.iter().eq(nd.iter()));
    assert_eq!(format!("{smem:?}"), format!("{nd:?}"));
    // a buffer of 511 elements is refused
    assert_eq!(
        Tensor::new(&[0u16; 511][..], atom).unwrap_err(),
        TensorError::OutOfBuffer {
            base: 0,
            lo: 0,
            hi: 511,
            len: 511
        }
    );
}

/// The same atom as a run-time layout gives the same tensor.
#[test]
fn static_and_dynamic_atoms_agree() {
    let st = SwizzledLayout::new(
        Sw::<3, 3, 3>,
        Int::<0>,
        Layout::new((Int::<8>, Int::<64>), (Int::<64>, Int::<1>)),
    );
    let dy = SwizzledLayout::new(
        Swizzle::new(3, 3, 3).unwrap(),
        0i64,
        "(8,64):(64,1)".parse::<DynLayout>().unwrap(),
    );
    let buf = buffer(512);
    let a = Tensor::new(&buf[..], st).unwrap();
    let b = Tensor::new(&buf[..], dy).unwrap();
    assert!(a.iter().eq(b.iter()));
    assert!(a.iter_memory().eq(b.iter_memory()));
    assert_eq!(a[(5, 9)], b[[5, 9]]);
}

/// View operations need strides: they refuse a swizzled tensor naming the swizzle.
#[test]
fn views_of_swizzled_tensors_are_refused() {
    let l: DynLayout = "(8,8):(8,1)".parse().unwrap();
    let s = SwizzledLayout::new(Swizzle::new(2, 0, 3).unwrap(), 0i64, l);
    let buf = buffer(64);
    let t = Tensor::new(&buf[..], s).unwrap();
    let not_affine = LayoutError::NotAffine { b: 2, m: 0, s: 3 };
    assert_eq!(t.view().t().unwrap_err(), TensorError::Layout(not_affine));
    assert_eq!(
        t.view().reshape(&[64]).unwrap_err(),
        TensorError::Layout(not_affine)
    );
    assert_eq!(
        t.broadcast_to(&[2, 8, 8]).unwrap_err(),
        TensorError::Layout(not_affine)
    );
    assert_eq!(
        t.view().into_dyn().unwrap_err(),
        TensorError::Layout(not_affine)
    );
    assert_eq!(
        not_affine.to_string(),
        "a layout swizzled by Sw<2,0,3> is not affine: it has no shape:stride form"
    );
    assert!(!t.is_contiguous());
    // copying works: a row-major owned copy
    let c = t.contiguous();
    assert!(c.is_contiguous());
    assert!(c.iter().eq(t.iter()));
    assert_eq!(t.ndim(), 2);
    assert_eq!(t.shape().to_string(), "(8,8)");
    // the copying reshape works
    let r = t.reshape_copy(&[4, 16]).unwrap();
    assert!(r.iter().eq(t.iter()));
    // the identity swizzle with offset 0 is affine after all: views work
    let id = SwizzledLayout::new(Swizzle::IDENTITY, 0i64, l);
    let v = Tensor::new(&buf[..], id).unwrap().into_dyn().unwrap();
    assert_eq!(v.layout(), &l);
    assert!(
        v.t()
            .unwrap()
            .iter()
            .eq(Tensor::new(&buf[..], l).unwrap().t().unwrap().iter())
    );
}

/// A non-affine layout defined outside the crate with only the required methods plus its
/// `inner ∘ post` form: `i ↦ (i · mul) mod modulo` over `n` indices. Bounds and injectivity come
/// from the provided (scanning) methods.
#[derive(Clone, Copy, Debug)]
struct Modular {
    n: i64,
    mul: i64,
    modulo: i64,
}

impl std::fmt::Display for Modular {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "i -> {}i mod {} on {}", self.mul, self.modulo, self.n)
    }
}

// SAFETY: pure; the inner layout is the compact layout `n:1` of the domain (offset = index) and
// `post_offset` is the function; `to_dyn` always fails; bounds and collisions are the
// provided scans.
unsafe impl AnyLayout for Modular {
    const AFFINE: bool = false;
    fn domain(&self) -> DynTuple {
        DynTuple::leaf(self.n)
    }
    fn size(&self) -> i64 {
        self.n
    }
    fn offset(&self, i: i64) -> i64 {
        (i * self.mul) % self.modulo
    }
    fn to_dyn(&self) -> Result<DynLayout, LayoutError> {
        Err(LayoutError::Overflow {
            what: "no affine form",
        })
    }
    fn inner_layout(&self) -> Result<DynLayout, LayoutError> {
        DynLayout::leaf(self.n, 1)
    }
    fn post_offset(&self, x: i64) -> i64 {
        self.offset(x)
    }
}

#[test]
fn any_non_affine_layout_works_through_the_provided_scans() {
    for (n, mul, modulo) in [(12, 5, 12), (12, 4, 12), (7, 3, 10), (1, 1, 1)] {
        let l = Modular { n, mul, modulo };
        let offs: Vec<i64> = (0..n).map(|i| (i * mul) % modulo).collect();
        let (lo, hi) = (*offs.iter().min().unwrap(), *offs.iter().max().unwrap());
        assert_eq!(l.offset_bounds(), Ok((lo, hi)), "{l}");
        let injective = offs.iter().collect::<HashSet<_>>().len() == offs.len();
        assert_eq!(l.is_injective(), Ok(injective), "{l}");
        let buf = buffer(hi as usize + 1);
        let t = Tensor::new(&buf[..], l).unwrap();
        assert!(t.iter().copied().eq(offs.iter().map(|&o| buf[o as usize])));
        assert!(Tensor::new(&buf[..hi as usize], l).is_err());
        let mut w = vec![0; hi as usize + 1];
        match Tensor::new(&mut w[..], l) {
            Ok(mut tw) => {
                assert!(injective);
                let src = Tensor::from_vec((0..n as i32).collect(), &[n as usize]).unwrap();
                tw.copy_from(&src).unwrap();
                assert!(tw.iter().copied().eq(0..n as i32));
                assert_eq!(format!("{tw:?}"), format!("{src:?}"));
            }
            Err(e) => {
                assert!(!injective);
                assert!(matches!(
                    e,
                    TensorError::Layout(LayoutError::NotInjective { .. })
                ));
            }
        }
    }
    // too large to scan: an error, not a panic or a guess
    let big = Modular {
        n: (1 << 24) + 1,
        mul: 1,
        modulo: 1 << 30,
    };
    assert_eq!(
        big.offset_bounds(),
        Err(LayoutError::TooLargeToScan {
            what: "offset bounds",
            size: (1 << 24) + 1,
            cap: 1 << 24
        })
    );
    assert!(matches!(
        Tensor::new(&[0u8; 4][..], big),
        Err(TensorError::Layout(LayoutError::TooLargeToScan { .. }))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(200)))]

    /// Long runs through a swizzle (several of its periods `2^(M+|S|+B)`, at any phase of the
    /// offset `O`): the copy that tabulates one period and repeats it puts every element where
    /// the bit-by-bit reference says, writes nothing else, and copies back (swizzled → ND).
    #[test]
    fn periodic_copies_match_the_reference(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let b = rng.range(1, 3);
        let m = rng.range(0, 4);
        let s = rng.range(b, 4) * if rng.coin() { 1 } else { -1 };
        let sw = Swizzle::new(b, m, s).unwrap();
        let period = 1i64 << (m + s.abs() + b);
        let cols = [8, 16, 24, 64][rng.range(0, 3) as usize];
        let rows = (period * rng.range(1, 5) + rng.range(0, 40)) / cols + 1;
        let o = rng.range(0, 3 * period);
        let l: DynLayout = format!("({rows},{cols}):({cols},1)").parse().unwrap();
        let t = SwizzledLayout::new(sw, o, l);
        let (lo, hi) = t.offset_bounds().unwrap();
        let base = (-lo).max(0) as usize + 3;
        let nd = Tensor::from_fn(&[rows as usize, cols as usize], |i| i as u32 + 1).unwrap();
        let mut buf = vec![0u32; base + hi as usize + 5];
        let mut sw_t = Tensor::with_offset(&mut buf[..], t, base).unwrap();
        sw_t.copy_from(&nd).unwrap();
        let mut want = vec![0u32; buf.len()];
        for r in 0..rows {
            for c in 0..cols {
                let at = base as i64 + ref_swizzle(b, m, s, o + r * cols + c);
                want[at as usize] = (r * cols + c) as u32 + 1;
            }
        }
        prop_assert_eq!(&buf, &want);
        let sw_t = Tensor::with_offset(&buf[..], t, base).unwrap();
        let mut back = Tensor::from_vec(vec![0u32; (rows * cols) as usize], &[rows as usize, cols as usize]).unwrap();
        back.copy_from(&sw_t).unwrap();
        prop_assert_eq!(back.as_slice(), nd.as_slice());
    }
}
