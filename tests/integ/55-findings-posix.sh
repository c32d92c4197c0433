#!/bin/bash
# siot findings' costs, remedies and ranking on POSIX and stdio
# (tests/progs/findposix.c, 4 ranks), each problem with and without its
# remedy: stdio-bulk (fwrite, then pwrite), redundant-reads (every rank
# preads the same blocks of in.dat, then rank 0 reads and broadcasts),
# file-per-process (a file per rank, then one shared file written
# collectively), open-in-loop (MPI_File_open and close in each step, then
# once around the loop; a new file in each step gets the remedy of one file
# for all steps). The program's #defines give the calls, bytes and
# ranks. Ranking: the two mode has a few opens in a loop and 64 MiB of
# fwrite: stdio-bulk is listed first.
. "$(dirname "$0")/../lib.sh"
build_traced findposix
P=4
SRC=$ROOT/tests/progs/findposix.c
N_IN=$(c_define N_IN "$SRC")
IN_SIZE=$(c_define IN_SIZE "$SRC")
head -c $((N_IN * IN_SIZE)) /dev/zero > in.dat
findings_modes $P "$SRC" "records.dat steps.dat step.*.dat shared.dat fpp.*.dat" ./findposix \
    stdio posix redundant bcast fpp shared loop once newfile two
pass "stdio-bulk, redundant-reads, file-per-process, open-in-loop with their remedies; ranked by cost"
