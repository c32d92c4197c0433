/* largecount: the MPI-4 large-count (_c) forms, as an I/O benchmark picks
 * them when its configure finds them (MPICH 4). Each rank writes N doubles
 * at rank*N with MPI_File_write_at_c, N more at (P + rank)*N with the
 * collective MPI_File_write_at_all_c, reads its first block back with
 * MPI_File_read_at_all_c, and gathers one count per rank with
 * MPI_Allgatherv_c (MPI_Count counts, MPI_Aint displacements) into a type
 * made by MPI_Type_contiguous_c. See 27-large-count.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
#if MPI_VERSION >= 4
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static double buf[N], back[N];
    for (int i = 0; i < N; i++)
        buf[i] = rank * N + i + 1;
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "large.out", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_Status st;
    MPI_Count n = N;
    if (MPI_File_write_at_c(fh, (MPI_Offset)rank * N * 8, buf, n, MPI_DOUBLE, &st) != MPI_SUCCESS ||
        MPI_File_write_at_all_c(fh, (MPI_Offset)(size + rank) * N * 8, buf, n, MPI_DOUBLE, &st) != MPI_SUCCESS ||
        MPI_File_read_at_all_c(fh, (MPI_Offset)rank * N * 8, back, n, MPI_DOUBLE, &st) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_File_close(&fh);
    for (int i = 0; i < N; i++)
        if (back[i] != buf[i])
            MPI_Abort(MPI_COMM_WORLD, 3);
    MPI_Datatype pair;
    MPI_Type_contiguous_c(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    int mine[2] = {rank, rank * rank}, *all = malloc(2 * sizeof(int) * (size_t)size);
    MPI_Count *counts = malloc(sizeof *counts * (size_t)size);
    MPI_Aint *displs = malloc(sizeof *displs * (size_t)size);
    for (int r = 0; r < size; r++) {
        counts[r] = 1;
        displs[r] = r;
    }
    MPI_Allgatherv_c(mine, 1, pair, all, counts, displs, pair, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        if (all[2 * r] != r || all[2 * r + 1] != r * r)
            MPI_Abort(MPI_COMM_WORLD, 4);
    MPI_Type_free(&pair);
    free(all);
    free(counts);
    free(displs);
#endif
    MPI_Finalize();
    return 0;
}
