//! One nibble permutation applied to every 32-bit word (AWQ ↔ GPTQ), through byte shuffles.
//!
//! Nibble `q` of a little-endian word is the low half of byte `q / 2` when `q` is even, the high
//! half otherwise. Destination byte `j` of a word is `n[perm[2j]] | n[perm[2j+1]] << 4`. With
//! `lo` the low nibbles of every byte and `hi` the high ones, each half of the output is two
//! in-lane byte shuffles — one picking from `lo`, one from `hi`, the other's lanes zeroed by
//! index `0x80` — OR-ed together: four shuffles, two masks and two shifts per register, built
//! from `perm` once per call.

/// The instruction sets with a shuffle path.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Isa {
    /// No vector path: the caller's scalar loop does everything.
    Scalar,
    /// 32 bytes per step (`vpshufb` on 256 bits).
    #[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
    Avx2,
    /// 64 bytes per step (`vpshufb` on 512 bits, AVX-512 BW).
    #[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
    Avx512,
    /// 16 bytes per step (`tbl` on 128 bits, aarch64 NEON).
    #[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
    Neon,
}

impl Isa {
    /// The best set this CPU runs.
    pub(super) fn detect() -> Isa {
        // the crate's one detection, capped by `LAYOUT_ISA`
        match crate::isa::Isa::selected() {
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            crate::isa::Isa::Avx512 => Isa::Avx512,
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            crate::isa::Isa::Avx2 => Isa::Avx2,
            #[cfg(target_arch = "aarch64")]
            crate::isa::Isa::Neon => Isa::Neon,
            _ => Isa::Scalar,
        }
    }

    /// Every set this CPU runs (for tests that force each path).
    #[cfg(test)]
    pub(super) fn available() -> impl Iterator<Item = Isa> {
        let best = Isa::detect();
        [Isa::Scalar, Isa::Avx2, Isa::Avx512, Isa::Neon]
            .into_iter()
            .filter(move |i| match best {
                Isa::Avx512 => *i != Isa::Neon,
                Isa::Avx2 => matches!(i, Isa::Scalar | Isa::Avx2),
                Isa::Scalar => *i == Isa::Scalar,
                Isa::Neon => matches!(i, Isa::Scalar | Isa::Neon),
            })
    }
}

/// The four shuffle index vectors of one 16-byte lane (four words): for the low / high output
/// nibble of each byte, the source byte when the source nibble is a low (`from_lo`) or a high
/// (`from_hi`) one, `0x80` (zero) otherwise.
#[cfg_attr(
    not(any(all(target_arch = "x86_64", feature = "std"), target_arch = "aarch64")),
    allow(dead_code)
)]
fn indices(perm: &[u32; 8]) -> [[u8; 16]; 4] {
    let mut t = [[0x80u8; 16]; 4];
    for w in 0..4 {
        for j in 0..4 {
            for (half, &q) in [perm[2 * j], perm[2 * j + 1]].iter().enumerate() {
                let byte = (4 * w + q as usize / 2) as u8;
                // t[2·half]: picks from the low nibbles, t[2·half + 1]: from the high ones
                t[2 * half + (q as usize % 2)][4 * w + j] = byte;
            }
        }
    }
    t
}

/// Permute the nibbles of the whole vectors at the front of `src` into `dst` with `isa`;
/// returns the number of bytes done (a multiple of the vector width; the caller does the rest).
/// `perm[k] < 8` for every `k`.
pub(super) fn permute(isa: Isa, src: &[u8], dst: &mut [u8], perm: &[u32; 8]) -> usize {
    if isa == Isa::Scalar || perm.iter().any(|&q| q >= 8) {
        return 0;
    }
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        let n = src.len().min(dst.len());
        let t = indices(perm);
        match isa {
            Isa::Scalar => 0,
            // SAFETY: `detect` / `available` name only sets this CPU runs; `n` bounds both
            // slices.
            Isa::Avx2 => unsafe { x86::avx2(src.as_ptr(), dst.as_mut_ptr(), n / 32, &t) * 32 },
            // SAFETY: as above.
            Isa::Avx512 => unsafe { x86::avx512(src.as_ptr(), dst.as_mut_ptr(), n / 64, &t) * 64 },
            // (never detected on x86-64)
            Isa::Neon => 0,
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        if isa != Isa::Neon {
            return 0;
        }
        let n = src.len().min(dst.len());
        let t = indices(perm);
        // SAFETY: NEON is in every aarch64 CPU; `n` bounds both slices.
        unsafe { neon::tbl(src.as_ptr(), dst.as_mut_ptr(), n / 16, &t) * 16 }
    }
    #[cfg(not(any(all(target_arch = "x86_64", feature = "std"), target_arch = "aarch64")))]
    {
        let _ = (src, dst);
        0
    }
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
mod x86 {
    use core::arch::x86_64::*;

    /// One kernel per vector width: the same steps with that width's intrinsics.
    macro_rules! kernel {
        (
            $(#[$doc:meta])* $name:ident, $feature:literal, $width:literal,
            $broadcast:ident, $load:ident, $store:ident, $set1:ident,
            $and:ident, $or:ident, $shuffle:ident, $srli:ident, $slli:ident
        ) => {
            $(#[$doc])*
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn $name(
                src: *const u8,
                dst: *mut u8,
                steps: usize,
                t: &[[u8; 16]; 4],
            ) -> usize {
                // SAFETY: (whole body) the caller's CPU runs these instructions; every load and
                // store is inside the caller's `width·steps` bytes; the index tables are 16-byte
                // arrays.
                unsafe {
                    let idx = |k: usize| $broadcast(_mm_loadu_si128(t[k].as_ptr().cast()));
                    let (ll, lh, hl, hh) = (idx(0), idx(1), idx(2), idx(3));
                    let m = $set1(0x0F);
                    for s in 0..steps {
                        let x = $load(src.add($width * s).cast());
                        let lo = $and(x, m);
                        let hi = $and($srli::<4>(x), m);
                        let low = $or($shuffle(lo, ll), $shuffle(hi, lh));
                        let high = $or($shuffle(lo, hl), $shuffle(hi, hh));
                        $store(dst.add($width * s).cast(), $or(low, $slli::<4>(high)));
                    }
                }
                steps
            }
        };
    }

    kernel!(
        /// `steps` blocks of 32 bytes.
        ///
        /// # Safety
        /// The CPU runs AVX2; `src` readable and `dst` writable for `32·steps` bytes.
        avx2, "avx2", 32, _mm256_broadcastsi128_si256, _mm256_loadu_si256, _mm256_storeu_si256,
        _mm256_set1_epi8, _mm256_and_si256, _mm256_or_si256, _mm256_shuffle_epi8,
        _mm256_srli_epi16, _mm256_slli_epi16
    );
    kernel!(
        /// `steps` blocks of 64 bytes.
        ///
        /// # Safety
        /// The CPU runs AVX-512 F and BW; `src` readable and `dst` writable for `64·steps` bytes.
        avx512, "avx512f,avx512bw", 64, _mm512_broadcast_i32x4, _mm512_loadu_si512,
        _mm512_storeu_si512, _mm512_set1_epi8, _mm512_and_si512, _mm512_or_si512,
        _mm512_shuffle_epi8, _mm512_srli_epi16, _mm512_slli_epi16
    );
}

#[cfg(target_arch = "aarch64")]
mod neon {
    use core::arch::aarch64::*;

    /// `steps` blocks of 16 bytes: the four shuffles are `tbl` (an index of 16 or more, as
    /// `0x80`, gives zero).
    ///
    /// # Safety
    /// NEON is available; `src` readable and `dst` writable for `16·steps` bytes.
    pub(super) unsafe fn tbl(
        src: *const u8,
        dst: *mut u8,
        steps: usize,
        t: &[[u8; 16]; 4],
    ) -> usize {
        // SAFETY: (whole body) NEON (the caller); every load and store is inside the caller's
        // `16·steps` bytes; the index tables are 16-byte arrays.
        unsafe {
            let idx = |k: usize| vld1q_u8(t[k].as_ptr());
            let (ll, lh, hl, hh) = (idx(0), idx(1), idx(2), idx(3));
            let m = vdupq_n_u8(0x0F);
            for s in 0..steps {
                let x = vld1q_u8(src.add(16 * s));
                let lo = vandq_u8(x, m);
                let hi = vshrq_n_u8::<4>(x);
                let low = vorrq_u8(vqtbl1q_u8(lo, ll), vqtbl1q_u8(hi, lh));
                let high = vorrq_u8(vqtbl1q_u8(lo, hl), vqtbl1q_u8(hi, hh));
                vst1q_u8(dst.add(16 * s), vorrq_u8(low, vshlq_n_u8::<4>(high)));
            }
        }
        steps
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// The definition, word by word.
    fn reference(src: &[u8], perm: &[u32; 8]) -> Vec<u8> {
        src.chunks_exact(4)
            .flat_map(|w| {
                let x = u32::from_le_bytes(w.try_into().unwrap());
                let mut y = 0u32;
                for (k, &p) in perm.iter().enumerate() {
                    y |= ((x >> (4 * p)) & 15) << (4 * k);
                }
                y.to_le_bytes()
            })
            .collect()
    }

    /// Every available path, on random permutations (AWQ's among them) and lengths that leave
    /// tails: the bytes it reports done equal the definition, the rest is untouched.
    #[test]
    fn shuffles_match_the_definition() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let awq = [0, 2, 4, 6, 1, 3, 5, 7];
        for isa in Isa::available() {
            for case in 0..60 {
                let mut perm: [u32; 8] = core::array::from_fn(|k| k as u32);
                if case == 0 {
                    perm = awq;
                } else {
                    for k in (1..8).rev() {
                        perm.swap(k, (next() % (k as u64 + 1)) as usize);
                    }
                }
                let words = [0usize, 1, 7, 8, 15, 16, 33, 1000][case % 8];
                let src: Vec<u8> = (0..4 * words).map(|_| next() as u8).collect();
                let mut dst = std::vec![0xA5u8; src.len()];
                let done = permute(isa, &src, &mut dst, &perm);
                assert_eq!(done % 4, 0);
                let want = reference(&src, &perm);
                assert_eq!(
                    &dst[..done],
                    &want[..done],
                    "{isa:?} {perm:?} {words} words"
                );
                assert!(dst[done..].iter().all(|&b| b == 0xA5));
                if isa != Isa::Scalar {
                    let width = match isa {
                        Isa::Avx2 => 32,
                        Isa::Neon => 16,
                        _ => 64,
                    };
                    assert_eq!(done, src.len() / width * width);
                }
            }
        }
    }
}
