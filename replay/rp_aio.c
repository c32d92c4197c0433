/* POSIX aio in the replay (replay/rp.h): every recorded request is started
 * for real, on an aiocb the replay owns, with a buffer of the recorded size,
 * and the completion calls are reissued on that aiocb, so that the requests
 * overlap as they did and a traced replay records the program's calls.
 *
 * The requests in flight are a table in the replay's state, oldest first. A
 * request is known by what the trace records of it: its descriptor (the
 * replay's one for the recorded fd id: the map is one to one while the id
 * is open, and a close detaches the requests of its descriptor), offset,
 * nbytes and lio_opcode. Two requests alike are told apart by age: the
 * oldest is the one a completion finds.
 *
 * The replay's own waiting (a completion that found the request complete in
 * the run) goes through libc's aio_error and aio_suspend looked up in libc
 * itself (dlsym on libc's handle), never through the symbols a tracer
 * interposes or wraps: a traced replay records no call of its own. */
#include "replay/rp.h"

#include <dlfcn.h>
#include <errno.h>
#include <gnu/lib-names.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* One struct for both names: glibc's 64-bit aiocb64 is aiocb (LP64, or
 * _FILE_OFFSET_BITS=64); the 64 calls are given the same object. */
_Static_assert(sizeof(struct aiocb) == sizeof(struct aiocb64), "struct aiocb64 differs from struct aiocb");

struct rp_aio {
    union {
        struct aiocb cb;
        struct aiocb64 cb64;
    } u;
    int kind;     /* LIO_READ, LIO_WRITE, RP_AIO_SYNC */
    int detached; /* its descriptor was closed: no later call finds it */
    void *buf;
};

/* ------------------------------------------------------------ libc, untraced */

typedef int (*error_fn)(const struct aiocb *);
typedef int (*suspend_fn)(const struct aiocb *const[], int, const struct timespec *);
typedef ssize_t (*return_fn)(struct aiocb *);
static struct {
    int tried;
    error_fn error;
    suspend_fn suspend;
    return_fn ret;
} libc;

static void find_libc(void)
{
    if (libc.tried)
        return;
    libc.tried = 1;
    void *h = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return;
    libc.error = (error_fn)dlsym(h, "aio_error");
    libc.suspend = (suspend_fn)dlsym(h, "aio_suspend");
    libc.ret = (return_fn)dlsym(h, "aio_return");
    dlclose(h); /* libc stays: RTLD_NOLOAD took a reference to what was loaded */
}

/* A request's state without a call a tracer sees: libc's aio_error, else
 * (libc not found by name) the error field glibc's aio_error reads. */
static int state_of(const struct aiocb *cb)
{
    find_libc();
    if (libc.error)
        return libc.error(cb);
    return __atomic_load_n(&cb->__error_code, __ATOMIC_ACQUIRE);
}

/* Until one of the listed requests (NULL entries aside) is complete
 * (blocking in libc's aio_suspend). */
static void wait_any(const struct aiocb *const *list, int n)
{
    for (;;) {
        for (int i = 0; i < n; i++)
            if (list[i] && state_of(list[i]) != EINPROGRESS)
                return;
        if (libc.suspend)
            libc.suspend(list, n, NULL);
        else
            sched_yield();
    }
}

static void wait_done(struct rp_aio *e)
{
    const struct aiocb *one[1] = {&e->u.cb};
    wait_any(one, 1);
}

/* ------------------------------------------------------------ the table */

static int same_request(const struct rp_aio *e, const struct aiocb *r)
{
    return !e->detached && e->u.cb.aio_fildes == r->aio_fildes && e->u.cb.aio_offset == r->aio_offset &&
           e->u.cb.aio_nbytes == r->aio_nbytes && e->u.cb.aio_lio_opcode == r->aio_lio_opcode;
}

/* The oldest request of the table like the recorded one, or NULL. */
static struct rp_aio *find(rp_state *c, const struct aiocb *r)
{
    for (size_t i = 0; r && i < c->naio; i++)
        if (same_request(c->aio[i], r))
            return c->aio[i];
    return NULL;
}

/* A new request like the recorded one (not started), at the table's end;
 * NULL without memory. Written data comes from the replay's random block. */
static struct rp_aio *add(rp_state *c, const struct aiocb *r, int kind)
{
    if (c->naio == c->aiocap) {
        size_t cap = c->aiocap ? 2 * c->aiocap : 16;
        struct rp_aio **t = realloc(c->aio, cap * sizeof *t);
        if (!t)
            return NULL;
        c->aio = t;
        c->aiocap = cap;
    }
    struct rp_aio *e = calloc(1, sizeof *e);
    size_t n = kind == RP_AIO_SYNC ? 0 : r->aio_nbytes;
    if (e && posix_memalign(&e->buf, RP_BUF_ALIGN, n ? n : 1) != 0) /* aligned for O_DIRECT */
        e->buf = NULL;
    if (!e || !e->buf) {
        free(e);
        return NULL;
    }
    for (size_t off = 0; kind == LIO_WRITE && off < n; off += c->randcap)
        memcpy((unsigned char *)e->buf + off, c->random, n - off < c->randcap ? n - off : c->randcap);
    e->kind = kind;
    e->u.cb.aio_fildes = r->aio_fildes;
    e->u.cb.aio_offset = r->aio_offset;
    e->u.cb.aio_nbytes = r->aio_nbytes;
    e->u.cb.aio_lio_opcode = r->aio_lio_opcode;
    e->u.cb.aio_buf = e->buf;
    e->u.cb.aio_sigevent.sigev_notify = SIGEV_NONE;
    c->aio[c->naio++] = e;
    return e;
}

/* Out of the table (complete: nothing uses the aiocb or its buffer). */
static void drop(rp_state *c, struct rp_aio *e)
{
    for (size_t i = 0; i < c->naio; i++)
        if (c->aio[i] == e) {
            memmove(c->aio + i, c->aio + i + 1, (c->naio - i - 1) * sizeof *c->aio);
            c->naio--;
            break;
        }
    free(e->buf);
    free(e);
}

/* The bytes of a complete transfer, for the replay's report. */
static void count_bytes(rp_state *c, const struct rp_aio *e, ssize_t n)
{
    if (n > 0 && e->kind == LIO_READ)
        c->aio_read_bytes += (uint64_t)n;
    if (n > 0 && e->kind == LIO_WRITE)
        c->aio_written_bytes += (uint64_t)n;
}

static const char *const NOT_STARTED = "an aio request that the replay did not start (its start is not in the trace, "
                                       "or was not reissued, or the request was completed already)";

/* ------------------------------------------------------------ starts */

int rp_aio_start(rp_state *c, int kind, int wide, const struct aiocb *r, int op)
{
    struct rp_aio *e = add(c, r, kind);
    if (!e)
        return rp_skip(c, "no memory for an aio request"), -1;
    int ret;
    if (kind == LIO_READ)
        ret = wide ? aio_read64(&e->u.cb64) : aio_read(&e->u.cb);
    else if (kind == LIO_WRITE)
        ret = wide ? aio_write64(&e->u.cb64) : aio_write(&e->u.cb);
    else
        ret = wide ? aio_fsync64(op, &e->u.cb64) : aio_fsync(op, &e->u.cb);
    if (ret != 0) { /* not queued: nothing to complete */
        int err = errno;
        drop(c, e);
        errno = err;
    }
    return ret;
}

/* lio_listio: the requests to read or write become the replay's (a list
 * entry the replay does not know, and LIO_NOP ones, are passed as made). */
int rp_aio_list(rp_state *c, int wide, int mode, struct aiocb *const *list, int64_t listed, int nent)
{
    if (nent < 0 || nent > listed)
        return rp_skip(c, "a list of aio requests longer than its record"), -1;
    struct aiocb **mine = calloc((size_t)nent + 1, sizeof *mine);
    if (!mine)
        return rp_skip(c, "no memory for an aio request"), -1;
    for (int i = 0; i < nent; i++) {
        mine[i] = list[i];
        int op = list[i] ? list[i]->aio_lio_opcode : LIO_NOP;
        struct rp_aio *e = op == LIO_READ || op == LIO_WRITE ? add(c, list[i], op) : NULL;
        if (e)
            mine[i] = &e->u.cb;
        else if (op == LIO_READ || op == LIO_WRITE) {
            free(mine);
            return rp_skip(c, "no memory for an aio request"), -1;
        }
    }
    /* Entries glibc did not queue (a failed lio_listio) keep the zero state
     * they were made with: complete, of 0 bytes, for the waits after. */
    int ret = wide ? lio_listio64(mode, (struct aiocb64 *const *)(void *)mine, nent, NULL)
                   : lio_listio(mode, mine, nent, NULL);
    int err = errno;
    free(mine);
    errno = err;
    return ret;
}

/* ------------------------------------------------------------ completions */

/* A recorded aio_error: EINPROGRESS is a poll that found nothing (not
 * reissued, never compared: replay/handles.c); any other outcome was a
 * complete request, and the replay's is awaited before the call. */
int rp_aio_error_as(rp_state *c, int64_t rec, int wide, const struct aiocb *r)
{
    if (rec == EINPROGRESS)
        return rp_poll(c), c->skip_why = "a poll that found its aio request running", -1;
    struct rp_aio *e = find(c, r);
    if (!e)
        return rp_skip(c, NOT_STARTED), -1;
    if (rec >= 0)
        wait_done(e);
    return wide ? aio_error64(&e->u.cb64) : aio_error(&e->u.cb);
}

/* aio_return: after the request is complete; it ends the request. A read's
 * size is what the file held when its transfer ran, a moment the trace
 * does not fix (the rank's calls after the start and other ranks' writes
 * run meanwhile): another size is a result by order (rp_result), as the
 * verdict compares it (replay/compare.h, aio_reads_by_order). */
ssize_t rp_aio_return_as(rp_state *c, int64_t rec, int wide, const struct aiocb *r)
{
    (void)rec;
    struct rp_aio *e = find(c, r);
    if (!e)
        return rp_skip(c, NOT_STARTED), -1;
    if (e->kind == LIO_READ)
        c->read_by_order = 1;
    wait_done(e);
    ssize_t n = wide ? aio_return64(&e->u.cb64) : aio_return(&e->u.cb);
    count_bytes(c, e, n);
    drop(c, e);
    return n;
}

/* aio_suspend: a return of 0 found one of the listed requests complete:
 * one of the replay's is awaited, and the call made on the replay's list; one that returned -1 (timed out, interrupted) is a poll. */
int rp_aio_suspend_as(rp_state *c, int64_t rec, int wide, const struct aiocb *const *list, int64_t listed, int nent)
{
    if (rec != 0)
        return rp_poll(c), c->skip_why = "a wait for aio requests that timed out", -1;
    if (nent < 0 || nent > listed)
        return rp_skip(c, "a list of aio requests longer than its record"), -1;
    const struct aiocb **mine = calloc((size_t)nent + 1, sizeof *mine);
    if (!mine)
        return rp_skip(c, "no memory for an aio request"), -1;
    int found = 0;
    for (int i = 0; i < nent; i++) {
        struct rp_aio *e = find(c, list[i]);
        mine[i] = e ? &e->u.cb : NULL;
        found += e != NULL;
    }
    int ret = -1;
    if (!found)
        rp_skip(c, NOT_STARTED);
    else {
        wait_any(mine, nent);
        ret = wide ? aio_suspend64((const struct aiocb64 *const *)(const void *)mine, nent, NULL)
                   : aio_suspend(mine, nent, NULL);
    }
    free(mine);
    return ret;
}

/* aio_cancel of one request (or of all the descriptor's: a NULL one). One
 * that found them all done (AIO_ALLDONE) awaits them first; whether a
 * running request can still be cancelled is the replay's timing. */
int rp_aio_cancel_as(rp_state *c, int64_t rec, int wide, int fd, const struct aiocb *r)
{
    struct rp_aio *e = r ? find(c, r) : NULL;
    if (r && !e)
        return rp_skip(c, NOT_STARTED), -1;
    for (size_t i = 0; rec == AIO_ALLDONE && i < c->naio; i++)
        if (c->aio[i] == e || (!e && !c->aio[i]->detached && c->aio[i]->u.cb.aio_fildes == fd))
            wait_done(c->aio[i]);
    return wide ? aio_cancel64(fd, e ? &e->u.cb64 : NULL) : aio_cancel(fd, e ? &e->u.cb : NULL);
}

/* ------------------------------------------------------------ ends */

void rp_aio_closing(rp_state *c, int fd)
{
    for (size_t i = 0; i < c->naio; i++)
        if (!c->aio[i]->detached && c->aio[i]->u.cb.aio_fildes == fd) {
            wait_done(c->aio[i]); /* its data reaches the file before the descriptor goes */
            c->aio[i]->detached = 1;
        }
}

/* Requests the program never completed: completed here, without a traced
 * call (libc's aio_return releases them; the aiocb must not go while glibc
 * still writes to it). */
void rp_aio_finish(rp_state *c)
{
    find_libc();
    while (c->naio) {
        struct rp_aio *e = c->aio[0];
        wait_done(e);
        count_bytes(c, e, libc.ret ? libc.ret(&e->u.cb) : e->u.cb.__return_value);
        drop(c, e);
    }
    free(c->aio);
    c->aio = NULL;
    c->aiocap = 0;
}
