//! aarch64 instantiations of the microkernel: Advanced SIMD (NEON), f32 and f64.
//!
//! Tiles (MR × NR, accumulators in the 32 vector registers): f32 8 × 12 (2 × 12 = 24 q
//! registers of four lanes, BLIS's and OpenBLAS's Cortex-A57/Neoverse shape), f64 8 × 6 (4 × 6 =
//! 24 q registers of two lanes), and the NZ fractal-row tile f64 4 × 12 (C0 = 4). Each k step
//! loads MR/LANES vectors of A and takes NR broadcasts of B (`ld1r`, or `fmla` by element),
//! then issues MV·NR `fmla`: 24 FMAs against 14 (f32) or 10 (f64) loads, within a Neoverse
//! N1's two load pipes while its two FP pipes stay busy.

use core::arch::aarch64::*;

use super::kernel::{InPlace, Simd, Tile, tile_body, tile_body_in_place};

/// NEON, 4 × f32.
pub(crate) struct NeonF32;
/// NEON, 2 × f64.
pub(crate) struct NeonF64;

macro_rules! simd_impl {
    ($name:ident, $t:ty, $v:ty, $lanes:expr, $dup:ident, $ld:ident, $st:ident, $fma:ident,
     $mul:ident, $add:ident) => {
        impl Simd<$t> for $name {
            type V = $v;
            const LANES: usize = $lanes;
            #[inline(always)]
            unsafe fn zero() -> $v {
                // SAFETY: the caller guarantees the instruction set.
                unsafe { $dup(0.0) }
            }
            #[inline(always)]
            unsafe fn splat(x: $t) -> $v {
                // SAFETY: the caller guarantees the instruction set.
                unsafe { $dup(x) }
            }
            #[inline(always)]
            unsafe fn load(p: *const $t) -> $v {
                // SAFETY: the caller guarantees the instruction set and `LANES` readable elements.
                unsafe { $ld(p) }
            }
            #[inline(always)]
            unsafe fn store(p: *mut $t, v: $v) {
                // SAFETY: the caller guarantees the instruction set and `LANES` writable elements.
                unsafe { $st(p, v) }
            }
            #[inline(always)]
            unsafe fn fma(a: $v, b: $v, c: $v) -> $v {
                // `vfmaq(c, a, b)` is `c + a·b`, one `fmla`
                // SAFETY: the caller guarantees the instruction set.
                unsafe { $fma(c, a, b) }
            }
            #[inline(always)]
            unsafe fn mul(a: $v, b: $v) -> $v {
                // SAFETY: the caller guarantees the instruction set.
                unsafe { $mul(a, b) }
            }
            #[inline(always)]
            unsafe fn add(a: $v, b: $v) -> $v {
                // SAFETY: the caller guarantees the instruction set.
                unsafe { $add(a, b) }
            }
        }
    };
}

simd_impl!(
    NeonF32,
    f32,
    float32x4_t,
    4,
    vdupq_n_f32,
    vld1q_f32,
    vst1q_f32,
    vfmaq_f32,
    vmulq_f32,
    vaddq_f32
);
simd_impl!(
    NeonF64,
    f64,
    float64x2_t,
    2,
    vdupq_n_f64,
    vld1q_f64,
    vst1q_f64,
    vfmaq_f64,
    vmulq_f64,
    vaddq_f64
);

/// NEON f32 tile: 2 q registers × 12 columns = 8 × 12 (24 accumulators). Its MR is also the
/// f32 NZ fractal row (C0 = 8), so it serves NZ outputs as they are.
pub(crate) const NEON_F32: (usize, usize) = (8, 12);
/// NEON f64 tile: 4 q registers × 6 columns = 8 × 6 (24 accumulators).
pub(crate) const NEON_F64: (usize, usize) = (8, 6);
/// The f64 fractal-row tile: 2 q registers × 12 columns = 4 × 12 (C0 = 4).
pub(crate) const FRACTAL_F64: (usize, usize) = (4, 12);

/// NEON f32 microkernel, 8 × 12.
///
/// # Safety
/// As `Ukr`; NEON is available.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn neon_f32(t: &Tile<f32>) {
    // SAFETY: forwarded contract; the feature is enabled on this function.
    unsafe { tile_body::<f32, NeonF32, 2, 12>(t) }
}

/// NEON f64 microkernel, 8 × 6.
///
/// # Safety
/// As `Ukr`; NEON is available.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn neon_f64(t: &Tile<f64>) {
    // SAFETY: forwarded contract; the feature is enabled on this function.
    unsafe { tile_body::<f64, NeonF64, 4, 6>(t) }
}

/// NEON f64 microkernel of the fractal-row tile, 4 × 12.
///
/// # Safety
/// As `Ukr`; NEON is available.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn fractal_f64(t: &Tile<f64>) {
    // SAFETY: forwarded contract; the feature is enabled on this function.
    unsafe { tile_body::<f64, NeonF64, 2, 12>(t) }
}

/// NEON f32 8 × 12 with the broadcast operand read in place (`UkrInPlace`).
///
/// # Safety
/// As `UkrInPlace`; NEON is available.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn neon_f32_in_place(t: &Tile<f32>, b: &InPlace<f32>) {
    // SAFETY: forwarded contract; the feature is enabled on this function.
    unsafe { tile_body_in_place::<f32, NeonF32, 2, 12>(t, b) }
}

/// NEON f64 8 × 6 with the broadcast operand read in place (`UkrInPlace`).
///
/// # Safety
/// As `UkrInPlace`; NEON is available.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn neon_f64_in_place(t: &Tile<f64>, b: &InPlace<f64>) {
    // SAFETY: forwarded contract; the feature is enabled on this function.
    unsafe { tile_body_in_place::<f64, NeonF64, 4, 6>(t, b) }
}

/// NEON f64 4 × 12 fractal-row tile with the broadcast operand read in place.
///
/// # Safety
/// As `UkrInPlace`; NEON is available.
#[target_feature(enable = "neon")]
pub(crate) unsafe fn fractal_f64_in_place(t: &Tile<f64>, b: &InPlace<f64>) {
    // SAFETY: forwarded contract; the feature is enabled on this function.
    unsafe { tile_body_in_place::<f64, NeonF64, 2, 12>(t, b) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::kernel::{Element, Ukr};
    use std::vec::Vec;

    /// Whole numbers small enough that every sum is exact in f32.
    fn fill<T: Element>(len: usize, seed: usize, from: impl Fn(i32) -> T) -> Vec<T> {
        (0..len)
            .map(|i| from(((i * 7 + seed * 13) % 11) as i32 - 5))
            .collect()
    }

    /// Each NEON microkernel, called directly, against the definition
    /// `C ← α·Ã·B̃ + β·C` on packed panels: β = 0 (C filled with NaN, never read), β = 1 and
    /// another β, C with unit row stride (vector stores) and transposed (the stack tile), k
    /// from 0 to past one vector loop.
    fn check<T: Element>(
        ukr: Ukr<T>,
        mr: usize,
        nr: usize,
        nan: T,
        from: impl Fn(i32) -> T + Copy,
    ) {
        for k in [0usize, 1, 2, 7, 33] {
            let a = fill(mr * k, 1, from);
            let b = fill(nr * k, 2, from);
            for (alpha, beta) in [(1, 0), (2, 1), (-1, 3)] {
                let (alpha, beta) = (from(alpha), from(beta));
                for col_major in [true, false] {
                    let (rsc, csc) = if col_major { (1, mr) } else { (nr, 1) };
                    let c0 = if beta == T::ZERO {
                        std::vec![from(0); mr * nr]
                    } else {
                        fill(mr * nr, 3, from)
                    };
                    let mut c = c0.clone();
                    if beta == T::ZERO {
                        // NaN: the kernel must not read C
                        c.fill(nan);
                    }
                    let t = Tile {
                        k,
                        alpha,
                        beta,
                        a: a.as_ptr(),
                        b: b.as_ptr(),
                        c: c.as_mut_ptr(),
                        rsc: rsc as isize,
                        csc: csc as isize,
                        vsc: 0,
                    };
                    // SAFETY: NEON is in every aarch64 CPU; `a` holds MR·k, `b` NR·k elements,
                    // `c` the whole tile at these strides.
                    unsafe { ukr(&t) };
                    for i in 0..mr {
                        for j in 0..nr {
                            let mut s = from(0);
                            for p in 0..k {
                                s = s + a[p * mr + i] * b[p * nr + j];
                            }
                            let at = i * rsc + j * csc;
                            let want = alpha * s + beta * c0[at];
                            assert_eq!(c[at], want, "{mr}×{nr} k {k} ({i},{j})");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn every_neon_kernel_matches_the_definition() {
        let (mr, nr) = NEON_F32;
        check::<f32>(neon_f32, mr, nr, f32::NAN, |x| x as f32);
        let (mr, nr) = NEON_F64;
        check::<f64>(neon_f64, mr, nr, f64::NAN, |x| x as f64);
        let (mr, nr) = FRACTAL_F64;
        check::<f64>(fractal_f64, mr, nr, f64::NAN, |x| x as f64);
    }

    /// An f64 C in Ascend NZ (fractal rows of C0 = 4) takes the fractal-row kernel through the
    /// engine: the result is the definition's.
    #[test]
    fn nz_output_takes_the_fractal_kernel() {
        use crate::gemm::{Isa, Options, Packing, gemm_tensors_with};
        use crate::tensor::Tensor;
        let (m, k, n) = (32i64, 9i64, 20i64);
        let a = fill((m * k) as usize, 4, |x| x as f64);
        let b = fill((k * n) as usize, 5, |x| x as f64);
        let ta = Tensor::new(
            &a[..],
            crate::DynLayout::from_flat(&[m, k], &[1, m]).unwrap(),
        )
        .unwrap();
        let tb = Tensor::new(
            &b[..],
            crate::DynLayout::from_flat(&[k, n], &[1, k]).unwrap(),
        )
        .unwrap();
        // f64's C0: four elements (32 bytes) per fractal row
        let lc = crate::formulas::ascend::nz_layout(4, m, n).unwrap();
        let mut c = std::vec![f64::NAN; (m * n) as usize];
        let mut tc = Tensor::new(&mut c[..], lc).unwrap();
        let opts = Options {
            isa: Isa::Neon,
            threads: 1,
            packing: Packing::Always,
        };
        gemm_tensors_with(opts, 2.0, &ta, &tb, 0.0, &mut tc).unwrap();
        for i in 0..m {
            for j in 0..n {
                let s: f64 = (0..k).map(|p| ta[[i, p]] * tb[[p, j]]).sum();
                assert_eq!(tc[[i, j]], 2.0 * s, "({i},{j})");
            }
        }
    }
}
