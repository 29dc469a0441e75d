//! The README's layout and algebra tour, kept compiling and true (the tensor tour is
//! `tests/tensor/tour.rs`).

use layout::algebra::statics;
use layout::{DynLayout, Layout, LayoutError, LayoutTable, Tile, layout};

#[test]
fn layouts_tour() -> Result<(), LayoutError> {
    let l = layout!(((2,3),(2,4)) : ((1,4),(2,12)));
    assert_eq!(std::mem::size_of_val(&l), 0);
    assert_eq!(l.offset(((1, 2), (1, 3))), 47);
    assert_eq!(l.offset((5, 7)), 47);
    assert_eq!(l.offset(47), 47);
    assert_eq!(l.to_string(), "((_2,_3),(_2,_4)):((_1,_4),(_2,_12))");

    let (rows, ld) = (64usize, 96i64);
    let m = layout!((Int<16>, rows/16) : (Int<1>, ld));
    assert_eq!(m.to_string(), "(_16,4):(_1,96)");

    let r = layout!((4, 8) : RowMajor);
    assert_eq!(r.offset((1, 0)), 8);
    type Tile8 = Layout![(8,8):(8,1)];
    assert_eq!(Tile8::default().offset((1, 2)), 10);

    let d: DynLayout = "(2,(2,2)):(4,(2,1))".parse()?;
    assert!(
        LayoutTable::new(&d)?
            .to_string()
            .starts_with("(2,(2,2)):(4,(2,1))\n")
    );
    Ok(())
}

#[test]
fn algebra_tour() -> Result<(), LayoutError> {
    let c = statics::composition(layout!((6,2):(8,2)), layout!((4,3):(3,1)));
    assert_eq!(c.to_string(), "((_2,_2),_3):((_24,_2),_8)");
    assert_eq!(std::mem::size_of_val(&c), 0);

    let a: DynLayout = "(12,32):(1,12)".parse()?;
    let t: Tile = "[4,8]".parse()?;
    assert_eq!(
        a.zipped_divide_by_mode(&t)?.to_string(),
        "((4,8),(3,4)):((1,12),(4,96))"
    );

    let bad = "(6,2):(1,10)"
        .parse::<DynLayout>()?
        .composition(&"4:4".parse()?);
    assert!(bad.is_err());

    let r = layout!(composition((6,2):(8,2), (4,3):(3,1)));
    assert_eq!(r.to_string(), "((_2,_2),_3):((_24,_2),_8)");
    Ok(())
}

#[test]
fn algebra_on_any_layout_tour() -> Result<(), LayoutError> {
    use layout::Algebra;
    let n = 32i64;
    let a = layout!((12, n) : (1, 12));
    let t: Tile = "[4,8]".parse()?;
    assert_eq!(
        a.zipped_divide(t)?.to_string(),
        "((4,8),(3,4)):((1,12),(4,96))"
    );
    assert_eq!(
        a.zipped_divide(layout!((4,8):(1,4)))?.to_string(),
        "((4,8),12):((1,4),32)"
    );
    Ok(())
}

#[test]
fn gemm_and_static_tiles_tour() -> Result<(), Box<dyn std::error::Error>> {
    use layout::gemm::{gemm, sgemm};
    use layout::tensor::Tensor;
    use layout::{Int, Layout};

    let (a, b) = (
        [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0],
        [1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0],
    );
    let mut c = [f32::NAN; 4];
    sgemm(2, 3, 2, 1.0, &a, 3, 1, &b, 2, 1, 0.0, &mut c, 2, 1)?;
    assert_eq!(c, [4.0, 5.0, 10.0, 11.0]);

    let x = Tensor::from_fn(&[64, 32], |i| (i % 3) as f32)?;
    let y = Tensor::from_fn(&[32, 16], |i| (i % 5) as f32)?;
    let mut z = Tensor::from_vec(vec![0f32; 64 * 16], &[64, 16])?;
    gemm(1.0, &x, &y, 0.0, &mut z)?;
    for i in 0..64 {
        for j in 0..16 {
            let want: f32 = (0..32).map(|p| x[[i, p]] * y[[p, j]]).sum();
            assert_eq!(z[[i, j]], want);
        }
    }

    type A = layout::Layout![(4, 8) : (1, 4)];
    type B = layout::Layout![(8, 4) : (4, 1)];
    type C = layout::Layout![(4, 4) : (1, 4)];
    let (p, q, mut r) = ([1f32; 32], [2f32; 32], [0f32; 16]);
    let mut tr = Tensor::new(&mut r[..], C::default())?;
    layout::gemm::gemm_static(
        1.0,
        &Tensor::new(&p[..], A::default())?,
        &Tensor::new(&q[..], B::default())?,
        0.0,
        &mut tr,
    );
    assert_eq!(r, [16.0; 16]);
    let mut nz = Tensor::new(
        vec![0f32; 32 * 32],
        layout::named::make_nz_layout::<f32>(32, 32)?,
    )?;
    nz.copy_from(&Tensor::from_fn(&[32, 32], |i| (i % 7) as f32)?)?;
    let mut out = Tensor::from_vec(vec![0f32; 32 * 16], &[32, 16])?;
    gemm(1.0, &nz, &y, 0.0, &mut out)?;
    for i in 0..32 {
        for j in 0..16 {
            let want: f32 = (0..32).map(|p| nz[[i, p]] * y[[p, j]]).sum();
            assert_eq!(out[[i, j]], want);
        }
    }
    let opts = layout::gemm::Options {
        threads: 2,
        ..Default::default()
    };
    let mut out2 = Tensor::from_vec(vec![f32::NAN; 32 * 16], &[32, 16])?;
    layout::gemm::gemm_tensors_with(opts, 1.0, &nz, &y, 0.0, &mut out2)?;
    assert!(out2.iter().eq(out.iter()));

    // one entry, every element pair: u8 activations × i8 weights → i32, bf16 × bf16 → f32
    let q = Tensor::from_fn(&[4, 8], |i| (i % 200) as u8)?;
    let w = Tensor::from_fn(&[8, 3], |i| (i % 7) as i8 - 3)?;
    let mut acc = Tensor::from_vec(vec![0i32; 12], &[4, 3])?;
    gemm(1, &q, &w, 0, &mut acc)?;
    for i in 0..4 {
        for j in 0..3 {
            let want: i32 = (0..8)
                .map(|p| i32::from(q[[i, p]]) * i32::from(w[[p, j]]))
                .sum();
            assert_eq!(acc[[i, j]], want);
        }
    }
    let h = Tensor::from_fn(&[4, 8], |i| half::bf16::from_f32((i % 5) as f32))?;
    let mut hf = Tensor::from_vec(vec![0f32; 16], &[4, 4])?;
    gemm(
        1.0,
        &h,
        &Tensor::from_fn(&[8, 4], |_| half::bf16::ONE)?,
        0.0,
        &mut hf,
    )?;
    for i in 0..4 {
        let want: f32 = (0..8).map(|p| h[[i, p]].to_f32()).sum();
        assert!((0..4).all(|j| hf[[i, j]] == want));
    }

    let (m, k, ld) = (128i64, 64i64, 128i64);
    let (tile, off) = Layout::new((m, k), (Int::<1>, ld)).local_tile::<16, 8>((2, 3))?;
    let _: Layout<(Int<16>, Int<8>), (Int<1>, i64)> = tile;
    assert_eq!(off + tile.offset((1, 1)), 2 * 16 + 1 + (3 * 8 + 1) * ld);
    Ok(())
}

#[test]
fn named_layout_spellings_tour() -> Result<(), LayoutError> {
    use layout::StaticLayout;
    let nz = layout!(NZ<f16>(20, 28)); // static: evaluated while expanding
    assert_eq!(nz.to_string(), "((_16,_2),(_16,_2)):((_16,_256),(_1,_512))");
    type Weights = Layout![ZN<bf16>(64, 64)]; // a type a kernel can be generic over
    assert_eq!(Weights::LAYOUT.cosize(), 64 * 64);
    let (m, n) = (100, 30);
    let rt = layout!(NZ<f16>(m, n))?; // run time: Result<DynLayout, _>
    assert_eq!(rt.size(), 112 * 32);
    Ok(())
}

/// The README's convolution tour.
#[test]
fn conv_tour() -> Result<(), Box<dyn std::error::Error>> {
    use layout::Tensor;
    use layout::conv::{Conv2d, Im2col, conv2d};

    let input: DynLayout = "(1,2,4,4):(32,16,4,1)".parse()?;
    let p = Conv2d::default().padding(1);
    let m = Im2col::new(&p, &input, [3, 3])?;
    assert_eq!(
        m.layout().to_string(),
        "((1,4,4),(2,3,3)):((0,4,1),(16,4,1))"
    );
    assert_eq!(m.offset(0, 0), None);

    let x = Tensor::new((0..32).map(|v| v as f32).collect::<Vec<_>>(), input)?;
    let w = Tensor::new(
        vec![1.0f32; 3 * 2 * 9],
        "(3,2,3,3):(18,9,3,1)".parse::<DynLayout>()?,
    )?;
    let mut y = Tensor::new(
        vec![0.0f32; 48],
        "(1,3,4,4):(48,1,12,3)".parse::<DynLayout>()?,
    )?;
    conv2d(&p.relu(true), &x, &w, Some(&[0.0, 1.0, 2.0]), &mut y)?;
    assert_eq!(
        y[[0, 1, 0, 0]],
        (1 + 4 + 5 + 16 + 17 + 20 + 21) as f32 + 1.0
    );
    Ok(())
}

/// The README's F2 tour: a swizzle inverted and composed, and its picture.
#[test]
fn f2_tour() -> Result<(), Box<dyn std::error::Error>> {
    use layout::Swizzle;
    use layout::f2::{F2Layout, MixedLayout, to_svg};
    let sw = F2Layout::from_swizzle(Swizzle::new(3, 3, 3)?, 9)?;
    assert_eq!(
        sw.to_string(),
        "{offset:[1,2,4,8,16,32,72,144,288]} -> {offset:512}"
    );
    let inv = sw.invert()?;
    assert!(inv.compose(&sw)?.is_identity());
    let threads: F2Layout = "{reg:[1,2,4],lane:[8,16,32,64,128,256]} -> {offset:512}".parse()?;
    let stored = sw.compose(&threads)?;
    assert!(stored.is_invertible());
    assert_eq!(stored.contiguous_width("reg")?, 8);
    let by_vector = sw.compose(&"{vec:[8,16,32],row:[64,128,256]} -> {offset:512}".parse()?)?;
    let svg = to_svg(&by_vector)?;
    assert_eq!(svg.matches("class=\"cell\"").count(), 64);
    let m = MixedLayout::swizzled(&"(64,8):(1,72)".parse()?, Swizzle::new(3, 3, 3)?)?;
    assert_eq!(m.offset(8 + 64)?, 72);
    assert!(m.to_f2().is_err());
    let first_row = m.right_inverse()?;
    assert_eq!(m.offset(first_row.apply_flat(13)? as i64)?, 13);
    let t: MixedLayout = "(8,8):(F9,F1)".parse()?;
    assert_eq!(t.right_inverse_layout()?.to_string(), "(8,8):(F8,F9)");

    // the ASCII picture in the README: row r's vector v lands in vector slot v ^ r
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))?;
    for r in 0..8u64 {
        let slots: Vec<String> = (0..8u64)
            .map(|v| {
                let off = by_vector.apply(&[v, r]).unwrap().as_slice()[0];
                ((off % 64) / 8).to_string()
            })
            .collect();
        let line = format!("  row {r} lands in: {}", slots.join(" "));
        assert!(readme.contains(&line), "README lacks `{line}`");
    }
    Ok(())
}

/// The README's tensor constructors and operators, GGUF reading and errors (issue 32).
#[test]
fn conveniences_gguf_and_errors_tour() -> Result<(), layout::Error> {
    use layout::named::{f16, make_nz_layout};
    use layout::packed::{GgufReader, GgufTensor};
    use layout::tensor::{Tensor, TensorOwned};

    let nz = make_nz_layout::<f16>(32, 32)?;
    let w: TensorOwned<f32> = Tensor::zeros(nz)?;
    let x = Tensor::from_fn(&[32, 32], |i| i as f32)?;
    let y = (&w + &x)?;
    assert_eq!(y.layout(), &nz);
    let mut z = Tensor::full(nz, 2.0f32)?;
    z *= &y;
    assert_eq!(z[[5, 7]], 2.0 * x[[5, 7]]);

    let mut file = GgufReader::open("tests/data/small.gguf")?;
    assert!(file.get("general.architecture").is_some());
    assert_eq!(file.tensors().len(), 5);
    let GgufTensor::Q4_0(w) = file.tensor("w.q4_0")? else {
        panic!("not Q4_0")
    };
    assert_eq!((w.k(), w.n()), (64, 8));

    fn main_like() -> Result<(), layout::Error> {
        let _t = Tensor::from_vec(vec![0f32; 10], &[3, 4])?;
        Ok(())
    }
    assert_eq!(
        format!("Error: {:?}", main_like().unwrap_err()),
        r#"Error: Tensor(ElementCount("from_vec: the shape (3,4) needs 12 elements, the vector has 10"))"#
    );
    Ok(())
}

/// The README's "first hour" (issue 32): the five tasks a new user did in fresh crates, as the
/// README writes them — `use layout::…` only, no cast between the library's integer types, no
/// layout built from a `format!` string — each checked against a naive computation.
mod first_hour {
    use layout::Tensor;

    /// Ascend: f16 ND → NZ (A) and ZN (B), multiplied into f32 NZ, cropped back to ND.
    #[test]
    fn ascend_f16_nd_to_nz_times_zn_into_f32() -> Result<(), layout::Error> {
        use layout::gemm::gemm;
        use layout::named::{Padded, f16, make_nz_layout, make_zn_layout};

        let (m, k, n) = (40, 24, 20);
        let a = Tensor::from_fn(&[m, k], |i| f16::from_f32((i % 7) as f32 - 3.0))?;
        let b = Tensor::from_fn(&[k, n], |i| f16::from_f32((i % 5) as f32 - 2.0))?;
        let a_nz = Padded::new(make_nz_layout::<f16>(m, k)?, &[m, k])?.pad_from(&a, f16::ZERO)?;
        let b_pad = Padded::new(make_zn_layout::<f16>(k, n)?, &[k, n])?;
        let b_zn = b_pad.pad_from(&b, f16::ZERO)?; // 32 × 32 ZN, padding zero
        let c_pad = Padded::new(make_nz_layout::<f32>(m, b_pad.padded()[1])?, &[m, n])?;
        let mut c = Tensor::zeros(*c_pad.layout())?; // f32 NZ, 48 × 32
        gemm(1.0, &a_nz, &b_zn, 0.0, &mut c)?; // f16 × f16 → f32, operands read in place
        let c_nd = c_pad.crop_to_nd(&c)?; // 40 × 20 row-major

        assert_eq!(c_nd.dims(), [m, n]);
        for i in 0..m {
            for j in 0..n {
                let want: f32 = (0..k)
                    .map(|p| a[[i, p]].to_f32() * b[[p, j]].to_f32())
                    .sum();
                assert_eq!(c_nd[[i, j]], want, "({i},{j})");
            }
        }
        Ok(())
    }

    /// A 3 × 3 convolution, padding 1, NHWC input and output (typed layouts), bias and ReLU.
    #[test]
    fn nhwc_convolution_with_bias_and_relu() -> Result<(), layout::Error> {
        use layout::conv::{Conv2d, conv2d};
        use layout::layout;

        let (n, c, h, w, o) = (2, 3, 6, 5, 4);
        let nhwc = layout!((n, c, h, w) : ({h * w * c}, 1, {w * c}, c));
        let x = Tensor::new(
            (0..n * c * h * w)
                .map(|v| (v % 7) as f32 - 3.0)
                .collect::<Vec<_>>(),
            nhwc,
        )?;
        let oihw = layout!((o, c, 3, 3) : RowMajor);
        let wt = Tensor::new(
            (0..o * c * 9)
                .map(|v| (v % 5) as f32 - 2.0)
                .collect::<Vec<_>>(),
            oihw,
        )?;
        let bias = [0.5f32, -1.0, 2.0, 0.0];
        let mut y = Tensor::zeros(layout!((n, o, h, w) : ({h * w * o}, 1, {w * o}, o)))?;
        conv2d(
            &Conv2d::default().padding(1).relu(true),
            &x,
            &wt,
            Some(&[0.5, -1.0, 2.0, 0.0]),
            &mut y,
        )?;

        for (b, k, p, q) in
            (0..n * o * h * w).map(|i| (i / (o * h * w), i / (h * w) % o, i / w % h, i % w))
        {
            let mut s = bias[k];
            for ch in 0..c {
                for r in 0..3 {
                    for t in 0..3 {
                        // input row p + r − 1, column q + t − 1 (padding reads zero)
                        if let (Some(hi), Some(wi)) =
                            ((p + r).checked_sub(1), (q + t).checked_sub(1))
                            && hi < h
                            && wi < w
                        {
                            s += x[[b, ch, hi, wi]] * wt[[k, ch, r, t]];
                        }
                    }
                }
            }
            assert_eq!(y[[b, k, p, q]], s.max(0.0), "({b},{k},{p},{q})");
        }
        Ok(())
    }

    /// GGUF Q4_0 weights: one token (decode) and a prompt (prefill), neither dequantizing B.
    #[test]
    fn q4_0_decode_and_prefill() -> Result<(), layout::Error> {
        use layout::gemm::gemm;
        use layout::packed::{QuantizedB, quantize_q4_0};

        let (k, n) = (64, 16);
        let w: Vec<f32> = (0..k * n)
            .map(|i| ((i * 7 % 13) as f32 - 6.0) * 0.1)
            .collect();
        let q = quantize_q4_0(k, n, &w)?; // k × n, blocks of 32 along k
        let token = Tensor::from_fn(&[1, k], |i| (i % 5) as f32 - 2.0)?;
        let mut y = Tensor::from_vec(vec![0f32; n], &[1, n])?;
        gemm(1.0, &token, &q, 0.0, &mut y)?; // decode: the 4-bit bytes read in place
        let prompt = Tensor::from_fn(&[32, k], |i| (i % 3) as f32 - 1.0)?;
        let y32 = prompt.matmul(&q)?; // prefill: 32 × 16, B dequantized block by block

        let b = Tensor::from_vec(q.dequantize()?, &[k, n])?; // only for the check
        for (x, got) in [(&token, &y), (&prompt, &y32)] {
            let want = x.matmul(&b)?;
            for (u, v) in got.iter().zip(want.iter()) {
                assert!((u - v).abs() <= 1e-5 * (1.0 + v.abs()), "{u} {v}");
            }
        }
        Ok(())
    }

    /// A 100 × 70 matrix in ragged 32 × 32 tiles, transposed tile by tile.
    #[test]
    fn ragged_tiles_and_a_tiled_transpose() -> Result<(), layout::Error> {
        let (m, n) = (100, 70);
        let a = Tensor::from_fn(&[m, n], |i| i as f32)?;
        let mut at = Tensor::from_vec(vec![0f32; n * m], &[n, m])?;
        let src = a.tiles(&[32, 32])?; // grid 4 × 3; the last row of tiles has 4 rows
        let mut dst = at.tiles_mut(&[32, 32])?; // grid 3 × 4
        assert_eq!((src.grid(), dst.grid()), (&[4, 3][..], &[3, 4][..]));
        for c in src.coords() {
            let (i, j) = (c[0], c[1]);
            dst.tile_mut(&[j, i])?.copy_from(&src.tile(&[i, j])?.t()?)?;
        }
        assert_eq!(src.tile(&[3, 2])?.dims(), [4, 6]); // the corner: 100 = 3·32 + 4, 70 = 2·32 + 6

        for i in 0..m {
            for j in 0..n {
                assert_eq!(at[[j, i]], a[[i, j]]);
            }
        }
        Ok(())
    }

    /// u8 activations × i8 weights, accumulated exactly in i32.
    #[test]
    fn u8_times_i8_into_i32() -> Result<(), layout::Error> {
        let act = Tensor::from_fn(&[4, 64], |i| (i * 37 % 256) as u8)?;
        let wts = Tensor::from_fn(&[64, 8], |i| (i % 15) as i8 - 7)?;
        let acc = act.matmul(&wts)?; // Tensor of i32, 4 × 8

        for i in 0..4 {
            for j in 0..8 {
                let want: i32 = (0..64)
                    .map(|p| i32::from(act[[i, p]]) * i32::from(wts[[p, j]]))
                    .sum();
                assert_eq!(acc[[i, j]], want);
            }
        }
        Ok(())
    }
}
