#include "replay/synth.h"

#include <stdio.h>

#include "core/expr.h"
#include "replay/analyze.h"

int siot_synth_init(siot_synth *s, const siot_trace *t, int64_t rank)
{
    s->seq = 0;
    s->cursor = 0;
    s->sp = 0;
    return siot_iter_init(&s->it, t, rank);
}

void siot_synth_free(siot_synth *s)
{
    siot_iter_free(&s->it);
}

/* Means come from an untrusted file: NaN, negative or absurd values become
 * 0 or a century, so the times stay finite and printable. */
static double sane_ns(double v)
{
    return v > 0 ? (v < 3.2e18 ? v : 3.2e18) : 0;
}

int siot_synth_next(siot_synth *s, siot_synth_ev *out)
{
    const siot_node *n = siot_iter_next(&s->it, &out->ctx);
    if (!n)
        return s->it.err ? -1 : 0;
    const siot_event *e = &n->u.ev;
    int64_t pd = siot_eval_int(e->parent, &out->ctx, 0);
    int64_t parent = pd > 0 && pd <= s->seq ? s->seq - pd : -1;
    /* Calls that are not ancestors of this one have ended: the cursor moves
     * past them. */
    while (s->sp && s->stack[s->sp - 1].seq != parent) {
        s->sp--;
        if (s->stack[s->sp].end > s->cursor)
            s->cursor = s->stack[s->sp].end;
    }
    double start = s->cursor + sane_ns(e->comp.mean), dur = sane_ns(e->dur.mean);
    if (s->sp) { /* inside the parent's span */
        double pend = s->stack[s->sp - 1].end;
        if (start > pend)
            start = pend;
        if (start + dur > pend)
            dur = pend - start;
    }
    out->node = n;
    out->seq = s->seq;
    out->parent = parent;
    out->depth = s->sp;
    out->start_ns = start;
    out->dur_ns = dur;
    /* Its children, if any, start inside it. */
    s->cursor = start;
    if (s->sp < SIOT_SYNTH_DEPTH) {
        s->stack[s->sp].seq = s->seq;
        s->stack[s->sp].end = start + dur;
        s->sp++;
    } else {
        s->cursor = start + dur;
    }
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
