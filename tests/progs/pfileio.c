/* pfileio: MPI-IO through the profiling interface, the way round the
 * tracer's wrappers (ROMIO's test psimple.c makes all its MPI-IO calls so).
 * Each rank writes BLOCK bytes at rank*BLOCK of pfile.dat with PMPI_File_*
 * calls, and the same through MPI_File_* into mfile.dat; then reads its
 * block of pfile.dat back through PMPI_File_read_at. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define BLOCK 4096

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "pfileio: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static char buf[BLOCK], back[BLOCK];
    memset(buf, 'a' + rank % 26, sizeof buf);
    MPI_File fh;
    MPI_Status st;
    check(PMPI_File_open(MPI_COMM_WORLD, "pfile.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh), "PMPI_File_open");
    check(PMPI_File_write_at(fh, (MPI_Offset)rank * BLOCK, buf, BLOCK, MPI_BYTE, &st), "PMPI_File_write_at");
    check(PMPI_File_sync(fh), "PMPI_File_sync");
    check(PMPI_File_read_at(fh, (MPI_Offset)rank * BLOCK, back, BLOCK, MPI_BYTE, &st), "PMPI_File_read_at");
    check(PMPI_File_close(&fh), "PMPI_File_close");
    if (memcmp(buf, back, BLOCK) != 0) {
        fprintf(stderr, "pfileio: rank %d read back other bytes\n", rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    check(MPI_File_open(MPI_COMM_WORLD, "mfile.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh), "MPI_File_open");
    check(MPI_File_write_at(fh, (MPI_Offset)rank * BLOCK, buf, BLOCK, MPI_BYTE, &st), "MPI_File_write_at");
    check(MPI_File_close(&fh), "MPI_File_close");
    MPI_Finalize();
    return 0;
}
