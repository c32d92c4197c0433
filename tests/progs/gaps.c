/* gaps: calls with known gaps between them and known stack depths, each
 * section at its own call site (told apart by its count), and the program's
 * own clock around every call. Serial (no MPI): traced as one rank.
 *
 *   first open   the first traced call of the process (the tracer's tables
 *                are built then), then 20 opens of new files at one site
 *   count=11     2000 pwrite back to back (the loop's own work between)
 *   count=22     400 pwrite with 50 us of busy computation between
 *   count=33     25 pwrite with 2 ms of sleep between
 *   count=44     500 pwrite at stack depth 1 (below main's loop)
 *   count=55     500 pwrite at stack depth 40 (a recursion)
 *
 * Prints one line per section: "gap COUNT min_ns max_ns" (from the end of a
 * call to the start of the next, by the program's clock) and
 * "call COUNT min_ns" (the call by the program's clock, wrapper included).
 * usage: gaps DIR */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int fd;
static char buf[64];

static int64_t now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* the end of the previous traced call, by the program's clock: every call's
 * gap is measured from it, the first call of a section included (the
 * tracer's computation histogram has every call of the section) */
static int64_t last_end;

struct span {
    int64_t gap_min, gap_max, call_min;
};

static void span_init(struct span *s)
{
    s->gap_min = INT64_MAX;
    s->gap_max = 0;
    s->call_min = INT64_MAX;
}

/* one pwrite of COUNT bytes, timed; the gap since the previous one noted */
static void timed_write(struct span *s, size_t count, off_t off)
{
    int64_t t0 = now();
    if (pwrite(fd, buf, count, off) != (ssize_t)count) {
        perror("gaps: pwrite");
        exit(1);
    }
    int64_t t1 = now();
    int64_t g = t0 - last_end;
    s->gap_min = g < s->gap_min ? g : s->gap_min;
    s->gap_max = g > s->gap_max ? g : s->gap_max;
    if (t1 - t0 < s->call_min)
        s->call_min = t1 - t0;
    last_end = t1;
}

static void report(const struct span *s, int count)
{
    printf("gap %d %lld %lld\n", count, (long long)s->gap_min, (long long)s->gap_max);
    printf("call %d %lld\n", count, (long long)s->call_min);
}

static void spin_until(int64_t t)
{
    while (now() < t)
        ;
}

/* depth frames of recursion, then the call: volatile keeps every frame */
static __attribute__((noinline)) void at_depth(struct span *s, int depth, off_t off)
{
    volatile int keep = depth;
    if (depth > 1)
        at_depth(s, depth - 1, off);
    else
        timed_write(s, 55, off);
    (void)keep;
}

static __attribute__((noinline)) void at_depth_one(struct span *s, off_t off)
{
    timed_write(s, 44, off);
}

static void opens(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/first", dir);
    int64_t t0 = now();
    fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    int64_t t1 = now();
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    printf("open first %lld\n", (long long)(t1 - t0));
    for (int i = 0; i < 20; i++) {
        snprintf(path, sizeof path, "%s/later%d", dir, i);
        int f = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
        if (f < 0) {
            perror(path);
            exit(1);
        }
        close(f);
    }
    last_end = now();
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gaps DIR\n");
        return 2;
    }
    opens(argv[1]);
    struct span s;

    span_init(&s);
    for (int i = 0; i < 2000; i++)
        timed_write(&s, 11, i * 64);
    report(&s, 11);

    span_init(&s);
    for (int i = 0; i < 400; i++) {
        spin_until(last_end + 50000);
        timed_write(&s, 22, i * 64);
    }
    report(&s, 22);

    span_init(&s);
    for (int i = 0; i < 25; i++) {
        nanosleep(&(struct timespec){0, 2000000}, NULL);
        timed_write(&s, 33, i * 64);
    }
    report(&s, 33);

    span_init(&s);
    for (int i = 0; i < 500; i++)
        at_depth_one(&s, i * 64);
    report(&s, 44);

    span_init(&s);
    for (int i = 0; i < 500; i++)
        at_depth(&s, 40, i * 64);
    report(&s, 55);

    close(fd);
    return 0;
}
