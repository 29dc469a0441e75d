//! Ascend C's fractal formats (NZ, ZN, ZZ, NN, the two-level row/column-major forms, batching):
//! the formulas and their alignment rule. See [`named::ascend`](crate::named::ascend) for the
//! table of formulas and examples.

use super::{ceil_div, mul};
use crate::const_try::ctry;
use crate::{DynLayout, DynTuple, LayoutError};

/// Rows of an Ascend fractal (M0).
pub const FRACTAL_ROWS: i64 = 16;
/// Bytes of one fractal row (C0 elements).
pub const C0_BYTES: i64 = 32;

/// The element types whose C0 the front ends know by name (`NZ<f16>(m, n)`), with their
/// width in bits: C0 = 256 / bits. The named layer's `C0Element` impls agree (tested).
pub const ELEMENT_TYPES: [(&str, i64); 10] = [
    ("f32", 32),
    ("i32", 32),
    ("u32", 32),
    ("f16", 16),
    ("bf16", 16),
    ("i16", 16),
    ("u16", 16),
    ("i8", 8),
    ("u8", 8),
    ("U4", 4),
];

/// C0 (elements in a 32-byte fractal row) of an element type named in [`ELEMENT_TYPES`].
///
/// ```
/// use layout::named::ascend::c0_of;
/// assert_eq!(c0_of("f16"), Some(16));
/// assert_eq!(c0_of("U4"), Some(64));
/// assert_eq!(c0_of("f64"), None); // Ascend has no 64-bit fractal element
/// ```
pub fn c0_of(name: &str) -> Option<i64> {
    ELEMENT_TYPES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, bits)| C0_BYTES * 8 / bits)
}

const fn extents_ok(what: &'static str, m: i64, n: i64) -> Result<(), LayoutError> {
    if m <= 0 || n <= 0 {
        return Err(LayoutError::Precondition { what, a: m, b: n });
    }
    Ok(())
}

const fn c0_ok(c0: i64) -> Result<(), LayoutError> {
    if c0 <= 0 {
        return Err(LayoutError::Precondition {
            what: "fractal layout: C0 (elements per 32-byte fractal row) must be positive, but it is {a}",
            a: c0,
            b: 0,
        });
    }
    Ok(())
}

/// `((s00,s01),(s10,s11)):((d00,d01),(d10,d11))`.
const fn two_level(s: [i64; 4], d: [i64; 4]) -> Result<DynLayout, LayoutError> {
    let rows = ctry!(DynTuple::from_slice(&[s[0], s[1]]));
    let cols = ctry!(DynTuple::from_slice(&[s[2], s[3]]));
    let rs = ctry!(DynTuple::from_slice(&[d[0], d[1]]));
    let cs = ctry!(DynTuple::from_slice(&[d[2], d[3]]));
    DynLayout::new(
        &ctry!(DynTuple::tuple(&[rows, cols])),
        &ctry!(DynTuple::tuple(&[rs, cs])),
    )
}

const fn multiple(what: &'static str, stride: i64, unit: i64) -> Result<(), LayoutError> {
    if stride % unit != 0 {
        return Err(LayoutError::Precondition {
            what,
            a: stride,
            b: unit,
        });
    }
    Ok(())
}

/// The fractals of a strided NZ / ZN / ZZ layout form a grid that does not overlap: both
/// outer strides positive and, over the outer modes `(extent, stride)` with more than one
/// fractal ordered by stride (`s₁ ≤ s₂`), `s₁ ≥ fractal` and `s₂ ≥ e₁·s₁`. Each fractal is a
/// contiguous block of `fractal` elements, so this is the rule "fractal rows (or columns) of
/// whole fractals, one after another": every layout Ascend's formats describe (the compact
/// ones, padded leading dimensions) passes, a zero, negative or overlapping stride is refused.
/// It is sufficient, not necessary: interleaved grids whose fractals happen not to collide
/// (strides 3·F and 2·F over 2 × 2 fractals) are refused too.
const fn fractal_grid(
    positive: &'static str,
    overlap: &'static str,
    (e_row, row1): (i64, i64),
    (e_col, col1): (i64, i64),
    fractal: i64,
) -> Result<(), LayoutError> {
    if row1 <= 0 || col1 <= 0 {
        return Err(LayoutError::Precondition {
            what: positive,
            a: row1,
            b: col1,
        });
    }
    let err = LayoutError::Precondition {
        what: overlap,
        a: row1,
        b: col1,
    };
    let ok = match (e_row > 1, e_col > 1) {
        (false, false) => true,
        (true, false) => row1 >= fractal,
        (false, true) => col1 >= fractal,
        (true, true) => {
            let ((e1, s1), s2) = if row1 <= col1 {
                ((e_row, row1), col1)
            } else {
                ((e_col, col1), row1)
            };
            s1 >= fractal
                && match e1.checked_mul(s1) {
                    Some(run) => s2 >= run,
                    None => false,
                }
        }
    };
    if ok { Ok(()) } else { Err(err) }
}

/// The three fractal layouts with explicit outer strides.
#[derive(Clone, Copy)]
enum Fractal {
    Nz,
    Zn,
    Zz,
}

/// NZ, ZN or ZZ with explicit outer strides, after the checks all three make: positive C0 and
/// extents, the alignment rule — the outer stride between fractal columns (NZ) or fractal
/// rows (ZN, ZZ) a multiple of the fractal `16·C0`, the other outer stride a multiple of C0 —
/// and fractals that do not overlap ([`fractal_grid`]).
const fn strided(
    kind: Fractal,
    c0: i64,
    m: i64,
    n: i64,
    row1: i64,
    col1: i64,
) -> Result<DynLayout, LayoutError> {
    let (extents, whole, part) = match kind {
        Fractal::Nz => (
            "NZ layout: the row and column extents must be positive, but they are {a} and {b}",
            "NZ layout alignment: the stride between fractal columns (StrideColumn1) must be a multiple of the fractal size 16·C0 = {b}, but it is {a}",
            "NZ layout alignment: the stride between fractals of a column (StrideRow1) must be a multiple of C0 = {b} (32 bytes), but it is {a}",
        ),
        Fractal::Zn => (
            "ZN layout: the row and column extents must be positive, but they are {a} and {b}",
            "ZN layout alignment: the stride between fractal rows (StrideRow1) must be a multiple of the fractal size 16·C0 = {b}, but it is {a}",
            "ZN layout alignment: the stride between fractals of a row (StrideColumn1) must be a multiple of C0 = {b} (32 bytes), but it is {a}",
        ),
        Fractal::Zz => (
            "ZZ layout: the row and column extents must be positive, but they are {a} and {b}",
            "ZZ layout alignment: the stride between fractal rows (StrideRow1) must be a multiple of the fractal size 16·C0 = {b}, but it is {a}",
            "ZZ layout alignment: the stride between fractals of a row (StrideColumn1) must be a multiple of C0 = {b} (32 bytes), but it is {a}",
        ),
    };
    ctry!(c0_ok(c0));
    ctry!(extents_ok(extents, m, n));
    let fractal = ctry!(mul(FRACTAL_ROWS, c0));
    // NZ steps between fractal columns with col1; ZN and ZZ between fractal rows with row1
    let (to_whole, to_part) = match kind {
        Fractal::Nz => (col1, row1),
        Fractal::Zn | Fractal::Zz => (row1, col1),
    };
    ctry!(multiple(whole, to_whole, fractal));
    ctry!(multiple(part, to_part, c0));
    let (positive, overlap, e_row, e_col) = match kind {
        Fractal::Nz => (
            "NZ layout: the outer strides must be positive; StrideRow1 and StrideColumn1 are {a} and {b}",
            "NZ layout: the fractals overlap with StrideRow1 {a} and StrideColumn1 {b}; the smaller outer stride (along more than one fractal) must be at least the fractal size 16*C0 and the larger at least the smaller times its number of fractals",
            ceil_div(m, FRACTAL_ROWS),
            ceil_div(n, c0),
        ),
        Fractal::Zn => (
            "ZN layout: the outer strides must be positive; StrideRow1 and StrideColumn1 are {a} and {b}",
            "ZN layout: the fractals overlap with StrideRow1 {a} and StrideColumn1 {b}; the smaller outer stride (along more than one fractal) must be at least the fractal size 16*C0 and the larger at least the smaller times its number of fractals",
            ceil_div(m, c0),
            ceil_div(n, FRACTAL_ROWS),
        ),
        Fractal::Zz => (
            "ZZ layout: the outer strides must be positive; StrideRow1 and StrideColumn1 are {a} and {b}",
            "ZZ layout: the fractals overlap with StrideRow1 {a} and StrideColumn1 {b}; the smaller outer stride (along more than one fractal) must be at least the fractal size 16*C0 and the larger at least the smaller times its number of fractals",
            ceil_div(m, FRACTAL_ROWS),
            ceil_div(n, c0),
        ),
    };
    ctry!(fractal_grid(
        positive,
        overlap,
        (e_row, row1),
        (e_col, col1),
        fractal
    ));
    match kind {
        Fractal::Nz | Fractal::Zz => two_level(
            [FRACTAL_ROWS, ceil_div(m, FRACTAL_ROWS), c0, ceil_div(n, c0)],
            [c0, row1, 1, col1],
        ),
        Fractal::Zn => two_level(
            [c0, ceil_div(m, c0), FRACTAL_ROWS, ceil_div(n, FRACTAL_ROWS)],
            [1, row1, c0, col1],
        ),
    }
}

/// NZ with explicit outer strides: `((16,⌈m/16⌉),(C0,⌈n/C0⌉)) : ((C0,row1),(1,col1))`.
///
/// # Errors
/// Non-positive `c0`, `m` or `n`; `col1` (StrideColumn1) not a multiple of the fractal size
/// `16·C0`; `row1` (StrideRow1) not a multiple of `C0`; a non-positive outer stride, or
/// fractals that overlap (the smaller outer stride along more than one fractal below `16·C0`,
/// or the larger below the smaller's whole run); an invalid layout (overflow).
pub const fn nz_layout_strided(
    c0: i64,
    m: i64,
    n: i64,
    row1: i64,
    col1: i64,
) -> Result<DynLayout, LayoutError> {
    strided(Fractal::Nz, c0, m, n, row1, col1)
}

/// Compact NZ for C0 `c0`, padded to whole fractals:
/// `((16,m1),(C0,n1)) : ((C0,16·C0),(1,C0·align16(m)))`.
///
/// # Errors
/// Non-positive `c0`, `m` or `n`, or overflow.
pub const fn nz_layout(c0: i64, m: i64, n: i64) -> Result<DynLayout, LayoutError> {
    ctry!(c0_ok(c0));
    ctry!(extents_ok(
        "NZ layout: the row and column extents must be positive, but they are {a} and {b}",
        m,
        n
    ));
    let fractal = ctry!(mul(FRACTAL_ROWS, c0));
    let col1 = ctry!(mul(fractal, ceil_div(m, FRACTAL_ROWS)));
    nz_layout_strided(c0, m, n, fractal, col1)
}

/// ZN with explicit outer strides: `((C0,⌈m/C0⌉),(16,⌈n/16⌉)) : ((1,row1),(C0,col1))`.
///
/// # Errors
/// Non-positive `c0`, `m` or `n`; `row1` (StrideRow1) not a multiple of `16·C0`; `col1`
/// (StrideColumn1) not a multiple of `C0`; a non-positive outer stride or overlapping fractals
/// (as [`nz_layout_strided`]); overflow.
pub const fn zn_layout_strided(
    c0: i64,
    m: i64,
    n: i64,
    row1: i64,
    col1: i64,
) -> Result<DynLayout, LayoutError> {
    strided(Fractal::Zn, c0, m, n, row1, col1)
}

/// Compact ZN: `((C0,⌈m/C0⌉),(16,⌈n/16⌉)) : ((1,C0·align16(n)),(C0,16·C0))`.
///
/// # Errors
/// Non-positive `c0`, `m` or `n`, or overflow.
pub const fn zn_layout(c0: i64, m: i64, n: i64) -> Result<DynLayout, LayoutError> {
    ctry!(c0_ok(c0));
    ctry!(extents_ok(
        "ZN layout: the row and column extents must be positive, but they are {a} and {b}",
        m,
        n
    ));
    let fractal = ctry!(mul(FRACTAL_ROWS, c0));
    let row1 = ctry!(mul(fractal, ceil_div(n, FRACTAL_ROWS)));
    zn_layout_strided(c0, m, n, row1, fractal)
}

/// ZZ with explicit outer strides: `((16,⌈m/16⌉),(C0,⌈n/C0⌉)) : ((C0,row1),(1,col1))`.
///
/// # Errors
/// Non-positive `c0`, `m` or `n`; `row1` not a multiple of `16·C0`; `col1` not a multiple of
/// `C0`; a non-positive outer stride or overlapping fractals (as [`nz_layout_strided`]);
/// overflow.
pub const fn zz_layout_strided(
    c0: i64,
    m: i64,
    n: i64,
    row1: i64,
    col1: i64,
) -> Result<DynLayout, LayoutError> {
    strided(Fractal::Zz, c0, m, n, row1, col1)
}

/// Compact ZZ: `((16,m1),(C0,n1)) : ((C0,16·C0·n1),(1,16·C0))`.
///
/// # Errors
/// Non-positive `c0`, `m` or `n`, or overflow.
pub const fn zz_layout(c0: i64, m: i64, n: i64) -> Result<DynLayout, LayoutError> {
    ctry!(c0_ok(c0));
    ctry!(extents_ok(
        "ZZ layout: the row and column extents must be positive, but they are {a} and {b}",
        m,
        n
    ));
    let fractal = ctry!(mul(FRACTAL_ROWS, c0));
    let row1 = ctry!(mul(fractal, ceil_div(n, c0)));
    zz_layout_strided(c0, m, n, row1, fractal)
}

/// NN, the MX `scaleB` layout (fp8_e8m0 scales, 2 × 16 column-major fractals of 32 elements,
/// fractals down a column first): `((2,⌈m/2⌉),(16,⌈n/16⌉)) : ((1,32),(2,16·align2(m)))`.
///
/// # Errors
/// Non-positive `m` or `n`, or overflow.
pub const fn nn_layout(m: i64, n: i64) -> Result<DynLayout, LayoutError> {
    ctry!(extents_ok(
        "NN layout: the row and column extents must be positive, but they are {a} and {b}",
        m,
        n
    ));
    let m1 = ceil_div(m, 2);
    let col1 = ctry!(mul(32, m1));
    two_level([2, m1, 16, ceil_div(n, 16)], [1, 32, 2, col1])
}

/// Ascend's two-level row-major form (`NDExt`, the old `RowMajor`):
/// `((1,m),(1,n)) : ((0,ld),(0,1))`, compact when `ld = n`.
///
/// # Errors
/// Non-positive `m` or `n`, or overflow.
pub const fn nd_ext_layout(m: i64, n: i64, ld: i64) -> Result<DynLayout, LayoutError> {
    ctry!(extents_ok(
        "ND layout: the row and column extents must be positive, but they are {a} and {b}",
        m,
        n
    ));
    two_level([1, m, 1, n], [0, ld, 0, 1])
}

/// Ascend's two-level column-major form (`DNExt`, the old `ColumnMajor`):
/// `((1,m),(1,n)) : ((0,1),(0,ld))`, compact when `ld = m`.
///
/// # Errors
/// Non-positive `m` or `n`, or overflow.
pub const fn dn_ext_layout(m: i64, n: i64, ld: i64) -> Result<DynLayout, LayoutError> {
    ctry!(extents_ok(
        "DN layout: the row and column extents must be positive, but they are {a} and {b}",
        m,
        n
    ));
    two_level([1, m, 1, n], [0, 1, 0, ld])
}

/// Ascend's `Capacity`: `max (extent · |stride|)` over the leaves — the memory a layout
/// occupies including holes, which Ascend uses as the batch stride.
pub const fn capacity(l: &DynLayout) -> i64 {
    let (s, d) = (l.shape_leaves(), l.stride_leaves());
    let mut c = 0;
    let mut i = 0;
    while i < s.len() {
        // validated layouts: extent·|stride| ≤ cosize + |stride| fits (saturate anyway)
        let v = s[i].saturating_mul(d[i].saturating_abs());
        if v > c {
            c = v;
        }
        i += 1;
    }
    c
}

/// A batch of `batch` matrices of layout `l`, `batch` as a new first mode whose stride is
/// [`capacity`] (Ascend's `MakeFrameLayout(batch, m, n)`): `(batch, rows, cols)`.
///
/// # Errors
/// Non-positive `batch`, or overflow.
pub const fn batched(l: &DynLayout, batch: i64) -> Result<DynLayout, LayoutError> {
    if batch <= 0 {
        return Err(LayoutError::Precondition {
            what: "batched layout: the batch extent must be positive, but it is {a}",
            a: batch,
            b: 0,
        });
    }
    l.prepend(&ctry!(DynLayout::leaf(batch, capacity(l))))
}
