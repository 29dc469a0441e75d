//! `u8 × i8 → i32` (and `i8 × i8` shifted into it) on k quads: `vpmaddubsw` on AVX2 where the
//! operands' ranges keep every pair sum inside `i16`, `vpdpbusd` where the CPU has VNNI.
//!
//! Both operands pack as bytes, four k values per step — the panel layout
//! `((4, R), ⌈k/4⌉) : ((1, 4), 4R)` — so one 32-bit lane holds one row's k quad:
//!
//! - **AVX2** (`vpmaddubsw` + `vpmaddwd` by ones + `vpaddd`): 32 multiply-adds in three
//!   instructions, against 16 in two for the `i16` pair kernel of [`super::int8`], and half the
//!   packed bytes. `vpmaddubsw` saturates a pair sum `a₀b₀ + a₁b₁` outside `i16`, so this
//!   kernel runs only when `2·max|a|·max|b| ≤ 32767` (7-bit activations with any `i8` weights,
//!   any `u8` with weights in [−64, 64]); the ranges are measured before the product
//!   ([`fits_i16`]: one pass over A and B, early exit), and otherwise the exact `i16` pair
//!   engine runs. Both are exact, so the result is bit-identical whichever runs. The tile is
//!   16 × 4 (eight accumulators), as oneDNN's AVX2 tile: 16 × 6 left no register for the
//!   product, and an accumulator went to the stack every quad.
//! - **VNNI** (`vpdpbusd`: four u8 × i8 products added into an `i32` lane, nothing saturates):
//!   exact on every input, chosen by [`crate::isa::vnni`]: 16 × 6 on 256-bit AVX-VNNI (the
//!   AVX2 level), 32 × 12 on zmm AVX512-VNNI (the AVX-512 level, [`super::quads_zmm`]; a
//!   `PackedB` for that level holds 32-column panels).
//!
//! `i8 × i8`: A shifted by +128 into `u8` while packing (`a ⊕ 0x80`), and `128·Σₚ b[p][j]`
//! subtracted from every column afterwards, as oneDNN's s8s8 does — exact modulo 2³².
//!
//! The loops, blocking, threads, edge tiles and C of any layout are the engine's
//! ([`super::block::run_panels`]); the engine may swap the operands (`Cᵀ = Bᵀ·Aᵀ`), so each
//! kernel comes in two orientations: the unsigned operand in the vectors (A) or in the
//! broadcasts.

use std::cell::RefCell;
use std::vec::Vec;

use super::block::{Out, run_panels, transposes};
use super::int8::{Int8, store_tile};
use super::kernel::{Kern, KernelInfo, Tile};
use super::pack::{Panels, Rows};
use super::view::Product;
use crate::isa::{Isa, Vnni};

/// The byte a packed operand element becomes: `u8` as it is, `i8` as its bits.
pub(crate) trait Byte: Copy + Sync {
    /// The element's bits.
    fn bits(self) -> u8;
    /// A slice of elements as its bytes.
    fn as_bytes(x: &[Self]) -> &[u8];
}

impl Byte for u8 {
    #[inline(always)]
    fn bits(self) -> u8 {
        self
    }
    fn as_bytes(x: &[u8]) -> &[u8] {
        x
    }
}

impl Byte for i8 {
    #[inline(always)]
    fn bits(self) -> u8 {
        self as u8
    }
    fn as_bytes(x: &[i8]) -> &[u8] {
        // SAFETY: `i8` and `u8` have one size and alignment, and every bit pattern is a `u8`.
        unsafe { core::slice::from_raw_parts(x.as_ptr().cast(), x.len()) }
    }
}

/// The quad kernels' engine types: C, α, β in `i32`, panels of bytes in k quads.
pub(crate) struct Quads;

impl Kern for Quads {
    type C = i32;
    type P = u8;
    const ZERO: i32 = 0;
    const ONE: i32 = 1;
    const KSTEP: usize = 4;
    #[inline(always)]
    fn mul_add(c: i32, beta: i32, x: i32) -> i32 {
        c.wrapping_mul(beta).wrapping_add(x)
    }
    #[inline(always)]
    fn add(c: i32, x: i32) -> i32 {
        c.wrapping_add(x)
    }
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<u8>, &mut Vec<u8>) -> R) -> R {
        std::thread_local! {
            static BUFS: RefCell<(Vec<u8>, Vec<u8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
        }
        super::dispatch::with_cached(&BUFS, f)
    }
}

/// An operand packed as bytes in k quads, each element's bits XORed with `flip` (`0x80`: an
/// `i8` shifted by +128 into `u8`; `0`: as stored).
pub(crate) struct Bytes<'a, S> {
    pub rows: Rows<'a, S>,
    pub flip: u8,
    /// How the packed dimension contiguous is zipped into quads ([`zip4`]).
    pub zip: Zip,
}

/// How [`zip4`] moves its bytes, chosen from the product's level ([`Zip::at`]) so that each
/// `LAYOUT_GEMM_ISA` override runs its own path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Zip {
    /// Byte by byte (plain Rust): the portable level, and off x86-64.
    Scalar,
    /// SSE2 unpacks, 16 elements a step where 16 lie in one panel (the AVX2 level).
    Sse2,
    /// AVX-512 BW, 64 elements a step, whole panels of any width ([`super::quads_zmm::zip4`]).
    Avx512,
}

impl Zip {
    /// The zip for a product at level `isa`.
    pub(crate) fn at(isa: Isa) -> Zip {
        if !cfg!(target_arch = "x86_64") || isa < Isa::Avx2 {
            Zip::Scalar
        } else if isa >= Isa::Avx512 {
            Zip::Avx512
        } else {
            Zip::Sse2
        }
    }
}

impl<S: Byte> Panels<u8> for Bytes<'_, S> {
    fn pack(&self, dst: &mut [u8], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        let s = &self.rows;
        let f = self.flip;
        let kcp = kc.next_multiple_of(4);
        let quads = kcp / 4;
        let panels = len.div_ceil(r);
        let dst = &mut dst[..panels * r * kcp];
        if s.map.is_none() && s.sv == 1 && s.sk != 1 {
            // the packed dimension contiguous: per k quad, its four source rows (k = 4q …
            // 4q + 3) zipped across every panel at once
            for (t, panel) in dst.chunks_exact_mut(r * kcp).enumerate() {
                if len - t * r < r || kcp != kc {
                    panel.fill(0);
                }
            }
            for q in 0..quads {
                let at =
                    |e: usize| (s.origin + v0 as isize + (p0 + 4 * q + e) as isize * s.sk) as usize;
                let x = |e: usize| &s.src[at(e)..at(e) + len];
                if 4 * q + 4 <= kc {
                    zip4(
                        &mut dst[4 * q * r..],
                        [x(0), x(1), x(2), x(3)],
                        f,
                        (r, r * kcp),
                        self.zip,
                    );
                    continue;
                }
                for e in 0..kc - 4 * q {
                    for (i, &a) in x(e).iter().enumerate() {
                        dst[(i / r) * r * kcp + 4 * (q * r + i % r) + e] = a.bits() ^ f;
                    }
                }
            }
            return;
        }
        for (t, panel) in dst.chunks_exact_mut(r * kcp).enumerate() {
            let rows = r.min(len - t * r);
            if rows < r || kcp != kc {
                panel.fill(0);
            }
            let vbase = v0 + t * r;
            if s.map.is_none() && s.sk == 1 {
                pack_rows(panel, s, f, (vbase, rows, r), (p0, kc));
            } else if let Some(mp) = s.map {
                pack_mapped(panel, s, mp, f, (vbase, rows, r), (p0, kc));
            } else {
                let mut offs = [0isize; 64];
                for (i, o) in offs[..rows].iter_mut().enumerate() {
                    *o = s.row(vbase + i);
                }
                for p in 0..kc {
                    let co = s.col(p0 + p);
                    let base = (p / 4) * 4 * r + (p & 3);
                    for (i, &ro) in offs[..rows].iter().enumerate() {
                        panel[base + 4 * i] = s.src[(ro + co) as usize].bits() ^ f;
                    }
                }
            }
        }
    }
}

/// The panel of rows `vbase .. vbase + rows` (of `r`), k steps `p0 .. p0 + kc`, of an operand
/// whose rows are contiguous along k: each row's whole k quads copied as 32-bit units straight
/// to their places in the panel (`4·(q·r + i)`), the last partial quad byte by byte. Whole
/// panels of the kernels' widths (6 and 16 rows) unroll over the rows.
fn pack_rows<S: Byte>(
    panel: &mut [u8],
    s: &Rows<'_, S>,
    f: u8,
    (vbase, rows, r): (usize, usize, usize),
    (p0, kc): (usize, usize),
) {
    let whole = kc / 4;
    let row = |i: usize| {
        let at = (s.row(vbase + i) + p0 as isize) as usize;
        &s.src[at..at + kc]
    };
    match (rows, r) {
        (6, 6) => quads_of::<6, S>(panel, core::array::from_fn(row), f, whole),
        (16, 16) => quads_of::<16, S>(panel, core::array::from_fn(row), f, whole),
        _ => {
            for i in 0..rows {
                let x = row(i);
                for (q, u) in x.chunks_exact(4).enumerate() {
                    panel[4 * (q * r + i)..4 * (q * r + i) + 4].copy_from_slice(&u.map_bits(f));
                }
            }
        }
    }
    if whole < kc.div_ceil(4) {
        for i in 0..rows {
            let o = &mut panel[4 * (r * whole + i)..4 * (r * whole + i) + 4];
            for (d, b) in o.iter_mut().zip(&row(i)[4 * whole..]) {
                *d = b.bits() ^ f;
            }
        }
    }
}

/// The panel of rows `vbase .. vbase + rows` (of `r`), k steps `p0 .. p0 + kc`, of an operand
/// read through axis maps (`cols`: k's map): along each unit-step run of k (the 32 contiguous
/// bytes of an NZ/ZN fractal row), every whole k quad that starts at a quad of the panel is one
/// 32-bit copy per row; the other k steps byte by byte. With `s.simd` (AVX2), rows that run
/// arithmetically (an NZ fractal's 16 rows, 32 bytes apart) by 8 such quads move as 8 × 8
/// squares of 32-bit quads transposed in registers ([`quad_squares`]).
fn pack_mapped<S: Byte>(
    panel: &mut [u8],
    s: &Rows<'_, S>,
    mp: super::maps::Mapped<'_>,
    f: u8,
    (vbase, rows, r): (usize, usize, usize),
    (p0, kc): (usize, usize),
) {
    let cols = mp.cols;
    let mut offs = [0isize; 64];
    for (i, o) in offs[..rows].iter_mut().enumerate() {
        *o = s.row(vbase + i);
    }
    let offs = &offs[..rows];
    let f4 = u32::from_ne_bytes([f; 4]);
    let mut p = 0;
    while p < kc {
        let run = (cols.run[p0 + p] as usize).min(kc - p);
        let quads = if p % 4 == 0 && cols.step(p0 + p) == 1 {
            run / 4
        } else {
            0
        };
        if quads == 0 {
            // one k step: its byte in every row
            let co = cols.off[p0 + p];
            let base = (p / 4) * 4 * r + (p & 3);
            for (i, &ro) in offs.iter().enumerate() {
                panel[base + 4 * i] = s.src[(ro + co) as usize].bits() ^ f;
            }
            p += 1;
            continue;
        }
        let co = cols.off[p0 + p];
        let q0 = p / 4;
        // every write lands in `panel[4·((q0 + q)·r + i) ..][..4]`, q < quads, i < rows ≤ r
        assert!(4 * ((q0 + quads) * r) <= panel.len());
        // rows in 8 × 8 squares first (AVX2): `done` rows of the run finished
        #[cfg(target_arch = "x86_64")]
        let done = if s.simd && quads >= 8 {
            squares_of(panel, s, mp.rows, f, (vbase, rows, r), (co, q0, quads))
        } else {
            0
        };
        #[cfg(not(target_arch = "x86_64"))]
        let done = 0;
        for (i, &ro) in offs.iter().enumerate().skip(done) {
            let at = (ro + co) as usize;
            let x = S::as_bytes(&s.src[at..at + 4 * quads]);
            for (q, u) in x.chunks_exact(4).enumerate() {
                let u = u32::from_ne_bytes([u[0], u[1], u[2], u[3]]) ^ f4;
                let o = 4 * ((q0 + q) * r + i);
                panel[o..o + 4].copy_from_slice(&u.to_ne_bytes());
            }
        }
        p += 4 * quads;
    }
}

/// The first rows of a panel (see [`pack_mapped`]) whose quads `q0 .. q0 + quads` start `co`
/// bytes into each row, moved in 8 × 8 squares of quads while the rows run arithmetically
/// with a positive step (the quads past the last whole 8 of those rows one by one); returns
/// the number of leading rows done, the caller packing the rows after them.
#[cfg(target_arch = "x86_64")]
fn squares_of<S: Byte>(
    panel: &mut [u8],
    s: &Rows<'_, S>,
    rmap: &super::maps::AxisMap,
    f: u8,
    (vbase, rows, r): (usize, usize, usize),
    (co, q0, quads): (isize, usize, usize),
) -> usize {
    let mut i = 0;
    // squares only while the rows' run holds 8 more; the caller does every quad of the rest
    while i + 8 <= rows {
        let vi = vbase + i;
        let li = (rmap.run[vi] as usize).min(rows - i) / 8 * 8;
        let sv = rmap.step(vi);
        if li == 0 || sv <= 0 {
            break;
        }
        let first = s.origin + rmap.off[vi] + co;
        let last = first + (li as isize - 1) * sv + 4 * quads as isize - 1;
        if first < 0 || last as usize >= s.src.len() {
            break;
        }
        let out = &mut panel[4 * (q0 * r + i)..];
        assert!(out.len() >= 4 * ((quads - 1) * r + li));
        // SAFETY: AVX2 is available (`s.simd`, set only where it is); every source quad
        // `first + t·sv + 4q` (t < li, q < quads) lies in `s.src` (`sv > 0`, first ≥ 0,
        // last < len, checked), every destination `4·(q·r + t)` in `out` (asserted); `out` is
        // a `&mut` slice, distinct from the source.
        unsafe {
            x86::quad_squares(
                out.as_mut_ptr(),
                r,
                S::as_bytes(s.src).as_ptr().offset(first),
                sv as usize,
                (li, quads / 8 * 8),
                f,
            )
        };
        // the quads past the last whole 8, row by row
        for t in i..i + li {
            let ro = s.row(vbase + t) + co;
            for q in quads / 8 * 8..quads {
                let at = (ro + 4 * q as isize) as usize;
                let x = S::as_bytes(&s.src[at..at + 4]);
                let o = 4 * ((q0 + q) * r + t);
                for (d, &b) in panel[o..o + 4].iter_mut().zip(x) {
                    *d = b ^ f;
                }
            }
        }
        i += li;
    }
    i
}

/// `panel[4·(q·R + i) ..][..4] = x[i][4q ..][..4] ⊕ f` for `q < whole`: the whole k quads of
/// `R` rows, one 32-bit load, XOR and store each.
#[inline(always)]
fn quads_of<const R: usize, S: Byte>(panel: &mut [u8], x: [&[S]; R], f: u8, whole: usize) {
    assert!(panel.len() >= 4 * R * whole && x.iter().all(|x| x.len() >= 4 * whole));
    let f4 = u32::from_ne_bytes([f; 4]);
    let o = panel.as_mut_ptr();
    for q in 0..whole {
        for (i, x) in x.iter().enumerate() {
            // SAFETY: q < whole, so `x[4q .. 4q + 4]` is inside the row and
            // `panel[4(qR + i) ..][..4]` inside the panel (asserted above); `S` is a byte,
            // read as four bytes unaligned.
            unsafe {
                let u = x.as_ptr().add(4 * q).cast::<u32>().read_unaligned();
                o.add(4 * (q * R + i)).cast::<u32>().write_unaligned(u ^ f4);
            }
        }
    }
}

/// Four elements' bits, each XORed with a flip.
trait MapBits {
    /// `[x₀ ⊕ f, x₁ ⊕ f, x₂ ⊕ f, x₃ ⊕ f]`.
    fn map_bits(&self, f: u8) -> [u8; 4];
}

impl<S: Byte> MapBits for [S] {
    #[inline(always)]
    fn map_bits(&self, f: u8) -> [u8; 4] {
        [self[0], self[1], self[2], self[3]].map(|x| x.bits() ^ f)
    }
}

/// `out[place(i) + e] = x[e][i] ⊕ f` for every i, with `place(i) = (i / r)·step + 4·(i mod r)`
/// (the four rows of one k quad interleaved into panels of `r` rows, `step` bytes apart,
/// `step ≥ 4r`), by `how`: AVX-512 64 elements a step for every panel width
/// ([`super::quads_zmm::zip4`]); SSE2 byte and word unpacks 16 rows at a time where 16 rows lie
/// in one panel (the rest byte by byte); or byte by byte.
#[inline(always)]
fn zip4<S: Byte>(out: &mut [u8], x: [&[S]; 4], f: u8, (r, step): (usize, usize), how: Zip) {
    let len = x[0].len();
    let place = |i: usize| (i / r) * step + 4 * (i % r);
    // `place` grows with i (step ≥ 4r), so the last element's four bytes bound every write
    assert!(
        r > 0
            && step >= 4 * r
            && x.iter().all(|r| r.len() == len)
            && (len == 0 || place(len - 1) + 4 <= out.len())
    );
    #[cfg(target_arch = "x86_64")]
    if how == Zip::Avx512 && len > 0 {
        // SAFETY: `Zip::Avx512` is chosen only at the AVX-512 level (F and BW available);
        // r > 0, step ≥ 4r, each row holds len bytes and `out` reaches place(len − 1) + 4
        // (asserted above); `S` is a byte (`u8` or `i8`).
        unsafe {
            super::quads_zmm::zip4(
                out.as_mut_ptr(),
                x.map(|r| r.as_ptr().cast::<u8>()),
                len,
                f,
                (r, step),
            )
        };
        return;
    }
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))]
    let sse2 = cfg!(target_arch = "x86_64") && how != Zip::Scalar;
    // panel by panel: rows t0 … t0 + rows − 1 at `base + 4j`
    let (mut t0, mut base) = (0, 0);
    // panels of 16 rows (the AVX2 tiles' MR): one SSE2 step per whole panel, no loop inside it
    #[cfg(target_arch = "x86_64")]
    if r == 16 && sse2 {
        use core::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86-64.
        let flip = unsafe { _mm_set1_epi8(f as i8) };
        while t0 + 16 <= len {
            // SAFETY: each row holds `len ≥ t0 + 16` bytes; rows t0 … t0 + 15 are one whole
            // panel at `base = place(t0)`, so `out[base ..][..64]` ends at `place(t0 + 15) + 4 ≤
            // place(len − 1) + 4 ≤ out.len()` (asserted above); `S` is a byte (`u8` or `i8`).
            unsafe {
                let v = x.map(|r| _mm_xor_si128(_mm_loadu_si128(r.as_ptr().add(t0).cast()), flip));
                let (a, b) = (_mm_unpacklo_epi8(v[0], v[1]), _mm_unpackhi_epi8(v[0], v[1]));
                let (c, d) = (_mm_unpacklo_epi8(v[2], v[3]), _mm_unpackhi_epi8(v[2], v[3]));
                let o = out.as_mut_ptr().add(base).cast::<__m128i>();
                _mm_storeu_si128(o, _mm_unpacklo_epi16(a, c));
                _mm_storeu_si128(o.add(1), _mm_unpackhi_epi16(a, c));
                _mm_storeu_si128(o.add(2), _mm_unpacklo_epi16(b, d));
                _mm_storeu_si128(o.add(3), _mm_unpackhi_epi16(b, d));
            }
            t0 += 16;
            base += step;
        }
    }
    while t0 < len {
        let rows = r.min(len - t0);
        // (advanced by the SSE2 loop on x86-64 only)
        #[cfg_attr(not(target_arch = "x86_64"), allow(unused_mut))]
        let mut j = 0;
        #[cfg(target_arch = "x86_64")]
        while sse2 && j + 16 <= rows {
            use core::arch::x86_64::*;
            let i = t0 + j;
            // SAFETY: SSE2 is part of x86-64; each row holds `len ≥ i + 16` bytes; rows i …
            // i + 15 lie in this panel, so `out[base + 4j ..][..64]` ends at `place(i + 15) +
            // 4 ≤ place(len − 1) + 4 ≤ out.len()` (asserted above); `S` is a byte (`u8` or
            // `i8`).
            unsafe {
                let flip = _mm_set1_epi8(f as i8);
                let v = x.map(|r| _mm_xor_si128(_mm_loadu_si128(r.as_ptr().add(i).cast()), flip));
                let (a, b) = (_mm_unpacklo_epi8(v[0], v[1]), _mm_unpackhi_epi8(v[0], v[1]));
                let (c, d) = (_mm_unpacklo_epi8(v[2], v[3]), _mm_unpackhi_epi8(v[2], v[3]));
                let o = out.as_mut_ptr().add(base + 4 * j).cast::<__m128i>();
                _mm_storeu_si128(o, _mm_unpacklo_epi16(a, c));
                _mm_storeu_si128(o.add(1), _mm_unpackhi_epi16(a, c));
                _mm_storeu_si128(o.add(2), _mm_unpacklo_epi16(b, d));
                _mm_storeu_si128(o.add(3), _mm_unpackhi_epi16(b, d));
            }
            j += 16;
        }
        // the panel's last n < 16 rows (all of a 4-, 6-, 8- or 12-row panel): 16 zipped
        // where the rows hold 16 bytes from there, the first n quads stored
        #[cfg(target_arch = "x86_64")]
        if sse2 && j < rows && t0 + j + 16 <= len {
            use core::arch::x86_64::*;
            let (i, n) = (t0 + j, rows - j);
            // SAFETY: SSE2 is part of x86-64; each row holds `len ≥ i + 16` bytes; the stores
            // cover `out[base + 4j ..][..4n]`, the quads of rows t0 + j … t0 + rows − 1 of this
            // panel, which end at `place(t0 + rows − 1) + 4 ≤ out.len()` (asserted above); `S`
            // is a byte.
            unsafe {
                let flip = _mm_set1_epi8(f as i8);
                let v = x.map(|r| _mm_xor_si128(_mm_loadu_si128(r.as_ptr().add(i).cast()), flip));
                let (a, b) = (_mm_unpacklo_epi8(v[0], v[1]), _mm_unpackhi_epi8(v[0], v[1]));
                let (c, d) = (_mm_unpacklo_epi8(v[2], v[3]), _mm_unpackhi_epi8(v[2], v[3]));
                let q = [
                    _mm_unpacklo_epi16(a, c),
                    _mm_unpackhi_epi16(a, c),
                    _mm_unpacklo_epi16(b, d),
                    _mm_unpackhi_epi16(b, d),
                ];
                let o = out.as_mut_ptr().add(base + 4 * j);
                for (u, &qu) in q.iter().enumerate().take(n / 4) {
                    _mm_storeu_si128(o.add(16 * u).cast(), qu);
                }
                let (mut o, mut last) = (o.add(16 * (n / 4)), q[(n / 4).min(3)]);
                if n % 4 >= 2 {
                    _mm_storel_epi64(o.cast(), last);
                    (o, last) = (o.add(8), _mm_srli_si128::<8>(last));
                }
                if n % 2 == 1 {
                    o.cast::<i32>().write_unaligned(_mm_cvtsi128_si32(last));
                }
            }
            j = rows;
        }
        for j in j..rows {
            for (e, r) in x.iter().enumerate() {
                out[base + 4 * j + e] = r[t0 + j].bits() ^ f;
            }
        }
        t0 += r;
        base += step;
    }
}

/// The broadcast-quad addressing, shared with `quads_zmm`'s 32-row tile.
#[cfg(target_arch = "x86_64")]
pub(super) use x86::{InPlaceRows, Panel, Quad};

#[cfg(target_arch = "x86_64")]
mod x86 {
    use core::arch::x86_64::*;

    use super::super::int8::avx2::store;
    use super::Tile;

    /// Rows (two vectors of eight `i32`) by columns of the 256-bit tiles.
    pub(crate) const TILE: (usize, usize) = (16, 6);

    /// The columns of the `vpmaddubsw` tiles: 16 × 4, eight accumulators, so that the panel's
    /// two vectors, the broadcast, the product and the ones stay in registers (16 × 6 left no
    /// register for the product, and LLVM spilled an accumulator each quad; 16 × 4, oneDNN's
    /// AVX2 tile, measured 6–9 % faster at 256³, 6–11 % at 1024³). The VNNI and widening
    /// tiles keep 16 × 6: `vpdpbusd` needs no product register.
    pub(crate) const MADDUBS_NR: usize = 4;

    /// One k quad of eight rows against one column: `acc + Σ₄ u·s` per `i32` lane, with `v`
    /// the packed rows and `b` the broadcast column quad.
    pub(crate) trait Dot {
        /// The accumulation.
        ///
        /// # Safety
        /// The instruction set of the implementation is available.
        unsafe fn dot(acc: __m256i, v: __m256i, b: __m256i, ones: __m256i) -> __m256i;
    }

    /// `vpmaddubsw` (u8 in the vectors) + `vpmaddwd` by ones + `vpaddd`.
    pub(crate) struct MaddubsV;
    /// `vpmaddubsw` with the u8 operand broadcast.
    pub(crate) struct MaddubsB;
    /// AVX-VNNI `vpdpbusd` (VEX), u8 in the vectors.
    pub(crate) struct AvxVnniV;
    /// AVX-VNNI `vpdpbusd` (VEX), u8 broadcast.
    pub(crate) struct AvxVnniB;

    impl Dot for MaddubsV {
        #[inline(always)]
        unsafe fn dot(acc: __m256i, v: __m256i, b: __m256i, ones: __m256i) -> __m256i {
            // SAFETY: AVX2 (the caller's contract).
            unsafe { _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(v, b), ones)) }
        }
    }
    impl Dot for MaddubsB {
        #[inline(always)]
        unsafe fn dot(acc: __m256i, v: __m256i, b: __m256i, ones: __m256i) -> __m256i {
            // SAFETY: AVX2 (the caller's contract).
            unsafe { _mm256_add_epi32(acc, _mm256_madd_epi16(_mm256_maddubs_epi16(b, v), ones)) }
        }
    }
    impl Dot for AvxVnniV {
        #[inline(always)]
        unsafe fn dot(acc: __m256i, v: __m256i, b: __m256i, _: __m256i) -> __m256i {
            // SAFETY: AVX-VNNI (the caller's contract).
            unsafe { _mm256_dpbusd_avx_epi32(acc, v, b) }
        }
    }
    impl Dot for AvxVnniB {
        #[inline(always)]
        unsafe fn dot(acc: __m256i, v: __m256i, b: __m256i, _: __m256i) -> __m256i {
            // SAFETY: AVX-VNNI (the caller's contract).
            unsafe { _mm256_dpbusd_avx_epi32(acc, b, v) }
        }
    }

    /// Exact on every input: each byte of a quad split into `i16` halves (even and odd k),
    /// `vpmaddwd` on each half, u8 in the vectors.
    pub(crate) struct WidenV;
    /// As [`WidenV`], u8 broadcast.
    pub(crate) struct WidenB;

    /// `acc + Σ₄ u·s` per lane with `u` the unsigned quads and `s` the signed ones, through
    /// `i16` halves: even bytes (`x << 8 >> 8`) and odd bytes (`x >> 8`), zero- or sign-filled.
    ///
    /// # Safety
    /// AVX2 available.
    #[inline(always)]
    unsafe fn widen_dot(acc: __m256i, u: __m256i, s: __m256i) -> __m256i {
        // SAFETY: AVX2 (the caller's contract).
        unsafe {
            let ue = _mm256_srli_epi16(_mm256_slli_epi16(u, 8), 8);
            let uo = _mm256_srli_epi16(u, 8);
            let se = _mm256_srai_epi16(_mm256_slli_epi16(s, 8), 8);
            let so = _mm256_srai_epi16(s, 8);
            _mm256_add_epi32(
                acc,
                _mm256_add_epi32(_mm256_madd_epi16(ue, se), _mm256_madd_epi16(uo, so)),
            )
        }
    }
    impl Dot for WidenV {
        #[inline(always)]
        unsafe fn dot(acc: __m256i, v: __m256i, b: __m256i, _: __m256i) -> __m256i {
            // SAFETY: AVX2 (the caller's contract).
            unsafe { widen_dot(acc, v, b) }
        }
    }
    impl Dot for WidenB {
        #[inline(always)]
        unsafe fn dot(acc: __m256i, v: __m256i, b: __m256i, _: __m256i) -> __m256i {
            // SAFETY: AVX2 (the caller's contract).
            unsafe { widen_dot(acc, b, v) }
        }
    }

    /// Where a tile's broadcast quads are: column j's quad q at `at(q, j)` (this file's
    /// 16-row tiles and `quads_zmm`'s 32-row one).
    pub(in crate::gemm) trait Quad: Copy {
        /// The quad's address.
        fn at(self, q: usize, j: usize) -> *const u8;
    }

    /// A packed panel of NR columns: quad q of column j at `4·(q·NR + j)`.
    #[derive(Clone, Copy)]
    pub(in crate::gemm) struct Panel<const NR: usize>(pub(in crate::gemm) *const u8);
    impl<const NR: usize> Quad for Panel<NR> {
        #[inline(always)]
        fn at(self, q: usize, j: usize) -> *const u8 {
            self.0.wrapping_add(4 * (q * NR + j))
        }
    }

    /// NR rows read where they are: quad q of row j at `rows[j] + 4q`.
    #[derive(Clone, Copy)]
    pub(in crate::gemm) struct InPlaceRows<const NR: usize>(pub(in crate::gemm) [*const u8; NR]);
    impl<const NR: usize> Quad for InPlaceRows<NR> {
        #[inline(always)]
        fn at(self, q: usize, j: usize) -> *const u8 {
            self.0[j].wrapping_add(4 * q)
        }
    }

    /// One k quad `q` of [`dots`].
    ///
    /// # Safety
    /// As [`dots`], for quad `q`.
    #[inline(always)]
    unsafe fn step<D: Dot, B: Quad, const NR: usize>(
        acc: &mut [[__m256i; 2]; NR],
        a: *const u8,
        b: B,
        q: usize,
        ones: __m256i,
    ) {
        // SAFETY: the caller's contract.
        unsafe {
            let a0 = _mm256_loadu_si256(a.add(64 * q).cast());
            let a1 = _mm256_loadu_si256(a.add(64 * q + 32).cast());
            for (j, accj) in acc.iter_mut().enumerate() {
                let bj = _mm256_set1_epi32(b.at(q, j).cast::<i32>().read_unaligned());
                accj[0] = D::dot(accj[0], a0, bj, ones);
                accj[1] = D::dot(accj[1], a1, bj, ones);
            }
        }
    }

    /// The 16 × NR quad kernel's k loop: 2·NR ymm accumulators, per k quad two row vectors
    /// (64 packed bytes at `a`) and NR broadcast quads from `b`.
    ///
    /// # Safety
    /// AVX2 and the instruction set of `D` available; `a` holds `64·k` bytes and every
    /// `b.at(q, j)` (`q < k`, `j < NR`) four readable bytes (unaligned).
    #[inline(always)]
    unsafe fn dots<D: Dot, B: Quad, const NR: usize>(
        a: *const u8,
        k: usize,
        b: B,
    ) -> [[__m256i; 2]; NR] {
        // SAFETY: (whole body) the caller's contract.
        unsafe {
            let ones = _mm256_set1_epi16(1);
            let mut acc = [[_mm256_setzero_si256(); 2]; NR];
            // two quads a trip: half the loop's counting
            let mut q = 0;
            while q + 2 <= k {
                step::<D, B, NR>(&mut acc, a, b, q, ones);
                step::<D, B, NR>(&mut acc, a, b, q + 1, ones);
                q += 2;
            }
            if q < k {
                step::<D, B, NR>(&mut acc, a, b, q, ones);
            }
            acc
        }
    }

    /// The 16 × NR quad kernel body on packed panels.
    ///
    /// # Safety
    /// As [`super::super::kernel::Ukr`] with MR = 16, NR, `KSTEP = 4`; AVX2 and the
    /// instruction set of `D` available.
    #[inline(always)]
    unsafe fn body<D: Dot, const NR: usize>(t: &Tile<i32, u8>) {
        // SAFETY: the caller guarantees the instruction sets, 64·k readable bytes at `a` and
        // 4·NR·k at `b` (NR quads per step), and the tile of C.
        unsafe { store(t, &dots::<D, _, NR>(t.a, t.k, Panel::<NR>(t.b))) }
    }

    /// A strip of MR × NR kernels (MR and NR those of [`super::kernel`] for the same choice:
    /// 16 × NR here, 32 × 12 for the zmm tile) whose broadcast operand is NR rows read where
    /// they are: row j's quad q at `t.b + j·ld + 4q` (a `u8` matrix whose rows run along k),
    /// against `panels` packed panels of MR rows, panel p at `t.a + 4·MR·k·p` writing C's MR
    /// columns from `t.c + MR·p` (C's columns unit stride, `t.rsc == 1`). One call per strip:
    /// the row pointers, the call and the tile loop's work are paid once per `panels` tiles.
    pub(crate) type UkrRows = unsafe fn(&Tile<i32, u8>, isize, usize);

    /// The 16 × NR quad kernel body with NR broadcast rows in place, over a strip of panels
    /// ([`UkrRows`]).
    ///
    /// # Safety
    /// As [`body`] for each panel p < `panels` (its 64·k bytes at `t.a + 64·k·p`, its tile of C
    /// at `t.c + 16p`), except that `b + j·ld` (`j < NR`) holds `4·k` readable bytes instead
    /// of the packed panel.
    #[inline(always)]
    unsafe fn body_rows<D: Dot, const NR: usize>(t: &Tile<i32, u8>, ld: isize, panels: usize) {
        // SAFETY: the caller guarantees the instruction sets, 64·k bytes at each panel, 4·k at
        // each of the NR rows, and each panel's tile of C.
        unsafe {
            // the row starts opaque to the compiler, so each is a base register of its
            // broadcasts (`[row + 4q]`) instead of recomputed from the first and the distance
            let rows = InPlaceRows::<NR>(core::hint::black_box(core::array::from_fn(|j| {
                t.b.wrapping_offset(j as isize * ld)
            })));
            let step = 64 * t.k;
            for p in 0..panels {
                let acc = dots::<D, _, NR>(t.a.wrapping_add(p * step), t.k, rows);
                let tile = Tile {
                    c: t.c.wrapping_add(16 * p),
                    ..*t
                };
                store(&tile, &acc);
            }
        }
    }

    macro_rules! wrapper {
        ($name:ident, $dot:ty, $nr:expr, $features:literal, $doc:literal) => {
            #[doc = $doc]
            ///
            /// # Safety
            /// As [`super::super::kernel::Ukr`] with MR = 16, the NR of its `body`,
            /// `KSTEP = 4`; the instruction sets named in its `target_feature` available.
            #[target_feature(enable = $features)]
            pub(crate) unsafe fn $name(t: &Tile<i32, u8>) {
                // SAFETY: forwarded contract.
                unsafe { body::<$dot, { $nr }>(t) }
            }
        };
    }
    wrapper!(
        maddubs_v,
        MaddubsV,
        MADDUBS_NR,
        "avx2",
        "`vpmaddubsw` 16 × 4, u8 panel in the vectors."
    );
    wrapper!(
        maddubs_b,
        MaddubsB,
        MADDUBS_NR,
        "avx2",
        "`vpmaddubsw` 16 × 4, u8 panel broadcast."
    );
    wrapper!(
        widen_v,
        WidenV,
        TILE.1,
        "avx2",
        "Exact widening 16 × 6, u8 panel in the vectors."
    );
    wrapper!(
        widen_b,
        WidenB,
        TILE.1,
        "avx2",
        "Exact widening 16 × 6, u8 panel broadcast."
    );
    wrapper!(
        avxvnni_v,
        AvxVnniV,
        TILE.1,
        "avx2,avxvnni",
        "AVX-VNNI `vpdpbusd` 16 × 6, u8 panel in the vectors."
    );
    wrapper!(
        avxvnni_b,
        AvxVnniB,
        TILE.1,
        "avx2,avxvnni",
        "AVX-VNNI `vpdpbusd` 16 × 6, u8 panel broadcast."
    );

    macro_rules! rows_wrapper {
        ($name:ident, $dot:ty, $nr:expr, $features:literal) => {
            /// [`body_rows`] on this instruction set, u8 rows broadcast.
            ///
            /// # Safety
            /// As [`body_rows`]; the instruction sets of its `target_feature` available.
            #[target_feature(enable = $features)]
            unsafe fn $name(t: &Tile<i32, u8>, ld: isize, panels: usize) {
                // SAFETY: forwarded contract.
                unsafe { body_rows::<$dot, { $nr }>(t, ld, panels) }
            }
        };
    }
    rows_wrapper!(maddubs_rows, MaddubsB, MADDUBS_NR, "avx2");
    rows_wrapper!(avxvnni_rows, AvxVnniB, TILE.1, "avx2,avxvnni");

    /// `out[4·(q·ld + t) ..][..4] = src[t·sv + 4q ..][..4] ⊕ f` for `t < rows`, `q < quads`
    /// (both multiples of 8): 8 × 8 squares of 32-bit quads, one 32-byte load per source row,
    /// XORed with the flip and transposed in registers, one 32-byte store per quad.
    ///
    /// # Safety
    /// AVX2 is available; `rows` and `quads` are multiples of 8; `src` is readable for every
    /// `t·sv + 4q .. + 4` and `out` writable for every `4·(q·ld + t) .. + 4`; they do not
    /// overlap.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn quad_squares(
        out: *mut u8,
        ld: usize,
        src: *const u8,
        sv: usize,
        (rows, quads): (usize, usize),
        f: u8,
    ) {
        // SAFETY: (whole body) the caller's contract: each load reads one row's 8 quads of the
        // block, each store one quad's 8 rows.
        unsafe {
            let flip = _mm256_set1_epi8(f as i8);
            let mut q = 0;
            while q < quads {
                let mut t = 0;
                while t < rows {
                    let x: [__m256; 8] = core::array::from_fn(|u| {
                        let v = _mm256_loadu_si256(src.add((t + u) * sv + 4 * q).cast());
                        _mm256_castsi256_ps(_mm256_xor_si256(v, flip))
                    });
                    let y = super::super::pack::tr8(x);
                    for (u, v) in y.into_iter().enumerate() {
                        _mm256_storeu_ps(out.add(4 * ((q + u) * ld + t)).cast(), v);
                    }
                    t += 8;
                }
                q += 8;
            }
        }
    }

    /// The in-place-rows kernel of a quad kernel choice (u8 broadcast), `None` for those
    /// without one (the widening and portable kernels).
    pub(crate) fn rows_kernel(dot: super::Dot) -> Option<UkrRows> {
        use super::{Dot as D, Vnni};
        Some(match dot {
            D::Maddubs => maddubs_rows,
            D::Vnni(Vnni::Avx) => avxvnni_rows,
            D::Vnni(Vnni::Avx512) => super::super::quads_zmm::vnni_rows,
            D::Widen | D::Portable => return None,
        })
    }

    /// [`super::byte_max`] with AVX2: four running maxima of 32 bytes, 128 bytes a step.
    ///
    /// # Safety
    /// AVX2 available.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn byte_max(x: &[u8], key: super::Key) -> u8 {
        let (flip, abs) = match key {
            super::Key::Xor(f) => (f, false),
            super::Key::Abs => (0, true),
        };
        let chunks = x.chunks_exact(128);
        let rest = chunks.remainder();
        let f = _mm256_set1_epi8(flip as i8);
        let mut m = [_mm256_setzero_si256(); 4];
        for c in chunks {
            for (u, mu) in m.iter_mut().enumerate() {
                // SAFETY: `c` holds 128 bytes, so `c[32u ..][..32]` is inside it.
                let v = unsafe { _mm256_loadu_si256(c.as_ptr().add(32 * u).cast()) };
                let v = if abs {
                    _mm256_abs_epi8(v)
                } else {
                    _mm256_xor_si256(v, f)
                };
                *mu = _mm256_max_epu8(*mu, v);
            }
        }
        let v = _mm256_max_epu8(_mm256_max_epu8(m[0], m[1]), _mm256_max_epu8(m[2], m[3]));
        let mut lanes = [0u8; 32];
        // SAFETY: `lanes` holds 32 bytes.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v) };
        let top = lanes.iter().fold(0u8, |a, &b| a.max(b));
        rest.iter().fold(top, |a, &b| a.max(key.of(b)))
    }

    /// A matrix × vector kernel over one pre-packed panel ([`super::gemv_packed`]):
    /// `(panel, row, quads, acc)`, adding into the panel's width of `i32` at `acc`.
    pub(crate) type Gemv = unsafe fn(*const u8, *const u8, usize, *mut i32);

    /// `acc[j] += Σ_q Σ₄ a[4q + e]·p[64q + 4j + e]` over `quads` k quads of one 16-column
    /// panel `p` (signed, in the vectors) and the row `a` (unsigned, broadcast): four
    /// independent accumulator pairs, so `vpdpbusd`'s latency is hidden.
    ///
    /// # Safety
    /// `p` holds `64·quads` bytes, `a` `4·quads`, `acc` 16 `i32`; AVX2 and the instruction
    /// set of `D`.
    #[inline(always)]
    unsafe fn gemv_body<D: Dot>(p: *const u8, a: *const u8, quads: usize, acc: *mut i32) {
        // SAFETY: the caller's contract (every read inside `p` and `a`).
        unsafe {
            let ones = _mm256_set1_epi16(1);
            let mut s = [[_mm256_setzero_si256(); 2]; 4];
            let mut q = 0;
            while q + 4 <= quads {
                for (u, su) in s.iter_mut().enumerate() {
                    let at = p.add(64 * (q + u));
                    let av = _mm256_set1_epi32(a.add(4 * (q + u)).cast::<i32>().read_unaligned());
                    su[0] = D::dot(su[0], _mm256_loadu_si256(at.cast()), av, ones);
                    su[1] = D::dot(su[1], _mm256_loadu_si256(at.add(32).cast()), av, ones);
                }
                q += 4;
            }
            while q < quads {
                let at = p.add(64 * q);
                let av = _mm256_set1_epi32(a.add(4 * q).cast::<i32>().read_unaligned());
                s[0][0] = D::dot(s[0][0], _mm256_loadu_si256(at.cast()), av, ones);
                s[0][1] = D::dot(s[0][1], _mm256_loadu_si256(at.add(32).cast()), av, ones);
                q += 1;
            }
            let [s0, s1, s2, s3] = s;
            for (h, ((x0, x1), (x2, x3))) in s0.iter().zip(&s1).zip(s2.iter().zip(&s3)).enumerate()
            {
                let t = _mm256_add_epi32(_mm256_add_epi32(*x0, *x1), _mm256_add_epi32(*x2, *x3));
                let o = acc.add(8 * h).cast::<__m256i>();
                _mm256_storeu_si256(o, _mm256_add_epi32(_mm256_loadu_si256(o), t));
            }
        }
    }

    macro_rules! gemv_wrapper {
        ($name:ident, $dot:ty, $features:literal) => {
            /// [`gemv_body`] on this instruction set.
            ///
            /// # Safety
            /// As [`gemv_body`]; the instruction sets of its `target_feature` available.
            #[target_feature(enable = $features)]
            unsafe fn $name(p: *const u8, a: *const u8, quads: usize, acc: *mut i32) {
                // SAFETY: forwarded contract.
                unsafe { gemv_body::<$dot>(p, a, quads, acc) }
            }
        };
    }
    gemv_wrapper!(gemv_maddubs, MaddubsB, "avx2");
    gemv_wrapper!(gemv_widen, WidenB, "avx2");
    gemv_wrapper!(gemv_avxvnni, AvxVnniB, "avx2,avxvnni");

    /// The matrix × vector kernel of a quad kernel choice (the unsigned row broadcast) with
    /// the width of the panels it reads (its tile's MR), `None` for the portable one.
    pub(crate) fn gemv_kernel(dot: super::Dot) -> Option<(Gemv, usize)> {
        use super::{Dot as D, Vnni};
        Some(match dot {
            D::Maddubs => (gemv_maddubs, TILE.0),
            D::Widen => (gemv_widen, TILE.0),
            D::Vnni(Vnni::Avx) => (gemv_avxvnni, TILE.0),
            D::Vnni(Vnni::Avx512) => (
                super::super::quads_zmm::gemv,
                super::super::quads_zmm::TILE.0,
            ),
            D::Portable => return None,
        })
    }
}

/// Which instruction a quad kernel multiplies with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Dot {
    /// `vpmaddubsw` (AVX2): exact only under [`fits_i16`].
    Maddubs,
    /// `vpdpbusd`, AVX-VNNI or AVX512-VNNI: exact.
    Vnni(Vnni),
    /// AVX2, the bytes of each quad split into `i16` halves and `vpmaddwd` twice: exact on
    /// every input (a pre-packed B whose activations' range does not fit `vpmaddubsw`).
    Widen,
    /// Plain Rust 4 × 4 (the portable level).
    Portable,
}

/// The quad kernel for `dot`, with the u8 operand in the vectors (`unsigned_vectors`) or in
/// the broadcasts. `None` off x86-64.
fn kernel(dot: Dot, unsigned_vectors: bool) -> Option<KernelInfo<i32, u8>> {
    if dot == Dot::Portable {
        let ukr: super::kernel::Ukr<i32, u8> = if unsigned_vectors {
            portable_ukr::<true>
        } else {
            portable_ukr::<false>
        };
        return Some(KernelInfo {
            mr: 4,
            nr: 4,
            kc: KC,
            mc: 64,
            nc: 4096,
            ukr,
            in_place: None,
            lanes: 0,
            strided_in_place: 0,
            strided_kc: None,
            narrow: None,
            narrow_in_place: None,
            in_place_edge: super::kernel::NARROW_IN_PLACE,
            in_place_a: None,
            narrow_in_place_a: None,
        });
    }
    #[cfg(target_arch = "x86_64")]
    {
        use super::kernel::Ukr;
        let ukr: Ukr<i32, u8> = match (dot, unsigned_vectors) {
            (Dot::Maddubs, true) => x86::maddubs_v,
            (Dot::Maddubs, false) => x86::maddubs_b,
            (Dot::Vnni(Vnni::Avx), true) => x86::avxvnni_v,
            (Dot::Vnni(Vnni::Avx), false) => x86::avxvnni_b,
            (Dot::Vnni(Vnni::Avx512), true) => super::quads_zmm::vnni_v,
            (Dot::Vnni(Vnni::Avx512), false) => super::quads_zmm::vnni_b,
            (Dot::Widen, true) => x86::widen_v,
            (Dot::Widen, false) => x86::widen_b,
            (Dot::Portable, _) => return None,
        };
        let (mr, nr) = match dot {
            Dot::Vnni(Vnni::Avx512) => super::quads_zmm::TILE,
            Dot::Maddubs => (x86::TILE.0, x86::MADDUBS_NR),
            _ => x86::TILE,
        };
        // every x86 tile stores row vectors of 8 at any distance (`int8::avx2::store`, the
        // zmm tile's store in ymm halves)
        let ki = KernelInfo::sized(mr, nr, KC, A_MAX, ukr).with_lanes(8);
        // the zmm tile's 8-column variant, for products of few columns (`KernelInfo::fit`)
        Some(match (dot, unsigned_vectors) {
            (Dot::Vnni(Vnni::Avx512), true) => {
                ki.with_narrow(super::quads_zmm::NARROW, super::quads_zmm::vnni_v_narrow)
            }
            (Dot::Vnni(Vnni::Avx512), false) => {
                ki.with_narrow(super::quads_zmm::NARROW, super::quads_zmm::vnni_b_narrow)
            }
            _ => ki,
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = unsigned_vectors;
        None
    }
}

/// KC of the quad kernels, in k values (quads: KC/4 panel steps): a B micro-panel of NR·KC
/// bytes stays in L1 (6 KiB), the A block MC·KC bytes = 256 KiB in L2.
const KC: usize = 1024;

/// The most bytes of the packed block of the vectorised operand (MC·KC), kept in L2.
#[cfg(target_arch = "x86_64")]
const A_MAX: usize = 256 << 10;

/// The portable quad kernel: `acc[j][i] += Σ₄ a·b` with the u8 panel in the vectors
/// (`UV`, A's role) or broadcast.
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = NR = 4, `KSTEP = 4`.
unsafe fn portable_ukr<const UV: bool>(t: &Tile<i32, u8>) {
    let mut acc = [[0i32; 4]; 4];
    // SAFETY: the caller guarantees `a` and `b` hold 4·4·k bytes each.
    let (a, b) = unsafe {
        (
            core::slice::from_raw_parts(t.a, 16 * t.k),
            core::slice::from_raw_parts(t.b, 16 * t.k),
        )
    };
    let val = |x: u8, unsigned: bool| {
        if unsigned {
            i32::from(x)
        } else {
            i32::from(x as i8)
        }
    };
    for (ap, bp) in a.chunks_exact(16).zip(b.chunks_exact(16)) {
        for (j, accj) in acc.iter_mut().enumerate() {
            for (i, x) in accj.iter_mut().enumerate() {
                let s: i32 = (0..4)
                    .map(|e| val(ap[4 * i + e], UV) * val(bp[4 * j + e], !UV))
                    .sum();
                *x = x.wrapping_add(s);
            }
        }
    }
    // SAFETY: the caller guarantees every C element of the tile.
    unsafe { store_tile::<4, 4, u8>(t, &acc) }
}

/// What the range scan measures of each byte: its bits XORed with a flip (a packed `u8`), or
/// the magnitude of the `i8` it holds.
#[derive(Clone, Copy)]
enum Key {
    /// `x ⊕ f`.
    Xor(u8),
    /// `|x as i8|` (128 for −128).
    Abs,
}

impl Key {
    /// The key of one byte.
    #[inline(always)]
    fn of(self, x: u8) -> u8 {
        match self {
            Key::Xor(f) => x ^ f,
            Key::Abs => (x as i8).unsigned_abs(),
        }
    }
}

/// The largest key of the bytes of `x`: 128 bytes a step with AVX2 where the CPU has it.
fn byte_max(x: &[u8], key: Key) -> u8 {
    #[cfg(target_arch = "x86_64")]
    if x.len() >= 64 && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was detected.
        return unsafe { x86::byte_max(x, key) };
    }
    x.iter().fold(0u8, |m, &v| m.max(key.of(v)))
}

/// The largest key over the `rows × k` operand `s`, slice by slice in its memory order where
/// one of its axes is contiguous (a vectorised byte max; a dense operand in 4 KiB slices),
/// stopping once it passes `limit`.
fn max_of<S: Byte>(s: &Rows<'_, S>, rows: usize, k: usize, key: Key, limit: u32) -> u32 {
    let slice_max = |x: &[S]| byte_max(S::as_bytes(x), key);
    let mut m = 0u8;
    let dense = (s.sv == 1 && s.sk == rows as isize) || (s.sk == 1 && s.sv == k as isize);
    if s.map.is_none() && dense && s.origin >= 0 {
        // one run of rows·k bytes
        let at = s.origin as usize;
        for x in s.src[at..at + rows * k].chunks(4096) {
            m = m.max(slice_max(x));
            if u32::from(m) > limit {
                break;
            }
        }
        return u32::from(m);
    }
    if s.map.is_none() && s.sv == 1 && s.sk != 1 {
        // the rows' dimension contiguous: along it, one k step after another
        for p in 0..k {
            let at = (s.origin + p as isize * s.sk) as usize;
            m = m.max(slice_max(&s.src[at..at + rows]));
            if u32::from(m) > limit {
                break;
            }
        }
        return u32::from(m);
    }
    if let Some(mp) = s.map {
        return u32::from(mapped_max(s, mp, rows, k, key, limit));
    }
    for v in 0..rows {
        let r = s.row(v);
        if s.sk == 1 {
            let at = r as usize;
            m = m.max(slice_max(&s.src[at..at + k]));
        } else {
            m = (0..k).fold(m, |m, p| {
                m.max(key.of(s.src[(r + s.col(p)) as usize].bits()))
            });
        }
        if u32::from(m) > limit {
            break;
        }
    }
    u32::from(m)
}

/// [`max_of`] for an operand read through axis maps (an NZ/ZN fractal, a blocked or interleaved
/// format): where its `rows × k` elements fill their memory span exactly (no padding; the
/// checked layout has no two elements at one location), the span is scanned as one slice;
/// otherwise row by row along k's runs, each unit-step run as a slice.
fn mapped_max<S: Byte>(
    s: &Rows<'_, S>,
    mp: super::maps::Mapped<'_>,
    rows: usize,
    k: usize,
    key: Key,
    limit: u32,
) -> u8 {
    if rows == 0 || k == 0 {
        return 0;
    }
    let (ro, co) = (&mp.rows.off[..rows], &mp.cols.off[..k]);
    let span = |o: &[isize]| {
        o.iter().fold((isize::MAX, isize::MIN), |(lo, hi), &x| {
            (lo.min(x), hi.max(x))
        })
    };
    let ((rlo, rhi), (clo, chi)) = (span(ro), span(co));
    let (lo, hi) = (s.origin + rlo + clo, s.origin + rhi + chi);
    // (lo ≥ 0 and hi in bounds: every element of the checked operand is)
    if (hi - lo + 1) as usize == rows * k {
        let all = &s.src[lo as usize..=hi as usize];
        let mut m = 0u8;
        for x in all.chunks(4096) {
            m = m.max(byte_max(S::as_bytes(x), key));
            if u32::from(m) > limit {
                break;
            }
        }
        return m;
    }
    let mut m = 0u8;
    for &r in ro {
        let r = s.origin + r;
        let mut p = 0;
        while p < k {
            let run = (mp.cols.run[p] as usize).min(k - p);
            if run > 1 && mp.cols.step(p) == 1 {
                let at = (r + co[p]) as usize;
                m = m.max(byte_max(S::as_bytes(&s.src[at..at + run]), key));
                p += run;
            } else {
                m = m.max(key.of(s.src[(r + co[p]) as usize].bits()));
                p += 1;
            }
        }
        if u32::from(m) > limit {
            break;
        }
    }
    m
}

/// Whether `vpmaddubsw` is exact on A (`m × k`, its bits XORed with `flip`) times B: the
/// largest `|b|` and the largest packed `a` satisfy `2·max a·max|b| ≤ 32767`, so no pair sum
/// leaves `i16`. One pass over B, then over A, stopping at the first slice past the bound.
pub(crate) fn fits_i16<A: Byte>(
    a: &Rows<'_, A>,
    flip: u8,
    bt: &Rows<'_, i8>,
    [m, k, n]: [usize; 3],
) -> bool {
    let bmax = max_abs(bt, n, k);
    a_fits(a, flip, bmax, m, k)
}

/// Whether A's packed values (bits XORed with `flip`) stay within `32767 / (2·bmax)`.
fn a_fits<A: Byte>(a: &Rows<'_, A>, flip: u8, bmax: u32, m: usize, k: usize) -> bool {
    if bmax == 0 {
        return true;
    }
    let amax = 32767 / (2 * bmax);
    max_of(a, m, k, Key::Xor(flip), amax) <= amax
}

/// `Σₚ b[p][j]` for each column j of B (`bt` is Bᵀ, n × k), wrapping: along the rows of B
/// where its columns are the contiguous dimension, so every order streams.
fn column_sums(bt: &Rows<'_, i8>, n: usize, k: usize) -> Vec<i32> {
    let mut sums = std::vec![0i32; n];
    if bt.map.is_none() && bt.sv == 1 {
        for p in 0..k {
            let at = (bt.origin + p as isize * bt.sk) as usize;
            for (s, &b) in sums.iter_mut().zip(&bt.src[at..at + n]) {
                *s = s.wrapping_add(i32::from(b));
            }
        }
    } else {
        for (j, s) in sums.iter_mut().enumerate() {
            let r = bt.row(j);
            *s = if bt.map.is_none() && bt.sk == 1 {
                let at = r as usize;
                bt.src[at..at + k]
                    .iter()
                    .fold(0i32, |s, &b| s.wrapping_add(i32::from(b)))
            } else {
                (0..k).fold(0i32, |s, p| {
                    s.wrapping_add(i32::from(bt.src[(r + bt.col(p)) as usize]))
                })
            };
        }
    }
    sums
}

/// `C[i][j] −= α·128·colsum[j]` for every element of C (wrapping): undoes A's +128 shift.
fn unshift(c: &mut Out<'_, i32>, [m, _, n]: [usize; 3], alpha: i32, sums: &[i32]) {
    let d: Vec<i32> = sums
        .iter()
        .take(n)
        .map(|&s| alpha.wrapping_mul(128).wrapping_mul(s))
        .collect();
    let at = |i: usize, j: usize| -> usize {
        (match c.cmap {
            Some(cm) => c.sc.origin + cm.rows.off[i] + cm.cols.off[j],
            None => c.sc.origin + i as isize * c.sc.rs + j as isize * c.sc.cs,
        }) as usize
    };
    if c.cmap.is_none() && c.sc.cs == 1 {
        // rows of C contiguous
        for i in 0..m {
            let r = at(i, 0);
            for (x, &d) in c.c[r..r + n].iter_mut().zip(&d) {
                *x = x.wrapping_sub(d);
            }
        }
    } else {
        for (j, &d) in d.iter().enumerate() {
            for i in 0..m {
                let x = &mut c.c[at(i, j)];
                *x = x.wrapping_sub(d);
            }
        }
    }
}

/// Forces the quad route's choice on this thread (tests): `Some(None)` takes the `i16` pair
/// engine, `Some(Some(dot))` the quad kernel of `dot` (the caller checked the CPU has it and,
/// for `vpmaddubsw`, that the ranges fit).
#[cfg(test)]
pub(crate) fn force(choice: Option<Option<Dot>>) {
    FORCED.with(|f| f.set(choice));
}

#[cfg(test)]
std::thread_local! {
    /// Calls of [`run_rows`] on this thread (tests: the route was taken).
    static ROWS_RUNS: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

#[cfg(test)]
std::thread_local! {
    static FORCED: core::cell::Cell<Option<Option<Dot>>> = const { core::cell::Cell::new(None) };
}

/// The quad kernel a product of `isa` takes, `None` for the `i16` pair engine: VNNI where the
/// CPU has it (exact on every input), else `vpmaddubsw` on AVX2 where the ranges fit.
fn choose(isa: Isa, fits: impl FnOnce() -> bool) -> Option<Dot> {
    #[cfg(test)]
    if let Some(forced) = FORCED.with(|f| f.get()) {
        return forced;
    }
    pick(crate::isa::vnni(isa), isa, fits)
}

/// [`choose`] given the VNNI extension the level may use.
fn pick(vnni: Option<Vnni>, isa: Isa, fits: impl FnOnce() -> bool) -> Option<Dot> {
    if !cfg!(target_arch = "x86_64") || isa < Isa::Avx2 {
        return None;
    }
    if let Some(v) = vnni {
        return Some(Dot::Vnni(v));
    }
    fits().then_some(Dot::Maddubs)
}

/// The quad kernel a checked product with `i8` B takes (`u8` A as it is, `i8` A shifted by
/// +128): `None` when neither VNNI nor the `vpmaddubsw` bound applies (the caller runs the
/// exact `i16` pair engine) or off x86-64.
pub(crate) fn choice<A: Byte + Int8>(p: &Product<'_, A, i8, i32>) -> Option<Dot> {
    let flip = if A::SIGNED { 0x80 } else { 0 };
    let (a, bt) = (p.a.rows(), p.b.transposed().rows());
    choose(p.isa, || fits_i16(&a, flip, &bt, p.mkn)).filter(|&d| kernel(d, true).is_some())
}

/// Runs a checked product with `i8` B on the quad kernel `dot` ([`choice`]).
pub(crate) fn run<A: Byte + Int8>(p: Product<'_, A, i8, i32>, dot: Dot) {
    let flip = if A::SIGNED { 0x80 } else { 0 };
    // AVX2 may move mapped operands' quads in 8 × 8 squares (`pack_mapped`)
    let simd = cfg!(target_arch = "x86_64") && p.isa >= Isa::Avx2;
    let asrc = Bytes {
        rows: Rows { simd, ..p.a.rows() },
        flip,
        zip: Zip::at(p.isa),
    };
    let bt = Rows {
        simd,
        ..p.b.transposed().rows()
    };
    let [m, _, n] = p.mkn;
    // the engine computes Cᵀ = Bᵀ·Aᵀ (B's panels in the vectors) for C whose rows are its
    // contiguous dimension, exactly as `run_panels` decides
    let (crs, ccs) = match p.c.cmap {
        Some(cm) => (cm.rows.step(0), cm.cols.step(0)),
        None => (p.c.sc.rs, p.c.sc.cs),
    };
    #[cfg(target_arch = "x86_64")]
    if let Some(g) = rows_route(&p, dot) {
        return run_rows(p, dot, g);
    }
    let Some(ki) = kernel(dot, !transposes(m, n, crs, ccs)) else {
        unreachable!("`choice` checked the kernel")
    };
    let bsrc = Bytes {
        rows: bt,
        flip: 0,
        zip: Zip::at(p.isa),
    };
    let sums = A::SIGNED.then(|| column_sums(&bt, n, p.mkn[1]));
    let Product {
        mkn,
        alpha,
        beta,
        mut c,
        threads,
        ..
    } = p;
    let out = Out {
        c: &mut *c.c,
        sc: c.sc,
        cmap: c.cmap,
    };
    run_panels::<Quads>(&ki, mkn, alpha, &asrc, &bsrc, beta, out, threads);
    if let Some(sums) = sums {
        unshift(&mut c, mkn, alpha, &sums);
    }
}

/// The in-place-rows kernel for a product whose A is `u8` with rows running along k (a
/// row-major A: each k quad is one 32-bit word where it is) and whose C is row-major (the
/// engine's `Cᵀ = Bᵀ·Aᵀ`, A broadcast), k a multiple of 4, packing not forced: then A is read
/// where it is ([`run_rows`]) and only B is packed. `None` otherwise.
#[cfg(target_arch = "x86_64")]
fn rows_route<A: Byte + Int8>(p: &Product<'_, A, i8, i32>, dot: Dot) -> Option<x86::UkrRows> {
    let a = p.a.rows();
    let [m, k, n] = p.mkn;
    let c = &p.c;
    let ok = !A::SIGNED
        && p.packing != super::options::Packing::Always
        && a.map.is_none()
        && a.sk == 1
        && k.is_multiple_of(4)
        && c.cmap.is_none()
        && c.sc.cs == 1
        && transposes(m, n, c.sc.rs, c.sc.cs);
    ok.then(|| x86::rows_kernel(dot)).flatten()
}

/// C's buffer, shared by the threads of one [`run_rows`] call.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct CBase(*mut i32);
// SAFETY: the threads of one call write disjoint row or column ranges of a C checked to have no
// two elements at one location, and the pointer does not outlive the call.
#[cfg(target_arch = "x86_64")]
unsafe impl Send for CBase {}
// SAFETY: as for Send; the pointer itself is only copied.
#[cfg(target_arch = "x86_64")]
unsafe impl Sync for CBase {}

/// A `u8` A read where it is ([`rows_route`]): B packed in MR-column panels as the engine packs
/// it, each group of NR rows of A (the kernel's NR) broadcast straight from its rows by `g`
/// (the last, partial group packed), on up to `threads` threads split along n (multiples of
/// MR) or m (of NR) as the engine splits.
#[cfg(target_arch = "x86_64")]
fn run_rows<A: Byte + Int8>(p: Product<'_, A, i8, i32>, dot: Dot, g: x86::UkrRows) {
    #[cfg(test)]
    ROWS_RUNS.with(|r| r.set(r.get() + 1));
    let Some(ki) = kernel(dot, false) else {
        unreachable!("`rows_route` checked the kernel")
    };
    let a = p.a.rows();
    let bsrc = Bytes {
        rows: p.b.transposed().rows(),
        flip: 0,
        zip: Zip::at(p.isa),
    };
    let [m, k, n] = p.mkn;
    let Product {
        alpha,
        beta,
        c,
        threads,
        ..
    } = p;
    let (sc, base) = (c.sc, CBase(c.c.as_mut_ptr()));
    let threads = if m.saturating_mul(n).saturating_mul(k) < 64 * 64 * 64 {
        1
    } else {
        threads.max(1)
    };
    let (along_n, len, unit) = if n >= m {
        (true, n, ki.mr)
    } else {
        (false, m, ki.nr)
    };
    let units = len.div_ceil(unit);
    let parts = threads.min(units);
    let part = |t: usize| {
        let lo = (units * t / parts * unit).min(len);
        let hi = (units * (t + 1) / parts * unit).min(len);
        let (rows, cols) = if along_n {
            (0..m, lo..hi)
        } else {
            (lo..hi, 0..n)
        };
        let job = RowsJob {
            ki: &ki,
            g,
            a: &a,
            bsrc: &bsrc,
            k,
            alpha,
            beta,
            sc,
            base,
        };
        job.run(rows, cols);
    };
    super::threads::split(parts, &part);
}

/// One thread's share of [`run_rows`].
#[cfg(target_arch = "x86_64")]
struct RowsJob<'a, A> {
    ki: &'a KernelInfo<i32, u8>,
    g: x86::UkrRows,
    a: &'a Rows<'a, A>,
    bsrc: &'a Bytes<'a, i8>,
    k: usize,
    alpha: i32,
    beta: i32,
    sc: super::check::Strided,
    base: CBase,
}

#[cfg(target_arch = "x86_64")]
impl<A: Byte> RowsJob<'_, A> {
    /// Rows `rows` × columns `cols` of C: per KC block of k and MC block of B's columns, B's
    /// block packed, then every group of NR rows of A against each of its panels.
    fn run(&self, rows: core::ops::Range<usize>, cols: core::ops::Range<usize>) {
        let (ki, k, sc) = (self.ki, self.k, self.sc);
        let (mr, nr) = (ki.mr, ki.nr);
        let kc = ki.kc.min(k);
        let mc = ki.mc.min(cols.len().next_multiple_of(mr));
        let aligned = |v: &mut Vec<u8>, len: usize| -> (usize, usize) {
            if v.len() < len + 64 {
                v.resize(len + 64, 0);
            }
            let off = v.as_ptr().align_offset(64).min(64);
            (off, len)
        };
        Quads::with_buffers(|bstore, astore| {
            let (bo, bl) = aligned(bstore, mc * kc);
            let (ao, al) = aligned(astore, nr * kc);
            let bbuf = &mut bstore[bo..bo + bl];
            let abuf = &mut astore[ao..ao + al];
            // the largest tile (the zmm one's 32 × 12)
            let mut scratch = [0i32; 32 * 12];
            debug_assert!(mr * nr <= scratch.len());
            for pc in (0..k).step_by(ki.kc) {
                let kcb = ki.kc.min(k - pc);
                let quads = kcb / 4;
                let beta_pc = if pc == 0 { self.beta } else { 1 };
                for ic in cols.clone().step_by(ki.mc) {
                    let mcb = ki.mc.min(cols.end - ic);
                    self.bsrc.pack(bbuf, ic, pc, mcb, kcb, mr);
                    for jr in rows.clone().step_by(nr) {
                        let nrb = nr.min(rows.end - jr);
                        if nrb < nr {
                            let part = Bytes {
                                rows: *self.a,
                                flip: 0,
                                zip: self.bsrc.zip,
                            };
                            part.pack(abuf, jr, pc, nrb, kcb, nr);
                        }
                        // A's row jr at k step pc (bytes: `A` is a byte type)
                        let arow = self
                            .a
                            .src
                            .as_ptr()
                            .cast::<u8>()
                            .wrapping_offset(self.a.row(jr) + pc as isize);
                        // the whole MR-column panels of the block in one strip call
                        let whole = if nrb == nr { mcb / mr } else { 0 };
                        if whole > 0 {
                            let corner = sc.origin + jr as isize * sc.rs + ic as isize;
                            let tile = Tile {
                                k: quads,
                                alpha: self.alpha,
                                beta: beta_pc,
                                a: bbuf.as_ptr(),
                                b: arow,
                                // SAFETY: (jr, ic) is an element of the checked C (row jr < m,
                                // column ic < n), owned by this thread.
                                c: unsafe { self.base.0.offset(corner) },
                                rsc: 1,
                                csc: sc.rs,
                                vsc: 0,
                            };
                            // SAFETY: `bbuf` holds the block's packed panels, panel p's mr·kcb
                            // bytes at mr·kcb·p (p < whole ≤ mcb / mr); rows jr … jr + nr − 1
                            // of A hold kcb bytes each from k step pc (a checked operand whose
                            // rows run along k), `sv` apart; each panel's tile of C (rows jr …
                            // jr + nr − 1, columns ic + mr·p … ic + mr·p + mr − 1, C's columns
                            // unit stride) lies inside C; `rows_kernel` answered for the
                            // checked level (its MR and NR are `ki`'s).
                            unsafe { (self.g)(&tile, self.a.sv, whole) };
                        }
                        for ir in (whole * mr..mcb).step_by(mr) {
                            let mrb = mr.min(mcb - ir);
                            let (i0, j0) = (ic + ir, jr);
                            let ap = bbuf[ir * kcb..(ir + mr) * kcb].as_ptr();
                            let tile = Tile {
                                k: quads,
                                alpha: self.alpha,
                                beta: 0,
                                a: ap,
                                b: if nrb == nr { arow } else { abuf.as_ptr() },
                                c: scratch.as_mut_ptr(),
                                rsc: 1,
                                csc: mr as isize,
                                vsc: 0,
                            };
                            // SAFETY: as above for `ap` and A's rows (or the packed partial
                            // group of nr·kcb bytes); C is the mr × nr scratch tile.
                            unsafe {
                                if nrb == nr {
                                    (self.g)(&tile, self.a.sv, 1)
                                } else {
                                    (ki.ukr)(&tile)
                                }
                            };
                            for j in 0..nrb {
                                for (i, &x) in scratch[j * mr..j * mr + mrb].iter().enumerate() {
                                    let at =
                                        sc.origin + (j0 + j) as isize * sc.rs + (i0 + i) as isize;
                                    // SAFETY: (j0 + j, i0 + i) is an element of C owned by
                                    // this thread.
                                    unsafe {
                                        let q = self.base.0.offset(at);
                                        *q = if beta_pc == 0 {
                                            x
                                        } else {
                                            Quads::mul_add(*q, beta_pc, x)
                                        };
                                    }
                                }
                            }
                        }
                    }
                }
            }
        });
    }
}

/// The panel width (the kernels' MR) and KC of an `i8` B pre-packed for `isa` with `k` rows:
/// the zmm tile's where the level has AVX512-VNNI, else the 256-bit tiles' (which every AVX2
/// quad kernel shares), the portable kernel's below AVX2.
pub(crate) fn packed_plan(isa: Isa, k: usize) -> Option<(usize, usize)> {
    let dot = if cfg!(target_arch = "x86_64") && isa >= Isa::Avx2 {
        match crate::isa::vnni(isa) {
            Some(Vnni::Avx512) => Dot::Vnni(Vnni::Avx512),
            _ => Dot::Widen,
        }
    } else {
        Dot::Portable
    };
    kernel(dot, false).map(|ki| (ki.mr, ki.kc.min(k).max(1)))
}

/// The largest `|x|` of a `rows × k` operand.
pub(crate) fn max_abs(s: &Rows<'_, i8>, rows: usize, k: usize) -> u32 {
    max_of(s, rows, k, Key::Abs, u32::MAX)
}

/// `Σₚ b[p][j]` of each column of an `i8` B (read as Bᵀ, n × k): the `i8 × i8` correction,
/// kept by a pre-packed B.
pub(crate) fn packed_sums(bt: &Rows<'_, i8>, n: usize, k: usize) -> Vec<i32> {
    column_sums(bt, n, k)
}

/// A product with an `i8` B pre-packed in quads ([`super::PackedB`]), whose panels the engine
/// puts in the vectors (the u8 activations broadcast): VNNI where the CPU has it, else
/// `vpmaddubsw` when A's range fits B's measured `bmax`, else the exact widening kernel; the
/// portable kernel below AVX2. `i8` A shifted and corrected with the stored column sums.
pub(crate) fn run_packed<A: Byte + Int8>(
    p: super::packed_b::PackedRun<'_, A, i8, i32>,
    bmax: u32,
    sums: &[i32],
    #[cfg_attr(not(target_arch = "x86_64"), allow(unused_variables))] (nr, kc): (usize, usize),
) {
    let flip = if A::SIGNED { 0x80 } else { 0 };
    let asrc = Bytes {
        rows: p.a.rows(),
        flip,
        zip: Zip::at(p.isa),
    };
    let [m, k, _] = p.mkn;
    let fits = || a_fits(&asrc.rows, flip, bmax, m, k);
    let dot = if cfg!(target_arch = "x86_64") && p.isa >= Isa::Avx2 {
        let dot = choose(p.isa, fits).unwrap_or(Dot::Widen);
        // the kernel of the packed panels' width: the zmm tile's 32 columns were packed where
        // the level has AVX512-VNNI (`packed_plan`), 16 for the 256-bit tiles
        match kernel(dot, false) {
            Some(ki) if ki.mr == nr => dot,
            _ if nr == 32 => Dot::Vnni(Vnni::Avx512),
            _ => Dot::Widen,
        }
    } else {
        Dot::Portable
    };
    // one row of A (decode): the panels streamed once, one k quad of A broadcast
    #[cfg(target_arch = "x86_64")]
    if m == 1
        && p.packing != super::options::Packing::Always
        && p.c.cmap.is_none()
        && let Some(g) = x86::gemv_kernel(dot).filter(|g| nr == g.1)
    {
        let mut c = p.c;
        gemv_packed(
            g,
            &asrc,
            (k, p.mkn[2]),
            (p.b, kc),
            (p.alpha, p.beta),
            &mut c,
        );
        if A::SIGNED {
            unshift(&mut c, p.mkn, p.alpha, sums);
        }
        return;
    }
    let Some(ki) = kernel(dot, false) else {
        unreachable!("every level has a quad kernel")
    };
    // k blocked as B was packed (the plan's tile may have other columns than this kernel's)
    let ki = KernelInfo { kc, ..ki };
    let super::packed_b::PackedRun {
        mkn,
        alpha,
        beta,
        mut c,
        threads,
        b,
        ..
    } = p;
    let out = Out {
        c: &mut *c.c,
        sc: c.sc,
        cmap: c.cmap,
    };
    run_panels::<Quads>(&ki, mkn, alpha, &asrc, b, beta, out, threads);
    if A::SIGNED {
        unshift(&mut c, mkn, alpha, sums);
    }
}

/// `c ← α·a·B + β·c` for one row `a` (1 × k, its bytes flipped as packed) and a pre-packed
/// B (panels of `g.1` columns, KC blocks of `kc`): each panel's quads streamed once through
/// `g.0`, the row's k quads broadcast. C unmapped (any strides).
#[cfg(target_arch = "x86_64")]
fn gemv_packed<S: Byte>(
    (g, nr): (x86::Gemv, usize),
    a: &Bytes<'_, S>,
    (k, n): (usize, usize),
    (b, kc): (&super::PackedB<i8>, usize),
    (alpha, beta): (i32, i32),
    c: &mut Out<'_, i32>,
) {
    let kcp = kc.next_multiple_of(4);
    let blocks = k.div_ceil(kc);
    // A's row as bytes, each KC block padded with zeros to whole quads
    let mut ab = std::vec![0u8; blocks * kcp];
    let r0 = a.rows.row(0);
    for p in 0..k {
        let at = (r0 + a.rows.col(p)) as usize;
        ab[(p / kc) * kcp + p % kc] = a.rows.src[at].bits() ^ a.flip;
    }
    for j0 in (0..n).step_by(nr) {
        let mut acc = [0i32; 32];
        assert!(nr <= acc.len());
        for (bi, pc) in (0..k).step_by(kc).enumerate() {
            let kcb = kc.min(k - pc);
            let quads = kcb.div_ceil(4);
            let Some(piece) = b.prepacked(j0, pc, kcb) else {
                unreachable!("a PackedB is prepacked")
            };
            let ap = &ab[bi * kcp..bi * kcp + 4 * quads];
            assert!(piece.len() >= quads * 4 * nr);
            // SAFETY: the level's instruction sets are available (`gemv_kernel` answered for
            // the checked level); `piece` holds `quads` steps of 4·nr bytes, `ap` `quads`
            // quads and `acc` at least nr `i32` (asserted and sliced above).
            unsafe { g(piece.as_ptr(), ap.as_ptr(), quads, acc.as_mut_ptr()) };
        }
        for (jj, &x) in acc.iter().enumerate().take(nr.min(n - j0)) {
            let at = (c.sc.origin + (j0 + jj) as isize * c.sc.cs) as usize;
            let x = x.wrapping_mul(alpha);
            c.c[at] = if beta == 0 {
                x
            } else {
                Quads::mul_add(c.c[at], beta, x)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::{MatMut, MatRef, Options, Packing};
    use std::vec;

    /// The zips this machine runs: scalar always, SSE2 on x86-64, AVX-512 where available.
    fn zips() -> Vec<Zip> {
        [Isa::Portable, Isa::Avx2, Isa::Avx512]
            .into_iter()
            .filter(|i| i.is_available())
            .map(Zip::at)
            .collect()
    }

    /// [`zip4`] by `how` against its definition on `len` elements of four rows (source
    /// `S`, read from `off` into each row), every byte of the output compared: the placed
    /// quads and the untouched bytes between and after them.
    fn zip_case<S: Byte + Copy>(
        how: Zip,
        rows: &[Vec<S>; 4],
        (off, len): (usize, usize),
        f: u8,
        (r, step): (usize, usize),
    ) {
        let place = |i: usize| (i / r) * step + 4 * (i % r);
        let size = if len == 0 { 3 } else { place(len - 1) + 4 };
        let mut want = vec![0xA5u8; size + 67];
        for i in 0..len {
            for (e, x) in rows.iter().enumerate() {
                want[place(i) + e] = x[off + i].bits() ^ f;
            }
        }
        let mut got = vec![0xA5u8; size + 67];
        let x: [&[S]; 4] = core::array::from_fn(|e| &rows[e][off..off + len]);
        zip4(&mut got[..size], x, f, (r, step), how);
        assert!(
            got == want,
            "{how:?} r {r} step {step} len {len} off {off} flip {f:#x}: first difference at {:?}",
            got.iter().zip(&want).position(|(a, b)| a != b)
        );
    }

    /// Every zip against the definition over whole small domains: every panel width the
    /// kernels use (4, 6, 8, 12, 16, 32) and a few others, every length 0 ..= 70 (none or
    /// some of them multiples of 16 and 64) and 127 ..= 130, dense panels and panels with a
    /// gap after them, `u8` and `i8` rows under both flips, rows starting off alignment.
    #[test]
    fn every_zip_matches_the_definition() {
        let rows_u8: [Vec<u8>; 4] =
            core::array::from_fn(|e| (0..200).map(|i| (i * 37 + e * 101 + 3) as u8).collect());
        let rows_i8: [Vec<i8>; 4] = core::array::from_fn(|e| {
            (0..200)
                .map(|i| (i * 53 + e * 29 + 7) as u8 as i8)
                .collect()
        });
        for how in zips() {
            for r in [1, 4, 6, 8, 12, 16, 20, 32, 48, 64] {
                for step in [4 * r, 4 * r + 8, 4 * r + 64] {
                    for len in (0..=70).chain(127..=130) {
                        for f in [0, 0x80] {
                            let off = len % 3;
                            zip_case(how, &rows_u8, (off, len), f, (r, step));
                            zip_case(how, &rows_i8, (off, len), f, (r, step));
                        }
                    }
                }
            }
        }
    }

    proptest::proptest! {
        /// [`zip4`] on random widths, gaps, lengths, offsets and flips, on every zip.
        #[test]
        fn zips_on_random_shapes(
            r in 1usize..80,
            gap in 0usize..3,
            len in 0usize..190,
            off in 0usize..8,
            f in proptest::prelude::any::<u8>(),
            seed in 0usize..1000,
        ) {
            let rows: [Vec<u8>; 4] = core::array::from_fn(|e| {
                (0..200).map(|i| ((i + seed) * 131 + e * 17) as u8).collect()
            });
            for how in zips() {
                zip_case(how, &rows, (off, len.min(200 - off)), f, (r, 4 * r + 4 * gap));
            }
        }
    }

    /// The range scan of a mapped operand ([`mapped_max`], through [`max_of`]) against the
    /// definition: for fractal maps that fill their span and blocked maps with gaps, one
    /// element at a time holds the largest key (every element of the operand in turn), as
    /// `u8` under a flip and as `i8` by magnitude; with a limit, the scan reports a value past
    /// it whenever the true maximum is.
    #[test]
    fn mapped_scan_finds_every_element() {
        use super::super::maps::{AxisMap, Mapped};
        type Mode = (&'static [i64], &'static [i64]);
        let cases: &[(Mode, Mode)] = &[
            // NZ u8 32 × 64 (16 × 32 fractals): the span filled exactly
            ((&[16, 2], &[32, 512]), (&[32, 2], &[1, 1024])),
            // ZN-like: k runs of 8, rows 8 apart inside a block
            ((&[4, 3], &[8, 32]), (&[8, 4], &[1, 96])),
            // gaps: rows 7 apart for 6 columns, blocks 50 apart
            ((&[3, 2], &[7, 50]), (&[3, 2], &[1, 3])),
            // gaps between k runs of 4 (and between rows)
            ((&[3], &[40]), (&[4, 3], &[1, 10])),
            // a single column of k (no runs), rows contiguous
            ((&[5], &[1]), (&[4], &[9])),
        ];
        for &((rs, rd), (cs, cd)) in cases {
            let rows = AxisMap::new("test", rs, rd).unwrap();
            let cols = AxisMap::new("test", cs, cd).unwrap();
            let (r, k) = (rows.off.len(), cols.off.len());
            let len =
                (rows.off.iter().max().unwrap() + cols.off.iter().max().unwrap() + 1) as usize;
            let origin = 3;
            // the operand through the two maps, from `origin`
            fn over<'a, S>(
                src: &'a [S],
                origin: isize,
                rows: &'a AxisMap,
                cols: &'a AxisMap,
            ) -> Rows<'a, S> {
                Rows {
                    src,
                    origin,
                    sv: 0,
                    sk: 0,
                    map: Some(Mapped { rows, cols }),
                    simd: false,
                }
            }
            for (i, p) in (0..r).flat_map(|i| (0..k).map(move |p| (i, p))) {
                let at = (origin + rows.off[i] + cols.off[p]) as usize;
                // outside the operand: larger keys the scan must not see
                let mut src = vec![250u8; len + origin as usize + 2];
                for (ii, pp) in (0..r).flat_map(|ii| (0..k).map(move |pp| (ii, pp))) {
                    src[(origin + rows.off[ii] + cols.off[pp]) as usize] = 5;
                }
                src[at] = 200;
                let s = over(&src[..], origin, &rows, &cols);
                // (250 outside the operand: a scan that strays past it sees it)
                assert_eq!(max_of(&s, r, k, Key::Xor(0), u32::MAX), 200, "({i},{p})");
                // flipped: 200 ⊕ 0x80 = 72 and 5 ⊕ 0x80 = 133 (every element)
                assert_eq!(max_of(&s, r, k, Key::Xor(0x80), u32::MAX), 133);
                assert!(
                    max_of(&s, r, k, Key::Xor(0), 100) > 100,
                    "({i},{p}) past the limit"
                );
                // i8 by magnitude: −128 at one element
                let b: Vec<i8> = src
                    .iter()
                    .map(|&x| if x == 200 { -128 } else { 3 })
                    .collect();
                let sb = over(&b[..], origin, &rows, &cols);
                assert_eq!(max_of(&sb, r, k, Key::Abs, u32::MAX), 128, "({i},{p})");
            }
        }
    }

    /// A small deterministic generator.
    struct Lcg(u32);
    impl Lcg {
        fn next(&mut self) -> u32 {
            self.0 = self.0.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            self.0 >> 8
        }
        /// Uniform in `lo ..= hi`.
        fn range(&mut self, lo: i32, hi: i32) -> i32 {
            lo + (self.next() % (hi - lo + 1) as u32) as i32
        }
    }

    /// Every quad kernel this CPU runs, plus the `i16` pair engine (`None`).
    fn choices() -> Vec<Option<Dot>> {
        let mut v = vec![None];
        if Isa::Avx2.is_available() {
            v.push(Some(Dot::Maddubs));
        }
        for x in [Vnni::Avx, Vnni::Avx512] {
            if crate::isa::has_vnni(x) {
                v.push(Some(Dot::Vnni(x)));
            }
        }
        v
    }

    /// `C ← α·A·B + β·C` through `gemm_with` with the route forced to `dot`; A row-major or
    /// column-major, B (given column-major) passed column-major or as a row-major copy
    /// (`b_row_major`), C row- or column-major. Returns C.
    #[allow(clippy::too_many_arguments)]
    fn run<A: crate::gemm::Pair<i8, Out = i32>>(
        dot: Option<Dot>,
        isa: Isa,
        threads: usize,
        (m, k, n): (usize, usize, usize),
        a: &[A],
        a_row_major: bool,
        (b, b_row_major): (&[i8], bool),
        (alpha, beta): (i32, i32),
        c0: &[i32],
        c_row_major: bool,
    ) -> Vec<i32> {
        let mut c = c0.to_vec();
        let b_rm: Vec<i8> = (0..k * n).map(|t| b[(t % n) * k + t / n]).collect();
        let (b, brs, bcs) = if b_row_major {
            (&b_rm[..], n, 1)
        } else {
            (b, 1, k)
        };
        let (ars, acs) = if a_row_major { (k, 1) } else { (1, m) };
        let (rs, cs) = if c_row_major { (n, 1) } else { (1, m) };
        let opts = Options {
            isa,
            threads,
            packing: Packing::Always,
        };
        force(Some(dot));
        let r = call(
            opts,
            (m, k, n),
            alpha,
            (a, ars, acs),
            (b, brs, bcs),
            beta,
            (&mut c, rs, cs),
        );
        force(None);
        r.unwrap();
        c
    }

    /// `gemm_with` on strided operands (element (i, j) of each at `i·rows + j·cols`).
    #[allow(clippy::too_many_arguments)]
    fn call<A: crate::gemm::Pair<i8, Out = i32>>(
        opts: Options,
        (m, k, n): (usize, usize, usize),
        alpha: i32,
        (a, ars, acs): (&[A], usize, usize),
        (b, brs, bcs): (&[i8], usize, usize),
        beta: i32,
        (c, rs, cs): (&mut [i32], usize, usize),
    ) -> Result<(), crate::gemm::GemmError> {
        crate::gemm::gemm_with(
            opts,
            alpha,
            MatRef {
                data: a,
                rows: m,
                cols: k,
                row_stride: ars as isize,
                col_stride: acs as isize,
            },
            MatRef {
                data: b,
                rows: k,
                cols: n,
                row_stride: brs as isize,
                col_stride: bcs as isize,
            },
            beta,
            MatMut {
                data: c,
                rows: m,
                cols: n,
                row_stride: rs as isize,
                col_stride: cs as isize,
            },
        )
    }

    /// The definition in `i64`, reduced modulo 2³².
    #[allow(clippy::too_many_arguments)]
    fn reference(
        (m, k, n): (usize, usize, usize),
        a: impl Fn(usize, usize) -> i64,
        b: &[i8],
        (alpha, beta): (i32, i32),
        c0: &[i32],
        c_row_major: bool,
    ) -> Vec<i32> {
        let mut c = c0.to_vec();
        for i in 0..m {
            for j in 0..n {
                let s: i64 = (0..k).map(|p| a(i, p) * i64::from(b[j * k + p])).sum();
                let at = if c_row_major { i * n + j } else { i + j * m };
                c[at] = (i64::from(alpha) * s + i64::from(beta) * i64::from(c0[at])) as i32;
            }
        }
        c
    }

    /// Every quad kernel and the pair engine, one and two threads, both orientations of the
    /// engine (C row- and column-major), A row- and column-major, shapes crossing MR, NR, the
    /// k quad and KC, u8 × i8 and i8 × i8 (the +128 shift and its correction): exact.
    #[test]
    fn every_quad_kernel_matches_the_definition() {
        let mut g = Lcg(11);
        let shapes = [
            (1, 1, 1),
            (17, 3, 7),
            (16, 4, 6),
            (33, 1030, 13),
            (5, 2053, 2),
            (40, 9, 40),
            (70, 66, 65),
        ];
        for dot in choices() {
            let isas: &[Isa] = match dot {
                None => &[Isa::Portable, Isa::Avx2],
                Some(_) => &[Isa::Avx2],
            };
            for &isa in isas {
                if !isa.is_available() {
                    continue;
                }
                for &(m, k, n) in &shapes {
                    // ranges that `vpmaddubsw` takes exactly: u8 with |b| ≤ 64, i8 (shifted
                    // to ≤ 255) with |b| ≤ 64; full range for the exact kernels
                    let bhi = if dot == Some(Dot::Maddubs) { 64 } else { 127 };
                    let blo = if dot == Some(Dot::Maddubs) { -64 } else { -128 };
                    let b: Vec<i8> = (0..k * n).map(|_| g.range(blo, bhi) as i8).collect();
                    let au: Vec<u8> = (0..m * k).map(|_| g.range(0, 255) as u8).collect();
                    let ai: Vec<i8> = (0..m * k).map(|_| g.range(-128, 127) as i8).collect();
                    // every operand order reaches both packers (rows contiguous along k, or
                    // the packed dimension contiguous) in both roles (vectors, broadcasts)
                    for (threads, a_rm, b_rm, c_rm, ab) in [
                        (1, true, true, true, (1, 0)),
                        (2, true, true, false, (3, -2)),
                        (2, false, false, true, (-1, 1)),
                        (1, false, false, false, (7, 5)),
                        (1, true, false, true, (2, 1)),
                        (1, false, true, false, (1, -1)),
                    ] {
                        let c0: Vec<i32> = (0..m * n).map(|_| g.range(-999, 999)).collect();
                        let at = |i: usize, p: usize| if a_rm { i * k + p } else { i + p * m };
                        let what =
                            std::format!("{dot:?} {isa:?} {m}x{k}x{n} t{threads} {a_rm}{b_rm}");
                        let bb = (&b[..], b_rm);
                        let got = run(dot, isa, threads, (m, k, n), &au, a_rm, bb, ab, &c0, c_rm);
                        let want =
                            reference((m, k, n), |i, p| i64::from(au[at(i, p)]), &b, ab, &c0, c_rm);
                        assert_eq!(got, want, "u8×i8 {what}");
                        let got = run(dot, isa, threads, (m, k, n), &ai, a_rm, bb, ab, &c0, c_rm);
                        let want =
                            reference((m, k, n), |i, p| i64::from(ai[at(i, p)]), &b, ab, &c0, c_rm);
                        assert_eq!(got, want, "i8×i8 {what}");
                    }
                }
            }
        }
    }

    /// The range bound: exactly `2·max a·max|b| ≤ 32767`, just inside and just outside, for
    /// both signs of B and A shifted or not.
    #[test]
    fn the_range_bound_is_exact() {
        fn rows<T>(v: &[T]) -> Rows<'_, T> {
            Rows {
                src: v,
                origin: 0,
                sv: 1,
                sk: 1,
                map: None,
                simd: false,
            }
        }
        let brows = rows::<i8>;
        let fits = |a: u8, b: i8| fits_i16(&rows(&[0, a, 1]), 0, &brows(&[b, 0, 1]), [1, 3, 1]);
        // |b| = 64: every u8 fits (2·255·64 = 32640)
        assert!(fits(255, 64) && fits(255, -64));
        // |b| = 65: 2·252·65 = 32760 fits, 2·253·65 = 32890 does not
        assert!(fits(252, 65) && fits(252, -65));
        assert!(!fits(253, 65) && !fits(253, -65));
        // |b| = 128: a ≤ 127 (2·127·128 = 32512), not 128
        assert!(fits(127, -128) && !fits(128, -128));
        assert!(fits(255, 0));
        // an i8 A is judged after its shift: −1 becomes 127
        let ai = [-1i8];
        let s = Rows {
            src: &ai[..],
            origin: 0,
            sv: 1,
            sk: 1,
            map: None,
            simd: false,
        };
        assert!(fits_i16(&s, 0x80, &brows(&[-128]), [1, 1, 1]));
        let ai = [0i8];
        let s = Rows { src: &ai[..], ..s };
        assert!(!fits_i16(&s, 0x80, &brows(&[-128]), [1, 1, 1]));
    }

    /// Across the boundary the public route gives the exact result, and the bound is needed:
    /// forced onto `vpmaddubsw`, a product just outside it saturates (so this test can fail if
    /// the check were skipped).
    #[test]
    fn the_result_is_exact_across_the_boundary() {
        if !Isa::Avx2.is_available() {
            return;
        }
        let (m, k, n) = (20, 64, 9);
        for (amax, bval, inside) in [(252u8, -65i8, true), (253, -65, false), (255, -128, false)] {
            let a = vec![amax; m * k];
            let b = vec![bval; k * n];
            let c0 = vec![0; m * n];
            let want = reference((m, k, n), |_, _| i64::from(amax), &b, (1, 0), &c0, false);
            let ar = Rows {
                src: &a[..],
                origin: 0,
                sv: k as isize,
                sk: 1,
                map: None,
                simd: false,
            };
            let bt = Rows {
                src: &b[..],
                origin: 0,
                sv: k as isize,
                sk: 1,
                map: None,
                simd: false,
            };
            assert_eq!(fits_i16(&ar, 0, &bt, [m, k, n]), inside);
            let forced = run(
                Some(Dot::Maddubs),
                Isa::Avx2,
                1,
                (m, k, n),
                &a,
                true,
                (&b, false),
                (1, 0),
                &c0,
                false,
            );
            assert_eq!(forced == want, inside, "a {amax} b {bval}");
            // the route as chosen: VNNI where present (exact), else vpmaddubsw inside the
            // bound and the pair engine outside; exact every time
            for isa in [Isa::Avx2, Isa::Avx512] {
                if isa.is_available() {
                    let got = run_default(isa, (m, k, n), &a, &b);
                    assert_eq!(got, want, "{isa:?} a {amax} b {bval}");
                }
            }
            // what the route picks without VNNI
            assert_eq!(
                pick(None, Isa::Avx2, || inside),
                inside.then_some(Dot::Maddubs)
            );
        }
    }

    /// The chosen route (no forcing), C column-major.
    fn run_default(isa: Isa, (m, k, n): (usize, usize, usize), a: &[u8], b: &[i8]) -> Vec<i32> {
        let mut c = vec![0; m * n];
        crate::gemm::gemm_with(
            Options {
                isa,
                threads: 1,
                packing: Packing::Always,
            },
            1,
            MatRef {
                data: a,
                rows: m,
                cols: k,
                row_stride: k as isize,
                col_stride: 1,
            },
            MatRef {
                data: b,
                rows: k,
                cols: n,
                row_stride: 1,
                col_stride: k as isize,
            },
            0,
            MatMut {
                data: &mut c,
                rows: m,
                cols: n,
                row_stride: 1,
                col_stride: m as isize,
            },
        )
        .unwrap();
        c
    }

    /// A pre-packed `i8` B on every quad kernel of its route (forced: `vpmaddubsw` within its
    /// bound, the exact widening kernel, each VNNI this CPU has; the portable kernel), u8 and
    /// i8 A, one and two threads, C both ways, one row through the matrix × vector kernels
    /// (`Packing::Auto`, k past two KC blocks) and through the tiles: exact.
    #[test]
    fn packed_b_on_every_quad_kernel() {
        use crate::gemm::{PackedB, gemm_packed};
        let mut g = Lcg(3);
        let mut routes: Vec<(Isa, Option<Option<Dot>>)> = vec![(Isa::Portable, None)];
        if Isa::Avx2.is_available() {
            routes.push((Isa::Avx2, Some(Some(Dot::Maddubs))));
            routes.push((Isa::Avx2, Some(None))); // → the widening kernel
        }
        for x in [Vnni::Avx, Vnni::Avx512] {
            if crate::isa::has_vnni(x) {
                routes.push((Isa::Avx2, Some(Some(Dot::Vnni(x)))));
            }
        }
        // the AVX-512 level's own choice: with AVX512-VNNI, 32-column panels for the zmm tile
        // and its matrix × vector kernel
        if crate::isa::vnni(Isa::Avx512) == Some(Vnni::Avx512) {
            assert_eq!(packed_plan(Isa::Avx512, 100), Some((32, 100)));
            routes.push((Isa::Avx512, None));
        }
        for (isa, forced) in routes {
            let narrow = forced == Some(Some(Dot::Maddubs));
            let shapes = [
                (1, 5, 3),
                (1, 2090, 37),
                (7, 1031, 20),
                (33, 64, 17),
                (13, 130, 65),
                (25, 4, 32),
            ];
            for &(m, k, n) in &shapes {
                let b: Vec<i8> = (0..k * n)
                    .map(|_| if narrow { g.range(-64, 64) } else { g.range(-128, 127) } as i8)
                    .collect();
                let pb = PackedB::new(
                    isa,
                    MatRef {
                        data: &b,
                        rows: k,
                        cols: n,
                        row_stride: 1,
                        col_stride: k as isize,
                    },
                )
                .unwrap();
                let au: Vec<u8> = (0..m * k).map(|_| g.range(0, 255) as u8).collect();
                let ai: Vec<i8> = (0..m * k).map(|_| g.range(-128, 127) as i8).collect();
                for (threads, c_rm, packing) in [
                    (1, true, Packing::Always),
                    (2, false, Packing::Always),
                    (1, false, Packing::Auto),
                    (2, true, Packing::Auto),
                ] {
                    let c0: Vec<i32> = (0..m * n).map(|_| g.range(-99, 99)).collect();
                    let (rs, cs) = if c_rm { (n, 1) } else { (1, m) };
                    macro_rules! check {
                        ($a:expr) => {{
                            let a = $a;
                            let mut c = c0.clone();
                            force(forced);
                            let r = gemm_packed(
                                Options {
                                    isa,
                                    threads,
                                    packing,
                                },
                                3,
                                MatRef {
                                    data: a,
                                    rows: m,
                                    cols: k,
                                    row_stride: k as isize,
                                    col_stride: 1,
                                },
                                &pb,
                                -2,
                                MatMut {
                                    data: &mut c,
                                    rows: m,
                                    cols: n,
                                    row_stride: rs as isize,
                                    col_stride: cs as isize,
                                },
                            );
                            force(None);
                            r.unwrap();
                            let want = reference(
                                (m, k, n),
                                |i, p| i64::from(a[i * k + p]),
                                &b,
                                (3, -2),
                                &c0,
                                c_rm,
                            );
                            assert_eq!(
                                c, want,
                                "{isa:?} {forced:?} {m}x{k}x{n} t{threads} {packing:?}"
                            );
                        }};
                    }
                    check!(&au[..]);
                    check!(&ai[..]);
                }
            }
        }
    }
    /// The AVX512-VNNI zmm 32 × 12 tile (forced) on every edge: m and n below, at and past
    /// its 12 and 32 (both orientations: C column-major puts A's u8 panel in the vectors, C
    /// row-major B's i8 panel), k remainders of the quad and past KC (1024), α and β of every
    /// kind, one and two threads, packed or read in place, u8 × i8 and i8 × i8; C gapped (its
    /// leading dimension 3 past its extent, the gaps holding a sentinel that must survive).
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn zmm_tile_on_every_edge() {
        if !crate::isa::has_vnni(Vnni::Avx512) {
            return;
        }
        let dot = Dot::Vnni(Vnni::Avx512);
        assert_eq!(kernel(dot, true).map(|ki| (ki.mr, ki.nr)), Some((32, 12)));
        let mut g = Lcg(41);
        let ms = [1, 11, 12, 13, 31, 32, 33, 45];
        let ks = [1, 3, 4, 5, 64, 1025, 2051];
        let abs = [(1, 0), (1, 1), (-3, 2), (2, -1), (7, 0), (1, 5)];
        let mut case = 0usize;
        for &m in &ms {
            for &n in &ms {
                case += 1;
                let k = ks[case % ks.len()];
                let (alpha, beta) = abs[case % abs.len()];
                let threads = 1 + case % 2;
                let b: Vec<i8> = (0..k * n).map(|_| g.range(-128, 127) as i8).collect();
                let au: Vec<u8> = (0..m * k).map(|_| g.range(0, 255) as u8).collect();
                let ai: Vec<i8> = (0..m * k).map(|_| g.range(-128, 127) as i8).collect();
                for (c_rm, a_rm, packing) in [
                    (true, true, Packing::Auto),
                    (false, true, Packing::Always),
                    (true, false, Packing::Always),
                    (false, false, Packing::Auto),
                ] {
                    let (rows, cols) = if c_rm { (m, n) } else { (n, m) };
                    let ld = cols + 3;
                    let (rs, cs) = if c_rm { (ld, 1) } else { (1, ld) };
                    let c0: Vec<i32> = (0..rows * ld).map(|_| g.range(-999, 999)).collect();
                    let (ars, acs) = if a_rm { (k, 1) } else { (1, m) };
                    let at = |i: usize, p: usize| if a_rm { i * k + p } else { i + p * m };
                    let what = std::format!(
                        "{m}x{k}x{n} t{threads} a{alpha} b{beta} c_rm {c_rm} a_rm {a_rm} {packing:?}"
                    );
                    macro_rules! check {
                        ($a:expr, $name:literal) => {{
                            let a = $a;
                            let mut c = c0.clone();
                            force(Some(Some(dot)));
                            let opts = Options {
                                isa: Isa::Avx2,
                                threads,
                                packing,
                            };
                            let r = call(
                                opts,
                                (m, k, n),
                                alpha,
                                (a, ars, acs),
                                (&b[..], 1, k),
                                beta,
                                (&mut c[..], rs, cs),
                            );
                            force(None);
                            r.unwrap();
                            for (t, (&got, &was)) in c.iter().zip(&c0).enumerate() {
                                let (r, q) = (t / ld, t % ld);
                                let want = if q < cols {
                                    let (i, j) = if c_rm { (r, q) } else { (q, r) };
                                    let s: i64 = (0..k)
                                        .map(|p| i64::from(a[at(i, p)]) * i64::from(b[j * k + p]))
                                        .sum();
                                    (i64::from(alpha) * s + i64::from(beta) * i64::from(was)) as i32
                                } else {
                                    was
                                };
                                assert_eq!(got, want, "{} {what} at {t}", $name);
                            }
                        }};
                    }
                    check!(&au[..], "u8×i8");
                    check!(&ai[..], "i8×i8");
                }
            }
        }
    }

    /// A row-major `u8` A read in place ([`run_rows`]): every quad kernel with an in-place
    /// variant, A's and C's rows padded (so a wrong row distance reads or writes the padding),
    /// B both ways, shapes crossing the row group (4 or 6), the 16-column panel and KC, one
    /// and two threads, α and β of every kind; exact, the route taken, C's padding untouched.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_read_in_place_matches_the_definition() {
        let mut g = Lcg(29);
        let shapes = [
            (6, 4, 16),
            (7, 8, 17),
            (12, 1028, 32),
            (13, 2052, 35),
            (70, 264, 40),
            (35, 64, 90),
            // two k blocks; with MC = 256, two blocks of B's columns (256 + 44: strips of 16
            // and 2 whole panels, each block ending in a partial one); two whole row groups
            // and a partial one
            (9, 1028, 300),
            // the zmm tile's 12-row groups and 32-column panels, each with a remainder
            (25, 1028, 33),
            (12, 8, 64),
            (24, 12, 95),
        ];
        for dot in choices().into_iter().flatten() {
            if x86::rows_kernel(dot).is_none() {
                continue;
            }
            for &(m, k, n) in &shapes {
                let (lda, ldc) = (k + 5, n + 3);
                let (blo, bhi) = if dot == Dot::Maddubs {
                    (-64, 64)
                } else {
                    (-128, 127)
                };
                let b: Vec<i8> = (0..k * n).map(|_| g.range(blo, bhi) as i8).collect();
                let b_rm: Vec<i8> = (0..k * n).map(|t| b[(t % n) * k + t / n]).collect();
                let a: Vec<u8> = (0..m * lda).map(|_| g.range(0, 255) as u8).collect();
                for (threads, b_row_major, (alpha, beta)) in [
                    (1, true, (1, 0)),
                    (2, false, (3, -2)),
                    (2, true, (1, 1)),
                    (1, false, (-7, 5)),
                ] {
                    let c0: Vec<i32> = (0..m * ldc).map(|_| g.range(-999, 999)).collect();
                    let mut c = c0.clone();
                    let (bd, brs, bcs) = if b_row_major {
                        (&b_rm[..], n, 1)
                    } else {
                        (&b[..], 1, k)
                    };
                    force(Some(Some(dot)));
                    let before = ROWS_RUNS.with(|r| r.get());
                    let opts = Options {
                        isa: Isa::Avx2,
                        threads,
                        packing: Packing::Auto,
                    };
                    let (ab, cc) = ((&a[..], lda, 1), (&mut c[..], ldc, 1));
                    let r = call(opts, (m, k, n), alpha, ab, (bd, brs, bcs), beta, cc);
                    force(None);
                    r.unwrap();
                    let what = std::format!("{dot:?} {m}x{k}x{n} t{threads} {b_row_major}");
                    assert_eq!(ROWS_RUNS.with(|r| r.get()), before + 1, "{what}: route");
                    for i in 0..m {
                        for j in 0..ldc {
                            let at = i * ldc + j;
                            let want = if j < n {
                                let s: i64 = (0..k)
                                    .map(|p| i64::from(a[i * lda + p]) * i64::from(b[j * k + p]))
                                    .sum();
                                (i64::from(alpha) * s + i64::from(beta) * i64::from(c0[at])) as i32
                            } else {
                                c0[at]
                            };
                            assert_eq!(c[at], want, "{what} at ({i}, {j})");
                        }
                    }
                }
            }
        }
    }
}
