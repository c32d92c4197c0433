#!/bin/bash
# Data-dependent loop counts (a solver taking 30..41 iterations per time step):
# exact by default (the counts are kept, so the trace grows with the steps);
# with SIOT_TOLERANCE=30 they fold into one approximate count, the trace says
# so, and its size no longer grows with the number of time steps.
. "$(dirname "$0")/../lib.sh"
build_traced loops
for s in 100 1000; do
    SIOT_TRACE=$PWD/exact$s.siot mpirun_np 2 ./loops datadep $s || fail "exact run"
    SIOT_TOLERANCE=30 SIOT_TRACE=$PWD/tol$s.siot mpirun_np 2 ./loops datadep $s || fail "tolerance run"
done
e1=$(trace_size exact100.siot); e2=$(trace_size exact1000.siot)
t1=$(trace_size tol100.siot); t2=$(trace_size tol1000.siot)
echo "   exact: $e1 -> $e2 bytes; SIOT_TOLERANCE=30: $t1 -> $t2 bytes (100 -> 1000 steps)"
[ "$e2" -gt $((e1 + 500)) ] || fail "the exact trace should keep every count"
[ $((t2 * 100)) -le $((t1 * 105)) ] && [ $((t1 * 100)) -le $((t2 * 105)) ] || fail "approximate trace grew: $t1 -> $t2"
dump_has exact1000.siot "APPROXIMATE" && fail "an exact trace says it is approximate"
"$SIOT" dump tol1000.siot > tol.txt
grep -q "APPROXIMATE" tol.txt || fail "the approximate trace does not say so"
grep -q "note approximate:" tol.txt || fail "the approximate trace does not say where"
grep -q "loop x~3[0-9](30\.\.41 over 1000)" tol.txt || fail "approximate count not shown: $(grep 'loop x~' tol.txt | head -1)"
# Expanded with the mean count: about as many events as the exact trace.
ne=$(jsonl exact1000.siot | grep -c MPI_Allreduce); na=$(jsonl tol1000.siot | grep -c MPI_Allreduce)
echo "   MPI_Allreduce events: exact $ne, approximate $na"
[ $((na * 100)) -ge $((ne * 97)) ] && [ $((na * 100)) -le $((ne * 103)) ] || fail "approximate expansion too far off"
pass "SIOT_TOLERANCE folds data-dependent counts into a constant-size approximate count"
