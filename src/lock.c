/* lock: the recorder's lock and signal deferral (lock.h). */
#include "src/lock.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/clock.h"
#include "src/thread.h"

static atomic_flag big_lock = ATOMIC_FLAG_INIT;
_Atomic int siot_pending_signal;
/* the endings' handler of a deferred signal (siot_on_pending_signal) */
static void (*pending_handler)(int sig);

void siot_on_pending_signal(void (*handler)(int sig)) { __atomic_store_n(&pending_handler, handler, __ATOMIC_RELEASE); }

void siot_handle_pending_signal(void)
{
    int sig = atomic_exchange(&siot_pending_signal, 0);
    void (*handler)(int) = __atomic_load_n(&pending_handler, __ATOMIC_ACQUIRE);
    if (sig && handler)
        handler(sig);
}

#ifdef SIOT_FAULTS
static int fault_sig;
static long fault_countdown;
void siot_lock_faults_setup(void)
{
    const char *v = getenv("SIOT_FAULT_SIGNAL");
    if (v && sscanf(v, "%d:%ld", &fault_sig, &fault_countdown) != 2)
        fault_sig = 0;
}
void siot_lock_fault_point(void)
{
    if (fault_sig && --fault_countdown == 0)
        raise(fault_sig);
}
#else
void siot_lock_faults_setup(void) {}
void siot_lock_fault_point(void) {}
#endif

/* How long a thread spins for the lock before it yields the processor. The
 * lock is held for a few hundred ns (one event folded), so a waiter whose
 * holder is running gets it within that; yielding at once made 8 threads on
 * 2 cores pay a system call and a reschedule on most waits (bench/hotpath.sh:
 * 4,500 ns per pwrite against 1,450 with the spin). Past the bound the
 * holder is likely descheduled, and spinning would only delay it. */
#define SPIN_NS 20000

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

void siot_lock_wait(atomic_flag *f)
{
    uint64_t start = siot_now();
    int yielding = 0;
    for (unsigned spins = 1; atomic_flag_test_and_set_explicit(f, memory_order_acquire); spins++) {
        if (yielding) {
            sched_yield();
            continue;
        }
        cpu_relax();
        if (spins % 64 == 0 && siot_now() - start > SPIN_NS)
            yielding = 1;
    }
}

void siot_take(atomic_flag *f) { siot_take_fast(f); }

int siot_take_within(atomic_flag *f, uint64_t wait_ns)
{
    siot_t.locks++;
    atomic_signal_fence(memory_order_seq_cst);
    uint64_t t0 = siot_now();
    while (atomic_flag_test_and_set_explicit(f, memory_order_acquire)) {
        if (siot_now() - t0 > wait_ns) {
            siot_t.locks--;
            return 0;
        }
        sched_yield();
    }
    return 1;
}

void siot_let_go(atomic_flag *f) { siot_let_go_fast(f); }

void siot_lock(void) { siot_take(&big_lock); }

int siot_lock_within(uint64_t wait_ns) { return siot_take_within(&big_lock, wait_ns); }

void siot_unlock(void) { siot_let_go(&big_lock); }
