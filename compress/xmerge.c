#include "compress/xmerge.h"

#include <stdio.h>
#include <string.h>

#include "core/ranklist.h"

/* ------------------------------------------------------------ constants */

#define INTERN_LO SIOT_X_INTERN_LO
#define INTERN_HI SIOT_X_INTERN_HI
siot_expr siot_x_interned[INTERN_HI - INTERN_LO];
int siot_x_interned_ready;

/* Filled at load time: threads fold into their own queues at the same
 * time (src/session.h), and a first use from two of them would race. A
 * use from an earlier constructor fills it then, on the one thread there
 * is. */
__attribute__((constructor)) static void intern_init(void)
{
    if (siot_x_interned_ready)
        return;
    for (int64_t v = INTERN_LO; v < INTERN_HI; v++) {
        siot_expr *x = &siot_x_interned[v - INTERN_LO];
        x->tag = SIOT_X_CONST;
        x->base = v;
        x->interned = 1;
    }
    siot_x_interned_ready = 1;
}

siot_expr *siot_x_int_made(siot_pool *p, int64_t v)
{
    if (v >= INTERN_LO && v < INTERN_HI) {
        if (!siot_x_interned_ready)
            intern_init();
        return &siot_x_interned[v - INTERN_LO];
    }
    return siot_x_int_own(p, v);
}

/* ------------------------------------------------------------ equality, copies */

int siot_x_equal(const siot_expr *a, const siot_expr *b)
{
    if (a == b)
        return 1;
    if (!a || !b)
        return 0;
    /* An AFFINE with no non-zero coefficient is the same value as a CONST. */
    /* Spelled out rather than through core/model.h's siot_x_same_loops:
     * the loop fold calls this on its hot path (compress/queue.c's
     * node_equal), and this form compiles to fewer instructions. */
    if ((a->tag == SIOT_X_CONST || a->tag == SIOT_X_AFFINE) && (b->tag == SIOT_X_CONST || b->tag == SIOT_X_AFFINE)) {
        if (a->base != b->base || (a->tag == SIOT_X_AFFINE ? a->rcoef : 0) != (b->tag == SIOT_X_AFFINE ? b->rcoef : 0))
            return 0;
        uint32_t na = a->tag == SIOT_X_AFFINE ? a->n : 0, nb = b->tag == SIOT_X_AFFINE ? b->n : 0;
        for (uint32_t k = 0; k < (na > nb ? na : nb); k++)
            if ((k < na ? a->u.coef[k] : 0) != (k < nb ? b->u.coef[k] : 0))
                return 0;
        return 1;
    }
    if (a->tag != b->tag || a->n != b->n)
        return 0;
    switch (a->tag) {
    case SIOT_X_NONE:
        return 1;
    case SIOT_X_SEQINT:
        return memcmp(a->u.vals, b->u.vals, a->n * sizeof(int64_t)) == 0;
    case SIOT_X_SEQ:
    case SIOT_X_ARRAY:
    case SIOT_X_RDIV:
    case SIOT_X_RDIG:
        if (a->len != b->len || a->sum != b->sum)
            return 0;
        __attribute__((fallthrough)); /* then its one item */
    case SIOT_X_RMOD: /* only in job files (compress/rankfold.h), which siot merge may join */
    case SIOT_X_RANGE:
        for (uint32_t i = 0; i < a->n; i++)
            if (!siot_x_equal(a->u.items[i], b->u.items[i]))
                return 0;
        return 1;
    case SIOT_X_RANKED:
        for (uint32_t i = 0; i < a->n; i++)
            if (!siot_rl_equal(&a->u.ranked[i].rl, &b->u.ranked[i].rl) ||
                !siot_x_equal(a->u.ranked[i].x, b->u.ranked[i].x))
                return 0;
        return 1;
    case SIOT_X_STR:
        for (uint32_t i = 0; i < a->n; i++) {
            const siot_strseg *s = &a->u.segs[i], *t = &b->u.segs[i];
            if (s->is_field != t->is_field)
                return 0;
            if (s->is_field ? (s->zero_pad != t->zero_pad || s->width != t->width || !siot_x_equal(s->field, t->field))
                            : (s->len != t->len || memcmp(s->lit, t->lit, s->len) != 0))
                return 0;
        }
        return 1;
    case SIOT_X_APPROX:
        if (a->base != b->base || a->rcoef != b->rcoef || a->len != b->len || a->sum != b->sum)
            return 0;
        for (uint32_t i = 0; i < a->n; i++)
            if (a->u.runs[i].base != b->u.runs[i].base || a->u.runs[i].start != b->u.runs[i].start)
                return 0;
        return 1;
    case SIOT_X_SEQL:
        if (a->level != b->level || a->len != b->len)
            return 0;
        for (uint32_t i = 0; i < a->n; i++) {
            const siot_run *r = &a->u.runs[i], *s = &b->u.runs[i];
            if (r->start != s->start || !r->x != !s->x)
                return 0;
            if (r->x ? !siot_x_equal(r->x, s->x) : (r->base != s->base || r->stride != s->stride))
                return 0;
        }
        return 1;
    }
    return 0;
}

void siot_x_free(siot_pool *p, siot_expr *x)
{
    if (!x || x->interned)
        return;
    switch (x->tag) {
    case SIOT_X_AFFINE:
        siot_pool_free(p, x->u.coef, (x->cap ? x->cap : x->n) * sizeof(int64_t));
        break;
    case SIOT_X_SEQINT:
        siot_pool_free(p, x->u.vals, (x->cap ? x->cap : x->n) * sizeof(int64_t));
        break;
    SIOT_X_ITEMS_CASES:
        for (uint32_t i = 0; i < x->n; i++)
            siot_x_free(p, x->u.items[i]);
        siot_pool_free(p, x->u.items, (x->cap ? x->cap : x->n) * sizeof *x->u.items);
        break;
    case SIOT_X_STR:
        for (uint32_t i = 0; i < x->n; i++) {
            siot_strseg *s = &x->u.segs[i];
            if (s->is_field)
                siot_x_free(p, s->field);
            else
                siot_pool_free(p, (void *)s->lit, s->len + 1);
        }
        siot_pool_free(p, x->u.segs, (x->cap ? x->cap : x->n) * sizeof *x->u.segs);
        break;
    case SIOT_X_SEQL:
    case SIOT_X_APPROX:
        for (uint32_t i = 0; i < x->n; i++)
            siot_x_free(p, x->u.runs[i].x);
        siot_pool_free(p, x->u.runs, (x->cap ? x->cap : x->n) * sizeof *x->u.runs);
        break;
    default:
        break;
    }
    siot_pool_free(p, x, sizeof *x);
}

siot_expr *siot_x_clone(siot_pool *p, const siot_expr *x)
{
    if (!x)
        return NULL;
    if (x->interned)
        return (siot_expr *)x;
    if (x->tag == SIOT_X_CONST)
        return siot_x_int(p, x->base);
    siot_expr *y = siot_pool_alloc(p, sizeof *y);
    if (!y)
        return NULL;
    *y = *x;
    y->interned = 0;
    y->cap = x->n;
    int ok = 1;
    switch (x->tag) {
    case SIOT_X_AFFINE:
    case SIOT_X_SEQINT:
        y->u.vals = siot_pool_alloc(p, (x->n ? x->n : 1) * sizeof(int64_t));
        if ((ok = y->u.vals != NULL) && x->n)
            memcpy(y->u.vals, x->u.vals, x->n * sizeof(int64_t));
        break;
    SIOT_X_ITEMS_CASES:
        y->u.items = siot_pool_alloc(p, (x->n ? x->n : 1) * sizeof *y->u.items);
        ok = y->u.items != NULL;
        for (uint32_t i = 0; ok && i < x->n; i++)
            ok = (y->u.items[i] = siot_x_clone(p, x->u.items[i])) != NULL;
        break;
    case SIOT_X_STR:
        y->u.segs = siot_pool_alloc(p, (x->n ? x->n : 1) * sizeof *y->u.segs);
        ok = y->u.segs != NULL;
        for (uint32_t i = 0; ok && i < x->n; i++) {
            siot_strseg *s = &y->u.segs[i];
            *s = x->u.segs[i];
            if (s->is_field) {
                ok = (s->field = siot_x_clone(p, x->u.segs[i].field)) != NULL;
            } else {
                char *lit = siot_pool_alloc(p, s->len + 1);
                if ((ok = lit != NULL))
                    memcpy(lit, x->u.segs[i].lit, s->len);
                s->lit = lit;
            }
        }
        break;
    case SIOT_X_SEQL:
    case SIOT_X_APPROX:
        y->u.runs = siot_pool_alloc(p, (x->n ? x->n : 1) * sizeof *y->u.runs);
        ok = y->u.runs != NULL;
        for (uint32_t i = 0; ok && i < x->n; i++) {
            y->u.runs[i] = x->u.runs[i];
            if (x->u.runs[i].x)
                ok = (y->u.runs[i].x = siot_x_clone(p, x->u.runs[i].x)) != NULL;
        }
        break;
    case SIOT_X_RANKED:
        /* Rank tables come from the merge of ranks, which copies them itself. */
        ok = 0;
        break;
    default:
        break;
    }
    if (!ok) {
        y->tag = SIOT_X_NONE; /* free what was built so far without touching x's arrays */
        siot_pool_free(p, y, sizeof *y);
        return NULL;
    }
    return y;
}

int siot_x_depends(const siot_expr *x, unsigned lvl)
{
    if (!x)
        return 0;
    switch (x->tag) {
    case SIOT_X_AFFINE:
        return lvl < x->n && x->u.coef[lvl] != 0;
    SIOT_X_ITEMS_CASES:
        for (uint32_t i = 0; i < x->n; i++)
            if (siot_x_depends(x->u.items[i], lvl))
                return 1;
        return 0;
    case SIOT_X_RANKED:
        for (uint32_t i = 0; i < x->n; i++)
            if (siot_x_depends(x->u.ranked[i].x, lvl))
                return 1;
        return 0;
    case SIOT_X_STR:
        for (uint32_t i = 0; i < x->n; i++)
            if (x->u.segs[i].is_field && siot_x_depends(x->u.segs[i].field, lvl))
                return 1;
        return 0;
    case SIOT_X_SEQL:
        if (x->level == lvl)
            return 1;
        for (uint32_t i = 0; i < x->n; i++)
            if (siot_x_depends(x->u.runs[i].x, lvl))
                return 1;
        return 0;
    }
    return 0;
}

/* ------------------------------------------------------------ strings */

#define MAX_FIELD_DIGITS 18

/* Splits s into literal text and numeric fields; calls emit for each segment.
 * Digit runs longer than 18 stay text (they are not counters). */
typedef int (*seg_fn)(void *ctx, int is_field, const char *p, size_t n, int64_t v, int zpad);

static int split_string(const char *s, size_t n, seg_fn emit, void *ctx)
{
    size_t i = 0, lit_start = 0;
    while (i < n) {
        if (s[i] >= '0' && s[i] <= '9') {
            size_t j = i;
            while (j < n && s[j] >= '0' && s[j] <= '9')
                j++;
            if (j - i <= MAX_FIELD_DIGITS) {
                if (i > lit_start && emit(ctx, 0, s + lit_start, i - lit_start, 0, 0))
                    return -1;
                int64_t v = 0;
                for (size_t k = i; k < j; k++)
                    v = v * 10 + (s[k] - '0');
                if (emit(ctx, 1, s + i, j - i, v, s[i] == '0' && j - i > 1))
                    return -1;
                lit_start = j;
            }
            i = j;
        } else {
            i++;
        }
    }
    if (n > lit_start && emit(ctx, 0, s + lit_start, n - lit_start, 0, 0))
        return -1;
    return 0;
}

typedef struct pat_build {
    siot_pool *pool;
    siot_strseg *segs;
    uint32_t n, cap;
} pat_build;

static int pat_emit(void *ctx, int is_field, const char *p, size_t n, int64_t v, int zpad)
{
    pat_build *b = ctx;
    if (b->n == b->cap) {
        uint32_t cap = b->cap ? b->cap * 2 : 4;
        siot_strseg *s = siot_pool_realloc(b->pool, b->segs, b->cap * sizeof *s, cap * sizeof *s);
        if (!s)
            return -1;
        b->segs = s;
        b->cap = cap;
    }
    siot_strseg *s = &b->segs[b->n++];
    memset(s, 0, sizeof *s);
    if (is_field) {
        s->is_field = 1;
        s->zero_pad = (uint8_t)zpad;
        s->width = zpad ? (uint16_t)n : 0;
        s->field = siot_x_int(b->pool, v);
        return s->field ? 0 : -1;
    }
    char *lit = siot_pool_alloc(b->pool, n + 1);
    if (!lit)
        return -1;
    memcpy(lit, p, n);
    s->lit = lit;
    s->len = (uint32_t)n;
    return 0;
}

siot_expr *siot_x_strpat(siot_pool *p, const char *s, size_t n)
{
    siot_expr *x = siot_pool_alloc(p, sizeof *x);
    if (!x)
        return NULL;
    pat_build b = {p, NULL, 0, 0};
    if (split_string(s, n, pat_emit, &b) != 0) {
        x->tag = SIOT_X_STR;
        x->n = b.n;
        x->cap = b.cap;
        x->u.segs = b.segs;
        siot_x_free(p, x);
        return NULL;
    }
    x->tag = SIOT_X_STR;
    x->n = b.n;
    x->cap = b.cap;
    x->u.segs = b.segs;
    return x;
}

siot_expr *siot_x_from_raw(siot_pool *p, const siot_rawval *v, const uint8_t *pool)
{
    switch (v->kind) {
    case SIOT_RV_INT:
        return siot_x_int(p, v->i);
    case SIOT_RV_STR:
        return siot_x_strpat(p, (const char *)pool + v->i, v->n);
    case SIOT_RV_ARR: {
        siot_expr *x = siot_pool_alloc(p, sizeof *x);
        if (!x)
            return NULL;
        x->tag = SIOT_X_ARRAY;
        x->u.items = siot_pool_alloc(p, (v->n ? v->n : 1) * sizeof *x->u.items);
        if (!x->u.items) {
            siot_pool_free(p, x, sizeof *x);
            return NULL;
        }
        x->cap = v->n;
        for (uint32_t i = 0; i < v->n; i++) {
            int64_t e;
            memcpy(&e, pool + v->i + 8 * (size_t)i, 8);
            if (!(x->u.items[i] = siot_x_int(p, e))) {
                x->n = i;
                siot_x_free(p, x);
                return NULL;
            }
        }
        x->n = v->n;
        return x;
    }
    default: {
        siot_expr *x = siot_pool_alloc(p, sizeof *x);
        if (x)
            x->tag = SIOT_X_NONE;
        return x;
    }
    }
}

/* ------------------------------------------------------------ temporaries */

const siot_expr *siot_x_tmp_int(siot_xtmp *t, int64_t v)
{
    memset(&t->x, 0, sizeof t->x);
    t->x.tag = SIOT_X_CONST;
    t->x.base = v;
    return &t->x;
}

typedef struct tmp_build {
    siot_xtmp *t;
    uint32_t n;
} tmp_build;

static int tmp_emit(void *ctx, int is_field, const char *p, size_t n, int64_t v, int zpad)
{
    tmp_build *b = ctx;
    if (b->n >= 64)
        return -1;
    siot_strseg *s = &b->t->segs[b->n];
    memset(s, 0, sizeof *s);
    if (is_field) {
        siot_expr *f = &b->t->fields[b->n];
        memset(f, 0, sizeof *f);
        f->tag = SIOT_X_CONST;
        f->base = v;
        s->is_field = 1;
        s->zero_pad = (uint8_t)zpad;
        s->width = zpad ? (uint16_t)n : 0;
        s->field = f;
    } else {
        s->lit = p;
        s->len = (uint32_t)n;
    }
    b->n++;
    return 0;
}

const siot_expr *siot_x_tmp_raw(siot_xtmp *t, const siot_rawval *v, const uint8_t *pool)
{
    memset(&t->x, 0, sizeof t->x);
    switch (v->kind) {
    case SIOT_RV_INT:
        return siot_x_tmp_int(t, v->i);
    case SIOT_RV_STR: {
        tmp_build b = {t, 0};
        if (split_string((const char *)pool + v->i, v->n, tmp_emit, &b) != 0)
            return NULL;
        t->x.tag = SIOT_X_STR;
        t->x.n = b.n;
        t->x.u.segs = t->segs;
        return &t->x;
    }
    case SIOT_RV_ARR:
        if (v->n > 64)
            return NULL;
        for (uint32_t i = 0; i < v->n; i++) {
            memset(&t->items[i], 0, sizeof t->items[i]);
            t->items[i].tag = SIOT_X_CONST;
            memcpy(&t->items[i].base, pool + v->i + 8 * (size_t)i, 8);
            t->itemp[i] = &t->items[i];
        }
        t->x.tag = SIOT_X_ARRAY;
        t->x.n = v->n;
        t->x.u.items = t->itemp;
        return &t->x;
    default:
        t->x.tag = SIOT_X_NONE;
        return &t->x;
    }
}

/* ------------------------------------------------------------ extension */

/* Differences and sums modulo 2^64: evaluation wraps the same way, so a
 * progression between extreme values still reproduces them exactly. */
static int64_t wsub(int64_t a, int64_t b) { return (int64_t)((uint64_t)a - (uint64_t)b); }
static int64_t wadd(int64_t a, int64_t b) { return (int64_t)((uint64_t)a + (uint64_t)b); }

/* (the affine accessors: core/model.h) */

/* Same dependence on the loops inside level lvl (and on the rank). */
static int same_inner(const siot_expr *a, const siot_expr *b, unsigned lvl)
{
    if (siot_x_rcoef(a) != siot_x_rcoef(b))
        return 0;
    for (unsigned k = 0; k < lvl; k++)
        if (siot_x_coef(a, k) != siot_x_coef(b, k))
            return 0;
    return 1;
}

static int no_coef_from(const siot_expr *x, unsigned lvl)
{
    if (x->tag != SIOT_X_AFFINE)
        return 1;
    for (uint32_t k = lvl; k < x->n; k++)
        if (x->u.coef[k])
            return 0;
    return 1;
}

/* inner's terms below level lvl and stride at lvl, in the pool (freed node
 * by node). compress/merge.c's affine looks the same and is not this: it
 * sets the rank term of a merged value, in the merged trace's arena. */
static siot_expr *make_affine(siot_pool *p, const siot_expr *inner, unsigned lvl, int64_t stride)
{
    siot_expr *y = siot_pool_alloc(p, sizeof *y);
    if (!y)
        return NULL;
    y->tag = SIOT_X_AFFINE;
    y->base = inner->base;
    y->rcoef = siot_x_rcoef(inner);
    y->n = lvl + 1;
    y->cap = y->n;
    y->u.coef = siot_pool_alloc(p, y->n * sizeof(int64_t));
    if (!y->u.coef) {
        siot_pool_free(p, y, sizeof *y);
        return NULL;
    }
    for (unsigned k = 0; k < lvl; k++)
        y->u.coef[k] = siot_x_coef(inner, k);
    y->u.coef[lvl] = stride;
    return y;
}

/* A value that only depends on level lvl as base + stride*j is an integer run. */
static int int_run_of(const siot_expr *x, unsigned lvl, int64_t *base, int64_t *stride)
{
    if (!siot_x_affinish(x) || siot_x_rcoef(x))
        return 0;
    uint32_t n = siot_x_nloops(x);
    for (uint32_t k = 0; k < n; k++)
        if (k != lvl && x->u.coef[k])
            return 0;
    *base = x->base;
    *stride = siot_x_coef(x, lvl);
    return 1;
}

static int add_run(siot_pool *p, siot_expr *s)
{
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 2;
        siot_run *r = siot_pool_realloc(p, s->u.runs, s->cap * sizeof *r, cap * sizeof *r);
        if (!r)
            return -1;
        s->u.runs = r;
        s->cap = cap;
    }
    memset(&s->u.runs[s->n], 0, sizeof s->u.runs[0]);
    s->n++;
    return 0;
}

/* Appends iteration len of s (an SEQL over lvl) with value X. */
static int seql_append(siot_pool *p, siot_expr *s, const siot_expr *X, unsigned lvl)
{
    siot_run *last = &s->u.runs[s->n - 1];
    uint64_t last_len = s->len - last->start;
    int64_t b, st;
    if (X->tag == SIOT_X_CONST && !last->x) {
        if (last_len == 1) {
            last->stride = wsub(X->base, last->base);
            s->len++;
            return 0;
        }
        if ((int64_t)((uint64_t)last->base + (uint64_t)last->stride * last_len) == X->base) {
            s->len++;
            return 0;
        }
        if (last_len == 2 && last->stride) {
            /* Two points that the third does not continue: the second point
             * more likely starts what follows (5,4,4,4 is 5 then 4s). */
            if (add_run(p, s))
                return -1;
            last = &s->u.runs[s->n - 2];
            siot_run *r = &s->u.runs[s->n - 1];
            r->start = last->start + 1;
            r->base = wadd(last->base, last->stride);
            r->stride = wsub(X->base, r->base);
            last->stride = 0;
            s->len++;
            return 0;
        }
    } else if (last->x) {
        if (!siot_x_depends(last->x, lvl) && siot_x_equal(last->x, X)) {
            s->len++;
            return 0;
        }
        if (last_len == 1 && siot_x_affinish(last->x) && siot_x_affinish(X) && same_inner(last->x, X, lvl) &&
            no_coef_from(last->x, lvl) && no_coef_from(X, lvl)) {
            siot_expr *a = make_affine(p, last->x, lvl, wsub(X->base, last->x->base));
            if (!a)
                return -1;
            siot_x_free(p, last->x);
            last->x = a;
            s->len++;
            return 0;
        }
    }
    if (add_run(p, s))
        return -1;
    siot_run *r = &s->u.runs[s->n - 1];
    r->start = s->len;
    if (int_run_of(X, lvl, &b, &st) && st == 0) {
        r->base = b;
    } else if (!(r->x = siot_x_clone(p, X))) {
        s->n--;
        return -1;
    }
    s->len++;
    return 0;
}

/* A run of an SEQL over level `level` as an affine value (its iteration
 * counted from the run's start, as the evaluator does): an integer run is
 * base + stride*j. v is filled and points to the run's own expression or to
 * the view built in *tmp (coefs in tc). 0: the run is not affine. */
static int run_view(const siot_run *r, unsigned level, siot_expr *tmp, int64_t *tc, const siot_expr **v)
{
    if (r->x) {
        *v = r->x;
        return siot_x_affinish(r->x);
    }
    memset(tmp, 0, sizeof *tmp);
    memset(tc, 0, (level + 1) * sizeof *tc);
    tmp->tag = SIOT_X_AFFINE;
    tmp->base = r->base;
    tmp->n = level + 1;
    tc[level] = r->stride;
    tmp->u.coef = tc;
    *v = tmp;
    return 1;
}

/* Run tables over an inner loop whose runs are the same from one iteration
 * of loop lvl to the next, each run's values shifted by a constant: each
 * run becomes a progression over lvl too, and the table stays one table
 * (a piecewise pattern inside a loop that moves on with the outer one: the
 * record offsets of a PnetCDF record variable written in pieces, the
 * first piece of the next record closing the inner loop). Returns 1 when
 * done, 0 when the tables do not line up so, -1 out of memory. */
static int seql_shift(siot_pool *p, siot_expr *B, const siot_expr *X, unsigned lvl, uint64_t c)
{
    if (B->tag != SIOT_X_SEQL || X->tag != SIOT_X_SEQL || B->level != X->level || B->level >= lvl ||
        lvl >= SIOT_MAX_NEST || B->len != X->len || B->n != X->n || B->n == 0)
        return 0;
    unsigned lv = B->level;
    int64_t stride[64];
    if (B->n > sizeof stride / sizeof stride[0])
        return 0;
    for (uint32_t i = 0; i < B->n; i++) {
        const siot_run *rb = &B->u.runs[i], *rx = &X->u.runs[i];
        siot_expr tb, tx;
        int64_t cb[SIOT_MAX_NEST + 1], cx[SIOT_MAX_NEST + 1];
        const siot_expr *vb, *vx;
        if (rb->start != rx->start || !run_view(rb, lv, &tb, cb, &vb) || !run_view(rx, lv, &tx, cx, &vx))
            return 0;
        if (!same_inner(vb, vx, lvl) || !no_coef_from(vx, lvl) || !no_coef_from(vb, lvl + 1))
            return 0;
        if (c == 1) {
            if (!no_coef_from(vb, lvl))
                return 0;
            stride[i] = wsub(vx->base, vb->base);
        } else {
            stride[i] = siot_x_coef(vb, lvl);
            if ((int64_t)((uint64_t)vb->base + (uint64_t)stride[i] * c) != vx->base)
                return 0;
        }
    }
    if (c > 1)
        return 1; /* every run's progression goes on */
    for (uint32_t i = 0; i < B->n; i++) {
        siot_run *rb = &B->u.runs[i];
        siot_expr tb;
        int64_t cb[SIOT_MAX_NEST + 1];
        const siot_expr *vb;
        if (!stride[i])
            continue; /* the same values again */
        run_view(rb, lv, &tb, cb, &vb);
        siot_expr *a = make_affine(p, vb, lvl, stride[i]);
        if (!a)
            return -1;
        if (rb->x)
            siot_x_free(p, rb->x);
        rb->x = a;
    }
    return 1;
}

/* Replaces *px (iterations 0..c-1 of lvl) by a run table and appends X. */
static int to_seql(siot_pool *p, siot_expr **px, const siot_expr *X, unsigned lvl, uint64_t c)
{
    siot_expr *B = *px;
    siot_expr *s = siot_pool_alloc(p, sizeof *s);
    if (!s)
        return -1;
    s->tag = SIOT_X_SEQL;
    s->level = (uint8_t)lvl;
    s->len = c;
    if (add_run(p, s)) {
        siot_pool_free(p, s, sizeof *s);
        return -1;
    }
    siot_run *r = &s->u.runs[0];
    if (int_run_of(B, lvl, &r->base, &r->stride)) {
        if (c == 1)
            r->stride = 0;
    } else {
        r->x = B; /* evaluated with j counted from the run's start, 0: the same values */
    }
    if (seql_append(p, s, X, lvl)) {
        if (r->x)
            r->x = NULL; /* B stays owned by the caller */
        siot_x_free(p, s);
        return -1;
    }
    if (!r->x)
        siot_x_free(p, B);
    *px = s;
    return 0;
}

static int fields_compatible(const siot_strseg *a, const siot_strseg *b)
{
    if (a->zero_pad == b->zero_pad && a->width == b->width)
        return 1;
    /* "plot_0999" then "plot_1000": 1000 printed with %04d is still "1000". */
    if (a->zero_pad && !b->zero_pad && b->field->tag == SIOT_X_CONST && b->field->base >= 0) {
        char t[32];
        int n = snprintf(t, sizeof t, "%lld", (long long)b->field->base);
        return n >= a->width;
    }
    return 0;
}

static int str_descend_ok(const siot_expr *B, const siot_expr *X)
{
    if (B->tag != SIOT_X_STR || X->tag != SIOT_X_STR || B->n != X->n)
        return 0;
    for (uint32_t i = 0; i < B->n; i++) {
        const siot_strseg *a = &B->u.segs[i], *b = &X->u.segs[i];
        if (a->is_field != b->is_field)
            return 0;
        if (!a->is_field && (a->len != b->len || memcmp(a->lit, b->lit, a->len) != 0))
            return 0;
        if (a->is_field && !fields_compatible(a, b))
            return 0;
    }
    return 1;
}

int siot_x_extend(siot_pool *p, siot_expr **px, const siot_expr *X, unsigned lvl, uint64_t c)
{
    siot_expr *B = *px;
    /* The hot cases first: the same constant again, a progression going on. */
    if (X->tag == SIOT_X_CONST) {
        if (B->tag == SIOT_X_CONST && B->base == X->base)
            return 0;
        if (B->tag == SIOT_X_AFFINE && B->n == lvl + 1 && !B->rcoef && B->u.coef[lvl] &&
            (int64_t)((uint64_t)B->base + (uint64_t)B->u.coef[lvl] * c) == X->base) {
            int inner_zero = 1;
            for (unsigned k = 0; k < lvl && inner_zero; k++)
                inner_zero = B->u.coef[k] == 0;
            if (inner_zero)
                return 0;
        }
    }
    int dep = siot_x_depends(B, lvl);
    if (!dep && siot_x_equal(B, X))
        return 0;
    /* Two points of a progression. */
    if (!dep && c == 1 && siot_x_affinish(B) && siot_x_affinish(X) && same_inner(B, X, lvl) && no_coef_from(B, lvl) &&
        no_coef_from(X, lvl)) {
        siot_expr *a = make_affine(p, B, lvl, wsub(X->base, B->base));
        if (!a)
            return -1;
        siot_x_free(p, B);
        *px = a;
        return 0;
    }
    /* A progression that goes on. */
    if (dep && B->tag == SIOT_X_AFFINE && siot_x_affinish(X) && same_inner(B, X, lvl) && no_coef_from(X, lvl) &&
        B->n == lvl + 1 && (int64_t)((uint64_t)B->base + (uint64_t)B->u.coef[lvl] * c) == X->base)
        return 0;
    if (dep && B->tag == SIOT_X_SEQL && B->level == lvl && B->len == c)
        return seql_append(p, B, X, lvl);
    /* A run table over an inner loop moving on with this one. */
    if (B->tag == SIOT_X_SEQL && B->level < lvl) {
        int r = seql_shift(p, B, X, lvl, c);
        if (r)
            return r < 0 ? -1 : 0;
    }
    /* Patterns and arrays grow part by part. */
    if (str_descend_ok(B, X)) {
        for (uint32_t i = 0; i < B->n; i++)
            if (B->u.segs[i].is_field && siot_x_extend(p, &B->u.segs[i].field, X->u.segs[i].field, lvl, c))
                return -1;
        return 0;
    }
    if (B->tag == SIOT_X_ARRAY && X->tag == SIOT_X_ARRAY && B->n == X->n) {
        for (uint32_t i = 0; i < B->n; i++)
            if (siot_x_extend(p, &B->u.items[i], X->u.items[i], lvl, c))
                return -1;
        return 0;
    }
    return to_seql(p, px, X, lvl, c);
}

/* ------------------------------------------------------------ approximate counts */

#define APPROX_PAIRS 16

static int approx_add(siot_pool *p, siot_expr *a, int64_t v, uint64_t times)
{
    if (v < a->base)
        a->base = v;
    if (v > a->rcoef)
        a->rcoef = v;
    a->len += times;
    a->sum = wadd(a->sum, (int64_t)((uint64_t)v * times));
    if (a->level) /* too many distinct values were seen: only the summary is kept */
        return 0;
    for (uint32_t i = 0; i < a->n; i++)
        if (a->u.runs[i].base == v) {
            a->u.runs[i].start += times;
            return 0;
        }
    if (a->n == APPROX_PAIRS) {
        siot_pool_free(p, a->u.runs, a->cap * sizeof *a->u.runs);
        a->u.runs = NULL;
        a->cap = 0;
        a->n = 0;
        a->level = 1;
        return 0;
    }
    if (add_run(p, a))
        return -1;
    a->u.runs[a->n - 1].base = v;
    a->u.runs[a->n - 1].start = times;
    return 0;
}

int siot_x_approx_extend(siot_pool *p, siot_expr **px, const siot_expr *X, uint64_t c, double tolerance)
{
    siot_expr *B = *px;
    if (X->tag != SIOT_X_CONST || tolerance <= 0)
        return 0;
    int64_t x = X->base, lo, hi;
    if (B->tag == SIOT_X_CONST) {
        lo = B->base < x ? B->base : x;
        hi = B->base < x ? x : B->base;
    } else if (B->tag == SIOT_X_APPROX) {
        lo = B->base < x ? B->base : x;
        hi = B->rcoef > x ? B->rcoef : x;
    } else {
        return 0;
    }
    if (lo == hi || lo <= 0 || (double)(hi - lo) > tolerance / 100.0 * (double)hi)
        return 0;
    if (B->tag == SIOT_X_CONST) {
        siot_expr *a = siot_pool_alloc(p, sizeof *a);
        if (!a)
            return -1;
        a->tag = SIOT_X_APPROX;
        a->base = a->rcoef = B->base;
        if (approx_add(p, a, B->base, c) || approx_add(p, a, x, 1)) {
            siot_x_free(p, a);
            return -1;
        }
        siot_x_free(p, B);
        *px = a;
        return 1;
    }
    return approx_add(p, B, x, 1) ? -1 : 1;
}

/* An approximate count's (value, instances) pairs, or a constant's. */
static uint32_t approx_pairs(const siot_expr *x, uint64_t inst, siot_run *out)
{
    if (x->tag == SIOT_X_CONST) {
        out[0].base = x->base;
        out[0].start = inst;
        return 1;
    }
    memcpy(out, x->u.runs, x->n * sizeof *out);
    return x->n;
}

siot_expr *siot_x_approx_union(siot_arena *ar, siot_expr *a, const siot_expr *b, double tolerance)
{
    int ca = a->tag == SIOT_X_CONST, cb = b->tag == SIOT_X_CONST;
    if (tolerance <= 0 || (!ca && a->tag != SIOT_X_APPROX) || (!cb && b->tag != SIOT_X_APPROX))
        return NULL;
    if (siot_x_equal(a, b))
        return a;
    int64_t lo = a->base < b->base ? a->base : b->base;
    int64_t hi = (ca ? a->base : a->rcoef) > (cb ? b->base : b->rcoef) ? (ca ? a->base : a->rcoef) : (cb ? b->base : b->rcoef);
    if (lo <= 0 || (double)(hi - lo) > tolerance / 100.0 * (double)hi)
        return NULL;
    uint64_t ia = ca ? (cb ? 1 : b->len) : a->len, ib = cb ? (ca ? 1 : a->len) : b->len;
    siot_expr *x = siot_arena_alloc(ar, sizeof *x);
    siot_run *runs = siot_arena_alloc(ar, 2 * APPROX_PAIRS * sizeof *runs);
    if (!x || !runs)
        return NULL;
    x->tag = SIOT_X_APPROX;
    x->base = lo;
    x->rcoef = hi;
    x->len = ia + ib;
    x->sum = wadd(ca ? (int64_t)((uint64_t)a->base * ia) : a->sum, cb ? (int64_t)((uint64_t)b->base * ib) : b->sum);
    x->level = (!ca && a->level) || (!cb && b->level); /* either kept only its summary */
    uint32_t na = x->level ? 0 : approx_pairs(a, ia, runs), nb = x->level ? 0 : approx_pairs(b, ib, runs + na);
    uint32_t n = na;
    for (uint32_t i = na; i < na + nb; i++) { /* b's pairs joined to a's by value */
        uint32_t k = 0;
        while (k < n && runs[k].base != runs[i].base)
            k++;
        if (k < n)
            runs[k].start += runs[i].start;
        else
            runs[n++] = runs[i];
    }
    if (n > APPROX_PAIRS) /* too many distinct values: the summary only */
        x->level = 1, n = 0;
    x->n = n;
    x->u.runs = n ? runs : NULL;
    return x;
}
