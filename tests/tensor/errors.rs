//! Errors a person reads: one error of each layer printed with `{:?}` (what `main` prints for an
//! `Err`) shows its variant and its sentence; the tensor messages speak in the user's terms
//! (element counts, the tile grid, the operation called); `?` crosses layers into
//! `layout::Error`.

use layout::named::{f16, make_nz_layout};
use layout::packed::{PackedFormat, PackedVec};
use layout::sparse::Coo;
use layout::tensor::{ShapeOp, Tensor, TensorError};
use layout::{DynLayout, Error, ErrorKind};

/// `Debug` is `Variant("sentence")` with the sentence of `Display`, whatever the variant.
fn check_debug<E: std::fmt::Debug + std::fmt::Display>(e: &E, variant: &str) {
    let (dbg, msg) = (format!("{e:?}"), e.to_string());
    assert!(!msg.is_empty());
    assert_eq!(dbg, format!("{variant}(\"{msg}\")"), "Debug of {msg}");
    // `{:#?}` (pretty) keeps the sentence too
    assert!(format!("{e:#?}").contains(&msg));
}

#[test]
fn every_layer_prints_its_sentence_with_debug() {
    let e = "(4,2):(1".parse::<DynLayout>().unwrap_err();
    check_debug(&e, "Parse");

    let e = Tensor::from_vec(vec![0f32; 10], &[3, 4]).unwrap_err();
    check_debug(&e, "ElementCount");

    let mut p = PackedVec::zeroed(PackedFormat::q4_0(), 4).unwrap();
    let e = p.set(1, 16).unwrap_err();
    check_debug(&e, "ValueOutOfRange");

    let e = Coo::from_triplets(2, 2, vec![(0, 0, 1), (1, 5, 2)]).unwrap_err();
    check_debug(&e, "IndexOutOfRange");

    // the wrapper of a layer error: the layer and the same sentence
    let t = TensorError::Layout("(2,2):(1".parse::<DynLayout>().unwrap_err());
    check_debug(&t, "Layout");

    // the GEMM and convolution layers
    let mut c = [0f32; 4];
    let e = layout::gemm::sgemm(
        2, 2, 2, 1.0, &[1.0; 3], 2, 1, &[1.0; 4], 2, 1, 0.0, &mut c, 2, 1,
    )
    .unwrap_err();
    check_debug(&e, "TooShort");
    let e = layout::conv::Conv2d::default()
        .stride(0)
        .output_dims([1, 1, 4, 4], [1, 1, 3, 3])
        .unwrap_err();
    check_debug(&e, "Zero");
}

#[test]
fn main_returning_layout_error_uses_question_mark_across_layers() {
    fn run(len: usize) -> Result<f32, Error> {
        let l: DynLayout = "(3,4):(4,1)".parse()?;
        let t = Tensor::from_vec(vec![1f32; len], &[3, 4])?;
        let mut c = Tensor::new(vec![0f32; 12], l)?;
        c.copy_from(&t)?;
        let mut p = PackedVec::zeroed(PackedFormat::q4_0(), 4)?;
        p.set(0, 15)?;
        Ok(c.iter().sum())
    }
    assert_eq!(run(12), Ok(12.0));
    let e = run(10).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::Tensor(TensorError::ElementCount { .. })
    ));
    assert_eq!(
        format!("{e:?}"),
        format!("Tensor(ElementCount(\"{e}\"))"),
        "main prints the layer and the sentence"
    );
}

#[test]
fn from_vec_speaks_of_elements() {
    for (len, shape) in [(10usize, [3usize, 4]), (14, [3, 4]), (5, [2, 3])] {
        let e = Tensor::from_vec(vec![0u8; len], &shape).unwrap_err();
        let needed = shape.iter().product::<usize>();
        assert_eq!(
            e.to_string(),
            format!(
                "from_vec: the shape ({},{}) needs {needed} elements, the vector has {len}",
                shape[0], shape[1]
            )
        );
    }
    assert!(Tensor::from_vec(vec![0u8; 12], &[3, 4]).is_ok());
    // a borrowed buffer may be longer than the shape (a view of its start), not shorter
    let buf = [0u8; 13];
    assert!(Tensor::row_major(&buf[..], &[3, 4]).is_ok());
    assert_eq!(
        Tensor::row_major(&buf[..5], &[3, 4])
            .unwrap_err()
            .to_string(),
        "row_major: the shape (3,4) needs 12 elements, the buffer has 5"
    );
}

#[test]
fn tile_outside_the_grid_says_tile_grid() {
    let a = Tensor::from_fn(&[100, 70], |i| i as f32).unwrap();
    let t = a.tiles(&[32, 32]).unwrap();
    assert_eq!(t.grid(), &[4, 3][..]);
    for (coord, axis, index, grid) in [
        ([4, 0], 0, 4, 4),
        ([0, 3], 1, 3, 3),
        ([usize::MAX, 0], 0, usize::MAX, 4),
    ] {
        let e = t.tile(&coord).unwrap_err();
        assert_eq!(
            e,
            TensorError::TileOutOfGrid { axis, index, grid },
            "tile {coord:?}"
        );
        assert!(e.to_string().contains("tile grid"), "{e}");
        assert!(t.predicated(&coord).is_err());
    }
}

/// A hierarchical axis (the columns of NZ, `(16,n/16):(1,16m)`; its rows coalesce to one
/// stride and take any tile) is cut exactly: every tile extent is tried, and exactly those that
/// divide the axis and divide or are a multiple of the inner extent 16 work — what the message
/// of the others says.
#[test]
fn nz_tiles_refused_in_the_users_terms() {
    for (m, n) in [(80usize, 80usize), (32, 96), (48, 144)] {
        let nz = make_nz_layout::<f16>(m, n).unwrap();
        let t = Tensor::new(vec![0u16; nz.cosize() as usize], nz).unwrap();
        for tile in 1..=n {
            let fits = n % tile == 0 && (16 % tile == 0 || tile % 16 == 0);
            match t.tiles(&[7, tile]) {
                Ok(_) => assert!(fits, "n {n}: tile {tile} accepted"),
                Err(e) => {
                    assert!(!fits, "n {n}: tile {tile} refused: {e}");
                    assert_eq!(
                        e,
                        TensorError::TileSplitsAxis {
                            axis: 1,
                            extent: n,
                            inner: 16,
                            tile
                        }
                    );
                    assert!(e.to_string().starts_with("tiles: axis 1"), "{e}");
                }
            }
        }
    }
    let nz = make_nz_layout::<f16>(80, 80).unwrap();
    let t = Tensor::new(vec![0u16; nz.cosize() as usize], nz).unwrap();
    let e = t.tiles(&[20, 20]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "tiles: axis 1 (extent 80) is hierarchical with inner extent 16, and tiles of 20 would \
         not be one layout each; use a tile extent that divides 80 and divides or is a multiple \
         of 16"
    );
}

#[test]
fn shape_mismatch_names_the_operation() {
    let a = Tensor::from_vec(vec![0; 6], &[2, 3]).unwrap();
    let mut b = Tensor::from_vec(vec![0; 6], &[3, 2]).unwrap();
    let e = b.copy_from(&a).unwrap_err();
    assert!(e.to_string().starts_with("copy_from: "), "{e}");
    assert!(matches!(
        e,
        TensorError::ShapeMismatch {
            op: ShapeOp::CopyFrom,
            ..
        }
    ));
}
