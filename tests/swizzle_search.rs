//! The F2 swizzle search against the existing `Sw<B,M,S>` suggester on the field's shared-memory
//! tiles (f16 and f32; 64×64, 128×32, 32×128; row- and column-major; 16-byte vectors along the
//! contiguous dimension), with conflicts counted by brute force — and the table in the README
//! kept equal to what the code finds.

use layout::f2::F2Layout;
use layout::named::banks::{BankModel, bank_conflicts, search_swizzle_f2, suggest_swizzle};
use layout::{DynLayout, Swizzle, SwizzledLayout};

/// The tile with its contiguous dimension as mode 1 (vectors run along mode 1).
fn view(m: i64, n: i64, row_major: bool) -> DynLayout {
    let (r, c) = if row_major { (m, n) } else { (n, m) };
    format!("({r},{c}):({c},1)").parse().unwrap()
}

/// `(row, col) → offset` of a swizzled tile, as an F2 layout, for its vector width.
fn f2_of(tile: &DynLayout, sw: Swizzle) -> F2Layout {
    let r = tile.shape().mode(0).unwrap().size().unwrap();
    let c = tile.shape().mode(1).unwrap().size().unwrap();
    let (rb, cb) = (r.trailing_zeros() as usize, c.trailing_zeros() as usize);
    let t = F2Layout::from_layout(tile).unwrap();
    let b = t.flat_bases();
    let t = F2Layout::output(&[("offset", 1 << (rb + cb))])
        .unwrap()
        .with_input("row", &b[..rb])
        .unwrap()
        .with_input("col", &b[rb..])
        .unwrap();
    F2Layout::from_swizzle(sw, rb + cb)
        .unwrap()
        .compose(&t)
        .unwrap()
}

/// One row of the table: the existing suggester's answer and the F2 search's.
fn row(dtype: &str, bytes: i64, m: i64, n: i64, row_major: bool) -> String {
    let model = BankModel::NVIDIA_SMEM;
    let vector = 16 / bytes;
    let tile = view(m, n, row_major);
    let before = bank_conflicts(&tile, bytes, vector, model).unwrap();
    let old = match suggest_swizzle(&tile, bytes, vector, model).unwrap() {
        Some(sw) => {
            let r =
                bank_conflicts(&SwizzledLayout::new(sw, 0i64, tile), bytes, vector, model).unwrap();
            let w = f2_of(&tile, sw).contiguous_width("col").unwrap();
            format!("{sw}: {}/{} ways, {w}-wide", r.row_wise, r.column_wise)
        }
        None => "none".to_string(),
    };
    let s = search_swizzle_f2(&tile, bytes, vector, model).unwrap();
    // the search's own claims, by brute force
    assert!(s.swizzle.is_invertible());
    for r in 0..tile.shape().mode(0).unwrap().size().unwrap() {
        for c in 0..tile.shape().mode(1).unwrap().size().unwrap() {
            let o = tile
                .offset_of(&format!("({r},{c})").parse().unwrap())
                .unwrap();
            let via = s.swizzle.apply_flat(o as u64).unwrap();
            assert_eq!(
                via,
                s.layout.apply(&[r as u64, c as u64]).unwrap().as_slice()[0]
            );
        }
    }
    format!(
        "| {dtype} | {m}×{n} | {} | {}/{} | {old} | {}/{} ways, {}-wide |",
        if row_major { "row" } else { "column" },
        before.row_wise,
        before.column_wise,
        s.report.row_wise,
        s.report.column_wise,
        s.vector_width
    )
}

#[test]
fn f2_search_is_conflict_free_with_full_vectors_on_the_fields_tiles() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut missing = Vec::new();
    for (dtype, bytes) in [("f16", 2), ("f32", 4)] {
        for (m, n) in [(64, 64), (128, 32), (32, 128)] {
            for row_major in [true, false] {
                let line = row(dtype, bytes, m, n, row_major);
                println!("{line}");
                assert!(
                    line.ends_with(&format!("| 1/1 ways, {}-wide |", 16 / bytes)),
                    "{line}"
                );
                if !readme.contains(&line) {
                    missing.push(line);
                }
            }
        }
    }
    assert!(
        missing.is_empty(),
        "README table lacks:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_search_beats_the_identity_only_where_it_must() {
    // already conflict-free (one row per wavefront... here an 8-row tile of 16-byte rows read
    // row-wise and column-wise): the tile is kept as it is
    let tile: DynLayout = "(8,8):(8,1)".parse().unwrap();
    let s = search_swizzle_f2(&tile, 2, 8, BankModel::NVIDIA_SMEM).unwrap();
    assert!(s.report.conflict_free());
    // errors: not a power of two, not a bijection
    assert!(
        search_swizzle_f2(
            &"(6,8):(8,1)".parse().unwrap(),
            2,
            8,
            BankModel::NVIDIA_SMEM
        )
        .is_err()
    );
    assert!(
        search_swizzle_f2(
            &"(8,8):(16,1)".parse().unwrap(),
            2,
            8,
            BankModel::NVIDIA_SMEM
        )
        .is_err()
    );
}
