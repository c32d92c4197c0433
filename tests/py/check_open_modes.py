"""check_open_modes.py SRC JSONL

The flags of HDF5's and PnetCDF's file opens are shown by the names the
program's source passes (H5F_ACC_TRUNC, NC_CLOBBER|NC_64BIT_DATA...), not
as open(2) flags: every H5Fcreate, H5Fopen, ncmpi_create and ncmpi_open of
rank 0 in dump --jsonl, in program order, has in its "names" the flag names
written at the same call in SRC (calls in loops or branches are not used by
the programs this checks)."""
import json
import re
import sys

src, jl = sys.argv[1:3]
code = open(src).read()
# function -> (position of the flags argument, its name in the spec)
CALLS = {"H5Fcreate": (1, "flags"), "H5Fopen": (1, "flags"), "ncmpi_create": (2, "cmode"), "ncmpi_open": (2, "omode")}


def names_in(expr):
    return sorted(w for w in re.split(r"\s*\|\s*", expr.strip()) if w)


want = {}
for f, (pos, _) in CALLS.items():
    for m in re.finditer(r"\b%s\(([^;]*?)\)\s*[;,)]" % f, code):
        args = [a.strip() for a in m.group(1).split(",")]
        if len(args) > pos and re.fullmatch(r"[A-Z0-9_ |]+", args[pos]):
            want.setdefault(f, []).append(names_in(args[pos]))
if not want:
    sys.exit("%s: no HDF5 or PnetCDF open with symbolic flags" % src)
got = {}
for line in open(jl):
    e = json.loads(line)
    if e["rank"] == 0 and e["func"] in CALLS:
        got.setdefault(e["func"], []).append(names_in(e.get("names", {}).get(CALLS[e["func"]][1], "")))
for f in want:
    if got.get(f) != want[f]:
        sys.exit("%s flags shown as %s, the program passes %s" % (f, got.get(f), want[f]))
print("   " + "; ".join("%s %s" % (f, " ".join("|".join(n) for n in want[f])) for f in sorted(want)))
