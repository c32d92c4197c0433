#include "replay/synth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "replay/analyze.h"
#include "replay/nest.h"

/* Means come from an untrusted file: NaN, negative or absurd values become
 * 0 or a century, so the times stay finite and printable. */
static double sane_ns(double v)
{
    return v > 0 ? (v < 3.2e18 ? v : 3.2e18) : 0;
}

/* The least duration shown: 1 ns when every recorded execution took time,
 * so that no such call is drawn as lasting nothing. */
static double own_min(const siot_event *e)
{
    return e->dur.count && e->dur.min > 0 ? 1.0 : 0.0;
}

/* The next event of the walk ahead into s->pending (NULL at the end). */
static int ahead_read(siot_synth *s)
{
    siot_ctx c;
    s->pending = siot_iter_next(&s->ahead, &c);
    if (!s->pending)
        return s->ahead.err ? -1 : 0;
    s->pending_parent = rp_parent_seq(&s->pending->u.ev, &c, s->ahead_seq);
    return 0;
}

int siot_synth_init(siot_synth *s, const siot_trace *t, int64_t rank)
{
    memset(s, 0, sizeof *s);
    if (siot_iter_init(&s->it, t, rank) != 0)
        return -1;
    if (siot_iter_init(&s->ahead, t, rank) != 0) {
        siot_iter_free(&s->it);
        return -1;
    }
    ahead_read(s); /* an error shows again when s->it meets it */
    return 0;
}

void siot_synth_free(siot_synth *s)
{
    siot_iter_free(&s->it);
    siot_iter_free(&s->ahead);
    free(s->need);
    s->need = NULL;
}

double siot_synth_end(const siot_synth *s)
{
    double end = s->cursor;
    for (uint32_t i = 0; i < s->sp; i++)
        end = s->stack[i].end > end ? s->stack[i].end : end;
    return end;
}

/* A call of the tree read ahead is complete: its least span is known, and
 * adds to what its parent's children need and want. */
static void close_need(siot_synth *s, int64_t seq, const siot_event *e, int64_t parent)
{
    siot_synth_need *c = &s->need[seq - s->base];
    c->min = c->min > c->kids_min ? c->min : c->kids_min;
    if (parent < s->base)
        return;
    siot_synth_need *p = &s->need[parent - s->base];
    double d = sane_ns(e->dur.mean);
    p->kids_min += c->min;
    p->kids_want += sane_ns(e->comp.mean) + (d > c->min ? d : c->min);
}

static int need_grow(siot_synth *s)
{
    if (s->n < s->cap)
        return 0;
    int64_t cap = s->cap ? s->cap * 2 : 256;
    siot_synth_need *v = realloc(s->need, (size_t)cap * sizeof *v);
    if (!v)
        return -1;
    s->need = v;
    s->cap = cap;
    return 0;
}

typedef struct tree_frame {
    int64_t seq, parent;
    const siot_event *e;
} tree_frame;

/* Reads ahead the tree of the outermost call at s->ahead_seq: each call's
 * least span and its children's needs, into s->need. */
static int read_tree(siot_synth *s)
{
    tree_frame st[SIOT_SYNTH_DEPTH];
    uint32_t sp = 0;
    s->base = s->ahead_seq;
    s->n = 0;
    while (s->pending) {
        int64_t seq = s->ahead_seq, parent = s->pending_parent;
        const siot_event *e = &s->pending->u.ev;
        while (sp && st[sp - 1].seq != parent) {
            sp--;
            close_need(s, st[sp].seq, st[sp].e, sp ? st[sp - 1].seq : -1);
        }
        if (!sp && s->n)
            break; /* the next outermost call */
        if (need_grow(s) != 0)
            return -1;
        s->need[s->n++] = (siot_synth_need){own_min(e), 0, 0};
        if (sp < SIOT_SYNTH_DEPTH)
            st[sp++] = (tree_frame){seq, parent, e};
        else
            close_need(s, seq, e, st[sp - 1].seq); /* too deep to hold children: a leaf */
        s->ahead_seq++;
        if (ahead_read(s) != 0)
            return -1;
    }
    while (sp) {
        sp--;
        close_need(s, st[sp].seq, st[sp].e, sp ? st[sp - 1].seq : -1);
    }
    return 0;
}

/* The factor a call's children's slack (computation times, and durations
 * above their least spans) is scaled by so that they fit in span. */
static double shrink_of(const siot_synth_need *nd, double span)
{
    if (nd->kids_want <= span)
        return 1;
    double slack = nd->kids_want - nd->kids_min, room = span - nd->kids_min;
    return slack > 0 && room > 0 ? room / slack : 0;
}

/* Where the event goes: after the parent's previous child, scaled into the
 * parent; an outermost call after the previous one, at its means. */
static void place(siot_synth *s, const siot_event *e, const siot_synth_need *nd, double *start, double *dur)
{
    double g = sane_ns(e->comp.mean), d = sane_ns(e->dur.mean);
    d = d > nd->min ? d : nd->min;
    if (!s->sp) {
        s->recorded_ns += g + sane_ns(e->dur.mean);
        *start = s->cursor + g;
        *dur = d;
        return;
    }
    siot_synth_frame *p = &s->stack[s->sp - 1];
    double k = p->shrink, g2 = g * k, d2 = nd->min + (d - nd->min) * k;
    s->squeezed_ns += (g - g2) + (d - d2);
    *start = p->cursor + g2;
    *dur = d2;
    if (*start + d2 > p->end) /* rounding: the last child ends with its parent */
        *start = p->end - d2 > p->cursor ? p->end - d2 : p->cursor;
    p->cursor = *start + d2;
}

int siot_synth_next(siot_synth *s, siot_synth_ev *out)
{
    const siot_node *n = siot_iter_next(&s->it, &out->ctx);
    if (!n)
        return s->it.err ? -1 : 0;
    const siot_event *e = &n->u.ev;
    int64_t parent = rp_parent_seq(e, &out->ctx, s->seq);
    /* Calls that are not ancestors of this one have ended: the cursor moves
     * past them. */
    while (s->sp && s->stack[s->sp - 1].seq != parent) {
        s->sp--;
        if (s->stack[s->sp].end > s->cursor)
            s->cursor = s->stack[s->sp].end;
    }
    if (!s->sp && s->seq >= s->base + s->n && (s->ahead_seq != s->seq || read_tree(s) != 0)) {
        s->it.err = s->ahead.err ? s->ahead.err : "out of memory, or the walks disagree";
        return -1;
    }
    if (s->seq < s->base || s->seq >= s->base + s->n) {
        s->it.err = "the walk ahead lost its place";
        return -1;
    }
    const siot_synth_need *nd = &s->need[s->seq - s->base];
    double start, dur;
    place(s, e, nd, &start, &dur);
    out->node = n;
    out->seq = s->seq;
    out->parent = parent;
    out->depth = s->sp;
    out->start_ns = start;
    out->dur_ns = dur;
    if (s->sp < SIOT_SYNTH_DEPTH) /* its children, if any, start inside it */
        s->stack[s->sp++] = (siot_synth_frame){s->seq, start + dur, start, shrink_of(nd, dur)};
    s->seq++;
    return 1;
}

typedef struct {
    int64_t rank;
    uint64_t n;
    int overflow;
    uint8_t *has;
    uint32_t nranks;
} counter;

static void count_event(void *user, const siot_agg_event *e)
{
    counter *c = user;
    uint64_t k = e->nranks;
    if (c->has && e->calls)
        for (uint32_t i = 0; i < e->nranks; i++)
            if ((uint32_t)e->ranks[i] < c->nranks)
                c->has[e->ranks[i]] = 1;
    if (c->rank >= 0) {
        k = 0;
        for (uint32_t i = 0; i < e->nranks; i++)
            if (e->ranks[i] == c->rank) {
                k = 1;
                break;
            }
    }
    if (k && e->calls > (UINT64_MAX - c->n) / k)
        c->overflow = 1;
    else
        c->n += k * e->calls;
}

static int count_events(const siot_trace *t, int64_t rank, uint8_t *has, uint64_t *count, char *err, size_t errlen)
{
    counter c = {rank, 0, 0, has, t->nranks};
    siot_handlers h = {0};
    h.user = &c;
    h.event = count_event;
    if (siot_analyze(t, &h, err, errlen) != 0)
        return -1;
    *count = c.overflow ? UINT64_MAX : c.n;
    return 0;
}

int siot_count_events(const siot_trace *t, int64_t rank, uint64_t *count, char *err, size_t errlen)
{
    return count_events(t, rank, NULL, count, err, errlen);
}

int siot_count_events_by_rank(const siot_trace *t, uint8_t *has, uint64_t *count, char *err, size_t errlen)
{
    return count_events(t, -1, has, count, err, errlen);
}
