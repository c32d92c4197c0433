/* rerank: a rank's trace from two other ranks' traces (bench/rerank.h). */
#include "bench/rerank.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "compress/xmerge.h"
#include "core/ranklist.h"

/* One walk over three traces side by side: c (changed, or in check mode
 * only compared: nothing is written then), a and b. */
typedef struct walk {
    int64_t ra, rb, r;
    int check;
    siot_arena *arena; /* c's, for its new rank lists */
    char *why;
    size_t n;
} walk;

static int fail(walk *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(walk *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(w->why, w->n, fmt, ap);
    va_end(ap);
    return -1;
}

/* The line through (ra, va) and (rb, vb) at rank r: written to *cv, or
 * compared with it. */
static int w_int(walk *w, int64_t *cv, int64_t va, int64_t vb, const char *what)
{
    int64_t v = va;
    if (va != vb) {
        __int128 num = ((__int128)vb - va) * (w->r - w->ra), den = w->rb - w->ra;
        if (num % den)
            return fail(w, "%s: %lld on rank %lld and %lld on rank %lld: not a line through an integer at rank %lld",
                        what, (long long)va, (long long)w->ra, (long long)vb, (long long)w->rb, (long long)w->r);
        v = (int64_t)(va + num / den);
    }
    if (w->check)
        return *cv == v ? 0
                        : fail(w, "%s: %lld on rank %lld where the line through ranks %lld and %lld gives %lld", what,
                               (long long)*cv, (long long)w->r, (long long)w->ra, (long long)w->rb, (long long)v);
    *cv = v;
    return 0;
}

static int w_expr(walk *w, siot_expr *c, const siot_expr *a, const siot_expr *b);

static int w_str(walk *w, siot_expr *c, const siot_expr *a, const siot_expr *b)
{
    for (uint32_t i = 0; i < a->n; i++) {
        const siot_strseg *sa = &a->u.segs[i], *sb = &b->u.segs[i], *sc = &c->u.segs[i];
        if (sa->is_field != sb->is_field || sc->is_field != sa->is_field || sa->width != sb->width ||
            sa->zero_pad != sb->zero_pad)
            return fail(w, "string patterns of different shapes");
        if (sa->is_field && w_expr(w, sc->field, sa->field, sb->field) != 0)
            return -1;
        if (!sa->is_field && (sa->len != sb->len || sc->len != sa->len || memcmp(sa->lit, sb->lit, sa->len) != 0 ||
                              memcmp(sc->lit, sa->lit, sa->len) != 0))
            return fail(w, "strings whose text differs between ranks");
    }
    return 0;
}

static int w_runs(walk *w, siot_expr *c, const siot_expr *a, const siot_expr *b)
{
    for (uint32_t i = 0; i < a->n; i++) {
        const siot_run *qa = &a->u.runs[i], *qb = &b->u.runs[i];
        siot_run *qc = &c->u.runs[i];
        if (qa->start != qb->start || qc->start != qa->start || !qa->x != !qb->x || !qc->x != !qa->x)
            return fail(w, "run tables of different shapes");
        if (w_int(w, &qc->base, qa->base, qb->base, "a run's base") != 0 ||
            w_int(w, &qc->stride, qa->stride, qb->stride, "a run's stride") != 0 ||
            (qa->x && w_expr(w, qc->x, qa->x, qb->x) != 0))
            return -1;
    }
    return 0;
}

static int w_expr(walk *w, siot_expr *c, const siot_expr *a, const siot_expr *b)
{
    if (!a || !b || !c)
        return !a && !b && !c ? 0 : fail(w, "a value recorded on one rank only");
    if (a->tag != b->tag || c->tag != a->tag || a->n != b->n || c->n != a->n || a->level != b->level ||
        c->level != a->level || a->len != b->len || c->len != a->len)
        return fail(w, "values of different shapes");
    int rc = 0;
    switch (a->tag) {
    case SIOT_X_NONE:
        return 0;
    case SIOT_X_AFFINE:
        for (uint32_t i = 0; i < a->n && rc == 0; i++)
            rc = w_int(w, &c->u.coef[i], a->u.coef[i], b->u.coef[i], "a progression's step");
        if (rc == 0)
            rc = w_int(w, &c->rcoef, a->rcoef, b->rcoef, "a rank coefficient");
        return rc ? rc : w_int(w, &c->base, a->base, b->base, "a progression's base");
    case SIOT_X_CONST:
        return w_int(w, &c->base, a->base, b->base, "a value");
    case SIOT_X_SEQINT:
        for (uint32_t i = 0; i < a->n && rc == 0; i++)
            rc = w_int(w, &c->u.vals[i], a->u.vals[i], b->u.vals[i], "a sequence's value");
        return rc;
    case SIOT_X_SEQ:
    case SIOT_X_ARRAY:
        for (uint32_t i = 0; i < a->n && rc == 0; i++)
            rc = w_expr(w, c->u.items[i], a->u.items[i], b->u.items[i]);
        return rc;
    case SIOT_X_STR:
        return w_str(w, c, a, b);
    case SIOT_X_SEQL:
        return w_runs(w, c, a, b);
    default: /* per-rank tables and the job's last forms: never a single rank's */
        return siot_x_equal(a, b) && siot_x_equal(c, a) ? 0 : fail(w, "a value of kind %u differs", a->tag);
    }
}

static int w_nodes(walk *w, siot_node **c, siot_node *const *a, siot_node *const *b, uint32_t n);

static int w_event(walk *w, siot_event *c, const siot_event *a, const siot_event *b)
{
    if (a->func != b->func || c->func != a->func || a->site != b->site || c->site != a->site ||
        a->nargs != b->nargs || c->nargs != a->nargs)
        return fail(w, "the ranks made different calls");
    if (w_expr(w, c->thread, a->thread, b->thread) || w_expr(w, c->parent, a->parent, b->parent) ||
        w_expr(w, c->ret, a->ret, b->ret) || w_expr(w, c->err, a->err, b->err) ||
        w_expr(w, c->bytes, a->bytes, b->bytes))
        return -1;
    for (uint32_t i = 0; i < a->nargs; i++)
        if (w_expr(w, c->args[i], a->args[i], b->args[i]) != 0)
            return -1;
    return 0;
}

static int w_node(walk *w, siot_node *c, const siot_node *a, const siot_node *b)
{
    if (a->kind != b->kind || c->kind != a->kind)
        return fail(w, "the ranks' traces differ in structure");
    if (!w->check && siot_rl_single(w->arena, &c->ranks, (int32_t)w->r) != 1)
        return fail(w, "out of memory");
    if (a->kind == SIOT_N_EVENT)
        return w_event(w, &c->u.ev, &a->u.ev, &b->u.ev);
    if (a->u.loop.nbody != b->u.loop.nbody || c->u.loop.nbody != a->u.loop.nbody)
        return fail(w, "loops with different bodies");
    if (w_expr(w, c->u.loop.count, a->u.loop.count, b->u.loop.count) != 0)
        return -1;
    return w_nodes(w, c->u.loop.body, a->u.loop.body, b->u.loop.body, a->u.loop.nbody);
}

static int w_nodes(walk *w, siot_node **c, siot_node *const *a, siot_node *const *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (w_node(w, c[i], a[i], b[i]) != 0)
            return -1;
    return 0;
}

/* The function, module and call-site tables: the same in all three (the
 * events' indexes point into them). */
static int same_tables(walk *w, const siot_trace *c, const siot_trace *a, const siot_trace *b)
{
    const siot_trace *o[2] = {b, c};
    for (int k = 0; k < 2; k++) {
        const siot_trace *t = o[k];
        if (t->nranks != a->nranks || t->nfuncs != a->nfuncs || t->nmodules != a->nmodules ||
            t->nsites != a->nsites || t->ntop != a->ntop)
            return fail(w, "the traces' tables or sizes differ");
        for (uint32_t i = 0; i < a->nfuncs; i++)
            if (strcmp(t->funcs[i].name, a->funcs[i].name) != 0)
                return fail(w, "function tables differ (%s, %s)", t->funcs[i].name, a->funcs[i].name);
        for (uint32_t i = 0; i < a->nmodules; i++)
            if (strcmp(t->modules[i], a->modules[i]) != 0)
                return fail(w, "module tables differ");
        for (uint32_t i = 0; i < a->nsites; i++)
            if (t->sites[i].depth != a->sites[i].depth ||
                memcmp(t->sites[i].addrs, a->sites[i].addrs, a->sites[i].depth * sizeof *a->sites[i].addrs) != 0)
                return fail(w, "call-site tables differ");
    }
    return 0;
}

static int walk_all(walk *w, siot_trace *c, const siot_trace *a, const siot_trace *b)
{
    if (w->ra == w->rb)
        return fail(w, "two different ranks are needed");
    if (same_tables(w, c, a, b) != 0 || w_nodes(w, c->top, a->top, b->top, a->ntop) != 0)
        return -1;
    if (!w->check)
        for (uint32_t i = 0; i < c->nrt; i++)
            c->rt[i].rank = (int32_t)w->r;
    return 0;
}

int siot_rerank(siot_trace *c, const siot_trace *a, int32_t ra, const siot_trace *b, int32_t rb, int32_t r, char *why,
                size_t n)
{
    walk w = {ra, rb, r, 0, &c->arena, why, n};
    return walk_all(&w, c, a, b);
}

int siot_rerank_check(const siot_trace *c, int32_t rc, const siot_trace *a, int32_t ra, const siot_trace *b,
                      int32_t rb, char *why, size_t n)
{
    walk w = {ra, rb, rc, 1, NULL, why, n};
    /* check mode writes nothing: c is only compared */
    return walk_all(&w, (siot_trace *)c, a, b);
}
