//! Blocked and interleaved layouts: oneDNN's blocked formats, Ascend's NC1HWC0 and CUTLASS 2.x's
//! interleaved matrices, each a hierarchical layout whose blocked axis is a two-leaf mode
//! `(block, ⌈extent/block⌉)`.
//!
//! | format | axes | layout | offset |
//! |---|---|---|---|
//! | `nChw{B}c` (oneDNN; `nChw8c`, `nChw16c`) | `(n,c,h,w)` | `(N,(B,C1),H,W) : (C1·H·W·B,(1,H·W·B),W·B,B)` | `n·C1·HWB + (c/B)·HWB + h·WB + w·B + c%B` |
//! | NC1HWC0 (Ascend, C0 = 32 bytes / size) | `(n,c,h,w)` | `nChw{C0}c` | as above |
//! | `OIhw{Bi}i{Bo}o` (oneDNN; `OIhw16i16o`) | `(o,i,h,w)` | `((Bo,O1),(Bi,I1),H,W) : ((1,I1·H·W·Bi·Bo),(Bo,H·W·Bi·Bo),W·Bi·Bo,Bi·Bo)` | `(((o/Bo)·I1 + i/Bi)·H + h)·W + w)·Bi·Bo + (i%Bi)·Bo + o%Bo` |
//! | `RowMajorInterleaved<I>` (CUTLASS) | `(r,c)` | `((I,R1),C) : ((1,C·I),I)` | `(r/I)·ld + c·I + r%I`, `ld = C·I` |
//! | `ColumnMajorInterleaved<I>` (CUTLASS) | `(r,c)` | `(R,(I,C1)) : (I,(1,R·I))` | `(c/I)·ld + r·I + c%I`, `ld = R·I` |
//! | `RowMajorBlockLinear<BR,BC>` (CUTLASS; blocks row-major inside and out) | `(r,c)` | `((BR,R1),(BC,C1)) : ((BC,ld),(1,BR·BC))` | `c%BC + (r%BR)·BC + (c/BC)·BR·BC + (r/BR)·ld`, `ld = BR·BC·C1` |
//! | `ColumnMajorBlockLinear<BR,BC>` (CUTLASS) | `(r,c)` | `((BR,R1),(BC,C1)) : ((1,BR·BC),(BR,ld))` | `r%BR + (c%BC)·BR + (r/BR)·BR·BC + (c/BC)·ld`, `ld = BR·BC·R1` |
//!
//! with `C1 = ⌈C/B⌉` etc. Extents that are not whole blocks are padded (oneDNN zero-pads the
//! channel tail, `padded_dims`): the layout's domain is the padded tensor; wrap it in
//! [`Padded`](super::Padded) with the real extents to copy NCHW data in and out. CUTLASS's
//! `TensorNCxHWx<I>` is `nChw{I}c` and `TensorCxRSKx<I>` the same with `(k,c,r,s)` axes.
//!
//! ```
//! use layout::named::blocked::{nchw_blocked, NChwc};
//! use layout::DynTuple;
//! // nChw16c, N=2, C=17 (padded to 32), H=2, W=3
//! let l = nchw_blocked(2, 17, 2, 3, 16).unwrap();
//! assert_eq!(l.to_string(), "(2,(16,2),2,3):(192,(1,96),48,16)");
//! let at = |c: [i64; 4]| l.offset_of(&DynTuple::from_slice(&c).unwrap()).unwrap();
//! assert_eq!(at([0, 16, 0, 0]), 96);
//! assert_eq!(at([1, 0, 0, 0]), 192);
//! assert_eq!(at([0, 1, 1, 2]), 81);
//! assert_eq!(NChwc::<16, 2, 17, 2, 3>::LAYOUT, l);
//! ```

use super::{C0Element, named_zst, table};
use crate::algebra::ops::Op;
use crate::{DynLayout, LayoutError};

pub use crate::formulas::blocked::{
    column_major_block_linear, column_major_interleaved, column_major_interleaved_packed,
    nchw_blocked, nchw8c, nchw16c, oihw_blocked, oihw16i16o, row_major_block_linear,
    row_major_interleaved, row_major_interleaved_packed,
};

/// Ascend's NC1HWC0 for element type `T`: `nChw{C0}c` with `C0 = 32 bytes / size`.
///
/// ```
/// use layout::named::blocked::make_nc1hwc0_layout;
/// let l = make_nc1hwc0_layout::<half::f16>(1, 20, 2, 2).unwrap();
/// assert_eq!(l.to_string(), "(1,(16,2),2,2):(128,(1,64),32,16)");
/// ```
///
/// # Errors
/// See [`nchw_blocked`].
pub fn make_nc1hwc0_layout<T: C0Element>(
    n: usize,
    c: usize,
    h: usize,
    w: usize,
) -> Result<DynLayout, LayoutError> {
    use crate::tensor::extents::extent_i64 as e;
    nchw_blocked(e(n, "n")?, e(c, "c")?, e(h, "h")?, e(w, "w")?, T::C0)
}

named_zst! {
    /// Static `nChw{B}c` ([`nchw_blocked`]): `NChwc<8, N, C, H, W>` is `nChw8c`.
    NChwc [const B: i64, const N: i64, const C: i64, const H: i64, const W: i64]
        [B, N, C, H, W] () => table(Op::NchwBlocked, &[N, C, H, W, B])
}
named_zst! {
    /// Static NC1HWC0 for element type `T` ([`make_nc1hwc0_layout`]).
    Nc1hwc0 [T: C0Element, const N: i64, const C: i64, const H: i64, const W: i64]
        [T, N, C, H, W] (T) => table(Op::NchwBlocked, &[N, C, H, W, T::C0])
}
named_zst! {
    /// Static `OIhw{BI}i{BO}o` ([`oihw_blocked`]): `OIhwIo<16, 16, O, I, H, W>` is `OIhw16i16o`.
    OIhwIo [const BI: i64, const BO: i64, const O: i64, const I: i64, const H: i64, const W: i64]
        [BI, BO, O, I, H, W] () => table(Op::OihwBlocked, &[O, I, H, W, BI, BO])
}
named_zst! {
    /// Static packed CUTLASS `RowMajorInterleaved<I>` of `R × C` ([`row_major_interleaved_packed`]).
    RowMajorInterleaved [const I: i64, const R: i64, const C: i64] [I, R, C] () =>
        table(Op::RowMajorInterleaved, &[I, R, C])
}
named_zst! {
    /// Static packed CUTLASS `ColumnMajorInterleaved<I>` of `R × C`
    /// ([`column_major_interleaved_packed`]).
    ColumnMajorInterleaved [const I: i64, const R: i64, const C: i64] [I, R, C] () =>
        table(Op::ColumnMajorInterleaved, &[I, R, C])
}
named_zst! {
    /// Static CUTLASS `RowMajorInterleaved<I>` of `R × C` with leading dimension `LD`
    /// ([`row_major_interleaved`]).
    RowMajorInterleavedLd [const I: i64, const R: i64, const C: i64, const LD: i64] [I, R, C, LD] () =>
        table(Op::RowMajorInterleavedLd, &[I, R, C, LD])
}
named_zst! {
    /// Static CUTLASS `ColumnMajorInterleaved<I>` of `R × C` with leading dimension `LD`
    /// ([`column_major_interleaved`]).
    ColumnMajorInterleavedLd [const I: i64, const R: i64, const C: i64, const LD: i64] [I, R, C, LD] () =>
        table(Op::ColumnMajorInterleavedLd, &[I, R, C, LD])
}
