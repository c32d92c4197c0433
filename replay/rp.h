/* rp: what the generated replayers (build/<flavour>/gen/replay_*.c) use to
 * turn recorded values back into call arguments: handles from ids, paths
 * confined to the replay root, buffers of the recorded sizes, MPI objects
 * recreated from their recorded construction. One rp_state per rank.
 *
 * Errors: lookups answer the kind's null (MPI_*_NULL, -1 for a descriptor,
 * NULL for a stream or directory) for an id the replay does not hold, and
 * the generated replayer skips the call; rp_path gives NULL for a path it
 * cannot confine (refused_paths). Scratch helpers return NULL without
 * memory (rp_text "") or, for arrays, for a value that is not one; the
 * replayers pass buffers on unchecked. A handle that cannot be stored (no
 * memory, an id of 2^24 or more) is dropped without a word. Replayers
 * return RP_DONE, or RP_SKIP with skip_why; nothing here exits. */
#ifndef SIOT_RP_H
#define SIOT_RP_H

#include <aio.h>
#include <dirent.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <wchar.h>

#include "core/model.h"
#include "replay/handles.h"

enum { RP_DONE = 0, RP_SKIP = 1 };

/* Scratch areas: one per parameter position, and a second bank for the
 * buffers that reads and receives fill (RP_READ_BANK + position), so that
 * a write never sends back what a read brought in (zeros from a hole,
 * where the program wrote its data). */
#define RP_READ_BANK 24
#define RP_SLOTS (2 * RP_READ_BANK)
/* The alignment of the data buffers (scratch slots, iovec data, aio
 * requests): a program that opened with O_DIRECT read and wrote from
 * aligned memory, and the kernel refuses (EINVAL) any other. 4096 covers
 * the logical block size of the usual devices and the page size. */
#define RP_BUF_ALIGN 4096

typedef struct rp_map {
    uintptr_t *v; /* id -> handle bits (0 = none) */
    uint32_t n;
} rp_map;

typedef struct rp_state {
    int rank;
    /* handles by kind */
    rp_map fd, stream, dir, comm, group, dtype, op, file, req, win;
    /* the descriptor + 1 of each DIR* in `dir`, which `fd` also maps under
     * the DIR*'s id (rp_set_dir) */
    rp_map dirfd;
    /* Groups and datatypes made again while their id is live (the trace's
     * second MPI_Comm_group of one communicator, a type MPI_Type_get_contents
     * returned: one id, two references): the references the newest one in
     * `group` or `dtype` covers, as rp_more_ref entries, oldest first; a free
     * of the id gives it back its previous one. */
    siot_vbuf more_refs;
    siot_vbuf winmem; /* memory exposed by windows the replay made with MPI_Win_create (void *) */
    MPI_Message msg; /* from the last Mprobe/Improbe, for Mrecv/Imrecv */
    int untraced_fd;  /* a descriptor the original did not trace (a pipe's end), for dup2 from one */
    struct flock flock; /* fcntl's record lock */
    void *bsend_buf;    /* attached with MPI_Buffer_attach */
    /* scratch */
    void *buf[RP_SLOTS];
    size_t bufcap[RP_SLOTS];
    siot_vbuf retired; /* areas a slot outgrew (void *), freed at the end */
    unsigned char *random; /* random bytes that buffers are filled from */
    int random_owned;      /* random was malloc'd (else a static block) */
    size_t randcap;
    /* paths */
    const char *root; /* absolute, no trailing slash */
    const char *cwd;  /* the run's working directory (note cwd), or NULL */
    char path[2][4200];
    int npath;
    /* counters for the report */
    uint64_t skipped_unknown, refused_paths, different_results;
    /* The call is a read made by the MPI-IO library, reissued at the POSIX
     * level: the file's size it sees was set by the order of the ranks'
     * writes, which the library's own messages gave and a POSIX-level replay
     * does not reissue; a size other than the recorded one is counted here,
     * not as a different result. ioreplay sets it per call; rp_aio.c sets
     * it for the aio_return of any aio read, whose size the moment its
     * transfer ran decided. */
    int read_by_order;
    /* The call is a removal (unlink, unlinkat, remove) made inside an
     * MPI-IO call, or any call made by MPI_File_delete in a job of several
     * ranks, reissued at the POSIX level, that succeeded or found no file
     * in the run: when every rank makes and removes the same file
     * there (Open MPI's MPI_File_open tests locks on FILE.locktest.N so),
     * which rank finds it gone is the order of their calls; 0 against -1
     * ENOENT is counted here, not as a different result. */
    int removal_by_order;
    /* The call is an MPI_File_delete of a job of several ranks that deleted
     * the file or found it gone in the run: which rank deletes a file that
     * every rank deletes is the order of their calls; success against
     * MPI_ERR_NO_SUCH_FILE is counted here (compare.h, deletes_by_order). */
    int delete_by_order;
    uint64_t order_results; /* results of those kinds that differed */
    /* the last call: why it was not reissued (rp_skip), and its result when
     * it differed from the recorded one (rp_result); ioreplay clears them */
    const char *skip_why;
    int result_differs;
    int64_t result_recorded, result_got;
    int polled;             /* the last call was a poll that found nothing (rp_poll) */
    /* Wildcard receives: the senders they matched in the run (replay/match.h),
     * the rank's event being replayed (ioreplay sets it per call), and how
     * many receives were posted for the run's sender or tag instead of a
     * wildcard. match NULL: receives are posted as recorded. */
    struct rp_match *match;
    int64_t seq;
    uint64_t wildcards_matched;
    double retest_until;    /* rp_retest's deadline for the current call (0: none yet) */
    MPI_Request *held;      /* rp_hold_others: the requests held back (MPI_REQUEST_NULL: given) */
    int64_t nheld, heldcap;
    rp_unmade unmade; /* objects made by calls not reissued (ioreplay notes them) */
    struct rp_aio **aio; /* aio requests started and not ended, oldest first (rp_aio.c) */
    size_t naio, aiocap;
    uint64_t aio_read_bytes, aio_written_bytes; /* by the replay's aio requests, for the report */
} rp_state;

typedef int (*rp_fn)(rp_state *c, const siot_value *a, int64_t rec_ret);
typedef struct rp_entry {
    const char *name;
    rp_fn fn;
    const char *why; /* why it is never reissued (NULL: it is, or may be) */
    uint32_t nargs;  /* the recorded arguments it reads: a trace's function with others is not its */
} rp_entry;
extern const rp_entry rp_table[];
extern const uint32_t rp_table_n;

/* ---- values ---- */
static inline int64_t rp_i(const siot_value *v) { return v->kind == SIOT_V_INT ? v->i : 0; }
const char *rp_str(rp_state *c, const siot_value *v, int slot);
/* A string of n printable characters (the data of fputs). */
const char *rp_text(rp_state *c, int64_t n, int slot);
/* n printable wide characters, the last a newline (the data of fputws, fwprintf). */
const wchar_t *rp_wtext(rp_state *c, int64_t n, int slot);
/* The call cannot be reissued, for this reason (a string constant). */
static inline int rp_skip(rp_state *c, const char *why)
{
    c->skip_why = why;
    return RP_SKIP;
}
/* Why an MPI object of the kind has no handle in the replay: the call that
 * made it was not reissued (rp_unmade), else its creation is missing. */
static inline const char *rp_missing(const rp_state *c, int kind, int64_t id)
{
    const char *why = rp_unmade_why(&c->unmade, kind, id);
    return why ? why : rp_id_missing(kind, id);
}
/* Compares the replay's result with the recorded one (for the report). */
int rp_result(rp_state *c, int64_t recorded, int64_t got);
/* The same for a value the call wrote (a size, a position): counted as a
 * different result; the call stays reissued. */
void rp_out_result(rp_state *c, int64_t recorded, int64_t got);
/* An MPI return code as traces record it: 0 or the error class. */
int64_t rp_mpi_err_class(int code);

/* ---- POSIX ---- */
/* The path a replay uses for a recorded one: under the root, lexically
 * normalised, no component a symbolic link leading outside the root; NULL
 * (and the call is skipped) when it cannot be confined. When the recorded call
 * succeeded, missing parent directories are made (they existed in the run:
 * made by a job script, or outside the directory it ran in). */
const char *rp_path(rp_state *c, const siot_value *v, int64_t rec_ret);
/* A recorded absolute path inside the run's working directory (the trace's
 * note cwd) as the relative one it names: the replay runs in its root, so
 * "/run/dir/out.dat" and "out.dat", one file in the run, are one in the
 * replay (OMPIO removes a file opened as "out.dat" by its absolute name). */
const char *rp_from_cwd(const rp_state *c, const char *s);
int rp_fd(rp_state *c, int64_t id);
/* An *at call's directory (recorded by the role dirfd): AT_FDCWD for the
 * current directory, and for any descriptor when the path is absolute (the
 * kernel ignores it, and rp_path makes such a path relative to the root);
 * else the replay's descriptor of the traced one, -1 when there is none. */
int rp_dirfd(rp_state *c, int64_t id, const siot_value *path);
void rp_set_fd(rp_state *c, int64_t id, int fd);
void rp_drop_fd(rp_state *c, int64_t id);
FILE *rp_stream(rp_state *c, int64_t id);
void rp_set_stream(rp_state *c, int64_t id, FILE *f);
void rp_drop_stream(rp_state *c, int64_t id);
DIR *rp_dir(rp_state *c, int64_t id);
/* A DIR* and its descriptor share the recorded id (src/handles.h
 * siot_dir_new): rp_set_dir maps the id to dirfd(d) among the descriptors
 * too (for an *at call on it, an fstat of it), unless the id already names
 * another descriptor (a trace made before they shared ids); rp_drop_dir,
 * after closedir, drops that descriptor too. */
void rp_set_dir(rp_state *c, int64_t id, DIR *d);
void rp_drop_dir(rp_state *c, int64_t id);
/* dup2's target: a free descriptor number that will stand for the id. */
int rp_fresh_fd(rp_state *c, int oldfd);
/* dup2's target: the descriptor of the traced id it keeps, or a fresh one. */
int rp_dup_target(rp_state *c, int64_t id, int oldfd);
/* A descriptor that the tracer does not trace, made once per replay. */
int rp_untraced_fd(rp_state *c);
#define RP_NO_ARG ((void *)-1)
void *rp_fcntl_arg(rp_state *c, int cmd, const siot_value *v);
void *rp_buf(rp_state *c, int slot, int64_t bytes);
struct iovec *rp_iov(rp_state *c, const siot_value *lens, int slot);
/* Temporary files (mkstemp and friends): made with open() at the name the
 * original got, under the root (the random part is not drawn again); a
 * traced replay records them as opens of that name. */
int rp_at_mkstemp(rp_state *c, const char *path);
int rp_at_mkostemp(rp_state *c, const char *path, int flags);
int rp_at_mkstemps(rp_state *c, const char *path, int suffixlen);
int rp_at_mkostemps(rp_state *c, const char *path, int suffixlen, int flags);
/* A symbolic link: a relative target as recorded (it is resolved from the
 * link's directory, and any path through the link is confined when used);
 * an absolute one under the root. Skipped when it cannot be confined. */
int rp_confined_symlink(rp_state *c, const char *target, const char *linkpath);
int rp_confined_symlinkat(rp_state *c, const char *target, int newdirfd, const char *linkpath);
/* mknod, mknodat: a regular file or a FIFO is made as recorded; a device
 * node or a socket is skipped with the reason. */
int rp_made_mknod(rp_state *c, const char *pathname, mode_t mode, dev_t dev);
int rp_made_mknodat(rp_state *c, int dirfd, const char *pathname, mode_t mode, dev_t dev);
/* close_range, closefrom: the replay's descriptors of the recorded ids
 * (ids: the array of role fdrange) are closed one by one (close_range of
 * one descriptor, with the call's flags: with CLOSE_RANGE_CLOEXEC they stay
 * open and mapped), never a range: the replay's own descriptors stay open. */
int rp_mapped_close_range(rp_state *c, const siot_value *ids, unsigned int last, int flags);
void rp_mapped_closefrom(rp_state *c, const siot_value *ids);
/* name_to_handle_at with a handle area of MAX_HANDLE_SZ bytes (the
 * program's is not recorded). */
int rp_sized_name_to_handle_at(rp_state *c, int dirfd, const char *pathname, struct file_handle *handle, int *mount_id,
                         int flags);
/* aio requests (replay/rp_aio.c): each recorded start (aio_read, aio_write,
 * aio_fsync, lio_listio) starts a real request on an aiocb of the replay's
 * own, with a buffer of the recorded size, kept in c's table until a
 * recorded aio_return ends it; aio_error, aio_return, aio_suspend and
 * aio_cancel are reissued on the replay's aiocb of the recorded request
 * (the oldest alike: descriptor, offset, nbytes, lio_opcode). A completion
 * that found its request complete in the run first waits for the replay's,
 * without a traced call; an aio_error that found it running (EINPROGRESS)
 * and an aio_suspend that timed out are polls (rp_poll). A completion whose
 * request the replay did not start is skipped with the reason. Requests
 * never completed are completed at a close of their descriptor and at the
 * end (rp_aio_finish); their bytes are counted in aio_read_bytes and
 * aio_written_bytes. rp_aio_fields: request i of a recorded [fd id, offset,
 * nbytes, opcode]... array, its descriptor mapped; -1 when the descriptor is
 * unknown, -2 for a NULL request. The 64 calls take the same struct
 * (rp_aio.c asserts it) and a flag. */
int rp_aio_fields(rp_state *c, const siot_value *v, int64_t i, int64_t out[4]);
#define RP_AIO_FILL(c, v, i, cb)                                                                               \
    __extension__({                                                                                            \
        int64_t rp_f_[4];                                                                                      \
        int rp_ok_ = rp_aio_fields((c), (v), (i), rp_f_);                                                      \
        if (rp_ok_ >= 0) {                                                                                     \
            (cb)->aio_fildes = (int)rp_f_[0];                                                                  \
            (cb)->aio_offset = rp_f_[1];                                                                       \
            (cb)->aio_nbytes = (size_t)rp_f_[2];                                                               \
            (cb)->aio_lio_opcode = (int)rp_f_[3];                                                              \
        }                                                                                                      \
        rp_ok_;                                                                                                \
    })
enum { RP_AIO_SYNC = -1 }; /* the kind of an aio_fsync request (else LIO_READ, LIO_WRITE) */
int rp_aio_start(rp_state *c, int kind, int wide, const struct aiocb *r, int op);
int rp_aio_list(rp_state *c, int wide, int mode, struct aiocb *const *list, int64_t listed, int nent);
int rp_aio_error_as(rp_state *c, int64_t rec, int wide, const struct aiocb *r);
ssize_t rp_aio_return_as(rp_state *c, int64_t rec, int wide, const struct aiocb *r);
int rp_aio_suspend_as(rp_state *c, int64_t rec, int wide, const struct aiocb *const *list, int64_t listed, int nent);
int rp_aio_cancel_as(rp_state *c, int64_t rec, int wide, int fd, const struct aiocb *r);
/* A close of fd: its requests complete first, then no later call finds them. */
void rp_aio_closing(rp_state *c, int fd);
/* The end of the replay: every request still in the table completed. */
void rp_aio_finish(rp_state *c);
#define RP_AIOCB(cb) ((const struct aiocb *)(const void *)(cb))
#define RP_AIOLIST(l) ((struct aiocb *const *)(void *)(l))
#define rp_start_aio_read(c, cb) rp_aio_start((c), LIO_READ, 0, RP_AIOCB(cb), 0)
#define rp_start_aio_read64(c, cb) rp_aio_start((c), LIO_READ, 1, RP_AIOCB(cb), 0)
#define rp_start_aio_write(c, cb) rp_aio_start((c), LIO_WRITE, 0, RP_AIOCB(cb), 0)
#define rp_start_aio_write64(c, cb) rp_aio_start((c), LIO_WRITE, 1, RP_AIOCB(cb), 0)
#define rp_start_aio_fsync(c, op, cb) rp_aio_start((c), RP_AIO_SYNC, 0, RP_AIOCB(cb), (op))
#define rp_start_aio_fsync64(c, op, cb) rp_aio_start((c), RP_AIO_SYNC, 1, RP_AIOCB(cb), (op))
#define rp_start_lio_listio(c, mode, l, listed, nent, sig) rp_aio_list((c), 0, (mode), RP_AIOLIST(l), (listed), (nent))
#define rp_start_lio_listio64(c, mode, l, listed, nent, sig) rp_aio_list((c), 1, (mode), RP_AIOLIST(l), (listed), (nent))
#define rp_on_aio_error(c, rec, cb) rp_aio_error_as((c), (rec), 0, RP_AIOCB(cb))
#define rp_on_aio_error64(c, rec, cb) rp_aio_error_as((c), (rec), 1, RP_AIOCB(cb))
#define rp_on_aio_return(c, rec, cb) rp_aio_return_as((c), (rec), 0, RP_AIOCB(cb))
#define rp_on_aio_return64(c, rec, cb) rp_aio_return_as((c), (rec), 1, RP_AIOCB(cb))
#define rp_on_aio_suspend(c, rec, l, listed, nent, t) rp_aio_suspend_as((c), (rec), 0, (const struct aiocb *const *)RP_AIOLIST(l), (listed), (nent))
#define rp_on_aio_suspend64(c, rec, l, listed, nent, t) rp_aio_suspend_as((c), (rec), 1, (const struct aiocb *const *)RP_AIOLIST(l), (listed), (nent))
#define rp_on_aio_cancel(c, rec, fd, cb) rp_aio_cancel_as((c), (rec), 0, (fd), RP_AIOCB(cb))
#define rp_on_aio_cancel64(c, rec, fd, cb) rp_aio_cancel_as((c), (rec), 1, (fd), RP_AIOCB(cb))

/* ---- MPI ---- */
/* A deliberate twin, kind by kind: each MPI handle kind has its get, set
 * and drop (comm, group, dtype, op, file, req, win), spelled out rather
 * than made by a macro so that every name the generated replay calls is
 * found by grep with its type; their bodies in rp.c share map_get and
 * map_set. */
MPI_Comm rp_comm(rp_state *c, int64_t id);
void rp_set_comm(rp_state *c, int64_t id, MPI_Comm h);
void rp_drop_comm(rp_state *c, int64_t id);
MPI_Group rp_group(rp_state *c, int64_t id);
void rp_set_group(rp_state *c, int64_t id, MPI_Group h);
/* A free of one reference of the id: the one made before it, if any, is the id's again. */
void rp_drop_group(rp_state *c, int64_t id);
MPI_Datatype rp_dtype(rp_state *c, int64_t id);
void rp_set_dtype(rp_state *c, int64_t id, MPI_Datatype h);
/* A free of one reference of the id (rp_dtype_refs), as rp_drop_group. */
void rp_drop_dtype(rp_state *c, int64_t id);
/* MPI_Type_get_contents: room for n datatypes, and the recorded ids of those it returned. */
MPI_Datatype *rp_dtype_outs(rp_state *c, int slot, int64_t n);
void rp_dtype_refs(rp_state *c, const siot_value *ids, const MPI_Datatype *got);
MPI_Op rp_op(rp_state *c, int64_t id);
void rp_set_op(rp_state *c, int64_t id, MPI_Op h);
void rp_drop_op(rp_state *c, int64_t id);
void rp_user_op(void *in, void *inout, int *len, MPI_Datatype *type);
#if MPI_VERSION >= 4
void rp_user_op_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *type);
#endif
int rp_buffer_attach(rp_state *c, void *buffer, int64_t size);
/* fscanf with the recorded format: every conversion writes into one scratch
 * area as large as what is left of the file (what the values were is not
 * in the trace; how much the scan consumed and how many it assigned is). */
int rp_scan(rp_state *c, FILE *stream, const char *format);
int rp_buffer_detach(rp_state *c, void *buffer_addr, int *size);
#if MPI_VERSION >= 4
int rp_buffer_detach_c(rp_state *c, void *buffer_addr, MPI_Count *size);
#endif
/* MPI_Grequest_start with callbacks that do nothing (the status of a
 * generalized request is the program's: not compared). */
int rp_grequest_start(rp_state *c, MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                      MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request);
/* The same triples for the other kinds (why spelled out: above, at rp_comm). */
MPI_File rp_file(rp_state *c, int64_t id);
void rp_set_file(rp_state *c, int64_t id, MPI_File h);
void rp_drop_file(rp_state *c, int64_t id);
MPI_Request rp_req(rp_state *c, int64_t id);
void rp_set_req(rp_state *c, int64_t id, MPI_Request h);
void rp_drop_req(rp_state *c, int64_t id);
MPI_Win rp_win(rp_state *c, int64_t id);
void rp_set_win(rp_state *c, int64_t id, MPI_Win h);
void rp_drop_win(rp_state *c, int64_t id);
/* Memory of size bytes for a window to expose (filled from the random
 * block), held until rp_win_free frees the window or the replay ends; NULL
 * without memory or for a size out of range. */
void *rp_winmem(rp_state *c, int64_t size);
/* MPI_Win_free, and the memory rp_winmem gave the window. */
int rp_win_free(rp_state *c, MPI_Win *win);
/* "key=value;key=value" back into an info object (MPI_INFO_NULL when empty). */
MPI_Info rp_info(rp_state *c, const siot_value *v);
void rp_info_free(MPI_Info *info);
int rp_peer(int64_t v);
int rp_tag(int64_t v);
/* A receive or probe posted with MPI_ANY_SOURCE or MPI_ANY_TAG is posted
 * for the source and tag it matched in the run: from its own recorded
 * status (MPI_Recv, MPI_Sendrecv, MPI_Probe, MPI_Mprobe...), or from the
 * completion of request req that it made (MPI_Irecv). Left a wildcard
 * when the trace does not say (replay/match.h). */
void rp_wildcard_status(rp_state *c, const siot_value *status, int *source, int *tag);
void rp_wildcard_req(rp_state *c, int64_t req, int *source, int *tag);
int *rp_ints(rp_state *c, const siot_value *v, int slot);
MPI_Aint *rp_aints(rp_state *c, const siot_value *v, int slot);
#if MPI_VERSION >= 4
MPI_Count *rp_counts(rp_state *c, const siot_value *v, int slot);
#endif
MPI_Datatype *rp_dtypes(rp_state *c, const siot_value *v, int slot);
int *rp_int_scratch(rp_state *c, int slot, int64_t n);
MPI_Status *rp_statuses(rp_state *c, int slot, int64_t n);
MPI_Request *rp_reqs(rp_state *c, const siot_value *ids, int slot);
/* Completion calls whose outcome was timing, made to have the recorded
 * one. rp_poll: a test or probe that found nothing is not reissued (it is
 * counted, never compared: replay/handles.h rp_poll_found_nothing).
 * rp_hold_others: the requests at the recorded index or indices (done, an
 * int or an array) are the only ones the call is given (a test, and a
 * call that completed several, first waits until they are complete:
 * MPI_Request_get_status, bounded); the others are
 * held back and rp_put_back_others returns them to the array. rp_await,
 * rp_await_all: a test that found its request(s) complete finds them so.
 * rp_await_message: a probe that found a message waits for it. */
int rp_poll(rp_state *c);
void rp_hold_others(rp_state *c, MPI_Request *reqs, int64_t n, const siot_value *done, int test);
void rp_put_back_others(rp_state *c, MPI_Request *reqs);
void rp_await(rp_state *c, MPI_Request r);
void rp_await_all(rp_state *c, const MPI_Request *reqs, int64_t n);
void rp_await_message(rp_state *c, int source, int tag, MPI_Comm comm);
/* Whether a test that found nothing yet is made again: for RP_RETEST_S
 * seconds from the first time it is asked for this call. */
int rp_retest(rp_state *c);
/* Why a request id of the array (not -1, the null request) has no request
 * in the replay (NULL: all have one). */
const char *rp_reqs_unknown(rp_state *c, const siot_value *ids);
/* After a completion call: requests that came back null are forgotten. */
void rp_reqs_post(rp_state *c, const siot_value *ids, const MPI_Request *reqs);
/* Buffer sizes: count elements of t (times factor); the largest
 * displacement + count of a v-collective; per-type extents of a w-collective. */
void *rp_mpibuf(rp_state *c, int slot, int64_t count, MPI_Datatype t, int64_t factor);
void *rp_mpibuf_v(rp_state *c, int slot, const siot_value *counts, const siot_value *displs, MPI_Datatype t);
/* The same for counts recorded at the root only: never MPI_IN_PLACE. */
void *rp_mpibuf_v_root(rp_state *c, int slot, const siot_value *counts, const siot_value *displs, MPI_Datatype t);
void *rp_mpibuf_w(rp_state *c, int slot, const siot_value *counts, const siot_value *displs, const MPI_Datatype *t);
/* As the tracer's siot_mpi_commsize/siot_mpi_localsize (pmpi/mpi_record.h). */
int64_t rp_commsize(MPI_Comm comm);
int64_t rp_localsize(MPI_Comm comm);

void rp_init(rp_state *c, int rank, const char *root);
void rp_free(rp_state *c);

#endif
