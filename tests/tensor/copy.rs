//! Copies between arbitrary layouts, the NZ conversion, concat and stack.

use crate::reference::{Nd, Rng, buffer, materialize, random_layout, random_shape};
use layout::tensor::TensorError;
use layout::tensor::{Tensor, concat, stack};
use layout::{DynLayout, Int, Layout};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(400)))]

    /// Copying between two random layouts of one shape (hierarchical axes, negative strides,
    /// gaps) preserves every logical element, through the fast and the slow walk alike.
    #[test]
    fn copy_between_any_layouts(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        let (ls, bs, ns) = random_layout(&mut rng, &shape);
        let (ld, bd, nd_len) = random_layout(&mut rng, &shape);
        let src_buf = buffer(ns);
        let src = Tensor::with_offset(&src_buf[..], ls, bs).unwrap();
        let mut dst_buf = vec![-1; nd_len];
        let mut dst = Tensor::with_offset(&mut dst_buf[..], ld, bd).unwrap();
        dst.copy_from(&src).unwrap();
        prop_assert_eq!(materialize(&dst), materialize(&src));
        // nothing outside the destination's elements was written
        let written = dst_buf.iter().filter(|&&x| x != -1).count();
        prop_assert_eq!(written as i64, ld.size());
    }
}

#[test]
fn copy_shape_mismatch_names_both_shapes() {
    let a = Tensor::from_vec(vec![0; 6], &[2, 3]).unwrap();
    let mut b = Tensor::from_vec(vec![0; 6], &[3, 2]).unwrap();
    assert_eq!(
        b.copy_from(&a).unwrap_err().to_string(),
        "copy_from: shapes (2,3) and (3,2) differ; they must be equal"
    );
}

/// ND → NZ for fp16 (layouts-beyond-cute.md §1.8): the 32 x 32 case with exact offsets, and
/// the round trip back.
#[test]
fn nd_to_nz_offsets() {
    let (m, n) = (32i64, 32i64);
    let nd = Tensor::from_fn(&[m as usize, n as usize], |i| i as u16).unwrap();
    let nz_l: DynLayout = format!(
        "((16,{}),(16,{})):((16,256),(1,{}))",
        m / 16,
        n / 16,
        16 * m
    )
    .parse()
    .unwrap();
    let mut nz = Tensor::new(vec![0u16; (m * n) as usize], nz_l).unwrap();
    nz.copy_from(&nd).unwrap();
    let at = |r: i64, c: i64| {
        nz.as_slice()[((r % 16) * 16 + (r / 16) * 256 + (c % 16) + (c / 16) * 16 * m) as usize]
    };
    for r in 0..m {
        for c in 0..n {
            assert_eq!(at(r, c), (r * n + c) as u16);
        }
    }
    assert_eq!(nz.as_slice()[16], 32); // (1,0)
    assert_eq!(nz.as_slice()[512], 16); // (0,16)
    let mut back = Tensor::from_vec(vec![0u16; 1024], &[m as usize, n as usize]).unwrap();
    back.copy_from(&nz).unwrap();
    assert_eq!(back.as_slice(), nd.as_slice());
    assert_eq!(nd.layout().max_common_vector(nz.layout()), 16); // one fractal row
}

#[test]
fn static_layout_copies() {
    // a static column-major 4 x 8 from a dynamic row-major one
    let rm = Tensor::from_fn(&[4, 8], |i| i as f32).unwrap();
    let cm = Layout::new((Int::<4>, Int::<8>), (Int::<1>, Int::<4>));
    let mut buf = [0f32; 32];
    let mut t = Tensor::new(&mut buf[..], cm).unwrap();
    t.copy_from(&rm).unwrap();
    assert_eq!(t[(1, 2)], 10.0);
    assert_eq!(buf[1 + 2 * 4], 10.0);
}

#[test]
fn common_vectors() {
    // the copy's fast path is CuTe's max_common_vector of the two layouts
    let p = |s: &str| s.parse::<DynLayout>().unwrap();
    let mcv = |a: &str, b: &str| p(a).max_common_vector(&p(b));
    assert_eq!(mcv("(4,8):(8,1)", "(4,8):(8,1)"), 32);
    assert_eq!(mcv("(4,8):(16,1)", "(4,8):(8,1)"), 8);
    assert_eq!(mcv("(4,8):(1,4)", "(4,8):(8,1)"), 1);
    // across different nestings of one axis
    assert_eq!(mcv("(6):(1)", "((2,3)):((1,2))"), 6);
    assert_eq!(mcv("(6):(1)", "((3,2)):((2,1))"), 1);
    // nestings that do not refine each other, same function: one memcpy
    assert_eq!(mcv("((2,3)):((1,2))", "((3,2)):((1,3))"), 6);
    let src = Tensor::new((0..6).collect::<Vec<i32>>(), p("((2,3)):((1,2))")).unwrap();
    let mut dst = Tensor::new(vec![0; 6], p("((3,2)):((1,3))")).unwrap();
    dst.copy_from(&src).unwrap();
    assert_eq!(dst.as_slice(), src.as_slice());
    let mut bad = Tensor::new(vec![0; 5], p("(5):(1)")).unwrap();
    assert!(matches!(
        bad.copy_from(&src),
        Err(TensorError::ShapeMismatch { .. })
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(200)))]

    #[test]
    fn concat_and_stack_match_reference(seed in any::<u64>(), count in 1usize..4) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 3);
        let axis = rng.range(0, shape.len() as i64 - 1) as usize;
        let mut bufs = vec![];
        let mut layouts = vec![];
        let mut shapes = vec![];
        for _ in 0..count {
            let mut s = shape.clone();
            s[axis] = rng.range(1, 3);
            let (l, b, n) = random_layout(&mut rng, &s);
            bufs.push(buffer(n).iter().map(|x| x + 1000 * bufs.len() as i32).collect::<Vec<_>>());
            layouts.push((l, b));
            shapes.push(s);
        }
        let views: Vec<_> = bufs.iter().zip(&layouts).map(|(b, &(l, o))| Tensor::with_offset(&b[..], l, o).unwrap()).collect();
        let got = materialize(&concat(&views, axis as i64).unwrap());
        // reference: interleave the parts along `axis`
        let parts: Vec<Nd<i32>> = views.iter().map(materialize).collect();
        let mut want_shape = shape.clone();
        want_shape[axis] = parts.iter().map(|p| p.shape[axis]).sum();
        let want: Vec<i32> = crate::reference::coords(&want_shape).iter().map(|c| {
            let mut i = c[axis];
            let mut k = 0;
            while i >= parts[k].shape[axis] { i -= parts[k].shape[axis]; k += 1; }
            let mut cc = c.clone();
            cc[axis] = i;
            *parts[k].at(&cc)
        }).collect();
        prop_assert_eq!(got, Nd { shape: want_shape, data: want });
        // stack: equal shapes only
        let same: Vec<_> = views.iter().filter(|v| v.shape().leaves() == views[0].shape().leaves()).copied().collect();
        let pos = rng.range(0, shape.len() as i64) ;
        let st = materialize(&stack(&same, pos).unwrap());
        prop_assert_eq!(st.shape[pos as usize], same.len() as i64);
        for (j, v) in same.iter().enumerate() {
            let sub = st.data.clone();
            let picked = Tensor::from_vec(sub, &st.shape.iter().map(|&e| e as usize).collect::<Vec<_>>()).unwrap();
            let piece = picked.view().index_axis(pos, j as i64).unwrap();
            prop_assert_eq!(materialize(&piece), materialize(v));
        }
    }
}

#[test]
fn concat_errors() {
    let a = Tensor::from_vec(vec![0; 6], &[2, 3]).unwrap();
    let b = Tensor::from_vec(vec![0; 4], &[2, 2]).unwrap();
    let (a, b) = (a.view().into_dyn().unwrap(), b.view().into_dyn().unwrap());
    assert!(concat(&[a, b], 1).is_ok());
    assert_eq!(
        concat(&[a, b], 0).unwrap_err().to_string(),
        "concat: shapes (2,3) and (2,2) differ; they must be equal"
    );
    assert_eq!(
        concat(&[a, b], 2).unwrap_err().to_string(),
        "axis 2 is out of range for a tensor of 2 axes"
    );
    assert!(concat::<i32>(&[], 0).is_err());
    assert_eq!(
        stack(&[a, b], 0).unwrap_err().to_string(),
        "stack: shapes (2,3) and (2,2) differ; they must be equal"
    );
    assert_eq!(stack(&[a, a], 2).unwrap().shape().to_string(), "(2,3,2)");
    assert_eq!(stack(&[a, a], -1).unwrap().shape().to_string(), "(2,3,2)");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(60)))]

    /// Large transposing copies take the cache-blocked walk (extents with a divisor in
    /// [8, 32]); every element still lands at its coordinate.
    #[test]
    fn tiled_transposing_copies(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let r = rng.range(2, 3) as usize;
        let shape: Vec<i64> = (0..r).map(|_| [8, 16, 24, 40, 3, 9][rng.range(0, 5) as usize]).collect();
        let (ls, bs, ns) = random_layout(&mut rng, &shape);
        let src_buf = buffer(ns);
        let src = Tensor::with_offset(&src_buf[..], ls, bs).unwrap();
        let mut perm: Vec<i64> = (0..r as i64).collect();
        rng.shuffle(&mut perm);
        // destination: row-major of the same shape, source seen through a permutation twice
        let srcp = src.permute(&perm).unwrap();
        let mut dst = Tensor::from_vec(vec![-1; ls.size() as usize], &srcp.dims()).unwrap();
        dst.copy_from(&srcp).unwrap();
        prop_assert_eq!(materialize(&dst), materialize(&srcp));
        let mut back_buf = vec![-1; ns];
        let mut back = Tensor::with_offset(&mut back_buf[..], ls, bs).unwrap();
        back.view_mut().permute(&perm).unwrap().copy_from(&dst).unwrap();
        prop_assert_eq!(materialize(&back), materialize(&src));
    }
}

#[test]
fn transposes_of_large_matrices() {
    for (m, n) in [(64, 96), (40, 24), (33, 64), (256, 8)] {
        let a = Tensor::from_fn(&[m, n], |i| i as u32).unwrap();
        let mut t = Tensor::from_vec(vec![0u32; m * n], &[n, m]).unwrap();
        t.copy_from(&a.view().t().unwrap()).unwrap();
        for i in 0..n {
            for j in 0..m {
                assert_eq!(t[[i, j]], (j * n + i) as u32);
            }
        }
    }
}

/// One random copy with elements of type `T`: every logical element arrives, nothing else of
/// the destination buffer is written.
fn copy_with_elements<T: Copy + PartialEq + std::fmt::Debug>(
    rng: &mut Rng,
    shape: &[i64],
    val: impl Fn(usize) -> T,
    sentinel: T,
) {
    let (ls, bs, ns) = random_layout(rng, shape);
    let (ld, bd, nd_len) = random_layout(rng, shape);
    let src_buf: Vec<T> = (0..ns).map(&val).collect();
    let src = Tensor::with_offset(&src_buf[..], ls, bs).unwrap();
    let mut dst_buf = vec![sentinel; nd_len];
    let mut dst = Tensor::with_offset(&mut dst_buf[..], ld, bd).unwrap();
    dst.copy_from(&src).unwrap();
    assert!(dst.iter().eq(src.iter()), "{ls} -> {ld}");
    let written = dst_buf.iter().filter(|&&x| x != sentinel).count();
    assert_eq!(written as i64, ld.size(), "{ls} -> {ld}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(150)))]

    /// The copy kernels (constant-length runs, 8 × 8 micro-tiled transposes with ragged edges)
    /// for 1-, 2-, 4- and 8-byte elements, on shapes around the tile sizes, with hierarchical
    /// axes, negative strides and gaps: checked against the logical iteration, which walks each
    /// layout on its own.
    #[test]
    fn copy_kernels_for_every_element_size(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let r = rng.range(1, 3) as usize;
        let shape: Vec<i64> = (0..r)
            .map(|_| [1, 3, 7, 8, 9, 15, 16, 17, 32, 33, 64, 70][rng.range(0, 11) as usize])
            .collect();
        copy_with_elements(&mut rng, &shape, |i| (i % 251) as u8 + 1, 0u8);
        copy_with_elements(&mut rng, &shape, |i| (i % 65535) as u16 + 1, 0u16);
        copy_with_elements(&mut rng, &shape, |i| i as f32 + 1.0, 0f32);
        copy_with_elements(&mut rng, &shape, |i| i as u64 + 1, 0u64);
    }
}

/// Plain transposes of every element size through the micro-tiled kernel, including edges that
/// are not multiples of 8 or of a cache line.
#[test]
fn transposes_for_every_element_size() {
    fn check<T: Copy + PartialEq + std::fmt::Debug + Default>(f: impl Fn(i64) -> T) {
        for (m, n) in [(8, 8), (16, 64), (67, 33), (1, 40), (40, 1), (129, 130)] {
            let a = Tensor::from_fn(&[m, n], |i| f(i as i64)).unwrap();
            let mut t = Tensor::from_vec(vec![T::default(); m * n], &[n, m]).unwrap();
            t.copy_from(&a.view().t().unwrap()).unwrap();
            for i in 0..n {
                for j in 0..m {
                    assert_eq!(t[[i, j]], f((j * n + i) as i64), "{m}x{n} at ({i},{j})");
                }
            }
        }
    }
    check(|i| i as u8);
    check(|i| i as u16);
    check(|i| i as u32);
    check(|i| i as f64);
    // the SIMD micro-tiles take the plain types by identity, every other Copy type goes element
    // by element (a 4-byte struct with a padding byte must not travel as an integer lane)
    check(|i| i as i16);
    check(|i| layout::named::f16::from_f32((i % 2048) as f32));
    check(|i| layout::named::bf16::from_f32((i % 256) as f32));
    check(|i| i as i32);
    check(|i| i as f32);
    check(|i| i);
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    struct Padded(u8, u16);
    check(|i| Padded(i as u8, (i / 7) as u16));
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    struct Pair(u32, u32);
    check(|i| Pair(i as u32, !(i as u32)));
}

/// The parallel copy on pools of 1 to 5 threads, for copies that take each kernel (a
/// transpose, ND → NZ chunks, runs, a batched transpose, a plain memcpy), one of them above the
/// 8 MiB threshold of the parallel path, from offset views into sentinel-filled buffers: the
/// same elements as the logical iteration, and nothing written outside the destination's
/// image. (The split itself is tested below the threshold in the crate's unit tests.)
#[cfg(feature = "rayon")]
#[test]
fn parallel_copies_match_the_definition() {
    fn check<T: Copy + PartialEq + std::fmt::Debug + Send + Sync>(
        src_l: &str,
        dst_l: &str,
        val: impl Fn(usize) -> T,
        sentinel: T,
    ) {
        let (sl, dl): (DynLayout, DynLayout) = (src_l.parse().unwrap(), dst_l.parse().unwrap());
        let (sb, db) = (3usize, 5usize);
        let buf: Vec<T> = (0..sl.cosize() as usize + sb).map(&val).collect();
        let src = Tensor::with_offset(&buf[..], sl, sb).unwrap();
        for threads in 1..=5 {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut out = vec![sentinel; dl.cosize() as usize + db + 9];
            let mut dst = Tensor::with_offset(&mut out[..], dl, db).unwrap();
            pool.install(|| dst.par_copy_from(&src)).unwrap();
            assert!(
                dst.iter().eq(src.iter()),
                "{src_l} -> {dst_l} on {threads} threads"
            );
            let written = out.iter().filter(|&&x| x != sentinel).count();
            assert_eq!(written as i64, dl.size(), "{src_l} -> {dst_l} on {threads}");
        }
    }
    // f32 transpose, 640 x 520 (1.3 MiB)
    check(
        "(640,520):(1,640)",
        "(640,520):(520,1)",
        |i| i as f32 + 1.0,
        0.0,
    );
    // u16 ND -> NZ, 1024 x 576 (1.1 MiB), and back
    let nz = "((16,64),(16,36)):((16,256),(1,16384))";
    check("(1024,576):(576,1)", nz, |i| (i % 65521) as u16 + 1, 0);
    check(nz, "(1024,576):(576,1)", |i| (i % 65521) as u16 + 1, 0);
    // NCHW -> NHWC, 3 x 48 x 40 x 40 of u64 (1.8 MiB)
    check(
        "(3,48,40,40):(76800,1600,40,1)",
        "(3,48,40,40):(76800,1,1920,48)",
        |i| i as u64 + 1,
        0,
    );
    // equal layouts (one run), and runs of 100 with a gap
    check("(400000):(1)", "(400000):(1)", |i| i as u32 + 1, 0);
    check(
        "(3000,100):(128,1)",
        "(3000,100):(100,1)",
        |i| i as u32 + 1,
        0,
    );
}

/// Copies between two static layouts run from a plan computed at compile time: checked element
/// by element against the logical iteration, from offset views, on layouts of every kind (a
/// tile into an NZ fractal and back, a transpose, hierarchical and negative strides, a padded
/// destination), writing nothing outside the destination's image; and a static pair of different
/// axis extents still reports the mismatch.
#[test]
fn static_to_static_copies() {
    use layout::named::{Nz, f16};
    fn check<LD: layout::AnyLayout + Copy, LS: layout::AnyLayout + Copy>(d: LD, s: LS) {
        let sd = s.to_dyn().unwrap();
        let (lo, hi) = sd.offset_range();
        let sb = (-lo) as usize + 2;
        let buf: Vec<u16> = (0..(hi - lo) as usize + 5).map(|i| i as u16 + 1).collect();
        let src = Tensor::with_offset(&buf[..], s, sb).unwrap();
        let dd = d.to_dyn().unwrap();
        let (lo, hi) = dd.offset_range();
        let db = (-lo) as usize + 3;
        let mut out = vec![0u16; (hi - lo) as usize + 7];
        let mut dst = Tensor::with_offset(&mut out[..], d, db).unwrap();
        dst.copy_from(&src).unwrap();
        assert!(dst.iter().eq(src.iter()), "{dd} <- {sd}");
        assert_eq!(out.iter().filter(|&&x| x != 0).count() as i64, dd.size());
    }
    let nd32 = Layout::new((Int::<32>, Int::<32>), (Int::<32>, Int::<1>));
    let nz32 = Nz::<f16, 32, 32>::new();
    check(nz32, nd32);
    check(nd32, nz32);
    let cm = Layout::new((Int::<32>, Int::<32>), (Int::<1>, Int::<32>));
    check(cm, nd32);
    check(nz32, cm);
    // hierarchical, negative and padded strides
    let h = Layout::new(
        (Int::<8>, (Int::<2>, Int::<2>)),
        (Int::<1>, (Int::<16>, Int::<8>)),
    );
    let rm84 = Layout::new((Int::<8>, Int::<4>), (Int::<4>, Int::<1>));
    check(h, rm84);
    check(rm84, h);
    let neg = Layout::new((Int::<8>, Int::<4>), (Int::<4>, Int::<-1>));
    check(neg, h);
    check(h, neg);
    let padded = Layout::new((Int::<8>, Int::<4>), (Int::<1>, Int::<1000>));
    check(padded, rm84);
    // static layouts of different extents: the run-time check names both
    let a = Tensor::new(vec![0u16; 32], rm84).unwrap();
    let mut b = Tensor::new(
        vec![0u16; 32],
        Layout::new((Int::<4>, Int::<8>), (Int::<8>, Int::<1>)),
    )
    .unwrap();
    assert!(matches!(
        b.copy_from(&a),
        Err(TensorError::ShapeMismatch { .. })
    ));
}
