//! `layout-calc`: a layout calculator, like pycute in a notebook.
//!
//! Reads one expression per line from standard input and writes exactly one line per non-empty
//! input line (`print_layout` writes its table and then one empty line). A bad line gives
//! `error: <reason>` and the calculator goes on; it exits 0 at the end of the input.
//!
//! ```text
//! $ echo 'composition((6,2):(8,2), (4,3):(3,1))' | cargo run --release --bin layout-calc
//! ((2,2),3):((24,2),8)
//! ```
//!
//! # Grammar
//!
//! - layout: CuTe text `shape:stride` with nested tuples, `_N` accepted (`(_8,_64):(_64,_1)`);
//!   a bare shape `(4,8)` is compact column-major `(4,8):(1,4)`; a bare integer `N` is `N:1`;
//!   `Sw<B,M,S> o L` and `Sw<B,M,S> o K o L` are swizzled layouts (`c ↦ Sw(K + L(c))`).
//! - tiler: `[t0,t1,…]` (by mode), each element a layout, an integer `N` (`N:1`) or `_` (keep the
//!   mode); a layout with a stride, e.g. `(4,8):(1,4)`, or an integer `N` (`N:1`) is a 1-D tiler.
//!   A bare shape `(4,8)` is refused as a tiler (CuTe reads it by mode, as a layout it is 1-D):
//!   write `[4,8]` for CuTe's shape tiler `Shape<_4,_8>` or `(4,8):(1,4)` for the 1-D layout —
//!   the same rule as `layout!`, from layout-core's table of operations.
//! - coordinate: an integer, or a tuple of integers and `_`.
//! - functions: `size`, `cosize`, `rank`, `depth`, `offsets`, `eval(L, crd)`, `idx2crd(i, shape)`,
//!   `crd2idx(crd, shape)`, `coalesce(L[, profile])`, `filter`, `filter_zeros`,
//!   `composition(A, B)`, `complement(L[, cotarget])`, `right_inverse`, `left_inverse`,
//!   `logical_divide(L, T)`, `zipped_divide`, `tiled_divide`, `flat_divide`, `logical_product(L, T)`,
//!   `zipped_product`, `tiled_product`, `flat_product`, `blocked_product(A, B)`,
//!   `raked_product(A, B)`, `slice(L, crd)`, `dice(L, crd)`, `slice_and_offset(L, crd)` (prints
//!   `LAYOUT + OFFSET`), `max_common_layout(A, B)`, `max_common_vector(A, B)`, `nullspace(L)`,
//!   `upcast(L, N)`, `downcast(L, N)`, `swizzle(B, M, S, x)`, `print_layout(L)`. Calls nest:
//!   `size(composition(A, B))`.
//! - named layouts (from the same table as `layout!`): `NZ<T>(m, n)`, `ZN<T>(m, n)`, `ZZ<T>(m, n)`
//!   (plus the two outer strides: `NZ<f16>(m, n, row1, col1)`, alignment checked) with `T` one of
//!   f32, i32, u32, f16, bf16, i16, u16, i8, u8, U4; `NN(m, n)`, `L0C(m, n)`, `ND(m, n[, ld])`,
//!   `DN(m, n[, ld])`, `NC1HWC0<T>(n, c, h, w)`, `nChw{B}c(n, c, h, w)` (any B),
//!   `OIhw{Bi}i{Bo}o(o, i, h, w)`, `RowMajorInterleaved<I>(r, c[, ld])`,
//!   `ColumnMajorInterleaved<I>(r, c[, ld])`; or the entries by name, `nz_layout(C0, m, n)` & co.
//! - banks and pictures: `bank_conflicts(L, bytes[, vector])` (worst row-wise and column-wise
//!   ways on 32 banks × 4 bytes, vectors of 16 bytes unless given), `suggest_swizzle(L, bytes[,
//!   vector])` (the smallest `Sw<B,M,S>` that removes them), `svg(L)` and `latex(L)` (a picture
//!   of a rank-≤2 layout, then one empty line, like `print_layout`).
//! - F2-linear layouts `{in:[bases],…} -> {out:size,…}` and layouts with PyCuTe's F2 strides
//!   `(8,8):(F1,F9)` (see `layout::f2`); an F2 text has commas, so these functions take
//!   their arguments separated by `;`: `f2_apply(L; c0,c1)`, `f2_compose(A; B)` (A ∘ B),
//!   `f2_invert(L)`, `f2_left_inverse(L)`, `f2_right_inverse(L)`, `f2_complement(L)`,
//!   `f2_rank(L)`, `f2_injective(L)`, `f2_surjective(L)`, `f2_vector_width(L; dim)`,
//!   `f2_direct_sum(A; B)`, `f2_swizzle(B,M,S; bits)`, `f2_from_layout(L)`, `f2_offsets(L)`,
//!   `f2_svg(L)`; `mixed(M)`, `mixed_offsets(M)`, `mixed_to_f2(M)`, `mixed_compose(M; F)`
//!   (M ∘ F), `mixed_after(F; M)` (F ∘ M), `mixed_right_inverse(M)`, `mixed_left_inverse(M)`,
//!   `mixed_complement(M; cotarget)`, `mixed_swizzled(L; B,M,S)` (L ∘ Sw). A layout with F2
//!   strides also works on its own line (printed back) and in `size`, `cosize`, `offsets`,
//!   `eval(M, i)`, `coalesce`, `composition(M, B)`, `right_inverse`, `left_inverse` (PyCuTe's,
//!   as layouts) and `complement(M, N)` with their usual commas.
//! - results print in CuTe's text for run-time values: no `_`, no spaces.
//!
//! `eval`, `idx2crd` and `crd2idx` check that the coordinate or index lies in the domain;
//! `offsets` and `print_layout` refuse layouts of more than 65536 elements.
//!
//! The engine lives in `src/bin/layout_calc/`: `parse` (a line split into calls and value texts;
//! the values are read by layout-core's `FromStr`), `eval` (terms to values, the basic functions),
//! `algebra` (the algebra functions, through `layout::algebra::ops`).

mod layout_calc;

use std::io::{self, BufRead, Write};

fn main() {
    // Panics are bugs, but a bug must not end the session: report it on the line and go on.
    std::panic::set_hook(Box::new(|_| {}));
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = io::BufWriter::new(stdout.lock());
    let mut raw = Vec::new();
    loop {
        raw.clear();
        match input.read_until(b'\n', &mut raw) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) => {
                // unreadable input: say so on stderr and end normally
                let _ = writeln!(io::stderr(), "layout-calc: cannot read input: {e}");
                break;
            }
        }
        let text = String::from_utf8_lossy(&raw);
        let line = text.trim_end_matches(['\n', '\r']);
        if line.trim().is_empty() {
            continue;
        }
        let result = std::panic::catch_unwind(|| layout_calc::run_line(line))
            .unwrap_or_else(|_| "error: internal error (a bug in layout-calc)".to_string());
        // A closed output (e.g. `| head`) ends the session quietly.
        if writeln!(out, "{result}")
            .and_then(|()| out.flush())
            .is_err()
        {
            break;
        }
    }
    let _ = out.flush();
}
