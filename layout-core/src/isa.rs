//! The instruction sets every SIMD path of the crate is written for — the copy engine's
//! transposes, the packed nibble shuffles, the GEMM kernels — detected once per process.
//!
//! The environment variable `LAYOUT_ISA` (`portable` | `avx2` | `avx512` on x86-64, `portable` |
//! `neon` on aarch64) caps every path at once, so tests, valgrind (which cannot run AVX-512) and miri (which runs only plain Rust) can
//! force each one on one machine: `LAYOUT_ISA=portable` moves every element through plain Rust
//! code. `LAYOUT_GEMM_ISA` (the older name) caps the GEMM alone. An unknown or unavailable
//! name falls back to the best set the CPU has, never to an instruction it lacks.
//! `LAYOUT_GEMM_AMX=off` keeps the GEMM off the AMX tiles (which it uses only at the AVX-512
//! level), as `LAYOUT_GEMM_VNNI=off` keeps it off `vpdpbusd`.
//!
//! On aarch64 the level is [`Isa::Neon`] (every aarch64 CPU has Advanced SIMD) and the optional
//! extensions ([`Ext`]: `dotprod`, `i8mm`, `bf16`, `fp16`) are detected one by one;
//! `LAYOUT_NEON_EXT` (a comma-separated list of the extensions the kernels may use, or `none`)
//! switches them off, so tests can force every extension path on and off on one machine.
//!
//! The data cache sizes (L1d, L2, last level) are read here too, from CPUID; the GEMM derives
//! its cache blocking from them. `LAYOUT_CACHES=32K,512K,32M` takes another CPU's sizes
//! (here Zen 3's), for tests and for cache simulators configured like that CPU.
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
    /// aarch64 Advanced SIMD (NEON, 128-bit vectors, 32 registers): every aarch64 CPU. The
    /// optional extensions are [`Ext`]s. (Ordered below the x86 levels so that a test
    /// `isa >= Isa::Avx2` never holds for it; levels of different architectures are never
    /// both available.)
    Neon,
    /// x86-64 with AVX2 and FMA (256-bit vectors; x86-64-v3).
    Avx2,
    /// x86-64 with AVX-512 F and BW (and FMA): 512-bit vectors (x86-64-v4).
    Avx512,
}

impl Isa {
    /// Every level of every architecture, portable first.
    pub const ALL: [Isa; 4] = [Isa::Portable, Isa::Neon, Isa::Avx2, Isa::Avx512];

    /// Whether this CPU runs `self` (detected once; one load and a bit test after that).
    #[inline]
    pub fn is_available(self) -> bool {
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        {
            use core::sync::atomic::{AtomicU8, Ordering};
            // bit 7: detected; bit i: level i available
            static LEVELS: AtomicU8 = AtomicU8::new(0);
            let mut bits = LEVELS.load(Ordering::Relaxed);
            if bits == 0 {
                bits = 0x80;
                for (i, isa) in Isa::ALL.into_iter().enumerate() {
                    if isa.detect() {
                        bits |= 1 << i;
                    }
                }
                LEVELS.store(bits, Ordering::Relaxed);
            }
            bits & (1 << self as u8) != 0
        }
        #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
        {
            self.detect()
        }
    }

    /// The CPU's answer for `self`, asked each time.
    fn detect(self) -> bool {
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
            Isa::Avx2 | Isa::Avx512 => false,
            // Advanced SIMD is part of the aarch64 base architecture (the target enables it)
            Isa::Neon => cfg!(all(target_arch = "aarch64", target_feature = "neon")),
        }
    }

    /// The levels this CPU runs, portable first.
    pub fn available() -> impl Iterator<Item = Isa> {
        Isa::ALL.into_iter().filter(|i| i.is_available())
    }

    /// The name the environment variables accept: `portable`, `neon`, `avx2` or `avx512`.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Neon => "neon",
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

/// An optional aarch64 extension the NEON kernels use where the CPU has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ext {
    /// `FEAT_DotProd`: `sdot` / `udot`, four 8-bit products summed into each `i32` lane
    /// (ARMv8.2, Neoverse N1, Kunpeng 920, Apple M1).
    Dotprod,
    /// `FEAT_I8MM`: `smmla` / `ummla` / `usdot` (ARMv8.6, Neoverse V1/N2).
    I8mm,
    /// `FEAT_BF16`: `bfdot` / `bfmmla` (ARMv8.6).
    Bf16,
    /// `FEAT_FP16`: half-precision arithmetic (ARMv8.2).
    Fp16,
}

impl Ext {
    /// Every extension.
    pub const ALL: [Ext; 4] = [Ext::Dotprod, Ext::I8mm, Ext::Bf16, Ext::Fp16];

    /// The name `LAYOUT_NEON_EXT` accepts (the name `is_aarch64_feature_detected!` uses).
    pub fn name(self) -> &'static str {
        match self {
            Ext::Dotprod => "dotprod",
            Ext::I8mm => "i8mm",
            Ext::Bf16 => "bf16",
            Ext::Fp16 => "fp16",
        }
    }

    /// Whether the CPU has `self` (asked each time; `false` off aarch64).
    pub fn detected(self) -> bool {
        #[cfg(all(target_arch = "aarch64", feature = "std"))]
        {
            match self {
                Ext::Dotprod => std::arch::is_aarch64_feature_detected!("dotprod"),
                Ext::I8mm => std::arch::is_aarch64_feature_detected!("i8mm"),
                Ext::Bf16 => std::arch::is_aarch64_feature_detected!("bf16"),
                Ext::Fp16 => std::arch::is_aarch64_feature_detected!("fp16"),
            }
        }
        #[cfg(not(all(target_arch = "aarch64", feature = "std")))]
        {
            false
        }
    }

    /// Whether the kernels of level `isa` may use `self`: `isa` is [`Isa::Neon`] and
    /// available, the CPU has `self`, and `LAYOUT_NEON_EXT` (when set) lists it (detected and
    /// read once).
    ///
    /// ```
    /// use layout::isa::{Ext, Isa};
    /// // never on a level that is not NEON, whatever the CPU
    /// assert!(!Ext::Dotprod.usable(Isa::Portable));
    /// ```
    #[inline]
    pub fn usable(self, isa: Isa) -> bool {
        #[cfg(all(target_arch = "aarch64", feature = "std"))]
        {
            static USABLE: std::sync::OnceLock<[bool; 4]> = std::sync::OnceLock::new();
            let u = USABLE.get_or_init(|| {
                let allowed = std::env::var("LAYOUT_NEON_EXT").ok();
                Ext::ALL.map(|e| {
                    e.detected()
                        && allowed.as_deref().is_none_or(|list| {
                            list.split(',')
                                .any(|w| w.trim().eq_ignore_ascii_case(e.name()))
                        })
                })
            });
            isa == Isa::Neon && isa.is_available() && u[self as usize]
        }
        #[cfg(not(all(target_arch = "aarch64", feature = "std")))]
        {
            let _ = isa;
            false
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
#[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
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

/// Whether the CPU has AMX tiles (CPUID leaf 7, EDX bit 24: AMX-TILE). Nothing here runs AMX;
/// it marks the Intel cores (Sapphire Rapids and later) whose `vdpbf16ps` issues once per two
/// cycles, half the f32 FMA ports' multiply-adds (the bf16 convolution's route choice).
#[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
pub(crate) fn has_amx() -> bool {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        core::arch::x86_64::__get_cpuid_max(0).0 >= 7
            && core::arch::x86_64::__cpuid_count(7, 0).edx & (1 << 24) != 0
    }
    #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
    {
        false
    }
}

/// Whether the AMX bf16 tile multiply (`tdpbf16ps`) may run at `level`: the level is AVX-512
/// and available (so `LAYOUT_GEMM_ISA=avx2|portable` keeps AMX off), the CPU has AMX-TILE and
/// AMX-BF16, Linux granted this process the tile data state, and `LAYOUT_GEMM_AMX` is not
/// `off` (or `0`). Detected once.
#[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
pub(crate) fn has_amx_bf16(level: Isa) -> bool {
    amx(level).0
}

/// `(bf16, int8)`: which AMX tile multiplies may run at `level` ([`has_amx_bf16`]; the int8
/// one, AMX-INT8's `tdpbusd`, has no kernel yet).
#[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
fn amx(level: Isa) -> (bool, bool) {
    #[cfg(all(target_arch = "x86_64", target_os = "linux", feature = "std"))]
    {
        static HAS: std::sync::OnceLock<(bool, bool)> = std::sync::OnceLock::new();
        let (bf16, int8) = *HAS.get_or_init(|| {
            let off = std::env::var("LAYOUT_GEMM_AMX").is_ok_and(|v| v == "off" || v == "0");
            if off || !Isa::Avx512.is_available() {
                return (false, false);
            }
            #[allow(unused_unsafe)]
            // SAFETY: CPUID exists on every x86-64 CPU; leaf 7 is read only below the maximum
            // basic leaf it reports.
            let (max, edx) = unsafe {
                let max = core::arch::x86_64::__cpuid(0).eax;
                (max, core::arch::x86_64::__cpuid_count(7, 0).edx)
            };
            // CPUID.(7, 0).EDX: bit 22 AMX-BF16, bit 24 AMX-TILE, bit 25 AMX-INT8
            let bit = |b: u32| max >= 7 && edx & (1 << b) != 0;
            if !bit(24) || !request_tile_data() {
                return (false, false);
            }
            (bit(22), bit(25))
        });
        if level == Isa::Avx512 && level.is_available() {
            (bf16, int8)
        } else {
            (false, false)
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_os = "linux", feature = "std")))]
    {
        let _ = level;
        (false, false)
    }
}

/// Asks Linux for the AMX tile data state (`arch_prctl(ARCH_REQ_XCOMP_PERM,
/// XFEATURE_XTILEDATA)`), which a process must hold before its first tile instruction (the
/// kernel then enlarges each thread's saved state on first use). `false` when refused (a kernel
/// before 5.16, or a sandbox that forbids it): the GEMM then keeps its AVX-512 kernels.
#[cfg(all(target_arch = "x86_64", target_os = "linux", feature = "std"))]
fn request_tile_data() -> bool {
    const SYS_ARCH_PRCTL: usize = 158;
    const ARCH_REQ_XCOMP_PERM: usize = 0x1023;
    const XFEATURE_XTILEDATA: usize = 18;
    let ret: isize;
    // SAFETY: the arch_prctl system call with two integer arguments; it reads and writes no
    // memory of ours. The `syscall` instruction clobbers rcx and r11 (declared) and the kernel
    // preserves every other register.
    unsafe {
        core::arch::asm!(
            "syscall",
            inlateout("rax") SYS_ARCH_PRCTL as isize => ret,
            in("rdi") ARCH_REQ_XCOMP_PERM,
            in("rsi") XFEATURE_XTILEDATA,
            lateout("rcx") _,
            lateout("r11") _,
            options(nostack),
        );
    }
    ret == 0
}

/// A VNNI extension (`vpdpbusd`: four `u8 × i8` products added into each `i32` lane).
#[cfg_attr(
    any(not(feature = "std"), not(target_arch = "x86_64")),
    allow(dead_code)
)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Vnni {
    /// AVX-VNNI: the VEX-encoded 256-bit form.
    Avx,
    /// AVX512-VNNI (the GEMM's zmm tiles, the quantized prefill's among them).
    Avx512,
}

/// The VNNI extension the integer GEMM may use at `level`: AVX512-VNNI (with VL) at the
/// AVX-512 level, else AVX-VNNI at the AVX2 level or above, when the CPU has it; `None` below
/// AVX2, on other CPUs, or when `LAYOUT_GEMM_VNNI=off` (so an AVX2 run on a VNNI machine can
/// stand in for an AVX2-only CPU such as AMD Zen 3). Detected once.
#[cfg_attr(not(feature = "std"), allow(dead_code))]
pub(crate) fn vnni(level: Isa) -> Option<Vnni> {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        // (AVX512-VNNI with VL, AVX-VNNI), each allowed by the environment
        static HAS: std::sync::OnceLock<(bool, bool)> = std::sync::OnceLock::new();
        let (v512, vavx) = *HAS.get_or_init(|| {
            let off = std::env::var("LAYOUT_GEMM_VNNI").is_ok_and(|v| v == "off" || v == "0");
            (
                !off && std::arch::is_x86_feature_detected!("avx512vnni")
                    && std::arch::is_x86_feature_detected!("avx512vl"),
                !off && std::arch::is_x86_feature_detected!("avxvnni"),
            )
        });
        if level < Isa::Avx2 || !level.is_available() {
            None
        } else if level == Isa::Avx512 && v512 {
            Some(Vnni::Avx512)
        } else if vavx {
            Some(Vnni::Avx)
        } else {
            None
        }
    }
    #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
    {
        let _ = level;
        None
    }
}

/// Whether this CPU runs the VNNI extension `v` (whatever the environment says).
#[cfg_attr(any(not(feature = "std"), not(test)), allow(dead_code))]
pub(crate) fn has_vnni(v: Vnni) -> bool {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        match v {
            Vnni::Avx => std::arch::is_x86_feature_detected!("avxvnni"),
            Vnni::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512vnni")
                    && std::arch::is_x86_feature_detected!("avx512vl")
            }
        }
    }
    #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
    {
        let _ = v;
        false
    }
}

/// Whether the CPU has AVX (the 256-bit moves of the copy engine below the AVX2 level).
#[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
pub(crate) fn has_avx() -> bool {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        std::arch::is_x86_feature_detected!("avx")
    }
    #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
    {
        false
    }
}

/// Whether the CPU is AMD's (CPUID leaf 0's vendor string `AuthenticAMD`): the GEMM's kernel
/// table takes a few per-vendor choices measured on both (see `gemm::dispatch`).
#[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
pub(crate) fn is_amd() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use core::sync::atomic::{AtomicU8, Ordering};
        // 0: not asked yet (CPUID traps to the hypervisor in a virtual machine: ask once)
        static AMD: AtomicU8 = AtomicU8::new(0);
        match AMD.load(Ordering::Relaxed) {
            1 => false,
            2 => true,
            _ => {
                #[allow(unused_unsafe)]
                // SAFETY: CPUID exists on every x86-64 CPU and leaf 0 on every CPU with CPUID.
                let r = unsafe { core::arch::x86_64::__cpuid(0) };
                // "Auth" "enti" "cAMD" in EBX, EDX, ECX
                let amd = (r.ebx, r.edx, r.ecx) == (0x6874_7541, 0x6974_6E65, 0x444D_4163);
                AMD.store(1 + u8::from(amd), Ordering::Relaxed);
                amd
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether the CPU converts `f16` in hardware (F16C; every AVX2 CPU has it).
#[cfg_attr(not(all(target_arch = "x86_64", feature = "std")), allow(dead_code))]
pub(crate) fn has_f16c() -> bool {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        std::arch::is_x86_feature_detected!("f16c")
    }
    #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
    {
        false
    }
}

/// The data caches one core sees, in bytes: what the GEMM's blocking (and the copy engine's
/// streaming bound) are derived from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Caches {
    /// Level-1 data cache.
    pub l1d: usize,
    /// Level-2 cache.
    pub l2: usize,
    /// The largest cache (the last level; 0 when unknown).
    pub llc: usize,
}

impl Caches {
    /// What is assumed where the CPU does not say: 32 KiB L1d and 512 KiB L2 (Zen 3's, the
    /// smallest of the machines the kernels are measured on), last level unknown.
    pub(crate) const FALLBACK: Caches = Caches {
        l1d: 32 << 10,
        l2: 512 << 10,
        llc: 0,
    };

    /// `LAYOUT_CACHES=L1D,L2,LLC` (sizes with an optional `K`/`M` suffix, e.g. `32K,512K,32M`):
    /// the blocking of another CPU on this one (tests, and cache simulators such as
    /// cachegrind configured like that CPU). `None` when unset or malformed.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    fn from_env() -> Option<Caches> {
        #[cfg(feature = "std")]
        {
            let v = std::env::var("LAYOUT_CACHES").ok()?;
            Caches::parse(&v)
        }
        #[cfg(not(feature = "std"))]
        {
            None
        }
    }

    /// Parses `L1D,L2,LLC` (see [`Caches::from_env`]); every size must be non-zero.
    #[cfg_attr(not(feature = "std"), allow(dead_code))]
    pub(crate) fn parse(v: &str) -> Option<Caches> {
        let mut it = v.split(',').map(|w| {
            let w = w.trim();
            let (num, unit) = match w.as_bytes().last()? {
                b'k' | b'K' => (&w[..w.len() - 1], 1usize << 10),
                b'm' | b'M' => (&w[..w.len() - 1], 1 << 20),
                _ => (w, 1),
            };
            num.trim()
                .parse::<usize>()
                .ok()?
                .checked_mul(unit)
                .filter(|&b| b > 0)
        });
        let c = Caches {
            l1d: it.next()??,
            l2: it.next()??,
            llc: it.next()??,
        };
        it.next().is_none().then_some(c)
    }

    /// This CPU's caches ([`Caches::FALLBACK`] for what it does not report), or
    /// `LAYOUT_CACHES`; read once.
    pub(crate) fn get() -> Caches {
        #[cfg(feature = "std")]
        {
            static CACHES: std::sync::OnceLock<Caches> = std::sync::OnceLock::new();
            *CACHES.get_or_init(|| Caches::from_env().unwrap_or_else(detect_caches))
        }
        #[cfg(not(feature = "std"))]
        {
            detect_caches()
        }
    }
}

/// The CPU's deterministic cache parameters (CPUID leaf 4 on Intel, 0x8000_001D on AMD with
/// topology extensions; AMD's leaves 0x8000_0005/6 otherwise), level by level.
#[cfg(target_arch = "x86_64")]
fn detect_caches() -> Caches {
    use core::arch::x86_64::__cpuid_count;
    #[allow(unused_unsafe)]
    // SAFETY: CPUID exists on every x86-64 CPU; the leaves read are below the maxima it reports
    // (checked first), and reading an unsupported leaf has no effect beyond its result.
    let id = |leaf: u32, sub: u32| unsafe { __cpuid_count(leaf, sub) };
    let max_basic = id(0, 0).eax;
    let max_ext = id(0x8000_0000, 0).eax;
    let topoext = max_ext >= 0x8000_0001 && id(0x8000_0001, 0).ecx & (1 << 22) != 0;
    let leaf = if topoext && max_ext >= 0x8000_001D {
        Some(0x8000_001D)
    } else if max_basic >= 4 {
        Some(4)
    } else {
        None
    };
    let (mut l1d, mut l2, mut llc) = (0usize, 0usize, 0usize);
    if let Some(leaf) = leaf {
        for sub in 0..16 {
            let r = id(leaf, sub);
            // type 0: no more caches; 1: data; 2: instruction; 3: unified
            let kind = r.eax & 0x1F;
            match kind {
                0 => break,
                2 => continue,
                _ => {}
            }
            let level = (r.eax >> 5) & 0x7;
            let ways = (r.ebx >> 22) as usize + 1;
            let parts = ((r.ebx >> 12) & 0x3FF) as usize + 1;
            let line = (r.ebx & 0xFFF) as usize + 1;
            let sets = r.ecx as usize + 1;
            let bytes = ways * parts * line * sets;
            match level {
                1 => l1d = bytes,
                2 => l2 = bytes,
                _ => {}
            }
            llc = llc.max(bytes);
        }
    }
    if llc == 0 && max_ext >= 0x8000_0006 {
        // L1d in KiB (0x8000_0005 ECX[31:24]); L2 in KiB, L3 in 512 KiB units (0x8000_0006)
        let r5 = id(0x8000_0005, 0);
        let r6 = id(0x8000_0006, 0);
        l1d = (r5.ecx >> 24) as usize * 1024;
        l2 = (r6.ecx >> 16) as usize * 1024;
        llc = ((r6.edx >> 18) as usize * (512 << 10)).max(l2);
    }
    let or = |v: usize, d: usize| if v == 0 { d } else { v };
    Caches {
        l1d: or(l1d, Caches::FALLBACK.l1d),
        l2: or(l2, Caches::FALLBACK.l2),
        llc,
    }
}

/// Unknown on other targets: [`Caches::FALLBACK`].
#[cfg(not(target_arch = "x86_64"))]
fn detect_caches() -> Caches {
    Caches::FALLBACK
}

/// The largest cache this CPU reports (0 when unknown).
pub(crate) fn last_level_cache() -> usize {
    Caches::get().llc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cache_sizes_parse() {
        let zen3 = Caches {
            l1d: 32 << 10,
            l2: 512 << 10,
            llc: 32 << 20,
        };
        assert_eq!(Caches::parse("32K,512K,32M"), Some(zen3));
        assert_eq!(Caches::parse(" 32768 , 512k, 32m "), Some(zen3));
        for bad in [
            "",
            "32K",
            "32K,512K",
            "32K,512K,32M,1",
            "0,512K,32M",
            "32X,1,1",
            "K,1,1",
        ] {
            assert_eq!(Caches::parse(bad), None, "{bad:?}");
        }
        // overflow is refused, not wrapped
        assert_eq!(Caches::parse(&std::format!("{}M,1,1", usize::MAX)), None);
    }

    #[test]
    fn names_round_trip_and_levels_are_ordered() {
        for i in Isa::ALL {
            assert_eq!(Isa::from_name(i.name()), Some(i));
            assert_eq!(Isa::from_name(&i.name().to_ascii_uppercase()), Some(i));
        }
        assert_eq!(Isa::from_name("sse9"), None);
        // the available levels are portable and a prefix of the target's own levels: a CPU that
        // runs one runs the weaker ones
        let avail: std::vec::Vec<Isa> = Isa::available().collect();
        let own: &[Isa] = if cfg!(target_arch = "aarch64") {
            &[Isa::Portable, Isa::Neon]
        } else {
            &[Isa::Portable, Isa::Avx2, Isa::Avx512]
        };
        assert_eq!(&own[..avail.len()], &avail[..]);
        assert_eq!(
            Isa::Neon.is_available(),
            cfg!(target_arch = "aarch64"),
            "NEON is in every aarch64 CPU and no other"
        );
        for e in Ext::ALL {
            assert!(!e.usable(Isa::Portable) && !e.usable(Isa::Avx2));
            assert!(!e.usable(Isa::Neon) || e.detected());
        }
        // the aarch64 test script runs on an emulated CPU with every extension and says so
        // (`LAYOUT_EXPECT_EXT`): the paths it forces on are really on
        if let Ok(list) = std::env::var("LAYOUT_EXPECT_EXT") {
            for name in list.split(',').filter(|w| !w.trim().is_empty()) {
                let e = Ext::ALL.into_iter().find(|e| e.name() == name.trim());
                assert!(e.is_some_and(Ext::detected), "{name} is not detected");
            }
        }
        assert_eq!(Isa::best(), *avail.last().unwrap());
        let c = Caches::get();
        assert!(c.l1d >= 4 << 10 && c.l2 >= c.l1d, "{c:?}");
        assert!(c.llc == 0 || c.llc >= c.l2, "{c:?}");
        assert!(Isa::selected().is_available() && Isa::selected_for_gemm().is_available());
    }
}
