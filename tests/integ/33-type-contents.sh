#!/bin/bash
# A derived datatype decoded with MPI_Type_get_envelope and
# MPI_Type_get_contents, PnetCDF's way (tests/progs/dtcontents.c): every
# non-named datatype get_contents returns is freed once. Those handles are
# the constituents' own on MPICH (their reference count raised) and new ones
# on Open MPI; either way each is a datatype id the trace knows (docs/
# handles.md, references), so no MPI_Type_free is recorded as the unknown
# datatype -1 and no handle is unknown. The counts come from the program's
# source: per decoding 7 envelopes, 3 get_contents, 2 frees. The replay
# reissues get_contents on its own handle of the decoded type and frees the
# handles it returned, and writes through one of them: faithful.
. "$(dirname "$0")/../lib.sh"
build_traced dtcontents
SRC=$ROOT/tests/progs/dtcontents.c
DECODES=$(c_define DECODES "$SRC")
for P in 2 3; do
    mpirun_np $P ./dtcontents.plain || fail "untraced run at P=$P"
    SIOT_TRACE=$WORK/t$P.siot mpirun_np $P ./dtcontents || fail "traced run at P=$P"
    jsonl t$P.siot > t$P.jsonl
    python3 - t$P.jsonl "$P" "$DECODES" <<'PY' || fail "datatype ids at P=$P"
import json, sys
path, P, D = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
BASE = 256  # created datatypes' ids start here (docs/handles.md); below: predefined
made = {"MPI_Type_contiguous", "MPI_Type_vector", "MPI_Type_create_struct"}
ev = {r: [] for r in range(P)}
for line in open(path):
    e = json.loads(line)
    if e["func"].startswith("MPI_Type_"):
        ev[e["rank"]].append(e)
for r in range(P):
    count = lambda f: sum(1 for e in ev[r] if e["func"] == f)
    want = {"MPI_Type_get_envelope": 7 * D, "MPI_Type_get_contents": 3 * D, "MPI_Type_free": 2 * D + 3}
    got = {f: count(f) for f in want}
    if got != want:
        sys.exit(f"rank {r}: {got}, want {want}")
    known = set()  # ids created or returned by get_contents before, on this rank
    for e in ev[r]:
        f, a = e["func"], e["args"]
        if e.get("ret") != 0:
            sys.exit(f"rank {r}: {f} returned {e.get('ret')}")
        if f in made:
            known.add(a["newtype"])
        elif f == "MPI_Type_get_contents":
            ts = a.get("array_of_datatypes")
            if not isinstance(ts, list) or len(ts) != a["max_datatypes"] or -1 in ts:
                sys.exit(f"rank {r}: get_contents recorded datatypes {ts!r} for max {a['max_datatypes']}")
            if a["datatype"] not in known:
                sys.exit(f"rank {r}: get_contents of {a['datatype']}, not a type made or returned before")
            known.update(t for t in ts if t >= BASE)
        elif f == "MPI_Type_free" and a["datatype"] not in known:
            sys.exit(f"rank {r}: MPI_Type_free of {a['datatype']}, not a type made or returned: {sorted(known)}")
PY
    dump_has t$P.siot "note unknown_handles" && fail "P=$P: handles recorded as unknown"
    dump_has t$P.siot "MPI_Type_get_contents\(.*array_of_datatypes=" || fail "P=$P: siot dump shows no get_contents datatypes"
    roundtrip contents-$P $P "$WORK/dtcontents"
done
pass "datatypes MPI_Type_get_contents returns: ids known, each free names one (never -1), replay faithful at P=2, 3"
