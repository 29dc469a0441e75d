//! The README tour of tensors, kept compiling and correct.

#[test]
fn readme_tour() -> Result<(), layout::tensor::TensorError> {
    use layout::DynLayout;
    use layout::tensor::s;
    use layout::tensor::{Slice, Tensor};

    // an owned row-major (NumPy order) 4 x 6 tensor
    let mut a = Tensor::from_vec((0..24).collect::<Vec<i32>>(), &[4, 6])?;
    assert_eq!(a.layout().to_string(), "(4,6):(6,1)");

    // views share storage: every other column, reversed rows, a new axis
    let v = a.view().slice(&s![..;-1, 0..6;2, Slice::NewAxis])?;
    assert_eq!(v.layout().to_string(), "(4,3,1):(-6,2,0)");
    assert_eq!(v[[0, 1, 0]], 20);

    // reshape is a view exactly when NumPy/PyTorch can make one, else an error says why
    assert!(a.view().reshape(&[2, -1, 3]).is_ok());
    assert!(a.view().t()?.reshape(&[24]).is_err());
    let flat = a.view().t()?.reshape_copy(&[24])?; // the copying reshape
    assert_eq!(flat[[1]], 6);

    // broadcasting: read-only stride-0 views and element-wise ops over any layouts
    let row = Tensor::from_vec(vec![100, 200, 300, 400, 500, 600], &[6])?;
    let sum = a.zip_map(&row, |x, y| x + y)?;
    assert_eq!(sum[[3, 5]], 623);
    a.zip_map_inplace(&row.broadcast_to(&[4, 6])?, |x, y| *x += y)?;

    // copy into any layout, e.g. the NZ fractal layout of Ascend (fp16, 32 x 32)
    let nd = Tensor::from_fn(&[32, 32], |i| i as u16)?;
    let nz: DynLayout = "((16,2),(16,2)):((16,256),(1,512))".parse()?;
    let mut t = Tensor::new(vec![0u16; 1024], nz)?;
    t.copy_from(&nd)?;
    assert_eq!(t.as_slice()[16], 32);

    // NumPy-style printing
    let small = Tensor::from_vec(vec![1.5, -2.0, 3.25, 0.0], &[2, 2])?;
    assert_eq!(format!("{small:?}"), "[[ 1.5, -2.0],\n [3.25,  0.0]]");
    assert_eq!(format!("{small}"), "[[ 1.5   -2]\n [3.25    0]]");

    // the habits of ndarray: usize extents and indices, reductions, indexed and per-axis iteration
    let (m, n) = (3usize, 4usize);
    let b = Tensor::from_vec((0..m * n).map(|x| x as f64).collect(), &[m, n])?;
    assert_eq!(
        (b[[m - 1, n - 1]], b.sum(), b.max(), b.mean()),
        (11.0, 66.0, Some(11.0), 5.5)
    );
    let row_sums: Vec<f64> = b.axis_iter(0)?.map(|r| r.sum()).collect();
    assert_eq!(row_sums, [6.0, 22.0, 38.0]);
    for (i, &x) in b.indexed_iter() {
        assert_eq!(x, (i[0] * n + i[1]) as f64);
    }
    assert_eq!(
        b.to_string(),
        "[[ 0  1  2  3]\n [ 4  5  6  7]\n [ 8  9 10 11]]"
    );
    Ok(())
}
