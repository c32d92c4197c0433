/* files: exact per-file rows (see files.h for why they are exact and what
 * they cost). */
#include "replay/files.h"

#include <aio.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compress/xmerge.h"
#include "core/expr.h"
#include "core/hash.h"
#include "core/names.h"
#include "core/roles.h"
#include "replay/hmap.h"
#include "replay/json.h"

/* ------------------------------------------------------------ rank sets */

/* First range whose hi + 1 >= rank (where rank joins or goes before). */
static uint32_t span_at(const siot_rankset *s, int32_t rank)
{
    uint32_t lo = 0, hi = s->n;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if ((int64_t)s->span[mid][1] + 1 < rank)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int siot_rankset_add(siot_rankset *s, int32_t rank)
{
    uint32_t i = span_at(s, rank);
    if (i < s->n && s->span[i][0] <= rank && rank <= s->span[i][1])
        return 0;
    if (i < s->n && s->span[i][1] + 1 == rank) { /* extends range i upwards, maybe into i + 1 */
        s->span[i][1] = rank;
        if (i + 1 < s->n && s->span[i + 1][0] == rank + 1) {
            s->span[i][1] = s->span[i + 1][1];
            memmove(s->span + i + 1, s->span + i + 2, (s->n - i - 2) * sizeof *s->span);
            s->n--;
        }
        return 0;
    }
    if (i < s->n && s->span[i][0] == rank + 1) {
        s->span[i][0] = rank;
        return 0;
    }
    if (s->n == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 2;
        int32_t(*v)[2] = realloc(s->span, cap * sizeof *v);
        if (!v)
            return -1;
        s->span = v;
        s->cap = cap;
    }
    memmove(s->span + i + 1, s->span + i, (s->n - i) * sizeof *s->span);
    s->span[i][0] = s->span[i][1] = rank;
    s->n++;
    return 0;
}

uint64_t siot_rankset_count(const siot_rankset *s)
{
    uint64_t n = 0;
    for (uint32_t i = 0; i < s->n; i++)
        n += (uint64_t)(s->span[i][1] - s->span[i][0]) + 1;
    return n;
}

void siot_rankset_format(const siot_rankset *s, siot_vbuf *out)
{
    char t[32];
    for (uint32_t i = 0; i < s->n; i++) {
        int n = s->span[i][0] == s->span[i][1]
                    ? snprintf(t, sizeof t, "%s%d", i ? "," : "", s->span[i][0])
                    : snprintf(t, sizeof t, "%s%d-%d", i ? "," : "", s->span[i][0], s->span[i][1]);
        siot_vbuf_put(out, t, (size_t)n);
    }
}

void siot_rankset_free(siot_rankset *s)
{
    free(s->span);
    memset(s, 0, sizeof *s);
}

static int rankset_merge(siot_rankset *into, const siot_rankset *from)
{
    for (uint32_t i = 0; i < from->n; i++)
        for (int64_t r = from->span[i][0]; r <= from->span[i][1]; r++)
            if (siot_rankset_add(into, (int32_t)r) != 0)
                return -1;
    return 0;
}

const char *siot_file_sharing(const siot_filerow *r)
{
    return siot_rankset_count(&r->ranks) > 1 ? "shared" : "unique";
}

/* ------------------------------------------------------------ index */

/* Handles are per rank: fd 3 of rank 0 and fd 3 of rank 1 are two handles,
 * and so are MPI file 0 before and after a reopen (the later open wins). */
enum { HK_NONE = SIOT_HK_NONE, HK_FD = SIOT_HK_FD, HK_STREAM = SIOT_HK_STREAM, HK_MPIFILE = SIOT_HK_MPIFILE,
       HK_HID = SIOT_HK_HID, HK_NCID = SIOT_HK_NCID };

struct siot_files_index {
    uint32_t *names; /* row + 1 by hash of (layer, name); 0 empty */
    uint32_t ncap;
    rp_hmap h; /* a handle's file: its row, -1 when it names no traced file */
};

static uint64_t name_hash(const char *name, uint8_t layer)
{
    uint64_t h = 1469598103934665603ULL ^ layer;
    for (; *name; name++)
        h = (h ^ (uint8_t)*name) * 1099511628211ULL;
    return siot_hash_fmix(h);
}

static void names_insert(siot_files *fs, uint32_t row)
{
    struct siot_files_index *ix = fs->ix;
    uint64_t i = name_hash(fs->rows[row].name, fs->rows[row].layer) & (ix->ncap - 1);
    while (ix->names[i])
        i = (i + 1) & (ix->ncap - 1);
    ix->names[i] = row + 1;
}

static int names_grow(siot_files *fs)
{
    struct siot_files_index *ix = fs->ix;
    uint32_t cap = ix->ncap ? ix->ncap * 2 : 64;
    uint32_t *v = calloc(cap, sizeof *v);
    if (!v)
        return -1;
    free(ix->names);
    ix->names = v;
    ix->ncap = cap;
    for (uint32_t r = 0; r < fs->nrows; r++)
        names_insert(fs, r);
    return 0;
}

static void set_handle(siot_files *fs, int32_t rank, uint8_t kind, int64_t id, int32_t row)
{
    if (!rp_hmap_set(&fs->ix->h, rank, kind, id, row))
        fs->oom = 1;
}

static int32_t find_handle(const siot_files *fs, int32_t rank, uint8_t kind, int64_t id)
{
    const rp_handle *h = kind == HK_NONE ? NULL : rp_hmap_find(&fs->ix->h, rank, kind, id);
    return h ? h->file : -1;
}

/* The row of (name, layer), added when new. */
static int32_t row_for(siot_files *fs, const char *name, uint8_t layer, int exact)
{
    struct siot_files_index *ix = fs->ix;
    if (ix->ncap) {
        uint64_t i = name_hash(name, layer) & (ix->ncap - 1);
        for (; ix->names[i]; i = (i + 1) & (ix->ncap - 1)) {
            siot_filerow *r = &fs->rows[ix->names[i] - 1];
            if (r->layer == layer && strcmp(r->name, name) == 0)
                return (int32_t)(ix->names[i] - 1);
        }
    }
    if (fs->nrows == fs->caprows) {
        uint32_t cap = fs->caprows ? fs->caprows * 2 : 16;
        siot_filerow *v = realloc(fs->rows, cap * sizeof *v);
        if (!v)
            return -1;
        fs->rows = v;
        fs->caprows = cap;
    }
    siot_filerow *r = &fs->rows[fs->nrows];
    memset(r, 0, sizeof *r);
    r->layer = layer;
    r->exact = exact;
    if (!(r->name = strdup(name)))
        return -1;
    fs->nrows++;
    if (fs->nrows * 2 > ix->ncap) {
        if (names_grow(fs) != 0) /* rehashes every row, the new one too */
            return -1;
    } else {
        names_insert(fs, fs->nrows - 1);
    }
    return (int32_t)(fs->nrows - 1);
}

/* ------------------------------------------------------------ events */

uint8_t siot_handle_kind(unsigned role)
{
    switch (role) {
    case SIOT_ROLE_fd:
    case SIOT_ROLE_fdnew:
    case SIOT_ROLE_r_newfd:
        return HK_FD;
    case SIOT_ROLE_stream:
    case SIOT_ROLE_r_newstream:
        return HK_STREAM;
    case SIOT_ROLE_file:
    case SIOT_ROLE_newfile:
    case SIOT_ROLE_closefile:
        return HK_MPIFILE;
    case SIOT_ROLE_hid:
    case SIOT_ROLE_newhid:
    case SIOT_ROLE_closehid:
    case SIOT_ROLE_r_newhid:
        return HK_HID;
    case SIOT_ROLE_ncid:
    case SIOT_ROLE_outncid:
        return HK_NCID;
    }
    return HK_NONE;
}


static int64_t arg_at(siot_files *fs, const siot_event *ev, int k, const siot_ctx *c)
{
    siot_value v;
    if (k < 0 || (uint32_t)k >= ev->nargs || siot_eval(ev->args[k], c, &fs->scratch, &v) != 0 || v.kind != SIOT_V_INT)
        return INT64_MIN;
    return v.i;
}

int siot_is_fcntl_dup(const siot_agg_event *e, siot_vbuf *scratch)
{
    const siot_funcdesc *f = e->fn;
    siot_value v;
    if (siot_arg_index(f, SIOT_ROLE_fcntlarg) < 0 || f->nargs < 2 || siot_agg_arg(e, 1, scratch, &v) != 0 ||
        v.kind != SIOT_V_INT)
        return 0;
    return v.i == F_DUPFD || v.i == F_DUPFD_CLOEXEC;
}

unsigned siot_aio_direction(const siot_agg_event *e, siot_vbuf *scratch, int64_t *fd)
{
    int k = siot_arg_index(e->fn, SIOT_ROLE_aiocb);
    siot_value v;
    if (SIOT_CLASS_BASE(e->fn->cls) != SIOT_CLASS_wait || k < 0 ||
        siot_agg_arg(e, (uint32_t)k, scratch, &v) != 0 || v.kind != SIOT_V_ARR || v.n < 4)
        return 0;
    *fd = v.arr[0];
    return v.arr[3] == LIO_READ ? SIOT_CLASS_read : v.arr[3] == LIO_WRITE ? SIOT_CLASS_write : 0;
}

/* A relative name under an *at call's traced directory descriptor is
 * inside that directory: its row's name goes first. */
static void under_dirfd(siot_files *fs, const siot_agg_event *e, int kpath, const siot_ctx *c)
{
    int64_t dir = fs->name.len && fs->name.data[0] != '/' ? siot_arg_dirfd(&e->node->u.ev, e->fn, c, kpath) : -100;
    int32_t row = dir >= 0 ? find_handle(fs, c->rank, HK_FD, dir) : -1;
    if (row < 0)
        return;
    const char *d = fs->rows[row].name;
    size_t nd = strlen(d), n = fs->name.len;
    siot_vbuf_put(&fs->name, d, nd + 1); /* room: nd + 1 more bytes */
    if (fs->name.oom)
        return;
    memmove(fs->name.data + nd + 1, fs->name.data, n);
    memcpy(fs->name.data, d, nd);
    fs->name.data[nd] = '/';
}

/* The file name an open gives on the rank of c, in fs->name. A name that
 * still varies over a multiplied loop (only in approximate traces, whose
 * loops may be summaries) becomes a pattern and its row is marked inexact. */
static int open_name(siot_files *fs, const siot_agg_event *e, int kpath, const siot_ctx *c)
{
    const siot_expr *path = e->node->u.ev.args[kpath];
    int varies = 0;
    for (unsigned k = 0; k < e->ctx.depth && !varies; k++)
        varies = (e->summed >> k & 1) && siot_x_depends(path, k);
    fs->name.len = 0;
    siot_value v;
    if (varies) {
        siot_agg_event one = *e;
        one.ctx = *c;
        siot_agg_pattern(&one, path, &fs->name);
    } else if (siot_eval(path, c, &fs->scratch, &v) == 0 && v.kind == SIOT_V_STR) {
        siot_vbuf_put(&fs->name, v.s, v.slen);
    } else {
        siot_vbuf_put(&fs->name, "?", 1);
    }
    under_dirfd(fs, e, kpath, c);
    if (!fs->name.oom) /* "d//f" and "d/f" are one file */
        fs->name.len = siot_path_lexical((char *)fs->name.data, fs->name.len);
    siot_vbuf_u8(&fs->name, 0);
    return fs->name.oom ? -1 : !varies;
}

static void touch(siot_files *fs, int32_t row, int32_t rank)
{
    if (row >= 0 && siot_rankset_add(&fs->rows[row].ranks, rank) != 0)
        fs->oom = 1;
}

/* A failed open of the name in fs->name, on rank. */
static void failed_open(siot_files *fs, uint8_t layer, uint64_t calls, int32_t rank)
{
    const char *name = (const char *)fs->name.data;
    uint32_t i = 0;
    while (i < fs->nfailed && (fs->failed[i].layer != layer || strcmp(fs->failed[i].name, name) != 0))
        i++;
    if (i == SIOT_MAX_FAILED) {
        fs->failed_more += calls;
        return;
    }
    if (i == fs->nfailed) {
        siot_failedopen *v = realloc(fs->failed, (i + 1) * sizeof *v);
        if (v)
            fs->failed = v;
        char *copy = v ? strdup(name) : NULL;
        if (!copy) {
            fs->oom = 1;
            return;
        }
        v[i] = (siot_failedopen){.name = copy, .layer = layer};
        fs->nfailed++;
    }
    fs->failed[i].calls += calls;
    if (siot_rankset_add(&fs->failed[i].ranks, rank) != 0)
        fs->oom = 1;
}

/* An open with a path: a new handle on each of the record's ranks (the
 * MPI_File or netCDF id it writes back, else its return), naming the file. */
static void on_open(siot_files *fs, const siot_agg_event *e, int kpath, int kout, uint8_t kind)
{
    const siot_funcdesc *f = e->fn;
    const siot_event *ev = &e->node->u.ev;
    for (uint32_t i = 0; i < e->nranks && !fs->oom; i++) {
        siot_ctx c = e->ctx;
        c.rank = e->ranks[i];
        int64_t ret = siot_eval_int(ev->ret, &c, -1);
        int64_t id = kout >= 0 ? (ret == 0 ? arg_at(fs, ev, kout, &c) : -1) : ret;
        if (kind == HK_NONE)
            continue;
        int exact = open_name(fs, e, kpath, &c);
        if (id < 0 && exact >= 0) {
            failed_open(fs, f->layer, e->calls, e->ranks[i]); /* it touched no file */
            continue;
        }
        int32_t row = exact < 0 ? -1 : row_for(fs, (const char *)fs->name.data, f->layer, exact);
        if (row < 0) {
            fs->oom = 1;
            return;
        }
        fs->rows[row].opens += e->calls;
        touch(fs, row, e->ranks[i]);
        set_handle(fs, e->ranks[i], kind, id, row);
    }
}

/* A regular file made by mknod or mknodat (mdtest -k makes its files so,
 * and may never open them): a file of the trace, with no open and no data
 * of its own. A FIFO or a device node is no file of the trace. */
static void on_mknod(siot_files *fs, const siot_agg_event *e)
{
    const siot_funcdesc *f = e->fn;
    int kpath = siot_arg_index(f, SIOT_ROLE_path), kmode = siot_arg_index(f, SIOT_ROLE_mode);
    if (!siot_makes_file(f))
        return;
    const siot_event *ev = &e->node->u.ev;
    for (uint32_t i = 0; i < e->nranks && !fs->oom; i++) {
        siot_ctx c = e->ctx;
        c.rank = e->ranks[i];
        int64_t mode = arg_at(fs, ev, kmode, &c), type = mode & S_IFMT; /* type 0: a regular file too */
        if (siot_eval_int(ev->ret, &c, -1) != 0 || mode == INT64_MIN || (type != 0 && type != S_IFREG))
            continue;
        int exact = open_name(fs, e, kpath, &c);
        int32_t row = exact < 0 ? -1 : row_for(fs, (const char *)fs->name.data, f->layer, exact);
        if (row < 0) {
            fs->oom = 1;
            return;
        }
        touch(fs, row, e->ranks[i]);
    }
}

/* A handle made from another: dup, fdopen, fcntl(F_DUPFD) from a descriptor;
 * an HDF5 dataset, group or attribute from the file or group it is in. It
 * names the same file, or none when the source is unknown. */
static void on_derive(siot_files *fs, const siot_agg_event *e, int ksrc, uint8_t newkind)
{
    const siot_event *ev = &e->node->u.ev;
    uint8_t srckind = siot_handle_kind(e->fn->argroles[ksrc]);
    for (uint32_t i = 0; i < e->nranks && !fs->oom; i++) {
        siot_ctx c = e->ctx;
        c.rank = e->ranks[i];
        int64_t id = siot_eval_int(ev->ret, &c, -1);
        if (id >= 0)
            set_handle(fs, e->ranks[i], newkind,
                       id, find_handle(fs, e->ranks[i], srckind, arg_at(fs, ev, ksrc, &c)));
    }
}

/* An open that names no file (open_by_handle_at): its handle is bound to
 * none, so that what it reads and writes is not counted to the file an
 * earlier handle of the same id named. */
static void on_open_unnamed(siot_files *fs, const siot_agg_event *e)
{
    const siot_event *ev = &e->node->u.ev;
    uint8_t kind = siot_handle_kind(e->fn->retrole);
    for (uint32_t i = 0; i < e->nranks && !fs->oom && kind != HK_NONE; i++) {
        siot_ctx c = e->ctx;
        c.rank = e->ranks[i];
        int64_t id = siot_eval_int(ev->ret, &c, -1);
        if (id >= 0)
            set_handle(fs, e->ranks[i], kind, id, -1);
    }
}

/* Reads and writes: calls and bytes to the file of the handle, per rank. */
static void on_data(siot_files *fs, const siot_agg_event *e, unsigned dir, uint8_t kind, int karg, int64_t aiofd)
{
    const siot_event *ev = &e->node->u.ev;
    uint64_t bytes = e->calls * (uint64_t)(e->bytes > 0 ? e->bytes : 0);
    for (uint32_t i = 0; i < e->nranks; i++) {
        siot_ctx c = e->ctx;
        c.rank = e->ranks[i];
        int64_t id = karg >= 0 ? arg_at(fs, ev, karg, &c) : aiofd;
        int32_t row = find_handle(fs, e->ranks[i], kind, id);
        if (row < 0)
            continue;
        siot_filerow *r = &fs->rows[row];
        r->calls += e->calls;
        r->time_ns += ev->dur.mean * (double)e->calls;
        if (dir == SIOT_CLASS_read)
            r->rbytes += bytes;
        else
            r->wbytes += bytes;
        touch(fs, row, e->ranks[i]);
    }
}

siot_handle_op siot_handle_op_of(const siot_funcdesc *f, int fcntl_dup)
{
    unsigned b = SIOT_CLASS_BASE(f->cls);
    int kpath = siot_arg_index(f, SIOT_ROLE_path), kh = siot_file_handle_arg(f);
    uint8_t hk = kh >= 0 ? siot_handle_kind(f->argroles[kh]) : HK_NONE;
    siot_handle_op op = {SIOT_HOP_NONE, -1, -1, HK_NONE};
    if (b == SIOT_CLASS_open && kpath >= 0) {
        /* the MPI_File or netCDF id it writes back, else its return */
        int kout = siot_arg_index(f, SIOT_ROLE_newfile);
        if (kout < 0)
            kout = siot_arg_index(f, SIOT_ROLE_outncid);
        op = (siot_handle_op){SIOT_HOP_OPEN, kpath, kout, siot_handle_kind(kout >= 0 ? f->argroles[kout] : f->retrole)};
    } else if (f->retrole == SIOT_ROLE_r_newdir && kpath >= 0) {
        /* opendir: its DIR* has its descriptor's id (docs/handles.md), which
         * an *at call's directory argument names */
        op = (siot_handle_op){SIOT_HOP_OPEN, kpath, -1, HK_FD};
    } else if (f->retrole == SIOT_ROLE_r_newhid && hk == HK_HID) {
        op = (siot_handle_op){SIOT_HOP_DERIVE, kh, -1, HK_HID};
    } else if ((b == SIOT_CLASS_open || b == SIOT_CLASS_dup || fcntl_dup) && hk == HK_FD) {
        op = (siot_handle_op){SIOT_HOP_DERIVE, kh, -1, f->layer == SIOT_LAYER_stdio ? HK_STREAM : HK_FD};
    } else if ((b == SIOT_CLASS_read || b == SIOT_CLASS_write) && kh >= 0) {
        op = (siot_handle_op){SIOT_HOP_DATA, kh, -1, hk};
    } else if (b == SIOT_CLASS_open && kh < 0) {
        op = (siot_handle_op){SIOT_HOP_UNNAMED, -1, -1, siot_handle_kind(f->retrole)};
    }
    return op;
}

void siot_files_event(siot_files *fs, const siot_agg_event *e)
{
    int64_t aiofd = -1;
    unsigned aio = siot_aio_direction(e, &fs->scratch, &aiofd);
    if (aio) {
        on_data(fs, e, aio, HK_FD, -1, aiofd);
        return;
    }
    siot_handle_op op = siot_handle_op_of(e->fn, siot_is_fcntl_dup(e, &fs->scratch));
    if (op.what == SIOT_HOP_NONE)
        on_mknod(fs, e);
    switch (op.what) {
    case SIOT_HOP_OPEN:
        on_open(fs, e, op.karg, op.kout, op.kind);
        break;
    case SIOT_HOP_DERIVE:
        on_derive(fs, e, op.karg, op.kind);
        break;
    case SIOT_HOP_DATA:
        on_data(fs, e, SIOT_CLASS_BASE(e->fn->cls), op.kind, op.karg, -1);
        break;
    case SIOT_HOP_UNNAMED:
        on_open_unnamed(fs, e);
        break;
    }
}

/* One event of an expanded walk as a record of one call on one rank. */
static void one_call(siot_agg_event *e, const siot_trace *t, const siot_node *n, const siot_ctx *c,
                     const int32_t *rank)
{
    memset(e, 0, sizeof *e);
    e->trace = t;
    e->node = n;
    e->fn = &t->funcs[n->u.ev.func];
    e->ranks = rank;
    e->nranks = 1;
    e->calls = 1;
    e->bytes = siot_eval_int(n->u.ev.bytes, c, 0);
    e->ctx = *c;
}

void siot_files_step(siot_files *fs, const siot_trace *t, const siot_node *n, const siot_ctx *c)
{
    int32_t rank = (int32_t)c->rank;
    siot_agg_event e;
    one_call(&e, t, n, c, &rank);
    siot_files_event(fs, &e);
}

int32_t siot_files_data_row(siot_files *fs, const siot_trace *t, const siot_node *n, const siot_ctx *c,
                            unsigned *dir, int64_t *bytes)
{
    int32_t rank = (int32_t)c->rank;
    siot_agg_event e;
    one_call(&e, t, n, c, &rank);
    int64_t aiofd = -1, id;
    uint8_t kind = HK_FD;
    *dir = siot_aio_direction(&e, &fs->scratch, &aiofd);
    if (*dir) {
        id = aiofd;
    } else {
        siot_handle_op op = siot_handle_op_of(e.fn, 0);
        if (op.what != SIOT_HOP_DATA)
            return -1;
        *dir = SIOT_CLASS_BASE(e.fn->cls);
        kind = op.kind;
        id = arg_at(fs, &n->u.ev, op.karg, c);
    }
    *bytes = e.bytes > 0 ? e.bytes : 0;
    return find_handle(fs, rank, kind, id);
}

int32_t siot_files_opened_row(siot_files *fs, const siot_trace *t, const siot_node *n, const siot_ctx *c,
                              uint8_t *kind, int64_t *id)
{
    const siot_funcdesc *f = &t->funcs[n->u.ev.func];
    siot_handle_op op = siot_handle_op_of(f, 0);
    if (op.what != SIOT_HOP_OPEN || op.kind == HK_NONE)
        return -1;
    int64_t ret = siot_eval_int(n->u.ev.ret, c, -1);
    *id = op.kout >= 0 ? (ret == 0 ? arg_at(fs, &n->u.ev, op.kout, c) : -1) : ret;
    *kind = op.kind;
    return *id < 0 ? -1 : find_handle(fs, (int32_t)c->rank, op.kind, *id);
}

void siot_files_name_handles(siot_files *fs, siot_vbuf *names, const siot_trace *t, const siot_node *n,
                             const siot_ctx *c)
{
    const siot_event *ev = &n->u.ev;
    const siot_funcdesc *f = &t->funcs[ev->func];
    char key[80];
    for (uint32_t k = 0; k < ev->nargs; k++) {
        if (!siot_role_uses_handle(f->argroles[k]))
            continue;
        int64_t id = arg_at(fs, ev, (int)k, c);
        const char *file = id == INT64_MIN ? NULL : siot_files_handle_file(fs, (int32_t)c->rank, f->argroles[k], id);
        if (file) {
            snprintf(key, sizeof key, "%s_file", f->argnames[k]);
            siot_json_name_str(names, key, file);
        }
    }
    siot_files_step(fs, t, n, c);
}

int siot_role_uses_handle(unsigned role)
{
    return role == SIOT_ROLE_fd || role == SIOT_ROLE_stream || role == SIOT_ROLE_file ||
           role == SIOT_ROLE_closefile || role == SIOT_ROLE_hid || role == SIOT_ROLE_closehid ||
           role == SIOT_ROLE_ncid;
}

const char *siot_std_stream_name(unsigned role, int64_t id)
{
    static const char *const std[3] = {"<stdin>", "<stdout>", "<stderr>"};
    uint8_t kind = siot_handle_kind(role);
    return (kind == HK_FD || kind == HK_STREAM) && id >= 0 && id <= 2 ? std[id] : NULL;
}

const char *siot_files_handle_file(const siot_files *fs, int32_t rank, unsigned role, int64_t id)
{
    uint8_t kind = siot_handle_kind(role);
    if (!siot_role_uses_handle(role) || kind == HK_NONE)
        return NULL;
    const rp_handle *h = fs->ix ? rp_hmap_find(&fs->ix->h, rank, kind, id) : NULL;
    if (h)
        return h->file >= 0 ? fs->rows[h->file].name : NULL;
    return siot_std_stream_name(role, id);
}

int32_t siot_files_handle_row(const siot_files *fs, int32_t rank, unsigned role, int64_t id)
{
    uint8_t kind = siot_handle_kind(role);
    if (!siot_role_uses_handle(role) || !fs->ix)
        return -1;
    return find_handle(fs, rank, kind, id);
}

/* ------------------------------------------------------------ patterns */

/* A name's shape: its digit runs replaced by one mark each, so that
 * ckpt_0010.dat and ckpt_0050.dat have the same shape. */
static char *shape_of(const char *name)
{
    char *s = malloc(strlen(name) + 1), *o = s;
    if (!s)
        return NULL;
    while (*name) {
        if (*name >= '0' && *name <= '9') {
            *o++ = '\x01';
            while (*name >= '0' && *name <= '9')
                name++;
        } else {
            *o++ = *name++;
        }
    }
    *o = 0;
    return s;
}

typedef struct shaped {
    char *shape;
    uint32_t row;
    uint8_t layer;
} shaped;

static int cmp_shaped(const void *a, const void *b)
{
    const shaped *x = a, *y = b;
    if (x->layer != y->layer)
        return x->layer < y->layer ? -1 : 1;
    int c = strcmp(x->shape, y->shape);
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* The k-th digit run of name: its start and length; "" when there is none
 * (a name holding the shape's own mark, byte 1, has a mark that is no
 * digit run: found by the fuzzer). */
static const char *digit_run(const char *name, unsigned k, size_t *len)
{
    for (;;) {
        while (*name && !(*name >= '0' && *name <= '9'))
            name++;
        if (!*name) {
            *len = 0;
            return "";
        }
        size_t n = strspn(name, "0123456789");
        if (k-- == 0) {
            *len = n;
            return name;
        }
        name += n;
    }
}

/* The k-th field of a group of rows: one value, or {lo..hi} (zero-padded
 * when all have the same width), or {*} when the numbers are too long. */
static void pattern_field(const siot_files *fs, const shaped *g, uint32_t n, unsigned k, siot_vbuf *out)
{
    size_t w0 = 0, len = 0;
    const char *first = digit_run(fs->rows[g[0].row].name, k, &w0);
    uint64_t lo = UINT64_MAX, hi = 0;
    int same = 1, width_same = 1, too_long = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *d = digit_run(fs->rows[g[i].row].name, k, &len);
        same &= len == w0 && memcmp(d, first, len) == 0;
        width_same &= len == w0;
        too_long |= len > 18;
        uint64_t v = too_long ? 0 : strtoull(d, NULL, 10);
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    char t[64];
    int m;
    if (same)
        m = snprintf(t, sizeof t, "%.*s", (int)(w0 < 40 ? w0 : 40), first);
    else if (too_long)
        m = snprintf(t, sizeof t, "{*}");
    else if (width_same)
        m = snprintf(t, sizeof t, "{%0*" PRIu64 "..%0*" PRIu64 "}", (int)w0, lo, (int)w0, hi);
    else
        m = snprintf(t, sizeof t, "{%" PRIu64 "..%" PRIu64 "}", lo, hi);
    siot_vbuf_put(out, t, (size_t)m);
}

static int add_pattern(siot_files *fs, const shaped *g, uint32_t n)
{
    siot_vbuf b;
    siot_vbuf_init(&b);
    unsigned k = 0;
    for (const char *s = g[0].shape; *s; s++)
        if (*s == '\x01')
            pattern_field(fs, g, n, k++, &b);
        else
            siot_vbuf_u8(&b, (uint8_t)*s);
    siot_vbuf_u8(&b, 0);
    siot_filepattern *p = &fs->patterns[fs->npatterns];
    memset(p, 0, sizeof *p);
    p->pattern = (char *)b.data;
    p->layer = g[0].layer;
    p->files = n;
    if (b.oom)
        return -1;
    fs->npatterns++;
    for (uint32_t i = 0; i < n; i++) {
        const siot_filerow *r = &fs->rows[g[i].row];
        p->calls += r->calls;
        p->rbytes += r->rbytes;
        p->wbytes += r->wbytes;
        if (rankset_merge(&p->ranks, &r->ranks) != 0)
            return -1;
    }
    return 0;
}

int siot_files_summarise(siot_files *fs)
{
    shaped *v = calloc(fs->nrows ? fs->nrows : 1, sizeof *v);
    fs->patterns = calloc(fs->nrows ? fs->nrows : 1, sizeof *fs->patterns);
    int rc = v && fs->patterns ? 0 : -1;
    for (uint32_t i = 0; i < fs->nrows && rc == 0; i++) {
        v[i] = (shaped){.shape = shape_of(fs->rows[i].name), .row = i, .layer = fs->rows[i].layer};
        rc = v[i].shape ? 0 : -1;
    }
    if (rc == 0)
        qsort(v, fs->nrows, sizeof *v, cmp_shaped);
    for (uint32_t i = 0; i < fs->nrows && rc == 0;) {
        uint32_t j = i + 1;
        while (j < fs->nrows && v[j].layer == v[i].layer && strcmp(v[j].shape, v[i].shape) == 0)
            j++;
        if (j - i > 1 && strchr(v[i].shape, '\x01'))
            rc = add_pattern(fs, v + i, j - i);
        i = j;
    }
    for (uint32_t i = 0; v && i < fs->nrows; i++)
        free(v[i].shape);
    free(v);
    return rc;
}

/* ------------------------------------------------------------ life */

void siot_files_init(siot_files *fs)
{
    memset(fs, 0, sizeof *fs);
    siot_vbuf_init(&fs->scratch);
    siot_vbuf_init(&fs->name);
    fs->ix = calloc(1, sizeof *fs->ix);
    fs->oom = !fs->ix;
}

void siot_files_free(siot_files *fs)
{
    for (uint32_t i = 0; i < fs->nrows; i++) {
        free(fs->rows[i].name);
        siot_rankset_free(&fs->rows[i].ranks);
    }
    for (uint32_t i = 0; i < fs->npatterns; i++) {
        free(fs->patterns[i].pattern);
        siot_rankset_free(&fs->patterns[i].ranks);
    }
    for (uint32_t i = 0; i < fs->nfailed; i++) {
        free(fs->failed[i].name);
        siot_rankset_free(&fs->failed[i].ranks);
    }
    free(fs->failed);
    free(fs->rows);
    free(fs->patterns);
    if (fs->ix) {
        free(fs->ix->names);
        rp_hmap_free(&fs->ix->h);
        free(fs->ix);
    }
    siot_vbuf_free(&fs->scratch);
    siot_vbuf_free(&fs->name);
    memset(fs, 0, sizeof *fs);
}
