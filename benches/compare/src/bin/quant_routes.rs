//! `gemm_quant` on 8-bit activations against its `f32` route on the same weights (issue 29), one
//! process, the two alternating: `quant_routes Q4_0|Q8_0|AWQ M K N REPS` prints both best wall
//! times and the 8-bit route's relative error against the dequantized product (a sample of C).
//! Also the program callgrind counts: `valgrind --tool=callgrind quant_routes Q4_0 192 4096 4096 1`.
//! `BITS=7`: 7-bit activations (`QuantB::int7_activations`) instead of 8-bit.
use layout::gemm::{MatMut, MatRef, QuantB, gemm_quant};
use layout::isa::Isa;
use layout::packed::{
    Group4Format, QuantRef, QuantizedB, quantize_group4, quantize_q4_0, quantize_q8_0,
};
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let fmt = a[1].as_str();
    let (m, k, n, reps): (usize, usize, usize, usize) = (
        a[2].parse().unwrap(),
        a[3].parse().unwrap(),
        a[4].parse().unwrap(),
        a[5].parse().unwrap(),
    );
    let mut s = 1u32;
    let mut r = || {
        s = s.wrapping_mul(1664525).wrapping_add(1013904223);
        ((s >> 8) as f32 / 16777216.0) * 2.0 - 1.0
    };
    let b: Vec<f32> = (0..k * n).map(|_| r()).collect();
    let av: Vec<f32> = (0..m * k).map(|_| r()).collect();
    enum Q {
        Q4(layout::packed::Q4_0Matrix),
        Q8(layout::packed::Q8_0Matrix),
        G(Box<layout::packed::Group4Matrix>),
    }
    let q = match fmt {
        "Q4_0" => Q::Q4(quantize_q4_0(k, n, &b).unwrap()),
        "Q8_0" => Q::Q8(quantize_q8_0(k, n, &b).unwrap()),
        _ => Q::G(Box::new(
            quantize_group4(k, n, &b, 128, Group4Format::Awq).unwrap(),
        )),
    };
    let qr: QuantRef<'_> = match &q {
        Q::Q4(x) => x.into(),
        Q::Q8(x) => x.into(),
        Q::G(x) => (&**x).into(),
    };
    let seven = std::env::var("BITS").is_ok_and(|b| b == "7");
    let mut c = vec![0f32; m * n];
    let mut best = f64::MAX;
    let mut best32 = f64::MAX;
    for _ in 0..reps {
        // the 8-bit route last: C keeps its result for the error below
        for int8 in [false, true] {
            let t = std::time::Instant::now();
            gemm_quant(
                Isa::selected_for_gemm(),
                1.0,
                MatRef {
                    data: &av,
                    rows: m,
                    cols: k,
                    row_stride: k as isize,
                    col_stride: 1,
                },
                if int8 && seven {
                    QuantB::int7_activations(qr)
                } else if int8 {
                    QuantB::int8_activations(qr)
                } else {
                    qr.into()
                },
                0.0,
                MatMut {
                    data: &mut c,
                    rows: m,
                    cols: n,
                    row_stride: n as isize,
                    col_stride: 1,
                },
            )
            .unwrap();
            let e = t.elapsed().as_secs_f64();
            if int8 {
                best = best.min(e)
            } else {
                best32 = best32.min(e)
            }
        }
    }
    println!(
        "{fmt} f32 route: {:.1} GFLOP/s; int8/f32 = {:.2}",
        2.0 * (m * k * n) as f64 / best32 / 1e9,
        best32 / best
    );
    // f32 reference on a few entries
    let w = qr.dequantize().unwrap();
    let mut num = 0f64;
    let mut den = 0f64;
    for i in (0..m).step_by(m.div_ceil(7)) {
        for j in (0..n).step_by(n.div_ceil(13)) {
            let y: f64 = (0..k)
                .map(|p| av[i * k + p] as f64 * w[p * n + j] as f64)
                .sum();
            num += (c[i * n + j] as f64 - y).powi(2);
            den += y * y;
        }
    }
    println!(
        "{fmt} {m}x{k}x{n}: best {:.3} ms = {:.1} GFLOP/s, rel err vs dequantized {:.2e}",
        best * 1e3,
        2.0 * (m * k * n) as f64 / best / 1e9,
        (num / den).sqrt()
    );
}
