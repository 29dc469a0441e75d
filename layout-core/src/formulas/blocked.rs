//! oneDNN's blocked formats and CUTLASS 2.x's interleaved and block-linear matrices: the
//! formulas. See [`named::blocked`](crate::named::blocked) for the table of formulas and examples.

use super::{ceil_div, mul};
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
        "nChw<B>c layout: extents and block must be positive, but entry {b} of (n, c, h, w, block) (counted from 0) is {a}",
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

/// oneDNN's `OIhw{Bi}i{Bo}o` weights: outer `O`, `I`, `h`, `w`, then an inner `Bi × Bo` block
/// with `o` fastest (see the module table). `OIhw16i16o` is `oihw_blocked(o, i, h, w, 16, 16)`.
///
/// ```
/// use layout::named::blocked::oihw_blocked;
/// use layout::DynTuple;
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
        "OIhw<Bi>i<Bo>o layout: extents and blocks must be positive, but entry {b} of (o, i, h, w, bi, bo) (counted from 0) is {a}",
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
/// use layout::named::blocked::row_major_interleaved;
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
        "RowMajorInterleaved layout: extents and interleave must be positive, but entry {b} of (interleave, rows, cols) (counted from 0) is {a}",
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
        "ColumnMajorInterleaved layout: extents and interleave must be positive, but entry {b} of (interleave, rows, cols) (counted from 0) is {a}",
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
/// use layout::named::blocked::row_major_block_linear;
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
        "RowMajorBlockLinear layout: extents and blocks must be positive, but entry {b} of (br, bc, rows, cols) (counted from 0) is {a}",
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
        "ColumnMajorBlockLinear layout: extents and blocks must be positive, but entry {b} of (br, bc, rows, cols) (counted from 0) is {a}",
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
