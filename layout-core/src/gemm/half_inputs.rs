//! 16-bit float inputs accumulating in `f32`: `C(f32) ← α·A·B + β·C` with A and B in
//! [`half::f16`] or [`half::bf16`].
//!
//! Both run the `f32` engine's loops, blocking, threads and edge handling, with operands of any
//! layout. bf16 on a CPU with AVX-512 BF16 (and the AVX-512 level selected) packs k in pairs for
//! the `vdpbf16ps` kernel of `bf16.rs` (two multiply-adds per lane and instruction). Everything
//! else is widened to `f32` inside packing (F16C `vcvtph2ps` for f16, a 16-bit shift for bf16;
//! `widen.rs`) and runs the `f32` kernels: no widened copy of A or B is ever made. Products of
//! two 16-bit floats are exact in `f32`; `vdpbf16ps` rounds each pair's sum and flushes
//! denormals (results may differ from the converting path in the last bits on general data; on
//! integer data small enough for bf16 both are exact).

use super::block::run_panels;
use super::view::Product;
#[cfg(target_arch = "x86_64")]
use super::view::View;
use super::widen::Half;

/// The 16-bit pairs on a checked product (operands strided or mapped): A and Bᵀ widened to
/// `f32` inside packing and the `f32` kernels of the product's instruction set, or (bf16 on
/// AVX-512 BF16) paired along k for the `vdpbf16ps` kernel.
pub(crate) fn run_widened<H: Half>(p: Product<'_, H, H, f32>) {
    // bf16 on AMX: tiles of 32 k (`amx.rs`)
    #[cfg(target_arch = "x86_64")]
    if kstep::<H>(p.isa) == super::amx::KCHUNK {
        // SAFETY: H is bf16 (`kstep` is 32 only for bf16 on AMX).
        let (a, b) = unsafe { (as_bf16(p.a), as_bf16(p.b)) };
        let (asrc, bsrc) = (
            super::amx::AmxRows(a.rows()),
            super::amx::AmxRows(b.transposed().rows()),
        );
        run_panels::<super::amx::AmxBf16>(
            &super::amx::kernel(),
            p.mkn,
            p.alpha,
            &asrc,
            &bsrc,
            p.beta,
            p.c,
            p.threads,
        );
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if kstep::<H>(p.isa) == 2 {
        // SAFETY: H is bf16 (`kstep` is 2 only for bf16 on AVX-512 BF16).
        let (a, b) = unsafe { (as_bf16(p.a), as_bf16(p.b)) };
        let (asrc, bsrc) = (
            super::bf16::PairRows(a.rows()),
            super::bf16::PairRows(b.transposed().rows()),
        );
        let ki = super::bf16::kernel();
        run_panels::<super::bf16::Bf16Pairs>(
            &ki, p.mkn, p.alpha, &asrc, &bsrc, p.beta, p.c, p.threads,
        );
        return;
    }
    // bf16 on aarch64 with FEAT_BF16: k quads for `bfmmla` (`neon_bf16.rs`)
    #[cfg(target_arch = "aarch64")]
    if kstep::<H>(p.isa) == 4 {
        return super::neon_bf16::run(p);
    }
    // (a C of short runs, an NZ C, takes the kernel that stores them from its registers)
    let [m, _, n] = p.mkn;
    let ki = super::block::kernel_for::<f32>(p.isa, [m, n], p.c.cmap);
    let simd = super::widen::simd(p.isa);
    let (mut asrc, mut bsrc) = (p.a.rows(), p.b.transposed().rows());
    (asrc.simd, bsrc.simd) = (simd, simd);
    run_panels::<f32>(&ki, p.mkn, p.alpha, &asrc, &bsrc, p.beta, p.c, p.threads);
}

/// A 16-bit operand seen as bf16.
///
/// # Safety
/// `H` is `half::bf16`.
#[cfg(target_arch = "x86_64")]
pub(crate) unsafe fn as_bf16<H: Half>(v: View<'_, H>) -> View<'_, half::bf16> {
    View {
        // SAFETY: H is bf16 (the caller's contract): the same slice, its own type.
        data: unsafe {
            core::slice::from_raw_parts(v.data.as_ptr().cast::<half::bf16>(), v.data.len())
        },
        at: v.at,
        map: v.map,
    }
}

/// A 16-bit operand's packing source seen as bf16.
///
/// # Safety
/// `H` is `half::bf16`.
#[cfg(target_arch = "x86_64")]
pub(crate) unsafe fn rows_as_bf16<H: Half>(
    r: super::pack::Rows<'_, H>,
) -> super::pack::Rows<'_, half::bf16> {
    super::pack::Rows {
        // SAFETY: H is bf16 (the caller's contract): the same slice, its own type.
        src: unsafe {
            core::slice::from_raw_parts(r.src.as_ptr().cast::<half::bf16>(), r.src.len())
        },
        origin: r.origin,
        sv: r.sv,
        sk: r.sk,
        map: r.map,
        simd: r.simd,
    }
}

/// k values per packed step for the 16-bit type `H` on `isa`: 32 where bf16 runs AMX's
/// `tdpbf16ps`, 2 where it runs `vdpbf16ps`, 4 where it runs `bfmmla` (aarch64 with bf16), else
/// 1 (widened to f32).
#[cfg_attr(
    not(any(target_arch = "x86_64", target_arch = "aarch64")),
    allow(clippy::extra_unused_type_parameters)
)]
pub(crate) fn kstep<H: Half>(isa: super::Isa) -> usize {
    #[cfg(target_arch = "aarch64")]
    if crate::isa::Ext::Bf16.usable(isa)
        && core::any::TypeId::of::<H>() == core::any::TypeId::of::<half::bf16>()
    {
        return 4;
    }
    #[cfg(target_arch = "x86_64")]
    if super::amx::usable(isa)
        && core::any::TypeId::of::<H>() == core::any::TypeId::of::<half::bf16>()
    {
        return super::amx::KCHUNK;
    }
    #[cfg(target_arch = "x86_64")]
    if isa == super::Isa::Avx512
        && super::bf16::available()
        && core::any::TypeId::of::<H>() == core::any::TypeId::of::<half::bf16>()
    {
        return 2;
    }
    let _ = isa;
    1
}

/// The k values per step of a packed panel of `r` rows for the 16-bit type `H` on `isa`
/// ([`Pair::panel_layout`](super::Pair::panel_layout)): as [`kstep`], except that on AMX the
/// vectorised operand's panels ([`amx::MR`](super::amx::MR) rows) hold k in pairs (the
/// broadcast operand's in groups of 32).
pub(crate) fn panel_kstep<H: Half>(isa: super::Isa, r: usize) -> usize {
    let g = kstep::<H>(isa);
    #[cfg(target_arch = "x86_64")]
    if g == super::amx::KCHUNK && r == super::amx::MR {
        return 2;
    }
    let _ = r;
    g
}
