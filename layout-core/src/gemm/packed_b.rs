//! Pack once, multiply many times: B packed into the blocked kernel's micro-panels ahead of
//! time, for weights reused across calls.
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

use super::block::run_panels;
use super::check::check_operand;
use super::error::{GemmError, Operand, OperandShape};
use super::front::{Rhs, prepare};
use super::gemv::{self, PanelsRef};
use super::kernel::Element;
use super::options::{MatMut, MatRef, Options, Packing};
use super::pack::pack;
use super::view::View;
use crate::DynLayout;
use crate::isa::Isa;
use crate::tensor::Tensor;

/// B (k × n) packed for the kernels of one instruction set.
#[derive(Clone, Debug)]
pub struct PackedB<T> {
    isa: Isa,
    /// Columns of B per panel: the kernel's MR.
    nr: usize,
    kc: usize,
    k: usize,
    n: usize,
    /// First element of the packed data inside `store` (64-byte aligned).
    start: usize,
    store: Vec<T>,
}

impl<T: Element> PackedB<T> {
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
        let op = T::OP;
        let ki = match T::kernel(isa) {
            Some(ki) if isa.is_available() => ki,
            _ => return Err(GemmError::IsaUnavailable { op, isa }),
        };
        // a B of fewer than KC rows is one block of exactly k rows (no padding)
        let (k, n, nr) = (b.rows, b.cols, ki.mr);
        let kc = ki.kc.min(k).max(1);
        let shape = OperandShape {
            operand: Operand::B,
            rows: k,
            cols: n,
            row_stride: b.row_stride,
            col_stride: b.col_stride,
        };
        let sb = check_operand(op, shape, b.data.len())?;
        let pad = 64 / core::mem::size_of::<T>();
        let len = n
            .div_ceil(nr)
            .checked_mul(nr)
            .and_then(|x| x.checked_mul(k.div_ceil(kc).checked_mul(kc)?))
            .filter(|len| len.checked_add(pad).is_some())
            .ok_or(GemmError::Allocation {
                op,
                elements: usize::MAX,
            })?;
        let mut store = Vec::new();
        store
            .try_reserve_exact(len + pad)
            .map_err(|_| GemmError::Allocation { op, elements: len })?;
        store.resize(len + pad, T::ZERO);
        let start = store.as_ptr().align_offset(64).min(pad);
        if k > 0 && n > 0 {
            let src = View {
                data: b.data,
                at: sb,
                map: None,
            }
            .transposed()
            .rows();
            // blocks of KC rows, each a row of MR-column panels of KC groups (the last block's
            // panels keep that stride and are zero beyond row k)
            let block = n.div_ceil(nr) * nr * kc;
            for (bi, pc) in (0..k).step_by(kc).enumerate() {
                let kcb = kc.min(k - pc);
                for (pi, j) in (0..n).step_by(nr).enumerate() {
                    let at = start + bi * block + pi * nr * kc;
                    pack(
                        &mut store[at..at + nr * kcb],
                        src,
                        j,
                        pc,
                        nr.min(n - j),
                        kcb,
                        nr,
                    );
                }
            }
        }
        Ok(PackedB {
            isa,
            nr,
            kc,
            k,
            n,
            start,
            store,
        })
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

    /// The packed buffer as the matrix × vector kernels read it.
    pub(crate) fn panels(&self) -> PanelsRef<'_, T> {
        PanelsRef {
            data: self.as_slice(),
            nr: self.nr,
            kc: self.kc,
            k: self.k,
            n: self.n,
        }
    }
}

impl<T: Element> super::pack::Panels<T> for PackedB<T> {
    fn pack(&self, _: &mut [T], _: usize, _: usize, _: usize, _: usize, _: usize) {
        // the engine asks `prepacked` first and never packs a prepacked source
        debug_assert!(false, "a PackedB is never packed again");
    }
    fn prepacked(&self, v: usize, p0: usize, kc: usize) -> Option<&[T]> {
        Some(self.panels().panel(v, p0, kc))
    }
    fn is_prepacked(&self) -> bool {
        true
    }
}

/// `C ← α·A·B + β·C` with B packed ahead of time ([`PackedB`]): the blocked loop nest without
/// B's packing. `opts` must name the instruction set B was packed for; threads split C's rows.
///
/// # Errors
/// [`GemmError::PackedIsaMismatch`] when `opts` names another instruction set than the one B
/// was packed for; [`GemmError::ShapeMismatch`]; the operand errors of
/// [`gemm_with`](super::gemm_with) for A and C.
pub fn gemm_packed<T: Element>(
    opts: impl Into<Options>,
    alpha: T,
    a: MatRef<'_, T>,
    b: &PackedB<T>,
    beta: T,
    c: MatMut<'_, T>,
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
    let ki = T::kernel(opts.isa).filter(|ki| ki.mr == b.nr);
    let Some(p) = prepare(
        op,
        &opts,
        ki.is_some(),
        alpha,
        a,
        Rhs::<T>::Owned([b.k, b.n]),
        beta,
        c,
    )?
    else {
        return Ok(());
    };
    let Some(ki) = ki else {
        unreachable!("prepare checked the kernel")
    };
    // one row of A (the decode shape): the panels streamed once with vector multiply-adds
    if p.mkn[0] == 1 && opts.packing != Packing::Always {
        gemv::packed(
            opts.isa,
            alpha,
            (p.a.data, p.a.at),
            b.panels(),
            beta,
            (p.c.c, p.c.sc),
        );
        return Ok(());
    }
    run_panels::<T>(&ki, p.mkn, alpha, &p.a.rows(), b, beta, p.c, p.threads);
    Ok(())
}
