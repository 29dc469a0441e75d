#!/usr/bin/env bash
# The static copy's instructions: examples/harness/static_copy.rs copies a static 32 × 32 fp16 tile into
# a static NZ tile by hand, through `copy_from` on the two static layout types, and through
# `copy_from` on the same layouts as run-time `DynLayout`s. Counts, per variant, the machine
# instructions of the function (objdump) and the instructions executed inside it per copy
# (valgrind --tool=callgrind, including what it calls: the run-time planner).
#
# Usage: scripts/count-static-copy.sh [REPS]        (needs valgrind, binutils' objdump/nm)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-1000}
cargo build --release --example static_copy >&2
BIN=target/release/examples/static_copy
"$BIN" >/dev/null # the variants agree (the example asserts it)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
printf '%-8s %9s %9s %14s %10s\n' variant "fn insns" "moves" "Ir (x$REPS)" "Ir/copy"
for v in hand:hand statics:static dyns:dyn; do
    fn=${v%%:*}
    arg=${v##*:}
    read -r addr size < <(nm -S "$BIN" | awk -v f="$fn" '$4 ~ ("copies[0-9]+" f "17h") {print $1, $2; exit}')
    asm=$(objdump -d --no-show-raw-insn "$BIN" --start-address=$((16#$addr)) \
        --stop-address=$((16#$addr + 16#$size)) | grep -E '^\s+[0-9a-f]+:')
    total=$(printf '%s\n' "$asm" | wc -l)
    moves=$(printf '%s\n' "$asm" | grep -cE 'mov(ups|aps|dqu)' || true)
    valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" \
        --toggle-collect="*copies::$fn*" "$BIN" "$REPS" "$arg" >/dev/null 2>"$TMP/cg.err"
    ir=$(awk '/Collected :/ {print $NF}' "$TMP/cg.err")
    printf '%-8s %9d %9d %14d %10.1f\n' "$arg" "$total" "$moves" "$ir" \
        "$(perl -e 'printf "%.1f", $ARGV[0] / $ARGV[1]' "$ir" "$REPS")"
done
echo "fn insns: instructions in the function (objdump; dyn calls the run-time engine);"
echo "moves: vector moves in it; Ir: instructions executed inside the function and its callees."
