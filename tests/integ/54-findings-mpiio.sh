#!/bin/bash
# siot findings' costs and remedies on MPI-IO (tests/progs/findmpiio.c, 4
# ranks), each problem run with and without its remedy:
#   read-modify-write: independent strided writes through a file view.
#     MPICH's ROMIO sieves them: it reads the range the blocks span (the
#     program's #defines give it) and writes it back; with the hint
#     romio_ds_write=disable, or with the same blocks written by one
#     collective call (the ranks' blocks tile the range: no hole to fill),
#     the finding is gone. Open MPI's OMPIO writes the blocks as they are
#     (no data sieving of writes): no finding in any of the three runs.
#   small-collective-buffer: collective writes through a 4 KiB
#     cb_buffer_size: MPICH's ROMIO aggregator writes a buffer at a time
#     (pwrite), Open MPI's OMPIO half a buffer at a time (aio_write: it
#     fills one half while the other is written); with the default buffer
#     the finding is gone.
#   collective-straggler: one rank sleeping before each collective write:
#     the others wait for it (at least half the sleeps times the waiting
#     ranks); without the sleep the finding is gone or costs half as much.
# Every finding carries its cost and remedy and the list is ranked by cost
# (tests/py/check_findcost.py).
. "$(dirname "$0")/../lib.sh"
build_traced findmpiio
P=4
MODES="sieve nosieve collsieve smallcb bigcb straggle even"
for mode in $MODES; do
    rm -f ./*.dat
    findings_run $mode $P ./findmpiio $mode
done
py check_findcost.py "$ROOT/tests/progs/findmpiio.c" "$MPI" $P $MODES || fail "findings of findmpiio"
pass "read-modify-write, small-collective-buffer, collective-straggler with their remedies"
