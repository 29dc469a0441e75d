//! 16-bit float operands widened to `f32` inside packing: the f32 engine's loops, blocking,
//! threads and kernels run unchanged, and the conversion (F16C `vcvtph2ps` for f16, a 16-bit
//! shift for bf16) touches each element once per packed block — `O(mk·⌈n/NC⌉ + kn)` against
//! the product's `O(mnk)` — with no widened copy of either matrix.

use super::pack::{Panels, Rows};
use crate::walk::kernels::transpose;

/// A 16-bit floating-point input type: [`half::f16`] or [`half::bf16`].
pub trait Half: Copy + Send + Sync + 'static {
    /// Whether the type is bf16 (widened by a 16-bit shift) rather than f16 (`vcvtph2ps`).
    #[doc(hidden)]
    const BF16: bool = false;
    /// The value as `f32` (exact).
    fn to_f32(self) -> f32;
    /// `dst[i] = src[i].to_f32()`, 8 at a time when `simd` (the CPU has AVX2 and F16C).
    #[doc(hidden)]
    fn widen_run(src: &[Self], dst: &mut [f32], simd: bool) {
        let _ = simd;
        for (o, x) in dst.iter_mut().zip(src) {
            *o = x.to_f32();
        }
    }
}

impl Half for half::f16 {
    #[inline(always)]
    fn to_f32(self) -> f32 {
        half::f16::to_f32(self)
    }
    fn widen_run(src: &[Self], dst: &mut [f32], simd: bool) {
        #[cfg(target_arch = "x86_64")]
        if simd && dst.len() >= src.len() {
            // SAFETY: `simd` is only set when AVX2 and F16C were detected; lengths checked.
            return unsafe { super::widen::f16_run(src, dst) };
        }
        #[cfg(target_arch = "aarch64")]
        if simd {
            return super::widen::f16_run_neon(src, dst);
        }
        let _ = simd;
        for (o, x) in dst.iter_mut().zip(src) {
            *o = x.to_f32();
        }
    }
}

impl Half for half::bf16 {
    const BF16: bool = true;
    #[inline(always)]
    fn to_f32(self) -> f32 {
        half::bf16::to_f32(self)
    }
    fn widen_run(src: &[Self], dst: &mut [f32], simd: bool) {
        #[cfg(target_arch = "x86_64")]
        if simd && dst.len() >= src.len() {
            // SAFETY: `simd` is only set when AVX2 (and F16C) were detected; lengths checked.
            return unsafe { super::widen::bf16_run(src, dst) };
        }
        #[cfg(target_arch = "aarch64")]
        if simd {
            return super::widen::bf16_run_neon(src, dst);
        }
        let _ = simd;
        for (o, x) in dst.iter_mut().zip(src) {
            *o = x.to_f32();
        }
    }
}

/// Largest `r·kc` converted through the stack (32 rows by 256 k steps).
const STAGE: usize = 32 * 256;

impl<H: Half> Panels<f32> for Rows<'_, H> {
    fn pack(&self, dst: &mut [f32], v0: usize, p0: usize, len: usize, kc: usize, r: usize) {
        let panels = len.div_ceil(r);
        let mut stage = [0f32; STAGE];
        for (t, panel) in dst[..panels * r * kc].chunks_exact_mut(r * kc).enumerate() {
            let rows = r.min(len - t * r);
            let vbase = v0 + t * r;
            if rows < r {
                for out in panel.chunks_exact_mut(r) {
                    out[rows..].fill(0.0);
                }
            }
            match self.map {
                None if self.sv == 1 => {
                    // the packed dimension contiguous: one run of `rows` per k step
                    for (p, out) in panel.chunks_exact_mut(r).enumerate() {
                        let at = self.origin + vbase as isize + (p0 + p) as isize * self.sk;
                        let at = at as usize;
                        H::widen_run(&self.src[at..at + rows], &mut out[..rows], self.simd);
                    }
                }
                None if self.sk == 1 && rows * kc <= STAGE => {
                    // k contiguous: widen each row into the stage, then transpose into the panel
                    for i in 0..rows {
                        let at = self.origin + (vbase + i) as isize * self.sv + p0 as isize;
                        let at = at as usize;
                        H::widen_run(
                            &self.src[at..at + kc],
                            &mut stage[i * kc..][..kc],
                            self.simd,
                        );
                    }
                    down(&stage, panel, rows, kc, r);
                }
                #[cfg(target_arch = "x86_64")]
                Some(mp) if self.simd => {
                    // any affine layout: each rectangle where both maps run arithmetically (an
                    // NZ/ZN fractal's rows by its C0 k steps) widened straight into the panel,
                    // 8 × 8 squares at a time through registers
                    rects(self, mp, panel, (vbase, rows, r), (p0, kc));
                }
                Some(mp) if rows * kc <= STAGE => {
                    // any affine layout: each row widened into the stage run by run along k
                    // (an NZ/ZN fractal's C0 elements are one run: 8 at a time), then one
                    // transpose into the panel
                    for i in 0..rows {
                        let row = self.origin + mp.rows.off[vbase + i];
                        let mut p = 0;
                        while p < kc {
                            let pk = p0 + p;
                            let lp = (mp.cols.run[pk] as usize).clamp(1, kc - p);
                            let first = row + mp.cols.off[pk];
                            let out = &mut stage[i * kc + p..][..lp];
                            match mp.cols.step(pk) {
                                1 => {
                                    let at = first as usize;
                                    H::widen_run(&self.src[at..at + lp], out, self.simd);
                                }
                                sk => {
                                    for (q, o) in out.iter_mut().enumerate() {
                                        *o = self.src[(first + q as isize * sk) as usize].to_f32();
                                    }
                                }
                            }
                            p += lp;
                        }
                    }
                    down(&stage, panel, rows, kc, r);
                }
                _ => {
                    for (p, out) in panel.chunks_exact_mut(r).enumerate() {
                        for (i, o) in out[..rows].iter_mut().enumerate() {
                            let at = match self.map {
                                Some(mp) => {
                                    self.origin + mp.rows.off[vbase + i] + mp.cols.off[p0 + p]
                                }
                                None => {
                                    self.origin
                                        + (vbase + i) as isize * self.sv
                                        + (p0 + p) as isize * self.sk
                                }
                            };
                            *o = self.src[at as usize].to_f32();
                        }
                    }
                }
            }
        }
    }
}

/// The panel of rows `vbase .. vbase + rows` (of `r`), k steps `p0 .. p0 + kc`, of an operand
/// read through axis maps (`s.simd`: AVX2 and F16C): cut into the rectangles where both maps
/// run arithmetically, each widened straight into the panel (`panel[p·r + i]`) — those unit
/// stride along k by [`squares`] (8 × 8 through registers), the others element by element.
#[cfg(target_arch = "x86_64")]
fn rects<H: Half>(
    s: &Rows<'_, H>,
    mp: super::maps::Mapped<'_>,
    panel: &mut [f32],
    (vbase, rows, r): (usize, usize, usize),
    (p0, kc): (usize, usize),
) {
    assert!(s.simd && rows <= r && panel.len() >= r * kc);
    let mut i = 0;
    while i < rows {
        let vi = vbase + i;
        let li = (mp.rows.run[vi] as usize).clamp(1, rows - i);
        let sv = mp.rows.step(vi);
        let mut p = 0;
        while p < kc {
            let pk = p0 + p;
            let lp = (mp.cols.run[pk] as usize).clamp(1, kc - p);
            let sk = mp.cols.step(pk);
            let first = s.origin + mp.rows.off[vi] + mp.cols.off[pk];
            // the rectangle: out[q·r + t] = src[first + t·sv + q·sk], t < li, q < lp
            let out = &mut panel[p * r + i..];
            let last = first + (li as isize - 1) * sv + (lp as isize - 1);
            if sk == 1 && sv > 0 && lp >= 8 && first >= 0 && (last as usize) < s.src.len() {
                assert!(out.len() > (lp - 1) * r + li - 1);
                // SAFETY: AVX2 and F16C are available (`s.simd`); every source element
                // `first + t·sv + q` (t < li, q < lp) lies in `s.src` (`sv > 0`, the first at
                // `first ≥ 0`, the last at `last < len`), every destination `q·r + t` in `out`
                // (asserted); `out` is a `&mut` slice, distinct from the source.
                unsafe {
                    squares::<H>(
                        out.as_mut_ptr(),
                        r,
                        s.src.as_ptr().offset(first),
                        sv as usize,
                        li,
                        lp,
                    )
                };
            } else if sv == 1 && li >= 8 {
                // unit stride along the panel: one run of `li` per k step
                for q in 0..lp {
                    let at = (first + q as isize * sk) as usize;
                    H::widen_run(&s.src[at..at + li], &mut out[q * r..q * r + li], true);
                }
            } else {
                for q in 0..lp {
                    for t in 0..li {
                        let at = first + t as isize * sv + q as isize * sk;
                        out[q * r + t] = s.src[at as usize].to_f32();
                    }
                }
            }
            p += lp;
        }
        i += li;
    }
}

/// `out[q·ld + t] = widen(src[t·sv + q])` for `t < rows`, `q < cols`: 8 × 8 squares widened
/// (`vcvtph2ps`, or bf16's shift) and transposed in registers ([`tr8`](super::pack::tr8)), leftover rows 8 k steps
/// at a time through a small buffer, leftover k steps element by element.
///
/// # Safety
/// AVX2 and F16C are available; `src` is readable for every `t·sv + q` and `out` writable for
/// every `q·ld + t`; the two do not overlap.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn squares<H: Half>(
    out: *mut f32,
    ld: usize,
    src: *const H,
    sv: usize,
    rows: usize,
    cols: usize,
) {
    use core::arch::x86_64::*;
    // SAFETY: (whole body) the caller's contract: every load reads 8 source elements of one
    // row of the block (`q + 8 ≤ cols`), every store writes destination elements of it.
    unsafe {
        let load = |p: *const H| -> __m256 {
            let h = _mm_loadu_si128(p.cast());
            if H::BF16 {
                _mm256_castsi256_ps(_mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h)))
            } else {
                _mm256_cvtph_ps(h)
            }
        };
        let mut q = 0;
        while q + 8 <= cols {
            let mut t = 0;
            while t + 8 <= rows {
                let x: [__m256; 8] = core::array::from_fn(|u| load(src.add((t + u) * sv + q)));
                for (u, v) in super::pack::tr8(x).into_iter().enumerate() {
                    _mm256_storeu_ps(out.add((q + u) * ld + t), v);
                }
                t += 8;
            }
            while t < rows {
                let mut w = [0f32; 8];
                _mm256_storeu_ps(w.as_mut_ptr(), load(src.add(t * sv + q)));
                for (u, &x) in w.iter().enumerate() {
                    *out.add((q + u) * ld + t) = x;
                }
                t += 1;
            }
            q += 8;
        }
        for q in q..cols {
            for t in 0..rows {
                *out.add(q * ld + t) = (*src.add(t * sv + q)).to_f32();
            }
        }
    }
}

/// The stage's `rows` rows of `kc` widened values into the panel (row `i`, step `p` at
/// `p·r + i`): one transpose.
fn down(stage: &[f32; STAGE], panel: &mut [f32], rows: usize, kc: usize, r: usize) {
    assert!(rows <= r && rows * kc <= STAGE && panel.len() >= r * kc);
    // SAFETY: the stage holds `rows` rows of `kc` (`rows·kc ≤ STAGE`), the panel `r·kc ≥ (kc −
    // 1)·r + rows` elements (checked above); they are distinct arrays.
    unsafe {
        transpose(
            panel.as_mut_ptr(),
            r as isize,
            stage.as_ptr(),
            kc as isize,
            rows,
            kc,
            false,
        )
    };
}

/// Whether this CPU widens 16-bit floats 8 at a time (AVX2 and F16C; aarch64 NEON) at level
/// `isa`.
pub(crate) fn simd(isa: crate::isa::Isa) -> bool {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        isa >= crate::isa::Isa::Avx2 && crate::isa::has_f16c()
    }
    #[cfg(target_arch = "aarch64")]
    {
        isa == crate::isa::Isa::Neon && isa.is_available()
    }
    #[cfg(not(any(all(target_arch = "x86_64", feature = "std"), target_arch = "aarch64")))]
    {
        let _ = isa;
        false
    }
}

/// f16 → f32 on aarch64, 8 per `fcvtl`/`fcvtl2` (base Advanced SIMD: every aarch64 CPU); the
/// first `min(src.len(), dst.len())` elements.
#[cfg(target_arch = "aarch64")]
pub(crate) fn f16_run_neon(src: &[half::f16], dst: &mut [f32]) {
    let n = src.len().min(dst.len());
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: `i + 8 ≤ n`: 16 bytes read at `src[i..]` and 32 written at `dst[i..]`, in
        // bounds; NEON is part of the aarch64 target; the registers written are declared.
        unsafe {
            core::arch::asm!(
                "ldr {h:q}, [{s}]",
                "fcvtl {lo:v}.4s, {h:v}.4h",
                "fcvtl2 {hi:v}.4s, {h:v}.8h",
                "stp {lo:q}, {hi:q}, [{d}]",
                s = in(reg) src.as_ptr().add(i),
                d = in(reg) dst.as_mut_ptr().add(i),
                h = out(vreg) _,
                lo = out(vreg) _,
                hi = out(vreg) _,
                options(nostack),
            )
        };
        i += 8;
    }
    for (o, x) in dst[i..n].iter_mut().zip(&src[i..n]) {
        *o = x.to_f32();
    }
}

/// bf16 → f32 on aarch64 (the bits shifted into the high half, `shll`/`shll2`), 8 at a time;
/// the first `min(src.len(), dst.len())` elements.
#[cfg(target_arch = "aarch64")]
pub(crate) fn bf16_run_neon(src: &[half::bf16], dst: &mut [f32]) {
    use core::arch::aarch64::*;
    let n = src.len().min(dst.len());
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: `i + 8 ≤ n`: 8 halves read at `src[i..]` and 8 words written at `dst[i..]`,
        // in bounds; NEON is part of the aarch64 target.
        unsafe {
            let h = vld1q_u16(src.as_ptr().add(i).cast());
            let d = dst.as_mut_ptr().add(i).cast::<u32>();
            vst1q_u32(d, vshll_n_u16::<16>(vget_low_u16(h)));
            vst1q_u32(d.add(4), vshll_high_n_u16::<16>(h));
        }
        i += 8;
    }
    for (o, x) in dst[i..n].iter_mut().zip(&src[i..n]) {
        *o = x.to_f32();
    }
}

/// f16 → f32, 8 per `vcvtph2ps`.
///
/// # Safety
/// AVX2 and F16C are available; `dst.len() >= src.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
pub(crate) unsafe fn f16_run(src: &[half::f16], dst: &mut [f32]) {
    use core::arch::x86_64::*;
    let n = src.len();
    let mut i = 0;
    // SAFETY: `i + 8 ≤ n ≤ dst.len()`: 8 elements read and written in bounds.
    unsafe {
        while i + 8 <= n {
            let h = _mm_loadu_si128(src.as_ptr().add(i).cast());
            _mm256_storeu_ps(dst.as_mut_ptr().add(i), _mm256_cvtph_ps(h));
            i += 8;
        }
    }
    for (o, x) in dst[i..n].iter_mut().zip(&src[i..]) {
        *o = x.to_f32();
    }
}

/// bf16 → f32 (the bits shifted into the high half), 8 at a time.
///
/// # Safety
/// AVX2 is available; `dst.len() >= src.len()`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub(crate) unsafe fn bf16_run(src: &[half::bf16], dst: &mut [f32]) {
    use core::arch::x86_64::*;
    let n = src.len();
    let mut i = 0;
    // SAFETY: `i + 8 ≤ n ≤ dst.len()`: 8 elements read and written in bounds.
    unsafe {
        while i + 8 <= n {
            let h = _mm_loadu_si128(src.as_ptr().add(i).cast());
            let w = _mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16);
            _mm256_storeu_ps(dst.as_mut_ptr().add(i), _mm256_castsi256_ps(w));
            i += 8;
        }
    }
    for (o, x) in dst[i..n].iter_mut().zip(&src[i..]) {
        *o = x.to_f32();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// Every 16-bit pattern of both types, widened by the vector path of this target (runs of
    /// 8 and a ragged tail) and by the definition (`half`'s `to_f32`): the same bits, NaN for
    /// NaN.
    #[test]
    fn vector_widening_matches_the_definition_on_every_pattern() {
        fn check<H: Half>(from: fn(u16) -> H) {
            let src: Vec<H> = (0..=u16::MAX).map(from).collect();
            // 65 536 = 8·8192: a tail of 5 too, from a shorter run
            for len in [src.len(), src.len() - 3] {
                let mut dst = vec![f32::from_bits(1); len];
                H::widen_run(&src[..len], &mut dst, simd(crate::isa::Isa::selected()));
                for (x, (&s, &d)) in src.iter().zip(&dst).enumerate() {
                    let want = s.to_f32();
                    assert!(
                        want.to_bits() == d.to_bits() || (want.is_nan() && d.is_nan()),
                        "{} pattern {x:#06x}: {d:?} (bits {:#010x}), want {want:?}",
                        core::any::type_name::<H>(),
                        d.to_bits()
                    );
                }
            }
        }
        check(half::f16::from_bits);
        check(half::bf16::from_bits);
    }
}
