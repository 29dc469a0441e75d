//! The tour of `layout`: `cargo run --release --example demo`.

use layout::{DynLayout, LayoutError, LayoutTable, layout};

fn section(title: &str) {
    println!("\n=== {title} ===\n");
}

fn main() -> Result<(), LayoutError> {
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
    Ok(())
}
