/* rankmod: values that follow the rank's residue (a process grid's shape).
 * Rank r writes NBASE + NSTEP*(r % 3) blocks of BLOCK doubles to one shared
 * file at offsets that depend on the rank: first with blocking
 * MPI_File_write_at, then the same count of MPI_File_iwrite_at completed by
 * one MPI_Waitall, and last one collective MPI_File_write_at_all.
 * usage: rankmod (prints one line from rank 0) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NBASE 10
#define NSTEP 5
#define BLOCK 64
#define MAXN (NBASE + 2 * NSTEP)

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int n = NBASE + NSTEP * (rank % 3);
    static double buf[MAXN][BLOCK];
    /* As in tests/progs/reqbatch.c, on purpose: each test program is one source
     * file, read beside its test as the statement of what it calls. */
    for (int i = 0; i < MAXN; i++)
        for (int k = 0; k < BLOCK; k++)
            buf[i][k] = rank * 1000 + i;
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "rankmod.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    MPI_Offset region = (MPI_Offset)MAXN * BLOCK * sizeof(double), base = (MPI_Offset)rank * 3 * region;
    for (int i = 0; i < n; i++)
        MPI_File_write_at(fh, base + (MPI_Offset)i * BLOCK * sizeof(double), buf[i], BLOCK, MPI_DOUBLE,
                          MPI_STATUS_IGNORE);
    MPI_Request req[MAXN];
    MPI_Status st[MAXN];
    for (int i = 0; i < n; i++)
        MPI_File_iwrite_at(fh, base + region + (MPI_Offset)i * BLOCK * sizeof(double), buf[i], BLOCK, MPI_DOUBLE,
                           &req[i]);
    MPI_Waitall(n, req, st);
    MPI_File_write_at_all(fh, base + 2 * region, buf[0], n * BLOCK, MPI_DOUBLE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    if (rank == 0)
        printf("rankmod: %d ranks\n", size);
    MPI_Finalize();
    return 0;
}
