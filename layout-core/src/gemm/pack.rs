//! Packing: copies a block of an operand into micro-panels the kernel streams.
//!
//! A packed block of `len` rows (the dimension the kernel vectorises: m for A, n for B) and `kc`
//! steps of k is the layout `((R, ⌈len/R⌉), kc) : ((1, R·kc), R)` — R = MR for A, NR for B: each
//! micro-panel holds, for each k, R contiguous elements; rows past `len` are zero so the kernel
//! always runs a full tile.

use super::kernel::Element;
use super::maps::Mapped;
use crate::walk::kernels::transpose;

/// An operand as the engine packs it: a matrix X of `rows × k` (A itself, or Bᵀ), whatever
/// its element, layout or encoding — a strided or mapped slice of the kernel's element, a
/// 16-bit float slice widened on the way, 8-bit integers paired for `vpmaddwd`, quantized
/// weights dequantized block by block, an implicit im2col matrix read through its windows.
/// Packing is the one place an operand's format is looked at; the loops, kernels and edge
/// handling never see it. (`Cᵀ = Bᵀ·Aᵀ` is then just the two sources swapped.)
pub(crate) trait Panels<P>: Sync {
    /// Packs rows `v0 .. v0 + len` and k steps `p0 .. p0 + kc` of X as `⌈len/r⌉` micro-panels
    /// of `r` rows: for one k value per step (`KSTEP = 1`), `dst[t·r·kc + p·r + i] =
    /// X[v0 + t·r + i][p0 + p]`; for pairs (`KSTEP = 2`), `kc` rounds up to even and
    /// `dst[t·r·kc' + (p/2)·2r + 2i + p%2]`. Rows past `len` and k past `kc` are zero.
    /// Callers pass ranges inside X and a `dst` of at least `⌈len/r⌉·r·kc'` elements.
    fn pack(&self, dst: &mut [P], v0: usize, p0: usize, len: usize, kc: usize, r: usize);
    /// The micro-panel of `r` rows holding rows from `v` and k steps `p0 .. p0 + kc` when X is
    /// stored packed already ([`PackedB`](super::PackedB)); `None` for sources that pack.
    fn prepacked(&self, _v: usize, _p0: usize, _kc: usize) -> Option<&[P]> {
        None
    }
    /// Whether [`prepacked`](Panels::prepacked) answers (then X is never packed; its panels
    /// are MR wide, for the role the kernel vectorises, where the engine puts it).
    fn is_prepacked(&self) -> bool {
        false
    }
    /// X read where it is, for a kernel that reads its broadcast operand in place
    /// ([`InPlace`](super::kernel::InPlace)); every element it names is inside the operand.
    /// `None` for sources that must pack (a conversion on the way, or a strided operand whose
    /// k steps are not contiguous: its packing is a plain copy).
    fn in_place(&self) -> Option<Where<'_, P>> {
        None
    }
    /// X read where it is as the kernel's vectorised operand
    /// ([`KernelInfo::in_place_a`](super::kernel::KernelInfo::in_place_a)): `(base, sk)` with
    /// X(v, p) at `base.offset(v + p·sk)` (its rows contiguous, any k stride), every such
    /// element of X inside the operand. `None` for sources that must pack.
    fn vectors(&self) -> Option<(*const P, isize)> {
        None
    }
}

/// Where the elements of an operand read in place are ([`Panels::in_place`]).
#[derive(Clone, Copy)]
pub(crate) enum Where<'a, P> {
    /// X(v, p) at `base.offset(rows.off[v] + cols.off[p])` (any affine layout).
    Mapped(*const P, Mapped<'a>),
    /// X(v, p) at `base.offset(v·sv + p)`: strided, k contiguous (packing it would be a
    /// transpose).
    Strided(*const P, isize),
}

/// The layout of a micro-panel of `r` rows by `k` reduction steps packed `kstep` values of k
/// per step (see [`Panels::pack`]): `(r, (kstep, ⌈k/kstep⌉)) : (kstep, (1, kstep·r))`, or
/// `(r, k) : (1, r)` for one value per step.
pub(crate) fn panel_layout(
    kstep: usize,
    r: usize,
    k: usize,
) -> Result<crate::DynLayout, crate::LayoutError> {
    let big = |x: usize| {
        i64::try_from(x).map_err(|_| crate::LayoutError::Overflow {
            what: "a panel extent",
        })
    };
    let (ri, ki) = (big(r)?, big(k)?);
    let text = if kstep == 1 {
        std::format!("({ri},{ki}):(1,{ri})")
    } else {
        let (s, q) = (kstep as i64, big(k.div_ceil(kstep))?);
        std::format!(
            "({ri},({s},{q})):({s},(1,{}))",
            ri.checked_mul(s).ok_or(crate::LayoutError::Overflow {
                what: "a panel extent"
            })?
        )
    };
    text.parse()
}

impl<T: Element> Panels<T> for Rows<'_, T> {
    fn pack(&self, dst: &mut [T], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        pack(dst, *self, v0, p0, len, kc, r)
    }
    fn in_place(&self) -> Option<Where<'_, T>> {
        // an operand of any affine layout: every `origin + rows.off[v] + cols.off[p]` indexes
        // `src` (its axis maps were built from the tensor's own layout, checked against its
        // storage when the tensor was made); a strided one: every `origin + v·sv + p·sk`
        // (checked by `check_operand`)
        let base = self.src.as_ptr().wrapping_offset(self.origin);
        match self.map {
            Some(mp) => Some(Where::Mapped(base, mp)),
            None if self.sk == 1 => Some(Where::Strided(base, self.sv)),
            None => None,
        }
    }
    fn vectors(&self) -> Option<(*const T, isize)> {
        // a strided operand whose rows are contiguous: every `origin + v + p·sk` indexes `src`
        // (checked by `check_operand`)
        match self.map {
            None if self.sv == 1 => Some((self.src.as_ptr().wrapping_offset(self.origin), self.sk)),
            _ => None,
        }
    }
}

/// One operand as the packer reads it, for every element pair (each pair's packer implements
/// [`Panels`] on it: copies for the float pairs, k pairs for the integer ones, widening for
/// 16-bit floats): element (v, p) — v along the packed dimension, p along k — is
/// `src[origin + v·sv + p·sk]`.
#[derive(Clone, Copy)]
pub(crate) struct Rows<'a, T> {
    pub src: &'a [T],
    pub origin: isize,
    /// Stride along the packed (vectorised) dimension.
    pub sv: isize,
    /// Stride along k.
    pub sk: isize,
    /// For an operand of any affine layout: its axis maps (rows along the packed dimension,
    /// columns along k); then element (v, p) is `src[origin + rows.off[v] + cols.off[p]]` and
    /// `sv`, `sk` are unused.
    pub map: Option<Mapped<'a>>,
    /// The packer may convert with vector instructions (AVX2 and F16C; widening packers only).
    pub simd: bool,
}

impl<T> Rows<'_, T> {
    /// Where row `v` starts (element (v, 0), relative to the slice).
    #[inline(always)]
    pub fn row(&self, v: usize) -> isize {
        match self.map {
            Some(mp) => self.origin + mp.rows.off[v],
            None => self.origin + v as isize * self.sv,
        }
    }
    /// The offset of k step `p` from the start of a row.
    #[inline(always)]
    pub fn col(&self, p: usize) -> isize {
        match self.map {
            Some(mp) => mp.cols.off[p],
            None => p as isize * self.sk,
        }
    }
}

/// Packs rows `v0 .. v0 + len` and k steps `p0 .. p0 + kc` of `s` into `dst` as micro-panels of
/// `r` rows. `dst` holds at least `⌈len/r⌉·r·kc` elements.
///
/// # Panics
/// Never for indices the caller has bounds-checked with `check_operand` (every (v, p) inside the
/// operand); the indexing is checked anyway, so a bug here panics rather than reading out of
/// bounds.
pub(crate) fn pack<T: Element>(
    dst: &mut [T],
    s: Rows<'_, T>,
    v0: usize,
    p0: usize,
    len: usize,
    kc: usize,
    r: usize,
) {
    if let Some(mp) = s.map {
        return pack_mapped(dst, s, mp, v0, p0, len, kc, r);
    }
    let panels = len.div_ceil(r);
    // unit stride along the packed dimension: the whole panels row by row, a group at a time
    let grouped = if s.sv == 1 && len >= 2 * r {
        grouped(dst, s, v0, p0, len / r, kc, r)
    } else {
        0
    };
    for (pi, panel) in dst[..panels * r * kc]
        .chunks_exact_mut(r * kc)
        .enumerate()
        .skip(grouped)
    {
        let vbase = v0 + pi * r;
        let rows = r.min(len - pi * r);
        let first = s.origin + vbase as isize * s.sv + p0 as isize * s.sk;
        if s.sv == 1 && rows == r {
            // unit stride along the packed dimension: one contiguous copy per k step, of a
            // compile-time length for the kernels' R (inline moves instead of a memcpy call)
            if runs_zmm(panel, s, first, r, kc) {
                // done: whole zmm moves (`runs_zmm`)
                continue;
            }
            match r {
                32 => runs::<T, 32>(panel, s, first),
                16 => runs::<T, 16>(panel, s, first),
                12 => runs::<T, 12>(panel, s, first),
                8 => runs::<T, 8>(panel, s, first),
                6 => runs::<T, 6>(panel, s, first),
                4 => runs::<T, 4>(panel, s, first),
                _ => {
                    for (p, out) in panel.chunks_exact_mut(r).enumerate() {
                        let at = (first + p as isize * s.sk) as usize;
                        out.copy_from_slice(&s.src[at..at + r]);
                    }
                }
            }
        } else if s.sk == 1
            && rows == 6
            && r == 6
            && in_bounds(s, first, rows, kc)
            && six(s, first, kc, panel)
        {
            // done: six rows through AVX registers (`six`)
        } else if s.sk == 1 && in_bounds(s, first, rows, kc) {
            // unit stride along k: a transpose of `rows` rows by `kc` steps into the panel
            // (panel row i, step p at `p·r + i`), through the copy engine's SIMD transposes
            // (Zen 5, sgemm with row-major A: 2048×64×2048 39 → 64 GFLOP/s, 1024³ +6 %)
            // SAFETY: every source element `first + i·sv + p` (`i < rows`, `p < kc`) lies in
            // `s.src` (`in_bounds`), every destination `p·r + i` in `panel` (`r·kc` elements,
            // `rows ≤ r`); `panel` is a `&mut` slice, distinct from the source.
            unsafe {
                transpose(
                    panel.as_mut_ptr(),
                    r as isize,
                    s.src.as_ptr().offset(first),
                    s.sv,
                    rows,
                    kc,
                    false,
                )
            };
            if rows < r {
                for out in panel.chunks_exact_mut(r) {
                    out[rows..].fill(T::ZERO);
                }
            }
        } else if s.sk == 1 {
            // (not reached for operands checked by `check_operand`: kept as the bounds-checked
            // fallback) unit stride along k: read each row contiguously, scatter with stride r
            for i in 0..rows {
                let at = (first + i as isize * s.sv) as usize;
                for (p, &x) in s.src[at..at + kc].iter().enumerate() {
                    panel[p * r + i] = x;
                }
            }
            if rows < r {
                for out in panel.chunks_exact_mut(r) {
                    out[rows..].fill(T::ZERO);
                }
            }
        } else {
            for (p, out) in panel.chunks_exact_mut(r).enumerate() {
                let at = first + p as isize * s.sk;
                for (i, o) in out[..rows].iter_mut().enumerate() {
                    *o = s.src[(at + i as isize * s.sv) as usize];
                }
                out[rows..].fill(T::ZERO);
            }
        }
    }
}

/// [`pack`] for an operand read through its axis maps: each panel is cut into the rectangles
/// where both maps run arithmetically (an NZ fractal's rows by its C0 columns, a blocked
/// format's tile rows), and each rectangle moves as a strided block: contiguous copies when
/// unit stride along the panel, the copy engine's SIMD transposes when unit stride along k.
#[allow(clippy::too_many_arguments)]
fn pack_mapped<T: Element>(
    dst: &mut [T],
    s: Rows<'_, T>,
    mp: Mapped<'_>,
    v0: usize,
    p0: usize,
    len: usize,
    kc: usize,
    r: usize,
) {
    let panels = len.div_ceil(r);
    // whether the fractal squares go through registers (decided once per call)
    #[cfg(target_arch = "x86_64")]
    let simd = crate::isa::Isa::selected() >= crate::isa::Isa::Avx2;
    #[cfg(not(target_arch = "x86_64"))]
    let simd = false;
    for (pi, panel) in dst[..panels * r * kc].chunks_exact_mut(r * kc).enumerate() {
        let vbase = v0 + pi * r;
        let rows = r.min(len - pi * r);
        if rows < r {
            for out in panel.chunks_exact_mut(r) {
                out[rows..].fill(T::ZERO);
            }
        }
        let mut i = 0;
        while i < rows {
            let vi = vbase + i;
            let li = (mp.rows.run[vi] as usize).min(rows - i);
            let sv = mp.rows.step(vi);
            let mut p = 0;
            while p < kc {
                let pk = p0 + p;
                let lp = (mp.cols.run[pk] as usize).min(kc - p);
                let sk = mp.cols.step(pk);
                let first = s.origin + mp.rows.off[vi] + mp.cols.off[pk];
                let b = Rows {
                    src: s.src,
                    origin: first,
                    sv,
                    sk,
                    map: None,
                    simd: false,
                };
                rect(&mut panel[p * r + i..], r, b, li, lp, simd);
                p += lp;
            }
            i += li;
        }
    }
}

/// `out[q·ld + t] = src[origin + t·sv + q·sk]` for `t < rows`, `q < cols`: one strided
/// rectangle of an operand into a panel whose k steps are `ld` apart.
/// `simd`: AVX2 may move an NZ fractal's squares through registers ([`fractal_simd`]).
fn rect<T: Element>(
    out: &mut [T],
    ld: usize,
    b: Rows<'_, T>,
    rows: usize,
    cols: usize,
    simd: bool,
) {
    #[cfg(not(target_arch = "x86_64"))]
    let _ = simd;
    if b.sv == 1 {
        // runs of a compile-time length where the layout's runs are a vector or two (an
        // interleaved format's 4 or 8 rows): inline moves instead of a `memcpy` call per run
        match rows {
            4 => down_runs::<T, 4>(out, ld, b, cols),
            8 => down_runs::<T, 8>(out, ld, b, cols),
            16 => down_runs::<T, 16>(out, ld, b, cols),
            _ => {
                for q in 0..cols {
                    let at = (b.origin + q as isize * b.sk) as usize;
                    out[q * ld..q * ld + rows].copy_from_slice(&b.src[at..at + rows]);
                }
            }
        }
    } else if b.sk == 1
        && (rows * cols < 256 || fractal_rows(simd, b, cols))
        && out.len() >= (cols - 1) * ld + rows
    {
        // a small block with contiguous source rows (an NZ fractal's C0 columns): read each
        // source row once, write it down the panel (the transpose kernel's set-up costs more
        // than the block); whole 8 × 8 f32 / 4 × 4 f64 squares through registers on AVX2, for
        // blocks of any height (a compact ZN B's rows run arithmetically over its whole n, so
        // an f32 32-row panel is one 32 × 8 block: through the copy engine's transpose it was
        // a tenth of a 64³ NZ × ZN call)
        #[cfg(target_arch = "x86_64")]
        if simd && fractal_simd::<T>(cols) && b.sv >= cols as isize {
            // the block's source rows `t·sv .. t·sv + cols` (`t < rows`), bounds-checked
            let at = b.origin as usize;
            let src = &b.src[at..at + (rows - 1) * b.sv as usize + cols];
            // a contiguous block (a compact ZN B: its rows one after another) on AVX-512: whole
            // groups of 16 (f32) / 8 (f64) rows as zmm transposes (`down_zmm`), the rest below
            let done = if b.sv == cols as isize && zmm_rows() {
                // SAFETY: AVX-512F is available (`zmm_rows`), `T` is f32 by 8 or f64 by 4
                // (`fractal_simd`), the block's `rows·cols` elements are `src` (sv = cols), every
                // destination `q·ld + t` (`t < rows`) is in `out` (checked above); `out` is a
                // `&mut` slice, distinct from the source.
                unsafe { down_zmm::<T>(out.as_mut_ptr(), ld, src.as_ptr(), rows) }
            } else {
                0
            };
            if done == rows {
                return;
            }
            let (src, out) = (&src[done * b.sv as usize..], &mut out[done..]);
            let rows = rows - done;
            // SAFETY: AVX2 is available (`simd`) and `T` is f32 by 8 or f64 by 4 (`fractal_simd`); every
            // source row lies in `src` (just sliced; rows do not overlap as sv ≥ cols), every
            // destination `q·ld + t` in `out` (`out.len() ≥ (cols − 1)·ld + rows`, checked
            // above); `out` is a `&mut` slice, distinct from the source.
            unsafe { down_simd::<T>(out.as_mut_ptr(), ld, src.as_ptr(), b.sv as usize, rows) };
            return;
        }
        match cols {
            4 => down::<T, 4>(out, ld, b, rows),
            8 => down::<T, 8>(out, ld, b, rows),
            16 => down::<T, 16>(out, ld, b, rows),
            _ => {
                let o = out.as_mut_ptr();
                for t in 0..rows {
                    let at = (b.origin + t as isize * b.sv) as usize;
                    for (q, &x) in b.src[at..at + cols].iter().enumerate() {
                        // SAFETY: `q·ld + t ≤ (cols − 1)·ld + rows − 1 < out.len()` (checked
                        // above).
                        unsafe { *o.add(q * ld + t) = x };
                    }
                }
            }
        }
    } else if b.sk == 1 && in_bounds(b, b.origin, rows, cols) && out.len() >= (cols - 1) * ld + rows
    {
        // SAFETY: every source element `origin + t·sv + q` (`t < rows`, `q < cols`) lies in
        // `b.src` (`in_bounds`), every destination `q·ld + t` in `out` (checked just above);
        // `out` is a `&mut` slice, distinct from the source.
        unsafe {
            transpose(
                out.as_mut_ptr(),
                ld as isize,
                b.src.as_ptr().offset(b.origin),
                b.sv,
                rows,
                cols,
                false,
            )
        };
    } else {
        for q in 0..cols {
            let at = b.origin + q as isize * b.sk;
            for (t, o) in out[q * ld..q * ld + rows].iter_mut().enumerate() {
                *o = b.src[(at + t as isize * b.sv) as usize];
            }
        }
    }
}

/// Whether a block of `cols` contiguous source columns whose rows are at least `cols` apart
/// goes through [`down_simd`] whatever its height (`simd`: AVX2 selected).
#[inline]
fn fractal_rows<T: Element>(simd: bool, b: Rows<'_, T>, cols: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    return simd && fractal_simd::<T>(cols) && b.sv >= cols as isize;
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (simd, b, cols);
        false
    }
}

/// Whether [`down_simd`] moves a block of `cols` contiguous source columns of `T` (with AVX2
/// selected, which the caller checks): f32 by 8 (Ascend's C0 for 4-byte elements) or f64 by 4.
#[cfg(target_arch = "x86_64")]
#[inline]
fn fractal_simd<T: Element>(cols: usize) -> bool {
    let w = core::mem::size_of::<T>();
    (w == 4 && cols == 8) || (w == 8 && cols == 4)
}

/// Whether [`down_zmm`] may run: the AVX-512 level is selected (decided once per process).
#[cfg(target_arch = "x86_64")]
#[inline]
fn zmm_rows() -> bool {
    static ZMM: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ZMM.get_or_init(|| crate::isa::Isa::selected() >= crate::isa::Isa::Avx512)
}

/// The lane indices of one `vpermt2ps`/`vpermt2pd` stage of [`down_zmm`] over vectors of
/// `lanes` lanes: the stage swaps a register bit with lane bit `lb` — the output of the pair
/// whose register bit is `hi` takes the lanes whose bit `lb` is `hi` from both inputs (the
/// first input's at index `l`, the second's at `lanes + l`) — and then (`last`) puts the
/// lanes in `n` order: lane `p` of the result is the stage's natural lane `q(p)`, whose top
/// bit is `p`'s lowest and whose other bits are `p`'s shifted down by one.
#[cfg(target_arch = "x86_64")]
const fn stage_idx(lanes: usize, lb: u32, hi: bool, last: bool) -> [i64; 16] {
    let mut idx = [0i64; 16];
    let bits = lanes.trailing_zeros();
    let bit = 1usize << lb;
    let mut p = 0;
    while p < lanes {
        let l = if last {
            ((p & 1) << (bits - 1)) | (p >> 1)
        } else {
            p
        };
        idx[p] = if !hi {
            if l & bit == 0 {
                l as i64
            } else {
                (lanes + (l & !bit)) as i64
            }
        } else if l & bit == 0 {
            (l | bit) as i64
        } else {
            (lanes + l) as i64
        };
        p += 1;
    }
    idx
}

/// One stage's index vector of 32-bit lanes ([`stage_idx`] over 16 lanes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn idx32(i: [i64; 16]) -> core::arch::x86_64::__m512i {
    use core::arch::x86_64::*;
    let v: [i32; 16] = core::array::from_fn(|l| i[l] as i32);
    // SAFETY: AVX-512F is enabled on this function; `v` is 64 readable bytes.
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

/// One stage's index vector of 64-bit lanes ([`stage_idx`] over 8 lanes).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn idx64(i: [i64; 16]) -> core::arch::x86_64::__m512i {
    use core::arch::x86_64::*;
    let v: [i64; 8] = core::array::from_fn(|l| i[l]);
    // SAFETY: AVX-512F is enabled on this function; `v` is 64 readable bytes.
    unsafe { _mm512_loadu_si512(v.as_ptr().cast()) }
}

/// [`down_simd`] for a contiguous block (rows `cols` apart: a compact ZN B's rows, 8 f32 or 4
/// f64 k values each) on AVX-512: whole groups of 16 f32 (8 f64) rows — one fractal of 128
/// f32, 32 f64 — loaded as 8 (4) zmm of two rows each and transposed by three (two) stages of
/// two-source lane permutes, each swapping a register bit with a lane bit, the last also
/// putting the lanes in row order: 24 (8) permutes and 8 (4) zmm stores of 16 (8) rows, one
/// per k step. Returns the rows done (a multiple of 16 / 8); the caller moves the rest. Bits
/// are moved, never computed on.
///
/// # Safety
/// AVX-512F is available; `T` is f32 or f64 ([`fractal_simd`]); `src` is readable for the
/// block's `rows·cols` elements and `out` writable for every `q·ld + t` (`q < cols`, `t <
/// rows`); the two do not overlap.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn down_zmm<T: Element>(out: *mut T, ld: usize, src: *const T, rows: usize) -> usize {
    use core::arch::x86_64::*;
    let mut t = 0;
    // SAFETY: (whole body) the caller's contract: every load reads 64 bytes of the block's
    // rows `t .. t + 16` (`t + 16 ≤ rows`), every store writes `out[q·ld + t ..][..16]`.
    unsafe {
        if core::mem::size_of::<T>() == 4 {
            let (o, s) = (out.cast::<f32>(), src.cast::<f32>());
            // register r = rows (2r, 2r + 1), lane = (row bit 0, k bits 2..0); three stages
            // swap register bit b with lane bit b (b = 2, 1, 0), the last reordering the lanes
            let i0 = [
                idx32(const { stage_idx(16, 2, false, false) }),
                idx32(const { stage_idx(16, 2, true, false) }),
            ];
            let i1 = [
                idx32(const { stage_idx(16, 1, false, false) }),
                idx32(const { stage_idx(16, 1, true, false) }),
            ];
            let i2 = [
                idx32(const { stage_idx(16, 0, false, true) }),
                idx32(const { stage_idx(16, 0, true, true) }),
            ];
            let stage = |x: [__m512; 8], b: usize, idx: &[__m512i; 2]| -> [__m512; 8] {
                let bit = 1 << b;
                core::array::from_fn(|r| {
                    let lo = r & !bit;
                    _mm512_permutex2var_ps(x[lo], idx[usize::from(r & bit != 0)], x[lo | bit])
                })
            };
            while t + 16 <= rows {
                let x: [__m512; 8] =
                    core::array::from_fn(|r| _mm512_loadu_ps(s.add(t * 8 + 16 * r)));
                let y = stage(stage(stage(x, 2, &i0), 1, &i1), 0, &i2);
                for (q, v) in y.into_iter().enumerate() {
                    _mm512_storeu_ps(o.add(q * ld + t), v);
                }
                t += 16;
            }
        } else {
            let (o, s) = (out.cast::<f64>(), src.cast::<f64>());
            // register r = rows (2r, 2r + 1), lane = (row bit 0, k bits 1..0): two stages
            let i0 = [
                idx64(const { stage_idx(8, 1, false, false) }),
                idx64(const { stage_idx(8, 1, true, false) }),
            ];
            let i1 = [
                idx64(const { stage_idx(8, 0, false, true) }),
                idx64(const { stage_idx(8, 0, true, true) }),
            ];
            let stage = |x: [__m512d; 4], b: usize, idx: &[__m512i; 2]| -> [__m512d; 4] {
                let bit = 1 << b;
                core::array::from_fn(|r| {
                    let lo = r & !bit;
                    _mm512_permutex2var_pd(x[lo], idx[usize::from(r & bit != 0)], x[lo | bit])
                })
            };
            while t + 8 <= rows {
                let x: [__m512d; 4] =
                    core::array::from_fn(|r| _mm512_loadu_pd(s.add(t * 4 + 8 * r)));
                let y = stage(stage(x, 1, &i0), 0, &i1);
                for (q, v) in y.into_iter().enumerate() {
                    _mm512_storeu_pd(o.add(q * ld + t), v);
                }
                t += 8;
            }
        }
    }
    t
}

/// The 8 × 8 transpose of 32-bit lanes: lane `j` of row `i` to lane `i` of row `j` (bits
/// moved, never computed on).
///
/// # Safety
/// AVX2 is available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
pub(crate) unsafe fn tr8(r: [core::arch::x86_64::__m256; 8]) -> [core::arch::x86_64::__m256; 8] {
    use core::arch::x86_64::*;
    let (t0, t1) = (
        _mm256_unpacklo_ps(r[0], r[1]),
        _mm256_unpackhi_ps(r[0], r[1]),
    );
    let (t2, t3) = (
        _mm256_unpacklo_ps(r[2], r[3]),
        _mm256_unpackhi_ps(r[2], r[3]),
    );
    let (t4, t5) = (
        _mm256_unpacklo_ps(r[4], r[5]),
        _mm256_unpackhi_ps(r[4], r[5]),
    );
    let (t6, t7) = (
        _mm256_unpacklo_ps(r[6], r[7]),
        _mm256_unpackhi_ps(r[6], r[7]),
    );
    let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
    let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
    let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
    let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
    let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
    let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
    let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
    let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
    [
        _mm256_permute2f128_ps::<0x20>(u0, u4),
        _mm256_permute2f128_ps::<0x20>(u1, u5),
        _mm256_permute2f128_ps::<0x20>(u2, u6),
        _mm256_permute2f128_ps::<0x20>(u3, u7),
        _mm256_permute2f128_ps::<0x31>(u0, u4),
        _mm256_permute2f128_ps::<0x31>(u1, u5),
        _mm256_permute2f128_ps::<0x31>(u2, u6),
        _mm256_permute2f128_ps::<0x31>(u3, u7),
    ]
}

/// `out[q·ld + t] = src[t·sv + q]` for `t < rows` and `q < 8` (4-byte `T`) or `q < 4` (8-byte
/// `T`): an NZ fractal's rows moved down a panel, eight (four) rows at a time as an in-register
/// square transpose, the rows left over as one more square with zero rows and masked stores.
/// Bits are moved, never computed on.
///
/// # Safety
/// AVX2 is available; `T` is f32 or f64 ([`fractal_simd`]); `src` is readable for every
/// `t·sv + q` and `out` writable for every `q·ld + t`; the two do not overlap.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn down_simd<T: Element>(out: *mut T, ld: usize, src: *const T, sv: usize, rows: usize) {
    use core::arch::x86_64::*;
    // SAFETY: (whole body) the caller's contract: every load reads a source row of the block,
    // every store writes a destination column segment of it.
    unsafe {
        let mut t = 0;
        if core::mem::size_of::<T>() == 4 {
            let (o, s) = (out.cast::<f32>(), src.cast::<f32>());
            // whole squares of 8 rows: each register holds half a row `i` beside the same half
            // of row `i + 4` (a 128-bit load and an insert from memory, which is a load, not a
            // shuffle), so two in-lane 4 × 4 transposes finish the square: 16 shuffles and 8
            // stores (the full-register transpose below takes 24 shuffles)
            while t + 8 <= rows {
                let row = |i: usize, h: usize| s.add((t + i) * sv + 4 * h);
                let halves = |h: usize| -> [__m256; 4] {
                    core::array::from_fn(|i| {
                        _mm256_insertf128_ps::<1>(
                            _mm256_castps128_ps256(_mm_loadu_ps(row(i, h))),
                            _mm_loadu_ps(row(i + 4, h)),
                        )
                    })
                };
                for h in 0..2 {
                    let x = halves(h);
                    let (t0, t1) = (
                        _mm256_unpacklo_ps(x[0], x[1]),
                        _mm256_unpackhi_ps(x[0], x[1]),
                    );
                    let (t2, t3) = (
                        _mm256_unpacklo_ps(x[2], x[3]),
                        _mm256_unpackhi_ps(x[2], x[3]),
                    );
                    let cols = [
                        _mm256_shuffle_ps::<0x44>(t0, t2),
                        _mm256_shuffle_ps::<0xEE>(t0, t2),
                        _mm256_shuffle_ps::<0x44>(t1, t3),
                        _mm256_shuffle_ps::<0xEE>(t1, t3),
                    ];
                    for (q, v) in cols.into_iter().enumerate() {
                        _mm256_storeu_ps(o.add((4 * h + q) * ld + t), v);
                    }
                }
                t += 8;
            }
            if t < rows {
                // the last block of `n < 8` rows (a 6-row B panel) reads only its rows, the
                // others zero, and stores `n` elements per column (masked stores: the lanes
                // past `n` are neither written nor touched)
                let n = rows - t;
                let r: [__m256; 8] = core::array::from_fn(|i| {
                    if i < n {
                        _mm256_loadu_ps(s.add((t + i) * sv))
                    } else {
                        _mm256_setzero_ps()
                    }
                });
                // lane i of the mask is set for i < n
                let mask = _mm256_cmpgt_epi32(
                    _mm256_set1_epi32(n as i32),
                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                );
                let cols = tr8(r);
                if t == 0 && ld == n && n >= 4 {
                    // the block is the whole panel (a 6-row B panel): each column's 8 lanes end
                    // where the next column starts, so plain stores in column order leave every
                    // element right (lanes past `n` land in the next column, which the next
                    // store rewrites; with n ≥ 4 the 7th column's store ends at 6n + 8 ≤ 8n,
                    // inside the block); only the last column is masked. (vmaskmov stores are
                    // microcoded and slow on AMD's Zen cores.)
                    for (q, v) in cols.into_iter().enumerate() {
                        if q < 7 {
                            _mm256_storeu_ps(o.add(q * ld), v);
                        } else {
                            _mm256_maskstore_ps(o.add(q * ld), mask, v);
                        }
                    }
                } else {
                    for (q, v) in cols.into_iter().enumerate() {
                        _mm256_maskstore_ps(o.add(q * ld + t), mask, v);
                    }
                }
            }
        } else {
            let (o, s) = (out.cast::<f64>(), src.cast::<f64>());
            while t < rows {
                // as for f32, the last block of `n < 4` rows through masked stores
                let n = (rows - t).min(4);
                let r = |i: usize| {
                    if i < n {
                        _mm256_loadu_pd(s.add((t + i) * sv))
                    } else {
                        _mm256_setzero_pd()
                    }
                };
                let (r0, r1, r2, r3) = (r(0), r(1), r(2), r(3));
                let (t0, t1) = (_mm256_unpacklo_pd(r0, r1), _mm256_unpackhi_pd(r0, r1));
                let (t2, t3) = (_mm256_unpacklo_pd(r2, r3), _mm256_unpackhi_pd(r2, r3));
                let cols = [
                    _mm256_permute2f128_pd::<0x20>(t0, t2),
                    _mm256_permute2f128_pd::<0x20>(t1, t3),
                    _mm256_permute2f128_pd::<0x31>(t0, t2),
                    _mm256_permute2f128_pd::<0x31>(t1, t3),
                ];
                if n == 4 {
                    for (q, v) in cols.into_iter().enumerate() {
                        _mm256_storeu_pd(o.add(q * ld + t), v);
                    }
                } else {
                    let mask = _mm256_cmpgt_epi64(
                        _mm256_set1_epi64x(n as i64),
                        _mm256_setr_epi64x(0, 1, 2, 3),
                    );
                    for (q, v) in cols.into_iter().enumerate() {
                        _mm256_maskstore_pd(o.add(q * ld + t), mask, v);
                    }
                }
                t += n;
            }
        }
    }
}

/// The small-block case of [`rect`] for `C` (a compile-time C0) contiguous source columns:
/// each source row read as one array, its `C` elements written down the panel.
#[inline(always)]
fn down<T: Element, const C: usize>(out: &mut [T], ld: usize, b: Rows<'_, T>, rows: usize) {
    assert!(out.len() >= (C - 1) * ld + rows, "a panel holds the block");
    let o = out.as_mut_ptr();
    for t in 0..rows {
        let at = (b.origin + t as isize * b.sv) as usize;
        let row: &[T; C] = b.src[at..at + C].try_into().expect("a row of C elements");
        for (q, &x) in row.iter().enumerate() {
            // SAFETY: `q·ld + t ≤ (C − 1)·ld + rows − 1 < out.len()` (asserted above).
            unsafe { *o.add(q * ld + t) = x };
        }
    }
}

/// `true` when every element `first + i·sv + p` (`i < rows`, `p < kc`) of a unit-k-stride
/// block is inside the operand's slice.
fn in_bounds<T>(s: Rows<'_, T>, first: isize, rows: usize, kc: usize) -> bool {
    if rows == 0 || kc == 0 {
        return false;
    }
    let Some(last) = (rows as isize - 1)
        .checked_mul(s.sv)
        .and_then(|x| x.checked_add(first))
    else {
        return false;
    };
    let (lo, hi) = (first.min(last), first.max(last));
    lo >= 0
        && hi
            .checked_add(kc as isize)
            .is_some_and(|e| e as usize <= s.src.len())
}

/// [`rect`] for unit-stride source rows of `R` elements: `out[q·ld + t] = src[origin + q·sk +
/// t]` for `t < R`, `q < cols`.
#[inline(always)]
fn down_runs<T: Element, const R: usize>(out: &mut [T], ld: usize, b: Rows<'_, T>, cols: usize) {
    for q in 0..cols {
        let at = (b.origin + q as isize * b.sk) as usize;
        let src: &[T; R] = b.src[at..at + R].try_into().expect("a run of R elements");
        let dst: &mut [T; R] = (&mut out[q * ld..q * ld + R])
            .try_into()
            .expect("a run of R elements");
        *dst = *src;
    }
}

/// Bytes of one source row a group of [`grouped`] panels spans.
const GROUP_BYTES: usize = 1024;

/// Packs the first `full` whole micro-panels of `r` rows (unit stride along the packed
/// dimension, `first` + v + p·sk) k step by k step across a group of panels spanning about
/// [`GROUP_BYTES`] of each source row, and returns how many it packed (0 for a panel height
/// with no compile-time copy). Panel by panel, each k step reads one short run (128 bytes
/// for 32 f32) a whole row stride from the last; along the group it reads a kibibyte in
/// order, which the hardware prefetcher follows. Zen 5, f32 with row-major operands (B packed
/// per call), best of 20 on a loaded machine: 16 × 1024 × 1024 127–129 → 148–155 GFLOP/s,
/// 64 × 2048 × 2048 149–157 → 171, 16 × 4096 × 4096 34–37 → 47–69.
fn grouped<T: Element>(
    dst: &mut [T],
    s: Rows<'_, T>,
    v0: usize,
    p0: usize,
    full: usize,
    kc: usize,
    r: usize,
) -> usize {
    #[cfg(target_arch = "x86_64")]
    if crate::isa::Isa::selected() >= crate::isa::Isa::Avx512 {
        // SAFETY: AVX-512 F is available (the selected level).
        return unsafe { grouped_avx512(dst, s, v0, p0, full, kc, r) };
    }
    grouped_any(dst, s, v0, p0, full, kc, r)
}

/// [`grouped`] compiled for AVX-512: the runs move as whole zmm.
///
/// # Safety
/// AVX-512 F is available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn grouped_avx512<T: Element>(
    dst: &mut [T],
    s: Rows<'_, T>,
    v0: usize,
    p0: usize,
    full: usize,
    kc: usize,
    r: usize,
) -> usize {
    grouped_any(dst, s, v0, p0, full, kc, r)
}

/// [`grouped`] for the instruction set it is compiled for.
#[inline(always)]
fn grouped_any<T: Element>(
    dst: &mut [T],
    s: Rows<'_, T>,
    v0: usize,
    p0: usize,
    full: usize,
    kc: usize,
    r: usize,
) -> usize {
    match r {
        32 => grouped_runs::<T, 32>(dst, s, v0, p0, full, kc),
        16 => grouped_runs::<T, 16>(dst, s, v0, p0, full, kc),
        12 => grouped_runs::<T, 12>(dst, s, v0, p0, full, kc),
        8 => grouped_runs::<T, 8>(dst, s, v0, p0, full, kc),
        6 => grouped_runs::<T, 6>(dst, s, v0, p0, full, kc),
        4 => grouped_runs::<T, 4>(dst, s, v0, p0, full, kc),
        _ => return 0,
    }
    full
}

/// [`grouped`] for a panel height `R` known at compile time.
#[inline(always)]
fn grouped_runs<T: Element, const R: usize>(
    dst: &mut [T],
    s: Rows<'_, T>,
    v0: usize,
    p0: usize,
    full: usize,
    kc: usize,
) {
    let group = (GROUP_BYTES / (R * core::mem::size_of::<T>())).max(1);
    let mut g0 = 0;
    while g0 < full {
        let np = group.min(full - g0);
        let first = s.origin + (v0 + g0 * R) as isize + p0 as isize * s.sk;
        let out = &mut dst[g0 * R * kc..(g0 + np) * R * kc];
        for p in 0..kc {
            let at = (first + p as isize * s.sk) as usize;
            let src = &s.src[at..at + np * R];
            for (j, run) in src.chunks_exact(R).enumerate() {
                let o = j * R * kc + p * R;
                let run: &[T; R] = run.try_into().expect("a run of R elements");
                let to: &mut [T; R] = (&mut out[o..o + R])
                    .try_into()
                    .expect("a run of R elements");
                *to = *run;
            }
        }
        g0 += np;
    }
}

/// Copies one micro-panel whose rows are unit stride: `R` elements per k step.
#[inline(always)]
fn runs<T: Element, const R: usize>(panel: &mut [T], s: Rows<'_, T>, first: isize) {
    for (p, out) in panel.chunks_exact_mut(R).enumerate() {
        let at = (first + p as isize * s.sk) as usize;
        let src: &[T; R] = s.src[at..at + R].try_into().expect("a run of R elements");
        let out: &mut [T; R] = out.try_into().expect("a run of R elements");
        *out = *src;
    }
}

/// [`runs`] through zmm registers on AVX-512, for a micro-panel of `r` rows that is a whole
/// number of 64-byte vectors per k step (the AVX-512 f32 and f64 MR = 32: two and four zmm):
/// one zmm load and store per 64 bytes instead of the baseline's 16-byte moves (Zen 5, a
/// row-major B packed as the vectorised operand at 256³ was 5 % of the call). `false` (nothing
/// written) where AVX-512 is not selected, the width does not fit, or a step would leave the
/// operand's slice.
fn runs_zmm<T: Element>(
    panel: &mut [T],
    s: Rows<'_, T>,
    first: isize,
    r: usize,
    kc: usize,
) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let bytes = r * core::mem::size_of::<T>();
        let zmm = bytes / 64;
        if !matches!(zmm, 1 | 2 | 4)
            || !bytes.is_multiple_of(64)
            || kc == 0
            || panel.len() < r * kc
            || crate::isa::Isa::selected() < crate::isa::Isa::Avx512
        {
            return false;
        }
        // the first and last step's runs inside the slice (steps between them lie between)
        let last = (kc as isize - 1)
            .checked_mul(s.sk)
            .and_then(|x| x.checked_add(first));
        let inside = |at: isize| {
            at >= 0
                && (at as usize)
                    .checked_add(r)
                    .is_some_and(|e| e <= s.src.len())
        };
        if !last.is_some_and(|l| inside(first) && inside(l)) {
            return false;
        }
        let w = core::mem::size_of::<T>() as isize;
        // SAFETY: AVX-512 F is available (the selected level); every step's run `first + p·sk
        // .. + r` (`p < kc`) lies in `s.src` (its first and last do, and the others lie between
        // them), every destination `p·r .. p·r + r` in `panel` (`r·kc` elements); `panel` is a
        // `&mut` slice, distinct from the source; `r` elements are `zmm` whole vectors.
        unsafe {
            let src = s.src.as_ptr().offset(first).cast::<u8>();
            let dst = panel.as_mut_ptr().cast::<u8>();
            match zmm {
                1 => runs512::<1>(dst, src, s.sk * w, kc),
                2 => runs512::<2>(dst, src, s.sk * w, kc),
                _ => runs512::<4>(dst, src, s.sk * w, kc),
            }
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (panel, s, first, r, kc);
        false
    }
}

/// `Z` zmm of bytes per k step: `dst[p·64Z ..][..64Z] = src[p·sk ..][..64Z]` for `p < kc`,
/// two steps per round.
///
/// # Safety
/// AVX-512 F is available; `src + p·sk` readable and `dst + p·64Z` writable for `64·Z` bytes,
/// `p < kc`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn runs512<const Z: usize>(dst: *mut u8, src: *const u8, sk: isize, kc: usize) {
    use core::arch::x86_64::*;
    // SAFETY: (whole body) the caller's contract bounds every load (step p's run) and store.
    unsafe {
        let mut p = 0;
        while p + 2 <= kc {
            let (s0, s1) = (
                src.offset(p as isize * sk),
                src.offset((p + 1) as isize * sk),
            );
            let v0: [__m512; Z] = core::array::from_fn(|z| _mm512_loadu_ps(s0.add(64 * z).cast()));
            let v1: [__m512; Z] = core::array::from_fn(|z| _mm512_loadu_ps(s1.add(64 * z).cast()));
            let d = dst.add(p * 64 * Z);
            for (z, &v) in v0.iter().enumerate() {
                _mm512_storeu_ps(d.add(64 * z).cast(), v);
            }
            for (z, &v) in v1.iter().enumerate() {
                _mm512_storeu_ps(d.add(64 * (Z + z)).cast(), v);
            }
            p += 2;
        }
        if p < kc {
            let s0 = src.offset(p as isize * sk);
            let d = dst.add(p * 64 * Z);
            for z in 0..Z {
                _mm512_storeu_ps(d.add(64 * z).cast(), _mm512_loadu_ps(s0.add(64 * z).cast()));
            }
        }
    }
}

/// Packs six rows of unit stride along k (`first + i·sv + p`, all in bounds) into the
/// micro-panel `panel` (`p·6 + i`) through AVX registers, for f32 and f64 on x86-64 with AVX:
/// the copy engine's transposes work in 8 × 8 (4 × 4) squares and leave a six-row strip (the
/// AVX2 kernels' NR) to their scalar edge. `false` (nothing written) elsewhere.
#[allow(unused_variables)]
fn six<T: Element>(s: Rows<'_, T>, first: isize, kc: usize, panel: &mut [T]) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        if crate::isa::Isa::selected() < crate::isa::Isa::Avx2 {
            return false;
        }
        let w = core::mem::size_of::<T>();
        debug_assert!(panel.len() >= 6 * kc);
        // SAFETY: the caller checked every `first + i·sv + p` (i < 6, p < kc) inside `s.src`
        // (`in_bounds`); `panel` holds 6·kc elements; AVX is available (the selected level is
        // AVX2 or better); `T` is f32 or f64 (sealed `Element`), re-typed by its width.
        unsafe {
            let src = s.src.as_ptr().offset(first);
            let dst = panel.as_mut_ptr();
            match w {
                4 => six32(src.cast(), s.sv, kc, dst.cast()),
                8 => six64(src.cast(), s.sv, kc, dst.cast()),
                _ => return false,
            }
        }
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// [`six`] for f32: eight k steps per round (six row loads, a 4 × 8 and a 2 × 8 transpose).
///
/// # Safety
/// `src + i·sv + p` readable and `dst + p·6 + i` writable for `i < 6`, `p < kc`; AVX available.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn six32(src: *const f32, sv: isize, kc: usize, dst: *mut f32) {
    use core::arch::x86_64::*;
    // SAFETY: (whole body) the caller's contract bounds every load (row i, steps p .. p + 8
    // with p + 8 ≤ kc) and store (steps p .. p + 8 of the panel); the shuffles move bits only.
    unsafe {
        let mut p = 0;
        while p + 8 <= kc {
            let r: [__m256; 6] =
                core::array::from_fn(|i| _mm256_loadu_ps(src.offset(i as isize * sv).add(p)));
            let (t0, t1) = (
                _mm256_unpacklo_ps(r[0], r[1]),
                _mm256_unpackhi_ps(r[0], r[1]),
            );
            let (t2, t3) = (
                _mm256_unpacklo_ps(r[2], r[3]),
                _mm256_unpackhi_ps(r[2], r[3]),
            );
            // rows 0-3 of steps (0, 4), (1, 5), (2, 6), (3, 7) in the low and high halves
            let u = [
                _mm256_shuffle_ps::<0x44>(t0, t2),
                _mm256_shuffle_ps::<0xEE>(t0, t2),
                _mm256_shuffle_ps::<0x44>(t1, t3),
                _mm256_shuffle_ps::<0xEE>(t1, t3),
            ];
            // rows 4-5 as 64-bit pairs: steps (0, 1, 4, 5) and (2, 3, 6, 7)
            let v0 = _mm256_castps_pd(_mm256_unpacklo_ps(r[4], r[5]));
            let v1 = _mm256_castps_pd(_mm256_unpackhi_ps(r[4], r[5]));
            let out = dst.add(p * 6);
            for (q, &uq) in u.iter().enumerate() {
                let lo = _mm256_castps256_ps128(uq);
                let hi = _mm256_extractf128_ps::<1>(uq);
                _mm_storeu_ps(out.add(q * 6), lo);
                _mm_storeu_ps(out.add((q + 4) * 6), hi);
            }
            let (v0l, v0h) = (_mm256_castpd256_pd128(v0), _mm256_extractf128_pd::<1>(v0));
            let (v1l, v1h) = (_mm256_castpd256_pd128(v1), _mm256_extractf128_pd::<1>(v1));
            let pair = |q: usize| out.add(q * 6 + 4).cast::<f64>();
            _mm_storel_pd(pair(0), v0l);
            _mm_storeh_pd(pair(1), v0l);
            _mm_storel_pd(pair(4), v0h);
            _mm_storeh_pd(pair(5), v0h);
            _mm_storel_pd(pair(2), v1l);
            _mm_storeh_pd(pair(3), v1l);
            _mm_storel_pd(pair(6), v1h);
            _mm_storeh_pd(pair(7), v1h);
            p += 8;
        }
        for p in p..kc {
            for i in 0..6 {
                *dst.add(p * 6 + i) = *src.offset(i as isize * sv).add(p);
            }
        }
    }
}

/// [`six`] for f64: four k steps per round (six row loads, a 4 × 4 and a 2 × 4 transpose).
///
/// # Safety
/// As [`six32`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn six64(src: *const f64, sv: isize, kc: usize, dst: *mut f64) {
    use core::arch::x86_64::*;
    // SAFETY: (whole body) as in `six32`, four steps per round.
    unsafe {
        let mut p = 0;
        while p + 4 <= kc {
            let r: [__m256d; 6] =
                core::array::from_fn(|i| _mm256_loadu_pd(src.offset(i as isize * sv).add(p)));
            let (t0, t1) = (
                _mm256_unpacklo_pd(r[0], r[1]),
                _mm256_unpackhi_pd(r[0], r[1]),
            );
            let (t2, t3) = (
                _mm256_unpacklo_pd(r[2], r[3]),
                _mm256_unpackhi_pd(r[2], r[3]),
            );
            let o = [
                _mm256_permute2f128_pd::<0x20>(t0, t2),
                _mm256_permute2f128_pd::<0x20>(t1, t3),
                _mm256_permute2f128_pd::<0x31>(t0, t2),
                _mm256_permute2f128_pd::<0x31>(t1, t3),
            ];
            let (v0, v1) = (
                _mm256_unpacklo_pd(r[4], r[5]),
                _mm256_unpackhi_pd(r[4], r[5]),
            );
            let w = [
                _mm256_castpd256_pd128(v0),
                _mm256_castpd256_pd128(v1),
                _mm256_extractf128_pd::<1>(v0),
                _mm256_extractf128_pd::<1>(v1),
            ];
            let out = dst.add(p * 6);
            for (q, (&oq, &wq)) in o.iter().zip(&w).enumerate() {
                _mm256_storeu_pd(out.add(q * 6), oq);
                _mm_storeu_pd(out.add(q * 6 + 4), wq);
            }
            p += 4;
        }
        for p in p..kc {
            for i in 0..6 {
                *dst.add(p * 6 + i) = *src.offset(i as isize * sv).add(p);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Rows, pack};

    /// Six-row strips of unit stride along k (`six32` / `six64` on AVX2, the copy engine
    /// elsewhere) against the definition `dst[t·6·kc + p·6 + i] = X[v0 + t·6 + i][p0 + p]`, for
    /// every k extent up to 40 (the 8- and 4-step rounds and every tail), several row strides
    /// and offsets, one and two panels, with the buffer past the panels untouched.
    fn six_rows<T: super::Element + From<u16>>() {
        for kc in 1..=40usize {
            for extra in [0usize, 1, 7] {
                let sv = kc + extra + 2; // row stride (elements): a k-contiguous operand
                for (v0, p0, len) in [(0, 0, 6), (1, 2, 6), (0, 1, 12), (3, 0, 12)] {
                    let rows = v0 + len;
                    let src: std::vec::Vec<T> = (0..rows * sv)
                        .map(|x| T::from((x % 60_000) as u16 + 1))
                        .collect();
                    let s = Rows {
                        src: &src,
                        origin: 0,
                        sv: sv as isize,
                        sk: 1,
                        map: None,
                        simd: false,
                    };
                    let canary = T::from(0);
                    let mut dst = std::vec![canary; len * kc + 9];
                    pack(&mut dst, s, v0, p0, len, kc.min(sv - p0), 6);
                    let kc = kc.min(sv - p0);
                    for t in 0..len / 6 {
                        for p in 0..kc {
                            for i in 0..6 {
                                assert_eq!(
                                    dst[t * 6 * kc + p * 6 + i],
                                    src[(v0 + t * 6 + i) * sv + p0 + p],
                                    "kc {kc} sv {sv} v0 {v0} p0 {p0} panel {t} step {p} row {i}"
                                );
                            }
                        }
                    }
                    assert!(dst[len * kc..].iter().all(|&x| x == canary), "kc {kc}");
                }
            }
        }
    }

    #[test]
    fn six_row_panels_match_the_definition() {
        six_rows::<f32>();
        six_rows::<f64>();
    }

    /// A compact ZN B read through its axis maps (X = Bᵀ: row `v` at `v·c0`, k in runs of
    /// `c0` contiguous values, the runs `c0·n` apart), packed into panels of every kernel
    /// height against the definition: whole fractals of rows through `down_zmm` on AVX-512,
    /// the rows left over (n not a multiple of 16, panels of 6 and 12, a start `v0` inside a
    /// fractal) through `down_simd` or the scalar copies, k blocks starting inside a run and
    /// ending inside one; the buffer past the panels untouched.
    fn zn_rows<T: super::Element + From<u16>>(c0: usize) {
        use super::super::maps::{AxisMap, Mapped};
        for n in [1usize, 7, 16, 17, 32, 40, 64, 70] {
            for k in [c0, 3 * c0, 5 * c0] {
                let src: std::vec::Vec<T> = (0..n * k).map(|x| T::from(x as u16 + 1)).collect();
                let rows = AxisMap::new("t", &[n as i64], &[c0 as i64]).unwrap();
                let cols = AxisMap::new("t", &[c0 as i64, (k / c0) as i64], &[1, (c0 * n) as i64])
                    .unwrap();
                let at = |v: usize, p: usize| (rows.off[v] + cols.off[p]) as usize;
                let s = Rows {
                    src: &src,
                    origin: 0,
                    sv: 0,
                    sk: 0,
                    map: Some(Mapped {
                        rows: &rows,
                        cols: &cols,
                    }),
                    simd: false,
                };
                for r in [32usize, 16, 12, 8, 6] {
                    for (v0, p0) in [(0, 0), (1, 1), (16, c0 / 2)] {
                        if v0 >= n {
                            continue;
                        }
                        let (len, kc) = (n - v0, k - p0 - usize::from(p0 > 0));
                        let panels = len.div_ceil(r);
                        let canary = T::from(0);
                        let mut dst = std::vec![canary; panels * r * kc + 9];
                        pack(&mut dst, s, v0, p0, len, kc, r);
                        for t in 0..panels {
                            for p in 0..kc {
                                for i in 0..r {
                                    let v = v0 + t * r + i;
                                    let want = if v < n { src[at(v, p0 + p)] } else { canary };
                                    assert_eq!(
                                        dst[t * r * kc + p * r + i],
                                        want,
                                        "c0 {c0} n {n} k {k} r {r} v0 {v0} p0 {p0}: \
                                         panel {t} step {p} row {i}"
                                    );
                                }
                            }
                        }
                        assert!(dst[panels * r * kc..].iter().all(|&x| x == canary));
                    }
                }
            }
        }
    }

    #[test]
    fn zn_panels_match_the_definition() {
        zn_rows::<f32>(8);
        zn_rows::<f64>(4);
    }

    /// Checks `pack` of rows `v0 .. v0 + len`, steps `p0 .. p0 + kc` of `s` (element (v, p) at
    /// `at(v, p)`) into panels of `r` rows against the definition: panel `t`, step `p`, row `i`
    /// holds `X[v0 + t·r + i][p0 + p]`, zero past `len`; the buffer past the panels untouched.
    #[allow(clippy::too_many_arguments)]
    fn against_definition<T: super::Element + From<u16>>(
        s: Rows<'_, T>,
        at: impl Fn(usize, usize) -> usize,
        v0: usize,
        p0: usize,
        len: usize,
        kc: usize,
        r: usize,
        what: &str,
    ) {
        let canary = T::from(60_001);
        let panels = len.div_ceil(r);
        let mut dst = std::vec![canary; panels * r * kc + 9];
        pack(&mut dst, s, v0, p0, len, kc, r);
        for t in 0..panels {
            for p in 0..kc {
                for i in 0..r {
                    let v = t * r + i;
                    let want = if v < len {
                        s.src[at(v0 + v, p0 + p)]
                    } else {
                        T::from(0)
                    };
                    assert_eq!(
                        dst[t * r * kc + p * r + i],
                        want,
                        "{what}: v0 {v0} p0 {p0} len {len} kc {kc} r {r}: panel {t} step {p} row {i}"
                    );
                }
            }
        }
        assert!(
            dst[panels * r * kc..].iter().all(|&x| x == canary),
            "{what}: past the panels"
        );
    }

    /// Unit-stride rows (a row-major B as the vectorised operand): whole zmm moves per k step
    /// on AVX-512 (`runs_zmm`: 16, 32 rows of f32, 8, 16, 32 of f64), the inline copies
    /// elsewhere; k steps apart by more than a row, backwards (a negative k stride), odd k
    /// extents (the two-step rounds' tail), a partial last panel.
    fn unit_rows<T: super::Element + From<u16>>() {
        for r in [8usize, 12, 16, 32] {
            for (kc, p0) in [(1usize, 0usize), (2, 1), (7, 0), (40, 3)] {
                for len in [r, 2 * r, 2 * r + 5] {
                    let v0 = 3;
                    let sk = v0 + len + 11;
                    let k = p0 + kc;
                    let src: std::vec::Vec<T> = (0..k * sk)
                        .map(|x| T::from((x % 60_000) as u16 + 1))
                        .collect();
                    for back in [false, true] {
                        // backwards: step p at `(k − 1 − p)·sk`
                        let (origin, skk) = if back {
                            (((k - 1) * sk) as isize, -(sk as isize))
                        } else {
                            (0, sk as isize)
                        };
                        let s = Rows {
                            src: &src,
                            origin,
                            sv: 1,
                            sk: skk,
                            map: None,
                            simd: false,
                        };
                        let at =
                            |v: usize, p: usize| (origin + v as isize + p as isize * skk) as usize;
                        against_definition(s, at, v0, p0, len, kc, r, "unit rows");
                    }
                }
            }
        }
    }

    #[test]
    fn unit_stride_panels_match_the_definition() {
        unit_rows::<f32>();
        unit_rows::<f64>();
    }

    /// Mapped operands whose rows are runs: a blocked format's 8-element tile rows (rows
    /// `(8, nb) : (1, 64)`, k `(8, kb) : (8, 8·nb·8)`), a swizzled cell's permuted 8-element
    /// runs with a permuted k map, runs of 4 (f64 ymm) and of 3 (not a vector: the rectangles),
    /// whole and partial panels (the rectangles of `pack_mapped`).
    fn mapped_rows<T: super::Element + From<u16>>() {
        use crate::gemm::maps::{AxisMap, Mapped};
        for run in [3usize, 4, 8, 16] {
            let nb = 9; // row runs
            let rows: std::vec::Vec<isize> = (0..nb * run)
                .map(|v| {
                    // runs in a permuted order (the swizzle's): run g at slot g ^ 1
                    let (g, t) = (v / run, v % run);
                    let slot = if g ^ 1 < nb { g ^ 1 } else { g };
                    (slot * (run * 8) + t) as isize
                })
                .collect();
            let kn = 45;
            let cols: std::vec::Vec<isize> = (0..kn)
                .map(|p| {
                    ((p % 8) * run + (p / 8) * nb * run * 8 + if p % 16 >= 8 { 3 * run } else { 0 })
                        as isize
                })
                .collect();
            let (rmap, cmap) = (
                AxisMap::from_offsets(rows.clone()).unwrap(),
                AxisMap::from_offsets(cols.clone()).unwrap(),
            );
            let mp = Mapped {
                rows: &rmap,
                cols: &cmap,
            };
            let hi = rows.iter().max().unwrap() + cols.iter().max().unwrap() + 1;
            let src: std::vec::Vec<T> = (0..hi as usize + 5)
                .map(|x| T::from((x % 60_000) as u16 + 1))
                .collect();
            for origin in [0isize, 5] {
                let s = Rows {
                    src: &src,
                    origin,
                    sv: 0,
                    sk: 0,
                    map: Some(mp),
                    simd: false,
                };
                let at = |v: usize, p: usize| (origin + rows[v] + cols[p]) as usize;
                for (v0, len, r) in [
                    (0, 32, 32),
                    (run, 64, 32),
                    (0, 40, 32),
                    (2 * run, 16, 16),
                    (0, 8 * run, 8),
                ] {
                    if v0 + len > nb * run {
                        continue;
                    }
                    for (p0, kc) in [(0usize, 45usize), (3, 17), (8, 1)] {
                        against_definition(s, at, v0, p0, len, kc, r, "mapped rows");
                    }
                }
            }
        }
    }

    #[test]
    fn mapped_run_panels_match_the_definition() {
        mapped_rows::<f32>();
        mapped_rows::<f64>();
    }
}
