#!/bin/bash
# siot findings' redundant-reads on reads at the file pointer
# (tests/progs/findptr.c, 4 ranks): every rank positions the pointer
# (lseek; fseek; MPI_File_seek; an MPI_File_set_view of bytes with a
# displacement) and reads N_IN blocks of IN_SIZE bytes with calls that
# take no offset (read, fread, MPI_File_read). When all ranks read the
# same part the finding gives (P - 1) * N_IN blocks read again, all of
# them at a file pointer, and the read's line as its first site (in a
# function named mpi_reads: the program's, not a Fortran MPI binding's);
# when each rank reads its own part (the modes ending in "mine") there is
# no finding. read-after-write by byte ranges: every rank writes its part
# of rw.dat at the pointer, then reads back its own part (ownback: P *
# N_IN * IN_SIZE bytes) or the next rank's (neighbour: no finding, though
# each rank wrote to the file first). The program's #defines give the
# numbers.
. "$(dirname "$0")/../lib.sh"
build_traced findptr
P=4
SRC=$ROOT/tests/progs/findptr.c
head -c $(($(c_define HDR "$SRC") + P * $(c_define N_IN "$SRC") * $(c_define IN_SIZE "$SRC"))) /dev/zero > in.dat
findings_modes $P "$SRC" rw.dat ./findptr \
    lseek lseekmine fseek fseekmine mpiseek mpiseekmine mpiview mpiviewmine ownback neighbour
pass "redundant-reads at the file pointer (read after lseek, fread after fseek, MPI_File_read after a seek or a view); read-after-write by byte ranges"
