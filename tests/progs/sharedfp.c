/* sharedfp: the shared file pointer, as MPI-IO test suites use it. Every
 * rank writes NREC records of REC bytes with MPI_File_write_ordered (rank
 * order) and then one with MPI_File_write_shared, closes the file, and
 * opens a second file with MPI_MODE_DELETE_ON_CLOSE, writes its block at
 * rank*REC and closes it. Inside the closes the MPI library removes files
 * on every rank (ROMIO its shared-pointer file, OMPIO the file to delete):
 * one rank's unlink succeeds, the others' find nothing. Checks the first
 * file's size (exit 1) and that the second is gone (exit 2).
 * usage: sharedfp (writes sharedfp.dat) */
#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define NREC 3
#define REC 32

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char rec[REC];
    memset(rec, 'a' + rank % 26, sizeof rec);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "sharedfp.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    for (int i = 0; i < NREC; i++)
        MPI_File_write_ordered(fh, rec, REC, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_write_shared(fh, rec, REC, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_File_open(MPI_COMM_WORLD, "scratch.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY | MPI_MODE_DELETE_ON_CLOSE,
                  MPI_INFO_NULL, &fh);
    MPI_File_write_at(fh, (MPI_Offset)rank * REC, rec, REC, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    int bad = 0;
    if (rank == 0) {
        FILE *f = fopen("sharedfp.dat", "r");
        long n = -1;
        if (f && fseek(f, 0, SEEK_END) == 0)
            n = ftell(f);
        if (f)
            fclose(f);
        bad = n != (long)size * (NREC + 1) * REC ? 1 : access("scratch.dat", F_OK) == 0 ? 2 : 0;
        printf("sharedfp: %d ranks, %ld bytes%s\n", size, n, bad == 2 ? ", scratch.dat left" : "");
    }
    MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return bad;
}
