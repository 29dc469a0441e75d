//! x86-64 instantiations of the microkernel: AVX-512F and AVX2+FMA, f32 and f64.
//!
//! Tiles (MR × NR, accumulators): AVX-512 f32 32×12 (24 zmm, BLIS skx/zen4), f64 32×6
//! (24 zmm, AOCL-BLIS zen4); AVX2 f32 16×6 and f64 8×6 (12 ymm).

use core::arch::x86_64::*;

use super::kernel::{
    Columns, InPlace, MAX_NR_IN_PLACE, NARROW_IN_PLACE, Simd, Tile, tile_body,
    tile_body_in_place_at, tile_body_in_place_halves,
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

/// The columns of [`avx512_f32_narrow`].
pub(crate) const AVX512_F32_NARROW: usize = 8;

/// AVX-512 f32 microkernel, 32 × 8: the narrow variant of [`avx512_f32`] for products of few
/// columns (`KernelInfo::fit`: 16 columns as two tiles, not 12 + 4).
///
/// # Safety
/// As `Ukr`; AVX-512F and FMA are available.
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f32_narrow(t: &Tile<f32>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { tile_body::<f32, Avx512F32, 2, AVX512_F32_NARROW>(t) }
}

/// The columns of [`avx512_f64_narrow`].
pub(crate) const AVX512_F64_NARROW: usize = 4;

/// AVX-512 f64 microkernel, 32 × 4: the narrow variant of [`avx512_f64`] (16 columns as four
/// tiles, not 6 + 6 + 4).
///
/// # Safety
/// As `Ukr`; AVX-512F and FMA are available.
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f64_narrow(t: &Tile<f64>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { tile_body::<f64, Avx512F64, 4, AVX512_F64_NARROW>(t) }
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

/// The kernels above with their broadcast operand read in place (`UkrInPlace`): one function
/// per kernel, the same body over a different source of B's values; those marked `a` read
/// their vectorised operand in place too, k steps `InPlace::ak` apart (`KernelInfo::in_place_a`).
macro_rules! in_place {
    ($($name:ident, $feat:literal, $t:ty, $s:ty, $mv:literal, $nr:literal $(/ $h:literal)?
       $(, $a:ident)?;)*) => {$(
        /// The kernel of the same shape reading its broadcast operand in place.
        ///
        /// # Safety
        /// As `UkrInPlace`; the instruction set named in its `target_feature` is available.
        #[target_feature(enable = $feat)]
        pub(crate) unsafe fn $name(t: &Tile<$t>, b: &InPlace<$t>) {
            // SAFETY: forwarded contract; the features are enabled on this function.
            unsafe { in_place!(@body $t, $s, $mv, $nr $(/ $h)?, in_place!(@ak $($a)?); t, b) }
        }
    )*};
    (@ak) => { false };
    (@ak a) => { true };
    (@body $t:ty, $s:ty, $mv:literal, $nr:literal, $ak:expr; $tile:ident, $b:ident) => {
        tile_body_in_place_at::<$t, $s, $mv, $nr, { $ak }>($tile, $b)
    };
    (@body $t:ty, $s:ty, $mv:literal, $nr:literal / $h:literal, $ak:expr; $tile:ident, $b:ident) => {
        tile_body_in_place_halves::<$t, $s, $mv, $nr, $h, { $ak }>($tile, $b)
    };
}
in_place! {
    // (12 column pointers spill the accumulators: two halves of 6, `tile_body_in_place_halves`)
    avx512_f32_in_place, "avx512f,fma", f32, Avx512F32, 2, 12 / 6;
    avx512_f64_in_place, "avx512f,fma", f64, Avx512F64, 4, 6;
    // the narrow tiles (`KernelInfo::fit`): 8 and 4 column pointers stay in registers
    avx512_f32_narrow_in_place, "avx512f,fma", f32, Avx512F32, 2, 8;
    avx512_f64_narrow_in_place, "avx512f,fma", f64, Avx512F64, 4, 4;
    avx2_f32_in_place, "avx2,fma", f32, Avx2F32, 2, 6;
    avx2_f64_in_place, "avx2,fma", f64, Avx2F64, 2, 6;
    // both operands in place (`KernelInfo::in_place_a`): the user's row-major B under a named A
    avx512_f32_in_place_a, "avx512f,fma", f32, Avx512F32, 2, 12 / 6, a;
    avx512_f64_in_place_a, "avx512f,fma", f64, Avx512F64, 4, 6, a;
    avx2_f32_in_place_a, "avx2,fma", f32, Avx2F32, 2, 6, a;
    avx2_f64_in_place_a, "avx2,fma", f64, Avx2F64, 2, 6, a;
    avx512_f32_narrow_in_place_a, "avx512f,fma", f32, Avx512F32, 2, 8, a;
    avx512_f64_narrow_in_place_a, "avx512f,fma", f64, Avx512F64, 4, 4, a;
}

// ---------------------------------------------------------------------------------------------
// AVX-512 tiles for a C of 32-byte runs (issue 28): an NZ fractal row of f32 (C0 = 8) or f64
// (C0 = 4) is half a zmm. The tile is the AVX-512 one (f32 32 × 12, f64 32 × 6, zmm FMAs), and
// each zmm of C is stored as two 256-bit halves, each where its run is: an NZ C keeps the full
// AVX-512 width instead of AVX2's one-ymm fractal-row tile (half the FMA width; removed in session 9).

/// A zmm type whose two 256-bit halves are loaded and stored apart.
pub(crate) trait Halves<T: super::kernel::Element>: super::kernel::Simd<T> {
    /// Stores the low half of `v` at `lo` and the high half at `hi`.
    ///
    /// # Safety
    /// The instruction set is available; `lo` and `hi` are each valid for `LANES / 2` writes.
    unsafe fn store_halves(lo: *mut T, hi: *mut T, v: Self::V);
    /// The vector whose low half is read from `lo` and high half from `hi`.
    ///
    /// # Safety
    /// The instruction set is available; `lo` and `hi` are each valid for `LANES / 2` reads.
    unsafe fn load_halves(lo: *const T, hi: *const T) -> Self::V;
}

impl Halves<f32> for Avx512F32 {
    #[inline(always)]
    unsafe fn store_halves(lo: *mut f32, hi: *mut f32, v: __m512) {
        // SAFETY: the caller guarantees AVX-512F and 8 writable f32 at `lo` and at `hi`.
        unsafe {
            _mm256_storeu_ps(lo, _mm512_castps512_ps256(v));
            let h = _mm512_extractf64x4_pd::<1>(_mm512_castps_pd(v));
            _mm256_storeu_ps(hi, _mm256_castpd_ps(h));
        }
    }
    #[inline(always)]
    unsafe fn load_halves(lo: *const f32, hi: *const f32) -> __m512 {
        // SAFETY: the caller guarantees AVX-512F and 8 readable f32 at `lo` and at `hi`.
        unsafe {
            let l = _mm512_castps_pd(_mm512_castps256_ps512(_mm256_loadu_ps(lo)));
            let h = _mm256_castps_pd(_mm256_loadu_ps(hi));
            _mm512_castpd_ps(_mm512_insertf64x4::<1>(l, h))
        }
    }
}

impl Halves<f64> for Avx512F64 {
    #[inline(always)]
    unsafe fn store_halves(lo: *mut f64, hi: *mut f64, v: __m512d) {
        // SAFETY: the caller guarantees AVX-512F and 4 writable f64 at `lo` and at `hi`.
        unsafe {
            _mm256_storeu_pd(lo, _mm512_castpd512_pd256(v));
            _mm256_storeu_pd(hi, _mm512_extractf64x4_pd::<1>(v));
        }
    }
    #[inline(always)]
    unsafe fn load_halves(lo: *const f64, hi: *const f64) -> __m512d {
        // SAFETY: the caller guarantees AVX-512F and 4 readable f64 at `lo` and at `hi`.
        unsafe {
            let l = _mm512_castpd256_pd512(_mm256_loadu_pd(lo));
            _mm512_insertf64x4::<1>(l, _mm256_loadu_pd(hi))
        }
    }
}

/// A packed B micro-panel for [`halves_body`]: NR values per k step, contiguous. (Read in
/// place, B goes through [`halves_in_place`]: 12 column pointers in one body spilled general
/// registers and ran slower than packing (session 9); two 6-column parts do not.)
struct PackedSteps<T>(*const T);

impl<T: Copy, const NR: usize> super::kernel::BSource<T, NR> for PackedSteps<T> {
    #[inline(always)]
    unsafe fn step(&self, u: usize) -> [T; NR] {
        // SAFETY: the caller's contract: NR readable values at step `u`.
        core::array::from_fn(|j| unsafe { *self.0.add(u * NR + j) })
    }
    #[inline(always)]
    unsafe fn advance(&mut self, steps: usize) {
        // SAFETY: the caller's contract.
        self.0 = unsafe { self.0.add(steps * NR) };
    }
}

/// The tile body of MV zmm × NR columns whose C row vectors are stored in halves: with
/// `t.vsc ≠ 0` (then `t.rsc == 1`) half-vector `h` (rows `h·LANES/2 ..`) of column `j` is at
/// `t.c + h·vsc + j·csc`; with `vsc == 0` and `rsc == 1` the column is contiguous; otherwise C
/// goes through a stack tile element by element.
///
/// # Safety
/// As [`Ukr`](super::kernel::Ukr) with MR = `MV·S::LANES` (with `vsc ≠ 0`, every half-vector's
/// run `LANES / 2` elements long at the place above), the broadcast values of every k step of
/// the tile readable from `b`; the instruction set of `S` is available.
// (index loops over the register tile, as in `kernel.rs`)
#[allow(clippy::needless_range_loop)]
#[inline(always)]
unsafe fn halves_body<
    T: super::kernel::Element,
    S: Halves<T>,
    const MV: usize,
    const NR: usize,
    B: super::kernel::BSource<T, NR>,
>(
    t: &Tile<T>,
    b: B,
) {
    let lanes = S::LANES;
    let half = lanes / 2;
    let mr = MV * lanes;
    // SAFETY: (whole body) the caller guarantees the ISA and the extents of a, b and c.
    unsafe {
        // half-vector h of a column at h·hstep from its start (rsc == 1)
        let hstep = if t.vsc == 0 { half as isize } else { t.vsc };
        if t.rsc == 1 {
            for j in 0..NR {
                let cj = t.c.wrapping_offset(j as isize * t.csc);
                for h in 0..2 * MV {
                    let ch = cj.wrapping_offset(h as isize * hstep);
                    S::prefetch(ch);
                    S::prefetch(ch.wrapping_add(half - 1));
                }
            }
        }
        let acc = super::kernel::accumulate::<T, S, MV, NR, B>(t, b);
        let alpha = S::splat(t.alpha);
        if t.rsc == 1 {
            let beta = S::splat(t.beta);
            for j in 0..NR {
                let cj = t.c.offset(j as isize * t.csc);
                for v in 0..MV {
                    let lo = cj.offset(2 * v as isize * hstep);
                    let hi = lo.offset(hstep);
                    let x = S::mul(acc[j][v], alpha);
                    let r = if t.beta == T::ZERO {
                        x
                    } else if t.beta == T::ONE {
                        S::add(S::load_halves(lo, hi), x)
                    } else {
                        S::fma(S::load_halves(lo, hi), beta, x)
                    };
                    if t.vsc == 0 {
                        S::store(lo, r);
                    } else {
                        S::store_halves(lo, hi, r);
                    }
                }
            }
        } else {
            let mut tmp = [T::ZERO; super::kernel::MAX_TILE];
            debug_assert!(mr * NR <= super::kernel::MAX_TILE);
            for j in 0..NR {
                for v in 0..MV {
                    S::store(
                        tmp.as_mut_ptr().add(j * mr + v * lanes),
                        S::mul(acc[j][v], alpha),
                    );
                }
            }
            for j in 0..NR {
                for i in 0..mr {
                    let p = t.c.offset(i as isize * t.rsc + j as isize * t.csc);
                    let x = tmp[j * mr + i];
                    *p = if t.beta == T::ZERO {
                        x
                    } else if t.beta == T::ONE {
                        *p + x
                    } else {
                        *p * t.beta + x
                    };
                }
            }
        }
    }
}

/// The runs (elements) of C the half-vector kernels store apart: 32 bytes, one ymm.
pub(crate) const HALVES_RUN_F32: usize = 8;
/// As [`HALVES_RUN_F32`] for f64.
pub(crate) const HALVES_RUN_F64: usize = 4;

/// AVX-512 f32 32 × 12 microkernel storing C in 8-element runs ([`Halves`]; the kernel's
/// `lanes` is 8).
///
/// # Safety
/// As `Ukr` (with `vsc ≠ 0`: every 8-row run at `c + (i / 8)·vsc + j·csc`); AVX-512F and FMA
/// are available.
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f32_runs(t: &Tile<f32>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { halves_body::<f32, Avx512F32, 2, 12, _>(t, PackedSteps(t.b)) }
}

/// [`avx512_f32_runs`] on 8 columns: its narrow variant (`KernelInfo::fit`).
///
/// # Safety
/// As [`avx512_f32_runs`].
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f32_runs_narrow(t: &Tile<f32>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { halves_body::<f32, Avx512F32, 2, AVX512_F32_NARROW, _>(t, PackedSteps(t.b)) }
}

/// [`avx512_f64_runs`] on 4 columns: its narrow variant (`KernelInfo::fit`).
///
/// # Safety
/// As [`avx512_f64_runs`].
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f64_runs_narrow(t: &Tile<f64>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { halves_body::<f64, Avx512F64, 4, AVX512_F64_NARROW, _>(t, PackedSteps(t.b)) }
}

/// AVX-512 f64 32 × 6 microkernel storing C in 4-element runs ([`Halves`]; the kernel's
/// `lanes` is 4).
///
/// # Safety
/// As `Ukr` (with `vsc ≠ 0`: every 4-row run at `c + (i / 4)·vsc + j·csc`); AVX-512F and FMA
/// are available.
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f64_runs(t: &Tile<f64>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { halves_body::<f64, Avx512F64, 4, 6, _>(t, PackedSteps(t.b)) }
}

/// [`halves_body`] with its broadcast operand read in place ([`InPlace`], as
/// `tile_body_in_place`): an edge tile of at most `NARROW_IN_PLACE` columns (`b.nr < NR`) at
/// its own width, a whole tile as `NR / H` tiles of H columns (H < NR: the f32 tile's 12
/// column pointers with A, C and the k offsets exceed the general registers and spill the
/// accumulators, see `tile_body_in_place_halves`; each part keeps its H pointers and the
/// A micro-panel is re-read from L1).
///
/// # Safety
/// As `UkrInPlace` for [`halves_body`]'s tile (MR = `MV·S::LANES`, C's half-vectors where
/// `t.vsc` says), NR ≤ `MAX_NR_IN_PLACE`, `H` divides NR; the instruction set of `S` is
/// available.
#[inline(always)]
unsafe fn halves_in_place<
    T: super::kernel::Element,
    S: Halves<T>,
    const MV: usize,
    const NR: usize,
    const H: usize,
>(
    t: &Tile<T>,
    b: &InPlace<T>,
) {
    /// `N` columns of the tile from column `j0` on.
    ///
    /// # Safety
    /// As [`halves_in_place`] for columns `j0 .. j0 + N` (each readable and stored).
    #[inline(always)]
    unsafe fn part<T: super::kernel::Element, S: Halves<T>, const MV: usize, const N: usize>(
        t: &Tile<T>,
        b: &InPlace<T>,
        j0: usize,
    ) {
        let src = Columns::<T, N> {
            cols: core::array::from_fn(|j| b.cols[j0 + j]),
            koff: b.koff,
        };
        let t = Tile {
            c: t.c.wrapping_offset(j0 as isize * t.csc),
            ..*t
        };
        // SAFETY: forwarded contract: columns `j0 .. j0 + N` of B readable at every k step,
        // their C columns `csc` apart from the tile's corner.
        unsafe { halves_body::<T, S, MV, N, _>(&t, src) }
    }
    const { assert!(NR <= MAX_NR_IN_PLACE && NR.is_multiple_of(H) && (H == NR || H > NARROW_IN_PLACE)) };
    const { assert!(NARROW_IN_PLACE == 5) };
    // SAFETY: (every arm) forwarded contract; an edge tile's `b.nr` columns are each readable
    // and stored, a whole tile's NR columns are covered by its parts.
    unsafe {
        match b.nr {
            1 if NR > 1 => part::<T, S, MV, 1>(t, b, 0),
            2 if NR > 2 => part::<T, S, MV, 2>(t, b, 0),
            3 if NR > 3 => part::<T, S, MV, 3>(t, b, 0),
            4 if NR > 4 => part::<T, S, MV, 4>(t, b, 0),
            5 if NR > 5 => part::<T, S, MV, 5>(t, b, 0),
            _ => {
                let mut j0 = 0;
                while j0 < NR {
                    part::<T, S, MV, H>(t, b, j0);
                    j0 += H;
                }
            }
        }
    }
}

/// [`avx512_f32_runs`] reading its broadcast operand in place (an NZ/ZZ A under an NZ C, read
/// through its axis maps): two 6-column halves per whole tile.
///
/// # Safety
/// As `UkrInPlace` for [`avx512_f32_runs`]; AVX-512F and FMA are available.
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f32_runs_in_place(t: &Tile<f32>, b: &InPlace<f32>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { halves_in_place::<f32, Avx512F32, 2, 12, 6>(t, b) }
}

/// [`avx512_f32_runs_narrow`] reading its broadcast operand in place (8 column pointers, no
/// halves).
///
/// # Safety
/// As `UkrInPlace` for [`avx512_f32_runs_narrow`]; AVX-512F and FMA are available.
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f32_runs_narrow_in_place(t: &Tile<f32>, b: &InPlace<f32>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { halves_in_place::<f32, Avx512F32, 2, AVX512_F32_NARROW, AVX512_F32_NARROW>(t, b) }
}

/// [`avx512_f64_runs_narrow`] reading its broadcast operand in place.
///
/// # Safety
/// As `UkrInPlace` for [`avx512_f64_runs_narrow`]; AVX-512F and FMA are available.
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f64_runs_narrow_in_place(t: &Tile<f64>, b: &InPlace<f64>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { halves_in_place::<f64, Avx512F64, 4, AVX512_F64_NARROW, AVX512_F64_NARROW>(t, b) }
}

/// [`avx512_f64_runs`] reading its broadcast operand in place (an NZ/ZZ A under an NZ C).
///
/// # Safety
/// As `UkrInPlace` for [`avx512_f64_runs`]; AVX-512F and FMA are available.
#[target_feature(enable = "avx512f,fma")]
pub(crate) unsafe fn avx512_f64_runs_in_place(t: &Tile<f64>, b: &InPlace<f64>) {
    // SAFETY: forwarded contract; the features are enabled on this function.
    unsafe { halves_in_place::<f64, Avx512F64, 4, 6, 6>(t, b) }
}
