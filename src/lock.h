/* lock: the recorder's lock, and the rule that keeps signal handlers from
 * waiting on it.
 *
 * The rule every part of the runtime follows, so that no signal handler ever
 * waits for a lock its own thread holds:
 *  1. The recorder lock is taken only through siot_lock(), which counts the
 *     thread as holding it (siot_t.locks) before it starts to wait, and
 *     released only through siot_unlock().
 *  2. A handler whose thread holds the lock, or is writing the session's
 *     ending, only notes the signal (siot_pending_signal); siot_unlock() (or
 *     the end of the writing) handles it as soon as the thread is out.
 *  3. A handler on any other thread takes the lock with siot_lock_within():
 *     it waits at most SIOT_SIGNAL_WAIT_NS for another thread to let go,
 *     then gives up writing the trace rather than hang, and the signal takes
 *     its course.
 *  4. Generated wrappers never take the lock themselves: they call the
 *     runtime's functions, which follow 1.
 * Whatever runs under the lock makes no call that can block for long on
 * another process (no MPI collective, no wait for a peer).
 *
 * Errors: siot_lock cannot fail: it spins (sched_yield) until it has the
 * lock, which is not recursive (a thread taking it twice hangs).
 * siot_lock_within answers 0 when the lock was not had in time. siot_unlock
 * may handle a deferred signal: the trace is written and the signal raised
 * again, which usually ends the process there. */
#ifndef SIOT_LOCK_H
#define SIOT_LOCK_H

#include <stdatomic.h>
#include <stdint.h>

#include "src/lock_fast.h"

#define SIOT_SIGNAL_WAIT_NS 3000000000ull

void siot_lock(void);
/* 1 when the lock was taken within wait_ns, else 0 (and not held). */
int siot_lock_within(uint64_t wait_ns);
void siot_unlock(void);

/* The same rules for the other locks of the runtime (a thread's own queue,
 * session.c): siot_take counts the lock in siot_t.locks before it waits,
 * siot_let_go handles a signal deferred meanwhile. Order: a thread that
 * holds one of them never waits for the recorder lock. */
void siot_take(atomic_flag *f);
int siot_take_within(atomic_flag *f, uint64_t wait_ns);
void siot_let_go(atomic_flag *f);

/* A signal noted by a handler under rule 2 is handled (siot_let_go,
 * siot_unlock, lock_fast.h siot_handle_pending_signal) by handler, which
 * the endings register when they install their signal handlers: the lock
 * is below them and calls up only through this. Before that no handler of
 * theirs runs, so no signal is noted. */
void siot_on_pending_signal(void (*handler)(int sig));

/* Test builds (-DSIOT_FAULTS, make SAN=1 or TSAN=1): SIOT_FAULT_SIGNAL=SIG:N
 * raises SIG on the Nth acquisition of any of these locks (siot_lock,
 * siot_take), while it is held. */
void siot_lock_faults_setup(void);

#endif
