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

/* Keeps the rows among the keep first or last of some quantity, in rank
 * order; the new count. */
static uint32_t cut_rows(siot_rtrow *rows, uint32_t n, uint32_t keep, rt_at *at, uint8_t *mark)
{
    memset(mark, 0, n);
    for (unsigned k = 0; k < SIOT_RT_NQ; k++) {
        order_rows(rows, n, k, at);
        for (uint32_t j = 0; j < n; j++)
            if (j < keep || j >= n - keep)
                mark[at[j].i] = 1;
    }
    uint32_t kept = 0;
    for (uint32_t i = 0; i < n; i++)
        if (mark[i])
            rows[kept++] = rows[i];
    return kept;
}

/* The side's summaries added to sum: its own, or its rows'. */
static int add_side(siot_arena *a, const siot_trace *t, siot_hist *sum)
{
    if (!t->rtsum)
        return add_rows(a, t->rt, t->nrt, sum);
    for (unsigned k = 0; k < SIOT_RT_NQ; k++)
        if (!siot_hist_merge(a, &sum[k], &t->rtsum[k]))
            return -1;
    return 0;
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

static int summarise(siot_trace *dst, const siot_trace *src, siot_rtrow *rows, uint32_t n, uint32_t keep)
{
    siot_hist *sum = siot_arena_alloc(&dst->arena, SIOT_RT_NQ * sizeof *sum);
    rt_at *at = siot_malloc((size_t)n * sizeof *at + 1);
    uint8_t *mark = siot_malloc((size_t)n + 1);
    int rc = sum && at && mark && add_side(&dst->arena, dst, sum) == 0 && add_side(&dst->arena, src, sum) == 0 ? 0 : -1;
    if (rc == 0) {
        dst->nrt = cut_rows(rows, n, keep, at, mark);
        dst->rt = rows;
        dst->rtsum = sum;
        dst->rt_keep = keep;
    }
    siot_free(at);
    siot_free(mark);
    return rc;
}

int siot_rts_union(siot_trace *dst, const siot_trace *src)
{
    if (!src->nrt && !src->rtsum)
        return 0;
    uint32_t keep = dst->rt_keep ? dst->rt_keep : src->rt_keep, n = 0;
    siot_rtrow *rows = unite_rows(dst, src, &n);
    if (!rows)
        return -1;
    if (!dst->rtsum && !src->rtsum && (!keep || n <= 2 * (uint64_t)keep)) {
        dst->rt = rows;
        dst->nrt = n;
        dst->rt_keep = keep;
        return 0;
    }
    return summarise(dst, src, rows, n, keep ? keep : SIOT_RT_KEEP_DEFAULT);
}

uint32_t siot_rts_extremes(const siot_trace *t, unsigned key, int slowest, const siot_rtrow **out, uint32_t max)
{
    if (!t->nrt || key >= SIOT_RT_NQ)
        return 0;
    rt_at *at = siot_malloc(t->nrt * sizeof *at);
    if (!at)
        return 0;
    order_rows(t->rt, t->nrt, key, at);
    uint32_t n = max < t->nrt ? max : t->nrt;
    for (uint32_t j = 0; j < n; j++)
        out[j] = &t->rt[at[slowest ? t->nrt - 1 - j : j].i];
    siot_free(at);
    return n;
}

const char *siot_rts_check(const siot_trace *t)
{
    if (!t->rtsum)
        return NULL;
    uint64_t n = t->rtsum[0].count;
    if (n == 0 || n > t->nranks)
        return "trace is corrupt (a rank-time summary of more ranks than the job has)";
    if (t->nrt > n)
        return "trace is corrupt (more rank-time rows than the summary's ranks)";
    for (unsigned k = 0; k < SIOT_RT_NQ; k++) {
        const siot_hist *h = &t->rtsum[k];
        if (h->count != n)
            return "trace is corrupt (rank-time summaries of different rank counts)";
        for (uint32_t i = 0; i < t->nrt; i++) {
            uint64_t v = siot_rt_value(&t->rt[i], k);
            if (k != SIOT_RT_compute && (v < h->min || v > h->max))
                return "trace is corrupt (a rank-time row outside its summary's minimum and maximum)";
        }
    }
    return NULL;
}
