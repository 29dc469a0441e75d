//! Identity tensors (CuTe's `make_identity_tensor`): every element is its own coordinate,
//! through tiling with ragged edges, and the residue predicate `elem_less(coord, shape)` agrees
//! with the existing predicated tiles — checked over every tile of many shapes.

use layout::DynLayout;
use layout::tensor::{IdentityTensor, Tensor};
use proptest::prelude::*;

#[test]
fn elements_are_their_coordinates() {
    let id = IdentityTensor::new(&[3, 4, 5]).unwrap();
    for i in 0..3 {
        for j in 0..4 {
            for k in 0..5 {
                assert_eq!(id.get(&[i, j, k]).unwrap().as_slice(), &[i, j, k]);
                assert_eq!(
                    id.get_index(i + 3 * (j + 4 * k)).unwrap().as_slice(),
                    &[i, j, k]
                );
            }
        }
    }
    assert!(id.get(&[3, 0, 0]).is_err());
    assert!(id.get(&[0, 0]).is_err());
    assert!(id.get_index(60).is_err());
}

#[test]
fn e_strides_parse_and_print() {
    let t: IdentityTensor = "(4,(2,4)):(E<0>,(1@1,_2@1))".parse().unwrap();
    assert_eq!(t.to_string(), "ArithTuple(0,0) o (4,(2,4)):(1@0,(1@1,2@1))");
    // a transposed identity: mode 0 walks component 1
    let t: IdentityTensor = "(3,2):(1@1,1@0)".parse().unwrap();
    assert_eq!(t.get(&[2, 1]).unwrap().as_slice(), &[1, 2]);
    for bad in ["(4,2):(1@0)", "(4,2):(1@0,1@9)", "(0,2):(1@0,1@1)", "4:1"] {
        assert!(bad.parse::<IdentityTensor>().is_err(), "{bad}");
    }
}

#[test]
fn through_a_thread_layout() {
    // 32 threads own a 4 x 8 tile in row-major order: thread t holds coordinate (t / 8, t % 8)
    let id = IdentityTensor::new(&[4, 8]).unwrap();
    let thr: DynLayout = "(8,4):(4,1)".parse().unwrap();
    let c = id.through(&thr).unwrap();
    for (t, crd) in c.iter().enumerate() {
        let t = t as i64;
        assert_eq!(crd.as_slice(), &[t / 8, t % 8]);
    }
    assert!(id.through(&"64:1".parse().unwrap()).is_err());
}

/// Over every tile of an `m × n` matrix cut into `a × b` tiles: the identity tile's elements are
/// the global coordinates, the comparison predicate equals `Tiles::predicated`'s, and the valid
/// coordinates of all tiles cover the matrix exactly once.
fn check_tiling(m: i64, n: i64, a: i64, b: i64) {
    let id = IdentityTensor::new(&[m, n]).unwrap();
    let data = Tensor::from_fn(&[m as usize, n as usize], |i| i as u32).unwrap();
    let tiles = data.tiles(&[a as usize, b as usize]).unwrap();
    let z = id.zipped_divide(&[a, b]).unwrap();
    let (gm, gn) = ((m + a - 1) / a, (n + b - 1) / b);
    assert_eq!(z.extent(1).unwrap(), gm * gn);
    let mut seen = vec![0u8; (m * n) as usize];
    for ti in 0..gm {
        for tj in 0..gn {
            let t = id.local_tile(&[a, b], &[ti, tj]).unwrap();
            let p = tiles.predicated(&[ti as usize, tj as usize]).unwrap();
            for i in 0..a {
                for j in 0..b {
                    let c = t.get(&[i, j]).unwrap();
                    assert_eq!(c.as_slice(), &[ti * a + i, tj * b + j]);
                    // the same element through zipped_divide: (tile elem, tile index), colex
                    let zc = z.get(&[i + a * j, ti + gm * tj]).unwrap();
                    assert_eq!(zc, c);
                    let inside = c.elem_less(&[m, n]);
                    assert_eq!(
                        inside,
                        p.is_valid(&[i as usize, j as usize]),
                        "{m}x{n} / {a}x{b} tile ({ti},{tj}) at ({i},{j})"
                    );
                    if inside {
                        seen[(c.as_slice()[0] * n + c.as_slice()[1]) as usize] += 1;
                        // and the predicated element is the data at that coordinate
                        assert_eq!(
                            p.get(&[i as usize, j as usize]).copied(),
                            Some((c.as_slice()[0] * n + c.as_slice()[1]) as u32)
                        );
                    }
                }
            }
        }
    }
    assert!(seen.iter().all(|&s| s == 1));
}

#[test]
fn residue_tiles_by_comparison() {
    check_tiling(5, 7, 4, 4);
    check_tiling(20, 28, 16, 16);
    check_tiling(1, 1, 3, 2);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn residue_predicates_agree_with_predicated_tiles(
        m in 1i64..24, n in 1i64..24, a in 1i64..9, b in 1i64..9
    ) {
        check_tiling(m, n, a, b);
    }
}

#[test]
fn huge_extents_do_not_overflow() {
    let id = IdentityTensor::new(&[i64::MAX, 3]).unwrap();
    let z = id.zipped_divide(&[i64::MAX - 1, 2]).unwrap();
    assert_eq!(z.extent(1).unwrap(), 2 * 2);
    let t = id.local_tile(&[i64::MAX - 1, 2], &[1, 1]).unwrap();
    assert_eq!(t.get(&[0, 0]).unwrap().as_slice(), &[i64::MAX - 1, 2]);
    // row i64::MAX exists as a coordinate but is outside the shape; the one after leaves
    // i64: an error, not a wrap
    assert!(!t.get(&[1, 0]).unwrap().elem_less(&[i64::MAX, 3]));
    assert!(t.get(&[2, 0]).is_err());
}
