/* descriptors: which descriptors, streams and directories are traced
 * (handles.h). A descriptor is traced when a traced call opened it; the
 * bitmap is the lock-free filter wrappers test before every call. */
#include "src/handles.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "core/salloc.h"
#include "src/lock.h"

uint64_t *siot_fdbits; /* descriptors opened under tracing */
uint32_t siot_fdwords;
/* id + 1 of each traced descriptor (0: none), read without the lock by the
 * wrappers of calls on descriptors (their filling takes no lock); written
 * with the handle table, under the recorder lock. */
int32_t *siot_fdids;
/* The MPI library's private session directory (Open MPI's, which holds its
 * shared-memory and lock files, named after the run's process ids). */
static const char *private_dir;
static size_t private_len;

static uint32_t fd_capacity(void)
{
    struct rlimit rl;
    uint64_t n = 65536;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_max != RLIM_INFINITY && rl.rlim_max > n)
        n = rl.rlim_max;
    if (n > (1u << 22))
        n = 1u << 22;
    return (uint32_t)n;
}

void siot_fd_init(void)
{
    uint32_t nfd = fd_capacity();
    siot_fdwords = (nfd + 63) / 64;
    siot_fdbits = siot_calloc(siot_fdwords, sizeof *siot_fdbits);
    siot_fdids = siot_fdbits ? siot_calloc((size_t)siot_fdwords * 64, sizeof *siot_fdids) : NULL;
    if (!siot_fdbits || !siot_fdids)
        siot_fdwords = 0;
    siot_h_set_base(SIOT_H_STREAM, 3);
    siot_h_set_base(SIOT_H_FD, 3);
    private_dir = getenv("OMPI_MCA_orte_jobfam_session_dir");
    private_len = private_dir ? strlen(private_dir) : 0;
}

int siot_path_private(const char *path)
{
    return private_len && path && strncmp(path, private_dir, private_len) == 0 &&
           (path[private_len] == '/' || path[private_len] == 0);
}

void siot_fd_forget_all(void)
{
    if (siot_fdwords) {
        memset(siot_fdbits, 0, siot_fdwords * sizeof *siot_fdbits);
        memset(siot_fdids, 0, (size_t)siot_fdwords * 64 * sizeof *siot_fdids);
    }
}

/* A descriptor the bitmap cannot hold. */
static int beyond_bitmap(int fd) { return (uint32_t)fd / 64 >= siot_fdwords; }

int64_t siot_fd_new(int fd)
{
    if (fd < 0)
        return fd;
    /* Beyond the bitmap the descriptor is not followed, but its open still
     * records an id: its number differs between ranks and runs. The id stays
     * taken until the number is opened again (its close is not seen). */
    if (beyond_bitmap(fd))
        return siot_h_new(SIOT_H_FD, (uintptr_t)fd);
    int32_t id = siot_h_new(SIOT_H_FD, (uintptr_t)fd);
    __atomic_store_n(&siot_fdids[fd], id + 1, __ATOMIC_RELAXED);
    __atomic_or_fetch(&siot_fdbits[fd / 64], 1ULL << (fd % 64), __ATOMIC_RELEASE);
    return id;
}

int64_t siot_fd_drop(int fd)
{
    if (fd < 0 || (uint32_t)fd / 64 >= siot_fdwords)
        return fd < 0 ? fd : -1;
    __atomic_and_fetch(&siot_fdbits[fd / 64], ~(1ULL << (fd % 64)), __ATOMIC_RELAXED);
    __atomic_store_n(&siot_fdids[fd], 0, __ATOMIC_RELAXED);
    return siot_h_release(SIOT_H_FD, (uintptr_t)fd);
}

int64_t siot_fd_closing(int fd)
{
    siot_lock();
    int64_t id = siot_fd_drop(fd);
    siot_unlock();
    return id;
}

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1u << 2)
#endif

/* The bitmap words first..last cover: [*w0, *w1], 0 when none. */
static int range_words(int64_t first, int64_t last, uint32_t *w0, uint32_t *w1)
{
    if (first < 0)
        first = 0;
    if (!siot_fdwords || first > last || first / 64 >= (int64_t)siot_fdwords)
        return 0;
    *w0 = (uint32_t)(first / 64);
    *w1 = last / 64 >= (int64_t)siot_fdwords ? siot_fdwords - 1 : (uint32_t)(last / 64);
    return 1;
}

static uint64_t word_in_range(uint32_t w, int64_t first, int64_t last)
{
    uint64_t bits = __atomic_load_n(&siot_fdbits[w], __ATOMIC_RELAXED);
    int64_t lo = (int64_t)w * 64;
    if (first > lo)
        bits &= ~0ULL << (first - lo);
    if (last < lo + 63)
        bits &= ~0ULL >> (63 - (last - lo));
    return bits;
}

int siot_fd_range_traced(int64_t first, int64_t last)
{
    uint32_t w0, w1;
    if (!range_words(first, last, &w0, &w1))
        return 0;
    for (uint32_t w = w0; w <= w1; w++)
        if (word_in_range(w, first, last))
            return 1;
    return 0;
}

int siot_fd_closing_range(int64_t first, int64_t last, int flags, int64_t *ids)
{
    uint32_t w0, w1;
    int n = 0;
    if (!range_words(first, last, &w0, &w1))
        return 0;
    siot_lock();
    for (uint32_t w = w0; w <= w1; w++) {
        uint64_t bits = word_in_range(w, first, last);
        while (bits) {
            int fd = (int)(w * 64) + __builtin_ctzll(bits);
            bits &= bits - 1;
            int64_t id = ((unsigned)flags & CLOSE_RANGE_CLOEXEC) ? siot_fd_id(fd) : siot_fd_drop(fd);
            if (n < SIOT_RANGE_IDS)
                ids[n++] = id;
        }
    }
    siot_unlock();
    return n;
}

int64_t siot_h_closing(int kind, const void *handle)
{
    siot_lock();
    int64_t id = handle ? siot_h_release(kind, (uintptr_t)handle) : -1;
    siot_unlock();
    return id;
}

int64_t siot_dir_new(void *dir, int given_fd)
{
    int fd = dirfd((DIR *)dir);
    if (fd < 0 || beyond_bitmap(fd)) /* an id of its own, none taken for its descriptor */
        return siot_h_new(SIOT_H_DIR, (uintptr_t)dir);
    /* fdopendir's descriptor is already traced, under the id its open gave */
    int64_t fid = given_fd && siot_fd_traced(fd) ? siot_fd_id(fd) : siot_fd_new(fd);
    if (fid < 0 || siot_fd_id(fd) != fid) /* no id to share (a table that cannot grow) */
        return siot_h_new(SIOT_H_DIR, (uintptr_t)dir);
    return siot_h_new_at(SIOT_H_DIR, (uintptr_t)dir, (int32_t)fid);
}

int64_t siot_dir_closing(void *dir)
{
    if (!dir)
        return -1;
    int fd = dirfd((DIR *)dir);
    siot_lock();
    int64_t id = siot_h_release(SIOT_H_DIR, (uintptr_t)dir);
    if (id >= 0 && siot_fd_id(fd) == id) /* its descriptor, which closedir closes */
        siot_fd_drop(fd);
    siot_unlock();
    return id;
}

/* A stream or directory handle in the table: the lock-free hint answers
 * for most handles a program passes (not traced), the table under the lock
 * for the others. Inline in both: the wrappers ask before every call. */
static inline __attribute__((always_inline)) int handle_traced(int kind, const void *p)
{
    if (!p || !siot_h_maybe(kind, (uintptr_t)p))
        return 0;
    siot_lock();
    int r = siot_h_find(kind, (uintptr_t)p) >= 0;
    siot_unlock();
    return r;
}

int siot_stream_traced(const void *stream) { return handle_traced(SIOT_H_STREAM, stream); }

int siot_dir_traced(const void *dir) { return handle_traced(SIOT_H_DIR, dir); }
