/* repeat: the queue's hot case (queue.h), a group of one top-level call
 * that is the next iteration of the tail loop, value for value, as the
 * queue predicts it. Inline, for the session to take it without a call
 * (src/session.c: most traced calls in a loop end here); queue.c uses the
 * same functions for its own pushes. It stands on the queue's state
 * (compress/queue_state.h), not on compress/queue.h, so that queue.c can
 * include it without a circle.
 *
 * Locks, signals, errors: those of the queue (queue.h). */
#ifndef SIOT_REPEAT_H
#define SIOT_REPEAT_H

#include <stddef.h>
#include <string.h>

#include "compress/queue_state.h"
#include "core/hist.h"

#define SIOT_Q_LIKELY(x) __builtin_expect(!!(x), 1)

/* queue.c: loop T's count, a shared constant, replaced by the next one
 * (the loop's own once past the interned ones); -1 without memory. Out of
 * line: the allocation is rare, and its registers would be paid always. */
int siot_queue_count_own(siot_queue *q, siot_node *T);

/* One more iteration of loop T. A count past the shared small constants
 * (siot_x_int) is the loop's own and is bumped in place. */
static inline int siot_q_count_one_more(siot_queue *q, siot_node *T)
{
    siot_expr *cnt = T->u.loop.count;
    if (SIOT_Q_LIKELY(cnt->tag == SIOT_X_CONST && !cnt->interned)) {
        cnt->base++;
        return 0;
    }
    return siot_queue_count_own(q, T);
}

/* The raw event is iteration c of the predicted loop, value for value:
 * the differences or'ed together (with d, those found already), one branch
 * for them all. */
static inline __attribute__((always_inline)) int siot_q_pred_matches(const siot_queue *q, const siot_raw *r,
                                                                    int64_t dist, uint64_t c, uint64_t d)
{
    const int64_t *b = q->pred.base, *s = q->pred.step;
#define SIOT_PRED_DIFF(k, v) ((uint64_t)(v) ^ ((uint64_t)b[k] + (uint64_t)s[k] * c))
    d |= SIOT_PRED_DIFF(0, dist) | SIOT_PRED_DIFF(1, r->ret) | SIOT_PRED_DIFF(2, r->err) | SIOT_PRED_DIFF(3, r->bytes);
    for (uint32_t i = 4, nv = q->pred.nv; i < nv; i++)
        d |= ((uint64_t)r->args[i - 4].kind - SIOT_RV_INT) | SIOT_PRED_DIFF(i, r->args[i - 4].i);
#undef SIOT_PRED_DIFF
    return d == 0;
}

/* A sample of a repeat: count, sum and sum of squares as integers (mean
 * and M2 wait for pred_drop); min, max and the bins at once. */
static inline void siot_q_pend_sample(siot_queue *q, siot_hist *h, siot_qsum *p, uint64_t ns)
{
    p->k++;
    p->sum += ns;
    p->sq += (unsigned __int128)ns * ns;
    if (ns < h->min)
        h->min = ns;
    if (ns > h->max) {
        h->max = ns;
        h->max_rank = q->rank;
        h->max_occ = h->count + p->k - 1;
    }
    uint32_t *bin = &h->bins[siot_hist_bin(ns)];
    if (*bin != UINT32_MAX) /* saturates */
        ++*bin;
}

/* One more iteration of the tail loop, whose body is one event the
 * predictor covers, when r's values are the predicted ones (d: differences
 * found already in its function, site and thread). 1 when taken. */
static inline __attribute__((always_inline)) int siot_q_pred_take(siot_queue *q, const siot_raw *r, int64_t dist,
                                                                 uint64_t d)
{
    siot_node *T = q->pred.loop;
    if (!siot_q_pred_matches(q, r, dist, (uint64_t)T->u.loop.count->base, d))
        return 0;
    siot_event *b = &T->u.loop.body[0]->u.ev;
    siot_q_pend_sample(q, &b->comp, &q->pred.comp, r->comp);
    siot_q_pend_sample(q, &b->dur, &q->pred.dur, r->t_end - r->t_start);
    if (siot_q_count_one_more(q, T))
        q->oom = 1;
    return 1;
}

/* The same for any event of a group (queue.c), dist its parent distance. */
static inline __attribute__((always_inline)) int siot_q_pred_repeat(siot_queue *q, const siot_raw *r, int64_t dist)
{
    if (r->func != q->pred.func || r->site != q->pred.site || r->thread != q->pred.thread)
        return 0;
    return siot_q_pred_take(q, r, dist, 0);
}

/* A raw event begins with its function, parent, thread and site (16 bytes,
 * compared as two words with pred.top_head). */
_Static_assert(offsetof(siot_raw, func) == 0 && offsetof(siot_raw, parent) == 4 && offsetof(siot_raw, thread) == 8 &&
                   offsetof(siot_raw, site) == 12 && offsetof(siot_raw, t_start) == 16,
               "siot_raw's head");

/* The hot case of a push, a group of one top-level call r that is the next
 * iteration of the tail loop, value for value, as the queue predicts it:
 * taken (1) with no expression read, or left for siot_queue_push (0). The
 * call's head (a parent of -1: top-level) is compared with the loop's in
 * the same or'ed difference as its values. */
static inline __attribute__((always_inline)) int siot_queue_repeat(siot_queue *q, const siot_raw *r)
{
    /* pred.ok: there is a loop too (pred_drop clears both) */
    if (!q->pred.ok || (q->oom | q->stopped))
        return 0;
    uint64_t head[2];
    memcpy(head, r, sizeof head);
    if (!siot_q_pred_take(q, r, 0, (head[0] ^ q->pred.top_head[0]) | (head[1] ^ q->pred.top_head[1])))
        return 0;
    q->events++;
    return 1;
}

#endif
