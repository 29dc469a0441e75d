//! PyCuTe (2026)'s algebra on layouts with F2 strides, read from its documentation and tests
//! (NVIDIA cutlass `python/pycute`, 2026: the `F2` stride scalar of `swizzle.py`, `coalesce`,
//! `coshape`, `right_inverse` and `left_inverse`; see `tests/f2/pycute.rs` for the vectors):
//!
//! - an F2 stride is one value `v`; a leaf of extent `s` maps its coordinate `c < s` to the
//!   carry-less product `c · v` (the bases `v << t`), and the leaves' contributions add by XOR;
//! - `coalesce` merges `(s_a, s_b):(F(a), F(b))` into `s_a·s_b:F(a)` when `b = s_a · a`
//!   (carry-less) and `s_a` is a power of two (or `a = 0`);
//! - the cosize (`coshape`) is the power of two above the leaves' bit spans;
//! - the right inverse follows the chain of strides in increasing order, where a stride may also
//!   carry a component the covered leaves already span (so swizzles invert), and stops using a
//!   leaf whose carried component would leak past the covered range;
//! - the left inverse exists where the F2 strides form a compact chain (no carry-less gap).

use super::{Leaf, MixedLayout, bit_len, clmul, f2_bits, is_pow2, push_value_bases};
use crate::f2::{F2Error, MAX_F2_BITS};
use crate::{DynLayout, MAX_LEAVES};

/// Carry-less division with remainder (polynomials over GF(2)): `a = q·d ⊕ r`, `deg r < deg d`.
fn poly_divmod(a: u128, d: u128) -> (u128, u128) {
    let dd = bit_len(d);
    let (mut q, mut r) = (0u128, a);
    while dd > 0 && bit_len(r) >= dd {
        let shift = bit_len(r) - dd;
        q ^= 1 << shift;
        r ^= d << shift;
    }
    (q, r)
}

/// A flat layout of F2 strides (extent, value) evaluated at the F2 index `x`: the index is split
/// carry-lessly into coordinates (the last leaf keeps the quotient), which are multiplied
/// carry-lessly by the strides and added by XOR. Refused where a prefix product carries.
fn eval_at_f2(leaves: &[(i64, u128)], x: u128) -> Result<u128, F2Error> {
    let Some((last, init)) = leaves.split_last() else {
        return Ok(0);
    };
    let (mut idx, mut acc, mut pps) = (x, 0u128, 1i64);
    for &(s, d) in init {
        let z = pps
            .checked_mul(s)
            .ok_or(F2Error::Layout(crate::LayoutError::Overflow {
                what: "prefix product",
            }))?;
        if clmul(pps as u128, s as u128) != z as u128 {
            return Err(F2Error::CarryingShape {
                extent: s,
                prefix: pps,
            });
        }
        pps = z;
        let (q, r) = poly_divmod(idx, s as u128);
        acc ^= clmul(r, d);
        idx = q;
    }
    Ok(acc ^ clmul(idx, last.1))
}

/// Whether `(sa, a)` then `(sb, b)` coalesce, and into what (PyCuTe's rule for F2 strides,
/// CuTe's for integers).
fn merge(sa: i64, a: Leaf<'_>, sb: i64, b: Leaf<'_>) -> Option<(i64, Leaf<'static>)> {
    let s = sa.checked_mul(sb)?;
    match (a, b) {
        (Leaf::Int(da), Leaf::Int(db)) if sa.checked_mul(da) == Some(db) => {
            Some((s, Leaf::Int(da)))
        }
        (Leaf::F2(va), Leaf::F2(vb))
            if clmul(sa as u128, va as u128) == vb as u128 && (is_pow2(sa) || va == 0) =>
        {
            Some((s, Leaf::F2(va)))
        }
        _ => None,
    }
}

impl MixedLayout {
    /// A flat layout from its leaves (`1:0` for none).
    fn from_leaves(leaves: &[(i64, Leaf<'_>)]) -> Result<MixedLayout, F2Error> {
        let n = leaves.len();
        if n == 0 {
            return Ok(MixedLayout::from(DynLayout::leaf(1, 0)?));
        }
        if n > MAX_LEAVES {
            return Err(F2Error::Undefined {
                what: "a layout of more than 32 leaves",
            });
        }
        let mut shape = [0i64; MAX_LEAVES];
        let mut stride = [0i64; MAX_LEAVES];
        let mut f2_leaves = 0u64;
        let mut bases = [0u64; MAX_F2_BITS];
        let mut nb = 0;
        for (k, &(e, l)) in leaves.iter().enumerate() {
            shape[k] = e;
            match l {
                Leaf::Int(d) => stride[k] = d,
                Leaf::F2(v) => {
                    f2_leaves |= 1u64 << k;
                    if e == 1 {
                        stride[k] = i64::try_from(v).unwrap_or(0);
                    }
                    nb = push_value_bases(&mut bases, nb, e, v)?;
                }
                Leaf::Bases(b) => {
                    f2_leaves |= 1u64 << k;
                    if b.len() != f2_bits(e) || nb + b.len() > MAX_F2_BITS {
                        return Err(F2Error::Undefined {
                            what: "an F2 stride needs one basis per bit of its extent",
                        });
                    }
                    bases[nb..nb + b.len()].copy_from_slice(b);
                    nb += b.len();
                }
            }
        }
        let body = if n == 1 {
            DynLayout::leaf(shape[0], stride[0])?
        } else {
            DynLayout::from_flat(&shape[..n], &stride[..n])?
        };
        Ok(MixedLayout {
            body,
            f2_leaves,
            f2_bases: bases,
            pre: None,
        })
    }

    /// CuTe's `coalesce`, with PyCuTe's rule for F2 strides: size-1 leaves drop, and adjacent
    /// leaves `(s_a, s_b):(F(a), F(b))` merge into `s_a·s_b:F(a)` when `b = s_a · a` carry-less
    /// and `s_a` is a power of two (or `a = 0`). The offset of every index is kept.
    ///
    /// # Errors
    /// [`F2Error::Undefined`] for a layout after an F2 map.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m: MixedLayout = "(4,4):(F3,F12)".parse().unwrap(); // 4 · F3 = F12
    /// assert_eq!(m.coalesce().unwrap().to_string(), "16:F3");
    /// // 3 is not a power of two: c0 + 3·c1 carries, c0 XOR 3·c1 does not, so no merge
    /// let m: MixedLayout = "(3,4):(F1,F3)".parse().unwrap();
    /// assert_eq!(m.coalesce().unwrap().to_string(), "(3,4):(F1,F3)");
    /// ```
    pub fn coalesce(&self) -> Result<MixedLayout, F2Error> {
        if self.pre.is_some() {
            return Err(F2Error::Undefined {
                what: "coalesce of a layout after an F2 map: not defined",
            });
        }
        if self.f2_leaves == 0 {
            return Ok(MixedLayout::from(self.body.coalesce()));
        }
        let mut out = [(0i64, Leaf::Int(0)); MAX_LEAVES];
        let mut n = 0;
        for (s, l) in self.leaves() {
            if s == 1 {
                continue;
            }
            if n > 0 {
                let (sa, la) = out[n - 1];
                if let Some(m) = merge(sa, la, s, l) {
                    out[n - 1] = m;
                    continue;
                }
            }
            out[n] = (s, l);
            n += 1;
        }
        MixedLayout::from_leaves(&out[..n])
    }

    /// The size of the codomain (PyCuTe's `coshape` of an integer-like codomain): for F2
    /// strides the power of two above every leaf's largest contribution (XOR is not monotone:
    /// offsets are bounded by bit span, not by sums); CuTe's `cosize` otherwise.
    ///
    /// # Errors
    /// [`F2Error::MixedStrides`]; [`F2Error::Undefined`] after an F2 map that is not a
    /// bijection.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// // 4:F3 reaches 3·3 = 5 carry-less, and 2·3 = 6: 8 offsets
    /// assert_eq!("4:F3".parse::<MixedLayout>().unwrap().cosize().unwrap(), 8);
    /// assert_eq!("(8,8):(F9,F1)".parse::<MixedLayout>().unwrap().cosize().unwrap(), 64);
    /// assert_eq!("8:F0".parse::<MixedLayout>().unwrap().cosize().unwrap(), 1);
    /// ```
    pub fn cosize(&self) -> Result<i64, F2Error> {
        if let Some(p) = &self.pre
            && p.invert().is_err()
        {
            return Err(F2Error::Undefined {
                what: "cosize of a layout after a non-bijective F2 map: not defined",
            });
        }
        if self.f2_leaves == 0 {
            return Ok(self.body.cosize());
        }
        self.one_codomain()?;
        let mut hi = 0;
        for (s, l) in self.leaves() {
            let top = match l {
                Leaf::F2(v) => clmul((s - 1) as u128, v as u128),
                Leaf::Bases(b) => b.iter().fold(0u128, |a, &v| a | v as u128),
                Leaf::Int(_) => 0,
            };
            hi = hi.max(bit_len(top));
        }
        Ok(1i64 << hi)
    }

    /// PyCuTe's `right_inverse`: the largest right inverse `R`, as a layout (F2 strides for an
    /// F2 codomain): `R(self(R(i))) == R(i)`, and `self(R(y)) == y` for every `y < size(R)`.
    /// The chain of strides is followed in increasing order; an F2 stride may carry a
    /// component the covered leaves already span (`(8,8):(F1,F9)` is its own right inverse), and
    /// a leaf whose component would leak past the covered range ends its use (the chain stops
    /// growing there). Integer layouts get CuTe's right inverse; a layout after an F2 map (or
    /// with `F[…]` bases) gets [`right_inverse`](Self::right_inverse) as one F2 stride.
    ///
    /// # Errors
    /// [`F2Error::MixedStrides`]; [`F2Error::CarryingShape`].
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m: MixedLayout = "(8,8):(F9,F1)".parse().unwrap();
    /// let r = m.right_inverse_layout().unwrap();
    /// assert_eq!(r.to_string(), "(8,8):(F8,F9)");
    /// for y in 0..64 {
    ///     assert_eq!(m.offset(r.offset(y).unwrap()).unwrap(), y);
    /// }
    /// ```
    pub fn right_inverse_layout(&self) -> Result<MixedLayout, F2Error> {
        if self.pre.is_some() || self.leaves().any(|(_, l)| matches!(l, Leaf::Bases(_))) {
            return MixedLayout::from_f2(&self.right_inverse()?);
        }
        if self.f2_leaves == 0 {
            return Ok(MixedLayout::from(self.body.right_inverse()));
        }
        self.one_codomain()?;
        let c = self.coalesce()?;
        let mut chain = [(0u64, 0i64, 0i64); MAX_LEAVES];
        let mut n = 0;
        let mut pps = 1i64;
        for (s, l) in c.leaves() {
            let v = match l {
                Leaf::F2(v) => v,
                _ => 0,
            };
            chain[n] = (v, s, pps);
            n += 1;
            pps = pps.saturating_mul(s);
        }
        // by value, ties in leaf order (`pps` never decreases along the leaves, and where it
        // repeats the earlier leaf has extent 1): the stable order, without `alloc`
        chain[..n].sort_unstable_by_key(|x| (x.0, x.2, x.1));
        let mut curr: u128 = 1;
        // a power-of-two leaf of the chain gets one inverse stride per bit of its coordinate:
        // the correction by the leaves already covered is linear in the coordinate's bits,
        // not a carry-less multiple of one stride ((4,4,4):(F4,F1,F18) needs F24 and F33 for
        // its last leaf's two bits); consecutive bits that line up join again
        const CAP: usize = MAX_LEAVES + 64;
        let mut res = [(0i64, 0u128); CAP];
        let mut r = 0;
        for &(v, s, pps) in &chain[..n] {
            if v == 0 || s == 1 {
                continue;
            }
            let residue = curr ^ v as u128;
            if clmul((s - 1) as u128, residue) >= curr {
                continue; // off the chain: the image would stop being contiguous
            }
            let covered = r;
            let bits = if residue != 0 && (s as u64).is_power_of_two() {
                s.trailing_zeros()
            } else {
                0
            };
            let mut parts = [(0i64, 0u128); 64];
            let np = if bits == 0 {
                let mut stride = pps as u128;
                if residue != 0 {
                    stride ^= eval_at_f2(&res[..covered], residue)?;
                }
                parts[0] = (s, stride);
                1
            } else {
                for (t, part) in parts.iter_mut().enumerate().take(bits as usize) {
                    let stride = ((pps as u128) << t)
                        ^ eval_at_f2(&res[..covered], clmul(1u128 << t, residue))?;
                    *part = (2, stride);
                }
                bits as usize
            };
            for &(ps, stride) in &parts[..np] {
                match r.checked_sub(1).map(|q| res[q]) {
                    Some((sa, da))
                        if r > covered
                            && (sa as u64).is_power_of_two()
                            && clmul(sa as u128, da) == stride =>
                    {
                        res[r - 1] = (sa.saturating_mul(ps), da);
                    }
                    _ if r < CAP => {
                        res[r] = (ps, stride);
                        r += 1;
                    }
                    _ => {
                        return Err(F2Error::Undefined {
                            what: "a right inverse of more than 32 leaves",
                        });
                    }
                }
            }
            curr = clmul(s as u128, curr);
        }
        if r > MAX_LEAVES {
            return Err(F2Error::Undefined {
                what: "a right inverse of more than 32 leaves",
            });
        }
        let mut leaves = [(0i64, Leaf::Int(0)); MAX_LEAVES];
        for (k, &(s, d)) in res[..r].iter().enumerate() {
            let d = u64::try_from(d).map_err(|_| F2Error::TooManyBits {
                side: crate::f2::Side::Output,
                bits: bit_len(d),
            })?;
            leaves[k] = (s, Leaf::F2(d));
        }
        MixedLayout::from_leaves(&leaves[..r])?.coalesce()
    }

    /// PyCuTe's `left_inverse`, as a layout: `R(self(i)) == i` for an injective layout (and
    /// `self(R(self(i))) == self(i)` in general). For F2 strides PyCuTe defines it only where
    /// the strides, in increasing order, form a compact chain (each one the product of the
    /// smaller ones' extents: no gap, which would be a carry-less extent); then the offsets are
    /// those of the integer layout with the same strides, and `R` is its left inverse. Integer
    /// layouts get CuTe's left inverse; a layout after an F2 map (or with `F[…]` bases) gets
    /// [`left_inverse`](Self::left_inverse) as one F2 stride.
    ///
    /// # Errors
    /// [`F2Error::Boundary`] naming the stride that leaves a gap and the one expected;
    /// [`F2Error::ModeNotPowerOfTwo`] for an extent of such a chain that is not a power of two
    /// (where XOR and `+` differ); [`F2Error::MixedStrides`]; CuTe's errors.
    ///
    /// ```
    /// use layout::f2::MixedLayout;
    /// let m: MixedLayout = "(4,8):(F1,F4)".parse().unwrap();
    /// assert_eq!(m.left_inverse_layout().unwrap().to_string(), "32:1");
    /// // F9 leaves a gap after F1·8 = F8: refused, as PyCuTe does
    /// assert!("(8,8):(F1,F9)".parse::<MixedLayout>().unwrap().left_inverse_layout().is_err());
    /// ```
    pub fn left_inverse_layout(&self) -> Result<MixedLayout, F2Error> {
        if self.pre.is_some() || self.leaves().any(|(_, l)| matches!(l, Leaf::Bases(_))) {
            return MixedLayout::from_f2(&self.left_inverse()?);
        }
        if self.f2_leaves == 0 {
            return Ok(MixedLayout::from(self.body.left_inverse()?));
        }
        self.one_codomain()?;
        let mut chain = [(0u64, 0i64, 0usize); MAX_LEAVES];
        let mut n = 0;
        let mut strides = self.body.stride();
        for (k, (s, l)) in self.leaves().enumerate() {
            if let Leaf::F2(v) = l {
                strides.leaves_mut()[k] = v as i64;
                if v != 0 && s > 1 {
                    chain[n] = (v, s, k);
                    n += 1;
                }
            }
        }
        // by value, ties in leaf order (`k`): the stable order, without `alloc`
        chain[..n].sort_unstable_by_key(|x| (x.0, x.2));
        let mut curr: u128 = 1;
        for &(v, s, k) in &chain[..n] {
            if v as u128 != curr {
                return Err(F2Error::Boundary {
                    what: "left_inverse of F2 strides needs each stride to be the product of the smaller ones' extents (no carry-less gap)",
                    size: v as i64,
                    needed: curr as i64,
                });
            }
            if !is_pow2(s) {
                return Err(F2Error::ModeNotPowerOfTwo { leaf: k, extent: s });
            }
            curr *= s as u128;
        }
        let ints = DynLayout::new(&self.body.shape(), &strides)?;
        Ok(MixedLayout::from(ints.left_inverse()?))
    }
}

impl MixedLayout {
    /// Composition `self ∘ b` with an integer layout `b` on the index: `R(i) = self(b(i))`,
    /// shaped like `b`. For F2 strides it is defined where both sides are maps over GF(2) — `self`
    /// F2-linear ([`to_f2`](Self::to_f2)) and `b` carry-free (the images `d << t` of its
    /// coordinate bits pairwise disjoint, strides non-negative, offsets inside `self`'s
    /// power-of-two size) — and then each leaf of `b` gets the F2 stride whose bases are
    /// `self`'s offsets of those images: PyCuTe's composition, which multiplies `self`'s F2
    /// strides by `b`'s integer factors carry-lessly (`(8,8):(F1,F9) ∘ 8:8 = 8:F9`). An integer
    /// layout gets CuTe's composition; a layout after an F2 map composes `b` into that map.
    ///
    /// # Errors
    /// [`F2Error::NotLinear`] naming two images of `b` that carry; [`F2Error::NegativeStride`];
    /// [`F2Error::Boundary`] when `b` leaves `self`'s index; `to_f2`'s errors; CuTe's errors.
    ///
    /// # Postconditions
    /// `R.offset(i) == self.offset(b.offset(i))` for every `i < size(b)`.
    ///
    /// ```
    /// use layout::DynLayout;
    /// use layout::f2::MixedLayout;
    /// let a: MixedLayout = "(8,8):(F1,F9)".parse().unwrap();
    /// let b: DynLayout = "(4,2):(2,8)".parse().unwrap();
    /// let r = a.compose_layout(&b).unwrap();
    /// assert_eq!(r.to_string(), "(4,2):(F2,F9)");
    /// for i in 0..8 {
    ///     assert_eq!(r.offset(i).unwrap(), a.offset(b.offset(i)).unwrap());
    /// }
    /// // 3 · 3 carries, 3 ⊗ 3 does not: refused, not approximated
    /// assert!(a.compose_layout(&"4:3".parse().unwrap()).is_err());
    /// ```
    pub fn compose_layout(&self, b: &DynLayout) -> Result<MixedLayout, F2Error> {
        if self.pre.is_some() {
            let f = crate::f2::F2Layout::from_layout(b)?.rename_outputs(&[("offset", "index")])?;
            return self.compose_f2(&f);
        }
        if self.f2_leaves == 0 {
            return Ok(MixedLayout::from(self.body.composition(b)?));
        }
        self.to_f2()?;
        let size = self.size();
        let (bs, bd) = (b.shape_leaves(), b.stride_leaves());
        let mut imgs = [0u128; MAX_F2_BITS];
        let mut bases = [0u64; MAX_F2_BITS];
        let mut nb = 0;
        let mut f2_leaves = 0u64;
        for (k, (&s, &d)) in bs.iter().zip(bd).enumerate() {
            if d < 0 {
                return Err(F2Error::NegativeStride { leaf: k, stride: d });
            }
            let bits = f2_bits(s);
            if nb + bits > MAX_F2_BITS {
                return Err(F2Error::TooManyBits {
                    side: crate::f2::Side::Input,
                    bits: nb + bits,
                });
            }
            f2_leaves |= 1u64 << k;
            for t in 0..bits {
                let img = (d as u128) << t;
                if img >= size as u128 {
                    return Err(F2Error::Boundary {
                        what: "the right-hand side's offsets must stay inside the F2 layout's index",
                        size: i64::try_from(img).unwrap_or(i64::MAX),
                        needed: size,
                    });
                }
                if let Some(&other) = imgs[..nb].iter().find(|&&o| o & img != 0) {
                    return Err(F2Error::NotLinear {
                        a: other as i64,
                        b: img as i64,
                    });
                }
                imgs[nb] = img;
                bases[nb] = self.offset(img as i64)? as u64;
                nb += 1;
            }
        }
        let zeros = {
            let mut z = b.stride();
            for v in z.leaves_mut() {
                *v = 0;
            }
            z
        };
        Ok(MixedLayout {
            body: DynLayout::new(&b.shape(), &zeros)?,
            f2_leaves,
            f2_bases: bases,
            pre: None,
        })
    }
}
