/* handles: roles to object kinds, and id maps (replay/handles.h). */
#include "replay/handles.h"

#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/predef.h"
#include "core/roles.h"

/* The generated replayers (tools/gen/roles.c, rp_kind_missing) and --check
 * name a missing object with the same words. */
static const struct {
    int64_t base;
    int mpi;
    const char *missing;
} KIND[RP_NKINDS] = {
    [RP_K_COMM] = {SIOT_COMM_BASE, 1, "an MPI communicator whose creation is not in the trace"},
    [RP_K_GROUP] = {SIOT_GROUP_BASE, 1, "an MPI group whose creation is not in the trace"},
    [RP_K_DTYPE] = {SIOT_DTYPE_BASE, 1, "an MPI datatype whose creation is not in the trace"},
    [RP_K_OP] = {SIOT_OP_BASE, 1, "an MPI reduction operation whose creation is not in the trace"},
    [RP_K_REQ] = {0, 1, "an MPI request whose creation is not in the trace"},
    [RP_K_FILE] = {0, 1, "an MPI file handle whose creation is not in the trace"},
    [RP_K_FD] = {0, 0, "a descriptor whose opening is not in the trace"},
    [RP_K_STREAM] = {0, 0, "a stream whose opening is not in the trace"},
    [RP_K_DIR] = {0, 0, "a directory stream whose opening is not in the trace"},
    [RP_K_WIN] = {0, 1, "an MPI window whose creation is not in the trace"},
};

#define MAX_ID (1 << 22) /* ids above are not stored */

int rp_kind_used(unsigned role)
{
    switch (role) {
    case SIOT_ROLE_comm: case SIOT_ROLE_freecomm: return RP_K_COMM;
    case SIOT_ROLE_group: case SIOT_ROLE_freegroup: return RP_K_GROUP;
    case SIOT_ROLE_dtype: case SIOT_ROLE_dtypearr: case SIOT_ROLE_commitdtype: case SIOT_ROLE_freedtype: return RP_K_DTYPE;
    case SIOT_ROLE_op: case SIOT_ROLE_freeop: return RP_K_OP;
    case SIOT_ROLE_req: case SIOT_ROLE_waitreq: case SIOT_ROLE_reqarr: case SIOT_ROLE_reqptr: return RP_K_REQ;
    case SIOT_ROLE_file: case SIOT_ROLE_closefile: return RP_K_FILE;
    case SIOT_ROLE_fd: return RP_K_FD;
    case SIOT_ROLE_stream: return RP_K_STREAM;
    case SIOT_ROLE_dir: return RP_K_DIR;
    case SIOT_ROLE_win: case SIOT_ROLE_freewin: return RP_K_WIN;
    }
    return -1;
}

int rp_kind_created(unsigned role)
{
    switch (role) {
    case SIOT_ROLE_newcomm: return RP_K_COMM;
    case SIOT_ROLE_newgroup: case SIOT_ROLE_outgroup: return RP_K_GROUP;
    case SIOT_ROLE_newdtype: case SIOT_ROLE_outdtype: case SIOT_ROLE_outdtypearr: return RP_K_DTYPE;
    case SIOT_ROLE_newop: return RP_K_OP;
    case SIOT_ROLE_newreq: case SIOT_ROLE_outreqarr: return RP_K_REQ;
    case SIOT_ROLE_newfile: return RP_K_FILE;
    case SIOT_ROLE_fdnew: case SIOT_ROLE_r_newfd: return RP_K_FD;
    case SIOT_ROLE_r_newstream: return RP_K_STREAM;
    case SIOT_ROLE_r_newdir: return RP_K_DIR;
    case SIOT_ROLE_newwin: return RP_K_WIN;
    }
    return -1;
}

int64_t rp_kind_base(int kind) { return KIND[kind].base; }
const char *rp_kind_missing(int kind) { return KIND[kind].missing; }

const char *rp_id_missing(int kind, int64_t id)
{
    return id == SIOT_ID_UNKNOWN && kind == RP_K_REQ
               ? "an MPI request made by a call the tracer does not record (PMPI called directly, or untraced)"
               : KIND[kind].missing;
}
int rp_kind_is_mpi(int kind) { return KIND[kind].mpi; }

int rp_idmap_in_range(int kind, int64_t id) { return id >= KIND[kind].base && id < MAX_ID; }

int rp_idmap_set(rp_idmap *m, int kind, int64_t id, int64_t value)
{
    if (!rp_idmap_in_range(kind, id))
        return 0;
    if ((size_t)id >= m->cap[kind]) {
        size_t n = (size_t)id * 2 + 64;
        int64_t *a = realloc(m->v[kind], n * sizeof *a);
        if (!a)
            return -1;
        memset(a + m->cap[kind], 0, (n - m->cap[kind]) * sizeof *a);
        m->v[kind] = a;
        m->cap[kind] = n;
    }
    m->v[kind][id] = value;
    return 0;
}

int64_t rp_idmap_get(const rp_idmap *m, int kind, int64_t id)
{
    return rp_idmap_in_range(kind, id) && (size_t)id < m->cap[kind] ? m->v[kind][id] : 0;
}

void rp_idmap_free(rp_idmap *m)
{
    for (int k = 0; k < RP_NKINDS; k++)
        free(m->v[k]);
    memset(m, 0, sizeof *m);
}

/* The ids of a value: one, or each of an array; n of them in ids (at most max). */
static uint32_t ids_of(const siot_expr *x, const siot_ctx *c, siot_vbuf *scratch, int64_t *ids, uint32_t max)
{
    siot_value v;
    if (siot_eval(x, c, scratch, &v) != 0)
        return 0;
    if (v.kind == SIOT_V_INT) {
        ids[0] = v.i;
        return 1;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; v.kind == SIOT_V_ARR && i < v.n && n < max; i++)
        ids[n++] = v.arr[i];
    return n;
}

enum { MAX_IDS = 4096 };

int rp_objs_note(rp_idmap *m, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, int64_t value,
                 siot_vbuf *scratch)
{
    int64_t ids[MAX_IDS];
    for (uint32_t a = 0; a < f->nargs && a < e->nargs; a++) {
        int kind = rp_kind_created(f->argroles[a]);
        if (kind < 0 || !rp_kind_is_mpi(kind))
            continue;
        uint32_t n = ids_of(e->args[a], c, scratch, ids, MAX_IDS);
        for (uint32_t i = 0; i < n; i++)
            if (rp_idmap_set(m, kind, ids[i], value) != 0)
                return -1;
    }
    return 0;
}

int rp_objs_used(const rp_idmap *m, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c,
                 siot_vbuf *scratch)
{
    int64_t ids[MAX_IDS], most = 0;
    for (uint32_t a = 0; a < f->nargs && a < e->nargs; a++) {
        int kind = rp_kind_used(f->argroles[a]);
        if (kind < 0 || !rp_kind_is_mpi(kind) || !m->v[kind])
            continue;
        uint32_t n = ids_of(e->args[a], c, scratch, ids, MAX_IDS);
        for (uint32_t i = 0; i < n; i++)
            if (rp_idmap_get(m, kind, ids[i]) > most)
                most = rp_idmap_get(m, kind, ids[i]);
    }
    return (int)most;
}

int rp_objs_keep(rp_idmap *m, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, int keep, int in_mpiio,
                 siot_vbuf *scratch)
{
    if (keep && f->layer == SIOT_LAYER_mpi && rp_objs_used(m, f, e, c, scratch))
        keep = 0;
    return rp_objs_note(m, f, e, c, in_mpiio || f->layer == SIOT_LAYER_mpiio || !keep, scratch) != 0 ? -1 : keep;
}

/* The text for maker f and reason why: found, or added (the last one
 * stands for the rest once the table is full). 0: no memory. */
static uint32_t unmade_reason(rp_unmade *u, const char *func, const char *why)
{
    char t[RP_UNMADE_TEXT];
    snprintf(t, sizeof t, "made by %s, which is not reissued (%s)", func, why);
    for (uint32_t i = 0; i < u->n; i++)
        if (strcmp(u->text[i], t) == 0)
            return i + 1;
    if (u->n == RP_UNMADE_REASONS)
        return u->n;
    if (!(u->text[u->n] = strdup(t)))
        return 0;
    return ++u->n;
}

int rp_unmade_note(rp_unmade *u, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, const char *why,
                   siot_vbuf *scratch)
{
    int64_t reason = 0;
    if (why && !(reason = unmade_reason(u, f->name, why)))
        return -1;
    return rp_objs_note(&u->ids, f, e, c, reason, scratch);
}

const char *rp_unmade_why(const rp_unmade *u, int kind, int64_t id)
{
    int64_t r = rp_idmap_get(&u->ids, kind, id);
    return r > 0 && (uint64_t)r <= u->n ? u->text[r - 1] : NULL;
}

void rp_unmade_free(rp_unmade *u)
{
    rp_idmap_free(&u->ids);
    for (uint32_t i = 0; i < u->n; i++)
        free(u->text[i]);
    memset(u, 0, sizeof *u);
}

int rp_poll_found_nothing(const siot_funcdesc *f, const siot_event *e, const siot_ctx *c)
{
    if (siot_aio_poll_idle(f, siot_eval_int(e->ret, c, 0)))
        return 1;
    int at = siot_poll_flag_arg(f);
    return at >= 0 && (uint32_t)at < e->nargs && siot_eval_int(e->args[at], c, -1) == 0;
}
