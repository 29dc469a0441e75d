//! The element pairs the GEMM multiplies: `A`'s element implements [`Pair<B>`] with the C
//! element as [`Pair::Out`].
//!
//! A pair carries its kernels for each route of the front (matrix × vector, unpacked small
//! products, the blocked engine, static tiles) and its packing step; it calls nothing above
//! it; the front (`front.rs`) checks, applies the rules and picks the route once for every
//! pair.

use half::{bf16, f16};
use std::vec::Vec;

use super::block::{self, run_panels};
use super::fixed;
use super::gemv;
use super::half_inputs;
use super::igemv;
use super::int8;
use super::kernel::Direct;
use super::kernel::{Element, Scalar};
use super::options::Packing;
use super::packed_b::{self, Packable, PackedRun};
use super::view::Product;
use crate::isa::Isa;
use crate::walk::AnyLayout;

/// The runner of [`Pair::with_shared_b`]: a product in, `None` when it ran.
#[doc(hidden)]
pub type SharedRunner<'r, A, B> = dyn FnMut(Product<'_, A, B, <A as Pair<B>>::Out>) -> Option<Product<'_, A, B, <A as Pair<B>>::Out>>
    + 'r;

mod sealed {
    pub trait Sealed<B> {}
}

/// An (A, B → C) element pair of the GEMM, implemented on A's element with B's as the
/// parameter: `f32 × f32 → f32`, `f64 × f64 → f64`, `bf16 × bf16 → f32`, `f16 × f16 → f32`,
/// and `u8`/`i8` × `u8`/`i8` → `i32` (exact, wrapping modulo 2³²):
///
/// | A | B | C, α, β | kernels |
/// |---|---|---|---|
/// | `f32` | `f32` | `f32` | FMA tiles (AVX-512 32×12, AVX2 16×6, portable 4×4); unpacked tiles for small products |
/// | `f64` | `f64` | `f64` | FMA tiles (32×6, 8×6, 4×4); unpacked tiles for small products |
/// | `bf16` | `bf16` | `f32` | AMX `tdpbf16ps` on tiles of 32 k (AMX); `vdpbf16ps` on k pairs (AVX-512 BF16); else widened in packing, f32 tiles |
/// | `f16` | `f16` | `f32` | widened in packing (F16C), f32 tiles |
/// | `u8`/`i8` | `i8` | `i32` | byte k-quads: `vpdpbusd` 16×6 (VNNI), `vpmaddubsw` 16×6 (AVX2, when `2·max a·max\|b\| ≤ 32767`), else as below; `i8` A shifted by +128 and corrected |
/// | `u8`/`i8` | `u8` | `i32` | `i16` k-pairs, `vpmaddwd` 16×6 (AVX2), portable 4×4 |
///
/// Every pair runs the same front (checks, BLAS's rule, threads, route), loops, blocking, edge
/// tiles and operand layouts; only packing (what a panel element is) and the microkernels
/// differ.
///
/// ```
/// use half::bf16;
/// use layout::{DynLayout, Tensor, gemm};
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // u8 activations × i8 weights → i32
/// let a = Tensor::new(vec![1u8, 2, 3, 4, 5, 6], l("(2,3):(3,1)")).unwrap();
/// let b = Tensor::new(vec![1i8, -1, 0, 2, -3, 1], l("(3,2):(2,1)")).unwrap();
/// let mut c = Tensor::new(vec![0i32; 4], l("(2,2):(2,1)")).unwrap();
/// gemm::gemm(1, &a, &b, 0, &mut c).unwrap();
/// assert_eq!(c.as_slice(), &[-8, 6, -14, 12]);
/// // bf16 × bf16 → f32, same entry
/// let a = Tensor::new([1.0f32, 2.0, 3.0, 4.0].map(bf16::from_f32).to_vec(), l("(2,2):(2,1)")).unwrap();
/// let mut c = Tensor::new(vec![0f32; 4], l("(2,2):(1,2)")).unwrap();
/// gemm::gemm(1.0, &a, &a, 0.0, &mut c).unwrap();
/// assert_eq!(c.as_slice(), &[7.0, 15.0, 10.0, 22.0]);
/// ```
pub trait Pair<B>: sealed::Sealed<B> + Copy + Default + Send + Sync + 'static {
    /// C's element (also α and β).
    type Out: Scalar;

    /// The layout of one packed micro-panel of `r` rows (the kernel's MR for A, NR for B) by
    /// `k` steps of the reduction, as the kernels of `isa` read this pair: element (row i, step p)
    /// of the panel at its offset. One k value per step for `f32`, `f64` and widened 16-bit
    /// floats: `(r, k) : (1, r)`; k in pairs for the integer pairs and for bf16 on AVX-512 BF16
    /// (`vpmaddwd`, `vdpbf16ps`): `(r, (2, ⌈k/2⌉)) : (2, (1, 2r))` over k padded to even; bf16 on
    /// AMX: that for r = 16 and k in groups of 32 for other r, `(r, (32, ⌈k/32⌉)) : (32, (1,
    /// 32r))`, both over k padded to a multiple of 32; k in
    /// quads for the integer pairs on aarch64 with the dot products (`sdot`/`udot`):
    /// `(r, (4, ⌈k/4⌉)) : (4, (1, 4r))`; in octets with the matrix multiply-adds
    /// (`smmla`/`ummla`/`usmmla`, i8mm): `(r, (8, ⌈k/8⌉)) : (8, (1, 8r))`; in sixteens on
    /// aarch64 without either (`smull`/`sadalp`): `(r, (16, ⌈k/16⌉)) : (16, (1, 16r))`.
    ///
    /// ```
    /// use layout::gemm::{Isa, Pair};
    /// let l = <u8 as Pair<i8>>::panel_layout(Isa::Portable, 4, 6).unwrap();
    /// assert_eq!(l.to_string(), "(4,(2,3)):(2,(1,8))");
    /// assert_eq!(l.offset(1 + 4 * 3), 2 + 9); // row 1, k step 3: second of pair 1
    /// ```
    ///
    /// # Errors
    /// `r` or `k` zero, or an extent beyond `i64`.
    fn panel_layout(isa: Isa, r: usize, k: usize) -> Result<crate::DynLayout, crate::LayoutError>;

    /// Whether this build has kernels of `isa` for the pair (availability on this CPU is the
    /// front's check).
    #[doc(hidden)]
    fn has_kernel(isa: Isa) -> bool;

    /// The matrix × vector route (m = 1 or n = 1, strided operands): `true` when it ran,
    /// `false` (nothing touched) when the pair has no such kernel or the strides do not suit.
    #[doc(hidden)]
    fn gemv(p: &mut Product<'_, Self, B, Self::Out>) -> bool {
        let _ = p;
        false
    }

    /// The unpacked route for small strided products: `true` when it ran, `false` (nothing
    /// touched) otherwise.
    #[doc(hidden)]
    fn small(p: &mut Product<'_, Self, B, Self::Out>) -> bool {
        let _ = p;
        false
    }

    /// The fused route for tiny strided products (`front::strided`: every extent at most
    /// `front::TINY`, m, n ≥ 2, [`Packing::Auto`], one thread): `true` when it ran, `false`
    /// (nothing touched) when the pair has no such kernel or [`Pair::small`] would not run the
    /// product as outer-product tiles (the route then runs as for any product).
    #[doc(hidden)]
    fn tiny(p: &mut Product<'_, Self, B, Self::Out>) -> bool {
        let _ = p;
        false
    }

    /// The k-vector route for small products whose A rows and B columns are contiguous along
    /// k (strided or mapped): `true` when it ran, `false` (nothing touched) otherwise.
    #[doc(hidden)]
    fn kvec(p: &mut Product<'_, Self, B, Self::Out>) -> bool {
        let _ = p;
        false
    }

    /// The blocked engine: every product, any affine operands.
    #[doc(hidden)]
    fn blocked(p: Product<'_, Self, B, Self::Out>);

    /// Products that read one B (`k × n`: the cells of an operand cut along m,
    /// `swizzled::Plan`). `f` is called once with a runner and hands it each product in turn.
    /// The runner either multiplies the product on the blocked engine, on B packed once for
    /// every product (returns `None`), or hands it back for the front to route (`Some`: a pair
    /// that packs B per product, or a product that does not run as `Cᵀ = Bᵀ·Aᵀ` on the pair's
    /// kernel, or whose packed B would not fit L2).
    #[doc(hidden)]
    fn with_shared_b(isa: Isa, kn: [usize; 2], f: &mut dyn FnMut(&mut SharedRunner<'_, Self, B>)) {
        let _ = (isa, kn);
        f(&mut |p| Some(p))
    }

    /// Runs `f` with buffers for dense copies of A, B and C (operands that are not affine),
    /// kept by the thread between calls where the pair has them (fresh ones otherwise).
    #[doc(hidden)]
    fn with_dense<R>(f: impl FnOnce(&mut Vec<Self>, &mut Vec<B>, &mut Vec<Self::Out>) -> R) -> R {
        f(&mut Vec::new(), &mut Vec::new(), &mut Vec::new())
    }

    /// The product with a pre-packed B ([`PackedB`](super::PackedB)): checked, the rule
    /// applied, B packed for `p.isa`.
    #[doc(hidden)]
    fn packed(p: PackedRun<'_, Self, B, Self::Out>)
    where
        B: Packable;

    /// Static layouts (every extent and stride a constant of the types): `true` when the
    /// pair's constant-shape kernels ran. `a`, `b`, `c` start at the tensors' base offsets and
    /// the checks and BLAS's rule have run.
    #[doc(hidden)]
    fn fixed<LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>(
        isa: Isa,
        alpha: Self::Out,
        a: &[Self],
        b: &[B],
        beta: Self::Out,
        c: &mut [Self::Out],
    ) -> bool {
        let _ = (isa, alpha, a, b, beta, c);
        false
    }
}

impl<T: Element> sealed::Sealed<T> for T {}

/// `f32 × f32 → f32` and `f64 × f64 → f64`.
impl<T: Element> Pair<T> for T {
    type Out = T;

    fn panel_layout(_: Isa, r: usize, k: usize) -> Result<crate::DynLayout, crate::LayoutError> {
        super::pack::panel_layout(1, r, k)
    }

    #[inline]
    fn has_kernel(isa: Isa) -> bool {
        super::dispatch::has_kernel(isa)
    }

    fn gemv(p: &mut Product<'_, T, T, T>) -> bool {
        gemv::try_run(
            p.isa,
            p.mkn,
            p.alpha,
            (p.a.data, p.a.at),
            (p.b.data, p.b.at),
            p.beta,
            (&mut *p.c.c, p.c.sc),
            p.threads,
        )
    }

    #[inline]
    fn small(p: &mut Product<'_, T, T, T>) -> bool {
        unpacked(p)
    }

    #[inline]
    fn tiny(p: &mut Product<'_, T, T, T>) -> bool {
        let isa = p.isa;
        T::tiny(isa, direct(p))
    }

    fn kvec(p: &mut Product<'_, T, T, T>) -> bool {
        T::kvec(p)
    }

    fn packed(p: PackedRun<'_, T, T, T>)
    where
        T: Packable,
    {
        packed_b::run_float(p)
    }

    fn with_dense<R>(f: impl FnOnce(&mut Vec<T>, &mut Vec<T>, &mut Vec<T>) -> R) -> R {
        T::with_dense(|[a, b, c]| f(a, b, c))
    }

    fn blocked(p: Product<'_, T, T, T>) {
        let ki = kernel_for(&p);
        let asrc = p.a.rows();
        let bsrc = p.b.transposed().rows();
        run_panels::<T>(&ki, p.mkn, p.alpha, &asrc, &bsrc, p.beta, p.c, p.threads);
    }

    fn with_shared_b(isa: Isa, [k, n]: [usize; 2], f: &mut dyn FnMut(&mut SharedRunner<'_, T, T>)) {
        T::with_dense(|[_, store, _]| {
            // where B is (its data, origin and strides) and the kernel (MR, KC) it is packed
            // for, from the first cell that runs
            type Key<T> = (*const T, (isize, isize, isize), (usize, usize));
            let mut packed: Option<Key<T>> = None;
            f(&mut |p| {
                let ki = kernel_for(&p);
                let [m, pk, pn] = p.mkn;
                let (crs, ccs) = match p.c.cmap {
                    Some(cm) => (cm.rows.step(0), cm.cols.step(0)),
                    None => (p.c.sc.rs, p.c.sc.cs),
                };
                let b = (p.b.data.as_ptr(), (p.b.at.origin, p.b.at.rs, p.b.at.cs));
                // B packed once serves cells that read that B and run as Cᵀ = Bᵀ·Aᵀ (B
                // vectorised, as `run_panels` runs a pre-packed B) on the kernel it was
                // packed for
                if p.isa != isa
                    || [pk, pn] != [k, n]
                    || p.b.map.is_some()
                    || !block::transposes(m, n, crs, ccs)
                    || !block::shares(&ki, [k, n])
                    || packed.is_some_and(|(data, at, kern)| {
                        (data, at, kern) != (b.0, b.1, (ki.mr, ki.kc))
                    })
                {
                    return Some(p);
                }
                if packed.is_none() {
                    block::pack_shared::<T>(&ki, &p.b.transposed().rows(), [k, n], store);
                    packed = Some((b.0, b.1, (ki.mr, ki.kc)));
                }
                let shared = block::shared(&ki, [k, n], store);
                run_panels::<T>(
                    &ki,
                    p.mkn,
                    p.alpha,
                    &p.a.rows(),
                    &shared,
                    p.beta,
                    p.c,
                    p.threads,
                );
                None
            })
        })
    }

    #[inline(always)]
    fn fixed<LA: AnyLayout, LB: AnyLayout, LC: AnyLayout>(
        isa: Isa,
        alpha: T,
        a: &[T],
        b: &[T],
        beta: T,
        c: &mut [T],
    ) -> bool {
        // all three layouts static and the product small (at most 8³): the unrolled kernel over
        // constant offsets (decided at compile time: `fixed::applies` is a const fn of the
        // layout types); larger ones take the run-time routes, compiled once per pair
        let _ = isa;
        if const { fixed::applies::<LA, LB, LC>() } {
            return fixed::kernel::<T, LA, LB, LC>(alpha, a, b, beta, c);
        }
        false
    }
}

/// The blocked engine's kernel for a product of `T` ([`block::kernel_for`]).
fn kernel_for<T: Element>(p: &Product<'_, T, T, T>) -> super::kernel::KernelInfo<T> {
    let [m, _, n] = p.mkn;
    block::kernel_for(p.isa, [m, n], p.c.cmap)
}

macro_rules! half_pair {
    ($t:ty) => {
        impl sealed::Sealed<$t> for $t {}
        /// 16-bit floats into `f32`.
        impl Pair<$t> for $t {
            type Out = f32;
            fn panel_layout(
                isa: Isa,
                r: usize,
                k: usize,
            ) -> Result<crate::DynLayout, crate::LayoutError> {
                super::pack::panel_layout(half_inputs::panel_kstep::<$t>(isa, r), r, k)
            }
            fn has_kernel(isa: Isa) -> bool {
                <f32 as Element>::kernel(isa).is_some()
            }
            fn gemv(p: &mut Product<'_, $t, $t, f32>) -> bool {
                gemv::try_run_half(
                    p.isa,
                    p.mkn,
                    p.alpha,
                    (p.a.data, p.a.at),
                    (p.b.data, p.b.at),
                    p.beta,
                    (&mut *p.c.c, p.c.sc),
                    p.threads,
                )
            }
            fn blocked(p: Product<'_, $t, $t, f32>) {
                half_inputs::run_widened(p)
            }
            fn packed(p: PackedRun<'_, $t, $t, f32>) {
                packed_b::run_half(p)
            }
        }
    };
}
half_pair!(bf16);
half_pair!(f16);

macro_rules! int_pair {
    ($a:ty, $b:ty, $run:path, $packed:path) => {
        impl sealed::Sealed<$b> for $a {}
        /// 8-bit integers into `i32`, exact.
        impl Pair<$b> for $a {
            type Out = i32;
            fn panel_layout(
                isa: Isa,
                r: usize,
                k: usize,
            ) -> Result<crate::DynLayout, crate::LayoutError> {
                // on aarch64 bytes in octets for the matrix multiply-adds, quads for the dot
                // products, sixteens for the widening multiplies; elsewhere i16 pairs
                let kstep = if crate::isa::Ext::I8mm.usable(isa) {
                    8
                } else if crate::isa::Ext::Dotprod.usable(isa) {
                    4
                } else if cfg!(target_arch = "aarch64") && isa == Isa::Neon {
                    16
                } else {
                    2
                };
                super::pack::panel_layout(kstep, r, k)
            }
            fn has_kernel(_: Isa) -> bool {
                true
            }
            fn gemv(p: &mut Product<'_, $a, $b, i32>) -> bool {
                igemv::try_run(p)
            }
            fn blocked(p: Product<'_, $a, $b, i32>) {
                $run(p)
            }
            fn packed(p: PackedRun<'_, $a, $b, i32>) {
                $packed(p)
            }
        }
    };
}
int_pair!(u8, i8, int8::run_signed_b, packed_b::run_quads);
int_pair!(i8, i8, int8::run_signed_b, packed_b::run_quads);
int_pair!(u8, u8, int8::run_i8, packed_b::run_pairs);
int_pair!(i8, u8, int8::run_i8, packed_b::run_pairs);

/// Runs a checked strided product on the unpacked kernels of its instruction set if it is
/// small and its strides suit them (returns `false`, touching nothing, otherwise). With
/// [`Packing::Never`](super::Packing::Never) the size rule is skipped (the kernels apply whenever the strides suit).
#[inline]
fn unpacked<T: Element>(p: &mut Product<'_, T, T, T>) -> bool {
    let [m, k, n] = p.mkn;
    if m == 0 || n == 0 || k == 0 || !p.strided() {
        return false;
    }
    let (isa, threads, never) = (p.isa, p.threads, p.packing == Packing::Never);
    T::unpacked(isa, direct(p), threads, never)
}

/// The checked strided product `p` as the unpacked kernels take it.
#[inline(always)]
fn direct<'a, T: Element>(p: &'a mut Product<'_, T, T, T>) -> Direct<'a, T> {
    let [m, k, n] = p.mkn;
    Direct {
        m,
        k,
        n,
        alpha: p.alpha,
        a: p.a.data,
        sa: p.a.at,
        b: p.b.data,
        sb: p.b.at,
        beta: p.beta,
        c: &mut *p.c.c,
        sc: p.c.sc,
    }
}
