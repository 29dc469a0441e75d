//! `gemm_into_half`: a C of `f16` / `bf16` (issue 32): for the float pairs (`f32`, `bf16`, `f16`
//! inputs, and f32 activations times quantized weights) the product accumulates in `f32` and
//! each element of C is rounded to 16 bits once. Checked against the exact value rounded once
//! (`from_f64` of an f64 reference; the data are integers whose products and sums are exact in
//! f32 but exceed f16's and bf16's 11 and 8 significant bits, so rounding twice — e.g. rounding
//! α·A·B before adding β·C — differs), over C layouts (strided and not), β = 0 on a NaN-filled C
//! and β ≠ 0, every instruction set the CPU has, and with the buffer outside C untouched.

use layout::gemm::{GemmError, HalfOutput, Isa, Options, gemm_into_half};
use layout::named::{bf16, f16};
use layout::packed::quantize_q8_0;
use layout::{DynLayout, Tensor};

/// The 16-bit output types, with their conversions.
trait Half: Copy + PartialEq + std::fmt::Debug + HalfOutput {
    const NAME: &'static str;
    fn of(x: f64) -> Self;
    fn wide(self) -> f32;
}

impl Half for f16 {
    const NAME: &'static str = "f16";
    fn of(x: f64) -> Self {
        f16::from_f64(x)
    }
    fn wide(self) -> f32 {
        self.to_f32()
    }
}

impl Half for bf16 {
    const NAME: &'static str = "bf16";
    fn of(x: f64) -> Self {
        bf16::from_f64(x)
    }
    fn wide(self) -> f32 {
        self.to_f32()
    }
}

fn layouts(m: usize, n: usize) -> Vec<(&'static str, DynLayout)> {
    vec![
        (
            "row-major",
            DynLayout::strided(&[m, n], &[n as isize, 1]).unwrap(),
        ),
        (
            "column-major, ld + 5",
            DynLayout::strided(&[m, n], &[1, m as isize + 5]).unwrap(),
        ),
        // columns in blocks of 4 after all rows: affine, not strided
        (
            "blocked",
            format!("({m},(4,{})):(4,(1,{}))", n / 4, 4 * m)
                .parse()
                .unwrap(),
        ),
    ]
}

/// The call under test: `(α, β, C)`.
type Run<'r, H> = &'r dyn Fn(f32, f32, &mut Tensor<&mut [H], DynLayout>) -> Result<(), GemmError>;

/// `C ← α·A·B + β·C` with C of element `H` in every layout, against the exact value rounded
/// once. `a`, `b` are the operands as f64 values (row-major), `run` the call under test.
fn check<H: Half>(what: &str, [m, k, n]: [usize; 3], a: &[f64], b: &[f64], run: Run<'_, H>) {
    for (name, lc) in layouts(m, n) {
        for (alpha, beta) in [(1.0f32, 0.0f32), (0.5, 2.0), (3.0, 1.0), (0.0, 0.5)] {
            let c0: Vec<f64> = (0..m * n).map(|i| ((i * 5) % 23) as f64 - 11.0).collect();
            let guard = 3;
            let total = guard + lc.cosize() as usize + guard;
            let sentinel = H::of(-77.0);
            let mut buf = vec![sentinel; total];
            {
                let mut c = Tensor::with_offset(&mut buf[..], lc, guard).unwrap();
                for i in 0..m {
                    for j in 0..n {
                        c[[i, j]] = if beta == 0.0 {
                            H::of(f64::NAN)
                        } else {
                            H::of(c0[i * n + j])
                        };
                    }
                }
                run(alpha, beta, &mut c).unwrap();
                for i in 0..m {
                    for j in 0..n {
                        let s: f64 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
                        let prior = if beta == 0.0 {
                            0.0
                        } else {
                            f64::from(beta) * f64::from(H::of(c0[i * n + j]).wide())
                        };
                        let want = H::of(f64::from(alpha) * s + prior);
                        assert_eq!(
                            c[[i, j]],
                            want,
                            "{what} into {} C {name} α {alpha} β {beta} at ({i},{j})",
                            H::NAME
                        );
                    }
                }
            }
            // the buffer outside C: untouched
            let offsets: Vec<usize> = (0..lc.cosize() as usize).collect();
            let off = Tensor::new(&offsets[..], lc).unwrap();
            let mut is_c = vec![false; total];
            for i in 0..m {
                for j in 0..n {
                    is_c[guard + off[[i, j]]] = true;
                }
            }
            for (p, (x, inside)) in buf.iter().zip(&is_c).enumerate() {
                if !inside {
                    assert_eq!(
                        *x, sentinel,
                        "{what} C {name}: element {p} outside C written"
                    );
                }
            }
        }
    }
}

/// Integer data: A in [−8, 8], B in [−64, 64], so sums reach several thousand (exact in f32,
/// not in 16 bits).
fn data(rows: usize, cols: usize, seed: usize, span: usize) -> Vec<f64> {
    (0..rows * cols)
        .map(|i| ((i * 7 + seed * 13) % (2 * span + 1)) as f64 - span as f64)
        .collect()
}

fn pairs<H: Half>() {
    let (m, k, n) = (9, 40, 12);
    let (a, b) = (data(m, k, 1, 8), data(k, n, 2, 64));
    for isa in Isa::available() {
        for threads in [1, 2] {
            let opts = Options {
                isa,
                threads,
                ..Options::default()
            };
            let what = format!("{isa:?} threads {threads}");
            // f32 × f32
            let ta = Tensor::from_vec(a.iter().map(|&x| x as f32).collect(), &[m, k]).unwrap();
            let tb = Tensor::from_vec(b.iter().map(|&x| x as f32).collect(), &[k, n]).unwrap();
            check::<H>(&format!("f32 {what}"), [m, k, n], &a, &b, &|al, be, c| {
                gemm_into_half(opts, al, &ta, &tb, be, c)
            });
            // bf16 × bf16 (the data are exact in bf16: at most 8 significant bits)
            let ha = ta.map(|&x| bf16::from_f32(x));
            let hb = tb.map(|&x| bf16::from_f32(x));
            check::<H>(&format!("bf16 {what}"), [m, k, n], &a, &b, &|al, be, c| {
                gemm_into_half(opts, al, &ha, &hb, be, c)
            });
            // f16 × f16
            let fa = ta.map(|&x| f16::from_f32(x));
            let fb = tb.map(|&x| f16::from_f32(x));
            check::<H>(&format!("f16 {what}"), [m, k, n], &a, &b, &|al, be, c| {
                gemm_into_half(opts, al, &fa, &fb, be, c)
            });
        }
    }
    // f32 activations × Q8_0 weights (stored exactly: each 32-block of a column holds 127,
    // so its scale is 1)
    let (k, n) = (64, 8);
    let w: Vec<f64> = (0..k * n)
        .map(|i| {
            let (p, j) = (i / n, i % n);
            if p % 32 == j {
                127.0
            } else {
                ((i * 3) % 21) as f64 - 10.0
            }
        })
        .collect();
    let q = quantize_q8_0(k, n, &w.iter().map(|&x| x as f32).collect::<Vec<_>>()).unwrap();
    for m in [1, 20] {
        let a = data(m, k, 3, 8);
        let ta = Tensor::from_vec(a.iter().map(|&x| x as f32).collect(), &[m, k]).unwrap();
        check::<H>(&format!("Q8_0 m={m}"), [m, k, n], &a, &w, &|al, be, c| {
            gemm_into_half(Options::default(), al, &ta, &q, be, c)
        });
    }
}

#[test]
fn every_float_pair_into_f16() {
    pairs::<f16>();
}

#[test]
fn every_float_pair_into_bf16() {
    pairs::<bf16>();
}

/// A shape mismatch is refused before C is read or written; the error names `gemm`.
#[test]
fn half_c_of_the_wrong_shape_is_refused_untouched() {
    let a = Tensor::from_vec(vec![1f32; 6], &[2, 3]).unwrap();
    let b = Tensor::from_vec(vec![1f32; 6], &[3, 2]).unwrap();
    let mut c = Tensor::from_vec(vec![f16::from_f32(5.0); 6], &[3, 2]).unwrap();
    let e = gemm_into_half(Options::default(), 1.0, &a, &b, 0.0, &mut c).unwrap_err();
    assert!(matches!(e, GemmError::ShapeMismatch { .. }), "{e:?}");
    assert!(e.to_string().starts_with("gemm_into_half:"), "{e}");
    assert!(c.iter().all(|x| x.to_f32() == 5.0));
}
