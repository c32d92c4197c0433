/* imbalance: a known per-rank compute imbalance (issue "who waits").
 * Each of ITERS steps, rank r computes for r*STEP_MS milliseconds (a sleep:
 * the rank is off the CPU, so oversubscribed ranks do not slow each other),
 * then all ranks meet in an MPI_Allreduce. The last rank arrives last, so
 * rank r waits about (P-1-r)*STEP_MS ms in every Allreduce, and its own
 * computation is about r*STEP_MS ms per step. Rank r also writes WRITES
 * blocks of BLOCK bytes to its own file, so that its I/O is its own too.
 * Before the steps the ranks meet by point-to-point messages (each sends to
 * rank 0, which answers each): on a busy machine the ranks leave MPI_Init
 * far apart, and that wait goes to point-to-point time, not to the
 * collective waits the steps make.
 * usage: imbalance (prints one line from rank 0) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define ITERS 3
#define STEP_MS 100
#define WRITES 4
#define BLOCK 4096

/* As in tests/progs/wildrecv.c, on purpose: each test program is one source
 * file, read beside its test as the statement of what it calls. */
static void compute_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static void meet_by_messages(int rank, int size)
{
    int token = 0;
    if (rank == 0) {
        for (int r = 1; r < size; r++)
            MPI_Recv(&token, 1, MPI_INT, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int r = 1; r < size; r++)
            MPI_Send(&token, 1, MPI_INT, r, 2, MPI_COMM_WORLD);
    } else {
        MPI_Send(&token, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Recv(&token, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char name[64], buf[BLOCK];
    memset(buf, 'a' + rank % 26, sizeof buf);
    snprintf(name, sizeof name, "imbalance-%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    meet_by_messages(rank, size);
    double sum = 0;
    for (int i = 0; i < ITERS; i++) {
        compute_ms((long)rank * STEP_MS);
        double mine = rank + i, all = 0;
        MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        sum += all;
    }
    for (int i = 0; i < WRITES; i++)
        if (pwrite(fd, buf, BLOCK, (off_t)i * BLOCK) != BLOCK)
            MPI_Abort(MPI_COMM_WORLD, 1);
    close(fd);
    if (rank == 0)
        printf("imbalance: %d ranks, %d steps, sum %.0f\n", size, ITERS, sum);
    MPI_Finalize();
    return 0;
}
