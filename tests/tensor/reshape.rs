//! `reshape` / `flatten`: the no-copy rule against a brute-force oracle, and the golden table.

use crate::reference::{Rng, buffer, coords, materialize, offsets, random_layout, random_shape};
use layout::tensor::Tensor;
use layout::tensor::TensorError;
use layout::{DynLayout, LayoutError};
use proptest::prelude::*;

/// Does some strided layout of `new` reproduce `offs` (row-major offsets of the old view)?
fn view_exists(offs: &[i64], new: &[i64]) -> bool {
    let cs = coords(new);
    let r = new.len();
    let mut st = vec![0i64; r];
    for k in 0..r {
        if new[k] > 1 {
            let mut unit = vec![0; r];
            unit[k] = 1;
            let i = cs.iter().position(|c| *c == unit).unwrap();
            st[k] = offs[i] - offs[0];
        }
    }
    cs.iter()
        .enumerate()
        .all(|(i, c)| offs[i] == offs[0] + c.iter().zip(&st).map(|(a, b)| a * b).sum::<i64>())
}

/// Every factorisation of `n` into `r` extents (small n).
fn factorisations(n: i64, r: usize) -> Vec<Vec<i64>> {
    if r == 1 {
        return vec![vec![n]];
    }
    (1..=n)
        .filter(|d| n % d == 0)
        .flat_map(|d| {
            factorisations(n / d, r - 1).into_iter().map(move |mut v| {
                v.insert(0, d);
                v
            })
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(crate::cases::cases(300)))]

    /// `reshape` is a view exactly when some strided view exists, and then has the same
    /// elements in row-major order.
    #[test]
    fn reshape_is_a_view_exactly_when_possible(seed in any::<u64>()) {
        let mut rng = Rng(seed);
        let shape = random_shape(&mut rng, 3);
        let (l, base, len) = random_layout(&mut rng, &shape);
        let buf = buffer(len);
        let t = Tensor::with_offset(&buf[..], l, base).unwrap();
        let nd = materialize(&t);
        let offs = offsets(&l);
        let n = l.size();
        for r in 1..=3 {
            for new in factorisations(n, r) {
                let got = t.reshape(&new);
                prop_assert_eq!(got.is_ok(), view_exists(&offs, &new), "{} -> {:?}", l, new);
                match got {
                    Ok(v) => {
                        let m = materialize(&v);
                        prop_assert_eq!(&m.data, &nd.data);
                        prop_assert_eq!(&m.shape, &new);
                    }
                    Err(e) => prop_assert!(matches!(e, TensorError::ReshapeNeedsCopy { .. }), "{}", e),
                }
                // the copying reshape always works and agrees
                let c = t.reshape_copy(&new).unwrap();
                prop_assert_eq!(materialize(&c).data, nd.data.clone());
            }
        }
    }
}

fn strides_after(old: &str, new: &[i64]) -> Option<String> {
    let l: DynLayout = old.parse().unwrap();
    let (lo, hi) = l.offset_range();
    let buf = vec![0u8; (hi - lo + 1) as usize];
    let t = Tensor::with_offset(&buf[..], l, (-lo) as usize).unwrap();
    t.reshape(new).ok().map(|v| v.layout().stride().to_string())
}

/// The verified cases of PyTorch's classic rule (layouts-beyond-cute.md §3.1).
#[test]
fn pytorch_golden_table() {
    // (2,3,4):(24,4,1), from slicing (2,6,4)
    assert_eq!(
        strides_after("(2,3,4):(24,4,1)", &[2, 12]).as_deref(),
        Some("(24,1)")
    );
    assert_eq!(strides_after("(2,3,4):(24,4,1)", &[6, 4]), None);
    assert_eq!(strides_after("(4,3):(1,4)", &[12]), None);
    assert_eq!(
        strides_after("(4,3):(1,4)", &[2, 2, 3]).as_deref(),
        Some("(2,1,4)")
    );
    assert_eq!(
        strides_after("(10,1,100):(1,1,10)", &[10, 100]).as_deref(),
        Some("(1,10)")
    );
    assert_eq!(strides_after("(3,4):(0,1)", &[12]), None);
    assert_eq!(
        strides_after("(3,4):(0,1)", &[3, 2, 2]).as_deref(),
        Some("(0,2,1)")
    );
    // negative strides (NumPy allows them): a reversed contiguous vector reshapes
    assert_eq!(
        strides_after("(6):(-1)", &[2, 3]).as_deref(),
        Some("(-3,-1)")
    );
}

#[test]
fn reshape_errors_say_why() {
    let t = Tensor::from_vec((0..24).collect::<Vec<i32>>(), &[2, 3, 4]).unwrap();
    assert_eq!(
        t.view().reshape(&[-1, -1]).unwrap_err().to_string(),
        "reshape: only one extent may be -1 (unknown); positions 0 and 1 both are"
    );
    assert_eq!(
        t.view().reshape(&[7, -1]).unwrap_err().to_string(),
        "reshape: cannot reshape a tensor of shape (2,3,4) (24 elements) into shape (7,-1)"
    );
    assert_eq!(
        t.view().reshape(&[5, 5]).unwrap_err().to_string(),
        "reshape: cannot reshape a tensor of shape (2,3,4) (24 elements) into shape (5,5)"
    );
    assert_eq!(
        t.view().reshape(&[0, 24]).unwrap_err(),
        TensorError::Layout(LayoutError::NonPositiveExtent { leaf: 0, extent: 0 })
    );
    let tt = t.view().permute(&[2, 0, 1]).unwrap(); // (4,2,3):(1,12,4)
    assert_eq!(
        tt.reshape(&[4, 6]).unwrap().layout().to_string(),
        "(4,6):(1,4)"
    );
    assert_eq!(
        tt.reshape(&[8, 3]).unwrap_err().to_string(),
        "reshape: cannot reshape into shape (8,3) without a copy: axis 0 has stride 1 but a view needs 24 to merge it with axis 1; use reshape_copy"
    );
    let c = tt.reshape_copy(&[8, 3]).unwrap();
    assert!(c.iter().copied().eq(tt.iter().copied()));
}

#[test]
fn flatten_ranges() {
    let t = Tensor::from_vec(vec![0u8; 24], &[2, 3, 4]).unwrap();
    assert_eq!(
        t.view().flatten(1, 2).unwrap().shape().to_string(),
        "(2,12)"
    );
    assert_eq!(t.view().flatten(0, 1).unwrap().shape().to_string(), "(6,4)");
    assert_eq!(
        t.view().flatten(1, 1).unwrap().shape().to_string(),
        "(2,3,4)"
    );
    assert!(t.view().flatten(2, 1).is_err());
    assert!(t.view().flatten(0, 3).is_err());
    let tt = t.view().transpose(0, 2).unwrap();
    assert!(matches!(
        tt.flatten(0, 1),
        Err(TensorError::ReshapeNeedsCopy { .. })
    ));
}
