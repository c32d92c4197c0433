#!/bin/bash
# Cost of tracing a tight I/O loop: 1,000,000 pwrite calls of 64 bytes on a
# tmpfs file, on one rank. Each configuration runs 5 times; the median
# ns/call is shown (with the spread), the trace size and the recorder's memory
# from the trace's own accounting, and the growth of the process's peak RSS
# over the untraced run.
set -euo pipefail
MPI=${MPI:-mpich}
BB=$(pwd)/build/$MPI/bench
SIOT=$(pwd)/build/$MPI/bin/siot
N=${N:-1000000}
RUNS=${RUNS:-5}
TMP=$(mktemp -d /dev/shm/siot-bench.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

median() { sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.0f", m}'; }
range() { sort -n | awk 'NR==1{lo=$1} {hi=$1} END {printf "%.0f-%.0f", lo, hi}'; }

measure() { # LABEL PROGRAM ENV...
    local label=$1 prog=$2
    shift 2
    local times=() rss=()
    for _ in $(seq "$RUNS"); do
        rm -f "$TMP"/*.siot "$TMP/data"
        read -r t r < <(env "$@" SIOT_TRACE="$TMP/t.siot" "$prog" "$TMP/data" "$N")
        times+=("$t")
        rss+=("$r")
    done
    local med spread rssmed size mem
    med=$(printf '%s\n' "${times[@]}" | median)
    spread=$(printf '%s\n' "${times[@]}" | range)
    rssmed=$(printf '%s\n' "${rss[@]}" | median)
    size=-
    mem=-
    if [ -f "$TMP/t.siot" ]; then
        size=$(stat -c %s "$TMP/t.siot")
        mem=$("$SIOT" dump "$TMP/t.siot" | sed -n 's/.*note recorder_memory_bytes: //p')
    fi
    printf "%-36s %8s %12s %12s %14s %12s\n" "$label" "$med" "$spread" "$size" "$mem" "$rssmed"
    eval "LAST_NS=$med LAST_RSS=$rssmed"
}

echo "== pwrite of 64 bytes to tmpfs, $N calls on one rank, median of $RUNS runs ($MPI flavour)"
printf "%-36s %8s %12s %12s %14s %12s\n" "configuration" "ns/call" "range" "trace B" "recorder B" "maxRSS KiB"
measure "untraced" "$BB/pwrite_loop.plain"
base=$LAST_NS; base_rss=$LAST_RSS
measure "traced, SIOT_COMPRESS=0 (flat)" "$BB/pwrite_loop" SIOT_COMPRESS=0
flat=$LAST_NS
measure "traced, compressed, no stack" "$BB/pwrite_loop" SIOT_STACK_DEPTH=0
nostack=$LAST_NS
measure "traced, compressed (default depth 8)" "$BB/pwrite_loop"
comp=$LAST_NS; comp_rss=$LAST_RSS
measure "traced, compressed, stack depth 16" "$BB/pwrite_loop" SIOT_STACK_DEPTH=16
deep=$LAST_NS
# the untraced binary with the preload library: the exported (interposed)
# entry instead of the --wrap one
measure "preloaded (interposed pwrite)" "$BB/pwrite_loop.plain" LD_PRELOAD="$(pwd)/build/$MPI/lib/libsiotrace.so"
pre=$LAST_NS
echo
echo "added cost per call: flat $((flat - base)) ns, compressed $((comp - base)) ns" \
     "(of which the call-site signature $((comp - nostack)) ns; depth 16: $((deep - nostack)) ns)"
echo "interposed (preloaded) vs wrapped (relinked): $((pre - base)) ns vs $((comp - base)) ns added per call"
echo "peak RSS growth with compressed tracing: $((comp_rss - base_rss)) KiB"
echo "targets: <= 500 ns added per call with the signature, recorder heap < 1 MiB, trace < 16 KiB"
