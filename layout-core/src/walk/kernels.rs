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
/// The block is cut into square tiles of 512 bytes a side (32 to 128 elements: both sides of a
/// tile stay in L2 and each row segment is whole cache lines; measured best of 16–256 elements
/// on 2048² and 4096² f32), each tile into 8 × 8 micro-tiles moved with constant trip counts;
/// ragged edges fall back to a plain loop.
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
    let side = (512 / core::mem::size_of::<T>().max(1)).clamp(32, 128);
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
                        // above), which the caller guarantees is in bounds on both sides.
                        unsafe { micro(at_dst(i, j), ldd, at_src(i, j), lds) };
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
}

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
