/* big: sizes and counts past the usual limits.
 *   big offsets       pread/lseek at offsets past 2^32, 2^53 and near 2^62, a
 *                     read count past 2^32, and a loop striding by 2^40
 *   big files N       N files open at once (raises RLIMIT_NOFILE), a write to each
 *   big name          a file under a 4095-byte relative path (nested directories)
 *   big irregular N   N lseeks to pseudo-random offsets (x = x*6364136223846793005
 *                     + 1442695040888963407 mod 2^64, offset = x >> 21): nothing
 *                     to compress; with MPI when a second argument says "mpi" */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

/* prints what each call returned, for the untraced and traced runs to compare */
#define SHOW(expr)                                                                     \
    do {                                                                               \
        errno = 0;                                                                     \
        long long r_ = (long long)(expr);                                              \
        printf("%-48s %lld %d\n", #expr, r_, errno);                                   \
    } while (0)

static int offsets(void)
{
    int fd = open("big-empty.dat", O_CREAT | O_RDWR | O_TRUNC, 0644);
    char b[16];
    /* On the heap, far below the top of the address space: the kernel takes
     * the huge count (at the end of the file nothing is read). */
    void *volatile p = malloc(16);
    SHOW(pread(fd, b, 1, (off_t)1 << 33));
    SHOW(pread(fd, b, 1, ((off_t)1 << 53) + 1));
    SHOW(pread(fd, b, 1, ((off_t)1 << 62) + 12345));
    SHOW(lseek(fd, ((off_t)1 << 40) + 3, SEEK_SET));
    SHOW(lseek(fd, ((off_t)1 << 53) + 3, SEEK_SET));
    SHOW(read(fd, p, (size_t)1 << 33));
    for (int i = 0; i < 10; i++)
        SHOW(pread(fd, b, 1, ((off_t)1 << 53) + ((off_t)i << 40)));
    close(fd);
    free(p);
    return 0;
}

static int files(int n)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    if (rl.rlim_cur < (rlim_t)n + 64) {
        rl.rlim_cur = (rlim_t)n + 64 < rl.rlim_max ? (rlim_t)n + 64 : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    int *fd = malloc(sizeof *fd * (size_t)n);
    mkdir("big-files", 0755);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "big-files/f%05d", i);
        if ((fd[i] = open(name, O_CREAT | O_WRONLY | O_TRUNC, 0644)) < 0)
            return 2;
    }
    for (int i = 0; i < n; i++)
        if (pwrite(fd[i], "x", 1, i) != 1)
            return 3;
    for (int i = 0; i < n; i++)
        close(fd[i]);
    free(fd);
    return 0;
}

static int name(void)
{
    /* 16 directories of 250 characters and a file name of 79: 16*251 + 79 = 4095 bytes */
    char path[4096];
    size_t len = 0;
    for (int d = 0; d < 16; d++) {
        memset(path + len, 'a' + d, 250);
        len += 250;
        path[len] = 0;
        if (mkdir(path, 0755) != 0 && errno != EEXIST)
            return 2;
        path[len++] = '/';
    }
    memset(path + len, 'z', 4095 - len);
    path[4095] = 0;
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        return 3;
    if (write(fd, "long", 4) != 4)
        return 4;
    close(fd);
    return unlink(path) != 0;
}

static int irregular(long n, int rank)
{
    int fd = open("big-empty.dat", O_CREAT | O_RDWR, 0644);
    uint64_t x = 12345 + (uint64_t)rank;
    for (long i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        off_t off = (off_t)(x >> 21);
        if (lseek(fd, off, SEEK_SET) != off)
            return 2;
    }
    close(fd);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "offsets";
    long n = argc > 2 ? atol(argv[2]) : 0;
    int mpi = argc > 3 && strcmp(argv[3], "mpi") == 0, rank = 0;
    if (mpi) {
        MPI_Init(&argc, &argv);
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    }
    int rc = strcmp(mode, "offsets") == 0 ? offsets()
           : strcmp(mode, "files") == 0   ? files((int)n)
           : strcmp(mode, "name") == 0    ? name()
           : strcmp(mode, "irregular") == 0 ? irregular(n, rank)
                                            : 9;
    if (mpi)
        MPI_Finalize();
    return rc;
}
