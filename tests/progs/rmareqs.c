/* rmareqs: request-based one-sided calls pipelined through a few local
 * buffers, the way MPICH's RMA test req_example does: under MPI_Win_lock_all
 * on an MPI_Win_allocate window, each step takes a free buffer (the first
 * NBUF directly, then the one MPI_Waitany completes), reads the neighbour's
 * slot with MPI_Rget + MPI_Wait, and writes it back with MPI_Rput, whose
 * requests MPI_Waitall completes at the end. Open MPI's default one-sided
 * component (osc/rdma) completes these requests with a status it never
 * filled in: MPI does not define it, and the replay's check must not
 * compare it. The window's contents then go to a file with MPI-IO.
 *
 * usage: rmareqs */
#include <mpi.h>
#include <stdio.h>

#define NSTEPS 24 /* steps, one MPI_Rget and one MPI_Rput each */
#define NBUF 4    /* local buffers, as many MPI_Rput in flight */
#define LEN 16    /* doubles per transfer */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double *base, data[NBUF][LEN];
    MPI_Request put[NBUF], get;
    MPI_Win win;
    MPI_Win_allocate(NSTEPS * LEN * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
    for (int i = 0; i < NSTEPS * LEN; i++)
        base[i] = rank + i;
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, win);
    int target = (rank + 1) % size;
    for (int i = 0; i < NSTEPS; i++) {
        int j = i;
        if (i >= NBUF)
            MPI_Waitany(NBUF, put, &j, MPI_STATUS_IGNORE);
        MPI_Rget(data[j], LEN, MPI_DOUBLE, target, (MPI_Aint)i * LEN, LEN, MPI_DOUBLE, win, &get);
        MPI_Wait(&get, MPI_STATUS_IGNORE);
        for (int k = 0; k < LEN; k++)
            data[j][k] += 1.0;
        MPI_Rput(data[j], LEN, MPI_DOUBLE, target, (MPI_Aint)i * LEN, LEN, MPI_DOUBLE, win, &put[j]);
    }
    MPI_Status st[NBUF];
    MPI_Waitall(NBUF, put, st);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "rmareqs.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, (MPI_Offset)rank * NSTEPS * LEN * sizeof(double), base, NSTEPS * LEN, MPI_DOUBLE,
                          MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Win_free(&win);
    if (rank == 0)
        printf("rmareqs: %d steps of %d doubles on %d ranks\n", NSTEPS, LEN, size);
    MPI_Finalize();
    return 0;
}
