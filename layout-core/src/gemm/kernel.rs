//! The microkernel: one MR×NR tile of C kept in registers over a k loop.
//!
//! The body is written once ([`tile_body`]), generic over a vector abstraction ([`Simd`]) and the
//! tile shape, and instantiated per instruction set by thin `#[target_feature]` wrappers
//! (`x86.rs`) or the portable wrappers below.
#![allow(clippy::needless_range_loop)]

use core::ops::{Add, Mul};
use std::vec::Vec;

use super::check::Strided;
use crate::isa::Isa;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    pub trait SealedScalar {}
    impl SealedScalar for f32 {}
    impl SealedScalar for f64 {}
    impl SealedScalar for i32 {}
}

/// The element of C, α and β for some [`Pair`](super::Pair): `f32`, `f64` or `i32` (sealed).
///
/// ```
/// use layout::gemm::Scalar;
/// assert_eq!(3i32.scale(i32::MAX), 3i32.wrapping_mul(i32::MAX)); // integers wrap
/// assert_eq!(<f32 as Scalar>::ONE, 1.0);
/// ```
pub trait Scalar:
    sealed::SealedScalar + Copy + Default + PartialEq + core::fmt::Debug + Send + Sync + 'static
{
    /// Additive identity.
    const ZERO: Self;
    /// Multiplicative identity.
    const ONE: Self;
    /// `self·beta`, wrapping for integers as the instructions wrap.
    fn scale(self, beta: Self) -> Self;
}

impl Scalar for f32 {
    const ZERO: f32 = 0.0;
    const ONE: f32 = 1.0;
    #[inline(always)]
    fn scale(self, beta: f32) -> f32 {
        self * beta
    }
}
impl Scalar for f64 {
    const ZERO: f64 = 0.0;
    const ONE: f64 = 1.0;
    #[inline(always)]
    fn scale(self, beta: f64) -> f64 {
        self * beta
    }
}
impl Scalar for i32 {
    const ZERO: i32 = 0;
    const ONE: i32 = 1;
    #[inline(always)]
    fn scale(self, beta: i32) -> i32 {
        self.wrapping_mul(beta)
    }
}

/// The element types the GEMM supports: `f32` and `f64`.
pub trait Element:
    sealed::Sealed
    + Scalar
    + Copy
    + Add<Output = Self>
    + Mul<Output = Self>
    + PartialEq
    + Default
    + core::fmt::Debug
    + Send
    + Sync
    + 'static
{
    /// `"sgemm"` or `"dgemm"`.
    const OP: &'static str;
    /// The kernel and block sizes for `isa`, `None` when this build has no kernel for it.
    #[doc(hidden)]
    fn kernel(isa: Isa) -> Option<KernelInfo<Self>>;
    /// A kernel whose MR is `run` (an output whose contiguous runs are that long: an NZ
    /// fractal row of C0 elements), when `isa` has one; `None` otherwise.
    #[doc(hidden)]
    fn kernel_for_run(isa: Isa, run: usize) -> Option<KernelInfo<Self>>;
    /// Runs a checked product on the unpacked kernels of `isa` if it is small and its strides
    /// suit them (with `any_size`, whatever its size); `false` (nothing touched) otherwise.
    #[doc(hidden)]
    fn unpacked(isa: Isa, d: Direct<'_, Self>, threads: usize, any_size: bool) -> bool;
    /// Runs a checked tiny product (every extent at most `front::TINY`, m, n ≥ 2, one
    /// thread) on the unpacked tiles of `isa` where [`Element::unpacked`] would run them as
    /// outer products; `false` (nothing touched) otherwise.
    #[doc(hidden)]
    fn tiny(isa: Isa, d: Direct<'_, Self>) -> bool;
    /// Runs a checked product on the k-vector route (A's rows and B's columns read in place,
    /// contiguous along k: A·Bᵀ of row-major operands) if it suits them;
    /// `false` (nothing touched) otherwise.
    #[doc(hidden)]
    fn kvec(p: &mut super::view::Product<'_, Self, Self, Self>) -> bool;
    /// Runs `f` with this thread's two packing buffers (kept between calls so that large calls
    /// do not map and fault in fresh pages each time); fresh buffers when they are in use.
    #[doc(hidden)]
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<Self>, &mut Vec<Self>) -> R) -> R;
    /// Runs `f` with this thread's three buffers for dense copies of operands that are not
    /// affine (A, B, C: a swizzled operand densified by the copy engine), kept between calls
    /// like [`with_buffers`](Element::with_buffers)'s.
    #[doc(hidden)]
    fn with_dense<R>(f: impl FnOnce(&mut [Vec<Self>; 3]) -> R) -> R;
    /// The batch-reduce's register-tile kernels for `isa` (`batch.rs`), `None` where it has
    /// none.
    #[doc(hidden)]
    fn batch_tiles(isa: Isa) -> Option<super::batch::Tiles<Self>>;
}

/// A checked strided product for the unpacked kernels: every element (i, j) of each operand
/// at `origin + i·rs + j·cs` of its slice is in bounds, C has no two elements at one location,
/// the shapes agree (the front's checks).
#[doc(hidden)]
// (read by the x86-64 unpacked kernels)
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub struct Direct<'a, T> {
    pub(crate) m: usize,
    pub(crate) k: usize,
    pub(crate) n: usize,
    pub(crate) alpha: T,
    pub(crate) a: &'a [T],
    pub(crate) sa: Strided,
    pub(crate) b: &'a [T],
    pub(crate) sb: Strided,
    pub(crate) beta: T,
    pub(crate) c: &'a mut [T],
    pub(crate) sc: Strided,
}

/// The arguments of one microkernel call.
///
/// The kernel computes `C ← α·Ã·B̃ + β·C` for one MR×NR tile, where
/// - `a` points at a packed A micro-panel: `k` groups of MR contiguous elements (the layout
///   `(MR, k) : (1, MR)`);
/// - `b` points at a packed B micro-panel: `k` groups of NR contiguous elements (`(NR, k) : (1, NR)`);
/// - element (i, j) of the C tile is at `c + i·rsc + j·csc`.
///
/// With `beta == 0` the kernel never reads C.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct Tile<T, P = T> {
    pub(crate) k: usize,
    pub(crate) alpha: T,
    pub(crate) beta: T,
    pub(crate) a: *const P,
    pub(crate) b: *const P,
    pub(crate) c: *mut T,
    pub(crate) rsc: isize,
    pub(crate) csc: isize,
    /// With `rsc == 1`, the distance between the tile's row vectors (rows `i` and `i + LANES`
    /// of a column): 0 when they are contiguous. Non-zero only for kernels whose
    /// [`KernelInfo::lanes`] is non-zero: a C whose contiguous runs are one vector long (an NZ
    /// fractal's C0 elements) is stored from the registers vector by vector.
    pub(crate) vsc: isize,
}

/// A microkernel entry point.
///
/// # Safety
/// `a` must be valid for `MR·k·KSTEP` reads, `b` for `NR·k·KSTEP` reads (`KSTEP` of the
/// element pair, see [`Kern`]), every C element of the tile for a read and a write (no read
/// when `beta == 0`), and the instruction set the kernel was compiled for must be available.
pub(crate) type Ukr<T, P = T> = unsafe fn(&Tile<T, P>);

/// The most columns an in-place kernel ([`UkrInPlace`]) reads.
pub(crate) const MAX_NR_IN_PLACE: usize = 12;

/// The broadcast operand of a tile read where it is instead of from a packed micro-panel:
/// B(p, j) (k step `p` from the tile's first, column `j < NR`) is `*cols[j].offset(koff[p])`.
/// An operand of any affine layout has this form (its offset is the sum of one offset per
/// axis: [`AxisMap`](super::maps::AxisMap)), so NZ, ZN, blocked and interleaved operands are
/// read in place through their axis maps.
#[derive(Clone, Copy)]
pub(crate) struct InPlace<P> {
    /// Column `j`'s element at k offset 0 (columns past the tile's width repeat its first).
    pub cols: [*const P; MAX_NR_IN_PLACE],
    /// The k offsets of the tile's k steps (at least `Tile::k` of them).
    pub koff: *const isize,
    /// The tile's columns: the kernel's NR, or for an edge tile at most [`NARROW_IN_PLACE`]
    /// (and fewer than NR), which runs the kernel of its own width and stores only its columns.
    pub nr: usize,
    /// For a kernel that reads its vectorised operand in place too
    /// ([`KernelInfo::in_place_a`]): that operand's k stride in elements (`Tile::a` is the
    /// tile's first row at its first k step, k step `p`'s MR contiguous rows at
    /// `a + p·ak`). The other kernels ignore it (their k step is MR, a packed micro-panel).
    pub ak: isize,
}

/// The widest edge tile an in-place kernel runs at its own width ([`InPlace::nr`]); wider
/// edge tiles of a wider kernel go through the stack tile.
pub(crate) const NARROW_IN_PLACE: usize = 5;

/// A microkernel whose broadcast operand is read in place ([`InPlace`]; `Tile::b` unused).
///
/// # Safety
/// As [`Ukr`], with every `cols[j].offset(koff[p])` (`j < NR`, `p < k`) valid for a read
/// instead of `b`.
pub(crate) type UkrInPlace<T, P = T> = unsafe fn(&Tile<T, P>, &InPlace<P>);

/// A microkernel with its tile shape and cache blocking.
#[doc(hidden)]
#[derive(Clone, Copy, Debug)]
pub struct KernelInfo<T, P = T> {
    pub(crate) mr: usize,
    pub(crate) nr: usize,
    pub(crate) kc: usize,
    pub(crate) mc: usize,
    pub(crate) nc: usize,
    pub(crate) ukr: Ukr<T, P>,
    /// The same kernel reading its broadcast operand in place, where it has one.
    pub(crate) in_place: Option<UkrInPlace<T, P>>,
    /// Rows per vector register when the kernel stores C's row vectors at any distance
    /// ([`Tile::vsc`]); 0 when it needs them contiguous.
    pub(crate) lanes: usize,
    /// The most micro-panels of the vectorised operand (rows ÷ MR) for which
    /// [`in_place`](Self::in_place) also serves a strided broadcast operand with k contiguous
    /// (its packing a transpose); 0 where packing it measured faster
    /// ([`without_strided_in_place`](Self::without_strided_in_place)).
    pub(crate) strided_in_place: usize,
    /// `[KC, MC]` for a product whose broadcast operand is strided and read in place
    /// ([`with_strided_kc`](Self::with_strided_kc)); `None`: [`kc`](Self::kc) and
    /// [`mc`](Self::mc) as for a packed one.
    pub(crate) strided_kc: Option<[usize; 2]>,
    /// The same MR with fewer columns (`(NR', kernel)`, NR' < NR), for a product whose
    /// broadcast extent is small: [`fit`](Self::fit) picks it where its tiles waste fewer
    /// columns (16 columns: two 8-column tiles instead of 12 + a 4-column edge).
    pub(crate) narrow: Option<(usize, Ukr<T, P>)>,
    /// The narrow kernel reading its broadcast operand in place, where it has one (the
    /// AVX-512 NZ-C tiles: a small NZ/ZZ A read through its axis maps).
    pub(crate) narrow_in_place: Option<UkrInPlace<T, P>>,
    /// The widest edge tile (fewer than NR columns) that [`in_place`](Self::in_place) runs at
    /// its own width and stores from its registers ([`InPlace::nr`]): [`NARROW_IN_PLACE`], or
    /// NR − 1 for a kernel run in two halves whose second half takes the narrow widths
    /// ([`tile_body_in_place_halves`]; [`with_in_place_edge`](Self::with_in_place_edge)).
    pub(crate) in_place_edge: usize,
    /// The [`in_place`](Self::in_place) kernel reading its vectorised operand in place as
    /// well: MR contiguous rows per k step, [`InPlace::ak`] apart (the user's row-major B under
    /// a row-major C whose A is read through its axis maps), where it has one.
    pub(crate) in_place_a: Option<UkrInPlace<T, P>>,
    /// The narrow kernel's [`in_place_a`](Self::in_place_a) variant, where it has one
    /// ([`fit`](Self::fit) takes it with the narrow kernel).
    pub(crate) narrow_in_place_a: Option<UkrInPlace<T, P>>,
}

impl<T, P> KernelInfo<T, P> {
    /// The kernel `ukr` of an `mr × nr` tile with its cache blocking derived from this CPU's
    /// caches ([`Caches`](crate::isa::Caches); `LAYOUT_CACHES` sets another CPU's):
    /// - **KC** (k values per packed panel, at most `kc_max`, a multiple of 16): the B
    ///   micro-panel (NR × KC packed elements), reused from L1 by every A micro-panel of a
    ///   block, takes at most half of L1d, leaving the other half to the A micro-panel streaming
    ///   through (BLIS's haswell, zen3 and skx configurations: KC = 256 for f32/f64).
    /// - **MC** (a multiple of MR): the packed A block (MC × KC), re-read from L2 for every B
    ///   micro-panel, takes at most three quarters of L2 and at most `a_max` bytes (384 KiB for
    ///   f32/f64, measured on Zen 3/4/5; a 256 KiB L2 gives 192 KiB; the AVX-512 kernels on an
    ///   AMD CPU with 1 MiB of L2 or more take half of it, `dispatch::avx512_a_max`). Half of Zen 3's L2
    ///   (MC = 256 f32 / 128 f64) was simulated (cachegrind with Zen 3's L1d and L2) at 5–10 %
    ///   more L2 misses at 512³ and 1024³ than 384 KiB: B's block is re-read once per A block.
    /// - **NC** (a multiple of NR, about 4096 at most): the KC × NC B block takes at most a
    ///   quarter of the last-level cache.
    pub(crate) fn sized(mr: usize, nr: usize, kc_max: usize, a_max: usize, ukr: Ukr<T, P>) -> Self {
        let p = core::mem::size_of::<P>();
        let [kc, mc, nc] = blocking(crate::isa::Caches::get(), [mr, nr, p], kc_max, a_max);
        KernelInfo {
            mr,
            nr,
            kc,
            mc,
            nc,
            ukr,
            in_place: None,
            lanes: 0,
            strided_in_place: IN_PLACE_PANELS_STRIDED,
            strided_kc: None,
            narrow: None,
            narrow_in_place: None,
            in_place_edge: NARROW_IN_PLACE,
            in_place_a: None,
            narrow_in_place_a: None,
        }
    }

    /// The same kernel, whose in-place variant runs edge tiles of up to `edge` columns (fewer
    /// than NR) at their own width ([`in_place_edge`](Self::in_place_edge)).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn with_in_place_edge(self, edge: usize) -> Self {
        debug_assert!(edge < self.nr && edge >= NARROW_IN_PLACE);
        KernelInfo {
            in_place_edge: edge,
            ..self
        }
    }

    /// The same kernel, with `ukr` its variant of `nr` columns (fewer than its NR) for
    /// products with few columns ([`fit`](Self::fit)).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn with_narrow(self, nr: usize, ukr: Ukr<T, P>) -> Self {
        debug_assert!(nr < self.nr && nr > 0);
        KernelInfo {
            narrow: Some((nr, ukr)),
            ..self
        }
    }

    /// The kernel for a product of `n` columns (the broadcast operand's extent): the narrow
    /// variant where `n` is at most [`NARROW_MAX_N`] and its tiles cover fewer padded columns
    /// than NR's (16 columns: 2 × 8 against 2 × 12), else this one. The narrow tile keeps MR,
    /// KC and MC (a B packed ahead of time for MR stays valid) and reads its broadcast operand
    /// packed, or in place where it has a variant for that
    /// ([`with_narrow_in_place`](Self::with_narrow_in_place)).
    pub(crate) fn fit(&self, n: usize) -> Self
    where
        T: Copy,
        P: Copy,
    {
        match self.narrow {
            Some((nr, ukr))
                if n <= NARROW_MAX_N && n.div_ceil(nr) * nr < n.div_ceil(self.nr) * self.nr =>
            {
                KernelInfo {
                    nr,
                    ukr,
                    nc: (self.nc / nr).max(1) * nr,
                    in_place: self.narrow_in_place,
                    narrow: None,
                    narrow_in_place: None,
                    in_place_edge: NARROW_IN_PLACE,
                    in_place_a: self.narrow_in_place_a,
                    narrow_in_place_a: None,
                    ..*self
                }
            }
            _ => *self,
        }
    }

    /// The same kernel, with `f` the variant of its narrow kernel
    /// ([`with_narrow`](Self::with_narrow)) reading the broadcast operand in place.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn with_narrow_in_place(self, f: UkrInPlace<T, P>) -> Self {
        debug_assert!(self.narrow.is_some());
        KernelInfo {
            narrow_in_place: Some(f),
            ..self
        }
    }

    /// The same kernel, with `f` its variant reading the broadcast operand in place.
    #[cfg_attr(
        not(any(target_arch = "x86_64", target_arch = "aarch64")),
        allow(dead_code)
    )]
    pub(crate) fn with_in_place(self, f: UkrInPlace<T, P>) -> Self {
        KernelInfo {
            in_place: Some(f),
            ..self
        }
    }

    /// The same kernel, with `f` its variant reading both operands in place
    /// ([`in_place_a`](Self::in_place_a)).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn with_in_place_a(self, f: UkrInPlace<T, P>) -> Self {
        KernelInfo {
            in_place_a: Some(f),
            ..self
        }
    }

    /// The same kernel, with `f` its narrow kernel's variant reading both operands in place
    /// ([`narrow_in_place_a`](Self::narrow_in_place_a)).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn with_narrow_in_place_a(self, f: UkrInPlace<T, P>) -> Self {
        debug_assert!(self.narrow.is_some());
        KernelInfo {
            narrow_in_place_a: Some(f),
            ..self
        }
    }

    /// The same kernel, with a strided broadcast operand always packed (its in-place variant
    /// kept for operands with axis maps). The AVX-512 kernels on an Intel Xeon (Sapphire
    /// Rapids): CPU time of packing B ÷ reading it in place at 1024³–2048³, about 0.9 for f32
    /// and 0.75 for f64 (BENCHMARKS.md, session 9); on AVX2 reading it in place wins.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn without_strided_in_place(self) -> Self {
        self.with_strided_in_place(0)
    }

    /// The same kernel, reading a strided broadcast operand with k contiguous in place while
    /// the vectorised operand makes at most `panels` micro-panels (0: always packed).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn with_strided_in_place(self, panels: usize) -> Self {
        KernelInfo {
            strided_in_place: panels,
            ..self
        }
    }

    /// The same kernel, taking KC up to `kc_max` (and MC from it, the A block still at most
    /// `a_max` bytes: [`blocking`]) when its broadcast operand is strided and read in place
    /// ([`strided_kc`](Self::strided_kc)). The AVX-512 f64 kernel on AMD: KC 256 → 512, Zen 5
    /// (BENCHMARKS.md, session 13).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn with_strided_kc(self, kc_max: usize, a_max: usize) -> Self {
        let p = core::mem::size_of::<P>();
        let [kc, mc, _] = blocking(
            crate::isa::Caches::get(),
            [self.mr, self.nr, p],
            kc_max,
            a_max,
        );
        KernelInfo {
            strided_kc: Some([kc, mc]),
            ..self
        }
    }

    /// The blocking of a product whose broadcast operand is strided and read in place
    /// ([`strided_kc`](Self::strided_kc)): this kernel with its KC and MC replaced.
    pub(crate) fn for_strided_in_place(&self) -> Self
    where
        T: Copy,
        P: Copy,
    {
        match self.strided_kc {
            Some([kc, mc]) => KernelInfo { kc, mc, ..*self },
            None => *self,
        }
    }

    /// The same kernel, which stores C's row vectors of `lanes` rows at any distance
    /// ([`Tile::vsc`]).
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub(crate) fn with_lanes(self, lanes: usize) -> Self {
        KernelInfo { lanes, ..self }
    }
}

/// `block::IN_PLACE_PANELS` for a strided operand with k contiguous, whose packing is a transpose
/// (about eleven instructions an element, against one more load per k step read in place).
/// Measured, f32 AVX2 row-major, CPU time × the packed route (16 panels): 512³ (32 panels)
/// 0.93, 1024³ (64) 0.965, 2048³ (128) 0.985. The default of
/// [`KernelInfo::strided_in_place`].
pub(crate) const IN_PLACE_PANELS_STRIDED: usize = 128;

/// The most columns for which [`KernelInfo::fit`] takes a narrow kernel: the decode and
/// small-batch shapes, where the padding of the last tile is a large share of the work.
pub(crate) const NARROW_MAX_N: usize = 64;

/// [`KernelInfo::sized`]'s `[KC, MC, NC]` for caches `c`, an `mr × nr` tile of `p`-byte packed
/// elements.
pub(crate) fn blocking(
    c: crate::isa::Caches,
    [mr, nr, p]: [usize; 3],
    kc_max: usize,
    a_max: usize,
) -> [usize; 3] {
    let p = p.max(1);
    let kc = ((c.l1d / 2 / (nr * p)).max(64).min(kc_max) / 16 * 16).max(16);
    let mc = ((c.l2 / 4 * 3).min(a_max) / (kc * p) / mr).max(1) * mr;
    let nc_max = match c.llc {
        0 => 4096,
        llc => (llc / 4 / (kc * p)).clamp(nr, 4096),
    };
    [kc, mc, (nc_max / nr).max(1) * nr]
}

/// The engine's view of one element pair's kernels (the BLIS loops, packing buffers, edge
/// tiles and threads are written once over it): `C` is C's element (also α, β and the
/// accumulator), `P` the element of the packed panels the microkernel streams.
///
/// Floating-point pairs pack into their own type, one k step per panel row (`KSTEP = 1`);
/// the integer pairs pack both 8-bit operands into `i16` pairs of k (`KSTEP = 2`), the panel
/// layout `((2, R), ⌈k/2⌉) : ((1, 2), 2R)` that `vpmaddwd` (and VNNI) multiply-add in one step.
pub(crate) trait Kern: Send + Sync + 'static {
    /// C's element, α, β and the accumulator.
    type C: Copy + PartialEq + Send + Sync + core::fmt::Debug + 'static;
    /// The packed panels' element.
    type P: Copy + Default + Send + Sync + 'static;
    /// Additive identity of `C`.
    const ZERO: Self::C;
    /// Multiplicative identity of `C`.
    const ONE: Self::C;
    /// k values per packed panel step (padded with zeros to a multiple).
    const KSTEP: usize;
    /// `c·β + x` (wrapping for integers, as the instructions wrap).
    fn mul_add(c: Self::C, beta: Self::C, x: Self::C) -> Self::C;
    /// `c + x` (wrapping for integers).
    fn add(c: Self::C, x: Self::C) -> Self::C;
    /// As [`Element::with_buffers`], for the packed element.
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<Self::P>, &mut Vec<Self::P>) -> R) -> R;
}

impl<T: Element> Kern for T {
    type C = T;
    type P = T;
    const ZERO: T = <T as Scalar>::ZERO;
    const ONE: T = <T as Scalar>::ONE;
    const KSTEP: usize = 1;
    #[inline(always)]
    fn mul_add(c: T, beta: T, x: T) -> T {
        c * beta + x
    }
    #[inline(always)]
    fn add(c: T, x: T) -> T {
        c + x
    }
    fn with_buffers<R>(f: impl FnOnce(&mut Vec<T>, &mut Vec<T>) -> R) -> R {
        <T as Element>::with_buffers(f)
    }
}

/// Largest MR·NR of any kernel: the size of the stack tile edge tiles are computed into.
pub(crate) const MAX_TILE: usize = 512;

/// The vector operations the microkernel body needs. Implementations are zero-sized markers;
/// every method is `#[inline(always)]` so that the body, inlined into a `#[target_feature]`
/// wrapper, compiles to that instruction set.
pub(crate) trait Simd<T: Element> {
    /// One vector register.
    type V: Copy;
    /// Elements per vector.
    const LANES: usize;
    /// All lanes zero.
    ///
    /// # Safety
    /// The instruction set of `Self` is available.
    unsafe fn zero() -> Self::V;
    /// All lanes `x`.
    ///
    /// # Safety
    /// The instruction set of `Self` is available.
    unsafe fn splat(x: T) -> Self::V;
    /// Loads `LANES` elements from `p` (any alignment).
    ///
    /// # Safety
    /// The instruction set is available and `p` is valid for `LANES` reads.
    unsafe fn load(p: *const T) -> Self::V;
    /// Stores `LANES` elements to `p` (any alignment).
    ///
    /// # Safety
    /// The instruction set is available and `p` is valid for `LANES` writes.
    unsafe fn store(p: *mut T, v: Self::V);
    /// `a·b + c`, fused where the instruction set has it.
    ///
    /// # Safety
    /// The instruction set of `Self` is available.
    unsafe fn fma(a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// `a·b`.
    ///
    /// # Safety
    /// The instruction set of `Self` is available.
    unsafe fn mul(a: Self::V, b: Self::V) -> Self::V;
    /// `a + b`.
    ///
    /// # Safety
    /// The instruction set of `Self` is available.
    unsafe fn add(a: Self::V, b: Self::V) -> Self::V;
    /// Asks for the cache line holding `p` to be brought into L1 (a hint: `p` need not point
    /// into any object, it is never dereferenced). The default does nothing.
    #[inline(always)]
    fn prefetch(p: *const T) {
        let _ = p;
    }
}

/// Where a tile's broadcast operand comes from, k step by k step.
pub(crate) trait BSource<T, const NR: usize> {
    /// The NR values of k step `u` from the current position.
    ///
    /// # Safety
    /// Step `u` lies inside the operand.
    unsafe fn step(&self, u: usize) -> [T; NR];
    /// Moves the position `steps` k steps on.
    ///
    /// # Safety
    /// The new position is inside the operand or one past its last step.
    unsafe fn advance(&mut self, steps: usize);
}

/// A packed micro-panel: NR values per k step, contiguous.
struct Packed<T>(*const T);

impl<T: Copy, const NR: usize> BSource<T, NR> for Packed<T> {
    #[inline(always)]
    unsafe fn step(&self, u: usize) -> [T; NR] {
        // SAFETY: the caller's contract: NR readable values at step `u`.
        core::array::from_fn(|j| unsafe { *self.0.add(u * NR + j) })
    }
    #[inline(always)]
    unsafe fn advance(&mut self, steps: usize) {
        // SAFETY: the caller's contract.
        self.0 = unsafe { self.0.add(steps * NR) };
    }
}

/// The operand in place ([`InPlace`], the first NR columns).
pub(crate) struct Columns<T, const NR: usize> {
    /// Column `j`'s element at k offset 0.
    pub(crate) cols: [*const T; NR],
    /// The k offsets of the remaining k steps.
    pub(crate) koff: *const isize,
}

impl<T: Copy, const NR: usize> BSource<T, NR> for Columns<T, NR> {
    #[inline(always)]
    unsafe fn step(&self, u: usize) -> [T; NR] {
        // SAFETY: the caller's contract: step `u` of every column is readable.
        unsafe {
            let o = *self.koff.add(u);
            core::array::from_fn(|j| *self.cols[j].offset(o))
        }
    }
    #[inline(always)]
    unsafe fn advance(&mut self, steps: usize) {
        // SAFETY: the caller's contract.
        self.koff = unsafe { self.koff.add(steps) };
    }
}

/// One k step of [`tile_body`]: MV vector loads of A, NR broadcasts of B, MV·NR multiply-adds.
///
/// # Safety
/// As [`tile_body`] for the k step at `a` (MR elements) and `b` (NR elements).
#[inline(always)]
unsafe fn k_step<T: Element, S: Simd<T>, const MV: usize, const NR: usize, B: BSource<T, NR>>(
    acc: &mut [[S::V; MV]; NR],
    a: *const T,
    b: &B,
    u: usize,
) {
    // SAFETY: the caller guarantees the ISA, MR readable elements at `a` and step `u` of `b`.
    unsafe {
        let mut av = [S::zero(); MV];
        for v in 0..MV {
            av[v] = S::load(a.add(v * S::LANES));
        }
        let row = b.step(u);
        for j in 0..NR {
            let bj = S::splat(row[j]);
            for v in 0..MV {
                acc[j][v] = S::fma(av[v], bj, acc[j][v]);
            }
        }
    }
}

/// The microkernel body: MV vectors of `S::LANES` rows (MR = MV·LANES) by NR columns.
///
/// # Safety
/// As [`Ukr`], with MR = `MV·S::LANES`; the instruction set of `S` is available.
#[inline(always)]
pub(crate) unsafe fn tile_body<T: Element, S: Simd<T>, const MV: usize, const NR: usize>(
    t: &Tile<T>,
) {
    // SAFETY: forwarded contract (NR·k packed values at `t.b`).
    unsafe { tile_body_from::<T, S, MV, NR, _>(t, Packed(t.b), (MV * S::LANES) as isize) }
}

/// [`tile_body`] with the broadcast operand read in place ([`UkrInPlace`]).
///
/// # Safety
/// As [`UkrInPlace`], with MR = `MV·S::LANES`, NR ≤ [`MAX_NR_IN_PLACE`]; the instruction set of
/// `S` is available.
#[inline(always)]
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub(crate) unsafe fn tile_body_in_place<
    T: Element,
    S: Simd<T>,
    const MV: usize,
    const NR: usize,
>(
    t: &Tile<T>,
    b: &InPlace<T>,
) {
    // SAFETY: forwarded contract (A packed: k steps MR apart).
    unsafe { tile_body_in_place_at::<T, S, MV, NR, false>(t, b) }
}

/// [`tile_body_in_place`], with the vectorised operand's k step [`InPlace::ak`] where `AK`
/// (read in place too: [`KernelInfo::in_place_a`]), else MR (a packed micro-panel, the same
/// code as [`tile_body_in_place`]).
///
/// # Safety
/// As [`tile_body_in_place`]; with `AK`, `t.a.offset(p·b.ak)` is valid for MR reads for every
/// k step `p < t.k` instead of a packed micro-panel.
#[inline(always)]
pub(crate) unsafe fn tile_body_in_place_at<
    T: Element,
    S: Simd<T>,
    const MV: usize,
    const NR: usize,
    const AK: bool,
>(
    t: &Tile<T>,
    b: &InPlace<T>,
) {
    const { assert!(NR <= MAX_NR_IN_PLACE) };
    /// The body for `N` columns (`N ≤ NR`, checked by the caller's match).
    ///
    /// # Safety
    /// As [`tile_body_in_place_at`], with `N` columns read and stored.
    #[inline(always)]
    unsafe fn narrow<T: Element, S: Simd<T>, const MV: usize, const N: usize, const AK: bool>(
        t: &Tile<T>,
        b: &InPlace<T>,
    ) {
        let src = Columns::<T, N> {
            cols: core::array::from_fn(|j| b.cols[j]),
            koff: b.koff,
        };
        let ak = if AK { b.ak } else { (MV * S::LANES) as isize };
        // SAFETY: forwarded contract (every column's k steps readable, A's at `ak` apart).
        unsafe { tile_body_from::<T, S, MV, N, _>(t, src, ak) }
    }
    const { assert!(NARROW_IN_PLACE == 5) };
    // SAFETY: (every arm) forwarded contract, the arm's width at most NR (an edge tile's own
    // columns, each readable and stored; `b.nr` is NR or at most `NARROW_IN_PLACE`).
    unsafe {
        match b.nr {
            1 if NR > 1 => narrow::<T, S, MV, 1, AK>(t, b),
            2 if NR > 2 => narrow::<T, S, MV, 2, AK>(t, b),
            3 if NR > 3 => narrow::<T, S, MV, 3, AK>(t, b),
            4 if NR > 4 => narrow::<T, S, MV, 4, AK>(t, b),
            5 if NR > 5 => narrow::<T, S, MV, 5, AK>(t, b),
            _ => narrow::<T, S, MV, NR, AK>(t, b),
        }
    }
}

/// [`tile_body_in_place`] for a whole tile run as two tiles of `H = NR / 2` columns each (an
/// edge tile of at most [`NARROW_IN_PLACE`] columns runs as before; one of `H ..= NR − 1`
/// columns, which a kernel with [`KernelInfo::in_place_edge`] past `NARROW_IN_PLACE` is given,
/// as a whole first half and a second of its remaining width).
///
/// For kernels whose NR column pointers, with A, the k offsets and the loop counter, exceed
/// the general registers: the AVX-512 f32 32 × 12 kernel read in place kept its 12 column
/// pointers in registers by spilling the accumulators (33 zmm stores and 34 reloads per four k
/// steps, 39 % of the AVX-512 peak at 1024³). Each half keeps 6 pointers and its 12
/// accumulators in registers; the A micro-panel is read twice, from L1.
///
/// With `AK`, the vectorised operand is read in place too, k steps [`InPlace::ak`] apart
/// ([`tile_body_in_place_at`]).
///
/// # Safety
/// As [`tile_body_in_place_at`], with `2·H == NR`.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) unsafe fn tile_body_in_place_halves<
    T: Element,
    S: Simd<T>,
    const MV: usize,
    const NR: usize,
    const H: usize,
    const AK: bool,
>(
    t: &Tile<T>,
    b: &InPlace<T>,
) {
    const { assert!(2 * H == NR && NR <= MAX_NR_IN_PLACE && H > NARROW_IN_PLACE) };
    const { assert!(H - 1 <= NARROW_IN_PLACE) };
    // SAFETY: (whole body) forwarded contract: with `b.nr == NR` every one of the NR columns
    // is readable at each k step and the tile's NR columns of C are the caller's; the second
    // half's C columns start H columns on (`csc` apart), its B columns are `cols[H..NR]`. An
    // edge tile's `b.nr` columns are readable and its C columns the caller's: the halves read
    // and store columns `0 .. min(nr, H)` and `H .. nr` only.
    unsafe {
        if b.nr <= NARROW_IN_PLACE {
            return tile_body_in_place_at::<T, S, MV, NR, AK>(t, b);
        }
        if b.nr < NR {
            // an edge tile of H + 1 .. NR − 1 columns (a kernel with `in_place_edge` past
            // `NARROW_IN_PLACE`): the first half whole, the second at the edge's own width
            // (at most `NARROW_IN_PLACE`, as H > NARROW_IN_PLACE and NR = 2H ≤ 2·6); an edge
            // of at most H columns as one half of its own width, reading and storing only them
            let lo = InPlace {
                nr: b.nr.min(H),
                ..*b
            };
            tile_body_in_place_at::<T, S, MV, H, AK>(t, &lo);
            if b.nr <= H {
                return;
            }
            let hi = InPlace {
                cols: core::array::from_fn(|j| if H + j < NR { b.cols[H + j] } else { b.cols[0] }),
                koff: b.koff,
                nr: b.nr - H,
                ak: b.ak,
            };
            let t2 = Tile {
                c: t.c.wrapping_offset(H as isize * t.csc),
                ..*t
            };
            return tile_body_in_place_at::<T, S, MV, H, AK>(&t2, &hi);
        }
        let ak = if AK { b.ak } else { (MV * S::LANES) as isize };
        let lo = Columns::<T, H> {
            cols: core::array::from_fn(|j| b.cols[j]),
            koff: b.koff,
        };
        tile_body_from::<T, S, MV, H, _>(t, lo, ak);
        let hi = Columns::<T, H> {
            cols: core::array::from_fn(|j| b.cols[H + j]),
            koff: b.koff,
        };
        let t2 = Tile {
            c: t.c.wrapping_offset(H as isize * t.csc),
            ..*t
        };
        tile_body_from::<T, S, MV, H, _>(&t2, hi, ak);
    }
}

/// The k loop of a tile: `Σ_p A(·, p)·B(p, j)` over the tile's `t.k` steps, A's micro-panel
/// at `t.a`, B's steps from `b`, in MV × NR registers (four steps per trip).
///
/// # Safety
/// As [`tile_body`], with the broadcast values of every k step of the tile readable from `b`.
#[inline(always)]
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) unsafe fn accumulate<
    T: Element,
    S: Simd<T>,
    const MV: usize,
    const NR: usize,
    B: BSource<T, NR>,
>(
    t: &Tile<T>,
    b: B,
) -> [[S::V; MV]; NR] {
    // SAFETY: forwarded contract (a packed micro-panel: k steps MR apart).
    unsafe { accumulate_at::<T, S, MV, NR, B>(t, b, (MV * S::LANES) as isize) }
}

/// [`accumulate`] with A's k steps `ak` elements apart: MR for a packed micro-panel (a
/// constant, so the packed kernels compile as before), a stride for A read in place.
///
/// # Safety
/// As [`accumulate`], with MR readable elements at `t.a.offset(p·ak)` for every `p < t.k`.
#[inline(always)]
unsafe fn accumulate_at<
    T: Element,
    S: Simd<T>,
    const MV: usize,
    const NR: usize,
    B: BSource<T, NR>,
>(
    t: &Tile<T>,
    mut b: B,
    ak: isize,
) -> [[S::V; MV]; NR] {
    let mut a = t.a;
    // SAFETY: the caller guarantees the ISA, MR readable elements of A at each `t.a + p·ak`
    // (p < k), and every k step of `b`.
    unsafe {
        let mut acc = [[S::zero(); MV]; NR];
        if ak != (MV * S::LANES) as isize {
            // A read in place (a run-time stride; a packed panel's constant MR takes the loop
            // below, so the packed kernels compile as before): A's pointer moves on by `ak`
            // each step, one register for the stride (`a + u·ak` for u < 4 took three, and the
            // in-place kernels' column pointers then spilled)
            for _ in 0..t.k / 4 {
                for u in 0..4 {
                    k_step::<T, S, MV, NR, B>(&mut acc, a, &b, u);
                    a = a.offset(ak);
                }
                b.advance(4);
            }
            for _ in 0..t.k % 4 {
                k_step::<T, S, MV, NR, B>(&mut acc, a, &b, 0);
                a = a.offset(ak);
                b.advance(1);
            }
            return acc;
        }
        // four k steps per trip (one pointer update and branch per four)
        for _ in 0..t.k / 4 {
            for u in 0..4 {
                k_step::<T, S, MV, NR, B>(&mut acc, a.offset(u as isize * ak), &b, u);
            }
            a = a.offset(4 * ak);
            b.advance(4);
        }
        for _ in 0..t.k % 4 {
            k_step::<T, S, MV, NR, B>(&mut acc, a, &b, 0);
            a = a.offset(ak);
            b.advance(1);
        }
        acc
    }
}

/// The microkernel body over any source of the broadcast operand, A's k steps `ak` apart
/// ([`accumulate_at`]).
///
/// # Safety
/// As [`Ukr`] with the broadcast values of every k step of the tile readable from `b` and MR
/// elements of A at each `t.a + p·ak`.
#[inline(always)]
unsafe fn tile_body_from<
    T: Element,
    S: Simd<T>,
    const MV: usize,
    const NR: usize,
    B: BSource<T, NR>,
>(
    t: &Tile<T>,
    b: B,
    ak: isize,
) {
    let lanes = S::LANES;
    let mr = MV * lanes;
    // SAFETY: (whole body) the caller guarantees the ISA and the extents of a, b and c.
    unsafe {
        // where row vector v of a column starts, relative to the column (rsc == 1)
        let vstep = if t.vsc == 0 { lanes as isize } else { t.vsc };
        // C's tile columns are brought into L1 while the k loop runs (they are read, or written
        // whole, only after it): the first and last element of each vector cover its lines.
        // (The A micro-panel is not prefetched: 8 k steps ahead measured −3 % on Zen 5, whose
        // hardware prefetcher streams it; see BENCHMARKS.md.)
        if t.rsc == 1 {
            for j in 0..NR {
                let cj = t.c.wrapping_offset(j as isize * t.csc);
                for v in 0..MV {
                    let cv = cj.wrapping_offset(v as isize * vstep);
                    S::prefetch(cv);
                    S::prefetch(cv.wrapping_add(lanes - 1));
                }
            }
        }
        let acc = accumulate_at::<T, S, MV, NR, B>(t, b, ak);
        let alpha = S::splat(t.alpha);
        if t.rsc == 1 {
            // columns of the tile are contiguous: vector loads and stores of C
            let beta = S::splat(t.beta);
            for j in 0..NR {
                let cj = t.c.offset(j as isize * t.csc);
                for v in 0..MV {
                    let p = cj.offset(v as isize * vstep);
                    let x = S::mul(acc[j][v], alpha);
                    let r = if t.beta == T::ZERO {
                        x
                    } else if t.beta == T::ONE {
                        S::add(S::load(p), x)
                    } else {
                        S::fma(S::load(p), beta, x)
                    };
                    S::store(p, r);
                }
            }
        } else {
            // general strides: through a stack tile, element by element
            let mut tmp = [T::ZERO; MAX_TILE];
            debug_assert!(mr * NR <= MAX_TILE);
            for j in 0..NR {
                for v in 0..MV {
                    S::store(
                        tmp.as_mut_ptr().add(j * mr + v * lanes),
                        S::mul(acc[j][v], alpha),
                    );
                }
            }
            for j in 0..NR {
                for i in 0..mr {
                    let p = t.c.offset(i as isize * t.rsc + j as isize * t.csc);
                    let x = tmp[j * mr + i];
                    *p = if t.beta == T::ZERO {
                        x
                    } else if t.beta == T::ONE {
                        *p + x
                    } else {
                        *p * t.beta + x
                    };
                }
            }
        }
    }
}

/// The portable "vector": one element, plain multiply and add (no fused multiply-add, so the
/// result is the same on every target; integer-valued tests compare exactly either way).
pub(crate) struct Portable;

impl<T: Element> Simd<T> for Portable {
    type V = T;
    const LANES: usize = 1;
    #[inline(always)]
    unsafe fn zero() -> T {
        T::ZERO
    }
    #[inline(always)]
    unsafe fn splat(x: T) -> T {
        x
    }
    #[inline(always)]
    unsafe fn load(p: *const T) -> T {
        // SAFETY: the caller guarantees `p` is valid for one read.
        unsafe { *p }
    }
    #[inline(always)]
    unsafe fn store(p: *mut T, v: T) {
        // SAFETY: the caller guarantees `p` is valid for one write.
        unsafe { *p = v }
    }
    #[inline(always)]
    unsafe fn fma(a: T, b: T, c: T) -> T {
        a * b + c
    }
    #[inline(always)]
    unsafe fn mul(a: T, b: T) -> T {
        a * b
    }
    #[inline(always)]
    unsafe fn add(a: T, b: T) -> T {
        a + b
    }
}

/// Portable tile: 4 × 4.
pub(crate) const PORTABLE_MR: usize = 4;
/// Portable tile: 4 × 4.
pub(crate) const PORTABLE_NR: usize = 4;

/// The portable microkernel.
///
/// # Safety
/// As [`Ukr`] with MR = NR = 4.
pub(crate) unsafe fn portable_ukr<T: Element>(t: &Tile<T>) {
    // SAFETY: forwarded contract; the scalar "instruction set" is always available.
    unsafe { tile_body::<T, Portable, PORTABLE_MR, PORTABLE_NR>(t) }
}

#[cfg(test)]
mod blocking_tests {
    use super::blocking;
    use crate::isa::Caches;

    /// The blocking of the machines the kernels are measured on, checked against the
    /// constraints it is derived from over a sweep of cache sizes.
    #[test]
    fn blocking_follows_the_caches() {
        let zen3 = Caches::parse("32K,512K,32M").unwrap();
        // f32 AVX2 16 × 6 and f64 8 × 6 on Zen 3: BLIS's KC; A blocks of 384 KiB
        assert_eq!(blocking(zen3, [16, 6, 4], 256, 384 << 10), [256, 384, 4092]);
        assert_eq!(blocking(zen3, [8, 6, 8], 256, 384 << 10), [256, 192, 4092]);
        // a 256 KiB L2 (Haswell / Skylake client) takes three quarters of it for A
        let hsw = Caches::parse("32K,256K,8M").unwrap();
        assert_eq!(blocking(hsw, [16, 6, 4], 256, 384 << 10), [256, 192, 2046]);
        for l1 in [4usize, 16, 32, 48, 64] {
            for l2 in [64usize, 256, 512, 1024, 2048] {
                for llc in [0usize, 1, 8, 32, 480] {
                    let c = Caches {
                        l1d: l1 << 10,
                        l2: l2 << 10,
                        llc: llc << 20,
                    };
                    for (mr, nr, p, kc_max) in [(16, 6, 4, 256), (8, 6, 8, 256), (32, 12, 2, 512)] {
                        let [kc, mc, nc] = blocking(c, [mr, nr, p], kc_max, 384 << 10);
                        assert!(
                            (64..=kc_max).contains(&kc) && kc % 16 == 0,
                            "{c:?}: KC {kc}"
                        );
                        // the B micro-panel in half of L1 whenever KC is above its floor
                        assert!(kc == 64 || nr * kc * p <= c.l1d / 2, "{c:?}: KC {kc}");
                        assert!(mc % mr == 0 && mc >= mr, "{c:?}: MC {mc}");
                        assert!(mc == mr || mc * kc * p <= c.l2 / 4 * 3, "{c:?}: MC {mc}");
                        assert!(nc % nr == 0 && nc >= nr && nc <= 4096, "{c:?}: NC {nc}");
                    }
                }
            }
        }
    }
}
