/* iompi: non-blocking MPI-IO completed by MPI request calls, as MPICH's
 * test/mpi/io programs (i_aggregation1, async_any, i_noncontig) do it. On
 * Open MPI, OMPIO starts POSIX aio requests inside MPI_File_iwrite_at and
 * MPI_File_iread_at and completes them (aio_error, aio_return) inside
 * MPI_Wait, MPI_Test and MPI_Waitall. Each rank works on its own block of
 * iompi.dat: N_WAIT writes each completed by MPI_Wait, N_TEST reads each
 * completed by an MPI_Test loop, N_ALL writes completed together by one
 * MPI_Waitall, and one exchange with a neighbour completed by MPI_Waitall
 * on communication requests (reissued as MPI at every replay level). The
 * counts and sizes below are what tests/integ/79-replay-aio-mpi.sh reads.
 * A call that fails or data read back wrong end the program with status 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/progs/mpi_check.h"

#define N_WAIT 3
#define W_BYTES 4096
#define N_TEST 2
#define R_BYTES 2048
#define N_ALL 4
#define A_BYTES 1024

#define BLOCK (N_WAIT * W_BYTES + N_ALL * A_BYTES)


static void fill(char *buf, int n, int seed)
{
    for (int i = 0; i < n; i++)
        buf[i] = (char)(seed * 31 + i);
}

static void write_each_waited(MPI_File fh, MPI_Offset base, char *buf)
{
    for (int i = 0; i < N_WAIT; i++) {
        MPI_Request rq;
        fill(buf, W_BYTES, i);
        CHECK(MPI_File_iwrite_at(fh, base + (MPI_Offset)i * W_BYTES, buf, W_BYTES, MPI_BYTE, &rq));
        CHECK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }
}

static void read_each_tested(MPI_File fh, MPI_Offset base, char *buf, char *want)
{
    for (int i = 0; i < N_TEST; i++) {
        MPI_Request rq;
        int done = 0;
        CHECK(MPI_File_iread_at(fh, base + (MPI_Offset)i * R_BYTES, buf, R_BYTES, MPI_BYTE, &rq));
        while (!done)
            CHECK(MPI_Test(&rq, &done, MPI_STATUS_IGNORE));
        fill(want, W_BYTES, i * R_BYTES / W_BYTES);
        if (memcmp(buf, want + (i * R_BYTES) % W_BYTES, R_BYTES) != 0) {
            fprintf(stderr, "iompi: read %d gave other bytes than written\n", i);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
}

static void write_all_waited(MPI_File fh, MPI_Offset base, char *buf)
{
    MPI_Request rq[N_ALL];
    MPI_Status st[N_ALL];
    for (int i = 0; i < N_ALL; i++) {
        fill(buf + i * A_BYTES, A_BYTES, 100 + i);
        CHECK(MPI_File_iwrite_at(fh, base + (MPI_Offset)(N_WAIT * W_BYTES + i * A_BYTES), buf + i * A_BYTES,
                                 A_BYTES, MPI_BYTE, &rq[i]));
    }
    CHECK(MPI_Waitall(N_ALL, rq, st));
}

static void exchange(int rank, int size)
{
    int out = rank, in = -1;
    MPI_Request rq[2];
    MPI_Status st[2];
    CHECK(MPI_Irecv(&in, 1, MPI_INT, (rank + size - 1) % size, 7, MPI_COMM_WORLD, &rq[0]));
    CHECK(MPI_Isend(&out, 1, MPI_INT, (rank + 1) % size, 7, MPI_COMM_WORLD, &rq[1]));
    CHECK(MPI_Waitall(2, rq, st));
    if (in != (rank + size - 1) % size) {
        fprintf(stderr, "iompi: received %d\n", in);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_File fh;
    static char buf[N_ALL * A_BYTES > W_BYTES ? N_ALL * A_BYTES : W_BYTES], want[W_BYTES];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    CHECK(MPI_File_open(MPI_COMM_WORLD, "iompi.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Offset base = (MPI_Offset)rank * BLOCK;
    write_each_waited(fh, base, buf);
    read_each_tested(fh, base, buf, want);
    write_all_waited(fh, base, buf);
    exchange(rank, size);
    CHECK(MPI_File_close(&fh));
    MPI_Finalize();
    return 0;
}
