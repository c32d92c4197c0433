#!/bin/bash
# MPI_Scatterv and MPI_Iscatterv across intercommunicators made and freed
# round after round (tests/progs/icscatterv.c, as MPICH's coll/icscatterv):
# the receiving group passes no send buffer or counts, and its rank 0 has
# the rank that root names in the other group. The previous replay passed
# MPI_IN_PLACE as the send buffer of every rank whose send counts were not
# recorded (recorded at the root only); Open MPI 4.1 refuses that at a
# rank equal to root, on an intercommunicator too: the receiving group's
# rank 0 got MPI_ERR_ARG and the others waited for it, so the replay never
# ended (MPICH's icscatterv at 5, 7 and 8 ranks). Now such a rank is given
# a buffer, and the replay is faithful at both levels on both MPIs, every
# call with the root the program gave and MPI_SUCCESS.
. "$(dirname "$0")/../lib.sh"
build_traced icscatterv
SRC=$ROOT/tests/progs/icscatterv.c
ROUNDS=$(c_define ROUNDS "$SRC")
NP=4 # two groups of 2: the receiving group has a rank besides its rank 0
export ROUNDTRIP_TIMEOUT=120
roundtrip_levels icsc $NP "$WORK/icscatterv"
for t in $ROUNDTRIP_TRACES; do
    python3 - "$t.jsonl" "$ROUNDS" "$NP" <<'PY' || fail "$t: the scatters"
import json, sys
path, rounds, np = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
# From the program's source: per round, each group scatters once to the
# other for each of 2 sizes, blocking and not; root MPI_ROOT (-3 in the
# trace) at the sending group's rank 0, MPI_PROC_NULL (-2) at its others,
# 0 at the receivers, who give no counts.
calls = {}
for line in open(path):
    e = json.loads(line)
    f = e.get("func")
    if f not in ("MPI_Scatterv", "MPI_Iscatterv"):
        continue
    r, a = e["rank"], e["args"]
    if e["ret"] != 0:
        sys.exit("%s: rank %d %s returned %s" % (path, r, f, e.get("names", {}).get("ret", e["ret"])))
    calls.setdefault((r, f), []).append(a["root"])
    if a["root"] == 0 and a["sendcounts"] is not None:
        sys.exit("%s: rank %d %s: a receiver with send counts %s" % (path, r, f, a["sendcounts"]))
for r in range(np):
    local = r if r < np // 2 else r - np // 2
    sending = -3 if local == 0 else -2
    want = ([sending] * 2 + [0] * 2) if r < np // 2 else ([0] * 2 + [sending] * 2)
    for f in ("MPI_Scatterv", "MPI_Iscatterv"):
        if calls.get((r, f)) != want * rounds:
            sys.exit("%s: rank %d %s roots %s, the program gives %s" % (path, r, f, calls.get((r, f)), want * rounds))
PY
done
pass "MPI_(I)Scatterv across $ROUNDS intercommunicators of 2 and 2 ranks, both ways: every call as given, faithful at both levels"
