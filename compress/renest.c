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

/* A run of an SEQL at level d after joining the runs that continue one
 * another's progression: the fold may cut a progression in two (a run of
 * one iteration, whose stride is free, then the rest), and a cut that is
 * no boundary of the nest must not hide it. Iterations [start, end). */
typedef struct mrun {
    uint64_t start, end;
    affine f;
} mrun;

/* Whether g (len iterations) continues m: the same but for the base, which
 * goes on from m's progression; a run of one iteration takes the other's
 * stride (its own is never used). */
static int continues(mrun *m, affine *g, uint64_t len, unsigned d)
{
    uint64_t mlen = m->end - m->start;
    if (mlen == 1 && len == 1)
        m->f.coef[d] = g->base - m->f.base;
    else if (mlen == 1)
        m->f.coef[d] = g->coef[d];
    if (len == 1)
        g->coef[d] = m->f.coef[d];
    return same_but_base(&m->f, g) && g->base == m->f.base + m->f.coef[d] * mlen;
}

/* The next joined run from run *i: 1, 0 at the end, -1 when a run is not
 * affine. */
static int next_mrun(const siot_expr *x, unsigned d, uint32_t *i, mrun *m)
{
    if (*i >= x->n)
        return 0;
    const siot_run *r = x->u.runs;
    m->start = r[*i].start;
    m->end = *i + 1 < x->n ? r[*i + 1].start : x->len;
    if (!run_affine(&r[(*i)++], d, &m->f))
        return -1;
    for (; *i < x->n; (*i)++) {
        mrun keep = *m;
        affine g;
        uint64_t end = *i + 1 < x->n ? r[*i + 1].start : x->len;
        if (!run_affine(&r[*i], d, &g) || !continues(m, &g, end - r[*i].start, d)) {
            *m = keep; /* a stride tried for a run of one iteration goes */
            break;
        }
        m->end = end;
    }
    return 1;
}

/* The values of an SEQL over the loop being split at its iterations
 * c*k + o (c the new outer iteration; one piece of the inner loop each),
 * as groups of consecutive c whose bases step evenly. ng, or 0 when the
 * runs differ in more than their bases (from ref, whose stride a run of
 * one iteration takes). */
static uint32_t piece_groups(rewrite *w, const siot_expr *x, unsigned d, const affine *ref, uint64_t o, rgroup *g)
{
    uint32_t ng = 0, i = 0;
    mrun m;
    int more;
    while ((more = next_mrun(x, d, &i, &m)) > 0) {
        if (m.end - m.start == 1)
            m.f.coef[d] = d < ref->n ? ref->coef[d] : 0;
        if (!same_but_base(ref, &m.f))
            return 0;
        if (m.end <= o) /* the first run may end before the piece's first iteration */
            continue;
        uint64_t c0 = m.start <= o ? 0 : (m.start - o + w->k - 1) / w->k, c1 = (m.end - 1 - o) / w->k + 1;
        if (c1 <= c0)
            continue;
        uint64_t b = m.f.base + m.f.coef[d] * (c0 * w->k + o - m.start), n = c1 - c0, inside = m.f.coef[d] * w->k;
        if (ng && join_group(&g[ng - 1], c0, n, b, inside))
            continue;
        g[ng++] = (rgroup){c0, b, inside, n > 1};
    }
    return more < 0 ? 0 : ng;
}

/* The groups as one expression over the two levels: one progression in
 * the outer iteration (an AFFINE) or progressions by pieces (an SEQL over
 * the outer loop, which the outer loop's own split may fold in turn).
 * split is the runs' shared affine with level d split. */
static siot_expr *groups_expr(rewrite *w, affine split, const rgroup *g, uint32_t ng, unsigned d)
{
    if (ng == 1) {
        split.base = g[0].base;
        split.coef[d + 1] = g[0].stepped ? g[0].step : 0;
        return new_affine(w, &split);
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
        split.base = g[i].base;
        split.coef[d + 1] = g[i].stepped ? g[i].step : 0; /* of the outer iteration counted from the run's start */
        runs[i].start = g[i].start1;
        if (!(runs[i].x = new_affine(w, &split)))
            return NULL;
    }
    return c;
}

/* The phase of an SEQL over the loop: every joined run after the first
 * starts at the same iteration q of an inner loop of k (q < k); the
 * stride of the first run longer than one iteration in *ref.
 * UINT64_MAX when they do not, or a run is not affine. */
static uint64_t seql_phase(const siot_expr *x, unsigned d, uint64_t k, affine *ref)
{
    uint64_t q = 0;
    uint32_t i = 0, nr = 0;
    int more, found = 0;
    mrun m;
    while ((more = next_mrun(x, d, &i, &m)) > 0) {
        if (nr++ == 1)
            q = m.start % k;
        if (nr > 1 && m.start % k != q)
            return UINT64_MAX;
        if (!found || (found == 1 && m.end - m.start > 1)) { /* the first longer than one iteration */
            *ref = m.f;
            found = m.end - m.start > 1 ? 2 : 1;
        }
    }
    return more < 0 || !found ? UINT64_MAX : q;
}

/* An SEQL over the loop being split: the runs (joined) must start at one
 * phase q of the inner loop (so that no run ends inside the inner
 * iterations [0, q) or [q, k) of an outer one) with one stride and the
 * same dependence on the rank and the other loops. For q = 0 each value
 * is base(i1) + stride*i0; otherwise (the inner boundary falls in the
 * middle of the body: a `write, lseek` body whose lseek goes to the next
 * transfer) the value is an SEQL over the inner loop of two runs, [0, q)
 * and [q, k), each of that form. */
static siot_expr *rx_seql_here(rewrite *w, const siot_expr *x, unsigned d)
{
    affine ref;
    uint64_t q = x->len == w->count ? seql_phase(x, d, w->k, &ref) : UINT64_MAX;
    rgroup *g = q != UINT64_MAX ? siot_arena_alloc(w->a, x->n * sizeof *g) : NULL;
    if (!g)
        return q != UINT64_MAX ? (w->failed = 1, NULL) : NULL;
    affine split = ref;
    split_affine(&split, d, w->k);
    uint32_t ng = piece_groups(w, x, d, &ref, 0, g);
    uint64_t stride = split.coef[d];
    if (q == 1) /* a piece of one iteration, whose own is always 0 */
        split.coef[d] = 0;
    siot_expr *low = ng ? groups_expr(w, split, g, ng, d) : NULL;
    if (!low || !q)
        return low;
    ng = piece_groups(w, x, d, &ref, q, g);
    split.coef[d] = w->k - q == 1 ? 0 : stride;
    siot_expr *high = ng ? groups_expr(w, split, g, ng, d) : NULL;
    siot_expr *c = high ? siot_arena_alloc(w->a, sizeof *c) : NULL;
    siot_run *runs = c ? siot_arena_alloc(w->a, 2 * sizeof *runs) : NULL;
    if (!runs)
        return high ? (w->failed = 1, NULL) : NULL;
    c->tag = SIOT_X_SEQL;
    c->level = (uint8_t)d;
    c->len = w->k;
    c->n = 2;
    c->u.runs = runs;
    runs[0].x = low;
    runs[1].start = q;
    runs[1].x = high; /* evaluated with i0 - q: the piece's own iteration */
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
        if (SIOT_REGROW(w->slot, cap) || SIOT_REGROW(w->val, cap)) {
            w->failed = 1;
            return;
        }
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

/* The inner length an SEQL over the loop suggests (0: none found), from
 * its joined runs' starts. In phase (phased = 0), their gcd. Out of
 * phase, the gcd of the distances between the starts after the first,
 * when the first is not a multiple of it: runs at 63, 127, 191, ...
 * suggest 64 (phase 63). */
static uint64_t seql_period(const siot_expr *x, unsigned d, int phased)
{
    if (!x)
        return 0;
    uint64_t g = 0, first = 0, prev = 0;
    if (x->tag == SIOT_X_SEQL && x->level == d) {
        uint32_t i = 0, nr = 0;
        int more;
        mrun m;
        while ((more = next_mrun(x, d, &i, &m)) > 0) {
            if (nr++ == 1)
                first = m.start;
            if (nr > 1)
                g = gcd(g, phased ? (nr > 2 ? m.start - prev : 0) : m.start);
            prev = m.start;
        }
        return more < 0 || (phased && (nr < 3 || first % g == 0)) ? 0 : g;
    }
    if (x->tag == SIOT_X_SEQL) /* over another loop: its pieces may hold one over this */
        for (uint32_t i = 0; i < x->n && !g; i++)
            g = seql_period(x->u.runs[i].x, d, phased);
    if (x->tag == SIOT_X_RANKED || x->tag == SIOT_X_STR || x->tag == SIOT_X_SEQ || x->tag == SIOT_X_ARRAY)
        for (uint32_t i = 0; i < x->n && !g; i++)
            g = seql_period(x->tag == SIOT_X_RANKED ? x->u.ranked[i].x
                            : x->tag == SIOT_X_STR  ? x->u.segs[i].field
                                                    : x->u.items[i], d, phased);
    return g;
}

static uint64_t body_period(const siot_node *n, unsigned d, int phased)
{
    if (n->kind == SIOT_N_LOOP) {
        uint64_t g = seql_period(n->u.loop.count, d, phased);
        for (uint32_t i = 0; i < n->u.loop.nbody && !g; i++)
            g = body_period(n->u.loop.body[i], d + 1, phased);
        return g;
    }
    const siot_event *e = &n->u.ev;
    uint64_t g = seql_period(e->ret, d, phased);
    if (!g)
        g = seql_period(e->bytes, d, phased);
    for (uint32_t i = 0; i < e->nargs && !g; i++)
        g = seql_period(e->args[i], d, phased);
    return g;
}

/* Splits loop n into count/k iterations of a loop of k when every value of
 * its body can be written over the two; 1 when it did. k comes from the
 * run starts in phase with the inner loop, or (phased) out of it. */
static int split_loop(siot_arena *a, siot_node *n, int phased)
{
    const siot_expr *cx = n->u.loop.count;
    if (!cx || cx->tag != SIOT_X_CONST || cx->base < 4)
        return 0;
    uint64_t count = (uint64_t)cx->base, k = 0;
    for (uint32_t i = 0; i < n->u.loop.nbody && !k; i++)
        k = body_period(n->u.loop.body[i], 0, phased);
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
    /* the outer loop may split again (a third level); the boundary in the
     * middle of the body is tried when the one in phase does not split */
    while (split_loop(a, n, 0) || split_loop(a, n, 1))
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
