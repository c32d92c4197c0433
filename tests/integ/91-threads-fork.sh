#!/bin/bash
# Threads and processes: 8 threads doing POSIX I/O at once (no MPI, MPI
# FUNNELED, MPI THREAD_MULTIPLE with MPI calls in the threads) lose no event
# and give each its thread; a forked child (ending with exit, _exit or exec)
# is not traced and leaves the parent's trace intact.
. "$(dirname "$0")/../lib.sh"
build_traced threads -pthread
for i in 1 2 3; do
    rm -f threads.siot threads-*.dat
    ./threads serial || fail "threads serial"
    jsonl threads.siot > t.jsonl
    py check_threads.py t.jsonl 1 0 || fail "threads serial (run $i)"
    # each thread records into its own queue (docs/hotpath.md): its 100
    # pwrites of 256 bytes (threads.c) fold into one loop, whatever the
    # other threads do meanwhile
    loops=$("$SIOT" dump threads.siot | grep -A1 '^\[r0\] loop x100 {' | grep -c 'pwrite(.*count=256, offset=0+256\*i0)' || true)
    [ "$loops" = 8 ] || fail "threads serial (run $i): $loops of the 8 threads' pwrite loops folded whole"
done
for mode in funneled multiple; do
    rm -f threads.siot threads-*.dat
    mpirun_np 2 ./threads $mode || fail "threads $mode"
    jsonl threads.siot > t.jsonl
    py check_threads.py t.jsonl 2 $([ $mode = multiple ] && echo 1 || echo 0) || fail "threads $mode"
done
# the uncompressed form too
rm -f threads.siot
SIOT_COMPRESS=0 mpirun_np 2 ./threads multiple || fail "threads flat"
jsonl threads.siot > t.jsonl
py check_threads.py t.jsonl 2 1 || fail "threads multiple, SIOT_COMPRESS=0"

build_traced forks
for mode in serial mpi; do
    rm -f forks.siot forks-*.dat
    if [ $mode = mpi ]; then mpirun_np 2 ./forks mpi; else ./forks; fi || fail "forks $mode"
    [ -f forks-child.dat ] || fail "forks $mode: the children did not run"
    ls forks*.siot | grep -qv '^forks.siot$' && fail "forks $mode: a child wrote a trace: $(ls forks*.siot)"
    jsonl forks.siot > f.jsonl
    python3 - f.jsonl <<'PY' || fail "forks $mode: the parent's trace"
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if '"posix"' in l]
r0 = [e for e in ev if e["rank"] == 0]
names = [e["args"].get("pathname") for e in r0 if e["func"] == "open"]
offs = [e["args"]["offset"] for e in r0 if e["func"] == "pwrite"]
if names != ["forks-parent.dat", "forks-parent.dat"] or offs != [0, 100, 200, 300, 400]:
    sys.exit("parent events: opens %s, offsets %s" % (names, offs))
PY
done
echo "   forked children (exit, _exit, exec) untraced; the parent's trace has exactly its own events"
pass "8 threads x (POSIX, MPI) with every event and its thread; fork leaves the parent's trace intact"
