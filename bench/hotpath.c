/* hotpath: the shapes of call that the recording hot path must make cheap,
 * timed inside the program. A serial program (it never calls MPI), traced as
 * one rank. Prints "ns_per_call".
 *
 * usage: hotpath MODE FILE N
 *   regular    N pwrite calls of 64 bytes at consecutive offsets, one call
 *              site: the loop the compressor folds into one event
 *   irregular  N pwrite calls of 64 bytes from 16 call sites (distinct
 *              functions) chosen, with the offset, by a pseudo-random
 *              sequence: nothing folds, every call is a new event
 *   fwrite     N fwrite calls of 64 bytes to a stream the tracer does not
 *              trace (stdout sent to /dev/null by the caller): the cost of
 *              deciding not to record
 *   threads    8 threads, each N/8 pwrite calls of 64 bytes to its own
 *              file (FILE.0 .. FILE.7): contention in the recorder */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { NSITES = 16, NTHREADS = 8, RECORD = 64 };

static char buf[RECORD];

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void must_write(int fd, off_t off)
{
    if (pwrite(fd, buf, RECORD, off) != RECORD) {
        perror("hotpath: pwrite");
        exit(1);
    }
}

static int open_or_die(const char *path)
{
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    return fd;
}

static void regular(const char *path, long n)
{
    int fd = open_or_die(path);
    for (long i = 0; i < n; i++)
        must_write(fd, (off_t)i * RECORD);
    close(fd);
}
/* the loop alone is timed: the first open builds the tracer's tables */
static double loop_start, loop_end;

/* sixteen distinct call sites: the same body in sixteen functions that the
 * compiler may not merge or inline */
#define SITE(k)                                                                \
    static __attribute__((noinline)) void site##k(int fd, off_t off)           \
    {                                                                          \
        must_write(fd, off + k);                                               \
        __asm__ volatile("" ::: "memory");                                     \
    }
SITE(0) SITE(1) SITE(2) SITE(3) SITE(4) SITE(5) SITE(6) SITE(7)
SITE(8) SITE(9) SITE(10) SITE(11) SITE(12) SITE(13) SITE(14) SITE(15)

static void (*const sites[NSITES])(int, off_t) = {
    site0, site1, site2,  site3,  site4,  site5,  site6,  site7,
    site8, site9, site10, site11, site12, site13, site14, site15,
};

static void irregular(const char *path, long n)
{
    int fd = open_or_die(path);
    loop_start = now_ns();
    uint64_t x = 88172645463325252ull;
    for (long i = 0; i < n; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        sites[(x >> 60) & (NSITES - 1)](fd, (off_t)((x >> 20) & 0xfffff) * RECORD);
    }
    loop_end = now_ns();
    close(fd);
}

static void untraced_stream(long n)
{
    loop_start = now_ns();
    for (long i = 0; i < n; i++)
        if (fwrite(buf, 1, RECORD, stdout) != RECORD) {
            perror("hotpath: fwrite");
            exit(1);
        }
    loop_end = now_ns();
    fflush(stdout);
}

struct worker {
    pthread_t id;
    char path[4096];
    long n;
};

static void *work(void *arg)
{
    struct worker *w = arg;
    regular(w->path, w->n);
    return NULL;
}

static void threads(const char *path, long n)
{
    struct worker w[NTHREADS];
    loop_start = now_ns();
    for (int t = 0; t < NTHREADS; t++) {
        snprintf(w[t].path, sizeof w[t].path, "%s.%d", path, t);
        w[t].n = n / NTHREADS;
        if (pthread_create(&w[t].id, NULL, work, &w[t]) != 0) {
            fprintf(stderr, "hotpath: pthread_create failed\n");
            exit(1);
        }
    }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(w[t].id, NULL);
    loop_end = now_ns();
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: hotpath regular|irregular|fwrite|threads FILE N\n");
        return 2;
    }
    const char *mode = argv[1], *path = argv[2];
    long n = atol(argv[3]);
    if (!strcmp(mode, "regular")) {
        int fd = open_or_die(path);
        loop_start = now_ns();
        for (long i = 0; i < n; i++)
            must_write(fd, (off_t)i * RECORD);
        loop_end = now_ns();
        close(fd);
    }
    else if (!strcmp(mode, "irregular"))
        irregular(path, n);
    else if (!strcmp(mode, "fwrite"))
        untraced_stream(n);
    else if (!strcmp(mode, "threads"))
        threads(path, n);
    else {
        fprintf(stderr, "hotpath: unknown mode %s\n", mode);
        return 2;
    }
    double ns = (loop_end - loop_start) / (double)n;
    fprintf(stderr, "%.1f\n", ns);
    return 0;
}
