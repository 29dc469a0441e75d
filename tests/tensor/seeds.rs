//! The seed documents' examples (MegEngine tensor manipulation and layout, PyTorch internals),
//! as named tests.

use layout::tensor::Tensor;
use layout::tensor::TensorError;

fn ones(shape: &[usize]) -> Tensor<Vec<f32>, layout::DynLayout> {
    let n = shape.iter().product::<usize>();
    Tensor::from_vec(vec![1.0; n], shape).unwrap()
}

#[test]
fn megengine_row_major_strides_and_offsets() {
    // x = [[0..5],[5..10]] int32: strides (20, 4) bytes = (5, 1) elements; x[1][2] at 7
    let x = Tensor::from_vec((0..10).collect::<Vec<i32>>(), &[2, 5]).unwrap();
    assert_eq!(x.layout().stride().to_string(), "(5,1)");
    assert_eq!(x[[1, 2]], 7);
    assert_eq!(x.layout().offset_of(&"(1,2)".parse().unwrap()), Ok(7));
}

#[test]
fn megengine_reshape_examples() {
    let a = Tensor::from_vec((0..12).collect::<Vec<i32>>(), &[12]).unwrap();
    let r = a.view().reshape(&[3, 4]).unwrap();
    assert_eq!(
        format!("{r:?}"),
        "[[ 0,  1,  2,  3],\n [ 4,  5,  6,  7],\n [ 8,  9, 10, 11]]"
    );
    let a = ones(&[2, 3, 4]);
    assert_eq!(
        a.view().reshape(&[-1, 4]).unwrap().shape().to_string(),
        "(6,4)"
    );
    assert_eq!(
        a.view().reshape(&[2, -1]).unwrap().shape().to_string(),
        "(2,12)"
    );
    assert_eq!(
        a.view().reshape(&[2, -1, 2]).unwrap().shape().to_string(),
        "(2,6,2)"
    );
    assert_eq!(
        a.view().flatten(1, 2).unwrap().shape().to_string(),
        "(2,12)"
    );
    assert_eq!(
        a.view().permute(&[1, 2, 0]).unwrap().shape().to_string(),
        "(3,4,2)"
    );
    // the original is unchanged by a reshape
    assert_eq!(a.shape().to_string(), "(2,3,4)");
}

#[test]
fn megengine_expand_dims_examples() {
    let a = Tensor::from_vec(vec![1, 2], &[2]).unwrap();
    let b = a.view().expand_dims(&[0]).unwrap();
    assert_eq!((b.shape().to_string(), b.ndim()), ("(1,2)".to_string(), 2));
    assert_eq!(format!("{b:?}"), "[[1, 2]]");
    let b = a.view().expand_dims(&[1]).unwrap();
    assert_eq!(b.shape().to_string(), "(2,1)");
    assert_eq!(format!("{b:?}"), "[[1],\n [2]]");
    let a = ones(&[2, 3]);
    assert_eq!(
        a.view().expand_dims(&[1]).unwrap().shape().to_string(),
        "(2,1,3)"
    );
    assert_eq!(
        a.view().expand_dims(&[1, 2]).unwrap().shape().to_string(),
        "(2,1,1,3)"
    );
    assert_eq!(
        a.view().expand_dims(&[1, 3]).unwrap().shape().to_string(),
        "(2,1,3,1)"
    );
    // "invalid axis 3 for ndim 3"
    assert_eq!(
        a.view().expand_dims(&[3]).unwrap_err(),
        TensorError::AxisOutOfRange { axis: 3, ndim: 3 }
    );
    // the same as reshape (1, -1)
    let r = Tensor::from_vec(vec![1, 2], &[2]).unwrap();
    assert_eq!(
        r.view().reshape(&[1, -1]).unwrap().shape().to_string(),
        "(1,2)"
    );
}

#[test]
fn megengine_squeeze_examples() {
    let a = Tensor::from_vec(vec![1, 2], &[1, 2]).unwrap();
    let b = a.view().squeeze().unwrap();
    assert_eq!(format!("{b:?}"), "[1, 2]");
    let a = ones(&[1, 2, 1, 3]);
    assert_eq!(
        a.view().squeeze_axes(&[0]).unwrap().shape().to_string(),
        "(2,1,3)"
    );
    assert_eq!(
        a.view().squeeze_axes(&[2]).unwrap().shape().to_string(),
        "(1,2,3)"
    );
    assert_eq!(
        a.view().squeeze_axes(&[0, 2]).unwrap().shape().to_string(),
        "(2,3)"
    );
    // only extent-1 axes can be removed; the error names the axis
    assert_eq!(
        a.view().squeeze_axes(&[0, 1]).unwrap_err(),
        TensorError::SqueezeNotOne { axis: 1, extent: 2 }
    );
    assert_eq!(
        a.view().squeeze_axes(&[4]).unwrap_err().to_string(),
        "axis 4 is out of range for a tensor of 4 axes"
    );
}

#[test]
fn megengine_broadcast_examples() {
    let image = ones(&[256, 256, 3]);
    let scale = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
    let r = image.zip_map(&scale, |a, b| a * b).unwrap();
    assert_eq!(r.shape().to_string(), "(256,256,3)");
    assert_eq!(r[[255, 0, 2]], 3.0);
    let a = ones(&[8, 1, 6, 1]);
    let b = ones(&[7, 1, 5]);
    assert_eq!(
        a.zip_map(&b, |x, y| x * y).unwrap().shape().to_string(),
        "(8,7,6,5)"
    );
    let bad = ones(&[4]);
    assert_eq!(
        ones(&[2, 3])
            .zip_map(&bad, |x, y| x + y)
            .unwrap_err()
            .to_string(),
        "operands could not be broadcast together with shapes (2,3) (4,)"
    );
}

#[test]
fn megengine_concat_stack_split() {
    use layout::tensor::{concat, stack};
    let a = Tensor::from_vec((0..6).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    let b = Tensor::from_vec((6..12).collect::<Vec<i32>>(), &[2, 3]).unwrap();
    let (va, vb) = (a.view().into_dyn().unwrap(), b.view().into_dyn().unwrap());
    assert_eq!(concat(&[va, vb], 0).unwrap().shape().to_string(), "(4,3)");
    assert_eq!(concat(&[va, vb], 1).unwrap().shape().to_string(), "(2,6)");
    assert_eq!(stack(&[va, vb], 0).unwrap().shape().to_string(), "(2,2,3)");
    let c = concat(&[va, vb], 0).unwrap();
    let parts = c.split(0, 2).unwrap();
    assert!(parts[0].iter().eq(a.iter()));
    assert!(parts[1].iter().eq(b.iter()));
}

#[test]
fn pytorch_views_share_storage() {
    // tensor[1, :] and tensor[:, 0] are views; editing the view edits the tensor
    let mut t = Tensor::from_vec(vec![1, 2, 3, 4], &[2, 2]).unwrap();
    {
        let mut row = t.view_mut().index_axis(0, 1).unwrap();
        row[[0]] = 30;
    }
    let col = t.view().index_axis(1, 0).unwrap();
    assert_eq!(col.layout().stride().to_string(), "(2)");
    assert!(col.iter().copied().eq([1, 30]));
}
