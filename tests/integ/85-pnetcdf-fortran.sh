#!/bin/bash
# PnetCDF's Fortran API: the nfmpi_* binding inside libpnetcdf.so calls the
# C ncmpi_* functions, which the relinked program exports (src/interpose.h),
# so a Fortran program's calls are recorded once each, as the C calls, with
# the C arguments (0-based starts), their MPI-IO beneath them; the file is
# the one the untraced program writes, and the untraced program under the
# preload libraries gives the same trace. PnetCDF exists for Open MPI only.
. "$(dirname "$0")/../lib.sh"
need_pnetcdf
P=2
SRC=$ROOT/tests/progs/pnf.f90
param() { sed -n "s/.*integer, parameter :: $1 = \([0-9]*\).*/\1/p" "$SRC"; }
NVARS=$(param NVARS) NX=$(param NX)
[ -n "$NVARS" ] && [ -n "$NX" ] || fail "cannot read NVARS/NX from pnf.f90"
pnetcdf_pair $P pnf "mpif90.$MPI" "$SRC" -O1 -I/usr/include/x86_64-linux-gnu
jsonl pnf.siot > n.jsonl
PYTHONPATH="$ROOT/tests/py" python3 - n.jsonl $P "$NVARS" "$NX" <<'PY' || fail "the PnetCDF calls of the Fortran program"
import collections, json, sys

from events import ancestor, children

ev = [json.loads(l) for l in open(sys.argv[1])]
P, NVARS, NX = map(int, sys.argv[2:])
by = {(e["rank"], e["seq"]): e for e in ev}
want = {"ncmpi_create": 1, "ncmpi_def_dim": 1, "ncmpi_def_var": NVARS, "ncmpi_enddef": 1,
        "ncmpi_put_vara_int_all": NVARS, "ncmpi_close": 1}
for r in range(P):
    mine = [e for e in ev if e["rank"] == r]
    got = collections.Counter(e["func"] for e in mine if e["layer"] == "pnetcdf")
    if got != want:
        sys.exit("rank %d: PnetCDF calls %s, the program makes %s" % (r, dict(got), want))
    puts = [e for e in mine if e["func"] == "ncmpi_put_vara_int_all"]
    for v, e in enumerate(puts):
        # nfmpi counts from 1, ncmpi from 0: rank r's NX ints start at r*NX
        if e["args"]["varid"] != v or e["args"]["start"] != [r * NX] or e["args"]["count"] != [NX] or e["bytes"] != NX * 4:
            sys.exit("rank %d: put %d recorded as %s, %s bytes" % (r, v, e["args"], e["bytes"]))
        if not any("write" in c["func"] for c in children(ev, e, "mpiio")):
            sys.exit("rank %d: put %d has no MPI-IO write child: %s" % (r, v, [c["func"] for c in children(ev, e, "mpiio")]))
    for f, child in (("ncmpi_create", "MPI_File_open"), ("ncmpi_close", "MPI_File_close")):
        e = next(e for e in mine if e["func"] == f)
        if child not in [c["func"] for c in children(ev, e, "mpiio")]:
            sys.exit("rank %d: %s without an %s child" % (r, f, child))
    loose = [e["func"] for e in mine if e["layer"] == "mpiio" and not ancestor(by, e, "pnetcdf")]
    if loose:
        sys.exit("rank %d: MPI-IO calls outside any PnetCDF call: %s" % (r, loose))
print("   per rank: ncmpi_create, def_dim, %d def_var, enddef, %d put_vara_int_all (start r*%d, %d bytes) "
      "and close, once each, every MPI-IO call beneath one of them" % (NVARS, NVARS, NX, NX * 4))
PY
# The unmodified program under the preload libraries gives the same trace.
mkdir -p pre && (cd pre && mpirun_np $P -x SIOT_TRACE="$WORK/pre.siot" \
    -x LD_PRELOAD="$B/lib/libsiotrace-pnetcdf.so:$B/lib/libsiotrace.so" ../pnf.plain) > /dev/null || fail "pnf under LD_PRELOAD"
"$SIOT" diff pnf.siot pre.siot > pre.diff || { cat pre.diff >&2; fail "the preloaded run's trace differs from the relinked one's"; }
echo "   the unmodified program under LD_PRELOAD=libsiotrace-pnetcdf.so:libsiotrace.so: the same trace"
pass "PnetCDF's Fortran binding: each call recorded once as its C call, MPI-IO beneath, same file as untraced, relinked or preloaded"
