/* mpich_yield.so: the test harness's yield for MPICH's waiting ranks.
 *
 * make check runs MPI jobs of up to 16 ranks on 2 cores. A waiting MPICH
 * rank polls its network layer without ever giving up the processor: this
 * machine's MPICH is built with the ch4:ucx device, whose progress loop has
 * no yield setting (MPIR_CVAR_POLLS_BEFORE_YIELD belongs to the ch3 device
 * and changes nothing here), so a rank that holds the data of a collective
 * waits for the scheduler to stop its polling neighbours' time slices. Open
 * MPI yields by itself when oversubscribed.
 *
 * Preloaded into the ranks by tests/lib.sh (mpirun's -genv, so that a test's
 * own -env LD_PRELOAD still takes precedence), it stands in front of UCX's
 * ucp_worker_progress, which MPICH's progress loop calls: after 64 calls in a
 * row that found nothing to do, the rank yields the processor. No MPI
 * semantics change (the same progress calls are made, in the same order);
 * waiting just costs less. Measured on 9 ranks, 300 MPI_Allreduce, two other
 * jobs beside: 18.0 s wall and 22.5 s of processor time without it, 4.1 s and
 * 5.2 s with it.
 *
 * It calls nothing the tracer records (sched_yield is not a traced function)
 * and needs nothing from the tracer. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>

#define IDLE_POLLS_BEFORE_YIELD 64

typedef unsigned (*progress_fn)(void *worker);

static progress_fn real_progress;
static __thread unsigned idle_polls;

__attribute__((constructor)) static void find_real_progress(void)
{
    real_progress = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
}

unsigned ucp_worker_progress(void *worker)
{
    unsigned events = real_progress(worker);
    if (events) {
        idle_polls = 0;
    } else if (++idle_polls >= IDLE_POLLS_BEFORE_YIELD) {
        idle_polls = 0;
        sched_yield();
    }
    return events;
}
