#define _GNU_SOURCE
/* pinit: an MPI program that starts and ends MPI with PMPI_Init and
 * PMPI_Finalize itself (as ROMIO's test psimple.c does), making its other
 * MPI calls through their MPI_ names. Each rank
 *   - asks MPI_Comm_rank and MPI_Comm_size;
 *   - writes pinit-<rank>.dat with PWRITES pwrite of PWRITE_BYTES bytes at
 *     offsets 0, PWRITE_BYTES, 2*PWRITE_BYTES...;
 *   - writes pinit-<rank>.txt with FWRITES fwrite of FWRITE_BYTES bytes;
 *   - writes SHARED_BYTES bytes at offset rank*SHARED_BYTES of the shared
 *     pinit-shared.dat with MPI_File_open / MPI_File_write_at /
 *     MPI_File_close;
 *   - meets the others in one MPI_Barrier;
 *   - ends with PMPI_Finalize.
 * Its argument changes the start or the end:
 *   mpi-finalize  ends with MPI_Finalize instead;
 *   thread        starts with PMPI_Init_thread(MPI_THREAD_FUNNELED);
 *   no-mpi        starts no MPI at all: only the two files of the rank the
 *                 launcher gives it (PMI_RANK under MPICH's hydra,
 *                 OMPI_COMM_WORLD_RANK under Open MPI's mpirun).
 * It exits 0 when every call succeeded, 1 otherwise. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PWRITES 3
#define PWRITE_BYTES 1000
#define FWRITES 2
#define FWRITE_BYTES 500
#define SHARED_BYTES 100

static int posix_file(int rank)
{
    char name[64], buf[PWRITE_BYTES];
    memset(buf, 'p', sizeof buf);
    snprintf(name, sizeof name, "pinit-%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    int bad = 0;
    for (int i = 0; i < PWRITES; i++)
        bad |= pwrite(fd, buf, sizeof buf, (off_t)i * PWRITE_BYTES) != (ssize_t)sizeof buf;
    return close(fd) != 0 || bad;
}

static int stdio_file(int rank)
{
    char name[64], buf[FWRITE_BYTES];
    memset(buf, 's', sizeof buf);
    snprintf(name, sizeof name, "pinit-%d.txt", rank);
    FILE *f = fopen(name, "w");
    if (!f)
        return 1;
    int bad = 0;
    for (int i = 0; i < FWRITES; i++)
        bad |= fwrite(buf, 1, sizeof buf, f) != sizeof buf;
    return fclose(f) != 0 || bad;
}

static int mpiio_file(int rank)
{
    char buf[SHARED_BYTES];
    MPI_File fh;
    memset(buf, 'm', sizeof buf);
    if (MPI_File_open(MPI_COMM_WORLD, "pinit-shared.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) !=
        MPI_SUCCESS)
        return 1;
    int bad = MPI_File_write_at(fh, (MPI_Offset)rank * SHARED_BYTES, buf, SHARED_BYTES, MPI_BYTE, MPI_STATUS_IGNORE) !=
              MPI_SUCCESS;
    return MPI_File_close(&fh) != MPI_SUCCESS || bad;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rank = -1, size = 0, provided = -1;
    if (strcmp(mode, "no-mpi") == 0) {
        const char *r = getenv("PMI_RANK") ? getenv("PMI_RANK") : getenv("OMPI_COMM_WORLD_RANK");
        if (!r)
            return 1;
        rank = atoi(r);
        return posix_file(rank) | stdio_file(rank);
    }
    if (strcmp(mode, "thread") == 0) {
        if (PMPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
            return 1;
    } else if (PMPI_Init(&argc, &argv) != MPI_SUCCESS)
        return 1;
    int bad = MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS;
    bad |= MPI_Comm_size(MPI_COMM_WORLD, &size) != MPI_SUCCESS;
    bad |= posix_file(rank);
    bad |= stdio_file(rank);
    bad |= mpiio_file(rank);
    bad |= MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS;
    if (strcmp(mode, "mpi-finalize") == 0)
        bad |= MPI_Finalize() != MPI_SUCCESS;
    else
        bad |= PMPI_Finalize() != MPI_SUCCESS;
    return bad;
}
