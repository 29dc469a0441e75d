//! View operations against the reference model.

use crate::reference::{
    Nd, Rng, buffer, coords, materialize, py_indices, random_layout, random_shape,
};
use layout::DynLayout;
use layout::tensor::TensorError;
use layout::tensor::s;
use layout::tensor::{Slice, Tensor};
use proptest::prelude::*;

fn random_slice(rng: &mut Rng, n: i64) -> Slice {
    match rng.range(0, 4) {
        0 => Slice::Index(rng.range(-n, n - 1)),
        1 => Slice::ALL,
        _ => {
            let opt = |rng: &mut Rng| {
                if rng.coin() {
                    Some(rng.range(-n - 1, n + 1))
                } else {
                    None
                }
            };
            let start = opt(rng);
            let stop = opt(rng);
            let step = [1, 2, 3, -1, -2][rng.range(0, 4) as usize];
            Slice::Range { start, stop, step }
        }
    }
}

/// The reference result of basic indexing (no new axes).
fn ref_slice(nd: &Nd<i32>, idx: &[Slice]) -> Option<Nd<i32>> {
    let mut lists: Vec<(Vec<i64>, bool)> = vec![];
    for (k, &n) in nd.shape.iter().enumerate() {
        match idx.get(k).copied().unwrap_or(Slice::ALL) {
            Slice::Index(i) => {
                let ii = if i < 0 { i + n } else { i };
                if ii < 0 || ii >= n {
                    return None;
                }
                lists.push((vec![ii], false));
            }
            Slice::Range { start, stop, step } => {
                let v = py_indices(n, start, stop, step);
                if v.is_empty() {
                    return None;
                }
                lists.push((v, true));
            }
            Slice::NewAxis => unreachable!(),
        }
    }
    let shape: Vec<i64> = lists
        .iter()
        .filter(|(_, keep)| *keep)
        .map(|(v, _)| v.len() as i64)
        .collect();
    let full: Vec<i64> = lists.iter().map(|(v, _)| v.len() as i64).collect();
    let data = coords(&full)
        .iter()
        .map(|c| {
            let src: Vec<i64> = c
                .iter()
                .zip(&lists)
                .map(|(&i, (v, _))| v[i as usize])
                .collect();
            *nd.at(&src)
        })
        .collect();
    Some(Nd { shape, data })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(400)))]

    #[test]
    fn slicing_matches_numpy(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let buf = buffer(len);
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        let nd = materialize(&t);
        let k = rng.range(0, shape.len() as i64) as usize;
        let idx: Vec<Slice> = shape[..k].iter().map(|&n| random_slice(&mut rng, n)).collect();
        let got = t.slice(&idx);
        match ref_slice(&nd, &idx) {
            Some(want) => match got {
                Ok(v) => prop_assert_eq!(materialize(&v), want),
                // a range over a hierarchical axis that is not one stride
                Err(TensorError::NotStrided { axis }) => {
                    prop_assert!(t.layout().mode(axis).unwrap().leaf_count() > 1);
                }
                Err(e) => prop_assert!(false, "unexpected error {}", e),
            },
            None => prop_assert!(got.is_err()),
        }
    }

    #[test]
    fn permute_transpose_flip_match_reference(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let mut buf = buffer(len);
        let mut t = Tensor::with_offset(&mut buf[..], l, base).unwrap();
        let nd = materialize(&t);
        let mut p: Vec<usize> = (0..shape.len()).collect();
        rng.shuffle(&mut p);
        let pi: Vec<i64> = p.iter().map(|&x| x as i64).collect();
        let v = t.view_mut().permute(&pi).unwrap();  // stays writable
        prop_assert_eq!(materialize(&v), nd.permute(&p));
        let r = shape.len();
        let (a, b) = (rng.range(0, r as i64 - 1), rng.range(0, r as i64 - 1));
        let mut q: Vec<usize> = (0..r).collect();
        q.swap(a as usize, b as usize);
        prop_assert_eq!(materialize(&t.view().transpose(a, b - r as i64).unwrap()), nd.permute(&q));
        let rev: Vec<usize> = (0..r).rev().collect();
        prop_assert_eq!(materialize(&t.view().t().unwrap()), nd.permute(&rev));
        // flip = slice with step -1, when the axis is one stride
        if let Ok(f) = t.view().flip(a) {
            let mut idx = vec![Slice::ALL; r];
            idx[a as usize] = Slice::ALL.step(-1);
            prop_assert_eq!(Some(materialize(&f)), ref_slice(&nd, &idx));
        }
    }

    #[test]
    fn squeeze_and_expand_dims_round_trip(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let buf = buffer(len);
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        let nd = materialize(&t);
        let sq = materialize(&t.squeeze().unwrap());
        prop_assert_eq!(&sq.data, &nd.data);
        prop_assert_eq!(sq.shape, nd.shape.iter().copied().filter(|&e| e != 1).collect::<Vec<_>>());
        let out = shape.len() + 2;
        let (a, b) = (rng.range(0, out as i64 - 1), rng.range(0, out as i64 - 1));
        let e = t.expand_dims(&[a, b - out as i64]);
        if a == b {
            prop_assert_eq!(e.unwrap_err(), TensorError::RepeatedAxis { axis: a as usize });
        } else {
            let e = e.unwrap();
            let m = materialize(&e);
            prop_assert_eq!(&m.data, &nd.data);
            prop_assert_eq!(m.shape[a as usize], 1);
            prop_assert_eq!(m.shape[b as usize], 1);
            let back = e.squeeze_axes(&[a, b]).unwrap();
            prop_assert_eq!(materialize(&back), nd);
        }
    }

    #[test]
    fn diagonal_and_unfold_are_stride_tricks(seed in any::<u64>(), off in -3i64..4) {
        let mut rng = Rng(seed);
        let mut shape = random_shape(&mut rng, 3);
        shape.push(rng.range(1, 5));
        let (l, base, len) = random_layout(&mut rng, &shape);
        let buf = buffer(len);
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        let nd = materialize(&t);
        let r = shape.len();
        let (n1, n2) = (shape[r - 2], shape[r - 1]);
        match t.diagonal(off, -2, -1) {
            Ok(d) => {
                let m = materialize(&d);
                let want: Vec<i32> = coords(&shape[..r - 2]).iter().flat_map(|c| {
                    let c = c.clone();
                    let nd = &nd;
                    (0..).map(move |i| (i, i + off)).map(|(i, j)| if off < 0 { (i - off, i) } else { (i, j) })
                        .take_while(move |&(i, j)| i < n1 && j < n2)
                        .map(move |(i, j)| { let mut x = c.clone(); x.push(i); x.push(j); *nd.at(&x) })
                        .collect::<Vec<_>>()
                }).collect();
                prop_assert_eq!(m.data, want);
            }
            Err(TensorError::NotStrided { .. }) => {}
            Err(e) => {
                let len = if off >= 0 { n1.min(n2 - off) } else { (n1 + off).min(n2) };
                prop_assert!(len <= 0, "{}", e);
            }
        }
        let (size, step) = (rng.range(1, 4), rng.range(1, 3));
        match t.unfold(-1, size, step) {
            Ok(u) => {
                let m = materialize(&u);
                let count = (n2 - size) / step + 1;
                let mut want_shape = shape.clone();
                want_shape[r - 1] = count;
                want_shape.push(size);
                let want: Vec<i32> = coords(&want_shape).iter().map(|c| {
                    let mut x = c[..r].to_vec();
                    x[r - 1] = c[r - 1] * step + c[r];
                    *nd.at(&x)
                }).collect();
                prop_assert_eq!(m, Nd { shape: want_shape, data: want });
            }
            Err(TensorError::NotStrided { .. }) => {}
            Err(_) => prop_assert!(size > n2),
        }
    }
}

#[test]
fn pytorch_slide_examples() {
    // tensor[1, :] is a view at offset 2; tensor[:, 0] has stride 2
    let buf = [1, 2, 3, 4];
    let t = Tensor::row_major(&buf[..], &[2, 2]).unwrap();
    let row = t.slice(&s![1, ..]).unwrap();
    assert_eq!(row.base_offset(), 2);
    assert!(row.iter().copied().eq([3, 4]));
    let col = t.slice(&s![.., 0]).unwrap();
    assert_eq!(col.layout().to_string(), "(2):(2)");
    assert!(col.iter().copied().eq([1, 3]));
}

#[test]
fn views_share_storage_and_writes_show_through() {
    let mut t = Tensor::from_vec(vec![0; 6], &[2, 3]).unwrap();
    t.view_mut().slice(&s![.., 1]).unwrap().fill(7);
    t.view_mut().t().unwrap()[[2, 1]] = 9;
    assert_eq!(t.as_slice(), &[0, 7, 0, 0, 7, 9]);
    let mut d = t.view_mut().diagonal(0, 0, 1).unwrap();
    d.map_inplace(|x| *x += 1);
    assert_eq!(t.as_slice(), &[1, 7, 0, 0, 8, 9]);
}

#[test]
fn slicing_errors_name_axes_and_extents() {
    let t = Tensor::from_vec(vec![0; 6], &[2, 3]).unwrap();
    let e = t.view().slice(&s![.., 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "index 3 is out of range for axis 1 of extent 3"
    );
    let e = t.view().slice(&s![.., .., 0]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "axis 2 is out of range for a tensor of 2 axes"
    );
    let e = t.view().slice(&s![2..]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "axis 0 would have extent 0; tensors with empty axes are not supported"
    );
    let e = t.view().slice(&s![..;0]).unwrap_err();
    assert!(e.to_string().starts_with("slice: the step is 0"));
    let nested: DynLayout = "((2,3),2):((6,1),3)".parse().unwrap(); // axis 0 is not one stride
    let buf = [0; 12];
    let n = Tensor::new(&buf[..], nested).unwrap();
    assert_eq!(
        n.slice(&s![1..3]).unwrap_err(),
        TensorError::NotStrided { axis: 0 }
    );
    assert!(n.slice(&s![4, 1]).is_ok()); // an index into it is fine
    assert!(
        n.slice(&s![.., Slice::NewAxis])
            .unwrap()
            .shape()
            .to_string()
            == "(6,1,2)"
    );
}

#[test]
fn split_into_views() {
    let t = Tensor::from_vec((0..12).collect::<Vec<i32>>(), &[3, 4]).unwrap();
    let parts = t.split(1, 2).unwrap();
    assert_eq!(parts.len(), 2);
    assert_eq!(
        format!("{:?}", parts[1]),
        "[[ 2,  3],\n [ 6,  7],\n [10, 11]]"
    );
    assert_eq!(parts[1].base_offset(), 2);
    let parts = t.split_at(0, &[1]).unwrap();
    assert_eq!(parts[0].shape().to_string(), "(1,4)");
    assert_eq!(parts[1].shape().to_string(), "(2,4)");
    assert!(
        t.split(1, 3)
            .unwrap_err()
            .to_string()
            .contains("equal sections")
    );
    assert_eq!(
        t.split_at(0, &[2, 2]).unwrap_err(),
        TensorError::EmptyAxis { axis: 0 }
    );
}

#[test]
fn contiguity_follows_the_size_one_rules() {
    let buf = [0; 64];
    let c = |s: &str| Tensor::new(&buf[..], s.parse::<DynLayout>().unwrap()).unwrap();
    assert!(c("(8,1):(1,8)").is_contiguous());
    assert!(c("(1,8):(3,1)").is_contiguous());
    assert!(c("(2,3):(3,1)").is_contiguous());
    assert!(!c("(2,3):(1,2)").is_contiguous());
    assert!(c("(2,3):(1,2)").is_f_contiguous());
    assert!(c("(1):(5)").is_contiguous() && c("(1):(5)").is_f_contiguous());
    assert!(!c("(2,3):(4,1)").is_contiguous()); // padded rows
    assert!(c("((2,2),3):((3,6),1)").is_contiguous()); // hierarchical axis, in order
    assert!(!c("((2,2),3):((6,3),1)").is_contiguous());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(200)))]
    #[test]
    fn is_contiguous_is_exact(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let buf = buffer(len);
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        let offs = crate::reference::offsets(&l);
        let want = offs.iter().enumerate().all(|(i, &o)| o == offs[0] + i as i64);
        prop_assert_eq!(t.is_contiguous(), want);
        let c = t.contiguous();
        prop_assert_eq!(materialize(&c), materialize(&t));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(300)))]

    /// `split_at_mut` gives two simultaneously writable halves exactly when their buffer ranges
    /// are disjoint, and they are the two slices of the axis.
    #[test]
    fn split_at_mut_halves(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 3);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let mut buf = buffer(len);
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        let nd = materialize(&t);
        let k = rng.range(0, shape.len() as i64 - 1) as usize;
        let i = rng.range(0, shape[k]);
        let mut lo_idx = vec![Slice::ALL; k + 1];
        lo_idx[k] = Slice::from(0..i);
        let mut hi_idx = vec![Slice::ALL; k + 1];
        hi_idx[k] = Slice::from(i..shape[k]);
        let want_a = ref_slice(&nd, &lo_idx);
        let want_b = ref_slice(&nd, &hi_idx);
        // absolute offsets of each half, from the reference model
        let halves: Option<(Vec<i64>, Vec<i64>)> = (|| {
            let a = t.slice(&lo_idx).ok()?;
            let b = t.slice(&hi_idx).ok()?;
            let abs = |v: &Tensor<&[i32], DynLayout>| crate::reference::offsets(v.layout()).iter().map(|o| o + v.base_offset() as i64).collect::<Vec<_>>();
            Some((abs(&a), abs(&b)))
        })();
        let mut tm = Tensor::with_offset(&mut buf[..], l, base).unwrap();
        match tm.view_mut().split_at_mut(k as i64, i) {
            Ok((mut a, mut b)) => {
                prop_assert_eq!(Some(materialize(&a)), want_a);
                prop_assert_eq!(Some(materialize(&b)), want_b);
                a.fill(-1);
                b.fill(-2);
                let (oa, ob) = halves.unwrap();
                let disjoint = oa.iter().max() < ob.iter().min() || ob.iter().max() < oa.iter().min();
                prop_assert!(disjoint);
                for o in oa { prop_assert_eq!(tm.as_slice()[o as usize], -1); }
                for o in ob { prop_assert_eq!(tm.as_slice()[o as usize], -2); }
            }
            Err(TensorError::EmptyAxis { .. }) => prop_assert!(want_a.is_none() || want_b.is_none()),
            Err(TensorError::NotStrided { .. }) => {}
            Err(e) => {
                let (oa, ob) = halves.unwrap();
                let disjoint = oa.iter().max() < ob.iter().min() || ob.iter().max() < oa.iter().min();
                prop_assert!(!disjoint, "{}", e);
            }
        }
    }
}
