#!/bin/bash
# Calls from wherever they come, and the preload library. collw.c's 4 ranks
# write and read R blocks of K bytes each collectively: the POSIX calls
# beneath the MPI-IO ones (ROMIO's in libmpich; on Open MPI the aggregators'
# calls inside the OMPIO plug-ins) carry exactly P*R*K bytes each way. The
# same program built without the tracer and run with
# LD_PRELOAD=build/<flavour>/lib/libsiotrace.so gives one trace file, equal
# to the relinked program's (siot diff: calls, parameters, call chains).
. "$(dirname "$0")/../lib.sh"
build_traced collw
P=4
SIOT_TRACE=$WORK/rel.siot mpirun_np $P ./collw || fail "collw (relinked)"
if [ "$MPI" = openmpi ]; then
    ENV=(-x SIOT_TRACE="$WORK/pre.siot" -x LD_PRELOAD="$B/lib/libsiotrace.so")
else
    ENV=(-env SIOT_TRACE "$WORK/pre.siot" -env LD_PRELOAD "$B/lib/libsiotrace.so")
fi
mkdir -p pre && (cd pre && mpirun_np $P "${ENV[@]}" ../collw.plain) || fail "collw.plain (preloaded)"
[ -f pre.siot ] && [ -z "$(find pre -name '*.siot')" ] || fail "the preloaded run did not write exactly pre.siot"
for t in rel pre; do
    jsonl $t.siot > $t.jsonl
    python3 - $t.jsonl $P <<'PY' || fail "$t: POSIX bytes beneath MPI-IO"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
P, R, K = int(sys.argv[2]), 5, 4096  # R and K as collw.c defines them
by = {(e["rank"], e["seq"]): e for e in ev}
def mpiio_ancestor(e):
    while e["parent"] != -1:
        e = by[(e["rank"], e["parent"])]
        if e["layer"] == "mpiio":
            return e["func"]
    return None
moved = {"MPI_File_write_at_all": 0, "MPI_File_read_at_all": 0}
for e in ev:
    a = mpiio_ancestor(e) if e["layer"] == "posix" else None
    if a in moved and ("write" in e["func"] or "read" in e["func"]):
        moved[a] += e.get("bytes", 0)
if any(v != P * R * K for v in moved.values()):
    sys.exit("POSIX bytes beneath %s, want %d each" % (moved, P * R * K))
PY
done
"$SIOT" diff rel.siot pre.siot > rp.diff || { head -20 rp.diff >&2; fail "the preloaded trace differs from the relinked one"; }
echo "   P=$P: POSIX beneath MPI-IO carries $((P * 5 * 4096)) bytes each way, relinked and preloaded; traces equal"
pass "calls from libraries and plug-ins traced; the preload library gives the relinked program's trace"
