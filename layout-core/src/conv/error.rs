//! The error type of the convolution entry points.

use core::fmt;

use crate::LayoutError;
use crate::gemm::GemmError;

/// Which tensor of a convolution an error is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConvOperand {
    /// The input activations, logical axes (N, C, H, W).
    Input,
    /// The filters, logical axes (O, C/groups, R, S).
    Weights,
    /// The bias, O elements.
    Bias,
    /// The output activations, logical axes (N, O, OH, OW).
    Output,
}

impl fmt::Display for ConvOperand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ConvOperand::Input => "input",
            ConvOperand::Weights => "weights",
            ConvOperand::Bias => "bias",
            ConvOperand::Output => "output",
        })
    }
}

/// Why a convolution was refused. Every variant carries the numbers; nothing is written to the
/// output on error. `Debug` shows the variant and its sentence.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ConvError {
    /// A tensor is not of rank 4 (or its layout has no run-time affine form: rank 0).
    NotRank4 {
        /// The tensor.
        operand: ConvOperand,
        /// Its rank.
        rank: usize,
    },
    /// A stride, dilation, kernel extent or the group count is zero.
    Zero {
        /// `"stride"`, `"dilation"`, `"kernel"` or `"groups"`.
        what: &'static str,
        /// 0 for the height, 1 for the width (0 for groups).
        axis: usize,
    },
    /// The channels of the input or the output are not a multiple of the groups.
    ChannelsNotDivisible {
        /// Input or output.
        operand: ConvOperand,
        /// Its channels.
        channels: usize,
        /// The groups.
        groups: usize,
    },
    /// The weights are not (O, C/groups, R, S) for the input's and output's channels.
    WeightShape {
        /// The shape the input and output ask for (R and S as given by the weights).
        expected: [usize; 4],
        /// The weights' shape.
        got: [usize; 4],
    },
    /// The dilated kernel is larger than the padded input along an axis:
    /// `(kernel − 1)·dilation + 1 > input + 2·padding`.
    KernelTooLarge {
        /// 0 for the height, 1 for the width.
        axis: usize,
        /// The kernel's extent.
        kernel: usize,
        /// The dilation.
        dilation: usize,
        /// The input's extent.
        input: usize,
        /// The padding on each side.
        padding: usize,
    },
    /// Prepared weights ([`ConvWeights`](super::ConvWeights)) used with another group count
    /// than they were packed for.
    GroupsMismatch {
        /// The groups the weights were packed for.
        packed: usize,
        /// The groups of the parameters.
        given: usize,
    },
    /// The output is not (N, O, OH, OW) with OH, OW given by the parameters.
    OutputShape {
        /// The shape the parameters give.
        expected: [usize; 4],
        /// The output's shape.
        got: [usize; 4],
    },
    /// The bias does not have one element per output channel.
    BiasLength {
        /// Output channels.
        expected: usize,
        /// Elements given.
        got: usize,
    },
    /// A size computed from the parameters does not fit the integers the computation uses
    /// (`(input + 2·padding)`, `(kernel − 1)·dilation`, `C·R·S`, …).
    Overflow {
        /// What overflowed.
        what: &'static str,
    },
    /// A temporary buffer could not be allocated.
    Allocation {
        /// Elements asked for.
        elements: usize,
    },
    /// The layout algebra refused an operation (deriving the im2col layout).
    Layout(LayoutError),
    /// The GEMM underneath refused its arguments (an unavailable instruction set).
    Gemm(GemmError),
}

impl fmt::Display for ConvError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let axis = |a: &usize| if *a == 0 { "height" } else { "width" };
        match self {
            ConvError::NotRank4 { operand, rank } => write!(
                f,
                "conv2d: the {operand} is not a rank-4 tensor with an affine layout (rank {rank})"
            ),
            ConvError::Zero { what, axis: a } => {
                if *what == "groups" {
                    write!(f, "conv2d: groups is 0; it must be at least 1")
                } else if *what == "kernel" {
                    write!(
                        f,
                        "conv2d: the kernel's extent along the {} is 0; it must be at least 1",
                        axis(a)
                    )
                } else {
                    write!(
                        f,
                        "conv2d: the {what} along the {} is 0; it must be at least 1",
                        axis(a)
                    )
                }
            }
            ConvError::ChannelsNotDivisible {
                operand,
                channels,
                groups,
            } => write!(
                f,
                "conv2d: the {operand} has {channels} channels, not a multiple of {groups} groups"
            ),
            ConvError::WeightShape { expected, got } => write!(
                f,
                "conv2d: the weights are {}×{}×{}×{} (O, C/groups, R, S); the input and output \
                 need {}×{}×{}×{}",
                got[0], got[1], got[2], got[3], expected[0], expected[1], expected[2], expected[3]
            ),
            ConvError::KernelTooLarge {
                axis: a,
                kernel,
                dilation,
                input,
                padding,
            } => write!(
                f,
                "conv2d: along the {} the kernel of {kernel} with dilation {dilation} spans \
                 more than the padded input ({input} + 2·{padding})",
                axis(a)
            ),
            ConvError::GroupsMismatch { packed, given } => write!(
                f,
                "conv2d: the prepared weights were packed for {packed} groups; the parameters \
                 have {given} groups"
            ),
            ConvError::OutputShape { expected, got } => write!(
                f,
                "conv2d: the output is {}×{}×{}×{}; the parameters give {}×{}×{}×{} (N, O, OH, OW)",
                got[0], got[1], got[2], got[3], expected[0], expected[1], expected[2], expected[3]
            ),
            ConvError::BiasLength { expected, got } => write!(
                f,
                "conv2d: the bias has {got} elements; the output has {expected} channels"
            ),
            ConvError::Overflow { what } => {
                write!(
                    f,
                    "conv2d: {what} overflows the integers of the computation"
                )
            }
            ConvError::Allocation { elements } => write!(
                f,
                "conv2d: could not allocate a temporary buffer of {elements} elements"
            ),
            ConvError::Layout(e) => write!(f, "conv2d: {e}"),
            ConvError::Gemm(e) => write!(f, "conv2d: {e}"),
        }
    }
}

impl std::error::Error for ConvError {}

impl From<LayoutError> for ConvError {
    fn from(e: LayoutError) -> Self {
        ConvError::Layout(e)
    }
}

impl From<GemmError> for ConvError {
    fn from(e: GemmError) -> Self {
        ConvError::Gemm(e)
    }
}

crate::error::debug_as_sentence!(ConvError {
    NotRank4,
    Zero,
    ChannelsNotDivisible,
    WeightShape,
    KernelTooLarge,
    GroupsMismatch,
    OutputShape,
    BiasLength,
    Overflow,
    Allocation,
    Layout,
    Gemm
});
