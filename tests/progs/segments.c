/* segments: the access pattern of IOR's POSIX backend on a shared file.
 * For each of S segments, each rank writes XFERS transfers of XFER bytes
 * with lseek + write at seg*P*BLOCK + rank*BLOCK + j*XFER (BLOCK =
 * XFERS*XFER), then reads them back the same way with lseek + read.
 * usage: segments S (prints one line from rank 0) */
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

static void pass(int fd, int segs, int rank, int size, int reading)
{
    char buf[XFER];
    memset(buf, 'a' + rank % 26, sizeof buf);
    for (int s = 0; s < segs; s++)
        for (int j = 0; j < XFERS; j++) {
            off_t off = (off_t)s * size * BLOCK + (off_t)rank * BLOCK + (off_t)j * XFER;
            if (lseek(fd, off, SEEK_SET) != off ||
                (reading ? read(fd, buf, XFER) : write(fd, buf, XFER)) != XFER)
                MPI_Abort(MPI_COMM_WORLD, 1);
        }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int segs = argc > 1 ? atoi(argv[1]) : 16;
    int fd = open("segments.dat", O_CREAT | O_RDWR, 0644);
    if (fd < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    pass(fd, segs, rank, size, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    pass(fd, segs, rank, size, 1);
    close(fd);
    if (rank == 0)
        printf("segments: %d ranks, %d segments of %d transfers\n", size, segs, XFERS);
    MPI_Finalize();
    return 0;
}
