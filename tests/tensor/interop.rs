//! Zero-copy conversion to and from `ndarray` views.

use crate::reference::{Rng, buffer, materialize, random_layout, random_shape};
use layout::tensor::TensorError;
use layout::tensor::s;
use layout::tensor::{Tensor, TensorMut, TensorRef};
use ndarray::{Array3, s as nds};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(200)))]

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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(200)))]

    /// Every strided sub-block of a dense array (ranges and steps of either sign on every axis)
    /// becomes a safe zero-copy tensor over the parent's buffer with the same elements.
    #[test]
    fn strided_sub_blocks_are_safe_zero_copy_views(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let dims: Vec<usize> = (0..rng.range(1, 3)).map(|_| rng.range(1, 7) as usize).collect();
        let a = ndarray::ArrayD::from_shape_fn(dims.clone(), |ix| ndarray::Dimension::slice(&ix).iter().fold(0i32, |s, &i| 10 * s + i as i32));
        let slices: Vec<ndarray::Slice> = dims
            .iter()
            .map(|&e| {
                let start = rng.range(0, e as i64 - 1);
                let end = rng.range(start + 1, e as i64);
                let step = [1, 2, 3, -1, -2][rng.range(0, 4) as usize];
                ndarray::Slice::new(start as isize, Some(end as isize), step)
            })
            .collect();
        let v = a.slice_each_axis(|d| slices[d.axis.index()]);
        let t = TensorRef::from_ndarray_in(v.view(), a.view()).unwrap();
        prop_assert!(t.iter().eq(v.iter()));
        prop_assert_eq!(t.as_slice().as_ptr(), a.as_ptr());
        prop_assert_eq!(t.dims().to_vec(), v.shape().to_vec());
        // the same view seen from an unrelated array is refused
        let other = a.clone();
        prop_assert!(TensorRef::from_ndarray_in(v.view(), other.view()).is_err());
    }
}

#[test]
fn sub_block_views_need_a_dense_parent_and_typed_views_their_rank() {
    let a = ndarray::Array2::from_shape_fn((32, 32), |(i, j)| (100 * i + j) as i32);
    let block = a.slice(nds![8..24, 4..20]);
    let t = TensorRef::from_ndarray_in(block, a.view()).unwrap();
    assert_eq!(t.layout().to_string(), "(16,16):(32,1)");
    assert_eq!(t[[15usize, 15]], 2319);
    // a parent that is itself strided gives no safe access to its gaps
    let gappy = a.slice(nds![.., ..;2]);
    let e = TensorRef::from_ndarray_in(gappy.slice(nds![1..3, ..]), gappy).unwrap_err();
    assert!(e.to_string().contains("parent view is not dense"), "{e}");
    // typed ndarray views: Ix2 for a matrix, a rank mismatch is an error naming both ranks
    let m = t.as_ndarray2().unwrap();
    assert_eq!(m, block);
    let e = t.as_ndarray_dim::<ndarray::Ix3>().unwrap_err();
    assert!(
        e.to_string().contains("has 2 axes") && e.to_string().contains("has 3"),
        "{e}"
    );
}

/// `use layout::*; use ndarray::*;` compose: `s!` is ndarray's (layout's is
/// `layout::tensor::s`), and the names a user reaches for resolve.
mod globs {
    use layout::*;
    use ndarray::*;

    #[test]
    fn glob_imports_of_both_crates_compose() {
        let a = Array2::from_shape_fn((6, 6), |(i, j)| 10 * i + j);
        let v = a.slice(s![1..5, 2..4]);
        let t = tensor::TensorRef::from_ndarray_in(v, a.view()).unwrap();
        let l: DynLayout = "(4,2):(6,1)".parse().unwrap();
        assert_eq!(*t.layout(), l);
        assert_eq!(layout!((4, 2) : (6, 1)).to_dyn().unwrap(), l);
        assert!(
            t.view()
                .slice(&tensor::s![.., ..;-1])
                .unwrap()
                .iter()
                .eq(v.slice(s![.., ..;-1]).iter())
        );
    }
}
