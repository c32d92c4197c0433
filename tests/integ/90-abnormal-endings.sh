#!/bin/bash
# Abnormal endings lose nothing that was recorded: MPI_Abort, exit() without
# MPI_Finalize, a rank killed by a signal, a serial program ending in _exit
# or killed by SIGINT. Each rank that can still run code writes its own
# partial trace (<trace>.part-RRRRRR.siot, marked PARTIAL with the reason),
# and `siot merge` joins the parts into one job trace that says which ranks
# are missing. With SIOT_CHECKPOINT, SIGKILL too leaves the parts. (MPICH's launcher ends the other ranks of an aborted job with
# SIGKILL, which nothing can catch: only the aborting rank's part is there.)
. "$(dirname "$0")/../lib.sh"
build_traced ending
# pwrites KNOWN per rank, from tests/progs/ending.c
count() { # TRACE FUNC: events of FUNC over all ranks
    jsonl "$1" | grep -c "\"func\":\"$2\"" || true
}
check_part() { # FILE REASON-REGEX PWRITES
    [ -f "$1" ] || fail "no partial trace $1"
    "$SIOT" dump "$1" > part.txt || fail "siot dump $1"
    grep -q "PARTIAL" part.txt || fail "$1 is not marked partial"
    grep -Eq "note partial: $2" part.txt || fail "$1 does not say why it is partial ($2): $(grep note part.txt)"
    [ "$(count "$1" pwrite)" = "$3" ] || fail "$1 has $(count "$1" pwrite) pwrite events, want $3"
}

# Open MPI ends the ranks of a failed job with SIGTERM, then SIGKILL after
# odls_base_sigkill_timeout; its default of 1 leaves them almost no time
# (parts then go missing, as with MPICH): docs/recording.md's advice of a few
# seconds is what is checked here.
export OMPI_MCA_odls_base_sigkill_timeout=3

# MPI_Abort on rank 1 of 4
rm -f job.*
SIOT_TRACE=$WORK/job.siot mpirun_np 4 ./ending abort > /dev/null 2>&1 && fail "abort: the job did not fail"
check_part job.part-000001.siot 'MPI_Abort\(errorcode 7\) on rank 1' 5
[ "$(count job.part-000001.siot MPI_Abort)" = 1 ] || fail "abort: no MPI_Abort event"
nparts=$(ls job.part-*.siot | wc -l)
if [ "$MPI" = openmpi ]; then
    # Open MPI ends the other ranks with SIGTERM: given the time, theirs are written too
    [ "$nparts" = 4 ] || fail "abort: $nparts parts, want 4"
    check_part job.part-000000.siot 'signal 15' 5
fi
"$SIOT" merge -o job.siot job.part-*.siot || fail "siot merge of the parts"
dump_has job.siot PARTIAL || fail "merged parts not marked partial"
[ "$(count job.siot pwrite)" = $((5 * nparts)) ] || fail "merged parts: $(count job.siot pwrite) pwrites"
if [ "$nparts" -lt 4 ]; then
    dump_has job.siot "note missing_ranks: " || fail "merged parts do not name the missing ranks"
fi
echo "   MPI_Abort: $nparts of 4 ranks' parts written, merged into one partial job trace"

# exit() without MPI_Finalize: every rank writes its part. (MPICH's launcher
# SIGKILLs the other ranks when the first one exits without MPI_Finalize: a
# rank slower to reach exit() may be killed before it wrote its part.)
rm -f job.*
SIOT_TRACE=$WORK/job.siot mpirun_np 3 ./ending exit > /dev/null 2>&1 || true
nparts=0
for r in 0 1 2; do
    if [ "$MPI" = openmpi ] || [ -f "job.part-00000$r.siot" ]; then
        check_part "job.part-00000$r.siot" 'the program exited without calling MPI_Finalize' 5
        nparts=$((nparts + 1))
    fi
done
[ $nparts -ge 1 ] || fail "exit: no part written"
"$SIOT" merge -o job.siot job.part-*.siot || fail "siot merge of the exit parts"
[ "$(count job.siot pwrite)" = $((5 * nparts)) ] || fail "exit: merged parts hold $(count job.siot pwrite) pwrites"
if [ $nparts = 3 ]; then
    dump_has job.siot "missing_ranks" && fail "exit: no rank should be missing"
else
    dump_has job.siot "note missing_ranks: " || fail "exit: the merged parts do not name the missing ranks"
fi
echo "   exit without MPI_Finalize: $nparts of 3 parts, merged: $((5 * nparts)) pwrites"

# a rank that receives SIGTERM
rm -f job.*
SIOT_TRACE=$WORK/job.siot mpirun_np 3 ./ending signal > /dev/null 2>&1 && fail "signal: the job did not fail"
check_part job.part-000002.siot 'signal 15 \(TERM\)' 5
echo "   SIGTERM: the killed rank's part has its events"

# SIOT_CHECKPOINT: each rank rewrites its part at the first traced call after
# every interval, so that even SIGKILL, which no handler sees, leaves what
# was recorded up to the last checkpoint. A microsecond interval makes every
# call after the first checkpoint write one (each takes longer than that), so
# the barrier after the five writes surely writes the part here.
rm -f job.*
SIOT_CHECKPOINT=0.000001 SIOT_TRACE=$WORK/job.siot mpirun_np 4 ./ending abort > /dev/null 2>&1 && fail "abort: the job did not fail"
[ "$(ls job.part-*.siot | wc -l)" = 4 ] || fail "checkpointed abort: $(ls job.part-*.siot | wc -l) parts, want 4"
check_part job.part-000001.siot 'MPI_Abort\(errorcode 7\) on rank 1' 5
for r in 0 2 3; do
    check_part job.part-00000$r.siot '(checkpoint [0-9]+, after event [0-9]+ of this rank|signal 15)' 5
done
"$SIOT" merge -o job.siot job.part-*.siot || fail "siot merge of checkpointed parts"
[ "$(count job.siot pwrite)" = 20 ] || fail "checkpointed abort: merged parts hold $(count job.siot pwrite) pwrites"
dump_has job.siot "missing_ranks" && fail "checkpointed abort: a rank is missing"
echo "   MPI_Abort with SIOT_CHECKPOINT: 4 of 4 parts"
# every rank SIGKILLed while it sleeps
rm -f job.* out.txt
SIOT_CHECKPOINT=0.000001 SIOT_TRACE=$WORK/job.siot mpirun_np 3 ./ending wait > out.txt 2> /dev/null &
pid=$!
for _ in $(seq 300); do [ "$(grep -c ready out.txt 2> /dev/null)" = 3 ] && break; sleep 0.1; done
[ "$(grep -c ready out.txt)" = 3 ] || fail "SIGKILL: the ranks did not get ready"
kill_here KILL '^\./ending wait' || fail "SIGKILL: no rank to kill"
wait $pid || true
for r in 0 1 2; do
    check_part job.part-00000$r.siot 'checkpoint [0-9]+, after event [0-9]+ of this rank' 5
done
echo "   SIGKILL of every rank with SIOT_CHECKPOINT: 3 of 3 parts from the checkpoints"
# a rank that spilled (SIOT_MAX_MEMORY): its checkpoint holds the spilled
# sections too, and says how it was recorded, as its final part would
build_traced big
rm -f job.*
SIOT_MAX_MEMORY=1M SIOT_CHECKPOINT=0.2 SIOT_TRACE=$WORK/job.siot mpirun_np 2 ./big irregular 50000000 mpi > /dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do
    [ -f job.part-000000.siot ] && "$SIOT" dump job.part-000000.siot > poll.txt 2> /dev/null &&
        grep -q "note spilled: " poll.txt && break
    sleep 0.1
done
kill_here KILL '^\./big irregular' || fail "spilled checkpoint: no rank to kill (the run ended first?)"
wait $pid || true
"$SIOT" dump job.part-000000.siot > part.txt || fail "spilled checkpoint unreadable"
grep -q "note spilled: " part.txt && grep -q "PARTIAL" part.txt || fail "spilled checkpoint: not marked spilled and partial"
rec=$(sed -n 's/.*note events_recorded: //p' part.txt)
"$SIOT" stats --json job.part-000000.siot > s.json || fail "siot stats of the spilled checkpoint"
python3 -c 'import json, sys; s = json.load(open("s.json")); sys.exit(s["total_events"] != int(sys.argv[1]))' "$rec" ||
    fail "spilled checkpoint: its events are not the $rec it says it recorded"
echo "   SIGKILL of a spilling job: its checkpoint holds all $rec events recorded until then"
# a job that ends well leaves no part, and the same trace as without checkpoints
build_traced known
mkdir -p ck0 ck1
(cd ck0 && SIOT_TRACE=$WORK/k0.siot mpirun_np 4 ../known > /dev/null) || fail "known"
(cd ck1 && SIOT_CHECKPOINT=0.0001 SIOT_TRACE=$WORK/k1.siot mpirun_np 4 ../known > /dev/null) || fail "known with checkpoints"
! ls k1.part-* > /dev/null 2>&1 || fail "checkpoints left behind after a clean end: $(ls k1.part-*)"
"$SIOT" diff k0.siot k1.siot > k.diff || { cat k.diff >&2; fail "checkpoints changed the job's trace"; }
SIOT_CHECKPOINT=soon SIOT_TRACE=$WORK/k2.siot mpirun_np 1 ./known > /dev/null 2> k2.err || fail "known with a bad SIOT_CHECKPOINT"
grep -q "SIOT_CHECKPOINT=soon is not a number of seconds" k2.err || fail "bad SIOT_CHECKPOINT not reported"
echo "   a clean end removes the checkpoints; the job's trace is the same as without"

# serial: _exit(3) keeps the trace (complete, with the _exit event)
rm -f ser.siot
set +e
SIOT_TRACE=$WORK/ser.siot ./ending _exit
st=$?
set -e
[ $st = 3 ] || fail "_exit: exit status $st, want 3"
[ "$(count ser.siot pwrite)" = 5 ] && [ "$(count ser.siot _exit)" = 1 ] || fail "_exit: events missing"
dump_has ser.siot "note ended: _exit\(3\)" || fail "_exit: the trace does not say how it ended"

# serial: killed by SIGINT from outside while sleeping
# (a background job of a script starts with SIGINT ignored: give it back its default)
rm -f ser.siot out.txt
SIOT_TRACE=$WORK/ser.siot python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])' ./ending serial > out.txt &
pid=$!
for _ in $(seq 100); do grep -q ready out.txt 2> /dev/null && break; sleep 0.1; done
kill -INT $pid
set +e
wait $pid
st=$?
set -e
[ $st = 130 ] || fail "SIGINT: exit status $st, want 130 (the signal's default action)"
[ "$(count ser.siot pwrite)" = 5 ] || fail "SIGINT: $(count ser.siot pwrite) pwrites in the trace"
dump_has ser.siot "note partial: signal 2 \(INT\)" || fail "SIGINT: not marked partial"
echo "   serial: _exit(3) and SIGINT keep the trace; the process ends as it would have"
pass "abnormal endings: partial traces written, marked, and merged"
