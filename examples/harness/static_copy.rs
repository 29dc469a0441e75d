//! The copy of a static 32 × 32 fp16 tile (row-major) into a static NZ tile
//! (`Nz<f16, 32, 32>`, four 16 × 16 fractals), three ways: written by hand (64 moves of 16
//! elements), `Tensor::copy_from` between the two static layout types (the plan computed at
//! compile time), and `Tensor::copy_from` between the same layouts as run-time `DynLayout`s.
//! Checks that the three agree.
//!
//! ```text
//! cargo run --release --example static_copy -- [REPS] [VARIANT]
//! ```
//!
//! With a `VARIANT` (`hand`, `static`, `dyn`) only that copy runs, `REPS` times:
//! `scripts/count-instructions.sh` runs it that way under callgrind.

use layout::named::{Nz, f16};
use layout::tensor::Tensor;
use layout::{DynLayout, Int, Layout};
use std::hint::black_box;

/// `(32,32):(32,1)`, static.
type Nd = Layout<(Int<32>, Int<32>), (Int<32>, Int<1>)>;
/// The NZ tile, static.
type NzTile = Nz<f16, 32, 32>;

mod copies {
    use super::*;

    /// By hand: fractal column `fc`, row `r` is 16 contiguous elements on both sides.
    #[inline(never)]
    pub fn hand(src: &[u16; 1024], dst: &mut [u16; 1024]) {
        for fc in 0..2 {
            for r in 0..32 {
                let d = fc * 512 + r * 16;
                let s = r * 32 + fc * 16;
                dst[d..d + 16].copy_from_slice(&src[s..s + 16]);
            }
        }
    }

    /// `copy_from` between the static layout types.
    #[inline(never)]
    pub fn statics(src: &Tensor<&[u16], Nd>, dst: &mut Tensor<&mut [u16], NzTile>) {
        dst.copy_from(src).unwrap();
    }

    /// `copy_from` between the same layouts at run time.
    #[inline(never)]
    pub fn dyns(src: &Tensor<&[u16], DynLayout>, dst: &mut Tensor<&mut [u16], DynLayout>) {
        dst.copy_from(src).unwrap();
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let reps: usize = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let only = args.next();
    let src: [u16; 1024] = core::array::from_fn(|i| i as u16);
    let (mut a, mut b, mut c) = ([0u16; 1024], [0u16; 1024], [0u16; 1024]);
    let nd_dyn: DynLayout = black_box("(32,32):(32,1)".parse().unwrap());
    let nz_dyn: DynLayout = black_box("((16,2),(16,2)):((16,256),(1,512))".parse().unwrap());
    let run = |name: &str| only.as_deref().is_none_or(|o| o == name);
    for _ in 0..reps {
        if run("hand") {
            copies::hand(black_box(&src), &mut a);
        }
        if run("static") {
            let s = Tensor::new(&src[..], Nd::default()).unwrap();
            let mut d = Tensor::new(&mut b[..], NzTile::new()).unwrap();
            copies::statics(black_box(&s), &mut d);
        }
        if run("dyn") {
            let s = Tensor::new(&src[..], nd_dyn).unwrap();
            let mut d = Tensor::new(&mut c[..], nz_dyn).unwrap();
            copies::dyns(black_box(&s), &mut d);
        }
    }
    if only.is_none() {
        assert_eq!(a, b, "static copy differs from the hand-written one");
        assert_eq!(a, c, "run-time copy differs from the hand-written one");
        println!("hand, static and dyn copies agree");
    }
}
