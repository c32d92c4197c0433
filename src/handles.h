/* handles: small stable ids for opaque handles (handles.c) and the
 * descriptors, streams and directories the tracer follows (descriptors.c).
 *
 * Locks: the id tables (siot_h_*) are used under the recorder lock (between
 * siot_end and siot_finish, or around a call that takes it). The filters
 * siot_fd_traced (an atomic bitmap) is lock-free; siot_stream_traced and
 * siot_dir_traced are lock-free for the handles not traced (siot_h_maybe)
 * and take the lock for the others; siot_fd_closing, siot_h_closing and
 * siot_dir_closing take the lock themselves (lock.h, rule 1).
 * Signals: a signal that comes while the thread holds the lock waits until
 * it lets go (lock.h, rule 2), so a handler never finds a table half
 * changed; an ending's handler reads the counters only (siot_h_unknown_uses,
 * under the lock it then holds; siot_h_gone_lost, atomic). siot_h_gone is
 * lock-free and safe from any thread.
 * Below the lock only (descriptors.c takes it); the wrappers reach it
 * through runtime.h.
 * Errors: an unknown handle has id -1; a table that cannot grow gives -1.
 */
#ifndef SIOT_HANDLES_H
#define SIOT_HANDLES_H

#include <stdint.h>

enum siot_hkind {
    SIOT_H_FD,
    SIOT_H_STREAM,
    SIOT_H_DIR,
    SIOT_H_COMM,
    SIOT_H_GROUP,
    SIOT_H_DTYPE,
    SIOT_H_OP,
    SIOT_H_FILE,
    SIOT_H_REQ,
    SIOT_H_MSG,
    SIOT_H_HID,
    SIOT_H_NCID,
    SIOT_H_NCREQ,
    SIOT_H_WIN,
    SIOT_NHKINDS
};
/* id of key; assigns a new id when the key is not known yet. */
int32_t siot_h_id(int kind, uintptr_t key);
/* id of key or -1 when not known (does not assign). */
int32_t siot_h_find(int kind, uintptr_t key);
/* id of a key that is not the null handle's: SIOT_ID_UNKNOWN when it was
 * not seen made (counted: siot_h_unknown_uses). */
int32_t siot_h_find_known(int kind, uintptr_t key);
uint64_t siot_h_unknown_uses(void);
/* A fresh id for a newly created handle. A key already mapped is replaced
 * (its object was freed unseen), except a group made by a creation seen
 * before: MPI gave the live object again, and this is one more reference
 * to the same id (docs/handles.md, references). */
int32_t siot_h_new(int kind, uintptr_t key);
/* A handle a call hands out that may be a live object's own, one more
 * reference the program frees once (MPI_Type_get_contents: MPICH returns
 * the constituent type itself with its reference count raised, Open MPI a
 * new handle): a live key keeps its id and counts one more reference, any
 * other key gets a new id. */
int32_t siot_h_ref(int kind, uintptr_t key);
/* The id siot_h_new would give now. */
int32_t siot_h_next(int kind);
/* A new handle with the given id when it is free (ids agreed between ranks),
 * else the lowest free one. */
int32_t siot_h_new_at(int kind, uintptr_t key, int32_t id);
/* Releases the id of key; returns it (or -1). Of a key with several
 * references (siot_h_new) one is dropped, and the id stays taken until the last. */
int32_t siot_h_release(int kind, uintptr_t key);
/* Handles a library may free where the tracer cannot see (MPI-IO frees
 * its own copies of datatypes with PMPI_Type_free): a mapping can carry a
 * tag, and a free learnt some other way (an MPI attribute's delete
 * callback, pmpi/mpi_record.c) is reported with siot_h_gone. The mapping is
 * dropped, its id free again, at the next lookup of any kind (siot_h_find,
 * _id, _new, _new_at, _next) if it still carries that tag; so an id that
 * MPI reuses the handle value of is not taken for the old object, and ids
 * stay the lowest free ones whatever order the library frees in.
 * siot_h_tag: a new tag (nonzero) for key's mapping, 0 when key is not
 * mapped or holds a predefined id. siot_h_gone: lock-free, safe from any
 * thread and from inside MPI; when its 256 waiting places are full the free
 * is lost (counted: siot_h_gone_lost) and the old mapping stays. */
uint64_t siot_h_tag(int kind, uintptr_t key);
void siot_h_gone(int kind, uintptr_t key, uint64_t tag);
uint64_t siot_h_gone_lost(void);
/* Predefined handle with a fixed id. */
void siot_h_fixed(int kind, uintptr_t key, int32_t id);
/* Ids below base are reserved for predefined handles. */
void siot_h_set_base(int kind, int32_t base);
/* Forgets every handle of a kind (a wait for all pending requests). */
void siot_h_clear(int kind);
void siot_h_reset_all(void);

/* Descriptor and stream bookkeeping. siot_fd_traced is the cheap filter
 * before a call; the others run under the rank lock (between siot_end and
 * siot_finish). Descriptors are recorded as ids like other handles (from 3,
 * lowest free first), so ranks whose runtimes hold different numbers of
 * descriptors still record the same values. */
/* fd just opened: traced from now on; returns its id. One beyond the bitmap
 * is not traced, but has an id all the same (never its number). */
int64_t siot_fd_new(int fd);
/* The bitmap of traced descriptors and their ids + 1 (descriptors.c), for
 * the two lookups below, inlined into every wrapper of a call on a
 * descriptor: a call to them cost more than their work. siot_fdwords is set
 * once, at start-up. */
extern uint64_t *siot_fdbits;
extern int32_t *siot_fdids;
extern uint32_t siot_fdwords;
static inline int siot_fd_traced(int fd)
{
    if (fd < 0 || (uint32_t)fd / 64 >= siot_fdwords)
        return 0;
    return (__atomic_load_n(&siot_fdbits[fd / 64], __ATOMIC_RELAXED) >> (fd % 64)) & 1;
}
/* id of a traced fd, -1 if not traced */
static inline int64_t siot_fd_id(int fd)
{
    if (fd < 0)
        return fd;
    if ((uint32_t)fd / 64 >= siot_fdwords)
        return -1; /* never traced: siot_fd_new leaves such a descriptor out */
    return (int64_t)__atomic_load_n(&siot_fdids[fd], __ATOMIC_RELAXED) - 1;
}
/* fd about to be closed: no longer traced, its id freed and returned (-1
 * if it was not traced). Done before the real close: once the kernel frees
 * the number another thread's open may get it, and must keep its own id. */
int64_t siot_fd_closing(int fd);
/* The same, under the lock the caller holds. */
int64_t siot_fd_drop(int fd);
/* Descriptors first..last closed by one call (close_range, closefrom;
 * last clamped to the bitmap): the traced ones are released as
 * siot_fd_closing releases one, or, when flags has CLOSE_RANGE_CLOEXEC
 * (they stay open), only looked up; their ids go to ids (at most
 * SIOT_RANGE_IDS of them: the others are released unrecorded), in
 * increasing descriptor order. Returns how many were stored. Takes the lock. */
#define SIOT_RANGE_IDS 256
int siot_fd_closing_range(int64_t first, int64_t last, int flags, int64_t *ids);
/* Lock-free: whether one of first..last is traced. */
int siot_fd_range_traced(int64_t first, int64_t last);
/* The same for a FILE* or DIR* (kind SIOT_H_STREAM, SIOT_H_DIR) about to be closed. */
int64_t siot_h_closing(int kind, const void *handle);
/* A DIR* a traced opendir or fdopendir just returned (under the lock): its
 * descriptor (dirfd) is traced as a descriptor opened by that call (for
 * fdopendir, given_fd, the one it was given keeps its open's id), and the
 * DIR* takes the same id, so that an *at call on dirfd(dir) (the role
 * dirfd) records the id the opendir returned. Only a descriptor beyond the
 * bitmap leaves the DIR* an id of its own (docs/handles.md). dirfd() itself
 * is not traced: a query. */
int64_t siot_dir_new(void *dir, int given_fd);
/* A traced DIR* about to be closed (closedir): its id and, when it is the
 * DIR*'s, its descriptor's released; returns the id (-1 if not traced).
 * Takes the lock. */
int64_t siot_dir_closing(void *dir);
/* Lock-free: 0 when a FILE* or DIR* (kind SIOT_H_STREAM, SIOT_H_DIR) is
 * certainly not traced; 1 when it may be (the filters then look it up). */
int siot_h_maybe(int kind, uintptr_t key);
int siot_stream_traced(const void *stream);
int siot_dir_traced(const void *dir);
/* A path in the MPI library's private session directory (Open MPI's
 * $OMPI_MCA_orte_jobfam_session_dir: its shared-memory and lock files,
 * named after the run's process ids): calls on it are not recorded. */
int siot_path_private(const char *path);
/* The descriptor bitmap, sized from RLIMIT_NOFILE (start-up). */
void siot_fd_init(void);
/* Forgets every traced descriptor (a new session: MPI_Init). */
void siot_fd_forget_all(void);

#endif
