#define _GNU_SOURCE
/* pinit: an MPI program that starts and ends MPI with PMPI_Init and
 * PMPI_Finalize itself (as ROMIO's test psimple.c does), so the tracer never
 * sees MPI_Init: under a launcher each process is a serial session to it.
 * Its other MPI calls go through the tracer's wrappers. Each rank
 *   - asks MPI_Comm_rank and MPI_Comm_size (wrapped);
 *   - writes pinit-<rank>.dat with 3 pwrite of 1000 bytes at offsets 0, 1000,
 *     2000 (a 3000-byte file);
 *   - writes pinit-<rank>.txt with 2 fwrite of 500 bytes (1000 bytes);
 *   - writes 100 bytes at offset rank*100 of the shared pinit-shared.dat
 *     with MPI_File_open / MPI_File_write_at / MPI_File_close (wrapped);
 *   - meets the others in one MPI_Barrier (wrapped);
 *   - ends with PMPI_Finalize, or with MPI_Finalize (wrapped) when its
 *     argument is "mpi-finalize".
 * It exits 0 when every call succeeded, 1 otherwise. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int posix_file(int rank)
{
    char name[64], buf[1000];
    memset(buf, 'p', sizeof buf);
    snprintf(name, sizeof name, "pinit-%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    int bad = 0;
    for (int i = 0; i < 3; i++)
        bad |= pwrite(fd, buf, sizeof buf, (off_t)i * 1000) != (ssize_t)sizeof buf;
    return close(fd) != 0 || bad;
}

static int stdio_file(int rank)
{
    char name[64], buf[500];
    memset(buf, 's', sizeof buf);
    snprintf(name, sizeof name, "pinit-%d.txt", rank);
    FILE *f = fopen(name, "w");
    if (!f)
        return 1;
    int bad = 0;
    for (int i = 0; i < 2; i++)
        bad |= fwrite(buf, 1, sizeof buf, f) != sizeof buf;
    return fclose(f) != 0 || bad;
}

static int mpiio_file(int rank)
{
    char buf[100];
    MPI_File fh;
    memset(buf, 'm', sizeof buf);
    if (MPI_File_open(MPI_COMM_WORLD, "pinit-shared.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS)
        return 1;
    int bad = MPI_File_write_at(fh, (MPI_Offset)rank * 100, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE) != MPI_SUCCESS;
    return MPI_File_close(&fh) != MPI_SUCCESS || bad;
}

int main(int argc, char **argv)
{
    int rank = -1, size = 0;
    if (PMPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    int bad = MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS;
    bad |= MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS;
    bad |= posix_file(rank);
    bad |= stdio_file(rank);
    bad |= mpiio_file(rank);
    bad |= MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS;
    if (argc > 1 && strcmp(argv[1], "mpi-finalize") == 0)
        bad |= MPI_Finalize() != MPI_SUCCESS;
    else
        bad |= PMPI_Finalize() != MPI_SUCCESS;
    return bad;
}
