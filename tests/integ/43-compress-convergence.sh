#!/bin/bash
# SIOT_TOLERANCE on a convergence loop and on polls (issue 41, item 3).
# tests/progs/converge.c: each step a CG-like loop of ITERS(step) =
# BASE + (step*STRIDE) % SPREAD MPI_Allreduce (about 5% apart), then one
# MPI_File_write_at of CHUNK bytes per rank. Lossless, the trace is the
# same events as SIOT_COMPRESS=0's and grows with the steps; with
# SIOT_TOLERANCE=5 it does not grow, says it is approximate, and its replay
# is verified "approximate" with totals within 5% of what the source makes
# (the lossless trace's replay stays "faithful").
# tests/progs/polls.c: MPI_Test polled until a message a sleeping rank
# sends arrives: the number of polls is the machine's; with a tolerance
# they fold into one loop whatever their count.
. "$(dirname "$0")/../lib.sh"
NP=2
build_traced converge
SRC=$ROOT/tests/progs/converge.c
BASE=$(c_define BASE "$SRC") SPREAD=$(c_define SPREAD "$SRC") STRIDE=$(c_define STRIDE "$SRC")
CHUNK=$(c_define CHUNK "$SRC")
allreduces() { # STEPS: the calls the source makes on all ranks
    local s n=0
    for ((s = 0; s < $1; s++)); do n=$((n + BASE + (s * STRIDE) % SPREAD)); done
    echo $((n * NP))
}
within5() { [ $(($1 * 100)) -le $(($2 * 105)) ] && [ $(($2 * 100)) -le $(($1 * 105)) ]; }
for s in 10 200; do
    SIOT_TRACE=$PWD/exact$s.siot mpirun_np $NP ./converge $s || fail "lossless run"
    SIOT_TOLERANCE=5 SIOT_TRACE=$PWD/tol$s.siot mpirun_np $NP ./converge $s || fail "tolerance run"
done
SIOT_COMPRESS=0 SIOT_TRACE=$PWD/raw200.siot mpirun_np $NP ./converge 200 || fail "uncompressed run"
"$SIOT" diff exact200.siot raw200.siot > diff.txt || { cat diff.txt >&2; fail "the lossless trace differs from SIOT_COMPRESS=0's"; }
e1=$(trace_size exact10.siot) e2=$(trace_size exact200.siot) t1=$(trace_size tol10.siot) t2=$(trace_size tol200.siot)
echo "   converge at $NP ranks, 10 -> 200 steps: lossless $e1 -> $e2 bytes (same events as SIOT_COMPRESS=0), SIOT_TOLERANCE=5 $t1 -> $t2 bytes"
[ "$e2" -gt "$e1" ] || fail "the lossless trace should keep every count"
within5 "$t1" "$t2" || fail "the approximate trace grew: $t1 -> $t2"
dump_has exact200.siot APPROXIMATE && fail "the lossless trace says it is approximate"
dump_has tol200.siot APPROXIMATE || fail "the approximate trace does not say so"
dump_has tol200.siot "loop x~4[0-2]\\($BASE\\.\\.$((BASE + SPREAD - 1)) over 200\\)" ||
    fail "no approximate count over the $BASE..$((BASE + SPREAD - 1)) iterations"
# Counts that differ from rank to rank (each rank's ITERS(step + rank)):
# the merge of ranks folds them into one approximate count for all ranks.
SIOT_TOLERANCE=5 SIOT_TRACE=$PWD/ranked.siot mpirun_np 4 ./converge 30 ranked || fail "ranked run"
dump_has ranked.siot "^\[r0-3\] loop x30" && dump_has ranked.siot "loop x~4[0-2]\($BASE\.\.$((BASE + SPREAD - 1)) over 120\)" ||
    fail "the ranks' counts are not one approximate count: $(grep 'loop' .dump.txt | head -3)"
echo "   4 ranks whose counts differ: $(grep -o 'loop x~[^{]*' .dump.txt) for all of them, $(trace_size ranked.siot) bytes"
# The replays, without the recorded computation (--no-compute): the
# lossless trace's is faithful, the approximate one's approximate.
for k in exact tol; do
    tol=0
    [ $k = exact ] || tol=5
    SIOT_TOLERANCE=$tol SIOT_TRACE=$PWD/${k}20.siot mpirun_np $NP ./converge 20 || fail "$k run of 20 steps"
    rm -rf "root-$k"
    mpirun_np $NP "$B/bin/ioreplay" --verify --no-compute --root "$WORK/root-$k" "$WORK/${k}20.siot" > $k.report ||
        { cat $k.report >&2; fail "$k: ioreplay --verify exited $?"; }
done
grep -q "^round trip: faithful" exact.report || { cat exact.report >&2; fail "the lossless replay is not faithful"; }
grep -q "^round trip: approximate" tol.report || { cat tol.report >&2; fail "the approximate replay is not said approximate"; }
echo "   $(sed -n 's/^round trip: \(approximate .*\); the replay.*/\1)/p' tol.report)"
want=$(allreduces 20)
got=$(jsonl root-tol.siot | grep -c '"func":"MPI_Allreduce"' || true)
wbytes=$(jsonl root-tol.siot | python3 -c '
import json, sys
print(sum(e["args"]["count"] for e in map(json.loads, sys.stdin) if e["func"] == "MPI_File_write_at"))')
echo "   replayed: $got MPI_Allreduce (the source makes $want), $wbytes bytes written by MPI_File_write_at (the source $((20 * NP * CHUNK)))"
within5 "$got" "$want" || fail "the replay's MPI_Allreduce calls are not within 5% of the source's"
within5 "$wbytes" $((20 * NP * CHUNK)) || fail "the replay's bytes are not within 5% of the source's"
[ "$(stat -c %s root-tol/converge.dat)" = $((20 * NP * CHUNK)) ] || fail "the replay's file has not the source's size"
# Polls: the lossless trace keeps every poll count, the approximate one
# folds them (the count is shown as a range).
build_traced polls
for s in 10 60; do
    SIOT_TRACE=$PWD/pexact$s.siot mpirun_np $NP ./polls $s || fail "polls run"
    SIOT_TOLERANCE=5 SIOT_TRACE=$PWD/ptol$s.siot mpirun_np $NP ./polls $s || fail "polls tolerance run"
done
p1=$(trace_size pexact10.siot) p2=$(trace_size pexact60.siot) q1=$(trace_size ptol10.siot) q2=$(trace_size ptol60.siot)
"$SIOT" dump ptol60.siot > ptol.txt
loop=$(grep -m1 -B1 "MPI_Test(" ptol.txt | grep -o "loop x~[^ ]*" || true)
echo "   polls at $NP ranks, 10 -> 60 steps: lossless $p1 -> $p2 bytes, SIOT_TOLERANCE=5 $q1 -> $q2 bytes (the polls: $loop)"
[ -n "$loop" ] || fail "the polls that found nothing are not one approximate loop"
[ $((q2 * 100)) -le $((q1 * 110)) ] || fail "the approximate trace of the polls grew: $q1 -> $q2"
[ "$p2" -gt $((p1 + 100)) ] || fail "the lossless trace should keep every poll count"
pass "SIOT_TOLERANCE folds convergence loops and polls; lossless stays exact, the replay is verified approximate"
