#!/bin/bash
# The site rule of siot findings, siot stats' call sites and siot report
# (siot/sites.h): calls made by MPI-IO, HDF5 or PnetCDF for the program are
# shown at the program's line of its outermost traced call, file.c:LINE, with
# the chain of library calls as detail; files are told apart by name, not by
# the handle id the library reuses. Programs built with -g, 2 ranks, at the
# default SIOT_STACK_DEPTH and at 16:
#   tests/progs/iosites.c    MPI-IO: independent MPI_File_write_at through a
#                            helper (indep), and NFILE files in turn with NWR
#                            writes per rank each (reuse)
#   tests/progs/h5sites.c    an HDF5 particle kernel: H5Dwrite and H5Fflush
#                            per step (MPICH and HDF5 linked in statically)
#   tests/progs/ncsites.c    PnetCDF (Open MPI only, Debian's): as iosites
#   tests/progs/ncsites_f.f90  PnetCDF's Fortran API (nfmpi_* in
#                            libpnetcdf.so calling the C ncmpi_*)
# Every site of every finding, and every call site of siot stats, is a
# program frame at the program's source; the first site of small-requests,
# misaligned-requests and independent-shared is the line marked SITE:write
# in the source; independent-shared names the file of the source's
# INDEP_NAME with the calls it gets (NW per rank); the reuse programs, whose
# files each get NWR per rank from 2 ranks (under the rule's 8), get none.
. "$(dirname "$0")/../lib.sh"
P=2
build_traced iosites
PROGS="iosites:indep iosites:reuse"
$MPICC -std=c11 -O1 -g -I/usr/include/hdf5/$MPI -c "$ROOT/tests/progs/h5sites.c" -o h5sites.o || fail "compile h5sites.c"
$MPICC h5sites.o -Wl,@"$B/wrap-hdf5.flags" -o h5sites || fail "link h5sites against the tracer"
PROGS="$PROGS h5sites:indep"
if [ -f "$B/wrap-pnetcdf.flags" ]; then
    $MPICC -std=c11 -O1 -g -c "$ROOT/tests/progs/ncsites.c" -o ncsites.o || fail "compile ncsites.c"
    $MPICC ncsites.o -Wl,@"$B/wrap-pnetcdf.flags" -o ncsites || fail "link ncsites against the tracer"
    mpif90.$MPI -O1 -g -I/usr/include/x86_64-linux-gnu -c "$ROOT/tests/progs/ncsites_f.f90" -o ncsites_f.o ||
        fail "compile ncsites_f.f90"
    mpif90.$MPI ncsites_f.o -Wl,@"$B/wrap-pnetcdf.flags" -o ncsites_f || fail "link ncsites_f against the tracer"
    PROGS="$PROGS ncsites:indep ncsites:reuse ncsites_f:indep"
else
    echo "   (no PnetCDF on the $MPI flavour: Debian builds it for Open MPI only)"
fi
for pm in $PROGS; do
    prog=${pm%%:*} mode=${pm#*:}
    src=$ROOT/tests/progs/$prog.c
    [ -f "$src" ] || src=$ROOT/tests/progs/$prog.f90
    for depth in default 16; do
        t=$prog-$mode-$depth
        rm -f ./*.dat ./*.nc ./*.h5
        if [ $depth = default ]; then
            SIOT_TRACE=$WORK/$t.siot mpirun_np $P ./$prog $mode > /dev/null || fail "$prog $mode"
        else
            SIOT_STACK_DEPTH=$depth SIOT_TRACE=$WORK/$t.siot mpirun_np $P ./$prog $mode > /dev/null ||
                fail "$prog $mode (SIOT_STACK_DEPTH=$depth)"
        fi
        "$SIOT" findings --json $t.siot > $t.json || fail "siot findings --json $t.siot exited $?"
        "$SIOT" findings $t.siot > $t.txt || fail "siot findings $t.siot exited $?"
        "$SIOT" stats --json $t.siot > $t.stats.json || fail "siot stats --json $t.siot exited $?"
        jsonl $t.siot > $t.jsonl
        python3 - "$src" $t.json $t.stats.json $mode $P $t.jsonl <<'PY' || { cat $t.txt >&2; fail "the sites of $t"; }
import collections, json, os, re, sys
src_path, got, stats, mode, P = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), sys.argv[4], int(sys.argv[5])
# the chains the compressed pass follows equal those of the expanded events
ev = [json.loads(l) for l in open(sys.argv[6])]
by = {(e["rank"], e["seq"]): e for e in ev}
want = collections.Counter()
for e in ev:
    r = e
    while r["parent"] >= 0:
        r = by[(r["rank"], r["parent"])]
    want[(e["func"], r["func"])] += 1
chains = {(c["function"], c["outermost"]): c["calls"] for c in stats["outermost"]}
if chains != dict(want) or stats["calls_without_chain"] != 0:
    sys.exit("calls per outermost call %s (%d without), the events say %s" % (
        sorted(set(chains.items()) ^ set(want.items())), stats["calls_without_chain"], len(want)))
src = open(src_path).read()
base = os.path.basename(src_path)
C = {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (\w+) (\d+)", src)}
C.update({m.group(1): int(m.group(2)) for m in re.finditer(r"integer, parameter :: (\w+) = (\d+)", src)})
S = {m.group(1): m.group(2) for m in re.finditer(r'#define (\w+) "([^"]*)"', src)}
marked = {n + 1: m.group(1) for n, l in enumerate(src.split("\n")) for m in [re.search(r"SITE:(\w+)", l)] if m}
line_of = {v: k for k, v in marked.items()}
def at(loc):  # the source line a location names, or None
    m = re.match(re.escape(base) + r":(\d+) ", loc)
    return int(m.group(1)) if m else None
found = {f["id"]: f for f in got["findings"] if f["id"] != "rank-wait"}  # rank-wait: the run's own waits
for fid, f in found.items():
    for s in f["sites"]:
        if not s["program"] or at(s["location"]) not in marked:
            sys.exit("%s: site %r (program %s) is not a marked line of %s" % (fid, s["location"], s["program"], base))
if mode == "reuse":
    if "independent-shared" in found:
        sys.exit("reuse: independent-shared fired: %s" % found["independent-shared"]["summary"])
else:
    for fid in ("small-requests", "independent-shared"):
        if fid not in found:
            sys.exit("%s: no %s finding (found %s)" % (mode, fid, sorted(found)))
    for fid in ("small-requests", "misaligned-requests", "independent-shared"):
        if fid in found and at(found[fid]["sites"][0]["location"]) != line_of["write"]:
            sys.exit("%s: first site %r, want %s:%d" % (fid, found[fid]["sites"][0]["location"], base, line_of["write"]))
    ev = found["independent-shared"]["evidence"]
    name = S.get("INDEP_NAME", {"h5sites.c": "particles.h5", "ncsites_f.f90": "ncsites_f.nc"}.get(base))
    nw = C.get("NW", C.get("NSTEP"))
    if os.path.basename(ev["file"]) != name or ev["files"] != 1 or ev["ranks"] != P:
        sys.exit("independent-shared on %s (%s files, %s ranks), want %s, 1 file, %d ranks" % (ev["file"], ev["files"], ev["ranks"], name, P))
    # the program's writes, each one independent MPI-IO call or more (the
    # libraries add their metadata's; PnetCDF may split none)
    if ev["file_count"] < P * nw:
        sys.exit("independent-shared: %d calls on %s, the program makes %d" % (ev["file_count"], name, P * nw))
for c in stats["call_sites"]:
    if not c["program"] or at(c["location"]) is None:
        sys.exit("stats: call site %s of %s at %r (program %s), not in %s" % (c["site"], c["function"], c["location"], c["program"], base))
first = {fid: found[fid]["sites"][0]["location"] for fid in sorted(found) if found[fid]["sites"]}
print("   %-26s %s" % (sys.argv[2][:-5], "; ".join("%s: %s" % kv for kv in first.items()) or "nothing"))
PY
    done
done
# The report shows the same sites, with the chain beneath.
"$SIOT" report h5sites-indep-default.siot -o h5.html || fail "siot report h5sites-indep-default.siot"
line=$(grep -n "SITE:write" "$ROOT/tests/progs/h5sites.c" | cut -d: -f1)
grep -q "\] small-requests: " h5.html && grep -q "h5sites.c:$line (main)" h5.html ||
    fail "the report lacks h5sites.c:$line for the HDF5 writes"
grep -q "via H5Dwrite &gt; MPI_File_write_at" h5.html || fail "the report's call sites lack the chain beneath H5Dwrite"
pass "findings, stats and report sites at the program's lines (MPI-IO, HDF5$([ -f "$B/wrap-pnetcdf.flags" ] && echo ", PnetCDF C and Fortran")); no finding from a reused handle id"
