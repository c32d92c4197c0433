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
#     the finding is gone; with every rank an aggregator (cb_nodes = P) as
#     many calls (the remedy says cb_nodes does not change the count).
#   collective-straggler: one rank sleeping before each collective write:
#     the others wait for it (at least half the sleeps times the waiting
#     ranks); without the sleep the finding is gone or costs half as much.
#     With the sleep between the split collective's begin and end the
#     ranks wait as long (the remedy says the split collectives do not
#     help); with MPI_File_iwrite_at_all the wait moves into the MPI_Wait
#     that completes it (ROMIO) or into the collective MPI_File_close
#     (OMPIO, whose MPI_Wait returns at once): at least half the sleeps
#     times the waiting ranks there, where the finding counts it and names
#     the sleeping rank. When the sleep delays a point-to-point exchange
#     instead (iwritep2p: its waits complete requests that reuse the
#     write's request id), no collective-straggler.
# Every finding carries its cost and remedy and the list is ranked by cost
# (tests/py/check_findcost.py).
. "$(dirname "$0")/../lib.sh"
build_traced findmpiio
P=4
findings_modes $P "$ROOT/tests/progs/findmpiio.c" "./*.dat" ./findmpiio \
    sieve nosieve collsieve smallcb bigcb cbnodes straggle even split iwrite iwritep2p
pass "read-modify-write, small-collective-buffer, collective-straggler with their remedies"
