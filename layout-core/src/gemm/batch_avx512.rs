//! The AVX-512 `f32` register tile of the batch-reduce (32 rows × 1 to 12 columns) with its k
//! loop scheduled by hand (`asm!`), as `batch_avx2.rs` does for AVX2's 16 × 6: the
//! accumulators held in up to 24 zmm registers, k unrolled by four, every operand addressed by
//! displacement from one pointer per operand per unrolled step — A's rows at `a` and
//! `a + lda`, `a` moved two rows after each pair (eleven general registers), B's columns at
//! `b0`, `b0 + csb`, `b0 + 2·csb`, `b0 + 3·csb` (`cs3` a register) and the same from
//! `b4 = b0 + 4·csb` and `b8 = b0 + 8·csb`, with k at `+4·u` bytes — so that a k step is 2
//! loads, NR broadcasts and 2·NR FMAs, and four steps share seven pointer and counter
//! updates. The Rust loop of the same
//! arithmetic (`batch.rs`) formed one column address per broadcast from the last (an `add` or
//! `lea` per column and k step, 12 integer µops beside the 24 FMAs).
//!
//! The caller (`batch.rs`'s tile) holds the accumulators and writes C after the batch; a tap
//! cut by the padding runs here on the columns it keeps (the narrower loops); a masked row
//! edge and B rows that are not unit stride run in Rust.

use core::arch::asm;
use core::arch::x86_64::__m512;

/// One k step `u` of the unrolled loop: A's two vectors at `$ax`, then per column a broadcast
/// of B at `$bx + $d` bytes and its two FMAs into the column's accumulators.
macro_rules! step {
    ($ax:literal, $d:literal, [$(($bx:literal, $c0:literal, $c1:literal)),*]) => {
        concat!(
            "vmovups zmm24, zmmword ptr [", $ax, "]\n",
            "vmovups zmm25, zmmword ptr [", $ax, " + 64]\n",
            $(
                "vbroadcastss zmm26, dword ptr [", $bx, " + ", $d, "]\n",
                "vfmadd231ps ", $c0, ", zmm24, zmm26\n",
                "vfmadd231ps ", $c1, ", zmm25, zmm26\n",
            )*
        )
    };
}

/// The whole-item loop of one tile width: `$name(acc, a, lda, b, csb, k, rows, rstep)`.
macro_rules! whole {
    ($name:ident, [$(($bx:literal, $t0:tt, $t1:tt, $c0:ident, $c1:ident, $j:literal)),*]) => {
        /// `acc[j][v] += Σ_{q<rows} Σ_{p<k} A(v-th vector, q·k + p) · B(q, p, j)` for the
        /// columns `j` of a 32-row tile this loop names (`j < NR`, the others untouched):
        /// `A(·, t)` the 32 floats at `a + t·lda` (the rows' A one run), `B(q, p, j)` the
        /// float at `b + j·csb + q·rstep + p` (each row of a kernel window `rstep` on from
        /// the last); `rows` 0 counts as 1.
        ///
        /// # Safety
        /// AVX-512 F is available; for every `q < rows`, `p < k` and column `j`, the 32
        /// floats from `a + (q·k + p)·lda` and the float at `b + j·csb + q·rstep + p` are
        /// readable; `lda`, `csb` and `rstep` in bytes (×4, and ×12 for `lda`, `csb`) fit
        /// `isize`.
        #[target_feature(enable = "avx512f")]
        #[inline]
        #[allow(clippy::too_many_arguments)]
        pub(super) unsafe fn $name(
            acc: &mut [[__m512; 2]; 12],
            a: *const f32,
            lda: isize,
            b: *const f32,
            csb: isize,
            k: usize,
            rows: usize,
            rstep: isize,
        ) {
            let (lda, cs) = (lda * 4, csb * 4);
            // after a row, B's pointers have moved k elements: on to the next row's first
            let next = (rstep.wrapping_sub(k as isize)).wrapping_mul(4);
            // (the bases of columns 4 and 8: addresses formed, read only where the loop has
            // such columns)
            let b4 = b.wrapping_offset(4 * csb);
            let b8 = b.wrapping_offset(8 * csb);
            // (the accumulators in locals, moved into the loop's fixed registers: a debug
            // build's register allocator placed no more than 16 zmm operands of a register
            // class, so each has its own named register)
            $(
                let (mut $c0, mut $c1) = (acc[$j][0], acc[$j][1]);
            )*
            // SAFETY: the caller's contract: every address the loop reads is one of the
            // readable elements above (in row q the unrolled step u reads A's row
            // q·k + p + u and B's element q·rstep + p + u of each of its columns, p + u < k);
            // the asm reads memory only, keeps the stack, and writes only the registers it
            // names.
            unsafe {
                asm!(
                    "/* bases {b4} {b8}, column strides {cs} {cs3} */",
                    "6:",
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
                    "add {b0}, {next}",
                    "add {b4}, {next}",
                    "add {b8}, {next}",
                    "dec {rows}",
                    "jnz 6b",
                    a = inout(reg) a => _,
                    lda = in(reg) lda,
                    b0 = inout(reg) b => _,
                    b4 = inout(reg) b4 => _,
                    b8 = inout(reg) b8 => _,
                    cs = in(reg) cs,
                    cs3 = in(reg) 3 * cs,
                    k = in(reg) k,
                    next = in(reg) next,
                    rows = inout(reg) rows.max(1) => _,
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

/// Invokes `$m!(name, [columns])` for each tile width 1 to 12, with the names given: the column
/// table of the hand-scheduled 32-row loops (each column's B address in the loop's registers,
/// its two accumulator registers, their Rust names, its index), shared by this file's `f32`
/// loops and `batch_bf16_asm.rs`'s bf16 pair loops.
macro_rules! tile_widths {
    ($m:ident, [$n1:ident, $n2:ident, $n3:ident, $n4:ident, $n5:ident, $n6:ident, $n7:ident, $n8:ident, $n9:ident, $n10:ident, $n11:ident, $n12:ident]) => {
        $m!($n1, [("{b0}", "zmm0", "zmm1", x0, y0, 0)]);
        $m!($n2,
            [
                ("{b0}", "zmm0", "zmm1", x0, y0, 0),
                ("{b0} + {cs}", "zmm2", "zmm3", x1, y1, 1)
            ]
        );
        $m!($n3,
            [
                ("{b0}", "zmm0", "zmm1", x0, y0, 0),
                ("{b0} + {cs}", "zmm2", "zmm3", x1, y1, 1),
                ("{b0} + {cs}*2", "zmm4", "zmm5", x2, y2, 2)
            ]
        );
        $m!($n4,
            [
                ("{b0}", "zmm0", "zmm1", x0, y0, 0),
                ("{b0} + {cs}", "zmm2", "zmm3", x1, y1, 1),
                ("{b0} + {cs}*2", "zmm4", "zmm5", x2, y2, 2),
                ("{b0} + {cs3}", "zmm6", "zmm7", x3, y3, 3)
            ]
        );
        $m!($n5,
            [
                ("{b0}", "zmm0", "zmm1", x0, y0, 0),
                ("{b0} + {cs}", "zmm2", "zmm3", x1, y1, 1),
                ("{b0} + {cs}*2", "zmm4", "zmm5", x2, y2, 2),
                ("{b0} + {cs3}", "zmm6", "zmm7", x3, y3, 3),
                ("{b4}", "zmm8", "zmm9", x4, y4, 4)
            ]
        );
        $m!($n6,
            [
                ("{b0}", "zmm0", "zmm1", x0, y0, 0),
                ("{b0} + {cs}", "zmm2", "zmm3", x1, y1, 1),
                ("{b0} + {cs}*2", "zmm4", "zmm5", x2, y2, 2),
                ("{b0} + {cs3}", "zmm6", "zmm7", x3, y3, 3),
                ("{b4}", "zmm8", "zmm9", x4, y4, 4),
                ("{b4} + {cs}", "zmm10", "zmm11", x5, y5, 5)
            ]
        );
        $m!($n7,
            [
                ("{b0}", "zmm0", "zmm1", x0, y0, 0),
                ("{b0} + {cs}", "zmm2", "zmm3", x1, y1, 1),
                ("{b0} + {cs}*2", "zmm4", "zmm5", x2, y2, 2),
                ("{b0} + {cs3}", "zmm6", "zmm7", x3, y3, 3),
                ("{b4}", "zmm8", "zmm9", x4, y4, 4),
                ("{b4} + {cs}", "zmm10", "zmm11", x5, y5, 5),
                ("{b4} + {cs}*2", "zmm12", "zmm13", x6, y6, 6)
            ]
        );
        $m!($n8,
            [
                ("{b0}", "zmm0", "zmm1", x0, y0, 0),
                ("{b0} + {cs}", "zmm2", "zmm3", x1, y1, 1),
                ("{b0} + {cs}*2", "zmm4", "zmm5", x2, y2, 2),
                ("{b0} + {cs3}", "zmm6", "zmm7", x3, y3, 3),
                ("{b4}", "zmm8", "zmm9", x4, y4, 4),
                ("{b4} + {cs}", "zmm10", "zmm11", x5, y5, 5),
                ("{b4} + {cs}*2", "zmm12", "zmm13", x6, y6, 6),
                ("{b4} + {cs3}", "zmm14", "zmm15", x7, y7, 7)
            ]
        );
        $m!($n9,
            [
                ("{b0}", "zmm0", "zmm1", x0, y0, 0),
                ("{b0} + {cs}", "zmm2", "zmm3", x1, y1, 1),
                ("{b0} + {cs}*2", "zmm4", "zmm5", x2, y2, 2),
                ("{b0} + {cs3}", "zmm6", "zmm7", x3, y3, 3),
                ("{b4}", "zmm8", "zmm9", x4, y4, 4),
                ("{b4} + {cs}", "zmm10", "zmm11", x5, y5, 5),
                ("{b4} + {cs}*2", "zmm12", "zmm13", x6, y6, 6),
                ("{b4} + {cs3}", "zmm14", "zmm15", x7, y7, 7),
                ("{b8}", "zmm16", "zmm17", x8, y8, 8)
            ]
        );
        $m!($n10,
            [
                ("{b0}", "zmm0", "zmm1", x0, y0, 0),
                ("{b0} + {cs}", "zmm2", "zmm3", x1, y1, 1),
                ("{b0} + {cs}*2", "zmm4", "zmm5", x2, y2, 2),
                ("{b0} + {cs3}", "zmm6", "zmm7", x3, y3, 3),
                ("{b4}", "zmm8", "zmm9", x4, y4, 4),
                ("{b4} + {cs}", "zmm10", "zmm11", x5, y5, 5),
                ("{b4} + {cs}*2", "zmm12", "zmm13", x6, y6, 6),
                ("{b4} + {cs3}", "zmm14", "zmm15", x7, y7, 7),
                ("{b8}", "zmm16", "zmm17", x8, y8, 8),
                ("{b8} + {cs}", "zmm18", "zmm19", x9, y9, 9)
            ]
        );
        $m!($n11,
            [
                ("{b0}", "zmm0", "zmm1", x0, y0, 0),
                ("{b0} + {cs}", "zmm2", "zmm3", x1, y1, 1),
                ("{b0} + {cs}*2", "zmm4", "zmm5", x2, y2, 2),
                ("{b0} + {cs3}", "zmm6", "zmm7", x3, y3, 3),
                ("{b4}", "zmm8", "zmm9", x4, y4, 4),
                ("{b4} + {cs}", "zmm10", "zmm11", x5, y5, 5),
                ("{b4} + {cs}*2", "zmm12", "zmm13", x6, y6, 6),
                ("{b4} + {cs3}", "zmm14", "zmm15", x7, y7, 7),
                ("{b8}", "zmm16", "zmm17", x8, y8, 8),
                ("{b8} + {cs}", "zmm18", "zmm19", x9, y9, 9),
                ("{b8} + {cs}*2", "zmm20", "zmm21", x10, y10, 10)
            ]
        );
        $m!($n12,
            [
                ("{b0}", "zmm0", "zmm1", x0, y0, 0),
                ("{b0} + {cs}", "zmm2", "zmm3", x1, y1, 1),
                ("{b0} + {cs}*2", "zmm4", "zmm5", x2, y2, 2),
                ("{b0} + {cs3}", "zmm6", "zmm7", x3, y3, 3),
                ("{b4}", "zmm8", "zmm9", x4, y4, 4),
                ("{b4} + {cs}", "zmm10", "zmm11", x5, y5, 5),
                ("{b4} + {cs}*2", "zmm12", "zmm13", x6, y6, 6),
                ("{b4} + {cs3}", "zmm14", "zmm15", x7, y7, 7),
                ("{b8}", "zmm16", "zmm17", x8, y8, 8),
                ("{b8} + {cs}", "zmm18", "zmm19", x9, y9, 9),
                ("{b8} + {cs}*2", "zmm20", "zmm21", x10, y10, 10),
                ("{b8} + {cs3}", "zmm22", "zmm23", x11, y11, 11)
            ]
        );
    };
}
pub(super) use tile_widths;

tile_widths!(
    whole,
    [
        whole_1, whole_2, whole_3, whole_4, whole_5, whole_6, whole_7, whole_8, whole_9, whole_10,
        whole_11, whole_12
    ]
);
