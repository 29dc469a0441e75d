//! Ascend C fractal layouts: NZ, ZN, ZZ, NN, the two-level row/column-major forms and L0C.
//!
//! A fractal is a `16 × C0` tile of 512 bytes with `C0 = 32 bytes / element size` ([`C0Element`]):
//! f32 16×8, f16/bf16 16×16, i8/u8 16×32, 4-bit ([`U4`]) 16×64. The layouts are Ascend C's
//! hierarchical `((ShapeRow0, ShapeRow1), (ShapeColumn0, ShapeColumn1)) : ((StrideRow0,
//! StrideRow1), (StrideColumn0, StrideColumn1))`, index 0 the inside of a fractal, index 1 the
//! matrix of fractals. With `m1 = ⌈m/16⌉`, `n1 = ⌈n/C0⌉`, `align16(m) = 16·m1`:
//!
//! | layout | shape | stride | offset of `(r, c)` |
//! |---|---|---|---|
//! | NZ | `((16,m1),(C0,n1))` | `((C0,16·C0),(1,C0·align16(m)))` | `(r%16)·C0 + (r/16)·16·C0 + c%C0 + (c/C0)·C0·align16(m)` |
//! | ZN | `((C0,⌈m/C0⌉),(16,⌈n/16⌉))` | `((1,C0·align16(n)),(C0,16·C0))` | `r%C0 + (r/C0)·C0·align16(n) + (c%16)·C0 + (c/16)·16·C0` |
//! | ZZ | `((16,m1),(C0,n1))` | `((C0,16·C0·n1),(1,16·C0))` | `(r%16)·C0 + (r/16)·16·C0·n1 + c%C0 + (c/C0)·16·C0` |
//! | NN | `((2,⌈m/2⌉),(16,⌈n/16⌉))` | `((1,32),(2,16·align2(m)))` | `r%2 + (r/2)·32 + (c%16)·2 + (c/16)·16·align2(m)` |
//! | NDExt (row-major) | `((1,m),(1,n))` | `((0,ld),(0,1))` | `r·ld + c` |
//! | DNExt (column-major) | `((1,m),(1,n))` | `((0,1),(0,ld))` | `r + c·ld` |
//! | L0C | NZ with C0 = 16, whatever the accumulator type | | |
//!
//! NZ: rows of a fractal are contiguous (`z` inside), fractals go down a column first (`N`
//! outside) — Ascend's `(…,M,N) → pad → (…,M1,M0,N1,N0) → transpose → (…,N1,M1,M0,N0)`. ZN
//! stores each fractal column-major and orders fractals along rows; ZZ is z inside and Z
//! outside; NN is the MX `scaleB` layout (fp8_e8m0, 2 × 16 fractals).
//!
//! **Padding.** Extents that are not whole fractals are rounded up, as Ascend's `ceil_div`: the
//! layout's domain is the padded matrix (`make_nz_layout::<f16>(20, 28)` covers 32 × 32). Keep
//! the logical extents beside it with [`Padded`](super::Padded), which knows the padding and
//! copies ND data in and out.
//!
//! **Alignment rule** (Ascend C, HEAD docs, plus the older 32-byte rule): in the `…_strided`
//! forms, the outer stride between fractal columns (NZ) or fractal rows (ZN, ZZ) must be a
//! multiple of the fractal size `16·C0`, and the other outer stride a multiple of `C0`
//! (32 bytes). Broken at run time it is an `Err` naming the rule and the numbers; in a static
//! type it fails compilation with the same text and numbers.
//!
//! **Fractals do not overlap**: the formats are defined as matrices of whole fractals, so the
//! `…_strided` forms also refuse a zero or negative outer stride and strides whose fractals
//! would overlap (`NZ<f16>(32, 32, 0, 0)`, or StrideRow1 = C0, which puts row 1 of a fractal
//! where row 0 of the next one is). The rule checked: ordering the outer modes with more than
//! one fractal by stride, the smaller stride is at least a fractal (`16·C0`) and the larger at
//! least the smaller's whole run; padded leading dimensions and gaps between fractals pass.
//!
//! ```
//! use layout::named::ascend::{make_nz_layout, make_zn_layout, nz_layout_strided};
//! use half::f16;
//! let nz = make_nz_layout::<f16>(20, 28).unwrap(); // padded to 32 x 32
//! assert_eq!(nz.to_string(), "((16,2),(16,2)):((16,256),(1,512))");
//! let at = |l: &layout::DynLayout, r: i64, c: i64| {
//!     l.offset_of(&layout::DynTuple::from_slice(&[r, c]).unwrap()).unwrap()
//! };
//! assert_eq!(at(&nz, 1, 0), 16);
//! assert_eq!(at(&nz, 0, 16), 512);
//! assert_eq!(at(&nz, 19, 27), 827);
//! let zn = make_zn_layout::<f16>(32, 32).unwrap();
//! assert_eq!(at(&zn, 16, 0), 512);
//! // the stride between fractal columns must be a whole fractal (16·C0 = 256 elements of f16)
//! assert!(nz_layout_strided(16, 32, 32, 256, 520).is_err());
//! // fractals that overlap: refused; a gap of one fractal row between them: accepted
//! assert!(nz_layout_strided(16, 32, 32, 16, 1024).is_err());
//! assert!(nz_layout_strided(16, 32, 32, 272, 1024).is_ok());
//! ```

use super::{named_zst, table};
use crate::algebra::ops::Op;
use crate::tensor::extents::extent_i64;
use crate::{DynLayout, LayoutError};

pub use crate::formulas::ascend::{
    C0_BYTES, ELEMENT_TYPES, FRACTAL_ROWS, batched, c0_of, capacity, dn_ext_layout, nd_ext_layout,
    nn_layout, nz_layout, nz_layout_strided, zn_layout, zn_layout_strided, zz_layout,
    zz_layout_strided,
};

/// An element type of Ascend's fractal layouts: its width in bits decides C0, the number of
/// elements in a fractal row of 32 bytes. Named `C0Element` so that it reads apart from
/// `gemm::Element`, the GEMM scalar type (it was `named::Element`).
///
/// ```
/// use layout::named::{C0Element, U4};
/// assert_eq!(<f32 as C0Element>::C0, 8);
/// assert_eq!(<half::f16 as C0Element>::C0, 16);
/// assert_eq!(<half::bf16 as C0Element>::C0, 16);
/// assert_eq!(<i8 as C0Element>::C0, 32);
/// assert_eq!(<U4 as C0Element>::C0, 64);
/// ```
pub trait C0Element: 'static {
    /// Width of one element in bits.
    const BITS: i64;
    /// Elements in a 32-byte fractal row: `256 / BITS`.
    const C0: i64 = C0_BYTES * 8 / Self::BITS;
}

/// A 4-bit element (int4, uint4, fp4 e2m1; Ascend's `fp4x2_e2m1_t` holds two): a marker type
/// for layouts, which count 4-bit elements (C0 = 64). Storage of packed nibbles is not this
/// type's business.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct U4;

macro_rules! element {
    ($bits:expr => $($t:ty),*) => {$(
        impl C0Element for $t {
            const BITS: i64 = $bits;
        }
    )*};
}
element!(32 => f32, i32, u32);
element!(16 => half::f16, half::bf16, i16, u16);
element!(8 => i8, u8);
element!(4 => U4);

/// Two public `usize` extents as the formulas' `i64`.
fn ext2(m: usize, n: usize) -> Result<(i64, i64), LayoutError> {
    Ok((extent_i64(m, "m")?, extent_i64(n, "n")?))
}

/// Ascend's `MakeNzLayout<T>(m, n)`: compact NZ for element type `T` (see [`nz_layout`]).
///
/// # Errors
/// Non-positive extents, or overflow.
pub fn make_nz_layout<T: C0Element>(m: usize, n: usize) -> Result<DynLayout, LayoutError> {
    let (m, n) = ext2(m, n)?;
    nz_layout(T::C0, m, n)
}

/// Ascend's `MakeZnLayout<T>(m, n)`: compact ZN (see [`zn_layout`]).
///
/// # Errors
/// Non-positive extents, or overflow.
pub fn make_zn_layout<T: C0Element>(m: usize, n: usize) -> Result<DynLayout, LayoutError> {
    let (m, n) = ext2(m, n)?;
    zn_layout(T::C0, m, n)
}

/// Ascend's `MakeZzLayout<T>(m, n)`: compact ZZ (see [`zz_layout`]).
///
/// # Errors
/// Non-positive extents, or overflow.
pub fn make_zz_layout<T: C0Element>(m: usize, n: usize) -> Result<DynLayout, LayoutError> {
    let (m, n) = ext2(m, n)?;
    zz_layout(T::C0, m, n)
}

/// The NN layout of MX scales (see [`nn_layout`]).
///
/// # Errors
/// Non-positive extents, or overflow.
pub fn make_nn_layout(m: usize, n: usize) -> Result<DynLayout, LayoutError> {
    let (m, n) = ext2(m, n)?;
    nn_layout(m, n)
}

/// Ascend's `MakeRowMajorLayout(m, n)` (`NDExt`): `((1,m),(1,n)):((0,n),(0,1))`.
///
/// # Errors
/// Non-positive extents, or overflow.
pub fn make_row_major_layout(m: usize, n: usize) -> Result<DynLayout, LayoutError> {
    let (m, n) = ext2(m, n)?;
    nd_ext_layout(m, n, n)
}

/// Ascend's `MakeColumnMajorLayout(m, n)` (`DNExt`): `((1,m),(1,n)):((0,1),(0,m))`.
///
/// # Errors
/// Non-positive extents, or overflow.
pub fn make_column_major_layout(m: usize, n: usize) -> Result<DynLayout, LayoutError> {
    let (m, n) = ext2(m, n)?;
    dn_ext_layout(m, n, m)
}

/// Ascend's `MakeL0CLayout(m, n)`: the accumulator layout, NZ with 16 × 16 fractals whatever
/// the accumulator type.
///
/// # Errors
/// Non-positive extents, or overflow.
pub fn make_l0c_layout(m: usize, n: usize) -> Result<DynLayout, LayoutError> {
    let (m, n) = ext2(m, n)?;
    nz_layout(16, m, n)
}

/// `batch` NZ matrices (`MakeFrameLayout<NZLayoutPtn, T>(batch, m, n)`): `(batch, rows, cols)`.
///
/// ```
/// use layout::named::make_nz_layout_batched;
/// // ATB's TransdataOperation example: ND {8,100,30} f16 -> NZ {8,2,112,16}
/// let l = make_nz_layout_batched::<half::f16>(8, 100, 30).unwrap();
/// assert_eq!(l.to_string(), "(8,(16,7),(16,2)):(3584,(16,256),(1,1792))");
/// assert_eq!(l.cosize(), 8 * 2 * 112 * 16);
/// ```
///
/// # Errors
/// Non-positive extents, or overflow.
pub fn make_nz_layout_batched<T: C0Element>(
    batch: usize,
    m: usize,
    n: usize,
) -> Result<DynLayout, LayoutError> {
    let (m, n) = ext2(m, n)?;
    batched(&nz_layout(T::C0, m, n)?, extent_i64(batch, "batch")?)
}

/// `batch` ZN matrices: `(batch, rows, cols)`.
///
/// # Errors
/// Non-positive extents, or overflow.
pub fn make_zn_layout_batched<T: C0Element>(
    batch: usize,
    m: usize,
    n: usize,
) -> Result<DynLayout, LayoutError> {
    let (m, n) = ext2(m, n)?;
    batched(&zn_layout(T::C0, m, n)?, extent_i64(batch, "batch")?)
}

/// `batch` ZZ matrices: `(batch, rows, cols)`.
///
/// # Errors
/// Non-positive extents, or overflow.
pub fn make_zz_layout_batched<T: C0Element>(
    batch: usize,
    m: usize,
    n: usize,
) -> Result<DynLayout, LayoutError> {
    let (m, n) = ext2(m, n)?;
    batched(&zz_layout(T::C0, m, n)?, extent_i64(batch, "batch")?)
}

named_zst! {
    /// Static compact NZ for `T` with const-generic extents (padded to whole fractals): a
    /// zero-sized type whose value is [`nz_layout`]`(T::C0, M, N)`, computed at compile time.
    ///
    /// ```
    /// use layout::named::Nz;
    /// use layout::StaticLayout;
    /// let l = Nz::<f32, 16, 16>::new();
    /// assert_eq!(l.to_string(), "((_16,_1),(_8,_2)):((_8,_128),(_1,_128))");
    /// assert_eq!(Nz::<f32, 16, 16>::LAYOUT.offset_of(&"(0,8)".parse().unwrap()), Ok(128));
    /// ```
    Nz [T: C0Element, const M: i64, const N: i64] [T, M, N] (T) => table(Op::NzLayout, &[T::C0, M, N])
}
named_zst! {
    /// Static NZ with explicit outer strides (see [`nz_layout_strided`]); a stride that breaks
    /// the alignment rule fails compilation.
    ///
    /// ```compile_fail,E0080
    /// use layout::named::NzStrided;
    /// // StrideColumn1 = 520 is not a multiple of the fractal (16·16 = 256 elements)
    /// let l = NzStrided::<half::f16, 32, 32, 256, 520>::new();
    /// ```
    NzStrided [T: C0Element, const M: i64, const N: i64, const ROW1: i64, const COL1: i64]
        [T, M, N, ROW1, COL1] (T) => table(Op::NzLayoutStrided, &[T::C0, M, N, ROW1, COL1])
}
named_zst! {
    /// Static compact ZN for `T` ([`zn_layout`]).
    Zn [T: C0Element, const M: i64, const N: i64] [T, M, N] (T) => table(Op::ZnLayout, &[T::C0, M, N])
}
named_zst! {
    /// Static ZN with explicit outer strides ([`zn_layout_strided`]).
    ZnStrided [T: C0Element, const M: i64, const N: i64, const ROW1: i64, const COL1: i64]
        [T, M, N, ROW1, COL1] (T) => table(Op::ZnLayoutStrided, &[T::C0, M, N, ROW1, COL1])
}
named_zst! {
    /// Static compact ZZ for `T` ([`zz_layout`]).
    Zz [T: C0Element, const M: i64, const N: i64] [T, M, N] (T) => table(Op::ZzLayout, &[T::C0, M, N])
}
named_zst! {
    /// Static ZZ with explicit outer strides ([`zz_layout_strided`]).
    ZzStrided [T: C0Element, const M: i64, const N: i64, const ROW1: i64, const COL1: i64]
        [T, M, N, ROW1, COL1] (T) => table(Op::ZzLayoutStrided, &[T::C0, M, N, ROW1, COL1])
}
named_zst! {
    /// Static NN ([`nn_layout`]).
    Nn [const M: i64, const N: i64] [M, N] () => table(Op::NnLayout, &[M, N])
}
named_zst! {
    /// Static two-level row-major `((1,M),(1,N)):((0,N),(0,1))` ([`nd_ext_layout`]).
    NdExt [const M: i64, const N: i64] [M, N] () => table(Op::RowMajorLayout, &[M, N])
}
named_zst! {
    /// Static two-level column-major `((1,M),(1,N)):((0,1),(0,M))` ([`dn_ext_layout`]).
    DnExt [const M: i64, const N: i64] [M, N] () => table(Op::ColumnMajorLayout, &[M, N])
}
named_zst! {
    /// Static two-level row-major with a leading dimension, `((1,M),(1,N)):((0,LD),(0,1))`
    /// ([`nd_ext_layout`]).
    NdExtStrided [const M: i64, const N: i64, const LD: i64] [M, N, LD] () =>
        table(Op::NdExtLayout, &[M, N, LD])
}
named_zst! {
    /// Static two-level column-major with a leading dimension, `((1,M),(1,N)):((0,1),(0,LD))`
    /// ([`dn_ext_layout`]).
    DnExtStrided [const M: i64, const N: i64, const LD: i64] [M, N, LD] () =>
        table(Op::DnExtLayout, &[M, N, LD])
}
named_zst! {
    /// Static L0C accumulator layout: NZ with 16 × 16 fractals ([`make_l0c_layout`]).
    L0c [const M: i64, const N: i64] [M, N] () => table(Op::L0cLayout, &[M, N])
}

impl<T: C0Element, const M: i64, const N: i64> Nz<T, M, N> {
    /// This layout with its logical extents `(M, N)` kept beside the padded ones.
    pub fn padded(self) -> super::Padded<Self> {
        super::Padded::from_parts(self, Self::PAD)
    }
    const PAD: super::padded::PadParts = super::padded::PadParts::of_static(&Self::LAYOUT, &[M, N]);
}
impl<T: C0Element, const M: i64, const N: i64> Zn<T, M, N> {
    /// This layout with its logical extents `(M, N)` kept beside the padded ones.
    pub fn padded(self) -> super::Padded<Self> {
        super::Padded::from_parts(self, Self::PAD)
    }
    const PAD: super::padded::PadParts = super::padded::PadParts::of_static(&Self::LAYOUT, &[M, N]);
}
impl<T: C0Element, const M: i64, const N: i64> Zz<T, M, N> {
    /// This layout with its logical extents `(M, N)` kept beside the padded ones.
    pub fn padded(self) -> super::Padded<Self> {
        super::Padded::from_parts(self, Self::PAD)
    }
    const PAD: super::padded::PadParts = super::padded::PadParts::of_static(&Self::LAYOUT, &[M, N]);
}
