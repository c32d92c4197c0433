/* rmw: a collective write with holes, for the report's amplification
 * (test 94). Rank 0 first fills FILL bytes of rmw.out with one
 * MPI_File_write_at; then every rank writes K bytes at (i*2P + 2*rank)*K,
 * i < R, with MPI_File_write_at_all and collective buffering enabled: each
 * call's blocks leave a hole of K bytes after each other, so ROMIO's
 * aggregators read the extent, fill in the blocks and write it back
 * (read-modify-write): POSIX reads under MPI-IO writes. */
#include <mpi.h>
#include <string.h>

#define R 4
#define K 1000
#define FILL 64000

int main(int argc, char **argv)
{
    static char buf[FILL];
    int rank, size;
    MPI_File fh;
    MPI_Info info;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    memset(buf, 'a' + rank % 26, sizeof buf);
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "enable");
    MPI_File_open(MPI_COMM_WORLD, "rmw.out", MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh);
    if (rank == 0)
        MPI_File_write_at(fh, 0, buf, FILL, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < R; i++)
        MPI_File_write_at_all(fh, (MPI_Offset)(i * 2 * size + 2 * rank) * K, buf, K, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Info_free(&info);
    MPI_Finalize();
    return 0;
}
