//! CUTLASS 2.x tensor-op shared-memory layouts (`TensorOpMultiplicand<ElementBits, Crosswise>`,
//! sm75) as a hierarchical layout composed with a swizzle.
//!
//! CUTLASS defines the layout by its offset function on a pitch-linear coordinate
//! `(cont, strd)` (128-bit accesses of `E = 128/bits` elements, `kF = 8·E/Crosswise` strided
//! rows sharing one 128-byte line, `TS = max(8/kF, 4)`):
//!
//! ```text
//! v = cont/E, vs = strd/kF, q = 8/kF
//! res  = v%q + (strd%kF)·q                     (the 16-byte chunk inside the line)
//! res' = res ^ (vs % TS)                       (the two partition XORs of CUTLASS, combined)
//! offset = ((v/q)·8 + res')·E + cont%E + vs·ld·kF
//! ```
//!
//! Without the XOR this is the layout `((E,q,T),(kF,S/kF)) : ((1,E,8E),(Crosswise,ld·kF))`
//! over `(cont, strd)` with `T = cont/Crosswise`; the XOR flips the chunk bits `[log2 E,
//! log2 E + log2 TS)` by the bits of `vs` at `log2(ld·kF)`, which is the swizzle
//! `Sw<log2 TS, log2 E, log2(ld·kF) − log2 E>` whenever `ld·kF` is a power of two. So
//! `TensorOpMultiplicand` is `Sw<…> o 0 o L`, an ordinary swizzled layout of this crate (CUTLASS
//! itself has no inverse for it; ours inverts through the swizzle and the layout). The
//! `Congruous` and `Crosswise` variants are the same function; the `ColumnMajor…` forms take
//! `(row, col) = (cont, strd)` and the `RowMajor…` forms `(row, col) = (strd, cont)`.
//!
//! ```
//! use layout::named::tensor_op::tensor_op_multiplicand;
//! use layout::AnyLayout;
//! // f16, Crosswise = 64 (kF = 1): 64 x 8, ld = 64 is the fp16 128-byte swizzle atom
//! let l = tensor_op_multiplicand(16, 64, 64, 8, 64).unwrap();
//! assert_eq!(l.to_string(), "Sw<3,3,3> o 0 o ((8,8,1),(1,8)):((1,8,64),(64,64))");
//! assert_eq!(l.offset(8 + 64), 64 + 8 * (1 ^ 1)); // (cont 8, strd 1)
//! ```

use crate::const_try::ctry;
use crate::{DynLayout, DynTuple, LayoutError, Swizzle, SwizzledLayout};

const fn log2_exact(v: i64) -> Option<i64> {
    if v > 0 && v & (v - 1) == 0 {
        Some(v.trailing_zeros() as i64)
    } else {
        None
    }
}

const fn refuse(what: &'static str, a: i64, b: i64) -> Result<(Swizzle, DynLayout), LayoutError> {
    Err(LayoutError::Precondition { what, a, b })
}

/// The swizzle and inner layout of `TensorOpMultiplicand<bits, crosswise>` over a pitch-linear
/// tile of `cont × strd` elements with leading dimension `ld` (see the module docs).
///
/// # Errors
/// `bits` not a power of two in `1..=128`; `crosswise` not a multiple of `E = 128/bits` or not
/// dividing `8·E`; `cont` not a multiple of `crosswise`; `strd` not a multiple of `kF`;
/// `ld < cont`; `ld·kF` not a power of two (then CUTLASS's XOR is not a swizzle of offset bits).
pub const fn tensor_op_multiplicand_parts(
    bits: i64,
    crosswise: i64,
    cont: i64,
    strd: i64,
    ld: i64,
) -> Result<(Swizzle, DynLayout), LayoutError> {
    if log2_exact(bits).is_none() || bits > 128 {
        return refuse(
            "TensorOpMultiplicand: the element width must be a power of two of at most {b} bits, but it is {a}",
            bits,
            128,
        );
    }
    let e = 128 / bits;
    if crosswise <= 0 || crosswise % e != 0 || (8 * e) % crosswise != 0 {
        return refuse(
            "TensorOpMultiplicand: Crosswise must be a multiple of the {b} elements per 128-bit access and divide 8 · {b}, but it is {a}",
            crosswise,
            e,
        );
    }
    let kf = 8 * e / crosswise;
    let q = crosswise / e;
    if cont <= 0 || cont % crosswise != 0 {
        return refuse(
            "TensorOpMultiplicand: the contiguous extent must be a positive multiple of Crosswise = {b}, but it is {a}",
            cont,
            crosswise,
        );
    }
    if strd <= 0 || strd % kf != 0 {
        return refuse(
            "TensorOpMultiplicand: the strided extent must be a positive multiple of kFactor = {b}, but it is {a}",
            strd,
            kf,
        );
    }
    if ld < cont {
        return refuse(
            "TensorOpMultiplicand: the leading dimension must be at least the contiguous extent {b}, but it is {a}",
            ld,
            cont,
        );
    }
    let row = match ld.checked_mul(kf) {
        Some(v) => v,
        None => {
            return Err(LayoutError::Overflow {
                what: "TensorOpMultiplicand row stride",
            });
        }
    };
    let Some(row_bits) = log2_exact(row) else {
        return refuse(
            "TensorOpMultiplicand: ld · kFactor must be a power of two for the XOR to be a swizzle, but ld is {a} and kFactor {b}",
            ld,
            kf,
        );
    };
    let ts = if q > 4 { q } else { 4 };
    let (b, m) = (ts.trailing_zeros() as i64, e.trailing_zeros() as i64);
    let sw = ctry!(Swizzle::new(b, m, row_bits - m));
    let shape = ctry!(DynTuple::tuple(&[
        ctry!(DynTuple::from_slice(&[e, q, cont / crosswise])),
        ctry!(DynTuple::from_slice(&[kf, strd / kf])),
    ]));
    let stride = ctry!(DynTuple::tuple(&[
        ctry!(DynTuple::from_slice(&[1, e, 8 * e])),
        ctry!(DynTuple::from_slice(&[crosswise, row])),
    ]));
    Ok((sw, ctry!(DynLayout::new(&shape, &stride))))
}

/// CUTLASS's `TensorOpMultiplicand<bits, crosswise>` (and its `Congruous`, `Crosswise` and
/// `ColumnMajor…` wrappers) over a `cont × strd` tile with leading dimension `ld`, as
/// `Sw o 0 o L` with axes `(cont, strd)`.
///
/// # Errors
/// See [`tensor_op_multiplicand_parts`].
pub fn tensor_op_multiplicand(
    bits: i64,
    crosswise: i64,
    cont: i64,
    strd: i64,
    ld: i64,
) -> Result<SwizzledLayout<DynLayout, Swizzle, i64>, LayoutError> {
    let (sw, l) = tensor_op_multiplicand_parts(bits, crosswise, cont, strd, ld)?;
    Ok(SwizzledLayout::new(sw, 0, l))
}

/// CUTLASS's `RowMajorTensorOpMultiplicand{Congruous,Crosswise}`: the same function with axes
/// `(row, col) = (strd, cont)`.
///
/// # Errors
/// See [`tensor_op_multiplicand_parts`].
pub fn row_major_tensor_op_multiplicand(
    bits: i64,
    crosswise: i64,
    rows: i64,
    cols: i64,
    ld: i64,
) -> Result<SwizzledLayout<DynLayout, Swizzle, i64>, LayoutError> {
    let (sw, l) = tensor_op_multiplicand_parts(bits, crosswise, cols, rows, ld)?;
    Ok(SwizzledLayout::new(sw, 0, l.select(&[1, 0])?))
}
