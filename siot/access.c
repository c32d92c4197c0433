/* access: access patterns per file and the layers' amplification, from a
 * walk of every rank in program order (see access.h for the definitions). */
#include "siot/access.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/expr.h"
#include "siot/measures.h"

#define POS_MAX (1u << 20) /* descriptors followed; a larger one's position is unknown */

static const char *const AP_NAMES[SIOT_AP_N] = {"consecutive", "sequential", "random", "unknown"};

const char *siot_access_name(unsigned k) { return k < SIOT_AP_N ? AP_NAMES[k] : "?"; }

void siot_access_init(siot_access *a)
{
    memset(a, 0, sizeof *a);
    siot_files_init(&a->files);
}

void siot_access_free(siot_access *a)
{
    siot_files_free(&a->files);
    free(a->rows);
    free(a->pos);
    free(a->views);
    free(a->mptrs);
    memset(a, 0, sizeof *a);
}

/* One entry per file row, new rows not yet touched by any rank. */
static int rows_fit(siot_access *a)
{
    if (a->files.nrows <= a->caprows)
        return 0;
    uint32_t cap = a->files.nrows * 2;
    siot_access_row *v = realloc(a->rows, cap * sizeof *v);
    if (!v)
        return -1;
    memset(v + a->caprows, 0, (cap - a->caprows) * sizeof *v);
    for (uint32_t i = a->caprows; i < cap; i++)
        v[i].last_rank = -1;
    a->rows = v;
    a->caprows = cap;
    return 0;
}

/* The walked rank's position of descriptor fd, NULL when not followed. */
static int64_t *pos_of(siot_access *a, int64_t fd)
{
    if (fd < 0 || fd >= POS_MAX)
        return NULL;
    if ((uint64_t)fd >= a->npos) {
        uint32_t n = a->npos ? a->npos : 64;
        while (n <= (uint64_t)fd)
            n *= 2;
        int64_t *v = realloc(a->pos, n * sizeof *v);
        if (!v)
            return NULL;
        for (uint32_t i = a->npos; i < n; i++)
            v[i] = -1;
        a->pos = v;
        a->npos = n;
    }
    return &a->pos[fd];
}

static int64_t arg_int(const siot_event *e, int k, const siot_ctx *c, int64_t def)
{
    return k >= 0 && (uint32_t)k < e->nargs ? siot_eval_int(e->args[k], c, def) : def;
}

/* POSIX descriptors' positions: an open starts at 0 (at the end with
 * O_APPEND: unknown), lseek says where it went, a read or write without
 * an offset moves it by its bytes; a descriptor made otherwise (dup) or
 * closed has none known. Returns the offset of a read or write, -1 when
 * not known. */
static int64_t follow_posix(siot_access *a, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c,
                            int64_t bytes)
{
    unsigned b = SIOT_CLASS_BASE(f->cls);
    int kfd = siot_arg_index(f, SIOT_ROLE_fd);
    if (f->retrole == SIOT_ROLE_r_newfd) {
        int64_t *p = pos_of(a, siot_eval_int(e->ret, c, -1));
        int append = (arg_int(e, siot_arg_index(f, SIOT_ROLE_oflags), c, 0) & O_APPEND) != 0;
        if (p)
            *p = b == SIOT_CLASS_open && siot_arg_index(f, SIOT_ROLE_path) >= 0 && !append ? 0 : -1;
        return -1;
    }
    int64_t *p = kfd >= 0 ? pos_of(a, arg_int(e, kfd, c, -1)) : NULL;
    if (!p)
        return -1;
    if (b == SIOT_CLASS_seek) {
        int64_t r = siot_eval_int(e->ret, c, -1);
        *p = r >= 0 ? r : -1;
    } else if (b == SIOT_CLASS_close) {
        *p = -1;
    } else if ((b == SIOT_CLASS_read || b == SIOT_CLASS_write) && siot_arg_index(f, SIOT_ROLE_offset) < 0) {
        int64_t off = *p;
        if (off >= 0 && bytes >= 0 && off <= INT64_MAX - bytes)
            *p = off + bytes;
        else
            *p = -1;
        return off;
    }
    return -1;
}

/* A view set on an MPI file: its displacement, and whether its offsets
 * count bytes (etype and filetype one-byte predefined types, ids 0-3 of
 * core/predef.h: MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR, MPI_BYTE). */
struct siot_view {
    int64_t id, disp;
    int bytes;
};

static int byte_type(int64_t dtype) { return dtype >= 0 && dtype <= 3; }

/* MPI files of the walked rank with a view set: MPI_File_set_view sets
 * one, a close or a new file of the same id drops it. Returns the
 * displacement a data call's offset counts from (0 without a view), or
 * -1 when its offsets do not count bytes. */
/* The MPI file a call acts on, opens or closes; INT64_MIN when none. */
static int64_t mpi_file_id(const siot_funcdesc *f, const siot_event *e, const siot_ctx *c)
{
    int k = siot_arg_index(f, SIOT_ROLE_file);
    if (k < 0 && (k = siot_arg_index(f, SIOT_ROLE_closefile)) < 0)
        k = siot_arg_index(f, SIOT_ROLE_newfile);
    return arg_int(e, k, c, INT64_MIN);
}

static int64_t follow_views(siot_access *a, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c)
{
    unsigned b = SIOT_CLASS_BASE(f->cls);
    int64_t id = mpi_file_id(f, e, c);
    uint32_t i = 0;
    while (i < a->nviews && a->views[i].id != id)
        i++;
    if (b == SIOT_CLASS_view && id != INT64_MIN) {
        if (i == a->nviews && a->nviews == a->capviews) {
            uint32_t cap = a->capviews ? 2 * a->capviews : 8;
            struct siot_view *v = realloc(a->views, cap * sizeof *v);
            if (!v)
                return -1;
            a->views = v;
            a->capviews = cap;
        }
        int kt = siot_arg_index(f, SIOT_ROLE_dtype); /* etype, then filetype */
        int bytes = kt >= 0 && byte_type(arg_int(e, kt, c, -1)) && byte_type(arg_int(e, kt + 1, c, -1));
        a->views[i] = (struct siot_view){id, arg_int(e, siot_arg_index(f, SIOT_ROLE_offset), c, -1), bytes};
        a->nviews += i == a->nviews;
    } else if ((b == SIOT_CLASS_open || b == SIOT_CLASS_close) && i < a->nviews) {
        a->views[i] = a->views[--a->nviews];
    } else if (i < a->nviews) {
        return a->views[i].bytes && a->views[i].disp >= 0 ? a->views[i].disp : -1;
    }
    return 0;
}

/* An MPI file's individual file pointer, in etypes of its view, or a
 * stdio stream's position. */
struct siot_mptr {
    int64_t id, pos; /* pos -1: not known */
    int layer;
};

/* MPI-IO's whence values (the same in MPICH and Open MPI); the trace keeps
 * the value the program passed. */
#define MPI_SEEK_SET_ 600
#define MPI_SEEK_CUR_ 602

static struct siot_mptr *mptr_of(siot_access *a, int layer, int64_t id)
{
    for (uint32_t i = 0; i < a->nmptrs; i++)
        if (a->mptrs[i].id == id && a->mptrs[i].layer == layer)
            return &a->mptrs[i];
    if (a->nmptrs == a->capmptrs) {
        uint32_t cap = a->capmptrs ? 2 * a->capmptrs : 8;
        struct siot_mptr *v = realloc(a->mptrs, cap * sizeof *v);
        if (!v)
            return NULL;
        a->mptrs = v;
        a->capmptrs = cap;
    }
    a->mptrs[a->nmptrs] = (struct siot_mptr){id, -1, layer};
    return &a->mptrs[a->nmptrs++];
}

/* A call at the individual file pointer: a read or write without an
 * offset, not at the shared pointer (MPI_File_read_shared, _ordered). */
static int at_individual_pointer(const siot_funcdesc *f, unsigned b)
{
    return (b == SIOT_CLASS_read || b == SIOT_CLASS_write) && siot_arg_index(f, SIOT_ROLE_offset) < 0 &&
           !strstr(f->name, "_shared") && !strstr(f->name, "_ordered");
}

/* MPI files' individual pointers (a->pointers): 0 at the open and at
 * MPI_File_set_view (as the standard resets them), set by MPI_File_seek's
 * SEEK_SET and SEEK_CUR, advanced by a call at the pointer by its bytes
 * under a view of bytes (unknown under another: the etypes are not
 * counted). Returns the offset, in etypes, of a call at the pointer, -1
 * when not known or not one. */
static int64_t follow_mpi_pointer(siot_access *a, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c,
                                  int64_t disp, int64_t bytes)
{
    unsigned b = SIOT_CLASS_BASE(f->cls);
    int64_t id = mpi_file_id(f, e, c);
    struct siot_mptr *p = a->pointers && id != INT64_MIN ? mptr_of(a, SIOT_LAYER_mpiio, id) : NULL;
    if (!p)
        return -1;
    if (b == SIOT_CLASS_open || b == SIOT_CLASS_view || b == SIOT_CLASS_close) {
        p->pos = b == SIOT_CLASS_close ? -1 : 0;
    } else if (b == SIOT_CLASS_seek && !(f->cls & SIOT_CLS_COLL)) { /* not MPI_File_seek_shared */
        int64_t off = arg_int(e, siot_arg_index(f, SIOT_ROLE_offset), c, -1);
        int64_t whence = arg_int(e, siot_arg_index(f, SIOT_ROLE_whence), c, -1);
        p->pos = whence == MPI_SEEK_SET_ ? off : whence == MPI_SEEK_CUR_ && p->pos >= 0 ? p->pos + off : -1;
        p->pos = p->pos >= 0 ? p->pos : -1;
    } else if (at_individual_pointer(f, b)) {
        int64_t at = p->pos;
        p->pos = at >= 0 && disp >= 0 && at <= INT64_MAX - bytes ? at + bytes : -1;
        return at;
    }
    return -1;
}

/* fopen's mode: appending ("a", "a+") starts at the end, not known. */
static int appends(const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, siot_vbuf *scratch)
{
    int k = siot_arg_index(f, SIOT_ROLE_str);
    siot_value v;
    return k < 0 || (uint32_t)k >= e->nargs || siot_eval(e->args[k], c, scratch, &v) != 0 || !v.s || v.slen == 0 ||
           v.s[0] == 'a';
}

/* A stdio seek call's effect on position pos: fseek's SEEK_SET and
 * SEEK_CUR when it returned 0, ftell's result, rewind; ungetc and fsetpos
 * make it unknown; fgetpos leaves it. */
static int64_t stdio_seek(const siot_funcdesc *f, const siot_event *e, const siot_ctx *c, int64_t pos)
{
    int64_t ret = siot_eval_int(e->ret, c, -1);
    int kw = siot_arg_index(f, SIOT_ROLE_whence);
    if (kw >= 0) {
        int64_t off = arg_int(e, siot_arg_index(f, SIOT_ROLE_offset), c, -1), whence = arg_int(e, kw, c, -1);
        pos = ret != 0 ? -1 : whence == SEEK_SET ? off : whence == SEEK_CUR && pos >= 0 ? pos + off : -1;
    } else if (f->retrole == SIOT_ROLE_r_off) {
        pos = ret;
    } else if (strcmp(f->name, "rewind") == 0) {
        pos = 0;
    } else if (strncmp(f->name, "ungetc", 6) == 0 || strncmp(f->name, "ungetwc", 7) == 0 ||
               strncmp(f->name, "fsetpos", 7) == 0) {
        pos = -1;
    }
    return pos >= 0 ? pos : -1;
}

/* stdio streams' positions (a->pointers): 0 at fopen (unknown when it
 * appends, or for fdopen), then as stdio_seek says and advanced by the
 * bytes read or written. Returns a read's or write's offset, -1 when not
 * known. */
static int64_t follow_stdio(siot_access *a, const siot_funcdesc *f, const siot_event *e, const siot_ctx *c,
                            int64_t bytes)
{
    unsigned b = SIOT_CLASS_BASE(f->cls);
    int k = siot_arg_index(f, SIOT_ROLE_stream);
    int64_t id = f->retrole == SIOT_ROLE_r_newstream ? siot_eval_int(e->ret, c, INT64_MIN) : arg_int(e, k, c, INT64_MIN);
    struct siot_mptr *p = a->pointers && id != INT64_MIN ? mptr_of(a, SIOT_LAYER_stdio, id) : NULL;
    if (!p)
        return -1;
    if (f->retrole == SIOT_ROLE_r_newstream) {
        p->pos = b == SIOT_CLASS_open && siot_arg_index(f, SIOT_ROLE_path) >= 0 &&
                         !appends(f, e, c, &a->files.scratch)
                     ? 0
                     : -1;
    } else if (b == SIOT_CLASS_close) {
        p->pos = -1;
    } else if (b == SIOT_CLASS_seek) {
        p->pos = stdio_seek(f, e, c, p->pos);
    } else if (b == SIOT_CLASS_read || b == SIOT_CLASS_write) {
        int64_t at = p->pos;
        p->pos = at >= 0 && at <= INT64_MAX - bytes ? at + bytes : -1;
        return at;
    }
    return -1;
}

/* A view's displacement plus an offset in bytes; -1 when out of range. */
static int64_t view_offset(int64_t disp, int64_t off)
{
    return off < 0 || off > INT64_MAX - disp ? -1 : disp + off;
}

/* One data call of a rank on file row: judged against the end of the
 * rank's previous call on it (0 for its first). */
static void judge(siot_access *a, int32_t row, int64_t rank, int64_t off, int64_t bytes)
{
    siot_access_row *r = &a->rows[row];
    if (off < 0) {
        r->n[SIOT_AP_UNKNOWN]++;
        return;
    }
    int64_t prev = r->last_rank == rank ? r->prev_end : 0;
    r->n[off == prev ? SIOT_AP_CONSECUTIVE : off > prev ? SIOT_AP_SEQUENTIAL : SIOT_AP_RANDOM]++;
    r->aligned += off % SIOT_FS_BLOCK == 0 && bytes % SIOT_FS_BLOCK == 0;
    r->last_rank = rank;
    r->prev_end = off <= INT64_MAX - bytes ? off + bytes : INT64_MAX;
}

typedef struct frame {
    int8_t layer, dir; /* dir -1: not a read or write */
} frame;

/* One event: the handles' files, the descriptor positions, the pattern of
 * a data call, and its bytes under its parent's layer. */
static void step(siot_access *a, const siot_trace *t, const siot_synth_ev *ev, frame *stack)
{
    const siot_event *e = &ev->node->u.ev;
    const siot_funcdesc *f = &t->funcs[e->func];
    unsigned b = SIOT_CLASS_BASE(f->cls);
    int dir = b == SIOT_CLASS_read ? 0 : b == SIOT_CLASS_write ? 1 : -1;
    int64_t bytes = dir >= 0 ? siot_eval_int(e->bytes, &ev->ctx, 0) : 0;
    bytes = bytes > 0 ? bytes : 0;
    siot_files_step(&a->files, t, ev->node, &ev->ctx);
    if (rows_fit(a) != 0) {
        a->files.oom = 1;
        return;
    }
    int64_t off = f->layer == SIOT_LAYER_posix ? follow_posix(a, f, e, &ev->ctx, bytes) : -1;
    int64_t disp = f->layer == SIOT_LAYER_mpiio ? follow_views(a, f, e, &ev->ctx) : 0;
    if (f->layer == SIOT_LAYER_mpiio) {
        int64_t at = follow_mpi_pointer(a, f, e, &ev->ctx, disp, bytes);
        off = at >= 0 && disp >= 0 ? view_offset(disp, at) : -1;
    } else if (f->layer == SIOT_LAYER_stdio) {
        off = follow_stdio(a, f, e, &ev->ctx, bytes);
    }
    int kh = siot_file_handle_arg(f), koff = siot_arg_index(f, SIOT_ROLE_offset);
    a->last_row = -1;
    a->last_off = -1;
    if (dir >= 0 && kh >= 0) {
        int32_t row = siot_files_handle_row(&a->files, (int32_t)ev->ctx.rank, f->argroles[kh],
                                            arg_int(e, kh, &ev->ctx, -1));
        if (koff >= 0)
            off = disp < 0 ? -1 : view_offset(disp, arg_int(e, koff, &ev->ctx, -1));
        if (row >= 0)
            judge(a, row, ev->ctx.rank, off, bytes);
        a->last_row = row;
        a->last_off = off;
    }
    if (ev->depth >= SIOT_SYNTH_DEPTH)
        return;
    stack[ev->depth] = (frame){(int8_t)f->layer, (int8_t)dir};
    if (dir < 0 || f->layer == SIOT_LAYER_mpi)
        return;
    a->layer_bytes[f->layer][dir] += (uint64_t)bytes;
    const frame *p = ev->depth > 0 ? &stack[ev->depth - 1] : NULL;
    if (p && p->dir >= 0 && p->layer != SIOT_LAYER_mpi && p->layer != f->layer)
        a->amp[p->layer][p->dir][f->layer][dir] += (uint64_t)bytes;
}

/* Each rank walks at most its share of max_events. */
static int walk_rank(siot_access *a, const siot_trace *t, uint32_t rank, uint64_t quota, char *err, size_t errlen)
{
    siot_synth s;
    frame stack[SIOT_SYNTH_DEPTH];
    if (siot_synth_init(&s, t, rank) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    for (uint32_t i = 0; i < a->npos; i++)
        a->pos[i] = -1; /* descriptors and MPI files are the rank's own */
    a->nviews = 0;
    a->nmptrs = 0;
    siot_synth_ev ev;
    uint64_t n = 0;
    int k;
    while ((k = siot_synth_next(&s, &ev)) == 1) {
        if (++n > quota) {
            a->truncated = 1;
            break;
        }
        a->events++;
        step(a, t, &ev, stack);
        if (a->on_event)
            a->on_event(a->user, &ev, &t->funcs[ev.node->u.ev.func]);
    }
    if (k < 0)
        snprintf(err, errlen, "rank %u: %s", rank, s.it.err ? s.it.err : "inconsistent trace");
    siot_synth_free(&s);
    return k < 0 ? -1 : 0;
}

int siot_access_run(const siot_trace *t, siot_access *a, uint64_t max_events, char *err, size_t errlen)
{
    uint64_t quota = t->nranks ? max_events / t->nranks : max_events;
    for (uint32_t r = 0; r < t->nranks; r++)
        if (walk_rank(a, t, r, quota ? quota : 1, err, errlen) != 0)
            return -1;
    if (a->files.oom || rows_fit(a) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}
