#!/usr/bin/env bash
# Print the criterion medians of `cargo bench --bench offset` (from target/criterion) as a table,
# with each variant's ratio to the hand-written loop of the same kernel. For sum_composed the
# `mixed` column is the literal static layout equal to the composition.
#
# Usage:
#   cargo bench --bench offset && scripts/bench-summary.sh          # the last run
#   for r in r1 r2 r3; do cargo bench --bench offset -- --save-baseline $r; done
#   scripts/bench-summary.sh r1 r2 r3     # per bench, the smallest of the runs' medians
#
# On a shared machine the smallest median over several runs is the least disturbed estimate
# (load only ever adds time).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=target/criterion
RUNS=("$@")
[ ${#RUNS[@]} -eq 0 ] && RUNS=(new)
median() {
    local best="" m r
    for r in "${RUNS[@]}"; do
        m=$(perl -0ne 'print $1 if /"median":\{"confidence_interval":\{[^}]*\},"point_estimate":([-0-9.e+]+)/' \
            "$DIR/$1/$2/$r/estimates.json")
        best=$(perl -e 'my ($a, $b) = @ARGV; print(($a eq "" || $b < $a) ? $b : $a)' "$best" "$m")
    done
    echo "$best"
}
printf '%-16s %11s %11s %11s %11s %12s %12s %12s\n' kernel "hand µs" "static µs" "mixed µs" "dyn µs" \
    static/hand mixed/hand dyn/hand
for k in sum_tiled sum_row_major copy_tiled copy_row_major sum_composed; do
    third=mixed
    [ "$k" = sum_composed ] && third=literal
    h=$(median "$k" hand); s=$(median "$k" static); m=$(median "$k" "$third"); d=$(median "$k" dyn)
    perl -e 'my ($k, $h, $s, $m, $d) = @ARGV;
             printf "%-16s %11.3f %11.3f %11.3f %11.3f %12.4f %12.4f %12.4f\n",
                    $k, $h / 1e3, $s / 1e3, $m / 1e3, $d / 1e3, $s / $h, $m / $h, $d / $h' \
        "$k" "$h" "$s" "$m" "$d"
done
