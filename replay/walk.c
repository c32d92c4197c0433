#include "replay/walk.h"

#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/ranklist.h"

#define SIOT_MAX_IDLE_ITERATIONS (1u << 22)

int siot_iter_init(siot_iter *it, const siot_trace *t, int64_t rank)
{
    memset(it, 0, sizeof *it);
    it->t = t;
    it->rank = rank;
    it->occ = calloc(t->nnodes ? t->nnodes : 1, sizeof *it->occ);
    if (!it->occ)
        return -1;
    it->st[0].nodes = t->top;
    it->st[0].n = t->ntop;
    return 0;
}

void siot_iter_free(siot_iter *it)
{
    free(it->occ);
    it->occ = NULL;
}

const siot_node *siot_iter_next(siot_iter *it, siot_ctx *ctx)
{
    for (;;) {
        siot_frame *f = &it->st[it->depth];
        if (f->pos >= f->n) {
            if (it->depth == 0)
                return NULL;
            if (++f->it < f->count) {
                /* A hostile trace can claim 2^63 iterations of nothing: give up
                 * rather than spin (a real trace never has such a loop). */
                if (++it->idle > SIOT_MAX_IDLE_ITERATIONS) {
                    it->err = "a loop runs a very large number of iterations without any event";
                    return NULL;
                }
                f->pos = 0;
                it->rev[0] = f->it;
                continue;
            }
            /* leave the loop: the enclosing loops' iterations move back in */
            memmove(it->rev, it->rev + 1, (it->depth - 1) * sizeof *it->rev);
            it->depth--;
            continue;
        }
        const siot_node *n = f->nodes[f->pos++];
        if (!siot_rl_contains(&n->ranks, it->rank))
            continue;
        siot_ctx c = {.rank = it->rank,
                      .depth = it->depth,
                      .iter = it->rev,
                      .occurrence = it->occ[n->id]++,
                      .approx = (it->t->flags & SIOT_TF_APPROX) != 0};
        if (n->kind == SIOT_N_EVENT) {
            *ctx = c;
            it->idle = 0;
            return n;
        }
        int64_t count;
        siot_value v;
        siot_vbuf none;
        siot_vbuf_init(&none);
        if (siot_eval(n->u.loop.count, &c, &none, &v) != 0 || v.kind != SIOT_V_INT) {
            it->err = "a loop count cannot be evaluated for this rank";
            return NULL;
        }
        count = v.i;
        if (count <= 0)
            continue;
        int any = 0;
        for (uint32_t i = 0; i < n->u.loop.nbody && !any; i++)
            any = siot_rl_contains(&n->u.loop.body[i]->ranks, it->rank);
        if (!any)
            continue; /* nothing inside runs on this rank */
        if (it->depth >= SIOT_MAX_NEST) {
            it->err = "loops nested too deeply";
            return NULL;
        }
        memmove(it->rev + 1, it->rev, it->depth * sizeof *it->rev);
        it->rev[0] = 0;
        it->depth++;
        siot_frame *nf = &it->st[it->depth];
        nf->nodes = n->u.loop.body;
        nf->n = n->u.loop.nbody;
        nf->pos = 0;
        nf->count = (uint64_t)count;
        nf->it = 0;
    }
}
