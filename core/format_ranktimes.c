/* format_ranktimes: the ranks' own times, the RANKTIMES and RANKSUM
 * sections (docs/format.md: RANKTIMES, RANKSUM and "Minor 7").
 *
 * Writes and reads RANKTIMES, a row of time totals per rank for the
 * quantities some rank has (core/ranktimes.h: ranks as gaps, times as
 * 2-byte times in the file form), and RANKSUM, the summary a job keeps
 * past 2K ranks (core/ranksum.h): per quantity a histogram of one value
 * per rank and its K fastest and K slowest ranks. The reader refuses rows
 * beyond the rank count, a rank with two rows, and a summary of another
 * rank count; quantities from a newer version are skipped. How blocks'
 * summaries and rows are united is core/format_file.c's.
 *
 * Part of the trace format (core/format_int.h); locks, signals and errors
 * as core/format.h says. */
#include "core/format_int.h"

#include <stdlib.h>

#include "core/ranktimes.h"
#include "core/salloc.h"

/* Only the quantities some rank has are listed; ranks as gaps from the
 * previous row (rows are sorted); times in the file form, exact between
 * ranks. */
static void ranktimes_section(const siot_trace *t, int exact, siot_vbuf *s, siot_vbuf *out)
{
    s->len = 0;
    uint8_t used[SIOT_RT_N] = {0};
    uint64_t nused = 0;
    for (uint32_t r = 0; r < t->nrt; r++)
        for (unsigned k = 0; k < SIOT_RT_N; k++)
            used[k] |= t->rt[r].v[k] != 0;
    for (unsigned k = 0; k < SIOT_RT_N; k++)
        nused += used[k];
    siot_vbuf_uvar(s, nused);
    for (unsigned k = 0; k < SIOT_RT_N; k++)
        if (used[k])
            put_cstr(s, siot_rt_name(k));
    siot_vbuf_uvar(s, t->nrt);
    int64_t prev = -1;
    for (uint32_t r = 0; r < t->nrt; r++) {
        siot_vbuf_uvar(s, (uint64_t)(t->rt[r].rank - prev - 1));
        prev = t->rt[r].rank;
        for (unsigned k = 0; k < SIOT_RT_N; k++) {
            if (!used[k])
                continue;
            if (exact) {
                siot_vbuf_uvar(s, t->rt[r].v[k]);
            } else {
                uint16_t c = time16(t->rt[r].v[k]);
                siot_vbuf_u8(s, (uint8_t)(c & 0xff));
                siot_vbuf_u8(s, (uint8_t)(c >> 8));
            }
        }
    }
    end_section(out, SEC_RANKTIMES, s);
}

/* One time of a RANKTIMES row, in the form the header's flags say. */
static uint64_t dec_rt_time(dec *d)
{
    if (!(d->t->flags & SIOT_TF_QBINS))
        return siot_rd_uvar(&d->rd);
    unsigned code = siot_rd_u8(&d->rd);
    code |= (unsigned)siot_rd_u8(&d->rd) << 8;
    return time16_value((uint16_t)code);
}

/* Rows are added to those of earlier blocks; each block's rows are sorted
 * by construction (gaps), and siot_rt_settle sorts the whole and refuses a
 * rank listed twice. */
int siot_fmt_dec_ranktimes(dec *d)
{
    siot_trace *t = d->t;
    uint64_t nk = siot_rd_uvar_max(&d->rd, 64, "too many per-rank quantities");
    int key[64];
    for (uint64_t k = 0; k < nk && !d->rd.err; k++) {
        uint64_t len = siot_rd_uvar_max(&d->rd, 256, "quantity name too long");
        const char *name = (const char *)d->rd.p;
        if (!d->rd.err && len > siot_rd_left(&d->rd))
            return dfail(d, "quantity name runs past the section");
        if (d->rd.err)
            break;
        d->rd.p += len;
        key[k] = siot_rt_from_name(name, len); /* -1: from a newer version, skipped */
    }
    uint64_t n = siot_rd_count(&d->rd, 1 + (t->flags & SIOT_TF_QBINS ? 2 : 1) * nk, "rank rows longer than the data");
    if (d->rd.err)
        return -1;
    if (t->nrt + n > t->nranks)
        return dfail(d, "more rank rows than ranks");
    siot_rtrow *rows = dalloc(d, (t->nrt + n + 1) * sizeof *rows);
    if (!rows)
        return -1;
    copy_n(rows, t->rt, t->nrt * sizeof *rows);
    int64_t rank = -1;
    for (uint64_t i = 0; i < n && !d->rd.err; i++) {
        rank += 1 + (int64_t)siot_rd_uvar_max(&d->rd, SIOT_MAX_RANKS, "rank out of range");
        if (rank >= (int64_t)t->nranks)
            return dfail(d, "rank row beyond the rank count");
        siot_rtrow *row = &rows[t->nrt + i];
        row->rank = (int32_t)rank;
        for (uint64_t k = 0; k < nk; k++) {
            uint64_t v = dec_rt_time(d);
            if (key[k] >= 0)
                row->v[key[k]] = v;
        }
    }
    t->rt = rows;
    t->nrt += (uint32_t)n;
    return d->rd.err ? -1 : 0;
}

static int rt_cmp(const void *a, const void *b)
{
    const siot_rtrow *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

int siot_rt_settle(siot_trace *t)
{
    if (t->nrt > 1)
        qsort(t->rt, t->nrt, sizeof *t->rt, rt_cmp);
    for (uint32_t i = 1; i < t->nrt; i++)
        if (t->rt[i].rank == t->rt[i - 1].rank)
            return -1;
    return 0;
}

/* Extremes in the order of their quantity: by value, then rank. */
static int rtx_cmp(const void *a, const void *b)
{
    const siot_rtx *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static int rtx_rank_cmp(const void *a, const void *b)
{
    const siot_rtx *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* A list of extremes in rank order: the ranks as gaps, then (with_values)
 * their values as RANKTIMES writes times. */
static void put_rtx_list(siot_vbuf *s, const siot_rtx *x, uint32_t m, int with_values, int exact)
{
    siot_rtx *r = siot_malloc((size_t)m * sizeof *r + 1);
    if (!r) {
        s->oom = 1;
        return;
    }
    memcpy(r, x, (size_t)m * sizeof *r);
    qsort(r, m, sizeof *r, rtx_rank_cmp);
    int64_t prev = -1;
    for (uint32_t j = 0; j < m; j++, prev = r[j - 1].rank)
        siot_vbuf_uvar(s, (uint64_t)(r[j].rank - prev - 1));
    for (uint32_t j = 0; with_values && j < m; j++) {
        if (exact) {
            siot_vbuf_uvar(s, r[j].v);
        } else {
            uint16_t c = time16(r[j].v);
            siot_vbuf_u8(s, (uint8_t)(c & 0xff));
            siot_vbuf_u8(s, (uint8_t)(c >> 8));
        }
    }
    siot_free(r);
}

/* m extremes in rank order (gaps), then with_values their values; into
 * *out sorted by value, then rank. */
static int dec_rtx_list(dec *d, uint32_t m, int with_values, siot_rtx **out)
{
    siot_rtx *x = dalloc(d, (size_t)m * sizeof *x + 1);
    if (!x)
        return -1;
    int64_t prev = -1;
    for (uint32_t j = 0; j < m && !d->rd.err; j++) {
        uint64_t gap = siot_rd_uvar_max(&d->rd, d->t->nranks, "rank-time extreme of a rank the job does not have");
        if (!d->rd.err && (uint64_t)prev + 1 + gap >= d->t->nranks)
            return dfail(d, "rank-time extreme of a rank the job does not have");
        x[j].rank = (int32_t)(prev + 1 + (int64_t)gap);
        prev = x[j].rank;
    }
    for (uint32_t j = 0; with_values && j < m && !d->rd.err; j++)
        x[j].v = dec_rt_time(d);
    if (d->rd.err)
        return -1;
    qsort(x, m, sizeof *x, rtx_cmp);
    *out = x;
    return 0;
}

/* Minor 7: the summary of the ranks' times (core/ranksum.h), when the job
 * kept one: its K, its rank count, the K lowest and highest ranks, then each
 * quantity that is not zero on every rank, by name, as a histogram and its
 * K fastest and K slowest (rank, value). A quantity not listed is 0 on
 * every rank: its extremes are the lowest and highest ranks. */
static void ranksum_section(const siot_trace *t, int exact, siot_vbuf *s, siot_vbuf *out)
{
    s->len = 0;
    uint64_t nused = 0;
    for (unsigned k = 0; k < SIOT_RT_NQ; k++)
        nused += t->rtsum[k].max != 0;
    siot_vbuf_uvar(s, t->rt_keep);
    siot_vbuf_uvar(s, t->rtsum[0].count);
    for (unsigned l = 2 * SIOT_RT_NQ; l < SIOT_RTS_NLISTS; l++)
        put_rtx_list(s, t->rtx[l], t->nrtx[l], 0, exact);
    siot_vbuf_uvar(s, nused);
    for (unsigned k = 0; k < SIOT_RT_NQ; k++) {
        if (!t->rtsum[k].max)
            continue;
        put_cstr(s, siot_rts_name(k));
        uint8_t *d = siot_vbuf_reserve(s, HIST_HEAD_MAX)
                         ? put_hist(s, s->data + s->len, &t->rtsum[k], exact, 0, SIOT_HIST_NO_EXPECT)
                         : NULL;
        if (d)
            s->len = (size_t)(d - s->data);
        put_rtx_list(s, t->rtx[2 * k], t->nrtx[2 * k], 1, exact);
        put_rtx_list(s, t->rtx[2 * k + 1], t->nrtx[2 * k + 1], 1, exact);
    }
    end_section(out, SEC_RANKSUM, s);
}

/* A quantity's summary (minor 7): a histogram of one value per rank and
 * its m fastest and slowest ranks. */
static int dec_sum_key(dec *d, siot_rts *y, uint8_t *seen, uint64_t n, uint32_t m)
{
    uint64_t len = siot_rd_uvar_max(&d->rd, 256, "quantity name too long");
    if (!d->rd.err && len > siot_rd_left(&d->rd))
        return dfail(d, "quantity name runs past the section");
    if (d->rd.err)
        return -1;
    int k = siot_rts_from_name((const char *)d->rd.p, len);
    d->rd.p += len;
    siot_hist h;
    siot_rtx *lo, *hi;
    if (siot_fmt_dec_hist(d, &h, SIOT_HIST_NO_EXPECT) || dec_rtx_list(d, m, 1, &lo) || dec_rtx_list(d, m, 1, &hi))
        return -1;
    if (h.count != n)
        return dfail(d, "a rank-time summary of another rank count");
    if (k < 0) /* from a newer version, skipped */
        return 0;
    if (seen[k]++)
        return dfail(d, "a quantity summarised twice");
    y->sum[k] = h;
    y->x[2 * k] = lo, y->x[2 * k + 1] = hi;
    y->n[2 * k] = y->n[2 * k + 1] = m;
    return 0;
}

/* A quantity 0 on every rank: a histogram of n zeros, its extremes the
 * lowest and highest ranks. */
static int zero_quantity(dec *d, siot_rts *y, unsigned k, uint64_t n)
{
    y->sum[k] = (siot_hist){.count = n, .max_rank = -1, .bins = dalloc(d, SIOT_HBINS * sizeof(uint32_t))};
    if (!y->sum[k].bins)
        return -1;
    y->sum[k].bins[0] = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
    for (unsigned s = 0; s < 2; s++) {
        y->x[2 * k + s] = y->x[2 * SIOT_RT_NQ + s];
        y->n[2 * k + s] = y->n[2 * SIOT_RT_NQ + s];
    }
    return 0;
}

/* The summary of a block's ranks' times, into *y; quantities not listed
 * are 0 on every rank. */
int siot_fmt_dec_ranksum(dec *d, siot_rts *y, uint32_t *keep_out)
{
    siot_trace *t = d->t;
    uint64_t keep = siot_rd_uvar_max(&d->rd, SIOT_RT_KEEP_MAX, "rank-time extremes out of range");
    uint64_t n = siot_rd_uvar_max(&d->rd, t->nranks, "rank-time summary of more ranks than the job has");
    if (d->rd.err)
        return -1;
    if (n == 0 || keep == 0)
        return dfail(d, "an empty rank-time summary");
    uint32_t m = (uint32_t)(n < keep ? n : keep);
    y->sum = dalloc(d, SIOT_RT_NQ * sizeof *y->sum);
    uint8_t seen[SIOT_RT_NQ] = {0};
    if (!y->sum)
        return -1;
    for (unsigned s = 0; s < 2; s++)
        if (dec_rtx_list(d, m, 0, &y->x[2 * SIOT_RT_NQ + s]))
            return -1;
    y->n[2 * SIOT_RT_NQ] = y->n[2 * SIOT_RT_NQ + 1] = m;
    uint64_t nk = siot_rd_uvar_max(&d->rd, 64, "too many per-rank quantities");
    for (uint64_t i = 0; i < nk && !d->rd.err; i++)
        if (dec_sum_key(d, y, seen, n, m))
            return -1;
    if (d->rd.err)
        return -1;
    for (unsigned k = 0; k < SIOT_RT_NQ; k++)
        if (!seen[k] && zero_quantity(d, y, k, n))
            return -1;
    *keep_out = (uint32_t)keep;
    return 0;
}

/* The rank-time sections: rows, and the summary when there is one; how
 * many sections that is. */
unsigned siot_fmt_rank_sections(const siot_trace *t, int exact, siot_vbuf *s, siot_vbuf *out)
{
    ranktimes_section(t, exact, s, out);
    if (!t->rtsum)
        return 1;
    ranksum_section(t, exact, s, out);
    return 2;
}
