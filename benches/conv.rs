//! Convolution: `conv::conv2d_prepared` (implicit GEMM: the im2col matrix is a layout read by
//! the packer; filters packed once, as the baseline's are) and `conv::conv2d_with` (OIHW filters
//! read or repacked in every call) against explicit im2col (the whole matrix materialised, then the same GEMM), on the
//! five ResNet-50 layers of issue 23, NCHW and NHWC, one and two threads. f32, batch 1; one
//! process, the variants timed in turns round after round; medians; GFLOP/s = 2·N·O·OH·OW·C·R·S
//! per call.
//!
//! One-thread rows are timed on the calling thread's CPU clock (the machine is shared: time
//! spent descheduled is not the code's; `LAYOUT_WALL=1` for the wall clock), two-thread rows on
//! the wall clock.
//!
//! `cargo bench --bench conv` (`-- ROUNDS` to change the number of rounds, default 15; `-- 1×1`
//! or any other part of a layer's name to run only those layers; `NCHW` or `NHWC` for one
//! format).

use std::hint::black_box;
use std::time::Instant;

use layout::conv::{Conv2d, ConvWeights, conv2d_prepared, conv2d_with};
use layout::gemm::{self, Isa, MatMut, MatRef, Options, Packing};
use layout::{DynLayout, Tensor};

struct Layer {
    name: &'static str,
    c: usize,
    o: usize,
    hw: usize,
    k: usize,
    stride: usize,
    pad: usize,
}

const LAYERS: [Layer; 5] = [
    Layer {
        name: "3×3 64→64 56² s1 p1",
        c: 64,
        o: 64,
        hw: 56,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Layer {
        name: "3×3 128→128 28² s1 p1",
        c: 128,
        o: 128,
        hw: 28,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Layer {
        name: "3×3 256→256 14² s1 p1",
        c: 256,
        o: 256,
        hw: 14,
        k: 3,
        stride: 1,
        pad: 1,
    },
    Layer {
        name: "1×1 256→64 56²",
        c: 256,
        o: 64,
        hw: 56,
        k: 1,
        stride: 1,
        pad: 0,
    },
    Layer {
        name: "7×7 3→64 224² s2 p3",
        c: 3,
        o: 64,
        hw: 224,
        k: 7,
        stride: 2,
        pad: 3,
    },
];

fn data(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((((i * 7 + seed) % 9) as i32) - 4) as f32 * 0.25)
        .collect()
}

/// The layout of logical (N, C, H, W) in NCHW or NHWC memory order.
fn act(nhwc: bool, n: usize, c: usize, h: usize, w: usize) -> DynLayout {
    if nhwc {
        format!("({n},{c},{h},{w}):({},1,{},{c})", h * w * c, w * c)
    } else {
        format!("({n},{c},{h},{w}):({},{},{w},1)", c * h * w, h * w)
    }
    .parse()
    .unwrap()
}

/// The baseline: the whole im2col matrix materialised (Caffe's `im2col` for NCHW: K × pixels,
/// k = (c, r, s); for NHWC pixels × K, k = (r, s, c)), then one GEMM.
struct Explicit {
    nhwc: bool,
    l: &'static Layer,
    oh: usize,
    col: Vec<f32>,
    /// Weights as the GEMM reads them: O × K (NCHW) or K × O (NHWC), row-major.
    wm: Vec<f32>,
}

impl Explicit {
    fn new(nhwc: bool, l: &'static Layer, w: &[f32]) -> Explicit {
        let oh = (l.hw + 2 * l.pad - l.k) / l.stride + 1;
        let kk = l.c * l.k * l.k;
        let wm = if nhwc {
            // OIHW → (r, s, c) × O
            let mut m = vec![0.0; kk * l.o];
            for o in 0..l.o {
                for c in 0..l.c {
                    for r in 0..l.k {
                        for s in 0..l.k {
                            m[((r * l.k + s) * l.c + c) * l.o + o] =
                                w[((o * l.c + c) * l.k + r) * l.k + s];
                        }
                    }
                }
            }
            m
        } else {
            w.to_vec()
        };
        Explicit {
            nhwc,
            l,
            oh,
            col: vec![0.0; kk * oh * oh],
            wm,
        }
    }

    fn run(&mut self, opts: Options, x: &[f32], y: &mut [f32]) {
        let l = self.l;
        let (h, oh, k) = (l.hw as isize, self.oh, l.k);
        let kk = l.c * k * k;
        let npix = oh * oh;
        let col = &mut self.col;
        if self.nhwc {
            for i in 0..oh {
                for j in 0..oh {
                    let row = &mut col[(i * oh + j) * kk..(i * oh + j + 1) * kk];
                    for r in 0..k {
                        for s in 0..k {
                            let ih = (i * l.stride + r) as isize - l.pad as isize;
                            let iw = (j * l.stride + s) as isize - l.pad as isize;
                            let out = &mut row[(r * k + s) * l.c..(r * k + s + 1) * l.c];
                            if ih < 0 || iw < 0 || ih >= h || iw >= h {
                                out.fill(0.0);
                            } else {
                                let at = (ih as usize * l.hw + iw as usize) * l.c;
                                out.copy_from_slice(&x[at..at + l.c]);
                            }
                        }
                    }
                }
            }
            gemm::gemm_with(
                opts,
                1.0,
                MatRef {
                    data: col,
                    rows: npix,
                    cols: kk,
                    row_stride: kk as isize,
                    col_stride: 1,
                },
                MatRef {
                    data: &self.wm,
                    rows: kk,
                    cols: l.o,
                    row_stride: l.o as isize,
                    col_stride: 1,
                },
                0.0,
                MatMut {
                    data: y,
                    rows: npix,
                    cols: l.o,
                    row_stride: l.o as isize,
                    col_stride: 1,
                },
            )
            .unwrap();
        } else {
            for c in 0..l.c {
                for r in 0..k {
                    for s in 0..k {
                        let kr = (c * k + r) * k + s;
                        let out = &mut col[kr * npix..(kr + 1) * npix];
                        for i in 0..oh {
                            let ih = (i * l.stride + r) as isize - l.pad as isize;
                            for j in 0..oh {
                                let iw = (j * l.stride + s) as isize - l.pad as isize;
                                out[i * oh + j] = if ih < 0 || iw < 0 || ih >= h || iw >= h {
                                    0.0
                                } else {
                                    x[(c * l.hw + ih as usize) * l.hw + iw as usize]
                                };
                            }
                        }
                    }
                }
            }
            gemm::gemm_with(
                opts,
                1.0,
                MatRef {
                    data: &self.wm,
                    rows: l.o,
                    cols: kk,
                    row_stride: kk as isize,
                    col_stride: 1,
                },
                MatRef {
                    data: col,
                    rows: kk,
                    cols: npix,
                    row_stride: npix as isize,
                    col_stride: 1,
                },
                0.0,
                MatMut {
                    data: y,
                    rows: l.o,
                    cols: npix,
                    row_stride: npix as isize,
                    col_stride: 1,
                },
            )
            .unwrap();
        }
    }
}

/// The calling thread's CPU time in seconds (Linux): time spent descheduled, most of the wall
/// time on a loaded shared machine, is not counted.
#[cfg(target_os = "linux")]
fn cpu_now() -> f64 {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, t: *mut Timespec) -> i32;
    }
    /// `CLOCK_THREAD_CPUTIME_ID`
    const THREAD: i32 = 3;
    let mut t = Timespec { sec: 0, nsec: 0 };
    // SAFETY: `t` is a valid `struct timespec` (two 64-bit fields on 64-bit Linux) to write.
    let rc = unsafe { clock_gettime(THREAD, &mut t) };
    assert_eq!(rc, 0, "clock_gettime");
    t.sec as f64 + t.nsec as f64 * 1e-9
}

/// Seconds `f` takes: one-thread runs on the calling thread's CPU clock where there is one
/// (`LAYOUT_WALL=1`: the wall clock), two-thread runs on the wall clock.
fn time(threads: usize, f: &mut dyn FnMut()) -> f64 {
    #[cfg(target_os = "linux")]
    if threads == 1 && std::env::var_os("LAYOUT_WALL").is_none() {
        let t = cpu_now();
        f();
        return cpu_now() - t;
    }
    let _ = threads;
    let t = Instant::now();
    f();
    t.elapsed().as_secs_f64()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(15);
    // a word that is not a number picks the layers whose name contains it ("1×1", "56²")
    let (formats, only): (Vec<&String>, Vec<&String>) = args
        .iter()
        .filter(|a| a.parse::<usize>().is_err() && !a.starts_with('-'))
        .partition(|a| *a == "NCHW" || *a == "NHWC");
    let isa = Isa::selected_for_gemm();
    println!(
        "conv2d f32, batch 1, {isa:?}, {rounds} rounds, medians (GFLOP/s; 1 thread: CPU time, \
         2 threads: wall clock)"
    );
    println!();
    println!(
        "| layer | format | threads | ours, filters packed once | ours, OIHW filters per call \
         | explicit im2col + GEMM | ours (packed once) / explicit |"
    );
    println!("|---|---|---|---|---|---|---|");
    for l in LAYERS
        .iter()
        .filter(|l| only.is_empty() || only.iter().any(|o| l.name.contains(o.as_str())))
    {
        let p = Conv2d::default().stride(l.stride).padding(l.pad);
        let oh = (l.hw + 2 * l.pad - l.k) / l.stride + 1;
        let flops = 2.0 * (l.o * oh * oh * l.c * l.k * l.k) as f64;
        let w = data(l.o * l.c * l.k * l.k, 2);
        let wt = Tensor::new(&w[..], act(false, l.o, l.c, l.k, l.k)).unwrap();
        for nhwc in [false, true] {
            let name = if nhwc { "NHWC" } else { "NCHW" };
            if !formats.is_empty() && !formats.iter().any(|f| *f == name) {
                continue;
            }
            let x = data(l.c * l.hw * l.hw, 1);
            let xt = Tensor::new(&x[..], act(nhwc, 1, l.c, l.hw, l.hw)).unwrap();
            let mut y = vec![0.0f32; l.o * oh * oh];
            let mut y2 = vec![0.0f32; l.o * oh * oh];
            let mut ex = Explicit::new(nhwc, l, &w);
            let packed = ConvWeights::new(&p, xt.layout(), &wt).unwrap();
            for threads in [1, 2] {
                let opts = Options {
                    isa,
                    threads,
                    packing: Packing::Auto,
                };
                // same result first
                {
                    let mut yt = Tensor::new(&mut y[..], act(nhwc, 1, l.o, oh, oh)).unwrap();
                    conv2d_with(opts, &p, &xt, &wt, None, &mut yt).unwrap();
                    ex.run(opts, &x, &mut y2);
                    let err = y
                        .iter()
                        .zip(&y2)
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0f32, f32::max);
                    assert!(err < 1e-2, "{}: ours and explicit differ by {err}", l.name);
                }
                let (mut to, mut tw, mut te, mut tr) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for _ in 0..rounds {
                    let a = time(threads, &mut || {
                        let mut yt = Tensor::new(&mut y[..], act(nhwc, 1, l.o, oh, oh)).unwrap();
                        conv2d_prepared(opts, &p, black_box(&xt), &packed, None, &mut yt).unwrap();
                    });
                    let c = time(threads, &mut || {
                        let mut yt = Tensor::new(&mut y[..], act(nhwc, 1, l.o, oh, oh)).unwrap();
                        conv2d_with(opts, &p, black_box(&xt), &wt, None, &mut yt).unwrap();
                    });
                    let b = time(threads, &mut || ex.run(opts, black_box(&x), &mut y2));
                    to.push(flops / a * 1e-9);
                    tw.push(flops / c * 1e-9);
                    te.push(flops / b * 1e-9);
                    tr.push(b / a);
                }
                println!(
                    "| {} | {} | {threads} | {:.1} | {:.1} | {:.1} | {:.2} |",
                    l.name,
                    if nhwc { "NHWC" } else { "NCHW" },
                    median(&mut to),
                    median(&mut tw),
                    median(&mut te),
                    median(&mut tr)
                );
            }
        }
    }
    bf16_rows(rounds, isa, &only);
}

/// bf16 input and filters (widened while packing, f32 sums) on the 3×3 128→128 layer, one
/// thread, beside the same layer in f32: ours against explicit im2col of the bf16 input and
/// `gemm_with` on bf16.
fn bf16_rows(rounds: usize, isa: Isa, only: &[&String]) {
    use layout::named::bf16;
    let l = &LAYERS[1];
    if !only.is_empty() && !only.iter().any(|o| l.name.contains(o.as_str())) {
        return;
    }
    println!();
    println!(
        "| layer, bf16 × bf16 → f32, 1 thread | format | ours (conv2d_prepared) | ours f32 | explicit im2col + gemm_with |"
    );
    println!("|---|---|---|---|---|");
    let p = Conv2d::default().stride(l.stride).padding(l.pad);
    let oh = (l.hw + 2 * l.pad - l.k) / l.stride + 1;
    let flops = 2.0 * (l.o * oh * oh * l.c * l.k * l.k) as f64;
    let kk = l.c * l.k * l.k;
    let opts = Options {
        isa,
        threads: 1,
        packing: Packing::Auto,
    };
    let w = data(l.o * kk, 2);
    let wb: Vec<bf16> = w.iter().map(|&v| bf16::from_f32(v)).collect();
    let wt = Tensor::new(&w[..], act(false, l.o, l.c, l.k, l.k)).unwrap();
    let wbt = Tensor::new(&wb[..], act(false, l.o, l.c, l.k, l.k)).unwrap();
    for nhwc in [false, true] {
        let x = data(l.c * l.hw * l.hw, 1);
        let xb: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
        let xt = Tensor::new(&x[..], act(nhwc, 1, l.c, l.hw, l.hw)).unwrap();
        let xbt = Tensor::new(&xb[..], act(nhwc, 1, l.c, l.hw, l.hw)).unwrap();
        let packed = ConvWeights::new(&p, xbt.layout(), &wbt).unwrap();
        let packed32 = ConvWeights::new(&p, xt.layout(), &wt).unwrap();
        let mut y = vec![0.0f32; l.o * oh * oh];
        // explicit: the NCHW im2col (K × pixels) of the bf16 input, then gemm_with
        let npix = oh * oh;
        let mut col = vec![bf16::ZERO; kk * npix];
        let (mut ta, mut tf, mut te) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..rounds {
            let a = time(1, &mut || {
                let mut yt = Tensor::new(&mut y[..], act(nhwc, 1, l.o, oh, oh)).unwrap();
                conv2d_prepared(opts, &p, black_box(&xbt), &packed, None, &mut yt).unwrap();
            });
            let f = time(1, &mut || {
                let mut yt = Tensor::new(&mut y[..], act(nhwc, 1, l.o, oh, oh)).unwrap();
                conv2d_prepared(opts, &p, black_box(&xt), &packed32, None, &mut yt).unwrap();
            });
            let e = time(1, &mut || {
                let h = l.hw as isize;
                for c in 0..l.c {
                    for r in 0..l.k {
                        for s in 0..l.k {
                            let kr = (c * l.k + r) * l.k + s;
                            for i in 0..oh {
                                let ih = (i * l.stride + r) as isize - l.pad as isize;
                                for j in 0..oh {
                                    let iw = (j * l.stride + s) as isize - l.pad as isize;
                                    col[kr * npix + i * oh + j] =
                                        if ih < 0 || iw < 0 || ih >= h || iw >= h {
                                            bf16::ZERO
                                        } else {
                                            let (ih, iw) = (ih as usize, iw as usize);
                                            if nhwc {
                                                xb[(ih * l.hw + iw) * l.c + c]
                                            } else {
                                                xb[(c * l.hw + ih) * l.hw + iw]
                                            }
                                        };
                                }
                            }
                        }
                    }
                }
                gemm::gemm_with(
                    opts,
                    1.0,
                    MatRef {
                        data: &wb,
                        rows: l.o,
                        cols: kk,
                        row_stride: kk as isize,
                        col_stride: 1,
                    },
                    MatRef {
                        data: &col,
                        rows: kk,
                        cols: npix,
                        row_stride: npix as isize,
                        col_stride: 1,
                    },
                    0.0,
                    MatMut {
                        data: &mut y,
                        rows: l.o,
                        cols: npix,
                        row_stride: npix as isize,
                        col_stride: 1,
                    },
                )
                .unwrap();
            });
            ta.push(flops / a * 1e-9);
            tf.push(flops / f * 1e-9);
            te.push(flops / e * 1e-9);
        }
        println!(
            "| {} | {} | {:.1} | {:.1} | {:.1} |",
            l.name,
            if nhwc { "NHWC" } else { "NCHW" },
            median(&mut ta),
            median(&mut tf),
            median(&mut te)
        );
    }
}
