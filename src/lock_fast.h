/* lock_fast: siot_take and siot_let_go (lock.h) inline, for a lock taken on
 * every traced call (the thread's own queue, session.c): the call to them
 * cost more than their work, and its registers more still. The same rules
 * (lock.h): the thread counts the lock before it waits, and a signal
 * deferred meanwhile is handled as it lets go; the wait, the deferred
 * signal and the test builds' fault point stay out of line (lock.c).
 *
 * Below lock.h (which includes it) and above thread.h only: the deferred
 * signal goes up to the endings through the handler they registered
 * (lock.h siot_on_pending_signal), not through an include of theirs.
 * Locks: the one given. Signals: a handler on a thread that holds it only
 * notes its signal (siot_pending_signal), handled at siot_let_go_fast. */
#ifndef SIOT_LOCK_FAST_H
#define SIOT_LOCK_FAST_H

#include <stdatomic.h>

#include "src/thread.h"

/* A signal noted by a handler under rule 2 of lock.h (0: none). */
extern _Atomic int siot_pending_signal;
/* lock.c: the signal noted under rule 2, handled now by the handler the
 * endings registered (lock.h siot_on_pending_signal). */
void siot_handle_pending_signal(void);
/* lock.c: spins, then yields, until f is had. */
void siot_lock_wait(atomic_flag *f);
/* lock.c: the fault injection of test builds (SIOT_FAULTS). */
void siot_lock_fault_point(void);

static inline void siot_take_fast(atomic_flag *f)
{
    siot_t.locks++;
    atomic_signal_fence(memory_order_seq_cst); /* counted before the wait begins */
    if (SIOT_UNLIKELY(atomic_flag_test_and_set_explicit(f, memory_order_acquire)))
        siot_lock_wait(f);
#ifdef SIOT_FAULTS
    siot_lock_fault_point();
#endif
}

static inline void siot_let_go_fast(atomic_flag *f)
{
    atomic_flag_clear_explicit(f, memory_order_release);
    atomic_signal_fence(memory_order_seq_cst);
    if (--siot_t.locks == 0 && SIOT_UNLIKELY(atomic_load_explicit(&siot_pending_signal, memory_order_relaxed)) &&
        !siot_t.ending)
        siot_handle_pending_signal();
}

#endif
