/* format_expr: values and expressions (docs/format.md: expr, and "Minor 1",
 * "Minor 3", "Minor 4" and "Minor 10").
 *
 * Writes and reads an expression by its tag: a constant (one byte from -64
 * to 63), a progression over the enclosing loops, sequences by occurrence
 * (integer deltas, or runs of constants, progressions and expressions), an
 * approximate count, a string pattern, an array, a range, a value by
 * residue of the rank (RMOD, in runs when shorter), by quotient (RDIV) or
 * by the rank's decimal digits (RDIG, minor 10);
 * rank tables are core/format_ranks.c's. The reader bounds the nesting
 * (SIOT_MAX_EXPR_DEPTH), checks each form against the loops that enclose
 * it, refuses a non-integer where a number is required, and charges values
 * decoded again (RMOD runs) to the file's allowance.
 *
 * Part of the trace format (core/format_int.h); locks, signals and errors
 * as core/format.h says. */
#include "core/format_int.h"

#include "core/salloc.h"

/* Constants of -64..63 (most counts, handles, flags and return values) take
 * one byte: tag 128 + the zigzag of the value (docs/format.md, minor 1). */
static int small_const(const siot_expr *x) { return x->tag == SIOT_X_CONST && x->base >= -64 && x->base < 64; }

static void enc_seqint(siot_vbuf *b, const siot_expr *x)
{
    /* Deltas: monotone sequences (offsets, counters) stay small. */
    siot_vbuf_uvar(b, x->n);
    int64_t prev = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        siot_vbuf_svar(b, (int64_t)((uint64_t)x->u.vals[i] - (uint64_t)prev));
        prev = x->u.vals[i];
    }
}

static void dec_seqint(dec *d, siot_expr *x)
{
    x->n = (uint32_t)siot_rd_count(&d->rd, 1, "sequence longer than the data");
    if (d->rd.err)
        return;
    x->u.vals = dalloc(d, (x->n ? x->n : 1) * sizeof(int64_t));
    uint64_t prev = 0;
    for (uint32_t i = 0; x->u.vals && i < x->n; i++) {
        prev += (uint64_t)siot_rd_svar(&d->rd);
        x->u.vals[i] = (int64_t)prev;
    }
}

static void enc_seql(siot_vbuf *b, const siot_expr *x)
{
    siot_vbuf_uvar(b, x->level);
    siot_vbuf_uvar(b, x->len);
    siot_vbuf_uvar(b, x->n);
    int64_t prev = 0;
    for (uint32_t i = 0; i < x->n; i++) {
        const siot_run *r = &x->u.runs[i];
        uint64_t end = i + 1 < x->n ? x->u.runs[i + 1].start : x->len;
        siot_vbuf_uvar(b, end - r->start);
        if (r->x) {
            siot_vbuf_u8(b, 1);
            siot_fmt_enc_expr(b, r->x);
        } else {
            /* Integer runs: the base as a delta from the previous one. */
            siot_vbuf_u8(b, r->stride ? 2 : 0);
            siot_vbuf_svar(b, (int64_t)((uint64_t)r->base - (uint64_t)prev));
            if (r->stride)
                siot_vbuf_svar(b, r->stride);
            prev = r->base;
        }
    }
}

/* One run of a SEQL: its length, then a constant, a progression or an expression. */
static int dec_run(dec *d, siot_expr *x, siot_run *r, uint64_t *start, int64_t *prev, int want_int)
{
    uint64_t rl = siot_rd_uvar(&d->rd);
    if (rl == 0 || rl > x->len - *start)
        return dfail(d, "sequence run lengths do not add up");
    r->start = *start;
    *start += rl;
    uint8_t k = siot_rd_u8(&d->rd);
    if (k == 1) {
        r->x = siot_fmt_dec_expr(d, want_int);
    } else if (k == 0 || k == 2) {
        r->base = (int64_t)((uint64_t)*prev + (uint64_t)siot_rd_svar(&d->rd));
        r->stride = k == 2 ? siot_rd_svar(&d->rd) : 0;
        *prev = r->base;
    } else {
        dfail(d, "unknown sequence run kind");
    }
    return 0;
}

static void dec_seql(dec *d, siot_expr *x, int want_int)
{
    x->level = (uint8_t)siot_rd_uvar_max(&d->rd, d->loop_depth ? d->loop_depth - 1 : 0,
                                         "sequence over a loop that does not enclose it");
    if (!d->rd.err && d->loop_depth == 0)
        dfail(d, "sequence over a loop outside any loop");
    x->len = siot_rd_uvar(&d->rd);
    x->n = (uint32_t)siot_rd_count(&d->rd, 3, "sequence runs longer than the data");
    if (d->rd.err)
        return;
    if (x->n == 0) {
        dfail(d, "sequence without runs");
        return;
    }
    x->u.runs = dalloc(d, x->n * sizeof *x->u.runs);
    uint64_t start = 0;
    int64_t prev = 0;
    for (uint32_t i = 0; x->u.runs && i < x->n && !d->rd.err; i++)
        if (dec_run(d, x, &x->u.runs[i], &start, &prev, want_int) != 0)
            return;
    if (!d->rd.err && start != x->len)
        dfail(d, "sequence run lengths do not add up");
}

static void enc_approx(siot_vbuf *b, const siot_expr *x)
{
    siot_vbuf_uvar(b, x->len);
    siot_vbuf_svar(b, x->base);
    siot_vbuf_svar(b, x->rcoef);
    siot_vbuf_svar(b, x->sum);
    siot_vbuf_uvar(b, x->n);
    for (uint32_t i = 0; i < x->n; i++) {
        siot_vbuf_svar(b, x->u.runs[i].base);
        siot_vbuf_uvar(b, x->u.runs[i].start);
    }
}

static void dec_approx(dec *d, siot_expr *x)
{
    x->len = siot_rd_uvar(&d->rd);
    x->base = siot_rd_svar(&d->rd);
    x->rcoef = siot_rd_svar(&d->rd);
    x->sum = siot_rd_svar(&d->rd);
    x->n = (uint32_t)siot_rd_count(&d->rd, 2, "approximate count values longer than the data");
    if (d->rd.err)
        return;
    if (x->len == 0 || x->base > x->rcoef || x->n > 16) {
        dfail(d, "inconsistent approximate count");
        return;
    }
    x->u.runs = dalloc(d, (x->n ? x->n : 1) * sizeof *x->u.runs);
    for (uint32_t i = 0; x->u.runs && i < x->n; i++) {
        x->u.runs[i].base = siot_rd_svar(&d->rd);
        x->u.runs[i].start = siot_rd_uvar(&d->rd);
    }
}

static void enc_str(siot_vbuf *b, const siot_expr *x)
{
    siot_vbuf_uvar(b, x->n);
    for (uint32_t i = 0; i < x->n; i++) {
        const siot_strseg *s = &x->u.segs[i];
        if (!s->is_field) {
            siot_vbuf_u8(b, 0);
            siot_vbuf_str(b, s->lit, s->len);
        } else {
            siot_vbuf_u8(b, s->zero_pad ? 2 : 1);
            siot_vbuf_uvar(b, s->width);
            siot_fmt_enc_expr(b, s->field);
        }
    }
}

/* One segment of a string pattern: a literal or a numeric field. */
static void dec_seg(dec *d, siot_strseg *s)
{
    uint8_t k = siot_rd_u8(&d->rd);
    if (k == 0) {
        size_t len;
        const uint8_t *p = siot_rd_bytes(&d->rd, &len, SIOT_MAX_STRING);
        if (d->rd.err)
            return;
        s->lit = siot_arena_strdup(&d->t->arena, (const char *)p, len);
        s->len = (uint32_t)len;
        if (!s->lit)
            dfail(d, "out of memory");
    } else if (k == 1 || k == 2) {
        s->is_field = 1;
        s->zero_pad = k == 2;
        s->width = (uint16_t)siot_rd_uvar_max(&d->rd, 40, "numeric field too wide");
        s->field = siot_fmt_dec_expr(d, 1);
    } else {
        dfail(d, "unknown string segment kind");
    }
}

static void dec_str(dec *d, siot_expr *x, int want_int)
{
    if (want_int) {
        dfail(d, "string where a number is required");
        return;
    }
    x->n = (uint32_t)siot_rd_count(&d->rd, 2, "string pattern longer than the data");
    if (d->rd.err)
        return;
    x->u.segs = dalloc(d, (x->n ? x->n : 1) * sizeof *x->u.segs);
    for (uint32_t i = 0; x->u.segs && i < x->n && !d->rd.err; i++)
        dec_seg(d, &x->u.segs[i]);
}

static void dec_affine(dec *d, siot_expr *x)
{
    x->base = siot_rd_svar(&d->rd);
    x->rcoef = siot_rd_svar(&d->rd);
    x->n = (uint32_t)siot_rd_uvar_max(&d->rd, d->loop_depth, "progression over more loops than enclose it");
    if (d->rd.err)
        return;
    x->u.coef = dalloc(d, (x->n ? x->n : 1) * sizeof(int64_t));
    for (uint32_t k = 0; x->u.coef && k < x->n; k++)
        x->u.coef[k] = siot_rd_svar(&d->rd);
}

/* SEQ (per occurrence) or ARRAY (an array value) of expressions */
static void dec_list(dec *d, siot_expr *x, int want_int)
{
    if (x->tag == SIOT_X_ARRAY && want_int) {
        dfail(d, "array where a number is required");
        return;
    }
    x->n = (uint32_t)siot_rd_count(&d->rd, 1, "list longer than the data");
    if (d->rd.err)
        return;
    x->u.items = dalloc(d, (x->n ? x->n : 1) * sizeof *x->u.items);
    for (uint32_t i = 0; x->u.items && i < x->n && !d->rd.err; i++)
        x->u.items[i] = siot_fmt_dec_expr(d, want_int || x->tag == SIOT_X_ARRAY);
}

/* RMOD in runs (minor 3, wire tag 12): consecutive residue classes with the
 * same value written once, with their number ({rank%8: -2, then -1+rank
 * seven times}: a row's left neighbour in a process grid of 8 columns), so
 * that the size no longer grows with the grid's width. Written when shorter
 * than one entry per class. */

static void enc_rmod_plain(siot_vbuf *b, const siot_expr *x)
{
    siot_vbuf_u8(b, SIOT_X_RMOD);
    siot_vbuf_uvar(b, x->n);
    for (uint32_t i = 0; i < x->n; i++)
        siot_fmt_enc_expr(b, x->u.items[i]);
}

/* The classes' encodings side by side in s; off[i] where class i's begins. */
static int rmod_items(siot_vbuf *s, const siot_expr *x, size_t *off)
{
    for (uint32_t i = 0; i < x->n; i++) {
        off[i] = s->len;
        siot_fmt_enc_expr(s, x->u.items[i]);
    }
    off[x->n] = s->len;
    return !s->oom;
}

static int same_bytes(const siot_vbuf *s, const size_t *off, uint32_t i, uint32_t j)
{
    size_t a = off[i + 1] - off[i];
    return a == off[j + 1] - off[j] && memcmp(s->data + off[i], s->data + off[j], a) == 0;
}

/* The end of the run of classes written as class i is. */
static uint32_t run_end(const siot_vbuf *s, const size_t *off, uint32_t n, uint32_t i)
{
    uint32_t j = i + 1;
    while (j < n && same_bytes(s, off, i, j))
        j++;
    return j;
}

static void enc_rmod(siot_vbuf *b, const siot_expr *x)
{
    siot_vbuf s;
    siot_vbuf_init(&s);
    size_t *off = siot_calloc((size_t)x->n + 1, sizeof *off);
    if (!off || !rmod_items(&s, x, off)) { /* no memory for the comparison: one entry per class */
        siot_free(off);
        siot_vbuf_free(&s);
        enc_rmod_plain(b, x);
        return;
    }
    uint32_t nruns = 0;
    size_t runs_bytes = 0, plain_bytes = off[x->n];
    for (uint32_t i = 0, j; i < x->n; i = j) {
        j = run_end(&s, off, x->n, i);
        nruns++;
        runs_bytes += uvar_len(j - i) + off[i + 1] - off[i];
    }
    if (uvar_len(nruns) + runs_bytes >= plain_bytes) {
        siot_vbuf_u8(b, SIOT_X_RMOD);
        siot_vbuf_uvar(b, x->n);
        siot_vbuf_put(b, s.data, plain_bytes);
    } else {
        siot_vbuf_u8(b, RMOD_RUNS_TAG);
        siot_vbuf_uvar(b, x->n);
        siot_vbuf_uvar(b, nruns);
        for (uint32_t i = 0, j; i < x->n; i = j) {
            j = run_end(&s, off, x->n, i);
            siot_vbuf_uvar(b, j - i);
            siot_vbuf_put(b, s.data + off[i], off[i + 1] - off[i]);
        }
    }
    siot_free(off);
    siot_vbuf_free(&s);
}

/* RMOD: an entry per residue class, at least one; RANGE: an array of
 * integer length, first element and step. */
static void dec_rmod(dec *d, siot_expr *x, int want_int)
{
    dec_list(d, x, want_int);
    if (!d->rd.err && x->n == 0)
        dfail(d, "value by residue without entries");
}

/* RMOD in runs (minor 3): each class gets a value of its own, its run's
 * bytes decoded again (nothing shared: a merge frees values one by one).
 * What that costs is taken from the file's allowance, so that a few bytes
 * cannot make a reader allocate without bound. */
#define RMOD_MAX_PERIOD (1u << 24)

static int spend_again(dec *d, uint64_t bytes)
{
    if (bytes > *d->again)
        return dfail(d, "value by residue repeated beyond what the file's size allows");
    *d->again -= bytes;
    return 0;
}

static void dec_run_copies(dec *d, siot_expr *x, uint32_t at, uint64_t len, int want_int)
{
    const uint8_t *p0 = d->rd.p;
    x->u.items[at] = siot_fmt_dec_expr(d, want_int);
    const uint8_t *p1 = d->rd.p;
    for (uint64_t k = 1; k < len && !d->rd.err; k++) {
        if (spend_again(d, (uint64_t)(p1 - p0) * sizeof(siot_expr)) != 0)
            return;
        d->rd.p = p0;
        x->u.items[at + k] = siot_fmt_dec_expr(d, want_int);
    }
}

static void dec_rmod_runs(dec *d, siot_expr *x, int want_int)
{
    uint64_t n = siot_rd_uvar(&d->rd);
    uint64_t nruns = siot_rd_count(&d->rd, 2, "value by residue with more runs than the data");
    if (d->rd.err)
        return;
    if (n == 0 || n > RMOD_MAX_PERIOD || nruns == 0 || nruns > n) {
        dfail(d, "value by residue with a bad period or run count");
        return;
    }
    if (spend_again(d, n * sizeof *x->u.items) != 0 || !(x->u.items = dalloc(d, n * sizeof *x->u.items)))
        return;
    x->n = (uint32_t)n;
    uint64_t filled = 0;
    for (uint64_t r = 0; r < nruns && !d->rd.err; r++) {
        uint64_t len = siot_rd_uvar(&d->rd);
        if (!d->rd.err && (len == 0 || len > n - filled)) {
            dfail(d, "value by residue whose runs do not add up to its period");
            return;
        }
        dec_run_copies(d, x, (uint32_t)filled, len, want_int);
        filled += len;
    }
    if (!d->rd.err && filled != n)
        dfail(d, "value by residue whose runs do not add up to its period");
}

static void dec_range(dec *d, siot_expr *x, int want_int)
{
    if (want_int) {
        dfail(d, "array where a number is required");
        return;
    }
    x->n = 3;
    x->u.items = dalloc(d, 3 * sizeof *x->u.items);
    for (uint32_t i = 0; x->u.items && i < 3 && !d->rd.err; i++)
        x->u.items[i] = siot_fmt_dec_expr(d, 1);
}

/* RDIV (minor 4): the divisor, at least 1 and at most a rank count, the
 * quotient's coefficient, then the integer value it is added to. */
static void dec_rdiv(dec *d, siot_expr *x)
{
    x->len = siot_rd_uvar(&d->rd);
    x->sum = siot_rd_svar(&d->rd);
    if (!d->rd.err && (x->len == 0 || x->len > RMOD_MAX_PERIOD)) {
        dfail(d, "value by quotient with a bad divisor");
        return;
    }
    x->n = 1;
    x->u.items = dalloc(d, sizeof *x->u.items);
    if (x->u.items && !d->rd.err)
        x->u.items[0] = siot_fmt_dec_expr(d, 1);
}

/* RDIG (minor 10): the digits' coefficient, then the integer value it is
 * added to. */
static void dec_rdig(dec *d, siot_expr *x)
{
    x->sum = siot_rd_svar(&d->rd);
    x->n = 1;
    x->u.items = dalloc(d, sizeof *x->u.items);
    if (x->u.items && !d->rd.err)
        x->u.items[0] = siot_fmt_dec_expr(d, 1);
}

void siot_fmt_enc_expr(siot_vbuf *b, const siot_expr *x)
{
    if (x && x->tag == SIOT_X_RMOD) {
        enc_rmod(b, x);
        return;
    }
    if (x && x->tag == SIOT_X_RANKED) {
        siot_fmt_enc_ranked(b, x);
        return;
    }
    if (!x) {
        siot_vbuf_u8(b, SIOT_X_NONE);
        return;
    }
    if (small_const(x)) {
        siot_vbuf_u8(b, (uint8_t)(SMALL_CONST_TAG + siot_zigzag(x->base)));
        return;
    }
    siot_vbuf_u8(b, x->tag);
    switch (x->tag) {
    case SIOT_X_CONST:
        siot_vbuf_svar(b, x->base);
        break;
    case SIOT_X_AFFINE:
        siot_vbuf_svar(b, x->base);
        siot_vbuf_svar(b, x->rcoef);
        siot_vbuf_uvar(b, x->n);
        for (uint32_t k = 0; k < x->n; k++)
            siot_vbuf_svar(b, x->u.coef[k]);
        break;
    case SIOT_X_SEQINT:
        enc_seqint(b, x);
        break;
    case SIOT_X_SEQ:
    case SIOT_X_ARRAY:
        siot_vbuf_uvar(b, x->n);
        for (uint32_t i = 0; i < x->n; i++)
            siot_fmt_enc_expr(b, x->u.items[i]);
        break;
    case SIOT_X_RANGE:
        for (uint32_t i = 0; i < 3; i++)
            siot_fmt_enc_expr(b, x->u.items[i]);
        break;
    case SIOT_X_RDIV:
        siot_vbuf_uvar(b, x->len);
        siot_vbuf_svar(b, x->sum);
        siot_fmt_enc_expr(b, x->u.items[0]);
        break;
    case SIOT_X_RDIG:
        siot_vbuf_svar(b, x->sum);
        siot_fmt_enc_expr(b, x->u.items[0]);
        break;
    case SIOT_X_SEQL:
        enc_seql(b, x);
        break;
    case SIOT_X_APPROX:
        enc_approx(b, x);
        break;
    case SIOT_X_STR:
        enc_str(b, x);
        break;
    default:
        break;
    }
}

static void dec_tagged(dec *d, siot_expr *x, int want_int);

/* want_int: 0 any value, 1 integer-valued only */
siot_expr *siot_fmt_dec_expr(dec *d, int want_int)
{
    if (++d->expr_depth > SIOT_MAX_EXPR_DEPTH) {
        dfail(d, "expression nested too deeply");
        return NULL;
    }
    siot_expr *x = dalloc(d, sizeof *x);
    if (!x)
        return NULL;
    x->tag = siot_rd_u8(&d->rd);
    if (x->tag >= SMALL_CONST_TAG) {
        x->base = siot_unzigzag(x->tag - SMALL_CONST_TAG);
        x->tag = SIOT_X_CONST;
    } else {
        dec_tagged(d, x, want_int);
    }
    d->expr_depth--;
    return d->rd.err ? NULL : x;
}

static void dec_tagged(dec *d, siot_expr *x, int want_int)
{
    switch (x->tag) {
    case SIOT_X_NONE:
        if (want_int)
            dfail(d, "missing value where a number is required");
        break;
    case SIOT_X_CONST:
        x->base = siot_rd_svar(&d->rd);
        break;
    case SIOT_X_AFFINE:
        dec_affine(d, x);
        break;
    case SIOT_X_SEQINT:
        dec_seqint(d, x);
        break;
    case SIOT_X_SEQ:
    case SIOT_X_ARRAY:
        dec_list(d, x, want_int);
        break;
    case SIOT_X_RANKED:
        siot_fmt_dec_ranked(d, x, want_int);
        break;
    case RANKED_RUNS_TAG:
        siot_fmt_dec_ranked_runs(d, x, want_int);
        break;
    case SIOT_X_SEQL:
        dec_seql(d, x, want_int);
        break;
    case SIOT_X_APPROX:
        dec_approx(d, x);
        break;
    case SIOT_X_STR:
        dec_str(d, x, want_int);
        break;
    case SIOT_X_RMOD:
        dec_rmod(d, x, want_int);
        break;
    case RMOD_RUNS_TAG:
        x->tag = SIOT_X_RMOD;
        dec_rmod_runs(d, x, want_int);
        break;
    case SIOT_X_RANGE:
        dec_range(d, x, want_int);
        break;
    case SIOT_X_RDIV:
        dec_rdiv(d, x);
        break;
    case SIOT_X_RDIG:
        dec_rdig(d, x);
        break;
    default:
        dfail(d, "unknown expression kind");
    }
}

size_t siot_expr_size(const siot_expr *x, siot_vbuf *scratch)
{
    scratch->len = 0;
    siot_fmt_enc_expr(scratch, x);
    return scratch->len;
}
