#!/bin/bash
# HDF5 calls beyond create/open/read/write (tests/progs/h5more.c, one
# process, the sec2 driver): direct chunk I/O with its bytes and the POSIX
# transfer of exactly the chunk beneath it, a point selection with its
# coordinates, soft links, objects and committed types, the file size the
# program was told; ioreplay reproduces the run. HDF5 ids kept alive by
# H5Iinc_ref over their closes (tests/progs/h5keep.c, 2 processes, MPI-IO).
# A run over its old output (H5F_ACC_TRUNC, tests/progs/h5indep.c) replays
# faithfully with the old file staged at its size.
. "$(dirname "$0")/../lib.sh"
SRC=$ROOT/tests/progs/h5more.c
$MPICC -std=c11 -O1 -g -I/usr/include/hdf5/$MPI -c "$SRC" -o h5more.o || fail "compile h5more.c"
$MPICC h5more.o -Wl,@"$B/wrap-hdf5.flags" -o h5more || fail "link h5more against the tracer"
def() { c_define "$1" "$SRC"; }
CH=$(def CH) NPTS=$(def NPTS) NC=$(def NC)
COORDS=$(sed -n 's/.*coord\[NPTS\]\[2\] = {\(.*\)}, n = NPTS;/\1/p' "$SRC" | tr -c '0-9\n' ' ')
[ -n "$CH" ] && [ -n "$NPTS" ] && [ -n "$COORDS" ] || fail "cannot read CH/NPTS/coord from h5more.c"

mpirun_np 1 ./h5more out.h5 > run.out || fail "h5more"
told=$(sed -n 's/^filesize //p' run.out)
[ "$told" = "$(stat -c %s out.h5)" ] || fail "H5Fget_filesize told the program $told, the file has $(stat -c %s out.h5) bytes"
jsonl h5more.siot > h.jsonl
python3 - h.jsonl "$CH" "$NPTS" "$told" "$COORDS" "$NC" <<'PY' || fail "the HDF5 calls"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
CH, NPTS, told = map(int, sys.argv[2:5])
coords = [int(x) for x in sys.argv[5].split()]
NC = int(sys.argv[6])
B = CH * CH * 4  # one chunk of ints


def one(f):
    c = [e for e in ev if e["func"] == f]
    if len(c) != 1:
        sys.exit("%d %s calls, the program makes 1" % (len(c), f))
    return c[0]


def posix_kids(e, op):
    return [c["args"]["count"] for c in ev if c["parent"] == e["seq"] and c["layer"] == "posix" and c["func"].startswith(op)]


if one("H5Pset_chunk")["args"]["dim"] != [CH, CH]:
    sys.exit("H5Pset_chunk dims %s" % one("H5Pset_chunk")["args"]["dim"])
for f, op in (("H5Dwrite_chunk", "pwrite"), ("H5Dread_chunk", "pread")):
    e = one(f)
    if e["args"]["offset"] != [CH, 0] or e["bytes"] != B or posix_kids(e, op) != [B]:
        sys.exit("%s: offset %s, %s bytes, POSIX %s beneath: %s" % (f, e["args"]["offset"], e["bytes"], op, posix_kids(e, op)))
if one("H5Dwrite_chunk")["args"]["data_size"] != B:
    sys.exit("H5Dwrite_chunk data_size %s" % one("H5Dwrite_chunk")["args"]["data_size"])
sel = one("H5Sselect_elements")["args"]
if sel["num_elem"] != NPTS or sel["coord"] != coords:
    sys.exit("H5Sselect_elements recorded %s, the program selects %d points %s" % (sel, NPTS, coords))
# the points (ints), and the records of which the file keeps one int member
# each: what the file gets, not the structs' size in memory
writes = sorted(e["bytes"] for e in ev if e["func"] == "H5Dwrite")
if writes != sorted([NPTS * 4, NC * 4]):
    sys.exit("H5Dwrite bytes %s, want %d (the points) and %d (NC records' int member)" % (writes, NPTS * 4, NC * 4))
soft = one("H5Lcreate_soft")["args"]
if (soft["link_target"], soft["link_name"]) != ("/ds", "alias") or one("H5Lexists")["ret"] != 1:
    sys.exit("soft link %s, H5Lexists %s" % (soft, one("H5Lexists")["ret"]))
o = one("H5Oopen")
if o["ret"] < 256 or one("H5Oclose")["args"]["object_id"] != o["ret"]:
    sys.exit("H5Oopen made %s, H5Oclose closed %s" % (o["ret"], one("H5Oclose")["args"]))
if one("H5Tcommit2")["args"]["name"] != "itype" or one("H5Topen2")["ret"] < 256 or one("H5Ldelete")["args"]["name"] != "alias":
    sys.exit("H5Tcommit2/H5Topen2/H5Ldelete: %s %s %s" % (one("H5Tcommit2"), one("H5Topen2"), one("H5Ldelete")))
if one("H5Fget_filesize")["args"]["size"] != told:
    sys.exit("H5Fget_filesize recorded %s, the program was told %d" % (one("H5Fget_filesize")["args"]["size"], told))
print("   direct chunk I/O of %d bytes over exactly one POSIX transfer each, %d points %s, links, objects, "
      "committed type, file size %d" % (B, NPTS, coords, told))
PY
roundtrip h5more 1 "$WORK/h5more" out.h5
# HDF5 identifiers kept by reference counts (tests/progs/h5keep.c, netCDF-4's
# way, P=2, the MPI-IO driver): a dataset raised by H5Iinc_ref outlives the
# close that drops one reference. Its reads and closes record the id of its
# open, no identifier made meanwhile takes that id, the last reference
# (H5Idec_ref, H5Dclose) releases it, and the file's row counts the bytes.
# Before, H5Oclose released the id: the reads went to a new id of no file.
KSRC=$ROOT/tests/progs/h5keep.c
$MPICC -std=c11 -O1 -g -I/usr/include/hdf5/$MPI -c "$KSRC" -o h5keep.o || fail "compile h5keep.c"
$MPICC h5keep.o -Wl,@"$B/wrap-hdf5.flags" -o h5keep || fail "link h5keep against the tracer"
NPER=$(c_define NPER "$KSRC")
READS=$(c_define READS "$KSRC")
KP=2
mpirun_np $KP ./h5keep keep.h5 > /dev/null || fail "h5keep"
jsonl h5keep.siot > k.jsonl
"$SIOT" stats --json h5keep.siot > k.stats.json || fail "siot stats --json h5keep.siot"
python3 - k.jsonl k.stats.json "$NPER" "$READS" "$KP" <<'PY' || fail "HDF5 ids kept by H5Iinc_ref"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
stats = json.load(open(sys.argv[2]))
NPER, READS, P = map(int, sys.argv[3:6])
HID_BASE = 256  # created ids start there (docs/handles.md): smaller results are counts and errors


def calls(evs, f):
    return [e for e in evs if e["func"] == f]


def first(evs, f):
    c = calls(evs, f)
    if not c:
        sys.exit("no %s call" % f)
    return c[0]


def check_rank(r):
    mine = sorted((e for e in ev if e["rank"] == r and e["layer"] == "hdf5"), key=lambda e: e["seq"])
    reopened = mine[mine.index(calls(mine, "H5Fopen")[0]):]  # after the file was written
    o, d = first(reopened, "H5Oopen")["ret"], first(reopened, "H5Dopen2")["ret"]
    if o < HID_BASE or d != o:
        # at both opens only the access list and the file were open: the id
        # H5Idec_ref released is the lowest free one again
        sys.exit("rank %d: H5Oopen made %s, H5Dopen2 %s: the last reference did not release the id" % (r, o, d))
    reads = calls(reopened, "H5Dread")
    if len(reads) != READS or any(e["args"]["dset_id"] != o or e["bytes"] != NPER * 4 for e in reads):
        sys.exit("rank %d: H5Dread on %s of %s bytes; the program reads %d x %d B through dataset %d" %
                 (r, [e["args"]["dset_id"] for e in reads], [e["bytes"] for e in reads], READS, NPER * 4, o))
    closed = [e["args"]["object_id"] for e in calls(reopened, "H5Oclose")] + \
             [e["args"]["dset_id"] for e in calls(reopened, "H5Dclose")] + \
             [e["args"]["id"] for e in calls(reopened, "H5Idec_ref")]
    if closed != [o] * 5:
        sys.exit("rank %d: H5Oclose, H5Dclose x3, H5Idec_ref closed %s, the program closes dataset %d" % (r, closed, o))
    counts = [e["ret"] for e in calls(reopened, "H5Iinc_ref")] + [e["ret"] for e in calls(reopened, "H5Idec_ref")]
    if counts != [2, 2, 2, 0]:
        sys.exit("rank %d: H5Iinc_ref x3, H5Idec_ref returned %s" % (r, counts))
    made = [e for e in reopened if e["func"] not in ("H5Oopen", "H5Dopen2") and e["ret"] == o]
    if made:
        sys.exit("rank %d: the kept dataset's id %d given to %s" % (r, o, [e["func"] for e in made]))
    return o


ids = [check_rank(r) for r in range(P)]
rows = [f for f in stats["files"] if f["layer"] == "hdf5" and f["name"].endswith("keep.h5")]
want = (P * READS * NPER * 4, P * NPER * 4)
if len(rows) != 1 or (rows[0]["bytes_read"], rows[0]["bytes_written"]) != want:
    sys.exit("hdf5 file rows %s; the program reads %d and writes %d bytes of keep.h5" % (rows, want[0], want[1]))
print("   kept dataset %s: %d reads through it, its closes and H5Idec_ref on it; keep.h5 hdf5 read %d, written %d B"
      % (ids, READS, want[0], want[1]))
PY
"$B/bin/ioreplay" --check h5keep.siot > k.check || { cat k.check >&2; fail "ioreplay --check h5keep.siot failed"; }
grep -q '^replayable: all' k.check || { cat k.check >&2; fail "ioreplay --check: not every call of h5keep replayable"; }
roundtrip h5keep $KP "$WORK/h5keep" keep.h5
# The HDF5 layer's library preloaded alone (libsiotrace.so then comes in as
# its dependency, after the C library and MPI): it hung, each interposer
# calling itself as the real function. Now the program runs as untraced,
# its file the same, one line says why nothing is traced, and no trace is
# written; preloaded with libsiotrace.so, it is traced.
$MPICC h5more.o -L/usr/lib/x86_64-linux-gnu/hdf5/$MPI -lhdf5 -o h5more.plain || fail "link h5more untraced"
mkdir -p alone both
# preload ENV...: mpirun's way of giving the rank alone an environment
# (a singleton's helper process, or timeout, would inherit it too)
preload() {
    if [ "$MPI" = openmpi ]; then
        printf -- '-x\n%s\n' "$@"
    else
        for kv in "$@"; do printf -- '-env\n%s\n%s\n' "${kv%%=*}" "${kv#*=}"; done
    fi
}
mapfile -t ENV < <(preload LD_PRELOAD="$B/lib/libsiotrace-hdf5.so")
(cd alone && timeout 120 "${MPIRUN[@]}" -np 1 "${ENV[@]}" ../h5more.plain out.h5 > run.out 2> run.err) ||
    fail "h5more.plain with libsiotrace-hdf5.so alone preloaded exited $?"
[ "$(stat -c %s alone/out.h5)" = "$told" ] || fail "the untraced file differs in size"
[ "$(grep -c '^siotrace: libsiotrace.so was not preloaded itself' alone/run.err)" = 1 ] ||
    { cat alone/run.err >&2; fail "not one line saying why nothing is traced"; }
[ -z "$(find alone -name '*.siot')" ] || fail "a trace was written though nothing was traced"
mapfile -t ENV < <(preload LD_PRELOAD="$B/lib/libsiotrace-hdf5.so:$B/lib/libsiotrace.so" SIOT_TRACE="$WORK/both.siot")
(cd both && timeout 120 "${MPIRUN[@]}" -np 1 "${ENV[@]}" ../h5more.plain out.h5 > /dev/null) ||
    fail "h5more.plain with both libraries preloaded"
jsonl both.siot > both.jsonl
grep -q '"func":"H5Dwrite_chunk"' both.jsonl || fail "preloaded with libsiotrace.so, H5Dwrite_chunk is not traced"
echo "   libsiotrace-hdf5.so preloaded alone: the program untraced with one line why; with libsiotrace.so: traced"
# A run over last run's output (tests/progs/h5indep.c, H5F_ACC_TRUNC over
# the old file, as a benchmark run twice does): HDF5 asks the old file's
# size, then cuts it to 0. The replay stages the old file at that size, so
# that MPI_File_get_size returns the run's value: faithful (it said 14848
# against 0 before).
ISRC=$ROOT/tests/progs/h5indep.c
$MPICC -std=c11 -O1 -g -I/usr/include/hdf5/$MPI -c "$ISRC" -o h5indep.o || fail "compile h5indep.c"
$MPICC h5indep.o -Wl,@"$B/wrap-hdf5.flags" -o h5indep || fail "link h5indep against the tracer"
rm -rf orig-indep && mkdir orig-indep
(cd orig-indep && mpirun_np 4 ../h5indep indep.h5 < /dev/null) || fail "h5indep (first run)"
old=$(stat -c %s orig-indep/indep.h5)
(cd orig-indep && SIOT_TRACE=$WORK/indep.siot mpirun_np 4 ../h5indep indep.h5 < /dev/null) || fail "h5indep (run again)"
jsonl indep.siot | python3 -c '
import json, sys
got = [e["args"]["size"] for e in map(json.loads, sys.stdin) if e["func"] == "MPI_File_get_size" and e["rank"] == 0]
if not got or got[0] != int(sys.argv[1]):
    sys.exit("rank 0 MPI_File_get_size %s, want the old file size %s first" % (got, sys.argv[1]))
' "$old" || fail "h5indep run again: the old size at the create"
rm -rf root-indep
st=0
mpirun_np 4 "$B/bin/ioreplay" --verify --explain --root "$WORK/root-indep" indep.siot < /dev/null > indep.report || st=$?
[ $st = 0 ] || { cat indep.report >&2; fail "h5indep over its old output: ioreplay --verify exited $st"; }
grep -q "^round trip: faithful" indep.report || { cat indep.report >&2; fail "h5indep over its old output: not faithful"; }
grep -q "^ioreplay: input files: 1 made from the trace, .*($old bytes)" indep.report ||
    { cat indep.report >&2; fail "h5indep over its old output: the old file ($old bytes) not staged"; }
echo "   H5Fcreate(H5F_ACC_TRUNC) over last run's file: staged at its $old bytes, faithful"
pass "HDF5 chunk I/O, point selections, links, objects, committed types, the file size, ids kept by H5Iinc_ref recorded, replayed; a run over its old output replayed"
