#!/bin/bash
# A Fortran program (the BT-IO variant, mpif.h bindings) is traced on both
# flavours (MPICH: the C wrappers through libmpichfort; Open MPI: the
# generated Fortran wrappers): its MPI-IO calls are there with the right
# displacements, counts and bytes, handles converted, and its output file is
# the same as untraced.
. "$(dirname "$0")/../lib.sh"
N=12 S=3
mpif90.$MPI -O2 -J. "$ROOT/examples/btio/btio_f.f90" -o btio_f.plain
for P in 1 4; do
    mpirun_np $P "$B/examples/btio_f" -n $N -s $S > out.txt || fail "btio_f at P=$P"
    jsonl btio_f.siot > f.jsonl
    python3 - f.jsonl $P $N $S <<'PY' || fail "btio_f at P=$P: MPI-IO calls"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
P, N, S = map(int, sys.argv[2:])
q = int(round(P ** 0.5))
def split(m, parts, p):  # btio_f.f90's decomposition
    lo = p * (m // parts) + min(p, m % parts)
    return lo, m // parts + (1 if p < m % parts else 0)
step = N * N * N * 5 * 8
for r in range(P):
    ys, ly = split(N, q, r % q)
    zs, lz = split(N, q, r // q)
    mine = [e for e in ev if e["rank"] == r and e["parent"] == -1]
    names = [e["func"] for e in mine if e["layer"] == "mpiio"]
    want = (["MPI_File_delete"] if r == 0 else []) + ["MPI_File_open"] + ["MPI_File_set_view", "MPI_File_write_all"] * S + \
        ["MPI_File_close", "MPI_File_open"] + ["MPI_File_set_view", "MPI_File_read_all"] * S + ["MPI_File_close"]
    if names != want:
        sys.exit("rank %d: MPI-IO calls %s, want %s" % (r, names, want))
    sub = [e for e in mine if e["func"] == "MPI_Type_create_subarray"][0]["args"]
    if (sub["array_of_sizes"], sub["array_of_subsizes"], sub["array_of_starts"]) != ([N, N, N], [N, ly, lz], [0, ys, zs]):
        sys.exit("rank %d: subarray %s" % (r, sub))
    views = [e["args"] for e in mine if e["func"] == "MPI_File_set_view"]
    if [v["disp"] for v in views] != [s * step for s in range(S)] * 2 or any(v["datarep"] != "native" for v in views):
        sys.exit("rank %d: views %s" % (r, views))
    io = [e for e in mine if e["func"] in ("MPI_File_write_all", "MPI_File_read_all")]
    if any(e["args"]["count"] != N * ly * lz or e["bytes"] != N * ly * lz * 40 or e["ret"] != 0 for e in io):
        sys.exit("rank %d: transfers %s" % (r, [(e["args"], e["bytes"]) for e in io]))
    etype = [e["args"]["newtype"] for e in mine if e["func"] == "MPI_Type_contiguous"]
    if any(e["args"]["datatype"] != etype[0] for e in io) or any(v["filetype"] != sub["newtype"] for v in views):
        sys.exit("rank %d: datatypes do not match the ones created" % r)
    opens = [e for e in mine if e["func"] == "MPI_File_open"]
    if [o["args"]["filename"] for o in opens] != ["btio.out"] * 2:
        sys.exit("rank %d: file names %s" % (r, [o["args"]["filename"] for o in opens]))
print("   P=%d: %d MPI-IO calls per rank, displacements and counts as btio_f.f90 computes them" % (P, len(want)))
PY
    mv btio.out traced.out
    mpirun_np $P ./btio_f.plain -n $N -s $S > /dev/null || fail "untraced btio_f at P=$P"
    cmp -s btio.out traced.out || fail "btio_f at P=$P: the traced run's file differs from the untraced one's"
    rm -f btio_f.siot btio.out traced.out
done

# The same calls from C and from Fortran give the same events: requests and
# their completion, Waitany's index (Fortran counts from 1), statuses given
# and ignored, strings, communicators, datatypes, MPI-IO, one-sided
# communication (MPI_Win_create, fence, Put, Get, lock, Accumulate).
$MPICC -O1 -c "$ROOT/tests/progs/fcalls.c" -o fcalls.o
$MPICC fcalls.o -Wl,@"$FLAGS" -o fcalls
mpif90.$MPI -O1 -c "$ROOT/tests/progs/fcalls_f.f90" -o fcalls_f.o
mpif90.$MPI fcalls_f.o -Wl,@"$FLAGS" -o fcalls_f
SIOT_TRACE=c.siot mpirun_np 4 ./fcalls || fail "fcalls (C)"
rm -f fcalls.dat
SIOT_TRACE=f.siot mpirun_np 4 ./fcalls_f || fail "fcalls_f (Fortran)"
"$SIOT" diff c.siot f.siot > cf.diff || { cat cf.diff >&2; fail "the Fortran program's events differ from the C program's"; }
echo "   fcalls: the Fortran program's $(jsonl f.siot | wc -l) events equal the C program's"

# A file view built the MPI-1 way (MPI_ADDRESS, MPI_TYPE_HVECTOR,
# MPI_TYPE_STRUCT: removed from the standard, still exported): the
# constructors are recorded with tstruct_f.f90's values, the write uses
# them, and the replay writes a file of the same size with every block the
# program wrote filled (the holes between them are left to the library:
# ROMIO's data sieving and OMPIO's buffers fill them with what they held).
# -no-pie: MPI_ADDRESS returns a default INTEGER, too small for PIE addresses.
mpif90.$MPI -no-pie -O1 -c "$ROOT/tests/progs/tstruct_f.f90" -o tstruct_f.o
mpif90.$MPI -no-pie tstruct_f.o -Wl,@"$FLAGS" -o tstruct_f
P=3
mkdir -p orig-ts
(cd orig-ts && SIOT_TRACE=$WORK/ts.siot mpirun_np $P ../tstruct_f) || fail "tstruct_f"
jsonl ts.siot > ts.jsonl
python3 - ts.jsonl $P <<'PY' || fail "tstruct_f: the MPI-1 constructors"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
P, B, NB = int(sys.argv[2]), 4, 2  # B and NB as tstruct_f.f90 sets them
for r in range(P):
    mine = {}
    for e in ev:
        if e["rank"] == r:
            mine.setdefault(e["func"], []).append(e)
    # two MPI_Address calls; the addresses themselves are not recorded (they
    # differ between runs and ranks), their difference is hvector's stride
    addr = mine.get("MPI_Address", [])
    if len(addr) != 2 or any("address" in e["args"] for e in addr):
        sys.exit("rank %d: MPI_Address %s, want two calls without the address" % (r, addr))
    hv = [e["args"] for e in mine.get("MPI_Type_hvector", [])]
    if len(hv) != 1 or (hv[0]["count"], hv[0]["blocklength"], hv[0]["stride"]) != (NB, B, 2 * B * 4):
        sys.exit("rank %d: MPI_Type_hvector %s" % (r, hv))
    st = [e["args"] for e in mine.get("MPI_Type_struct", [])]
    blk = mine["MPI_Type_contiguous"][0]["args"]["newtype"]
    if len(st) != 1 or (st[0]["array_of_blocklengths"], st[0]["array_of_displacements"], st[0]["array_of_types"]) != \
            ([1, 1], [0, 2 * P * B * 4], [blk, blk]):
        sys.exit("rank %d: MPI_Type_struct %s" % (r, st))
    # the decoding: get_contents' addresses are what it returned (the
    # struct's displacements), not the array as the program passed it (-1)
    gc = [e["args"] for e in mine.get("MPI_Type_get_contents", [])]
    if len(gc) != 1 or gc[0].get("array_of_addresses") != [0, 2 * P * B * 4] or \
            gc[0].get("array_of_integers") != [NB, 1, 1]:
        sys.exit("rank %d: MPI_Type_get_contents %s, want addresses [0, %d] and integers [%d, 1, 1]"
                 % (r, gc, 2 * P * B * 4, NB))
    view = mine["MPI_File_set_view"][0]["args"]
    w = mine["MPI_File_write"][0]
    if view["filetype"] != st[0]["newtype"] or view["disp"] != r * B * 4 or w["args"]["datatype"] != hv[0]["newtype"] \
            or w["bytes"] != NB * B * 4:
        sys.exit("rank %d: view %s, write %s" % (r, view, w))
PY
mpirun_np $P "$B/bin/ioreplay" --verify --root "$WORK/root-ts" ts.siot > ts.report ||
    { cat ts.report >&2; fail "tstruct_f: replay"; }
grep -q "^round trip: faithful" ts.report || { cat ts.report >&2; fail "tstruct_f: the replay's calls differ"; }
python3 - orig-ts/tstruct.out root-ts/tstruct.out $P <<'PY' || fail "tstruct_f: the replay's file layout"
import sys
P, B = int(sys.argv[3]), 16  # bytes per block (4 integers)
files = [open(f, "rb").read() for f in sys.argv[1:3]]
if len(files[0]) != 3 * P * B or len(files[1]) != len(files[0]):
    sys.exit("sizes %d (original) and %d (replay), want %d" % (len(files[0]), len(files[1]), 3 * P * B))
for r in range(P):
    for blk in (r, 2 * P + r):
        if any(f[blk * B:(blk + 1) * B] == bytes(B) for f in files):
            sys.exit("block %d (rank %d) is empty in %s" % (blk, r, [f[blk * B:(blk + 1) * B] == bytes(B) for f in files]))
PY
# every call replayed (MPI_Init and MPI_Finalize by ioreplay itself), none differently
grep -Eq "calls not replayed +0 +0 +0.0 +0$" ts.report && grep -Eq "different results +0 +0 " ts.report ||
    { cat ts.report >&2; fail "tstruct_f: calls not replayed or with different results"; }
echo "   MPI_ADDRESS/MPI_TYPE_HVECTOR/MPI_TYPE_STRUCT and MPI_TYPE_GET_CONTENTS's addresses recorded; the replay wrote the same layout"

# Fortran unit I/O goes through libgfortran: seen with -static-libgfortran
# (its calls are --wrap's) and with the shared library (they reach the
# exported entries): three 7-byte lines and 100 doubles either way.
mpif90.$MPI -c "$ROOT/tests/progs/fio_f.f90" -o fio_f.o
mpif90.$MPI -static-libgfortran fio_f.o -Wl,@"$FLAGS" -o fio_static
mpif90.$MPI fio_f.o -Wl,@"$FLAGS" -o fio_shared
SIOT_TRACE=st.siot mpirun_np 1 ./fio_static || fail "fio_f (static libgfortran)"
SIOT_TRACE=sh.siot mpirun_np 1 ./fio_shared || fail "fio_f (shared libgfortran)"
for t in st sh; do
    jsonl $t.siot | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin if "\"posix\"" in l]
opens = [e["args"]["pathname"] for e in ev if e["func"] == "open"]
written = sum(e["bytes"] for e in ev if e["func"] == "write")
closes = sum(e["func"] == "close" for e in ev)
if opens != ["fio.txt", "fio.bin"] or written != 21 + 800 or closes != 2:
    sys.exit("opens %s, %d bytes written, %d closes" % (opens, written, closes))
' || fail "Fortran unit I/O ($t: $([ $t = st ] && echo static || echo shared) libgfortran)"
done
echo "   Fortran unit I/O: traced with a static and with the shared libgfortran, the same calls"
# The Fortran programs replayed: ioreplay --verify faithful, the same files
# (and on MPICH at the POSIX level too)
levels=default
[ "$MPI" = mpich ] && levels="default posix"
for level in $levels; do
    export ROUNDTRIP_LEVEL=$level
    roundtrip fcalls_f-$level 4 "$WORK/fcalls_f"
    roundtrip tstruct_f-$level 3 "$WORK/tstruct_f"
    roundtrip fio-$level 1 "$WORK/fio_shared"
done
unset ROUNDTRIP_LEVEL
pass "Fortran MPI and MPI-IO calls traced as C ones, BT-IO's with the right displacements, counts and bytes"
