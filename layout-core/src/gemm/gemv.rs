//! Matrix–vector products (m = 1 or n = 1: the decode shape of inference, `1×k · k×n`).
//!
//! Such a product is memory-bound: every element of the matrix is used once, so packing it
//! (what the blocked engine does) would read and write it twice more for nothing, and a tile of
//! MR × NR would compute MR or NR times the useful work. Here the matrix is streamed once in
//! its own order:
//!
//! - rows contiguous (`y[j] += x[p]·B[p][j]` along j): four rows at a time are scaled and added
//!   into a block of `y` accumulators held in L1 — four sequential streams, no transposition;
//! - columns contiguous (`y[j] = Σ_p x[p]·B[p][j]` along p): four dot products at a time,
//!   vector accumulators along p, summed at the end.
//!
//! Both are written once over the microkernel's vector abstraction (`Simd`) and instantiated per
//! instruction set. Threads split `y`.

#![allow(clippy::needless_range_loop)]

use super::check::Strided;
use super::kernel::{Element, Portable, Simd};

use crate::isa::Isa;

/// A checked matrix–vector product `y ← α·x·B + β·y` (x of k, B k × n, y of n): x element p at
/// `x[ox + p·incx]`, B element (p, j) at `b[sb.origin + p·sb.rs + j·sb.cs]`, y element j at
/// `y[oy + j·incy]` (no two at one location), every index in bounds.
pub(crate) struct Gemv<'a, T> {
    pub k: usize,
    pub n: usize,
    pub alpha: T,
    pub x: &'a [T],
    pub ox: isize,
    pub incx: isize,
    pub b: &'a [T],
    pub sb: Strided,
    pub beta: T,
    pub y: *mut T,
    pub oy: isize,
    pub incy: isize,
}

/// Columns of `y` accumulated per pass of the row-streaming form (16 KiB of f32 in L1).
const YBLOCK: usize = 4096;

/// The product as a matrix–vector product when one extent of C is 1 and the matrix streams
/// in one of its contiguous orders; `None` leaves it to the blocked engine.
///
/// `a`, `b`: the checked operands (A m × k, B k × n; `sa`, `sb` where their (0, 0) are);
/// `c`: C's slice with `sc`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn try_run<T: Element>(
    isa: Isa,
    [m, k, n]: [usize; 3],
    alpha: T,
    (a, sa): (&[T], Strided),
    (b, sb): (&[T], Strided),
    beta: T,
    (c, sc): (&mut [T], Strided),
    threads: usize,
) -> bool {
    // the vector x, the matrix, and y, in the form y ← α·x·M + β·y
    let g = if m == 1 {
        Gemv {
            k,
            n,
            alpha,
            x: a,
            ox: sa.origin,
            incx: sa.cs,
            b,
            sb,
            beta,
            y: c.as_mut_ptr(),
            oy: sc.origin,
            incy: sc.cs,
        }
    } else if n == 1 {
        // C = A·x is Cᵀ = xᵀ·Aᵀ
        Gemv {
            k,
            n: m,
            alpha,
            x: b,
            ox: sb.origin,
            incx: sb.rs,
            b: a,
            sb: Strided {
                origin: sa.origin,
                rs: sa.cs,
                cs: sa.rs,
            },
            beta,
            y: c.as_mut_ptr(),
            oy: sc.origin,
            incy: sc.rs,
        }
    } else {
        return false;
    };
    // the streaming forms need a unit stride along one of the matrix's axes
    if g.sb.cs != 1 && !(g.sb.rs == 1 && g.incx == 1) {
        return false;
    }
    split(g.n, threads, &|lo, hi| run(isa, &g, lo, hi));
    true
}

/// Runs `f(lo, hi)` over `threads` contiguous ranges of `0 .. n` (at most one per 256
/// columns), on the one thread splitter.
fn split(n: usize, threads: usize, f: &(dyn Fn(usize, usize) + Sync)) {
    let threads = threads.clamp(1, n.div_ceil(256).max(1));
    super::threads::split(threads, &|t| f(n * t / threads, n * (t + 1) / threads));
}

// SAFETY: the threads of one call write disjoint ranges of y (an operand with no two elements
// at one location) through `y`, and only read x and B; `split`'s scope ends before the call
// returns.
unsafe impl<T: Sync> Sync for Gemv<'_, T> {}
// SAFETY: as above.
unsafe impl<H: Sync> Sync for HalfGemv<'_, H> {}

/// A row of A times a [`PackedB`]: `y ← α·x·B + β·y` with x element p at `x[sx.origin +
/// p·sx.cs]` and y element j at `y[sy.origin + j·sy.cs]`, every index checked in bounds and y
/// injective. The MR-wide panels stream once, each k step one vector multiply-add per MR/LANES.
pub(crate) fn packed<T: Element>(
    isa: Isa,
    alpha: T,
    (x, sx): (&[T], Strided),
    b: PanelsRef<'_, T>,
    beta: T,
    (y, sy): (&mut [T], Strided),
) {
    let g = Packed {
        alpha,
        x,
        sx,
        b,
        beta,
        y,
        sy,
    };
    #[cfg(target_arch = "x86_64")]
    {
        use core::any::TypeId;
        let f32_ = TypeId::of::<T>() == TypeId::of::<f32>();
        if isa >= Isa::Avx2 && isa.is_available() {
            // SAFETY: the ISA is available (checked above); `g` is a checked product.
            unsafe {
                if isa == Isa::Avx512 {
                    return x86::packed_avx512::<T>(g, f32_);
                }
                return x86::packed_avx2::<T>(g, f32_);
            }
        }
    }
    #[cfg(target_arch = "aarch64")]
    if isa == Isa::Neon {
        let f32_ = core::any::TypeId::of::<T>() == core::any::TypeId::of::<f32>();
        // SAFETY: NEON is in every aarch64 CPU; `g` is a checked product.
        return unsafe { neon::packed::<T>(g, f32_) };
    }
    let _ = isa;
    // SAFETY: the scalar "instruction set" always runs; `g` is a checked product.
    unsafe { packed_body::<T, Portable>(g) }
}

/// A pre-packed B as [`packed`] reads it: blocks of `kc` rows, each a row of panels of `nr`
/// columns, each panel `kc` groups of `nr` consecutive elements (see `PackedB`).
#[derive(Clone, Copy)]
pub(crate) struct PanelsRef<'a, T> {
    pub data: &'a [T],
    pub nr: usize,
    pub kc: usize,
    pub k: usize,
    pub n: usize,
}

impl<'a, T> PanelsRef<'a, T> {
    /// The `kc × nr` piece of the micro-panel holding column `j` (a multiple of `nr`), from
    /// row `pc`: what the blocked loop hands the kernel.
    pub fn panel(&self, j: usize, pc: usize, kc: usize) -> &'a [T] {
        let block = self.n.div_ceil(self.nr) * self.nr * self.kc;
        let at =
            (pc / self.kc) * block + (j / self.nr) * self.nr * self.kc + (pc % self.kc) * self.nr;
        &self.data[at..at + kc * self.nr]
    }
}

/// The operands of [`packed`].
pub(crate) struct Packed<'a, T> {
    alpha: T,
    x: &'a [T],
    sx: Strided,
    b: PanelsRef<'a, T>,
    beta: T,
    y: &'a mut [T],
    sy: Strided,
}

/// [`packed`]'s body.
///
/// # Safety
/// The instruction set of `S` is available; MR is a multiple of `S::LANES` and at most
/// `4·S::LANES` (true of every kernel's tile).
#[inline(always)]
unsafe fn packed_body<T: Element, S: Simd<T>>(g: Packed<'_, T>) {
    let (mr, kc) = (g.b.nr, g.b.kc);
    let (k, n, l) = (g.b.k, g.b.n, S::LANES);
    let nv = mr / l;
    let xs = |p: usize| g.x[(g.sx.origin + p as isize * g.sx.cs) as usize];
    // the packed buffer in its memory order (k blocks, each a row of panels), sums for a block
    // of columns kept in L1 between k blocks
    let mut sums = [T::ZERO; YBLOCK];
    let chunk = YBLOCK / mr * mr;
    for c0 in (0..n).step_by(chunk) {
        let w = chunk.min(n - c0);
        let wp = w.div_ceil(mr) * mr;
        sums[..wp].fill(T::ZERO);
        // up to four k blocks per pass: four sequential streams through the buffer
        let mut pc = 0;
        while pc < k {
            let nb = 4.min((k - pc).div_ceil(kc));
            // every block but the last of the call is full (KC rows)
            let last = kc.min(k - (pc + (nb - 1) * kc));
            for j0 in (c0..c0 + w).step_by(mr) {
                let mut panel = [core::ptr::null::<T>(); 4];
                for (q, pq) in panel.iter_mut().enumerate().take(nb) {
                    let p0 = pc + q * kc;
                    *pq = g.b.panel(j0, p0, kc.min(k - p0)).as_ptr();
                }
                // SAFETY: (whole block) block q's panel piece holds kc·MR elements (the last
                // `last`·MR), read only below those lengths; `sums` holds MR from j0 − c0
                // (wp ≤ YBLOCK); `nv·l = MR`; the ISA is the caller's.
                unsafe {
                    let s = sums.as_mut_ptr().add(j0 - c0);
                    let mut acc = [[S::zero(); 4]; 4];
                    // (no closure around the vector operations: a closure is not compiled
                    // with the caller's target features, so its intrinsics would be calls)
                    for p in 0..kc {
                        for q in 0..nb {
                            if q + 1 == nb && p >= last {
                                continue;
                            }
                            let x = S::splat(xs(pc + q * kc + p));
                            for v in 0..nv {
                                acc[q][v] =
                                    S::fma(S::load(panel[q].add(p * mr + v * l)), x, acc[q][v]);
                            }
                        }
                    }
                    for v in 0..nv {
                        let mut t = S::load(s.add(v * l));
                        for a in acc.iter().take(nb) {
                            t = S::add(t, a[v]);
                        }
                        S::store(s.add(v * l), t);
                    }
                }
            }
            pc += nb * kc;
        }
        for (j, &s) in sums[..w].iter().enumerate() {
            let at = (g.sy.origin + (c0 + j) as isize * g.sy.cs) as usize;
            g.y[at] = if g.beta == T::ZERO {
                g.alpha * s
            } else {
                g.alpha * s + g.beta * g.y[at]
            };
        }
    }
}

/// Columns `lo .. hi` of `y` on the instruction set `isa`.
fn run<T: Element>(isa: Isa, g: &Gemv<'_, T>, lo: usize, hi: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::any::TypeId;
        let f32_ = TypeId::of::<T>() == TypeId::of::<f32>();
        if isa >= Isa::Avx2 && isa.is_available() {
            // SAFETY: AVX2 and FMA are available (checked above); `g` is a checked product.
            unsafe {
                if isa == Isa::Avx512 {
                    if f32_ {
                        return x86::avx512::<T>(g, lo, hi, true);
                    }
                    return x86::avx512::<T>(g, lo, hi, false);
                }
                return x86::avx2::<T>(g, lo, hi, f32_);
            }
        }
    }
    #[cfg(target_arch = "aarch64")]
    if isa == Isa::Neon {
        let f32_ = core::any::TypeId::of::<T>() == core::any::TypeId::of::<f32>();
        // SAFETY: NEON is in every aarch64 CPU; `g` is a checked product.
        return unsafe { neon::run::<T>(g, lo, hi, f32_) };
    }
    let _ = isa;
    // SAFETY: the scalar "instruction set" always runs; `g` is a checked product.
    unsafe { body::<T, Portable>(g, lo, hi) }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::x86::{Avx2F32, Avx2F64, Avx512F32, Avx512F64};
    use super::{Element, Gemv, Packed, body, packed_body};

    /// Reinterprets the packed product as `U` (the caller compared the types).
    ///
    /// # Safety
    /// `T` and `U` are the same type.
    unsafe fn cast_packed<'a, T, U>(g: Packed<'a, T>) -> Packed<'a, U> {
        // SAFETY: the same type (the caller's contract): a move between identical layouts.
        unsafe { core::mem::transmute_copy(&core::mem::ManuallyDrop::new(g)) }
    }

    /// # Safety
    /// AVX2 and FMA are available; `g` is checked; `f32_` says whether `T` is `f32` (else f64).
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn packed_avx2<T: Element>(g: Packed<'_, T>, f32_: bool) {
        // SAFETY: forwarded; the type is the one `f32_` names.
        unsafe {
            if f32_ {
                packed_body::<f32, Avx2F32>(cast_packed(g))
            } else {
                packed_body::<f64, Avx2F64>(cast_packed(g))
            }
        }
    }

    /// # Safety
    /// AVX-512F and FMA are available; otherwise as [`packed_avx2`].
    #[target_feature(enable = "avx512f,fma")]
    pub(super) unsafe fn packed_avx512<T: Element>(g: Packed<'_, T>, f32_: bool) {
        // SAFETY: forwarded; the type is the one `f32_` names.
        unsafe {
            if f32_ {
                packed_body::<f32, Avx512F32>(cast_packed(g))
            } else {
                packed_body::<f64, Avx512F64>(cast_packed(g))
            }
        }
    }

    /// Reinterprets the product as `U` (the caller compared the types).
    ///
    /// # Safety
    /// `T` and `U` are the same type.
    unsafe fn cast<'g, 'a, T, U>(g: &'g Gemv<'a, T>) -> &'g Gemv<'a, U> {
        // SAFETY: the same type (the caller's contract).
        unsafe { &*(g as *const Gemv<'a, T>).cast::<Gemv<'a, U>>() }
    }

    /// # Safety
    /// AVX2 and FMA are available; `g` is checked; `f32_` says whether `T` is `f32` (else f64).
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn avx2<T: Element>(g: &Gemv<'_, T>, lo: usize, hi: usize, f32_: bool) {
        // SAFETY: forwarded; the type is the one `f32_` names.
        unsafe {
            if f32_ {
                body::<f32, Avx2F32>(cast(g), lo, hi)
            } else {
                body::<f64, Avx2F64>(cast(g), lo, hi)
            }
        }
    }

    /// # Safety
    /// AVX-512F and FMA are available; otherwise as [`avx2`].
    #[target_feature(enable = "avx512f,fma")]
    pub(super) unsafe fn avx512<T: Element>(g: &Gemv<'_, T>, lo: usize, hi: usize, f32_: bool) {
        // SAFETY: forwarded; the type is the one `f32_` names.
        unsafe {
            if f32_ {
                body::<f32, Avx512F32>(cast(g), lo, hi)
            } else {
                body::<f64, Avx512F64>(cast(g), lo, hi)
            }
        }
    }
}

#[cfg(target_arch = "aarch64")]
mod neon {
    use super::super::neon::{NeonF32, NeonF64};
    use super::{Element, Gemv, Packed, body, packed_body};

    /// # Safety
    /// NEON is available; `g` is checked; `f32_` says whether `T` is `f32` (else f64).
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn packed<T: Element>(g: Packed<'_, T>, f32_: bool) {
        // SAFETY: forwarded; the type is the one `f32_` names (a move between identical
        // layouts).
        unsafe {
            let g = core::mem::ManuallyDrop::new(g);
            if f32_ {
                packed_body::<f32, NeonF32>(core::mem::transmute_copy(&g))
            } else {
                packed_body::<f64, NeonF64>(core::mem::transmute_copy(&g))
            }
        }
    }

    /// # Safety
    /// NEON is available; `g` is checked; `f32_` says whether `T` is `f32` (else f64).
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn run<T: Element>(g: &Gemv<'_, T>, lo: usize, hi: usize, f32_: bool) {
        // SAFETY: forwarded; the type is the one `f32_` names.
        unsafe {
            if f32_ {
                body::<f32, NeonF32>(&*(g as *const Gemv<'_, T>).cast(), lo, hi)
            } else {
                body::<f64, NeonF64>(&*(g as *const Gemv<'_, T>).cast(), lo, hi)
            }
        }
    }
}

/// `y[j] ← α·Σ_p x[p]·B[p][j] + β·y[j]` for `lo ≤ j < hi`.
///
/// # Safety
/// The instruction set of `S` is available; `g` is a checked product (every index in bounds).
#[inline(always)]
unsafe fn body<T: Element, S: Simd<T>>(g: &Gemv<'_, T>, lo: usize, hi: usize) {
    let l = S::LANES;
    let xs = |p: usize| g.x[(g.ox + p as isize * g.incx) as usize];
    let yp = |j: usize| {
        // SAFETY: j < n: an element of y (the caller's contract).
        unsafe { g.y.offset(g.oy + j as isize * g.incy) }
    };
    let store = |j: usize, s: T| {
        let q = yp(j);
        // SAFETY: `q` is element j of y, written only by this thread.
        unsafe {
            *q = if g.beta == T::ZERO {
                g.alpha * s
            } else {
                g.alpha * s + g.beta * *q
            };
        }
    };
    let bp = g.b.as_ptr();
    let (rs, cs) = (g.sb.rs, g.sb.cs);
    if cs == 1 {
        // rows contiguous: blocks of y accumulated over all of k, four rows per pass
        let mut acc = [T::ZERO; YBLOCK];
        let mut j0 = lo;
        while j0 < hi {
            let w = YBLOCK.min(hi - j0);
            let wv = w / l * l;
            acc[..w].fill(T::ZERO);
            let mut p = 0;
            while p < g.k {
                let rows = 4.min(g.k - p);
                let mut xv = [T::ZERO; 4];
                let mut row = [bp; 4];
                for r in 0..rows {
                    xv[r] = xs(p + r);
                    // SAFETY: row p + r of B from column j0 is inside B (p + r < k, j0 < n).
                    row[r] =
                        unsafe { bp.offset(g.sb.origin + (p + r) as isize * rs + j0 as isize) };
                }
                // SAFETY: (whole block) columns j0 .. j0 + w of rows p .. p + rows are inside
                // B (j0 + w ≤ hi ≤ n); `acc` holds w ≥ wv elements; the ISA is the caller's.
                unsafe {
                    let a = acc.as_mut_ptr();
                    if rows == 4 {
                        let x = [
                            S::splat(xv[0]),
                            S::splat(xv[1]),
                            S::splat(xv[2]),
                            S::splat(xv[3]),
                        ];
                        let mut j = 0;
                        while j < wv {
                            let mut s = S::load(a.add(j));
                            s = S::fma(S::load(row[0].add(j)), x[0], s);
                            s = S::fma(S::load(row[1].add(j)), x[1], s);
                            s = S::fma(S::load(row[2].add(j)), x[2], s);
                            s = S::fma(S::load(row[3].add(j)), x[3], s);
                            S::store(a.add(j), s);
                            j += l;
                        }
                        for j in wv..w {
                            let mut s = *a.add(j);
                            for r in 0..4 {
                                s = s + *row[r].add(j) * xv[r];
                            }
                            *a.add(j) = s;
                        }
                    } else {
                        for r in 0..rows {
                            let x = S::splat(xv[r]);
                            let mut j = 0;
                            while j < wv {
                                S::store(
                                    a.add(j),
                                    S::fma(S::load(row[r].add(j)), x, S::load(a.add(j))),
                                );
                                j += l;
                            }
                            for j in wv..w {
                                *a.add(j) = *a.add(j) + *row[r].add(j) * xv[r];
                            }
                        }
                    }
                }
                p += rows;
            }
            for (j, &s) in acc[..w].iter().enumerate() {
                store(j0 + j, s);
            }
            j0 += w;
        }
    } else {
        // columns contiguous (and x unit stride): four dot products at a time
        let kv = g.k / l * l;
        let x = &g.x[g.ox as usize..g.ox as usize + g.k];
        let mut j = lo;
        while j < hi {
            let cols = 4.min(hi - j);
            let mut sums = [T::ZERO; 4];
            let mut col = [bp; 4];
            for (c, q) in col.iter_mut().enumerate().take(cols) {
                // SAFETY: column j + c of B is inside B (j + c < n).
                *q = unsafe { bp.offset(g.sb.origin + (j + c) as isize * cs) };
            }
            // SAFETY: (whole block) elements 0 .. k of each column (unit stride) and of x are
            // inside their slices; the ISA is the caller's.
            unsafe {
                let mut acc = [S::zero(); 4];
                let mut p = 0;
                while p < kv {
                    let xv = S::load(x.as_ptr().add(p));
                    for c in 0..cols {
                        acc[c] = S::fma(S::load(col[c].add(p)), xv, acc[c]);
                    }
                    p += l;
                }
                let mut lanes = [T::ZERO; 16];
                for c in 0..cols {
                    S::store(lanes.as_mut_ptr(), acc[c]);
                    let mut s = T::ZERO;
                    for &v in &lanes[..l] {
                        s = s + v;
                    }
                    for p in kv..g.k {
                        s = s + *col[c].add(p) * x[p];
                    }
                    sums[c] = s;
                }
            }
            for (c, &s) in sums[..cols].iter().enumerate() {
                store(j + c, s);
            }
            j += cols;
        }
    }
}

/// A checked matrix–vector product with 16-bit float x and B and an `f32` y (the decode shape
/// of bf16/f16 weights): as [`Gemv`], the elements widened in L1-sized chunks as they stream.
pub(crate) struct HalfGemv<'a, H> {
    pub k: usize,
    pub n: usize,
    pub alpha: f32,
    pub x: &'a [H],
    pub ox: isize,
    pub incx: isize,
    pub b: &'a [H],
    pub sb: Strided,
    pub beta: f32,
    pub y: *mut f32,
    pub oy: isize,
    pub incy: isize,
    /// 16-bit floats widen 8 at a time (AVX2 and F16C; NEON).
    pub simd: bool,
}

/// Elements widened per chunk.
const CHUNK: usize = 4096;

/// [`try_run`] for 16-bit inputs: `a`, `b` with their origins and strides, `c` with its.
#[allow(clippy::too_many_arguments)]
pub(crate) fn try_run_half<H: super::Half>(
    isa: Isa,
    [m, k, n]: [usize; 3],
    alpha: f32,
    (a, sa): (&[H], Strided),
    (b, sb): (&[H], Strided),
    beta: f32,
    (c, sc): (&mut [f32], Strided),
    threads: usize,
) -> bool {
    let simd = super::widen::simd(isa);
    let g = if m == 1 {
        HalfGemv {
            k,
            n,
            alpha,
            x: a,
            ox: sa.origin,
            incx: sa.cs,
            b,
            sb,
            beta,
            y: c.as_mut_ptr(),
            oy: sc.origin,
            incy: sc.cs,
            simd,
        }
    } else if n == 1 {
        HalfGemv {
            k,
            n: m,
            alpha,
            x: b,
            ox: sb.origin,
            incx: sb.rs,
            b: a,
            sb: Strided {
                origin: sa.origin,
                rs: sa.cs,
                cs: sa.rs,
            },
            beta,
            y: c.as_mut_ptr(),
            oy: sc.origin,
            incy: sc.rs,
            simd,
        }
    } else {
        return false;
    };
    if g.sb.cs != 1 && !(g.sb.rs == 1 && g.incx == 1) {
        return false;
    }
    split(g.n, threads, &|lo, hi| run_half(isa, &g, lo, hi));
    true
}

fn run_half<H: super::Half>(isa: Isa, g: &HalfGemv<'_, H>, lo: usize, hi: usize) {
    #[cfg(target_arch = "x86_64")]
    if isa >= Isa::Avx2 && isa.is_available() {
        // SAFETY: AVX2 and FMA are available (checked); `g` is a checked product.
        return unsafe { half_avx2(g, lo, hi) };
    }
    #[cfg(target_arch = "aarch64")]
    if isa == Isa::Neon && isa.is_available() {
        // SAFETY: NEON is available (checked); `g` is a checked product.
        return unsafe { half_neon(g, lo, hi) };
    }
    let _ = isa;
    // SAFETY: the scalar "instruction set" always runs; `g` is a checked product.
    unsafe { half_body::<H, Portable>(g, lo, hi) }
}

/// # Safety
/// AVX2 and FMA are available; `g` is checked.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn half_avx2<H: super::Half>(g: &HalfGemv<'_, H>, lo: usize, hi: usize) {
    // SAFETY: forwarded.
    unsafe { half_body::<H, super::x86::Avx2F32>(g, lo, hi) }
}

/// # Safety
/// NEON is available; `g` is checked.
#[cfg(target_arch = "aarch64")]
#[target_feature(enable = "neon")]
unsafe fn half_neon<H: super::Half>(g: &HalfGemv<'_, H>, lo: usize, hi: usize) {
    // SAFETY: forwarded.
    unsafe { half_body::<H, super::neon::NeonF32>(g, lo, hi) }
}

/// `y[j] ← α·Σ_p x[p]·B[p][j] + β·y[j]` for `lo ≤ j < hi`, B and x widened chunk by chunk.
///
/// # Safety
/// The instruction set of `S` is available; `g` is a checked product.
#[inline(always)]
unsafe fn half_body<H: super::Half, S: Simd<f32>>(g: &HalfGemv<'_, H>, lo: usize, hi: usize) {
    let l = S::LANES;
    let xs = |p: usize| g.x[(g.ox + p as isize * g.incx) as usize].to_f32();
    let store = |j: usize, s: f32| {
        // SAFETY: j < n: an element of y, written only by this thread.
        unsafe {
            let q = g.y.offset(g.oy + j as isize * g.incy);
            *q = if g.beta == 0.0 {
                g.alpha * s
            } else {
                g.alpha * s + g.beta * *q
            };
        }
    };
    let (rs, cs) = (g.sb.rs, g.sb.cs);
    let mut stage = [[0f32; CHUNK]; 4];
    if cs == 1 {
        // rows contiguous: a block of sums, four rows widened per pass
        let mut sums = [0f32; CHUNK];
        let mut j0 = lo;
        while j0 < hi {
            let w = CHUNK.min(hi - j0);
            let wv = w / l * l;
            sums[..w].fill(0.0);
            let mut p = 0;
            while p < g.k {
                let rows = 4.min(g.k - p);
                let mut xv = [0f32; 4];
                for r in 0..rows {
                    xv[r] = xs(p + r);
                    let at = (g.sb.origin + (p + r) as isize * rs + j0 as isize) as usize;
                    H::widen_run(&g.b[at..at + w], &mut stage[r][..w], g.simd);
                }
                // SAFETY: `stage[r]` and `sums` hold w ≥ wv elements; the ISA is the caller's.
                unsafe {
                    let a = sums.as_mut_ptr();
                    let x = [
                        S::splat(xv[0]),
                        S::splat(xv[1]),
                        S::splat(xv[2]),
                        S::splat(xv[3]),
                    ];
                    let row = [0, 1, 2, 3].map(|r| stage[r].as_ptr());
                    let mut j = 0;
                    while j < wv {
                        let mut t = S::load(a.add(j));
                        for r in 0..rows {
                            t = S::fma(S::load(row[r].add(j)), x[r], t);
                        }
                        S::store(a.add(j), t);
                        j += l;
                    }
                }
                for j in wv..w {
                    for r in 0..rows {
                        sums[j] += stage[r][j] * xv[r];
                    }
                }
                p += rows;
            }
            for (j, &s) in sums[..w].iter().enumerate() {
                store(j0 + j, s);
            }
            j0 += w;
        }
    } else {
        // columns contiguous, x unit stride: four dot products at a time, k in chunks
        let x0 = g.ox as usize;
        let mut xw = [0f32; CHUNK];
        let mut j = lo;
        while j < hi {
            let cols = 4.min(hi - j);
            let mut sums = [0f32; 4];
            let mut p0 = 0;
            while p0 < g.k {
                let kk = CHUNK.min(g.k - p0);
                let kv = kk / l * l;
                H::widen_run(&g.x[x0 + p0..x0 + p0 + kk], &mut xw[..kk], g.simd);
                for c in 0..cols {
                    let at = (g.sb.origin + (j + c) as isize * cs + p0 as isize) as usize;
                    H::widen_run(&g.b[at..at + kk], &mut stage[c][..kk], g.simd);
                }
                for c in 0..cols {
                    let mut lanes = [0f32; 16];
                    // SAFETY: `stage[c]` and `xw` hold kk ≥ kv elements; the ISA is the
                    // caller's.
                    unsafe {
                        let mut acc = S::zero();
                        let mut p = 0;
                        while p < kv {
                            acc = S::fma(
                                S::load(stage[c].as_ptr().add(p)),
                                S::load(xw.as_ptr().add(p)),
                                acc,
                            );
                            p += l;
                        }
                        S::store(lanes.as_mut_ptr(), acc);
                    }
                    let mut s: f32 = lanes[..l].iter().sum();
                    for p in kv..kk {
                        s += stage[c][p] * xw[p];
                    }
                    sums[c] += s;
                }
                p0 += kk;
            }
            for (c, &s) in sums[..cols].iter().enumerate() {
                store(j + c, s);
            }
            j += cols;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::gemm::{MatMut, MatRef, Options, Packing};
    use crate::isa::Isa;
    use std::vec;
    use std::vec::Vec;

    /// The 16-bit matrix × vector route on every instruction set, both forms (the matrix's
    /// rows or its columns contiguous), m = 1 and n = 1, lengths crossing the vector width and
    /// the widening chunk, β = 0 (y NaN, never read) and β ≠ 0, one and two threads: exact
    /// against the definition on whole numbers.
    #[test]
    fn half_gemv_on_every_orientation_and_isa() {
        fn check<H: crate::gemm::Pair<H, Out = f32> + super::super::Half>(from: fn(f32) -> H) {
            let mut seed = 21u32;
            let mut small = || {
                seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                ((seed >> 8) % 17) as f32 - 8.0
            };
            for isa in Isa::available() {
                for &(m, k, n) in &[
                    (1usize, 37usize, 70usize),
                    (1, 4100, 5),
                    (45, 70, 1),
                    (1, 9, 3),
                ] {
                    let af: Vec<f32> = (0..m * k).map(|_| small()).collect();
                    let bf: Vec<f32> = (0..k * n).map(|_| small()).collect();
                    let (a, b): (Vec<H>, Vec<H>) = (
                        af.iter().map(|&x| from(x)).collect(),
                        bf.iter().map(|&x| from(x)).collect(),
                    );
                    // (B row-major, A row-major): with m = 1 the rows form / the columns form
                    for (b_rows, threads, beta) in [(true, 1, 0.0f32), (false, 2, 2.0)] {
                        let (brs, bcs) = if b_rows {
                            (n as isize, 1)
                        } else {
                            (1, k as isize)
                        };
                        let bd: Vec<H> = if b_rows {
                            b.clone()
                        } else {
                            (0..k * n).map(|t| b[(t % k) * n + t / k]).collect()
                        };
                        // n = 1 streams A: its rows are the matrix's columns
                        let (ars, acs, ad): (isize, isize, Vec<H>) = if b_rows {
                            (k as isize, 1, a.clone())
                        } else {
                            (
                                1,
                                m as isize,
                                (0..m * k).map(|t| a[(t % m) * k + t / m]).collect(),
                            )
                        };
                        let c0: Vec<f32> = (0..m * n).map(|x| (x % 9) as f32).collect();
                        let mut c = if beta == 0.0 {
                            vec![f32::NAN; m * n]
                        } else {
                            c0.clone()
                        };
                        crate::gemm::gemm_with(
                            Options {
                                isa,
                                threads,
                                packing: Packing::Never,
                            },
                            -2.0,
                            MatRef {
                                data: &ad,
                                rows: m,
                                cols: k,
                                row_stride: ars,
                                col_stride: acs,
                            },
                            MatRef {
                                data: &bd,
                                rows: k,
                                cols: n,
                                row_stride: brs,
                                col_stride: bcs,
                            },
                            beta,
                            MatMut {
                                data: &mut c,
                                rows: m,
                                cols: n,
                                row_stride: n as isize,
                                col_stride: 1,
                            },
                        )
                        .unwrap();
                        for i in 0..m {
                            for j in 0..n {
                                let s: f64 = (0..k)
                                    .map(|p| f64::from(af[i * k + p]) * f64::from(bf[p * n + j]))
                                    .sum();
                                let b0 = if beta == 0.0 {
                                    0.0
                                } else {
                                    f64::from(c0[i * n + j])
                                };
                                let want = -2.0 * s + f64::from(beta) * b0;
                                assert_eq!(
                                    f64::from(c[i * n + j]),
                                    want,
                                    "{} {isa:?} {m}x{k}x{n} B rows {b_rows} ({i},{j})",
                                    core::any::type_name::<H>()
                                );
                            }
                        }
                    }
                }
            }
        }
        check(half::bf16::from_f32);
        check(half::f16::from_f32);
    }
}
