/* stage: what a staging slot gets when its call is staged, shared by the two
 * ways a call is staged (runtime.h): siot_begin (record.c) and a leaf's
 * siot_leaf_end (session.c, where the push is inlined into it).
 *
 * Locks: none; the calling thread's own staging area. Signals: a handler's
 * traced call passes through while the thread is busy (thread.h). */
#ifndef SIOT_STAGE_H
#define SIOT_STAGE_H

#include "src/runtime.h"
#include "src/stack.h"

/* The call's place: its function, the call in flight it was issued by, its
 * thread. */
static inline void siot_stage_place(const siot_tls *t, siot_raw *r, uint32_t func)
{
    r->func = func;
    r->parent = t->top;
    r->thread = t->thread;
}

/* The computation before a call that starts at start: from the moment the
 * tracer last handed the thread back (record.c). */
static inline uint64_t siot_comp_before(const siot_tls *t, uint64_t start)
{
    return t->last_mark && start > t->last_mark ? start - t->last_mark : 0;
}

/* The call site, walked from frame: a tracer function's own (inlined into
 * it, so that the walk starts there). */
static inline __attribute__((always_inline)) uint32_t siot_site_from(const void *frame)
{
    return siot_cfg.stack_depth ? siot_site_here(siot_cfg.stack_depth, frame) : 0;
}

#endif
