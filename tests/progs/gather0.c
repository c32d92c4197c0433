/* gather0: only rank 0 does I/O. Every step the other ranks send it their
 * part of a field and it writes the whole field to one file, the way POP and
 * many older codes write history files.
 * usage: gather0 [steps=6] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, steps = argc > 1 ? atoi(argv[1]) : 6;
    double part[256], *all = NULL;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 256; i++)
        part[i] = rank * 1000.0 + i;
    int fd = -1;
    if (rank == 0) {
        all = malloc(sizeof part * (size_t)size);
        fd = open("history.dat", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    }
    for (int step = 0; step < steps; step++) {
        if (rank == 0) {
            memcpy(all, part, sizeof part);
            for (int src = 1; src < size; src++)
                MPI_Recv(all + 256 * src, 256, MPI_DOUBLE, src, step, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (write(fd, all, sizeof part * (size_t)size) < 0)
                MPI_Abort(MPI_COMM_WORLD, 1);
        } else {
            MPI_Send(part, 256, MPI_DOUBLE, 0, step, MPI_COMM_WORLD);
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    if (rank == 0) {
        close(fd);
        free(all);
    }
    MPI_Finalize();
    return 0;
}
