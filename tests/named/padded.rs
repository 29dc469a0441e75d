//! `Padded` keeps the `AnyLayout` contract: checked by brute force on padded NZ, ZN, ZZ,
//! blocked and plain layouts.

use layout::named::blocked::{nchw8c, row_major_interleaved_packed};
use layout::named::{Padded, f16, make_nz_layout, make_zn_layout, make_zz_layout};
use layout::tensor::Tensor;
use layout::{AnyLayout, DynLayout, DynTuple};

/// Every rule of the `AnyLayout` safety contract that tensors rely on, by brute force.
fn check_contract(p: &Padded<DynLayout>) {
    let inner = p.inner_layout().unwrap();
    assert_eq!(inner.shape().leaves(), p.domain().leaves());
    let n = p.size();
    assert_eq!(n as usize, p.logical().iter().product::<usize>());
    let (lo, hi) = p.offset_bounds().unwrap();
    let mut seen = std::collections::HashSet::new();
    for i in 0..n {
        let x = inner.offset(i);
        let o = p.offset(i);
        assert_eq!(o, p.post_offset(x), "{p} index {i}");
        assert!(lo <= o && o <= hi);
        assert!(seen.insert(o), "{p}: offset {o} twice");
    }
    assert_eq!(p.find_collision().unwrap(), None);
    // post_run: consecutive offsets really are consecutive
    let offsets: std::collections::HashSet<i64> = (0..n).map(|i| inner.offset(i)).collect();
    for &x in &offsets {
        let k = p.post_run(x);
        assert!(k >= 1);
        for j in 0..k {
            if offsets.contains(&(x + j)) {
                assert_eq!(
                    p.post_offset(x + j),
                    p.post_offset(x) + j,
                    "{p} run at {x}+{j}"
                );
            }
        }
    }
}

/// The offset of a logical coordinate equals the padded layout's at the same coordinate.
fn check_coords(p: &Padded<DynLayout>) {
    let r = p.logical().len();
    let mut c = vec![0usize; r];
    let view_len = p.offset_bounds().unwrap().1 + 1;
    let buf: Vec<i64> = (0..view_len).collect();
    let view = Tensor::new(&buf[..], *p).unwrap();
    loop {
        let want = p
            .layout()
            .offset_of(
                &DynTuple::from_slice(&c.iter().map(|&x| x as i64).collect::<Vec<_>>()).unwrap(),
            )
            .unwrap();
        assert_eq!(view.get(&c[..]), Some(&want), "{p} at {c:?}");
        assert_eq!(p.padded_offset(&c), Ok(want));
        assert_eq!(p.is_padding(&c), Ok(false));
        let mut k = r;
        loop {
            if k == 0 {
                return;
            }
            k -= 1;
            c[k] += 1;
            if c[k] < p.logical()[k] {
                break;
            }
            c[k] = 0;
        }
    }
}

#[test]
fn padded_layouts_keep_the_any_layout_contract() {
    let cases: Vec<(DynLayout, Vec<usize>)> = vec![
        (make_nz_layout::<f16>(20, 28).unwrap(), vec![20, 28]),
        (make_nz_layout::<f32>(33, 9).unwrap(), vec![33, 9]),
        (make_zn_layout::<f16>(20, 28).unwrap(), vec![20, 28]),
        (make_zz_layout::<i8>(17, 40).unwrap(), vec![17, 40]),
        (nchw8c(2, 17, 2, 3).unwrap(), vec![2, 17, 2, 3]),
        (row_major_interleaved_packed(4, 10, 3).unwrap(), vec![10, 3]),
        ("(5,7):(7,1)".parse().unwrap(), vec![3, 6]),
        ("(5,(4,2)):(8,(1,4))".parse().unwrap(), vec![5, 7]),
        ("(12):(1)".parse().unwrap(), vec![10]),
    ];
    for (l, logical) in cases {
        let p = Padded::new(l, &logical).unwrap();
        check_contract(&p);
        check_coords(&p);
    }
}

#[test]
fn pad_and_crop_rank_one_and_two_level_forms() {
    use layout::named::ascend::nd_ext_layout;
    let p = Padded::new("(12):(1)".parse::<DynLayout>().unwrap(), &[10]).unwrap();
    let nd = Tensor::from_fn(&[10], |i| i as i32).unwrap();
    let t = p.pad_from(&nd, -1).unwrap();
    assert_eq!(t.as_slice(), &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, -1, -1]);
    assert!(p.crop_to_nd(&t).unwrap().iter().eq(nd.iter()));
    // ((1,m),(1,n)):((0,ld),(0,1)) with a gap of 3 after each row of 5
    let p = Padded::new(nd_ext_layout(4, 5, 8).unwrap(), &[3, 5]).unwrap();
    let nd = Tensor::from_fn(&[3, 5], |i| i as i32).unwrap();
    let t = p.pad_from(&nd, -1).unwrap();
    let mut want = [-1; 29];
    for r in 0..3 {
        for c in 0..5 {
            want[r * 8 + c] = (r * 5 + c) as i32;
        }
    }
    assert_eq!(t.as_slice(), &want[..]);
    assert!(p.crop_to_nd(&t).unwrap().iter().eq(nd.iter()));
}

#[test]
fn copies_through_padded_views_match_per_element_copies() {
    // ND -> padded ZN (runs of 1) and ND -> padded row-major (whole rows)
    for (l, m, n) in [
        (make_zn_layout::<f16>(20, 28).unwrap(), 20, 28),
        ("(24,40):(40,1)".parse::<DynLayout>().unwrap(), 21, 33),
    ] {
        let p = Padded::new(l, &[m, n]).unwrap();
        let nd = Tensor::from_fn(&[m, n], |i| i as i32).unwrap();
        let t = p.pad_from(&nd, -7).unwrap();
        for r in 0..m {
            for c in 0..n {
                let o = p.padded_offset(&[r, c]).unwrap();
                assert_eq!(t.as_slice()[o as usize], (r * n + c) as i32);
            }
        }
        assert!(p.crop_to_nd(&t).unwrap().iter().eq(nd.iter()));
    }
}

mod props {
    use crate::ascend::{M0, M1, N0, N1, recipe};
    use layout::named::{Padded, ascend};
    use layout::tensor::Tensor;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: crate::cases::cases(48), ..ProptestConfig::default() })]

        /// ND → padded fractal layout puts every element where Ascend's recipe does and the
        /// fill value everywhere else; cropping gives the ND tensor back.
        #[test]
        fn pad_and_crop_follow_the_recipe(
            m in 1i64..60,
            n in 1i64..80,
            c0 in prop::sample::select(vec![8i64, 16, 32, 64]),
            pattern in 0usize..3,
        ) {
            let (l, r0, k0, order) = match pattern {
                0 => (ascend::nz_layout(c0, m, n).unwrap(), 16, c0, [N1, M1, M0, N0]),
                1 => (ascend::zz_layout(c0, m, n).unwrap(), 16, c0, [M1, N1, M0, N0]),
                _ => (ascend::zn_layout(c0, m, n).unwrap(), c0, 16, [M1, N1, N0, M0]),
            };
            let p = Padded::new(l, &[m as usize, n as usize]).unwrap();
            let nd = Tensor::from_fn(&[m as usize, n as usize], |i| i as i32).unwrap();
            let fill = -1;
            let t = p.pad_from(&nd, fill).unwrap();
            let buf = recipe(m, n, r0, k0, order);
            prop_assert_eq!(t.as_slice().len(), buf.len());
            for (pos, &(r, c)) in buf.iter().enumerate() {
                let want = if r < m && c < n { (r * n + c) as i32 } else { fill };
                prop_assert_eq!(t.as_slice()[pos], want);
                prop_assert_eq!(p.is_padding(&[r as usize, c as usize]).unwrap(), want == fill);
            }
            let back = p.crop_to_nd(&t).unwrap();
            prop_assert!(back.iter().eq(nd.iter()));
        }
    }
}

/// The interior fast path and the per-element fallback (hierarchical or swizzled operands) give
/// the same tensors.
#[test]
fn pad_and_crop_with_hierarchical_and_swizzled_operands() {
    use layout::{Swizzle, SwizzledLayout};
    let p = Padded::new(make_nz_layout::<f16>(20, 28).unwrap(), &[20, 28]).unwrap();
    let nd = Tensor::from_fn(&[20, 28], |i| i as i32).unwrap();
    let want = p.pad_from(&nd, -1).unwrap();
    // the same 20 x 28 values held by a hierarchical (column-major blocked) layout
    let h: DynLayout = "((4,5),(2,14)):((1,4),(20,40))".parse().unwrap();
    let mut src = Tensor::new(vec![0i32; 560], h).unwrap();
    src.copy_from(&nd).unwrap();
    let got = p.pad_from(&src, -1).unwrap();
    assert_eq!(got.as_slice(), want.as_slice());
    // a swizzled source
    let sw = SwizzledLayout::new(
        Swizzle::new(2, 2, 3).unwrap(),
        0i64,
        "(20,28):(28,1)".parse::<DynLayout>().unwrap(),
    );
    let mut ssrc = Tensor::new(vec![0i32; 1024], sw).unwrap();
    ssrc.copy_from(&nd).unwrap();
    assert_eq!(p.pad_from(&ssrc, -1).unwrap().as_slice(), want.as_slice());
    // cropping from a swizzled padded tensor
    let q = Padded::new("(32,64):(64,1)".parse::<DynLayout>().unwrap(), &[20, 50]).unwrap();
    let nd2 = Tensor::from_fn(&[20, 50], |i| i as i32).unwrap();
    let padded = q.pad_from(&nd2, 0).unwrap();
    let sw2 = SwizzledLayout::new(
        Swizzle::new(3, 3, 3).unwrap(),
        0i64,
        "(32,64):(64,1)".parse::<DynLayout>().unwrap(),
    );
    let mut swz = Tensor::new(vec![0i32; 2048], sw2).unwrap();
    swz.copy_from(&padded).unwrap();
    assert!(q.crop_to_nd(&swz).unwrap().iter().eq(nd2.iter()));
    assert!(q.crop_to_nd(&padded).unwrap().iter().eq(nd2.iter()));
}

/// Tensors of at least 2^14 elements go piece by piece through the affine engine: every
/// logical element lands at the padded layout's offset, everything else keeps the fill.
#[test]
fn large_pad_and_crop_piece_by_piece() {
    use layout::named::ascend::{nd_ext_layout, zn_layout, zz_layout};
    let cases: Vec<(DynLayout, Vec<usize>)> = vec![
        (make_nz_layout::<f16>(300, 70).unwrap(), vec![300, 70]),
        (zn_layout(8, 130, 140).unwrap(), vec![130, 140]),
        (zz_layout(32, 200, 100).unwrap(), vec![200, 100]),
        (nchw8c(4, 17, 16, 16).unwrap(), vec![4, 17, 16, 16]),
        ("(208,104):(104,1)".parse().unwrap(), vec![200, 100]),
        (nd_ext_layout(150, 120, 128).unwrap(), vec![150, 120]),
        (
            "(6,(16,7),(16,2)):(3584,(16,256),(1,1792))"
                .parse()
                .unwrap(),
            vec![6, 100, 30],
        ),
    ];
    for (l, logical) in cases {
        let p = Padded::new(l, &logical).unwrap();
        let n: usize = logical.iter().product();
        assert!(n >= 1 << 14, "{p} is too small for the piece path");
        let nd = Tensor::from_fn(&logical, |i| i as i64).unwrap();
        let fill = -1;
        let t = p.pad_from(&nd, fill).unwrap();
        let buf = t.as_slice();
        let mut c = vec![0usize; logical.len()];
        let mut hits = 0;
        for i in 0..n {
            // row-major coordinate of logical element i
            let mut rest = i;
            for k in (0..logical.len()).rev() {
                c[k] = rest % logical[k];
                rest /= logical[k];
            }
            let o = p.padded_offset(&c).unwrap();
            assert_eq!(buf[o as usize], i as i64, "{p} at {c:?}");
            hits += 1;
        }
        assert_eq!(
            buf.iter().filter(|&&x| x == fill).count() as i64,
            buf.len() as i64 - hits
        );
        assert!(p.crop_to_nd(&t).unwrap().iter().eq(nd.iter()), "{p}");
    }
}
