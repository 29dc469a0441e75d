//! Tests of the packed layer against the published test vectors and naive references.

use super::*;
use alloc::string::ToString;
use alloc::vec::Vec;

fn all_formats() -> Vec<PackedFormat> {
    let mut v = Vec::new();
    for bits in [1, 2, 4] {
        for wb in [8, 32] {
            v.push(PackedFormat::sequential(bits, wb).unwrap());
        }
    }
    v.push(PackedFormat::awq());
    v.push(PackedFormat::q4_0());
    v.push(PackedFormat::new(4, 8, PackOrder::Halves { block: 6 }).unwrap());
    v
}

#[test]
fn gptq_and_awq_words() {
    let vals: Vec<u8> = (0..8).collect();
    let g = PackedVec::from_values(PackedFormat::gptq(), &vals).unwrap();
    assert_eq!(g.to_words().unwrap(), [0x7654_3210]);
    let a = PackedVec::from_values(PackedFormat::awq(), &vals).unwrap();
    assert_eq!(a.to_words().unwrap(), [0x7531_6420]);
    // AWQ's unpacking order (AWQ_REVERSE_ORDER) reads logical j from nibble slot rev[j]
    let rev = [0usize, 4, 1, 5, 2, 6, 3, 7];
    let w = 0x7531_6420u32;
    for (j, &s) in rev.iter().enumerate() {
        assert_eq!((w >> (4 * s)) & 0xf, j as u32);
    }
}

#[test]
fn q4_0_block_vector() {
    // reference §5.2: q = [0..15, 15..0] packs to f0 e1 d2 c3 b4 a5 96 87 78 69 5a 4b 3c 2d 1e 0f
    let q: Vec<u8> = (0..16).chain((0..16).rev()).collect();
    let v = PackedVec::from_values(PackedFormat::q4_0(), &q).unwrap();
    let want = [
        0xf0, 0xe1, 0xd2, 0xc3, 0xb4, 0xa5, 0x96, 0x87, 0x78, 0x69, 0x5a, 0x4b, 0x3c, 0x2d, 0x1e,
        0x0f,
    ];
    assert_eq!(v.as_bytes(), want);
    // ggml's dequantize_row_q4_0 reading: x[j] = qs[j] & 0xf, x[j+16] = qs[j] >> 4
    for (j, &byte) in want.iter().enumerate() {
        assert_eq!(v.get(j).unwrap(), byte & 0xf);
        assert_eq!(v.get(j + 16).unwrap(), byte >> 4);
    }
}

#[test]
fn bit_layout_matches_closed_form_and_is_a_bijection_on_slots() {
    for f in all_formats() {
        for len in [1usize, 5, 8, 31, 32, 33, 70] {
            let l = f.bit_layout(len).unwrap();
            let n = f.padded_len(len).unwrap();
            assert_eq!(l.size() as usize, n, "{f:?} {len}");
            assert_eq!(
                f.storage_bytes(len).unwrap() * 8,
                n * f.bits() as usize,
                "{f:?}"
            );
            let mut seen = alloc::vec![false; n];
            let s = f.slot_layout(len).unwrap();
            for i in 0..n {
                let b = l.offset(i as i64) as usize;
                assert_eq!(b, f.bit_offset(i), "{f:?} element {i}");
                assert_eq!(b % f.bits() as usize, 0);
                assert_eq!(s.offset(i as i64) as usize * f.bits() as usize, b);
                let slot = b / f.bits() as usize;
                assert!(slot < n && !seen[slot], "{f:?} slot {slot} twice");
                seen[slot] = true;
            }
        }
    }
}

#[test]
fn get_set_against_a_bit_array() {
    // naive reference: one bool per bit, element i's bits at bit_offset(i)
    let mut state = 0x1234_5678u32;
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        state
    };
    for f in all_formats() {
        let len = 45;
        let mut v = PackedVec::zeroed(f, len).unwrap();
        let mut bits = alloc::vec![false; v.as_bytes().len() * 8];
        for _ in 0..200 {
            let i = rnd() as usize % len;
            let x = (rnd() % (1 << f.bits())) as u8;
            v.set(i, x).unwrap();
            for b in 0..f.bits() as usize {
                bits[f.bit_offset(i) + b] = x >> b & 1 == 1;
            }
            for (k, byte) in v.as_bytes().iter().enumerate() {
                let mut want = 0u8;
                for b in 0..8 {
                    want |= u8::from(bits[8 * k + b]) << b;
                }
                assert_eq!(*byte, want, "{f:?}");
            }
        }
    }
}

#[test]
fn refusals_name_the_rule_and_numbers() {
    let mut v = PackedVec::zeroed(PackedFormat::gptq(), 8).unwrap();
    assert_eq!(
        v.set(2, 16).unwrap_err().to_string(),
        "packed set: value 16 at index 2 does not fit in 4 bits (largest is 15)"
    );
    assert_eq!(v.get(2), Ok(0), "a refused set writes nothing");
    assert_eq!(
        PackedVec::from_values(PackedFormat::sequential(1, 8).unwrap(), &[1, 0, 2])
            .unwrap_err()
            .to_string(),
        "packed from values: value 2 at index 2 does not fit in 1 bits (largest is 1)"
    );
    assert_eq!(
        PackedVec::from_bytes(PackedFormat::q4_0(), 32, alloc::vec![0; 15])
            .unwrap_err()
            .to_string(),
        "packed from bytes: byte buffer has length 15, expected 16"
    );
    assert!(matches!(
        PackedFormat::new(4, 8, PackOrder::Halves { block: 7 }),
        Err(PackedError::BadBlock { block: 7, .. })
    ));
    assert!(matches!(
        PackedFormat::sequential(4, 16),
        Err(PackedError::UnsupportedWord { word_bits: 16, .. })
    ));
    assert!(matches!(
        PackedVec::zeroed(PackedFormat::awq(), 0),
        Err(PackedError::Empty { .. })
    ));
    assert!(matches!(
        PackedVec::zeroed(PackedFormat::awq(), usize::MAX),
        Err(PackedError::Overflow { .. })
    ));
    let e = PackedVec::zeroed(PackedFormat::awq(), 8)
        .unwrap()
        .repack(PackedFormat::sequential(2, 32).unwrap())
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "packed repack: element widths differ (4 bits to 2 bits)"
    );
}

#[test]
fn repack_between_every_pair_by_brute_force() {
    let fs = all_formats();
    for &a in &fs {
        for &b in &fs {
            if a.bits() != b.bits() {
                continue;
            }
            for len in [8usize, 13, 32, 64] {
                let vals: Vec<u8> = (0..len)
                    .map(|i| ((i * 7 + 3) % (1 << a.bits())) as u8)
                    .collect();
                let src = PackedVec::from_values(a, &vals).unwrap();
                let dst = src.repack(b).unwrap();
                assert_eq!(dst.format(), b);
                assert_eq!(dst, src.repack_by_offsets(b).unwrap());
                for (i, &x) in vals.iter().enumerate() {
                    assert_eq!(dst.get(i).unwrap(), x, "{a:?} -> {b:?}, len {len}, i {i}");
                }
                if let Some(m) = repack_map(a, b, len).unwrap() {
                    // the algebra's permutation: dst slot k <- src slot m(k)
                    let n = a.padded_len(len).unwrap();
                    for i in 0..n {
                        let k = b.bit_offset(i) / b.bits() as usize;
                        let s = a.bit_offset(i) / a.bits() as usize;
                        assert_eq!(m.offset(k as i64) as usize, s, "{a:?} -> {b:?}");
                    }
                }
            }
        }
    }
}

#[test]
fn awq_to_gptq_goes_through_the_algebra() {
    for len in [8usize, 64, 1024] {
        let m = repack_map(PackedFormat::awq(), PackedFormat::gptq(), len).unwrap();
        assert!(m.is_some(), "len {len}");
        let m = repack_map(PackedFormat::gptq(), PackedFormat::awq(), len).unwrap();
        assert!(m.is_some(), "len {len}");
    }
    // long enough for the shuffle path (whole 64-byte vectors) and a tail: against the
    // closed-form offsets, element by element, both ways
    for len in [8 * 200 + 24, 8 * 17] {
        let vals: Vec<u8> = (0..len).map(|i| ((i * 7 + i / 13) % 16) as u8).collect();
        let awq = PackedVec::from_values(PackedFormat::awq(), &vals).unwrap();
        let gptq = awq.repack(PackedFormat::gptq()).unwrap();
        assert_eq!(gptq, awq.repack_by_offsets(PackedFormat::gptq()).unwrap());
        assert_eq!(gptq.to_values(), vals);
        let back = gptq.repack(PackedFormat::awq()).unwrap();
        assert_eq!(back, awq);
    }
    let vals: Vec<u8> = (0..64).map(|i| (i % 16) as u8).collect();
    let awq = PackedVec::from_values(PackedFormat::awq(), &vals).unwrap();
    let words = awq
        .repack(PackedFormat::gptq())
        .unwrap()
        .to_words()
        .unwrap();
    for (w, chunk) in words.iter().zip(vals.chunks(8)) {
        let want = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (j, &v)| acc | u32::from(v) << (4 * j));
        assert_eq!(*w, want);
    }
}

#[test]
fn e2m1_table() {
    // sign · 2^(e−1) · (1 + m/2) for e > 0, sign · m/2 for e = 0
    for code in 0u8..16 {
        let s = if code & 8 != 0 { -1.0f32 } else { 1.0 };
        let e = i32::from((code >> 1) & 3);
        let m = f32::from(code & 1);
        let want = if e == 0 {
            s * m * 0.5
        } else {
            s * (1.0 + m / 2.0) * libm_pow2(e - 1)
        };
        assert_eq!(e2m1_to_f32(code).unwrap(), want, "code {code}");
    }
}

fn libm_pow2(e: i32) -> f32 {
    (0..e).fold(1.0, |a, _| a * 2.0)
}

/// AWQ layout written out as AutoAWQ does: `qweight[k][n/8]` with slot `s` holding column
/// `8·(n/8) + AWQ_ORDER[s]`; zeros the same over `[K/G][N/8]`.
fn awq_pack(q: &[Vec<u8>]) -> Vec<u32> {
    let k = q.len();
    let n = q[0].len();
    let mut out = alloc::vec![0u32; k * n / 8];
    for r in 0..k {
        for w in 0..n / 8 {
            for (s, &j) in AWQ_ORDER.iter().enumerate() {
                out[r * (n / 8) + w] |= u32::from(q[r][8 * w + j]) << (4 * s);
            }
        }
    }
    out
}

/// The fast path is taken: both bit layouts compose with the data/metadata layouts, and the
/// composition gives each element's bit offset.
fn assert_composes(w: &PackedVec, z: &PackedVec, q: &GroupQuant) {
    for (v, l) in [(w, q.data_layout()), (z, &q.meta_layout())] {
        // `dequantize` walks the layouts with their modes swapped (row-major output order)
        let l = &l.select(&[1, 0]).unwrap();
        let c = v
            .format()
            .bit_layout(v.len())
            .unwrap()
            .composition(l)
            .unwrap();
        for i in 0..l.size() {
            assert_eq!(
                c.offset(i) as usize,
                v.format().bit_offset(l.offset(i) as usize)
            );
        }
    }
}

#[test]
fn dequantize_awq_against_the_formula() {
    let (k, n, g) = (16usize, 16usize, 4usize);
    let q: Vec<Vec<u8>> = (0..k)
        .map(|r| (0..n).map(|c| ((r * 5 + c * 3) % 16) as u8).collect())
        .collect();
    let z: Vec<Vec<u8>> = (0..k / g)
        .map(|r| (0..n).map(|c| ((r + 2 * c) % 16) as u8).collect())
        .collect();
    let s: Vec<f32> = (0..k / g * n).map(|i| 0.25 * (i % 7 + 1) as f32).collect();
    let w = PackedVec::from_words(PackedFormat::awq(), k * n, &awq_pack(&q)).unwrap();
    let zp = PackedVec::from_words(PackedFormat::awq(), k / g * n, &awq_pack(&z)).unwrap();
    let quant = GroupQuant::awq(k, n, g).unwrap();
    let out = dequantize(&w, &s, &zp, &quant).unwrap();
    assert_eq!(out, dequantize_with(&w, &s, &zp, &quant, false).unwrap());
    assert_composes(&w, &zp, &quant);
    for r in 0..k {
        for c in 0..n {
            let want = (f32::from(q[r][c]) - f32::from(z[r / g][c])) * s[(r / g) * n + c];
            assert_eq!(out[r * n + c], want, "({r},{c})");
        }
    }
}

#[test]
fn dequantize_gptq_against_the_formula() {
    let (k, n, g) = (32usize, 8usize, 16usize);
    let q: Vec<Vec<u8>> = (0..k)
        .map(|r| (0..n).map(|c| ((r * 3 + c * 11) % 16) as u8).collect())
        .collect();
    // zeros in 1..=15 so that GPTQ's stored `zero - 1` fits
    let z: Vec<Vec<u8>> = (0..k / g)
        .map(|r| (0..n).map(|c| ((r * 7 + c) % 15 + 1) as u8).collect())
        .collect();
    let s: Vec<f32> = (0..k / g * n).map(|i| 0.5 * (i % 5 + 1) as f32).collect();
    // AutoGPTQ: qweight[k/8][n] |= q[k][n] << 4·(k%8); qzeros[g][n/8] |= (z−1) << 4·(n%8)
    let mut qw = alloc::vec![0u32; k / 8 * n];
    for r in 0..k {
        for c in 0..n {
            qw[(r / 8) * n + c] |= u32::from(q[r][c]) << (4 * (r % 8));
        }
    }
    let mut qz = alloc::vec![0u32; k / g * n / 8];
    for r in 0..k / g {
        for c in 0..n {
            qz[r * (n / 8) + c / 8] |= u32::from(z[r][c] - 1) << (4 * (c % 8));
        }
    }
    let w = PackedVec::from_words(PackedFormat::gptq(), k * n, &qw).unwrap();
    let zp = PackedVec::from_words(PackedFormat::gptq(), k / g * n, &qz).unwrap();
    let quant = GroupQuant::gptq(k, n, g).unwrap();
    let out = dequantize(&w, &s, &zp, &quant).unwrap();
    assert_eq!(out, dequantize_with(&w, &s, &zp, &quant, false).unwrap());
    assert_composes(&w, &zp, &quant);
    for r in 0..k {
        for c in 0..n {
            let want = (f32::from(q[r][c]) - f32::from(z[r / g][c])) * s[(r / g) * n + c];
            assert_eq!(out[r * n + c], want, "({r},{c})");
        }
    }
}

#[test]
fn dequantize_refuses_mismatched_buffers() {
    let quant = GroupQuant::awq(8, 8, 4).unwrap();
    let w = PackedVec::zeroed(PackedFormat::awq(), 64).unwrap();
    let z = PackedVec::zeroed(PackedFormat::awq(), 16).unwrap();
    assert_eq!(
        dequantize(&w, &[1.0; 15], &z, &quant)
            .unwrap_err()
            .to_string(),
        "packed dequantize: scales has length 15, expected 16"
    );
    let short = PackedVec::zeroed(PackedFormat::awq(), 56).unwrap();
    assert_eq!(
        dequantize(&short, &[1.0; 16], &z, &quant)
            .unwrap_err()
            .to_string(),
        "packed dequantize: the data layout reaches element indices [0, 63] but the packed \
         vector has 56 elements"
    );
    // a broadcast data layout far larger than memory: an error, not an allocation panic
    let huge: DynLayout = "(576460752303423488,8):(0,1)".parse().unwrap();
    let q = GroupQuant::new(huge, 1 << 59, 0).unwrap();
    let w8 = PackedVec::zeroed(PackedFormat::awq(), 8).unwrap();
    let z8 = PackedVec::zeroed(PackedFormat::awq(), 8).unwrap();
    assert!(matches!(
        dequantize(&w8, &[1.0; 8], &z8, &q),
        Err(PackedError::Allocation { .. })
    ));
    let d: DynLayout = "(2,2,2):(4,2,1)".parse().unwrap();
    assert!(matches!(
        GroupQuant::new(d, 1, 0),
        Err(PackedError::NotRank2 { rank: 3, .. })
    ));
}

#[test]
fn odometer_matches_offset() {
    for text in ["(2,4,3):(16,4,32)", "((2,3),(4,1)):((1,-2),(7,0))", "5:3"] {
        let l: DynLayout = text.parse().unwrap();
        let mut n = 0;
        for_each_offset(&l, |k, off| {
            assert_eq!(off, l.offset(k as i64), "{text} index {k}");
            n += 1;
        });
        assert_eq!(n, l.size());
    }
}

#[test]
fn word_permutation_from_the_algebra() {
    let m = repack_map(PackedFormat::awq(), PackedFormat::gptq(), 64)
        .unwrap()
        .unwrap();
    assert_eq!(
        word_permutation(&m, 8).unwrap(),
        alloc::vec![0, 4, 1, 5, 2, 6, 3, 7]
    );
    let m = repack_map(PackedFormat::gptq(), PackedFormat::awq(), 8)
        .unwrap()
        .unwrap();
    assert_eq!(
        word_permutation(&m, 8).unwrap(),
        alloc::vec![0, 2, 4, 6, 1, 3, 5, 7]
    );
    // Q4_0 -> fp4x2 moves nibbles across bytes: no per-byte permutation
    let m = repack_map(PackedFormat::q4_0(), PackedFormat::fp4x2(), 32)
        .unwrap()
        .unwrap();
    assert_eq!(word_permutation(&m, 2), None);
}

/// The direct check on the map's modes agrees with the algebra's `logical_divide` definition:
/// on every repack map between formats of one width (several lengths, every slot count per word
/// that divides the map), and on random flat layouts (permutations of modes with random
/// extents), including ones where a word boundary falls inside a mode.
#[test]
fn word_permutation_agrees_with_logical_divide() {
    let fs = all_formats();
    let mut checked = 0;
    for &a in &fs {
        for &b in &fs {
            if a.bits() != b.bits() {
                continue;
            }
            for len in [8usize, 16, 32, 64, 96] {
                let Ok(Some(m)) = repack_map(a, b, len) else {
                    continue;
                };
                for e in [1usize, 2, 4, 8, 16, 32] {
                    assert_eq!(
                        word_permutation(&m, e),
                        word_permutation_by_divide(&m, e),
                        "{a:?} -> {b:?} len {len} e {e}: {m}"
                    );
                    checked += 1;
                }
            }
        }
    }
    let mut found = 0;
    let mut seed = 5u64;
    let mut next = |n: u64| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    for _ in 0..2000 {
        // a compact layout: random extents, their strides in a random order
        let r = 1 + next(4) as usize;
        let ext: Vec<i64> = (0..r)
            .map(|_| [1, 2, 3, 4, 6, 8][next(6) as usize])
            .collect();
        let mut order: Vec<usize> = (0..r).collect();
        for i in (1..r).rev() {
            order.swap(i, next(i as u64 + 1) as usize);
        }
        let mut st = alloc::vec![0i64; r];
        let mut acc = 1;
        for &j in &order {
            st[j] = acc;
            acc *= ext[j];
        }
        let shape = crate::DynTuple::from_slice(&ext).unwrap();
        let stride = crate::DynTuple::from_slice(&st).unwrap();
        let m = DynLayout::new(&shape, &stride).unwrap();
        for e in [1usize, 2, 3, 4, 6, 8, 12] {
            let got = word_permutation(&m, e);
            assert_eq!(got, word_permutation_by_divide(&m, e), "{m} e {e}");
            checked += 1;
            // a permutation other than the identity, found on a layout of several words
            found += usize::from(
                got.is_some_and(|p| p.iter().enumerate().any(|(k, &q)| q as usize != k))
                    && m.size() > e as i64,
            );
        }
    }
    assert!(
        checked > 1000 && found > 20,
        "{checked} checked, {found} non-trivial"
    );
}

#[test]
fn dequantize_odd_shapes_take_either_path_correctly() {
    // N = 4 is not a whole AWQ word per row: the composition may be refused; results must
    // still follow the formula, with and without the composed layouts
    for (k, n, g) in [(4usize, 4usize, 2usize), (6, 12, 3), (2, 8, 1)] {
        let q: Vec<u8> = (0..k * n).map(|i| (i * 7 % 16) as u8).collect();
        let z: Vec<u8> = (0..k / g * n).map(|i| (i * 3 % 16) as u8).collect();
        let s: Vec<f32> = (0..k / g * n).map(|i| (i + 1) as f32).collect();
        for f in [
            PackedFormat::awq(),
            PackedFormat::gptq(),
            PackedFormat::q4_0(),
        ] {
            let w = PackedVec::from_values(f, &q).unwrap();
            let zp = PackedVec::from_values(f, &z).unwrap();
            let quant = GroupQuant::awq(k, n, g).unwrap();
            for compose in [true, false] {
                let out = dequantize_with(&w, &s, &zp, &quant, compose).unwrap();
                for r in 0..k {
                    for c in 0..n {
                        let m = (r / g) * n + c;
                        let want = (f32::from(q[r * n + c]) - f32::from(z[m])) * s[m];
                        assert_eq!(out[r * n + c], want, "{f:?} ({r},{c}) compose {compose}");
                    }
                }
            }
        }
    }
}
