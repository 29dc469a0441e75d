//! `coalesce_z`, `greatest_common_domain`, `layout_add`, `make_layout_like`,
//! `make_ordered_layout`: the operations of PyCuTe (2026) and CuTe C++ that build layouts from the
//! shapes and stride orders of others.

use super::flat_modes::{Modes, must};
use crate::const_try::ctry;
use crate::tuple::MAX_LEAVES;
use crate::{DynLayout, DynTuple, LayoutError};

const fn gcd(a: i128, b: i128) -> i128 {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

/// Stable order of `0..n` by `key` ascending.
const fn order_by(key: &[i64; MAX_LEAVES], n: usize) -> [usize; MAX_LEAVES] {
    let mut ord = [0usize; MAX_LEAVES];
    let mut i = 0;
    while i < n {
        ord[i] = i;
        i += 1;
    }
    let mut i = 1;
    while i < n {
        let mut j = i;
        while j > 0 && key[ord[j - 1]] > key[ord[j]] {
            let t = ord[j - 1];
            ord[j - 1] = ord[j];
            ord[j] = t;
            j -= 1;
        }
        i += 1;
    }
    ord
}

/// Compact strides for `shape` (flat leaves `s`) visiting the leaves in the order `ord` (the
/// first `m` entries); leaves not in `ord[..m]` get stride 0.
const fn compact_in_order(
    shape: &DynTuple,
    ord: &[usize; MAX_LEAVES],
    m: usize,
) -> Result<DynLayout, LayoutError> {
    let s = shape.leaves();
    let mut stride = *shape;
    let d = stride.leaves_mut();
    let mut i = 0;
    while i < d.len() {
        d[i] = 0;
        i += 1;
    }
    let mut cur: i64 = 1;
    let mut i = 0;
    while i < m {
        d[ord[i]] = cur;
        cur = match cur.checked_mul(s[ord[i]]) {
            Some(v) => v,
            None => {
                return Err(LayoutError::Overflow {
                    what: "compact strides",
                });
            }
        };
        i += 1;
    }
    DynLayout::new(shape, &stride)
}

impl DynLayout {
    /// PyCuTe's `coalesce_z(L)`: [`coalesce`](DynLayout::coalesce), except that a trailing
    /// extent-1 leaf of `L` that does not merge is kept, so the result equals `L` as a function
    /// on all non-negative integers (past `size(L)` too, where `L` extends through its last mode).
    ///
    /// # Postconditions
    /// `size(R) == size(L)`, depth ≤ 1, `R(i) == L(i)` for every `i ≥ 0`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(2,1,6,1):(1,7,8,0)".parse().unwrap();
    /// assert_eq!(l.coalesce_z().to_string(), "(2,6,1):(1,8,0)");
    /// assert_eq!(l.coalesce().to_string(), "(2,6):(1,8)");
    /// ```
    pub const fn coalesce_z(&self) -> DynLayout {
        must(Modes::of(self).coalesced_ext().build())
    }

    /// PyCuTe's `greatest_common_domain(A, B)`: a layout whose shape is the ordered
    /// factorization of the common divisor that the shapes of `A` and `B` share in order (only
    /// the shapes are read), and whose strides are the 1-D indices at which each common factor
    /// starts. `1:0` when no aligned common factor exists (`(5,3)` against `(3,5)`).
    ///
    /// # Postconditions
    /// Symmetric; depth ≤ 1; `size(R)` divides `gcd(size(A), size(B))`; each factor
    /// `s_k : d_k` of `R` lies inside one leaf of each shape: the leaf of `A` holding index `d_k`
    /// spans the indices `d_k, d_k + d_k', …` of the factor, so `A` and `B` are linear on `R`'s
    /// lattice (`composition(A, R)` needs no divisibility check).
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(5,3,4):(1,5,15)".parse().unwrap();
    /// let b: DynLayout = "(10,6):(1,10)".parse().unwrap();
    /// assert_eq!(a.greatest_common_domain(&b).to_string(), "(5,2):(1,30)");
    /// let c: DynLayout = "(6,35):(1,6)".parse().unwrap();
    /// let d: DynLayout = "(15,14):(1,15)".parse().unwrap();
    /// assert_eq!(c.greatest_common_domain(&d).to_string(), "(3,7):(1,30)");
    /// ```
    pub const fn greatest_common_domain(&self, other: &DynLayout) -> DynLayout {
        let (a0, b0) = (self.shape_leaves(), other.shape_leaves());
        let mut a = [0i128; MAX_LEAVES];
        let mut b = [0i128; MAX_LEAVES];
        let mut k = 0;
        while k < a0.len() {
            a[k] = a0[k] as i128;
            k += 1;
        }
        let mut k = 0;
        while k < b0.len() {
            b[k] = b0[k] as i128;
            k += 1;
        }
        let (na, nb) = (a0.len(), b0.len());
        let mut out = Modes::EMPTY;
        let (mut pa, mut pb): (i128, i128) = (1, 1);
        let (mut i, mut j) = (0usize, 0usize);
        while i < na && j < nb {
            if a[i] == 1 {
                i += 1;
                continue;
            }
            if b[j] == 1 {
                j += 1;
                continue;
            }
            let lcm = pa / gcd(pa, pb) * pb;
            let (ra, rb) = (lcm / pa, lcm / pb);
            if a[i] % ra == 0 && b[j] % rb == 0 {
                let g = gcd(a[i] / ra, b[j] / rb);
                if g != 1 {
                    // g ≤ a leaf and lcm·g ≤ the size of each shape: both fit an i64
                    if out.push(g as i64, lcm as i64).is_err() {
                        break;
                    }
                    a[i] /= ra * g;
                    b[j] /= rb * g;
                    pa = lcm * g;
                    pb = pa;
                    continue;
                }
            }
            // advance the leaf that ends first (both when neither end divides the other)
            let (ea, eb) = (pa * a[i], pb * b[j]);
            let (qa, qb) = (eb % ea == 0, ea % eb == 0);
            if qa || !qb {
                pa = ea;
                i += 1;
            }
            if qb || !qa {
                pb = eb;
                j += 1;
            }
        }
        must(out.build())
    }

    /// PyCuTe's `layout_add(A, B)`: the layout `R` with `R(i) == A(i) + B(i)` for every
    /// `i < size(A)`, when one exists on the greatest common domain of the coalesced layouts;
    /// the result is coalesced.
    ///
    /// # Preconditions
    /// `size(A) == size(B)`, and the coalesced shapes share a common domain of that size.
    ///
    /// # Postconditions
    /// `size(R) == size(A)`; `R(i) == A(i) + B(i)` for `i < size(R)`; symmetric.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let a: DynLayout = "(4,3):(1,4)".parse().unwrap();
    /// let b: DynLayout = "(4,3):(3,1)".parse().unwrap();
    /// assert_eq!(a.layout_add(&b).unwrap().to_string(), "(4,3):(4,5)");
    /// let c: DynLayout = "(5,3,4):(1,5,15)".parse().unwrap();
    /// let d: DynLayout = "(10,6):(1,10)".parse().unwrap();
    /// assert_eq!(c.layout_add(&d).unwrap().to_string(), "60:2");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::Precondition`] naming the two sizes, or the size of the common domain and
    /// of `A`; [`LayoutError::Overflow`].
    pub const fn layout_add(&self, other: &DynLayout) -> Result<DynLayout, LayoutError> {
        if self.size() != other.size() {
            return Err(LayoutError::Precondition {
                what: "layout_add: the sizes differ ({a} and {b})",
                a: self.size(),
                b: other.size(),
            });
        }
        let (a, b) = (self.coalesce(), other.coalesce());
        let g = a.greatest_common_domain(&b);
        if g.size() != a.size() {
            return Err(LayoutError::Precondition {
                what: "layout_add: the coalesced layouts share a common domain of size {a} only, not their size {b}",
                a: g.size(),
                b: a.size(),
            });
        }
        let mut stride = g.stride();
        let d = stride.leaves_mut();
        let mut k = 0;
        while k < d.len() {
            let i = d[k];
            d[k] = match a.offset(i).checked_add(b.offset(i)) {
                Some(v) => v,
                None => return Err(LayoutError::Overflow { what: "layout_add" }),
            };
            k += 1;
        }
        Ok(ctry!(DynLayout::new(&g.shape(), &stride)).coalesce())
    }

    /// CuTe's `make_layout_like(L)`: `L`'s shape with compact strides, the leaves numbered in
    /// the order of `L`'s strides by magnitude (stable: ties keep their order); leaves of stride
    /// 0 or extent 1 (which carry no position) get stride 0, so the operation is idempotent.
    ///
    /// # Postconditions
    /// Same shape; the leaves of non-zero stride form a compact layout; idempotent.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(4,8):(100,1)".parse().unwrap();
    /// assert_eq!(l.make_layout_like().unwrap().to_string(), "(4,8):(8,1)");
    /// let z: DynLayout = "(2,3,4,5):(0,42,4,0)".parse().unwrap();
    /// assert_eq!(z.make_layout_like().unwrap().to_string(), "(2,3,4,5):(0,4,1,0)");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::Overflow`] (cannot happen for a valid layout, whose size fits).
    pub const fn make_layout_like(&self) -> Result<DynLayout, LayoutError> {
        let (s, d) = (self.shape_leaves(), self.stride_leaves());
        let mut key = [0i64; MAX_LEAVES];
        let mut k = 0;
        while k < d.len() {
            // extent-1 leaves carry no position: pinned to 0 like stride-0 leaves
            key[k] = if s[k] == 1 { 0 } else { d[k].saturating_abs() };
            k += 1;
        }
        let ord = order_by(&key, d.len());
        // the zero strides sort first: skip them
        let mut z = 0;
        while z < d.len() && key[ord[z]] == 0 {
            z += 1;
        }
        let mut rest = [0usize; MAX_LEAVES];
        let mut k = z;
        while k < d.len() {
            rest[k - z] = ord[k];
            k += 1;
        }
        compact_in_order(&self.shape(), &rest, d.len() - z)
    }

    /// CuTe's `make_ordered_layout(shape, order)`: compact strides for `shape`, the leaves
    /// numbered in ascending order of the congruent `order` (stable for ties).
    ///
    /// ```
    /// use layout::{DynLayout, DynTuple};
    /// let s: DynTuple = "(2,3,4,2)".parse().unwrap();
    /// let o: DynTuple = "(0,2,3,0)".parse().unwrap();
    /// assert_eq!(DynLayout::make_ordered_layout(&s, &o).unwrap().to_string(), "(2,3,4,2):(1,4,12,2)");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::Precondition`] when `shape` and `order` are not congruent (numbers: their
    /// leaf counts); the errors of [`DynLayout::new`] for the shape.
    pub const fn make_ordered_layout(
        shape: &DynTuple,
        order: &DynTuple,
    ) -> Result<DynLayout, LayoutError> {
        if !shape.congruent(order) {
            return Err(LayoutError::Precondition {
                what: "make_ordered_layout: the shape ({a} leaves) and the order ({b} leaves) are not congruent",
                a: shape.leaves().len() as i64,
                b: order.leaves().len() as i64,
            });
        }
        let o = order.leaves();
        let mut key = [0i64; MAX_LEAVES];
        let mut k = 0;
        while k < o.len() {
            key[k] = o[k];
            k += 1;
        }
        let ord = order_by(&key, o.len());
        compact_in_order(shape, &ord, o.len())
    }
}
