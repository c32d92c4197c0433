/* posix_record: what the generated POSIX and stdio wrappers need beyond the
 * runtime: iovec sizes, fcntl arguments, pointer results, aio requests.
 *
 * Locks: the helpers that record or look up ids run between siot_end and
 * siot_finish, under the recorder lock; siot_stream_pos before the call and
 * the SIOT_*_TRACED filters run without it (src/handles.h).
 *
 * Errors: none returned: a value that cannot be stored is left unrecorded
 * (src/runtime.h); ids are -1 for a descriptor not traced. siot_stream_pos
 * answers -1 for a stream without a position, and keeps errno. */
#ifndef SIOT_POSIX_RECORD_H
#define SIOT_POSIX_RECORD_H

#include <aio.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <wchar.h>

#include "core/fcntl_cmd.h"
#include "src/interpose.h"
#include "src/record.h"

static inline int64_t siot_ptr_ok(const void *p) { return p != NULL && p != MAP_FAILED; }

/* scandir's filter and comparison functions, as the spec writes them. */
typedef int siot_dirent_filter(const struct dirent *);
typedef int siot_dirent_compar(const struct dirent **, const struct dirent **);
typedef int siot_dirent64_filter(const struct dirent64 *);
typedef int siot_dirent64_compar(const struct dirent64 **, const struct dirent64 **);

/* iovec arrays are recorded as the list of their lengths. */
static inline void siot_put_iov(siot_raw *ev, uint32_t k, const struct iovec *iov, int64_t n)
{
    if (!iov || n < 0 || n > SIOT_MAX_ARRAY)
        return;
    int64_t *a = siot_put_arr(ev, k, (uint32_t)n);
    if (a)
        for (int64_t i = 0; i < n; i++)
            a[i] = (int64_t)iov[i].iov_len;
}

/* fcntl's third argument: an integer for integer commands, the lock
 * [type, whence, start, len] for the record-lock commands (struct flock),
 * nothing for the other pointer ones. */
static inline int64_t siot_fcntl_arg(int cmd, void *arg, int64_t ret)
{
    switch (cmd) {
    case F_DUPFD:
    case F_DUPFD_CLOEXEC:
        return (int64_t)(intptr_t)arg;
    case F_SETFD:
    case F_SETFL:
    case F_SETOWN:
#ifdef F_SETSIG
    case F_SETSIG:
#endif
#ifdef F_SETLEASE
    case F_SETLEASE:
#endif
#ifdef F_NOTIFY
    case F_NOTIFY:
#endif
#ifdef F_SETPIPE_SZ
    case F_SETPIPE_SZ:
#endif
#ifdef F_ADD_SEALS
    case F_ADD_SEALS:
#endif
        return (int64_t)(int)(intptr_t)arg;
    default:
        return 0;
    }
}

static inline void siot_put_fcntl_arg(siot_raw *ev, uint32_t k, int cmd, void *arg, int64_t ret)
{
    if (siot_fcntl_lock_cmd(cmd) && arg) {
        const struct flock *fl = arg;
        int64_t *a = siot_put_arr(ev, k, 4);
        if (a) {
            a[0] = fl->l_type;
            a[1] = fl->l_whence;
            a[2] = fl->l_start;
            a[3] = fl->l_len;
        }
        return;
    }
    siot_put_int(ev, k, siot_fcntl_arg(cmd, arg, ret));
}

/* dup2's (dup3's) target after the call: traced, keeping its id if it had
 * one (the dup event says which file it now refers to), or, when the source
 * was not traced, untraced, recorded as the id it held and lost. Under the lock. */
static inline int64_t siot_fd_dup_to(int old_traced, int oldfd, int newfd, int ok)
{
    if (!ok || oldfd == newfd)
        return siot_fd_id(newfd);
    if (!old_traced)
        return siot_fd_drop(newfd);
    int64_t id = siot_fd_id(newfd);
    return id >= 0 ? id : siot_fd_new(newfd);
}

/* fcntl's result: the id of the new descriptor for F_DUPFD, else as is. */
static inline int64_t siot_fcntl_ret(int cmd, int ret)
{
    if ((cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC) && ret >= 0)
        return siot_fd_new(ret);
    return ret;
}

/* A scan's bytes: how far it moved its stream's position (-1 where the
 * stream has none, a pipe: then 0). errno is the call's, not ftello's. */
static inline int64_t siot_stream_pos(FILE *f)
{
    /* the real ftello: the program's (the tracer's interposer) would record it */
    static off_t (*real_ftello)(FILE *);
    int e = errno;
    int64_t p = f ? (int64_t)SIOT_REAL_FN(real_ftello, "ftello")(f) : -1;
    errno = e;
    return p;
}
static inline int64_t siot_stream_moved(int64_t before, FILE *f)
{
    int64_t after = siot_stream_pos(f);
    return before >= 0 && after > before ? after - before : 0;
}

/* aio requests (struct aiocb and struct aiocb64 alike, hence macros): a
 * request is recorded as [fd id, offset, nbytes, lio_opcode]; a NULL one as
 * fd id -2. The call is recorded when one of its descriptors is traced. */
static inline void siot_aio4(int64_t *a, int has, int fd, int64_t off, int64_t n, int op)
{
    a[0] = has ? siot_fd_id(fd) : -2;
    a[1] = has ? off : 0;
    a[2] = has ? n : 0;
    a[3] = has ? op : 0;
}
#define SIOT_AIO4(a, cb)                                                                                        \
    siot_aio4((a), (cb) != NULL, (cb) ? (cb)->aio_fildes : -1, (cb) ? (int64_t)(cb)->aio_offset : 0,          \
              (cb) ? (int64_t)(cb)->aio_nbytes : 0, (cb) ? (cb)->aio_lio_opcode : 0)
#define SIOT_PUT_AIOCB(ev, k, cb)                                                                               \
    do {                                                                                                        \
        int64_t *siot_a_ = siot_put_arr((ev), (k), 4);                                                          \
        if (siot_a_)                                                                                            \
            SIOT_AIO4(siot_a_, (cb));                                                                           \
    } while (0)
#define SIOT_PUT_AIOLIST(ev, k, list, n)                                                                        \
    do {                                                                                                        \
        int64_t siot_n_ = ((list) && (n) > 0 && (int64_t)(n) <= SIOT_MAX_ARRAY / 4) ? (int64_t)(n) : 0;        \
        int64_t *siot_a_ = siot_put_arr((ev), (k), (uint32_t)(4 * siot_n_));                                    \
        for (int64_t siot_i_ = 0; siot_a_ && siot_i_ < siot_n_; siot_i_++)                                      \
            SIOT_AIO4(siot_a_ + 4 * siot_i_, (list)[siot_i_]);                                                  \
    } while (0)
#define SIOT_AIOCB_TRACED(cb) ((cb) != NULL && siot_fd_traced((cb)->aio_fildes))
#define SIOT_AIOLIST_TRACED(list, n)                                                                            \
    __extension__({                                                                                             \
        int siot_t_ = 0;                                                                                        \
        for (int64_t siot_i_ = 0; (list) && siot_i_ < (int64_t)(n) && !siot_t_; siot_i_++)                      \
            siot_t_ = SIOT_AIOCB_TRACED((list)[siot_i_]);                                                       \
        siot_t_;                                                                                                \
    })

#endif
