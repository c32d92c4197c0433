/* Results that the order of the ranks' calls decides, outside the calls a
 * replay reissues (tests/integ/75-replay-order-results.sh):
 *
 *   byorder seek: rank 0 writes SIZE0 bytes; after a barrier, rank 0 makes
 *     NPAD small writes to another file and asks MPI_File_get_size (the
 *     MPI-IO library seeks to the file's end), while rank 1 computes for
 *     NAP_MS, then writes FAR_LEN bytes at FAR_OFF: in the run rank 0 sees
 *     SIZE0. A replay without the run's computation (ioreplay
 *     --no-compute) has rank 1's far write come first, while rank 0 is
 *     still making its NPAD writes: the seek to the end finds the far
 *     write's end, a size that only the ranks' order decided.
 *   byorder delete: every rank deletes the same file; the ranks below the
 *     last wait NAP_MS first, so that the last rank is the one that
 *     deletes it and the others find it gone (MPI_ERR_NO_SUCH_FILE); the
 *     program checks that exactly one did. Which rank deletes it in a
 *     replay without the waits is the order its ranks come in.
 *
 * Exits 1 when the run itself is not as described (the size seen, not
 * exactly one rank deleting the file), 2 for bad usage. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>

#define FILE_NAME "byorder.dat"
#define SIZE0 5000
#define FAR_OFF 9000
#define FAR_LEN 40
#define NAP_MS 300
#define NPAD 20000
#define PAD_NAME "byorder.pad"

static void nap(void)
{
    struct timespec t = {NAP_MS / 1000, (NAP_MS % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static int seek_phase(int rank)
{
    static char buf[SIZE0];
    MPI_File fh;
    MPI_Offset size = -1;
    memset(buf, 'x', sizeof buf);
    MPI_File_open(MPI_COMM_WORLD, FILE_NAME, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    if (rank == 0)
        MPI_File_write_at(fh, 0, buf, SIZE0, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        int pad = open(PAD_NAME, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        for (int i = 0; i < NPAD; i++)
            if (pwrite(pad, buf, 64, (off_t)i * 64) != 64)
                return 1;
        close(pad);
        MPI_File_get_size(fh, &size);
    }
    if (rank == 1) {
        nap();
        MPI_File_write_at(fh, FAR_OFF, buf, FAR_LEN, MPI_BYTE, MPI_STATUS_IGNORE);
    }
    MPI_File_close(&fh);
    if (rank == 0 && size != SIZE0) {
        fprintf(stderr, "byorder: the size seen was %lld, not %d\n", (long long)size, SIZE0);
        return 1;
    }
    return 0;
}

static int delete_phase(int rank, int nranks)
{
    MPI_File fh;
    if (rank == 0) {
        MPI_File_open(MPI_COMM_SELF, FILE_NAME, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
        MPI_File_close(&fh);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank < nranks - 1)
        nap();
    MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN);
    int rc = MPI_File_delete(FILE_NAME, MPI_INFO_NULL), cls = MPI_SUCCESS, deleted = 0, gone = 0, n[2];
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    deleted = rc == MPI_SUCCESS;
    gone = cls == MPI_ERR_NO_SUCH_FILE;
    int mine[2] = {deleted, gone};
    MPI_Allreduce(mine, n, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (n[0] != 1 || n[0] + n[1] != nranks) {
        if (rank == 0)
            fprintf(stderr, "byorder: %d ranks deleted the file and %d found it gone, of %d\n", n[0], n[1], nranks);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int rank, nranks, bad;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc != 2 || (strcmp(argv[1], "seek") != 0 && strcmp(argv[1], "delete") != 0) || nranks < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: byorder seek|delete, on 2 ranks or more\n");
        MPI_Finalize();
        return 2;
    }
    bad = strcmp(argv[1], "seek") == 0 ? seek_phase(rank) : delete_phase(rank, nranks);
    MPI_Finalize();
    return bad;
}
