/* lock: the recorder's lock and signal deferral (lock.h). */
#include "src/lock.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "src/endings.h"
#include "src/runtime.h"

static atomic_flag big_lock = ATOMIC_FLAG_INIT;
_Atomic int siot_pending_signal;

#ifdef SIOT_FAULTS
static int fault_sig;
static long fault_countdown;
void siot_lock_faults_setup(void)
{
    const char *v = getenv("SIOT_FAULT_SIGNAL");
    if (v && sscanf(v, "%d:%ld", &fault_sig, &fault_countdown) != 2)
        fault_sig = 0;
}
static void fault_point(void)
{
    if (fault_sig && --fault_countdown == 0)
        raise(fault_sig);
}
#else
void siot_lock_faults_setup(void) {}
static void fault_point(void) {}
#endif

void siot_lock(void)
{
    siot_t.locks++;
    atomic_signal_fence(memory_order_seq_cst); /* counted before the wait begins */
    while (atomic_flag_test_and_set_explicit(&big_lock, memory_order_acquire))
        sched_yield();
    fault_point();
}

int siot_lock_within(uint64_t wait_ns)
{
    siot_t.locks++;
    atomic_signal_fence(memory_order_seq_cst);
    uint64_t t0 = siot_now();
    while (atomic_flag_test_and_set_explicit(&big_lock, memory_order_acquire)) {
        if (siot_now() - t0 > wait_ns) {
            siot_t.locks--;
            return 0;
        }
        sched_yield();
    }
    return 1;
}

void siot_unlock(void)
{
    atomic_flag_clear_explicit(&big_lock, memory_order_release);
    atomic_signal_fence(memory_order_seq_cst);
    if (--siot_t.locks == 0 && SIOT_UNLIKELY(atomic_load_explicit(&siot_pending_signal, memory_order_relaxed)) &&
        !siot_t.ending)
        siot_handle_pending_signal();
}
