//! bf16 × bf16 → f32 on AMX (Intel Sapphire Rapids and later): `tdpbf16ps` multiplies a tile
//! of 16 rows × 32 k by a tile of 32 k × 16 columns into 16 × 16 f32 accumulators, 8192
//! multiply-adds per instruction.
//!
//! The tiles fit the engine (`block::run_panels`) as two panel layouts of the same family as
//! the other pairs' (`pack::panel_layout`), told apart by their width:
//! - the vectorised operand (MR = 16 rows: m, or n when the product runs as `Cᵀ = Bᵀ·Aᵀ`) in
//!   k pairs, `((2, 16), ⌈k/2⌉) : ((1, 2), 32)`: 16 consecutive pairs of k are exactly one AMX
//!   "B" tile (16 rows of k pairs × 16 columns × 2 bf16, 64 bytes a row, 1 KiB contiguous);
//! - the broadcast operand (NR = 32 rows) in k groups of 32, `(32, (32, ⌈k/32⌉)) : (32, (1,
//!   1024))`: each group is two AMX "A" tiles (16 rows × 32 consecutive k, 64 bytes a row).
//!
//! Both pad k with zeros to a multiple of 32 (the engine's `KSTEP`), so every tile step is a
//! whole tile and the tile shapes never change. The accumulator tiles hold C transposed (rows
//! = the 32 broadcast rows, 16 f32 = the 16 vectorised rows), which is C's columns of 16
//! consecutive rows when C's rows are unit-stride, as the engine arranges: with α = 1, β ∈ {0,
//! 1} and such a C the accumulators are loaded from (β = 1) and stored straight to C, else they
//! go through a stack tile for α, β and any strides.
//!
//! Tile state: each thread that runs the engine configures the tiles once (`ldtilecfg`, about
//! 200 ns, too slow for every micro-kernel call) when it takes its packing buffers
//! ([`Kern::with_buffers`]) and releases them (`tilerelease`) when it gives them back, so a
//! thread holds the 8 KiB of tile state only while it multiplies, and code between two calls
//! (another library's AMX kernels included) may configure the tiles as it likes.
//! `tdpbf16ps` flushes denormal inputs and outputs to zero and rounds as `vdpbf16ps` does (see
//! `reference/gemm.md` §7); on integer data small enough for bf16 the results are exact.

use core::arch::asm;
use std::cell::RefCell;
use std::vec::Vec;

use super::kernel::{Kern, KernelInfo, Tile};
use super::pack::{Panels, Rows};
use crate::isa::Isa;

/// Rows of the vectorised operand's panels (one AMX "B" tile wide).
pub(crate) const MR: usize = 16;
/// Rows of the broadcast operand's panels (two AMX "A" tiles).
pub(crate) const NR: usize = 32;
/// k values per tile step (one tile row of bf16 is 64 bytes).
pub(crate) const KCHUNK: usize = 32;

const _: () = assert!(
    MR != NR,
    "the packer tells the two panel layouts apart by their width"
);

/// Whether the AMX bf16 kernel runs at `isa` (see [`crate::isa::has_amx_bf16`]).
pub(crate) fn usable(isa: Isa) -> bool {
    crate::isa::has_amx_bf16(isa)
}

/// The bf16 pair on AMX: C, α, β in `f32`, panels of bf16 bits, k in steps of 32.
pub(crate) struct AmxBf16;

impl Kern for AmxBf16 {
    type C = f32;
    type P = i16;
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    const KSTEP: usize = KCHUNK;
    #[inline(always)]
    fn mul_add(c: f32, beta: f32, x: f32) -> f32 {
        c * beta + x
    }
    #[inline(always)]
    fn add(c: f32, x: f32) -> f32 {
        c + x
    }
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<i16>, &mut Vec<i16>) -> R) -> R {
        std::thread_local! {
            static BUFS: RefCell<(Vec<i16>, Vec<i16>)> = const { RefCell::new((Vec::new(), Vec::new())) };
        }
        // every micro-kernel call of an engine run happens inside this call, on this thread
        let _tiles = Configured::new();
        super::dispatch::with_cached(&BUFS, f)
    }
}

/// The tile configuration of the kernel: palette 1, all eight tiles 16 rows × 64 bytes.
#[repr(C, align(64))]
struct Config([u8; 64]);

const CONFIG: Config = {
    let mut c = [0u8; 64];
    c[0] = 1; // palette 1; byte 1 (start row) 0
    let mut t = 0;
    while t < 8 {
        c[16 + 2 * t] = 64; // bytes per row (u16, little-endian)
        c[48 + t] = 16; // rows
        t += 1;
    }
    Config(c)
};

/// The tiles configured on this thread while it lives ([`AmxBf16::with_buffers`]); released
/// when dropped. Does nothing where AMX is not usable (no kernel of this module runs then).
struct Configured(bool);

impl Configured {
    fn new() -> Self {
        let on = usable(Isa::Avx512);
        if on {
            // SAFETY: the CPU has AMX-TILE and the OS granted this process the tile state
            // (`usable`); `CONFIG` is a valid palette-1 configuration, 64 bytes, read only.
            unsafe {
                asm!("ldtilecfg [{}]", in(reg) &CONFIG, options(nostack, readonly, preserves_flags));
            }
        }
        Configured(on)
    }
}

impl Drop for Configured {
    fn drop(&mut self) {
        if self.0 {
            // SAFETY: AMX-TILE is available (checked in `new`); `tilerelease` returns the tile
            // state to its initial one and touches no memory.
            unsafe { asm!("tilerelease", options(nostack, nomem, preserves_flags)) };
        }
    }
}

/// The kernel and its blocking ([`KernelInfo::sized`], KC a multiple of 32): the broadcast
/// micro-panel (32 × KC bf16) in half of L1d, the vectorised block in L2.
pub(crate) fn kernel() -> KernelInfo<f32, i16> {
    let mut ki = KernelInfo::sized(MR, NR, 512, 1 << 20, ukr);
    ki.kc = (ki.kc / KCHUNK).max(1) * KCHUNK;
    ki
}

/// One 16 × 32 tile over `t.k` steps of 32 k: `C ← α·acc + β·C` (β = 0: C not read).
///
/// # Safety
/// As [`super::kernel::Ukr`] with MR = 16, NR = 32, `KSTEP = 32` and the panel layouts of the
/// module doc; AVX-512F available, and the tiles configured with [`CONFIG`] on this thread
/// (the engine calls it only inside [`AmxBf16::with_buffers`], which does so).
#[target_feature(enable = "avx512f")]
unsafe fn ukr(t: &Tile<f32, i16>) {
    use core::arch::x86_64::*;
    let direct = t.rsc == 1 && t.vsc == 0 && t.alpha == 1.0 && (t.beta == 0.0 || t.beta == 1.0);
    let cstride = t.csc.wrapping_mul(4);
    // C's columns 0..16 and 16..32 (AMX rows), each 16 consecutive f32 (the tile's rows)
    let (c0, c1) = (t.c, t.c.wrapping_offset(16 * t.csc));
    if direct && t.beta == 1.0 {
        // SAFETY: the tile's C elements are readable (the caller's contract): row r of each
        // accumulator is 16 contiguous f32 of column r (rsc = 1) at `c + r·csc`.
        unsafe {
            asm!(
                "tileloadd tmm0, [{c0} + {s}*1]",
                "tileloadd tmm1, [{c1} + {s}*1]",
                c0 = in(reg) c0, c1 = in(reg) c1, s = in(reg) cstride,
                options(nostack, readonly, preserves_flags),
            );
        }
    } else {
        // SAFETY: tiles configured (the contract); no memory is touched.
        unsafe {
            asm!(
                "tilezero tmm0",
                "tilezero tmm1",
                options(nostack, nomem, preserves_flags)
            )
        };
    }
    if t.k > 0 {
        // SAFETY: the vectorised panel holds `t.k` tiles of 1 KiB (16 pairs × 16 rows), the
        // broadcast panel `t.k` groups of 2 KiB (32 rows × 32 k): every load is inside them
        // (the caller's contract: MR·32·k and NR·32·k i16). The loop runs `t.k ≥ 1` times.
        unsafe {
            asm!(
                "2:",
                "tileloadd tmm6, [{a} + {s}*1]",
                "tileloadd tmm4, [{b} + {s}*1]",
                "tileloadd tmm5, [{b} + {s}*1 + 1024]",
                "tdpbf16ps tmm0, tmm4, tmm6",
                "tdpbf16ps tmm1, tmm5, tmm6",
                "add {a}, 1024",
                "add {b}, 2048",
                "dec {n}",
                "jnz 2b",
                a = inout(reg) t.a => _,
                b = inout(reg) t.b => _,
                n = inout(reg) t.k => _,
                s = in(reg) 64usize,
                options(nostack, readonly),
            );
        }
    }
    if direct {
        // SAFETY: the tile's C elements are writable (the caller's contract), at the places
        // named above.
        unsafe {
            asm!(
                "tilestored [{c0} + {s}*1], tmm0",
                "tilestored [{c1} + {s}*1], tmm1",
                c0 = in(reg) c0, c1 = in(reg) c1, s = in(reg) cstride,
                options(nostack, preserves_flags),
            );
        }
        return;
    }
    #[repr(C, align(64))]
    struct Acc([[f32; MR]; NR]);
    let mut acc = Acc([[0.0; MR]; NR]);
    // SAFETY: `acc` is 32 rows of 64 bytes, written by the two tiles of 16 rows.
    unsafe {
        asm!(
            "tilestored [{p} + {s}*1], tmm0",
            "tilestored [{p} + {s}*1 + 1024], tmm1",
            p = in(reg) acc.0.as_mut_ptr(), s = in(reg) 64usize,
            options(nostack, preserves_flags),
        );
    }
    let (alpha, beta) = (_mm512_set1_ps(t.alpha), _mm512_set1_ps(t.beta));
    for (j, col) in acc.0.iter().enumerate() {
        // SAFETY: `col` is 16 f32.
        let x = _mm512_mul_ps(alpha, unsafe { _mm512_loadu_ps(col.as_ptr()) });
        let cj = t.c.wrapping_offset(j as isize * t.csc);
        if t.rsc == 1 {
            // SAFETY: rows 0..16 of column j are 16 contiguous f32 of C (the contract).
            unsafe {
                let r = if t.beta == 0.0 {
                    x
                } else {
                    _mm512_fmadd_ps(_mm512_loadu_ps(cj), beta, x)
                };
                _mm512_storeu_ps(cj, r);
            }
        } else {
            let mut xs = [0f32; MR];
            // SAFETY: `xs` is 16 f32.
            unsafe { _mm512_storeu_ps(xs.as_mut_ptr(), x) };
            for (i, &x) in xs.iter().enumerate() {
                // SAFETY: (i, j) is inside the tile (the contract).
                unsafe {
                    let q = cj.offset(i as isize * t.rsc);
                    *q = if t.beta == 0.0 { x } else { *q * t.beta + x };
                }
            }
        }
    }
}

/// A bf16 operand as the AMX kernel's panels ([`Panels`]): `r` = [`MR`] rows in k pairs, any
/// other `r` in groups of 32 k, both padded with zeros to a multiple of 32 k.
#[derive(Clone, Copy)]
pub(crate) struct AmxRows<'a>(pub Rows<'a, half::bf16>);

impl Panels<i16> for AmxRows<'_> {
    fn pack(&self, dst: &mut [i16], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        let kcp = kc.next_multiple_of(KCHUNK);
        for (t, panel) in dst[..len.div_ceil(r) * r * kcp]
            .chunks_exact_mut(r * kcp)
            .enumerate()
        {
            let rows = r.min(len - t * r);
            let v = v0 + t * r;
            if r == MR {
                // k pairs: the pair packer, then zeros for the k past its even length
                let kc2 = kc.next_multiple_of(2);
                Panels::<i16>::pack(&self.0, &mut panel[..r * kc2], v, p0, rows, kc, r);
                panel[r * kc2..].fill(0);
            } else {
                groups(self.0, panel, v, p0, rows, kc, r);
            }
        }
    }
}

/// One panel of `r` rows from row `v` in groups of 32 k: `panel[(p/32)·32r + 32i + p%32] =
/// X[v + i][p0 + p]`, zeros past `rows` and `kc`.
fn groups(
    s: Rows<'_, half::bf16>,
    panel: &mut [i16],
    v: usize,
    p0: usize,
    rows: usize,
    kc: usize,
    r: usize,
) {
    if rows < r || !kc.is_multiple_of(KCHUNK) {
        panel.fill(0);
    }
    if s.map.is_none() && s.sk == 1 {
        // rows contiguous along k: runs of 32 copied as they are
        for i in 0..rows {
            let at = (s.row(v + i) + p0 as isize) as usize;
            for (g, run) in s.src[at..at + kc].chunks(KCHUNK).enumerate() {
                let o = g * KCHUNK * r + KCHUNK * i;
                for (d, x) in panel[o..o + run.len()].iter_mut().zip(run) {
                    *d = x.to_bits() as i16;
                }
            }
        }
    } else {
        // (the engine's widths are MR and NR)
        let mut offs = [0isize; 64];
        for (i, o) in offs[..rows].iter_mut().enumerate() {
            *o = s.row(v + i);
        }
        for p in 0..kc {
            let co = s.col(p0 + p);
            let base = (p / KCHUNK) * KCHUNK * r + p % KCHUNK;
            for (i, &ro) in offs[..rows].iter().enumerate() {
                panel[base + KCHUNK * i] = s.src[(ro + co) as usize].to_bits() as i16;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemm::{MatMut, MatRef, Options, Packing, gemm_tensors_with, gemm_with};
    use crate::tensor::Tensor;
    use half::bf16;
    use proptest::prelude::*;
    use std::string::ToString;
    use std::vec;

    /// Small integers (exact in bf16; every sum below 2²⁴ is exact in f32).
    fn vals(seed: u64, len: usize) -> Vec<bf16> {
        let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                bf16::from_f32((s % 9) as f32 - 4.0)
            })
            .collect()
    }

    /// One strided product against the naive sum, every instruction set, 1 and 2 threads: A
    /// row- or column-major, B row- or column-major, C with gaps between its columns or rows
    /// (`c_rows_unit`: C(i, j) at `i + j·(m + 3)`, else `i·(n + 5) + j`), guard elements
    /// around and between C's untouched, β = 0 over NaN.
    #[allow(clippy::too_many_arguments)]
    fn strided(
        [m, k, n]: [usize; 3],
        a_rm: bool,
        b_rm: bool,
        c_rows_unit: bool,
        alpha: f32,
        beta: f32,
        seed: u64,
    ) {
        let a = vals(seed, m * k);
        let b = vals(seed + 1, k * n);
        let (ars, acs) = if a_rm { (k, 1) } else { (1, m) };
        let (brs, bcs) = if b_rm { (n, 1) } else { (1, k) };
        let (crs, ccs) = if c_rows_unit { (1, m + 3) } else { (n + 5, 1) };
        let guard = 7;
        let clen = guard + (m - 1) * crs + (n - 1) * ccs + 1 + guard;
        let c0: Vec<f32> = (0..clen)
            .map(|x| {
                if beta == 0.0 {
                    f32::NAN
                } else {
                    (x % 7) as f32 - 3.0
                }
            })
            .collect();
        let at = |i: usize, j: usize| guard + i * crs + j * ccs;
        for isa in Isa::available() {
            for threads in [1, 2] {
                let mut c = c0.clone();
                let opts = Options {
                    isa,
                    threads,
                    packing: Packing::Always,
                };
                let mat = |data, rows, cols, rs: usize, cs: usize| MatRef {
                    data,
                    rows,
                    cols,
                    row_stride: rs as isize,
                    col_stride: cs as isize,
                };
                let cm = MatMut {
                    data: &mut c[guard..],
                    rows: m,
                    cols: n,
                    row_stride: crs as isize,
                    col_stride: ccs as isize,
                };
                gemm_with(
                    opts,
                    alpha,
                    mat(&a[..], m, k, ars, acs),
                    mat(&b[..], k, n, brs, bcs),
                    beta,
                    cm,
                )
                .unwrap();
                let mut inside = vec![false; clen];
                for i in 0..m {
                    for j in 0..n {
                        let s: f32 = (0..k)
                            .map(|p| a[i * ars + p * acs].to_f32() * b[p * brs + j * bcs].to_f32())
                            .sum();
                        let want = alpha * s
                            + if beta == 0.0 {
                                0.0
                            } else {
                                beta * c0[at(i, j)]
                            };
                        assert_eq!(
                            c[at(i, j)],
                            want,
                            "{m}×{k}×{n} {isa:?} t{threads} A rm {a_rm} B rm {b_rm} C rows unit \
                             {c_rows_unit} α {alpha} β {beta}: C({i},{j})"
                        );
                        inside[at(i, j)] = true;
                    }
                }
                for x in (0..clen).filter(|&x| !inside[x]) {
                    assert_eq!(
                        c[x].to_bits(),
                        c0[x].to_bits(),
                        "{m}×{k}×{n} {isa:?}: element {x} outside C written"
                    );
                }
            }
        }
    }

    /// Edges of every kind (m, n not multiples of 16 or 32, k odd, k not a multiple of 32, k
    /// past KC so that C is updated once per k block), every α/β kind the kernel tells apart
    /// (α = 1 with β = 0 or 1 stores straight from the tiles; other α, β through the stack tile).
    #[test]
    fn products_on_every_edge_and_scaling() {
        let kc = kernel().kc;
        let shapes = [
            [1, 1, 1],
            [16, 32, 32],
            [17, 33, 31],
            [15, 1, 65],
            [48, 64, 96],
            [33, kc + 7, 47],
            [70, 2 * kc + 31, 40],
            [100, 63, 3],
        ];
        let mut seed = 1;
        for mkn in shapes {
            for (alpha, beta) in [(1.0, 0.0), (1.0, 1.0), (2.0, 0.0), (1.0, -2.0), (-3.0, 1.0)] {
                for c_rows_unit in [true, false] {
                    seed += 1;
                    strided(
                        mkn,
                        seed % 2 == 0,
                        seed % 3 == 0,
                        c_rows_unit,
                        alpha,
                        beta,
                        seed,
                    );
                }
            }
        }
    }

    /// C of a mapped layout (an NZ-like blocked one: runs of 8 rows) and A, B blocked: the
    /// engine writes through the axis maps (stack tile) and packs through them.
    #[test]
    fn mapped_operands() {
        let (m, k, n) = (40usize, 70usize, 36usize);
        let l = |s: &str| s.parse::<crate::DynLayout>().unwrap();
        let la = l("((8,5),(2,35)):((2,16),(1,80))");
        let lb = l("(70,(4,9)):(4,(1,280))");
        let lc = l("((8,5),36):((1,288),8)");
        let a = vals(3, 4000);
        let b = vals(4, 4000);
        let ta = Tensor::new(&a[..], la).unwrap();
        let tb = Tensor::new(&b[..], lb).unwrap();
        let c0: Vec<f32> = (0..288 * 5).map(|x| (x % 5) as f32).collect();
        for isa in Isa::available() {
            for threads in [1, 2] {
                let mut c = c0.clone();
                let mut tc = Tensor::new(&mut c[..], lc).unwrap();
                let opts = Options {
                    isa,
                    threads,
                    packing: Packing::Always,
                };
                gemm_tensors_with(opts, 2.0, &ta, &tb, 1.0, &mut tc).unwrap();
                for i in 0..m as i64 {
                    for j in 0..n as i64 {
                        let s: f32 = (0..k as i64)
                            .map(|p| ta[[i, p]].to_f32() * tb[[p, j]].to_f32())
                            .sum();
                        let o = lc.offset(i + j * m as i64) as usize;
                        assert_eq!(c[o], 2.0 * s + c0[o], "{isa:?} t{threads} C({i},{j})");
                    }
                }
            }
        }
    }

    /// The packer writes each element where the panel layout `Pair::panel_layout` publishes for
    /// its width (k pairs for MR rows, groups of 32 for NR), and zeros everywhere else, from
    /// row-major (k contiguous), column-major and mapped sources.
    #[test]
    fn packing_follows_the_published_layout() {
        let (rows, k) = (37usize, 75usize);
        let x = vals(9, rows * k);
        let bits = |v: bf16| v.to_bits() as i16;
        for (sv, sk) in [(k as isize, 1), (1, rows as isize)] {
            let src = AmxRows(Rows {
                src: &x[..],
                origin: 0,
                sv,
                sk,
                map: None,
                simd: false,
            });
            for (r, g) in [(MR, 2), (NR, KCHUNK)] {
                for (v0, p0, len, kc) in [(0, 0, rows, k), (3, 5, 20, 40), (1, 64, r, 11)] {
                    let kcp = kc.next_multiple_of(KCHUNK);
                    let mut dst = vec![i16::MIN; len.div_ceil(r) * r * kcp];
                    src.pack(&mut dst, v0, p0, len, kc, r);
                    let layout = crate::gemm::pack::panel_layout(g, r, kcp).unwrap();
                    let mut want = vec![0i16; dst.len()];
                    for t in 0..len.div_ceil(r) {
                        for i in 0..r.min(len - t * r) {
                            for p in 0..kc {
                                let o = layout.offset((i + p * r) as i64) as usize;
                                let (v, q) = (v0 + t * r + i, p0 + p);
                                want[t * r * kcp + o] =
                                    bits(x[(v as isize * sv + q as isize * sk) as usize]);
                            }
                        }
                    }
                    assert_eq!(dst, want, "r {r}, sv {sv}, ({v0}, {p0}, {len}, {kc})");
                }
            }
        }
    }

    /// AMX runs where the detection says (the AVX-512 level only) and the pair publishes its
    /// panel layouts; the routes below it keep their own.
    #[test]
    fn route_and_published_layouts() {
        use crate::gemm::Pair;
        use crate::gemm::half_inputs::kstep;
        for isa in Isa::ALL {
            let on = usable(isa);
            assert!(!on || isa == Isa::Avx512, "{isa:?}");
            assert_eq!(kstep::<bf16>(isa) == KCHUNK, on, "{isa:?}");
            if on {
                let a = <bf16 as Pair<bf16>>::panel_layout(isa, MR, 40).unwrap();
                let b = <bf16 as Pair<bf16>>::panel_layout(isa, NR, 40).unwrap();
                assert_eq!(a.to_string(), "(16,(2,20)):(2,(1,32))");
                assert_eq!(b.to_string(), "(32,(32,2)):(32,(1,1024))");
            }
        }
        if std::env::var("LAYOUT_GEMM_AMX").is_ok_and(|v| v == "off") {
            assert!(!usable(Isa::Avx512));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn random_products(
            m in 1usize..70, k in 1usize..500, n in 1usize..70,
            a_rm: bool, b_rm: bool, c_rows_unit: bool,
            ab in 0usize..4, seed in 0u64..1000,
        ) {
            let (alpha, beta) = [(1.0, 0.0), (1.0, 1.0), (0.5, 2.0), (-1.0, 0.0)][ab];
            strided([m, k, n], a_rm, b_rm, c_rows_unit, alpha, beta, seed);
        }
    }
}
