#!/bin/bash
# The tracer never hangs a job, whatever happens at its end:
#  - SIGTERM at a random moment of an fwrite loop (what a batch system sends
#    at the wall-time limit), 20 times: every run ends within 5 s, killed by
#    the signal as it would be untraced, with a readable partial trace;
#  - a job whose trace cannot be created (SIOT_TRACE under /proc), having
#    spilled: it ends with the program's exit status, one line names the
#    path, and each rank's part is left in a writable directory, whole;
#  - an MPMD job whose two programs record different layers creates
#    communicators and files collectively: it finishes, with every rank;
#  - 16 ranks whose traces do not merge, under a small SIOT_MAX_MEMORY:
#    rank 0's peak memory stays within the limit (against the same traced
#    program making 1 write), and the trace, made of blocks, says so and
#    holds every event.
. "$(dirname "$0")/../lib.sh"
build_traced robust

# --- SIGTERM at random moments (delays from a fixed seed)
RANDOM=15
slow=0
for i in $(seq 20); do
    rm -f loop.siot loop.dat
    SIOT_TRACE=$WORK/loop.siot ./robust stdout-loop > /dev/null &
    pid=$!
    sleep "0.$(printf '%02d' $((RANDOM % 60 + 5)))"
    kill -TERM $pid
    t0=$(date +%s%N)
    for _ in $(seq 100); do kill -0 $pid 2> /dev/null || break; sleep 0.05; done
    if kill -0 $pid 2> /dev/null; then
        kill -KILL $pid
        fail "run $i: still running 5 s after SIGTERM (hung)"
    fi
    set +e
    wait $pid
    st=$?
    set -e
    [ $st = 143 ] || fail "run $i: exit status $st, want 143 (killed by SIGTERM)"
    "$SIOT" dump loop.siot > loop.txt || fail "run $i: the partial trace is unreadable"
    grep -q "note partial: signal 15 (TERM)" loop.txt || fail "run $i: the trace does not say it ended by SIGTERM"
    ms=$(( ($(date +%s%N) - t0) / 1000000 ))
    [ $ms -gt $slow ] && slow=$ms
done
echo "   SIGTERM at 20 random moments: every run ended (slowest ${slow} ms), each trace readable and partial"

# --- the job's trace cannot be created, after spilling
t0=$(date +%s%N)
mpirun_np 2 ./robust.plain spill 200000 > /dev/null || fail "untraced spill run"
plain_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
rm -rf parts && mkdir parts
t0=$(date +%s%N)
set +e
(cd parts && SIOT_MAX_MEMORY=1M SIOT_TRACE=/proc/no-such-dir/job.siot timeout 120 "${MPIRUN[@]}" -np 2 ../robust spill 200000 \
    > out.txt 2> err.txt)
st=$?
set -e
traced_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
[ $st = 0 ] || fail "unwritable trace: exit status $st (124: hung), want the program's 0"
[ $traced_ms -lt $((plain_ms + 10000)) ] || fail "unwritable trace: ${traced_ms} ms against ${plain_ms} ms untraced"
[ "$(grep -c siotrace parts/err.txt)" = 1 ] || { cat parts/err.txt >&2; fail "unwritable trace: not one line of explanation"; }
grep -q "cannot create /proc/no-such-dir/job.siot.tmp" parts/err.txt || fail "the message does not name the path"
grep -q "each rank's trace is left as its part in $WORK/parts/" parts/err.txt || fail "the message does not say where the parts are"
"$SIOT" merge -o joined.siot parts/job.part-000000.siot parts/job.part-000001.siot || fail "the parts do not merge"
n=$(jsonl joined.siot | grep -c '"func":"pwrite"')
[ "$n" = 400000 ] || fail "the parts hold $n pwrites, want 2 x 200000"
echo "   unwritable trace after spilling: ended in ${traced_ms} ms (untraced ${plain_ms}), one line, both parts whole"

# --- MPMD: the two programs record different layers
rm -f mpmd.siot
SIOT_TRACE=$WORK/mpmd.siot timeout 120 "${MPIRUN[@]}" -np 2 env SIOT_LAYERS=posix ./robust collective \
    : -np 2 ./robust collective || fail "MPMD job with different SIOT_LAYERS (124: hung)"
jsonl mpmd.siot > mpmd.jsonl
for r in 0 1; do
    grep "\"rank\":$r," mpmd.jsonl | grep '"layer":"mpi' > /dev/null && fail "rank $r recorded MPI calls with SIOT_LAYERS=posix"
done
for r in 2 3; do
    grep "\"rank\":$r," mpmd.jsonl | grep '"func":"MPI_File_open"' > /dev/null || fail "rank $r: no MPI_File_open"
done
echo "   MPMD job, SIOT_LAYERS=posix on 2 of 4 ranks: collective creations finished, each rank its layers"

# --- 16 ranks that do not merge, under SIOT_MAX_MEMORY=4M
N=20000
mpirun_np 16 ./robust.plain irregular $N > plain.txt || fail "untraced irregular run"
# (SIOT_RANK_TIMES=2: a block of more than 4 ranks keeps a summary of its ranks' times)
SIOT_RANK_TIMES=2 SIOT_MAX_MEMORY=4M SIOT_TRACE=$WORK/bounded.siot mpirun_np 16 ./robust irregular $N > bounded.txt ||
    fail "bounded irregular run"
SIOT_RANK_TIMES=2 SIOT_MAX_MEMORY=1G SIOT_TRACE=$WORK/merged.siot mpirun_np 16 ./robust irregular $N > merged.txt ||
    fail "unbounded irregular run"
# the traced program's own start (its larger code, the tracer's tables),
# measured with one write per rank, is not trace memory: the bound applies to
# what the events add on top of it
SIOT_MAX_MEMORY=4M SIOT_TRACE=$WORK/one.siot mpirun_np 16 ./robust irregular 1 > one.txt || fail "traced run of 1 write"
p0=$(awk '$2 == 0 {print $3}' one.txt)
u0=$(awk '$2 == 0 {print $3}' plain.txt)
b0=$(awk '$2 == 0 {print $3}' bounded.txt)
m0=$(awk '$2 == 0 {print $3}' merged.txt)
limit_kb=4096
[ $((b0 - p0)) -le $((limit_kb * 5 / 4)) ] ||
    fail "rank 0 used $((b0 - p0)) KiB more than with 1 write under SIOT_MAX_MEMORY=4M"
dump_has bounded.siot "note concatenated: merging every rank's trace would have exceeded SIOT_MAX_MEMORY" ||
    fail "the bounded trace does not say it was not merged"
dump_has merged.siot "note concatenated" && fail "with room to merge, the trace was not merged"
"$SIOT" diff bounded.siot merged.siot > bm.diff || { head bm.diff >&2; fail "the bounded trace's events differ from the merged one's"; }
n=$("$SIOT" stats --json bounded.siot | python3 -c 'import json,sys; print(json.load(sys.stdin)["functions"]["pwrite"]["calls"])')
[ "$n" = $((16 * N)) ] || fail "the bounded trace holds $n pwrites, want $((16 * N))"
# the blocks' rank times (rows, or summaries of blocks past 4 ranks) cover the 16 ranks, and the
# merged trace keeps a summary
for f in bounded merged; do
    "$SIOT" stats --json $f.siot | python3 -c '
import json, sys
rt = json.load(sys.stdin)["rank_times"]
sys.exit(not (rt["ranks"] == 16 and (rt["form"] == "summary" and rt["keep"] == 2 or rt["rows"] == 16) and
              (sys.argv[1] == "bounded" or rt["form"] == "summary")))' $f ||
        fail "the $f trace does not keep the times of its 16 ranks"
done
echo "   16 ranks, $N irregular pwrites each: rank 0 +$((b0 - p0)) KiB over a traced 1-write run with SIOT_MAX_MEMORY=4M (+$((m0 - p0)) KiB merged; the traced start itself +$((p0 - u0)) KiB over untraced), same events"
pass "SIGTERM never hangs; unwritable traces, MPMD layers and memory-bound merges end well"
