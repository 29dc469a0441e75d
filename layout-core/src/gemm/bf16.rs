//! bf16 × bf16 → f32 on AVX-512 BF16: `vdpbf16ps` multiplies pairs of bf16 and adds both
//! products into an f32 lane, twice the multiply-adds of an f32 FMA per instruction.
//!
//! The reduction dimension k is interleaved in pairs ("VNNI-2"), the same panel layout as the
//! integer pairs (`((2, R), ⌈k/2⌉) : ((1, 2), 2R)`, packed by the same source, the bf16 bits
//! as the 16-bit lanes): A panels of MR = 32 rows hold, for each pair of k, the two values of a
//! row side by side in one 32-bit lane; B panels of NR = 12 columns hold, for each pair, the two
//! values of a column as one 32-bit word that the kernel broadcasts. Odd k and the m, n edges are
//! zero-padded (zeros add nothing). Loops, blocking, threads, edge tiles and C of any layout are
//! the engine's (`block::run_panels`). `vdpbf16ps` flushes denormal inputs and outputs to zero
//! and rounds each accumulation to nearest even (see `reference/gemm.md` §7); on integer data
//! small enough for bf16 the results are exact.

use core::arch::x86_64::*;
use std::cell::RefCell;
use std::vec::Vec;

use super::kernel::{Kern, KernelInfo, Tile};

/// Rows of a packed A panel (two zmm of 16 f32 accumulators).
const MR: usize = 32;
/// Columns of a packed B panel.
const NR: usize = 12;

/// `true` when this CPU has AVX-512 BF16 (and AVX-512F).
pub(crate) fn available() -> bool {
    crate::isa::has_avx512_bf16(crate::isa::Isa::Avx512)
}

/// The bf16 pair's kernels: C, α, β in `f32`, panels of bf16 bits in k pairs.
pub(crate) struct Bf16Pairs;

impl Kern for Bf16Pairs {
    type C = f32;
    type P = i16;
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const KSTEP: usize = 2;
    #[inline(always)]
    fn mul_add(c: f32, beta: f32, x: f32) -> f32 {
        c * beta + x
    }
    #[inline(always)]
    fn add(c: f32, x: f32) -> f32 {
        c + x
    }
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<i16>, &mut Vec<i16>) -> R) -> R {
        std::thread_local! {
            static BUFS: RefCell<(Vec<i16>, Vec<i16>)> = const { RefCell::new((Vec::new(), Vec::new())) };
        }
        super::dispatch::with_cached(&BUFS, f)
    }
}

/// The kernel and its blocking ([`KernelInfo::sized`]): KC at most 512 k values (256 pairs),
/// the A block at most 384 KiB.
pub(crate) fn kernel() -> KernelInfo<f32, i16> {
    KernelInfo::sized(MR, NR, 512, 384 << 10, ukr)
}

/// One 32 × 12 tile over `t.k` pairs of k: `C ← α·acc + β·C` (β = 0: C not read).
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = 32, NR = 12, `KSTEP = 2`; AVX-512 BF16 available.
#[target_feature(enable = "avx512bf16,avx512f")]
unsafe fn ukr(t: &Tile<f32, i16>) {
    let mut acc = [[_mm512_setzero_ps(); 2]; NR];
    let (ap, bp) = (t.a.cast::<u32>(), t.b.cast::<u32>());
    for p in 0..t.k {
        // SAFETY: p < k: the 32 words of A and the 12 of B of this pair are inside the
        // panels (the caller's contract: 2·MR·k and 2·NR·k i16).
        let (a0, a1) = unsafe {
            (
                _mm512_loadu_si512(ap.add(p * MR).cast()),
                _mm512_loadu_si512(ap.add(p * MR + 16).cast()),
            )
        };
        let (a0, a1): (__m512bh, __m512bh) = (
            // SAFETY: a bit-for-bit reinterpretation of 512 bits.
            unsafe { core::mem::transmute::<__m512i, __m512bh>(a0) },
            // SAFETY: as above.
            unsafe { core::mem::transmute::<__m512i, __m512bh>(a1) },
        );
        for (j, acc) in acc.iter_mut().enumerate() {
            // SAFETY: inside the B panel (above); unaligned read of one word.
            let w = unsafe { bp.add(p * NR + j).read_unaligned() } as i32;
            // SAFETY: a bit-for-bit reinterpretation of 512 bits.
            let bj = unsafe { core::mem::transmute::<__m512i, __m512bh>(_mm512_set1_epi32(w)) };
            acc[0] = _mm512_dpbf16_ps(acc[0], a0, bj);
            acc[1] = _mm512_dpbf16_ps(acc[1], a1, bj);
        }
    }
    let mut out = [[0f32; 16]; 2];
    for (j, acc) in acc.iter().enumerate() {
        for (v, o) in out.iter_mut().enumerate() {
            // SAFETY: `o` is 16 f32.
            unsafe { _mm512_storeu_ps(o.as_mut_ptr(), acc[v]) };
        }
        for r in 0..MR {
            let x = t.alpha * out[r / 16][r % 16];
            // SAFETY: (r, j) is inside the tile (r < MR, j < NR): the caller's contract.
            unsafe {
                let q = t.c.offset(r as isize * t.rsc + j as isize * t.csc);
                *q = if t.beta == 0.0 { x } else { x + t.beta * *q };
            }
        }
    }
}
