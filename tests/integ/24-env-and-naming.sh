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
pass "SIOT_TRACE, default naming without overwrite, SIOT_LAYERS"
