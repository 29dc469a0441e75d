//! The instruction sets every SIMD path of the crate is written for — the copy engine's
//! transposes, the packed nibble shuffles, the GEMM kernels — detected once per process.
//!
//! The environment variable `LAYOUT_ISA` (`portable` | `avx2` | `avx512`) caps every path at
//! once, so tests, valgrind (which cannot run AVX-512) and miri (which runs only plain Rust) can
//! force each one on one machine: `LAYOUT_ISA=portable` moves every element through plain Rust
//! code. `LAYOUT_GEMM_ISA` (the older name) caps the GEMM alone. An unknown or unavailable
//! name falls back to the best set the CPU has, never to an instruction it lacks.
//!
//! ```
//! use layout::isa::Isa;
//! let best = Isa::best();
//! assert!(best.is_available());
//! assert!(Isa::selected() <= best);
//! assert!(Isa::available().any(|i| i == Isa::Portable));
//! ```

/// An instruction-set level, weakest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// Plain Rust, no SIMD intrinsics; available everywhere. (Copies still use SSE2 on
    /// x86-64 unless `LAYOUT_ISA=portable` asks for plain code.)
    Portable,
    /// x86-64 with AVX2 and FMA (256-bit vectors; x86-64-v3).
    Avx2,
    /// x86-64 with AVX-512 F and BW (and FMA): 512-bit vectors (x86-64-v4).
    Avx512,
}

impl Isa {
    /// Every level, portable first.
    pub const ALL: [Isa; 3] = [Isa::Portable, Isa::Avx2, Isa::Avx512];

    /// Whether this CPU runs `self`.
    pub fn is_available(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            Isa::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            Isa::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
            _ => false,
        }
    }

    /// The levels this CPU runs, portable first.
    pub fn available() -> impl Iterator<Item = Isa> {
        Isa::ALL.into_iter().filter(|i| i.is_available())
    }

    /// The name the environment variables accept: `portable`, `avx2` or `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }

    /// The level named `name` (case and surrounding blanks ignored).
    pub fn from_name(name: &str) -> Option<Isa> {
        let name = name.trim();
        Isa::ALL
            .into_iter()
            .find(|i| i.name().eq_ignore_ascii_case(name))
    }

    /// The best level this CPU runs (detected once).
    pub fn best() -> Isa {
        #[cfg(feature = "std")]
        {
            static BEST: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
            *BEST.get_or_init(|| Isa::available().last().unwrap_or(Isa::Portable))
        }
        #[cfg(not(feature = "std"))]
        {
            Isa::Portable
        }
    }

    /// The level `LAYOUT_ISA` asks for, when it names one this CPU runs (read once).
    pub fn forced() -> Option<Isa> {
        #[cfg(feature = "std")]
        {
            static FORCED: std::sync::OnceLock<Option<Isa>> = std::sync::OnceLock::new();
            *FORCED.get_or_init(|| from_env("LAYOUT_ISA"))
        }
        #[cfg(not(feature = "std"))]
        {
            None
        }
    }

    /// The level every SIMD path uses: [`Isa::forced`] when set, else [`Isa::best`].
    pub fn selected() -> Isa {
        Isa::forced().unwrap_or_else(Isa::best)
    }

    /// The level the GEMM uses by default: `LAYOUT_GEMM_ISA` when it names an available level,
    /// else [`Isa::selected`].
    pub fn selected_for_gemm() -> Isa {
        #[cfg(feature = "std")]
        {
            static GEMM: std::sync::OnceLock<Isa> = std::sync::OnceLock::new();
            *GEMM.get_or_init(|| from_env("LAYOUT_GEMM_ISA").unwrap_or_else(Isa::selected))
        }
        #[cfg(not(feature = "std"))]
        {
            Isa::selected()
        }
    }
}

/// The available level named by environment variable `var`.
#[cfg(feature = "std")]
fn from_env(var: &str) -> Option<Isa> {
    std::env::var(var)
        .ok()
        .and_then(|v| Isa::from_name(&v))
        .filter(|i| i.is_available())
}

/// Whether the AVX-512 BF16 dot products (`vdpbf16ps`) may run: the CPU has them and the
/// selected level is AVX-512.
#[cfg_attr(not(feature = "std"), allow(dead_code))]
pub(crate) fn has_avx512_bf16(level: Isa) -> bool {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        level == Isa::Avx512
            && level.is_available()
            && std::arch::is_x86_feature_detected!("avx512bf16")
    }
    #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
    {
        let _ = level;
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_levels_are_ordered() {
        for i in Isa::ALL {
            assert_eq!(Isa::from_name(i.name()), Some(i));
            assert_eq!(Isa::from_name(&i.name().to_ascii_uppercase()), Some(i));
        }
        assert_eq!(Isa::from_name("sse9"), None);
        // available levels are a prefix of ALL: a CPU that runs one runs the weaker ones
        let avail: std::vec::Vec<Isa> = Isa::available().collect();
        assert_eq!(&Isa::ALL[..avail.len()], &avail[..]);
        assert_eq!(Isa::best(), *avail.last().unwrap());
        assert!(Isa::selected().is_available() && Isa::selected_for_gemm().is_available());
    }
}
