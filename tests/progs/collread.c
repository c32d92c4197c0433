/* collread: every rank reads its interleaved blocks of an input file the
 * program did not make (NB blocks of BL bytes, rank r's at r*BL + k*BL*P)
 * with one collective MPI_File_read_all through a vector view: the shape
 * that makes MPI-IO exchange data between ranks (two-phase I/O), as
 * MPICH's ROMIO test darray_read does. Its argument: the input's name. */
#include <stdlib.h>

#include "tests/progs/mpi_check.h"

#define NB 64
#define BL 256

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    static char buf[NB * BL];
    MPI_Datatype blocks;
    CHECK(MPI_Type_vector(NB, BL, BL * np, MPI_BYTE, &blocks));
    CHECK(MPI_Type_commit(&blocks));
    MPI_File fh;
    CHECK(MPI_File_open(MPI_COMM_WORLD, argc > 1 ? argv[1] : "in.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    CHECK(MPI_File_set_view(fh, (MPI_Offset)rank * BL, MPI_BYTE, blocks, "native", MPI_INFO_NULL));
    MPI_Status st;
    CHECK(MPI_File_read_all(fh, buf, NB * BL, MPI_BYTE, &st));
    int got;
    CHECK(MPI_Get_count(&st, MPI_BYTE, &got));
    if (got != NB * BL) {
        fprintf(stderr, "collread: rank %d read %d bytes, want %d\n", rank, got, NB * BL);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    CHECK(MPI_File_close(&fh));
    CHECK(MPI_Type_free(&blocks));
    MPI_Finalize();
    return 0;
}
