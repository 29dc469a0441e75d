//! Storage: where a tensor's elements live, and who may write them.
//!
//! A tensor owns (`Vec<T>`, `Box<[T]>`), shares (`&[T]`, `Cow<[T]>`) or mutably borrows
//! (`&mut [T]`) a buffer. The traits are sealed: a tensor checks its layout against the buffer
//! length once, at construction, and relies on every implementation returning the same buffer
//! (same length) for as long as it lives — which only the implementations in this module
//! guarantee.

#[cfg(feature = "alloc")]
use alloc::{borrow::Cow, boxed::Box, vec::Vec};

mod sealed {
    pub trait Sealed {}
}

/// A buffer a tensor reads its elements from.
///
/// Implemented for `&[T]`, `&mut [T]`, and with the `alloc` feature `Vec<T>`, `Box<[T]>` and
/// `Cow<'_, [T]>`. Sealed: the tensor's bounds check relies on the buffer never changing length.
pub trait Storage: sealed::Sealed {
    /// The element type.
    type Elem;
    /// `true` when the storage can be written ([`StorageMut`]). Tensors over writable storage
    /// require an injective layout, so no two coordinates alias one element.
    const WRITABLE: bool;
    /// The whole buffer.
    fn as_slice(&self) -> &[Self::Elem];
}

/// A buffer a tensor may also write: owned or mutably borrowed.
///
/// Read-only views (shared borrows, broadcasts, overlapping stride tricks) do not implement it,
/// so writing through them does not compile.
#[diagnostic::on_unimplemented(
    message = "this tensor is read-only: its storage `{Self}` cannot be written",
    label = "writing needs a tensor over `Vec<T>`, `Box<[T]>` or `&mut [T]`",
    note = "broadcast (stride-0) and overlapping views are always read-only `&[T]` views; copy one into an owned tensor (`to_owned`) to write"
)]
pub trait StorageMut: Storage {
    /// The whole buffer, writable.
    fn as_mut_slice(&mut self) -> &mut [Self::Elem];
}

impl<T> sealed::Sealed for &[T] {}
impl<T> Storage for &[T] {
    type Elem = T;
    const WRITABLE: bool = false;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}

impl<T> sealed::Sealed for &mut [T] {}
impl<T> Storage for &mut [T] {
    type Elem = T;
    const WRITABLE: bool = true;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}
impl<T> StorageMut for &mut [T] {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}

#[cfg(feature = "alloc")]
impl<T> sealed::Sealed for Vec<T> {}
#[cfg(feature = "alloc")]
impl<T> Storage for Vec<T> {
    type Elem = T;
    const WRITABLE: bool = true;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}
#[cfg(feature = "alloc")]
impl<T> StorageMut for Vec<T> {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}

#[cfg(feature = "alloc")]
impl<T> sealed::Sealed for Box<[T]> {}
#[cfg(feature = "alloc")]
impl<T> Storage for Box<[T]> {
    type Elem = T;
    const WRITABLE: bool = true;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}
#[cfg(feature = "alloc")]
impl<T> StorageMut for Box<[T]> {
    #[inline(always)]
    fn as_mut_slice(&mut self) -> &mut [T] {
        self
    }
}

#[cfg(feature = "alloc")]
impl<T: Clone> sealed::Sealed for Cow<'_, [T]> {}
#[cfg(feature = "alloc")]
impl<T: Clone> Storage for Cow<'_, [T]> {
    type Elem = T;
    const WRITABLE: bool = false;
    #[inline(always)]
    fn as_slice(&self) -> &[T] {
        self
    }
}
