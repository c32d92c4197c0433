/* A long loop of small collectives, for the replay's time (bench/replay.sh):
 *   collectives N blocking|nonblocking
 * N MPI_Allreduce of one double (or N MPI_Iallreduce, each completed by
 * MPI_Wait), with no computation between them: the replay should take no
 * longer than the run, since it has no more to do than reissue them. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long n = argc > 1 ? atol(argv[1]) : 100000;
    int nonblocking = argc > 2 && !strcmp(argv[2], "nonblocking");
    double x = 1, y = 0;
    for (long i = 0; i < n; i++) {
        if (nonblocking) {
            MPI_Request req;
            MPI_Iallreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &req);
            MPI_Wait(&req, MPI_STATUS_IGNORE);
        } else {
            MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        }
        x = y / 4;
    }
    MPI_Finalize();
    return 0;
}
