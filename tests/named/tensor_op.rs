//! CUTLASS's `TensorOpMultiplicand` as a swizzled layout, against CUTLASS's offset function
//! written out step by step (tiles, partitions, two XORs).

use layout::named::tensor_op::{row_major_tensor_op_multiplicand, tensor_op_multiplicand};
use layout::{AnyLayout, DynTuple};
use std::collections::HashSet;

/// `TensorOpMultiplicand<bits, crosswise>::operator()` at pitch-linear `(cont, strd)`.
fn cutlass(bits: i64, crosswise: i64, ld: i64, cont: i64, strd: i64) -> i64 {
    let elems_per_access = 128 / bits;
    let tile_c_shape = 8; // 128-byte line / 16-byte access
    let k_factor = tile_c_shape * elems_per_access / crosswise;
    let tile_s_shape = std::cmp::max(tile_c_shape / k_factor, 32 / tile_c_shape);
    let (part_c_shape, part_s_shape) = (4, 4);

    let vec_contiguous_idx = cont / elems_per_access;
    let vec_strided_idx = strd / k_factor;
    let tile_contiguous_idx = vec_contiguous_idx / (tile_c_shape / k_factor);
    let tile_contiguous_residual = vec_contiguous_idx % (tile_c_shape / k_factor)
        + (strd % k_factor) * (tile_c_shape / k_factor);
    let tile_strided_residual = vec_strided_idx % tile_s_shape;
    let partition_contiguous_idx = tile_contiguous_residual / part_c_shape;
    let partition_strided_idx = tile_strided_residual / part_s_shape;
    let partition_contiguous_residual = tile_contiguous_residual % part_c_shape;
    let partition_strided_residual = tile_strided_residual % part_s_shape;
    let permuted_vec = partition_contiguous_residual ^ (partition_strided_residual % 4);
    let permuted_partition = partition_contiguous_idx ^ (partition_strided_idx % 2);
    let element_contiguous =
        (tile_contiguous_idx * tile_c_shape + permuted_partition * part_c_shape + permuted_vec)
            * elems_per_access
            + cont % elems_per_access;
    element_contiguous + vec_strided_idx * ld * k_factor
}

#[test]
fn tensor_op_multiplicand_is_cutlass_function() {
    let mut checked = 0;
    // (bits, crosswise): kFactor 1, 2, 4 for 32-, 16-, 8-bit elements
    for (bits, crosswise) in [
        (16, 64),
        (16, 32),
        (16, 16),
        (32, 32),
        (32, 16),
        (32, 8),
        (8, 128),
        (8, 64),
        (8, 32),
    ] {
        for (cont, strd) in [(crosswise, 8), (2 * crosswise, 16), (4 * crosswise, 32)] {
            for ld in [cont, 2 * cont] {
                let l = match tensor_op_multiplicand(bits, crosswise, cont, strd, ld) {
                    Ok(l) => l,
                    Err(e) => {
                        // only a non-power-of-two row stride is refused
                        let kf = 8 * (128 / bits) / crosswise;
                        assert!((ld * kf) & (ld * kf - 1) != 0, "{e}");
                        continue;
                    }
                };
                let mut seen = HashSet::new();
                for s in 0..strd {
                    for c in 0..cont {
                        let o = l
                            .offset_of(&DynTuple::from_slice(&[c, s]).unwrap())
                            .unwrap();
                        assert_eq!(o, cutlass(bits, crosswise, ld, c, s), "{l} at ({c},{s})");
                        assert!(seen.insert(o));
                    }
                }
                assert!(l.is_injective().unwrap());
                // the row-major wrapper: (row, col) = (strd, cont)
                let r = row_major_tensor_op_multiplicand(bits, crosswise, strd, cont, ld).unwrap();
                for i in (0..strd * cont).step_by(7) {
                    let (row, col) = (i % strd, i / strd);
                    assert_eq!(r.offset(i), cutlass(bits, crosswise, ld, col, row));
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "{checked}");
    // refused parameters
    assert!(tensor_op_multiplicand(16, 48, 48, 8, 48).is_err()); // Crosswise does not divide 64
    assert!(tensor_op_multiplicand(16, 64, 64, 8, 96).is_err()); // ld·kF = 96
    assert!(tensor_op_multiplicand(16, 32, 32, 7, 32).is_err()); // strd not a multiple of kF
    assert!(tensor_op_multiplicand(12, 64, 64, 8, 64).is_err());
}
