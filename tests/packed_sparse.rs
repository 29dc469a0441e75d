//! Property tests of `layout::packed` and `layout::sparse` against naive references: dense
//! matrices for the sparse formats, plain value arrays and hand-written bit arithmetic for the
//! packed formats.

#[path = "support/cases.rs"]
mod cases;
use layout::packed::{PackOrder, PackedFormat, PackedVec, repack_map};
use layout::sparse::{Coo, Csc, Csr, SparseError};
use layout::tensor::Tensor;
use proptest::prelude::*;

/// A small dense matrix, mostly zeros: (rows, cols, row-major data).
fn dense() -> impl Strategy<Value = (usize, usize, Vec<i64>)> {
    (0usize..7, 0usize..7).prop_flat_map(|(r, c)| {
        let cell = prop_oneof![3 => Just(0i64), 2 => -9i64..10];
        (Just(r), Just(c), proptest::collection::vec(cell, r * c))
    })
}

fn dense_matvec(r: usize, c: usize, d: &[i64], x: &[i64]) -> Vec<i64> {
    (0..r)
        .map(|i| (0..c).map(|j| d[i * c + j] * x[j]).sum())
        .collect()
}

fn formats() -> impl Strategy<Value = PackedFormat> {
    prop_oneof![
        Just(PackedFormat::gptq()),
        Just(PackedFormat::awq()),
        Just(PackedFormat::q4_0()),
        Just(PackedFormat::fp4x2()),
        Just(PackedFormat::new(4, 8, PackOrder::Halves { block: 8 }).unwrap()),
        (
            prop_oneof![Just(1u32), Just(2), Just(4)],
            prop_oneof![Just(8u32), Just(32)]
        )
            .prop_map(|(b, w)| PackedFormat::sequential(b, w).unwrap()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(128)))]

    #[test]
    fn sparse_formats_agree_with_dense((r, c, d) in dense(), xs in proptest::collection::vec(-5i64..6, 7)) {
        let coo = Coo::from_dense(r, c, &d).unwrap();
        let csr = Csr::from_dense(r, c, &d).unwrap();
        let csc = Csc::from_dense(r, c, &d).unwrap();
        prop_assert_eq!(coo.to_dense().unwrap(), d.clone());
        prop_assert_eq!(csr.to_dense().unwrap(), d.clone());
        prop_assert_eq!(csc.to_dense().unwrap(), d.clone());
        let nnz = d.iter().filter(|&&v| v != 0).count();
        prop_assert_eq!((coo.nnz(), csr.nnz(), csc.nnz()), (nnz, nnz, nnz));
        // lookup: a partial map whose domain is exactly the non-zeros, over and past the shape
        for i in 0..r + 2 {
            for j in 0..c + 2 {
                let want = (i < r && j < c && d[i * c + j] != 0).then(|| d[i * c + j]);
                prop_assert_eq!(coo.get(i, j).copied(), want);
                prop_assert_eq!(csr.get(i, j).copied(), want);
                prop_assert_eq!(csc.get(i, j).copied(), want);
                if let Some(k) = csr.position(i, j) {
                    prop_assert_eq!(csr.indices()[k], j);
                    prop_assert!(csr.indptr()[i] <= k && k < csr.indptr()[i + 1]);
                }
                if let Some(k) = csc.position(i, j) {
                    prop_assert_eq!(csc.indices()[k], i);
                    prop_assert!(csc.indptr()[j] <= k && k < csc.indptr()[j + 1]);
                }
                if let Some(k) = coo.position(i, j) {
                    prop_assert_eq!((coo.rows()[k], coo.cols()[k]), (i, j));
                }
            }
        }
        // SpMV
        let x = &xs[..c];
        let y = dense_matvec(r, c, &d, x);
        prop_assert_eq!(coo.mul_vec(x).unwrap(), y.clone());
        prop_assert_eq!(csr.mul_vec(x).unwrap(), y.clone());
        prop_assert_eq!(csc.mul_vec(x).unwrap(), y);
        // conversions
        prop_assert_eq!(&coo.to_csr().unwrap(), &csr);
        prop_assert_eq!(&coo.to_csc().unwrap(), &csc);
        prop_assert_eq!(&csr.to_csc().unwrap(), &csc);
        prop_assert_eq!(&csc.to_csr().unwrap(), &csr);
        prop_assert_eq!(&csr.to_coo(), &coo);
        prop_assert_eq!(&csc.to_coo().unwrap(), &coo);
        // raw parts of a valid matrix are accepted and give it back
        let again = Csr::try_new(r, c, csr.indptr().to_vec(), csr.indices().to_vec(), csr.values().to_vec()).unwrap();
        prop_assert_eq!(&again, &csr);
        let again = Csc::try_new(r, c, csc.indptr().to_vec(), csc.indices().to_vec(), csc.values().to_vec()).unwrap();
        prop_assert_eq!(&again, &csc);
        let again = Coo::try_new(r, c, coo.rows().to_vec(), coo.cols().to_vec(), coo.values().to_vec()).unwrap();
        prop_assert_eq!(&again, &coo);
        // unsorted triplets
        let mut t: Vec<(usize, usize, i64)> = coo.rows().iter().zip(coo.cols()).zip(coo.values()).map(|((&a, &b), &v)| (a, b, v)).collect();
        t.reverse();
        prop_assert_eq!(&Coo::from_triplets(r, c, t).unwrap(), &coo);
        // wrong x length
        let wrong = matches!(csr.mul_vec(&xs[..c + 1]), Err(SparseError::LengthMismatch { .. }));
        prop_assert!(wrong, "x of length c + 1 must be refused");
    }

    #[test]
    fn sparse_from_tensor_views((r, c, d) in dense()) {
        prop_assume!(r > 0 && c > 0);
        let t = Tensor::from_vec(d.clone(), &[r, c]).unwrap();
        let csr = Csr::from_tensor(&t).unwrap();
        prop_assert_eq!(csr.to_dense().unwrap(), d.clone());
        let back = csr.to_tensor().unwrap();
        prop_assert_eq!(back.as_slice(), &d[..]);
        // a transposed view: the CSR of the transpose is the CSC of the original, reinterpreted
        let tt = t.view().permute(&[1, 0]).unwrap();
        let csr_t = Csr::from_tensor(&tt).unwrap();
        let csc = Csc::from_dense(r, c, &d).unwrap();
        prop_assert_eq!(csr_t.indptr(), csc.indptr());
        prop_assert_eq!(csr_t.indices(), csc.indices());
        prop_assert_eq!(csr_t.values(), csc.values());
    }

    /// Arbitrary raw arrays never panic; when accepted they satisfy the invariants, checked
    /// here by a naive reading.
    #[test]
    fn csr_try_new_never_panics(
        r in 0usize..5, c in 0usize..5,
        indptr in proptest::collection::vec(0usize..6, 0..7),
        indices in proptest::collection::vec(0usize..6, 0..6),
    ) {
        let n = indices.len();
        if let Ok(a) = Csr::try_new(r, c, indptr.clone(), indices.clone(), vec![1i64; n]) {
            prop_assert_eq!(indptr.len(), r + 1);
            prop_assert_eq!(indptr[0], 0);
            prop_assert_eq!(indptr[r], n);
            for i in 0..r {
                let row = &indices[indptr[i]..indptr[i + 1]];
                prop_assert!(row.windows(2).all(|w| w[0] < w[1]));
                prop_assert!(row.iter().all(|&j| j < c));
            }
            prop_assert_eq!(a.to_dense().unwrap().iter().sum::<i64>(), n as i64);
        }
        let rows: Vec<usize> = indptr.iter().copied().take(n).collect();
        let m = rows.len();
        if let Ok(a) = Coo::try_new(r, c, rows.clone(), indices[..m].to_vec(), vec![1i64; m]) {
            for k in 1..m {
                prop_assert!((rows[k - 1], indices[k - 1]) < (rows[k], indices[k]));
            }
            prop_assert_eq!(a.to_dense().unwrap().iter().sum::<i64>(), m as i64);
        }
    }

    /// Packed get/set against a plain array, and repacking between any two formats of one
    /// width against element-by-element reads.
    #[test]
    fn packed_against_plain_values(
        a in formats(), b in formats(),
        vals in proptest::collection::vec(0u8..16, 1..80),
        writes in proptest::collection::vec((0usize..80, 0u8..20), 0..40),
    ) {
        let vals: Vec<u8> = vals.iter().map(|v| v % (1 << a.bits())).collect();
        let mut p = PackedVec::from_values(a, &vals).unwrap();
        let mut plain = vals.clone();
        for (i, v) in writes {
            let r = p.set(i, v);
            if i < plain.len() && v <= a.max_value() {
                prop_assert!(r.is_ok());
                plain[i] = v;
            } else {
                prop_assert!(r.is_err());
            }
        }
        prop_assert_eq!(p.to_values(), plain.clone());
        for (i, &v) in plain.iter().enumerate() {
            // independent read: shift the byte by the bit offset
            let bit = a.bit_offset(i);
            prop_assert_eq!((p.as_bytes()[bit / 8] >> (bit % 8)) & a.max_value(), v);
        }
        if a.bits() == b.bits() {
            let q = p.repack(b).unwrap();
            prop_assert_eq!(q.to_values(), plain.clone());
            let back = q.repack(a).unwrap();
            prop_assert_eq!(back.to_values(), plain.clone());
            if let Some(m) = repack_map(a, b, plain.len()).unwrap() {
                prop_assert_eq!(m.size() as usize, a.padded_len(plain.len()).unwrap());
            }
        } else {
            prop_assert!(p.repack(b).is_err());
        }
    }
}

/// The README's packed/sparse tour, kept compiling and true.
#[test]
fn readme_packed_sparse_tour() -> Result<(), Box<dyn std::error::Error>> {
    use layout::packed::{GroupQuant, dequantize};
    let q: Vec<u8> = (0..8).collect();
    let awq = PackedVec::from_values(PackedFormat::awq(), &q)?;
    assert_eq!(awq.to_words()?, [0x7531_6420]);
    assert_eq!(
        PackedFormat::awq().bit_layout(8)?.to_string(),
        "(2,4,1):(16,4,32)"
    );
    assert_eq!(awq.repack(PackedFormat::gptq())?.to_words()?, [0x7654_3210]);
    let g = GroupQuant::awq(1, 8, 1)?;
    assert_eq!(g.meta_layout().to_string(), "((1,1),8):((0,8),1)");
    let zeros = PackedVec::from_values(PackedFormat::awq(), &[4; 8])?;
    assert_eq!(dequantize(&awq, &[0.5; 8], &zeros, &g)?[7], 1.5);

    let a = Csr::from_dense(2, 3, &[1, 0, 2, 0, 0, 3])?;
    assert_eq!((a.indptr(), a.indices()), (&[0, 2, 3][..], &[0, 2, 2][..]));
    assert_eq!(a.position(1, 2), Some(2));
    assert_eq!(a.mul_vec(&[1, 1, 1])?, [3, 3]);
    assert!(Csr::try_new(2, 3, vec![0, 2, 1], vec![0, 2], vec![1, 2]).is_err());
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases::cases(300)))]

    /// `from_triplets` sums repeated coordinates (scipy's `sum_duplicates`), checked against a
    /// dense accumulation; `from_triplets_unique` refuses exactly the inputs with a repeat and
    /// names the input positions of the first two triplets at the smallest repeated coordinate.
    #[test]
    fn triplets_sum_duplicates_or_name_them(
        (r, c) in (1usize..5, 1usize..5),
        raw in proptest::collection::vec((0usize..6, 0usize..6, -9i64..9), 0..14),
    ) {
        let t: Vec<(usize, usize, i64)> = raw.iter().map(|&(i, j, v)| (i % r, j % c, v)).collect();
        let mut dense = vec![0i64; r * c];
        for &(i, j, v) in &t {
            dense[i * c + j] += v;
        }
        let coo = Coo::from_triplets(r, c, t.clone()).unwrap();
        prop_assert_eq!(coo.to_dense().unwrap(), dense);
        // one entry per distinct coordinate, even where the sum is zero
        let mut keys: Vec<(usize, usize)> = t.iter().map(|&(i, j, _)| (i, j)).collect();
        keys.sort_unstable();
        keys.dedup();
        prop_assert_eq!(coo.nnz(), keys.len());
        let first_dup = keys.iter().find_map(|&k| {
            let pos: Vec<usize> = t.iter().enumerate().filter(|(_, x)| (x.0, x.1) == k).map(|(p, _)| p).collect();
            (pos.len() > 1).then(|| (pos[0], pos[1], k))
        });
        match (Coo::from_triplets_unique(r, c, t.clone()), first_dup) {
            (Ok(u), None) => prop_assert_eq!(u, coo),
            (Err(SparseError::DuplicateEntry { first, second, row, col, .. }), Some((p, q, k))) => {
                prop_assert_eq!((first, second, (row, col)), (p, q, k));
            }
            (got, want) => prop_assert!(false, "{:?} vs {:?}", got, want),
        }
        // an index out of range is reported at its input position
        if !t.is_empty() {
            let mut bad = t.clone();
            let p = t.len() / 2;
            bad[p].1 = c;
            let e = Coo::from_triplets(r, c, bad).unwrap_err();
            let first_bad = t.iter().position(|x| x.0 >= r).map_or(p, |q| q.min(p));
            prop_assert!(matches!(e, SparseError::IndexOutOfRange { at, .. } if at == first_bad), "{}", e);
        }
    }
}
