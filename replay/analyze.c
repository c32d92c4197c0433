#include "replay/analyze.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/format.h"
#include "core/names.h"
#include "core/ranklist.h"
#include "compress/xmerge.h"
#include "core/roles.h"

typedef struct pass {
    const siot_trace *t;
    const siot_handlers *h;
    uint8_t *expand;  /* per loop node: iterate it rather than multiply */
    uint8_t *visited; /* per event node: a record was emitted */
    uint32_t depth;
    uint64_t iter[SIOT_MAX_NEST];   /* innermost first, 0 for summed levels */
    uint64_t counts[SIOT_MAX_NEST]; /* innermost first */
    uint64_t summed;                /* bit k: level k is summed */
    uint64_t mult;                  /* product of the summed levels' counts */
    const char *err;
    siot_vbuf scratch;
} pass;

/* ------------------------------------------------------------ what forces iteration */

static int is_handle_role(unsigned role)
{
    switch (role) {
    case SIOT_ROLE_fd:
    case SIOT_ROLE_fdnew:
    case SIOT_ROLE_stream:
    case SIOT_ROLE_dir:
    case SIOT_ROLE_file:
    case SIOT_ROLE_newfile:
    case SIOT_ROLE_closefile:
        return 1;
    }
    return 0;
}

static int opens_handle(const siot_funcdesc *f)
{
    unsigned b = SIOT_CLASS_BASE(f->cls);
    return b == SIOT_CLASS_open || b == SIOT_CLASS_dup;
}

/* The argument that says which file an event acts on, by its role: the
 * first handle of any kind, HDF5 ids and netCDF ids included (an H5Dwrite's
 * dataset, not its dataspaces), or -1. replay/files.c attributes bytes by it. */
int siot_file_handle_arg(const siot_funcdesc *f)
{
    for (uint32_t a = 0; a < f->nargs; a++) {
        unsigned r = f->argroles[a];
        if (is_handle_role(r) || r == SIOT_ROLE_hid || r == SIOT_ROLE_newhid || r == SIOT_ROLE_closehid ||
            r == SIOT_ROLE_ncid || r == SIOT_ROLE_outncid)
            return (int)a;
    }
    return -1;
}

int siot_makes_file(const siot_funcdesc *f)
{
    return f->layer == SIOT_LAYER_posix && SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_meta &&
           strncmp(f->name, "mknod", 5) == 0 && siot_arg_index(f, SIOT_ROLE_path) >= 0 &&
           siot_arg_index(f, SIOT_ROLE_mode) >= 0;
}

int siot_is_removal(const siot_funcdesc *f)
{
    return (f->layer == SIOT_LAYER_posix || f->layer == SIOT_LAYER_stdio) &&
           (strcmp(f->name, "unlink") == 0 || strcmp(f->name, "unlinkat") == 0 || strcmp(f->name, "remove") == 0);
}

int siot_is_mpi_delete(const siot_funcdesc *f)
{
    return f->layer == SIOT_LAYER_mpiio && strcmp(f->name, "MPI_File_delete") == 0;
}

int siot_deleted_or_gone(const char *flavour, int64_t ret)
{
    const char *name = ret ? siot_mpi_error_name(flavour, ret) : NULL;
    return ret == 0 || (name && strcmp(name, "MPI_ERR_NO_SUCH_FILE") == 0);
}

int siot_seeks_to_end(const siot_funcdesc *f, const siot_event *e, const siot_ctx *c)
{
    int k = SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_seek ? siot_arg_index(f, SIOT_ROLE_whence) : -1;
    return k >= 0 && (uint32_t)k < e->nargs && siot_eval_int(e->args[k], c, -1) == SEEK_END;
}

/* An open whose file name changes with the iteration: the loop must be
 * walked iteration by iteration for per-file rows to be exact (each
 * iteration then opens another file, so this costs one walk of the body per
 * file, while the data calls in inner loops stay multiplied). Likewise an
 * HDF5 object created from another (dataset from file) with an id that
 * changes: the file it belongs to is known only per iteration. And a
 * regular file made by mknod, a file of the trace too (replay/files.c). */
static int names_vary(const siot_funcdesc *f, const siot_event *e, unsigned k)
{
    int h = siot_file_handle_arg(f);
    if (h >= 0 && (uint32_t)h < e->nargs && siot_x_depends(e->args[h], k))
        return 1;
    if (f->retrole == SIOT_ROLE_r_newhid && h >= 0 && siot_x_depends(e->ret, k))
        return 1;
    if (!opens_handle(f) && !siot_makes_file(f))
        return 0;
    for (uint32_t a = 0; a < e->nargs; a++)
        if (f->argroles[a] == SIOT_ROLE_path && siot_x_depends(e->args[a], k))
            return 1;
    return 0;
}

/* Does anything in nodes (at relative depth k under the loop) depend on the
 * loop's iteration in a way a sum cannot hold: a byte count, a handle, an
 * inner loop count, the name of a file opened? */
static int depends_below(const siot_trace *t, siot_node *const *nodes, uint32_t n, unsigned k)
{
    for (uint32_t i = 0; i < n; i++) {
        const siot_node *nd = nodes[i];
        if (nd->kind == SIOT_N_LOOP) {
            if (siot_x_depends(nd->u.loop.count, k) ||
                (k + 1 < SIOT_MAX_NEST && depends_below(t, nd->u.loop.body, nd->u.loop.nbody, k + 1)))
                return 1;
            continue;
        }
        const siot_event *e = &nd->u.ev;
        const siot_funcdesc *f = &t->funcs[e->func];
        if (siot_x_depends(e->bytes, k) || (opens_handle(f) && siot_x_depends(e->ret, k)) || names_vary(f, e, k))
            return 1;
        for (uint32_t a = 0; a < e->nargs; a++)
            if (is_handle_role(f->argroles[a]) && siot_x_depends(e->args[a], k))
                return 1;
    }
    return 0;
}

static void mark_expand(const siot_trace *t, siot_node *const *nodes, uint32_t n, uint8_t *expand)
{
    for (uint32_t i = 0; i < n; i++) {
        const siot_node *nd = nodes[i];
        if (nd->kind != SIOT_N_LOOP)
            continue;
        expand[nd->id] = (uint8_t)depends_below(t, nd->u.loop.body, nd->u.loop.nbody, 0);
        mark_expand(t, nd->u.loop.body, nd->u.loop.nbody, expand);
    }
}

/* ------------------------------------------------------------ rank sets */

static int rank_dependent(const siot_expr *x)
{
    if (!x)
        return 0;
    switch (x->tag) {
    case SIOT_X_AFFINE:
        return x->rcoef != 0;
    case SIOT_X_RANKED:
    case SIOT_X_RMOD:
    case SIOT_X_RDIV:
    case SIOT_X_RDIG:
        return 1;
    case SIOT_X_SEQ:
    case SIOT_X_ARRAY:
    case SIOT_X_RANGE:
        for (uint32_t i = 0; i < x->n; i++)
            if (rank_dependent(x->u.items[i]))
                return 1;
        return 0;
    case SIOT_X_STR:
        for (uint32_t i = 0; i < x->n; i++)
            if (x->u.segs[i].is_field && rank_dependent(x->u.segs[i].field))
                return 1;
        return 0;
    case SIOT_X_SEQL:
        for (uint32_t i = 0; i < x->n; i++)
            if (rank_dependent(x->u.runs[i].x))
                return 1;
        return 0;
    }
    return 0;
}

static siot_ctx ctx_for(const pass *p, int32_t rank)
{
    siot_ctx c = {.rank = rank,
                  .depth = p->depth,
                  .iter = p->iter,
                  .occurrence = 0,
                  .approx = (p->t->flags & SIOT_TF_APPROX) != 0};
    return c;
}

typedef struct keyed {
    int64_t key[4];
    int32_t rank;
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
    const keyed *x = a, *y = b;
    for (int i = 0; i < 4; i++)
        if (x->key[i] != y->key[i])
            return x->key[i] < y->key[i] ? -1 : 1;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

/* ------------------------------------------------------------ the walk */

static int walk(pass *p, siot_node *const *nodes, uint32_t n, const int32_t *S, uint32_t ns);

static void push_level(pass *p, uint64_t count, int summed, uint64_t it)
{
    memmove(p->iter + 1, p->iter, p->depth * sizeof *p->iter);
    memmove(p->counts + 1, p->counts, p->depth * sizeof *p->counts);
    p->summed <<= 1;
    p->iter[0] = it;
    p->counts[0] = count;
    if (summed) {
        p->summed |= 1;
        p->mult *= count;
    }
    p->depth++;
}

static void pop_level(pass *p)
{
    if (p->summed & 1)
        p->mult /= p->counts[0];
    memmove(p->iter, p->iter + 1, (p->depth - 1) * sizeof *p->iter);
    memmove(p->counts, p->counts + 1, (p->depth - 1) * sizeof *p->counts);
    p->summed >>= 1;
    p->depth--;
}

/* The values an event's record depends on, for one rank. */
static int event_key(pass *p, const siot_node *nd, int32_t rank, int64_t key[4])
{
    const siot_event *e = &nd->u.ev;
    const siot_funcdesc *f = &p->t->funcs[e->func];
    siot_ctx c = ctx_for(p, rank);
    memset(key, 0, 4 * sizeof *key);
    key[0] = siot_eval_int(e->bytes, &c, 0);
    key[1] = opens_handle(f) ? siot_eval_int(e->ret, &c, 0) : 0;
    int h = siot_file_handle_arg(f), slot = 2;
    if (h >= 0 && (uint32_t)h < e->nargs)
        key[slot++] = siot_eval_int(e->args[h], &c, -1);
    for (uint32_t a = 0; a < e->nargs && slot < 4; a++)
        if (is_handle_role(f->argroles[a]) && (int)a != h)
            key[slot++] = siot_eval_int(e->args[a], &c, -1);
    return 0;
}

/* The event's record for ranks that share its values (read in the first
 * one's context) to the handler; the node is visited from then on. */
static void deliver(pass *p, siot_agg_event *rec, const int32_t *ranks, uint32_t n)
{
    rec->ranks = ranks;
    rec->nranks = n;
    rec->ctx = ctx_for(p, ranks[0]);
    rec->bytes = siot_eval_int(rec->node->u.ev.bytes, &rec->ctx, 0);
    rec->first_visit = !p->visited[rec->node->id];
    p->visited[rec->node->id] = 1;
    if (p->h->event)
        p->h->event(p->h->user, rec);
}

static int emit(pass *p, const siot_node *nd, const int32_t *S, uint32_t ns)
{
    const siot_event *e = &nd->u.ev;
    const siot_funcdesc *f = &p->t->funcs[e->func];
    int dep = rank_dependent(e->bytes) || (opens_handle(f) && rank_dependent(e->ret));
    int fh = siot_file_handle_arg(f);
    for (uint32_t a = 0; a < e->nargs && !dep; a++)
        dep = (is_handle_role(f->argroles[a]) || (int)a == fh) && rank_dependent(e->args[a]);
    siot_agg_event rec = {.trace = p->t, .node = nd, .fn = f, .calls = p->mult, .summed = p->summed, .counts = p->counts};
    if (!dep) {
        deliver(p, &rec, S, ns);
        return 0;
    }
    /* Ranks with the same values go together. */
    keyed *k = malloc(ns * sizeof *k);
    int32_t *grp = malloc(ns * sizeof *grp);
    if (!k || !grp) {
        free(k);
        free(grp);
        p->err = "out of memory";
        return -1;
    }
    for (uint32_t i = 0; i < ns; i++) {
        event_key(p, nd, S[i], k[i].key);
        k[i].rank = S[i];
    }
    qsort(k, ns, sizeof *k, cmp_keyed);
    for (uint32_t i = 0; i < ns;) {
        uint32_t j = i, g = 0;
        while (j < ns && memcmp(k[j].key, k[i].key, sizeof k[i].key) == 0)
            grp[g++] = k[j++].rank;
        deliver(p, &rec, grp, g);
        i = j;
    }
    free(k);
    free(grp);
    return 0;
}

static int run_loop(pass *p, const siot_node *nd, const int32_t *S, uint32_t ns, uint64_t count)
{
    int expanded = p->expand[nd->id];
    if (p->h->loop_enter)
        p->h->loop_enter(p->h->user, nd, count, expanded, S, ns);
    if (p->depth >= SIOT_MAX_NEST) {
        p->err = "loops nested too deeply";
        return -1;
    }
    int rc = 0;
    if (expanded) {
        for (uint64_t it = 0; it < count && rc == 0; it++) {
            push_level(p, count, 0, it);
            rc = walk(p, nd->u.loop.body, nd->u.loop.nbody, S, ns);
            pop_level(p);
        }
    } else {
        push_level(p, count, 1, 0);
        rc = walk(p, nd->u.loop.body, nd->u.loop.nbody, S, ns);
        pop_level(p);
    }
    if (p->h->loop_exit)
        p->h->loop_exit(p->h->user, nd);
    return rc;
}

static int walk(pass *p, siot_node *const *nodes, uint32_t n, const int32_t *S, uint32_t ns)
{
    int32_t *T = malloc((ns ? ns : 1) * sizeof *T);
    if (!T) {
        p->err = "out of memory";
        return -1;
    }
    int rc = 0;
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        const siot_node *nd = nodes[i];
        uint32_t nt = 0;
        for (uint32_t k = 0; k < ns; k++)
            if (siot_rl_contains(&nd->ranks, S[k]))
                T[nt++] = S[k];
        if (nt == 0)
            continue;
        if (nd->kind == SIOT_N_EVENT) {
            rc = emit(p, nd, T, nt);
            continue;
        }
        const siot_expr *cx = nd->u.loop.count;
        if (!rank_dependent(cx)) {
            siot_ctx c = ctx_for(p, T[0]);
            int64_t cnt = siot_eval_int(cx, &c, -1);
            if (cnt < 0) {
                p->err = "a loop count cannot be evaluated";
                rc = -1;
            } else if (cnt > 0) {
                rc = run_loop(p, nd, T, nt, (uint64_t)cnt);
            }
            continue;
        }
        /* Ranks that run the loop a different number of times go separately. */
        keyed *k = malloc(nt * sizeof *k);
        int32_t *grp = malloc(nt * sizeof *grp);
        if (!k || !grp) {
            free(k);
            free(grp);
            p->err = "out of memory";
            rc = -1;
            break;
        }
        for (uint32_t j = 0; j < nt; j++) {
            siot_ctx c = ctx_for(p, T[j]);
            memset(k[j].key, 0, sizeof k[j].key);
            k[j].key[0] = siot_eval_int(cx, &c, -1);
            k[j].rank = T[j];
        }
        qsort(k, nt, sizeof *k, cmp_keyed);
        for (uint32_t a = 0; a < nt && rc == 0;) {
            uint32_t b = a, g = 0;
            while (b < nt && k[b].key[0] == k[a].key[0])
                grp[g++] = k[b++].rank;
            if (k[a].key[0] < 0) {
                p->err = "a loop count cannot be evaluated";
                rc = -1;
            } else if (k[a].key[0] > 0) {
                rc = run_loop(p, nd, grp, g, (uint64_t)k[a].key[0]);
            }
            a = b;
        }
        free(k);
        free(grp);
    }
    free(T);
    return rc;
}

int siot_analyze(const siot_trace *t, const siot_handlers *h, char *err, size_t errlen)
{
    pass p;
    memset(&p, 0, sizeof p);
    p.t = t;
    p.h = h;
    p.mult = 1;
    p.expand = calloc(t->nnodes + 1, 1);
    p.visited = calloc(t->nnodes + 1, 1);
    int32_t *all = malloc((t->nranks ? t->nranks : 1) * sizeof *all);
    int rc = -1;
    if (!p.expand || !p.visited || !all) {
        snprintf(err, errlen, "out of memory");
        goto out;
    }
    for (uint32_t r = 0; r < t->nranks; r++)
        all[r] = (int32_t)r;
    mark_expand(t, t->top, t->ntop, p.expand);
    rc = walk(&p, t->top, t->ntop, all, t->nranks);
    if (rc)
        snprintf(err, errlen, "%s", p.err ? p.err : "analysis failed");
    else if (h->finish)
        h->finish(h->user);
out:
    free(p.expand);
    free(p.visited);
    free(all);
    siot_vbuf_free(&p.scratch);
    return rc;
}

int siot_agg_arg(const siot_agg_event *e, uint32_t k, siot_vbuf *scratch, siot_value *out)
{
    if (k >= e->node->u.ev.nargs)
        return -1;
    return siot_eval(e->node->u.ev.args[k], &e->ctx, scratch, out);
}

/* ------------------------------------------------------------ patterns */

static void put_num(siot_vbuf *o, const siot_strseg *s, int64_t v)
{
    char t[48];
    int n = s->zero_pad ? snprintf(t, sizeof t, "%0*" PRId64, s->width > 40 ? 40 : s->width, v)
                        : snprintf(t, sizeof t, "%" PRId64, v);
    siot_vbuf_put(o, t, (size_t)n);
}

static int affine_range(const siot_agg_event *e, const siot_expr *x, int64_t *lo, int64_t *hi);

/* A value by quotient whose inner value does not depend on the rank
 * ("group-{rank/4}"): the inner range plus the quotient's, exact because
 * the two vary independently. Otherwise no range. */
static int quotient_range(const siot_agg_event *e, const siot_expr *x, int64_t *lo, int64_t *hi)
{
    const siot_expr *in = x->u.items[0];
    if (x->n != 1 || !x->len || !in || (in->tag == SIOT_X_AFFINE && in->rcoef) || !affine_range(e, in, lo, hi))
        return 0;
    __int128 q0 = (__int128)x->sum * (e->ranks[0] / (int64_t)x->len);
    __int128 q1 = (__int128)x->sum * (e->ranks[e->nranks - 1] / (int64_t)x->len);
    __int128 a = *lo + (q0 < q1 ? q0 : q1), b = *hi + (q0 < q1 ? q1 : q0);
    if (a < INT64_MIN || b > INT64_MAX)
        return 0;
    *lo = (int64_t)a;
    *hi = (int64_t)b;
    return 1;
}

/* Range of an affine field over the summed levels and the record's ranks. */
static int affine_range(const siot_agg_event *e, const siot_expr *x, int64_t *lo, int64_t *hi)
{
    if (x->tag == SIOT_X_RDIV)
        return quotient_range(e, x, lo, hi);
    if (x->tag != SIOT_X_CONST && x->tag != SIOT_X_AFFINE)
        return 0;
    __int128 a = x->base, b = x->base;
    for (uint32_t k = 0; x->tag == SIOT_X_AFFINE && k < x->n; k++) {
        if (!x->u.coef[k])
            continue;
        if (k < e->ctx.depth && (e->summed >> k & 1)) {
            __int128 span = (__int128)x->u.coef[k] * (__int128)(e->counts[k] - 1);
            if (span > 0)
                b += span;
            else
                a += span;
        } else {
            __int128 fixed = (__int128)x->u.coef[k] * (__int128)(k < e->ctx.depth ? e->ctx.iter[k] : 0);
            a += fixed;
            b += fixed;
        }
    }
    if (x->tag == SIOT_X_AFFINE && x->rcoef) {
        __int128 r0 = (__int128)x->rcoef * e->ranks[0], r1 = (__int128)x->rcoef * e->ranks[e->nranks - 1];
        a += r0 < r1 ? r0 : r1;
        b += r0 < r1 ? r1 : r0;
    }
    if (a < INT64_MIN || b > INT64_MAX)
        return 0;
    *lo = (int64_t)a;
    *hi = (int64_t)b;
    return 1;
}

void siot_agg_pattern(const siot_agg_event *e, const siot_expr *x, siot_vbuf *out)
{
    siot_value v;
    if (x->tag != SIOT_X_STR) {
        siot_vbuf tmp;
        siot_vbuf_init(&tmp);
        if (siot_eval(x, &e->ctx, &tmp, &v) == 0 && v.kind == SIOT_V_STR)
            siot_vbuf_put(out, v.s, v.slen);
        else
            siot_vbuf_put(out, "?", 1);
        siot_vbuf_free(&tmp);
        return;
    }
    for (uint32_t i = 0; i < x->n; i++) {
        const siot_strseg *s = &x->u.segs[i];
        if (!s->is_field) {
            siot_vbuf_put(out, s->lit, s->len);
            continue;
        }
        const siot_expr *f = s->field;
        int varies = rank_dependent(f) && e->nranks > 1;
        for (unsigned k = 0; k < e->ctx.depth && !varies; k++)
            varies = (e->summed >> k & 1) && siot_x_depends(f, k);
        if (!varies) {
            put_num(out, s, siot_eval_int(f, &e->ctx, 0));
            continue;
        }
        int only_rank = f->tag == SIOT_X_AFFINE && f->base == 0 && f->rcoef == 1;
        for (uint32_t k = 0; only_rank && k < f->n; k++)
            only_rank = f->u.coef[k] == 0 || !(e->summed >> k & 1);
        int64_t lo, hi;
        if (only_rank) {
            siot_vbuf_put(out, "{rank}", 6);
        } else if (affine_range(e, f, &lo, &hi)) {
            siot_vbuf_u8(out, '{');
            put_num(out, s, lo);
            siot_vbuf_put(out, "..", 2);
            put_num(out, s, hi);
            siot_vbuf_u8(out, '}');
        } else {
            siot_vbuf_put(out, "{*}", 3);
        }
    }
}

int siot_trace_lacks(const siot_trace *t, char *why, size_t n)
{
    static const char *const NOTES[] = {"mpiio_unseen", "calls_unrecorded", "truncated", "stopped", "lost"};
    for (size_t i = 0; i < sizeof NOTES / sizeof *NOTES; i++) {
        const char *v = siot_trace_get_kv(t, NOTES[i]);
        if (v) {
            snprintf(why, n, "%s: %s", NOTES[i], v);
            return 1;
        }
    }
    return 0;
}

int siot_trace_lacks_text(const siot_trace *t, const char *aside, char *buf, size_t n)
{
    char why[400];
    if (!siot_trace_lacks(t, why, sizeof why))
        return 0;
    snprintf(buf, n, "the run made calls the trace does not hold%s (%s)", aside, why);
    return 1;
}
