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
//! use layout_core::named::blocked::{nchw_blocked, NChwc};
//! use layout_core::DynTuple;
//! // nChw16c, N=2, C=17 (padded to 32), H=2, W=3
//! let l = nchw_blocked(2, 17, 2, 3, 16).unwrap();
//! assert_eq!(l.to_string(), "(2,(16,2),2,3):(192,(1,96),48,16)");
//! let at = |c: [i64; 4]| l.offset_of(&DynTuple::from_slice(&c).unwrap()).unwrap();
//! assert_eq!(at([0, 16, 0, 0]), 96);
//! assert_eq!(at([1, 0, 0, 0]), 192);
//! assert_eq!(at([0, 1, 1, 2]), 81);
//! assert_eq!(NChwc::<16, 2, 17, 2, 3>::LAYOUT, l);
//! ```

use super::{Element, ceil_div, mul, named_zst};
use crate::const_try::ctry;
use crate::{DynLayout, DynTuple, LayoutError};

const fn positive(what: &'static str, v: &[i64]) -> Result<(), LayoutError> {
    let mut i = 0;
    while i < v.len() {
        if v[i] <= 0 {
            return Err(LayoutError::Precondition {
                what,
                a: v[i],
                b: i as i64,
            });
        }
        i += 1;
    }
    Ok(())
}

/// A mode: a leaf, or `(inner, outer)` when `pair`.
const fn mode(pair: bool, a: i64, b: i64) -> Result<DynTuple, LayoutError> {
    if pair {
        DynTuple::from_slice(&[a, b])
    } else {
        Ok(DynTuple::leaf(a))
    }
}

/// oneDNN's `nChw{B}c`: channels blocked by `block`, the block innermost (see the module table).
///
/// # Errors
/// A non-positive extent or block (the message gives the value and its position among
/// `n, c, h, w, block`), or overflow.
pub const fn nchw_blocked(
    n: i64,
    c: i64,
    h: i64,
    w: i64,
    block: i64,
) -> Result<DynLayout, LayoutError> {
    ctry!(positive(
        "nChw<B>c layout: extents and block must be positive; value and position among (n, c, h, w, block) are",
        &[n, c, h, w, block]
    ));
    let c1 = ceil_div(c, block);
    let sh = ctry!(mul(w, block));
    let sc1 = ctry!(mul(h, sh));
    let sn = ctry!(mul(c1, sc1));
    let shape = ctry!(DynTuple::tuple(&[
        DynTuple::leaf(n),
        ctry!(mode(true, block, c1)),
        DynTuple::leaf(h),
        DynTuple::leaf(w),
    ]));
    let stride = ctry!(DynTuple::tuple(&[
        DynTuple::leaf(sn),
        ctry!(mode(true, 1, sc1)),
        DynTuple::leaf(sh),
        DynTuple::leaf(block),
    ]));
    DynLayout::new(&shape, &stride)
}

/// oneDNN's `nChw8c`.
///
/// # Errors
/// See [`nchw_blocked`].
pub fn nchw8c(n: i64, c: i64, h: i64, w: i64) -> Result<DynLayout, LayoutError> {
    nchw_blocked(n, c, h, w, 8)
}

/// oneDNN's `nChw16c`.
///
/// # Errors
/// See [`nchw_blocked`].
pub fn nchw16c(n: i64, c: i64, h: i64, w: i64) -> Result<DynLayout, LayoutError> {
    nchw_blocked(n, c, h, w, 16)
}

/// Ascend's NC1HWC0 for element type `T`: `nChw{C0}c` with `C0 = 32 bytes / size`.
///
/// ```
/// use layout_core::named::blocked::make_nc1hwc0_layout;
/// let l = make_nc1hwc0_layout::<half::f16>(1, 20, 2, 2).unwrap();
/// assert_eq!(l.to_string(), "(1,(16,2),2,2):(128,(1,64),32,16)");
/// ```
///
/// # Errors
/// See [`nchw_blocked`].
pub fn make_nc1hwc0_layout<T: Element>(
    n: i64,
    c: i64,
    h: i64,
    w: i64,
) -> Result<DynLayout, LayoutError> {
    nchw_blocked(n, c, h, w, T::C0)
}

/// oneDNN's `OIhw{Bi}i{Bo}o` weights: outer `O`, `I`, `h`, `w`, then an inner `Bi × Bo` block
/// with `o` fastest (see the module table). `OIhw16i16o` is `oihw_blocked(o, i, h, w, 16, 16)`.
///
/// ```
/// use layout_core::named::blocked::oihw_blocked;
/// use layout_core::DynTuple;
/// let l = oihw_blocked(32, 32, 1, 1, 16, 16).unwrap();
/// let at = |c: [i64; 4]| l.offset_of(&DynTuple::from_slice(&c).unwrap()).unwrap();
/// assert_eq!(at([1, 0, 0, 0]), 1);
/// assert_eq!(at([0, 1, 0, 0]), 16);
/// assert_eq!(at([16, 0, 0, 0]), 512);
/// assert_eq!(at([0, 16, 0, 0]), 256);
/// ```
///
/// # Errors
/// A non-positive extent or block, or overflow.
pub const fn oihw_blocked(
    o: i64,
    i: i64,
    h: i64,
    w: i64,
    bi: i64,
    bo: i64,
) -> Result<DynLayout, LayoutError> {
    ctry!(positive(
        "OIhw<Bi>i<Bo>o layout: extents and blocks must be positive; value and position among (o, i, h, w, bi, bo) are",
        &[o, i, h, w, bi, bo]
    ));
    let (o1, i1) = (ceil_div(o, bo), ceil_div(i, bi));
    let blk = ctry!(mul(bi, bo));
    let sh = ctry!(mul(w, blk));
    let si1 = ctry!(mul(h, sh));
    let so1 = ctry!(mul(i1, si1));
    let shape = ctry!(DynTuple::tuple(&[
        ctry!(mode(true, bo, o1)),
        ctry!(mode(true, bi, i1)),
        DynTuple::leaf(h),
        DynTuple::leaf(w),
    ]));
    let stride = ctry!(DynTuple::tuple(&[
        ctry!(mode(true, 1, so1)),
        ctry!(mode(true, bo, si1)),
        DynTuple::leaf(sh),
        DynTuple::leaf(blk),
    ]));
    DynLayout::new(&shape, &stride)
}

/// oneDNN's `OIhw16i16o`.
///
/// # Errors
/// See [`oihw_blocked`].
pub fn oihw16i16o(o: i64, i: i64, h: i64, w: i64) -> Result<DynLayout, LayoutError> {
    oihw_blocked(o, i, h, w, 16, 16)
}

/// CUTLASS 2.x `RowMajorInterleaved<I>` with leading dimension `ld` (packed: `cols·I`):
/// `((I,⌈rows/I⌉),cols) : ((1,ld),I)`, offset `(r/I)·ld + c·I + r%I`.
///
/// ```
/// use layout_core::named::blocked::row_major_interleaved;
/// let l = row_major_interleaved(2, 4, 3, 3 * 2).unwrap(); // I = 2, 4 x 3, ld = 6
/// assert_eq!(l.to_string(), "((2,2),3):((1,6),2)");
/// ```
///
/// # Errors
/// A non-positive extent or interleave, or overflow.
pub const fn row_major_interleaved(
    interleave: i64,
    rows: i64,
    cols: i64,
    ld: i64,
) -> Result<DynLayout, LayoutError> {
    ctry!(positive(
        "RowMajorInterleaved layout: extents and interleave must be positive; value and position among (interleave, rows, cols) are",
        &[interleave, rows, cols]
    ));
    let shape = ctry!(DynTuple::tuple(&[
        ctry!(mode(true, interleave, ceil_div(rows, interleave))),
        DynTuple::leaf(cols),
    ]));
    let stride = ctry!(DynTuple::tuple(&[
        ctry!(mode(true, 1, ld)),
        DynTuple::leaf(interleave),
    ]));
    DynLayout::new(&shape, &stride)
}

/// CUTLASS 2.x `ColumnMajorInterleaved<I>` with leading dimension `ld` (packed: `rows·I`):
/// `(rows,(I,⌈cols/I⌉)) : (I,(1,ld))`, offset `(c/I)·ld + r·I + c%I`.
///
/// # Errors
/// A non-positive extent or interleave, or overflow.
pub const fn column_major_interleaved(
    interleave: i64,
    rows: i64,
    cols: i64,
    ld: i64,
) -> Result<DynLayout, LayoutError> {
    ctry!(positive(
        "ColumnMajorInterleaved layout: extents and interleave must be positive; value and position among (interleave, rows, cols) are",
        &[interleave, rows, cols]
    ));
    let shape = ctry!(DynTuple::tuple(&[
        DynTuple::leaf(rows),
        ctry!(mode(true, interleave, ceil_div(cols, interleave))),
    ]));
    let stride = ctry!(DynTuple::tuple(&[
        DynTuple::leaf(interleave),
        ctry!(mode(true, 1, ld)),
    ]));
    DynLayout::new(&shape, &stride)
}

/// Packed `RowMajorInterleaved<I>`: `ld = cols·I`.
///
/// # Errors
/// See [`row_major_interleaved`].
pub const fn row_major_interleaved_packed(
    interleave: i64,
    rows: i64,
    cols: i64,
) -> Result<DynLayout, LayoutError> {
    row_major_interleaved(interleave, rows, cols, ctry!(mul(cols, interleave)))
}

/// Packed `ColumnMajorInterleaved<I>`: `ld = rows·I`.
///
/// # Errors
/// See [`column_major_interleaved`].
pub const fn column_major_interleaved_packed(
    interleave: i64,
    rows: i64,
    cols: i64,
) -> Result<DynLayout, LayoutError> {
    column_major_interleaved(interleave, rows, cols, ctry!(mul(rows, interleave)))
}

/// CUTLASS 2.x `RowMajorBlockLinear<BR, BC>` with leading dimension `ld` (the stride between
/// block rows; packed: `BR·BC·⌈cols/BC⌉`): `BR × BC` blocks stored row-major, blocks in row-major
/// order — the blocked layout `offset = (bi·nb + bj)·BR·BC + r·BC + c` of the seed's §5.4.
///
/// ```
/// use layout_core::named::blocked::row_major_block_linear;
/// let l = row_major_block_linear(2, 4, 4, 8, 2 * 4 * 2).unwrap();
/// assert_eq!(l.to_string(), "((2,2),(4,2)):((4,16),(1,8))");
/// ```
///
/// # Errors
/// A non-positive extent or block, or overflow.
pub const fn row_major_block_linear(
    br: i64,
    bc: i64,
    rows: i64,
    cols: i64,
    ld: i64,
) -> Result<DynLayout, LayoutError> {
    ctry!(positive(
        "RowMajorBlockLinear layout: extents and blocks must be positive; value and position among (br, bc, rows, cols) are",
        &[br, bc, rows, cols]
    ));
    let blk = ctry!(mul(br, bc));
    let shape = ctry!(DynTuple::tuple(&[
        ctry!(mode(true, br, ceil_div(rows, br))),
        ctry!(mode(true, bc, ceil_div(cols, bc))),
    ]));
    let stride = ctry!(DynTuple::tuple(&[
        ctry!(mode(true, bc, ld)),
        ctry!(mode(true, 1, blk)),
    ]));
    DynLayout::new(&shape, &stride)
}

/// CUTLASS 2.x `ColumnMajorBlockLinear<BR, BC>` with leading dimension `ld` (the stride between
/// block columns; packed: `BR·BC·⌈rows/BR⌉`): `BR × BC` blocks stored column-major, blocks in
/// column-major order.
///
/// # Errors
/// A non-positive extent or block, or overflow.
pub const fn column_major_block_linear(
    br: i64,
    bc: i64,
    rows: i64,
    cols: i64,
    ld: i64,
) -> Result<DynLayout, LayoutError> {
    ctry!(positive(
        "ColumnMajorBlockLinear layout: extents and blocks must be positive; value and position among (br, bc, rows, cols) are",
        &[br, bc, rows, cols]
    ));
    let blk = ctry!(mul(br, bc));
    let shape = ctry!(DynTuple::tuple(&[
        ctry!(mode(true, br, ceil_div(rows, br))),
        ctry!(mode(true, bc, ceil_div(cols, bc))),
    ]));
    let stride = ctry!(DynTuple::tuple(&[
        ctry!(mode(true, 1, blk)),
        ctry!(mode(true, br, ld)),
    ]));
    DynLayout::new(&shape, &stride)
}

named_zst! {
    /// Static `nChw{B}c` ([`nchw_blocked`]): `NChwc<8, N, C, H, W>` is `nChw8c`.
    NChwc [const B: i64, const N: i64, const C: i64, const H: i64, const W: i64]
        [B, N, C, H, W] () => nchw_blocked(N, C, H, W, B)
}
named_zst! {
    /// Static NC1HWC0 for element type `T` ([`make_nc1hwc0_layout`]).
    Nc1hwc0 [T: Element, const N: i64, const C: i64, const H: i64, const W: i64]
        [T, N, C, H, W] (T) => nchw_blocked(N, C, H, W, T::C0)
}
named_zst! {
    /// Static `OIhw{BI}i{BO}o` ([`oihw_blocked`]): `OIhwIo<16, 16, O, I, H, W>` is `OIhw16i16o`.
    OIhwIo [const BI: i64, const BO: i64, const O: i64, const I: i64, const H: i64, const W: i64]
        [BI, BO, O, I, H, W] () => oihw_blocked(O, I, H, W, BI, BO)
}
named_zst! {
    /// Static packed CUTLASS `RowMajorInterleaved<I>` of `R × C` ([`row_major_interleaved_packed`]).
    RowMajorInterleaved [const I: i64, const R: i64, const C: i64] [I, R, C] () =>
        row_major_interleaved_packed(I, R, C)
}
named_zst! {
    /// Static packed CUTLASS `ColumnMajorInterleaved<I>` of `R × C`
    /// ([`column_major_interleaved_packed`]).
    ColumnMajorInterleaved [const I: i64, const R: i64, const C: i64] [I, R, C] () =>
        column_major_interleaved_packed(I, R, C)
}
