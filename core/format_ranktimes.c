/* format_ranktimes: the ranks' own times, the RANKTIMES and RANKSUM
 * sections (docs/format.md: RANKTIMES, RANKSUM, "Minor 7" and "Minor 9").
 *
 * Writes and reads RANKTIMES, a row of time totals per rank for the
 * quantities some rank has (core/ranktimes.h: ranks as gaps, times as
 * 2-byte times in the file form), and RANKSUM, the summary a job keeps
 * past 2K ranks (core/ranksum.h): per quantity a histogram of one value
 * per rank and its K fastest and K slowest ranks; written in minor 9's
 * form (tag 8), read in it and in minor 7's (tag 7). The reader refuses rows
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

/* A time's code: the time itself between ranks (exact), its 2-byte file
 * form in files; codes grow with the times, so a list sorted by time is
 * sorted by code. */
static uint64_t tcode(uint64_t v, int exact) { return exact ? v : time16(v); }
static uint64_t tvalue(uint64_t c, int exact) { return exact ? c : time16_value((uint16_t)c); }

/* A code as RANKTIMES writes a time: a uvar, or 2 bytes little-endian. */
static void put_tcode(siot_vbuf *s, uint64_t c, int exact)
{
    if (exact) {
        siot_vbuf_uvar(s, c);
        return;
    }
    siot_vbuf_u8(s, (uint8_t)(c & 0xff));
    siot_vbuf_u8(s, (uint8_t)(c >> 8));
}

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
            put_tcode(s, tcode(t->rt[r].v[k], exact), exact);
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
    for (uint32_t j = 0; with_values && j < m; j++)
        put_tcode(s, tcode(r[j].v, exact), exact);
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
 * every rank: its extremes are the lowest and highest ranks. Written only
 * when siot_fmt_ranksum_minor7 is set (the tests of its reader). */
static void ranksum7_section(const siot_trace *t, int exact, siot_vbuf *s, siot_vbuf *out)
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

/* Minor 7's quantities, after K and n: the lowest and highest ranks, then
 * each quantity by name. */
static int dec_ranksum7(dec *d, siot_rts *y, uint8_t *seen, uint64_t n, uint32_t m)
{
    for (unsigned s = 0; s < 2; s++)
        if (dec_rtx_list(d, m, 0, &y->x[2 * SIOT_RT_NQ + s]))
            return -1;
    uint64_t nk = siot_rd_uvar_max(&d->rd, 64, "too many per-rank quantities");
    for (uint64_t i = 0; i < nk && !d->rd.err; i++)
        if (dec_sum_key(d, y, seen, n, m))
            return -1;
    return d->rd.err ? -1 : 0;
}

/* Minor 9 (tag SEC_RANKSUM9): the same summary, nothing of it lost, in
 * about half the bytes. Each quantity has a number (the computation 0, key
 * k of core/ranktimes.h k + 1: keys are only appended) and the section a
 * mask of those listed, in place of their names. A quantity's lists are
 * written in the order of value: the values as the differences of their
 * codes (the fastest up from its first, the slowest down from its last,
 * itself the difference from the fastest's first), so one byte each where
 * neighbours are close, and the ranks in w bits each. Its histogram leaves
 * out what the lists hold: the count is n, the minimum the fastest's first
 * value, the maximum and its rank the slowest's last, unless the head says
 * otherwise (a histogram read from a file keeps a minimum lowered to its
 * lowest bin). A quantity whose entry would be byte for byte an earlier
 * one's (io and layer_mpiio in a program whose I/O is all MPI-IO) is that
 * one's number. docs/format.md "Minor 9". */
enum { RS_REF = 1, RS_MIN = 2, RS_MAX = 4, RS_TOP = 8 };

static unsigned file_key(unsigned k) { return k == SIOT_RT_compute ? 0 : k + 1; }
static int key_of_file(unsigned c) { return c == 0 ? SIOT_RT_compute : c - 1 < SIOT_RT_N ? (int)c - 1 : -1; }

/* A list's ranks and codes, in the order of code, then rank: the order its
 * reader sorts the values it gets back into. */
static void by_code(const siot_rtx *x, uint32_t m, int exact, siot_rtx *out)
{
    for (uint32_t j = 0; j < m; j++)
        out[j] = (siot_rtx){x[j].rank, tcode(x[j].v, exact)};
    qsort(out, m, sizeof *out, rtx_cmp);
}

/* n ranks of w bits each (w <= 31), least significant first. */
static void put_rank_bits(siot_vbuf *s, const siot_rtx *x, uint32_t n, unsigned w)
{
    uint64_t acc = 0;
    unsigned have = 0;
    for (uint32_t j = 0; j < n; j++) {
        acc |= (uint64_t)x[j].rank << have;
        for (have += w; have >= 8; have -= 8, acc >>= 8)
            siot_vbuf_u8(s, (uint8_t)acc);
    }
    if (have)
        siot_vbuf_u8(s, (uint8_t)acc);
}

static int dec_rank_bits(dec *d, siot_rtx *x, uint32_t n, unsigned w)
{
    uint64_t acc = 0;
    unsigned have = 0;
    for (uint32_t j = 0; j < n && !d->rd.err; j++) {
        for (; have < w; have += 8)
            acc |= (uint64_t)siot_rd_u8(&d->rd) << have;
        x[j].rank = (int32_t)(acc & ((1ULL << w) - 1));
        acc >>= w, have -= w;
        if ((uint64_t)x[j].rank >= d->t->nranks)
            return dfail(d, "rank-time extreme of a rank the job does not have");
    }
    return d->rd.err ? -1 : 0;
}

/* What of h its entry writes: its minimum, maximum, the maximum's rank
 * when the lists' ends (lo[0], hi[m-1], as codes) do not give them. */
static unsigned own_parts(const siot_hist *h, const siot_rtx *lo, const siot_rtx *hi, uint32_t m, int exact)
{
    return (tcode(h->min, exact) != lo[0].v ? RS_MIN : 0) | (tcode(h->max, exact) != hi[m - 1].v ? RS_MAX : 0) |
           (h->max_rank != hi[m - 1].rank || h->max_occ ? RS_TOP : 0);
}

/* Quantity k's entry (m >= 1 extremes a side, as its lists have; buf:
 * room for 2m). */
static void put_quantity9(siot_vbuf *e, const siot_trace *t, unsigned k, uint32_t m, unsigned w, int exact,
                          siot_rtx *buf)
{
    const siot_hist *h = &t->rtsum[k];
    siot_rtx *lo = buf, *hi = buf + m;
    if (!m || t->nrtx[2 * k] != m || t->nrtx[2 * k + 1] != m) { /* not a summary siot_rts_check passes */
        e->oom = 1;
        return;
    }
    by_code(t->rtx[2 * k], m, exact, lo);
    by_code(t->rtx[2 * k + 1], m, exact, hi);
    unsigned own = own_parts(h, lo, hi, m, exact);
    siot_vbuf_uvar(e, own);
    if (own & RS_MIN)
        put_tcode(e, tcode(h->min, exact), exact);
    if (own & RS_MAX)
        put_tcode(e, tcode(h->max, exact), exact);
    if (own & RS_TOP) { /* as an event's histogram writes them */
        siot_vbuf_uvar(e, ((uint64_t)(int64_t)h->max_rank + 1) << 1 | (h->max_occ == 0));
        if (h->max_occ)
            siot_vbuf_uvar(e, h->max_occ);
    }
    put_tcode(e, lo[0].v, exact);
    for (uint32_t j = 1; j < m; j++)
        siot_vbuf_uvar(e, lo[j].v - lo[j - 1].v);
    siot_vbuf_uvar(e, hi[m - 1].v - lo[0].v);
    for (uint32_t j = m - 1; j > 0; j--)
        siot_vbuf_uvar(e, hi[j].v - hi[j - 1].v);
    put_rank_bits(e, buf, 2 * m, w);
    if (h->count >= 2)
        siot_fmt_enc_hist_stats(e, h, exact);
}

/* The ranks' own lists are the m lowest and the m highest of the job's
 * ranks (every rank summarised): the reader makes them. */
static int default_rank_lists(const siot_trace *t, uint32_t m)
{
    const siot_rtx *lo = t->rtx[2 * SIOT_RT_NQ], *hi = t->rtx[2 * SIOT_RT_NQ + 1];
    if (t->nrtx[2 * SIOT_RT_NQ] != m || t->nrtx[2 * SIOT_RT_NQ + 1] != m || m > t->nranks)
        return 0;
    for (uint32_t j = 0; j < m; j++)
        if (lo[j].rank != (int32_t)j || hi[j].rank != (int32_t)(t->nranks - m + j) || lo[j].v || hi[j].v)
            return 0;
    return 1;
}

/* The width of the largest rank in the lists of the quantities in mask. */
static unsigned rank_width(const siot_trace *t, uint64_t mask)
{
    int32_t top = 0;
    for (unsigned c = 0; c < SIOT_RT_NQ; c++)
        for (unsigned s = 0; (mask >> c & 1) && s < 2; s++) {
            unsigned l = 2 * (unsigned)key_of_file(c) + s;
            for (uint32_t j = 0; j < t->nrtx[l]; j++)
                top = t->rtx[l][j].rank > top ? t->rtx[l][j].rank : top;
        }
    return top ? 32u - (unsigned)__builtin_clz((uint32_t)top) : 0;
}

/* The quantities' entries, each written as the number of an earlier one
 * when its bytes are that one's. */
static void put_entries(siot_vbuf *s, const siot_trace *t, uint64_t mask, uint32_t m, unsigned w, int exact,
                        siot_rtx *buf)
{
    siot_vbuf e;
    siot_vbuf_init(&e);
    size_t at[SIOT_RT_NQ + 1] = {0};
    for (unsigned c = 0; c < SIOT_RT_NQ; c++) {
        at[c] = e.len;
        if (!(mask >> c & 1))
            continue;
        put_quantity9(&e, t, (unsigned)key_of_file(c), m, w, exact, buf);
        if (e.oom)
            break;
        size_t len = e.len - at[c];
        unsigned same = c;
        for (unsigned j = 0; j < c && same == c; j++)
            if ((mask >> j & 1) && at[j + 1] - at[j] == len && !memcmp(e.data + at[j], e.data + at[c], len))
                same = j;
        if (same < c)
            siot_vbuf_uvar(s, (uint64_t)same << 1 | RS_REF);
        else
            siot_vbuf_put(s, e.data + at[c], len);
    }
    s->oom |= e.oom;
    siot_vbuf_free(&e);
}

/* Minor 9: K, n, the rank width w << 1 | whether the ranks' own lists
 * follow (as in minor 7), the mask of quantities listed, their entries. */
static void ranksum9_section(const siot_trace *t, int exact, siot_vbuf *s, siot_vbuf *out)
{
    uint64_t n = t->rtsum[0].count, mask = 0;
    uint32_t m = n < t->rt_keep ? (uint32_t)n : t->rt_keep;
    for (unsigned k = 0; k < SIOT_RT_NQ; k++)
        mask |= (uint64_t)(t->rtsum[k].max != 0) << file_key(k);
    unsigned w = rank_width(t, mask);
    int lists = !default_rank_lists(t, m);
    s->len = 0;
    siot_vbuf_uvar(s, t->rt_keep);
    siot_vbuf_uvar(s, n);
    siot_vbuf_uvar(s, (uint64_t)w << 1 | (uint64_t)lists);
    for (unsigned l = 2 * SIOT_RT_NQ; lists && l < SIOT_RTS_NLISTS; l++)
        put_rtx_list(s, t->rtx[l], t->nrtx[l], 0, exact);
    siot_vbuf_uvar(s, mask);
    siot_rtx *buf = siot_malloc(2 * (size_t)m * sizeof *buf + 1);
    if (buf)
        put_entries(s, t, mask, m, w, exact, buf);
    else
        s->oom = 1;
    siot_free(buf);
    end_section(out, SEC_RANKSUM9, s);
}

/* A quantity's entry and lists as read (minor 9), kept for the entries
 * that name it. */
typedef struct rs_ent {
    siot_hist h;
    siot_rtx *x;
} rs_ent;

/* Entry c names entry j: its histogram (bins of its own, as merges add
 * into them) and lists. */
static int copy_entry(dec *d, rs_ent *e, unsigned c, uint64_t mask, uint64_t j)
{
    if (j >= c || !(mask >> j & 1))
        return dfail(d, "a rank-time summary names a quantity not listed before it");
    e[c] = e[j];
    if (e[j].h.bins) {
        e[c].h.bins = dalloc(d, SIOT_HBINS * sizeof *e[c].h.bins);
        if (!e[c].h.bins)
            return -1;
        memcpy(e[c].h.bins, e[j].h.bins, SIOT_HBINS * sizeof *e[c].h.bins);
    }
    return 0;
}

/* A code of the file form (exponent up to 53, as a histogram's times), or
 * any value between ranks. */
static uint64_t dec_tcode(dec *d, int exact)
{
    if (exact)
        return siot_rd_uvar(&d->rd);
    unsigned c = siot_rd_u8(&d->rd);
    c |= (unsigned)siot_rd_u8(&d->rd) << 8;
    if (!d->rd.err && c >> 10 > 53)
        dfail(d, "rank-time summary time out of range");
    return c;
}

/* c + or - the next uvar, within the codes' range. */
static uint64_t dec_step(dec *d, uint64_t c, int up, int exact)
{
    uint64_t v = siot_rd_uvar(&d->rd), top = exact ? UINT64_MAX : (53u << 10 | 1023u);
    if (!d->rd.err && (up ? v > top - c : v > c))
        dfail(d, "rank-time summary time out of range");
    return up ? c + v : c - v;
}

/* The 2m codes of an entry's lists, its ranks, then the values sorted, each
 * list by value then rank. */
static int dec_lists9(dec *d, siot_rtx *x, uint32_t m, unsigned w, int exact)
{
    x[0].v = dec_tcode(d, exact);
    for (uint32_t j = 1; j < m; j++)
        x[j].v = dec_step(d, x[j - 1].v, 1, exact);
    x[2 * m - 1].v = dec_step(d, x[0].v, 1, exact);
    for (uint32_t j = 2 * m - 1; j > m; j--)
        x[j - 1].v = dec_step(d, x[j].v, 0, exact);
    if (d->rd.err || dec_rank_bits(d, x, 2 * m, w))
        return -1;
    for (uint32_t j = 0; j < 2 * m; j++)
        x[j].v = tvalue(x[j].v, exact);
    qsort(x, m, sizeof *x, rtx_cmp);
    qsort(x + m, m, sizeof *x, rtx_cmp);
    return 0;
}

/* The histogram's head the entry writes (own: which parts). */
static void dec_own_parts(dec *d, siot_hist *h, unsigned own, int exact)
{
    if (own & RS_MIN)
        h->min = tvalue(dec_tcode(d, exact), exact);
    if (own & RS_MAX)
        h->max = tvalue(dec_tcode(d, exact), exact);
    if (own & RS_TOP) {
        uint64_t v = siot_rd_uvar(&d->rd);
        if (!d->rd.err && (v >> 1) > d->t->nranks)
            dfail(d, "histogram rank out of range");
        h->max_rank = (int32_t)(v >> 1) - 1;
        h->max_occ = v & 1 ? 0 : siot_rd_uvar(&d->rd);
    }
}

/* Entry c (minor 9) into e[c]. */
static int dec_quantity9(dec *d, rs_ent *e, unsigned c, uint64_t mask, uint64_t n, uint32_t m, unsigned w)
{
    int exact = !(d->t->flags & SIOT_TF_QBINS);
    uint64_t own = siot_rd_uvar(&d->rd);
    if (own & RS_REF)
        return d->rd.err ? -1 : copy_entry(d, e, c, mask, own >> 1);
    if (own > (RS_MIN | RS_MAX | RS_TOP))
        return dfail(d, "a rank-time summary of an unknown form");
    siot_hist *h = &e[c].h;
    *h = (siot_hist){.count = n, .max_rank = -1};
    dec_own_parts(d, h, (unsigned)own, exact);
    if (!d->rd.err && siot_rd_left(&d->rd) < 2 * (uint64_t)m)
        return dfail(d, "rank-time extremes longer than the data");
    siot_rtx *x = e[c].x = dalloc(d, 2 * (size_t)m * sizeof *x);
    if (d->rd.err || dec_lists9(d, x, m, w, exact))
        return -1;
    if (!(own & RS_MIN))
        h->min = x[0].v;
    if (!(own & RS_MAX))
        h->max = x[2 * m - 1].v;
    if (!(own & RS_TOP))
        h->max_rank = x[2 * m - 1].rank;
    if (h->min > h->max)
        return dfail(d, "histogram minimum above its maximum");
    h->mean = (double)h->min;
    return n >= 2 ? siot_fmt_dec_hist_stats(d, h) : 0;
}

/* Minor 9's quantities, after K and n (m = min(K, n) >= 1). */
static int dec_ranksum9(dec *d, siot_rts *y, uint8_t *seen, uint64_t n, uint32_t m)
{
    uint64_t v = siot_rd_uvar_max(&d->rd, 63, "rank-time extremes of ranks too wide");
    unsigned w = (unsigned)(v >> 1);
    for (unsigned s = 0; (v & 1) && s < 2; s++)
        if (dec_rtx_list(d, m, 0, &y->x[2 * SIOT_RT_NQ + s]))
            return -1;
    if (!(v & 1) && m > d->t->nranks)
        return dfail(d, "rank-time extremes of more ranks than the job has");
    for (unsigned s = 0; !(v & 1) && s < 2; s++) {
        siot_rtx *x = y->x[2 * SIOT_RT_NQ + s] = dalloc(d, (size_t)m * sizeof *x);
        for (uint32_t j = 0; x && j < m; j++)
            x[j] = (siot_rtx){(int32_t)(s ? d->t->nranks - m + j : j), 0};
    }
    uint64_t mask = siot_rd_uvar(&d->rd);
    rs_ent *e = dalloc(d, 64 * sizeof *e);
    for (unsigned c = 0; c < 64 && e && !d->rd.err; c++) {
        int k = key_of_file(c);
        if (!(mask >> c & 1))
            continue;
        if (dec_quantity9(d, e, c, mask, n, m, w))
            return -1;
        if (k < 0) /* from a newer version, skipped */
            continue;
        seen[k] = 1;
        y->sum[k] = e[c].h;
        y->x[2 * k] = e[c].x, y->x[2 * k + 1] = e[c].x + m;
        y->n[2 * k] = y->n[2 * k + 1] = m;
    }
    return d->rd.err ? -1 : 0;
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
int siot_fmt_dec_ranksum(dec *d, uint8_t tag, siot_rts *y, uint32_t *keep_out)
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
    if (tag == SEC_RANKSUM9 ? dec_ranksum9(d, y, seen, n, m) : dec_ranksum7(d, y, seen, n, m))
        return -1;
    y->n[2 * SIOT_RT_NQ] = y->n[2 * SIOT_RT_NQ + 1] = m;
    for (unsigned k = 0; k < SIOT_RT_NQ; k++)
        if (!seen[k] && zero_quantity(d, y, k, n))
            return -1;
    *keep_out = (uint32_t)keep;
    return 0;
}

int siot_fmt_ranksum_minor7;

/* The rank-time sections: rows, and the summary when there is one. Minor
 * 9 leaves out the rows' section when a summary holds the times (it would
 * be empty: 8 bytes, its checksum incompressible). */
unsigned siot_fmt_rank_nsections(const siot_trace *t)
{
    return !t->rtsum || (!siot_fmt_ranksum_minor7 && !t->nrt) ? 1 : 2;
}

unsigned siot_fmt_rank_sections(const siot_trace *t, int exact, siot_vbuf *s, siot_vbuf *out)
{
    if (!t->rtsum || siot_fmt_ranksum_minor7 || t->nrt)
        ranktimes_section(t, exact, s, out);
    if (t->rtsum)
        (siot_fmt_ranksum_minor7 ? ranksum7_section : ranksum9_section)(t, exact, s, out);
    return siot_fmt_rank_nsections(t);
}
