/* Support for the generated replayers. Everything the replay does for itself
 * (checking paths, finding free descriptors) uses raw system calls and PMPI,
 * so that a replay linked with the tracer records exactly the replayed calls. */

#include "replay/rp.h"

#include "replay/match.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wchar.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/fcntl_cmd.h"
#include "core/names.h"
#include "core/predef.h"

#define MAX_ID (1 << 24)

/* ------------------------------------------------------------ handle maps */

static uintptr_t map_get(const rp_map *m, int64_t id)
{
    return id >= 0 && id < m->n ? m->v[id] : 0;
}

static void map_set(rp_map *m, int64_t id, uintptr_t v)
{
    if (id < 0 || id >= MAX_ID)
        return;
    if (id >= m->n) {
        uint32_t n = m->n ? m->n : 16;
        while (n <= id)
            n *= 2;
        uintptr_t *nv = realloc(m->v, n * sizeof *nv);
        if (!nv)
            return;
        memset(nv + m->n, 0, (n - m->n) * sizeof *nv);
        m->v = nv;
        m->n = n;
    }
    m->v[id] = v;
}

#define BITS(h) ({ uintptr_t b_ = 0; memcpy(&b_, &(h), sizeof(h) < sizeof b_ ? sizeof(h) : sizeof b_); b_; })
#define FROM(T, b) ({ T h_; memset(&h_, 0, sizeof h_); uintptr_t b2_ = (b); memcpy(&h_, &b2_, sizeof h_ < sizeof b2_ ? sizeof h_ : sizeof b2_); h_; })

int rp_fd(rp_state *c, int64_t id)
{
    uintptr_t v = map_get(&c->fd, id);
    return v ? (int)(v - 1) : -1;
}
int rp_dirfd(rp_state *c, int64_t id, const siot_value *path)
{
    if (id == AT_FDCWD || (path->kind == SIOT_V_STR && path->slen && path->s[0] == '/'))
        return AT_FDCWD;
    return id >= 0 ? rp_fd(c, id) : -1;
}
void rp_set_fd(rp_state *c, int64_t id, int fd) { map_set(&c->fd, id, (uintptr_t)fd + 1); }
void rp_drop_fd(rp_state *c, int64_t id) { map_set(&c->fd, id, 0); }
FILE *rp_stream(rp_state *c, int64_t id) { return (FILE *)map_get(&c->stream, id); }
void rp_set_stream(rp_state *c, int64_t id, FILE *f) { map_set(&c->stream, id, (uintptr_t)f); }
void rp_drop_stream(rp_state *c, int64_t id) { map_set(&c->stream, id, 0); }
DIR *rp_dir(rp_state *c, int64_t id) { return (DIR *)map_get(&c->dir, id); }
void rp_set_dir(rp_state *c, int64_t id, DIR *d)
{
    map_set(&c->dir, id, (uintptr_t)d);
    int fd = dirfd(d);
    if (fd >= 0 && (rp_fd(c, id) < 0 || rp_fd(c, id) == fd)) { /* fdopendir: the one it was given */
        rp_set_fd(c, id, fd);
        map_set(&c->dirfd, id, (uintptr_t)fd + 1);
    }
}
void rp_drop_dir(rp_state *c, int64_t id)
{
    uintptr_t fd = map_get(&c->dirfd, id);
    if (fd && map_get(&c->fd, id) == fd) /* closedir closed it */
        rp_drop_fd(c, id);
    map_set(&c->dirfd, id, 0);
    map_set(&c->dir, id, 0);
}

/* MPI handles: ids below a kind's base are the predefined objects. */
MPI_Comm rp_comm(rp_state *c, int64_t id)
{
    if (id == 0)
        return MPI_COMM_WORLD;
    if (id == 1)
        return MPI_COMM_SELF;
    uintptr_t v = map_get(&c->comm, id);
    return v ? FROM(MPI_Comm, v) : MPI_COMM_NULL;
}
void rp_set_comm(rp_state *c, int64_t id, MPI_Comm h) { map_set(&c->comm, id, h == MPI_COMM_NULL ? 0 : BITS(h)); }
void rp_drop_comm(rp_state *c, int64_t id) { map_set(&c->comm, id, 0); }

MPI_Group rp_group(rp_state *c, int64_t id)
{
    if (id == 0)
        return MPI_GROUP_EMPTY;
    uintptr_t v = map_get(&c->group, id);
    return v ? FROM(MPI_Group, v) : MPI_GROUP_NULL;
}
/* A trace gives each reference MPI handed out to one live object (a group,
 * a datatype MPI_Type_get_contents returned) the same id (docs/handles.md,
 * references), and frees the id once per reference. The replay's MPI may
 * give one handle for them all or, another library, one each: every
 * reference made is kept, so that each free reissued frees one the replay
 * holds, and the id stays mapped until its last free. */
typedef struct rp_more_ref {
    const rp_map *map;
    int64_t id;
    uintptr_t bits;
} rp_more_ref;

/* The id's handle in m becomes bits; the one it had, if any, is kept. */
static void map_set_ref(rp_state *c, rp_map *m, int64_t id, uintptr_t bits)
{
    uintptr_t old = map_get(m, id);
    if (old && bits) {
        rp_more_ref r = {m, id, old};
        siot_vbuf_put(&c->more_refs, &r, sizeof r);
    }
    map_set(m, id, bits);
}

/* A free of one reference of the id: the one made before it, if any, is the id's again. */
static void map_drop_ref(rp_state *c, rp_map *m, int64_t id)
{
    uintptr_t prev = 0;
    size_t n = c->more_refs.len / sizeof(rp_more_ref);
    rp_more_ref *refs = (rp_more_ref *)(void *)c->more_refs.data;
    for (size_t i = n; i-- > 0;) {
        if (refs[i].map != m || refs[i].id != id)
            continue;
        prev = refs[i].bits;
        memmove(&refs[i], &refs[i + 1], (n - i - 1) * sizeof *refs);
        c->more_refs.len -= sizeof *refs;
        break;
    }
    map_set(m, id, prev);
}

void rp_set_group(rp_state *c, int64_t id, MPI_Group h)
{
    uintptr_t bits = h == MPI_GROUP_NULL ? 0 : BITS(h);
    if (id > 0)
        map_set_ref(c, &c->group, id, bits);
    else
        map_set(&c->group, id, bits);
}

void rp_drop_group(rp_state *c, int64_t id) { map_drop_ref(c, &c->group, id); }

MPI_Datatype rp_dtype(rp_state *c, int64_t id)
{
    if (id >= 0 && id < SIOT_DTYPE_BASE) {
#define X(i, n) \
    if (id == i) \
        return n;
        SIOT_PREDEF_DTYPES(X)
#undef X
        return MPI_DATATYPE_NULL;
    }
    uintptr_t v = map_get(&c->dtype, id);
    return v ? FROM(MPI_Datatype, v) : MPI_DATATYPE_NULL;
}
void rp_set_dtype(rp_state *c, int64_t id, MPI_Datatype h)
{
    if (id >= SIOT_DTYPE_BASE)
        map_set(&c->dtype, id, h == MPI_DATATYPE_NULL ? 0 : BITS(h));
}
void rp_drop_dtype(rp_state *c, int64_t id) { map_drop_ref(c, &c->dtype, id); }

void rp_set_op(rp_state *c, int64_t id, MPI_Op h)
{
    if (id >= SIOT_OP_BASE)
        map_set(&c->op, id, h == MPI_OP_NULL ? 0 : BITS(h));
}
void rp_drop_op(rp_state *c, int64_t id) { map_set(&c->op, id, 0); }

/* The stand-in for a program's reduction function: the replay's buffers
 * are random and their values are not compared, so it leaves them. */
void rp_user_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

#if MPI_VERSION >= 4
void rp_user_op_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type)
{
    (void)in, (void)inout, (void)len, (void)type;
}
#endif

enum { RP_SCAN_ARGS = 64 };

int rp_scan(rp_state *c, FILE *stream, const char *format)
{
    int convs = 0; /* '%' signs: at least the conversions that assign */
    for (const char *p = format; p && *p; p++)
        convs += *p == '%';
    struct stat st; /* raw: a traced replay (--verify) must not record the replay's own calls */
    if (syscall(SYS_fstat, fileno(stream), &st) != 0 || !S_ISREG(st.st_mode)) {
        c->skip_why = "a scan of a stream that is not a regular file (no bound for what it may write)";
        return EOF;
    }
    if (!format || convs > RP_SCAN_ARGS) {
        c->skip_why = format ? "a scan with more conversions than this replay passes" : "a scan whose format is not recorded";
        return EOF;
    }
    /* no field can hold more than the file: a string and its NUL, in wide
     * characters for %ls (the format comes from the trace: untrusted), with
     * a margin for a file that grows */
    void *p = rp_buf(c, RP_READ_BANK + RP_READ_BANK - 2, ((int64_t)st.st_size + 1) * (int64_t)sizeof(wchar_t) + 65536);
    if (!p) {
        c->skip_why = "out of memory";
        return EOF;
    }
#define P8 p, p, p, p, p, p, p, p
    return fscanf(stream, format, P8, P8, P8, P8, P8, P8, P8, P8);
#undef P8
}

/* MPI_Bsend's buffer: one of the recorded size, the replay's own until
 * the detach that the trace holds (or the end of the replay). */
int rp_buffer_attach(rp_state *c, void *buffer, int64_t size)
{
    (void)buffer;
    if (c->bsend_buf || size < 0 || size > INT_MAX)
        return MPI_ERR_BUFFER;
    c->bsend_buf = malloc(size ? (size_t)size : 1);
    int rc = c->bsend_buf ? MPI_Buffer_attach(c->bsend_buf, (int)size) : MPI_ERR_NO_MEM;
    if (rc != MPI_SUCCESS) {
        free(c->bsend_buf);
        c->bsend_buf = NULL;
    }
    return rc;
}

/* The generalized request's callbacks do nothing. tests/progs/idioms.c
 * has a deliberate twin of them: test programs link nothing of the tool. */
static int greq_query(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int greq_free(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int greq_cancel(void *extra, int complete)
{
    (void)extra, (void)complete;
    return MPI_SUCCESS;
}

int rp_grequest_start(rp_state *c, MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                      MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request)
{
    (void)c, (void)query_fn, (void)free_fn, (void)cancel_fn, (void)extra_state;
    return MPI_Grequest_start(greq_query, greq_free, greq_cancel, NULL, request);
}

/* After a detach: the buffer MPI gave back, if it was the replay's own. */
static int bsend_detached(rp_state *c, int rc, void *b)
{
    if (rc == MPI_SUCCESS && b == c->bsend_buf) {
        free(c->bsend_buf);
        c->bsend_buf = NULL;
    }
    return rc;
}

int rp_buffer_detach(rp_state *c, void *buffer_addr, int *size)
{
    (void)buffer_addr;
    void *b = NULL;
    /* two statements: the order in which a call's arguments are evaluated
     * is unspecified, and b read before the detach wrote it left the
     * buffer attached, so that the next MPI_Buffer_attach was refused */
    int rc = MPI_Buffer_detach(&b, size);
    return bsend_detached(c, rc, b);
}

#if MPI_VERSION >= 4
int rp_buffer_detach_c(rp_state *c, void *buffer_addr, MPI_Count *size)
{
    (void)buffer_addr;
    void *b = NULL;
    int rc = MPI_Buffer_detach_c(&b, size);
    return bsend_detached(c, rc, b);
}
#endif

MPI_Op rp_op(rp_state *c, int64_t id)
{
#define X(i, n) \
    if (id == i) \
        return n;
    SIOT_PREDEF_OPS(X)
#undef X
    uintptr_t v = map_get(&c->op, id);
    return v ? FROM(MPI_Op, v) : MPI_OP_NULL;
}

MPI_File rp_file(rp_state *c, int64_t id)
{
    uintptr_t v = map_get(&c->file, id);
    return v ? FROM(MPI_File, v) : MPI_FILE_NULL;
}
void rp_set_file(rp_state *c, int64_t id, MPI_File h) { map_set(&c->file, id, h == MPI_FILE_NULL ? 0 : BITS(h)); }
void rp_drop_file(rp_state *c, int64_t id) { map_set(&c->file, id, 0); }

MPI_Request rp_req(rp_state *c, int64_t id)
{
    uintptr_t v = map_get(&c->req, id);
    return v ? FROM(MPI_Request, v) : MPI_REQUEST_NULL;
}
void rp_set_req(rp_state *c, int64_t id, MPI_Request h) { map_set(&c->req, id, h == MPI_REQUEST_NULL ? 0 : BITS(h)); }
void rp_drop_req(rp_state *c, int64_t id) { map_set(&c->req, id, 0); }

static void fill_random(rp_state *c, void *b, size_t cap);

MPI_Win rp_win(rp_state *c, int64_t id)
{
    uintptr_t v = map_get(&c->win, id);
    return v ? FROM(MPI_Win, v) : MPI_WIN_NULL;
}
void rp_set_win(rp_state *c, int64_t id, MPI_Win h) { map_set(&c->win, id, h == MPI_WIN_NULL ? 0 : BITS(h)); }
void rp_drop_win(rp_state *c, int64_t id) { map_set(&c->win, id, 0); }

void *rp_winmem(rp_state *c, int64_t size)
{
    if (size < 0 || (uint64_t)size > SIZE_MAX / 2)
        return NULL;
    void *p = malloc(size ? (size_t)size : 1);
    if (!p)
        return NULL;
    siot_vbuf_put(&c->winmem, &p, sizeof p);
    if (c->winmem.oom) {
        free(p);
        return NULL;
    }
    /* what a Get reads back is then the replay's random bytes, as for files */
    fill_random(c, p, (size_t)size);
    return p;
}

/* The window's memory is found by its base (MPI_WIN_BASE) among what
 * rp_winmem gave; memory MPI allocated (MPI_Win_allocate) is MPI's. */
int rp_win_free(rp_state *c, MPI_Win *win)
{
    void *base = NULL;
    int flag = 0;
    if (MPI_Win_get_attr(*win, MPI_WIN_BASE, &base, &flag) != MPI_SUCCESS || !flag)
        base = NULL;
    int rc = MPI_Win_free(win);
    for (size_t i = 0; base && rc == MPI_SUCCESS && i + sizeof base <= c->winmem.len; i += sizeof base) {
        void *p;
        memcpy(&p, c->winmem.data + i, sizeof p);
        if (p != base)
            continue;
        free(p);
        memmove(c->winmem.data + i, c->winmem.data + i + sizeof p, c->winmem.len - i - sizeof p);
        c->winmem.len -= sizeof p;
        break;
    }
    return rc;
}

int rp_peer(int64_t v)
{
    return v == SIOT_ANY_SOURCE ? MPI_ANY_SOURCE : v == SIOT_PROC_NULL ? MPI_PROC_NULL : v == SIOT_ROOT ? MPI_ROOT : (int)v;
}

int rp_tag(int64_t v) { return v == SIOT_ANY_TAG ? MPI_ANY_TAG : (int)v; }

static void wildcard(rp_state *c, int64_t source, int64_t tag, int *s, int *t)
{
    int fixed = 0;
    if (*s == MPI_ANY_SOURCE && source >= 0)
        *s = (int)source, fixed = 1;
    if (*t == MPI_ANY_TAG && tag >= 0)
        *t = (int)tag, fixed = 1;
    c->wildcards_matched += (uint64_t)fixed;
}

void rp_wildcard_status(rp_state *c, const siot_value *status, int *source, int *tag)
{
    int64_t s, t;
    if ((*source == MPI_ANY_SOURCE || *tag == MPI_ANY_TAG) && rp_match_status(status, &s, &t))
        wildcard(c, s, t, source, tag);
}

void rp_wildcard_req(rp_state *c, int64_t req, int *source, int *tag)
{
    int64_t s, t;
    if ((*source == MPI_ANY_SOURCE || *tag == MPI_ANY_TAG) && c->match &&
        rp_match_request(c->match, c->seq, req, &s, &t))
        wildcard(c, s, t, source, tag);
}

/* ------------------------------------------------------------ buffers */

/* Random contents, copied from a block made once. */
static void fill_random(rp_state *c, void *b, size_t cap)
{
    for (size_t off = 0; off < cap; off += c->randcap) {
        size_t n = cap - off < c->randcap ? cap - off : c->randcap;
        memcpy((unsigned char *)b + off, c->random, n);
    }
}

static void *slot_area(rp_state *c, int slot, size_t bytes)
{
    if (slot < 0 || slot >= RP_SLOTS)
        slot = RP_SLOTS - 1;
    if (bytes == 0)
        bytes = 1;
    if (bytes > c->bufcap[slot]) {
        /* A pending receive (MPI_Irecv, a receive freed while active) may
         * still write into the old area: it is kept until the end, never
         * moved or freed under it; doubling bounds what is kept. */
        size_t cap = bytes > 2 * c->bufcap[slot] ? bytes : 2 * c->bufcap[slot];
        void *b = NULL; /* aligned: the slot's area may be an O_DIRECT transfer's */
        /* room in the list for the old area first, so that it is never lost */
        if ((c->buf[slot] && !siot_vbuf_reserve(&c->retired, sizeof c->buf[slot])) ||
            posix_memalign(&b, RP_BUF_ALIGN, cap) != 0)
            return NULL;
        if (c->buf[slot])
            siot_vbuf_put(&c->retired, &c->buf[slot], sizeof c->buf[slot]);
        fill_random(c, b, cap);
        c->buf[slot] = b;
        c->bufcap[slot] = cap;
    }
    return c->buf[slot];
}

void *rp_buf(rp_state *c, int slot, int64_t bytes)
{
    return slot_area(c, slot, bytes > 0 ? (size_t)bytes : 1);
}

struct iovec *rp_iov(rp_state *c, const siot_value *lens, int slot)
{
    if (lens->kind != SIOT_V_ARR)
        return NULL;
    size_t total = 0;
    for (uint32_t i = 0; i < lens->n; i++)
        total += lens->arr[i] > 0 ? (size_t)lens->arr[i] : 0;
    /* the data start on an aligned boundary after the iovecs (O_DIRECT);
     * segments of aligned lengths, as O_DIRECT's are, stay aligned */
    size_t head = ((lens->n + 1) * sizeof(struct iovec) + RP_BUF_ALIGN - 1) / RP_BUF_ALIGN * RP_BUF_ALIGN;
    unsigned char *area = slot_area(c, slot, head + total);
    if (!area)
        return NULL;
    struct iovec *iov = (struct iovec *)(void *)area;
    unsigned char *data = area + head;
    for (uint32_t i = 0; i < lens->n; i++) {
        iov[i].iov_base = data;
        iov[i].iov_len = lens->arr[i] > 0 ? (size_t)lens->arr[i] : 0;
        data += iov[i].iov_len;
    }
    return iov;
}

const char *rp_str(rp_state *c, const siot_value *v, int slot)
{
    (void)c;
    (void)slot;
    return v->kind == SIOT_V_STR ? v->s : "";
}

/* ------------------------------------------------------------ temporary files, aio */

int rp_at_mkostemps(rp_state *c, const char *path, int suffixlen, int flags)
{
    (void)c;
    (void)suffixlen;
    return open(path, O_RDWR | O_CREAT | O_TRUNC | (flags & ~O_ACCMODE), 0600);
}
int rp_at_mkstemp(rp_state *c, const char *path) { return rp_at_mkostemps(c, path, 0, 0); }
int rp_at_mkostemp(rp_state *c, const char *path, int flags) { return rp_at_mkostemps(c, path, 0, flags); }
int rp_at_mkstemps(rp_state *c, const char *path, int suffixlen) { return rp_at_mkostemps(c, path, suffixlen, 0); }

int rp_aio_fields(rp_state *c, const siot_value *v, int64_t i, int64_t out[4])
{
    if (v->kind != SIOT_V_ARR || i < 0 || (uint64_t)(i + 1) * 4 > v->n)
        return -1;
    const int64_t *r = v->arr + 4 * i;
    if (r[0] == -2) /* the program's NULL (aio_cancel of all a descriptor's requests) */
        return -2;
    int fd = rp_fd(c, r[0]);
    if (fd < 0)
        return -1;
    out[0] = fd;
    out[1] = r[1];
    out[2] = r[2] > 0 ? r[2] : 0;
    out[3] = r[3];
    return fd;
}

const char *rp_text(rp_state *c, int64_t n, int slot)
{
    if (n < 0)
        n = 0;
    char *s = slot_area(c, slot, (size_t)n + 1);
    if (!s)
        return "";
    for (int64_t i = 0; i < n; i++)
        s[i] = (char)('a' + (c->random[i % (int64_t)c->randcap] % 26));
    if (n > 0)
        s[n - 1] = '\n';
    s[n] = 0;
    return s;
}

const wchar_t *rp_wtext(rp_state *c, int64_t n, int slot)
{
    if (n < 0)
        n = 0;
    wchar_t *s = slot_area(c, slot, ((size_t)n + 1) * sizeof(wchar_t));
    if (!s)
        return L"";
    for (int64_t i = 0; i < n; i++)
        s[i] = (wchar_t)(L'a' + (c->random[i % (int64_t)c->randcap] % 26));
    if (n > 0)
        s[n - 1] = L'\n';
    s[n] = 0;
    return s;
}

int64_t rp_mpi_err_class(int code)
{
    int cls = code;
    if (code != MPI_SUCCESS && MPI_Error_class(code, &cls) != MPI_SUCCESS)
        cls = code;
    return cls;
}

void rp_out_result(rp_state *c, int64_t recorded, int64_t got)
{
    if (recorded == got || c->skip_why)
        return;
    c->different_results++;
    c->result_differs = 1;
    c->result_recorded = recorded;
    c->result_got = got;
}

int rp_result(rp_state *c, int64_t recorded, int64_t got)
{
    if (c->skip_why) /* a replayer of replay= could not reissue the call, and said why */
        return RP_SKIP;
    if (recorded != got && c->read_by_order && recorded >= 0 && got >= 0) {
        c->order_results++;
        return RP_DONE;
    }
    if (recorded != got && c->removal_by_order && (got == 0 || (got == -1 && errno == ENOENT))) {
        c->order_results++;
        return RP_DONE;
    }
    if (recorded != got && c->delete_by_order && (got == MPI_SUCCESS || got == MPI_ERR_NO_SUCH_FILE)) {
        c->order_results++;
        return RP_DONE;
    }
    rp_out_result(c, recorded, got);
    return RP_DONE;
}

/* ------------------------------------------------------------ POSIX helpers */

int rp_fresh_fd(rp_state *c, int oldfd)
{
    (void)c;
    long t = syscall(SYS_fcntl, oldfd, F_DUPFD, 100);
    if (t >= 0)
        syscall(SYS_close, t);
    return (int)t;
}

int rp_dup_target(rp_state *c, int64_t id, int oldfd)
{
    int fd = rp_fd(c, id);
    return fd >= 0 ? fd : rp_fresh_fd(c, oldfd);
}

int rp_untraced_fd(rp_state *c)
{
    if (c->untraced_fd < 0) {
        int p[2];
        if (syscall(SYS_pipe2, p, O_CLOEXEC) == 0)
            c->untraced_fd = p[1]; /* both ends stay open for the whole replay */
    }
    return c->untraced_fd;
}

/* fcntl's third argument from its recorded value: an integer, a struct
 * flock, or RP_NO_ARG for a pointer command whose argument was not recorded. */
void *rp_fcntl_arg(rp_state *c, int cmd, const siot_value *v)
{
    switch (cmd) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
    case F_GETFD:
    case F_SETFD:
    case F_GETFL:
    case F_SETFL:
        return (void *)(intptr_t)rp_i(v);
    }
    if (!siot_fcntl_lock_cmd(cmd) || v->kind != SIOT_V_ARR || v->n != 4)
        return RP_NO_ARG;
    memset(&c->flock, 0, sizeof c->flock);
    c->flock.l_type = (short)v->arr[0];
    c->flock.l_whence = (short)v->arr[1];
    c->flock.l_start = (off_t)v->arr[2];
    c->flock.l_len = (off_t)v->arr[3];
    return &c->flock;
}

/* Is path (relative to the root, which is the working directory) free of
 * symbolic links that lead outside the root? Components that do not exist
 * yet are fine: they will be created inside. */
static int confined(rp_state *c, const char *path)
{
    char prefix[4200];
    size_t n = strlen(path);
    if (n >= sizeof prefix)
        return 0;
    for (size_t i = 0; i <= n; i++) {
        if (path[i] != '/' && path[i] != 0)
            continue;
        memcpy(prefix, path, i);
        prefix[i] = 0;
        struct stat st;
        if (syscall(SYS_newfstatat, AT_FDCWD, prefix, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return 1; /* does not exist: created here, inside the root */
        if (!S_ISLNK(st.st_mode))
            continue;
        char *real = realpath(prefix, NULL); /* libc resolves internally: not a traced call */
        size_t rl = strlen(c->root);
        int inside = real && strncmp(real, c->root, rl) == 0 && (real[rl] == '/' || real[rl] == 0);
        free(real);
        if (!inside)
            return 0;
    }
    return 1;
}

/* mkdir -p of path's parent directories, with raw system calls, inside the
 * root (the working directory). */
static void make_parents(const char *path)
{
    char p[4200];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p; (s = strchr(s, '/')); s++) {
        if (!s[1]) /* "d/": d is the name itself (mdtest's mkdir), no parent */
            break;
        *s = 0;
        if (p[0])
            syscall(SYS_mkdirat, AT_FDCWD, p, 0755);
        *s = '/';
    }
}

const char *rp_from_cwd(const rp_state *c, const char *s)
{
    size_t k = siot_path_under(c->cwd, s, strlen(s));
    if (k && !s[k])
        return "."; /* the directory itself: the root */
    return s + k;
}

const char *rp_path(rp_state *c, const siot_value *v, int64_t rec_ret)
{
    if (v->kind != SIOT_V_STR)
        return NULL;
    char *out = c->path[c->npath++ & 1];
    const char *s = rp_from_cwd(c, v->s);
    /* A relative path without "." or ".." is used as recorded: the replay runs
     * in the root. Others are rebuilt component by component; ".." never
     * climbs above the root and a leading "/" is dropped. */
    int plain = s[0] != '/' && strlen(s) < 4096;
    for (const char *p = s; plain && *p; p++)
        if (p[0] == '.' && (p == s || p[-1] == '/') && (p[1] == '/' || p[1] == 0 || (p[1] == '.' && (p[2] == '/' || p[2] == 0))))
            plain = 0;
    if (plain) {
        snprintf(out, 4200, "%s", s);
    } else {
        size_t len = 0;
        size_t stack[1024];
        int depth = 0;
        out[0] = 0;
        for (const char *p = s; *p;) {
            while (*p == '/')
                p++;
            const char *e = p;
            while (*e && *e != '/')
                e++;
            size_t cl = (size_t)(e - p);
            if (cl == 0)
                break;
            if (cl == 1 && p[0] == '.') {
            } else if (cl == 2 && p[0] == '.' && p[1] == '.') {
                if (depth > 0)
                    len = stack[--depth];
            } else {
                if (depth >= 1024 || len + cl + 2 >= 4200) {
                    c->refused_paths++;
                    return NULL;
                }
                stack[depth++] = len;
                if (len)
                    out[len++] = '/';
                memcpy(out + len, p, cl);
                len += cl;
            }
            p = e;
        }
        out[len] = 0;
        if (len == 0)
            snprintf(out, 4200, ".");
    }
    if (!confined(c, out)) {
        c->refused_paths++;
        return NULL;
    }
    if (rec_ret >= 0 && strchr(out, '/'))
        make_parents(out);
    return out;
}

/* ------------------------------------------------------------ links, ranges, handles */

/* A symbolic link's target for the replay (see rp.h), or NULL. */
static const char *link_target(rp_state *c, const char *target)
{
    if (target[0] != '/')
        return target;
    siot_value v = {.kind = SIOT_V_STR, .s = target, .slen = strlen(target)};
    const char *in = rp_path(c, &v, -1); /* no parents made: a target need not exist */
    if (!in)
        return NULL;
    size_t n = strlen(c->root) + strlen(in) + 2;
    char *out = slot_area(c, 0, n);
    if (!out)
        return NULL;
    snprintf(out, n, "%s/%s", c->root, in);
    return out;
}

int rp_confined_symlink(rp_state *c, const char *target, const char *linkpath)
{
    const char *t = link_target(c, target);
    if (!t)
        return rp_skip(c, "a link target that cannot be kept inside the replay root"), -1;
    return symlink(t, linkpath);
}

int rp_confined_symlinkat(rp_state *c, const char *target, int newdirfd, const char *linkpath)
{
    const char *t = link_target(c, target);
    if (!t)
        return rp_skip(c, "a link target that cannot be kept inside the replay root"), -1;
    return symlinkat(t, newdirfd, linkpath);
}

/* A regular file (type 0 is one too) or a FIFO is made as the program made
 * it: the names are the replay's, under its root. A device node is not: it
 * would give the replay (often root) access to a device, and its number
 * names the original machine's device; a socket's mknod makes no socket
 * anyone listens on. */
static int mknod_makes(rp_state *c, mode_t mode)
{
    mode_t type = mode & S_IFMT;
    if (type == 0 || type == S_IFREG || type == S_IFIFO)
        return 1;
    return rp_skip(c, "a device node or socket: the replay does not make one"), 0;
}

int rp_made_mknod(rp_state *c, const char *pathname, mode_t mode, dev_t dev)
{
    return mknod_makes(c, mode) ? mknod(pathname, mode, dev) : -1;
}

int rp_made_mknodat(rp_state *c, int dirfd, const char *pathname, mode_t mode, dev_t dev)
{
    return mknod_makes(c, mode) ? mknodat(dirfd, pathname, mode, dev) : -1;
}

int rp_mapped_close_range(rp_state *c, const siot_value *ids, unsigned int last, int flags)
{
    (void)last;
    int ret = 0;
    for (uint32_t i = 0; ids->kind == SIOT_V_ARR && i < ids->n; i++) {
        int fd = rp_fd(c, ids->arr[i]);
        if (fd < 0)
            continue; /* opened by a call the replay did not reissue */
        if (!((unsigned)flags & CLOSE_RANGE_CLOEXEC))
            rp_aio_closing(c, fd);
        if (close_range((unsigned)fd, (unsigned)fd, flags) != 0)
            ret = -1;
        else if (!((unsigned)flags & CLOSE_RANGE_CLOEXEC))
            rp_drop_fd(c, ids->arr[i]);
    }
    return ret;
}

void rp_mapped_closefrom(rp_state *c, const siot_value *ids) { rp_mapped_close_range(c, ids, ~0u, 0); }

int rp_sized_name_to_handle_at(rp_state *c, int dirfd, const char *pathname, struct file_handle *handle, int *mount_id,
                         int flags)
{
    (void)handle;
    struct file_handle *h = slot_area(c, RP_READ_BANK + 2, sizeof *h + MAX_HANDLE_SZ);
    if (!h)
        return rp_skip(c, "no memory for a file handle"), -1;
    h->handle_bytes = MAX_HANDLE_SZ;
    return name_to_handle_at(dirfd, pathname, h, mount_id, flags);
}

/* ------------------------------------------------------------ MPI helpers */

MPI_Info rp_info(rp_state *c, const siot_value *v)
{
    (void)c;
    if (v->kind != SIOT_V_STR || v->slen == 0)
        return MPI_INFO_NULL;
    MPI_Info info;
    if (PMPI_Info_create(&info) != MPI_SUCCESS)
        return MPI_INFO_NULL;
    char *copy = strndup(v->s, v->slen);
    for (char *save = NULL, *kv = copy ? strtok_r(copy, ";", &save) : NULL; kv; kv = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(kv, '=');
        if (!eq)
            continue;
        *eq = 0;
        PMPI_Info_set(info, kv, eq + 1);
    }
    free(copy);
    return info;
}

void rp_info_free(MPI_Info *info)
{
    if (*info != MPI_INFO_NULL)
        PMPI_Info_free(info);
}

int *rp_ints(rp_state *c, const siot_value *v, int slot)
{
    if (v->kind != SIOT_V_ARR)
        return NULL;
    int *a = slot_area(c, slot, (v->n + 1) * sizeof *a);
    for (uint32_t i = 0; a && i < v->n; i++)
        a[i] = (int)v->arr[i];
    return a;
}

/* Recorded int64 arrays as MPI_Aint or MPI_Count arrays. */
#define DEFINE_RP_WIDE(name, T)                                     \
    T *name(rp_state *c, const siot_value *v, int slot)             \
    {                                                               \
        if (v->kind != SIOT_V_ARR)                                  \
            return NULL;                                            \
        T *a = slot_area(c, slot, (v->n + 1) * sizeof *a);          \
        for (uint32_t i = 0; a && i < v->n; i++)                    \
            a[i] = (T)v->arr[i];                                    \
        return a;                                                   \
    }
DEFINE_RP_WIDE(rp_aints, MPI_Aint)
#if MPI_VERSION >= 4
DEFINE_RP_WIDE(rp_counts, MPI_Count)
#endif

/* rp_dtypes and rp_reqs: one loop, twice, as the handles' types differ (an
 * MPI_Datatype and an MPI_Request need not be of one size). */
MPI_Datatype *rp_dtypes(rp_state *c, const siot_value *v, int slot)
{
    if (v->kind != SIOT_V_ARR)
        return NULL;
    MPI_Datatype *a = slot_area(c, slot, (v->n + 1) * sizeof *a);
    for (uint32_t i = 0; a && i < v->n; i++)
        a[i] = rp_dtype(c, v->arr[i]);
    return a;
}

MPI_Datatype *rp_dtype_outs(rp_state *c, int slot, int64_t n)
{
    return slot_area(c, slot, (size_t)(n > 0 ? n + 1 : 1) * sizeof(MPI_Datatype));
}

/* The recorded ids of the datatypes MPI_Type_get_contents returned, each a
 * reference to the replay's handle at the same place (predefined ones keep
 * their fixed ids). */
void rp_dtype_refs(rp_state *c, const siot_value *ids, const MPI_Datatype *got)
{
    for (uint32_t i = 0; got && ids->kind == SIOT_V_ARR && i < ids->n; i++)
        if (ids->arr[i] >= SIOT_DTYPE_BASE && got[i] != MPI_DATATYPE_NULL)
            map_set_ref(c, &c->dtype, ids->arr[i], BITS(got[i]));
}

int *rp_int_scratch(rp_state *c, int slot, int64_t n) { return slot_area(c, slot, (size_t)(n > 0 ? n : 1) * sizeof(int)); }

MPI_Status *rp_statuses(rp_state *c, int slot, int64_t n)
{
    return slot_area(c, slot, (size_t)(n > 0 ? n : 1) * sizeof(MPI_Status));
}

/* rp_dtypes' loop for requests (why twice: there). */
MPI_Request *rp_reqs(rp_state *c, const siot_value *ids, int slot)
{
    if (ids->kind != SIOT_V_ARR)
        return NULL;
    MPI_Request *r = slot_area(c, slot, (ids->n + 1) * sizeof *r);
    for (uint32_t i = 0; r && i < ids->n; i++)
        r[i] = rp_req(c, ids->arr[i]);
    return r;
}

const char *rp_reqs_unknown(rp_state *c, const siot_value *ids)
{
    for (uint32_t i = 0; ids->kind == SIOT_V_ARR && i < ids->n; i++)
        if (ids->arr[i] != -1 && rp_req(c, ids->arr[i]) == MPI_REQUEST_NULL)
            return rp_missing(c, RP_K_REQ, ids->arr[i]);
    return NULL;
}

void rp_reqs_post(rp_state *c, const siot_value *ids, const MPI_Request *reqs)
{
    if (ids->kind != SIOT_V_ARR || !reqs)
        return;
    for (uint32_t i = 0; i < ids->n; i++)
        if (reqs[i] == MPI_REQUEST_NULL && ids->arr[i] >= 0)
            rp_drop_req(c, ids->arr[i]);
}

int64_t rp_commsize(MPI_Comm comm)
{
    int n = 1, inter = 0;
    if (comm == MPI_COMM_NULL)
        return 1;
    if (PMPI_Comm_test_inter(comm, &inter) == MPI_SUCCESS && inter)
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n > 0 ? n : 1;
}

int64_t rp_localsize(MPI_Comm comm)
{
    int n = 1;
    if (comm != MPI_COMM_NULL)
        PMPI_Comm_size(comm, &n);
    return n > 0 ? n : 1;
}

/* Bytes spanned by count elements of t, and where element 0 starts in them. */
static size_t span(MPI_Datatype t, int64_t count, size_t *lead)
{
    MPI_Aint lb = 0, ext = 1, tlb = 0, text = 0;
    *lead = 0;
    if (t == MPI_DATATYPE_NULL || count <= 0)
        return 1;
    PMPI_Type_get_extent(t, &lb, &ext);
    PMPI_Type_get_true_extent(t, &tlb, &text);
    int64_t lo = tlb < 0 ? tlb : 0;
    int64_t hi = (int64_t)tlb + (count - 1) * (int64_t)(ext > 0 ? ext : 0) + (int64_t)text;
    if (ext < 0)
        lo += (count - 1) * (int64_t)ext;
    *lead = (size_t)(-lo);
    return hi > lo ? (size_t)(hi - lo) : 1;
}

void *rp_mpibuf(rp_state *c, int slot, int64_t count, MPI_Datatype t, int64_t factor)
{
    size_t lead;
    int64_t elems = count * (factor > 0 ? factor : 1);
    MPI_Aint tlb = 0, text = 0, lb = 0, ext = 0;
    if (t != MPI_DATATYPE_NULL && elems > 0 && PMPI_Type_get_true_extent(t, &tlb, &text) == MPI_SUCCESS &&
        PMPI_Type_get_extent(t, &lb, &ext) == MPI_SUCCESS && tlb > 0 && ext >= 0) {
        /* The data starts tlb bytes past the buffer: a datatype of absolute
         * addresses used with MPI_BOTTOM (MPI_Get_address) or a leading gap.
         * Only the bytes MPI touches are allocated, and the buffer is given
         * as that area less tlb. */
        size_t n = (size_t)((elems - 1) * (int64_t)ext + (int64_t)text);
        unsigned char *b = slot_area(c, slot, n);
        return b ? (void *)((uintptr_t)b - (uintptr_t)tlb) : NULL;
    }
    size_t n = span(t, elems, &lead);
    unsigned char *b = slot_area(c, slot, n);
    return b ? b + lead : NULL;
}

/* The i-th recorded value of an array (counts, displacements of any width). */
static int64_t nth(const siot_value *v, int64_t i)
{
    return v && v->kind == SIOT_V_ARR && i < (int64_t)v->n ? v->arr[i] : 0;
}

static int64_t arr_len(const siot_value *v) { return v && v->kind == SIOT_V_ARR ? (int64_t)v->n : 0; }

/* A send side whose counts the program did not give (a null array) is
 * MPI_IN_PLACE: MPI reads no send counts then (Alltoallv, Alltoallw). */
static int in_place_send(int slot, const siot_value *counts)
{
    return slot < RP_READ_BANK && (!counts || counts->kind == SIOT_V_NONE);
}

/* The area of a v-collective's side, from its counts and displacements. */
static void *v_area(rp_state *c, int slot, const siot_value *counts, const siot_value *displs, MPI_Datatype t)
{
    /* Displacements may be negative (a root that gathers into blocks it
     * allocated apart, relative to the first): the area then starts at the
     * lowest one, and the buffer given to MPI is bot elements into it. */
    int64_t top = 1, bot = 0, sum = 0;
    for (int64_t i = 0; i < arr_len(counts); i++) {
        int64_t start = arr_len(displs) ? nth(displs, i) : sum;
        int64_t end = start + nth(counts, i);
        sum += nth(counts, i);
        if (end > top)
            top = end;
        if (nth(counts, i) > 0 && start < bot)
            bot = start;
    }
    MPI_Aint lb = 0, ext = 0;
    if (bot < 0 && (t == MPI_DATATYPE_NULL || PMPI_Type_get_extent(t, &lb, &ext) != MPI_SUCCESS || ext <= 0))
        bot = 0;
    unsigned char *b = rp_mpibuf(c, slot, top - bot, t, 1);
    return b ? b - bot * (int64_t)ext : NULL;
}

void *rp_mpibuf_v(rp_state *c, int slot, const siot_value *counts, const siot_value *displs, MPI_Datatype t)
{
    return in_place_send(slot, counts) ? MPI_IN_PLACE : v_area(c, slot, counts, displs, t);
}

/* Counts recorded at the root only (Scatterv's send side): none means a
 * rank that is not the root, whose buffer MPI does not read, never
 * MPI_IN_PLACE. Open MPI 4.1 refuses MPI_IN_PLACE as the send buffer of a
 * rank whose rank equals root, before it looks whether the communicator
 * is an intercommunicator, where root names a rank of the other group: the
 * receiving group's rank 0 of a Scatterv from the other group's rank 0 got
 * MPI_ERR_ARG, and its group waited for it (MPICH's coll/icscatterv). Such
 * a rank is given a one-element area, as a program gives some buffer. */
void *rp_mpibuf_v_root(rp_state *c, int slot, const siot_value *counts, const siot_value *displs, MPI_Datatype t)
{
    return v_area(c, slot, counts, displs, t);
}

void *rp_mpibuf_w(rp_state *c, int slot, const siot_value *counts, const siot_value *displs, const MPI_Datatype *t)
{
    if (in_place_send(slot, counts))
        return MPI_IN_PLACE;
    int64_t top = 1, bot = 0, sum = 0;
    for (int64_t i = 0; t && i < arr_len(counts); i++) {
        size_t lead;
        int64_t bytes = (int64_t)span(t[i], nth(counts, i), &lead) + (int64_t)lead;
        int64_t start = arr_len(displs) ? nth(displs, i) : sum;
        int64_t end = start + bytes;
        sum += bytes;
        if (end > top)
            top = end;
        if (nth(counts, i) > 0 && start < bot)
            bot = start; /* byte displacements below the buffer: as rp_mpibuf_v */
    }
    unsigned char *b = slot_area(c, slot, (size_t)(top - bot));
    return b ? b - bot : NULL;
}

/* ---------------------------------------- completions as recorded */

int rp_poll(rp_state *c)
{
    c->polled = 1;
    return RP_SKIP;
}

/* Bounded: MPI_Request_get_status does not drive a generalized request
 * (MPICH's MPI-IO requests are ones, completed by their poll function in
 * MPI_Test/Wait only), so after AWAIT_NS the test is made as it is; if it
 * then finds less than the original did, that is a difference, not a hang. */
#define AWAIT_NS 20000000LL

void rp_await(rp_state *c, MPI_Request r)
{
    (void)c;
    int flag = 0;
    double end = PMPI_Wtime() + AWAIT_NS * 1e-9;
    while (r != MPI_REQUEST_NULL && PMPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag &&
           PMPI_Wtime() < end)
        ;
}

void rp_await_all(rp_state *c, const MPI_Request *reqs, int64_t n)
{
    for (int64_t i = 0; reqs && i < n; i++)
        rp_await(c, reqs[i]);
}

void rp_await_message(rp_state *c, int source, int tag, MPI_Comm comm)
{
    (void)c;
    if (comm != MPI_COMM_NULL)
        PMPI_Probe(source, tag, comm, MPI_STATUS_IGNORE);
}

#define RP_RETEST_S 10.0

int rp_retest(rp_state *c)
{
    double now = PMPI_Wtime();
    if (c->retest_until == 0)
        c->retest_until = now + RP_RETEST_S;
    return now < c->retest_until;
}

/* The set's requests (held[i] MPI_REQUEST_NULL) all complete, or the
 * deadline passed: looked at in turn, so that each wait drives progress
 * for all (bounded as rp_await, for the requests get_status cannot drive). */
#define AWAIT_SET_NS 500000000LL

static void await_set(const MPI_Request *reqs, const MPI_Request *held, int64_t n)
{
    double end = PMPI_Wtime() + AWAIT_SET_NS * 1e-9;
    for (int pending = 1; pending && PMPI_Wtime() < end;) {
        pending = 0;
        for (int64_t i = 0; i < n; i++) {
            int flag = 1;
            if (held[i] == MPI_REQUEST_NULL && reqs[i] != MPI_REQUEST_NULL &&
                PMPI_Request_get_status(reqs[i], &flag, MPI_STATUS_IGNORE) == MPI_SUCCESS && !flag)
                pending = 1;
        }
    }
}

static int hold_room(rp_state *c, int64_t n)
{
    if (n <= c->heldcap)
        return 0;
    MPI_Request *h = realloc(c->held, (size_t)n * sizeof *h);
    if (!h)
        return -1;
    c->held = h;
    c->heldcap = n;
    return 0;
}

void rp_hold_others(rp_state *c, MPI_Request *reqs, int64_t n, const siot_value *done, int test)
{
    c->nheld = 0;
    int64_t ndone = done->kind == SIOT_V_ARR ? (int64_t)done->n : done->kind == SIOT_V_INT;
    if (!reqs || n <= 0 || ndone == 0 || hold_room(c, n) != 0)
        return;
    for (int64_t i = 0; i < n; i++)
        c->held[i] = reqs[i];
    int given = 0;
    for (int64_t k = 0; k < ndone; k++) {
        int64_t i = done->kind == SIOT_V_ARR ? done->arr[k] : done->i;
        if (i < 0 || i >= n) /* MPI_UNDEFINED: all were null */
            continue;
        if (test && ndone == 1)
            rp_await(c, reqs[i]);
        c->held[i] = MPI_REQUEST_NULL;
        given++;
    }
    if (!given)
        return;
    /* MPI_Waitsome and MPI_Testsome return what is complete when they look:
     * given only the run's set, they could still return part of it (the
     * run's nonblocking3: 15 of 19), so the set is awaited whole first */
    if (ndone > 1)
        await_set(reqs, c->held, n);
    for (int64_t i = 0; i < n; i++)
        if (c->held[i] != MPI_REQUEST_NULL)
            reqs[i] = MPI_REQUEST_NULL;
    c->nheld = n;
}

void rp_put_back_others(rp_state *c, MPI_Request *reqs)
{
    for (int64_t i = 0; reqs && i < c->nheld; i++)
        if (c->held[i] != MPI_REQUEST_NULL)
            reqs[i] = c->held[i];
    c->nheld = 0;
}

/* ------------------------------------------------------------ state */

void rp_init(rp_state *c, int rank, const char *root)
{
    memset(c, 0, sizeof *c);
    c->rank = rank;
    c->root = root;
    c->msg = MPI_MESSAGE_NULL;
    c->untraced_fd = -1;
    /* Without memory for the 1 MiB block, a small static one: every buffer
     * fill steps by randcap, which must never be 0. */
    static unsigned char fallback[4096];
    c->randcap = 1 << 20;
    c->random = malloc(c->randcap);
    c->random_owned = c->random != NULL;
    if (!c->random) {
        c->random = fallback;
        c->randcap = sizeof fallback;
    }
    uint64_t x = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(rank + 1);
    for (size_t i = 0; i < c->randcap; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        c->random[i] = (unsigned char)x;
    }
}

void rp_free(rp_state *c)
{
    rp_aio_finish(c); /* before the buffers go: none is glibc's any more */
    for (int i = 0; i < RP_SLOTS; i++)
        free(c->buf[i]);
    for (size_t i = 0; i + sizeof(void *) <= c->retired.len; i += sizeof(void *)) {
        void *old;
        memcpy(&old, c->retired.data + i, sizeof old);
        free(old);
    }
    siot_vbuf_free(&c->retired);
    /* windows the program never freed: MPI_Finalize has ended them */
    for (size_t i = 0; i + sizeof(void *) <= c->winmem.len; i += sizeof(void *)) {
        void *p;
        memcpy(&p, c->winmem.data + i, sizeof p);
        free(p);
    }
    siot_vbuf_free(&c->winmem);
    siot_vbuf_free(&c->more_refs);
    rp_map *maps[] = {&c->fd,    &c->stream, &c->dir,  &c->dirfd, &c->comm, &c->group,
                      &c->dtype, &c->op,     &c->file, &c->req,   &c->win};
    for (unsigned i = 0; i < sizeof maps / sizeof *maps; i++)
        free(maps[i]->v);
    if (c->random_owned)
        free(c->random);
    free(c->held);
    rp_unmade_free(&c->unmade);
    if (c->bsend_buf) { /* attached until the end: MPI_Finalize detaches it */
        void *b;
        int n;
        PMPI_Buffer_detach(&b, &n);
        free(c->bsend_buf);
        c->bsend_buf = NULL;
    }
}
