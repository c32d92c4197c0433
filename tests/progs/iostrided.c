/* A non-blocking write and read through a strided view (MPICH's test
 * i_noncontig has the shape): NV ints, every other int of the file. On Open
 * MPI, OMPIO cuts such a request into many aio pieces, starts the first
 * inside MPI_File_iwrite and the later ones inside MPI_Wait's progress.
 * Each rank works on its own file, strided.RANK. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/progs/mpi_check.h"

#define NV 2500


int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[64];
    snprintf(name, sizeof name, "strided.%d", rank);
    int *buf = malloc(NV * sizeof *buf);
    for (int i = 0; i < NV; i++)
        buf[i] = i;
    MPI_Datatype every_other;
    MPI_Type_vector(NV, 1, 2, MPI_INT, &every_other);
    MPI_Type_commit(&every_other);
    MPI_File fh;
    MPI_Request rq;
    CHECK(MPI_File_open(MPI_COMM_SELF, name, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    CHECK(MPI_File_set_view(fh, 0, MPI_INT, every_other, "native", MPI_INFO_NULL));
    CHECK(MPI_File_iwrite_at(fh, 0, buf, NV, MPI_INT, &rq));
    CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    CHECK(MPI_File_iread_at(fh, 0, buf, NV, MPI_INT, &rq));
    CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    for (int i = 0; i < NV; i++)
        if (buf[i] != i) {
            fprintf(stderr, "iostrided: rank %d read back %d at %d\n", rank, buf[i], i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    CHECK(MPI_File_close(&fh));
    MPI_Type_free(&every_other);
    free(buf);
    MPI_Finalize();
    return 0;
}
