#!/bin/sh
# GFLOP/s per CPU-second (perf task-clock) of layout::gemm, matrixmultiply and the register-only
# FMA loop, one process per measurement: on a machine shared with other work, CPU time excludes
# the time this process is descheduled (wall-clock figures are in benches/gemm_compare.rs).
set -e
cargo bench --bench gemm_compare --no-run >/dev/null 2>&1
B=$(ls -t target/release/deps/gemm_compare-* | grep -v '\.d$' | head -1)
gflops() { # flop and task-clock msec from perf's CSV output
    out=$(perf stat -x, -e task-clock "$@" 2>&1)
    fl=$(echo "$out" | grep '^flop' | cut -d' ' -f2)
    ms=$(echo "$out" | grep task-clock | cut -d, -f1)
    python3 -c "print(f'{$fl / ($ms * 1e6):.1f}')"
}
for t in f32 f64; do
    p=$(gflops "$B" solo peak $t 0 300000000)
    echo "$t FMA peak: $p GFLOP/s"
    for n in ${SIZES:-64 256 1024}; do
        reps=$(( 4000000000 / (n * n * n) )); [ $reps -lt 2 ] && reps=2
        for round in 1 2 3; do
            l=$(gflops "$B" solo layout $t $n $reps)
            m=$(gflops "$B" solo mm $t $n $reps)
            echo "$t n=$n round $round: layout $l  matrixmultiply $m  (layout $(python3 -c "print(f'{100*$l/$p:.0f}')") % of peak)"
        done
    done
done
