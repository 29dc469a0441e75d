//! Pack once, multiply many times: B packed into the blocked kernel's micro-panels ahead of
//! time, for weights reused across calls — for every element pair: `f32` and `f64` as they
//! are, `f16` widened to the `f32` panels, `bf16` in k pairs for `vdpbf16ps` on AVX-512 BF16
//! (widened elsewhere), `i8` weights as bytes in k quads (the
//! `vpmaddubsw`/`vpdpbusd` panels, with their largest magnitude measured once), `u8` weights
//! as `i16` k pairs (the `vpmaddwd` panels).
//!
//! The product runs as `Cᵀ = Bᵀ·Aᵀ`, with B in the role the kernel vectorises (its MR): so a
//! row-major C — the activations × weights of inference — is stored from the kernel's registers
//! a column of Cᵀ at a time, and a single row of A (the decode shape) streams the panels once
//! with vector multiply-adds and no padding work.
//!
//! The packed buffer is the layout `((KC, K1), (MR, N1)) : ((MR, KC·MR·N1), (1, MR·KC))` over
//! the padded domain `KC·K1 × MR·N1` (`K1 = ⌈k/KC⌉`, `N1 = ⌈n/MR⌉`): blocks of KC rows one after
//! another, each a row of panels of MR columns, each panel KC groups of MR consecutive elements
//! (the kernel's micro-panel); padding is zero — an ordinary layout of this crate
//! ([`PackedB::layout`]): printable, usable with the algebra, and copyable back to a row- or
//! column-major B through a tensor ([`PackedB::tensor`] + [`Padded`](crate::named::Padded) for
//! the logical extents). The blocked loop nest reads one `kc × MR` piece of a panel per
//! micro-tile (`panel(j, pc, kc)`), so the packing that every call of
//! [`gemm_with`](super::gemm_with) does for B is done once.

use std::vec::Vec;

use half::{bf16, f16};

use super::block::{Out, run_panels};
use super::check::{Strided, check_operand};
use super::error::{GemmError, Operand, OperandShape};
use super::front::{Rhs, prepare};
use super::gemv::{self, PanelsRef};
use super::kernel::Element;
use super::options::{MatMut, MatRef, Options, Packing};
use super::pack::Panels;
use super::pair::Pair;
use super::view::View;
use crate::DynLayout;
use crate::isa::Isa;
use crate::tensor::Tensor;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for half::bf16 {}
    impl Sealed for half::f16 {}
    impl Sealed for u8 {}
    impl Sealed for i8 {}
}

/// An element B can be packed ahead of time as ([`PackedB`]): `f32`, `f64`, `bf16`, `f16`,
/// `u8`, `i8` (sealed). Each packs into the panels its pair's kernels read.
///
/// ```
/// use layout::gemm::{Isa, MatMut, MatRef, PackedB, gemm_packed};
/// // i8 weights packed once, u8 activations
/// let b = [1i8, -2, 3, 4, -5, 6]; // 3×2 row-major
/// let pb = PackedB::new(Isa::selected(), MatRef { data: &b, rows: 3, cols: 2, row_stride: 2, col_stride: 1 }).unwrap();
/// let a = [1u8, 2, 3]; // 1×3
/// let mut c = [0i32; 2];
/// gemm_packed(Isa::selected(), 1, MatRef { data: &a, rows: 1, cols: 3, row_stride: 3, col_stride: 1 },
///     &pb, 0, MatMut { data: &mut c, rows: 1, cols: 2, row_stride: 2, col_stride: 1 }).unwrap();
/// assert_eq!(c, [1 + 6 - 15, -2 + 8 + 18]);
/// ```
pub trait Packable: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The packed panels' element.
    #[doc(hidden)]
    type Stored: Copy + Default + core::fmt::Debug + Send + Sync + 'static;
    /// Packs `b` for `isa`.
    #[doc(hidden)]
    fn pack_b(isa: Isa, b: MatRef<'_, Self>) -> Result<PackedB<Self>, GemmError>;
    /// The panels as `Self` when they are stored as `Self` (`f32`, `f64`).
    #[doc(hidden)]
    fn own(s: &[Self::Stored]) -> Option<&[Self]> {
        let _ = s;
        None
    }
}

/// B (k × n) packed for the kernels of one instruction set.
#[derive(Clone, Debug)]
pub struct PackedB<T: Packable> {
    isa: Isa,
    /// Columns of B per panel: the kernel's vector width (MR).
    nr: usize,
    kc: usize,
    /// k values per packed step (1; 2 for `i16` pairs; 4 for byte quads).
    kstep: usize,
    /// bf16 B stored as k pairs for `vdpbf16ps` (each stored `f32` slot one 32-bit pair of
    /// bf16 bits; `kc` and `kstep` then count pairs: `kstep` 1). Never set off x86-64.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pairs: bool,
    k: usize,
    n: usize,
    /// The largest `|b|` (integer B; the `vpmaddubsw` bound), 0 for floats.
    bmax: u32,
    /// `Σₚ b[p][j]` per column (`i8` B: the `i8 × i8` shift's correction), empty otherwise.
    sums: Vec<i32>,
    /// First element of the packed data inside `store` (64-byte aligned).
    start: usize,
    store: Vec<T::Stored>,
}

/// The block sizes one packing follows.
struct Plan {
    nr: usize,
    kc: usize,
    kstep: usize,
}

/// Checks `b` as an operand of `op` and returns where its elements are.
fn checked<T>(op: &'static str, b: &MatRef<'_, T>) -> Result<Strided, GemmError> {
    let shape = OperandShape {
        operand: Operand::B,
        rows: b.rows,
        cols: b.cols,
        row_stride: b.row_stride,
        col_stride: b.col_stride,
    };
    check_operand(op, shape, b.data.len())
}

/// Bᵀ as the packers read it.
fn rows_of<'a, T>(b: &MatRef<'a, T>, sb: Strided) -> super::pack::Rows<'a, T> {
    View {
        data: b.data,
        at: sb,
        map: None,
    }
    .transposed()
    .rows()
}

/// Packs B (`[k, n]`, read through `src` as Bᵀ) into blocks of `kc` rows, each a row of
/// `nr`-column panels of `⌈kc/kstep⌉` steps, zero-padded; returns the store and where the
/// aligned data starts.
fn build<S: Copy + Default>(
    op: &'static str,
    [k, n]: [usize; 2],
    plan: &Plan,
    src: &dyn Panels<S>,
) -> Result<(Vec<S>, usize), GemmError> {
    let Plan { nr, kc, kstep } = *plan;
    let kcp = kc.next_multiple_of(kstep);
    let pad = 64 / core::mem::size_of::<S>().max(1);
    let len = n
        .div_ceil(nr)
        .checked_mul(nr)
        .and_then(|x| x.checked_mul(k.div_ceil(kc).checked_mul(kcp)?))
        .filter(|len| len.checked_add(pad).is_some())
        .ok_or(GemmError::Allocation {
            op,
            elements: usize::MAX,
        })?;
    let mut store = Vec::new();
    store
        .try_reserve_exact(len + pad)
        .map_err(|_| GemmError::Allocation { op, elements: len })?;
    store.resize(len + pad, S::default());
    let start = store.as_ptr().align_offset(64).min(pad);
    if k > 0 && n > 0 {
        // blocks of KC rows, each a row of NR-column panels of KC steps (the last block's
        // panels keep that stride and are zero beyond row k)
        let block = n.div_ceil(nr) * nr * kcp;
        for (bi, pc) in (0..k).step_by(kc).enumerate() {
            let kcb = kc.min(k - pc);
            let kcbp = kcb.next_multiple_of(kstep);
            for (pi, j) in (0..n).step_by(nr).enumerate() {
                let at = start + bi * block + pi * nr * kcp;
                src.pack(
                    &mut store[at..at + nr * kcbp],
                    j,
                    pc,
                    nr.min(n - j),
                    kcb,
                    nr,
                );
            }
        }
    }
    Ok((store, start))
}

impl<T: Packable> PackedB<T> {
    /// Packs `b` for the kernels of `isa` ([`Isa::selected`] for the default).
    ///
    /// ```
    /// use layout::gemm::{Isa, MatMut, MatRef, PackedB, gemm_packed};
    /// // B 3×2 row-major, packed once
    /// let b = [1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0];
    /// let pb = PackedB::new(Isa::selected(), MatRef { data: &b, rows: 3, cols: 2, row_stride: 2, col_stride: 1 }).unwrap();
    /// let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]; // A 2×3 row-major
    /// let mut c = [0.0f32; 4];
    /// gemm_packed(Isa::selected(), 1.0, MatRef { data: &a, rows: 2, cols: 3, row_stride: 3, col_stride: 1 },
    ///     &pb, 0.0, MatMut { data: &mut c, rows: 2, cols: 2, row_stride: 2, col_stride: 1 }).unwrap();
    /// assert_eq!(c, [4.0, 5.0, 10.0, 11.0]);
    /// ```
    ///
    /// # Errors
    /// [`GemmError::IsaUnavailable`]; the errors of an operand check (slice too short for the
    /// strides, overflow); [`GemmError::Allocation`] when the buffer cannot be allocated.
    pub fn new(isa: Isa, b: MatRef<'_, T>) -> Result<Self, GemmError> {
        T::pack_b(isa, b)
    }

    /// Rows of B (k).
    pub fn rows(&self) -> usize {
        self.k
    }

    /// Columns of B (n).
    pub fn cols(&self) -> usize {
        self.n
    }

    /// The instruction set the panels were packed for.
    pub fn isa(&self) -> Isa {
        self.isa
    }

    /// The stored `kc × nr` piece (k values `p0 .. p0 + kc`, padded to the k step) of the
    /// panel holding column `v` (a multiple of `nr`).
    fn piece(&self, v: usize, p0: usize, kc: usize) -> &[T::Stored] {
        let kcp = self.kc.next_multiple_of(self.kstep);
        let block = self.n.div_ceil(self.nr) * self.nr * kcp;
        let at = self.start
            + (p0 / self.kc) * block
            + (v / self.nr) * self.nr * kcp
            + (p0 % self.kc) * self.nr;
        &self.store[at..at + kc.next_multiple_of(self.kstep) * self.nr]
    }

    /// A packed B of the given plan around its store.
    fn of(
        isa: Isa,
        plan: &Plan,
        [k, n]: [usize; 2],
        (store, start): (Vec<T::Stored>, usize),
    ) -> Self {
        PackedB {
            isa,
            nr: plan.nr,
            kc: plan.kc,
            kstep: plan.kstep,
            pairs: false,
            k,
            n,
            bmax: 0,
            sums: Vec::new(),
            start,
            store,
        }
    }
}

impl<T: Element + Packable<Stored = T>> PackedB<T> {
    /// The packed elements, in the order of [`PackedB::layout`].
    pub fn as_slice(&self) -> &[T] {
        let len = self.n.div_ceil(self.nr) * self.nr * self.k.div_ceil(self.kc) * self.kc;
        &self.store[self.start..self.start + len]
    }

    /// The layout of the packed buffer over the padded domain `KC·K1 × MR·N1`:
    /// `((KC, K1), (MR, N1)) : ((MR, KC·MR·N1), (1, MR·KC))`.
    ///
    /// # Errors
    /// Only for an empty B (a layout has positive extents).
    pub fn layout(&self) -> Result<DynLayout, crate::LayoutError> {
        let (kc, nr) = (self.kc as i64, self.nr as i64);
        let (k1, n1) = (
            self.k.div_ceil(self.kc) as i64,
            self.n.div_ceil(self.nr) as i64,
        );
        let s = format_args!(
            "(({kc},{k1}),({nr},{n1})):(({nr},{}),(1,{}))",
            kc * nr * n1,
            nr * kc
        );
        let mut text = std::string::String::new();
        core::fmt::write(&mut text, s).expect("writing to a String");
        text.parse()
    }

    /// The packed buffer as a tensor (its domain is the padded `KC·K1 × MR·N1`; wrap the layout
    /// in [`Padded`](crate::named::Padded) with `[k, n]` to see the logical B).
    ///
    /// # Errors
    /// As [`PackedB::layout`].
    pub fn tensor(&self) -> Result<Tensor<&[T], DynLayout>, crate::tensor::TensorError> {
        Tensor::new(self.as_slice(), self.layout()?)
    }
}

/// The float pairs' packing: B's own element, the kernel's MR panels.
fn pack_float<T: Element + Packable<Stored = T>>(
    isa: Isa,
    b: MatRef<'_, T>,
) -> Result<PackedB<T>, GemmError> {
    let op = T::OP;
    let ki = match T::kernel(isa) {
        Some(ki) if isa.is_available() => ki,
        _ => return Err(GemmError::IsaUnavailable { op, isa }),
    };
    // a B of fewer than KC rows is one block of exactly k rows (no padding)
    let plan = Plan {
        nr: ki.mr,
        kc: ki.kc.min(b.rows).max(1),
        kstep: 1,
    };
    let sb = checked(op, &b)?;
    let built = build(op, [b.rows, b.cols], &plan, &rows_of(&b, sb))?;
    Ok(PackedB::of(isa, &plan, [b.rows, b.cols], built))
}

macro_rules! float_packable {
    ($t:ty) => {
        impl Packable for $t {
            type Stored = $t;
            fn pack_b(isa: Isa, b: MatRef<'_, $t>) -> Result<PackedB<$t>, GemmError> {
                pack_float(isa, b)
            }
            fn own(s: &[$t]) -> Option<&[$t]> {
                Some(s)
            }
        }
    };
}
float_packable!(f32);
float_packable!(f64);

macro_rules! half_packable {
    ($t:ty) => {
        /// Widened to the `f32` kernel's panels once (bf16 on AVX-512 BF16: k pairs for
        /// `vdpbf16ps`, see [`PackedB`]).
        impl Packable for $t {
            type Stored = f32;
            fn pack_b(isa: Isa, b: MatRef<'_, $t>) -> Result<PackedB<$t>, GemmError> {
                let op = "PackedB::new";
                let ki = match <f32 as Element>::kernel(isa) {
                    Some(ki) if isa.is_available() => ki,
                    _ => return Err(GemmError::IsaUnavailable { op, isa }),
                };
                let sb = checked(op, &b)?;
                let mut src = rows_of(&b, sb);
                #[cfg(target_arch = "x86_64")]
                if super::half_inputs::kstep::<$t>(isa) == 2 {
                    // SAFETY: kstep is 2 only for bf16.
                    let src = unsafe { super::half_inputs::rows_as_bf16(src) };
                    return pack_pairs(op, isa, [b.rows, b.cols], src);
                }
                let plan = Plan {
                    nr: ki.mr,
                    kc: ki.kc.min(b.rows).max(1),
                    kstep: 1,
                };
                src.simd = super::widen::simd(isa);
                let built = build(op, [b.rows, b.cols], &plan, &src)?;
                Ok(PackedB::of(isa, &plan, [b.rows, b.cols], built))
            }
        }
    };
}
half_packable!(bf16);
half_packable!(f16);

/// bf16 B in k pairs for the `vdpbf16ps` kernel (`bf16.rs`): its 32-column panels of KC k
/// values, each pair one 32-bit word, stored in the `f32` slots (bits, not values): the
/// layout of [`build`] counted in pairs (KC/2 words per panel row, ⌈k/2⌉ rows).
#[cfg(target_arch = "x86_64")]
fn pack_pairs<T: Packable<Stored = f32>>(
    op: &'static str,
    isa: Isa,
    [k, n]: [usize; 2],
    src: super::pack::Rows<'_, bf16>,
) -> Result<PackedB<T>, GemmError> {
    let ki = super::bf16::kernel();
    let kc = ki.kc.min(k).max(1);
    // KC is even (a multiple of 16) unless k < KC: then one block of ⌈k/2⌉ pairs
    let plan = Plan {
        nr: ki.mr,
        kc: kc.div_ceil(2),
        kstep: 1,
    };
    let words = PairWords {
        rows: super::bf16::PairRows(src),
        k,
    };
    let built = build(op, [k.div_ceil(2), n], &plan, &words)?;
    let mut pb = PackedB::of(isa, &plan, [k, n], built);
    pb.pairs = true;
    Ok(pb)
}

/// A bf16 B's pair panels written into `f32` slots ([`pack_pairs`]): rows and steps counted in
/// pairs of k.
#[cfg(target_arch = "x86_64")]
struct PairWords<'a> {
    rows: super::bf16::PairRows<'a>,
    /// k values of B.
    k: usize,
}

#[cfg(target_arch = "x86_64")]
impl Panels<f32> for PairWords<'_> {
    fn pack(&self, dst: &mut [f32], v0: usize, w0: usize, len: usize, kw: usize, r: usize) {
        let p0 = 2 * w0;
        let kc = (2 * kw).min(self.k - p0);
        // SAFETY: the same bytes as 16-bit lanes (any bits are valid for both types, and an
        // f32 slot's alignment is a multiple of an i16's); the borrow of `dst` is moved into
        // the new slice for its lifetime.
        let lanes = unsafe {
            core::slice::from_raw_parts_mut(dst.as_mut_ptr().cast::<i16>(), 2 * dst.len())
        };
        self.rows.pack(lanes, v0, p0, len, kc, r);
    }
}

/// A bf16 B's pair panels as the engine reads them (k values counted as the engine counts
/// them; the pieces are the stored words as 16-bit lanes).
#[cfg(target_arch = "x86_64")]
struct PairPanels<'a, T: Packable<Stored = f32>>(&'a PackedB<T>);

#[cfg(target_arch = "x86_64")]
impl<T: Packable<Stored = f32>> Panels<i16> for PairPanels<'_, T> {
    fn pack(&self, _: &mut [i16], _: usize, _: usize, _: usize, _: usize, _: usize) {
        debug_assert!(false, "a PackedB is never packed again");
    }
    fn prepacked(&self, v: usize, p0: usize, kc: usize) -> Option<&[i16]> {
        // the engine's blocks are the packed ones (the same KC): p0 a multiple of KC, even
        let words = self.0.piece(v, p0 / 2, kc.div_ceil(2));
        // SAFETY: the same bytes as 16-bit lanes (see `PairWords::pack`).
        Some(unsafe { core::slice::from_raw_parts(words.as_ptr().cast::<i16>(), 2 * words.len()) })
    }
    fn is_prepacked(&self) -> bool {
        true
    }
}

/// bf16 with B pre-packed in k pairs: one row of A streams the panels once through the
/// `vdpbf16ps` matrix × vector kernel (`bf16::gemv_pairs`), others run the loop nest on
/// `Bf16Pairs` with A paired while packing.
#[cfg(target_arch = "x86_64")]
fn run_bf16_pairs<H: super::widen::Half + Packable<Stored = f32>>(p: PackedRun<'_, H, H, f32>) {
    let b = p.b;
    // SAFETY: only a bf16 B is packed in pairs, and A's element is B's (the pair is H × H).
    let a = unsafe { super::half_inputs::as_bf16(p.a) };
    let [m, k, n] = p.mkn;
    // the pair panels as the row kernels read them: (panels, KC in pairs, k, n)
    let len = n.div_ceil(b.nr) * b.nr * k.div_ceil(2).div_ceil(b.kc) * b.kc;
    let panels = (&b.store[b.start..b.start + len], b.kc, k, n);
    if m == 1 && p.packing != Packing::Always {
        super::bf16::gemv_pairs(p.alpha, (a.data, a.at), panels, p.beta, (p.c.c, p.c.sc));
        return;
    }
    // a few rows on one thread: tiles of their exact height (`bf16::small_m_pairs`)
    if m <= super::bf16::SMALL_M && p.threads == 1 && p.packing != Packing::Always {
        super::bf16::small_m_pairs(p.alpha, (a.data, a.at), m, panels, p.beta, (p.c.c, p.c.sc));
        return;
    }
    let ki = super::bf16::kernel();
    run_panels::<super::bf16::Bf16Pairs>(
        &ki,
        p.mkn,
        p.alpha,
        &super::bf16::PairRows(a.rows()),
        &PairPanels(b),
        p.beta,
        p.c,
        p.threads,
    );
}

/// `i8` weights: bytes in k quads for the quad kernels (`vpdpbusd`, `vpmaddubsw` where the
/// activations' range allows, the exact widening kernel otherwise), `|b|` measured once; the
/// `i16` pair panels on instruction sets without them.
impl Packable for i8 {
    type Stored = u8;
    fn pack_b(isa: Isa, b: MatRef<'_, i8>) -> Result<PackedB<i8>, GemmError> {
        let op = "PackedB::new";
        if !isa.is_available() {
            return Err(GemmError::IsaUnavailable { op, isa });
        }
        let sb = checked(op, &b)?;
        let src = rows_of(&b, sb);
        let Some(plan) = super::quads::packed_plan(isa, b.rows) else {
            return Err(GemmError::IsaUnavailable { op, isa });
        };
        let plan = Plan {
            nr: plan.0,
            kc: plan.1,
            kstep: 4,
        };
        let bytes = super::quads::Bytes {
            rows: src,
            flip: 0,
            zip: super::quads::Zip::at(isa),
        };
        let built = build(op, [b.rows, b.cols], &plan, &bytes)?;
        let mut pb = PackedB::of(isa, &plan, [b.rows, b.cols], built);
        pb.bmax = super::quads::max_abs(&src, b.cols, b.rows);
        pb.sums = super::quads::packed_sums(&src, b.cols, b.rows);
        Ok(pb)
    }
}

/// `u8` weights: `i16` k pairs for the `vpmaddwd` kernels.
impl Packable for u8 {
    type Stored = i16;
    fn pack_b(isa: Isa, b: MatRef<'_, u8>) -> Result<PackedB<u8>, GemmError> {
        let op = "PackedB::new";
        if !isa.is_available() {
            return Err(GemmError::IsaUnavailable { op, isa });
        }
        let sb = checked(op, &b)?;
        let ki = super::int8::kernel(isa);
        let plan = Plan {
            nr: ki.mr,
            kc: ki.kc.min(b.rows).max(1),
            kstep: 2,
        };
        let built = build(op, [b.rows, b.cols], &plan, &rows_of(&b, sb))?;
        Ok(PackedB::of(isa, &plan, [b.rows, b.cols], built))
    }
}

impl<T: Packable> Panels<T::Stored> for PackedB<T> {
    fn pack(&self, _: &mut [T::Stored], _: usize, _: usize, _: usize, _: usize, _: usize) {
        // the engine asks `prepacked` first and never packs a prepacked source
        debug_assert!(false, "a PackedB is never packed again");
    }
    fn prepacked(&self, v: usize, p0: usize, kc: usize) -> Option<&[T::Stored]> {
        Some(self.piece(v, p0, kc))
    }
    fn is_prepacked(&self) -> bool {
        true
    }
}

/// A checked product with a pre-packed B, handed to the element pair ([`Pair`]'s `packed`).
#[doc(hidden)]
pub struct PackedRun<'a, A, B: Packable, C> {
    pub(crate) mkn: [usize; 3],
    pub(crate) isa: Isa,
    pub(crate) threads: usize,
    pub(crate) packing: Packing,
    pub(crate) alpha: C,
    pub(crate) beta: C,
    pub(crate) a: View<'a, A>,
    pub(crate) b: &'a PackedB<B>,
    pub(crate) c: Out<'a, C>,
}

/// The float pairs with a pre-packed B: one row of A streams the panels once
/// (`gemv::packed`), others run the loop nest without B's packing.
pub(crate) fn run_float<T: Element + Packable>(p: PackedRun<'_, T, T, T>) {
    let Some(data) = T::own(&p.b.store) else {
        unreachable!("f32 and f64 panels are stored as themselves")
    };
    let Some(ki) = T::kernel(p.isa).filter(|ki| ki.mr == p.b.nr) else {
        unreachable!("gemm_packed checked the kernel")
    };
    let b = p.b;
    let len = b.n.div_ceil(b.nr) * b.nr * b.k.div_ceil(b.kc) * b.kc;
    let panels = PanelsRef {
        data: &data[b.start..b.start + len],
        nr: b.nr,
        kc: b.kc,
        k: b.k,
        n: b.n,
    };
    // one row of A (the decode shape): the panels streamed once with vector multiply-adds
    if p.mkn[0] == 1 && p.packing != Packing::Always {
        gemv::packed(
            p.isa,
            p.alpha,
            (p.a.data, p.a.at),
            panels,
            p.beta,
            (p.c.c, p.c.sc),
        );
        return;
    }
    let src = FloatPanels { panels };
    run_panels::<T>(
        &ki,
        p.mkn,
        p.alpha,
        &p.a.rows(),
        &src,
        p.beta,
        p.c,
        p.threads,
    );
}

/// A float B's panels as the engine reads them.
struct FloatPanels<'a, T> {
    panels: PanelsRef<'a, T>,
}

impl<T: Element> Panels<T> for FloatPanels<'_, T> {
    fn pack(&self, _: &mut [T], _: usize, _: usize, _: usize, _: usize, _: usize) {
        debug_assert!(false, "a PackedB is never packed again");
    }
    fn prepacked(&self, v: usize, p0: usize, kc: usize) -> Option<&[T]> {
        Some(self.panels.panel(v, p0, kc))
    }
    fn is_prepacked(&self) -> bool {
        true
    }
}

/// The 16-bit float pairs with a pre-packed (widened) B: A widened while packing, the `f32`
/// kernels.
pub(crate) fn run_half<H: super::widen::Half + Packable<Stored = f32>>(
    p: PackedRun<'_, H, H, f32>,
) {
    #[cfg(target_arch = "x86_64")]
    if p.b.pairs {
        return run_bf16_pairs(p);
    }
    let Some(ki) = <f32 as Element>::kernel(p.isa).filter(|ki| ki.mr == p.b.nr) else {
        unreachable!("gemm_packed checked the kernel")
    };
    let b = p.b;
    // one row of A (the decode shape): the row widened once, the f32 panels streamed once
    if p.mkn[0] == 1 && p.packing != Packing::Always {
        let k = p.mkn[1];
        let (o, cs) = (p.a.at.origin, p.a.at.cs);
        let x: Vec<f32> = (0..k)
            .map(|q| p.a.data[(o + q as isize * cs) as usize].to_f32())
            .collect();
        let len = b.n.div_ceil(b.nr) * b.nr * b.k.div_ceil(b.kc) * b.kc;
        let panels = PanelsRef {
            data: &b.store[b.start..b.start + len],
            nr: b.nr,
            kc: b.kc,
            k: b.k,
            n: b.n,
        };
        let sx = Strided {
            origin: 0,
            rs: 1,
            cs: 1,
        };
        gemv::packed(p.isa, p.alpha, (&x, sx), panels, p.beta, (p.c.c, p.c.sc));
        return;
    }
    let mut a = p.a.rows();
    a.simd = super::widen::simd(p.isa);
    run_panels::<f32>(&ki, p.mkn, p.alpha, &a, p.b, p.beta, p.c, p.threads);
}

/// `i8` B pre-packed in quads: the quad kernels, with B's measured range and column sums.
pub(crate) fn run_quads<A: super::int8::Int8 + super::quads::Byte>(p: PackedRun<'_, A, i8, i32>) {
    let b = p.b;
    super::quads::run_packed(p, b.bmax, &b.sums, (b.nr, b.kc));
}

/// `u8` B pre-packed as `i16` pairs: A paired while packing, the `vpmaddwd` kernels.
pub(crate) fn run_pairs<A: super::int8::Int8>(p: PackedRun<'_, A, u8, i32>) {
    let ki = super::int8::kernel(p.isa);
    run_panels::<super::int8::I8Pairs>(
        &ki,
        p.mkn,
        p.alpha,
        &p.a.rows(),
        p.b,
        p.beta,
        p.c,
        p.threads,
    );
}

/// `C ← α·A·B + β·C` with B packed ahead of time ([`PackedB`]), for every element pair: the
/// blocked loop nest without B's packing. `opts` must name the instruction set B was packed
/// for; threads split C's rows.
///
/// # Errors
/// [`GemmError::PackedIsaMismatch`] when `opts` names another instruction set than the one B
/// was packed for; [`GemmError::ShapeMismatch`]; the operand errors of
/// [`gemm_with`](super::gemm_with) for A and C.
pub fn gemm_packed<A: Pair<B>, B: Packable>(
    opts: impl Into<Options>,
    alpha: A::Out,
    a: MatRef<'_, A>,
    b: &PackedB<B>,
    beta: A::Out,
    c: MatMut<'_, A::Out>,
) -> Result<(), GemmError> {
    let op = "gemm_packed";
    let opts = opts.into();
    if opts.isa != b.isa {
        return Err(GemmError::PackedIsaMismatch {
            op,
            packed: b.isa,
            asked: opts.isa,
        });
    }
    let Some(p) = prepare(
        op,
        &opts,
        A::has_kernel(opts.isa),
        alpha,
        a,
        Rhs::<B>::Owned([b.k, b.n]),
        beta,
        c,
    )?
    else {
        return Ok(());
    };
    A::packed(PackedRun {
        mkn: p.mkn,
        isa: opts.isa,
        threads: p.threads,
        packing: opts.packing,
        alpha,
        beta,
        a: p.a,
        b,
        c: p.c,
    });
    Ok(())
}
