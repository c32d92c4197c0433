/* record: the hot path every wrapper runs (runtime.h): a per-thread staging
 * area for the events of the calls in flight, handed to the session's queue
 * when the outermost one ends. */
#include "src/runtime.h"

#include <string.h>

#include "core/format.h"
#include "core/salloc.h"
#include "src/lock.h"
#include "src/session.h"
#include "src/stack.h"
#include "src/stage.h"

static _Atomic uint32_t next_thread = 1;

static void tls_init(siot_tls *t)
{
    t->inited = 1;
    t->top = -1;
}

void siot_record_init_thread(void)
{
    tls_init(&siot_t);
    siot_t.thread = 0;
    siot_t.last_mark = siot_now();
}

static int grow_stage(siot_tls *t)
{
    uint32_t cap = t->capstage ? t->capstage * 2 : 16;
    siot_raw *s = siot_realloc(t->stage, cap * sizeof *s);
    if (!s) {
        siot_note_unstaged(1); /* counted by the session, which notes it in the trace */
        return 0;
    }
    t->stage = s;
    t->capstage = cap;
    return 1;
}

/* A thread's first call, or a staging area that is full: out of line, so
 * that the common case saves no registers for them. 0: no slot. */
static __attribute__((noinline, cold)) int begin_slow(siot_tls *t)
{
    if (!t->inited) {
        tls_init(t);
        t->thread = atomic_fetch_add(&next_thread, 1);
    }
    return t->nstage < t->capstage || grow_stage(t);
}

/* A staged call's own fields, before its times and its call site. */
static inline void slot_open(const siot_tls *t, siot_raw *r, uint32_t func)
{
    siot_stage_place(t, r, func);
    r->site = 0;
    r->ret = r->err = r->bytes = 0;
    r->nargs = siot_functab[func].nargs;
    for (uint32_t i = 0; i < r->nargs; i++)
        r->args[i].kind = SIOT_RV_NONE;
}

/* Time is read where it excludes the tracer's own work: the call starts at
 * the last instruction of siot_begin and ends at the first of siot_end; the
 * computation before a call runs from the moment the tracer last handed the
 * thread back (the end of siot_finish, or the start of the enclosing call)
 * to the start of this one. The call site is walked after the call, from the
 * same wrapper frame, so neither the walk nor a first call's set-up (the
 * module map) is inside any recorded time. */
SIOT_TEXT int siot_begin(uint32_t func)
{
    siot_tls *t = &siot_t;
    if (SIOT_UNLIKELY(!t->inited || t->nstage == t->capstage) && !begin_slow(t))
        return -1;
    int slot = (int)t->nstage++;
    siot_raw *r = &t->stage[slot];
    slot_open(t, r, func);
    t->top = slot;
    t->depth++;
    uint64_t now = siot_now();
    r->t_start = now;
    r->comp = siot_comp_before(t, now);
    t->last_mark = now;
    return slot;
}

/* The call ended: its time, then its call site (after the call, out of
 * its time). Inlined into both ends so that the site walk starts from
 * their own frame. */
static inline __attribute__((always_inline)) siot_raw *end_call(siot_tls *t, int slot, const void *frame)
{
    uint64_t now = siot_now();
    siot_raw *r = &t->stage[slot];
    r->t_end = now;
    t->busy++;
    r->site = siot_site_from(frame);
    return r;
}

SIOT_TEXT siot_raw *siot_end(int slot) { return end_call(&siot_t, slot, __builtin_frame_address(0)); }

SIOT_TEXT siot_raw *siot_end_shared(int slot)
{
    siot_tls *t = &siot_t;
    siot_raw *r = end_call(t, slot, __builtin_frame_address(0));
    siot_lock();
    t->shared = 1;
    t->locked_at = siot_now(); /* the ids it settles are settled in lock order */
    return r;
}

/* The end of a traced call: its group (the outermost call and the calls it
 * issued, staged in pre-order) into the thread's queue when it is the
 * outermost, then the thread handed back to the program, the mark from
 * which the next call's computation runs. */
static inline void hand_back(siot_tls *t, uint64_t end, uint64_t key)
{
    if (t->depth == 0) {
        siot_session_push(&t->tq, t->stage, t->nstage, t->pool, end, key);
        t->nstage = 0;
        t->npool = 0;
    }
    t->last_mark = siot_now();
    t->busy--;
}

void siot_finish(int slot)
{
    siot_tls *t = &siot_t;
    uint64_t end = t->stage[slot].t_end;
    t->top = t->stage[slot].parent;
    t->depth--;
    uint64_t key = end; /* the group's order key (session.h) */
    if (t->shared) {
        t->shared = 0;
        key = t->locked_at;
        siot_unlock();
    }
    hand_back(t, end, key);
}

/* A leaf's slot (runtime.h siot_leaf_slot) for a thread's first leaf, or
 * when the staging area is full: out of line, so that the wrappers save no
 * registers for it. 0: no slot, and the thread is no longer busy. */
int siot_leaf_room(void)
{
    siot_tls *t = &siot_t;
    if (begin_slow(t))
        return 1;
    t->busy--;
    return 0;
}

/* siot_leaf_end: in session.c, with the push inlined into it. */

static uint8_t *pool_reserve(siot_tls *t, size_t n, uint32_t *off)
{
    if (n > UINT32_MAX - t->npool)
        return NULL;
    if (t->npool + n > t->cappool) {
        size_t cap = t->cappool ? t->cappool : 4096;
        while (cap < t->npool + n)
            cap *= 2;
        if (cap > UINT32_MAX)
            return NULL;
        uint8_t *p = siot_realloc(t->pool, cap);
        if (!p)
            return NULL;
        t->pool = p;
        t->cappool = (uint32_t)cap;
    }
    *off = t->npool;
    t->npool += (uint32_t)n;
    return t->pool + *off;
}

uint32_t siot_pool_tmp(size_t n)
{
    uint32_t off, pad = (8 - (siot_t.npool & 7)) & 7;
    if (pad && !pool_reserve(&siot_t, pad, &off))
        return 0;
    if (!pool_reserve(&siot_t, n ? n : 1, &off))
        return 0;
    return off + 1;
}

void *siot_pool_at(uint32_t off1) { return off1 ? siot_t.pool + off1 - 1 : NULL; }

void siot_put_strn(siot_raw *ev, uint32_t k, const char *s, size_t n)
{
    uint32_t off;
    if (n > SIOT_MAX_STRING)
        n = SIOT_MAX_STRING; /* what a reader accepts; no real path or hint is that long */
    uint8_t *p;
    if (s && n == 0) { /* nothing to store (and the pool may not exist yet) */
        ev->args[k].kind = SIOT_RV_STR;
        ev->args[k].n = 0;
        ev->args[k].i = 0;
        return;
    }
    if (!s || !(p = pool_reserve(&siot_t, n, &off))) {
        ev->args[k].kind = SIOT_RV_NONE;
        return;
    }
    memcpy(p, s, n);
    ev->args[k].kind = SIOT_RV_STR;
    ev->args[k].n = (uint32_t)n;
    ev->args[k].i = off;
}

void siot_put_str(siot_raw *ev, uint32_t k, const char *s) { siot_put_strn(ev, k, s, s ? strlen(s) : 0); }

int64_t *siot_put_arr(siot_raw *ev, uint32_t k, uint32_t n)
{
    uint32_t off;
    /* 8-byte alignment of the array inside the pool. */
    uint32_t pad = (8 - (siot_t.npool & 7)) & 7;
    if (pad && !pool_reserve(&siot_t, pad, &off))
        return NULL;
    uint8_t *p = pool_reserve(&siot_t, (size_t)n * 8, &off);
    if (!p) {
        ev->args[k].kind = SIOT_RV_NONE;
        return NULL;
    }
    ev->args[k].kind = SIOT_RV_ARR;
    ev->args[k].n = n;
    ev->args[k].i = off;
    return (int64_t *)(void *)p;
}

