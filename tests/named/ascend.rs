//! Ascend fractal layouts.

use layout::named::ascend::{
    self, dn_ext_layout, nd_ext_layout, nz_layout_strided, zn_layout_strided, zz_layout_strided,
};
use layout::named::{
    C0Element, DnExt, L0c, NdExt, Nn, Nz, NzStrided, Padded, U4, Zn, ZnStrided, Zz, ZzStrided,
    bf16, f16, make_column_major_layout, make_l0c_layout, make_nn_layout, make_nz_layout,
    make_nz_layout_batched, make_row_major_layout, make_zn_layout, make_zz_layout,
};
use layout::tensor::Tensor;
use layout::{AnyLayout, DynLayout, DynTuple};

/// Offset of the per-axis coordinate `(r, c)`.
fn at(l: &DynLayout, r: i64, c: i64) -> i64 {
    l.offset_of(&DynTuple::from_slice(&[r, c]).unwrap())
        .unwrap()
}

fn div_ceil(x: i64, b: i64) -> i64 {
    (x + b - 1) / b
}

fn round_up(x: i64, b: i64) -> i64 {
    div_ceil(x, b) * b
}

/// Ascend's recipe, written as loops: pad the ND matrix (rows `m`, columns `n`) to whole
/// `r0 × c0` blocks, reshape to `(M1, r0, N1, c0)` and read it out in the order `order`
/// (a permutation of the four dims `[M1, M0, N1, N0]`, outermost first). Returns, for each
/// position of the produced buffer, the padded ND coordinate stored there.
pub(crate) fn recipe(m: i64, n: i64, r0: i64, c0: i64, order: [usize; 4]) -> Vec<(i64, i64)> {
    let ext = [div_ceil(m, r0), r0, div_ceil(n, c0), c0];
    let mut out = Vec::new();
    let mut idx = [0i64; 4];
    let (a, b, c, d) = (order[0], order[1], order[2], order[3]);
    for i in 0..ext[a] {
        idx[a] = i;
        for j in 0..ext[b] {
            idx[b] = j;
            for k in 0..ext[c] {
                idx[c] = k;
                for l in 0..ext[d] {
                    idx[d] = l;
                    out.push((idx[0] * r0 + idx[1], idx[2] * c0 + idx[3]));
                }
            }
        }
    }
    out
}

pub(crate) const M1: usize = 0;
pub(crate) const M0: usize = 1;
pub(crate) const N1: usize = 2;
pub(crate) const N0: usize = 3;

/// Check that `l` maps every padded coordinate to where the recipe puts it, and that it is a
/// bijection onto `[0, padded size)`.
fn check_recipe(l: &DynLayout, m: i64, n: i64, r0: i64, c0: i64, order: [usize; 4]) {
    let buf = recipe(m, n, r0, c0, order);
    let (pm, pn) = (round_up(m, r0), round_up(n, c0));
    assert_eq!(l.size(), pm * pn, "{l}");
    assert_eq!(buf.len() as i64, pm * pn);
    let mut seen = vec![false; buf.len()];
    for r in 0..pm {
        for c in 0..pn {
            let o = at(l, r, c);
            assert!(o >= 0 && (o as usize) < buf.len(), "{l} ({r},{c}) -> {o}");
            assert_eq!(buf[o as usize], (r, c), "{l} ({r},{c}) -> {o}");
            assert!(!seen[o as usize]);
            seen[o as usize] = true;
        }
    }
    assert!(seen.iter().all(|&s| s), "{l} is not onto its buffer");
}

const SIZES: [(i64, i64); 7] = [
    (16, 64),
    (32, 32),
    (20, 28),
    (1, 1),
    (48, 130),
    (17, 200),
    (64, 8),
];

fn recipes_for<T: C0Element>() {
    let c0 = T::C0;
    for (m, n) in SIZES {
        // Nz: (M1,M0,N1,N0) -> (N1,M1,M0,N0)
        check_recipe(
            &make_nz_layout::<T>(m as usize, n as usize).unwrap(),
            m,
            n,
            16,
            c0,
            [N1, M1, M0, N0],
        );
        // Zz: (M1,M0,K1,K0) -> (M1,K1,M0,K0)
        check_recipe(
            &make_zz_layout::<T>(m as usize, n as usize).unwrap(),
            m,
            n,
            16,
            c0,
            [M1, N1, M0, N0],
        );
        // Zn: (K1,K0,N1,N0) -> (K1,N1,N0,K0), rows blocked by C0 and columns by 16
        check_recipe(
            &make_zn_layout::<T>(m as usize, n as usize).unwrap(),
            m,
            n,
            c0,
            16,
            [M1, N1, N0, M0],
        );
    }
}

#[test]
fn nz_zn_zz_follow_the_recipe_for_every_element_type() {
    recipes_for::<f32>();
    recipes_for::<f16>();
    recipes_for::<bf16>();
    recipes_for::<i8>();
    recipes_for::<u8>();
    recipes_for::<U4>();
}

#[test]
fn nn_l0c_and_two_level_forms_follow_their_recipes() {
    for (m, n) in SIZES {
        // NN: 2 x 16 column-major fractals, fractals down a column first:
        // (M1,M0,N1,N0) -> (N1,M1,N0,M0)
        check_recipe(
            &make_nn_layout(m as usize, n as usize).unwrap(),
            m,
            n,
            2,
            16,
            [N1, M1, N0, M0],
        );
        // L0C: NZ with 16 x 16 fractals
        check_recipe(
            &make_l0c_layout(m as usize, n as usize).unwrap(),
            m,
            n,
            16,
            16,
            [N1, M1, M0, N0],
        );
        // row-major and column-major: 1 x 1 blocks
        check_recipe(
            &make_row_major_layout(m as usize, n as usize).unwrap(),
            m,
            n,
            1,
            1,
            [M1, N1, M0, N0],
        );
        check_recipe(
            &make_column_major_layout(m as usize, n as usize).unwrap(),
            m,
            n,
            1,
            1,
            [N1, M1, M0, N0],
        );
    }
}

#[test]
fn worked_offsets_of_the_reference() {
    // fp16 20 x 28 ND -> NZ (buffer (N1=2, M1*M0=32, 16))
    let nz = make_nz_layout::<f16>(20, 28).unwrap();
    for ((r, c), o) in [
        ((0, 0), 0),
        ((0, 15), 15),
        ((1, 0), 16),
        ((15, 15), 255),
        ((16, 0), 256),
        ((0, 16), 512),
        ((1, 16), 528),
        ((19, 27), 827),
    ] {
        assert_eq!(at(&nz, r, c), o, "NZ f16 ({r},{c})");
    }
    assert_eq!(nz.cosize(), 1024);
    // fp32 16 x 16, C0 = 8
    let f = make_nz_layout::<f32>(16, 16).unwrap();
    for ((r, c), o) in [((0, 7), 7), ((0, 8), 128), ((1, 0), 8), ((15, 15), 255)] {
        assert_eq!(at(&f, r, c), o, "NZ f32 ({r},{c})");
    }
    // int8 16 x 64, C0 = 32
    let i = make_nz_layout::<i8>(16, 64).unwrap();
    for ((r, c), o) in [
        ((0, 31), 31),
        ((0, 32), 512),
        ((1, 0), 32),
        ((15, 63), 1023),
    ] {
        assert_eq!(at(&i, r, c), o, "NZ i8 ({r},{c})");
    }
    // ZN fp16 32 x 32
    let zn = make_zn_layout::<f16>(32, 32).unwrap();
    for ((r, c), o) in [
        ((1, 0), 1),
        ((15, 0), 15),
        ((0, 1), 16),
        ((0, 16), 256),
        ((16, 0), 512),
        ((31, 31), 1023),
    ] {
        assert_eq!(at(&zn, r, c), o, "ZN f16 ({r},{c})");
    }
    // the text of the seed's formula: ((16, m/16), (C0, n/C0)) : ((C0, 16 C0), (1, C0 m))
    assert_eq!(
        make_nz_layout::<f16>(64, 48).unwrap().to_string(),
        "((16,4),(16,3)):((16,256),(1,1024))"
    );
    assert_eq!(
        make_row_major_layout(4, 8).unwrap().to_string(),
        "((1,4),(1,8)):((0,8),(0,1))"
    );
    assert_eq!(
        make_column_major_layout(4, 8).unwrap().to_string(),
        "((1,4),(1,8)):((0,1),(0,4))"
    );
}

macro_rules! static_eq {
    ($($T:ty),*) => {$(
        assert_eq!(Nz::<$T, 20, 28>::LAYOUT, make_nz_layout::<$T>(20, 28).unwrap());
        assert_eq!(Nz::<$T, 64, 128>::LAYOUT, make_nz_layout::<$T>(64, 128).unwrap());
        assert_eq!(Zn::<$T, 20, 28>::LAYOUT, make_zn_layout::<$T>(20, 28).unwrap());
        assert_eq!(Zn::<$T, 64, 128>::LAYOUT, make_zn_layout::<$T>(64, 128).unwrap());
        assert_eq!(Zz::<$T, 20, 28>::LAYOUT, make_zz_layout::<$T>(20, 28).unwrap());
        assert_eq!(Zz::<$T, 64, 128>::LAYOUT, make_zz_layout::<$T>(64, 128).unwrap());
        assert_eq!(
            NzStrided::<$T, 32, 64, { 32 * <$T as C0Element>::C0 }, { 16 * <$T as C0Element>::C0 * 4 }>::LAYOUT,
            nz_layout_strided(<$T>::C0, 32, 64, 32 * <$T>::C0, 64 * <$T>::C0).unwrap()
        );
        assert_eq!(
            ZnStrided::<$T, 64, 32, { 16 * <$T as C0Element>::C0 * 4 }, { 16 * <$T as C0Element>::C0 }>::LAYOUT,
            zn_layout_strided(<$T>::C0, 64, 32, 64 * <$T>::C0, 16 * <$T>::C0).unwrap()
        );
        assert_eq!(
            ZzStrided::<$T, 32, 64, { 16 * <$T as C0Element>::C0 * 8 }, { 16 * <$T as C0Element>::C0 }>::LAYOUT,
            zz_layout_strided(<$T>::C0, 32, 64, 128 * <$T>::C0, 16 * <$T>::C0).unwrap()
        );
        assert_eq!(core::mem::size_of::<Nz<$T, 20, 28>>(), 0);
        assert_eq!(core::mem::size_of::<Zn<$T, 20, 28>>(), 0);
        assert_eq!(core::mem::size_of::<Zz<$T, 20, 28>>(), 0);
    )*};
}

#[test]
fn static_equals_run_time_for_every_pattern_and_type() {
    static_eq!(f32, i32, u32, f16, bf16, i16, u16, i8, u8, U4);
    assert_eq!(Nn::<20, 28>::LAYOUT, make_nn_layout(20, 28).unwrap());
    assert_eq!(L0c::<20, 28>::LAYOUT, make_l0c_layout(20, 28).unwrap());
    assert_eq!(
        NdExt::<20, 28>::LAYOUT,
        make_row_major_layout(20, 28).unwrap()
    );
    assert_eq!(
        DnExt::<20, 28>::LAYOUT,
        make_column_major_layout(20, 28).unwrap()
    );
    assert_eq!(core::mem::size_of::<Nn<20, 28>>(), 0);
}

/// A generic function can name a static fractal layout of its const-generic extents.
fn tile<const M: i64, const N: i64>() -> (Nz<f16, M, N>, i64) {
    let l = Nz::<f16, M, N>::default();
    (l, l.offset(M * N - 1))
}

#[test]
fn const_generic_extents_are_zero_sized() {
    let (l, last) = tile::<32, 48>();
    assert_eq!(core::mem::size_of_val(&l), 0);
    assert_eq!(last, Nz::<f16, 32, 48>::LAYOUT.offset(32 * 48 - 1));
    assert_eq!(l.to_string(), "((_16,_2),(_16,_3)):((_16,_256),(_1,_512))");
    // a tensor over the static layout, indexed by axis
    let mut t = Tensor::new(vec![0u16; 32 * 48], l).unwrap();
    t.copy_from(&Tensor::from_fn(&[32, 48], |i| i as u16).unwrap())
        .unwrap();
    assert_eq!(t.get([1, 0]), Some(&48));
    assert_eq!(t.as_slice()[16], 48);
    assert_eq!(t.as_slice()[512], 16);
    assert_eq!(t.get([32, 0]), None);
}

#[test]
fn alignment_rule_is_an_error() {
    // NZ f16: StrideColumn1 must be a multiple of 256, StrideRow1 of 16
    assert!(nz_layout_strided(16, 32, 32, 256, 768).is_ok());
    let e = nz_layout_strided(16, 32, 32, 256, 520).unwrap_err();
    assert!(e.to_string().contains("StrideColumn1"), "{e}");
    assert!(e.to_string().contains("520"), "{e}");
    assert!(nz_layout_strided(16, 32, 32, 264, 512).is_err());
    assert!(nz_layout_strided(16, 32, 32, 272, 1024).is_ok()); // a gap row between fractals
    // ZN f16: StrideRow1 a multiple of 256, StrideColumn1 of 16
    assert!(zn_layout_strided(16, 32, 32, 512, 256).is_ok());
    assert!(zn_layout_strided(16, 32, 32, 500, 256).is_err());
    assert!(zn_layout_strided(16, 32, 32, 512, 250).is_err());
    assert!(zz_layout_strided(8, 32, 32, 128 * 3, 12).is_err());
    assert!(zz_layout_strided(8, 32, 32, 128 * 5, 128).is_ok());
    // non-positive extents and C0
    assert!(make_nz_layout::<f16>(0, 4).is_err());
    assert!(make_zn_layout::<f16>(4, 0).is_err());
    assert!(ascend::nz_layout(0, 4, 4).is_err());
    assert!(nd_ext_layout(0, 3, 3).is_err());
    assert!(dn_ext_layout(3, 3, 3).is_ok());
    assert!(make_nz_layout::<f16>(usize::MAX, 4).is_err());
    assert!(make_nz_layout::<f16>(1 << 62, 1 << 62).is_err());
}

#[test]
fn atb_batched_nd_to_nz_and_back() {
    // ND {8,100,30} f16 -> NZ {8, 2, 112, 16}
    let l = make_nz_layout_batched::<f16>(8, 100, 30).unwrap();
    let p = Padded::new(l, &[8, 100, 30]).unwrap();
    assert_eq!(p.padded(), &[8, 112, 32]);
    let nd = Tensor::from_fn(&[8, 100, 30], |i| i as u32).unwrap();
    let fill = u32::MAX;
    let nz = p.pad_from(&nd, fill).unwrap();
    let buf = nz.as_slice();
    assert_eq!(buf.len(), 8 * 2 * 112 * 16);
    // the buffer read as [b, n1, m1m0, n0]
    for b in 0..8i64 {
        for n1 in 0..2i64 {
            for m in 0..112i64 {
                for n0 in 0..16i64 {
                    let pos = (((b * 2 + n1) * 112 + m) * 16 + n0) as usize;
                    let c = n1 * 16 + n0;
                    let want = if m < 100 && c < 30 {
                        ((b * 100 + m) * 30 + c) as u32
                    } else {
                        fill
                    };
                    assert_eq!(buf[pos], want, "b={b} n1={n1} m={m} n0={n0}");
                    assert_eq!(
                        p.is_padding(&[b as usize, m as usize, c as usize]).unwrap(),
                        want == fill,
                        "({b},{m},{c})"
                    );
                }
            }
        }
    }
    let back = p.crop_to_nd(&nz).unwrap();
    assert_eq!(back.shape().leaves(), &[8, 100, 30]);
    assert!(back.iter().eq(nd.iter()));
    // wrong shapes are errors
    assert!(
        p.pad_from(&Tensor::from_fn(&[8, 100, 31], |i| i as u32).unwrap(), 0)
            .is_err()
    );
    assert!(p.crop_to_nd(&nd).is_err());
    assert!(p.is_padding(&[8, 0, 0]).is_err());
    assert!(Padded::new(l, &[8, 113, 30]).is_err());
    assert!(Padded::new(l, &[8, 100]).is_err());
}

#[test]
fn padded_static_nz_and_its_tensor() {
    let p = Nz::<f16, 20, 28>::new().padded();
    assert_eq!(p.logical(), &[20, 28]);
    assert_eq!(p.padded(), &[32, 32]);
    assert_eq!(p.domain().to_string(), "(20,28)");
    // a logical view over a padded buffer: index by logical coordinates
    let nd = Tensor::from_fn(&[20, 28], |i| i as i32).unwrap();
    let t = p.pad_from(&nd, -1).unwrap();
    let view = Tensor::new(t.as_slice(), p).unwrap();
    assert_eq!(view.get([19, 27]), Some(&(19 * 28 + 27)));
    assert_eq!(view.get([20, 0]), None);
    assert_eq!(t.as_slice()[827], 19 * 28 + 27);
    assert!(view.iter().eq(nd.iter()));
    assert_eq!(
        t.as_slice().iter().filter(|&&x| x == -1).count(),
        1024 - 560
    );
}

#[test]
fn fractal_layouts_take_part_in_the_algebra() {
    let nz = make_nz_layout::<f16>(32, 32).unwrap();
    // bijective onto [0, 1024): the right inverse undoes it
    let inv = nz.right_inverse();
    assert_eq!(inv.size(), 1024);
    for o in 0..1024 {
        assert_eq!(nz.offset(inv.offset(o)), o);
    }
    // a fractal is the first tile of a by-mode divide
    let t: layout::Tile = "[16,16]".parse().unwrap();
    let d = nz.zipped_divide_by_mode(&t).unwrap();
    for i in 0..256 {
        // index i of the first tile is (r, c) = (i % 16, i / 16), stored row-major
        assert_eq!(
            d.offset(i),
            (i % 16) * 16 + i / 16,
            "fractal 0 is row-major"
        );
    }
    // copies between NZ and ZN go through the copy engine
    let zn = make_zn_layout::<f16>(32, 32).unwrap();
    let nd = Tensor::from_fn(&[32, 32], |i| i as u16).unwrap();
    let mut a = Tensor::new(vec![0u16; 1024], nz).unwrap();
    a.copy_from(&nd).unwrap();
    let mut b = Tensor::new(vec![0u16; 1024], zn).unwrap();
    b.copy_from(&a).unwrap();
    assert!(b.iter().eq(nd.iter()));
    assert!(nz.is_injective().unwrap());
}

/// The README's section on named layouts and pictures, kept compiling and true.
#[test]
fn readme_named_tour() -> Result<(), layout::tensor::TensorError> {
    use layout::svg::Picture;
    let nz = make_nz_layout::<f16>(20, 28)?;
    assert_eq!(nz.to_string(), "((16,2),(16,2)):((16,256),(1,512))");
    fn tile<const M: i64, const N: i64>() -> Nz<f16, M, N> {
        Nz::new()
    }
    assert_eq!(tile::<20, 28>().to_dyn(), nz);

    let p = Padded::new(make_nz_layout_batched::<f16>(8, 100, 30)?, &[8, 100, 30])?;
    let nd = Tensor::from_fn(&[8, 100, 30], |i| i as u16)?;
    let t = p.pad_from(&nd, 0)?;
    assert_eq!(t.as_slice().len(), 8 * 2 * 112 * 16);
    assert!(p.crop_to_nd(&t)?.iter().eq(nd.iter()));

    let svg = Picture::padded(&Padded::new(nz, &[20, 28])?)?.to_svg();
    assert_eq!(svg.matches("class=\"cell padding\"").count(), 1024 - 560);
    Ok(())
}

/// Static fractal layouts are inputs of the static algebra, which computes on the same value.
#[test]
fn static_fractal_layouts_feed_the_static_algebra() {
    use layout::algebra::statics::{self, RightInverse};
    use layout::{Int, Layout, StaticLayout};
    let nz = Nz::<f16, 32, 32>::new();
    let inv = statics::right_inverse(nz);
    assert_eq!(core::mem::size_of_val(&inv), 0);
    assert_eq!(
        RightInverse::<Nz<f16, 32, 32>>::LAYOUT,
        make_nz_layout::<f16>(32, 32).unwrap().right_inverse()
    );
    let b = Layout::new(Int::<256>, Int::<1>);
    let d = statics::logical_divide(nz, b);
    assert_eq!(
        d.to_dyn(),
        make_nz_layout::<f16>(32, 32)
            .unwrap()
            .logical_divide(&"256:1".parse::<layout::DynLayout>().unwrap())
            .unwrap()
    );
    let c = statics::composition(nz, Layout::new(Int::<16>, Int::<16>));
    for i in 0..16 {
        assert_eq!(c.offset(i), nz.offset(16 * i));
    }
}

/// Conversions between every pair of ND, column-major, NZ, ZN and ZZ, for 1-, 2- and 4-byte
/// elements, at sizes that span several chunk-transpose tiles (and one above the streaming
/// threshold): each copy is checked against the logical iteration (both layouts evaluated per
/// element), and writes nothing outside its layout's image.
#[test]
fn fractal_conversions_between_every_pair() {
    fn run<T: C0Element + Copy + PartialEq + std::fmt::Debug>(
        val: impl Fn(usize) -> T,
        sentinel: T,
        shapes: &[(i64, i64)],
    ) {
        for &(m, n) in shapes {
            let layouts: Vec<(&str, DynLayout)> = vec![
                ("nd", make_row_major_layout(m as usize, n as usize).unwrap()),
                (
                    "col",
                    make_column_major_layout(m as usize, n as usize).unwrap(),
                ),
                ("nz", make_nz_layout::<T>(m as usize, n as usize).unwrap()),
                ("zn", make_zn_layout::<T>(m as usize, n as usize).unwrap()),
                ("zz", make_zz_layout::<T>(m as usize, n as usize).unwrap()),
            ];
            for (sn, sl) in &layouts {
                let len = sl.cosize() as usize;
                // values that differ from the sentinel everywhere
                let buf: Vec<T> = (0..len).map(&val).collect();
                let src = Tensor::new(&buf[..], *sl).unwrap();
                for (dn, dl) in &layouts {
                    let mut out = vec![sentinel; dl.cosize() as usize + 7];
                    let mut dst = Tensor::new(&mut out[..], *dl).unwrap();
                    dst.copy_from(&src).unwrap();
                    assert!(dst.iter().eq(src.iter()), "{sn} -> {dn} at {m}x{n}");
                    let written = out.iter().filter(|&&x| x != sentinel).count();
                    assert_eq!(written as i64, m * n, "{sn} -> {dn} at {m}x{n}");
                }
            }
        }
    }
    // multiples of every fractal side (16, and C0 up to 32 for 1-byte elements)
    let shapes = [(32, 32), (64, 96), (160, 96), (288, 544)];
    run::<u16>(|i| (i % 65521) as u16 + 1, 0, &shapes);
    run::<f32>(|i| i as f32 + 1.0, 0.0, &shapes);
    run::<i8>(|i| (i % 127) as i8 + 1, 0, &shapes);
    // above the streaming threshold (2 MiB), so the non-temporal chunk stores run too
    run::<f32>(|i| i as f32 + 1.0, 0.0, &[(512, 1152)]);
}
