/* compare: two traces event by event, rank by rank (replay/compare.h). */
#include "replay/compare.h"

#include "replay/match.h"

#include <aio.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "core/format.h"
#include "core/names.h"
#include "replay/analyze.h"
#include "replay/walk.h"
#include "replay/json.h"
#include "core/roles.h"
#include "replay/handles.h"
#include "replay/nest.h"

/* Why an event's result is compared by order (render's by_order): it is
 * a read, a seek to the end or a removal inside a library call
 * (siot_diff_filter's reads_by_order), an aio read's completion
 * (aio_reads_by_order), or an MPI_File_delete (deletes_by_order). */
enum { BY_ORDER_IN_CALL = 1, BY_ORDER_AIO = 2, BY_ORDER_DELETE = 3 };

/* What an event's call chain is in: an MPI-IO call; a call left out with
 * what it called (a poll that found nothing, a call the filter leaves out). */
enum { IN_IO = 1, IN_LEFT_OUT = 2, IN_LIB = 4, IN_MPI = 8, IN_DELETE = 16 };

/* A rank's events, filtered: each comes with its index among the kept
 * events and the index of its nearest kept ancestor (-1 when none), which
 * are compared (a left-out event shifts neither), and with its seq and its
 * nearest kept ancestor's, which are printed: the rank's event numbers as
 * `siot dump --jsonl` shows them (from 0, every event of the rank), the
 * numbers ioreplay's --explain and watchdog use too. */
typedef struct fiter {
    siot_iter it;
    const siot_diff_filter *flt;
    int64_t seq, kept;
    rp_nest nest;                /* ancestors (replay/nest.h): keep, kseq the nearest kept one's
                                  * kept index and seq (or -1); flags IN_IO, IN_LEFT_OUT, IN_LIB, IN_MPI */
    int cur_io;                  /* the last event returned is inside an MPI-IO call */
    int cur_delete;              /* ... inside MPI_File_delete */
    int cur_lib;                 /* ... inside an HDF5 or PnetCDF call */
    int64_t cur_ret, cur_bytes;  /* ... and its result and bytes, when rendered */
    size_t par_at, par_len;      /* where render put the parent's kept index in its line */
    const int64_t *left_out;     /* the filter's left-out seqs of this rank, and how many are left */
    uint64_t n_left_out;
    int ended;                   /* an MPI_Abort or _exit was left out: the rank's run ended there */
    rp_idmap order;              /* MPI object id -> its number in creation order */
    rp_idmap objs;               /* no_mpi_in_mpiio: MPI objects made by MPI-IO calls */
    rp_idmap req_status;         /* request id -> what its completion's status holds (enum status_shape) */
    rp_match match;              /* the senders wildcard receives matched (replay/match.h) */
    int no_statuses;             /* the other trace is from before MPI_Waitall's statuses were recorded */
    siot_vbuf scratch;
    int64_t created[RP_NKINDS]; /* objects created so far, per kind */
} fiter;

static void fiter_free(fiter *f)
{
    siot_iter_free(&f->it);
    rp_idmap_free(&f->order);
    rp_idmap_free(&f->objs);
    rp_idmap_free(&f->req_status);
    rp_match_free(&f->match);
    siot_vbuf_free(&f->scratch);
    rp_nest_free(&f->nest);
}

/* first: the first trace's side (the filter's left_out applies to it only) */
static int fiter_init(fiter *f, const siot_trace *t, int64_t rank, const siot_diff_filter *flt, int first)
{
    memset(f, 0, sizeof *f);
    f->flt = flt;
    siot_vbuf_init(&f->scratch);
    if (siot_iter_init(&f->it, t, rank) != 0 || rp_match_init(&f->match, t, rank) != 0) {
        fiter_free(f); /* what was had: the caller frees nothing of a side that failed */
        return -1;
    }
    if (first && flt && flt->left_out && flt->left_out[rank]) {
        f->left_out = flt->left_out[rank];
        f->n_left_out = flt->n_left_out[rank];
    }
    return 0;
}

/* What MPI defines in the status of a completed request, by the call that
 * made it: all of it for receives; the byte count only for MPI-IO (OMPIO
 * leaves source and tag as they were); nothing for sends, collectives,
 * the request-based one-sided calls (MPI_Rget, MPI_Rget_accumulate: Open
 * MPI's osc/rdma completes them with a status it never filled in) and the
 * rest (MPI leaves source, tag and count undefined, and MPICH fills in
 * its own internal messages' values), so those are not compared. */
enum status_shape { STATUS_FULL, STATUS_BYTES, STATUS_UNDEFINED };

static int status_shape(const siot_funcdesc *fd, int inside_io)
{
    unsigned base = SIOT_CLASS_BASE(fd->cls);
    if (inside_io || fd->layer == SIOT_LAYER_mpiio)
        return STATUS_BYTES;
    if (siot_arg_index(fd, SIOT_ROLE_win) >= 0)
        return STATUS_UNDEFINED;
    return base == SIOT_CLASS_recv || base == SIOT_CLASS_sendrecv ? STATUS_FULL : STATUS_UNDEFINED;
}

/* A request MPI_Cancel was asked to cancel: whether it was, and so what its
 * status holds, is timing (a receive matched before the cancel came). */
static int cancelled(fiter *f, const siot_funcdesc *fd, const siot_event *e, const siot_ctx *c)
{
    if (SIOT_CLASS_BASE(fd->cls) != SIOT_CLASS_cancel)
        return 0;
    int64_t id = siot_arg_int(e, fd, c, SIOT_ROLE_reqptr, -1);
    return id >= 0 && rp_idmap_in_range(RP_K_REQ, id) ? rp_idmap_set(&f->req_status, RP_K_REQ, id, STATUS_UNDEFINED) : 0;
}

/* The event is one the caller said to leave out (the seqs are ascending). */
static int left_out(fiter *f, int64_t seq)
{
    while (f->n_left_out && *f->left_out < seq)
        f->left_out++, f->n_left_out--;
    return f->n_left_out && *f->left_out == seq;
}

/* The next kept event: its kept index and its parent's (compared), its seq
 * and its parent's (printed). */
static const siot_node *fiter_next(fiter *f, siot_ctx *c, int64_t *index, int64_t *parent, int64_t *seq,
                                   int64_t *parent_seq)
{
    const siot_node *n;
    while ((n = siot_iter_next(&f->it, c))) {
        const siot_trace *t = f->it.t;
        const siot_funcdesc *fd = &t->funcs[n->u.ev.func];
        const rp_frame *up = rp_nest_enter(&f->nest, rp_parent_seq(&n->u.ev, c, f->seq));
        int64_t anc = up ? up->keep : -1, anc_seq = up ? up->kseq : -1;
        int io = up ? up->flags & IN_IO : 0, del = up ? up->flags & IN_DELETE : 0;
        int lib = up ? up->flags & IN_LIB : 0;
        /* At the POSIX level, the I/O that an MPI library's progress engine
         * does inside the program's MPI calls (Open MPI's OMPIO polling
         * aio_error for an MPI_File_iwrite_all inside MPI_Barrier) is
         * reissued by the replay as its own POSIX calls, after the MPI
         * call: compared without that parent. */
        if (up && up->flags & IN_MPI && f->flt && f->flt->no_mpi_in_mpiio &&
            (fd->layer == SIOT_LAYER_posix || fd->layer == SIOT_LAYER_stdio))
            anc = anc_seq = -1;
        /* a poll that found nothing (a replay does not reissue it) and a call
         * the filter leaves out are left out with what they called (the
         * aio_error calls of MPI-IO's poll functions in MPI_Test) */
        int left = (up && up->flags & IN_LEFT_OUT) || rp_poll_found_nothing(fd, &n->u.ev, c) ||
                   left_out(f, f->seq);
        unsigned base = SIOT_CLASS_BASE(fd->cls);
        f->ended |= left && SIOT_CLASS_ENDS_RUN(base);
        int keep = !left &&
                   (!f->flt || !f->flt->layers || (f->flt->layers >> fd->layer & 1)) &&
                   !(f->flt && f->flt->outermost && anc >= 0) &&
                   !(f->flt && f->flt->no_mpi_in_mpiio && io && fd->layer == SIOT_LAYER_mpi);
        if (rp_objs_note(&f->req_status, fd, &n->u.ev, c, status_shape(fd, io), &f->scratch) != 0 ||
            cancelled(f, fd, &n->u.ev, c) != 0) {
            f->it.err = "out of memory";
            return NULL;
        }
        /* an MPI call on an object an MPI-IO call made is the library's too */
        if (f->flt && f->flt->no_mpi_in_mpiio && (keep = rp_objs_keep(&f->objs, fd, &n->u.ev, c, keep, io, &f->scratch)) < 0) {
            f->it.err = "out of memory";
            return NULL;
        }
        rp_frame *me = rp_nest_push(&f->nest, f->seq);
        if (!me) {
            f->it.err = "out of memory";
            return NULL;
        }
        me->keep = keep ? f->kept : anc;
        me->kseq = keep ? f->seq : anc_seq;
        int in_lib = lib || fd->layer == SIOT_LAYER_hdf5 || fd->layer == SIOT_LAYER_pnetcdf;
        me->flags = (uint8_t)((io || fd->layer == SIOT_LAYER_mpiio ? IN_IO : 0) | (left ? IN_LEFT_OUT : 0) |
                              (in_lib ? IN_LIB : 0) | (!io && fd->layer == SIOT_LAYER_mpi ? IN_MPI : 0) |
                              (del || siot_is_mpi_delete(fd) ? IN_DELETE : 0));
        *seq = f->seq++;
        if (!keep)
            continue;
        *index = f->kept++;
        *parent = anc;
        *parent_seq = anc_seq;
        f->cur_io = io;
        f->cur_delete = del != 0;
        f->cur_lib = lib;
        return n;
    }
    return NULL;
}

/* A path as ioreplay uses it: inside the run's working directory (the
 * trace's note cwd) relative to it, leading "/" dropped, "." and ".."
 * resolved without climbing above the root (replay/rp.h, rp_path). */
void siot_sandbox_path(const char *cwd, const char *s, size_t n, siot_vbuf *o)
{
    size_t start = o->len, k = siot_path_under(cwd, s, n);
    s += k, n -= k; /* the directory itself becomes "." below */
    for (size_t i = 0; i < n;) {
        while (i < n && s[i] == '/')
            i++;
        size_t j = i;
        while (j < n && s[j] != '/')
            j++;
        if (j - i == 2 && s[i] == '.' && s[i + 1] == '.') {
            while (o->len > start && o->data[o->len - 1] != '/')
                o->len--;
            if (o->len > start)
                o->len--;
        } else if (j > i && !(j - i == 1 && s[i] == '.')) {
            if (o->len > start)
                siot_vbuf_u8(o, '/');
            siot_vbuf_put(o, s + i, j - i);
        }
        i = j;
    }
    if (o->len == start)
        siot_vbuf_u8(o, '.');
}

static void put_num(siot_vbuf *o, const char *prefix, int64_t v)
{
    char t[32];
    int n = snprintf(t, sizeof t, "%s%" PRId64, prefix, v);
    siot_vbuf_put(o, t, (size_t)n);
}

/* An MPI object id by creation order: #N, or the id itself for a
 * predefined object or one created outside the compared events. */
static void put_ordered_id(siot_vbuf *o, fiter *f, int kind, int create, int64_t id)
{
    if (create && rp_idmap_in_range(kind, id) && rp_idmap_set(&f->order, kind, id, ++f->created[kind]) != 0)
        f->it.err = "out of memory";
    int64_t k = rp_idmap_get(&f->order, kind, id);
    put_num(o, k ? "#" : "", k ? k : id);
}

/* A value that holds MPI object ids (one, or an array), by creation order;
 * 0 when the role holds none. */
static int put_ordered(siot_vbuf *o, fiter *f, unsigned role, const siot_value *v)
{
    int kind = rp_kind_created(role), create = kind >= 0;
    if (!create)
        kind = rp_kind_used(role);
    if (kind < 0 || !rp_kind_is_mpi(kind) || (v->kind != SIOT_V_INT && v->kind != SIOT_V_ARR))
        return 0;
    if (v->kind == SIOT_V_INT) {
        put_ordered_id(o, f, kind, create, v->i);
        return 1;
    }
    siot_vbuf_u8(o, '[');
    for (uint32_t i = 0; i < v->n; i++) {
        if (i)
            siot_vbuf_u8(o, ',');
        put_ordered_id(o, f, kind, create, v->arr[i]);
    }
    siot_vbuf_u8(o, ']');
    return 1;
}

static int has_status(const siot_funcdesc *f) { return siot_arg_index(f, SIOT_ROLE_status) >= 0; }

/* MPI_Waitany/Waitsome/Testany/Testsome: which of the array's requests
 * the call completed is timing, which a replay makes happen by giving the
 * call only those (replay/rp.h rp_hold_others). The array is compared at
 * those entries: out holds them, and the function answers 1 (0: not such a
 * call, or too many). */
enum { MAX_COMPLETED = 1024 };

static int completed_requests(const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, siot_vbuf *scratch,
                              int64_t *out, uint32_t *nout, uint32_t *arr_at)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    int arr = -1, idx = -1, idxs = -1;
    for (uint32_t k = 0; k < f->nargs && k < e->nargs; k++) {
        unsigned r = f->argroles[k];
        arr = r == SIOT_ROLE_reqarr && arr < 0 ? (int)k : arr;
        idx = r == SIOT_ROLE_outint && idx < 0 ? (int)k : idx;
        idxs = r == SIOT_ROLE_outintarr && idxs < 0 ? (int)k : idxs;
    }
    if ((base != SIOT_CLASS_wait && base != SIOT_CLASS_test) || arr < 0 || idx < 0)
        return 0;
    siot_value reqs, done;
    siot_vbuf second;
    siot_vbuf_init(&second);
    int ok = siot_eval(e->args[arr], c, scratch, &reqs) == 0 && reqs.kind == SIOT_V_ARR &&
             siot_eval(e->args[idxs >= 0 ? idxs : idx], c, &second, &done) == 0;
    uint32_t n = 0, nd = ok ? (done.kind == SIOT_V_ARR ? done.n : done.kind == SIOT_V_INT) : 0;
    for (uint32_t k = 0; ok && k < nd && n < MAX_COMPLETED; k++) {
        int64_t i = done.kind == SIOT_V_ARR ? done.arr[k] : done.i;
        if (i >= 0 && i < (int64_t)reqs.n)
            out[n++] = reqs.arr[i];
    }
    siot_vbuf_free(&second);
    *nout = n;
    *arr_at = (uint32_t)arr;
    return ok && nd <= MAX_COMPLETED;
}

/* An *at call's directory is ignored by the kernel when its path is
 * absolute: compared as AT_FDCWD (-100), which the replay passes then, its
 * path made relative to its root (rp_dirfd). */
static int64_t dirfd_in_effect(const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, uint32_t k, int64_t id,
                               siot_vbuf *scratch)
{
    int kp = siot_dirfd_path_index(f, (int)k);
    siot_value p;
    if (kp < 0 || (uint32_t)kp >= e->nargs)
        return id;
    return siot_eval(e->args[kp], c, scratch, &p) == 0 && p.kind == SIOT_V_STR && p.slen && p.s[0] == '/' ? -100 : id;
}

/* A receive or probe posted with MPI_ANY_SOURCE or MPI_ANY_TAG is compared
 * as posted for the source and tag it matched, which is how a replay posts
 * it (replay/match.h): the run's wildcard and the replay's sender are the
 * same call when the replay matched the run's sender. *src and *tag: the
 * indices of its source and tag arguments (-1: none). */
static void wildcard_args(const siot_funcdesc *f, int *src, int *tag)
{
    unsigned base = SIOT_CLASS_BASE(f->cls);
    *src = *tag = -1;
    if (f->layer != SIOT_LAYER_mpi || (base != SIOT_CLASS_recv && base != SIOT_CLASS_sendrecv && base != SIOT_CLASS_probe))
        return;
    for (uint32_t k = 0; k < f->nargs; k++) {
        if (f->argroles[k] == SIOT_ROLE_peer)
            *src = (int)k;
        if (f->argroles[k] == SIOT_ROLE_tag)
            *tag = (int)k;
    }
}

static int wildcard_matched(fiter *fi, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, int64_t *s,
                            int64_t *t)
{
    int ks = siot_arg_index(f, SIOT_ROLE_status);
    siot_value st;
    siot_vbuf b;
    if (ks >= 0 && (uint32_t)ks < e->nargs) {
        siot_vbuf_init(&b);
        int ok = siot_eval(e->args[ks], c, &b, &st) == 0 && rp_match_status(&st, s, t);
        siot_vbuf_free(&b);
        return ok;
    }
    int64_t req = siot_arg_int(e, f, c, SIOT_ROLE_newreq, -1);
    return req >= 0 && !strstr(f->name, "_init") && rp_match_request(&fi->match, fi->seq - 1, req, s, t);
}

/* Whether a trace records the statuses of MPI_Waitall and the like (role
 * statusarr: traces from before do not; such a trace is compared with a
 * newer one without them). */
static int records_statuses(const siot_trace *t)
{
    for (uint32_t i = 0; i < t->nfuncs; i++)
        if (siot_arg_index(&t->funcs[i], SIOT_ROLE_statusarr) >= 0)
            return 1;
    return 0;
}

/* The end of an event's rendering, its result: "} ret=R errno=E bytes=B",
 * or, for a result compared by order (by_order, found so), what kind it is
 * without the value. Returns the length written into head. */
static int result_text(const siot_trace *t, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c,
                       int by_order, char *head, size_t n)
{
    int64_t ret = siot_eval_int(e->ret, c, 0), err = siot_eval_int(e->err, c, 0);
    if (by_order == BY_ORDER_DELETE && siot_is_mpi_delete(f) && siot_deleted_or_gone(t->flavour, ret))
        return snprintf(head, n, "} ret=(deleted or gone, by order)");
    if (by_order == BY_ORDER_DELETE && (f->layer == SIOT_LAYER_posix || f->layer == SIOT_LAYER_stdio) &&
        (ret == 0 || err == ENOENT))
        return snprintf(head, n, "} ret=(found or gone, by order)");
    if (by_order && by_order != BY_ORDER_DELETE && ret >= 0 &&
        (SIOT_CLASS_BASE(f->cls) == SIOT_CLASS_read || by_order == BY_ORDER_AIO || siot_seeks_to_end(f, e, c)))
        return snprintf(head, n, "} ret=(by order) errno=%" PRId64, err);
    if (by_order == BY_ORDER_IN_CALL && siot_is_removal(f) && (ret == 0 || err == ENOENT)) /* replay/rp.h, removal_by_order */
        return snprintf(head, n, "} ret=(removed or gone, by order)");
    return snprintf(head, n, "} ret=%" PRId64 " errno=%" PRId64 " bytes=%" PRId64, ret, err,
                    siot_eval_int(e->bytes, c, 0));
}

/* One event rendered as its JSON line without rank and seq: equal lines
 * mean equal events. Its parent is the kept index (fi->par_at, par_len say
 * where, for a printed line to show the seq instead). */
static int render(fiter *fi, const siot_node *n, const siot_ctx *c, int64_t parent, int by_order, siot_vbuf *o,
                  siot_vbuf *scratch)
{
    const siot_trace *t = fi->it.t;
    int sandbox = fi->flt && fi->flt->sandbox_paths, ordered = fi->flt && fi->flt->creation_order;
    const siot_event *e = &n->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    char head[128];
    o->len = 0;
    siot_json_str(o, f->name, strlen(f->name));
    int hn = snprintf(head, sizeof head, " parent=%" PRId64 " args={", parent);
    fi->par_at = o->len + 8; /* after " parent=" */
    fi->par_len = (size_t)hn - 8 - 7; /* before " args={" */
    siot_vbuf_put(o, head, (size_t)hn);
    int shape = has_status(f) ? rp_objs_used(&fi->req_status, f, e, c, &fi->scratch) : STATUS_FULL;
    int64_t completed[MAX_COMPLETED];
    uint32_t ncompleted = 0, reqs_at = 0;
    int only_completed = completed_requests(f, e, c, &fi->scratch, completed, &ncompleted, &reqs_at);
    if (only_completed && has_status(f)) {
        shape = STATUS_FULL;
        for (uint32_t i = 0; i < ncompleted; i++)
            if (rp_idmap_get(&fi->req_status, RP_K_REQ, completed[i]) > shape)
                shape = (int)rp_idmap_get(&fi->req_status, RP_K_REQ, completed[i]);
    }
    int wsrc, wtag, wknown = -1;
    int64_t msrc = -1, mtag = -1;
    wildcard_args(f, &wsrc, &wtag);
    for (uint32_t k = 0; k < e->nargs; k++) {
        siot_value v;
        if (siot_eval(e->args[k], c, scratch, &v) != 0)
            return -1;
        if (fi->no_statuses && f->argroles[k] == SIOT_ROLE_statusarr)
            continue;
        if (((int)k == wsrc || (int)k == wtag) && v.kind == SIOT_V_INT && v.i == -1) {
            if (wknown < 0)
                wknown = wildcard_matched(fi, f, e, c, &msrc, &mtag);
            if (wknown && (int)k == wsrc && msrc >= 0)
                v.i = msrc;
            if (wknown && (int)k == wtag && mtag >= 0)
                v.i = mtag;
        }
        if (only_completed && k == reqs_at) {
            v.arr = completed;
            v.n = ncompleted;
        }
        if (sandbox && f->argroles[k] == SIOT_ROLE_dirfd && v.kind == SIOT_V_INT)
            v.i = dirfd_in_effect(f, e, c, k, v.i, scratch);
        if (k)
            siot_vbuf_u8(o, ',');
        siot_vbuf_put(o, f->argnames[k], strlen(f->argnames[k]));
        siot_vbuf_u8(o, ':');
        if (sandbox && f->argroles[k] == SIOT_ROLE_path && v.kind == SIOT_V_STR)
            siot_sandbox_path(siot_trace_get_kv(t, "cwd"), v.s, v.slen, o);
        else if (ordered && put_ordered(o, fi, f->argroles[k], &v))
            continue;
        else if (shape == STATUS_BYTES && f->argroles[k] == SIOT_ROLE_status && v.kind == SIOT_V_ARR && v.n == 3) {
            put_num(o, "{\"bytes\":", v.arr[2]);
            siot_vbuf_u8(o, '}');
        } else if (shape == STATUS_UNDEFINED && f->argroles[k] == SIOT_ROLE_status && v.kind == SIOT_V_ARR) {
            siot_vbuf_put(o, "\"undefined\"", 11);
        } else {
            siot_json_value(o, f->argroles[k], &v);
        }
    }
    fi->cur_ret = siot_eval_int(e->ret, c, 0);
    fi->cur_bytes = siot_eval_int(e->bytes, c, 0);
    hn = result_text(t, f, e, c, by_order, head, sizeof head);
    siot_vbuf_put(o, head, (size_t)hn);
    return 0;
}

/* The call site of an event as its first frames ("s3: prog+0x1234 ..."). */
static void print_site(FILE *out, const siot_trace *t, uint32_t site)
{
    if (!site || site > t->nsites)
        return;
    const siot_site *s = &t->sites[site - 1];
    fprintf(out, "  call site s%u in the first trace:", site);
    for (uint32_t k = 0; k < s->depth && k < 4; k++) {
        uint32_t m = SIOT_ADDR_MODULE(s->addrs[k]);
        const char *path = m < t->nmodules ? t->modules[m] : "?", *base = strrchr(path, '/');
        fprintf(out, " %s+0x%llx", base ? base + 1 : path, (unsigned long long)SIOT_ADDR_OFFSET(s->addrs[k]));
    }
    fputc('\n', out);
}

/* A rendered line as printed: "< " or "> ", its parent as the seq. */
static void print_line(FILE *out, const char *mark, const fiter *f, const siot_vbuf *l, int64_t parent_seq)
{
    size_t rest = f->par_at + f->par_len;
    fprintf(out, "%s %.*s%" PRId64 "%.*s\n", mark, (int)f->par_at, (const char *)l->data, parent_seq,
            (int)(l->len - rest), (const char *)l->data + rest);
}

typedef struct cmp_state {
    const siot_trace *a, *b;
    const siot_diff_filter *flt;
    FILE *out;
    uint64_t shown, max_shown, found, compared, order_results, aio_by_order, aio_order_results;
    siot_vbuf la, lb, sa, sb;
    char *err;
    size_t errlen;
} cmp_state;

/* The second trace's n is an MPI_Finalize and its last event: what a
 * replay ends with where the run ended in MPI_Abort or _exit (not
 * reissued, a call the replay lists: it ends the rank's events there and
 * finalizes MPI to write its report), or where the run was ended (a
 * partial trace: the launcher killed the rank after another's abort). */
static int ends_with_finalize(fiter *b, const siot_node *n, siot_ctx *c)
{
    if (SIOT_CLASS_BASE(b->it.t->funcs[n->u.ev.func].cls) != SIOT_CLASS_finalize)
        return 0;
    int64_t x, p, s, ps;
    return fiter_next(b, c, &x, &p, &s, &ps) == NULL && !b->it.err;
}

/* An aio_return of a read request (the aiocb's recorded opcode, its
 * fourth field: [fd id, offset, nbytes, lio_opcode]), whose size the
 * moment of its transfer decided (siot_diff_filter's aio_reads_by_order). */
static int aio_read_result(const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, siot_vbuf *scratch)
{
    int k = siot_arg_index(f, SIOT_ROLE_aiocb);
    if (k < 0 || SIOT_CLASS_BASE(f->cls) != SIOT_CLASS_wait)
        return 0;
    siot_value v;
    return siot_eval(e->args[k], c, scratch, &v) == 0 && v.kind == SIOT_V_ARR && v.n >= 4 && v.arr[3] == LIO_READ;
}

/* One rank: events compared pairwise, each difference counted (the first
 * max_shown printed); a trace that ends first ends the rank's comparison. */
static int compare_rank(cmp_state *k, uint32_t r)
{
    fiter ia, ib;
    int rc = 0;
    if (fiter_init(&ia, k->a, r, k->flt, 1) != 0) {
        snprintf(k->err, k->errlen, "out of memory");
        return -1;
    }
    if (fiter_init(&ib, k->b, r, k->flt, 0) != 0) {
        fiter_free(&ia);
        snprintf(k->err, k->errlen, "out of memory");
        return -1;
    }
    /* a trace from before the statuses of MPI_Waitall and the like: they
     * are compared on neither side, nor do they say what a receive matched */
    ia.no_statuses = ib.no_statuses = records_statuses(k->a) != records_statuses(k->b);
    ia.match.no_statuses = ib.match.no_statuses = ia.no_statuses;
    for (;;) {
        siot_ctx ca, cb;
        int64_t xa = 0, xb = 0, pa = -1, pb = -1, sa = -1, sb = -1, psa = -1, psb = -1;
        const siot_node *na = fiter_next(&ia, &ca, &xa, &pa, &sa, &psa), *nb = fiter_next(&ib, &cb, &xb, &pb, &sb, &psb);
        if (ia.it.err || ib.it.err) {
            snprintf(k->err, k->errlen, "rank %u: %s", r, ia.it.err ? ia.it.err : ib.it.err);
            rc = -1;
            break;
        }
        if (!na && !nb)
            break;
        if (!na && nb && (ia.ended || (k->a->flags & SIOT_TF_PARTIAL)) && ends_with_finalize(&ib, nb, &cb))
            break;
        if (!na || !nb) {
            k->found++;
            if (k->shown++ < k->max_shown)
                fprintf(k->out, "rank %u: the %s trace ends, the %s goes on at its event %" PRId64 "\n", r,
                        na ? "second" : "first", na ? "first" : "second", na ? sa : sb);
            break;
        }
        /* the first trace says whether a read was the MPI-IO library's (a
         * replay at the POSIX level made it itself), or HDF5's or PnetCDF's
         * (at the default level, their MPI-IO calls are what is reissued) */
        int by_order = k->flt && ((k->flt->reads_by_order == SIOT_BY_ORDER_IN_MPIIO && ia.cur_io) ||
                                  (k->flt->reads_by_order == SIOT_BY_ORDER_IN_LIBRARY && ia.cur_lib))
                           ? BY_ORDER_IN_CALL
                           : 0;
        if (k->flt && k->flt->aio_reads_by_order && aio_read_result(&k->a->funcs[na->u.ev.func], &na->u.ev, &ca, &k->sa))
            by_order = BY_ORDER_AIO;
        if (k->flt && k->flt->deletes_by_order && (ia.cur_delete || siot_is_mpi_delete(&k->a->funcs[na->u.ev.func])))
            by_order = BY_ORDER_DELETE;
        if (render(&ia, na, &ca, pa, by_order, &k->la, &k->sa) || render(&ib, nb, &cb, pb, by_order, &k->lb, &k->sb)) {
            snprintf(k->err, k->errlen, "rank %u event %" PRId64 ": a value cannot be evaluated", r, sa);
            rc = -1;
            break;
        }
        k->compared++;
        if (k->la.len == k->lb.len && memcmp(k->la.data, k->lb.data, k->la.len) == 0) {
            if (by_order == BY_ORDER_AIO && ia.cur_ret >= 0) {
                k->aio_by_order++;
                k->aio_order_results += ia.cur_ret != ib.cur_ret;
            } else {
                k->order_results += by_order && (ia.cur_ret != ib.cur_ret || ia.cur_bytes != ib.cur_bytes);
            }
            continue;
        }
        k->found++;
        if (k->shown++ < k->max_shown) {
            fprintf(k->out, "rank %u event %" PRId64 " differs (event %" PRId64 " of the second trace):\n", r, sa, sb);
            print_line(k->out, "<", &ia, &k->la, psa);
            print_line(k->out, ">", &ib, &k->lb, psb);
            print_site(k->out, k->a, na->u.ev.site);
        }
        if (k->max_shown <= 1)
            break;
    }
    fiter_free(&ia);
    fiter_free(&ib);
    return rc;
}

int siot_compare(const siot_trace *a, const siot_trace *b, const siot_diff_filter *flt, uint64_t max_shown, FILE *out,
                 siot_compare_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (a->nranks != b->nranks) {
        fprintf(out, "rank counts differ: %u and %u\n", a->nranks, b->nranks);
        res->differences = 1;
        return 1;
    }
    cmp_state k = {.a = a, .b = b, .flt = flt, .out = out, .max_shown = max_shown, .err = err, .errlen = errlen};
    siot_vbuf_init(&k.la);
    siot_vbuf_init(&k.lb);
    siot_vbuf_init(&k.sa);
    siot_vbuf_init(&k.sb);
    int rc = 0;
    for (uint32_t r = 0; r < a->nranks && rc == 0 && (max_shown > 1 || k.found == 0); r++)
        rc = compare_rank(&k, r);
    siot_vbuf_free(&k.la);
    siot_vbuf_free(&k.lb);
    siot_vbuf_free(&k.sa);
    siot_vbuf_free(&k.sb);
    res->compared = k.compared;
    res->differences = k.found;
    res->order_results = k.order_results;
    res->aio_by_order = k.aio_by_order;
    res->aio_order_results = k.aio_order_results;
    return rc < 0 ? -1 : k.found ? 1 : 0;
}

int siot_diff(const siot_trace *a, const siot_trace *b, const siot_diff_filter *flt, FILE *out, char *err,
              size_t errlen)
{
    siot_compare_result res;
    return siot_compare(a, b, flt, 1, out, &res, err, errlen);
}

int siot_compare_each(const siot_trace *t, uint32_t r, const siot_diff_filter *flt, siot_kept_fn fn, void *user,
                      char *err, size_t errlen)
{
    fiter it;
    if (fiter_init(&it, t, r, flt, 1) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    siot_ctx c;
    int64_t x, p, s, ps;
    const siot_node *n;
    while ((n = fiter_next(&it, &c, &x, &p, &s, &ps)))
        fn(user, &t->funcs[n->u.ev.func], siot_eval_int(n->u.ev.bytes, &c, 0));
    int rc = it.it.err ? -1 : 0;
    if (rc)
        snprintf(err, errlen, "rank %u: %s", r, it.it.err);
    fiter_free(&it);
    return rc;
}
