/* polls: a polling loop whose count follows the machine, not the program.
 * Each of STEPS steps (argv[1], default 10), rank 0 receives a message from
 * every other rank by posting MPI_Irecv and calling MPI_Test until it
 * completes (napping POLL_NAP_US between polls); each sender first
 * sleeps DELAY_US microseconds, so rank 0's polls find nothing a number of
 * times that depends on the load. Then one
 * MPI_Barrier. Per step: SIZE-1 receives, at least SIZE-1 MPI_Test calls
 * that found the message. */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdlib.h>
#include <unistd.h>

/* The sender's sleep is long against a scheduler's delay, so that rank 0
 * polls at least once in every step even on a loaded machine: with 3 ms,
 * one step of 60 under make check found its message at the first test (no
 * poll that found nothing, so no loop in that step, and the approximate
 * trace split in two loops). Rank 0 naps between polls, as polling loops
 * often do, which keeps the number of recorded polls small. */
#define DELAY_US 20000
#define POLL_NAP_US 20

/* As in tests/progs/converge.c, on purpose: each test program is one source
 * file, read beside its test as the statement of what it calls. */
int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long steps = argc > 1 ? atol(argv[1]) : 10;
    for (long step = 0; step < steps; step++) {
        int v = (int)step;
        if (rank == 0) {
            for (int src = 1; src < size; src++) {
                MPI_Request req;
                int flag = 0;
                MPI_Irecv(&v, 1, MPI_INT, src, 7, MPI_COMM_WORLD, &req);
                for (;;) {
                    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
                    if (flag)
                        break;
                    usleep(POLL_NAP_US);
                }
            }
        } else {
            usleep(DELAY_US);
            MPI_Send(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
