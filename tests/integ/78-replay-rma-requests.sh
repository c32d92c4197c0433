#!/bin/bash
# Request-based one-sided calls (tests/progs/rmareqs.c, after MPICH's RMA
# test req_example) under each flavour's default one-sided component: every
# MPI_Rget, MPI_Rput and MPI_Waitany is recorded as often as the program
# makes it, and the replay's round trip is faithful with exit status 0 (the
# statuses of their completions, which MPI does not define and Open MPI's
# osc/rdma leaves unfilled, are not compared).
. "$(dirname "$0")/../lib.sh"
build_traced rmareqs
P=3
# from tests/progs/rmareqs.c
NSTEPS=24 NBUF=4
SIOT_TRACE=$PWD/rq.siot mpirun_np $P ./rmareqs > /dev/null || fail "the traced program failed"
jsonl rq.siot > rq.jsonl
for f in MPI_Rget:$NSTEPS MPI_Rput:$NSTEPS MPI_Waitany:$((NSTEPS - NBUF)) MPI_Waitall:1; do
    n=$(grep -c "\"func\":\"${f%%:*}\"" rq.jsonl || true)
    [ "$n" -eq $((P * ${f#*:})) ] || fail "${f%%:*}: $n calls, the program makes $((P * ${f#*:}))"
done
echo "   $((P * NSTEPS)) MPI_Rget and as many MPI_Rput, $((P * (NSTEPS - NBUF))) MPI_Waitany on $P ranks"
roundtrip rmareqs $P "$WORK/rmareqs"
pass "request-based one-sided calls: recorded as made, replayed faithfully"
