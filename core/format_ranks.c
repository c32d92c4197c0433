/* format_ranks: rank lists, and rank tables (a value per group of ranks,
 * SIOT_X_RANKED) with their runs (docs/format.md: ranklist, RANKED and
 * "Minor 6").
 *
 * Writes and reads: a rank list (its entries: start, dimensions of count
 * and stride), the canonical list of every rank that a node's kind byte
 * stands for, and a rank table either as a rank list and a value per entry
 * or, when shorter, as the runs of consecutive ranks in rank order and the
 * values (RANKED_RUNS_TAG). The reader checks every rank against the job's
 * and accepts canonical lists only (core/ranklist.h).
 *
 * Part of the trace format (core/format_int.h); locks, signals and errors
 * as core/format.h says. */
#include "core/format_int.h"

#include "core/ranklist.h"
#include "core/salloc.h"

void siot_fmt_enc_ranklist(siot_vbuf *b, const siot_ranklist *rl)
{
    siot_vbuf_uvar(b, rl->n);
    for (uint32_t i = 0; i < rl->n; i++) {
        const siot_rentry *e = &rl->e[i];
        siot_vbuf_uvar(b, (uint64_t)e->start);
        siot_vbuf_u8(b, (uint8_t)e->ndims);
        for (uint32_t k = 0; k < e->ndims; k++) {
            siot_vbuf_uvar(b, e->dims[k].count);
            siot_vbuf_uvar(b, (uint64_t)e->dims[k].stride);
        }
    }
}

int siot_fmt_dec_ranklist(dec *d, siot_ranklist *rl)
{
    uint64_t n = siot_rd_count(&d->rd, 2, "rank list longer than the data");
    if (d->rd.err)
        return -1;
    rl->n = (uint32_t)n;
    rl->e = dalloc(d, (n ? n : 1) * sizeof *rl->e);
    if (!rl->e)
        return -1;
    for (uint32_t i = 0; i < rl->n; i++) {
        siot_rentry *e = &rl->e[i];
        e->start = (int32_t)siot_rd_uvar_max(&d->rd, SIOT_MAX_RANKS, "rank out of range");
        e->ndims = siot_rd_u8(&d->rd);
        if (e->ndims > SIOT_RL_MAXDIMS)
            return dfail(d, "rank list with too many dimensions");
        for (uint32_t k = 0; k < e->ndims; k++) {
            e->dims[k].count = (uint32_t)siot_rd_uvar_max(&d->rd, SIOT_MAX_RANKS, "rank list count out of range");
            e->dims[k].stride = (int32_t)siot_rd_uvar_max(&d->rd, SIOT_MAX_RANKS, "rank list stride out of range");
        }
        if (d->rd.err)
            return -1;
        if (!siot_rl_entry_ok(e, d->t->nranks))
            return dfail(d, "rank list names ranks outside the job or is not canonical");
    }
    return d->rd.err ? -1 : 0;
}

/* [0, nranks) as the canonical rank list (a node with KIND_ALL_RANKS,
 * core/format_event.c). */
int siot_fmt_every_rank(dec *d, siot_ranklist *rl)
{
    rl->n = 1;
    rl->e = dalloc(d, sizeof *rl->e);
    if (!rl->e)
        return -1;
    if (d->t->nranks > 1) {
        rl->e[0].ndims = 1;
        rl->e[0].dims[0].count = d->t->nranks;
        rl->e[0].dims[0].stride = 1;
    }
    return 0;
}

/* Minor 6: a per-rank table whose rank lists are runs of consecutive ranks
 * (a process grid's first row apart, `{r0-3:-2 r4-15:-4+1*rank}`; HDF5's
 * metadata entries spread over ranks) written as the runs in rank order
 * instead of a rank list per entry: uvar nruns<<1 | in_order, then per run
 * uvar (length-1)<<1 | g (g: a uvar gap from the previous run's end, or
 * from rank 0, follows) and, unless in_order (run i is entry i), uvar its
 * entry; then the entries' values. Taken when shorter: 10 bytes for the
 * grid's row against 17, whose rank lists grew with the grid's width. */

typedef struct rank_run {
    uint32_t start, len, entry;
} rank_run;

/* Sorts r[0..n) by start, bottom-up merging through tmp (not qsort: glibc's
 * may call malloc, and a trace can be written from a signal handler). */
static void sort_runs(rank_run *r, rank_run *tmp, uint32_t n)
{
    for (uint32_t w = 1; w < n; w *= 2) {
        for (uint32_t lo = 0; lo < n; lo += 2 * w) {
            uint32_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            uint32_t i = lo, j = mid, k = lo;
            while (i < mid || j < hi)
                tmp[k++] = j >= hi || (i < mid && r[i].start <= r[j].start) ? r[i++] : r[j++];
        }
        memcpy(r, tmp, (size_t)n * sizeof *r);
        if (w > UINT32_MAX / 2)
            break;
    }
}

/* The table's rank lists as runs sorted by rank; 0 when one is not a
 * consecutive run in the form a reader gives back (one rank: no dimension;
 * more: one dimension of stride 1), an entry's runs are out of order, two
 * runs overlap, or an entry has no rank (a table read from a file may: the
 * runs could not say it). *n gets their number. */
static rank_run *ranked_runs(const siot_expr *x, uint32_t *n)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        if (x->u.ranked[i].rl.n == 0)
            return NULL;
        total += x->u.ranked[i].rl.n;
    }
    rank_run *r = total && total < UINT32_MAX / 2 ? siot_calloc(2 * (size_t)total, sizeof *r) : NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; r && i < x->n; i++) {
        const siot_ranklist *rl = &x->u.ranked[i].rl;
        for (uint32_t j = 0; j < rl->n; j++) {
            const siot_rentry *e = &rl->e[j];
            int one = e->ndims == 0, line = e->ndims == 1 && e->dims[0].stride == 1 && e->dims[0].count >= 2;
            if (e->start < 0 || !(one || line) || (j > 0 && e->start <= rl->e[j - 1].start)) {
                siot_free(r);
                return NULL;
            }
            r[k++] = (rank_run){(uint32_t)e->start, one ? 1 : e->dims[0].count, i};
        }
    }
    if (!r)
        return NULL;
    sort_runs(r, r + total, k);
    for (uint32_t j = 1; j < k; j++)
        if (r[j].start < r[j - 1].start + r[j - 1].len) {
            siot_free(r);
            return NULL;
        }
    *n = k;
    return r;
}

static int runs_in_order(const rank_run *r, uint32_t n, uint32_t nentries)
{
    if (n != nentries)
        return 0;
    for (uint32_t j = 0; j < n; j++)
        if (r[j].entry != j)
            return 0;
    return 1;
}

/* The runs' bytes (as enc_ranked_runs writes them, the values aside). */
static size_t runs_bytes(const rank_run *r, uint32_t n, int in_order)
{
    size_t b = uvar_len((uint64_t)n << 1 | 1);
    for (uint32_t j = 0, end = 0; j < n; end = r[j].start + r[j].len, j++) {
        b += uvar_len((uint64_t)(r[j].len - 1) << 1 | 1);
        if (r[j].start > end)
            b += uvar_len(r[j].start - end);
        if (!in_order)
            b += uvar_len(r[j].entry);
    }
    return b;
}

static void enc_ranked_runs(siot_vbuf *b, const siot_expr *x, const rank_run *r, uint32_t n, int in_order)
{
    siot_vbuf_u8(b, RANKED_RUNS_TAG);
    siot_vbuf_uvar(b, x->n);
    siot_vbuf_uvar(b, (uint64_t)n << 1 | (uint64_t)in_order);
    for (uint32_t j = 0, end = 0; j < n; end = r[j].start + r[j].len, j++) {
        uint32_t gap = r[j].start - end;
        siot_vbuf_uvar(b, (uint64_t)(r[j].len - 1) << 1 | (gap > 0));
        if (gap > 0)
            siot_vbuf_uvar(b, gap);
        if (!in_order)
            siot_vbuf_uvar(b, r[j].entry);
    }
    for (uint32_t i = 0; i < x->n; i++)
        siot_fmt_enc_expr(b, x->u.ranked[i].x);
}

/* Minor 6 (RANKED_RUNS_TAG): the runs, then each entry's rank list built
 * from its runs in rank order (the canonical form: one rank without a
 * dimension, more as one dimension of stride 1), then the values. */
static int dec_rank_runs(dec *d, siot_expr *x, rank_run **out, uint32_t *nout)
{
    uint64_t v = siot_rd_uvar(&d->rd), n = v >> 1;
    int in_order = (int)(v & 1);
    if (d->rd.err || n == 0 || n > siot_rd_left(&d->rd) || n < x->n || (in_order && n != x->n))
        return dfail(d, "rank table runs do not match its entries");
    rank_run *r = dalloc(d, (size_t)n * sizeof *r);
    uint64_t end = 0;
    for (uint64_t j = 0; r && j < n && !d->rd.err; j++) {
        uint64_t w = siot_rd_uvar(&d->rd), len = (w >> 1) + 1;
        uint64_t gap = w & 1 ? siot_rd_uvar(&d->rd) : 0;
        uint64_t entry = in_order ? j : siot_rd_uvar(&d->rd);
        if (d->rd.err)
            return -1;
        /* (gap and len at most nranks first: end + gap cannot wrap) */
        uint64_t start = gap <= d->t->nranks ? end + gap : UINT64_MAX;
        if (len > d->t->nranks || start > d->t->nranks - len || entry >= x->n || (w & 1 && gap == 0))
            return dfail(d, "rank table run outside the job or its entries");
        r[j] = (rank_run){(uint32_t)start, (uint32_t)len, (uint32_t)entry};
        end = start + len;
    }
    *out = r;
    *nout = (uint32_t)n;
    return r && !d->rd.err ? 0 : -1;
}

void siot_fmt_dec_ranked_runs(dec *d, siot_expr *x, int want_int)
{
    x->tag = SIOT_X_RANKED;
    x->n = (uint32_t)siot_rd_count(&d->rd, 2, "rank table longer than the data");
    rank_run *r = NULL;
    uint32_t n = 0;
    if (d->rd.err || x->n == 0 || dec_rank_runs(d, x, &r, &n) != 0) {
        if (!d->rd.err && x->n == 0)
            dfail(d, "rank table runs do not match its entries");
        return;
    }
    x->u.ranked = dalloc(d, x->n * sizeof *x->u.ranked);
    for (uint32_t j = 0; x->u.ranked && j < n; j++)
        x->u.ranked[r[j].entry].rl.n++;
    for (uint32_t i = 0; x->u.ranked && i < x->n; i++) {
        siot_ranklist *rl = &x->u.ranked[i].rl;
        if (rl->n == 0) {
            dfail(d, "rank table entry without ranks");
            return;
        }
        rl->e = dalloc(d, rl->n * sizeof *rl->e);
        if (!rl->e)
            return;
        rl->n = 0;
    }
    for (uint32_t j = 0; x->u.ranked && j < n; j++) {
        siot_ranklist *rl = &x->u.ranked[r[j].entry].rl;
        siot_rentry *e = &rl->e[rl->n++];
        e->start = (int32_t)r[j].start;
        e->ndims = r[j].len > 1;
        if (e->ndims)
            e->dims[0] = (siot_rdim){.count = r[j].len, .stride = 1};
    }
    for (uint32_t i = 0; x->u.ranked && i < x->n && !d->rd.err; i++)
        x->u.ranked[i].x = siot_fmt_dec_expr(d, want_int);
}

/* The bytes of the table's rank lists as siot_fmt_enc_ranklist writes them, for
 * lists of runs (ranked_runs accepted them: one dimension of stride 1 at
 * most). */
static size_t run_lists_bytes(const siot_expr *x)
{
    size_t bytes = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        const siot_ranklist *rl = &x->u.ranked[i].rl;
        bytes += uvar_len(rl->n);
        for (uint32_t j = 0; j < rl->n; j++)
            bytes += uvar_len((uint64_t)rl->e[j].start) + 1 +
                     (rl->e[j].ndims ? uvar_len(rl->e[j].dims[0].count) + 1 : 0);
    }
    return bytes;
}

void siot_fmt_enc_ranked(siot_vbuf *b, const siot_expr *x)
{
    uint32_t n = 0;
    rank_run *r = ranked_runs(x, &n);
    if (r) {
        int in_order = runs_in_order(r, n, x->n);
        if (runs_bytes(r, n, in_order) < run_lists_bytes(x)) {
            enc_ranked_runs(b, x, r, n, in_order);
            siot_free(r);
            return;
        }
        siot_free(r);
    }
    siot_vbuf_u8(b, SIOT_X_RANKED);
    siot_vbuf_uvar(b, x->n);
    for (uint32_t i = 0; i < x->n; i++) {
        siot_fmt_enc_ranklist(b, &x->u.ranked[i].rl);
        siot_fmt_enc_expr(b, x->u.ranked[i].x);
    }
}

void siot_fmt_dec_ranked(dec *d, siot_expr *x, int want_int)
{
    x->n = (uint32_t)siot_rd_count(&d->rd, 2, "rank table longer than the data");
    if (d->rd.err)
        return;
    x->u.ranked = dalloc(d, (x->n ? x->n : 1) * sizeof *x->u.ranked);
    for (uint32_t i = 0; x->u.ranked && i < x->n && !d->rd.err; i++) {
        siot_fmt_dec_ranklist(d, &x->u.ranked[i].rl);
        x->u.ranked[i].x = siot_fmt_dec_expr(d, want_int);
    }
}
