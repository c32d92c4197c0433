#include "core/format.h"
#include "core/salloc.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/hist.h"
#include "core/ranksum.h"
#include "core/pack.h"
#include "core/ranklist.h"
#include "core/roles.h"
#include "core/sitetree.h"

/* memcpy from a possibly NULL pointer when there is nothing to copy is undefined. */
static void copy_n(void *dst, const void *src, size_t n)
{
    if (n)
        memcpy(dst, src, n);
}

static const uint8_t MAGIC[8] = {0x89, 'S', 'I', 'O', 'T', '\r', '\n', 0x1a};

int siot_format_verify_crc = 1;

enum { SEC_HEADER = 1, SEC_FUNCS = 2, SEC_SITES = 3, SEC_NODES = 4, SEC_END = 5, SEC_RANKTIMES = 6, SEC_RANKSUM = 7 };

void siot_trace_init(siot_trace *t)
{
    memset(t, 0, sizeof *t);
    siot_arena_init(&t->arena);
}

void siot_trace_free(siot_trace *t)
{
    siot_arena_free(&t->arena);
    memset(t, 0, sizeof *t);
}

/* ------------------------------------------------------------------ encode */

static void put_cstr(siot_vbuf *b, const char *s) { siot_vbuf_str(b, s ? s : "", s ? strlen(s) : 0); }

static void enc_ranklist(siot_vbuf *b, const siot_ranklist *rl)
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

static void enc_expr(siot_vbuf *b, const siot_expr *x);

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
            enc_expr(b, r->x);
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
            enc_expr(b, s->field);
        }
    }
}

/* Constants of -64..63 (most counts, handles, flags and return values) take
 * one byte: tag 128 + the zigzag of the value (docs/format.md, minor 1). */
#define SMALL_CONST_TAG 128u
static int small_const(const siot_expr *x) { return x->tag == SIOT_X_CONST && x->base >= -64 && x->base < 64; }

static void enc_expr(siot_vbuf *b, const siot_expr *x);

/* RMOD in runs (minor 3, wire tag 12): consecutive residue classes with the
 * same value written once, with their number ({rank%8: -2, then -1+rank
 * seven times}: a row's left neighbour in a process grid of 8 columns), so
 * that the size no longer grows with the grid's width. Written when shorter
 * than one entry per class. */
#define RMOD_RUNS_TAG 12u
static unsigned uvar_len(uint64_t v)
{
    unsigned n = 1;
    while (v >= 128)
        v >>= 7, n++;
    return n;
}

/* Minor 8 (docs/format.md): an event's samples are, in most traces, its
 * ranks times the iterations of the loops around it, so its count is
 * written as the difference from that. Iterations: the product of the
 * enclosing loops' constant counts (other counts taken as 1; 0 is 1, a
 * product past 64 bits starts again from 1), the same for writer and
 * reader. */
uint64_t siot_loop_iters(uint64_t outer, const siot_expr *count)
{
    uint64_t k = count && count->tag == SIOT_X_CONST && count->base > 0 ? (uint64_t)count->base : 1, v;
    return __builtin_mul_overflow(outer ? outer : 1, k, &v) ? 1 : v;
}

uint64_t siot_hist_expect(const siot_ranklist *rl, uint64_t iters)
{
    uint64_t v;
    return __builtin_mul_overflow(siot_rl_size(rl), iters ? iters : 1, &v) ? 0 : v;
}

/* An event's count as written in minor 8: 0 when it is the one expected, 1
 * for none (an empty histogram, whatever was expected), else 2 + the
 * zigzag of the difference (counts below 2^62: the samples of a trace).
 * SIOT_HIST_NO_EXPECT: the count itself. */
static uint64_t count_code(uint64_t count, uint64_t expect)
{
    if (expect == SIOT_HIST_NO_EXPECT)
        return count;
    return count == expect ? 0 : count == 0 ? 1 : siot_zigzag((int64_t)(count - expect)) + 2;
}

static uint64_t count_of_code(uint64_t v, uint64_t expect)
{
    return v == 0 ? expect : v == 1 ? 0 : expect + (uint64_t)siot_unzigzag(v - 2);
}

static void enc_rmod_plain(siot_vbuf *b, const siot_expr *x)
{
    siot_vbuf_u8(b, SIOT_X_RMOD);
    siot_vbuf_uvar(b, x->n);
    for (uint32_t i = 0; i < x->n; i++)
        enc_expr(b, x->u.items[i]);
}

/* The classes' encodings side by side in s; off[i] where class i's begins. */
static int rmod_items(siot_vbuf *s, const siot_expr *x, size_t *off)
{
    for (uint32_t i = 0; i < x->n; i++) {
        off[i] = s->len;
        enc_expr(s, x->u.items[i]);
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

/* Minor 6: a per-rank table whose rank lists are runs of consecutive ranks
 * (a process grid's first row apart, `{r0-3:-2 r4-15:-4+1*rank}`; HDF5's
 * metadata entries spread over ranks) written as the runs in rank order
 * instead of a rank list per entry: uvar nruns<<1 | in_order, then per run
 * uvar (length-1)<<1 | g (g: a uvar gap from the previous run's end, or
 * from rank 0, follows) and, unless in_order (run i is entry i), uvar its
 * entry; then the entries' values. Taken when shorter: 10 bytes for the
 * grid's row against 17, whose rank lists grew with the grid's width. */
#define RANKED_RUNS_TAG 14u

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
        enc_expr(b, x->u.ranked[i].x);
}

/* The bytes of the table's rank lists as enc_ranklist writes them, for
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

static void enc_ranked(siot_vbuf *b, const siot_expr *x)
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
        enc_ranklist(b, &x->u.ranked[i].rl);
        enc_expr(b, x->u.ranked[i].x);
    }
}

/* A varint through a cursor the caller reserved room for: the nodes
 * section writes a few dozen bytes an event (hotpath irregular: every call
 * a node of its own, encoded at the end), and one reserve for several
 * values costs less than siot_vbuf_uvar's check for each. */
static inline uint8_t *put_uvar(uint8_t *d, uint64_t v)
{
    for (; v >= 0x80; v >>= 7)
        *d++ = (uint8_t)(v | 0x80);
    *d++ = (uint8_t)v;
    return d;
}

static void enc_expr(siot_vbuf *b, const siot_expr *x);

/* An event's value at the cursor d, which has room for `room` bytes: the
 * most frequent, a constant, written in place (the bytes enc_expr writes);
 * any other through enc_expr, after which room is reserved again. NULL once
 * out of memory (the writes are dropped, as siot_vbuf's are). */
static inline uint8_t *put_value(siot_vbuf *b, uint8_t *d, const siot_expr *x, size_t room)
{
    if (__builtin_expect(x && x->tag == SIOT_X_CONST, 1)) {
        if (x->base >= -64 && x->base < 64) {
            *d++ = (uint8_t)(SMALL_CONST_TAG + siot_zigzag(x->base));
            return d;
        }
        *d++ = SIOT_X_CONST;
        return put_uvar(d, siot_zigzag(x->base));
    }
    b->len = (size_t)(d - b->data);
    enc_expr(b, x);
    return siot_vbuf_reserve(b, room) ? b->data + b->len : NULL;
}

static void enc_expr(siot_vbuf *b, const siot_expr *x)
{
    if (x && x->tag == SIOT_X_RMOD) {
        enc_rmod(b, x);
        return;
    }
    if (x && x->tag == SIOT_X_RANKED) {
        enc_ranked(b, x);
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
            enc_expr(b, x->u.items[i]);
        break;
    case SIOT_X_RANGE:
        for (uint32_t i = 0; i < 3; i++)
            enc_expr(b, x->u.items[i]);
        break;
    case SIOT_X_RDIV:
        siot_vbuf_uvar(b, x->len);
        siot_vbuf_svar(b, x->sum);
        enc_expr(b, x->u.items[0]);
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

/* Bins as fractions of the count, in 255ths: a bin under 1/255 of the count
 * is folded into its nearest kept neighbour, so the number of bins does not
 * grow with the count as outliers spread out. */
/* The histogram's nonzero bins as a bit mask, four at a time (a loop's
 * histogram has a few bins of 40 set, and the passes below visit those
 * only). */
_Static_assert(SIOT_HBINS % 4 == 0 && SIOT_HBINS <= 64, "bins in whole vectors of 4, one mask word");
static uint64_t nonzero_bins(const siot_hist *h)
{
    uint64_t m = 0;
    if (!h->bins)
        return 0;
#ifdef __SSE2__
    const __m128i zero = _mm_setzero_si128();
    for (unsigned i = 0; i < SIOT_HBINS; i += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(h->bins + i));
        unsigned z = (unsigned)_mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(v, zero)));
        m |= (uint64_t)(~z & 15u) << i;
    }
#else
    for (unsigned i = 0; i < SIOT_HBINS; i++)
        m |= (uint64_t)(h->bins[i] != 0) << i;
#endif
    return m;
}

/* nz: nonzero_bins(h). Returns the mask of the nonzero q[i]. */
static uint64_t quantize_bins(const siot_hist *h, uint64_t nz, uint8_t q[SIOT_HBINS])
{
    if (h->count <= 255) { /* every sample is 1/255 of the count or more: no bin folds */
        memset(q, 0, SIOT_HBINS);
        for (uint64_t m = nz; m; m &= m - 1) {
            unsigned i = (unsigned)__builtin_ctzll(m);
            uint64_t v = ((uint64_t)h->bins[i] * 255 + h->count / 2) / h->count;
            q[i] = (uint8_t)(v == 0 ? 1 : v > 255 ? 255 : v);
        }
        return nz;
    }
    uint64_t c[SIOT_HBINS] = {0};
    for (uint64_t m = nz; m; m &= m - 1)
        c[__builtin_ctzll(m)] = h->bins[__builtin_ctzll(m)];
    for (uint64_t m = nz; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        if (!c[i] || c[i] * 255 >= h->count)
            continue;
        int to = -1;
        for (unsigned d = 1; d < SIOT_HBINS && to < 0; d++) {
            if (i >= d && c[i - d] * 255 >= h->count)
                to = (int)(i - d);
            else if (i + d < SIOT_HBINS && c[i + d] * 255 >= h->count)
                to = (int)(i + d);
        }
        if (to >= 0) {
            c[to] += c[i];
            c[i] = 0;
            nz &= ~(1ULL << i); /* to was kept: its bit is set */
        }
    }
    memset(q, 0, SIOT_HBINS);
    for (uint64_t m = nz; m; m &= m - 1) {
        unsigned i = (unsigned)__builtin_ctzll(m);
        uint64_t v = (c[i] * 255 + h->count / 2) / h->count;
        q[i] = (uint8_t)(v == 0 ? 1 : v > 255 ? 255 : v);
    }
    return nz;
}

/* A time in the file form: 6-bit exponent, 10-bit mantissa (0.1%; exact
 * below 1024 ns), two bytes whatever the magnitude. */
static uint16_t time16(uint64_t ns)
{
    if (ns < 1024)
        return (uint16_t)ns;
    /* the least e with ns >> e < 1024: ns's bit length less 10 */
    unsigned e = 54u - (unsigned)__builtin_clzll(ns);
    uint64_t m = (ns + (1ULL << (e - 1))) >> e;
    if (m >= 1024) {
        m >>= 1;
        e++;
    }
    return (uint16_t)(e << 10 | m);
}

static uint64_t time16_value(uint16_t code) { return (uint64_t)(code & 1023) << (code >> 10); }

/* The first bin of the mask. In the file form min is rounded, and rounding
 * to nearest can move it up into the next bin (2047 -> 2048) but never down:
 * anchoring one bin below the bin of the stored min covers both cases, and the
 * reader computes the same anchor from what it reads. */
static unsigned mask_anchor(uint64_t min, int exact)
{
    if (exact)
        return siot_hist_bin(min);
    uint64_t r = time16_value(time16(min));
    unsigned b = siot_hist_bin(r);
    return r >= 1024 && b > 0 ? b - 1 : b;
}

/* The value the reader gets for a histogram's min: the base of the compact
 * mean (below). */
static uint64_t stored_min(uint64_t min, int exact) { return exact ? min : time16_value(time16(min)); }

/* Compact histograms (flag 32): the form's bits say which of mean, M2 and
 * the bins are written as integers. Each is used only when the reader's
 * arithmetic gives back the very same double (or bin counts), so nothing of
 * what the f64 form kept is lost. */
enum { HF_MEAN_SUM = 1, HF_M2_INT = 2, HF_BINS_EXACT = 4 };
enum { F24_BYTES = 3, F24_MBITS = 18, F24_BIAS = 16 };
/* Minor 6: the standard deviation in 2 bytes, m·2^(e−20), e<<10|m */
enum { F16_BYTES = 2, F16_MBITS = 10, F16_BIAS = 20 };
enum { FLOAT_EMAX = 63 }; /* both floats' exponents: 6 bits */

/* The sum of the samples S with (double)S / count == mean, written as
 * S - count*base (base: the min the reader sees). The reader's computation,
 * shared by both sides. */
static int sum_to_mean(uint64_t count, uint64_t base, int64_t delta, double *mean)
{
    uint64_t cb, s;
    if (__builtin_mul_overflow(count, base, &cb))
        return -1;
    s = cb + (uint64_t)delta;
    if (delta >= 0 ? s < cb : s > cb)
        return -1;
    *mean = (double)s / (double)count;
    return 0;
}

static int same_double(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int mean_as_delta(const siot_hist *h, uint64_t base, unsigned maxlen, int64_t *delta)
{
    double target = h->mean * (double)h->count;
    if (!(target >= 0 && target < 1e18))
        return 0;
    uint64_t s0 = (uint64_t)(target + 0.5), cb;
    if (__builtin_mul_overflow(h->count, base, &cb) || cb > (uint64_t)INT64_MAX)
        return 0;
    for (uint64_t s = s0 ? s0 - 1 : 0; s <= s0 + 1; s++) {
        double m;
        int64_t d = (int64_t)s - (int64_t)cb;
        if (sum_to_mean(h->count, base, d, &m) == 0 && same_double(m, h->mean) && uvar_len(siot_zigzag(d)) <= maxlen) {
            *delta = d;
            return 1;
        }
    }
    return 0;
}

/* count*M2 is an integer for integer samples (n·Σx² − (Σx)²); written as
 * one when it gives M2 back exactly and takes at most maxlen bytes. */
static int m2_as_int(const siot_hist *h, unsigned maxlen, uint64_t *k)
{
    double target = h->m2 * (double)h->count;
    if (!(target >= 0 && target < 1e15))
        return 0;
    uint64_t k0 = (uint64_t)(target + 0.5);
    for (uint64_t v = k0 ? k0 - 1 : 0; v <= k0 + 1; v++)
        if (same_double((double)v / (double)h->count, h->m2) && uvar_len(v) <= maxlen) {
            *k = v;
            return 1;
        }
    return 0;
}

/* Bins as exact counts, the last one implied by the count: when they add up
 * to it, and in the file form only below 255 samples, where the fractions
 * give the counts back exactly anyway. */
static int bins_exact(const siot_hist *h, uint64_t nz, unsigned lo, int exact)
{
    if (!h->bins || h->count > UINT32_MAX || (!exact && h->count >= 255))
        return 0;
    uint64_t sum = 0;
    for (uint64_t m = nz >> lo << lo; m; m &= m - 1)
        sum += h->bins[__builtin_ctzll(m)];
    return sum == h->count;
}

/* mask: bit i - lo for bin i (from lo up) of what is written */
static void enc_bins(siot_vbuf *b, const siot_hist *h, const uint8_t *q, unsigned lo, uint64_t mask, int form,
                     int exact)
{
    for (uint64_t m = mask; m; m &= m - 1) {
        unsigned i = lo + (unsigned)__builtin_ctzll(m);
        if ((form & HF_BINS_EXACT) && (m & (m - 1)) == 0)
            break; /* the last: the count minus the others */
        if (exact || (form & HF_BINS_EXACT))
            siot_vbuf_uvar(b, h->bins[i]);
        else
            siot_vbuf_u8(b, q[i]);
    }
}

/* The integer forms replace a double (exact) while shorter than its 8
 * bytes, and in the file form a float while not longer than it (the mean's
 * 3 bytes, the standard deviation's 2). */
static int moments_form(const siot_hist *h, int exact, int64_t *delta, uint64_t *k)
{
    return (mean_as_delta(h, stored_min(h->min, exact), exact ? 7 : F24_BYTES, delta) ? HF_MEAN_SUM : 0) |
           (m2_as_int(h, exact ? 7 : F16_BYTES, k) ? HF_M2_INT : 0);
}

/* Minor 2 (flag 64), the file form: a mean that no exact integer gives back
 * in 3 bytes is m·2^(e−16) in 3 bytes, e<<18|m (m of 18 bits, at least 2^17
 * when e > 0): a relative error under 4e-6, far below the clock's 1e-4
 * (src/clock.c), and a size that does not grow with the samples as the
 * exact sum does. Minor 6 (flag 128): the standard deviation, a measure of
 * spread known to a few percent from the samples themselves, in 2 bytes,
 * m·2^(e−20), e<<10|m (m of 10 bits, at least 2^9 when e > 0): to 2^-10,
 * about the 0.1% to which the minimum and maximum are kept, from 0.001 ns
 * to 104 days. */
static uint32_t fcode(double v, unsigned mbits, int bias)
{
    uint32_t max = (uint32_t)FLOAT_EMAX << mbits | ((1u << mbits) - 1);
    if (!(v > 0))
        return 0;
    if (!isfinite(v))
        return max; /* (a histogram's moments are finite: not reached) */
    int x;
    frexp(v, &x); /* v = f·2^x, f in [0.5, 1): m = f·2^mbits needs e = x + bias − mbits */
    int e = x + bias - (int)mbits < 0 ? 0 : x + bias - (int)mbits;
    if (e > FLOAT_EMAX)
        return max;
    uint64_t m = (uint64_t)llround(ldexp(v, bias - e));
    if (m >> mbits) { /* rounded up to 2^mbits */
        m >>= 1;
        e++;
    }
    return e > FLOAT_EMAX ? max : (uint32_t)e << mbits | (uint32_t)m;
}

static double fcode_value(uint32_t code, unsigned mbits, int bias)
{
    return ldexp((double)(code & ((1u << mbits) - 1)), (int)(code >> mbits) - bias);
}

/* The float's code, little-endian in `bytes` bytes (dec_float reads it). */
static void put_float(siot_vbuf *b, double v, unsigned bytes, unsigned mbits, int bias)
{
    uint32_t c = fcode(v, mbits, bias);
    uint8_t t[4];
    for (unsigned i = 0; i < bytes; i++)
        t[i] = (uint8_t)(c >> (8 * i));
    siot_vbuf_put(b, t, bytes);
}

/* The standard deviation the file form keeps of M2 (M2 = count·sd²): it
 * lies in the range of the samples, as a mean does, so one float form fits. */
static double hist_sd(const siot_hist *h) { return h->m2 > 0 ? sqrt(h->m2 / (double)h->count) : 0; }

size_t siot_hist_moments_size(const siot_hist *h)
{
    if (h->count < 2)
        return 0;
    int64_t delta = 0;
    uint64_t k = 0;
    int form = moments_form(h, 0, &delta, &k);
    return (form & HF_MEAN_SUM ? uvar_len(siot_zigzag(delta)) : F24_BYTES) +
           (form & HF_M2_INT ? uvar_len(k) : F16_BYTES);
}

/* count >= 2 in the compact form: uvar mask<<3|form, mean, M2, bins. Out of
 * line: put_hist, inline for the single sample of most events, calls it. */
static __attribute__((noinline)) void enc_hist_stats(siot_vbuf *b, const siot_hist *h, int exact)
{
    uint8_t q[SIOT_HBINS];
    uint64_t nz = nonzero_bins(h), written = exact ? nz : quantize_bins(h, nz, q);
    /* Every sample lies in [min, max]: a bit mask of the bins from min's up,
     * then one value per set bit. */
    unsigned lo = mask_anchor(h->min, exact);
    uint64_t mask = written >> lo, k = 0;
    int64_t delta = 0;
    int form = moments_form(h, exact, &delta, &k) | (bins_exact(h, nz, lo, exact) ? HF_BINS_EXACT : 0);
    siot_vbuf_uvar(b, mask << 3 | (uint64_t)form);
    if (form & HF_MEAN_SUM)
        siot_vbuf_svar(b, delta);
    else if (exact)
        siot_vbuf_f64(b, h->mean);
    else
        put_float(b, h->mean, F24_BYTES, F24_MBITS, F24_BIAS);
    if (form & HF_M2_INT)
        siot_vbuf_uvar(b, k);
    else if (exact)
        siot_vbuf_f64(b, h->m2);
    else
        put_float(b, hist_sd(h), F16_BYTES, F16_MBITS, F16_BIAS);
    enc_bins(b, h, q, lo, mask, form, exact);
}

/* A histogram's head, up to the moments, at the cursor d: at most five
 * varints, HIST_HEAD_MAX bytes. */
#define HIST_HEAD_MAX 50u
static inline __attribute__((always_inline)) uint8_t *put_hist_head(uint8_t *d, const siot_hist *h, int exact,
                                                                   uint64_t expect)
{
    d = put_uvar(d, count_code(h->count, expect));
    if (h->count == 0)
        return d;
    if (exact) {
        d = put_uvar(d, h->min);
        d = put_uvar(d, h->max - h->min);
    } else {
        uint16_t lo = time16(h->min), hi = h->max == h->min ? lo : time16(h->max); /* one sample: min = max */
        *d++ = (uint8_t)lo;
        *d++ = (uint8_t)(lo >> 8);
        *d++ = (uint8_t)hi;
        *d++ = (uint8_t)(hi >> 8);
    }
    /* The maximum's rank + 1, shifted: bit 0 says its occurrence is 0 and
     * not written (the first iteration is slowest in most histograms). */
    d = put_uvar(d, ((uint64_t)(int64_t)h->max_rank + 1) << 1 | (h->max_occ == 0));
    if (h->max_occ != 0)
        d = put_uvar(d, h->max_occ);
    return d;
}

/* A histogram at the cursor (room as put_value's); the moments and bins of
 * two samples or more through enc_hist_stats. */
static inline __attribute__((always_inline)) uint8_t *put_hist(siot_vbuf *b, uint8_t *d, const siot_hist *h,
                                                              int exact, size_t room, uint64_t expect)
{
    d = put_hist_head(d, h, exact, expect);
    if (h->count < 2)
        return d;
    b->len = (size_t)(d - b->data);
    enc_hist_stats(b, h, exact);
    return siot_vbuf_reserve(b, room) ? b->data + b->len : NULL;
}

/* Minor 1: a node of every rank [0, nranks) (most of them) has bit 128 set
 * in its kind byte and no rank list. */
#define KIND_ALL_RANKS 128u
static inline int all_ranks(const siot_ranklist *rl, uint32_t nranks)
{
    if (rl->n != 1 || rl->e[0].start != 0)
        return 0;
    const siot_rentry *e = &rl->e[0];
    if (nranks == 1)
        return e->ndims == 0;
    return e->ndims == 1 && e->dims[0].count == nranks && e->dims[0].stride == 1;
}

/* Minor 1: an event of the main thread (0) without errno (0), most of
 * them, has bit 64 set in its kind byte and neither field written. */
#define KIND_MAIN_NO_ERRNO 64u
static int is_zero(const siot_expr *x) { return x && x->tag == SIOT_X_CONST && x->base == 0; }

/* An event after its kind byte and rank list, through one reserve for what
 * it writes when its values are constants (an event that repeats nothing:
 * hotpath irregular writes ~30 bytes of them an event at the end of the run,
 * and a check of the room per value cost more than the writing). */
static void enc_event(siot_vbuf *b, const siot_event *e, uint32_t func, int quiet, int exact, uint64_t expect)
{
    size_t room = 20 + 11 * (5 + (size_t)e->nargs) + 2 * HIST_HEAD_MAX;
    if (!siot_vbuf_reserve(b, room))
        return;
    uint8_t *d = put_uvar(put_uvar(b->data + b->len, func), e->site);
    if (!quiet)
        d = put_value(b, d, e->thread, room);
    if (d)
        d = put_value(b, d, e->parent, room);
    if (d)
        d = put_value(b, d, e->ret, room);
    if (d && !quiet)
        d = put_value(b, d, e->err, room);
    if (d)
        d = put_value(b, d, e->bytes, room);
    for (uint32_t i = 0; d && i < e->nargs; i++)
        d = put_value(b, d, e->args[i], room);
    if (d)
        d = put_hist(b, d, &e->comp, exact, room, expect);
    if (d) /* a call's duration has as many samples as the computation before it */
        d = put_hist(b, d, &e->dur, exact, room, e->comp.count);
    if (d)
        b->len = (size_t)(d - b->data);
}

static void enc_node(siot_vbuf *b, const siot_node *n, const uint32_t *fmap, uint32_t nranks, int exact,
                     uint64_t iters)
{
    const siot_event *e = n->kind == SIOT_N_EVENT ? &n->u.ev : NULL;
    unsigned quiet = e && is_zero(e->thread) && is_zero(e->err) ? KIND_MAIN_NO_ERRNO : 0;
    if (all_ranks(&n->ranks, nranks)) {
        siot_vbuf_u8(b, (uint8_t)(n->kind | quiet | KIND_ALL_RANKS));
    } else {
        siot_vbuf_u8(b, (uint8_t)(n->kind | quiet));
        enc_ranklist(b, &n->ranks);
    }
    if (e) {
        enc_event(b, e, fmap ? fmap[e->func] - 1 : e->func, quiet != 0, exact, siot_hist_expect(&n->ranks, iters));
    } else {
        enc_expr(b, n->u.loop.count);
        siot_vbuf_uvar(b, n->u.loop.nbody);
        uint64_t inner = siot_loop_iters(iters, n->u.loop.count);
        for (uint32_t i = 0; i < n->u.loop.nbody; i++)
            enc_node(b, n->u.loop.body[i], fmap, nranks, exact, inner);
    }
}

static void mark_funcs(const siot_node *n, uint8_t *used, uint32_t nfuncs)
{
    if (n->kind == SIOT_N_EVENT) {
        if (n->u.ev.func < nfuncs)
            used[n->u.ev.func] = 1;
        return;
    }
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        mark_funcs(n->u.loop.body[i], used, nfuncs);
}

void siot_put_section(siot_vbuf *out, uint8_t tag, const void *payload, size_t len)
{
    /* the room at once: grown by doubling, the file so far would be copied
     * again at each step (a trace's nodes are most of it) */
    siot_vbuf_reserve(out, 1 + 10 + len + 4);
    siot_vbuf_u8(out, tag);
    siot_vbuf_uvar(out, len);
    siot_vbuf_put(out, payload, len);
    siot_vbuf_u32le(out, siot_crc32(siot_crc32(0, &tag, 1), payload, len));
}

static void end_section(siot_vbuf *out, uint8_t tag, const siot_vbuf *payload)
{
    siot_put_section(out, tag, payload->data, payload->len);
}

/* ---- the pieces of a file (also written one by one when a rank spilled) */

int siot_fmap_init(siot_fmap *m, uint32_t nfuncs)
{
    memset(m, 0, sizeof *m);
    m->nfuncs = nfuncs;
    m->id = siot_calloc(nfuncs + 1, sizeof *m->id);
    m->order = siot_calloc(nfuncs + 1, sizeof *m->order);
    return m->id && m->order ? 0 : -1;
}

void siot_fmap_free(siot_fmap *m)
{
    siot_free(m->id);
    siot_free(m->order);
    memset(m, 0, sizeof *m);
}

static void fmap_mark(siot_fmap *m, const siot_node *n)
{
    if (n->kind == SIOT_N_EVENT) {
        uint32_t f = n->u.ev.func;
        if (f < m->nfuncs && !m->id[f]) {
            m->order[m->n] = f;
            m->id[f] = ++m->n;
        }
        return;
    }
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        fmap_mark(m, n->u.loop.body[i]);
}

static void file_start(siot_vbuf *out)
{
    siot_vbuf_put(out, MAGIC, sizeof MAGIC);
    uint8_t ver[4] = {SIOT_FORMAT_MAJOR & 0xff, SIOT_FORMAT_MAJOR >> 8, SIOT_FORMAT_MINOR & 0xff, SIOT_FORMAT_MINOR >> 8};
    siot_vbuf_put(out, ver, 4);
}

static void header_section(const siot_trace *t, int exact, siot_vbuf *s, siot_vbuf *out)
{
    s->len = 0;
    siot_vbuf_uvar(s, t->nranks);
    const uint32_t file_form = SIOT_TF_QBINS | SIOT_TF_MOMENTS24 | SIOT_TF_SD16;
    uint32_t flags = (t->flags | SIOT_TF_COMPACT | SIOT_TF_PCOUNT) & ~file_form;
    siot_vbuf_uvar(s, exact ? flags : flags | file_form);
    siot_vbuf_uvar(s, t->start_ns);
    put_cstr(s, t->exe);
    put_cstr(s, t->flavour);
    put_cstr(s, t->host);
    put_cstr(s, t->version);
    siot_vbuf_uvar(s, t->nkv);
    for (uint32_t i = 0; i < t->nkv; i++) {
        put_cstr(s, t->kv[i].key);
        put_cstr(s, t->kv[i].val);
    }
    end_section(out, SEC_HEADER, s);
}

static void funcs_section(const siot_funcdesc *funcs, const siot_fmap *m, siot_vbuf *s, siot_vbuf *out)
{
    s->len = 0;
    siot_vbuf_uvar(s, m->n);
    for (uint32_t k = 0; k < m->n; k++) {
        const siot_funcdesc *f = &funcs[m->order[k]];
        put_cstr(s, f->name);
        siot_vbuf_u8(s, f->layer);
        siot_vbuf_uvar(s, f->cls);
        siot_vbuf_u8(s, f->retrole);
        siot_vbuf_uvar(s, f->nargs);
        for (uint32_t a = 0; a < f->nargs; a++) {
            put_cstr(s, f->argnames[a]);
            siot_vbuf_u8(s, f->argroles[a]);
        }
    }
    end_section(out, SEC_FUNCS, s);
}

static void sites_section(const siot_trace *t, siot_vbuf *s, siot_vbuf *out)
{
    s->len = 0;
    siot_vbuf_uvar(s, t->nmodules);
    for (uint32_t i = 0; i < t->nmodules; i++)
        put_cstr(s, t->modules[i]);
    /* Minor 1: the sites as a tree of frames (their shared outer frames once). */
    if (siot_sitetree_encode(t->sites, t->nsites, s) != 0)
        s->oom = 1;
    end_section(out, SEC_SITES, s);
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

/* The rank-time sections: rows, and the summary when there is one; how
 * many sections that is. */
static unsigned rank_sections(const siot_trace *t, int exact, siot_vbuf *s, siot_vbuf *out)
{
    ranktimes_section(t, exact, s, out);
    if (!t->rtsum)
        return 1;
    ranksum_section(t, exact, s, out);
    return 2;
}

/* fmap ids are the compact ids + 1 (0: unused). The section is written in
 * place in out, not in s and copied (it is most of a trace): its length's
 * varint is given the bytes that a guess of the length takes, and the
 * nodes are moved only when the length takes another number of bytes. */
static void nodes_section(siot_node *const *nodes, uint32_t n, const siot_fmap *m, uint32_t nranks, int exact,
                          siot_vbuf *out)
{
    /* An event that repeats nothing takes about 30 bytes: room for that
     * many at once saves the copies of growing by doubling (as many bytes
     * again as the section), and a trace of loops asks for little. */
    size_t guess = 16 + (size_t)n * 32, head = out->len;
    unsigned k = uvar_len(guess);
    if (!siot_vbuf_reserve(out, 1 + k + guess + 4))
        return;
    out->len = head + 1 + k;
    siot_vbuf_uvar(out, n);
    for (uint32_t i = 0; i < n; i++)
        enc_node(out, nodes[i], m->id, nranks, exact, 1);
    size_t len = out->len - head - 1 - k;
    unsigned kk = uvar_len(len);
    if (kk > k && !siot_vbuf_reserve(out, kk - k))
        return;
    if (out->oom)
        return;
    if (kk != k)
        memmove(out->data + head + 1 + kk, out->data + head + 1 + k, len);
    uint8_t tag = SEC_NODES;
    out->data[head] = tag;
    put_uvar(out->data + head + 1, len);
    out->len = head + 1 + kk + len;
    uint32_t crc = siot_crc32(0, &tag, 1);
    siot_vbuf_u32le(out, siot_crc32(crc, out->data + head + 1 + kk, len));
}

static void end_marker(uint32_t nsec, siot_vbuf *s, siot_vbuf *out)
{
    s->len = 0;
    siot_vbuf_uvar(s, nsec);
    end_section(out, SEC_END, s);
}

int siot_nodes_section(siot_node *const *nodes, uint32_t n, siot_fmap *m, siot_vbuf *out)
{
    for (uint32_t i = 0; i < n; i++)
        fmap_mark(m, nodes[i]);
    nodes_section(nodes, n, m, 0, 0, out); /* a rank's part: its own rank lists */
    return out->oom ? -1 : 0;
}

int siot_block_tables(const siot_trace *t, const siot_fmap *m, siot_vbuf *out)
{
    siot_vbuf s;
    siot_vbuf_init(&s);
    funcs_section(t->funcs, m, &s, out);
    sites_section(t, &s, out);
    rank_sections(t, 0, &s, out); /* a block of merged ranks can hold a summary */
    int oom = s.oom || out->oom;
    siot_vbuf_free(&s);
    return oom ? -1 : 0;
}

unsigned siot_block_table_sections(const siot_trace *t) { return SIOT_BLOCK_TABLE_SECTIONS + (t->rtsum != NULL); }

int siot_file_start(const siot_trace *t, siot_vbuf *out)
{
    siot_vbuf s;
    siot_vbuf_init(&s);
    file_start(out);
    header_section(t, 0, &s, out);
    int oom = s.oom || out->oom;
    siot_vbuf_free(&s);
    return oom ? -1 : 0;
}

int siot_file_end(uint32_t nsec, siot_vbuf *out)
{
    siot_vbuf s;
    siot_vbuf_init(&s);
    end_marker(nsec, &s, out);
    int oom = s.oom || out->oom;
    siot_vbuf_free(&s);
    return oom ? -1 : 0;
}

static int encode(const siot_trace *t, siot_vbuf *out, int exact)
{
    siot_vbuf s;
    siot_vbuf_init(&s);
    file_start(out);
    header_section(t, exact, &s, out);
    /* Only the functions in use are written, in table order. */
    siot_fmap m;
    if (siot_fmap_init(&m, t->nfuncs) != 0) {
        siot_fmap_free(&m);
        siot_vbuf_free(&s);
        return -1;
    }
    uint8_t *used = siot_calloc(t->nfuncs + 1, 1);
    if (!used) {
        siot_fmap_free(&m);
        siot_vbuf_free(&s);
        return -1;
    }
    for (uint32_t i = 0; i < t->ntop; i++)
        mark_funcs(t->top[i], used, t->nfuncs);
    for (uint32_t i = 0; i < t->nfuncs; i++)
        if (used[i]) {
            m.order[m.n] = i;
            m.id[i] = ++m.n;
        }
    siot_free(used);
    funcs_section(t->funcs, &m, &s, out);
    sites_section(t, &s, out);
    unsigned nsec = 4 + rank_sections(t, exact, &s, out);
    nodes_section(t->top, t->ntop, &m, t->nranks, exact, out);
    end_marker(nsec, &s, out);
    int oom = s.oom || out->oom;
    siot_fmap_free(&m);
    siot_vbuf_free(&s);
    return oom ? -1 : 0;
}

int siot_trace_encode(const siot_trace *t, siot_vbuf *out) { return encode(t, out, 0); }

int siot_trace_encode_file(const siot_trace *t, int pack, siot_vbuf *out)
{
    if (encode(t, out, 0) != 0)
        return -1;
    siot_vbuf packed;
    siot_vbuf_init(&packed);
    if (pack && siot_pack(out->data, out->len, &packed) == 0) {
        siot_vbuf tmp = *out;
        *out = packed;
        packed = tmp;
    }
    siot_vbuf_free(&packed);
    return 0;
}

/* ---- sizes in the file form, for siot dump --sizes */

size_t siot_expr_size(const siot_expr *x, siot_vbuf *scratch)
{
    scratch->len = 0;
    enc_expr(scratch, x);
    return scratch->len;
}

size_t siot_hist_size(const siot_hist *h, uint64_t expect, siot_vbuf *scratch)
{
    scratch->len = 0;
    uint8_t *d = siot_vbuf_reserve(scratch, HIST_HEAD_MAX) ? put_hist(scratch, scratch->data, h, 0, 0, expect) : NULL;
    if (d)
        scratch->len = (size_t)(d - scratch->data);
    return scratch->len;
}

void siot_hist_parts(const siot_hist *h, uint64_t expect, siot_vbuf *scratch, uint64_t part[SIOT_HIST_PARTS])
{
    uint64_t total = siot_hist_size(h, expect, scratch);
    uint8_t head[HIST_HEAD_MAX];
    memset(part, 0, SIOT_HIST_PARTS * sizeof *part);
    part[0] = uvar_len(count_code(h->count, expect));
    if (h->count == 0)
        return;
    part[1] = 4; /* two 16-bit times in the file form */
    part[2] = (uint64_t)(put_hist_head(head, h, 0, expect) - head) - part[0] - part[1];
    part[3] = siot_hist_moments_size(h);
    part[4] = total - part[0] - part[1] - part[2] - part[3];
}

/* An event's own bytes (a loop's: its count and body list, not the body's
 * nodes); function ids as written (at most as many bytes as here). */
size_t siot_node_own_size(const siot_node *n, uint32_t nranks, uint64_t iters, siot_vbuf *scratch)
{
    scratch->len = 0;
    if (n->kind == SIOT_N_EVENT) {
        enc_node(scratch, n, NULL, nranks, 0, iters);
        return scratch->len;
    }
    siot_vbuf_u8(scratch, n->kind);
    if (!all_ranks(&n->ranks, nranks))
        enc_ranklist(scratch, &n->ranks);
    enc_expr(scratch, n->u.loop.count);
    siot_vbuf_uvar(scratch, n->u.loop.nbody);
    return scratch->len;
}

int siot_section_sizes(const siot_trace *t, uint64_t out[SIOT_NSECTION_SIZES])
{
    siot_vbuf s, o;
    siot_vbuf_init(&s);
    siot_vbuf_init(&o);
    siot_fmap m;
    int rc = siot_fmap_init(&m, t->nfuncs);
    for (uint32_t i = 0; rc == 0 && i < t->ntop; i++)
        fmap_mark(&m, t->top[i]);
    uint64_t at = 0;
    file_start(&o);
    out[0] = o.len;
    header_section(t, 0, &s, &o);
    out[1] = o.len - out[0];
    at = o.len;
    funcs_section(t->funcs, &m, &s, &o);
    out[2] = o.len - at, at = o.len;
    sites_section(t, &s, &o);
    out[3] = o.len - at, at = o.len;
    unsigned nsec = 4 + rank_sections(t, 0, &s, &o);
    out[4] = o.len - at, at = o.len;
    nodes_section(t->top, t->ntop, &m, t->nranks, 0, &o);
    out[5] = o.len - at, at = o.len;
    end_marker(nsec, &s, &o);
    out[6] = o.len - at;
    rc = rc || s.oom || o.oom ? -1 : 0;
    siot_fmap_free(&m);
    siot_vbuf_free(&s);
    siot_vbuf_free(&o);
    return rc;
}
int siot_trace_encode_exact(const siot_trace *t, siot_vbuf *out) { return encode(t, out, 1); }

/* ------------------------------------------------------------------ decode */

typedef struct dec {
    siot_rd rd;
    siot_trace *t;
    uint32_t loop_depth;
    uint32_t expr_depth;
    uint64_t nodes;
    uint64_t iters; /* iterations of the enclosing loops of constant count (0: none, as 1) */
    uint64_t *again; /* memory the file may still spend on values decoded again (RMOD runs) */
    char why[160];
} dec;

static int dfail(dec *d, const char *why)
{
    if (!d->rd.err) {
        snprintf(d->why, sizeof d->why, "%s", why);
        siot_rd_fail(&d->rd, d->why);
    }
    return -1;
}

static void *dalloc(dec *d, size_t n)
{
    void *p = siot_arena_alloc(&d->t->arena, n);
    if (!p)
        dfail(d, "out of memory");
    return p;
}

static const char *dstr(dec *d, size_t max)
{
    size_t n;
    const uint8_t *p = siot_rd_bytes(&d->rd, &n, max);
    if (d->rd.err)
        return "";
    char *s = siot_arena_strdup(&d->t->arena, (const char *)p, n);
    if (!s) {
        dfail(d, "out of memory");
        return "";
    }
    return s;
}

static int dec_ranklist(dec *d, siot_ranklist *rl)
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

static siot_expr *dec_expr(dec *d, int want_int);

/* The constant 0 of a field not written (KIND_MAIN_NO_ERRNO). */
static siot_expr *zero_const(dec *d)
{
    siot_expr *x = dalloc(d, sizeof *x);
    if (x)
        x->tag = SIOT_X_CONST;
    return x;
}

/* [0, nranks) as the canonical rank list (a node with KIND_ALL_RANKS). */
static int every_rank(dec *d, siot_ranklist *rl)
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
        x->u.items[i] = dec_expr(d, want_int || x->tag == SIOT_X_ARRAY);
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
    x->u.items[at] = dec_expr(d, want_int);
    const uint8_t *p1 = d->rd.p;
    for (uint64_t k = 1; k < len && !d->rd.err; k++) {
        if (spend_again(d, (uint64_t)(p1 - p0) * sizeof(siot_expr)) != 0)
            return;
        d->rd.p = p0;
        x->u.items[at + k] = dec_expr(d, want_int);
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
        x->u.items[i] = dec_expr(d, 1);
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
        x->u.items[0] = dec_expr(d, 1);
}

static void dec_ranked(dec *d, siot_expr *x, int want_int)
{
    x->n = (uint32_t)siot_rd_count(&d->rd, 2, "rank table longer than the data");
    if (d->rd.err)
        return;
    x->u.ranked = dalloc(d, (x->n ? x->n : 1) * sizeof *x->u.ranked);
    for (uint32_t i = 0; x->u.ranked && i < x->n && !d->rd.err; i++) {
        dec_ranklist(d, &x->u.ranked[i].rl);
        x->u.ranked[i].x = dec_expr(d, want_int);
    }
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

static void dec_ranked_runs(dec *d, siot_expr *x, int want_int)
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
        x->u.ranked[i].x = dec_expr(d, want_int);
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
        r->x = dec_expr(d, want_int);
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
        s->field = dec_expr(d, 1);
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

static void dec_tagged(dec *d, siot_expr *x, int want_int);

/* want_int: 0 any value, 1 integer-valued only */
static siot_expr *dec_expr(dec *d, int want_int)
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
        dec_ranked(d, x, want_int);
        break;
    case RANKED_RUNS_TAG:
        dec_ranked_runs(d, x, want_int);
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
    default:
        dfail(d, "unknown expression kind");
    }
}

static int dec_hist_times(dec *d, siot_hist *h)
{
    if (d->t->flags & SIOT_TF_QBINS) {
        uint64_t tv[2];
        for (int i = 0; i < 2; i++) {
            unsigned code = siot_rd_u8(&d->rd);
            code |= (unsigned)siot_rd_u8(&d->rd) << 8;
            unsigned e = code >> 10, m = code & 1023;
            if (e > 53)
                return dfail(d, "histogram time out of range");
            tv[i] = (uint64_t)m << e;
        }
        h->min = tv[0];
        h->max = tv[1];
        if (h->min > h->max)
            return dfail(d, "histogram minimum above its maximum");
    } else {
        h->min = siot_rd_uvar(&d->rd);
        uint64_t span = siot_rd_uvar(&d->rd);
        if (span > UINT64_MAX - h->min)
            return dfail(d, "histogram maximum out of range");
        h->max = h->min + span;
    }
    return d->rd.err ? -1 : 0;
}

/* A 3-byte float of minor 2 (flag 64), a 2-byte one of minor 6 (flag
 * 128); the canonical code only. */
static double dec_float(dec *d, unsigned bytes, unsigned mbits, int bias)
{
    uint32_t c = 0;
    for (unsigned i = 0; i < bytes; i++)
        c |= (uint32_t)siot_rd_u8(&d->rd) << (8 * i);
    if (!d->rd.err && (c >> mbits) > 0 && (c & ((1u << mbits) - 1)) >> (mbits - 1) == 0)
        dfail(d, "histogram moment not normalised");
    return fcode_value(c, mbits, bias);
}

static double dec_f24(dec *d) { return dec_float(d, F24_BYTES, F24_MBITS, F24_BIAS); }

/* Mean and M2: doubles, or in the compact form the integers of
 * enc_hist_stats, or with flag 64 3-byte floats of the mean and the
 * standard deviation instead of the doubles. */
static int dec_hist_moments(dec *d, siot_hist *h, int form)
{
    int f24s = (d->t->flags & SIOT_TF_MOMENTS24) != 0;
    if (form & HF_MEAN_SUM) {
        int64_t delta = siot_rd_svar(&d->rd);
        if (!d->rd.err && sum_to_mean(h->count, h->min, delta, &h->mean) != 0)
            return dfail(d, "histogram sum out of range");
    } else {
        h->mean = f24s ? dec_f24(d) : siot_rd_f64(&d->rd);
    }
    if (form & HF_M2_INT) {
        h->m2 = (double)siot_rd_uvar(&d->rd) / (double)h->count;
    } else if (f24s) {
        double sd = d->t->flags & SIOT_TF_SD16 ? dec_float(d, F16_BYTES, F16_MBITS, F16_BIAS) : dec_f24(d);
        h->m2 = (double)h->count * sd * sd;
    } else {
        h->m2 = siot_rd_f64(&d->rd);
    }
    if (d->rd.err)
        return -1;
    if (!isfinite(h->mean) || !isfinite(h->m2) || h->m2 < 0)
        return dfail(d, "histogram statistics are not finite numbers");
    /* A mean lies between the minimum and the maximum, and M2 is at most
     * count x range^2 (with room for the file form's 0.1% rounding of them):
     * so merging two histograms stays finite. */
    double low = (double)h->min * 0.995 - 1, high = (double)h->max * 1.005 + 1;
    if (h->mean < low || h->mean > high || h->m2 > (double)h->count * (high - low) * (high - low))
        return dfail(d, "histogram statistics outside its minimum and maximum");
    return 0;
}

static int dec_hist_bins(dec *d, siot_hist *h, unsigned lo, uint64_t mask, int form)
{
    uint64_t sum = 0;
    for (unsigned b = lo; b < SIOT_HBINS && !d->rd.err; b++) {
        if (!(mask >> (b - lo) & 1))
            continue;
        if ((form & HF_BINS_EXACT) && (mask >> (b - lo)) == 1) {
            if (sum >= h->count || h->count - sum > UINT32_MAX)
                return dfail(d, "histogram bins do not add up to its count");
            h->bins[b] = (uint32_t)(h->count - sum);
        } else if ((d->t->flags & SIOT_TF_QBINS) && !(form & HF_BINS_EXACT)) {
            uint8_t q = siot_rd_u8(&d->rd);
            uint64_t v = (q * h->count + 127) / 255;
            h->bins[b] = (uint32_t)(v == 0 ? 1 : v > UINT32_MAX ? UINT32_MAX : v);
        } else {
            h->bins[b] = (uint32_t)siot_rd_uvar_max(&d->rd, UINT32_MAX, "histogram bin count out of range");
            sum += h->bins[b];
        }
    }
    return d->rd.err ? -1 : 0;
}

/* The file form rounds min to nearest, which can lift it into the next bin
 * (2047 -> 2048) above a sample the bins still hold: min comes back down to
 * the top of the lowest bin that has samples (within that rounding), so
 * that the trace written again in the exact form, which anchors its bins at
 * min's, keeps them all. */
static void min_to_lowest_bin(siot_hist *h)
{
    unsigned b = 0;
    while (b < SIOT_HBINS && !h->bins[b])
        b++;
    if (b < siot_hist_bin(h->min)) {
        uint64_t lo, hi;
        siot_hist_bin_range(b, &lo, &hi);
        h->min = hi - 1;
    }
}

/* count >= 2: minor 0 writes mean, M2, mask, bins; the compact form (flag
 * 32) mask<<3|form first. */
static int dec_hist_stats(dec *d, siot_hist *h)
{
    int compact = (d->t->flags & SIOT_TF_COMPACT) != 0, form = 0;
    uint64_t mask = 0;
    if (compact) {
        uint64_t v = siot_rd_uvar(&d->rd);
        form = (int)(v & 7);
        mask = v >> 3;
    }
    if (dec_hist_moments(d, h, form))
        return -1;
    h->bins = dalloc(d, SIOT_HBINS * sizeof *h->bins);
    if (!h->bins)
        return -1;
    unsigned lo = siot_hist_bin(h->min);
    if ((d->t->flags & SIOT_TF_QBINS) && h->min >= 1024 && lo > 0)
        lo--; /* the writer's anchor: see mask_anchor */
    if (!compact)
        mask = siot_rd_uvar(&d->rd);
    if (!d->rd.err && (mask >> (SIOT_HBINS - lo)) != 0)
        return dfail(d, "histogram bin out of range");
    if ((form & HF_BINS_EXACT) && mask == 0)
        return dfail(d, "histogram bins do not add up to its count");
    if (dec_hist_bins(d, h, lo, mask, form))
        return -1;
    if (d->t->flags & SIOT_TF_QBINS)
        min_to_lowest_bin(h);
    return 0;
}

static int dec_hist(dec *d, siot_hist *h, uint64_t expect)
{
    memset(h, 0, sizeof *h);
    h->max_rank = -1;
    h->count = siot_rd_uvar(&d->rd);
    if (expect != SIOT_HIST_NO_EXPECT && (d->t->flags & SIOT_TF_PCOUNT))
        h->count = count_of_code(h->count, expect);
    if (h->count == 0)
        return d->rd.err ? -1 : 0;
    if (dec_hist_times(d, h))
        return -1;
    if (d->t->flags & SIOT_TF_COMPACT) {
        uint64_t v = siot_rd_uvar(&d->rd);
        if (!d->rd.err && (v >> 1) > d->t->nranks)
            return dfail(d, "histogram rank out of range");
        h->max_rank = (int32_t)(v >> 1) - 1;
        h->max_occ = v & 1 ? 0 : siot_rd_uvar(&d->rd);
    } else {
        uint64_t r = siot_rd_uvar_max(&d->rd, d->t->nranks, "histogram rank out of range");
        h->max_rank = (int32_t)r - 1;
        h->max_occ = siot_rd_uvar(&d->rd);
    }
    if (h->count == 1) {
        h->mean = (double)h->min;
        return d->rd.err ? -1 : 0;
    }
    if (d->rd.err)
        return -1;
    return dec_hist_stats(d, h);
}

static siot_node *dec_node(dec *d)
{
    if (++d->nodes > (uint64_t)UINT32_MAX - 1) {
        dfail(d, "too many nodes");
        return NULL;
    }
    siot_node *n = dalloc(d, sizeof *n);
    if (!n)
        return NULL;
    uint8_t k = siot_rd_u8(&d->rd);
    n->kind = k & (uint8_t) ~(KIND_ALL_RANKS | KIND_MAIN_NO_ERRNO);
    if ((k & KIND_ALL_RANKS ? every_rank(d, &n->ranks) : dec_ranklist(d, &n->ranks)) != 0)
        return NULL;
    if ((k & KIND_MAIN_NO_ERRNO) && n->kind != SIOT_N_EVENT) {
        dfail(d, "unknown node kind");
        return NULL;
    }
    if (n->kind == SIOT_N_EVENT) {
        siot_event *e = &n->u.ev;
        uint64_t func = siot_rd_uvar(&d->rd);
        if (!d->rd.err && func >= d->t->nfuncs) {
            dfail(d, "event refers to an unknown function");
            return NULL;
        }
        e->func = (uint32_t)func;
        e->site = (uint32_t)siot_rd_uvar_max(&d->rd, d->t->nsites, "event refers to an unknown call site");
        int quiet = (k & KIND_MAIN_NO_ERRNO) != 0;
        e->thread = quiet ? zero_const(d) : dec_expr(d, 1);
        e->parent = dec_expr(d, 1);
        e->ret = dec_expr(d, 1);
        e->err = quiet ? zero_const(d) : dec_expr(d, 1);
        e->bytes = dec_expr(d, 1);
        if (d->rd.err)
            return NULL;
        e->nargs = d->t->funcs[e->func].nargs;
        e->args = dalloc(d, (e->nargs ? e->nargs : 1) * sizeof *e->args);
        for (uint32_t i = 0; e->args && i < e->nargs && !d->rd.err; i++)
            e->args[i] = dec_expr(d, 0);
        dec_hist(d, &e->comp, siot_hist_expect(&n->ranks, d->iters));
        dec_hist(d, &e->dur, e->comp.count);
    } else if (n->kind == SIOT_N_LOOP) {
        if (++d->loop_depth > SIOT_MAX_NEST) {
            dfail(d, "loops nested too deeply");
            return NULL;
        }
        /* The count is evaluated in the scope around the loop. */
        d->loop_depth--;
        n->u.loop.count = dec_expr(d, 1);
        d->loop_depth++;
        uint64_t nb = siot_rd_count(&d->rd, 3, "loop body longer than the data");
        if (d->rd.err)
            return NULL;
        if (nb == 0) {
            dfail(d, "empty loop body");
            return NULL;
        }
        n->u.loop.nbody = (uint32_t)nb;
        n->u.loop.body = dalloc(d, nb * sizeof *n->u.loop.body);
        uint64_t outer = d->iters;
        d->iters = siot_loop_iters(outer, n->u.loop.count);
        for (uint32_t i = 0; n->u.loop.body && i < nb && !d->rd.err; i++)
            n->u.loop.body[i] = dec_node(d);
        d->iters = outer;
        d->loop_depth--;
    } else {
        dfail(d, "unknown node kind");
    }
    return d->rd.err ? NULL : n;
}

static int dec_header(dec *d)
{
    siot_trace *t = d->t;
    t->nranks = (uint32_t)siot_rd_uvar_max(&d->rd, SIOT_MAX_RANKS, "rank count out of range");
    if (!d->rd.err && t->nranks == 0)
        return dfail(d, "rank count is zero");
    t->flags = (uint32_t)siot_rd_uvar_max(&d->rd, UINT32_MAX, "header flags out of range");
    t->start_ns = siot_rd_uvar(&d->rd);
    t->exe = dstr(d, 4096);
    t->flavour = dstr(d, 64);
    t->host = dstr(d, 256);
    t->version = dstr(d, 64);
    t->nkv = (uint32_t)siot_rd_count(&d->rd, 2, "header notes longer than the data");
    if (d->rd.err)
        return -1;
    t->kv = dalloc(d, (t->nkv ? t->nkv : 1) * sizeof *t->kv);
    for (uint32_t i = 0; t->kv && i < t->nkv && !d->rd.err; i++) {
        t->kv[i].key = dstr(d, 256);
        t->kv[i].val = dstr(d, SIOT_MAX_STRING);
    }
    return d->rd.err ? -1 : 0;
}

static int dec_funcs(dec *d)
{
    siot_trace *t = d->t;
    uint64_t n = siot_rd_count(&d->rd, 5, "function table longer than the data");
    if (!d->rd.err && n > SIOT_MAX_FUNCS)
        return dfail(d, "function table too large");
    if (d->rd.err)
        return -1;
    t->nfuncs = (uint32_t)n;
    t->funcs = dalloc(d, (n ? n : 1) * sizeof *t->funcs);
    for (uint32_t i = 0; t->funcs && i < n && !d->rd.err; i++) {
        siot_funcdesc *f = &t->funcs[i];
        f->name = dstr(d, 256);
        f->layer = siot_rd_u8(&d->rd);
        f->cls = (uint32_t)siot_rd_uvar_max(&d->rd, UINT32_MAX, "function class out of range");
        f->retrole = siot_rd_u8(&d->rd);
        f->nargs = (uint32_t)siot_rd_uvar_max(&d->rd, SIOT_MAX_ARGS, "function with too many arguments");
        if (!d->rd.err && f->layer >= SIOT_NLAYERS)
            return dfail(d, "function of an unknown layer");
        if (!d->rd.err && f->name[0] == 0)
            return dfail(d, "function without a name");
        const char **names = dalloc(d, (f->nargs ? f->nargs : 1) * sizeof *names);
        uint8_t *roles = dalloc(d, f->nargs ? f->nargs : 1);
        if (!names || !roles)
            return -1;
        for (uint32_t k = 0; k < f->nargs && !d->rd.err; k++) {
            names[k] = dstr(d, 256);
            roles[k] = siot_rd_u8(&d->rd);
        }
        f->argnames = names;
        f->argroles = roles;
    }
    return d->rd.err ? -1 : 0;
}

static int dec_sites(dec *d)
{
    siot_trace *t = d->t;
    uint64_t nm = siot_rd_count(&d->rd, 1, "module table longer than the data");
    if (!d->rd.err && nm > 65535)
        return dfail(d, "too many modules");
    if (d->rd.err)
        return -1;
    t->nmodules = (uint32_t)nm;
    t->modules = dalloc(d, (nm ? nm : 1) * sizeof *t->modules);
    for (uint32_t i = 0; t->modules && i < nm && !d->rd.err; i++)
        t->modules[i] = dstr(d, 4096);
    if (t->flags & SIOT_TF_COMPACT)
        return d->rd.err ? -1 : siot_sitetree_decode(&d->rd, &t->arena, t->nmodules, &t->sites, &t->nsites);
    uint64_t n = siot_rd_count(&d->rd, 1, "call-site table longer than the data");
    if (d->rd.err)
        return -1;
    t->nsites = (uint32_t)n;
    t->sites = dalloc(d, (n ? n : 1) * sizeof *t->sites);
    for (uint32_t i = 0; t->sites && i < n && !d->rd.err; i++) {
        siot_site *s = &t->sites[i];
        s->depth = (uint32_t)siot_rd_uvar_max(&d->rd, SIOT_MAX_SITE_DEPTH, "call site too deep");
        s->addrs = dalloc(d, (s->depth ? s->depth : 1) * sizeof *s->addrs);
        for (uint32_t k = 0; s->addrs && k < s->depth && !d->rd.err; k++) {
            uint64_t m = siot_rd_uvar_max(&d->rd, t->nmodules ? t->nmodules - 1 : 0, "call site in an unknown module");
            if (!d->rd.err && t->nmodules == 0)
                dfail(d, "call site without a module table");
            uint64_t off = siot_rd_uvar_max(&d->rd, SIOT_ADDR_OFFSET(UINT64_MAX), "call-site offset out of range");
            s->addrs[k] = SIOT_ADDR(m, off);
        }
    }
    return d->rd.err ? -1 : 0;
}

/* A NODES section; the nodes of a block's further sections follow its first ones. */
static int dec_nodes(dec *d)
{
    siot_trace *t = d->t;
    uint64_t n = siot_rd_count(&d->rd, 3, "node list longer than the data");
    if (d->rd.err)
        return -1;
    if (t->ntop + n > UINT32_MAX / 2)
        return dfail(d, "too many nodes");
    siot_node **top = dalloc(d, (t->ntop + n ? t->ntop + n : 1) * sizeof *top);
    if (!top)
        return -1;
    if (t->ntop)
        memcpy(top, t->top, t->ntop * sizeof *top);
    uint32_t base = t->ntop;
    t->top = top;
    for (uint32_t i = 0; i < n && !d->rd.err; i++) {
        top[base + i] = dec_node(d);
        t->ntop = base + i + 1;
    }
    return d->rd.err ? -1 : 0;
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
static int dec_ranktimes(dec *d)
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
    if (dec_hist(d, &h, SIOT_HIST_NO_EXPECT) || dec_rtx_list(d, m, 1, &lo) || dec_rtx_list(d, m, 1, &hi))
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
static int dec_ranksum(dec *d, siot_rts *y, uint32_t *keep_out)
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

/* Decoding a whole file: HEADER, then blocks of FUNCS SITES NODES
 * [NODES...], then END; each block after the first is joined to the trace. */
typedef struct file_dec {
    dec d;
    siot_trace *t;
    siot_trace blk; /* a block after the first, until it is joined to t */
    int blk_live;
    siot_trace *cur; /* the trace the current block decodes into */
    /* Rank times of blocks of merged ranks (core/ranksum.h): the blocks'
     * summaries merged, and the rows of blocks without one summarised
     * too once some block has one. */
    siot_rts sum;
    uint32_t blk_rows_from, sum_keep;
    int blk_has_sum;
    uint64_t again_left; /* dec.again */
    enum { WANT_HEADER, WANT_FUNCS, WANT_SITES, WANT_NODES, IN_NODES } state;
    unsigned nsec, nblocks;
    const char *why;
    char whybuf[200];
} file_dec;

static int fd_fail(file_dec *fd, const char *why)
{
    fd->why = why;
    return -1;
}

static int check_magic(file_dec *fd, const void *p, size_t n)
{
    if (n < sizeof MAGIC + 4 || memcmp(p, MAGIC, sizeof MAGIC) != 0)
        return fd_fail(fd, n < sizeof MAGIC ? "file too short to be a siotrace trace"
                                            : "not a siotrace trace (bad magic number)");
    fd->d.rd.p += sizeof MAGIC;
    unsigned major = siot_rd_u8(&fd->d.rd);
    major |= (unsigned)siot_rd_u8(&fd->d.rd) << 8;
    (void)siot_rd_u8(&fd->d.rd);
    (void)siot_rd_u8(&fd->d.rd);
    if (major != SIOT_FORMAT_MAJOR) {
        snprintf(fd->whybuf, sizeof fd->whybuf, "trace format version %u is not supported (this siot reads version %d)",
                 major, SIOT_FORMAT_MAJOR);
        return fd_fail(fd, fd->whybuf);
    }
    return 0;
}

int siot_rd_section(siot_rd *rd, uint8_t *tag, const uint8_t **payload, uint64_t *len)
{
    *tag = siot_rd_u8(rd);
    *len = siot_rd_uvar(rd);
    if (rd->err || *len > siot_rd_left(rd) || siot_rd_left(rd) - *len < 4)
        return SIOT_SECTION_SHORT;
    *payload = rd->p;
    rd->p += *len;
    uint32_t want = siot_rd_u32le(rd);
    return siot_crc32(siot_crc32(0, tag, 1), *payload, (size_t)*len) != want && siot_format_verify_crc
               ? SIOT_SECTION_BAD_CRC
               : 0;
}

/* The next section's tag and payload, its framing and checksum checked. */
static int next_section(file_dec *fd, uint8_t *tag, const uint8_t **payload, uint64_t *len)
{
    siot_rd *rd = &fd->d.rd;
    if (siot_rd_left(rd) == 0)
        return fd_fail(fd, "trace is truncated (no end marker)");
    int framed = siot_rd_section(rd, tag, payload, len);
    if (framed == SIOT_SECTION_SHORT)
        return fd_fail(fd, "trace is truncated (a section runs past the end of the file)");
    if (framed == SIOT_SECTION_BAD_CRC) {
        snprintf(fd->whybuf, sizeof fd->whybuf, "trace is corrupt (checksum mismatch in section %u)", *tag);
        return fd_fail(fd, fd->whybuf);
    }
    /* Sections must come in order: each needs the ones before it. */
    int st = fd->state;
    int in_order = *tag > SEC_END || (*tag == SEC_HEADER && st == WANT_HEADER) ||
                   (*tag == SEC_FUNCS && (st == WANT_FUNCS || st == IN_NODES)) ||
                   (*tag == SEC_SITES && st == WANT_SITES) ||
                   (*tag == SEC_NODES && (st == WANT_NODES || st == IN_NODES)) || (*tag == SEC_END && st == IN_NODES);
    if (!in_order)
        return fd_fail(fd, st == WANT_HEADER || *tag == SEC_HEADER
                               ? "trace is corrupt (sections out of order, missing or repeated)"
                               : "trace is corrupt (sections out of order or missing)");
    return 0;
}

/* A block's summary, merged into those of the blocks before (their K
 * the least of the blocks', for which every list is exact). */
static int block_ranksum(file_dec *fd, dec *sub)
{
    siot_rts y = {0};
    uint32_t keep;
    if (fd->blk_has_sum++)
        return dfail(sub, "two rank-time summaries in a block");
    if (dec_ranksum(sub, &y, &keep))
        return -1;
    if (!fd->sum.sum) {
        fd->sum = y;
        fd->sum_keep = keep;
        return 0;
    }
    fd->sum_keep = keep < fd->sum_keep ? keep : fd->sum_keep;
    if (siot_rts_merge(&fd->t->arena, &fd->sum, &y, fd->sum_keep) != 0)
        return dfail(sub, "out of memory");
    return 0;
}

/* The end of a block's rank times: a block with a summary has no rows; at
 * the end, when some block had a summary, the rows of the others join it. */
static int close_rank_block(file_dec *fd, int last)
{
    siot_trace *t = fd->t;
    if (fd->blk_has_sum && t->nrt > fd->blk_rows_from)
        return fd_fail(fd, "trace is corrupt (rank-time rows beside a summary)");
    fd->blk_has_sum = 0;
    fd->blk_rows_from = t->nrt;
    if (!last || !fd->sum.sum) /* no block has a summary: rows only, as before minor 7 */
        return 0;
    if (siot_rt_settle(t) != 0)
        return fd_fail(fd, "trace is corrupt (a rank has two rows of rank times)");
    if (siot_rts_add_rows(&t->arena, &fd->sum, t->rt, t->nrt, fd->sum_keep) != 0)
        return fd_fail(fd, "out of memory");
    siot_rts_set(t, &fd->sum, fd->sum_keep);
    return 0;
}

/* Block boundaries: the block that ends is joined to the trace (tables
 * united), a FUNCS section after the first starts a new one. */
static int block_boundary(file_dec *fd, uint8_t tag)
{
    if ((tag == SEC_FUNCS || tag == SEC_END) && fd->state == IN_NODES && fd->blk_live) {
        siot_trace_index(&fd->blk);
        fd->blk_live = 0; /* freed below whatever happens */
        int rc = siot_trace_append(fd->t, &fd->blk);
        siot_trace_free(&fd->blk);
        if (rc != 0)
            return fd_fail(fd, rc == SIOT_E_CONFLICT ? "trace is corrupt (blocks describe a function differently)"
                                                     : "out of memory");
    }
    if ((tag == SEC_FUNCS && fd->nblocks > 0) || tag == SEC_END)
        if (close_rank_block(fd, tag == SEC_END) != 0)
            return -1;
    if (tag == SEC_FUNCS && fd->nblocks++ > 0) {
        if (fd->nblocks > SIOT_MAX_RANKS + 1u)
            return fd_fail(fd, "trace is corrupt (too many blocks)");
        siot_trace_init(&fd->blk);
        fd->blk_live = 1;
        fd->blk.nranks = fd->t->nranks;
        fd->blk.flags = fd->t->flags;
        fd->cur = &fd->blk;
    }
    return 0;
}

/* One section's payload, into the current block. */
static int dec_section(file_dec *fd, uint8_t tag, const uint8_t *payload, uint64_t len)
{
    dec sub = fd->d;
    sub.t = fd->cur;
    siot_rd_init(&sub.rd, payload, len);
    int rc = 0;
    switch (tag) {
    case SEC_HEADER:
        rc = dec_header(&sub);
        fd->state = WANT_FUNCS;
        break;
    case SEC_FUNCS:
        rc = dec_funcs(&sub);
        fd->state = WANT_SITES;
        break;
    case SEC_SITES:
        rc = dec_sites(&sub);
        fd->state = WANT_NODES;
        break;
    case SEC_NODES:
        rc = dec_nodes(&sub);
        fd->state = IN_NODES;
        break;
    case SEC_END: {
        uint64_t cnt = siot_rd_uvar(&sub.rd);
        if (!sub.rd.err && cnt != fd->nsec)
            siot_rd_fail(&sub.rd, "section count does not match");
        break;
    }
    case SEC_RANKTIMES:
        /* into the job's trace whatever the block: rows are not per block */
        sub.t = fd->t;
        rc = fd->state == WANT_HEADER ? dfail(&sub, "rank times before the header") : dec_ranktimes(&sub);
        break;
    case SEC_RANKSUM:
        sub.t = fd->t;
        rc = fd->state == WANT_HEADER ? dfail(&sub, "rank times before the header") : block_ranksum(fd, &sub);
        break;
    default:
        break; /* unknown optional section from a newer minor version */
    }
    if (rc || sub.rd.err) {
        snprintf(fd->whybuf, sizeof fd->whybuf, "trace is corrupt (%s)", sub.rd.err ? sub.rd.err : "bad section");
        return fd_fail(fd, fd->whybuf);
    }
    if (siot_rd_left(&sub.rd) != 0 && tag <= SEC_RANKSUM)
        return fd_fail(fd, "trace is corrupt (unexpected bytes at the end of a section)");
    return 0;
}

static int decode_file(const void *p, size_t n, siot_trace *t, char *err, size_t errlen)
{
    static file_dec zero;
    file_dec fd = zero;
    siot_trace_init(t);
    fd.t = fd.cur = t;
    fd.d.t = t;
    /* values decoded again may take 64 bytes of memory for each byte of
     * the file, and 64 MiB in all for a small one */
    fd.again_left = ((uint64_t)n + (1u << 20)) * 64;
    fd.d.again = &fd.again_left;
    siot_rd_init(&fd.d.rd, p, n);
    fd.state = WANT_HEADER;
    int rc = check_magic(&fd, p, n);
    for (uint8_t tag = 0; rc == 0 && tag != SEC_END;) {
        const uint8_t *payload;
        uint64_t len;
        rc = next_section(&fd, &tag, &payload, &len);
        if (rc == 0)
            rc = block_boundary(&fd, tag);
        if (rc == 0)
            rc = dec_section(&fd, tag, payload, len);
        if (rc == 0 && tag != SEC_END)
            fd.nsec++;
    }
    if (rc == 0 && siot_rd_left(&fd.d.rd) != 0)
        rc = fd_fail(&fd, "trace is corrupt (data after the end marker)");
    if (rc == 0 && siot_rt_settle(t) != 0)
        rc = fd_fail(&fd, "trace is corrupt (a rank has two rows of rank times)");
    if (rc == 0 && siot_rts_check(t))
        rc = fd_fail(&fd, siot_rts_check(t));
    if (rc == 0) {
        siot_trace_index(t);
        return 0;
    }
    if (err && errlen)
        snprintf(err, errlen, "%s", fd.why ? fd.why : "trace is corrupt");
    if (fd.blk_live)
        siot_trace_free(&fd.blk);
    siot_trace_free(t);
    return -1;
}

int siot_trace_load(const char *path, siot_trace *t, char *err, size_t errlen)
{
    /* Raw system calls: a traced ioreplay must not record its own input. */
    int fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (syscall(SYS_fstat, fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "%s is not a regular file", path);
        syscall(SYS_close, fd);
        return -1;
    }
    size_t n = (size_t)st.st_size;
    uint8_t *buf = siot_malloc(n ? n : 1);
    if (!buf) {
        snprintf(err, errlen, "%s: out of memory (%zu bytes)", path, n);
        syscall(SYS_close, fd);
        return -1;
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = (ssize_t)syscall(SYS_read, fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    syscall(SYS_close, fd);
    if (got != n) {
        snprintf(err, errlen, "cannot read %s", path);
        siot_free(buf);
        return -1;
    }
    char why[220];
    int rc = siot_trace_decode(buf, n, t, why, sizeof why);
    siot_free(buf);
    if (rc)
        snprintf(err, errlen, "%s: %s", path, why);
    return rc;
}

/* A packed file of this major version (core/pack.h); any other goes to
 * decode_file as it is, which says what is wrong with it. */
static int packed_here(const uint8_t *p, size_t n)
{
    return n > sizeof MAGIC + 4 && memcmp(p, MAGIC, sizeof MAGIC) == 0 &&
           (p[sizeof MAGIC] | p[sizeof MAGIC + 1] << 8) == SIOT_FORMAT_MAJOR && siot_is_packed(p, n);
}

int siot_trace_decode(const void *p, size_t n, siot_trace *t, char *err, size_t errlen)
{
    if (!packed_here(p, n))
        return decode_file(p, n, t, err, errlen);
    siot_vbuf raw;
    siot_vbuf_init(&raw);
    const char *why = NULL;
    int rc = siot_unpack(p, n, &raw, &why);
    if (rc == 0)
        rc = decode_file(raw.data, raw.len, t, err, errlen);
    else {
        siot_trace_init(t);
        if (err && errlen)
            snprintf(err, errlen, "%s", why);
    }
    if (rc == 0)
        t->unpacked_bytes = raw.len;
    siot_vbuf_free(&raw);
    return rc;
}

/* ------------------------------------------------------------------ merge */

static int same_funcdesc(const siot_funcdesc *a, const siot_funcdesc *b)
{
    if (a->layer != b->layer || a->cls != b->cls || a->retrole != b->retrole || a->nargs != b->nargs)
        return 0;
    for (uint32_t k = 0; k < a->nargs; k++)
        if (a->argroles[k] != b->argroles[k] || strcmp(a->argnames[k], b->argnames[k]) != 0)
            return 0;
    return 1;
}

int siot_unite_funcs(siot_funcdesc *funcs, uint32_t *n, const siot_funcdesc *src, uint32_t nsrc, uint32_t *map)
{
    uint32_t nf = *n;
    for (uint32_t i = 0; i < nsrc; i++) {
        uint32_t j = 0;
        while (j < nf && strcmp(funcs[j].name, src[i].name) != 0)
            j++;
        if (j == nf)
            funcs[nf++] = src[i];
        else if (!same_funcdesc(&funcs[j], &src[i]))
            return SIOT_E_CONFLICT;
        map[i] = j;
    }
    *n = nf;
    return 0;
}

void siot_unite_names(const char **names, uint32_t *n, const char *const *src, uint32_t nsrc, uint32_t *map)
{
    uint32_t nn = *n;
    for (uint32_t i = 0; i < nsrc; i++) {
        uint32_t j = 0;
        while (j < nn && strcmp(names[j], src[i]) != 0)
            j++;
        if (j == nn)
            names[nn++] = src[i];
        map[i] = j;
    }
    *n = nn;
}

static void remap_funcs(siot_node *n, const uint32_t *map)
{
    if (n->kind == SIOT_N_EVENT) {
        n->u.ev.func = map[n->u.ev.func];
        return;
    }
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        remap_funcs(n->u.loop.body[i], map);
}

static void remap_sites(siot_node *n, uint32_t add)
{
    if (n->kind == SIOT_N_EVENT) {
        if (n->u.ev.site)
            n->u.ev.site += add;
        return;
    }
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        remap_sites(n->u.loop.body[i], add);
}

int siot_rt_union(siot_trace *dst, const siot_trace *src) { return siot_rts_union(dst, src); }

int siot_trace_append(siot_trace *dst, siot_trace *src)
{
    if (siot_rt_union(dst, src) != 0) {
        siot_trace_free(src);
        return -1;
    }
    uint32_t *map = siot_malloc((src->nfuncs + 1) * sizeof *map);
    if (!map) {
        siot_trace_free(src);
        return -1;
    }
    siot_funcdesc *funcs = siot_arena_alloc(&dst->arena, (dst->nfuncs + src->nfuncs + 1) * sizeof *funcs);
    siot_site *sites = siot_arena_alloc(&dst->arena, (dst->nsites + src->nsites + 1) * sizeof *sites);
    siot_node **top = siot_arena_alloc(&dst->arena, ((size_t)dst->ntop + src->ntop + 1) * sizeof *top);
    if (!funcs || !sites || !top) {
        siot_free(map);
        siot_trace_free(src);
        return -1;
    }
    copy_n(funcs, dst->funcs, dst->nfuncs * sizeof *funcs);
    uint32_t nf = dst->nfuncs;
    if (siot_unite_funcs(funcs, &nf, src->funcs, src->nfuncs, map) != 0) {
        siot_free(map);
        siot_trace_free(src);
        return SIOT_E_CONFLICT;
    }
    /* Modules united by path; the source's site addresses renumbered. */
    const char **mods = siot_arena_alloc(&dst->arena, (dst->nmodules + src->nmodules + 1) * sizeof *mods);
    uint32_t *mmap_ = siot_malloc((src->nmodules + 1) * sizeof *mmap_);
    if (!mods || !mmap_) {
        siot_free(map);
        siot_free(mmap_);
        siot_trace_free(src);
        return -1;
    }
    copy_n(mods, dst->modules, dst->nmodules * sizeof *mods);
    uint32_t nm = dst->nmodules;
    siot_unite_names(mods, &nm, src->modules, src->nmodules, mmap_);
    copy_n(sites, dst->sites, dst->nsites * sizeof *sites);
    copy_n(sites + dst->nsites, src->sites, src->nsites * sizeof *sites);
    for (uint32_t i = 0; i < src->nsites; i++)
        for (uint32_t k = 0; k < src->sites[i].depth; k++) {
            uint64_t a = src->sites[i].addrs[k];
            uint32_t m = SIOT_ADDR_MODULE(a);
            src->sites[i].addrs[k] = SIOT_ADDR(m < src->nmodules ? mmap_[m] : m, SIOT_ADDR_OFFSET(a));
        }
    siot_free(mmap_);
    dst->modules = mods;
    dst->nmodules = nm;
    copy_n(top, dst->top, dst->ntop * sizeof *top);
    for (uint32_t i = 0; i < src->ntop; i++) {
        remap_funcs(src->top[i], map);
        remap_sites(src->top[i], dst->nsites);
        top[dst->ntop + i] = src->top[i];
    }
    siot_free(map);
    dst->funcs = funcs;
    dst->nfuncs = nf;
    dst->sites = sites;
    dst->nsites += src->nsites;
    dst->top = top;
    dst->ntop += src->ntop;
    dst->flags |= src->flags & (SIOT_TF_PARTIAL | SIOT_TF_APPROX | SIOT_TF_TRUNCATED);
    siot_arena_take(&dst->arena, &src->arena);
    siot_trace_free(src);
    siot_trace_index(dst);
    return 0;
}

static void index_node(siot_trace *t, siot_node *n, uint32_t depth)
{
    n->id = t->nnodes++;
    if (n->kind != SIOT_N_LOOP)
        return;
    if (depth + 1 > t->max_depth)
        t->max_depth = depth + 1;
    for (uint32_t i = 0; i < n->u.loop.nbody; i++)
        index_node(t, n->u.loop.body[i], depth + 1);
}

void siot_trace_index(siot_trace *t)
{
    t->nnodes = 0;
    t->max_depth = 0;
    for (uint32_t i = 0; i < t->ntop; i++)
        index_node(t, t->top[i], 0);
}

int siot_trace_set_kv(siot_trace *t, const char *key, const char *val)
{
    for (uint32_t i = 0; i < t->nkv; i++)
        if (strcmp(t->kv[i].key, key) == 0) {
            /* the old value stays when the new one cannot be copied */
            char *v = siot_arena_strdup(&t->arena, val, strlen(val));
            if (!v)
                return -1;
            t->kv[i].val = v;
            return 0;
        }
    siot_kv *kv = siot_arena_alloc(&t->arena, (t->nkv + 1) * sizeof *kv);
    char *k = siot_arena_strdup(&t->arena, key, strlen(key));
    char *v = siot_arena_strdup(&t->arena, val, strlen(val));
    if (!kv || !k || !v)
        return -1; /* the notes as they were: no entry without its strings */
    copy_n(kv, t->kv, t->nkv * sizeof *kv);
    kv[t->nkv].key = k;
    kv[t->nkv].val = v;
    t->kv = kv;
    t->nkv++;
    return 0;
}

const char *siot_trace_get_kv(const siot_trace *t, const char *key)
{
    for (uint32_t i = 0; i < t->nkv; i++)
        if (strcmp(t->kv[i].key, key) == 0)
            return t->kv[i].val;
    return NULL;
}
