#include "queue.h"

#include <stdlib.h>
#include <string.h>

#include "expr.h"
#include "hist.h"
#include "ranklist.h"

void siot_queue_init(siot_queue *q, siot_arena *a, int32_t rank)
{
    memset(q, 0, sizeof *q);
    q->arena = a;
    q->rank = rank;
}

void siot_queue_free(siot_queue *q)
{
    free(q->nodes);
    q->nodes = NULL;
    q->n = q->cap = 0;
}

static siot_expr *raw_expr(siot_arena *a, const siot_rawval *v, const uint8_t *pool)
{
    switch (v->kind) {
    case SIOT_RV_INT:
        return siot_x_const(a, v->i);
    case SIOT_RV_STR:
        return siot_x_str(a, (const char *)pool + v->i, v->n);
    case SIOT_RV_ARR: {
        int64_t tmp;
        siot_expr *x = siot_x_intarray(a, NULL, 0);
        if (!x)
            return NULL;
        x->u.items = siot_arena_alloc(a, (v->n ? v->n : 1) * sizeof *x->u.items);
        if (!x->u.items)
            return NULL;
        x->n = v->n;
        for (uint32_t i = 0; i < v->n; i++) {
            memcpy(&tmp, pool + v->i + 8 * (size_t)i, 8);
            if (!(x->u.items[i] = siot_x_const(a, tmp)))
                return NULL;
        }
        return x;
    }
    default:
        return siot_x_none(a);
    }
}

static siot_node *event_node(siot_queue *q, const siot_raw *r, uint32_t slot, const uint8_t *pool)
{
    siot_arena *a = q->arena;
    siot_node *n = siot_arena_alloc(a, sizeof *n);
    if (!n || !siot_rl_single(a, &n->ranks, q->rank))
        return NULL;
    n->kind = SIOT_N_EVENT;
    siot_event *e = &n->u.ev;
    e->func = r->func;
    e->site = r->site;
    e->thread = siot_x_const(a, r->thread);
    e->parent = siot_x_const(a, r->parent >= 0 ? (int64_t)slot - r->parent : 0);
    e->ret = siot_x_const(a, r->ret);
    e->err = siot_x_const(a, r->err);
    e->bytes = siot_x_const(a, r->bytes);
    e->nargs = r->nargs;
    e->args = siot_arena_alloc(a, (r->nargs ? r->nargs : 1) * sizeof *e->args);
    if (!e->thread || !e->parent || !e->ret || !e->err || !e->bytes || !e->args)
        return NULL;
    for (uint32_t i = 0; i < r->nargs; i++)
        if (!(e->args[i] = raw_expr(a, &r->args[i], pool)))
            return NULL;
    siot_hist_init1(&e->comp, r->comp, q->rank, 0);
    siot_hist_init1(&e->dur, r->t_end - r->t_start, q->rank, 0);
    return n;
}

int siot_queue_push(siot_queue *q, const siot_raw *grp, uint32_t n, const uint8_t *pool)
{
    if (q->oom)
        return -1;
    if (q->n + n > q->cap) {
        uint32_t cap = q->cap ? q->cap : 1024;
        while (cap < q->n + n)
            cap *= 2;
        siot_node **nodes = realloc(q->nodes, cap * sizeof *nodes);
        if (!nodes) {
            q->oom = 1;
            return -1;
        }
        q->nodes = nodes;
        q->cap = cap;
    }
    for (uint32_t i = 0; i < n; i++) {
        siot_node *node = event_node(q, &grp[i], i, pool);
        if (!node) {
            q->oom = 1;
            return -1;
        }
        q->nodes[q->n++] = node;
        q->events++;
    }
    return 0;
}
