"""check_stack.py TRACE.jsonl TOP_FUNC_REGEX EXPECT_TOP_BYTES POSIX(0|1)

The multi-level stack of an I/O library: every data-writing call of the top
layer (H5Dwrite, ncmpi_put_*) that moved bytes has MPI-IO write calls among
its children, and (POSIX=1, the MPICH flavour) those have pwrite children
somewhere in the job; the bytes written per layer are ordered: what the
library was asked to write (exactly EXPECT_TOP_BYTES, known from the
program) <= what MPI-IO wrote <= what POSIX wrote."""
import json
import re
import sys

events = [json.loads(l) for l in open(sys.argv[1])]
top_re = re.compile(sys.argv[2])
want_top = int(sys.argv[3])
posix = sys.argv[4] == "1"


def fail(msg):
    sys.exit("check_stack: " + msg)


kids = {}
for e in events:
    if e["parent"] >= 0:
        kids.setdefault((e["rank"], e["parent"]), []).append(e)


def is_write(e):
    return e["layer"] in ("posix", "mpiio") and "write" in e["func"] or e["func"] == "H5Dwrite" or (
        e["layer"] == "pnetcdf" and "_put_" in e["func"])


tops = [e for e in events if top_re.fullmatch(e["func"])]
if not tops:
    fail("no %s events" % sys.argv[2])
chains = 0
for e in tops:
    if not e.get("bytes"):
        continue
    io = [c for c in kids.get((e["rank"], e["seq"]), []) if c["layer"] == "mpiio" and "write" in c["func"]]
    if not io:
        fail("rank %d seq %d %s wrote %d bytes without an MPI-IO write child" % (e["rank"], e["seq"], e["func"], e["bytes"]))
    for c in io:
        if any(g["func"].startswith("pwrite") for g in kids.get((c["rank"], c["seq"]), [])):
            chains += 1
if posix and not chains:
    fail("no %s -> MPI-IO -> pwrite chain" % sys.argv[2])

total = {"top": 0, "mpiio": 0, "posix": 0}
for e in events:
    if not is_write(e):
        continue
    b = e.get("bytes", 0)
    if top_re.fullmatch(e["func"]):
        total["top"] += b
    elif e["layer"] == "mpiio":
        total["mpiio"] += b
    elif e["layer"] == "posix":
        total["posix"] += b
if total["top"] != want_top:
    fail("%s wrote %d bytes, the program asked for %d" % (sys.argv[2], total["top"], want_top))
if not total["top"] <= total["mpiio"]:
    fail("the library asked for %d bytes but MPI-IO wrote %d" % (total["top"], total["mpiio"]))
if posix and not total["mpiio"] <= total["posix"]:
    fail("MPI-IO wrote %d bytes but POSIX %d" % (total["mpiio"], total["posix"]))
print("   %s: %d bytes asked, MPI-IO %d (metadata %d)%s; %d chains down to pwrite" % (
    sys.argv[2], total["top"], total["mpiio"], total["mpiio"] - total["top"],
    ", POSIX %d" % total["posix"] if posix else "", chains))
