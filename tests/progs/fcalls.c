/* fcalls: the same MPI calls as fcalls_f.f90, in C. The Fortran test traces
 * both and expects the same events (the Fortran wrappers must record what
 * the C ones do): requests and their completion (Waitall, Waitany with its
 * 0-based index), statuses given and ignored, strings, communicators,
 * datatypes, MPI-IO with explicit offsets, and one-sided communication
 * (window, fence, Put, Get, lock, Accumulate). MPI_DOUBLE_PRECISION in C
 * too, so that the datatype ids are the same. */
#include <mpi.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;
    double sbuf[16], rbuf[16];
    for (int i = 0; i < 16; i++)
        sbuf[i] = rank * 100 + i;
    MPI_Request req[2];
    MPI_Status st[2];
    for (int it = 0; it < 3; it++) {
        MPI_Irecv(rbuf, 16, MPI_DOUBLE_PRECISION, left, 7, MPI_COMM_WORLD, &req[0]);
        MPI_Isend(sbuf, 16, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, &req[1]);
        MPI_Waitall(2, req, st);
    }
    /* Waitany with a deterministic answer: index 1, then MPI_UNDEFINED */
    int idx;
    MPI_Isend(sbuf, 8, MPI_DOUBLE_PRECISION, right, 8, MPI_COMM_WORLD, &req[1]);
    MPI_Wait(&req[1], MPI_STATUS_IGNORE);
    req[0] = MPI_REQUEST_NULL;
    MPI_Irecv(rbuf, 8, MPI_DOUBLE_PRECISION, left, 8, MPI_COMM_WORLD, &req[1]);
    MPI_Waitany(2, req, &idx, &st[0]);
    MPI_Waitany(2, req, &idx, MPI_STATUS_IGNORE);
    double sum = 0, mine = rank;
    MPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
    MPI_Barrier(half);
    MPI_Comm_free(&half);
    MPI_Datatype vec;
    MPI_Type_vector(4, 2, 4, MPI_DOUBLE_PRECISION, &vec);
    MPI_Type_commit(&vec);
    MPI_Sendrecv(sbuf, 1, vec, right, 9, rbuf, 1, vec, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Type_free(&vec);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "fcalls.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, "native", MPI_INFO_NULL);
    for (int i = 0; i < 4; i++)
        MPI_File_write_at(fh, (MPI_Offset)(rank * 4 + i) * 16, sbuf, 16, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Offset sz;
    MPI_File_get_size(fh, &sz);
    MPI_File_read_at_all(fh, (MPI_Offset)rank * 64, rbuf, 16, MPI_DOUBLE_PRECISION, &st[0]);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    /* one-sided: a window on sbuf, fence epochs, a lock */
    MPI_Win win;
    MPI_Win_create(sbuf, 16 * 8, 8, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    for (int it = 0; it < 2; it++) {
        MPI_Win_fence(0, win);
        MPI_Put(rbuf, 4, MPI_DOUBLE_PRECISION, right, 8, 4, MPI_DOUBLE_PRECISION, win);
        MPI_Get(rbuf + 4, 4, MPI_DOUBLE_PRECISION, left, 0, 4, MPI_DOUBLE_PRECISION, win);
        MPI_Win_fence(0, win);
    }
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
    MPI_Accumulate(&mine, 1, MPI_DOUBLE_PRECISION, 0, 15, 1, MPI_DOUBLE_PRECISION, MPI_SUM, win);
    MPI_Win_unlock(0, win);
    MPI_Win_free(&win);
    MPI_Finalize();
    return 0;
}
