/* session: a rank's tracing session (session.h). */
#include "src/session.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "compress/queue.h"
#include "compress/repeat.h"
#include "compress/renest.h"
#include "core/expr.h"
#include "core/format.h"
#include "core/predef.h"
#include "core/ranksum.h"
#include "src/addrs.h"
#include "src/config.h"
#include "src/handles.h"
#include "src/interpose.h"
#include "src/lock.h"
#include "src/lock_fast.h"
#include "src/runtime.h"
#include "src/spill.h"
#include "src/stack.h"
#include "src/stage.h"
#include "src/sysio.h"
#include "src/tracefile.h"
#include "core/salloc.h"

#ifndef SIOT_FLAVOUR
#define SIOT_FLAVOUR "unknown"
#endif
#ifndef SIOT_VERSION
#define SIOT_VERSION "0.1.0"
#endif

/* A thread's own queue: its groups are folded there under its own lock,
 * which only its thread takes on the hot path; another thread takes it only
 * to checkpoint, spill, restart or end the session (docs/hotpath.md,
 * "Threads"). The queues are merged when the trace is taken, by their
 * groups' order keys (gather_nodes). */
typedef struct siot_tq {
    atomic_flag lock;
    int live;                 /* q and arena initialised */
    siot_queue q;
    siot_arena arena;
    uint64_t first, last;     /* start of the thread's first traced call, end of its last */
    uint64_t rt[SIOT_RT_N];   /* the thread's share of the rank's own time totals */
    struct siot_tq *next;
} siot_tq;

static struct {
    int mpi;           /* MPI_Init was called: the MPI layer owns the end of the session */
    int ended;         /* the trace has been taken */
    int32_t rank;
    uint32_t nranks;
    uint64_t start_ns; /* wall clock */
    char cwd[PATH_MAX]; /* the working directory at the start ("" unknown) */
    siot_tq *tqs, **tq_tail; /* the threads' queues (under the recorder lock) */
    _Atomic uint32_t ntq;     /* how many: SIOT_MAX_MEMORY is shared among them */
    /* checkpoints (SIOT_CHECKPOINT): the first traced call at or after
     * ckpt_next writes the rank's part */
    _Atomic uint64_t ckpt_next;
    uint64_t ckpts;   /* checkpoints written */
    uint64_t ckpt_ns; /* time they took */
    siot_out ckpt_out; /* a checkpoint written, to be committed out of the lock (fd >= 0) */
} S = {.ckpt_next = UINT64_MAX, .ckpt_out = {.fd = -1}, .tq_tail = &S.tqs};

/* calls that ran unrecorded: no memory to stage them (record.c), or a
 * thread that could not get a queue of its own */
static _Atomic uint64_t unstaged_calls;

void siot_note_unstaged(uint64_t n) { atomic_fetch_add_explicit(&unstaged_calls, n, memory_order_relaxed); }

uint64_t siot_unstaged_calls(void) { return atomic_load_explicit(&unstaged_calls, memory_order_relaxed); }

/* SIOT_TOLERANCE: a poll that found nothing (compress/queue.h idle). */
static int poll_idle(const siot_raw *r)
{
    if (r->func >= siot_nfuncs)
        return 0;
    const siot_funcdesc *f = &siot_functab[r->func];
    int at = siot_poll_flag_arg(f);
    if (siot_aio_poll_idle(f, r->ret))
        return 1;
    return at >= 0 && (uint32_t)at < r->nargs && r->args[at].kind == SIOT_RV_INT && r->args[at].i == 0;
}

static void tq_start(siot_tq *tq)
{
    siot_arena_init(&tq->arena);
    siot_queue_init(&tq->q, &tq->arena, S.rank, siot_cfg.compress, siot_cfg.window);
    tq->q.tolerance = siot_cfg.tolerance;
    tq->q.idle = siot_cfg.tolerance > 0 ? poll_idle : NULL;
    siot_spill_attach(&tq->q);
    tq->first = tq->last = 0;
    memset(tq->rt, 0, sizeof tq->rt);
    tq->live = 1;
}

static void tq_stop(siot_tq *tq)
{
    if (tq->live) {
        siot_queue_free(&tq->q);
        siot_arena_free(&tq->arena);
    }
    tq->live = 0;
}

/* The calling thread's queue, made at its first group (under the recorder
 * lock: the list of queues is the session's). */
static siot_tq *tq_new(void)
{
    siot_tq *tq = siot_calloc(1, sizeof *tq);
    if (!tq)
        return NULL;
    atomic_flag_clear(&tq->lock);
    tq_start(tq);
    *S.tq_tail = tq;
    S.tq_tail = &tq->next;
    atomic_fetch_add_explicit(&S.ntq, 1, memory_order_relaxed);
    return tq;
}

/* Every thread's queue held (the recorder lock already is): 1, or 0 when one
 * was not had within wait_ns (0: no limit), and none is then held. */
static int tq_hold_all(uint64_t wait_ns)
{
    for (siot_tq *tq = S.tqs; tq; tq = tq->next) {
        if (!wait_ns) {
            siot_take(&tq->lock);
        } else if (!siot_take_within(&tq->lock, wait_ns)) {
            for (siot_tq *u = S.tqs; u != tq; u = u->next)
                siot_let_go(&u->lock);
            return 0;
        }
    }
    return 1;
}

static void tq_release_all(void)
{
    for (siot_tq *tq = S.tqs; tq; tq = tq->next)
        siot_let_go(&tq->lock);
}

static int tq_finish_all(void)
{
    int rc = 0;
    for (siot_tq *tq = S.tqs; tq; tq = tq->next)
        if (tq->live && siot_queue_finish(&tq->q) != 0)
            rc = -1;
    return rc;
}

/* The rank's queues added up: what the trace's notes say. */
typedef struct qtotals {
    uint64_t events, lost, nodes, misses, miss_maxdist, approx_merges, first, last;
    uint64_t rt[SIOT_RT_N]; /* the threads' shares of the rank's own times */
    size_t memory;
    int oom;
    siot_spill_counts spill;
} qtotals;

static void add_queue(qtotals *s, const siot_tq *tq)
{
    const siot_queue *q = &tq->q;
    s->events += q->events;
    s->lost += q->lost;
    s->nodes += q->n;
    s->misses += q->misses;
    if (q->miss_maxdist > s->miss_maxdist)
        s->miss_maxdist = q->miss_maxdist;
    s->approx_merges += q->approx_merges;
    s->oom |= q->oom;
    s->memory += tq->arena.used_bytes;
    if (q->stopped && (!s->spill.stopped || q->stopped_at < s->spill.stopped_at))
        s->spill.stopped_at = q->stopped_at;
    s->spill.stopped |= q->stopped;
    s->spill.lost += q->lost;
    s->spill.spilled_nodes += q->spilled_nodes;
    if (tq->first && (!s->first || tq->first < s->first))
        s->first = tq->first;
    if (tq->last > s->last)
        s->last = tq->last;
    for (int k = 0; k < SIOT_RT_N; k++)
        s->rt[k] += tq->rt[k];
}

static qtotals totals(void)
{
    qtotals s = {0};
    for (siot_tq *tq = S.tqs; tq; tq = tq->next)
        if (tq->live)
            add_queue(&s, tq);
    return s;
}

void siot_session_init(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    S.start_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    if (syscall(SYS_getcwd, S.cwd, sizeof S.cwd) <= 0)
        S.cwd[0] = 0;
    /* A process of an MPI launch is that rank from the start: should the
     * tracer never see MPI_Init, its trace is still its rank's part. */
    int launched = siot_cfg.launch_size > 1;
    S.rank = launched ? siot_cfg.launch_rank : 0;
    S.nranks = launched ? siot_cfg.launch_size : 1;
    siot_spill_reset(S.rank);
}

void siot_session_pause(void) { atomic_store(&siot_layer_mask, 0); }

void siot_session_set_mpi(int on)
{
    S.mpi = on;
    /* Checkpoints start with the rank's own session: before MPI_Init every
     * rank would be rank 0. */
    if (on && siot_cfg.checkpoint_ns)
        S.ckpt_next = siot_now() + siot_cfg.checkpoint_ns;
}

int siot_session_is_mpi(void) { return S.mpi; }

int siot_session_in_job(void) { return S.mpi || S.nranks > 1; }

int32_t siot_session_rank(void) { return S.rank; }

uint32_t siot_session_nranks(void) { return S.nranks; }

int siot_session_ended(void) { return S.ended; }

void siot_session_forget(void)
{
    S.ended = 1;
    S.mpi = 0;
}

void siot_session_restart(int32_t rank, uint32_t nranks)
{
    siot_lock();
    tq_hold_all(0);
    S.rank = rank;
    S.nranks = nranks;
    siot_spill_reset(rank);
    for (siot_tq *tq = S.tqs; tq; tq = tq->next) {
        tq_stop(tq);
        tq_start(tq);
    }
    siot_fd_forget_all();
    siot_h_reset_all();
    S.ended = 0;
    tq_release_all();
    siot_unlock();
    atomic_store(&siot_layer_mask, siot_cfg.layers);
}

/* The layers SIOT_LAYERS left out: their calls are absent, and a reader
 * (ioreplay --check) says so rather than only what is missing. */
static void note_layers_left_out(siot_trace *t)
{
    char note[160];
    size_t n = 0;
    note[0] = 0;
    for (unsigned l = 0; l < SIOT_NLAYERS; l++)
        if (!(siot_cfg.layers >> l & 1) && n < sizeof note)
            n += (size_t)snprintf(note + n, sizeof note - n, "%s%s", n ? "," : "", siot_layer_name(l));
    if (n)
        siot_trace_set_kv(t, "layers_left_out", note);
}

/* Every thread's nodes in one list, ordered by their groups' keys (a loop:
 * its first iteration's), a merge of the threads' lists, each already in
 * that order. A group's key is when its handle ids were settled: for a call
 * that changes the shared tables, the moment it had the recorder lock (so
 * opens on two threads come in the order they got their ids, and a replay
 * gives the same ids); for the others, the end of the call (after the open
 * of what it uses). The main thread's MPI_Finalize comes after the I/O of
 * the threads it joined. The nodes stay in the threads' arenas. */
static int gather_nodes(siot_trace *t, uint64_t n)
{
    uint32_t ntq = 0;
    for (siot_tq *tq = S.tqs; tq; tq = tq->next)
        ntq += tq->live && tq->q.n;
    /* from t's arena, not the stack: this may run in a signal handler */
    t->top = siot_arena_alloc(&t->arena, (n ? n : 1) * sizeof *t->top);
    siot_tq **tqs = siot_arena_alloc(&t->arena, (ntq ? ntq : 1) * sizeof *tqs);
    uint32_t *at = siot_arena_alloc(&t->arena, (ntq ? ntq : 1) * sizeof *at);
    if (!t->top || !tqs || !at)
        return -1;
    ntq = 0;
    for (siot_tq *tq = S.tqs; tq; tq = tq->next)
        if (tq->live && tq->q.n) {
            at[ntq] = 0;
            tqs[ntq++] = tq;
        }
    if (ntq == 1 && n <= tqs[0]->q.n) { /* one thread: its list as it is, not a node at a time */
        memcpy(t->top, tqs[0]->q.nodes, n * sizeof *t->top);
        t->ntop = (uint32_t)n;
        return 0;
    }
    for (t->ntop = 0; t->ntop < n; t->ntop++) {
        uint32_t best = 0;
        for (uint32_t k = 1; k < ntq; k++)
            if (at[k] < tqs[k]->q.n &&
                (at[best] >= tqs[best]->q.n || tqs[k]->q.tfirst[at[k]] < tqs[best]->q.tfirst[at[best]]))
                best = k;
        t->top[t->ntop] = tqs[best]->q.nodes[at[best]++];
    }
    return 0;
}

/* The rank's own times: the threads' sums (totals), its span from its
 * first call on any thread to its last. */
static void gather_times(siot_trace *t, const qtotals *q)
{
    t->rt = siot_cfg.rank_times ? siot_arena_alloc(&t->arena, sizeof *t->rt) : NULL;
    if (!t->rt)
        return;
    t->nrt = 1;
    t->rt_keep = siot_cfg.rank_keep; /* what the job's merge cuts to */
    memset(t->rt, 0, sizeof *t->rt);
    t->rt->rank = S.rank;
    memcpy(t->rt->v, q->rt, sizeof q->rt);
    t->rt->v[SIOT_RT_span] = q->last - q->first;
}

/* The note key, "N what", when n is not 0. */
static void note_count(siot_trace *t, const char *key, uint64_t n, const char *what)
{
    char note[200];
    if (!n)
        return;
    snprintf(note, sizeof note, "%llu %s", (unsigned long long)n, what);
    siot_trace_set_kv(t, key, note);
}

static void describe_notes(siot_trace *t, const qtotals *q)
{
    char note[160];
    if (q->oom) {
        char why[200];
        snprintf(why, sizeof why, "the tracer ran out of memory after event %llu: the %llu events after it were lost",
                 (unsigned long long)q->events, (unsigned long long)q->lost);
        siot_trace_set_kv(t, "truncated", why);
    }
    siot_spill_describe(t, &q->spill);
    snprintf(note, sizeof note, "%llu", (unsigned long long)q->events);
    siot_trace_set_kv(t, "events_recorded", note);
    if (q->misses) {
        snprintf(note, sizeof note,
                 "%llu repeats found further back than SIOT_WINDOW=%u nodes (up to %llu): "
                 "a larger window may fold them",
                 (unsigned long long)q->misses, siot_cfg.window, (unsigned long long)q->miss_maxdist);
        siot_trace_set_kv(t, "window_misses", note);
    }
    if (q->approx_merges) {
        t->flags |= SIOT_TF_APPROX;
        snprintf(note, sizeof note,
                 "%llu loop instances folded with counts within SIOT_TOLERANCE=%g%%: their counts (shown ~mean) "
                 "are approximate",
                 (unsigned long long)q->approx_merges, siot_cfg.tolerance);
        siot_trace_set_kv(t, "approximate", note);
    }
    if (siot_cfg.tolerance > 0) { /* the merge of ranks folds their counts within it too (compress/merge.h) */
        snprintf(note, sizeof note, "%g", siot_cfg.tolerance);
        siot_trace_set_kv(t, "tolerance", note);
    }
    if (siot_cfg.rank_times && siot_cfg.rank_keep != SIOT_RT_KEEP_DEFAULT) {
        /* what a later siot merge of this rank's part cuts the rows to, as
         * the job's merge would (absent: the default) */
        snprintf(note, sizeof note, siot_cfg.rank_keep ? "%u" : "all", siot_cfg.rank_keep);
        siot_trace_set_kv(t, "rank_times", note);
    }
    siot_trace_set_kv(t, "clock", siot_clock_name());
    if (S.cwd[0]) /* what relative paths were relative to: the replay's root */
        siot_trace_set_kv(t, "cwd", S.cwd);
    snprintf(note, sizeof note, "%zu", q->memory);
    siot_trace_set_kv(t, "recorder_memory_bytes", note);
    note_layers_left_out(t);
    if (siot_h_unknown_uses()) {
        snprintf(note, sizeof note,
                 "%llu uses of requests made by calls the tracer does not record (recorded as unknown, id %d)",
                 (unsigned long long)siot_h_unknown_uses(), SIOT_ID_UNKNOWN);
        siot_trace_set_kv(t, "unknown_handles", note);
    }
    note_count(t, "handle_frees_lost", siot_h_gone_lost(),
               "frees of handles made or freed by calls the tracer does not record came while 256 waited: "
               "their ids stay taken, and a reused handle value may show an old id");
    note_count(t, "calls_unrecorded", siot_unstaged_calls(), "calls ran unrecorded: no memory to stage them");
    note_count(t, "mpiio_unseen", siot_unseen_mpiio_calls(),
               "file calls of MPI-IO had no traced MPI-IO call above them: not in the trace "
               "(PMPI_File_* called directly?)");
    note_count(t, "address_displacements", siot_addr_rebased(),
               "datatype displacement arrays held absolute addresses: recorded relative to the lowest of each "
               "(src/addrs.h)");
    note_count(t, "site_walk_mismatches", siot_site_walk_mismatches(),
               "call-site walks by learned frame sizes disagreed with libunwind; libunwind's were kept");
}

/* The rank's trace as it stands (under the locks, the queues finished and
 * q their totals):
 * header, tables, the node list, and the notes and flags saying how it was
 * recorded (truncated, stopped, spilled, approximate), in t's arena; the
 * nodes stay the session's. */
static int describe_session(siot_trace *t, const qtotals *q)
{
    int rc = siot_sites_export_locked(t);
    t->nranks = S.nranks;
    t->start_ns = S.start_ns;
    t->flags = (q->oom ? SIOT_TF_TRUNCATED : 0) | (siot_cfg.compress ? SIOT_TF_COMPRESSED : 0);
    char exe[PATH_MAX];
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    const char *e = siot_self_exe(exe, sizeof exe);
    t->exe = siot_arena_strdup(&t->arena, e, strlen(e));
    t->flavour = SIOT_FLAVOUR;
    t->host = siot_arena_strdup(&t->arena, host, strlen(host));
    t->version = SIOT_VERSION;
    t->funcs = (siot_funcdesc *)siot_functab;
    t->nfuncs = siot_nfuncs;
    if (gather_nodes(t, q->nodes) != 0 || !t->exe || !t->host)
        rc = -1;
    gather_times(t, q);
    describe_notes(t, q);
    return rc;
}

/* The session's trace, with the locks taken within wait_ns (0: no limit). */
int siot_session_take_within(siot_trace *t, uint64_t wait_ns)
{
    atomic_store(&siot_layer_mask, 0);
    siot_trace_init(t);
    if (wait_ns) {
        if (!siot_lock_within(wait_ns))
            return SIOT_TAKE_BUSY;
    } else {
        siot_lock();
    }
    if (!tq_hold_all(wait_ns)) {
        siot_unlock();
        return SIOT_TAKE_BUSY;
    }
    S.ended = 1;
    tq_finish_all();
    qtotals q = totals();
    int rc = describe_session(t, &q);
    siot_spill_set_own(t);
    for (siot_tq *tq = S.tqs; tq; tq = tq->next) {
        if (!tq->live)
            continue;
        siot_queue_free(&tq->q);
        siot_arena_take(&t->arena, &tq->arena); /* the nodes are the trace's now */
        tq->live = 0;
    }
    tq_release_all();
    siot_unlock();
    siot_trace_index(t);
    return rc;
}

/* The ending the program chose (MPI_Finalize, exit): the trace is
 * complete, so loops whose run tables hide a nest are rewritten as one
 * (compress/renest.h) before it is merged and written. */
static uint64_t renest_ns;

int siot_session_take(siot_trace *t)
{
    int rc = siot_session_take_within(t, 0);
    uint64_t t0 = siot_now();
    if (rc == 0 && siot_cfg.compress && !siot_spill_owns(t))
        siot_renest(t);
    renest_ns = siot_now() - t0;
    return rc;
}

uint64_t siot_session_renest_ns(void) { return renest_ns; }

/* SIOT_CHECKPOINT: the rank's trace so far, as the part an abnormal ending
 * would write (a later checkpoint, the ending, or the job's trace supersede
 * it). Under the recorder lock and every thread's queue lock: the encoding
 * is proportional to the compressed trace, plus the spill file when the
 * rank spilled. Against SIGKILL, which no handler sees. 1 when this call
 * wrote a checkpoint (to be committed by the caller, out of the locks). */
static int checkpoint(uint64_t now)
{
    atomic_store_explicit(&S.ckpt_next, now + siot_cfg.checkpoint_ns, memory_order_relaxed);
    if (S.ended || S.ckpt_out.fd >= 0 || tq_finish_all() != 0)
        return 0;
    qtotals q = totals(); /* after the finish: the pending iterations are nodes now */
    if (q.spill.stopped)
        return 0;
    siot_trace t;
    siot_trace_init(&t);
    if (describe_session(&t, &q) == 0) {
        char note[160];
        snprintf(note, sizeof note, "checkpoint %llu, after event %llu of this rank (it was still running)",
                 (unsigned long long)S.ckpts + 1, (unsigned long long)q.events);
        siot_trace_set_kv(&t, "partial", note);
        t.flags |= SIOT_TF_PARTIAL;
        char path[PATH_MAX + 64];
        siot_partial_path(path, sizeof path, S.rank);
        const siot_trace *own = siot_spill_set_own(&t); /* a rank that spilled: its spilled sections go in too */
        if (siot_write_uncommitted(&t, path, &S.ckpt_out) != 0)
            S.ckpt_out.fd = -1;
        siot_spill_set_own(own);
    }
    siot_trace_free(&t);
    S.ckpt_ns += siot_now() - now;
    return S.ckpt_out.fd >= 0;
}

/* A checkpoint came due: taken by the first thread to see it. */
static void checkpoint_due(uint64_t now)
{
    int commit = 0;
    siot_lock();
    if (now >= atomic_load_explicit(&S.ckpt_next, memory_order_relaxed)) {
        tq_hold_all(0);
        commit = checkpoint(now);
        tq_release_all();
    }
    siot_unlock();
    if (commit)
        siot_session_commit_checkpoint();
}

/* SIOT_MAX_MEMORY is the process's: each thread's queue gets its share. */
static inline size_t tq_limit(void)
{
    uint32_t n = atomic_load_explicit(&S.ntq, memory_order_relaxed);
    return n > 1 ? siot_cfg.max_memory / n : siot_cfg.max_memory;
}

/* A thread's queue past its share of SIOT_MAX_MEMORY: its nodes go to the
 * rank's spill file, which the recorder lock guards (taken first: lock
 * order). */
static void spill_due(siot_tq *tq)
{
    siot_lock();
    siot_take(&tq->lock);
    if (!S.ended && tq->live && tq->q.n && tq->arena.used_bytes > tq_limit())
        siot_queue_spill(&tq->q);
    siot_let_go(&tq->lock);
    siot_unlock();
}

/* A call's duration into the thread's share of the rank's own times. */
static inline void add_call_time(siot_tq *tq, const siot_raw *r)
{
    const siot_funcdesc *f = &siot_functab[r->func];
    siot_rt_add(tq->rt, f->layer, f->cls, r->parent < 0, r->t_end - r->t_start);
}

static void add_group(siot_tq *tq, const siot_raw *stage, uint32_t n, const uint8_t *pool, uint64_t now, uint64_t key)
{
    tq->q.key = key;
    siot_queue_push(&tq->q, stage, n, pool);
    if (!tq->first || stage[0].t_start < tq->first)
        tq->first = stage[0].t_start;
    if (now > tq->last)
        tq->last = now;
    for (uint32_t i = 0; i < n; i++)
        add_call_time(tq, &stage[i]);
}

/* The commonest group: one call that is one more iteration of the loop at
 * the queue's tail (siot_queue_repeat). It cannot be the thread's first,
 * and it is an outermost call (the repeat compared its parent, -1). */
static inline __attribute__((always_inline)) int add_repeat(siot_tq *tq, const siot_raw *r, uint64_t now)
{
    if (!siot_queue_repeat(&tq->q, r))
        return 0;
    if (now > tq->last)
        tq->last = now;
    const siot_funcdesc *f = &siot_functab[r->func];
    siot_rt_add(tq->rt, f->layer, f->cls, 1, r->t_end - r->t_start);
    return 1;
}

/* The calling thread's first group: its queue, entered in the session's
 * list under the recorder lock. */
static siot_tq *first_group(struct siot_tq **mine)
{
    siot_lock();
    siot_tq *tq = *mine = tq_new();
    siot_unlock();
    return tq;
}

/* Any group but a repeat, under the queue's lock, which it lets go: out
 * of line, so that a repeat saves no registers for it. */
static __attribute__((noinline)) void push_group(siot_tq *tq, const siot_raw *stage, uint32_t n, const uint8_t *pool,
                                                 uint64_t now, uint64_t key)
{
    int spill = 0;
    if (SIOT_LIKELY(!S.ended && tq->live)) {
        add_group(tq, stage, n, pool, now, key);
        spill = siot_cfg.max_memory && tq->arena.used_bytes > tq_limit() && tq->q.n;
    }
    siot_let_go_fast(&tq->lock);
    if (SIOT_UNLIKELY(spill))
        spill_due(tq);
    if (SIOT_UNLIKELY(now >= atomic_load_explicit(&S.ckpt_next, memory_order_relaxed)))
        checkpoint_due(now);
}

/* siot_session_push, inline: a leaf's end (siot_leaf_end) takes it
 * without a call of its own. */
static inline __attribute__((always_inline)) void push_at(struct siot_tq **mine, const siot_raw *stage, uint32_t n,
                                                          const uint8_t *pool, uint64_t now, uint64_t key)
{
    siot_tq *tq = *mine;
    if (SIOT_UNLIKELY(!tq) && !(tq = first_group(mine))) {
        siot_note_unstaged(n);
        return;
    }
    siot_take_fast(&tq->lock);
    /* a repeat adds nothing to the arena but, rarely, a loop count past the
     * interned ones: the spill check is for the other groups */
    if (SIOT_LIKELY(n == 1 && !S.ended && tq->live) && add_repeat(tq, stage, now)) {
        siot_let_go_fast(&tq->lock);
        if (SIOT_UNLIKELY(now >= atomic_load_explicit(&S.ckpt_next, memory_order_relaxed)))
            checkpoint_due(now);
        return;
    }
    push_group(tq, stage, n, pool, now, key);
}

void siot_session_push(struct siot_tq **mine, const siot_raw *stage, uint32_t n, const uint8_t *pool, uint64_t now,
                       uint64_t key)
{
    push_at(mine, stage, n, pool, now, key);
}

/* The end of a leaf call (runtime.h), here rather than in record.c so that
 * the push, nearly always a repeat, is inlined into it: the call between
 * them and its registers cost more than the repeat's own work. Its slot,
 * taken: a group of its own (pushed, with any calls staged before it, as
 * siot_finish's hand_back does), or a child of the traced call in flight.
 * Then the thread is handed back: the mark from which the next call's
 * computation runs. In siot_text: the call site is walked from here, the
 * wrapper's callee as siot_end is. */
SIOT_TEXT void siot_leaf_end(siot_raw *r, uint32_t func, uint64_t s0, uint64_t s1)
{
    siot_tls *t = &siot_t;
    siot_stage_place(t, r, func);
    r->t_start = siot_stamp_ns(s0);
    r->t_end = siot_stamp_ns(s1);
    r->comp = siot_comp_before(t, r->t_start);
    r->site = siot_site_from(__builtin_frame_address(0));
    if (SIOT_LIKELY(t->depth == 0)) {
        push_at(&t->tq, t->stage, t->nstage + 1, t->pool, r->t_end, r->t_end);
        t->nstage = 0;
        t->npool = 0;
    } else {
        t->nstage++;
    }
    t->last_mark = siot_now();
    t->busy--;
}

/* The checkpoint written under the lock is made durable out of it: fsync
 * can take milliseconds, and other threads may need the lock meanwhile.
 * Only the thread that wrote it gets here with it (siot_finish). */
void siot_session_commit_checkpoint(void)
{
    uint64_t t0 = siot_now();
    /* the slow part out of the lock; no other thread touches the file while
     * ckpt_out.fd >= 0 (checkpoint) */
    syscall(SYS_fsync, S.ckpt_out.fd);
    siot_lock();
    if (S.ended) /* the session's ending was written meanwhile: this part is stale */
        siot_out_abort(&S.ckpt_out, NULL);
    else if (siot_out_commit(&S.ckpt_out) == 0)
        S.ckpts++;
    else
        siot_sayf("siotrace: %s", S.ckpt_out.why);
    S.ckpt_out.fd = -1;
    S.ckpt_ns += siot_now() - t0;
    siot_unlock();
}

void siot_checkpoint_settle(int job_written)
{
    if (!S.ckpts)
        return;
    if (siot_cfg.verbose)
        fprintf(stderr, "siotrace: rank %d: %llu checkpoints, %.6f s in all\n", (int)S.rank,
                (unsigned long long)S.ckpts, (double)S.ckpt_ns * 1e-9);
    char path[PATH_MAX + 64];
    siot_partial_path(path, sizeof path, S.rank);
    if (job_written > 0)
        syscall(SYS_unlinkat, AT_FDCWD, path, 0);
    else if (job_written == 0)
        fprintf(stderr, "siotrace: rank %d: the job's trace was not written; this rank's last checkpoint is in %s\n",
                (int)S.rank, path);
    S.ckpts = 0;
}
