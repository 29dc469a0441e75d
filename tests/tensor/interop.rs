//! Zero-copy conversion to and from `ndarray` views.

use crate::reference::{Rng, buffer, materialize, random_layout, random_shape};
use layout::tensor::TensorError;
use layout::tensor::s;
use layout::tensor::{Tensor, TensorMut, TensorRef};
use ndarray::{Array3, s as nds};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn to_ndarray_is_zero_copy(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let buf = buffer(len);
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        match t.as_ndarray() {
            Ok(a) => {
                let nd = materialize(&t);
                prop_assert_eq!(a.shape().iter().map(|&x| x as i64).collect::<Vec<_>>(), nd.shape.clone());
                prop_assert_eq!(a.iter().copied().collect::<Vec<_>>(), nd.data);
                // same memory
                let first = a.as_ptr();
                prop_assert_eq!(first, &t.as_slice()[t.base_offset()] as *const i32);
            }
            Err(e) => prop_assert!(matches!(e, TensorError::NotStrided { .. }), "{}", e),
        }
    }
}

#[test]
fn from_ndarray_dense_views() {
    let a = Array3::from_shape_fn((2, 3, 4), |(i, j, k)| (100 * i + 10 * j + k) as i32);
    let p = a.view().permuted_axes([2, 0, 1]);
    let t = TensorRef::from_ndarray(p.view()).unwrap();
    assert_eq!(t.layout().to_string(), "(4,2,3):(1,12,4)");
    assert!(t.iter().eq(p.iter()));
    let mut f = a.clone();
    f.invert_axis(ndarray::Axis(1));
    let t = TensorRef::from_ndarray(f.view()).unwrap();
    assert!(t.iter().eq(f.iter()));
    // a strided (non-dense) view is refused rather than guessed at
    let e = TensorRef::from_ndarray(a.slice(nds![.., ..;2, ..])).unwrap_err();
    assert!(e.to_string().contains("not dense"), "{e}");
    // writable
    let mut m = a.clone();
    let mut tm = TensorMut::from_ndarray_mut(m.view_mut()).unwrap();
    tm[[1, 2, 3]] = -1;
    assert_eq!(m[[1, 2, 3]], -1);
}

#[test]
fn as_ndarray_mut_writes_through() {
    let mut t = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    {
        let mut v = t.view_mut().slice(&s![.., ..;-1]).unwrap();
        let mut a = v.as_ndarray_mut().unwrap();
        a[[0, 0]] = 100; // element (0, 2) of t
    }
    assert_eq!(t[[0, 2]], 100);
}

#[test]
fn from_ndarray_strided_views() {
    let a = Array3::from_shape_fn((4, 3, 5), |(i, j, k)| (100 * i + 10 * j + k) as i32);
    for v in [
        a.slice(nds![.., ..;2, 1..]),
        a.slice(nds![..;-2, .., ..;3]),
        a.slice(nds![1..2, .., ..;-1]),
    ] {
        // SAFETY: views of the owned array `a`, which nothing mutates here
        let t = unsafe { TensorRef::from_ndarray_strided(v.view()) }.unwrap();
        assert!(t.iter().eq(v.iter()));
        assert_eq!(
            t.shape()
                .leaves()
                .iter()
                .map(|&e| e as usize)
                .collect::<Vec<_>>(),
            v.shape()
        );
    }
}
