/* record: helpers shared by every generated wrapper layer.
 *
 * Locks: called between siot_end and siot_finish, under the recorder lock
 * (src/runtime.h); they write only the thread's own staging pool.
 * Signals: a handler's traced call passes through while the thread is
 * filling an event (busy: thread.h).
 * This is the header the generated wrappers include: the hot path
 * (runtime.h), the interposers (interpose.h), the call sites' section
 * (stack.h) and the endings' hooks for _exit and exec (endings.h): the top
 * of the runtime, which nothing in src/ includes.
 *
 * Errors: none returned: an array that is NULL, of negative length or
 * longer than SIOT_MAX_ARRAY, or that the pool cannot hold, is not recorded
 * (the argument stays SIOT_RV_NONE). errno is the wrappers' to keep: they
 * save it after the real call and restore it after siot_finish. */
#ifndef SIOT_RECORD_H
#define SIOT_RECORD_H

#include <stdint.h>
#include <string.h>

#include "src/runtime.h"
#include "src/endings.h"
#include "src/interpose.h"
#include "src/stack.h"

/* Arrays longer than this are not recorded (a bad count must not make the
 * wrapper read far past the caller's array). */
#define SIOT_MAX_ARRAY (1 << 24)

static inline void siot_put_ints(siot_raw *ev, uint32_t k, const int *v, int64_t n)
{
    if (!v || n < 0 || n > SIOT_MAX_ARRAY)
        return;
    int64_t *a = siot_put_arr(ev, k, (uint32_t)n);
    if (a)
        for (int64_t i = 0; i < n; i++)
            a[i] = v[i];
}

/* Arrays of 64-bit integers (hsize_t dimensions, MPI_Offset starts/counts). */
static inline void siot_put_i64s(siot_raw *ev, uint32_t k, const void *v, int64_t n)
{
    if (!v || n < 0 || n > SIOT_MAX_ARRAY)
        return;
    int64_t *a = siot_put_arr(ev, k, (uint32_t)n);
    if (a)
        memcpy(a, v, (size_t)n * sizeof *a);
}

#endif
