#!/bin/bash
# The job's merge beyond this machine, simulated (docs/scale.md): for each
# P in SIM_PS (default 1024 4096 16384 65536), the small SPMD kernel
# (tests/progs/kernel.c) is run as single processes playing some of the ranks
# of a P-rank job (SIOT_SIM_RANK, SIOT_SIM_SIZE; each keeps its own trace,
# SIOT_RANK_TRACES): ranks 0 to 3, and a spread of others (P/3, P/2+1,
# P-2, P-1) that simmerge holds against the line through ranks 1 and 2
# before making every rank not run from them (bench/rerank.h). The traces
# then merge in one process with the job's code over the job's reduction
# tree (bench/simmerge.c): per tree level, rank 0's time decoding and
# merging what it receives, every merge's time, the size of rank 0's
# message and its memory; the final file's size; the process's peak memory.
# The ranks run with SIOT_RANK_TIMES=0: a made rank's time totals would be
# rank 1's, identical rows that cost nothing in the file, where a real job's
# differ: the simulated sizes leave them out, and what they add (a summary
# past 16 ranks, bounded) is measured at SIM_CHECK ranks (default 64: every
# rank run and recorded, with and without them) and printed. Then, at SIM_CHECK ranks, the merge with
# ranks made from ranks 1 and 2 must give the same events as the one with
# every rank recorded, and the same bytes of nodes besides the timing
# histograms (siot dump --sizes; a made rank's histograms are rank 1's, not
# its own: their bins differ).
BENCH_NAME=simmerge
. "$(dirname "$0")/common.sh"
SIM_PS=${SIM_PS:-"1024 4096 16384 65536"}
SIM_CHECK=${SIM_CHECK:-64}
BB=$B/bench

record() { # P RANK...: the kernel as these ranks of a P-rank job, traces in W/rP (RT: with rank times)
    local P=$1 r
    shift
    mkdir -p "$W/run"
    for r in "$@"; do
        (cd "$W/run" && rm -f kernel.dat && SIOT_RANK_TIMES=${RT:-0} SIOT_SIM_RANK=$r SIOT_SIM_SIZE=$P \
            SIOT_RANK_TRACES=$W/r$P SIOT_TRACE=$W/run/alone.siot run 1 "$BB/kernel" > /dev/null)
    done
    rm -f "$W"/run/*
}

echo "== the merge simulated ($MPI flavour): the kernel's ranks, recorded one process each or made from ranks 1 and 2"
RT=1 record "$SIM_CHECK" $(seq 0 $((SIM_CHECK - 1)))
"$BB/simmerge" -P "$SIM_CHECK" -o "$W/times.siot" "$W/r$SIM_CHECK" > /dev/null
rm -rf "$W/r$SIM_CHECK"
record "$SIM_CHECK" $(seq 0 $((SIM_CHECK - 1)))
"$BB/simmerge" -P "$SIM_CHECK" -o "$W/all.siot" "$W/r$SIM_CHECK" | tail -1
mkdir -p "$W/few"
for r in 0 1 2 3 $((SIM_CHECK - 1)); do cp "$W/r$SIM_CHECK/rank-$(printf %06d $r).siot" "$W/few/"; done
"$BB/simmerge" -P "$SIM_CHECK" -o "$W/few.siot" "$W/few" | tail -1
# the nodes' bytes besides their histograms (unpacked)
structure() { "$SIOT" dump --sizes "$1" | sed -n 's/.*of which nodes \([0-9]*\):.*/\1/p; s/.*(of which histograms \([0-9]*\) B.*/\1/p' | paste -sd- | bc; }
a=$(stat -c %s "$W/all.siot") f=$(stat -c %s "$W/few.siot")
echo "at $SIM_CHECK ranks: every rank recorded $a B, ranks made $f B: $( "$SIOT" diff "$W/all.siot" "$W/few.siot" > /dev/null && echo "the same events" || echo "DIFFERENT events"), nodes besides histograms $(structure "$W/all.siot") and $(structure "$W/few.siot") B"
# past 16 ranks a real job keeps a summary of the ranks' times (bounded by
# the quantities and SIOT_RANK_TIMES=K, not the ranks: docs/format.md, minor 7)
rt=$(( $(stat -c %s "$W/times.siot") - a ))
echo "rank times: $(stat -c %s "$W/times.siot") B with them at $SIM_CHECK ranks, $a B without: $rt B (a summary past 16 ranks)"
echo
for P in $SIM_PS; do
    record "$P" 0 1 2 3 $((P / 3)) $((P / 2 + 1)) $((P - 2)) $((P - 1))
    echo "-- $P ranks"
    "$BB/simmerge" -P "$P" -o "$W/sim$P.siot" "$W/r$P"
    echo "(rank times left out: a real job adds their summary, about $rt B at $SIM_CHECK ranks and a few bytes more at $P)"
    rm -rf "$W/r$P"
done
