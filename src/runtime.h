/* runtime: the tracer's core, shared by every wrapper layer.
 *
 * Hot path, as generated wrappers use it:
 *
 *   if (siot_recording(LAYER) && filter) slot = siot_begin(FN);   // pre-order slot, start time
 *   ... real call ...
 *   ev = siot_end(slot);      // end time; the thread is now "inside the tracer"
 *   ... fill ev->args, ev->ret ...
 *   siot_finish(slot);        // group handed to the rank queue when outermost
 *
 * No allocation happens per call once the staging area has grown to the
 * deepest group seen, no formatting, and the only lock is the rank lock taken
 * between siot_end and siot_finish (uncontended in single-threaded ranks). */
#ifndef SIOT_RUNTIME_H
#define SIOT_RUNTIME_H

#include <limits.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "event.h"
#include "model.h"
#include "roles.h"

#define SIOT_LIKELY(x) __builtin_expect(!!(x), 1)
#define SIOT_UNLIKELY(x) __builtin_expect(!!(x), 0)

typedef struct siot_tls {
    int busy;     /* inside tracer code or an untraced region: wrappers pass through */
    int inited;
    uint32_t locks;  /* the recorder lock: held (or being waited for) by this thread */
    int ending;      /* this thread is writing the session's ending */
    uint32_t thread;
    uint32_t depth; /* traced calls in flight */
    int32_t top;    /* staging slot of the innermost call in flight, -1 if none */
    uint64_t last_mark;
    siot_raw *stage;
    uint32_t nstage, capstage;
    uint8_t *pool;
    uint32_t npool, cappool;
} siot_tls;

extern __thread siot_tls siot_t __attribute__((tls_model("initial-exec")));
/* Bit L set: layer L is being recorded. Zero before start and after the end. */
extern _Atomic uint32_t siot_layer_mask;

static inline int siot_recording(unsigned layer)
{
    return SIOT_UNLIKELY((atomic_load_explicit(&siot_layer_mask, memory_order_relaxed) >> layer) & 1u) &&
           !siot_t.busy;
}

static inline uint64_t siot_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int siot_begin(uint32_t func);
siot_raw *siot_end(int slot);
void siot_finish(int slot);

/* Pool storage for strings and arrays of the event being filled. */
void siot_put_str(siot_raw *ev, uint32_t k, const char *s);
void siot_put_strn(siot_raw *ev, uint32_t k, const char *s, size_t n);
/* Reserves room for n int64 values and returns where to write them (NULL on OOM). */
int64_t *siot_put_arr(siot_raw *ev, uint32_t k, uint32_t n);
/* Scratch bytes in the thread's pool that live until the current group is
 * flushed; returns offset+1 (0 on failure). The pool may move: re-derive
 * pointers with siot_pool_at after any call that can record. */
uint32_t siot_pool_tmp(size_t n);
void *siot_pool_at(uint32_t off1);
static inline void siot_put_int(siot_raw *ev, uint32_t k, int64_t v)
{
    ev->args[k].kind = SIOT_RV_INT;
    ev->args[k].i = v;
}

/* True when the innermost traced call in flight belongs to layer: a
 * library's calls to its own API (HDF5's H5Pcreate inside H5Fcreate) are its
 * internals, not the application's, and are not recorded. */
static inline int siot_inside_layer(unsigned layer)
{
    return siot_t.depth && siot_t.top >= 0 && siot_functab[siot_t.stage[siot_t.top].func].layer == layer;
}

/* Descriptor and stream bookkeeping. siot_fd_traced is the cheap filter
 * before a call; the others run under the rank lock (between siot_end and
 * siot_finish). Descriptors are recorded as ids like other handles (from 3,
 * lowest free first), so ranks whose runtimes hold different numbers of
 * descriptors still record the same values. */
int siot_fd_traced(int fd);
int64_t siot_fd_new(int fd);     /* fd just opened: traced from now on; returns its id */
int64_t siot_fd_id(int fd);      /* id of a traced fd, -1 if not traced */
/* fd about to be closed: no longer traced, its id freed and returned (-1
 * if it was not traced). Done before the real close: once the kernel frees
 * the number another thread's open may get it, and must keep its own id. */
int64_t siot_fd_closing(int fd);
/* The same, under the lock the caller holds. */
int64_t siot_fd_drop(int fd);
/* The same for a FILE* or DIR* (kind SIOT_H_STREAM, SIOT_H_DIR) about to be closed. */
int64_t siot_h_closing(int kind, const void *handle);
int siot_stream_traced(const void *stream);
int siot_dir_traced(const void *dir);

/* Runs f(arg) with the thread marked busy, so that calls it makes are not recorded. */
#define SIOT_UNTRACED(stmt)          \
    do {                             \
        int siot_b_ = siot_t.busy;   \
        siot_t.busy = 1;             \
        stmt;                        \
        siot_t.busy = siot_b_;       \
    } while (0)

/* ---- session control (runtime.c), used by the MPI layer ---- */
typedef struct siot_config {
    const char *trace_path; /* SIOT_TRACE */
    int compress;           /* SIOT_COMPRESS */
    int verbose;            /* SIOT_VERBOSE */
    uint32_t layers;        /* SIOT_LAYERS */
    uint32_t window;        /* SIOT_WINDOW: how far back loop folding looks */
    uint32_t stack_depth;   /* SIOT_STACK_DEPTH: frames in a call-site signature, 0 = none */
    double tolerance;       /* SIOT_TOLERANCE: percent by which folded loop counts may differ */
    const char *rank_traces; /* SIOT_RANK_TRACES: also write each rank's own trace in this directory */
    size_t max_memory;       /* SIOT_MAX_MEMORY: recorder memory before nodes are spilled to disk */
    const char *spill_dir;   /* SIOT_SPILL_DIR, else TMPDIR, else /tmp */
    uint64_t checkpoint_ns;  /* SIOT_CHECKPOINT: seconds between a rank's checkpoints (0: none) */
} siot_config;
extern siot_config siot_cfg;

void siot_runtime_init(void);
/* MPI_Init began: stop recording until siot_session_restart. */
void siot_session_pause(void);
/* MPI_Init returned: drop what was recorded before (the runtime's own start-up)
 * and start a fresh session for this rank. */
void siot_session_restart(int32_t rank, uint32_t nranks);
/* Stops recording and returns this rank's trace (nodes + tables); caller frees. */
int siot_session_take(siot_trace *t);
/* Writes t atomically to the configured path (SIOT_TRACE, else the first
 * free default name). Returns 0 or -1 with a message on stderr. */
int siot_write_trace(const siot_trace *t);
/* A trace file being written: created under a temporary name first (so
 * that a job learns at once whether its trace can be written at all),
 * committed (synced, then renamed to its name) or aborted (removed). */
typedef struct siot_out {
    int fd;
    int default_name; /* no name was given: the first free default name at commit */
    size_t len;
    char path[PATH_MAX + 32];
    char tmp[PATH_MAX + 64];
    char why[3 * PATH_MAX + 160]; /* what failed, one line */
} siot_out;
/* path NULL: the default name. 0, or -1 with o->why. */
int siot_out_open(siot_out *o, const char *path);
int siot_out_commit(siot_out *o);
/* Removes the temporary file; what (if not NULL) says why, when o->why is empty. */
void siot_out_abort(siot_out *o, const char *what);
/* All of p[0..n) to fd, with system calls (the tracer's own I/O). */
int siot_write_fd(int fd, const void *p, size_t n);
/* Writes t atomically to path (replacing it); exact: keep exact histogram bins. */
int siot_write_trace_to(const siot_trace *t, const char *path, int exact);
/* This rank's own part, <trace>.part-RRRRRR.siot, beside the trace or, when
 * that directory cannot be written, in the first of the working directory,
 * $TMPDIR and /tmp that can (where: the path written). 0 or -1 with why. */
int siot_write_part(const siot_trace *t, char *where, size_t nwhere, char *why, size_t nwhy);
/* Ends the session now and writes what was recorded: the trace (a serial
 * program), or this rank's own part `<trace>.part-RRRRRR.siot` (an MPI
 * program that cannot reach MPI_Finalize), marked partial with the reason
 * when partial. Once per process. */
int siot_end_session(const char *reason, int partial);
void siot_exit_hook(int status);
/* exec*: the trace is written before the process image is replaced; when
 * exec fails (returns), the program goes on untraced, and is told so. */
void siot_exec_hook(const char *fn, const char *path);
void siot_exec_failed(const char *fn);
/* The at-exit writer (registered again after MPI_Init, to run before the
 * MPI library's own exit handlers, which may call MPI_Finalize). */
void siot_at_exit(void);
/* True once the session has ended (the trace was taken). */
int siot_session_ended(void);
void siot_install_signal_handlers(void);
void siot_handle_pending_signal(void);
/* True when this rank sent part of its trace to the spill file. */
int siot_session_spilled(void);
/* A block of a job file (docs/format.md) holding t: this rank's own trace
 * (the one siot_session_take gave) with its spilled NODES sections when it
 * spilled, or any trace (a merge of some ranks' traces) as tables and one
 * NODES section. len and nsec are known after prepare; emit receives the
 * bytes in order. */
typedef struct siot_block {
    siot_vbuf tables, last;
    uint64_t len;
    uint32_t nsec;
    uint64_t spill_bytes; /* streamed from this rank's spill file */
} siot_block;
typedef int (*siot_emit_fn)(void *arg, const void *p, size_t n);
int siot_block_prepare(const siot_trace *t, siot_block *b);
int siot_block_emit(const siot_block *b, siot_emit_fn emit, void *arg);
void siot_block_free(siot_block *b);
/* Set by the MPI layer once MPI_Init ran: the serial at-exit writer steps aside
 * (and checkpoints, when asked for, start). */
void siot_session_set_mpi(int on);
/* After the job's trace is written (job_written 1: rank 0 says it was): this
 * rank's last checkpoint is removed, or kept when the job's trace failed (0),
 * or left to the part that superseded it (-1). */
void siot_checkpoint_settle(int job_written);
int32_t siot_session_rank(void);

/* Handle tables: small stable ids for opaque handles (src/handles.c). */
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
    SIOT_NHKINDS
};
/* id of key; assigns a new id when the key is not known yet. */
int32_t siot_h_id(int kind, uintptr_t key);
/* id of key or -1 when not known (does not assign). */
int32_t siot_h_find(int kind, uintptr_t key);
/* A fresh id for a newly created handle (an old mapping of the same key is replaced). */
int32_t siot_h_new(int kind, uintptr_t key);
/* The id siot_h_new would give now. */
int32_t siot_h_next(int kind);
/* A new handle with the given id when it is free (ids agreed between ranks),
 * else the lowest free one. */
int32_t siot_h_new_at(int kind, uintptr_t key, int32_t id);
/* Releases the id of key; returns it (or -1). */
int32_t siot_h_release(int kind, uintptr_t key);
/* Predefined handle with a fixed id. */
void siot_h_fixed(int kind, uintptr_t key, int32_t id);
/* Ids below base are reserved for predefined handles. */
void siot_h_set_base(int kind, int32_t base);
/* Forgets every handle of a kind (a wait for all pending requests). */
void siot_h_clear(int kind);
void siot_h_reset_all(void);

/* ---- the recorder lock and signals ----
 *
 * The rule every part of the runtime follows, so that no signal handler ever
 * waits for a lock its own thread holds:
 *  1. The recorder lock is taken only through siot_lock(), which counts the
 *     thread as holding it (siot_t.locks) before it starts to wait, and
 *     released only through siot_unlock().
 *  2. A handler whose thread holds the lock, or is writing the session's
 *     ending, only notes the signal; siot_unlock() (or the end of the
 *     writing) handles it as soon as the thread is out.
 *  3. A handler on any other thread takes the lock with siot_lock_within():
 *     it waits at most SIOT_SIGNAL_WAIT_NS for another thread to let go,
 *     then gives up writing the trace rather than hang, and the signal takes
 *     its course.
 *  4. Generated wrappers never take the lock themselves: they call the
 *     runtime's functions, which follow 1.
 * Whatever runs under the lock makes no call that can block for long on
 * another process (no MPI collective, no wait for a peer). */
#define SIOT_SIGNAL_WAIT_NS 3000000000ull
void siot_lock(void);
/* 1 when the lock was taken within wait_ns, else 0 (and not held). */
int siot_lock_within(uint64_t wait_ns);
void siot_unlock(void);

#endif
