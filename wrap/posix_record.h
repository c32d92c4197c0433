/* posix_record: what the generated POSIX and stdio wrappers need beyond the
 * runtime: iovec sizes, fcntl arguments, pointer results. */
#ifndef SIOT_POSIX_RECORD_H
#define SIOT_POSIX_RECORD_H

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "src/record.h"

static inline int64_t siot_ptr_ok(const void *p) { return p != NULL && p != MAP_FAILED; }

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
static inline int siot_fcntl_lock_cmd(int cmd)
{
    switch (cmd) {
    case F_GETLK:
    case F_SETLK:
    case F_SETLKW:
#ifdef F_OFD_GETLK
    case F_OFD_GETLK:
    case F_OFD_SETLK:
    case F_OFD_SETLKW:
#endif
        return 1;
    }
    return 0;
}

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

#endif
