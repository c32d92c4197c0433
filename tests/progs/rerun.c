/* rerun: a program run again where its last run left its outputs, which it
 * removes first, as MPI-IO test programs and restartable codes do: rank 0
 * deletes the shared output with MPI_File_delete and its log with unlink,
 * each ignoring an error (the file may not be there), then the ranks create
 * the shared file collectively and write NB ints each, and rank 0 writes
 * its log anew. Exit 3 when the data read back is not what was written.
 * With "keep", nothing is removed: the shared file is opened over the old
 * one (MPI_MODE_CREATE without a delete, as a benchmark run twice does),
 * and its size at the open, MPI_File_get_size's, is the old file's.
 *
 * usage: rerun DIR [keep]   (the outputs are DIR/out.dat and DIR/log.txt) */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NB 16 /* ints per rank */

int main(int argc, char **argv)
{
    int rank, size, ok = 1;
    char out[4096], log[4096];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *dir = argc > 1 ? argv[1] : ".";
    int keep = argc > 2 && strcmp(argv[2], "keep") == 0;
    snprintf(out, sizeof out, "%s/out.dat", dir);
    snprintf(log, sizeof log, "%s/log.txt", dir);
    if (rank == 0 && !keep) {
        MPI_File_delete(out, MPI_INFO_NULL); /* an error (no such file) is no failure here */
        unlink(log);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File fh;
    int v[NB], back[NB];
    for (int i = 0; i < NB; i++)
        v[i] = rank * NB + i;
    MPI_File_open(MPI_COMM_WORLD, out, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_Offset at_open;
    MPI_File_get_size(fh, &at_open);
    /* every rank asks the size before any writes: Open MPI's collective
     * write on 2 ranks does not wait for the other rank, so on a busy
     * machine rank 0 could write before rank 1 asks, in the run or in its
     * replay, and the size would be the ranks' timing's, not the open's */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_write_at_all(fh, (MPI_Offset)rank * NB * sizeof(int), v, NB, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_read_at_all(fh, (MPI_Offset)rank * NB * sizeof(int), back, NB, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    ok = memcmp(v, back, sizeof v) == 0;
    if (rank == 0) {
        FILE *f = fopen(log, "w");
        if (f) {
            fprintf(f, "%d ranks wrote %d ints each\n", size, NB);
            fclose(f);
        }
    }
    MPI_Finalize();
    return ok ? 0 : 3;
}
