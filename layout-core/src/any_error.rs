//! [`Error`]: any error of the library, so that `?` works across layers.
//!
//! Each layer keeps its own error type (the variants say what that layer refuses); every one of
//! them converts into [`Error`] with `From`, so a function that builds a layout, a tensor, packs
//! weights and multiplies can return `Result<_, layout::Error>` and use `?` on each call.
//!
//! The layer error is boxed (as `std::io::Error` boxes its custom errors): an `Error` is one
//! pointer, so `Result<T, layout::Error>` stays small whatever the layer errors carry.

use crate::LayoutError;
use crate::tensor::TensorError;
use alloc::boxed::Box;
use core::fmt;

/// Any error of the library: which layer refused, with that layer's error ([`ErrorKind`]).
///
/// Its `Display` is the layer error's sentence and its `Debug` names the layer and shows the
/// sentence, so `fn main() -> Result<(), layout::Error>` prints something to act on:
///
/// ```
/// use layout::tensor::{Tensor, TensorError};
/// use layout::{DynLayout, Error, ErrorKind};
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
/// assert!(matches!(e.kind(), ErrorKind::Tensor(TensorError::ElementCount { needed: 12, .. })));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Error(Box<ErrorKind>);

/// The layer an [`Error`] comes from, holding that layer's error.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// Layouts, their text and the algebra.
    Layout(LayoutError),
    /// Tensors: buffers, views, copies, tiles.
    Tensor(TensorError),
    /// Packed sub-byte data and quantized weights.
    Packed(crate::packed::PackedError),
    /// Sparse matrices.
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

impl Error {
    /// The layer and its error.
    pub fn kind(&self) -> &ErrorKind {
        &self.0
    }

    /// The layer and its error, by value.
    pub fn into_kind(self) -> ErrorKind {
        *self.0
    }
}

impl From<ErrorKind> for Error {
    fn from(k: ErrorKind) -> Error {
        Error(Box::new(k))
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // the layer and the layer error's own `Debug` (its variant and sentence)
        self.0.fmt(f)
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::Layout(e) => e.fmt(f),
            ErrorKind::Tensor(e) => e.fmt(f),
            ErrorKind::Packed(e) => e.fmt(f),
            ErrorKind::Sparse(e) => e.fmt(f),
            #[cfg(feature = "std")]
            ErrorKind::Gguf(e) => e.fmt(f),
            #[cfg(feature = "std")]
            ErrorKind::Gemm(e) => e.fmt(f),
            #[cfg(feature = "std")]
            ErrorKind::Conv(e) => e.fmt(f),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// `From` for each layer error, into both [`ErrorKind`] and [`Error`].
macro_rules! from_layer {
    ($($(#[$cfg:meta])* $variant:ident($ty:ty);)+) => {$(
        $(#[$cfg])*
        impl From<$ty> for ErrorKind {
            fn from(e: $ty) -> ErrorKind {
                ErrorKind::$variant(e)
            }
        }
        $(#[$cfg])*
        impl From<$ty> for Error {
            fn from(e: $ty) -> Error {
                Error(Box::new(ErrorKind::$variant(e)))
            }
        }
    )+};
}

from_layer! {
    Layout(LayoutError);
    Tensor(TensorError);
    Packed(crate::packed::PackedError);
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
        match self.kind() {
            ErrorKind::Layout(e) => e.source(),
            ErrorKind::Tensor(e) => e.source(),
            ErrorKind::Packed(e) => e.source(),
            ErrorKind::Sparse(e) => e.source(),
            ErrorKind::Gguf(e) => e.source(),
            ErrorKind::Gemm(e) => e.source(),
            ErrorKind::Conv(e) => e.source(),
        }
    }
}
