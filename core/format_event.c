/* format_event: events and loops, the NODES sections (docs/format.md:
 * node, event, loop, and "Minor 1" and "Minor 8").
 *
 * Writes and reads a node: its kind byte (with the flags for a node of
 * every rank and for an event of the main thread without errno), its rank
 * list, then an event (function, call site, values, the histograms of its
 * computation and duration) or a loop (its count and body). The writer
 * goes through one reserve and a cursor per event (docs/hotpath.md "The
 * end of the run"). Also here: the function map a NODES section numbers
 * its functions by (siot_fmap), a NODES section written in place, and the
 * iterations an event's count is predicted from (minor 8). The reader
 * bounds the nesting (SIOT_MAX_NEST) and the node count and checks every
 * function and call-site index against the block's tables.
 *
 * Part of the trace format (core/format_int.h); locks, signals and errors
 * as core/format.h says. */
#include "core/format_int.h"

#include "core/ranklist.h"
#include "core/salloc.h"

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

/* An event's value at the cursor d, which has room for `room` bytes: the
 * most frequent, a constant, written in place (the bytes siot_fmt_enc_expr
 * writes); any other through siot_fmt_enc_expr, after which room is
 * reserved again. NULL once out of memory (the writes are dropped, as
 * siot_vbuf's are). */
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
    siot_fmt_enc_expr(b, x);
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

/* The constant 0 of a field not written (KIND_MAIN_NO_ERRNO). */
static siot_expr *zero_const(dec *d)
{
    siot_expr *x = dalloc(d, sizeof *x);
    if (x)
        x->tag = SIOT_X_CONST;
    return x;
}

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
        siot_fmt_enc_ranklist(b, &n->ranks);
    }
    if (e) {
        enc_event(b, e, fmap ? fmap[e->func] - 1 : e->func, quiet != 0, exact, siot_hist_expect(&n->ranks, iters));
    } else {
        siot_fmt_enc_expr(b, n->u.loop.count);
        siot_vbuf_uvar(b, n->u.loop.nbody);
        uint64_t inner = siot_loop_iters(iters, n->u.loop.count);
        for (uint32_t i = 0; i < n->u.loop.nbody; i++)
            enc_node(b, n->u.loop.body[i], fmap, nranks, exact, inner);
    }
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
    if ((k & KIND_ALL_RANKS ? siot_fmt_every_rank(d, &n->ranks) : siot_fmt_dec_ranklist(d, &n->ranks)) != 0)
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
        e->thread = quiet ? zero_const(d) : siot_fmt_dec_expr(d, 1);
        e->parent = siot_fmt_dec_expr(d, 1);
        e->ret = siot_fmt_dec_expr(d, 1);
        e->err = quiet ? zero_const(d) : siot_fmt_dec_expr(d, 1);
        e->bytes = siot_fmt_dec_expr(d, 1);
        if (d->rd.err)
            return NULL;
        e->nargs = d->t->funcs[e->func].nargs;
        e->args = dalloc(d, (e->nargs ? e->nargs : 1) * sizeof *e->args);
        for (uint32_t i = 0; e->args && i < e->nargs && !d->rd.err; i++)
            e->args[i] = siot_fmt_dec_expr(d, 0);
        siot_fmt_dec_hist(d, &e->comp, siot_hist_expect(&n->ranks, d->iters));
        siot_fmt_dec_hist(d, &e->dur, e->comp.count);
    } else if (n->kind == SIOT_N_LOOP) {
        if (++d->loop_depth > SIOT_MAX_NEST) {
            dfail(d, "loops nested too deeply");
            return NULL;
        }
        /* The count is evaluated in the scope around the loop. */
        d->loop_depth--;
        n->u.loop.count = siot_fmt_dec_expr(d, 1);
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

/* The loop over the nodes here, beside mark_funcs: inlined into it, a
 * top-level event (most nodes of an irregular trace) costs no call (13
 * instructions an event at the end of the run when it was a call from
 * core/format_file.c; bench/hotpath.sh). */
void siot_fmt_mark_funcs(siot_node *const *nodes, uint32_t n, uint8_t *used, uint32_t nfuncs)
{
    for (uint32_t i = 0; i < n; i++)
        mark_funcs(nodes[i], used, nfuncs);
}

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

void siot_fmt_fmap_mark(siot_fmap *m, const siot_node *n)
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
        siot_fmt_fmap_mark(m, n->u.loop.body[i]);
}

/* fmap ids are the compact ids + 1 (0: unused). The section is written in
 * place in out, not in s and copied (it is most of a trace): its length's
 * varint is given the bytes that a guess of the length takes, and the
 * nodes are moved only when the length takes another number of bytes. */
void siot_fmt_nodes_section(siot_node *const *nodes, uint32_t n, const siot_fmap *m, uint32_t nranks, int exact,
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

int siot_nodes_section(siot_node *const *nodes, uint32_t n, siot_fmap *m, siot_vbuf *out)
{
    for (uint32_t i = 0; i < n; i++)
        siot_fmt_fmap_mark(m, nodes[i]);
    siot_fmt_nodes_section(nodes, n, m, 0, 0, out); /* a rank's part: its own rank lists */
    return out->oom ? -1 : 0;
}

/* A NODES section; the nodes of a block's further sections follow its first ones. */
int siot_fmt_dec_nodes(dec *d)
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
        siot_fmt_enc_ranklist(scratch, &n->ranks);
    siot_fmt_enc_expr(scratch, n->u.loop.count);
    siot_vbuf_uvar(scratch, n->u.loop.nbody);
    return scratch->len;
}
