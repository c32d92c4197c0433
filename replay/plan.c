#include "replay/plan.h"

#include <stdlib.h>

#include "core/expr.h"
#include "core/roles.h"

int rp_plan_init(rp_plan *p, const siot_trace *t, int64_t rank, int posix_level)
{
    p->t = t;
    p->posix_level = posix_level;
    p->seq = 0;
    p->st_n = 0;
    p->st_cap = 256;
    p->st_seq = malloc(p->st_cap * sizeof *p->st_seq);
    p->st_cov = malloc(p->st_cap);
    p->st_io = malloc(p->st_cap);
    if (!p->st_seq || !p->st_cov || !p->st_io || siot_iter_init(&p->it, t, rank) != 0) {
        free(p->st_seq);
        free(p->st_cov);
        free(p->st_io);
        p->st_seq = NULL;
        p->st_cov = NULL;
        p->st_io = NULL;
        return -1;
    }
    return 0;
}

static int replayed_layer(const rp_plan *p, unsigned layer, int covered)
{
    if (covered)
        return 0;
    if (p->posix_level)
        return layer == SIOT_LAYER_posix || layer == SIOT_LAYER_stdio || layer == SIOT_LAYER_mpi;
    return layer == SIOT_LAYER_posix || layer == SIOT_LAYER_stdio || layer == SIOT_LAYER_mpi ||
           layer == SIOT_LAYER_mpiio;
}

int rp_plan_next(rp_plan *p, rp_step *s)
{
    const siot_node *n = siot_iter_next(&p->it, &s->ctx);
    if (!n)
        return 0;
    s->ev = &n->u.ev;
    s->fn = &p->t->funcs[s->ev->func];
    s->seq = p->seq;
    int64_t pd = siot_eval_int(s->ev->parent, &s->ctx, 0);
    s->parent = pd > 0 && pd <= p->seq ? p->seq - pd : -1;
    while (p->st_n && p->st_seq[p->st_n - 1] != s->parent)
        p->st_n--;
    int covered = p->st_n ? p->st_cov[p->st_n - 1] : 0;
    s->in_mpiio = p->st_n ? p->st_io[p->st_n - 1] : 0;
    /* at the POSIX level, POSIX calls are reissued inside whatever issued
     * them, and the MPI calls of the MPI-IO library are its own */
    int posix = s->fn->layer == SIOT_LAYER_posix || s->fn->layer == SIOT_LAYER_stdio;
    int internal = p->posix_level && s->in_mpiio && s->fn->layer == SIOT_LAYER_mpi;
    s->replay = replayed_layer(p, s->fn->layer, (covered && !(p->posix_level && posix)) || internal);
    return 1;
}

int rp_plan_done(rp_plan *p, const rp_step *s, int done)
{
    if (p->st_n == p->st_cap) {
        size_t cap = p->st_cap * 2;
        int64_t *q = realloc(p->st_seq, cap * sizeof *q);
        if (!q)
            return -1;
        p->st_seq = q;
        uint8_t *c = realloc(p->st_cov, cap);
        if (!c)
            return -1;
        p->st_cov = c;
        uint8_t *io = realloc(p->st_io, cap);
        if (!io)
            return -1;
        p->st_io = io;
        p->st_cap = cap;
    }
    int covered = p->st_n ? p->st_cov[p->st_n - 1] : 0;
    p->st_seq[p->st_n] = s->seq;
    p->st_cov[p->st_n] = (uint8_t)(covered || done);
    p->st_io[p->st_n] = (uint8_t)(s->in_mpiio || s->fn->layer == SIOT_LAYER_mpiio);
    p->st_n++;
    p->seq++;
    return 0;
}

void rp_plan_free(rp_plan *p)
{
    siot_iter_free(&p->it);
    free(p->st_seq);
    free(p->st_cov);
    free(p->st_io);
    p->st_seq = NULL;
    p->st_cov = NULL;
    p->st_io = NULL;
}
