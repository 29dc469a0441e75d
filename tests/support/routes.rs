//! The GEMM suites' one check of a product through every route: `gemm_tensors_with` on every
//! available instruction set, both packing rules and one or two threads, against the naive
//! product read through `t[[i, j]]`, with every element of C's buffer outside its layout
//! untouched and β = 0 never reading C (C's elements start as NaN there).
//!
//! Operands hold small integers, so every summation order gives the exact result and `==` is
//! the right comparison.

use core::fmt::{Debug, Display};
use core::iter::Sum;
use core::ops::{Add, Mul};

use layout::AnyLayout;
use layout::gemm::{self, Isa, Options, Packing};
use layout::tensor::{Tensor, TensorIndex};

use super::Seeded;

/// A floating-point element the route checks run on (`f32`, `f64`).
pub trait Float:
    Copy
    + PartialEq
    + Debug
    + Display
    + Add<Output = Self>
    + Mul<Output = Self>
    + Sum
    + Default
    + gemm::Pair<Self, Out = Self>
{
    /// Not a number: C's elements when β = 0.
    const NAN: Self;
    /// Zero.
    const ZERO: Self;
    /// The small integer `x`.
    fn int(x: i64) -> Self;
    /// The bits, to tell a written element from an untouched one (NaN included).
    fn bits(self) -> u64;
}

impl Float for f32 {
    const NAN: Self = f32::NAN;
    const ZERO: Self = 0.0;
    fn int(x: i64) -> Self {
        x as f32
    }
    fn bits(self) -> u64 {
        self.to_bits() as u64
    }
}

impl Float for f64 {
    const NAN: Self = f64::NAN;
    const ZERO: Self = 0.0;
    fn int(x: i64) -> Self {
        x as f64
    }
    fn bits(self) -> u64 {
        self.to_bits()
    }
}

/// One past the largest offset of `l`: the buffer length it needs.
pub fn span<L: AnyLayout>(l: &L) -> usize {
    let (_, hi) = l.offset_bounds().unwrap();
    hi as usize + 1
}

/// `len` elements drawn from −4 … 4.
pub fn ints<T: Float>(rng: &mut Seeded, len: usize) -> Vec<T> {
    (0..len).map(|_| T::int(rng.range(-4, 5))).collect()
}

/// `C ← α·A·B + β·C` with A, B and C of layouts `la`, `lb`, `lc` (fresh random buffers) through
/// every route (see the module's doc); the first mismatch, naming the layouts, scalars, route
/// and element.
pub fn check_every_route<T, LA, LB, LC>(
    rng: &mut Seeded,
    la: LA,
    lb: LB,
    lc: LC,
    alpha: T,
    beta: T,
) -> Result<(), String>
where
    T: Float,
    LA: AnyLayout,
    LB: AnyLayout,
    LC: AnyLayout,
    [i64; 2]: TensorIndex<LA> + TensorIndex<LB> + TensorIndex<LC>,
{
    let size = |d: layout::DynTuple, x: usize| d.mode(x).unwrap().size().unwrap();
    let (m, k, n) = (
        size(la.domain(), 0),
        size(la.domain(), 1),
        size(lb.domain(), 1),
    );
    let (a, b) = (ints::<T>(rng, span(&la)), ints::<T>(rng, span(&lb)));
    let c = ints::<T>(rng, span(&lc));
    let ta = Tensor::new(&a[..], la).unwrap();
    let tb = Tensor::new(&b[..], lb).unwrap();
    let c0 = Tensor::new(&c[..], lc).unwrap();
    let want: Vec<T> = (0..m * n)
        .map(|x| {
            let (i, j) = (x % m, x / m);
            let s: T = (0..k).map(|p| ta[[i, p]] * tb[[p, j]]).sum();
            if beta == T::ZERO {
                alpha * s
            } else {
                alpha * s + beta * c0[[i, j]]
            }
        })
        .collect();
    let mut inside = vec![false; c.len()];
    for x in 0..m * n {
        inside[lc.offset(x) as usize] = true;
    }
    for isa in Isa::available() {
        for packing in [Packing::Auto, Packing::Always] {
            for threads in [1, 2] {
                let mut c2 = c.clone();
                if beta == T::ZERO {
                    // β = 0 never reads C: a NaN there must not leak into the result
                    for x in 0..m * n {
                        c2[lc.offset(x) as usize] = T::NAN;
                    }
                }
                let mut tc = Tensor::new(&mut c2[..], lc).unwrap();
                let opts = Options {
                    isa,
                    threads,
                    packing,
                };
                gemm::gemm_tensors_with(opts, alpha, &ta, &tb, beta, &mut tc)
                    .map_err(|e| format!("{e:?}"))?;
                let at = || {
                    format!(
                        "{} {la} × {lb} → {lc}, α={alpha} β={beta} ({isa:?}, {packing:?}, \
                         {threads} threads)",
                        core::any::type_name::<T>()
                    )
                };
                for x in 0..m * n {
                    let (i, j) = (x % m, x / m);
                    let (got, w) = (tc[[i, j]], want[x as usize]);
                    if got != w {
                        return Err(format!("{}: C({i},{j}) = {got}, want {w}", at()));
                    }
                }
                for (x, (&got, &was)) in c2.iter().zip(&c).enumerate() {
                    if !inside[x] && got.bits() != was.bits() {
                        return Err(format!("{}: offset {x} outside C written", at()));
                    }
                }
            }
        }
    }
    Ok(())
}
