//! bf16 × bf16 → f32 on AVX-512 BF16: `vdpbf16ps` multiplies pairs of bf16 and adds both
//! products into an f32 lane, twice the multiply-adds of an f32 FMA per instruction.
//!
//! The reduction dimension k is interleaved in pairs ("VNNI-2"): A is packed into panels of
//! MR = 32 rows holding, for each pair of k, the two values of a row side by side in one 32-bit
//! lane; B into panels of NR = 12 columns holding, for each pair of k, the two values of a column
//! as one 32-bit word that the kernel broadcasts. Odd k and the m, n edges are zero-padded (zeros
//! add nothing). k runs in blocks of [`KC2`] pairs with C accumulating in between, like the
//! unpacked f32 path. `vdpbf16ps` flushes denormal inputs and outputs to zero and rounds each
//! accumulation to nearest even (see `reference/gemm.md` §7); on integer data small enough for
//! bf16 the results are exact.

use core::arch::x86_64::*;
use std::vec::Vec;

use half::bf16;

use super::error::GemmError;

/// Rows of a packed A panel (two zmm of 16 f32 accumulators).
const MR: usize = 32;
/// Columns of a packed B panel.
const NR: usize = 12;
/// k pairs per block.
const KC2: usize = 256;

/// `true` when this CPU has AVX-512 BF16 (and AVX-512F).
pub(crate) fn available() -> bool {
    crate::isa::has_avx512_bf16(crate::isa::Isa::Avx512)
}

/// Element (i, j) of a strided bf16 operand, as raw bits; 0 outside `rows × cols`.
#[derive(Clone, Copy)]
pub(crate) struct View<'a> {
    pub data: &'a [bf16],
    pub origin: isize,
    pub rs: isize,
    pub cs: isize,
    pub rows: usize,
    pub cols: usize,
}

impl View<'_> {
    #[inline(always)]
    fn bits(&self, i: usize, j: usize) -> u32 {
        if i < self.rows && j < self.cols {
            // (i, j) is an element of the checked operand
            let at = self.origin + i as isize * self.rs + j as isize * self.cs;
            u32::from(self.data[at as usize].to_bits())
        } else {
            0
        }
    }
}

/// `C ← α·A·B + β·C`, C column-major-or-any strided f32 (`c` at element (0, 0), strides
/// `rsc`, `csc`), A m × k and B k × n in bf16.
///
/// # Errors
/// [`GemmError::Allocation`] when the packed panels cannot be allocated (or their size
/// overflows: `elements` is then `usize::MAX`); C is untouched.
///
/// # Safety
/// AVX-512 BF16 is available ([`available`]); every element (i, j) of C (i < m, j < n) is inside
/// `c` at `origin + i·rsc + j·csc`, and no two share a location.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm(
    op: &'static str,
    alpha: f32,
    a: View<'_>,
    b: View<'_>,
    beta: f32,
    c: &mut [f32],
    origin: isize,
    rsc: isize,
    csc: isize,
) -> Result<(), GemmError> {
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let k2 = k.div_ceil(2);
    let (mp, np) = (m.div_ceil(MR), n.div_ceil(NR));
    // A: panel q, pair p, row r: word at (q·k2 + p)·MR + r, low half k = 2p, high half 2p + 1
    // the panels' sizes, checked; allocation failure is an error, never an abort
    let panels = |count: usize, width: usize| -> Result<Vec<u32>, GemmError> {
        let len = count
            .checked_mul(k2)
            .and_then(|x| x.checked_mul(width))
            .ok_or(GemmError::Allocation {
                op,
                elements: usize::MAX,
            })?;
        let mut v = Vec::new();
        v.try_reserve_exact(len)
            .map_err(|_| GemmError::Allocation { op, elements: len })?;
        Ok(v)
    };
    let mut pa = panels(mp, MR)?;
    for q in 0..mp {
        for p in 0..k2 {
            for r in 0..MR {
                let i = q * MR + r;
                pa.push(a.bits(i, 2 * p) | (a.bits(i, 2 * p + 1) << 16));
            }
        }
    }
    // B: panel q, pair p, column s: word at (q·k2 + p)·NR + s
    let mut pb = panels(np, NR)?;
    for q in 0..np {
        for p in 0..k2 {
            for s in 0..NR {
                let j = q * NR + s;
                pb.push(b.bits(2 * p, j) | (b.bits(2 * p + 1, j) << 16));
            }
        }
    }
    let mut p0 = 0;
    while p0 < k2 {
        let kb = KC2.min(k2 - p0);
        let beta_b = if p0 == 0 { beta } else { 1.0 };
        for qj in 0..np {
            for qi in 0..mp {
                let ap = &pa[(qi * k2 + p0) * MR..(qi * k2 + p0 + kb) * MR];
                let bp = &pb[(qj * k2 + p0) * NR..(qj * k2 + p0 + kb) * NR];
                // SAFETY: AVX-512 BF16 (caller); `ap`/`bp` hold kb pairs of a full panel; the
                // tile writes only elements (i, j) of C with i < m, j < n (the caller's bounds).
                unsafe {
                    tile(
                        ap,
                        bp,
                        kb,
                        alpha,
                        beta_b,
                        c,
                        origin,
                        rsc,
                        csc,
                        (qi * MR, m.min(qi * MR + MR) - qi * MR),
                        (qj * NR, n.min(qj * NR + NR) - qj * NR),
                    )
                };
            }
        }
        p0 += kb;
    }
    Ok(())
}

/// One 32 × 12 tile over `kb` pairs of k; writes rows `rows.0 .. rows.0 + rows.1` and columns
/// `cols.0 .. cols.0 + cols.1` of C.
///
/// # Safety
/// As [`gemm`]; `ap` holds `kb·MR` and `bp` `kb·NR` words.
#[target_feature(enable = "avx512bf16,avx512f")]
#[allow(clippy::too_many_arguments)]
unsafe fn tile(
    ap: &[u32],
    bp: &[u32],
    kb: usize,
    alpha: f32,
    beta: f32,
    c: &mut [f32],
    origin: isize,
    rsc: isize,
    csc: isize,
    rows: (usize, usize),
    cols: (usize, usize),
) {
    let mut acc = [[_mm512_setzero_ps(); 2]; NR];
    for p in 0..kb {
        // SAFETY: p < kb, so the 32 words of A and the 12 of B are inside the panels.
        let (a0, a1) = unsafe {
            (
                _mm512_loadu_si512(ap.as_ptr().add(p * MR).cast()),
                _mm512_loadu_si512(ap.as_ptr().add(p * MR + 16).cast()),
            )
        };
        let (a0, a1): (__m512bh, __m512bh) = (
            // SAFETY: a bit-for-bit reinterpretation of 512 bits.
            unsafe { core::mem::transmute::<__m512i, __m512bh>(a0) },
            // SAFETY: as above.
            unsafe { core::mem::transmute::<__m512i, __m512bh>(a1) },
        );
        for (j, acc) in acc.iter_mut().enumerate() {
            let w = bp[p * NR + j] as i32;
            // SAFETY: a bit-for-bit reinterpretation of 512 bits.
            let bj = unsafe { core::mem::transmute::<__m512i, __m512bh>(_mm512_set1_epi32(w)) };
            acc[0] = _mm512_dpbf16_ps(acc[0], a0, bj);
            acc[1] = _mm512_dpbf16_ps(acc[1], a1, bj);
        }
    }
    let mut out = [[0f32; 16]; 2];
    for (j, acc) in acc.iter().enumerate().take(cols.1) {
        for (v, o) in out.iter_mut().enumerate() {
            // SAFETY: `o` is 16 f32.
            unsafe { _mm512_storeu_ps(o.as_mut_ptr(), acc[v]) };
        }
        for r in 0..rows.1 {
            let x = out[r / 16][r % 16];
            let (i, jj) = ((rows.0 + r) as isize, (cols.0 + j) as isize);
            let at = (origin + i * rsc + jj * csc) as usize;
            c[at] = if beta == 0.0 {
                alpha * x
            } else {
                alpha * x + beta * c[at]
            };
        }
    }
}
