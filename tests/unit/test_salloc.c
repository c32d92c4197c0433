/* test_salloc: the emergency allocator (core/salloc.h) from several threads
 * at once and from a signal handler interrupting one of them, as when
 * emergency mode is on while the program's threads go on recording and a
 * signal ends the process. Every block handed out must be the caller's
 * alone: the blocks are checked against each other (no two overlap, each
 * is inside the allocator's mappings, siot_eowns) and against what each
 * owner wrote into it. Also built under ThreadSanitizer by test 99. */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/salloc.h"
#include "tests/unit/unit.h"

#define THREADS 4
#define PER_THREAD 100000
#define ROUNDS 6 /* of the threads' allocations, each checked: a race shows in most rounds */
#define SIG_BLOCKS 4096
#define MAIN_BLOCKS 100000

typedef struct block {
    uint8_t *p;
    size_t n;
    uint32_t tag; /* what the owner wrote in every byte: (who, index) mixed */
} block;

static block blocks[THREADS][PER_THREAD];
static block main_blocks[MAIN_BLOCKS];
static block sig_blocks[SIG_BLOCKS];
static size_t nmain;
static atomic_uint nsig;
static atomic_int start_line, allocating, signaller_ready;

static uint8_t fill_byte(uint32_t tag, size_t i) { return (uint8_t)(tag * 2654435761u + i); }

/* The bytes an owner writes: its first 16 and its last (few, so that the
 * threads spend their time in the allocator, where they race). */
static int written(const block *b, size_t i) { return i < 16 || i == b->n - 1; }

static void fill(block *b)
{
    for (size_t i = 0; i < b->n; i++)
        if (written(b, i))
            b->p[i] = fill_byte(b->tag, i);
}

/* In the handler only the allocator and plain stores: it is signal-safe. */
static void on_usr1(int sig)
{
    (void)sig;
    unsigned k = atomic_fetch_add(&nsig, 1);
    if (k >= SIG_BLOCKS)
        return;
    block *b = &sig_blocks[k];
    b->n = 24 + k % 40;
    b->tag = 0x5000000u + k;
    b->p = siot_emalloc(b->n);
    if (b->p)
        fill(b);
}

static int round_no;

static void *hammer(void *arg)
{
    int who = (int)(intptr_t)arg;
    uint32_t rng = 1234567u + (uint32_t)who * 7919u + (uint32_t)round_no;
    atomic_fetch_add(&allocating, 1);
    while (!atomic_load(&start_line))
        ;
    for (int i = 0; i < PER_THREAD; i++) {
        block *b = &blocks[who][i];
        b->n = 1 + unit_rng(&rng) % 64;
        b->tag = (uint32_t)(who + 1) << 20 | (uint32_t)i; /* never 0: 0 marks a wrong copy */
        if (i % 16 == 1) { /* a block grown: a copy of the old one's bytes, then its own */
            block *old = &blocks[who][i - 1];
            b->p = old->p ? siot_erealloc(old->p, b->n) : NULL;
            for (size_t k = 0; b->p && k < b->n && k < old->n; k++)
                if (written(old, k) && b->p[k] != fill_byte(old->tag, k)) {
                    b->tag = 0; /* marks the copy as wrong: checked below */
                    break;
                }
        } else {
            b->p = siot_emalloc(b->n);
        }
        if (b->p && b->tag)
            fill(b);
    }
    atomic_fetch_sub(&allocating, 1);
    return NULL;
}

/* Signals to the main thread while it allocates, one at a time (pending
 * signals would merge into one). */
static void *signaller(void *arg)
{
    pthread_t target = *(pthread_t *)arg;
    atomic_store(&signaller_ready, 1);
    for (unsigned k = 0; k < SIG_BLOCKS && atomic_load(&allocating) > 0; k++) {
        pthread_kill(target, SIGUSR1);
        while (atomic_load(&nsig) <= k && atomic_load(&allocating) > 0)
            ;
    }
    atomic_store(&allocating, 0);
    return NULL;
}

/* The main thread allocates until the handler has run SIG_BLOCKS times. */
static void interrupted(void)
{
    pthread_t self = pthread_self(), sg;
    atomic_store(&signaller_ready, 0);
    atomic_store(&allocating, 1);
    CHECK(pthread_create(&sg, NULL, signaller, &self) == 0);
    /* On a busy machine the signaller may not run before this thread has
     * made all its allocations: start them when it runs, and wait for its
     * first signal after them if none came (up to 30 s). */
    while (!atomic_load(&signaller_ready))
        sched_yield();
    while (atomic_load(&allocating) && nmain < MAIN_BLOCKS) {
        block *b = &main_blocks[nmain];
        b->n = 1 + nmain % 50;
        b->tag = 0x6000000u + (uint32_t)nmain;
        b->p = siot_emalloc(b->n);
        if (b->p)
            fill(b);
        nmain++;
    }
    time_t give_up = time(NULL) + 30;
    while (atomic_load(&nsig) == 0 && time(NULL) < give_up)
        sched_yield();
    atomic_store(&allocating, 0);
    pthread_join(sg, NULL);
}

static int by_address(const void *a, const void *b)
{
    const block *x = a, *y = b;
    return x->p < y->p ? -1 : x->p > y->p;
}

/* The last round's blocks, and those of the thread and its handler. */
static void check_blocks(void)
{
    size_t nsigs = atomic_load(&nsig) < SIG_BLOCKS ? atomic_load(&nsig) : SIG_BLOCKS;
    size_t total = (size_t)THREADS * PER_THREAD + nmain + nsigs, n = 0;
    block *all = malloc(total * sizeof *all);
    CHECK(all != NULL);
    if (!all)
        return;
    size_t missing = 0, wrong = 0, foreign = 0, copies = 0;
    for (int t = 0; t < THREADS; t++)
        for (int i = 0; i < PER_THREAD; i++) {
            copies += blocks[t][i].tag == 0;
            if (blocks[t][i].p)
                all[n++] = blocks[t][i];
            else
                missing++;
        }
    for (size_t k = 0; k < nmain; k++)
        if (main_blocks[k].p)
            all[n++] = main_blocks[k];
        else
            missing++;
    for (size_t k = 0; k < nsigs; k++)
        if (sig_blocks[k].p)
            all[n++] = sig_blocks[k];
        else
            missing++;
    for (size_t k = 0; k < n; k++) {
        foreign += !siot_eowns(all[k].p) || !siot_eowns(all[k].p + all[k].n - 1);
        for (size_t i = 0; all[k].tag && i < all[k].n; i++)
            if (written(&all[k], i) && all[k].p[i] != fill_byte(all[k].tag, i)) {
                wrong++;
                break;
            }
    }
    qsort(all, n, sizeof *all, by_address);
    size_t overlaps = 0;
    for (size_t k = 1; k < n; k++)
        overlaps += all[k - 1].p + all[k - 1].n > all[k].p;
    CHECK_EQ_I64(missing, 0);
    CHECK_EQ_I64(overlaps, 0);
    CHECK_EQ_I64(wrong, 0);
    CHECK_EQ_I64(foreign, 0);
    CHECK_EQ_I64(copies, 0);
    CHECK(nsigs > 0); /* the handler did allocate */
    printf("   round %d: %d blocks from %d threads, %zu from a thread and %zu from its signal handler\n", round_no,
           THREADS * PER_THREAD, THREADS, nmain, nsigs);
    free(all);
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGUSR1, &sa, NULL);
    siot_emergency = 1;
    for (round_no = 1; round_no <= ROUNDS; round_no++) {
        pthread_t th[THREADS];
        atomic_store(&start_line, 0);
        for (int t = 0; t < THREADS; t++)
            CHECK(pthread_create(&th[t], NULL, hammer, (void *)(intptr_t)t) == 0);
        while (atomic_load(&allocating) < THREADS)
            ;
        atomic_store(&start_line, 1);
        for (int t = 0; t < THREADS; t++)
            pthread_join(th[t], NULL);
        nmain = 0;
        atomic_store(&nsig, 0);
        interrupted();
        check_blocks();
    }
    /* siot_malloc goes to the emergency side, and siot_free leaves it alone */
    void *p = siot_malloc(10);
    CHECK(p && siot_eowns(p));
    siot_free(p);
    CHECK(siot_eowns((const uint8_t *)p + 9));
    return unit_done("test_salloc");
}
