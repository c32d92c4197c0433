/* nest: the calls in flight around a rank's events (replay/nest.h). */
#include "replay/nest.h"

#include <stdlib.h>
#include <string.h>

#include "core/expr.h"

int64_t rp_parent_seq(const siot_event *e, const siot_ctx *c, int64_t seq)
{
    int64_t pd = siot_eval_int(e->parent, c, 0);
    return pd > 0 && pd <= seq ? seq - pd : -1;
}

rp_frame *rp_nest_enter(rp_nest *s, int64_t parent)
{
    while (s->n && s->v[s->n - 1].seq != parent)
        s->n--;
    return s->n ? &s->v[s->n - 1] : NULL;
}

rp_frame *rp_nest_push(rp_nest *s, int64_t seq)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        rp_frame *v = realloc(s->v, cap * sizeof *v);
        if (!v)
            return NULL;
        s->v = v;
        s->cap = cap;
    }
    rp_frame *f = &s->v[s->n++];
    memset(f, 0, sizeof *f);
    f->seq = seq;
    return f;
}

void rp_nest_free(rp_nest *s)
{
    free(s->v);
    memset(s, 0, sizeof *s);
}
