/* reqbatch: batches of non-blocking MPI-IO requests whose length follows
 * the rank's residue. Rank r has n = NBASE + NSTEP*(r % 3) blocks of BLOCK
 * doubles in its own region of one shared file. Each of `rounds` rounds
 * writes them with blocking MPI_File_write_at, then again with n
 * MPI_File_iwrite_at completed by one MPI_Waitall, then reads them back
 * with n MPI_File_iread_at completed by one MPI_Waitall and checks them.
 * usage: reqbatch [rounds=2] (prints one line from rank 0; exits 1 when a
 * block read back differs) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NBASE 10
#define NSTEP 5
#define BLOCK 64
#define MAXN (NBASE + 2 * NSTEP)

static double out[MAXN][BLOCK], in[MAXN][BLOCK];

/* n requests at once, then one Waitall (how applications overlap I/O) */
static void batch(MPI_File fh, MPI_Offset at, int n, int reading)
{
    MPI_Request req[MAXN];
    MPI_Status st[MAXN];
    for (int i = 0; i < n; i++) {
        MPI_Offset off = at + (MPI_Offset)i * BLOCK * sizeof(double);
        if (reading)
            MPI_File_iread_at(fh, off, in[i], BLOCK, MPI_DOUBLE, &req[i]);
        else
            MPI_File_iwrite_at(fh, off, out[i], BLOCK, MPI_DOUBLE, &req[i]);
    }
    MPI_Waitall(n, req, st);
}

int main(int argc, char **argv)
{
    int rank, size, bad = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int rounds = argc > 1 ? atoi(argv[1]) : 2, n = NBASE + NSTEP * (rank % 3);
    /* As in tests/progs/rankmod.c, on purpose: each test program is one source
     * file, read beside its test as the statement of what it calls. */
    for (int i = 0; i < MAXN; i++)
        for (int k = 0; k < BLOCK; k++)
            out[i][k] = rank * 1000 + i;
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "reqbatch.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_Offset region = (MPI_Offset)MAXN * BLOCK * sizeof(double), base = (MPI_Offset)rank * 2 * region;
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < n; i++)
            MPI_File_write_at(fh, base + (MPI_Offset)i * BLOCK * sizeof(double), out[i], BLOCK, MPI_DOUBLE,
                              MPI_STATUS_IGNORE);
        batch(fh, base + region, n, 0);
        batch(fh, base + region, n, 1);
        for (int i = 0; i < n; i++)
            bad |= in[i][0] != out[i][0] || in[i][BLOCK - 1] != out[i][BLOCK - 1];
    }
    MPI_File_close(&fh);
    int anybad = 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0)
        printf("reqbatch: %d ranks, %d rounds%s\n", size, rounds, anybad ? ", data differ" : "");
    MPI_Finalize();
    return anybad;
}
