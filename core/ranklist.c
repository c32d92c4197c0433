#include "core/ranklist.h"
#include "core/salloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int siot_rl_single(siot_arena *a, siot_ranklist *rl, int32_t rank)
{
    rl->e = siot_arena_alloc(a, sizeof *rl->e);
    if (!rl->e)
        return 0;
    rl->n = 1;
    rl->e[0].start = rank;
    rl->e[0].ndims = 0;
    return 1;
}

uint64_t siot_rl_entry_size(const siot_rentry *e)
{
    uint64_t s = 1;
    for (uint32_t k = 0; k < e->ndims; k++)
        s *= e->dims[k].count;
    return s;
}

int64_t siot_rl_entry_max(const siot_rentry *e)
{
    int64_t m = e->start;
    for (uint32_t k = 0; k < e->ndims; k++)
        m += (int64_t)e->dims[k].stride * (int64_t)(e->dims[k].count - 1);
    return m;
}

int siot_rl_entry_ok(const siot_rentry *e, uint32_t nranks)
{
    if (e->start < 0 || e->ndims > SIOT_RL_MAXDIMS)
        return 0;
    int64_t span = 0;
    for (uint32_t k = 0; k < e->ndims; k++) {
        if (e->dims[k].count < 2 || e->dims[k].stride <= 0)
            return 0;
        if (e->dims[k].stride <= span)
            return 0;
        span += (int64_t)e->dims[k].stride * (int64_t)(e->dims[k].count - 1);
        if (span > (int64_t)nranks)
            return 0;
    }
    return e->start + span < (int64_t)nranks;
}

static int entry_contains(const siot_rentry *e, int64_t rank)
{
    int64_t d = rank - e->start;
    if (d < 0)
        return 0;
    for (int k = (int)e->ndims - 1; k >= 0; k--) {
        int64_t i = d / e->dims[k].stride;
        if (i >= e->dims[k].count)
            i = e->dims[k].count - 1;
        d -= i * e->dims[k].stride;
    }
    return d == 0;
}

static int64_t entry_index(const siot_rentry *e, int64_t rank)
{
    int64_t d = rank - e->start, idx = 0, mult = 1;
    if (d < 0)
        return -1;
    int64_t is[SIOT_RL_MAXDIMS];
    for (int k = (int)e->ndims - 1; k >= 0; k--) {
        int64_t i = d / e->dims[k].stride;
        if (i >= e->dims[k].count)
            i = e->dims[k].count - 1;
        d -= i * e->dims[k].stride;
        is[k] = i;
    }
    if (d != 0)
        return -1;
    for (uint32_t k = 0; k < e->ndims; k++) {
        idx += is[k] * mult;
        mult *= e->dims[k].count;
    }
    return idx;
}

int siot_rl_contains(const siot_ranklist *rl, int64_t rank)
{
    for (uint32_t i = 0; i < rl->n; i++)
        if (entry_contains(&rl->e[i], rank))
            return 1;
    return 0;
}

int64_t siot_rl_index(const siot_ranklist *rl, int64_t rank)
{
    int64_t base = 0;
    for (uint32_t i = 0; i < rl->n; i++) {
        int64_t k = entry_index(&rl->e[i], rank);
        if (k >= 0)
            return base + k;
        base += (int64_t)siot_rl_entry_size(&rl->e[i]);
    }
    return -1;
}

uint64_t siot_rl_size(const siot_ranklist *rl)
{
    uint64_t s = 0;
    for (uint32_t i = 0; i < rl->n; i++)
        s += siot_rl_entry_size(&rl->e[i]);
    return s;
}

int32_t siot_rl_min(const siot_ranklist *rl)
{
    int32_t m = -1;
    for (uint32_t i = 0; i < rl->n; i++)
        if (m < 0 || rl->e[i].start < m)
            m = rl->e[i].start;
    return m;
}

int32_t siot_rl_max(const siot_ranklist *rl)
{
    int64_t m = -1;
    for (uint32_t i = 0; i < rl->n; i++) {
        int64_t x = siot_rl_entry_max(&rl->e[i]);
        if (x > m)
            m = x;
    }
    return (int32_t)m;
}

int32_t siot_rl_nth(const siot_ranklist *rl, uint64_t k)
{
    for (uint32_t i = 0; i < rl->n; i++) {
        const siot_rentry *e = &rl->e[i];
        uint64_t s = siot_rl_entry_size(e);
        if (k < s) {
            int64_t r = e->start;
            for (uint32_t d = 0; d < e->ndims; d++) {
                r += (int64_t)(k % e->dims[d].count) * e->dims[d].stride;
                k /= e->dims[d].count;
            }
            return (int32_t)r;
        }
        k -= s;
    }
    return -1;
}

int siot_rl_equal(const siot_ranklist *a, const siot_ranklist *b)
{
    if (a->n != b->n)
        return 0;
    for (uint32_t i = 0; i < a->n; i++) {
        const siot_rentry *x = &a->e[i], *y = &b->e[i];
        if (x->start != y->start || x->ndims != y->ndims)
            return 0;
        for (uint32_t k = 0; k < x->ndims; k++)
            if (x->dims[k].count != y->dims[k].count || x->dims[k].stride != y->dims[k].stride)
                return 0;
    }
    return 1;
}

static int same_shape(const siot_rentry *a, const siot_rentry *b)
{
    if (a->ndims != b->ndims)
        return 0;
    for (uint32_t k = 0; k < a->ndims; k++)
        if (a->dims[k].count != b->dims[k].count || a->dims[k].stride != b->dims[k].stride)
            return 0;
    return 1;
}

/* Greedy encoding: runs of constant stride become one-dimensional entries,
 * then equal-shaped entries in arithmetic progression of their starts are
 * folded into one more dimension, as long as the result stays canonical. */
int siot_rl_from_sorted(siot_arena *a, siot_ranklist *rl, const int32_t *ranks, uint32_t n)
{
    siot_rentry *tmp = siot_malloc((n ? n : 1) * sizeof *tmp);
    if (!tmp)
        return 0;
    uint32_t m = 0;
    for (uint32_t i = 0; i < n;) {
        siot_rentry e = {.start = ranks[i], .ndims = 0};
        if (i + 1 < n) {
            int64_t stride = (int64_t)ranks[i + 1] - ranks[i];
            uint32_t j = i + 1;
            while (j + 1 < n && (int64_t)ranks[j + 1] - ranks[j] == stride)
                j++;
            uint32_t cnt = j - i + 1;
            /* A pair is worth a dimension only when nothing better follows; keep it simple: */
            if (cnt >= 2 && stride > 0 && stride <= INT32_MAX) {
                e.ndims = 1;
                e.dims[0].count = cnt;
                e.dims[0].stride = (int32_t)stride;
                i = j + 1;
                tmp[m++] = e;
                continue;
            }
        }
        tmp[m++] = e;
        i++;
    }
    /* Fold consecutive entries with identical dims whose starts progress,
     * again and again, so that 3-D and 4-D regular sets end up as one entry. */
    uint32_t out = m;
    for (int pass = 0; pass < SIOT_RL_MAXDIMS; pass++) {
        out = 0;
        for (uint32_t i = 0; i < m;) {
            siot_rentry e = tmp[i];
            uint32_t j = i;
            if (i + 1 < m && e.ndims < SIOT_RL_MAXDIMS) {
                int64_t st = (int64_t)tmp[i + 1].start - tmp[i].start;
                int64_t span = siot_rl_entry_max(&e) - e.start;
                if (same_shape(&tmp[i + 1], &e) && st > span && st <= INT32_MAX) {
                    j = i + 1;
                    while (j + 1 < m && same_shape(&tmp[j + 1], &e) && (int64_t)tmp[j + 1].start - tmp[j].start == st)
                        j++;
                    e.dims[e.ndims].count = j - i + 1;
                    e.dims[e.ndims].stride = (int32_t)st;
                    e.ndims++;
                }
            }
            tmp[out++] = e;
            i = j + 1;
        }
        if (out == m)
            break;
        m = out;
    }
    rl->e = siot_arena_alloc(a, (out ? out : 1) * sizeof *rl->e);
    if (!rl->e) {
        siot_free(tmp);
        return 0;
    }
    memcpy(rl->e, tmp, out * sizeof *rl->e);
    rl->n = out;
    siot_free(tmp);
    return 1;
}

static int cmp_i32(const void *x, const void *y)
{
    int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
    return (a > b) - (a < b);
}

/* A single entry of at most one dimension: its stride (0 for one rank). */
static int line_entry(const siot_ranklist *x, int64_t *stride)
{
    if (x->n != 1 || x->e[0].ndims > 1)
        return 0;
    *stride = x->e[0].ndims ? x->e[0].dims[0].stride : 0;
    return 1;
}

/* The union of two progressions of ranks, lo's all below hi's, that go on
 * as one: the one entry siot_rl_from_sorted makes of their ranks, without
 * listing them. The merge's tree unites [0, 2^k) with [2^k, 2^(k+1)) for
 * every node at every level: listing and sorting the ranks made each level
 * cost twice the one below (docs/scale.md). 1 when done, 0 when not such
 * progressions, -1 without memory. */
static int union_of_lines(siot_arena *a, siot_ranklist *out, const siot_ranklist *x, const siot_ranklist *y)
{
    int64_t sx, sy;
    if (!line_entry(x, &sx) || !line_entry(y, &sy))
        return 0;
    const siot_ranklist *lo = x->e[0].start < y->e[0].start ? x : y, *hi = lo == x ? y : x;
    int64_t slo = lo == x ? sx : sy, shi = lo == x ? sy : sx;
    int64_t top = siot_rl_entry_max(&lo->e[0]), gap = (int64_t)hi->e[0].start - top;
    int64_t s = slo ? slo : shi ? shi : gap;
    if (gap <= 0 || gap != s || (slo && slo != s) || (shi && shi != s) || s > INT32_MAX)
        return 0;
    uint64_t n = siot_rl_entry_size(&lo->e[0]) + siot_rl_entry_size(&hi->e[0]);
    if (n > UINT32_MAX)
        return 0;
    siot_rentry *e = siot_arena_alloc(a, sizeof *e);
    if (!e)
        return -1;
    memset(e, 0, sizeof *e);
    e->start = lo->e[0].start;
    e->ndims = 1;
    e->dims[0].count = (uint32_t)n;
    e->dims[0].stride = (int32_t)s;
    out->e = e;
    out->n = 1;
    return 1;
}

int siot_rl_union(siot_arena *a, siot_ranklist *out, const siot_ranklist *x, const siot_ranklist *y)
{
    int lines = union_of_lines(a, out, x, y);
    if (lines)
        return lines > 0;
    uint64_t nx = siot_rl_size(x), ny = siot_rl_size(y);
    if (nx + ny > UINT32_MAX)
        return 0;
    int32_t *all = siot_malloc((nx + ny + 1) * sizeof *all);
    if (!all)
        return 0;
    uint64_t k = 0;
    for (uint64_t i = 0; i < nx; i++)
        all[k++] = siot_rl_nth(x, i);
    for (uint64_t i = 0; i < ny; i++)
        all[k++] = siot_rl_nth(y, i);
    qsort(all, k, sizeof *all, cmp_i32);
    uint64_t u = 0;
    for (uint64_t i = 0; i < k; i++)
        if (u == 0 || all[u - 1] != all[i])
            all[u++] = all[i];
    int ok = siot_rl_from_sorted(a, out, all, (uint32_t)u);
    siot_free(all);
    return ok;
}

void siot_rl_format(const siot_ranklist *rl, siot_vbuf *out)
{
    char t[96];
    for (uint32_t i = 0; i < rl->n; i++) {
        const siot_rentry *e = &rl->e[i];
        if (i)
            siot_vbuf_u8(out, ',');
        if (e->ndims == 0) {
            snprintf(t, sizeof t, "%d", e->start);
        } else if (e->ndims == 1 && e->dims[0].stride == 1) {
            snprintf(t, sizeof t, "%d-%lld", e->start, (long long)siot_rl_entry_max(e));
        } else {
            int n = snprintf(t, sizeof t, "<%d", e->start);
            for (uint32_t k = 0; k < e->ndims && n > 0 && (size_t)n < sizeof t; k++)
                n += snprintf(t + n, sizeof t - (size_t)n, ";%ux%+d", e->dims[k].count, e->dims[k].stride);
            if (n > 0 && (size_t)n < sizeof t - 1) {
                t[n] = '>';
                t[n + 1] = 0;
            }
        }
        siot_vbuf_put(out, t, strlen(t));
    }
}
