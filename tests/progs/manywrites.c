/* manywrites: a loop of pwrite calls whose sizes and offsets vary, so that
 * the trace is a few loops but expands to many events (the Python reader's
 * test and benchmark: tests/integ/64-python-reader.sh, bench/reader.sh).
 * Each rank opens its own file manywrites-RANK.dat and makes N pwrites
 * (N from argv[1], N_DEFAULT without): write i moves
 * BASE + STEP * (i % PERIOD) bytes to offset (i % WRAP) * SLOT. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define N_DEFAULT 500000
#define BASE 8
#define STEP 8
#define PERIOD 8
#define WRAP 4096
#define SLOT 64

int main(int argc, char **argv)
{
    int rank;
    char name[64], buf[BASE + STEP * PERIOD] = {0};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long n = argc > 1 ? atol(argv[1]) : N_DEFAULT;
    snprintf(name, sizeof name, "manywrites-%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long i = 0; i < n; i++) {
        size_t count = BASE + STEP * (size_t)(i % PERIOD);
        if (pwrite(fd, buf, count, (off_t)(i % WRAP) * SLOT) != (ssize_t)count)
            MPI_Abort(MPI_COMM_WORLD, 2);
    }
    close(fd);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
