//! Memory movers for the walks: the inner loops of a copy between two layouts, specialised on the
//! shape of the plan's innermost modes rather than on the layouts.
//!
//! - [`copy_runs`]: `count` contiguous runs of `len` elements, each with its own source and
//!   destination start (an ND → NZ copy moves 16-element fractal rows this way). Common run
//!   lengths are constants, so each run is a few vector moves instead of a `memcpy` call.
//! - [`transpose`]: a 2-D block whose fast axis differs between the two sides
//!   (`dst[i + j·ldd] = src[i·lds + j]`), moved in micro-tiles through SIMD registers inside
//!   tiles, so every cache line of both sides is read or written whole while it is in L1; with
//!   AVX2 or AVX-512 each micro-tile writes whole 64-byte destination lines.
//! - [`transpose_chunks`]: the same for short contiguous runs (ND ↔ NZ fractal rows).
//!
//! Whether a copy is larger than the caches (long-run tiles, non-temporal stores) is decided by
//! [`stream_bytes`], from the last-level cache the CPU reports.
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

/// Side of the portable / SSE2 / AVX micro-tiles.
const MICRO: usize = 8;

/// Bytes of a cache line: micro-tiles are aligned to lines where the strides allow.
const LINE: usize = 64;

/// The instruction sets the transposing kernels are written for, weakest first.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(crate) enum Simd {
    /// Element moves only (any target).
    // chosen on other targets, and forced by the tests on x86-64
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    Portable,
    /// 8 × 8 micro-tiles through 128-bit registers (baseline on x86-64).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    Sse2,
    /// As `Sse2`, with 32-bit tiles through 256-bit registers.
    // detected only with `std` (run-time feature detection)
    #[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
    Avx,
    /// Whole-cache-line micro-tiles through 256-bit registers (AVX2): 64 × 16 bytes, 32 × 8
    /// halves, 16 × 8 words, 8 × 4 double words, each destination column one 64-byte line.
    #[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
    Avx2,
    /// Whole-cache-line micro-tiles through 512-bit registers (AVX-512 F + BW): 64 × 16 bytes,
    /// 32 × 16 halves, 16 × 16 words, 8 × 8 double words.
    #[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
    Avx512,
    /// aarch64 Advanced SIMD: 8 × 8 micro-tiles of bytes and halves (`trn1`/`trn2` at 8 or 16,
    /// 32 and 64 bits), 4 × 4 words (`trn1`/`trn2` at 32 and 64 bits), 2 × 2 double words
    /// (`zip1`/`zip2`).
    #[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
    Neon,
}

impl Simd {
    /// The best set this CPU runs (std's detection is cached after the first call).
    pub(crate) fn detect() -> Simd {
        // the crate's one detection, capped by `LAYOUT_ISA` (`portable` forces element moves)
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        {
            use crate::isa::Isa;
            match Isa::selected() {
                Isa::Avx512 => Simd::Avx512,
                Isa::Avx2 => Simd::Avx2,
                Isa::Portable if Isa::forced() == Some(Isa::Portable) => Simd::Portable,
                // (NEON is never available on x86-64)
                Isa::Portable | Isa::Neon if crate::isa::has_avx() => Simd::Avx,
                Isa::Portable | Isa::Neon => Simd::Sse2,
            }
        }
        #[cfg(all(target_arch = "x86_64", not(feature = "std")))]
        {
            Simd::Sse2
        }
        #[cfg(target_arch = "aarch64")]
        {
            // the crate's one detection, capped by `LAYOUT_ISA` (`portable` forces element moves)
            if crate::isa::Isa::selected() == crate::isa::Isa::Neon {
                Simd::Neon
            } else {
                Simd::Portable
            }
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            Simd::Portable
        }
    }

    /// Every set this CPU runs, for tests that force each path once.
    #[cfg(test)]
    pub(crate) fn available() -> impl Iterator<Item = Simd> {
        let best = Simd::detect();
        [
            Simd::Portable,
            Simd::Sse2,
            Simd::Avx,
            Simd::Avx2,
            Simd::Avx512,
            Simd::Neon,
        ]
        .into_iter()
        .filter(move |s| {
            let arch = if cfg!(target_arch = "x86_64") {
                *s != Simd::Neon
            } else if cfg!(target_arch = "aarch64") {
                matches!(s, Simd::Portable | Simd::Neon)
            } else {
                *s == Simd::Portable
            };
            // (the x86 sets are ordered among themselves; NEON is the only set on aarch64)
            arch && (*s <= best || best == Simd::Neon)
        })
    }
}

/// Copy the `rows × cols` block `dst[i + j·ldd] = src[i·lds + j]` (`i < rows`, `j < cols`):
/// `i` is contiguous in the destination, `j` in the source.
///
/// The block is cut into tiles (1 KiB along the destination by 256 bytes along the source; 512
/// bytes by 2 KiB with `stream`), each tile into micro-tiles moved through SIMD registers for
/// plain 1-, 2-, 4- and 8-byte types ([`plain_width`]), element by element otherwise. With AVX2
/// and AVX-512 every micro-tile writes whole 64-byte lines (`64 / size` destination rows, see
/// [`Simd::Avx2`] and [`Simd::Avx512`]); with SSE2 / AVX they are 8 × 8. Rows and columns
/// before the first cache-line boundary (when the strides keep every column on the same
/// alignment) and the ragged ends go through the next smaller kernel.
/// With `stream` (the caller's copy is larger than the caches) and aligned destination columns,
/// stores are non-temporal: around the caches, with no read for ownership.
///
/// Measured on Zen 5 (2048² f32, `cargo bench --bench relayout`): unaligned source rows cost
/// a third of the bandwidth (each 64-byte load straddles two lines), hence the alignment peel.
/// On Zen 3 (AVX2), the 8 × 8 tiles streamed half lines (32 bytes of f32, 16 of u16), which
/// the write-combining buffers flush as partial lines: 27–32 % of memcpy for f32 beyond the
/// L2, 67–83 % with the whole-line AVX2 tiles.
///
/// # Safety
/// Every `src + i·lds + j` must be readable and every `dst + i + j·ldd` writable for
/// `i < rows`, `j < cols`, and no destination element may overlap a source element.
pub(crate) unsafe fn transpose<T: Copy>(
    dst: *mut T,
    ldd: isize,
    src: *const T,
    lds: isize,
    rows: usize,
    cols: usize,
    stream: bool,
) {
    // SAFETY: the caller's contract; `detect` names a set this CPU runs.
    unsafe { transpose_with(Simd::detect(), dst, ldd, src, lds, rows, cols, stream) }
}

/// [`transpose`] with the instruction set chosen by the caller.
///
/// # Safety
/// As [`transpose`], and the CPU runs `simd`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn transpose_with<T: Copy>(
    simd: Simd,
    dst: *mut T,
    ldd: isize,
    src: *const T,
    lds: isize,
    rows: usize,
    cols: usize,
    stream: bool,
) {
    let width = plain_width::<T>();
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(unused_variables)
    )]
    let (d, s) = (dst.cast::<u8>(), src.cast::<u8>());
    // SAFETY: (all arms) the caller's contract, re-typed to a plain type of `T`'s exact width
    // (`plain_width`), and the CPU runs `simd` (caller).
    unsafe {
        match (simd, width) {
            (_, Width::Scalar) | (Simd::Portable, _) => blocked::<T, MICRO, MICRO>(
                dst, ldd, src, lds, rows, cols, None, stream, micro, edge,
            ),
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            (Simd::Avx512, Width::W1) => avx512::t8(d, ldd, s, lds, rows, cols, stream),
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            (Simd::Avx512, Width::W2) => {
                avx512::t16(d.cast(), ldd, s.cast(), lds, rows, cols, stream)
            }
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            (Simd::Avx512, Width::W4) => {
                avx512::t32(d.cast(), ldd, s.cast(), lds, rows, cols, stream)
            }
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            (Simd::Avx512, Width::W8) => {
                avx512::t64(d.cast(), ldd, s.cast(), lds, rows, cols, stream)
            }
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            (Simd::Avx2, Width::W1) => avx2::t8(d, ldd, s, lds, rows, cols, stream),
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            (Simd::Avx2, Width::W2) => avx2::t16(d.cast(), ldd, s.cast(), lds, rows, cols, stream),
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            (Simd::Avx2, Width::W4) => avx2::t32(d.cast(), ldd, s.cast(), lds, rows, cols, stream),
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            (Simd::Avx2, Width::W8) => avx2::t64(d.cast(), ldd, s.cast(), lds, rows, cols, stream),
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            (Simd::Avx, Width::W4) => {
                avx::transpose(d.cast(), ldd, s.cast(), lds, rows, cols, stream)
            }
            #[cfg(target_arch = "x86_64")]
            (_, w) => sse::transpose(w, d, ldd, s, lds, rows, cols, stream),
            #[cfg(target_arch = "aarch64")]
            (Simd::Neon, w) => neon::transpose(w, d, ldd, s, lds, rows, cols, stream),
            #[cfg(not(target_arch = "x86_64"))]
            _ => blocked::<T, MICRO, MICRO>(
                dst, ldd, src, lds, rows, cols, None, stream, micro, edge,
            ),
        }
    }
}

/// The ragged parts of a block: element by element.
///
/// # Safety
/// As [`transpose`].
#[inline(always)]
unsafe fn edge<T: Copy>(
    dst: *mut T,
    ldd: isize,
    src: *const T,
    lds: isize,
    rows: usize,
    cols: usize,
) {
    for j in 0..cols {
        for i in 0..rows {
            // SAFETY: `(i, j)` is inside the block (caller).
            unsafe {
                *dst.wrapping_offset(i as isize + j as isize * ldd) =
                    *src.wrapping_offset(i as isize * lds + j as isize)
            };
        }
    }
}

/// The tiled walk over one block with `MI × MJ` micro-tiles (`MI` destination-contiguous
/// elements by `MJ` source-contiguous ones).
///
/// Rows before the destination's next cache line and columns before the source's (when the
/// strides keep every column resp. row on the same alignment) and the ragged ends are handed to
/// `edge`; the rest is cut into tiles of about 256 bytes a side, walked micro-tile by
/// micro-tile. `stream` is the alignment the micro-tile's non-temporal stores need, when the
/// caller wants them; they are used only if every micro-tile column is so aligned.
///
/// # Safety
/// As [`transpose`]; `micro` and `edge` must be sound on any block inside this one.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn blocked<T: Copy, const MI: usize, const MJ: usize>(
    dst: *mut T,
    ldd: isize,
    src: *const T,
    lds: isize,
    rows: usize,
    cols: usize,
    stream: Option<usize>,
    large: bool,
    micro: unsafe fn(*mut T, isize, *const T, isize, bool),
    edge: unsafe fn(*mut T, isize, *const T, isize, usize, usize),
) {
    let size = core::mem::size_of::<T>().max(1);
    // the elements to skip until `p` reaches a line boundary, when stride `ld` keeps every
    // row (column) on the alignment of the first; only for micro-tiles of whole lines (the
    // 8 × 8 ones cover parts of lines either way, and peeling would only shrink them)
    let peel = |p: usize, ld: isize| {
        if MI * size >= LINE
            && (ld.unsigned_abs() * size).is_multiple_of(LINE)
            && p.is_multiple_of(size)
        {
            (LINE - p % LINE) % LINE / size
        } else {
            0
        }
    };
    let i0 = peel(dst as usize, ldd).min(rows);
    let j0 = peel(src as usize, lds).min(cols);
    let ni = (rows - i0) / MI * MI;
    let nj = (cols - j0) / MJ * MJ;
    let at_src = |i: usize, j: usize| src.wrapping_offset(i as isize * lds + j as isize);
    let at_dst = |i: usize, j: usize| dst.wrapping_offset(i as isize + j as isize * ldd);
    if ni == 0 || nj == 0 {
        // SAFETY: the whole block (caller).
        return unsafe { edge(dst, ldd, src, lds, rows, cols) };
    }
    let nt = stream.is_some_and(|a| {
        (MI * size).is_multiple_of(a)
            && (at_dst(i0, 0) as usize).is_multiple_of(a)
            && (ldd.unsigned_abs() * size).is_multiple_of(a)
    });
    // Tiles (Zen 5, `cargo bench --bench relayout`, % of memcpy): copies beyond the caches
    // (`large`) read 2 KiB of each source row per tile, 512 bytes of each destination row:
    // long source runs keep DRAM pages open and the prefetchers streaming (f32 2048² and 4096²
    // 85–107 %, NCHW → NHWC 77–99 %, against 55–66 % with 1 KiB × 256 bytes). Copies that fit
    // in cache keep 1 KiB along the destination by 256 bytes along the source (u8 512²: 59–77 %
    // against 33–43 % with the large tiles).
    let (ti, tj) = if large { (512, 2048) } else { (1024, 256) };
    let (si, sj) = (
        (ti / size).clamp(32, 512).next_multiple_of(MI),
        (tj / size).clamp(8, 2048).next_multiple_of(MJ),
    );
    let (ie_all, je_all) = (i0 + ni, j0 + nj);
    // tiles start at the aligned origin (the first one also takes the peeled rows / columns,
    // the last one the ragged end), so the edges are moved while their lines are in cache
    let next = |b: usize, origin: usize, step: usize, end: usize| {
        if b < origin + step {
            (origin + step).min(end)
        } else {
            (b + step).min(end)
        }
    };
    let mut ib = 0;
    while ib < rows {
        let mut ie = next(ib, i0, si, rows);
        if ie >= ie_all {
            ie = rows;
        }
        let (mi0, mi1) = (ib.max(i0), ie.min(ie_all));
        let mut jb = 0;
        while jb < cols {
            let mut je = next(jb, j0, sj, cols);
            if je >= je_all {
                je = cols;
            }
            let (mj0, mj1) = (jb.max(j0), je.min(je_all));
            // row of micro-tiles by row: the source lines a micro-tile reads in part are
            // finished by the next one
            let mut i = mi0;
            while i < mi1 {
                let mut j = mj0;
                while j < mj1 {
                    // SAFETY: the micro-tile lies inside the block (`mi1 - i0` and `mj1 - j0`
                    // are whole micro-tiles), which the caller guarantees is in bounds on both
                    // sides.
                    unsafe { micro(at_dst(i, j), ldd, at_src(i, j), lds, nt) };
                    j += MJ;
                }
                i += MI;
            }
            // SAFETY: (all four) the parts of the tile around its micro-tiles, inside the
            // caller's block.
            unsafe {
                edge(at_dst(ib, jb), ldd, at_src(ib, jb), lds, mi0 - ib, je - jb);
                edge(
                    at_dst(mi1, jb),
                    ldd,
                    at_src(mi1, jb),
                    lds,
                    ie - mi1,
                    je - jb,
                );
                edge(
                    at_dst(mi0, jb),
                    ldd,
                    at_src(mi0, jb),
                    lds,
                    mi1 - mi0,
                    mj0 - jb,
                );
                edge(
                    at_dst(mi0, mj1),
                    ldd,
                    at_src(mi0, mj1),
                    lds,
                    mi1 - mi0,
                    je - mj1,
                );
            }
            jb = je;
        }
        ib = ie;
    }
    #[cfg(target_arch = "x86_64")]
    if nt {
        sse::fence();
    }
}

/// `true` when [`transpose_chunks`] moves chunks of `bytes` bytes.
pub(crate) fn chunk_supported(bytes: usize) -> bool {
    matches!(bytes, 8 | 16 | 32 | 64)
}

/// Copy `rows × cols` chunks of `bytes` bytes (a [`chunk_supported`] size): chunk `(i, j)` moves
/// from `src + i·lds + j·bytes` to `dst + i·bytes + j·ldd`, strides in bytes. The transpose of a
/// matrix whose elements are short contiguous runs: ND ↔ NZ / ZN moves the 32-byte fractal rows
/// of one layout into the other's, contiguous along `j` in the source and along `i` in the
/// destination.
///
/// Tiles are walked column by column, so the destination is written front to back, a run of a
/// panel at a time, while the source tile stays in cache across its columns; `large` (the
/// caller's copy is larger than the caches) picks tiles with longer source runs. With `stream`
/// and 16-byte aligned destination chunks, the stores are non-temporal.
///
/// # Safety
/// Every source chunk must be readable and every destination chunk writable, and no destination
/// byte may overlap a source byte.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn transpose_chunks(
    dst: *mut u8,
    ldd: isize,
    src: *const u8,
    lds: isize,
    rows: usize,
    cols: usize,
    bytes: usize,
    large: bool,
    stream: bool,
) {
    // SAFETY: (every arm) the caller's contract, with the chunk size the arm names.
    unsafe {
        match bytes {
            8 => chunks::<8>(dst, ldd, src, lds, rows, cols, large, stream),
            16 => chunks::<16>(dst, ldd, src, lds, rows, cols, large, stream),
            32 => chunks::<32>(dst, ldd, src, lds, rows, cols, large, stream),
            64 => chunks::<64>(dst, ldd, src, lds, rows, cols, large, stream),
            _ => unreachable!("chunk size checked by `chunk_supported`"),
        }
    }
}

/// [`transpose_chunks`] for chunks of `B` bytes.
///
/// # Safety
/// As [`transpose_chunks`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn chunks<const B: usize>(
    dst: *mut u8,
    ldd: isize,
    src: *const u8,
    lds: isize,
    rows: usize,
    cols: usize,
    large: bool,
    stream: bool,
) {
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    let nt = cfg!(target_arch = "x86_64")
        && stream
        && B.is_multiple_of(16)
        && (dst as usize).is_multiple_of(16)
        && ldd.unsigned_abs().is_multiple_of(16);
    // tiles: in cache, 2 KiB of destination (one panel's rows) by 256 bytes of source; beyond
    // the caches 512 bytes by 2 KiB, the long source runs keeping DRAM pages open as for the
    // element transposes (Zen 5, ND ↔ NZ 2048²–4096²: 73–116 % of memcpy against 72–89 %)
    let (td, ts) = if large { (512, 2048) } else { (2048, 256) };
    let (ti, tj) = ((td / B).max(1), (ts / B).max(1));
    let mut ib = 0;
    while ib < rows {
        let ie = (ib + ti).min(rows);
        let mut jb = 0;
        while jb < cols {
            let je = (jb + tj).min(cols);
            for j in jb..je {
                let mut d = dst.wrapping_offset(ib as isize * B as isize + j as isize * ldd);
                let mut s = src.wrapping_offset(ib as isize * lds + (j * B) as isize);
                for _ in ib..ie {
                    // SAFETY: chunk `(i, j)` of the block, in bounds and disjoint (caller);
                    // with `nt`, `d` is 16-byte aligned (checked above for every chunk).
                    unsafe {
                        #[cfg(target_arch = "x86_64")]
                        if nt {
                            sse::stream_bytes::<B>(d, s);
                        } else {
                            ptr::copy_nonoverlapping(s, d, B);
                        }
                        #[cfg(not(target_arch = "x86_64"))]
                        ptr::copy_nonoverlapping(s, d, B);
                    }
                    d = d.wrapping_add(B);
                    s = s.wrapping_offset(lds);
                }
            }
            jb = je;
        }
        ib = ie;
    }
    #[cfg(target_arch = "x86_64")]
    if nt {
        sse::fence();
    }
}

/// Copies of more than this many bytes count as larger than the caches: their transposes take
/// tiles with long source runs and write with non-temporal stores.
///
/// An eighth of the last-level cache ([`last_level_cache`]): the copy's source and destination
/// then fill more than a quarter of it, the bound beyond which glibc's `memcpy` streams too.
/// Measured on Zen 3 (32 MiB L3, `cargo bench --bench relayout`, each setting in turn): an f32
/// 1024² transpose (4 MiB) ran at 82–114 % of memcpy with cached stores and 65–69 % streamed,
/// a u16 2048² one (8 MiB) at 60–63 % streamed and 41–51 % cached. Without a cache size (other
/// targets) the bound is 2 MiB, the value measured on Zen 5 before.
pub(crate) fn stream_bytes() -> usize {
    match last_level_cache() {
        0 => 2 << 20,
        llc => (llc / 8).max(1 << 20),
    }
}

/// Bytes of the largest cache this CPU reports (0 when unknown), queried once.
pub(crate) fn last_level_cache() -> usize {
    crate::isa::last_level_cache()
}

/// One 8 × 8 micro-tile, written column by column with constant trip counts (LLVM keeps the
/// eight source rows in registers and turns the moves into shuffles where it can).
///
/// # Safety
/// As [`transpose`] for an 8 × 8 block.
#[inline(always)]
unsafe fn micro<T: Copy>(dst: *mut T, ldd: isize, src: *const T, lds: isize, _stream: bool) {
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

    use super::{blocked, edge};

    /// The tiled transpose of 32-bit elements with 8 × 8 AVX micro-tiles.
    ///
    /// # Safety
    /// As [`super::transpose`] for plain 32-bit data, and the CPU runs AVX.
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn transpose(
        dst: *mut u32,
        ldd: isize,
        src: *const u32,
        lds: isize,
        rows: usize,
        cols: usize,
        stream: bool,
    ) {
        let st = stream.then_some(16);
        // SAFETY: the caller's contract; the micro-tile runs on AVX, which the CPU has.
        unsafe { blocked::<u32, 8, 8>(dst, ldd, src, lds, rows, cols, st, stream, micro32, edge) }
    }

    /// [`transpose`] without streaming stores: the ragged parts of the AVX-512 kernels.
    ///
    /// # Safety
    /// As [`transpose`].
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn edge32(
        dst: *mut u32,
        ldd: isize,
        src: *const u32,
        lds: isize,
        rows: usize,
        cols: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe { transpose(dst, ldd, src, lds, rows, cols, false) }
    }

    /// # Safety
    /// Inlined only into AVX code; the 8 × 8 block is readable at `src` (row stride `lds`
    /// elements) and writable at `dst` (column stride `ldd`), the two do not overlap, and the
    /// elements are plain 32-bit data; with `stream`, every column start is 16-byte aligned
    /// (the streaming stores are two 16-byte halves).
    #[inline(always)]
    unsafe fn micro32(dst: *mut u32, ldd: isize, src: *const u32, lds: isize, stream: bool) {
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
    use super::{Width, blocked, edge};
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

    /// Moves `B` bytes (a multiple of 16) from `s` to `d` with non-temporal stores.
    ///
    /// # Safety
    /// `s` readable and `d` writable for `B` bytes, `d` 16-byte aligned.
    #[inline(always)]
    pub(super) unsafe fn stream_bytes<const B: usize>(d: *mut u8, s: *const u8) {
        for k in (0..B).step_by(16) {
            // SAFETY: inside the caller's `B` bytes; `d + k` is 16-byte aligned.
            unsafe { _mm_stream_si128(d.add(k).cast(), _mm_loadu_si128(s.add(k).cast())) };
        }
    }

    /// Orders the non-temporal stores of a transpose before anything after it.
    pub(super) fn fence() {
        // SAFETY: SSE2 is baseline on x86-64; a store fence has no memory operands.
        unsafe { _mm_sfence() }
    }

    /// The tiled transpose of plain `w`-wide elements with 8 × 8 SSE2 micro-tiles.
    ///
    /// # Safety
    /// As [`super::transpose`] for plain data of width `w` (not `Scalar`).
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn transpose(
        w: Width,
        d: *mut u8,
        ldd: isize,
        s: *const u8,
        lds: isize,
        rows: usize,
        cols: usize,
        stream: bool,
    ) {
        let st = stream.then_some(16);
        // SAFETY: the caller's contract, re-typed to the element width.
        unsafe {
            match w {
                Width::W1 => {
                    blocked::<u8, 8, 8>(d, ldd, s, lds, rows, cols, None, stream, micro8, edge)
                }
                Width::W2 => blocked::<u16, 8, 8>(
                    d.cast(),
                    ldd,
                    s.cast(),
                    lds,
                    rows,
                    cols,
                    st,
                    stream,
                    micro16,
                    edge,
                ),
                Width::W4 => blocked::<u32, 8, 8>(
                    d.cast(),
                    ldd,
                    s.cast(),
                    lds,
                    rows,
                    cols,
                    st,
                    stream,
                    micro32,
                    edge,
                ),
                Width::W8 => blocked::<u64, 8, 8>(
                    d.cast(),
                    ldd,
                    s.cast(),
                    lds,
                    rows,
                    cols,
                    st,
                    stream,
                    micro64,
                    edge,
                ),
                // `transpose_with` sends non-plain types to the element path
                Width::Scalar => unreachable!("plain widths only"),
            }
        }
    }

    #[cfg(feature = "std")]
    /// The ragged parts of the AVX-512 kernels: 8 × 8 SSE2 tiles, no streaming.
    ///
    /// # Safety
    /// As [`super::transpose`] for plain 8-bit data.
    pub(super) unsafe fn edge8(
        d: *mut u8,
        ldd: isize,
        s: *const u8,
        lds: isize,
        r: usize,
        c: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe { transpose(Width::W1, d, ldd, s, lds, r, c, false) }
    }

    #[cfg(feature = "std")]
    /// As [`edge8`] for 16-bit data.
    ///
    /// # Safety
    /// As [`super::transpose`] for plain 16-bit data.
    pub(super) unsafe fn edge16(
        d: *mut u16,
        ldd: isize,
        s: *const u16,
        lds: isize,
        r: usize,
        c: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe { transpose(Width::W2, d.cast(), ldd, s.cast(), lds, r, c, false) }
    }

    #[cfg(feature = "std")]
    /// As [`edge8`] for 64-bit data.
    ///
    /// # Safety
    /// As [`super::transpose`] for plain 64-bit data.
    pub(super) unsafe fn edge64(
        d: *mut u64,
        ldd: isize,
        s: *const u64,
        lds: isize,
        r: usize,
        c: usize,
    ) {
        // SAFETY: the caller's contract.
        unsafe { transpose(Width::W8, d.cast(), ldd, s.cast(), lds, r, c, false) }
    }

    /// 8-bit elements: 8 rows of 64 bits, unpacked by 8, 16 and 32 bits into 8 columns of 64 bits.
    ///
    /// # Safety
    /// As [`micro16`], for plain 8-bit data.
    #[inline(always)]
    unsafe fn micro8(dst: *mut u8, ldd: isize, src: *const u8, lds: isize, _stream: bool) {
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
    unsafe fn micro16(dst: *mut u16, ldd: isize, src: *const u16, lds: isize, stream: bool) {
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
    unsafe fn micro32(dst: *mut u32, ldd: isize, src: *const u32, lds: isize, stream: bool) {
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
    unsafe fn micro64(dst: *mut u64, ldd: isize, src: *const u64, lds: isize, stream: bool) {
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

/// Micro-tiles of whole cache lines through 512-bit registers (AVX-512 F and BW): each moves
/// `64 / size` destination-contiguous elements by 16 (8 for 64-bit) source-contiguous ones,
/// so every store writes one whole 64-byte line, streamed around the caches for large copies.
/// The shuffles stay inside 128-bit lanes where they can: 8- and 16-bit tiles load four source
/// rows per register (one per lane) and finish with each lane holding a quarter of a column.
#[cfg(all(target_arch = "x86_64", feature = "std"))]
mod avx512 {
    use super::{avx, blocked, sse};
    use core::arch::x86_64::*;

    /// One 64-byte store, non-temporal with `stream` (then `p` is 64-byte aligned).
    ///
    /// # Safety
    /// `p` is writable for 64 bytes, and 64-byte aligned when `stream`.
    #[inline(always)]
    unsafe fn store(p: *mut __m512i, v: __m512i, stream: bool) {
        // SAFETY: the caller's contract (alignment for the non-temporal form).
        unsafe {
            if stream {
                _mm512_stream_si512(p, v)
            } else {
                _mm512_storeu_si512(p, v)
            }
        }
    }

    macro_rules! entry {
        ($(#[$doc:meta])* $name:ident, $t:ty, $mi:literal, $mj:literal, $micro:ident, $edge:path) => {
            $(#[$doc])*
            ///
            /// # Safety
            /// As [`super::transpose`] for plain data of this width, and the CPU runs AVX-512 F
            /// and BW.
            #[target_feature(enable = "avx512f,avx512bw")]
            pub(super) unsafe fn $name(
                dst: *mut $t,
                ldd: isize,
                src: *const $t,
                lds: isize,
                rows: usize,
                cols: usize,
                stream: bool,
            ) {
                let st = stream.then_some(64);
                // SAFETY: the caller's contract; the micro-tile runs on AVX-512, which the CPU
                // has; the edges run on SSE2 / AVX, which it has too.
                unsafe {
                    blocked::<$t, $mi, $mj>(dst, ldd, src, lds, rows, cols, st, stream, $micro, $edge)
                }
            }
        };
    }
    entry!(
        /// 8-bit elements: 64 × 16 micro-tiles.
        t8, u8, 64, 16, micro8, sse::edge8
    );
    entry!(
        /// 16-bit elements: 32 × 16 micro-tiles.
        t16, u16, 32, 16, micro16, sse::edge16
    );
    entry!(
        /// 32-bit elements: 16 × 16 micro-tiles.
        t32, u32, 16, 16, micro32, avx::edge32
    );
    entry!(
        /// 64-bit elements: 8 × 8 micro-tiles.
        t64, u64, 8, 8, micro64, sse::edge64
    );

    /// Four 16-byte pieces, one per 128-bit lane: lane `l` from `p(l)`.
    ///
    /// # Safety
    /// Each `p(l)` is readable for 16 bytes.
    #[inline(always)]
    unsafe fn lanes(p: impl Fn(isize) -> *const u8) -> __m512i {
        // SAFETY: the caller's contract.
        unsafe {
            let l = |k: isize| _mm_loadu_si128(p(k).cast());
            let v = _mm512_castsi128_si512(l(0));
            let v = _mm512_inserti32x4::<1>(v, l(1));
            let v = _mm512_inserti32x4::<2>(v, l(2));
            _mm512_inserti32x4::<3>(v, l(3))
        }
    }

    /// 64 × 16 bytes: register `k` holds source rows `k, k+16, k+32, k+48` (columns 0..16) in
    /// its four lanes; four rounds of byte, word, double-word and quad-word unpacking transpose
    /// each lane's 16 × 16 block, leaving register `c` = destination column `c`, rows 0..64.
    ///
    /// # Safety
    /// Inlined only into AVX-512 F+BW code; the 64 × 16 block is readable at `src` (row stride
    /// `lds`) and writable at `dst` (column stride `ldd`), not overlapping; 64-byte aligned
    /// columns with `stream`.
    #[inline(always)]
    unsafe fn micro8(dst: *mut u8, ldd: isize, src: *const u8, lds: isize, stream: bool) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched.
        unsafe {
            let x: [__m512i; 16] =
                core::array::from_fn(|k| lanes(|l| src.offset((k as isize + 16 * l) * lds)));
            let mut a = [_mm512_setzero_si512(); 16];
            for k in 0..8 {
                a[k] = _mm512_unpacklo_epi8(x[2 * k], x[2 * k + 1]);
                a[k + 8] = _mm512_unpackhi_epi8(x[2 * k], x[2 * k + 1]);
            }
            // a[k + 8h], 16-bit slot c: rows 2k, 2k+1 of column 8h + c
            let mut b = [_mm512_setzero_si512(); 16];
            for h in 0..2 {
                for p in 0..4 {
                    let (u, v) = (a[2 * p + 8 * h], a[2 * p + 1 + 8 * h]);
                    b[p + 8 * h] = _mm512_unpacklo_epi16(u, v);
                    b[p + 8 * h + 4] = _mm512_unpackhi_epi16(u, v);
                }
            }
            // b[p + 4g], 32-bit slot q: rows 4p..4p+4 of column 4g + q
            let mut c = [_mm512_setzero_si512(); 16];
            for g in 0..4 {
                for t in 0..2 {
                    let (u, v) = (b[2 * t + 4 * g], b[2 * t + 1 + 4 * g]);
                    c[t + 4 * g] = _mm512_unpacklo_epi32(u, v);
                    c[t + 4 * g + 2] = _mm512_unpackhi_epi32(u, v);
                }
            }
            // c[t + 2f], 64-bit slot u: rows 8t..8t+8 of column 2f + u
            for f in 0..8 {
                let (u, v) = (c[2 * f], c[2 * f + 1]);
                let col = |j: usize| dst.offset(j as isize * ldd).cast();
                store(col(2 * f), _mm512_unpacklo_epi64(u, v), stream);
                store(col(2 * f + 1), _mm512_unpackhi_epi64(u, v), stream);
            }
        }
    }

    /// 32 × 16 halves: for each half `g` of the columns, register `k` holds source rows
    /// `k, k+8, k+16, k+24` (columns `8g..8g+8`) in its lanes; three rounds of unpacking
    /// transpose each lane's 8 × 8 block, leaving destination column `8g + c`, rows 0..32.
    ///
    /// # Safety
    /// As [`micro8`] for a 32 × 16 block of 16-bit data.
    #[inline(always)]
    unsafe fn micro16(dst: *mut u16, ldd: isize, src: *const u16, lds: isize, stream: bool) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched.
        unsafe {
            for g in 0..2isize {
                let x: [__m512i; 8] = core::array::from_fn(|k| {
                    lanes(|l| src.offset((k as isize + 8 * l) * lds + 8 * g).cast())
                });
                let t: [__m512i; 8] = core::array::from_fn(|k| {
                    let (u, v) = (x[k / 2 * 2], x[k / 2 * 2 + 1]);
                    if k % 2 == 0 {
                        _mm512_unpacklo_epi16(u, v)
                    } else {
                        _mm512_unpackhi_epi16(u, v)
                    }
                });
                // t[2p + h], 32-bit slot q: rows 2p, 2p+1 of column 4h + q
                let u: [__m512i; 8] = core::array::from_fn(|k| {
                    // k = 2·(2·r + h) + s: rows 4r..4r+4, columns 4h + 2s + {0,1}
                    let (s, h, r) = (k % 2, k / 2 % 2, k / 4);
                    let (a, b) = (t[4 * r + h], t[4 * r + 2 + h]);
                    if s == 0 {
                        _mm512_unpacklo_epi32(a, b)
                    } else {
                        _mm512_unpackhi_epi32(a, b)
                    }
                });
                for k in 0..4 {
                    // u[k] rows 0..4 and u[k + 4] rows 4..8 of columns 2k, 2k+1
                    let (a, b) = (u[k], u[k + 4]);
                    let col = |j: usize| dst.offset((8 * g + j as isize) * ldd).cast();
                    store(col(2 * k), _mm512_unpacklo_epi64(a, b), stream);
                    store(col(2 * k + 1), _mm512_unpackhi_epi64(a, b), stream);
                }
            }
        }
    }

    /// 16 × 16 words: unpack, in-lane shuffle, then two rounds of 128-bit lane shuffles.
    ///
    /// # Safety
    /// As [`micro8`] for a 16 × 16 block of 32-bit data.
    #[inline(always)]
    unsafe fn micro32(dst: *mut u32, ldd: isize, src: *const u32, lds: isize, stream: bool) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched; the
        // float shuffles only move bits.
        unsafe {
            let mut r: [__m512; 16] =
                core::array::from_fn(|i| _mm512_loadu_ps(src.offset(i as isize * lds).cast()));
            let mut t = [_mm512_setzero_ps(); 16];
            for k in 0..8 {
                t[2 * k] = _mm512_unpacklo_ps(r[2 * k], r[2 * k + 1]);
                t[2 * k + 1] = _mm512_unpackhi_ps(r[2 * k], r[2 * k + 1]);
            }
            for g in 0..4 {
                let b = 4 * g;
                r[b] = _mm512_shuffle_ps::<0x44>(t[b], t[b + 2]);
                r[b + 1] = _mm512_shuffle_ps::<0xEE>(t[b], t[b + 2]);
                r[b + 2] = _mm512_shuffle_ps::<0x44>(t[b + 1], t[b + 3]);
                r[b + 3] = _mm512_shuffle_ps::<0xEE>(t[b + 1], t[b + 3]);
            }
            for h in 0..2 {
                let b = 8 * h;
                for q in 0..4 {
                    t[b + q] = _mm512_shuffle_f32x4::<0x88>(r[b + q], r[b + q + 4]);
                    t[b + q + 4] = _mm512_shuffle_f32x4::<0xDD>(r[b + q], r[b + q + 4]);
                }
            }
            for q in 0..8 {
                r[q] = _mm512_shuffle_f32x4::<0x88>(t[q], t[q + 8]);
                r[q + 8] = _mm512_shuffle_f32x4::<0xDD>(t[q], t[q + 8]);
            }
            for (j, v) in r.into_iter().enumerate() {
                store(
                    dst.offset(j as isize * ldd).cast(),
                    _mm512_castps_si512(v),
                    stream,
                );
            }
        }
    }

    /// 8 × 8 double words: unpack within lanes, then two rounds of 128-bit lane shuffles.
    ///
    /// # Safety
    /// As [`micro8`] for an 8 × 8 block of 64-bit data.
    #[inline(always)]
    unsafe fn micro64(dst: *mut u64, ldd: isize, src: *const u64, lds: isize, stream: bool) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched.
        unsafe {
            let r: [__m512i; 8] =
                core::array::from_fn(|i| _mm512_loadu_si512(src.offset(i as isize * lds).cast()));
            // t[2k] / t[2k+1]: rows 2k, 2k+1 at the even / odd columns, one pair per lane
            let t: [__m512i; 8] = core::array::from_fn(|k| {
                let (a, b) = (r[k / 2 * 2], r[k / 2 * 2 + 1]);
                if k % 2 == 0 {
                    _mm512_unpacklo_epi64(a, b)
                } else {
                    _mm512_unpackhi_epi64(a, b)
                }
            });
            // u[4h + 2p + s] from (t[4h + p], t[4h + p + 2]): rows 4h..4h+4
            let u: [__m512i; 8] = core::array::from_fn(|k| {
                let (h, p, s) = (k / 4, k / 2 % 2, k % 2);
                let (a, b) = (t[4 * h + p], t[4 * h + p + 2]);
                if s == 0 {
                    _mm512_shuffle_i64x2::<0x88>(a, b)
                } else {
                    _mm512_shuffle_i64x2::<0xDD>(a, b)
                }
            });
            // u[4h + 2p + s], lanes: rows (4h, 4h+1) at columns a, a + 4, then rows
            // (4h+2, 4h+3) at the same two, with a = p + 2s
            for k in 0..4 {
                let (a, b) = (u[k], u[k + 4]);
                let (lo, hi) = (
                    _mm512_shuffle_i64x2::<0x88>(a, b),
                    _mm512_shuffle_i64x2::<0xDD>(a, b),
                );
                // k = 2p + s: columns p + 2s and p + 2s + 4
                let c = k / 2 + 2 * (k % 2);
                store(dst.offset(c as isize * ldd).cast(), lo, stream);
                store(dst.offset((c + 4) as isize * ldd).cast(), hi, stream);
            }
        }
    }
}

/// Micro-tiles of whole cache lines through 256-bit registers (AVX2): each moves `64 / size`
/// destination-contiguous elements (one 64-byte line of a destination column, written as two
/// 32-byte stores back to back) by 16 bytes (8-, 16-bit) or 32 bytes (32-, 64-bit) of each
/// source row. The 8- and 16-bit tiles load two source rows per register (one per 128-bit
/// lane) and unpack within lanes; the 32- and 64-bit tiles unpack and then recombine
/// 128-bit halves.
#[cfg(all(target_arch = "x86_64", feature = "std"))]
mod avx2 {
    use super::{avx, blocked, sse};
    use core::arch::x86_64::*;

    /// One 32-byte store, non-temporal with `stream` (then `p` is 32-byte aligned).
    ///
    /// # Safety
    /// `p` is writable for 32 bytes, and 32-byte aligned when `stream`; AVX2 code only.
    #[inline(always)]
    unsafe fn store(p: *mut u8, v: __m256i, stream: bool) {
        // SAFETY: the caller's contract (alignment for the non-temporal form).
        unsafe {
            if stream {
                _mm256_stream_si256(p.cast(), v)
            } else {
                _mm256_storeu_si256(p.cast(), v)
            }
        }
    }

    /// Two 16-byte pieces: the low lane from `lo`, the high one from `hi`.
    ///
    /// # Safety
    /// `lo` and `hi` are readable for 16 bytes; AVX2 code only.
    #[inline(always)]
    unsafe fn lanes(lo: *const u8, hi: *const u8) -> __m256i {
        // SAFETY: the caller's contract.
        unsafe {
            let v = _mm256_castsi128_si256(_mm_loadu_si128(lo.cast()));
            _mm256_inserti128_si256::<1>(v, _mm_loadu_si128(hi.cast()))
        }
    }

    macro_rules! entry {
        ($(#[$doc:meta])* $name:ident, $t:ty, $mi:literal, $mj:literal, $micro:ident, $edge:path) => {
            $(#[$doc])*
            ///
            /// # Safety
            /// As [`super::transpose`] for plain data of this width, and the CPU runs AVX2.
            #[target_feature(enable = "avx2")]
            pub(super) unsafe fn $name(
                dst: *mut $t,
                ldd: isize,
                src: *const $t,
                lds: isize,
                rows: usize,
                cols: usize,
                stream: bool,
            ) {
                // streamed only when every column piece is a whole line
                let st = stream.then_some(64);
                // SAFETY: the caller's contract; the micro-tile runs on AVX2, which the CPU has, the
                // edges on SSE2 / AVX, which it has too.
                unsafe {
                    blocked::<$t, $mi, $mj>(dst, ldd, src, lds, rows, cols, st, stream, $micro, $edge)
                }
            }
        };
    }
    entry!(
        /// 8-bit elements: 64 × 16 micro-tiles.
        t8, u8, 64, 16, micro8, sse::edge8
    );
    entry!(
        /// 16-bit elements: 32 × 8 micro-tiles.
        t16, u16, 32, 8, micro16, sse::edge16
    );
    entry!(
        /// 32-bit elements: 16 × 8 micro-tiles.
        t32, u32, 16, 8, micro32, avx::edge32
    );
    entry!(
        /// 64-bit elements: 8 × 4 micro-tiles.
        t64, u64, 8, 4, micro64, sse::edge64
    );

    /// One 32 × 16 block of bytes: register `k` holds source rows `k` and `k + 16` (columns
    /// 0..16) in its two lanes; four rounds of byte, word, double-word and quad-word unpacking
    /// transpose each lane's 16 × 16 block, leaving result `c` = destination column `c`, rows
    /// 0..32.
    ///
    /// # Safety
    /// AVX2 code only; the 32 × 16 block is readable at `src` (row stride `lds`).
    #[inline(always)]
    unsafe fn half8(src: *const u8, lds: isize) -> [__m256i; 16] {
        // SAFETY: (whole body) the caller's contract bounds every row touched.
        unsafe {
            let row = |r: isize| src.offset(r * lds);
            let x: [__m256i; 16] =
                core::array::from_fn(|k| lanes(row(k as isize), row(k as isize + 16)));
            let mut a = [_mm256_setzero_si256(); 16];
            for k in 0..8 {
                a[k] = _mm256_unpacklo_epi8(x[2 * k], x[2 * k + 1]);
                a[k + 8] = _mm256_unpackhi_epi8(x[2 * k], x[2 * k + 1]);
            }
            // a[k + 8g], 16-bit slot c: rows 2k, 2k+1 of column 8g + c
            let mut b = [_mm256_setzero_si256(); 16];
            for g in 0..2 {
                for p in 0..4 {
                    let (u, v) = (a[2 * p + 8 * g], a[2 * p + 1 + 8 * g]);
                    b[p + 8 * g] = _mm256_unpacklo_epi16(u, v);
                    b[p + 8 * g + 4] = _mm256_unpackhi_epi16(u, v);
                }
            }
            // b[p + 4g], 32-bit slot q: rows 4p..4p+4 of column 4g + q
            let mut c = [_mm256_setzero_si256(); 16];
            for g in 0..4 {
                for t in 0..2 {
                    let (u, v) = (b[2 * t + 4 * g], b[2 * t + 1 + 4 * g]);
                    c[t + 4 * g] = _mm256_unpacklo_epi32(u, v);
                    c[t + 4 * g + 2] = _mm256_unpackhi_epi32(u, v);
                }
            }
            // c[t + 2f], 64-bit slot u: rows 8t..8t+8 of column 2f + u
            core::array::from_fn(|j| {
                let (u, v) = (c[j / 2 * 2], c[j / 2 * 2 + 1]);
                if j % 2 == 0 {
                    _mm256_unpacklo_epi64(u, v)
                } else {
                    _mm256_unpackhi_epi64(u, v)
                }
            })
        }
    }

    /// 64 × 16 bytes: two 32 × 16 blocks ([`half8`]), each destination column written as one
    /// whole line (its two halves back to back, so a streamed line is complete at once).
    ///
    /// # Safety
    /// Inlined only into AVX2 code; the 64 × 16 block is readable at `src` (row stride `lds`)
    /// and writable at `dst` (column stride `ldd`), not overlapping; 32-byte aligned column
    /// starts with `stream`.
    #[inline(always)]
    unsafe fn micro8(dst: *mut u8, ldd: isize, src: *const u8, lds: isize, stream: bool) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched.
        unsafe {
            let lo = half8(src, lds);
            let hi = half8(src.offset(32 * lds), lds);
            for c in 0..16 {
                let p = dst.offset(c as isize * ldd);
                store(p, lo[c], stream);
                store(p.add(32), hi[c], stream);
            }
        }
    }

    /// One 16 × 8 block of 16-bit data: register `k` holds source rows `k` and `k + 8`
    /// (columns 0..8) in its two lanes; three rounds of unpacking transpose each lane's 8 × 8
    /// block, leaving result `c` = destination column `c`, rows 0..16.
    ///
    /// # Safety
    /// AVX2 code only; the 16 × 8 block is readable at `src` (row stride `lds`).
    #[inline(always)]
    unsafe fn half16(src: *const u16, lds: isize) -> [__m256i; 8] {
        // SAFETY: (whole body) the caller's contract bounds every row touched.
        unsafe {
            let row = |r: isize| src.offset(r * lds).cast::<u8>();
            let x: [__m256i; 8] =
                core::array::from_fn(|k| lanes(row(k as isize), row(k as isize + 8)));
            let t: [__m256i; 8] = core::array::from_fn(|k| {
                let (u, v) = (x[k / 2 * 2], x[k / 2 * 2 + 1]);
                if k % 2 == 0 {
                    _mm256_unpacklo_epi16(u, v)
                } else {
                    _mm256_unpackhi_epi16(u, v)
                }
            });
            // t[2p + h], 32-bit slot q: rows 2p, 2p+1 of column 4h + q
            let u: [__m256i; 8] = core::array::from_fn(|k| {
                // k = 2·(2·r + h) + s: rows 4r..4r+4, columns 4h + 2s + {0,1}
                let (s, h, r) = (k % 2, k / 2 % 2, k / 4);
                let (a, b) = (t[4 * r + h], t[4 * r + 2 + h]);
                if s == 0 {
                    _mm256_unpacklo_epi32(a, b)
                } else {
                    _mm256_unpackhi_epi32(a, b)
                }
            });
            // u[k] rows 0..4 and u[k + 4] rows 4..8 of columns 2k, 2k+1
            core::array::from_fn(|c| {
                let (a, b) = (u[c / 2], u[c / 2 + 4]);
                if c % 2 == 0 {
                    _mm256_unpacklo_epi64(a, b)
                } else {
                    _mm256_unpackhi_epi64(a, b)
                }
            })
        }
    }

    /// 32 × 8 halves: two 16 × 8 blocks ([`half16`]), each destination column written as one
    /// whole line (its two halves back to back).
    ///
    /// # Safety
    /// As [`micro8`] for a 32 × 8 block of 16-bit data.
    #[inline(always)]
    unsafe fn micro16(dst: *mut u16, ldd: isize, src: *const u16, lds: isize, stream: bool) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched.
        unsafe {
            let lo = half16(src, lds);
            let hi = half16(src.offset(16 * lds), lds);
            for c in 0..8 {
                let p = dst.offset(c as isize * ldd).cast::<u8>();
                store(p, lo[c], stream);
                store(p.add(32), hi[c], stream);
            }
        }
    }

    /// One 8 × 8 block of 32-bit data: unpack, in-lane shuffle, then 128-bit recombination;
    /// result `c` = destination column `c`.
    ///
    /// # Safety
    /// AVX2 code only; the 8 × 8 block is readable at `src` (row stride `lds`).
    #[inline(always)]
    unsafe fn half32(src: *const u32, lds: isize) -> [__m256; 8] {
        // SAFETY: (whole body) the caller's contract bounds every row touched; the float
        // shuffles only move bits.
        unsafe {
            let r: [__m256; 8] =
                core::array::from_fn(|i| _mm256_loadu_ps(src.offset(i as isize * lds).cast()));
            let t: [__m256; 8] = core::array::from_fn(|k| {
                let (a, b) = (r[k / 2 * 2], r[k / 2 * 2 + 1]);
                if k % 2 == 0 {
                    _mm256_unpacklo_ps(a, b)
                } else {
                    _mm256_unpackhi_ps(a, b)
                }
            });
            // t[2p + s]: rows 2p, 2p+1; u[4g + 2s + e]: rows 4g..4g+4, columns {0,1}+2s… per lane
            let u: [__m256; 8] = core::array::from_fn(|k| {
                let (g, s, e) = (k / 4, k / 2 % 2, k % 2);
                let (a, b) = (t[4 * g + s], t[4 * g + 2 + s]);
                if e == 0 {
                    _mm256_shuffle_ps::<0x44>(a, b)
                } else {
                    _mm256_shuffle_ps::<0xEE>(a, b)
                }
            });
            // u[k] (rows 0..4) and u[k + 4] (rows 4..8): columns c and c + 4 in the two lanes,
            // c = 2s + e for k = 2s + e
            core::array::from_fn(|c| {
                let (a, b) = (u[c % 4], u[c % 4 + 4]);
                if c < 4 {
                    _mm256_permute2f128_ps::<0x20>(a, b)
                } else {
                    _mm256_permute2f128_ps::<0x31>(a, b)
                }
            })
        }
    }

    /// 16 × 8 words: two 8 × 8 blocks ([`half32`]), each destination column written as one
    /// whole line.
    ///
    /// # Safety
    /// As [`micro8`] for a 16 × 8 block of 32-bit data.
    #[inline(always)]
    unsafe fn micro32(dst: *mut u32, ldd: isize, src: *const u32, lds: isize, stream: bool) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched.
        unsafe {
            let lo = half32(src, lds);
            let hi = half32(src.offset(8 * lds), lds);
            for c in 0..8 {
                let p = dst.offset(c as isize * ldd).cast::<u8>();
                store(p, _mm256_castps_si256(lo[c]), stream);
                store(p.add(32), _mm256_castps_si256(hi[c]), stream);
            }
        }
    }

    /// One 4 × 4 block of 64-bit data: result `c` = destination column `c`.
    ///
    /// # Safety
    /// AVX2 code only; the 4 × 4 block is readable at `src` (row stride `lds`).
    #[inline(always)]
    unsafe fn half64(src: *const u64, lds: isize) -> [__m256i; 4] {
        // SAFETY: (whole body) the caller's contract bounds every row touched.
        unsafe {
            let r = |i: isize| _mm256_loadu_si256(src.offset(i * lds).cast());
            let (r0, r1, r2, r3) = (r(0), r(1), r(2), r(3));
            // t0 = rows 0, 1 at columns 0 | 2; t1 at columns 1 | 3; t2, t3 the same for rows 2, 3
            let (t0, t1) = (_mm256_unpacklo_epi64(r0, r1), _mm256_unpackhi_epi64(r0, r1));
            let (t2, t3) = (_mm256_unpacklo_epi64(r2, r3), _mm256_unpackhi_epi64(r2, r3));
            [
                _mm256_permute2x128_si256::<0x20>(t0, t2),
                _mm256_permute2x128_si256::<0x20>(t1, t3),
                _mm256_permute2x128_si256::<0x31>(t0, t2),
                _mm256_permute2x128_si256::<0x31>(t1, t3),
            ]
        }
    }

    /// 8 × 4 double words: two 4 × 4 blocks ([`half64`]), each destination column written as
    /// one whole line.
    ///
    /// # Safety
    /// As [`micro8`] for an 8 × 4 block of 64-bit data.
    #[inline(always)]
    unsafe fn micro64(dst: *mut u64, ldd: isize, src: *const u64, lds: isize, stream: bool) {
        // SAFETY: (whole body) the caller's contract bounds every row and column touched.
        unsafe {
            let lo = half64(src, lds);
            let hi = half64(src.offset(4 * lds), lds);
            for c in 0..4 {
                let p = dst.offset(c as isize * ldd).cast::<u8>();
                store(p, lo[c], stream);
                store(p.add(32), hi[c], stream);
            }
        }
    }
}

/// aarch64 micro-tiles through NEON registers: each source row one vector, transposed by
/// `trn1`/`trn2` at doubling lane widths (`zip1`/`zip2` for double words), each destination
/// column one store. (No non-temporal stores: `stream` only picks the tile shape.)
#[cfg(target_arch = "aarch64")]
mod neon {
    use super::{Width, blocked, edge};
    use core::arch::aarch64::*;

    /// The tiled transpose of plain `w`-wide elements with NEON micro-tiles.
    ///
    /// # Safety
    /// As [`super::transpose`] for plain data of width `w` (not `Scalar`); NEON is available.
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn transpose(
        w: Width,
        d: *mut u8,
        ldd: isize,
        s: *const u8,
        lds: isize,
        rows: usize,
        cols: usize,
        stream: bool,
    ) {
        let (d16, s16) = (d.cast::<u16>(), s.cast::<u16>());
        let (d32, s32) = (d.cast::<u32>(), s.cast::<u32>());
        let (d64, s64) = (d.cast::<u64>(), s.cast::<u64>());
        // SAFETY: the caller's contract, re-typed to the element width.
        unsafe {
            match w {
                Width::W1 => {
                    blocked::<u8, 8, 8>(d, ldd, s, lds, rows, cols, None, stream, micro8, edge)
                }
                Width::W2 => blocked::<u16, 8, 8>(
                    d16, ldd, s16, lds, rows, cols, None, stream, micro16, edge,
                ),
                Width::W4 => blocked::<u32, 4, 4>(
                    d32, ldd, s32, lds, rows, cols, None, stream, micro32, edge,
                ),
                Width::W8 => blocked::<u64, 2, 2>(
                    d64, ldd, s64, lds, rows, cols, None, stream, micro64, edge,
                ),
                // `transpose_with` sends non-plain types to the element path
                Width::Scalar => unreachable!("plain widths only"),
            }
        }
    }

    /// One 8 × 8 byte tile: eight 8-byte rows, `trn` at 8, 16 and 32 bits.
    ///
    /// # Safety
    /// The 8 × 8 block is in bounds on both sides; NEON is available.
    unsafe fn micro8(d: *mut u8, ldd: isize, s: *const u8, lds: isize, _stream: bool) {
        // SAFETY: (whole body) the caller's contract; rows `s + r·lds` hold 8 bytes, columns
        // `d + c·ldd` take 8.
        unsafe {
            let r: [uint8x8_t; 8] = core::array::from_fn(|i| vld1_u8(s.offset(i as isize * lds)));
            let a: [uint16x4_t; 8] = core::array::from_fn(|i| {
                let (x, y) = (r[i & !1], r[i | 1]);
                vreinterpret_u16_u8(if i & 1 == 0 {
                    vtrn1_u8(x, y)
                } else {
                    vtrn2_u8(x, y)
                })
            });
            // a[2q + h]: rows 2q, 2q + 1, columns ≡ h (mod 2)
            let b: [uint32x2_t; 8] = core::array::from_fn(|i| {
                // b[4g + 2e + h]: rows 4g..4g+4, columns ≡ h + 2e (mod 4)
                let (g, e, h) = (i / 4, (i / 2) % 2, i % 2);
                let (x, y) = (a[4 * g + h], a[4 * g + 2 + h]);
                vreinterpret_u32_u16(if e == 0 {
                    vtrn1_u16(x, y)
                } else {
                    vtrn2_u16(x, y)
                })
            });
            for c in 0..8 {
                // column c: rows 0..4 from b[c % 4], rows 4..8 from b[4 + c % 4], half c / 4
                let (x, y) = (b[c % 4], b[4 + c % 4]);
                let col = if c < 4 {
                    vtrn1_u32(x, y)
                } else {
                    vtrn2_u32(x, y)
                };
                vst1_u8(d.offset(c as isize * ldd), vreinterpret_u8_u32(col));
            }
        }
    }

    /// One 8 × 8 tile of halves: eight 16-byte rows, `trn` at 16, 32 and 64 bits.
    ///
    /// # Safety
    /// The 8 × 8 block is in bounds on both sides; NEON is available.
    unsafe fn micro16(d: *mut u16, ldd: isize, s: *const u16, lds: isize, _stream: bool) {
        // SAFETY: (whole body) the caller's contract; rows hold 8 halves, columns take 8.
        unsafe {
            let r: [uint16x8_t; 8] =
                core::array::from_fn(|i| vld1q_u16(s.offset(i as isize * lds)));
            let a: [uint32x4_t; 8] = core::array::from_fn(|i| {
                let (x, y) = (r[i & !1], r[i | 1]);
                vreinterpretq_u32_u16(if i & 1 == 0 {
                    vtrn1q_u16(x, y)
                } else {
                    vtrn2q_u16(x, y)
                })
            });
            let b: [uint64x2_t; 8] = core::array::from_fn(|i| {
                let (g, e, h) = (i / 4, (i / 2) % 2, i % 2);
                let (x, y) = (a[4 * g + h], a[4 * g + 2 + h]);
                vreinterpretq_u64_u32(if e == 0 {
                    vtrn1q_u32(x, y)
                } else {
                    vtrn2q_u32(x, y)
                })
            });
            for c in 0..8 {
                let (x, y) = (b[c % 4], b[4 + c % 4]);
                let col = if c < 4 {
                    vtrn1q_u64(x, y)
                } else {
                    vtrn2q_u64(x, y)
                };
                vst1q_u16(d.offset(c as isize * ldd), vreinterpretq_u16_u64(col));
            }
        }
    }

    /// One 4 × 4 tile of words: four 16-byte rows, `trn` at 32 and 64 bits.
    ///
    /// # Safety
    /// The 4 × 4 block is in bounds on both sides; NEON is available.
    unsafe fn micro32(d: *mut u32, ldd: isize, s: *const u32, lds: isize, _stream: bool) {
        // SAFETY: (whole body) the caller's contract; rows hold 4 words, columns take 4.
        unsafe {
            let r: [uint32x4_t; 4] =
                core::array::from_fn(|i| vld1q_u32(s.offset(i as isize * lds)));
            // a[2q + h]: rows 2q, 2q + 1, columns ≡ h (mod 2)
            let a: [uint64x2_t; 4] = core::array::from_fn(|i| {
                let (x, y) = (r[i & !1], r[i | 1]);
                vreinterpretq_u64_u32(if i & 1 == 0 {
                    vtrn1q_u32(x, y)
                } else {
                    vtrn2q_u32(x, y)
                })
            });
            for c in 0..4 {
                let (x, y) = (a[c % 2], a[2 + c % 2]);
                let col = if c < 2 {
                    vtrn1q_u64(x, y)
                } else {
                    vtrn2q_u64(x, y)
                };
                vst1q_u32(d.offset(c as isize * ldd), vreinterpretq_u32_u64(col));
            }
        }
    }

    /// One 2 × 2 tile of double words: `zip1`/`zip2`.
    ///
    /// # Safety
    /// The 2 × 2 block is in bounds on both sides; NEON is available.
    unsafe fn micro64(d: *mut u64, ldd: isize, s: *const u64, lds: isize, _stream: bool) {
        // SAFETY: the caller's contract; rows hold 2 double words, columns take 2.
        unsafe {
            let (x, y) = (vld1q_u64(s), vld1q_u64(s.offset(lds)));
            vst1q_u64(d, vzip1q_u64(x, y));
            vst1q_u64(d.offset(ldd), vzip2q_u64(x, y));
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// A small deterministic generator.
    struct Rng(u64);
    impl Rng {
        fn below(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n.max(1)
        }
    }

    /// A 4-byte type with no SIMD path (its bytes may not all be values).
    #[derive(Clone, Copy, PartialEq, Debug, Default)]
    struct Pair(u16, u8);

    /// Every kernel, forced per instruction set, against the definition
    /// `dst[i + j·ldd] = src[i·lds + j]`, on random block shapes (ragged and whole tiles),
    /// strides (cache-line multiples, which enable the alignment peel, and odd ones, negative
    /// ones), base alignments and with / without streaming stores; destination elements outside
    /// the block must keep their sentinel.
    fn check<T: Copy + PartialEq + core::fmt::Debug>(make: impl Fn(u64) -> T, sentinel: T) {
        let mut rng = Rng(0x5eed ^ core::mem::size_of::<T>() as u64);
        for simd in Simd::available() {
            for case in 0..300 {
                let big = case % 3 == 0;
                let rows = rng.below(if big { 200 } else { 40 }) as usize;
                let cols = rng.below(if big { 200 } else { 40 }) as usize;
                let pad = |rng: &mut Rng, n: usize| {
                    let unit = (64 / core::mem::size_of::<T>().max(1)).max(1);
                    match rng.below(3) {
                        0 => n,
                        1 => n.next_multiple_of(unit) + unit * rng.below(2) as usize,
                        _ => n + 1 + rng.below(9) as usize,
                    }
                };
                let (lds, ldd) = (pad(&mut rng, cols), pad(&mut rng, rows));
                let (neg_s, neg_d) = (rng.below(4) == 0, rng.below(4) == 0);
                let (off_s, off_d) = (rng.below(24) as usize, rng.below(24) as usize);
                let slen = off_s + rows * lds + 8;
                let dlen = off_d + cols * ldd + 8;
                let src: Vec<T> = (0..slen as u64).map(&make).collect();
                let mut dst = vec![sentinel; dlen];
                // the first element of the block, and strides with their signs
                let s0 = off_s
                    + if neg_s && rows > 0 {
                        (rows - 1) * lds
                    } else {
                        0
                    };
                let d0 = off_d
                    + if neg_d && cols > 0 {
                        (cols - 1) * ldd
                    } else {
                        0
                    };
                let (sl, dl) = (
                    if neg_s { -(lds as isize) } else { lds as isize },
                    if neg_d { -(ldd as isize) } else { ldd as isize },
                );
                let stream = rng.below(2) == 0;
                // SAFETY: every element of the block is inside the two vectors by the sizes
                // above; the vectors are distinct.
                unsafe {
                    transpose_with(
                        simd,
                        dst.as_mut_ptr().add(d0),
                        dl,
                        src.as_ptr().add(s0),
                        sl,
                        rows,
                        cols,
                        stream,
                    )
                };
                let mut want = vec![sentinel; dlen];
                for i in 0..rows {
                    for j in 0..cols {
                        let d = d0 as isize + i as isize + j as isize * dl;
                        let s = s0 as isize + i as isize * sl + j as isize;
                        want[d as usize] = src[s as usize];
                    }
                }
                assert!(
                    dst == want,
                    "{simd:?} {rows}x{cols} lds {sl} ldd {dl} offsets {off_s}/{off_d} stream {stream}"
                );
            }
        }
    }

    /// The chunk transpose against its definition: chunk `(i, j)` of `B` bytes from
    /// `src + i·lds + j·B` to `dst + i·B + j·ldd`, for every chunk size, on random shapes around
    /// the tile sizes, strides of either sign (16-byte multiples or not), offsets, with and
    /// without streaming stores; bytes outside the chunks keep their sentinel.
    #[test]
    fn chunk_transposes_match_the_definition() {
        let mut rng = Rng(0xc4c4);
        for b in [8usize, 16, 32, 64] {
            assert!(chunk_supported(b));
            for case in 0..200 {
                let big = case % 4 == 0;
                let rows = rng.below(if big { 160 } else { 20 }) as usize;
                let cols = rng.below(if big { 40 } else { 20 }) as usize;
                let lds = (cols * b) as isize + [0, 16, 5][rng.below(3) as usize];
                let ldd = (rows * b) as isize + [0, 16, 3][rng.below(3) as usize];
                let (neg_s, neg_d) = (rng.below(3) == 0, rng.below(3) == 0);
                let (off_s, off_d) = (rng.below(40) as usize, rng.below(40) as usize);
                let slen = off_s + rows * lds as usize + cols * b + 8;
                let dlen = off_d + cols * ldd as usize + rows * b + 8;
                let src: Vec<u8> = (0..slen).map(|i| (i % 251) as u8).collect();
                let mut dst = vec![0xFFu8; dlen];
                let s0 = off_s
                    + if neg_s {
                        rows.saturating_sub(1) * lds as usize
                    } else {
                        0
                    };
                let d0 = off_d
                    + if neg_d {
                        cols.saturating_sub(1) * ldd as usize
                    } else {
                        0
                    };
                let (sl, dl) = (
                    if neg_s { -lds } else { lds },
                    if neg_d { -ldd } else { ldd },
                );
                let (large, stream) = (rng.below(2) == 0, rng.below(2) == 0);
                // SAFETY: every chunk is inside the two vectors by the sizes above; distinct
                // vectors.
                unsafe {
                    transpose_chunks(
                        dst.as_mut_ptr().add(d0),
                        dl,
                        src.as_ptr().add(s0),
                        sl,
                        rows,
                        cols,
                        b,
                        large,
                        stream,
                    )
                };
                let mut want = vec![0xFFu8; dlen];
                for i in 0..rows as isize {
                    for j in 0..cols as isize {
                        let d = d0 as isize + i * b as isize + j * dl;
                        let s = s0 as isize + i * sl + j * b as isize;
                        want[d as usize..d as usize + b]
                            .copy_from_slice(&src[s as usize..s as usize + b]);
                    }
                }
                assert!(
                    dst == want,
                    "B {b} {rows}x{cols} lds {sl} ldd {dl} offsets {off_s}/{off_d} large {large} stream {stream}"
                );
            }
        }
    }

    /// The cache query names a plausible last-level cache on x86-64 (every x86-64 CPU since
    /// 2003 has at least 256 KiB), and the streaming bound follows it.
    #[test]
    fn last_level_cache_is_plausible() {
        let llc = last_level_cache();
        std::println!(
            "last-level cache: {llc} bytes, stream above {}",
            stream_bytes()
        );
        if cfg!(target_arch = "x86_64") {
            assert!((256 << 10..=4 << 30).contains(&llc), "{llc}");
            assert_eq!(stream_bytes(), (llc / 8).max(1 << 20));
        }
        assert_eq!(last_level_cache(), llc, "cached");
    }

    #[test]
    fn transposes_match_the_definition_on_every_instruction_set() {
        check(|i| (i % 251) as u8, 0xFF);
        check(|i| (i % 65521) as u16, 0xFFFF);
        check(|i| i as u32, u32::MAX);
        check(|i| i as f32 * 0.5, f32::MAX);
        check(|i| i, u64::MAX);
        check(|i| Pair(i as u16, (i >> 16) as u8), Pair(0xFFFF, 0xFF));
    }
}
