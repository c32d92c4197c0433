#!/bin/bash
# Compression of real access patterns: the IOR-shaped segments program
# (tests/progs/segments.c: S segments x 64 transfers of lseek + write, then
# read back; and with `after`, a first lseek then write + lseek to the next
# transfer, whose segment edge falls in the middle of the loop's body) at 4
# ranks as S grows, and the part of a trace that grows with
# the ranks by design (each rank's own times, section RANKTIMES) beside the
# rest, for the IOR-like example at 2..64 ranks, and every example at 4,
# 16 and 64 ranks and with 2x and 8x its iterations (issue 17's size
# tables). Sizes are of the trace unpacked (what the folding left; the
# file as written is packed, SIOT_PACK, and its own size is the last
# table's), the sections from `siot dump --sizes`.
# PS, EXAMPLE_PS: other rank counts; ONLY=examples: the last table alone.
BENCH_NAME=compress
. "$(dirname "$0")/common.sh"
rank_times() { "$SIOT" dump --sizes "$1" | sed -n 's/.*rank times \([0-9]*\) .*/\1/p'; }
# the trace's bytes unpacked (the file's own size when it is not packed)
ubytes() {
    local u
    u=$("$SIOT" dump --sizes "$1" | sed -n 's/^  packed (SIOT_PACK): \([0-9]*\) bytes unpacked.*/\1/p')
    echo "${u:-$(stat -c %s "$1")}"
}
if [ "${ONLY:-}" != examples ]; then
    echo "== segments (S x 64 transfers of lseek + write, then read), 4 ranks ($MPI flavour)"
    printf "%8s %12s %12s %12s\n" S "trace B" "packed B" "events"
    for S in 16 256 4096; do
        (cd "$W" && rm -f segments.dat && SIOT_TRACE=$W/s.siot run 4 "$B/bench/segments" "$S" > /dev/null)
        printf "%8s %12s %12s %12s\n" "$S" "$(ubytes "$W/s.siot")" "$(stat -c %s "$W/s.siot")" "$("$SIOT" dump "$W/s.siot" | sed -n 's/.*note events_recorded: //p')"
    done
    echo
    echo "== segments after (a first lseek, then S x 64 of write + lseek to the next transfer), 4 ranks ($MPI flavour)"
    printf "%8s %12s %12s %12s\n" S "trace B" "packed B" "events"
    for S in 16 256 4096; do
        (cd "$W" && rm -f segments.dat && SIOT_TRACE=$W/s.siot run 4 "$B/bench/segments" "$S" after > /dev/null)
        printf "%8s %12s %12s %12s\n" "$S" "$(ubytes "$W/s.siot")" "$(stat -c %s "$W/s.siot")" "$("$SIOT" dump "$W/s.siot" | sed -n 's/.*note events_recorded: //p')"
    done
    echo
    # Values of the rank (issue 17): counts 10 + 5*(rank%3) by residue
    # (tests/progs/rankmod.c) and groups of 4 ranks, colour rank/4 and
    # offsets 7*(rank/4) + 100*(rank%4) by quotient (tests/progs/groups.c).
    echo "== values of the rank: trace B besides the rank times, and besides the histograms too ($MPI flavour)"
    printf "%6s %14s %14s\n" ranks rankmod groups
    for P in ${VALUE_PS:-3 6 12 24 48}; do
        row=$(printf "%6s" "$P")
        for prog in rankmod groups; do
            (cd "$W" && rm -f ./*.dat && SIOT_TRACE=$W/v.siot run "$P" "$B/bench/$prog" > /dev/null) || {
                row="$row $(printf "%14s" failed)"
                continue
            }
            r=$(($(ubytes "$W/v.siot") - $(rank_times "$W/v.siot")))
            h=$("$SIOT" dump --sizes "$W/v.siot" | sed -n 's/.*(of which histograms \([0-9]*\) B.*/\1/p')
            row="$row $(printf "%14s" "$r / $((r - h))")"
        done
        echo "$row"
    done
    echo
    echo "== IOR-like example, POSIX, 8 segments: per-rank times against the rest ($MPI flavour)"
    printf "%6s %12s %16s %12s\n" ranks "trace B" "rank times B" "rest B"
    for P in ${PS:-2 4 16 64}; do
        (cd "$W" && rm -f ior.dat && SIOT_TRACE=$W/i.siot run "$P" "$B/examples/ior" -a posix -s 8 > /dev/null)
        c=$(ubytes "$W/i.siot")
        r=$(rank_times "$W/i.siot")
        printf "%6s %12s %16s %12s\n" "$P" "$c" "$r" "$((c - r))"
    done
    echo
fi
# Every example (examples/README.md) at 4, 16 and 64 ranks, and at 4 ranks
# with 2x and 8x its iterations (steps, segments, blocks): the trace's
# bytes besides the per-rank times, which grow with the ranks by design.
# A trace that folds keeps each row within a few percent. EXAMPLES=dir
# measures another build's examples (e.g. a copy of main's).
E=${EXAMPLES:-$B/examples}
rest() { echo $(($(ubytes "$1") - $(rank_times "$1"))); }
hists() { "$SIOT" dump --sizes "$1" | sed -n 's/.*(of which histograms \([0-9]*\) B.*/\1/p'; }
example_bytes() { # P ARGS...: the trace's bytes besides the rank times, besides the histograms too, and the packed file
    local np=$1
    shift
    (cd "$W" && rm -f ./*.dat ./*.out ./*_00* ./*.nc ./*.txt && SIOT_TRACE=$W/e.siot run "$np" "$@" > /dev/null) || {
        echo failed:failed:failed
        return
    }
    local r
    r=$(rest "$W/e.siot")
    echo "$r:$((r - $(hists "$W/e.siot"))):$(stat -c %s "$W/e.siot")"
}
RUNS="${EXAMPLE_PS:-4 16 64} 4x2 4x8" # P, or P x the iterations
head=$(printf "%-10s" example)
for run in $RUNS; do head="$head $(printf "%8s" "$run")"; done
# name | program | arguments | iteration option | its 1x value
cases=(
    "ckpt|ckpt|2 2 4096|-|6"
    "ior-posix|ior|-a posix|-s|4"
    "ior-mpiio|ior|-a mpiio -c|-s|4"
    "flash-io|flash-io|-z 4|-n|2"
    "pop|pop|-k 2 -g 32|-s|3"
    "btio|btio|-n 16|-s|3"
)
# The timing histograms (two an event) hold more bins and larger counts
# as the samples grow with the ranks and iterations; the second table
# leaves them out: what is left is the structure, values and call sites.
all=() structure=() packed=()
for c in "${cases[@]}"; do
    IFS='|' read -r name prog args opt n <<< "$c"
    line=$(printf "%-10s" "$name") sline=$line pline=$line
    for run in $RUNS; do
        P=${run%x*} k=1
        [ "$run" != "$P" ] && k=${run#*x}
        # ckpt takes its steps as its first argument
        if [ "$opt" = - ]; then a="$((n * k)) $args"; else a="$args $opt $((n * k))"; fi
        # shellcheck disable=SC2086
        both=$(example_bytes "$P" "$E/$prog" $a)
        IFS=: read -r b_all b_structure b_packed <<< "$both"
        line="$line $(printf "%8s" "$b_all")" sline="$sline $(printf "%8s" "$b_structure")"
        pline="$pline $(printf "%8s" "$b_packed")"
    done
    all+=("$line") structure+=("$sline") packed+=("$pline")
done
echo "== examples: trace B besides rank times ($MPI flavour); x2, x8: iterations at 4 ranks"
echo "$head"
printf "%s\n" "${all[@]}"
echo
echo "== examples: the same, besides the timing histograms too"
echo "$head"
printf "%s\n" "${structure[@]}"
echo
echo "== examples: the file as written, packed (SIOT_PACK; rank times included)"
echo "$head"
printf "%s\n" "${packed[@]}"
echo
# What the last passes cost at MPI_Finalize (SIOT_VERBOSE): rank 0's own
# final pass (compress/renest.h) and the job's residues and ranges
# (compress/rankfold.h), against the whole of it (note finalize_seconds:
# the passes, the merge of ranks and the encoding).
P=${FINALIZE_P:-16}
echo "== last passes at MPI_Finalize, $P ranks ($MPI flavour): ms"
printf "%-10s %10s %10s %12s\n" example renest residues finalize
for c in "${cases[@]}"; do
    IFS='|' read -r name prog args opt n <<< "$c"
    if [ "$opt" = - ]; then a="$n $args"; else a="$args $opt $n"; fi
    # shellcheck disable=SC2086
    (cd "$W" && rm -f ./*.dat ./*.out ./*_00* ./*.nc ./*.txt &&
        SIOT_VERBOSE=1 SIOT_TRACE=$W/e.siot run "$P" "$E/$prog" $a > /dev/null 2> "$W/verbose.err") || continue
    passes=$(sed -n "s/.*final pass \([0-9.]*\) ms, the job's residues and ranges \([0-9.]*\) ms/\1 \2/p" "$W/verbose.err")
    fin=$("$SIOT" dump "$W/e.siot" | sed -n 's/.*note finalize_seconds: //p')
    # shellcheck disable=SC2086
    printf "%-10s %10s %10s %12s\n" "$name" ${passes:-? ?} "$(awk -v s="$fin" 'BEGIN { printf "%.1f", s * 1000 }')"
done
