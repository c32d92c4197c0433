#!/bin/bash
# Inter-node merge: the job's trace size and the time rank 0 spends in the
# tracer's part of MPI_Finalize (receiving and merging the other ranks' traces
# over the reduction tree, before writing the file; stored in the trace's
# finalize_seconds note) as ranks are added, for the IOR-like example
# (strided shared file, 8 segments, POSIX and MPI-IO) and the FLASH-IO-like
# one (parallel HDF5, 3 files of 24 and 4 variables; independent transfers on
# MPICH, whose collectives with 64 ranks on 2 cores take long), beside the
# flat form (SIOT_COMPRESS=0: every rank's events, concatenated).
BENCH_NAME=merge
. "$(dirname "$0")/common.sh"
PS=${PS:-"2 4 8 16 32 64"}
note() { "$SIOT" dump "$1" | sed -n "s/.*note $2: //p"; }
flash_args=""
[ "$MPI" = mpich ] && flash_args="-i"
table() { # TITLE PROGRAM ARGS...
    local title=$1
    shift
    echo "== $title ($MPI flavour): trace size and merge time by rank count"
    printf "%6s %12s %14s %14s %10s\n" ranks "trace B" "flat B" "events" "finalize s"
    local from4="" last="" P c f
    for P in $PS; do
        (cd "$W" && rm -f -- *.dat* flash_io* && SIOT_TRACE=$W/c.siot run "$P" "$@" > /dev/null)
        (cd "$W" && rm -f -- *.dat* flash_io* && SIOT_COMPRESS=0 SIOT_TRACE=$W/f.siot run "$P" "$@" > /dev/null)
        c=$(stat -c %s "$W/c.siot"); f=$(stat -c %s "$W/f.siot")
        printf "%6s %12s %14s %14s %10s\n" "$P" "$c" "$f" "$(note "$W/c.siot" events_recorded)" "$(note "$W/c.siot" finalize_seconds)"
        [ "$P" = 4 ] && from4=$c
        last=$c
    done
    if [ -n "$from4" ]; then
        echo "size growth from 4 ranks to ${P}: $(( (last - from4) * 1000 / from4 / 10 )).$(( (last - from4) * 1000 / from4 % 10 ))% (target: within 5%)"
    fi
    echo
}
table "ior -a posix -s 8" "$B/examples/ior" -a posix -s 8
table "ior -a mpiio -s 8" "$B/examples/ior" -a mpiio -s 8
# shellcheck disable=SC2086
table "flash-io $flash_args" "$B/examples/flash-io" $flash_args
echo "target: merge (finalize) under 1 s at 64 ranks"
