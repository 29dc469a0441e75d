//! `Debug` prints values as NumPy does.

use layout::DynLayout;
use layout::tensor::Tensor;
use layout::tensor::s;

#[test]
fn nested_arrays() {
    let t = Tensor::from_vec((0..10).collect::<Vec<i32>>(), &[2, 5]).unwrap();
    assert_eq!(format!("{t:?}"), "[[0, 1, 2, 3, 4],\n [5, 6, 7, 8, 9]]");
    let t = Tensor::from_vec((0..12).collect::<Vec<i32>>(), &[2, 3, 2]).unwrap();
    assert_eq!(
        format!("{t:?}"),
        "[[[ 0,  1],\n  [ 2,  3],\n  [ 4,  5]],\n\n [[ 6,  7],\n  [ 8,  9],\n  [10, 11]]]"
    );
    let v = Tensor::from_vec(vec![1.5f32, -2.0, 3.25], &[3]).unwrap();
    assert_eq!(format!("{v:?}"), "[ 1.5, -2.0, 3.25]");
    let scalar = Tensor::from_vec(vec![7u8], &[]).unwrap();
    assert_eq!(format!("{scalar:?}"), "7");
}

#[test]
fn prints_any_layout_in_logical_order() {
    let buf: Vec<i32> = (0..8).collect();
    let nested: DynLayout = "((2,2),2):((1,4),2)".parse().unwrap(); // axis 0 hierarchical
    let t = Tensor::new(&buf[..], nested).unwrap();
    assert_eq!(format!("{t:?}"), "[[0, 2],\n [1, 3],\n [4, 6],\n [5, 7]]");
    let r = t.slice(&s![..;-1]).unwrap_err(); // not one stride
    assert_eq!(
        r.to_string(),
        "axis 0 is a hierarchical mode that is not one stride; this operation needs a strided axis"
    );
}

#[test]
fn large_tensors_are_summarised() {
    let t = Tensor::from_fn(&[10000], |i| i as i32).unwrap();
    assert_eq!(
        format!("{t:?}"),
        "[   0,    1,    2, ..., 9997, 9998, 9999]"
    );
    let t = Tensor::from_fn(&[100, 100], |i| i as i32).unwrap();
    assert_eq!(
        format!("{t:?}"),
        "[[   0,    1,    2, ...,   97,   98,   99],\n [ 100,  101,  102, ...,  197,  198,  199],\n [ 200,  201,  202, ...,  297,  298,  299],\n ...,\n [9700, 9701, 9702, ..., 9797, 9798, 9799],\n [9800, 9801, 9802, ..., 9897, 9898, 9899],\n [9900, 9901, 9902, ..., 9997, 9998, 9999]]"
    );
    // at the threshold nothing is elided
    let t = Tensor::from_fn(&[1000], |i| i as i32).unwrap();
    assert!(!format!("{t:?}").contains("..."));
}
