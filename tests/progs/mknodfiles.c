/* Regular files made with mknod and mknodat, as mdtest -k makes its files
 * (mknod(path, S_IFREG | S_IRUSR, 0)), then opened and written; and a FIFO
 * made with mknod. Each rank works in a directory of its own, made with
 * mkdir after the files' names were first used nowhere: the replay must not
 * stage the files as inputs (they are the program's), or its own mkdirs and
 * mknods would find them there. With the argument "dev", rank 0 also makes
 * a character device node (the replay does not reissue it); the run must be
 * root for it to succeed, and it is recorded either way. The test reads
 * the constants below from this source. */
#define _GNU_SOURCE /* mknod, mknodat, AT_FDCWD under -std=c11 */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define N_MKNOD 6          /* regular files made with mknod, per rank */
#define N_WRITTEN 3        /* ... of which the first ones are written */
#define WRITE_BYTES 1000   /* bytes written to each of those */
#define N_MKNODAT 1        /* regular files made with mknodat, per rank */
#define MKNODAT_BYTES 512  /* written to it */
#define N_FIFO 1           /* FIFOs made with mknod, per rank */
#define MKNOD_MODE 0100600 /* S_IFREG | S_IRUSR | S_IWUSR, octal */
#define MKNODAT_MODE 0100644
#define FIFO_MODE 010600
#define DEV_MODE 020600 /* S_IFCHR | 0600 */

static void die(const char *what, const char *path)
{
    perror(what);
    fprintf(stderr, "mknodfiles: %s %s failed\n", what, path);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void write_file(const char *path, size_t n)
{
    char buf[4096];
    memset(buf, 'm', sizeof buf);
    int fd = open(path, O_WRONLY);
    if (fd < 0 || write(fd, buf, n) != (ssize_t)n || close(fd) != 0)
        die("open/write", path);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char dir[64], path[128];
    snprintf(dir, sizeof dir, "mdtest-%d", rank);
    if (mkdir(dir, 0755) != 0)
        die("mkdir", dir);
    for (int i = 0; i < N_MKNOD; i++) {
        snprintf(path, sizeof path, "%s/file.%d", dir, i);
        if (mknod(path, MKNOD_MODE, 0) != 0)
            die("mknod", path);
        if (i < N_WRITTEN)
            write_file(path, WRITE_BYTES);
    }
    /* AT_FDCWD: a directory descriptor is recorded as its number, which
     * names nothing in the replay (as for the other *at calls) */
    snprintf(path, sizeof path, "%s/at.0", dir);
    if (mknodat(AT_FDCWD, path, MKNODAT_MODE, 0) != 0)
        die("mknodat", path);
    write_file(path, MKNODAT_BYTES);
    snprintf(path, sizeof path, "%s/fifo.0", dir);
    if (mknod(path, FIFO_MODE, 0) != 0)
        die("mknod", path);
    if (argc > 1 && strcmp(argv[1], "dev") == 0 && rank == 0) {
        snprintf(path, sizeof path, "%s/null.0", dir);
        if (mknod(path, DEV_MODE, makedev(1, 3)) != 0)
            perror("mknod of a device node (recorded all the same)");
    }
    MPI_Finalize();
    return 0;
}
