//! Run-time hierarchical integer tuples (CuTe's `IntTuple`), heap-free and `const`-friendly.
//!
//! A [`DynTuple`] is either a single integer (a *leaf*) or a tuple of `DynTuple`s. It is stored as
//! its flattened leaves plus a *profile*: the nesting written as a token string
//! (`(`, leaf, `)`). Two tuples are congruent exactly when their profiles are equal.
//!
//! Every operation here is a `const fn`. The same functions compute the associated consts of
//! static layouts, the checks of the `layout!` macro, and the run-time layout operations: one
//! source of truth for the arithmetic.

use crate::LayoutError;
use core::fmt;

/// The most leaves a run-time tuple or layout holds.
pub const MAX_LEAVES: usize = 32;
/// The most structure tokens (leaves plus opening and closing parentheses) a run-time tuple holds.
pub const MAX_TOKENS: usize = 96;

pub(crate) const LEAF: u8 = 0;
pub(crate) const OPEN: u8 = 1;
pub(crate) const CLOSE: u8 = 2;

/// The nesting structure of an integer tuple, without its values.
///
/// Two tuples are *congruent* when their profiles are equal.
#[derive(Clone, Copy)]
pub struct Profile {
    toks: [u8; MAX_TOKENS],
    len: usize,
}

impl Profile {
    /// The profile of a single integer.
    pub const LEAF: Profile = {
        let mut toks = [0u8; MAX_TOKENS];
        toks[0] = LEAF;
        Profile { toks, len: 1 }
    };

    /// The profile of the empty tuple `()`.
    pub const EMPTY: Profile = {
        let mut toks = [0u8; MAX_TOKENS];
        toks[0] = OPEN;
        toks[1] = CLOSE;
        Profile { toks, len: 2 }
    };

    /// The tokens of this profile.
    #[inline]
    pub(crate) const fn tokens(&self) -> &[u8] {
        self.toks.split_at(self.len).0
    }

    /// The number of tokens, without slicing (no bounds check on a hot path).
    #[inline(always)]
    pub(crate) const fn token_count(&self) -> usize {
        self.len
    }

    /// `true` when the two profiles are equal (the tuples are congruent).
    pub const fn eq(&self, other: &Profile) -> bool {
        if self.len != other.len {
            return false;
        }
        let mut i = 0;
        while i < self.len {
            if self.toks[i] != other.toks[i] {
                return false;
            }
            i += 1;
        }
        true
    }

    /// `true` for the profile of a single integer.
    #[inline]
    pub const fn is_leaf(&self) -> bool {
        self.len == 1
    }

    /// `true` for the profile of a pair of integers, `(a, b)`: a flat rank-2 shape.
    #[cfg_attr(not(feature = "std"), allow(dead_code))] // (read by the GEMM)
    #[inline]
    pub(crate) const fn is_flat_pair(&self) -> bool {
        self.len == 4
            && self.toks[0] == OPEN
            && self.toks[1] == LEAF
            && self.toks[2] == LEAF
            && self.toks[3] == CLOSE
    }

    /// Number of leaves.
    pub const fn leaves(&self) -> usize {
        let mut n = 0;
        let mut i = 0;
        while i < self.len {
            if self.toks[i] == LEAF {
                n += 1;
            }
            i += 1;
        }
        n
    }

    /// Number of top-level modes: 1 for a leaf.
    pub const fn rank(&self) -> usize {
        if self.is_leaf() {
            return 1;
        }
        let mut r = 0;
        let mut depth = 0usize;
        let mut i = 1;
        while i + 1 < self.len {
            match self.toks[i] {
                OPEN => {
                    if depth == 0 {
                        r += 1;
                    }
                    depth += 1;
                }
                CLOSE => depth -= 1,
                _ => {
                    if depth == 0 {
                        r += 1;
                    }
                }
            }
            i += 1;
        }
        r
    }

    /// Nesting depth: 0 for a leaf, `1 + max(depth(children))` for a tuple.
    pub const fn depth(&self) -> usize {
        let mut d = 0usize;
        let mut max = 0usize;
        let mut i = 0;
        while i < self.len {
            match self.toks[i] {
                OPEN => {
                    d += 1;
                    if d > max {
                        max = d;
                    }
                }
                CLOSE => d -= 1,
                _ => {}
            }
            i += 1;
        }
        max
    }

    /// The token range `[start, end)` and leaf range `[first, last)` of top-level mode `i`.
    /// For a leaf, mode 0 is the leaf itself.
    pub(crate) const fn mode_span(&self, mode: usize) -> Option<Span> {
        if self.is_leaf() {
            return if mode == 0 {
                Some(Span {
                    tok: (0, 1),
                    leaf: (0, 1),
                })
            } else {
                None
            };
        }
        let mut m = 0usize;
        let mut depth = 0usize;
        let mut leaves = 0usize;
        let mut i = 1;
        let mut start_tok = 0;
        let mut start_leaf = 0;
        while i + 1 < self.len {
            let t = self.toks[i];
            if depth == 0 {
                start_tok = i;
                start_leaf = leaves;
            }
            match t {
                OPEN => depth += 1,
                CLOSE => depth -= 1,
                _ => leaves += 1,
            }
            if depth == 0 {
                if m == mode {
                    return Some(Span {
                        tok: (start_tok, i + 1),
                        leaf: (start_leaf, leaves),
                    });
                }
                m += 1;
            }
            i += 1;
        }
        None
    }

    /// The profile with the given tokens (the caller keeps them well nested).
    pub(crate) const fn from_tokens(toks: [u8; MAX_TOKENS], len: usize) -> Profile {
        Profile { toks, len }
    }

    /// The profile made of tokens `[a, b)` of this one.
    pub(crate) const fn sub(&self, a: usize, b: usize) -> Profile {
        let mut toks = [0u8; MAX_TOKENS];
        let mut i = a;
        while i < b {
            toks[i - a] = self.toks[i];
            i += 1;
        }
        Profile { toks, len: b - a }
    }

    /// Add `child` as the last mode of this tuple profile.
    pub(crate) const fn wrap_push(&mut self, child: &Profile) -> Result<(), LayoutError> {
        if self.len + child.len > MAX_TOKENS {
            return Err(LayoutError::TooComplex {
                needed: self.len + child.len,
            });
        }
        self.len -= 1;
        let mut i = 0;
        while i < child.len {
            self.toks[self.len + i] = child.toks[i];
            i += 1;
        }
        self.len += child.len;
        self.toks[self.len] = CLOSE;
        self.len += 1;
        Ok(())
    }

    /// A flat tuple profile with `n` leaves: `(x,x,…)`.
    pub const fn flat(n: usize) -> Result<Profile, LayoutError> {
        if n > MAX_LEAVES {
            return Err(LayoutError::TooManyLeaves { needed: n });
        }
        let mut p = Profile::EMPTY;
        p.len = 1;
        let mut i = 0;
        while i < n {
            p.toks[p.len] = LEAF;
            p.len += 1;
            i += 1;
        }
        p.toks[p.len] = CLOSE;
        p.len += 1;
        Ok(p)
    }
}

impl PartialEq for Profile {
    fn eq(&self, other: &Self) -> bool {
        Profile::eq(self, other)
    }
}
impl Eq for Profile {}

impl fmt::Debug for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut prev_leafish = false;
        for &t in self.tokens() {
            match t {
                OPEN => {
                    if prev_leafish {
                        f.write_str(",")?;
                    }
                    f.write_str("(")?;
                    prev_leafish = false;
                }
                CLOSE => {
                    f.write_str(")")?;
                    prev_leafish = true;
                }
                _ => {
                    if prev_leafish {
                        f.write_str(",")?;
                    }
                    f.write_str("*")?;
                    prev_leafish = true;
                }
            }
        }
        Ok(())
    }
}

/// Token and leaf ranges of one mode inside a profile.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Span {
    pub tok: (usize, usize),
    pub leaf: (usize, usize),
}

/// A run-time hierarchical integer tuple: an integer, or a tuple of `DynTuple`s.
///
/// Heap-free: at most [`MAX_LEAVES`] leaves and [`MAX_TOKENS`] structure tokens. Build one with
/// [`DynTuple::leaf`], [`DynTuple::from_slice`], [`DynTuple::tuple`] or by parsing text:
///
/// ```
/// use layout::DynTuple;
/// let t: DynTuple = "(3,(2,3))".parse().unwrap();
/// assert_eq!(t.rank(), 2);
/// assert_eq!(t.depth(), 2);
/// assert_eq!(t.size(), Ok(18));
/// assert_eq!(t.mode(1).unwrap().to_string(), "(2,3)");
/// assert_eq!(t.flatten().to_string(), "(3,2,3)");
/// ```
#[derive(Clone, Copy)]
pub struct DynTuple {
    pub(crate) profile: Profile,
    pub(crate) vals: [i64; MAX_LEAVES],
    pub(crate) n: usize,
}

impl DynTuple {
    /// The empty tuple `()`.
    pub const EMPTY: DynTuple = DynTuple {
        profile: Profile::EMPTY,
        vals: [0; MAX_LEAVES],
        n: 0,
    };

    /// A single integer.
    pub const fn leaf(v: i64) -> DynTuple {
        let mut vals = [0; MAX_LEAVES];
        vals[0] = v;
        DynTuple {
            profile: Profile::LEAF,
            vals,
            n: 1,
        }
    }

    /// A flat tuple `(v0,v1,…)` of the given integers.
    pub const fn from_slice(v: &[i64]) -> Result<DynTuple, LayoutError> {
        let profile = match Profile::flat(v.len()) {
            Ok(p) => p,
            Err(e) => return Err(e),
        };
        let mut vals = [0; MAX_LEAVES];
        let mut i = 0;
        while i < v.len() {
            vals[i] = v[i];
            i += 1;
        }
        Ok(DynTuple {
            profile,
            vals,
            n: v.len(),
        })
    }

    /// A tuple whose modes are the given tuples.
    pub const fn tuple(children: &[DynTuple]) -> Result<DynTuple, LayoutError> {
        let mut t = DynTuple::EMPTY;
        let mut i = 0;
        while i < children.len() {
            if let Err(e) = t.push_mode(&children[i]) {
                return Err(e);
            }
            i += 1;
        }
        Ok(t)
    }

    /// Build from a profile and leaf values (`vals.len()` must equal the profile's leaf count).
    pub(crate) const fn from_profile(profile: Profile, v: &[i64]) -> DynTuple {
        let mut vals = [0; MAX_LEAVES];
        let mut i = 0;
        while i < v.len() {
            vals[i] = v[i];
            i += 1;
        }
        DynTuple {
            profile,
            vals,
            n: v.len(),
        }
    }

    /// Append `child` as a new last mode. A leaf first becomes the rank-1 tuple `(leaf)`.
    pub const fn push_mode(&mut self, child: &DynTuple) -> Result<(), LayoutError> {
        if self.n + child.n > MAX_LEAVES {
            return Err(LayoutError::TooManyLeaves {
                needed: self.n + child.n,
            });
        }
        if self.profile.is_leaf() {
            *self = match DynTuple::tuple(&[*self]) {
                Ok(t) => t,
                Err(e) => return Err(e),
            };
        }
        if let Err(e) = self.profile.wrap_push(&child.profile) {
            return Err(e);
        }
        let mut i = 0;
        while i < child.n {
            self.vals[self.n + i] = child.vals[i];
            i += 1;
        }
        self.n += child.n;
        Ok(())
    }

    /// The profile (nesting structure).
    pub const fn profile(&self) -> &Profile {
        &self.profile
    }

    /// The leaves in order (the flattened tuple).
    pub const fn leaves(&self) -> &[i64] {
        self.vals.split_at(self.n).0
    }

    /// Mutable access to the leaves.
    pub const fn leaves_mut(&mut self) -> &mut [i64] {
        self.vals.split_at_mut(self.n).0
    }

    /// `true` for a single integer.
    pub const fn is_leaf(&self) -> bool {
        self.profile.is_leaf()
    }

    /// The integer, when this is a leaf.
    pub const fn as_leaf(&self) -> Option<i64> {
        if self.is_leaf() {
            Some(self.vals[0])
        } else {
            None
        }
    }

    /// Number of top-level modes; 1 for a leaf.
    pub const fn rank(&self) -> usize {
        self.profile.rank()
    }

    /// Nesting depth; 0 for a leaf.
    pub const fn depth(&self) -> usize {
        self.profile.depth()
    }

    /// Product of all leaves (1 for the empty tuple), or an overflow error.
    pub const fn size(&self) -> Result<i64, LayoutError> {
        let mut p: i64 = 1;
        let mut i = 0;
        while i < self.n {
            p = match p.checked_mul(self.vals[i]) {
                Some(v) => v,
                None => return Err(LayoutError::Overflow { what: "size" }),
            };
            i += 1;
        }
        Ok(p)
    }

    /// The size of top-level mode `i` (`mode(i)?.size()` without building the mode): `None`
    /// past the rank or on overflow.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) const fn mode_size(&self, i: usize) -> Option<i64> {
        let Some(s) = self.profile.mode_span(i) else {
            return None;
        };
        let mut p: i64 = 1;
        let mut l = s.leaf.0;
        while l < s.leaf.1 {
            p = match p.checked_mul(self.vals[l]) {
                Some(v) => v,
                None => return None,
            };
            l += 1;
        }
        Some(p)
    }

    /// Top-level mode `i` (for a leaf, mode 0 is the leaf itself).
    pub const fn mode(&self, i: usize) -> Result<DynTuple, LayoutError> {
        match self.profile.mode_span(i) {
            Some(s) => Ok(self.span(s)),
            None => Err(LayoutError::ModeOutOfRange {
                mode: i,
                rank: self.rank(),
            }),
        }
    }

    pub(crate) const fn span(&self, s: Span) -> DynTuple {
        let profile = self.profile.sub(s.tok.0, s.tok.1);
        let mut vals = [0; MAX_LEAVES];
        let mut i = s.leaf.0;
        while i < s.leaf.1 {
            vals[i - s.leaf.0] = self.vals[i];
            i += 1;
        }
        DynTuple {
            profile,
            vals,
            n: s.leaf.1 - s.leaf.0,
        }
    }

    /// All leaves as one flat tuple; a leaf stays a leaf.
    pub const fn flatten(&self) -> DynTuple {
        if self.is_leaf() {
            return *self;
        }
        match Profile::flat(self.n) {
            Ok(profile) => DynTuple {
                profile,
                vals: self.vals,
                n: self.n,
            },
            Err(_) => *self, // unreachable: n <= MAX_LEAVES already
        }
    }

    /// Same hierarchical profile.
    pub const fn congruent(&self, other: &DynTuple) -> bool {
        self.profile.eq(&other.profile)
    }

    /// `self` is a coarsening of `other`: where `self` has an integer, `other` may have any
    /// subtree; where `self` has a tuple, `other` has a tuple of the same rank.
    pub const fn weakly_congruent(&self, other: &DynTuple) -> bool {
        profile_weakly_congruent(&self.profile, &other.profile)
    }

    /// `size(self) == size(other)` and every coordinate of `self` is a valid coordinate of
    /// `other`: an integer leaf of `self` matches a subtree of `other` of the same size.
    pub const fn compatible(&self, other: &DynTuple) -> bool {
        let (a, b) = match (self.size(), other.size()) {
            (Ok(a), Ok(b)) => (a, b),
            _ => return false,
        };
        if a != b {
            return false;
        }
        if self.is_leaf() {
            return true;
        }
        if other.is_leaf() || self.rank() != other.rank() {
            return false;
        }
        let mut i = 0;
        while i < self.rank() {
            let (x, y) = match (self.mode(i), other.mode(i)) {
                (Ok(x), Ok(y)) => (x, y),
                _ => return false,
            };
            if !x.compatible(&y) {
                return false;
            }
            i += 1;
        }
        true
    }

    /// Equal profile and equal leaves.
    pub const fn eq(&self, other: &DynTuple) -> bool {
        if !self.congruent(other) {
            return false;
        }
        let mut i = 0;
        while i < self.n {
            if self.vals[i] != other.vals[i] {
                return false;
            }
            i += 1;
        }
        true
    }
}

const fn profile_weakly_congruent(a: &Profile, b: &Profile) -> bool {
    if a.is_leaf() {
        return true;
    }
    if b.is_leaf() {
        return false;
    }
    let r = a.rank();
    if r != b.rank() {
        return false;
    }
    let mut i = 0;
    while i < r {
        let (sa, sb) = match (a.mode_span(i), b.mode_span(i)) {
            (Some(x), Some(y)) => (x, y),
            _ => return false,
        };
        if !profile_weakly_congruent(&a.sub(sa.tok.0, sa.tok.1), &b.sub(sb.tok.0, sb.tok.1)) {
            return false;
        }
        i += 1;
    }
    true
}

impl PartialEq for DynTuple {
    fn eq(&self, other: &Self) -> bool {
        DynTuple::eq(self, other)
    }
}
impl Eq for DynTuple {}

impl core::hash::Hash for DynTuple {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.profile.tokens().hash(state);
        self.leaves().hash(state);
    }
}

impl Default for DynTuple {
    /// The integer 0.
    fn default() -> Self {
        DynTuple::leaf(0)
    }
}

impl From<i64> for DynTuple {
    fn from(v: i64) -> Self {
        DynTuple::leaf(v)
    }
}

/// Write leaves following a profile, `(a,(b,c))`, each leaf through `leaf`.
pub(crate) fn write_profiled(
    f: &mut fmt::Formatter<'_>,
    profile: &Profile,
    vals: &[i64],
    leaf: &mut dyn FnMut(&mut fmt::Formatter<'_>, usize, i64) -> fmt::Result,
) -> fmt::Result {
    let mut k = 0;
    let mut need_comma = false;
    for &t in profile.tokens() {
        match t {
            OPEN => {
                if need_comma {
                    f.write_str(",")?;
                }
                f.write_str("(")?;
                need_comma = false;
            }
            CLOSE => {
                f.write_str(")")?;
                need_comma = true;
            }
            _ => {
                if need_comma {
                    f.write_str(",")?;
                }
                leaf(f, k, vals[k])?;
                k += 1;
                need_comma = true;
            }
        }
    }
    Ok(())
}

impl fmt::Display for DynTuple {
    /// CuTe's text: `(3,(2,3))`, a rank-1 tuple as `(8)`, a leaf as `8`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_profiled(f, &self.profile, self.leaves(), &mut |f, _, v| {
            write!(f, "{v}")
        })
    }
}

impl fmt::Debug for DynTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::DynTuple;
    use crate::DynLayout;

    /// `mode_size` against its definition, `mode(i)?.size()`, on nested tuples, leaves, modes
    /// past the rank and a size that overflows.
    #[test]
    fn mode_size_is_the_size_of_the_mode() {
        let big = i64::MAX / 2;
        for text in [
            "7",
            "(3,4)",
            "((2,3),(4,(5,6)))",
            "(1,(2,2,2),((3),4))",
            &std::format!("((4,{big}),3)"),
        ] {
            let t: DynTuple = text.parse().unwrap();
            for i in 0..t.rank() + 2 {
                let want = t.mode(i).ok().and_then(|m| m.size().ok());
                assert_eq!(t.mode_size(i), want, "{text} mode {i}");
            }
        }
    }

    /// `DynLayout::eq` compares fields; its definition compares the shape and stride tuples.
    #[test]
    fn layout_equality_is_tuple_equality() {
        let ls: std::vec::Vec<DynLayout> = [
            "(4,8):(1,4)",
            "(4,8):(8,1)",
            "(8,4):(1,8)",
            "((2,2),8):((1,2),4)",
            "(2,2,8):(1,2,4)",
            "((2,2),8):((1,2),5)",
            "(32):(1)",
            "32:1",
        ]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
        for a in &ls {
            for b in &ls {
                let want = a.shape().eq(&b.shape()) && a.stride().eq(&b.stride());
                assert_eq!(a == b, want, "{a} == {b}");
            }
        }
    }
}
