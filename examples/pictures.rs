//! Writes SVG pictures of a few layouts into `pictures/`: row-major, column-major, the Ascend
//! docs' hierarchical example `((2,3),(2,4)):((1,4),(2,12))`, NZ for f16, the fp16 swizzle atom
//! `Sw<3,3,3> o (8,64):(64,1)` coloured by shared-memory bank, and a padded NZ (20 × 28 f16).
//!
//! ```sh
//! cargo run --example pictures      # then open pictures/*.svg
//! ```

use layout::named::{Nz, Padded, f16, make_nz_layout};
use layout::svg::Picture;
use layout::{DynLayout, Int, Layout, Sw, SwizzledLayout};
use std::error::Error;
use std::fs;

fn main() -> Result<(), Box<dyn Error>> {
    let dir = std::path::Path::new("pictures");
    fs::create_dir_all(dir)?;
    let write = |name: &str, svg: String| -> Result<(), Box<dyn Error>> {
        let path = dir.join(name);
        fs::write(&path, svg)?;
        println!("wrote {}", path.display());
        Ok(())
    };

    let row: DynLayout = "(4,8):(8,1)".parse()?;
    write("row_major.svg", Picture::new(&row)?.to_svg())?;
    let col: DynLayout = "(4,8):(1,4)".parse()?;
    write("column_major.svg", Picture::new(&col)?.to_svg())?;
    let hier: DynLayout = "((2,3),(2,4)):((1,4),(2,12))".parse()?;
    write("hierarchical.svg", Picture::new(&hier)?.to_svg())?;
    fs::write(
        dir.join("hierarchical.tex"),
        Picture::new(&hier)?.to_latex(),
    )?;

    // NZ for f16, 32 x 32: four 16 x 16 fractals, coloured by fractal
    let nz = Nz::<f16, 32, 32>::new();
    let fractal = |_: i64, _: i64, off: i64| (off / 256) as usize;
    write(
        "nz_f16.svg",
        Picture::new(&nz)?.colour_by(4, &fractal).to_svg(),
    )?;

    // the fp16 shared-memory swizzle atom, each cell coloured by its 4-byte bank (32 banks)
    let atom = SwizzledLayout::new(
        Sw::<3, 3, 3>,
        Int::<0>,
        Layout::new((Int::<8>, Int::<64>), (Int::<64>, Int::<1>)),
    );
    let bank = |_: i64, _: i64, off: i64| ((off * 2 / 4) % 32) as usize;
    write(
        "swizzle_atom_banks.svg",
        Picture::new(&atom)?.colour_by(32, &bank).to_svg(),
    )?;

    // 20 x 28 f16 in NZ: padded to 32 x 32, the padding shaded
    let padded = Padded::new(make_nz_layout::<f16>(20, 28)?, &[20, 28])?;
    let title = padded.to_string();
    write(
        "nz_f16_padded.svg",
        Picture::padded(&padded)?
            .colour_by(4, &fractal)
            .title(&title)
            .to_svg(),
    )?;
    Ok(())
}
