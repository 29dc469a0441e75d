//! 8-bit integer products accumulating in `i32`: (u8, i8 → i32), (i8, i8 → i32) and the other
//! two combinations of `u8` and `i8`, exact (the sums wrap modulo 2³² as the instructions do).
//!
//! Both operands pack into `i16` pairs of k — the panel layout `((2, R), ⌈k/2⌉) : ((1, 2), 2R)`
//! — so one `vpmaddwd` multiplies two k steps of eight rows against a broadcast column pair
//! and adds both products into `i32` lanes: 16 multiply-adds per instruction, twice an f32
//! FMA's. Unlike `vpmaddubsw` (u8 × i8 summed into saturating `i16`), nothing saturates, so
//! every pair of signednesses is exact. The loops, blocking, threads, edge tiles and C of any
//! layout are the f32 engine's ([`super::block::run_panels`]); only packing and the kernel are
//! here.

use std::cell::RefCell;
use std::vec::Vec;

use super::block::run_panels;
use super::kernel::{Kern, KernelInfo, Tile};
use super::pack::{Panels, Rows};
use super::view::Product;
use crate::isa::Isa;

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for i8 {}
}

/// An 8-bit integer operand element: `u8` or `i8` (either side of an integer [`Pair`](super::Pair), any mix).
///
/// ```
/// use layout::gemm::Int8;
/// assert_eq!((200u8.widen(), (-5i8).widen()), (200, -5)); // exact, as the kernels read them
/// ```
pub trait Int8: sealed::Sealed + Copy + Send + Sync + 'static {
    /// Whether the type is signed (`i8`).
    #[doc(hidden)]
    const SIGNED: bool;
    /// The value, widened exactly.
    fn widen(self) -> i16;
}

impl Int8 for u8 {
    const SIGNED: bool = false;
    #[inline(always)]
    fn widen(self) -> i16 {
        i16::from(self)
    }
}

impl Int8 for i8 {
    const SIGNED: bool = true;
    #[inline(always)]
    fn widen(self) -> i16 {
        i16::from(self)
    }
}

/// An element packed as one 16-bit lane of a k pair: 8-bit integers widened, bf16 as its
/// bits (the `vdpbf16ps` kernel reads the same pair panels).
pub(crate) trait Lane: Copy + Sync {
    /// The lane.
    fn lane(self) -> i16;
}

impl<T: Int8> Lane for T {
    #[inline(always)]
    fn lane(self) -> i16 {
        self.widen()
    }
}

impl Lane for half::bf16 {
    #[inline(always)]
    fn lane(self) -> i16 {
        self.to_bits() as i16
    }
}

/// The integer pair's kernels: C, α, β in `i32`, panels of `i16` pairs.
pub(crate) struct I8Pairs;

impl Kern for I8Pairs {
    type C = i32;
    type P = i16;
    const ZERO: i32 = 0;
    const ONE: i32 = 1;
    const KSTEP: usize = 2;
    #[inline(always)]
    fn mul_add(c: i32, beta: i32, x: i32) -> i32 {
        c.wrapping_mul(beta).wrapping_add(x)
    }
    #[inline(always)]
    fn add(c: i32, x: i32) -> i32 {
        c.wrapping_add(x)
    }
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<i16>, &mut Vec<i16>) -> R) -> R {
        std::thread_local! {
            static BUFS: RefCell<(Vec<i16>, Vec<i16>)> = const { RefCell::new((Vec::new(), Vec::new())) };
        }
        super::dispatch::with_cached(&BUFS, f)
    }
}

impl<S: Lane> Panels<i16> for Rows<'_, S> {
    fn pack(&self, dst: &mut [i16], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        let kcp = kc.next_multiple_of(2);
        let pairs = kcp / 2;
        let panels = len.div_ceil(r);
        for (t, panel) in dst[..panels * r * kcp]
            .chunks_exact_mut(r * kcp)
            .enumerate()
        {
            let rows = r.min(len - t * r);
            if rows < r || kcp != kc {
                panel.fill(0);
            }
            let vbase = v0 + t * r;
            if self.map.is_none() && self.sk == 1 {
                // rows contiguous along k: each row's k pairs widened straight to their places
                // in the panel (`2·(q·r + i)`), an odd last k value beside a zero
                for i in 0..rows {
                    let at = (self.row(vbase + i) + p0 as isize) as usize;
                    let src = &self.src[at..at + kc];
                    for (q, pr) in src.chunks_exact(2).enumerate() {
                        let o = 2 * (q * r + i);
                        panel[o..o + 2].copy_from_slice(&[pr[0].lane(), pr[1].lane()]);
                    }
                    if kc % 2 == 1 {
                        panel[2 * ((kc / 2) * r + i)] = src[kc - 1].lane();
                    }
                }
            } else if self.map.is_none() && self.sv == 1 {
                // the packed dimension contiguous: two source rows (k = 2q, 2q + 1) zipped
                for q in 0..pairs {
                    let at = |p: usize| {
                        (self.origin + vbase as isize + (p0 + p) as isize * self.sk) as usize
                    };
                    let x = &self.src[at(2 * q)..at(2 * q) + rows];
                    let out = &mut panel[q * 2 * r..q * 2 * r + 2 * rows];
                    if 2 * q + 1 < kc {
                        let y = &self.src[at(2 * q + 1)..at(2 * q + 1) + rows];
                        for ((o, &a), &b) in out.chunks_exact_mut(2).zip(x).zip(y) {
                            o[0] = a.lane();
                            o[1] = b.lane();
                        }
                    } else {
                        for (o, &a) in out.chunks_exact_mut(2).zip(x) {
                            o[0] = a.lane();
                        }
                    }
                }
            } else {
                let mut offs = [0isize; 64];
                for (i, o) in offs[..rows].iter_mut().enumerate() {
                    *o = self.row(vbase + i);
                }
                for p in 0..kc {
                    let co = self.col(p0 + p);
                    let base = (p / 2) * 2 * r + (p & 1);
                    for (i, &ro) in offs[..rows].iter().enumerate() {
                        panel[base + 2 * i] = self.src[(ro + co) as usize].lane();
                    }
                }
            }
        }
    }
}

/// The microkernel body over `MR = 4·MV`-row tiles in scalar code: `acc[i][j] += a₀b₀ + a₁b₁`
/// per pair step (wrapping, as `vpmaddwd` + `vpaddd`).
///
/// # Safety
/// As [`super::kernel::Ukr`] for MR × NR with `KSTEP = 2`.
unsafe fn portable_body<const MR: usize, const NR: usize>(t: &Tile<i32, i16>) {
    let mut acc = [[0i32; MR]; NR];
    // SAFETY: the caller guarantees `a` holds MR·2·k and `b` NR·2·k elements.
    let (a, b) = unsafe {
        (
            core::slice::from_raw_parts(t.a, MR * 2 * t.k),
            core::slice::from_raw_parts(t.b, NR * 2 * t.k),
        )
    };
    for (ap, bp) in a.chunks_exact(2 * MR).zip(b.chunks_exact(2 * NR)) {
        for j in 0..NR {
            let (b0, b1) = (i32::from(bp[2 * j]), i32::from(bp[2 * j + 1]));
            for i in 0..MR {
                let s = i32::from(ap[2 * i]) * b0 + i32::from(ap[2 * i + 1]) * b1;
                acc[j][i] = acc[j][i].wrapping_add(s);
            }
        }
    }
    // SAFETY: the caller guarantees every C element of the tile.
    unsafe { store_tile::<MR, NR, i16>(t, &acc) }
}

/// `C ← α·acc + β·C` for one tile (β = 0: C not read), wrapping; the integer kernels' store
/// (this engine's and the quad kernels').
///
/// # Safety
/// Every `t.c + i·rsc + j·csc` (`i < MR`, `j < NR`) is valid for a read and a write.
#[inline(always)]
pub(crate) unsafe fn store_tile<const MR: usize, const NR: usize, P>(
    t: &Tile<i32, P>,
    acc: &[[i32; MR]; NR],
) {
    for (j, col) in acc.iter().enumerate() {
        for (i, &x) in col.iter().enumerate() {
            let x = x.wrapping_mul(t.alpha);
            // SAFETY: the caller's contract.
            unsafe {
                let p = t.c.offset(i as isize * t.rsc + j as isize * t.csc);
                *p = if t.beta == 0 {
                    x
                } else {
                    I8Pairs::mul_add(*p, t.beta, x)
                };
            }
        }
    }
}

/// The portable 4 × 4 integer kernel.
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = NR = 4, `KSTEP = 2`.
unsafe fn portable_ukr(t: &Tile<i32, i16>) {
    // SAFETY: forwarded contract.
    unsafe { portable_body::<4, 4>(t) }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use core::arch::x86_64::*;

    use super::{Tile, store_tile};

    /// Rows (two vectors of eight `i32`) by columns of the AVX2 tile.
    pub(crate) const TILE: (usize, usize) = (16, 6);

    /// The AVX2 integer kernel: 16 × 6 `i32` accumulators in 12 ymm, `vpmaddwd` + `vpaddd`
    /// per k pair and column.
    ///
    /// # Safety
    /// As [`super::super::kernel::Ukr`] with MR = 16, NR = 6, `KSTEP = 2`; AVX2 available.
    #[target_feature(enable = "avx2")]
    pub(crate) unsafe fn ukr(t: &Tile<i32, i16>) {
        const NR: usize = TILE.1;
        // SAFETY: (whole body) the caller guarantees AVX2, 32·k readable elements at `a` and
        // 12·k at `b` (read as 6·k `i32` words, unaligned), and the tile of C.
        unsafe {
            let mut acc = [[_mm256_setzero_si256(); 2]; NR];
            let mut a = t.a;
            let mut b = t.b.cast::<i32>();
            for _ in 0..t.k {
                let a0 = _mm256_loadu_si256(a.cast());
                let a1 = _mm256_loadu_si256(a.add(16).cast());
                for (j, accj) in acc.iter_mut().enumerate() {
                    let bj = _mm256_set1_epi32(b.add(j).read_unaligned());
                    accj[0] = _mm256_add_epi32(accj[0], _mm256_madd_epi16(a0, bj));
                    accj[1] = _mm256_add_epi32(accj[1], _mm256_madd_epi16(a1, bj));
                }
                a = a.add(32);
                b = b.add(NR);
            }
            store(t, &acc);
        }
    }

    /// `C ← α·acc + β·C` for a 16 × 6 tile of `i32` sums in 12 ymm (β = 0: C not read): by
    /// vectors where C's columns are unit stride, else through [`store_tile`]. The integer
    /// kernels' store (this engine's and the quad kernels').
    ///
    /// # Safety
    /// AVX2 available; every `t.c + i·rsc + j·csc` (`i < 16`, `j < NR`) valid for a read and
    /// a write — with `vsc ≠ 0` (then `rsc = 1`), every `t.c + (i / 8)·vsc + i % 8 + j·csc`.
    #[inline(always)]
    pub(crate) unsafe fn store<P, const NR: usize>(t: &Tile<i32, P>, acc: &[[__m256i; 2]; NR]) {
        // SAFETY: (whole body) the caller guarantees AVX2 and the tile of C.
        unsafe {
            let alpha = _mm256_set1_epi32(t.alpha);
            if t.rsc == 1 {
                let beta = _mm256_set1_epi32(t.beta);
                // the second row vector 8 rows on, or `vsc` away (a C of 8-element runs)
                let vstep = if t.vsc == 0 { 8 } else { t.vsc };
                for (j, accj) in acc.iter().enumerate() {
                    let cj = t.c.offset(j as isize * t.csc);
                    for (v, &x) in accj.iter().enumerate() {
                        let p = cj.offset(v as isize * vstep).cast::<__m256i>();
                        let x = if t.alpha == 1 {
                            x
                        } else {
                            _mm256_mullo_epi32(x, alpha)
                        };
                        let r = if t.beta == 0 {
                            x
                        } else if t.beta == 1 {
                            _mm256_add_epi32(_mm256_loadu_si256(p), x)
                        } else {
                            _mm256_add_epi32(_mm256_mullo_epi32(_mm256_loadu_si256(p), beta), x)
                        };
                        _mm256_storeu_si256(p, r);
                    }
                }
            } else {
                let mut tmp = [[0i32; 16]; NR];
                for (j, accj) in acc.iter().enumerate() {
                    _mm256_storeu_si256(tmp[j].as_mut_ptr().cast(), accj[0]);
                    _mm256_storeu_si256(tmp[j].as_mut_ptr().add(8).cast(), accj[1]);
                }
                store_tile::<16, NR, P>(t, &tmp);
            }
        }
    }
}

/// The integer kernel for `isa` (the AVX2 kernel on AVX-512 machines too).
pub(crate) fn kernel(isa: Isa) -> KernelInfo<i32, i16> {
    // KC counts k values (pairs: KC/2 panel steps), at most 512: a B micro-panel of NR·KC i16
    // stays in L1 (6 KiB for NR = 6), the A block (at most 384 KiB) in L2
    let info = |mr: usize, nr: usize, ukr| KernelInfo::sized(mr, nr, 512, 384 << 10, ukr);
    match isa {
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 | Isa::Avx512 => info(avx2::TILE.0, avx2::TILE.1, avx2::ukr).with_lanes(8),
        _ => info(4, 4, portable_ukr),
    }
}

/// The integer engine on a checked product (operands strided or mapped): both operands packed
/// into `i16` k pairs, the integer kernel of the product's instruction set.
pub(crate) fn run_i8<TA: Int8, TB: Int8>(p: Product<'_, TA, TB, i32>) {
    // aarch64: bytes in groups of k for `smmla`/`ummla`/`usmmla` (i8mm), `sdot`/`udot`
    // (dotprod) or `smull`/`sadalp` (ARMv8.0) (`neon_int8.rs`)
    #[cfg(target_arch = "aarch64")]
    if p.isa == Isa::Neon {
        return super::neon_int8::run_i8(p);
    }
    let (asrc, bsrc) = (p.a.rows(), p.b.transposed().rows());
    run_panels::<I8Pairs>(
        &kernel(p.isa),
        p.mkn,
        p.alpha,
        &asrc,
        &bsrc,
        p.beta,
        p.c,
        p.threads,
    );
}

/// The integer engine for an `i8` B: the quad kernels (`vpdpbusd`, or `vpmaddubsw` where the
/// ranges fit) when they apply, else the exact `i16` pair engine ([`run_i8`]). Exact either way.
pub(crate) fn run_signed_b<TA: Int8 + super::quads::Byte>(p: Product<'_, TA, i8, i32>) {
    match super::quads::choice(&p) {
        Some(dot) => super::quads::run(p, dot),
        None => run_i8(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::{MatMut, MatRef, Options, Packing};
    use std::vec;

    /// The pair packer writes element (row i, step p) of every panel exactly where the panel
    /// layout `Pair::panel_layout` says, and zeros everywhere else (rows past the edge, the odd
    /// k's partner), for each source order: unit stride along k, along the rows, and general.
    #[test]
    fn pair_panels_are_the_published_layout() {
        use super::super::Pair;
        for (r, len, kc) in [
            (16usize, 16usize, 8usize),
            (16, 5, 7),
            (4, 3, 1),
            (6, 6, 513),
        ] {
            let x = |i: usize, p: usize| ((i * 31 + p * 7) % 251) as u8;
            let (rows, k) = (len, kc);
            // three storage orders of the same rows × k matrix
            let rm: Vec<u8> = (0..rows * k).map(|t| x(t / k, t % k)).collect();
            let cm: Vec<u8> = (0..rows * k).map(|t| x(t % rows, t / rows)).collect();
            let spaced: Vec<u8> = (0..rows * k * 2)
                .map(|t| {
                    if t % 2 == 0 {
                        x((t / 2) / k, (t / 2) % k)
                    } else {
                        0
                    }
                })
                .collect();
            let sources = [
                (&rm, k as isize, 1isize),
                (&cm, 1, rows as isize),
                (&spaced, 2 * k as isize, 2),
            ];
            let layout = <u8 as Pair<i8>>::panel_layout(Isa::Portable, r, kc).unwrap();
            let kcp = kc.next_multiple_of(2);
            for (data, sv, sk) in sources {
                let src = Rows {
                    src: &data[..],
                    origin: 0,
                    sv,
                    sk,
                    map: None,
                    simd: false,
                };
                let mut dst = vec![-1i16; r * kcp];
                src.pack(&mut dst, 0, 0, len, kc, r);
                let mut hit = vec![false; dst.len()];
                for i in 0..r {
                    for p in 0..kcp {
                        let at = layout.offset((i + r * p) as i64) as usize;
                        let want = if i < len && p < kc {
                            i16::from(x(i, p))
                        } else {
                            0
                        };
                        assert_eq!(
                            dst[at], want,
                            "r {r} len {len} kc {kc} (sv {sv}, sk {sk}) ({i},{p})"
                        );
                        hit[at] = true;
                    }
                }
                assert!(hit.iter().all(|&h| h), "the layout covers the panel");
            }
        }
    }

    /// Every ISA this CPU has, against the definition, on shapes crossing MR, NR, KC and odd k,
    /// with the extreme values of both signednesses, strided and transposed C.
    #[test]
    fn matches_the_definition_on_every_isa() {
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            seed >> 8
        };
        for isa in [Isa::Portable, Isa::Avx2, Isa::Avx512] {
            if !isa.is_available() {
                continue;
            }
            for &(m, k, n) in &[
                (1, 1, 1),
                (17, 3, 7),
                (33, 513, 13),
                (5, 1030, 2),
                (40, 9, 40),
            ] {
                let a: Vec<u8> = (0..m * k).map(|_| next() as u8).collect();
                let b: Vec<i8> = (0..k * n).map(|_| next() as i8).collect();
                for (row_major_c, beta) in [(true, 0), (false, 3), (true, -1)] {
                    let (rs, cs) = if row_major_c { (n, 1) } else { (1, m) };
                    let c0: Vec<i32> = (0..m * n).map(|_| next() as i32 % 1000).collect();
                    let mut c = c0.clone();
                    crate::gemm::gemm_with(
                        Options {
                            isa,
                            threads: 2,
                            packing: Packing::Always,
                        },
                        2,
                        MatRef {
                            data: &a,
                            rows: m,
                            cols: k,
                            row_stride: k as isize,
                            col_stride: 1,
                        },
                        MatRef {
                            data: &b,
                            rows: k,
                            cols: n,
                            row_stride: 1,
                            col_stride: k as isize,
                        },
                        beta,
                        MatMut {
                            data: &mut c,
                            rows: m,
                            cols: n,
                            row_stride: rs as isize,
                            col_stride: cs as isize,
                        },
                    )
                    .unwrap();
                    for i in 0..m {
                        for j in 0..n {
                            let mut s = 0i64;
                            for p in 0..k {
                                s += i64::from(a[i * k + p]) * i64::from(b[j * k + p]);
                            }
                            let at = i * rs + j * cs;
                            let want = 2 * s + i64::from(beta) * i64::from(c0[at]);
                            assert_eq!(i64::from(c[at]), want, "{isa:?} {m}x{k}x{n} ({i},{j})");
                        }
                    }
                }
            }
        }
    }
}
