//! x86-64 instantiations of the microkernel: AVX-512F and AVX2+FMA, f32 and f64.
//!
//! Tiles (MR × NR, accumulators): AVX-512 f32 32×12 (24 zmm, BLIS skx/zen4), f64 32×6
//! (24 zmm, AOCL-BLIS zen4); AVX2 f32 16×6 and f64 8×6 (12 ymm).

use core::arch::x86_64::*;

use super::kernel::{
    InPlace, Simd, Tile, tile_body, tile_body_in_place, tile_body_in_place_halves,
};

/// AVX-512F, 16 × f32.
pub(crate) struct Avx512F32;
/// AVX-512F, 8 × f64.
pub(crate) struct Avx512F64;
/// AVX2 + FMA, 8 × f32.
pub(crate) struct Avx2F32;
/// AVX2 + FMA, 4 × f64.
pub(crate) struct Avx2F64;

macro_rules! simd_impl {
    ($name:ident, $t:ty, $v:ty, $lanes:expr, $zero:ident, $set1:ident, $loadu:ident,
     $storeu:ident, $fmadd:ident, $mul:ident, $add:ident) => {
        impl Simd<$t> for $name {
            type V = $v;
            const LANES: usize = $lanes;
            #[inline(always)]
            unsafe fn zero() -> $v {
                // SAFETY: the caller guarantees the instruction set.
                unsafe { $zero() }
            }
            #[inline(always)]
            unsafe fn splat(x: $t) -> $v {
                // SAFETY: the caller guarantees the instruction set.
                unsafe { $set1(x) }
            }
            #[inline(always)]
            unsafe fn load(p: *const $t) -> $v {
                // SAFETY: the caller guarantees the instruction set and `LANES` readable elements.
                unsafe { $loadu(p) }
            }
            #[inline(always)]
            unsafe fn store(p: *mut $t, v: $v) {
                // SAFETY: the caller guarantees the instruction set and `LANES` writable elements.
                unsafe { $storeu(p, v) }
            }
            #[inline(always)]
            unsafe fn fma(a: $v, b: $v, c: $v) -> $v {
                // SAFETY: the caller guarantees the instruction set.
                unsafe { $fmadd(a, b, c) }
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
            #[inline(always)]
            fn prefetch(p: *const $t) {
                // SAFETY: a prefetch is a hint on an address, never a memory access: it cannot
                // fault or read, whatever `p` is (SSE, part of the x86-64 baseline).
                unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) }
            }
        }
    };
}

simd_impl!(
    Avx512F32,
    f32,
    __m512,
    16,
    _mm512_setzero_ps,
    _mm512_set1_ps,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    _mm512_fmadd_ps,
    _mm512_mul_ps,
    _mm512_add_ps
);
simd_impl!(
    Avx512F64,
    f64,
    __m512d,
    8,
    _mm512_setzero_pd,
    _mm512_set1_pd,
    _mm512_loadu_pd,
    _mm512_storeu_pd,
    _mm512_fmadd_pd,
    _mm512_mul_pd,
    _mm512_add_pd
);
simd_impl!(
    Avx2F32,
    f32,
    __m256,
    8,
    _mm256_setzero_ps,
    _mm256_set1_ps,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_fmadd_ps,
    _mm256_mul_ps,
    _mm256_add_ps
);
simd_impl!(
    Avx2F64,
    f64,
    __m256d,
    4,
    _mm256_setzero_pd,
    _mm256_set1_pd,
    _mm256_loadu_pd,
    _mm256_storeu_pd,
    _mm256_fmadd_pd,
    _mm256_mul_pd,
    _mm256_add_pd
);

/// AVX-512 f32 tile: 2 zmm × 12 columns = 32 × 12.
pub(crate) const AVX512_F32: (usize, usize) = (32, 12);
/// AVX-512 f64 tile: 4 zmm × 6 columns = 32 × 6 (AOCL zen4; 16 × 14 was tried first, its
/// 28 KiB B micro-panel at KC = 256 nearly fills the 32 KiB L1).
pub(crate) const AVX512_F64: (usize, usize) = (32, 6);
/// AVX2 f32 tile: 2 ymm × 6 columns = 16 × 6.
pub(crate) const AVX2_F32: (usize, usize) = (16, 6);
/// AVX2 f64 tile: 2 ymm × 6 columns = 8 × 6.
pub(crate) const AVX2_F64: (usize, usize) = (8, 6);

/// AVX-512 f32 microkernel, 32 × 12.
///
/// # Safety
/// As `Ukr`; AVX-512F and FMA are available.
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f32(t: &Tile<f32>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { tile_body::<f32, Avx512F32, 2, 12>(t) }
}

/// AVX-512 f64 microkernel, 32 × 6.
///
/// # Safety
/// As `Ukr`; AVX-512F and FMA are available.
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f64(t: &Tile<f64>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { tile_body::<f64, Avx512F64, 4, 6>(t) }
}

/// AVX2 f32 microkernel, 16 × 6.
///
/// # Safety
/// As `Ukr`; AVX2 and FMA are available.
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn avx2_f32(t: &Tile<f32>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { tile_body::<f32, Avx2F32, 2, 6>(t) }
}

/// AVX2 f64 microkernel, 8 × 6.
///
/// # Safety
/// As `Ukr`; AVX2 and FMA are available.
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn avx2_f64(t: &Tile<f64>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { tile_body::<f64, Avx2F64, 2, 6>(t) }
}

/// The fractal-row tile for f32 (AVX2 or better): one ymm × 12 columns = 8 × 12. An Ascend NZ
/// fractal row of f32 is C0 = 8 contiguous elements, so with a C in NZ every tile of this kernel
/// lies in one run and is stored from the registers (the 16-row tile straddles two fractal rows
/// and would go through the stack tile).
pub(crate) const FRACTAL_F32: (usize, usize) = (8, 12);
/// The fractal-row tile for f64: one ymm × 12 columns = 4 × 12 (C0 = 4).
pub(crate) const FRACTAL_F64: (usize, usize) = (4, 12);

/// f32 microkernel of the fractal-row tile, 8 × 12.
///
/// # Safety
/// As `Ukr`; AVX2 and FMA are available.
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn fractal_f32(t: &Tile<f32>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { tile_body::<f32, Avx2F32, 1, 12>(t) }
}

/// f64 microkernel of the fractal-row tile, 4 × 12.
///
/// # Safety
/// As `Ukr`; AVX2 and FMA are available.
#[target_feature(enable = "avx2,fma")]
pub(crate) unsafe fn fractal_f64(t: &Tile<f64>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { tile_body::<f64, Avx2F64, 1, 12>(t) }
}

/// The kernels above with their broadcast operand read in place (`UkrInPlace`): one function
/// per kernel, the same body over a different source of B's values.
macro_rules! in_place {
    ($($name:ident, $feat:literal, $t:ty, $s:ty, $mv:literal, $nr:literal $(/ $h:literal)?;)*) => {$(
        /// The kernel of the same shape reading its broadcast operand in place.
        ///
        /// # Safety
        /// As `UkrInPlace`; the instruction set named in its `target_feature` is available.
        #[target_feature(enable = $feat)]
        pub(crate) unsafe fn $name(t: &Tile<$t>, b: &InPlace<$t>) {
            // SAFETY: forwarded contract; the features are enabled on this function.
            unsafe { in_place!(@body $t, $s, $mv, $nr $(/ $h)?; t, b) }
        }
    )*};
    (@body $t:ty, $s:ty, $mv:literal, $nr:literal; $tile:ident, $b:ident) => {
        tile_body_in_place::<$t, $s, $mv, $nr>($tile, $b)
    };
    (@body $t:ty, $s:ty, $mv:literal, $nr:literal / $h:literal; $tile:ident, $b:ident) => {
        tile_body_in_place_halves::<$t, $s, $mv, $nr, $h>($tile, $b)
    };
}
in_place! {
    // (12 column pointers spill the accumulators: two halves of 6, `tile_body_in_place_halves`)
    avx512_f32_in_place, "avx512f,fma", f32, Avx512F32, 2, 12 / 6;
    avx512_f64_in_place, "avx512f,fma", f64, Avx512F64, 4, 6;
    avx2_f32_in_place, "avx2,fma", f32, Avx2F32, 2, 6;
    avx2_f64_in_place, "avx2,fma", f64, Avx2F64, 2, 6;
    fractal_f32_in_place, "avx2,fma", f32, Avx2F32, 1, 12;
    fractal_f64_in_place, "avx2,fma", f64, Avx2F64, 1, 12;
}
