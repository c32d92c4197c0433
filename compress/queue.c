#include "compress/queue.h"
#include "compress/repeat.h"
#include "core/salloc.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/hist.h"

#define SIOT_Q_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ------------------------------------------------------------ hashing */

/* A node's shape is hashed as the merge across ranks hashes it
 * (compress/merge.c): one siot_hash_mix (core/hash.h) for both. */

static uint64_t event_hash(uint32_t func, uint32_t site, int64_t thread)
{
    return siot_hash_mix(siot_hash_mix(siot_hash_mix(0x5349, func), site), (uint64_t)thread);
}

static uint64_t loop_hash(siot_node *const *body, uint32_t n)
{
    uint64_t h = siot_hash_mix(0x4c4f4f50, n);
    for (uint32_t i = 0; i < n; i++)
        h = siot_hash_mix(h, body[i]->hash);
    return h;
}

/* ------------------------------------------------------------ nodes */

void siot_queue_init(siot_queue *q, siot_arena *a, int32_t rank, int compress, uint32_t window)
{
    memset(q, 0, sizeof *q);
    q->arena = a;
    siot_pool_init(&q->pool, a);
    q->rank = rank;
    q->compress = compress;
    q->window = window ? window : 1;
    q->self.start = rank;
}

void siot_queue_free(siot_queue *q)
{
    siot_free(q->nodes);
    siot_free(q->hash);
    siot_free(q->nbody);
    siot_free(q->pend);
    siot_free(q->pend_dist);
    siot_free(q->pend_key);
    siot_free(q->pbytes);
    siot_free(q->prev_same);
    siot_free(q->loop_next);
    siot_free(q->tfirst);
    siot_free(q->by_target);
    siot_free(q->ixkey);
    siot_free(q->ixpos);
    q->prev_same = q->loop_next = q->by_target = q->ixpos = NULL;
    q->ixkey = NULL;
    q->tfirst = NULL;
    q->ixcap = q->ixused = q->tcap = 0;
    /* Field by field (as compress/merge.c's unify_tables and
     * src/handles.c's grow): each array named once freed, once emptied. */
    q->nodes = NULL;
    q->hash = NULL;
    q->nbody = NULL;
    q->pend = NULL;
    q->pend_dist = NULL;
    q->pbytes = NULL;
    q->n = q->cap = q->npend = q->cappend = q->npbytes = q->cappbytes = 0;
}

static void free_hist(siot_queue *q, siot_hist *h)
{
    if (h->bins)
        siot_pool_free(&q->pool, h->bins, SIOT_HBINS * sizeof *h->bins);
}

static void free_node(siot_queue *q, siot_node *n)
{
    if (n->kind == SIOT_N_EVENT) {
        siot_event *e = &n->u.ev;
        siot_x_free(&q->pool, e->thread);
        siot_x_free(&q->pool, e->parent);
        siot_x_free(&q->pool, e->ret);
        siot_x_free(&q->pool, e->err);
        siot_x_free(&q->pool, e->bytes);
        for (uint32_t i = 0; i < e->nargs; i++)
            siot_x_free(&q->pool, e->args[i]);
        siot_pool_free(&q->pool, e->args, (e->nargs ? e->nargs : 1) * sizeof *e->args);
        free_hist(q, &e->comp);
        free_hist(q, &e->dur);
    } else {
        siot_x_free(&q->pool, n->u.loop.count);
        for (uint32_t i = 0; i < n->u.loop.nbody; i++)
            free_node(q, n->u.loop.body[i]);
        siot_pool_free(&q->pool, n->u.loop.body, n->u.loop.nbody * sizeof *n->u.loop.body);
    }
    siot_pool_free(&q->pool, n, sizeof *n);
}

/* siot_hist_init1 at occurrence 0, inline: the node is a fresh zeroed
 * block (siot_pool_alloc), so only the set fields are written. */
static inline void one_sample(siot_hist *h, uint64_t ns, int32_t rank)
{
    h->count = 1;
    h->min = h->max = ns;
    h->mean = (double)ns;
    h->max_rank = rank;
}

static uint8_t is_idle(const siot_queue *q, const siot_raw *r) { return q->idle && q->idle(r) ? 1 : 0; }

static siot_node *make_event(siot_queue *q, const siot_raw *r, int64_t dist, const uint8_t *pool)
{
    siot_pool *p = &q->pool;
    siot_node *n = siot_pool_alloc(p, sizeof *n);
    if (!n)
        return NULL;
    n->kind = SIOT_N_EVENT;
    n->ranks.n = 1;
    n->ranks.e = &q->self;
    siot_event *e = &n->u.ev;
    siot_expr *ints = siot_x_int_table();
    e->func = r->func;
    e->site = r->site;
    e->thread = siot_x_int_in(p, ints, r->thread);
    e->parent = siot_x_int_in(p, ints, dist);
    e->ret = siot_x_int_in(p, ints, r->ret);
    e->err = siot_x_int_in(p, ints, r->err);
    e->bytes = siot_x_int_in(p, ints, r->bytes);
    e->nargs = r->nargs;
    e->args = siot_pool_alloc(p, (r->nargs ? r->nargs : 1) * sizeof *e->args);
    int ok = e->thread && e->parent && e->ret && e->err && e->bytes && e->args;
    for (uint32_t i = 0; ok && i < r->nargs; i++) { /* integers, the most, inline */
        const siot_rawval *v = &r->args[i];
        ok = (e->args[i] = v->kind == SIOT_RV_INT ? siot_x_int_in(p, ints, v->i) : siot_x_from_raw(p, v, pool)) !=
             NULL;
    }
    if (!ok) {
        /* Leave the node consistent enough to free. */
        for (uint32_t i = 0; e->args && i < r->nargs; i++)
            if (!e->args[i])
                e->nargs = i;
        free_node(q, n);
        return NULL;
    }
    one_sample(&e->comp, r->comp, q->rank);
    one_sample(&e->dur, r->t_end - r->t_start, q->rank);
    e->idle = is_idle(q, r);
    n->hash = event_hash(r->func, r->site, r->thread) ^ e->idle;
    return n;
}

/* ------------------------------------------------------------ the tail's index */

static uint64_t ix_key(uint64_t h) { return h ? h : 1; }

/* The index is keyed on a node's hash and its predecessor's: a new loop of
 * length L >= 2 needs both to repeat L positions back, and in a stream with
 * no repetition the pairs that do are far fewer than the single hashes (16
 * call sites in random order: one in 16). Length 1 is checked directly. */
static uint64_t pair_hash(const siot_queue *q, uint32_t i)
{
    uint64_t before = i ? q->hash[i - 1] : 0;
    before *= 0x9e3779b97f4a7c15ULL;
    return q->hash[i] ^ (before << 31 | before >> 33);
}

static uint32_t *ix_find(const siot_queue *q, uint64_t h)
{
    uint64_t k = ix_key(h);
    for (uint32_t j = (uint32_t)(k ^ (k >> 32)) & (q->ixcap - 1);; j = (j + 1) & (q->ixcap - 1)) {
        if (q->ixkey[j] == k || !q->ixkey[j])
            return q->ixkey[j] ? &q->ixpos[j] : NULL;
    }
}

static int ix_grow(siot_queue *q)
{
    uint32_t cap = q->ixcap ? q->ixcap * 2 : 1024;
    uint64_t *key = siot_calloc(cap, sizeof *key);
    uint32_t *pos = key ? siot_calloc(cap, sizeof *pos) : NULL;
    if (!pos) {
        siot_free(key);
        return -1;
    }
    uint64_t *okey = q->ixkey;
    uint32_t *opos = q->ixpos, ocap = q->ixcap;
    q->ixkey = key;
    q->ixpos = pos;
    q->ixcap = cap;
    q->ixused = 0;
    for (uint32_t i = 0; i < ocap; i++) /* hashes no longer in the list are dropped */
        if (okey[i] && opos[i] != SIOT_Q_NONE) {
            uint32_t j = (uint32_t)(okey[i] ^ (okey[i] >> 32)) & (cap - 1);
            while (key[j])
                j = (j + 1) & (cap - 1);
            key[j] = okey[i];
            pos[j] = opos[i];
            q->ixused++;
        }
    siot_free(okey);
    siot_free(opos);
    return 0;
}

/* by_target covers position t (new entries: no loop) */
static int target_room(siot_queue *q, uint32_t t)
{
    if (t < q->tcap)
        return 0;
    uint32_t cap = t + 1 > 2 * q->tcap ? t + 1 : 2 * q->tcap;
    uint32_t *bt = siot_realloc(q->by_target, cap * sizeof *bt);
    if (!bt)
        return -1;
    memset(bt + q->tcap, 0xff, (cap - q->tcap) * sizeof *bt); /* SIOT_Q_NONE */
    q->by_target = bt;
    q->tcap = cap;
    return 0;
}

/* A loop at position i can take the nodes after it as one more iteration
 * only when they are as many as its body: when the top is at i + nbody. */
static void loop_push(siot_queue *q, uint32_t i)
{
    uint32_t t = i + q->nbody[i];
    if (target_room(q, t)) {
        q->noindex = 1;
        return;
    }
    q->loop_next[i] = q->by_target[t];
    q->by_target[t] = i;
}

/* Position i (the new top) enters the index. */
static void ix_push(siot_queue *q, uint32_t i)
{
    if (q->noindex || ((q->ixused + 1) * 2 > q->ixcap && ix_grow(q))) {
        q->noindex = 1;
        return;
    }
    uint64_t h = pair_hash(q, i), k = ix_key(h);
    uint32_t *e = ix_find(q, h);
    if (!e) {
        uint32_t j = (uint32_t)(k ^ (k >> 32)) & (q->ixcap - 1);
        while (q->ixkey[j])
            j = (j + 1) & (q->ixcap - 1);
        q->ixkey[j] = k;
        q->ixpos[j] = SIOT_Q_NONE;
        q->ixused++;
        e = &q->ixpos[j];
    }
    q->prev_same[i] = *e;
    *e = i;
    if (q->nbody[i])
        loop_push(q, i);
}

/* The list is cut to its first n nodes (the removed ones were folded). */
static void truncate_to(siot_queue *q, uint32_t n)
{
    for (uint32_t j = q->n; !q->noindex && j-- > n;) {
        uint32_t *e = ix_find(q, pair_hash(q, j));
        if (e && *e == j) /* j was the last of its pair: its predecessor is again */
            *e = q->prev_same[j];
        else
            q->noindex = 1; /* cannot happen; the fold then scans the window */
        uint32_t t = j + q->nbody[j];
        if (q->nbody[j] && t < q->tcap && q->by_target[t] == j)
            q->by_target[t] = q->loop_next[j];
        else if (q->nbody[j])
            q->noindex = 1;
    }
    q->n = n;
}

/* Past 4096 nodes the six arrays grow fourfold: each growth copies them
 * (realloc), and a stream that does not fold grows them by a node a call;
 * copied and first touched, they cost a third of what doubling costs.
 * Untouched, the room ahead costs address space only. */
static int grow_list(siot_queue *q)
{
    uint32_t cap = !q->cap ? 256 : q->cap < 4096 || q->cap > UINT32_MAX / 8 ? q->cap * 2 : q->cap * 4;
    if (SIOT_REGROW(q->nodes, cap) || SIOT_REGROW(q->hash, cap) || SIOT_REGROW(q->nbody, cap) ||
        SIOT_REGROW(q->prev_same, cap) || SIOT_REGROW(q->loop_next, cap) || SIOT_REGROW(q->tfirst, cap))
        return -1;
    q->cap = cap;
    return 0;
}

/* node at the tail; t: the start of its first call (a loop: of its first
 * iteration). */
static int append(siot_queue *q, siot_node *node, uint64_t t)
{
    if (q->n == q->cap && grow_list(q))
        return -1;
    q->nodes[q->n] = node;
    q->tfirst[q->n] = t;
    q->hash[q->n] = node->hash;
    q->nbody[q->n] = node->kind == SIOT_N_LOOP ? node->u.loop.nbody : 0;
    ix_push(q, q->n);
    q->n++;
    return 0;
}

/* ------------------------------------------------------------ matching */

static int64_t const_of(const siot_expr *x) { return x->tag == SIOT_X_CONST ? x->base : INT64_MIN; }

/* Structural equality; strict also requires equal loop counts (for a loop at
 * the tail, which may still be growing). */
static int node_equal(const siot_node *a, const siot_node *b, int strict)
{
    if (a->kind != b->kind || a->hash != b->hash)
        return 0;
    if (a->kind == SIOT_N_EVENT)
        return a->u.ev.func == b->u.ev.func && a->u.ev.site == b->u.ev.site && a->u.ev.idle == b->u.ev.idle &&
               const_of(a->u.ev.thread) == const_of(b->u.ev.thread);
    if (a->u.loop.nbody != b->u.loop.nbody)
        return 0;
    for (uint32_t i = 0; i < a->u.loop.nbody; i++)
        if (!node_equal(a->u.loop.body[i], b->u.loop.body[i], 0))
            return 0;
    return !strict || siot_x_equal(a->u.loop.count, b->u.loop.count);
}

static int seq_equal(siot_node *const *a, siot_node *const *b, uint32_t L)
{
    for (uint32_t i = L; i-- > 0;)
        if (!node_equal(a[i], b[i], i == L - 1))
            return 0;
    return 1;
}

/* ------------------------------------------------------------ merging */

static int hist_ready(siot_queue *q, siot_hist *h)
{
    if (h->bins || h->count == 0)
        return 0;
    uint32_t *bins = siot_pool_alloc(&q->pool, SIOT_HBINS * sizeof *bins);
    if (!bins)
        return -1;
    bins[siot_hist_bin(h->min)] = h->count == 1 ? 1 : 0;
    h->bins = bins;
    return 0;
}

static int merge_hist(siot_queue *q, siot_hist *h, const siot_hist *g)
{
    if (hist_ready(q, h))
        return -1;
    uint64_t shift = h->count;
    siot_hist shifted = *g;
    shifted.max_occ += shift;
    return siot_hist_merge(q->arena, h, &shifted) ? 0 : -1;
}

static int add_sample(siot_queue *q, siot_hist *h, uint64_t ns)
{
    if (hist_ready(q, h))
        return -1;
    return siot_hist_add(q->arena, h, ns, q->rank, h->count) ? 0 : -1;
}

/* B takes X as iteration c of loop level lvl (X is freed by the caller). */
static int merge_node(siot_queue *q, siot_node *B, siot_node *X, unsigned lvl, uint64_t c)
{
    siot_pool *p = &q->pool;
    if (B->kind == SIOT_N_LOOP) {
        int idle = B->u.loop.nbody == 1 && B->u.loop.body[0]->kind == SIOT_N_EVENT && B->u.loop.body[0]->u.ev.idle;
        int r = siot_x_approx_extend(p, &B->u.loop.count, X->u.loop.count, c, idle ? 100 : q->tolerance);
        if (r < 0 || (r == 0 && siot_x_extend(p, &B->u.loop.count, X->u.loop.count, lvl, c)))
            return -1;
        q->approx_merges += (uint64_t)r;
        for (uint32_t i = 0; i < B->u.loop.nbody; i++)
            if (merge_node(q, B->u.loop.body[i], X->u.loop.body[i], lvl + 1, c))
                return -1;
        return 0;
    }
    siot_event *b = &B->u.ev, *x = &X->u.ev;
    if (siot_x_extend(p, &b->thread, x->thread, lvl, c) || siot_x_extend(p, &b->parent, x->parent, lvl, c) ||
        siot_x_extend(p, &b->ret, x->ret, lvl, c) || siot_x_extend(p, &b->err, x->err, lvl, c) ||
        siot_x_extend(p, &b->bytes, x->bytes, lvl, c))
        return -1;
    for (uint32_t i = 0; i < b->nargs; i++)
        if (siot_x_extend(p, &b->args[i], x->args[i], lvl, c))
            return -1;
    if (merge_hist(q, &b->comp, &x->comp) || merge_hist(q, &b->dur, &x->dur))
        return -1;
    return 0;
}

/* One value of the predictor: a constant, or a progression at the loop's
 * own level (the hot case: the same constant again, or a progression going on). */
static inline int pred_value(const siot_expr *x, int64_t *base, int64_t *step)
{
    *base = x->base;
    *step = 0;
    if (x->tag == SIOT_X_CONST)
        return 1;
    if (x->tag != SIOT_X_AFFINE || x->n != 1 || x->rcoef || !x->u.coef[0])
        return 0;
    *step = x->u.coef[0];
    return 1;
}

/* v is what B predicts for iteration c at the innermost level, checked on
 * the raw integer without building an expression. */
static inline int predicted(const siot_expr *B, int64_t v, uint64_t c)
{
    int64_t base, step;
    return pred_value(B, &base, &step) && (int64_t)((uint64_t)base + (uint64_t)step * c) == v;
}

static __attribute__((noinline)) int extend_int_slow(siot_queue *q, siot_expr **px, int64_t v, uint64_t c)
{
    return siot_x_extend(&q->pool, px, siot_x_tmp_int(&q->tmp, v), 0, c);
}

static inline __attribute__((always_inline)) int extend_int(siot_queue *q, siot_expr **px, int64_t v, uint64_t c)
{
    return predicted(*px, v, c) ? 0 : extend_int_slow(q, px, v, c);
}

/* add_sample's common case inline: a histogram that has its bins (the
 * sample's occurrence is the count before it). */
static inline __attribute__((always_inline)) int sample(siot_queue *q, siot_hist *h, uint64_t ns)
{
    if (SIOT_Q_UNLIKELY(!h->bins || h->count == 0))
        return add_sample(q, h, ns);
    siot_hist_add_binned(h, ns, &q->rank, h->count);
    return 0;
}

static int extend_raw(siot_queue *q, siot_expr **px, const siot_rawval *v, const uint8_t *bytes, uint64_t c)
{
    if (v->kind == SIOT_RV_INT)
        return extend_int(q, px, v->i, c);
    siot_pool *p = &q->pool;
    const siot_expr *X = siot_x_tmp_raw(&q->tmp, v, bytes);
    siot_expr *owned = NULL;
    if (!X && !(X = owned = siot_x_from_raw(p, v, bytes)))
        return -1;
    int rc = siot_x_extend(p, px, X, 0, c);
    siot_x_free(p, owned);
    return rc;
}

/* The fast path's merge: a raw event as iteration c of the loop its node is
 * directly in (level 0), without building a node. */
static int merge_raw(siot_queue *q, siot_node *B, const siot_raw *r, int64_t dist, const uint8_t *bytes, uint64_t c)
{
    siot_event *b = &B->u.ev;
    if (extend_int(q, &b->parent, dist, c) || extend_int(q, &b->ret, r->ret, c) || extend_int(q, &b->err, r->err, c) ||
        extend_int(q, &b->bytes, r->bytes, c))
        return -1;
    for (uint32_t i = 0; i < b->nargs; i++)
        if (extend_raw(q, &b->args[i], &r->args[i], bytes, c))
            return -1;
    if (sample(q, &b->comp, r->comp) || sample(q, &b->dur, r->t_end - r->t_start))
        return -1;
    return 0;
}

int siot_queue_count_own(siot_queue *q, siot_node *T)
{
    siot_expr *cnt = siot_x_int(&q->pool, T->u.loop.count->base + 1);
    if (!cnt)
        return -1;
    siot_x_free(&q->pool, T->u.loop.count);
    T->u.loop.count = cnt;
    return 0;
}

/* ------------------------------------------------------------ folding */

static unsigned max_depth(siot_node *const *v, uint32_t n)
{
    unsigned d = 0;
    for (uint32_t i = 0; i < n; i++)
        if (v[i]->depth > d)
            d = v[i]->depth;
    return d;
}

static inline void note_seen(siot_queue *q)
{
    uint32_t pos = q->n - 1;
    uint64_t h = q->hash[pos];
    unsigned slot = (unsigned)(h ^ (h >> 29)) & 4095u;
    uint32_t old = q->seen[slot].pos;
    if (q->seen[slot].h == h && old < pos && q->hash[old] == h) {
        uint64_t d = pos - old;
        if (d > q->window) {
            q->misses++;
            if (d > q->miss_maxdist)
                q->miss_maxdist = d;
        }
    }
    q->seen[slot].h = h;
    q->seen[slot].pos = pos;
}

/* The loop just before the last L nodes takes them as one more iteration:
 * 1 when it did, 0 when they are not its body, -1 out of memory. */
static int try_extend(siot_queue *q, uint32_t L, uint64_t h)
{
    uint32_t n = q->n, p = n - L - 1;
    if (q->nbody[p] != L)
        return 0;
    siot_node *T = q->nodes[p];
    /* the last two hashes first: most candidates differ there */
    if (T->u.loop.body[L - 1]->hash != h || (L > 1 && T->u.loop.body[L - 2]->hash != q->hash[n - 2]) ||
        !seq_equal(T->u.loop.body, &q->nodes[n - L], L))
        return 0;
    uint64_t c = (uint64_t)T->u.loop.count->base;
    for (uint32_t i = 0; i < L; i++) {
        if (merge_node(q, T->u.loop.body[i], q->nodes[n - L + i], 0, c))
            return -1;
        free_node(q, q->nodes[n - L + i]);
    }
    if (siot_q_count_one_more(q, T))
        return -1;
    truncate_to(q, n - L);
    return 1;
}

/* The hashes of the L nodes from a and from b agree, the last first: most
 * candidates of a stream that does not repeat fail here, on the list's own
 * array, before any node is read. */
static int hashes_equal(const siot_queue *q, uint32_t a, uint32_t b, uint32_t L)
{
    for (uint32_t i = L; i-- > 0;)
        if (q->hash[a + i] != q->hash[b + i])
            return 0;
    return 1;
}

/* The last L nodes repeat the L before them: a new loop of 2 (unless it
 * would nest deeper than a reader accepts). 1, 0 or -1 as try_extend.
 * The hashes are checked inline, in fold_once (the last two, then the rest:
 * in a stream that does not repeat nearly every candidate fails there, and
 * the call of the whole, with its saved registers, cost as much again);
 * make_new_loop does the rest. */
static __attribute__((noinline)) int make_new_loop(siot_queue *q, uint32_t L)
{
    uint32_t n = q->n;
    if (!seq_equal(&q->nodes[n - 2 * L], &q->nodes[n - L], L) || max_depth(&q->nodes[n - 2 * L], L) >= SIOT_MAX_NEST)
        return 0;
    siot_node *loop = siot_pool_alloc(&q->pool, sizeof *loop);
    siot_node **body = loop ? siot_pool_alloc(&q->pool, L * sizeof *body) : NULL;
    siot_expr *cnt = body ? siot_x_int(&q->pool, 2) : NULL;
    if (!cnt)
        return -1;
    memcpy(body, &q->nodes[n - 2 * L], L * sizeof *body);
    for (uint32_t i = 0; i < L; i++) {
        if (merge_node(q, body[i], q->nodes[n - L + i], 0, 1))
            return -1;
        free_node(q, q->nodes[n - L + i]);
    }
    loop->kind = SIOT_N_LOOP;
    loop->ranks.n = 1;
    loop->ranks.e = &q->self;
    loop->u.loop.count = cnt;
    loop->u.loop.nbody = L;
    loop->u.loop.body = body;
    loop->hash = loop_hash(body, L);
    loop->depth = (uint8_t)(max_depth(body, L) + 1);
    uint64_t t0 = q->tfirst[n - 2 * L]; /* the loop starts with its first iteration */
    truncate_to(q, n - 2 * L);
    append(q, loop, t0); /* cannot fail: the list just shrank */
    return 1;
}

static inline int try_new_loop(siot_queue *q, uint32_t L, uint64_t h)
{
    uint32_t n = q->n;
    /* the last two hashes known equal, hashes_equal compares the others */
    if (2 * L > n || q->hash[n - 1 - L] != h || (L > 1 && q->hash[n - 2 - L] != q->hash[n - 2]) ||
        (L > 2 && !hashes_equal(q, n - 2 * L, n - L, L - 2)))
        return 0;
    return make_new_loop(q, L);
}

/* One fold at the tail, trying the lengths L = 1, 2, ... up to the window,
 * the extension of a loop before a new loop at each length: 1 when one was
 * made, 0 when none, -1 out of memory. Only the lengths where a fold is
 * possible are tried: 1 when the node before has the last one's hash, those
 * of an earlier pair of nodes equal to the last two (the index), and those
 * of the loops whose body is as long as what follows them (by_target);
 * without the index, every length. */
static int fold_once(siot_queue *q)
{
    uint32_t n = q->n;
    uint64_t h = q->hash[n - 1];
    uint32_t maxL = n - 1 < q->window ? n - 1 : q->window;
    if (q->noindex) {
        for (uint32_t L = 1; L <= maxL; L++) {
            int r = try_extend(q, L, h);
            if (r || (r = try_new_loop(q, L, h)))
                return r;
        }
        return 0;
    }
    uint32_t a = q->prev_same[n - 1], b = n - 1 < q->tcap ? q->by_target[n - 1] : SIOT_Q_NONE;
    int one = q->hash[n - 2] == h; /* length 1, not through the pair index */
    if (a == n - 2)
        a = q->prev_same[a];
    for (;;) {
        uint32_t La = one ? 1 : a == SIOT_Q_NONE ? UINT32_MAX : n - 1 - a;
        uint32_t Lb = b == SIOT_Q_NONE ? UINT32_MAX : n - 1 - b;
        uint32_t L = La < Lb ? La : Lb;
        if (L > maxL)
            return 0;
        int r;
        if (Lb == L && (r = try_extend(q, L, h)))
            return r;
        if (La == L && (r = try_new_loop(q, L, h)))
            return r;
        if (Lb == L)
            b = q->loop_next[b];
        if (La == L && one)
            one = 0;
        else if (La == L)
            a = q->prev_same[a];
    }
}

static int fold_tail(siot_queue *q)
{
    while (q->n >= 2) {
        int r = fold_once(q);
        if (r <= 0) {
            if (r == 0)
                note_seen(q);
            return r;
        }
    }
    return 0;
}

static int push_node(siot_queue *q, siot_node *node, uint64_t t)
{
    if (!node || append(q, node, t)) {
        if (node)
            free_node(q, node);
        return -1;
    }
    return q->compress ? fold_tail(q) : 0;
}

/* The pending partial iteration turns into ordinary nodes. */
static int flush_pending(siot_queue *q)
{
    uint32_t np = q->npend;
    q->npend = 0;
    for (uint32_t i = 0; i < np; i++)
        if (push_node(q, make_event(q, &q->pend[i], q->pend_dist[i], q->pbytes), q->pend_key[i]))
            return -1;
    q->npbytes = 0;
    return 0;
}

static int stash(siot_queue *q, const siot_raw *r, int64_t dist, const uint8_t *pool)
{
    if (q->npend == q->cappend) {
        uint32_t cap = q->cappend ? q->cappend * 2 : 8;
        /* Not SIOT_REGROW (core/salloc.h) as in grow_list: this is inlined
         * into siot_queue_push, which every traced call runs, and that form
         * changed its register allocation throughout (objdump -d). */
        siot_raw *pend = siot_realloc(q->pend, cap * sizeof *pend);
        int64_t *pd = pend ? siot_realloc(q->pend_dist, cap * sizeof *pd) : NULL;
        if (pend)
            q->pend = pend;
        if (pd)
            q->pend_dist = pd;
        uint64_t *pk = pd ? siot_realloc(q->pend_key, cap * sizeof *pk) : NULL;
        if (!pk)
            return -1;
        q->pend_key = pk;
        q->cappend = cap;
    }
    siot_raw *c = &q->pend[q->npend];
    /* the header and the function's own arguments, not the whole array */
    memcpy(c, r, offsetof(siot_raw, args) + r->nargs * sizeof r->args[0]);
    for (uint32_t i = 0; i < r->nargs; i++) {
        const siot_rawval *v = &r->args[i];
        size_t len = v->kind == SIOT_RV_STR ? v->n : v->kind == SIOT_RV_ARR ? (size_t)v->n * 8 : 0;
        if (v->kind != SIOT_RV_STR && v->kind != SIOT_RV_ARR)
            continue;
        uint32_t off = (q->npbytes + 7) & ~7u;
        if (off + len > q->cappbytes) {
            size_t cap = q->cappbytes ? q->cappbytes : 1024;
            while (cap < off + len)
                cap *= 2;
            uint8_t *b = siot_realloc(q->pbytes, cap);
            if (!b)
                return -1;
            q->pbytes = b;
            q->cappbytes = (uint32_t)cap;
        }
        if (len)
            memcpy(q->pbytes + off, pool + v->i, len);
        c->args[i].i = off;
        q->npbytes = off + (uint32_t)len;
    }
    q->pend_key[q->npend] = q->key;
    q->pend_dist[q->npend++] = dist;
    return 0;
}

static void pred_build(siot_queue *q, siot_node *T)
{
    const siot_event *b = &T->u.loop.body[0]->u.ev;
    const siot_expr *v[4] = {b->parent, b->ret, b->err, b->bytes};
    q->pred.loop = T;
    q->pred.ok = 0;
    q->pred.nv = 4 + b->nargs;
    if (!b->comp.bins || !b->comp.count || !b->dur.bins || !b->dur.count || b->thread->tag != SIOT_X_CONST)
        return; /* the first samples allocate the bins (sample) */
    for (uint32_t i = 0; i < q->pred.nv; i++)
        if (!pred_value(i < 4 ? v[i] : b->args[i - 4], &q->pred.base[i], &q->pred.step[i]))
            return;
    q->pred.func = b->func;
    q->pred.site = b->site;
    q->pred.thread = (uint32_t)b->thread->base;
    uint32_t head[4] = {b->func, (uint32_t)-1, q->pred.thread, b->site}; /* siot_raw's order (repeat.h) */
    memcpy(q->pred.top_head, head, sizeof q->pred.top_head);
    q->pred.ok = 1;
}

/* The summed samples into the histogram's count, mean and M2 (the
 * pairwise update siot_hist_merge uses too; the batch's own M2 is
 * sum(x^2) - sum(x)^2/k, exact in 128-bit integers when it fits). */
static void pend_fold(siot_hist *h, siot_qsum *p)
{
    if (!p->k)
        return;
    double k = (double)p->k, mb = (double)p->sum / k, m2b;
    unsigned __int128 ksq, s2 = (unsigned __int128)p->sum * p->sum;
    if (!__builtin_mul_overflow((unsigned __int128)p->k, p->sq, &ksq) && ksq >= s2)
        m2b = (double)(ksq - s2) / k;
    else
        m2b = (double)((long double)p->sq - (long double)p->sum * (long double)p->sum / (long double)p->k);
    siot_hist_add_moments(h, p->k, mb, m2b > 0 ? m2b : 0);
    memset(p, 0, sizeof *p);
}

/* Before anything else changes the queue: the predictor goes, its sums
 * into the event (whose loop is still the tail). */
static inline void pred_drop(siot_queue *q)
{
    if (q->pred.loop && q->pred.ok) {
        siot_event *b = &q->pred.loop->u.loop.body[0]->u.ev;
        pend_fold(&b->comp, &q->pred.comp);
        pend_fold(&b->dur, &q->pred.dur);
    }
    q->pred.loop = NULL;
    q->pred.ok = 0; /* ok implies a loop: the repeat tests ok alone */
}

/* Returns 1 when the event was taken as part of the tail loop's next iteration. */
static int fast_path(siot_queue *q, const siot_raw *r, int64_t dist, const uint8_t *pool)
{
    if (q->n == 0 || q->nbody[q->n - 1] == 0) {
        pred_drop(q);
        return 0;
    }
    siot_node *T = q->nodes[q->n - 1];
    if (q->pred.loop == T && q->pred.ok && siot_q_pred_repeat(q, r, dist))
        return 1;
    siot_node *B = T->u.loop.body[q->npend];
    if (B->kind != SIOT_N_EVENT || B->u.ev.func != r->func || B->u.ev.site != r->site ||
        const_of(B->u.ev.thread) != (int64_t)r->thread || B->u.ev.idle != is_idle(q, r)) {
        pred_drop(q);
        if (q->npend && flush_pending(q))
            q->oom = 1;
        return 0;
    }
    uint64_t c = (uint64_t)T->u.loop.count->base;
    if (T->u.loop.nbody == 1 && q->pred.loop != T) {
        pred_drop(q);
        pred_build(q, T);
        if (q->pred.ok && siot_q_pred_repeat(q, r, dist))
            return 1;
    }
    pred_drop(q); /* whatever follows may change the tail */
    if (T->u.loop.nbody == 1) { /* a whole iteration: nothing to hold back */
        if (merge_raw(q, B, r, dist, pool, c) || siot_q_count_one_more(q, T))
            q->oom = 1;
        return 1;
    }
    if (stash(q, r, dist, pool))
        return 0;
    if (q->npend < T->u.loop.nbody)
        return 1;
    for (uint32_t i = 0; i < q->npend; i++)
        if (merge_raw(q, T->u.loop.body[i], &q->pend[i], q->pend_dist[i], q->pbytes, c))
            q->oom = 1;
    if (siot_q_count_one_more(q, T))
        q->oom = 1;
    q->npend = 0;
    q->npbytes = 0;
    return 1;
}

/* Hands every node to the spill callback and frees them. */
void siot_queue_spill(siot_queue *q)
{
    if (siot_queue_finish(q) || !q->spill || q->spill(q->spill_arg, q->nodes, q->n) != 0) {
        q->stopped = 1;
        q->stopped_at = q->events;
        return;
    }
    q->spills++;
    q->spilled_nodes += q->n;
    if (q->ixkey)
        memset(q->ixkey, 0, q->ixcap * sizeof *q->ixkey);
    q->ixused = 0;
    if (q->by_target)
        memset(q->by_target, 0xff, q->tcap * sizeof *q->by_target);
    /* The arena holds nothing but the nodes: it goes back whole (free lists
     * of grown tables would otherwise keep their memory). */
    q->n = 0;
    memset(q->seen, 0, sizeof q->seen);
    siot_arena_free(q->arena);
    siot_arena_init(q->arena);
    siot_pool_init(&q->pool, q->arena);
}

int siot_queue_push(siot_queue *q, const siot_raw *grp, uint32_t n, const uint8_t *pool)
{
    if (q->oom || q->stopped) {
        q->lost += n;
        return -1;
    }
    int grew = 0; /* the group's last event went into the tail loop */
    for (uint32_t i = 0; i < n; i++) {
        const siot_raw *r = &grp[i];
        int64_t dist = r->parent >= 0 ? (int64_t)i - r->parent : 0;
        q->events++;
        if ((grew = q->compress && fast_path(q, r, dist, pool)))
            continue;
        pred_drop(q);
        if (push_node(q, make_event(q, r, dist, pool), q->key)) {
            q->oom = 1;
            return -1;
        }
    }
    /* A call's children that ended in the tail loop (a collective write's
     * four pwritev) may have made the tail repeat what came before it: fold
     * at the group's edge now, or the next group's parent would start the
     * loop one call late, rotated ({pwritev x4, write} instead of {write,
     * pwritev x4}), with one call left out at each end. */
    if (grew && n > 1 && q->npend == 0 && q->n >= 2) {
        pred_drop(q);
        if (fold_tail(q) < 0) {
            q->oom = 1;
            return -1;
        }
    }
    /* the arena measures what the recorder holds, free lists included */
    if (q->limit && q->arena->used_bytes > q->limit && q->n)
        siot_queue_spill(q);
    return q->oom || q->stopped ? -1 : 0;
}

int siot_queue_finish(siot_queue *q)
{
    pred_drop(q);
    if (q->npend && flush_pending(q))
        q->oom = 1;
    return q->oom ? -1 : 0;
}
