#!/bin/bash
# The HDF5 1.6 API (a program built with -DH5_USE_16_API, whose H5Dcreate,
# H5Dopen, H5Gcreate, H5Gopen and H5Acreate are H5Dcreate1...): each
# versioned call is recorded under its own name, exactly as often as the
# program makes it, with its arguments; all the MPI-IO I/O of the run lies
# beneath an HDF5 call, the data calls' MPI-IO beneath H5Dwrite/H5Dread with
# POSIX beneath that; the file access flags are named as the program
# passes them (H5F_ACC_TRUNC, H5F_ACC_RDWR: not open(2)'s O_RDWR, O_WRONLY);
# ioreplay reproduces the run.
. "$(dirname "$0")/../lib.sh"
P=2
SRC=$ROOT/tests/progs/h5old.c
$MPICC -std=c11 -O1 -g -DH5_USE_16_API -I/usr/include/hdf5/$MPI -c "$SRC" -o h5old.o || fail "compile h5old.c"
$MPICC h5old.o -Wl,@"$B/wrap-hdf5.flags" -o h5old || fail "link h5old against the tracer"
# the program's shape, from its source
def() { c_define "$1" "$SRC"; }
N=$(def NDSETS) ROWS=$(def ROWS) NCOLS=$(def NCOLS)
[ -n "$N" ] && [ -n "$ROWS" ] && [ -n "$NCOLS" ] || fail "cannot read NDSETS/ROWS/NCOLS from h5old.c"

mpirun_np $P ./h5old out.h5 > run.out || fail "h5old"
jsonl h5old.siot > h.jsonl
PYTHONPATH="$ROOT/tests/py" python3 - h.jsonl $P "$N" $((ROWS * NCOLS * 4)) <<'PY' || fail "the 1.6 API calls and the I/O beneath them"
import json, sys

from events import ancestor, children

ev = [json.loads(l) for l in open(sys.argv[1])]
P, N, B = map(int, sys.argv[2:])
by = {(e["rank"], e["seq"]): e for e in ev}
for r in range(P):
    mine = [e for e in ev if e["rank"] == r]
    calls = lambda f: [e for e in mine if e["func"] == f]
    # once per dataset in each phase, under the 1.6 name, never the 1.8 one
    want = {"H5Dcreate1": N, "H5Dopen1": N, "H5Gcreate1": 1, "H5Gopen1": 1, "H5Acreate1": 1,
            "H5Dcreate2": 0, "H5Dopen2": 0, "H5Gcreate2": 0, "H5Gopen2": 0, "H5Acreate2": 0,
            "H5Dwrite": N, "H5Dread": N}
    for f, n in want.items():
        if len(calls(f)) != n:
            sys.exit("rank %d: %d %s calls, the program makes %d" % (r, len(calls(f)), f, n))
    for f in ("H5Dcreate1", "H5Dopen1"):
        names = [e["args"]["name"] for e in calls(f)]
        if names != ["d%d" % d for d in range(N)] or any(e["ret"] < 256 for e in calls(f)):
            sys.exit("rank %d: %s names %s, ids %s" % (r, f, names, [e["ret"] for e in calls(f)]))
    if calls("H5Gcreate1")[0]["args"]["name"] != "/data" or calls("H5Gcreate1")[0]["args"]["size_hint"] != 0:
        sys.exit("rank %d: H5Gcreate1 args %s" % (r, calls("H5Gcreate1")[0]["args"]))
    # the data calls move this rank's rows, through MPI-IO, down to POSIX
    for f, op in (("H5Dwrite", "write"), ("H5Dread", "read")):
        for e in calls(f):
            io = [c for c in children(ev, e, "mpiio") if op in c["func"]]
            if e["bytes"] != B or not io:
                sys.exit("rank %d: %s seq %d: %s bytes, MPI-IO children %s" % (r, f, e["seq"], e["bytes"], [c["func"] for c in children(ev, e, "mpiio")]))
    # no MPI-IO call of the run outside an HDF5 call: the program makes none itself
    loose = [e["func"] for e in mine if e["layer"] == "mpiio" and not ancestor(by, e, "hdf5")]
    if loose:
        sys.exit("rank %d: MPI-IO calls without an HDF5 parent: %s" % (r, loose))
    posix = [e for e in mine if e["layer"] == "posix" and e["func"].startswith(("pwrite", "pread", "write", "read")) and ancestor(by, e, "hdf5")]
    if not any(ancestor(by, e, "hdf5")["func"] == "H5Dwrite" for e in posix):
        sys.exit("rank %d: no POSIX write beneath an H5Dwrite" % r)
print("   per rank: %d H5Dcreate1 and %d H5Dopen1 (d0..d%d), H5Gcreate1/H5Gopen1/H5Acreate1 once; "
      "%d-byte H5Dwrite/H5Dread over MPI-IO and POSIX; every MPI-IO call under an HDF5 one" % (N, N, N - 1, B))
PY
py check_open_modes.py "$SRC" h.jsonl || fail "H5Fcreate and H5Fopen flags by their HDF5 names"
roundtrip h5old $P "$WORK/h5old" out.h5
pass "the HDF5 1.6 API recorded under its versioned names, its I/O beneath it, replayed"
