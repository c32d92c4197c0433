#!/bin/bash
# Completions whose order MPI leaves open (tests/progs/waitsome.c: 20
# mixed sends and receives per rank completed by MPI_Waitsome, polled
# MPI_Testsome, MPI_Waitany, MPI_Testany, ranks starting at staggered
# times): the trace holds each call's completed indices in the order the
# program saw them (its own record, order-R.dat), and the replay completes
# exactly those at each call (a replay once let MPI_Waitsome return part of
# the run's set: 15 of 19 in MPICH's nonblocking3), so --verify is
# faithful at both levels, on 4 ranks, in each of two runs.
# slots: 2
. "$(dirname "$0")/../lib.sh"
build_traced waitsome
def() { c_define "$1" "$ROOT/tests/progs/waitsome.c"; }
NREQ=$(def NREQ) ROUNDS=$(def ROUNDS)
for run in 1 2; do
    for level in default posix; do
        ROUNDTRIP_LEVEL=$level roundtrip ws$run-$level 4 "$WORK/waitsome"
    done
    jsonl ws$run-default.orig.siot > ws$run.jsonl
    PYTHONPATH="$ROOT/tests/py" python3 - "$NREQ" "$ROUNDS" ws$run.jsonl orig-ws$run-default <<'PY' || fail "run $run: the recorded completions"
import struct, sys
from events import by_rank
NREQ, ROUNDS, path, d = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
calls = {"MPI_Waitsome": 0, "MPI_Testsome": 1, "MPI_Waitany": 2, "MPI_Testany": 3}
several = 0
for r, ev in by_rank(path).items():
    seen = []
    for e in ev:
        a = e["args"]
        if e["func"] in ("MPI_Waitsome", "MPI_Testsome"):
            seen += a["array_of_indices"] or []
            several += a["outcount"] > 1
        elif e["func"] == "MPI_Waitany" or (e["func"] == "MPI_Testany" and a["flag"]):
            seen.append(a["index"])
    raw = open("%s/order-%d.dat" % (d, r), "rb").read()
    own = list(struct.unpack("%di" % (len(raw) // 4), raw))
    if len(own) != NREQ * ROUNDS or seen != own:
        sys.exit("rank %d: the trace's completions %s, the program's %s" % (r, seen[:30], own[:30]))
    for k in range(ROUNDS):
        if sorted(own[k * NREQ:(k + 1) * NREQ]) != list(range(NREQ)):
            sys.exit("rank %d round %d: completed %s" % (r, k, own[k * NREQ:(k + 1) * NREQ]))
print("   run: %d calls completed several requests at once" % several)
PY
done
pass "Waitsome, Testsome, Waitany, Testany: the run's completions in its order, replayed exactly at both levels (two runs, 4 ranks)"
