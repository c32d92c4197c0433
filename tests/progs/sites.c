/* sites: pwrite calls from frames that are hard for a walk by learned frame
 * sizes (docs/hotpath.md), and the program's own record of where each call
 * came from: the truth tests/py/check_sites.py holds the recorded call sites
 * to. Serial (no MPI): traced as one rank.
 *
 * Every call reaches pwrite through put(), and every call on the way to it is
 * made with CALL(), which keeps a per-thread shadow stack of the calling
 * lines (__LINE__). put() notes the whole chain, innermost first: its own
 * pwrite line, the line put was called from, that function's caller's line,
 * ... up to main's (or a thread function's) line. A signal handler notes 0
 * ("*" when printed) for the frames outside the program between it and the
 * interrupted code (the kernel's signal frame, libc's raise). Each case writes
 * its own number of bytes (its id) so its events can be told apart:
 *
 *   1 vla        a function with a variable-length array whose size changes
 *                between calls, 5000 calls (the main thread's 4096th call, a
 *                cross-check, falls among them; once the frame is known to
 *                vary the learned walk gives up there, so libunwind's walk
 *                has nothing to be compared with)
 *   2 alloca     a function using alloca with varying sizes, 5000 calls (the
 *                8192nd: the same)
 *   3 two-lines  one helper called from two lines of one caller, 7 and 13 times
 *   4 recursion  pwrite at recursion depths 1, 5 and 30 (3, 4 and 3000 calls:
 *                the main thread's 12288th call, a cross-check of a walk of
 *                over 30 learned frames, falls among the last)
 *   5 signal     a SIGUSR1 handler on a sigaltstack, raised 5 times: twice
 *                with the alternate stack a static buffer, three times from a
 *                nested function with the alternate stack in the raising
 *                function's own frame (inside the thread's stack bounds)
 *   6 threads    4 threads at once, each calling from its own line, 4100 +
 *                101 t times (each thread's own cross-check at its 4096th)
 *   7 shrink     32 threads in turn, each new (nothing learned): a VLA frame
 *                and an alloca frame each entered big, then 16 k bytes
 *                smaller (thread k = 1..32), big, small again: the second
 *                size is the first a walk with the size learned from the
 *                first call would get wrong
 *
 * Prints one line per distinct chain:
 *   site CASE BYTES CALLS LINE,LINE,...   (innermost first; * = frames
 *                                           outside the program)
 * usage: sites FILE (the file written) */
#define _GNU_SOURCE
#include <alloca.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline, noclone))
#define MAX_CHAIN 64
#define MAX_ENTRIES 64

static int fd;
static char buf[64];

/* the shadow stack of calling lines, outermost first. Not static: libc
 * declares raise() a leaf function, and the compiler may then take the
 * stores to the unit's own static data around it as dead (the handler it runs
 * would see the shadow stack without raise's line). */
extern _Thread_local int chain[MAX_CHAIN], depth;
_Thread_local int chain[MAX_CHAIN], depth;

/* CALL(f(...)): the call, made with its line on the shadow stack (the pop
 * after it also keeps the compiler from making it a tail call: the caller's
 * frame stays) */
#define CALL(e)                                                                                                        \
    do {                                                                                                               \
        chain[depth++] = __LINE__;                                                                                     \
        e;                                                                                                             \
        depth--;                                                                                                       \
    } while (0)

static const char *const case_name[] = {"", "vla", "alloca", "two-lines", "recursion", "signal", "threads", "shrink"};

static struct entry {
    int bytes, n, lines[MAX_CHAIN + 1];
    long calls;
} table[MAX_ENTRIES];
static int nentries;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static void die(const char *what)
{
    fprintf(stderr, "sites: %s\n", what);
    exit(1);
}

/* One more call of case BYTES whose innermost frame is at LINE. Called from
 * the signal handler too: raise() is synchronous, the lock is never held
 * then. */
static void note(int bytes, int line)
{
    int lines[MAX_CHAIN + 1], n = 0;
    lines[n++] = line;
    for (int i = depth - 1; i >= 0; i--)
        lines[n++] = chain[i];
    pthread_mutex_lock(&table_lock);
    int e;
    for (e = 0; e < nentries; e++)
        if (table[e].bytes == bytes && table[e].n == n && memcmp(table[e].lines, lines, n * sizeof *lines) == 0)
            break;
    if (e == nentries) {
        if (nentries == MAX_ENTRIES)
            die("too many chains");
        nentries++;
        table[e].bytes = bytes;
        table[e].n = n;
        memcpy(table[e].lines, lines, n * sizeof *lines);
    }
    table[e].calls++;
    pthread_mutex_unlock(&table_lock);
}

/* the traced call of every case */
static NOINLINE void put(int bytes)
{
    int line = __LINE__; ssize_t r = pwrite(fd, buf, (size_t)bytes, 0);
    if (r != bytes)
        die("pwrite failed");
    note(bytes, line);
}

/* 1 vla: a variable-length array of n ints, live across the call */
static NOINLINE void vla_frame(int n, int bytes)
{
    volatile int a[n];
    for (int i = 0; i < n; i++)
        a[i] = i;
    CALL(put(bytes));
    if (a[n - 1] != n - 1)
        die("vla");
}

/* 2 alloca: alloca of n bytes, live across the call */
static NOINLINE void alloca_frame(int n, int bytes)
{
    char *p = alloca((size_t)n);
    memset(p, n & 0x7f, (size_t)n);
    __asm__ volatile("" : : "r"(p) : "memory");
    CALL(put(bytes));
    if (p[n - 1] != (n & 0x7f))
        die("alloca");
}

/* 3 two-lines: the same helper from two lines */
static NOINLINE void two_lines(void)
{
    for (int i = 0; i < 7; i++)
        CALL(put(3));
    for (int i = 0; i < 13; i++)
        CALL(put(3));
}

/* 4 recursion: pwrite at recursion depth d */
static NOINLINE void recurse(int d)
{
    volatile int keep = d;
    if (d > 1)
        CALL(recurse(d - 1));
    else
        CALL(put(4));
    (void)keep;
}

/* 5 signal: the handler, on the alternate stack */
static NOINLINE void on_signal(int sig)
{
    (void)sig;
    stack_t ss;
    if (sigaltstack(NULL, &ss) != 0 || !(ss.ss_flags & SS_ONSTACK))
        die("the handler is not on the alternate stack");
    chain[depth++] = 0; /* the kernel's signal frame and libc's raise */
    CALL(put(5));
    depth--;
}

static NOINLINE void raise_nested(void)
{
    CALL(raise(SIGUSR1));
}

static char static_altstack[1 << 16];

static void set_altstack(void *at, size_t size)
{
    stack_t ss = {.ss_sp = at, .ss_size = size, .ss_flags = 0};
    if (sigaltstack(&ss, NULL) != 0)
        die("sigaltstack");
}

static NOINLINE void signal_case(void)
{
    char frame_altstack[1 << 16]; /* in this frame: inside the thread's stack */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGUSR1, &sa, NULL) != 0)
        die("sigaction");
    set_altstack(static_altstack, sizeof static_altstack);
    for (int i = 0; i < 2; i++)
        CALL(raise(SIGUSR1));
    set_altstack(frame_altstack, sizeof frame_altstack);
    for (int i = 0; i < 3; i++)
        CALL(raise_nested());
    stack_t off = {.ss_flags = SS_DISABLE};
    if (sigaltstack(&off, NULL) != 0)
        die("sigaltstack off");
    __asm__ volatile("" : : "r"(frame_altstack) : "memory");
}

/* 6 threads: 4 threads at once, each from its own line */
static pthread_barrier_t start_together;

static NOINLINE void *worker(void *arg)
{
    int t = (int)(long)arg;
    pthread_barrier_wait(&start_together);
    for (int i = 0; i < 4100 + 101 * t; i++)
        switch (t) {
        case 0:
            CALL(put(6));
            break;
        case 1:
            CALL(put(6));
            break;
        case 2:
            CALL(put(6));
            break;
        default:
            CALL(put(6));
            break;
        }
    return NULL;
}

/* 7 shrink: a new thread: a VLA frame and an alloca frame each big, then 16 k bytes
 * smaller, big, small */
static NOINLINE void *shrink_worker(void *arg)
{
    int k = (int)(long)arg;
    int big = 4 * 200;
    int sizes[4] = {big, big - 4 * k, big, big - 4 * k}; /* ints: 16 k bytes less */
    for (int i = 0; i < 4; i++)
        CALL(vla_frame(sizes[i], 7));
    for (int i = 0; i < 4; i++)
        CALL(alloca_frame(sizes[i] * 4, 7)); /* bytes: 16 k less */
    return NULL;
}

static void print_table(void)
{
    for (int e = 0; e < nentries; e++) {
        printf("site %s %d %ld ", case_name[table[e].bytes], table[e].bytes, table[e].calls);
        for (int i = 0; i < table[e].n; i++) {
            if (table[e].lines[i])
                printf(i ? ",%d" : "%d", table[e].lines[i]);
            else
                printf(i ? ",*" : "*");
        }
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sites FILE\n");
        return 2;
    }
    fd = open(argv[1], O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) {
        perror(argv[1]);
        return 1;
    }

    /* 1 vla: sizes 1..997 ints in a scattered order, shrinking as often as growing */
    for (int i = 0; i < 5000; i++)
        CALL(vla_frame(1 + (i * 389) % 997, 1));

    /* 2 alloca: 1..4093 bytes, scattered */
    for (int i = 0; i < 5000; i++)
        CALL(alloca_frame(1 + (i * 1237) % 4093, 2));

    /* 3 */
    CALL(two_lines());

    /* 4 */
    for (int i = 0; i < 3; i++)
        CALL(recurse(1));
    for (int i = 0; i < 4; i++)
        CALL(recurse(5));
    for (int i = 0; i < 3000; i++)
        CALL(recurse(30));

    /* 5 */
    CALL(signal_case());

    /* 6 */
    pthread_t th[4];
    pthread_barrier_init(&start_together, NULL, 4);
    for (long t = 0; t < 4; t++)
        if (pthread_create(&th[t], NULL, worker, (void *)t) != 0)
            die("pthread_create");
    for (int t = 0; t < 4; t++)
        pthread_join(th[t], NULL);

    /* 7 */
    for (long k = 1; k <= 32; k++) {
        pthread_t s;
        if (pthread_create(&s, NULL, shrink_worker, (void *)k) != 0)
            die("pthread_create");
        pthread_join(s, NULL);
    }

    close(fd);
    print_table();
    return 0;
}
