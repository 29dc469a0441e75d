//! aarch64 8-bit integer kernels with the dot-product instructions (`FEAT_DotProd`, and
//! `FEAT_I8MM` for mixed signedness): the integer pairs' NEON entry in the kernel table.
//!
//! Both operands pack as bytes in quads of k — the panel layout
//! `(r, (4, ⌈k/4⌉)) : (4, (1, 4r))` over k padded to a multiple of four with zeros — so one
//! `sdot`/`udot` by element multiplies four k steps of four rows against one broadcast column
//! quad and adds the four products into each `i32` lane: 16 multiply-adds per instruction, four
//! times an f32 `fmla`'s. The tile is 8 × 12: 24 accumulators (v8–v31), two A vectors and
//! three B vectors per quad step, 24 dot products against two loads.
//!
//! The signedness pairs: `i8 × i8` runs `sdot`, `u8 × u8` `udot`; a mixed pair runs `usdot` /
//! `sudot` where `i8mm` is usable, and otherwise moves the B panel into A's signedness while
//! packing (`b ^ 0x80`: `b + 128` as `u8` for `udot`, `b − 128` as `i8` for `sdot`) and
//! corrects exactly, `Σ a·b = Σ a·b' ∓ 128·Σ a`, with A's row sums taken in the same loop (two
//! more dot products against a vector of ones per 24).
//! The loops, blocking, threads, edge tiles and C of any layout are the engine's
//! ([`super::block::run_panels`]); only packing and the kernel are here.

use core::arch::asm;
use std::cell::RefCell;
use std::vec::Vec;

use super::block::{run_panels, transposes};
use super::int8::Int8;
use super::kernel::{Kern, KernelInfo, Tile};
use super::pack::{Panels, Rows};
use super::view::Product;
use crate::isa::{Ext, Isa};

/// The dot-product kernels: C, α, β in `i32`, panels of bytes (`u8` stored as its bits).
pub(crate) struct I8Quads;

impl Kern for I8Quads {
    type C = i32;
    type P = i8;
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
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<i8>, &mut Vec<i8>) -> R) -> R {
        std::thread_local! {
            static BUFS: RefCell<(Vec<i8>, Vec<i8>)> = const { RefCell::new((Vec::new(), Vec::new())) };
        }
        super::dispatch::with_cached(&BUFS, f)
    }
}

/// An 8-bit operand element as a panel byte: its bits (the low byte of its exact widening),
/// with the sign bit flipped where the kernel reads a `u8` as `a − 128`.
#[inline(always)]
fn byte<S: Int8>(s: S, flip: bool) -> i8 {
    ((s.widen() as u8) ^ if flip { 0x80 } else { 0 }) as i8
}

/// A source packed into byte quads of k (flipped or not).
struct Quads<'a, S> {
    rows: Rows<'a, S>,
    flip: bool,
}

impl<S: Int8> Panels<i8> for Quads<'_, S> {
    fn pack(&self, dst: &mut [i8], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        let kcp = kc.next_multiple_of(4);
        let panels = len.div_ceil(r);
        let (x, flip) = (&self.rows, self.flip);
        for (t, panel) in dst[..panels * r * kcp]
            .chunks_exact_mut(r * kcp)
            .enumerate()
        {
            let rows = r.min(len - t * r);
            if rows < r || kcp != kc {
                panel.fill(0);
            }
            let vbase = v0 + t * r;
            if x.map.is_none() && x.sk == 1 {
                // rows contiguous along k: four bytes of a row per quad
                for i in 0..rows {
                    let at = (x.row(vbase + i) + p0 as isize) as usize;
                    let src = &x.src[at..at + kc];
                    for (q, quad) in src.chunks(4).enumerate() {
                        let o = q * 4 * r + 4 * i;
                        for (d, &s) in panel[o..o + quad.len()].iter_mut().zip(quad) {
                            *d = byte(s, flip);
                        }
                    }
                }
            } else {
                for p in 0..kc {
                    let co = x.col(p0 + p);
                    let base = (p / 4) * 4 * r + (p & 3);
                    for i in 0..rows {
                        let ro = x.row(vbase + i);
                        panel[base + 4 * i] = byte(x.src[(ro + co) as usize], flip);
                    }
                }
            }
        }
    }
}

/// The tile: 2 vectors of four `i32` rows by 12 columns.
pub(crate) const TILE: (usize, usize) = (8, 12);

/// The 24-dot-product k loop of one 8 × 12 tile in assembly (the dot-product intrinsics are
/// not stable Rust): `acc` ← Σ over `k` quad steps, column-major `[12][8]`, then, with `sums`,
/// A's row sums (`$op` of A against a vector of ones, two more dot products per step) as a
/// 13th column.
macro_rules! dot_loop {
    ($op:literal, $a:expr, $b:expr, $k:expr, $acc:expr, sums: [$($sum:literal),*]) => {
        asm!(
            "movi v8.4s, #0", "movi v9.4s, #0", "movi v10.4s, #0", "movi v11.4s, #0",
            "movi v12.4s, #0", "movi v13.4s, #0", "movi v14.4s, #0", "movi v15.4s, #0",
            "movi v16.4s, #0", "movi v17.4s, #0", "movi v18.4s, #0", "movi v19.4s, #0",
            "movi v20.4s, #0", "movi v21.4s, #0", "movi v22.4s, #0", "movi v23.4s, #0",
            "movi v24.4s, #0", "movi v25.4s, #0", "movi v26.4s, #0", "movi v27.4s, #0",
            "movi v28.4s, #0", "movi v29.4s, #0", "movi v30.4s, #0", "movi v31.4s, #0",
            "movi v5.4s, #0", "movi v6.4s, #0", "movi v7.16b, #1",
            "cbz {k}, 2f",
            "1:",
            "ldp q0, q1, [{a}], #32",
            "ld1 {{v2.16b, v3.16b, v4.16b}}, [{b}], #48",
            concat!($op, " v8.4s, v0.16b, v2.4b[0]"),
            concat!($op, " v9.4s, v1.16b, v2.4b[0]"),
            concat!($op, " v10.4s, v0.16b, v2.4b[1]"),
            concat!($op, " v11.4s, v1.16b, v2.4b[1]"),
            concat!($op, " v12.4s, v0.16b, v2.4b[2]"),
            concat!($op, " v13.4s, v1.16b, v2.4b[2]"),
            concat!($op, " v14.4s, v0.16b, v2.4b[3]"),
            concat!($op, " v15.4s, v1.16b, v2.4b[3]"),
            concat!($op, " v16.4s, v0.16b, v3.4b[0]"),
            concat!($op, " v17.4s, v1.16b, v3.4b[0]"),
            concat!($op, " v18.4s, v0.16b, v3.4b[1]"),
            concat!($op, " v19.4s, v1.16b, v3.4b[1]"),
            concat!($op, " v20.4s, v0.16b, v3.4b[2]"),
            concat!($op, " v21.4s, v1.16b, v3.4b[2]"),
            concat!($op, " v22.4s, v0.16b, v3.4b[3]"),
            concat!($op, " v23.4s, v1.16b, v3.4b[3]"),
            concat!($op, " v24.4s, v0.16b, v4.4b[0]"),
            concat!($op, " v25.4s, v1.16b, v4.4b[0]"),
            concat!($op, " v26.4s, v0.16b, v4.4b[1]"),
            concat!($op, " v27.4s, v1.16b, v4.4b[1]"),
            concat!($op, " v28.4s, v0.16b, v4.4b[2]"),
            concat!($op, " v29.4s, v1.16b, v4.4b[2]"),
            concat!($op, " v30.4s, v0.16b, v4.4b[3]"),
            concat!($op, " v31.4s, v1.16b, v4.4b[3]"),
            $($sum,)*
            "subs {k}, {k}, #1",
            "b.ne 1b",
            "2:",
            "st1 {{v8.4s, v9.4s, v10.4s, v11.4s}}, [{acc}], #64",
            "st1 {{v12.4s, v13.4s, v14.4s, v15.4s}}, [{acc}], #64",
            "st1 {{v16.4s, v17.4s, v18.4s, v19.4s}}, [{acc}], #64",
            "st1 {{v20.4s, v21.4s, v22.4s, v23.4s}}, [{acc}], #64",
            "st1 {{v24.4s, v25.4s, v26.4s, v27.4s}}, [{acc}], #64",
            "st1 {{v28.4s, v29.4s, v30.4s, v31.4s}}, [{acc}], #64",
            "st1 {{v5.4s, v6.4s}}, [{acc}]",
            a = inout(reg) $a => _,
            b = inout(reg) $b => _,
            k = inout(reg) $k => _,
            acc = inout(reg) $acc => _,
            out("v0") _, out("v1") _, out("v2") _, out("v3") _, out("v4") _,
            out("v5") _, out("v6") _, out("v7") _,
            out("v8") _, out("v9") _, out("v10") _, out("v11") _,
            out("v12") _, out("v13") _, out("v14") _, out("v15") _,
            out("v16") _, out("v17") _, out("v18") _, out("v19") _,
            out("v20") _, out("v21") _, out("v22") _, out("v23") _,
            out("v24") _, out("v25") _, out("v26") _, out("v27") _,
            out("v28") _, out("v29") _, out("v30") _, out("v31") _,
            options(nostack),
        )
    };
}

/// One 8 × 12 tile: the dot loop of `D` (0 `sdot`, 1 `udot`, 2 `usdot`, 3 `sudot`; 4 `udot`
/// and 5 `sdot` with A's row sums), then for a B panel moved by 128 (`b ^ 0x80`: `b + 128` for
/// `udot` on an `i8` B, `b − 128` for `sdot` on a `u8` B) the exact correction
/// `Σ a·b = Σ a·b' ∓ 128·Σ a`, then `C ← α·acc + β·C` (β = 0: C is not read).
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = 8, NR = 12, `KSTEP = 4`; NEON and dotprod available,
/// and i8mm for `D` = 2 or 3.
#[inline(always)]
unsafe fn tile<const D: u8>(t: &Tile<i32, i8>) {
    let (mr, nr) = TILE;
    // 12 columns, then A's row sums
    let mut acc = [[0i32; 8]; 13];
    let (a, b, k, out) = (t.a, t.b, t.k, acc.as_mut_ptr().cast::<i32>());
    // SAFETY: the caller guarantees the features, 32·k readable bytes at `a`, 48·k at `b`;
    // `acc` holds the 104 words stored; the registers written are declared.
    unsafe {
        match D {
            0 => dot_loop!("sdot", a, b, k, out, sums: []),
            1 => dot_loop!("udot", a, b, k, out, sums: []),
            2 => dot_loop!("usdot", a, b, k, out, sums: []),
            3 => dot_loop!("sudot", a, b, k, out, sums: []),
            4 => dot_loop!(
                "udot", a, b, k, out,
                sums: ["udot v5.4s, v0.16b, v7.16b", "udot v6.4s, v1.16b, v7.16b"]
            ),
            _ => dot_loop!(
                "sdot", a, b, k, out,
                sums: ["sdot v5.4s, v0.16b, v7.16b", "sdot v6.4s, v1.16b, v7.16b"]
            ),
        }
    }
    if D >= 4 {
        // B' = b + 128 (udot): subtract 128·Σ a; B' = b − 128 (sdot): add it
        let sign: i32 = if D == 4 { -128 } else { 128 };
        let sums = acc[12];
        for col in acc[..12].iter_mut() {
            for (x, &r) in col.iter_mut().zip(&sums) {
                *x = x.wrapping_add(r.wrapping_mul(sign));
            }
        }
    }
    for (j, col) in acc.iter().enumerate().take(nr) {
        for (i, &x) in col.iter().enumerate().take(mr) {
            let x = x.wrapping_mul(t.alpha);
            // SAFETY: the caller guarantees every C element of the tile.
            unsafe {
                let p = t.c.offset(i as isize * t.rsc + j as isize * t.csc);
                *p = if t.beta == 0 {
                    x
                } else {
                    I8Quads::mul_add(*p, t.beta, x)
                };
            }
        }
    }
}

macro_rules! kernels {
    ($($(#[$doc:meta])* $name:ident, $feat:literal, $d:expr;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// As [`super::kernel::Ukr`] with MR = 8, NR = 12, `KSTEP = 4`; the features enabled
        /// on this function are available.
        #[target_feature(enable = $feat)]
        pub(crate) unsafe fn $name(t: &Tile<i32, i8>) {
            // SAFETY: forwarded contract; the features are enabled on this function.
            unsafe { tile::<{ $d }>(t) }
        }
    )*};
}

kernels! {
    /// `i8 × i8`: `sdot`.
    sdot_ss, "neon,dotprod", 0;
    /// `u8 × u8`: `udot`.
    udot_uu, "neon,dotprod", 1;
    /// `u8 × i8` (A panel unsigned): `usdot`.
    usdot_us, "neon,dotprod,i8mm", 2;
    /// `i8 × u8` (B panel unsigned): `sudot`.
    sudot_su, "neon,dotprod,i8mm", 3;
    /// `u8 × i8` without i8mm: `udot` on B + 128, minus 128 · A's row sums.
    udot_flip_b, "neon,dotprod", 4;
    /// `i8 × u8` without i8mm: `sdot` on B − 128, plus 128 · A's row sums.
    sdot_flip_b, "neon,dotprod", 5;
}

/// The kernel for panels of signedness (A panel unsigned, B panel unsigned) on `isa`, and
/// whether the packers flip the B panel's sign bit (never A's).
fn pick(a_unsigned: bool, b_unsigned: bool, isa: Isa) -> (super::kernel::Ukr<i32, i8>, bool) {
    let i8mm = Ext::I8mm.usable(isa);
    match (a_unsigned, b_unsigned) {
        (false, false) => (sdot_ss, false),
        (true, true) => (udot_uu, false),
        (true, false) if i8mm => (usdot_us, false),
        (false, true) if i8mm => (sudot_su, false),
        (true, false) => (udot_flip_b, true),
        (false, true) => (sdot_flip_b, true),
    }
}

/// Whether `T` is `u8`.
fn unsigned<T: 'static>() -> bool {
    core::any::TypeId::of::<T>() == core::any::TypeId::of::<u8>()
}

/// The integer engine with the dot-product kernels on a checked product whose instruction set
/// has `dotprod` usable.
pub(crate) fn run_i8<TA: Int8, TB: Int8>(p: Product<'_, TA, TB, i32>) {
    // the engine runs Cᵀ = Bᵀ·Aᵀ for a C whose rows are not unit stride (`run_panels`'s rule,
    // asked here the same way): then B's packer fills the kernel's A panels
    let [m, _, n] = p.mkn;
    let (crs, ccs) = match p.c.cmap {
        Some(cm) => (cm.rows.step(0), cm.cols.step(0)),
        None => (p.c.sc.rs, p.c.sc.cs),
    };
    let swapped = transposes(m, n, crs, ccs);
    let (ua, ub) = (unsigned::<TA>(), unsigned::<TB>());
    // the kernel's B panel is flipped: the product's B, or its A when swapped
    let (ukr, flip_a, flip_b) = if swapped {
        let (u, flip) = pick(ub, ua, p.isa);
        (u, flip, false)
    } else {
        let (u, flip) = pick(ua, ub, p.isa);
        (u, false, flip)
    };
    const KC: usize = 1024;
    let (mr, nr) = TILE;
    // the A block MC·KC bytes at most 384 KiB in L2; a B micro-panel NR·KC = 12 KiB in L1
    let ki = KernelInfo::sized(mr, nr, KC, 384 << 10, ukr);
    let asrc = Quads {
        rows: p.a.rows(),
        flip: flip_a,
    };
    let bsrc = Quads {
        rows: p.b.transposed().rows(),
        flip: flip_b,
    };
    run_panels::<I8Quads>(&ki, p.mkn, p.alpha, &asrc, &bsrc, p.beta, p.c, p.threads);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::{MatMut, MatRef, Options, Packing};
    use std::vec;

    /// Each dot-product kernel the CPU runs, called directly on packed quads (u8 panels hold
    /// their bits, flipped panels `a ^ 0x80`), against the definition: β = 0 (C not read:
    /// filled with a marker the result never equals), β = 1, another β; C column- and
    /// row-major; k = 0 and k past one loop; the extreme values of both signednesses.
    /// (kernel, A unsigned, B unsigned, flip A, flip B, needs i8mm)
    type Case = (
        super::super::kernel::Ukr<i32, i8>,
        bool,
        bool,
        bool,
        bool,
        bool,
    );

    #[test]
    fn every_dot_kernel_matches_the_definition() {
        let dot = Ext::Dotprod.detected();
        let i8mm = Ext::I8mm.detected();
        if !dot {
            return;
        }
        // (kernel, A unsigned, B unsigned, flip A, flip B, needs i8mm)
        let kernels: [Case; 6] = [
            (sdot_ss, false, false, false, false, false),
            (udot_uu, true, true, false, false, false),
            (usdot_us, true, false, false, false, true),
            (sudot_su, false, true, false, false, true),
            (udot_flip_b, true, false, false, true, false),
            (sdot_flip_b, false, true, false, true, false),
        ];
        let (mr, nr) = TILE;
        let mut seed = 11u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as u8
        };
        for (ukr, ua, ub, fa, fb, needs) in kernels {
            if needs && !i8mm {
                continue;
            }
            for quads in [0usize, 1, 3, 70] {
                let k = 4 * quads;
                // the values as the definition reads them, extremes first
                let val = |u: bool, x: u8| if u { i64::from(x) } else { i64::from(x as i8) };
                let mut ra: Vec<u8> = (0..mr * k).map(|_| next()).collect();
                let mut rb: Vec<u8> = (0..nr * k).map(|_| next()).collect();
                if k > 0 {
                    ra[..4].copy_from_slice(&[0, 0x7F, 0x80, 0xFF]);
                    rb[..4].copy_from_slice(&[0xFF, 0x80, 0x7F, 0]);
                }
                let pa: Vec<i8> = ra
                    .iter()
                    .map(|&x| (x ^ if fa { 0x80 } else { 0 }) as i8)
                    .collect();
                let pb: Vec<i8> = rb
                    .iter()
                    .map(|&x| (x ^ if fb { 0x80 } else { 0 }) as i8)
                    .collect();
                for (alpha, beta) in [(1, 0), (3, 1), (-2, 5)] {
                    for col_major in [true, false] {
                        let (rsc, csc) = if col_major { (1, mr) } else { (nr, 1) };
                        let c0: Vec<i32> = (0..mr * nr).map(|x| x as i32 - 40).collect();
                        let mut c = if beta == 0 {
                            vec![i32::MIN; mr * nr]
                        } else {
                            c0.clone()
                        };
                        let t = Tile {
                            k: quads,
                            alpha,
                            beta,
                            a: pa.as_ptr(),
                            b: pb.as_ptr(),
                            c: c.as_mut_ptr(),
                            rsc: rsc as isize,
                            csc: csc as isize,
                            vsc: 0,
                        };
                        // SAFETY: the features were detected (i8mm where needed); `pa` holds
                        // 32·quads bytes, `pb` 48·quads, `c` the whole tile at these strides.
                        unsafe { ukr(&t) };
                        for i in 0..mr {
                            for j in 0..nr {
                                let s: i64 = (0..k)
                                    .map(|p| {
                                        // quad q of row i at q·4·MR + 4·i + p % 4
                                        let at = |r: usize| (p / 4) * 4 * r + (p % 4);
                                        val(ua, ra[at(mr) + 4 * i]) * val(ub, rb[at(nr) + 4 * j])
                                    })
                                    .sum();
                                let at = i * rsc + j * csc;
                                let b0 = if beta == 0 { 0 } else { i64::from(c0[at]) };
                                let want = (i64::from(alpha) * s + i64::from(beta) * b0) as i32;
                                assert_eq!(
                                    c[at], want,
                                    "kernel {ua} {ub} {fa} {fb} k {k} ({i},{j})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Through the engine, each signedness pair on NEON (the dot-product kernels where usable),
    /// C row- and column-major (the engine swaps the operands for the first), k not a multiple
    /// of four, against the definition.
    #[test]
    fn every_pair_through_the_engine() {
        fn case<TA, TB: Int8>(m: usize, k: usize, n: usize, rnd: &mut impl FnMut() -> u8)
        where
            TA: Int8 + super::super::Pair<TB, Out = i32>,
        {
            let a: Vec<TA> = (0..m * k).map(|_| from::<TA>(rnd())).collect();
            let b: Vec<TB> = (0..k * n).map(|_| from::<TB>(rnd())).collect();
            for row_major_c in [true, false] {
                let (rs, cs) = if row_major_c { (n, 1) } else { (1, m) };
                let c0: Vec<i32> = (0..m * n).map(|x| x as i32 % 97 - 48).collect();
                let mut c = c0.clone();
                crate::gemm::gemm_with(
                    Options {
                        isa: Isa::Neon,
                        threads: 1,
                        packing: Packing::Always,
                    },
                    -3,
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
                    2,
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
                        let s: i64 = (0..k)
                            .map(|p| {
                                i64::from(a[i * k + p].widen()) * i64::from(b[j * k + p].widen())
                            })
                            .sum();
                        let at = i * rs + j * cs;
                        let want = -3 * s + 2 * i64::from(c0[at]);
                        assert_eq!(
                            i64::from(c[at]),
                            want,
                            "{} × {} {m}x{k}x{n} row-major C {row_major_c} ({i},{j})",
                            core::any::type_name::<TA>(),
                            core::any::type_name::<TB>()
                        );
                    }
                }
            }
        }
        fn from<T: Int8>(x: u8) -> T {
            // SAFETY: `T` is `u8` or `i8` (sealed), one byte, every bit pattern valid.
            unsafe { core::mem::transmute_copy(&x) }
        }
        let mut seed = 5u32;
        let mut rnd = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as u8
        };
        for (m, k, n) in [(1, 1, 1), (9, 7, 13), (17, 1030, 5), (24, 33, 25)] {
            case::<u8, i8>(m, k, n, &mut rnd);
            case::<i8, u8>(m, k, n, &mut rnd);
            case::<i8, i8>(m, k, n, &mut rnd);
            case::<u8, u8>(m, k, n, &mut rnd);
        }
    }
}
