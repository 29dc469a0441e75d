//! Invariant checks of the sparse constructors: every broken rule is an error naming it.

use super::*;
use alloc::string::ToString;
use alloc::vec;

fn csr(
    nrows: usize,
    ncols: usize,
    indptr: Vec<usize>,
    indices: Vec<usize>,
) -> Result<Csr<i32>, SparseError> {
    let n = indices.len();
    Csr::try_new(nrows, ncols, indptr, indices, vec![1; n])
}

#[test]
fn csr_rules() {
    let msg = |r: Result<Csr<i32>, SparseError>| r.unwrap_err().to_string();
    assert_eq!(
        msg(csr(2, 3, vec![0, 1], vec![0])),
        "csr from parts: indptr has length 2, expected 3"
    );
    assert_eq!(
        msg(Csr::try_new(1, 3, vec![0, 1], vec![0], vec![1, 2])),
        "csr from parts: values has length 2, expected 1"
    );
    assert_eq!(
        msg(csr(2, 3, vec![1, 1, 1], vec![0])),
        "csr from parts: offsets must start at 0, indptr[0] = 1"
    );
    assert_eq!(
        msg(csr(2, 3, vec![0, 2, 1], vec![0, 1])),
        "csr from parts: offsets must not decrease, indptr[2] = 1 follows 2"
    );
    assert_eq!(
        msg(csr(2, 3, vec![0, 1, 1], vec![0, 1])),
        "csr from parts: the last offset must equal the number of entries 2, it is 1"
    );
    assert_eq!(
        msg(csr(2, 3, vec![0, 1, 2], vec![0, 3])),
        "csr from parts: column index 3 at position 1 is out of range for extent 3"
    );
    assert_eq!(
        msg(csr(2, 3, vec![0, 0, 2], vec![2, 1])),
        "csr from parts: column indices of row 1 must strictly increase, position 1 has 1 \
         after 2"
    );
    // a huge row count is an error, not an overflow or allocation panic
    assert!(matches!(
        csr(usize::MAX, 1, vec![0], vec![]),
        Err(SparseError::Overflow { .. })
    ));
    assert!(matches!(
        Csr::<i32>::from_dense(usize::MAX, 0, &[]),
        Err(SparseError::Overflow { .. })
    ));
    assert!(matches!(
        Csr::<i32>::from_dense(usize::MAX - 1, 0, &[]),
        Err(SparseError::Allocation { .. })
    ));
    // the same index in different rows is fine
    assert!(csr(2, 3, vec![0, 1, 2], vec![1, 1]).is_ok());
}

#[test]
fn csc_and_coo_rules() {
    assert_eq!(
        Csc::try_new(3, 2, vec![0, 2, 2], vec![2, 0], vec![1, 1])
            .unwrap_err()
            .to_string(),
        "csc from parts: row indices of column 0 must strictly increase, position 1 has 0 \
         after 2"
    );
    assert_eq!(
        Coo::try_new(2, 2, vec![0, 2], vec![0, 0], vec![1, 1])
            .unwrap_err()
            .to_string(),
        "coo from parts: row index 2 at position 1 is out of range for extent 2"
    );
    assert_eq!(
        Coo::try_new(2, 2, vec![0, 0], vec![1], vec![1, 1])
            .unwrap_err()
            .to_string(),
        "coo from parts: column indices has length 1, expected 2"
    );
    assert_eq!(
        Coo::from_triplets_unique(2, 2, vec![(1, 0, 1), (0, 0, 5), (1, 0, 2)])
            .unwrap_err()
            .to_string(),
        "coo from unique triplets: triplets 0 and 2 are both at (1,0)"
    );
    let big = Coo::<i32>::try_new(usize::MAX - 1, 3, vec![], vec![], vec![]).unwrap();
    assert!(matches!(big.to_dense(), Err(SparseError::Overflow { .. })));
    assert!(matches!(big.to_csr(), Err(SparseError::Allocation { .. })));
    assert!(matches!(
        big.mul_vec(&[0, 0, 0]),
        Err(SparseError::Allocation { .. })
    ));
}

#[test]
fn empty_extents() {
    let a = Csr::<i32>::from_dense(0, 3, &[]).unwrap();
    assert_eq!(a.indptr(), &[0]);
    assert_eq!(a.mul_vec(&[1, 2, 3]).unwrap(), Vec::<i32>::new());
    let b = Csc::<i32>::from_dense(2, 0, &[]).unwrap();
    assert_eq!(b.mul_vec(&[]).unwrap(), vec![0, 0]);
    assert!(matches!(b.to_tensor(), Err(SparseError::Tensor(_))));
}
