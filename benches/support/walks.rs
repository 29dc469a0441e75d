//! The loops compared by `benches/offset.rs` and `examples/harness/zero_cost.rs`: the same walk over a
//! 64×64 buffer through a layout, written four ways — the hand-written index expression, a fully
//! static layout (a zero-sized type), a mixed layout (static inner modes, run-time outer modes)
//! and a run-time `DynLayout`.
//!
//! Every walk is a non-generic `#[inline(never)]` function so that its machine code can be found
//! by name (objdump, callgrind) and so that the benchmark measures the loop and nothing around it.
#![allow(dead_code)]

use layout::{DynLayout, Int, Layout};

/// Elements in the 64×64 buffer.
pub const N: usize = 64 * 64;

/// `((8,8),(8,8)):((1,64),(8,512))`: a 64×64 matrix stored as 8×8 tiles, each tile column-major
/// (`r0 + 8·c0`), tiles column-major over the 8×8 grid of tiles (`64·r1 + 512·c1`).
pub type Tiled =
    Layout<((Int<8>, Int<8>), (Int<8>, Int<8>)), ((Int<1>, Int<64>), (Int<8>, Int<512>))>;

/// `(64,64):(64,1)`: a row-major 64×64 matrix.
pub type RowMajor = layout::Layout![(64,64) : RowMajor];

// The macro's types are the hand-written const-generic types.
type TiledByHand =
    Layout<((Int<8>, Int<8>), (Int<8>, Int<8>)), ((Int<1>, Int<64>), (Int<8>, Int<512>))>;
type RowMajorByHand = Layout<(Int<64>, Int<64>), (Int<64>, Int<1>)>;
const _: fn(Tiled) -> TiledByHand = |l| l;
const _: fn(RowMajor) -> RowMajorByHand = |l| l;

/// The tiled layout with static inner modes (extent 8, strides 1 and 8) and run-time outer modes.
pub type TiledMixed = Layout<((Int<8>, i64), (Int<8>, i64)), ((Int<1>, i64), (Int<8>, i64))>;

/// The row-major layout with a static column stride and run-time extents and row stride.
pub type RowMajorMixed = Layout<(i64, i64), (i64, Int<1>)>;

/// The tiled layout, mixed, from run-time values (pass them through `black_box`).
#[inline(always)]
pub fn tiled_mixed(outer_extent: i64, row_tile_stride: i64, col_tile_stride: i64) -> TiledMixed {
    layout::layout!(((8, outer_extent), (8, outer_extent)) : ((1, row_tile_stride), (8, col_tile_stride)))
}

/// The row-major layout, mixed, from run-time values (pass them through `black_box`).
#[inline(always)]
pub fn row_major_mixed(rows: i64, cols: i64, ld: i64) -> RowMajorMixed {
    layout::layout!((rows, cols) : (ld, 1))
}

/// The run-time form of `L` (its associated const; pass it through `black_box` so the compiler
/// cannot see its values).
pub fn dyn_of<L: layout::StaticLayout>() -> DynLayout {
    L::LAYOUT
}

// ---------------------------------------------------------------------------------------------
// Kernel 1: gather-sum by 1-D index, `Σ buf[L(i)]` for i in 0..4096.
// ---------------------------------------------------------------------------------------------

#[inline(always)]
fn sum_by(buf: &[u64], offset: impl Fn(i64) -> i64) -> u64 {
    let mut s = 0u64;
    for i in 0..N as i64 {
        s = s.wrapping_add(buf[offset(i) as usize]);
    }
    s
}

/// Hand-written: the tiled mapping of 1-D index `i` (colexicographic over ((8,8),(8,8))).
#[inline(never)]
pub fn sum_tiled_hand(buf: &[u64]) -> u64 {
    sum_by(buf, |i| {
        i % 8 + (i / 8 % 8) * 64 + (i / 64 % 8) * 8 + (i / 512) * 512
    })
}

/// Through the fully static tiled layout.
#[inline(never)]
pub fn sum_tiled_static(buf: &[u64]) -> u64 {
    let l = Tiled::default();
    sum_by(buf, |i| l.offset(i))
}

/// Through the mixed tiled layout.
#[inline(never)]
pub fn sum_tiled_mixed(l: &TiledMixed, buf: &[u64]) -> u64 {
    sum_by(buf, |i| l.offset(i))
}

/// Through the tiled layout as a run-time `DynLayout`.
#[inline(never)]
pub fn sum_tiled_dyn(l: &DynLayout, buf: &[u64]) -> u64 {
    sum_by(buf, |i| l.offset(i))
}

/// Hand-written: row-major 64×64, 1-D index `i` = row `i % 64`, column `i / 64`.
#[inline(never)]
pub fn sum_row_major_hand(buf: &[u64]) -> u64 {
    sum_by(buf, |i| (i % 64) * 64 + i / 64)
}

/// Through the fully static row-major layout.
#[inline(never)]
pub fn sum_row_major_static(buf: &[u64]) -> u64 {
    let l = RowMajor::default();
    sum_by(buf, |i| l.offset(i))
}

/// Through the mixed row-major layout.
#[inline(never)]
pub fn sum_row_major_mixed(l: &RowMajorMixed, buf: &[u64]) -> u64 {
    sum_by(buf, |i| l.offset(i))
}

/// Through the row-major layout as a run-time `DynLayout`.
#[inline(never)]
pub fn sum_row_major_dyn(l: &DynLayout, buf: &[u64]) -> u64 {
    sum_by(buf, |i| l.offset(i))
}

// ---------------------------------------------------------------------------------------------
// Kernel 2: strided copy by 2-D coordinate, `dst[m + 64·n] = src[L(m, n)]`, n outer, m inner.
// ---------------------------------------------------------------------------------------------

#[inline(always)]
fn copy_by(src: &[u64], dst: &mut [u64], offset: impl Fn(i64, i64) -> i64) {
    for n in 0..64i64 {
        for m in 0..64i64 {
            dst[(m + 64 * n) as usize] = src[offset(m, n) as usize];
        }
    }
}

/// Hand-written: the tiled mapping of row `m`, column `n`.
#[inline(never)]
pub fn copy_tiled_hand(src: &[u64], dst: &mut [u64]) {
    copy_by(src, dst, |m, n| {
        m % 8 + (m / 8) * 64 + (n % 8) * 8 + (n / 8) * 512
    })
}

/// Through the fully static tiled layout.
#[inline(never)]
pub fn copy_tiled_static(src: &[u64], dst: &mut [u64]) {
    let l = Tiled::default();
    copy_by(src, dst, |m, n| l.offset((m, n)))
}

/// Through the mixed tiled layout.
#[inline(never)]
pub fn copy_tiled_mixed(l: &TiledMixed, src: &[u64], dst: &mut [u64]) {
    copy_by(src, dst, |m, n| l.offset((m, n)))
}

/// Through the tiled layout as a run-time `DynLayout` (2-D coordinate = index `m + 64·n`).
#[inline(never)]
pub fn copy_tiled_dyn(l: &DynLayout, src: &[u64], dst: &mut [u64]) {
    copy_by(src, dst, |m, n| l.offset(m + 64 * n))
}

/// Hand-written: row-major, row `m`, column `n`.
#[inline(never)]
pub fn copy_row_major_hand(src: &[u64], dst: &mut [u64]) {
    copy_by(src, dst, |m, n| m * 64 + n)
}

/// Through the fully static row-major layout.
#[inline(never)]
pub fn copy_row_major_static(src: &[u64], dst: &mut [u64]) {
    let l = RowMajor::default();
    copy_by(src, dst, |m, n| l.offset((m, n)))
}

/// Through the mixed row-major layout.
#[inline(never)]
pub fn copy_row_major_mixed(l: &RowMajorMixed, src: &[u64], dst: &mut [u64]) {
    copy_by(src, dst, |m, n| l.offset((m, n)))
}

/// Through the row-major layout as a run-time `DynLayout` (2-D coordinate = index `m + 64·n`).
#[inline(never)]
pub fn copy_row_major_dyn(l: &DynLayout, src: &[u64], dst: &mut [u64]) {
    copy_by(src, dst, |m, n| l.offset(m + 64 * n))
}

// ---------------------------------------------------------------------------------------------
// Kernel 3: gather-sum through an algebra result. `A ∘ B` with A = (64,64):(64,1) (row-major)
// and B = ((8,8),(8,8)):((1,64),(8,512)) (the tiled index map) is
// R = ((8,8),(8,8)):((64,1),(512,8)): index i = (r0,r1,c0,c1) goes to 64·r0 + r1 + 512·c0 + 8·c1.
// ---------------------------------------------------------------------------------------------

/// The composition `RowMajor ∘ Tiled` as a zero-sized static algebra result.
pub type Composed = layout::algebra::statics::Composition<RowMajor, Tiled>;

/// The composition's result written out as a literal static layout.
pub type ComposedLiteral = layout::Layout![((8,8),(8,8)) : ((64,1),(512,8))];

/// Hand-written: the composed mapping of 1-D index `i`.
#[inline(never)]
pub fn sum_composed_hand(buf: &[u64]) -> u64 {
    sum_by(buf, |i| {
        (i % 8) * 64 + (i / 8 % 8) + (i / 64 % 8) * 512 + (i / 512) * 8
    })
}

/// Through the static composition `RowMajor ∘ Tiled` (computed at compile time).
#[inline(never)]
pub fn sum_composed_static(buf: &[u64]) -> u64 {
    let l = layout::algebra::statics::composition(RowMajor::default(), Tiled::default());
    sum_by(buf, |i| l.offset(i))
}

/// Through the literal static layout equal to the composition.
#[inline(never)]
pub fn sum_composed_literal(buf: &[u64]) -> u64 {
    let l = ComposedLiteral::default();
    sum_by(buf, |i| l.offset(i))
}

/// Through the composition computed at run time (`DynLayout::composition`).
#[inline(never)]
pub fn sum_composed_dyn(l: &DynLayout, buf: &[u64]) -> u64 {
    sum_by(buf, |i| l.offset(i))
}

/// A buffer of `N` distinct values (so a wrong mapping changes the sums).
pub fn buffer() -> Vec<u64> {
    (0..N as u64)
        .map(|x| x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 7)
        .collect()
}
