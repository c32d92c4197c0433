"""check_files.py STATS.json TRACE.jsonl

The per-file rows of `siot stats --json` ("files": one per file name and
layer) equal those computed here from the expanded events (`siot dump
--jsonl`), rank by rank in program order: a handle (descriptor, stream, MPI
file, HDF5 id, netCDF id) names the file its open gave on that rank, an HDF5
object the file of the id it was made from, a dup the file of its source;
reads and writes count for the file of their first handle argument. Roles
and classes come from the spec files."""
import json
import sys
from collections import defaultdict

from specs import spec_functions

KIND = {"fd": "fd", "fdnew": "fd", "newfd": "fd", "stream": "stream", "newstream": "stream",
        "file": "mpifile", "newfile": "mpifile", "closefile": "mpifile",
        "hid": "hid", "newhid": "hid", "closehid": "hid", "ncid": "nc", "outncid": "nc"}
HANDLE_ROLES = set(KIND) - {"newfd", "newstream"} | {"dir"}


def fail(msg):
    sys.exit("check_files: " + msg)


def first_handle(args):
    return next(((n, r) for n, r in args if r in HANDLE_ROLES), (None, None))


def file_rows(events, funcs):
    rows = defaultdict(lambda: {"calls": 0, "bytes_read": 0, "bytes_written": 0, "opens": 0, "ranks": set()})
    handles = {}
    for e in events:
        cls, ret_role, args = funcs[e["func"]]
        base, a, rank, ret = cls[0], e["args"], e["rank"], e.get("ret", -1)
        hname, hrole = first_handle(args)
        path = next((n for n, r in args if r == "path"), None)
        out = next((n for n, r in args if r in ("newfile", "outncid")), None)
        if base == "open" and path:
            hid = (a.get(out, -1) if ret == 0 else -1) if out else ret
            kind = KIND.get(dict(args)[out] if out else ret_role)
            if hid is None or hid < 0 or kind is None:
                continue
            key = (a[path], e["layer"])
            rows[key]["opens"] += 1
            rows[key]["ranks"].add(rank)
            handles[(rank, kind, hid)] = key
        elif ret_role == "newhid" and hrole and KIND.get(hrole) == "hid":
            if ret >= 0:
                handles[(rank, "hid", ret)] = handles.get((rank, "hid", a.get(hname)))
        elif base in ("open", "dup") and hrole and KIND.get(hrole) == "fd":
            if ret >= 0:
                kind = "stream" if e["layer"] == "stdio" else "fd"
                handles[(rank, kind, ret)] = handles.get((rank, "fd", a.get(hname)))
        elif base in ("read", "write") and hrole:
            key = handles.get((rank, KIND.get(hrole), a.get(hname)))
            if key is None:
                continue
            rows[key]["calls"] += 1
            rows[key]["bytes_read" if base == "read" else "bytes_written"] += max(e.get("bytes", 0), 0)
            rows[key]["ranks"].add(rank)
    return rows


stats = json.load(open(sys.argv[1]))
want = file_rows([json.loads(l) for l in open(sys.argv[2])], spec_functions())
got = {(f["name"], f["layer"]): f for f in stats["files"]}
if len(got) != len(stats["files"]):
    fail("two rows for one file and layer")
if set(got) != set(want):
    fail("rows %s, the events give %s" % (sorted(got), sorted(want)))
for key, w in want.items():
    g = got[key]
    for m in ("calls", "bytes_read", "bytes_written", "opens"):
        if g[m] != w[m]:
            fail("%s %s: %s %d, the events give %d" % (key[0], key[1], m, g[m], w[m]))
    if g["ranks"] != len(w["ranks"]) or g["sharing"] != ("shared" if len(w["ranks"]) > 1 else "unique"):
        fail("%s %s: %d ranks (%s), the events give %s" % (key[0], key[1], g["ranks"], g["sharing"], sorted(w["ranks"])))
print("check_files: %d rows equal the events'" % len(want))
