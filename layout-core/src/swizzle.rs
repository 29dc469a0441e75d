//! Swizzles (CuTe's `Swizzle<B,M,S>`) and swizzled layouts (CuTe's `ComposedLayout<Swizzle, Offset,
//! Layout>`).
//!
//! A swizzle is a bijection on offsets that XORs one group of bits into another; composed after a
//! layout it permutes where elements land (classically, to avoid shared-memory bank conflicts)
//! without changing how many there are:
//!
//! ```text
//! bit_msk = (1 << B) - 1
//! yyy_msk = bit_msk << (M + max(0, S))     the B source bits
//! zzz_msk = bit_msk << (M - min(0, S))     the B destination bits
//! f(x)    = x ^ shiftr(x & yyy_msk, S)     shiftr by a negative S shifts left
//! ```
//!
//! The low `M` bits (a vector of `2^M` contiguous elements) are never touched; the `B` bits starting
//! at `M` are XORed with the `B` bits starting at `M + S`. Because `|S| >= B` the two groups do not
//! overlap, so `f` is an involution (`f(f(x)) == x`) and the identity when `B == 0`.
//!
//! Two forms, as for integers: [`Swizzle`] holds its parameters at run time, [`Sw<B,M,S>`] is a
//! zero-sized type whose parameters are const generics (checked at compile time). Both implement
//! [`SwizzleFn`]; [`SwizzledLayout`] composes either with any layout and an offset.
//!
//! ```
//! use layout::{Int, Layout, Sw, SwizzledLayout};
//! // The classic fp16 128-byte shared-memory atom: Sw<3,3,3> o _0 o (_8,_64):(_64,_1).
//! let atom = SwizzledLayout::new(
//!     Sw::<3, 3, 3>,
//!     Int::<0>,
//!     Layout::new((Int::<8>, Int::<64>), (Int::<64>, Int::<1>)),
//! );
//! assert_eq!(atom.to_string(), "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
//! assert_eq!(core::mem::size_of_val(&atom), 0);
//! // row r, column c lands at 64·r + (c XOR 8·(r mod 8))
//! assert_eq!(atom.offset((1, 0)), 64 + 8);
//! assert_eq!(atom.offset((3, 17)), 3 * 64 + (17 ^ 24));
//! ```

use crate::int::Integer;
use crate::layout::{Congruent, Coord};
use crate::{AnyLayout, DynLayout, DynTuple, IntTuple, Layout, LayoutError, PostPeriod};
use core::fmt;

/// A run-time swizzle `Sw<B,M,S>`: XOR the `B` bits at `M + max(0,S)` into the `B` bits at
/// `M - min(0,S)` (see the [module documentation](self)).
///
/// ```
/// use layout::Swizzle;
/// let sw = Swizzle::new(2, 1, 5).unwrap();
/// assert_eq!(sw.yyy_mask(), 0b1100_0000); // source bits
/// assert_eq!(sw.zzz_mask(), 0b0000_0110); // destination bits
/// assert_eq!(sw.apply(0b0100_0000), 0b0100_0010);
/// assert_eq!(sw.apply(sw.apply(12345)), 12345);
/// assert_eq!(sw.to_string(), "Sw<2,1,5>");
/// assert!(Swizzle::new(3, 0, 2).is_err()); // |S| < B: the bit groups would overlap
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Swizzle {
    b: i64,
    m: i64,
    s: i64,
}

impl Swizzle {
    /// The identity swizzle `Sw<0,0,0>`.
    pub const IDENTITY: Swizzle = Swizzle { b: 0, m: 0, s: 0 };

    /// A swizzle of `b` bits, base `m`, shift `s`.
    ///
    /// # Errors
    /// [`LayoutError::InvalidSwizzle`] unless `b >= 0`, `m >= 0`, `|s| >= b` (the source and
    /// destination bits do not overlap) and `b + m + |s| <= 63` (every mask fits in `i64`).
    pub const fn new(b: i64, m: i64, s: i64) -> Result<Swizzle, LayoutError> {
        let rule = if b < 0 {
            "B must not be negative"
        } else if m < 0 {
            "M must not be negative"
        } else if s == i64::MIN || s.abs() < b {
            "|S| must be at least B, or the source and destination bits overlap"
        } else if b > 63 || m > 63 || s.abs() > 63 || b + m + s.abs() > 63 {
            "B + M + |S| must be at most 63 for the masks to fit in i64"
        } else {
            return Ok(Swizzle { b, m, s });
        };
        Err(LayoutError::InvalidSwizzle { b, m, s, rule })
    }

    /// `B`: the number of bits XORed.
    pub const fn bits(&self) -> i64 {
        self.b
    }

    /// `M`: the number of low bits left alone.
    pub const fn base(&self) -> i64 {
        self.m
    }

    /// `S`: the distance from the destination bits up to the source bits (negative: down).
    pub const fn shift(&self) -> i64 {
        self.s
    }

    /// The mask of the `B` source bits, `((1 << B) - 1) << (M + max(0, S))`.
    pub const fn yyy_mask(&self) -> i64 {
        let base = if self.s > 0 { self.m + self.s } else { self.m };
        ((1i64 << self.b) - 1) << base
    }

    /// The mask of the `B` destination bits, `((1 << B) - 1) << (M - min(0, S))`.
    pub const fn zzz_mask(&self) -> i64 {
        let base = if self.s < 0 { self.m - self.s } else { self.m };
        ((1i64 << self.b) - 1) << base
    }

    /// `x ^ shiftr(x & yyy_mask, S)`: an involution on every `i64`, the identity when `B == 0`.
    #[inline(always)]
    pub const fn apply(&self, x: i64) -> i64 {
        let y = x & self.yyy_mask();
        if self.s >= 0 {
            x ^ (y >> self.s)
        } else {
            x ^ (y << -self.s)
        }
    }

    /// `true` when the swizzle changes nothing (`B == 0`).
    pub const fn is_identity(&self) -> bool {
        self.b == 0
    }

    /// An interval containing `apply(x)` for every `x` in `lo..=hi` (`lo <= hi`), and whether
    /// the swizzle is the identity on all of `lo..=hi` (then the interval is `(lo, hi)` itself).
    ///
    /// Proof. Let `z = M - min(0,S) + B`, one past the highest destination bit. `apply(x)` is
    /// `x ^ t` with `t = shiftr(x & yyy_mask, S)`: `x & yyy_mask` has bits only in the `B`
    /// source bits (below bit 63, since `B + M + |S| <= 63`, so it is non-negative and the shift
    /// is exact), and the shift by `S` moves them exactly onto the destination bits. So `t` has
    /// bits only in `zzz_mask`, below bit `z`: `apply(x)` and `x` agree on every bit from `z` up,
    /// sign included, i.e. `apply(x) >> z == x >> z` (arithmetic shift) — a swizzle maps each
    /// aligned block `[k·2^z, (k+1)·2^z)` into itself. `x >> z` does not decrease as `x` grows,
    /// so for `lo <= x <= hi`, `apply(x)` lies in `[lo & !(2^z-1), hi | (2^z-1)]` (bit
    /// operations, no overflow). This is at most the block of `2^(B+M+|S|)` in which a swizzle
    /// permutes bits, and usually much less (`Sw<3,3,3>`: blocks of 64, not 512).
    ///
    /// Identity. Let `y = M + max(0,S)`, the lowest source bit. If `lo >> y == hi >> y`, every
    /// `x` in `lo..=hi` has the bits of `lo` from `y` up (again monotonicity of `>>`), hence
    /// `lo`'s source bits; when those are zero, `t == 0` and `apply(x) == x` on the interval.
    ///
    /// ```
    /// use layout::Swizzle;
    /// let sw = Swizzle::new(3, 3, 3).unwrap();
    /// assert_eq!(sw.image_bounds(0, 511), ((0, 511), false));
    /// assert_eq!(sw.image_bounds(0, 63), ((0, 63), true));     // source bits 6..=8 all zero
    /// assert_eq!(sw.image_bounds(64, 100), ((64, 127), false)); // inside one 64-block
    /// ```
    pub const fn image_bounds(&self, lo: i64, hi: i64) -> ((i64, i64), bool) {
        let y = if self.s > 0 { self.m + self.s } else { self.m };
        if self.b == 0 || ((lo >> y) == (hi >> y) && lo & self.yyy_mask() == 0) {
            return ((lo, hi), true);
        }
        let z = if self.s < 0 { self.m - self.s } else { self.m } + self.b;
        let block = (1i64 << z) - 1; // z <= 63 by the parameter rule
        ((lo & !block, hi | block), false)
    }
}

impl fmt::Display for Swizzle {
    /// CuTe's print: `Sw<3,3,3>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.b, self.m, self.s)
    }
}

/// A static swizzle: a zero-sized type whose parameters are const generics, checked at compile
/// time (an invalid `Sw<B,M,S>` fails to build when it is used).
///
/// ```
/// use layout::{Sw, SwizzleFn};
/// assert_eq!(core::mem::size_of::<Sw<3, 3, 3>>(), 0);
/// assert_eq!(Sw::<3, 3, 3>.apply(0b001_000_000), 0b001_001_000);
/// assert_eq!(Sw::<2, 0, -3>.apply(0b00_011), 0b11_011); // negative S shifts left
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug)]
pub struct Sw<const B: i64, const M: i64, const S: i64>;

impl<const B: i64, const M: i64, const S: i64> Sw<B, M, S> {
    /// The run-time value, computed and validated at compile time.
    pub const SWIZZLE: Swizzle = match Swizzle::new(B, M, S) {
        Ok(s) => s,
        Err(_) => panic!("invalid swizzle: needs B >= 0, M >= 0, |S| >= B, B + M + |S| <= 63"),
    };
}

impl<const B: i64, const M: i64, const S: i64> fmt::Display for Sw<B, M, S> {
    /// CuTe's print: `Sw<3,3,3>`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{B},{M},{S}>")
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Swizzle {}
    impl<const B: i64, const M: i64, const S: i64> Sealed for super::Sw<B, M, S> {}
}

/// A swizzle function, static ([`Sw<B,M,S>`]) or run-time ([`Swizzle`]).
///
/// Sealed: tensors over swizzled layouts check their bounds with the parameters
/// [`SwizzleFn::swizzle`] returns, so no other implementation may exist.
pub trait SwizzleFn: sealed::Sealed + Copy + fmt::Display {
    /// The parameters as a run-time value.
    fn swizzle(&self) -> Swizzle;

    /// The swizzled offset (see [`Swizzle::apply`]).
    fn apply(&self, x: i64) -> i64;
}

impl SwizzleFn for Swizzle {
    #[inline(always)]
    fn swizzle(&self) -> Swizzle {
        *self
    }
    #[inline(always)]
    fn apply(&self, x: i64) -> i64 {
        Swizzle::apply(self, x)
    }
}

impl<const B: i64, const M: i64, const S: i64> SwizzleFn for Sw<B, M, S> {
    #[inline(always)]
    fn swizzle(&self) -> Swizzle {
        Self::SWIZZLE
    }
    #[inline(always)]
    fn apply(&self, x: i64) -> i64 {
        Self::SWIZZLE.apply(x)
    }
}

/// `W o O o L`: the layout `L`, shifted by the offset `O`, then swizzled by `W` — the function
/// `c ↦ W(O + L(c))` (CuTe's `ComposedLayout<Swizzle, Offset, Layout>`).
///
/// Shape, size, rank and domain come from `L`; `cosize` is `L`'s (as in CuTe). A swizzled layout
/// is not affine, so it has no stride. With a static swizzle, a static offset (`Int<N>`) and a
/// static layout it is a zero-sized type.
///
/// ```
/// use layout::{AnyLayout, DynLayout, Swizzle, SwizzledLayout};
/// let l: DynLayout = "(8,64):(64,1)".parse().unwrap();
/// let s = SwizzledLayout::new(Swizzle::new(3, 3, 3).unwrap(), 0i64, l);
/// assert_eq!(s.to_string(), "Sw<3,3,3> o 0 o (8,64):(64,1)");
/// assert_eq!(s.offset(1), 64 + 8); // index 1 = row 1, column 0
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug)]
pub struct SwizzledLayout<L, W = Swizzle, O = i64> {
    swizzle: W,
    offset: O,
    layout: L,
}

impl<L: AnyLayout, W: SwizzleFn, O: Integer> SwizzledLayout<L, W, O> {
    /// `swizzle o offset o layout`.
    #[inline(always)]
    pub const fn new(swizzle: W, offset: O, layout: L) -> Self {
        SwizzledLayout {
            swizzle,
            offset,
            layout,
        }
    }

    /// The swizzle (the outer function).
    pub fn swizzle(&self) -> W {
        self.swizzle
    }

    /// The offset added before swizzling.
    pub fn offset_value(&self) -> i64 {
        self.offset.value()
    }

    /// The inner layout.
    pub fn layout(&self) -> L {
        self.layout
    }

    /// `W(O + x)`: the swizzled form of an offset `x` of the inner layout.
    ///
    /// Domain: `x` with `O + x` inside `i64` — every offset of a layout whose
    /// [`offset_bounds`](AnyLayout::offset_bounds) succeeds (e.g. one a tensor accepted).
    /// Outside it `O + x` saturates (never wraps, never panics) and the result is meaningless;
    /// [`SwizzledLayout::try_swizzle_offset`] is the checked form.
    #[inline(always)]
    pub fn swizzle_offset(&self, x: i64) -> i64 {
        // the parameters (a constant for `Sw`), so that bounds and offsets use the same function
        self.swizzle
            .swizzle()
            .apply(self.offset.value().saturating_add(x))
    }

    /// `W(O + x)`, checked.
    ///
    /// ```
    /// use layout::{DynLayout, LayoutError, Swizzle, SwizzledLayout};
    /// let l: DynLayout = "2:1".parse().unwrap();
    /// let s = SwizzledLayout::new(Swizzle::new(1, 0, 1).unwrap(), i64::MAX, l);
    /// assert_eq!(s.try_swizzle_offset(0), Ok(i64::MAX - 1));
    /// assert_eq!(s.try_swizzle_offset(1).unwrap_err().to_string(),
    ///     "the swizzled offset O + L(c) = 9223372036854775807 + 1 overflows i64");
    /// ```
    ///
    /// # Errors
    /// [`LayoutError::SwizzleOffsetOverflow`] when `O + x` leaves `i64`.
    #[inline]
    pub fn try_swizzle_offset(&self, x: i64) -> Result<i64, LayoutError> {
        let o = self.offset.value();
        match o.checked_add(x) {
            Some(y) => Ok(self.swizzle.swizzle().apply(y)),
            None => Err(LayoutError::SwizzleOffsetOverflow { offset: o, x }),
        }
    }

    /// The offset of 1-D index `i`, checked: `i` must lie in `[0, size)` and `O + L(i)` inside
    /// `i64`.
    ///
    /// # Errors
    /// [`LayoutError::IndexOutOfRange`], [`LayoutError::SwizzleOffsetOverflow`].
    pub fn try_offset(&self, i: i64) -> Result<i64, LayoutError> {
        let size = self.layout.size();
        if i < 0 || i >= size {
            return Err(LayoutError::IndexOutOfRange { index: i, size });
        }
        self.try_swizzle_offset(self.layout.offset(i))
    }

    /// The cosize of the inner layout (CuTe's `cosize` of a composed layout).
    ///
    /// # Errors
    /// When the inner layout is invalid.
    pub fn cosize(&self) -> Result<i64, LayoutError> {
        Ok(self.layout.to_dyn()?.cosize())
    }
}

impl<S: Congruent<D>, D: IntTuple, W: SwizzleFn, O: Integer> SwizzledLayout<Layout<S, D>, W, O> {
    /// The offset of a coordinate of the inner layout (1-D, per mode or hierarchical), swizzled.
    /// Same domain as [`SwizzledLayout::swizzle_offset`] (saturating outside it); checked:
    /// [`SwizzledLayout::try_swizzle_offset`] of the inner layout's offset.
    #[inline(always)]
    pub fn offset<C: Coord<S, D>>(&self, coord: C) -> i64 {
        self.swizzle_offset(self.layout.offset(coord))
    }
}

impl<W: SwizzleFn, O: Integer> SwizzledLayout<DynLayout, W, O> {
    /// The offset of a hierarchical coordinate of the inner layout, swizzled.
    ///
    /// # Errors
    /// See [`DynLayout::offset_of`]; [`LayoutError::SwizzleOffsetOverflow`] when `O + L(c)`
    /// leaves `i64`.
    pub fn offset_of(&self, coord: &DynTuple) -> Result<i64, LayoutError> {
        self.try_swizzle_offset(self.layout.offset_of(coord)?)
    }
}

impl<L: AnyLayout, W: SwizzleFn, O: Integer> fmt::Display for SwizzledLayout<L, W, O> {
    /// CuTe's print: `Sw<3,3,3> o _0 o (_8,_64):(_64,_1)` (static parts with `_`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o ", self.swizzle)?;
        self.offset.write(f)?;
        write!(f, " o {}", self.layout)
    }
}

// SAFETY: the contract of `AnyLayout`, rule by rule.
// - `inner_layout` is `L`'s, with `L`'s domain; `post_offset(x) = W(O + L.post_offset(x))` and
//   `offset(i) = W(O + L.offset(i)) = W(O + L.post(L.inner.offset(i)))` by `L`'s
//   contract. `W` is sealed (`Swizzle` or `Sw`, pure) and read through its parameters only.
// - `AFFINE` is false; `to_dyn` succeeds only for the identity swizzle and offset 0, where
//   the function is `L`'s.
// - `offset_bounds`: `L`'s bounds shifted by `O` (checked), then `Swizzle::image_bounds`, whose
//   proof is on that function; or an exact scan.
// - `post_run`: within `L`'s run and one aligned `2^M` vector (proof on the method).
// - `post_period`: for an affine `L` only, the period of `W` (proof on the method).
// - `find_collision`: `x ↦ W(O + x)` is injective (see the method), so collisions are `L`'s.
unsafe impl<L: AnyLayout, W: SwizzleFn + 'static, O: Integer> AnyLayout
    for SwizzledLayout<L, W, O>
{
    const AFFINE: bool = false;

    fn domain(&self) -> DynTuple {
        self.layout.domain()
    }

    #[inline(always)]
    fn size(&self) -> i64 {
        self.layout.size()
    }

    #[inline(always)]
    fn offset(&self, i: i64) -> i64 {
        self.swizzle_offset(self.layout.offset(i))
    }

    /// The inner layout when the swizzle is the identity and the offset 0; otherwise an error,
    /// since a swizzled layout has no `shape:stride` form.
    fn to_dyn(&self) -> Result<DynLayout, LayoutError> {
        let sw = self.swizzle.swizzle();
        if sw.is_identity() && self.offset.value() == 0 {
            return self.layout.to_dyn();
        }
        Err(LayoutError::NotAffine {
            b: sw.bits(),
            m: sw.base(),
            s: sw.shift(),
        })
    }

    /// The inner layout's own inner layout (`L` itself when it is affine).
    fn inner_layout(&self) -> Result<DynLayout, LayoutError> {
        self.layout.inner_layout()
    }

    #[inline(always)]
    fn post_offset(&self, x: i64) -> i64 {
        self.swizzle_offset(self.layout.post_offset(x))
    }

    /// Up to the end of the aligned `2^M` vector holding `O + L.post_offset(x)` (and within
    /// `L`'s own run). Proof: `W` reads only source bits and writes only destination bits, all
    /// at or above bit `M`; `y` and `y + j` inside one aligned `2^M` block agree on those bits,
    /// so `W(y + j) = (y ^ t) + j` with the same `t`: `W(y + j) == W(y) + j`.
    #[inline(always)]
    fn post_run(&self, x: i64) -> i64 {
        let sw = self.swizzle.swizzle();
        let run = self.layout.post_run(x);
        if sw.is_identity() || sw.base() >= 62 {
            return run;
        }
        let v = 1i64 << sw.base();
        let y = self.offset.value().wrapping_add(self.layout.post_offset(x));
        // `y mod v` for a power of two `v` (also for negative `y`), without a division
        run.min(v - (y & (v - 1)))
    }

    /// With an affine `L`, `post_offset(x) = W(O + x)`. `W` reads and writes only bits below
    /// `M + |S| + B`, so it commutes with adding a multiple `P` of `2^(M+|S|+B)`:
    /// `W(O + x + P) == W(O + x) + P`; and it keeps aligned `2^M` vectors whole (see
    /// `post_run`), which start where `O + x ≡ 0`, i.e. `x ≡ −O (mod 2^M)`. (Only while `O + x`
    /// cannot saturate: `|O| < 2^40`, far beyond any buffer's offsets.)
    #[inline(always)]
    fn post_period(&self) -> Option<PostPeriod> {
        let sw = self.swizzle.swizzle();
        let bits = sw.base() + sw.shift().abs() + sw.bits();
        let o = self.offset.value();
        if !L::AFFINE || sw.is_identity() || bits > 30 || o.unsigned_abs() >= 1 << 40 {
            return None;
        }
        let period = 1i64 << bits;
        Some(PostPeriod {
            period,
            vector: 1i64 << sw.base(),
            phase: (-o).rem_euclid(period),
        })
    }

    /// The bounds of `W(O + L(i))`. With `lo..=hi` the bounds of `O + L(i)`:
    /// 1. the swizzle is the identity on `lo..=hi` ([`Swizzle::image_bounds`]): `(lo, hi)`;
    /// 2. else the aligned-block bound `(a, z)` of [`Swizzle::image_bounds`]; it is exact when
    ///    both ends are attained — for an affine `L`, when `W(a) - O` and `W(z) - O` are offsets
    ///    of `L` (`W` is an involution, so `W(v) == a` exactly for `v == W(a)`) — which is the
    ///    case for the usual swizzled atoms, whose inner offsets fill whole blocks;
    /// 3. else the exact bounds by visiting every offset, up to 2^24 elements;
    /// 4. else the block bound (sound, maybe loose).
    ///
    /// ```
    /// use layout::{AnyLayout, DynLayout, Swizzle, SwizzledLayout};
    /// let sw = Swizzle::new(3, 3, 3).unwrap();
    /// let atom: DynLayout = "(8,64):(64,1)".parse().unwrap();
    /// assert_eq!(SwizzledLayout::new(sw, 0i64, atom).offset_bounds(), Ok((0, 511)));
    /// // 4 rows of 16: offsets 0..=207 whose rows 1..3 are swizzled within their 64-block
    /// let rows: DynLayout = "(4,16):(64,1)".parse().unwrap();
    /// assert_eq!(SwizzledLayout::new(sw, 0i64, rows).offset_bounds(), Ok((0, 223)));
    /// ```
    fn offset_bounds(&self) -> Result<(i64, i64), LayoutError> {
        let sw = self.swizzle.swizzle();
        let o = self.offset.value();
        let (ilo, ihi) = self.layout.offset_bounds()?;
        let overflow = |x| LayoutError::SwizzleOffsetOverflow { offset: o, x };
        let lo = o.checked_add(ilo).ok_or(overflow(ilo))?;
        let hi = o.checked_add(ihi).ok_or(overflow(ihi))?;
        let ((a, z), identity) = sw.image_bounds(lo, hi);
        if identity {
            return Ok((a, z));
        }
        if L::AFFINE {
            let d = self.layout.to_dyn()?;
            let attained = |v: i64| {
                sw.apply(v)
                    .checked_sub(o)
                    .is_some_and(|x| matches!(d.index_of_offset(x), Ok(Some(_))))
            };
            if attained(a) && attained(z) {
                return Ok((a, z));
            }
        }
        if self.size() <= crate::walk::scan::SCAN_CAP {
            return crate::walk::scan::scan_bounds(self);
        }
        Ok((a, z))
    }

    /// `L`'s collisions, swizzled: `x ↦ O + x` is injective (a shift) and so is `W` (an
    /// involution: `W(W(x)) == x`, because `W` flips only destination bits and reads only
    /// source bits, which are disjoint), so `W(O + L(i)) == W(O + L(j))` exactly when
    /// `L(i) == L(j)`. A swizzle never makes a layout injective or not; whether its image stays
    /// inside a buffer is [`AnyLayout::offset_bounds`]'s question.
    fn find_collision(&self) -> Result<Option<i64>, LayoutError> {
        let sw = self.swizzle.swizzle();
        let o = self.offset.value();
        Ok(self
            .layout
            .find_collision()?
            .map(|x| o.checked_add(x).map_or(x, |y| sw.apply(y))))
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::Int;
    use std::string::ToString;

    /// Bit by bit, independently of the masks: destination bit `M - min(0,S) + k` is XORed with
    /// source bit `M + max(0,S) + k`, for `k < B`.
    fn reference(b: i64, m: i64, s: i64, x: i64) -> i64 {
        let mut out = x;
        for k in 0..b {
            let src = m + s.max(0) + k;
            let dst = m - s.min(0) + k;
            out ^= ((x >> src) & 1) << dst;
        }
        out
    }

    #[test]
    fn apply_matches_the_bitwise_definition_and_is_an_involution() {
        for b in 0..=4 {
            for m in 0..=4 {
                for s in -6i64..=6 {
                    let Ok(sw) = Swizzle::new(b, m, s) else {
                        assert!(s.abs() < b);
                        continue;
                    };
                    for x in 0..(1 << 12) {
                        let y = sw.apply(x);
                        assert_eq!(y, reference(b, m, s, x), "Sw<{b},{m},{s}>({x})");
                        assert_eq!(sw.apply(y), x, "involution Sw<{b},{m},{s}>({x})");
                        if b == 0 {
                            assert_eq!(y, x);
                        }
                        // the low M bits never move
                        assert_eq!(y & ((1 << m) - 1), x & ((1 << m) - 1));
                    }
                }
            }
        }
    }

    #[test]
    fn constraints() {
        assert!(Swizzle::new(-1, 0, 0).is_err());
        assert!(Swizzle::new(0, -1, 0).is_err());
        assert!(Swizzle::new(3, 0, 2).is_err());
        assert!(Swizzle::new(3, 0, -2).is_err());
        assert!(Swizzle::new(3, 0, -3).is_ok());
        assert!(Swizzle::new(0, 0, 0).is_ok());
        assert!(Swizzle::new(20, 20, 23).is_ok());
        assert!(Swizzle::new(20, 20, 24).is_err());
        assert!(Swizzle::new(1, 0, i64::MIN).is_err());
        assert_eq!(
            Swizzle::new(3, 0, 2).unwrap_err().to_string(),
            "invalid swizzle Sw<3,0,2>: |S| must be at least B, or the source and destination bits overlap"
        );
    }

    #[test]
    fn static_and_dynamic_agree() {
        let d = Swizzle::new(3, 4, 3).unwrap();
        for x in 0..4096 {
            assert_eq!(Sw::<3, 4, 3>.apply(x), d.apply(x));
        }
        assert_eq!(Sw::<3, 4, 3>.swizzle(), d);
        assert_eq!(Sw::<3, 4, 3>.to_string(), d.to_string());
    }

    #[test]
    fn composed_layout_prints_like_cute() {
        let s = SwizzledLayout::new(
            Sw::<3, 3, 3>,
            Int::<0>,
            Layout::new((Int::<8>, Int::<64>), (Int::<64>, Int::<1>)),
        );
        assert_eq!(s.to_string(), "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
        let d = SwizzledLayout::new(
            Swizzle::new(2, 0, -3).unwrap(),
            0i64,
            "(8,8):(8,1)".parse::<DynLayout>().unwrap(),
        );
        assert_eq!(d.to_string(), "Sw<2,0,-3> o 0 o (8,8):(8,1)");
        assert_eq!(d.domain().to_string(), "(8,8)");
        assert_eq!(d.cosize(), Ok(64));
        assert!(d.to_dyn().is_err());
    }
}
