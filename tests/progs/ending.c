/* ending: a program that does some known I/O and then ends abnormally.
 *   ending abort   every rank writes 5 blocks; rank 1 calls MPI_Abort
 *   ending exit    every rank writes 5 blocks and calls exit(0) without MPI_Finalize
 *   ending signal  every rank writes 5 blocks, then the last rank kills itself with SIGTERM
 *   ending wait    every rank writes 5 blocks, says "ready" and sleeps (to be killed)
 *   ending _exit   (serial, no MPI) writes 5 blocks and calls _exit(3)
 *   ending serial  (no MPI) writes 5 blocks, says "ready" and sleeps (to be killed)
 * Each writes ending-<rank>.dat. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void five_blocks(int rank)
{
    char name[64], buf[1000];
    memset(buf, 'a' + rank % 26, sizeof buf);
    snprintf(name, sizeof name, "ending-%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i < 5; i++)
        if (pwrite(fd, buf, sizeof buf, (off_t)i * 1000) != (ssize_t)sizeof buf)
            exit(9);
    close(fd);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "exit";
    if (strcmp(mode, "_exit") == 0) {
        five_blocks(0);
        _exit(3);
    }
    if (strcmp(mode, "serial") == 0) {
        five_blocks(0);
        printf("ready\n");
        fflush(stdout);
        sleep(60);
        return 0;
    }
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    five_blocks(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    if (strcmp(mode, "abort") == 0) {
        if (rank == 1)
            MPI_Abort(MPI_COMM_WORLD, 7);
        sleep(30); /* killed by the launcher */
    } else if (strcmp(mode, "exit") == 0) {
        exit(0);
    } else if (strcmp(mode, "signal") == 0) {
        if (rank == size - 1)
            kill(getpid(), SIGTERM);
        MPI_Barrier(MPI_COMM_WORLD); /* the others wait here until the launcher ends them */
    } else if (strcmp(mode, "wait") == 0) {
        printf("ready %d\n", rank);
        fflush(stdout);
        sleep(60);
    }
    MPI_Finalize();
    return 0;
}
