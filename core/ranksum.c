/* ranksum: summaries of per-rank times (ranksum.h). */
#include "core/ranksum.h"

#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/ranktimes.h"
#include "core/salloc.h"

const char *siot_rts_name(unsigned key) { return key == SIOT_RT_compute ? "compute" : siot_rt_name(key); }

int siot_rts_from_name(const char *s, uint64_t n)
{
    if (n == 7 && memcmp(s, "compute", 7) == 0)
        return SIOT_RT_compute;
    return siot_rt_from_name(s, n);
}

static int add_rows(siot_arena *a, const siot_rtrow *rows, uint32_t n, siot_hist *sum)
{
    for (uint32_t i = 0; i < n; i++)
        for (unsigned k = 0; k < SIOT_RT_NQ; k++)
            if (!siot_hist_add(a, &sum[k], siot_rt_value(&rows[i], k), rows[i].rank, 0))
                return -1;
    return 0;
}

int siot_rts_from_rows(siot_arena *a, const siot_rtrow *rows, uint32_t n, siot_hist *sum)
{
    memset(sum, 0, SIOT_RT_NQ * sizeof *sum);
    return add_rows(a, rows, n, sum);
}

const siot_hist *siot_rts_get(const siot_trace *t, siot_arena *a, siot_hist *buf)
{
    if (t->rtsum)
        return t->rtsum;
    if (!t->nrt || siot_rts_from_rows(a, t->rt, t->nrt, buf) != 0)
        return NULL;
    return buf;
}

uint64_t siot_rts_nranks(const siot_trace *t) { return t->rtsum ? t->rtsum[0].count : t->nrt; }

/* A row's place in the order of one quantity: by value, ties by rank. */
typedef struct rt_at {
    uint64_t v;
    int32_t rank;
    uint32_t i;
} rt_at;

static int at_cmp(const void *a, const void *b)
{
    const rt_at *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* rows[0..n) in the order of key, into at. */
static void order_rows(const siot_rtrow *rows, uint32_t n, unsigned key, rt_at *at)
{
    for (uint32_t i = 0; i < n; i++)
        at[i] = (rt_at){siot_rt_value(&rows[i], key), rows[i].rank, i};
    qsort(at, n, sizeof *at, at_cmp);
}

/* The lists of rows[0..n): per quantity (and the ranks, value 0) the
 * min(keep, n) first and last in its order, into y. */
static int lists_from_rows(siot_arena *a, const siot_rtrow *rows, uint32_t n, uint32_t keep, siot_rts *y)
{
    uint32_t m = n < keep ? n : keep;
    rt_at *at = siot_malloc((size_t)n * sizeof *at + 1);
    if (!at)
        return -1;
    for (unsigned q = 0; q <= SIOT_RT_NQ; q++) {
        if (q < SIOT_RT_NQ)
            order_rows(rows, n, q, at);
        else
            for (uint32_t i = 0; i < n; i++)
                at[i] = (rt_at){0, rows[i].rank, i}; /* rows are in rank order */
        for (unsigned s = 0; s < 2; s++) {
            siot_rtx *x = siot_arena_alloc(a, (size_t)m * sizeof *x + 1);
            if (!x) {
                siot_free(at);
                return -1;
            }
            for (uint32_t j = 0; j < m; j++)
                x[j] = (siot_rtx){at[s ? n - m + j : j].rank, at[s ? n - m + j : j].v};
            y->x[2 * q + s] = x;
            y->n[2 * q + s] = m;
        }
    }
    siot_free(at);
    return 0;
}

static int rtx_before(const siot_rtx *p, const siot_rtx *q) { return p->v != q->v ? p->v < q->v : p->rank < q->rank; }

/* p and q (each sorted by value, then rank) united and cut to their keep
 * first (slowest: last), into *out. */
static int merge_list(siot_arena *a, const siot_rtx *p, uint32_t np, const siot_rtx *q, uint32_t nq, uint32_t keep,
                      int slowest, siot_rtx **out, uint32_t *nout)
{
    uint32_t all = np + nq, m = all < keep ? all : keep, skip = slowest ? all - m : 0, i = 0, j = 0, k = 0;
    siot_rtx *x = siot_arena_alloc(a, (size_t)m * sizeof *x + 1);
    if (!x)
        return -1;
    for (uint32_t t = 0; t < all; t++) {
        siot_rtx e = j >= nq || (i < np && rtx_before(&p[i], &q[j])) ? p[i++] : q[j++];
        if (t >= skip && k < m)
            x[k++] = e;
    }
    *out = x;
    *nout = m;
    return 0;
}

int siot_rts_merge(siot_arena *a, siot_rts *acc, const siot_rts *y, uint32_t keep)
{
    for (unsigned k = 0; k < SIOT_RT_NQ; k++)
        if (!siot_hist_merge(a, &acc->sum[k], &y->sum[k]))
            return -1;
    for (unsigned l = 0; l < SIOT_RTS_NLISTS; l++)
        if (merge_list(a, acc->x[l], acc->n[l], y->x[l], y->n[l], keep, l & 1, &acc->x[l], &acc->n[l]) != 0)
            return -1;
    return 0;
}

int siot_rts_add_rows(siot_arena *a, siot_rts *acc, const siot_rtrow *rows, uint32_t n, uint32_t keep)
{
    siot_rts y = {0};
    if (!n)
        return 0;
    if (add_rows(a, rows, n, acc->sum) != 0 || lists_from_rows(a, rows, n, keep, &y) != 0)
        return -1;
    for (unsigned l = 0; l < SIOT_RTS_NLISTS; l++)
        if (merge_list(a, acc->x[l], acc->n[l], y.x[l], y.n[l], keep, l & 1, &acc->x[l], &acc->n[l]) != 0)
            return -1;
    return 0;
}

/* The side's times added to acc: its summary, or its rows. */
static int add_side(siot_arena *a, const siot_trace *t, siot_rts *acc, uint32_t keep)
{
    if (!t->rtsum)
        return siot_rts_add_rows(a, acc, t->rt, t->nrt, keep);
    siot_rts y = {.sum = t->rtsum};
    memcpy(y.n, t->nrtx, sizeof y.n);
    memcpy(y.x, t->rtx, sizeof y.x);
    return siot_rts_merge(a, acc, &y, keep);
}

static int rank_cmp(const void *a, const void *b)
{
    const siot_rtrow *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* dst's and src's rows in rank order, a rank once (dst's row first). */
static siot_rtrow *unite_rows(siot_trace *dst, const siot_trace *src, uint32_t *n)
{
    siot_rtrow *rows = siot_arena_alloc(&dst->arena, ((size_t)dst->nrt + src->nrt + 1) * sizeof *rows);
    if (!rows)
        return NULL;
    if (dst->nrt)
        memcpy(rows, dst->rt, dst->nrt * sizeof *rows);
    if (src->nrt)
        memcpy(rows + dst->nrt, src->rt, src->nrt * sizeof *rows);
    uint32_t all = dst->nrt + src->nrt, kept = 0;
    qsort(rows, all, sizeof *rows, rank_cmp); /* stable enough: no merge makes a rank on both sides */
    for (uint32_t i = 0; i < all; i++)
        if (!kept || rows[kept - 1].rank != rows[i].rank)
            rows[kept++] = rows[i];
    *n = kept;
    return rows;
}

void siot_rts_set(siot_trace *t, const siot_rts *acc, uint32_t keep)
{
    t->rtsum = acc->sum;
    memcpy(t->nrtx, acc->n, sizeof t->nrtx);
    memcpy(t->rtx, acc->x, sizeof t->rtx);
    t->rt_keep = keep;
    t->rt = NULL;
    t->nrt = 0;
}

static int summarise(siot_trace *dst, const siot_trace *src, uint32_t keep)
{
    siot_rts acc = {.sum = siot_arena_alloc(&dst->arena, SIOT_RT_NQ * sizeof *acc.sum)};
    if (!acc.sum || add_side(&dst->arena, dst, &acc, keep) != 0 || add_side(&dst->arena, src, &acc, keep) != 0)
        return -1;
    siot_rts_set(dst, &acc, keep);
    return 0;
}

int siot_rts_union(siot_trace *dst, const siot_trace *src)
{
    if (!src->nrt && !src->rtsum)
        return 0;
    uint32_t keep = dst->rt_keep ? dst->rt_keep : src->rt_keep, n = 0;
    if (!dst->rtsum && !src->rtsum && (!keep || dst->nrt + (uint64_t)src->nrt <= 2 * (uint64_t)keep)) {
        siot_rtrow *rows = unite_rows(dst, src, &n);
        if (!rows)
            return -1;
        dst->rt = rows;
        dst->nrt = n;
        dst->rt_keep = keep;
        return 0;
    }
    return summarise(dst, src, keep ? keep : SIOT_RT_KEEP_DEFAULT);
}

uint32_t siot_rts_extremes(const siot_trace *t, unsigned key, int slowest, siot_rtx *out, uint32_t max)
{
    if (key >= SIOT_RT_NQ)
        return 0;
    if (t->rtsum) {
        unsigned l = 2 * key + !!slowest;
        uint32_t m = t->nrtx[l], n = max < m ? max : m;
        for (uint32_t j = 0; j < n; j++)
            out[j] = t->rtx[l][slowest ? m - 1 - j : j];
        return n;
    }
    if (!t->nrt)
        return 0;
    rt_at *at = siot_malloc(t->nrt * sizeof *at);
    if (!at)
        return 0;
    order_rows(t->rt, t->nrt, key, at);
    uint32_t n = max < t->nrt ? max : t->nrt;
    for (uint32_t j = 0; j < n; j++) {
        const rt_at *e = &at[slowest ? t->nrt - 1 - j : j];
        out[j] = (siot_rtx){e->rank, e->v};
    }
    siot_free(at);
    return n;
}

/* One list of a summary read from a file: m entries, ranks of the job,
 * values within the quantity's, in the order of value then rank. */
static const char *check_list(const siot_trace *t, unsigned l, uint32_t m)
{
    unsigned q = l / 2;
    const siot_rtx *x = t->rtx[l];
    if (t->nrtx[l] != m)
        return "trace is corrupt (rank-time extremes of another count than the summary's)";
    for (uint32_t j = 0; j < m; j++) {
        if (x[j].rank < 0 || (uint64_t)x[j].rank >= t->nranks)
            return "trace is corrupt (a rank-time extreme of a rank the job does not have)";
        if (q < SIOT_RT_NQ ? x[j].v < t->rtsum[q].min || x[j].v > t->rtsum[q].max : x[j].v != 0)
            return "trace is corrupt (a rank-time extreme outside its summary's minimum and maximum)";
        if (j && !rtx_before(&x[j - 1], &x[j]))
            return "trace is corrupt (rank-time extremes out of order or a rank twice)";
    }
    return NULL;
}

const char *siot_rts_check(const siot_trace *t)
{
    if (!t->rtsum)
        return NULL;
    uint64_t n = t->rtsum[0].count;
    if (n == 0 || n > t->nranks)
        return "trace is corrupt (a rank-time summary of more ranks than the job has)";
    if (t->nrt)
        return "trace is corrupt (rank-time rows beside a summary)";
    uint32_t m = n < t->rt_keep ? (uint32_t)n : t->rt_keep;
    for (unsigned k = 0; k < SIOT_RT_NQ; k++)
        if (t->rtsum[k].count != n)
            return "trace is corrupt (rank-time summaries of different rank counts)";
    for (unsigned l = 0; l < SIOT_RTS_NLISTS; l++) {
        const char *why = check_list(t, l, m);
        if (why)
            return why;
    }
    return NULL;
}
