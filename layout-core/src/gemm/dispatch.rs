//! The kernel table per element type and instruction set.

use std::cell::RefCell;
use std::vec::Vec;

#[cfg(target_arch = "x86_64")]
use super::direct;
use super::kernel::{Direct, Element, KernelInfo, PORTABLE_MR, PORTABLE_NR, portable_ukr};

/// The instruction sets the GEMM has kernels for: the crate's one [`Isa`]
/// (detected once; `LAYOUT_ISA` caps every SIMD path, `LAYOUT_GEMM_ISA` the GEMM alone):
/// portable 4 × 4 tiles, AVX2 + FMA f32 16 × 6 / f64 8 × 6, AVX-512 f32 32 × 12 / f64 32 × 6,
/// aarch64 NEON f32 8 × 12 / f64 8 × 6.
pub use crate::isa::Isa;

/// An element type's kernels by instruction set, each made once ([`KernelInfo::sized`] divides
/// the cache sizes: a cost the small products of the unpacked route would otherwise pay on every
/// call).
struct Memo<T>([std::sync::OnceLock<Option<KernelInfo<T>>>; 4]);

impl<T: Copy> Memo<T> {
    const fn new() -> Self {
        Memo([const { std::sync::OnceLock::new() }; 4])
    }

    /// `make(isa)`, made on the first call for `isa`.
    fn get(&self, isa: Isa, make: fn(Isa) -> Option<KernelInfo<T>>) -> Option<KernelInfo<T>> {
        let slot = match isa {
            Isa::Portable => 0,
            Isa::Neon => 1,
            Isa::Avx2 => 2,
            Isa::Avx512 => 3,
        };
        *self.0[slot].get_or_init(|| make(isa))
    }
}

/// The most A micro-panels (32 rows each: 1024 rows) for which the AVX-512 f32 and f64 kernels
/// read a strided B with k contiguous in place on an AMD CPU
/// ([`KernelInfo::with_strided_in_place`]). Zen 5, CPU time: f32 (session 11, BENCHMARKS.md)
/// column-major 1024³ 208–210 → 221–223 GFLOP/s and 512³ 232–244 → 244–249 in place; 2048³
/// row-major measured 0.96–0.98 of packing, hence the bound. f64 (session 12, with the A block
/// of [`avx512_a_max`]): 512³ 0.93 → 0.955 of the best peer, 1024³ even; packing its B was
/// 3–4 % of a 512³ call. On an Intel Xeon (Sapphire Rapids) both pack.
#[cfg(target_arch = "x86_64")]
const AMD_AVX512_STRIDED_PANELS: usize = 32;

/// [`AMD_AVX512_STRIDED_PANELS`] on AMD, else 0 (packed).
#[cfg(target_arch = "x86_64")]
fn avx512_strided_panels() -> usize {
    if crate::isa::is_amd() {
        AMD_AVX512_STRIDED_PANELS
    } else {
        0
    }
}

/// The AVX-512 f64 kernel's KC bound when it reads a strided B in place
/// ([`KernelInfo::with_strided_kc`]): 512 on an AMD CPU, else the packed route's 256. Zen 5
/// (session 13, BENCHMARKS.md), CPU time ÷ the best peer (gemm / faer, both KC 512), within one
/// binary: 512³ 0.95 → 1.00, 1024³ 1.01 → 1.03; the packed route (2048³) measured 0.97 → 0.91
/// at KC 512, so it keeps 256; f32 was even.
#[cfg(target_arch = "x86_64")]
fn avx512_f64_strided_kc() -> usize {
    if crate::isa::is_amd() { 512 } else { 256 }
}

/// The f32/f64 kernels' bound on the packed A block: 384 KiB (measured on Zen 3/4/5 and the
/// Sapphire Rapids, [`KernelInfo::sized`]).
const A_MAX: usize = 384 << 10;

/// The AVX-512 f32/f64 kernels' bound on the packed A block: on an AMD CPU with at least 1 MiB
/// of L2 per core (Zen 4, Zen 5) half of L2, else [`A_MAX`] (MC 384 → 512 rows f32, 192 → 256
/// f64: 512 and 1024 rows in equal blocks). Zen 5 (L2 1 MiB, session 12, BENCHMARKS.md), ÷ the
/// best peer, within one binary: f32 1024³ 0.96 → 0.985, f64 512³ with B in place 0.95 → 0.97;
/// against the session-start binary f32 measured even.
#[cfg(target_arch = "x86_64")]
fn avx512_a_max() -> usize {
    let l2 = crate::isa::Caches::get().l2;
    if crate::isa::is_amd() && l2 >= 1 << 20 {
        (l2 / 2).max(A_MAX)
    } else {
        A_MAX
    }
}

/// The f32/f64 kernels' blocking ([`KernelInfo::sized`]): KC at most 256, the A block at most
/// [`A_MAX`].
fn info<T>(mr: usize, nr: usize, ukr: super::kernel::Ukr<T>) -> KernelInfo<T> {
    KernelInfo::sized(mr, nr, 256, A_MAX, ukr)
}

/// [`info`] for the AVX-512 kernels: the A block at most [`avx512_a_max`].
#[cfg(target_arch = "x86_64")]
fn info_avx512<T>(mr: usize, nr: usize, ukr: super::kernel::Ukr<T>) -> KernelInfo<T> {
    KernelInfo::sized(mr, nr, 256, avx512_a_max(), ukr)
}

/// `Element::unpacked` for one element type: its AVX-512 and
/// AVX2 unpacked kernels (`direct.rs`), none on other targets.
macro_rules! unpacked {
    ($t:ty, $z:ident, $y:ident) => {
        #[inline]
        fn unpacked(isa: Isa, d: Direct<'_, $t>, threads: usize, any_size: bool) -> bool {
            // a `Direct` is built only from a checked `Product` (its fields are private to the
            // crate), whose instruction set the front checked is available
            #[cfg(target_arch = "x86_64")]
            {
                match isa {
                    Isa::Avx512 => {
                        // SAFETY: AVX-512 is available (the front's check); `d` is checked.
                        return unsafe { direct::run::<direct::$z>(d, threads, any_size) };
                    }
                    Isa::Avx2 => {
                        // SAFETY: AVX2 and FMA are available (the front's check); `d` is checked.
                        return unsafe { direct::run::<direct::$y>(d, threads, any_size) };
                    }
                    Isa::Portable | Isa::Neon => {}
                }
            }
            let _ = (isa, d, threads, any_size);
            false
        }
        #[inline]
        fn tiny(isa: Isa, d: Direct<'_, $t>) -> bool {
            // as `unpacked`: a `Direct` comes from a checked `Product` only
            #[cfg(target_arch = "x86_64")]
            {
                match isa {
                    Isa::Avx512 => {
                        // SAFETY: AVX-512 is available (the front's check); `d` is checked.
                        return unsafe { direct::tiny::<direct::$z>(d) };
                    }
                    Isa::Avx2 => {
                        // SAFETY: AVX2 and FMA are available (the front's check); `d` is checked.
                        return unsafe { direct::tiny::<direct::$y>(d) };
                    }
                    Isa::Portable | Isa::Neon => {}
                }
            }
            let _ = (isa, d);
            false
        }
    };
}

/// Whether [`Element::kernel`] has a kernel for `isa` in this build, without making it (no
/// [`Memo`] lookup: the front asks this on every call): every target has the portable tiles,
/// x86-64 AVX2 and AVX-512, aarch64 NEON.
#[inline]
pub(crate) const fn has_kernel(isa: Isa) -> bool {
    match isa {
        Isa::Portable => true,
        Isa::Avx2 | Isa::Avx512 => cfg!(target_arch = "x86_64"),
        Isa::Neon => cfg!(target_arch = "aarch64"),
    }
}

impl Element for f32 {
    const OP: &'static str = "sgemm";
    fn batch_tiles(isa: Isa) -> Option<super::batch::Tiles<f32>> {
        super::batch::tiles_of_f32(isa)
    }
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<f32>, &mut Vec<f32>) -> R) -> R {
        std::thread_local! {
            static BUFS: RefCell<(Vec<f32>, Vec<f32>)> = const { RefCell::new((Vec::new(), Vec::new())) };
        }
        with_cached(&BUFS, f)
    }
    fn with_dense<R>(f: impl FnOnce(&mut [Vec<f32>; 3]) -> R) -> R {
        std::thread_local! {
            static DENSE: RefCell<[Vec<f32>; 3]> = const { RefCell::new([const { Vec::new() }; 3]) };
        }
        lend(&DENSE, f)
    }
    unpacked!(f32, Avx512S, Avx2S);
    fn kvec(p: &mut super::view::Product<'_, f32, f32, f32>) -> bool {
        super::kvec::try_run(p)
    }
    fn kernel_for_run(isa: Isa, run: usize) -> Option<KernelInfo<f32>> {
        // AVX-512: the 32 × 12 zmm tile storing each zmm in two 8-element runs (an NZ C)
        #[cfg(target_arch = "x86_64")]
        if isa == Isa::Avx512 && run == super::x86::HALVES_RUN_F32 {
            // made once (its blocking divides the cache sizes: a small NZ product asked for it
            // on every call)
            static RUNS: std::sync::OnceLock<KernelInfo<f32>> = std::sync::OnceLock::new();
            let (mr, nr) = super::x86::AVX512_F32;
            return Some(*RUNS.get_or_init(|| {
                info(mr, nr, super::x86::avx512_f32_runs)
                    .with_narrow(
                        super::x86::AVX512_F32_NARROW,
                        super::x86::avx512_f32_runs_narrow,
                    )
                    .with_lanes(run)
                    .with_in_place(super::x86::avx512_f32_runs_in_place)
                    .with_narrow_in_place(super::x86::avx512_f32_runs_narrow_in_place)
                    .with_strided_in_place(avx512_strided_panels())
            }));
        }
        let _ = (isa, run);
        None
    }
    fn kernel(isa: Isa) -> Option<KernelInfo<f32>> {
        static TABLE: Memo<f32> = Memo::new();
        TABLE.get(isa, kernel_of_f32)
    }
}

/// The f32 kernel of `isa` with its blocking, as [`Element::kernel`] returns it (once per
/// instruction set: [`Memo`]).
fn kernel_of_f32(isa: Isa) -> Option<KernelInfo<f32>> {
    match isa {
        Isa::Portable => Some(info(PORTABLE_MR, PORTABLE_NR, portable_ukr::<f32>)),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => {
            let (mr, nr) = super::x86::AVX2_F32;
            Some(
                info(mr, nr, super::x86::avx2_f32)
                    .with_lanes(8)
                    .with_in_place(super::x86::avx2_f32_in_place)
                    .with_in_place_a(super::x86::avx2_f32_in_place_a),
            )
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            let (mr, nr) = super::x86::AVX512_F32;
            Some(
                info_avx512(mr, nr, super::x86::avx512_f32)
                    .with_narrow(super::x86::AVX512_F32_NARROW, super::x86::avx512_f32_narrow)
                    .with_narrow_in_place(super::x86::avx512_f32_narrow_in_place)
                    .with_narrow_in_place_a(super::x86::avx512_f32_narrow_in_place_a)
                    .with_lanes(16)
                    .with_in_place(super::x86::avx512_f32_in_place)
                    .with_in_place_a(super::x86::avx512_f32_in_place_a)
                    // (run in two halves of 6: edges of 6–11 columns as a half and a narrow one)
                    .with_in_place_edge(nr - 1)
                    .with_strided_in_place(avx512_strided_panels()),
            )
        }
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => {
            let (mr, nr) = super::neon::NEON_F32;
            Some(info(mr, nr, super::neon::neon_f32).with_in_place(super::neon::neon_f32_in_place))
        }
        #[cfg(not(target_arch = "x86_64"))]
        Isa::Avx2 | Isa::Avx512 => None,
        #[cfg(not(target_arch = "aarch64"))]
        Isa::Neon => None,
    }
}

impl Element for f64 {
    const OP: &'static str = "dgemm";
    fn batch_tiles(isa: Isa) -> Option<super::batch::Tiles<f64>> {
        super::batch::tiles_of_f64(isa)
    }
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<f64>, &mut Vec<f64>) -> R) -> R {
        std::thread_local! {
            static BUFS: RefCell<(Vec<f64>, Vec<f64>)> = const { RefCell::new((Vec::new(), Vec::new())) };
        }
        with_cached(&BUFS, f)
    }
    fn with_dense<R>(f: impl FnOnce(&mut [Vec<f64>; 3]) -> R) -> R {
        std::thread_local! {
            static DENSE: RefCell<[Vec<f64>; 3]> = const { RefCell::new([const { Vec::new() }; 3]) };
        }
        lend(&DENSE, f)
    }
    unpacked!(f64, Avx512D, Avx2D);
    fn kvec(p: &mut super::view::Product<'_, f64, f64, f64>) -> bool {
        super::kvec::try_run(p)
    }
    fn kernel_for_run(isa: Isa, run: usize) -> Option<KernelInfo<f64>> {
        // AVX-512: the 32 × 6 zmm tile storing each zmm in two 4-element runs (an NZ C)
        #[cfg(target_arch = "x86_64")]
        if isa == Isa::Avx512 && run == super::x86::HALVES_RUN_F64 {
            // made once (see the f32 table)
            static RUNS: std::sync::OnceLock<KernelInfo<f64>> = std::sync::OnceLock::new();
            let (mr, nr) = super::x86::AVX512_F64;
            return Some(*RUNS.get_or_init(|| {
                info(mr, nr, super::x86::avx512_f64_runs)
                    .with_narrow(
                        super::x86::AVX512_F64_NARROW,
                        super::x86::avx512_f64_runs_narrow,
                    )
                    .with_lanes(run)
                    .with_in_place(super::x86::avx512_f64_runs_in_place)
                    .with_narrow_in_place(super::x86::avx512_f64_runs_narrow_in_place)
                    .without_strided_in_place()
            }));
        }
        #[cfg(target_arch = "aarch64")]
        if isa == Isa::Neon && run == super::neon::FRACTAL_F64.0 {
            let (mr, nr) = super::neon::FRACTAL_F64;
            return Some(
                info(mr, nr, super::neon::fractal_f64)
                    .with_in_place(super::neon::fractal_f64_in_place),
            );
        }
        let _ = (isa, run);
        None
    }
    fn kernel(isa: Isa) -> Option<KernelInfo<f64>> {
        static TABLE: Memo<f64> = Memo::new();
        TABLE.get(isa, kernel_of_f64)
    }
}

/// The f64 kernel of `isa` with its blocking, as [`Element::kernel`] returns it (once per
/// instruction set: [`Memo`]).
fn kernel_of_f64(isa: Isa) -> Option<KernelInfo<f64>> {
    match isa {
        Isa::Portable => Some(info(PORTABLE_MR, PORTABLE_NR, portable_ukr::<f64>)),
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => {
            let (mr, nr) = super::x86::AVX2_F64;
            Some(
                info(mr, nr, super::x86::avx2_f64)
                    .with_lanes(4)
                    .with_in_place(super::x86::avx2_f64_in_place)
                    .with_in_place_a(super::x86::avx2_f64_in_place_a),
            )
        }
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => {
            let (mr, nr) = super::x86::AVX512_F64;
            Some(
                info_avx512(mr, nr, super::x86::avx512_f64)
                    .with_narrow(super::x86::AVX512_F64_NARROW, super::x86::avx512_f64_narrow)
                    .with_narrow_in_place(super::x86::avx512_f64_narrow_in_place)
                    .with_narrow_in_place_a(super::x86::avx512_f64_narrow_in_place_a)
                    .with_lanes(8)
                    .with_in_place(super::x86::avx512_f64_in_place)
                    .with_in_place_a(super::x86::avx512_f64_in_place_a)
                    .with_strided_in_place(avx512_strided_panels())
                    .with_strided_kc(avx512_f64_strided_kc(), avx512_a_max()),
            )
        }
        #[cfg(target_arch = "aarch64")]
        Isa::Neon => {
            let (mr, nr) = super::neon::NEON_F64;
            Some(info(mr, nr, super::neon::neon_f64).with_in_place(super::neon::neon_f64_in_place))
        }
        #[cfg(not(target_arch = "x86_64"))]
        Isa::Avx2 | Isa::Avx512 => None,
        #[cfg(not(target_arch = "aarch64"))]
        Isa::Neon => None,
    }
}

/// Buffers a thread keeps between calls ([`lend`]): their capacity in bytes.
pub(crate) trait Kept: Default {
    /// Bytes held.
    fn bytes(&self) -> usize;
}

impl<T> Kept for (Vec<T>, Vec<T>) {
    fn bytes(&self) -> usize {
        (self.0.capacity() + self.1.capacity()) * core::mem::size_of::<T>()
    }
}

impl<T, const N: usize> Kept for [Vec<T>; N]
where
    [Vec<T>; N]: Default,
{
    fn bytes(&self) -> usize {
        self.iter().map(Vec::capacity).sum::<usize>() * core::mem::size_of::<T>()
    }
}

/// Lends the thread's cached buffers to `f`, or fresh ones when the cache is busy (re-entrant
/// use) or gone (thread teardown). Buffers larger than 64 MiB in all are not kept.
pub(crate) fn lend<C: Kept, R>(
    cache: &'static std::thread::LocalKey<RefCell<C>>,
    f: impl FnOnce(&mut C) -> R,
) -> R {
    let mut bufs = cache
        .try_with(|c| {
            c.try_borrow_mut()
                .map(|mut b| core::mem::take(&mut *b))
                .ok()
        })
        .ok()
        .flatten()
        .unwrap_or_default();
    let r = f(&mut bufs);
    if bufs.bytes() <= 64 << 20 {
        let _ = cache.try_with(|c| {
            if let Ok(mut b) = c.try_borrow_mut() {
                *b = bufs;
            }
        });
    }
    r
}

/// [`lend`] for the packing buffers: a pair.
pub(crate) fn with_cached<T, R>(
    cache: &'static std::thread::LocalKey<RefCell<(Vec<T>, Vec<T>)>>,
    f: impl FnOnce(&mut Vec<T>, &mut Vec<T>) -> R,
) -> R {
    lend(cache, |(a, b)| f(a, b))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`has_kernel`] answers as the kernel table does, for both element types.
    #[test]
    fn has_kernel_is_the_table() {
        for isa in Isa::ALL {
            assert_eq!(has_kernel(isa), f32::kernel(isa).is_some(), "{isa:?}");
            assert_eq!(has_kernel(isa), f64::kernel(isa).is_some(), "{isa:?}");
        }
    }
}
