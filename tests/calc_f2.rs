//! The calculator's F2 functions, run as a user runs them. Expected outputs are worked out by
//! hand in the comments.

mod calc_support;
use calc_support::{check, run};

#[test]
fn f2_layouts_in_the_calculator() {
    check(&[
        // Sw<3,3,3>: bit i ↦ 2^i, except bits 6..9 which also set bits 3..6: 64+8, 128+16, 256+32
        (
            "f2_swizzle(3,3,3; 9)",
            "{offset:[1,2,4,8,16,32,72,144,288]} -> {offset:512}",
        ),
        // x0 ↦ 1, x1 ↦ 3: y = 1 comes from x = 1, y = 2 = 3 ^ 1 from x = 2 + 1 = 3
        ("f2_invert({x:[1,3]} -> {y:4})", "{y:[1,3]} -> {x:4}"),
        // B: i ↦ 1, 3; A swaps the two bits: 1 ↦ 2, 3 ↦ 3
        (
            "f2_compose({x:[2,1]} -> {y:4}; {i:[1,3]} -> {x:4})",
            "{i:[2,3]} -> {y:4}",
        ),
        ("f2_rank({x:[1,2,3]} -> {y:4})", "2"),
        ("f2_injective({x:[1,2,3]} -> {y:4})", "false"),
        ("f2_surjective({x:[1,2,3]} -> {y:4})", "true"),
        // reg 1 ↦ (0,1); lane 5 ↦ (1,0) ^ (0,2)
        (
            "f2_apply({reg:[(0,1)],lane:[(1,0),(2,0),(0,2)]} -> {row:4,col:4}; 1,5)",
            "(1,3)",
        ),
        (
            "f2_vector_width({reg:[1,2,8],lane:[4,16]} -> {o:32}; reg)",
            "4",
        ),
        // span{1, 12}: 2 and 4 are new, then 8 = 12 ^ 4 is spanned
        (
            "f2_complement({x:[1,12]} -> {y:16})",
            "{rest:[2,4]} -> {y:16}",
        ),
        (
            "f2_direct_sum({reg:[1,2]} -> {col:4}; {lane:[1]} -> {row:2})",
            "{reg:[(1,0),(2,0)],lane:[(0,1)]} -> {col:4,row:2}",
        ),
        // (4,8):(8,1): index bits ↦ 8, 16, then 1, 2, 4
        (
            "f2_from_layout((4,8):(8,1))",
            "{index:[8,16,1,2,4]} -> {offset:32}",
        ),
        (
            "f2_from_layout((2,2):(1,1))",
            "error: not F2-linear: the images 1 and 1 of two index bits share bits, so 1 + 1 != 1 xor 1",
        ),
        ("f2_offsets({x:[1,3]} -> {y:4})", "[0,1,3,2]"),
        (
            "f2_compose({x:[1]} -> {y:2})",
            "error: `f2_compose` takes 2 arguments separated by `;`, found 1",
        ),
        (
            "f2_invert({x:[1,1]} -> {y:4})",
            "error: not invertible: 2 input bits, 2 output bits, rank 1 over GF(2)",
        ),
        // the ordinary functions still work
        ("size((2,3):(1,2))", "6"),
    ]);
}

#[test]
fn mixed_layouts_in_the_calculator() {
    check(&[
        // c0 = i mod 4 XORs the bases 1, 3: 0,1,3,2; c1 = i / 4 XORs c1 ⊗ 4 = 4·c1
        ("mixed_offsets((4,2):(F[1,3],F4))", "[0,1,3,2,4,5,7,6]"),
        // PyCuTe's text: `F2` is the F2 value 2, c ⊗ 2 = 2c
        ("mixed(8:F2)", "8:F2"),
        ("mixed_offsets(8:F2)", "[0,2,4,6,8,10,12,14]"),
        // the bases 1, 2, 4 are those of the value 1
        ("mixed(8:F2[1,2,4])", "8:F1"),
        // Sw<1,0,2>: bit 2 also sets bit 0: bases 1, 2, 5, 8
        (
            "mixed_swizzled((4,4):(1,5); 1,0,2)",
            "(4,4):(1,5) o {index:[1,2,5,8]} -> {index:16}",
        ),
        // rows padded to 9: images 9, 18, 36 of the row bits, then 1 overlaps 9
        (
            "mixed_to_f2((8,8):(9,1))",
            "error: not F2-linear: the images 9 and 1 of two index bits share bits, so 9 + 1 != 9 xor 1",
        ),
        (
            "mixed_to_f2((8,8):(F8,F1))",
            "{index:[8,16,32,1,2,4]} -> {offset:64}",
        ),
        ("mixed_complement(4:2; 16)", "(2,2):(1,8)"),
        // PyCuTe-2026's F2 strides through the general functions
        ("(8,8):(F1,F9)", "(8,8):(F1,F9)"),
        ("(8, 8):(F2(1), F2(9))", "(8,8):(F1,F9)"),
        ("size((8,8):(F1,F9))", "64"),
        // 4:F3 reaches 3 ⊗ 3 = 5 and 2 ⊗ 3 = 6: three bits
        ("cosize(4:F3)", "8"),
        // index 9 = (1, 1): 1 XOR 9 = 8; index 10 = (2, 1): 2 XOR 9 = 11
        ("eval((8,8):(F1,F9), 9)", "8"),
        ("eval((8,8):(F1,F9), 10)", "11"),
        // PyCuTe's `Layout((4, 8), (F2(1), F2(8)))(2, 1) == F2(2 ^ 8)`
        ("eval((4,8):(F1,F8), (2,1))", "10"),
        ("eval((4,8):(F1,F8), 2, 1)", "10"),
        // by mode: (3, 5) in (4,(2,4)) is index 3 + 4·5 = 23 = (3, 1, 2): 3 XOR 4 XOR 16
        ("eval((4,(2,4)):(F1,(F4,F8)), (3,5))", "23"),
        ("offsets(4:F3)", "[0,3,6,5]"),
        // 4 ⊗ F1 = F4 and 4 is a power of two: one leaf; 3 is not, so no merge
        ("coalesce((4,4):(F1,F4))", "16:F1"),
        ("coalesce((3,4):(F1,F3))", "(3,4):(F1,F3)"),
        // the images 8, 16, 32 of 8:8 land on F9's bases 9, 18, 36
        ("composition((8,8):(F1,F9), 8:8)", "8:F9"),
        (
            "composition((8,8):(F1,F9), 4:3)",
            "error: not F2-linear: the images 3 and 6 of two index bits share bits, so 3 + 6 != 3 xor 6",
        ),
        // PyCuTe's documented right inverse
        ("right_inverse((8,8):(F9,F1))", "(8,8):(F8,F9)"),
        ("left_inverse((4,8):(F1,F4))", "32:1"),
        (
            "left_inverse((8,8):(F1,F9))",
            "error: left_inverse of F2 strides needs each stride to be the product of the smaller ones' extents (no carry-less gap): size 9 does not match size 8",
        ),
        // the images 1, 3 span bits 0..2 of 8 offsets: the rest is bit 2
        ("complement(4:F[1,3], 8)", "2:F4"),
        // 0 → 0, 1 → 1, 2 → 3, 3 → 2: its own inverse
        ("left_inverse(4:F[1,3])", "4:F[1,3]"),
        (
            "eval((8,8):(F1,8), 8)",
            "error: index 8: the integer strides contribute 8 beside F2 strides, and F2 + integer is not defined",
        ),
        (
            "eval((8,8):(F1,F9), 64)",
            "error: coordinate 64 is outside input dimension `index` of size 64",
        ),
        (
            "mixed_offsets(8:F[1,2])",
            "error: an F2 stride `F[b0,…]` needs one basis per bit of its extent",
        ),
    ]);
}

#[test]
fn f2_pictures() {
    let out = run("f2_svg({col:[1,2,4],row:[8,16]} -> {offset:32})\n");
    assert!(out.starts_with("<svg"));
    assert_eq!(out.matches("class=\"cell\"").count(), 32);
    assert!(out.ends_with("</svg>\n\n"));
}
