#!/usr/bin/env bash
# Zero cost, part three: count the machine instructions of each loop in
# benches/support/walks.rs — statically (objdump: instructions in the function and in its
# innermost loop) and dynamically (valgrind --tool=callgrind: instructions executed inside the
# function, per element walked). A fully static layout should match the hand-written loop.
#
# Usage: scripts/count-instructions.sh [REPS]        (needs valgrind, binutils' objdump/nm, perl)
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-100}
ELEMS=$((64 * 64))

cargo build --release --example zero_cost >&2
BIN=target/release/examples/zero_cost
"$BIN" 1 >/dev/null # the variants agree (the example asserts it)

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# instructions of the function, and of its innermost loop (the shortest backward jump)
static_counts() {
    # by address range: identical functions may be folded into one body with two names
    local addr size
    read -r addr size < <(nm -S "$BIN" | awk -v f="$1" '$4 ~ ("walks[0-9]+" f "17h") {print $1, $2; exit}')
    objdump -d --no-show-raw-insn "$BIN" --start-address=$((16#$addr)) \
        --stop-address=$((16#$addr + 16#$size)) | perl -ne '
        next unless /^\s+([0-9a-f]+):\s+(\S+)\s*(\S*)/;
        my ($addr, $op, $arg) = (hex $1, $2, $3);
        push @a, $addr;
        if ($op =~ /^j/ && $arg =~ /^[0-9a-f]+$/) {
            my $t = hex $arg;
            if ($t <= $addr && (!defined $best || $addr - $t < $best)) { ($best, $lo, $hi) = ($addr - $t, $t, $addr) }
        }
        END { my $loop = grep { defined $lo && $_ >= $lo && $_ <= $hi } @a; printf "%d %d\n", scalar @a, $loop }'
}

dynamic_count() {
    valgrind --tool=callgrind --callgrind-out-file="$TMP/cg.out" \
        --toggle-collect='*walks::*' "$BIN" "$REPS" "$1" >/dev/null 2>"$TMP/cg.err"
    awk '/Collected :/ {print $NF}' "$TMP/cg.err"
}

printf '%-22s %9s %10s %14s %12s\n' "loop" "fn insns" "loop insns" "Ir (x$REPS)" "Ir/element"
for kernel in sum_tiled sum_row_major copy_tiled copy_row_major sum_composed; do
    variants="hand static mixed dyn"
    [ "$kernel" = sum_composed ] && variants="hand static literal dyn"
    for variant in $variants; do
        name="${kernel}_${variant}"
        read -r total loop < <(static_counts "$name")
        ir=$(dynamic_count "$name")
        printf '%-22s %9d %10d %14d %12.2f\n' "$name" "$total" "$loop" "$ir" \
            "$(perl -e 'printf "%.4f", $ARGV[0] / ($ARGV[1] * $ARGV[2])' "$ir" "$REPS" "$ELEMS")"
    done
done
echo "fn insns: instructions in the function (objdump); loop insns: in its innermost loop;"
echo "Ir: instructions executed inside the function over $REPS walks of $ELEMS elements (callgrind)."
