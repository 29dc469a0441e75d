//! 2-D convolution as a GEMM over a layout: the im2col matrix is a (non-injective) layout over
//! the input, read by the GEMM's packer without materialising it.
//!
//! A convolution of an input (N, C, H, W) with filters (O, C, R, S) is, per image,
//! `out[pixel][o] = Σ_k X[pixel][k] · W[k][o]` where `X` is the **im2col matrix**: row
//! `(oh, ow)`, column `(c, r, s)` is the input element `(c, oh·stride + r·dilation − padding,
//! ow·stride + s·dilation − padding)`. In CuTe's terms `X` is the layout
//!
//! ```text
//! ((N,OH,OW),(C,R,S)) : ((sN, stride·sH, stride·sW), (sC, dilation·sH, dilation·sW))
//! ```
//!
//! over the input's buffer — the input's layout composed with a window layout ([`Im2col`]
//! derives it with [`DynLayout::composition`](crate::DynLayout::composition)) — with padding as a
//! predicate: elements outside the input read zero. Nothing is copied: [`conv2d`] packs the
//! GEMM's micro-panels straight from the input through this layout, in blocks the size of the
//! GEMM's cache blocks, with
//! - runs along pixels when the input's W axis is contiguous (NCHW: the k order is
//!   (c, r, s), and each k step of a panel is a run of consecutive output pixels of one output
//!   row, one contiguous input run at stride 1),
//! - runs along k when its C axis is contiguous (NHWC: the k order is (r, s, c), each pixel's
//!   channels one contiguous run, moved by the copy engine's SIMD transposes),
//! - the predicate evaluated once per output-row segment (the in-bounds columns are an
//!   interval), not per element.
//!
//! On AVX2 and AVX-512, for inputs whose C and W axes (and the output's channel and W axes)
//! are one stride each (`bf16` / `f16` ones widened to `f32` once per call first), the taps
//! are a batch-reduce instead
//! ([`gemm::batch_reduce`](crate::gemm::batch_reduce)): at a fixed tap (r, s) the layout's
//! `(OW, C)` modes are a strided matrix over the input, read in place, and each output row
//! segment sums one product per tap in registers (padding taps left out per segment).
//!
//! Otherwise 1×1 convolutions with stride 1 and no padding are plain GEMMs on the input (no packing of
//! an im2col at all). The filters are read in place when their tap axes merge in the k order
//! (OIHW for NCHW inputs, OHWI for NHWC), else packed once per call, or once for many calls
//! with [`ConvWeights`] and [`conv2d_prepared`]; groups (depthwise
//! included) are one GEMM per group, bias and ReLU an epilogue.
//!
//! Tensors keep their formats in their layouts: any rank-4 layout with logical axes (N, C, H,
//! W) for the input (NCHW, NHWC, `nChw16c`, …), (O, C/groups, R, S) for the filters (OIHW,
//! `OIhw16i16o`, …) and (N, O, OH, OW) for the output.
//!
//! ```
//! use layout::{DynLayout, Tensor};
//! use layout::conv::{Conv2d, conv2d};
//! // an NHWC input (logical axes N, C, H, W; C contiguous), 2 channels, 4×4
//! let (n, c, h, w) = (1, 2, 4, 4);
//! let nhwc: DynLayout = format!("({n},{c},{h},{w}):({},1,{},{c})", h * w * c, w * c).parse().unwrap();
//! let x = Tensor::new((0..32).map(|v| v as f32).collect::<Vec<_>>(), nhwc).unwrap();
//! // 3 filters of 2×3×3, OIHW
//! let wl: DynLayout = "(3,2,3,3):(18,9,3,1)".parse().unwrap();
//! let f = Tensor::new(vec![1.0f32; 54], wl).unwrap();
//! let p = Conv2d::default().padding(1);
//! let dims = p.output_dims([n, c, h, w], [3, 2, 3, 3]).unwrap();
//! assert_eq!(dims, [1, 3, 4, 4]);
//! let mut y = Tensor::new(vec![0.0f32; 48], "(1,3,4,4):(48,16,4,1)".parse::<DynLayout>().unwrap()).unwrap();
//! conv2d(&p, &x, &f, Some(&[0.0, 1.0, -1000.0]), &mut y).unwrap();
//! // the output pixel (1,1) sums a full 3×3 window of both channels
//! let full: f32 = (0..3).flat_map(|i| (0..3).map(move |j| (i * 4 + j) * 2)).map(|v| (v + v + 1) as f32).sum();
//! assert_eq!(y[[0, 0, 1, 1]], full);
//! assert_eq!(y[[0, 1, 1, 1]], full + 1.0);
//! ```

mod error;
mod geom;
mod im2col;
mod run;
mod taps;
#[cfg(target_arch = "x86_64")]
mod taps_bf16;

pub use error::{ConvError, ConvOperand};
pub use geom::Conv2d;
pub use im2col::{ConvElement, Im2col};
pub use run::{ConvWeights, conv2d, conv2d_prepared, conv2d_with};
