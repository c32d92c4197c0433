#!/bin/bash
# ioreplay round trip: trace a program, replay its trace with ioreplay
# --verify (the replay traces itself), and the two traces hold the same calls
# at the replayed level (the outermost POSIX, stdio, MPI and MPI-IO calls:
# functions, arguments, return values, order per rank); the files the replay
# writes have the sizes of the original's. On MPICH (whose MPI-IO's POSIX
# calls are seen through the static link) the same at the POSIX level.
. "$(dirname "$0")/../lib.sh"
for p in known loops gather0 transp classic; do build_traced $p; done
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
done
pass "round trip of the test programs at the levels $levels: ioreplay --verify faithful, same files (the examples: 80-examples)"
