//! One-process, interleaved GEMM comparison: `layout::gemm` against matrixmultiply, gemm,
//! faer, nalgebra, and — when the system has them — OpenBLAS, BLIS (Debian's
//! `libopenblas-pthread-dev`, `libblis-dev`, loaded at run time) and libxsmm (`libxsmm-dev`,
//! linked with `--features libxsmm`).
//!
//! Per shape, every library runs in turn each round (A B C … A B C …) and then a register-only
//! FMA loop measures this core's peak in the same round, so a busy machine slows all alike;
//! the table gives medians over the rounds. Every library's C is checked equal to layout's
//! (integer-valued inputs, so every summation order is exact).
//!
//! ```text
//! cd benches/compare
//! cargo run --release [--features libxsmm] -- [square|skinny|small|all] [--threads N] [--rounds R]
//! ```
//!
//! Other modes (each a table or a measurement in BENCHMARKS.md): `static` (static shapes against
//! nalgebra `SMatrix`, libxsmm, faer), `packed` (`PackedB` against packing per call), `half`
//! (bf16 / f16 inputs), `tiles both 20` (static against `DynLayout` tiles), `par N` (1 against 2
//! threads), `peak2` (the FMA peak of one and of both cores), `onednn [matmul|conv|threads]` (with
//! `--features onednn`: oneDNN's matmul and convolution beside layout's, see `dnn.rs`), and for callgrind `count4
//! layout|hand REPS`, `tiles static|dyn REPS`, `tiny N REPS`, `entries [ROUNDS]` (ns per call of
//! each public entry and of matrixmultiply/libxsmm at small shapes), and `overhead` (ns per call at 1³, 4³, 16³);
//! `brtiles [ROUNDS]`: the batch-reduce's f32 register tiles by width, filters in L1 or from L2.
//!
//! With several threads, the idle threads of a system BLAS (OpenBLAS's pthreads, BLIS's OpenMP)
//! keep spinning and take the cores from the libraries that run after them: merely loading
//! OpenBLAS and BLIS held layout at 2 threads to 1.0× its one-thread speed. Measure them one per
//! process there: `BLAS=none` (layout, gemm, faer), `BLAS=OpenBLAS`, `BLAS=BLIS`; rayon's idle
//! workers spin too, so for the fairest two-thread figures run one library per process,
//! alternating processes: `ONLY=layout BLAS=none …`, `ONLY=gemm BLAS=none …`,
//! `ONLY=OpenBLAS BLAS=OpenBLAS …` (the table's first column is then that library).

mod clock;
#[cfg(feature = "onednn")]
mod dnn;
#[cfg(feature = "onednn")]
mod onednn;

use std::ffi::{c_char, c_int};
use std::hint::black_box;
use std::time::Instant;

type Cblas32 = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    f32,
    *const f32,
    c_int,
    *const f32,
    c_int,
    f32,
    *mut f32,
    c_int,
);
type Cblas64 = unsafe extern "C" fn(
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    f64,
    *const f64,
    c_int,
    *const f64,
    c_int,
    f64,
    *mut f64,
    c_int,
);
type SetThreads = unsafe extern "C" fn(c_int);

const COL_MAJOR: c_int = 102;
const NO_TRANS: c_int = 111;

/// A system BLAS loaded at run time (`cblas_sgemm` / `cblas_dgemm`).
struct Blas {
    name: &'static str,
    _lib: libloading::Library,
    s: Cblas32,
    d: Cblas64,
}

impl Blas {
    fn load(
        name: &'static str,
        paths: &[&str],
        threads_symbol: &[u8],
        threads: usize,
    ) -> Option<Blas> {
        // BLAS=none / BLAS=OpenBLAS / BLAS=BLIS: the others are not even loaded
        if std::env::var("BLAS").is_ok_and(|o| o != "all" && o != name) {
            return None;
        }
        for p in paths {
            // SAFETY: loading a system BLAS runs its initialisers, which is what linking it would do.
            let Ok(lib) = (unsafe { libloading::Library::new(p) }) else {
                continue;
            };
            // SAFETY: the symbols have the CBLAS signatures declared above.
            unsafe {
                let s: Cblas32 = *lib.get::<Cblas32>(b"cblas_sgemm\0").ok()?;
                let d: Cblas64 = *lib.get::<Cblas64>(b"cblas_dgemm\0").ok()?;
                if let Ok(set) = lib.get::<SetThreads>(threads_symbol) {
                    set(threads as c_int);
                }
                return Some(Blas {
                    name,
                    _lib: lib,
                    s,
                    d,
                });
            }
        }
        None
    }
}

#[cfg(feature = "libxsmm")]
mod xsmm {
    use std::ffi::c_int;
    pub type SKernel = unsafe extern "C" fn(*const f32, *const f32, *mut f32, ...);
    pub type DKernel = unsafe extern "C" fn(*const f64, *const f64, *mut f64, ...);
    unsafe extern "C" {
        pub fn libxsmm_init();
        pub fn libxsmm_smmdispatch(
            m: c_int,
            n: c_int,
            k: c_int,
            lda: *const c_int,
            ldb: *const c_int,
            ldc: *const c_int,
            alpha: *const f32,
            beta: *const f32,
            flags: *const c_int,
            prefetch: *const c_int,
        ) -> Option<SKernel>;
        pub fn libxsmm_dmmdispatch(
            m: c_int,
            n: c_int,
            k: c_int,
            lda: *const c_int,
            ldb: *const c_int,
            ldc: *const c_int,
            alpha: *const f64,
            beta: *const f64,
            flags: *const c_int,
            prefetch: *const c_int,
        ) -> Option<DKernel>;
    }
}

/// Peak FMA throughput of one core in GFLOP/s: 12 independent 512-bit accumulator chains, or
/// 256-bit ones when layout is capped at AVX2 (`LAYOUT_GEMM_ISA=avx2` / `LAYOUT_ISA=avx2`: the
/// peak of the instruction set it runs).
fn fma_peak(f64_lanes: bool) -> f64 {
    use std::arch::x86_64::*;
    let avx2 = ["LAYOUT_GEMM_ISA", "LAYOUT_ISA"]
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|s| s.eq_ignore_ascii_case("avx2")));
    if avx2 || !std::arch::is_x86_feature_detected!("avx512f") {
        return fma_peak_avx2(f64_lanes);
    }
    #[target_feature(enable = "avx512f,fma")]
    unsafe fn run(iters: u64) -> f32 {
        let mut acc = [_mm512_set1_ps(0.0); 12];
        let x = _mm512_set1_ps(black_box(1.000_000_1));
        let y = _mm512_set1_ps(black_box(0.999_999_9));
        for _ in 0..iters {
            for a in acc.iter_mut() {
                *a = _mm512_fmadd_ps(*a, x, y);
            }
        }
        let mut s = _mm512_set1_ps(0.0);
        for a in acc {
            s = _mm512_add_ps(s, a);
        }
        _mm512_reduce_add_ps(s)
    }
    if !std::arch::is_x86_feature_detected!("avx512f") {
        return f64::NAN;
    }
    let iters = 300_000;
    let t = Instant::now();
    // SAFETY: AVX-512F was just detected.
    black_box(unsafe { run(iters) });
    let lanes = if f64_lanes { 8.0 } else { 16.0 };
    (iters as f64 * 12.0 * lanes * 2.0) / t.elapsed().as_secs_f64() / 1e9
}

/// [`fma_peak`] with 256-bit vectors: 12 independent AVX2 FMA chains.
fn fma_peak_avx2(f64_lanes: bool) -> f64 {
    use std::arch::x86_64::*;
    #[target_feature(enable = "avx2,fma")]
    unsafe fn run(iters: u64) -> f32 {
        let mut acc = [_mm256_set1_ps(0.0); 12];
        let x = _mm256_set1_ps(black_box(1.000_000_1));
        let y = _mm256_set1_ps(black_box(0.999_999_9));
        for _ in 0..iters {
            for a in acc.iter_mut() {
                *a = _mm256_fmadd_ps(*a, x, y);
            }
        }
        let mut s = _mm256_set1_ps(0.0);
        for a in acc {
            s = _mm256_add_ps(s, a);
        }
        let mut out = [0f32; 8];
        // SAFETY: `out` holds 8 f32.
        unsafe { _mm256_storeu_ps(out.as_mut_ptr(), s) };
        out.iter().sum()
    }
    if !std::arch::is_x86_feature_detected!("fma") {
        return f64::NAN;
    }
    let iters = 300_000;
    let t = Instant::now();
    // SAFETY: AVX2 and FMA were just detected.
    black_box(unsafe { run(iters) });
    let lanes = if f64_lanes { 4.0 } else { 8.0 };
    (iters as f64 * 12.0 * lanes * 2.0) / t.elapsed().as_secs_f64() / 1e9
}

fn data<T: From<i16>>(len: usize, seed: usize) -> Vec<T> {
    (0..len)
        .map(|i| T::from((((i * 7 + seed) % 9) as i16) - 4))
        .collect()
}

/// The element types compared, with each library's entry point for column-major operands.
trait Elem:
    layout::gemm::Element
    + Copy
    + PartialEq
    + std::fmt::Debug
    + From<i16>
    + nalgebra::RealField
    + faer::traits::ComplexField
    + 'static
{
    const NAME: &'static str;
    const F64: bool;
    fn layout(threads: usize, m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]);
    /// layout's blocked path alone (packing forced).
    fn packed(m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]) {
        use layout::gemm::{Isa, MatMut, MatRef, Options, Packing};
        let opts = Options {
            isa: Isa::selected(),
            threads: 1,
            packing: Packing::Always,
        };
        let (m_, k_) = (m as isize, k as isize);
        layout::gemm::gemm_with(
            opts,
            <Self as Elem>::one(),
            MatRef {
                data: a,
                rows: m,
                cols: k,
                row_stride: 1,
                col_stride: m_,
            },
            MatRef {
                data: b,
                rows: k,
                cols: n,
                row_stride: 1,
                col_stride: k_,
            },
            <Self as Elem>::zero(),
            MatMut {
                data: c,
                rows: m,
                cols: n,
                row_stride: 1,
                col_stride: m_,
            },
        )
        .unwrap();
    }
    fn mm(m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]);
    fn blas(blas: &Blas, m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]);
    fn one() -> Self;
    fn zero() -> Self;
    #[cfg(feature = "libxsmm")]
    fn xsmm(m: usize, k: usize, n: usize) -> Option<Box<dyn Fn(&[Self], &[Self], &mut [Self])>>;
}

macro_rules! elem {
    ($t:ty, $name:literal, $f64:literal, $lay:path, $mm:path, $field:ident, $xd:ident) => {
        impl Elem for $t {
            const NAME: &'static str = $name;
            const F64: bool = $f64;
            fn layout(
                threads: usize,
                m: usize,
                k: usize,
                n: usize,
                a: &[Self],
                b: &[Self],
                c: &mut [Self],
            ) {
                if threads <= 1 {
                    // one thread: the BLAS-style entry, as a user calls it
                    $lay(
                        m, k, n, 1.0, a, 1, m as isize, b, 1, k as isize, 0.0, c, 1, m as isize,
                    )
                    .unwrap();
                } else {
                    use layout::gemm::{MatMut, MatRef, Options, gemm_with};
                    let opts = Options {
                        threads,
                        ..Options::default()
                    };
                    let (mi, ki) = (m as isize, k as isize);
                    gemm_with(
                        opts,
                        1.0,
                        MatRef {
                            data: a,
                            rows: m,
                            cols: k,
                            row_stride: 1,
                            col_stride: mi,
                        },
                        MatRef {
                            data: b,
                            rows: k,
                            cols: n,
                            row_stride: 1,
                            col_stride: ki,
                        },
                        0.0,
                        MatMut {
                            data: c,
                            rows: m,
                            cols: n,
                            row_stride: 1,
                            col_stride: mi,
                        },
                    )
                    .unwrap();
                }
            }
            fn mm(m: usize, k: usize, n: usize, a: &[Self], b: &[Self], c: &mut [Self]) {
                // SAFETY: column-major m×k, k×n, m×n buffers of exactly those sizes.
                unsafe {
                    $mm(
                        m,
                        k,
                        n,
                        1.0,
                        a.as_ptr(),
                        1,
                        m as isize,
                        b.as_ptr(),
                        1,
                        k as isize,
                        0.0,
                        c.as_mut_ptr(),
                        1,
                        m as isize,
                    )
                }
            }
            fn blas(
                blas: &Blas,
                m: usize,
                k: usize,
                n: usize,
                a: &[Self],
                b: &[Self],
                c: &mut [Self],
            ) {
                // SAFETY: column-major operands with leading dimensions m, k, m.
                unsafe {
                    (blas.$field)(
                        COL_MAJOR,
                        NO_TRANS,
                        NO_TRANS,
                        m as c_int,
                        n as c_int,
                        k as c_int,
                        1.0,
                        a.as_ptr(),
                        m as c_int,
                        b.as_ptr(),
                        k as c_int,
                        0.0,
                        c.as_mut_ptr(),
                        m as c_int,
                    )
                }
            }
            fn one() -> Self {
                1.0
            }
            fn zero() -> Self {
                0.0
            }
            #[cfg(feature = "libxsmm")]
            fn xsmm(
                m: usize,
                k: usize,
                n: usize,
            ) -> Option<Box<dyn Fn(&[Self], &[Self], &mut [Self])>> {
                let (alpha, beta): (Self, Self) = (1.0, 0.0);
                // SAFETY: dispatch only reads its arguments; null pointers select the defaults
                // (lda = m, ldb = k, ldc = m, no flags, no prefetch).
                let f = unsafe {
                    xsmm::$xd(
                        m as c_int,
                        n as c_int,
                        k as c_int,
                        std::ptr::null(),
                        std::ptr::null(),
                        std::ptr::null(),
                        &alpha,
                        &beta,
                        std::ptr::null(),
                        std::ptr::null(),
                    )
                }?;
                // SAFETY: the kernel computes C(m×n) = A(m×k)·B(k×n), column-major, with the
                // leading dimensions above; the slices have those sizes.
                Some(Box::new(
                    move |a: &[Self], b: &[Self], c: &mut [Self]| unsafe {
                        f(a.as_ptr(), b.as_ptr(), c.as_mut_ptr())
                    },
                ))
            }
        }
    };
}
elem!(
    f32,
    "f32",
    false,
    layout::gemm::sgemm,
    matrixmultiply::sgemm,
    s,
    libxsmm_smmdispatch
);
elem!(
    f64,
    "f64",
    true,
    layout::gemm::dgemm,
    matrixmultiply::dgemm,
    d,
    libxsmm_dmmdispatch
);

type Run<'a, T> = Box<dyn FnMut(&[T], &[T], &mut [T]) + 'a>;

/// The libraries that run this shape, as (name, closure).
fn libraries<'a, T: Elem>(
    m: usize,
    k: usize,
    n: usize,
    threads: usize,
    blas: &'a [Blas],
    small: bool,
) -> Vec<(String, Run<'a, T>)> {
    let mut v: Vec<(String, Run<'a, T>)> = Vec::new();
    v.push((
        "layout".into(),
        Box::new(move |a, b, c| T::layout(threads, m, k, n, a, b, c)),
    ));
    if threads <= 1 && std::env::var_os("PACKED").is_some() {
        v.push((
            "layout (packed)".into(),
            Box::new(move |a, b, c| T::packed(m, k, n, a, b, c)),
        ));
    }
    if threads <= 1 {
        v.push((
            "matrixmultiply".into(),
            Box::new(move |a, b, c| T::mm(m, k, n, a, b, c)),
        ));
    }
    let par = if threads <= 1 {
        gemm::Parallelism::None
    } else {
        gemm::Parallelism::Rayon(threads)
    };
    v.push((
        "gemm".into(),
        Box::new(move |a, b, c| {
            // SAFETY: column-major operands (column stride = leading dimension, row stride 1).
            unsafe {
                gemm::gemm(
                    m,
                    n,
                    k,
                    c.as_mut_ptr(),
                    m as isize,
                    1,
                    false,
                    a.as_ptr(),
                    m as isize,
                    1,
                    b.as_ptr(),
                    k as isize,
                    1,
                    <T as Elem>::zero(),
                    <T as Elem>::one(),
                    false,
                    false,
                    false,
                    par,
                )
            }
        }),
    ));
    let fpar = if threads <= 1 {
        faer::Par::Seq
    } else {
        faer::Par::rayon(threads)
    };
    v.push((
        "faer".into(),
        Box::new(move |a, b, c| {
            let a = faer::MatRef::from_column_major_slice(a, m, k);
            let b = faer::MatRef::from_column_major_slice(b, k, n);
            let c = faer::MatMut::from_column_major_slice_mut(c, m, n);
            faer::linalg::matmul::matmul(c, faer::Accum::Replace, a, b, <T as Elem>::one(), fpar);
        }),
    ));
    if threads <= 1 && (small || m * n * k <= 1 << 30) {
        v.push((
            "nalgebra".into(),
            Box::new(move |a, b, c| {
                let a = nalgebra::DMatrixView::from_slice(a, m, k);
                let b = nalgebra::DMatrixView::from_slice(b, k, n);
                let mut c = nalgebra::DMatrixViewMut::from_slice(c, m, n);
                c.gemm(<T as Elem>::one(), &a, &b, <T as Elem>::zero());
            }),
        ));
    }
    for bl in blas {
        v.push((
            bl.name.into(),
            Box::new(move |a, b, c| T::blas(bl, m, k, n, a, b, c)),
        ));
    }
    #[cfg(feature = "libxsmm")]
    if threads <= 1 && m.max(n).max(k) <= 128 {
        if let Some(f) = T::xsmm(m, k, n) {
            v.push(("libxsmm".into(), Box::new(move |a, b, c| f(a, b, c))));
        }
    }
    // ONLY=name: that library alone (with several threads, the pools of the others spin)
    if let Ok(only) = std::env::var("ONLY") {
        v.retain(|(name, _)| *name == only);
    }
    v
}

struct Row {
    shape: String,
    dtype: &'static str,
    gflops: Vec<(String, f64)>,
    peak: f64,
}

fn measure<T: Elem>(
    m: usize,
    k: usize,
    n: usize,
    threads: usize,
    rounds: usize,
    blas: &[Blas],
    small: bool,
) -> Row {
    let a: Vec<T> = data(m * k, 1);
    let b: Vec<T> = data(k * n, 2);
    let mut libs = libraries::<T>(m, k, n, threads, blas, small);
    let flop = 2.0 * (m * n * k) as f64;
    // calls per sample: about 2 ms of work at 50 GFLOP/s
    let reps = ((2e-3 * 50e9 / flop) as usize).clamp(1, 200_000);
    // correctness: every library's C equals layout's
    let mut want = vec![<T as Elem>::zero(); m * n];
    (libs[0].1)(&a, &b, &mut want);
    for (name, f) in libs.iter_mut() {
        let mut c = vec![<T as Elem>::zero(); m * n];
        f(&a, &b, &mut c);
        assert!(
            c == want,
            "{name} disagrees with layout on {m}x{k}x{n} {}",
            T::NAME
        );
    }
    let mut c = vec![<T as Elem>::zero(); m * n];
    // CPU_TIME=1: this thread's CPU time per call (one thread only), not the wall clock
    let cpu_time = threads <= 1 && std::env::var_os("CPU_TIME").is_some();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); libs.len()];
    let mut peaks = Vec::new();
    let nl = libs.len();
    for round in 0..rounds {
        // rotate the order each round, so no library always follows the FMA loop
        for slot in 0..nl {
            let i = (slot + round) % nl;
            let f = &mut libs[i].1;
            let (t, c0) = (Instant::now(), clock::thread_cpu_seconds());
            for _ in 0..reps {
                f(black_box(&a), black_box(&b), black_box(&mut c));
            }
            let secs = if cpu_time {
                clock::thread_cpu_seconds() - c0
            } else {
                t.elapsed().as_secs_f64()
            };
            times[i].push(secs / reps as f64);
        }
        peaks.push(fma_peak(T::F64) * threads.max(1) as f64);
    }
    let med = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    Row {
        shape: format!("{m}×{k}×{n}"),
        dtype: T::NAME,
        gflops: libs
            .iter()
            .zip(times.iter_mut())
            .map(|((name, _), t)| (name.clone(), flop / med(t) / 1e9))
            .collect(),
        peak: med(&mut peaks),
    }
}

/// Static N×N×N: layout's static tensors (constant offset tables), layout's run-time entry,
/// nalgebra's `SMatrix` product, libxsmm's dispatched kernel, faer; GFLOP/s medians, interleaved.
fn static_row<T: Elem, const N: usize, const NI: i64>(rounds: usize) {
    use layout::{Int, Layout, Tensor};
    type Col<const M: i64> = Layout<(Int<M>, Int<M>), (Int<1>, Int<M>)>;
    let a: Vec<T> = data(N * N, 1);
    let b: Vec<T> = data(N * N, 2);
    let mut c = vec![<T as Elem>::zero(); N * N];
    let flop = 2.0 * (N * N * N) as f64;
    let reps = ((2e-3 * 30e9 / flop) as usize).clamp(1, 1_000_000);
    let na = nalgebra::SMatrix::<T, N, N>::from_column_slice(&a);
    let nb = nalgebra::SMatrix::<T, N, N>::from_column_slice(&b);
    #[allow(unused_mut)] // pushed to with the libxsmm feature
    let mut names: Vec<&str> = vec!["static", "run-time", "nalgebra", "faer"];
    #[cfg(feature = "libxsmm")]
    let xs = T::xsmm(N, N, N);
    #[cfg(feature = "libxsmm")]
    if xs.is_some() {
        names.push("libxsmm");
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); names.len()];
    let mut want = vec![<T as Elem>::zero(); N * N];
    T::layout(1, N, N, N, &a, &b, &mut want);
    for round in 0..rounds {
        for slot in 0..names.len() {
            let idx = (slot + round) % names.len();
            let t = Instant::now();
            match names[idx] {
                "static" => {
                    let ta = Tensor::new(&a[..], Col::<NI>::default()).unwrap();
                    let tb = Tensor::new(&b[..], Col::<NI>::default()).unwrap();
                    let mut tc = Tensor::new(&mut c[..], Col::<NI>::default()).unwrap();
                    for _ in 0..reps {
                        layout::gemm::gemm(
                            <T as Elem>::one(),
                            black_box(&ta),
                            black_box(&tb),
                            <T as Elem>::zero(),
                            black_box(&mut tc),
                        )
                        .unwrap();
                    }
                }
                "run-time" => {
                    for _ in 0..reps {
                        T::layout(1, N, N, N, black_box(&a), black_box(&b), black_box(&mut c));
                    }
                }
                "nalgebra" => {
                    let mut r = nalgebra::SMatrix::<T, N, N>::zeros();
                    for _ in 0..reps {
                        r = black_box(&na) * black_box(&nb);
                        black_box(&r);
                    }
                    c.copy_from_slice(r.as_slice());
                }
                "faer" => {
                    for _ in 0..reps {
                        let fa = faer::MatRef::from_column_major_slice(black_box(&a[..]), N, N);
                        let fb = faer::MatRef::from_column_major_slice(black_box(&b[..]), N, N);
                        let fc =
                            faer::MatMut::from_column_major_slice_mut(black_box(&mut c[..]), N, N);
                        faer::linalg::matmul::matmul(
                            fc,
                            faer::Accum::Replace,
                            fa,
                            fb,
                            <T as Elem>::one(),
                            faer::Par::Seq,
                        );
                    }
                }
                _ =>
                {
                    #[cfg(feature = "libxsmm")]
                    if let Some(f) = &xs {
                        for _ in 0..reps {
                            f(black_box(&a), black_box(&b), black_box(&mut c));
                        }
                    }
                }
            }
            times[idx].push(t.elapsed().as_secs_f64() / reps as f64);
            assert!(c == want, "{} disagrees at {N}", names[idx]);
        }
    }
    let med: Vec<f64> = times
        .iter_mut()
        .map(|v| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        })
        .collect();
    let g = |i: usize| flop / med[i] / 1e9;
    let xsmm = if names.len() > 4 {
        format!("{:.1}", g(4))
    } else {
        "–".into()
    };
    let best_other = (2..names.len()).map(g).fold(f64::MIN, f64::max);
    println!(
        "| {} | {N} | {:.1} | {:.1} | {:.1} | {xsmm} | {:.1} | {:.2} | {:.1} |",
        T::NAME,
        g(0),
        g(1),
        g(2),
        g(3),
        g(0) / best_other,
        med[0] * 1e9
    );
}

fn print(rows: &[Row]) {
    let mut names: Vec<String> = Vec::new();
    for r in rows {
        for (n, _) in &r.gflops {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    print!("| dtype | m×k×n |");
    for n in &names {
        print!(" {n} |");
    }
    println!(" best other | layout ÷ best other | peak | layout % of peak |");
    print!("|---|---|");
    for _ in &names {
        print!("---|");
    }
    println!("---|---|---|---|");
    for r in rows {
        print!("| {} | {} |", r.dtype, r.shape);
        for n in &names {
            match r.gflops.iter().find(|(x, _)| x == n) {
                Some((_, g)) => print!(" {g:.1} |"),
                None => print!(" – |"),
            }
        }
        let ours = r.gflops.first().map_or(f64::NAN, |g| g.1);
        let (best_name, best) = r.gflops[1.min(r.gflops.len())..]
            .iter()
            .filter(|(n, _)| !n.starts_with("layout"))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(n, g)| (n.as_str(), *g))
            .unwrap_or(("–", f64::NAN));
        println!(
            " {best_name} {best:.1} | {:.2} | {:.1} | {:.0} % |",
            ours / best,
            r.peak,
            100.0 * ours / r.peak
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("onednn") {
        // oneDNN's matmul and convolution beside layout's (issues 22 and 23): see dnn.rs
        #[cfg(feature = "onednn")]
        {
            dnn::main(&args[1..]);
            return;
        }
        #[cfg(not(feature = "onednn"))]
        {
            eprintln!("the onednn mode needs `--features onednn` (and Debian's libdnnl-dev)");
            std::process::exit(2);
        }
    }
    if args.first().map(String::as_str) == Some("brtiles") {
        // `brtiles [ROUNDS]`: the batch-reduce's f32 register tile (16 rows × w columns, the
        // convolution's taps) over nine items of k = 256 (a 3×3 tap's input channels), the
        // filters (A, rows 32 floats apart as the taps route's blocks of 32 output channels)
        // either one block read by every item (L1-resident) or nine distinct blocks (295 KB,
        // streamed from L2): GFLOP/s, best of ROUNDS samples (a busy machine slows samples,
        // never speeds them), with the register-only FMA peak of the same process
        use layout::gemm::{MatMut, MatRef, Options, batch_reduce};
        let rounds: usize = args.get(1).map_or(40, |r| r.parse().unwrap());
        let (lda, kk, items) = (32usize, 256usize, 9usize);
        let a: Vec<f32> = data(lda * kk * items, 1);
        let b: Vec<f32> = data(256 * 16 * items, 2);
        let mut c = vec![0f32; 256 * 16];
        let mut best = std::collections::BTreeMap::<(usize, bool), f64>::new();
        let mut peak = 0f64;
        for _ in 0..rounds {
            peak = peak.max(fma_peak(false));
            for w in [6usize, 5, 4, 3] {
                for shared in [true, false] {
                    let ar: Vec<MatRef<'_, f32>> = (0..items)
                        .map(|t| MatRef {
                            data: &a[if shared { 0 } else { t * lda * kk }..],
                            rows: 16,
                            cols: kk,
                            row_stride: 1,
                            col_stride: lda as isize,
                        })
                        .collect();
                    // B: w pixels 256 channels apart (NHWC), each item its own tap
                    let br: Vec<MatRef<'_, f32>> = (0..items)
                        .map(|t| MatRef {
                            data: &b[t * 256..],
                            rows: kk,
                            cols: w,
                            row_stride: 1,
                            col_stride: 256 * 9,
                        })
                        .collect();
                    let reps = 300;
                    let t = Instant::now();
                    for _ in 0..reps {
                        let cm = MatMut {
                            data: &mut c[..],
                            rows: 16,
                            cols: w,
                            row_stride: 1,
                            col_stride: 256,
                        };
                        batch_reduce(Options::default(), 1.0f32, &ar, &br, 0.0, cm).unwrap();
                    }
                    let flop = 2.0 * (16 * w * kk * items * reps) as f64;
                    let g = flop / t.elapsed().as_secs_f64() / 1e9;
                    let e = best.entry((w, shared)).or_insert(0.0);
                    *e = e.max(g);
                }
            }
        }
        println!("FMA peak {peak:.1} GFLOP/s (best of {rounds})");
        for w in [6usize, 5, 4, 3] {
            let (l1, l2) = (best[&(w, true)], best[&(w, false)]);
            println!(
                "16×{w}: A in L1 {l1:.1} GFLOP/s ({:.0} % of peak), A from L2 {l2:.1} ({:.0} %), L2 ÷ L1 {:.2}",
                100.0 * l1 / peak,
                100.0 * l2 / peak,
                l2 / l1
            );
        }
        return;
    }
    if args.first().map(String::as_str) == Some("packed") {
        // B row-major, packed on every call vs packed once (PackedB); f32, one thread
        use layout::gemm::{Isa, MatMut, MatRef, Options, PackedB, Packing};
        println!(
            "| m×k×n | B packed per call GFLOP/s | PackedB GFLOP/s | ratio | packing B once (µs) |"
        );
        println!("|---|---|---|---|---|");
        for (m, k, n) in [
            (256, 256, 256),
            (1024, 1024, 1024),
            (2048, 2048, 2048),
            (1, 4096, 4096),
            (16, 4096, 4096),
        ] {
            let a: Vec<f32> = data(m * k, 1);
            let b: Vec<f32> = data(k * n, 2);
            let mut c = vec![0f32; m * n];
            let bv = MatRef {
                data: &b,
                rows: k,
                cols: n,
                row_stride: n as isize,
                col_stride: 1,
            };
            let av = || MatRef {
                data: &a,
                rows: m,
                cols: k,
                row_stride: 1,
                col_stride: m as isize,
            };
            let opts = Options {
                isa: Isa::selected(),
                threads: 1,
                packing: Packing::Always,
            };
            let t = Instant::now();
            let pb = PackedB::new(Isa::selected(), bv).unwrap();
            let pack_us = t.elapsed().as_secs_f64() * 1e6;
            let flop = 2.0 * (m * n * k) as f64;
            let reps = ((0.02 * 50e9 / flop) as usize).clamp(1, 1000);
            let (mut t1, mut t2) = (Vec::new(), Vec::new());
            for _ in 0..7 {
                let t = Instant::now();
                for _ in 0..reps {
                    let cv = MatMut {
                        data: &mut c,
                        rows: m,
                        cols: n,
                        row_stride: 1,
                        col_stride: m as isize,
                    };
                    layout::gemm::gemm_with(opts, 1.0, av(), bv, 0.0, cv).unwrap();
                }
                t1.push(t.elapsed().as_secs_f64() / reps as f64);
                let t = Instant::now();
                for _ in 0..reps {
                    let cv = MatMut {
                        data: &mut c,
                        rows: m,
                        cols: n,
                        row_stride: 1,
                        col_stride: m as isize,
                    };
                    layout::gemm::gemm_packed(opts, 1.0, av(), &pb, 0.0, cv).unwrap();
                }
                t2.push(t.elapsed().as_secs_f64() / reps as f64);
            }
            t1.sort_by(f64::total_cmp);
            t2.sort_by(f64::total_cmp);
            let (g1, g2) = (flop / t1[3] / 1e9, flop / t2[3] / 1e9);
            println!(
                "| {m}×{k}×{n} | {g1:.1} | {g2:.1} | {:.2} | {pack_us:.0} |",
                g2 / g1
            );
        }
        return;
    }
    if args.first().map(String::as_str) == Some("half") {
        // f32 sgemm vs bf16 inputs (vdpbf16ps kernel) vs f16 inputs (widened to f32, the
        // converting path), f32 accumulation, one thread, column-major
        use layout::gemm::{Isa, MatMut, MatRef};
        use layout::named::{bf16, f16};
        println!(
            "| m×k×n | f32 sgemm GFLOP/s | bf16 vdpbf16ps GFLOP/s | f16 converting GFLOP/s | bf16 ÷ f32 | bf16 ÷ converting |"
        );
        println!("|---|---|---|---|---|---|");
        for n in [256usize, 1024, 2048] {
            let af: Vec<f32> = data(n * n, 1);
            let bf: Vec<f32> = data(n * n, 2);
            let ab: Vec<bf16> = af.iter().map(|&x| bf16::from_f32(x)).collect();
            let bb: Vec<bf16> = bf.iter().map(|&x| bf16::from_f32(x)).collect();
            let ah: Vec<f16> = af.iter().map(|&x| f16::from_f32(x)).collect();
            let bh: Vec<f16> = bf.iter().map(|&x| f16::from_f32(x)).collect();
            let mut c = vec![0f32; n * n];
            let ld = n as isize;
            let flop = 2.0 * (n * n * n) as f64;
            let reps = ((0.05 * 100e9 / flop) as usize).clamp(1, 100);
            let mut t = [Vec::new(), Vec::new(), Vec::new()];
            for _ in 0..7 {
                for which in 0..3 {
                    let s = Instant::now();
                    for _ in 0..reps {
                        let cv = MatMut {
                            data: &mut c,
                            rows: n,
                            cols: n,
                            row_stride: 1,
                            col_stride: ld,
                        };
                        match which {
                            0 => layout::gemm::gemm_with(
                                Isa::selected(),
                                1.0,
                                MatRef {
                                    data: &af,
                                    rows: n,
                                    cols: n,
                                    row_stride: 1,
                                    col_stride: ld,
                                },
                                MatRef {
                                    data: &bf,
                                    rows: n,
                                    cols: n,
                                    row_stride: 1,
                                    col_stride: ld,
                                },
                                0.0,
                                cv,
                            )
                            .unwrap(),
                            1 => layout::gemm::gemm_with(
                                Isa::selected(),
                                1.0,
                                MatRef {
                                    data: &ab,
                                    rows: n,
                                    cols: n,
                                    row_stride: 1,
                                    col_stride: ld,
                                },
                                MatRef {
                                    data: &bb,
                                    rows: n,
                                    cols: n,
                                    row_stride: 1,
                                    col_stride: ld,
                                },
                                0.0,
                                cv,
                            )
                            .unwrap(),
                            _ => layout::gemm::gemm_with(
                                Isa::selected(),
                                1.0,
                                MatRef {
                                    data: &ah,
                                    rows: n,
                                    cols: n,
                                    row_stride: 1,
                                    col_stride: ld,
                                },
                                MatRef {
                                    data: &bh,
                                    rows: n,
                                    cols: n,
                                    row_stride: 1,
                                    col_stride: ld,
                                },
                                0.0,
                                cv,
                            )
                            .unwrap(),
                        }
                    }
                    t[which].push(s.elapsed().as_secs_f64() / reps as f64);
                }
            }
            let g: Vec<f64> = t
                .iter_mut()
                .map(|v| {
                    v.sort_by(f64::total_cmp);
                    flop / v[3] / 1e9
                })
                .collect();
            println!(
                "| {n}³ | {:.1} | {:.1} | {:.1} | {:.2} | {:.2} |",
                g[0],
                g[1],
                g[2],
                g[1] / g[0],
                g[1] / g[2]
            );
        }
        return;
    }
    if args.first().map(String::as_str) == Some("tiles") {
        // `tiles static|dyn REPS`: the same tile kernel (c += 2·a over every 16 × 8 tile of a
        // 512 × 512 mixed tensor with a run-time leading dimension) on static tiles
        // (`Tensor::local_tile::<16, 8>`: extents Int<16>, Int<8>, stride 1 static) or on
        // DynLayout tiles (`DynLayout::local_tile`); for time and callgrind counts
        use layout::{DynLayout, DynTuple, Layout, Tensor, Tile};
        let which = args.get(1).map(String::as_str).unwrap_or("both");
        let reps: usize = args.get(2).map_or(50, |r| r.parse().unwrap());
        let (m, n, ld) = (black_box(512i64), black_box(512i64), black_box(520i64));
        let a: Vec<f32> = data((ld * n) as usize, 1);
        let mut c: Vec<f32> = vec![0.0; (ld * n) as usize];
        let run_static = |c: &mut Vec<f32>| {
            let ta = Tensor::new(&a[..], Layout::new((m, n), (layout::Int::<1>, ld))).unwrap();
            let mut tc =
                Tensor::new(&mut c[..], Layout::new((m, n), (layout::Int::<1>, ld))).unwrap();
            for tj in 0..(n / 8) as usize {
                for ti in 0..(m / 16) as usize {
                    let at = ta.local_tile::<16, 8>((ti, tj)).unwrap();
                    let mut ct = tc.local_tile_mut::<16, 8>((ti, tj)).unwrap();
                    for j in 0..8i64 {
                        for i in 0..16i64 {
                            ct[(i, j)] += 2.0 * at[(i, j)];
                        }
                    }
                }
            }
        };
        let run_dyn = |c: &mut Vec<f32>| {
            let l: DynLayout = DynLayout::new(
                &DynTuple::from_slice(&[m, n]).unwrap(),
                &DynTuple::from_slice(&[1, ld]).unwrap(),
            )
            .unwrap();
            let tiler: Tile = "[16,8]".parse().unwrap();
            let ta = Tensor::new(&a[..], l).unwrap();
            let mut tc = Tensor::new(&mut c[..], l).unwrap();
            for tj in 0..n / 8 {
                for ti in 0..m / 16 {
                    let (tile, off) = l
                        .local_tile(&tiler, &DynTuple::from_slice(&[ti, tj]).unwrap())
                        .unwrap();
                    let at = Tensor::with_offset(ta.as_slice(), tile, off as usize).unwrap();
                    let mut ct =
                        Tensor::with_offset(tc.as_mut_slice(), tile, off as usize).unwrap();
                    for j in 0..8i64 {
                        for i in 0..16i64 {
                            ct[[i, j]] += 2.0 * at[[i, j]];
                        }
                    }
                }
            }
        };
        if which == "static" || which == "dyn" {
            for _ in 0..reps {
                if which == "static" {
                    run_static(&mut c)
                } else {
                    run_dyn(&mut c)
                }
            }
            black_box(&c);
            return;
        }
        let (mut ts, mut td) = (Vec::new(), Vec::new());
        for _ in 0..9 {
            let t = Instant::now();
            for _ in 0..reps {
                run_static(&mut c);
            }
            ts.push(t.elapsed().as_secs_f64() / reps as f64);
            let t = Instant::now();
            for _ in 0..reps {
                run_dyn(&mut c);
            }
            td.push(t.elapsed().as_secs_f64() / reps as f64);
        }
        ts.sort_by(f64::total_cmp);
        td.sort_by(f64::total_cmp);
        println!(
            "static tiles: {:.1} µs per 512×512 pass; DynLayout tiles: {:.1} µs ({:.1}×)",
            ts[4] * 1e6,
            td[4] * 1e6,
            td[4] / ts[4]
        );
        return;
    }
    if args.first().map(String::as_str) == Some("count4") {
        // `count4 layout|hand REPS`: 4×4×4 f32 column-major, layout's static tensors or a
        // hand-written unrolled loop, for callgrind's instruction counts per call
        use layout::{Int, Layout, Tensor};
        type Col4 = Layout<(Int<4>, Int<4>), (Int<1>, Int<4>)>;
        let reps: usize = args[2].parse().unwrap();
        let a: Vec<f32> = data(16, 1);
        let b: Vec<f32> = data(16, 2);
        let mut c = vec![0f32; 16];
        if args[1] == "layout" {
            let ta = Tensor::new(&a[..], Col4::default()).unwrap();
            let tb = Tensor::new(&b[..], Col4::default()).unwrap();
            let mut tc = Tensor::new(&mut c[..], Col4::default()).unwrap();
            for _ in 0..reps {
                layout::gemm::gemm(
                    1.0f32,
                    black_box(&ta),
                    black_box(&tb),
                    0.0,
                    black_box(&mut tc),
                )
                .unwrap();
            }
        } else {
            #[inline(never)]
            fn hand(a: &[f32; 16], b: &[f32; 16], c: &mut [f32; 16]) {
                for j in 0..4 {
                    for i in 0..4 {
                        let mut s = 0.0;
                        for p in 0..4 {
                            s += a[i + 4 * p] * b[p + 4 * j];
                        }
                        c[i + 4 * j] = s;
                    }
                }
            }
            let (a, b): ([f32; 16], [f32; 16]) = (a.try_into().unwrap(), b.try_into().unwrap());
            let mut cc = [0f32; 16];
            for _ in 0..reps {
                hand(black_box(&a), black_box(&b), black_box(&mut cc));
            }
        }
        return;
    }
    if args.first().map(String::as_str) == Some("static") {
        let rounds = 9;
        println!(
            "| dtype | n (static n×n×n) | layout static | layout run-time | nalgebra SMatrix | libxsmm | faer | layout static ÷ best other | ns per call (layout static) |"
        );
        println!("|---|---|---|---|---|---|---|---|---|");
        static_row::<f32, 4, 4>(rounds);
        static_row::<f64, 4, 4>(rounds);
        static_row::<f32, 8, 8>(rounds);
        static_row::<f64, 8, 8>(rounds);
        static_row::<f32, 16, 16>(rounds);
        static_row::<f64, 16, 16>(rounds);
        static_row::<f32, 32, 32>(rounds);
        static_row::<f64, 32, 32>(rounds);
        return;
    }
    if args.first().map(String::as_str) == Some("peak2") {
        // the FMA peak on one thread, then on two at once: do the two vCPUs have FMA units of
        // their own?
        let one = fma_peak(false);
        let two: f64 = std::thread::scope(|s| {
            let h: Vec<_> = (0..2).map(|_| s.spawn(|| fma_peak(false))).collect();
            h.into_iter().map(|h| h.join().unwrap()).sum()
        });
        println!(
            "f32 FMA peak: one thread {one:.1} GFLOP/s, two threads together {two:.1} GFLOP/s"
        );
        return;
    }
    if args.first().map(String::as_str) == Some("par") {
        // `par N`: layout on N³ f32 with 1 and 2 threads, alternating
        let n: usize = args[1].parse().unwrap();
        let a: Vec<f32> = data(n * n, 1);
        let b: Vec<f32> = data(n * n, 2);
        let mut c = vec![0f32; n * n];
        for _ in 0..3 {
            for t in [1, 2] {
                let start = Instant::now();
                for _ in 0..5 {
                    f32::layout(t, n, n, n, &a, &b, &mut c);
                }
                let s = start.elapsed().as_secs_f64() / 5.0;
                println!(
                    "{t} thread(s): {:.1} GFLOP/s",
                    2.0 * (n * n * n) as f64 / s / 1e9
                );
            }
        }
        return;
    }
    if args.first().map(String::as_str) == Some("overhead") {
        // ns per call of sgemm at 1×1×1 (all fixed cost) and 4×4×4
        for n in [1usize, 4, 16] {
            let a: Vec<f32> = data(n * n, 1);
            let b: Vec<f32> = data(n * n, 2);
            let mut c = vec![0f32; n * n];
            let reps = 2_000_000;
            let t = Instant::now();
            for _ in 0..reps {
                f32::layout(1, n, n, n, black_box(&a), black_box(&b), black_box(&mut c));
            }
            println!(
                "{n}³: {:.1} ns per call",
                t.elapsed().as_secs_f64() / reps as f64 * 1e9
            );
        }
        return;
    }
    if args.first().map(String::as_str) == Some("one") {
        // `one f32|f64 N REPS [openblas]`: layout's public `gemm` on strided column-major N³, REPS calls
        // (for profilers: perf record, callgrind)
        let f64_ = args.get(1).map(String::as_str) == Some("f64");
        let n: usize = args.get(2).map_or(1024, |r| r.parse().unwrap());
        let reps: usize = args.get(3).map_or(10, |r| r.parse().unwrap());
        // a fourth argument `openblas` runs OpenBLAS instead (its `OPENBLAS_CORETYPE` applies)
        let peer = (args.get(4).map(String::as_str) == Some("openblas")).then(|| {
            Blas::load(
                "OpenBLAS",
                &["/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"],
                b"openblas_set_num_threads\0",
                1,
            )
            .expect("OpenBLAS")
        });
        fn go<T: Elem>(n: usize, reps: usize, peer: Option<&Blas>) {
            let a: Vec<T> = data(n * n, 1);
            let b: Vec<T> = data(n * n, 2);
            let mut c = vec![<T as Elem>::zero(); n * n];
            let t = Instant::now();
            for _ in 0..reps {
                match peer {
                    Some(p) => T::blas(p, n, n, n, black_box(&a), black_box(&b), black_box(&mut c)),
                    None => T::layout(1, n, n, n, black_box(&a), black_box(&b), black_box(&mut c)),
                }
            }
            let r = 2.0 * (n * n * n * reps) as f64 / t.elapsed().as_secs_f64() / 1e9;
            println!("{n}³ {:.1} GFLOP/s", r);
        }
        if f64_ {
            go::<f64>(n, reps, peer.as_ref())
        } else {
            go::<f32>(n, reps, peer.as_ref())
        }
        return;
    }
    if args.first().map(String::as_str) == Some("engine") {
        // `engine [ROUNDS]`: layout's blocked engine alone (`Packing::Always`), f32 and f64 at
        // 256³, 512³, 1024³, % of the FMA peak (medians); for A/B runs of two builds
        let rounds: usize = args.get(1).map_or(7, |r| r.parse().unwrap());
        fn one<T: Elem>(n: usize, rounds: usize) -> f64 {
            let a: Vec<T> = data(n * n, 1);
            let b: Vec<T> = data(n * n, 2);
            let mut c = vec![<T as Elem>::zero(); n * n];
            let reps = (2e9 / (2.0 * (n * n * n) as f64)).ceil() as usize;
            // each round as a fraction of the FMA peak measured just before it (the machine's
            // load moves both alike)
            let f64_lanes = std::mem::size_of::<T>() == 8;
            let mut v: Vec<f64> = (0..rounds)
                .map(|_| {
                    let peak = fma_peak(f64_lanes);
                    let t = Instant::now();
                    for _ in 0..reps {
                        T::packed(n, n, n, black_box(&a), black_box(&b), black_box(&mut c));
                    }
                    let r = 2.0 * (n * n * n * reps) as f64 / t.elapsed().as_secs_f64() / 1e9;
                    100.0 * r / peak
                })
                .collect();
            v.sort_by(f64::total_cmp);
            v[rounds / 2]
        }
        for n in [256, 512, 1024] {
            println!(
                "{n}³ f32 {:.0} % f64 {:.0} %",
                one::<f32>(n, rounds),
                one::<f64>(n, rounds)
            );
        }
        return;
    }
    if args.first().map(String::as_str) == Some("nz") {
        // `nz N REPS [rm]`: f32 N³ through `gemm::gemm` on tensors, A NZ × B ZN → C NZ (or all
        // row-major with `rm`), for callgrind's instruction counts per call
        use layout::named::ascend::{make_nz_layout, make_zn_layout};
        use layout::{DynLayout, Tensor};
        let n: usize = args[1].parse().unwrap();
        let reps: usize = args[2].parse().unwrap();
        let rm =
            |r: usize, c: usize| -> DynLayout { format!("({r},{c}):({c},1)").parse().unwrap() };
        let a = data::<f32>(n * n, 1);
        let b = data::<f32>(n * n, 2);
        if args.get(3).map(String::as_str) == Some("rm") {
            let ta = Tensor::new(&a[..], rm(n, n)).unwrap();
            let tb = Tensor::new(&b[..], rm(n, n)).unwrap();
            let mut c = vec![0f32; n * n];
            let mut tc = Tensor::new(&mut c[..], rm(n, n)).unwrap();
            for _ in 0..reps {
                layout::gemm::gemm(1.0f32, black_box(&ta), black_box(&tb), 0.0, &mut tc).unwrap();
            }
        } else {
            let ta = Tensor::new(&a[..], make_nz_layout::<f32>(n, n).unwrap()).unwrap();
            let tb = Tensor::new(&b[..], make_zn_layout::<f32>(n, n).unwrap()).unwrap();
            let mut c = vec![0f32; n * n];
            let mut tc = Tensor::new(&mut c[..], make_nz_layout::<f32>(n, n).unwrap()).unwrap();
            for _ in 0..reps {
                layout::gemm::gemm(1.0f32, black_box(&ta), black_box(&tb), 0.0, &mut tc).unwrap();
            }
        }
        return;
    }
    if args.first().map(String::as_str) == Some("tn") {
        // `tn N REPS [f64] [packed]`: A·Bᵀ with A and B row-major (both contiguous along k), C
        // row-major, through `gemm::gemm_with` (for callgrind's counts and perf's task-clock);
        // `packed` forces the blocked engine (the route these products took before issue 28's
        // k-vector route)
        use layout::gemm::{MatMut, MatRef, Options, Packing};
        let n: usize = args[1].parse().unwrap();
        let reps: usize = args[2].parse().unwrap();
        let packed = args.iter().any(|a| a == "packed");
        fn run<T: Elem>(n: usize, reps: usize, packed: bool) {
            let opts = Options {
                packing: if packed {
                    Packing::Always
                } else {
                    Packing::Auto
                },
                ..Options::default()
            };
            let a: Vec<T> = data(n * n, 1);
            let b: Vec<T> = data(n * n, 2);
            let mut c = vec![<T as Elem>::zero(); n * n];
            fn m<T>(d: &[T], n: usize) -> MatRef<'_, T> {
                MatRef {
                    data: d,
                    rows: n,
                    cols: n,
                    row_stride: n as isize,
                    col_stride: 1,
                }
            }
            for _ in 0..reps {
                let bt = MatRef {
                    row_stride: 1,
                    col_stride: n as isize,
                    ..m(&b, n)
                };
                let cm = MatMut {
                    data: &mut c[..],
                    rows: n,
                    cols: n,
                    row_stride: n as isize,
                    col_stride: 1,
                };
                layout::gemm::gemm_with(
                    opts,
                    <T as Elem>::one(),
                    black_box(m(&a, n)),
                    black_box(bt),
                    <T as Elem>::zero(),
                    cm,
                )
                .unwrap();
            }
        }
        if args.iter().any(|a| a == "f64") {
            run::<f64>(n, reps, packed)
        } else {
            run::<f32>(n, reps, packed)
        }
        return;
    }
    if args.first().map(String::as_str) == Some("entries") {
        // `entries [ROUNDS]`: ns per call of each public entry on small products — `sgemm`/`dgemm`
        // and `gemm_with` (column-major), `gemm::gemm` on `DynLayout` row-major tensors — against
        // matrixmultiply and libxsmm (column-major), f32 and f64; interleaved rounds, medians
        let rounds: usize = args.get(1).map_or(7, |r| r.parse().unwrap());
        #[cfg(feature = "libxsmm")]
        // SAFETY: initialises libxsmm's registry; called once before any dispatch.
        unsafe {
            xsmm::libxsmm_init()
        };
        fn go<T: Elem>(m: usize, k: usize, n: usize, rounds: usize) {
            use layout::gemm::{MatMut, MatRef, Options};
            use layout::{DynLayout, Tensor};
            let a: Vec<T> = data(m * k, 1);
            let b: Vec<T> = data(k * n, 2);
            let mut c = vec![<T as Elem>::zero(); m * n];
            let rm = |r: usize, c: usize| -> DynLayout { format!("({r},{c}):({c},1)").parse().unwrap() };
            let ta = Tensor::new(a.clone(), rm(m, k)).unwrap();
            let tb = Tensor::new(b.clone(), rm(k, n)).unwrap();
            let mut tc = Tensor::new(c.clone(), rm(m, n)).unwrap();
            let (one, zero) = (<T as Elem>::one(), <T as Elem>::zero());
            let mut libs: Vec<(&str, Run<'_, T>)> = vec![
                ("blas", Box::new(move |a, b, c| T::layout(1, m, k, n, a, b, c))),
                (
                    "with",
                    Box::new(move |a, b, c| {
                        let (mi, ki) = (m as isize, k as isize);
                        layout::gemm::gemm_with(
                            Options::default(),
                            one,
                            MatRef { data: a, rows: m, cols: k, row_stride: 1, col_stride: mi },
                            MatRef { data: b, rows: k, cols: n, row_stride: 1, col_stride: ki },
                            zero,
                            MatMut { data: c, rows: m, cols: n, row_stride: 1, col_stride: mi },
                        )
                        .unwrap()
                    }),
                ),
                (
                    "tensor",
                    // (its own tensors, made once: the call alone is timed)
                    Box::new(move |_, _, _| {
                        layout::gemm::gemm(one, black_box(&ta), black_box(&tb), zero, &mut tc)
                            .unwrap()
                    }),
                ),
                ("mm", Box::new(move |a, b, c| T::mm(m, k, n, a, b, c))),
            ];
            #[cfg(feature = "libxsmm")]
            if let Some(f) = T::xsmm(m, k, n) {
                libs.push(("xsmm", Box::new(move |a, b, c| f(a, b, c))));
            }
            let reps = (2e6 / (2.0 * (m * n * k) as f64 + 200.0)) as usize + 1000;
            let nl = libs.len();
            let mut times: Vec<Vec<f64>> = vec![Vec::new(); nl];
            for round in 0..rounds {
                for slot in 0..nl {
                    let i = (slot + round) % nl;
                    let f = &mut libs[i].1;
                    let t = Instant::now();
                    for _ in 0..reps {
                        f(black_box(&a), black_box(&b), black_box(&mut c));
                    }
                    times[i].push(t.elapsed().as_secs_f64() / reps as f64 * 1e9);
                }
            }
            let mut line = format!("{m}x{k}x{n} {}", T::NAME);
            for (i, (name, _)) in libs.iter().enumerate() {
                times[i].sort_by(f64::total_cmp);
                line += &format!("  {name} {:.1}", times[i][rounds / 2]);
            }
            println!("{line}  (ns per call)");
        }
        for (m, k, n) in [(4, 4, 4), (8, 8, 8), (16, 16, 16), (32, 32, 32), (8, 8, 64), (64, 8, 8)] {
            go::<f32>(m, k, n, rounds);
            go::<f64>(m, k, n, rounds);
        }
        return;
    }
    if args.first().map(String::as_str) == Some("tiny") {
        // `tiny N REPS`: layout alone on N³ f32, for callgrind's instruction counts per call
        // (`tiny N REPS f64`: the same in f64)
        let n: usize = args[1].parse().unwrap();
        let reps: usize = args[2].parse().unwrap();
        fn run<T: Elem>(n: usize, reps: usize) {
            let a: Vec<T> = data(n * n, 1);
            let b: Vec<T> = data(n * n, 2);
            let mut c = vec![<T as Elem>::zero(); n * n];
            for _ in 0..reps {
                T::layout(1, n, n, n, black_box(&a), black_box(&b), black_box(&mut c));
            }
        }
        if args.get(3).map(String::as_str) == Some("f64") {
            run::<f64>(n, reps);
        } else {
            run::<f32>(n, reps);
        }
        return;
    }
    let mut set = "square".to_string();
    let mut threads = 1usize;
    let mut rounds = 9usize;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--threads" => {
                threads = args[i + 1].parse().expect("--threads N");
                i += 1;
            }
            "--rounds" => {
                rounds = args[i + 1].parse().expect("--rounds R");
                i += 1;
            }
            s => set = s.to_string(),
        }
        i += 1;
    }
    #[cfg(feature = "libxsmm")]
    // SAFETY: initialises libxsmm's registry; called once before any dispatch.
    unsafe {
        xsmm::libxsmm_init()
    };
    let blas: Vec<Blas> = [
        Blas::load(
            "OpenBLAS",
            &[
                "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
                "libopenblas.so.0",
            ],
            b"openblas_set_num_threads\0",
            threads,
        ),
        Blas::load(
            "BLIS",
            &[
                "libblis.so.4",
                "/usr/lib/x86_64-linux-gnu/blis-openmp/libblis.so.4",
            ],
            b"bli_thread_set_num_threads\0",
            threads,
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    println!(
        "CPU: {cpu}; threads {threads}; {rounds} rounds, interleaved; GFLOP/s are medians; system BLAS loaded: {}",
        blas.iter().map(|b| b.name).collect::<Vec<_>>().join(", ")
    );
    let _ = c_char::default();
    let shapes: Vec<(usize, usize, usize)> = match set.as_str() {
        "small" => [4, 8, 16, 32, 64].iter().map(|&n| (n, n, n)).collect(),
        "mid" => [256, 512, 1024].iter().map(|&n| (n, n, n)).collect(),
        "skinny" => vec![
            (64, 4096, 64),
            (4096, 64, 4096),
            (1, 4096, 4096),
            (4096, 4096, 1),
            (16, 4096, 4096),
        ],
        "all" => vec![
            (16, 16, 16),
            (64, 64, 64),
            (128, 128, 128),
            (256, 256, 256),
            (512, 512, 512),
            (1024, 1024, 1024),
            (2048, 2048, 2048),
            (64, 4096, 64),
            (4096, 64, 4096),
            (1, 4096, 4096),
            (4096, 4096, 1),
        ],
        _ => [64, 128, 256, 512, 1024]
            .iter()
            .map(|&n| (n, n, n))
            .collect(),
    };
    // SIZES=512,1024,64x1024x1024: those cubes (or m×k×n) instead of the set's shapes;
    // DTYPE=f32|f64: that type alone (with ONLY=name, one library at one shape: a profile of
    // its call alone)
    let shapes = match std::env::var("SIZES") {
        Ok(s) => s
            .split(',')
            .filter_map(|x| {
                let d: Vec<usize> = x.split('x').filter_map(|v| v.trim().parse().ok()).collect();
                match d[..] {
                    [n] => Some((n, n, n)),
                    [m, k, n] => Some((m, k, n)),
                    _ => None,
                }
            })
            .collect(),
        Err(_) => shapes,
    };
    let dtype = std::env::var("DTYPE").unwrap_or_default();
    let small = set == "small";
    let mut rows = Vec::new();
    for &(m, k, n) in &shapes {
        if dtype != "f64" {
            rows.push(measure::<f32>(m, k, n, threads, rounds, &blas, small));
        }
        if dtype != "f32" {
            rows.push(measure::<f64>(m, k, n, threads, rounds, &blas, small));
        }
        eprintln!("done {m}x{k}x{n}");
    }
    print(&rows);
}
