//! The tour of `layout`: `cargo run --release --example demo`.

use layout::algebra::statics;
use layout::named::{Nz, Padded, f16, make_nz_layout, make_nz_layout_batched};
use layout::tensor::s;
use layout::tensor::{Slice, Tensor};
use layout::{DynLayout, LayoutTable, Tile, ToDynCoord, layout};

fn section(title: &str) {
    println!("\n=== {title} ===\n");
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    section("static layouts: zero-sized types, offsets computed at compile time");
    let l = layout!(((2,3),(2,4)) : ((1,4),(2,12)));
    println!("layout          {l}");
    println!("size_of         {} bytes", core::mem::size_of_val(&l));
    println!("size / cosize   {} / {}", l.size(), l.cosize()?);
    println!(
        "offset(47)      {}   (1-D index, colexicographic)",
        l.offset(47)
    );
    println!(
        "offset((5,7))   {}   (per-mode coordinate)",
        l.offset((5, 7))
    );
    println!(
        "offset(((1,2),(1,3))) {}   (hierarchical coordinate)",
        l.offset(((1, 2), (1, 3)))
    );
    println!("\nthe Ascend C hierarchical example, drawn as CuTe's print_layout draws it:");
    print!("{}", LayoutTable::new(&l)?);

    section("mixed layouts: static inner modes, dynamic outer modes");
    let (rows, ld) = (64usize, 96i64);
    let m = layout!((Int<16>, rows/16) : (Int<1>, ld));
    println!("layout!((Int<16>, rows/16) : (Int<1>, ld)) = {m}");
    println!(
        "size_of         {} bytes (only the dynamic leaves are stored)",
        core::mem::size_of_val(&m)
    );
    println!("offset((3,2))   {}", m.offset((3, 2)));
    let rm = layout!((4, 8) : RowMajor);
    let cm = layout!((4, 8));
    println!("compact orders  {rm}   {cm}");
    print!("{}", LayoutTable::new(&rm)?);

    section("run-time layouts: parsed from text, heap-free");
    let d: DynLayout = "(2,(2,2)):(4,(2,1))".parse()?;
    println!("parsed          {d}");
    print!("{}", LayoutTable::new(&d)?);
    let bad = "(4,(2,2)):(1,4)".parse::<DynLayout>();
    println!(
        "\"(4,(2,2)):(1,4)\" -> {}",
        bad.err().map(|e| e.to_string()).unwrap_or_default()
    );

    section("the algebra: static results are zero-sized types computed at compile time");
    let a = layout!((6,2):(8,2));
    let b = layout!((4,3):(3,1));
    let c = statics::composition(a, b);
    println!(
        "composition({a}, {b}) = {c}   ({} bytes)",
        core::mem::size_of_val(&c)
    );
    println!(
        "  R(i) == A(B(i)) for every i: {}",
        (0..12).all(|i| c.offset(i) == a.offset(b.offset(i)))
    );
    let tiled = statics::blocked_product(layout!((2,2):(1,2)), layout!((3, 4)));
    println!("blocked_product((2,2):(1,2), (3,4)) = {tiled}");
    print!("{}", LayoutTable::new(&tiled)?);

    println!("\nrun-time layouts, same functions, Result on misuse:");
    let m: DynLayout = "(12,32):(1,12)".parse()?;
    let t: Tile = "[4,8]".parse()?;
    println!("zipped_divide({m}, {t}) = {}", m.zipped_divide_by_mode(&t)?);
    println!(
        "complement(4:2, 24) = {}",
        "4:2".parse::<DynLayout>()?.complement(24)?
    );
    println!(
        "right_inverse((4,8):(8,1)) = {}",
        "(4,8):(8,1)".parse::<DynLayout>()?.right_inverse()
    );
    for (x, y) in [("(6,2):(1,10)", "4:4"), ("(6,2):(1,7)", "(3,2):(2,3)")] {
        let (x, y): (DynLayout, DynLayout) = (x.parse()?, y.parse()?);
        match x.composition(&y) {
            Ok(r) => println!("composition({x}, {y}) = {r}"),
            Err(e) => {
                println!("composition({x}, {y}) refused (CuTe returns a wrong layout):\n  {e}")
            }
        }
    }

    section("tensors: storage + layout, NumPy/PyTorch views, copies into any layout");
    let t = Tensor::from_vec((0..24).collect::<Vec<i32>>(), &[4, 6])?;
    println!("t = {t:?}");
    let v = t.view().slice(&s![..;-1, 0..6;2, Slice::NewAxis])?;
    println!(
        "t[::-1, 0:6:2, None] has layout {} (a view, no copy)",
        v.layout()
    );
    match t.view().t()?.reshape(&[24]) {
        Ok(_) => println!("reshape of the transpose is a view"),
        Err(e) => println!("t.T.reshape(24): {e}"),
    }
    let nd = Tensor::from_fn(&[32, 32], |i| i as u16)?;
    let nz: DynLayout = "((16,2),(16,2)):((16,256),(1,512))".parse()?;
    let mut z = Tensor::new(vec![0u16; 1024], nz)?;
    z.copy_from(&nd)?;
    println!(
        "ND -> Ascend NZ (fp16 32x32): memory starts {:?}",
        &z.as_slice()[..20]
    );

    section(
        "named layouts: Ascend fractals, static where the extents are, padded where they are not",
    );
    let nz = make_nz_layout::<f16>(20, 28)?; // padded up to whole 16 x 16 fractals
    println!("make_nz_layout::<f16>(20, 28)    {nz}");
    let tile = Nz::<f16, 32, 32>::new(); // zero-sized: the value is an associated const
    println!(
        "Nz<f16, 32, 32>                   {} ({} bytes)",
        tile.to_dyn(),
        core::mem::size_of_val(&tile)
    );
    let spelled = layout!(NZ<f16>(32, 32)); // the field's spelling, evaluated while expanding
    println!(
        "layout!(NZ<f16>(32, 32))          {spelled} ({} bytes)",
        core::mem::size_of_val(&spelled)
    );
    let (n, c, h, w) = (2, 20, 4, 4);
    println!(
        "layout!(nChw16c(n, c, h, w))      {} (run time: {n}x{c}x{h}x{w}, channels padded to 32)",
        layout!(nChw16c(n, c, h, w))?
    );
    println!(
        "(1,0) -> {}, (0,16) -> {}, (19,27) -> {}",
        nz.offset_of(&(1, 0).to_dyn_coord()?)?,
        nz.offset_of(&(0, 16).to_dyn_coord()?)?,
        nz.offset_of(&(19, 27).to_dyn_coord()?)?
    );
    let p = Padded::new(make_nz_layout_batched::<f16>(8, 100, 30)?, &[8, 100, 30])?;
    let nd = Tensor::from_fn(&[8, 100, 30], |i| i as u16)?;
    let padded = p.pad_from(&nd, 0)?;
    println!(
        "ATB: ND {{8,100,30}} -> NZ of {} elements (padding 0) -> back to ND: {}",
        padded.as_slice().len(),
        if p.crop_to_nd(&padded)?.iter().eq(nd.iter()) {
            "equal"
        } else {
            "DIFFERENT"
        }
    );

    section("GEMM: register-tiled microkernels, C = A·B on tensors");
    let n = 256usize;
    let a = Tensor::from_fn(&[n, n], |i| (i % 7) as f32)?;
    let b = Tensor::from_fn(&[n, n], |i| (i % 5) as f32)?;
    let mut c = Tensor::from_vec(vec![0f32; n * n], &[n, n])?;
    layout::gemm::gemm(1.0, &a, &b, 0.0, &mut c)?; // warm-up: packing buffers, caches
    let reps = 20;
    let t0 = std::time::Instant::now();
    for _ in 0..reps {
        layout::gemm::gemm(1.0, &a, &b, 0.0, &mut c)?;
    }
    let secs = t0.elapsed().as_secs_f64() / reps as f64;
    let want: f32 = (0..n).map(|k| a[[3, k]] * b[[k, 5]]).sum();
    println!(
        "sgemm {n}x{n}x{n} on {:?}: {:.1} GFLOP/s, one thread (c[3,5] = {}; the dot product gives {want})",
        layout::gemm::Isa::selected(),
        2.0 * (n * n * n) as f64 / secs / 1e9,
        c[[3, 5]]
    );

    // layout-typed: static 8x8 operands run with every extent and stride a compile-time constant;
    // gemm_static refuses mismatched extents at compile time
    type M8 = layout::Layout![(8, 8) : (1, 8)];
    let (p, q) = (
        (0..64).map(|i| (i % 3) as f32).collect::<Vec<_>>(),
        (0..64).map(|i| (i % 4) as f32).collect::<Vec<_>>(),
    );
    let mut r = vec![0f32; 64];
    let (tp, tq) = (
        Tensor::new(&p[..], M8::default())?,
        Tensor::new(&q[..], M8::default())?,
    );
    let mut tr = Tensor::new(&mut r[..], M8::default())?;
    let reps = 200_000;
    let t0 = std::time::Instant::now();
    for _ in 0..reps {
        layout::gemm::gemm_static(1.0, &tp, &tq, 0.0, &mut tr);
    }
    let ns = t0.elapsed().as_secs_f64() / reps as f64 * 1e9;
    println!(
        "gemm_static on {M8_TEXT} tensors: {ns:.1} ns a call ({:.1} GFLOP/s), r[0] = {}",
        2.0 * 512.0 / ns,
        r[0],
        M8_TEXT = M8::default()
    );
    // an Ascend NZ operand (f32 fractals 16 x 8): correct through its layout's offsets
    let mut nz = Tensor::new(vec![0f32; 64 * 64], make_nz_layout::<f32>(64, 64)?)?;
    nz.copy_from(&Tensor::from_fn(&[64, 64], |i| (i % 7) as f32)?)?;
    let w = Tensor::from_fn(&[64, 16], |i| (i % 5) as f32)?;
    let mut out = Tensor::from_vec(vec![0f32; 64 * 16], &[64, 16])?;
    layout::gemm::gemm(1.0, &nz, &w, 0.0, &mut out)?;
    let want: f32 = (0..64).map(|k| nz[[5, k]] * w[[k, 2]]).sum();
    println!(
        "NZ {} x row-major 64x16: out[5,2] = {} (dot product {want})",
        nz.layout(),
        out[[5, 2]]
    );
    Ok(())
}
