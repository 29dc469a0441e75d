#!/bin/sh
# oneDNN's matmul and convolution beside layout's (issues 22 and 23): builds benches/compare with
# the `onednn` feature and runs its `onednn` mode, then shows what oneDNN ran (ONEDNN_VERBOSE:
# runtime, ISA, one line per implementation and problem).
#
# Usage: scripts/onednn-compare.sh [all|matmul|conv|threads|verbose] [--rounds R] [--wall]
# Needs Debian's libdnnl-dev (oneDNN 2.x; its libdnnl.so.2 is loaded at run time).
set -eu
cd "$(dirname "$0")/../benches/compare"
if ! ls /usr/lib/*/libdnnl.so.2 >/dev/null 2>&1; then
    echo "libdnnl.so.2 not found: apt-get install libdnnl-dev" >&2
    exit 1
fi
cargo build --release --features onednn >&2
BIN=target/release/layout-compare
WHAT=${1:-all}
[ $# -gt 0 ] && shift
if [ "$WHAT" = verbose ]; then
    # one round of every row with oneDNN's log; the exec lines without their timings, deduplicated
    for mode in matmul conv; do
        ONEDNN_VERBOSE=1 "$BIN" onednn "$mode" --rounds 1 "$@" 2>/dev/null |
            grep '^onednn_verbose' | grep -v ',exec,cpu,reorder,' |
            sed 's/,[0-9.]*$//' | awk '!seen[$0]++'
    done
    exit 0
fi
"$BIN" onednn "$WHAT" "$@"
