#!/bin/bash
# ioreplay round trip: trace a program, replay its trace with ioreplay
# --verify (the replay traces itself), and the two traces hold the same calls
# at the replayed level (the outermost POSIX, stdio, MPI and MPI-IO calls:
# functions, arguments, return values, order per rank); the files the replay
# writes have the sizes of the original's. On MPICH (whose MPI-IO's POSIX
# calls are seen through the static link) the same at the POSIX level.
. "$(dirname "$0")/../lib.sh"
for p in known loops gather0 transp classic userops collw fcalls big; do build_traced $p; done
build_traced threads -pthread
levels=default
[ "$MPI" = mpich ] && levels="default posix"
for level in $levels; do
    export ROUNDTRIP_LEVEL=$level
    roundtrip known-$level 4 "$WORK/known"
    roundtrip loops-$level 3 "$WORK/loops" all 10
    roundtrip gather0-$level 4 "$WORK/gather0"
    # a replay reissues requests whole: the file-size limit part of transp
    # (short writes, EFBIG) depends on the original's environment, left out here
    TRANSP_NO_FSIZE_LIMIT=1 roundtrip transp-$level 3 "$WORK/transp"
    roundtrip classic-$level 2 "$WORK/classic" 5 20
    # the program's own reduction operation and MPI_Bsend's buffer
    roundtrip userops-$level 3 "$WORK/userops"
    roundtrip collw-$level 4 "$WORK/collw"
    # requests completed with and without a status (a send's is left as MPI found it)
    roundtrip fcalls-$level 4 "$WORK/fcalls"
    roundtrip big-$level 2 "$WORK/big" irregular 2000 mpi
    # POSIX calls from 4 threads, MPI from the main one
    roundtrip threads-$level 2 "$WORK/threads" funneled
done
# MPI from several threads of each rank (threads.c's Sendrecvs, a tag per
# thread): one replay thread reissuing them in one order could deadlock,
# so they are not reissued; the replay ends, says why, and exits 1.
mkdir -p orig-mt
(cd orig-mt && SIOT_TRACE=$WORK/mt.siot mpirun_np 2 ../threads multiple > /dev/null) || fail "threads multiple"
"$B/bin/ioreplay" --check mt.siot > mt.check && fail "ioreplay --check: a trace with MPI from several threads is not fully replayable"
grep -q "MPI_Sendrecv: MPI calls made by several threads of a rank" mt.check || { cat mt.check >&2; fail "--check: no reason"; }
st=0
timeout 120 "${MPIRUN[@]}" -np 2 "$B/bin/ioreplay" --explain --root "$WORK/root-mt" mt.siot > mt.report || st=$?
[ $st = 1 ] || { cat mt.report >&2; fail "replay of threads multiple exited $st, not 1"; }
n=$(grep -c "MPI_Sendrecv: not reissued: MPI calls made by several threads" mt.report || true)
want=$(jsonl mt.siot | grep -c '"func":"MPI_Sendrecv"')
[ "$n" = "$want" ] || fail "threads multiple: $n Sendrecvs listed as not reissued, $want recorded"
NT=$(sed -n 's/^#define NT \([0-9]*\)/\1/p' "$ROOT/tests/progs/threads.c")
nfiles=$(find root-mt -name 'threads-*.dat' -size $((100 * 256))c | wc -l)
[ "$nfiles" = $((2 * NT)) ] || fail "threads multiple: the replay wrote $nfiles whole files, not $((2 * NT))"
# every request of loops.c was made by a traced call (MPICH gives its small
# Isends one shared handle, which must still be two requests, not unknown)
dump_has loops-default.orig.siot "note unknown_handles" && fail "loops: requests recorded as unknown"
# userops.c's calls recorded with its values (BSEND_BYTES from its source)
def() { c_define "$1" "$ROOT/tests/progs/userops.c"; }
jsonl userops-default.orig.siot > uo.jsonl
python3 - uo.jsonl "$(def NMSG)" "$(def MSG)" <<'PY' || fail "userops: MPI_Op_create, MPI_Buffer_attach/detach"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
NMSG, MSG = int(sys.argv[2]), int(sys.argv[3])
for r in range(3):
    f = {}
    for e in ev:
        if e["rank"] == r:
            f.setdefault(e["func"], []).append(e)
    op = f["MPI_Op_create"][0]["args"]
    if op["commute"] != 1 or [e["args"]["op"] for e in f["MPI_Allreduce"] + f["MPI_Reduce"]] != [op["op"]] * 2 \
            or f["MPI_Op_free"][0]["args"]["op"] != op["op"]:
        sys.exit("rank %d: the operation %s is not the one the reductions use and free" % (r, op))
    att, det = f["MPI_Buffer_attach"][0]["args"]["size"], f["MPI_Buffer_detach"][0]["args"]["size"]
    if att != det or att < NMSG * MSG * 4 or len(f["MPI_Bsend"]) != NMSG:
        sys.exit("rank %d: attach %s, detach %s, %d Bsend" % (r, att, det, len(f["MPI_Bsend"])))
PY
pass "round trip of the test programs at the levels $levels: ioreplay --verify faithful, same files (the examples: 80-examples)"
