#include "replay/plan.h"

#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/roles.h"
#include "replay/analyze.h"

static int is_mpi(unsigned layer) { return layer == SIOT_LAYER_mpi || layer == SIOT_LAYER_mpiio; }

static int is_own(unsigned cls)
{
    unsigned base = SIOT_CLASS_BASE(cls);
    return base == SIOT_CLASS_init || base == SIOT_CLASS_finalize || SIOT_CLASS_ENDS_RUN(cls);
}

/* A call that can wait for another rank: collectives, point-to-point and
 * request completion (a send whose wait is not reissued could keep
 * MPI_Finalize waiting too). */
static int waits_on_others(const siot_funcdesc *f)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    if (!is_mpi(f->layer) || is_own(f->cls))
        return 0;
    return (f->cls & SIOT_CLS_COLL) || base == SIOT_CLASS_coll || base == SIOT_CLASS_send ||
           base == SIOT_CLASS_recv || base == SIOT_CLASS_sendrecv || base == SIOT_CLASS_wait ||
           base == SIOT_CLASS_test || base == SIOT_CLASS_probe || base == SIOT_CLASS_start ||
           base == SIOT_CLASS_cancel;
}

/* The thread of the MPI calls under nodes (n of them), in *thread (-1:
 * none yet); 1 when two MPI calls may come from different threads. Decided
 * on the compressed form: a thread that is not one constant counts as
 * several (cautious: the price is calls not reissued, never a hang). */
static int mpi_threads_under(siot_node *const *nodes, uint32_t n, const siot_trace *t, int64_t *thread)
{
    for (uint32_t i = 0; i < n; i++) {
        const siot_node *x = nodes[i];
        if (x->kind == SIOT_N_LOOP) {
            if (mpi_threads_under(x->u.loop.body, x->u.loop.nbody, t, thread))
                return 1;
            continue;
        }
        const siot_funcdesc *f = &t->funcs[x->u.ev.func];
        if (!is_mpi(f->layer) || is_own(f->cls))
            continue;
        const siot_expr *th = x->u.ev.thread;
        if (!th || th->tag != SIOT_X_CONST)
            return 1;
        if (*thread >= 0 && *thread != th->base)
            return 1;
        *thread = th->base;
    }
    return 0;
}

int rp_plan_init(rp_plan *p, const siot_trace *t, int64_t rank, int posix_level)
{
    int64_t thread = -1;
    p->t = t;
    p->posix_level = posix_level;
    p->mpi_threads = mpi_threads_under(t->top, t->ntop, t, &thread);
    memset(&p->objs, 0, sizeof p->objs);
    siot_vbuf_init(&p->scratch);
    p->seq = 0;
    memset(&p->nest, 0, sizeof p->nest);
    return siot_iter_init(&p->it, t, rank) != 0 ? -1 : 0;
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

/* At the POSIX level: an MPI call on an object an MPI-IO call made is
 * covered with it; what MPI-IO calls (and calls not reissued) make is
 * noted. 0, or -1 without memory. */
static int mpiio_object_step(rp_plan *p, rp_step *s)
{
    int keep = rp_objs_keep(&p->objs, s->fn, s->ev, &s->ctx, s->replay, s->in_mpiio, &p->scratch);
    if (keep < 0)
        return -1;
    s->replay = keep;
    return 0;
}

int rp_plan_next(rp_plan *p, rp_step *s)
{
    const siot_node *n = siot_iter_next(&p->it, &s->ctx);
    if (!n)
        return 0;
    s->ev = &n->u.ev;
    s->fn = &p->t->funcs[s->ev->func];
    s->seq = p->seq;
    s->parent = rp_parent_seq(s->ev, &s->ctx, p->seq);
    const rp_frame *up = rp_nest_enter(&p->nest, s->parent);
    int covered = up ? up->flags & RP_PLAN_COVERED : 0;
    s->in_mpiio = up ? (up->flags & RP_PLAN_IN_MPIIO) != 0 : 0;
    s->in_delete = up ? (up->flags & RP_PLAN_IN_DELETE) != 0 : 0;
    /* at the POSIX level, POSIX calls are reissued inside whatever issued
     * them, and the MPI calls of the MPI-IO library are its own */
    int posix = s->fn->layer == SIOT_LAYER_posix || s->fn->layer == SIOT_LAYER_stdio;
    int internal = p->posix_level && s->in_mpiio && s->fn->layer == SIOT_LAYER_mpi;
    s->replay = replayed_layer(p, s->fn->layer, (covered && !(p->posix_level && posix)) || internal);
    if (p->posix_level && mpiio_object_step(p, s) != 0) {
        /* the rule cannot know this call's objects: later calls on them
         * would be reissued as if made by the program, so the walk stops */
        p->it.err = "out of memory";
        return 0;
    }
    s->own = s->replay && is_own(s->fn->cls);
    s->why_not = s->replay && p->mpi_threads && waits_on_others(s->fn)
                     ? "MPI calls made by several threads of a rank: one replay thread reissuing them in "
                       "one order could deadlock"
                     : NULL;
    return 1;
}

int rp_plan_done(rp_plan *p, const rp_step *s, int done)
{
    int covered = p->nest.n ? p->nest.v[p->nest.n - 1].flags & RP_PLAN_COVERED : 0;
    rp_frame *f = rp_nest_push(&p->nest, s->seq);
    if (!f)
        return -1;
    f->flags = (uint8_t)((covered || done ? RP_PLAN_COVERED : 0) |
                         (s->in_mpiio || s->fn->layer == SIOT_LAYER_mpiio ? RP_PLAN_IN_MPIIO : 0) |
                         (s->in_delete || siot_is_mpi_delete(s->fn) ? RP_PLAN_IN_DELETE : 0));
    p->seq++;
    return 0;
}

void rp_plan_free(rp_plan *p)
{
    rp_idmap_free(&p->objs);
    siot_vbuf_free(&p->scratch);
    siot_iter_free(&p->it);
    rp_nest_free(&p->nest);
}

int rp_reads_args(uint32_t nargs, const siot_funcdesc *f)
{
    static const char *const before_statuses[] = {"MPI_Waitall", "MPI_Testall", "MPI_Waitsome", "MPI_Testsome"};
    if (nargs == f->nargs)
        return 1;
    for (size_t i = 0; nargs == f->nargs + 1 && i < sizeof before_statuses / sizeof *before_statuses; i++)
        if (strcmp(f->name, before_statuses[i]) == 0)
            return f->nargs == 0 || f->argroles[f->nargs - 1] != SIOT_ROLE_statusarr;
    return 0;
}
