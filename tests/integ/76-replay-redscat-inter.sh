#!/bin/bash
# The reduce-scatter family on an intercommunicator whose groups differ in
# size (tests/progs/redscatinter.c: NLEFT rank(s) against the other two).
# Its recvcounts has one entry per rank of the caller's own group, and the
# send vector sums them (MPI_Reduce_scatter_block: recvcount times the own
# group's size). The previous build recorded recvcounts with the remote
# group's size, as for MPI_Alltoallv: a rank of the bigger group kept fewer
# counts than MPI read, and its replay handed MPI an array that short
# (MPICH's coll/redscatinter at 8 ranks: the replay died with SIGSEGV inside
# MPI_Reduce_scatter). Now every MPI_Reduce_scatter and MPI_Ireduce_scatter
# of the run and of both replays records as many counts as the rank's own
# group has ranks, and the replay is faithful at both levels.
. "$(dirname "$0")/../lib.sh"
build_traced redscatinter
SRC=$ROOT/tests/progs/redscatinter.c
NLEFT=$(c_define NLEFT "$SRC")
NP=$((NLEFT + 2)) # a right group of 2 ranks: bigger than the left
roundtrip_levels rsi $NP "$WORK/redscatinter"
for t in $ROUNDTRIP_TRACES; do
    python3 - "$t.jsonl" "$NLEFT" "$NP" <<'PY' || fail "$t: the recorded recvcounts"
import json, sys
path, nleft, np = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
seen = {}
for line in open(path):
    e = json.loads(line)
    if e.get("func") in ("MPI_Reduce_scatter", "MPI_Ireduce_scatter"):
        r = e["rank"]
        own = nleft if r < nleft else np - nleft  # the rank's own group, from the program's source
        counts = e["args"]["recvcounts"]
        if len(counts) != own:
            sys.exit("%s: rank %d %s recorded %d counts %s, its group has %d ranks" % (path, r, e["func"], len(counts), counts, own))
        seen.setdefault(r, []).append(e["func"])
want = ["MPI_Reduce_scatter", "MPI_Ireduce_scatter"]
if seen != {r: want for r in range(np)}:
    sys.exit("%s: calls per rank %s, the program makes %s on each" % (path, seen, want))
PY
done
pass "MPI_(I)Reduce_scatter(_block) across groups of $NLEFT and 2 ranks: counts recorded per own group, faithful at both levels"
