/* rmorder: every rank creates and removes the same file inside one
 * collective MPI-IO call, as Open MPI's MPI_File_open does with its
 * FILE.locktest.N (its shared-file-pointer component tests fcntl locks so):
 * which rank's unlink finds the file gone depends on the order of the
 * ranks' calls. Here the calls are made by a file error handler, which
 * MPI_File_open calls on every rank when it fails (the file does not exist
 * and MPI_MODE_CREATE is not given); rank 0 waits FIRST_MS ms before its
 * calls, the others LATER_MS ms between their open and their unlink, so
 * that in this run rank 0 removes the file and the others find it gone. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define FIRST_MS 300
#define LATER_MS 900

static int rank;

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

static void on_error(MPI_File *fh, int *code, ...)
{
    (void)fh, (void)code;
    if (rank == 0)
        sleep_ms(FIRST_MS);
    int fd = open("rmorder.lock", O_RDWR | O_CREAT, 0644);
    if (fd >= 0)
        close(fd);
    if (rank != 0)
        sleep_ms(LATER_MS);
    unlink("rmorder.lock");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Errhandler eh;
    MPI_File_create_errhandler(on_error, &eh);
    MPI_File_set_errhandler(MPI_FILE_NULL, eh);
    MPI_File fh;
    int rc = MPI_File_open(MPI_COMM_WORLD, "rmorder-missing.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    if (rc == MPI_SUCCESS) {
        fprintf(stderr, "rmorder: rmorder-missing.dat opened: it must not exist\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Errhandler_free(&eh);
    MPI_Finalize();
    return 0;
}
