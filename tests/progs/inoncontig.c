/* inoncontig: non-blocking collective MPI-IO on a non-contiguous view, as
 * ROMIO's i_noncontig_coll: a vector of every other int, displaced by the
 * rank, resized to SIZE ints, is both the file view and the memory type.
 * Rank r of 2 writes its buf[j] = j + r * SIZE at the file's ints j with
 * j % 2 == r (MPI_File_iwrite_all), meets the other in an MPI_Barrier
 * before MPI_Wait (Open MPI's OMPIO then does the aio polls of the write
 * inside the barrier), and reads the file back with MPI_File_iread_at_all,
 * checking every int (exit 2). Needs 2 ranks. */
#include <mpi.h>
#include <stdio.h>

#define SIZE 5000

int main(int argc, char **argv)
{
    int rank, nprocs, buf[SIZE], errs = 0;
    MPI_File fh;
    MPI_Request req;
    MPI_Status st;
    MPI_Datatype vec, shifted, view;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Type_vector(SIZE / 2, 1, 2, MPI_INT, &vec);
    int one = 1;
    MPI_Aint disp = rank * (MPI_Aint)sizeof(int);
    MPI_Type_create_struct(1, &one, &disp, &vec, &shifted);
    MPI_Type_create_resized(shifted, 0, SIZE * sizeof(int), &view);
    MPI_Type_commit(&view);
    for (int i = 0; i < SIZE; i++)
        buf[i] = i + rank * SIZE;
    MPI_File_open(MPI_COMM_WORLD, "inoncontig.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_set_view(fh, 0, MPI_INT, view, "native", MPI_INFO_NULL);
    MPI_File_iwrite_all(fh, buf, 1, view, &req);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Wait(&req, &st);
    for (int i = 0; i < SIZE; i++)
        buf[i] = -1;
    MPI_File_iread_at_all(fh, 0, buf, 1, view, &req);
    MPI_Wait(&req, &st);
    for (int i = rank; i < SIZE; i += 2)
        errs += buf[i] != i + rank * SIZE;
    MPI_File_close(&fh);
    MPI_Type_free(&view);
    MPI_Type_free(&shifted);
    MPI_Type_free(&vec);
    if (errs || nprocs != 2)
        fprintf(stderr, "inoncontig rank %d: %d ints read wrong (%d ranks)\n", rank, errs, nprocs);
    MPI_Finalize();
    return errs || nprocs != 2 ? 2 : 0;
}
