#!/bin/bash
# SIOT_TOLERANCE on a convergence loop (tests/progs/converge.c: each step a
# CG-like loop of 40..42 MPI_Allreduce, counts derived from the step number,
# then one MPI_File_write_at per rank), 2 ranks: the trace's size lossless
# and with SIOT_TOLERANCE=5 at 10, 100 and 1,000 steps, and at 100 steps
# ioreplay --verify's verdict on each (--no-compute) with the replay's
# MPI_Allreduce calls against the count the program's formula gives.
BENCH_NAME=tolerance
. "$(dirname "$0")/common.sh"
SRC=$(pwd)/tests/progs/converge.c
def() { sed -n "s/^#define $1 \([0-9]*\)\$/\1/p" "$SRC"; }
BASE=$(def BASE) SPREAD=$(def SPREAD) STRIDE=$(def STRIDE)
allreduces() { # STEPS NP: the calls the source makes
    local s n=0
    for ((s = 0; s < $1; s++)); do n=$((n + BASE + (s * STRIDE) % SPREAD)); done
    echo $((n * $2))
}
echo "== convergence loop (40..42 MPI_Allreduce a step, one write), 2 ranks ($MPI flavour)"
printf "%8s %14s %14s %14s\n" steps "lossless B" "tolerance B" "events"
for S in 10 100 1000; do
    (cd "$W" && rm -f converge.dat && SIOT_TRACE=$W/e$S.siot run 2 "$B/bench/converge" "$S" > /dev/null)
    (cd "$W" && rm -f converge.dat && SIOT_TOLERANCE=5 SIOT_TRACE=$W/t$S.siot run 2 "$B/bench/converge" "$S" > /dev/null)
    printf "%8s %14s %14s %14s\n" "$S" "$(python3 tests/py/unpacked_size.py "$W/e$S.siot")" \
        "$(python3 tests/py/unpacked_size.py "$W/t$S.siot")" "$("$SIOT" dump "$W/t$S.siot" | sed -n 's/.*note events_recorded: //p')"
done
echo
echo "== ioreplay --verify --no-compute at 100 steps, 2 ranks (the source makes $(allreduces 100 2) MPI_Allreduce)"
printf "%10s %-14s %12s  %s\n" trace verdict Allreduce "verdict line"
for k in e t; do
    rm -rf "$W/root-$k"
    run 2 "$B/bin/ioreplay" --verify --no-compute --root "$W/root-$k" "$W/${k}100.siot" > "$W/$k.report" || true
    line=$(sed -n 's/^round trip: //p' "$W/$k.report")
    n=$("$SIOT" dump --jsonl "$W/root-$k.siot" | grep -c '"func":"MPI_Allreduce"' || true)
    printf "%10s %-14s %12s  %s\n" "$([ $k = e ] && echo lossless || echo tolerance)" "${line%% *}" "$n" "${line:0:110}"
done
