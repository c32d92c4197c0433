/* collw: R collective writes of K bytes per rank, rank-interleaved
 * (offset (i*P + rank)*K), then R collective reads of the same blocks;
 * nothing else. See 28-preload.sh. */
#include <mpi.h>
#include <string.h>

#define R 5
#define K 4096

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static char buf[K];
    memset(buf, 'a' + rank, sizeof buf);
    MPI_File fh;
    MPI_File_open(MPI_COMM_WORLD, "collw.out", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    for (int i = 0; i < R; i++)
        MPI_File_write_at_all(fh, (MPI_Offset)(i * size + rank) * K, buf, K, MPI_BYTE, MPI_STATUS_IGNORE);
    for (int i = 0; i < R; i++)
        MPI_File_read_at_all(fh, (MPI_Offset)(i * size + rank) * K, buf, K, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    MPI_Finalize();
    return 0;
}
