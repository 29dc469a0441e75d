//! The words of a GEMM call: strided operands ([`MatRef`], [`MatMut`]) and how a call runs
//! ([`Options`], [`Packing`]).

use crate::isa::Isa;

/// A read-only strided matrix: element (i, j) is `data[o + i·row_stride + j·col_stride]`, where
/// `o` is chosen so the lowest address the matrix touches is `data[0]` (with non-negative strides
/// `o = 0`). Strides are in elements, of any sign; zero broadcasts.
#[derive(Clone, Copy, Debug)]
pub struct MatRef<'a, T> {
    /// The elements.
    pub data: &'a [T],
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Distance between consecutive rows, in elements.
    pub row_stride: isize,
    /// Distance between consecutive columns, in elements.
    pub col_stride: isize,
}

/// A mutable strided matrix, addressed as [`MatRef`]; no two elements may share a location.
#[derive(Debug)]
pub struct MatMut<'a, T> {
    /// The elements.
    pub data: &'a mut [T],
    /// Number of rows.
    pub rows: usize,
    /// Number of columns.
    pub cols: usize,
    /// Distance between consecutive rows, in elements.
    pub row_stride: isize,
    /// Distance between consecutive columns, in elements.
    pub col_stride: isize,
}

/// How a GEMM call runs: the instruction set and the number of threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// The kernels to use.
    pub isa: Isa,
    /// Threads (rayon's pool with the default feature `rayon`, else scoped threads started per
    /// call); 0 and 1 mean the calling thread only. Threads split C's rows (or columns, whichever is longer) at multiples of the
    /// tile, never k, so the result does not depend on the number of threads. Problems of at
    /// most [`PARALLEL_MIN_WORK`] multiply-adds run on the calling thread with
    /// [`Packing::Auto`] (starting a thread costs more than it saves there).
    pub threads: usize,
    /// Whether small problems may skip packing ([`Packing::Auto`], the default) or every call
    /// packs ([`Packing::Always`]: the blocked path on its own, for tests and measurements).
    pub packing: Packing,
}

/// Whether a call may take the unpacked path for small problems.
///
/// With [`Packing::Auto`], an `f32`/`f64` call on AVX-512 or AVX2 whose A has unit-stride rows
/// (or, for a row-major C, whose B has unit-stride columns) and whose `m × 256` block of A fits
/// the kernel set's share of L2 (AVX-512: 512 KiB; AVX2: 128 KiB) runs kernels that read A and
/// B in place (no packing buffers, masked edges); everything else packs. Both paths give the
/// same results on integer-valued data; they may differ in the last bits otherwise (the blocked
/// path sums k in blocks of KC).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Packing {
    /// Skip packing where it costs more than it saves.
    #[default]
    Auto,
    /// Always pack (the BLIS loop nest), on the threads asked for whatever the size.
    Always,
    /// Take the unpacked kernels whenever the strides allow (whatever the size, on the threads
    /// asked for whatever the size); pack only where they do not apply. For tests and
    /// measurements.
    Never,
}

impl Default for Options {
    /// [`Isa::selected_for_gemm`], one thread.
    fn default() -> Self {
        Options {
            isa: Isa::selected_for_gemm(),
            threads: 1,
            packing: Packing::Auto,
        }
    }
}

impl From<Isa> for Options {
    /// `isa`, one thread.
    fn from(isa: Isa) -> Self {
        Options {
            isa,
            threads: 1,
            packing: Packing::Auto,
        }
    }
}

/// The smallest `m·n·k` that runs on several threads (320³). Measured on two Zen 5 cores: at
/// 256³ two threads (each call starting its threads) reached 0.64 of one thread's speed, at
/// 512³ 1.5×.
pub const PARALLEL_MIN_WORK: usize = 320 * 320 * 320;
