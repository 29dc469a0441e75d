//! `max_common_layout`, `max_common_vector`, `nullspace`.

use super::flat_modes::{Modes, must};
use crate::DynLayout;

impl DynLayout {
    /// CuTe's `max_common_layout(A, B)`: the largest layout `R` with `A(R(i)) == i == B(R(i))`
    /// for every `i < size(R)` that starts at index stride 1 of both — the indices where `A` and
    /// `B` are both contiguous and agree (the widest common vector).
    ///
    /// Definition: `inv = right_inverse(B)`; `common = coalesce(A ∘ inv)`; if the first mode of
    /// `common` has stride 1 and extent `n`, `R = inv ∘ n:1`, else `1:0`. When `A ∘ inv` is not
    /// admissible, the longest admissible prefix of `inv`'s modes is used instead (CuTe has no
    /// such case: it would return an unchecked composition).
    ///
    /// # Preconditions
    /// None.
    ///
    /// # Postconditions
    /// `A(R(i)) == i` and `B(R(i)) == i` for all `i < size(R)`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(4,8):(1,4)".parse().unwrap();
    /// let b: DynLayout = "(4,8):(1,8)".parse().unwrap();
    /// assert_eq!(a.max_common_layout(&b).to_string(), "4:1");
    /// assert_eq!(a.max_common_vector(&b), 4);
    /// ```
    pub const fn max_common_layout(&self, b: &DynLayout) -> DynLayout {
        let inv = Modes::of(&b.right_inverse());
        let mut k = inv.n;
        while k > 0 {
            let prefix = Modes {
                s: inv.s,
                d: inv.d,
                n: k,
            };
            let p = must(prefix.build());
            if let Ok(c) = self.composition(&p) {
                let c = Modes::of(&c.coalesce());
                if c.d[0] == 1
                    && c.s[0] > 1
                    && let Ok(one) = DynLayout::leaf(c.s[0], 1)
                    && let Ok(r) = p.composition(&one)
                {
                    return r;
                }
                break;
            }
            k -= 1;
        }
        must(DynLayout::leaf(1, 0))
    }

    /// CuTe's `max_common_vector(A, B)`: `size(max_common_layout(A, B))`, the number of
    /// elements that are contiguous in both `A` and `B` from index 0.
    ///
    /// # Preconditions
    /// None.
    ///
    /// # Postconditions
    /// `A(i) == i == B(i)`'s common-vector length: see [`DynLayout::max_common_layout`].
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(4,8):(8,1)".parse().unwrap();
    /// let b: DynLayout = "(4,8):(1,4)".parse().unwrap();
    /// assert_eq!(a.max_common_vector(&b), 1);
    /// ```
    pub const fn max_common_vector(&self, b: &DynLayout) -> i64 {
        self.max_common_layout(b).size()
    }

    /// CuTe's `nullspace(L)`: the layout of the 1-D indices of `L` that its stride-0 modes
    /// enumerate — every index of it maps to offset 0. `1:0` when `L` has no stride-0 mode of
    /// extent > 1.
    ///
    /// # Preconditions
    /// None.
    ///
    /// # Postconditions
    /// `L(R(i)) == 0` for every `i < size(R)`; `R` is injective; `size(R)` is the product of
    /// the extents of the stride-0 leaves.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(2,3,4):(0,1,0)".parse().unwrap();
    /// assert_eq!(l.nullspace().to_string(), "(2,4):(1,6)");
    /// ```
    pub const fn nullspace(&self) -> DynLayout {
        let m = Modes::of(self);
        let p = m.index_strides();
        let mut out = Modes::EMPTY;
        let mut i = 0;
        while i < m.n {
            if m.d[i] == 0 && m.s[i] > 1 {
                out.s[out.n] = m.s[i];
                out.d[out.n] = p[i];
                out.n += 1;
            }
            i += 1;
        }
        must(out.build())
    }
}
