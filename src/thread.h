/* thread: the calling thread's recorder state (siot_t) and the layers being
 * recorded (siot_layer_mask): the bottom of the runtime, which every layer
 * above reads. The locks count their holders here (lock.h), the wrappers'
 * filters test busy, the staging area and the thread's queue hang here
 * (runtime.h, session.h).
 *
 * siot_t is initial-exec TLS: every unit reaches it through its offset
 * from the thread pointer (an executable's link makes that offset a
 * constant), with no call to __tls_get_addr on the hot path.
 *
 * Locks: none; siot_t is the calling thread's own, siot_layer_mask an
 * atomic. Signals: a handler runs on the thread it interrupts and reads
 * its siot_t (busy, locks, ending: lock.h's rule 2); siot_recording is
 * async-signal-safe. Errors: none. */
#ifndef SIOT_THREAD_H
#define SIOT_THREAD_H

#include <stdatomic.h>
#include <stdint.h>

#include "core/event.h"

#define SIOT_LIKELY(x) __builtin_expect(!!(x), 1)
#define SIOT_UNLIKELY(x) __builtin_expect(!!(x), 0)

struct siot_tq;
typedef struct siot_tls {
    int busy;     /* inside tracer code or an untraced region: wrappers pass through */
    int inited;
    uint32_t locks;  /* the recorder lock: held (or being waited for) by this thread */
    int ending;      /* this thread is writing the session's ending */
    uint32_t thread;
    uint32_t depth; /* traced calls in flight */
    int32_t top;    /* staging slot of the innermost call in flight, -1 if none */
    uint64_t last_mark;
    siot_raw *stage;
    uint32_t nstage, capstage;
    uint8_t *pool;
    uint32_t npool, cappool;
    struct siot_tq *tq; /* the thread's own queue (session.c), from its first group */
    int shared;         /* siot_end_shared took the recorder lock for this call's filling */
    uint64_t locked_at; /* when it had it: the order key of its group (session.h) */
} siot_tls;

extern __thread siot_tls siot_t __attribute__((tls_model("initial-exec")));
/* Bit L set: layer L is being recorded. Zero before start and after the end. */
extern _Atomic uint32_t siot_layer_mask;

static inline int siot_recording(unsigned layer)
{
    return SIOT_UNLIKELY((atomic_load_explicit(&siot_layer_mask, memory_order_relaxed) >> layer) & 1u) &&
           !siot_t.busy;
}

/* True when the innermost traced call in flight belongs to layer: a
 * library's calls to its own API (HDF5's H5Pcreate inside H5Fcreate) are its
 * internals, not the application's, and are not recorded. */
static inline int siot_inside_layer(unsigned layer)
{
    return siot_t.depth && siot_t.top >= 0 && siot_functab[siot_t.stage[siot_t.top].func].layer == layer;
}

/* Runs f(arg) with the thread marked busy, so that calls it makes are not recorded. */
#define SIOT_UNTRACED(stmt)          \
    do {                             \
        int siot_b_ = siot_t.busy;   \
        siot_t.busy = 1;             \
        stmt;                        \
        siot_t.busy = siot_b_;       \
    } while (0)

#endif
