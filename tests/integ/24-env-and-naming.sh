#!/bin/bash
# SIOT_TRACE sets the output file; without it the trace is <exe>.siot and an
# existing trace is never replaced (the run says where its trace went
# instead); SIOT_LAYERS restricts the recorded layers.
. "$(dirname "$0")/../lib.sh"
build_traced known
mpirun_np 2 ./known 2> run1.err || fail "run 1"
! grep -q siotrace run1.err || fail "run 1 (default name free) said: $(cat run1.err)"
rm -f known.dat posix-*.dat
mpirun_np 2 ./known 2> run2.err || fail "run 2"
[ -f known.siot ] && [ -f known.1.siot ] || fail "second run replaced the first trace: $(ls *.siot)"
# the run whose trace took another name says which, once
[ "$(grep -c siotrace run2.err)" = 1 ] && grep -q "^siotrace: known.siot exists: this run's trace is known.1.siot$" run2.err ||
    fail "run 2 did not say where its trace went: $(cat run2.err)"
"$SIOT" diff known.siot known.1.siot > /dev/null || fail "two runs of the same program differ"

SIOT_TRACE=$PWD/sub/explicit.siot
mkdir -p sub
SIOT_TRACE=$SIOT_TRACE mpirun_np 2 ./known || fail "run with SIOT_TRACE"
[ -f sub/explicit.siot ] || fail "SIOT_TRACE not honoured"
[ ! -f known.2.siot ] || fail "SIOT_TRACE run also wrote the default name"

SIOT_LAYERS=mpiio SIOT_TRACE=$PWD/mpiio.siot mpirun_np 2 ./known || fail "run with SIOT_LAYERS"
jsonl mpiio.siot > mpiio.jsonl
layers=$(python3 -c 'import json,sys; print(",".join(sorted({json.loads(l)["layer"] for l in open("mpiio.jsonl")})))')
[ "$layers" = mpiio ] || fail "SIOT_LAYERS=mpiio recorded layers: $layers"
[ "$(grep -c '"func":"MPI_File_write_at"' mpiio.jsonl)" = 20 ] || fail "SIOT_LAYERS=mpiio lost MPI-IO events"

SIOT_LAYERS=posix,mpi SIOT_TRACE=$PWD/pm.siot mpirun_np 2 ./known || fail "run with SIOT_LAYERS=posix,mpi"
jsonl pm.siot > pm.jsonl
layers=$(python3 -c 'import json,sys; print(",".join(sorted({json.loads(l)["layer"] for l in open("pm.jsonl")})))')
[ "$layers" = mpi,posix ] || fail "SIOT_LAYERS=posix,mpi recorded layers: $layers"
# SIOT_TRACE naming a device or a FIFO: written in place, never renamed
# over (a rename once made /dev/null a regular file holding a trace). A
# device node of our own when mknod is allowed (root), else /dev/null
# itself, which a user without root cannot replace anyway.
dev=$PWD/nulldev
mknod "$dev" c 1 3 2> /dev/null || dev=/dev/null
SIOT_TRACE=$dev mpirun_np 2 ./known > dev.out 2>&1 || { cat dev.out >&2; fail "run with SIOT_TRACE=$dev"; }
[ -c "$dev" ] || fail "SIOT_TRACE=$dev: it is no longer a character device: $(ls -l "$dev")"
! ls "$dev".* > /dev/null 2>&1 || fail "SIOT_TRACE=$dev left files beside it: $(ls "$dev".*)"
mkfifo trace.fifo
cat trace.fifo > fifo.siot &
reader=$!
rm -f known.dat posix-*.dat # as before run 1, whose trace it is compared with
SIOT_TRACE=$PWD/trace.fifo mpirun_np 2 ./known || fail "run with SIOT_TRACE naming a FIFO"
for _ in $(seq 30); do kill -0 $reader 2> /dev/null || break; sleep 1; done
if kill -0 $reader 2> /dev/null; then # nothing opened the FIFO: end the reader, not the test's time
    : > trace.fifo
    fail "no trace came through SIOT_TRACE's FIFO"
fi
wait $reader
[ -p trace.fifo ] || fail "SIOT_TRACE's FIFO was replaced: $(ls -l trace.fifo)"
"$SIOT" diff fifo.siot known.siot > /dev/null || fail "the trace read from the FIFO differs from a run's"
echo "   SIOT_TRACE=$dev: still a character device; a FIFO carried the trace whole"
pass "SIOT_TRACE, default naming without overwrite, SIOT_LAYERS, a device or FIFO written in place"
