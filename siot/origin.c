/* origin: the chains of traced calls over an analysis pass (origin.h). */
#include "siot/origin.h"

#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/salloc.h"

/* An open call on some ranks' stacks: immutable once made, shared by the
 * ranks that reached it together, freed when no rank or cell holds it. */
typedef struct siot_ocell {
    int64_t seq;
    uint32_t origin, refs;
    struct siot_ocell *next;
} ocell;

/* A loop being walked: for a multiplied one, the ranks' counts at its start. */
typedef struct siot_oloop {
    int expanded;
    uint64_t count;
    uint32_t nranks, cap;
    int32_t *ranks;
    int64_t *seq0;
} oloop;

int siot_origins_init(siot_origins *o, const siot_trace *t)
{
    memset(o, 0, sizeof *o);
    o->t = t;
    uint32_t P = t->nranks ? t->nranks : 1;
    o->top = calloc(P, sizeof *o->top);
    o->seq = calloc(P, sizeof *o->seq);
    o->n = 1; /* id 0 is "none" */
    if (!o->top || !o->seq) {
        o->oom = 1;
        return -1;
    }
    return 0;
}

static void cell_release(siot_origins *o, ocell *c)
{
    while (c && --c->refs == 0) {
        ocell *next = c->next;
        c->next = o->freelist;
        o->freelist = c;
        c = next;
    }
}

void siot_origins_free(siot_origins *o)
{
    for (uint32_t r = 0; o->top && r < o->t->nranks; r++)
        cell_release(o, o->top[r]);
    while (o->freelist) {
        ocell *c = o->freelist;
        o->freelist = c->next;
        free(c);
    }
    for (uint32_t i = 0; i < o->caploops; i++) {
        free(o->loops[i].ranks);
        free(o->loops[i].seq0);
    }
    free(o->loops);
    free(o->top);
    free(o->seq);
    free(o->v);
    free(o->ix);
    free(o->dominant);
    memset(o, 0, sizeof *o);
}

static uint32_t key_hash(uint32_t parent, uint32_t func, uint32_t site)
{
    uint64_t x = ((uint64_t)parent * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)func << 32 | site);
    x *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(x ^ (x >> 31));
}

static int ix_grow(siot_origins *o)
{
    uint32_t cap = o->capix ? 2 * o->capix : 256;
    uint32_t *ix = calloc(cap, sizeof *ix);
    if (!ix)
        return -1;
    for (uint32_t id = 1; id < o->n; id++) {
        const siot_origin *g = &o->v[id];
        uint32_t j = key_hash(g->parent, g->func, g->site) & (cap - 1);
        while (ix[j])
            j = (j + 1) & (cap - 1);
        ix[j] = id;
    }
    free(o->ix);
    o->ix = ix;
    o->capix = cap;
    return 0;
}

/* The origin of a call of func at site inside the chain parent (0: none),
 * made on first use; 0 when out of memory. */
static uint32_t intern(siot_origins *o, uint32_t parent, uint32_t func, uint32_t site)
{
    if (2 * (o->n + 1) > o->capix && ix_grow(o) != 0)
        return o->oom = 1, 0;
    uint32_t j = key_hash(parent, func, site) & (o->capix - 1);
    for (; o->ix[j]; j = (j + 1) & (o->capix - 1)) {
        const siot_origin *g = &o->v[o->ix[j]];
        if (g->parent == parent && g->func == func && g->site == site)
            return o->ix[j];
    }
    if (o->n >= o->cap) {
        uint32_t cap = o->cap ? 2 * o->cap : 256;
        siot_origin *v = realloc(o->v, cap * sizeof *v);
        if (!v)
            return o->oom = 1, 0;
        o->v = v;
        o->cap = cap;
    }
    uint32_t id = o->n++;
    const siot_origin *p = parent ? &o->v[parent] : NULL;
    o->v[id] = (siot_origin){parent, p ? p->root : id, func, site, p ? p->depth + 1 : 0, 0};
    o->ix[j] = id;
    return id;
}

static ocell *cell_new(siot_origins *o, int64_t seq, uint32_t origin, ocell *next)
{
    ocell *c = o->freelist;
    if (c)
        o->freelist = c->next;
    else if (!(c = malloc(sizeof *c)))
        return o->oom = 1, NULL;
    *c = (ocell){seq, origin, 0, next};
    if (next)
        next->refs++;
    return c;
}

/* The open call a rank's next event, d events back, is made inside: pops
 * the calls that ended before it. */
static ocell *find_parent(ocell *c, int64_t seq, int64_t d)
{
    if (d <= 0 || d > seq)
        return NULL;
    while (c && c->seq > seq - d)
        c = c->next;
    return c && c->seq == seq - d ? c : NULL;
}

uint32_t siot_origins_event(siot_origins *o, const siot_agg_event *e)
{
    if (o->oom)
        return 0;
    const siot_event *ev = &e->node->u.ev;
    siot_ctx c = e->ctx; /* the record groups ranks by bytes and handles: the parent may differ */
    ocell *last_parent = NULL, *made = NULL;
    int64_t last_seq = -1;
    uint32_t first = 0;
    for (uint32_t i = 0; i < e->nranks && !o->oom; i++) {
        uint32_t r = (uint32_t)e->ranks[i];
        if (r >= o->t->nranks)
            continue;
        c.rank = r;
        int64_t d = siot_eval_int(ev->parent, &c, 0);
        ocell *p = find_parent(o->top[r], o->seq[r], d);
        if (!made || p != last_parent || o->seq[r] != last_seq) {
            uint32_t id = intern(o, p ? p->origin : 0, ev->func, ev->site);
            if (!id || !(made = cell_new(o, o->seq[r], id, p)))
                break;
            last_parent = p;
            last_seq = o->seq[r];
        }
        if (d > 0 && !p)
            o->unlinked += e->calls;
        made->refs++;
        cell_release(o, o->top[r]);
        o->top[r] = made;
        o->seq[r]++;
        o->v[made->origin].calls += e->calls;
        if (!first)
            first = made->origin;
    }
    return first;
}

void siot_origins_loop_enter(siot_origins *o, uint64_t count, int expanded, const int32_t *ranks, uint32_t nranks)
{
    if (o->nloops == o->caploops) {
        uint32_t cap = o->caploops ? 2 * o->caploops : 8;
        oloop *v = realloc(o->loops, cap * sizeof *v);
        if (!v) {
            o->oom = 1;
            return;
        }
        memset(v + o->caploops, 0, (cap - o->caploops) * sizeof *v);
        o->loops = v;
        o->caploops = cap;
    }
    oloop *l = &o->loops[o->nloops++];
    l->expanded = expanded;
    l->count = count;
    l->nranks = 0;
    if (expanded || count < 2)
        return; /* walked iteration by iteration: the counts advance by themselves */
    if (nranks > l->cap) {
        if (SIOT_REGROW(l->ranks, nranks) || SIOT_REGROW(l->seq0, nranks)) {
            o->oom = 1;
            return;
        }
        l->cap = nranks;
    }
    for (uint32_t i = 0; i < nranks; i++)
        if ((uint32_t)ranks[i] < o->t->nranks) {
            l->ranks[l->nranks] = ranks[i];
            l->seq0[l->nranks++] = o->seq[ranks[i]];
        }
}

/* The calls still open after the first iteration of a multiplied loop
 * (from seq0 on) as they are after its last: delta events later. NULL
 * when out of memory. Iterative: a hostile trace may nest calls deeply. */
static ocell *shift(siot_origins *o, ocell *c, int64_t seq0, int64_t delta)
{
    uint32_t n = 0;
    for (ocell *x = c; x && x->seq >= seq0; x = x->next)
        n++;
    ocell **v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return NULL;
    n = 0;
    for (ocell *x = c; x && x->seq >= seq0; x = x->next)
        v[n++] = x;
    ocell *below = n ? v[n - 1]->next : c, *made = below;
    while (n-- > 0) {
        ocell *m = cell_new(o, v[n]->seq + delta, v[n]->origin, made);
        if (!m) {
            if (made != below) { /* let go of what was made */
                made->refs++;
                cell_release(o, made);
            }
            made = NULL;
            break;
        }
        made = m;
    }
    free(v);
    return made;
}

/* A multiplied loop's body was walked once: the iterations not walked ran
 * as many events each, and a call begun in the last of them may hold the
 * calls after the loop (a loop the compressor cut across a call and its
 * children). */
void siot_origins_loop_exit(siot_origins *o)
{
    if (!o->nloops)
        return;
    oloop *l = &o->loops[--o->nloops];
    ocell *last_old = NULL, *last_new = NULL;
    int64_t last_delta = -1;
    for (uint32_t i = 0; i < l->nranks && !o->oom; i++) {
        int32_t r = l->ranks[i];
        int64_t delta = (o->seq[r] - l->seq0[i]) * (int64_t)(l->count - 1);
        o->seq[r] += delta;
        ocell *top = o->top[r];
        if (!delta || !top || top->seq < l->seq0[i])
            continue;
        if (top != last_old || delta != last_delta) {
            last_new = shift(o, top, l->seq0[i], delta);
            last_old = top;
            last_delta = delta;
        }
        if (!last_new) {
            o->oom = 1;
            return;
        }
        last_new->refs++;
        cell_release(o, top);
        o->top[r] = last_new;
    }
}

/* Each site's origin with the most calls, at the end of the pass. */
static void find_dominant(siot_origins *o)
{
    if (!(o->dominant = calloc(o->t->nsites + 2, sizeof *o->dominant))) {
        o->oom = 1;
        return;
    }
    for (uint32_t id = 1; id < o->n; id++) {
        uint32_t s = o->v[id].site, *d = &o->dominant[s <= o->t->nsites ? s : o->t->nsites + 1];
        if (!*d || o->v[id].calls > o->v[*d].calls)
            *d = id;
    }
}

uint32_t siot_origins_dominant(const siot_origins *o, uint32_t site)
{
    return o->dominant && site <= o->t->nsites ? o->dominant[site] : 0;
}

static void wrap_event(void *user, const siot_agg_event *e)
{
    siot_origins *o = user;
    o->current = siot_origins_event(o, e);
    if (o->inner.event)
        o->inner.event(o->inner.user, e);
}

static void wrap_enter(void *user, const siot_node *loop, uint64_t count, int expanded, const int32_t *ranks,
                       uint32_t nranks)
{
    siot_origins *o = user;
    siot_origins_loop_enter(o, count, expanded, ranks, nranks);
    if (o->inner.loop_enter)
        o->inner.loop_enter(o->inner.user, loop, count, expanded, ranks, nranks);
}

static void wrap_exit(void *user, const siot_node *loop)
{
    siot_origins *o = user;
    siot_origins_loop_exit(o);
    if (o->inner.loop_exit)
        o->inner.loop_exit(o->inner.user, loop);
}

static void wrap_finish(void *user)
{
    siot_origins *o = user;
    find_dominant(o);
    if (o->inner.finish)
        o->inner.finish(o->inner.user);
}

siot_handlers siot_origins_wrap(siot_origins *o, const siot_handlers *inner)
{
    o->inner = *inner;
    return (siot_handlers){.user = o, .event = wrap_event, .loop_enter = wrap_enter, .loop_exit = wrap_exit,
                           .finish = wrap_finish};
}
