#include "replay/order.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/roles.h"
#include "replay/analyze.h"

void rp_order_init(rp_order *o) { memset(o, 0, sizeof *o); }

void rp_order_free(rp_order *o)
{
    free(o->file_comm);
    memset(o, 0, sizeof *o);
}

/* The recorded value of the step's first argument of this role, or -1. */
static int64_t arg_of_role(const rp_step *st, unsigned role)
{
    return siot_arg_int(st->ev, st->fn, &st->ctx, role, -1);
}

static void remember_file(rp_order *o, int64_t file, int64_t comm)
{
    if (file < 0 || file > 1 << 20)
        return;
    if ((uint64_t)file >= o->nfiles) {
        uint32_t n = (uint32_t)file + 64;
        int64_t *m = realloc(o->file_comm, n * sizeof *m);
        if (!m)
            return;
        for (uint32_t i = o->nfiles; i < n; i++)
            m[i] = -1;
        o->file_comm = m;
        o->nfiles = n;
    }
    o->file_comm[file] = comm;
}

static int is_ancestor(const rp_plan *plan, int64_t seq)
{
    for (size_t i = 0; i < plan->nest.n; i++)
        if (plan->nest.v[i].seq == seq)
            return 1;
    return 0;
}

/* The creation point: everyone's calls before it, the creating open, everyone's after. */
static void pass_creation(rp_order *o)
{
    PMPI_Barrier(o->comm);
    PMPI_Barrier(o->comm);
    o->creating = 0;
}

void rp_order_end(rp_order *o)
{
    if (!o->active)
        return;
    if (o->creating) /* this rank made no call on the file that succeeded */
        pass_creation(o);
    if (o->removing) { /* this rank removed nothing inside the close */
        PMPI_Barrier(o->comm);
        o->removing = 0;
    }
    PMPI_Barrier(o->comm); /* nobody goes on before everyone's calls are done */
    o->active = 0;
}

/* The step's next path argument from *k on, evaluated into scratch as
 * v: 1, or 0 when there is none left. */
static int next_path(const rp_step *st, uint32_t *k, siot_vbuf *scratch, siot_value *v)
{
    for (; *k < st->fn->nargs && *k < st->ev->nargs; ++*k)
        if (st->fn->argroles[*k] == SIOT_ROLE_path && siot_eval(st->ev->args[*k], &st->ctx, scratch, v) == 0 &&
            v->kind == SIOT_V_STR) {
            ++*k;
            return 1;
        }
    return 0;
}

/* Whether one of the step's paths is the file the collective open names. */
static int on_the_file(const rp_order *o, const rp_step *st)
{
    siot_vbuf scratch;
    siot_value v;
    siot_vbuf_init(&scratch);
    int on_file = 0;
    for (uint32_t k = 0; !on_file && next_path(st, &k, &scratch, &v);)
        on_file = v.slen == o->pathlen && memcmp(v.s, o->path, v.slen) == 0;
    siot_vbuf_free(&scratch);
    return on_file;
}

static int creates(const rp_step *st)
{
    int64_t flags = arg_of_role(st, SIOT_ROLE_oflags);
    return flags != -1 && (flags & O_CREAT);
}

/* A call inside a creating collective open: this rank's O_CREAT open of
 * the file (barrier before, barrier after), or its first call on the file
 * that succeeded (both barriers before it). An O_CREAT open of another
 * file is neither: Open MPI opens FILE.locktest.N with O_CREAT on every
 * rank inside MPI_File_open, before the file itself. */
static void inside_creation(rp_order *o, const rp_step *st)
{
    if (!on_the_file(o, st))
        return;
    if (creates(st)) {
        PMPI_Barrier(o->comm);
        o->after_create = 1;
        return;
    }
    if (siot_eval_int(st->ev->ret, &st->ctx, -1) >= 0 && siot_eval_int(st->ev->err, &st->ctx, 0) == 0)
        pass_creation(o);
}

/* A removal inside a collective close: in the run every rank removed the
 * same file (ROMIO its shared file pointer's, OMPIO a file opened with
 * MPI_MODE_DELETE_ON_CLOSE) and one found it. That rank removes first
 * (barrier after its unlink), the others after (barrier before theirs);
 * a rank with no removal passes the barrier at the close's end. */
static int removes(const rp_step *st) { return siot_is_removal(st->fn); }

static void inside_removal(rp_order *o, const rp_step *st)
{
    o->removing = 0;
    if (siot_eval_int(st->ev->ret, &st->ctx, -1) == 0 && siot_eval_int(st->ev->err, &st->ctx, 0) == 0)
        o->after_remove = 1;
    else
        PMPI_Barrier(o->comm);
}

void rp_order_after(rp_order *o)
{
    if (o->after_remove) {
        o->after_remove = 0;
        PMPI_Barrier(o->comm);
    }
    if (!o->after_create)
        return;
    o->after_create = 0;
    PMPI_Barrier(o->comm);
    o->creating = 0;
}

/* The file a collective open names (its recorded string, evaluated), kept
 * for the calls inside it. */
static void note_path(rp_order *o, const rp_step *st)
{
    siot_vbuf scratch;
    siot_value v;
    uint32_t k = 0;
    siot_vbuf_init(&scratch);
    o->pathlen = 0;
    if (next_path(st, &k, &scratch, &v) && v.slen < sizeof o->path) {
        memcpy(o->path, v.s, v.slen);
        o->pathlen = v.slen;
    }
    siot_vbuf_free(&scratch);
}

void rp_order_step(rp_order *o, const rp_plan *plan, const rp_step *st, rp_state *c)
{
    if (o->active && !is_ancestor(plan, o->seq))
        rp_order_end(o);
    if (o->active && o->creating) {
        inside_creation(o, st);
        return;
    }
    if (o->active && o->removing && removes(st)) {
        inside_removal(o, st);
        return;
    }
    if (st->fn->layer != SIOT_LAYER_mpiio)
        return;
    int64_t comm = arg_of_role(st, SIOT_ROLE_comm), file = arg_of_role(st, SIOT_ROLE_newfile);
    if (comm >= 0 && file >= 0) /* MPI_File_open: the file's communicator */
        remember_file(o, file, comm);
    if (o->active || st->replay || !(st->fn->cls & SIOT_CLS_COLL))
        return;
    file = arg_of_role(st, SIOT_ROLE_file);
    if (file < 0) /* MPI_File_close */
        file = arg_of_role(st, SIOT_ROLE_closefile);
    if (comm < 0 && file >= 0 && (uint64_t)file < o->nfiles)
        comm = o->file_comm[file];
    MPI_Comm h = comm < 0 ? MPI_COMM_NULL : rp_comm(c, comm);
    if (h == MPI_COMM_NULL)
        return;
    o->active = 1;
    o->seq = st->seq;
    o->comm = h;
    o->creating = 0;
    o->removing = SIOT_CLASS_BASE(st->fn->cls) == SIOT_CLASS_close;
    if (arg_of_role(st, SIOT_ROLE_newfile) >= 0 && (arg_of_role(st, SIOT_ROLE_amode) & MPI_MODE_CREATE)) {
        note_path(o, st);
        o->creating = o->pathlen > 0;
    }
}
