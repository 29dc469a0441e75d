//! aarch64 8-bit integer kernels: the integer pairs' NEON entry in the kernel table, one
//! kernel family per extension level, best first.
//!
//! - **i8mm** (`FEAT_I8MM`, ARMv8.6): both operands pack as bytes in octets of k — the panel
//!   layout `(r, (8, ⌈k/8⌉)) : (8, (1, 8r))` — so each 16-byte vector holds two rows' eight k
//!   values, the 2 × 8 matrix `smmla`/`ummla`/`usmmla` multiplies against B's 8 × 2 into a 2 × 2
//!   block of `i32`: 32 multiply-adds per instruction. 8 × 12 tile, 24 block accumulators.
//!   Every signedness pair is exact directly (`i8 × u8` swaps the operands of `usmmla`).
//! - **dotprod** (`FEAT_DotProd`, ARMv8.2): bytes in quads of k,
//!   `(r, (4, ⌈k/4⌉)) : (4, (1, 4r))`; one `sdot`/`udot` by element multiplies four k steps of
//!   four rows against one broadcast column quad: 16 multiply-adds per instruction. 8 × 12 tile:
//!   24 accumulators (v8–v31), two A vectors and three B vectors per quad step.
//! - **none** (ARMv8.0): bytes in sixteens of k; per (row, column) `smull`/`umull` (8 exact
//!   16-bit products) and `sadalp`/`uadalp` (pairs into four `i32` lanes, summed once per
//!   tile). 4 × 4 tile.
//!
//! Without i8mm a mixed pair moves the B panel into A's signedness while packing (`b ^ 0x80`:
//! `b + 128` as `u8`, `b − 128` as `i8`) and corrects exactly, `Σ a·b = Σ a·b' ∓ 128·Σ a`, with
//! A's row sums taken in the same loop.
//! The loops, blocking, threads, edge tiles and C of any layout are the engine's
//! ([`super::block::run_panels`]); only packing and the kernels are here.

use core::arch::asm;
use std::cell::RefCell;
use std::vec::Vec;

use super::block::{run_panels, transposes};
use super::int8::Int8;
use super::kernel::{Kern, KernelInfo, Tile};
use super::pack::{Panels, Rows};
use super::view::Product;
use crate::isa::Ext;

/// The byte-group kernels: C, α, β in `i32`, panels of bytes (`u8` stored as its bits) in
/// groups of `G` k values.
pub(crate) struct I8Groups<const G: usize>;

/// The dot-product kernels: k in quads.
pub(crate) type I8Quads = I8Groups<4>;
/// The matrix multiply-add kernels (`FEAT_I8MM`): k in octets.
pub(crate) type I8Octets = I8Groups<8>;
/// The widening-multiply kernels (ARMv8.0, no extension): k in sixteens.
pub(crate) type I8Sixteens = I8Groups<16>;

impl<const G: usize> Kern for I8Groups<G> {
    type C = i32;
    type P = i8;
    const ZERO: i32 = 0;
    const ONE: i32 = 1;
    const KSTEP: usize = G;
    #[inline(always)]
    fn mul_add(c: i32, beta: i32, x: i32) -> i32 {
        c.wrapping_mul(beta).wrapping_add(x)
    }
    #[inline(always)]
    fn add(c: i32, x: i32) -> i32 {
        c.wrapping_add(x)
    }
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<i8>, &mut Vec<i8>) -> R) -> R {
        // (one pair of byte buffers for every group size)
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

/// A source packed into byte groups of k (flipped or not): `group` = 4, quads for the dot
/// products, the panel layout `(r, (4, ⌈k/4⌉)) : (4, (1, 4r))`; `group` = 8, octets for the
/// matrix multiply-adds, `(r, (8, ⌈k/8⌉)) : (8, (1, 8r))`, whose 16-byte vectors are two rows'
/// eight k values each: the 2 × 8 matrices `smmla` reads.
struct Quads<'a, S> {
    rows: Rows<'a, S>,
    flip: bool,
    group: usize,
}

impl<S: Int8> Panels<i8> for Quads<'_, S> {
    fn pack(&self, dst: &mut [i8], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        let flip = self.flip;
        pack_groups(
            &self.rows,
            self.group,
            |s| byte(s, flip),
            dst,
            v0,
            p0,
            len,
            kc,
            r,
        );
    }
}

/// Packs rows `v0 .. v0 + len` and k steps `p0 .. p0 + kc` of `x` as `⌈len/r⌉` micro-panels of
/// `r` rows in groups of `g` k values, each element through `conv`: element (row i, step p) of
/// panel t at `t·r·kc' + (p/g)·g·r + g·i + p % g` (`kc'` = `kc` rounded up to `g`; rows past
/// `len` and k past `kc` zero) — the panel layout `(r, (g, ⌈k/g⌉)) : (g, (1, g·r))`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn pack_groups<S: Copy, P: Copy + Default>(
    x: &Rows<'_, S>,
    g: usize,
    conv: impl Fn(S) -> P,
    dst: &mut [P],
    v0: usize,
    p0: usize,
    len: usize,
    kc: usize,
    r: usize,
) {
    let kcp = kc.next_multiple_of(g);
    let panels = len.div_ceil(r);
    for (t, panel) in dst[..panels * r * kcp]
        .chunks_exact_mut(r * kcp)
        .enumerate()
    {
        let rows = r.min(len - t * r);
        if rows < r || kcp != kc {
            panel.fill(P::default());
        }
        let vbase = v0 + t * r;
        if x.map.is_none() && x.sk == 1 {
            // rows contiguous along k: `g` values of a row per group
            for i in 0..rows {
                let at = (x.row(vbase + i) + p0 as isize) as usize;
                let src = &x.src[at..at + kc];
                for (q, quad) in src.chunks(g).enumerate() {
                    let o = q * g * r + g * i;
                    for (d, &s) in panel[o..o + quad.len()].iter_mut().zip(quad) {
                        *d = conv(s);
                    }
                }
            }
        } else {
            for p in 0..kc {
                let co = x.col(p0 + p);
                let base = (p / g) * g * r + (p % g);
                for i in 0..rows {
                    let ro = x.row(vbase + i);
                    panel[base + g * i] = conv(x.src[(ro + co) as usize]);
                }
            }
        }
    }
}

/// The tile: 2 vectors of four `i32` rows by 12 columns.
pub(crate) const TILE: (usize, usize) = (8, 12);

/// The frame every 8-bit (and `bfmmla`) k loop shares: `asm!` with the loop's instructions
/// `$t`, the pointers `a`, `b` and the accumulators' `acc` (advanced, then dropped), the step
/// count `k`, and every vector register written.
macro_rules! k_loop {
    ($a:expr, $b:expr, $k:expr, $acc:expr, [$($t:expr),* $(,)?]) => {
        asm!(
            $($t,)*
            a = inout(reg) $a => _,
            b = inout(reg) $b => _,
            k = inout(reg) $k => _,
            acc = inout(reg) $acc => _,
            out("v0") _, out("v1") _, out("v2") _, out("v3") _,
            out("v4") _, out("v5") _, out("v6") _, out("v7") _,
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
pub(crate) use k_loop;

/// The 24 accumulators v8–v31 of an 8 × 12 tile: zeroed (one template string).
macro_rules! zero_v8_v31 {
    () => {
        "movi v8.4s, #0\nmovi v9.4s, #0\nmovi v10.4s, #0\nmovi v11.4s, #0
         movi v12.4s, #0\nmovi v13.4s, #0\nmovi v14.4s, #0\nmovi v15.4s, #0
         movi v16.4s, #0\nmovi v17.4s, #0\nmovi v18.4s, #0\nmovi v19.4s, #0
         movi v20.4s, #0\nmovi v21.4s, #0\nmovi v22.4s, #0\nmovi v23.4s, #0
         movi v24.4s, #0\nmovi v25.4s, #0\nmovi v26.4s, #0\nmovi v27.4s, #0
         movi v28.4s, #0\nmovi v29.4s, #0\nmovi v30.4s, #0\nmovi v31.4s, #0"
    };
}
pub(crate) use zero_v8_v31;

/// The 24 accumulators v8–v31 stored at `acc` in register order, `acc` advanced past them.
macro_rules! store_v8_v31 {
    () => {
        "st1 {{v8.4s, v9.4s, v10.4s, v11.4s}}, [{acc}], #64
         st1 {{v12.4s, v13.4s, v14.4s, v15.4s}}, [{acc}], #64
         st1 {{v16.4s, v17.4s, v18.4s, v19.4s}}, [{acc}], #64
         st1 {{v20.4s, v21.4s, v22.4s, v23.4s}}, [{acc}], #64
         st1 {{v24.4s, v25.4s, v26.4s, v27.4s}}, [{acc}], #64
         st1 {{v28.4s, v29.4s, v30.4s, v31.4s}}, [{acc}], #64"
    };
}
pub(crate) use store_v8_v31;

/// `C ← x(i, j) + β·C` over the tile's `mr × nr` elements, `x` already scaled by α (β = 0: C
/// is not read); the 8-bit and the `bfmmla` tiles' write-back.
///
/// # Safety
/// Every element of the tile is an element of C the caller may write (as [`Tile`]'s contract).
#[inline(always)]
pub(crate) unsafe fn write_c<K: Kern>(
    t: &Tile<K::C, K::P>,
    (mr, nr): (usize, usize),
    x: impl Fn(usize, usize) -> K::C,
) {
    for j in 0..nr {
        for i in 0..mr {
            let x = x(i, j);
            // SAFETY: the caller guarantees every C element of the tile.
            unsafe {
                let p = t.c.offset(i as isize * t.rsc + j as isize * t.csc);
                *p = if t.beta == K::ZERO {
                    x
                } else {
                    K::mul_add(*p, t.beta, x)
                };
            }
        }
    }
}

/// The 24-dot-product k loop of one 8 × 12 tile in assembly (the dot-product intrinsics are
/// not stable Rust): `acc` ← Σ over `k` quad steps, column-major `[12][8]`, then, with `sums`,
/// A's row sums (`$op` of A against a vector of ones, two more dot products per step) as a
/// 13th column.
macro_rules! dot_loop {
    ($op:literal, $a:expr, $b:expr, $k:expr, $acc:expr, sums: [$($sum:literal),*]) => {
        k_loop!($a, $b, $k, $acc, [
            zero_v8_v31!(),
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
            store_v8_v31!(),
            "st1 {{v5.4s, v6.4s}}, [{acc}]",
        ])
    };
}

/// One 8 × 12 tile: the dot loop of `D` (0 `sdot`, 1 `udot`; 4 `udot` and 5 `sdot` with A's
/// row sums), then for a B panel moved by 128 (`b ^ 0x80`: `b + 128` for
/// `udot` on an `i8` B, `b − 128` for `sdot` on a `u8` B) the exact correction
/// `Σ a·b = Σ a·b' ∓ 128·Σ a`, then `C ← α·acc + β·C` (β = 0: C is not read).
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = 8, NR = 12, `KSTEP = 4`; NEON and dotprod available.
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
    // SAFETY: the caller guarantees every C element of the tile.
    unsafe { write_c::<I8Quads>(t, (mr, nr), |i, j| acc[j][i].wrapping_mul(t.alpha)) };
}

/// One kernel function per variant `$d` of a tile function `$tile`, with its features and
/// contract (the same four pairs for every family: see [`pick`]).
macro_rules! kernels {
    ($tile:ident, $feat:literal, $contract:literal;
     $($(#[$doc:meta])* $name:ident, $d:expr;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        #[doc = $contract]
        #[target_feature(enable = $feat)]
        pub(crate) unsafe fn $name(t: &Tile<i32, i8>) {
            // SAFETY: forwarded contract; the features are enabled on this function.
            unsafe { $tile::<{ $d }>(t) }
        }
    )*};
}

kernels! {
    tile, "neon,dotprod",
    "As [`super::kernel::Ukr`] with MR = 8, NR = 12, `KSTEP = 4`; NEON and dotprod available.";
    /// `i8 × i8`: `sdot`.
    sdot_ss, 0;
    /// `u8 × u8`: `udot`.
    udot_uu, 1;
    /// `u8 × i8` without i8mm: `udot` on B + 128, minus 128 · A's row sums.
    udot_flip_b, 4;
    /// `i8 × u8` without i8mm: `sdot` on B − 128, plus 128 · A's row sums.
    sdot_flip_b, 5;
}

/// A family's entry for panels of signedness (A panel unsigned, B panel unsigned), from its
/// four in the order `i8 × i8`, `u8 × u8`, `u8 × i8`, `i8 × u8`.
fn pick<T: Copy>(family: [T; 4], a_unsigned: bool, b_unsigned: bool) -> T {
    family[match (a_unsigned, b_unsigned) {
        (false, false) => 0,
        (true, true) => 1,
        (true, false) => 2,
        (false, true) => 3,
    }]
}

/// The dot-product kernels in [`pick`]'s order, and whether the packers flip the B panel's
/// sign bit (never A's).
const DOT: [(super::kernel::Ukr<i32, i8>, bool); 4] = [
    (sdot_ss, false),
    (udot_uu, false),
    (udot_flip_b, true),
    (sdot_flip_b, true),
];

/// One `smmla`-family instruction of the k loop: accumulator `v$d` += the 2 × 8 matrix of A
/// (`v$a`, two rows) times the 8 × 2 matrix of B (`v$b`, two columns); swapped (`usmmla` with
/// an `i8` A and a `u8` B: the unsigned operand must come first), `v$d` += B's two columns
/// times A's two rows, the transposed 2 × 2 block.
macro_rules! mm {
    ($op:literal, $arr:literal, false, $d:literal, $a:literal, $b:literal) => {
        concat!($op, " v", $d, ".4s, v", $a, $arr, ", v", $b, $arr)
    };
    ($op:literal, $arr:literal, true, $d:literal, $a:literal, $b:literal) => {
        concat!($op, " v", $d, ".4s, v", $b, $arr, ", v", $a, $arr)
    };
}
pub(crate) use mm;

/// The 24-instruction k loop of one 8 × 12 tile with the matrix multiply-adds (`$arr` the
/// sources' arrangement: `.16b` for the 8-bit ones, `.8h` for `bfmmla`), per k group (8 bytes,
/// 4 bf16) of 16-byte vectors: A four (row pairs 0–3, v0–v3), B six (column pairs 0–5, two at
/// a time in v4–v7),
/// accumulator v(8 + 4·column pair + row pair) a 2 × 2 block of C (row-major: `[r0·c0, r0·c1,
/// r1·c0, r1·c1]`; transposed when swapped). `acc` ← the 24 blocks, 96 words.
macro_rules! mmla_loop {
    ($op:literal, $arr:literal, $sw:tt, $a:expr, $b:expr, $k:expr, $acc:expr) => {
        $crate::gemm::neon_int8::k_loop!(
            $a,
            $b,
            $k,
            $acc,
            [
                $crate::gemm::neon_int8::zero_v8_v31!(),
                "cbz {k}, 2f",
                "1:",
                "ldp q0, q1, [{a}], #32",
                "ldp q2, q3, [{a}], #32",
                "ldp q4, q5, [{b}], #32",
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 8, 0, 4),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 9, 1, 4),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 10, 2, 4),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 11, 3, 4),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 12, 0, 5),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 13, 1, 5),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 14, 2, 5),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 15, 3, 5),
                "ldp q6, q7, [{b}], #32",
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 16, 0, 6),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 17, 1, 6),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 18, 2, 6),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 19, 3, 6),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 20, 0, 7),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 21, 1, 7),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 22, 2, 7),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 23, 3, 7),
                "ldp q4, q5, [{b}], #32",
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 24, 0, 4),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 25, 1, 4),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 26, 2, 4),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 27, 3, 4),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 28, 0, 5),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 29, 1, 5),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 30, 2, 5),
                $crate::gemm::neon_int8::mm!($op, $arr, $sw, 31, 3, 5),
                "subs {k}, {k}, #1",
                "b.ne 1b",
                "2:",
                $crate::gemm::neon_int8::store_v8_v31!(),
            ]
        )
    };
}

pub(crate) use mmla_loop;

/// One 8 × 12 tile with the matrix multiply-adds of `D` (0 `smmla`, 1 `ummla`, 2 `usmmla` for
/// a `u8` A and an `i8` B, 3 `usmmla` with the operands swapped for an `i8` A and a `u8` B),
/// then `C ← α·acc + β·C` (β = 0: C is not read).
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = 8, NR = 12, `KSTEP = 8`; NEON and i8mm available.
#[inline(always)]
unsafe fn tile_mmla<const D: u8>(t: &Tile<i32, i8>) {
    let (mr, nr) = TILE;
    // block (row pair, column pair) at [4·column pair + row pair]
    let mut acc = [[0i32; 4]; 24];
    let (a, b, k, out) = (t.a, t.b, t.k, acc.as_mut_ptr().cast::<i32>());
    // SAFETY: the caller guarantees the features, 64·k readable bytes at `a`, 96·k at `b`;
    // `acc` holds the 96 words stored; the registers written are declared.
    unsafe {
        match D {
            0 => mmla_loop!("smmla", ".16b", false, a, b, k, out),
            1 => mmla_loop!("ummla", ".16b", false, a, b, k, out),
            2 => mmla_loop!("usmmla", ".16b", false, a, b, k, out),
            _ => mmla_loop!("usmmla", ".16b", true, a, b, k, out),
        }
    }
    let x = |i: usize, j: usize| {
        let block = &acc[4 * (j / 2) + i / 2];
        let x = if D == 3 {
            block[2 * (j % 2) + i % 2]
        } else {
            block[2 * (i % 2) + j % 2]
        };
        x.wrapping_mul(t.alpha)
    };
    // SAFETY: the caller guarantees every C element of the tile.
    unsafe { write_c::<I8Quads>(t, (mr, nr), x) };
}

kernels! {
    tile_mmla, "neon,i8mm",
    "As [`super::kernel::Ukr`] with MR = 8, NR = 12, `KSTEP = 8`; NEON and i8mm available.";
    /// `i8 × i8`: `smmla`.
    smmla_ss, 0;
    /// `u8 × u8`: `ummla`.
    ummla_uu, 1;
    /// `u8 × i8` (A panel unsigned): `usmmla`.
    usmmla_us, 2;
    /// `i8 × u8` (B panel unsigned): `usmmla` with B's columns first.
    usmmla_su, 3;
}

/// The matrix multiply-add kernels in [`pick`]'s order: every pair exact, no panel flipped.
const MMLA: [super::kernel::Ukr<i32, i8>; 4] = [smmla_ss, ummla_uu, usmmla_us, usmmla_su];

/// The tile of the widening kernels: 4 rows by 4 columns.
pub(crate) const MULL_TILE: (usize, usize) = (4, 4);

/// Most k steps (of 16) one widening-kernel call may take: its row sums accumulate in 16-bit
/// lanes, each step adding two bytes (at most 510 in magnitude): 64 steps stay below 2¹⁵.
const MULL_STEPS: usize = 64;

/// The k loop of one 4 × 4 tile with the widening multiplies (ARMv8.0: no dot products), per
/// 16 k values: A's four rows (v0–v3) and B's four columns (v4–v7) as 16 bytes each; per
/// (row, column) `$mul`/`$mul 2` multiply the low and high eight byte pairs into 16-bit
/// products (exact: `|a·b| ≤ 2¹⁴`, `u8·u8 < 2¹⁶`) and `$adalp` adds them in pairs into the
/// accumulator v(16 + 4·column + row), four 32-bit partial sums. With `sums`, A's row sums
/// too: `$adalp` of each A vector into 16-bit lanes (v12–v15; [`MULL_STEPS`] bounds them).
/// `acc` ← the 16 accumulators (64 words), then the four row-sum vectors (32 halves).
macro_rules! mull_loop {
    ($mul:literal, $adalp:literal, $a:expr, $b:expr, $k:expr, $acc:expr, sums: [$($sum:literal),*]) => {
        k_loop!($a, $b, $k, $acc, [
            "movi v16.4s, #0", "movi v17.4s, #0", "movi v18.4s, #0", "movi v19.4s, #0",
            "movi v20.4s, #0", "movi v21.4s, #0", "movi v22.4s, #0", "movi v23.4s, #0",
            "movi v24.4s, #0", "movi v25.4s, #0", "movi v26.4s, #0", "movi v27.4s, #0",
            "movi v28.4s, #0", "movi v29.4s, #0", "movi v30.4s, #0", "movi v31.4s, #0",
            "movi v12.4s, #0", "movi v13.4s, #0", "movi v14.4s, #0", "movi v15.4s, #0",
            "cbz {k}, 2f",
            "1:",
            "ldp q0, q1, [{a}], #32",
            "ldp q2, q3, [{a}], #32",
            "ldp q4, q5, [{b}], #32",
            "ldp q6, q7, [{b}], #32",
            concat!($mul, " v8.8h, v0.8b, v4.8b"), concat!($mul, "2 v9.8h, v0.16b, v4.16b"),
            concat!($adalp, " v16.4s, v8.8h"), concat!($adalp, " v16.4s, v9.8h"),
            concat!($mul, " v10.8h, v1.8b, v4.8b"), concat!($mul, "2 v11.8h, v1.16b, v4.16b"),
            concat!($adalp, " v17.4s, v10.8h"), concat!($adalp, " v17.4s, v11.8h"),
            concat!($mul, " v8.8h, v2.8b, v4.8b"), concat!($mul, "2 v9.8h, v2.16b, v4.16b"),
            concat!($adalp, " v18.4s, v8.8h"), concat!($adalp, " v18.4s, v9.8h"),
            concat!($mul, " v10.8h, v3.8b, v4.8b"), concat!($mul, "2 v11.8h, v3.16b, v4.16b"),
            concat!($adalp, " v19.4s, v10.8h"), concat!($adalp, " v19.4s, v11.8h"),
            concat!($mul, " v8.8h, v0.8b, v5.8b"), concat!($mul, "2 v9.8h, v0.16b, v5.16b"),
            concat!($adalp, " v20.4s, v8.8h"), concat!($adalp, " v20.4s, v9.8h"),
            concat!($mul, " v10.8h, v1.8b, v5.8b"), concat!($mul, "2 v11.8h, v1.16b, v5.16b"),
            concat!($adalp, " v21.4s, v10.8h"), concat!($adalp, " v21.4s, v11.8h"),
            concat!($mul, " v8.8h, v2.8b, v5.8b"), concat!($mul, "2 v9.8h, v2.16b, v5.16b"),
            concat!($adalp, " v22.4s, v8.8h"), concat!($adalp, " v22.4s, v9.8h"),
            concat!($mul, " v10.8h, v3.8b, v5.8b"), concat!($mul, "2 v11.8h, v3.16b, v5.16b"),
            concat!($adalp, " v23.4s, v10.8h"), concat!($adalp, " v23.4s, v11.8h"),
            concat!($mul, " v8.8h, v0.8b, v6.8b"), concat!($mul, "2 v9.8h, v0.16b, v6.16b"),
            concat!($adalp, " v24.4s, v8.8h"), concat!($adalp, " v24.4s, v9.8h"),
            concat!($mul, " v10.8h, v1.8b, v6.8b"), concat!($mul, "2 v11.8h, v1.16b, v6.16b"),
            concat!($adalp, " v25.4s, v10.8h"), concat!($adalp, " v25.4s, v11.8h"),
            concat!($mul, " v8.8h, v2.8b, v6.8b"), concat!($mul, "2 v9.8h, v2.16b, v6.16b"),
            concat!($adalp, " v26.4s, v8.8h"), concat!($adalp, " v26.4s, v9.8h"),
            concat!($mul, " v10.8h, v3.8b, v6.8b"), concat!($mul, "2 v11.8h, v3.16b, v6.16b"),
            concat!($adalp, " v27.4s, v10.8h"), concat!($adalp, " v27.4s, v11.8h"),
            concat!($mul, " v8.8h, v0.8b, v7.8b"), concat!($mul, "2 v9.8h, v0.16b, v7.16b"),
            concat!($adalp, " v28.4s, v8.8h"), concat!($adalp, " v28.4s, v9.8h"),
            concat!($mul, " v10.8h, v1.8b, v7.8b"), concat!($mul, "2 v11.8h, v1.16b, v7.16b"),
            concat!($adalp, " v29.4s, v10.8h"), concat!($adalp, " v29.4s, v11.8h"),
            concat!($mul, " v8.8h, v2.8b, v7.8b"), concat!($mul, "2 v9.8h, v2.16b, v7.16b"),
            concat!($adalp, " v30.4s, v8.8h"), concat!($adalp, " v30.4s, v9.8h"),
            concat!($mul, " v10.8h, v3.8b, v7.8b"), concat!($mul, "2 v11.8h, v3.16b, v7.16b"),
            concat!($adalp, " v31.4s, v10.8h"), concat!($adalp, " v31.4s, v11.8h"),
            $($sum,)*
            "subs {k}, {k}, #1",
            "b.ne 1b",
            "2:",
            "st1 {{v16.4s, v17.4s, v18.4s, v19.4s}}, [{acc}], #64",
            "st1 {{v20.4s, v21.4s, v22.4s, v23.4s}}, [{acc}], #64",
            "st1 {{v24.4s, v25.4s, v26.4s, v27.4s}}, [{acc}], #64",
            "st1 {{v28.4s, v29.4s, v30.4s, v31.4s}}, [{acc}], #64",
            "st1 {{v12.8h, v13.8h, v14.8h, v15.8h}}, [{acc}]",
        ])
    };
}

/// One 4 × 4 tile with the widening multiplies of `D` (0 `smull`/`sadalp`, 1
/// `umull`/`uadalp`; 2 `umull` and 3 `smull` with A's row sums, for a B panel moved by 128:
/// `b + 128` as `u8` under a `u8` A, `b − 128` as `i8` under an `i8` A), the exact correction
/// `Σ a·b = Σ a·b' ∓ 128·Σ a`, then `C ← α·acc + β·C` (β = 0: C is not read).
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = NR = 4, `KSTEP = 16` and `k ≤ 64`; NEON available.
#[inline(always)]
unsafe fn tile_mull<const D: u8>(t: &Tile<i32, i8>) {
    let (mr, nr) = MULL_TILE;
    debug_assert!(t.k <= MULL_STEPS, "the 16-bit row sums would wrap");
    // 16 accumulators of four partial sums (column-major), then the row sums' 16-bit lanes
    let mut acc = [[0i32; 4]; 16 + 4];
    let (a, b, k, out) = (t.a, t.b, t.k, acc.as_mut_ptr().cast::<i32>());
    // SAFETY: NEON is in every aarch64 CPU; the caller guarantees 64·k readable bytes at `a`
    // and at `b`; `acc` holds the 80 words stored; the registers written are declared.
    unsafe {
        match D {
            0 => mull_loop!("smull", "sadalp", a, b, k, out, sums: []),
            1 => mull_loop!("umull", "uadalp", a, b, k, out, sums: []),
            2 => mull_loop!(
                "umull", "uadalp", a, b, k, out,
                sums: ["uadalp v12.8h, v0.16b", "uadalp v13.8h, v1.16b",
                       "uadalp v14.8h, v2.16b", "uadalp v15.8h, v3.16b"]
            ),
            _ => mull_loop!(
                "smull", "sadalp", a, b, k, out,
                sums: ["sadalp v12.8h, v0.16b", "sadalp v13.8h, v1.16b",
                       "sadalp v14.8h, v2.16b", "sadalp v15.8h, v3.16b"]
            ),
        }
    }
    // the row sums: eight 16-bit lanes per row, unsigned for a `u8` A
    let mut sums = [0i32; 4];
    if D >= 2 {
        for (i, s) in sums.iter_mut().enumerate() {
            *s = acc[16 + i]
                .iter()
                .map(|&w| {
                    let (lo, hi) = (w as u32 as u16, (w as u32 >> 16) as u16);
                    if D == 2 {
                        i32::from(lo) + i32::from(hi)
                    } else {
                        i32::from(lo as i16) + i32::from(hi as i16)
                    }
                })
                .sum();
        }
    }
    // B' = b + 128 (u8): subtract 128·Σ a; B' = b − 128 (i8): add it
    let sign: i32 = if D == 2 { -128 } else { 128 };
    let x = |i: usize, j: usize| {
        acc[4 * j + i]
            .iter()
            .fold(0i32, |s, &w| s.wrapping_add(w))
            .wrapping_add(sums[i].wrapping_mul(sign))
            .wrapping_mul(t.alpha)
    };
    // SAFETY: the caller guarantees every C element of the tile.
    unsafe { write_c::<I8Quads>(t, (mr, nr), x) };
}

kernels! {
    tile_mull, "neon",
    "As [`super::kernel::Ukr`] with MR = NR = 4, `KSTEP = 16` and `k ≤ 64`; NEON available \
     (every aarch64 CPU).";
    /// `i8 × i8`: `smull` + `sadalp`.
    smull_ss, 0;
    /// `u8 × u8`: `umull` + `uadalp`.
    umull_uu, 1;
    /// `u8 × i8`: `umull` on B + 128, minus 128 · A's row sums.
    umull_flip_b, 2;
    /// `i8 × u8`: `smull` on B − 128, plus 128 · A's row sums.
    smull_flip_b, 3;
}

/// The widening kernels in [`pick`]'s order, and whether the packers flip the B panel's sign
/// bit (never A's).
const MULL: [(super::kernel::Ukr<i32, i8>, bool); 4] = [
    (smull_ss, false),
    (umull_uu, false),
    (umull_flip_b, true),
    (smull_flip_b, true),
];

/// `rows` packed in groups of `group` k values, flipped or not.
fn quads<S>(rows: Rows<'_, S>, flip: bool, group: usize) -> Quads<'_, S> {
    Quads { rows, flip, group }
}

/// Whether `T` is `u8`.
fn unsigned<T: 'static>() -> bool {
    core::any::TypeId::of::<T>() == core::any::TypeId::of::<u8>()
}

/// The integer engine on NEON for a checked product: the matrix multiply-adds where `i8mm` is
/// usable, else the dot products where `dotprod` is, else the widening multiplies (ARMv8.0).
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
    // the kernel's (A, B) panels' signedness: the product's, or B's and A's when swapped
    let (ka, kb) = if swapped { (ub, ua) } else { (ua, ub) };
    // the A block MC·KC bytes at most 384 KiB in L2; a B micro-panel NR·KC ≤ 12 KiB in L1
    let ki =
        |(mr, nr): (usize, usize), kc: usize, ukr| KernelInfo::sized(mr, nr, kc, 384 << 10, ukr);
    let (a, bt) = (p.a.rows(), p.b.transposed().rows());
    let (ext, ukr, flip, group) = if Ext::I8mm.usable(p.isa) {
        // every pair of signednesses exact: nothing flipped
        (true, pick(MMLA, ka, kb), false, 8)
    } else if Ext::Dotprod.usable(p.isa) {
        let (ukr, flip) = pick(DOT, ka, kb);
        (true, ukr, flip, 4)
    } else {
        let (ukr, flip) = pick(MULL, ka, kb);
        (false, ukr, flip, 16)
    };
    // the kernel's B panel is flipped: the product's B, or its A when swapped
    let (flip_a, flip_b) = if swapped {
        (flip, false)
    } else {
        (false, flip)
    };
    let (asrc, bsrc) = (quads(a, flip_a, group), quads(bt, flip_b, group));
    let (alpha, beta, c, threads) = (p.alpha, p.beta, p.c, p.threads);
    match group {
        8 => {
            let ki = ki(TILE, 1024, ukr);
            run_panels::<I8Octets>(&ki, p.mkn, alpha, &asrc, &bsrc, beta, c, threads);
        }
        4 => {
            let ki = ki(TILE, 1024, ukr);
            run_panels::<I8Quads>(&ki, p.mkn, alpha, &asrc, &bsrc, beta, c, threads);
        }
        _ => {
            debug_assert!(!ext);
            // at most MULL_STEPS steps of 16 per call (the 16-bit row sums)
            let ki = ki(MULL_TILE, 16 * MULL_STEPS, ukr);
            run_panels::<I8Sixteens>(&ki, p.mkn, alpha, &asrc, &bsrc, beta, c, threads);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::{MatMut, MatRef, Options, Packing};
    use crate::isa::Isa;
    use std::vec;

    /// (kernel, A unsigned, B unsigned, B panel flipped, k per group: 4 dotprod, 8 i8mm, 16
    /// none)
    type Case = (super::super::kernel::Ukr<i32, i8>, bool, bool, bool, usize);

    /// Each dot-product and matrix multiply-add kernel the CPU runs, called directly on packed
    /// groups of k (u8 panels hold their bits, flipped panels `b ^ 0x80`), against the
    /// definition: β = 0 (C not read: filled with a marker the result never equals), β = 1,
    /// another β; C column- and row-major; k = 0 and k past one loop; the extreme values of
    /// both signednesses in every row and column, and a row of the largest magnitude all
    /// along k (the widening kernels' 16-bit row sums at their bound).
    #[test]
    fn every_dot_kernel_matches_the_definition() {
        let kernels: [Case; 12] = [
            (sdot_ss, false, false, false, 4),
            (udot_uu, true, true, false, 4),
            (udot_flip_b, true, false, true, 4),
            (sdot_flip_b, false, true, true, 4),
            (smmla_ss, false, false, false, 8),
            (ummla_uu, true, true, false, 8),
            (usmmla_us, true, false, false, 8),
            (usmmla_su, false, true, false, 8),
            (smull_ss, false, false, false, 16),
            (umull_uu, true, true, false, 16),
            (umull_flip_b, true, false, true, 16),
            (smull_flip_b, false, true, true, 16),
        ];
        let mut seed = 11u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as u8
        };
        for (ukr, ua, ub, fb, g) in kernels {
            let ext = match g {
                8 => Some(Ext::I8mm),
                4 => Some(Ext::Dotprod),
                _ => None,
            };
            if ext.is_some_and(|e| !e.detected()) {
                continue;
            }
            let (mr, nr) = if g == 16 { MULL_TILE } else { TILE };
            let fa = false;
            let most = if g == 16 { MULL_STEPS } else { 70 };
            for groups in [0usize, 1, 3, most] {
                let k = g * groups;
                // the values as the definition reads them, extremes first
                let val = |u: bool, x: u8| if u { i64::from(x) } else { i64::from(x as i8) };
                let mut ra: Vec<u8> = (0..mr * k).map(|_| next()).collect();
                let mut rb: Vec<u8> = (0..nr * k).map(|_| next()).collect();
                if k > 0 {
                    // each row and column meets every extreme of the other side
                    let ext = [0u8, 0x7F, 0x80, 0xFF];
                    for (t, x) in ra[..mr * g].iter_mut().enumerate() {
                        *x = ext[(t / g + t % g) % 4];
                    }
                    for (t, x) in rb[..nr * g].iter_mut().enumerate() {
                        *x = ext[(t / g + 3 * (t % g)) % 4];
                    }
                    // the last row: the largest magnitude of A's type all along k
                    for p in 0..k {
                        ra[(p / g) * g * mr + g * (mr - 1) + p % g] = if ua { 0xFF } else { 0x80 };
                    }
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
                            k: groups,
                            alpha,
                            beta,
                            a: pa.as_ptr(),
                            b: pb.as_ptr(),
                            c: c.as_mut_ptr(),
                            rsc: rsc as isize,
                            csc: csc as isize,
                            vsc: 0,
                        };
                        // SAFETY: the features were detected; `pa` holds MR·g·groups bytes,
                        // `pb` NR·g·groups, `c` the whole tile at these strides.
                        unsafe { ukr(&t) };
                        for i in 0..mr {
                            for j in 0..nr {
                                let s: i64 = (0..k)
                                    .map(|p| {
                                        // group q of row i at q·g·R + g·i + p % g
                                        let at = |r: usize| (p / g) * g * r + (p % g);
                                        val(ua, ra[at(mr) + g * i]) * val(ub, rb[at(nr) + g * j])
                                    })
                                    .sum();
                                let at = i * rsc + j * csc;
                                let b0 = if beta == 0 { 0 } else { i64::from(c0[at]) };
                                let want = (i64::from(alpha) * s + i64::from(beta) * b0) as i32;
                                assert_eq!(
                                    c[at], want,
                                    "kernel {ua} {ub} {fb} g {g} k {k} ({i},{j})"
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    /// Through the engine, each signedness pair on NEON (the matrix multiply-adds or the dot
    /// products, whichever the extensions allow), A row- and column-major (the packers' two
    /// paths), C row- and column-major (the engine swaps the operands for the first), k not a
    /// multiple of four or eight, against the definition.
    #[test]
    fn every_pair_through_the_engine() {
        fn case<TA, TB: Int8>(m: usize, k: usize, n: usize, rnd: &mut impl FnMut() -> u8)
        where
            TA: Int8 + super::super::Pair<TB, Out = i32>,
        {
            let a: Vec<TA> = (0..m * k).map(|_| from::<TA>(rnd())).collect();
            let b: Vec<TB> = (0..k * n).map(|_| from::<TB>(rnd())).collect();
            for (row_major_c, row_major_a) in [(true, true), (false, true), (true, false)] {
                let (rs, cs) = if row_major_c { (n, 1) } else { (1, m) };
                // A's element (i, p) at a[i·k + p] either way: column-major A is read through
                // a copy stored that way
                let acm: Vec<TA> = (0..m * k).map(|t| a[(t % m) * k + t / m]).collect();
                let (adata, ars, acs) = if row_major_a {
                    (&a, k as isize, 1)
                } else {
                    (&acm, 1, m as isize)
                };
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
                        data: adata,
                        rows: m,
                        cols: k,
                        row_stride: ars,
                        col_stride: acs,
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
                            "{} × {} {m}x{k}x{n} row-major C {row_major_c} A {row_major_a} \
                             ({i},{j})",
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

    /// The group packer writes element (row i, step p) of every panel exactly where the
    /// published panel layout (`Pair::panel_layout` for the extension that reads groups of
    /// `g`) says, zeros everywhere else (rows past the edge, k past the end), for sources
    /// contiguous along k and otherwise, flipped and not.
    #[test]
    fn group_panels_are_the_published_layout() {
        for g in [4usize, 8, 16] {
            for (r, len, kc) in [
                (8usize, 8usize, 16usize),
                (12, 5, 13),
                (8, 3, 1),
                (12, 12, 70),
            ] {
                let x = |i: usize, p: usize| ((i * 31 + p * 7) % 251) as u8;
                let rm: Vec<u8> = (0..len * kc).map(|t| x(t / kc, t % kc)).collect();
                let cm: Vec<u8> = (0..len * kc).map(|t| x(t % len, t / len)).collect();
                let layout = super::super::pack::panel_layout(g, r, kc).unwrap();
                let kcp = kc.next_multiple_of(g);
                for (data, sv, sk) in [(&rm, kc as isize, 1isize), (&cm, 1, len as isize)] {
                    for flip in [false, true] {
                        let src = Quads {
                            rows: Rows {
                                src: &data[..],
                                origin: 0,
                                sv,
                                sk,
                                map: None,
                                simd: false,
                            },
                            flip,
                            group: g,
                        };
                        let mut dst = vec![-1i8; r * kcp];
                        src.pack(&mut dst, 0, 0, len, kc, r);
                        let mut hit = vec![false; dst.len()];
                        for i in 0..r {
                            for p in 0..kcp {
                                let at = layout.offset((i + r * p) as i64) as usize;
                                let want = if i < len && p < kc {
                                    (x(i, p) ^ if flip { 0x80 } else { 0 }) as i8
                                } else {
                                    0
                                };
                                assert_eq!(
                                    dst[at], want,
                                    "g {g} r {r} len {len} kc {kc} ({i},{p})"
                                );
                                hit[at] = true;
                            }
                        }
                        assert!(hit.iter().all(|&h| h), "the layout covers the panel");
                    }
                }
            }
        }
        // the layout the pairs publish is the one the engine packs for the extensions in use
        let l = <u8 as super::super::Pair<i8>>::panel_layout(Isa::Neon, 8, 16).unwrap();
        let g = if Ext::I8mm.usable(Isa::Neon) {
            8
        } else if Ext::Dotprod.usable(Isa::Neon) {
            4
        } else {
            16
        };
        assert_eq!(l, super::super::pack::panel_layout(g, 8, 16).unwrap());
    }
}
