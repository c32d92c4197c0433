#!/bin/bash
# Wildcard receives replay the run's matching (tests/progs/wildrecv.c, 4
# ranks): rank 0 receives from MPI_ANY_SOURCE one message per sender, which
# the program's waits make arrive in the reverse order of the ranks, with
# MPI_Recv (MPI_ANY_TAG too), MPI_Irecv completed by MPI_Waitall with
# MPI_STATUSES_IGNORE, MPI_Irecv completed by MPI_Wait with
# MPI_STATUS_IGNORE, and MPI_Probe. The trace records the senders and tags
# each receive matched, as the program's source says (the statuses the
# program ignored included); the senders' MPI_Wait on their sends, whose
# status MPI leaves undefined, is recorded as an empty status, not as the
# sentinel values the program's variable held. The replay (--no-compute:
# without the waits, the last sender is the last to send) posts each
# receive for the recorded sender and tag: --verify is faithful, and the
# replay's own trace shows the same senders as the run's.
. "$(dirname "$0")/../lib.sh"
build_traced wildrecv
SRC=$ROOT/tests/progs/wildrecv.c
P=4
mkdir -p run
(cd run && SIOT_TRACE=$WORK/w.siot mpirun_np $P "$WORK/wildrecv" < /dev/null) || fail "the traced run (the program checks the order it received in)"
rm -rf root
rc=0
mpirun_np $P "$B/bin/ioreplay" --verify --explain --no-compute --root "$WORK/root" w.siot > replay.report 2>&1 < /dev/null || rc=$?
[ -f root.siot ] || { cat replay.report >&2; fail "the replay left no trace of its own (exit $rc)"; }
jsonl w.siot > run.jsonl
jsonl root.siot > replay.jsonl
PYTHONPATH="$ROOT/tests/py" python3 - "$P" "$(c_define UNIT "$SRC")" "$(c_define TAG_A "$SRC")" "$(c_define TAG_B "$SRC")" \
    "$(c_define TAG_C "$SRC")" "$(c_define TAG_D "$SRC")" <<'PY' || fail "recorded or replayed matching"
import json, sys
P, UNIT, TAG_A, TAG_B, TAG_C, TAG_D = map(int, sys.argv[1:])
errors = []
from events import by_rank as load
order = list(range(P - 1, 0, -1))  # the senders, in the order the program's waits give
def matched(ev):
    """rank 0's receives per phase: [(source, tag, bytes)] from the statuses"""
    st = lambda s: (s["source"], s["tag"], s["bytes"]) if isinstance(s, dict) else None
    a = [st(e["args"]["status"]) for e in ev
         if e["func"] == "MPI_Recv" and (e["args"]["tag"] == -1 or TAG_A <= e["args"]["tag"] < TAG_B)]
    wa = [e for e in ev if e["func"] == "MPI_Waitall"]
    b = [st(s) for s in (wa[0]["args"].get("array_of_statuses") or [])] if len(wa) == 1 else None
    c = [st(e["args"]["status"]) for e in ev if e["func"] == "MPI_Wait"]
    d = [st(e["args"]["status"]) for e in ev if e["func"] == "MPI_Probe"]
    return {"A": a, "B": b, "C": c, "D": d}
want = {"A": [(s, TAG_A + s, 4 * UNIT * s) for s in order], "B": [(s, TAG_B, 4 * UNIT * s) for s in order],
        "C": [(s, TAG_C + s, 4 * UNIT * s) for s in order], "D": [(s, TAG_D, 4 * UNIT * s) for s in order]}
run, rep = load("run.jsonl"), load("replay.jsonl")
got = matched(run[0])
for ph in "ABCD":
    if got[ph] != want[ph]:
        errors.append("the run's trace, phase %s: rank 0's statuses %s, the program's source says %s" % (ph, got[ph], want[ph]))
# the receives as the program posted them: wildcards
irecv = [e["args"] for e in run[0] if e["func"] == "MPI_Irecv"]
if [(a["source"], a["tag"]) for a in irecv] != [(-1, TAG_B)] * (P - 1) + [(-1, -1)] * (P - 1):
    errors.append("the run's MPI_Irecv recorded as %s" % [(a["source"], a["tag"]) for a in irecv])
# a send's status: undefined in MPI, recorded as an empty status (the program's variable held sentinels)
for r in range(1, P):
    for e in run[r]:
        if e["func"] == "MPI_Wait" and e["args"]["status"] != {"source": -1, "tag": -1, "bytes": 0}:
            errors.append("rank %d: a send's MPI_Wait recorded with status %s" % (r, e["args"]["status"]))
# the replay matched the run's senders: its own trace's statuses, and the receives it posted
rgot = matched(rep[0])
for ph in "ABCD":
    if rgot[ph] != want[ph]:
        errors.append("the replay's trace, phase %s: rank 0's statuses %s, the run's %s" % (ph, rgot[ph], want[ph]))
posted = [(e["args"]["source"], e["args"]["tag"]) for e in rep[0] if e["func"] == "MPI_Irecv"]
if posted != [(s, TAG_B) for s in order] + [(s, TAG_C + s) for s in order]:
    errors.append("the replay posted its MPI_Irecv as %s, not for the run's senders" % posted)
if errors:
    sys.exit("\n".join(errors))
print("   senders %s matched in the run, recorded, and matched again by the replay (Recv, Irecv+Waitall, Irecv+Wait, Probe)" % order)
PY
[ $rc -eq 0 ] || { cat replay.report >&2; fail "ioreplay --verify exited $rc"; }
grep -q "^round trip: faithful" replay.report || { cat replay.report >&2; fail "the replay is not faithful"; }
echo "   $(sed -n 's/^round trip: //p' replay.report | sed 's/;.*/)/')"
pass "wildcard receives are recorded with the senders they matched and replayed for them"
