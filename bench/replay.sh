#!/bin/bash
# Replay fidelity of time: the checkpointing example (1 ms of computation per
# time step, halo exchanges, an Allreduce, a checkpoint every 5 steps) is
# traced, then replayed with ioreplay; the slowest rank's recorded time
# (between MPI_Init and MPI_Finalize, from the trace) against its replay time.
set -euo pipefail
MPI=${MPI:-mpich}
B=$(pwd)/build/$MPI
W=$(mktemp -d /dev/shm/siot-replay.XXXXXX)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { if [ "$MPI" = openmpi ]; then mpirun.openmpi --oversubscribe "$@"; else mpirun.mpich "$@"; fi; }
echo "== ckpt example (60 steps, 1 ms computation each, checkpoint every 5): recorded vs replayed time ($MPI flavour)"
printf "%6s %14s %14s %8s\n" ranks "recorded s" "replayed s" ratio
for P in 4 8; do
    (cd "$W" && rm -rf run && mkdir run && cd run && SIOT_TRACE=$W/c$P.siot run -np $P "$B/examples/ckpt" 60 5 4 65536 > /dev/null)
    line=$(run -np $P "$B/bin/ioreplay" --root "$W/root$P" "$W/c$P.siot" | grep "slowest rank")
    rec=$(echo "$line" | sed 's/.*recorded \([0-9.]*\) s.*/\1/'); rep=$(echo "$line" | sed 's/.*replayed \([0-9.]*\) s.*/\1/')
    printf "%6s %14s %14s %8s\n" $P "$rec" "$rep" "$(echo "$line" | sed 's/.*ratio //')"
done
echo "target: replay time within 10% of the original"

# A long loop of small collectives (bench/collectives.c, no computation):
# the replay reissues them and should take no longer than the run. On MPICH
# the ranks yield while they wait, as in the tests (tests/run/mpich_yield.c),
# in both the run and the replay, so that polling neighbours do not decide
# the times of an oversubscribed job.
N=${COLLECTIVES:-100000}
Y=$B/tests/mpich_yield.so
yrun() { if [ "$MPI" = mpich ] && [ -f "$Y" ]; then run -genv LD_PRELOAD "$Y" "$@"; else run "$@"; fi; }
echo
echo "== $N small collectives, no computation: recorded vs replayed time ($MPI flavour)"
printf "%-12s %6s %14s %14s %8s\n" loop ranks "recorded s" "replayed s" ratio
for mode in blocking nonblocking; do
    for P in 2 4; do
        (cd "$W" && rm -rf run && mkdir run && cd run && SIOT_TRACE=$W/k$mode$P.siot yrun -np $P "$B/bench/collectives" "$N" $mode > /dev/null)
        line=$(yrun -np $P "$B/bin/ioreplay" --root "$W/rootk$P" "$W/k$mode$P.siot" | grep "slowest rank")
        rec=$(echo "$line" | sed 's/.*recorded \([0-9.]*\) s.*/\1/'); rep=$(echo "$line" | sed 's/.*replayed \([0-9.]*\) s.*/\1/')
        printf "%-12s %6s %14s %14s %8s\n" $mode $P "$rec" "$rep" "$(echo "$line" | sed 's/.*ratio //')"
    done
done
echo "target: ratio at most 1 (the replay no slower than the run)"
