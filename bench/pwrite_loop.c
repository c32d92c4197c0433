/* pwrite_loop: N pwrite calls of 64 bytes to a file (tmpfs in the benchmark),
 * timed inside the program; prints ns per call. A serial program: it never
 * calls MPI, so it is traced as one rank.
 * Prints "ns_per_call max_rss_kib".
 * usage: pwrite_loop FILE [N=1000000] */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    long n = argc > 2 ? atol(argv[2]) : 1000000;
    char buf[64] = {0};
    int fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0)
        return 1;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < n; i++)
        if (pwrite(fd, buf, sizeof buf, (off_t)i * 64) != 64)
            return 1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    close(fd);
    double ns = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double)n;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("%.1f %ld\n", ns, ru.ru_maxrss);
    return 0;
}
