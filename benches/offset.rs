//! Zero cost, part two: the same walk over a 64×64 buffer through a fully static layout, the
//! hand-written index expression, a mixed layout (static inner modes, run-time outer modes) and a
//! run-time `DynLayout`. See BENCHMARKS.md for results and how to read them.
//!
//! `black_box` hides the buffer (so the loads happen) and the values of the run-time layouts (so
//! the compiler cannot fold them into constants); the static layout is a zero-sized value whose
//! constants live in its type, visible to the compiler as intended.
//!
//! ```text
//! cargo bench --bench offset
//! ```

#[path = "support/walks.rs"]
mod walks;

use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;
use walks::*;

fn gather_sum(c: &mut Criterion) {
    let buf = buffer();
    let tiled_dyn = black_box(dyn_of::<Tiled>());
    let row_dyn = black_box(dyn_of::<RowMajor>());
    let tiled_mixed = tiled_mixed(black_box(8), black_box(64), black_box(512));
    let row_mixed = row_major_mixed(black_box(64), black_box(64), black_box(64));

    let mut g = c.benchmark_group("sum_tiled");
    g.bench_function("hand", |b| b.iter(|| sum_tiled_hand(black_box(&buf))));
    g.bench_function("static", |b| b.iter(|| sum_tiled_static(black_box(&buf))));
    g.bench_function("mixed", |b| {
        b.iter(|| sum_tiled_mixed(black_box(&tiled_mixed), black_box(&buf)))
    });
    g.bench_function("dyn", |b| {
        b.iter(|| sum_tiled_dyn(black_box(&tiled_dyn), black_box(&buf)))
    });
    g.finish();

    let mut g = c.benchmark_group("sum_row_major");
    g.bench_function("hand", |b| b.iter(|| sum_row_major_hand(black_box(&buf))));
    g.bench_function("static", |b| {
        b.iter(|| sum_row_major_static(black_box(&buf)))
    });
    g.bench_function("mixed", |b| {
        b.iter(|| sum_row_major_mixed(black_box(&row_mixed), black_box(&buf)))
    });
    g.bench_function("dyn", |b| {
        b.iter(|| sum_row_major_dyn(black_box(&row_dyn), black_box(&buf)))
    });
    g.finish();
}

fn strided_copy(c: &mut Criterion) {
    let src = buffer();
    let mut dst = vec![0u64; N];
    let tiled_dyn = black_box(dyn_of::<Tiled>());
    let row_dyn = black_box(dyn_of::<RowMajor>());
    let tiled_mixed = tiled_mixed(black_box(8), black_box(64), black_box(512));
    let row_mixed = row_major_mixed(black_box(64), black_box(64), black_box(64));

    let mut g = c.benchmark_group("copy_tiled");
    g.bench_function("hand", |b| {
        b.iter(|| copy_tiled_hand(black_box(&src), black_box(&mut dst)))
    });
    g.bench_function("static", |b| {
        b.iter(|| copy_tiled_static(black_box(&src), black_box(&mut dst)))
    });
    g.bench_function("mixed", |b| {
        b.iter(|| {
            copy_tiled_mixed(
                black_box(&tiled_mixed),
                black_box(&src),
                black_box(&mut dst),
            )
        })
    });
    g.bench_function("dyn", |b| {
        b.iter(|| copy_tiled_dyn(black_box(&tiled_dyn), black_box(&src), black_box(&mut dst)))
    });
    g.finish();

    let mut g = c.benchmark_group("copy_row_major");
    g.bench_function("hand", |b| {
        b.iter(|| copy_row_major_hand(black_box(&src), black_box(&mut dst)))
    });
    g.bench_function("static", |b| {
        b.iter(|| copy_row_major_static(black_box(&src), black_box(&mut dst)))
    });
    g.bench_function("mixed", |b| {
        b.iter(|| copy_row_major_mixed(black_box(&row_mixed), black_box(&src), black_box(&mut dst)))
    });
    g.bench_function("dyn", |b| {
        b.iter(|| copy_row_major_dyn(black_box(&row_dyn), black_box(&src), black_box(&mut dst)))
    });
    g.finish();
}

/// The composition `(64,64):(64,1) ∘ ((8,8),(8,8)):((1,64),(8,512))`: as a static algebra result,
/// as the literal static layout it equals, by hand, and computed at run time.
fn composed(c: &mut Criterion) {
    let buf = buffer();
    let composed_dyn = black_box(
        dyn_of::<RowMajor>()
            .composition(&dyn_of::<Tiled>())
            .expect("row-major ∘ tiled is admissible"),
    );
    let mut g = c.benchmark_group("sum_composed");
    g.bench_function("hand", |b| b.iter(|| sum_composed_hand(black_box(&buf))));
    g.bench_function("static", |b| {
        b.iter(|| sum_composed_static(black_box(&buf)))
    });
    g.bench_function("literal", |b| {
        b.iter(|| sum_composed_literal(black_box(&buf)))
    });
    g.bench_function("dyn", |b| {
        b.iter(|| sum_composed_dyn(black_box(&composed_dyn), black_box(&buf)))
    });
    g.finish();
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(60)
}

criterion_group! { name = benches; config = config(); targets = gather_sum, strided_copy, composed }
criterion_main!(benches);
