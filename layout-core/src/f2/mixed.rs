//! Shape:stride layouts whose strides may be F2 strides, composed after an F2 map.

use super::text::Cursor;
use super::{F2Error, F2Layout, MAX_F2_BITS, Side, mask};
use crate::{DynLayout, DynTuple, MAX_LEAVES, Swizzle};
use core::fmt;
use core::str::FromStr;

mod chain;

/// The stride of one leaf of a [`MixedLayout`].
///
/// ```
/// use layout::f2::{MixedLayout, MixedStride};
/// let m: MixedLayout = "(4,8):(F3,0)".parse().unwrap();
/// assert_eq!(m.stride(0), Some(MixedStride::F2(&[3, 6])));
/// assert_eq!(m.stride(1), Some(MixedStride::Int(0)));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MixedStride<'a> {
    /// An ordinary stride: the leaf adds `coordinate · stride`.
    Int(i64),
    /// An F2 stride: one basis per bit of the coordinate; the leaf XORs the bases of the bits
    /// that are set. PyCuTe's `F2(v)` has the bases `v << t` (the carry-less product `c · v`).
    F2(&'a [u64]),
}

/// A CuTe layout whose strides are integers or F2 strides, applied after an optional F2 map of
/// its index (the composition `body ∘ pre`).
///
/// # Definition
/// For a 1-D index `i` (`0 <= i < size`): `j = pre(i)` (or `i` without `pre`), `c` = the
/// colexicographic coordinate of `j` in the shape, and
///
/// ```text
/// offset(i) = ⊕_{F2 leaves} c_k ⊗ v_k              (some leaf has an F2 stride)
/// offset(i) = Σ_{leaves} c_k · d_k                   (integer strides only)
/// ```
///
/// where `c ⊗ v` is the carry-less product (the XOR of `v << t` over the bits `t` of `c`). This
/// is PyCuTe (2026)'s F2 stride (NVIDIA cutlass `python/pycute`, `F2` in `swizzle.py`): `+` is
/// XOR, `*` is carry-less, and a layout's leaves add their contributions with that `+`. Adding a
/// non-zero integer to an F2 value is not defined there (it raises), so beside F2 strides an
/// integer stride may only contribute 0: an index where it does not has no offset
/// ([`F2Error::MixedSum`]), and operations that need the whole map refuse such a layout
/// ([`F2Error::MixedStrides`]). Extents need not be powers of two (`(4,(4,3)):(F1,(F5,F16))`).
///
/// In text an F2 stride is PyCuTe's printed form `F9` (its constructor `F2(9)` is read too),
/// so `(8,8):(F1,F9)` is the swizzle `Sw<3,0,3>`. As an extension, `F[b0,b1,…]` gives one basis
/// per bit of the coordinate freely (any F2-linear leaf; `F2[…]` is read as well).
///
/// With a `pre` map the text is `body o {index:[…]} -> {index:N}` (CuTe's composed layouts read
/// right to left too). A padded layout swizzled on its power-of-two part is
/// [`MixedLayout::swizzled`]:
///
/// ```
/// use layout::f2::MixedLayout;
/// use layout::{DynLayout, Swizzle};
/// // 8 rows of 64 halves, rows padded to 72 elements, Sw<3,3,3> on the (row, 8-column-chunk) bits
/// let body: DynLayout = "(64,8):(1,72)".parse().unwrap();
/// let m = MixedLayout::swizzled(&body, Swizzle::new(3, 3, 3).unwrap()).unwrap();
/// for r in 0..8 {
///     for c in 0..64 {
///         assert_eq!(m.offset(c + 64 * r).unwrap(), 72 * r + (c ^ (8 * r)));
///     }
/// }
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct MixedLayout {
    /// Integer strides (0 at F2 leaves).
    body: DynLayout,
    /// Bit `k` set: leaf `k` has an F2 stride.
    f2_leaves: u64,
    /// The F2 bases of the F2 leaves, in leaf order, one per bit of the leaf's coordinate.
    f2_bases: [u64; MAX_F2_BITS],
    pre: Option<F2Layout>,
}

fn is_pow2(v: i64) -> bool {
    v > 0 && (v as u64).is_power_of_two()
}

/// The number of bits of a coordinate below `extent` (`0` for extent 1): how many bases an F2
/// stride on a leaf of this extent has.
fn f2_bits(extent: i64) -> usize {
    if extent <= 1 {
        0
    } else {
        64 - ((extent - 1) as u64).leading_zeros() as usize
    }
}

/// The carry-less product of `a` and `b` (polynomials over GF(2)), PyCuTe's `F2 * int`.
fn clmul(a: u128, b: u128) -> u128 {
    let mut r = 0u128;
    let mut t = 0;
    while t < 128 && (b >> t) != 0 {
        if (b >> t) & 1 == 1 {
            r ^= a << t;
        }
        t += 1;
    }
    r
}

/// The bit length of `v` (`0` for `0`).
fn bit_len(v: u128) -> usize {
    128 - v.leading_zeros() as usize
}

/// An F2 stride given by its value `v` (PyCuTe's `F2(v)`): the bases `v << t`.
fn value_of(bases: &[u64]) -> Option<u64> {
    let v = *bases.first()?;
    for (t, &b) in bases.iter().enumerate() {
        if (v as u128) << t != b as u128 {
            return None;
        }
    }
    Some(v)
}

/// One flattened leaf's stride, by value: an integer, or an F2 stride given by its value or by
/// its list of bases.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaf<'a> {
    Int(i64),
    F2(u64),
    Bases(&'a [u64]),
}

impl From<DynLayout> for MixedLayout {
    fn from(body: DynLayout) -> MixedLayout {
        MixedLayout {
            body,
            f2_leaves: 0,
            f2_bases: [0; MAX_F2_BITS],
            pre: None,
        }
    }
}

impl MixedLayout {
    /// A plain shape:stride layout (no F2 stride, no `pre`).
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m = MixedLayout::new(&"(2,3):(3,1)".parse().unwrap());
    /// assert_eq!(m.offset(1).unwrap(), 3);
    /// ```
    pub fn new(layout: &DynLayout) -> MixedLayout {
        MixedLayout::from(*layout)
    }

    /// An F2 layout as a mixed layout: one leaf of `2^in_bits` elements whose F2 stride is the
    /// flat bases (inputs and outputs flattened, dimension 0 lowest).
    ///
    /// # Errors
    /// A layout of more than `2^62` elements.
    ///
    /// ```
    /// use layout::f2::{F2Layout, MixedLayout};
    /// let f: F2Layout = "{x:[1,3]} -> {y:4}".parse().unwrap();
    /// assert_eq!(MixedLayout::from_f2(&f).unwrap().to_string(), "4:F[1,3]");
    /// let g: F2Layout = "{x:[3,6]} -> {y:8}".parse().unwrap();
    /// assert_eq!(MixedLayout::from_f2(&g).unwrap().to_string(), "4:F3");
    /// ```
    pub fn from_f2(f: &F2Layout) -> Result<MixedLayout, F2Error> {
        let n = f.in_bits();
        let body = DynLayout::leaf(1i64 << n, 0)?;
        let mut m = MixedLayout::from(body);
        m.f2_leaves = 1;
        m.f2_bases[..n].copy_from_slice(f.flat_bases());
        Ok(m)
    }

    /// `layout` after the swizzle `sw` on its index: `offset(i) = layout(sw(i))`. The size of
    /// `layout` must be a power of two covering the swizzle's `B + M + |S|` bits. Any strides
    /// work, padded ones included: the swizzle acts on the power-of-two index space, the strides
    /// map it to memory.
    ///
    /// # Errors
    /// [`F2Error::Boundary`] when the size is not a power of two or is too small.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// use layout::Swizzle;
    /// let m = MixedLayout::swizzled(&"(4,4):(1,5)".parse().unwrap(), Swizzle::new(1, 0, 2).unwrap())
    ///     .unwrap();
    /// assert_eq!(m.offset(4).unwrap(), 6); // index 4 → 5 = (1,1) → 1 + 5
    /// ```
    pub fn swizzled(layout: &DynLayout, sw: Swizzle) -> Result<MixedLayout, F2Error> {
        let size = layout.size();
        if !is_pow2(size) {
            return Err(F2Error::Boundary {
                what: "a swizzled layout needs a power-of-two size",
                size,
                needed: 0,
            });
        }
        let bits = size.trailing_zeros() as usize;
        let f = F2Layout::from_swizzle(sw, bits)?.rename_inputs(&[("offset", "index")])?;
        let f = f.rename_outputs(&[("offset", "index")])?;
        MixedLayout::from(*layout).compose_f2(&f)
    }

    /// The shape:stride part (integer strides; F2 leaves show stride 0, but an F2 leaf of
    /// extent 1 its value).
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m: MixedLayout = "(4,8):(F1,0)".parse().unwrap();
    /// assert_eq!(m.body().to_string(), "(4,8):(0,0)");
    /// ```
    pub fn body(&self) -> DynLayout {
        self.body
    }

    /// The F2 map applied to the index first, if any.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m: MixedLayout = "8:1".parse().unwrap();
    /// assert!(m.pre().is_none());
    /// ```
    pub fn pre(&self) -> Option<&F2Layout> {
        self.pre.as_ref()
    }

    /// The stride of leaf `k` (in the flattened shape), `None` past the last leaf.
    ///
    /// ```
    /// use layout::f2::{MixedLayout, MixedStride};
    /// let m: MixedLayout = "(2,4):(0,F1)".parse().unwrap();
    /// assert_eq!(m.stride(1), Some(MixedStride::F2(&[1, 2])));
    /// assert_eq!(m.stride(2), None);
    /// ```
    pub fn stride(&self, k: usize) -> Option<MixedStride<'_>> {
        if k >= self.body.leaf_count() {
            return None;
        }
        if self.f2_leaves & (1u64 << k) == 0 {
            return Some(MixedStride::Int(self.body.stride_leaves()[k]));
        }
        let (s, n) = self.f2_span(k);
        Some(MixedStride::F2(&self.f2_bases[s..s + n]))
    }

    fn f2_span(&self, k: usize) -> (usize, usize) {
        let shape = self.body.shape_leaves();
        let mut s = 0;
        for (t, &e) in shape.iter().enumerate().take(k) {
            if self.f2_leaves & (1u64 << t) != 0 {
                s += f2_bits(e);
            }
        }
        (s, f2_bits(shape[k]))
    }

    /// Whether any leaf has an F2 stride.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// assert!("8:F1".parse::<MixedLayout>().unwrap().has_f2_strides());
    /// ```
    pub fn has_f2_strides(&self) -> bool {
        self.f2_leaves != 0
    }

    /// The number of elements.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// assert_eq!("(4,8):(F1,F4)".parse::<MixedLayout>().unwrap().size(), 32);
    /// ```
    pub fn size(&self) -> i64 {
        self.body.size()
    }

    /// The offset of index `i` (see the [definition](MixedLayout#definition)).
    ///
    /// # Errors
    /// [`F2Error::CoordOutOfRange`] for `i` outside `0..size`; [`F2Error::MixedSum`] where an
    /// integer stride contributes beside F2 strides; an overflow of `i64`.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m: MixedLayout = "(8,8):(F1,F9)".parse().unwrap();
    /// // (c0, c1) = (1, 2): 1 XOR 2·F9 = 1 XOR 18 (the swizzle Sw<3,0,3>)
    /// assert_eq!(m.offset(1 + 8 * 2).unwrap(), 1 ^ 18);
    /// assert!(m.offset(64).is_err());
    /// // PyCuTe's F2 + integer: fine while the integer stride contributes 0, refused after
    /// let r: MixedLayout = "(8,8):(F1,8)".parse().unwrap();
    /// assert_eq!(r.offset(7).unwrap(), 7);
    /// assert!(r.offset(8).is_err());
    /// ```
    pub fn offset(&self, i: i64) -> Result<i64, F2Error> {
        let size = self.size();
        if i < 0 || i >= size {
            return Err(F2Error::CoordOutOfRange {
                name: super::DimName::new("index")?,
                value: i as u64,
                size: size as u64,
            });
        }
        let j = match &self.pre {
            Some(p) => p.apply_flat_bits(i as u64) as i64,
            None => i,
        };
        self.body_offset(i, j)
    }

    /// The index of a coordinate, as PyCuTe reads one: a flat coordinate (one value per leaf)
    /// or one 1-D coordinate per top-level mode, colexicographic either way.
    ///
    /// # Errors
    /// [`F2Error::CoordArity`] for another count; [`F2Error::CoordOutOfRange`] for a value
    /// outside its leaf or mode.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m: MixedLayout = "(4,(2,4)):(F1,(F4,F8))".parse().unwrap();
    /// assert_eq!(m.index_of(&[3, 1, 2]).unwrap(), 3 + 4 + 16); // flat
    /// assert_eq!(m.index_of(&[3, 5]).unwrap(), 3 + 4 * 5); // by mode
    /// assert!(m.index_of(&[4, 0]).is_err());
    /// ```
    pub fn index_of(&self, coord: &[i64]) -> Result<i64, F2Error> {
        let shape = self.body.shape();
        let leaves = self.body.shape_leaves();
        let mut extents = [0i64; MAX_LEAVES];
        let n = if coord.len() == leaves.len() {
            extents[..leaves.len()].copy_from_slice(leaves);
            leaves.len()
        } else if coord.len() == shape.rank() {
            for (m, e) in extents.iter_mut().enumerate().take(shape.rank()) {
                *e = shape.mode(m)?.size()?;
            }
            shape.rank()
        } else {
            return Err(F2Error::CoordArity {
                expected: leaves.len(),
                got: coord.len(),
            });
        };
        let (mut index, mut scale) = (0i64, 1i64);
        for (&c, &e) in coord.iter().zip(&extents[..n]) {
            if c < 0 || c >= e {
                return Err(F2Error::CoordOutOfRange {
                    name: super::DimName::new("coordinate")?,
                    value: c as u64,
                    size: e as u64,
                });
            }
            index += c * scale;
            scale *= e;
        }
        Ok(index)
    }

    fn body_offset(&self, index: i64, mut j: i64) -> Result<i64, F2Error> {
        let shape = self.body.shape_leaves();
        let stride = self.body.stride_leaves();
        let mut sum: i64 = 0;
        let mut x: u64 = 0;
        let mut fb = 0;
        for (k, (&s, &d)) in shape.iter().zip(stride).enumerate() {
            let c = j % s;
            j /= s;
            if self.f2_leaves & (1u64 << k) != 0 {
                let n = f2_bits(s);
                for t in 0..n {
                    if (c >> t) & 1 == 1 {
                        x ^= self.f2_bases[fb + t];
                    }
                }
                fb += n;
            } else {
                sum = c
                    .checked_mul(d)
                    .and_then(|v| sum.checked_add(v))
                    .ok_or(F2Error::Layout(crate::LayoutError::Overflow {
                        what: "offset",
                    }))?;
            }
        }
        if self.f2_leaves != 0 && sum != 0 {
            return Err(F2Error::MixedSum {
                index,
                integer: sum,
            });
        }
        Ok(sum ^ x as i64)
    }

    /// The layout as an F2 layout (`index` → `offset`), when it is F2-linear: power-of-two
    /// extents, and either F2 strides (integer strides 0 beside them) or integer strides only
    /// whose images of the index bits pairwise share no bits (no carries) and are non-negative.
    /// A `pre` map is composed in.
    ///
    /// # Errors
    /// [`F2Error::ModeNotPowerOfTwo`], [`F2Error::NegativeStride`], [`F2Error::NotLinear`],
    /// [`F2Error::MixedStrides`].
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m: MixedLayout = "(8,8):(F8,F1)".parse().unwrap();
    /// let f = m.to_f2().unwrap();
    /// assert_eq!(f.to_string(), "{index:[8,16,32,1,2,4]} -> {offset:64}");
    /// assert!("(3,2):(1,3)".parse::<MixedLayout>().unwrap().to_f2().is_err());
    /// ```
    pub fn to_f2(&self) -> Result<F2Layout, F2Error> {
        self.one_codomain()?;
        let shape = self.body.shape_leaves();
        let stride = self.body.stride_leaves();
        let mut images = [0u64; MAX_F2_BITS];
        let mut n = 0;
        let mut seen = 0u64;
        let mut fb = 0;
        for (k, (&s, &d)) in shape.iter().zip(stride).enumerate() {
            if !is_pow2(s) {
                return Err(F2Error::ModeNotPowerOfTwo { leaf: k, extent: s });
            }
            let bits = s.trailing_zeros() as usize;
            if n + bits > MAX_F2_BITS {
                return Err(F2Error::TooManyBits {
                    side: Side::Input,
                    bits: n + bits,
                });
            }
            if self.f2_leaves & (1u64 << k) != 0 {
                images[n..n + bits].copy_from_slice(&self.f2_bases[fb..fb + bits]);
                fb += bits;
                n += bits;
                continue;
            }
            // the integer part alone must be carry-free; then XOR with the F2 part is linear
            let one = DynLayout::leaf(s, d)?;
            let mut imgs = [0u64; MAX_F2_BITS];
            let m = super::layout_bit_images(&one, &mut imgs)?;
            for &v in &imgs[..m] {
                if v & seen != 0 {
                    let a = (0..n)
                        .filter(|&t| self.is_int_image(t))
                        .map(|t| images[t])
                        .find(|&w| w & v != 0)
                        .unwrap_or(0);
                    return Err(F2Error::NotLinear {
                        a: a as i64,
                        b: v as i64,
                    });
                }
                seen |= v;
                images[n] = v;
                n += 1;
            }
        }
        let mut hi = 0u64;
        for &v in &images[..n] {
            hi |= v;
        }
        let out_bits = 64 - hi.leading_zeros() as usize;
        if out_bits > MAX_F2_BITS {
            return Err(F2Error::TooManyBits {
                side: Side::Output,
                bits: out_bits,
            });
        }
        let f =
            F2Layout::output(&[("offset", 1u64 << out_bits)])?.with_input("index", &images[..n])?;
        match &self.pre {
            Some(p) => f.compose(p),
            None => Ok(f),
        }
    }

    /// `Err(MixedStrides)` when F2 strides sit beside a non-zero integer stride (on a leaf of
    /// extent above 1): then the offsets are not one map (PyCuTe refuses `F2 + integer`).
    fn one_codomain(&self) -> Result<(), F2Error> {
        if self.f2_leaves == 0 {
            return Ok(());
        }
        let shape = self.body.shape_leaves();
        for (k, (&s, &d)) in shape.iter().zip(self.body.stride_leaves()).enumerate() {
            if self.f2_leaves & (1u64 << k) == 0 && s > 1 && d != 0 {
                return Err(F2Error::MixedStrides { leaf: k, stride: d });
            }
        }
        Ok(())
    }

    /// The flattened leaves as (extent, stride).
    fn leaves(&self) -> impl Iterator<Item = (i64, Leaf<'_>)> + '_ {
        let shape = self.body.shape_leaves();
        (0..shape.len()).map(move |k| {
            let st = match self.stride(k) {
                Some(MixedStride::F2(b)) => match value_of(b) {
                    Some(v) => Leaf::F2(v),
                    // an extent-1 leaf keeps its F2 value in the body's stride
                    None if b.is_empty() => Leaf::F2(self.body.stride_leaves()[k] as u64),
                    None => Leaf::Bases(b),
                },
                Some(MixedStride::Int(d)) => Leaf::Int(d),
                None => Leaf::Int(0),
            };
            (shape[k], st)
        })
    }

    /// Whether flat index bit `t` belongs to an integer-stride leaf.
    fn is_int_image(&self, t: usize) -> bool {
        let mut at = 0;
        for (k, &s) in self.body.shape_leaves().iter().enumerate() {
            let bits = s.trailing_zeros() as usize;
            if t < at + bits {
                return self.f2_leaves & (1u64 << k) == 0;
            }
            at += bits;
        }
        false
    }

    /// Composition `self ∘ f` with an F2 map `f` on the index: `R(i) = self(f(i))`. The boundary
    /// is the index: the size of `self` must be a power of two `2^n` and `f` must map into `n`
    /// bits (its outputs flattened, dimension 0 lowest). Any strides work on the left.
    ///
    /// # Errors
    /// [`F2Error::Boundary`] when the size of `self` is not a power of two, or `f`'s output has
    /// more bits than the index.
    ///
    /// # Postconditions
    /// `R.offset(i) == self.offset(f.apply_flat(i))` for `i < 2^f.in_bits()`.
    ///
    /// ```
    /// use layout::f2::{F2Layout, MixedLayout};
    /// let body: MixedLayout = "(4,3):(1,5)".parse().unwrap(); // size 12: no power of two
    /// let f = F2Layout::identity("index", 2).unwrap();
    /// assert!(body.compose_f2(&f).is_err());
    /// let body: MixedLayout = "(4,2):(1,6)".parse().unwrap();
    /// let f: F2Layout = "{i:[4,1,2]} -> {index:8}".parse().unwrap();
    /// let r = body.compose_f2(&f).unwrap();
    /// for i in 0..8 {
    ///     assert_eq!(r.offset(i).unwrap(), body.offset(f.apply_flat(i as u64).unwrap() as i64).unwrap());
    /// }
    /// ```
    pub fn compose_f2(&self, f: &F2Layout) -> Result<MixedLayout, F2Error> {
        let size = self.size();
        if !is_pow2(size) {
            return Err(F2Error::Boundary {
                what: "composing an F2 map into a layout's index needs a power-of-two size",
                size,
                needed: 0,
            });
        }
        let n = size.trailing_zeros() as usize;
        if f.out_bits() > n {
            return Err(F2Error::Boundary {
                what: "the F2 map's output must fit the layout's index",
                size: 1i64 << f.out_bits(),
                needed: size,
            });
        }
        let f = f.flatten("index", "index")?;
        let pre = match &self.pre {
            Some(p) => p.compose(&f)?,
            None => {
                let id = F2Layout::identity("index", n)?;
                id.compose(&f)?
            }
        };
        let mut r = *self;
        r.pre = Some(pre);
        // the index of R has f's input size
        if f.in_bits() != n {
            return Err(F2Error::Boundary {
                what: "the F2 map's input must have as many elements as the layout",
                size: 1i64 << f.in_bits(),
                needed: size,
            });
        }
        Ok(r)
    }

    /// Composition `f ∘ self` with an F2 map `f` on the offsets: `R(i) = f(self(i))`, defined
    /// when `self` is F2-linear ([`to_f2`](Self::to_f2)) and its offsets fit `f`'s single input
    /// dimension (a power-of-two boundary). The result is an F2 layout (`index` → `f`'s outputs).
    ///
    /// # Errors
    /// [`to_f2`](Self::to_f2)'s errors (a padded layout is not linear: then the composition is
    /// not an F2 layout and is refused); [`F2Error::Boundary`] when `f` does not have exactly one
    /// input dimension, or it is smaller than the offsets.
    ///
    /// ```
    /// use layout::f2::{F2Layout, MixedLayout};
    /// use layout::Swizzle;
    /// let m: MixedLayout = "(8,8):(8,1)".parse().unwrap();
    /// let sw = F2Layout::from_swizzle(Swizzle::new(3, 0, 3).unwrap(), 6).unwrap();
    /// let r = m.compose_after(&sw).unwrap();
    /// for i in 0..64 {
    ///     let o = m.offset(i).unwrap() as u64;
    ///     assert_eq!(r.apply_flat(i as u64).unwrap(), sw.apply_flat(o).unwrap());
    /// }
    /// let padded: MixedLayout = "(8,8):(9,1)".parse().unwrap();
    /// assert!(padded.compose_after(&sw).is_err());
    /// ```
    pub fn compose_after(&self, f: &F2Layout) -> Result<F2Layout, F2Error> {
        let g = self.to_f2()?;
        let mut ins = f.inputs();
        let (name, size) = match (ins.next(), ins.next()) {
            (Some(d), None) => d,
            _ => {
                return Err(F2Error::Boundary {
                    what: "composing after a layout needs an F2 map with one input dimension",
                    size: f.inputs().count() as i64,
                    needed: 1,
                });
            }
        };
        if g.out_bits() as u32 > size.trailing_zeros() {
            return Err(F2Error::Boundary {
                what: "the layout's offsets must fit the F2 map's input",
                size: 1i64 << g.out_bits(),
                needed: size as i64,
            });
        }
        let g = g.rename_outputs(&[("offset", name.as_str())])?;
        f.compose(&g)
    }

    /// A right inverse: an F2 layout `R` (`offset` → `index`) with `self.offset(R(y)) == y` for
    /// every `y` below `2^R.in_bits()`. Defined when the layout is F2-linear and surjective onto
    /// its power-of-two codomain, or when it is a plain (integer-stride) layout after a bijective
    /// `pre` map whose CuTe `right_inverse` is F2-linear (then `R = pre⁻¹ ∘ right_inverse`).
    ///
    /// # Errors
    /// [`F2Error::Undefined`] (or the underlying error) otherwise; nothing is approximated.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// use layout::Swizzle;
    /// let m = MixedLayout::swizzled(&"(64,8):(1,72)".parse().unwrap(), Swizzle::new(3, 3, 3).unwrap())
    ///     .unwrap();
    /// let r = m.right_inverse().unwrap(); // the first padded row: offsets 0..64
    /// for y in 0..64 {
    ///     let i = r.apply_flat(y).unwrap() as i64;
    ///     assert_eq!(m.offset(i).unwrap(), y as i64);
    /// }
    /// ```
    pub fn right_inverse(&self) -> Result<F2Layout, F2Error> {
        if let Ok(f) = self.to_f2() {
            return f.right_inverse();
        }
        let (pre_inv, body) = self.split_bijective_pre()?;
        let d = body.right_inverse();
        let g = F2Layout::from_layout(&d)?
            .rename_inputs(&[("index", "offset")])?
            .rename_outputs(&[("offset", "index")])?;
        // g maps offsets to body indices; widen its output to the index if needed
        let g = widen_output(&g, pre_inv.in_bits())?;
        pre_inv.compose(&g)
    }

    /// A left inverse: an F2 layout `R` (`offset` → `index`) with `R(self.offset(i)) == i` for
    /// every index. Defined when the layout is F2-linear and injective, or a plain layout after a
    /// bijective `pre` map whose CuTe `left_inverse` exists and is F2-linear.
    ///
    /// # Errors
    /// [`F2Error::Undefined`] (or the underlying error) otherwise.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m: MixedLayout = "(8,8):(F8,F1)".parse().unwrap();
    /// let l = m.left_inverse().unwrap();
    /// for i in 0..64 {
    ///     assert_eq!(l.apply_flat(m.offset(i).unwrap() as u64).unwrap(), i as u64);
    /// }
    /// ```
    pub fn left_inverse(&self) -> Result<F2Layout, F2Error> {
        if let Ok(f) = self.to_f2() {
            return f.left_inverse();
        }
        let (pre_inv, body) = self.split_bijective_pre()?;
        let d = body.left_inverse()?;
        let g = F2Layout::from_layout(&d)?
            .rename_inputs(&[("index", "offset")])?
            .rename_outputs(&[("offset", "index")])?;
        let g = widen_output(&g, pre_inv.in_bits())?;
        pre_inv.compose(&g)
    }

    /// `pre⁻¹` (identity without `pre`) and the body, when the body has integer strides only
    /// and `pre` is a bijection.
    fn split_bijective_pre(&self) -> Result<(F2Layout, DynLayout), F2Error> {
        if self.has_f2_strides() {
            return Err(F2Error::Undefined {
                what: "inverse of a layout with F2 strides that is not F2-linear: not defined",
            });
        }
        let inv = match &self.pre {
            Some(p) => p.invert().map_err(|_| F2Error::Undefined {
                what: "inverse of a layout after a non-bijective F2 map: not defined",
            })?,
            None => {
                let size = self.size();
                if !is_pow2(size) {
                    return Err(F2Error::Boundary {
                        what: "an inverse as an F2 map needs a power-of-two size",
                        size,
                        needed: 0,
                    });
                }
                F2Layout::identity("index", size.trailing_zeros() as usize)?
            }
        };
        Ok((inv, self.body))
    }

    /// The complement: a layout whose offsets, together with those of `self`, tile the
    /// codomain. For an F2-linear injective layout it is the F2 complement (returned with one
    /// F2 stride); for a plain layout after a bijective (or no) `pre` map the image is the
    /// body's, and it is CuTe's `complement(body, cotarget)`. PyCuTe (2026) gives no complement
    /// for F2 strides (its complement divides strides, and `F2` has no such division): this one
    /// is the GF(2) complement, an extension.
    ///
    /// # Errors
    /// [`F2Error::Undefined`] for F2 strides that are not linear or not injective,
    /// [`F2Error::MixedStrides`], and CuTe's errors for the plain case.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m: MixedLayout = "(2,4):(F5,F2)".parse().unwrap(); // images 5, 2, 4 span bits 0..3
    /// let c = m.complement(32).unwrap();
    /// assert_eq!(c.to_string(), "4:F8"); // the bases 8, 16
    /// let plain: MixedLayout = "4:2".parse().unwrap();
    /// assert_eq!(plain.complement(16).unwrap().to_string(), "(2,2):(1,8)");
    /// ```
    pub fn complement(&self, cotarget: i64) -> Result<MixedLayout, F2Error> {
        self.one_codomain()?;
        if !self.has_f2_strides() {
            let (_, body) = self.split_bijective_pre().or_else(|e| match self.pre {
                None => Ok((F2Layout::identity("index", 0)?, self.body)),
                Some(_) => Err(e),
            })?;
            return Ok(MixedLayout::from(body.complement(cotarget)?));
        }
        if !is_pow2(cotarget) {
            return Err(F2Error::Boundary {
                what: "the complement of an F2 layout needs a power-of-two cotarget",
                size: cotarget,
                needed: 0,
            });
        }
        let f = self.to_f2().map_err(|_| F2Error::Undefined {
            what: "complement of a layout with F2 strides that is not F2-linear: not defined",
        })?;
        let bits = cotarget.trailing_zeros() as usize;
        if f.out_bits() > bits {
            return Err(F2Error::Boundary {
                what: "the complement's cotarget must cover the layout's offsets",
                size: cotarget,
                needed: 1i64 << f.out_bits(),
            });
        }
        let f = widen_output(&f, bits)?;
        MixedLayout::from_f2(&f.complement()?)
    }
}

/// `g` with its single output dimension widened to `bits` bits (zero bases unchanged).
fn widen_output(g: &F2Layout, bits: usize) -> Result<F2Layout, F2Error> {
    if g.out_bits() > bits {
        return Err(F2Error::Boundary {
            what: "an inverse's image must fit the index",
            size: 1i64 << g.out_bits(),
            needed: 1i64 << bits,
        });
    }
    let (name, _) = g.outputs().next().ok_or(F2Error::Undefined {
        what: "a map without outputs",
    })?;
    let mut r = F2Layout::output(&[(name.as_str(), 1u64 << bits)])?;
    for (n, _) in g.inputs() {
        r = r.with_input(n.as_str(), g.bases_of(n.as_str())?)?;
    }
    Ok(r)
}

fn write_tuple(
    f: &mut fmt::Formatter<'_>,
    t: &DynTuple,
    leaf: &mut usize,
    each: &mut dyn FnMut(&mut fmt::Formatter<'_>, usize) -> fmt::Result,
) -> fmt::Result {
    if t.is_leaf() {
        let r = each(f, *leaf);
        *leaf += 1;
        return r;
    }
    f.write_str("(")?;
    for m in 0..t.rank() {
        if m > 0 {
            f.write_str(",")?;
        }
        let child = t.mode(m).map_err(|_| fmt::Error)?;
        write_tuple(f, &child, leaf, each)?;
    }
    f.write_str(")")
}

impl fmt::Display for MixedLayout {
    /// `(4,8):(F1,F4)` (an F2 stride as PyCuTe prints it, `F[b0,…]` for free bases), then
    /// ` o {…} -> {…}` for a `pre` map.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shape = self.body.shape();
        let sl = self.body.shape_leaves();
        write_tuple(f, &shape, &mut 0, &mut |f, k| write!(f, "{}", sl[k]))?;
        f.write_str(":")?;
        write_tuple(f, &shape, &mut 0, &mut |f, k| match self.stride(k) {
            None => Err(fmt::Error),
            Some(MixedStride::Int(d)) => write!(f, "{d}"),
            Some(MixedStride::F2(b)) => match value_of(b) {
                // PyCuTe's printed form: the F2 value
                Some(v) => write!(f, "F{v}"),
                // an extent-1 leaf keeps its F2 value in the body's stride
                None if b.is_empty() => write!(f, "F{}", self.body.stride_leaves()[k]),
                None => {
                    f.write_str("F[")?;
                    for (t, v) in b.iter().enumerate() {
                        if t > 0 {
                            f.write_str(",")?;
                        }
                        write!(f, "{v}")?;
                    }
                    f.write_str("]")
                }
            },
        })?;
        if let Some(p) = &self.pre {
            write!(f, " o {p}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for MixedLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "MixedLayout({self})")
    }
}

/// A parsed stride leaf.
#[derive(Clone, Copy)]
enum RawStride {
    Int(i64),
    F2Value(u64),
    F2 { start: usize, n: usize },
}

struct Parsed {
    shape: [i64; MAX_LEAVES],
    stride: [RawStride; MAX_LEAVES],
    n: usize,
    bases: [u64; MAX_F2_BITS],
    nb: usize,
}

/// Appends the bases `v << t` of the F2 value `v` on a leaf of extent `e` at `bases[nb..]`,
/// returning the new count.
fn push_value_bases(
    bases: &mut [u64; MAX_F2_BITS],
    nb: usize,
    e: i64,
    v: u64,
) -> Result<usize, F2Error> {
    let bits = f2_bits(e);
    if nb + bits > MAX_F2_BITS {
        return Err(F2Error::TooManyBits {
            side: Side::Input,
            bits: nb + bits,
        });
    }
    for t in 0..bits {
        let b = (v as u128) << t;
        if b > mask(MAX_F2_BITS) as u128 {
            return Err(F2Error::TooManyBits {
                side: Side::Output,
                bits: bit_len(b),
            });
        }
        bases[nb + t] = b as u64;
    }
    Ok(nb + bits)
}

fn int(c: &mut Cursor<'_>) -> Result<i64, F2Error> {
    c.eat(b'_');
    let neg = c.eat(b'-');
    let v = c.uint()?;
    let v = i64::try_from(v).map_err(|_| c.err("an integer in the range of i64"))?;
    Ok(if neg { -v } else { v })
}

/// The deepest nesting the parser follows (a guard against hostile text; a run-time tuple
/// holds at most 96 structure tokens anyway).
const MAX_DEPTH: usize = 32;

/// Parses a tuple of shape leaves, returning its structure.
fn shape_tuple(c: &mut Cursor<'_>, p: &mut Parsed, depth: usize) -> Result<DynTuple, F2Error> {
    if depth > MAX_DEPTH {
        return Err(c.err("nesting at most 32 deep"));
    }
    if c.eat(b'(') {
        let mut t = DynTuple::EMPTY;
        loop {
            let kid = shape_tuple(c, p, depth + 1)?;
            t.push_mode(&kid)?;
            if c.eat(b')') {
                break;
            }
            c.expect(b',', "`,` or `)` in a shape")?;
        }
        return Ok(t);
    }
    if p.n == MAX_LEAVES {
        return Err(c.err("at most 32 leaves"));
    }
    let v = int(c)?;
    p.shape[p.n] = v;
    p.n += 1;
    Ok(DynTuple::leaf(v))
}

fn stride_tuple(
    c: &mut Cursor<'_>,
    p: &mut Parsed,
    at: &mut usize,
    depth: usize,
) -> Result<DynTuple, F2Error> {
    if depth > MAX_DEPTH {
        return Err(c.err("nesting at most 32 deep"));
    }
    if c.eat(b'(') {
        let mut t = DynTuple::EMPTY;
        loop {
            let kid = stride_tuple(c, p, at, depth + 1)?;
            t.push_mode(&kid)?;
            if c.eat(b')') {
                break;
            }
            c.expect(b',', "`,` or `)` in a stride")?;
        }
        return Ok(t);
    }
    if *at == MAX_LEAVES {
        return Err(c.err("at most 32 leaves"));
    }
    let s = if c.eat_str("F2(") {
        // PyCuTe's constructor form `F2(v)`
        let v = c.uint()?;
        c.expect(b')', "`)` after an F2 value")?;
        RawStride::F2Value(v)
    } else if c.eat_str("F2[") || c.eat_str("F[") {
        let start = p.nb;
        if !c.eat(b']') {
            loop {
                if p.nb == MAX_F2_BITS {
                    return Err(c.err("at most 62 F2 bases"));
                }
                p.bases[p.nb] = c.uint()?;
                p.nb += 1;
                if c.eat(b']') {
                    break;
                }
                c.expect(b',', "`,` or `]` in an F2 stride")?;
            }
        }
        RawStride::F2 {
            start,
            n: p.nb - start,
        }
    } else if c.eat(b'F') {
        // PyCuTe's printed form `F9`: the F2 value 9
        RawStride::F2Value(c.uint()?)
    } else {
        RawStride::Int(int(c)?)
    };
    p.stride[*at] = s;
    *at += 1;
    Ok(DynTuple::leaf(0))
}

impl FromStr for MixedLayout {
    type Err = F2Error;

    /// Reads `shape:stride` where a stride leaf is an integer, an F2 value `F9` (PyCuTe's
    /// printed form; `F2(9)` is read too) or bases `F[b0,…]` (also `F2[b0,…]`), optionally
    /// followed by ` o ` and an F2 layout (the `pre` map).
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m: MixedLayout = "(4,2):(1,4) o {index:[2,1,4]} -> {index:8}".parse().unwrap();
    /// assert_eq!(m.offset(1).unwrap(), 2);
    /// assert_eq!(m.to_string(), "(4,2):(1,4) o {index:[2,1,4]} -> {index:8}");
    /// // PyCuTe's text: `F2` is the F2 value 2 (the bases 2, 4)
    /// assert_eq!("3:F2".parse::<MixedLayout>().unwrap().to_string(), "3:F2");
    /// assert_eq!("(2,4):(F2(1),F2(2))".parse::<MixedLayout>().unwrap().to_string(), "(2,4):(F1,F2)");
    /// assert!("4:F[1]".parse::<MixedLayout>().is_err()); // one basis per bit: two here
    /// ```
    fn from_str(s: &str) -> Result<MixedLayout, F2Error> {
        let mut c = Cursor::new(s);
        let mut p = Parsed {
            shape: [0; MAX_LEAVES],
            stride: [RawStride::Int(0); MAX_LEAVES],
            n: 0,
            bases: [0; MAX_F2_BITS],
            nb: 0,
        };
        let shape = shape_tuple(&mut c, &mut p, 0)?;
        c.expect(b':', "`:` between shape and stride")?;
        let mut at = 0;
        let stride_shape = stride_tuple(&mut c, &mut p, &mut at, 0)?;
        if !shape.congruent(&stride_shape) {
            return Err(F2Error::Layout(crate::LayoutError::NotCongruent {
                shape_leaves: p.n,
                stride_leaves: at,
            }));
        }
        let mut ints = shape;
        let mut f2_leaves = 0u64;
        let mut bases = [0u64; MAX_F2_BITS];
        let mut nb = 0;
        for k in 0..p.n {
            let e = p.shape[k];
            match p.stride[k] {
                RawStride::Int(d) => ints.leaves_mut()[k] = d,
                RawStride::F2Value(v) => {
                    // an extent-1 leaf has no bases: its value (printed back) rides in the
                    // body's stride, where extent 1 makes it contribute nothing
                    if e == 1 && v > mask(MAX_F2_BITS) {
                        return Err(F2Error::TooManyBits {
                            side: Side::Output,
                            bits: 64 - v.leading_zeros() as usize,
                        });
                    }
                    ints.leaves_mut()[k] = if e == 1 { v as i64 } else { 0 };
                    f2_leaves |= 1u64 << k;
                    nb = push_value_bases(&mut bases, nb, e, v)?;
                }
                RawStride::F2 { start, n } => {
                    let bits = f2_bits(e);
                    ints.leaves_mut()[k] = 0;
                    f2_leaves |= 1u64 << k;
                    if nb + bits > MAX_F2_BITS {
                        return Err(F2Error::TooManyBits {
                            side: Side::Input,
                            bits: nb + bits,
                        });
                    }
                    if n != bits {
                        return Err(F2Error::Undefined {
                            what: "an F2 stride `F[b0,…]` needs one basis per bit of its extent",
                        });
                    }
                    for t in 0..n {
                        let b = p.bases[start + t];
                        if b > mask(MAX_F2_BITS) {
                            return Err(F2Error::TooManyBits {
                                side: Side::Output,
                                bits: 64 - b.leading_zeros() as usize,
                            });
                        }
                        bases[nb + t] = b;
                    }
                    nb += bits;
                }
            }
        }
        let body = DynLayout::new(&shape, &ints)?;
        let mut m = MixedLayout {
            body,
            f2_leaves,
            f2_bases: bases,
            pre: None,
        };
        if c.peek() == Some(b'o') {
            c.at += 1;
            let f = super::text::parse_f2(&mut c)?;
            m = m.compose_f2(&f)?;
        }
        c.end()?;
        Ok(m)
    }
}
