/* findptr: the findings that need each rank's calls in program order
 * (finder.h): redundant-reads at the file pointer, and read-after-write by
 * byte ranges. A read without
 * an offset (read, readv, MPI_File_read, MPI_File_read_all...) reads where
 * earlier calls left the pointer, which the compressed pass cannot know; a
 * walk of every rank in program order (siot/access.h, with MPI files'
 * individual pointers and stdio streams followed) gives each such read its byte offset, and
 * reads of the same bytes (file, offset, size) by RED_RANKS ranks or more
 * count as read again by all but one. read-after-write: the pass counts
 * every read of a file after the rank's first write to it; the walk counts
 * only the bytes of the rank's own earlier writes that a read covers (all
 * its bytes where an offset is not known), so that a benchmark reading its
 * neighbour's block (IOR's -C) is not told it reads its own data back. The
 * walk runs only when the pass saw reads at a pointer in a job of
 * RED_RANKS ranks or more, or counted reads after writes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/hash.h"
#include "core/roles.h"
#include "siot/access.h"
#include "siot/finder.h"

/* Reads of one (file row, offset, size): by how many ranks. */
typedef struct ptrkey {
    int64_t off, bytes;
    int32_t row, last_rank; /* row -1: a free cell */
    uint32_t ranks, site;
    double ns; /* a call's mean duration at its node */
} ptrkey;

/* read-after-write: a byte range the walked rank wrote on a file row. */
typedef struct wrange {
    int32_t row;
    int64_t lo, hi;
} wrange;

#define RB_RANGES 4096 /* ranges kept per rank: past them a row's writes count as at unknown offsets */
#define RB_WROTE 1     /* the walked rank wrote to the row, */
#define RB_UNKNOWN 2   /* some of it at an offset not known */

typedef struct rowstate {
    uint8_t state; /* the walked rank's RB_ bits */
    uint64_t back; /* bytes read back, all ranks */
} rowstate;

typedef struct ptrwalk {
    finder *f;
    siot_access *a;
    int redundant, readback; /* what the walk is for */
    ptrkey *v;
    uint32_t n, cap; /* cap: a power of two */
    int32_t rank;    /* the rank walked */
    wrange *r;
    uint32_t nr, capr;
    rowstate *rows;
    uint32_t caprows;
    uint64_t *site_back; /* per site + 1: the reads that read back */
    uint64_t overlap, assumed;
    double back_ns;
    int oom;
} ptrwalk;

/* A read the program made at the file pointer, where the walk may find its
 * offset: POSIX descriptors, stdio streams, MPI files' individual pointers
 * (not the shared one: the walk leaves those unknown). */
static int pointer_read(const siot_funcdesc *fn)
{
    return SIOT_CLASS_BASE(fn->cls) == SIOT_CLASS_read && siot_arg_index(fn, SIOT_ROLE_offset) < 0 &&
           (fn->layer == SIOT_LAYER_posix || fn->layer == SIOT_LAYER_mpiio || fn->layer == SIOT_LAYER_stdio) &&
           siot_file_handle_arg(fn) >= 0;
}

void siot_findptr_event(finder *f, const siot_agg_event *e)
{
    if (f->t->nranks >= RED_RANKS && e->bytes > 0 && pointer_read(e->fn))
        f->m.red_ptr_reads += e->calls * e->nranks;
}

static uint64_t key_hash(int32_t row, int64_t off, int64_t bytes)
{
    return siot_hash_fmix(siot_hash_mix(siot_hash_mix((uint64_t)row, (uint64_t)off), (uint64_t)bytes));
}

static int grow(ptrwalk *w)
{
    uint32_t cap = w->cap ? 2 * w->cap : 1024;
    ptrkey *v = malloc((size_t)cap * sizeof *v);
    if (!v)
        return -1;
    for (uint32_t i = 0; i < cap; i++)
        v[i].row = -1;
    for (uint32_t i = 0; i < w->cap; i++) {
        const ptrkey *k = &w->v[i];
        if (k->row < 0)
            continue;
        uint32_t j = (uint32_t)key_hash(k->row, k->off, k->bytes) & (cap - 1);
        while (v[j].row >= 0)
            j = (j + 1) & (cap - 1);
        v[j] = *k;
    }
    free(w->v);
    w->v = v;
    w->cap = cap;
    return 0;
}

static ptrkey *key_at(ptrwalk *w, int32_t row, int64_t off, int64_t bytes)
{
    if (2 * (w->n + 1) > w->cap && grow(w) != 0)
        return NULL;
    uint32_t j = (uint32_t)key_hash(row, off, bytes) & (w->cap - 1);
    while (w->v[j].row >= 0 && !(w->v[j].row == row && w->v[j].off == off && w->v[j].bytes == bytes))
        j = (j + 1) & (w->cap - 1);
    if (w->v[j].row < 0) {
        w->v[j] = (ptrkey){off, bytes, row, -1, 0, 0, 0};
        w->n++;
    }
    return &w->v[j];
}

static rowstate *row_at(ptrwalk *w, int32_t row)
{
    if ((uint32_t)row >= w->caprows) {
        uint32_t cap = w->caprows ? w->caprows : 64;
        while (cap <= (uint32_t)row)
            cap *= 2;
        rowstate *v = realloc(w->rows, (size_t)cap * sizeof *v);
        if (!v)
            return NULL;
        memset(v + w->caprows, 0, (size_t)(cap - w->caprows) * sizeof *v);
        w->rows = v;
        w->caprows = cap;
    }
    return &w->rows[row];
}

/* Adds [lo, hi) to the rank's ranges of row, merged with those it meets
 * (so that no two overlap and a read's overlap is counted once); 0, or -1
 * when the ranges are full (the caller counts the row as unknown). */
static int add_range(ptrwalk *w, int32_t row, int64_t lo, int64_t hi)
{
    for (uint32_t i = 0; i < w->nr;) {
        wrange *x = &w->r[i];
        if (x->row != row || x->hi < lo || x->lo > hi) {
            i++;
            continue;
        }
        lo = x->lo < lo ? x->lo : lo;
        hi = x->hi > hi ? x->hi : hi;
        *x = w->r[--w->nr]; /* taken into [lo, hi): look at the one moved here */
    }
    if (w->nr == w->capr) {
        uint32_t cap = w->capr ? 2 * w->capr : 64;
        wrange *v = cap <= RB_RANGES ? realloc(w->r, (size_t)cap * sizeof *v) : NULL;
        if (!v)
            return -1;
        w->r = v;
        w->capr = cap;
    }
    w->r[w->nr++] = (wrange){row, lo, hi};
    return 0;
}

static int64_t overlap(const ptrwalk *w, int32_t row, int64_t lo, int64_t hi)
{
    int64_t n = 0;
    for (uint32_t i = 0; i < w->nr; i++) {
        const wrange *x = &w->r[i];
        int64_t a = x->lo > lo ? x->lo : lo, b = x->hi < hi ? x->hi : hi;
        n += x->row == row && b > a ? b - a : 0;
    }
    return n;
}

/* read-after-write: the program's own writes make the rank's ranges; its
 * own reads after a write to the same file read back the bytes those
 * ranges cover, or, when the read's or one of the writes' offsets is not
 * known, all their bytes (as the pass counts them). */
static void readback_event(ptrwalk *w, const siot_synth_ev *ev, const siot_funcdesc *fn, int64_t bytes)
{
    unsigned b = SIOT_CLASS_BASE(fn->cls);
    int32_t row = w->a->last_row;
    int64_t off = w->a->last_off;
    rowstate *rs = row >= 0 && bytes > 0 ? row_at(w, row) : NULL;
    if (!rs) {
        w->oom |= row >= 0 && bytes > 0;
        return;
    }
    if (b == SIOT_CLASS_write) {
        rs->state |= RB_WROTE;
        if (off < 0 || off > INT64_MAX - bytes || add_range(w, row, off, off + bytes) != 0)
            rs->state |= RB_UNKNOWN;
        return;
    }
    if (!(rs->state & RB_WROTE))
        return;
    int64_t n = off < 0 || (rs->state & RB_UNKNOWN) || off > INT64_MAX - bytes ? bytes : overlap(w, row, off, off + bytes);
    if (n <= 0)
        return;
    rs->back += (uint64_t)n;
    *(off < 0 || (rs->state & RB_UNKNOWN) ? &w->assumed : &w->overlap) += (uint64_t)n;
    w->back_ns += ev->node->u.ev.dur.mean * (double)n / (double)bytes;
    uint32_t site = ev->node->u.ev.site;
    if (site <= w->f->t->nsites)
        w->site_back[site]++;
}

/* A new rank: its ranges and states start empty. */
static void next_rank(ptrwalk *w, int32_t rank)
{
    w->rank = rank;
    w->nr = 0;
    for (uint32_t i = 0; i < w->caprows; i++)
        w->rows[i].state = 0;
}

/* Each walked event: the program's own (outermost) data calls: reads at
 * the pointer by the offset the walk followed (siot_access's last_off),
 * and reads and writes for read-after-write. */
static void on_walked(void *user, const siot_synth_ev *ev, const siot_funcdesc *fn)
{
    ptrwalk *w = user;
    const siot_event *e = &ev->node->u.ev;
    unsigned b = SIOT_CLASS_BASE(fn->cls);
    if (ev->depth != 0 || (b != SIOT_CLASS_read && b != SIOT_CLASS_write))
        return;
    if ((int32_t)ev->ctx.rank != w->rank)
        next_rank(w, (int32_t)ev->ctx.rank);
    int64_t bytes = siot_eval_int(e->bytes, &ev->ctx, 0);
    if (w->readback)
        readback_event(w, ev, fn, bytes);
    if (!w->redundant || !pointer_read(fn) || w->a->last_row < 0 || w->a->last_off < 0)
        return;
    ptrkey *k = bytes > 0 ? key_at(w, w->a->last_row, w->a->last_off, bytes) : NULL;
    if (!k) {
        w->oom |= bytes > 0;
        return;
    }
    if (k->last_rank != (int32_t)ev->ctx.rank) { /* the walk goes rank by rank */
        k->last_rank = (int32_t)ev->ctx.rank;
        k->ranks++;
    }
    k->site = e->site;
    k->ns = e->dur.mean;
}

/* The bytes RED_RANKS ranks or more read alike, into the rule's totals and
 * its sites (each at the origin with the most calls of its call site). */
static void fold(finder *f, const ptrwalk *w)
{
    more *m = &f->m;
    uint32_t saved = f->origins.current;
    for (uint32_t i = 0; i < w->cap; i++) {
        const ptrkey *k = &w->v[i];
        if (k->row < 0 || k->ranks < RED_RANKS)
            continue;
        m->red_calls += k->ranks - 1;
        m->red_bytes += (uint64_t)(k->ranks - 1) * (uint64_t)k->bytes;
        m->red_ptr_bytes += (uint64_t)(k->ranks - 1) * (uint64_t)k->bytes;
        m->red_ns += (k->ranks - 1) * k->ns;
        if (k->ranks > m->red_ranks)
            m->red_ranks = k->ranks;
        f->origins.current = siot_origins_dominant(&f->origins, k->site);
        siot_finder_hit(f, F_REDUNDANT, k->ranks);
    }
    f->origins.current = saved;
}

/* The walk's read-after-write in place of the pass's: its totals, and its
 * sites (the pass's counted every read after a write). */
static void fold_readback(finder *f, const ptrwalk *w)
{
    more *m = &f->m;
    m->rb_walked = 1;
    m->rb_overlap = w->overlap;
    m->rb_assumed = w->assumed;
    m->rb_bytes = w->overlap + w->assumed;
    m->rb_ns = w->back_ns;
    for (uint32_t i = 0; i < w->caprows; i++)
        m->rb_files += w->rows[i].back > 0;
    for (uint32_t id = 0; id < f->caphits; id++)
        f->hits[(size_t)id * NFIND + F_READBACK] = 0;
    uint32_t saved = f->origins.current;
    for (uint32_t s = 0; s <= f->t->nsites; s++) {
        if (!w->site_back[s])
            continue;
        f->origins.current = siot_origins_dominant(&f->origins, s);
        siot_finder_hit(f, F_READBACK, w->site_back[s]);
    }
    f->origins.current = saved;
}

static int readback_counted(const finder *f)
{
    for (uint32_t i = 0; i < f->capft; i++)
        if (f->ft[i].name && f->ft[i].readback)
            return 1;
    return 0;
}

int siot_findptr_walk(finder *f, char *err, size_t errlen)
{
    ptrwalk w = {.f = f, .rank = -1, .redundant = f->m.red_ptr_reads > 0, .readback = readback_counted(f)};
    if (!w.redundant && !w.readback)
        return 0;
    siot_access a;
    siot_access_init(&a);
    w.a = &a;
    a.pointers = 1;
    a.on_event = on_walked;
    a.user = &w;
    int rc = (w.site_back = calloc(f->t->nsites + 1, sizeof *w.site_back)) ? 0 : -1;
    if (rc == 0)
        rc = siot_access_run(f->t, &a, SIOT_ACCESS_MAX_EVENTS, err, errlen);
    if (rc == 0 && w.oom)
        rc = -1;
    if (rc != 0 && (w.oom || !w.site_back))
        snprintf(err, errlen, "out of memory");
    f->m.red_walk_truncated = a.truncated;
    if (rc == 0)
        fold(f, &w);
    if (rc == 0 && w.readback && !a.truncated) /* truncated: the pass's counts stand */
        fold_readback(f, &w);
    free(w.v);
    free(w.r);
    free(w.rows);
    free(w.site_back);
    siot_access_free(&a);
    return rc;
}
