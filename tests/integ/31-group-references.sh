#!/bin/bash
# Groups MPI hands out again while they live (tests/progs/groupref.c):
# MPI_Comm_group of one communicator twice, MPI_File_get_group of one file
# twice, the file's group and MPI_COMM_WORLD's (one handle on Open MPI).
# Each creation is one more reference to the same id, each free drops one,
# and the id is free again only after the last (docs/handles.md,
# references): no free is recorded as the null group -1, a group made while
# another reference lives does not take its id, and no handle is unknown.
# The ids are worked out from the program's source and the numbering rule
# (groups from 1, lowest free first). The replay reissues every creation
# and free on handles of its own, with the same return codes: faithful.
. "$(dirname "$0")/../lib.sh"
build_traced groupref
for P in 2 3; do
    mpirun_np $P ./groupref.plain || fail "untraced run at P=$P"
    SIOT_TRACE=$WORK/g$P.siot mpirun_np $P ./groupref || fail "traced run at P=$P"
    jsonl g$P.siot > g$P.jsonl
    python3 - g$P.jsonl "$P" <<'PY' || fail "group ids at P=$P"
import json, sys
path, P = sys.argv[1], int(sys.argv[2])
C, F, I, X = "MPI_Comm_group", "MPI_File_get_group", "MPI_Group_incl", "MPI_Group_free"
# (func, the group it takes, the group it makes or frees); None: not checked here
want_comm = [(C, None, 1), (C, None, 1), (X, None, 1), (X, None, 1)]
want_file = [(F, None, 1), (F, None, 1), (X, None, 1), (C, None, 2), (I, 1, 3),
             (X, None, 1), (X, None, 2), (X, None, 3)]
got = {r: [] for r in range(P)}
for line in open(path):
    e = json.loads(line)
    f, a = e["func"], e["args"]
    if f in (C, F):
        got[e["rank"]].append((f, None, a.get("group"), e.get("ret")))
    elif f == I:
        got[e["rank"]].append((f, a.get("group"), a.get("newgroup"), e.get("ret")))
    elif f == X:
        got[e["rank"]].append((f, None, a.get("group"), e.get("ret")))
for r in range(P):
    ev = got[r]
    if len(ev) != 4 + 8 + 4 + 2:
        sys.exit(f"rank {r}: {len(ev)} group events, want 18: {ev}")
    if any(x[3] != 0 for x in ev):
        sys.exit(f"rank {r}: a group call did not return 0: {ev}")
    for i, (w, g) in enumerate(zip(want_comm + want_file, ev)):
        if g[:3] != w:
            sys.exit(f"rank {r} group event {i}: {g[:3]}, want {w}")
    # mixed: the file's group, then the world's (one handle or two: the
    # library's choice); each freed as the id it was made with
    (f1, _, fid, _), (f2, _, wid, _), (f3, _, x1, _), (f4, _, x2, _) = ev[12:16]
    if (f1, f2, f3, f4) != (F, C, X, X) or (x1, x2) != (fid, wid) or min(fid, wid) != 1 or max(fid, wid) > 2:
        sys.exit(f"rank {r} mixed: {ev[12:16]}, want the file's group and the world's freed as made")
    # every reference freed: the next group gets the lowest id again
    if [g[:3] for g in ev[16:]] != [(C, None, 1), (X, None, 1)]:
        sys.exit(f"rank {r}: after every free, {ev[16:]}, want group 1 made and freed")
PY
    dump_has g$P.siot "note unknown_handles" && fail "P=$P: handles recorded as unknown"
    roundtrip all-$P $P "$WORK/groupref"
    for mode in comm file mixed; do
        roundtrip $mode-$P $P "$WORK/groupref" $mode
    done
done
pass "groups made again while live: one id per object, each free its reference (never -1), replay faithful at P=2, 3"
