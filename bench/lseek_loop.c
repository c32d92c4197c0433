/* lseek_loop: OUTER x INNER lseek calls per rank on a tmpfs file, then a
 * barrier: a trace of OUTER*INNER*P cheap events for the statistics
 * benchmark. usage: lseek_loop FILE OUTER INNER */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc < 4)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[4096];
    snprintf(name, sizeof name, "%s.%d", argv[1], rank);
    long outer = atol(argv[2]), inner = atol(argv[3]);
    int fd = open(name, O_CREAT | O_RDWR | O_TRUNC, 0644);
    for (long o = 0; o < outer; o++) {
        for (long i = 0; i < inner; i++)
            lseek(fd, (off_t)i * 8, SEEK_SET);
        fsync(fd);
    }
    close(fd);
    unlink(name);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
