//! The conventions users bring from ndarray and NumPy: `usize` extents and indices, `Display`,
//! reductions, `indexed_iter`, `axis_iter`, `dims` — each checked against the reference model on
//! random strided tensors (hierarchical axes, gaps, negative strides).

use crate::reference::{Rng, buffer, coords, materialize, random_layout, random_shape};
use layout::tensor::{Tensor, broadcast_shapes};
use proptest::prelude::*;

fn us(c: &[i64]) -> Vec<usize> {
    c.iter().map(|&x| x as usize).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(200)))]

    #[test]
    fn usize_indices_agree_with_the_reference(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let buf = buffer(len);
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        let nd = materialize(&t);
        for (j, c) in coords(&shape).iter().enumerate() {
            let cu = us(c);
            prop_assert_eq!(t[&cu[..]], nd.data[j]);
            prop_assert_eq!(t.get(&c[..]), Some(&nd.data[j]));
            if let [i0, i1] = cu[..] {
                prop_assert_eq!(t[[i0, i1]], nd.data[j]);
                prop_assert_eq!(t.get([i0, i1 + shape[1] as usize]), None);
                prop_assert_eq!(t.get([usize::MAX, i1]), None);
            }
        }
        // one index too many or too few: outside the domain
        let mut long = us(&coords(&shape)[0]);
        long.push(0);
        prop_assert_eq!(t.get(&long[..]), None);
        prop_assert_eq!(t.get(&long[..long.len() - 2]), None);
        prop_assert_eq!(t.dims().to_vec(), us(&shape));
    }

    #[test]
    fn reductions_agree_with_the_reference(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let buf: Vec<i64> = (0..len).map(|_| rng.range(-50, 50)).collect();
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        let nd = materialize(&t);
        prop_assert_eq!(t.sum(), nd.data.iter().sum::<i64>());
        let small: Vec<i64> = buf.iter().map(|x| x.rem_euclid(3) - 1).collect();
        let ts = Tensor::with_offset(&small[..], l, base).unwrap();
        prop_assert_eq!(ts.product(), materialize(&ts).data.iter().product::<i64>());
        prop_assert_eq!(t.min(), nd.data.iter().copied().min());
        prop_assert_eq!(t.max(), nd.data.iter().copied().max());
        // floats: small integers, so every sum is exact whatever the order
        let f: Vec<f64> = buf.iter().map(|&x| x as f64).collect();
        let tf = Tensor::with_offset(&f[..], l, base).unwrap();
        prop_assert_eq!(tf.mean(), nd.data.iter().sum::<i64>() as f64 / nd.data.len() as f64);
        // one NaN anywhere in the tensor: no min or max
        let k = rng.range(0, nd.data.len() as i64 - 1) as usize;
        let off = base as i64 + layout::AnyLayout::offset(&l, k as i64);
        let mut fnan = f.clone();
        fnan[off as usize] = f64::NAN;
        let tn = Tensor::with_offset(&fnan[..], l, base).unwrap();
        prop_assert_eq!((tn.min(), tn.max()), (None, None));
    }

    #[test]
    fn indexed_iter_and_axis_iter_agree_with_the_reference(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let buf = buffer(len);
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        let nd = materialize(&t);
        let all = coords(&shape);
        let got: Vec<(Vec<usize>, i32)> = t.indexed_iter().map(|(i, &x)| (i.to_vec(), x)).collect();
        let want: Vec<(Vec<usize>, i32)> = all.iter().map(|c| us(c)).zip(nd.data.iter().copied()).collect();
        prop_assert_eq!(got, want);
        prop_assert_eq!(t.indexed_iter().len(), nd.data.len());
        for axis in 0..shape.len() {
            let subs: Vec<Vec<i32>> = t.axis_iter(axis as i64).unwrap().map(|v| v.iter().copied().collect()).collect();
            prop_assert_eq!(subs.len(), shape[axis] as usize);
            for (i, sub) in subs.iter().enumerate() {
                let want: Vec<i32> = all.iter().zip(&nd.data).filter(|(c, _)| c[axis] == i as i64).map(|(_, &x)| x).collect();
                prop_assert_eq!(sub, &want);
            }
            // negative axes count from the end
            prop_assert_eq!(t.axis_iter(axis as i64 - shape.len() as i64).unwrap().len(), shape[axis] as usize);
        }
        prop_assert!(t.axis_iter(shape.len() as i64).is_err());
    }

    #[test]
    fn display_is_debug_without_commas(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let buf: Vec<i64> = (0..len).map(|_| rng.range(-200, 200)).collect();
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        // for integers Display and Debug write the same digits: only NumPy's commas differ
        prop_assert_eq!(t.to_string(), format!("{t:?}").replace(',', ""));
    }
}

#[test]
fn display_matches_numpy() {
    // the strings `print(np.arange(…).reshape(…))` gives
    let t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    assert_eq!(t.to_string(), "[[0 1 2]\n [3 4 5]]");
    let t = Tensor::from_vec((0..8).collect::<Vec<i32>>(), &[2, 2, 2]).unwrap();
    assert_eq!(t.to_string(), "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
    let t = Tensor::from_vec(vec![-1, 10, 3], &[3]).unwrap();
    assert_eq!(t.to_string(), "[-1 10  3]");
    let t = Tensor::from_vec(vec![0.5f64, -1.25], &[1, 2]).unwrap();
    assert_eq!(format!("{t:.3}"), "[[ 0.500 -1.250]]");
    // summarised beyond 1000 elements, as NumPy
    let t = Tensor::from_fn(&[1001], |i| i as u32).unwrap();
    assert_eq!(t.to_string(), "[   0    1    2 ...  998  999 1000]");
}

#[test]
fn usize_extents_beyond_i64_are_errors() {
    let e = Tensor::from_vec(vec![0u8; 4], &[usize::MAX, 2]).unwrap_err();
    assert!(e.to_string().contains("extent"), "{e}");
    assert!(Tensor::<Vec<u8>, _>::from_fn(&[1 << 62, 1 << 62], |_| 0).is_err());
    assert!(Tensor::from_vec(vec![0u8; 1], &[1; 40]).is_err());
    let t = Tensor::from_vec(vec![1, 2, 3], &[3]).unwrap();
    assert!(t.broadcast_to(&[usize::MAX, 3]).is_err());
    assert!(broadcast_shapes(&[usize::MAX], &[3]).is_err());
    assert_eq!(
        broadcast_shapes(&[4, 1], &[3]).unwrap().to_string(),
        "(4,3)"
    );
    // extents from usize variables, as ndarray's `from_shape_vec((m, n), v)`
    let (m, n) = (3usize, 4usize);
    let t = Tensor::from_vec((0..m * n).collect::<Vec<_>>(), &[m, n]).unwrap();
    assert_eq!(t[[m - 1, n - 1]], m * n - 1);
    assert_eq!(t[(m - 1, n - 1)], m * n - 1);
}
