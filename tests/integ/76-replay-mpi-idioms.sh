#!/bin/bash
# The MPI library test suites' communication idioms (tests/progs/idioms.c,
# one family per run, 4 ranks): MPI_IN_PLACE in every collective that takes
# it, persistent requests started and never started, non-blocking and
# neighbourhood collectives, request arrays mixing MPI-IO and messages
# completed with Waitall/Waitany/Testsome, messages to oneself,
# intercommunicators, generalized requests, MPI_BOTTOM, a receive freed
# while active, a cancelled receive, completions over no requests. Each is traced and replayed
# with --verify: exit 0 and faithful, the same files. The recorded values
# are checked against the program's source; requests made through PMPI
# (family unknown) are recorded as unknown, never as the null request (their
# statuses as empty ones: a send's would be undefined), and
# the calls on them are not reissued, each listed, exit 1. A root's
# Gatherv/Scatterv displacements below its buffer (family scattered, as
# ROMIO's cb_config_list gathers host names) are recorded as given and
# replayed into an area that starts at the lowest (a replay once wrote below
# its buffer and crashed).
. "$(dirname "$0")/../lib.sh"
build_traced idioms
def() { c_define "$1" "$ROOT/tests/progs/idioms.c"; }
families="inplace persistent nbc mixed self intercomm greq corners scattered"
levels=default
[ "$MPI" = mpich ] && levels="default posix"
for level in $levels; do
    export ROUNDTRIP_LEVEL=$level
    for f in $families; do
        # at the POSIX level, family mixed is ROMIO's aio: replayed as aio
        roundtrip $f-$level 4 "$WORK/idioms" $f
    done
done
# every family in one program, as the suites' mixed tests do
ROUNDTRIP_LEVEL=default roundtrip all-default 4 "$WORK/idioms"

# what the trace says, against idioms.c
NITER=$(def NITER)
jsonl persistent-default.orig.siot > persistent.jsonl
jsonl inplace-default.orig.siot > inplace.jsonl
jsonl greq-default.orig.siot > greq.jsonl
jsonl mixed-default.orig.siot > mixed.jsonl
jsonl scattered-default.orig.siot > scattered.jsonl
PYTHONPATH="$ROOT/tests/py" python3 - "$NITER" "$(def SCAT_LEN)" "$(def SCAT_STRIDE)" <<'PY' || fail "recorded idioms"
import json, sys
NITER = int(sys.argv[1])
from events import by_rank as load
for r, ev in load("persistent.jsonl").items():
    f = [e["func"] for e in ev]
    if f.count("MPI_Startall") != NITER or f.count("MPI_Recv_init") != 2:
        sys.exit("rank %d: %d Startall, %d Recv_init" % (r, f.count("MPI_Startall"), f.count("MPI_Recv_init")))
    never = [e for e in ev if e["func"] == "MPI_Recv_init" and e["args"]["tag"] == 4][0]["args"]["request"]
    waits = [e for e in ev if e["func"] == "MPI_Wait" and e["args"]["request"] == never]
    if len(waits) != 1 or waits[0]["args"]["status"] != {"source": -1, "tag": -1, "bytes": 0}:
        sys.exit("rank %d: the inactive request's wait %s" % (r, waits))
for r, ev in load("inplace.jsonl").items():
    w = [e for e in ev if e["func"] == "MPI_Alltoallw"][0]["args"]
    if w["sendcounts"] is not None or w["recvcounts"] != [1] * 4:
        sys.exit("rank %d: Alltoallw in place recorded as %s" % (r, w))
for r, ev in load("greq.jsonl").items():
    f = [e["func"] for e in ev]
    start = [e for e in ev if e["func"] == "MPI_Grequest_start"]
    if len(start) != 1 or f.count("MPI_Grequest_complete") != 1:
        sys.exit("rank %d: generalized request calls %s" % (r, f))
    req = start[0]["args"]["request"]
    test = [e for e in ev if e["func"] == "MPI_Test"][0]["args"]
    if req < 0 or test["request"] != req or test["flag"] != 0:
        sys.exit("rank %d: MPI_Test %s on the generalized request %s" % (r, test, req))
SCAT_LEN, SCAT_STRIDE = int(sys.argv[2]), int(sys.argv[3])
for r, ev in load("scattered.jsonl").items():
    for fn, cnt, dsp in (("MPI_Gatherv", "recvcounts", "displs"), ("MPI_Scatterv", "sendcounts", "displs")):
        a = [e for e in ev if e["func"] == fn][0]["args"]
        want = [SCAT_LEN] * 4 if r == 0 else None
        if a[cnt] != want:
            sys.exit("rank %d: %s counts %s" % (r, fn, a[cnt]))
        wantd = [(4 - 1 - q) * SCAT_STRIDE - (4 - 1) * SCAT_STRIDE for q in range(4)] if r == 0 else None
        if a[dsp] != wantd:
            sys.exit("rank %d: %s displacements %s, want %s" % (r, fn, a[dsp], wantd))
for r, ev in load("mixed.jsonl").items():
    wa = [e for e in ev if e["func"] == "MPI_Waitall"][0]["args"]["array_of_requests"]
    if len(wa) != 4 or min(wa) < 0:
        sys.exit("rank %d: the mixed Waitall's requests %s" % (r, wa))
    if len([e for e in ev if e["func"] == "MPI_Waitany"]) != 3:
        sys.exit("rank %d: not 3 Waitany" % r)
PY
# the replay makes Testsome's recorded completions happen and leaves its
# empty polls out (counted)
grep -Eq "^  polls found nothing +[0-9]+" mixed-default.report || fail "mixed: no polls row"

# requests made through PMPI: unknown (-2), counted, never replayed as null
NUNKNOWN=$(def NUNKNOWN)
mkdir -p orig-unknown
(cd orig-unknown && SIOT_TRACE=$WORK/unknown.siot mpirun_np 4 ../idioms unknown > /dev/null) || fail "unknown: original run"
"$SIOT" dump unknown.siot > unknown.dump || fail "siot dump unknown.siot"
grep -q "note unknown_handles: $NUNKNOWN uses of requests made by calls the tracer does not record" unknown.dump ||
    { grep note unknown.dump >&2; fail "unknown: no note of $NUNKNOWN unknown requests"; }
grep -q "MPI_Waitall(count=2, array_of_requests=\[-2,-2\], array_of_statuses=\[-1,-1,0,-1,-1,0\])" unknown.dump || fail "unknown: Waitall's requests not recorded as unknown"
st=0
"$B/bin/ioreplay" --check unknown.siot > unknown.check || st=$?
[ $st = 1 ] && grep -q "MPI_Wait: an MPI request made by a call the tracer does not record" unknown.check ||
    { cat unknown.check >&2; fail "ioreplay --check on unknown requests: exit $st"; }
st=0
timeout 120 "${MPIRUN[@]}" -np 4 "$B/bin/ioreplay" --verify --explain --root "$WORK/root-unknown" unknown.siot > unknown.report || st=$?
n=$(grep -c "not reissued: an MPI request made by a call the tracer does not record" unknown.report || true)
[ $st = 1 ] && [ "$n" = 8 ] || { cat unknown.report >&2; fail "unknown: replay exit $st, $n calls listed (want 1, 8: Waitall and Wait per rank)"; }
grep -q "^round trip: faithful but for the 8 calls not reissued" unknown.report || { cat unknown.report >&2; fail "unknown: verdict"; }
pass "MPI idioms replayed at the levels $levels: faithful; unknown requests recorded as -2, not reissued, listed"
