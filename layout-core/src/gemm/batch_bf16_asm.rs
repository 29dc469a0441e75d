//! The AVX-512 BF16 pair tile's k loop scheduled by hand (`asm!`), as `batch_avx512.rs` does
//! for the `f32` tile: 32 output rows × 1 to 12 columns, the accumulators in up to 24 zmm
//! registers, k pairs unrolled by four, A's rows at `a` and `a + lda` (`a` moved two pairs
//! after each two steps), B's columns at `b0`, `b0 + csb`, `b0 + 2·csb`, `b0 + 3·csb` (`cs3`
//! a register) and the same from `b4 = b0 + 4·csb` and `b8 = b0 + 8·csb`, the pair at
//! `+4·u` bytes — so that a pair step is 2 loads, NR broadcasts and 2·NR `vdpbf16ps`, and
//! four steps share four pointer and counter updates.
//!
//! The Rust loop of `batch_bf16.rs` formed the twelve column addresses from an array of
//! pointers and an offset: with 24 accumulators, 2 A vectors and the broadcast live, the
//! pointers and the counters did not fit the general registers and were reloaded from the
//! stack in the loop (measured on an AMD Zen 5, where `vdpbf16ps` issues two per cycle).
//!
//! The caller (`batch_bf16.rs`'s tile) holds the accumulators and writes C after the batch;
//! an item cut by the padding runs here on the columns it keeps (the narrower loops); a
//! masked row edge (fewer than 32 rows) runs in Rust.

use core::arch::asm;
use core::arch::x86_64::__m512;

/// One pair step `u` of the unrolled loop: A's two vectors of pair words at `$ax`, then per
/// column a broadcast of B's pair at `$bx + $d` bytes and its two dot products into the
/// column's accumulators.
macro_rules! step {
    ($ax:literal, $d:literal, [$(($bx:literal, $c0:literal, $c1:literal)),*]) => {
        concat!(
            "vmovups zmm24, zmmword ptr [", $ax, "]\n",
            "vmovups zmm25, zmmword ptr [", $ax, " + 64]\n",
            $(
                "vbroadcastss zmm26, dword ptr [", $bx, " + ", $d, "]\n",
                "vdpbf16ps ", $c0, ", zmm24, zmm26\n",
                "vdpbf16ps ", $c1, ", zmm25, zmm26\n",
            )*
        )
    };
}

/// The item loop of one tile width: `$name(acc, a, lda, b, csb, k2)`.
macro_rules! pairs {
    ($name:ident, [$(($bx:literal, $t0:tt, $t1:tt, $c0:ident, $c1:ident, $j:literal)),*]) => {
        /// `acc[j][v] += Σ_{p<k2} A(v, p) · B(p, j)` pair by pair (`vdpbf16ps`: both products
        /// of a pair added into each f32 lane) for the columns `j` of a 32-row tile this loop
        /// names (`j < NR`, the others untouched): `A(v, p)` the 16 words at
        /// `a + p·lda + 16v` (a word the bf16 pair of k = 2p, 2p + 1 of one row), `B(p, j)`
        /// the two bf16 at `b + j·csb + 2p`; `acc` holds at least the loop's columns.
        ///
        /// # Safety
        /// AVX-512 BF16 is available; for every `p < k2` and column `j`, the 32 words from
        /// `a + p·lda` and the two bf16 at `b + j·csb + 2p` are readable; `lda`·8 and
        /// `csb`·24 fit `isize`.
        #[target_feature(enable = "avx512bf16,avx512f")]
        #[inline]
        pub(super) unsafe fn $name(
            acc: &mut [[__m512; 2]],
            a: *const u32,
            lda: isize,
            b: *const u16,
            csb: isize,
            k2: usize,
        ) {
            let (lda, cs) = (lda * 4, csb * 2);
            // (the bases of columns 4 and 8: addresses formed, read only where the loop has
            // such columns)
            let b4 = b.wrapping_offset(4 * csb);
            let b8 = b.wrapping_offset(8 * csb);
            // (the accumulators in locals, moved into the loop's fixed registers)
            $(
                let (mut $c0, mut $c1) = (acc[$j][0], acc[$j][1]);
            )*
            // SAFETY: the caller's contract: every address the loop reads is one of the
            // readable elements above (the unrolled step u reads A's pair p + u and B's pair
            // p + u of each of its columns, p + u < k2); the asm reads memory only, keeps
            // the stack, and writes only the registers it names.
            unsafe {
                asm!(
                    "/* bases {b4} {b8}, column strides {cs} {cs3} */",
                    "mov {n}, {k}",
                    "shr {n}, 2",
                    "jz 3f",
                    "2:",
                    step!("{a}", "0", [$(($bx, $t0, $t1)),*]),
                    step!("{a} + {lda}", "4", [$(($bx, $t0, $t1)),*]),
                    "lea {a}, [{a} + {lda}*2]",
                    step!("{a}", "8", [$(($bx, $t0, $t1)),*]),
                    step!("{a} + {lda}", "12", [$(($bx, $t0, $t1)),*]),
                    "lea {a}, [{a} + {lda}*2]",
                    "add {b0}, 16",
                    "add {b4}, 16",
                    "add {b8}, 16",
                    "dec {n}",
                    "jnz 2b",
                    "3:",
                    "mov {n}, {k}",
                    "and {n}, 3",
                    "jz 5f",
                    "4:",
                    step!("{a}", "0", [$(($bx, $t0, $t1)),*]),
                    "add {a}, {lda}",
                    "add {b0}, 4",
                    "add {b4}, 4",
                    "add {b8}, 4",
                    "dec {n}",
                    "jnz 4b",
                    "5:",
                    a = inout(reg) a => _,
                    lda = in(reg) lda,
                    b0 = inout(reg) b => _,
                    b4 = inout(reg) b4 => _,
                    b8 = inout(reg) b8 => _,
                    cs = in(reg) cs,
                    cs3 = in(reg) 3 * cs,
                    k = in(reg) k2,
                    n = out(reg) _,
                    $(
                        inout($t0) $c0,
                        inout($t1) $c1,
                    )*
                    out("zmm24") _,
                    out("zmm25") _,
                    out("zmm26") _,
                    options(nostack, readonly),
                );
            }
            $(
                acc[$j] = [$c0, $c1];
            )*
        }
    };
}

super::batch_avx512::tile_widths!(
    pairs,
    [
        pairs_1, pairs_2, pairs_3, pairs_4, pairs_5, pairs_6, pairs_7, pairs_8, pairs_9, pairs_10,
        pairs_11, pairs_12
    ]
);

/// The hand-scheduled loop of `w` columns (1 to 12) on `r`'s first `w` (`r` has at least
/// `w`: the accumulators of the columns the loop reads, a cut item's from its first).
///
/// # Safety
/// As the loops above for the columns `j < w`.
#[target_feature(enable = "avx512bf16,avx512f")]
#[inline]
pub(super) unsafe fn cols(
    w: usize,
    r: &mut [[__m512; 2]],
    a: *const u32,
    lda: isize,
    b: *const u16,
    csb: isize,
    k2: usize,
) {
    // SAFETY: (each arm) the caller's contract is the loop's.
    unsafe {
        match w {
            1 => pairs_1(r, a, lda, b, csb, k2),
            2 => pairs_2(r, a, lda, b, csb, k2),
            3 => pairs_3(r, a, lda, b, csb, k2),
            4 => pairs_4(r, a, lda, b, csb, k2),
            5 => pairs_5(r, a, lda, b, csb, k2),
            6 => pairs_6(r, a, lda, b, csb, k2),
            7 => pairs_7(r, a, lda, b, csb, k2),
            8 => pairs_8(r, a, lda, b, csb, k2),
            9 => pairs_9(r, a, lda, b, csb, k2),
            10 => pairs_10(r, a, lda, b, csb, k2),
            11 => pairs_11(r, a, lda, b, csb, k2),
            _ => pairs_12(r, a, lda, b, csb, k2),
        }
    }
}
