/* rankfold: per-rank tables rewritten by the rank's residue
 * (compress/rankfold.h). */
#include "compress/rankfold.h"

#include <string.h>

#include "core/expr.h"
#include "core/format.h"
#include "core/ranklist.h"
#include "core/salloc.h"
#include "compress/xmerge.h"

#define MAX_PERIOD 64
#define MAX_SPAN (1 << 20) /* ranks looked at per table */

/* The loop terms every entry of a table shares (offset = f(rank) +
 * 1000*i0 on every rank): the entries' values then differ by a function of
 * the rank alone, which is what the fits below look at. */
typedef struct tail {
    uint32_t n;
    const int64_t *coef;
} tail;

static int same_tail(const siot_expr *e, const tail *t)
{
    uint32_t n = siot_x_nloops(e) > t->n ? siot_x_nloops(e) : t->n;
    for (uint32_t k = 0; k < n; k++)
        if (siot_x_coef(e, k) != (k < t->n ? t->coef[k] : 0))
            return 0;
    return 1;
}

/* A per-rank table whose entries are functions of the rank (no occurrence)
 * plus the same loop terms: the only kind whose value per rank is one
 * integer besides those terms. */
static int rank_function(const siot_expr *x, tail *t)
{
    if (x->tag != SIOT_X_RANKED || x->n < 2)
        return 0;
    const siot_expr *first = x->u.ranked[0].x;
    t->n = first ? siot_x_nloops(first) : 0;
    t->coef = t->n ? first->u.coef : NULL;
    for (uint32_t i = 0; i < x->n; i++) {
        const siot_expr *e = x->u.ranked[i].x;
        if (!e || !siot_x_affinish(e) || !same_tail(e, t))
            return 0;
    }
    return 1;
}

typedef struct rvals {
    int32_t lo;
    uint32_t span;
    uint8_t *have;
    int64_t *v;
    tail t;
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

/* base + step*rank and the table's loop terms (a copy of them: nothing in
 * a trace shares arrays). */
static siot_expr *value_of_rank(siot_arena *a, const tail *t, int64_t base, int64_t step)
{
    siot_expr *x = rank_affine(a, base, step);
    if (!x || !t->n)
        return x;
    int64_t *coef = siot_arena_alloc(a, t->n * sizeof *coef);
    if (!coef)
        return NULL;
    memcpy(coef, t->coef, t->n * sizeof *coef);
    x->tag = SIOT_X_AFFINE;
    x->n = t->n;
    x->u.coef = coef;
    return x;
}

/* The value by residue mod m: an entry per class, in the order of the
 * residues (a class without ranks is never evaluated: 0). Cheaper than a
 * table of strided rank lists, and the same at any rank count. */
static siot_expr *by_residue(siot_arena *a, const rvals *r, uint32_t m, const int64_t *base, const int64_t *step)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    siot_expr **items = x ? siot_arena_alloc(a, m * sizeof *items) : NULL;
    if (!items)
        return NULL;
    x->tag = SIOT_X_RMOD;
    x->n = m;
    x->u.items = items;
    /* class c of fits_period holds the ranks lo + c + k*m */
    for (uint32_t c = 0; c < m; c++)
        if (!(items[((uint32_t)r->lo + c) % m] = value_of_rank(a, &r->t, base[c], step[c])))
            return NULL;
    return x;
}

/* Whether y takes fewer bytes in the file than x (a merge in another order
 * can leave two entries of strided rank lists where a residue takes three
 * constants). */
static int smaller(const siot_expr *y, const siot_expr *x)
{
    siot_vbuf scratch;
    siot_vbuf_init(&scratch);
    size_t a = siot_expr_size(y, &scratch), b = siot_expr_size(x, &scratch);
    int ok = !scratch.oom && a < b;
    siot_vbuf_free(&scratch);
    return ok;
}

/* ---- pieces in the rank ----
 * The pairwise merge cuts a table where its reduction tree does, not where
 * the values change: a grid's north neighbours on 9 ranks (-2 on ranks 0-2,
 * rank-3 on the rest) end as {r0-1:-2 r2-3:-6+2*rank r4-8:-3+1*rank}. Cut
 * again, each piece the longest run of present ranks on one line from where
 * the last one ended: {r0-2:-2 r3-8:-3+1*rank}. */

/* The next present rank's index after at, or r->span. */
static uint32_t next_present(const rvals *r, uint32_t at)
{
    while (++at < r->span && !r->have[at])
        ;
    return at;
}

static int on_line(const rvals *r, uint32_t at0, int64_t step, uint32_t at)
{
    return (uint64_t)r->v[at0] + (uint64_t)step * (uint64_t)(int64_t)(at - at0) == (uint64_t)r->v[at];
}

/* The piece starting at at0 (present): its end (the index after its last
 * rank) and its slope. */
static uint32_t piece_from(const rvals *r, uint32_t at0, int64_t *step)
{
    uint32_t at1 = next_present(r, at0);
    *step = 0;
    if (at1 == r->span)
        return at1;
    int64_t d = r->v[at1] - r->v[at0], gap = (int64_t)(at1 - at0);
    *step = d / gap;
    if (!on_line(r, at0, *step, at1)) {
        *step = 0;
        return at1;
    }
    uint32_t end = next_present(r, at1);
    while (end < r->span && on_line(r, at0, *step, end))
        end = next_present(r, end);
    return end;
}

static int piece_entry(siot_arena *a, const rvals *r, uint32_t at0, uint32_t end, int64_t step, int32_t *ranks,
                       siot_rankedent *e)
{
    uint32_t n = 0;
    for (uint32_t at = at0; at < end; at = next_present(r, at))
        ranks[n++] = r->lo + (int32_t)at;
    int64_t rank0 = r->lo + (int64_t)at0;
    e->x = value_of_rank(a, &r->t, (int64_t)((uint64_t)r->v[at0] - (uint64_t)step * (uint64_t)rank0), step);
    return e->x && siot_rl_from_sorted(a, &e->rl, ranks, n);
}

static siot_expr *piecewise(siot_arena *a, const rvals *r)
{
    uint32_t n = 0, first = r->have[0] ? 0 : next_present(r, 0);
    int64_t step;
    for (uint32_t at = first; at < r->span; at = piece_from(r, at, &step))
        n++;
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    siot_rankedent *ents = x && n ? siot_arena_alloc(a, n * sizeof *ents) : NULL;
    int32_t *ranks = ents ? siot_calloc(r->span, sizeof *ranks) : NULL;
    if (!ranks)
        return NULL;
    x->tag = SIOT_X_RANKED;
    x->n = n;
    x->u.ranked = ents;
    uint32_t i = 0;
    int ok = 1;
    for (uint32_t at = first, end; ok && at < r->span; at = end) {
        end = piece_from(r, at, &step);
        ok = piece_entry(a, r, at, end, step, ranks, &ents[i++]);
    }
    siot_free(ranks);
    return ok ? x : NULL;
}

/* ---- the rank's quotient, and its decimal digits ----
 * Ranks in groups of m (the ranks of a node, a process grid's rows): a
 * communicator's colour rank/m, a group's file "group-<rank/m>.dat", an
 * offset (rank%m)*s + (rank/m)*S. A value c*rank + d*(rank/m) + base is a
 * progression in each residue class only when d is a multiple of m; as a
 * value by quotient (SIOT_X_RDIV) it is one expression at any rank count.
 * Ranks grouped by their decimal digits (0-9, 10-99, 100-999, ...): the
 * bytes of a line that prints the rank ("rank %d\n"), the length of a name
 * that holds it; c*rank + d*(digits - 1) + base as a value by digits
 * (SIOT_X_RDIG), one expression where a per-rank table gains an entry
 * with each power of ten. */

/* The group of rank lo + at: its quotient by m, or (m = 0) its decimal
 * digits less one. */
static uint64_t group_of(const rvals *r, uint32_t at, uint32_t m)
{
    uint64_t rank = (uint64_t)(r->lo + (int64_t)at);
    return m ? rank / m : siot_decimal_digits(rank) - 1;
}

/* The slope inside a group: from the first two present ranks of one group.
 * 0 when no group has two (then any slope fits within the groups). */
static int group_slope(const rvals *r, uint32_t m, int64_t *c)
{
    *c = 0;
    for (uint32_t at = next_present(r, (uint32_t)-1), nx; at < r->span; at = nx) {
        nx = next_present(r, at);
        if (nx < r->span && group_of(r, at, m) == group_of(r, nx, m)) {
            int64_t d = (int64_t)((uint64_t)r->v[nx] - (uint64_t)r->v[at]), gap = (int64_t)(nx - at);
            *c = d / gap;
            return (int64_t)((uint64_t)*c * (uint64_t)gap) == d;
        }
    }
    return 1;
}

/* Whether v = base + c*rank + d*group at every present rank, for the c, d
 * and base found from the first ranks of two groups. */
static int fits_groups(const rvals *r, uint32_t m, int64_t *base, int64_t *c, int64_t *d)
{
    uint32_t at0 = next_present(r, (uint32_t)-1), at1 = at0;
    if (at0 >= r->span || !group_slope(r, m, c))
        return 0;
    while (at1 < r->span && group_of(r, at1, m) == group_of(r, at0, m))
        at1 = next_present(r, at1);
    if (at1 >= r->span) /* one group: not a quotient */
        return 0;
    uint64_t q0 = group_of(r, at0, m), q1 = group_of(r, at1, m);
    int64_t rest = (int64_t)((uint64_t)r->v[at1] - (uint64_t)r->v[at0] - (uint64_t)*c * (at1 - at0));
    *d = rest / (int64_t)(q1 - q0);
    if (*d == 0 || (int64_t)((uint64_t)*d * (q1 - q0)) != rest)
        return 0;
    int64_t rank0 = r->lo + (int64_t)at0;
    *base = (int64_t)((uint64_t)r->v[at0] - (uint64_t)*c * (uint64_t)rank0 - (uint64_t)*d * q0);
    for (uint32_t at = at0; at < r->span; at = next_present(r, at)) {
        uint64_t want = (uint64_t)*base + (uint64_t)*c * (uint64_t)(r->lo + (int64_t)at) + (uint64_t)*d * group_of(r, at, m);
        if (want != (uint64_t)r->v[at])
            return 0;
    }
    return 1;
}

/* A value by quotient (m >= 2) or by digits (m = 0): tag, m, d and the
 * inner base + c*rank with the table's loop terms. */
static siot_expr *by_group(siot_arena *a, const rvals *r, uint32_t m, int64_t base, int64_t c, int64_t d)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    siot_expr **items = x ? siot_arena_alloc(a, sizeof *items) : NULL;
    if (!items || !(items[0] = value_of_rank(a, &r->t, base, c)))
        return NULL;
    x->tag = m ? SIOT_X_RDIV : SIOT_X_RDIG;
    x->n = 1;
    x->len = m;
    x->sum = d;
    x->u.items = items;
    return x;
}

/* The value by quotient for the smallest group size that fits (groups of
 * 2..MAX_PERIOD ranks, at least two groups), or NULL. */
static siot_expr *by_quotient(siot_arena *a, const rvals *r)
{
    for (uint32_t m = 2; m <= MAX_PERIOD && m < r->span; m++) {
        int64_t base, c, d;
        if (fits_groups(r, m, &base, &c, &d))
            return by_group(a, r, m, base, c, d);
    }
    return NULL;
}

/* The value by the rank's decimal digits, or NULL. */
static siot_expr *by_digits(siot_arena *a, const rvals *r)
{
    int64_t base, c, d;
    return fits_groups(r, 0, &base, &c, &d) ? by_group(a, r, 0, base, c, d) : NULL;
}

/* x rewritten by the smallest period, by quotient, by digits, or cut again in pieces,
 * whichever takes fewest bytes when fewer than x, or x. */
static siot_expr *refold(siot_arena *a, siot_expr *x)
{
    rvals r = {0, 0, NULL, NULL, {0, NULL}};
    if (!rank_function(x, &r.t))
        return x;
    siot_expr *out = x;
    if (values_of(x, &r) == 0) {
        int64_t base[MAX_PERIOD], step[MAX_PERIOD];
        uint32_t m = 1;
        while (m <= MAX_PERIOD && m * 2 <= r.span && !fits_period(&r, m, base, step))
            m++;
        siot_expr *y = m > MAX_PERIOD || m * 2 > r.span ? NULL
                       : m == 1                         ? value_of_rank(a, &r.t, base[0], step[0])
                                                        : by_residue(a, &r, m, base, step);
        if (y && (m == 1 || smaller(y, x)))
            out = y;
        siot_expr *q = m == 1 && y ? NULL : by_quotient(a, &r);
        if (q && smaller(q, out))
            out = q;
        siot_expr *g = m == 1 && y ? NULL : by_digits(a, &r);
        if (g && smaller(g, out))
            out = g;
        siot_expr *z = m == 1 && y ? NULL : piecewise(a, &r);
        if (z && smaller(z, out))
            out = z;
    }
    siot_free(r.have);
    siot_free(r.v);
    return out;
}

/* ---- arrays of request ids: first + step*j ----
 * A batch of n non-blocking calls completed by one MPI_Waitall passes it the
 * ids of those n requests, consecutive: an array as long as the batch, and,
 * when n depends on the rank, a per-rank table of such arrays. Written as a
 * range (length, first, step), its size no longer depends on n; the length
 * is then a value of the rank like any other. */

typedef struct arith {
    uint32_t n;
    const siot_expr *first;
    int64_t step;
} arith;

/* a and b constants or progressions that differ in their base alone */
static int same_but_base(const siot_expr *a, const siot_expr *b)
{
    return siot_x_affinish(a) && siot_x_affinish(b) && siot_x_same_loops(a, b) && siot_x_rcoef(a) == siot_x_rcoef(b);
}

/* Whether the array x is first + step*j element by element. */
static int arith_of(const siot_expr *x, arith *q)
{
    if (!x || x->tag != SIOT_X_ARRAY)
        return 0;
    q->n = x->n;
    q->first = x->n ? x->u.items[0] : NULL;
    q->step = 0;
    for (uint32_t j = 0; j < x->n; j++) {
        const siot_expr *e = x->u.items[j];
        if (!e || !same_but_base(e, q->first))
            return 0;
        uint64_t d = (uint64_t)e->base - (uint64_t)q->first->base;
        if (j == 1)
            q->step = (int64_t)d;
        else if (j > 1 && d != (uint64_t)q->step * j)
            return 0;
    }
    return 1;
}

static siot_expr *range_x(siot_arena *a, siot_expr *len, const siot_expr *first, int64_t step)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    siot_expr **items = x ? siot_arena_alloc(a, 3 * sizeof *items) : NULL;
    if (!items || !len || !(items[2] = rank_affine(a, step, 0)))
        return NULL;
    x->tag = SIOT_X_RANGE;
    x->n = 3;
    x->u.items = items;
    items[0] = len;
    items[1] = (siot_expr *)first; /* shared: the arena owns both */
    return x;
}

/* A per-rank table of arrays with one first element and one step: one
 * range whose length is the table of their lengths (then refolded). */
static siot_expr *ranked_range(siot_arena *a, siot_expr *x)
{
    const siot_expr *first = NULL;
    int64_t step = 0;
    int stepped = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        arith q;
        if (!arith_of(x->u.ranked[i].x, &q) || (q.n && first && !siot_x_equal(first, q.first)) ||
            (q.n > 1 && stepped && q.step != step))
            return x;
        first = q.n ? q.first : first;
        stepped |= q.n > 1;
        step = q.n > 1 ? q.step : step;
    }
    siot_expr *lens = siot_arena_alloc(a, sizeof *lens);
    siot_rankedent *ents = lens ? siot_arena_alloc(a, x->n * sizeof *ents) : NULL;
    if (!stepped || !ents)
        return x;
    lens->tag = SIOT_X_RANKED;
    lens->n = x->n;
    lens->u.ranked = ents;
    for (uint32_t i = 0; i < x->n; i++) {
        ents[i].rl = x->u.ranked[i].rl;
        if (!(ents[i].x = rank_affine(a, x->u.ranked[i].x->n, 0)))
            return x;
    }
    siot_expr *y = range_x(a, refold(a, lens), first, step);
    return y ? y : x;
}

static siot_expr *to_range(siot_arena *a, siot_expr *x)
{
    arith q;
    if (arith_of(x, &q)) {
        siot_expr *y = q.n >= 3 ? range_x(a, rank_affine(a, q.n, 0), q.first, q.step) : NULL;
        return y ? y : x;
    }
    return x->tag == SIOT_X_RANKED ? ranked_range(a, x) : x;
}

/* The value in a slot, and those inside its sequences and run tables. */
static uint32_t refold_slot(siot_arena *a, siot_expr **slot);

static uint32_t refold_items(siot_arena *a, siot_expr *x)
{
    uint32_t done = 0;
    for (uint32_t i = 0; i < x->n; i++)
        done += refold_slot(a, &x->u.items[i]);
    return done;
}

static uint32_t refold_slot(siot_arena *a, siot_expr **slot)
{
    siot_expr *x = *slot;
    if (!x)
        return 0;
    uint32_t done = x->tag == SIOT_X_SEQ ? refold_items(a, x) : 0;
    if (x->tag == SIOT_X_SEQL)
        for (uint32_t i = 0; i < x->n; i++)
            done += refold_slot(a, &x->u.runs[i].x);
    if (x->tag == SIOT_X_STR) /* "group-{rank/4}.dat" */
        for (uint32_t i = 0; i < x->n; i++)
            if (x->u.segs[i].is_field)
                done += refold_slot(a, &x->u.segs[i].field);
    siot_expr *y = refold(a, to_range(a, x));
    if (y != x) {
        *slot = y;
        return done + 1;
    }
    /* Arrays of per-rank values (a Waitall's statuses: each element the
     * neighbour's rank) and per-rank tables of arrays (a root's Gatherv
     * counts and displacements, one element per rank) fold element by
     * element, when the whole did not fold as one. */
    if (x->tag == SIOT_X_ARRAY)
        done += refold_items(a, x);
    if (x->tag == SIOT_X_RANKED)
        for (uint32_t i = 0; i < x->n; i++)
            done += refold_slot(a, &x->u.ranked[i].x);
    return done;
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
