#include "siot/otf2.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef SIOT_NO_OTF2
int siot_export_otf2(const siot_trace *t, siot_export_opts *o, const char *dir, uint64_t *written, char *err,
                     size_t errlen)
{
    (void)t, (void)o, (void)dir;
    *written = 0;
    snprintf(err, errlen, "this siot was built without the OTF2 library (libotf2-trace-dev was missing at build "
                          "time: make deps installs it; then rebuild)");
    return -1;
}
#else

#include <sys/stat.h>
#include <unistd.h>
#include <otf2/otf2.h>

#include "core/expr.h"
#include "core/predef.h"
#include "core/roles.h"
#include "replay/files.h"

/* A call's span on its location, and the record its end writes before the
 * Leave (the I/O completion, the receive, the collective's end...). */
enum { POST_NONE, POST_IO, POST_CREATE, POST_DESTROY, POST_RECV, POST_COLL };
typedef struct ox_frame {
    uint32_t region, post, comm, peer, tag, op;
    uint64_t end, a, b, m; /* POST_IO: handle, bytes, matching id; POST_RECV: bytes; POST_COLL: bytes, root */
} ox_frame;

#define OX_DEPTH 64
/* A location of the rank being walked: one per traced thread. */
typedef struct ox_live {
    int64_t thread;
    uint64_t ref, last, match;
    uint32_t loc; /* its entry in x->locs */
    OTF2_EvtWriter *w;
    uint32_t sp;
    ox_frame st[OX_DEPTH];
} ox_live;

typedef struct ox_loc {
    uint64_t ref, nev;
    uint32_t rank;
    int64_t thread;
} ox_loc;

/* A communicator rebuilt from the creations in the trace: its members as
 * (order key, world rank), sorted at the end. */
typedef struct ox_comm {
    uint32_t name, key;
    int64_t (*m)[2];
    uint32_t n, cap;
} ox_comm;

typedef struct ox_idref {
    int64_t id;
    uint32_t ref;
    uint8_t kind;
} ox_idref;

enum { SKIP_COMM, SKIP_WILD, SKIP_OP, SKIP_NOPEER, SKIP_PERSIST, SKIP_NOFILE, SKIP_DEEP, NSKIP };
static const char *const SKIP_WHY[NSKIP] = {
    "point-to-point or collective records on a communicator whose creation is not in the trace",
    "receives from any source whose status names no sender",
    "collectives OTF2 has no operation for (non-blocking, neighbourhood)",
    "one-sided calls and MPI_Mrecv (no communicator and peer among their arguments)",
    "persistent sends and receives made (their messages start at MPI_Start, not followed)",
    "reads and writes on a handle that names no traced file (standard streams, inherited descriptors)",
    "calls nested deeper than 64"};

typedef struct ox {
    OTF2_Archive *ar;
    const siot_trace *t;
    const char *dir;
    siot_files files;
    siot_vbuf scratch;
    char **strs; /* string refs: index */
    uint32_t nstrs, capstrs, *slots, capslots;
    uint32_t *regions; /* per function: its region's ref + 1, 0 while unused */
    uint32_t nregions, *region_func; /* per region ref: its function */
    ox_loc *locs;
    uint32_t nlocs, caplocs;
    ox_live *live; /* the rank's locations */
    uint32_t nlive, caplive;
    ox_comm *comms;
    uint32_t ncomms, capcomms;
    ox_idref *rcomm, *ropen; /* the rank's communicators (kind 0) and handles opened */
    uint32_t nrcomm, caprcomm, nropen, capropen;
    uint64_t skipped[NSKIP], end;
    uint32_t nextra; /* locations of threads past each rank's first */
    int oom;
} ox;

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    uint32_t c = *cap ? *cap * 2 : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, (size_t)c * size);
    if (!q)
        return -1;
    *p = q;
    *cap = c;
    return 0;
}

static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

static int str_rehash(ox *x)
{
    uint32_t cap = x->capslots ? x->capslots * 2 : 256;
    uint32_t *s = calloc(cap, sizeof *s);
    if (!s)
        return -1;
    for (uint32_t i = 0; i < x->nstrs; i++) {
        uint32_t h = str_hash(x->strs[i]) & (cap - 1);
        while (s[h])
            h = (h + 1) & (cap - 1);
        s[h] = i + 1;
    }
    free(x->slots);
    x->slots = s;
    x->capslots = cap;
    return 0;
}

/* The string's definition ref, made when new (0 with x->oom set when out
 * of memory: a valid ref, the export then fails). */
static uint32_t str_ref(ox *x, const char *s)
{
    if ((x->nstrs + 1) * 2 > x->capslots && str_rehash(x) != 0) {
        x->oom = 1;
        return 0;
    }
    uint32_t h = str_hash(s) & (x->capslots - 1);
    for (; x->slots[h]; h = (h + 1) & (x->capslots - 1))
        if (strcmp(x->strs[x->slots[h] - 1], s) == 0)
            return x->slots[h] - 1;
    char *c = strdup(s);
    if (!c || grow((void **)&x->strs, &x->capstrs, x->nstrs + 1, sizeof *x->strs) != 0) {
        free(c);
        x->oom = 1;
        return 0;
    }
    x->strs[x->nstrs] = c;
    x->slots[h] = ++x->nstrs;
    return x->nstrs - 1;
}

/* ------------------------------------------------------- communicators */

static int64_t arg_int(ox *x, const siot_event *e, int k, const siot_ctx *c, int64_t dflt)
{
    siot_value v;
    if (k < 0 || (uint32_t)k >= e->nargs || siot_eval(e->args[k], c, &x->scratch, &v) != 0 || v.kind != SIOT_V_INT)
        return dflt;
    return v.i;
}

/* The k-th argument (from 0) with the role, or -1. */
static int arg_nth(const siot_funcdesc *f, unsigned role, int nth)
{
    for (uint32_t i = 0; i < f->nargs; i++)
        if (f->argroles[i] == role && nth-- == 0)
            return (int)i;
    return -1;
}

static int set_idref(ox *x, ox_idref **v, uint32_t *n, uint32_t *cap, uint8_t kind, int64_t id, uint32_t ref)
{
    for (uint32_t i = 0; i < *n; i++)
        if ((*v)[i].kind == kind && (*v)[i].id == id) {
            (*v)[i].ref = ref;
            return 0;
        }
    if (grow((void **)v, cap, *n + 1, sizeof **v) != 0)
        return x->oom = 1, -1;
    (*v)[(*n)++] = (ox_idref){id, ref, kind};
    return 0;
}

/* The index of the entry, or -1. */
static int64_t find_idref(const ox_idref *v, uint32_t n, uint8_t kind, int64_t id)
{
    for (uint32_t i = n; i-- > 0;)
        if (v[i].kind == kind && v[i].id == id)
            return i;
    return -1;
}

/* The communicator of a creation, by its key, made when new. */
static uint32_t comm_of_key(ox *x, const char *key, const char *name)
{
    uint32_t k = str_ref(x, key);
    for (uint32_t i = 0; i < x->ncomms; i++)
        if (x->comms[i].key == k)
            return i;
    if (grow((void **)&x->comms, &x->capcomms, x->ncomms + 1, sizeof *x->comms) != 0) {
        x->oom = 1;
        return 0;
    }
    x->comms[x->ncomms] = (ox_comm){str_ref(x, name), k, NULL, 0, 0};
    return x->ncomms++;
}

static void comm_member(ox *x, uint32_t c, int64_t order, int64_t rank)
{
    ox_comm *m = &x->comms[c];
    if (grow((void **)&m->m, &m->cap, m->n + 1, sizeof *m->m) != 0) {
        x->oom = 1;
        return;
    }
    m->m[m->n][0] = order;
    m->m[m->n++][1] = rank;
}

/* The OTF2 communicator of a comm argument on the rank walked; -1 when its
 * creation is not in the trace. */
static int64_t comm_ref(ox *x, int64_t id)
{
    if (id == 0 || id == 1) /* MPI_COMM_WORLD, MPI_COMM_SELF (core/predef.h) */
        return id;
    int64_t i = find_idref(x->rcomm, x->nrcomm, 0, id);
    return i < 0 ? -1 : (int64_t)x->rcomm[i].ref;
}

/* A communicator made by the event (MPI_Comm_dup, _split, _create...): the
 * ranks that make it with one call on one parent are its members, ordered
 * by MPI_Comm_split's key (then by world rank) or by world rank; a split's
 * colour tells its parts apart. */
static void comm_created(ox *x, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c)
{
    int kout = siot_arg_index(f, SIOT_ROLE_newcomm);
    if (kout < 0 || siot_eval_int(e->ret, c, -1) != 0)
        return;
    int64_t id = arg_int(x, e, kout, c, -1), parent = comm_ref(x, arg_int(x, e, siot_arg_index(f, SIOT_ROLE_comm), c, -1));
    if (id < SIOT_COMM_BASE)
        return; /* MPI_COMM_NULL: a split's MPI_UNDEFINED colour */
    int split = strncmp(f->name, "MPI_Comm_split", 14) == 0 && f->nargs >= 3;
    int64_t colour = split ? arg_int(x, e, 1, c, 0) : 0, order = split ? arg_int(x, e, 2, c, 0) : 0;
    char key[160], name[200];
    snprintf(key, sizeof key, "%" PRId64 "/%s/%" PRId64 "/%" PRId64, parent, f->name, id, colour);
    const char *pname = parent >= 0 ? x->strs[x->comms[parent].name] : "?";
    if (split)
        snprintf(name, sizeof name, "%s #%" PRId64 " of %s, colour %" PRId64, f->name, id, pname, colour);
    else
        snprintf(name, sizeof name, "%s #%" PRId64 " of %s", f->name, id, pname);
    uint32_t cm = comm_of_key(x, key, name);
    if (x->oom)
        return;
    comm_member(x, cm, order, c->rank);
    set_idref(x, &x->rcomm, &x->nrcomm, &x->caprcomm, 0, id, cm);
}

/* --------------------------------------------------------- locations */

static OTF2_FlushType pre_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l, void *cb, bool final)
{
    (void)u, (void)ft, (void)l, (void)cb, (void)final;
    return OTF2_FLUSH;
}
static OTF2_TimeStamp post_flush(void *u, OTF2_FileType ft, OTF2_LocationRef l)
{
    (void)u, (void)ft, (void)l;
    return 0;
}
static const OTF2_FlushCallbacks FLUSH = {pre_flush, post_flush};

/* The location of the thread on the rank walked, opened when first seen:
 * the rank's first thread is location `rank`, the others follow all
 * ranks' first ones. NULL on an error (x->oom, or the library's). */
static ox_live *live_of(ox *x, uint32_t rank, int64_t thread)
{
    for (uint32_t i = 0; i < x->nlive; i++)
        if (x->live[i].thread == thread)
            return &x->live[i];
    if (grow((void **)&x->live, &x->caplive, x->nlive + 1, sizeof *x->live) != 0 ||
        grow((void **)&x->locs, &x->caplocs, x->nlocs + 1, sizeof *x->locs) != 0) {
        x->oom = 1;
        return NULL;
    }
    uint64_t ref = x->nlive == 0 ? rank : (uint64_t)x->t->nranks + x->nextra++;
    ox_live *l = &x->live[x->nlive];
    memset(l, 0, sizeof *l);
    l->thread = thread;
    l->ref = ref;
    l->loc = x->nlocs;
    l->w = OTF2_Archive_GetEvtWriter(x->ar, ref);
    if (!l->w)
        return NULL;
    x->nlive++;
    x->locs[x->nlocs++] = (ox_loc){ref, 0, rank, thread};
    return l;
}

/* --------------------------------------------------------------- events */

static OTF2_ErrorCode pop(ox *x, ox_live *l)
{
    ox_frame *f = &l->st[--l->sp];
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    switch (f->post) {
    case POST_IO:
        rc = OTF2_EvtWriter_IoOperationComplete(l->w, NULL, f->end, f->a, f->b, f->m);
        break;
    case POST_CREATE:
        rc = OTF2_EvtWriter_IoCreateHandle(l->w, NULL, f->end, f->a, OTF2_IO_ACCESS_MODE_READ_WRITE,
                                           OTF2_IO_CREATION_FLAG_NONE, OTF2_IO_STATUS_FLAG_NONE);
        break;
    case POST_DESTROY:
        rc = OTF2_EvtWriter_IoDestroyHandle(l->w, NULL, f->end, f->a);
        break;
    case POST_RECV:
        rc = OTF2_EvtWriter_MpiRecv(l->w, NULL, f->end, f->peer, f->comm, f->tag, f->a);
        break;
    case POST_COLL:
        rc = OTF2_EvtWriter_MpiCollectiveEnd(l->w, NULL, f->end, f->op, f->comm, (uint32_t)f->b, f->a, f->a);
        break;
    }
    if (rc == OTF2_SUCCESS)
        rc = OTF2_EvtWriter_Leave(l->w, NULL, f->end, f->region);
    l->last = f->end;
    return rc;
}

/* The MPI-1 collective operations OTF2 names, by the function's name
 * without MPI_ and a large-count _c; -1 for others. */
static int coll_op(const char *name)
{
    static const struct {
        const char *n;
        int op;
    } ops[] = {{"Barrier", OTF2_COLLECTIVE_OP_BARRIER}, {"Bcast", OTF2_COLLECTIVE_OP_BCAST},
               {"Gather", OTF2_COLLECTIVE_OP_GATHER}, {"Gatherv", OTF2_COLLECTIVE_OP_GATHERV},
               {"Scatter", OTF2_COLLECTIVE_OP_SCATTER}, {"Scatterv", OTF2_COLLECTIVE_OP_SCATTERV},
               {"Allgather", OTF2_COLLECTIVE_OP_ALLGATHER}, {"Allgatherv", OTF2_COLLECTIVE_OP_ALLGATHERV},
               {"Alltoall", OTF2_COLLECTIVE_OP_ALLTOALL}, {"Alltoallv", OTF2_COLLECTIVE_OP_ALLTOALLV},
               {"Alltoallw", OTF2_COLLECTIVE_OP_ALLTOALLW}, {"Allreduce", OTF2_COLLECTIVE_OP_ALLREDUCE},
               {"Reduce", OTF2_COLLECTIVE_OP_REDUCE}, {"Reduce_scatter", OTF2_COLLECTIVE_OP_REDUCE_SCATTER},
               {"Reduce_scatter_block", OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK},
               {"Scan", OTF2_COLLECTIVE_OP_SCAN}, {"Exscan", OTF2_COLLECTIVE_OP_EXSCAN}};
    if (strncmp(name, "MPI_", 4) != 0)
        return -1;
    name += 4;
    size_t n = strlen(name);
    if (n > 2 && strcmp(name + n - 2, "_c") == 0)
        n -= 2;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (strlen(ops[i].n) == n && strncmp(ops[i].n, name, n) == 0)
            return ops[i].op;
    return -1;
}

/* A recorded status [source, tag, bytes]: 1 with them. */
static int status_of(ox *x, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, int64_t st[3])
{
    int k = siot_arg_index(f, SIOT_ROLE_status);
    siot_value v;
    if (k < 0 || (uint32_t)k >= e->nargs || siot_eval(e->args[k], c, &x->scratch, &v) != 0 || v.kind != SIOT_V_ARR ||
        v.n < 3)
        return 0;
    memcpy(st, v.arr, 3 * sizeof *st);
    return 1;
}

/* A receive's record at the call's end: its sender and tag from its status
 * when recorded, else from its arguments; bytes likewise. */
static void mpi_recv(ox *x, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, int nth, uint32_t comm,
                     ox_frame *fr)
{
    int64_t st[3], peer = arg_int(x, e, arg_nth(f, SIOT_ROLE_peer, nth), c, SIOT_ANY_SOURCE);
    int64_t tag = arg_int(x, e, arg_nth(f, SIOT_ROLE_tag, nth), c, 0), bytes = siot_eval_int(e->bytes, c, 0);
    if (status_of(x, f, e, c, st) && st[0] >= 0)
        peer = st[0], tag = st[1], bytes = st[2];
    if (peer == SIOT_PROC_NULL)
        return;
    if (peer < 0) {
        x->skipped[SKIP_WILD]++;
        return;
    }
    *fr = (ox_frame){.post = POST_RECV, .comm = comm, .peer = (uint32_t)peer, .tag = (uint32_t)(tag < 0 ? 0 : tag),
                     .a = (uint64_t)(bytes > 0 ? bytes : 0)};
}

/* The MPI records of a call at its start (a send, a collective's begin),
 * and the one its end writes (in *fr). */
static OTF2_ErrorCode mpi_records(ox *x, ox_live *l, const siot_funcdesc *f, const siot_event *e,
                                  const siot_ctx *c, uint64_t ts, ox_frame *fr)
{
    unsigned b = SIOT_CLASS_BASE(f->cls);
    if (f->layer != SIOT_LAYER_mpi || (b != SIOT_CLASS_send && b != SIOT_CLASS_recv && b != SIOT_CLASS_sendrecv &&
                                       b != SIOT_CLASS_coll))
        return OTF2_SUCCESS;
    if (b != SIOT_CLASS_coll && (siot_arg_index(f, SIOT_ROLE_comm) < 0 || arg_nth(f, SIOT_ROLE_peer, 0) < 0)) {
        x->skipped[SKIP_NOPEER]++;
        return OTF2_SUCCESS;
    }
    if (b != SIOT_CLASS_coll && strstr(f->name, "_init")) {
        x->skipped[SKIP_PERSIST]++;
        return OTF2_SUCCESS;
    }
    int op = b == SIOT_CLASS_coll ? coll_op(f->name) : 0;
    if (op < 0 || (f->cls & SIOT_CLS_NB && b == SIOT_CLASS_coll)) {
        x->skipped[SKIP_OP]++;
        return OTF2_SUCCESS;
    }
    int64_t comm = comm_ref(x, arg_int(x, e, siot_arg_index(f, SIOT_ROLE_comm), c, -1));
    if (comm < 0) {
        x->skipped[SKIP_COMM]++;
        return OTF2_SUCCESS;
    }
    int64_t bytes = siot_eval_int(e->bytes, c, 0);
    if (b == SIOT_CLASS_coll) {
        int64_t root = arg_int(x, e, siot_arg_index(f, SIOT_ROLE_root), c, -1);
        *fr = (ox_frame){.post = POST_COLL, .comm = (uint32_t)comm, .op = (uint32_t)op,
                         .a = (uint64_t)(bytes > 0 ? bytes : 0),
                         .b = root >= 0 ? (uint64_t)root : OTF2_COLLECTIVE_ROOT_NONE};
        return OTF2_EvtWriter_MpiCollectiveBegin(l->w, NULL, ts);
    }
    if (b == SIOT_CLASS_recv) {
        mpi_recv(x, f, e, c, 0, (uint32_t)comm, fr);
        return OTF2_SUCCESS;
    }
    if (b == SIOT_CLASS_sendrecv)
        mpi_recv(x, f, e, c, 1, (uint32_t)comm, fr);
    int64_t peer = arg_int(x, e, arg_nth(f, SIOT_ROLE_peer, 0), c, -1);
    int64_t tag = arg_int(x, e, arg_nth(f, SIOT_ROLE_tag, 0), c, 0);
    if (peer < 0) /* MPI_PROC_NULL: no message */
        return OTF2_SUCCESS;
    return OTF2_EvtWriter_MpiSend(l->w, NULL, ts, (uint32_t)peer, (uint32_t)comm, (uint32_t)(tag < 0 ? 0 : tag),
                                  (uint64_t)(bytes > 0 ? bytes : 0));
}

/* The I/O records of a call: an operation's begin (its completion in
 * *fr), a handle's creation or destruction at its end. Before and after
 * the files' step of the event, as each needs. */
static OTF2_ErrorCode io_records(ox *x, ox_live *l, const siot_synth_ev *ev, uint64_t ts, ox_frame *fr)
{
    const siot_event *e = &ev->node->u.ev;
    const siot_funcdesc *f = &x->t->funcs[e->func];
    unsigned dir;
    int64_t bytes, id;
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    int32_t row = siot_files_data_row(&x->files, x->t, ev->node, &ev->ctx, &dir, &bytes);
    int kh = siot_file_handle_arg(f);
    if (row >= 0) {
        uint32_t flags = (f->cls & SIOT_CLS_NB ? OTF2_IO_OPERATION_FLAG_NON_BLOCKING : 0) |
                         (f->cls & SIOT_CLS_COLL ? OTF2_IO_OPERATION_FLAG_COLLECTIVE : 0);
        rc = OTF2_EvtWriter_IoOperationBegin(l->w, NULL, ts, (uint32_t)row,
                                             dir == SIOT_CLASS_read ? OTF2_IO_OPERATION_MODE_READ
                                                                    : OTF2_IO_OPERATION_MODE_WRITE,
                                             flags, (uint64_t)bytes, ++l->match);
        *fr = (ox_frame){.post = POST_IO, .a = (uint64_t)row, .b = (uint64_t)bytes, .m = l->match};
    } else if ((SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_read || SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_write) &&
               kh >= 0) {
        x->skipped[SKIP_NOFILE]++;
    } else if (SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_close && kh >= 0 &&
               siot_eval_int(e->ret, &ev->ctx, -1) == 0) {
        uint8_t kind = siot_handle_kind(f->argroles[kh]);
        int64_t i = find_idref(x->ropen, x->nropen, kind, arg_int(x, e, kh, &ev->ctx, INT64_MIN));
        if (i >= 0) { /* the close of a handle an open made */
            *fr = (ox_frame){.post = POST_DESTROY, .a = x->ropen[i].ref};
            x->ropen[i] = x->ropen[--x->nropen];
        }
    }
    siot_files_step(&x->files, x->t, ev->node, &ev->ctx);
    uint8_t kind;
    row = siot_files_opened_row(&x->files, x->t, ev->node, &ev->ctx, &kind, &id);
    if (row >= 0) {
        *fr = (ox_frame){.post = POST_CREATE, .a = (uint64_t)row};
        set_idref(x, &x->ropen, &x->nropen, &x->capropen, kind, id, (uint32_t)row);
    }
    return rc;
}

static uint64_t ns(double v)
{
    return v <= 0 ? 0 : (uint64_t)(v + 0.5);
}

static int ox_event(void *self, const siot_trace *t, const siot_synth_ev *ev, int keep, char *err, size_t errlen)
{
    ox *x = self;
    const siot_event *e = &ev->node->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    ox_live *l = live_of(x, (uint32_t)ev->ctx.rank, siot_eval_int(e->thread, &ev->ctx, 0));
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    if (!l) {
        snprintf(err, errlen, "%s", x->oom ? "out of memory" : "OTF2: cannot open an event writer");
        return -1;
    }
    while (l->sp > ev->depth && rc == OTF2_SUCCESS) /* the calls that ended before this one */
        rc = pop(x, l);
    uint64_t start = ns(ev->start_ns), end = ns(ev->start_ns + ev->dur_ns);
    start = start < l->last ? l->last : start;
    end = end < start ? start : end;
    if (!x->regions[e->func]) { /* refs dense, in order of first use, as readers want them */
        x->region_func[x->nregions] = e->func;
        x->regions[e->func] = ++x->nregions;
    }
    ox_frame fr = {.post = POST_NONE};
    if (rc == OTF2_SUCCESS)
        rc = OTF2_EvtWriter_Enter(l->w, NULL, start, x->regions[e->func] - 1);
    if (rc == OTF2_SUCCESS)
        rc = io_records(x, l, ev, start, &fr);
    if (rc == OTF2_SUCCESS)
        rc = mpi_records(x, l, f, e, &ev->ctx, start, &fr);
    comm_created(x, f, e, &ev->ctx);
    l->last = start;
    fr.region = x->regions[e->func] - 1;
    fr.end = end;
    x->end = end > x->end ? end : x->end;
    if (l->sp < OX_DEPTH)
        l->st[l->sp++] = fr;
    else if (rc == OTF2_SUCCESS) { /* cannot nest further: left at once */
        x->skipped[SKIP_DEEP]++;
        rc = OTF2_EvtWriter_Leave(l->w, NULL, start, fr.region);
    }
    if (rc != OTF2_SUCCESS || x->oom) {
        snprintf(err, errlen, "%s", x->oom ? "out of memory" : OTF2_Error_GetDescription(rc));
        return -1;
    }
    return 0;
}

/* After a rank: its open calls end, its locations' writers close. */
static int ox_rank_end(void *self, const siot_trace *t, uint32_t rank, double end_ns, char *err, size_t errlen)
{
    ox *x = self;
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    for (uint32_t i = 0; i < x->nlive; i++) {
        ox_live *l = &x->live[i];
        while (l->sp && rc == OTF2_SUCCESS)
            rc = pop(x, l);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_EvtWriter_GetNumberOfEvents(l->w, &x->locs[l->loc].nev);
        if (rc == OTF2_SUCCESS)
            rc = OTF2_Archive_CloseEvtWriter(x->ar, l->w);
    }
    x->nlive = x->nrcomm = x->nropen = 0;
    if (rc != OTF2_SUCCESS) {
        snprintf(err, errlen, "rank %u: %s", rank, OTF2_Error_GetDescription(rc));
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------- definitions */

static int cmp_member(const void *a, const void *b)
{
    const int64_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : x[1] < y[1] ? -1 : x[1] > y[1];
}

/* Groups and communicators: the world's locations (group 0), the world
 * (comm 0, group 1), self (comm 1, group 2), then each rebuilt one. */
static OTF2_ErrorCode def_comms(ox *x, OTF2_GlobalDefWriter *g, uint32_t nranks)
{
    uint64_t *m = malloc(((size_t)nranks + 1) * sizeof *m);
    if (!m)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (uint32_t r = 0; r < nranks; r++)
        m[r] = r;
    OTF2_ErrorCode rc = OTF2_GlobalDefWriter_WriteGroup(g, 0, str_ref(x, "MPI ranks"), OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, nranks, m);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteGroup(g, 1, str_ref(x, "MPI_COMM_WORLD"), OTF2_GROUP_TYPE_COMM_GROUP,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, nranks, m);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteGroup(g, 2, str_ref(x, "MPI_COMM_SELF"), OTF2_GROUP_TYPE_COMM_SELF,
                                             OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 0, m);
    free(m);
    for (uint32_t i = 0; i < x->ncomms && rc == OTF2_SUCCESS; i++) {
        ox_comm *c = &x->comms[i];
        if (i >= 2) {
            qsort(c->m, c->n, sizeof *c->m, cmp_member);
            uint64_t *mm = malloc(((size_t)c->n + 1) * sizeof *mm);
            if (!mm)
                return OTF2_ERROR_MEM_ALLOC_FAILED;
            for (uint32_t k = 0; k < c->n; k++)
                mm[k] = (uint64_t)c->m[k][1];
            rc = OTF2_GlobalDefWriter_WriteGroup(g, i + 1, c->name, OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                                 OTF2_GROUP_FLAG_NONE, c->n, mm);
            free(mm);
        }
        if (rc == OTF2_SUCCESS)
            rc = OTF2_GlobalDefWriter_WriteComm(g, i, c->name, i + 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE);
    }
    return rc;
}

/* The I/O paradigms, one per layer that opens files (ref: the index). */
static const struct {
    unsigned layer;
    const char *id, *name;
    OTF2_IoParadigmClass cls;
} P[] = {{SIOT_LAYER_posix, "POSIX", "POSIX I/O", OTF2_IO_PARADIGM_CLASS_SERIAL},
         {SIOT_LAYER_stdio, "ISOC", "ISO C I/O", OTF2_IO_PARADIGM_CLASS_SERIAL},
         {SIOT_LAYER_mpiio, "MPI-IO", "MPI I/O", OTF2_IO_PARADIGM_CLASS_PARALLEL},
         {SIOT_LAYER_hdf5, "HDF5", "HDF5", OTF2_IO_PARADIGM_CLASS_PARALLEL},
         {SIOT_LAYER_pnetcdf, "PnetCDF", "Parallel netCDF", OTF2_IO_PARADIGM_CLASS_PARALLEL}};

static uint32_t paradigm_of(unsigned layer)
{
    for (size_t i = 0; i < sizeof P / sizeof *P; i++)
        if (P[i].layer == layer)
            return (uint32_t)i;
    return 0; /* no other layer opens files */
}

/* The I/O paradigms, the files (one per name) and the handles (ref: the
 * row of the files' table, one per file and layer). */
static OTF2_ErrorCode def_io(ox *x, OTF2_GlobalDefWriter *g)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    for (size_t i = 0; i < sizeof P / sizeof *P && rc == OTF2_SUCCESS; i++)
        rc = OTF2_GlobalDefWriter_WriteIoParadigm(g, (uint32_t)i, str_ref(x, P[i].id), str_ref(x, P[i].name), P[i].cls,
                                                  OTF2_IO_PARADIGM_FLAG_NONE, 0, NULL, NULL, NULL);
    uint32_t *file = calloc(x->nstrs + 1, sizeof *file), nfiles = 0; /* per name: its file's ref + 1 */
    if (!file)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (uint32_t i = 0; i < x->files.nrows && rc == OTF2_SUCCESS; i++) {
        const siot_filerow *r = &x->files.rows[i];
        uint32_t s = str_ref(x, r->name);
        if (s < x->nstrs && !file[s]) {
            file[s] = ++nfiles;
            rc = OTF2_GlobalDefWriter_WriteIoRegularFile(g, nfiles - 1, s, 0);
        }
        if (rc == OTF2_SUCCESS)
            rc = OTF2_GlobalDefWriter_WriteIoHandle(g, i, s, s < x->nstrs ? file[s] - 1 : 0, paradigm_of(r->layer),
                                                    OTF2_IO_HANDLE_FLAG_NONE, OTF2_UNDEFINED_COMM,
                                                    OTF2_UNDEFINED_IO_HANDLE);
    }
    free(file);
    return rc;
}

static OTF2_ErrorCode def_regions(ox *x, OTF2_GlobalDefWriter *g)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    uint32_t empty = str_ref(x, "");
    for (uint32_t i = 0; i < x->nregions && rc == OTF2_SUCCESS; i++) {
        const siot_funcdesc *f = &x->t->funcs[x->region_func[i]];
        unsigned b = SIOT_CLASS_BASE(f->cls);
        int mpi = f->layer == SIOT_LAYER_mpi || f->layer == SIOT_LAYER_mpiio;
        OTF2_RegionRole role = f->layer == SIOT_LAYER_mpi ? OTF2_REGION_ROLE_FUNCTION
                               : b == SIOT_CLASS_read || b == SIOT_CLASS_write ? OTF2_REGION_ROLE_FILE_IO
                                                                               : OTF2_REGION_ROLE_FILE_IO_METADATA;
        uint32_t name = str_ref(x, f->name);
        rc = OTF2_GlobalDefWriter_WriteRegion(g, i, name, name, str_ref(x, siot_layer_name(f->layer)), role,
                                              mpi ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER, OTF2_REGION_FLAG_NONE,
                                              empty, 0, 0);
    }
    return rc;
}

static const char *loc_name(const ox_loc *l, char *name, size_t cap)
{
    if (l->ref == l->rank)
        snprintf(name, cap, "rank %u", l->rank);
    else
        snprintf(name, cap, "rank %u thread %" PRId64, l->rank, l->thread);
    return name;
}

/* The strings of the definitions, made before any is written: readers
 * (Python's otf2) resolve a definition's strings as they read it. */
static void intern_defs(ox *x)
{
    static const char *const fixed[] = {"", "job", "machine", "MPI", "MPI ranks", "MPI_COMM_WORLD", "MPI_COMM_SELF"};
    char name[64];
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        str_ref(x, fixed[i]);
    for (size_t i = 0; i < sizeof P / sizeof *P; i++)
        str_ref(x, P[i].id), str_ref(x, P[i].name);
    for (uint32_t r = 0; r < x->t->nranks; r++) {
        snprintf(name, sizeof name, "rank %u", r);
        str_ref(x, name);
    }
    for (uint32_t i = 0; i < x->nlocs; i++)
        str_ref(x, loc_name(&x->locs[i], name, sizeof name));
    for (uint32_t i = 0; i < x->nregions; i++) {
        const siot_funcdesc *f = &x->t->funcs[x->region_func[i]];
        str_ref(x, f->name), str_ref(x, siot_layer_name(f->layer));
    }
    for (uint32_t i = 0; i < x->files.nrows; i++)
        str_ref(x, x->files.rows[i].name);
}

/* The system tree, a process per rank, its locations. */
static OTF2_ErrorCode def_locations(ox *x, OTF2_GlobalDefWriter *g)
{
    OTF2_ErrorCode rc = OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, str_ref(x, "job"), str_ref(x, "machine"),
                                                                  OTF2_UNDEFINED_SYSTEM_TREE_NODE);
    char name[64];
    for (uint32_t r = 0; r < x->t->nranks && rc == OTF2_SUCCESS; r++) {
        snprintf(name, sizeof name, "rank %u", r);
        rc = OTF2_GlobalDefWriter_WriteLocationGroup(g, r, str_ref(x, name), OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                     OTF2_UNDEFINED_LOCATION_GROUP);
    }
    for (uint32_t i = 0; i < x->nlocs && rc == OTF2_SUCCESS; i++) {
        const ox_loc *l = &x->locs[i];
        rc = OTF2_GlobalDefWriter_WriteLocation(g, l->ref, str_ref(x, loc_name(l, name, sizeof name)),
                                                OTF2_LOCATION_TYPE_CPU_THREAD, l->nev, l->rank);
    }
    return rc;
}

static OTF2_ErrorCode write_defs(ox *x)
{
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(x->ar);
    if (!g)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    intern_defs(x);
    uint32_t nstrs = x->nstrs;
    OTF2_ErrorCode rc = OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, x->end + 1, OTF2_UNDEFINED_TIMESTAMP);
    for (uint32_t i = 0; i < nstrs && rc == OTF2_SUCCESS; i++)
        rc = OTF2_GlobalDefWriter_WriteString(g, i, x->strs[i]);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_GlobalDefWriter_WriteParadigm(g, OTF2_PARADIGM_MPI, str_ref(x, "MPI"), OTF2_PARADIGM_CLASS_PROCESS);
    if (rc == OTF2_SUCCESS)
        rc = def_locations(x, g);
    if (rc == OTF2_SUCCESS)
        rc = def_regions(x, g);
    if (rc == OTF2_SUCCESS)
        rc = def_io(x, g);
    if (rc == OTF2_SUCCESS)
        rc = def_comms(x, g, x->t->nranks);
    if (rc == OTF2_SUCCESS && x->nstrs != nstrs) /* a string intern_defs missed: defined after its use */
        rc = OTF2_ERROR_INVALID_DATA;
    return x->oom && rc == OTF2_SUCCESS ? OTF2_ERROR_MEM_ALLOC_FAILED : rc;
}

/* ----------------------------------------------------------- the archive */

/* Every location of the world has an event file (an empty one for a rank
 * without events) and a local definitions file, as readers expect. */
static OTF2_ErrorCode close_files(ox *x)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    uint8_t *seen = calloc(x->t->nranks + 1, 1);
    if (!seen)
        return OTF2_ERROR_MEM_ALLOC_FAILED;
    for (uint32_t i = 0; i < x->nlocs; i++)
        if (x->locs[i].ref < x->t->nranks)
            seen[x->locs[i].ref] = 1;
    for (uint32_t r = 0; r < x->t->nranks && rc == OTF2_SUCCESS; r++) {
        if (!seen[r]) {
            if (grow((void **)&x->locs, &x->caplocs, x->nlocs + 1, sizeof *x->locs) != 0) {
                free(seen);
                return OTF2_ERROR_MEM_ALLOC_FAILED;
            }
            x->locs[x->nlocs++] = (ox_loc){r, 0, r, 0};
            OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(x->ar, r);
            rc = w ? OTF2_Archive_CloseEvtWriter(x->ar, w) : OTF2_ERROR_MEM_ALLOC_FAILED;
        }
    }
    free(seen);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_CloseEvtFiles(x->ar);
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_OpenDefFiles(x->ar);
    for (uint32_t i = 0; i < x->nlocs && rc == OTF2_SUCCESS; i++) {
        OTF2_DefWriter *d = OTF2_Archive_GetDefWriter(x->ar, x->locs[i].ref);
        rc = d ? OTF2_Archive_CloseDefWriter(x->ar, d) : OTF2_ERROR_MEM_ALLOC_FAILED;
    }
    if (rc == OTF2_SUCCESS)
        rc = OTF2_Archive_CloseDefFiles(x->ar);
    return rc;
}

/* The reasons records were not written, for the note. */
static void skipped_note(const ox *x, char *note, size_t cap)
{
    size_t n = strlen(note);
    for (int i = 0; i < NSKIP && n < cap; i++)
        if (x->skipped[i]) {
            snprintf(note + n, cap - n, "; OTF2: %" PRIu64 " %s kept as regions only", x->skipped[i], SKIP_WHY[i]);
            n = strlen(note);
        }
}

static void ox_free(ox *x)
{
    siot_files_free(&x->files);
    siot_vbuf_free(&x->scratch);
    for (uint32_t i = 0; i < x->nstrs; i++)
        free(x->strs[i]);
    for (uint32_t i = 0; i < x->ncomms; i++)
        free(x->comms[i].m);
    free(x->strs);
    free(x->slots);
    free(x->regions);
    free(x->region_func);
    free(x->locs);
    free(x->live);
    free(x->comms);
    free(x->rcomm);
    free(x->ropen);
}

/* DIR made when missing; an archive already in it refused. */
static int open_archive(ox *x, const char *dir, char *err, size_t errlen)
{
    char anchor[4096];
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (access(anchor, F_OK) == 0) {
        snprintf(err, errlen, "%s already holds an archive (traces.otf2): remove it or name another directory", dir);
        return 1;
    }
    if (mkdir(dir, 0777) != 0 && access(dir, W_OK) != 0) {
        snprintf(err, errlen, "cannot make or write to %s", dir);
        return -1;
    }
    x->ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX,
                              OTF2_COMPRESSION_NONE);
    if (!x->ar || OTF2_Archive_SetFlushCallbacks(x->ar, &FLUSH, NULL) != OTF2_SUCCESS ||
        OTF2_Archive_SetSerialCollectiveCallbacks(x->ar) != OTF2_SUCCESS ||
        OTF2_Archive_SetCreator(x->ar, "siotrace") != OTF2_SUCCESS ||
        OTF2_Archive_OpenEvtFiles(x->ar) != OTF2_SUCCESS) {
        snprintf(err, errlen, "OTF2: cannot open an archive in %s", dir);
        return -1;
    }
    return 0;
}

/* After the walk's limit: nothing is made for an export refused. */
static int ox_begin(void *self, const siot_trace *t, const uint8_t *has, char *err, size_t errlen)
{
    (void)t, (void)has;
    ox *x = self;
    return open_archive(x, x->dir, err, errlen);
}

static int ox_init(ox *x, const siot_trace *t)
{
    memset(x, 0, sizeof *x);
    x->t = t;
    siot_files_init(&x->files);
    siot_vbuf_init(&x->scratch);
    x->regions = calloc(t->nfuncs + 1, sizeof *x->regions);
    x->region_func = calloc(t->nfuncs + 1, sizeof *x->region_func);
    if (!x->regions || !x->region_func)
        return -1;
    comm_of_key(x, "MPI_COMM_WORLD", "MPI_COMM_WORLD");
    comm_of_key(x, "MPI_COMM_SELF", "MPI_COMM_SELF");
    return x->oom ? -1 : 0;
}

int siot_export_otf2(const siot_trace *t, siot_export_opts *o, const char *dir, uint64_t *written, char *err,
                     size_t errlen)
{
    ox x;
    *written = 0;
    if (ox_init(&x, t) != 0) {
        ox_free(&x);
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    x.dir = dir;
    siot_export_sink sink = {ox_begin, ox_event, ox_rank_end, &x};
    siot_export_account a;
    int rc = siot_export_walk(t, o, &sink, &a, written, err, errlen);
    siot_vbuf_free(&a.synth);
    OTF2_ErrorCode orc = OTF2_SUCCESS;
    if (rc == 0 && x.ar && (orc = close_files(&x)) == OTF2_SUCCESS)
        orc = write_defs(&x);
    if (rc == 0 && orc != OTF2_SUCCESS) {
        snprintf(err, errlen, "OTF2: %s", OTF2_Error_GetDescription(orc));
        rc = -1;
    }
    if (x.ar && OTF2_Archive_Close(x.ar) != OTF2_SUCCESS && rc == 0) {
        snprintf(err, errlen, "OTF2: cannot close the archive in %s", dir);
        rc = -1;
    }
    skipped_note(&x, o->note, sizeof o->note);
    ox_free(&x);
    return rc;
}
#endif
