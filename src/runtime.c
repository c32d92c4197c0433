/* The tracer's core: configuration, per-thread staging of events, the rank's
 * queue, descriptor tracking and writing the trace file. All of the tracer's
 * own file I/O uses raw system calls, so it never reaches a wrapper. */

#include "runtime.h"
#include "salloc.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "../compress/queue.h"
#include "format.h"
#include "roles.h"
#include "stack.h"

#ifndef SIOT_FLAVOUR
#define SIOT_FLAVOUR "unknown"
#endif
#ifndef SIOT_VERSION
#define SIOT_VERSION "0.1.0"
#endif

__thread siot_tls siot_t __attribute__((tls_model("initial-exec")));
_Atomic uint32_t siot_layer_mask;
siot_config siot_cfg;

static atomic_flag big_lock = ATOMIC_FLAG_INIT;
/* A signal that arrived while its thread held the lock (siot_unlock handles it). */
static _Atomic int pending_signal;
/* take_session: the lock could not be had in time */
#define SIOT_TAKE_BUSY (-2)
static atomic_int ending; /* a trace is being or has been taken for an ending */
static _Atomic uint32_t next_thread = 1;

static struct {
    int inited;
    int mpi;       /* MPI_Init was called: the MPI layer owns the end of the session */
    int ended;     /* the trace has been taken */
    int32_t rank;
    uint32_t nranks;
    uint64_t start_ns; /* wall clock */
    siot_arena arena;
    siot_queue queue;
    uint64_t *fdbits; /* descriptors opened under tracing */
    uint32_t fdwords;
    /* what went to the spill file (SIOT_MAX_MEMORY): NODES sections */
    int spill_fd;
    uint64_t spill_bytes;
    uint32_t spill_sections;
    siot_fmap fmap; /* function ids of the spilled sections */
    char stop_note[160];
    const siot_trace *taken; /* the trace siot_session_take filled last */
    /* checkpoints (SIOT_CHECKPOINT): the first traced call at or after
     * ckpt_next writes the rank's part */
    uint64_t ckpt_next;
    uint64_t ckpts;     /* checkpoints written */
    uint64_t ckpt_ns;   /* time they took */
} S = {.spill_fd = -1, .ckpt_next = UINT64_MAX};

#ifdef SIOT_FAULTS
/* Test builds (make SAN=1): SIOT_FAULT_SIGNAL=SIG:N raises SIG on the Nth
 * acquisition of the lock, while it is held, to check rule 2 of runtime.h. */
static int fault_sig;
static long fault_countdown;
static void fault_setup(void)
{
    const char *v = getenv("SIOT_FAULT_SIGNAL");
    if (v && sscanf(v, "%d:%ld", &fault_sig, &fault_countdown) != 2)
        fault_sig = 0;
}
static void fault_point(void)
{
    if (fault_sig && --fault_countdown == 0)
        raise(fault_sig);
}
#else
static void fault_setup(void) {}
static void fault_point(void) {}
#endif

void siot_lock(void)
{
    siot_t.locks++;
    atomic_signal_fence(memory_order_seq_cst); /* counted before the wait begins */
    while (atomic_flag_test_and_set_explicit(&big_lock, memory_order_acquire))
        sched_yield();
    fault_point();
}

int siot_lock_within(uint64_t wait_ns)
{
    siot_t.locks++;
    atomic_signal_fence(memory_order_seq_cst);
    uint64_t t0 = siot_now();
    while (atomic_flag_test_and_set_explicit(&big_lock, memory_order_acquire)) {
        if (siot_now() - t0 > wait_ns) {
            siot_t.locks--;
            return 0;
        }
        sched_yield();
    }
    return 1;
}

void siot_unlock(void)
{
    atomic_flag_clear_explicit(&big_lock, memory_order_release);
    atomic_signal_fence(memory_order_seq_cst);
    if (--siot_t.locks == 0 && SIOT_UNLIKELY(atomic_load_explicit(&pending_signal, memory_order_relaxed)) &&
        !siot_t.ending)
        siot_handle_pending_signal();
}

/* ------------------------------------------------------------ configuration */

static uint32_t parse_layers(const char *s)
{
    if (!s || !*s || strcmp(s, "all") == 0)
        return (1u << SIOT_NLAYERS) - 1;
    uint32_t m = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int l = siot_layer_from_name(tok);
        if (l < 0)
            fprintf(stderr, "siotrace: SIOT_LAYERS: unknown layer '%s' ignored\n", tok);
        else
            m |= 1u << l;
    }
    return m;
}

static unsigned long env_uint(const char *name, unsigned long def, unsigned long lo, unsigned long hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (*end || x < lo || x > hi) {
        fprintf(stderr, "siotrace: %s=%s is not a number in [%lu, %lu]; using %lu\n", name, v, lo, hi, def);
        return def;
    }
    return x;
}

/* A byte count with an optional K, M or G suffix; 0 means no limit. */
static size_t parse_size(const char *v, size_t def)
{
    if (!v || !*v)
        return def;
    char *end;
    unsigned long long x = strtoull(v, &end, 10);
    unsigned long long mul = 1;
    if (*end == 'k' || *end == 'K')
        mul = 1ull << 10;
    else if (*end == 'm' || *end == 'M')
        mul = 1ull << 20;
    else if (*end == 'g' || *end == 'G')
        mul = 1ull << 30;
    if (mul > 1)
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || end == v || (x && x > (unsigned long long)SIZE_MAX / mul) || (x && x * mul < (1u << 20))) {
        fprintf(stderr, "siotrace: SIOT_MAX_MEMORY=%s is not a size of at least 1M (like 512M or 2G); using %zuM\n", v,
                def >> 20);
        return def;
    }
    return (size_t)(x * mul);
}

static void setup_spill(void);
static void drop_spill(void);
static int write_all(int fd, const void *p, size_t n);

static void tls_init(siot_tls *t)
{
    t->inited = 1;
    t->top = -1;
    if (t != &siot_t)
        return;
}

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

void siot_runtime_init(void)
{
    if (S.inited)
        return;
    S.inited = 1;
    const char *v;
    siot_cfg.trace_path = getenv("SIOT_TRACE");
    if (siot_cfg.trace_path && !*siot_cfg.trace_path)
        siot_cfg.trace_path = NULL;
    v = getenv("SIOT_COMPRESS");
    siot_cfg.compress = !(v && strcmp(v, "0") == 0);
    v = getenv("SIOT_VERBOSE");
    siot_cfg.verbose = v && *v && strcmp(v, "0") != 0;
    siot_cfg.layers = parse_layers(getenv("SIOT_LAYERS"));
    siot_cfg.window = (uint32_t)env_uint("SIOT_WINDOW", 256, 1, 65536);
    siot_cfg.stack_depth = (uint32_t)env_uint("SIOT_STACK_DEPTH", 8, 0, 64);
    siot_cfg.rank_traces = getenv("SIOT_RANK_TRACES");
    if (siot_cfg.rank_traces && !*siot_cfg.rank_traces)
        siot_cfg.rank_traces = NULL;
    siot_cfg.max_memory = parse_size(getenv("SIOT_MAX_MEMORY"), (size_t)256 << 20);
    siot_cfg.spill_dir = getenv("SIOT_SPILL_DIR");
    if (!siot_cfg.spill_dir || !*siot_cfg.spill_dir)
        siot_cfg.spill_dir = getenv("TMPDIR");
    if (!siot_cfg.spill_dir || !*siot_cfg.spill_dir)
        siot_cfg.spill_dir = "/tmp";
    v = getenv("SIOT_CHECKPOINT");
    if (v && *v) {
        char *end;
        double sec = strtod(v, &end);
        if (*end || !(sec > 0 && sec <= 1e6))
            fprintf(stderr, "siotrace: SIOT_CHECKPOINT=%s is not a number of seconds in (0, 10^6]; no checkpoints\n", v);
        else
            siot_cfg.checkpoint_ns = (uint64_t)(sec * 1e9) ? (uint64_t)(sec * 1e9) : 1;
    }
    v = getenv("SIOT_TOLERANCE");
    if (v && *v) {
        char *end;
        double t = strtod(v, &end);
        if (*end || !(t >= 0 && t <= 100))
            fprintf(stderr, "siotrace: SIOT_TOLERANCE=%s is not a percentage in [0, 100]; counts stay exact\n", v);
        else
            siot_cfg.tolerance = t;
    }

    fault_setup();
    uint32_t nfd = fd_capacity();
    S.fdwords = (nfd + 63) / 64;
    S.fdbits = siot_calloc(S.fdwords, sizeof *S.fdbits);
    if (!S.fdbits)
        S.fdwords = 0;

    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    S.start_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    S.rank = 0;
    S.nranks = 1;
    siot_arena_init(&S.arena);
    siot_queue_init(&S.queue, &S.arena, 0, siot_cfg.compress, siot_cfg.window);
    S.queue.tolerance = siot_cfg.tolerance;
    setup_spill();
    siot_h_set_base(SIOT_H_STREAM, 3);
    siot_h_set_base(SIOT_H_FD, 3);
    tls_init(&siot_t);
    siot_t.thread = 0;
    siot_t.last_mark = siot_now();
    atomic_store(&siot_layer_mask, siot_cfg.layers);
}

/* ------------------------------------------------------------ spilling */


static int open_spill(void)
{
    int fd = (int)syscall(SYS_openat, AT_FDCWD, siot_cfg.spill_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/siot-spill.%ld.%d", siot_cfg.spill_dir, (long)getpid(), (int)S.rank);
    fd = (int)syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        syscall(SYS_unlinkat, AT_FDCWD, path, 0); /* gone with the process */
    return fd;
}

/* The queue's spill callback (under the rank lock): the nodes are encoded
 * as a NODES section and appended to the spill file. */
static int spill_nodes(void *arg, siot_node *const *nodes, uint32_t n)
{
    (void)arg;
    if (S.spill_fd < 0 && (S.spill_fd = open_spill()) < 0) {
        snprintf(S.stop_note, sizeof S.stop_note, "no spill file in %s: %s", siot_cfg.spill_dir, strerror(errno));
        return -1;
    }
    if (!S.fmap.id && siot_fmap_init(&S.fmap, siot_nfuncs) != 0)
        return -1;
    siot_vbuf b;
    siot_vbuf_init(&b);
    int rc = siot_nodes_section(nodes, n, &S.fmap, &b);
    if (rc == 0 && write_all(S.spill_fd, b.data, b.len) != 0) {
        snprintf(S.stop_note, sizeof S.stop_note, "the spill file in %s could not be written: %s", siot_cfg.spill_dir,
                 strerror(errno));
        rc = -1;
    }
    if (rc == 0) {
        S.spill_bytes += b.len;
        S.spill_sections++;
    }
    siot_vbuf_free(&b);
    return rc;
}

static void setup_spill(void)
{
    S.queue.limit = siot_cfg.max_memory;
    S.queue.spill = spill_nodes;
}

static void drop_spill(void)
{
    if (S.spill_fd >= 0)
        syscall(SYS_close, S.spill_fd);
    S.spill_fd = -1;
    S.spill_bytes = 0;
    S.spill_sections = 0;
    siot_fmap_free(&S.fmap);
    S.stop_note[0] = 0;
}

int siot_session_spilled(void) { return S.spill_sections > 0; }

/* ------------------------------------------------------------ hot path */

static int grow_stage(siot_tls *t)
{
    uint32_t cap = t->capstage ? t->capstage * 2 : 16;
    siot_raw *s = siot_realloc(t->stage, cap * sizeof *s);
    if (!s)
        return 0;
    t->stage = s;
    t->capstage = cap;
    return 1;
}

SIOT_TEXT int siot_begin(uint32_t func)
{
    siot_tls *t = &siot_t;
    if (SIOT_UNLIKELY(!t->inited)) {
        tls_init(t);
        t->thread = atomic_fetch_add(&next_thread, 1);
    }
    if (SIOT_UNLIKELY(t->nstage == t->capstage) && !grow_stage(t))
        return -1;
    uint64_t now = siot_now();
    int slot = (int)t->nstage++;
    siot_raw *r = &t->stage[slot];
    r->func = func;
    r->parent = t->top;
    r->thread = t->thread;
    r->site = siot_cfg.stack_depth ? siot_site_here(siot_cfg.stack_depth) : 0;
    r->t_start = now;
    r->comp = t->last_mark && now > t->last_mark ? now - t->last_mark : 0;
    r->ret = r->err = r->bytes = 0;
    r->nargs = siot_functab[func].nargs;
    for (uint32_t i = 0; i < r->nargs; i++)
        r->args[i].kind = SIOT_RV_NONE;
    t->top = slot;
    t->depth++;
    t->last_mark = now;
    return slot;
}

siot_raw *siot_end(int slot)
{
    siot_tls *t = &siot_t;
    uint64_t now = siot_now();
    siot_raw *r = &t->stage[slot];
    r->t_end = now;
    t->last_mark = now;
    t->busy++;
    siot_lock();
    return r;
}

static void checkpoint(uint64_t now);

void siot_finish(int slot)
{
    siot_tls *t = &siot_t;
    t->top = t->stage[slot].parent;
    t->depth--;
    if (t->depth == 0) {
        if (!S.ended)
            siot_queue_push(&S.queue, t->stage, t->nstage, t->pool);
        t->nstage = 0;
        t->npool = 0;
        if (SIOT_UNLIKELY(t->last_mark >= S.ckpt_next))
            checkpoint(t->last_mark);
    }
    siot_unlock();
    t->busy--;
}

static uint8_t *pool_reserve(siot_tls *t, size_t n, uint32_t *off)
{
    if (n > UINT32_MAX - t->npool)
        return NULL;
    if (t->npool + n > t->cappool) {
        size_t cap = t->cappool ? t->cappool : 4096;
        while (cap < t->npool + n)
            cap *= 2;
        if (cap > UINT32_MAX)
            return NULL;
        uint8_t *p = siot_realloc(t->pool, cap);
        if (!p)
            return NULL;
        t->pool = p;
        t->cappool = (uint32_t)cap;
    }
    *off = t->npool;
    t->npool += (uint32_t)n;
    return t->pool + *off;
}

uint32_t siot_pool_tmp(size_t n)
{
    uint32_t off, pad = (8 - (siot_t.npool & 7)) & 7;
    if (pad && !pool_reserve(&siot_t, pad, &off))
        return 0;
    if (!pool_reserve(&siot_t, n ? n : 1, &off))
        return 0;
    return off + 1;
}

void *siot_pool_at(uint32_t off1) { return off1 ? siot_t.pool + off1 - 1 : NULL; }

void siot_put_strn(siot_raw *ev, uint32_t k, const char *s, size_t n)
{
    uint32_t off;
    if (n > SIOT_MAX_STRING)
        n = SIOT_MAX_STRING; /* what a reader accepts; no real path or hint is that long */
    uint8_t *p;
    if (s && n == 0) { /* nothing to store (and the pool may not exist yet) */
        ev->args[k].kind = SIOT_RV_STR;
        ev->args[k].n = 0;
        ev->args[k].i = 0;
        return;
    }
    if (!s || !(p = pool_reserve(&siot_t, n, &off))) {
        ev->args[k].kind = SIOT_RV_NONE;
        return;
    }
    memcpy(p, s, n);
    ev->args[k].kind = SIOT_RV_STR;
    ev->args[k].n = (uint32_t)n;
    ev->args[k].i = off;
}

void siot_put_str(siot_raw *ev, uint32_t k, const char *s) { siot_put_strn(ev, k, s, s ? strlen(s) : 0); }

int64_t *siot_put_arr(siot_raw *ev, uint32_t k, uint32_t n)
{
    uint32_t off;
    /* 8-byte alignment of the array inside the pool. */
    uint32_t pad = (8 - (siot_t.npool & 7)) & 7;
    if (pad && !pool_reserve(&siot_t, pad, &off))
        return NULL;
    uint8_t *p = pool_reserve(&siot_t, (size_t)n * 8, &off);
    if (!p) {
        ev->args[k].kind = SIOT_RV_NONE;
        return NULL;
    }
    ev->args[k].kind = SIOT_RV_ARR;
    ev->args[k].n = n;
    ev->args[k].i = off;
    return (int64_t *)(void *)p;
}

/* ------------------------------------------------------------ descriptors */

int siot_fd_traced(int fd)
{
    if (fd < 0 || (uint32_t)fd / 64 >= S.fdwords)
        return 0;
    return (__atomic_load_n(&S.fdbits[fd / 64], __ATOMIC_RELAXED) >> (fd % 64)) & 1;
}

int64_t siot_fd_new(int fd)
{
    if (fd < 0 || (uint32_t)fd / 64 >= S.fdwords)
        return fd;
    __atomic_or_fetch(&S.fdbits[fd / 64], 1ULL << (fd % 64), __ATOMIC_RELAXED);
    return siot_h_new(SIOT_H_FD, (uintptr_t)fd);
}

int64_t siot_fd_id(int fd) { return fd < 0 ? fd : siot_h_find(SIOT_H_FD, (uintptr_t)fd); }

int64_t siot_fd_drop(int fd)
{
    if (fd < 0 || (uint32_t)fd / 64 >= S.fdwords)
        return fd < 0 ? fd : -1;
    __atomic_and_fetch(&S.fdbits[fd / 64], ~(1ULL << (fd % 64)), __ATOMIC_RELAXED);
    return siot_h_release(SIOT_H_FD, (uintptr_t)fd);
}

int64_t siot_fd_closing(int fd)
{
    siot_lock();
    int64_t id = siot_fd_drop(fd);
    siot_unlock();
    return id;
}

int64_t siot_h_closing(int kind, const void *handle)
{
    siot_lock();
    int64_t id = handle ? siot_h_release(kind, (uintptr_t)handle) : -1;
    siot_unlock();
    return id;
}

int siot_stream_traced(const void *stream)
{
    siot_lock();
    int r = stream && siot_h_find(SIOT_H_STREAM, (uintptr_t)stream) >= 0;
    siot_unlock();
    return r;
}

int siot_dir_traced(const void *dir)
{
    siot_lock();
    int r = dir && siot_h_find(SIOT_H_DIR, (uintptr_t)dir) >= 0;
    siot_unlock();
    return r;
}

/* ------------------------------------------------------------ session */

void siot_session_pause(void) { atomic_store(&siot_layer_mask, 0); }

void siot_session_set_mpi(int on)
{
    S.mpi = on;
    /* Checkpoints start with the rank's own session: before MPI_Init every
     * rank would be rank 0. */
    if (on && siot_cfg.checkpoint_ns)
        S.ckpt_next = siot_now() + siot_cfg.checkpoint_ns;
}

int32_t siot_session_rank(void) { return S.rank; }

int siot_session_ended(void) { return S.ended; }

void siot_session_restart(int32_t rank, uint32_t nranks)
{
    siot_lock();
    siot_queue_free(&S.queue);
    siot_arena_free(&S.arena);
    siot_arena_init(&S.arena);
    S.rank = rank;
    S.nranks = nranks;
    siot_queue_init(&S.queue, &S.arena, rank, siot_cfg.compress, siot_cfg.window);
    S.queue.tolerance = siot_cfg.tolerance;
    drop_spill();
    setup_spill();
    if (S.fdbits)
        memset(S.fdbits, 0, S.fdwords * sizeof *S.fdbits);
    siot_h_reset_all();
    S.ended = 0;
    siot_unlock();
    atomic_store(&siot_layer_mask, siot_cfg.layers);
}

static const char *self_exe(char *buf, size_t n)
{
    ssize_t r = (ssize_t)syscall(SYS_readlink, "/proc/self/exe", buf, n - 1);
    if (r <= 0)
        return "unknown";
    buf[r] = 0;
    return buf;
}

/* The rank's trace as it stands (under the lock, the queue finished):
 * header, tables, the node list, and the notes and flags saying how it was
 * recorded (truncated, stopped, spilled, approximate), in t's arena; the
 * nodes stay the session's. */
static int describe_session(siot_trace *t)
{
    int rc = siot_sites_export_locked(t);
    t->nranks = S.nranks;
    t->start_ns = S.start_ns;
    t->flags = (S.queue.oom ? SIOT_TF_TRUNCATED : 0) | (siot_cfg.compress ? SIOT_TF_COMPRESSED : 0);
    char exe[PATH_MAX];
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    const char *e = self_exe(exe, sizeof exe);
    t->exe = siot_arena_strdup(&t->arena, e, strlen(e));
    t->flavour = SIOT_FLAVOUR;
    t->host = siot_arena_strdup(&t->arena, host, strlen(host));
    t->version = SIOT_VERSION;
    t->funcs = (siot_funcdesc *)siot_functab;
    t->nfuncs = siot_nfuncs;
    t->top = siot_arena_alloc(&t->arena, (S.queue.n ? S.queue.n : 1) * sizeof *t->top);
    if (t->top && t->exe && t->host) {
        if (S.queue.n)
            memcpy(t->top, S.queue.nodes, S.queue.n * sizeof *t->top);
        t->ntop = S.queue.n;
    } else {
        rc = -1;
    }
    if (S.queue.oom) {
        char why[200];
        snprintf(why, sizeof why, "the tracer ran out of memory after event %llu: the %llu events after it were lost",
                 (unsigned long long)S.queue.events, (unsigned long long)S.queue.lost);
        siot_trace_set_kv(t, "truncated", why);
    }
    if (S.queue.stopped) {
        char why[400];
        snprintf(why, sizeof why,
                 "recording stopped after event %llu of this rank (SIOT_MAX_MEMORY=%zu reached and %s); the %llu "
                 "events after it are not in the trace",
                 (unsigned long long)S.queue.stopped_at, siot_cfg.max_memory,
                 S.stop_note[0] ? S.stop_note : "spilling failed", (unsigned long long)S.queue.lost);
        siot_trace_set_kv(t, "stopped", why);
        t->flags |= SIOT_TF_TRUNCATED;
    }
    if (S.spill_sections) {
        char sp[200];
        snprintf(sp, sizeof sp, "%llu nodes in %u sections (%llu bytes) went to disk to keep the recorder within "
                 "SIOT_MAX_MEMORY=%zu",
                 (unsigned long long)S.queue.spilled_nodes, S.spill_sections, (unsigned long long)S.spill_bytes,
                 siot_cfg.max_memory);
        siot_trace_set_kv(t, "spilled", sp);
    }
    char note[160];
    snprintf(note, sizeof note, "%llu", (unsigned long long)S.queue.events);
    siot_trace_set_kv(t, "events_recorded", note);
    if (S.queue.misses) {
        snprintf(note, sizeof note,
                 "%llu repeats found further back than SIOT_WINDOW=%u nodes (up to %llu): "
                 "a larger window may fold them",
                 (unsigned long long)S.queue.misses, siot_cfg.window, (unsigned long long)S.queue.miss_maxdist);
        siot_trace_set_kv(t, "window_misses", note);
    }
    if (S.queue.approx_merges) {
        t->flags |= SIOT_TF_APPROX;
        snprintf(note, sizeof note,
                 "%llu loop instances folded with counts within SIOT_TOLERANCE=%g%%: their counts (shown ~mean) "
                 "are approximate",
                 (unsigned long long)S.queue.approx_merges, siot_cfg.tolerance);
        siot_trace_set_kv(t, "approximate", note);
    }
    snprintf(note, sizeof note, "%zu", S.arena.used_bytes);
    siot_trace_set_kv(t, "recorder_memory_bytes", note);
    return rc;
}

/* The session's trace, with the lock taken within wait_ns (0: no limit). */
static int take_session(siot_trace *t, uint64_t wait_ns)
{
    atomic_store(&siot_layer_mask, 0);
    siot_trace_init(t);
    if (wait_ns) {
        if (!siot_lock_within(wait_ns))
            return SIOT_TAKE_BUSY;
    } else {
        siot_lock();
    }
    S.ended = 1;
    siot_queue_finish(&S.queue);
    int rc = describe_session(t);
    S.taken = t;
    siot_queue_free(&S.queue);
    siot_arena_take(&t->arena, &S.arena);
    siot_unlock();
    siot_trace_index(t);
    return rc;
}

int siot_session_take(siot_trace *t) { return take_session(t, 0); }

/* ------------------------------------------------------------ trace file */

static int write_all(int fd, const void *buf, size_t n)
{
    const uint8_t *p = buf;
    while (n) {
        ssize_t w = (ssize_t)syscall(SYS_write, fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void default_path(char *out, size_t n, int attempt)
{
    char exe[PATH_MAX];
    const char *e = self_exe(exe, sizeof exe);
    const char *base = strrchr(e, '/');
    base = base ? base + 1 : e;
    if (attempt == 0)
        snprintf(out, n, "%s.siot", base);
    else
        snprintf(out, n, "%s.%d.siot", base, attempt);
}

/* ---- a block of a job file: tables and node sections (docs/format.md).
 * This rank's own trace after it spilled: its tables, its spilled NODES
 * sections (streamed from the spill file) and one with the nodes still in
 * memory. Any other trace (a merge of some ranks): tables and one section. */

int siot_block_prepare(const siot_trace *t, siot_block *b)
{
    memset(b, 0, sizeof *b);
    siot_vbuf_init(&b->tables);
    siot_vbuf_init(&b->last);
    int own = S.spill_sections && t == S.taken;
    siot_fmap local = {0}, *m = own ? &S.fmap : &local;
    if (own ? !S.fmap.id && siot_fmap_init(&S.fmap, siot_nfuncs) != 0 : siot_fmap_init(&local, t->nfuncs) != 0)
        return -1;
    /* the last section first: it may number functions the tables must list */
    int rc = siot_nodes_section(t->top, t->ntop, m, &b->last) == 0 && siot_block_tables(t, m, &b->tables) == 0 ? 0 : -1;
    siot_fmap_free(&local);
    b->spill_bytes = own ? S.spill_bytes : 0;
    b->len = b->tables.len + b->spill_bytes + b->last.len;
    b->nsec = 2 + (own ? S.spill_sections : 0) + 1;
    return rc;
}

int siot_block_emit(const siot_block *b, siot_emit_fn emit, void *arg)
{
    if (emit(arg, b->tables.data, b->tables.len) != 0)
        return -1;
    static uint8_t buf[1 << 20]; /* static: usable in a signal handler, and one block at a time */
    for (uint64_t off = 0; off < b->spill_bytes;) {
        size_t want = b->spill_bytes - off < sizeof buf ? (size_t)(b->spill_bytes - off) : sizeof buf;
        ssize_t r = (ssize_t)syscall(SYS_pread64, S.spill_fd, buf, want, (off_t)off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0 || emit(arg, buf, (size_t)r) != 0)
            return -1;
        off += (uint64_t)r;
    }
    return emit(arg, b->last.data, b->last.len);
}

void siot_block_free(siot_block *b)
{
    siot_vbuf_free(&b->tables);
    siot_vbuf_free(&b->last);
}

static int emit_fd(void *arg, const void *p, size_t n) { return write_all(*(int *)arg, p, n); }

/* Writes t to fd: in one piece, or, when this rank spilled and t is its own
 * trace, as header, its block (streamed from the spill file) and end. */
static int write_to_fd(const siot_trace *t, int fd, int exact, size_t *len)
{
    siot_vbuf b;
    siot_vbuf_init(&b);
    int rc;
    if (S.spill_sections && t == S.taken) {
        siot_block blk;
        rc = siot_block_prepare(t, &blk) == 0 && siot_file_start(t, &b) == 0 ? 0 : -1;
        if (rc == 0)
            rc = write_all(fd, b.data, b.len);
        if (rc == 0)
            rc = siot_block_emit(&blk, emit_fd, &fd);
        b.len = 0;
        if (rc == 0)
            rc = siot_file_end(1 + blk.nsec, &b) == 0 ? write_all(fd, b.data, b.len) : -1;
        *len = blk.len + b.len;
        siot_block_free(&blk);
    } else {
        rc = (exact ? siot_trace_encode_exact(t, &b) : siot_trace_encode(t, &b)) == 0 ? 0 : -1;
        if (rc == 0)
            rc = write_all(fd, b.data, b.len);
        *len = b.len;
    }
    siot_vbuf_free(&b);
    return rc;
}

/* One line on stderr with raw writes (usable in a signal handler, where
 * stdio's lock may be held by the interrupted code). */
static void sayf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sayf(const char *fmt, ...)
{
    char line[PATH_MAX + 512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    write_all(2, line, (size_t)n);
}

static void say(const char *a, const char *b, const char *c)
{
    sayf("siotrace: %s%s%s", a ? a : "", b ? b : "", c ? c : "");
}

int siot_out_open(siot_out *o, const char *path)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->default_name = !path;
    if (path)
        snprintf(o->path, sizeof o->path, "%s", path);
    else
        default_path(o->path, sizeof o->path, 0);
    snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", o->path, (long)getpid());
    o->fd = (int)syscall(SYS_openat, AT_FDCWD, o->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (o->fd < 0) {
        snprintf(o->why, sizeof o->why, "cannot create %s: %s", o->tmp, strerror(errno));
        return -1;
    }
    return 0;
}

/* Renamed to the first free default name: an existing trace is never replaced silently. */
static int rename_default(siot_out *o)
{
    for (int attempt = 0;; attempt++) {
        if (attempt)
            default_path(o->path, sizeof o->path, attempt);
        int rc = (int)syscall(SYS_renameat2, AT_FDCWD, o->tmp, AT_FDCWD, o->path, 1 /* RENAME_NOREPLACE */);
        if (rc == 0 || errno != EEXIST || attempt >= 9999)
            return rc;
    }
}

int siot_out_commit(siot_out *o)
{
    /* A part written while the job is being torn down skips fsync: the
     * launcher may kill the process any moment, and the page cache outlives it. */
    int rc = !atomic_load(&ending) ? (int)syscall(SYS_fsync, o->fd) : 0;
    if (rc != 0)
        snprintf(o->why, sizeof o->why, "cannot write %s: %s", o->tmp, strerror(errno));
    syscall(SYS_close, o->fd);
    o->fd = -1;
    if (rc != 0) {
        syscall(SYS_unlinkat, AT_FDCWD, o->tmp, 0);
        return -1;
    }
    rc = o->default_name ? rename_default(o) : (int)syscall(SYS_renameat, AT_FDCWD, o->tmp, AT_FDCWD, o->path);
    if (rc != 0) {
        snprintf(o->why, sizeof o->why, "cannot rename %.4000s to %.4000s: %s (the trace is left in %.4000s)", o->tmp, o->path,
                 strerror(errno), o->tmp);
        return -1;
    }
    return 0;
}

void siot_out_abort(siot_out *o, const char *what)
{
    if (what && !o->why[0])
        snprintf(o->why, sizeof o->why, "cannot write %s: %s", o->tmp, what);
    if (o->fd >= 0) {
        syscall(SYS_close, o->fd);
        syscall(SYS_unlinkat, AT_FDCWD, o->tmp, 0);
    }
    o->fd = -1;
}

/* t written atomically to path (NULL: the default name), as one file. */
static int write_file(const siot_trace *t, const char *path, int exact, siot_out *o)
{
    int saved = errno;
    int rc = siot_out_open(o, path);
    if (rc == 0 && write_to_fd(t, o->fd, exact, &o->len) != 0) {
        siot_out_abort(o, strerror(errno));
        rc = -1;
    }
    if (rc == 0)
        rc = siot_out_commit(o);
    errno = saved;
    return rc;
}

int siot_write_trace_to(const siot_trace *t, const char *path, int exact)
{
    siot_out o;
    int rc = write_file(t, path, exact, &o);
    if (rc != 0)
        say(o.why, NULL, NULL);
    return rc;
}

int siot_write_trace(const siot_trace *t)
{
    siot_out o;
    int rc = write_file(t, siot_cfg.trace_path, 0, &o);
    if (rc != 0)
        say(o.why, NULL, NULL);
    else if (siot_cfg.verbose)
        sayf("siotrace: wrote %s (%llu bytes)", o.path, (unsigned long long)o.len);
    return rc;
}

int siot_write_fd(int fd, const void *p, size_t n) { return write_all(fd, p, n); }

/* ------------------------------------------------------------ endings */



/* The name of a rank's partial trace: the job's trace name with
 * .part-RRRRRR before .siot (siot merge joins them afterwards). */
static void partial_path(char *out, size_t n, int32_t rank)
{
    char base[PATH_MAX + 32];
    if (siot_cfg.trace_path)
        snprintf(base, sizeof base, "%s", siot_cfg.trace_path);
    else
        default_path(base, sizeof base, 0);
    size_t l = strlen(base);
    if (l > 5 && strcmp(base + l - 5, ".siot") == 0)
        base[l - 5] = 0;
    snprintf(out, n, "%s.part-%06d.siot", base, (int)rank);
}

/* SIOT_CHECKPOINT: the rank's trace so far, as the part an abnormal ending
 * would write (a later checkpoint, the ending, or the job's trace supersede
 * it). Called at the end of a traced call, under the lock: the encoding is
 * proportional to the compressed trace, plus the spill file when the rank
 * spilled. Against SIGKILL, which no handler sees. */
static void checkpoint(uint64_t now)
{
    S.ckpt_next = now + siot_cfg.checkpoint_ns;
    if (S.ended || S.queue.stopped || siot_queue_finish(&S.queue) != 0)
        return;
    siot_trace t;
    siot_trace_init(&t);
    if (describe_session(&t) == 0) {
        char note[160];
        snprintf(note, sizeof note, "checkpoint %llu, after event %llu of this rank (it was still running)",
                 (unsigned long long)S.ckpts + 1, (unsigned long long)S.queue.events);
        siot_trace_set_kv(&t, "partial", note);
        t.flags |= SIOT_TF_PARTIAL;
        char path[PATH_MAX + 64];
        partial_path(path, sizeof path, S.rank);
        const siot_trace *taken = S.taken;
        S.taken = &t; /* a rank that spilled: its spilled sections go in too */
        if (siot_write_trace_to(&t, path, 1) == 0)
            S.ckpts++;
        S.taken = taken;
    }
    siot_trace_free(&t);
    /* what the writing took is not the application's computation */
    siot_t.last_mark = siot_now();
    S.ckpt_ns += siot_t.last_mark - now;
}

void siot_checkpoint_settle(int job_written)
{
    if (!S.ckpts)
        return;
    if (siot_cfg.verbose)
        fprintf(stderr, "siotrace: rank %d: %llu checkpoints, %.6f s in all\n", (int)S.rank,
                (unsigned long long)S.ckpts, (double)S.ckpt_ns * 1e-9);
    char path[PATH_MAX + 64];
    partial_path(path, sizeof path, S.rank);
    if (job_written > 0)
        syscall(SYS_unlinkat, AT_FDCWD, path, 0);
    else if (job_written == 0)
        fprintf(stderr, "siotrace: rank %d: the job's trace was not written; this rank's last checkpoint is in %s\n",
                (int)S.rank, path);
    S.ckpts = 0;
}

static atomic_int end_written; /* ... and written */

/* An MPI rank that cannot reach the merge writes its own part. */
int siot_write_part(const siot_trace *t, char *where, size_t nwhere, char *why, size_t nwhy)
{
    char path[PATH_MAX + 64];
    partial_path(path, sizeof path, S.rank);
    const char *name = strrchr(path, '/');
    name = name ? name + 1 : path;
    const char *tmpdir = getenv("TMPDIR");
    const char *dirs[] = {NULL, ".", tmpdir && *tmpdir ? tmpdir : "/tmp", "/tmp"};
    siot_out o;
    for (unsigned i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        char alt[PATH_MAX + 64];
        if (i && snprintf(alt, sizeof alt, "%s/%s", dirs[i], name) >= (int)sizeof alt)
            continue;
        if (write_file(t, i ? alt : path, 1, &o) == 0) {
            char cwd[PATH_MAX];
            if (o.path[0] != '/' && syscall(SYS_getcwd, cwd, sizeof cwd) > 0)
                snprintf(where, nwhere, "%s/%s", cwd, o.path[0] == '.' && o.path[1] == '/' ? o.path + 2 : o.path);
            else
                snprintf(where, nwhere, "%s", o.path);
            return 0;
        }
        if (i == 0)
            snprintf(why, nwhy, "%s", o.why);
    }
    return -1;
}

/* An MPI rank that cannot reach the merge writes its own part. */
static int write_own_part(const siot_trace *t, const char *reason)
{
    char where[PATH_MAX + 64], why[sizeof ((siot_out *)0)->why];
    if (siot_write_part(t, where, sizeof where, why, sizeof why) != 0) {
        sayf("siotrace: %s: this rank's trace could not be written anywhere (%s)", reason ? reason : "ended", why);
        return -1;
    }
    sayf("siotrace: %s: this rank's trace is in %s", reason ? reason : "ended", where);
    return 0;
}

int siot_end_session(const char *reason, int partial)
{
    if (S.ended || atomic_exchange(&ending, 1))
        return 0;
    /* Signals that arrive on this thread now wait until the trace is written
     * (rule 2 of runtime.h); other threads' wait at most a few seconds. */
    siot_t.ending = 1;
    siot_t.busy++;
    siot_trace t;
    int rc = take_session(&t, SIOT_SIGNAL_WAIT_NS);
    if (rc == SIOT_TAKE_BUSY) {
        say("the trace could not be written: another thread held the tracer for seconds", NULL, NULL);
    } else {
        if (reason)
            siot_trace_set_kv(&t, partial ? "partial" : "ended", reason);
        if (partial)
            t.flags |= SIOT_TF_PARTIAL;
        rc = S.mpi ? write_own_part(&t, reason) : siot_write_trace(&t);
    }
    siot_trace_free(&t);
    atomic_store(&end_written, 1);
    siot_t.busy--;
    siot_t.ending = 0;
    if (atomic_load(&pending_signal) && !siot_t.locks)
        siot_handle_pending_signal();
    return rc;
}

/* Signals that end the process: the trace so far is written, then the
 * signal takes its course (the previous handler, or the default action). */
static const int caught[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
#define NCAUGHT (sizeof caught / sizeof caught[0])
static struct sigaction prev_action[NCAUGHT];

static int caught_index(int sig)
{
    for (unsigned i = 0; i < NCAUGHT; i++)
        if (caught[i] == sig)
            return (int)i;
    return -1;
}

static void end_by_signal(int sig)
{
    int i = caught_index(sig);
    char why[64];
    snprintf(why, sizeof why, "signal %d (%s)", sig, sigabbrev_np(sig) ? sigabbrev_np(sig) : "?");
    /* The interrupted code may hold malloc's locks: allocate from fresh mappings. */
    siot_emergency = 1;
    if (atomic_load(&ending)) {
        /* Another thread is writing the trace: let it finish (a few seconds at most). */
        for (int k = 0; k < 3000 && !atomic_load(&end_written); k++) {
            struct timespec ms = {0, 1000000};
            nanosleep(&ms, NULL);
        }
    } else {
        siot_end_session(why, 1);
    }
    if (i >= 0)
        sigaction(sig, &prev_action[i], NULL);
    raise(sig); /* delivered when the handler returns */
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    int saved = errno;
    int sync = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
    int inside = siot_t.locks || siot_t.ending;
    if (inside && !sync) {
        /* This thread holds the lock or is writing the ending: handled as
         * soon as it is out (rule 2 of runtime.h). */
        atomic_store(&pending_signal, sig);
    } else if (inside || (sync && siot_t.busy)) {
        /* A fault in the tracer itself: nothing safe to write. */
        int i = caught_index(sig);
        if (i >= 0)
            sigaction(sig, &prev_action[i], NULL);
        raise(sig);
    } else {
        end_by_signal(sig);
    }
    errno = saved;
}

void siot_handle_pending_signal(void)
{
    int sig = atomic_exchange(&pending_signal, 0);
    if (sig)
        end_by_signal(sig);
}

/* Installed before main and again after MPI_Init (which may set handlers of
 * its own: ours then runs first and hands over to them). A handler the
 * application sets later replaces ours; an ignored signal stays ignored. */
void siot_install_signal_handlers(void)
{
    for (unsigned i = 0; i < NCAUGHT; i++) {
        struct sigaction cur;
        if (sigaction(caught[i], NULL, &cur) != 0 || cur.sa_handler == SIG_IGN ||
            ((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal))
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(caught[i], &sa, &prev_action[i]) != 0)
            prev_action[i] = cur;
    }
}

/* exit() without MPI_Finalize, or the end of a program that never called MPI. */
void siot_at_exit(void)
{
    if (S.ended)
        return;
    if (S.mpi)
        siot_end_session("the program exited without calling MPI_Finalize", 1);
    else
        siot_end_session(NULL, 0);
}

/* _exit and _Exit (generated wrappers), MPI_Abort (mpi_session.c). */
void siot_exit_hook(int status)
{
    char why[64];
    snprintf(why, sizeof why, "_exit(%d)%s", status, S.mpi ? " without MPI_Finalize" : "");
    siot_end_session(why, S.mpi);
}

/* exec*: the process image is about to be replaced. */
void siot_exec_hook(const char *fn, const char *path)
{
    char why[300];
    snprintf(why, sizeof why, "%s(%.200s)%s", fn, path ? path : "", S.mpi ? " without MPI_Finalize" : "");
    siot_end_session(why, S.mpi);
}

void siot_exec_failed(const char *fn)
{
    int saved = errno;
    sayf("siotrace: %s failed (%s) after the trace was written: the program's later calls are not traced", fn,
         strerror(saved));
    errno = saved;
}

/* A forked child is not traced: it would otherwise write the parent's
 * events into the parent's trace file. */
static void in_child(void)
{
    atomic_store(&siot_layer_mask, 0);
    S.ended = 1;
    S.mpi = 0;
}

/* ------------------------------------------------------------ start */

__attribute__((constructor)) static void siot_ctor(void)
{
    siot_runtime_init();
    atexit(siot_at_exit);
    pthread_atfork(NULL, NULL, in_child);
    siot_install_signal_handlers();
    /* the first call-site signature's costs, paid before the program starts */
    if (siot_cfg.stack_depth)
        siot_stack_warm();
    siot_t.last_mark = siot_now();
}
