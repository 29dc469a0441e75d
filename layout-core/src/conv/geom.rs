//! Parameters, shapes and their checks; the offsets of each axis of a tensor.

use std::vec::Vec;

use super::error::{ConvError, ConvOperand};
use crate::DynLayout;
use crate::walk::{AnyLayout, Axes};

/// The parameters of a 2-D convolution: stride, padding, dilation (each per axis, height
/// first), groups and an optional fused ReLU.
///
/// The output extent along an axis of input extent `x` and kernel extent `k` is
/// `⌊(x + 2·padding − (k − 1)·dilation − 1) / stride⌋ + 1`.
///
/// ```
/// use layout::conv::Conv2d;
/// let p = Conv2d::default().stride(2).padding(3);
/// assert_eq!(p.output_dims([1, 3, 224, 224], [64, 3, 7, 7]).unwrap(), [1, 64, 112, 112]);
/// let dw = Conv2d::default().padding(1).groups(32); // depthwise over 32 channels
/// assert_eq!(dw.output_dims([2, 32, 10, 10], [32, 1, 3, 3]).unwrap(), [2, 32, 10, 10]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Conv2d {
    /// Steps between windows (height, width); at least 1.
    pub stride: [usize; 2],
    /// Zeros added on both sides of each axis (height, width).
    pub padding: [usize; 2],
    /// Steps between kernel taps (height, width); at least 1.
    pub dilation: [usize; 2],
    /// Channel groups: input and output channels split into `groups` independent
    /// convolutions (`groups == channels`: depthwise); at least 1.
    pub groups: usize,
    /// Apply `max(x, 0)` to every output element (after the bias).
    pub relu: bool,
}

impl Default for Conv2d {
    /// Stride 1, no padding, dilation 1, one group, no ReLU.
    fn default() -> Self {
        Conv2d {
            stride: [1, 1],
            padding: [0, 0],
            dilation: [1, 1],
            groups: 1,
            relu: false,
        }
    }
}

impl Conv2d {
    /// The same stride along both axes.
    pub const fn stride(mut self, s: usize) -> Self {
        self.stride = [s, s];
        self
    }

    /// The same padding along both axes.
    pub const fn padding(mut self, p: usize) -> Self {
        self.padding = [p, p];
        self
    }

    /// The same dilation along both axes.
    pub const fn dilation(mut self, d: usize) -> Self {
        self.dilation = [d, d];
        self
    }

    /// The number of groups.
    pub const fn groups(mut self, g: usize) -> Self {
        self.groups = g;
        self
    }

    /// Whether to fuse a ReLU.
    pub const fn relu(mut self, on: bool) -> Self {
        self.relu = on;
        self
    }

    /// The output extents (N, O, OH, OW) for an input of extents (N, C, H, W) and weights
    /// (O, C/groups, R, S).
    ///
    /// # Errors
    /// [`ConvError::Zero`] for a zero stride, dilation, kernel extent or group count;
    /// [`ConvError::ChannelsNotDivisible`] when C or O is not a multiple of the groups;
    /// [`ConvError::WeightShape`] when the weights' second extent is not C/groups;
    /// [`ConvError::KernelTooLarge`] when the dilated kernel spans more than the padded input;
    /// [`ConvError::Overflow`] naming the padding when `input + 2·padding` exceeds
    /// `isize::MAX` (the kernels' signed offsets), or the dilation when
    /// `(kernel − 1)·dilation + 1` exceeds `usize::MAX`.
    pub fn output_dims(
        &self,
        input: [usize; 4],
        weights: [usize; 4],
    ) -> Result<[usize; 4], ConvError> {
        let [n, c, h, w] = input;
        let [o, cg, r, s] = weights;
        for axis in 0..2 {
            if self.stride[axis] == 0 {
                return Err(ConvError::Zero {
                    what: "stride",
                    axis,
                });
            }
            if self.dilation[axis] == 0 {
                return Err(ConvError::Zero {
                    what: "dilation",
                    axis,
                });
            }
        }
        let g = self.groups;
        if g == 0 {
            return Err(ConvError::Zero {
                what: "groups",
                axis: 0,
            });
        }
        if c % g != 0 {
            return Err(ConvError::ChannelsNotDivisible {
                operand: ConvOperand::Input,
                channels: c,
                groups: g,
            });
        }
        if o % g != 0 {
            return Err(ConvError::ChannelsNotDivisible {
                operand: ConvOperand::Output,
                channels: o,
                groups: g,
            });
        }
        if cg != c / g {
            return Err(ConvError::WeightShape {
                expected: [o, c / g, r, s],
                got: weights,
            });
        }
        let mut out = [n, o, 0, 0];
        for (axis, (x, k)) in [(h, r), (w, s)].into_iter().enumerate() {
            let (st, pad, dil) = (self.stride[axis], self.padding[axis], self.dilation[axis]);
            if k == 0 {
                return Err(ConvError::Zero {
                    what: "kernel",
                    axis,
                });
            }
            // the kernels index the padded input with signed offsets: `input + 2·padding` must
            // fit `isize` (then every window position and tap does)
            let padded = pad
                .checked_mul(2)
                .and_then(|p| p.checked_add(x))
                .filter(|&p| isize::try_from(p).is_ok())
                .ok_or(ConvError::Overflow {
                    what: PADDING_OVERFLOW[axis],
                })?;
            let span = (k - 1)
                .checked_mul(dil)
                .and_then(|d| d.checked_add(1))
                .ok_or(ConvError::Overflow {
                    what: DILATION_OVERFLOW[axis],
                })?;
            if span > padded {
                return Err(ConvError::KernelTooLarge {
                    axis,
                    kernel: k,
                    dilation: dil,
                    input: x,
                    padding: pad,
                });
            }
            out[2 + axis] = (padded - span) / st + 1;
        }
        Ok(out)
    }
}

/// What overflows when the padding along the height / width is too large.
const PADDING_OVERFLOW: [&str; 2] = [
    "the padding along the height (H + 2·padding above isize::MAX)",
    "the padding along the width (W + 2·padding above isize::MAX)",
];

/// What overflows when the dilation along the height / width is too large.
const DILATION_OVERFLOW: [&str; 2] = [
    "the dilation along the height ((R − 1)·dilation + 1 above usize::MAX)",
    "the dilation along the width ((S − 1)·dilation + 1 above usize::MAX)",
];

/// The spatial parameters of a checked convolution as the signed integers its kernels index
/// with (height, width).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Spatial {
    pub st: [isize; 2],
    pub pad: [isize; 2],
    pub dil: [isize; 2],
}

impl Conv2d {
    /// The stride, padding and dilation as `isize`, for an input of spatial extents `input`
    /// and a kernel of `kernel` taps whose [`Conv2d::output_dims`] succeeded.
    ///
    /// `output_dims` bounds `input + 2·padding` by `isize::MAX` and `(kernel − 1)·dilation`
    /// by it, so every window position `oh·stride` and tap `r·dilation` fits. A stride larger
    /// than the padded input (one window: only `oh = 0`) is the padded input's extent, which
    /// gives the same windows; a dilation of a one-tap kernel (never multiplied by more than
    /// 0) is 1.
    pub(crate) fn spatial(
        &self,
        input: [usize; 2],
        kernel: [usize; 2],
    ) -> Result<Spatial, ConvError> {
        let mut sp = Spatial {
            st: [1; 2],
            pad: [0; 2],
            dil: [1; 2],
        };
        for axis in 0..2 {
            let padded = self.padding[axis]
                .checked_mul(2)
                .and_then(|p| p.checked_add(input[axis]))
                .and_then(|p| isize::try_from(p).ok())
                .ok_or(ConvError::Overflow {
                    what: PADDING_OVERFLOW[axis],
                })?;
            let pad = isize::try_from(self.padding[axis]).map_err(|_| ConvError::Overflow {
                what: PADDING_OVERFLOW[axis],
            })?;
            let st = isize::try_from(self.stride[axis]).map_or(padded, |s| s.min(padded));
            let dil = if kernel[axis] <= 1 {
                1
            } else {
                isize::try_from(self.dilation[axis]).map_err(|_| ConvError::Overflow {
                    what: DILATION_OVERFLOW[axis],
                })?
            };
            sp.st[axis] = st.max(1);
            sp.pad[axis] = pad;
            sp.dil[axis] = dil;
        }
        Ok(sp)
    }
}

/// The offsets of one axis of a tensor (its top-level mode, colexicographic) and, when they are
/// an arithmetic progression from 0, their step.
#[derive(Clone, Debug)]
pub(crate) struct AxisTab {
    pub off: Vec<isize>,
    pub step: Option<isize>,
}

impl AxisTab {
    fn new(axes: &Axes<'_>, k: usize) -> Result<AxisTab, ConvError> {
        let e = axes.extent(k);
        let len = usize::try_from(e).map_err(|_| ConvError::Overflow { what: "an extent" })?;
        let mut off = Vec::new();
        off.try_reserve_exact(len)
            .map_err(|_| ConvError::Allocation { elements: len })?;
        // offsets of a validated layout fit i64 = isize on the 64-bit targets of the crate
        off.extend((0..e).map(|c| axes.offset(k, c) as isize));
        let step = match len {
            0 | 1 => Some(0),
            _ => {
                let d = off[1] - off[0];
                off.windows(2).all(|w| w[1] - w[0] == d).then_some(d)
            }
        };
        Ok(AxisTab { off, step })
    }

    /// The step between consecutive indices (0 for an axis of one index) when arithmetic.
    pub fn step(&self) -> Option<isize> {
        self.step
    }
}

/// A rank-4 tensor as the convolution reads it: element (a, b, c, d) is at
/// `base + t[0].off[a] + t[1].off[b] + t[2].off[c] + t[3].off[d]`.
#[derive(Clone, Debug)]
pub(crate) struct Desc {
    pub dims: [usize; 4],
    pub t: [AxisTab; 4],
    pub base: isize,
}

impl Desc {
    pub fn new<L: AnyLayout>(
        operand: ConvOperand,
        layout: &L,
        base: usize,
    ) -> Result<Desc, ConvError> {
        let l: DynLayout = layout
            .to_dyn()
            .map_err(|_| ConvError::NotRank4 { operand, rank: 0 })?;
        let axes = Axes::new(&l);
        if axes.rank != 4 {
            return Err(ConvError::NotRank4 {
                operand,
                rank: axes.rank,
            });
        }
        let t = [
            AxisTab::new(&axes, 0)?,
            AxisTab::new(&axes, 1)?,
            AxisTab::new(&axes, 2)?,
            AxisTab::new(&axes, 3)?,
        ];
        let dims = [
            t[0].off.len(),
            t[1].off.len(),
            t[2].off.len(),
            t[3].off.len(),
        ];
        let base = isize::try_from(base).map_err(|_| ConvError::Overflow {
            what: "a base offset",
        })?;
        Ok(Desc { dims, t, base })
    }

    /// The buffer index of element (a, b, c, d).
    #[inline]
    pub fn at(&self, a: usize, b: usize, c: usize, d: usize) -> isize {
        self.base + self.t[0].off[a] + self.t[1].off[b] + self.t[2].off[c] + self.t[3].off[d]
    }

    /// Whether axes 2 and 3 (H, W) together are one arithmetic progression (row-major over
    /// them): the step of the merged axis.
    pub fn merged_hw(&self) -> Option<isize> {
        let sw = self.t[3].step()?;
        let sh = self.t[2].step()?;
        if self.dims[2] == 1 {
            Some(sw)
        } else if self.dims[3] == 1 {
            Some(sh)
        } else {
            (sh == sw.checked_mul(self.dims[3] as isize)?).then_some(sw)
        }
    }
}
