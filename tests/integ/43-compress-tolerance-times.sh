#!/bin/bash
# SIOT_TOLERANCE on timings (issue 41, item 3; compress/timefold.h):
# tests/progs/findmpiio.c's straggler (4 ranks, S_STEPS collective writes of
# S_BLK bytes, rank SLOW_RANK sleeping SLOW_MS ms before each), traced
# lossless and with SIOT_TOLERANCE=5. Both traces hold the same events and
# the counts the source makes; the lossless one names the rank of each
# histogram's maximum, the approximate one none, and its extremes still
# hold the sleep; siot stats prints no rank for a maximum it does not
# know; siot findings names the sleeping rank either way (from the
# histograms, or from the ranks' own times when the histograms keep no
# rank).
. "$(dirname "$0")/../lib.sh"
build_traced findmpiio
SRC=$ROOT/tests/progs/findmpiio.c
P=4
STEPS=$(c_define S_STEPS "$SRC") SLOW=$(c_define SLOW_RANK "$SRC") MS=$(c_define SLOW_MS "$SRC")
SIOT_TRACE=$WORK/exact.siot mpirun_np $P ./findmpiio straggle > /dev/null || fail "lossless run"
rm -f straggle.dat
SIOT_TOLERANCE=5 SIOT_TRACE=$WORK/tol.siot mpirun_np $P ./findmpiio straggle > /dev/null || fail "SIOT_TOLERANCE=5 run"
"$SIOT" diff exact.siot tol.siot > diff.txt || { cat diff.txt >&2; fail "the approximate trace's events differ from the lossless one's"; }
"$SIOT" dump exact.siot > exact.txt
"$SIOT" dump tol.siot > tol.txt
grep -q "note tolerance: 5" tol.txt || fail "the approximate trace does not say its tolerance: $(grep note tol.txt)"
# the collective writes: one event, S_STEPS x P calls, both forms
for k in exact tol; do
    line=$(grep -m1 "MPI_File_write_at_all(" $k.txt) || fail "$k: no MPI_File_write_at_all"
    n=$(echo "$line" | sed -n 's/.* dur={n=\([0-9]*\) .*/\1/p')
    [ "$n" = $((STEPS * P)) ] || fail "$k: $n collective writes in the duration histogram, the source makes $((STEPS * P)): $line"
    comp=$(echo "$line" | sed -n 's/.* comp={\([^}]*\)}.*/\1/p')
    eval "$k=\"\$comp\""
done
echo "   computation before the collective writes, lossless: {$exact}; SIOT_TOLERANCE=5: {$tol}"
grep -q "max=[^ }]*@r[0-9]" exact.txt || fail "the lossless trace names no rank of a maximum"
if grep -q "@r[0-9-]" tol.txt; then fail "the approximate trace names the rank of a maximum: $(grep -m1 -o 'max=[^ }]*@r[^ }]*' tol.txt)"; fi
# the slow rank's sleeps are the largest computations: the maximum, rounded
# up within 5%, holds at least SLOW_MS ms
max=$(echo "$tol" | sed -n 's/.*max=\([0-9.]*\)ms.*/\1/p')
[ -n "$max" ] && python3 -c "import sys; sys.exit(not float('$max') >= $MS)" ||
    fail "the approximate computation's maximum is not the ${MS} ms sleep: {$tol}"
"$SIOT" stats exact.siot > exact.stats
"$SIOT" stats tol.siot > tol.stats
grep -q "^  MPI_File_write_at_all .* ([0-9]*)$" exact.stats || fail "lossless stats: no rank of the maximum: $(grep write_at_all exact.stats)"
grep -q "^  MPI_File_write_at_all .* (-)$" tol.stats || fail "approximate stats: $(grep write_at_all tol.stats)"
# findings: the straggler is the sleeping rank, in both
for k in exact tol; do
    "$SIOT" findings --json $k.siot > $k.json || fail "siot findings --json $k.siot exited $?"
    rank=$(python3 -c '
import json, sys
for f in json.load(open(sys.argv[1]))["findings"]:
    if f["id"] == "collective-straggler":
        print(f["evidence"]["straggler_rank"])' $k.json)
    [ "$rank" = "$SLOW" ] || fail "$k: collective-straggler names rank '$rank', the source sleeps on rank $SLOW"
done
"$SIOT" findings tol.siot > tol.findings
grep -q "rank $SLOW computes the most over the run" tol.findings || fail "the approximate trace's straggler: $(grep -A1 straggler tol.findings)"
echo "   $(trace_size exact.siot) B lossless, $(trace_size tol.siot) B within 5%"
pass "SIOT_TOLERANCE=5 keeps timings within 5% (the $((STEPS * P)) calls counted, no rank of a maximum), straggler rank $SLOW named from the ranks' own times"
