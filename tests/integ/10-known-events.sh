#!/bin/bash
# The foundation's acceptance test: a program whose events are known in
# advance, run at P = 1, 4 and 8; the expanded trace lists exactly those
# events, with the pwrite children of each MPI_File_write_at on MPICH.
. "$(dirname "$0")/../lib.sh"
build_traced known
for P in 1 4 8; do
    rm -f known.siot known.dat posix-*.dat
    mpirun_np $P ./known || fail "known exited $? at P=$P"
    [ -f known.siot ] || fail "no known.siot at P=$P"
    [ "$(ls *.siot | wc -l)" = 1 ] || fail "more than one trace file at P=$P: $(ls *.siot)"
    jsonl known.siot > known.$P.jsonl
    py check_known.py $P "$MPI" < known.$P.jsonl || fail "events at P=$P"
    # The output files are what the program meant to write.
    [ "$(stat -c %s known.dat)" = $((P * 1000)) ] || fail "known.dat size at P=$P"
    "$SIOT" dump known.siot > known.$P.txt || fail "siot dump (structure) at P=$P"
    grep -q "ranks $P," known.$P.txt || fail "siot dump header does not say $P ranks"
done
pass "exact events at P=1,4,8"
