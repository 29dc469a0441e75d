//! Broadcasting: the rule, `broadcast_to`, and read-only-ness.

use crate::reference::{Rng, buffer, materialize, random_layout, random_shape};
use layout::tensor::TensorError;
use layout::tensor::{Tensor, broadcast_shapes};
use proptest::prelude::*;

#[test]
fn numpy_broadcast_tables() {
    let b = |a: &[usize], c: &[usize]| broadcast_shapes(a, c).map(|t| t.to_string());
    assert_eq!(b(&[256, 256, 3], &[3]).unwrap(), "(256,256,3)");
    assert_eq!(b(&[8, 1, 6, 1], &[7, 1, 5]).unwrap(), "(8,7,6,5)");
    assert_eq!(b(&[5, 4], &[1]).unwrap(), "(5,4)");
    assert_eq!(b(&[5, 4], &[4]).unwrap(), "(5,4)");
    assert_eq!(b(&[15, 3, 5], &[15, 1, 5]).unwrap(), "(15,3,5)");
    assert_eq!(b(&[15, 3, 5], &[3, 5]).unwrap(), "(15,3,5)");
    assert_eq!(b(&[15, 3, 5], &[3, 1]).unwrap(), "(15,3,5)");
    assert_eq!(b(&[4, 3], &[3]).unwrap(), "(4,3)");
    assert_eq!(b(&[], &[2, 2]).unwrap(), "(2,2)");
    assert_eq!(
        b(&[3], &[4]).unwrap_err().to_string(),
        "operands could not be broadcast together with shapes (3,) (4,)"
    );
    assert_eq!(
        b(&[2, 1], &[8, 4, 3]).unwrap_err().to_string(),
        "operands could not be broadcast together with shapes (2,1) (8,4,3)"
    );
    assert_eq!(
        b(&[2, 3], &[4]).unwrap_err().to_string(),
        "operands could not be broadcast together with shapes (2,3) (4,)"
    );
}

#[test]
fn scalar_and_row_broadcasts() {
    // MegEngine's examples: a scalar stretched to (1,3); a row added to every row
    let two = Tensor::from_vec(vec![2.0], &[]).unwrap();
    assert_eq!(two.ndim(), 0);
    let bb = two.broadcast_to(&[1, 3]).unwrap();
    assert_eq!(format!("{bb:?}"), "[[2.0, 2.0, 2.0]]");
    let a = Tensor::from_vec(
        vec![0., 0., 0., 10., 10., 10., 20., 20., 20., 30., 30., 30.],
        &[4, 3],
    )
    .unwrap();
    let b = Tensor::from_vec(vec![1., 2., 3.], &[3]).unwrap();
    let c = a.zip_map(&b, |x, y| x + y).unwrap();
    assert_eq!(
        format!("{c:?}"),
        "[[ 1.0,  2.0,  3.0],\n [11.0, 12.0, 13.0],\n [21.0, 22.0, 23.0],\n [31.0, 32.0, 33.0]]"
    );
    let e = b.broadcast_to(&[4, 4]).unwrap_err();
    assert_eq!(
        e,
        TensorError::Broadcast {
            a: layout::tensor::Extents::from_slice(&[3]),
            b: layout::tensor::Extents::from_slice(&[4, 4]),
            to: true
        }
    );
    assert_eq!(
        e.to_string(),
        "cannot broadcast a tensor of shape (3,) to shape (4,4)"
    );
    assert!(b.broadcast_to(&[]).is_err()); // fewer axes than the tensor
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(300)))]

    /// `broadcast_shapes` agrees with the element-wise rule, and `broadcast_to` with the
    /// reference broadcast.
    #[test]
    fn broadcast_to_matches_reference(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 3);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let buf = buffer(len);
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        let nd = materialize(&t);
        // a target: stretch some extent-1 axes, prepend some axes, sometimes break it
        let mut target: Vec<i64> = shape.iter().map(|&e| if e == 1 && rng.coin() { rng.range(1, 3) } else { e }).collect();
        for _ in 0..rng.range(0, 2) {
            target.insert(0, rng.range(1, 3));
        }
        let breaks = rng.range(0, 5) == 0;
        if breaks {
            let k = target.len() - 1;
            target[k] += 1;
        }
        let ok = shape.iter().rev().zip(target.iter().rev()).all(|(&e, &t)| e == t || e == 1);
        let target_u = target.iter().map(|&e| e as usize).collect::<Vec<_>>();
        match t.broadcast_to(&target_u) {
            Ok(v) => {
                prop_assert!(ok);
                prop_assert_eq!(materialize(&v), nd.broadcast(&target));
                let s = broadcast_shapes(&shape.iter().map(|&e| e as usize).collect::<Vec<_>>(), &target_u).unwrap();
                prop_assert_eq!(s.leaves(), &target[..]);
            }
            Err(e) => {
                prop_assert!(!ok);
                let shown = e.to_string();
                prop_assert!(shown.starts_with("cannot broadcast a tensor of shape"), "{}", shown);
            }
        }
    }
}
