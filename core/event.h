/* event: a call as the wrappers record it, before compression.
 *
 * Raw events live in a per-thread staging area in call order (pre-order: a
 * parent before the calls it issues). Strings and arrays go to the thread's
 * byte pool; a value holds their offset. When the outermost traced call
 * returns, the whole group is handed to the rank's queue (compress/queue.h).
 *
 * Locks: the staging area and pool are the thread's own (no lock); a group
 * is handed to the queue under the recorder lock (src/runtime.h).
 *
 * Errors: none: types and the generated function table only. */
#ifndef SIOT_EVENT_H
#define SIOT_EVENT_H

#include <stdint.h>

#include "core/model.h"

enum { SIOT_RV_NONE = 0, SIOT_RV_INT = 1, SIOT_RV_STR = 2, SIOT_RV_ARR = 3 };

typedef struct siot_rawval {
    uint8_t kind;
    uint32_t n;  /* string length, or array element count */
    int64_t i;   /* integer value, or offset into the pool */
} siot_rawval;

typedef struct siot_raw {
    uint32_t func;   /* index into siot_functab */
    int32_t parent;  /* staging slot of the enclosing traced call, -1 at the top */
    uint32_t thread; /* small per-rank thread number, 0 = the main thread */
    uint32_t site;   /* call-site signature id + 1, 0 when not taken */
    uint64_t t_start, t_end;
    uint64_t comp; /* time since the previous event boundary of this thread */
    int64_t ret;
    int64_t err;
    int64_t bytes;
    uint32_t nargs;
    siot_rawval args[SIOT_MAX_ARGS];
} siot_raw;

/* The generated table of traced functions (build/<flavour>/gen/functab.c). */
extern const siot_funcdesc siot_functab[];
extern const uint32_t siot_nfuncs;

#endif
