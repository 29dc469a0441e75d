use crate::*;
use layout::LayoutError;
use proptest::prelude::*;

fn check_complement(l: &DynLayout, r: &DynLayout, m: Option<i64>) -> Result<(), TestCaseError> {
    let f = l.filter();
    let img = image(&f);
    let ro = offsets(r);
    for i in 1..ro.len() {
        prop_assert!(
            ro[i - 1] < ro[i],
            "complement {} of {} is not ordered",
            r,
            l
        );
        prop_assert!(
            !img.contains(&ro[i]),
            "complement {} of {} hits L at {}",
            r,
            l,
            ro[i]
        );
    }
    let both = DynLayout::make_layout(&[f, *r]).unwrap();
    prop_assert!(injective(&both), "({}, {}) is not injective", f, r);
    if let Some(m) = m {
        let all = image(&both);
        prop_assert!(
            (0..m).all(|x| all.contains(&x)),
            "({}, {}) does not cover [0,{})",
            f,
            r,
            m
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn complement_is_ordered_disjoint_and_covering(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, SMALL);
        let m = rng.range(1, 2 * l.cosize() + 8);
        match l.complement(m) {
            Ok(r) => {
                check_complement(&l, &r, Some(m))?;
            }
            Err(LayoutError::NotInjective { .. }) => {
                prop_assert!(!injective(&l.filter()), "{} reported non-injective", l);
            }
            Err(LayoutError::Precondition { .. }) => {
                // injective but its image is not a product of strided ranges: check that the
                // sorted strides indeed break divisibility
                let f = l.filter();
                let mut modes: Vec<(i64, i64)> = f.shape_leaves().iter().copied()
                    .zip(f.stride_leaves().iter().copied()).collect();
                modes.sort_by_key(|m| m.1);
                let mut span = 1;
                let mut broken = false;
                for (s, d) in modes {
                    if d % span != 0 { broken = true; }
                    span = s * d;
                }
                prop_assert!(broken, "{} refused without reason", l);
            }
            Err(e) => prop_assert!(false, "unexpected error {}", e),
        }
    }

    #[test]
    fn complement_shape_covers(seed in any::<u64>()) {
        let mut rng = Seeded(seed);
        let l = layout(&mut rng, SMALL);
        let shape = DynTuple::from_slice(&[rng.range(1, 8), rng.range(1, 8)]).unwrap();
        if let Ok(r) = l.complement_shape(&shape) {
            // the rest is ceil_div(shape, span) leaf by leaf, which covers the first leaf's
            // multiple but not always size(shape) (CuTe's semantics)
            check_complement(&l, &r, None)?;
        }
    }
}

#[test]
fn tutorial_complement() {
    let cases = [
        ("4:1", 24, "6:4"),
        ("6:4", 24, "4:1"),
        ("(4,6):(1,4)", 24, "1:0"),
        ("4:2", 24, "(2,3):(1,8)"),
        ("(2,4):(1,6)", 24, "3:2"),
        ("(2,2):(1,6)", 24, "(3,2):(2,12)"),
        ("4:0", 8, "8:1"),
    ];
    for (l, m, want) in cases {
        assert_eq!(
            dl(l).complement(m).unwrap().to_string(),
            want,
            "complement({l}, {m})"
        );
    }
    assert_eq!(
        dl("4:2")
            .complement_shape(&dt("(4,6)"))
            .unwrap()
            .to_string(),
        "(2,3):(1,8)"
    );
}

#[test]
fn non_injective_complement_is_an_error() {
    assert_eq!(
        dl("(2,2):(1,1)").complement(4),
        Err(LayoutError::NotInjective { offset: 1 })
    );
    // CuTe floors silently here; the image {0,1,3,4,6,7} has no complement
    assert!(dl("(2,3):(1,3)").complement(9).is_err());
}
