/* O_DIRECT I/O as IOR's --posix.odirect makes it: each rank opens a file of
 * its own with O_RDWR | O_CREAT | O_DIRECT and writes and reads aligned
 * blocks from aligned memory: pwrite and pread, write and read after an
 * lseek, and a pwritev of two blocks. The kernel refuses (EINVAL) an
 * unaligned buffer, so a replay must use aligned ones too. The file system
 * must support O_DIRECT (tmpfs before Linux 6.6 does not): the program
 * fails otherwise. The test reads the constants below from this source. */
#define _GNU_SOURCE /* O_DIRECT, pwritev under -std=c11 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#define BLOCK 4096   /* bytes of each transfer, and the alignment */
#define N_PWRITE 8   /* blocks written with pwrite, per rank */
#define N_PREAD 8    /* ... read back with pread */
#define N_WRITE 2    /* blocks written with write after them */
#define N_READ 2     /* ... read back with read after an lseek */
#define N_PWRITEV 1  /* pwritev calls of 2 blocks, after those */

static void check(int ok, const char *what)
{
    if (!ok) {
        perror(what);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char name[64];
    snprintf(name, sizeof name, "direct-%d.dat", rank);
    void *buf = NULL;
    check(posix_memalign(&buf, BLOCK, 2 * BLOCK) == 0, "posix_memalign");
    memset(buf, 'a' + rank, 2 * BLOCK);
    int fd = open(name, O_RDWR | O_CREAT | O_DIRECT, 0644);
    check(fd >= 0, "open with O_DIRECT");
    for (int i = 0; i < N_PWRITE; i++)
        check(pwrite(fd, buf, BLOCK, (off_t)i * BLOCK) == BLOCK, "pwrite");
    for (int i = 0; i < N_PREAD; i++)
        check(pread(fd, buf, BLOCK, (off_t)i * BLOCK) == BLOCK, "pread");
    check(lseek(fd, (off_t)N_PWRITE * BLOCK, SEEK_SET) == (off_t)N_PWRITE * BLOCK, "lseek");
    for (int i = 0; i < N_WRITE; i++)
        check(write(fd, buf, BLOCK) == BLOCK, "write");
    check(lseek(fd, 0, SEEK_SET) == 0, "lseek");
    for (int i = 0; i < N_READ; i++)
        check(read(fd, buf, BLOCK) == BLOCK, "read");
    struct iovec iov[2] = {{buf, BLOCK}, {(char *)buf + BLOCK, BLOCK}};
    for (int i = 0; i < N_PWRITEV; i++)
        check(pwritev(fd, iov, 2, (off_t)(N_PWRITE + N_WRITE + 2 * i) * BLOCK) == 2 * BLOCK, "pwritev");
    check(close(fd) == 0, "close");
    free(buf);
    MPI_Finalize();
    return 0;
}
