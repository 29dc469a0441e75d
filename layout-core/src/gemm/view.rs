//! The GEMM's one operand vocabulary: an input operand ([`View`]), a checked product
//! ([`Product`]) and C as the engine writes it (`Out`, from the engine).

pub(crate) use super::block::Out;
use super::check::Strided;
use super::maps::Mapped;
use super::options::Packing;
use super::pack::Rows;
use crate::isa::Isa;

/// One input operand as the engine reads it: its elements, where element (0, 0) is and its
/// strides, or (for an operand of any affine layout) its axis maps from `at.origin`.
#[derive(Clone, Copy)]
pub(crate) struct View<'a, X> {
    pub data: &'a [X],
    pub at: Strided,
    pub map: Option<Mapped<'a>>,
}

impl<'a, X> View<'a, X> {
    /// The operand as the packer reads it, rows by k (A as it is; B after [`View::transposed`]),
    /// with `simd` for packers that convert with the instruction set's vector instructions.
    pub fn rows(self) -> Rows<'a, X> {
        Rows {
            src: self.data,
            origin: self.at.origin,
            sv: self.at.rs,
            sk: self.at.cs,
            map: self.map,
            simd: false,
        }
    }

    /// The operand transposed: Bᵀ (n × k), as the packer reads B.
    pub fn transposed(self) -> View<'a, X> {
        View {
            data: self.data,
            at: Strided {
                origin: self.at.origin,
                rs: self.at.cs,
                cs: self.at.rs,
            },
            map: self.map.map(Mapped::t),
        }
    }
}

/// A checked product, handed to the element pair's kernels: `C ← α·A·B + β·C` with
/// A m × k, B k × n, C m × n (`mkn`). Every element of each operand is inside its slice, no
/// two elements of C share a location, the instruction set is available, and α ≠ 0, k > 0,
/// m, n > 0 (the rules have run).
#[doc(hidden)]
pub struct Product<'a, A, B, C> {
    pub(crate) mkn: [usize; 3],
    pub(crate) isa: Isa,
    pub(crate) threads: usize,
    pub(crate) packing: Packing,
    pub(crate) alpha: C,
    pub(crate) beta: C,
    pub(crate) a: View<'a, A>,
    pub(crate) b: View<'a, B>,
    pub(crate) c: Out<'a, C>,
}

impl<A, B, C> Product<'_, A, B, C> {
    /// Every operand strided (no axis maps): the unpacked routes apply.
    pub(crate) fn strided(&self) -> bool {
        self.a.map.is_none() && self.b.map.is_none() && self.c.cmap.is_none()
    }
}
