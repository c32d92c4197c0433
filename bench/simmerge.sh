#!/bin/bash
# The job's merge beyond this machine, simulated (docs/scale.md): for each
# program of SIM_PROGS (default: kernel ior-posix ior-mpiio, the examples
# whose I/O depends only on their rank and the size) and each P in SIM_PS
# (default 256 1024 4096 16384 65536), the program is run as single
# processes playing some of the ranks of a P-rank job (SIOT_SIM_RANK,
# SIOT_SIM_SIZE; each keeps its own trace, SIOT_RANK_TRACES): ranks 0 to 3,
# and a spread of others (P/3, P/2+1, P-2, P-1) that simmerge holds against
# the line through ranks 1 and 2 before making every rank not run from them
# (bench/rerank.h). The traces then merge in one process with the job's
# code over the job's reduction tree (bench/simmerge.c): per tree level,
# rank 0's time decoding and merging what it receives, every merge's time,
# the size of rank 0's message and its memory; the final file's size; the
# process's peak memory. The other examples exchange data with their peers
# (ckpt's MPI_Sendrecv, pop's halos, the collective I/O of flash-io and
# btio) or hold values that are not lines in the rank (ior -a hdf5's
# metadata), so one process cannot play one of their ranks: simmerge
# refuses such traces, and they are not run here.
# The ranks run with SIOT_RANK_TIMES=0: a made rank's time totals would be
# rank 1's, identical rows that cost nothing in the file, where a real job's
# differ: the simulated sizes leave them out, and what they add (a summary
# past 16 ranks, bounded) is measured at SIM_CHECK ranks (default 64: every
# rank run and recorded, with and without them) and printed. Then, at SIM_CHECK ranks, the merge with
# ranks made from ranks 1 and 2 must give the same events as the one with
# every rank recorded, and the same bytes of nodes besides the timing
# histograms (siot dump --sizes; a made rank's histograms are rank 1's, not
# its own: their bins differ). A table of the file's size by program and P
# ends the output.
BENCH_NAME=simmerge
. "$(dirname "$0")/common.sh"
SIM_PS=${SIM_PS:-"256 1024 4096 16384 65536"}
SIM_PROGS=${SIM_PROGS:-"kernel ior-posix ior-mpiio"}
SIM_CHECK=${SIM_CHECK:-64}
BB=$B/bench

program() { # NAME: the command line of that program (bench/scale.sh's options)
    case $1 in
    kernel) echo "$BB/kernel" ;;
    ior-posix) echo "$B/examples/ior -a posix -s 4" ;;
    ior-mpiio) echo "$B/examples/ior -a mpiio -s 4" ;;
    *) echo "simmerge.sh: no program $1 (kernel, ior-posix, ior-mpiio)" >&2; return 1 ;;
    esac
}

record() { # P RANK...: PROG as these ranks of a P-rank job, traces in W/rP (RT: with rank times)
    local P=$1 r
    shift
    mkdir -p "$W/run"
    for r in "$@"; do
        rm -rf "$W"/run/* # each rank starts without the files of the one before, as a job starts
        (cd "$W/run" && SIOT_RANK_TIMES=${RT:-0} SIOT_SIM_RANK=$r SIOT_SIM_SIZE=$P \
            SIOT_RANK_TRACES=$W/r$P SIOT_TRACE=$W/run/alone.siot run 1 $CMD > /dev/null)
    done
    rm -rf "$W"/run/*
}

# the nodes' bytes besides their histograms (unpacked)
structure() { "$SIOT" dump --sizes "$1" | sed -n 's/.*of which nodes \([0-9]*\):.*/\1/p; s/.*(of which histograms \([0-9]*\) B.*/\1/p' | paste -sd- | bc; }

table="program $(printf ' %8s' $SIM_PS)"
for PROG in $SIM_PROGS; do
    CMD=$(program "$PROG") || exit 2
    sizes=
    echo "== the merge simulated ($MPI flavour): $PROG's ranks ($CMD), recorded one process each or made from ranks 1 and 2"
    RT=1 record "$SIM_CHECK" $(seq 0 $((SIM_CHECK - 1)))
    "$BB/simmerge" -P "$SIM_CHECK" -o "$W/times.siot" "$W/r$SIM_CHECK" > /dev/null
    rm -rf "$W/r$SIM_CHECK"
    record "$SIM_CHECK" $(seq 0 $((SIM_CHECK - 1)))
    "$BB/simmerge" -P "$SIM_CHECK" -o "$W/all.siot" "$W/r$SIM_CHECK" | tail -1
    rm -rf "$W/few" && mkdir -p "$W/few"
    for r in 0 1 2 3 $((SIM_CHECK - 1)); do cp "$W/r$SIM_CHECK/rank-$(printf %06d $r).siot" "$W/few/"; done
    "$BB/simmerge" -P "$SIM_CHECK" -o "$W/few.siot" "$W/few" | tail -1
    a=$(stat -c %s "$W/all.siot") f=$(stat -c %s "$W/few.siot")
    echo "at $SIM_CHECK ranks: every rank recorded $a B, ranks made $f B: $( "$SIOT" diff "$W/all.siot" "$W/few.siot" > /dev/null && echo "the same events" || echo "DIFFERENT events"), nodes besides histograms $(structure "$W/all.siot") and $(structure "$W/few.siot") B"
    # past 16 ranks a real job keeps a summary of the ranks' times (bounded by
    # the quantities and SIOT_RANK_TIMES=K, not the ranks: docs/format.md, minor 7)
    rt=$(( $(stat -c %s "$W/times.siot") - a ))
    echo "rank times: $(stat -c %s "$W/times.siot") B with them at $SIM_CHECK ranks, $a B without: $rt B (a summary past 16 ranks)"
    rm -rf "$W/r$SIM_CHECK" "$W/few"
    echo
    for P in $SIM_PS; do
        record "$P" 0 1 2 3 $((P / 3)) $((P / 2 + 1)) $((P - 2)) $((P - 1))
        echo "-- $P ranks"
        "$BB/simmerge" -P "$P" -o "$W/sim$P.siot" "$W/r$P"
        sizes+=" $(stat -c %s "$W/sim$P.siot")"
        echo "(rank times left out: a real job adds their summary, about $rt B at $SIM_CHECK ranks and a few bytes more at $P)"
        rm -rf "$W/r$P"
    done
    table+=$'\n'"$(printf '%-9s' "$PROG")$(printf ' %8s' $sizes)"
    echo
done
echo "file bytes by program and simulated ranks (rank times left out):"
echo "$table"
