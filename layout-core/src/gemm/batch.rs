//! Batch-reduce GEMM: `C ← α·Σᵢ Aᵢ·Bᵢ + β·C` over a batch of strided `Aᵢ` (m × k) and `Bᵢ`
//! (k × n), every `Aᵢ` and `Bᵢ` read where it is, the C tile held in registers across the whole
//! batch (the brgemm of oneDNN's `brgconv`, Georganas et al. 2020).
//!
//! The front (`front::prepare_batch`) checks the batch and applies the GEMM's rules; this file is
//! the engine:
//!
//! - the product is oriented so that the vectorised side of C is unit stride: as is when C's
//!   rows and every `Aᵢ`'s rows are unit stride, else `Cᵀ = Σ Bᵢᵀ·Aᵢᵀ` when C's columns and
//!   every `Bᵢ`'s columns are;
//! - on AVX2 + FMA (16 × 6 f32, 8 × 6 f64) and AVX-512 (32 × 12 f32, 32 × 6 f64) one tile of C
//!   is accumulated in registers over every `(i, p)` — A loaded as vectors (masked at the m
//!   edge), B broadcast at any strides — and written once with α and β; rows of C are blocked
//!   so that a block of every `Aᵢ` stays in L2 while the columns stream; where B's rows are
//!   unit stride and the tile's rows whole, the f32 k loop is scheduled by hand
//!   (`batch_avx2.rs`: 16 × 4 to 6 and the narrower cut taps; `batch_avx512.rs`: 32 × 1 to
//!   12);
//! - otherwise (the portable kernels, or strides that suit neither orientation) each `Aᵢ·Bᵢ` runs
//!   through the GEMM's route in turn, C accumulating in memory (β for the first, then 1).
//!
//! Threads split C's longer side at multiples of the tile, never the batch or k, so the result
//! does not depend on the number of threads.

#![allow(clippy::needless_range_loop)] // register tiles read best as indexed loops

use std::vec::Vec;

use super::block::Out;
use super::error::GemmError;
use super::front;
use super::kernel::Element;
use super::options::{MatMut, MatRef, Options};
use super::view::{Product, View};
use crate::isa::Isa;

/// `C ← α·Σᵢ Aᵢ·Bᵢ + β·C`: a batch-reduce GEMM over strided `Aᵢ` (m × k) and `Bᵢ` (k × n), all
/// of one shape, each read in place (nothing is packed), the C tile kept in registers across
/// the batch on AVX2 and AVX-512 when C and every `Aᵢ` have unit-stride rows (or C and every
/// `Bᵢ` unit-stride columns). A convolution is one: for a fixed filter tap the input pixels it
/// reads are a strided matrix, and the output sums one product per tap.
///
/// The GEMM's rules apply as for [`gemm_with`](super::gemm_with): the instruction set of
/// `opts` is checked first; an empty batch, k = 0 or α = 0 never reads A or B and sets
/// `C ← β·C`; β = 0 never reads C; a call of at most
/// [`PARALLEL_MIN_WORK`](super::PARALLEL_MIN_WORK) multiply-adds (`m·n·k·batch`) runs on one
/// thread.
///
/// ```
/// use layout::gemm::{MatMut, MatRef, Options, batch_reduce};
/// // two 2×2 products summed into a column-major C: [1 2; 3 4]·I + I·[1 1; 1 1]
/// let a0 = [1.0f32, 3.0, 2.0, 4.0]; // column-major
/// let eye = [1.0f32, 0.0, 0.0, 1.0];
/// let ones = [1.0f32; 4];
/// let m = |d| MatRef { data: d, rows: 2, cols: 2, row_stride: 1, col_stride: 2 };
/// let mut c = [f32::NAN; 4];
/// let out = MatMut { data: &mut c[..], rows: 2, cols: 2, row_stride: 1, col_stride: 2 };
/// batch_reduce(Options::default(), 1.0, &[m(&a0), m(&eye)], &[m(&eye), m(&ones)], 0.0, out)
///     .unwrap();
/// assert_eq!(c, [2.0, 4.0, 3.0, 5.0]);
/// ```
///
/// # Errors
/// [`GemmError::BatchLength`] when `a` and `b` differ in length; [`GemmError::ShapeMismatch`]
/// when some `Aᵢ`, `Bᵢ` and C do not agree; [`GemmError::IsaUnavailable`];
/// [`GemmError::TooShort`], [`GemmError::StrideOverflow`] for an operand outside its slice;
/// [`GemmError::OutputOverlaps`]. Nothing is written on error.
pub fn batch_reduce<T: Element>(
    opts: impl Into<Options>,
    alpha: T,
    a: &[MatRef<'_, T>],
    b: &[MatRef<'_, T>],
    beta: T,
    c: MatMut<'_, T>,
) -> Result<(), GemmError> {
    let opts = opts.into();
    let Some(p) = front::prepare_batch(
        "batch_reduce",
        &opts,
        T::kernel(opts.isa).is_some(),
        alpha,
        a,
        b,
        beta,
        c,
    )?
    else {
        return Ok(());
    };
    run(opts, alpha, beta, p);
    Ok(())
}

/// A checked batch: every `Aᵢ` (m × k) and `Bᵢ` (k × n) inside its slice, C injective, the
/// instruction set available, m, n, k > 0, α ≠ 0 and the batch non-empty (the front's rules
/// have run).
pub(crate) struct Batch<'a, T> {
    pub mkn: [usize; 3],
    pub threads: usize,
    pub items: Vec<(View<'a, T>, View<'a, T>)>,
    pub c: Out<'a, T>,
}

/// Runs a checked batch: the register-tile kernels where the instruction set and strides allow,
/// else one routed product per item.
fn run<T: Element>(opts: Options, alpha: T, beta: T, p: Batch<'_, T>) {
    if fast(opts.isa, alpha, beta, &p) {
        return;
    }
    let Batch {
        mkn,
        threads,
        items,
        c,
    } = p;
    let Out { c, sc, cmap } = c;
    for (t, (a, b)) in items.into_iter().enumerate() {
        front::route::<T, T>(Product {
            mkn,
            isa: opts.isa,
            threads,
            packing: opts.packing,
            alpha,
            beta: if t == 0 { beta } else { T::ONE },
            a,
            b,
            c: Out {
                c: &mut *c,
                sc,
                cmap,
            },
        });
    }
}

/// One item of an oriented batch: `rows` runs of `k` steps (one in a public call; a
/// convolution's kernel rows in bounds over a whole tile, merged), step `p` of run `q` adding
/// `A(i, q·k + p) · B(q, p, j)` with `A(i, t) = a + i + t·lda` (the runs' A one run) and
/// `B(q, p, j) = b + q·rstep + p·rsb + j·csb`, to the columns `lo ≤ j < hi` of C only (all of
/// them in a public call; a convolution's tap that reads the padding for some pixels is cut
/// there, and its B is read only inside the range: outside it the addresses need not exist).
/// In a paired shape ([`Shape::pair`]) the columns of a tile's second half read B from `b2`
/// elements on (the next output row's input): see there.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
pub(crate) struct Item<T> {
    pub b2: Option<isize>,
    pub a: *const T,
    pub lda: isize,
    pub b: *const T,
    pub rsb: isize,
    pub csb: isize,
    pub k: usize,
    pub rows: usize,
    pub rstep: isize,
    pub lo: usize,
    pub hi: usize,
}

// SAFETY: an item is addresses and strides; it is read through only under the kernels'
// contract (every address it reaches inside its columns an element of a live allocation, C's
// parts disjoint among threads), whichever thread holds it.
#[cfg(target_arch = "x86_64")]
unsafe impl<T: Sync> Send for Item<T> {}

/// An oriented batch for the register-tile kernels: every A's rows unit stride;
/// `C(i, j) = c + i·crs + j·ldc`; the columns run in tiles of `nt` (at most the kernel's NR:
/// a caller that knows its width spreads it over tiles of even widths, so that no narrow tile,
/// bound by the FMA latency, is left at the end).
///
/// `pair: Some((h, c2))` (a convolution's two output rows in one tile; only through
/// [`tiles_f32`], all of C, `nt = 2·h ≤ NR`, n a multiple of `nt`): tile `t` (columns
/// `2·h·t ..`) holds pixels `p = h·t .. p + h` of two rows, its column `j < h` at C column
/// `p + j` and B column `p + j` (`b + (p + j)·csb`), its column `h + j` at C's `c2` elements
/// on from column `p + j` and B at `b + b2 + (p + j)·csb` (an item without `b2`: at
/// `b + (p + h + j)·csb`, as unpaired); an item's `lo .. hi` are the tile's columns (one
/// tile a call where some item is cut).
#[cfg(target_arch = "x86_64")]
pub(crate) struct Shape<'s, T> {
    pub pair: Option<(usize, isize)>,
    pub m: usize,
    pub n: usize,
    pub nt: usize,
    pub alpha: T,
    pub beta: T,
    pub items: &'s [Item<T>],
    pub c: *mut T,
    pub ldc: isize,
    pub crs: isize,
}

/// Runs `p` on the register-tile kernels of `isa` for `T` (f32 or f64 on AVX2 or AVX-512) when
/// the strides suit one orientation; `false`, nothing touched, otherwise.
fn fast<T: Element>(isa: Isa, alpha: T, beta: T, p: &Batch<'_, T>) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let Some(tiles) = T::batch_tiles(isa) else {
            return false;
        };
        if p.c.cmap.is_some() {
            return false;
        }
        let [m, k, n] = p.mkn;
        let unit = |s: isize, e: usize| s == 1 || e == 1;
        let sc = p.c.sc;
        let plain = p
            .items
            .iter()
            .all(|(a, b)| a.map.is_none() && b.map.is_none());
        if !plain {
            return false;
        }
        // the vectorised side: the operand loaded as vectors must be unit stride along it (every
        // Aᵢ's rows as is, every Bᵢ's columns for Cᵀ); C is written as vectors where it is unit
        // stride along it too, else lane by lane (once per tile, after the whole batch). Of two
        // possible sides, the one whose tiles are fuller, then the one where C is unit stride.
        let a_ok = p.items.iter().all(|(a, _)| unit(a.at.rs, m));
        let b_ok = p.items.iter().all(|(_, b)| unit(b.at.cs, n));
        let (_, mr, _) = tiles.entry;
        // tile fullness along a side of `e`, in units of 1/1024
        let full = |e: usize| e * 1024 / (e.div_ceil(mr) * mr).max(1);
        let as_is = a_ok
            && (!b_ok
                || full(m) > full(n)
                || (full(m) == full(n) && (unit(sc.rs, m) || !unit(sc.cs, n))));
        let swapped = !as_is && b_ok;
        if !as_is && !swapped {
            return false;
        }
        let mut items = Vec::with_capacity(p.items.len());
        for (a, b) in &p.items {
            // SAFETY: the origins are elements (0, 0) of checked operands, inside their slices.
            let (pa, pb) = unsafe {
                (
                    a.data.as_ptr().offset(a.at.origin),
                    b.data.as_ptr().offset(b.at.origin),
                )
            };
            items.push(if as_is {
                Item {
                    a: pa,
                    lda: a.at.cs,
                    b: pb,
                    rsb: b.at.rs,
                    csb: b.at.cs,
                    k,
                    rows: 1,
                    rstep: 0,
                    lo: 0,
                    hi: usize::MAX,
                    b2: None,
                }
            } else {
                // Cᵀ = Σ Bᵢᵀ·Aᵢᵀ: Bᵢᵀ (n × k) is the vectorised operand, Aᵢᵀ (k × m) broadcast
                Item {
                    a: pb,
                    lda: b.at.rs,
                    b: pa,
                    rsb: a.at.cs,
                    csb: a.at.rs,
                    k,
                    rows: 1,
                    rstep: 0,
                    lo: 0,
                    hi: usize::MAX,
                    b2: None,
                }
            });
        }
        // SAFETY: the origin of a checked C is its element (0, 0), inside its slice.
        let cptr = unsafe { p.c.c.as_ptr().offset(sc.origin) as *mut T };
        let s = Shape {
            pair: None,
            m: if as_is { m } else { n },
            n: if as_is { n } else { m },
            nt: usize::MAX,
            alpha,
            beta,
            items: &items,
            c: cptr,
            ldc: if as_is { sc.cs } else { sc.rs },
            crs: if as_is { sc.rs } else { sc.cs },
        };
        // SAFETY: the instruction set was checked available by the front and the kernels are
        // `T`'s own (its hook); the oriented operands have unit-stride rows and every element
        // of them is in bounds (checked); C is written only through `cptr`, which `p.c.c` (a
        // `&mut`) owns for the call.
        unsafe { split(&s, p.threads, tiles.entry) };
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (isa, alpha, beta, p);
        false
    }
}

/// A tile kernel: runs the part `[r0, r1, c0, c1]` of an oriented batch; with its tile shape
/// `(MR, NR)`.
#[cfg(target_arch = "x86_64")]
type Entry<T> = (unsafe fn(&Shape<'_, T>, [usize; 4]), usize, usize);

/// The register-tile kernels of one element type and instruction set, as the element's hook
/// ([`Element::batch_tiles`]) gives them; nothing off x86-64.
#[doc(hidden)]
pub struct Tiles<T> {
    #[cfg(target_arch = "x86_64")]
    entry: Entry<T>,
    #[cfg(not(target_arch = "x86_64"))]
    _none: core::marker::PhantomData<T>,
}

/// The tiles of `isa` among an element type's AVX-512 and AVX2 entries.
#[cfg(target_arch = "x86_64")]
fn pick<T>(isa: Isa, avx512: Entry<T>, avx2: Entry<T>) -> Option<Tiles<T>> {
    match isa {
        Isa::Avx512 => Some(Tiles { entry: avx512 }),
        Isa::Avx2 => Some(Tiles { entry: avx2 }),
        Isa::Portable | Isa::Neon => None,
    }
}

/// `Element::batch_tiles` of `f32`: the AVX2 16 × 6 and AVX-512 32 × 12 tiles.
pub(crate) fn tiles_of_f32(isa: Isa) -> Option<Tiles<f32>> {
    #[cfg(target_arch = "x86_64")]
    return pick(isa, (x86::avx512_f32, 32, 12), (x86::avx2_f32, 16, 6));
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        None
    }
}

/// `Element::batch_tiles` of `f64`: the AVX2 8 × 6 and AVX-512 32 × 6 tiles.
pub(crate) fn tiles_of_f64(isa: Isa) -> Option<Tiles<f64>> {
    #[cfg(target_arch = "x86_64")]
    return pick(isa, (x86::avx512_f64, 32, 6), (x86::avx2_f64, 8, 6));
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = isa;
        None
    }
}

/// The column tile (NR) of the `f32` register-tile kernels of `isa` (1 where there are none).
#[cfg(target_arch = "x86_64")]
pub(crate) fn nr_f32(isa: Isa) -> usize {
    tiles_of_f32(isa).map_or(1, |t| t.entry.2)
}

/// Runs an oriented `f32` batch, all of C, on the register tiles of `isa` on the calling
/// thread: the route of a caller that checked its operands itself (the convolution's taps).
///
/// # Safety
/// `isa` is AVX2 or AVX-512 and available; every A(i, p) of every item (i < m, p < its k) and
/// every B(p, j) with j inside the item's columns is an element of a live allocation; every
/// C(i, j) is one too, no two at one location, and nothing else accesses them during the call.
#[cfg(target_arch = "x86_64")]
pub(crate) unsafe fn tiles_f32(isa: Isa, s: &Shape<'_, f32>) {
    if let Some(Tiles {
        entry: (kern, _, _),
    }) = tiles_of_f32(isa)
    {
        // SAFETY: the caller's contract, all of C.
        unsafe { kern(s, [0, s.m, 0, s.n]) }
    }
}

/// The base pointers of one call, shared by its threads.
#[cfg(target_arch = "x86_64")]
struct Shared<'a, 's, T>(&'a Shape<'s, T>);
// SAFETY: the threads of one call write disjoint row or column ranges of C (an operand checked
// to have no two elements at one location) and only read the A and B items; they do not outlive
// the call (scoped threads).
#[cfg(target_arch = "x86_64")]
unsafe impl<T> Sync for Shared<'_, '_, T> {}

#[cfg(target_arch = "x86_64")]
impl<'a, 's, T> Shared<'a, 's, T> {
    /// The shape (a method, so that a closure captures the whole `Sync` wrapper).
    fn get(&self) -> &'a Shape<'s, T> {
        self.0
    }
}

/// Splits C's longer side among `threads` at multiples of the tile and runs the kernel.
///
/// # Safety
/// As the kernel entries: the instruction set of `isa` is available; `s` is an oriented batch
/// whose every element is in bounds.
#[cfg(target_arch = "x86_64")]
unsafe fn split<T>(s: &Shape<'_, T>, threads: usize, (kern, mr, nr): Entry<T>) {
    let (along_m, len, unit) = if s.m >= s.n {
        (true, s.m, mr)
    } else {
        (false, s.n, nr)
    };
    let units = len.div_ceil(unit);
    let parts = threads.clamp(1, units.max(1));
    if parts == 1 {
        // SAFETY: the caller's contract; the whole of C.
        return unsafe { kern(s, [0, s.m, 0, s.n]) };
    }
    let (m, n) = (s.m, s.n);
    let shared = Shared(s);
    let shared = &shared;
    super::threads::split(parts, &|t| {
        let lo = (units * t / parts * unit).min(len);
        let hi = (units * (t + 1) / parts * unit).min(len);
        let range = if along_m {
            [lo, hi, 0, n]
        } else {
            [0, m, lo, hi]
        };
        // SAFETY: the caller's contract; the parts write disjoint ranges of C.
        unsafe { kern(shared.get(), range) }
    });
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The register tiles on the `Lanes` of the unpacked kernels (`direct.rs`).

    use super::super::direct::{Avx2D, Avx2S, Avx512D, Avx512S, Lanes};
    use super::super::kernel::Scalar;
    use super::Shape;

    /// A tile's hand-scheduled loop over one whole item (every column of the tile, B's rows
    /// unit stride, no row mask), where the instruction set has one for the tile's shape.
    trait Whole: Lanes {
        /// Whether [`Whole::whole`] has a loop for some shape (the tiles that may call it
        /// are instantiated apart from those that never do, whose Rust loops then keep their
        /// accumulators in registers).
        const ANY: bool = false;
        /// Adds `Σ_{q<rows} Σ_{p<k} A(·, q·k + p)·B(q, p, j)` to `acc` (`A(·, t)` the
        /// `MV·LANES` elements at `a + t·lda`, `B(q, p, j)` at `col(j) + q·rstep + p`, where
        /// `col(j)` is `b + j·csb` for `j < h` and `b_hi + (j − h)·csb` after: `h ≥ NR` for an
        /// unpaired tile) and returns `true`; `false`, nothing read, where there is no such
        /// loop for `(MV, NR, h)`.
        ///
        /// # Safety
        /// The instruction set is available; for every `q < rows`, `p < k` and `j < NR` those
        /// elements are readable.
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn whole<const MV: usize, const NR: usize, const PAIR: bool>(
            acc: &mut [[Self::V; MV]; NR],
            a: *const Self::E,
            lda: isize,
            (b, b_hi, h): (*const Self::E, *const Self::E, usize),
            csb: isize,
            k: usize,
            rows: usize,
            rstep: isize,
        ) -> bool {
            let _ = (acc, a, lda, b, b_hi, h, csb, k, rows, rstep);
            false
        }

        /// As [`Whole::whole`] on the columns `lo .. hi` of the tile only (`0 ≤ lo < hi ≤
        /// NR`, B's column `j` still at `b + j·csb`): a tap cut by the padding.
        ///
        /// # Safety
        /// As [`Whole::whole`] for the columns `lo .. hi`.
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn cut<const MV: usize, const NR: usize>(
            acc: &mut [[Self::V; MV]; NR],
            lo: usize,
            hi: usize,
            a: *const Self::E,
            lda: isize,
            b: *const Self::E,
            csb: isize,
            k: usize,
        ) -> bool {
            let _ = (acc, lo, hi, a, lda, b, csb, k);
            false
        }
    }
    impl Whole for Avx2D {}
    impl Whole for Avx512S {
        const ANY: bool = true;
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn whole<const MV: usize, const NR: usize, const PAIR: bool>(
            acc: &mut [[Self::V; MV]; NR],
            a: *const f32,
            lda: isize,
            (b, _, h): (*const f32, *const f32, usize),
            csb: isize,
            k: usize,
            rows: usize,
            rstep: isize,
        ) -> bool {
            // (unpaired tiles of two vectors: the conv's row pairs are AVX2's)
            if MV != 2 || NR > 12 || PAIR || h < NR {
                return false;
            }
            // element by element into the loop's fixed shape and back (no cast of `acc`: its
            // vectors stay registers, in this loop and in the Rust loops beside it)
            let mut r = [[acc[0][0]; 2]; 12];
            for j in 0..NR {
                r[j] = [acc[j][0], acc[j][1]];
            }
            // SAFETY: (each arm) the caller's contract is the loop's (its columns `j < NR`).
            unsafe { avx512_cols(NR, &mut r, a, lda, b, csb, k, rows, rstep) };
            for j in 0..NR {
                [acc[j][0], acc[j][1]] = r[j];
            }
            true
        }

        #[inline(always)]
        unsafe fn cut<const MV: usize, const NR: usize>(
            acc: &mut [[Self::V; MV]; NR],
            lo: usize,
            hi: usize,
            a: *const f32,
            lda: isize,
            b: *const f32,
            csb: isize,
            k: usize,
        ) -> bool {
            if MV != 2 || NR > 12 || lo >= hi || hi > NR {
                return false;
            }
            let w = hi - lo;
            // columns lo .. hi moved to 0 .. w and back, each index a constant (one arm per
            // `lo`, the columns under a `t < w` test), so that `acc` stays in registers
            let mut r = [[acc[0][0]; 2]; 12];
            macro_rules! by_lo {
                ($($lo:literal)*) => {
                    match lo {
                        $($lo => {
                            for t in 0..12 {
                                if t < w && $lo + t < NR {
                                    r[t] = [acc[$lo + t][0], acc[$lo + t][1]];
                                }
                            }
                        })*
                        _ => return false,
                    }
                };
            }
            by_lo!(0 1 2 3 4 5 6 7 8 9 10 11);
            let b = b.wrapping_offset(lo as isize * csb);
            // SAFETY: the caller's contract for the columns lo .. hi, whose B starts at `b`
            // (column lo).
            unsafe { avx512_cols(w, &mut r, a, lda, b, csb, k, 1, 0) };
            macro_rules! back {
                ($($lo:literal)*) => {
                    match lo {
                        $($lo => {
                            for t in 0..12 {
                                if t < w && $lo + t < NR {
                                    [acc[$lo + t][0], acc[$lo + t][1]] = r[t];
                                }
                            }
                        })*
                        _ => {}
                    }
                };
            }
            back!(0 1 2 3 4 5 6 7 8 9 10 11);
            true
        }
    }

    /// The hand-scheduled AVX-512 loop of `w` columns (1 to 12) on `r`'s first `w`.
    ///
    /// # Safety
    /// As the loops of `batch_avx512.rs` for the columns `j < w`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn avx512_cols(
        w: usize,
        r: &mut [[core::arch::x86_64::__m512; 2]; 12],
        a: *const f32,
        lda: isize,
        b: *const f32,
        csb: isize,
        k: usize,
        rows: usize,
        rstep: isize,
    ) {
        use super::super::batch_avx512 as l;
        // SAFETY: (each arm) the caller's contract is the loop's.
        unsafe {
            match w {
                1 => l::whole_1(r, a, lda, b, csb, k, rows, rstep),
                2 => l::whole_2(r, a, lda, b, csb, k, rows, rstep),
                3 => l::whole_3(r, a, lda, b, csb, k, rows, rstep),
                4 => l::whole_4(r, a, lda, b, csb, k, rows, rstep),
                5 => l::whole_5(r, a, lda, b, csb, k, rows, rstep),
                6 => l::whole_6(r, a, lda, b, csb, k, rows, rstep),
                7 => l::whole_7(r, a, lda, b, csb, k, rows, rstep),
                8 => l::whole_8(r, a, lda, b, csb, k, rows, rstep),
                9 => l::whole_9(r, a, lda, b, csb, k, rows, rstep),
                10 => l::whole_10(r, a, lda, b, csb, k, rows, rstep),
                11 => l::whole_11(r, a, lda, b, csb, k, rows, rstep),
                _ => l::whole_12(r, a, lda, b, csb, k, rows, rstep),
            }
        }
    }
    impl Whole for Avx512D {}
    impl Whole for Avx2S {
        const ANY: bool = true;
        #[inline(always)]
        #[allow(clippy::too_many_arguments)]
        unsafe fn whole<const MV: usize, const NR: usize, const PAIR: bool>(
            acc: &mut [[Self::V; MV]; NR],
            a: *const f32,
            lda: isize,
            (b, b_hi, h): (*const f32, *const f32, usize),
            csb: isize,
            k: usize,
            rows: usize,
            rstep: isize,
        ) -> bool {
            use super::super::batch_avx2::{whole_4, whole_4p, whole_5, whole_6, whole_6p};
            if MV != 2 || !(4..=6).contains(&NR) {
                return false;
            }
            // the loop's second pointer: column 3 unpaired, the second half's first column
            // for two halves of 3 (`whole_6`) or of 2 (`whole_4p`); other halves have none
            // (a paired tile's loops are functions of their own: the unpaired tiles inline
            // theirs as before)
            if PAIR {
                // SAFETY: (each arm) the caller's contract is the loop's.
                unsafe {
                    let mut r = [[acc[0][0]; 2]; 6];
                    for j in 0..NR {
                        r[j] = [acc[j][0], acc[j][1]];
                    }
                    match (NR, h) {
                        (6, 3) => whole_6p(&mut r, a, lda, b, b_hi, csb, k, rows, rstep),
                        (4, 2) => whole_4p(&mut r, a, lda, b, b_hi, csb, k, rows, rstep),
                        _ => return false,
                    }
                    for j in 0..NR {
                        [acc[j][0], acc[j][1]] = r[j];
                    }
                }
                return true;
            }
            if h < NR {
                return false;
            }
            let b3 = b.wrapping_offset(3 * csb);
            // element by element into the loop's fixed shape and back (no cast of `acc`: its
            // vectors stay registers, in this loop and in the Rust loops beside it)
            let mut r = [[acc[0][0]; 2]; 6];
            for j in 0..NR {
                r[j] = [acc[j][0], acc[j][1]];
            }
            // SAFETY: (each arm) the caller's contract is the loop's.
            unsafe {
                match NR {
                    4 => whole_4(&mut r, a, lda, b, b3, csb, k, rows, rstep),
                    5 => whole_5(&mut r, a, lda, b, b3, csb, k, rows, rstep),
                    _ => whole_6(&mut r, a, lda, b, b3, csb, k, rows, rstep),
                }
            }
            for j in 0..NR {
                [acc[j][0], acc[j][1]] = r[j];
            }
            true
        }

        #[inline(always)]
        unsafe fn cut<const MV: usize, const NR: usize>(
            acc: &mut [[Self::V; MV]; NR],
            lo: usize,
            hi: usize,
            a: *const f32,
            lda: isize,
            b: *const f32,
            csb: isize,
            k: usize,
        ) -> bool {
            use super::super::batch_avx2::{whole_1, whole_2, whole_3, whole_4, whole_5};
            // (never all 6 columns: those are a whole item's)
            if MV != 2 || NR > 6 || lo >= hi || hi > NR || hi - lo >= 6 {
                return false;
            }
            let w = hi - lo;
            // columns lo .. hi moved to 0 .. w and back, each index a constant (one arm per
            // `lo`, the columns under a `t < w` test), so that `acc` stays in registers
            let mut r = [[acc[0][0]; 2]; 6];
            macro_rules! by_lo {
                ($($lo:literal)*) => {
                    match lo {
                        $($lo => {
                            for t in 0..6 {
                                if t < w && $lo + t < NR {
                                    r[t] = [acc[$lo + t][0], acc[$lo + t][1]];
                                }
                            }
                        })*
                        _ => return false,
                    }
                };
            }
            by_lo!(0 1 2 3 4 5);
            let b = b.wrapping_offset(lo as isize * csb);
            let b3 = b.wrapping_offset(3 * csb);
            // SAFETY: (each arm) the caller's contract for the columns lo .. hi, whose B
            // starts at `b` (column lo).
            unsafe {
                match w {
                    1 => whole_1(&mut r, a, lda, b, b3, csb, k, 1, 0),
                    2 => whole_2(&mut r, a, lda, b, b3, csb, k, 1, 0),
                    3 => whole_3(&mut r, a, lda, b, b3, csb, k, 1, 0),
                    4 => whole_4(&mut r, a, lda, b, b3, csb, k, 1, 0),
                    5 => whole_5(&mut r, a, lda, b, b3, csb, k, 1, 0),
                    _ => return false,
                }
            }
            macro_rules! back {
                ($($lo:literal)*) => {
                    match lo {
                        $($lo => {
                            for t in 0..6 {
                                if t < w && $lo + t < NR {
                                    [acc[$lo + t][0], acc[$lo + t][1]] = r[t];
                                }
                            }
                        })*
                        _ => {}
                    }
                };
            }
            back!(0 1 2 3 4 5);
            true
        }
    }

    /// The shortest cut tap run by the hand-scheduled loop: below it (a first layer's taps of
    /// 3 channels) moving the accumulators in and out cost more than the Rust loop (7×7
    /// 3→64: 0.77–0.80 of oneDNN with every cut tap in asm, 0.82–0.89 with none).
    const CUT_MIN_K: usize = 16;

    /// Bytes of the rows block of every A item that stays in L2 while the columns stream
    /// (a quarter of Zen 3's 512 KiB L2, as the unpacked kernels).
    const BLOCK_BYTES: usize = 1 << 17;

    /// One tile: rows `i .. i + rows` (`rows ≤ MV·LANES`, the last vector masked) × columns
    /// `j .. j + NR`, accumulated over every item and k step, then `α·acc + β·C` written.
    ///
    /// # Safety
    /// The instruction set of `L`; every A(i', p), B(p, j'), C(i', j') of the tile of every item
    /// is an element of its operand.
    #[inline(always)]
    unsafe fn tile<
        L: Whole,
        const MV: usize,
        const NR: usize,
        const FULL: bool,
        const ASM: bool,
        const RUNS: bool,
        const PAIR: bool,
    >(
        s: &Shape<'_, L::E>,
        i: usize,
        j: usize,
        rows: usize,
    ) {
        // SAFETY: (whole body) the caller's contract bounds every address; the mask covers the
        // m edge of the last vector, the others are whole.
        unsafe {
            let mask = L::mask(rows - (MV - 1) * L::LANES);
            let whole = |v: usize| FULL || v + 1 < MV;
            let mut acc = [[L::zero(); MV]; NR];
            // the tile's first pixel `p` and its halves: columns `jj < h` at pixel `p + jj`,
            // the others (a paired shape) at pixel `p + jj − h` of the second row (`h = NR`
            // unpaired: one row)
            // (a separate instantiation for paired shapes: the others' addressing as it was)
            let (h, p, c2) = match s.pair {
                Some((h, c2)) if PAIR => (h.max(1), j / (2 * h.max(1)) * h.max(1), c2),
                _ => (NR, j, 0),
            };
            for it in s.items {
                // the item's columns inside this tile, from its first
                let (lo, hi) = (
                    it.lo.saturating_sub(j).min(NR),
                    it.hi.saturating_sub(j).min(NR),
                );
                if lo >= hi {
                    continue;
                }
                let mut a = it.a.add(i);
                // (outside the item's columns B's addresses need not exist: wrapping arithmetic,
                // read only inside them)
                let b = it.b.wrapping_offset(p as isize * it.csb);
                let b_hi = match it.b2 {
                    Some(d) => it.b.wrapping_offset(d).wrapping_offset(p as isize * it.csb),
                    None => b.wrapping_offset(h as isize * it.csb),
                };
                let col = |jj: usize| {
                    if jj < h {
                        b.wrapping_offset(jj as isize * it.csb)
                    } else {
                        b_hi.wrapping_offset((jj - h) as isize * it.csb)
                    }
                };
                // a cut item's columns from one base (inside one half, or an item whose
                // halves are one B): the hand-scheduled cut loop's addressing
                let cut_base = if hi <= h || it.b2.is_none() {
                    Some(b)
                } else if lo >= h {
                    Some(b_hi.wrapping_offset(-(h as isize) * it.csb))
                } else {
                    None
                };
                // (a separate instantiation for items of several runs: the loops of the others
                // stay as they were, their accumulators in registers)
                let runs = if RUNS { it.rows.max(1) } else { 1 };
                let load_a = |a: *const L::E| {
                    let mut av = [L::zero(); MV];
                    for v in 0..MV {
                        av[v] = if whole(v) {
                            L::load_full(a.add(v * L::LANES))
                        } else {
                            L::load(mask, a.add(v * L::LANES))
                        };
                    }
                    av
                };
                if ASM
                    && lo == 0
                    && hi == NR
                    && FULL
                    && it.rsb == 1
                    && L::whole::<MV, NR, PAIR>(
                        &mut acc,
                        a,
                        it.lda,
                        (b, b_hi, h),
                        it.csb,
                        it.k,
                        runs,
                        it.rstep,
                    )
                {
                    // the hand-scheduled loop of this tile ran the item
                } else if ASM
                    && FULL
                    && it.rsb == 1
                    && it.k >= CUT_MIN_K
                    && runs == 1
                    && (lo, hi) != (0, NR)
                    && let Some(cb) = cut_base
                    && L::cut(&mut acc, lo, hi, a, it.lda, cb, it.csb, it.k)
                {
                    // the hand-scheduled loop on the columns the tap keeps
                } else if lo == 0 && hi == NR {
                    // one base per column and one offset stepping along k: a single index
                    // update per k step, not one per broadcast
                    for q in 0..runs {
                        let cols: [*const L::E; NR] = if h >= NR {
                            let bq = b.wrapping_offset(q as isize * it.rstep);
                            core::array::from_fn(|jj| bq.wrapping_offset(jj as isize * it.csb))
                        } else {
                            core::array::from_fn(|jj| {
                                col(jj).wrapping_offset(q as isize * it.rstep)
                            })
                        };
                        let mut off = 0isize;
                        // the accumulators and steps in locals for the loop: written through
                        // `acc` (borrowed by the hand-scheduled paths above), the AVX-512
                        // 32 × 12 tile stored all 24 registers to the stack every k step
                        let (mut r, lda, rsb) = (acc, it.lda, it.rsb);
                        for _ in 0..it.k {
                            let av = load_a(a);
                            for jj in 0..NR {
                                let bj = L::splat(*cols[jj].wrapping_offset(off));
                                for v in 0..MV {
                                    r[jj][v] = L::fma(av[v], bj, r[jj][v]);
                                }
                            }
                            a = a.offset(lda);
                            off = off.wrapping_add(rsb);
                        }
                        acc = r;
                    }
                } else {
                    // a tap cut by the padding: the tile's other columns skip it
                    for q in 0..runs {
                        // (from one base where the columns have one: one pointer stepping)
                        let cols: [*const L::E; NR] = match cut_base {
                            Some(cb) => core::array::from_fn(|jj| {
                                cb.wrapping_offset(q as isize * it.rstep + jj as isize * it.csb)
                            }),
                            None => core::array::from_fn(|jj| {
                                col(jj).wrapping_offset(q as isize * it.rstep)
                            }),
                        };
                        let mut off = 0isize;
                        // (locals for the loop, as above)
                        let (mut r, lda, rsb) = (acc, it.lda, it.rsb);
                        for _ in 0..it.k {
                            let av = load_a(a);
                            for jj in 0..NR {
                                if lo <= jj && jj < hi {
                                    let bj = L::splat(*cols[jj].wrapping_offset(off));
                                    for v in 0..MV {
                                        r[jj][v] = L::fma(av[v], bj, r[jj][v]);
                                    }
                                }
                            }
                            a = a.offset(lda);
                            off = off.wrapping_add(rsb);
                        }
                        acc = r;
                    }
                }
            }
            let alpha = L::splat(s.alpha);
            let read_c = s.beta != <L::E as Scalar>::ZERO;
            let beta = L::splat(s.beta);
            // C's column of tile column `jj` (the second row's `c2` on, paired)
            let c_col = |jj: usize| {
                if jj < h {
                    s.c.offset((p + jj) as isize * s.ldc)
                } else {
                    s.c.offset(c2 + (p + jj - h) as isize * s.ldc)
                }
            };
            if s.crs == 1 {
                for jj in 0..NR {
                    let col = c_col(jj).add(i);
                    for v in 0..MV {
                        let p = col.add(v * L::LANES);
                        let mut r = L::vmul(alpha, acc[jj][v]);
                        if read_c {
                            let old = if whole(v) {
                                L::load_full(p)
                            } else {
                                L::load(mask, p)
                            };
                            r = L::fma(beta, old, r);
                        }
                        if whole(v) {
                            L::store_full(p, r)
                        } else {
                            L::store(mask, p, r)
                        }
                    }
                }
            } else {
                // C strided along the vectorised side: each lane gathered and scattered through
                // a stack vector (the same arithmetic as above, lane by lane in memory)
                let mut lanes = [<L::E as Scalar>::ZERO; 16];
                for jj in 0..NR {
                    let col = c_col(jj);
                    for v in 0..MV {
                        let n = (rows - v * L::LANES).min(L::LANES);
                        let at = |l: usize| col.offset((i + v * L::LANES + l) as isize * s.crs);
                        let mut r = L::vmul(alpha, acc[jj][v]);
                        if read_c {
                            for l in 0..n {
                                lanes[l] = *at(l);
                            }
                            r = L::fma(beta, L::load_full(lanes.as_ptr()), r);
                        }
                        L::store_full(lanes.as_mut_ptr(), r);
                        for l in 0..n {
                            *at(l) = lanes[l];
                        }
                    }
                }
            }
        }
    }

    /// [`tile`] with `FULL` chosen from `rows`, the instantiation that may call the
    /// hand-scheduled loop where `asm.0` (every item's B rows unit stride) and the tile is
    /// full, and the one that reads items of several runs where `asm.1` (some item has them).
    ///
    /// # Safety
    /// As [`tile`].
    #[inline(always)]
    unsafe fn tile_any<L: Whole, const MV: usize, const NR: usize, const PAIR: bool>(
        s: &Shape<'_, L::E>,
        i: usize,
        j: usize,
        rows: usize,
        (asm, runs): (bool, bool),
    ) {
        // SAFETY: forwarded contract.
        unsafe {
            match (rows == MV * L::LANES, L::ANY && asm, runs) {
                (true, true, false) => tile::<L, MV, NR, true, true, false, PAIR>(s, i, j, rows),
                (true, true, true) => tile::<L, MV, NR, true, true, true, PAIR>(s, i, j, rows),
                (true, false, false) => tile::<L, MV, NR, true, false, false, PAIR>(s, i, j, rows),
                (true, false, true) => tile::<L, MV, NR, true, false, true, PAIR>(s, i, j, rows),
                (false, _, false) => tile::<L, MV, NR, false, false, false, PAIR>(s, i, j, rows),
                (false, _, true) => tile::<L, MV, NR, false, false, true, PAIR>(s, i, j, rows),
            }
        }
    }

    /// The loops over one part `[r0, r1, c0, c1]` of C: blocks of rows whose A items stay in
    /// L2, the columns streamed in tiles of `NR`, the rows in tiles of `MV·LANES`; `by` runs the
    /// tile of `mv` vectors and `nr` columns.
    ///
    /// # Safety
    /// As [`tile`] for every tile of the part (the part lies inside C).
    #[inline(always)]
    unsafe fn part<L: Whole, const MV: usize, const NR: usize>(
        s: &Shape<'_, L::E>,
        [r0, r1, c0, c1]: [usize; 4],
        by: impl Fn(usize, usize, usize, usize, usize),
    ) {
        let mr = MV * L::LANES;
        let size = core::mem::size_of::<L::E>();
        let per_row = s
            .items
            .iter()
            .fold(0usize, |t, it| {
                t.saturating_add(it.k.saturating_mul(it.rows.max(1)))
            })
            .saturating_mul(size)
            .max(1);
        let nt = s.nt.clamp(1, NR);
        let mc = (BLOCK_BYTES / per_row / mr).max(1) * mr;
        let mut i0 = r0;
        while i0 < r1 {
            let i1 = (i0 + mc).min(r1);
            let mut j = c0;
            while j < c1 {
                let nr = (c1 - j).min(nt);
                let mut i = i0;
                while i < i1 {
                    let rows = (i1 - i).min(mr);
                    by(rows.div_ceil(L::LANES), nr, i, j, rows);
                    i += mr;
                }
                j += nt;
            }
            i0 = i1;
        }
    }

    /// `$name::<L, MV>(nr, …)`: the tile of exactly `nr` columns (one instantiation per width).
    macro_rules! by_nr {
        ($name:ident, [$($nrs:literal)*]) => {
            /// The tile of `nr` columns.
            ///
            /// # Safety
            /// As [`tile`] with NR = `nr`.
            #[inline(always)]
            unsafe fn $name<L: Whole, const MV: usize, const PAIR: bool>(
                nr: usize,
                s: &Shape<'_, L::E>,
                i: usize,
                j: usize,
                rows: usize,
                asm: (bool, bool),
            ) {
                // SAFETY: forwarded contract.
                unsafe {
                    match nr {
                        $($nrs => tile_any::<L, MV, $nrs, PAIR>(s, i, j, rows, asm),)*
                        _ => unreachable!("a tile of {nr} columns"),
                    }
                }
            }
        };
    }
    by_nr!(by_nr_6, [1 2 3 4 5 6]);
    by_nr!(by_nr_12, [1 2 3 4 5 6 7 8 9 10 11 12]);

    /// One entry per element type and instruction set: the tile dispatch on (vectors, columns).
    macro_rules! entry {
        ($name:ident, $l:ident, $feat:literal, $nr:literal, $by:ident, [$($mv:literal)*]) => {
            /// The register-tile batch kernel on one part `[r0, r1, c0, c1]` of C.
            ///
            /// # Safety
            /// The instruction set is available; `s` is an oriented batch (C's and every A's
            /// rows unit stride) whose every element is in bounds; the part lies inside C and
            /// no other thread writes it.
            #[target_feature(enable = $feat)]
            pub(super) unsafe fn $name(s: &Shape<'_, <$l as Lanes>::E>, range: [usize; 4]) {
                /// The tiles, paired (two output rows) or not.
                ///
                /// # Safety
                /// As the entry.
                #[target_feature(enable = $feat)]
                #[inline]
                unsafe fn body<const PAIR: bool>(
                    s: &Shape<'_, <$l as Lanes>::E>,
                    range: [usize; 4],
                ) {
                    const MV: usize = [$($mv),*].len();
                    // every item's B rows unit stride: the tiles that may take the
                    // hand-scheduled loop
                    // (and whether some item has several runs: those tiles instantiated apart)
                    let asm = (
                        s.items.iter().all(|it| it.rsb == 1),
                        s.items.iter().any(|it| it.rows > 1),
                    );
                    let by = |mv: usize, nr: usize, i: usize, j: usize, rows: usize| {
                        // SAFETY: the tile lies inside the part (rows ≤ mv·LANES, nr ≤ NR).
                        unsafe {
                            match mv {
                                $($mv => $by::<$l, $mv, PAIR>(nr, s, i, j, rows, asm),)*
                                _ => unreachable!("a tile of {mv} vectors"),
                            }
                        }
                    };
                    // SAFETY: forwarded contract; the instruction set is enabled here.
                    unsafe { part::<$l, MV, $nr>(s, range, by) }
                }
                /// The paired shapes' tiles, a function apart (the other tiles' loops
                /// compiled as without them).
                ///
                /// # Safety
                /// As the entry.
                #[target_feature(enable = $feat)]
                #[inline(never)]
                unsafe fn paired(s: &Shape<'_, <$l as Lanes>::E>, range: [usize; 4]) {
                    // SAFETY: forwarded contract.
                    unsafe { body::<true>(s, range) }
                }
                if s.pair.is_some() {
                    // SAFETY: forwarded contract; the instruction set is enabled here.
                    return unsafe { paired(s, range) };
                }
                // SAFETY: forwarded contract.
                unsafe { body::<false>(s, range) }
            }
        };
    }
    entry!(avx2_f32, Avx2S, "avx2,fma", 6, by_nr_6, [1 2]);
    entry!(avx2_f64, Avx2D, "avx2,fma", 6, by_nr_6, [1 2]);
    entry!(avx512_f32, Avx512S, "avx512f", 12, by_nr_12, [1 2]);
    entry!(avx512_f64, Avx512D, "avx512f", 6, by_nr_6, [1 2 3 4]);
}
