/* segments: the access pattern of IOR's POSIX backend on a shared file.
 * For each of S segments, each rank writes XFERS transfers of XFER bytes
 * with lseek + write at seg*P*BLOCK + rank*BLOCK + j*XFER (BLOCK =
 * XFERS*XFER), then reads them back the same way with lseek + read.
 * With `after`, each pass seeks once to its first transfer and then, after
 * every transfer, to the next one's offset (the next segment's start after
 * a segment's last transfer): the loop's body is then write, lseek, and the
 * segment boundary falls in its middle (docs/compression.md, the final pass).
 * usage: segments S [after] (prints one line from rank 0) */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XFERS 64
#define XFER 1024
#define BLOCK (XFERS * XFER)

static off_t offset_of(int s, int j, int rank, int size)
{
    return (off_t)s * size * BLOCK + (off_t)rank * BLOCK + (off_t)j * XFER;
}

static void transfer(int fd, char *buf, int reading)
{
    if ((reading ? read(fd, buf, XFER) : write(fd, buf, XFER)) != XFER)
        MPI_Abort(MPI_COMM_WORLD, 1);
}

static void seek(int fd, off_t off)
{
    if (lseek(fd, off, SEEK_SET) != off)
        MPI_Abort(MPI_COMM_WORLD, 1);
}

static void pass(int fd, int segs, int rank, int size, int reading)
{
    char buf[XFER];
    memset(buf, 'a' + rank % 26, sizeof buf);
    for (int s = 0; s < segs; s++)
        for (int j = 0; j < XFERS; j++) {
            seek(fd, offset_of(s, j, rank, size));
            transfer(fd, buf, reading);
        }
}

/* The offset after transfer j of segment s: the next transfer's, which
 * for the last transfer of a segment is the next segment's first. */
static off_t next_offset(int s, int j, int rank, int size)
{
    int t = s * XFERS + j + 1; /* without a branch: the compiler would copy the call into both */
    return offset_of(t / XFERS, t % XFERS, rank, size);
}

/* One lseek call for every seek after a transfer (one call site: the
 * segment's edge changes no structure, only the offset). */
static void pass_after(int fd, int segs, int rank, int size, int reading)
{
    char buf[XFER];
    memset(buf, 'a' + rank % 26, sizeof buf);
    seek(fd, offset_of(0, 0, rank, size));
    for (int s = 0; s < segs; s++)
        for (int j = 0; j < XFERS; j++) {
            transfer(fd, buf, reading);
            seek(fd, next_offset(s, j, rank, size));
        }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int segs = argc > 1 ? atoi(argv[1]) : 16;
    int after = argc > 2 && strcmp(argv[2], "after") == 0;
    int fd = open("segments.dat", O_CREAT | O_RDWR, 0644);
    if (fd < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    (after ? pass_after : pass)(fd, segs, rank, size, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    (after ? pass_after : pass)(fd, segs, rank, size, 1);
    close(fd);
    if (rank == 0)
        printf("segments: %d ranks, %d segments of %d transfers%s\n", size, segs, XFERS,
               after ? ", seeking after each" : "");
    MPI_Finalize();
    return 0;
}
