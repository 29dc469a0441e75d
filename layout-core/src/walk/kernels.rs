//! Memory movers for the walks: the inner loops of a copy between two layouts, specialised on the
//! shape of the plan's innermost modes rather than on the layouts.
//!
//! - [`copy_runs`]: `count` contiguous runs of `len` elements, each with its own source and
//!   destination start (an ND → NZ copy moves 16-element fractal rows this way). Common run
//!   lengths are constants, so each run is a few vector moves instead of a `memcpy` call.
//! - [`transpose`]: a 2-D block whose fast axis differs between the two sides
//!   (`dst[i + j·ldd] = src[i·lds + j]`), moved in 8 × 8 micro-tiles inside cache-line-sized
//!   blocks, so every cache line of both sides is read or written whole while it is in L1.
//!
//! Both work on raw pointers: the caller (a copy driven by a [`Plan`](super::Plan)) has proven
//! that every element the block names is inside its buffer, once per copy.

use core::ptr;

/// Copy `count` runs of `len` elements: run `k` from `src + k·ss` to `dst + k·ds`.
///
/// # Safety
/// For every `k < count`, `src + k·ss .. + len` must be readable and `dst + k·ds .. + len`
/// writable, and the two ranges must not overlap.
#[inline(always)]
pub(crate) unsafe fn copy_runs<T: Copy>(
    dst: *mut T,
    ds: isize,
    src: *const T,
    ss: isize,
    len: usize,
    count: usize,
) {
    /// The run loop with a constant run length `L`: each run compiles to straight vector moves.
    ///
    /// # Safety
    /// As [`copy_runs`] with `len == L`.
    #[inline(always)]
    unsafe fn runs<T: Copy, const L: usize>(
        dst: *mut T,
        ds: isize,
        src: *const T,
        ss: isize,
        count: usize,
    ) {
        let (mut d, mut s) = (dst, src);
        for _ in 0..count {
            // SAFETY: the caller guarantees run `k` is in bounds on both sides and disjoint.
            unsafe {
                ptr::copy_nonoverlapping(s, d, L);
                d = d.wrapping_offset(ds);
                s = s.wrapping_offset(ss);
            }
        }
    }
    // SAFETY: every arm passes the caller's contract on unchanged.
    unsafe {
        match len {
            1 => runs::<T, 1>(dst, ds, src, ss, count),
            2 => runs::<T, 2>(dst, ds, src, ss, count),
            4 => runs::<T, 4>(dst, ds, src, ss, count),
            8 => runs::<T, 8>(dst, ds, src, ss, count),
            16 => runs::<T, 16>(dst, ds, src, ss, count),
            32 => runs::<T, 32>(dst, ds, src, ss, count),
            64 => runs::<T, 64>(dst, ds, src, ss, count),
            _ => {
                let (mut d, mut s) = (dst, src);
                for _ in 0..count {
                    ptr::copy_nonoverlapping(s, d, len);
                    d = d.wrapping_offset(ds);
                    s = s.wrapping_offset(ss);
                }
            }
        }
    }
}

/// Side of the micro-tile moved through registers.
const MICRO: usize = 8;

/// Copy the `rows × cols` block `dst[i + j·ldd] = src[i·lds + j]` (`i < rows`, `j < cols`):
/// `i` is contiguous in the destination, `j` in the source.
///
/// The block is cut into square tiles of 256 bytes a side (32 to 128 elements; on Zen 5 with
/// the SIMD micro-tiles and streaming stores 64 f32 measured best, 128 and 32 within 0–20 %
/// worse), each tile into 8 × 8 micro-tiles moved with constant trip counts — through SIMD
/// registers for plain 2-, 4- and 8-byte types ([`plain_width`]), element by element otherwise;
/// ragged edges fall back to a plain loop. Blocks beyond [`STREAM_BYTES`] are written with
/// non-temporal stores when the destination columns are 16-byte aligned.
///
/// # Safety
/// Every `src + i·lds + j` must be readable and every `dst + i + j·ldd` writable for
/// `i < rows`, `j < cols`, and no destination element may overlap a source element.
#[inline(never)]
pub(crate) unsafe fn transpose<T: Copy>(
    dst: *mut T,
    ldd: isize,
    src: *const T,
    lds: isize,
    rows: usize,
    cols: usize,
) {
    let side = (256 / core::mem::size_of::<T>().max(1)).clamp(32, 128);
    let width = plain_width::<T>();
    // 32-bit elements move through 256-bit registers where the CPU has AVX (detected once by
    // std; the SSE2 tiles otherwise)
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    let avx = width == Width::W4 && std::arch::is_x86_feature_detected!("avx");
    // non-temporal stores for blocks larger than the L2 cache (the destination is not read
    // back soon, and streaming skips the read for ownership), when every micro-tile column
    // starts 16-byte aligned
    let size = core::mem::size_of::<T>();
    let stream = cfg!(target_arch = "x86_64")
        && width != Width::Scalar
        && rows.saturating_mul(cols).saturating_mul(size) > STREAM_BYTES
        && (dst as usize).is_multiple_of(16)
        && (ldd.unsigned_abs() * size).is_multiple_of(16)
        && (8 * size).is_multiple_of(16);
    let at_src = |i: usize, j: usize| src.wrapping_offset(i as isize * lds + j as isize);
    let at_dst = |i: usize, j: usize| dst.wrapping_offset(i as isize + j as isize * ldd);
    let mut ib = 0;
    while ib < rows {
        let ie = (ib + side).min(rows);
        let mut jb = 0;
        while jb < cols {
            let je = (jb + side).min(cols);
            let mut j = jb;
            while j < je {
                let mut i = ib;
                while i < ie {
                    if i + MICRO <= ie && j + MICRO <= je {
                        // SAFETY: the 8 × 8 micro-tile lies inside the block (checked just
                        // above), which the caller guarantees is in bounds on both sides; the
                        // SIMD forms move plain-data elements of exactly their width.
                        unsafe {
                            let (d, s) = (at_dst(i, j), at_src(i, j));
                            match width {
                                #[cfg(target_arch = "x86_64")]
                                Width::W1 => sse::micro8(d.cast(), ldd, s.cast(), lds),
                                #[cfg(target_arch = "x86_64")]
                                Width::W2 => sse::micro16(d.cast(), ldd, s.cast(), lds, stream),
                                #[cfg(all(target_arch = "x86_64", feature = "std"))]
                                Width::W4 if avx => {
                                    avx::micro32(d.cast(), ldd, s.cast(), lds, stream)
                                }
                                #[cfg(target_arch = "x86_64")]
                                Width::W4 => sse::micro32(d.cast(), ldd, s.cast(), lds, stream),
                                #[cfg(target_arch = "x86_64")]
                                Width::W8 => sse::micro64(d.cast(), ldd, s.cast(), lds, stream),
                                _ => micro(d, ldd, s, lds),
                            }
                        }
                    } else {
                        for jj in j..(j + MICRO).min(je) {
                            for ii in i..(i + MICRO).min(ie) {
                                // SAFETY: `(ii, jj)` is inside the block.
                                unsafe { *at_dst(ii, jj) = *at_src(ii, jj) };
                            }
                        }
                    }
                    i += MICRO;
                }
                j += MICRO;
            }
            jb = je;
        }
        ib = ie;
    }
    #[cfg(target_arch = "x86_64")]
    if stream {
        sse::fence();
    }
}

/// Transposed blocks above this many bytes are written with non-temporal stores (twice the
/// 1 MiB L2 of the machines measured).
const STREAM_BYTES: usize = 2 << 20;

/// One 8 × 8 micro-tile, written column by column with constant trip counts (LLVM keeps the
/// eight source rows in registers and turns the moves into shuffles where it can).
///
/// # Safety
/// As [`transpose`] for an 8 × 8 block.
#[inline(always)]
unsafe fn micro<T: Copy>(dst: *mut T, ldd: isize, src: *const T, lds: isize) {
    for c in 0..MICRO {
        let d = dst.wrapping_offset(c as isize * ldd);
        for r in 0..MICRO {
            // SAFETY: the caller guarantees the 8 × 8 block is in bounds on both sides.
            unsafe { *d.add(r) = *src.wrapping_offset(r as isize * lds).add(c) };
        }
    }
}

/// How a micro-tile moves elements: through SIMD registers for plain-data types of 1, 2, 4 or 8
/// bytes (their bytes are all initialised values, so they may travel as integer lanes), element
/// by element otherwise.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Width {
    /// Element by element (any `Copy` type).
    Scalar,
    /// 8-bit plain data.
    W1,
    /// 16-bit plain data.
    W2,
    /// 32-bit plain data.
    W4,
    /// 64-bit plain data.
    W8,
}

/// The SIMD width for `T`: the primitive integers and floats of 1, 2, 4 and 8 bytes and `half`'s
/// `f16` / `bf16` (identified by type, not by size: a 4-byte struct may have padding bytes).
pub(crate) fn plain_width<T: ?Sized>() -> Width {
    use core::any::TypeId;
    let id = typeid::of::<T>();
    let is = |ids: &[TypeId]| ids.contains(&id);
    if is(&[TypeId::of::<u8>(), TypeId::of::<i8>()]) {
        Width::W1
    } else if is(&[
        TypeId::of::<u16>(),
        TypeId::of::<i16>(),
        TypeId::of::<half::f16>(),
        TypeId::of::<half::bf16>(),
    ]) {
        Width::W2
    } else if is(&[
        TypeId::of::<u32>(),
        TypeId::of::<i32>(),
        TypeId::of::<f32>(),
    ]) {
        Width::W4
    } else if is(&[
        TypeId::of::<u64>(),
        TypeId::of::<i64>(),
        TypeId::of::<f64>(),
        TypeId::of::<usize>(),
        TypeId::of::<isize>(),
    ]) {
        Width::W8
    } else {
        Width::Scalar
    }
}

/// 8 × 8 micro-tiles of 32-bit elements through AVX registers: 8 rows of 256 bits, unpacked,
/// shuffled and recombined by 128-bit halves into 8 columns (one 32-byte store each).
#[cfg(all(target_arch = "x86_64", feature = "std"))]
mod avx {
    use core::arch::x86_64::*;

    /// # Safety
    /// AVX is available; the 8 × 8 block is readable at `src` (row stride `lds` elements) and
    /// writable at `dst` (column stride `ldd`), the two do not overlap, and the elements are
    /// plain 32-bit data; with `stream`, every column start is 16-byte aligned (the streaming
    /// stores are two 16-byte halves).
    #[inline(always)]
    pub(super) unsafe fn micro32(
        dst: *mut u32,
        ldd: isize,
        src: *const u32,
        lds: isize,
        stream: bool,
    ) {
        // SAFETY: AVX (caller); the inner function's contract is the caller's.
        unsafe { micro32_avx(dst, ldd, src, lds, stream) }
    }

    /// # Safety
    /// As [`micro32`].
    #[target_feature(enable = "avx")]
    unsafe fn micro32_avx(dst: *mut u32, ldd: isize, src: *const u32, lds: isize, stream: bool) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched; the
        // shuffles only move bits (no arithmetic on the lanes).
        unsafe {
            let r = |i: isize| _mm256_loadu_ps(src.offset(i * lds).cast());
            let (r0, r1, r2, r3) = (r(0), r(1), r(2), r(3));
            let (r4, r5, r6, r7) = (r(4), r(5), r(6), r(7));
            let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpackhi_ps(r0, r1));
            let (t2, t3) = (_mm256_unpacklo_ps(r2, r3), _mm256_unpackhi_ps(r2, r3));
            let (t4, t5) = (_mm256_unpacklo_ps(r4, r5), _mm256_unpackhi_ps(r4, r5));
            let (t6, t7) = (_mm256_unpacklo_ps(r6, r7), _mm256_unpackhi_ps(r6, r7));
            let (u0, u1) = (
                _mm256_shuffle_ps::<0x44>(t0, t2),
                _mm256_shuffle_ps::<0xEE>(t0, t2),
            );
            let (u2, u3) = (
                _mm256_shuffle_ps::<0x44>(t1, t3),
                _mm256_shuffle_ps::<0xEE>(t1, t3),
            );
            let (u4, u5) = (
                _mm256_shuffle_ps::<0x44>(t4, t6),
                _mm256_shuffle_ps::<0xEE>(t4, t6),
            );
            let (u6, u7) = (
                _mm256_shuffle_ps::<0x44>(t5, t7),
                _mm256_shuffle_ps::<0xEE>(t5, t7),
            );
            let w = |j: isize, v: __m256| {
                let p = dst.offset(j * ldd);
                if stream {
                    let v = _mm256_castps_si256(v);
                    _mm_stream_si128(p.cast(), _mm256_castsi256_si128(v));
                    _mm_stream_si128(p.add(4).cast(), _mm256_extractf128_si256::<1>(v));
                } else {
                    _mm256_storeu_ps(p.cast(), v)
                }
            };
            w(0, _mm256_permute2f128_ps::<0x20>(u0, u4));
            w(1, _mm256_permute2f128_ps::<0x20>(u1, u5));
            w(2, _mm256_permute2f128_ps::<0x20>(u2, u6));
            w(3, _mm256_permute2f128_ps::<0x20>(u3, u7));
            w(4, _mm256_permute2f128_ps::<0x31>(u0, u4));
            w(5, _mm256_permute2f128_ps::<0x31>(u1, u5));
            w(6, _mm256_permute2f128_ps::<0x31>(u2, u6));
            w(7, _mm256_permute2f128_ps::<0x31>(u3, u7));
        }
    }
}

/// 8 × 8 micro-tiles through SSE2 registers (baseline on x86-64): `dst[i + j·ldd] =
/// src[i·lds + j]` for `i, j < 8`, by unpacking rows into columns.
#[cfg(target_arch = "x86_64")]
mod sse {
    use core::arch::x86_64::*;

    /// One 16-byte store: non-temporal (around the caches, no read for ownership) when
    /// `stream`, which the caller sets only with every destination column 16-byte aligned.
    ///
    /// # Safety
    /// `p` is writable for 16 bytes, and 16-byte aligned when `stream`.
    #[inline(always)]
    unsafe fn store(p: *mut __m128i, v: __m128i, stream: bool) {
        // SAFETY: the caller's contract (alignment for the non-temporal form).
        unsafe {
            if stream {
                _mm_stream_si128(p, v)
            } else {
                _mm_storeu_si128(p, v)
            }
        }
    }

    /// Orders the non-temporal stores of a transpose before anything after it.
    pub(super) fn fence() {
        // SAFETY: SSE2 is baseline on x86-64; a store fence has no memory operands.
        unsafe { _mm_sfence() }
    }

    /// 8-bit elements: 8 rows of 64 bits, unpacked by 8, 16 and 32 bits into 8 columns of 64 bits.
    ///
    /// # Safety
    /// As [`micro16`], for plain 8-bit data.
    #[inline(always)]
    pub(super) unsafe fn micro8(dst: *mut u8, ldd: isize, src: *const u8, lds: isize) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched.
        unsafe {
            let r = |i: isize| _mm_loadl_epi64(src.offset(i * lds).cast());
            let (a0, a1, a2, a3, a4, a5, a6, a7) = (r(0), r(1), r(2), r(3), r(4), r(5), r(6), r(7));
            let (t0, t1) = (_mm_unpacklo_epi8(a0, a1), _mm_unpacklo_epi8(a2, a3));
            let (t2, t3) = (_mm_unpacklo_epi8(a4, a5), _mm_unpacklo_epi8(a6, a7));
            let (u0, u1) = (_mm_unpacklo_epi16(t0, t1), _mm_unpackhi_epi16(t0, t1));
            let (u2, u3) = (_mm_unpacklo_epi16(t2, t3), _mm_unpackhi_epi16(t2, t3));
            let cols = [
                _mm_unpacklo_epi32(u0, u2),
                _mm_unpackhi_epi32(u0, u2),
                _mm_unpacklo_epi32(u1, u3),
                _mm_unpackhi_epi32(u1, u3),
            ];
            for (c, v) in cols.into_iter().enumerate() {
                let j = 2 * c as isize;
                _mm_storel_epi64(dst.offset(j * ldd).cast(), v);
                _mm_storel_epi64(dst.offset((j + 1) * ldd).cast(), _mm_unpackhi_epi64(v, v));
            }
        }
    }

    /// 16-bit elements: 8 rows of 128 bits, unpacked by 16, 32 and 64 bits into 8 columns.
    ///
    /// # Safety
    /// The 8 × 8 block is readable at `src` (row stride `lds` elements) and writable at `dst`
    /// (column stride `ldd`), the two do not overlap, and the elements are plain 16-bit data.
    #[inline(always)]
    pub(super) unsafe fn micro16(
        dst: *mut u16,
        ldd: isize,
        src: *const u16,
        lds: isize,
        stream: bool,
    ) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched.
        unsafe {
            let r = |i: isize| _mm_loadu_si128(src.offset(i * lds).cast());
            let (a0, a1, a2, a3, a4, a5, a6, a7) = (r(0), r(1), r(2), r(3), r(4), r(5), r(6), r(7));
            let (t0, t1) = (_mm_unpacklo_epi16(a0, a1), _mm_unpackhi_epi16(a0, a1));
            let (t2, t3) = (_mm_unpacklo_epi16(a2, a3), _mm_unpackhi_epi16(a2, a3));
            let (t4, t5) = (_mm_unpacklo_epi16(a4, a5), _mm_unpackhi_epi16(a4, a5));
            let (t6, t7) = (_mm_unpacklo_epi16(a6, a7), _mm_unpackhi_epi16(a6, a7));
            let (u0, u1) = (_mm_unpacklo_epi32(t0, t2), _mm_unpackhi_epi32(t0, t2));
            let (u2, u3) = (_mm_unpacklo_epi32(t1, t3), _mm_unpackhi_epi32(t1, t3));
            let (u4, u5) = (_mm_unpacklo_epi32(t4, t6), _mm_unpackhi_epi32(t4, t6));
            let (u6, u7) = (_mm_unpacklo_epi32(t5, t7), _mm_unpackhi_epi32(t5, t7));
            let w = |j: isize, v: __m128i| store(dst.offset(j * ldd).cast(), v, stream);
            w(0, _mm_unpacklo_epi64(u0, u4));
            w(1, _mm_unpackhi_epi64(u0, u4));
            w(2, _mm_unpacklo_epi64(u1, u5));
            w(3, _mm_unpackhi_epi64(u1, u5));
            w(4, _mm_unpacklo_epi64(u2, u6));
            w(5, _mm_unpackhi_epi64(u2, u6));
            w(6, _mm_unpacklo_epi64(u3, u7));
            w(7, _mm_unpackhi_epi64(u3, u7));
        }
    }

    /// One 4 × 4 block of 32-bit elements.
    ///
    /// # Safety
    /// As [`micro32`] for the 4 × 4 block.
    #[inline(always)]
    unsafe fn t4(dst: *mut u32, ldd: isize, src: *const u32, lds: isize, stream: bool) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched.
        unsafe {
            let r = |i: isize| _mm_loadu_si128(src.offset(i * lds).cast());
            let (a, b, c, d) = (r(0), r(1), r(2), r(3));
            let (t0, t1) = (_mm_unpacklo_epi32(a, b), _mm_unpacklo_epi32(c, d));
            let (t2, t3) = (_mm_unpackhi_epi32(a, b), _mm_unpackhi_epi32(c, d));
            let w = |j: isize, v: __m128i| store(dst.offset(j * ldd).cast(), v, stream);
            w(0, _mm_unpacklo_epi64(t0, t1));
            w(1, _mm_unpackhi_epi64(t0, t1));
            w(2, _mm_unpacklo_epi64(t2, t3));
            w(3, _mm_unpackhi_epi64(t2, t3));
        }
    }

    /// 32-bit elements: four 4 × 4 blocks.
    ///
    /// # Safety
    /// As [`micro16`], for plain 32-bit data.
    #[inline(always)]
    pub(super) unsafe fn micro32(
        dst: *mut u32,
        ldd: isize,
        src: *const u32,
        lds: isize,
        stream: bool,
    ) {
        for (bi, bj) in [(0, 0), (4, 0), (0, 4), (4, 4)] {
            // SAFETY: the 4 × 4 block at (bi, bj) lies inside the caller's 8 × 8 block.
            unsafe {
                t4(
                    dst.offset(bi + bj * ldd),
                    ldd,
                    src.offset(bi * lds + bj),
                    lds,
                    stream,
                )
            };
        }
    }

    /// 64-bit elements: sixteen 2 × 2 blocks.
    ///
    /// # Safety
    /// As [`micro16`], for plain 64-bit data.
    #[inline(always)]
    pub(super) unsafe fn micro64(
        dst: *mut u64,
        ldd: isize,
        src: *const u64,
        lds: isize,
        stream: bool,
    ) {
        for bi in (0..8).step_by(2) {
            for bj in (0..8).step_by(2) {
                // SAFETY: the 2 × 2 block at (bi, bj) lies inside the caller's 8 × 8 block.
                unsafe {
                    let a = _mm_loadu_si128(src.offset(bi * lds + bj).cast());
                    let b = _mm_loadu_si128(src.offset((bi + 1) * lds + bj).cast());
                    store(
                        dst.offset(bi + bj * ldd).cast(),
                        _mm_unpacklo_epi64(a, b),
                        stream,
                    );
                    store(
                        dst.offset(bi + (bj + 1) * ldd).cast(),
                        _mm_unpackhi_epi64(a, b),
                        stream,
                    );
                }
            }
        }
    }
}
