#include "replay/watchdog.h"

#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

rp_watch rp_watched;

uint64_t rp_now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void end_replay(const rp_watch *w, uint64_t now)
{
    char msg[512];
    uint64_t started = atomic_load(&w->started_ns);
    const char *name = atomic_load(&w->name);
    int n = snprintf(msg, sizeof msg,
                     "ioreplay: rank %d: %s (event %lld of the rank) has not returned after %.0f s (its limit: "
                     "--call-timeout %.0f s after twice its longest recorded time): a call that waits for good, "
                     "most likely a collective another rank left after an I/O error (the root's files differ "
                     "from the run's?); ending the replay\n",
                     w->rank, name ? name : "?", (long long)atomic_load(&w->seq), (double)(now - started) * 1e-9,
                     (double)w->limit_ns * 1e-9);
    if (n > 0)
        (void)syscall(SYS_write, 2, msg, (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    /* The line goes through the launcher's forwarding of standard error,
     * which MPI_Abort tears down: on a loaded machine MPICH's launcher once
     * ended the job before it had passed the line on (test 93 in a whole
     * make check: exit 1, nothing said). A moment for it to pass the line
     * on, at the end of a replay that has waited seconds already. */
    struct timespec drain = {0, 500000000};
    nanosleep(&drain, NULL);
    /* MPI_Abort, not exit: the launcher then ends the job with this status
     * (MPICH's would report the signal it kills the other ranks with) */
    PMPI_Abort(MPI_COMM_WORLD, 1);
    syscall(SYS_exit_group, 1);
}

static void *watch(void *arg)
{
    rp_watch *w = arg;
    uint64_t period = w->limit_ns / 4 < 1000000000u ? w->limit_ns / 4 : 1000000000u;
    struct timespec nap = {(time_t)(period / 1000000000u), (long)(period % 1000000000u)};
    for (;;) {
        nanosleep(&nap, NULL);
        uint64_t d = atomic_load_explicit(&w->deadline_ns, memory_order_acquire), now = rp_now_ns();
        /* the same call still in progress past its deadline (a call that
         * ended and a new one that began would have another deadline) */
        if (d && now > d && atomic_load_explicit(&w->deadline_ns, memory_order_acquire) == d)
            end_replay(w, now);
    }
    return NULL;
}

int rp_watch_start(int rank, double limit_s)
{
    rp_watched.rank = rank;
    if (!(limit_s > 0))
        return 0;
    rp_watched.limit_ns = limit_s > 1e9 ? (uint64_t)1e18 : (uint64_t)(limit_s * 1e9);
    if (rp_watched.limit_ns < 10000000u)
        rp_watched.limit_ns = 10000000u;
    pthread_attr_t at;
    pthread_t id;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&id, &at, watch, &rp_watched);
    pthread_attr_destroy(&at);
    if (rc != 0)
        rp_watched.limit_ns = 0;
    return rc != 0 ? -1 : 0;
}
