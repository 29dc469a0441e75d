//! [`DynLayout`]: a layout whose structure is known only at run time.

use crate::const_try::ctry;
use crate::tuple::{CLOSE, LEAF, MAX_LEAVES, MAX_TOKENS, OPEN, Profile, write_profiled};
use crate::{DynTuple, LayoutError};
use core::fmt;

/// A run-time layout: a hierarchical shape and a congruent stride, heap-free.
///
/// Holds at most [`MAX_LEAVES`] leaves. Every value of this type has been validated: shape and
/// stride are congruent, every extent is positive, and `size`, `cosize` and every offset of the
/// domain fit in `i64` — so the accessors never fail and never overflow.
///
/// All operations are `const fn`: static layouts compute their associated consts with this same
/// code, and the `layout!` macro checks its input with it.
///
/// ```
/// use layout::DynLayout;
/// let l: DynLayout = "((2,3),(2,4)):((1,4),(2,12))".parse().unwrap();
/// assert_eq!(l.size(), 48);
/// assert_eq!(l.cosize(), 48);
/// assert_eq!(l.offset(5), 1 + 2 * 4); // index 5 = coordinate ((1,2),(0,0))
/// assert_eq!(l.to_string(), "((2,3),(2,4)):((1,4),(2,12))");
/// ```
#[derive(Clone, Copy)]
pub struct DynLayout {
    profile: Profile,
    shape: [i64; MAX_LEAVES],
    stride: [i64; MAX_LEAVES],
    n: usize,
}

/// A layout assembled piece by piece — opening and closing tuples, appending whole layouts as
/// modes — without holding the pieces: the algebra's results are built this way, so an
/// operation keeps one layout's worth of state on its stack instead of an array of parts
/// (a `DynLayout` is ~600 bytes; 32 parts were 20 KB).
///
/// Validated once, by [`Builder::build`], with every invariant of [`DynLayout::new`].
#[derive(Clone, Copy)]
pub(crate) struct Builder {
    toks: [u8; MAX_TOKENS],
    nt: usize,
    shape: [i64; MAX_LEAVES],
    stride: [i64; MAX_LEAVES],
    n: usize,
}

impl Builder {
    /// Nothing yet: the first piece pushed (or tuple opened) is the whole result.
    pub(crate) const EMPTY: Builder = Builder {
        toks: [0; MAX_TOKENS],
        nt: 0,
        shape: [0; MAX_LEAVES],
        stride: [0; MAX_LEAVES],
        n: 0,
    };

    /// An open tuple, to be closed by [`Builder::finish_tuple`].
    pub(crate) const fn tuple() -> Builder {
        let mut b = Builder::EMPTY;
        b.toks[0] = OPEN;
        b.nt = 1;
        b
    }

    const fn token(&mut self, t: u8) -> Result<(), LayoutError> {
        if self.nt == MAX_TOKENS {
            return Err(LayoutError::TooComplex {
                needed: MAX_TOKENS + 1,
            });
        }
        self.toks[self.nt] = t;
        self.nt += 1;
        Ok(())
    }

    /// Open a nested tuple.
    pub(crate) const fn open(&mut self) -> Result<(), LayoutError> {
        self.token(OPEN)
    }

    /// Close the innermost open tuple.
    pub(crate) const fn close(&mut self) -> Result<(), LayoutError> {
        self.token(CLOSE)
    }

    /// Append `l` as one mode (its nesting kept).
    pub(crate) const fn push(&mut self, l: &DynLayout) -> Result<(), LayoutError> {
        let toks = l.profile.tokens();
        if self.nt + toks.len() > MAX_TOKENS {
            return Err(LayoutError::TooComplex {
                needed: self.nt + toks.len(),
            });
        }
        if self.n + l.n > MAX_LEAVES {
            return Err(LayoutError::TooManyLeaves {
                needed: self.n + l.n,
            });
        }
        let mut i = 0;
        while i < toks.len() {
            self.toks[self.nt + i] = toks[i];
            i += 1;
        }
        self.nt += toks.len();
        let mut j = 0;
        while j < l.n {
            self.shape[self.n + j] = l.shape[j];
            self.stride[self.n + j] = l.stride[j];
            j += 1;
        }
        self.n += l.n;
        Ok(())
    }

    /// Append the top-level modes of `l` one by one (`l` itself when it is an integer-shaped
    /// layout).
    pub(crate) const fn push_modes(&mut self, l: &DynLayout) -> Result<(), LayoutError> {
        if l.profile.is_leaf() {
            return self.push(l);
        }
        let mut i = 0;
        while i < l.rank() {
            ctry!(self.push(&ctry!(l.mode(i))));
            i += 1;
        }
        Ok(())
    }

    /// The layout built so far (every tuple closed), validated.
    pub(crate) const fn build(&self) -> Result<DynLayout, LayoutError> {
        DynLayout::from_flat_parts(
            Profile::from_tokens(self.toks, self.nt),
            self.shape.split_at(self.n).0,
            self.stride.split_at(self.n).0,
        )
    }

    /// Close the tuple opened by [`Builder::tuple`] and build.
    pub(crate) const fn finish_tuple(mut self) -> Result<DynLayout, LayoutError> {
        ctry!(self.close());
        self.build()
    }
}

impl DynLayout {
    /// Build a layout from a shape and a stride, checking every invariant of the type.
    ///
    /// # Errors
    /// [`LayoutError::NotCongruent`] when the profiles differ, [`LayoutError::NonPositiveExtent`]
    /// for an extent ≤ 0, [`LayoutError::Overflow`] when the size, cosize or an offset does not fit
    /// in `i64`.
    pub const fn new(shape: &DynTuple, stride: &DynTuple) -> Result<DynLayout, LayoutError> {
        if !shape.congruent(stride) {
            return Err(LayoutError::NotCongruent {
                shape_leaves: shape.n,
                stride_leaves: stride.n,
            });
        }
        let l = DynLayout {
            profile: shape.profile,
            shape: shape.vals,
            stride: stride.vals,
            n: shape.n,
        };
        ctry!(l.validate());
        Ok(l)
    }

    /// Check the invariants of the type on possibly unvalidated parts.
    const fn validate(&self) -> Result<(), LayoutError> {
        let mut size: i64 = 1;
        let mut lo: i64 = 0;
        let mut hi: i64 = 0;
        let mut i = 0;
        while i < self.n {
            let s = self.shape[i];
            if s <= 0 {
                return Err(LayoutError::NonPositiveExtent { leaf: i, extent: s });
            }
            size = match size.checked_mul(s) {
                Some(v) => v,
                None => return Err(LayoutError::Overflow { what: "size" }),
            };
            let span = match (s - 1).checked_mul(self.stride[i]) {
                Some(v) => v,
                None => return Err(LayoutError::Overflow { what: "cosize" }),
            };
            if span < 0 {
                lo = match lo.checked_add(span) {
                    Some(v) => v,
                    None => return Err(LayoutError::Overflow { what: "cosize" }),
                };
            } else {
                hi = match hi.checked_add(span) {
                    Some(v) => v,
                    None => return Err(LayoutError::Overflow { what: "cosize" }),
                };
            }
            i += 1;
        }
        match hi.checked_sub(lo) {
            Some(v) if v < i64::MAX => Ok(()),
            _ => Err(LayoutError::Overflow { what: "cosize" }),
        }
    }

    /// Build from a profile and flat shape/stride values; validates.
    pub(crate) const fn from_flat_parts(
        profile: Profile,
        shape: &[i64],
        stride: &[i64],
    ) -> Result<DynLayout, LayoutError> {
        if shape.len() != stride.len() || shape.len() != profile.leaves() {
            return Err(LayoutError::NotCongruent {
                shape_leaves: shape.len(),
                stride_leaves: stride.len(),
            });
        }
        let s = DynTuple::from_profile(profile, shape);
        let d = DynTuple::from_profile(profile, stride);
        DynLayout::new(&s, &d)
    }

    /// The flat (depth-1) layout `(s0,s1,…):(d0,d1,…)`.
    pub const fn from_flat(shape: &[i64], stride: &[i64]) -> Result<DynLayout, LayoutError> {
        let profile = ctry!(Profile::flat(shape.len()));
        DynLayout::from_flat_parts(profile, shape, stride)
    }

    /// The flat layout of a strided array in the tensor vocabulary: `usize` extents and
    /// `isize` strides (in elements), as ndarray and NumPy give them; `(s0,s1,…):(d0,d1,…)`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let (m, n, ld) = (100usize, 60usize, 104isize);
    /// let l = DynLayout::strided(&[m, n], &[1, ld]).unwrap(); // column-major, padded
    /// assert_eq!(l.to_string(), "(100,60):(1,104)");
    /// assert!(DynLayout::strided(&[usize::MAX], &[1]).is_err());
    /// ```
    ///
    /// # Errors
    /// Shape and strides of different lengths ([`LayoutError::NotCongruent`]); an extent past
    /// `i64::MAX` ([`LayoutError::Overflow`]); as [`DynLayout::new`] (a zero extent, more than
    /// [`MAX_LEAVES`](crate::MAX_LEAVES) axes, offsets that overflow).
    pub const fn strided(shape: &[usize], stride: &[isize]) -> Result<DynLayout, LayoutError> {
        if shape.len() != stride.len() {
            return Err(LayoutError::NotCongruent {
                shape_leaves: shape.len(),
                stride_leaves: stride.len(),
            });
        }
        if shape.len() > crate::MAX_LEAVES {
            return Err(LayoutError::TooManyLeaves {
                needed: shape.len(),
            });
        }
        let mut s = [0i64; crate::MAX_LEAVES];
        let mut d = [0i64; crate::MAX_LEAVES];
        let mut i = 0;
        while i < shape.len() {
            if shape[i] > i64::MAX as usize {
                return Err(LayoutError::Overflow { what: "extent" });
            }
            s[i] = shape[i] as i64;
            // isize is at most 64 bits on every target the crate builds for
            d[i] = stride[i] as i64;
            i += 1;
        }
        let (s, _) = s.split_at(shape.len());
        let (d, _) = d.split_at(shape.len());
        DynLayout::from_flat(s, d)
    }

    /// The rank-0-style integer layout `s:d`.
    pub const fn leaf(shape: i64, stride: i64) -> Result<DynLayout, LayoutError> {
        DynLayout::new(&DynTuple::leaf(shape), &DynTuple::leaf(stride))
    }

    /// The compact column-major layout of `shape` (CuTe's default, `LayoutLeft`): strides are
    /// the exclusive prefix products of the flattened shape, left to right.
    ///
    /// ```
    /// use layout::{DynLayout, DynTuple};
    /// let s: DynTuple = "(2,(3,4))".parse().unwrap();
    /// assert_eq!(DynLayout::col_major(&s).unwrap().to_string(), "(2,(3,4)):(1,(2,6))");
    /// ```
    pub const fn col_major(shape: &DynTuple) -> Result<DynLayout, LayoutError> {
        let mut stride = *shape;
        let mut p: i64 = 1;
        let mut i = 0;
        while i < shape.n {
            stride.vals[i] = p;
            p = match p.checked_mul(shape.vals[i]) {
                Some(v) => v,
                None => return Err(LayoutError::Overflow { what: "size" }),
            };
            i += 1;
        }
        DynLayout::new(shape, &stride)
    }

    /// The compact row-major layout of `shape` (`LayoutRight`): prefix products right to left
    /// over the flattened shape.
    ///
    /// ```
    /// use layout::{DynLayout, DynTuple};
    /// let s: DynTuple = "(2,(2,2))".parse().unwrap();
    /// assert_eq!(DynLayout::row_major(&s).unwrap().to_string(), "(2,(2,2)):(4,(2,1))");
    /// ```
    pub const fn row_major(shape: &DynTuple) -> Result<DynLayout, LayoutError> {
        let mut stride = *shape;
        let mut p: i64 = 1;
        let mut i = shape.n;
        while i > 0 {
            i -= 1;
            stride.vals[i] = p;
            p = match p.checked_mul(shape.vals[i]) {
                Some(v) => v,
                None => return Err(LayoutError::Overflow { what: "size" }),
            };
        }
        DynLayout::new(shape, &stride)
    }

    /// The shape.
    pub const fn shape(&self) -> DynTuple {
        DynTuple::from_profile(self.profile, self.shape_leaves())
    }

    /// The stride.
    pub const fn stride(&self) -> DynTuple {
        DynTuple::from_profile(self.profile, self.stride_leaves())
    }

    /// The flattened shape values.
    #[inline]
    pub const fn shape_leaves(&self) -> &[i64] {
        self.shape.split_at(self.n).0
    }

    /// The flattened stride values.
    #[inline]
    pub const fn stride_leaves(&self) -> &[i64] {
        self.stride.split_at(self.n).0
    }

    /// The profile shared by shape and stride.
    #[inline]
    pub const fn profile(&self) -> &Profile {
        &self.profile
    }

    /// `true` when every top-level mode is one leaf (a single leaf, or a flat tuple such as
    /// `(4,8):(1,4)`): then a per-axis index is its leaf's coordinate. O(1): the profile's
    /// tokens are the leaves plus the two outer brackets exactly when no mode is nested.
    ///
    /// ```
    /// use layout::DynLayout;
    /// assert!("(4,8):(1,4)".parse::<DynLayout>().unwrap().is_flat());
    /// assert!("8:1".parse::<DynLayout>().unwrap().is_flat());
    /// assert!(!"((2,2),8):((1,2),4)".parse::<DynLayout>().unwrap().is_flat());
    /// ```
    #[inline(always)]
    pub const fn is_flat(&self) -> bool {
        let t = self.profile.token_count();
        t == 1 || t == self.n + 2
    }

    /// Number of leaves (modes of the flattened layout).
    #[inline]
    pub const fn leaf_count(&self) -> usize {
        self.n
    }

    /// Number of elements of the domain: the product of the shape.
    pub const fn size(&self) -> i64 {
        let mut p = 1;
        let mut i = 0;
        while i < self.n {
            p *= self.shape[i];
            i += 1;
        }
        p
    }

    /// CuTe's cosize: `1 + Σ (sᵢ-1)·|dᵢ|`, the length of the codomain interval the layout spans.
    /// For non-negative strides this is `L(size-1) + 1`.
    pub const fn cosize(&self) -> i64 {
        let mut c = 1;
        let mut i = 0;
        while i < self.n {
            c += (self.shape[i] - 1) * self.stride[i].abs();
            i += 1;
        }
        c
    }

    /// The smallest and largest offset of the domain (negative strides give negative offsets).
    pub const fn offset_range(&self) -> (i64, i64) {
        let mut lo = 0;
        let mut hi = 0;
        let mut i = 0;
        while i < self.n {
            let span = (self.shape[i] - 1) * self.stride[i];
            if span < 0 {
                lo += span;
            } else {
                hi += span;
            }
            i += 1;
        }
        (lo, hi)
    }

    /// Number of top-level modes (1 for an integer-shaped layout).
    pub const fn rank(&self) -> usize {
        self.profile.rank()
    }

    /// Nesting depth of the shape.
    pub const fn depth(&self) -> usize {
        self.profile.depth()
    }

    /// The offset of 1-D index `i` (colexicographic: leftmost leaf fastest). The last leaf takes
    /// the undivided quotient, so the layout extends naturally past `size` as in CuTe.
    ///
    /// Domain: every `i64`. Within `[0, size)` the result is exact (it cannot overflow: checked
    /// at construction). Past the domain (the natural extension, or a negative `i`) only the
    /// last leaf's term `quotient · stride` can leave `i64`; when it or the final sum does, the
    /// result **saturates** to `i64::MAX` or `i64::MIN` (the sign of the true value) instead
    /// of wrapping or panicking. [`DynLayout::try_offset`] refuses indices outside `[0, size)`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "2:2".parse().unwrap();
    /// assert_eq!(l.offset(5), 10); // natural extension
    /// assert_eq!(l.offset(i64::MAX), i64::MAX); // saturated
    /// assert!(l.try_offset(i64::MAX).is_err());
    /// ```
    #[inline(always)]
    #[doc(alias = "crd2idx")]
    pub const fn offset(&self, i: i64) -> i64 {
        let mut rest = i;
        let mut off = 0;
        let mut k = 0;
        while k + 1 < self.n {
            let s = self.shape[k];
            off += (rest % s) * self.stride[k];
            rest /= s;
            k += 1;
        }
        if self.n > 0 {
            let d = self.stride[self.n - 1];
            // |off| ≤ cosize here; only the last term can leave i64 (past the domain)
            off = match rest.checked_mul(d) {
                Some(t) => off.saturating_add(t),
                None => {
                    // exact in i128 (|rest·d| < 2^126), then clamped
                    let v = off as i128 + rest as i128 * d as i128;
                    if v > i64::MAX as i128 {
                        i64::MAX
                    } else if v < i64::MIN as i128 {
                        i64::MIN
                    } else {
                        v as i64
                    }
                }
            };
        }
        off
    }

    /// The offset of 1-D index `i`, refusing indices outside `[0, size)`.
    pub const fn try_offset(&self, i: i64) -> Result<i64, LayoutError> {
        if i < 0 || i >= self.size() {
            return Err(LayoutError::IndexOutOfRange {
                index: i,
                size: self.size(),
            });
        }
        Ok(self.offset(i))
    }

    /// The offset of a hierarchical coordinate: a 1-D index, a per-mode coordinate or a fully
    /// hierarchical one (any coordinate weakly congruent with the shape). Each integer of the
    /// coordinate is distributed colexicographically over the sub-shape it stands for and must lie
    /// inside that sub-shape.
    ///
    /// ```
    /// use layout::{DynLayout, DynTuple};
    /// let l: DynLayout = "(3,(2,3)):(3,(12,1))".parse().unwrap();
    /// for c in ["16", "(1,5)", "(1,(1,2))"] {
    ///     let c: DynTuple = c.parse().unwrap();
    ///     assert_eq!(l.offset_of(&c), Ok(17));
    /// }
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::CoordinateMismatch`] when the coordinate's nesting does not fit the shape,
    /// [`LayoutError::CoordinateOutOfRange`] / [`LayoutError::IndexOutOfRange`] when it lies outside.
    #[doc(alias = "crd2idx")]
    pub const fn offset_of(&self, coord: &DynTuple) -> Result<i64, LayoutError> {
        if !coord.weakly_congruent(&self.shape()) {
            return Err(LayoutError::CoordinateMismatch {
                coord_leaves: coord.n,
                shape_leaves: self.n,
            });
        }
        // Walk both token strings; a coordinate leaf covers a whole shape subtree.
        let ct = coord.profile.tokens();
        let st = self.profile.tokens();
        let (mut ci, mut si) = (0usize, 0usize);
        let (mut cl, mut sl) = (0usize, 0usize);
        let mut off = 0i64;
        while ci < ct.len() {
            if ct[ci] == LEAF {
                // the subtree of the shape starting at si
                let first = sl;
                let mut depth = 0usize;
                loop {
                    match st[si] {
                        OPEN => depth += 1,
                        CLOSE => depth -= 1,
                        _ => sl += 1,
                    }
                    si += 1;
                    if depth == 0 {
                        break;
                    }
                }
                let c = coord.vals[cl];
                let mut sz: i64 = 1;
                let mut k = first;
                while k < sl {
                    sz *= self.shape[k];
                    k += 1;
                }
                if c < 0 || c >= sz {
                    if sl - first == 1 {
                        return Err(LayoutError::CoordinateOutOfRange {
                            leaf: first,
                            coord: c,
                            extent: sz,
                        });
                    }
                    return Err(LayoutError::IndexOutOfRange { index: c, size: sz });
                }
                let mut rest = c;
                let mut k = first;
                while k < sl {
                    off += (rest % self.shape[k]) * self.stride[k];
                    rest /= self.shape[k];
                    k += 1;
                }
                cl += 1;
            } else {
                si += 1;
            }
            ci += 1;
        }
        Ok(off)
    }

    /// The coordinate of 1-D index `i` in the shape (colexicographic), hierarchical like the shape.
    #[doc(alias = "idx2crd")]
    pub const fn index_to_coord(&self, i: i64) -> DynTuple {
        let mut c = self.shape();
        let mut rest = i;
        let mut k = 0;
        while k < self.n {
            if k + 1 < self.n {
                c.vals[k] = rest % self.shape[k];
                rest /= self.shape[k];
            } else {
                c.vals[k] = rest;
            }
            k += 1;
        }
        c
    }

    /// The 1-D index whose offset is `offset`, for an injective layout (the first one found
    /// otherwise); `Ok(None)` when no coordinate of the domain maps there.
    ///
    /// A depth-first search over the modes, largest stride first, pruned by the offsets the
    /// remaining modes can reach: one step per mode when each stride is at least the span of the
    /// smaller ones (the usual case), more for interleaved strides, and never more than
    /// [`INDEX_SEARCH_CAP`](Self::INDEX_SEARCH_CAP) steps.
    ///
    /// ```
    /// use layout::DynLayout;
    /// let l: DynLayout = "(3,2):(2,3)".parse().unwrap(); // offsets 0,2,4,3,5,7
    /// assert_eq!(l.index_of_offset(4), Ok(Some(2)));
    /// assert_eq!(l.index_of_offset(7), Ok(Some(5)));
    /// assert_eq!(l.index_of_offset(1), Ok(None));
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::TooLargeToScan`] when the search would take more than
    /// [`INDEX_SEARCH_CAP`](Self::INDEX_SEARCH_CAP) steps.
    pub fn index_of_offset(&self, offset: i64) -> Result<Option<i64>, LayoutError> {
        // outside the offset range nothing maps there; inside it, the mirrored target below
        // stays in `[offset, offset - lo]`, which fits (validated cosize)
        let (lo, hi) = self.offset_range();
        if offset < lo || offset > hi {
            return Ok(None);
        }
        // Depth-first search over the modes, largest |stride| first, pruned by the range the
        // remaining modes can still reach. Negative strides are mirrored first.
        let mut order = [0usize; MAX_LEAVES];
        let mut target = offset;
        let mut m = 0;
        for k in 0..self.n {
            if self.shape[k] > 1 {
                order[m] = k;
                m += 1;
                if self.stride[k] < 0 {
                    target -= (self.shape[k] - 1) * self.stride[k];
                }
            }
        }
        let order = &mut order[..m];
        order.sort_unstable_by_key(|&k| core::cmp::Reverse(self.stride[k].abs()));
        // reach[j] = max offset the modes order[j..] can add
        let mut reach = [0i64; MAX_LEAVES + 1];
        for j in (0..m).rev() {
            let k = order[j];
            reach[j] = reach[j + 1] + (self.shape[k] - 1) * self.stride[k].abs();
        }
        let mut coord = [0i64; MAX_LEAVES];
        let mut budget = Self::INDEX_SEARCH_CAP;
        if !self.search(order, &reach, 0, target, &mut coord, &mut budget)? {
            return Ok(None);
        }
        // translate mirrored coordinates back and linearise colexicographically
        let mut idx = 0;
        let mut k = self.n;
        while k > 0 {
            k -= 1;
            let mut c = coord[k];
            if self.stride[k] < 0 {
                c = self.shape[k] - 1 - c;
            }
            idx = idx * self.shape[k] + c;
        }
        Ok(Some(idx))
    }

    /// The most search steps [`DynLayout::index_of_offset`] takes (2^22: milliseconds).
    pub const INDEX_SEARCH_CAP: i64 = 1 << 22;

    fn search(
        &self,
        order: &[usize],
        reach: &[i64],
        j: usize,
        rem: i64,
        coord: &mut [i64],
        budget: &mut i64,
    ) -> Result<bool, LayoutError> {
        *budget -= 1;
        if *budget < 0 {
            return Err(LayoutError::TooLargeToScan {
                what: "index of an offset",
                size: self.size(),
                cap: Self::INDEX_SEARCH_CAP,
            });
        }
        if j == order.len() {
            return Ok(rem == 0);
        }
        if rem < 0 || rem > reach[j] {
            return Ok(false);
        }
        let k = order[j];
        let d = self.stride[k].abs();
        if d == 0 {
            coord[k] = 0;
            return self.search(order, reach, j + 1, rem, coord, budget);
        }
        let mut c = (rem / d).min(self.shape[k] - 1);
        loop {
            if rem - c * d > reach[j + 1] {
                return Ok(false);
            }
            coord[k] = c;
            if self.search(order, reach, j + 1, rem - c * d, coord, budget)? {
                return Ok(true);
            }
            if c == 0 {
                return Ok(false);
            }
            c -= 1;
        }
    }

    /// Top-level mode `i` as a layout.
    pub const fn mode(&self, i: usize) -> Result<DynLayout, LayoutError> {
        let s = ctry!(self.shape().mode(i));
        let d = ctry!(self.stride().mode(i));
        DynLayout::new(&s, &d)
    }

    /// The layout made of the listed top-level modes, in that order (CuTe's `select`).
    pub const fn select(&self, modes: &[usize]) -> Result<DynLayout, LayoutError> {
        if modes.len() > MAX_LEAVES {
            return Err(LayoutError::TooManyLeaves {
                needed: modes.len(),
            });
        }
        let mut b = Builder::tuple();
        let mut i = 0;
        while i < modes.len() {
            ctry!(b.push(&ctry!(self.mode(modes[i]))));
            i += 1;
        }
        b.finish_tuple()
    }

    /// The empty layout `():()`.
    pub const EMPTY: DynLayout = DynLayout {
        profile: Profile::EMPTY,
        shape: [0; MAX_LEAVES],
        stride: [0; MAX_LEAVES],
        n: 0,
    };

    /// `(L0,L1,…)`: the layout whose modes are the given layouts (CuTe's `make_layout(L0, L1, …)`).
    #[doc(alias = "concat")]
    pub const fn make_layout(parts: &[DynLayout]) -> Result<DynLayout, LayoutError> {
        let mut b = Builder::tuple();
        let mut i = 0;
        while i < parts.len() {
            ctry!(b.push(&parts[i]));
            i += 1;
        }
        b.finish_tuple()
    }

    /// Add `mode` as a new last mode (an integer-shaped layout first becomes rank 1).
    pub const fn append(&self, mode: &DynLayout) -> Result<DynLayout, LayoutError> {
        let mut s = self.shape();
        let mut d = self.stride();
        ctry!(s.push_mode(&mode.shape()));
        ctry!(d.push_mode(&mode.stride()));
        DynLayout::new(&s, &d)
    }

    /// Add `mode` as a new first mode.
    pub const fn prepend(&self, mode: &DynLayout) -> Result<DynLayout, LayoutError> {
        let mut b = Builder::tuple();
        ctry!(b.push(mode));
        ctry!(b.push_modes(self));
        b.finish_tuple()
    }

    /// Nest modes `[begin, end)` into one mode (CuTe's `group<B,E>`).
    pub const fn group(&self, begin: usize, end: usize) -> Result<DynLayout, LayoutError> {
        let r = self.rank();
        if begin >= end || end > r {
            return Err(LayoutError::ModeOutOfRange { mode: end, rank: r });
        }
        let mut b = Builder::tuple();
        let mut i = 0;
        while i < r {
            if i == begin {
                ctry!(b.open());
            }
            ctry!(b.push(&ctry!(self.mode(i))));
            if i + 1 == end {
                ctry!(b.close());
            }
            i += 1;
        }
        b.finish_tuple()
    }

    /// Depth ≤ 1: all leaves as top-level modes; an integer-shaped layout stays as it is.
    pub const fn flatten(&self) -> DynLayout {
        if self.profile.is_leaf() {
            return *self;
        }
        match Profile::flat(self.n) {
            Ok(profile) => DynLayout { profile, ..*self },
            Err(_) => *self,
        }
    }

    /// Equal shapes and equal strides.
    pub const fn eq(&self, other: &DynLayout) -> bool {
        // the same profile (hence the same number of leaves) and the same leaves: what
        // comparing `shape()` and `stride()` as tuples says, without building them
        if !self.profile.eq(&other.profile) || self.n != other.n {
            return false;
        }
        let mut i = 0;
        while i < self.n {
            if self.shape[i] != other.shape[i] || self.stride[i] != other.stride[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Equal as functions on `[0, size)` (same size, same offset for every index).
    pub fn functionally_eq(&self, other: &DynLayout) -> bool {
        self.size() == other.size() && (0..self.size()).all(|i| self.offset(i) == other.offset(i))
    }
}

impl PartialEq for DynLayout {
    fn eq(&self, other: &Self) -> bool {
        DynLayout::eq(self, other)
    }
}
impl Eq for DynLayout {}

impl core::hash::Hash for DynLayout {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.shape().hash(state);
        self.stride().hash(state);
    }
}

impl fmt::Display for DynLayout {
    /// CuTe's text for run-time values: `((2,3),(2,4)):((1,4),(2,12))`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut leaf = |f: &mut fmt::Formatter<'_>, _: usize, v: i64| write!(f, "{v}");
        write_profiled(f, &self.profile, self.shape_leaves(), &mut leaf)?;
        f.write_str(":")?;
        write_profiled(f, &self.profile, self.stride_leaves(), &mut leaf)
    }
}

impl fmt::Debug for DynLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
