/* renest: a final pass over a rank's folded trace that rewrites a loop whose
 * values are run tables of regular runs as a nest of two loops
 * (compress/renest.h). */
#include "compress/renest.h"

#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/salloc.h"

/* The values of a run (or of a whole expression) as an affine function:
 * base + rcoef*rank + sum coef[l]*iter[l]. */
typedef struct affine {
    uint64_t base, rcoef; /* modular arithmetic, as the evaluator's */
    uint32_t n;
    uint64_t coef[SIOT_MAX_NEST + 1];
} affine;

/* Where a rewrite stands: the loop being split is level d of the
 * expressions met, its iteration j becomes i0 + k*i1 (i0 the inner loop at
 * level d, i1 the outer at d + 1; the levels beyond move out by one). The
 * new expressions are kept aside and put in place only when every one of
 * the body's could be rewritten. */
typedef struct rewrite {
    siot_arena *a;
    uint64_t k, count;
    int failed;
    siot_expr ***slot;
    siot_expr **val;
    uint32_t n, cap;
} rewrite;

static siot_expr *rx(rewrite *w, const siot_expr *x, unsigned d);

static int as_affine(const siot_expr *x, affine *f)
{
    memset(f, 0, sizeof *f);
    if (x->tag == SIOT_X_CONST) {
        f->base = (uint64_t)x->base;
        return 1;
    }
    if (x->tag != SIOT_X_AFFINE || x->n > SIOT_MAX_NEST)
        return 0;
    f->base = (uint64_t)x->base;
    f->rcoef = (uint64_t)x->rcoef;
    f->n = x->n;
    for (uint32_t l = 0; l < x->n; l++)
        f->coef[l] = (uint64_t)x->u.coef[l];
    return 1;
}

/* A run of an SEQL at level d as an affine function of the run's own
 * iteration (its coefficient at level d). */
static int run_affine(const siot_run *r, unsigned d, affine *f)
{
    if (!r->x) {
        memset(f, 0, sizeof *f);
        f->base = (uint64_t)r->base;
        f->n = d + 1;
        f->coef[d] = (uint64_t)r->stride;
        return 1;
    }
    if (!as_affine(r->x, f))
        return 0;
    if (f->n <= d)
        f->n = d + 1; /* coefficients past n are 0 */
    return 1;
}

static int same_but_base(const affine *f, const affine *g)
{
    uint32_t n = f->n > g->n ? f->n : g->n;
    if (f->rcoef != g->rcoef)
        return 0;
    for (uint32_t l = 0; l < n; l++)
        if ((l < f->n ? f->coef[l] : 0) != (l < g->n ? g->coef[l] : 0))
            return 0;
    return 1;
}

static siot_expr *new_affine(rewrite *w, const affine *f)
{
    siot_expr *x = siot_arena_alloc(w->a, sizeof *x);
    int64_t *coef = siot_arena_alloc(w->a, (f->n ? f->n : 1) * sizeof *coef);
    if (!x || !coef) {
        w->failed = 1;
        return NULL;
    }
    x->tag = SIOT_X_AFFINE;
    x->base = (int64_t)f->base;
    x->rcoef = (int64_t)f->rcoef;
    x->n = f->n;
    for (uint32_t l = 0; l < f->n; l++)
        coef[l] = (int64_t)f->coef[l];
    x->u.coef = coef;
    return x;
}

/* The coefficient vector of f with level d split: c*j = c*i0 + c*k*i1. */
static void split_affine(affine *f, unsigned d, uint64_t k)
{
    if (f->n <= d)
        return;
    for (uint32_t l = f->n; l > d + 1; l--)
        f->coef[l] = f->coef[l - 1];
    f->coef[d + 1] = f->coef[d] * k;
    f->n++;
}

/* Runs of an SEQL over the loop being split, grouped: consecutive runs
 * whose bases step evenly from one inner loop to the next. */
typedef struct rgroup {
    uint64_t start1;   /* first outer iteration */
    uint64_t base;     /* the first run's base */
    uint64_t step;     /* base change per outer iteration */
    int stepped;       /* step known (the group spans two outer iterations) */
} rgroup;

/* Adds run (outer start s1, m outer iterations long, base b; its base
 * moves by `inside` per outer iteration within it) to the last group when
 * it continues it; 0 when it starts a new one. */
static int join_group(rgroup *g, uint64_t s1, uint64_t m, uint64_t b, uint64_t inside)
{
    /* a group not yet stepped is one run of one outer iteration: s1 follows it */
    uint64_t step = g->stepped ? g->step : b - g->base;
    if (b != g->base + step * (s1 - g->start1) || (m > 1 && step != inside))
        return 0;
    g->step = step;
    g->stepped = 1;
    return 1;
}

/* An SEQL over the loop being split: every run must cover whole inner
 * loops (starts and lengths multiples of k) with one stride and the same
 * dependence on the rank and the other loops; then each value is
 * base(i1) + stride*i0, and base(i1) one progression (an AFFINE) or
 * progressions by pieces (an SEQL over the outer loop, which the outer
 * loop's own split may fold in turn). */
static siot_expr *rx_seql_here(rewrite *w, const siot_expr *x, unsigned d)
{
    if (x->len != w->count || !x->n)
        return NULL;
    rgroup *g = siot_arena_alloc(w->a, x->n * sizeof *g);
    affine first = {0}, f;
    uint32_t ng = 0;
    if (!g)
        return w->failed = 1, NULL;
    for (uint32_t i = 0; i < x->n; i++) {
        const siot_run *r = &x->u.runs[i];
        uint64_t end = i + 1 < x->n ? x->u.runs[i + 1].start : x->len;
        if (r->start % w->k || end % w->k || end <= r->start || !run_affine(r, d, &f))
            return NULL;
        if (i == 0)
            first = f;
        else if (!same_but_base(&first, &f))
            return NULL;
        uint64_t s1 = r->start / w->k, m = (end - r->start) / w->k, inside = f.coef[d] * w->k;
        if (ng && join_group(&g[ng - 1], s1, m, f.base, inside))
            continue;
        g[ng++] = (rgroup){s1, f.base, inside, m > 1};
    }
    split_affine(&first, d, w->k);
    if (ng == 1) {
        first.base = g[0].base;
        first.coef[d + 1] = g[0].stepped ? g[0].step : 0;
        return new_affine(w, &first);
    }
    siot_expr *c = siot_arena_alloc(w->a, sizeof *c);
    siot_run *runs = c ? siot_arena_alloc(w->a, ng * sizeof *runs) : NULL;
    if (!runs)
        return w->failed = 1, NULL;
    c->tag = SIOT_X_SEQL;
    c->level = (uint8_t)(d + 1);
    c->len = w->count / w->k;
    c->n = ng;
    c->u.runs = runs;
    for (uint32_t i = 0; i < ng; i++) {
        first.base = g[i].base;
        first.coef[d + 1] = g[i].stepped ? g[i].step : 0; /* of the outer iteration counted from the run's start */
        runs[i].start = g[i].start1;
        if (!(runs[i].x = new_affine(w, &first)))
            return NULL;
    }
    return c;
}

static siot_expr *rx_affine(rewrite *w, const siot_expr *x, unsigned d)
{
    affine f;
    if (x->n <= d) /* nothing at the split level or beyond */
        return (siot_expr *)x;
    if (!as_affine(x, &f))
        return NULL;
    split_affine(&f, d, w->k);
    return new_affine(w, &f);
}

/* A copy of x with its sub-expressions rewritten (subs[i] is the new item
 * i), or x itself when none changed. */
static siot_expr *rx_items(rewrite *w, const siot_expr *x, unsigned d)
{
    siot_expr *c = NULL;
    for (uint32_t i = 0; i < x->n; i++) {
        siot_expr *const *from = x->tag == SIOT_X_RANKED ? &x->u.ranked[i].x
                                 : x->tag == SIOT_X_STR  ? &x->u.segs[i].field
                                                         : &x->u.items[i];
        if (!*from)
            continue;
        siot_expr *nx = rx(w, *from, d);
        if (!nx)
            return NULL;
        if (nx == *from)
            continue;
        if (!c) {
            c = siot_arena_alloc(w->a, sizeof *c);
            size_t sz = x->tag == SIOT_X_RANKED ? sizeof *x->u.ranked
                        : x->tag == SIOT_X_STR  ? sizeof *x->u.segs
                                                : sizeof *x->u.items;
            void *arr = c ? siot_arena_alloc(w->a, x->n * sz) : NULL;
            if (!arr)
                return w->failed = 1, NULL;
            *c = *x;
            c->interned = 0;
            memcpy(arr, x->u.items, x->n * sz);
            c->u.items = arr;
        }
        if (x->tag == SIOT_X_RANKED)
            c->u.ranked[i].x = nx;
        else if (x->tag == SIOT_X_STR)
            c->u.segs[i].field = nx;
        else
            c->u.items[i] = nx;
    }
    return c ? c : (siot_expr *)x;
}

/* An SEQL over another loop: its level moves out when it is beyond the
 * split one, its runs' expressions are rewritten. */
static siot_expr *rx_seql_other(rewrite *w, const siot_expr *x, unsigned d)
{
    siot_expr *c = siot_arena_alloc(w->a, sizeof *c);
    siot_run *runs = c ? siot_arena_alloc(w->a, x->n * sizeof *runs) : NULL;
    if (!runs)
        return w->failed = 1, NULL;
    *c = *x;
    c->interned = 0;
    memcpy(runs, x->u.runs, x->n * sizeof *runs);
    c->u.runs = runs;
    if (x->level > d)
        c->level++;
    for (uint32_t i = 0; i < x->n; i++)
        if (runs[i].x && !(runs[i].x = rx(w, runs[i].x, d)))
            return NULL;
    return c;
}

static siot_expr *rx(rewrite *w, const siot_expr *x, unsigned d)
{
    switch (x->tag) {
    case SIOT_X_AFFINE:
        return rx_affine(w, x, d);
    case SIOT_X_SEQ:
    case SIOT_X_RANKED:
    case SIOT_X_STR:
    case SIOT_X_ARRAY:
        return rx_items(w, x, d);
    case SIOT_X_SEQL:
        return x->level == d ? rx_seql_here(w, x, d) : rx_seql_other(w, x, d);
    default: /* NONE, CONST, SEQINT (by occurrence: the same order), APPROX */
        return (siot_expr *)x;
    }
}

static void rw_slot(rewrite *w, siot_expr **slot, unsigned d)
{
    if (!*slot || w->failed)
        return;
    siot_expr *nx = rx(w, *slot, d);
    if (!nx) {
        w->failed = 1;
        return;
    }
    if (nx == *slot)
        return;
    if (w->n == w->cap) {
        uint32_t cap = w->cap ? w->cap * 2 : 32;
        siot_expr ***s = siot_realloc(w->slot, cap * sizeof *s);
        if (s)
            w->slot = s;
        siot_expr **v = s ? siot_realloc(w->val, cap * sizeof *v) : NULL;
        if (!v) {
            w->failed = 1;
            return;
        }
        w->val = v;
        w->cap = cap;
    }
    w->slot[w->n] = slot;
    w->val[w->n++] = nx;
}

static void rw_node(rewrite *w, siot_node *n, unsigned d)
{
    if (n->kind == SIOT_N_LOOP) {
        rw_slot(w, &n->u.loop.count, d);
        for (uint32_t i = 0; i < n->u.loop.nbody; i++)
            rw_node(w, n->u.loop.body[i], d + 1);
        return;
    }
    siot_event *e = &n->u.ev;
    rw_slot(w, &e->thread, d);
    rw_slot(w, &e->parent, d);
    rw_slot(w, &e->ret, d);
    rw_slot(w, &e->err, d);
    rw_slot(w, &e->bytes, d);
    for (uint32_t i = 0; i < e->nargs; i++)
        rw_slot(w, &e->args[i], d);
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The inner length an SEQL over the loop suggests: the gcd of its run
 * starts (0: none found). */
static uint64_t seql_period(const siot_expr *x, unsigned d)
{
    if (!x)
        return 0;
    uint64_t g = 0;
    if (x->tag == SIOT_X_SEQL && x->level == d) {
        for (uint32_t i = 1; i < x->n; i++)
            g = gcd(g, x->u.runs[i].start);
        return g;
    }
    if (x->tag == SIOT_X_RANKED || x->tag == SIOT_X_STR || x->tag == SIOT_X_SEQ || x->tag == SIOT_X_ARRAY)
        for (uint32_t i = 0; i < x->n && !g; i++)
            g = seql_period(x->tag == SIOT_X_RANKED ? x->u.ranked[i].x
                            : x->tag == SIOT_X_STR  ? x->u.segs[i].field
                                                    : x->u.items[i], d);
    return g;
}

static uint64_t body_period(const siot_node *n, unsigned d)
{
    if (n->kind == SIOT_N_LOOP) {
        uint64_t g = seql_period(n->u.loop.count, d);
        for (uint32_t i = 0; i < n->u.loop.nbody && !g; i++)
            g = body_period(n->u.loop.body[i], d + 1);
        return g;
    }
    const siot_event *e = &n->u.ev;
    uint64_t g = seql_period(e->ret, d) ? seql_period(e->ret, d) : seql_period(e->bytes, d);
    for (uint32_t i = 0; i < e->nargs && !g; i++)
        g = seql_period(e->args[i], d);
    return g;
}

/* Splits loop n into count/k iterations of a loop of k when every value of
 * its body can be written over the two; 1 when it did. */
static int split_loop(siot_arena *a, siot_node *n)
{
    const siot_expr *cx = n->u.loop.count;
    if (!cx || cx->tag != SIOT_X_CONST || cx->base < 4)
        return 0;
    uint64_t count = (uint64_t)cx->base, k = 0;
    for (uint32_t i = 0; i < n->u.loop.nbody && !k; i++)
        k = body_period(n->u.loop.body[i], 0);
    if (k < 2 || k >= count || count % k)
        return 0;
    rewrite w = {a, k, count, 0, NULL, NULL, 0, 0};
    for (uint32_t i = 0; i < n->u.loop.nbody && !w.failed; i++)
        rw_node(&w, n->u.loop.body[i], 0);
    siot_node *inner = w.failed ? NULL : siot_arena_alloc(a, sizeof *inner);
    siot_rentry *re = inner ? siot_arena_alloc(a, (n->ranks.n ? n->ranks.n : 1) * sizeof *re) : NULL;
    siot_node **body = re ? siot_arena_alloc(a, sizeof *body) : NULL;
    siot_expr *kx = body ? siot_x_const(a, (int64_t)k) : NULL, *ox = kx ? siot_x_const(a, (int64_t)(count / k)) : NULL;
    if (ox) {
        for (uint32_t i = 0; i < w.n; i++)
            *w.slot[i] = w.val[i];
        *inner = *n;
        memcpy(re, n->ranks.e, n->ranks.n * sizeof *re);
        inner->ranks.e = re;
        inner->u.loop.count = kx;
        body[0] = inner;
        n->u.loop.count = ox;
        n->u.loop.nbody = 1;
        n->u.loop.body = body;
    }
    siot_free(w.slot);
    siot_free(w.val);
    return ox != NULL;
}

static uint32_t renest_node(siot_arena *a, siot_node *n)
{
    if (n->kind != SIOT_N_LOOP)
        return 0;
    uint32_t done = 0;
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        done += renest_node(a, n->u.loop.body[i]);
    while (split_loop(a, n)) /* the outer loop may split again (a third level) */
        done++;
    return done;
}

uint32_t siot_renest(siot_trace *t)
{
    uint32_t done = 0;
    for (uint32_t i = 0; i < t->ntop; i++)
        done += renest_node(&t->arena, t->top[i]);
    if (done)
        siot_trace_index(t);
    return done;
}
