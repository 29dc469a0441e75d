//! `onednn [matmul|conv|threads|all] [--rounds R] [--wall]`: oneDNN's matmul and convolution
//! beside layout's, interleaved in one process, one thread (issues 22 and 23). Times are the
//! calling thread's CPU time (a shared machine's descheduling left out), or with `--wall` the
//! wall clock; `SHAPES=1,16` limits the matmul rows to those m.
//!
//! - matmul, row-major A, B, C: f32, bf16×bf16→f32 and u8×s8→s32 at 256³, 1024³, 2048³ (B plain
//!   `ab` for both libraries, packed per call), and the decode 1×4096×4096, 16×4096×4096 and prefill
//!   512×4096×4096 shapes with the weights packed once outside the timing (oneDNN: `format_tag any`
//!   and one reorder; layout: `PackedB` where the pair has one); at the cube shapes also u8×s8
//!   over the whole u8 and i8 ranges, with each library's result checked against the exact sum at
//!   256 sampled entries (oneDNN's AVX2 `vpmaddubsw` path saturates there);
//! - conv forward, batch 1, five ResNet-50 layers, NCHW and NHWC src and dst, weights `any`
//!   (reordered once), f32; bf16×bf16→f32 on the 3×3 128→128 layer. Layout's side is explicit
//!   im2col + GEMM (the baseline issue 23 asks for) until `layout::conv::conv2d` exists.
//! - threads: oneDNN at 1 and 2 OpenMP threads, with the CPU time of the threads other than the
//!   main one, to show the one-thread rows really run on one thread (layout's 1 against 2
//!   threads is the `par N` mode).
//!
//! Every row is checked for exact equality with layout's f32 result first (integer-valued data,
//! so every summation order is exact). The APIs layout does not have yet are `TODO(lead)` stubs
//! in [`ours`] that return `None`; their rows say so.

use crate::onednn::{ConvShape, Dnnl, Op, dt, tag};
use layout::named::bf16;
use std::hint::black_box;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// layout's entry points for these rows. When the new APIs land, point the stubs here at them.
pub mod ours {
    use layout::gemm::{Isa, MatMut, MatRef, Options, PackedB};
    use layout::named::bf16;

    fn rm<T>(data: &[T], rows: usize, cols: usize) -> MatRef<'_, T> {
        MatRef {
            data,
            rows,
            cols,
            row_stride: cols as isize,
            col_stride: 1,
        }
    }

    fn rm_mut<T>(data: &mut [T], rows: usize, cols: usize) -> MatMut<'_, T> {
        MatMut {
            data,
            rows,
            cols,
            row_stride: cols as isize,
            col_stride: 1,
        }
    }

    /// f32, row-major, packed per call: `layout::gemm::sgemm`.
    pub fn f32_gemm(m: usize, k: usize, n: usize, a: &[f32], b: &[f32], c: &mut [f32]) {
        layout::gemm::sgemm(
            m, k, n, 1.0, a, k as isize, 1, b, n as isize, 1, 0.0, c, n as isize, 1,
        )
        .unwrap();
    }

    /// f32 with B packed once: `PackedB` + `gemm_packed`.
    pub fn f32_packed(k: usize, n: usize, b: &[f32]) -> impl Fn(usize, &[f32], &mut [f32]) {
        let pb = PackedB::new(Isa::selected_for_gemm(), rm(b, k, n)).unwrap();
        move |m, a, c| {
            layout::gemm::gemm_packed(
                Options::default(),
                1.0,
                rm(a, m, k),
                &pb,
                0.0,
                rm_mut(c, m, n),
            )
            .unwrap()
        }
    }

    /// bf16×bf16→f32, row-major, per call: `layout::gemm::gemm_with` on the bf16 pair.
    pub fn bf16_gemm(m: usize, k: usize, n: usize, a: &[bf16], b: &[bf16], c: &mut [f32]) {
        layout::gemm::gemm_with(
            Options::default(),
            1.0,
            rm(a, m, k),
            rm(b, k, n),
            0.0,
            rm_mut(c, m, n),
        )
        .unwrap();
    }

    /// bf16 with B packed once: `PackedB<bf16>` (k-pair panels on AVX-512 BF16, else widened
    /// to the f32 panels once) +
    /// `gemm_packed`.
    #[allow(clippy::type_complexity)]
    pub fn bf16_packed(
        k: usize,
        n: usize,
        b: &[bf16],
    ) -> Option<Box<dyn Fn(usize, &[bf16], &mut [f32])>> {
        let pb = PackedB::new(Isa::selected_for_gemm(), rm(b, k, n)).unwrap();
        Some(Box::new(move |m, a, c| {
            layout::gemm::gemm_packed(
                Isa::selected_for_gemm(),
                1.0,
                rm(a, m, k),
                &pb,
                0.0,
                rm_mut(c, m, n),
            )
            .unwrap()
        }))
    }

    /// u8×i8→i32 with the i8 weights packed once: `PackedB<i8>` (byte quads) + `gemm_packed`.
    #[allow(clippy::type_complexity)]
    pub fn u8i8_packed(k: usize, n: usize, b: &[i8]) -> Box<dyn Fn(usize, &[u8], &mut [i32])> {
        let pb = PackedB::new(Isa::selected_for_gemm(), rm(b, k, n)).unwrap();
        Box::new(move |m, a, c| {
            layout::gemm::gemm_packed(
                Isa::selected_for_gemm(),
                1,
                rm(a, m, k),
                &pb,
                0,
                rm_mut(c, m, n),
            )
            .unwrap()
        })
    }

    /// Quantized weights on 8-bit activations (issue 29): `b` (row-major f32, k × n) quantized
    /// once to `Q4_0`, `Q8_0` or AWQ groups of 128, then `gemm_quant` with
    /// `QuantB::int8_activations` (A quantized per row and 32-block on every call); a name
    /// ending in "7-bit" takes `QuantB::int7_activations` instead.
    #[allow(clippy::type_complexity)]
    pub fn quant_int8(
        fmt: &str,
        k: usize,
        n: usize,
        b: &[f32],
    ) -> Box<dyn Fn(usize, &[f32], &mut [f32])> {
        use layout::packed::{
            Group4Format, QuantRef, quantize_group4, quantize_q4_0, quantize_q8_0,
        };
        enum Q {
            Q4(layout::packed::Q4_0Matrix),
            Q8(layout::packed::Q8_0Matrix),
            G(layout::packed::Group4Matrix),
        }
        let seven = fmt.ends_with("7-bit");
        let q = match fmt.trim_end_matches(" 7-bit") {
            "Q4_0" => Q::Q4(quantize_q4_0(k, n, b).unwrap()),
            "Q8_0" => Q::Q8(quantize_q8_0(k, n, b).unwrap()),
            _ => Q::G(quantize_group4(k, n, b, 128, Group4Format::Awq).unwrap()),
        };
        Box::new(move |m, a, c| {
            let r: QuantRef<'_> = match &q {
                Q::Q4(x) => x.into(),
                Q::Q8(x) => x.into(),
                Q::G(x) => x.into(),
            };
            let qb = if seven {
                layout::gemm::QuantB::int7_activations(r)
            } else {
                layout::gemm::QuantB::int8_activations(r)
            };
            layout::gemm::gemm_quant(
                Isa::selected_for_gemm(),
                1.0,
                rm(a, m, k),
                qb,
                0.0,
                rm_mut(c, m, n),
            )
            .unwrap()
        })
    }

    /// u8×i8→i32, row-major: `layout::gemm::gemm_with` on the u8×i8 pair (B packed per call:
    /// byte quads for `vpdpbusd`/`vpmaddubsw`, or i16 k pairs past `vpmaddubsw`'s range).
    #[allow(clippy::type_complexity)]
    pub fn u8i8_gemm(
        k: usize,
        n: usize,
        b: &[i8],
    ) -> Option<Box<dyn Fn(usize, &[u8], &mut [i32])>> {
        let b = b.to_vec();
        Some(Box::new(move |m, a, c| {
            layout::gemm::gemm_with(
                Options::default(),
                1,
                rm(a, m, k),
                rm(&b, k, n),
                0,
                rm_mut(c, m, n),
            )
            .unwrap()
        }))
    }

    /// A 2-D convolution's shape, batch 1 (mirrors `onednn::ConvShape`, so this module does not
    /// depend on the FFI).
    #[derive(Clone, Copy, Debug)]
    pub struct Conv {
        pub c: usize,
        pub o: usize,
        pub h: usize,
        pub w: usize,
        pub r: usize,
        pub s: usize,
        pub stride: usize,
        pub pad: usize,
        pub oh: usize,
        pub ow: usize,
    }

    /// The layouts of a batch-1 activation (C channels, H×W) in NCHW or NHWC.
    fn act(c: usize, h: usize, w: usize, nhwc: bool) -> layout::DynLayout {
        let text = if nhwc {
            format!("(1,{c},{h},{w}):({},1,{},{c})", h * w * c, w * c)
        } else {
            format!("(1,{c},{h},{w}):({},{},{w},1)", c * h * w, h * w)
        };
        text.parse().unwrap()
    }

    /// layout's own conv2d, weights packed once (`ConvWeights` + `conv2d_prepared`; `nhwc`
    /// selects the src/dst layout), for any input element conv accepts (f32, bf16).
    #[allow(clippy::type_complexity)]
    fn conv2d_any<T: layout::conv::ConvElement + Default>(
        p: Conv,
        nhwc: bool,
        w_oihw: &[T],
    ) -> Option<Box<dyn Fn(&[T], &mut [f32])>> {
        use layout::conv::{Conv2d, ConvWeights, conv2d_prepared};
        use layout::tensor::Tensor;
        let params = Conv2d::default().stride(p.stride).padding(p.pad);
        let (il, ol) = (act(p.c, p.h, p.w, nhwc), act(p.o, p.oh, p.ow, nhwc));
        let wl: layout::DynLayout = format!(
            "({},{},{},{}):({},{},{},1)",
            p.o,
            p.c,
            p.r,
            p.s,
            p.c * p.r * p.s,
            p.r * p.s,
            p.s
        )
        .parse()
        .unwrap();
        let wt = Tensor::new(w_oihw, wl).unwrap();
        let packed = ConvWeights::new(&params, &il, &wt).unwrap();
        Some(Box::new(move |x, y| {
            let xt = Tensor::new(x, il).unwrap();
            let mut yt = Tensor::new(y, ol).unwrap();
            // THREADS=2 (the `prof` mode's scaling runs): that many threads; default one
            let threads = std::env::var("THREADS")
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or(1);
            let opts = Options {
                threads,
                ..Options::default()
            };
            conv2d_prepared(opts, &params, &xt, &packed, None, &mut yt).unwrap();
        }))
    }

    /// layout's own conv2d, f32, weights packed once (`nhwc` selects the src/dst layout).
    #[allow(clippy::type_complexity)]
    pub fn conv2d_f32(
        p: Conv,
        nhwc: bool,
        w_oihw: &[f32],
    ) -> Option<Box<dyn Fn(&[f32], &mut [f32])>> {
        conv2d_any(p, nhwc, w_oihw)
    }

    /// As [`conv2d_f32`], bf16 src and weights, f32 dst.
    #[allow(clippy::type_complexity)]
    pub fn conv2d_bf16(
        p: Conv,
        nhwc: bool,
        w_oihw: &[bf16],
    ) -> Option<Box<dyn Fn(&[bf16], &mut [f32])>> {
        conv2d_any(p, nhwc, w_oihw)
    }

    /// Explicit im2col into `col` (materialised), NCHW: `col` is (C·R·S)×(OH·OW), row-major.
    pub fn im2col_nchw<T: Copy + Default>(p: Conv, x: &[T], col: &mut [T]) {
        let pix = p.oh * p.ow;
        for c in 0..p.c {
            for r in 0..p.r {
                for s in 0..p.s {
                    let row = &mut col[((c * p.r + r) * p.s + s) * pix..][..pix];
                    for oh in 0..p.oh {
                        let h = (oh * p.stride + r) as isize - p.pad as isize;
                        let dst = &mut row[oh * p.ow..][..p.ow];
                        if h < 0 || h >= p.h as isize {
                            dst.fill(T::default());
                            continue;
                        }
                        let src = &x[(c * p.h + h as usize) * p.w..][..p.w];
                        for (ow, d) in dst.iter_mut().enumerate() {
                            let w = (ow * p.stride + s) as isize - p.pad as isize;
                            *d = if w < 0 || w >= p.w as isize {
                                T::default()
                            } else {
                                src[w as usize]
                            };
                        }
                    }
                }
            }
        }
    }

    /// Explicit im2col, NHWC: `col` is (OH·OW)×(R·S·C), row-major (C innermost).
    pub fn im2col_nhwc<T: Copy + Default>(p: Conv, x: &[T], col: &mut [T]) {
        let kk = p.r * p.s * p.c;
        for oh in 0..p.oh {
            for ow in 0..p.ow {
                let row = &mut col[(oh * p.ow + ow) * kk..][..kk];
                for r in 0..p.r {
                    let h = (oh * p.stride + r) as isize - p.pad as isize;
                    for s in 0..p.s {
                        let w = (ow * p.stride + s) as isize - p.pad as isize;
                        let dst = &mut row[(r * p.s + s) * p.c..][..p.c];
                        if h < 0 || h >= p.h as isize || w < 0 || w >= p.w as isize {
                            dst.fill(T::default());
                        } else {
                            dst.copy_from_slice(
                                &x[((h as usize) * p.w + w as usize) * p.c..][..p.c],
                            );
                        }
                    }
                }
            }
        }
    }

    /// OIHW weights as the (R·S·C)×O row-major matrix the NHWC im2col multiplies (HWIO).
    pub fn oihw_to_hwio<T: Copy + Default>(p: Conv, w: &[T]) -> Vec<T> {
        let mut v = vec![T::default(); w.len()];
        for o in 0..p.o {
            for c in 0..p.c {
                for r in 0..p.r {
                    for s in 0..p.s {
                        v[((r * p.s + s) * p.c + c) * p.o + o] =
                            w[((o * p.c + c) * p.r + r) * p.s + s];
                    }
                }
            }
        }
        v
    }

    /// Explicit im2col + GEMM, f32, weights rearranged once: a closure `(x, y)` that
    /// materialises the im2col matrix, then multiplies with `sgemm`.
    pub fn im2col_f32(p: Conv, nhwc: bool, w_oihw: &[f32]) -> impl FnMut(&[f32], &mut [f32]) {
        let kk = p.c * p.r * p.s;
        let pix = p.oh * p.ow;
        let w = if nhwc {
            oihw_to_hwio(p, w_oihw)
        } else {
            w_oihw.to_vec()
        };
        let mut col = vec![0f32; kk * pix];
        move |x, y| {
            if nhwc {
                im2col_nhwc(p, x, &mut col);
                f32_gemm(pix, kk, p.o, &col, &w, y);
            } else {
                im2col_nchw(p, x, &mut col);
                f32_gemm(p.o, kk, pix, &w, &col, y);
            }
        }
    }

    /// Explicit im2col + `gemm_with`, bf16 src and weights, f32 dst.
    pub fn im2col_bf16(p: Conv, nhwc: bool, w_oihw: &[bf16]) -> impl FnMut(&[bf16], &mut [f32]) {
        let kk = p.c * p.r * p.s;
        let pix = p.oh * p.ow;
        let w = if nhwc {
            oihw_to_hwio(p, w_oihw)
        } else {
            w_oihw.to_vec()
        };
        let mut col = vec![bf16::ZERO; kk * pix];
        move |x, y| {
            if nhwc {
                im2col_nhwc(p, x, &mut col);
                bf16_gemm(pix, kk, p.o, &col, &w, y);
            } else {
                im2col_nchw(p, x, &mut col);
                bf16_gemm(p.o, kk, pix, &w, &col, y);
            }
        }
    }
}

/// Integer values in [-4, 4], as in `data` of main.rs.
fn ints(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| (((i * 7 + seed) % 9) as f32) - 4.0)
        .collect()
}

type Case<'a> = (String, Box<dyn FnMut() + 'a>);

/// Whether `bench` reads the wall clock (`--wall`) instead of this thread's CPU time.
static WALL: AtomicBool = AtomicBool::new(false);

/// Seconds on the clock `bench` uses: the calling thread's CPU time (default: on a shared
/// machine it leaves out the time this thread waits descheduled; one-thread oneDNN and layout
/// both compute on the calling thread, which `onednn threads` checks), or the wall clock.
fn now() -> f64 {
    static START: OnceLock<Instant> = OnceLock::new();
    if WALL.load(Ordering::Relaxed) {
        return START.get_or_init(Instant::now).elapsed().as_secs_f64();
    }
    crate::clock::thread_cpu_seconds()
}

/// Medians of seconds per call, interleaved: each round runs every case in turn (the order
/// rotating), a sample being as many calls as fill ~40 ms. A case slower than 0.5 s per call
/// gets only 3 samples.
fn bench(cases: &mut [Case<'_>], rounds: usize) -> Vec<f64> {
    // (calls per sample, samples wanted)
    let mut plan = Vec::new();
    for (_, f) in cases.iter_mut() {
        f(); // warm up (page faults, JIT)
        let t = now();
        f();
        let s = now() - t;
        let reps = ((0.04 / s) as usize).clamp(1, 10_000);
        plan.push((reps, if s > 0.5 { rounds.min(3) } else { rounds }));
    }
    let n = cases.len();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); n];
    for round in 0..rounds {
        for slot in 0..n {
            let i = (slot + round) % n;
            let (reps, samples) = plan[i];
            if times[i].len() >= samples {
                continue;
            }
            let f = &mut cases[i].1;
            let t = now();
            for _ in 0..reps {
                f();
            }
            times[i].push((now() - t) / reps as f64);
        }
    }
    times
        .into_iter()
        .map(|mut v| {
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        })
        .collect()
}

fn fmt(x: Option<f64>) -> String {
    x.map_or("–".into(), |g| format!("{g:.1}"))
}

fn ratio(a: Option<f64>, b: Option<f64>) -> String {
    match (a, b) {
        (Some(a), Some(b)) => format!("{:.2}", a / b),
        _ => "–".into(),
    }
}

fn bf(v: &[f32]) -> Vec<bf16> {
    v.iter().map(|&x| bf16::from_f32(x)).collect()
}

/// One matmul row: oneDNN and layout for f32, bf16 and u8×s8, at m×k×n.
fn matmul_rows(d: &Dnnl, (m, k, n): (usize, usize, usize), packed: bool, rounds: usize) {
    let wtag = if packed { tag::ANY } else { tag::AB };
    let af = ints(m * k, 1);
    let bfv = ints(k * n, 2);
    // the reference: layout's f32 (exact on these integers)
    let mut want = vec![0f32; m * n];
    ours::f32_gemm(m, k, n, &af, &bfv, &mut want);
    let flop = 2.0 * (m * k * n) as f64;
    // the impl column names the weights reorder too where B is packed once
    let impl_of = |op: &Op<'_>| {
        if packed {
            format!(
                "{} (B `any` → {}, reorder {})",
                op.impl_name(),
                if op.weights_plain {
                    "plain ab"
                } else {
                    "own format"
                },
                op.reorder_impl
            )
        } else {
            op.impl_name().to_string()
        }
    };
    let shape = format!(
        "{m}×{k}×{n}{}",
        if packed { " (B packed once)" } else { "" }
    );

    // f32
    {
        let op = d
            .matmul((m, k, n), (dt::F32, dt::F32, dt::F32), wtag, &af, &bfv)
            .expect("oneDNN f32 matmul");
        op.run();
        assert!(op.dst::<f32>() == want, "oneDNN f32 {shape} disagrees");
        let mut c = vec![0f32; m * n];
        let mut c_per_call = vec![0f32; m * n];
        let mut cases: Vec<Case<'_>> = vec![("oneDNN".into(), Box::new(|| op.run()))];
        if packed {
            let f = ours::f32_packed(k, n, &bfv);
            f(m, &af, &mut c);
            assert!(c == want, "layout PackedB {shape} disagrees");
            let afr = &af;
            cases.push((
                "PackedB + gemm_packed".into(),
                Box::new(move || f(m, black_box(afr), black_box(&mut c))),
            ));
        }
        // sgemm, B packed per call (beside PackedB where B is packed once)
        cases.push((
            "sgemm".into(),
            Box::new(|| ours::f32_gemm(m, k, n, black_box(&af), &bfv, black_box(&mut c_per_call))),
        ));
        let g: Vec<f64> = bench(&mut cases, rounds)
            .iter()
            .map(|t| flop / t / 1e9)
            .collect();
        let ours_cell = if packed {
            format!(
                "{:.1} (PackedB + gemm_packed); {:.1} (sgemm, B packed per call)",
                g[1], g[2]
            )
        } else {
            format!("{:.1} (sgemm)", g[1])
        };
        println!(
            "| f32 | {shape} | {} | {:.1} | {ours_cell} | {:.2} |",
            impl_of(&op),
            g[0],
            g[1] / g[0]
        );
    }

    // bf16 × bf16 → f32
    {
        let (ab, bb) = (bf(&af), bf(&bfv));
        let a16: Vec<u16> = ab.iter().map(|x| x.to_bits()).collect();
        let b16: Vec<u16> = bb.iter().map(|x| x.to_bits()).collect();
        let op = d.matmul((m, k, n), (dt::BF16, dt::BF16, dt::F32), wtag, &a16, &b16);
        let mut c = vec![0f32; m * n];
        let mut cases: Vec<Case<'_>> = Vec::new();
        if let Ok(op) = &op {
            op.run();
            assert!(op.dst::<f32>() == want, "oneDNN bf16 {shape} disagrees");
            cases.push(("oneDNN".into(), Box::new(|| op.run())));
        }
        ours::bf16_gemm(m, k, n, &ab, &bb, &mut c);
        assert!(c == want, "layout bf16 {shape} disagrees");
        let ours_name = match (packed, ours::bf16_packed(k, n, &bb)) {
            (true, Some(f)) => {
                let mut c2 = vec![0f32; m * n];
                f(m, &ab, &mut c2);
                assert!(c2 == want, "layout packed bf16 {shape} disagrees");
                let abr = &ab;
                cases.push((
                    "bf16 packed".into(),
                    Box::new(move || f(m, black_box(abr), black_box(&mut c2))),
                ));
                "bf16 packed once"
            }
            _ => {
                cases.push((
                    "gemm_with bf16".into(),
                    Box::new(|| ours::bf16_gemm(m, k, n, black_box(&ab), &bb, black_box(&mut c))),
                ));
                if packed {
                    "gemm_with bf16, B packed per call: TODO(lead) no packed bf16 B yet"
                } else {
                    "gemm_with bf16"
                }
            }
        };
        let g: Vec<f64> = bench(&mut cases, rounds)
            .iter()
            .map(|t| flop / t / 1e9)
            .collect();
        let (g_d, g_o) = match &op {
            Ok(_) => (Some(g[0]), g[1]),
            Err(_) => (None, g[0]),
        };
        println!(
            "| bf16×bf16→f32 | {shape} | {} | {} | {g_o:.1} ({ours_name}) | {} |",
            op.as_ref().map_or_else(|e| format!("none: {e}"), impl_of),
            fmt(g_d),
            ratio(Some(g_o), g_d)
        );
    }

    // u8 × s8 → s32 (A shifted to [0, 8])
    {
        let au: Vec<u8> = af.iter().map(|&x| (x + 4.0) as u8).collect();
        let bi: Vec<i8> = bfv.iter().map(|&x| x as i8).collect();
        let ashift: Vec<f32> = au.iter().map(|&x| x as f32).collect();
        let mut wantf = vec![0f32; m * n];
        ours::f32_gemm(m, k, n, &ashift, &bfv, &mut wantf);
        let want_i: Vec<i32> = wantf.iter().map(|&x| x as i32).collect();
        let op = d.matmul((m, k, n), (dt::U8, dt::S8, dt::S32), wtag, &au, &bi);
        let mut cases: Vec<Case<'_>> = Vec::new();
        if let Ok(op) = &op {
            op.run();
            assert!(op.dst::<i32>() == want_i, "oneDNN u8×s8 {shape} disagrees");
            cases.push(("oneDNN".into(), Box::new(|| op.run())));
        }
        let ours_fn = ours::u8i8_gemm(k, n, &bi);
        let have_ours = ours_fn.is_some();
        if let Some(f) = ours_fn {
            let mut c = vec![0i32; m * n];
            f(m, &au, &mut c);
            assert!(c == want_i, "layout u8×i8 {shape} disagrees");
            let aur = &au;
            cases.push((
                "u8i8".into(),
                Box::new(move || f(m, black_box(aur), black_box(&mut c))),
            ));
        }
        if packed {
            let f = ours::u8i8_packed(k, n, &bi);
            let mut c = vec![0i32; m * n];
            f(m, &au, &mut c);
            assert!(c == want_i, "layout u8×i8 PackedB {shape} disagrees");
            let aur = &au;
            cases.push((
                "u8i8 PackedB".into(),
                Box::new(move || f(m, black_box(aur), black_box(&mut c))),
            ));
        }
        // prefill on quantized weights with 8-bit activations (issue 29), beside oneDNN's int8
        let quants = if packed && m >= 64 {
            vec!["Q4_0", "Q8_0", "Q8_0 7-bit", "AWQ g128"]
        } else {
            vec![]
        };
        for name in &quants {
            let f = ours::quant_int8(name, k, n, &bfv);
            let mut c = vec![0f32; m * n];
            let afr = &af;
            cases.push((
                format!("{name} int8 activations"),
                Box::new(move || f(m, black_box(afr), black_box(&mut c))),
            ));
        }
        let mut g: Vec<f64> = bench(&mut cases, rounds)
            .iter()
            .map(|t| flop / t / 1e9)
            .collect();
        let gq = g.split_off(g.len() - quants.len());
        let g_d = op.is_ok().then(|| g[0]);
        for (name, gq) in quants.iter().zip(&gq) {
            let bits = if name.ends_with("7-bit") { 7 } else { 8 };
            println!(
                "| {} weights × f32 A, {bits}-bit activations (GFLOP/s) | {shape} | oneDNN u8×s8 as the row below | {} | {gq:.1} (`gemm_quant`, `QuantB::int{bits}_activations`) | {} |",
                name.trim_end_matches(" 7-bit"),
                fmt(g_d),
                ratio(Some(*gq), g_d)
            );
        }
        let g_o = have_ours.then(|| g[usize::from(op.is_ok())]);
        if packed {
            let g_p = g[g.len() - 1];
            println!(
                "| u8×s8→s32 (GOP/s) | {shape}, i8 B packed once | {} | {} | {} (PackedB + gemm_packed) | {} |",
                op.as_ref().map_or_else(|e| format!("none: {e}"), impl_of),
                fmt(g_d),
                fmt(Some(g_p)),
                ratio(Some(g_p), g_d)
            );
        }
        println!(
            "| u8×s8→s32 (GOP/s) | {shape} | {} | {} | {} | {} |",
            op.as_ref().map_or_else(|e| format!("none: {e}"), impl_of),
            fmt(g_d),
            if have_ours {
                fmt(g_o)
            } else {
                "– (TODO(lead): no integer GEMM in layout yet)".into()
            },
            ratio(g_o, g_d)
        );
    }
    // full-range u8 × i8 (past `vpmaddubsw`'s bound): is oneDNN exact there? The exact sums
    // at 256 sampled entries (i64), against oneDNN's and layout's results
    if !packed {
        let wide = |len: usize, seed: usize| -> Vec<u8> {
            (0..len)
                .map(|i| ((i.wrapping_mul(2_654_435_761) + seed) % 256) as u8)
                .collect()
        };
        let au = wide(m * k, 1);
        let bi: Vec<i8> = wide(k * n, 7).iter().map(|&x| x as i8).collect();
        let exact = |i: usize, j: usize| -> i64 {
            (0..k)
                .map(|p| i64::from(au[i * k + p]) * i64::from(bi[p * n + j]))
                .sum()
        };
        let samples: Vec<(usize, usize)> = (0..256)
            .map(|t| ((t * 7919) % m, (t * 104_729 + 13) % n))
            .collect();
        let wrong = |c: &[i32]| -> (usize, i64) {
            samples.iter().fold((0, 0), |(w, e), &(i, j)| {
                let d = (i64::from(c[i * n + j]) - exact(i, j)).abs();
                (w + usize::from(d != 0), e.max(d))
            })
        };
        let op = d.matmul((m, k, n), (dt::U8, dt::S8, dt::S32), wtag, &au, &bi);
        let mut cases: Vec<Case<'_>> = Vec::new();
        let mut dnn_wrong = None;
        if let Ok(op) = &op {
            op.run();
            dnn_wrong = Some(wrong(&op.dst::<i32>()));
            cases.push(("oneDNN".into(), Box::new(|| op.run())));
        }
        let f = ours::u8i8_gemm(k, n, &bi).expect("u8×i8 gemm");
        let mut c = vec![0i32; m * n];
        f(m, &au, &mut c);
        let ours_wrong = wrong(&c);
        let aur = &au;
        cases.push((
            "u8i8 full".into(),
            Box::new(move || f(m, black_box(aur), black_box(&mut c))),
        ));
        let g: Vec<f64> = bench(&mut cases, rounds)
            .iter()
            .map(|t| flop / t / 1e9)
            .collect();
        let g_d = op.is_ok().then(|| g[0]);
        let g_o = g[g.len() - 1];
        let exactness = |w: Option<(usize, i64)>| match w {
            Some((0, _)) => "exact on 256 samples".to_string(),
            Some((w, e)) => format!("{w} of 256 samples wrong, max error {e}"),
            None => "–".into(),
        };
        println!(
            "| u8×s8→s32 full-range u8 and i8 (GOP/s) | {shape} | {} ({}) | {} | {g_o:.1} ({}) | {} |",
            op.as_ref().map_or_else(|e| format!("none: {e}"), impl_of),
            exactness(dnn_wrong),
            fmt(g_d),
            exactness(Some(ours_wrong)),
            ratio(Some(g_o), g_d)
        );
    }
    eprintln!("done matmul {shape}");
}

/// The five ResNet-50 layers of issue 23 (batch 1).
fn layers() -> Vec<(&'static str, ConvShape)> {
    let l = |c, o, h, r, stride, pad| ConvShape {
        c,
        o,
        h,
        w: h,
        r,
        s: r,
        stride,
        pad,
    };
    vec![
        ("3×3, 64→64, 56×56", l(64, 64, 56, 3, 1, 1)),
        ("3×3, 128→128, 28×28", l(128, 128, 28, 3, 1, 1)),
        ("3×3, 256→256, 14×14", l(256, 256, 14, 3, 1, 1)),
        ("1×1, 256→64, 56×56", l(256, 64, 56, 1, 1, 0)),
        ("7×7, 3→64, 224×224, s2 p3", l(3, 64, 224, 7, 2, 3)),
    ]
}

fn ours_shape(p: &ConvShape) -> ours::Conv {
    let (oh, ow) = p.out();
    ours::Conv {
        c: p.c,
        o: p.o,
        h: p.h,
        w: p.w,
        r: p.r,
        s: p.s,
        stride: p.stride,
        pad: p.pad,
        oh,
        ow,
    }
}

/// NCHW (c, h, w) data as NHWC (h, w, c).
fn to_nhwc(v: &[f32], c: usize, hw: usize) -> Vec<f32> {
    let mut out = vec![0f32; v.len()];
    for ch in 0..c {
        for p in 0..hw {
            out[p * c + ch] = v[ch * hw + p];
        }
    }
    out
}

/// A conv's implementation and the weights format `any` resolved to.
fn conv_impl(op: &Op<'_>) -> String {
    format!(
        "{} (weights {})",
        op.impl_name(),
        if op.weights_plain {
            "plain oihw"
        } else {
            "blocked"
        }
    )
}

fn conv_row(d: &Dnnl, name: &str, p: &ConvShape, nhwc: bool, bf16_too: bool, rounds: usize) {
    let q = ours_shape(p);
    let x_nchw = ints(p.c * p.h * p.w, 3);
    // integer data keeps every f32 sum exact: |x·w| ≤ 16, at most 256·9 terms
    let w = ints(p.o * p.c * p.r * p.s, 5);
    let pix = q.oh * q.ow;
    let x = if nhwc {
        to_nhwc(&x_nchw, p.c, p.h * p.w)
    } else {
        x_nchw
    };
    let lay = if nhwc { "NHWC" } else { "NCHW" };
    let src_tag = if nhwc { tag::NHWC } else { tag::NCHW };
    // reference: explicit im2col + layout sgemm
    let mut want = vec![0f32; p.o * pix];
    ours::im2col_f32(q, nhwc, &w)(&x, &mut want);
    let op = d
        .conv(p, src_tag, (dt::F32, dt::F32), &x, &w)
        .expect("oneDNN f32 conv");
    op.run();
    assert!(
        op.dst::<f32>() == want,
        "oneDNN conv {name} {lay} disagrees"
    );
    let mut y = vec![0f32; p.o * pix];
    let mut im2col = ours::im2col_f32(q, nhwc, &w);
    let mut cases: Vec<Case<'_>> = vec![
        ("oneDNN".into(), Box::new(|| op.run())),
        (
            "im2col+sgemm".into(),
            Box::new(|| im2col(black_box(&x), black_box(&mut y))),
        ),
    ];
    let conv = ours::conv2d_f32(q, nhwc, &w);
    let have = conv.is_some();
    if let Some(f) = conv {
        let mut y2 = vec![0f32; p.o * pix];
        f(&x, &mut y2);
        assert!(y2 == want, "layout conv2d {name} {lay} disagrees");
        let xr = &x;
        cases.push((
            "conv2d".into(),
            Box::new(move || f(black_box(xr), black_box(&mut y2))),
        ));
    }
    let t = bench(&mut cases, rounds);
    let g: Vec<f64> = t.iter().map(|s| p.flop() / s / 1e9).collect();
    let g_conv = have.then(|| g[2]);
    println!(
        "| f32 | {name} | {lay} | {} | {:.1} | {} | {:.1} | {} | {:.2} |",
        conv_impl(&op),
        g[0],
        if have {
            fmt(g_conv)
        } else {
            "– (TODO(lead): layout::conv::conv2d)".into()
        },
        g[1],
        ratio(g_conv, Some(g[0])),
        g[1] / g[0],
    );
    drop(cases);
    if bf16_too {
        let (xb, wb) = (bf(&x), bf(&w));
        let x16: Vec<u16> = xb.iter().map(|v| v.to_bits()).collect();
        let w16: Vec<u16> = wb.iter().map(|v| v.to_bits()).collect();
        let op = d.conv(p, src_tag, (dt::BF16, dt::F32), &x16, &w16);
        let mut cases: Vec<Case<'_>> = Vec::new();
        if let Ok(op) = &op {
            op.run();
            assert!(
                op.dst::<f32>() == want,
                "oneDNN bf16 conv {name} {lay} disagrees"
            );
            cases.push(("oneDNN".into(), Box::new(|| op.run())));
        }
        let mut im2col = ours::im2col_bf16(q, nhwc, &wb);
        im2col(&xb, &mut y);
        assert!(y == want, "im2col+gemm_with {name} {lay} disagrees");
        let xr = &xb;
        cases.push((
            "im2col+gemm_with".into(),
            Box::new(move || im2col(black_box(xr), black_box(&mut y))),
        ));
        let conv = ours::conv2d_bf16(q, nhwc, &wb);
        let have = conv.is_some();
        if let Some(f) = conv {
            let mut y2 = vec![0f32; p.o * pix];
            f(&xb, &mut y2);
            assert!(y2 == want, "layout bf16 conv2d {name} {lay} disagrees");
            cases.push((
                "conv2d".into(),
                Box::new(move || f(black_box(xr), black_box(&mut y2))),
            ));
        }
        let g: Vec<f64> = bench(&mut cases, rounds)
            .iter()
            .map(|s| p.flop() / s / 1e9)
            .collect();
        let base = usize::from(op.is_ok());
        let g_d = op.is_ok().then(|| g[0]);
        let g_im = g[base];
        let g_conv = have.then(|| g[base + 1]);
        println!(
            "| bf16×bf16→f32 | {name} | {lay} | {} | {} | {} | {g_im:.1} | {} | {} |",
            op.as_ref().map_or_else(|e| format!("none: {e}"), conv_impl),
            fmt(g_d),
            if have {
                fmt(g_conv)
            } else {
                "– (TODO(lead): layout::conv::conv2d)".into()
            },
            ratio(g_conv, g_d),
            ratio(Some(g_im), g_d),
        );
    }
    eprintln!("done conv {name} {lay}");
}

fn threads_of_process() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Threads:"))
                .map(|l| l[8..].trim().to_string())
        })
        .unwrap_or_else(|| "?".into())
}

/// User + system CPU seconds of a `/proc/…/stat` file (100 Hz ticks).
fn stat_cpu(path: &str) -> Option<f64> {
    let s = std::fs::read_to_string(path).ok()?;
    let f: Vec<&str> = s.rsplit_once(')')?.1.split_whitespace().collect();
    Some((f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?) / 100.0)
}

/// (CPU seconds of the whole process, CPU seconds of its threads other than the main one).
fn cpu_seconds() -> (f64, f64) {
    let all = stat_cpu("/proc/self/stat").unwrap_or(f64::NAN);
    let pid = std::process::id().to_string();
    let others = std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_str() != Some(pid.as_str()))
                .filter_map(|e| stat_cpu(&format!("{}/stat", e.path().display())))
                .sum()
        })
        .unwrap_or(f64::NAN);
    (all, others)
}

/// Runs `f` for at least two seconds; (wall seconds per call, process CPU ÷ wall, CPU seconds
/// spent on threads other than the main one).
fn phase(f: &dyn Fn()) -> (f64, f64, f64) {
    f();
    let (t, (c0, o0)) = (Instant::now(), cpu_seconds());
    let mut calls = 0;
    while t.elapsed().as_secs_f64() < 2.0 {
        f();
        calls += 1;
    }
    let wall = t.elapsed().as_secs_f64();
    let (c1, o1) = cpu_seconds();
    (wall / calls as f64, (c1 - c0) / wall, o1 - o0)
}

/// oneDNN f32 matmul 1024³ and the 3×3 64→64 NHWC conv at 1, then 2, then again 1 OpenMP
/// thread, each primitive created after `omp_set_num_threads`: wall-clock GFLOP/s, the process's
/// CPU time ÷ wall time (≈ 1 on one thread, ≈ 2 on two if the cores are free) and the CPU time
/// of the threads other than the main one (0 when oneDNN computes on the calling thread alone).
fn threads_check(d: &Dnnl) {
    let n = 1024;
    let a = ints(n * n, 1);
    let b = ints(n * n, 2);
    let (_, p) = layers()[0];
    let x = to_nhwc(&ints(p.c * p.h * p.w, 3), p.c, p.h * p.w);
    let w = ints(p.o * p.c * p.r * p.s, 5);
    println!(
        "process threads before any oneDNN call: {}",
        threads_of_process()
    );
    let work: [(&str, f64); 2] = [
        ("matmul f32 1024³", 2.0 * (n * n * n) as f64),
        ("conv f32 3×3 64→64 56×56 NHWC", p.flop()),
    ];
    for (what, flop) in work {
        let mut line = format!("oneDNN {what}:");
        for t in [1, 2, 1] {
            d.set_threads(t);
            let op = if what.starts_with("matmul") {
                d.matmul((n, n, n), (dt::F32, dt::F32, dt::F32), tag::AB, &a, &b)
            } else {
                d.conv(&p, tag::NHWC, (dt::F32, dt::F32), &x, &w)
            }
            .expect("oneDNN primitive");
            let (s, cpu, others) = phase(&|| op.run());
            line += &format!(
                " {t} thread(s) [{}] {:.1} GFLOP/s, CPU ÷ wall {cpu:.2}, CPU on other threads {others:.2} s, process threads {};",
                op.impl_name(),
                flop / s / 1e9,
                threads_of_process()
            );
        }
        d.set_threads(1);
        println!("{line}");
    }
}

/// The `onednn` mode.
pub fn main(args: &[String]) {
    let mut which = "all".to_string();
    let mut rounds = 7usize;
    let mut i = 0;
    while i < args.len() {
        if args[i] == "--rounds" {
            rounds = args[i + 1].parse().expect("--rounds R");
            i += 1;
        } else if args[i] == "--wall" {
            WALL.store(true, Ordering::Relaxed);
        } else if i == 0 {
            which = args[i].clone();
        }
        i += 1;
    }
    let d = match Dnnl::load() {
        Ok(d) => d,
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    };
    let omp = d.set_threads(1);
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_default();
    println!(
        "CPU: {cpu}; oneDNN {}; omp_get_max_threads after omp_set_num_threads(1): {}; layout ISA {:?}; {rounds} rounds, interleaved, medians of {}",
        d.version(),
        omp.map_or("? (no libgomp)".into(), |n| n.to_string()),
        layout::gemm::Isa::selected_for_gemm(),
        if WALL.load(Ordering::Relaxed) {
            "wall-clock time"
        } else {
            "the calling thread's CPU time (--wall for wall clock)"
        }
    );
    if which == "threads" {
        threads_check(&d);
        return;
    }
    if which == "prof" {
        // `onednn prof LAYER nhwc|nchw SECONDS`: ours alone on one layer, for perf / callgrind
        let li: usize = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(0);
        let nhwc = args.get(2).is_none_or(|v| v == "nhwc");
        let secs: f64 = args.get(3).and_then(|v| v.parse().ok()).unwrap_or(5.0);
        // (wall-clock time: with THREADS=2 the work is spread over two threads)
        let (name, p) = layers()[li];
        let q = ours_shape(&p);
        let x = ints(p.c * p.h * p.w, 3);
        let w = ints(p.o * p.c * p.r * p.s, 5);
        let mut y = vec![0f32; p.o * q.oh * q.ow];
        let f = ours::conv2d_f32(q, nhwc, &w).expect("conv2d");
        let t = Instant::now();
        let mut calls = 0usize;
        while calls == 0 || t.elapsed().as_secs_f64() < secs {
            f(black_box(&x), black_box(&mut y));
            calls += 1;
        }
        let s = t.elapsed().as_secs_f64() / calls as f64;
        println!(
            "{name} nhwc={nhwc}: {calls} calls, {:.1} GFLOP/s",
            p.flop() / s / 1e9
        );
        return;
    }
    if which == "matmul" || which == "all" {
        println!();
        println!(
            "| pair | m×k×n | oneDNN impl | oneDNN GFLOP/s | layout GFLOP/s (entry) | layout ÷ oneDNN |"
        );
        println!("|---|---|---|---|---|---|");
        let only = std::env::var("SHAPES").ok();
        for (shape, packed) in [
            ((256, 256, 256), false),
            ((1024, 1024, 1024), false),
            ((2048, 2048, 2048), false),
            ((1, 4096, 4096), true),
            ((16, 4096, 4096), true),
            ((512, 4096, 4096), true),
        ] {
            // SHAPES=256,1 runs only m = 256 and m = 1
            if let Some(o) = &only
                && !o.split(',').any(|s| s == shape.0.to_string())
            {
                continue;
            }
            matmul_rows(&d, shape, packed, rounds);
        }
    }
    if which == "conv" || which == "all" {
        println!();
        println!(
            "| pair | layer (batch 1) | src/dst | oneDNN impl | oneDNN GFLOP/s | layout conv2d GFLOP/s | explicit im2col + layout GEMM GFLOP/s | conv2d ÷ oneDNN | im2col ÷ oneDNN |"
        );
        println!("|---|---|---|---|---|---|---|---|---|");
        // LAYERS=0,2 runs only those layers; FORMATS=nhwc (or nchw) only that format
        let layers_env = std::env::var("LAYERS").ok();
        let formats = std::env::var("FORMATS").unwrap_or_default();
        for nhwc in [false, true] {
            if !formats.is_empty() && formats != if nhwc { "nhwc" } else { "nchw" } {
                continue;
            }
            for (idx, (name, p)) in layers().iter().enumerate() {
                if let Some(l) = &layers_env
                    && !l.split(',').any(|v| v == idx.to_string())
                {
                    continue;
                }
                // BF16=all: the bf16 pair on every layer (by default on the second only)
                let bf16_too = idx == 1 || std::env::var("BF16").is_ok_and(|v| v == "all");
                conv_row(&d, name, p, nhwc, bf16_too, rounds);
            }
        }
    }
}
