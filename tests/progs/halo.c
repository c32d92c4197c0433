/* halo: the two idioms of a grid code whose values are arrays of per-rank
 * values (test 53). The ranks form a grid of COLS columns; each of STEPS
 * steps every rank posts receives from, and sends to, its west, east, north
 * and south neighbours (a message to direction d has tag 10 + d) (MPI_PROC_NULL at the grid's edges) and completes
 * the 8 requests with one MPI_Waitall that keeps their statuses, so that
 * its statuses array holds the neighbours' ranks, a value of the rank's
 * column and row per element. Then every rank sends COUNT doubles to rank
 * 0 with MPI_Gatherv, whose counts (COUNT for every rank) and displacements
 * (COUNT*r for rank r) are arrays as long as the job.
 * usage: halo */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COLS 2
#define STEPS 3
#define COUNT 16

/* the neighbour in direction d (0 west, 1 east, 2 north, 3 south) */
static int neighbour(int rank, int size, int d)
{
    int row = rank / COLS, col = rank % COLS, rows = size / COLS;
    if (d == 0)
        return col > 0 ? rank - 1 : MPI_PROC_NULL;
    if (d == 1)
        return col < COLS - 1 ? rank + 1 : MPI_PROC_NULL;
    if (d == 2)
        return row > 0 ? rank - COLS : MPI_PROC_NULL;
    return row < rows - 1 ? rank + COLS : MPI_PROC_NULL;
}

/* One call per direction, as POP's halo update writes them (a loop over
 * the directions would make each rank's neighbours a run table over it). */
static void exchange(int rank, int size, double *out, double *in)
{
    MPI_Request req[8];
    MPI_Status st[8];
    MPI_Irecv(&in[0], 1, MPI_DOUBLE, neighbour(rank, size, 0), 11, MPI_COMM_WORLD, &req[0]);
    MPI_Irecv(&in[1], 1, MPI_DOUBLE, neighbour(rank, size, 1), 10, MPI_COMM_WORLD, &req[1]);
    MPI_Irecv(&in[2], 1, MPI_DOUBLE, neighbour(rank, size, 2), 13, MPI_COMM_WORLD, &req[2]);
    MPI_Irecv(&in[3], 1, MPI_DOUBLE, neighbour(rank, size, 3), 12, MPI_COMM_WORLD, &req[3]);
    MPI_Isend(&out[0], 1, MPI_DOUBLE, neighbour(rank, size, 0), 10, MPI_COMM_WORLD, &req[4]);
    MPI_Isend(&out[1], 1, MPI_DOUBLE, neighbour(rank, size, 1), 11, MPI_COMM_WORLD, &req[5]);
    MPI_Isend(&out[2], 1, MPI_DOUBLE, neighbour(rank, size, 2), 12, MPI_COMM_WORLD, &req[6]);
    MPI_Isend(&out[3], 1, MPI_DOUBLE, neighbour(rank, size, 3), 13, MPI_COMM_WORLD, &req[7]);
    MPI_Waitall(8, req, st);
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % COLS) {
        if (rank == 0)
            fprintf(stderr, "halo: %d ranks are not a grid of %d columns\n", size, COLS);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    double out[4] = {rank, rank, rank, rank}, in[4], part[COUNT], *all = NULL;
    int *counts = NULL, *displs = NULL;
    for (int s = 0; s < STEPS; s++)
        exchange(rank, size, out, in);
    for (int i = 0; i < COUNT; i++)
        part[i] = rank + i;
    if (rank == 0) {
        all = malloc(sizeof part * (size_t)size);
        counts = malloc(sizeof *counts * (size_t)size);
        displs = malloc(sizeof *displs * (size_t)size);
        for (int r = 0; all && counts && displs && r < size; r++)
            counts[r] = COUNT, displs[r] = COUNT * r;
        if (!all || !counts || !displs)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gatherv(part, COUNT, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    free(all);
    free(counts);
    free(displs);
    MPI_Finalize();
    return 0;
}
