//! [`Error`]: any error of the library, so that `?` works across layers.
//!
//! Each layer keeps its own error type (the variants say what that layer refuses); every one of
//! them converts into [`Error`] with `From`, so a function that builds a layout, a tensor, packs
//! weights and multiplies can return `Result<_, layout::Error>` and use `?` on each call.

use crate::LayoutError;
use crate::tensor::TensorError;
use core::fmt;

/// Any error of the library: one variant per layer, holding that layer's error.
///
/// Its `Display` is the layer error's sentence and its `Debug` names the layer and shows the
/// sentence, so `fn main() -> Result<(), layout::Error>` prints something to act on:
///
/// ```
/// use layout::tensor::Tensor;
/// use layout::{DynLayout, Error};
///
/// fn build() -> Result<Tensor<Vec<f32>, DynLayout>, Error> {
///     let l: DynLayout = "(3,4):(4,1)".parse()?; // a LayoutError
///     Ok(Tensor::new(vec![0f32; 12], l)?)         // a TensorError
/// }
/// assert!(build().is_ok());
///
/// fn short() -> Result<(), Error> {
///     Tensor::from_vec(vec![0f32; 10], &[3, 4])?;
///     Ok(())
/// }
/// let e = short().unwrap_err();
/// assert_eq!(e.to_string(), "from_vec: the shape (3,4) needs 12 elements, the vector has 10");
/// assert_eq!(
///     format!("{e:?}"),
///     r#"Tensor(ElementCount("from_vec: the shape (3,4) needs 12 elements, the vector has 10"))"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// Layouts, their text and the algebra.
    Layout(LayoutError),
    /// Tensors: buffers, views, copies, tiles.
    Tensor(TensorError),
    /// Packed sub-byte data and quantized weights.
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    Packed(crate::packed::PackedError),
    /// Sparse matrices.
    #[cfg(feature = "alloc")]
    #[cfg_attr(docsrs, doc(cfg(feature = "alloc")))]
    Sparse(crate::sparse::SparseError),
    /// Reading a GGUF file.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    Gguf(crate::packed::GgufFileError),
    /// The GEMM entry points.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    Gemm(crate::gemm::GemmError),
    /// Convolutions.
    #[cfg(feature = "std")]
    #[cfg_attr(docsrs, doc(cfg(feature = "std")))]
    Conv(crate::conv::ConvError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Layout(e) => e.fmt(f),
            Error::Tensor(e) => e.fmt(f),
            #[cfg(feature = "alloc")]
            Error::Packed(e) => e.fmt(f),
            #[cfg(feature = "alloc")]
            Error::Sparse(e) => e.fmt(f),
            #[cfg(feature = "std")]
            Error::Gguf(e) => e.fmt(f),
            #[cfg(feature = "std")]
            Error::Gemm(e) => e.fmt(f),
            #[cfg(feature = "std")]
            Error::Conv(e) => e.fmt(f),
        }
    }
}

/// `From` for each layer error.
macro_rules! from_layer {
    ($($(#[$cfg:meta])* $variant:ident($ty:ty);)+) => {$(
        $(#[$cfg])*
        impl From<$ty> for Error {
            fn from(e: $ty) -> Error {
                Error::$variant(e)
            }
        }
    )+};
}

from_layer! {
    Layout(LayoutError);
    Tensor(TensorError);
    #[cfg(feature = "alloc")]
    Packed(crate::packed::PackedError);
    #[cfg(feature = "alloc")]
    Sparse(crate::sparse::SparseError);
    #[cfg(feature = "std")]
    Gguf(crate::packed::GgufFileError);
    #[cfg(feature = "std")]
    Gemm(crate::gemm::GemmError);
    #[cfg(feature = "std")]
    Conv(crate::conv::ConvError);
}

// `Display` already writes the layer error's sentence, so the layer error is not also given as
// the `source` (an error reporter would print the sentence twice); its own source is.
#[cfg(feature = "std")]
impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Layout(e) => e.source(),
            Error::Tensor(e) => e.source(),
            Error::Packed(e) => e.source(),
            Error::Sparse(e) => e.source(),
            Error::Gguf(e) => e.source(),
            Error::Gemm(e) => e.source(),
            Error::Conv(e) => e.source(),
        }
    }
}
