#!/bin/bash
# Inter-node merge: the job's trace size and the time rank 0 spends in the
# tracer's part of MPI_Finalize (receiving and merging the other ranks' traces
# over the reduction tree, before writing the file; stored in the trace's
# finalize_seconds note) as ranks are added, for the IOR-like example
# (strided shared file, 8 segments, POSIX and MPI-IO), beside the flat form
# (SIOT_COMPRESS=0: every rank's events, concatenated).
set -euo pipefail
MPI=${MPI:-mpich}
B=$(pwd)/build/$MPI
SIOT=$B/bin/siot
PS=${PS:-"2 4 8 16 32 64"}
W=$(mktemp -d /dev/shm/siot-merge.XXXXXX)
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
run() { # P ARGS...
    local np=$1
    shift
    if [ "$MPI" = openmpi ]; then mpirun.openmpi --oversubscribe -np "$np" "$@"; else mpirun.mpich -np "$np" "$@"; fi
}
note() { "$SIOT" dump "$1" | sed -n "s/.*note $2: //p"; }
for api in posix mpiio; do
    echo "== ior -a $api -s 8 ($MPI flavour): trace size and merge time by rank count"
    printf "%6s %12s %14s %14s %10s\n" ranks "trace B" "flat B" "events" "finalize s"
    first=""
    for P in $PS; do
        (cd "$W" && rm -f ior.dat* && SIOT_TRACE=$W/c.siot run "$P" "$B/examples/ior" -a $api -s 8 > /dev/null)
        (cd "$W" && rm -f ior.dat* && SIOT_COMPRESS=0 SIOT_TRACE=$W/f.siot run "$P" "$B/examples/ior" -a $api -s 8 > /dev/null)
        c=$(stat -c %s "$W/c.siot"); f=$(stat -c %s "$W/f.siot")
        printf "%6s %12s %14s %14s %10s\n" "$P" "$c" "$f" "$(note "$W/c.siot" events_recorded)" "$(note "$W/c.siot" finalize_seconds)"
        [ -n "$first" ] || first=$c
        [ "$P" = 4 ] && from4=$c
        last=$c
    done
    if [ -n "${from4:-}" ]; then
        echo "size growth from 4 ranks to ${P}: $(( (last - from4) * 1000 / from4 / 10 )).$(( (last - from4) * 1000 / from4 % 10 ))% (target: within 5%)"
    fi
    echo
done
echo "target: merge (finalize) under 1 s at 64 ranks"
