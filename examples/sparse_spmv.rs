//! Building a sparse matrix and multiplying it by a vector (SpMV): the 1-D finite-element
//! stiffness matrix, assembled from one 2 × 2 element matrix per edge. Assembly repeats
//! coordinates (each inner node belongs to two edges), and `Coo::from_triplets` sums them, as
//! scipy and sprs do.
//!
//! ```sh
//! cargo run --release --example sparse_spmv
//! ```

use layout::gemm::gemm;
use layout::sparse::{Coo, Csr};
use layout::tensor::Tensor;
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    let n = 100usize;
    // element matrix of edge (e, e+1): [[1, -1], [-1, 1]]
    let mut triplets = Vec::new();
    for e in 0..n - 1 {
        for (i, j, v) in [(0, 0, 1.0), (0, 1, -1.0), (1, 0, -1.0), (1, 1, 1.0)] {
            triplets.push((e + i, e + j, v));
        }
    }
    println!("{} triplets assembled for a {n}x{n} matrix", triplets.len());
    let coo = Coo::from_triplets(n, n, triplets.clone())?;
    assert!(Coo::from_triplets_unique(n, n, triplets).is_err()); // the repeats are there
    let a: Csr<f64> = coo.to_csr()?;
    println!(
        "CSR: {} stored entries (tridiagonal: {})",
        a.nnz(),
        3 * n - 2
    );
    assert_eq!(a.nnz(), 3 * n - 2);
    assert_eq!(a.get(5, 5), Some(&2.0)); // an inner node: summed from two edges
    assert_eq!(a.get(0, 0), Some(&1.0)); // a boundary node: one edge

    // SpMV: y = A·x; for x = i² the inner rows give -(x[i-1] - 2x[i] + x[i+1]) = -2
    let x: Vec<f64> = (0..n).map(|i| (i * i) as f64).collect();
    let y = a.mul_vec(&x)?;
    assert!(y[1..n - 1].iter().all(|&v| v == -2.0));

    // the same product with the dense matrix, as a GEMM with one column
    let dense = a.to_tensor()?;
    let xt = Tensor::from_vec(x.clone(), &[n, 1])?;
    let mut yt = Tensor::from_vec(vec![0f64; n], &[n, 1])?;
    gemm(1.0, &dense, &xt, 0.0, &mut yt)?;
    assert!(yt.iter().eq(y.iter()));
    println!(
        "y = A·x: y[0] = {}, y[1..{}] = -2, y[{}] = {}; equal to the dense GEMM",
        y[0],
        n - 1,
        n - 1,
        y[n - 1]
    );
    // every column of the stiffness matrix sums to 0, so the entries of A·x do too
    assert_eq!(yt.sum(), 0.0);
    println!("sum of y = {} (every column of A sums to 0)", yt.sum());
    Ok(())
}
