use crate::*;
use layout::{SliceCoord, Tile};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn slice_and_dice_partition_the_leaves(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, Gen { negative: true, ..SMALL });
        // a coordinate at leaf level: each leaf `_` or an integer in range
        let s = l.shape_leaves().to_vec();
        let d = l.stride_leaves().to_vec();
        let under: Vec<bool> = s.iter().map(|_| rng.chance(50)).collect();
        let fixed: Vec<i64> = s.iter().map(|&x| rng.range(0, x - 1)).collect();
        let text = {
            let mut t = l.shape();
            let v = t.leaves_mut();
            v.copy_from_slice(&fixed);
            let mut txt = t.to_string();
            // replace the leaves chosen as `_`, in order
            let mut out = String::new();
            let mut k = 0;
            let b = txt.as_bytes();
            let mut i = 0;
            while i < b.len() {
                if b[i].is_ascii_digit() {
                    let j = (i..b.len()).find(|&j| !b[j].is_ascii_digit()).unwrap_or(b.len());
                    if under[k] { out.push('_'); } else { out.push_str(&txt[i..j]); }
                    k += 1;
                    i = j;
                } else {
                    out.push(b[i] as char);
                    i += 1;
                }
            }
            txt.clear();
            out
        };
        let c: SliceCoord = text.parse().unwrap();
        prop_assert_eq!(c.to_string(), text.clone());
        let (sl, off) = l.slice_and_offset(&c).unwrap();
        let want_off: i64 = (0..s.len()).filter(|&k| !under[k]).map(|k| fixed[k] * d[k]).sum();
        let all_under = under.iter().all(|&u| u);
        if l.profile().is_leaf() && all_under {
            prop_assert_eq!(sl, l);
        } else {
            prop_assert_eq!(off, want_off);
            let ks: Vec<usize> = (0..s.len()).filter(|&k| under[k]).collect();
            prop_assert_eq!(sl.shape_leaves().to_vec(), ks.iter().map(|&k| s[k]).collect::<Vec<_>>());
            prop_assert_eq!(sl.stride_leaves().to_vec(), ks.iter().map(|&k| d[k]).collect::<Vec<_>>());
            let di = l.dice(&c).unwrap();
            let kd: Vec<usize> = (0..s.len()).filter(|&k| !under[k]).collect();
            if !l.profile().is_leaf() {
                prop_assert_eq!(di.shape_leaves().to_vec(), kd.iter().map(|&k| s[k]).collect::<Vec<_>>());
            }
            // R(k) + off == L(c with _ filled)
            for i in 0..sl.size() {
                let mut rest = i;
                let mut full = fixed.clone();
                for &k in &ks {
                    full[k] = rest % s[k];
                    rest /= s[k];
                }
                let o: i64 = full.iter().zip(&d).map(|(c, d)| c * d).sum();
                prop_assert_eq!(sl.offset(i) + off, o);
            }
        }
    }
}

#[test]
fn tutorial_slicing() {
    let l = dl("(4,3):(3,1)");
    let c: SliceCoord = "(_,1)".parse().unwrap();
    assert_eq!(l.slice(&c).unwrap().to_string(), "(4):(3)");
    assert_eq!(l.slice(&SliceCoord::UNDERSCORE).unwrap(), l);
    assert_eq!(l.dice(&c).unwrap().to_string(), "(3):(1)");
    let (s, o) = l.slice_and_offset(&c).unwrap();
    assert_eq!((s.to_string(), o), ("(4):(3)".to_string(), 1));
    // nested `_` lifts into the parent
    let l = dl("(3,(2,3)):(3,(12,1))");
    let (s, o) = l.slice_and_offset(&"(1,(_,2))".parse().unwrap()).unwrap();
    assert_eq!((s.to_string(), o), ("(2):(12)".to_string(), 3 + 2));
    // an integer can stand for a sub-tuple
    let (s, o) = l.slice_and_offset(&"(_,4)".parse().unwrap()).unwrap();
    assert_eq!((s.to_string(), o), ("(3):(3)".to_string(), 2)); // 4 = (0,2) in (2,3)
    assert!(l.slice(&"(_,6)".parse().unwrap()).is_err());
}

#[test]
fn local_tile_and_partition() {
    let l = dl("(8,6):(1,8)");
    let t: Tile = "[4,3]".parse().unwrap();
    for m in 0..2 {
        for n in 0..2 {
            let (tile, off) = l
                .local_tile(&t, &DynTuple::from_slice(&[m, n]).unwrap())
                .unwrap();
            assert_eq!(tile.to_string(), "(4,3):(1,8)");
            for i in 0..4 {
                for j in 0..3 {
                    let c = DynTuple::from_slice(&[4 * m + i, 3 * n + j]).unwrap();
                    let k = DynTuple::from_slice(&[i, j]).unwrap();
                    assert_eq!(tile.offset_of(&k).unwrap() + off, l.offset_of(&c).unwrap());
                }
            }
        }
    }
    // threads (4,3) row-major: thread t owns elements (t0 + 4a, t1 + 3b)
    let thr = dl("(4,3):(3,1)");
    for tid in 0..12 {
        let (part, off) = l.local_partition(&thr, tid).unwrap();
        let (t0, t1) = (tid / 3, tid % 3);
        assert_eq!(part.to_string(), "(2,2):(4,24)");
        for a in 0..2 {
            for b in 0..2 {
                let c = DynTuple::from_slice(&[t0 + 4 * a, t1 + 3 * b]).unwrap();
                let k = DynTuple::from_slice(&[a, b]).unwrap();
                assert_eq!(part.offset_of(&k).unwrap() + off, l.offset_of(&c).unwrap());
            }
        }
    }
    assert!(l.local_partition(&thr, 12).is_err());
}
