//! GEMM on operands of every layout family, as a ratio to the same product on row-major
//! tensors: f32 (and f16 × f16 → f32 in NZ/ZN), one thread, public API only (`gemm::gemm` on `Tensor`s), one process, the
//! families timed in turns round after round, medians of the per-round ratios.
//!
//! `cargo bench --bench gemm_layouts` (`-- 64 256` to pick sizes). The table in BENCHMARKS.md
//! comes from this harness. `GEMM_LAYOUTS_PROFILE=Sw` runs only the families whose name holds
//! `Sw`, 20 calls each (`GEMM_LAYOUTS_CALLS=N`: N), for a profiler (`=row-major`: that family
//! alone).

use std::hint::black_box;
use std::time::Instant;

use layout::named::ascend::{make_nz_layout, make_zn_layout, make_zz_layout};
use layout::named::blocked::{row_major_block_linear, row_major_interleaved};
use layout::{DynLayout, Sw, SwizzledLayout, Tensor, gemm};

fn data(len: usize, seed: usize) -> Vec<f32> {
    (0..len)
        .map(|i| ((((i * 7 + seed) % 9) as i32) - 4) as f32)
        .collect()
}

fn rm(r: usize, c: usize) -> DynLayout {
    format!("({r},{c}):({c},1)").parse().unwrap()
}

/// One timed product: a closure that runs it once.
type Run = Box<dyn FnMut()>;

/// A product whose three operands have the given layouts (A m×k, B k×n, C m×n).
fn product<LA, LB, LC>(la: LA, lb: LB, lc: LC, m: usize, k: usize, n: usize, cap: usize) -> Run
where
    LA: layout::AnyLayout + 'static,
    LB: layout::AnyLayout + 'static,
    LC: layout::AnyLayout + 'static,
{
    let a = Tensor::new(data(cap.max(m * k), 1), la).unwrap();
    let b = Tensor::new(data(cap.max(k * n), 2), lb).unwrap();
    let mut c = Tensor::new(vec![0f32; cap.max(m * n)], lc).unwrap();
    Box::new(move || {
        gemm::gemm(1.0f32, black_box(&a), black_box(&b), 0.0, &mut c).unwrap();
    })
}

/// [`product`] on f16 operands into an f32 C (the Ascend cube's pair).
fn product_f16<LA, LB, LC>(la: LA, lb: LB, lc: LC, m: usize, k: usize, n: usize) -> Run
where
    LA: layout::AnyLayout + 'static,
    LB: layout::AnyLayout + 'static,
    LC: layout::AnyLayout + 'static,
{
    let h = |v: Vec<f32>| v.into_iter().map(half::f16::from_f32).collect::<Vec<_>>();
    let a = Tensor::new(h(data(m * k, 1)), la).unwrap();
    let b = Tensor::new(h(data(k * n, 2)), lb).unwrap();
    let mut c = Tensor::new(vec![0f32; m * n], lc).unwrap();
    Box::new(move || {
        gemm::gemm(1.0f32, black_box(&a), black_box(&b), 0.0, &mut c).unwrap();
    })
}

/// [`product`] on u8 A and i8 B into an i32 C (the int8 inference pair; values 0..=8 and −4..=4).
fn product_u8<LA, LB, LC>(la: LA, lb: LB, lc: LC, m: usize, k: usize, n: usize) -> Run
where
    LA: layout::AnyLayout + 'static,
    LB: layout::AnyLayout + 'static,
    LC: layout::AnyLayout + 'static,
{
    // buffers as long as each layout's span (an NZ operand pads its fractals: 16 × 16 u8 spans
    // 16 × 32)
    let a: Vec<u8> = data(span(&la, m * k), 1)
        .into_iter()
        .map(|x| (x + 4.0) as u8)
        .collect();
    let b: Vec<i8> = data(span(&lb, k * n), 2)
        .into_iter()
        .map(|x| x as i8)
        .collect();
    let cn = span(&lc, m * n);
    let a = Tensor::new(a, la).unwrap();
    let b = Tensor::new(b, lb).unwrap();
    let mut c = Tensor::new(vec![0i32; cn], lc).unwrap();
    Box::new(move || {
        gemm::gemm(1i32, black_box(&a), black_box(&b), 0, &mut c).unwrap();
    })
}

/// The buffer length a tensor of layout `l` needs: at least `len`, and its cosize.
fn span<L: layout::AnyLayout>(l: &L, len: usize) -> usize {
    l.to_dyn()
        .map_or(len, |d| usize::try_from(d.cosize()).unwrap_or(len))
        .max(len)
}

/// u8 × i8 → i32: row-major against the Ascend formats (C0 = 32 for 1-byte elements: 16 × 32
/// fractals; C in NZ with C0 = 8 for its 4-byte elements).
fn int8_families(s: usize) -> Vec<(&'static str, Run)> {
    vec![
        (
            "u8×i8 row-major",
            product_u8(rm(s, s), rm(s, s), rm(s, s), s, s, s),
        ),
        (
            "u8×i8 A NZ, B ZN, C NZ",
            product_u8(
                make_nz_layout::<u8>(s, s).unwrap(),
                make_zn_layout::<i8>(s, s).unwrap(),
                make_nz_layout::<i32>(s, s).unwrap(),
                s,
                s,
                s,
            ),
        ),
    ]
}

/// [`product`] on f64 operands (`cap`: at least this many elements per buffer).
#[allow(clippy::too_many_arguments)]
fn product_f64<LA, LB, LC>(la: LA, lb: LB, lc: LC, m: usize, k: usize, n: usize, cap: usize) -> Run
where
    LA: layout::AnyLayout + 'static,
    LB: layout::AnyLayout + 'static,
    LC: layout::AnyLayout + 'static,
{
    let f = |v: Vec<f32>| v.into_iter().map(f64::from).collect::<Vec<_>>();
    let a = Tensor::new(f(data(cap.max(m * k), 1)), la).unwrap();
    let b = Tensor::new(f(data(cap.max(k * n), 2)), lb).unwrap();
    let mut c = Tensor::new(vec![0f64; cap.max(m * n)], lc).unwrap();
    Box::new(move || {
        gemm::gemm(1.0f64, black_box(&a), black_box(&b), 0.0, &mut c).unwrap();
    })
}

/// f64: row-major against the Ascend formats with C0 = 4 (32-byte fractal rows; `s` a
/// multiple of 16): A NZ, B ZN, C NZ.
fn f64_families(s: usize) -> Vec<(&'static str, Run)> {
    let d = |t: String| t.parse::<DynLayout>().unwrap();
    let (s16, s4) = (s / 16, s / 4);
    let nz = d(format!("((16,{s16}),(4,{s4})):((4,64),(1,{}))", 4 * s));
    let zn = d(format!("((4,{s4}),(16,{s16})):((1,{}),(4,64))", 4 * s));
    let i = s as i64;
    let sw = |l: DynLayout| SwizzledLayout::new(Sw::<3, 3, 3>, 0i64, l);
    let padded = d(format!("({s},{s}):({},1)", s + 16));
    vec![
        (
            "f64 row-major",
            product_f64(rm(s, s), rm(s, s), rm(s, s), s, s, s, 0),
        ),
        ("f64 A NZ, B ZN, C NZ", product_f64(nz, zn, nz, s, s, s, 0)),
        (
            "f64 A RowMajorInterleaved<4>",
            product_f64(
                row_major_interleaved(4, i, i, 4 * i).unwrap(),
                rm(s, s),
                rm(s, s),
                s,
                s,
                s,
                0,
            ),
        ),
        (
            "f64 A, B RowMajorBlockLinear<8,8>",
            product_f64(
                row_major_block_linear(8, 8, i, i, 8 * i).unwrap(),
                row_major_block_linear(8, 8, i, i, 8 * i).unwrap(),
                rm(s, s),
                s,
                s,
                s,
                0,
            ),
        ),
        (
            "f64 A Sw<3,3,3> o row-major",
            product_f64(sw(rm(s, s)), rm(s, s), rm(s, s), s, s, s, 0),
        ),
        (
            "f64 C Sw<3,3,3> o row-major",
            product_f64(rm(s, s), rm(s, s), sw(rm(s, s)), s, s, s, 0),
        ),
        (
            "f64 A padded rows (ld = k + 16)",
            product_f64(padded, rm(s, s), rm(s, s), s, s, s, 2 * s * s + 64),
        ),
    ]
}

/// f16 × f16 → f32: row-major against the Ascend formats (C0 = 16 for 2-byte elements).
fn half_families(s: usize) -> Vec<(&'static str, Run)> {
    use half::f16;
    vec![
        (
            "f16 row-major",
            product_f16(rm(s, s), rm(s, s), rm(s, s), s, s, s),
        ),
        (
            "f16 A NZ, B ZN, C NZ",
            product_f16(
                make_nz_layout::<f16>(s, s).unwrap(),
                make_zn_layout::<f16>(s, s).unwrap(),
                make_nz_layout::<f32>(s, s).unwrap(),
                s,
                s,
                s,
            ),
        ),
    ]
}

fn families(s: usize) -> Vec<(&'static str, Run)> {
    let (m, k, n) = (s, s, s);
    let i = s as i64;
    let pad = 2 * s * s + 64;
    let sw = |l: DynLayout| SwizzledLayout::new(Sw::<3, 3, 3>, 0i64, l);
    vec![
        (
            "row-major",
            product(rm(m, k), rm(k, n), rm(m, n), m, k, n, 0),
        ),
        (
            "A NZ, B ZN, C NZ",
            product(
                make_nz_layout::<f32>(s, s).unwrap(),
                make_zn_layout::<f32>(s, s).unwrap(),
                make_nz_layout::<f32>(s, s).unwrap(),
                m,
                k,
                n,
                0,
            ),
        ),
        (
            "A ZZ, B ZN, C NZ",
            product(
                make_zz_layout::<f32>(s, s).unwrap(),
                make_zn_layout::<f32>(s, s).unwrap(),
                make_nz_layout::<f32>(s, s).unwrap(),
                m,
                k,
                n,
                0,
            ),
        ),
        (
            "A RowMajorInterleaved<4>",
            product(
                row_major_interleaved(4, i, i, 4 * i).unwrap(),
                rm(k, n),
                rm(m, n),
                m,
                k,
                n,
                0,
            ),
        ),
        (
            "A, B RowMajorBlockLinear<8,8>",
            product(
                row_major_block_linear(8, 8, i, i, 8 * i).unwrap(),
                row_major_block_linear(8, 8, i, i, 8 * i).unwrap(),
                rm(m, n),
                m,
                k,
                n,
                0,
            ),
        ),
        (
            "A Sw<3,3,3> o row-major",
            product(sw(rm(m, k)), rm(k, n), rm(m, n), m, k, n, 0),
        ),
        (
            "C Sw<3,3,3> o row-major",
            product(rm(m, k), rm(k, n), sw(rm(m, n)), m, k, n, 0),
        ),
        (
            // the broadcast operand packed (never read in place): the packed route's speed
            "A column-major (packed)",
            product(
                format!("({m},{k}):(1,{m})").parse::<DynLayout>().unwrap(),
                rm(k, n),
                rm(m, n),
                m,
                k,
                n,
                0,
            ),
        ),
        (
            "A padded rows (ld = k + 16)",
            product(
                format!("({m},{k}):({},1)", k + 16)
                    .parse::<DynLayout>()
                    .unwrap(),
                rm(k, n),
                rm(m, n),
                m,
                k,
                n,
                pad,
            ),
        ),
    ]
}

type L4 = layout::Layout![(4,4):(1,4)];
type L8 = layout::Layout![(8,8):(1,8)];
type L16 = layout::Layout![(16,16):(1,16)];

macro_rules! static_pair {
    ($ours:ident, $hand:ident, $l:ty, $n:literal) => {
        #[inline(never)]
        fn $ours(a: &[f32; $n * $n], b: &[f32; $n * $n], c: &mut [f32; $n * $n]) {
            let ta = Tensor::new(&a[..], <$l>::default()).unwrap();
            let tb = Tensor::new(&b[..], <$l>::default()).unwrap();
            let mut tc = Tensor::new(&mut c[..], <$l>::default()).unwrap();
            gemm::gemm_static(1.0f32, &ta, &tb, 0.0, &mut tc);
        }
        /// The hand-written const-size loop a user would write instead.
        #[inline(never)]
        fn $hand(a: &[f32; $n * $n], b: &[f32; $n * $n], c: &mut [f32; $n * $n]) {
            for j in 0..$n {
                for i in 0..$n {
                    let mut s = 0.0;
                    for p in 0..$n {
                        s += a[i + $n * p] * b[p + $n * j];
                    }
                    c[i + $n * j] = s;
                }
            }
        }
    };
}
static_pair!(ours4, hand4, L4, 4);
static_pair!(ours8, hand8, L8, 8);
static_pair!(ours16, hand16, L16, 16);

/// Static products through tensors (`gemm_static` on `Layout![(n,n):(1,n)]`, tensors built in
/// the timed call) against the hand-written const-size triple loop, in turns.
fn statics(rounds: usize) {
    println!();
    println!(
        "| static f32 product (tensors built in the call) | ours ns | hand loop ns | hand / ours |"
    );
    println!("|---|---|---|---|");
    macro_rules! row {
        ($ours:ident, $hand:ident, $n:literal) => {{
            // 64-byte aligned: on the stack a `[f32; N]` is only 4-byte aligned, and where ASLR
            // puts it decides whether vector loads split cache lines (both sides then swing by
            // 3× between processes)
            #[repr(align(64))]
            struct Aligned([f32; $n * $n]);
            let a = Aligned([1f32; $n * $n]);
            let b = Aligned([2f32; $n * $n]);
            let mut c = Aligned([0f32; $n * $n]);
            let (a, b, c) = (&a.0, &b.0, &mut c.0);
            let reps = 2_000_000 / ($n * $n);
            let (mut to, mut th, mut r) = (Vec::new(), Vec::new(), Vec::new());
            for _ in 0..rounds {
                let t = Instant::now();
                for _ in 0..reps {
                    $ours(black_box(a), black_box(b), black_box(&mut *c));
                }
                let o = t.elapsed().as_secs_f64() * 1e9 / reps as f64;
                let t = Instant::now();
                for _ in 0..reps {
                    $hand(black_box(a), black_box(b), black_box(&mut *c));
                }
                let h = t.elapsed().as_secs_f64() * 1e9 / reps as f64;
                to.push(o);
                th.push(h);
                r.push(h / o);
            }
            println!(
                "| {}³ | {:.1} | {:.1} | {:.2} |",
                $n,
                median(&mut to),
                median(&mut th),
                median(&mut r)
            );
        }};
    }
    row!(ours4, hand4, 4);
    row!(ours8, hand8, 8);
    row!(ours16, hand16, 16);
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![64, 256, 1024]
    } else {
        sizes
    };
    // `GEMM_LAYOUTS_PROFILE=NAME` runs only the families whose name contains NAME, 20 calls
    // each at every size, for a profiler (perf record, callgrind): no statistics printed
    if let Ok(only) = std::env::var("GEMM_LAYOUTS_PROFILE") {
        let calls: usize = std::env::var("GEMM_LAYOUTS_CALLS").map_or(20, |c| c.parse().unwrap());
        for &s in &sizes {
            for (_, mut run) in families(s)
                .into_iter()
                .chain(half_families(s))
                .chain(f64_families(s))
                .chain(int8_families(s))
                .filter(|(f, _)| match only.strip_prefix('=') {
                    Some(exact) => *f == exact,
                    None => f.contains(&*only),
                })
            {
                for _ in 0..calls {
                    run();
                }
            }
        }
        return;
    }
    let rounds = 11;
    statics(rounds);
    println!();
    println!("| layouts (f32, one thread) | n | GFLOP/s | × row-major |");
    println!("|---|---|---|---|");
    for s in &sizes {
        table(*s, families(*s), rounds);
    }
    println!();
    println!("| layouts (f16 × f16 → f32, one thread) | n | GFLOP/s | × f16 row-major |");
    println!("|---|---|---|---|");
    for s in &sizes {
        table(*s, half_families(*s), rounds);
    }
    println!();
    println!("| layouts (f64, one thread) | n | GFLOP/s | × f64 row-major |");
    println!("|---|---|---|---|");
    for s in &sizes {
        table(*s, f64_families(*s), rounds);
    }
    println!();
    println!("| layouts (u8 × i8 → i32, one thread) | n | GOP/s | × u8×i8 row-major |");
    println!("|---|---|---|---|");
    for s in &sizes {
        table(*s, int8_families(*s), rounds);
    }
}

/// One size's rows of a table: each family timed in turns, its ratio to the first family's
/// time in the same round, medians over the rounds.
fn table(s: usize, mut fam: Vec<(&'static str, Run)>, rounds: usize) {
    {
        let flop = 2.0 * (s * s * s) as f64;
        // repetitions per sample: about 20 ms of row-major work
        let t0 = Instant::now();
        (fam[0].1)();
        let one = t0.elapsed().as_secs_f64().max(1e-7);
        let reps = ((0.02 / one) as usize).clamp(1, 100_000);
        let mut times = vec![Vec::new(); fam.len()];
        for _ in 0..rounds {
            for (f, (_, run)) in fam.iter_mut().enumerate() {
                let t = Instant::now();
                for _ in 0..reps {
                    run();
                }
                times[f].push(t.elapsed().as_secs_f64() / reps as f64);
            }
        }
        for f in 0..fam.len() {
            let mut ratios: Vec<f64> = (0..rounds).map(|r| times[0][r] / times[f][r]).collect();
            let t = median(&mut times[f].clone());
            println!(
                "| {} | {s} | {:.1} | {:.2} |",
                fam[f].0,
                flop / t / 1e9,
                median(&mut ratios)
            );
        }
    }
}
