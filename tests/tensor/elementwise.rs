//! Element-wise operations: results independent of the operands' layouts.

use crate::reference::{Rng, buffer, materialize, random_layout, random_shape};
use layout::tensor::Tensor;
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(300)))]

    /// `zip_map` over two random layouts with broadcasting equals the reference computed on
    /// contiguous copies; the in-place forms agree.
    #[test]
    fn zip_map_ignores_layouts(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 4);
        // b: a suffix of the shape with some axes set to 1
        let cut = rng.range(0, shape.len() as i64 - 1) as usize;
        let bshape: Vec<i64> = shape[cut..].iter().map(|&e| if rng.coin() { 1 } else { e }).collect();
        let (la, ba, na) = random_layout(&mut rng, &shape);
        let (lb, bb, nb) = random_layout(&mut rng, &bshape);
        let (xa, xb) = (buffer(na), buffer(nb));
        let a = Tensor::with_offset(&xa[..], la, ba).unwrap();
        let b = Tensor::with_offset(&xb[..], lb, bb).unwrap();
        let (ra, rb) = (materialize(&a), materialize(&b).broadcast(&shape));
        let want: Vec<i64> = ra.data.iter().zip(&rb.data).map(|(&x, &y)| x as i64 * 1000 + y as i64).collect();
        let got = a.zip_map(&b, |&x, &y| x as i64 * 1000 + y as i64).unwrap();
        prop_assert_eq!(&materialize(&got).data, &want);
        prop_assert_eq!(&materialize(&got).shape, &shape);
        // operands swapped: broadcasting is symmetric
        let got2 = b.zip_map(&a, |&y, &x| x as i64 * 1000 + y as i64).unwrap();
        prop_assert_eq!(&materialize(&got2).data, &want);
        // in place, on a copy of `a` in its own layout
        let mut xa2 = xa.iter().map(|&x| x as i64).collect::<Vec<_>>();
        let mut a2 = Tensor::with_offset(&mut xa2[..], la, ba).unwrap();
        a2.zip_map_inplace(&b, |x, &y| *x = *x * 1000 + y as i64).unwrap();
        prop_assert_eq!(&materialize(&a2).data, &want);
        // map and map_inplace
        let m = a.map(|&x| x * 2);
        prop_assert_eq!(materialize(&m).data, ra.data.iter().map(|x| x * 2).collect::<Vec<_>>());
        a2.map_inplace(|x| *x += 1);
        prop_assert_eq!(materialize(&a2).data, want.iter().map(|x| x + 1).collect::<Vec<_>>());
    }
}

#[test]
fn zip_map_inplace_refuses_growing_the_target() {
    let mut a = Tensor::from_vec(vec![0; 3], &[3]).unwrap();
    let b = Tensor::from_vec(vec![0; 6], &[2, 3]).unwrap();
    assert_eq!(
        a.zip_map_inplace(&b, |x, y| *x += y)
            .unwrap_err()
            .to_string(),
        "cannot broadcast a tensor of shape (2,3) to shape (3,)"
    );
}
