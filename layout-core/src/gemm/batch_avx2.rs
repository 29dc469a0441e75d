//! The AVX2 `f32` register tile of the batch-reduce (16 rows × 1 to 6 columns) with its k
//! loop scheduled by hand (`asm!`): the accumulators held in twelve ymm registers, k unrolled by
//! four, every operand addressed by displacement from one pointer per operand per unrolled
//! step — A's rows at `a`, `a + lda`, `a + 2·lda`, `a + 3·lda` (`lda3` a register), B's columns
//! at `b0`, `b0 + csb`, `b0 + 2·csb` and `b3 = b0 + 3·csb`, … with k at `+4·u` bytes — so
//! that a k step is 2 loads, NR broadcasts and 2·NR FMAs, and four steps share five pointer
//! and counter updates. Compiled from the same arithmetic in Rust, LLVM either updated an
//! address per broadcast (≈ 5 updates per step) or, unrolled, stored all 12 accumulators
//! after every FMA.
//!
//! The caller (`batch.rs`'s tile) holds the accumulators and writes C after the batch; a tap
//! cut by the padding runs here on the columns it keeps (the narrower loops); a masked row
//! edge and B rows that are not unit stride run in Rust.

use core::arch::asm;
use core::arch::x86_64::__m256;

/// One k step `u` of the unrolled loop: A's two vectors at `$ax`, then per column a broadcast
/// of B at `$bx + $d` bytes and its two FMAs into the column's accumulators.
macro_rules! step {
    ($ax:literal, $d:literal, [$(($bx:literal, $c0:literal, $c1:literal)),*]) => {
        concat!(
            "vmovups {va}, ymmword ptr [", $ax, "]\n",
            "vmovups {vb}, ymmword ptr [", $ax, " + 32]\n",
            $(
                "vbroadcastss {vt}, dword ptr [", $bx, " + ", $d, "]\n",
                "vfmadd231ps ", $c0, ", {va}, {vt}\n",
                "vfmadd231ps ", $c1, ", {vb}, {vt}\n",
            )*
        )
    };
}

/// The whole-item loop of one tile width: `$name(acc, a, lda, b, csb, k)`.
macro_rules! whole {
    ($name:ident, [$(($bx:literal, $t0:literal, $t1:literal, $c0:ident, $c1:ident, $j:literal)),*]) => {
        /// `acc[j][v] += Σ_{q<rows} Σ_{p<k} A(v-th vector, q·k + p) · B(q, p, j)` for the
        /// columns `j < NR` of a 16 × NR tile (the others untouched): `A(·, t)` the 16 floats
        /// at `a + t·lda` (the rows' A one run), `B(q, p, j)` the float at
        /// `col(j) + q·rstep + p` (each row of a kernel window `rstep` on from the last), the
        /// columns addressed from `b` and `b3` as the loop's list names them (`b + j·csb` for
        /// the first three, `b3 + (j − 3)·csb` after; `whole_4p`: `b`, `b + csb`, `b3`,
        /// `b3 + csb`, two pixels of two output rows); `rows` 0 counts as 1.
        ///
        /// # Safety
        /// AVX2 and FMA are available; for every `q < rows`, `p < k` and column `j`, the 16
        /// floats from `a + (q·k + p)·lda` and the float at `col(j) + q·rstep + p` are
        /// readable; `lda`, `csb` and `rstep` in bytes (×4) fit `isize`.
        #[target_feature(enable = "avx2,fma")]
        #[inline]
        #[allow(clippy::too_many_arguments)]
        pub(super) unsafe fn $name(
            acc: &mut [[__m256; 2]; 6],
            a: *const f32,
            lda: isize,
            b: *const f32,
            b3: *const f32,
            csb: isize,
            k: usize,
            rows: usize,
            rstep: isize,
        ) {
            let (lda, cs) = (lda * 4, csb * 4);
            // after a row, B's pointers have moved k elements: on to the next row's first
            let next = (rstep.wrapping_sub(k as isize)).wrapping_mul(4);
            // SAFETY: the caller's contract: every address the loop forms is one of the
            // readable elements above (in row q the unrolled step u reads A's row q·k + p + u
            // and B's element q·rstep + p + u of each column, p + u < k); the asm reads
            // memory only, keeps the stack, and writes only the registers it names.
            unsafe {
                asm!(
                    "/* column stride {cs} */",
                    "6:",
                    "mov {n4}, {k}",
                    "shr {n4}, 2",
                    "jz 3f",
                    "2:",
                    step!("{a}", "0", [$(($bx, $t0, $t1)),*]),
                    step!("{a} + {lda}", "4", [$(($bx, $t0, $t1)),*]),
                    step!("{a} + {lda}*2", "8", [$(($bx, $t0, $t1)),*]),
                    step!("{a} + {lda3}", "12", [$(($bx, $t0, $t1)),*]),
                    "lea {a}, [{a} + {lda}*4]",
                    "add {b0}, 16",
                    "add {b3}, 16",
                    "dec {n4}",
                    "jnz 2b",
                    "3:",
                    "mov {n1}, {k}",
                    "and {n1}, 3",
                    "jz 5f",
                    "4:",
                    step!("{a}", "0", [$(($bx, $t0, $t1)),*]),
                    "add {a}, {lda}",
                    "add {b0}, 4",
                    "add {b3}, 4",
                    "dec {n1}",
                    "jnz 4b",
                    "5:",
                    "add {b0}, {next}",
                    "add {b3}, {next}",
                    "dec {rows}",
                    "jnz 6b",
                    a = inout(reg) a => _,
                    lda = in(reg) lda,
                    lda3 = in(reg) 3 * lda,
                    b0 = inout(reg) b => _,
                    b3 = inout(reg) b3 => _,
                    cs = in(reg) cs,
                    k = in(reg) k,
                    next = in(reg) next,
                    rows = inout(reg) rows.max(1) => _,
                    n4 = out(reg) _,
                    n1 = out(reg) _,
                    $(
                        $c0 = inout(ymm_reg) acc[$j][0],
                        $c1 = inout(ymm_reg) acc[$j][1],
                    )*
                    va = out(ymm_reg) _,
                    vb = out(ymm_reg) _,
                    vt = out(ymm_reg) _,
                    options(nostack, readonly),
                );
            }
        }
    };
}

whole!(whole_1, [("{b0}", "{x0}", "{y0}", x0, y0, 0)]);
whole!(
    whole_2,
    [
        ("{b0}", "{x0}", "{y0}", x0, y0, 0),
        ("{b0} + {cs}", "{x1}", "{y1}", x1, y1, 1)
    ]
);
whole!(
    whole_3,
    [
        ("{b0}", "{x0}", "{y0}", x0, y0, 0),
        ("{b0} + {cs}", "{x1}", "{y1}", x1, y1, 1),
        ("{b0} + {cs}*2", "{x2}", "{y2}", x2, y2, 2)
    ]
);
whole!(
    whole_4,
    [
        ("{b0}", "{x0}", "{y0}", x0, y0, 0),
        ("{b0} + {cs}", "{x1}", "{y1}", x1, y1, 1),
        ("{b0} + {cs}*2", "{x2}", "{y2}", x2, y2, 2),
        ("{b3}", "{x3}", "{y3}", x3, y3, 3)
    ]
);
whole!(
    whole_4p,
    [
        ("{b0}", "{x0}", "{y0}", x0, y0, 0),
        ("{b0} + {cs}", "{x1}", "{y1}", x1, y1, 1),
        ("{b3}", "{x2}", "{y2}", x2, y2, 2),
        ("{b3} + {cs}", "{x3}", "{y3}", x3, y3, 3)
    ]
);
whole!(
    whole_5,
    [
        ("{b0}", "{x0}", "{y0}", x0, y0, 0),
        ("{b0} + {cs}", "{x1}", "{y1}", x1, y1, 1),
        ("{b0} + {cs}*2", "{x2}", "{y2}", x2, y2, 2),
        ("{b3}", "{x3}", "{y3}", x3, y3, 3),
        ("{b3} + {cs}", "{x4}", "{y4}", x4, y4, 4)
    ]
);
whole!(
    whole_6,
    [
        ("{b0}", "{x0}", "{y0}", x0, y0, 0),
        ("{b0} + {cs}", "{x1}", "{y1}", x1, y1, 1),
        ("{b0} + {cs}*2", "{x2}", "{y2}", x2, y2, 2),
        ("{b3}", "{x3}", "{y3}", x3, y3, 3),
        ("{b3} + {cs}", "{x4}", "{y4}", x4, y4, 4),
        ("{b3} + {cs}*2", "{x5}", "{y5}", x5, y5, 5)
    ]
);

// `whole_6`'s loop again, under its own name: only the paired tiles (two output rows) call it,
// so the unpaired tiles' `whole_6` keeps its inlining and machine code (one function shared
// by both was no longer inlined and cost 7×7 up to 2 %: BENCHMARKS, issue 30 session 7b)
whole!(
    whole_6p,
    [
        ("{b0}", "{x0}", "{y0}", x0, y0, 0),
        ("{b0} + {cs}", "{x1}", "{y1}", x1, y1, 1),
        ("{b0} + {cs}*2", "{x2}", "{y2}", x2, y2, 2),
        ("{b3}", "{x3}", "{y3}", x3, y3, 3),
        ("{b3} + {cs}", "{x4}", "{y4}", x4, y4, 4),
        ("{b3} + {cs}*2", "{x5}", "{y5}", x5, y5, 5)
    ]
);
