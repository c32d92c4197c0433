/* MPI_Waitall with MPI_STATUSES_IGNORE over more requests
 * than the tracer keeps statuses for (MANY) and over fewer (FEW): rank 0
 * receives from rank 1 and waits on all its requests at once, as MPICH's
 * test pt2pt/sendrecv3 does with 100 requests. Then MPI_Testsome and
 * MPI_Waitsome on no requests with null arrays, as pt2pt/waittestnull does. */
#include "tests/progs/mpi_check.h"
#include <stdlib.h>

#define MANY 100 /* above the tracer's SIOT_MPI_STATUSES */
#define FEW 8
#define TAG 7

static void exchange(int rank, int n)
{
    MPI_Request req[MANY];
    int *buf = calloc((size_t)n, sizeof *buf);
    if (rank == 1) { /* blocking sends: the requests are rank 0's alone */
        for (int i = 0; i < n; i++)
            CHECK(MPI_Send(&buf[i], 1, MPI_INT, 0, TAG, MPI_COMM_WORLD));
        free(buf);
        return;
    }
    for (int i = 0; i < n; i++)
        CHECK(MPI_Irecv(&buf[i], 1, MPI_INT, 1, TAG, MPI_COMM_WORLD, &req[i]));
    /* GCC takes MPICH's MPI_STATUSES_IGNORE for a too small array */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
    CHECK(MPI_Waitall(n, req, MPI_STATUSES_IGNORE));
#pragma GCC diagnostic pop
    free(buf);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2)
        MPI_Abort(MPI_COMM_WORLD, 2);
    exchange(rank, MANY);
    exchange(rank, FEW);
    int outcount = 0;
    CHECK(MPI_Testsome(0, NULL, &outcount, NULL, NULL));
    CHECK(MPI_Waitsome(0, NULL, &outcount, NULL, NULL));
    MPI_Finalize();
    return 0;
}
