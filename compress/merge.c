#include "compress/merge.h"
#include "core/salloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/format.h"
#include "core/hash.h"
#include "core/hist.h"
#include "core/ranklist.h"
#include "compress/xmerge.h"

/* ------------------------------------------------------------ tables */

/* A node's shape is hashed as the recorder hashes it (compress/queue.c):
 * one siot_hash_mix (core/hash.h) for both. */

static int same_site(const siot_site *a, const siot_site *b)
{
    return a->depth == b->depth && memcmp(a->addrs, b->addrs, a->depth * sizeof *a->addrs) == 0;
}

/* Unites src's function, module and site tables into dst's (by name, path
 * and content) and renumbers src's nodes. */
typedef struct maps {
    uint32_t *func; /* src index -> dst index */
    uint32_t *site; /* src site + 1 -> dst site + 1 */
} maps;

static void remap(siot_node *n, const maps *m)
{
    if (n->kind == SIOT_N_EVENT) {
        n->u.ev.func = m->func[n->u.ev.func];
        n->u.ev.site = m->site[n->u.ev.site];
        return;
    }
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        remap(n->u.loop.body[i], m);
}

static int unify_tables(siot_trace *dst, siot_trace *src)
{
    siot_arena *a = &dst->arena;
    maps m = {siot_calloc(src->nfuncs + 1, sizeof(uint32_t)), siot_calloc(src->nsites + 1, sizeof(uint32_t))};
    uint32_t *mmod = siot_calloc(src->nmodules + 1, sizeof *mmod);
    siot_funcdesc *funcs = siot_arena_alloc(a, (dst->nfuncs + src->nfuncs + 1) * sizeof *funcs);
    const char **mods = siot_arena_alloc(a, (dst->nmodules + src->nmodules + 1) * sizeof *mods);
    siot_site *sites = siot_arena_alloc(a, (dst->nsites + src->nsites + 1) * sizeof *sites);
    int rc = -1;
    if (!m.func || !m.site || !mmod || !funcs || !mods || !sites)
        goto out;
    if (dst->nfuncs)
        memcpy(funcs, dst->funcs, dst->nfuncs * sizeof *funcs);
    uint32_t nf = dst->nfuncs;
    if (siot_unite_funcs(funcs, &nf, src->funcs, src->nfuncs, m.func) != 0) {
        rc = SIOT_E_CONFLICT;
        goto out;
    }
    if (dst->nmodules)
        memcpy(mods, dst->modules, dst->nmodules * sizeof *mods);
    uint32_t nm = dst->nmodules;
    siot_unite_names(mods, &nm, src->modules, src->nmodules, mmod);
    if (dst->nsites)
        memcpy(sites, dst->sites, dst->nsites * sizeof *sites);
    uint32_t ns = dst->nsites;
    for (uint32_t i = 0; i < src->nsites; i++) {
        siot_site *s = &src->sites[i];
        for (uint32_t k = 0; k < s->depth; k++) {
            uint32_t mo = SIOT_ADDR_MODULE(s->addrs[k]);
            s->addrs[k] = SIOT_ADDR(mo < src->nmodules ? mmod[mo] : mo, SIOT_ADDR_OFFSET(s->addrs[k]));
        }
        /* Linear search is fine: a program has few call sites. */
        uint32_t j = 0;
        while (j < ns && !same_site(&sites[j], s))
            j++;
        if (j == ns)
            sites[ns++] = *s;
        m.site[i + 1] = j + 1;
    }
    for (uint32_t i = 0; i < src->ntop; i++)
        remap(src->top[i], &m);
    /* Field by field, as compress/queue.c's siot_queue_free and
     * src/handles.c's grow name theirs: a list of assignments that must
     * name each field, not a copy of an idea. */
    dst->funcs = funcs;
    dst->nfuncs = nf;
    dst->modules = mods;
    dst->nmodules = nm;
    dst->sites = sites;
    dst->nsites = ns;
    rc = 0;
out:
    siot_free(m.func);
    siot_free(m.site);
    siot_free(mmod);
    return rc;
}

/* ------------------------------------------------------------ structure */

static uint64_t hash_node(siot_node *n)
{
    uint64_t h;
    if (n->kind == SIOT_N_EVENT) {
        const siot_expr *t = n->u.ev.thread;
        uint64_t th = t && t->tag == SIOT_X_CONST ? (uint64_t)t->base : 0x7468;
        h = siot_hash_mix(siot_hash_mix(siot_hash_mix(0x5349, n->u.ev.func), n->u.ev.site), th);
    } else {
        h = siot_hash_mix(0x4c4f4f50, n->u.loop.nbody);
        for (uint32_t i = 0; i < n->u.loop.nbody; i++)
            h = siot_hash_mix(h, hash_node(n->u.loop.body[i]));
    }
    n->hash = h;
    return h;
}

static int same_shape(const siot_node *a, const siot_node *b)
{
    if (a->kind != b->kind || a->hash != b->hash)
        return 0;
    if (a->kind == SIOT_N_EVENT)
        return a->u.ev.func == b->u.ev.func && a->u.ev.site == b->u.ev.site &&
               a->u.ev.nargs == b->u.ev.nargs && siot_x_equal(a->u.ev.thread, b->u.ev.thread);
    if (a->u.loop.nbody != b->u.loop.nbody)
        return 0;
    for (uint32_t i = 0; i < a->u.loop.nbody; i++)
        if (!same_shape(a->u.loop.body[i], b->u.loop.body[i]))
            return 0;
    return 1;
}

/* ------------------------------------------------------------ values across ranks */

/* (the affine accessors: core/model.h) */

/* like's loop terms with a new base and rank term, in the merged trace's
 * arena (freed as a whole). compress/xmerge.c's make_affine looks the
 * same and is not this: it adds a loop term, in the recorder's pool
 * (freed node by node). */
static siot_expr *affine(siot_arena *a, const siot_expr *like, int64_t base, int64_t rcoef)
{
    siot_expr *x = siot_arena_alloc(a, sizeof *x);
    if (!x)
        return NULL;
    uint32_t n = siot_x_nloops(like);
    x->tag = SIOT_X_AFFINE;
    x->base = base;
    x->rcoef = rcoef;
    x->n = n;
    if (n) {
        x->u.coef = siot_arena_alloc(a, n * sizeof(int64_t));
        if (!x->u.coef)
            return NULL;
        memcpy(x->u.coef, like->u.coef, n * sizeof(int64_t));
    }
    if (rcoef == 0 && n == 0)
        x->tag = SIOT_X_CONST;
    return x;
}

/* Value of an affinish expression at rank r, loops aside. */
static int64_t at_rank(const siot_expr *x, int64_t r) { return (int64_t)((uint64_t)x->base + (uint64_t)siot_x_rcoef(x) * (uint64_t)r); }

/* One line base + k*rank through a (on RA) and b (on RB), when there is one.
 * A value known on one rank only says nothing about its slope. */
static siot_expr *line_through(siot_arena *ar, const siot_expr *a, const siot_ranklist *RA, const siot_expr *b,
                               const siot_ranklist *RB)
{
    if (!siot_x_affinish(a) || !siot_x_affinish(b) || !siot_x_same_loops(a, b))
        return NULL;
    uint64_t na = siot_rl_size(RA), nb = siot_rl_size(RB);
    if (na == 0 || nb == 0)
        return NULL;
    if (na >= 2 && nb >= 2)
        return NULL; /* both lines known, and not equal (else the caller found them equal) */
    if (na >= 2) {
        int64_t rb = siot_rl_min(RB);
        return at_rank(a, rb) == at_rank(b, rb) ? (siot_expr *)a : NULL;
    }
    if (nb >= 2) {
        int64_t ra = siot_rl_min(RA);
        return at_rank(a, ra) == at_rank(b, ra) ? (siot_expr *)b : NULL;
    }
    int64_t ra = siot_rl_min(RA), rb = siot_rl_min(RB);
    int64_t va = at_rank(a, ra), vb = at_rank(b, rb);
    if (ra == rb)
        return NULL;
    __int128 dv = (__int128)vb - va, dr = (__int128)rb - ra;
    if (dv % dr != 0)
        return NULL;
    __int128 k = dv / dr, base = (__int128)va - k * ra;
    if (k > INT64_MAX || k < INT64_MIN || base > INT64_MAX || base < INT64_MIN)
        return NULL;
    return affine(ar, a, (int64_t)base, (int64_t)k);
}

typedef struct entries {
    siot_rankedent *e;
    uint32_t n, cap;
} entries;

static int push_entry(siot_arena *a, entries *es, const siot_ranklist *rl, siot_expr *x)
{
    /* An entry with the same value, or on the same line, absorbs the ranks. */
    for (uint32_t i = 0; i < es->n; i++) {
        siot_expr *y = siot_x_equal(es->e[i].x, x) ? es->e[i].x : line_through(a, es->e[i].x, &es->e[i].rl, x, rl);
        if (!y)
            continue;
        siot_ranklist u;
        if (!siot_rl_union(a, &u, &es->e[i].rl, rl))
            return -1;
        es->e[i].rl = u;
        es->e[i].x = y;
        return 0;
    }
    if (es->n == es->cap) {
        uint32_t cap = es->cap ? es->cap * 2 : 4;
        siot_rankedent *e = siot_arena_alloc(a, cap * sizeof *e);
        if (!e)
            return -1;
        if (es->n)
            memcpy(e, es->e, es->n * sizeof *e);
        es->e = e;
        es->cap = cap;
    }
    es->e[es->n].rl = *rl;
    es->e[es->n].x = x;
    es->n++;
    return 0;
}

static siot_expr *merge_value(siot_arena *ar, siot_expr *a, const siot_ranklist *RA, siot_expr *b,
                              const siot_ranklist *RB);

static int add_entries(siot_arena *ar, entries *es, siot_expr *x, const siot_ranklist *R)
{
    if (x->tag != SIOT_X_RANKED)
        return push_entry(ar, es, R, x);
    for (uint32_t i = 0; i < x->n; i++)
        if (push_entry(ar, es, &x->u.ranked[i].rl, x->u.ranked[i].x))
            return -1;
    return 0;
}

/* A run of an SEQL as an expression of its local iteration (at `level`). */
static siot_expr *run_expr(siot_arena *ar, const siot_expr *s, uint32_t i)
{
    const siot_run *r = &s->u.runs[i];
    if (r->x)
        return r->x;
    siot_expr *x = siot_arena_alloc(ar, sizeof *x);
    if (!x)
        return NULL;
    x->base = r->base;
    if (!r->stride) {
        x->tag = SIOT_X_CONST;
        return x;
    }
    x->tag = SIOT_X_AFFINE;
    x->n = s->level + 1u;
    x->u.coef = siot_arena_alloc(ar, x->n * sizeof(int64_t));
    if (!x->u.coef)
        return NULL;
    x->u.coef[s->level] = r->stride;
    return x;
}

/* Run tables with the same run boundaries (each rank's offsets of a strided
 * file: the same pattern, shifted by the rank) merge run by run; failing that
 * (a run that only a per-rank table could hold) the caller falls back. */
static siot_expr *merge_runs(siot_arena *ar, const siot_expr *a, const siot_ranklist *RA, const siot_expr *b,
                             const siot_ranklist *RB)
{
    if (a->level != b->level || a->len != b->len || a->n != b->n)
        return NULL;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->u.runs[i].start != b->u.runs[i].start)
            return NULL;
    siot_expr *x = siot_arena_alloc(ar, sizeof *x);
    siot_run *runs = x ? siot_arena_alloc(ar, a->n * sizeof *runs) : NULL;
    if (!runs)
        return NULL;
    *x = *a;
    x->u.runs = runs;
    x->cap = a->n;
    for (uint32_t i = 0; i < a->n; i++) {
        runs[i] = a->u.runs[i];
        const siot_run *ra = &a->u.runs[i], *rb = &b->u.runs[i];
        if (!ra->x && !rb->x && ra->base == rb->base && ra->stride == rb->stride)
            continue;
        siot_expr *pa = run_expr(ar, a, i), *pb = run_expr(ar, b, i);
        siot_expr *m = pa && pb ? merge_value(ar, pa, RA, pb, RB) : NULL;
        if (!m || m->tag == SIOT_X_RANKED)
            return NULL;
        runs[i].x = m;
        runs[i].base = runs[i].stride = 0;
    }
    return x;
}

static siot_expr *merge_value(siot_arena *ar, siot_expr *a, const siot_ranklist *RA, siot_expr *b,
                              const siot_ranklist *RB)
{
    if (siot_x_equal(a, b))
        return a;
    if (a->tag == SIOT_X_SEQL && b->tag == SIOT_X_SEQL) {
        siot_expr *m = merge_runs(ar, a, RA, b, RB);
        if (m)
            return m;
    }
    if (a->tag != SIOT_X_RANKED && b->tag != SIOT_X_RANKED) {
        siot_expr *l = line_through(ar, a, RA, b, RB);
        if (l)
            return l;
        /* Patterns with the same text and arrays of the same length merge part by part. */
        if (a->tag == SIOT_X_STR && b->tag == SIOT_X_STR && a->n == b->n) {
            int ok = 1;
            for (uint32_t i = 0; ok && i < a->n; i++) {
                const siot_strseg *s = &a->u.segs[i], *t = &b->u.segs[i];
                ok = s->is_field == t->is_field &&
                     (s->is_field ? s->zero_pad == t->zero_pad && s->width == t->width
                                  : s->len == t->len && memcmp(s->lit, t->lit, s->len) == 0);
            }
            if (ok) {
                siot_expr *x = siot_arena_alloc(ar, sizeof *x);
                siot_strseg *segs = x ? siot_arena_alloc(ar, a->n * sizeof *segs) : NULL;
                if (!segs)
                    return NULL;
                *x = *a;
                x->u.segs = segs;
                for (uint32_t i = 0; i < a->n; i++) {
                    segs[i] = a->u.segs[i];
                    if (segs[i].is_field &&
                        !(segs[i].field = merge_value(ar, a->u.segs[i].field, RA, b->u.segs[i].field, RB)))
                        return NULL;
                }
                return x;
            }
        }
        if (a->tag == SIOT_X_ARRAY && b->tag == SIOT_X_ARRAY && a->n == b->n) {
            siot_expr *x = siot_arena_alloc(ar, sizeof *x);
            siot_expr **items = x ? siot_arena_alloc(ar, (a->n ? a->n : 1) * sizeof *items) : NULL;
            if (!items)
                return NULL;
            *x = *a;
            x->u.items = items;
            for (uint32_t i = 0; i < a->n; i++)
                if (!(items[i] = merge_value(ar, a->u.items[i], RA, b->u.items[i], RB)))
                    return NULL;
            return x;
        }
    }
    entries es = {0};
    if (add_entries(ar, &es, a, RA) || add_entries(ar, &es, b, RB))
        return NULL;
    if (es.n == 1)
        return es.e[0].x;
    siot_expr *x = siot_arena_alloc(ar, sizeof *x);
    if (!x)
        return NULL;
    x->tag = SIOT_X_RANKED;
    x->n = es.n;
    x->u.ranked = es.e;
    return x;
}

/* What a merge carries down: the alignment's look-ahead, the tolerance
 * the ranks were recorded with (their note "tolerance", 0 = exact), and
 * how many loop counts of different ranks it merged approximately. */
typedef struct mctx {
    unsigned w;
    double tol;
    uint64_t approx;
} mctx;

/* Loop counts of two sides: within the tolerance, one approximate count
 * for both (the same few bytes at any rank count, where a per-rank table
 * would grow with the ranks whose counts differ). */
static siot_expr *merge_count(siot_arena *ar, siot_node *d, siot_node *s, mctx *m)
{
    siot_expr *x = siot_x_approx_union(ar, d->u.loop.count, s->u.loop.count, m->tol);
    if (x && x != d->u.loop.count) {
        m->approx++;
        return x;
    }
    return merge_value(ar, d->u.loop.count, &d->ranks, s->u.loop.count, &s->ranks);
}

static int merge_node(siot_arena *ar, siot_node *d, siot_node *s, mctx *m)
{
    const siot_ranklist *RA = &d->ranks, *RB = &s->ranks;
#define MV(field)                                                   \
    do {                                                            \
        siot_expr *m_ = merge_value(ar, d->field, RA, s->field, RB); \
        if (!m_)                                                    \
            return -1;                                              \
        d->field = m_;                                              \
    } while (0)
    if (d->kind == SIOT_N_EVENT) {
        MV(u.ev.thread);
        MV(u.ev.parent);
        MV(u.ev.ret);
        MV(u.ev.err);
        MV(u.ev.bytes);
        for (uint32_t i = 0; i < d->u.ev.nargs; i++)
            MV(u.ev.args[i]);
        if (!siot_hist_merge(ar, &d->u.ev.comp, &s->u.ev.comp) || !siot_hist_merge(ar, &d->u.ev.dur, &s->u.ev.dur))
            return -1;
    } else {
        if (!(d->u.loop.count = merge_count(ar, d, s, m)))
            return -1;
        for (uint32_t i = 0; i < d->u.loop.nbody; i++)
            if (merge_node(ar, d->u.loop.body[i], s->u.loop.body[i], m))
                return -1;
    }
#undef MV
    siot_ranklist u;
    if (!siot_rl_union(ar, &u, RA, RB))
        return -1;
    d->ranks = u;
    return 0;
}

/* ------------------------------------------------------------ alignment */

typedef struct outlist outlist;
static int align(siot_arena *ar, siot_node **A, uint32_t na, siot_node **B, uint32_t nb, mctx *m, outlist *o);

/* Does subtree n hold an event at call site `site`? */
static int has_site(const siot_node *n, uint32_t site)
{
    if (n->kind == SIOT_N_EVENT)
        return n->u.ev.site == site && site != 0;
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        if (has_site(n->u.loop.body[i], site))
            return 1;
    return 0;
}

static int share_site(const siot_node *a, const siot_node *b)
{
    if (a->kind == SIOT_N_EVENT)
        return has_site(b, a->u.ev.site);
    for (uint32_t i = 0; i < a->u.loop.nbody; i++)
        if (share_site(a->u.loop.body[i], b))
            return 1;
    return 0;
}

/* Loops of different bodies that run the same code (a call site in common):
 * rank 0's time step that receives and writes, the others' that send. */
static int loose_match(const siot_node *a, const siot_node *b)
{
    return a->kind == SIOT_N_LOOP && b->kind == SIOT_N_LOOP && share_site(a, b);
}

struct outlist {
    siot_node **v;
    uint32_t n, cap;
};

static int out_push(outlist *o, siot_node *n)
{
    if (o->n == o->cap) {
        uint32_t cap = o->cap ? o->cap * 2 : 64;
        siot_node **v = siot_realloc(o->v, cap * sizeof *v);
        if (!v)
            return -1;
        o->v = v;
        o->cap = cap;
    }
    o->v[o->n++] = n;
    return 0;
}

/* d and s are loops that match loosely: one loop whose count is each side's
 * and whose body is the alignment of both bodies (each node with its ranks). */
static int merge_loose(siot_arena *ar, siot_node *d, siot_node *s, mctx *m)
{
    siot_expr *cnt = merge_count(ar, d, s, m);
    outlist body = {0};
    if (!cnt || align(ar, d->u.loop.body, d->u.loop.nbody, s->u.loop.body, s->u.loop.nbody, m, &body)) {
        siot_free(body.v);
        return -1;
    }
    siot_node **v = siot_arena_alloc(ar, body.n * sizeof *v);
    siot_ranklist u;
    if (!v || !siot_rl_union(ar, &u, &d->ranks, &s->ranks)) {
        siot_free(body.v);
        return -1;
    }
    memcpy(v, body.v, body.n * sizeof *v);
    siot_free(body.v);
    d->u.loop.count = cnt;
    d->u.loop.body = v;
    d->u.loop.nbody = body.n;
    d->ranks = u;
    return 0;
}

/* Between two exact matches, the unmatched nodes of both sides: loops that
 * match loosely are merged, in order, the rest kept as they are. */
static int align_gap(siot_arena *ar, siot_node **A, uint32_t na, siot_node **B, uint32_t nb, mctx *m, outlist *o)
{
    uint32_t j = 0;
    for (uint32_t i = 0; i < na; i++) {
        uint32_t k = j;
        while (k < nb && !loose_match(A[i], B[k]))
            k++;
        if (k == nb) {
            if (out_push(o, A[i]))
                return -1;
            continue;
        }
        while (j < k)
            if (out_push(o, B[j++]))
                return -1;
        if (merge_loose(ar, A[i], B[j], m) || out_push(o, A[i]))
            return -1;
        j++;
    }
    while (j < nb)
        if (out_push(o, B[j++]))
            return -1;
    return 0;
}

/* The nearest pair (i+di, j+dj) that matches, smallest di+dj, within the
 * window: B's window is indexed by hash, so a step costs O(window). */
#define IDX_SLOTS 1024
typedef struct bindex {
    uint64_t h[IDX_SLOTS];
    uint32_t pos[IDX_SLOTS]; /* y + 1, the first position of that hash */
} bindex;

static int find_match(siot_node **A, uint32_t na, uint32_t i, siot_node **B, uint32_t nb, uint32_t j, unsigned w,
                      uint32_t *di, uint32_t *dj, bindex *ix)
{
    if (A[i]->hash == B[j]->hash && same_shape(A[i], B[j])) {
        *di = *dj = 0;
        return 1;
    }
    uint32_t amax = na - i < w ? na - i : w, bmax = nb - j < w ? nb - j : w;
    if (bmax > IDX_SLOTS / 2)
        bmax = IDX_SLOTS / 2;
    memset(ix->pos, 0, sizeof ix->pos);
    for (uint32_t y = 0; y < bmax; y++) {
        uint64_t h = B[j + y]->hash;
        uint32_t k = (uint32_t)(h ^ (h >> 32)) & (IDX_SLOTS - 1);
        while (ix->pos[k] && ix->h[k] != h)
            k = (k + 1) & (IDX_SLOTS - 1);
        if (!ix->pos[k]) {
            ix->h[k] = h;
            ix->pos[k] = y + 1;
        }
    }
    uint32_t best = UINT32_MAX;
    for (uint32_t x = 0; x < amax && x < best; x++) {
        uint64_t h = A[i + x]->hash;
        uint32_t k = (uint32_t)(h ^ (h >> 32)) & (IDX_SLOTS - 1);
        while (ix->pos[k] && ix->h[k] != h)
            k = (k + 1) & (IDX_SLOTS - 1);
        if (!ix->pos[k])
            continue;
        /* the first B node with that hash; a later one only if the first differs in shape */
        for (uint32_t y = ix->pos[k] - 1; y < bmax && x + y < best; y++)
            if (B[j + y]->hash == h && same_shape(A[i + x], B[j + y])) {
                best = x + y;
                *di = x;
                *dj = y;
                break;
            }
    }
    return best != UINT32_MAX;
}

static int align(siot_arena *ar, siot_node **A, uint32_t na, siot_node **B, uint32_t nb, mctx *m, outlist *o)
{
    uint32_t i = 0, j = 0;
    bindex *ix = siot_malloc(sizeof *ix);
    if (!ix)
        return -1;
    while (i < na && j < nb) {
        uint32_t di, dj;
        if (!find_match(A, na, i, B, nb, j, m->w, &di, &dj, ix)) {
            /* Nothing in sight matches exactly: the heads as they are, or
             * merged loosely when they are related loops. */
            if (loose_match(A[i], B[j])) {
                if (merge_loose(ar, A[i], B[j], m) || out_push(o, A[i]))
                    goto oom;
                i++;
                j++;
            } else if (out_push(o, A[i++]) || out_push(o, B[j++])) {
                goto oom;
            }
            continue;
        }
        if (align_gap(ar, A + i, di, B + j, dj, m, o))
            goto oom;
        i += di;
        j += dj;
        if (merge_node(ar, A[i], B[j], m) || out_push(o, A[i]))
            goto oom;
        i++;
        j++;
    }
    siot_free(ix);
    return align_gap(ar, A + i, na - i, B + j, nb - j, m, o);
oom:
    siot_free(ix);
    return -1;
}

/* ------------------------------------------------------------ notes, the whole */

#define SIOT_CLOCKS_MIXED "tsc on some ranks, CLOCK_MONOTONIC on others"

int siot_merge_notes(siot_trace *dst, const siot_trace *src)
{
    /* counts added over the ranks: the leading number, the rest of the first rank's text kept */
    static const char *const summed[] = {"events_recorded", "window_misses_count", "mpiio_unseen", "address_displacements", NULL};
    for (uint32_t i = 0; i < src->nkv; i++) {
        const char *k = src->kv[i].key, *v = src->kv[i].val, *mine = siot_trace_get_kv(dst, k);
        int sum = 0;
        for (int s = 0; summed[s]; s++)
            sum |= strcmp(k, summed[s]) == 0;
        char buf[256];
        if (mine && (sum || strcmp(k, "recorder_memory_bytes") == 0)) {
            char *rest;
            unsigned long long a = strtoull(mine, &rest, 10), b = strtoull(v, NULL, 10);
            snprintf(buf, sizeof buf, "%llu%s", sum ? a + b : (a > b ? a : b), rest);
            if (siot_trace_set_kv(dst, k, buf))
                return -1;
        } else if (mine && strcmp(k, "clock") == 0 && strcmp(mine, v) != 0) {
            /* ranks that timed by different clocks (src/clock.h) */
            if (strcmp(mine, SIOT_CLOCKS_MIXED) != 0 && siot_trace_set_kv(dst, k, SIOT_CLOCKS_MIXED))
                return -1;
        } else if (!mine && siot_trace_set_kv(dst, k, v)) {
            return -1;
        }
    }
    return 0;
}

double siot_trace_tolerance(const siot_trace *t)
{
    const char *v = siot_trace_get_kv(t, "tolerance"), *note = siot_trace_get_kv(t, "approximate");
    const char *at = v ? v : note ? strstr(note, "SIOT_TOLERANCE=") : NULL;
    double tol = at ? strtod(v ? at : at + strlen("SIOT_TOLERANCE="), NULL) : 0;
    return tol > 0 && tol <= 100 ? tol : 0;
}

/* Counts of different ranks merged approximately: the trace says so, and
 * how many (added to the ranks' own count, src/session.c). */
static int note_approx_merges(siot_trace *t, uint64_t n, double tol)
{
    const char *old = siot_trace_get_kv(t, "approximate");
    char note[256];
    unsigned long long had = old ? strtoull(old, NULL, 10) : 0;
    snprintf(note, sizeof note,
             "%llu loop instances folded with counts within SIOT_TOLERANCE=%g%%: their counts (shown ~mean) "
             "are approximate",
             had + (unsigned long long)n, tol);
    t->flags |= SIOT_TF_APPROX;
    return siot_trace_set_kv(t, "approximate", note) ? -1 : 0;
}

int siot_trace_merge(siot_trace *dst, siot_trace *src, unsigned window)
{
    if (!window)
        window = 64;
    int urc = unify_tables(dst, src);
    if (urc || siot_merge_notes(dst, src) || siot_rt_union(dst, src)) {
        siot_trace_free(src);
        return urc ? urc : -1;
    }
    for (uint32_t i = 0; i < dst->ntop; i++)
        hash_node(dst->top[i]);
    for (uint32_t i = 0; i < src->ntop; i++)
        hash_node(src->top[i]);
    siot_arena_take(&dst->arena, &src->arena);
    outlist o = {0};
    mctx m = {.w = window, .tol = siot_trace_tolerance(dst)};
    int rc = align(&dst->arena, dst->top, dst->ntop, src->top, src->ntop, &m, &o);
    siot_node **top = rc ? NULL : siot_arena_alloc(&dst->arena, (o.n ? o.n : 1) * sizeof *top);
    if (top) {
        if (o.n)
            memcpy(top, o.v, o.n * sizeof *top);
        dst->top = top;
        dst->ntop = o.n;
    } else {
        rc = -1;
    }
    siot_free(o.v);
    dst->flags |= src->flags & (SIOT_TF_PARTIAL | SIOT_TF_APPROX | SIOT_TF_TRUNCATED);
    siot_trace_free(src);
    siot_trace_index(dst);
    if (rc == 0 && m.approx && note_approx_merges(dst, m.approx, m.tol))
        rc = -1;
    return rc;
}

int siot_trace_compact(siot_trace *t)
{
    siot_vbuf b;
    siot_vbuf_init(&b);
    siot_trace fresh;
    char why[128];
    int rc = siot_trace_encode_exact(t, &b) == 0 && siot_trace_decode(b.data, b.len, &fresh, why, sizeof why) == 0 ? 0 : -1;
    siot_vbuf_free(&b);
    if (rc == 0) {
        /* what the encoding does not say as the trace holds it: the
         * session's flags (the header adds its format's bits) and the K of
         * its rank times (written only with a summary) */
        fresh.flags = t->flags;
        fresh.rt_keep = t->rt_keep;
        siot_trace_free(t);
        *t = fresh;
    }
    return rc;
}
