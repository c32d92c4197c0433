#!/bin/bash
# MPI_Waitall with MPI_STATUSES_IGNORE over more requests than the tracer
# keeps statuses for (tests/progs/ignstatuses.c, 2 ranks; MPICH's
# pt2pt/sendrecv3 waits so on 100): the run's trace records no statuses for
# it, and the replay passes MPI_STATUSES_IGNORE too, so that its own trace
# records none either. The previous build replayed it with an array of
# statuses, and --verify found the MPI_Waitall different on both ranks at both
# levels. Over fewer requests, the statuses are recorded on both sides. An
# MPI_Testsome and MPI_Waitsome on no requests with a null statuses pointer
# (MPICH's pt2pt/waittestnull) replay so (--verify): the previous build passed
# an array of its own, recorded as an empty one where MPICH's run had none.
. "$(dirname "$0")/../lib.sh"
build_traced ignstatuses
SRC=$ROOT/tests/progs/ignstatuses.c
MANY=$(c_define MANY "$SRC")
FEW=$(c_define FEW "$SRC")
KEPT=$(c_define SIOT_MPI_STATUSES "$ROOT/pmpi/mpi_record.h")
[ "$MANY" -gt "$KEPT" ] && [ "$FEW" -le "$KEPT" ] || fail "MANY=$MANY and FEW=$FEW do not straddle SIOT_MPI_STATUSES=$KEPT"
roundtrip_levels ign 2 "$WORK/ignstatuses"
for t in $ROUNDTRIP_TRACES; do
    python3 - "$t.jsonl" "$MANY" "$FEW" <<'PY' || fail "$t: MPI_Waitall's statuses"
import json, sys
path, many, few = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
want = [(many, None), (few, few)]  # (count, statuses recorded or None), rank 0 in program order
per = {}
for line in open(path):
    e = json.loads(line)
    if e.get("func") == "MPI_Waitall":
        st = e["args"].get("array_of_statuses")
        per.setdefault(e["rank"], []).append((e["args"]["count"], None if st is None else len(st)))
if per != {0: want}:
    sys.exit("%s: MPI_Waitall (count, statuses) per rank %s, the program's source says %s" % (path, per, want))
PY
done
pass "MPI_Waitall with MPI_STATUSES_IGNORE over $MANY requests (> $KEPT) replays faithfully at both levels, no statuses recorded on either side"
