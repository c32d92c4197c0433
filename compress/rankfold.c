/* rankfold: per-rank tables rewritten by the rank's residue
 * (compress/rankfold.h). */
#include "compress/rankfold.h"

#include <string.h>

#include "core/ranklist.h"
#include "core/salloc.h"

#define MAX_PERIOD 16
#define MAX_SPAN (1 << 20) /* ranks looked at per table */

/* A per-rank table whose entries are functions of the rank alone (no loop,
 * no occurrence): the only kind whose value per rank is one integer. */
static int rank_function(const siot_expr *x)
{
    if (x->tag != SIOT_X_RANKED || x->n < 3)
        return 0;
    for (uint32_t i = 0; i < x->n; i++) {
        const siot_expr *e = x->u.ranked[i].x;
        if (!e || !(e->tag == SIOT_X_CONST || (e->tag == SIOT_X_AFFINE && e->n == 0)))
            return 0;
    }
    return 1;
}

typedef struct rvals {
    int32_t lo;
    uint32_t span;
    uint8_t *have;
    int64_t *v;
} rvals;

static int values_of(const siot_expr *x, rvals *r)
{
    int32_t lo = INT32_MAX, hi = -1;
    for (uint32_t i = 0; i < x->n; i++) {
        int32_t a = siot_rl_min(&x->u.ranked[i].rl), b = siot_rl_max(&x->u.ranked[i].rl);
        lo = a >= 0 && a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    if (hi < lo || (int64_t)hi - lo + 1 > MAX_SPAN)
        return -1;
    r->lo = lo;
    r->span = (uint32_t)(hi - lo + 1);
    r->have = siot_calloc(r->span, 1);
    r->v = siot_calloc(r->span, sizeof *r->v);
    if (!r->have || !r->v)
        return -1;
    for (uint32_t i = 0; i < x->n; i++) {
        const siot_rankedent *e = &x->u.ranked[i];
        uint64_t n = siot_rl_size(&e->rl);
        for (uint64_t k = 0; k < n; k++) {
            int32_t rank = siot_rl_nth(&e->rl, k);
            uint32_t at = (uint32_t)(rank - lo);
            r->have[at] = 1;
            r->v[at] = (int64_t)((uint64_t)e->x->base + (uint64_t)e->x->rcoef * (uint64_t)(int64_t)rank);
        }
    }
    return 0;
}

/* Whether every residue class mod m is one progression in the rank:
 * base[c] + step[c]*rank. */
static int fits_period(const rvals *r, uint32_t m, int64_t *base, int64_t *step)
{
    for (uint32_t c = 0; c < m; c++) {
        int seen = 0;
        int64_t r0 = 0, v0 = 0;
        step[c] = 0;
        for (uint32_t at = c; at < r->span; at += m) {
            if (!r->have[at])
                continue;
            int64_t rank = r->lo + (int64_t)at;
            if (seen == 0) {
                r0 = rank, v0 = r->v[at];
            } else if (seen == 1) {
                step[c] = (r->v[at] - v0) / (rank - r0);
                if (v0 + step[c] * (rank - r0) != r->v[at])
                    return 0;
            } else if (v0 + step[c] * (rank - r0) != r->v[at]) {
                return 0;
            }
            seen++;
        }
        base[c] = v0 - step[c] * r0;
    }
    return 1;
}

static siot_expr *rank_affine(siot_arena *a, int64_t base, int64_t step)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    if (!x)
        return NULL;
    x->tag = step ? SIOT_X_AFFINE : SIOT_X_CONST;
    x->base = base;
    x->rcoef = step;
    return x;
}

/* The table by residue mod m: one entry per class that has ranks. */
static siot_expr *by_residue(siot_arena *a, const rvals *r, uint32_t m, const int64_t *base, const int64_t *step)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    siot_rankedent *ents = x ? siot_arena_alloc(a, m * sizeof *ents) : NULL;
    int32_t *ranks = ents ? siot_malloc((r->span / m + 1) * sizeof *ranks) : NULL;
    if (!ranks)
        return NULL;
    x->tag = SIOT_X_RANKED;
    x->u.ranked = ents;
    for (uint32_t c = 0; c < m; c++) {
        uint32_t n = 0;
        for (uint32_t at = c; at < r->span; at += m)
            if (r->have[at])
                ranks[n++] = r->lo + (int32_t)at;
        if (!n)
            continue;
        siot_rankedent *e = &ents[x->n];
        if (!siot_rl_from_sorted(a, &e->rl, ranks, n) || !(e->x = rank_affine(a, base[c], step[c]))) {
            siot_free(ranks);
            return NULL;
        }
        x->n++;
    }
    siot_free(ranks);
    return x;
}

/* x rewritten by the smallest period that takes fewer entries, or x. */
static siot_expr *refold(siot_arena *a, siot_expr *x)
{
    if (!rank_function(x))
        return x;
    rvals r = {0, 0, NULL, NULL};
    siot_expr *out = x;
    if (values_of(x, &r) == 0) {
        int64_t base[MAX_PERIOD], step[MAX_PERIOD];
        for (uint32_t m = 1; m <= MAX_PERIOD && m < x->n && m * 2 <= r.span; m++)
            if (fits_period(&r, m, base, step)) {
                siot_expr *y = m == 1 ? rank_affine(a, base[0], step[0]) : by_residue(a, &r, m, base, step);
                out = y && (m == 1 || y->n < x->n) ? y : x;
                break;
            }
    }
    siot_free(r.have);
    siot_free(r.v);
    return out;
}

static uint32_t refold_slot(siot_arena *a, siot_expr **slot)
{
    if (!*slot)
        return 0;
    siot_expr *y = refold(a, *slot);
    if (y == *slot)
        return 0;
    *slot = y;
    return 1;
}

static uint32_t refold_node(siot_arena *a, siot_node *n)
{
    uint32_t done = 0;
    if (n->kind == SIOT_N_LOOP) {
        done += refold_slot(a, &n->u.loop.count);
        for (uint32_t i = 0; i < n->u.loop.nbody; i++)
            done += refold_node(a, n->u.loop.body[i]);
        return done;
    }
    siot_event *e = &n->u.ev;
    done += refold_slot(a, &e->thread) + refold_slot(a, &e->parent) + refold_slot(a, &e->ret);
    done += refold_slot(a, &e->err) + refold_slot(a, &e->bytes);
    for (uint32_t i = 0; i < e->nargs; i++)
        done += refold_slot(a, &e->args[i]);
    return done;
}

uint32_t siot_rank_periodic(siot_trace *t)
{
    uint32_t done = 0;
    for (uint32_t i = 0; i < t->ntop; i++)
        done += refold_node(&t->arena, t->top[i]);
    return done;
}
