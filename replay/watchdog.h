/* watchdog: ends a replay that a call keeps waiting forever. A replay
 * whose files differ from the run's (a file the run read is a directory in
 * the root, an input supplied with --inputs is shorter) can make one
 * rank's I/O fail inside a collective: MPICH's ROMIO and Open MPI's OMPIO
 * then return the error on that rank while the others wait in the
 * collective's exchange for good. Nothing inside the call can be undone,
 * so a thread watches the call in progress and, when it has run past its
 * deadline, says which call of which rank and ends the job with
 * MPI_Abort(MPI_COMM_WORLD, 1) (exit status 1: calls that did not give
 * their recorded result).
 *
 * The deadline of a call: the limit (--call-timeout, default 600 s) after
 * twice the longest time the trace recorded for that event (the caller
 * scales it as it scales the computation other ranks' waits depend on),
 * so that a replay on a slower file system is not cut.
 *
 * Locks: none; the watched call is a few atomic stores, made by the one
 * replaying thread. Signals: none are used. The watchdog thread writes its
 * message with the write system call (nothing of the possibly traced
 * replay's stdio runs on it) and calls PMPI_Abort from its own thread
 * while the replaying thread is inside MPI: MPICH and Open MPI both end
 * the job so; should it return, the process ends with exit_group.
 *
 * Errors: rp_watch_start returns -1 when the thread cannot be started; the
 * replay then goes on unwatched (the caller says so). */
#ifndef RP_WATCHDOG_H
#define RP_WATCHDOG_H

#include <stdatomic.h>
#include <stdint.h>

typedef struct rp_watch {
    _Atomic uint64_t deadline_ns; /* 0: no call in progress */
    _Atomic int64_t seq;          /* the event's number in the rank's trace */
    _Atomic(const char *) name;   /* the function (the trace's string) */
    _Atomic uint64_t started_ns;
    uint64_t limit_ns;
    int rank;
} rp_watch;

extern rp_watch rp_watched;

/* limit_s 0: no watchdog (every enter/leave is then a test of a zero). */
int rp_watch_start(int rank, double limit_s);

/* CLOCK_MONOTONIC in ns: the replay's clock (its delays and times too). */
uint64_t rp_now_ns(void);

static inline void rp_watch_enter(int64_t seq, const char *name, uint64_t recorded_max_ns)
{
    rp_watch *w = &rp_watched;
    if (!w->limit_ns)
        return;
    uint64_t t = rp_now_ns();
    atomic_store_explicit(&w->seq, seq, memory_order_relaxed);
    atomic_store_explicit(&w->name, name, memory_order_relaxed);
    atomic_store_explicit(&w->started_ns, t, memory_order_relaxed);
    atomic_store_explicit(&w->deadline_ns, t + w->limit_ns + 2 * recorded_max_ns, memory_order_release);
}

static inline void rp_watch_leave(void)
{
    if (rp_watched.limit_ns)
        atomic_store_explicit(&rp_watched.deadline_ns, 0, memory_order_release);
}

#endif
