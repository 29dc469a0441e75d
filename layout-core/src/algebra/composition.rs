//! `composition`: `R = A ∘ B` with `R(c) == A(B(c))` for every coordinate `c` of `B`.

use super::flat_modes::{Modes, mul, top_mode, top_rank};
use super::tiler::{Tile, TileMode};
use crate::const_try::ctry;
use crate::dyn_layout::Builder;
use crate::tuple::{CLOSE, LEAF, MAX_LEAVES, OPEN};
use crate::{CompositionRule, DynLayout, DynTuple, LayoutError};

const _: () = assert!(LEAF != OPEN && LEAF != CLOSE);

impl DynLayout {
    /// CuTe's `composition(A, B)` with a layout `B` (1-D functional composition; the ranks do not
    /// matter): the layout `R` with `R(c) == A(B(c))` for every coordinate `c` of `B`, shaped
    /// like `B` (each leaf of `B` may become a tuple).
    ///
    /// `A` is read as a function on all of ℤ≥0 (its last mode extends naturally, as in CuTe), so
    /// `B` may reach past `size(A)`.
    ///
    /// # Preconditions — the admissibility rule
    /// Let `a₀:e₀, …, a_{m-1}:e_{m-1}` be `A` coalesced exactly (extent-1 modes dropped,
    /// mergeable neighbours merged, the last mode kept and unbounded). Each leaf `s:d` of `B`
    /// with `s > 1`, `d ≠ 0` is walked through those modes with `(n, r) = (s, d)`:
    /// * `d < 0` is allowed only when `m == 1` ([`CompositionRule::NegativeStride`]);
    /// * at mode `k < m-1` with extent `a`: if `a | r` the mode is skipped (`r /= a`); else if
    ///   `(n-1)·r < a` all steps fit in the mode (emit `n : r·eₖ`, done); else if `r | a`, the
    ///   mode is filled in `q = a/r` steps, which must divide `n`
    ///   ([`CompositionRule::ShapeDivisibility`]) (emit `q : r·eₖ`, `n /= q`, `r = 1`); else
    ///   [`CompositionRule::StrideDivisibility`];
    /// * what is left goes to the unbounded last mode: `n : r·e_{m-1}`.
    ///
    /// The walk also gives, for every mode `k < m-1`, the largest coordinate the leaf reaches
    /// there. Summed over all leaves of `B`, it must stay `< aₖ` ([`CompositionRule::Straddle`]):
    /// then no sum `Σ B_j(c_j)` carries from one mode of `A` into the next, so
    /// `A(Σ B_j(c_j)) == Σ A(B_j(c_j))` and composing leaf by leaf is exact.
    ///
    /// The rule is sufficient (every accepted result is exact) and refuses exactly the cases
    /// where CuTe's leaf-by-leaf construction would be wrong, unless strides of `A` coincide by
    /// accident. It refuses cutlass#3177 (`(6,2):(1,10) ∘ 4:4`, `(4,6,8):(2,3,5) ∘ 6:3`) and
    /// cutlass#2955 (`(6,2):(1,7) ∘ (3,2):(2,3)`), which C++ and pycute accept with wrong results.
    ///
    /// # Postconditions
    /// `R` is shaped like `B` (`compatible(B, R)`), and `R(i) == A(B(i))` for every
    /// `i < size(B)`. Leaves of extent 1 become `1:0`, stride-0 leaves `s:0`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(6,2):(8,2)".parse().unwrap();
    /// let b: DynLayout = "(4,3):(3,1)".parse().unwrap();
    /// let r = a.composition(&b).unwrap();
    /// assert_eq!(r.to_string(), "((2,2),3):((24,2),8)");
    /// for i in 0..b.size() {
    ///     assert_eq!(r.offset(i), a.offset(b.offset(i)));
    /// }
    /// // cutlass#3177: CuTe C++ returns (_2,_2):(_4,_10), but A(B(2)) = A(8) = 12
    /// let a: DynLayout = "(6,2):(1,10)".parse().unwrap();
    /// let e = a.composition(&"4:4".parse().unwrap()).unwrap_err();
    /// assert!(e.to_string().contains("stride divisibility"));
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::Composition`] naming the failed condition, the mode of `A`, the leaf of
    /// `B` and the numbers; [`LayoutError::Overflow`] when a stride leaves `i64`.
    pub const fn composition(&self, b: &DynLayout) -> Result<DynLayout, LayoutError> {
        let a = Modes::of(self).coalesced_ext();
        let bs = b.shape_leaves();
        let bd = b.stride_leaves();
        let mut usage = [0i64; MAX_LEAVES];
        if b.profile().is_leaf() {
            return compose_leaf(&a, bs[0], bd[0], 0, &mut usage);
        }
        // B's nesting with each of its leaves replaced by a layout (CuTe's `transform_layout`
        // over the leaves of B), built as B's tokens are read
        let mut r = Builder::EMPTY;
        let toks = b.profile().tokens();
        let (mut i, mut j) = (0, 0);
        while i < toks.len() {
            match toks[i] {
                OPEN => ctry!(r.open()),
                CLOSE => ctry!(r.close()),
                _ => {
                    ctry!(r.push(&ctry!(compose_leaf(&a, bs[j], bd[j], j, &mut usage))));
                    j += 1;
                }
            }
            i += 1;
        }
        r.build()
    }

    /// CuTe's `composition(A, tiler)` with a by-mode tiler: mode `i` of the result is
    /// `composition(mode i of A, tᵢ)`, or mode `i` of `A` for `_`.
    ///
    /// As in CuTe C++ (not pycute), the modes of `A` the tiler does not cover are dropped: the
    /// result has `rank(tiler)` modes.
    ///
    /// # Preconditions
    /// `rank(tiler) ≤ rank(A)`; each element's composition is admissible (see
    /// [`DynLayout::composition`]).
    ///
    /// # Postconditions
    /// `rank(R) == rank(tiler)`; for each `i`, mode `i` of `R` maps every `j` to
    /// `Aᵢ(tᵢ(j))`.
    ///
    /// ```
    /// use layout::{DynLayout, Tile};
    /// let a: DynLayout = "(12,(4,8)):(59,(13,1))".parse().unwrap();
    /// let t: Tile = "[3:4,8:2]".parse().unwrap();
    /// assert_eq!(a.composition_by_mode(&t).unwrap().to_string(), "(3,(2,4)):(236,(26,1))");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::TilerTooLong`] when the tiler has more modes than `A`; the errors of
    /// [`DynLayout::composition`].
    pub const fn composition_by_mode(&self, tiler: &Tile) -> Result<DynLayout, LayoutError> {
        let r = top_rank(self);
        let n = tiler.rank();
        if n > r {
            return Err(LayoutError::TilerTooLong {
                op: "composition",
                tiler_modes: n,
                rank: r,
            });
        }
        let mut b = Builder::tuple();
        let mut i = 0;
        while i < n {
            let m = ctry!(top_mode(self, i));
            ctry!(b.push(&match tiler.modes()[i] {
                TileMode::Keep => m,
                TileMode::Layout(t) => ctry!(m.composition(&t)),
            }));
            i += 1;
        }
        b.finish_tuple()
    }

    /// CuTe's `composition(A, shape)`: an integer `N` is the 1-D tiler `N:1`; a tuple `(M,N,…)`
    /// is the by-mode tiler `[M:1,N:1,…]`.
    ///
    /// # Preconditions
    /// As [`DynLayout::composition`] / [`DynLayout::composition_by_mode`]; a tuple shape must be
    /// flat.
    ///
    /// # Postconditions
    /// As for the tiler it stands for.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(12,(4,8)):(59,(13,1))".parse().unwrap();
    /// let r = a.composition_shape(&"(3,8)".parse().unwrap()).unwrap();
    /// assert_eq!(r.to_string(), "(3,(4,2)):(59,(13,1))");
    /// ```
    ///
    /// # Errors
    /// As the tiler's composition.
    pub const fn composition_shape(&self, shape: &DynTuple) -> Result<DynLayout, LayoutError> {
        if let Some(n) = shape.as_leaf() {
            let t = ctry!(DynLayout::leaf(n, 1));
            return self.composition(&t);
        }
        let t = ctry!(Tile::from_shape(shape));
        self.composition_by_mode(&t)
    }
}

/// Compose the exactly-coalesced `a` with the leaf `s:d` (leaf `j` of `B`), recording in `usage`
/// the largest coordinate reached in each bounded mode of `a`.
const fn compose_leaf(
    a: &Modes,
    s: i64,
    d: i64,
    j: usize,
    usage: &mut [i64; MAX_LEAVES],
) -> Result<DynLayout, LayoutError> {
    if s == 1 {
        return DynLayout::leaf(1, 0);
    }
    if d == 0 {
        return DynLayout::leaf(s, 0);
    }
    let m = a.n;
    if m == 1 {
        return DynLayout::leaf(s, ctry!(mul(d, a.d[0], "composition stride")));
    }
    if d < 0 {
        return Err(LayoutError::Composition {
            rule: CompositionRule::NegativeStride,
            a_mode: 0,
            a_extent: a.s[0],
            b_leaf: j,
            b_shape: s,
            b_stride: d,
            x: m as i64,
        });
    }
    let mut out = Modes::EMPTY;
    let (mut n, mut r) = (s, d);
    let mut k = 0;
    while k + 1 < m && n > 1 {
        let ak = a.s[k];
        if r % ak == 0 {
            r /= ak;
        } else if (n - 1) * r < ak {
            ctry!(out.push(n, ctry!(mul(r, a.d[k], "composition stride"))));
            usage[k] += (n - 1) * r;
            n = 1;
        } else if ak % r == 0 {
            let q = ak / r;
            if n % q != 0 {
                return Err(LayoutError::Composition {
                    rule: CompositionRule::ShapeDivisibility,
                    a_mode: k,
                    a_extent: ak,
                    b_leaf: j,
                    b_shape: s,
                    b_stride: d,
                    x: q,
                });
            }
            ctry!(out.push(q, ctry!(mul(r, a.d[k], "composition stride"))));
            usage[k] += ak - r;
            n /= q;
            r = 1;
        } else {
            return Err(LayoutError::Composition {
                rule: CompositionRule::StrideDivisibility,
                a_mode: k,
                a_extent: ak,
                b_leaf: j,
                b_shape: s,
                b_stride: d,
                x: r,
            });
        }
        if usage[k] >= ak {
            return Err(LayoutError::Composition {
                rule: CompositionRule::Straddle,
                a_mode: k,
                a_extent: ak,
                b_leaf: j,
                b_shape: s,
                b_stride: d,
                x: usage[k],
            });
        }
        k += 1;
    }
    if n > 1 {
        ctry!(out.push(n, ctry!(mul(r, a.d[m - 1], "composition stride"))));
    }
    out.build()
}
