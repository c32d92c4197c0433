#define _GNU_SOURCE
/* known: a program whose events are known in advance (tests/py/check_known.py
 * lists them). Each rank writes 10 blocks of 100 bytes at offset
 * (rank*10+i)*100 of a shared file with MPI_File_write_at, writes its own
 * file with POSIX calls, and takes part in three collectives. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, x, y;
    char buf[128], name[64];
    MPI_File fh;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    memset(buf, 'a' + rank % 26, sizeof buf);

    MPI_File_open(MPI_COMM_WORLD, "known.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    for (int i = 0; i < 10; i++)
        MPI_File_write_at(fh, (MPI_Offset)(rank * 10 + i) * 100, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);

    snprintf(name, sizeof name, "posix-%d.dat", rank);
    int fd = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    for (int i = 0; i < 3; i++)
        if (write(fd, buf, 64) != 64)
            return 1;
    if (pwrite(fd, buf, 32, 1000) != 32)
        return 1;
    close(fd);

    MPI_Barrier(MPI_COMM_WORLD);
    x = rank + 1;
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Bcast(buf, 16, MPI_BYTE, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
