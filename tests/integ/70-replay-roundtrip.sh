#!/bin/bash
# ioreplay round trip: trace a program, replay its trace with an ioreplay that
# is itself traced, and the two traces hold the same calls at the replayed
# level (the outermost POSIX, stdio, MPI and MPI-IO calls: functions,
# arguments, return values, order per rank); the files the replay writes have
# the sizes of the original's.
. "$(dirname "$0")/../lib.sh"
for p in known loops gather0 transp classic; do build_traced $p; done
roundtrip known 4 "$WORK/known"
roundtrip loops 3 "$WORK/loops" all 10
roundtrip gather0 4 "$WORK/gather0"
# a replay reissues requests whole: the file-size limit part of transp
# (short writes, EFBIG) depends on the original's environment, left out here
TRANSP_NO_FSIZE_LIMIT=1 roundtrip transp 3 "$WORK/transp"
roundtrip classic 2 "$WORK/classic" 5 20
pass "round trip of the test programs: traced replay == original, same files (the examples: 80-examples)"
