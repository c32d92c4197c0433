/* format_int: what the parts of the trace format share, internal to them
 * (core/format.h is the interface; no module but those parts includes this
 * one).
 *
 * The parts, each writing and reading one thing, the writer beside the
 * reader:
 *   core/format_file.c       the file: magic and version, HEADER, FUNCS,
 *                            SITES and END, the blocks of a spilled or
 *                            merged file, whole traces written and read
 *   core/format_event.c      events and loops: the NODES sections
 *   core/format_expr.c       values and expressions
 *   core/format_hist.c       histograms (an event's computation and duration)
 *   core/format_ranks.c      rank lists, rank tables and their runs
 *   core/format_ranktimes.c  the ranks' own times: RANKTIMES and RANKSUM
 *   core/format_trace.c      the trace in memory: init, free, joining blocks
 *                            (append, the table unions), index, notes
 * Below them: core/section.h (a section's frame, the packed form's too),
 * core/pack.h (the packed form) and core/sitetree.h (the call-site table).
 * The includes point down only: a part includes this header, which
 * includes core/format.h, which includes the model and the section frame;
 * no part includes another.
 *
 * Here: the section tags, the expression wire tags that are not model
 * tags, the reader's state with its failure and allocation, the small
 * writers several parts use, and the functions one part offers another.
 * The histogram head and time writers are inline here rather than in
 * core/format_hist.c: the NODES section writes two histograms an event
 * through a cursor (docs/hotpath.md "The end of the run"), and a call for
 * each cost more than the writing.
 *
 * Locks, signals, errors: those of core/format.h (writers allocate through
 * salloc.h only; readers treat their input as hostile and fail through
 * dfail, the first reason kept). */
#ifndef SIOT_FORMAT_INT_H
#define SIOT_FORMAT_INT_H

#include <stdio.h>
#include <string.h>

#include "core/format.h"
#include "core/ranksum.h"
#include "core/vbuf.h"

enum { SEC_HEADER = 1, SEC_FUNCS = 2, SEC_SITES = 3, SEC_NODES = 4, SEC_END = 5, SEC_RANKTIMES = 6, SEC_RANKSUM = 7,
       SEC_RANKSUM9 = 8 /* RANKSUM in minor 9's form */ };

/* Expression wire tags beside the model's (core/model.h); each form is
 * described where it is written. */
#define RMOD_RUNS_TAG 12u    /* RMOD in runs, minor 3 (core/format_expr.c) */
#define RANKED_RUNS_TAG 14u  /* a rank table as runs of ranks, minor 6 (core/format_ranks.c) */
#define SMALL_CONST_TAG 128u /* 128 + zigzag: a constant of -64..63 in one byte, minor 1 */

/* The reader's state within one section's payload. */
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

/* Fails the reader with why, unless it failed already; -1. */
static inline int dfail(dec *d, const char *why)
{
    if (!d->rd.err) {
        snprintf(d->why, sizeof d->why, "%s", why);
        siot_rd_fail(&d->rd, d->why);
    }
    return -1;
}

/* From the trace's arena; NULL (the reader failed) without memory. */
static inline void *dalloc(dec *d, size_t n)
{
    void *p = siot_arena_alloc(&d->t->arena, n);
    if (!p)
        dfail(d, "out of memory");
    return p;
}

/* memcpy from a possibly NULL pointer when there is nothing to copy is undefined. */
static inline void copy_n(void *dst, const void *src, size_t n)
{
    if (n)
        memcpy(dst, src, n);
}

/* A string as the file writes one (NULL as empty). */
static inline void put_cstr(siot_vbuf *b, const char *s) { siot_vbuf_str(b, s ? s : "", s ? strlen(s) : 0); }

/* The bytes of v as a uvar. */
static inline unsigned uvar_len(uint64_t v)
{
    unsigned n = 1;
    while (v >= 128)
        v >>= 7, n++;
    return n;
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

/* A section whose payload was built in the scratch buffer `payload`. */
static inline void end_section(siot_vbuf *out, uint8_t tag, const siot_vbuf *payload)
{
    siot_put_section(out, tag, payload->data, payload->len);
}

/* A time in the file form: 6-bit exponent, 10-bit mantissa (0.1%; exact
 * below 1024 ns), two bytes whatever the magnitude. */
static inline uint16_t time16(uint64_t ns)
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

static inline uint64_t time16_value(uint16_t code) { return (uint64_t)(code & 1023) << (code >> 10); }

/* An event's count as written in minor 8: 0 when it is the one expected, 1
 * for none (an empty histogram, whatever was expected), else 2 + the
 * zigzag of the difference (counts below 2^62: the samples of a trace).
 * SIOT_HIST_NO_EXPECT: the count itself. */
static inline uint64_t count_code(uint64_t count, uint64_t expect)
{
    if (expect == SIOT_HIST_NO_EXPECT)
        return count;
    return count == expect ? 0 : count == 0 ? 1 : siot_zigzag((int64_t)(count - expect)) + 2;
}

/* The count whose code is v (the reader's side of count_code). */
static inline uint64_t count_of_code(uint64_t v, uint64_t expect)
{
    return v == 0 ? expect : v == 1 ? 0 : expect + (uint64_t)siot_unzigzag(v - 2);
}

/* What one part offers the others (hidden: not part of the libraries'
 * interface). */
#pragma GCC visibility push(hidden)

/* format_expr.c: an expression (NULL: none); want_int 1 where only an
 * integer-valued one is valid. */
void siot_fmt_enc_expr(siot_vbuf *b, const siot_expr *x);
siot_expr *siot_fmt_dec_expr(dec *d, int want_int);

/* format_ranks.c: a rank list; [0, nranks) for a node of every rank; a
 * rank table (SIOT_X_RANKED) with its tag, in whichever form is shorter,
 * read after its tag in either (SIOT_X_RANKED, RANKED_RUNS_TAG). */
void siot_fmt_enc_ranklist(siot_vbuf *b, const siot_ranklist *rl);
int siot_fmt_dec_ranklist(dec *d, siot_ranklist *rl);
int siot_fmt_every_rank(dec *d, siot_ranklist *rl);
void siot_fmt_enc_ranked(siot_vbuf *b, const siot_expr *x);
void siot_fmt_dec_ranked(dec *d, siot_expr *x, int want_int);
void siot_fmt_dec_ranked_runs(dec *d, siot_expr *x, int want_int);

/* format_hist.c: a histogram's moments and bins (two samples or more,
 * after put_hist_head), and reading them into h (count, min and max set);
 * reading a whole histogram (expect: as siot_hist_size's). */
void siot_fmt_enc_hist_stats(siot_vbuf *b, const siot_hist *h, int exact);
int siot_fmt_dec_hist_stats(dec *d, siot_hist *h);
int siot_fmt_dec_hist(dec *d, siot_hist *h, uint64_t expect);

/* format_event.c: the functions nodes[0..n) use (used[func] = 1), those
 * of node n in an fmap (ids in the order of first use), a NODES section of
 * nodes[0..n) (nranks 0: a rank's part, whose rank lists are its own), and
 * reading one. */
void siot_fmt_mark_funcs(siot_node *const *nodes, uint32_t n, uint8_t *used, uint32_t nfuncs);
void siot_fmt_fmap_mark(siot_fmap *m, const siot_node *n);
void siot_fmt_nodes_section(siot_node *const *nodes, uint32_t n, const siot_fmap *m, uint32_t nranks, int exact,
                            siot_vbuf *out);
int siot_fmt_dec_nodes(dec *d);

/* format_ranktimes.c: RANKTIMES and, when the trace has a summary,
 * RANKSUM (how many sections that is: siot_fmt_rank_nsections); reading RANKTIMES into d->t, and a
 * RANKSUM of either form (tag SEC_RANKSUM or SEC_RANKSUM9) into *y with
 * its K. siot_fmt_ranksum_minor7: the writer's RANKSUM in minor 7's form
 * (tag SEC_RANKSUM), which the tests set to keep that reader tested. */
unsigned siot_fmt_rank_sections(const siot_trace *t, int exact, siot_vbuf *s, siot_vbuf *out);
unsigned siot_fmt_rank_nsections(const siot_trace *t);
int siot_fmt_dec_ranktimes(dec *d);
int siot_fmt_dec_ranksum(dec *d, uint8_t tag, siot_rts *y, uint32_t *keep_out);
extern int siot_fmt_ranksum_minor7;

#pragma GCC visibility pop

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

/* A histogram at the cursor, which has room for `room` bytes; the moments
 * and bins of two samples or more through siot_fmt_enc_hist_stats, after
 * which room is reserved again. NULL once out of memory. */
static inline __attribute__((always_inline)) uint8_t *put_hist(siot_vbuf *b, uint8_t *d, const siot_hist *h,
                                                              int exact, size_t room, uint64_t expect)
{
    d = put_hist_head(d, h, exact, expect);
    if (h->count < 2)
        return d;
    b->len = (size_t)(d - b->data);
    siot_fmt_enc_hist_stats(b, h, exact);
    return siot_vbuf_reserve(b, room) ? b->data + b->len : NULL;
}

#endif
