/* match: the senders that wildcard receives matched in the run (replay/match.h). */
#include "replay/match.h"

#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/roles.h"

int rp_match_init(rp_match *m, const siot_trace *t, int64_t rank)
{
    memset(m, 0, sizeof *m);
    for (int i = 0; i < 3; i++)
        siot_vbuf_init(&m->scratch[i]);
    if (siot_iter_init(&m->it, t, rank) != 0)
        return -1;
    m->ok = 1;
    return 0;
}

void rp_match_free(rp_match *m)
{
    if (m->ok || m->it.t)
        siot_iter_free(&m->it);
    rp_idmap_free(&m->persistent);
    free(m->v);
    for (int i = 0; i < 3; i++)
        siot_vbuf_free(&m->scratch[i]);
    memset(m, 0, sizeof *m);
}

int rp_match_status(const siot_value *status, int64_t *source, int64_t *tag)
{
    if (!status || status->kind != SIOT_V_ARR || status->n != 3)
        return 0;
    *source = status->arr[0];
    *tag = status->arr[1];
    return 1;
}

/* The newest receive posted for request id req that is not completed yet. */
static rp_match_ent *pending(rp_match *m, int64_t req)
{
    for (size_t i = m->n; i-- > 0;)
        if (m->v[i].req == req)
            return m->v[i].done ? NULL : &m->v[i];
    return NULL;
}

static int post(rp_match *m, int64_t seq, int64_t req)
{
    rp_match_ent *old = pending(m, req);
    if (old) /* the id made again: the earlier request ended unseen */
        old->done = 2;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 16;
        rp_match_ent *v = realloc(m->v, cap * sizeof *v);
        if (!v)
            return -1;
        m->v = v;
        m->cap = cap;
    }
    m->v[m->n++] = (rp_match_ent){.seq = seq, .req = req, .source = -1, .tag = -1};
    return 0;
}

static void complete(rp_match *m, int64_t req, const int64_t *st)
{
    rp_match_ent *e = req >= 0 ? pending(m, req) : NULL;
    if (!e)
        return;
    if (st) {
        e->source = st[0];
        e->tag = st[1];
    }
    e->done = st ? 1 : 2;
}

static int eval_arg(rp_match *m, const siot_event *e, const siot_funcdesc *f, const siot_ctx *c, unsigned role,
                    int slot, siot_value *v)
{
    int k = siot_arg_index(f, role);
    v->kind = SIOT_V_NONE;
    return k >= 0 && (uint32_t)k < e->nargs && siot_eval(e->args[k], c, &m->scratch[slot], v) == 0;
}

/* One event of the walk ahead: receives posted, requests completed. */
static int note(rp_match *m, const siot_event *e, const siot_ctx *c, int64_t seq)
{
    const siot_funcdesc *f = &m->it.t->funcs[e->func];
    if (f->layer != SIOT_LAYER_mpi)
        return 0;
    unsigned base = SIOT_CLASS_BASE(f->cls);
    siot_value reqs, st, idx;
    int64_t made = siot_arg_int(e, f, c, SIOT_ROLE_newreq, -1);
    if (made >= 0) {
        int recv = base == SIOT_CLASS_recv, persistent = recv && strstr(f->name, "_init") != NULL;
        /* MPI_Recv_init: each MPI_Start posts it; MPI_Irecv, MPI_Imrecv post it now */
        if (rp_idmap_set(&m->persistent, RP_K_REQ, made, persistent) != 0)
            return -1;
        return recv && !persistent ? post(m, seq, made) : 0;
    }
    if (base == SIOT_CLASS_start) {
        int64_t one = siot_arg_int(e, f, c, SIOT_ROLE_reqptr, -1);
        if (one >= 0)
            return rp_idmap_get(&m->persistent, RP_K_REQ, one) == 1 ? post(m, seq, one) : 0;
        if (!eval_arg(m, e, f, c, SIOT_ROLE_reqarr, 0, &reqs) || reqs.kind != SIOT_V_ARR)
            return 0;
        for (uint32_t i = 0; i < reqs.n; i++)
            if (rp_idmap_get(&m->persistent, RP_K_REQ, reqs.arr[i]) == 1 && post(m, seq, reqs.arr[i]) != 0)
                return -1;
        return 0;
    }
    if (base == SIOT_CLASS_req || base == SIOT_CLASS_cancel) { /* MPI_Request_free, MPI_Cancel: no word on its sender */
        int64_t id = siot_arg_int(e, f, c, base == SIOT_CLASS_req ? SIOT_ROLE_waitreq : SIOT_ROLE_reqptr, -1);
        if (base == SIOT_CLASS_req)
            complete(m, id, NULL);
        return 0;
    }
    if (base != SIOT_CLASS_wait && base != SIOT_CLASS_test)
        return 0;
    int have_st = eval_arg(m, e, f, c, SIOT_ROLE_status, 1, &st) && st.kind == SIOT_V_ARR && st.n == 3;
    int64_t one = siot_arg_int(e, f, c, SIOT_ROLE_waitreq, -1);
    if (siot_arg_index(f, SIOT_ROLE_waitreq) >= 0) { /* MPI_Wait, MPI_Test */
        if (have_st)
            complete(m, one, st.arr);
        return 0;
    }
    if (!eval_arg(m, e, f, c, SIOT_ROLE_reqarr, 0, &reqs) || reqs.kind != SIOT_V_ARR)
        return 0;
    if (siot_arg_index(f, SIOT_ROLE_status) >= 0) { /* MPI_Waitany, MPI_Testany */
        int64_t i = siot_arg_int(e, f, c, SIOT_ROLE_outint, -1);
        if (have_st && i >= 0 && i < (int64_t)reqs.n)
            complete(m, reqs.arr[i], st.arr);
        return 0;
    }
    if (m->no_statuses || !eval_arg(m, e, f, c, SIOT_ROLE_statusarr, 1, &st) || st.kind != SIOT_V_ARR)
        return 0;
    int some = eval_arg(m, e, f, c, SIOT_ROLE_outintarr, 2, &idx);
    if (some && idx.kind == SIOT_V_ARR) { /* MPI_Waitsome, MPI_Testsome */
        for (uint32_t j = 0; j < idx.n && 3 * j + 2 < st.n; j++)
            if (idx.arr[j] >= 0 && idx.arr[j] < (int64_t)reqs.n)
                complete(m, reqs.arr[idx.arr[j]], &st.arr[3 * j]);
        return 0;
    }
    for (uint32_t i = 0; i < reqs.n && 3 * i + 2 < st.n; i++) /* MPI_Waitall, MPI_Testall */
        complete(m, reqs.arr[i], &st.arr[3 * i]);
    return 0;
}

/* Walks one more event ahead: 1, or 0 at the end (or on a failure). */
static int step(rp_match *m)
{
    siot_ctx c;
    const siot_node *n = m->ok ? siot_iter_next(&m->it, &c) : NULL;
    if (!n || note(m, &n->u.ev, &c, m->seq) != 0) {
        m->ok = 0;
        return 0;
    }
    m->seq++;
    return 1;
}

int rp_match_request(rp_match *m, int64_t seq, int64_t req, int64_t *source, int64_t *tag)
{
    /* receives posted before seq will not be asked for */
    size_t drop = 0;
    while (drop < m->n && m->v[drop].seq < seq)
        drop++;
    if (drop) {
        memmove(m->v, m->v + drop, (m->n - drop) * sizeof *m->v);
        m->n -= drop;
    }
    while (m->seq <= seq && step(m))
        ;
    rp_match_ent *e = NULL;
    for (size_t i = 0; i < m->n && m->v[i].seq == seq && !e; i++)
        e = m->v[i].req == req ? &m->v[i] : NULL;
    if (!e)
        return 0;
    /* the entries may move as the walk posts more: find ours again by seq */
    size_t at = (size_t)(e - m->v);
    while (!m->v[at].done && step(m))
        ;
    if (m->v[at].done != 1)
        return 0;
    *source = m->v[at].source;
    *tag = m->v[at].tag;
    return 1;
}
