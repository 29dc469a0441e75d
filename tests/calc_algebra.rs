//! The layout calculator's algebra functions, against CuTe's documented examples (the layout
//! algebra tutorial and docs, as collected in cute-algebra.md §6), the unsound CuTe cases that must
//! be refused, and the defining properties of the inverses checked here, independently.

use layout::DynLayout;

mod calc_support;
use calc_support::{check, run};

#[test]
fn coalesce_and_filter() {
    check(&[
        ("coalesce((2,(1,6)):(1,(6,2)))", "12:1"),
        ("coalesce((2,(1,6)):(1,(6,2)), (1,1))", "(2,6):(1,2)"),
        ("coalesce((2,2):(0,0))", "4:0"),
        ("filter((2,1,3):(0,5,2))", "3:2"),
    ]);
}

#[test]
fn composition_tutorial_examples() {
    check(&[
        (
            "composition((6,2):(8,2), (4,3):(3,1))",
            "((2,2),3):((24,2),8)",
        ),
        ("composition(20:2, (5,4):(4,1))", "(5,4):(8,2)"),
        (
            "composition((10,2):(16,4), (5,4):(1,5))",
            "(5,(2,2)):(16,(80,4))",
        ),
        (
            "composition((12,(4,8)):(59,(13,1)), [3:4, 8:2])",
            "(3,(2,4)):(236,(26,1))",
        ),
        (
            "composition((12,(4,8)):(59,(13,1)), [3, 8])",
            "(3,(4,2)):(59,(13,1))",
        ),
        // a swizzled layout composes through its inner layout: Sw o K o (A ∘ B)
        (
            "composition(Sw<3,3,3> o (8,64):(64,1), [4,8])",
            "Sw<3,3,3> o 0 o (4,8):(64,1)",
        ),
    ]);
}

#[test]
fn composition_refuses_cutes_unsound_cases() {
    check(&[
        // cutlass#3177: C++ returns (_2,_2):(_4,_10), but A(B(2)) = A(8) = 12, not 10
        (
            "composition((6,2):(1,10), 4:4)",
            "error: composition is not admissible…",
        ),
        // cutlass#3177: C++ returns (_2,_3):(_6,_3)
        (
            "composition((4,6,8):(2,3,5), 6:3)",
            "error: composition is not admissible…",
        ),
        // cutlass#2955: C++ and pycute return (3,2):(2,3), but R(2,1) = 7 and A(7) = 8
        (
            "composition((6,2):(1,7), (3,2):(2,3))",
            "error: composition is not admissible…",
        ),
    ]);
}

#[test]
fn complement_documented_examples() {
    check(&[
        ("complement(4:1, 24)", "6:4"),
        ("complement(6:4, 24)", "4:1"),
        ("complement((4,6):(1,4), 24)", "1:0"),
        ("complement(4:2, 24)", "(2,3):(1,8)"),
        ("complement((2,4):(1,6), 24)", "3:2"),
        ("complement((2,2):(1,6), 24)", "(3,2):(2,12)"),
        ("complement(4:0, 8)", "8:1"),
        ("complement(4:2, (4,6))", "(2,3):(1,8)"),
        // not injective: an error, not a layout (pycute returns 0:2)
        ("complement((2,2):(1,1))", "error: …"),
    ]);
}

#[test]
fn divides_documented_examples() {
    check(&[
        (
            "logical_divide((4,2,3):(2,1,8), 4:2)",
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "logical_divide((9,(4,8)):(59,(13,1)), [3:3, (2,4):(1,8)])",
            "((3,3),((2,4),(2,2))):((177,59),((13,2),(26,1)))",
        ),
        // cutlass#2545: a layout tiler is 1-D, a tiler [4,8] is by mode
        (
            "logical_divide((12,32):(1,12), (4,8):(1,4))",
            "((4,8),12):((1,4),32)",
        ),
        (
            "zipped_divide((12,32):(1,12), [4,8])",
            "((4,8),(3,4)):((1,12),(4,96))",
        ),
        ("flat_divide((12,32), [4,8])", "(4,8,3,4):(1,12,4,96)"),
        // `_` keeps a mode: mode 1 is 6:8 ⊘ 2:1 = (2,3):(8,16)
        ("logical_divide((8,6), [_, 2])", "(8,(2,3)):(1,(8,16))"),
        // a tile that does not divide (C++ returns a wrong layout, pycute asserts)
        ("logical_divide((3,4):(1,5), 2:1)", "error: …"),
    ]);
}

#[test]
fn products_documented_examples() {
    check(&[
        (
            "logical_product((2,2):(4,1), 6:1)",
            "((2,2),(2,3)):((4,1),(2,8))",
        ),
        (
            "blocked_product((2,5):(5,1), (3,4):(1,3))",
            "((2,3),(5,4)):((5,10),(1,30))",
        ),
        (
            "raked_product((2,5):(5,1), (3,4):(1,3))",
            "((3,2),(4,5)):((10,5),(30,1))",
        ),
    ]);
}

#[test]
fn slicing_and_the_rest() {
    check(&[
        // L2 = (4,3):(3,1): L2(_,1) is (4):(3) at offset 1
        ("slice_and_offset((4,3):(3,1), (_,1))", "(4):(3) + 1"),
        ("slice((4,3):(3,1), (_,1))", "(4):(3)"),
        ("max_common_vector((4,8):(1,4), (4,8):(1,8))", "4"),
        ("nullspace((2,3,4):(0,1,0))", "(2,4):(1,6)"),
        ("upcast((4,8):(1,4), 2)", "(2,8):(1,2)"),
        ("downcast((4,8):(1,4), 2)", "(8,8):(1,8)"),
        ("size(composition((6,2):(8,2), (4,3):(3,1)))", "12"),
        (
            "coalesce(1, 2, 3)",
            "error: `coalesce` takes 1 or 2 arguments, 3 given",
        ),
    ]);
}

/// Every argument kind of the table of operations has one rule and one message, the same as
/// `layout!`'s (tests/ui/macro-algebra).
#[test]
fn argument_kinds_follow_the_table() {
    check(&[
        (
            "blocked_product((2,2):(1,2), [2,2])",
            "error: argument 2 of `blocked_product` must be a layout, not a tiler",
        ),
        (
            "upcast((4,8):(1,4), (2,2))",
            "error: argument 2 of `upcast` must be an integer",
        ),
        (
            "complement(4:2, 4:1)",
            "error: argument 2 of `complement` must be a cotarget: an integer or a shape",
        ),
        (
            "coalesce((2,(1,6)):(1,(6,2)), 2:1)",
            "error: argument 2 of `coalesce` must be a profile such as (1,1)",
        ),
        (
            "flat_divide((12,32), (4,8))",
            "error: argument 2 of `flat_divide`: a bare shape (4,8) is ambiguous as a tiler; write `[4,8]` for a by-mode tiler or `(4,8):(1,4)` for a 1-D layout",
        ),
        // an integer tiler is the 1-D layout N:1; a bare shape is a layout where one is expected
        ("logical_divide(8:1, 4)", "(4,2):(1,4)"),
        ("coalesce((2,4))", "8:1"),
        // a nested call's integer is an integer argument
        (
            "upcast((4,8):(1,4), max_common_vector(2:1, 2:1))",
            "(2,8):(1,2)",
        ),
        (
            "composition(1, 2, 3)",
            "error: `composition` takes 2 arguments, 3 given",
        ),
    ]);
}

/// Inverses are compared by their defining property, not by their text (CuTe C++ and pycute
/// print different, equally valid inverses).
#[test]
fn inverses_satisfy_their_definitions() {
    let layouts = [
        "(4,8):(8,1)",
        "4:2",
        "(3,(2,3)):(3,(12,1))",
        "(2,2):(0,1)",
        "((2,3),(2,4)):((1,4),(2,12))",
        "(8,4):(1,16)",
    ];
    let input: String = layouts
        .iter()
        .map(|l| format!("right_inverse({l})\nleft_inverse({l})\n"))
        .collect();
    let out = run(&input);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2 * layouts.len(), "{out}");
    for (k, l) in layouts.iter().enumerate() {
        let l: DynLayout = l.parse().unwrap();
        let r: DynLayout = lines[2 * k].parse().expect(lines[2 * k]);
        for i in 0..r.size() {
            assert_eq!(l.offset(r.offset(i)), i, "L(R(i)) for right_inverse of {l}");
        }
        let injective = (0..l.size()).all(|i| (0..i).all(|j| l.offset(i) != l.offset(j)));
        if injective {
            let li: DynLayout = lines[2 * k + 1].parse().expect(lines[2 * k + 1]);
            for i in 0..l.size() {
                assert_eq!(li.offset(l.offset(i)), i, "R(L(i)) for left_inverse of {l}");
            }
        }
    }
}
