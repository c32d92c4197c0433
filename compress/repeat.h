/* repeat: the queue's hot case (queue.h), a group of one top-level call
 * that is the next iteration of the tail loop, value for value, as the
 * queue predicts it. Inline, for the session to take it without a call
 * (src/session.c: most traced calls in a loop end here); queue.c uses the
 * same functions for its own pushes.
 *
 * Locks, signals, errors: those of the queue (queue.h). */
#ifndef SIOT_REPEAT_H
#define SIOT_REPEAT_H

#include "compress/queue.h"
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
 * the differences or'ed together, one branch for them all. */
static inline __attribute__((always_inline)) int siot_q_pred_matches(const siot_queue *q, const siot_raw *r,
                                                                    int64_t dist, uint64_t c)
{
    const int64_t *b = q->pred.base, *s = q->pred.step;
#define SIOT_PRED_DIFF(k, v) ((uint64_t)(v) ^ ((uint64_t)b[k] + (uint64_t)s[k] * c))
    uint64_t d = SIOT_PRED_DIFF(0, dist) | SIOT_PRED_DIFF(1, r->ret) | SIOT_PRED_DIFF(2, r->err) |
                 SIOT_PRED_DIFF(3, r->bytes);
    for (uint32_t i = 4, nv = q->pred.nv; i < nv; i++)
        d |= (uint64_t)(r->args[i - 4].kind ^ SIOT_RV_INT) | SIOT_PRED_DIFF(i, r->args[i - 4].i);
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

/* The hot case: one more iteration of the tail loop, whose body is one
 * event the predictor covers. 1 when taken. */
static inline __attribute__((always_inline)) int siot_q_pred_repeat(siot_queue *q, const siot_raw *r, int64_t dist)
{
    siot_node *T = q->pred.loop;
    if (r->func != q->pred.func || r->site != q->pred.site || r->thread != q->pred.thread ||
        !siot_q_pred_matches(q, r, dist, (uint64_t)T->u.loop.count->base))
        return 0;
    siot_event *b = &T->u.loop.body[0]->u.ev;
    siot_q_pend_sample(q, &b->comp, &q->pred.comp, r->comp);
    siot_q_pend_sample(q, &b->dur, &q->pred.dur, r->t_end - r->t_start);
    if (siot_q_count_one_more(q, T))
        q->oom = 1;
    return 1;
}

/* The hot case of a push, a group of one top-level call r that is the next
 * iteration of the tail loop, value for value, as the queue predicts it:
 * taken (1) with no expression read, or left for siot_queue_push (0). */
static inline __attribute__((always_inline)) int siot_queue_repeat(siot_queue *q, const siot_raw *r)
{
    /* pred.ok: there is a loop too (pred_drop clears both) */
    if (!q->pred.ok || q->oom || q->stopped || r->parent >= 0 || !siot_q_pred_repeat(q, r, 0))
        return 0;
    q->events++;
    return 1;
}

#endif
