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

use super::block;
use super::check::{check_no_overlap, check_operand};
use super::error::{GemmError, Operand, OperandShape};
use super::kernel::Element;
use super::pack::{Source, pack};
use super::{Isa, MatMut, MatRef, Options};
use crate::DynLayout;
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
    /// use layout_core::gemm::{Isa, MatMut, MatRef, PackedB, gemm_packed};
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
            let src = Source {
                src: b.data,
                origin: sb.origin,
                sv: sb.cs,
                sk: sb.rs,
                map: None,
            };
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

    /// Columns per panel (the kernel's MR) and rows per k block (KC).
    pub(crate) fn blocking(&self) -> (usize, usize) {
        (self.nr, self.kc)
    }

    /// The `kc × MR` piece of the micro-panel holding column `j` (a multiple of MR), from row
    /// `pc`: what the blocked loop hands the kernel.
    pub(crate) fn panel(&self, j: usize, pc: usize, kc: usize) -> &[T] {
        let block = self.n.div_ceil(self.nr) * self.nr * self.kc;
        let at =
            (pc / self.kc) * block + (j / self.nr) * self.nr * self.kc + (pc % self.kc) * self.nr;
        &self.as_slice()[at..at + kc * self.nr]
    }
}

impl<T: Element> super::pack::Panels<T> for PackedB<T> {
    fn pack(&self, _: &mut [T], _: usize, _: usize, _: usize, _: usize, _: usize) {
        // the engine asks `prepacked` first and never packs a prepacked source
        debug_assert!(false, "a PackedB is never packed again");
    }
    fn prepacked(&self, v: usize, p0: usize, kc: usize) -> Option<&[T]> {
        Some(self.panel(v, p0, kc))
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
    let op = T::OP;
    let Options { isa, threads, .. } = opts.into();
    if isa != b.isa {
        return Err(GemmError::PackedIsaMismatch {
            op,
            packed: b.isa,
            asked: isa,
        });
    }
    if a.rows != c.rows || a.cols != b.k || b.n != c.cols {
        return Err(GemmError::ShapeMismatch {
            op,
            a: [a.rows, a.cols],
            b: [b.k, b.n],
            c: [c.rows, c.cols],
        });
    }
    let ki = match T::kernel(isa) {
        Some(ki) if isa.is_available() && ki.mr == b.nr => ki,
        _ => return Err(GemmError::IsaUnavailable { op, isa }),
    };
    let (m, k, n) = (a.rows, a.cols, b.n);
    let sh = |operand, rows, cols, row_stride, col_stride| OperandShape {
        operand,
        rows,
        cols,
        row_stride,
        col_stride,
    };
    let sa = check_operand(
        op,
        sh(Operand::A, m, k, a.row_stride, a.col_stride),
        a.data.len(),
    )?;
    let shc = sh(Operand::C, m, n, c.row_stride, c.col_stride);
    let sc = check_operand(op, shc, c.data.len())?;
    check_no_overlap(op, shc)?;
    // BLAS's rule (module docs): an empty C is done; α = 0 or k = 0 is C ← β·C
    if m == 0 || n == 0 {
        return Ok(());
    }
    if k == 0 || alpha == T::ZERO {
        block::scale(m, n, beta, c.data, sc, None);
        return Ok(());
    }
    // one row of A (the decode shape): the panels streamed once with vector multiply-adds
    if m == 1 {
        super::gemv::packed(isa, alpha, (a.data, sa), b, beta, (c.data, sc));
        return Ok(());
    }
    let sb = super::check::Strided {
        origin: 0,
        rs: 0,
        cs: 0,
    };
    block::run(
        &ki,
        block::Problem {
            m,
            k,
            n,
            alpha,
            a: a.data,
            sa,
            b: &[],
            sb,
            beta,
            c: c.data,
            sc,
            bpacked: Some(b),
            maps: [None; 3],
        },
        threads,
    );
    Ok(())
}
