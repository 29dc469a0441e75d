//! Swizzle atoms against CuTe's byte-address definition; bank-conflict reports and swizzle
//! suggestions against an independent count.

use layout::named::banks::{
    BankModel, Major, SwizzleBytes, bank_conflicts, make_gmma_atom, suggest_swizzle,
};
use layout::named::{C0Element, U4, bf16, f16};
use layout::{AnyLayout, DynLayout, Swizzle, SwizzledLayout};
use std::collections::{HashMap, HashSet};

/// CuTe's byte-address swizzle `Sw<B,4,3>`: XOR bits 7.. (128-byte row) into bits 4.. (16-byte chunk).
fn byte_swizzle(b: u32, addr: i64) -> i64 {
    let mask = ((1i64 << b) - 1) << 7;
    addr ^ ((addr & mask) >> 3)
}

fn atoms_for<T: C0Element>() {
    for (width, b, bytes) in [
        (SwizzleBytes::Interleave, 0, 16),
        (SwizzleBytes::B32, 1, 32),
        (SwizzleBytes::B64, 2, 64),
        (SwizzleBytes::B128, 3, 128),
    ] {
        let row = bytes * 8 / T::BITS; // elements per row
        for major in [Major::K, Major::Mn] {
            let a = make_gmma_atom::<T>(major, width).unwrap();
            assert_eq!(a.size(), 8 * row);
            let mut seen = HashSet::new();
            for i in 0..a.size() {
                // (r, c): r the 8-row index, c along the swizzled row
                let (r, c) = match major {
                    Major::K => (i % 8, i / 8),
                    Major::Mn => (i / row, i % row),
                };
                let bits = (r * row + c) * T::BITS;
                let want_bits = if T::BITS >= 8 {
                    byte_swizzle(b, bits / 8) * 8
                } else {
                    // sub-byte: the swizzle moves whole 16-byte chunks; bit position within
                    // the byte is kept
                    byte_swizzle(b, bits / 8) * 8 + bits % 8
                };
                let o = a.offset(i);
                assert_eq!(o * T::BITS, want_bits, "{a} index {i}");
                assert!(seen.insert(o));
            }
            assert_eq!(
                seen.len() as i64,
                8 * row,
                "{a} is a bijection onto its rows"
            );
        }
    }
}

#[test]
fn gmma_atoms_follow_cute_byte_swizzle() {
    atoms_for::<f16>();
    atoms_for::<bf16>();
    atoms_for::<f32>();
    atoms_for::<i8>();
    atoms_for::<U4>();
    let a = make_gmma_atom::<f16>(Major::K, SwizzleBytes::B128).unwrap();
    assert_eq!(a.to_string(), "Sw<3,3,3> o 0 o (8,64):(64,1)");
    let a = make_gmma_atom::<f32>(Major::K, SwizzleBytes::B64).unwrap();
    assert_eq!(a.to_string(), "Sw<2,2,3> o 0 o (8,16):(16,1)");
    let a = make_gmma_atom::<f16>(Major::K, SwizzleBytes::B32).unwrap();
    assert_eq!(a.to_string(), "Sw<1,3,3> o 0 o (8,16):(16,1)");
}

/// Independent count: group the accesses, and per bank count the distinct 4-byte words.
fn naive(tile: &impl AnyLayout, rows: i64, cols: i64, e: i64, v: i64) -> (i64, i64) {
    let threads = (128 / (v * e)).max(1);
    let cost = |elems: &[(i64, i64)]| {
        let mut per_bank: HashMap<i64, HashSet<i64>> = HashMap::new();
        for &(r, c) in elems {
            let word = tile.offset(r + c * rows) * e / 4;
            per_bank.entry(word % 32).or_default().insert(word);
        }
        per_bank.values().map(|s| s.len() as i64).max().unwrap_or(1)
    };
    let (mut row, mut col) = (1, 1);
    let vecs = cols / v;
    for r in 0..rows {
        for g in (0..vecs).step_by(threads as usize) {
            let elems: Vec<_> = (g..(g + threads).min(vecs))
                .flat_map(|k| (0..v).map(move |x| (r, k * v + x)))
                .collect();
            row = row.max(cost(&elems));
        }
    }
    for k in 0..vecs {
        for g in (0..rows).step_by(threads as usize) {
            let elems: Vec<_> = (g..(g + threads).min(rows))
                .flat_map(|r| (0..v).map(move |x| (r, k * v + x)))
                .collect();
            col = col.max(cost(&elems));
        }
    }
    (row, col)
}

#[test]
fn reports_match_an_independent_count_and_suggestions_remove_conflicts() {
    let m = BankModel::NVIDIA_SMEM;
    for (text, e, v) in [
        ("(8,64):(64,1)", 2, 8),
        ("(16,64):(64,1)", 2, 8),
        ("(8,32):(32,1)", 4, 4),
        ("(32,32):(32,1)", 4, 1),
        ("(16,128):(128,1)", 1, 16),
        ("(8,64):(64,1)", 2, 2),
        ("(32,16):(16,1)", 2, 8),
    ] {
        let tile: DynLayout = text.parse().unwrap();
        let (rows, cols) = (
            tile.shape().mode(0).unwrap().size().unwrap(),
            tile.shape().mode(1).unwrap().size().unwrap(),
        );
        let r = bank_conflicts(&tile, e, v, m).unwrap();
        assert_eq!(
            (r.row_wise, r.column_wise),
            naive(&tile, rows, cols, e, v),
            "{text}"
        );
        let sw = suggest_swizzle(&tile, e, v, m)
            .unwrap()
            .unwrap_or_else(|| panic!("no swizzle for {text}"));
        let l = SwizzledLayout::new(sw, 0i64, tile);
        assert_eq!(naive(&l, rows, cols, e, v), (1, 1), "{text} with {sw}");
        // a bijection onto the same offsets
        let got: HashSet<i64> = (0..tile.size()).map(|i| l.offset(i)).collect();
        let want: HashSet<i64> = (0..tile.size()).map(|i| tile.offset(i)).collect();
        assert_eq!(got, want, "{text} with {sw}");
        // vectors stay contiguous: M covers the vector
        assert!(sw.is_identity() || 1 << sw.base() >= v, "{sw}");
    }
    // the reference case: the fp16 128-byte rows need the 128-byte swizzle
    let tile: DynLayout = "(8,64):(64,1)".parse().unwrap();
    assert_eq!(
        suggest_swizzle(&tile, 2, 8, m).unwrap(),
        Some(Swizzle::new(3, 3, 3).unwrap())
    );
    // already conflict-free: the identity
    let tile: DynLayout = "(1,32):(32,1)".parse().unwrap();
    assert_eq!(
        suggest_swizzle(&tile, 4, 1, m).unwrap(),
        Some(Swizzle::IDENTITY)
    );
    // 4 rows of 32 f32 read column-wise hit one bank 4 times; a 2-bit swizzle spreads them
    let tile: DynLayout = "(4,32):(32,1)".parse().unwrap();
    assert_eq!(bank_conflicts(&tile, 4, 1, m).unwrap().column_wise, 4);
    let sw = suggest_swizzle(&tile, 4, 1, m).unwrap().unwrap();
    assert_eq!(sw.bits(), 2);
    // misuse is an error
    assert!(bank_conflicts(&tile, 4, 64, m).is_err()); // longer than a row
    assert!(bank_conflicts(&tile, 0, 1, m).is_err());
    assert!(BankModel::new(0, 4).is_err());
    let r3: DynLayout = "(2,2,2)".parse().unwrap();
    assert!(bank_conflicts(&r3, 4, 1, m).is_err());
}
