#!/bin/bash
# The merge at MPI_Finalize is lossless: for the test programs and examples,
# at P = 1, 2, 3, 4, 8 and 16, the job's trace holds, rank by rank, exactly
# what each rank recorded (SIOT_RANK_TRACES writes each rank's own trace;
# `siot merge --concat` puts them side by side without merging).
. "$(dirname "$0")/../lib.sh"
build_traced known
build_traced loops
build_traced gather0
build_traced transp
EX=$B/examples
check() { # NAME P PROGRAM ARGS...
    local name=$1 np=$2
    shift 2
    rm -rf ranks run && mkdir ranks run
    (cd run && SIOT_RANK_TRACES=$WORK/ranks SIOT_TRACE=$WORK/$name-$np.siot mpirun_np "$np" "$@" > /dev/null) ||
        fail "$name at P=$np"
    [ "$(ls ranks | wc -l)" = "$np" ] || fail "$name at P=$np: $(ls ranks | wc -l) rank traces"
    "$SIOT" merge --concat -o concat.siot ranks/*.siot || fail "siot merge --concat"
    "$SIOT" diff "$name-$np.siot" concat.siot > d.txt || { cat d.txt >&2; fail "$name at P=$np: merged trace differs from the ranks' own"; }
    "$SIOT" merge -o remerged.siot ranks/*.siot || fail "siot merge"
    "$SIOT" diff "$name-$np.siot" remerged.siot > /dev/null || fail "$name at P=$np: siot merge differs from MPI_Finalize's merge"
}
for P in 1 2 3 4 8 16; do
    check known $P "$WORK/known"
    check loops $P "$WORK/loops" all 10
    check gather0 $P "$WORK/gather0"
    check ior-posix $P "$EX/ior" -a posix -s 4
    check ior-mpiio $P "$EX/ior" -a mpiio -c -s 4
    check ckpt $P "$EX/ckpt" 6 2 2 4096
    [ $P -le 4 ] && check transp $P "$WORK/transp"
    echo "   P=$P: merged == each rank's own trace for all programs"
done
pass "lossless merge at P=1,2,3,4,8,16"
